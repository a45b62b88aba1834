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

// Helpers shared by the tests: real temporary directories, metadata files
// written through the project's own writer, and functions that break real
// files on purpose (flip, truncate, zero-fill).
#pragma once

// KUDU_ASAN: an AddressSanitizer build, whose allocator and shadow memory
// make resident-set figures say nothing about the allocator a server runs.
#if defined(__SANITIZE_ADDRESS__)
#define KUDU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KUDU_ASAN 1
#endif
#endif

#include <cstdint>
#include <string>
#include <vector>

#include "kudu/fs/block_record.h"
#include "kudu/fs/fs.pb.h"
#include "kudu/util/encryption.h"
#include "kudu/util/status.h"

namespace kudu {
namespace test {

// A fresh directory under $TEST_TMPDIR or /tmp, removed with its contents on
// destruction (unless KUDU_KEEP_TEST_FILES is set).
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string Join(const std::string& name) const;

 private:
  std::string path_;
};

// `record` as a BlockRecordPB, serialised: how tests compare record streams.
// Inline: the fuzz targets use it without linking the test helpers.
inline std::string SerializeBlockRecord(const fs::BlockRecord& record) {
  BlockRecordPB pb;
  pb.mutable_block_id()->set_id(record.block_id);
  pb.set_op_type(record.op_type);
  pb.set_timestamp_us(0);  // not kept by fs::BlockRecord (the replay never reads it)
  if (record.has_offset) pb.set_offset(record.offset);
  if (record.has_length) pb.set_length(record.length);
  return pb.SerializeAsString();
}
BlockRecordPB MakeCreate(uint64_t id, int64_t offset, int64_t length, uint64_t timestamp_us = 1);
BlockRecordPB MakeDelete(uint64_t id, uint64_t timestamp_us = 2);

struct MetadataFileOptions {
  uint32_t version = 2;
  const ServerKey* server_key = nullptr;  // encrypt when set
  CipherAlgorithm algorithm = CipherAlgorithm::kAes128Ctr;
  // Write every record with its own write (false: one batched write).
  bool one_write_per_record = false;
};

// Writes a complete metadata file at `path` holding `records`.
Status WriteMetadataFile(const std::string& path, const std::vector<BlockRecordPB>& records,
                         const MetadataFileOptions& opts = MetadataFileOptions());

// A plausible server sequence of `n` records: CREATEs at increasing aligned
// offsets with a DELETE of an earlier block every `delete_every` records.
std::vector<BlockRecordPB> MakeRecordSequence(int n, int delete_every = 3, uint64_t first_id = 1);

// Raw byte surgery on real files.
Status ReadFileToString(const std::string& path, std::string* contents);
// The whole file; a failed read fails the test (and gives "").
std::string Slurp(const std::string& path);
Status WriteStringToFile(const std::string& path, const std::string& contents);
Status FlipByte(const std::string& path, uint64_t offset, uint8_t xor_mask = 0xff);
Status SetByte(const std::string& path, uint64_t offset, uint8_t value);
Status TruncateFileTo(const std::string& path, uint64_t size);
// Overwrites [offset, end of file) with zeros.
Status ZeroFillFrom(const std::string& path, uint64_t offset);
// Appends `n` zero bytes (a torn append whose size reached disk first).
Status AppendZeros(const std::string& path, uint64_t n);
// Appends `n` bytes of ciphertext of zero plaintext (the keystream at the
// end of the encrypted file `path`): a reader with `key` decrypts them to
// zeros, while the bytes on disk are not zeros.
Status AppendEncryptedZeros(const std::string& path, const ServerKey& key, uint64_t n);
uint64_t FileSizeOrDie(const std::string& path);

bool Contains(const std::string& haystack, const std::string& needle);
// `n` reproducible pseudo-random bytes.
std::string RandomBytes(size_t n, uint32_t seed);

// Descriptors this process has open (a leak check compares two counts).
size_t OpenDescriptorCount();

// A fixed server key of `bytes` bytes for tests.
ServerKey TestServerKey(size_t bytes = 16);

}  // namespace test
}  // namespace kudu
