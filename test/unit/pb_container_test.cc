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

// The PB container format (§2 of docs/on-disk-format.md): the writer, the
// byte layout, and the reference streaming reader
// (PbContainerRecordReader<FileRecordSource>) on real files, plain and
// encrypted, intact and damaged in every way the format doc names.
#include "kudu/util/pb_container_reader.h"

#include <google/protobuf/descriptor.pb.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kudu/fs/fs.pb.h"
#include "kudu/util/crc32c.h"
#include "kudu/util/encryption.h"
#include "kudu/util/file.h"
#include "kudu/util/io_fault_injector.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_container_writer.h"
#include "kudu/util/pb_util.pb.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using test::Contains;

using test::TempDir;


constexpr char kPbType[] = "kudu.BlockRecordPB";
constexpr uint64_t kMiB = 1024 * 1024;

uint32_t Le32(const std::string& s, size_t pos) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; i--) v = (v << 8) | static_cast<uint8_t>(s[pos + i]);
  return v;
}

std::string Le32Bytes(uint32_t v) {
  std::string s(4, '\0');
  for (int i = 0; i < 4; i++) s[i] = static_cast<char>(v >> (8 * i));
  return s;
}

uint32_t Crc(const std::string& s) { return crc::Crc32c(s.data(), s.size()); }

// A record framed by hand (not by pb_container_format), from the doc.
std::string FrameRecord(uint32_t version, const std::string& body) {
  std::string len = Le32Bytes(static_cast<uint32_t>(body.size()));
  if (version == 1) return len + body + Le32Bytes(Crc(len + body));
  return len + Le32Bytes(Crc(len)) + body + Le32Bytes(Crc(body));
}

// A file header built by hand.
std::string FileHeader(uint32_t version) {
  std::string h = std::string("kuducntr") + Le32Bytes(version);
  if (version >= 2) h += Le32Bytes(Crc(h));
  return h;
}

std::string SupHeaderBody() { return PbContainerWriter::SupplementalHeader(BlockRecordPB::descriptor()); }

// Where every record of a file written by WriteMetadataFile starts.
struct Layout {
  uint64_t start = 0;       // 0 or 64
  uint64_t sup_offset = 0;  // the supplemental header record
  std::vector<uint64_t> record_offsets;
  uint64_t end = 0;
};

Layout ComputeLayout(uint32_t version, bool encrypted, const std::vector<BlockRecordPB>& records) {
  Layout l;
  l.start = encrypted ? 64 : 0;
  l.sup_offset = l.start + (version == 1 ? 12 : 16);
  const uint64_t overhead = version == 1 ? 8 : 12;
  uint64_t off = l.sup_offset + overhead + SupHeaderBody().size();
  for (const auto& r : records) {
    l.record_offsets.push_back(off);
    off += overhead + r.ByteSizeLong();
  }
  l.end = off;
  return l;
}

// Wraps a source, recording every request and checking the Source contract.
template <class Inner>
class RecordingSource {
 public:
  explicit RecordingSource(Inner* inner) : inner_(inner) {}
  const std::string& filename() const { return inner_->filename(); }
  uint64_t size() const { return inner_->size(); }
  uint64_t data_start() const { return inner_->data_start(); }
  Status Read(uint64_t offset, size_t n, Slice* out) {
    EXPECT_LE(offset + n, size()) << "read past the end requested";
    reads.emplace_back(offset, n);
    max_request = std::max<uint64_t>(max_request, n);
    return inner_->Read(offset, n, out);
  }
  Status ReadIsAllZero(uint64_t offset, uint64_t n, bool* all_zero) {
    EXPECT_LE(offset + n, size()) << "zero check past the end requested";
    zero_checks.emplace_back(offset, n);
    return inner_->ReadIsAllZero(offset, n, all_zero);
  }

  std::vector<std::pair<uint64_t, uint64_t>> reads;
  std::vector<std::pair<uint64_t, uint64_t>> zero_checks;
  uint64_t max_request = 0;

 private:
  Inner* inner_;
};

// The outcome of reading a whole container with the reference reader.
struct ReadResult {
  Status open;
  Status headers;
  Status last;  // the status that ended the record loop
  uint64_t last_offset = 0;  // record_offset() when the loop ended
  std::vector<std::string> bodies;
  std::vector<uint64_t> offsets;
  FileIoStats stats;
  uint64_t file_size = 0;
  uint64_t max_request = 0;
  std::vector<std::pair<uint64_t, uint64_t>> reads;
  uint32_t version = 0;

  // The first non-OK status of the whole read.
  const Status& error() const {
    if (!open.ok()) return open;
    if (!headers.ok()) return headers;
    return last;
  }
};

ReadResult ReadContainer(const std::string& path, const ServerKey* key = nullptr) {
  ReadResult res;
  std::unique_ptr<RandomAccessFile> file;
  res.open = RandomAccessFile::Open(path, key, &file);
  if (!res.open.ok()) return res;
  res.file_size = file->size();
  FileRecordSource fsrc(file.get());
  RecordingSource<FileRecordSource> src(&fsrc);
  PbContainerRecordReader<RecordingSource<FileRecordSource>> reader(&src);
  res.headers = reader.ReadHeaders(kPbType);
  if (res.headers.ok()) {
    res.version = reader.version();
    while (true) {
      Slice body;
      Status s = reader.ReadNextRecord(&body);
      if (!s.ok()) {
        res.last = s;
        res.last_offset = reader.record_offset();
        // A failed read does not move the reader.
        EXPECT_EQ(reader.record_offset(), reader.next_offset());
        break;
      }
      res.bodies.push_back(body.ToString());
      res.offsets.push_back(reader.record_offset());
      EXPECT_EQ(reader.record_offset() + body.size() + (reader.version() == 1 ? 8 : 12),
                reader.next_offset());
      if (res.bodies.size() > 10000000) break;
    }
  }
  res.stats = file->stats();
  res.max_request = src.max_request;
  res.reads = src.reads;
  return res;
}

