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

// The FS layout report of one open (and its repair): Kudu's FsReport text,
// line for line, then the project's own sections, for an operator; the JSON
// object of docs/tool-contract.md for scripts. Both are built from one list
// of entries, so every count is its list's length.
//
// Entries are listed in data dir order (flag order), then container id, then
// file order (malformed records) or block id order (misaligned blocks), so
// two opens of the same directories give the same report whatever the
// strategy or the thread timing; only "replay" and "timing" differ.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "kudu/fs/block_manager_open.h"

namespace kudu {
namespace fs {

// Totals over every container of an open, as the report gives them.
struct FsReportTotals {
  uint64_t containers = 0;  // opened: neither incomplete nor corrupt
  uint64_t full_containers = 0;
  uint64_t dead_containers = 0;
  uint64_t low_live_containers = 0;  // compaction candidates, either rule
  uint64_t live_blocks = 0;
  uint64_t live_bytes = 0;
  uint64_t live_bytes_aligned = 0;
  uint64_t malformed_records = 0;
  uint64_t misaligned_blocks = 0;
  uint64_t partial_records = 0;
  uint64_t incomplete_containers = 0;
  uint64_t full_container_extra_space = 0;
  uint64_t full_container_extra_space_bytes = 0;
  uint64_t corrupt_containers = 0;  // containers a corruption entry names
  uint64_t corruption_entries = 0;
  uint64_t leftover_tmp_files = 0;

  // What this run repaired, counted as the report's "(N repaired)".
  struct Repaired {
    uint64_t full_container_extra_space = 0;
    uint64_t full_container_extra_space_bytes = 0;
    uint64_t incomplete_containers = 0;
    uint64_t partial_records = 0;
    uint64_t dead_containers = 0;
    uint64_t compacted_containers = 0;
    uint64_t leftover_tmp_files = 0;
    uint64_t punched_blocks = 0;
  } repaired;
};

FsReportTotals ComputeReportTotals(const OpenResult& r);

// The roots that are not data roots, as the directory flags resolved them.
// Left empty, the first data root stands in for both (a WAL root named by
// --fs_data_dirs alone).
struct FsReportRoots {
  std::string wal_dir;
  std::string metadata_dir;
};

// Whether the report says OK (false exactly when `kudu fs check` exits 1),
// and its status: "OK", the open's first fatal problem, or, with none, the
// first repair error's message.
bool FsReportOk(const OpenResult& r);
std::string FsReportStatus(const OpenResult& r);

// The JSON report: every key of the tool contract, plus "repairs" (the
// repair's own summary) when the open ran with repair.
nlohmann::json FsReportJson(const OpenResult& r, const FsReportRoots& roots = {});

// The text report.
std::string FsReportText(const OpenResult& r, const FsReportRoots& roots = {});

}  // namespace fs
}  // namespace kudu
