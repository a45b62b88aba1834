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

// The Windowed zero-tail check reads each 4 MiB check chunk through its
// buffer in pieces. The reference reads the chunk in one read: it is zeros
// iff the whole chunk's ciphertext is zero, or the whole chunk's plaintext
// is. Pieces must add up to that verdict: a chunk whose first pieces are
// encrypted zeros (zero plaintext) and whose last pieces are zero ciphertext
// is neither, wherever the piece boundaries fall.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "kudu/fs/replay_window.h"
#include "kudu/util/file.h"
#include "util/replay_test_util.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

TEST(WindowedZeroCheckTest, EncryptedZerosThenZeroCiphertextInOneChunkAreNotAZeroTail) {
  TempDir dir;
  const ServerKey key = TestServerKey(16);
  MetadataFileOptions opts;
  opts.server_key = &key;
  const std::string path = dir.Join("c.metadata");
  ASSERT_TRUE(WriteMetadataFile(path, MakeRecordSequence(100), opts).ok());
  const uint64_t s = FileSizeOrDie(path);
  constexpr uint64_t kPiece = fs::kMinWindowBufferBytes;  // the buffer of a small window
  // The tail's first 8 bytes (a zero length and length checksum) and then
  // `pieces` whole pieces of the check decrypt to zeros; zero ciphertext
  // follows, from a piece boundary on. The whole tail is one check chunk.
  for (uint64_t pieces : {1, 2}) {
    ASSERT_TRUE(TruncateFileTo(path, s).ok());
    ASSERT_TRUE(AppendEncryptedZeros(path, key, 8 + pieces * kPiece).ok());
    ASSERT_TRUE(AppendZeros(path, 3 * kPiece).ok());
    StrategyRun ref = RunStrategy(fs::ReplayStrategyKind::kStreaming, path, &key);
    EXPECT_EQ(fs::ReplayOutcome::Kind::kCorruption, ref.outcome.kind) << ref.outcome.ToString();
    EXPECT_EQ(s, ref.outcome.offset);
    EXPECT_EQ("", CompareWithStreaming(path, &key, {1, 4096, kPiece})) << pieces << " pieces";
  }
}

}  // namespace
}  // namespace test
}  // namespace kudu
