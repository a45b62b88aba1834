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

// Record semantics (§4): CREATE, DELETE, each kind of malformed record, the
// live map, next write offset, max block id, counts and bytes.
#include "kudu/fs/container_replay_state.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

using test::MakeCreate;
using test::MakeDelete;

constexpr uint64_t kDataSize = 1 << 20;

TEST(ContainerReplayStateTest, CreateAndDelete) {
  ContainerReplayState s(kDataSize, 0, 4096);
  s.OnRecord(BlockRecordFromPB(MakeCreate(5, 0, 100)), 16);
  s.OnRecord(BlockRecordFromPB(MakeCreate(9, 4096, 5000)), 60);
  s.OnRecord(BlockRecordFromPB(MakeCreate(7, 12288, 0)), 100);
  EXPECT_EQ(3u, s.live_count());
  EXPECT_EQ(5100u, s.live_bytes());
  EXPECT_EQ(4096u + 8192u + 0u, s.live_bytes_aligned());
  EXPECT_EQ(9u, s.max_block_id());
  EXPECT_EQ(12288u, s.next_write_offset());  // 4096 + 5000 aligned up
  s.OnRecord(BlockRecordFromPB(MakeDelete(9)), 140);
  EXPECT_EQ(2u, s.live_count());
  EXPECT_EQ(100u, s.live_bytes());
  EXPECT_EQ(3u, s.total_blocks());
  EXPECT_EQ(1u, s.dead_blocks());
  // Deleted blocks keep their space: the next offset does not go back.
  EXPECT_EQ(12288u, s.next_write_offset());
  EXPECT_EQ(9u, s.max_block_id());
  EXPECT_TRUE(s.malformed().empty());
  ASSERT_TRUE(s.live_blocks().Find(5));
  EXPECT_EQ((BlockLocation{0, 100}), *s.live_blocks().Find(5));
}

struct MalformedCase {
  const char* name;
  std::vector<BlockRecordPB> records;
  const char* reason_fragment;  // the reason code of §4.2
  size_t live_after;
};

BlockRecordPB CreateWithout(bool offset, bool length) {
  BlockRecordPB r = MakeCreate(3, 0, 10);
  if (!offset) r.clear_offset();
  if (!length) r.clear_length();
  return r;
}

BlockRecordPB Unknown() {
  BlockRecordPB r = MakeCreate(4, 0, 10);
  r.set_op_type(UNKNOWN);
  return r;
}

