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

// The Windowed strategy behind the orchestrator: a record larger than the
// window ends a Windowed replay in the documented non-clean outcome, which
// ContainerReplayer turns into Streaming's result, while a healthy large file
// the policy routes to Windowed replays without a fallback, holding exactly
// the window in the budget.
#include "kudu/fs/windowed_replay.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kudu/fs/container_replay_state.h"
#include "kudu/fs/container_replayer.h"
#include "kudu/fs/replay_policy.h"
#include "kudu/fs/replay_stats.h"
#include "kudu/fs/streaming_replay.h"
#include "kudu/util/byte_budget.h"
#include "kudu/util/file.h"
#include "util/live_block_entries.h"
#include "util/replay_test_util.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

TEST(WindowedReplayLargeRecordTest, EndsNonCleanlyAndFallsBackToStreaming) {
  TempDir dir;
  const ServerKey key = TestServerKey(16);
  for (bool enc : {false, true}) {
    MetadataFileOptions opts;
    if (enc) opts.server_key = &key;
    const ServerKey* k = enc ? &key : nullptr;
    const std::string path = dir.Join(enc ? "e" : "p");
    // A valid record of ~200 KiB: a CREATE with a large unknown field.
    std::vector<BlockRecordPB> records = MakeRecordSequence(41);
    records[20].mutable_unknown_fields()->AddLengthDelimited(1000, std::string(200 * 1024, 'x'));
    ASSERT_TRUE(WriteMetadataFile(path, records, opts).ok());

    StrategyRun ref = RunStrategy(fs::ReplayStrategyKind::kStreaming, path, k);
    ASSERT_TRUE(ref.outcome.clean()) << ref.outcome.ToString();
    ASSERT_EQ(41u, ref.records.size());

    // Windowed alone: the records before it, then an IOError at its offset.
    StrategyRun run = RunStrategy(fs::ReplayStrategyKind::kWindowed, path, k, 64 * 1024);
    EXPECT_EQ(fs::ReplayOutcome::Kind::kIOError, run.outcome.kind) << run.outcome.ToString();
    EXPECT_EQ(ref.records[20].offset, run.outcome.offset);
    EXPECT_EQ(20u, run.records.size());
    EXPECT_NE(std::string::npos,
              run.outcome.status.ToString().find("larger than the replay window"))
        << run.outcome.status.ToString();
    // A window it fits in reads it.
    EXPECT_EQ("", CompareWithStreaming(path, k, 256 * 1024));

    // Through the orchestrator: Windowed is chosen, falls back, and the
    // container state is Streaming's.
    fs::ReplayPolicyOptions popts;
    popts.in_memory_threshold_bytes = 1024;  // the file is above it
    popts.memory_budget_bytes = 1 * kMiB;
    popts.window_bytes = 64 * 1024;
    ByteBudget budget(popts.memory_budget_bytes);
    fs::ReplayStats stats;
    fs::ContainerReplayer replayer(popts, &budget, &stats);
    std::unique_ptr<RandomAccessFile> file;
    ASSERT_TRUE(RandomAccessFile::Open(path, k, &file).ok());
    const uint64_t data_start = enc ? kEncryptionHeaderSize : 0;
    fs::ContainerReplayState state(1ULL << 40, data_start, 4096);
    fs::ContainerReplayResult result = replayer.Replay(file.get(), &state);
    EXPECT_EQ(fs::ReplayStrategyKind::kWindowed, result.chosen);
    EXPECT_TRUE(result.fell_back);
    EXPECT_EQ(64u * 1024, result.budget_bytes);
    EXPECT_TRUE(result.outcome.SameAs(ref.outcome)) << result.outcome.ToString();
    EXPECT_EQ(1u, stats.fallbacks.load());
    EXPECT_EQ(64u * 1024, budget.peak());
    EXPECT_EQ(0u, budget.held());

    fs::ContainerReplayState reference(1ULL << 40, data_start, 4096);
    std::unique_ptr<RandomAccessFile> file2;
    ASSERT_TRUE(RandomAccessFile::Open(path, k, &file2).ok());
    fs::StreamingReplay streaming;
    ASSERT_TRUE(streaming.Replay(file2.get(), &reference).clean());
    EXPECT_EQ(test::SortedEntriesOf(reference.live_blocks()), test::SortedEntriesOf(state.live_blocks()));
    EXPECT_EQ(reference.live_bytes(), state.live_bytes());
    EXPECT_EQ(reference.total_blocks(), state.total_blocks());
    EXPECT_EQ(reference.max_block_id(), state.max_block_id());
    EXPECT_EQ(reference.next_write_offset(), state.next_write_offset());
    EXPECT_EQ(reference.records_applied(), state.records_applied());
  }
}

// A healthy large file routed to Windowed by the policy: no fallback, and the
// budget holds exactly the window.
TEST(WindowedReplayLargeRecordTest, PolicyRoutesLargeFilesToWindowed) {
  TempDir dir;
  const std::string path = dir.Join("c.metadata");
  ASSERT_TRUE(WriteMetadataFile(path, MakeRecordSequence(20000)).ok());
  fs::ReplayPolicyOptions popts;
  popts.in_memory_threshold_bytes = 64 * 1024;
  popts.memory_budget_bytes = 1 * kMiB;
  popts.window_bytes = 128 * 1024;
  ByteBudget budget(popts.memory_budget_bytes);
  fs::ReplayStats stats;
  fs::ContainerReplayer replayer(popts, &budget, &stats);
  std::unique_ptr<RandomAccessFile> file;
  ASSERT_TRUE(RandomAccessFile::Open(path, nullptr, &file).ok());
  fs::ContainerReplayState state(1ULL << 40, 0, 4096);
  fs::ContainerReplayResult result = replayer.Replay(file.get(), &state);
  EXPECT_EQ(fs::ReplayStrategyKind::kWindowed, result.chosen);
  EXPECT_FALSE(result.fell_back);
  EXPECT_TRUE(result.outcome.clean());
  EXPECT_EQ(20000u, result.outcome.records);
  EXPECT_EQ(128u * 1024, budget.peak());
  EXPECT_EQ(1u, stats.containers(fs::ReplayStrategyKind::kWindowed));
}

}  // namespace
}  // namespace test
}  // namespace kudu
