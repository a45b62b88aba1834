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


#include "kudu/util/page_arena.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "kudu/fs/block_id_table.h"
#include "kudu/util/page_memory.h"

namespace kudu {
namespace {

size_t PageSize() { return static_cast<size_t>(::sysconf(_SC_PAGESIZE)); }

// Pages of [p, p + n) that are resident (mincore).
size_t ResidentPages(void* p, size_t n) {
  const uintptr_t page = PageSize();
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p) / page * page;
  const size_t pages = (reinterpret_cast<uintptr_t>(p) + n - begin + page - 1) / page;
  std::vector<unsigned char> v(pages);
  if (::mincore(reinterpret_cast<void*>(begin), pages * page, v.data()) != 0) return SIZE_MAX;
  return static_cast<size_t>(std::count_if(v.begin(), v.end(), [](unsigned char c) { return c & 1; }));
}

// Whether the [address, address + bytes) ranges overlap anywhere.
bool AnyOverlap(std::vector<std::pair<uintptr_t, size_t>> ranges) {
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); i++) {
    if (ranges[i - 1].first + ranges[i - 1].second > ranges[i].first) return true;
  }
  return false;
}

TEST(PageArenaTest, HandsOutDisjointAlignedPiecesUntilFull) {
  PageArena arena(3 * 1000 * 1000);
  // Whole huge pages: the arena's memory is one region advised for them.
  EXPECT_EQ(2 * kHugePageBytes, arena.capacity());
  std::vector<std::pair<uintptr_t, size_t>> pieces;
  size_t asked = 0;
  for (size_t bytes : {1ul, 63ul, 64ul, 100ul, 4096ul, 777777ul, 5ul}) {
    void* p = arena.Allocate(bytes);
    ASSERT_NE(nullptr, p) << bytes;
    EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(p) % 64) << bytes;
    std::memset(p, 0xab, bytes);  // every byte asked for is writable
    pieces.emplace_back(reinterpret_cast<uintptr_t>(p), bytes);
    asked += bytes;
  }
  EXPECT_FALSE(AnyOverlap(pieces));
  EXPECT_GE(arena.used(), asked);
  // A piece larger than the rest is refused and takes nothing: a smaller
  // one still fits.
  const size_t used = arena.used();
  EXPECT_EQ(nullptr, arena.Allocate(arena.capacity() - used + 1));
  EXPECT_EQ(used, arena.used());
  void* last = arena.Allocate(arena.capacity() - used);
  ASSERT_NE(nullptr, last);
  EXPECT_EQ(arena.capacity(), arena.used());
  EXPECT_EQ(nullptr, arena.Allocate(1));
}

TEST(PageArenaTest, ReservedNotWritten) {
  // An arena sized for the most its owner may take costs what is written.
  PageArena arena(64 * kHugePageBytes);
  char* p = static_cast<char*>(arena.Allocate(64 * kHugePageBytes));
  ASSERT_NE(nullptr, p);
  // Nothing of it, but for a page an allocator may keep its bookkeeping in
  // (a sanitizer's allocator does).
  EXPECT_LE(ResidentPages(p, 64 * kHugePageBytes), 1u);
  std::memset(p + 32 * kHugePageBytes, 1, 4096);
  // One huge page at most (or one small page without them), not the arena.
  EXPECT_GE(ResidentPages(p + 32 * kHugePageBytes, 4096), 1u);
  EXPECT_LE(ResidentPages(p, 64 * kHugePageBytes), kHugePageBytes / PageSize() + 1);
}

