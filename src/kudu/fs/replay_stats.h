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

// Counters of one block manager open's metadata replay, shared by every
// replay thread (relaxed atomics: they are read once the threads are done).
#pragma once

#include <atomic>
#include <cstdint>

#include "kudu/fs/metadata_replay_strategy.h"

namespace kudu {

struct ReplayStats {
  static constexpr int kKinds = static_cast<int>(ReplayStrategyKind::kNumKinds);

  // Containers by the strategy the policy chose first.
  std::atomic<uint64_t> containers_by_strategy[kKinds] = {};
  // Accelerated replays that did not end cleanly and were redone with Streaming.
  std::atomic<uint64_t> fallbacks{0};
  // Read system calls and bytes on metadata files (the file layer's counts).
  std::atomic<uint64_t> metadata_read_syscalls{0};
  std::atomic<uint64_t> metadata_bytes_read{0};
  // Valid records delivered, the fallback's replays included.
  std::atomic<uint64_t> records{0};
  // Containers that waited for memory budget, and waits that timed out.
  std::atomic<uint64_t> budget_waits{0};
  std::atomic<uint64_t> budget_wait_timeouts{0};
  // Read-ahead (fs/metadata_readahead.h): metadata files read ahead, and
  // their bytes; read-aheads skipped because the budget was short (uring),
  // or that failed (the replay then reads the file itself); replay reads
  // served from read-ahead memory (no system call).
  std::atomic<uint64_t> readahead_files{0};
  std::atomic<uint64_t> readahead_bytes{0};
  std::atomic<uint64_t> readahead_skipped{0};
  std::atomic<uint64_t> readahead_failed{0};
  std::atomic<uint64_t> prefetched_reads{0};
  std::atomic<uint64_t> direct_reads{0};  // metadata reads past the page cache

  void Add(std::atomic<uint64_t>& c, uint64_t n) { c.fetch_add(n, std::memory_order_relaxed); }
  uint64_t containers(ReplayStrategyKind k) const {
    return containers_by_strategy[static_cast<int>(k)].load();
  }
};

}  // namespace kudu
