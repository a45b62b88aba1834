// Licensed to the Apache Software Foundation (ASF) under one
// or more contributor license agreements.  See the NOTICE file
// distributed with this work for additional information
// regarding copyright ownership.  The ASF licenses this file
// to you under the Apache License, Version 2.0 (the
// "License"); you may not use this file except in compliance
// with the License.  You may obtain a copy of the License at
//
//   http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing,
// software distributed under the License is distributed on an
// "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
// KIND, either express or implied.  See the License for the
// specific language governing permissions and limitations
// under the License.

#include "kudu/fs/encrypted_in_memory_replay.h"
#include "kudu/fs/in_memory_replay.h"
#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/fs/streaming_replay.h"
#include "kudu/fs/windowed_replay.h"

namespace kudu {
namespace fs {

const char* ReplayStrategyName(ReplayStrategyKind kind) {
  switch (kind) {
    case ReplayStrategyKind::kStreaming: return "streaming";
    case ReplayStrategyKind::kInMemory: return "inmemory";
    case ReplayStrategyKind::kEncryptedInMemory: return "encrypted_inmemory";
    case ReplayStrategyKind::kWindowed: return "windowed";
    case ReplayStrategyKind::kNumKinds: break;
  }
  return "?";
}

std::unique_ptr<MetadataReplayStrategy> NewReplayStrategy(ReplayStrategyKind kind,
                                                          const ReplayStrategyOptions& opts) {
  switch (kind) {
    case ReplayStrategyKind::kStreaming: return std::make_unique<StreamingReplay>();
    case ReplayStrategyKind::kInMemory: return std::make_unique<InMemoryReplay>(opts.direct_read, opts.read_buffers);
    case ReplayStrategyKind::kEncryptedInMemory:
      return std::make_unique<EncryptedInMemoryReplay>(opts.direct_read, opts.read_buffers);
    case ReplayStrategyKind::kWindowed: return std::make_unique<WindowedReplay>(opts.window_bytes);
    case ReplayStrategyKind::kNumKinds: break;
  }
  return nullptr;
}

}  // namespace fs
}  // namespace kudu
