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

// A PbContainerRecordReader source over bytes already in memory: a "read" is
// a pointer into the buffer, so a record costs no system call and no copy.
#pragma once

#include <cstdint>
#include <string>

#include "kudu/util/slice.h"
#include "kudu/util/status.h"
#include "kudu/util/zero_rule.h"

namespace kudu {
namespace fs {

class BufferRecordSource {
 public:
  // `buf` holds the file's bytes [data_start, size).
  BufferRecordSource(const std::string& filename, const uint8_t* buf, uint64_t data_start,
                     uint64_t size)
      : filename_(filename), buf_(buf), data_start_(data_start), size_(size) {}

  const std::string& filename() const { return filename_; }
  uint64_t size() const { return size_; }
  uint64_t data_start() const { return data_start_; }

  Status Read(uint64_t offset, size_t n, Slice* out) {
    *out = Slice(buf_ + (offset - data_start_), n);
    return Status::OK();
  }
  Status ReadIsAllZero(uint64_t offset, uint64_t n, bool* all_zero) {
    return ReadIsAllZeroByChunks(
        offset, n,
        [this](uint64_t pos, uint64_t len, bool* zero) {
          *zero = IsAllZero(buf_ + (pos - data_start_), static_cast<size_t>(len));
          return Status::OK();
        },
        all_zero);
  }

 private:
  const std::string& filename_;
  const uint8_t* const buf_;
  const uint64_t data_start_;
  const uint64_t size_;
};

}  // namespace fs
}  // namespace kudu
