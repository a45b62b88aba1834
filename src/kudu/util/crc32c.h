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
// Whether the CPU has SSE4.2's crc32 (false until static initialisation
// has asked, which only selects the software path meanwhile).
extern const bool kHardwareCrc32c;

#if defined(__x86_64__)
// The crc32 instruction loop, in inline assembly: a function compiled for
// SSE4.2 cannot be inlined into code compiled for the base x86-64 set, and
// the record reader checks two CRCs per record, each as short as a record
// body, where the call and the indirect jump cost as much as the loop.
// Only run when kHardwareCrc32c is true.
__attribute__((always_inline)) inline uint32_t HardwareCrc32cInline(uint32_t crc,
                                                                  const uint8_t* p, size_t n) {
  uint64_t c = ~crc;
  while (n >= 8) {
    uint64_t v;
    __builtin_memcpy(&v, p, 8);
    __asm__("crc32q %1, %0" : "+r"(c) : "rm"(v));
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  if (n >= 4) {
    uint32_t v;
    __builtin_memcpy(&v, p, 4);
    __asm__("crc32l %1, %0" : "+r"(c32) : "rm"(v));
    p += 4;
    n -= 4;
  }
  while (n > 0) {
    const uint8_t v = *p++;
    __asm__("crc32b %1, %0" : "+r"(c32) : "rm"(v));
    n--;
  }
  return ~c32;
}

__attribute__((always_inline)) inline uint32_t HardwareCrc32cFixed32Inline(uint32_t v) {
  uint32_t c = ~0u;
  __asm__("crc32l %1, %0" : "+r"(c) : "rm"(v));
  return ~c;
}
#endif
}  // namespace internal

// Continues a CRC: Crc32cExtend(Crc32c(a), b) == Crc32c(a || b).
inline uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t n) {
#if defined(__x86_64__)
  if (__builtin_expect(internal::kHardwareCrc32c, 1)) {
    return internal::HardwareCrc32cInline(crc, static_cast<const uint8_t*>(data), n);
  }
#endif
  return internal::kCrc32cImpl(crc, data, n);
}

// CRC-32C of data[0, n). Equivalent to Crc32cExtend(0, data, n).
inline uint32_t Crc32c(const void* data, size_t n) { return Crc32cExtend(0, data, n); }

// CRC-32C of the four little-endian bytes of `v`: what the v2 record
// format stores for each record's length. One instruction with SSE4.2,
// without the general function's loop (it runs once per record).
inline uint32_t Crc32cFixed32(uint32_t v) {
#if defined(__x86_64__)
  if (__builtin_expect(internal::kHardwareCrc32c, 1)) {
    return internal::HardwareCrc32cFixed32Inline(v);
  }
#endif
  return internal::kCrc32cFixed32Impl(v);
}

// Crc32c(a) moved past `n` more bytes: for any b of n bytes,
// Crc32c(a || b) == Crc32cShift(Crc32c(a), n) ^ Crc32c(b) (zlib's
// crc32_combine). So the CRC of any span of a stream comes from the
// stream's running CRC at the span's two ends, without reading the span
// again. O(log n) carry-less multiplications.
uint32_t Crc32cShift(uint32_t crc, uint64_t n);

// Both implementations, exposed so tests can check they agree.
uint32_t Crc32cSoftware(uint32_t crc, const void* data, size_t n);
uint32_t Crc32cHardware(uint32_t crc, const void* data, size_t n);
bool HardwareCrc32cAvailable();

}  // namespace crc
}  // namespace kudu
