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

// Helpers for tests of the PB container format (§2 of
// docs/on-disk-format.md): files framed by hand from the doc, the layout the
// writer must produce, and a whole container read with the reference
// streaming reader, every request it makes recorded.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kudu/fs/fs.pb.h"
#include "kudu/util/encryption.h"
#include "kudu/util/file.h"
#include "kudu/util/io_fault_injector.h"
#include "kudu/util/status.h"
#include "util/test_util.h"

namespace kudu {
namespace test {

inline constexpr char kPbType[] = "kudu.BlockRecordPB";

std::string Le32Bytes(uint32_t v);
uint32_t Crc(const std::string& s);

// A record framed by hand (not by pb_container_format), from the doc.
std::string FrameRecord(uint32_t version, const std::string& body);

// A file header built by hand.
std::string FileHeader(uint32_t version);

// The supplemental header body the writer puts in a BlockRecordPB container.
std::string SupHeaderBody();

// Where every record of a file written by WriteMetadataFile starts.
struct Layout {
  uint64_t start = 0;       // 0 or 64
  uint64_t sup_offset = 0;  // the supplemental header record
  std::vector<uint64_t> record_offsets;
  uint64_t end = 0;
};

Layout ComputeLayout(uint32_t version, bool encrypted, const std::vector<BlockRecordPB>& records);

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

ReadResult ReadContainer(const std::string& path, const ServerKey* key = nullptr);

// Expects `s` to name the file and, unless empty, `where`.
void ExpectErrorNames(const Status& s, const std::string& path, const std::string& where);

std::string OffsetStr(uint64_t o);

// Replaces the file at `path` with `contents`. The old file is unlinked
// first: truncating and rewriting it makes ext4 (auto_da_alloc) flush the
// data on close, which costs a disk write per call.
Status Rewrite(const std::string& path, const std::string& contents);

// Writes `cleartext` (starting with the container's file header) through
// the file layer, encrypted when `key` is set. For hand-made containers.
Status WriteRawContainer(const std::string& path, const std::string& cleartext,
                         const ServerKey* key = nullptr,
                         CipherAlgorithm alg = CipherAlgorithm::kAes128Ctr);

// A temporary directory and a server key, with no fault armed before or after
// a test.
class PbContainerTest : public ::testing::Test {
 protected:
  void SetUp() override { IoFaultInjector::Disarm(); }
  void TearDown() override { IoFaultInjector::Disarm(); }

  TempDir dir_;
  ServerKey key_ = test::TestServerKey(16);
};

}  // namespace test
}  // namespace kudu
