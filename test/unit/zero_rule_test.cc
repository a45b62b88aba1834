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

// The all-zero rule of §5 and the chunked zero-tail check, tested directly:
// every source (the file layer's reference reads, the plain buffer, the
// decrypted buffer with its zero-run index, the window) against an oracle
// written from the spec's words, on files whose ciphertext is all zero in
// places, whose plaintext is all zero in others, for reads inside, across
// and around every such region, and for zero checks across the 4 MiB chunk
// boundaries.
#include "kudu/util/zero_rule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kudu/fs/buffer_record_source.h"
#include "kudu/fs/decrypted_buffer_source.h"
#include "kudu/fs/window_record_source.h"
#include "kudu/util/encryption.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_container_reader.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

constexpr uint64_t kChunk = pb_container::kZeroCheckChunkSize;

bool AllZero(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == 0; });
}

// A metadata-sized file whose raw bytes after the header are chosen by the
// test: `raw` is the ciphertext (encrypted) or the bytes (plain).
class RuleFile {
 public:
  RuleFile(bool encrypted, std::string raw) : encrypted_(encrypted), raw_(std::move(raw)) {
    key_ = test::TestServerKey();
    std::string header;
    if (encrypted_) {
      file_key_ = std::string(16, '\x5a');
      EXPECT_OK(BuildEncryptionHeader(CipherAlgorithm::kAes128Ctr, file_key_, key_, &header));
      EXPECT_OK(FileCipher::Create(CipherAlgorithm::kAes128Ctr, file_key_, &cipher_));
    }
    start_ = header.size();
    path_ = dir_.Join("rule.metadata");
    EXPECT_OK(test::WriteStringToFile(path_, header + raw_));
    EXPECT_OK(RandomAccessFile::Open(path_, encrypted_ ? &key_ : nullptr, &file_));
  }

  uint64_t start() const { return start_; }
  uint64_t size() const { return start_ + raw_.size(); }
  FileCipher* cipher() const { return cipher_.get(); }
  RandomAccessFile* file() const { return file_.get(); }

  // The bytes on disk at [offset, offset + n).
  std::string Raw(uint64_t offset, uint64_t n) const { return raw_.substr(offset - start_, n); }

  // What the reference gives for one read of [offset, offset + n), from the
  // rule's words: the bytes of a plain file; for an encrypted file zeros when
  // the ciphertext is all zero, else its decryption.
  std::string ReadsAs(uint64_t offset, uint64_t n) const {
    std::string ct = Raw(offset, n);
    if (!encrypted_ || AllZero(ct)) return ct;
    std::string pt(n, '\0');
    EXPECT_OK(cipher_->Crypt(offset, reinterpret_cast<const uint8_t*>(ct.data()),
                             reinterpret_cast<uint8_t*>(&pt[0]), n));
    return pt;
  }

  // Step 3's zero-tail check, from its words: chunk by chunk from `offset`,
  // each chunk one read.
  bool ZeroCheck(uint64_t offset, uint64_t n) const {
    for (uint64_t o = offset; o < offset + n; o += kChunk) {
      if (!AllZero(ReadsAs(o, std::min(kChunk, offset + n - o)))) return false;
    }
    return true;
  }

  // The payload decrypted in one pass with its zero runs indexed, as the
  // Encrypted-InMemory strategy prepares it.
  std::unique_ptr<DecryptedBufferSource> Decrypted(std::string* buf, ZeroRunIndex* index) const {
    *buf = raw_;
    std::unique_ptr<DecryptedBufferSource> src(new DecryptedBufferSource(
        path_, reinterpret_cast<uint8_t*>(&(*buf)[0]), start_, size(), cipher_.get()));
    EXPECT_OK(src->Prepare(index));
    return src;
  }

  const std::string& raw() const { return raw_; }
  bool encrypted() const { return encrypted_; }

 private:
  const bool encrypted_;
  const std::string raw_;
  test::TempDir dir_;
  ServerKey key_;
  std::string file_key_;
  std::unique_ptr<FileCipher> cipher_;
  uint64_t start_ = 0;
  std::string path_;
  std::unique_ptr<RandomAccessFile> file_;
};

// Random bytes with regions [begin, end) (payload offsets) of zero raw bytes
// and, when `cipher` is given, regions whose plaintext is zero.
std::string MakeRaw(size_t n, uint64_t start, FileCipher* cipher,
                    const std::vector<std::pair<size_t, size_t>>& zero_raw,
                    const std::vector<std::pair<size_t, size_t>>& zero_plain) {
  std::string raw = test::RandomBytes(n, 7);
  for (auto r : zero_raw) std::fill(raw.begin() + r.first, raw.begin() + r.second, '\0');
  if (cipher != nullptr) {
    for (auto r : zero_plain) {
      std::string zeros(r.second - r.first, '\0');
      EXPECT_OK(cipher->Crypt(start + r.first, reinterpret_cast<const uint8_t*>(zeros.data()),
                              reinterpret_cast<uint8_t*>(&raw[r.first]), zeros.size()));
    }
  }
  return raw;
}

