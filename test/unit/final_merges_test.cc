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

// The shared last merges: whatever the timing, every block of every batch
// is inserted exactly once, duplicates are rejected exactly once per extra
// copy, and a thread leaves only once its own batch is in (run under TSan
// too).
#include "kudu/fs/final_merges.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <thread>
#include <vector>

namespace kudu {
namespace fs {
namespace {

// Thread t holds ids [t * kStride, t * kStride + kBlocks): neighbours overlap
// by kBlocks - kStride ids, which must be rejected once each.
constexpr uint64_t kBlocks = 20000;
constexpr uint64_t kStride = 15000;

void RunThreads(int threads, int stagger_ms) {
  BlockMap map;
  map.Reserve(threads * kBlocks);
  FinalMerges merges(&map, threads);
  std::vector<std::vector<LiveBlock>> blocks(threads);
  for (int t = 0; t < threads; t++) {
    for (uint64_t i = 0; i < kBlocks; i++) {
      const uint64_t id = t * kStride + i;
      blocks[t].push_back(LiveBlock{id, BlockLocation{static_cast<int64_t>(id), t + 1}});
    }
  }
  std::vector<std::vector<BlockMap::Rejected>> rejected(threads);
  std::atomic<int> all_found_on_return{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; t++) {
    pool.emplace_back([&, t] {
      // Finished at different times: early threads wait, then help.
      std::this_thread::sleep_for(std::chrono::milliseconds(stagger_ms * t));
      BlockMap::Batch batch;
      batch.AddSorted(t, blocks[t].data(), kBlocks / 2);
      batch.AddSorted(t, blocks[t].data() + kBlocks / 2, kBlocks - kBlocks / 2);
      merges.Finish(&batch, &rejected[t]);
      EXPECT_EQ(0u, batch.size());
      bool all = true;
      for (const LiveBlock& b : blocks[t]) all = all && map.Find(b.id, nullptr);
      if (all) all_found_on_return++;
    });
  }
  for (auto& th : pool) th.join();
  EXPECT_EQ(threads, all_found_on_return.load());

  const uint64_t unique = (threads - 1) * kStride + kBlocks;
  EXPECT_EQ(unique, map.size());
  std::map<uint64_t, int> rejections;
  for (const auto& r : rejected) {
    for (const BlockMap::Rejected& x : r) {
      rejections[x.id]++;
      EXPECT_NE(x.held_by, x.rejected_from);
      BlockMapEntry e;
      ASSERT_TRUE(map.Find(x.id, &e));
      EXPECT_EQ(e.container, x.held_by);
    }
  }
  // Every id held by two threads is rejected exactly once; no other is.
  EXPECT_EQ(static_cast<size_t>(threads - 1) * (kBlocks - kStride), rejections.size());
  for (const auto& kv : rejections) EXPECT_EQ(1, kv.second) << kv.first;
  for (int t = 0; t < threads; t++) {
    for (const LiveBlock& b : blocks[t]) {
      BlockMapEntry e;
      ASSERT_TRUE(map.Find(b.id, &e));
      EXPECT_EQ(b.loc.offset, e.offset);
    }
  }
}

TEST(FinalMergesTest, TogetherEveryBlockOnceEveryDuplicateOnce) { RunThreads(4, 0); }

TEST(FinalMergesTest, StaggeredEarlyThreadsHelpTheLateOnes) { RunThreads(4, 20); }

TEST(FinalMergesTest, OneThreadAndEmptyBatches) {
  BlockMap map;
  FinalMerges merges(&map, 3);
  std::vector<LiveBlock> blocks = {{1, {0, 1}}, {2, {1, 1}}, {70, {2, 1}}};
  std::vector<std::thread> pool;
  for (int t = 0; t < 3; t++) {
    pool.emplace_back([&, t] {
      BlockMap::Batch batch;  // only thread 0 has blocks
      if (t == 0) batch.AddSorted(0, blocks.data(), blocks.size());
      std::vector<BlockMap::Rejected> rejected;
      merges.Finish(&batch, &rejected);
      EXPECT_TRUE(rejected.empty());
    });
  }
  for (auto& th : pool) th.join();
  EXPECT_EQ(3u, map.size());
}

// Threads withdrawn (held back and never started) are not waited for: the
// two that do finish return, with every block in, whether the withdrawal
// comes before or after they start waiting.
TEST(FinalMergesTest, WithdrawnThreadsAreNotWaitedFor) {
  for (int withdraw_after_ms : {0, 30}) {
    BlockMap map;
    FinalMerges merges(&map, 5);
    std::vector<LiveBlock> blocks = {{1, {0, 1}}, {2, {1, 1}}, {70, {2, 1}}};
    std::vector<std::thread> pool;
    for (int t = 0; t < 2; t++) {
      pool.emplace_back([&, t] {
        BlockMap::Batch batch;
        if (t == 0) batch.AddSorted(0, blocks.data(), blocks.size());
        std::vector<BlockMap::Rejected> rejected;
        merges.Finish(&batch, &rejected);
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(withdraw_after_ms));
    merges.Withdraw(3);
    for (auto& th : pool) th.join();
    EXPECT_EQ(3u, map.size()) << withdraw_after_ms;
  }
}

}  // namespace
}  // namespace fs
}  // namespace kudu
