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
// (PbContainerRecordReader<FileRecordSource>) on intact files, plain and
// encrypted, read back record by record with the reads it costs; the reader
// over other sources and its memo of accepted supplemental headers. Damaged
// files are in pb_container_damage_test.cc.
#include "kudu/util/pb_container_reader.h"

#include <google/protobuf/descriptor.pb.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kudu/fs/fs.pb.h"
#include "kudu/util/encryption.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_writer.h"
#include "kudu/util/pb_util.pb.h"
#include "kudu/util/zero_rule.h"
#include "util/pb_container_test_util.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

uint32_t Le32(const std::string& s, size_t pos) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; i--) v = (v << 8) | static_cast<uint8_t>(s[pos + i]);
  return v;
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
  // Kudu's fs.proto as it declares it: its messages in its order, and its
  // option, so that the header's bytes are a Kudu server's.
  std::vector<std::string> messages;
  for (const auto& m : last_file.message_type()) messages.push_back(m.name());
  EXPECT_EQ((std::vector<std::string>{"InstanceMetadataPB", "DirSetPB", "DirInstanceMetadataPB",
                                      "BlockIdPB", "BlockRecordPB", "DataDirGroupPB"}),
            messages);
  EXPECT_EQ("org.apache.kudu", last_file.options().java_package());
  EXPECT_EQ(1, last_file.enum_type_size());
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
  EXPECT_TRUE(Contains(s.ToString(), "supplemental header at offset 16 names record type"))
      << s.ToString();
  // Same length, not protobuf from the first byte (field 0 is invalid).
  std::string broken = good;
  broken[0] = '\0';
  s = ReadHeadersOf(broken, kPbType);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "does not parse")) << s.ToString();
  ASSERT_OK(ReadHeadersOf(good, kPbType));
}

// A damaged supplemental header is named once, with its offset and why:
// not "<file>: supplemental header ...: <file>: record at offset ...".
TEST_F(PbContainerTest, ADamagedSupplementalHeaderNamesTheFileOnce) {
  MemSource src;
  src.data = FileHeader(2) + FrameRecord(2, SupHeaderBody());
  src.data.back() ^= 0x01;  // the body's checksum no longer matches
  PbContainerRecordReader<MemSource> reader(&src);
  const Status s = reader.ReadHeaders(kPbType);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ("mem.metadata: supplemental header at offset 16 is damaged or missing: body checksum "
            "mismatch (length 810)",
            s.message())
      << s.ToString();
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
}  // namespace test
}  // namespace kudu
