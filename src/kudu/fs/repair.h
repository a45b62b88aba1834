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
// writes), §7 of the on-disk format. Limits: a fatal problem other than a
// malformed record anywhere stops every repair; a data dir whose containers
// hold a malformed record gets none. Then per data dir, in Kudu's order:
//   1. dead containers: delete <id>.data, fsync the dir, delete <id>.metadata;
//   2. data-full containers with extra space: truncate the data file to the
//      next block offset (which every accepted CREATE ends at or before);
//   3. partial trailing records: truncate the metadata file at the record,
//      fsync it, unless a valid record follows (damage, not a torn write);
//   4. incomplete containers: delete the metadata file, then the data file;
//   5. compaction (compaction.h): the live CREATEs and at most two dead
//      blocks' records to <id>.metadata.kudutmp.XXXXXX with the old file's
//      owner and mode, fsync, rename over <id>.metadata, fsync the dir;
//   6. re-punching of the extra-space containers' dead blocks, minus every
//      live block's bytes;
//   7. fsync the dir if anything in it was deleted, renamed or truncated.
// A step that fails stops everything after it, in every dir, and is one
// repair error naming the file and the step; the counts say what was done
// before it.
//
// Crash safety: each step leaves a state the next open reads with the same
// live set. A dead container's unlinks are ordered by a dir fsync: were the
// metadata's unlink durable first, block bytes would be left without
// metadata, which is fatal; the other way round leaves metadata without
// data and without live blocks, an incomplete container. A truncation
// removes only bytes past the last valid record or past the next block
// offset. The compaction never modifies the original before the atomic
// rename, and its file replays to the same live set, next block offset and
// highest id.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kudu/fs/block_map.h"
#include "kudu/fs/container_info.h"
#include "kudu/fs/replay_stats.h"
#include "kudu/fs/temp_files.h"
#include "kudu/util/encryption.h"
#include "kudu/util/status.h"

namespace kudu {
namespace fs {

// The repair steps, as the report's repair_errors name them.
constexpr char kTemporaryFilesStep[] = "temporary_files";
constexpr char kDeadContainersStep[] = "dead_containers";
constexpr char kExtraSpaceStep[] = "full_container_extra_space";
constexpr char kPartialRecordsStep[] = "partial_records";
constexpr char kIncompleteContainersStep[] = "incomplete_containers";
constexpr char kCompactionStep[] = "compaction";
constexpr char kRepunchingStep[] = "repunching";
constexpr char kSyncStep[] = "sync";

struct RepairError {
  std::string path;  // the file (or dir) the step failed on
  const char* step = "";
  Status status;
};

// What the repair did to one container (parallel to RepairInput::containers).
struct ContainerRepair {
  // Full with more space on disk than its live blocks need (§4.3), and how
  // much more; found by the repair itself.
  bool has_extra_space = false;
  uint64_t excess_bytes = 0;
  bool extra_space_repaired = false;
  bool dead_deleted = false;
  bool incomplete_deleted = false;
  bool partial_record_truncated = false;
  bool compacted = false;
  uint64_t punched_blocks = 0;
};

struct RepairSummary {
  uint64_t leftover_tmp_files_deleted = 0;
  uint64_t incomplete_containers_deleted = 0;
  uint64_t dead_containers_deleted = 0;
  uint64_t partial_records_truncated = 0;
  // Compacted metadata files.
  uint64_t low_live_metadata_rewritten = 0;
  uint64_t extra_space_repaired = 0;        // entries
  uint64_t extra_space_bytes_repaired = 0;  // their excess_bytes
  uint64_t punched_blocks = 0;
  // Containers with a fatal problem, and those of dirs left alone because of
  // one (any fatal problem but a malformed record stops every repair).
  uint64_t containers_skipped = 0;
  std::vector<ContainerRepair> containers;
  // The step that stopped the repair (at most one: nothing runs after it).
  std::vector<RepairError> errors;
  // OK, or the error that stopped the repair (naming the file).
  Status status;
};

struct RepairInput {
  const ServerKey* server_key = nullptr;
  const ContainerInfos* containers = nullptr;
  // The open's block map (containers indexed as above): a compaction checks
  // that the file it rewrites still holds the live set the open saw.
  const BlockMap* block_map = nullptr;
  // A fatal problem outside every container (a data dir that could not be
  // listed): nothing is repaired, as for a fatal container.
  bool fatal_outside_containers = false;
  // What the open did with the temporary files: a failed deletion stops
  // every repair. May be null.
  const TemporaryFiles* temporary_files = nullptr;
  // Read syscalls and bytes of the rescans of rewritten containers are added
  // here (so the run's totals still match strace); may be null.
  ReplayStats* stats = nullptr;
};

// Stops at the first failing step, where a crash would have stopped it, returning
// its error; `summary` counts what was done until then.
Status RepairContainers(const RepairInput& input, RepairSummary* summary);

}  // namespace fs
}  // namespace kudu
