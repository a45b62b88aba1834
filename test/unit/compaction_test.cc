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

// The two rules of compaction.h on hand-made record lists: which dead
// blocks a compacted file keeps (§7.1) and what re-punching may zero
// (§7 step 6).
#include "kudu/fs/compaction.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace kudu {
namespace fs {
namespace {

constexpr uint64_t kBlock = 4096;

ScannedBlock Block(uint64_t id, int64_t offset, int64_t length, bool live, uint64_t ts = 1) {
  ScannedBlock b;
  b.id = id;
  b.offset = offset;
  b.length = length;
  b.live = live;
  b.timestamp_us = ts;
  b.create_body = "c" + std::to_string(id);
  if (!live) b.delete_body = "d" + std::to_string(id);
  return b;
}

ContainerRecords Records(std::vector<ScannedBlock> blocks, uint64_t next, uint64_t max_id) {
  ContainerRecords r;
  r.blocks = std::move(blocks);
  r.next_write_offset = next;
  r.has_max_block_id = true;
  r.max_block_id = max_id;
  return r;
}

TEST(CompactedBodiesTest, KeepsTheDeadBlocksOfTheNextOffsetAndTheHighestId) {
  // 7 ends the container, 9 has the highest id, 3 goes; the live ones are
  // sorted by timestamp.
  const ContainerRecords r = Records({Block(1, kBlock, 100, true, 50),
                                      Block(7, 5 * kBlock, 100, false),
                                      Block(9, 0, 100, false), Block(3, 2 * kBlock, 100, false),
                                      Block(5, 4 * kBlock, 100, true, 10)},
                                     6 * kBlock, 9);
  uint64_t dropped = 0;
  EXPECT_EQ((std::vector<std::string>{"c7", "d7", "c9", "d9", "c5", "c1"}),
            CompactedBodies(r, kBlock, false, &dropped));
  EXPECT_EQ(1u, dropped);
}

TEST(CompactedBodiesTest, LiveBlocksThatCarryBothKeepNoDeadBlock) {
  const ContainerRecords r = Records(
      {Block(1, 0, 100, false), Block(2, kBlock, 100, true, 5), Block(3, kBlock * 2, 10, true, 5)},
      3 * kBlock, 3);
  uint64_t dropped = 0;
  // Equal timestamps: by offset.
  EXPECT_EQ((std::vector<std::string>{"c2", "c3"}), CompactedBodies(r, kBlock, false, &dropped));
  EXPECT_EQ(1u, dropped);
}

TEST(CompactedBodiesTest, TheLastCreateInTheFileWinsAndOneBlockCanCarryBoth) {
  // 4 and 8 both end at the next offset (8 misaligned inside 4's aligned
  // tail); 8 comes later and also has the highest id.
  const ContainerRecords r = Records(
      {Block(4, kBlock, 100, false), Block(8, kBlock + 200, 100, false), Block(2, 0, 100, true)},
      2 * kBlock, 8);
  uint64_t dropped = 0;
  EXPECT_EQ((std::vector<std::string>{"c8", "d8", "c2"}),
            CompactedBodies(r, kBlock, false, &dropped));
  EXPECT_EQ(1u, dropped);
}

TEST(CompactedBodiesTest, AnEncryptedContainersHeaderCountsAsLiveSpace) {
  // Nothing live: the header's block is what the live blocks reach.
  const ContainerRecords r = Records({Block(1, kBlock, 0, false)}, kBlock, 1);
  uint64_t dropped = 0;
  // A zero-length block ends where the header's block does: kept only for
  // the highest id.
  EXPECT_EQ((std::vector<std::string>{"c1", "d1"}), CompactedBodies(r, kBlock, true, &dropped));
  EXPECT_EQ(0u, dropped);
}

TEST(CompactedBodiesTest, ADeadBlockEndingWhereTheLiveBlocksReachIsNotKept) {
  // 1 ends at the next offset, but live 3 reaches as far: the offset
  // survives without 1, whose id is below the live one's.
  const ContainerRecords r =
      Records({Block(3, 2 * kBlock, 100, true), Block(1, 2 * kBlock + 200, 100, false)},
              3 * kBlock, 3);
  uint64_t dropped = 0;
  EXPECT_EQ((std::vector<std::string>{"c3"}), CompactedBodies(r, kBlock, false, &dropped));
  EXPECT_EQ(1u, dropped);
}

TEST(CompactedBodiesTest, ADeadBlockOfTheHighestIdThatIsAlsoLiveIsNotKept) {
  // 5 deleted and created again: the live 5 carries the highest id.
  const ContainerRecords r =
      Records({Block(5, 0, 100, false), Block(5, kBlock, 100, true)}, 2 * kBlock, 5);
  uint64_t dropped = 0;
  EXPECT_EQ((std::vector<std::string>{"c5"}), CompactedBodies(r, kBlock, false, &dropped));
  EXPECT_EQ(1u, dropped);
}

TEST(PunchableRangesTest, DeadSpaceMinusLiveBytes) {
  // A live misaligned block in dead block 1's aligned tail, a misaligned
  // dead block (not rounded), a dead block sharing its start with a live one.
  const ContainerRecords r = Records({Block(1, 0, 100, false), Block(2, 200, 300, true),
                                      Block(3, 5000, 100, false), Block(4, 2 * kBlock, 50, true),
                                      Block(5, 2 * kBlock, 50, false)},
                                     3 * kBlock, 5);
  uint64_t dead = 0;
  const auto ranges = PunchableRanges(r, kBlock, /*header_bytes=*/0, &dead);
  EXPECT_EQ((std::vector<std::pair<uint64_t, uint64_t>>{
                {0, 200}, {500, kBlock}, {5000, 5100}, {2 * kBlock + 50, 3 * kBlock}}),
            ranges);
  EXPECT_EQ(3u, dead);
}

// An encrypted data file's header holds its file key: a dead block over it
// (the record semantics accept one at offset 0) leaves it as it is, and a
// dead block inside it alone is not punched at all.
TEST(PunchableRangesTest, NeverAnEncryptedFilesHeader) {
  const ContainerRecords r = Records({Block(1, 0, 100, false), Block(2, kBlock, 10, true),
                                      Block(3, 10, 20, false)},
                                     2 * kBlock, 3);
  uint64_t dead = 0;
  EXPECT_EQ((std::vector<std::pair<uint64_t, uint64_t>>{{64, kBlock}}),
            PunchableRanges(r, kBlock, /*header_bytes=*/64, &dead));
  EXPECT_EQ(1u, dead);
  const ContainerRecords inside = Records({Block(3, 10, 20, false)}, kBlock, 3);
  EXPECT_EQ((std::vector<std::pair<uint64_t, uint64_t>>{}),
            PunchableRanges(inside, kBlock, /*header_bytes=*/64, &dead));
  EXPECT_EQ(0u, dead);
}

}  // namespace
}  // namespace fs
}  // namespace kudu
