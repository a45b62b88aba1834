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

#include <memory>

#include "kudu/fs/decrypted_buffer_source.h"
#include "kudu/fs/record_replay_loop.h"
#include "kudu/util/file.h"

namespace kudu {
namespace fs {

ReplayOutcome EncryptedInMemoryReplay::Replay(RandomAccessFile* file, BlockRecordSink* sink) {
  if (!file->encrypted()) {
    return MakeReplayOutcome(
        Status::NotSupported(file->filename() + ": Encrypted-InMemory replay needs an encrypted file"),
        0, 0);
  }
  const uint64_t start = file->encryption_header_size();
  // The payload, at its file offsets (a read past the page cache reads the
  // 64-byte header again: it must start at an aligned offset).
  AlignedBytes buf;
  bool direct;  // counted in the file's stats (direct_reads)
  Status s = ReadWholeFile(file, direct_read_, start, &buf, &direct, read_buffers_);
  if (!s.ok()) return MakeReplayOutcome(s, start, 0);
  DecryptedBufferSource source(file->filename(), buf.get() + start, start, file->size(),
                               file->cipher());
  s = source.Prepare(&zero_runs_);
  if (!s.ok()) return MakeReplayOutcome(s.CloneAndPrepend(file->filename()), start, 0);
  return ReplayRecordsFrom(&source, &scratch_, sink);
}

}  // namespace fs
}  // namespace kudu
