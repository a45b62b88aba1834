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

// The fallback rule: an accelerated strategy that ends in anything but a
// clean end of file, or a partial trailing record its reader decided, is
// discarded and the container replayed once more with Streaming, so the
// result is always Streaming's. A strategy that does not say its reader
// decided (the mocks here) falls back on a partial record too.
#include "kudu/fs/container_replayer.h"

#include <glog/logging.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kudu/fs/container_replay_state.h"
#include "kudu/fs/streaming_replay.h"
#include "kudu/fs/whole_file_read.h"
#include "kudu/util/byte_budget.h"
#include "kudu/util/file.h"
#include "kudu/util/page_memory.h"
#include "util/live_block_entries.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

using ::testing::_;
using ::testing::Invoke;
using ::testing::Return;

class MockStrategy : public MetadataReplayStrategy {
 public:
  explicit MockStrategy(ReplayStrategyKind kind) {
    ON_CALL(*this, kind()).WillByDefault(Return(kind));
  }
  MOCK_METHOD(ReplayStrategyKind, kind, (), (const, override));
  MOCK_METHOD(ReplayOutcome, Replay, (RandomAccessFile*, BlockRecordSink*), (override));
};

// What a failing accelerated attempt looks like after delivering N records.
struct FailureCase {
  const char* name;
  ReplayOutcome::Kind kind;
  Status status;
};

class ContainerReplayerFallbackTest : public ::testing::TestWithParam<FailureCase> {
 protected:
  void SetUp() override {
    path_ = dir_.Join("c.metadata");
    records_ = test::MakeRecordSequence(50);
    ASSERT_TRUE(test::WriteMetadataFile(path_, records_).ok());
  }

  // The state Streaming alone gives.
  void ReferenceState(ContainerReplayState* state) {
    std::unique_ptr<RandomAccessFile> file;
    ASSERT_TRUE(RandomAccessFile::Open(path_, nullptr, &file).ok());
    StreamingReplay streaming;
    ReplayOutcome out = streaming.Replay(file.get(), state);
    ASSERT_TRUE(out.clean()) << out.ToString();
  }

  test::TempDir dir_;
  std::string path_;
  std::vector<BlockRecordPB> records_;
};

void ExpectSameState(const ContainerReplayState& a, const ContainerReplayState& b) {
  EXPECT_EQ(test::SortedEntriesOf(a.live_blocks()), test::SortedEntriesOf(b.live_blocks()));
  EXPECT_EQ(a.live_bytes(), b.live_bytes());
  EXPECT_EQ(a.total_blocks(), b.total_blocks());
  EXPECT_EQ(a.max_block_id(), b.max_block_id());
  EXPECT_EQ(a.next_write_offset(), b.next_write_offset());
  EXPECT_EQ(a.malformed().size(), b.malformed().size());
  EXPECT_EQ(a.records_applied(), b.records_applied());
}

