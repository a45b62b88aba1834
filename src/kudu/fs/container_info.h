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

// What the open learned about one log block container: its files, the
// container-level checks of §4 (incomplete? metadata without data?), how its
// replay ended, its local counts, and every problem found, each naming a file
// and an offset. The report and repair read only this, never the files.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kudu/fs/container_replay_state.h"
#include "kudu/fs/live_block_set.h"
#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/fs/replay_outcome.h"
#include "kudu/util/page_memory.h"
#include "kudu/util/status.h"

namespace kudu {
namespace fs {

// A problem that makes the open fail (a server would refuse to start).
struct ContainerProblem {
  enum class Kind {
    kCorruption,   // damaged header or record, or a body that does not parse
    kIOError,      // a file could not be opened or read
    kMissingData,  // metadata with live blocks but no data file
    kMissingMetadata,  // a data file with bytes but no (usable) metadata file
    kDuplicateId,  // a block id live in this container and in another one
    kNotRegularFile,  // a container file that is a FIFO, device, directory, bad symlink, ...
  };
  Kind kind = Kind::kCorruption;
  std::string file;     // the file the problem is in
  uint64_t offset = 0;  // raw byte offset in `file` (0 for whole-file problems)
  Status status;        // names the file and, for records, the offset
  uint64_t block_id = 0;  // kDuplicateId: the id
  // No byte of `file` is at fault (a file that cannot be opened as a server
  // opens it): the report's offset is null.
  bool whole_file = false;
};

const char* ContainerProblemKindName(ContainerProblem::Kind kind);

// A fatal problem that belongs to no container (§4.4): a data dir whose
// data/ cannot be listed. Its containers are unknown, so none of them is
// reported; the open fails all the same.
struct DataDirProblem {
  std::string path;  // <root>/data
  Status status;     // names the path
};

struct ContainerInfo {
  uint32_t dir_index = 0;    // index into the data dirs
  std::string id;            // the stem (§1): 32 lowercase hex when Kudu made it
  std::string path;          // <root>/data/<id>, how reports name the container
  std::string data_path;     // <root>/data/<id>.data
  std::string metadata_path; // <root>/data/<id>.metadata
  bool has_data = false;
  bool has_metadata = false;
  uint64_t data_size = 0;      // raw sizes, encryption header included; 0 when missing
  // The data file's size the records were checked against: data_size, or
  // more when a CREATE past its end found the file grown (§4.2, KUDU-1657).
  uint64_t records_data_size = 0;
  uint64_t metadata_size = 0;
  bool encrypted = false;      // opened with a server key
  uint64_t fs_block_size = 4096;
  // 0 when this process may open each file for reading and writing, as a
  // server opens both, else the errno that open would fail with (from the
  // listing's stat; 0 when missing).
  int metadata_rw_error = 0;
  int data_rw_error = 0;

  // Container-level check: a crash while creating (or deleting) it left a
  // container with nothing in it. Not replayed further, not counted as a
  // container; repair deletes its files.
  bool incomplete = false;
  std::string incomplete_reason;

  // Replay (when not incomplete by size).
  // Claimed ahead of its dir's other containers, largest first.
  bool claimed_largest_first = false;
  bool replayed = false;
  ReplayOutcome outcome;
  ReplayStrategyKind strategy = ReplayStrategyKind::kStreaming;
  bool fell_back = false;

  // Records skipped by the record semantics (§4.2): fatal (§4.4), yet not
  // a corruption: the container still counts. In file order.
  std::vector<MalformedRecord> malformed;
  // Non-fatal: a partial trailing record (outcome.kind == kPartialRecord, at
  // outcome.offset).
  bool partial_record() const { return outcome.kind == ReplayOutcome::Kind::kPartialRecord; }
  uint64_t partial_record_offset() const { return outcome.offset; }

  // The container's local counts (records before a failure included).
  // live_bytes and live_bytes_aligned count an encrypted data file's header
  // as Kudu does (§4.3): 64, and 64 aligned up to the block size.
  uint64_t live_blocks = 0;
  uint64_t live_bytes = 0;
  uint64_t live_bytes_aligned = 0;
  uint64_t total_blocks = 0;
  uint64_t next_write_offset = 0;
  bool has_max_block_id = false;
  uint64_t max_block_id = 0;

  // Live blocks that do not start on a filesystem block boundary
  // (KUDU-1793), by ascending id: reported, not fatal.
  std::vector<LiveBlock> misaligned_blocks;

  // What the classification (container_classification.h) decided once the
  // replay ended. Full: data full (next write offset reached
  // --log_container_max_size, or the block count --log_container_max_blocks)
  // or metadata full (the metadata file reached
  // --log_container_metadata_max_size). Dead: full with no live block
  // (repair deletes it).
  bool full = false;
  bool data_full = false;      // the repair truncates extra space only then
  bool metadata_full = false;
  bool dead = false;
  // Extra space (full containers only): the data file's allocated size
  // (st_blocks x 512) went past live_bytes_aligned by more than
  // --log_container_excess_space_before_cleanup_fraction.
  uint64_t data_allocated_bytes = 0;
  bool extra_space = false;
  uint64_t excess_bytes = 0;  // allocated - live_bytes_aligned, when extra_space
  // A metadata compaction candidate (§4.3) and the rule that made it one
  // ("startup" or "runtime"; "startup" when both do).
  bool low_live = false;
  const char* compaction_rule = "";
  // The dead blocks whose CREATE and DELETE records a compaction keeps
  // (§7.1: at most two, by record offset).
  std::vector<KeptDeadBlock> kept_dead_blocks;

  // Set by the repair, entry by entry: what this run repaired.
  bool repaired_dead = false;
  bool repaired_extra_space = false;
  bool repaired_partial_record = false;
  bool repaired_incomplete = false;
  bool repaired_compaction = false;
  uint64_t punched_blocks = 0;

  // Fatal problems, sorted by offset once the open ends.
  std::vector<ContainerProblem> problems;
  void AddProblem(ContainerProblem::Kind kind, const std::string& file, uint64_t offset,
                  Status status, uint64_t block_id = 0) {
    problems.push_back(ContainerProblem{kind, file, offset, std::move(status), block_id});
  }
  // A corrupt container (§4.1): counted only in corrupt_containers.
  bool fatal() const { return !problems.empty(); }
  // Fatal for the open (§4.4) without making the container corrupt.
  // Counted in the report's `containers` and totals: opened, not corrupt.
  bool counted() const { return !incomplete && !fatal(); }
};

// Every container of an open, in report order. Built in one go on the
// open's thread before any replay: on a server of 16,000 containers it is
// megabytes, whose small pages would each fault on their first write (a
// dear fault in a virtual machine with shadowed page tables), so from
// 2 MiB it is page memory, faulted in a huge page at a time.
using ContainerInfos = std::vector<ContainerInfo, PageMemoryAllocator<ContainerInfo>>;

}  // namespace fs
}  // namespace kudu
