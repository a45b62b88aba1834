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

// The file layer's counters: InMemory and Encrypted-InMemory read a cached
// metadata file with one read system call whatever its record count (and
// an encrypted file's header with one more); Streaming issues two per record.
#include <gtest/gtest.h>

#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/util/encryption.h"
#include "util/replay_test_util.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

TEST(ReplaySyscallsTest, CountsPerStrategy) {
  TempDir dir;
  const ServerKey key = TestServerKey(32);
  for (bool encrypted : {false, true}) {
    for (int n : {0, 1, 10, 1000, 50000}) {
      std::string path = dir.Join("m" + std::to_string(n) + (encrypted ? "e" : "p"));
      MetadataFileOptions opts;
      if (encrypted) {
        opts.server_key = &key;
        opts.algorithm = CipherAlgorithm::kAes256Ctr;
      }
      ASSERT_TRUE(WriteMetadataFile(path, MakeRecordSequence(n), opts).ok());
      const ServerKey* k = encrypted ? &key : nullptr;
      const uint64_t header_reads = encrypted ? 1 : 0;  // the 64-byte encryption header

      StrategyRun streaming = RunStrategy(fs::ReplayStrategyKind::kStreaming, path, k);
      ASSERT_TRUE(streaming.outcome.clean());
      // 1 file header read + 2 for the supplemental header + 2 per record.
      EXPECT_EQ(header_reads + 3 + 2 * static_cast<uint64_t>(n), streaming.read_syscalls);

      fs::ReplayStrategyKind fast =
          encrypted ? fs::ReplayStrategyKind::kEncryptedInMemory : fs::ReplayStrategyKind::kInMemory;
      StrategyRun run = RunStrategy(fast, path, k);
      ASSERT_TRUE(run.outcome.clean());
      EXPECT_EQ(static_cast<uint64_t>(n), run.records.size());
      if (run.cache_probe_misses == 0 && run.direct_reads == 0) {
        // The file just written is in the page cache: one read of it all.
        EXPECT_EQ(header_reads + 1, run.read_syscalls) << ReplayStrategyName(fast);
        EXPECT_EQ(FileSizeOrDie(path), run.bytes_read);
      } else {
        // A test beside this one under ctest -j2 synced and dropped the
        // caches: the read that asks the cache first and then its rest, or
        // a read past the cache from offset 0 (the header read again).
        EXPECT_LE(run.read_syscalls, header_reads + 2) << ReplayStrategyName(fast);
        EXPECT_GE(run.bytes_read, FileSizeOrDie(path));
        EXPECT_LE(run.bytes_read, FileSizeOrDie(path) + header_reads * kEncryptionHeaderSize);
      }
    }
  }
}

// The wrong in-memory kind for a file is refused rather than misread.
TEST(ReplaySyscallsTest, InMemoryKindsRefuseTheOtherKindOfFile) {
  TempDir dir;
  const ServerKey key = TestServerKey(16);
  std::string plain = dir.Join("plain"), enc = dir.Join("enc");
  MetadataFileOptions eo;
  eo.server_key = &key;
  ASSERT_TRUE(WriteMetadataFile(plain, MakeRecordSequence(3)).ok());
  ASSERT_TRUE(WriteMetadataFile(enc, MakeRecordSequence(3), eo).ok());
  EXPECT_EQ(fs::ReplayOutcome::Kind::kIOError,
            RunStrategy(fs::ReplayStrategyKind::kInMemory, enc, &key).outcome.kind);
  EXPECT_EQ(fs::ReplayOutcome::Kind::kIOError,
            RunStrategy(fs::ReplayStrategyKind::kEncryptedInMemory, plain, nullptr).outcome.kind);
}

}  // namespace
}  // namespace test
}  // namespace kudu
