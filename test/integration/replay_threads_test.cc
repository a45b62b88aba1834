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


// The replay threads a data dir runs: while the page cache looks warm only
// the dir's share of the CPUs of them start (ReplayThreadGate holds the rest
// back), a cold or unprobed open starts them all, and either way the open
// finds what an open with one thread finds.
#include "kudu/fs/replay_thread_gate.h"

#include <glog/logging.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/container_writer.h"
#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/tools/block_workload.h"
#include "kudu/tools/page_cache.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "util/fs_fixture_util.h"
#include "util/open_describe.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

// Opened while closed: the rest start, once, and nothing is dismissed.
TEST(ReplayThreadGateTest, OpenStartsTheRestOnce) {
  std::atomic<int> started{0};
  ReplayThreadGate gate(5, 2, [&started] { started.fetch_add(1); });
  EXPECT_TRUE(gate.closed());
  EXPECT_EQ(0, started.load());
  std::vector<std::thread> openers;
  for (int i = 0; i < 4; i++) openers.emplace_back([&gate] { gate.Open(); });
  for (auto& t : openers) t.join();
  EXPECT_EQ(1, started.load());
  EXPECT_FALSE(gate.closed());
  EXPECT_EQ(0, gate.Dismiss());  // started: nobody to dismiss
}

// Dismissed while closed: Dismiss counts every thread beyond the first wave
// once, and the rest never start.
TEST(ReplayThreadGateTest, DismissKeepsTheRestFromStarting) {
  std::atomic<int> started{0};
  ReplayThreadGate gate(5, 2, [&started] { started.fetch_add(1); });
  std::atomic<int> dismissed{0};
  std::vector<std::thread> finishers;
  for (int i = 0; i < 4; i++) {
    finishers.emplace_back([&gate, &dismissed] { dismissed.fetch_add(gate.Dismiss()); });
  }
  for (auto& t : finishers) t.join();
  EXPECT_EQ(3, dismissed.load());
  gate.Open();  // too late
  EXPECT_EQ(0, started.load());
  EXPECT_FALSE(gate.closed());
}

// A pool with no threads beyond the first wave has nothing to start.
TEST(ReplayThreadGateTest, NoRestNothingToStart) {
  std::atomic<int> started{0};
  ReplayThreadGate gate(2, 2, [&started] { started.fetch_add(1); });
  gate.Open();
  EXPECT_EQ(0, started.load());
  EXPECT_EQ(0, gate.Dismiss());
}

class ReplayThreadsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { FLAGS_minloglevel = 3; }

  // One dir of many small containers, synced, so that no writeback races
  // the cache probes of a warm open.
  void SetUp() override {
    roots_ = {tmp_.Join("dir0")};
    tools::BlockWorkloadOptions wo;
    wo.writer.data_dirs = roots_;
    wo.writer.sync = true;
    wo.writer.fs_block_size = 4096;
    wo.containers = 96;
    wo.blocks_per_container = 12;
    wo.deleted_block_percentage = 25;
    wo.max_block_size = 256;
    wo.seed = 5;
    tools::BlockWorkloadResult gen;
    Status s = tools::RunBlockWorkload(wo, &gen);
    ASSERT_TRUE(s.ok()) << s.ToString();
    OpenResult ref;
    OpenBlockManager(Options(StrategyChoice::kStreaming, 1), &ref);
    ASSERT_TRUE(ref.ok()) << ref.status.ToString();
    reference_ = test::DescribeOpen(ref);
  }

  // `threads` per dir on a machine of one CPU: a warm open replays on one.
  BlockManagerOpenOptions Options(StrategyChoice choice, int threads) const {
    BlockManagerOpenOptions o = test::OpenOptions(roots_, nullptr, choice);
    o.threads_per_dir = threads;
    o.cpus = 1;
    o.progress_every = 0;
    return o;
  }

  // Every file of the dir, or with `only` the metadata file at that place in
  // name order. `*dropped` (if given): whether none of their pages is left in
  // the page cache (mincore), which the kernel does not promise: it keeps a
  // page that another task holds a reference to at that moment.
  void DropMetadataFromPageCache(int only = -1, bool* dropped = nullptr) {
    if (dropped != nullptr) *dropped = true;
    std::vector<std::string> names;
    const std::string data = LogBlockContainerWriter::DataDir(roots_[0]);
    ASSERT_TRUE(env::ListDir(data, &names).ok());
    std::sort(names.begin(), names.end());
    int metadata = 0;
    for (const std::string& n : names) {
      if (only >= 0) {
        if (n.size() < 9 || n.compare(n.size() - 9, 9, ".metadata") != 0) continue;
        if (metadata++ != only) continue;
      }
      std::unique_ptr<RandomAccessFile> f;
      ASSERT_TRUE(RandomAccessFile::Open(env::JoinPath(data, n), nullptr, &f).ok()) << n;
      tools::DropFromPageCache(*f);
      if (dropped != nullptr && tools::PageCacheResidentBytes(*f) != 0) *dropped = false;
    }
  }

  test::TempDir tmp_;
  std::vector<std::string> roots_;
  std::string reference_;
};

