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

// The open after a crash: a metadata file whose last append was torn (a
// zero tail, a cut record, a body running past the end) is replayed once,
// by the strategy the policy chose, to exactly Streaming's result, and a
// sparse tail is decided without reading its holes.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kudu/fs/container_replay_state.h"
#include "kudu/fs/container_replayer.h"
#include "kudu/fs/streaming_replay.h"
#include "kudu/util/byte_budget.h"
#include "kudu/util/file.h"
#include "util/live_block_entries.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

using test::MetadataFileOptions;
using test::TempDir;

constexpr uint64_t kMiB = 1024 * 1024;

enum class Tear { kZeroTail, kCutRecord, kBodyPastEnd };

const char* TearName(Tear t) {
  switch (t) {
    case Tear::kZeroTail: return "zero tail";
    case Tear::kCutRecord: return "cut record";
    case Tear::kBodyPastEnd: return "body past end";
  }
  return "?";
}

// Writes 2,000 records and tears the end of the file as a crash would.
void WriteTornFile(const std::string& path, const ServerKey* key, Tear tear) {
  MetadataFileOptions opts;
  opts.server_key = key;
  ASSERT_TRUE(test::WriteMetadataFile(path, test::MakeRecordSequence(2000), opts).ok());
  const uint64_t size = test::FileSizeOrDie(path);
  switch (tear) {
    case Tear::kZeroTail:
      ASSERT_TRUE(test::AppendZeros(path, 4096).ok());
      break;
    case Tear::kCutRecord:
      ASSERT_TRUE(test::TruncateFileTo(path, size - 5).ok());
      break;
    case Tear::kBodyPastEnd:
      // The last record's prefix and part of its body: its length says more
      // bytes follow than the file has.
      ASSERT_TRUE(test::TruncateFileTo(path, size - 14).ok());
      break;
  }
}

struct Replayed {
  ContainerReplayResult result;
  std::unique_ptr<ContainerReplayState> state;
  FileIoStats io;
};

Replayed ReplayThrough(const std::string& path, const ServerKey* key,
                       const ReplayPolicyOptions& popts) {
  Replayed r;
  ByteBudget budget(popts.memory_budget_bytes);
  ReplayStats stats;
  ContainerReplayer replayer(popts, &budget, &stats);
  std::unique_ptr<RandomAccessFile> file;
  EXPECT_TRUE(RandomAccessFile::Open(path, key, &file).ok());
  if (file == nullptr) return r;
  r.state.reset(new ContainerReplayState(1ULL << 40, file->encryption_header_size(), 4096));
  r.result = replayer.Replay(file.get(), r.state.get());
  r.io = file->stats();
  return r;
}

Replayed ReplayStreaming(const std::string& path, const ServerKey* key) {
  ReplayPolicyOptions popts;
  popts.choice = StrategyChoice::kStreaming;
  return ReplayThrough(path, key, popts);
}

void ExpectSameState(const ContainerReplayState& a, const ContainerReplayState& b) {
  EXPECT_EQ(test::SortedEntriesOf(a.live_blocks()), test::SortedEntriesOf(b.live_blocks()));
  EXPECT_EQ(a.live_bytes(), b.live_bytes());
  EXPECT_EQ(a.total_blocks(), b.total_blocks());
  EXPECT_EQ(a.max_block_id(), b.max_block_id());
  EXPECT_EQ(a.next_write_offset(), b.next_write_offset());
  EXPECT_EQ(a.malformed().size(), b.malformed().size());
  EXPECT_EQ(a.records_applied(), b.records_applied());
}

