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

// LiveBlockSet past its packing limit, against a std::map model: a
// container filled with many blocks holds them packed, its DELETEs search
// packed runs, and what the merge takes is every live block by id,
// whichever form each was held in.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "kudu/fs/live_block_set.h"
#include "kudu/fs/seeded_random.h"
#include "util/live_block_entries.h"

namespace kudu {
namespace fs {
namespace {

using test::ExpectSame;
using Model = test::LiveBlockModel;

// What a server writes to a container it fills: ascending ids with small
// gaps, each block after the last one (aligned to 4 KiB), lengths up to
// 64 KiB.
struct ServerLikeBlocks {
  uint64_t next_id = 1000;
  int64_t next_offset = 0;
  LiveBlock Next(SeededRandom* rnd) {
    const LiveBlock b{next_id, {next_offset, static_cast<int64_t>(rnd->Uniform(64 << 10))}};
    next_id += 1 + rnd->Uniform(3);
    next_offset += (b.loc.length + 4095) / 4096 * 4096;
    return b;
  }
};

// A container filled with many blocks and emptied later holds every block
// until its DELETE comes: past kHotSlots, at half the bytes. Memory then
// follows the live blocks again as they are deleted, and what the merge is
// handed is every live block, by id, whichever form each was held in.
TEST(LiveBlockSetTest, ManyBlocksArePackedAndFollowTheLiveOnesWhenDeleted) {
  constexpr size_t kBlocks = 3 * LiveBlockSet::kHotSlots;
  SeededRandom rnd(7);
  ServerLikeBlocks gen;
  LiveBlockSet set;
  Model model;
  std::vector<uint64_t> ids;
  set.Reserve(kBlocks);
  for (size_t i = 0; i < kBlocks; i++) {
    const LiveBlock b = gen.Next(&rnd);
    ASSERT_TRUE(set.Insert(b.id, b.loc));
    model[b.id] = b.loc;
    ids.push_back(b.id);
  }
  EXPECT_FALSE(set.hashed());
  // 12 bytes a packed block and 24 a run of up to 64; the newest quarter
  // of kHotSlots or more stay 24 bytes wide.
  EXPECT_LE(set.sorted_slot_bytes(), kBlocks * 12 + kBlocks / 64 * 24 + LiveBlockSet::kHotSlots * 24);
  EXPECT_GT(set.sorted_slot_bytes(), kBlocks * 12);
  ExpectSame(model, set);
  // Every block is found where it is, and ids between them are not.
  for (size_t i = 0; i < ids.size(); i += 97) {
    ASSERT_EQ(model[ids[i]], set.Find(ids[i])) << ids[i];
    ASSERT_EQ(model.count(ids[i] + 1) == 1, set.contains(ids[i] + 1)) << ids[i] + 1;
  }
  // 99 % deleted, in random order.
  std::vector<uint64_t> order = ids;
  for (size_t i = order.size(); i > 1; i--) std::swap(order[i - 1], order[rnd.Uniform(i)]);
  order.resize(order.size() / 100 * 99);
  for (uint64_t id : order) {
    BlockLocation erased;
    ASSERT_TRUE(set.Erase(id, &erased)) << id;
    ASSERT_EQ(model[id], erased);
    model.erase(id);
    ASSERT_FALSE(set.Erase(id, &erased)) << id;
  }
  EXPECT_FALSE(set.hashed());
  EXPECT_LE(set.sorted_slot_bytes(), 2 * 24 * set.size() + LiveBlockSet::kHotSlots * 24);
  ExpectSame(model, set);
}

// A DELETEd packed block created again stays in place when its run can
// hold its new location, and moves the set to the hash map when it cannot.
// A block 4 GiB long fits no run: packing stops there, and the blocks from
// it on stay 24 bytes wide; a block 2^33 ids or bytes from its neighbours
// starts a run of its own. Either way the answers are the map's.
TEST(LiveBlockSetTest, BlocksThatDoNotPackStayWide) {
  for (int variant = 0; variant < 4; variant++) {
    SCOPED_TRACE(variant);
    SeededRandom rnd(11);
    ServerLikeBlocks gen;
    LiveBlockSet set;
    Model model;
    // Packing starts at kHotSlots slots, with the oldest three quarters.
    const size_t n = LiveBlockSet::kHotSlots * 3 / 2;
    const size_t odd = n / 3;
    for (size_t i = 0; i < n; i++) {
      LiveBlock b = gen.Next(&rnd);
      if (i == odd) {
        if (variant == 1) b.loc.length = int64_t{1} << 32;
        // Far ahead of the blocks around it: neither the run before nor
        // the one after can take it as well.
        if (variant == 2) b.loc.offset += int64_t{1} << 33;
        if (variant == 3) b.id += uint64_t{1} << 33;
        gen.next_id = b.id + 1;
      }
      ASSERT_TRUE(set.Insert(b.id, b.loc));
      model[b.id] = b.loc;
    }
    if (variant == 1) {
      EXPECT_EQ(odd * 12 + odd / 64 * 24 + (n - odd) * 24, set.sorted_slot_bytes());
    } else {
      EXPECT_LE(set.sorted_slot_bytes(), n * 12 + (n / 64 + 1) * 24 + LiveBlockSet::kHotSlots * 24);
    }
    const uint64_t first = model.begin()->first;
    const BlockLocation old_place = model.begin()->second;
    BlockLocation erased;
    ASSERT_TRUE(set.Erase(first, &erased));
    model.erase(first);
    if (variant == 0) {
      ASSERT_TRUE(set.Insert(first, {old_place.offset + 4096, 1}));
      model[first] = {old_place.offset + 4096, 1};
      EXPECT_FALSE(set.hashed());
    } else {
      ASSERT_TRUE(set.Insert(first, {old_place.offset, int64_t{1} << 40}));
      model[first] = {old_place.offset, int64_t{1} << 40};
      EXPECT_TRUE(set.hashed());
    }
    ExpectSame(model, set);
  }
}

// Past the packing limit: a server-like stream of CREATEs with DELETEs of
// random earlier blocks (packed or not), blocks created again after their
// DELETE (in place, or out of order once compacted away), and lookups,
// every step checked against the model and the whole set at checkpoints.
// A packed run's DELETE search starts where evenly spaced ids would put
// the id, walks a few slots from there and searches the rest of that side.
// Runs whose ids are anything but even (half a run consecutive, then a
// jump; gaps of every length) take each path, towards lower and higher
// slots, for ids present and absent, before and after deletions.
TEST(LiveBlockSetTest, FindsPackedIdsWhateverTheirSpacingWithinARun) {
  SeededRandom rnd(11);
  LiveBlockSet set;
  Model model;
  std::vector<uint64_t> ids;
  uint64_t id = 5000;
  int64_t offset = 0;
  const size_t n = 3 * LiveBlockSet::kHotSlots;
  for (size_t i = 0; i < n; i++) {
    const BlockLocation loc{offset, 100};
    ASSERT_TRUE(set.Insert(id, loc));
    model[id] = loc;
    ids.push_back(id);
    offset += 4096;
    switch ((i / 640) % 3) {
      case 0:  // half a run consecutive, then a jump
        id += i % 64 == 31 ? 3000 : 1;
        break;
      case 1:  // gaps of every length up to a run's
        id += 1 + rnd.Uniform(i % 7 == 0 ? 200 : 3);
        break;
      default:  // a jump every few ids
        id += i % 5 == 0 ? 100 + rnd.Uniform(1000) : 2;
        break;
    }
  }
  ASSERT_LT(set.sorted_slot_bytes(), 24 * set.slot_count()) << "packed";
  auto check_near = [&](uint64_t at) {
    for (uint64_t probe : {at - 1, at, at + 1}) {
      auto it = model.find(probe);
      const std::optional<BlockLocation> got = set.Find(probe);
      ASSERT_EQ(it != model.end(), got.has_value()) << probe;
      if (got.has_value()) {
        ASSERT_EQ(it->second, *got) << probe;
      }
    }
  };
  for (uint64_t at : ids) ASSERT_NO_FATAL_FAILURE(check_near(at));
  // Deleted at random, each DELETE also asked for an id beside it.
  for (size_t i = ids.size() - 1; i > 0; i--) std::swap(ids[i], ids[rnd.Uniform(i + 1)]);
  for (size_t i = 0; i < ids.size() * 3 / 4; i++) {
    for (uint64_t victim : {ids[i], ids[i] + 1}) {
      auto it = model.find(victim);
      BlockLocation erased;
      ASSERT_EQ(it != model.end(), set.Erase(victim, &erased)) << victim;
      if (it != model.end()) {
        ASSERT_EQ(it->second, erased) << victim;
        model.erase(it);
      }
    }
    if (i % 4096 == 0) {
      ASSERT_NO_FATAL_FAILURE(check_near(ids[ids.size() - 1 - i]));
    }
  }
  ExpectSame(model, set);
}

TEST(LiveBlockSetPackedRandomTest, MatchesAMap) {
  SeededRandom rnd(1);
  ServerLikeBlocks gen;
  LiveBlockSet set;
  Model model;
  std::vector<uint64_t> created;
  std::vector<std::pair<uint64_t, BlockLocation>> deleted;
  const int steps = static_cast<int>(3 * LiveBlockSet::kHotSlots);
  for (int step = 0; step < steps; step++) {
    const uint64_t op = rnd.Uniform(1000);
    if (op < 700) {
      const LiveBlock b = gen.Next(&rnd);
      model[b.id] = b.loc;
      ASSERT_TRUE(set.Insert(b.id, b.loc)) << "step " << step;
      created.push_back(b.id);
    } else if (op < 850 && !created.empty()) {
      const uint64_t id = created[rnd.Uniform(created.size())];
      auto it = model.find(id);
      BlockLocation erased;
      ASSERT_EQ(it != model.end(), set.Erase(id, &erased)) << "step " << step;
      if (it != model.end()) {
        ASSERT_EQ(it->second, erased) << "step " << step;
        deleted.emplace_back(id, erased);
        model.erase(it);
      }
    } else if (op < 851 && !deleted.empty()) {
      // The block deleted last, again, a little further on.
      const auto [id, old_place] = deleted.back();
      deleted.pop_back();
      const BlockLocation loc{old_place.offset + 4096, static_cast<int64_t>(rnd.Uniform(4096))};
      ASSERT_EQ(model.emplace(id, loc).second, set.Insert(id, loc)) << "step " << step;
    } else if (!created.empty()) {
      const uint64_t id = created[rnd.Uniform(created.size())] + rnd.Uniform(2);
      auto it = model.find(id);
      const std::optional<BlockLocation> got = set.Find(id);
      ASSERT_EQ(it != model.end(), got.has_value()) << "step " << step;
      if (got.has_value()) {
        ASSERT_EQ(it->second, *got) << "step " << step;
      }
    }
    if (step % (steps / 3) == steps / 3 - 1) ExpectSame(model, set);
  }
  // The stream did reach the packed form, and stayed sorted.
  EXPECT_FALSE(set.hashed());
  EXPECT_LT(set.sorted_slot_bytes(), 24 * set.slot_count());
}

// A server that deletes nearly all it writes: CREATEs of ascending ids and
// DELETEs of random live blocks in turn, the live count held near a target
// that moves from a few dozen blocks to thousands and back, so that a set
// crosses every size its DELETEs are searched at (the slot index's bounds
// among them) and is compacted again and again. Now and then a block comes
// back right after its DELETE (revived in place), and ids that are not live
// (never created, or deleted already) are erased and looked up. Every
// answer is checked against the model, the whole set at each target.
TEST(LiveBlockSetTest, DeleteHeavyStreamsMatchAMap) {
  for (uint64_t seed = 1; seed <= 3; seed++) {
    SeededRandom rnd(seed);
    LiveBlockSet set;
    Model model;
    std::vector<uint64_t> live;  // the model's ids, in no order
    uint64_t next_id = 1000 * seed;
    for (const size_t target : {40, 900, 6000, 300, 3000, 20}) {
      for (int step = 0; step < 20000; step++) {
        const uint64_t op = rnd.Uniform(100);
        if (op < 2) {
          // Not live: beyond every id, or deleted (or never created) below.
          const uint64_t id = rnd.Uniform(2) ? next_id + rnd.Uniform(100) : rnd.Uniform(next_id);
          if (model.count(id)) continue;
          BlockLocation unused;
          ASSERT_FALSE(set.Erase(id, &unused)) << "seed " << seed << " id " << id;
          ASSERT_FALSE(set.Find(id).has_value()) << "seed " << seed << " id " << id;
        } else if (live.size() < target || (live.size() == target && op % 2 == 0)) {
          const BlockLocation loc{static_cast<int64_t>(next_id * 4096),
                                  static_cast<int64_t>(1 + rnd.Uniform(4096))};
          ASSERT_TRUE(set.Insert(next_id, loc)) << "seed " << seed;
          model[next_id] = loc;
          live.push_back(next_id);
          next_id += 1 + rnd.Uniform(3);
        } else if (!live.empty()) {
          const size_t k = rnd.Uniform(live.size());
          const uint64_t id = live[k];
          live[k] = live.back();
          live.pop_back();
          BlockLocation erased;
          const size_t slots = set.slot_count();
          ASSERT_TRUE(set.Erase(id, &erased)) << "seed " << seed << " id " << id;
          ASSERT_EQ(model[id], erased) << "seed " << seed << " id " << id;
          model.erase(id);
          if (op == 99 && set.slot_count() == slots) {
            // Its tombstone is still there (the DELETE compacted nothing):
            // the block comes back in place, and stays findable.
            const BlockLocation back{erased.offset, erased.length + 1};
            ASSERT_TRUE(set.Insert(id, back)) << "seed " << seed << " id " << id;
            model[id] = back;
            live.push_back(id);
            ASSERT_EQ(back, set.Find(id)) << "seed " << seed << " id " << id;
          }
        }
      }
      ExpectSame(model, set);
      ASSERT_FALSE(set.hashed()) << "ascending ids and revivals in place stay sorted";
    }
  }
}

}  // namespace
}  // namespace fs
}  // namespace kudu
