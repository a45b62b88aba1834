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

// The replay counters are listed once: a snapshot holds every counter the
// shared stats hold, and sums add every one of them.
#include "kudu/fs/replay_stats.h"

#include <gtest/gtest.h>

namespace kudu {
namespace fs {
namespace {

TEST(ReplayStatsTest, SnapshotAndSumCoverEveryCounter) {
  ReplayStats stats;
  uint64_t n = 1;
  for (int k = 0; k < ReplayStats::kKinds; k++) stats.Add(stats.containers_by_strategy[k], n++);
#define SET(name) stats.Add(stats.name, n++);
  KUDU_REPLAY_COUNTERS(SET)
#undef SET
  const ReplayCounters snap = stats.Snapshot();
  ReplayCounters sum = snap;
  sum += snap;
  n = 1;
  for (int k = 0; k < ReplayStats::kKinds; k++, n++) {
    EXPECT_EQ(n, snap.containers_by_strategy[k]);
    EXPECT_EQ(2 * n, sum.containers_by_strategy[k]);
  }
#define CHECK_ONE(name)              \
  EXPECT_EQ(n, snap.name) << #name;  \
  EXPECT_EQ(2 * n, sum.name) << #name; \
  n++;
  KUDU_REPLAY_COUNTERS(CHECK_ONE)
#undef CHECK_ONE
  // The fields the report and the bench read by name.
  EXPECT_EQ(stats.metadata_read_syscalls.load(), snap.metadata_read_syscalls);
  EXPECT_EQ(stats.direct_reads.load(), snap.direct_reads);
}

}  // namespace
}  // namespace fs
}  // namespace kudu
