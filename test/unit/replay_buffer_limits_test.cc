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

// The exact limits past which an accelerated strategy hands a file to
// Streaming, on real files: a Windowed read of exactly the buffer is served
// from the buffer and one byte more is refused; Encrypted-InMemory indexes
// exactly its limit of zero-ciphertext runs (1024, or one per KiB of a
// larger payload) and refuses one more. A file it refuses, or cannot read,
// ends before its first record, at the first byte past the encryption header.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kudu/fs/encrypted_in_memory_replay.h"
#include "kudu/fs/replay_window.h"
#include "kudu/fs/windowed_replay.h"
#include "kudu/util/file.h"
#include "kudu/util/io_fault_injector.h"
#include "kudu/util/zero_rule.h"
#include "util/replay_test_util.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

// A record whose body and trailing checksum (what the reader reads in one
// Read) are exactly `read_bytes` long: a CREATE padded with an unknown field.
BlockRecordPB RecordReadInOnePieceOf(size_t read_bytes, uint64_t id) {
  BlockRecordPB pb = MakeCreate(id, 4096 * id, 4096);
  const size_t body = read_bytes - 4;
  size_t pad = body;
  while (true) {
    BlockRecordPB padded = pb;
    padded.mutable_unknown_fields()->AddLengthDelimited(1000, std::string(pad, 'x'));
    const size_t size = padded.ByteSizeLong();
    if (size == body) return padded;
    pad -= size - body;  // the pad never overshoots by more than the tag and length
  }
}

struct WindowedRun {
  fs::ReplayOutcome outcome;
  std::vector<CapturingSink::Entry> records;
  uint64_t buffer_bytes = 0;
};

WindowedRun RunWindowed(const std::string& path, const ServerKey* key, size_t window) {
  WindowedRun r;
  std::unique_ptr<RandomAccessFile> file;
  Status s = RandomAccessFile::Open(path, key, &file);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return r;
  fs::WindowedReplay windowed(window);
  CapturingSink sink;
  r.outcome = windowed.Replay(file.get(), &sink);
  r.records = sink.entries;
  r.buffer_bytes = windowed.last_stats().buffer_bytes;
  return r;
}

// Thirty records whose sixteenth is read in one piece of `read_bytes`,
// written plain (`key` null) or encrypted to `path`, and Streaming's clean
// replay of them.
void WriteOneLargeRecord(const std::string& path, const ServerKey* key, size_t read_bytes,
                         StrategyRun* ref) {
  MetadataFileOptions opts;
  opts.server_key = key;
  std::vector<BlockRecordPB> records = MakeRecordSequence(30);
  records[15] = RecordReadInOnePieceOf(read_bytes, 1000);
  ASSERT_TRUE(WriteMetadataFile(path, records, opts).ok());
  *ref = RunStrategy(fs::ReplayStrategyKind::kStreaming, path, key);
  ASSERT_TRUE(ref->outcome.clean()) << ref->outcome.ToString();
  ASSERT_EQ(30u, ref->records.size());
}

TEST(WindowedReplayBufferTest, ARecordReadExactlyTheSizeOfTheBufferIsReplayedFromIt) {
  TempDir dir;
  const ServerKey key = TestServerKey(16);
  for (const ServerKey* k : {static_cast<const ServerKey*>(nullptr), &key}) {
    const std::string path = dir.Join(k != nullptr ? "enc" : "plain");
    StrategyRun ref;
    ASSERT_NO_FATAL_FAILURE(WriteOneLargeRecord(path, k, fs::kMinWindowBufferBytes, &ref));
    for (size_t window : {size_t{1}, size_t{4096}, fs::kMinWindowBufferBytes}) {
      WindowedRun run = RunWindowed(path, k, window);
      EXPECT_EQ(fs::kMinWindowBufferBytes, run.buffer_bytes);
      EXPECT_TRUE(run.outcome.SameAs(ref.outcome))
          << path << ", window " << window << ": " << run.outcome.ToString();
      EXPECT_TRUE(run.records == ref.records) << "window " << window;
    }
  }
}

