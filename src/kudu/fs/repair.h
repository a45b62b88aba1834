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

// Repair of what the open found (only with --repair: a plain open never
// writes). Each repair is one of:
//   - count the temporary files the open deleted before the replay
//     (prepare_data_dirs.h), or stop when one could not be deleted;
//   - delete an incomplete container (data file first, then metadata);
//   - delete a dead full container (data file first, then metadata);
//   - truncate a partial trailing record (metadata truncated at its offset);
//   - rewrite a low-live full container's metadata with only its live CREATE
//     records: <id>.metadata.kudutmp.XXXXXX (Kudu's name for it, so that
//     either side's open deletes the other's leftover) with the same
//     container version and encryption, fsync, rename over the original,
//     fsync the dir.
// Containers with a fatal problem (corruption, I/O error, a duplicate id, a
// missing data file) are never touched: what is wrong there is for an
// operator to look at.
//
// Crash safety: every step leaves a state the next open reads correctly
// with every live block:
//   - deletes go data file first: a crash between the two unlinks leaves
//     metadata without data and without live blocks (or a sub-header
//     metadata), which the open classifies as an incomplete container. The
//     other order would leave a data file with bytes and no metadata, which
//     is fatal.
//   - a truncate removes only bytes past the last valid record; it either
//     happened or not.
//   - the rewrite never modifies the original: until the rename the old
//     file is in place (and a leftover .kudutmp is never read); rename(2) replaces
//     it atomically with a synced file holding the same live set.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kudu/fs/container_info.h"
#include "kudu/fs/replay_stats.h"
#include "kudu/fs/temp_files.h"
#include "kudu/util/encryption.h"
#include "kudu/util/status.h"

namespace kudu {
namespace fs {

struct RepairSummary {
  uint64_t leftover_tmp_files_deleted = 0;
  uint64_t incomplete_containers_deleted = 0;
  uint64_t dead_containers_deleted = 0;
  uint64_t partial_records_truncated = 0;
  uint64_t low_live_metadata_rewritten = 0;
  // Containers left alone because they have a fatal problem.
  uint64_t containers_skipped = 0;
  // OK, or the error that stopped the repair (naming the file).
  Status status;
};

struct RepairInput {
  const ServerKey* server_key = nullptr;
  const std::vector<ContainerInfo>* containers = nullptr;
  // What the open did with the temporary files: a failed deletion stops
  // every repair. May be null.
  const TemporaryFiles* temporary_files = nullptr;
  // Read syscalls and bytes of the rescans of rewritten containers are added
  // here (so the run's totals still match strace); may be null.
  ReplayStats* stats = nullptr;
};

// Stops at the first failing step (a crash stand-in for tests), returning
// its error; `summary` counts what was done until then.
Status RepairContainers(const RepairInput& input, RepairSummary* summary);

// The repair step a failure belongs to, for the report's repair_errors.
constexpr char kTemporaryFilesStep[] = "temporary_files";

}  // namespace fs
}  // namespace kudu
