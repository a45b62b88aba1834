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

// Repair: a round trip (check --repair, then a check finds nothing left to
// repair and the same live set), containers with fatal problems left alone,
// and a crash at every step: the k-th write, fsync, rename, truncate or
// delete of a repair fails (the file layer's fault injection), and the state
// left behind must open cleanly with every live block, and a later repair
// must finish the job.
#include <gtest/gtest.h>

#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/fs_report.h"
#include "kudu/util/env.h"
#include "kudu/util/io_fault_injector.h"
#include "util/fs_fixture_util.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using fs::OpenResult;
using nlohmann::json;
using test::HandContainer;
using test::MakeCreate;
using test::MakeDelete;
using test::TempDir;


constexpr int64_t kMaxBlocks = 4;  // containers are full at 4 CREATE records

class RepairTest : public test::PlainAndEncryptedTest {
 protected:
  RepairTest() : PlainAndEncryptedTest(/*key_bytes=*/16, /*blocks=*/16) {}
  BlockRecordPB Create(uint64_t id, int slot) { return MakeCreate(id, SlotOffset(slot), 100 + slot); }
  fs::BlockManagerOpenOptions Options(const std::vector<std::string>& roots, bool repair) {
    fs::BlockManagerOpenOptions o = test::OpenOptions(roots, k_);
    o.max_container_blocks = kMaxBlocks;
    o.repair = repair;
    return o;
  }

  // Two data dirs holding one of everything repair handles, next to
  // containers it must leave as they are.
  void BuildFixture(const std::string& d0, const std::string& d1) {
    HandContainer c;
    auto write = [&](const std::string& root, int n, int64_t data_size,
                     const std::vector<BlockRecordPB>* rs) {
      ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(n), data_size, rs, k_, &c));
    };
    // Healthy, not full.
    std::vector<BlockRecordPB> h1 = {Create(1, 0), Create(2, 1)};
    write(d0, 1, data_size_, &h1);
    // A partial trailing record.
    std::vector<BlockRecordPB> p = {Create(10, 0), Create(11, 1), Create(12, 2)};
    write(d0, 2, data_size_, &p);
    ASSERT_OK(test::TruncateFileTo(c.metadata_path, c.end_offset - 4));
    // A zero-filled tail.
    std::vector<BlockRecordPB> z = {Create(20, 0)};
    write(d0, 3, data_size_, &z);
    ASSERT_OK(test::AppendZeros(c.metadata_path, 25));
    // Dead: full, nothing live.
    std::vector<BlockRecordPB> dead = {Create(30, 0), Create(31, 1), Create(32, 2), Create(33, 3),
                                       MakeDelete(30), MakeDelete(31), MakeDelete(32),
                                       MakeDelete(33)};
    write(d0, 4, data_size_, &dead);
    // Low-live: 1 of 4. (No malformed record: it would be fatal, §4.4, and
    // keep the dir from being repaired, §7.)
    std::vector<BlockRecordPB> low = {Create(40, 0), Create(41, 1),
                                      Create(42, 2), MakeDelete(40), Create(43, 3),
                                      MakeDelete(41), MakeDelete(42)};
    write(d0, 5, data_size_, &low);
    // Incomplete: empty data, sub-header metadata.
    write(d0, 6, 0, nullptr);
    ASSERT_OK(test::WriteStringToFile(c.metadata_path, "kud"));

    // Incomplete: metadata without data and without live blocks.
    std::vector<BlockRecordPB> gone = {Create(70, 0), MakeDelete(70)};
    write(d1, 7, -1, &gone);
    // Incomplete: a lone empty data file.
    write(d1, 8, 0, nullptr);
    // Low-live at exactly the ratio (2 of 4), with a partial trailing record.
    std::vector<BlockRecordPB> low2 = {Create(50, 0), Create(51, 1), Create(52, 2),
                                       Create(53, 3), MakeDelete(50), MakeDelete(52),
                                       MakeDelete(51)};
    write(d1, 9, data_size_, &low2);
    ASSERT_OK(test::TruncateFileTo(c.metadata_path, c.end_offset - 6));  // the last DELETE torn
    // Full with most blocks live: left alone.
    std::vector<BlockRecordPB> h2 = {Create(60, 0), Create(61, 1), Create(62, 2), Create(63, 3),
                                     MakeDelete(60)};
    write(d1, 10, data_size_, &h2);
    // A leftover of an interrupted rewrite.
    ASSERT_OK(test::WriteStringToFile(
        test::ContainerIdFor(9).insert(0, d1 + "/data/") + ".metadata.kudutmp.q1W2e3", "half"));
  }

  const std::set<uint64_t> kLive = {1, 2, 10, 11, 20, 43, 51, 53, 61, 62, 63};

  std::set<uint64_t> Ids(const OpenResult& r) {
    std::set<uint64_t> ids;
    for (const auto& kv : test::LiveSetOf(r)) ids.insert(kv.first);
    return ids;
  }
  // Opens without repair: must succeed with exactly the fixture's live set.
  void ExpectReadable(const std::vector<std::string>& roots, const test::LiveSet& live,
                      OpenResult* out = nullptr) {
    OpenResult r;
    Status s = fs::OpenBlockManager(Options(roots, false), &r);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(live, test::LiveSetOf(r));
    if (out != nullptr) *out = std::move(r);
  }
  void ExpectNothingToRepair(const OpenResult& r) {
    json j = fs::FsReportJson(r);
    for (const char* k : {"partial_records", "incomplete_containers", "dead_containers",
                          "low_live_containers", "leftover_tmp_files", "corrupt_containers",
                          "malformed_records"}) {
      EXPECT_EQ(0u, j[k].get<uint64_t>()) << k;
    }
  }
};

