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

// A large container's live blocks inserted by taking the array over
// (rearranged in place by shard, shards inserted one at a time) leave the
// map and the rejections exactly as the batch insert does, whatever the
// array's length against the pieces it moves in and whatever its ids.
#include "kudu/fs/block_map.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kudu/util/mix64.h"

namespace kudu {
namespace fs {
namespace {

// `n` blocks, ids strictly ascending: runs of consecutive ids (as a server
// hands them out) with gaps of random length between them, some long
// enough to skip whole shard stretches.
LiveBlocks MakeBlocks(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  LiveBlocks blocks;
  blocks.reserve(n);
  uint64_t id = 1 + rng() % 1000;
  while (blocks.size() < n) {
    const uint64_t run = 1 + rng() % 200;
    for (uint64_t k = 0; k < run && blocks.size() < n; k++, id++) {
      blocks.push_back(LiveBlock{id, {static_cast<int64_t>(id * 4096), static_cast<int64_t>(id % 9000 + 1)}});
    }
    id += rng() % 3 == 0 ? rng() % 5000 : rng() % 8;
  }
  return blocks;
}

using Rejections = std::vector<std::tuple<uint64_t, uint32_t, uint32_t>>;

Rejections Sorted(const std::vector<BlockMap::Rejected>& rejected) {
  Rejections out;
  for (const BlockMap::Rejected& r : rejected) out.emplace_back(r.id, r.held_by, r.rejected_from);
  std::sort(out.begin(), out.end());
  return out;
}

// Inserts `blocks` from container 2, taken over or batched, and every
// third of them from container 1 (so that one of the two inserts meets
// duplicates): after, where every shard's table is there and the take-over
// inserts as a batch, or before, where it rearranges the array.
Rejections InsertBoth(BlockMap* m, LiveBlocks blocks, bool take_over, bool held_first) {
  LiveBlocks every_third;
  for (size_t i = 0; i < blocks.size(); i += 3) every_third.push_back(blocks[i]);
  std::vector<BlockMap::Rejected> rejected;
  auto insert_held = [&]() {
    BlockMap::Batch batch;
    batch.AddSorted(1, every_third.data(), every_third.size());
    m->InsertBatch(&batch, &rejected);
  };
  if (held_first) insert_held();
  if (take_over) {
    m->InsertTakingOver(2, std::move(blocks), &rejected);
  } else {
    BlockMap::Batch batch;
    batch.AddSorted(2, blocks.data(), blocks.size());
    m->InsertBatch(&batch, &rejected);
  }
  if (!held_first) insert_held();
  return Sorted(rejected);
}

void ExpectSameEntries(const BlockMap& want, const BlockMap& got, const std::string& what) {
  const auto a = want.SortedEntries();
  const auto b = got.SortedEntries();
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); i++) {
    ASSERT_EQ(a[i].first, b[i].first) << what << ", entry " << i;
    ASSERT_EQ(a[i].second.container, b[i].second.container) << what << ", id " << a[i].first;
    ASSERT_EQ(a[i].second.offset, b[i].second.offset) << what << ", id " << a[i].first;
    ASSERT_EQ(a[i].second.length, b[i].second.length) << what << ", id " << a[i].first;
  }
}

// Inserts `blocks` both ways into fresh maps, in both orders, and expects
// the same result.
void ExpectTakeOverLikeBatch(const LiveBlocks& blocks, const std::string& what) {
  for (bool held_first : {false, true}) {
    const std::string order = what + (held_first ? ", into a filled map" : ", into an empty map");
    BlockMap batched, taken;
    const Rejections want = InsertBoth(&batched, blocks, false, held_first);
    const Rejections got = InsertBoth(&taken, blocks, true, held_first);
    EXPECT_EQ((blocks.size() + 2) / 3, want.size()) << order;
    EXPECT_TRUE(want == got) << order << ": " << want.size() << " rejected batched, "
                             << got.size() << " taken over";
    ExpectSameEntries(batched, taken, order);
  }
}

TEST(BlockMapTakeOverTest, LeavesTheMapAndRejectionsOfTheBatchInsert) {
  // Around the piece of 1024 blocks and the 32 shards' open pieces, and
  // one array past kTakeOverBytes.
  const size_t large = BlockMap::kTakeOverBytes / sizeof(LiveBlock) + 777;
  for (size_t n : {size_t{0}, size_t{1}, size_t{1023}, size_t{1024}, size_t{1025},
                   size_t{32 * 1024 + 5}, size_t{100000}, large}) {
    ExpectTakeOverLikeBatch(MakeBlocks(n, n + 1), std::to_string(n) + " blocks");
  }
}

// Ids whose stretches all fall in one shard (every piece that fills is
// that shard's), and ids spread a few to a stretch over every shard: the
// pieces' sort by shard keeps each shard's ids in order either way.
TEST(BlockMapTakeOverTest, IdsCrowdedIntoOneShardOrSpreadOverAll) {
  constexpr uint64_t kStretch = BlockMap::kShardStretch;
  // Stretches are spread over shards by this hash (block_map.h's ShardOf);
  // were that to change, the first case would only be less crowded.
  auto shard_of = [](uint64_t stretch) { return Mix64(stretch) % BlockMap::kNumShards; };
  for (bool one_shard : {true, false}) {
    LiveBlocks blocks;
    for (uint64_t stretch = 0; blocks.size() < 60000; stretch++) {
      if (one_shard && shard_of(stretch) != shard_of(0)) continue;
      for (uint64_t k = 0; k < kStretch; k += one_shard ? 1 : 7) {
        const uint64_t id = stretch * kStretch + k;
        blocks.push_back(LiveBlock{id, {static_cast<int64_t>(id), 1}});
      }
    }
    ExpectTakeOverLikeBatch(blocks, one_shard ? "one shard" : "every shard");
  }
}

}  // namespace
}  // namespace fs
}  // namespace kudu