TEST(WindowedReplayBufferTest, ARecordReadOneByteLargerThanTheBufferIsRefused) {
  TempDir dir;
  const ServerKey key = TestServerKey(16);
  for (const ServerKey* k : {static_cast<const ServerKey*>(nullptr), &key}) {
    const std::string path = dir.Join(k != nullptr ? "enc" : "plain");
    StrategyRun ref;
    ASSERT_NO_FATAL_FAILURE(WriteOneLargeRecord(path, k, fs::kMinWindowBufferBytes + 1, &ref));
    WindowedRun run = RunWindowed(path, k, 4096);
    EXPECT_EQ(fs::ReplayOutcome::Kind::kIOError, run.outcome.kind) << run.outcome.ToString();
    EXPECT_TRUE(Contains(run.outcome.status.ToString(), "larger than the replay window"))
        << run.outcome.ToString();
    EXPECT_EQ(ref.records[15].offset, run.outcome.offset);
    EXPECT_EQ(15u, run.outcome.records);
  }
}

// ---------------------------------------------------------------------------
// Encrypted-InMemory: the zero-run limit.

class ZeroRunLimitTest : public ::testing::Test {
 protected:
  // Writes an encrypted file of `records` whose ciphertext holds no run of
  // zero bytes; returns its contents.
  std::string WriteWithoutZeroRuns(const std::vector<BlockRecordPB>& records) {
    MetadataFileOptions opts;
    opts.server_key = &key_;
    for (int attempt = 0; attempt < 8; attempt++) {
      EXPECT_TRUE(WriteMetadataFile(path_, records, opts).ok());
      std::string b = Slurp(path_);
      const size_t n = b.size() - data_start();
      if (CountZeroRuns(reinterpret_cast<const uint8_t*>(b.data()) + data_start(), n, n) == 0) {
        return b;
      }
    }
    ADD_FAILURE() << "every file key gave zero runs";
    return "";
  }

  uint64_t data_start() {
    std::unique_ptr<RandomAccessFile> file;
    EXPECT_TRUE(RandomAccessFile::Open(path_, &key_, &file).ok());
    return file->encryption_header_size();
  }

  // Writes `b` with `runs` separate runs of 4 zero bytes from `from` on
  // (each followed by a non-zero byte) and checks the ciphertext holds
  // exactly that many.
  void WriteWithRuns(std::string b, uint64_t from, size_t runs) {
    uint64_t k = from;
    for (size_t i = 0; i < runs; i++, k += 9) {
      ASSERT_LT(k + 5, b.size());
      std::memset(&b[k], 0, 4);
      if (b[k + 4] == 0) b[k + 4] = '\x5a';
    }
    ASSERT_TRUE(WriteStringToFile(path_, b).ok());
    const uint64_t start = data_start();
    const size_t n = b.size() - start;
    ASSERT_EQ(runs, CountZeroRuns(reinterpret_cast<const uint8_t*>(b.data()) + start, n, n));
  }

  void ExpectReplayedAsStreaming(const std::string& what) {
    StrategyRun ref = RunStrategy(fs::ReplayStrategyKind::kStreaming, path_, &key_);
    StrategyRun run = RunStrategy(fs::ReplayStrategyKind::kEncryptedInMemory, path_, &key_);
    EXPECT_TRUE(run.outcome.SameAs(ref.outcome))
        << what << ": " << run.outcome.ToString() << " vs " << ref.outcome.ToString();
    EXPECT_TRUE(run.records == ref.records) << what;
  }

  void ExpectRefused(size_t limit, const std::string& what) {
    StrategyRun run = RunStrategy(fs::ReplayStrategyKind::kEncryptedInMemory, path_, &key_);
    EXPECT_EQ(fs::ReplayOutcome::Kind::kIOError, run.outcome.kind)
        << what << ": " << run.outcome.ToString();
    EXPECT_TRUE(Contains(run.outcome.status.ToString(),
                         "more than " + std::to_string(limit) + " runs of zero ciphertext"))
        << what << ": " << run.outcome.ToString();
    EXPECT_TRUE(Contains(run.outcome.status.ToString(), path_)) << run.outcome.ToString();
    EXPECT_EQ(0u, run.records.size());
    EXPECT_EQ(0u, run.outcome.records);
  }

  TempDir dir_;
  const ServerKey key_ = TestServerKey(16);
  const std::string path_ = dir_.Join("c.metadata");
};

