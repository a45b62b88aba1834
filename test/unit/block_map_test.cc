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

#include "kudu/fs/block_map.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <map>
#include <thread>
#include <vector>

namespace kudu {
namespace fs {
namespace {

// Merges one container's blocks (ids ascending) into `m` the way the open
// does, and returns what was rejected.
std::vector<BlockMap::Rejected> Merge(BlockMap* m, uint32_t container,
                                      const std::vector<LiveBlock>& blocks) {
  BlockMap::Batch batch;
  batch.AddSorted(container, blocks.data(), blocks.size());
  std::vector<BlockMap::Rejected> rejected;
  m->InsertBatch(&batch, &rejected);
  EXPECT_EQ(0u, batch.size());
  return rejected;
}

TEST(BlockMapTest, MergeFindAndSortedEntries) {
  BlockMap m;
  BlockMapEntry e;
  EXPECT_TRUE(Merge(&m, 1, {{5, {4096, 10}}}).empty());
  EXPECT_TRUE(Merge(&m, 2, {{2, {0, 3}}}).empty());
  const std::vector<BlockMap::Rejected> rejected = Merge(&m, 7, {{5, {8192, 1}}});
  // The first merge wins and the caller learns who holds it.
  ASSERT_EQ(1u, rejected.size());
  EXPECT_EQ(5u, rejected[0].id);
  EXPECT_EQ(1u, rejected[0].held_by);
  EXPECT_EQ(7u, rejected[0].rejected_from);
  ASSERT_TRUE(m.Find(5, &e));
  EXPECT_EQ(1u, e.container);
  EXPECT_EQ(4096, e.offset);
  EXPECT_EQ(10, e.length);
  ASSERT_TRUE(m.Find(2, &e));
  EXPECT_EQ(2u, e.container);
  EXPECT_FALSE(m.Find(3, &e));
  EXPECT_EQ(2u, m.size());
  auto entries = m.SortedEntries();
  ASSERT_EQ(2u, entries.size());
  EXPECT_EQ(2u, entries[0].first);
  EXPECT_EQ(2u, entries[0].second.container);
  EXPECT_EQ(5u, entries[1].first);
  EXPECT_EQ(4096, entries[1].second.offset);
}

TEST(BlockMapTest, InsertBatchKeepsFirstAndReportsRejected) {
  BlockMap m;
  ASSERT_TRUE(Merge(&m, 3, {{7, {0, 1}}}).empty());
  std::vector<LiveBlock> five, six = {{500, {0, 2}}};  // 500: a duplicate inside the batch
  for (uint64_t id = 1; id <= 1000; id++) {
    five.push_back(LiveBlock{id, BlockLocation{static_cast<int64_t>(id) * 4096, 9}});
  }
  BlockMap::Batch batch;
  batch.AddSorted(5, five.data(), five.size());
  batch.AddSorted(6, six.data(), six.size());
  EXPECT_EQ(1001u, batch.size());
  std::vector<BlockMap::Rejected> rejected;
  m.InsertBatch(&batch, &rejected);
  EXPECT_EQ(0u, batch.size());
  EXPECT_EQ(1000u, m.size());
  ASSERT_EQ(2u, rejected.size());
  std::sort(rejected.begin(), rejected.end(),
            [](const BlockMap::Rejected& a, const BlockMap::Rejected& b) { return a.id < b.id; });
  EXPECT_EQ(7u, rejected[0].id);  // already in the map: its holder stays
  EXPECT_EQ(3u, rejected[0].held_by);
  EXPECT_EQ(5u, rejected[0].rejected_from);
  EXPECT_EQ(500u, rejected[1].id);  // the batch's first occurrence wins
  EXPECT_EQ(5u, rejected[1].held_by);
  EXPECT_EQ(6u, rejected[1].rejected_from);
  BlockMapEntry e;
  ASSERT_TRUE(m.Find(7, &e));
  EXPECT_EQ(3u, e.container);
  ASSERT_TRUE(m.Find(1000, &e));
  EXPECT_EQ(5u, e.container);
  EXPECT_EQ(1000 * 4096, e.offset);
}

TEST(BlockMapTest, ConcurrentBatchesFindEveryDuplicateOnce) {
  BlockMap m;
  constexpr int kThreads = 8;
  constexpr uint64_t kIds = 20000;
  std::vector<std::vector<BlockMap::Rejected>> rejected(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      // Every thread inserts every id, in containers of 1000 blocks, two
      // containers per batch.
      std::vector<LiveBlock> blocks;
      for (uint64_t id = 0; id < kIds; id++) blocks.push_back(LiveBlock{id, BlockLocation{0, 0}});
      BlockMap::Batch batch;
      for (uint64_t i = 0; i < kIds; i += 1000) {
        batch.AddSorted(static_cast<uint32_t>(t), blocks.data() + i, std::min<uint64_t>(1000, kIds - i));
        if (batch.size() == 2000) m.InsertBatch(&batch, &rejected[t]);
      }
      m.InsertBatch(&batch, &rejected[t]);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(kIds, m.size());
  uint64_t total = 0;
  for (const auto& r : rejected) {
    total += r.size();
    for (const BlockMap::Rejected& x : r) EXPECT_NE(x.held_by, x.rejected_from);
  }
  EXPECT_EQ(kIds * (kThreads - 1), total);
}

// Sorted containers are inserted from their own arrays, run by run:
// containers that straddle shard stretches, overlap each other (the first
// added holds the id) and overlap ids already in the map.
TEST(BlockMapTest, SortedRunsInsertLikeSingleEntries) {
  BlockMap m;
  ASSERT_TRUE(Merge(&m, 9, {{130, {1, 1}}}).empty());
  std::vector<LiveBlock> a, b;
  for (uint64_t id = 1; id <= 1000; id += 3) a.push_back(LiveBlock{id, BlockLocation{int64_t(id) * 4096, 7}});
  for (uint64_t id = 900; id <= 5000; id++) b.push_back(LiveBlock{id, BlockLocation{int64_t(id), 1}});
  BlockMap::Batch batch;
  batch.AddSorted(1, a.data(), a.size());
  batch.AddSorted(2, b.data(), b.size());
  batch.AddSorted(3, b.data(), 0);  // an empty container
  EXPECT_EQ(a.size() + b.size(), batch.size());
  std::vector<BlockMap::Rejected> rejected;
  m.InsertBatch(&batch, &rejected);
  EXPECT_EQ(0u, batch.size());

  std::map<uint64_t, uint32_t> expected_holder = {{130, 9}};
  std::map<uint64_t, std::pair<uint32_t, uint32_t>> expected_rejected;  // id -> (held, rejected)
  for (const LiveBlock& x : a) {
    if (!expected_holder.emplace(x.id, 1).second) expected_rejected[x.id] = {expected_holder[x.id], 1};
  }
  for (const LiveBlock& x : b) {
    if (!expected_holder.emplace(x.id, 2).second) expected_rejected[x.id] = {expected_holder[x.id], 2};
  }
  EXPECT_EQ(expected_holder.size(), m.size());
  for (const auto& kv : expected_holder) {
    BlockMapEntry e;
    ASSERT_TRUE(m.Find(kv.first, &e)) << kv.first;
    EXPECT_EQ(kv.second, e.container) << kv.first;
  }
  BlockMapEntry e;
  ASSERT_TRUE(m.Find(4, &e));
  EXPECT_EQ(4 * 4096, e.offset);
  EXPECT_EQ(7, e.length);
  ASSERT_EQ(expected_rejected.size(), rejected.size());
  for (const BlockMap::Rejected& r : rejected) {
    auto it = expected_rejected.find(r.id);
    ASSERT_NE(expected_rejected.end(), it) << r.id;
    EXPECT_EQ(it->second.first, r.held_by) << r.id;
    EXPECT_EQ(it->second.second, r.rejected_from) << r.id;
  }
}

// The open reserves the map, starts the merges and allocates the map on its
// own thread meanwhile: a shard is allocated once, by whichever comes first,
// and nothing inserted before or after is lost (run under TSan too).
TEST(BlockMapTest, AllocateWhileMergesRun) {
  BlockMap m;
  constexpr int kThreads = 4;
  constexpr uint64_t kPerThread = 30000;
  m.Reserve(kThreads * kPerThread);
  std::vector<std::vector<LiveBlock>> blocks(kThreads);
  for (int t = 0; t < kThreads; t++) {
    for (uint64_t i = 0; i < kPerThread; i++) {
      const uint64_t id = (t * kPerThread + i) * 3;
      blocks[t].push_back(LiveBlock{id, BlockLocation{static_cast<int64_t>(id), 1}});
    }
  }
  std::vector<std::thread> threads;
  std::vector<std::vector<BlockMap::Rejected>> rejected(kThreads);
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      BlockMap::Batch batch;
      // Two containers per thread, merged one at a time.
      batch.AddSorted(t, blocks[t].data(), kPerThread / 2);
      m.InsertBatch(&batch, &rejected[t]);
      batch.AddSorted(t, blocks[t].data() + kPerThread / 2, kPerThread - kPerThread / 2);
      m.InsertBatch(&batch, &rejected[t]);
    });
  }
  m.Allocate();
  for (auto& th : threads) th.join();
  m.Allocate();  // a second call finds every shard allocated
  EXPECT_EQ(kThreads * kPerThread, m.size());
  for (int t = 0; t < kThreads; t++) {
    EXPECT_TRUE(rejected[t].empty());
    for (const LiveBlock& b : blocks[t]) {
      BlockMapEntry e;
      ASSERT_TRUE(m.Find(b.id, &e)) << b.id;
      EXPECT_EQ(static_cast<uint32_t>(t), e.container);
      EXPECT_EQ(b.loc.offset, e.offset);
    }
  }
  // A merge into a map reserved but never allocated works too.
  BlockMap lazy;
  lazy.Reserve(1000);
  EXPECT_TRUE(Merge(&lazy, 1, {{42, {2, 3}}}).empty());
  EXPECT_TRUE(lazy.Find(42, nullptr));
}

// On a state where most blocks were deleted, the metadata's CREATE records
// overstate the live blocks: the map is sized by the live share the merged
// containers report, not by the reservation, and still grows past it.
TEST(BlockMapTest, SizedByTheLiveShareNotByTheReservation) {
  constexpr size_t kReserved = 4000000;
  BlockMap m;
  m.Reserve(kReserved);
  m.Allocate();  // too large to allocate before any container says
  // 1% of the records are live.
  m.NoteReplayed(kReserved / 10, kReserved / 1000);
  std::vector<LiveBlock> blocks;
  for (uint64_t i = 0; i < kReserved / 100; i++) {
    blocks.push_back(LiveBlock{i * 5, BlockLocation{static_cast<int64_t>(i) * 4096, 1}});
  }
  BlockMap::Batch batch;
  std::vector<BlockMap::Rejected> rejected;
  batch.AddSorted(0, blocks.data(), blocks.size() / 4);
  m.InsertBatch(&batch, &rejected);
  // Slots for about 1% of the reservation, not for all of it.
  const uint64_t table_bytes = m.TableBytes();
  EXPECT_LT(table_bytes, kReserved / 100 * 2 * (8 + sizeof(BlockMapEntry)));
  // More live blocks than expected: the shards grow.
  batch.AddSorted(0, blocks.data() + blocks.size() / 4, blocks.size() - blocks.size() / 4);
  m.InsertBatch(&batch, &rejected);
  EXPECT_TRUE(rejected.empty());
  EXPECT_EQ(blocks.size(), m.size());
  for (const LiveBlock& b : blocks) ASSERT_TRUE(m.Find(b.id, nullptr)) << b.id;

  // Without notes (or with every record live) the reservation stands.
  BlockMap all_live;
  all_live.Reserve(100000);
  all_live.NoteReplayed(1000, 1000);
  all_live.Allocate();
  // 12-byte slots for every reserved id, at most 3/4 full: 16 bytes an id.
  EXPECT_GE(all_live.TableBytes(), 100000 * 16);
}

TEST(BlockMapTest, ConcurrentSingleBlockMergesFindEveryDuplicateOnce) {
  BlockMap m;
  constexpr int kThreads = 8;
  constexpr uint64_t kIds = 20000;
  std::atomic<uint64_t> inserted{0}, duplicates{0};
  std::vector<std::thread> threads;
  // Every thread merges every id, one single-block container at a time:
  // exactly one merge per id inserts it.
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      BlockMap::Batch batch;
      std::vector<BlockMap::Rejected> rejected;
      for (uint64_t id = 0; id < kIds; id++) {
        const LiveBlock block{id * 7919, BlockLocation{0, 1}};
        batch.AddSorted(static_cast<uint32_t>(t), &block, 1);
        rejected.clear();
        m.InsertBatch(&batch, &rejected);
        if (rejected.empty()) {
          inserted++;
        } else {
          duplicates++;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(kIds, inserted.load());
  EXPECT_EQ(kIds * (kThreads - 1), duplicates.load());
  EXPECT_EQ(kIds, m.size());
  const auto entries = m.SortedEntries();
  for (uint64_t i = 0; i < kIds; i++) ASSERT_EQ(i * 7919, entries[i].first);
}

// The merge keeps every location as the replay gave it, also those that do
// not fit the table's packed entries, and the container index whole.
TEST(BlockMapTest, LocationsAtThePackingLimitsSurviveTheMerge) {
  constexpr int64_t kMax = INT64_MAX;
  constexpr int64_t k48 = int64_t{1} << 48;
  const std::vector<LiveBlock> blocks = {
      {1, {0, 0}},          {2, {k48 - 2, k48 - 1}}, {3, {k48 - 1, 0}},
      {4, {0, k48}},        {5, {kMax, 0}},          {6, {0, kMax}},
      {70, {kMax - 1, 1}},  {71, {(int64_t{1} << 40) + 4096, 4096}},
      {1000000, {4096, 65536}},
  };
  BlockMap m;
  ASSERT_TRUE(Merge(&m, UINT32_MAX, blocks).empty());
  ASSERT_TRUE(Merge(&m, 1u << 24, {{1000001, {k48, 1}}}).empty());
  for (const LiveBlock& b : blocks) {
    BlockMapEntry e;
    ASSERT_TRUE(m.Find(b.id, &e)) << b.id;
    EXPECT_EQ(UINT32_MAX, e.container) << b.id;
    EXPECT_EQ(b.loc.offset, e.offset) << b.id;
    EXPECT_EQ(b.loc.length, e.length) << b.id;
  }
  const auto entries = m.SortedEntries();
  ASSERT_EQ(blocks.size() + 1, entries.size());
  for (size_t i = 0; i < blocks.size(); i++) {
    EXPECT_EQ(blocks[i].id, entries[i].first);
    EXPECT_EQ(blocks[i].loc.offset, entries[i].second.offset) << blocks[i].id;
    EXPECT_EQ(blocks[i].loc.length, entries[i].second.length) << blocks[i].id;
  }
  EXPECT_EQ(1u << 24, entries.back().second.container);
  EXPECT_EQ(k48, entries.back().second.offset);
  // A duplicate of an entry kept beside the slots names its holder.
  const std::vector<BlockMap::Rejected> rejected = Merge(&m, 3, {{5, {1, 1}}});
  ASSERT_EQ(1u, rejected.size());
  EXPECT_EQ(UINT32_MAX, rejected[0].held_by);
  BlockMapEntry e;
  ASSERT_TRUE(m.Find(5, &e));
  EXPECT_EQ(kMax, e.offset);
}

// Merges `live` blocks into `m` in two batches, the first of which sizes
// every shard; returns the tables' bytes after the first.
uint64_t FillInTwoMerges(BlockMap* m, size_t live, std::vector<LiveBlock>* blocks) {
  for (uint64_t i = 0; i < live; i++) {
    blocks->push_back(LiveBlock{i * 3 + 7, BlockLocation{static_cast<int64_t>(i) * 4096, 1}});
  }
  BlockMap::Batch batch;
  std::vector<BlockMap::Rejected> rejected;
  batch.AddSorted(0, blocks->data(), 20000);
  m->InsertBatch(&batch, &rejected);
  const uint64_t first = m->TableBytes();
  batch.AddSorted(0, blocks->data() + 20000, blocks->size() - 20000);
  m->InsertBatch(&batch, &rejected);
  EXPECT_TRUE(rejected.empty());
  EXPECT_EQ(blocks->size(), m->size());
  return first;
}

// The first shards are sized after a few containers, whose live shares
// differ: the estimate carries their standard error, so that a map whose
// later containers are more live than the first ones does not grow (each
// growth rehashes a shard and keeps a quarter more slots), while a share
// the first containers agree on still sizes it tightly.
TEST(BlockMapTest, SizedForTheShareTheFirstContainersAllow) {
  constexpr size_t kReserved = 1000000;  // too large to allocate before any note
  constexpr uint64_t kRecords = 10000;
  {
    // Shares 0.5 to 0.9 first (mean 0.7); 90 % of the reservation is live.
    BlockMap m;
    m.Reserve(kReserved);
    m.Allocate();
    for (uint64_t live : {5000, 9000, 6000, 8000}) m.NoteReplayed(kRecords, live);
    std::vector<LiveBlock> blocks;
    const uint64_t first = FillInTwoMerges(&m, kReserved * 9 / 10, &blocks);
    EXPECT_EQ(first, m.TableBytes()) << "a shard grew";
    for (const LiveBlock& b : blocks) ASSERT_TRUE(m.Find(b.id, nullptr)) << b.id;
  }
  {
    // The same mean with every container agreeing: sized for about 70 %.
    BlockMap m;
    m.Reserve(kReserved);
    m.Allocate();
    for (int i = 0; i < 4; i++) m.NoteReplayed(kRecords, 7000);
    std::vector<LiveBlock> blocks;
    const uint64_t first = FillInTwoMerges(&m, kReserved * 7 / 10, &blocks);
    EXPECT_EQ(first, m.TableBytes());
    // About 19 bytes per live block (12-byte slots at most 3/4 full, the
    // shards' margin); sized with the first case's margin it would be 24.
    EXPECT_LT(first, kReserved * 7 / 10 * 20);
  }
}

// The containers claimed largest first are the oldest, which have lost the
// most: while more of them are to come, the map is sized above the share
// they show, and once they are all noted, for the share seen.
TEST(BlockMapTest, SizedAboveTheShareOfTheLargestClaimedFirst) {
  constexpr size_t kReserved = 1000000;
  constexpr uint64_t kRecords = 10000;
  {
    // Four of forty large containers, 60 % live; 85 % of the reservation is.
    BlockMap m;
    m.Reserve(kReserved);
    m.ExpectLargestFirst(40 * kRecords);
    m.Allocate();
    for (int i = 0; i < 4; i++) m.NoteReplayed(kRecords, 6000, /*largest_first=*/true);
    std::vector<LiveBlock> blocks;
    const uint64_t first = FillInTwoMerges(&m, kReserved * 85 / 100, &blocks);
    EXPECT_EQ(first, m.TableBytes()) << "a shard grew";
    for (const LiveBlock& b : blocks) ASSERT_TRUE(m.Find(b.id, nullptr)) << b.id;
  }
  {
    // All four large containers noted, 70 % live: sized for about 70 %, as
    // when nothing was claimed first.
    BlockMap m;
    m.Reserve(kReserved);
    m.ExpectLargestFirst(4 * kRecords);
    m.Allocate();
    for (int i = 0; i < 4; i++) m.NoteReplayed(kRecords, 7000, /*largest_first=*/true);
    std::vector<LiveBlock> blocks;
    const uint64_t first = FillInTwoMerges(&m, kReserved * 7 / 10, &blocks);
    EXPECT_EQ(first, m.TableBytes());
    EXPECT_LT(first, kReserved * 7 / 10 * 20);
  }
}

// A map of a few hundred thousand blocks takes its shards' first tables
// from one arena; tables that outgrow them move to memory of their own, and
// every entry must survive both, whichever thread moved it.
TEST(BlockMapTest, TablesOutgrowingTheirArenaKeepEveryEntry) {
  constexpr int kThreads = 4;
  constexpr uint64_t kReserved = 100000;
  constexpr uint64_t kPerThread = kReserved;  // four times the reservation in all
  BlockMap m;
  m.Reserve(kReserved);
  std::vector<std::vector<LiveBlock>> blocks(kThreads);
  for (int t = 0; t < kThreads; t++) {
    for (uint64_t i = 0; i < kPerThread; i++) {
      const uint64_t id = i * kThreads + t;  // the threads' ids interleave
      blocks[t].push_back(LiveBlock{id, BlockLocation{static_cast<int64_t>(id) * 4096 + t, 7}});
    }
  }
  std::vector<std::thread> threads;
  std::vector<std::vector<BlockMap::Rejected>> rejected(kThreads);
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      BlockMap::Batch batch;
      for (uint64_t done = 0; done < kPerThread; done += 5000) {
        batch.AddSorted(t, blocks[t].data() + done, 5000);
        m.InsertBatch(&batch, &rejected[t]);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(kThreads * kPerThread, m.size());
  for (int t = 0; t < kThreads; t++) {
    EXPECT_TRUE(rejected[t].empty());
    for (const LiveBlock& b : blocks[t]) {
      BlockMapEntry e;
      ASSERT_TRUE(m.Find(b.id, &e)) << b.id;
      ASSERT_EQ(static_cast<uint32_t>(t), e.container) << b.id;
      ASSERT_EQ(b.loc.offset, e.offset) << b.id;
      ASSERT_EQ(7, e.length) << b.id;
    }
  }
}

// What a live-heavy open's map costs: a map reserved for every id it gets
// (dense ids, all live) holds them in about 16 bytes each (a 12-byte slot
// at most 3/4 full), plus the shards' margin for an uneven share.
TEST(BlockMapTest, ALiveHeavyMapCostsAboutItsSlots) {
  constexpr size_t kIds = 1000000;
  BlockMap m;
  m.Reserve(kIds);
  m.NoteReplayed(kIds, kIds);
  std::vector<LiveBlock> blocks;
  blocks.reserve(kIds);
  for (uint64_t id = 0; id < kIds; id++) {
    blocks.push_back(LiveBlock{id + 1000, BlockLocation{static_cast<int64_t>(id) * 4096, 1000}});
  }
  BlockMap::Batch batch;
  std::vector<BlockMap::Rejected> rejected;
  batch.AddSorted(0, blocks.data(), blocks.size());
  m.InsertBatch(&batch, &rejected);
  EXPECT_TRUE(rejected.empty());
  EXPECT_EQ(kIds, m.size());
  EXPECT_LE(m.TableBytes(), kIds * 19);
}

}  // namespace
}  // namespace fs
}  // namespace kudu