void ExpectErrorNames(const Status& s, const std::string& path, const std::string& where) {
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
  if (!where.empty()) {
    EXPECT_TRUE(Contains(s.ToString(), where)) << s.ToString();
  }
}

std::string OffsetStr(uint64_t o) { return "offset " + std::to_string(o); }

// Replaces the file at `path` with `contents`. The old file is unlinked
// first: truncating and rewriting it makes ext4 (auto_da_alloc) flush the
// data on close, which costs a disk write per call.
Status Rewrite(const std::string& path, const std::string& contents) {
  (void)::unlink(path.c_str());
  return test::WriteStringToFile(path, contents);
}

// Writes `cleartext` (starting with the container's file header) through
// the file layer, encrypted when `key` is set. For hand-made containers.
Status WriteRawContainer(const std::string& path, const std::string& cleartext,
                         const ServerKey* key = nullptr,
                         CipherAlgorithm alg = CipherAlgorithm::kAes128Ctr) {
  WriteEncryption enc;
  enc.server_key = key;
  enc.algorithm = alg;
  std::unique_ptr<WritableFile> f;
  (void)::unlink(path.c_str());
  RETURN_NOT_OK(WritableFile::Open(path, CreateMode::kCreateNew, enc, &f));
  if (!cleartext.empty()) RETURN_NOT_OK(f->Write(f->encryption_header_size(), cleartext));
  return f->Close();
}

std::string Slurp(const std::string& path) {
  std::string s;
  EXPECT_OK(test::ReadFileToString(path, &s));
  return s;
}

// The cleartext of a (possibly encrypted) file, via the file layer.
std::string Cleartext(const std::string& path, const ServerKey* key) {
  std::unique_ptr<RandomAccessFile> f;
  EXPECT_OK(RandomAccessFile::Open(path, key, &f));
  if (!f) return "";
  std::string out(f->size() - f->encryption_header_size(), '\0');
  if (out.empty()) return out;
  EXPECT_OK(f->Read(f->encryption_header_size(), reinterpret_cast<uint8_t*>(&out[0]), out.size()));
  return out;
}

class PbContainerTest : public ::testing::Test {
 protected:
  void SetUp() override { IoFaultInjector::Disarm(); }
  void TearDown() override { IoFaultInjector::Disarm(); }

  TempDir dir_;
  ServerKey key_ = test::TestServerKey(16);
};

// ---------------------------------------------------------------------------
// Round trips

struct RoundTripCase {
  uint32_t version;
  int records;
  bool encrypted;
  bool one_write_per_record;
};

class PbContainerRoundTripTest : public PbContainerTest,
                                 public ::testing::WithParamInterface<RoundTripCase> {};

