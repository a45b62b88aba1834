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

// A small fixed-size thread pool: N worker threads started at construction
// that run submitted tasks in submission order. The block manager open gives
// each data dir its own pool (--fs_max_thread_count_per_data_dir), as Kudu
// does, so a slow disk only occupies its own threads.
//
// Tasks must not throw. Wait() returns once every task submitted so far has
// finished; the pool can be reused afterwards. The destructor waits for the
// queue to drain and joins the threads.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kudu {

class ThreadPool {
 public:
  // `num_threads` < 1 is treated as 1.
  ThreadPool(std::string name, int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Submit(std::function<void()> task);
  // Blocks until the queue is empty and no task is running.
  void Wait();

  int num_threads() const { return static_cast<int>(threads_.size()); }
  const std::string& name() const { return name_; }

 private:
  void WorkerLoop();

  const std::string name_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable work_available_;  // a task was queued, or shutdown
  std::condition_variable idle_;            // pending_ reached zero
  std::deque<std::function<void()>> queue_;
  size_t pending_ = 0;  // queued + running
  bool shutdown_ = false;
};

// Calls fn(i) for every i in [0, n), on up to `threads` threads of a pool
// named `name` (on this thread alone when n or threads is at most 1), and
// returns once every call has.
void ParallelFor(const std::string& name, size_t n, int threads,
                 const std::function<void(size_t)>& fn);

}  // namespace kudu
