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
#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/fs/replay_outcome.h"
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
  };
  Kind kind = Kind::kCorruption;
  std::string file;     // the file the problem is in
  uint64_t offset = 0;  // raw byte offset in `file` (0 for whole-file problems)
  Status status;        // names the file and, for records, the offset
  uint64_t block_id = 0;  // kDuplicateId: the id
};

const char* ContainerProblemKindName(ContainerProblem::Kind kind);

struct ContainerInfo {
  uint32_t dir_index = 0;    // index into the data dirs
  std::string id;            // 32 lowercase hex characters
  std::string path;          // <root>/data/<id>, how reports name the container
  std::string data_path;     // <root>/data/<id>.data
  std::string metadata_path; // <root>/data/<id>.metadata
  bool has_data = false;
  bool has_metadata = false;
  uint64_t data_size = 0;      // raw sizes, encryption header included; 0 when missing
  uint64_t metadata_size = 0;
  bool encrypted = false;      // opened with a server key
  uint64_t fs_block_size = 4096;

  // Container-level check: a crash while creating (or deleting) it left a
  // container with nothing in it. Not replayed further, not counted as a
  // container; repair deletes its files.
  bool incomplete = false;
  std::string incomplete_reason;

  // Replay (when not incomplete by size).
  bool replayed = false;
  ReplayOutcome outcome;
  ReplayStrategyKind strategy = ReplayStrategyKind::kStreaming;
  bool fell_back = false;

  // Non-fatal: records skipped by the record semantics, and a partial
  // trailing record (outcome.kind == kPartialRecord, at outcome.offset).
  std::vector<MalformedRecord> malformed;
  bool partial_record() const { return outcome.kind == ReplayOutcome::Kind::kPartialRecord; }
  uint64_t partial_record_offset() const { return outcome.offset; }

  // The container's local counts (records before a failure included).
  uint64_t live_blocks = 0;
  uint64_t live_bytes = 0;
  uint64_t live_bytes_aligned = 0;
  uint64_t total_blocks = 0;
  uint64_t next_write_offset = 0;
  bool has_max_block_id = false;
  uint64_t max_block_id = 0;

  // Full: next write offset reached --log_container_max_size or the block
  // count reached --log_container_max_blocks. Dead: full with no live block
  // (repair deletes it). Low-live: full and live/total at or below
  // --log_container_live_metadata_before_compact_ratio (repair rewrites its
  // metadata with only the live CREATE records).
  bool full = false;
  bool dead = false;
  bool low_live = false;

  // Fatal problems, sorted by offset once the open ends.
  std::vector<ContainerProblem> problems;
  void AddProblem(ContainerProblem::Kind kind, const std::string& file, uint64_t offset,
                  Status status, uint64_t block_id = 0) {
    problems.push_back(ContainerProblem{kind, file, offset, std::move(status), block_id});
  }
  bool fatal() const { return !problems.empty(); }
  // Counted in the report's `containers`: found and not incomplete.
  bool counted() const { return !incomplete; }
};

}  // namespace fs
}  // namespace kudu