TEST_P(PbContainerRoundTripTest, WriteThenReadBack) {
  const RoundTripCase& c = GetParam();
  const std::string path = dir_.Join("rt.metadata");
  std::vector<BlockRecordPB> records = test::MakeRecordSequence(c.records);
  test::MetadataFileOptions opts;
  opts.version = c.version;
  opts.server_key = c.encrypted ? &key_ : nullptr;
  opts.one_write_per_record = c.one_write_per_record;
  ASSERT_OK(test::WriteMetadataFile(path, records, opts));
  const Layout layout = ComputeLayout(c.version, c.encrypted, records);
  ASSERT_EQ(layout.end, test::FileSizeOrDie(path));

  // Byte layout of the header, checked by hand against the doc.
  std::string disk = Slurp(path);
  std::string clear = c.encrypted ? Cleartext(path, &key_) : disk;
  if (c.encrypted) {
    EXPECT_EQ("kuduenc", disk.substr(0, 7));
    EXPECT_EQ(0, disk[7]);  // AES-128-CTR
    // The file header is not in the clear on disk.
    EXPECT_NE("kuducntr", disk.substr(64, 8));
  }
  ASSERT_GE(clear.size(), 16u);
  EXPECT_EQ("kuducntr", clear.substr(0, 8));
  EXPECT_EQ(c.version, Le32(clear, 8));
  size_t pos = 12;
  if (c.version == 2) {
    EXPECT_EQ(Crc(clear.substr(0, 12)), Le32(clear, 12));
    pos = 16;
  }
  // The supplemental header record, framed as the doc says.
  const uint32_t sup_len = Le32(clear, pos);
  std::string sup_body;
  if (c.version == 2) {
    EXPECT_EQ(Crc(clear.substr(pos, 4)), Le32(clear, pos + 4));
    sup_body = clear.substr(pos + 8, sup_len);
    EXPECT_EQ(Crc(sup_body), Le32(clear, pos + 8 + sup_len));
  } else {
    sup_body = clear.substr(pos + 4, sup_len);
    EXPECT_EQ(Crc(clear.substr(pos, 4 + sup_len)), Le32(clear, pos + 4 + sup_len));
  }
  ContainerSupHeaderPB sup;
  ASSERT_TRUE(sup.ParseFromString(sup_body));
  EXPECT_EQ("kudu.BlockRecordPB", sup.pb_type());
  ASSERT_GE(sup.protos().file_size(), 1);
  // The record type's file comes last (dependencies first) and defines it.
  const auto& last_file = sup.protos().file(sup.protos().file_size() - 1);
  EXPECT_EQ("kudu/fs/fs.proto", last_file.name());
  bool found = false;
  for (const auto& m : last_file.message_type()) found |= m.name() == "BlockRecordPB";
  EXPECT_TRUE(found);
  // Every record's frame, by hand.
  for (size_t i = 0; i < records.size() && i < 50; i++) {
    EXPECT_EQ(FrameRecord(c.version, records[i].SerializeAsString()),
              clear.substr(layout.record_offsets[i] - layout.start,
                           records[i].ByteSizeLong() + (c.version == 1 ? 8 : 12)));
  }

  // Read it back with the reference reader.
  ReadResult r = ReadContainer(path, c.encrypted ? &key_ : nullptr);
  ASSERT_OK(r.open);
  ASSERT_OK(r.headers);
  EXPECT_EQ(c.version, r.version);
  EXPECT_TRUE(r.last.IsEndOfFile()) << r.last.ToString();
  EXPECT_EQ(layout.end, r.last_offset);
  ASSERT_EQ(records.size(), r.bodies.size());
  EXPECT_EQ(layout.record_offsets, r.offsets);
  for (size_t i = 0; i < records.size(); i++) {
    BlockRecordPB got;
    ASSERT_TRUE(got.ParseFromString(r.bodies[i])) << i;
    ASSERT_EQ(records[i].SerializeAsString(), got.SerializeAsString()) << i;
  }
  // Streaming cost: the encryption header (1 read), the file header (1
  // read), then exactly 2 reads per record, supplemental header included.
  const uint64_t expected_reads = (c.encrypted ? 1 : 0) + 1 + 2 * (records.size() + 1);
  EXPECT_EQ(expected_reads, r.stats.read_syscalls);
  // Every byte is read once, except that a v1 header is read as 16 bytes
  // (4 bytes of the supplemental header twice).
  EXPECT_EQ(layout.end + (c.version == 1 ? 4 : 0), r.stats.bytes_read);
  // The read pattern: 16 at the header, then (prefix, body + crc) pairs.
  ASSERT_EQ(1 + 2 * (records.size() + 1), r.reads.size());
  EXPECT_EQ(std::make_pair(layout.start, uint64_t{16}), r.reads[0]);
  const uint64_t prefix = c.version == 1 ? 4 : 8;
  EXPECT_EQ(std::make_pair(layout.sup_offset, prefix), r.reads[1]);
  EXPECT_EQ(std::make_pair(layout.sup_offset + prefix, uint64_t{sup_body.size() + 4}), r.reads[2]);
  for (size_t i = 0; i < records.size(); i++) {
    ASSERT_EQ(std::make_pair(layout.record_offsets[i], prefix), r.reads[3 + 2 * i]) << i;
    ASSERT_EQ(std::make_pair(layout.record_offsets[i] + prefix,
                             uint64_t{records[i].ByteSizeLong() + 4}),
              r.reads[4 + 2 * i])
        << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllVersions, PbContainerRoundTripTest,
    ::testing::Values(RoundTripCase{2, 0, false, false}, RoundTripCase{2, 1, false, false},
                      RoundTripCase{2, 1, false, true}, RoundTripCase{2, 100000, false, false},
                      RoundTripCase{1, 0, false, false}, RoundTripCase{1, 1, false, false},
                      RoundTripCase{1, 100000, false, false}, RoundTripCase{2, 0, true, false},
                      RoundTripCase{2, 1, true, false}, RoundTripCase{2, 100000, true, false},
                      RoundTripCase{1, 0, true, false}, RoundTripCase{1, 1, true, true},
                      RoundTripCase{1, 100000, true, false}, RoundTripCase{2, 300, false, true},
                      RoundTripCase{2, 300, true, true}),
    [](const ::testing::TestParamInfo<RoundTripCase>& info) {
      return "v" + std::to_string(info.param.version) + "_" + std::to_string(info.param.records) +
             (info.param.encrypted ? "_encrypted" : "_plain") +
             (info.param.one_write_per_record ? "_perrecord" : "_batched");
    });

TEST_F(PbContainerTest, AllThreeAlgorithmsAndServerKeySizesRoundTrip) {
  auto records = test::MakeRecordSequence(20);
  for (CipherAlgorithm alg : {CipherAlgorithm::kAes128Ctr, CipherAlgorithm::kAes192Ctr,
                              CipherAlgorithm::kAes256Ctr}) {
    for (size_t ks : {16, 24, 32}) {
      ServerKey key = test::TestServerKey(ks);
      std::string path = dir_.Join("alg.metadata");
      test::MetadataFileOptions opts;
      opts.server_key = &key;
      opts.algorithm = alg;
      ASSERT_OK(test::WriteMetadataFile(path, records, opts));
      EXPECT_EQ(static_cast<char>(alg), Slurp(path)[7]);
      ReadResult r = ReadContainer(path, &key);
      ASSERT_OK(r.headers);
      EXPECT_TRUE(r.last.IsEndOfFile()) << r.last.ToString();
      EXPECT_EQ(records.size(), r.bodies.size());
    }
  }
}

TEST_F(PbContainerTest, WriterRejectsBadVersionAndNonEmptyFile) {
  std::string path = dir_.Join("w.metadata");
  for (uint32_t v : {0u, 3u}) {
    std::unique_ptr<WritableFile> f;
    ASSERT_OK(WritableFile::Open(path, CreateMode::kTruncate, WriteEncryption(), &f));
    std::unique_ptr<PbContainerWriter> w;
    Status s = PbContainerWriter::Create(std::move(f), v, BlockRecordPB::descriptor(), &w);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  }
  ASSERT_OK(Rewrite(path, "x"));
  std::unique_ptr<WritableFile> f;
  ASSERT_OK(WritableFile::Open(path, CreateMode::kOpenExisting, WriteEncryption(), &f));
  std::unique_ptr<PbContainerWriter> w;
  Status s = PbContainerWriter::Create(std::move(f), 2, BlockRecordPB::descriptor(), &w);
  EXPECT_TRUE(s.IsIllegalState()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
  // A record missing required fields is refused.
  ASSERT_OK(WritableFile::Open(path, CreateMode::kTruncate, WriteEncryption(), &f));
  ASSERT_OK(PbContainerWriter::Create(std::move(f), 2, BlockRecordPB::descriptor(), &w));
  BlockRecordPB incomplete;
  incomplete.set_timestamp_us(1);
  BlockRecordPB records_ok = test::MakeCreate(1, 0, 10);
  Status bad = w->Append(incomplete);
  EXPECT_TRUE(bad.IsInvalidArgument()) << bad.ToString();
  EXPECT_TRUE(Contains(bad.ToString(), path)) << bad.ToString();
  EXPECT_TRUE(Contains(bad.ToString(), "block_id")) << bad.ToString();
  // Nothing was written, and the writer goes on.
  const uint64_t before = w->offset();
  EXPECT_EQ(before, w->file()->size());
  std::vector<const google::protobuf::Message*> mixed = {&records_ok, &incomplete};
  EXPECT_TRUE(w->AppendBatch(mixed).IsInvalidArgument());
  EXPECT_EQ(before, w->offset());
  EXPECT_EQ(before, w->file()->size());
  ASSERT_OK(w->Append(records_ok));
  EXPECT_GT(w->offset(), before);
}

TEST_F(PbContainerTest, WriterWritesHeaderInOneWriteAndOneWritePerAppend) {
  std::string path = dir_.Join("w.metadata");
  std::unique_ptr<WritableFile> f;
  ASSERT_OK(WritableFile::Open(path, CreateMode::kCreateNew, WriteEncryption(), &f));
  std::unique_ptr<PbContainerWriter> w;
  ASSERT_OK(PbContainerWriter::Create(std::move(f), 2, BlockRecordPB::descriptor(), &w));
  EXPECT_EQ(1u, w->file()->stats().write_syscalls);
  EXPECT_EQ(16u + 12 + SupHeaderBody().size(), w->offset());
  auto records = test::MakeRecordSequence(5);
  for (const auto& r : records) ASSERT_OK(w->Append(r));
  EXPECT_EQ(6u, w->file()->stats().write_syscalls);
  std::vector<const google::protobuf::Message*> batch;
  for (const auto& r : records) batch.push_back(&r);
  ASSERT_OK(w->AppendBatch(batch));
  EXPECT_EQ(7u, w->file()->stats().write_syscalls);
  uint64_t end = w->offset();
  ASSERT_OK(w->Sync());
  ASSERT_OK(w->Close());
  EXPECT_EQ(end, test::FileSizeOrDie(path));

  // Reopen and continue at the end.
  ASSERT_OK(WritableFile::Open(path, CreateMode::kOpenExisting, WriteEncryption(), &f));
  auto w2 = PbContainerWriter::Reopen(std::move(f), 2, end);
  ASSERT_OK(w2->Append(test::MakeDelete(77)));
  ASSERT_OK(w2->AppendFramed(FrameRecord(2, test::MakeDelete(78).SerializeAsString())));
  ASSERT_OK(w2->AppendFramed(Slice()));
  ASSERT_OK(w2->Close());
  ReadResult r = ReadContainer(path);
  ASSERT_OK(r.headers);
  EXPECT_TRUE(r.last.IsEndOfFile()) << r.last.ToString();
  ASSERT_EQ(12u, r.bodies.size());
  BlockRecordPB last;
  ASSERT_TRUE(last.ParseFromString(r.bodies.back()));
  EXPECT_EQ(78u, last.block_id().id());
}

TEST_F(PbContainerTest, EmptyBodyRecordIsValidFraming) {
  // len 0 with the right checksums is a record with an empty body (v2: not a
  // zero-filled tail, its len_crc is not zero).
  for (uint32_t v : {1u, 2u}) {
    std::string path = dir_.Join("empty.metadata");
    ASSERT_OK(WriteRawContainer(path, FileHeader(v) + FrameRecord(v, SupHeaderBody()) +
                                          FrameRecord(v, "") + FrameRecord(v, "x")));
    ReadResult r = ReadContainer(path);
    ASSERT_OK(r.headers);
    EXPECT_TRUE(r.last.IsEndOfFile()) << r.last.ToString();
    EXPECT_EQ((std::vector<std::string>{"", "x"}), r.bodies);
  }
}

// ---------------------------------------------------------------------------
// Truncation inside the last record

class PbContainerDamageTest : public PbContainerTest,
                              public ::testing::WithParamInterface<std::tuple<uint32_t, bool>> {
 protected:
  uint32_t version() const { return std::get<0>(GetParam()); }
  bool encrypted() const { return std::get<1>(GetParam()); }
  const ServerKey* key() const { return encrypted() ? &key_ : nullptr; }

  // Writes the standard file of `n` records and returns its bytes.
  std::string WriteStandard(const std::string& path, int n, Layout* layout) {
    records_ = test::MakeRecordSequence(n);
    test::MetadataFileOptions opts;
    opts.version = version();
    opts.server_key = key();
    EXPECT_OK(test::WriteMetadataFile(path, records_, opts));
    *layout = ComputeLayout(version(), encrypted(), records_);
    EXPECT_EQ(layout->end, test::FileSizeOrDie(path));
    return Slurp(path);
  }

  // Expects the first `good` records, then an Incomplete (v2) or a
  // Corruption (v1) at `offset`, naming the file and the offset.
  void ExpectTornAt(const ReadResult& r, const std::string& path, size_t good, uint64_t offset,
                    bool v1_is_corruption = true) {
    ASSERT_OK(r.open);
    ASSERT_OK(r.headers);
    EXPECT_EQ(good, r.bodies.size());
    EXPECT_EQ(offset, r.last_offset);
    if (version() == 2 || !v1_is_corruption) {
      EXPECT_TRUE(r.last.IsIncomplete()) << r.last.ToString();
    } else {
      EXPECT_TRUE(r.last.IsCorruption()) << r.last.ToString();
    }
    ExpectErrorNames(r.last, path, OffsetStr(offset));
  }

  std::vector<BlockRecordPB> records_;
};

TEST_P(PbContainerDamageTest, EveryTruncationPointInsideTheLastRecord) {
  const std::string path = dir_.Join("t.metadata");
  Layout layout;
  const std::string full = WriteStandard(path, 6, &layout);
  const uint64_t last = layout.record_offsets.back();
  // Exactly at the last record's start: a clean file of 5 records.
  ASSERT_OK(Rewrite(path, full.substr(0, last)));
  ReadResult clean = ReadContainer(path, key());
  ASSERT_OK(clean.headers);
  EXPECT_TRUE(clean.last.IsEndOfFile()) << clean.last.ToString();
  EXPECT_EQ(5u, clean.bodies.size());
  for (uint64_t t = last + 1; t < layout.end; t++) {
    SCOPED_TRACE("truncated to " + std::to_string(t));
    ASSERT_OK(Rewrite(path, full.substr(0, t)));
    ExpectTornAt(ReadContainer(path, key()), path, 5, last);
  }
}

TEST_P(PbContainerDamageTest, TruncationInsideTheSupplementalHeaderIsCorruption) {
  const std::string path = dir_.Join("t.metadata");
  Layout layout;
  const std::string full = WriteStandard(path, 0, &layout);
  const uint64_t header_end = layout.start + 16;  // the header is read as 16 bytes
  for (uint64_t t = header_end; t < layout.end; t++) {
    SCOPED_TRACE("truncated to " + std::to_string(t));
    ASSERT_OK(Rewrite(path, full.substr(0, t)));
    ReadResult r = ReadContainer(path, key());
    ASSERT_OK(r.open);
    EXPECT_TRUE(r.headers.IsCorruption()) << r.headers.ToString();
    ExpectErrorNames(r.headers, path, OffsetStr(layout.sup_offset));
  }
}

// ---------------------------------------------------------------------------
// Zero-filled tails

TEST_P(PbContainerDamageTest, ZeroFilledLastRecord) {
  const std::string path = dir_.Join("z.metadata");
  Layout layout;
  WriteStandard(path, 6, &layout);
  const uint64_t last = layout.record_offsets.back();
  ASSERT_OK(test::ZeroFillFrom(path, last));
  // v1 has no zero-tail rule: its zero "record" fails the checksum.
  ExpectTornAt(ReadContainer(path, key()), path, 5, last);
}

TEST_P(PbContainerDamageTest, ZeroFilledFromTheMiddleOfTheLastRecordIsNotATornWrite) {
  // Zeros starting inside the last record leave a non-zero length in front
  // of them: no zero-tail rule applies; the body checksum decides.
  const std::string path = dir_.Join("z.metadata");
  Layout layout;
  WriteStandard(path, 6, &layout);
  const uint64_t last = layout.record_offsets.back();
  ASSERT_OK(test::ZeroFillFrom(path, last + 10));
  ReadResult r = ReadContainer(path, key());
  ASSERT_OK(r.headers);
  EXPECT_EQ(5u, r.bodies.size());
  EXPECT_TRUE(r.last.IsCorruption()) << r.last.ToString();
  ExpectErrorNames(r.last, path, OffsetStr(last));
}

TEST_P(PbContainerDamageTest, AppendedZerosOfEveryLength) {
  const std::string path = dir_.Join("z.metadata");
  Layout layout;
  const std::string full = WriteStandard(path, 4, &layout);
  const uint64_t chunk = pb_container::kZeroCheckChunkSize;
  ASSERT_EQ(4 * kMiB, chunk);
  for (uint64_t n : {uint64_t{1}, uint64_t{7}, uint64_t{8}, uint64_t{9}, uint64_t{12},
                     uint64_t{100}, uint64_t{4096}, chunk + 7, chunk + 8, chunk + 9,
                     2 * chunk + 8, 2 * chunk + 9, 2 * chunk + 100}) {
    SCOPED_TRACE(std::to_string(n) + " zeros appended");
    ASSERT_OK(Rewrite(path, full));
    ASSERT_OK(test::AppendZeros(path, n));
    ReadResult r = ReadContainer(path, key());
    ExpectTornAt(r, path, 4, layout.end);
    if (version() == 2) {
      // The reads after the last good record: the 8-byte prefix, then the
      // rest of the file in 4 MiB chunks, one read each.
      const uint64_t base = (encrypted() ? 1 : 0) + 1 + 2 * 5;
      uint64_t rest = n >= 8 ? n - 8 : 0;
      uint64_t chunks = (rest + chunk - 1) / chunk;
      EXPECT_EQ(base + (n >= 8 ? 1 + chunks : 0), r.stats.read_syscalls);
      EXPECT_EQ(layout.end + (n >= 8 ? n : 0), r.stats.bytes_read);
      // After the last good record only the 8-byte prefix goes through
      // Read; the chunks of the zero check are the source's own reads.
      ASSERT_EQ(1u + 2 * 5 + (n >= 8 ? 1 : 0), r.reads.size());
      if (n >= 8) {
        EXPECT_EQ(std::make_pair(layout.end, uint64_t{8}), r.reads.back());
      }
    }
  }
}

TEST_P(PbContainerDamageTest, ZeroTailWithANonZeroByteLaterIsCorruption) {
  const std::string path = dir_.Join("z.metadata");
  Layout layout;
  const std::string full = WriteStandard(path, 4, &layout);
  const uint64_t chunk = pb_container::kZeroCheckChunkSize;
  struct Case {
    uint64_t zeros;
    uint64_t nonzero_at;  // relative to the old end
  };
  for (const Case& c : {Case{9, 8}, Case{100, 8}, Case{100, 50}, Case{100, 99},
                        Case{chunk + 100, chunk + 7}, Case{chunk + 100, chunk + 8},
                        Case{chunk + 100, chunk + 99}, Case{2 * chunk + 20, 2 * chunk + 19}}) {
    SCOPED_TRACE(std::to_string(c.zeros) + " zeros, non-zero at +" + std::to_string(c.nonzero_at));
    ASSERT_OK(Rewrite(path, full));
    ASSERT_OK(test::AppendZeros(path, c.zeros));
    ASSERT_OK(test::SetByte(path, layout.end + c.nonzero_at, 0x01));
    ReadResult r = ReadContainer(path, key());
    ASSERT_OK(r.headers);
    EXPECT_EQ(4u, r.bodies.size());
    EXPECT_TRUE(r.last.IsCorruption()) << r.last.ToString();
    EXPECT_EQ(layout.end, r.last_offset);
    ExpectErrorNames(r.last, path, OffsetStr(layout.end));
  }
}

// ---------------------------------------------------------------------------
// Flipped bytes in a middle record

TEST_P(PbContainerDamageTest, FlippedByteAnywhereInAMiddleRecordIsCorruption) {
  const std::string path = dir_.Join("f.metadata");
  Layout layout;
  const std::string full = WriteStandard(path, 7, &layout);
  const size_t mid = 3;
  const uint64_t begin = layout.record_offsets[mid], end = layout.record_offsets[mid + 1];
  for (uint64_t p = begin; p < end; p++) {
    for (uint8_t mask : {uint8_t{0xff}, uint8_t{0x01}, uint8_t{0x80}}) {
      SCOPED_TRACE("byte " + std::to_string(p - begin) + " of the record, mask " +
                   std::to_string(mask));
      ASSERT_OK(Rewrite(path, full));
      ASSERT_OK(test::FlipByte(path, p, mask));
      ReadResult r = ReadContainer(path, key());
      ASSERT_OK(r.headers);
      EXPECT_EQ(mid, r.bodies.size());
      EXPECT_TRUE(r.last.IsCorruption()) << r.last.ToString();
      EXPECT_EQ(begin, r.last_offset);
      ExpectErrorNames(r.last, path, OffsetStr(begin));
      // Never a read beyond the file, whatever the length says.
      EXPECT_LE(r.stats.bytes_read, full.size() + 4);
    }
  }
}

// ---------------------------------------------------------------------------
// Hostile lengths

TEST_P(PbContainerDamageTest, HostileLengthNeverAllocatesMoreThanTheFile) {
  const std::string path = dir_.Join("h.metadata");
  auto records = test::MakeRecordSequence(3);
  std::string good = FileHeader(version()) + FrameRecord(version(), SupHeaderBody());
  for (const auto& rec : records) good += FrameRecord(version(), rec.SerializeAsString());
  const uint64_t start = encrypted() ? 64 : 0;
  const uint64_t hostile_at = start + good.size();
  for (uint32_t len : {0xFFFFFFF0u, 0xFFFFFFFBu, 0xFFFFFFFCu, 0xFFFFFFFDu, 0xFFFFFFFFu,
                       0x80000000u, 0x7FFFFFFFu, 1000u, 101u}) {
    SCOPED_TRACE("length " + std::to_string(len));
    std::string tail = Le32Bytes(len);
    if (version() == 2) tail += Le32Bytes(Crc(Le32Bytes(len)));
    // 100 bytes of junk after the prefix: a 101-byte body needs 105.
    tail += std::string(100, '\x5a');
    ASSERT_OK(WriteRawContainer(path, good + tail, key()));
    ReadResult r = ReadContainer(path, key());
    ExpectTornAt(r, path, 3, hostile_at);
    EXPECT_LE(r.max_request, r.file_size);
    EXPECT_LE(r.stats.bytes_read, r.file_size + 4);
    // Nothing was read for the body: the prefix, then (v2) the rest of the
    // file once, as one read, looking for a valid record after it (§2 step 5).
    const uint64_t base = (encrypted() ? 1 : 0) + 1 + 2 * 4;
    EXPECT_EQ(base + (version() == 2 ? 2 : 1), r.stats.read_syscalls);
  }
}

TEST_P(PbContainerDamageTest, LengthEndingExactlyAtTheEndIsReadAndOneMoreIsNot) {
  const std::string path = dir_.Join("h.metadata");
  std::string good = FileHeader(version()) + FrameRecord(version(), SupHeaderBody());
  const uint64_t start = encrypted() ? 64 : 0;
  std::string body = "0123456789";
  std::string rec = FrameRecord(version(), body);
  ASSERT_OK(WriteRawContainer(path, good + rec, key()));
  ReadResult r = ReadContainer(path, key());
  ASSERT_OK(r.headers);
  EXPECT_TRUE(r.last.IsEndOfFile()) << r.last.ToString();
  EXPECT_EQ(std::vector<std::string>{body}, r.bodies);
  // Drop the last byte of the body crc.
  ASSERT_OK(WriteRawContainer(path, good + rec.substr(0, rec.size() - 1), key()));
  ExpectTornAt(ReadContainer(path, key()), path, 0, start + good.size());
}

// ---------------------------------------------------------------------------
// Header damage

TEST_P(PbContainerDamageTest, DamagedFileHeaderIsCorruptionNamingTheFile) {
  const std::string path = dir_.Join("hd.metadata");
  Layout layout;
  const std::string full = WriteStandard(path, 3, &layout);
  const uint64_t s = layout.start;
  auto check = [&](const std::string& what, const std::string& where) {
    SCOPED_TRACE(what);
    ReadResult r = ReadContainer(path, key());
    ASSERT_OK(r.open);
    EXPECT_TRUE(r.headers.IsCorruption()) << r.headers.ToString();
    ExpectErrorNames(r.headers, path, where);
    EXPECT_TRUE(r.bodies.empty());
  };
  // Bad magic, any byte.
  for (uint64_t i = 0; i < 8; i++) {
    ASSERT_OK(Rewrite(path, full));
    ASSERT_OK(test::FlipByte(path, s + i, 0x04));
    check("magic byte " + std::to_string(i), OffsetStr(s));
  }
  // Versions 0 and 3 (and a large one): flip the version's low byte (2 or 1
  // on disk, in the clear or under CTR, flips the same bits).
  for (uint32_t bad : {0u, 3u, 0x102u}) {
    ASSERT_OK(Rewrite(path, full));
    uint32_t diff = bad ^ version();
    for (int b = 0; b < 4; b++) {
      if ((diff >> (8 * b)) & 0xff) {
        ASSERT_OK(test::FlipByte(path, s + 8 + b, static_cast<uint8_t>(diff >> (8 * b))));
      }
    }
    check("version " + std::to_string(bad), "version " + std::to_string(bad));
    ReadResult r = ReadContainer(path, key());
    ExpectErrorNames(r.headers, path, OffsetStr(s + 8));
  }
  if (version() == 2) {
    // Header checksum.
    for (uint64_t i = 12; i < 16; i++) {
      ASSERT_OK(Rewrite(path, full));
      ASSERT_OK(test::FlipByte(path, s + i, 0x10));
      check("header crc byte " + std::to_string(i), OffsetStr(s + 12));
    }
  }
  // Damaged supplemental header: every byte of it.
  for (uint64_t p = layout.sup_offset; p < layout.record_offsets[0]; p++) {
    ASSERT_OK(Rewrite(path, full));
    ASSERT_OK(test::FlipByte(path, p, 0x01));
    check("supplemental header byte " + std::to_string(p - layout.sup_offset),
          OffsetStr(layout.sup_offset));
  }
}

TEST_P(PbContainerDamageTest, SupplementalHeaderThatDoesNotParseOrNamesAnotherType) {
  const std::string path = dir_.Join("sup.metadata");
  const uint64_t s = encrypted() ? 64 : 0;
  const uint64_t sup_at = s + (version() == 1 ? 12 : 16);
  // Framing fine, body not a ContainerSupHeaderPB (missing required fields,
  // or not protobuf at all).
  for (std::string body : {std::string(), std::string("\xff\xff\xff\xff", 4),
                           std::string("not a protobuf at all")}) {
    ASSERT_OK(WriteRawContainer(path, FileHeader(version()) + FrameRecord(version(), body), key()));
    ReadResult r = ReadContainer(path, key());
    EXPECT_TRUE(r.headers.IsCorruption()) << r.headers.ToString();
    ExpectErrorNames(r.headers, path, OffsetStr(sup_at));
  }
  // A valid supplemental header of another record type.
  ContainerSupHeaderPB other;
  other.mutable_protos();
  other.set_pb_type("kudu.BlockIdPB");
  ASSERT_OK(WriteRawContainer(
      path, FileHeader(version()) + FrameRecord(version(), other.SerializeAsString()), key()));
  ReadResult r = ReadContainer(path, key());
  EXPECT_TRUE(r.headers.IsCorruption()) << r.headers.ToString();
  ExpectErrorNames(r.headers, path, "kudu.BlockIdPB");
  EXPECT_TRUE(Contains(r.headers.ToString(), kPbType)) << r.headers.ToString();
  // The same through the writer with another descriptor.
  {
    WriteEncryption enc;
    enc.server_key = key();
    std::unique_ptr<WritableFile> f;
    ASSERT_OK(WritableFile::Open(path, CreateMode::kTruncate, enc, &f));
    std::unique_ptr<PbContainerWriter> w;
    ASSERT_OK(PbContainerWriter::Create(std::move(f), version(), BlockIdPB::descriptor(), &w));
    ASSERT_OK(w->Close());
  }
  r = ReadContainer(path, key());
  EXPECT_TRUE(r.headers.IsCorruption()) << r.headers.ToString();
  ExpectErrorNames(r.headers, path, "kudu.BlockIdPB");
  // Header only, no supplemental header at all (v2 header is 16 bytes; pad
  // a v1 header to 16 so the file passes the size check).
  std::string header_only = FileHeader(version());
  if (version() == 1) header_only += std::string(4, '\0');
  ASSERT_OK(WriteRawContainer(path, header_only, key()));
  r = ReadContainer(path, key());
  EXPECT_TRUE(r.headers.IsCorruption()) << r.headers.ToString();
  ExpectErrorNames(r.headers, path, OffsetStr(sup_at));
}

TEST_P(PbContainerDamageTest, TooShortFilesAreCorruption) {
  const std::string path = dir_.Join("short.metadata");
  const uint64_t s = encrypted() ? 64 : 0;
  const std::string header = FileHeader(version()) + std::string(8, '\0');
  for (size_t n = 0; n <= 15; n++) {
    SCOPED_TRACE(std::to_string(n) + " bytes");
    ASSERT_OK(WriteRawContainer(path, header.substr(0, n), key()));
    ASSERT_EQ(s + n, test::FileSizeOrDie(path));
    ReadResult r = ReadContainer(path, key());
    ASSERT_OK(r.open);
    EXPECT_TRUE(r.headers.IsCorruption()) << r.headers.ToString();
    ExpectErrorNames(r.headers, path, OffsetStr(s));
    EXPECT_EQ(s == 0 ? 0u : 1u, r.stats.read_syscalls);  // nothing read but the enc. header
  }
}

// ---------------------------------------------------------------------------
// Injected read faults

TEST_P(PbContainerDamageTest, InjectedReadFaultMidFileIsIOErrorNamingTheFile) {
  const std::string path = dir_.Join("io.metadata");
  Layout layout;
  WriteStandard(path, 20, &layout);
  const uint64_t enc_reads = encrypted() ? 1 : 0;
  // Read number k (1-based, counting the encryption header read) fails:
  // the header read, the supplemental header reads, record prefixes and bodies.
  for (uint64_t k : {uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{4}, uint64_t{5}, uint64_t{20},
                     uint64_t{21}, enc_reads + 1 + 2 * 21}) {
    for (IoFault fault : {IoFault::kEIO, IoFault::kUnexpectedEof}) {
      SCOPED_TRACE("read " + std::to_string(k) + " fault " + std::to_string(static_cast<int>(fault)));
      IoFaultInjector::Arm(IoOp::kRead, k, fault, "io.metadata");
      ReadResult r = ReadContainer(path, key());
      EXPECT_TRUE(IoFaultInjector::Fired());
      IoFaultInjector::Disarm();
      const Status& e = r.error();
      EXPECT_TRUE(e.IsIOError()) << e.ToString();
      ExpectErrorNames(e, path, "offset ");
      if (k > enc_reads + 3) {
        // Past the headers: the records before it were delivered, and the
        // failure is at the record the reader was on.
        ASSERT_OK(r.headers);
        const uint64_t record_index = (k - enc_reads - 4) / 2;
        EXPECT_EQ(record_index, r.bodies.size());
        ASSERT_LT(record_index, layout.record_offsets.size());
        EXPECT_EQ(layout.record_offsets[record_index], r.last_offset);
      }
    }
  }
  // A short read is looped over: the whole file still reads, one extra syscall.
  IoFaultInjector::Arm(IoOp::kRead, enc_reads + 10, IoFault::kShortRead, "io.metadata");
  ReadResult r = ReadContainer(path, key());
  EXPECT_TRUE(IoFaultInjector::Fired());
  ASSERT_OK(r.headers);
  EXPECT_TRUE(r.last.IsEndOfFile()) << r.last.ToString();
  EXPECT_EQ(20u, r.bodies.size());
  EXPECT_EQ(enc_reads + 1 + 2 * 21 + 1, r.stats.read_syscalls);
}

INSTANTIATE_TEST_SUITE_P(VersionsAndEncryption, PbContainerDamageTest,
                         ::testing::Combine(::testing::Values(1u, 2u), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<uint32_t, bool>>& info) {
                           return "v" + std::to_string(std::get<0>(info.param)) +
                                  (std::get<1>(info.param) ? "_encrypted" : "_plain");
                         });

// ---------------------------------------------------------------------------
// Odds and ends of the reader

TEST_F(PbContainerTest, EncryptedZeroTailNeedsTheAllZeroRule) {
  // In an encrypted v2 file, zeros appended on disk are zero *ciphertext*.
  // Only because each read leaves all-zero ciphertext alone does the reader
  // see them as a zero-filled tail; check that the file layer really hands
  // the reader zeros there (and that decrypting them would not).
  const std::string path = dir_.Join("ez.metadata");
  auto records = test::MakeRecordSequence(2);
  test::MetadataFileOptions opts;
  opts.server_key = &key_;
  ASSERT_OK(test::WriteMetadataFile(path, records, opts));
  const uint64_t end = test::FileSizeOrDie(path);
  ASSERT_OK(test::AppendZeros(path, 64));
  std::unique_ptr<RandomAccessFile> f;
  ASSERT_OK(RandomAccessFile::Open(path, &key_, &f));
  uint8_t buf[8];
  ASSERT_OK(f->Read(end, buf, 8));
  EXPECT_TRUE(IsAllZero(buf, 8));
  std::string raw(8, '\0');
  ASSERT_OK(f->cipher()->Crypt(end, reinterpret_cast<const uint8_t*>(raw.data()),
                               reinterpret_cast<uint8_t*>(&raw[0]), 8));
  EXPECT_FALSE(IsAllZero(reinterpret_cast<const uint8_t*>(raw.data()), 8));
  ReadResult r = ReadContainer(path, &key_);
  EXPECT_TRUE(r.last.IsIncomplete()) << r.last.ToString();
  EXPECT_EQ(end, r.last_offset);
}

// A container's bytes in memory, for the reader template.
struct MemSource {
  std::string name = "mem.metadata";
  std::string data;
  const std::string& filename() const { return name; }
  uint64_t size() const { return data.size(); }
  uint64_t data_start() const { return 0; }
  Status Read(uint64_t offset, size_t n, Slice* out) {
    EXPECT_LE(offset + n, data.size());
    *out = Slice(data.data() + offset, n);
    return Status::OK();
  }
  Status ReadIsAllZero(uint64_t offset, uint64_t n, bool* all_zero) {
    *all_zero = IsAllZero(reinterpret_cast<const uint8_t*>(data.data()) + offset, n);
    return Status::OK();
  }
};

Status ReadHeadersOf(const std::string& sup_body, const std::string& expected_type) {
  MemSource src;
  src.data = FileHeader(2) + FrameRecord(2, sup_body);
  PbContainerRecordReader<MemSource> reader(&src);
  return reader.ReadHeaders(expected_type);
}

// The reader skips parsing a supplemental header whose bytes it has already
// accepted: only the exact bytes, for the same expected type, may skip it.
TEST_F(PbContainerTest, AnAcceptedSupplementalHeaderIsRememberedOnlyForItsBytesAndType) {
  const std::string good = SupHeaderBody();
  ASSERT_OK(ReadHeadersOf(good, kPbType));
  ASSERT_OK(ReadHeadersOf(good, kPbType));
  // The same bytes, another expected type: parsed and refused.
  Status s = ReadHeadersOf(good, "kudu.BlockIdPB");
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  ASSERT_OK(ReadHeadersOf(good, kPbType));
  // Same length, another record type named.
  std::string other = good;
  const size_t at = other.find(kPbType);
  ASSERT_NE(std::string::npos, at);
  other[at + std::strlen(kPbType) - 1] ^= 0x01;
  s = ReadHeadersOf(other, kPbType);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "names record type")) << s.ToString();
  // Same length, not protobuf from the first byte (field 0 is invalid).
  std::string broken = good;
  broken[0] = '\0';
  s = ReadHeadersOf(broken, kPbType);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "does not parse")) << s.ToString();
  ASSERT_OK(ReadHeadersOf(good, kPbType));
}

TEST_F(PbContainerTest, ReaderOverAnInMemorySource) {
  // The reader is a template: an in-memory source gets the same decisions.
  MemSource src;
  src.data = FileHeader(2) + FrameRecord(2, SupHeaderBody()) + FrameRecord(2, "abc");
  const uint64_t torn_at = src.data.size();
  src.data += std::string(20, '\0');
  PbContainerRecordReader<MemSource> reader(&src);
  ASSERT_OK(reader.ReadHeaders(kPbType));
  Slice body;
  ASSERT_OK(reader.ReadNextRecord(&body));
  EXPECT_EQ("abc", body.ToString());
  Status s = reader.ReadNextRecord(&body);
  EXPECT_TRUE(s.IsIncomplete()) << s.ToString();
  EXPECT_EQ(torn_at, reader.record_offset());
  ExpectErrorNames(s, "mem.metadata", OffsetStr(torn_at));
}

}  // namespace
}  // namespace kudu