// Every torn tail, plain and encrypted, with the in-memory strategy the
// policy picks and with Windowed: Streaming's outcome and state, no second
// pass, and at most 3 metadata reads for the container.
TEST(TornTailReplayTest, DecidedInOnePassWithStreamingsResult) {
  TempDir dir;
  const ServerKey server_key = test::TestServerKey(16);
  for (bool enc : {false, true}) {
    for (Tear tear : {Tear::kZeroTail, Tear::kCutRecord, Tear::kBodyPastEnd}) {
      for (bool windowed : {false, true}) {
        SCOPED_TRACE(std::string(enc ? "encrypted, " : "plain, ") + TearName(tear) +
                     (windowed ? ", windowed" : ", in memory"));
        const ServerKey* key = enc ? &server_key : nullptr;
        const std::string path = dir.Join("c.metadata");
        WriteTornFile(path, key, tear);
        Replayed ref = ReplayStreaming(path, key);
        ASSERT_EQ(ReplayOutcome::Kind::kPartialRecord, ref.result.outcome.kind)
            << ref.result.outcome.ToString();

        ReplayPolicyOptions popts;
        if (windowed) {
          popts.choice = StrategyChoice::kWindowed;
          popts.window_bytes = 64 * 1024;  // several windows, the tail in the last
        }
        Replayed got = ReplayThrough(path, key, popts);
        EXPECT_EQ(windowed ? ReplayStrategyKind::kWindowed
                           : (enc ? ReplayStrategyKind::kEncryptedInMemory
                                  : ReplayStrategyKind::kInMemory),
                  got.result.chosen);
        EXPECT_FALSE(got.result.fell_back) << got.result.fallback_reason;
        EXPECT_TRUE(got.result.outcome.SameAs(ref.result.outcome))
            << got.result.outcome.ToString() << " vs " << ref.result.outcome.ToString();
        ExpectSameState(*ref.state, *got.state);
        if (!windowed) {
          EXPECT_LE(got.io.read_syscalls, 3u);
          EXPECT_GT(ref.io.read_syscalls, 2000u);
        }
        ASSERT_TRUE(test::TruncateFileTo(path, 0).ok());
      }
    }
  }
}

// A crash while appending can leave a tail of any length that was never
// written: a hole. 4 GiB of it, plain and encrypted (a hole is zero
// ciphertext, which the all-zero rule reads as zeros), decides as a zero
// tail without its bytes being read, with Streaming and through the policy
// (Windowed, the payload being far above the in-memory threshold).
TEST(TornTailReplayTest, SparseTailIsNotRead) {
  TempDir dir;
  const ServerKey server_key = test::TestServerKey(16);
  for (bool enc : {false, true}) {
    SCOPED_TRACE(enc ? "encrypted" : "plain");
    const ServerKey* key = enc ? &server_key : nullptr;
    const std::string path = dir.Join(enc ? "e.metadata" : "p.metadata");
    MetadataFileOptions opts;
    opts.server_key = key;
    ASSERT_TRUE(test::WriteMetadataFile(path, test::MakeRecordSequence(1000), opts).ok());
    const uint64_t records_end = test::FileSizeOrDie(path);
    ASSERT_TRUE(test::TruncateFileTo(path, records_end + 4096 * kMiB).ok());

    Replayed ref = ReplayStreaming(path, key);
    ASSERT_EQ(ReplayOutcome::Kind::kPartialRecord, ref.result.outcome.kind)
        << ref.result.outcome.ToString();
    EXPECT_EQ(records_end, ref.result.outcome.offset);
    EXPECT_EQ(1000u, ref.result.outcome.records);
    EXPECT_LT(ref.io.bytes_read, 64 * kMiB);

    ReplayPolicyOptions popts;
    popts.window_bytes = 4 * kMiB;  // the flag's default
    Replayed got = ReplayThrough(path, key, popts);
    EXPECT_EQ(ReplayStrategyKind::kWindowed, got.result.chosen);
    EXPECT_FALSE(got.result.fell_back) << got.result.fallback_reason;
    EXPECT_TRUE(got.result.outcome.SameAs(ref.result.outcome)) << got.result.outcome.ToString();
    ExpectSameState(*ref.state, *got.state);
    EXPECT_LT(got.io.bytes_read, 64 * kMiB);
  }
}

// Data after a hole is still read: one non-zero byte near the end of a
// sparse tail makes it damage, not a torn write.
TEST(TornTailReplayTest, DataAfterAHoleIsRead) {
  TempDir dir;
  const std::string path = dir.Join("c.metadata");
  ASSERT_TRUE(test::WriteMetadataFile(path, test::MakeRecordSequence(100)).ok());
  const uint64_t records_end = test::FileSizeOrDie(path);
  const uint64_t size = records_end + 256 * kMiB;
  ASSERT_TRUE(test::TruncateFileTo(path, size).ok());
  ASSERT_TRUE(test::SetByte(path, size - 10, 1).ok());
  ReplayPolicyOptions popts;
  popts.window_bytes = 4 * kMiB;
  for (bool streaming : {true, false}) {
    SCOPED_TRACE(streaming ? "streaming" : "policy");
    Replayed r = streaming ? ReplayStreaming(path, nullptr) : ReplayThrough(path, nullptr, popts);
    EXPECT_EQ(ReplayOutcome::Kind::kCorruption, r.result.outcome.kind)
        << r.result.outcome.ToString();
    EXPECT_EQ(records_end, r.result.outcome.offset);
    EXPECT_LT(r.io.bytes_read, 64 * kMiB);
  }
}

}  // namespace
}  // namespace fs
}  // namespace kudu
