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

#include "kudu/fs/container_classification.h"

#include <gflags/gflags.h>

#include <algorithm>
#include <limits>

#include "kudu/util/pb_container_format.h"

DEFINE_uint64(log_container_metadata_max_size, 0,
              "A log block container whose metadata file (encryption header included) reaches "
              "this many bytes is full: no new block goes into it. 0: no limit. Also the size "
              "the runtime metadata compaction rule measures against.");
DEFINE_double(log_container_excess_space_before_cleanup_fraction, 0.10,
              "A full log block container whose data file occupies more disk space than its "
              "live blocks' aligned bytes times (1 + this fraction) is reported as having "
              "extra space, which a repair gives back (preallocated space after a crash, "
              "dead blocks whose holes were never punched).");
DEFINE_bool(log_container_metadata_runtime_compact, false,
            "Also evaluate Kudu's runtime metadata compaction rule: a container, full or not, "
            "whose live/total block ratio is below "
            "--log_container_live_metadata_before_compact_ratio and whose metadata file has "
            "reached --log_container_metadata_size_before_compact_ratio of "
            "--log_container_metadata_max_size is a compaction candidate (reported by every "
            "open, rewritten by a repair).");
DEFINE_double(log_container_metadata_size_before_compact_ratio, 0.80,
              "With --log_container_metadata_runtime_compact: the share of "
              "--log_container_metadata_max_size a metadata file must reach before the "
              "runtime compaction rule takes its container. Must be above 0 then.");

