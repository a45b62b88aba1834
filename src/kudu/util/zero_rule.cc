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

#include "kudu/util/zero_rule.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kudu {
namespace {

// Calls on_run(begin, end) for every maximal run of at least
// ZeroRunIndex::kMinRun zero bytes in data[0, n), in order, until it
// returns false.
template <class OnRun>
void ScanZeroRuns(const uint8_t* data, size_t n, OnRun&& on_run) {
  constexpr size_t kMinRun = ZeroRunIndex::kMinRun;
  size_t last_end = 0;  // end of the last run reported (runs never repeat)
  bool any = false;
  auto report = [&](size_t begin, size_t end) {
    if (end - begin < kMinRun || (any && begin <= last_end)) return true;
    any = true;
    last_end = end;
    return on_run(begin, end);
  };
  // Any run of >= 4 zero bytes contains a zero 16-bit lane at an even
  // position, so scan 8 bytes at a time for a zero lane (rare in ciphertext:
  // 2^-16 per lane) and only then look at bytes.
  constexpr uint64_t kLow = 0x0001000100010001ULL;
  constexpr uint64_t kHigh = 0x8000800080008000ULL;
  size_t i = 0;
  while (i + 8 <= n) {
#if defined(__SSE2__)
    // Sixteen bytes (eight even lanes) per step where they hold no zero
    // lane, which is nearly everywhere: the scan runs at memory speed.
    if (i + 16 <= n) {
      const __m128i v16 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
      if (_mm_movemask_epi8(_mm_cmpeq_epi16(v16, _mm_setzero_si128())) == 0) {
        i += 16;
        continue;
      }
    }
#endif
    uint64_t v;
    std::memcpy(&v, data + i, 8);
    if (((v - kLow) & ~v & kHigh) == 0) {
      i += 8;
      continue;
    }
    // Find the zero lane, then grow it into its maximal run.
    size_t lane = i;
    while (lane < i + 8 && (data[lane] | data[lane + 1]) != 0) lane += 2;
    if (lane >= i + 8) {  // the bit trick can report a borrow; none really zero
      i += 8;
      continue;
    }
    size_t begin = lane;
    while (begin > 0 && data[begin - 1] == 0) begin--;
    size_t end = lane + 2;
    while (end < n && data[end] == 0) end++;
    if (!report(begin, end)) return;
    // Continue at the next even position after the run.
    i = (end + 1) & ~static_cast<size_t>(1);
    if (i < lane + 2) i = lane + 2;
  }
  // Tail bytes (fewer than 8): plain scan.
  size_t j = i;
  while (j < n) {
    if (data[j] != 0) {
      j++;
      continue;
    }
    size_t begin = j;
    while (begin > 0 && data[begin - 1] == 0) begin--;
    size_t end = j;
    while (end < n && data[end] == 0) end++;
    if (!report(begin, end)) return;
    j = end;
  }
}

}  // namespace

bool IsAllZero(const uint8_t* data, size_t n) {
  // Word-at-a-time: this runs over every zero-tail chunk.
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v;
    std::memcpy(&v, data + i, 8);
    if (v != 0) return false;
  }
  for (; i < n; i++) {
    if (data[i] != 0) return false;
  }
  return true;
}

Status DecryptReadInPlace(FileCipher* cipher, uint64_t offset, uint8_t* buf, size_t n) {
  if (IsAllZero(buf, n)) return Status::OK();
  return cipher->Crypt(offset, buf, buf, n);
}

void ZeroRunIndex::Build(const uint8_t* data, size_t n, uint64_t base) {
  runs_.clear();
  ScanZeroRuns(data, n, [&](size_t begin, size_t end) {
    runs_.push_back({base + begin, base + end});
    return true;
  });
}

size_t CountZeroRuns(const uint8_t* data, size_t n, size_t limit) {
  size_t count = 0;
  ScanZeroRuns(data, n, [&](size_t, size_t) { return ++count <= limit; });
  return count;
}

bool ZeroRunIndex::Covers(uint64_t offset, uint64_t n) const {
  if (runs_.empty()) return false;
  const uint64_t end = offset + n;
  // The first run that ends at or after `end` is the only one that can hold
  // the whole range (runs are disjoint and sorted).
  auto it = std::lower_bound(runs_.begin(), runs_.end(), end,
                             [](const Run& r, uint64_t e) { return r.end < e; });
  return it != runs_.end() && it->begin <= offset;
}

Status ZeroRunIndex::ShortCiphertextWasZero(FileCipher* cipher, uint64_t offset,
                                            const uint8_t* p, size_t n, bool* zero) const {
  if (n == 0) {
    *zero = true;
    return Status::OK();
  }
  // Re-encrypt the few plaintext bytes to get the ciphertext back.
  uint8_t c[kMinRun];
  RETURN_NOT_OK(cipher->Crypt(offset, p, c, n));
  uint8_t any = 0;
  for (size_t i = 0; i < n; i++) any |= c[i];
  *zero = any == 0;
  return Status::OK();
}

}  // namespace kudu
