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
#include "kudu/fs/open_progress.h"

#include <glog/logging.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace kudu {
namespace fs {

namespace {

std::string Bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    u++;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return buf;
}

std::string Seconds(double s) {
  char buf[32];
  if (s < 60) {
    std::snprintf(buf, sizeof(buf), "%.1f s", s);
  } else {
    std::snprintf(buf, sizeof(buf), "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  }
  return buf;
}

}  // namespace

OpenProgress::OpenProgress(uint64_t total, uint64_t every, const ReplayStats* stats)
    : total_(total), every_(every), stats_(stats), start_(std::chrono::steady_clock::now()) {}

void OpenProgress::ContainerDone() {
  const uint64_t n = done_.fetch_add(1, std::memory_order_relaxed) + 1;
  if (every_ > 0 && n % every_ == 0) {
    std::lock_guard<std::mutex> l(mu_);
    cv_.notify_one();
  }
}

void OpenProgress::ThreadDone(size_t threads) {
  std::lock_guard<std::mutex> l(mu_);
  finished_threads_ += threads;
  cv_.notify_one();
}

std::string OpenProgress::Line(uint64_t done, uint64_t total, uint64_t bytes, double elapsed_s) {
  const double pct = total > 0 ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100;
  std::string line = "Opened " + std::to_string(done) + " log block containers (of " +
                     std::to_string(total) + ", " + std::to_string(static_cast<int>(pct)) +
                     "%): " + Bytes(static_cast<double>(bytes)) + " of metadata read";
  if (elapsed_s > 0) {
    line += " at " + Bytes(static_cast<double>(bytes) / elapsed_s) + "/s";
  }
  line += ", " + Seconds(elapsed_s) + " elapsed";
  if (done > 0 && done < total) {
    const double left = elapsed_s * static_cast<double>(total - done) / static_cast<double>(done);
    line += ", about " + Seconds(left) + " left";
  }
  return line;
}

void OpenProgress::Run(size_t threads) {
  if (every_ == 0) {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return finished_threads_ >= threads; });
    return;
  }
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  bool rewrote = false;
  uint64_t logged = 0;  // the last multiple of every_ written
  while (true) {
    bool finished;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [&] {
        return finished_threads_ >= threads ||
               done_.load(std::memory_order_relaxed) / every_ > logged / every_;
      });
      finished = finished_threads_ >= threads;
    }
    const uint64_t done = done_.load(std::memory_order_relaxed);
    // Every crossed multiple gets its line, in order; a burst shares one
    // rate (they were all seen at once).
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const uint64_t bytes = stats_->metadata_bytes_read.load(std::memory_order_relaxed);
    for (uint64_t n = (logged / every_ + 1) * every_; n <= done; n += every_) {
      const std::string line = Line(n, total_, bytes, elapsed);
      if (tty) {
        std::fprintf(stderr, "\r%s\033[K", line.c_str());
        std::fflush(stderr);
        rewrote = true;
      } else {
        LOG(INFO) << line;
      }
      logged = n;
    }
    if (finished) break;
  }
  if (rewrote) {
    std::fputc('\n', stderr);
    std::fflush(stderr);
  }
}

}  // namespace fs
}  // namespace kudu