TEST_P(RepairTest, RoundTrip) {
  TempDir tmp;
  const std::vector<std::string> roots = {tmp.Join("d0"), tmp.Join("d1")};
  BuildFixture(roots[0], roots[1]);
  ASSERT_FALSE(HasFatalFailure());

  // Before: every problem is seen, and a plain open changes nothing.
  OpenResult before;
  const auto files = test::SnapshotFiles(tmp.path());
  ASSERT_OK(fs::OpenBlockManager(Options(roots, false), &before));
  EXPECT_EQ(files, test::SnapshotFiles(tmp.path()));
  EXPECT_EQ(kLive, Ids(before));
  const test::LiveSet live = test::LiveSetOf(before);
  json jb = fs::FsReportJson(before);
  EXPECT_EQ(3u, jb["partial_records"].get<uint64_t>());
  EXPECT_EQ(3u, jb["incomplete_containers"].get<uint64_t>());
  EXPECT_EQ(1u, jb["dead_containers"].get<uint64_t>());
  EXPECT_EQ(2u, jb["low_live_containers"].get<uint64_t>());
  EXPECT_EQ(4u, jb["full_containers"].get<uint64_t>());
  EXPECT_EQ(1u, jb["leftover_tmp_files"].get<uint64_t>());
  EXPECT_EQ(0u, jb["malformed_records"].get<uint64_t>());
  const uint64_t low_size = test::FileSizeOrDie(
      roots[0] + "/data/" + test::ContainerIdFor(5) + ".metadata");

  OpenResult repaired;
  ASSERT_OK(fs::OpenBlockManager(Options(roots, true), &repaired));
  ASSERT_TRUE(repaired.repaired);
  ASSERT_TRUE(repaired.repairs.status.ok()) << repaired.repairs.status.ToString();
  EXPECT_EQ(live, test::LiveSetOf(repaired));
  json jr = fs::FsReportJson(repaired);
  const fs::RepairSummary& rep = repaired.repairs;
  EXPECT_TRUE(rep.errors.empty());
  EXPECT_EQ(1u, rep.leftover_tmp_files_deleted);
  EXPECT_EQ(3u, rep.incomplete_containers_deleted);
  EXPECT_EQ(1u, rep.dead_containers_deleted);
  EXPECT_EQ(3u, rep.partial_records_truncated);
  EXPECT_EQ(2u, rep.low_live_metadata_rewritten);
  EXPECT_EQ(0u, rep.containers_skipped);
  EXPECT_NE(std::string::npos, fs::FsReportText(repaired).find("(3 repaired)"));

  // After: nothing left to repair, the same live set, the files gone.
  OpenResult after;
  ExpectReadable(roots, live, &after);
  ExpectNothingToRepair(after);
  json ja = fs::FsReportJson(after);
  EXPECT_EQ(6u, ja["containers"].get<uint64_t>());
  EXPECT_EQ(1u, ja["full_containers"].get<uint64_t>());
  // The deleted dead container took its data file's encryption header with
  // it, which counts as live (§4.3).
  EXPECT_EQ(jb["live_bytes"].get<uint64_t>() - (k_ ? 64 : 0), ja["live_bytes"].get<uint64_t>());
  EXPECT_EQ(jb["max_block_id"].get<uint64_t>(), 63u);
  for (int n : {4, 6}) {
    EXPECT_FALSE(env::FileExists(roots[0] + "/data/" + test::ContainerIdFor(n) + ".data"));
    EXPECT_FALSE(env::FileExists(roots[0] + "/data/" + test::ContainerIdFor(n) + ".metadata"));
  }
  for (int n : {7, 8}) {
    EXPECT_FALSE(env::FileExists(roots[1] + "/data/" + test::ContainerIdFor(n) + ".data"));
    EXPECT_FALSE(env::FileExists(roots[1] + "/data/" + test::ContainerIdFor(n) + ".metadata"));
  }
  // The rewritten metadata holds the one live CREATE record, in the same
  // encryption as before.
  const std::string low_md = roots[0] + "/data/" + test::ContainerIdFor(5) + ".metadata";
  EXPECT_LT(test::FileSizeOrDie(low_md), low_size);
  std::string contents;
  ASSERT_OK(test::ReadFileToString(low_md, &contents));
  EXPECT_EQ(k_ != nullptr, HasEncryptionMagic(Slice(contents)));
  for (const fs::ContainerInfo& c : after.containers) {
    if (c.id == test::ContainerIdFor(5)) {
      EXPECT_EQ(1u, c.total_blocks);
      EXPECT_EQ(1u, c.live_blocks);
      EXPECT_EQ(1u, c.outcome.records);
    }
  }

  // A second repair has nothing to do.
  OpenResult again;
  ASSERT_OK(fs::OpenBlockManager(Options(roots, true), &again));
  const fs::RepairSummary& s = again.repairs;
  EXPECT_EQ(0u, s.leftover_tmp_files_deleted + s.incomplete_containers_deleted +
                    s.dead_containers_deleted + s.partial_records_truncated +
                    s.low_live_metadata_rewritten);
  EXPECT_EQ(live, test::LiveSetOf(again));
}

