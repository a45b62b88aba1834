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

// A PbContainerRecordReader source over an encrypted file that was read in
// one piece and decrypted in one AES-CTR pass, giving every read the bytes
// the per-read reference would give (the all-zero rule of §5, zero_rule.h):
// a read inside a run of zero ciphertext reads zeros, any other read sees the
// decrypted bytes.
// Reads that lie in a zero run are zeroed in place. That is safe because the
// record reader never reads a byte twice after such a read: a zero-ciphertext
// header either ends the file (zero tail) or fails its checksum, which ends
// the replay.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "kudu/util/encryption.h"
#include "kudu/util/slice.h"
#include "kudu/util/status.h"
#include "kudu/util/zero_rule.h"

namespace kudu {
namespace fs {

class DecryptedBufferSource {
 public:
  // `buf` holds the ciphertext of [data_start, size). Prepare() indexes its
  // zero runs and decrypts it in place.
  DecryptedBufferSource(const std::string& filename, uint8_t* buf, uint64_t data_start,
                        uint64_t size, FileCipher* cipher)
      : filename_(filename), buf_(buf), data_start_(data_start), size_(size), cipher_(cipher) {}

  // A file with more zero-ciphertext runs than one per KiB (at least
  // kMaxIndexedZeroRuns) is refused, an I/O-class error that Streaming
  // takes over: the index, 16 bytes a run outside the replay budget, stays
  // within 1/64 of the buffer the budget granted. Only a damaged or
  // adversarial file has so many.
  Status Prepare(ZeroRunIndex* index) {
    index_ = index;
    const size_t n = static_cast<size_t>(size_ - data_start_);
    const size_t limit = std::max<size_t>(kMaxIndexedZeroRuns, n / 1024);
    const size_t runs = CountZeroRuns(buf_, n, limit);
    if (runs > limit) {
      index->Build(nullptr, 0, data_start_);
      return Status::IOError("more than " + std::to_string(limit) +
                             " runs of zero ciphertext to index; replay it with streaming");
    }
    index->Build(buf_, runs ? n : 0, data_start_);
    return cipher_->Crypt(data_start_, buf_, buf_, n);
  }

  const std::string& filename() const { return filename_; }
  uint64_t size() const { return size_; }
  uint64_t data_start() const { return data_start_; }

  Status Read(uint64_t offset, size_t n, Slice* out) {
    uint8_t* p = buf_ + (offset - data_start_);
    bool zeroed;
    RETURN_NOT_OK(index_->ApplyToRead(cipher_, offset, p, n, &zeroed));
    *out = Slice(p, n);
    return Status::OK();
  }

  Status ReadIsAllZero(uint64_t offset, uint64_t n, bool* all_zero) {
    return ReadIsAllZeroByChunks(
        offset, n,
        [this](uint64_t pos, uint64_t len, bool* zero) {
          const uint8_t* p = buf_ + (pos - data_start_);
          const size_t chunk = static_cast<size_t>(len);
          RETURN_NOT_OK(index_->CiphertextWasZero(cipher_, pos, p, chunk, zero));
          if (!*zero) *zero = IsAllZero(p, chunk);
          return Status::OK();
        },
        all_zero);
  }

 private:
  const std::string& filename_;
  uint8_t* const buf_;
  const uint64_t data_start_;
  const uint64_t size_;
  FileCipher* const cipher_;
  ZeroRunIndex* index_ = nullptr;
};

}  // namespace fs
}  // namespace kudu
