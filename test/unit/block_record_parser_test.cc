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

// The fast decoder must agree with protobuf's parser on every input: same
// accept/reject decision and, when accepted, the record protobuf's message
// holds.
#include "kudu/fs/block_record_parser.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

void ExpectAgree(const std::string& body, const std::string& what) {
  // Dirty the reused record and message first: a previous record must not
  // leak into this one.
  BlockRecordPB fallback = test::MakeCreate(99, 5, 6);
  BlockRecord fast = BlockRecordFromPB(test::MakeCreate(98, 7, 8));
  BlockRecordPB ref;
  bool fast_ok = ParseBlockRecord(body, &fallback, &fast);
  bool ref_ok = ParseBlockRecordWithProtobuf(body, &ref);
  ASSERT_EQ(ref_ok, fast_ok) << what;
  if (ref_ok) {
    ASSERT_EQ(test::SerializeBlockRecord(BlockRecordFromPB(ref)), test::SerializeBlockRecord(fast))
        << what;
    ASSERT_TRUE(BlockRecordFromPB(ref) == fast) << what;
  }
}

std::vector<std::string> Seeds() {
  std::vector<std::string> seeds;
  seeds.push_back(test::MakeCreate(1, 0, 0).SerializeAsString());
  seeds.push_back(test::MakeCreate(0xffffffffffffffffULL, INT64_MAX, INT64_MAX, ~0ULL).SerializeAsString());
  seeds.push_back(test::MakeCreate(12345, -1, -100, 0).SerializeAsString());
  seeds.push_back(test::MakeDelete(77, 1700000000000000ULL).SerializeAsString());
  BlockRecordPB unknown_op = test::MakeCreate(3, 4096, 10);
  unknown_op.set_op_type(UNKNOWN);
  seeds.push_back(unknown_op.SerializeAsString());
  BlockRecordPB only_offset = test::MakeCreate(3, 4096, 10);
  only_offset.clear_length();
  seeds.push_back(only_offset.SerializeAsString());
  // Hand-made encodings the fast path must leave to protobuf.
  std::string canonical = test::MakeCreate(5, 8192, 300, 42).SerializeAsString();
  seeds.push_back(canonical + canonical);                    // every field twice
  seeds.push_back(canonical + std::string("\x10\x07", 2));    // op_type 7: unknown enum value
  seeds.push_back(canonical + std::string("\x30\x01", 2));    // unknown field 6
  seeds.push_back(std::string("\x10\x01\x18\x01", 4));         // block_id missing
  seeds.push_back(std::string("\x0a\x00\x10\x01\x18\x01", 6)); // empty block_id
  seeds.push_back(std::string("\x18\x81\x80\x80\x80\x80\x80\x80\x80\x80\x01\x10\x02\x0a\x09\x09"
                              "12345678", 24));                // 10-byte varint, fields out of order
  seeds.push_back(std::string("\x18\x81\x80\x80\x80\x80\x80\x80\x80\x80\x7f\x10\x02\x0a\x09\x09"
                              "12345678", 24));                // overlong last varint byte
  seeds.push_back(std::string("\x10\x82\x00\x18\x01\x0a\x09\x09" "abcdefgh", 16));  // padded varint
  seeds.push_back("");
  return seeds;
}

// Every varint length (1..10 bytes, minimal and padded encodings) in every
// field, with the field at the end of the body and followed by more fields,
// so the decoder's word-at-a-time path (>= 8 bytes left) and its byte loop
// both meet every length and every terminator position.
TEST(BlockRecordParserTest, AgreesWithProtobufOnEveryVarintLength) {
  auto varint = [](uint64_t v, int pad_to) {
    std::string out;
    do {
      uint8_t b = v & 0x7f;
      v >>= 7;
      if (v != 0 || static_cast<int>(out.size()) + 1 < pad_to) b |= 0x80;
      out.push_back(static_cast<char>(b));
    } while (v != 0 || static_cast<int>(out.size()) < pad_to);
    return out;
  };
  const std::string id("\x0a\x09\x09" "abcdefgh", 11);
  for (int bits = 0; bits <= 64; bits += 3) {
    const uint64_t v = bits == 64 ? ~0ULL : (bits == 0 ? 0 : (1ULL << bits) - 1);
    for (int pad = 1; pad <= 10; pad++) {
      const std::string x = varint(v, pad);
      if (x.size() > 10) continue;
      const std::string what = "value of " + std::to_string(bits) + " bits in " +
                               std::to_string(x.size()) + " bytes";
      // Timestamp first, then offset and length after it; and each at the end.
      ExpectAgree(id + "\x10\x01\x18" + x + "\x20\x05\x28\x06", what + ", timestamp");
      ExpectAgree(id + "\x10\x01\x18\x01\x20\x05\x28" + x, what + ", length last");
      ExpectAgree(id + "\x10\x01\x18\x01\x28\x06\x20" + x, what + ", offset last");
      ExpectAgree(id + "\x18" + x + "\x10\x01", what + ", op last");
      ExpectAgree(id + "\x10" + x + "\x18\x01", what + ", op");
    }
  }
}