// Any fatal problem but a malformed record stops every repair (§7): a
// server that will not start gains nothing from a partial one.
TEST_P(RepairTest, FatalProblemStopsEveryRepair) {
  TempDir tmp;
  const std::string root = tmp.Join("d");
  HandContainer bad, partial;
  std::vector<BlockRecordPB> rs = {Create(1, 0), Create(2, 1), Create(3, 2)};
  ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(1), data_size_, &rs, k_, &bad));
  ASSERT_OK(test::FlipByte(bad.metadata_path, bad.record_offsets[1] + 9));
  // A torn tail after the corruption too: still not truncated.
  ASSERT_OK(test::AppendZeros(bad.metadata_path, 10));
  std::vector<BlockRecordPB> rp = {Create(5, 0), Create(6, 1)};
  ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(2), data_size_, &rp, k_, &partial));
  ASSERT_OK(test::TruncateFileTo(partial.metadata_path, partial.end_offset - 3));
  std::string bad_bytes;
  ASSERT_OK(test::ReadFileToString(bad.metadata_path, &bad_bytes));

  OpenResult r;
  Status s = fs::OpenBlockManager(Options({root}, true), &r);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(OpenResult::Failure::kInconsistent, r.failure);
  EXPECT_TRUE(r.repairs.status.ok());
  EXPECT_EQ(1u, r.repairs.containers_skipped);
  EXPECT_EQ(0u, r.repairs.partial_records_truncated);
  std::string after;
  ASSERT_OK(test::ReadFileToString(bad.metadata_path, &after));
  EXPECT_EQ(bad_bytes, after);
  EXPECT_EQ(partial.end_offset - 3, test::FileSizeOrDie(partial.metadata_path));
}