// A piece given back loses every page wholly inside it, and only those:
// the pieces around it keep their pages and their bytes.
TEST(PageArenaTest, ReleaseGivesBackTheWholePagesInsideAPiece) {
  PageArena arena(8 * kHugePageBytes);
  const size_t page = PageSize();
  // Three neighbours, the middle one starting and ending inside a page.
  char* before = static_cast<char*>(arena.Allocate(page + 64));
  char* middle = static_cast<char*>(arena.Allocate(10 * page));
  char* after = static_cast<char*>(arena.Allocate(page));
  ASSERT_TRUE(before != nullptr && middle != nullptr && after != nullptr);
  ASSERT_NE(0u, reinterpret_cast<uintptr_t>(middle) % page);
  std::memset(before, 1, page + 64);
  std::memset(middle, 2, 10 * page);
  std::memset(after, 3, page);
  ASSERT_EQ(11u, ResidentPages(middle, 10 * page));
  arena.Release(middle, 10 * page);
  // Nine of the ten pages it touched lie wholly inside it; the two at its
  // ends are shared and stay.
  EXPECT_EQ(2u, ResidentPages(middle, 10 * page));
  // The neighbours span two pages each (one of them shared with it).
  EXPECT_EQ(2u, ResidentPages(before, page + 64));
  EXPECT_EQ(2u, ResidentPages(after, page));
  for (size_t i = 0; i < page + 64; i++) ASSERT_EQ(1, before[i]) << i;
  for (size_t i = 0; i < page; i++) ASSERT_EQ(3, after[i]) << i;
  // A piece smaller than a page gives nothing back, and its bytes stay.
  char* small = static_cast<char*>(arena.Allocate(100));
  ASSERT_NE(nullptr, small);
  std::memset(small, 4, 100);
  arena.Release(small, 100);
  for (size_t i = 0; i < 100; i++) ASSERT_EQ(4, small[i]) << i;
}

// The block map's tables take their first arrays from an arena: a table
// that outgrows them gives their pages back rather than hold them beside
// its new arrays until the map goes.
TEST(PageArenaTest, ATableThatOutgrowsItsArenaArraysGivesTheirPagesBack) {
  PageArena arena(16 * kHugePageBytes);
  char* const base = static_cast<char*>(arena.Allocate(64));
  ASSERT_NE(nullptr, base);
  fs::BlockIdTable table;
  table.UseArena(&arena);
  constexpr uint64_t kFirst = 60000;  // arrays of 320 and 640 KB, from the arena
  table.Reserve(kFirst);
  uint32_t held_by;
  for (uint64_t id = 0; id < kFirst; id++) {
    table.Insert(id, fs::BlockIdTable::RunHash(id), fs::BlockMapEntry{1, 4096, 1}, &held_by);
  }
  const size_t first_tables = ResidentPages(base, arena.used());
  ASSERT_GE(first_tables * PageSize(), kFirst * (4 + 8));
  // Five times as many ids: the table grows, by doubling, into arrays
  // from the arena's rest, then into arrays of its own.
  for (uint64_t id = kFirst; id < 5 * kFirst; id++) {
    table.Insert(id, fs::BlockIdTable::RunHash(id), fs::BlockMapEntry{1, 4096, 1}, &held_by);
  }
  // Arrays of 2 MiB and more are page memory of their own: the arena now
  // holds only arrays the table has left (three generations of them).
  ASSERT_GE(table.capacity() * sizeof(uint32_t), kHugePageBytes);
  ASSERT_GT(arena.used(), 4 * kFirst * 8);
  // Of their pages, only those shared with a neighbour (or the first
  // piece's) are left.
  EXPECT_LE(ResidentPages(base, arena.used()), 8u);
  for (uint64_t id = 0; id < 5 * kFirst; id++) {
    ASSERT_NE(nullptr, table.Find(id, fs::BlockIdTable::RunHash(id))) << id;
  }
}

TEST(PageArenaTest, ConcurrentTakersGetDisjointPieces) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 2000;
  PageArena arena(kThreads * kPerThread * 256);
  std::vector<std::vector<std::pair<uintptr_t, size_t>>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; i++) {
        const size_t bytes = 1 + static_cast<size_t>((i * 37 + t * 11) % 250);
        void* p = arena.Allocate(bytes);
        if (p == nullptr) continue;
        std::memset(p, t, bytes);
        got[t].emplace_back(reinterpret_cast<uintptr_t>(p), bytes);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::vector<std::pair<uintptr_t, size_t>> all;
  for (const auto& g : got) {
    EXPECT_EQ(static_cast<size_t>(kPerThread), g.size());  // room for every piece
    all.insert(all.end(), g.begin(), g.end());
  }
  EXPECT_FALSE(AnyOverlap(all));
  // Each piece still holds what its own thread wrote.
  for (int t = 0; t < kThreads; t++) {
    for (const auto& [address, bytes] : got[t]) {
      const auto* b = reinterpret_cast<const unsigned char*>(address);
      ASSERT_TRUE(std::all_of(b, b + bytes, [t](unsigned char c) { return c == t; }));
    }
  }
}

}  // namespace
}  // namespace kudu