TEST_F(ZeroRunLimitTest, ASmallFileWithExactly1024RunsIsIndexedAndOneMoreIsRefused) {
  const std::string b = WriteWithoutZeroRuns(MakeRecordSequence(3000));
  ASSERT_FALSE(b.empty());
  const uint64_t payload = b.size() - data_start();
  ASSERT_LT(payload / 1024, kMaxIndexedZeroRuns);
  ASSERT_NO_FATAL_FAILURE(WriteWithRuns(b, b.size() / 4, kMaxIndexedZeroRuns));
  ExpectReplayedAsStreaming("1024 runs");
  ASSERT_NO_FATAL_FAILURE(WriteWithRuns(b, b.size() / 4, kMaxIndexedZeroRuns + 1));
  ExpectRefused(kMaxIndexedZeroRuns, "1025 runs");
}

TEST_F(ZeroRunLimitTest, ALargeFileIsAllowedOneRunPerKiBOfPayload) {
  // Payload of about 3 MiB: the limit is payload / 1024, about 3000 runs.
  std::vector<BlockRecordPB> records = MakeRecordSequence(40);
  for (int i : {5, 15, 25}) {
    records[i].mutable_unknown_fields()->AddLengthDelimited(1000, std::string(1024 * 1024, 'x'));
  }
  const std::string b = WriteWithoutZeroRuns(records);
  ASSERT_FALSE(b.empty());
  const size_t limit = static_cast<size_t>((b.size() - data_start()) / 1024);
  ASSERT_GT(limit, 2 * kMaxIndexedZeroRuns);
  // The runs lie inside the last large record, after every record before it.
  const uint64_t from = b.size() - 1024 * 1024;
  ASSERT_NO_FATAL_FAILURE(WriteWithRuns(b, from, limit));
  ExpectReplayedAsStreaming(std::to_string(limit) + " runs");
  ASSERT_NO_FATAL_FAILURE(WriteWithRuns(b, from, limit + 1));
  ExpectRefused(limit, std::to_string(limit + 1) + " runs");
}


// ---------------------------------------------------------------------------
// Encrypted-InMemory: where a refused or unreadable file's outcome points.

// Where Encrypted-InMemory stops when it cannot use the file: its first
// payload byte (the file header's offset, past the encryption header), with
// no records, and the error naming the file.
void ExpectStoppedBeforeTheFirstRecord(const fs::ReplayOutcome& out, uint64_t data_start,
                                       const std::string& path) {
  EXPECT_EQ(fs::ReplayOutcome::Kind::kIOError, out.kind) << out.ToString();
  EXPECT_EQ(data_start, out.offset) << out.ToString();
  EXPECT_EQ(0u, out.records);
  EXPECT_TRUE(Contains(out.status.ToString(), path)) << out.ToString();
}

TEST_F(ZeroRunLimitTest, ARefusedFileStopsAtItsFirstPayloadByte) {
  const std::string b = WriteWithoutZeroRuns(MakeRecordSequence(3000));
  ASSERT_FALSE(b.empty());
  ASSERT_NO_FATAL_FAILURE(WriteWithRuns(b, b.size() / 4, kMaxIndexedZeroRuns + 1));
  StrategyRun run = RunStrategy(fs::ReplayStrategyKind::kEncryptedInMemory, path_, &key_);
  ExpectStoppedBeforeTheFirstRecord(run.outcome, data_start(), path_);
}

TEST(EncryptedInMemoryReadFailureTest, AFailedWholeFileReadStopsAtTheFirstPayloadByte) {
  TempDir dir;
  const ServerKey key = TestServerKey(16);
  MetadataFileOptions opts;
  opts.server_key = &key;
  const std::string path = dir.Join("c.metadata");
  ASSERT_TRUE(WriteMetadataFile(path, MakeRecordSequence(50), opts).ok());
  for (IoFault fault : {IoFault::kEIO, IoFault::kUnexpectedEof}) {
    std::unique_ptr<RandomAccessFile> file;
    ASSERT_TRUE(RandomAccessFile::Open(path, &key, &file).ok());
    fs::EncryptedInMemoryReplay replay(fs::DirectReadMode::kNever);
    CapturingSink sink;
    IoFaultInjector::Arm(IoOp::kRead, 1, fault);
    fs::ReplayOutcome out = replay.Replay(file.get(), &sink);
    EXPECT_TRUE(IoFaultInjector::Fired());
    IoFaultInjector::Disarm();
    ExpectStoppedBeforeTheFirstRecord(out, file->encryption_header_size(), path);
    EXPECT_TRUE(sink.entries.empty());
  }
}

}  // namespace
}  // namespace test
}  // namespace kudu
