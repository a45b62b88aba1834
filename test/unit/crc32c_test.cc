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

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace kudu {
namespace crc {

TEST(Crc32cTest, FormatDocVectors) {
  EXPECT_EQ(0xE3069283u, Crc32c("123456789", 9));
  EXPECT_EQ(0x0A9421B7u, Crc32c("abcdefgh", 8));
  EXPECT_EQ(0xE3069283u, Crc32cSoftware(0, "123456789", 9));
  EXPECT_EQ(0x0A9421B7u, Crc32cSoftware(0, "abcdefgh", 8));
  EXPECT_EQ(0u, Crc32c("", 0));
}

TEST(Crc32cTest, HardwareMatchesSoftwareOnEveryLength) {
  if (!HardwareCrc32cAvailable()) GTEST_SKIP() << "no SSE4.2 on this CPU";
  std::mt19937 rng(42);
  std::vector<uint8_t> buf(1024 + 8);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  for (size_t len = 0; len <= 1024; len++) {
    for (size_t misalign = 0; misalign < 3; misalign++) {
      ASSERT_EQ(Crc32cSoftware(0, buf.data() + misalign, len),
                Crc32cHardware(0, buf.data() + misalign, len))
          << "length " << len << " misalignment " << misalign;
    }
  }
}

// Crc32c and Crc32cExtend run the inlined instruction loop, not the
// out-of-line functions above: every length up to a few words and every
// tail shape, from the start and continued.
TEST(Crc32cTest, InlinePathMatchesSoftwareOnEveryLength) {
  std::mt19937 rng(7);
  std::vector<uint8_t> buf(256 + 8);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  for (size_t len = 0; len <= 256; len++) {
    for (size_t misalign = 0; misalign < 8; misalign++) {
      const uint8_t* p = buf.data() + misalign;
      ASSERT_EQ(Crc32cSoftware(0, p, len), Crc32c(p, len))
          << "length " << len << " misalignment " << misalign;
      ASSERT_EQ(Crc32cSoftware(0x12345678u, p, len), Crc32cExtend(0x12345678u, p, len))
          << "length " << len << " misalignment " << misalign;
    }
  }
}

TEST(Crc32cTest, ExtendEqualsWhole) {
  std::string s = "the quick brown fox jumps over the lazy dog";
  for (size_t cut = 0; cut <= s.size(); cut++) {
    uint32_t a = Crc32c(s.data(), cut);
    EXPECT_EQ(Crc32c(s.data(), s.size()), Crc32cExtend(a, s.data() + cut, s.size() - cut));
  }
}

// The per-record length checksum: the CRC of the length's four
// little-endian bytes, whichever implementation the CPU selects.
// The CRC of a span from the CRCs at its ends: Crc32c(a || b) is
// Crc32cShift(Crc32c(a), |b|) ^ Crc32c(b), for spans of every small length
// and a few large ones (zeros, whose CRC is known by extension).
TEST(Crc32cTest, ShiftCombinesTheCrcsOfTwoSpans) {
  std::mt19937 rng(7);
  std::vector<uint8_t> buf(600);
  for (uint8_t& b : buf) b = static_cast<uint8_t>(rng());
  for (size_t a = 0; a <= 64; a++) {
    for (size_t n = 0; n + a <= buf.size(); n += (n < 40 ? 1 : 37)) {
      SCOPED_TRACE(std::to_string(a) + " + " + std::to_string(n));
      EXPECT_EQ(Crc32c(buf.data(), a + n),
                Crc32cShift(Crc32c(buf.data(), a), n) ^ Crc32c(buf.data() + a, n));
    }
  }
  EXPECT_EQ(0x12345678u, Crc32cShift(0x12345678u, 0));
  const std::vector<uint8_t> zeros(3 << 20, 0);
  const uint32_t head = Crc32c(buf.data(), buf.size());
  EXPECT_EQ(Crc32cExtend(head, zeros.data(), zeros.size()),
            Crc32cShift(head, zeros.size()) ^ Crc32c(zeros.data(), zeros.size()));
}

TEST(Crc32cTest, Fixed32IsTheCrcOfItsLittleEndianBytes) {
  for (uint32_t v : {0u, 1u, 0x7fu, 0x80u, 0xffu, 0x100u, 0x12345678u, 0x7fffffffu, 0x80000000u,
                     0xfffffff0u, 0xffffffffu}) {
    const uint8_t bytes[4] = {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8),
                              static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 24)};
    EXPECT_EQ(Crc32cSoftware(0, bytes, 4), Crc32cFixed32(v)) << v;
  }
}

}  // namespace crc
}  // namespace kudu