// The small file's regions, as payload offsets.
constexpr size_t kSmall = 16 << 10;
const std::vector<std::pair<size_t, size_t>> kZeroRaw = {
    {200, 500}, {1000, 1003}, {3000, 3004}, {5000, 5001}, {kSmall - 600, kSmall}};
const std::vector<std::pair<size_t, size_t>> kZeroPlain = {{2000, 2400}, {7000, 7003}};

std::unique_ptr<RuleFile> SmallFile(bool encrypted) {
  std::unique_ptr<FileCipher> cipher;
  if (encrypted) {
    EXPECT_OK(FileCipher::Create(CipherAlgorithm::kAes128Ctr, std::string(16, '\x5a'), &cipher));
  }
  return std::unique_ptr<RuleFile>(new RuleFile(
      encrypted, MakeRaw(kSmall, encrypted ? kEncryptionHeaderSize : 0, cipher.get(), kZeroRaw,
                         kZeroPlain)));
}

// Reads inside, across and around every region edge, plus random ones.
std::vector<std::pair<uint64_t, size_t>> ReadRanges(const RuleFile& f) {
  std::vector<std::pair<uint64_t, size_t>> ranges;
  std::vector<uint64_t> edges;
  for (const auto* regions : {&kZeroRaw, &kZeroPlain}) {
    for (auto r : *regions) {
      edges.push_back(f.start() + r.first);
      edges.push_back(f.start() + r.second);
    }
  }
  for (uint64_t e : edges) {
    for (size_t n : {1, 2, 3, 4, 5, 7, 8, 16, 64, 301, 600}) {
      for (uint64_t o = e > n + 1 ? e - n - 1 : 0; o <= e + 1; o++) {
        if (o >= f.start() && o + n <= f.size()) ranges.emplace_back(o, n);
      }
    }
  }
  std::mt19937 rng(3);
  for (int i = 0; i < 2000; i++) {
    const size_t n = rng() % 70;
    ranges.emplace_back(f.start() + rng() % (kSmall - n + 1), n);
  }
  return ranges;
}

std::string Str(const Slice& s) { return std::string(reinterpret_cast<const char*>(s.data()), s.size()); }

class ZeroRuleTest : public ::testing::TestWithParam<bool> {};

TEST_P(ZeroRuleTest, EveryReadGivesTheReferenceBytes) {
  std::unique_ptr<RuleFile> f = SmallFile(GetParam());
  FileRecordSource file_src(f->file());
  ZeroRunIndex window_index;
  WindowStats stats;
  WindowRecordSource window(f->file(), 1024, &window_index, &stats);
  BufferRecordSource plain(f->file()->filename(), reinterpret_cast<const uint8_t*>(f->raw().data()),
                           f->start(), f->size());
  for (auto r : ReadRanges(*f)) {
    const std::string want = f->ReadsAs(r.first, r.second);
    SCOPED_TRACE("read of " + std::to_string(r.second) + " at " + std::to_string(r.first));
    Slice got;
    ASSERT_OK(file_src.Read(r.first, r.second, &got));
    EXPECT_EQ(want, Str(got)) << "file layer";
    ASSERT_OK(window.Read(r.first, r.second, &got));
    EXPECT_EQ(want, Str(got)) << "window";
    if (f->encrypted()) {
      // The decrypted buffer zeroes reads in place (the record reader never
      // reads a byte twice after one), so each read gets a fresh buffer.
      std::string buf;
      ZeroRunIndex index;
      auto dec = f->Decrypted(&buf, &index);
      ASSERT_OK(dec->Read(r.first, r.second, &got));
      EXPECT_EQ(want, Str(got)) << "decrypted buffer";
      // The rule with the ciphertext at hand.
      std::string ct = f->Raw(r.first, r.second);
      ASSERT_OK(DecryptReadInPlace(f->cipher(), r.first, reinterpret_cast<uint8_t*>(&ct[0]),
                                   ct.size()));
      EXPECT_EQ(want, ct) << "DecryptReadInPlace";
    } else {
      ASSERT_OK(plain.Read(r.first, r.second, &got));
      EXPECT_EQ(want, Str(got)) << "buffer";
    }
  }
}

