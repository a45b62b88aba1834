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

// Slice: a non-owning view of bytes. The caller keeps the bytes alive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace kudu {

class Slice {
 public:
  Slice() : data_(reinterpret_cast<const uint8_t*>("")), size_(0) {}
  Slice(const uint8_t* d, size_t n) : data_(d), size_(n) {}
  Slice(const char* d, size_t n) : data_(reinterpret_cast<const uint8_t*>(d)), size_(n) {}
  Slice(const std::string& s)  // NOLINT: implicit, as in Kudu
      : data_(reinterpret_cast<const uint8_t*>(s.data())), size_(s.size()) {}
  Slice(const char* s)  // NOLINT: implicit, as in Kudu
      : data_(reinterpret_cast<const uint8_t*>(s)), size_(std::strlen(s)) {}

  const uint8_t* data() const { return data_; }
  const char* cdata() const { return reinterpret_cast<const char*>(data_); }
  // Writable access for slices that view a buffer the caller owns.
  uint8_t* mutable_data() const { return const_cast<uint8_t*>(data_); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  uint8_t operator[](size_t i) const { return data_[i]; }

  void remove_prefix(size_t n) { data_ += n; size_ -= n; }
  void truncate(size_t n) { size_ = n; }
  std::string ToString() const { return std::string(cdata(), size_); }

  int compare(const Slice& b) const {
    const size_t min_len = size_ < b.size_ ? size_ : b.size_;
    int r = min_len == 0 ? 0 : std::memcmp(data_, b.data_, min_len);
    if (r == 0) r = (size_ < b.size_) ? -1 : (size_ > b.size_ ? 1 : 0);
    return r;
  }
  bool operator==(const Slice& b) const { return compare(b) == 0; }
  bool operator!=(const Slice& b) const { return compare(b) != 0; }

 private:
  const uint8_t* data_;
  size_t size_;
};

}  // namespace kudu
