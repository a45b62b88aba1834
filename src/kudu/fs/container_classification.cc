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

#include "kudu/util/pb_container_format.h"

namespace kudu {
namespace fs {

namespace {

// One rule that makes a container full. A further rule of §4.3 (a metadata
// size limit, say) is one more row here and one more field in the rules.
struct FullRule {
  bool (*applies)(const ContainerFacts& f, const ClassificationRules& r);
};

constexpr FullRule kFullRules[] = {
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

bool IsFull(const ContainerFacts& f, const ClassificationRules& r) {
  for (const FullRule& rule : kFullRules) {
    if (rule.applies(f, r)) return true;
  }
  return false;
}

}  // namespace

const char* ContainerClassName(ContainerClass cls) {
  switch (cls) {
    case ContainerClass::kIncomplete: return "incomplete";
    case ContainerClass::kActive: return "active";
    case ContainerClass::kFull: return "full";
    case ContainerClass::kDead: return "dead";
    case ContainerClass::kLowLive: return "low_live";
  }
  return "?";
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
    c.cls = ContainerClass::kIncomplete;
    return c;
  }
  if (!f.replayed || !IsFull(f, rules)) {
    c.cls = ContainerClass::kActive;
  } else if (f.live_blocks == 0) {
    c.cls = ContainerClass::kDead;
  } else if (static_cast<double>(f.live_blocks) <=
             rules.live_ratio_before_compact * static_cast<double>(f.total_blocks)) {
    c.cls = ContainerClass::kLowLive;
  } else {
    c.cls = ContainerClass::kFull;
  }
  return c;
}

}  // namespace fs
}  // namespace kudu
