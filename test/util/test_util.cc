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

#include "test_util.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>

#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_writer.h"
#include "test_macros.h"

namespace kudu {
namespace test {

TempDir::TempDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string prefix = "kudu-test";
  std::string dir;
  if (base && *base) {
    setenv("TMPDIR", base, 1);
  }
  Status s = env::MakeTempDir(prefix, &dir);
  if (!s.ok()) std::abort();
  path_ = dir;
}

TempDir::~TempDir() {
  if (std::getenv("KUDU_KEEP_TEST_FILES") == nullptr) (void)env::DeleteRecursively(path_);
}

std::string TempDir::Join(const std::string& name) const { return env::JoinPath(path_, name); }

BlockRecordPB MakeCreate(uint64_t id, int64_t offset, int64_t length, uint64_t timestamp_us) {
  BlockRecordPB r;
  r.mutable_block_id()->set_id(id);
  r.set_op_type(CREATE);
  r.set_timestamp_us(timestamp_us);
  r.set_offset(offset);
  r.set_length(length);
  return r;
}

BlockRecordPB MakeDelete(uint64_t id, uint64_t timestamp_us) {
  BlockRecordPB r;
  r.mutable_block_id()->set_id(id);
  r.set_op_type(DELETE);
  r.set_timestamp_us(timestamp_us);
  return r;
}

Status WriteMetadataFile(const std::string& path, const std::vector<BlockRecordPB>& records,
                         const MetadataFileOptions& opts) {
  WriteEncryption enc;
  enc.server_key = opts.server_key;
  enc.algorithm = opts.algorithm;
  std::unique_ptr<WritableFile> file;
  RETURN_NOT_OK(WritableFile::Open(path, CreateMode::kTruncate, enc, &file));
  std::unique_ptr<PbContainerWriter> writer;
  RETURN_NOT_OK(PbContainerWriter::Create(std::move(file), opts.version,
                                          BlockRecordPB::descriptor(), &writer));
  if (opts.one_write_per_record) {
    for (const auto& r : records) RETURN_NOT_OK(writer->Append(r));
  } else {
    std::vector<const google::protobuf::Message*> batch;
    for (const auto& r : records) batch.push_back(&r);
    RETURN_NOT_OK(writer->AppendBatch(batch));
  }
  return writer->Close();
}

std::vector<BlockRecordPB> MakeRecordSequence(int n, int delete_every, uint64_t first_id) {
  std::vector<BlockRecordPB> out;
  std::vector<uint64_t> live;
  uint64_t next_id = first_id;
  int64_t offset = 0;
  uint64_t ts = 1000;
  size_t delete_cursor = 0;
  for (int i = 0; i < n; i++) {
    if (delete_every > 0 && i % delete_every == delete_every - 1 && delete_cursor < live.size()) {
      out.push_back(MakeDelete(live[delete_cursor++], ts++));
      continue;
    }
    int64_t len = 100 + (i * 37) % 5000;
    out.push_back(MakeCreate(next_id, offset, len, ts++));
    live.push_back(next_id++);
    offset += (len + 4095) / 4096 * 4096;
  }
  return out;
}

Status ReadFileToString(const std::string& path, std::string* contents) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError(path + ": cannot open for reading");
  std::ostringstream ss;
  ss << in.rdbuf();
  *contents = ss.str();
  return Status::OK();
}

std::string Slurp(const std::string& path) {
  std::string s;
  EXPECT_OK(ReadFileToString(path, &s));
  return s;
}

Status WriteStringToFile(const std::string& path, const std::string& contents) {
  // Rewrites in place and truncates to the new size afterwards instead of
  // truncating to zero first: ext4 (auto_da_alloc) flushes a file that was
  // truncated to zero and rewritten when it is closed, so tests that restore
  // a file thousands of times waited for the disk each time (~25x slower).
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return Status::IOError(path + ": cannot open for writing");
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t w = ::pwrite(fd, contents.data() + done, contents.size() - done, static_cast<off_t>(done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      ::close(fd);
      return Status::IOError(path + ": write failed");
    }
    done += static_cast<size_t>(w);
  }
  const bool ok = ::ftruncate(fd, static_cast<off_t>(contents.size())) == 0;
  ::close(fd);
  return ok ? Status::OK() : Status::IOError(path + ": write failed");
}

