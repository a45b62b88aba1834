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

// Exhaustive mutation test: every small way a metadata file can be damaged,
// checked against what the format guarantees.
//
// For a file of 20 records (v1 and v2; plain and encrypted with 128-, 192-
// and 256-bit keys) every mutation of these families is tried:
//   - every byte changed to 4 values: xor 0x01, xor 0x80, set 0x00, set 0xff
//     (a value equal to the original byte leaves the file unchanged and is
//     counted separately);
//   - every truncation length, 0 .. size - 1;
//   - every zero-filled suffix, from each position to the end.
// For each, diff::CheckFile replays the file with every strategy (Windowed
// with several windows when it exists), with ContainerReplayer under each
// forced choice, and with the independent model of the format
// (util/spec_oracle.h): all must agree on records, outcome and container
// state. Then the result must be what the format guarantees, computed from
// the pristine record list alone:
//   - damage before the first record (encryption header, file header,
//     supplemental header): a header corruption, no records (bytes of the
//     encryption header's zero padding are not checked by the reader, so a
//     change there leaves the file as it was);
//   - otherwise, with record i the first one whose bytes changed: records
//     0..i-1 are delivered exactly (offsets and contents), the replay stops
//     at record i's offset, and the live set is exactly the live set of the
//     pristine records 0..i-1. The stop is a corruption (CRC-32C detects
//     every change of up to 32 bits in a record, v2's length checksum every
//     change of the length), except a v2 record cut short or a zero-filled
//     tail starting at a record, which are partial trailing records; v1
//     cannot tell either from damage, so both are corruptions there.
// Findings that the test could pass vacuously are guarded: the pristine file
// must replay cleanly with 20 records, and every outcome category the
// variant can produce must have been seen.
//
// KUDU_MUTATION_STRIDE=N tests every N-th position only (for slow sanitizer
// builds); the default is 1, every position.
#include <fcntl.h>
#include <unistd.h>

#include <glog/logging.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "kudu/fs/metadata_replay_strategy.h"
#include "util/differential_check.h"
#include "util/spec_oracle.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

struct Variant {
  uint32_t version;
  size_t key_bytes;  // 0: plain
  std::string Name() const {
    return "v" + std::to_string(version) +
           (key_bytes ? "_aes" + std::to_string(key_bytes * 8) : "_plain");
  }
};

// What the format guarantees for one mutated file.
struct Expectation {
  enum Kind { kUnchanged, kHeaderFailure, kStopAtRecord } kind = kUnchanged;
  size_t record = 0;  // kStopAtRecord: index of the first damaged record
  uint64_t header_offset = 0;  // kHeaderFailure: the damaged header's raw offset (§2)
  bool partial = false;  // kStopAtRecord: a partial trailing record (else corruption)
  bool clean = false;    // kStopAtRecord: the file ends cleanly there (a truncation at a boundary)
};

struct Tally {
  uint64_t mutations = 0;  // files replayed (unchanged ones included)
  uint64_t unchanged = 0, header_failures = 0, corruptions = 0, partials = 0, cleans = 0;
  diff::Counters runs;
};

// Rewrites `path` in place without truncating it to zero first: ext4
// (auto_da_alloc) flushes a file truncated to zero and rewritten when it is
// closed, which made each of these tens of thousands of small rewrites wait
// for the disk (25x slower on /tmp).
Status RewriteFile(const std::string& path, const std::string& bytes) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::FromErrno(path, errno);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t w = ::pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (w <= 0) {
      ::close(fd);
      return Status::IOError(path + ": pwrite failed");
    }
    done += static_cast<size_t>(w);
  }
  const bool ok = ::ftruncate(fd, static_cast<off_t>(bytes.size())) == 0;
  ::close(fd);
  return ok ? Status::OK() : Status::IOError(path + ": ftruncate failed");
}

uint64_t Stride() {
  const char* s = std::getenv("KUDU_MUTATION_STRIDE");
  if (s == nullptr || *s == '\0') return 1;
  const long v = std::strtol(s, nullptr, 10);
  return v > 0 ? static_cast<uint64_t>(v) : 1;
}

