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

#include "kudu/util/thread_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace kudu {
namespace {

TEST(ThreadPoolTest, RunsEveryTaskAndWaitSeesThemAll) {
  ThreadPool pool("test", 4);
  EXPECT_EQ(4, pool.num_threads());
  std::atomic<int> done{0};
  for (int i = 0; i < 1000; i++) pool.Submit([&] { done.fetch_add(1); });
  pool.Wait();
  EXPECT_EQ(1000, done.load());
  // Reusable after Wait().
  for (int i = 0; i < 10; i++) pool.Submit([&] { done.fetch_add(1); });
  pool.Wait();
  EXPECT_EQ(1010, done.load());
}

TEST(ThreadPoolTest, UsesSeveralThreadsAtOnce) {
  ThreadPool pool("test", 3);
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::atomic<int> running{0}, max_running{0};
  for (int i = 0; i < 3; i++) {
    pool.Submit([&] {
      int now = running.fetch_add(1) + 1;
      int m = max_running.load();
      while (now > m && !max_running.compare_exchange_weak(m, now)) {
      }
      // Hold the thread until all three have started (or a generous timeout).
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (running.load() < 3 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
      std::lock_guard<std::mutex> l(mu);
      ids.insert(std::this_thread::get_id());
    });
  }
  pool.Wait();
  EXPECT_EQ(3u, ids.size());
  EXPECT_EQ(3, max_running.load());
}

TEST(ThreadPoolTest, ParallelForCallsEveryIndexOnce) {
  for (size_t n : {0, 1, 2, 7, 100}) {
    for (int threads : {0, 1, 2, 8}) {
      SCOPED_TRACE(std::to_string(n) + " items, " + std::to_string(threads) + " threads");
      std::vector<std::atomic<int>> calls(n);
      std::mutex mu;
      std::set<std::thread::id> ids;
      ParallelFor("test", n, threads, [&](size_t i) {
        calls[i].fetch_add(1);
        std::lock_guard<std::mutex> l(mu);
        ids.insert(std::this_thread::get_id());
      });
      for (size_t i = 0; i < n; i++) EXPECT_EQ(1, calls[i].load()) << i;
      // One item or one thread: the caller's own, no thread started.
      if (n == 1 || threads <= 1) {
        EXPECT_TRUE(n == 0 || (ids.size() == 1 && *ids.begin() == std::this_thread::get_id()));
      } else {
        EXPECT_EQ(0u, ids.count(std::this_thread::get_id()));
        EXPECT_LE(ids.size(), std::min<size_t>(n, static_cast<size_t>(threads)));
      }
    }
  }
}

TEST(ThreadPoolTest, DestructorDrainsTheQueue) {
  std::atomic<int> done{0};
  {
    ThreadPool pool("test", 2);
    for (int i = 0; i < 100; i++) {
      pool.Submit([&] {
        std::this_thread::sleep_for(std::chrono::microseconds(10));
        done.fetch_add(1);
      });
    }
  }
  EXPECT_EQ(100, done.load());
}

TEST(ThreadPoolTest, ZeroThreadsMeansOne) {
  ThreadPool pool("test", 0);
  EXPECT_EQ(1, pool.num_threads());
  int x = 0;
  pool.Submit([&] { x = 42; });
  pool.Wait();
  EXPECT_EQ(42, x);
}

TEST(ThreadPoolTest, WaitWithNothingSubmittedReturns) {
  ThreadPool pool("test", 2);
  pool.Wait();
}

}  // namespace
}  // namespace kudu