class ContainerReplayStateMalformedTest : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(ContainerReplayStateMalformedTest, IsReportedSkippedAndNotFatal) {
  const MalformedCase& c = GetParam();
  ContainerReplayState s(kDataSize, 0, 4096);
  uint64_t offset = 16;
  for (const auto& r : c.records) s.OnRecord(BlockRecordFromPB(r), offset += 40);
  ASSERT_EQ(1u, s.malformed().size());
  EXPECT_EQ(std::string(c.reason_fragment), s.malformed()[0].reason);
  EXPECT_EQ(offset, s.malformed()[0].record_offset);
  EXPECT_EQ(c.live_after, s.live_count());
  // A malformed CREATE does not count towards the max id.
  if (c.records.size() == 1) {
    EXPECT_FALSE(s.has_max_block_id());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, ContainerReplayStateMalformedTest,
    ::testing::Values(
        MalformedCase{"no_offset", {CreateWithout(false, true)}, "missing_offset", 0},
        MalformedCase{"no_length", {CreateWithout(true, false)}, "missing_length", 0},
        MalformedCase{"negative_offset", {MakeCreate(3, -1, 10)}, "negative_offset", 0},
        MalformedCase{"negative_length", {MakeCreate(3, 0, -10)}, "negative_length", 0},
        MalformedCase{"past_data_end", {MakeCreate(3, kDataSize - 5, 10)}, "past_end_of_data", 0},
        MalformedCase{"overflow", {MakeCreate(3, INT64_MAX, INT64_MAX)}, "offset_length_overflow", 0},
        MalformedCase{"duplicate_create", {MakeCreate(3, 0, 10), MakeCreate(3, 4096, 10)}, "duplicate_create", 1},
        MalformedCase{"delete_not_live", {MakeDelete(77)}, "delete_not_live", 0},
        MalformedCase{"delete_twice", {MakeCreate(3, 0, 10), MakeDelete(3), MakeDelete(3)}, "delete_not_live", 0},
        MalformedCase{"unknown_op", {Unknown()}, "unknown_op_type", 0}),
    [](const ::testing::TestParamInfo<MalformedCase>& info) { return info.param.name; });

TEST(ContainerReplayStateTest, ZeroLengthBlockAtTheEndOfTheDataFileIsFine) {
  ContainerReplayState s(4096, 0, 4096);
  s.OnRecord(BlockRecordFromPB(MakeCreate(1, 4096, 0)), 16);
  s.OnRecord(BlockRecordFromPB(MakeCreate(2, 1 << 30, 0)), 56);  // length 0: the data size is not checked
  EXPECT_TRUE(s.malformed().empty());
  EXPECT_EQ(2u, s.live_count());
}

// A CREATE past the end of the data file as first stat'ed asks its size
// again, as Kudu does for a read-only open beside a running server
// (KUDU-1657): a block appended since is live; one still past the end, or
// with no size to be had, is malformed. The size is asked only then.
TEST(ContainerReplayStateTest, ACreatePastTheEndAsksTheDataFileSizeAgain) {
  uint64_t now = 8192;
  int asked = 0;
  bool can_ask = true;
  ContainerReplayState s(4096, 0, 4096);
  s.set_data_file_sizer([&](uint64_t* size) {
    asked++;
    *size = now;
    return can_ask;
  });
  s.OnRecord(BlockRecordFromPB(MakeCreate(1, 0, 4096)), 16);
  EXPECT_EQ(0, asked);
  s.OnRecord(BlockRecordFromPB(MakeCreate(2, 4096, 4096)), 56);  // appended since
  EXPECT_EQ(1, asked);
  s.OnRecord(BlockRecordFromPB(MakeCreate(3, 4096 + 100, 10)), 96);  // within the grown size
  EXPECT_EQ(1, asked);
  s.OnRecord(BlockRecordFromPB(MakeCreate(4, 8192, 10)), 136);  // past even the grown size
  EXPECT_EQ(2, asked);
  can_ask = false;
  now = 1 << 20;
  s.OnRecord(BlockRecordFromPB(MakeCreate(5, 8192, 10)), 176);
  EXPECT_EQ(3u, s.live_count());
  ASSERT_EQ(2u, s.malformed().size());
  EXPECT_EQ(4u, s.malformed()[0].block_id);
  EXPECT_EQ(5u, s.malformed()[1].block_id);
}

TEST(ContainerReplayStateTest, EncryptedDataFileStartsAfterItsHeader) {
  ContainerReplayState s(kDataSize, 64, 4096);
  EXPECT_EQ(4096u, s.next_write_offset());
  s.OnRecord(BlockRecordFromPB(MakeCreate(1, 4096, 1)), 80);
  EXPECT_EQ(8192u, s.next_write_offset());
}

TEST(ContainerReplayStateTest, ResetForgetsEverything) {
  ContainerReplayState s(kDataSize, 0, 4096);
  s.OnRecord(BlockRecordFromPB(MakeCreate(1, 0, 10)), 16);
  s.OnRecord(BlockRecordFromPB(MakeDelete(8)), 56);
  s.Reset();
  EXPECT_EQ(0u, s.live_count());
  EXPECT_EQ(0u, s.total_blocks());
  EXPECT_EQ(0u, s.records_applied());
  EXPECT_TRUE(s.malformed().empty());
  EXPECT_EQ(0u, s.next_write_offset());
  EXPECT_FALSE(s.has_max_block_id());
}

TEST(ContainerReplayStateTest, ReCreateAfterDeleteIsAccepted) {
  ContainerReplayState s(kDataSize, 0, 4096);
  s.OnRecord(BlockRecordFromPB(MakeCreate(1, 0, 10)), 16);
  s.OnRecord(BlockRecordFromPB(MakeDelete(1)), 56);
  s.OnRecord(BlockRecordFromPB(MakeCreate(1, 4096, 20)), 96);
  EXPECT_TRUE(s.malformed().empty());
  ASSERT_TRUE(s.live_blocks().Find(1));
  EXPECT_EQ((BlockLocation{4096, 20}), *s.live_blocks().Find(1));
  EXPECT_EQ(2u, s.total_blocks());
}

// Block-size rounding (live_bytes_aligned by §4.3's aligned length,
// next_write_offset) against a plain ceiling division, for power-of-two sizes (the masked path) and
// others, at small values, around multiples and at the int64 limit.
TEST(ContainerReplayStateTest, RoundsUpToTheFilesystemBlockSize) {
  auto ceil_to = [](uint64_t v, uint64_t b) {
    const unsigned __int128 r = (static_cast<unsigned __int128>(v) + b - 1) / b * b;
    return r > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(r);
  };
  for (uint64_t bs : {1ULL, 512ULL, 4096ULL, 65536ULL, 1000ULL, 4095ULL}) {
    std::vector<std::pair<int64_t, int64_t>> extents = {
        {0, 0}, {0, 1}, {1, 0}, {0, static_cast<int64_t>(bs)}, {static_cast<int64_t>(bs) - 1, 1},
        {static_cast<int64_t>(bs), static_cast<int64_t>(bs) + 1}, {123457, 98765},
        {INT64_MAX - 1, 1}, {INT64_MAX - static_cast<int64_t>(bs), static_cast<int64_t>(bs)},
        {INT64_MAX, 0}};
    ContainerReplayState s(UINT64_MAX, 0, bs);
    uint64_t want_aligned = 0, want_next = 0;
    uint64_t id = 1;
    for (const auto& e : extents) {
      s.OnRecord(BlockRecordFromPB(MakeCreate(id, e.first, e.second)), id * 40);
      id++;
      // §4.3: a block that does not start on a block boundary counts unrounded.
      want_aligned += static_cast<uint64_t>(e.first) % bs == 0
                          ? ceil_to(static_cast<uint64_t>(e.second), bs)
                          : static_cast<uint64_t>(e.second);
      want_next = std::max(want_next, ceil_to(static_cast<uint64_t>(e.first + e.second), bs));
      ASSERT_TRUE(s.malformed().empty()) << bs << " " << e.first << "+" << e.second;
      EXPECT_EQ(want_aligned, s.live_bytes_aligned()) << bs << " " << e.first << "+" << e.second;
      EXPECT_EQ(want_next, s.next_write_offset()) << bs << " " << e.first << "+" << e.second;
    }
  }
}

// §4.2: the first rule a CREATE breaks names it, in the order of the rules.
TEST(ContainerReplayStateTest, FirstBrokenRuleNamesTheRecord) {
  ContainerReplayState s(kDataSize, 0, 4096);
  BlockRecordPB both_missing = MakeCreate(3, 0, 10);
  both_missing.clear_offset();
  both_missing.clear_length();
  s.OnRecord(BlockRecordFromPB(both_missing), 16);
  s.OnRecord(BlockRecordFromPB(MakeCreate(3, -1, -1)), 56);
  s.OnRecord(BlockRecordFromPB(MakeCreate(3, INT64_MAX, 1)), 96);
  // Past INT64_MAX and past the data file: the overflow comes first.
  s.OnRecord(BlockRecordFromPB(MakeCreate(3, INT64_MAX - 1, 2)), 136);
  ASSERT_EQ(4u, s.malformed().size());
  EXPECT_STREQ("missing_offset", s.malformed()[0].reason);
  EXPECT_STREQ("negative_offset", s.malformed()[1].reason);
  EXPECT_STREQ("offset_length_overflow", s.malformed()[2].reason);
  EXPECT_STREQ("offset_length_overflow", s.malformed()[3].reason);
  EXPECT_EQ(136u, s.malformed()[3].record_offset);
}

// §4.3 and KUDU-1793: a misaligned block's aligned length is its length.
TEST(ContainerReplayStateTest, MisalignedBlockCountsUnrounded) {
  ContainerReplayState s(kDataSize, 0, 4096);
  s.OnRecord(BlockRecordFromPB(MakeCreate(1, 0, 100)), 16);
  s.OnRecord(BlockRecordFromPB(MakeCreate(2, 4196, 100)), 56);
  EXPECT_EQ(4096u + 100u, s.live_bytes_aligned());
  EXPECT_EQ(8192u, s.next_write_offset());
  s.OnRecord(BlockRecordFromPB(MakeDelete(2)), 96);
  EXPECT_EQ(4096u, s.live_bytes_aligned());
  EXPECT_EQ(4096u, s.AlignedLength(8192, 1));
  EXPECT_EQ(1u, s.AlignedLength(8193, 1));
}

// §7.1: the dead block at the next block offset (no live block reaching it)
// and the dead block of the highest id (above every live id) are kept.
TEST(ContainerReplayStateTest, DeadBlocksACompactionKeeps) {
  {
    ContainerReplayState s(kDataSize, 0, 4096);
    s.OnRecord(BlockRecordFromPB(MakeCreate(1, 0, 100)), 16);
    s.OnRecord(BlockRecordFromPB(MakeCreate(2, 4096, 100)), 56);
    s.OnRecord(BlockRecordFromPB(MakeCreate(3, 8192, 100)), 96);
    s.OnRecord(BlockRecordFromPB(MakeDelete(3)), 136);
    s.OnRecord(BlockRecordFromPB(MakeDelete(1)), 176);
    // 3 is both the last block and the highest id: kept once.
    const std::vector<KeptDeadBlock> kept = s.DeadBlocksCompactionKeeps();
    ASSERT_EQ(1u, kept.size());
    EXPECT_EQ(3u, kept[0].block_id);
    EXPECT_EQ(96u, kept[0].record_offset);
  }
  {
    ContainerReplayState s(kDataSize, 0, 4096);
    s.OnRecord(BlockRecordFromPB(MakeCreate(9, 0, 100)), 16);      // highest id, first
    s.OnRecord(BlockRecordFromPB(MakeCreate(2, 4096, 100)), 56);
    s.OnRecord(BlockRecordFromPB(MakeCreate(5, 8192, 100)), 96);   // last block
    s.OnRecord(BlockRecordFromPB(MakeDelete(9)), 136);
    s.OnRecord(BlockRecordFromPB(MakeDelete(5)), 176);
    const std::vector<KeptDeadBlock> kept = s.DeadBlocksCompactionKeeps();
    ASSERT_EQ(2u, kept.size());
    EXPECT_EQ(9u, kept[0].block_id);  // by record offset
    EXPECT_EQ(5u, kept[1].block_id);
  }
  {
    // A live block reaches the next offset, and the highest id is live:
    // nothing to keep.
    ContainerReplayState s(kDataSize, 0, 4096);
    s.OnRecord(BlockRecordFromPB(MakeCreate(1, 0, 100)), 16);
    s.OnRecord(BlockRecordFromPB(MakeCreate(7, 4096, 100)), 56);
    s.OnRecord(BlockRecordFromPB(MakeDelete(1)), 96);
    EXPECT_TRUE(s.DeadBlocksCompactionKeeps().empty());
  }
  {
    // The highest id deleted and created again elsewhere: live, not kept;
    // its old instance is dead but no longer sets the highest id alone.
    ContainerReplayState s(kDataSize, 0, 4096);
    s.OnRecord(BlockRecordFromPB(MakeCreate(4, 0, 100)), 16);
    s.OnRecord(BlockRecordFromPB(MakeDelete(4)), 56);
    s.OnRecord(BlockRecordFromPB(MakeCreate(4, 4096, 100)), 96);
    EXPECT_TRUE(s.DeadBlocksCompactionKeeps().empty());
  }
  {
    // Of two dead blocks ending at the same aligned offset, the later CREATE.
    ContainerReplayState s(kDataSize, 0, 4096);
    s.OnRecord(BlockRecordFromPB(MakeCreate(8, 0, 100)), 16);
    s.OnRecord(BlockRecordFromPB(MakeCreate(1, 4096, 10)), 56);
    s.OnRecord(BlockRecordFromPB(MakeCreate(2, 4196, 10)), 96);  // misaligned, same aligned end
    s.OnRecord(BlockRecordFromPB(MakeDelete(1)), 136);
    s.OnRecord(BlockRecordFromPB(MakeDelete(2)), 176);
    const std::vector<KeptDeadBlock> kept = s.DeadBlocksCompactionKeeps();
    ASSERT_EQ(1u, kept.size());
    EXPECT_EQ(2u, kept[0].block_id);
  }
}

// A live block reaching exactly the next offset keeps it: the dead block
// ending there is not kept.
TEST(ContainerReplayStateTest, ADeadBlockEndingWhereTheLiveBlocksReachIsNotKept) {
  ContainerReplayState s(kDataSize, 0, 4096);
  s.OnRecord(BlockRecordFromPB(MakeCreate(3, 0, 100)), 16);
  s.OnRecord(BlockRecordFromPB(MakeCreate(1, 200, 100)), 56);  // same aligned end as 3
  s.OnRecord(BlockRecordFromPB(MakeDelete(1)), 96);
  EXPECT_EQ(4096u, s.next_write_offset());
  EXPECT_TRUE(s.DeadBlocksCompactionKeeps().empty());
}

// Of the CREATEs of the highest id, the last one is kept, once.
TEST(ContainerReplayStateTest, TheLastCreateOfTheHighestIdIsTheOneKept) {
  ContainerReplayState s(kDataSize, 0, 4096);
  s.OnRecord(BlockRecordFromPB(MakeCreate(5, 0, 100)), 16);
  s.OnRecord(BlockRecordFromPB(MakeDelete(5)), 56);
  s.OnRecord(BlockRecordFromPB(MakeCreate(5, 4096, 100)), 96);
  s.OnRecord(BlockRecordFromPB(MakeDelete(5)), 136);
  s.OnRecord(BlockRecordFromPB(MakeCreate(1, 100, 100)), 176);
  const std::vector<KeptDeadBlock> kept = s.DeadBlocksCompactionKeeps();
  ASSERT_EQ(1u, kept.size());
  EXPECT_EQ(5u, kept[0].block_id);
  EXPECT_EQ(96u, kept[0].record_offset);
  EXPECT_EQ(4096, kept[0].offset);
}

}  // namespace
}  // namespace fs
}  // namespace kudu