namespace {
Status PatchByte(const std::string& path, uint64_t offset, bool flip, uint8_t v) {
  int fd = ::open(path.c_str(), O_RDWR);
  if (fd < 0) return Status::FromErrno(path, errno);
  uint8_t b = 0;
  if (::pread(fd, &b, 1, static_cast<off_t>(offset)) != 1) {
    ::close(fd);
    return Status::IOError(path + ": no byte at offset " + std::to_string(offset));
  }
  b = flip ? static_cast<uint8_t>(b ^ v) : v;
  ssize_t w = ::pwrite(fd, &b, 1, static_cast<off_t>(offset));
  ::close(fd);
  return w == 1 ? Status::OK() : Status::IOError(path + ": pwrite failed");
}
}  // namespace

Status FlipByte(const std::string& path, uint64_t offset, uint8_t xor_mask) {
  return PatchByte(path, offset, true, xor_mask);
}

Status SetByte(const std::string& path, uint64_t offset, uint8_t value) {
  return PatchByte(path, offset, false, value);
}

Status TruncateFileTo(const std::string& path, uint64_t size) {
  if (::truncate(path.c_str(), static_cast<off_t>(size)) != 0) return Status::FromErrno(path, errno);
  return Status::OK();
}

Status ZeroFillFrom(const std::string& path, uint64_t offset) {
  uint64_t size = FileSizeOrDie(path);
  if (offset >= size) return Status::OK();
  int fd = ::open(path.c_str(), O_RDWR);
  if (fd < 0) return Status::FromErrno(path, errno);
  std::string zeros(size - offset, '\0');
  ssize_t w = ::pwrite(fd, zeros.data(), zeros.size(), static_cast<off_t>(offset));
  ::close(fd);
  return w == static_cast<ssize_t>(zeros.size()) ? Status::OK() : Status::IOError(path + ": pwrite failed");
}

Status AppendZeros(const std::string& path, uint64_t n) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  std::string zeros(n, '\0');
  out.write(zeros.data(), static_cast<std::streamsize>(n));
  return out ? Status::OK() : Status::IOError(path + ": append failed");
}

Status AppendEncryptedZeros(const std::string& path, const ServerKey& key, uint64_t n) {
  std::unique_ptr<RandomAccessFile> file;
  RETURN_NOT_OK(RandomAccessFile::Open(path, &key, &file));
  std::string zeros(n, '\0'), ks(n, '\0');
  RETURN_NOT_OK(file->cipher()->Crypt(file->size(), reinterpret_cast<const uint8_t*>(zeros.data()),
                                      reinterpret_cast<uint8_t*>(&ks[0]), n));
  std::string contents;
  RETURN_NOT_OK(ReadFileToString(path, &contents));
  return WriteStringToFile(path, contents + ks);
}

uint64_t FileSizeOrDie(const std::string& path) {
  uint64_t size = 0;
  if (!env::GetFileSize(path, &size).ok()) std::abort();
  return size;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

size_t OpenDescriptorCount() {
  std::vector<std::string> names;
  // ListDir's own descriptor on the directory is in the count, as in every
  // count taken this way.
  return env::ListDir("/proc/self/fd", &names).ok() ? names.size() : 0;
}

ServerKey TestServerKey(size_t bytes) {
  std::string k;
  for (size_t i = 0; i < bytes; i++) k.push_back(static_cast<char>(0x11 * (i + 1) + 3));
  return ServerKey::FromBytes(k);
}

}  // namespace test
}  // namespace kudu
