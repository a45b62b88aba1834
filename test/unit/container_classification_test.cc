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

// The container classification is a function of numbers: a table of facts
// and the class each gives, with the flags' defaults and with limits set.
#include "kudu/fs/container_classification.h"

#include <gflags/gflags.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace kudu {
namespace fs {
namespace {

constexpr uint64_t kMaxSize = 1000;
constexpr uint64_t kEnc = 64;  // encryption header

ClassificationRules Rules(int64_t max_blocks = -1, double ratio = 0.5) {
  ClassificationRules r;
  r.max_container_size = kMaxSize;
  r.max_container_blocks = max_blocks;
  r.live_ratio_before_compact = ratio;
  return r;
}

// A container with both files, replayed, with these counts.
ContainerFacts Replayed(uint64_t next_offset, uint64_t total, uint64_t live) {
  ContainerFacts f;
  f.has_data = f.has_metadata = true;
  f.data_size = 4096;
  f.metadata_size = 100;
  f.replayed = true;
  f.next_write_offset = next_offset;
  f.total_blocks = total;
  f.live_blocks = live;
  return f;
}

ContainerFacts Sizes(bool has_data, uint64_t data, bool has_meta, uint64_t meta,
                     uint64_t header = 0) {
  ContainerFacts f;
  f.has_data = has_data;
  f.data_size = data;
  f.has_metadata = has_meta;
  f.metadata_size = meta;
  f.encryption_header_size = header;
  return f;
}

struct Row {
  const char* what;
  ContainerFacts facts;
  ClassificationRules rules;
  ContainerClass container_class;
  IncompleteReason reason;
};

TEST(ContainerClassificationTest, Table) {
  using C = ContainerClass;
  using R = IncompleteReason;
  ContainerFacts metadata_only = Replayed(0, 3, 0);
  metadata_only.has_data = false;
  metadata_only.data_size = 0;
  ContainerFacts metadata_only_live = metadata_only;
  metadata_only_live.live_blocks = 1;
  ContainerFacts metadata_only_fatal = metadata_only;
  metadata_only_fatal.replay_fatal = true;
  ContainerFacts not_replayed = Replayed(kMaxSize, 10, 0);
  not_replayed.replayed = false;

  const Row rows[] = {
      // Incomplete by size (§4): before any replay, a missing file is size 0.
      {"no metadata, empty data", Sizes(true, 0, false, 0), Rules(), C::kIncomplete,
       R::kNoMetadataEmptyData},
      {"short metadata, no data", Sizes(false, 0, true, 11), Rules(), C::kIncomplete,
       R::kShortMetadataNoData},
      {"short metadata, empty data", Sizes(true, 0, true, 11), Rules(), C::kIncomplete,
       R::kShortMetadataEmptyData},
      {"header-sized metadata", Sizes(true, 0, true, 12), Rules(), C::kActive, R::kNone},
      {"short metadata, data with a byte", Sizes(true, 1, true, 11), Rules(), C::kActive,
       R::kNone},
      {"encrypted: data is only its header", Sizes(true, kEnc, true, kEnc + 11, kEnc), Rules(),
       C::kIncomplete, R::kShortMetadataEmptyData},
      {"encrypted: header-sized metadata", Sizes(true, kEnc, true, kEnc + 12, kEnc), Rules(),
       C::kActive, R::kNone},
      {"encrypted: data past its header", Sizes(true, kEnc + 1, true, kEnc, kEnc), Rules(),
       C::kActive, R::kNone},
      {"no metadata, data with bytes: an error, not a class", Sizes(true, 10, false, 0), Rules(),
       C::kActive, R::kNone},
      // Metadata without data: the records decide.
      {"metadata only, nothing live", metadata_only, Rules(), C::kIncomplete,
       R::kMetadataOnlyNoLiveBlocks},
      {"metadata only, live blocks: an error", metadata_only_live, Rules(), C::kActive, R::kNone},
      {"metadata only, replay failed", metadata_only_fatal, Rules(), C::kActive, R::kNone},
      {"counts unknown before the replay", not_replayed, Rules(), C::kActive, R::kNone},
      // Full by size.
      {"below max size", Replayed(kMaxSize - 1, 10, 1), Rules(), C::kActive, R::kNone},
      {"at max size, most live", Replayed(kMaxSize, 10, 6), Rules(), C::kFull, R::kNone},
      {"at max size, nothing live", Replayed(kMaxSize, 10, 0), Rules(), C::kDead, R::kNone},
      {"at max size, half live", Replayed(kMaxSize, 10, 5), Rules(), C::kLowLive, R::kNone},
      {"past max size, one live", Replayed(kMaxSize + 1, 10, 1), Rules(), C::kLowLive, R::kNone},
      {"ratio 0: only dead is compacted", Replayed(kMaxSize, 10, 1), Rules(-1, 0), C::kFull,
       R::kNone},
      {"ratio 1: every full one with a dead block", Replayed(kMaxSize, 10, 9), Rules(-1, 1),
       C::kLowLive, R::kNone},
      // live / total, divided as Kudu does (3874-3875): 29 / 50 is 0.58 in
      // double arithmetic, where 0.58 x 50 falls just short of 29.
      {"ratio divides: 29 of 50 at 0.58", Replayed(kMaxSize, 50, 29), Rules(-1, 0.58),
       C::kLowLive, R::kNone},
      {"ratio divides: 63 of 90 at 0.70", Replayed(kMaxSize, 90, 63), Rules(-1, 0.70),
       C::kLowLive, R::kNone},
      // §4.3: a rewrite that would drop nothing is no compaction.
      {"ratio 1, nothing dead: nothing to drop", Replayed(kMaxSize, 10, 10), Rules(-1, 1),
       C::kFull, R::kNone},
      // Full by block count, only when the limit is set.
      {"block limit unset", Replayed(0, 1000000, 1000000), Rules(-1), C::kActive, R::kNone},
      {"block limit 0 is unlimited", Replayed(0, 1000000, 1000000), Rules(0), C::kActive,
       R::kNone},
      {"below block limit", Replayed(0, 9, 9), Rules(10), C::kActive, R::kNone},
      {"at block limit", Replayed(0, 10, 9), Rules(10), C::kFull, R::kNone},
      {"at block limit, nothing live", Replayed(0, 10, 0), Rules(10), C::kDead, R::kNone},
      {"at block limit, few live", Replayed(0, 12, 3), Rules(10), C::kLowLive, R::kNone},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    const Classification got = ClassifyContainer(row.facts, row.rules);
    EXPECT_EQ(ContainerClassName(row.container_class), std::string(ContainerClassName(got.container_class)));
    EXPECT_EQ(static_cast<int>(row.reason), static_cast<int>(got.incomplete_reason));
    EXPECT_EQ(row.container_class == C::kFull || row.container_class == C::kDead || row.container_class == C::kLowLive, got.full());
    if (!row.facts.replayed) {
      EXPECT_EQ(static_cast<int>(row.reason),
                static_cast<int>(IncompleteBySize(row.facts)));
    }
  }
}

// The decisions of §4.3 beyond the class: full by metadata size, extra
// space, and the compaction candidates of both rules.
struct LimitRow {
  const char* what;
  ContainerFacts facts;
  ClassificationRules rules;
  bool data_full, metadata_full, extra_space;
  uint64_t excess_bytes;
  CompactionRule compaction;
};

ContainerFacts WithSpace(ContainerFacts f, uint64_t aligned, uint64_t allocated) {
  f.live_bytes_aligned = aligned;
  f.data_allocated_bytes = allocated;
  return f;
}

ContainerFacts WithMetadata(ContainerFacts f, uint64_t size, uint64_t kept = 0) {
  f.metadata_size = size;
  f.dead_blocks_kept = kept;
  return f;
}

ClassificationRules MetadataRules(int64_t max_metadata, bool runtime = false,
                                  double size_ratio = 0.8, double fraction = 0.1) {
  ClassificationRules r = Rules();
  r.max_metadata_size = max_metadata;
  r.runtime_compact = runtime;
  r.metadata_size_before_compact_ratio = size_ratio;
  r.excess_space_fraction = fraction;
  return r;
}

TEST(ContainerClassificationTest, LimitsExtraSpaceAndCompaction) {
  using K = CompactionRule;
  const LimitRow rows[] = {
      // Full by metadata size (off by default; at the limit counts).
      {"metadata limit off", WithMetadata(Replayed(0, 10, 9), 5000), MetadataRules(0), false,
       false, false, 0, K::kNone},
      {"metadata below the limit", WithMetadata(Replayed(0, 10, 9), 499), MetadataRules(500),
       false, false, false, 0, K::kNone},
      {"metadata at the limit", WithMetadata(Replayed(0, 10, 9), 500), MetadataRules(500), false,
       true, false, 0, K::kNone},
      {"metadata full, half live: startup rule", WithMetadata(Replayed(0, 10, 5), 500),
       MetadataRules(500), false, true, false, 0, K::kStartup},
      // Extra space: allocated > aligned live x 1.1, truncated; full only.
      {"extra space, not full", WithSpace(Replayed(0, 10, 9), 10000, 20000), Rules(), false,
       false, false, 0, K::kNone},
      {"extra space at the threshold", WithSpace(Replayed(kMaxSize, 10, 9), 10000, 11000),
       Rules(), true, false, false, 0, K::kNone},
      {"extra space past the threshold", WithSpace(Replayed(kMaxSize, 10, 9), 10000, 11001),
       Rules(), true, false, true, 1001, K::kNone},
      {"extra space threshold truncated", WithSpace(Replayed(kMaxSize, 10, 9), 4097, 4507),
       Rules(), true, false, true, 410, K::kNone},
      {"dead container with extra space", WithSpace(Replayed(kMaxSize, 10, 0), 0, 4096), Rules(),
       true, false, true, 4096, K::kNone},
      {"extra space with fraction 0", WithSpace(Replayed(kMaxSize, 10, 9), 4096, 4097),
       MetadataRules(0, false, 0.8, 0), true, false, true, 1, K::kNone},
      // A threshold past 2^64 (a huge or infinite fraction) is above every
      // allocated size: no extra space, not an undefined conversion.
      {"extra space under a threshold past 2^64",
       WithSpace(Replayed(kMaxSize, 10, 9), 4096, UINT64_MAX), MetadataRules(0, false, 0.8, 1e16),
       true, false, false, 0, K::kNone},
      {"extra space with an infinite fraction",
       WithSpace(Replayed(kMaxSize, 10, 9), 4096, UINT64_MAX),
       MetadataRules(0, false, 0.8, std::numeric_limits<double>::infinity()), true, false, false,
       0, K::kNone},
      // The runtime rule: only with its flag, full or not, strict ratio.
      {"runtime rule off", WithMetadata(Replayed(0, 10, 4), 800), MetadataRules(1000), false,
       false, false, 0, K::kNone},
      {"runtime rule, big metadata", WithMetadata(Replayed(0, 10, 4), 800),
       MetadataRules(1000, true), false, false, false, 0, K::kRuntime},
      {"runtime rule, metadata too small", WithMetadata(Replayed(0, 10, 4), 799),
       MetadataRules(1000, true), false, false, false, 0, K::kNone},
      {"runtime rule is strict", WithMetadata(Replayed(0, 10, 5), 800),
       MetadataRules(1000, true), false, false, false, 0, K::kNone},
      {"runtime rule without a size limit", WithMetadata(Replayed(0, 10, 4), 1),
       MetadataRules(0, true), false, false, false, 0, K::kRuntime},
      {"runtime rule, nothing live", WithMetadata(Replayed(0, 10, 0), 800),
       MetadataRules(1000, true), false, false, false, 0, K::kRuntime},
      {"both rules: startup", WithMetadata(Replayed(kMaxSize, 10, 4), 800),
       MetadataRules(1000, true), true, false, false, 0, K::kStartup},
      {"dead: no rule", WithMetadata(Replayed(kMaxSize, 10, 0), 800), MetadataRules(1000, true),
       true, false, false, 0, K::kNone},
      // Not when every dead block is one §7.1 keeps.
      {"every dead block kept", WithMetadata(Replayed(kMaxSize, 4, 2), 100, 2), Rules(), true,
       false, false, 0, K::kNone},
      {"one dead block more than kept", WithMetadata(Replayed(kMaxSize, 5, 2), 100, 2), Rules(),
       true, false, false, 0, K::kStartup},
      {"runtime: every dead block kept", WithMetadata(Replayed(0, 3, 1), 800, 2),
       MetadataRules(1000, true), false, false, false, 0, K::kNone},
  };
  for (const LimitRow& row : rows) {
    SCOPED_TRACE(row.what);
    const Classification got = ClassifyContainer(row.facts, row.rules);
    EXPECT_EQ(row.data_full, got.data_full);
    EXPECT_EQ(row.metadata_full, got.metadata_full);
    EXPECT_EQ(row.data_full || row.metadata_full, got.full());
    EXPECT_EQ(row.extra_space, got.extra_space);
    EXPECT_EQ(row.excess_bytes, got.excess_bytes);
    EXPECT_STREQ(CompactionRuleName(row.compaction), CompactionRuleName(got.compaction));
    EXPECT_EQ(row.compaction == K::kStartup, got.container_class == ContainerClass::kLowLive);
  }
}

TEST(ContainerClassificationTest, RuntimeRuleNeedsAPositiveSizeRatio) {
  EXPECT_TRUE(ValidateClassificationFlags().ok());
  FLAGS_log_container_metadata_runtime_compact = true;
  FLAGS_log_container_metadata_size_before_compact_ratio = 0;
  Status s = ValidateClassificationFlags();
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("--log_container_metadata_size_before_compact_ratio"));
  FLAGS_log_container_metadata_runtime_compact = false;
  EXPECT_TRUE(ValidateClassificationFlags().ok());  // the ratio matters only with the rule
  FLAGS_log_container_metadata_size_before_compact_ratio = 0.8;
  FLAGS_log_container_excess_space_before_cleanup_fraction = -0.1;
  EXPECT_TRUE(ValidateClassificationFlags().IsInvalidArgument());
  FLAGS_log_container_excess_space_before_cleanup_fraction = 0.1;
}

TEST(ContainerClassificationTest, EveryReasonHasText) {
  EXPECT_EQ("", std::string(IncompleteReasonText(IncompleteReason::kNone)));
  for (IncompleteReason r :
       {IncompleteReason::kNoMetadataEmptyData, IncompleteReason::kShortMetadataNoData,
        IncompleteReason::kShortMetadataEmptyData, IncompleteReason::kMetadataOnlyNoLiveBlocks}) {
    EXPECT_FALSE(std::string(IncompleteReasonText(r)).empty());
  }
}

}  // namespace
}  // namespace fs
}  // namespace kudu
