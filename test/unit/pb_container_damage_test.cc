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

// The reference streaming reader (PbContainerRecordReader<FileRecordSource>)
// on PB container files (§2 of docs/on-disk-format.md) damaged in every way
// the format doc names, v1 and v2, plain and encrypted: truncation,
// zero-filled tails, flipped bytes, hostile lengths, damaged headers, files
// too short and injected read faults, each with its verdict, the offset it
// names and the reads it costs.
#include "kudu/util/pb_container_reader.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kudu/fs/fs.pb.h"
#include "kudu/util/encryption.h"
#include "kudu/util/file.h"
#include "kudu/util/io_fault_injector.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_container_writer.h"
#include "kudu/util/pb_util.pb.h"
#include "util/pb_container_test_util.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

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
    if (key() != nullptr) {
      // A byte read on its own decrypts to 0 for one ciphertext value in
      // 256 (the file key is new each run): make sure it is not that one.
      std::unique_ptr<RandomAccessFile> f;
      ASSERT_OK(RandomAccessFile::Open(path, key(), &f));
      uint8_t plain = 0;
      ASSERT_OK(f->Read(layout.end + c.nonzero_at, &plain, 1));
      if (plain == 0) ASSERT_OK(test::SetByte(path, layout.end + c.nonzero_at, 0x02));
    }
    ReadResult r = ReadContainer(path, key());
    ASSERT_OK(r.headers);
    EXPECT_EQ(4u, r.bodies.size());
    EXPECT_TRUE(r.last.IsCorruption()) << r.last.ToString();
    EXPECT_EQ(layout.end, r.last_offset);
    ExpectErrorNames(r.last, path, OffsetStr(layout.end));
  }
}

// A zero length whose checksum is not zero, then zeros: the length checksum
// is wrong (damage), not a write whose size reached disk before its data.
// Both prefix words must be zero for the zero-filled tail rule.
TEST_P(PbContainerDamageTest, AZeroLengthWithANonZeroChecksumIsCorruption) {
  if (version() != 2 || encrypted()) GTEST_SKIP() << "written as plain v2 bytes";
  const std::string path = dir_.Join("z.metadata");
  Layout layout;
  const std::string full = WriteStandard(path, 4, &layout);
  ASSERT_OK(test::WriteStringToFile(path, full + std::string("\0\0\0\0\xef\xbe\xad\xde", 8) +
                                              std::string(64, '\0')));
  ReadResult r = ReadContainer(path, key());
  ASSERT_OK(r.headers);
  EXPECT_EQ(4u, r.bodies.size());
  EXPECT_TRUE(r.last.IsCorruption()) << r.last.ToString();
  EXPECT_EQ(layout.end, r.last_offset);
  ExpectErrorNames(r.last, path, OffsetStr(layout.end));
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

}  // namespace
}  // namespace test
}  // namespace kudu
