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

// The look-ahead of §2 step 5 (pb_container_look_ahead.h) against a plain
// reading of the rule: every offset tried as a frame, its body's checksum
// computed from the body. Random bytes with valid frames planted, frames
// nested inside others' bodies, chunk sizes that cut frames anywhere, and a
// body check that refuses some.
#include "kudu/util/pb_container_look_ahead.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kudu/util/crc32c.h"
#include "kudu/util/pb_container_format.h"
#include "util/test_macros.h"

namespace kudu {
namespace pb_container {
namespace {

// The rule as §2 states it, the lowest offset first.
bool Reference(const std::string& f, uint64_t from, bool (*is_record)(Slice), uint64_t* at) {
  const uint8_t* b = reinterpret_cast<const uint8_t*>(f.data());
  for (uint64_t q = from; q + 12 <= f.size(); q++) {
    const uint32_t len = DecodeFixed32(b + q);
    if (crc::Crc32cFixed32(len) != DecodeFixed32(b + q + 4)) continue;
    if (q + 12 + len > f.size()) continue;
    if (crc::Crc32c(b + q + 8, len) != DecodeFixed32(b + q + 8 + len)) continue;
    if (is_record != nullptr && !is_record(Slice(b + q + 8, len))) continue;
    *at = q;
    return true;
  }
  return false;
}

// Bodies starting with 'X' are not records.
bool NotX(Slice body) { return body.size() == 0 || body.data()[0] != 'X'; }

struct ScanResult {
  bool found = false;
  uint64_t at = 0;
  uint64_t bytes_read = 0;
  size_t largest_read = 0;
};

ScanResult Scan(const std::string& f, uint64_t from, size_t known, size_t chunk,
         bool (*is_record)(Slice)) {
  LookAhead in;
  in.from = from;
  in.size = f.size();
  in.known = Slice(reinterpret_cast<const uint8_t*>(f.data()) + from,
                   std::min<size_t>(known, f.size() - from));
  in.chunk_bytes = chunk;
  ScanResult r;
  in.read = [&](uint64_t offset, size_t n, Slice* out) {
    EXPECT_LE(offset + n, f.size());
    r.bytes_read += n;
    r.largest_read = std::max(r.largest_read, n);
    *out = Slice(reinterpret_cast<const uint8_t*>(f.data()) + offset, n);
    return Status::OK();
  };
  if (is_record != nullptr) in.is_record = is_record;
  EXPECT_OK(FindValidRecord(in, &r.found, &r.at));
  return r;
}

std::string Frame(const std::string& body) {
  std::string out;
  AppendRecord(kVersion2, Slice(body), &out);
  return out;
}

TEST(PbContainerLookAheadTest, AgreesWithTheRuleOnRandomFiles) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 400; round++) {
    SCOPED_TRACE(round);
    std::string f(rng() % 700, '\0');
    for (char& c : f) c = static_cast<char>(rng() % 4 == 0 ? 0 : rng());
    // Plant frames, some inside others' bodies, some refused by the check.
    const int frames = static_cast<int>(rng() % 4);
    for (int i = 0; i < frames; i++) {
      std::string body(rng() % 40, 'a');
      if (rng() % 3 == 0 && !body.empty()) body[0] = 'X';
      const std::string fr = Frame(body);
      if (fr.size() > f.size()) continue;
      f.replace(rng() % (f.size() - fr.size() + 1), fr.size(), fr);
    }
    const uint64_t from = f.empty() ? 0 : rng() % (f.size() + 1);
    for (size_t chunk : {size_t{1}, size_t{5}, size_t{13}, size_t{64}, size_t{4096}}) {
      for (bool (*check)(Slice) : {static_cast<bool (*)(Slice)>(nullptr), &NotX}) {
        uint64_t want_at = 0;
        const bool want = Reference(f, from, check, &want_at);
        const ScanResult got = Scan(f, from, rng() % 9, chunk, check);
        ASSERT_EQ(want, got.found) << "chunk " << chunk;
        if (want) {
          EXPECT_EQ(want_at, got.at) << "chunk " << chunk;
        }
      }
    }
  }
}

// A frame nested in the body of an earlier one is found after it, but the
// earlier one is reported: the lowest offset.
TEST(PbContainerLookAheadTest, TheLowestOffsetWins) {
  const std::string inner = Frame("inner");
  const std::string outer = Frame("0123" + inner + "4567");
  const std::string f = "garbage!" + outer;
  const ScanResult r = Scan(f, 1, 0, 7, nullptr);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(8u, r.at);
}

// Every byte after the known ones is read once, a chunk at a time: the
// memory is a chunk whatever the file. Here a file built to defeat a scan
// that checks every candidate's body from its start: 2 MiB of frame
// prefixes whose lengths all run to the end.
TEST(PbContainerLookAheadTest, EachByteIsReadOnceInChunks) {
  std::string f;
  const uint64_t size = 2 << 20;
  while (f.size() + 8 <= size - 16) {
    const uint32_t len = static_cast<uint32_t>(size - f.size() - 12);
    PutFixed32(&f, len);
    PutFixed32(&f, crc::Crc32cFixed32(len));
  }
  f.resize(size, '\x01');  // every body's checksum is read from here
  const ScanResult r = Scan(f, 1, 7, 64 << 10, nullptr);
  EXPECT_FALSE(r.found);
  EXPECT_EQ(size - 8, r.bytes_read);
  EXPECT_EQ(size_t{64} << 10, r.largest_read);
}

// Frames nested one in the other's body, every checksum matching, no body
// a record: parsing each body again would cost the sum of their lengths,
// quadratic in the rest. Past twice the rest the scan stops: Corruption.
TEST(PbContainerLookAheadTest, NestedFramesThatAreNotRecordsAreDamage) {
  std::string f = "x";
  for (int i = 0; i < 2000; i++) f = Frame("X" + f);
  f = "garbage!" + f;
  LookAhead in;
  in.from = 1;
  in.size = f.size();
  in.max_parsed_body = 1 << 20;  // every body here is parsed; the budget is 2 x rest + this
  uint64_t parsed = 0;
  in.read = [&](uint64_t offset, size_t n, Slice* out) {
    *out = Slice(reinterpret_cast<const uint8_t*>(f.data()) + offset, n);
    return Status::OK();
  };
  in.is_record = [&](Slice body) {
    parsed += body.size();
    return NotX(body);
  };
  bool found = false;
  uint64_t at = 0;
  Status s = FindValidRecord(in, &found, &at);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_LE(parsed, 2 * f.size() + in.max_parsed_body);
  // A few such frames are only read: the rule's answer, no error.
  std::string few = "garbage!" + Frame("X" + Frame("X" + Frame("Xz")));
  const ScanResult r = Scan(few, 1, 0, 7, &NotX);
  EXPECT_FALSE(r.found);
}

// More frames open at once than allowed: Corruption, never a torn write.
TEST(PbContainerLookAheadTest, TooManyOpenFramesAreDamage) {
  std::string f;
  for (int i = 0; i < 100; i++) {
    PutFixed32(&f, 1000);
    PutFixed32(&f, crc::Crc32cFixed32(1000));
  }
  f.resize(5000, '\x02');
  LookAhead in;
  in.from = 0;
  in.size = f.size();
  in.max_pending_frames = 10;
  in.read = [&](uint64_t offset, size_t n, Slice* out) {
    *out = Slice(reinterpret_cast<const uint8_t*>(f.data()) + offset, n);
    return Status::OK();
  };
  bool found = false;
  uint64_t at = 0;
  Status s = FindValidRecord(in, &found, &at);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

}  // namespace
}  // namespace pb_container
}  // namespace kudu
