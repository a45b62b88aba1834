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

// upstream2026 (src/kudu/tools/upstream2026_replay.h), the bench's
// emulation of upstream Kudu's in-memory replay: it must give exactly
// Streaming's records and outcome on every file it is given (clean, torn
// tails, zero tails, damage; plain and encrypted), read a file under the
// threshold with one read, stream one above it, and, inside an open, find
// Streaming's live set and report on generated dirs.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kudu/fs/block_manager_open.h"
#include "kudu/tools/block_workload.h"
#include "kudu/tools/upstream2026_replay.h"
#include "kudu/util/file.h"
#include "util/fs_fixture_util.h"
#include "util/replay_test_util.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

using tools::Upstream2026Replay;
using tools::Upstream2026StrategyFactory;

StrategyRun RunUpstream(const std::string& path, const ServerKey* key,
                        uint64_t threshold = 64ULL << 20) {
  StrategyRun run;
  std::unique_ptr<RandomAccessFile> file;
  Status s = RandomAccessFile::Open(path, key, &file);
  if (!s.ok()) {
    run.outcome.kind = fs::ReplayOutcome::Kind::kIOError;
    run.outcome.status = s;
    return run;
  }
  Upstream2026Replay strategy(threshold);
  CapturingSink sink;
  run.outcome = strategy.Replay(file.get(), &sink);
  run.records = std::move(sink.entries);
  run.read_syscalls = file->stats().read_syscalls;
  return run;
}

// "" when upstream2026 gives Streaming's outcome and records on `path`.
std::string DiffFromStreaming(const std::string& path, const ServerKey* key) {
  const StrategyRun ref = RunStrategy(fs::ReplayStrategyKind::kStreaming, path, key);
  const StrategyRun up = RunUpstream(path, key);
  if (!up.outcome.SameAs(ref.outcome)) {
    return "outcome '" + up.outcome.ToString() + "', streaming's '" + ref.outcome.ToString() + "'";
  }
  if (up.records != ref.records) {
    return std::to_string(up.records.size()) + " records, streaming " +
           std::to_string(ref.records.size()) + " (or different bytes or offsets)";
  }
  return "";
}

struct Variant {
  uint32_t version;
  size_t key_bytes;  // 0: plain
};

class Upstream2026ReplayTest : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    if (GetParam().key_bytes) key_ = TestServerKey(GetParam().key_bytes);
    opts_.version = GetParam().version;
    opts_.server_key = GetParam().key_bytes ? &key_ : nullptr;
    path_ = dir_.Join("c.metadata");
    ASSERT_TRUE(WriteMetadataFile(path_, MakeRecordSequence(40), opts_).ok());
    ASSERT_TRUE(ReadFileToString(path_, &pristine_).ok());
  }
  const ServerKey* key() const { return opts_.server_key; }
  void Restore() { ASSERT_TRUE(WriteStringToFile(path_, pristine_).ok()); }

  TempDir dir_;
  ServerKey key_;
  MetadataFileOptions opts_;
  std::string path_;
  std::string pristine_;
};

TEST_P(Upstream2026ReplayTest, CleanFileIsStreamingsWithOneRead) {
  const StrategyRun up = RunUpstream(path_, key());
  ASSERT_TRUE(up.outcome.clean()) << up.outcome.ToString();
  EXPECT_EQ(40u, up.records.size());
  EXPECT_EQ("", DiffFromStreaming(path_, key()));
  // The payload with one read, after the encryption header's own.
  EXPECT_EQ(key() ? 2u : 1u, up.read_syscalls);
}

TEST_P(Upstream2026ReplayTest, AboveTheThresholdStreams) {
  const StrategyRun ref = RunStrategy(fs::ReplayStrategyKind::kStreaming, path_, key());
  const StrategyRun up = RunUpstream(path_, key(), /*threshold=*/64);
  EXPECT_TRUE(up.outcome.SameAs(ref.outcome));
  EXPECT_EQ(ref.records, up.records);
  EXPECT_EQ(ref.read_syscalls, up.read_syscalls);
  const StrategyRun off = RunUpstream(path_, key(), /*threshold=*/0);
  EXPECT_EQ(ref.read_syscalls, off.read_syscalls);
}

