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

#include "util/pb_container_test_util.h"

#include <unistd.h>

#include <algorithm>
#include <memory>

#include "kudu/util/crc32c.h"
#include "kudu/util/pb_container_reader.h"
#include "kudu/util/pb_container_writer.h"

namespace kudu {
namespace test {
namespace {

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

}  // namespace

std::string Le32Bytes(uint32_t v) {
  std::string s(4, '\0');
  for (int i = 0; i < 4; i++) s[i] = static_cast<char>(v >> (8 * i));
  return s;
}

uint32_t Crc(const std::string& s) { return crc::Crc32c(s.data(), s.size()); }

std::string FrameRecord(uint32_t version, const std::string& body) {
  std::string len = Le32Bytes(static_cast<uint32_t>(body.size()));
  if (version == 1) return len + body + Le32Bytes(Crc(len + body));
  return len + Le32Bytes(Crc(len)) + body + Le32Bytes(Crc(body));
}

std::string FileHeader(uint32_t version) {
  std::string h = std::string("kuducntr") + Le32Bytes(version);
  if (version >= 2) h += Le32Bytes(Crc(h));
  return h;
}

std::string SupHeaderBody() {
  return PbContainerWriter::SupplementalHeader(BlockRecordPB::descriptor());
}

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

ReadResult ReadContainer(const std::string& path, const ServerKey* key) {
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

Status Rewrite(const std::string& path, const std::string& contents) {
  (void)::unlink(path.c_str());
  return test::WriteStringToFile(path, contents);
}

Status WriteRawContainer(const std::string& path, const std::string& cleartext,
                         const ServerKey* key, CipherAlgorithm alg) {
  WriteEncryption enc;
  enc.server_key = key;
  enc.algorithm = alg;
  std::unique_ptr<WritableFile> f;
  (void)::unlink(path.c_str());
  RETURN_NOT_OK(WritableFile::Open(path, CreateMode::kCreateNew, enc, &f));
  if (!cleartext.empty()) RETURN_NOT_OK(f->Write(f->encryption_header_size(), cleartext));
  return f->Close();
}

}  // namespace test
}  // namespace kudu
