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

// MetadataReplayStrategy: turns one container's .metadata file into a stream
// of records and a final outcome. That is all a strategy does: it never
// applies record semantics (container_replay_state.h does, once), never looks
// at flags or the block map, and reads only through the RandomAccessFile it
// is given, so syscalls are counted and faults injected in one place.
//
// A strategy object is used by one thread at a time and may keep buffers and
// a parsing message between files.
#pragma once

#include <memory>

#include "kudu/fs/replay_outcome.h"
#include "kudu/fs/whole_file_read.h"

namespace kudu {
class RandomAccessFile;

namespace fs {

enum class ReplayStrategyKind : int {
  kStreaming = 0,      // the reference: two reads per record
  kInMemory,           // one read of the whole file, parse from memory
  kEncryptedInMemory,  // one read, one AES-CTR pass over the whole payload
  kWindowed,           // a fixed window per thread, for files of any size
  kNumKinds,
};

// "streaming", "inmemory", "encrypted_inmemory", "windowed": the names of the
// JSON report and of --log_container_metadata_replay_strategy.
const char* ReplayStrategyName(ReplayStrategyKind kind);

class MetadataReplayStrategy {
 public:
  virtual ~MetadataReplayStrategy() = default;
  virtual ReplayStrategyKind kind() const = 0;
  const char* name() const { return ReplayStrategyName(kind()); }

  // Replays `file` from its start, calling `sink` once per valid record in
  // file order. Returns how it ended; the status names the file and offset.
  virtual ReplayOutcome Replay(RandomAccessFile* file, BlockRecordSink* sink) = 0;
};

// Options the strategies need at construction (no flags are read inside).
struct ReplayStrategyOptions {
  // Bytes of the Windowed strategy's buffer per replay thread: the flag
  // raises smaller values to kMinWindowBufferBytes (replay_window.h); tests
  // set windows of a few bytes here to make records straddle every edge.
  size_t window_bytes = 4 * 1024 * 1024;
  // How InMemory and Encrypted-InMemory read their file (whole_file_read.h).
  DirectReadMode direct_read = DirectReadMode::kCold;
  // Where they keep their buffer between files (null: they keep none). It
  // belongs to the replay thread, as the strategies do.
  ReadBufferCache* read_buffers = nullptr;
};

std::unique_ptr<MetadataReplayStrategy> NewReplayStrategy(ReplayStrategyKind kind,
                                                          const ReplayStrategyOptions& opts);

}  // namespace fs
}  // namespace kudu