class MutationTest : public ::testing::TestWithParam<Variant> {
 protected:
  // Every damaged file makes ContainerReplayer log its fallback: tens of
  // thousands of expected warnings.
  static void SetUpTestSuite() { FLAGS_minloglevel = 2; }

  void SetUp() override {
    const Variant& v = GetParam();
    MetadataFileOptions fopts;
    fopts.version = v.version;
    if (v.key_bytes) {
      key_ = TestServerKey(v.key_bytes);
      fopts.server_key = &key_;
      ASSERT_TRUE(CipherAlgorithmForKeyBits(static_cast<int>(v.key_bytes * 8), &alg_).ok());
      fopts.algorithm = alg_;
      opts_.key = &key_;
    }
    records_ = MakeRecordSequence(20);
    const std::string pristine_path = dir_.Join("pristine.metadata");
    ASSERT_TRUE(WriteMetadataFile(pristine_path, records_, fopts).ok());
    ASSERT_TRUE(ReadFileToString(pristine_path, &pristine_).ok());
    path_ = dir_.Join("mutated.metadata");
    // Data file large enough for every CREATE of the sequence.
    opts_.data_file_size = 1 << 20;
    if (!diff::WindowedAvailable()) opts_.windows.clear();
    else opts_.windows = {7, 64};  // 1-byte windows: replay_equivalence_test

    // The pristine layout, from the independent model; cross-checked with
    // Streaming and the writer's record list.
    oracle::OracleResult o = oracle::OracleReplay(pristine_, opts_.key);
    ASSERT_EQ(oracle::OracleKind::kClean, o.kind) << o.why;
    ASSERT_EQ(records_.size(), o.records.size());
    for (size_t i = 0; i < o.records.size(); i++) {
      ASSERT_EQ(records_[i].SerializeAsString(), o.records[i].record.SerializeAsString());
      offsets_.push_back(o.records[i].offset);
    }
    offsets_.push_back(pristine_.size());  // end of the last record
    data_start_ = v.key_bytes ? kEncryptionHeaderSize : 0;
    ASSERT_GT(offsets_[0], data_start_ + 16u);  // the supplemental header is there

    // Expected live set after records 0..i-1, for every i.
    for (size_t i = 0; i <= records_.size(); i++) {
      oracle::OracleContainer c(opts_.data_file_size, data_start_, 4096);
      for (size_t k = 0; k < i; k++) c.Apply(records_[k], offsets_[k]);
      ASSERT_TRUE(c.malformed.empty());
      expected_live_.push_back(c.live);
    }
    ASSERT_FALSE(expected_live_.back().empty());
    ASSERT_NE(expected_live_[10], expected_live_[11]);

    diff::Run ref;
    ASSERT_EQ("", diff::CheckFile(pristine_path, pristine_, opts_, &ref));
    ASSERT_TRUE(ref.outcome.clean());
    ASSERT_EQ(20u, ref.outcome.records);
  }

  // §2: the raw offset a problem at byte `p` of the headers is reported
  // at: the file header's start, or the supplemental header's record offset.
  uint64_t HeaderAt(uint64_t p) const {
    const uint64_t file_header_end = data_start_ + (GetParam().version == 1 ? 12 : 16);
    return p < file_header_end ? data_start_ : file_header_end;
  }

  // Index of the record holding byte `p` (p >= offsets_[0]).
  size_t RecordAt(uint64_t p) const {
    size_t i = 0;
    while (p >= offsets_[i + 1]) i++;
    return i;
  }

  // The encryption header's zero padding, which no reader checks.
  bool InPadding(uint64_t p) const {
    return data_start_ > 0 && p >= 8 + WrappedKeyFieldSize(alg_) && p < kEncryptionHeaderSize;
  }