// Warm (every file read once already): each whole-file read, or Windowed's
// first read of each file, finds its bytes cached, so the one thread of the
// first wave replays everything and the other seven never start.
//
// Tests run in parallel, and another test's writes can push a page of this
// dir out of the cache between the warm-up and the open. An open that saw
// a miss must then have started every thread (the cold rule), and is tried
// again, up to five times; one open must find the dir warm.
TEST_F(ReplayThreadsTest, AWarmOpenReplaysOnItsFirstWaveOnly) {
  for (StrategyChoice choice :
       {StrategyChoice::kInMemory, StrategyChoice::kAuto, StrategyChoice::kWindowed}) {
    BlockManagerOpenOptions o = Options(choice, 8);
    o.policy.window_bytes = 64;  // Windowed: many windows per file
    bool warm = false;
    for (int attempt = 0; attempt < 5 && !warm; attempt++) {
      OpenResult warmup, r;
      OpenBlockManager(o, &warmup);
      OpenBlockManager(o, &r);
      ASSERT_EQ(reference_, test::DescribeOpen(r)) << StrategyChoiceName(choice);
      warm = r.replay.cache_probe_misses + r.replay.direct_reads == 0;
      if (!warm) {
        EXPECT_EQ(0u, r.replay.replay_threads_held_back) << StrategyChoiceName(choice);
        continue;
      }
      EXPECT_EQ(96u, r.replay.cache_probe_hits) << StrategyChoiceName(choice);
      EXPECT_EQ(7u, r.replay.replay_threads_held_back) << StrategyChoiceName(choice);
    }
    EXPECT_TRUE(warm) << StrategyChoiceName(choice) << ": no open in five found the dir warm";
  }
}

// Cold (the metadata dropped from the page cache): the first read misses
// and the gate opens: no thread is held back.
TEST_F(ReplayThreadsTest, AColdOpenRunsEveryThread) {
  for (StrategyChoice choice : {StrategyChoice::kInMemory, StrategyChoice::kWindowed}) {
    ASSERT_NO_FATAL_FAILURE(DropMetadataFromPageCache());
    OpenResult r;
    BlockManagerOpenOptions o = Options(choice, 8);
    o.policy.window_bytes = 64;
    OpenBlockManager(o, &r);
    ASSERT_EQ(reference_, test::DescribeOpen(r)) << StrategyChoiceName(choice);
    EXPECT_GE(r.replay.cache_probe_misses + r.replay.direct_reads, 1u) << StrategyChoiceName(choice);
    EXPECT_EQ(0u, r.replay.replay_threads_held_back) << StrategyChoiceName(choice);
  }
}

// Warm but for one file: that one miss means a thread waited for the disk, and the rest start (read-ahead's one-in-eight
// tolerance would have kept them back).
//
// The file must really be cold: once in a TSan run of CI the drop left it
// cached (the open then rightly found every file warm), so the drop is
// checked and tried again, up to five times.
TEST_F(ReplayThreadsTest, OneColdFileStartsTheRest) {
  BlockManagerOpenOptions o = Options(StrategyChoice::kInMemory, 8);
  o.readahead.mode = ReadaheadMode::kNone;  // the first claim would advise the file back in
  bool dropped = false;
  for (int attempt = 0; attempt < 5 && !dropped; attempt++) {
    OpenResult warmup;
    OpenBlockManager(o, &warmup);
    ASSERT_NO_FATAL_FAILURE(DropMetadataFromPageCache(/*only=*/40, &dropped));
  }
  ASSERT_TRUE(dropped) << "the kernel kept the file's pages cached in five drops";
  OpenResult r;
  OpenBlockManager(o, &r);
  ASSERT_EQ(reference_, test::DescribeOpen(r));
  EXPECT_GE(r.replay.cache_probe_misses + r.replay.direct_reads, 1u);
  EXPECT_EQ(0u, r.replay.replay_threads_held_back);
}

// Hands each file to the strategy the open chose, after noting its name.
class NamingStrategy : public MetadataReplayStrategy {
 public:
  NamingStrategy(std::unique_ptr<MetadataReplayStrategy> inner, std::mutex* mu,
                 std::vector<std::string>* names)
      : inner_(std::move(inner)), mu_(mu), names_(names) {}
  ReplayStrategyKind kind() const override { return inner_->kind(); }
  ReplayOutcome Replay(RandomAccessFile* file, BlockRecordSink* sink) override {
    {
      std::lock_guard<std::mutex> l(*mu_);
      names_->push_back(file->filename());
    }
    return inner_->Replay(file, sink);
  }

