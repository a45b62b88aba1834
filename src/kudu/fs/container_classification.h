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

// What kind of container the open found (§4): incomplete (a crash while it
// was created or deleted left nothing in it), full (by data or by metadata
// size), dead (full with nothing live), with extra space, a metadata
// compaction candidate by Kudu's startup or runtime rule; decided from
// numbers only so every rule can be table-tested and read in one place. The
// open, the report and repair act on the class; none of them decides it
// again.
#pragma once

#include <cstdint>

#include <gflags/gflags_declare.h>

#include "kudu/util/status.h"

DECLARE_uint64(log_container_metadata_max_size);
DECLARE_double(log_container_excess_space_before_cleanup_fraction);
DECLARE_bool(log_container_metadata_runtime_compact);
DECLARE_double(log_container_metadata_size_before_compact_ratio);

namespace kudu {
namespace fs {

// --log_container_metadata_max_size as the rules and the writer hold it:
// 0 is no limit, and so is anything past 2^63-1.
int64_t MetadataMaxSizeFlag();

enum class ContainerClass {
  kIncomplete,  // not counted as a container; repair deletes its files
  kActive,      // room left for new blocks
  kFull,        // full, with enough live blocks to keep as it is
  kDead,        // full with no live block; repair deletes it
  kLowLive,     // full and a compaction candidate by the startup rule; repair rewrites it
};

// Which of Kudu's rules makes a container a metadata compaction candidate.
enum class CompactionRule {
  kNone,
  kStartup,  // full, live/total at or below the ratio (startup wins when both apply)
  kRuntime,  // --log_container_metadata_runtime_compact: few live and a large metadata file
};
// "startup" / "runtime" ("" for kNone), as the report names them.
const char* CompactionRuleName(CompactionRule rule);

const char* ContainerClassName(ContainerClass container_class);

// Why a container is incomplete; kNone when it is not.
enum class IncompleteReason {
  kNone,
  kNoMetadataEmptyData,       // no metadata file, data file without a block
  kShortMetadataNoData,       // metadata shorter than a header, no data file
  kShortMetadataEmptyData,    // metadata shorter than a header, data without a block
  kMetadataOnlyNoLiveBlocks,  // metadata without a data file, and nothing live
};

// The operator-facing sentence for `reason` (empty for kNone).
const char* IncompleteReasonText(IncompleteReason reason);

// The limits the class is measured against: Kudu's flags.
struct ClassificationRules {
  uint64_t max_container_size = 0;   // --log_container_max_size
  int64_t max_container_blocks = 0;  // --log_container_max_blocks; <= 0: unlimited
  double live_ratio_before_compact = 0;  // --log_container_live_metadata_before_compact_ratio
  int64_t max_metadata_size = 0;     // --log_container_metadata_max_size; <= 0: no limit
  double excess_space_fraction = 0.10;  // --log_container_excess_space_before_cleanup_fraction
  bool runtime_compact = false;      // --log_container_metadata_runtime_compact
  double metadata_size_before_compact_ratio = 0.80;  // --log_container_metadata_size_before_compact_ratio

  // The four flags defined with the classification, as they are now (the
  // two container limits and the live ratio are set by the caller).
  void SetFromClassificationFlags();
};

// Whether the classification flags make sense together; InvalidArgument
// naming the flag otherwise (a usage error for the tools).
Status ValidateClassificationFlags();

// Everything the class depends on. The sizes are known from the listing;
// the counts only once the metadata has been replayed.
struct ContainerFacts {
  bool has_data = false;
  bool has_metadata = false;
  uint64_t data_size = 0;       // raw, encryption header included; 0 when missing
  uint64_t metadata_size = 0;
  uint64_t encryption_header_size = 0;  // 0 for plain files

  // Set once the replay ended; the fields below are then valid.
  bool replayed = false;
  bool replay_fatal = false;  // corruption or I/O error: the container is an error, not incomplete
  uint64_t next_write_offset = 0;
  uint64_t total_blocks = 0;  // accepted CREATE records
  uint64_t live_blocks = 0;
  uint64_t live_bytes_aligned = 0;    // encryption header included (§4.3)
  uint64_t data_allocated_bytes = 0;  // st_blocks x 512 of the data file
  // Dead blocks whose records a compaction keeps anyway (§7.1, at most two).
  uint64_t dead_blocks_kept = 0;
};

struct Classification {
  ContainerClass container_class = ContainerClass::kActive;
  IncompleteReason incomplete_reason = IncompleteReason::kNone;
  bool data_full = false;      // by next block offset or block count
  bool metadata_full = false;  // by metadata file size
  bool extra_space = false;
  uint64_t excess_bytes = 0;   // data_allocated_bytes - live_bytes_aligned, with extra_space
  CompactionRule compaction = CompactionRule::kNone;
  bool full() const {
    return container_class == ContainerClass::kFull || container_class == ContainerClass::kDead ||
           container_class == ContainerClass::kLowLive;
  }
};

// Before the replay: whether the sizes alone make the container incomplete
// (then it is not replayed). A missing file counts as size 0.
IncompleteReason IncompleteBySize(const ContainerFacts& f);

// The container's class. Before the replay (f.replayed false) only the size
// rule can decide; a container that is not incomplete by size is kActive
// until its counts are known.
Classification ClassifyContainer(const ContainerFacts& f, const ClassificationRules& rules);

}  // namespace fs
}  // namespace kudu
