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

// 8 data dirs x 8 threads replay files whose sizes add up to 20x the memory
// budget, through one shared budget. The bytes held by in-memory buffers at
// once (measured independently of the budget's own bookkeeping) never exceed
// the budget, nothing deadlocks, and every container gives Streaming's
// result; so do threads that keep their buffers between containers. Runs
// under TSAN in CI.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "kudu/fs/container_replay_state.h"
#include "kudu/fs/container_replayer.h"
#include "kudu/fs/streaming_replay.h"
#include "kudu/fs/whole_file_read.h"
#include "kudu/util/byte_budget.h"
#include "kudu/util/file.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

constexpr int kDirs = 8;
constexpr int kThreadsPerDir = 8;
constexpr uint64_t kBudget = 256 * 1024;

// Turns a deadlock into a failure instead of a hung CI run: aborts unless
// Finished() is called within 120 s.
class DeadlockWatchdog {
 public:
  DeadlockWatchdog()
      : thread_([this] {
          for (int i = 0; i < 1200 && !done_.load(); i++) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
          }
          if (!done_.load()) {
            fprintf(stderr, "replay did not finish in 120 s: deadlock?\n");
            std::abort();
          }
        }) {}
  ~DeadlockWatchdog() { Finished(); }
  void Finished() {
    done_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// Wraps a real strategy and measures the bytes its buffer holds: the whole
// payload for the in-memory strategies, for the duration of Replay.
class MeasuringStrategy : public MetadataReplayStrategy {
 public:
  MeasuringStrategy(std::unique_ptr<MetadataReplayStrategy> inner, std::atomic<uint64_t>* in_flight,
                    std::atomic<uint64_t>* peak)
      : inner_(std::move(inner)), in_flight_(in_flight), peak_(peak) {}
  ReplayStrategyKind kind() const override { return inner_->kind(); }
  ReplayOutcome Replay(RandomAccessFile* file, BlockRecordSink* sink) override {
    const bool buffered = kind() == ReplayStrategyKind::kInMemory ||
                          kind() == ReplayStrategyKind::kEncryptedInMemory;
    const uint64_t bytes = buffered ? file->size() - file->encryption_header_size() : 0;
    uint64_t now = in_flight_->fetch_add(bytes) + bytes;
    uint64_t prev = peak_->load();
    while (now > prev && !peak_->compare_exchange_weak(prev, now)) {
    }
    // Hold the buffer a little so replays overlap and the budget runs dry.
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    ReplayOutcome out = inner_->Replay(file, sink);
    in_flight_->fetch_sub(bytes);
    return out;
  }

 private:
  std::unique_ptr<MetadataReplayStrategy> inner_;
  std::atomic<uint64_t>* in_flight_;
  std::atomic<uint64_t>* peak_;
};

TEST(ReplayConcurrencyTest, SharedBudgetIsNeverOversubscribedAndNeverDeadlocks) {
  test::TempDir dir;
  // Files from 2 KiB to beyond the whole budget, adding up to 20x the budget.
  std::vector<std::string> paths;
  std::vector<size_t> records_per_file;
  uint64_t total = 0;
  const ServerKey key = test::TestServerKey(16);
  for (int i = 0; total < 20 * kBudget; i++) {
    int n = (i % 13 == 0) ? 9000 : 60 + (i * 131) % 2500;  // some files exceed the budget
    test::MetadataFileOptions opts;
    if (i % 3 == 0) opts.server_key = &key;
    std::string path = dir.Join("f" + std::to_string(i) + ".metadata");
    ASSERT_TRUE(test::WriteMetadataFile(path, test::MakeRecordSequence(n), opts).ok());
    paths.push_back(path);
    records_per_file.push_back(n);
    total += test::FileSizeOrDie(path);
  }

  DeadlockWatchdog watchdog;

  ByteBudget budget(kBudget);
  ReplayStats stats;
  ReplayPolicyOptions opts;
  opts.memory_budget_bytes = kBudget;
  opts.in_memory_threshold_bytes = 64 << 20;
  opts.budget_wait_ms = 5;
  std::atomic<uint64_t> in_flight{0}, measured_peak{0};
  std::atomic<size_t> next{0};
  std::atomic<int> mismatches{0};

  std::vector<std::thread> threads;
  for (int t = 0; t < kDirs * kThreadsPerDir; t++) {
    threads.emplace_back([&] {
      ContainerReplayer replayer(opts, &budget, &stats, [&](ReplayStrategyKind k) {
        return std::unique_ptr<MetadataReplayStrategy>(new MeasuringStrategy(
            NewReplayStrategy(k, ReplayStrategyOptions()), &in_flight, &measured_peak));
      });
      for (size_t i = next.fetch_add(1); i < paths.size(); i = next.fetch_add(1)) {
        const bool encrypted = (i % 3 == 0);
        std::unique_ptr<RandomAccessFile> file;
        if (!RandomAccessFile::Open(paths[i], encrypted ? &key : nullptr, &file).ok()) {
          mismatches++;
          continue;
        }
        ContainerReplayState state(1ULL << 40, 0, 4096);
        ContainerReplayResult r = replayer.Replay(file.get(), &state);
        if (!r.outcome.clean() || r.outcome.records != records_per_file[i]) mismatches++;
      }
    });
  }
  for (auto& t : threads) t.join();
  watchdog.Finished();

  EXPECT_EQ(0, mismatches.load());
  EXPECT_LE(measured_peak.load(), kBudget);
  EXPECT_LE(budget.peak(), kBudget);
  EXPECT_GT(measured_peak.load(), 0u);
  EXPECT_EQ(0u, budget.held());
  EXPECT_EQ(0u, stats.fallbacks.load());
  // The budget was contended, and files above it took the bounded path.
  EXPECT_GT(stats.budget_waits.load(), 0u);
  EXPECT_GT(stats.containers(ReplayStrategyKind::kStreaming), 0u);
  EXPECT_GT(stats.containers(ReplayStrategyKind::kInMemory), 0u);
  EXPECT_GT(stats.containers(ReplayStrategyKind::kEncryptedInMemory), 0u);
  fprintf(stderr, "files=%zu total=%llu budget=%llu peak=%llu waits=%llu timeouts=%llu\n",
          paths.size(), static_cast<unsigned long long>(total),
          static_cast<unsigned long long>(kBudget),
          static_cast<unsigned long long>(measured_peak.load()),
          static_cast<unsigned long long>(stats.budget_waits.load()),
          static_cast<unsigned long long>(stats.budget_wait_timeouts.load()));
}

// Replay threads that keep their whole-file buffers between containers
// (files of 4 MiB and more, read by each thread larger and smaller in
// turn, so kept buffers are reused, trimmed, grown and replaced) through a
// budget that holds only two of them: the kept buffers stay within the
// budget, no thread waits for budget its own buffer holds (a deadlock the
// watchdog would catch), every replay is whole, and nothing is held once
// the threads have given their buffers back.
TEST(ReplayConcurrencyTest, KeptBuffersStayWithinTheBudgetAndNeverDeadlock) {
  test::TempDir dir;
  std::vector<std::string> paths;
  std::vector<size_t> records_per_file;
  uint64_t largest = 0;
  for (int n : {125000, 160000, 130000, 145000}) {
    std::string path = dir.Join("f" + std::to_string(paths.size()) + ".metadata");
    ASSERT_TRUE(test::WriteMetadataFile(path, test::MakeRecordSequence(n)).ok());
    ASSERT_GE(test::FileSizeOrDie(path), kReleasedReadBufferBytes);
    paths.push_back(path);
    records_per_file.push_back(static_cast<size_t>(n));
    largest = std::max(largest, RandomAccessFile::DirectReadCapacity(test::FileSizeOrDie(path)));
  }
  DeadlockWatchdog watchdog;

  const uint64_t total = 2 * largest;
  ByteBudget budget(total);
  ReplayStats stats;
  ReplayPolicyOptions opts;
  opts.memory_budget_bytes = total;
  opts.budget_wait_ms = 5;
  constexpr int kThreads = 3, kPasses = 2;
  std::atomic<size_t> next{0};
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&] {
      ContainerReplayer replayer(opts, &budget, &stats);
      for (size_t i = next.fetch_add(1); i < kPasses * paths.size(); i = next.fetch_add(1)) {
        const size_t f = i % paths.size();
        std::unique_ptr<RandomAccessFile> file;
        if (!RandomAccessFile::Open(paths[f], nullptr, &file).ok()) {
          mismatches++;
          continue;
        }
        ContainerReplayState state(1ULL << 40, 0, 4096);
        ContainerReplayResult r = replayer.Replay(file.get(), &state);
        if (!r.outcome.clean() || r.outcome.records != records_per_file[f]) mismatches++;
      }
      replayer.ReleaseKeptBuffer();
    });
  }
  for (auto& t : threads) t.join();
  watchdog.Finished();

  EXPECT_EQ(0, mismatches.load());
  EXPECT_LE(budget.peak(), total);
  EXPECT_EQ(0u, budget.held());
  EXPECT_EQ(0u, stats.fallbacks.load());
  EXPECT_GT(stats.containers(ReplayStrategyKind::kInMemory), 0u);
}

