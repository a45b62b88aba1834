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

// The buffer a Windowed replay allocates, which is also what the policy
// holds from the memory budget for it: known to both without either
// depending on the other.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace kudu {
namespace fs {

// The buffer never holds less than this (unless the file is smaller), so
// that any legitimate record and supplemental header fits; windows below it
// only move the refill boundaries (tests use windows of a few bytes to make
// records straddle at every position). The flag raises smaller values to it,
// so in production the buffer is exactly the window the budget granted.
constexpr size_t kMinWindowBufferBytes = 64 * 1024;

// The buffer a window of `window_bytes` needs for a payload of
// `payload_bytes` (the file minus its encryption header).
inline size_t WindowBufferBytes(size_t window_bytes, uint64_t payload_bytes) {
  const uint64_t cap = std::max<uint64_t>(window_bytes, kMinWindowBufferBytes);
  return static_cast<size_t>(std::min<uint64_t>(cap, payload_bytes));
}

}  // namespace fs
}  // namespace kudu
