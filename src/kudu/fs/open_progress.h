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
// Progress of a long open, as an operator reads it. A server with thousands
// of containers takes minutes to open; Kudu logs "Opened N log block
// containers" as it goes. Here every line also says the total, the share
// done, the metadata read and its rate, and the time left at that rate.
//
// Replay threads only count; the open's own thread writes every line, so
// the lines come after the open's first line and in order, and the replay
// threads never wait on a log write (after a reboot glog's first timestamp
// can cost a disk read). On a terminal the line is rewritten in place
// instead of scrolling.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

#include "kudu/fs/replay_stats.h"

namespace kudu {
namespace fs {

class OpenProgress {
 public:
  // A line each `every` containers of `total` (0: none); bytes read come
  // from `stats`.
  OpenProgress(uint64_t total, uint64_t every, const ReplayStats* stats);

  // Replay threads: one more container done; this thread (or `threads`
  // threads that never started) has finished.
  void ContainerDone();
  void ThreadDone(size_t threads = 1);

  // The open's thread: writes the lines until `threads` replay threads have
  // called ThreadDone.
  void Run(size_t threads);

  // The line for `done` containers after `elapsed_s` with `bytes` read.
  static std::string Line(uint64_t done, uint64_t total, uint64_t bytes, double elapsed_s);

 private:
  const uint64_t total_;
  const uint64_t every_;
  const ReplayStats* const stats_;
  const std::chrono::steady_clock::time_point start_;
  std::atomic<uint64_t> done_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  size_t finished_threads_ = 0;  // under mu_
};

}  // namespace fs
}  // namespace kudu
