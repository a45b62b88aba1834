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

#include "kudu/fs/block_id_table.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "kudu/fs/block_id.h"

namespace kudu {
namespace fs {
namespace {

// As Kudu prints ids: decimal, zero-padded to 16 digits, never cut.
TEST(BlockIdTest, PrintsDecimalPaddedToSixteenDigits) {
  EXPECT_EQ("0000000000000000", BlockId(0).ToString());
  EXPECT_EQ("0000000000000001", BlockId(1).ToString());
  EXPECT_EQ("0000000001234567", BlockId(1234567).ToString());
  EXPECT_EQ("9999999999999999", BlockId(9999999999999999ULL).ToString());
  EXPECT_EQ("10000000000000000", BlockId(10000000000000000ULL).ToString());
  EXPECT_EQ("18446744073709551615", BlockId(UINT64_MAX).ToString());
  char buf[BlockId::kMaxFormattedLength + 1];
  EXPECT_EQ(20, BlockId::Format(UINT64_MAX, buf));
  EXPECT_STREQ("18446744073709551615", buf);
  EXPECT_EQ(16, BlockId::Format(42, buf));
  EXPECT_STREQ("0000000000000042", buf);
}

bool SameEntry(const BlockMapEntry& a, const BlockMapEntry& b) {
  return a.container == b.container && a.offset == b.offset && a.length == b.length;
}

// Inserts `ids` (duplicates included) into a table and into an
// unordered_map, then checks that every answer of the table matches the
// model: first insert wins, lookups of absent ids fail, ForEach visits each
// id once.
void CheckAgainstModel(const std::vector<uint64_t>& ids, size_t reserve,
                       size_t* outside = nullptr) {
  BlockIdTable table;
  if (reserve > 0) table.Reserve(reserve);
  std::unordered_map<uint64_t, BlockMapEntry> model;
  for (size_t i = 0; i < ids.size(); i++) {
    const uint64_t id = ids[i];
    const BlockMapEntry e{static_cast<uint32_t>(i), static_cast<int64_t>(i) * 4096,
                          static_cast<int64_t>(i % 1000)};
    uint32_t held_by = ~0u;
    const bool inserted = table.Insert(id, BlockIdTable::RunHash(id), e, &held_by);
    auto r = model.emplace(id, e);
    ASSERT_EQ(r.second, inserted) << "id " << id;
    // A duplicate names the container of the entry that stays.
    if (!inserted) {
      ASSERT_EQ(r.first->second.container, held_by) << "id " << id;
    }
  }
  ASSERT_EQ(model.size(), table.size());
  for (const auto& kv : model) {
    const BlockMapEntry* found = table.Find(kv.first, BlockIdTable::RunHash(kv.first));
    ASSERT_NE(nullptr, found) << "id " << kv.first;
    ASSERT_TRUE(SameEntry(kv.second, *found)) << "id " << kv.first;
    // Neighbours that were never inserted are absent.
    const uint64_t id = kv.first;
    for (uint64_t probe : {id + 1, id - 1, id ^ (uint64_t{1} << 40)}) {
      if (model.count(probe) == 0) {
        ASSERT_EQ(nullptr, table.Find(probe, BlockIdTable::RunHash(probe))) << "id " << probe;
      }
    }
  }
  size_t visited = 0;
  table.ForEach([&](uint64_t id, const BlockMapEntry& e) {
    visited++;
    auto it = model.find(id);
    ASSERT_NE(model.end(), it) << "id " << id;
    EXPECT_TRUE(SameEntry(it->second, e));
  });
  EXPECT_EQ(model.size(), visited);
  if (outside != nullptr) *outside = table.outside_size();
}

TEST(BlockIdTableTest, EmptyTableFindsNothing) {
  BlockIdTable table;
  EXPECT_EQ(0u, table.size());
  EXPECT_EQ(nullptr, table.Find(0, BlockIdTable::RunHash(0)));
  EXPECT_EQ(nullptr, table.Find(~0ULL, BlockIdTable::RunHash(~0ULL)));
  int calls = 0;
  table.ForEach([&](uint64_t, const BlockMapEntry&) { calls++; });
  EXPECT_EQ(0, calls);
}

// Every id value is a valid block id, the ends of the id space included.
TEST(BlockIdTableTest, EveryIdValueIncludingTheFreeSlotMarker) {
  CheckAgainstModel({~0ULL, 0, 1, ~0ULL - 1, ~0ULL, 0, 7, 8, 9}, 0);
  CheckAgainstModel({0, ~0ULL, 1, ~0ULL - 1, ~0ULL, 0, 7, 8, 9}, 0);
}

// A slot's key is the id's distance from a base 2^31 below the first id
// inserted: ids at the window's edges are in the slots, ids past them
// beside them, and all come back the same.
TEST(BlockIdTableTest, IdsOnBothSidesOfTheKeysWindow) {
  constexpr uint64_t kFirst = uint64_t{1} << 40;
  constexpr uint64_t kBase = kFirst - (uint64_t{1} << 31);
  constexpr uint64_t kLastIn = kBase + 0xfffffffeULL;
  std::vector<uint64_t> ids = {kFirst, kBase, kBase - 1, kLastIn, kLastIn + 1, 0, ~0ULL,
                               kFirst + 1, kBase + 1, kLastIn - 1, kLastIn + 2, kBase - 2};
  // Enough ids in and out of the window to grow the slots and the side map.
  for (uint64_t i = 0; i < 20000; i++) {
    ids.push_back(kFirst + 2 + i);
    ids.push_back(kLastIn + 3 + i * 7);
    ids.push_back(kBase - 3 - i * 5);
  }
  ids.push_back(kBase);  // duplicates on both sides
  ids.push_back(kLastIn + 1);
  size_t outside = 0;
  CheckAgainstModel(ids, 0, &outside);
  // kBase - 1, kLastIn + 1, 0, 2^64 - 1, kLastIn + 2, kBase - 2 and the
  // 40,000.
  EXPECT_EQ(6u + 40000u, outside);

  // A first id near either end of the id space: the window wraps past
  // 2^64 - 1 to 0.
  // With 2^64 - 6 first, the window runs from 2^64 - 6 - 2^31 to 2^31 - 8.
  ids = {~0ULL - 5, ~0ULL - 4, ~0ULL, 0, 7, (uint64_t{1} << 31) - 8, (uint64_t{1} << 31) - 7,
         ~0ULL - (uint64_t{1} << 31) - 5, ~0ULL - (uint64_t{1} << 31) - 6};
  CheckAgainstModel(ids, 0, &outside);
  EXPECT_EQ(2u, outside);  // 2^31 - 7 and 2^64 - 2^31 - 7, one past each edge
  // With 5 first, from 2^64 - 2^31 + 5 to 2^31 + 3.
  ids = {5, 0, ~0ULL, (uint64_t{1} << 31) + 3, (uint64_t{1} << 31) + 4,
         ~0ULL - (uint64_t{1} << 31) + 6, ~0ULL - (uint64_t{1} << 31) + 5};
  CheckAgainstModel(ids, 0, &outside);
  EXPECT_EQ(2u, outside);  // 2^31 + 4 and 2^64 - 2^31 + 4
}

// The first id may lie near one end of a server's ids: once thousands of
// ids are beside the slots and all the ids held span less than the window,
// the window moves to hold them all. Ids that span more stay beside them.
TEST(BlockIdTableTest, TheWindowMovesToHoldIdsThatFit) {
  constexpr uint64_t kFirst = uint64_t{1} << 40;
  std::vector<uint64_t> ids = {kFirst, kFirst + 1, kFirst - 5};
  for (uint64_t i = 0; i < 20000; i++) ids.push_back(kFirst + (uint64_t{1} << 31) + 100 + i * 3);
  for (uint64_t i = 0; i < 1000; i++) ids.push_back(ids[i * 7]);  // duplicates
  size_t outside = 0;
  CheckAgainstModel(ids, 0, &outside);
  EXPECT_EQ(0u, outside);
  // Reserved first, so the move keeps the table's arrays.
  CheckAgainstModel(ids, 30000, &outside);
  EXPECT_EQ(0u, outside);

  // Spanning more than the window: the ids past it stay beside the slots.
  ids = {kFirst};
  for (uint64_t i = 0; i < 20000; i++) ids.push_back(kFirst + (uint64_t{1} << 33) + i);
  for (uint64_t i = 0; i < 100; i++) ids.push_back(kFirst + i + 1);
  CheckAgainstModel(ids, 0, &outside);
  EXPECT_EQ(20000u, outside);
}

TEST(BlockIdTableTest, ConsecutiveIdsWithGrowthFromEmpty) {
  std::vector<uint64_t> ids;
  for (uint64_t id = 1000; id < 1000 + 50000; id++) ids.push_back(id);
  CheckAgainstModel(ids, 0);
}

TEST(BlockIdTableTest, ReservedUpFrontAndExceeded) {
  std::vector<uint64_t> ids;
  for (uint64_t id = 0; id < 20000; id++) ids.push_back(id * 3);
  CheckAgainstModel(ids, 5000);
  CheckAgainstModel(ids, 40000);
}

// Tables of a server's size keep their arrays in page memory of their own
// (util/page_memory.h): a key array of 2 MiB and more from the start, then
// grown past it, with the ids of interleaved containers and duplicates.
TEST(BlockIdTableTest, TablesInPageMemoryReservedAndGrown) {
  BlockIdTable table;
  table.Reserve(400000);
  ASSERT_GE(table.capacity() * sizeof(uint32_t), kHugePageBytes);
  std::vector<uint64_t> ids;
  for (uint64_t i = 0; i < 800000; i++) ids.push_back((i % 4) << 29 | i / 4);
  for (uint64_t i = 0; i < 1000; i++) ids.push_back(ids[i * 97]);
  size_t outside = 0;
  CheckAgainstModel(ids, 400000, &outside);
  EXPECT_EQ(0u, outside);
}

// A server-scale table's arrays end on whole huge pages where that costs at
// most a quarter more (util/page_memory.h), and the slots those pages hold
// are used: the load falls, the ids inserted all come back, and the bytes
// it reports are what it allocated.
TEST(BlockIdTableTest, ArraysEndOnWholeHugePages) {
  // 4/3 of 660,000 ids is 880,000 slots: 3.36 MiB of keys and 6.71 MiB of
  // entries, each rounded up to the next 2 MiB.
  constexpr size_t kIds = 660000;
  const size_t whole_slots = 2 * kHugePageBytes / sizeof(uint32_t);  // 4 MiB of keys
  BlockIdTable table;
  table.Reserve(kIds);
  EXPECT_EQ(whole_slots, table.capacity());
  EXPECT_EQ(6 * kHugePageBytes, table.bytes());  // 4 + 8 MiB
  EXPECT_EQ(table.bytes(), BlockIdTable::BytesFor(kIds));
  std::vector<uint64_t> ids;
  for (uint64_t i = 0; i < kIds; i++) ids.push_back((i % 3) << 28 | i / 3);
  CheckAgainstModel(ids, kIds);
}

// Patterns that defeat weak hashes: ids that differ only in high bits, in
// multiples of the run length, of powers of two and of the table size;
// whole runs present; interleaved containers; random ids; and duplicates.
TEST(BlockIdTableTest, AdversarialPatterns) {
  std::vector<std::vector<uint64_t>> patterns(6);
  for (uint64_t i = 0; i < 20000; i++) {
    patterns[0].push_back(i << 40);
    patterns[1].push_back(i * BlockIdTable::kRun);
    patterns[2].push_back(i * 65536);
    patterns[3].push_back((i % 4) * (1ULL << 50) + i / 4);  // four interleaved ranges
  }
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; i++) patterns[4].push_back(rng());
  for (int i = 0; i < 20000; i++) patterns[5].push_back(rng() % 5000);  // many duplicates
  for (const auto& p : patterns) {
    SCOPED_TRACE(p[1]);
    CheckAgainstModel(p, 0);
  }
}

// A table keeps probe sequences short only if it never fills: check the
// load bound as it grows.
TEST(BlockIdTableTest, StaysAtMostThreeQuartersFull) {
  BlockIdTable table;
  uint32_t held_by;
  for (uint64_t id = 0; id < 100000; id++) {
    table.Insert(id * 13, BlockIdTable::RunHash(id * 13), BlockMapEntry{}, &held_by);
    ASSERT_LE(table.size() * 4, table.capacity() * 3) << "after " << id + 1 << " inserts";
  }
  // Reserving takes about 4/3 of a slot per id, whatever n (not the next
  // power of two), and enough that n inserts do not grow the table.
  for (size_t n : {1000, 3125, 4097, 100000}) {
    BlockIdTable reserved;
    reserved.Reserve(n);
    const size_t slots = reserved.capacity();
    EXPECT_GE(slots * 3, n * 4) << n;
    EXPECT_LE(slots, n * 4 / 3 + 2 * BlockIdTable::kRun) << n;
    for (uint64_t id = 0; id < n; id++) {
      reserved.Insert(id, BlockIdTable::RunHash(id), BlockMapEntry{}, &held_by);
    }
    EXPECT_EQ(slots, reserved.capacity()) << n;
  }
}

// Every value an entry can hold comes back exactly, whether it fits a slot
// or is kept beside the slots: at the edges of the packed fields (an offset
// of 4 KiB units below 16 GiB, a length below 32 MiB, a container below
// 2^17 - 1), misaligned offsets, at the ends of int64 and uint32, negative
// ones, through duplicates, lookups, ForEach and the table's growth.
TEST(BlockIdTableTest, EntriesAtThePackingLimitsComeBackExactly) {
  constexpr int64_t kMax = INT64_MAX;
  constexpr int64_t k16GiB = int64_t{1} << 34;
  constexpr int64_t k32MiB = int64_t{1} << 25;
  constexpr uint32_t kContainers = (1u << 17) - 1;
  constexpr int64_t k48 = int64_t{1} << 48;
  struct Case {
    BlockMapEntry entry;
    bool fits;  // whether it is expected to fit a slot
  };
  const std::vector<Case> cases = {
      {{0, 0, 0}, true},
      {{1, 4096, 1}, true},
      {{7, (int64_t{1} << 33) + 4096, 65536}, true},     // an 8 GiB+ offset
      {{kContainers - 1, k16GiB - 4096, k32MiB - 1}, true},  // the largest that fit
      {{1u << 16, 0, 0xffffff}, true},
      {{(1u << 16) + 1, 0xfffff000LL, 0x1000000}, true},
      {{2, k16GiB, 0}, false},        // the first offset that does not fit
      {{3, 0, k32MiB}, false},        // the first length that does not fit
      {{kContainers, 4096, 1}, false},  // the first container that does not fit
      // Every field all ones: the word that marks an entry kept beside the slots.
      {{kContainers, k16GiB - 4096, k32MiB - 1}, false},
      {{kContainers - 1, k16GiB - 4095, k32MiB - 1}, false},  // misaligned
      {{12, 2048, 4096}, false},      // a filesystem of 2 KiB blocks
      {{13, 4097, 0}, false},
      {{4, kMax, 0}, false},  // a length-0 block far past its file's end
      {{5, 0, kMax}, false},
      {{UINT32_MAX, kMax - 1, 1}, false},
      {{UINT32_MAX, 0, 0}, false},
      {{6, -1, 5}, false},  // negative values: the table keeps whatever it is given
      {{8, 5, -1}, false},
      {{14, -4096, 5}, false},
      {{9, INT64_MIN, INT64_MIN}, false},
      {{10, k48 + 4096, 4096}, false},
  };
  BlockIdTable table;
  std::unordered_map<uint64_t, BlockMapEntry> model;
  size_t unpacked = 0;
  // Ids spread over runs and neighbours within one run, and the last id
  // (2^64 - 1, in the keys' window of a first id of 1000: it wraps).
  std::vector<uint64_t> ids;
  for (size_t i = 0; i < cases.size(); i++) ids.push_back(i % 2 == 0 ? 1000 + i : 1000 + i * 977);
  for (size_t i = 0; i < cases.size(); i++) {
    const uint64_t id = ids[i];
    uint32_t held_by;
    ASSERT_TRUE(table.Insert(id, BlockIdTable::RunHash(id), cases[i].entry, &held_by)) << i;
    model[id] = cases[i].entry;
    if (!cases[i].fits) unpacked++;
    EXPECT_EQ(unpacked, table.unpacked_size()) << i;
  }
  uint32_t held_by;
  ASSERT_TRUE(table.Insert(~0ULL, BlockIdTable::RunHash(~0ULL), BlockMapEntry{11, kMax, kMax},
                           &held_by));
  model[~0ULL] = BlockMapEntry{11, kMax, kMax};
  unpacked++;

  auto check_all = [&] {
    for (size_t j = 0; j < ids.size(); j++) {
      const size_t i = j % cases.size();
      const uint64_t id = ids[j];
      const BlockMapEntry* found = table.Find(id, BlockIdTable::RunHash(id));
      ASSERT_NE(nullptr, found) << i;
      EXPECT_TRUE(SameEntry(cases[i].entry, *found)) << i;
      // A second insert of the id keeps the first entry and names its
      // container.
      uint32_t held_by = ~0u;
      EXPECT_FALSE(table.Insert(id, BlockIdTable::RunHash(id), BlockMapEntry{99, 1, 1}, &held_by))
          << i;
      EXPECT_EQ(cases[i].entry.container, held_by) << i;
      found = table.Find(id, BlockIdTable::RunHash(id));
      ASSERT_NE(nullptr, found) << i;
      EXPECT_TRUE(SameEntry(cases[i].entry, *found)) << i;
    }
    // The last id too.
    uint32_t held_by = ~0u;
    EXPECT_FALSE(table.Insert(~0ULL, BlockIdTable::RunHash(~0ULL), BlockMapEntry{99, 1, 1},
                              &held_by));
    EXPECT_EQ(11u, held_by);
    size_t visited = 0;
    table.ForEach([&](uint64_t id, const BlockMapEntry& e) {
      auto it = model.find(id);
      ASSERT_NE(model.end(), it) << id;
      EXPECT_TRUE(SameEntry(it->second, e)) << id;
      visited++;
    });
    EXPECT_EQ(model.size(), visited);
    EXPECT_EQ(unpacked, table.unpacked_size());
  };
  check_all();
  // Growth moves the packed entries; the ones beside the slots stay found.
  const size_t before = table.capacity();
  for (uint64_t id = 1; id <= 5000; id++) {
    const uint64_t big = 1000000 + id * 997;
    const BlockMapEntry e{static_cast<uint32_t>(id), static_cast<int64_t>(id) * 4096, 100};
    ASSERT_TRUE(table.Insert(big, BlockIdTable::RunHash(big), e, &held_by));
    model[big] = e;
  }
  ASSERT_LT(before, table.capacity());
  check_all();
  // The same entries under ids outside the keys' window (kept beside the
  // slots, packed where they fit) come back as exactly.
  for (size_t i = 0; i < cases.size(); i++) {
    const uint64_t id = (uint64_t{1} << 62) + i * 977;
    ASSERT_TRUE(table.Insert(id, BlockIdTable::RunHash(id), cases[i].entry, &held_by)) << i;
    model[id] = cases[i].entry;
    ids.push_back(id);
    if (!cases[i].fits) unpacked++;
  }
  EXPECT_EQ(cases.size(), table.outside_size());
  check_all();
}

// What a slot costs: an entry that fits takes no memory beside the slots,
// and a table reserved for n ids takes at most 16 bytes per id (4 of key,
// 8 of packed entry, at most 3/4 full).
TEST(BlockIdTableTest, PackedEntriesCostTheirSlotsOnly) {
  constexpr size_t kIds = 100000;
  BlockIdTable table;
  table.Reserve(kIds);
  EXPECT_EQ(BlockIdTable::BytesFor(kIds), table.bytes());
  EXPECT_LE(table.bytes(), kIds * 16 + 2 * BlockIdTable::kRun * 12);
  uint32_t held_by;
  for (uint64_t id = 0; id < kIds; id++) {
    // Blocks as a server writes them: on 4 KiB boundaries of data files of
    // up to 10 GiB, of up to 32 MiB each, in thousands of containers.
    const BlockMapEntry e{static_cast<uint32_t>(id % 16721),
                          static_cast<int64_t>(id % 2560) << 22,
                          static_cast<int64_t>((id * 2654435761u) % (uint64_t{1} << 25))};
    table.Insert(id, BlockIdTable::RunHash(id), e, &held_by);
  }
  EXPECT_EQ(0u, table.unpacked_size());
  EXPECT_EQ(0u, table.outside_size());
  EXPECT_EQ(BlockIdTable::BytesFor(kIds), table.bytes());
}

}  // namespace
}  // namespace fs
}  // namespace kudu