  // Byte `p` changed from `orig` to `nv`. Plain or AES-CTR, the plaintext
  // changes by the same XOR, so the model knows what the reader decodes.
  Expectation ForChangedByte(uint64_t p, uint8_t orig, uint8_t nv) const {
    Expectation e;
    if (p < offsets_[0]) {
      e.kind = InPadding(p) ? Expectation::kUnchanged : Expectation::kHeaderFailure;
      e.header_offset = HeaderAt(p);
      // A v2 file whose version's low byte now reads 1 is read as v1: its
      // 12-byte file header holds, and the supplemental header's record,
      // read from the v2 header checksum on, fails. (A v1 file read as v2
      // fails at the file header's checksum, reported at the header.)
      if (p == data_start_ + 8 && GetParam().version == 2 && (2u ^ orig ^ nv) == 1u) {
        e.header_offset = data_start_ + 12;
      }
      return e;
    }
    e.kind = Expectation::kStopAtRecord;
    e.record = RecordAt(p);
    return e;
  }

  Expectation ForTruncation(uint64_t len) const {
    Expectation e;
    if (len < offsets_[0]) {
      e.kind = Expectation::kHeaderFailure;
      // The file header is read as 16 bytes even for v1 (§2).
      e.header_offset = len < data_start_ + 16 ? data_start_ : HeaderAt(len);
      return e;
    }
    e.kind = Expectation::kStopAtRecord;
    e.record = RecordAt(len);  // the record cut (or the one that would start at len)
    e.clean = len == offsets_[e.record];
    e.partial = !e.clean && GetParam().version == 2;
    return e;
  }

  Expectation ForZeroFill(uint64_t p) const {
    Expectation e;
    uint64_t q = p;  // the first byte that really changes
    while (q < pristine_.size() && pristine_[q] == 0) q++;
    if (q == pristine_.size()) return e;  // already zero: unchanged
    if (q < offsets_[0]) {
      e.kind = Expectation::kHeaderFailure;
      e.header_offset = HeaderAt(q);
      return e;
    }
    e.kind = Expectation::kStopAtRecord;
    e.record = RecordAt(q);
    // A zero tail from the record's start (its first bytes may have been
    // zero already) is a write whose size reached disk before its data.
    bool from_start = true;
    for (uint64_t k = offsets_[e.record]; k < p; k++) from_start &= pristine_[k] == 0;
    e.partial = from_start && GetParam().version == 2;
    return e;
  }

  void Check(const std::string& bytes, const Expectation& e, const std::string& what,
             Tally* t) {
    ASSERT_TRUE(RewriteFile(path_, bytes).ok());
    diff::Run run;
    const std::string d = diff::CheckFile(path_, bytes, opts_, &run, &t->runs);
    ASSERT_EQ("", d) << what;
    t->mutations++;
    const fs::ReplayOutcome& out = run.outcome;
    switch (e.kind) {
      case Expectation::kUnchanged:
        t->unchanged++;
        ASSERT_TRUE(!run.open_failed && out.clean() && out.records == records_.size()) << what;
        ASSERT_EQ(expected_live_.back(), LiveOf(run)) << what;
        return;
      case Expectation::kHeaderFailure:
        t->header_failures++;
        if (run.open_failed) {
          // Only the encryption header is checked at open time.
          ASSERT_GT(data_start_, 0u) << what;
          ASSERT_TRUE(run.open_status.IsCorruption()) << what << ": " << run.open_status.ToString();
        } else {
          ASSERT_EQ(fs::ReplayOutcome::Kind::kCorruption, out.kind) << what << ": " << out.ToString();
          ASSERT_EQ(e.header_offset, out.offset) << what;
          ASSERT_EQ(0u, out.records) << what;
          ASSERT_TRUE(run.state.live.empty()) << what;
        }
        return;
      case Expectation::kStopAtRecord:
        break;
    }
    ASSERT_FALSE(run.open_failed) << what << ": " << run.open_status.ToString();
    if (e.clean) {
      t->cleans++;
      ASSERT_TRUE(out.clean()) << what << ": " << out.ToString();
    } else if (e.partial) {
      t->partials++;
      ASSERT_EQ(fs::ReplayOutcome::Kind::kPartialRecord, out.kind) << what << ": " << out.ToString();
    } else {
      t->corruptions++;
      ASSERT_EQ(fs::ReplayOutcome::Kind::kCorruption, out.kind) << what << ": " << out.ToString();
      // The error names the file and the record's offset.
      ASSERT_NE(std::string::npos, out.status.ToString().find(path_)) << what;
      ASSERT_NE(std::string::npos,
                out.status.ToString().find("offset " + std::to_string(offsets_[e.record])))
          << what << ": " << out.status.ToString();
    }
    ASSERT_EQ(offsets_[e.record], out.offset) << what << ": " << out.ToString();
    ASSERT_EQ(e.record, out.records) << what;
    ASSERT_EQ(e.record, run.records.size()) << what;
    for (size_t i = 0; i < e.record; i++) {
      ASSERT_EQ(offsets_[i], run.records[i].first) << what;
      ASSERT_EQ(test::SerializeBlockRecord(fs::BlockRecordFromPB(records_[i])), run.records[i].second)
          << what;
    }
    ASSERT_EQ(expected_live_[e.record], LiveOf(run)) << what;
  }