TEST_P(ZeroRuleTest, ZeroCheckOfEveryRange) {
  std::unique_ptr<RuleFile> f = SmallFile(GetParam());
  FileRecordSource file_src(f->file());
  ZeroRunIndex window_index;
  WindowStats stats;
  WindowRecordSource window(f->file(), 1024, &window_index, &stats);
  BufferRecordSource plain(f->file()->filename(), reinterpret_cast<const uint8_t*>(f->raw().data()),
                           f->start(), f->size());
  int zero = 0;
  for (auto r : ReadRanges(*f)) {
    const bool want = f->ZeroCheck(r.first, r.second);
    zero += want;
    SCOPED_TRACE("zero check of " + std::to_string(r.second) + " at " + std::to_string(r.first));
    bool got = !want;
    ASSERT_OK(file_src.ReadIsAllZero(r.first, r.second, &got));
    EXPECT_EQ(want, got) << "file layer";
    got = !want;
    ASSERT_OK(window.ReadIsAllZero(r.first, r.second, &got));
    EXPECT_EQ(want, got) << "window";
    got = !want;
    if (f->encrypted()) {
      std::string buf;
      ZeroRunIndex index;
      auto dec = f->Decrypted(&buf, &index);
      ASSERT_OK(dec->ReadIsAllZero(r.first, r.second, &got));
      EXPECT_EQ(want, got) << "decrypted buffer";
    } else {
      ASSERT_OK(plain.ReadIsAllZero(r.first, r.second, &got));
      EXPECT_EQ(want, got) << "buffer";
    }
  }
  EXPECT_GT(zero, 100);  // the ranges do exercise both answers
}

// A zero check reads the rest of the file in 4 MiB chunks counted from where
// it starts, each chunk one read: a chunk whose ciphertext is all zero and
// the next whose plaintext is all zero read as zeros together, but not when
// the chunk boundary falls elsewhere.
TEST_P(ZeroRuleTest, ZeroCheckAcrossChunkBoundaries) {
  const bool encrypted = GetParam();
  const uint64_t start = encrypted ? kEncryptionHeaderSize : 0;
  const size_t n = 2 * kChunk + (2 << 20);
  const size_t t = 1 << 20;  // payload offset where the zeros start
  std::unique_ptr<FileCipher> cipher;
  if (encrypted) {
    ASSERT_OK(FileCipher::Create(CipherAlgorithm::kAes128Ctr, std::string(16, '\x5a'), &cipher));
  }
  std::vector<std::pair<size_t, size_t>> zero_raw = {{t, t + kChunk}};
  std::vector<std::pair<size_t, size_t>> zero_plain = {{t + kChunk, n}};
  if (!encrypted) zero_raw = {{t, n}};
  RuleFile f(encrypted, MakeRaw(n, start, cipher.get(), zero_raw, zero_plain));
  FileRecordSource file_src(f.file());
  ZeroRunIndex window_index;
  WindowStats stats;
  WindowRecordSource window(f.file(), 64 << 10, &window_index, &stats);
  BufferRecordSource plain(f.file()->filename(), reinterpret_cast<const uint8_t*>(f.raw().data()),
                           start, f.size());
  const uint64_t zeros = start + t;
  int zero = 0;
  for (uint64_t o : {zeros - 8, zeros - 1, zeros, zeros + 1, zeros + 8, zeros + kChunk - 1,
                     zeros + kChunk, zeros + kChunk + 4}) {
    const bool want = f.ZeroCheck(o, f.size() - o);
    zero += want;
    SCOPED_TRACE("zero check from " + std::to_string(o));
    bool got = !want;
    ASSERT_OK(file_src.ReadIsAllZero(o, f.size() - o, &got));
    EXPECT_EQ(want, got) << "file layer";
    got = !want;
    ASSERT_OK(window.ReadIsAllZero(o, f.size() - o, &got));
    EXPECT_EQ(want, got) << "window";
    got = !want;
    if (encrypted) {
      std::string buf;
      ZeroRunIndex index;
      auto dec = f.Decrypted(&buf, &index);
      ASSERT_OK(dec->ReadIsAllZero(o, f.size() - o, &got));
      EXPECT_EQ(want, got) << "decrypted buffer";
    } else {
      ASSERT_OK(plain.ReadIsAllZero(o, f.size() - o, &got));
      EXPECT_EQ(want, got) << "buffer";
    }
  }
  // Plain: from the zeros on. Encrypted: only from exactly where the zero
  // ciphertext starts (a chunk of zero ciphertext, then zero plaintext), or
  // from inside the zero plaintext.
  EXPECT_EQ(encrypted ? 3 : 6, zero);
}

INSTANTIATE_TEST_SUITE_P(PlainAndEncrypted, ZeroRuleTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? "Encrypted" : "Plain";
                         });

TEST(ZeroRuleTest, CountZeroRunsAgreesWithTheIndex) {
  std::string raw = MakeRaw(1 << 16, 0, nullptr, kZeroRaw, {});
  const auto* p = reinterpret_cast<const uint8_t*>(raw.data());
  ZeroRunIndex index;
  index.Build(p, raw.size(), 0);
  EXPECT_EQ(index.run_count(), CountZeroRuns(p, raw.size(), raw.size()));
  ASSERT_GE(index.run_count(), 3u);
  EXPECT_EQ(2u, CountZeroRuns(p, raw.size(), 1));
}

}  // namespace
}  // namespace fs
}  // namespace kudu