TEST_P(ContainerReplayerFallbackTest, FailureCausesExactlyOneStreamingReplay) {
  const FailureCase& fc = GetParam();
  constexpr int kDelivered = 7;

  auto* in_memory = new MockStrategy(ReplayStrategyKind::kInMemory);
  auto* streaming = new MockStrategy(ReplayStrategyKind::kStreaming);
  StreamingReplay real_streaming;

  // The accelerated attempt delivers records that are NOT in the file (ids
  // from 1,000,000 on), so any leak into the final state shows.
  EXPECT_CALL(*in_memory, Replay(_, _))
      .Times(1)
      .WillOnce(Invoke([&](RandomAccessFile*, BlockRecordSink* sink) {
        for (int i = 0; i < kDelivered; i++) {
          sink->OnRecord(BlockRecordFromPB(test::MakeCreate(1000000 + i, 0, 1)), 100 + i);
        }
        ReplayOutcome out;
        out.kind = fc.kind;
        out.status = fc.status;
        out.offset = 1234;
        out.records = kDelivered;
        return out;
      }));
  EXPECT_CALL(*streaming, Replay(_, _))
      .Times(1)
      .WillOnce(Invoke([&](RandomAccessFile* f, BlockRecordSink* s) {
        return real_streaming.Replay(f, s);
      }));

  ReplayPolicyOptions opts;
  opts.choice = StrategyChoice::kInMemory;
  ReplayStats stats;
  ByteBudget budget(1 << 20);
  ContainerReplayer replayer(opts, &budget, &stats, [&](ReplayStrategyKind k) {
    if (k == ReplayStrategyKind::kInMemory) return std::unique_ptr<MetadataReplayStrategy>(in_memory);
    if (k == ReplayStrategyKind::kStreaming) return std::unique_ptr<MetadataReplayStrategy>(streaming);
    ADD_FAILURE() << "unexpected strategy " << ReplayStrategyName(k);
    return std::unique_ptr<MetadataReplayStrategy>();
  });

  std::unique_ptr<RandomAccessFile> file;
  ASSERT_TRUE(RandomAccessFile::Open(path_, nullptr, &file).ok());
  ContainerReplayState state(1ULL << 40, 0, 4096);
  ContainerReplayResult result = replayer.Replay(file.get(), &state);

  EXPECT_TRUE(result.fell_back);
  EXPECT_EQ(ReplayStrategyKind::kInMemory, result.chosen);
  EXPECT_TRUE(result.outcome.clean()) << result.outcome.ToString();
  EXPECT_EQ(records_.size(), result.outcome.records);
  EXPECT_EQ(1u, stats.fallbacks.load());
  EXPECT_EQ(1u, stats.containers(ReplayStrategyKind::kInMemory));
  EXPECT_EQ(0u, stats.containers(ReplayStrategyKind::kStreaming));
  // The open replayed the file's records once; the discarded attempt's are
  // none of them (records per CPU-second would otherwise flatter a strategy
  // that falls back).
  EXPECT_EQ(records_.size(), stats.records.load());
  EXPECT_NE(std::string::npos, result.fallback_reason.find(ReplayOutcomeKindName(fc.kind)));
  // The budget was held for the attempt and given back: the buffer the
  // whole-file read allocates, rounded up for a direct read.
  EXPECT_EQ(0u, budget.held());
  EXPECT_EQ(RandomAccessFile::DirectReadCapacity(file->size()), budget.peak());
  EXPECT_NE(file->size(), budget.peak()) << "pick a file size that is no multiple of 4 KiB";

  for (int i = 0; i < kDelivered; i++) {
    EXPECT_FALSE(state.live_blocks().contains(1000000 + i)) << "a discarded record leaked";
  }
  ContainerReplayState reference(1ULL << 40, 0, 4096);
  ReferenceState(&reference);
  ExpectSameState(reference, state);
}

INSTANTIATE_TEST_SUITE_P(
    FailureKinds, ContainerReplayerFallbackTest,
    ::testing::Values(
        FailureCase{"corruption", ReplayOutcome::Kind::kCorruption,
                    Status::Corruption("x.metadata: record at offset 1234", "body checksum mismatch")},
        FailureCase{"partial_record", ReplayOutcome::Kind::kPartialRecord,
                    Status::Incomplete("x.metadata: record at offset 1234", "partial trailing record")},
        FailureCase{"io_error", ReplayOutcome::Kind::kIOError,
                    Status::IOError("x.metadata: read of 8 bytes at offset 1234", "EIO")},
        FailureCase{"unparsable_body", ReplayOutcome::Kind::kCorruption,
                    Status::Corruption("x.metadata: record at offset 1234",
                                       "body does not parse as kudu.BlockRecordPB")}),
    [](const ::testing::TestParamInfo<FailureCase>& info) { return info.param.name; });

// glog's warnings about fallbacks, counted.
class FallbackWarnings : public google::LogSink {
 public:
  FallbackWarnings() { google::AddLogSink(this); }
  ~FallbackWarnings() override { google::RemoveLogSink(this); }
  void send(google::LogSeverity severity, const char*, const char*, int, const struct ::tm*,
            const char* message, size_t length) override {
    const std::string m(message, length);
    if (severity != google::GLOG_WARNING || m.find("replaying with streaming") == std::string::npos) {
      return;
    }
    logged++;
    if (m.find("further fallbacks are counted, not logged") != std::string::npos) last_says++;
  }
  int logged = 0;
  int last_says = 0;
};