// The crash test: for every kind of mutating call a repair makes, and for
// every k up to how many of them it makes, fail the k-th one.
TEST_P(RepairTest, CrashAtEveryStepLosesNoLiveBlock) {
  TempDir tmp;
  const std::string pristine = tmp.Join("pristine");
  const std::vector<std::string> pristine_roots = {pristine + "/d0", pristine + "/d1"};
  BuildFixture(pristine_roots[0], pristine_roots[1]);
  ASSERT_FALSE(HasFatalFailure());
  OpenResult ref;
  ASSERT_OK(fs::OpenBlockManager(Options(pristine_roots, false), &ref));
  const test::LiveSet live = test::LiveSetOf(ref);
  ASSERT_EQ(kLive.size(), live.size());

  int run = 0;
  int crashes = 0;
  for (IoOp op : {IoOp::kWrite, IoOp::kSync, IoOp::kRename, IoOp::kTruncate, IoOp::kDelete}) {
    SCOPED_TRACE(IoOpName(op));
    // How many calls of this kind a whole repair makes.
    uint64_t total = 0;
    {
      const std::string work = tmp.Join("count" + std::to_string(run++));
      ASSERT_OK(test::CopyTree(pristine, work));
      IoFaultInjector::Arm(op, UINT64_MAX, IoFault::kEIO);
      OpenResult r;
      fs::OpenBlockManager(Options({work + "/d0", work + "/d1"}, true), &r);
      total = IoFaultInjector::Count(op);
      IoFaultInjector::Disarm();
      ASSERT_TRUE(r.repairs.status.ok()) << r.repairs.status.ToString();
      ASSERT_OK(env::DeleteRecursively(work));
    }
    EXPECT_GT(total, 0u);
    std::cerr << "repair makes " << total << " " << IoOpName(op) << " calls; crashing at each\n";
    for (uint64_t k = 1; k <= total; k++) {
      SCOPED_TRACE("call " + std::to_string(k) + " of " + std::to_string(total));
      const std::string work = tmp.Join("crash" + std::to_string(run++));
      const std::vector<std::string> roots = {work + "/d0", work + "/d1"};
      ASSERT_OK(test::CopyTree(pristine, work));

      IoFaultInjector::Arm(op, k, IoFault::kEIO);
      OpenResult crashed;
      fs::OpenBlockManager(Options(roots, true), &crashed);
      const bool fired = IoFaultInjector::Fired();
      IoFaultInjector::Disarm();
      ASSERT_TRUE(fired);
      EXPECT_FALSE(crashed.repairs.status.ok());
      crashes++;

      // What the crash left opens cleanly with every live block.
      ExpectReadable(roots, live);
      // A later repair finishes the job.
      OpenResult fixed;
      ASSERT_OK(fs::OpenBlockManager(Options(roots, true), &fixed));
      ASSERT_TRUE(fixed.repairs.status.ok()) << fixed.repairs.status.ToString();
      OpenResult final_state;
      ExpectReadable(roots, live, &final_state);
      ExpectNothingToRepair(final_state);
      ASSERT_OK(env::DeleteRecursively(work));
      if (HasFatalFailure()) return;
    }
  }
  // write + sync + rename + truncate + delete steps all covered.
  EXPECT_GE(crashes, 15);
}

INSTANTIATE_TEST_SUITE_P(PlainAndEncrypted, RepairTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? "encrypted" : "plain";
                         });

}  // namespace
}  // namespace kudu