TEST_P(Upstream2026ReplayTest, TornTailsAreStreamings) {
  const uint64_t size = pristine_.size();
  for (uint64_t cut = 0; cut < size; cut++) {
    ASSERT_TRUE(TruncateFileTo(path_, cut).ok());
    ASSERT_EQ("", DiffFromStreaming(path_, key())) << "truncated to " << cut;
    Restore();
  }
}

TEST_P(Upstream2026ReplayTest, ZeroTailsAndDamageAreStreamings) {
  const uint64_t size = pristine_.size();
  const uint64_t start = key() ? kEncryptionHeaderSize : 0;
  for (uint64_t at = start; at < size; at += 7) {
    ASSERT_TRUE(ZeroFillFrom(path_, at).ok());
    ASSERT_EQ("", DiffFromStreaming(path_, key())) << "zero-filled from " << at;
    Restore();
    ASSERT_TRUE(FlipByte(path_, at).ok());
    ASSERT_EQ("", DiffFromStreaming(path_, key())) << "byte flipped at " << at;
    Restore();
  }
  for (uint64_t n : {1, 3, 8, 13, 100}) {
    ASSERT_TRUE(AppendZeros(path_, n).ok());
    ASSERT_EQ("", DiffFromStreaming(path_, key())) << n << " zeros appended";
    Restore();
  }
}

INSTANTIATE_TEST_SUITE_P(Files, Upstream2026ReplayTest,
                         ::testing::Values(Variant{2, 0}, Variant{1, 0}, Variant{2, 16},
                                           Variant{1, 16}, Variant{2, 32}),
                         [](const ::testing::TestParamInfo<Variant>& i) {
                           return "v" + std::to_string(i.param.version) +
                                  (i.param.key_bytes
                                       ? "_enc" + std::to_string(i.param.key_bytes * 8)
                                       : "_plain");
                         });

// Inside an open, as the bench runs it: the Streaming plan served by the
// emulation, on generated dirs, with some files above a lowered threshold.
TEST(Upstream2026OpenTest, GeneratedDirsGiveStreamingsLiveSetAndReport) {
  for (bool encrypted : {false, true}) {
    SCOPED_TRACE(encrypted ? "encrypted" : "plain");
    TempDir tmp;
    const ServerKey key = TestServerKey(16);
    const std::vector<std::string> roots = {tmp.Join("d0"), tmp.Join("d1")};
    tools::BlockWorkloadOptions wo;
    wo.writer.data_dirs = roots;
    wo.writer.server_key = encrypted ? &key : nullptr;
    wo.writer.sync = false;
    wo.writer.fs_block_size = 4096;
    wo.containers = 6;
    wo.blocks_per_container = 60;
    wo.deleted_block_percentage = 30;
    wo.max_block_size = 512;
    wo.seed = 7;
    tools::BlockWorkloadResult gen;
    ASSERT_TRUE(tools::RunBlockWorkload(wo, &gen).ok());

    const ServerKey* k = encrypted ? &key : nullptr;
    fs::OpenResult ref;
    ASSERT_TRUE(fs::OpenBlockManager(OpenOptions(roots, k, fs::StrategyChoice::kStreaming), &ref).ok())
        << ref.status.ToString();
    for (uint64_t threshold : {64ULL << 20, 2048ULL}) {
      fs::BlockManagerOpenOptions o = OpenOptions(roots, k, fs::StrategyChoice::kStreaming);
      o.policy.in_memory_threshold_bytes = threshold;
      o.strategy_factory = Upstream2026StrategyFactory(o.policy);
      fs::OpenResult up;
      ASSERT_TRUE(fs::OpenBlockManager(o, &up).ok()) << up.status.ToString();
      EXPECT_EQ(LiveSetOf(ref), LiveSetOf(up)) << "threshold " << threshold;
      EXPECT_EQ(StableReport(ref).dump(), StableReport(up).dump()) << "threshold " << threshold;
      EXPECT_EQ(ref.replay.records, up.replay.records);
      EXPECT_EQ(0u, up.replay.fallbacks);
      // The large threshold reads every file whole: far fewer reads.
      if (threshold > 2048) {
        EXPECT_LT(up.replay.metadata_read_syscalls, ref.replay.metadata_read_syscalls / 10);
      }
    }
  }
}

}  // namespace
}  // namespace test
}  // namespace kudu
