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

// Counters of one block manager open's metadata replay. ReplayStats is
// shared by every replay thread (relaxed atomics: they are read once the
// threads are done); ReplayCounters is the same set as plain numbers, what
// a snapshot of it holds and what sums of opens add up. The counters are
// listed once, below, so the two types and the copy between them cannot
// drift apart.
#pragma once

#include <atomic>
#include <cstdint>

#include "kudu/fs/metadata_replay_strategy.h"

namespace kudu {
namespace fs {

// Every counter but the per-strategy container counts, each once:
//   fallbacks               accelerated replays that did not end cleanly
//                           and were redone with Streaming
//   metadata_read_syscalls, metadata_bytes_read
//                           read system calls and bytes on metadata files
//                           (the file layer's counts)
//   records                 valid records of each container's final
//                           replay: an attempt that fell back is discarded
//                           with its records (its reads are counted)
//   budget_waits, budget_wait_timeouts
//                           containers that waited for memory budget, and
//                           waits that timed out
//   readahead_files, readahead_bytes
//                           metadata files read ahead (metadata_readahead.h)
//                           and the bytes advised (as the listing gave them)
//   readahead_failed        read-aheads that failed (the replay then reads
//                           the file itself)
//   direct_reads            metadata reads past the page cache
//   cache_probe_hits, cache_probe_misses
//                           whole-file reads and Windowed's first reads
//                           through the page cache that found every byte
//                           cached, and those that did not
//   replay_threads_held_back
//                           replay threads that never ran: the page cache
//                           looked warm until every container was claimed
//                           (ReplayThreadGate)
#define KUDU_REPLAY_COUNTERS(X) \
  X(fallbacks)                  \
  X(metadata_read_syscalls)     \
  X(metadata_bytes_read)        \
  X(records)                    \
  X(budget_waits)               \
  X(budget_wait_timeouts)       \
  X(readahead_files)            \
  X(readahead_bytes)            \
  X(readahead_failed)           \
  X(direct_reads)               \
  X(cache_probe_hits)           \
  X(cache_probe_misses)         \
  X(replay_threads_held_back)

struct ReplayCounters {
  static constexpr int kKinds = static_cast<int>(ReplayStrategyKind::kNumKinds);

  // Containers by the strategy the policy chose first.
  uint64_t containers_by_strategy[kKinds] = {};
#define KUDU_REPLAY_COUNTER_FIELD(name) uint64_t name = 0;
  KUDU_REPLAY_COUNTERS(KUDU_REPLAY_COUNTER_FIELD)
#undef KUDU_REPLAY_COUNTER_FIELD

  ReplayCounters& operator+=(const ReplayCounters& o) {
    for (int k = 0; k < kKinds; k++) containers_by_strategy[k] += o.containers_by_strategy[k];
#define KUDU_REPLAY_COUNTER_ADD(name) name += o.name;
    KUDU_REPLAY_COUNTERS(KUDU_REPLAY_COUNTER_ADD)
#undef KUDU_REPLAY_COUNTER_ADD
    return *this;
  }
};

struct ReplayStats {
  static constexpr int kKinds = ReplayCounters::kKinds;

  std::atomic<uint64_t> containers_by_strategy[kKinds] = {};
#define KUDU_REPLAY_COUNTER_ATOMIC(name) std::atomic<uint64_t> name{0};
  KUDU_REPLAY_COUNTERS(KUDU_REPLAY_COUNTER_ATOMIC)
#undef KUDU_REPLAY_COUNTER_ATOMIC

  void Add(std::atomic<uint64_t>& c, uint64_t n) { c.fetch_add(n, std::memory_order_relaxed); }
  uint64_t containers(ReplayStrategyKind k) const {
    return containers_by_strategy[static_cast<int>(k)].load();
  }

  // Every counter as it is now.
  ReplayCounters Snapshot() const {
    ReplayCounters c;
    for (int k = 0; k < kKinds; k++) {
      c.containers_by_strategy[k] = containers_by_strategy[k].load(std::memory_order_relaxed);
    }
#define KUDU_REPLAY_COUNTER_LOAD(name) c.name = name.load(std::memory_order_relaxed);
    KUDU_REPLAY_COUNTERS(KUDU_REPLAY_COUNTER_LOAD)
#undef KUDU_REPLAY_COUNTER_LOAD
    return c;
  }
};

}  // namespace fs
}  // namespace kudu
