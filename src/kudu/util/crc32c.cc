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

#include "kudu/util/crc32c.h"

#include <cstring>

namespace kudu {
namespace crc {
namespace {

constexpr uint32_t kPoly = 0x82F63B78;  // reflected Castagnoli polynomial

// Slicing-by-8 tables, built at compile time.
struct Tables {
  uint32_t t[8][256];
  constexpr Tables() : t() {
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ kPoly : (c >> 1);
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++) {
      for (int s = 1; s < 8; s++) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
    }
  }
};
constexpr Tables kTables;

uint32_t Fixed32Software(uint32_t v) {
  const uint8_t bytes[4] = {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8),
                            static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 24)};
  return Crc32cSoftware(0, bytes, 4);
}
#if defined(__x86_64__)
uint32_t Fixed32Hardware(uint32_t v) { return internal::HardwareCrc32cFixed32Inline(v); }
#else
uint32_t Fixed32Hardware(uint32_t v) { return Fixed32Software(v); }
#endif

// a x b modulo the polynomial, both in the reflected bit order (x^0 is the
// top bit). `a` must not be 0.
uint32_t MultModP(uint32_t a, uint32_t b) {
  uint32_t m = 1u << 31, p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) == 0) break;
    }
    m >>= 1;
    b = (b & 1) ? (b >> 1) ^ kPoly : b >> 1;
  }
  return p;
}

// x^(2^k) modulo the polynomial, k < 67: enough for shifts of 2^64 bytes.
struct PowersOfX {
  uint32_t v[67];
  PowersOfX() {
    v[0] = 1u << 30;  // x^1
    for (int k = 1; k < 67; k++) v[k] = MultModP(v[k - 1], v[k - 1]);
  }
};

}  // namespace

uint32_t Crc32cShift(uint32_t crc, uint64_t n) {
  static const PowersOfX powers;
  // x^(8n): the product of x^(2^(k+3)) over the set bits k of n.
  for (int k = 3; n != 0; n >>= 1, k++) {
    if (n & 1) crc = MultModP(powers.v[k], crc);
  }
  return crc;
}

uint32_t Crc32cSoftware(uint32_t crc, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t c = ~crc;
  while (n >= 8) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    lo ^= c;
    c = kTables.t[7][lo & 0xff] ^ kTables.t[6][(lo >> 8) & 0xff] ^
        kTables.t[5][(lo >> 16) & 0xff] ^ kTables.t[4][lo >> 24] ^
        kTables.t[3][hi & 0xff] ^ kTables.t[2][(hi >> 8) & 0xff] ^
        kTables.t[1][(hi >> 16) & 0xff] ^ kTables.t[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n--) c = (c >> 8) ^ kTables.t[0][(c ^ *p++) & 0xff];
  return ~c;
}

#if defined(__x86_64__)
uint32_t Crc32cHardware(uint32_t crc, const void* data, size_t n) {
  return internal::HardwareCrc32cInline(crc, static_cast<const uint8_t*>(data), n);
}

bool HardwareCrc32cAvailable() { return __builtin_cpu_supports("sse4.2"); }
#else
uint32_t Crc32cHardware(uint32_t crc, const void* data, size_t n) {
  return Crc32cSoftware(crc, data, n);
}
bool HardwareCrc32cAvailable() { return false; }
#endif

namespace internal {
uint32_t (*const kCrc32cImpl)(uint32_t, const void*, size_t) =
    HardwareCrc32cAvailable() ? &Crc32cHardware : &Crc32cSoftware;
uint32_t (*const kCrc32cFixed32Impl)(uint32_t) =
    HardwareCrc32cAvailable() ? &Fixed32Hardware : &Fixed32Software;
extern const bool kHardwareCrc32c = HardwareCrc32cAvailable();
}  // namespace internal

}  // namespace crc
}  // namespace kudu