 private:
  const std::unique_ptr<MetadataReplayStrategy> inner_;
  std::mutex* const mu_;
  std::vector<std::string>* const names_;
};

// One replay thread replays a dir's containers in the order the threads
// claim them: the large ones (here the four of 1.1 MiB or more, well over
// 1/64 of the dir's 6 MiB) first, largest first, then the rest in name
// order. The open finds what an open of eight threads in their own order
// finds.
TEST(ReplayClaimOrderTest, LargeContainersAreClaimedFirst) {
  test::TempDir tmp;
  const std::vector<std::string> roots = {tmp.Join("dir0")};
  tools::BlockWorkloadOptions wo;
  wo.writer.data_dirs = roots;
  wo.writer.fs_block_size = 4096;
  wo.writer.sparse_data = true;
  wo.writer.sync = false;
  wo.container_blocks = {300, 200, 45000, 100, 400, 30000, 250, 60000, 150, 350, 38000, 120};
  wo.deleted_block_percentage = 10;
  wo.max_block_size = 256;
  wo.seed = 9;
  tools::BlockWorkloadResult gen;
  Status s = tools::RunBlockWorkload(wo, &gen);
  ASSERT_TRUE(s.ok()) << s.ToString();

  std::mutex mu;
  std::vector<std::string> replayed;
  BlockManagerOpenOptions o = test::OpenOptions(roots, nullptr, StrategyChoice::kInMemory);
  o.threads_per_dir = 1;
  o.progress_every = 0;
  o.strategy_factory = [&mu, &replayed](ReplayStrategyKind kind) {
    return std::unique_ptr<MetadataReplayStrategy>(
        new NamingStrategy(NewReplayStrategy(kind, ReplayStrategyOptions()), &mu, &replayed));
  };
  OpenResult ref, r;
  OpenBlockManager(test::OpenOptions(roots, nullptr, StrategyChoice::kInMemory), &ref);
  ASSERT_TRUE(ref.ok()) << ref.status.ToString();
  OpenBlockManager(o, &r);
  ASSERT_EQ(test::DescribeOpen(ref), test::DescribeOpen(r));
  ASSERT_EQ(wo.container_blocks.size(), replayed.size());

  std::vector<uint64_t> sizes;
  for (const std::string& name : replayed) {
    uint64_t size = 0;
    ASSERT_TRUE(env::GetFileSize(name, &size).ok()) << name;
    sizes.push_back(size);
  }
  const std::string order = ::testing::PrintToString(sizes);
  for (size_t k = 0; k < 4; k++) EXPECT_GE(sizes[k], 1u << 20) << order;
  for (size_t k = 1; k < 4; k++) EXPECT_GT(sizes[k - 1], sizes[k]) << order;
  for (size_t k = 4; k < sizes.size(); k++) EXPECT_LT(sizes[k], 64u << 10) << order;
  EXPECT_TRUE(std::is_sorted(replayed.begin() + 4, replayed.end())) << order;
  // The small ones are not in size order, so name order is not size order
  // by chance.
  EXPECT_FALSE(std::is_sorted(sizes.begin() + 4, sizes.end(), std::greater<uint64_t>())) << order;

  // Eight threads take the four large files at once, under a budget
  // smaller than the largest (2.2 MiB): that one replays with bounded
  // memory (the policy plans it so, and the budget would not grant it),
  // the others in memory as the budget lets them. The same answer, and
  // never more buffer bytes granted than the budget.
  BlockManagerOpenOptions tight = test::OpenOptions(roots, nullptr, StrategyChoice::kAuto);
  tight.threads_per_dir = 8;
  tight.progress_every = 0;
  tight.policy.memory_budget_bytes = 2 << 20;
  tight.policy.budget_wait_ms = 5;
  OpenResult t;
  OpenBlockManager(tight, &t);
  ASSERT_EQ(test::DescribeOpen(ref), test::DescribeOpen(t));
  EXPECT_LE(t.replay.peak_buffer_bytes, 2u << 20);
  EXPECT_LT(t.replay.containers_by_strategy[static_cast<int>(ReplayStrategyKind::kInMemory)],
            wo.container_blocks.size());
}

// Streaming never probes the cache: nothing says the open is warm, so the
// gate opens after the first container.
TEST_F(ReplayThreadsTest, AnOpenWithoutCacheProbesRunsEveryThread) {
  OpenResult warmup, r;
  OpenBlockManager(Options(StrategyChoice::kStreaming, 8), &warmup);
  OpenBlockManager(Options(StrategyChoice::kStreaming, 8), &r);
  ASSERT_EQ(reference_, test::DescribeOpen(r));
  EXPECT_EQ(0u, r.replay.cache_probe_hits);
  EXPECT_EQ(0u, r.replay.replay_threads_held_back);
}

}  // namespace
}  // namespace fs
}  // namespace kudu
