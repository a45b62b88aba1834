#include "kudu/fs/block_map.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace kudu {
namespace fs {
namespace {

TEST(BlockMapTest, InsertFindAndSortedIds) {
  BlockMap m;
  BlockMapEntry e;
  EXPECT_TRUE(m.Insert(5, BlockMapEntry{1, 4096, 10}, nullptr));
  EXPECT_TRUE(m.Insert(2, BlockMapEntry{2, 0, 3}, nullptr));
  EXPECT_FALSE(m.Insert(5, BlockMapEntry{7, 8192, 1}, &e));
  // The first insert wins and the caller learns who holds it.
  EXPECT_EQ(1u, e.container);
  EXPECT_EQ(4096, e.offset);
  ASSERT_TRUE(m.Find(2, &e));
  EXPECT_EQ(2u, e.container);
  EXPECT_FALSE(m.Find(3, &e));
  EXPECT_EQ(2u, m.size());
  EXPECT_EQ((std::vector<uint64_t>{2, 5}), m.SortedIds());
  auto entries = m.SortedEntries();
  ASSERT_EQ(2u, entries.size());
  EXPECT_EQ(2u, entries[0].first);
  EXPECT_EQ(2u, entries[0].second.container);
  EXPECT_EQ(5u, entries[1].first);
  EXPECT_EQ(4096, entries[1].second.offset);
}

TEST(BlockMapTest, ConcurrentInsertsFindEveryDuplicateOnce) {
  BlockMap m;
  constexpr int kThreads = 8;
  constexpr uint64_t kIds = 20000;
  std::atomic<uint64_t> inserted{0}, duplicates{0};
  std::vector<std::thread> threads;
  // Every thread inserts every id: exactly one insert per id succeeds.
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      for (uint64_t id = 0; id < kIds; id++) {
        if (m.Insert(id * 7919, BlockMapEntry{static_cast<uint32_t>(t), 0, 1}, nullptr)) {
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
  std::vector<uint64_t> ids = m.SortedIds();
  for (uint64_t i = 0; i < kIds; i++) ASSERT_EQ(i * 7919, ids[i]);
}

}  // namespace
}  // namespace fs
}  // namespace kudu
