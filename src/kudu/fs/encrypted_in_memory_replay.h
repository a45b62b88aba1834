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

// Encrypted-InMemory: one read of the ciphertext (the whole file, through
// the page cache or past it: whole_file_read.h), one AES-CTR pass over the
// whole payload with one cipher context, decrypting in place; the all-zero
// rule is kept exact by a ZeroRunIndex built before decryption (see
// decrypted_buffer_source.h), so a zero-filled tail is recognised exactly as
// the per-read reference recognises it.
#pragma once

#include "kudu/fs/fs.pb.h"
#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/fs/whole_file_read.h"
#include "kudu/util/zero_rule.h"

namespace kudu {
namespace fs {

class EncryptedInMemoryReplay : public MetadataReplayStrategy {
 public:
  explicit EncryptedInMemoryReplay(DirectReadMode direct_read = DirectReadMode::kCold,
                                   ReadBufferCache* read_buffers = nullptr)
      : direct_read_(direct_read), read_buffers_(read_buffers) {}
  ReplayStrategyKind kind() const override { return ReplayStrategyKind::kEncryptedInMemory; }
  // A plain file is refused (IOError outcome): use InMemory for it.
  ReplayOutcome Replay(RandomAccessFile* file, BlockRecordSink* sink) override;

 private:
  const DirectReadMode direct_read_;
  ReadBufferCache* const read_buffers_;  // may be null
  BlockRecordPB scratch_;
  ZeroRunIndex zero_runs_;
};

}  // namespace fs
}  // namespace kudu
