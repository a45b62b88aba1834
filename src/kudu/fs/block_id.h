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

// BlockId: the 64-bit identity of a block, unique across a server.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>

namespace kudu {
namespace fs {

class BlockId {
 public:
  constexpr BlockId() : id_(0) {}
  constexpr explicit BlockId(uint64_t id) : id_(id) {}

  uint64_t id() const { return id_; }
  // As Kudu prints a block id everywhere (BlockId::ToString): decimal,
  // zero-padded to at least 16 digits, so operators can grep one form.
  std::string ToString() const {
    char buf[kMaxFormattedLength + 1];
    return std::string(buf, Format(id_, buf));
  }

  // The longest ToString(): 2^64-1 has 20 decimal digits.
  static constexpr int kMaxFormattedLength = 20;

  // Writes ToString()'s digits (no terminator needed by the caller, one is
  // written) into `buf`, which holds kMaxFormattedLength + 1 bytes, and
  // returns their count: for printers of many ids that must not allocate.
  static int Format(uint64_t id, char* buf) {
    // to_chars and the padding by hand: snprintf's format parsing was most
    // of the cost of printing a list of millions of blocks.
    char digits[kMaxFormattedLength];
    const int n = static_cast<int>(std::to_chars(digits, digits + kMaxFormattedLength, id).ptr - digits);
    const int pad = n < kMinDigits ? kMinDigits - n : 0;
    std::memset(buf, '0', static_cast<size_t>(pad));
    std::memcpy(buf + pad, digits, static_cast<size_t>(n));
    buf[pad + n] = '\0';
    return pad + n;
  }
  static constexpr int kMinDigits = 16;

  bool operator==(const BlockId& o) const { return id_ == o.id_; }
  bool operator!=(const BlockId& o) const { return id_ != o.id_; }
  bool operator<(const BlockId& o) const { return id_ < o.id_; }

  template <typename H>
  friend H AbslHashValue(H h, const BlockId& b) {
    return H::combine(std::move(h), b.id_);
  }

 private:
  uint64_t id_;
};

}  // namespace fs
}  // namespace kudu
