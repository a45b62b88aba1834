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

// Re-reads one container's metadata with the reference reader and says, for
// every block live at the end, which record made it live: its raw offset and
// its body bytes, in file order. Two rare paths need this and the fast
// replay does not keep it (it would cost a map entry per record):
//  - a block id live in two containers is reported with the offset of each
//    container's CREATE record;
//  - repair rewrites a low-live container's metadata with exactly the live
//    CREATE records, byte for byte, in their original order.
// The same record semantics (ContainerReplayState) decide what is live, so
// the scan agrees with the open by construction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kudu/fs/replay_outcome.h"
#include "kudu/util/encryption.h"
#include "kudu/util/file.h"
#include "kudu/util/status.h"

namespace kudu {
namespace fs {

struct LiveRecord {
  uint64_t block_id = 0;
  uint64_t offset = 0;  // raw offset of the record in the metadata file
  std::string body;     // the serialized BlockRecordPB, as on disk
};

struct LiveRecordScan {
  uint32_t version = 0;  // the PB container version of the file
  bool encrypted = false;
  CipherAlgorithm algorithm = CipherAlgorithm::kAes128Ctr;
  std::vector<LiveRecord> live;  // in file order
  // How the scan ended: clean, or a partial trailing record at an offset.
  ReplayOutcome outcome;
  FileIoStats io;  // the reads it cost
};

struct LiveRecordScanParams {
  std::string metadata_path;
  const ServerKey* server_key = nullptr;
  uint64_t data_file_size = 0;  // raw size of <id>.data
  uint64_t fs_block_size = 4096;
};

// Corruption / IOError (naming the file and offset) when the file cannot be
// read to its end or its last partial record; a partial trailing record is
// not an error (see `outcome`).
Status ScanLiveRecords(const LiveRecordScanParams& params, LiveRecordScan* scan);

}  // namespace fs
}  // namespace kudu