// Every fallback is counted, the first ten are logged (the tenth saying
// that the rest are not): a dir whose every file fails alike does not log a
// line per container.
TEST(ContainerReplayerTest, OnlyTheFirstFallbacksAreLogged) {
  test::TempDir dir;
  const std::string path = dir.Join("c.metadata");
  ASSERT_TRUE(test::WriteMetadataFile(path, test::MakeRecordSequence(30)).ok());
  ASSERT_TRUE(test::FlipByte(path, test::FileSizeOrDie(path) / 2, 0x5a).ok());
  ReplayStats stats;
  ByteBudget budget(1 << 20);
  ReplayPolicyOptions policy;
  policy.choice = StrategyChoice::kInMemory;
  ContainerReplayer replayer(policy, &budget, &stats);
  FallbackWarnings warnings;
  for (int i = 0; i < 25; i++) {
    std::unique_ptr<RandomAccessFile> file;
    ASSERT_TRUE(RandomAccessFile::Open(path, nullptr, &file).ok());
    ContainerReplayState state(1ULL << 40, 0, 4096);
    ContainerReplayResult r = replayer.Replay(file.get(), &state);
    ASSERT_TRUE(r.fell_back) << i;
    ASSERT_EQ(ReplayOutcome::Kind::kCorruption, r.outcome.kind) << i;
  }
  EXPECT_EQ(25u, stats.fallbacks.load());
  EXPECT_EQ(10, warnings.logged);
  EXPECT_EQ(1, warnings.last_says);
}

// A clean accelerated replay is final: no second pass.
TEST(ContainerReplayerTest, CleanReplayDoesNotFallBack) {
  test::TempDir dir;
  std::string path = dir.Join("c.metadata");
  ASSERT_TRUE(test::WriteMetadataFile(path, test::MakeRecordSequence(10)).ok());
  ReplayStats stats;
  ByteBudget budget(1 << 20);
  ContainerReplayer replayer(ReplayPolicyOptions(), &budget, &stats);
  std::unique_ptr<RandomAccessFile> file;
  ASSERT_TRUE(RandomAccessFile::Open(path, nullptr, &file).ok());
  ContainerReplayState state(1ULL << 40, 0, 4096);
  ContainerReplayResult r = replayer.Replay(file.get(), &state);
  EXPECT_FALSE(r.fell_back);
  EXPECT_EQ(ReplayStrategyKind::kInMemory, r.chosen);
  EXPECT_EQ(0u, stats.fallbacks.load());
  EXPECT_EQ(1u, stats.metadata_read_syscalls.load());
  EXPECT_EQ(file->size(), stats.metadata_bytes_read.load());
}

// A real partial trailing record: InMemory's own verdict is Streaming's
// (the same reader over the same bytes), so it is kept without a second
// pass: one read for the container, and Streaming's outcome and state.
TEST(ContainerReplayerTest, RealPartialRecordIsKeptWithoutASecondPass) {
  test::TempDir dir;
  std::string path = dir.Join("c.metadata");
  ASSERT_TRUE(test::WriteMetadataFile(path, test::MakeRecordSequence(10)).ok());
  uint64_t size = test::FileSizeOrDie(path);
  ASSERT_TRUE(test::TruncateFileTo(path, size - 3).ok());
  ReplayStats stats;
  ContainerReplayer replayer(ReplayPolicyOptions(), nullptr, &stats);
  std::unique_ptr<RandomAccessFile> file;
  ASSERT_TRUE(RandomAccessFile::Open(path, nullptr, &file).ok());
  ContainerReplayState state(1ULL << 40, 0, 4096);
  ContainerReplayResult r = replayer.Replay(file.get(), &state);
  EXPECT_FALSE(r.fell_back);
  EXPECT_EQ(ReplayStrategyKind::kInMemory, r.chosen);
  EXPECT_EQ(ReplayOutcome::Kind::kPartialRecord, r.outcome.kind);
  EXPECT_EQ(9u, r.outcome.records);
  EXPECT_EQ(9u, state.records_applied());
  EXPECT_EQ(0u, stats.fallbacks.load());
  EXPECT_EQ(1u, stats.metadata_read_syscalls.load());
  EXPECT_NE(std::string::npos, r.outcome.status.ToString().find(path));

  std::unique_ptr<RandomAccessFile> file2;
  ASSERT_TRUE(RandomAccessFile::Open(path, nullptr, &file2).ok());
  ContainerReplayState reference(1ULL << 40, 0, 4096);
  StreamingReplay streaming;
  EXPECT_TRUE(streaming.Replay(file2.get(), &reference).SameAs(r.outcome));
  ExpectSameState(reference, state);
}

