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

// Helpers for tests of the block manager open, the report and repair: data
// dirs built by hand, container by container (real files written through the
// file layer, then broken on purpose with test_util.h), and comparisons of
// open results.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/fs.pb.h"
#include "kudu/util/encryption.h"
#include "kudu/util/status.h"
#include "util/test_util.h"

namespace kudu {
namespace test {

// A deterministic container id: 32 lowercase hex digits ending in `n`.
std::string ContainerIdFor(uint64_t n);

// Raw offset of the first block in a data file (0, or 4096 when encrypted
// with 4 KiB fs blocks), as the writer lays it out.
uint64_t FirstBlockOffset(const ServerKey* key);

// The fixture of a test run once on a plain dir and once on an encrypted
// one (the bool parameter, true = encrypted): the key (`k_` is null for the
// plain run), where a data file's first block starts, and a data file of
// `blocks` 4 KiB blocks after it.
class PlainAndEncryptedTest : public ::testing::TestWithParam<bool> {
 protected:
  PlainAndEncryptedTest(size_t key_bytes, uint64_t blocks)
      : key_(TestServerKey(key_bytes)),
        k_(GetParam() ? &key_ : nullptr),
        base_(FirstBlockOffset(k_)),
        data_size_(base_ + blocks * 4096) {}
  // Raw offset of the `slot`-th 4 KiB block of a data file.
  int64_t SlotOffset(int slot) const { return static_cast<int64_t>(base_ + slot * 4096); }

  ServerKey key_;
  const ServerKey* k_;
  uint64_t base_;
  uint64_t data_size_;
};

struct HandContainer {
  std::string root;
  std::string id;
  std::string path;  // <root>/data/<id>, as the report names it
  std::string data_path;
  std::string metadata_path;
  // Raw offset of each record in the metadata file, and the end of the last.
  std::vector<uint64_t> record_offsets;
  uint64_t end_offset = 0;
};

// Writes <root>/data/<id>.data of `data_size` raw bytes (encryption header
// included when `key` is set) and <root>/data/<id>.metadata holding
// `records` (PB container `version`). `data_size` < 0: no data file;
// `records` null: no metadata file.
Status WriteHandContainer(const std::string& root, const std::string& id, int64_t data_size,
                          const std::vector<BlockRecordPB>* records, const ServerKey* key,
                          HandContainer* out, uint32_t version = 2);

// Writes `n` small plain containers into <root>/data (created if missing),
// ids "%032x" of first .. first + n - 1: 4 records each (one DELETE), a
// 64 KiB data file. With `broken_every` > 0, every broken_every-th metadata
// file is then damaged in turn: a partial trailing record (20 zero bytes
// appended), its last 5 bytes cut off, a byte flipped 30 bytes before its
// end.
Status WriteSmallContainers(const std::string& root, int n, int first, int broken_every);

// Writes a data file of `size` raw bytes (zeros after the header).
Status WriteDataFile(const std::string& path, uint64_t size, const ServerKey* key);

// The live set of a successful open: id → (container id, offset, length).
using LiveSet = std::map<uint64_t, std::tuple<std::string, int64_t, int64_t>>;
LiveSet LiveSetOf(const fs::OpenResult& r);

// The JSON report without the keys that legitimately differ between
// strategies and runs ("replay", "timing").
nlohmann::json StableReport(const fs::OpenResult& r);

// Every regular file under `dir` → its bytes.
std::map<std::string, std::string> SnapshotFiles(const std::string& dir);

// Copies a directory tree.
Status CopyTree(const std::string& from, const std::string& to);

// The strategy choices an open is checked under: each forced strategy and the
// policy's own pick, which must all give the same report.
inline constexpr fs::StrategyChoice kAllStrategyChoices[] = {
    fs::StrategyChoice::kStreaming, fs::StrategyChoice::kInMemory, fs::StrategyChoice::kAuto};

// Options for an in-process open of `roots`.
fs::BlockManagerOpenOptions OpenOptions(const std::vector<std::string>& roots,
                                        const ServerKey* key,
                                        fs::StrategyChoice choice = fs::StrategyChoice::kAuto);

}  // namespace test
}  // namespace kudu
