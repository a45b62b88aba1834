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

#include <pthread.h>

#include <algorithm>

namespace kudu {

ThreadPool::ThreadPool(std::string name, int num_threads) : name_(std::move(name)) {
  if (num_threads < 1) num_threads = 1;
  threads_.reserve(num_threads);
  for (int i = 0; i < num_threads; i++) {
    threads_.emplace_back([this] { WorkerLoop(); });
    // Named threads make `top -H` and gdb readable; Linux caps names at 15 chars.
    std::string tname = name_.substr(0, 15);
    pthread_setname_np(threads_.back().native_handle(), tname.c_str());
  }
}

ThreadPool::~ThreadPool() {
  {
    std::unique_lock<std::mutex> l(mu_);
    idle_.wait(l, [this] { return pending_ == 0; });
    shutdown_ = true;
  }
  work_available_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadPool::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> l(mu_);
    queue_.push_back(std::move(task));
    pending_++;
  }
  work_available_.notify_one();
}

void ThreadPool::Wait() {
  std::unique_lock<std::mutex> l(mu_);
  idle_.wait(l, [this] { return pending_ == 0; });
}

void ThreadPool::WorkerLoop() {
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> l(mu_);
      work_available_.wait(l, [this] { return shutdown_ || !queue_.empty(); });
      if (queue_.empty()) return;  // shutdown with nothing left
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
    // Destroy the task's captures before announcing it finished, so Wait()
    // callers see their resources released.
    task = nullptr;
    {
      std::lock_guard<std::mutex> l(mu_);
      if (--pending_ == 0) idle_.notify_all();
    }
  }
}

void ParallelFor(const std::string& name, size_t n, int threads,
                 const std::function<void(size_t)>& fn) {
  if (n <= 1 || threads <= 1) {
    for (size_t i = 0; i < n; i++) fn(i);
    return;
  }
  ThreadPool pool(name, static_cast<int>(std::min<size_t>(n, static_cast<size_t>(threads))));
  for (size_t i = 0; i < n; i++) pool.Submit([&fn, i] { fn(i); });
  pool.Wait();
}

}  // namespace kudu
