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

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace kudu {
namespace {

// Reference: every maximal zero run of >= 4 bytes, by brute force.
std::vector<ZeroRunIndex::Run> BruteForce(const std::vector<uint8_t>& d, uint64_t base) {
  std::vector<ZeroRunIndex::Run> runs;
  size_t i = 0;
  while (i < d.size()) {
    if (d[i] != 0) {
      i++;
      continue;
    }
    size_t j = i;
    while (j < d.size() && d[j] == 0) j++;
    if (j - i >= ZeroRunIndex::kMinRun) runs.push_back({base + i, base + j});
    i = j;
  }
  return runs;
}

TEST(ZeroRunIndexTest, MatchesBruteForceOnRandomBuffers) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 3000; iter++) {
    size_t n = rng() % 200;
    std::vector<uint8_t> d(n);
    for (auto& b : d) b = static_cast<uint8_t>(rng() % 4 == 0 ? 0 : rng());
    // Plant a few runs of chosen lengths at random places.
    for (int k = 0; k < 3 && n > 0; k++) {
      size_t at = rng() % n, len = rng() % 12;
      for (size_t m = at; m < at + len && m < n; m++) d[m] = 0;
    }
    uint64_t base = 64 + rng() % 7;
    ZeroRunIndex idx;
    idx.Build(d.data(), d.size(), base);
    auto expected = BruteForce(d, base);
    ASSERT_EQ(expected.size(), idx.runs().size()) << "iteration " << iter;
    for (size_t r = 0; r < expected.size(); r++) {
      EXPECT_EQ(expected[r].begin, idx.runs()[r].begin);
      EXPECT_EQ(expected[r].end, idx.runs()[r].end);
    }
    // Covers() agrees with "all bytes of the range are zero" for len >= 4.
    for (int q = 0; q < 50 && n >= 4; q++) {
      size_t a = rng() % (n - 3);
      size_t len = 4 + rng() % (n - a - 3);
      bool all_zero = true;
      for (size_t m = a; m < a + len; m++) all_zero &= d[m] == 0;
      EXPECT_EQ(all_zero, idx.Covers(base + a, len)) << a << "+" << len;
    }
  }
}

// Ciphertext-like buffers: no zero byte except the runs planted, of every
// length around kMinRun, at every position relative to the scan's 8- and
// 16-byte steps (the scan skips whole steps that hold no zero lane).
TEST(ZeroRunIndexTest, MatchesBruteForceOnSparseRuns) {
  std::mt19937 rng(11);
  for (size_t n : {15, 16, 17, 31, 32, 33, 64, 100, 257}) {
    for (size_t at = 0; at < n; at++) {
      for (size_t len = 1; len <= 9 && at + len <= n; len++) {
        std::vector<uint8_t> d(n);
        for (auto& b : d) b = static_cast<uint8_t>(1 + rng() % 255);
        for (size_t m = at; m < at + len; m++) d[m] = 0;
        // Sometimes a second run further on.
        if (rng() % 3 == 0 && at + len + 2 < n) {
          const size_t at2 = at + len + 1 + rng() % (n - at - len - 1);
          for (size_t m = at2; m < std::min(n, at2 + 4 + rng() % 3); m++) d[m] = 0;
        }
        ZeroRunIndex idx;
        idx.Build(d.data(), d.size(), 64);
        const auto expected = BruteForce(d, 64);
        ASSERT_EQ(expected.size(), idx.runs().size()) << n << " " << at << "+" << len;
        for (size_t r = 0; r < expected.size(); r++) {
          EXPECT_EQ(expected[r].begin, idx.runs()[r].begin) << n << " " << at << "+" << len;
          EXPECT_EQ(expected[r].end, idx.runs()[r].end) << n << " " << at << "+" << len;
        }
      }
    }
  }
}

TEST(ZeroRunIndexTest, EmptyAndAllZero) {
  ZeroRunIndex idx;
  idx.Build(nullptr, 0, 0);
  EXPECT_TRUE(idx.empty());
  EXPECT_FALSE(idx.Covers(0, 4));
  std::vector<uint8_t> z(1000, 0);
  idx.Build(z.data(), z.size(), 64);
  ASSERT_EQ(1u, idx.run_count());
  EXPECT_TRUE(idx.Covers(64, 1000));
  EXPECT_FALSE(idx.Covers(63, 4));
  EXPECT_FALSE(idx.Covers(1061, 4));
}

}  // namespace
}  // namespace kudu
