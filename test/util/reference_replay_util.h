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

// Reads containers back with the reference reader
// (PbContainerRecordReader<FileRecordSource>, one read per step) and applies
// CREATE/DELETE in file order, independently of the project's replay code, so
// writer and generator tests check the files against the format itself.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kudu/fs/fs.pb.h"
#include "kudu/util/encryption.h"
#include "kudu/util/status.h"

namespace kudu {
namespace test {

// Every record of the metadata file at `path`, in file order. Any framing
// problem (including a partial trailing record) is an error here: files
// written by the writer must be clean. `offsets`, when given, receives each
// record's raw offset, and `version` the file's container version.
Status ReadMetadataRecords(const std::string& path, const ServerKey* key,
                           std::vector<BlockRecordPB>* records,
                           std::vector<uint64_t>* offsets = nullptr, uint32_t* version = nullptr);

struct ReferenceBlock {
  std::string container_id;
  int64_t offset;
  int64_t length;
};

struct ReferenceReplay {
  std::map<uint64_t, ReferenceBlock> live;           // by block id
  std::map<std::string, std::string> container_root;  // container id -> root
  std::map<std::string, std::vector<BlockRecordPB>> records;  // container id -> records
};

// Replays every container in <root>/data/ of each root. Fails on anything
// a well-formed server state cannot hold: an unpaired file, a malformed
// record (§4), or the same id in two containers.
Status ReplayDataDirs(const std::vector<std::string>& roots, const ServerKey* key,
                      ReferenceReplay* out);

// The `kudu fs list` lines of `live`, sorted by id, each ending in '\n'.
std::string FormatLiveBlocks(const std::map<uint64_t, ReferenceBlock>& live);

}  // namespace test
}  // namespace kudu
