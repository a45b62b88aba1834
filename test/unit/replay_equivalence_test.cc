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

// Every strategy must give exactly Streaming's record stream and outcome, on
// healthy files and on files broken every way a small file can be broken.
#include <gtest/gtest.h>

#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/util/file.h"
#include "util/replay_test_util.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

struct Variant {
  uint32_t version;
  size_t server_key_bytes;  // 0: plain
  CipherAlgorithm algorithm;
  std::string Name() const {
    return "v" + std::to_string(version) +
           (server_key_bytes ? "_enc_key" + std::to_string(server_key_bytes * 8) + "_alg" +
                                   std::to_string(static_cast<int>(algorithm))
                             : "_plain");
  }
};

class ReplayEquivalenceTest : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    const Variant& v = GetParam();
    if (v.server_key_bytes) key_ = TestServerKey(v.server_key_bytes);
    opts_.version = v.version;
    opts_.server_key = v.server_key_bytes ? &key_ : nullptr;
    opts_.algorithm = v.algorithm;
    pristine_ = dir_.Join("pristine.metadata");
    path_ = dir_.Join("broken.metadata");
  }

  const ServerKey* key() const { return opts_.server_key; }

  // Writes `n` records and returns the record start offsets.
  std::vector<uint64_t> WritePristine(int n) {
    std::vector<BlockRecordPB> records = MakeRecordSequence(n);
    EXPECT_TRUE(WriteMetadataFile(pristine_, records, opts_).ok());
    StrategyRun ref = RunStrategy(fs::ReplayStrategyKind::kStreaming, pristine_, key());
    EXPECT_TRUE(ref.outcome.clean()) << ref.outcome.ToString();
    EXPECT_EQ(static_cast<size_t>(n), ref.records.size());
    std::vector<uint64_t> offsets;
    for (const auto& e : ref.records) offsets.push_back(e.offset);
    EXPECT_TRUE(ReadFileToString(pristine_, &pristine_bytes_).ok());
    return offsets;
  }

  void Restore() { ASSERT_TRUE(WriteStringToFile(path_, pristine_bytes_).ok()); }

  void ExpectSame(const std::string& what) {
    // Windows of a few bytes force records to straddle every boundary.
    ASSERT_EQ("", CompareWithStreaming(path_, key(), {4096, 1, 7, 64})) << what;
  }

  TempDir dir_;
  ServerKey key_;
  MetadataFileOptions opts_;
  std::string pristine_, path_, pristine_bytes_;
};

TEST_P(ReplayEquivalenceTest, HealthyFiles) {
  for (int n : {0, 1, 2, 100, 2000}) {
    WritePristine(n);
    Restore();
    ExpectSame("healthy file of " + std::to_string(n) + " records");
    StrategyRun ref = RunStrategy(fs::ReplayStrategyKind::kStreaming, path_, key());
    EXPECT_TRUE(ref.outcome.clean());
    EXPECT_EQ(static_cast<uint64_t>(n), ref.outcome.records);
  }
}

TEST_P(ReplayEquivalenceTest, EveryTruncationLength) {
  WritePristine(20);
  for (uint64_t len = 0; len <= pristine_bytes_.size(); len++) {
    Restore();
    ASSERT_TRUE(TruncateFileTo(path_, len).ok());
    ExpectSame("truncated to " + std::to_string(len));
  }
}

TEST_P(ReplayEquivalenceTest, ChangedByteAtEveryPosition) {
  WritePristine(20);
  for (uint64_t pos = 0; pos < pristine_bytes_.size(); pos++) {
    for (uint8_t mask : {0xff, 0x01}) {
      Restore();
      ASSERT_TRUE(FlipByte(path_, pos, mask).ok());
      ExpectSame("byte " + std::to_string(pos) + " xor " + std::to_string(mask));
    }
    Restore();
    ASSERT_TRUE(SetByte(path_, pos, 0).ok());
    ExpectSame("byte " + std::to_string(pos) + " zeroed");
  }
}