  static std::map<uint64_t, std::pair<int64_t, int64_t>> LiveOf(const diff::Run& run) {
    return std::map<uint64_t, std::pair<int64_t, int64_t>>(run.state.live.begin(),
                                                          run.state.live.end());
  }

  void Report(const char* family, const Tally& t) {
    std::cout << "[mutations] " << GetParam().Name() << " " << family << ": " << t.mutations
              << " files (" << t.unchanged << " unchanged, " << t.header_failures
              << " header failures, " << t.corruptions << " corruptions, " << t.partials
              << " partial records, " << t.cleans << " clean), " << t.runs.strategy_runs
              << " strategy replays, " << t.runs.replayer_runs << " replayer replays, "
              << t.runs.oracle_runs << " model replays" << std::endl;
    RecordProperty(std::string(family) + "_mutations", static_cast<int>(t.mutations));
  }

  TempDir dir_;
  ServerKey key_;
  CipherAlgorithm alg_ = CipherAlgorithm::kAes128Ctr;
  diff::Options opts_;
  std::vector<BlockRecordPB> records_;
  std::string pristine_, path_;
  std::vector<uint64_t> offsets_;  // record starts, then the file size
  uint64_t data_start_ = 0;
  std::vector<std::map<uint64_t, std::pair<int64_t, int64_t>>> expected_live_;
};

TEST_P(MutationTest, EveryByteFourValues) {
  Tally t;
  const uint64_t stride = Stride();
  for (uint64_t p = 0; p < pristine_.size(); p += stride) {
    const uint8_t orig = static_cast<uint8_t>(pristine_[p]);
    const uint8_t values[] = {static_cast<uint8_t>(orig ^ 0x01), static_cast<uint8_t>(orig ^ 0x80),
                              0x00, 0xff};
    for (uint8_t nv : values) {
      std::string bytes = pristine_;
      bytes[p] = static_cast<char>(nv);
      Expectation e = nv == orig ? Expectation() : ForChangedByte(p, orig, nv);
      ASSERT_NO_FATAL_FAILURE(Check(bytes, e,
                                    "byte " + std::to_string(p) + " " + std::to_string(orig) +
                                        " -> " + std::to_string(nv),
                                    &t));
    }
  }
  Report("byte", t);
  EXPECT_GE(t.mutations, 4 * pristine_.size() / stride);
  EXPECT_GT(t.header_failures, 0u);
  EXPECT_GT(t.corruptions, 20u * 4 * 10 / stride);  // every record, every value
  EXPECT_GT(t.unchanged, 0u);                         // set 0x00 / 0xff on such bytes
}

