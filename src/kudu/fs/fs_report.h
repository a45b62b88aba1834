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

// The FS layout report of one open (and its repair): Kudu-style text for an
// operator, and the JSON object of docs/tool-contract.md for scripts.
//
// Entries are listed in container path order, then by offset, so two opens
// of the same directories give the same report whatever the strategy or the
// thread timing; only "replay" and "timing" differ.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "kudu/fs/block_manager_open.h"

namespace kudu {
namespace fs {

// Totals over every container of an open.
struct FsReportTotals {
  uint64_t containers = 0;  // found, not incomplete
  uint64_t full_containers = 0;
  uint64_t dead_containers = 0;
  uint64_t low_live_containers = 0;
  uint64_t live_blocks = 0;
  uint64_t live_bytes = 0;
  uint64_t live_bytes_aligned = 0;
  uint64_t malformed_records = 0;
  uint64_t partial_records = 0;
  uint64_t incomplete_containers = 0;
  uint64_t corrupt_containers = 0;  // containers with at least one fatal problem
  uint64_t fatal_problems = 0;
  uint64_t duplicate_block_ids = 0;  // ids live in more than one container
};

FsReportTotals ComputeReportTotals(const OpenResult& r);

// The roots that are not data roots, as the directory flags resolved them.
// Left empty, the first data root stands in for both (a WAL root named by
// --fs_data_dirs alone).
struct FsReportRoots {
  std::string wal_dir;
  std::string metadata_dir;
};

// The report's `status`: "OK" only when the tool exits 0. Otherwise the
// first fatal problem, or, with none, why the repair failed.
std::string FsReportStatus(const OpenResult& r);

// The JSON report: every key of the tool contract, plus "repairs" when the
// open ran with repair.
nlohmann::json FsReportJson(const OpenResult& r, const FsReportRoots& roots = {});

// The text report.
std::string FsReportText(const OpenResult& r, const FsReportRoots& roots = {});

}  // namespace fs
}  // namespace kudu