namespace kudu {
namespace fs {

namespace {

// One rule that makes a container data full (§4.3). A further limit is one
// more row here and one more field in the rules.
struct FullRule {
  bool (*applies)(const ContainerFacts& f, const ClassificationRules& r);
};

constexpr FullRule kDataFullRules[] = {
    // The next block would start at or past --log_container_max_size.
    {[](const ContainerFacts& f, const ClassificationRules& r) {
      return f.next_write_offset >= r.max_container_size;
    }},
    // --log_container_max_blocks CREATE records, when that limit is set.
    {[](const ContainerFacts& f, const ClassificationRules& r) {
      return r.max_container_blocks > 0 &&
             f.total_blocks >= static_cast<uint64_t>(r.max_container_blocks);
    }},
};

bool IsDataFull(const ContainerFacts& f, const ClassificationRules& r) {
  for (const FullRule& rule : kDataFullRules) {
    if (rule.applies(f, r)) return true;
  }
  return false;
}

// Kudu's full-by-metadata rule: the metadata file, header included, reached
// --log_container_metadata_max_size.
bool IsMetadataFull(const ContainerFacts& f, const ClassificationRules& r) {
  return r.max_metadata_size > 0 &&
         f.metadata_size >= static_cast<uint64_t>(r.max_metadata_size);
}

// Extra space: allocated bytes past the aligned live bytes and their slack,
// the threshold computed in double and truncated, as Kudu does. A threshold
// of 2^64 or more (a huge or infinite fraction) is above every size: its
// conversion to an integer would be undefined.
bool HasExtraSpace(const ContainerFacts& f, const ClassificationRules& r) {
  const double threshold =
      static_cast<double>(f.live_bytes_aligned) * (1.0 + r.excess_space_fraction);
  if (!(threshold < 18446744073709551616.0)) return false;
  return f.data_allocated_bytes > static_cast<uint64_t>(threshold);
}

// The startup rule: full, something live, live/total at or below the ratio.
// Divided, as Kudu's startup check does (3874-3875): multiplied out, 29 of 50
// at 0.58 would miss (0.58 x 50 is just under 29 in double arithmetic).
bool StartupRuleTakes(const ContainerFacts& f, const ClassificationRules& r, bool full) {
  return full && f.live_blocks > 0 &&
         static_cast<double>(f.live_blocks) / static_cast<double>(f.total_blocks) <=
             r.live_ratio_before_compact;
}

// The runtime rule: full or not, live/total strictly below the ratio and a
// metadata file of at least its share of the limit (with no limit the size
// condition always holds, as Kudu's release-build arithmetic has it).
bool RuntimeRuleTakes(const ContainerFacts& f, const ClassificationRules& r) {
  if (!r.runtime_compact) return false;
  const double size_floor = static_cast<double>(r.max_metadata_size > 0 ? r.max_metadata_size : 0) *
                            r.metadata_size_before_compact_ratio;
  return static_cast<double>(f.live_blocks) <
             static_cast<double>(f.total_blocks) * r.live_ratio_before_compact &&
         static_cast<double>(f.metadata_size) >= size_floor;
}

}  // namespace

const char* ContainerClassName(ContainerClass container_class) {
  switch (container_class) {
    case ContainerClass::kIncomplete: return "incomplete";
    case ContainerClass::kActive: return "active";
    case ContainerClass::kFull: return "full";
    case ContainerClass::kDead: return "dead";
    case ContainerClass::kLowLive: return "low_live";
  }
  return "?";
}

const char* CompactionRuleName(CompactionRule rule) {
  switch (rule) {
    case CompactionRule::kNone: return "";
    case CompactionRule::kStartup: return "startup";
    case CompactionRule::kRuntime: return "runtime";
  }
  return "?";
}

int64_t MetadataMaxSizeFlag() {
  // Sizes past 2^63-1 are no limit in practice, and stay one here.
  return static_cast<int64_t>(
      std::min<uint64_t>(FLAGS_log_container_metadata_max_size, std::numeric_limits<int64_t>::max()));
}

void ClassificationRules::SetFromClassificationFlags() {
  max_metadata_size = MetadataMaxSizeFlag();
  excess_space_fraction = FLAGS_log_container_excess_space_before_cleanup_fraction;
  runtime_compact = FLAGS_log_container_metadata_runtime_compact;
  metadata_size_before_compact_ratio = FLAGS_log_container_metadata_size_before_compact_ratio;
}

Status ValidateClassificationFlags() {
  if (!(FLAGS_log_container_excess_space_before_cleanup_fraction >= 0)) {
    return Status::InvalidArgument(
        "--log_container_excess_space_before_cleanup_fraction must be 0 or more, not " +
        std::to_string(FLAGS_log_container_excess_space_before_cleanup_fraction));
  }
  if (FLAGS_log_container_metadata_runtime_compact &&
      !(FLAGS_log_container_metadata_size_before_compact_ratio > 0)) {
    return Status::InvalidArgument(
        "--log_container_metadata_runtime_compact needs "
        "--log_container_metadata_size_before_compact_ratio above 0, not " +
        std::to_string(FLAGS_log_container_metadata_size_before_compact_ratio));
  }
  return Status::OK();
}

const char* IncompleteReasonText(IncompleteReason reason) {
  switch (reason) {
    case IncompleteReason::kNone: return "";
    case IncompleteReason::kNoMetadataEmptyData:
      return "no metadata file, and the data file holds no block";
    case IncompleteReason::kShortMetadataNoData:
      return "metadata file shorter than a container header, and no data file";
    case IncompleteReason::kShortMetadataEmptyData:
      return "metadata file shorter than a container header, and the data file holds no block";
    case IncompleteReason::kMetadataOnlyNoLiveBlocks:
      return "metadata file without a data file, and no live block";
  }
  return "?";
}

IncompleteReason IncompleteBySize(const ContainerFacts& f) {
  const uint64_t min_metadata = pb_container::kMinimumValidLength + f.encryption_header_size;
  // A data file holding at most its encryption header holds no block.
  if (f.metadata_size >= min_metadata || f.data_size > f.encryption_header_size) {
    return IncompleteReason::kNone;
  }
  if (!f.has_metadata) return IncompleteReason::kNoMetadataEmptyData;
  if (!f.has_data) return IncompleteReason::kShortMetadataNoData;
  return IncompleteReason::kShortMetadataEmptyData;
}

Classification ClassifyContainer(const ContainerFacts& f, const ClassificationRules& rules) {
  Classification c;
  c.incomplete_reason = IncompleteBySize(f);
  if (c.incomplete_reason == IncompleteReason::kNone && f.replayed && !f.has_data &&
      !f.replay_fatal && f.live_blocks == 0) {
    // Records without a data file that leave nothing live: the crash came
    // before any block was written (with live blocks it is an error instead).
    c.incomplete_reason = IncompleteReason::kMetadataOnlyNoLiveBlocks;
  }
  if (c.incomplete_reason != IncompleteReason::kNone) {
    c.container_class = ContainerClass::kIncomplete;
    return c;
  }
  if (!f.replayed) return c;  // kActive until its counts are known
  c.data_full = IsDataFull(f, rules);
  c.metadata_full = IsMetadataFull(f, rules);
  const bool full = c.data_full || c.metadata_full;
  if (full && HasExtraSpace(f, rules)) {
    c.extra_space = true;
    c.excess_bytes = f.data_allocated_bytes - f.live_bytes_aligned;
  }
  const bool dead = full && f.live_blocks == 0;
  // A rewrite that would drop no record is no compaction (ours: otherwise
  // the same container would be picked again at every repair).
  const bool drops_something = f.total_blocks - f.live_blocks > f.dead_blocks_kept;
  if (!dead && drops_something) {
    if (StartupRuleTakes(f, rules, full)) {
      c.compaction = CompactionRule::kStartup;
    } else if (RuntimeRuleTakes(f, rules)) {
      c.compaction = CompactionRule::kRuntime;
    }
  }
  if (!full) {
    c.container_class = ContainerClass::kActive;
  } else if (dead) {
    c.container_class = ContainerClass::kDead;
  } else if (c.compaction == CompactionRule::kStartup) {
    c.container_class = ContainerClass::kLowLive;
  } else {
    c.container_class = ContainerClass::kFull;
  }
  return c;
}

}  // namespace fs
}  // namespace kudu
