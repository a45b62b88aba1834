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

// InMemory: one read of the whole plain file (through the page cache or
// past it, whole_file_read.h), then every record parsed from the buffer by
// the same reader as Streaming. No system call and no heap allocation per
// record. The caller holds a memory-budget grant for the file's size while
// this runs; the buffer is freed, or kept in `read_buffers` for the next
// file, before Replay returns.
#pragma once

#include "kudu/fs/fs.pb.h"
#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/fs/whole_file_read.h"

namespace kudu {
namespace fs {

class InMemoryReplay : public MetadataReplayStrategy {
 public:
  explicit InMemoryReplay(DirectReadMode direct_read = DirectReadMode::kCold,
                          ReadBufferCache* read_buffers = nullptr)
      : direct_read_(direct_read), read_buffers_(read_buffers) {}
  ReplayStrategyKind kind() const override { return ReplayStrategyKind::kInMemory; }
  // An encrypted file is refused (IOError outcome, so the caller falls back):
  // decrypting it as one read would break the all-zero rule.
  ReplayOutcome Replay(RandomAccessFile* file, BlockRecordSink* sink) override;

 private:
  const DirectReadMode direct_read_;
  ReadBufferCache* const read_buffers_;  // may be null
  BlockRecordPB scratch_;
};

}  // namespace fs
}  // namespace kudu