TEST(ByteBudgetTest, RefusesMoreThanTheWholeBudgetWithoutWaiting) {
  ByteBudget b(100);
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(b.AcquireFor(101, std::chrono::milliseconds(5000)));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_TRUE(b.TryAcquire(100));
  EXPECT_FALSE(b.TryAcquire(1));
  EXPECT_FALSE(b.AcquireFor(1, std::chrono::milliseconds(10)));
  b.Release(100);
  EXPECT_EQ(100u, b.peak());
  EXPECT_EQ(0u, b.held());
}

TEST(ByteBudgetTest, WaiterIsWokenByRelease) {
  ByteBudget b(100);
  ASSERT_TRUE(b.TryAcquire(80));
  std::atomic<bool> released{false};
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    released = true;
    b.Release(80);
  });
  EXPECT_TRUE(b.AcquireFor(50, std::chrono::seconds(10)));
  // 50 of the 100 bytes were only free once the 80 were given back.
  EXPECT_TRUE(released.load());
  releaser.join();
  EXPECT_EQ(50u, b.held());
  {
    ByteBudgetGrant g(&b, 0);
  }
  ByteBudgetGrant g(&b, 50);
  g.Reset();
  EXPECT_EQ(0u, b.held());
}

// A grant grows only with bytes free at once, and shrinks giving back the
// difference.
TEST(ByteBudgetTest, AGrantGrowsWithoutWaitingAndShrinks) {
  ByteBudget b(100);
  ASSERT_TRUE(b.TryAcquire(30));
  ByteBudgetGrant g(&b, 30);
  EXPECT_TRUE(g.TryGrowTo(60));
  EXPECT_EQ(60u, g.bytes());
  EXPECT_EQ(60u, b.held());
  ASSERT_TRUE(b.TryAcquire(30));
  ByteBudgetGrant held_elsewhere(&b, 30);
  EXPECT_FALSE(g.TryGrowTo(80)) << "only 10 bytes are free";
  EXPECT_EQ(60u, g.bytes());
  EXPECT_TRUE(g.TryGrowTo(40)) << "already covered";
  g.ShrinkTo(20);
  EXPECT_EQ(20u, g.bytes());
  EXPECT_EQ(50u, b.held());
  g.ShrinkTo(25);
  EXPECT_EQ(20u, g.bytes()) << "shrinking never grows";
  g.Reset();
  held_elsewhere.Reset();
  EXPECT_EQ(0u, b.held());
}

}  // namespace
}  // namespace fs
}  // namespace kudu