// The writer's encoder gives protobuf's own bytes for every record it can
// be handed: CREATEs and DELETEs, ids and timestamps at every varint
// length, negative offsets and lengths (ten-byte varints), either optional
// field alone, the enum's other values; and the fast parser reads each back.
TEST(BlockRecordParserTest, EncoderWritesProtobufsBytes) {
  std::mt19937_64 rng(7);
  std::vector<uint64_t> values = {0, 1, 127, 128, 16383, 16384, 1ULL << 35, 1ULL << 56,
                                  (1ULL << 63) - 1, 1ULL << 63, ~0ULL};
  for (int i = 0; i < 200; i++) values.push_back(rng() >> (rng() % 64));
  int checked = 0;
  for (size_t i = 0; i < values.size(); i++) {
    for (BlockRecordType op : {CREATE, DELETE, UNKNOWN}) {
      for (int fields = 0; fields < 4; fields++) {
        BlockRecord r;
        r.block_id = values[i];
        r.op_type = op;
        r.has_offset = (fields & 1) != 0;
        r.has_length = (fields & 2) != 0;
        r.offset = r.has_offset ? static_cast<int64_t>(values[(i + 3) % values.size()]) : 0;
        r.length = r.has_length ? static_cast<int64_t>(values[(i + 7) % values.size()]) : 0;
        const uint64_t timestamp = values[(i + 5) % values.size()];
        BlockRecordPB pb;
        pb.mutable_block_id()->set_id(r.block_id);
        pb.set_op_type(r.op_type);
        pb.set_timestamp_us(timestamp);
        if (r.has_offset) pb.set_offset(r.offset);
        if (r.has_length) pb.set_length(r.length);
        uint8_t out[kMaxEncodedBlockRecordBytes];
        const size_t n = EncodeBlockRecord(r, timestamp, out);
        ASSERT_LE(n, kMaxEncodedBlockRecordBytes);
        ASSERT_EQ(pb.SerializeAsString(), std::string(reinterpret_cast<char*>(out), n))
            << "record " << i << " op " << op << " fields " << fields;
        BlockRecordPB fallback;
        BlockRecord back;
        ASSERT_TRUE(ParseBlockRecord(Slice(out, n), &fallback, &back));
        ASSERT_TRUE(back == r) << i;
        checked++;
      }
    }
  }
  EXPECT_EQ(static_cast<int>(values.size()) * 12, checked);
}

TEST(BlockRecordParserTest, AgreesWithProtobufOnSeeds) {
  for (const std::string& s : Seeds()) ExpectAgree(s, "seed of " + std::to_string(s.size()) + " bytes");
}

// The record and the fallback message are reused across records: after a
// body only protobuf can parse (a block_id with an extra field, a CREATE
// with offset and length), a canonical DELETE must come out with exactly
// its own fields, nothing left from the previous record.
TEST(BlockRecordParserTest, ReusedRecordKeepsNothingFromThePreviousOne) {
  const std::string extra_in_block_id("\x0a\x0b\x09" "abcdefgh\x10\x05\x10\x01\x18\x01\x20\x00\x28\x01",
                                      21);
  const std::string canonical = test::MakeDelete(6, 1000).SerializeAsString();
  BlockRecordPB fallback, fresh;
  BlockRecord reused;
  ASSERT_TRUE(ParseBlockRecord(extra_in_block_id, &fallback, &reused));
  EXPECT_TRUE(reused.has_offset && reused.has_length);
  ASSERT_TRUE(ParseBlockRecord(canonical, &fallback, &reused));
  ASSERT_TRUE(ParseBlockRecordWithProtobuf(canonical, &fresh));
  EXPECT_TRUE(BlockRecordFromPB(fresh) == reused);
  EXPECT_FALSE(reused.has_offset);
  EXPECT_FALSE(reused.has_length);
  EXPECT_EQ(0, reused.offset);
}

TEST(BlockRecordParserTest, AgreesWithProtobufOnMutations) {
  std::mt19937 rng(11);
  int tried = 0;
  for (const std::string& seed : Seeds()) {
    for (size_t pos = 0; pos < seed.size(); pos++) {
      for (int v = 0; v < 256; v++) {
        std::string m = seed;
        m[pos] = static_cast<char>(v);
        ExpectAgree(m, "seed byte " + std::to_string(pos) + " = " + std::to_string(v));
        tried++;
      }
    }
    for (size_t len = 0; len < seed.size(); len++) {
      ExpectAgree(seed.substr(0, len), "truncated to " + std::to_string(len));
      tried++;
    }
    for (int k = 0; k < 2000; k++) {
      std::string m = seed;
      int edits = 1 + rng() % 4;
      for (int e = 0; e < edits; e++) {
        int op = rng() % 3;
        size_t at = m.empty() ? 0 : rng() % (m.size() + 1);
        if (op == 0 && !m.empty() && at < m.size()) m[at] = static_cast<char>(rng());
        if (op == 1) m.insert(m.begin() + at, static_cast<char>(rng()));
        if (op == 2 && at < m.size()) m.erase(m.begin() + at);
      }
      ExpectAgree(m, "random edit");
      tried++;
    }
  }
  EXPECT_GT(tried, 10000);
}

}  // namespace
}  // namespace fs
}  // namespace kudu
