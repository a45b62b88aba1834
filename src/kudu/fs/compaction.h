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

// What the repair needs to know about one container's records beyond the
// open's counts: every accepted CREATE with its bytes and whether a DELETE
// ended it. From it come the compacted metadata file of §7.1 (which dead
// blocks it must keep so that a replay of the new file computes the same
// next block offset and highest id) and the ranges re-punching may zero
// (dead blocks' space minus every live block's bytes).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kudu/util/encryption.h"
#include "kudu/util/file.h"
#include "kudu/util/status.h"

namespace kudu {
namespace fs {

// One accepted CREATE record and, if the block was deleted since, the DELETE
// that ended it.
struct ScannedBlock {
  uint64_t id = 0;
  int64_t offset = 0;  // the block's bytes in the data file
  int64_t length = 0;
  uint64_t timestamp_us = 0;
  uint64_t create_offset = 0;  // raw offset of the CREATE record
  std::string create_body;
  bool live = true;
  std::string delete_body;  // when !live
};

struct ContainerRecords {
  uint32_t version = 0;
  CipherAlgorithm algorithm = CipherAlgorithm::kAes128Ctr;
  std::vector<ScannedBlock> blocks;  // in the order of their CREATE records
  uint64_t live_blocks = 0;
  uint64_t live_bytes = 0;
  uint64_t next_write_offset = 0;
  bool has_max_block_id = false;
  uint64_t max_block_id = 0;
  FileIoStats io;
};

struct ContainerRecordsParams {
  std::string metadata_path;
  const ServerKey* server_key = nullptr;
  uint64_t data_file_size = 0;  // raw size of <id>.data
  uint64_t fs_block_size = 4096;
};

// Reads the metadata file with the reference reader and the record
// semantics of the open. Corruption or IOError, naming the file and offset,
// when it does not read to a clean end or to a partial trailing record.
Status ScanContainerRecords(const ContainerRecordsParams& params, ContainerRecords* out);

// The bodies of the compacted file, in order (§7.1): CREATE then DELETE of
// at most two dead blocks in file order (the one whose aligned end is the
// next block offset when no live block reaches it, and the one with the
// highest id when it is above every live id), then every live CREATE sorted
// by (timestamp_us, offset).
std::vector<std::string> CompactedBodies(const ContainerRecords& records, uint64_t fs_block_size,
                                         bool encrypted, uint64_t* dropped_blocks);

// The byte ranges [first, second) of dead blocks' space (their aligned
// ranges) that lie in no live block's [offset, offset + length) and not in
// the data file's first `header_bytes` (an encrypted file's header: its
// file key; punched, every block of the file would be lost), sorted and
// disjoint, and how many dead blocks have some of their range in them.
std::vector<std::pair<uint64_t, uint64_t>> PunchableRanges(const ContainerRecords& records,
                                                           uint64_t fs_block_size,
                                                           uint64_t header_bytes,
                                                           uint64_t* dead_blocks);

// Whether the reference reader (Streaming's reads, the look-ahead of §2 step
// 5 included) still ends the metadata file with a partial record at `at`:
// the only bytes a repair may cut. Otherwise `*instead` says what it finds
// (a valid record after `at`: damage, not a torn last write).
Status ConfirmPartialRecord(const std::string& metadata_path, const ServerKey* server_key,
                            uint64_t at, bool* confirmed, std::string* instead);

}  // namespace fs
}  // namespace kudu
