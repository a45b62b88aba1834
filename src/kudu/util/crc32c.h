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

// CRC-32C (Castagnoli), as used by every checksum of the PB container format.
// The SSE4.2 `crc32` instruction is used when the CPU has it (checked once at
// run time); otherwise a table-driven software path gives the same values.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kudu {
namespace crc {

namespace internal {
// The implementation the CPU supports, chosen once at start-up.
extern uint32_t (*const kCrc32cImpl)(uint32_t, const void*, size_t);
extern uint32_t (*const kCrc32cFixed32Impl)(uint32_t);
}  // namespace internal

// CRC-32C of data[0, n). Equivalent to Crc32cExtend(0, data, n). Inline:
// one indirect call per record body, not two calls.
inline uint32_t Crc32c(const void* data, size_t n) { return internal::kCrc32cImpl(0, data, n); }

// CRC-32C of the four little-endian bytes of `v`: what the v2 record
// format stores for each record's length. One instruction with SSE4.2,
// without the general function's loop (it runs once per record).
inline uint32_t Crc32cFixed32(uint32_t v) { return internal::kCrc32cFixed32Impl(v); }

// Continues a CRC: Crc32cExtend(Crc32c(a), b) == Crc32c(a || b).
inline uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t n) {
  return internal::kCrc32cImpl(crc, data, n);
}

// Both implementations, exposed so tests can check they agree.
uint32_t Crc32cSoftware(uint32_t crc, const void* data, size_t n);
uint32_t Crc32cHardware(uint32_t crc, const void* data, size_t n);
bool HardwareCrc32cAvailable();

}  // namespace crc
}  // namespace kudu
