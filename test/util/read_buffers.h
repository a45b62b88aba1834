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

// Reading consecutive byte ranges of a file into separate buffers, as Kudu's
// ReadV does, built on the file layer's public reads: the tests that check
// per-read rules (the all-zero rule of an encrypted file applies to each
// buffer on its own) need it; the server reads one range at a time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kudu/util/file.h"
#include "kudu/util/slice.h"
#include "kudu/util/status.h"

namespace kudu {
namespace test {

// Fills bufs[0, n) in order from raw offset `offset` on, each buffer one
// RandomAccessFile::Read (so decrypted as its own read).
inline Status ReadIntoBuffers(RandomAccessFile* file, uint64_t offset, const Slice* bufs,
                              size_t n) {
  for (size_t i = 0; i < n; i++) {
    RETURN_NOT_OK(file->Read(offset, bufs[i].mutable_data(), bufs[i].size()));
    offset += bufs[i].size();
  }
  return Status::OK();
}

}  // namespace test
}  // namespace kudu
