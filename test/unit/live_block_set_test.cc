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

// LiveBlockSet against a std::map model: the sorted-vector representation
// (ascending ids, tombstones, revivals) and the hash map it moves to when an
// id arrives out of order must answer every query the same way.
#include "kudu/fs/live_block_set.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <random>

#include <gtest/gtest.h>

#include "kudu/fs/seeded_random.h"
#include "util/live_block_entries.h"

namespace kudu {
namespace fs {

namespace {

using test::ExpectSame;
using Model = test::LiveBlockModel;

// The vector handed to the merge waits there: room reserved for every
// CREATE record the metadata could hold is not handed over with it.
TEST(LiveBlockSetTest, TakeSortedHoldsAboutItsLiveBlocks) {
  LiveBlockSet set;
  set.Reserve(100000);
  for (uint64_t id = 1; id <= 1000; id++) ASSERT_TRUE(set.Insert(id, {0, 1}));
  for (uint64_t id = 1; id <= 1000; id++) {
    if (id % 100 != 0) {
      BlockLocation erased;
      ASSERT_TRUE(set.Erase(id, &erased));
    }
  }
  LiveBlocks blocks = set.TakeSorted();
  ASSERT_EQ(10u, blocks.size());
  EXPECT_EQ(100u, blocks.front().id);
  EXPECT_LE(blocks.capacity(), 10u + 64);

  // A vector that is nearly full is handed over as it is.
  LiveBlockSet full;
  full.Reserve(10000);
  for (uint64_t id = 1; id <= 9990; id++) ASSERT_TRUE(full.Insert(id, {0, 1}));
  LiveBlocks taken = full.TakeSorted();
  EXPECT_EQ(9990u, taken.size());
  EXPECT_EQ(10000u, taken.capacity());
}

TEST(LiveBlockSetTest, AscendingIdsStaySorted) {
  LiveBlockSet set;
  set.Reserve(4);
  EXPECT_TRUE(set.Insert(10, {0, 5}));
  EXPECT_TRUE(set.Insert(11, {4096, 7}));
  EXPECT_TRUE(set.Insert(20, {8192, 0}));
  EXPECT_FALSE(set.Insert(11, {1, 1})) << "11 is live";
  EXPECT_FALSE(set.Insert(20, {1, 1})) << "20 is live (the last one)";
  EXPECT_EQ(3u, set.size());
  ASSERT_TRUE(set.Find(11));
  EXPECT_EQ((BlockLocation{4096, 7}), *set.Find(11));
  EXPECT_FALSE(set.Find(12));
  EXPECT_FALSE(set.Find(9));
  EXPECT_FALSE(set.Find(21));
  EXPECT_FALSE(set.hashed());
}

TEST(LiveBlockSetTest, DeleteLeavesATombstoneThatCanBeRevived) {
  LiveBlockSet set;
  ASSERT_TRUE(set.Insert(1, {0, 10}));
  ASSERT_TRUE(set.Insert(2, {4096, 20}));
  BlockLocation erased;
  ASSERT_TRUE(set.Erase(1, &erased));
  EXPECT_EQ((BlockLocation{0, 10}), erased);
  EXPECT_FALSE(set.Erase(1, &erased)) << "a tombstone is not live";
  EXPECT_FALSE(set.contains(1));
  EXPECT_FALSE(set.Erase(3, &erased));
  EXPECT_EQ(1u, set.size());
  // Re-created after its DELETE: in place, still sorted.
  ASSERT_TRUE(set.Insert(1, {8192, 30}));
  EXPECT_FALSE(set.hashed());
  EXPECT_EQ((BlockLocation{8192, 30}), *set.Find(1));
  EXPECT_EQ(2u, set.size());
  // A zero-length block is live, not a tombstone.
  ASSERT_TRUE(set.Insert(5, {12288, 0}));
  EXPECT_TRUE(set.contains(5));
}

TEST(LiveBlockSetTest, OutOfOrderIdMovesToTheHashMap) {
  LiveBlockSet set;
  ASSERT_TRUE(set.Insert(10, {0, 1}));
  ASSERT_TRUE(set.Insert(30, {1, 1}));
  BlockLocation erased;
  ASSERT_TRUE(set.Erase(10, &erased));
  ASSERT_TRUE(set.Insert(20, {2, 1}));  // between two ids, absent: order breaks
  EXPECT_TRUE(set.hashed());
  EXPECT_FALSE(set.contains(10)) << "the tombstone must not come back as live";
  EXPECT_TRUE(set.contains(20));
  EXPECT_TRUE(set.contains(30));
  EXPECT_EQ(2u, set.size());
  EXPECT_FALSE(set.Insert(30, {9, 9}));
  ASSERT_TRUE(set.Erase(30, &erased));
  EXPECT_EQ((BlockLocation{1, 1}), erased);
  set.Clear();
  EXPECT_FALSE(set.hashed());
  EXPECT_TRUE(set.empty());
  EXPECT_TRUE(set.Insert(5, {0, 1}));
  EXPECT_FALSE(set.hashed());
}

// Lookups do not depend on the ids being evenly spaced (the search guesses
// a position from the id): clustered and exponentially spaced ids, every
// present id found, every id next to one not.
// Every id found and every id between them not, whatever the spacing, in
// a set small enough to be searched directly (a server deleting most of
// what it writes) and in one large enough to be interpolated first.
void ExpectFindsExactlyTheIds(const std::vector<uint64_t>& ids) {
  LiveBlockSet set;
  for (uint64_t id : ids) ASSERT_TRUE(set.Insert(id, {static_cast<int64_t>(id % 1000), 1}));
  ASSERT_FALSE(set.hashed());
  for (uint64_t id : ids) {
    ASSERT_TRUE(set.Find(id)) << id << " of " << ids.size();
    EXPECT_EQ(static_cast<int64_t>(id % 1000), set.Find(id)->offset);
    if (id > 0 && !std::binary_search(ids.begin(), ids.end(), id - 1)) {
      EXPECT_FALSE(set.Find(id - 1)) << id - 1 << " of " << ids.size();
    }
    if (id < UINT64_MAX && !std::binary_search(ids.begin(), ids.end(), id + 1)) {
      EXPECT_FALSE(set.Find(id + 1)) << id + 1 << " of " << ids.size();
    }
  }
  if (ids.front() > 0) {
    EXPECT_FALSE(set.Find(ids.front() - 1));
  }
  EXPECT_FALSE(set.Find(0));
}

TEST(LiveBlockSetTest, FindsIdsWhateverTheirSpacing) {
  for (uint64_t dense : {0, 1, 200, 700, 7000}) {
    SCOPED_TRACE(dense);
    std::vector<uint64_t> ids;
    for (uint64_t i = 0; i < dense; i++) ids.push_back(1000 + i);  // a dense cluster
    for (int b = 13; b < 63; b++) ids.push_back(1ULL << b);          // then sparse
    for (uint64_t i = 1; i <= 100; i++) ids.push_back((1ULL << 63) + i * 7);
    ids.push_back(UINT64_MAX);
    ExpectFindsExactlyTheIds(ids);
  }
  // Sparse first, then a dense cluster: the guess lands past the block.
  std::vector<uint64_t> ids = {1, 2};
  for (uint64_t i = 0; i < 3000; i++) ids.push_back((1ULL << 62) + i);
  ids.push_back(UINT64_MAX);
  ExpectFindsExactlyTheIds(ids);
}

// Every size from one slot to past the direct search's limit, evenly spaced
// ids: the last step of a search is where an off-by-one would hide.
TEST(LiveBlockSetTest, FindsIdsInSetsOfEverySize) {
  for (size_t n = 1; n <= 1100; n++) {
    std::vector<uint64_t> ids;
    for (size_t i = 0; i < n; i++) ids.push_back(10 + 3 * i);
    ExpectFindsExactlyTheIds(ids);
    if (HasFatalFailure() || HasFailure()) {
      ADD_FAILURE() << "set of " << n << " ids";
      return;
    }
  }
}

// A server that deletes nearly all it writes leaves each container the
// random survivors of its ids, a few thousand slots searched once per
// DELETE: found near where evenly spaced ids would put them, at either end
// of the set as well as in its middle, and every id between them not.
TEST(LiveBlockSetTest, FindsTheSurvivorsOfRandomDeletions) {
  std::mt19937_64 rng(5);
  for (size_t n : {1025, 1500, 3000, 4096, 5000, 20000}) {
    SCOPED_TRACE(n);
    std::vector<uint64_t> ids;
    for (uint64_t id = 1000; ids.size() < n; id += 1 + rng() % 8) ids.push_back(id);
    ExpectFindsExactlyTheIds(ids);
  }
}

// Memory follows the live blocks, not the records: a million CREATE +
// DELETE pairs leave a handful of slots.
TEST(LiveBlockSetTest, TombstonesAreDroppedWhenTheyOutnumberLiveBlocks) {
  LiveBlockSet set;
  BlockLocation erased;
  ASSERT_TRUE(set.Insert(1, {0, 1}));  // stays live throughout
  for (uint64_t id = 2; id < 1000000; id++) {
    ASSERT_TRUE(set.Insert(id, {0, 1}));
    ASSERT_TRUE(set.Erase(id, &erased));
  }
  EXPECT_FALSE(set.hashed());
  EXPECT_EQ(1u, set.size());
  EXPECT_LE(set.slot_count(), 64u);
  EXPECT_TRUE(set.contains(1));
  // Half live, half dead: tombstones may stay, but never more than live + 64.
  for (uint64_t id = 1000000; id < 1010000; id++) {
    ASSERT_TRUE(set.Insert(id, {0, 1}));
    if (id % 2 == 0) {
      ASSERT_TRUE(set.Erase(id, &erased));
    }
  }
  EXPECT_EQ(5001u, set.size());
  EXPECT_LE(set.slot_count(), 2 * set.size() + 64);
  // A compacted-away id can come back: out of order now, so hashed, and right.
  ASSERT_TRUE(set.Insert(2, {7, 7}));
  EXPECT_TRUE(set.hashed());
  EXPECT_EQ(5002u, set.size());
  EXPECT_EQ((BlockLocation{7, 7}), *set.Find(2));
}

// A set that deletes as much as it creates finds its DELETEs through an
// index and keeps more tombstones between compactions, but never more than
// three per live block (and 64 slots) while its slots are few enough to be
// indexed (8,192).
TEST(LiveBlockSetTest, AnIndexedSetKeepsAtMostThreeTombstonesPerLiveBlock) {
  for (const size_t live_target : {20, 500, 2000, 3000, 7000}) {
    LiveBlockSet set;
    BlockLocation erased;
    std::deque<uint64_t> live;
    size_t most_slots = 0;
    for (uint64_t id = 1; id < 200000; id++) {
      ASSERT_TRUE(set.Insert(id, {0, 1}));
      live.push_back(id);
      if (live.size() > live_target) {
        // Every other DELETE the oldest block, else a middle one.
        const size_t k = id % 2 ? 0 : live.size() / 2;
        ASSERT_TRUE(set.Erase(live[k], &erased)) << live[k];
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
      }
      // Past the index's range the plain rule holds; one slot past it is
      // appended before the next DELETE compacts by that rule.
      const size_t indexed_bound = 4 * set.size() + 64;
      const size_t bound = indexed_bound <= 8192
                               ? indexed_bound
                               : std::max<size_t>(8192 + 1, 2 * set.size() + 64);
      ASSERT_LE(set.slot_count(), bound) << live_target << " live, id " << id;
      most_slots = std::max(most_slots, set.slot_count());
    }
    EXPECT_EQ(live.size(), set.size());
    for (uint64_t id : live) ASSERT_TRUE(set.contains(id)) << id;
    EXPECT_FALSE(set.hashed());
    EXPECT_GT(most_slots, set.size()) << "tombstones were never kept: the test tests nothing";
  }
}

// A large container's live blocks are page memory (huge pages where
// allowed): searched at random by its DELETEs, compacted, revived and
// handed to the merge like any other.
TEST(LiveBlockSetTest, LargeContainersLiveInPageMemory) {
  LiveBlockSet set;
  Model model;
  constexpr uint64_t kIds = 300000;  // 7 MiB of slots
  set.Reserve(kIds);
  for (uint64_t i = 0; i < kIds; i++) {
    ASSERT_TRUE(set.Insert(100 + 4 * i, {static_cast<int64_t>(i), 1}));
    model[100 + 4 * i] = {static_cast<int64_t>(i), 1};
  }
  BlockLocation erased;
  for (uint64_t i = 0; i < kIds; i += 3) {  // a third deleted, in a scattered order
    const uint64_t id = 100 + 4 * ((i * 7919) % kIds);
    ASSERT_EQ(model.count(id) == 1, set.Erase(id, &erased));
    model.erase(id);
  }
  const uint64_t revived = 100 + 4 * ((3 * 7919) % kIds);  // deleted above
  ASSERT_EQ(0u, model.count(revived));
  const BlockLocation near_its_old_place{static_cast<int64_t>((3 * 7919) % kIds) + 1, 5};
  ASSERT_TRUE(set.Insert(revived, near_its_old_place));
  model[revived] = near_its_old_place;
  EXPECT_FALSE(set.hashed());
  ExpectSame(model, set);
  LiveBlocks blocks = set.TakeSorted();
  ASSERT_EQ(model.size(), blocks.size());
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(blocks.data()) % kHugePageBytes);
}

// Random operation streams, from mostly ascending (what a server writes) to
// fully random ids; every step checked against the model.
class LiveBlockSetRandomTest : public ::testing::TestWithParam<double> {};

TEST_P(LiveBlockSetRandomTest, MatchesAMap) {
  const double out_of_order_share = GetParam();
  for (uint64_t seed = 1; seed <= 20; seed++) {
    fs::SeededRandom rnd(seed);
    LiveBlockSet set;
    Model model;
    uint64_t next_id = 1000;
    for (int step = 0; step < 2000; step++) {
      const uint64_t op = rnd.Uniform(10);
      if (op < 6) {
        uint64_t id;
        if (rnd.NextDouble() < out_of_order_share) {
          id = rnd.Uniform(next_id + 10);  // anything, perhaps live, perhaps dead
        } else {
          id = next_id;
          next_id += 1 + rnd.Uniform(3);
        }
        const BlockLocation loc{static_cast<int64_t>(rnd.Uniform(1 << 20)),
                                static_cast<int64_t>(rnd.Uniform(5000))};
        const bool inserted = model.emplace(id, loc).second;
        ASSERT_EQ(inserted, set.Insert(id, loc)) << "seed " << seed << " step " << step;
      } else if (op < 9) {
        // Mostly ids that were created; sometimes ids that never were.
        const uint64_t id = rnd.Uniform(next_id + 5);
        auto it = model.find(id);
        BlockLocation erased;
        ASSERT_EQ(it != model.end(), set.Erase(id, &erased)) << "seed " << seed << " step " << step;
        if (it != model.end()) {
          EXPECT_EQ(it->second, erased);
          model.erase(it);
        }
      } else {
        const uint64_t id = rnd.Uniform(next_id + 5);
        auto it = model.find(id);
        const std::optional<BlockLocation> got = set.Find(id);
        ASSERT_EQ(it != model.end(), got.has_value()) << "seed " << seed << " step " << step;
        if (got.has_value()) {
          EXPECT_EQ(it->second, *got);
        }
      }
    }
    ExpectSame(model, set);
    if (out_of_order_share == 0) {
      EXPECT_FALSE(set.hashed()) << "ascending ids never need hashing";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(OutOfOrderShare, LiveBlockSetRandomTest,
                         ::testing::Values(0.0, 0.001, 0.05, 1.0));

}  // namespace
}  // namespace fs
}  // namespace kudu