TEST_P(ReplayEquivalenceTest, ZeroFilledTails) {
  std::vector<uint64_t> offsets = WritePristine(20);
  // Zero-filled from each record start and from inside records: for an
  // encrypted file this is all-zero ciphertext, as a torn write leaves it.
  for (size_t i = 0; i < offsets.size(); i++) {
    for (uint64_t delta : {0, 1, 3, 4, 7, 8, 9, 12}) {
      Restore();
      ASSERT_TRUE(ZeroFillFrom(path_, offsets[i] + delta).ok());
      ExpectSame("zero-filled from record " + std::to_string(i) + " + " + std::to_string(delta));
    }
  }
  // Zeros appended after the last record: short tails exercise the reads
  // too short for the zero-run index.
  for (uint64_t n : {1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 100, 4096}) {
    Restore();
    ASSERT_TRUE(AppendZeros(path_, n).ok());
    ExpectSame("appended " + std::to_string(n) + " zeros");
  }
}

// A tail whose *plaintext* is zero (ciphertext = keystream): the reference
// decrypts each read, so this too is a zero tail.
TEST_P(ReplayEquivalenceTest, EncryptedZeroPlaintextTails) {
  if (key() == nullptr) GTEST_SKIP() << "plain file";
  WritePristine(20);
  for (uint64_t n : {1, 3, 4, 8, 9, 100, 5000}) {
    Restore();
    WriteEncryption enc;
    enc.server_key = key();
    std::unique_ptr<WritableFile> f;
    ASSERT_TRUE(WritableFile::Open(path_, CreateMode::kOpenExisting, enc, &f).ok());
    ASSERT_TRUE(f->Append(std::string(n, '\0')).ok());
    ASSERT_TRUE(f->Close().ok());
    ExpectSame("appended " + std::to_string(n) + " encrypted zeros");
  }
}

TEST_P(ReplayEquivalenceTest, ZeroRangesInTheMiddle) {
  std::vector<uint64_t> offsets = WritePristine(20);
  for (size_t i = 1; i + 1 < offsets.size(); i += 3) {
    for (uint64_t len : {1, 3, 4, 8, 12, 40}) {
      Restore();
      std::string bytes = pristine_bytes_;
      for (uint64_t k = offsets[i]; k < offsets[i] + len && k < bytes.size(); k++) bytes[k] = 0;
      ASSERT_TRUE(WriteStringToFile(path_, bytes).ok());
      ExpectSame("zeroed " + std::to_string(len) + " bytes at record " + std::to_string(i));
    }
  }
}

TEST_P(ReplayEquivalenceTest, ZeroTailAcrossTheFourMiBChunk) {
  WritePristine(5);
  for (uint64_t n : {uint64_t{4} << 20, (uint64_t{4} << 20) + 1, (uint64_t{4} << 20) + 9}) {
    Restore();
    ASSERT_TRUE(AppendZeros(path_, n).ok());
    ExpectSame("appended " + std::to_string(n) + " zeros");
    // A non-zero byte in the second chunk makes it corruption, not a tail.
    ASSERT_TRUE(SetByte(path_, FileSizeOrDie(path_) - 1, 7).ok());
    ExpectSame("appended " + std::to_string(n) + " zeros, last byte 7");
  }
}

std::vector<Variant> AllVariants() {
  std::vector<Variant> v;
  for (uint32_t version : {1u, 2u}) {
    v.push_back({version, 0, CipherAlgorithm::kAes128Ctr});
    for (size_t key_bytes : {16, 24, 32}) {
      for (CipherAlgorithm alg : {CipherAlgorithm::kAes128Ctr, CipherAlgorithm::kAes192Ctr,
                                  CipherAlgorithm::kAes256Ctr}) {
        // Every server key size with its matching file key size, plus all
        // algorithms under a 128-bit server key.
        bool matching = FileKeySize(alg) == key_bytes;
        if (matching || key_bytes == 16) v.push_back({version, key_bytes, alg});
      }
    }
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Variants, ReplayEquivalenceTest, ::testing::ValuesIn(AllVariants()),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return info.param.Name();
                         });

}  // namespace
}  // namespace test
}  // namespace kudu