// Two metadata files of at least kReleasedReadBufferBytes, `big` the larger:
// files whose whole-file buffers a replay thread keeps. Plain, or encrypted
// (Encrypted-InMemory decrypts in the kept buffer, over the bytes of the
// file read into it before).
class KeptBufferTest : public ::testing::TestWithParam<bool> {
 protected:
  static constexpr int kBigRecords = 250000;
  static constexpr int kSmallRecords = 125000;
  // Written once for every test of the suite: they only read them.
  static void SetUpTestSuite() {
    dir_ = new test::TempDir();
    for (bool encrypted : {false, true}) {
      test::MetadataFileOptions opts;
      if (encrypted) opts.server_key = &Key();
      const std::string prefix = encrypted ? "encrypted-" : "plain-";
      ASSERT_TRUE(test::WriteMetadataFile(dir_->Join(prefix + "big.metadata"),
                                          test::MakeRecordSequence(kBigRecords), opts)
                      .ok());
      ASSERT_TRUE(test::WriteMetadataFile(dir_->Join(prefix + "small.metadata"),
                                          test::MakeRecordSequence(kSmallRecords, 3, 1ULL << 30),
                                          opts)
                      .ok());
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static const ServerKey& Key() {
    static const ServerKey key = test::TestServerKey(16);
    return key;
  }
  void SetUp() override {
    const std::string prefix = GetParam() ? "encrypted-" : "plain-";
    big_ = dir_->Join(prefix + "big.metadata");
    small_ = dir_->Join(prefix + "small.metadata");
    ASSERT_GE(test::FileSizeOrDie(small_), kReleasedReadBufferBytes);
    // Far enough apart that the kept buffer is trimmed between them.
    ASSERT_GT(Capacity(big_), Capacity(small_) + 2 * kHugePageBytes);
  }
  // What a kept buffer trimmed to `path` still counts: up to the end of
  // the huge page the file ends in.
  static uint64_t Trimmed(const std::string& path) {
    return (Capacity(path) + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  }
  static uint64_t Capacity(const std::string& path) {
    return RandomAccessFile::DirectReadCapacity(test::FileSizeOrDie(path));
  }
  // Replays `path` with `replayer`; with `compare`, checks the result is
  // Streaming's (two reads a record: kept for the replays into a buffer
  // that held another file's bytes).
  ContainerReplayResult ReplayAndCompare(ContainerReplayer* replayer, const std::string& path,
                                         bool compare = false) {
    std::unique_ptr<RandomAccessFile> file, again;
    const ServerKey* key = GetParam() ? &Key() : nullptr;
    EXPECT_TRUE(RandomAccessFile::Open(path, key, &file).ok());
    ContainerReplayState state(1ULL << 40, 0, 4096);
    ContainerReplayResult r = replayer->Replay(file.get(), &state);
    EXPECT_TRUE(r.outcome.clean()) << r.outcome.ToString();
    EXPECT_EQ(path == big_ ? kBigRecords : kSmallRecords, r.outcome.records);
    if (!compare) return r;
    EXPECT_TRUE(RandomAccessFile::Open(path, key, &again).ok());
    ContainerReplayState reference(1ULL << 40, 0, 4096);
    StreamingReplay streaming;
    EXPECT_TRUE(streaming.Replay(again.get(), &reference).SameAs(r.outcome));
    ExpectSameState(reference, state);
    return r;
  }

  // The strategy the policy gives these files.
  ReplayStrategyKind WholeFile() const {
    return GetParam() ? ReplayStrategyKind::kEncryptedInMemory : ReplayStrategyKind::kInMemory;
  }

  static test::TempDir* dir_;
  std::string big_, small_;
};

test::TempDir* KeptBufferTest::dir_ = nullptr;

// The buffer a replay thread keeps for its next container stays counted in
// the budget, and a container that fits in it is read there without a
// second grant: the budget's peak is the one buffer. A smaller container
// trims it, and the grant with it, so the kept pages follow the file
// being read; a larger one that fits the buffer grows the grant back. The
// thread gives it back when it has no container left.
TEST_P(KeptBufferTest, TheKeptBufferServesTheNextContainersAndFollowsTheirSize) {
  ReplayStats stats;
  ByteBudget budget(64 << 20);
  ContainerReplayer replayer(ReplayPolicyOptions(), &budget, &stats);
  ContainerReplayResult r = ReplayAndCompare(&replayer, big_);
  EXPECT_EQ(WholeFile(), r.chosen);
  EXPECT_EQ(Capacity(big_), replayer.kept_buffer_bytes());
  EXPECT_EQ(Capacity(big_), budget.held());

  // Read into the buffer that still holds the first file's bytes: the
  // same records as Streaming's all the same.
  r = ReplayAndCompare(&replayer, small_, /*compare=*/true);
  EXPECT_EQ(WholeFile(), r.chosen);
  EXPECT_EQ(Trimmed(small_), r.budget_bytes);
  EXPECT_EQ(Trimmed(small_), budget.held());
  EXPECT_EQ(Capacity(big_), budget.peak()) << "no second grant";

  // The trimmed pages come back as the larger file is read.
  r = ReplayAndCompare(&replayer, big_, /*compare=*/true);
  EXPECT_EQ(WholeFile(), r.chosen);
  EXPECT_EQ(Capacity(big_), budget.held());
  EXPECT_EQ(Capacity(big_), budget.peak());
  EXPECT_EQ(Capacity(big_), replayer.kept_buffer_bytes());

  replayer.ReleaseKeptBuffer();
  EXPECT_EQ(0u, replayer.kept_buffer_bytes());
  EXPECT_EQ(0u, budget.held());
}

// A container larger than the kept buffer: the buffer and its grant go
// before the budget is asked, so a thread never waits for budget its own
// buffer holds. Here the budget fits only the larger file: asked while the
// smaller buffer were still held, the grant would be refused and the
// container replayed without its whole-file buffer.
TEST_P(KeptBufferTest, ALargerContainerGivesTheKeptBufferBackFirst) {
  ReplayStats stats;
  ByteBudget budget(Capacity(big_));
  ReplayPolicyOptions policy;
  policy.memory_budget_bytes = Capacity(big_);
  policy.budget_wait_ms = 0;
  ContainerReplayer replayer(policy, &budget, &stats);
  ContainerReplayResult r = ReplayAndCompare(&replayer, small_);
  EXPECT_EQ(WholeFile(), r.chosen);
  EXPECT_EQ(Capacity(small_), budget.held());

  r = ReplayAndCompare(&replayer, big_);
  EXPECT_EQ(WholeFile(), r.chosen);
  EXPECT_EQ(Capacity(big_), budget.held());
  EXPECT_EQ(Capacity(big_), replayer.kept_buffer_bytes());
  EXPECT_EQ(0u, stats.budget_wait_timeouts.load());
}

// A kept buffer whose grant cannot grow to a larger file without waiting
// (another thread holds the rest of the budget) is given back, and the file
// takes the next step of its plan: the thread never waits for budget while
// it keeps a buffer.
TEST_P(KeptBufferTest, AGrantThatCannotGrowGivesTheBufferBack) {
  ReplayStats stats;
  ByteBudget budget(Capacity(big_) + (8 << 20));
  ReplayPolicyOptions policy;
  policy.budget_wait_ms = 0;
  policy.window_bytes = 1 << 20;
  ContainerReplayer replayer(policy, &budget, &stats);
  ReplayAndCompare(&replayer, big_);
  ReplayAndCompare(&replayer, small_);
  ASSERT_EQ(Trimmed(small_), budget.held());
  // All but the kept pages and 1 MiB: too little for the grant to grow to
  // the larger file, enough with the kept pages for a window.
  const uint64_t elsewhere = budget.total() - Trimmed(small_) - (1 << 20);
  ASSERT_TRUE(budget.TryAcquire(elsewhere));
  ByteBudgetGrant other_thread(&budget, elsewhere);

  ContainerReplayResult r = ReplayAndCompare(&replayer, big_);
  EXPECT_EQ(ReplayStrategyKind::kWindowed, r.chosen);
  EXPECT_EQ(0u, replayer.kept_buffer_bytes());
  other_thread.Reset();
  EXPECT_EQ(0u, budget.held());
}

INSTANTIATE_TEST_SUITE_P(PlainAndEncrypted, KeptBufferTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "encrypted" : "plain";
                         });

}  // namespace
}  // namespace fs
}  // namespace kudu
