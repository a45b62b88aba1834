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

// Where the ciphertext of an encrypted file is all zeros.
//
// The reference reader decrypts each read on its own and leaves a read whose
// ciphertext is entirely zero as zeros (§5, the all-zero rule). A strategy
// that decrypts the whole file in one pass loses the ciphertext, so before
// decrypting it records the maximal runs of zero ciphertext bytes. A read of
// [a, b) then reads as zeros exactly when it lies inside one run. Runs
// shorter than kMinRun are not recorded: every read the record reader makes
// is at least 4 bytes long (a v1 length, a v2 length + checksum, a body +
// checksum) except the last chunk of a zero-tail check, which the caller
// settles by re-encrypting those few bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kudu {

class ZeroRunIndex {
 public:
  static constexpr size_t kMinRun = 4;

  // Indexes `data[0, n)`, which sits at raw file offset `base`.
  void Build(const uint8_t* data, size_t n, uint64_t base);

  // Whether raw range [offset, offset + n), n >= kMinRun, lies inside one
  // recorded run. Costs nothing when there are no runs, the usual case.
  bool Covers(uint64_t offset, uint64_t n) const;

  size_t run_count() const { return runs_.size(); }
  bool empty() const { return runs_.empty(); }

  struct Run {
    uint64_t begin;
    uint64_t end;  // exclusive
  };
  const std::vector<Run>& runs() const { return runs_; }

 private:
  std::vector<Run> runs_;
};

}  // namespace kudu