// The version byte set to the other valid version, whatever its ciphertext:
// the random byte values above reach this only for some keys and IVs.
TEST_P(MutationTest, VersionReadAsTheOtherVersion) {
  Tally t;
  const uint64_t p = data_start_ + 8;
  const uint8_t orig = static_cast<uint8_t>(pristine_[p]);
  const uint8_t nv = static_cast<uint8_t>(orig ^ 1u ^ 2u);
  std::string bytes = pristine_;
  bytes[p] = static_cast<char>(nv);
  const Expectation e = ForChangedByte(p, orig, nv);
  ASSERT_EQ(GetParam().version == 2 ? data_start_ + 12 : data_start_, e.header_offset);
  ASSERT_NO_FATAL_FAILURE(Check(bytes, e, "version byte " + std::to_string(orig) + " -> " +
                                              std::to_string(nv), &t));
  EXPECT_EQ(1u, t.header_failures);
}

// A plain file whose magic reads as an encryption header's (what an
// encrypted file looks like to an open without a key, §5) is a bad magic:
// a header failure at offset 0, for every strategy and the oracle alike.
TEST_P(MutationTest, EncryptionMagicWhereThePlainMagicShouldBe) {
  if (data_start_ != 0) GTEST_SKIP() << "plain files only";
  Tally t;
  std::string bytes = pristine_;
  bytes.replace(0, 8, std::string("kuduenc\0", 8));
  Expectation e;
  e.kind = Expectation::kHeaderFailure;
  e.header_offset = 0;
  ASSERT_NO_FATAL_FAILURE(Check(bytes, e, "the encryption magic at offset 0", &t));
  EXPECT_EQ(1u, t.header_failures);
}

TEST_P(MutationTest, EveryTruncationLength) {
  Tally t;
  const uint64_t stride = Stride();
  for (uint64_t len = 0; len < pristine_.size(); len += stride) {
    ASSERT_NO_FATAL_FAILURE(
        Check(pristine_.substr(0, len), ForTruncation(len), "truncated to " + std::to_string(len), &t));
  }
  // Every record boundary, whatever the stride.
  for (size_t i = 0; i < records_.size(); i++) {
    ASSERT_NO_FATAL_FAILURE(Check(pristine_.substr(0, offsets_[i]), ForTruncation(offsets_[i]),
                                  "truncated at record " + std::to_string(i), &t));
  }
  Report("truncation", t);
  EXPECT_GT(t.header_failures, 0u);
  EXPECT_GE(t.cleans, records_.size());
  if (GetParam().version == 2) {
    EXPECT_GT(t.partials, 20u * 10 / stride);
    EXPECT_EQ(0u, t.corruptions);
  } else {
    EXPECT_EQ(0u, t.partials);
    EXPECT_GT(t.corruptions, 20u * 10 / stride);
  }
}

TEST_P(MutationTest, EveryZeroFilledSuffix) {
  Tally t;
  const uint64_t stride = Stride();
  for (uint64_t p = 0; p < pristine_.size(); p += stride) {
    std::string bytes = pristine_;
    for (uint64_t k = p; k < bytes.size(); k++) bytes[k] = 0;
    ASSERT_NO_FATAL_FAILURE(Check(bytes, ForZeroFill(p), "zero-filled from " + std::to_string(p), &t));
  }
  // From every record start, whatever the stride.
  for (size_t i = 0; i < records_.size(); i++) {
    std::string bytes = pristine_;
    for (uint64_t k = offsets_[i]; k < bytes.size(); k++) bytes[k] = 0;
    ASSERT_NO_FATAL_FAILURE(
        Check(bytes, ForZeroFill(offsets_[i]), "zero-filled from record " + std::to_string(i), &t));
  }
  Report("zero_fill", t);
  EXPECT_GT(t.header_failures, 0u);
  if (GetParam().version == 2) {
    EXPECT_GE(t.partials, records_.size());  // one per record start at least
  } else {
    EXPECT_EQ(0u, t.partials);
  }
  EXPECT_GT(t.corruptions, 20u * 10 / stride);
}

std::vector<Variant> AllVariants() {
  std::vector<Variant> v;
  for (uint32_t version : {1u, 2u}) {
    for (size_t key_bytes : {0, 16, 24, 32}) v.push_back({version, key_bytes});
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Variants, MutationTest, ::testing::ValuesIn(AllVariants()),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return info.param.Name();
                         });

}  // namespace
}  // namespace test
}  // namespace kudu
