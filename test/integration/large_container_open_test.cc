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

// One container whose replay holds more blocks than a live set keeps 24
// bytes wide (so the oldest are packed, then widened again for the merge):
// filled and emptied later, or filled and kept, plain and encrypted, it
// opens to exactly the live set the writer recorded under every strategy,
// and after a replay that packed and then failed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/live_block_set.h"
#include "kudu/tools/block_workload.h"
#include "kudu/util/io_fault_injector.h"
#include "util/fs_fixture_util.h"
#include "util/reference_replay_util.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

// One container of 1.5 kHotSlots blocks (packed once, then widened at the
// hand-over), `deleted_percentage` of them deleted after the last CREATE,
// written into `roots`; `*expected` is the live set the writer recorded.
void WriteLargeContainer(const std::vector<std::string>& roots, const ServerKey* key,
                         int deleted_percentage, uint64_t seed, tools::BlockWorkloadResult* gen,
                         test::LiveSet* expected) {
  tools::BlockWorkloadOptions wo;
  wo.writer.data_dirs = roots;
  wo.writer.server_key = key;
  wo.writer.sync = false;
  wo.writer.sparse_data = true;
  wo.containers = 1;
  wo.blocks_per_container = static_cast<int64_t>(LiveBlockSet::kHotSlots * 3 / 2);
  wo.deleted_block_percentage = deleted_percentage;
  wo.delete_after_creating = true;
  wo.seed = seed;
  ASSERT_OK(tools::RunBlockWorkload(wo, gen));
  ASSERT_EQ(1u, gen->containers);
  for (const tools::GeneratedBlock& b : gen->live) {
    (*expected)[b.id.id()] = std::make_tuple(b.container_id, b.offset, b.length);
  }
  ASSERT_EQ(gen->blocks_created - gen->blocks_deleted, expected->size());
}

struct LargeContainerCase {
  int deleted_percentage;
  bool encrypted;
};

class LargeContainerOpenTest : public ::testing::TestWithParam<LargeContainerCase> {};

TEST_P(LargeContainerOpenTest, OpensToTheGeneratedLiveSet) {
  const LargeContainerCase& lc = GetParam();
  test::TempDir tmp;
  const std::vector<std::string> roots = {tmp.Join("dir")};
  ServerKey key = test::TestServerKey(16);
  const ServerKey* k = lc.encrypted ? &key : nullptr;

  tools::BlockWorkloadResult gen;
  test::LiveSet expected;
  ASSERT_NO_FATAL_FAILURE(
      WriteLargeContainer(roots, k, lc.deleted_percentage, /*seed=*/3, &gen, &expected));
  // The writer did fill the container first: every DELETE after the last
  // CREATE, so the replay holds every block at that point of the file.
  test::ReferenceReplay ref;
  ASSERT_OK(test::ReplayDataDirs(roots, k, &ref));
  ASSERT_EQ(1u, ref.records.size());
  const std::vector<BlockRecordPB>& records = ref.records.begin()->second;
  const auto first_delete = std::find_if(records.begin(), records.end(), [](const BlockRecordPB& r) {
    return r.op_type() == DELETE;
  });
  EXPECT_EQ(static_cast<size_t>(first_delete - records.begin()), gen.blocks_created);
  EXPECT_EQ(records.size(), gen.blocks_created + gen.blocks_deleted);

  for (StrategyChoice choice : test::kAllStrategyChoices) {
    SCOPED_TRACE(StrategyChoiceName(choice));
    OpenResult r;
    ASSERT_OK(OpenBlockManager(test::OpenOptions(roots, k, choice), &r));
    ASSERT_EQ(OpenResult::Failure::kNone, r.failure);
    EXPECT_EQ(expected, test::LiveSetOf(r));
  }
}

// A Windowed replay that fails at its last window read, long after it
// packed the container's oldest blocks, starts again with Streaming from an
// empty set: the open still gives exactly the generator's live set.
TEST(LargeContainerFallbackTest, AFailedReplayThatPackedStartsAgainFromNothing) {
  test::TempDir tmp;
  const std::vector<std::string> roots = {tmp.Join("dir")};
  tools::BlockWorkloadResult gen;
  test::LiveSet expected;
  ASSERT_NO_FATAL_FAILURE(WriteLargeContainer(roots, nullptr, 90, /*seed=*/5, &gen, &expected));

  BlockManagerOpenOptions opts = test::OpenOptions(roots, nullptr, StrategyChoice::kWindowed);
  opts.policy.window_bytes = 1 << 20;
  OpenResult clean;
  IoFaultInjector::Arm(IoOp::kRead, UINT64_MAX, IoFault::kNone, ".metadata");  // counts only
  ASSERT_OK(OpenBlockManager(opts, &clean));
  const uint64_t reads = IoFaultInjector::Count(IoOp::kRead);
  IoFaultInjector::Disarm();
  ASSERT_EQ(expected, test::LiveSetOf(clean));
  ASSERT_EQ(0u, clean.replay.fallbacks);
  ASSERT_GT(reads, 8u) << "the file spans several windows";  // ~14 MB

  // The last read of the metadata file: every CREATE was replayed by then.
  IoFaultInjector::Arm(IoOp::kRead, reads, IoFault::kEIO, ".metadata");
  OpenResult r;
  ASSERT_OK(OpenBlockManager(opts, &r));
  const bool fired = IoFaultInjector::Fired();
  IoFaultInjector::Disarm();
  ASSERT_TRUE(fired);
  EXPECT_EQ(1u, r.replay.fallbacks);
  EXPECT_EQ(expected, test::LiveSetOf(r));
}

INSTANTIATE_TEST_SUITE_P(
    FilledAndEmptiedOrKept, LargeContainerOpenTest,
    // Encrypted only once: the live set is the same code either way.
    ::testing::Values(LargeContainerCase{90, false}, LargeContainerCase{0, true}),
    [](const ::testing::TestParamInfo<LargeContainerCase>& i) {
      return std::to_string(i.param.deleted_percentage) + "pct_deleted_" +
             (i.param.encrypted ? "encrypted" : "plain");
    });

}  // namespace
}  // namespace fs
}  // namespace kudu
