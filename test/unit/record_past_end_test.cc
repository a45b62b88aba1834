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

// §2 step 5: a v2 record whose length runs past the end of the file is a
// partial trailing record only when no valid record starts after it; with a
// valid record later in the file it is damage, Corruption at its offset,
// whatever the strategy (every strategy runs the same reader, checked here
// against Streaming with windows of every size).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/util/crc32c.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"
#include "util/replay_test_util.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

struct Variant {
  uint32_t version;
  bool encrypted;
};

class RecordPastEndTest : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    key_ = TestServerKey();
    opts_.version = GetParam().version;
    opts_.server_key = GetParam().encrypted ? &key_ : nullptr;
    path_ = dir_.Join("c.metadata");
  }
  const ServerKey* key() const { return opts_.server_key; }

  // Writes `n` records, plus `extra` appended after them through the file
  // layer (encrypted like the rest), and returns the record offsets and the
  // end of the last record.
  std::vector<uint64_t> Write(int n, const std::string& extra = "") {
    EXPECT_OK(WriteMetadataFile(path_, MakeRecordSequence(n), opts_));
    StrategyRun ref = RunStrategy(fs::ReplayStrategyKind::kStreaming, path_, key());
    EXPECT_TRUE(ref.outcome.clean()) << ref.outcome.ToString();
    std::vector<uint64_t> offsets;
    for (const auto& e : ref.records) offsets.push_back(e.offset);
    offsets.push_back(ref.outcome.offset);
    if (!extra.empty()) {
      WriteEncryption enc;
      enc.server_key = key();
      std::unique_ptr<WritableFile> f;
      EXPECT_OK(WritableFile::Open(path_, CreateMode::kOpenExisting, enc, &f));
      EXPECT_OK(f->Append(extra));
      EXPECT_OK(f->Close());
    }
    return offsets;
  }

  // Gives the v2 record at [o, next) the length `len` with a matching
  // length checksum, editing the plaintext through the ciphertext (CTR:
  // XOR of the difference).
  void SetLength(uint64_t o, uint64_t next, uint32_t len) {
    const uint32_t old_len = static_cast<uint32_t>(next - o - 12);
    std::string bytes;
    ASSERT_OK(ReadFileToString(path_, &bytes));
    uint8_t delta[8];
    pb_container::EncodeFixed32(delta, old_len ^ len);
    pb_container::EncodeFixed32(delta + 4, crc::Crc32cFixed32(old_len) ^ crc::Crc32cFixed32(len));
    for (int i = 0; i < 8; i++) bytes[o + i] = static_cast<char>(bytes[o + i] ^ delta[i]);
    ASSERT_OK(WriteStringToFile(path_, bytes));
  }

  void ExpectEveryStrategy(fs::ReplayOutcome::Kind kind, uint64_t offset, uint64_t records,
                           const std::string& what) {
    ASSERT_EQ("", CompareWithStreaming(path_, key(), {4096, 1, 7, 64})) << what;
    StrategyRun ref = RunStrategy(fs::ReplayStrategyKind::kStreaming, path_, key());
    EXPECT_EQ(ReplayOutcomeKindName(kind), std::string(ReplayOutcomeKindName(ref.outcome.kind)))
        << what << ": " << ref.outcome.ToString();
    EXPECT_EQ(offset, ref.outcome.offset) << what;
    EXPECT_EQ(records, ref.records.size()) << what;
  }

  TempDir dir_;
  ServerKey key_;
  MetadataFileOptions opts_;
  std::string path_;
};

// A length in the middle running past the end, valid records after it.
TEST_P(RecordPastEndTest, InTheMiddleIsCorruption) {
  if (GetParam().version == 1) GTEST_SKIP() << "v1 has no length checksum";
  const std::vector<uint64_t> off = Write(20);
  const uint64_t size = FileSizeOrDie(path_);
  for (size_t k : {0, 7, 18}) {
    Write(20);
    SetLength(off[k], off[k + 1], static_cast<uint32_t>(size));
    ExpectEveryStrategy(fs::ReplayOutcome::Kind::kCorruption, off[k], k,
                        "record " + std::to_string(k) + " runs past the end");
    StrategyRun ref = RunStrategy(fs::ReplayStrategyKind::kStreaming, path_, key());
    EXPECT_TRUE(Contains(ref.outcome.status.ToString(),
                         "valid record starts at offset " + std::to_string(off[k + 1])))
        << ref.outcome.status.ToString();
  }
  // Hostile lengths that wrap in 32 bits are the same case.
  for (uint32_t len : {0xFFFFFFF0u, 0xFFFFFFFCu, 0xFFFFFFFFu}) {
    Write(20);
    SetLength(off[3], off[4], len);
    ExpectEveryStrategy(fs::ReplayOutcome::Kind::kCorruption, off[3], 3, "length " + std::to_string(len));
  }
}

// The last record running past the end is a torn write: Incomplete, also
// when what follows it has a frame whose checksums hold but whose body is
// not a BlockRecordPB.
TEST_P(RecordPastEndTest, LastRecordIsIncomplete) {
  if (GetParam().version == 1) GTEST_SKIP() << "v1: every Incomplete is Corruption";
  std::vector<uint64_t> off = Write(20);
  SetLength(off[19], off[20], static_cast<uint32_t>(FileSizeOrDie(path_)));
  ExpectEveryStrategy(fs::ReplayOutcome::Kind::kPartialRecord, off[19], 19, "last record");

  std::string junk_frame;
  pb_container::AppendRecord(2, Slice(std::string("\xff\xff\xff", 3)), &junk_frame);
  off = Write(20, junk_frame);
  SetLength(off[19], off[20], static_cast<uint32_t>(FileSizeOrDie(path_)));
  ExpectEveryStrategy(fs::ReplayOutcome::Kind::kPartialRecord, off[19], 19,
                      "last record, a non-record frame after it");

  // The same frame holding a record: Corruption.
  std::string record_frame;
  pb_container::AppendRecord(2, Slice(MakeCreate(999, 0, 0).SerializeAsString()), &record_frame);
  off = Write(20, record_frame);
  SetLength(off[19], off[20], static_cast<uint32_t>(FileSizeOrDie(path_)));
  ExpectEveryStrategy(fs::ReplayOutcome::Kind::kCorruption, off[19], 19,
                      "last record, a record frame after it");
}

// v1 cannot tell: every record running past the end is Corruption, as before.
TEST_P(RecordPastEndTest, TruncatedFilesUnchanged) {
  const std::vector<uint64_t> off = Write(20);
  for (uint64_t cut : {uint64_t{1}, uint64_t{5}, off[20] - off[19] - 1}) {
    Write(20);
    ASSERT_OK(TruncateFileTo(path_, off[20] - cut));
    ExpectEveryStrategy(GetParam().version == 1 ? fs::ReplayOutcome::Kind::kCorruption
                                                : fs::ReplayOutcome::Kind::kPartialRecord,
                        off[19], 19, "cut " + std::to_string(cut));
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, RecordPastEndTest,
                         ::testing::Values(Variant{1, false}, Variant{2, false}, Variant{1, true},
                                           Variant{2, true}),
                         [](const ::testing::TestParamInfo<Variant>& i) {
                           return "v" + std::to_string(i.param.version) +
                                  (i.param.encrypted ? "_encrypted" : "_plain");
                         });

}  // namespace
}  // namespace test
}  // namespace kudu
