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

// The repair's limits and steps one by one (§7): which dirs a fatal problem
// holds back, what a failed step leaves and says, extra-space truncation,
// re-punching that spares live bytes, a partial record that is never
// truncated when a valid record follows it, and entries that only look like
// temporary files. The compaction step (§7.1) is repair_compaction_test's.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/fs_report.h"
#include "kudu/fs/repair.h"
#include "kudu/tools/block_workload.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/io_fault_injector.h"
#include "util/fs_fixture_util.h"
#include "util/lbm_corruptor.h"
#include "util/repair_fixture.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using fs::ContainerInfo;
using fs::OpenResult;
using test::HandContainer;
using test::MakeCreate;
using test::MakeDelete;

class RepairStepsTest : public test::RepairFixture {};

// §7: a dir whose records hold a malformed record gets no repair; the
// other dirs are repaired.
TEST_P(RepairStepsTest, MalformedRecordHoldsBackOnlyItsDir) {
  const std::vector<std::string> roots = {tmp_.Join("d0"), tmp_.Join("d1")};
  Write(roots[0], 1, {Create(1, 0), MakeDelete(999)});
  const HandContainer held = WritePartial(roots[0], 2, 10);
  const HandContainer fixed = WritePartial(roots[1], 3, 20);
  OpenResult r;
  fs::OpenBlockManager(Options(roots, true), &r);
  ASSERT_TRUE(r.repaired);
  EXPECT_TRUE(r.repairs.errors.empty());
  EXPECT_EQ(fixed.record_offsets[1], test::FileSizeOrDie(fixed.metadata_path));
  EXPECT_EQ(held.end_offset - 3, test::FileSizeOrDie(held.metadata_path));
  EXPECT_EQ(1u, r.repairs.partial_records_truncated);
  // The report's "containers with fatal problems left alone": the
  // malformed one (its dir's other containers are held back, not counted).
  EXPECT_EQ(1u, r.repairs.containers_skipped);
}

// The report counts extra space as repaired only for the containers whose
// extra space was repaired: a full container in a dir held back by a
// malformed record adds its bytes to the total, none to the repaired.
TEST_P(RepairStepsTest, ExtraSpaceOfAHeldBackDirIsNotCountedAsRepaired) {
  const std::vector<std::string> roots = {tmp_.Join("d0"), tmp_.Join("d1")};
  Write(roots[0], 1, {Create(1, 0), MakeDelete(999)});
  const HandContainer held =
      Write(roots[0], 2, {Create(10, 0), Create(11, 1, 4096), MakeDelete(10), Create(12, 2)});
  WriteEveryBlock(held.data_path);
  const HandContainer fixed =
      Write(roots[1], 3, {Create(20, 0), Create(21, 1, 4096), MakeDelete(20), Create(22, 2)});
  WriteEveryBlock(fixed.data_path);
  fs::BlockManagerOpenOptions o = Options(roots, true, /*max_blocks=*/0);
  o.classification.max_metadata_size = 50;  // every metadata file is past it

  OpenResult r;
  fs::OpenBlockManager(o, &r);
  ASSERT_TRUE(r.repaired);
  EXPECT_TRUE(r.repairs.errors.empty()) << r.repairs.status.ToString();
  const ContainerInfo* h = Find(r, held.path);
  const ContainerInfo* f = Find(r, fixed.path);
  ASSERT_NE(nullptr, h);
  ASSERT_NE(nullptr, f);
  ASSERT_TRUE(h->extra_space);
  ASSERT_GT(h->excess_bytes, 0u);
  EXPECT_FALSE(h->repaired_extra_space);
  ASSERT_TRUE(f->repaired_extra_space);
  ASSERT_GT(f->excess_bytes, 0u);

  const nlohmann::json j = fs::FsReportJson(r);
  const uint64_t total = j["full_container_extra_space_bytes"].get<uint64_t>();
  EXPECT_GE(total, h->excess_bytes + f->excess_bytes);
  uint64_t repaired = 0;
  for (const nlohmann::json& e : j["entries"]["full_container_extra_space"]) {
    if (e["repaired"].get<bool>()) repaired += e["excess_bytes"].get<uint64_t>();
  }
  EXPECT_EQ(f->excess_bytes, repaired);
  EXPECT_EQ(f->excess_bytes,
            j["repaired"]["full_container_extra_space_bytes"].get<uint64_t>());
  const std::string text = fs::FsReportText(r);
  EXPECT_TRUE(test::Contains(text, "Total full LBM container extra space in bytes: " +
                                       std::to_string(total) + " (" +
                                       std::to_string(f->excess_bytes) + " repaired)\n"))
      << text;
}

// A failed step is one repair error naming the file and the step; nothing
// after it runs, in any dir; the counts say what was done before it; and the
// state left opens with the same live set and a later repair finishes.
TEST_P(RepairStepsTest, FailedStepStopsEverythingAfterIt) {
  const std::vector<std::string> roots = {tmp_.Join("d0"), tmp_.Join("d1")};
  const HandContainer dead = Write(roots[0], 1, {Create(1, 0), Create(2, 1), Create(3, 2),
                                                 Create(4, 3), MakeDelete(1), MakeDelete(2),
                                                 MakeDelete(3), MakeDelete(4)});
  const HandContainer p0 = WritePartial(roots[0], 2, 10);
  const HandContainer p1 = WritePartial(roots[1], 3, 20);
  ASSERT_OK(test::WriteStringToFile(p0.metadata_path + ".kudutmp.a1B2c3", "half"));
  OpenResult before;
  ASSERT_OK(fs::OpenBlockManager(Options(roots, false), &before));

  OpenResult r;
  ASSERT_NO_FATAL_FAILURE(RepairWithADeleteFailing(roots, dead.metadata_path, &r));
  const fs::RepairSummary& s = r.repairs;
  ASSERT_EQ(1u, s.errors.size());
  EXPECT_EQ(dead.metadata_path, s.errors[0].path);
  EXPECT_STREQ(fs::kDeadContainersStep, s.errors[0].step);
  EXPECT_TRUE(test::Contains(s.status.ToString(), dead.metadata_path)) << s.status.ToString();
  EXPECT_EQ(1u, s.leftover_tmp_files_deleted);
  EXPECT_EQ(0u, s.dead_containers_deleted);
  EXPECT_EQ(0u, s.partial_records_truncated);
  EXPECT_FALSE(env::FileExists(dead.data_path));
  EXPECT_EQ(p0.end_offset - 3, test::FileSizeOrDie(p0.metadata_path));
  EXPECT_EQ(p1.end_offset - 3, test::FileSizeOrDie(p1.metadata_path));
  EXPECT_NE("OK", fs::FsReportStatus(r));

  OpenResult after;
  ASSERT_OK(fs::OpenBlockManager(Options(roots, false), &after));
  EXPECT_EQ(test::LiveSetOf(before), test::LiveSetOf(after));
  OpenResult again;
  ASSERT_OK(fs::OpenBlockManager(Options(roots, true), &again));
  EXPECT_TRUE(again.repairs.errors.empty()) << again.repairs.status.ToString();
  EXPECT_FALSE(env::FileExists(dead.metadata_path));
  EXPECT_EQ(p1.record_offsets[1], test::FileSizeOrDie(p1.metadata_path));
}

// A failure part way through a step is named with that step, and the
// counts hold what it did before: a temporary file deleted before the one
// that fails counts (and its dir is synced); cutting a dead container's
// torn tail is part of deleting it (step 1), not step 3.
TEST_P(RepairStepsTest, AFailureIsNamedByItsStepAndCountsWhatWasDone) {
  {
    const std::string root = tmp_.Join("t");
    const HandContainer c = Write(root, 1, {Create(1, 0)});
    const std::string first = c.metadata_path + ".kudutmp.aaaaaa";
    const std::string second = c.metadata_path + ".kudutmp.bbbbbb";
    ASSERT_OK(test::WriteStringToFile(first, "x"));
    ASSERT_OK(test::WriteStringToFile(second, "x"));
    OpenResult r;
    const uint64_t syncs = RepairWithAFault(IoOp::kDelete, 2, root, &r);  // temporary files first
    ASSERT_EQ(1u, r.repairs.errors.size());
    EXPECT_STREQ(fs::kTemporaryFilesStep, r.repairs.errors[0].step);
    EXPECT_EQ(1u, r.repairs.leftover_tmp_files_deleted);
    EXPECT_NE(env::FileExists(first), env::FileExists(second));
    EXPECT_GE(syncs, 1u);
  }
  {
    // Step 1 deletes a dead container, step 3 fails: the dir is synced
    // all the same (the delete's own sync, then the one after the steps),
    // and the delete counts.
    const std::string root = tmp_.Join("s");
    Write(root, 1, {Create(1, 0), Create(2, 1), Create(3, 2), Create(4, 3), MakeDelete(1),
                    MakeDelete(2), MakeDelete(3), MakeDelete(4)});
    WritePartial(root, 2, 10);
    OpenResult r;
    const uint64_t syncs = RepairWithAFault(IoOp::kTruncate, 1, root, &r);
    ASSERT_EQ(1u, r.repairs.errors.size());
    EXPECT_STREQ(fs::kPartialRecordsStep, r.repairs.errors[0].step);
    EXPECT_EQ(1u, r.repairs.dead_containers_deleted);
    EXPECT_EQ(2u, syncs);
  }
  {
    const std::string root = tmp_.Join("d");
    HandContainer dead = Write(root, 1, {Create(1, 0), Create(2, 1), Create(3, 2), Create(4, 3),
                                         MakeDelete(1), MakeDelete(2), MakeDelete(3),
                                         MakeDelete(4), Create(5, 4)});
    ASSERT_OK(test::TruncateFileTo(dead.metadata_path, dead.end_offset - 3));
    IoFaultInjector::Arm(IoOp::kTruncate, 1, IoFault::kEIO, dead.metadata_path);
    OpenResult r;
    fs::OpenBlockManager(Options({root}, true), &r);
    const bool fired = IoFaultInjector::Fired();
    IoFaultInjector::Disarm();
    ASSERT_TRUE(fired);
    ASSERT_EQ(1u, r.repairs.errors.size());
    EXPECT_EQ(dead.metadata_path, r.repairs.errors[0].path);
    EXPECT_STREQ(fs::kDeadContainersStep, r.repairs.errors[0].step);
  }
}

// A dead container whose metadata ends in a partial trailing record: the
// repair cuts the record off before it deletes the data file, so a repair
// stopped between the two unlinks (here: the metadata's fails) leaves a
// metadata file that reads to a clean end, an incomplete container (§4.1),
// not one whose naive replay ends in a torn record (fatal).
TEST_P(RepairStepsTest, DeadContainerWithATornTailNeverLeavesAFatalHalf) {
  const std::vector<std::string> roots = {tmp_.Join("d0")};
  HandContainer dead = Write(roots[0], 1, {Create(1, 0), Create(2, 1), Create(3, 2),
                                           Create(4, 3), MakeDelete(1), MakeDelete(2),
                                           MakeDelete(3), MakeDelete(4), Create(5, 4)});
  ASSERT_OK(test::TruncateFileTo(dead.metadata_path, dead.end_offset - 3));
  const HandContainer live = Write(roots[0], 2, {Create(10, 0), Create(11, 1)});
  OpenResult before;
  ASSERT_OK(fs::OpenBlockManager(Options(roots, false), &before));
  const ContainerInfo* c = Find(before, dead.path);
  ASSERT_NE(nullptr, c);
  ASSERT_TRUE(c->dead);
  ASSERT_TRUE(c->partial_record());

  OpenResult r;
  ASSERT_NO_FATAL_FAILURE(RepairWithADeleteFailing(roots, dead.metadata_path, &r));
  ASSERT_EQ(1u, r.repairs.errors.size());
  EXPECT_FALSE(env::FileExists(dead.data_path));
  EXPECT_EQ(dead.record_offsets[8], test::FileSizeOrDie(dead.metadata_path));

  OpenResult after;
  ASSERT_OK(fs::OpenBlockManager(Options(roots, false), &after));
  c = Find(after, dead.path);
  ASSERT_NE(nullptr, c);
  EXPECT_TRUE(c->incomplete);
  EXPECT_EQ(test::LiveSetOf(before), test::LiveSetOf(after));
  OpenResult again;
  ASSERT_OK(fs::OpenBlockManager(Options(roots, true), &again));
  EXPECT_TRUE(again.repairs.errors.empty()) << again.repairs.status.ToString();
  EXPECT_FALSE(env::FileExists(dead.metadata_path));
  EXPECT_TRUE(env::FileExists(live.metadata_path));
}

// Preallocated space and an unpunched dead block in server-written full
// containers: the data file is cut at the next block offset and the dead
// block's space is punched again; the live set does not change.
TEST_P(RepairStepsTest, ExtraSpaceIsTruncatedAndDeadBlocksRepunched) {
  const std::vector<std::string> roots = {tmp_.Join("d0"), tmp_.Join("d1")};
  Generate(roots);
  ASSERT_FALSE(HasFatalFailure());
  test::LbmCorruptor corruptor(CorruptorOptions(roots));
  ASSERT_OK(corruptor.Init());
  test::Injected pre, unpunched;
  ASSERT_OK(corruptor.PreallocateFullContainer(&pre));
  ASSERT_OK(corruptor.AddUnpunchedBlockToFullContainer(&unpunched));
  const uint64_t unpunched_allocated = Allocated(unpunched.file);

  OpenResult r;
  ASSERT_OK(fs::OpenBlockManager(Options(roots, true, 30), &r));
  EXPECT_TRUE(r.repairs.errors.empty()) << r.repairs.status.ToString();
  EXPECT_EQ(corruptor.ExpectedLiveSet(), test::LiveSetOf(r));
  EXPECT_GE(r.repairs.extra_space_repaired, 1u);
  EXPECT_GE(r.repairs.punched_blocks, 1u);
  for (const std::string& path : {pre.container, unpunched.container}) {
    const ContainerInfo* c = Find(r, path);
    ASSERT_NE(nullptr, c);
    EXPECT_TRUE(r.repairs.containers[c - r.containers.data()].extra_space_repaired) << path;
  }
  const ContainerInfo* c = Find(r, pre.container);
  EXPECT_EQ(c->next_write_offset, test::FileSizeOrDie(pre.file));
  EXPECT_LT(Allocated(unpunched.file), unpunched_allocated);

  OpenResult after;
  ASSERT_OK(fs::OpenBlockManager(Options(roots, false, 30), &after));
  EXPECT_EQ(corruptor.ExpectedLiveSet(), test::LiveSetOf(after));
  const ContainerInfo* u = Find(after, unpunched.container);
  ASSERT_NE(nullptr, u);
  EXPECT_LE(Allocated(unpunched.file), u->live_bytes_aligned * 11 / 10);
}

// Space allocated past the end of a full data file that ends at its next
// block offset (a preallocation that kept the size): the cut to the next
// block offset is not needed to shorten the file, but it frees that space,
// as Kudu's unconditional truncation does. Not cutting it left the entry
// "repaired" at every run and the space allocated.
TEST_P(RepairStepsTest, SpaceAllocatedPastTheEndOfAFullDataFileIsFreed) {
  const std::string root = tmp_.Join("d");
  Generate({root}, [](tools::BlockWorkloadOptions* wo) {
    wo->writer.max_container_blocks = 4;  // full, and cut to the next block offset
    wo->containers = 1;
    wo->blocks_per_container = 4;
    wo->deleted_block_percentage = 0;
  });
  ASSERT_FALSE(HasFatalFailure());
  OpenResult before;
  ASSERT_OK(fs::OpenBlockManager(Options({root}, false), &before));
  ASSERT_EQ(1u, before.containers.size());
  const ContainerInfo& c = before.containers[0];
  ASSERT_TRUE(c.data_full);
  ASSERT_EQ(c.next_write_offset, c.data_size);
  const int fd = ::open(c.data_path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  const bool preallocated =
      ::fallocate(fd, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(c.data_size), 1 << 20) == 0;
  ::close(fd);
  if (!preallocated) GTEST_SKIP() << "no fallocate on this filesystem";
  ASSERT_GT(Allocated(c.data_path), c.data_size + (512u << 10));

  OpenResult r;
  ASSERT_OK(fs::OpenBlockManager(Options({root}, true), &r));
  EXPECT_TRUE(r.repairs.errors.empty()) << r.repairs.status.ToString();
  EXPECT_EQ(1u, r.repairs.extra_space_repaired);
  EXPECT_EQ(c.data_size, test::FileSizeOrDie(c.data_path));
  EXPECT_LE(Allocated(c.data_path), c.data_size);
  OpenResult after;
  ASSERT_OK(fs::OpenBlockManager(Options({root}, false), &after));
  EXPECT_EQ(test::LiveSetOf(before), test::LiveSetOf(after));
  EXPECT_FALSE(after.containers[0].extra_space);

  // A file that ends before its next block offset (at its last block's
  // end) is cut at its own end: not grown, and what lies past it freed.
  uint64_t end = 0;
  for (const auto& [id, b] : test::LiveSetOf(before)) {
    end = std::max<uint64_t>(end, std::get<1>(b) + std::get<2>(b));
  }
  ASSERT_LT(end, c.next_write_offset);
  ASSERT_OK(test::TruncateFileTo(c.data_path, end));
  const int fd2 = ::open(c.data_path.c_str(), O_RDWR);
  ASSERT_GE(fd2, 0);
  ASSERT_EQ(0, ::fallocate(fd2, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(end), 1 << 20));
  ::close(fd2);
  OpenResult short_repair;
  ASSERT_OK(fs::OpenBlockManager(Options({root}, true), &short_repair));
  EXPECT_TRUE(short_repair.repairs.errors.empty()) << short_repair.repairs.status.ToString();
  EXPECT_EQ(end, test::FileSizeOrDie(c.data_path));
  EXPECT_LE(Allocated(c.data_path), c.next_write_offset);
  OpenResult short_after;
  ASSERT_OK(fs::OpenBlockManager(Options({root}, false), &short_after));
  EXPECT_EQ(test::LiveSetOf(before), test::LiveSetOf(short_after));
  EXPECT_FALSE(short_after.containers[0].extra_space);
}

// A container full by its metadata size alone keeps its data file's size,
// and its extra-space entry is repaired all the same (the truncation is
// not needed, §7 step 2): the dead block's space is punched.
TEST_P(RepairStepsTest, ExtraSpaceOfAContainerFullByMetadataIsRepairedWithoutTruncation) {
  const std::string root = tmp_.Join("d");
  const HandContainer c =
      Write(root, 1, {Create(1, 0), Create(2, 1, 4096), MakeDelete(1), Create(3, 2)});
  WriteEveryBlock(c.data_path);
  const uint64_t allocated = Allocated(c.data_path);
  fs::BlockManagerOpenOptions o = Options({root}, true, /*max_blocks=*/0);
  o.classification.max_metadata_size = 50;  // every metadata file is past it

  OpenResult r;
  ASSERT_OK(fs::OpenBlockManager(o, &r));
  EXPECT_TRUE(r.repairs.errors.empty()) << r.repairs.status.ToString();
  const ContainerInfo* info = Find(r, c.path);
  ASSERT_NE(nullptr, info);
  ASSERT_FALSE(info->data_full);
  ASSERT_TRUE(info->metadata_full);
  EXPECT_TRUE(r.repairs.containers[info - r.containers.data()].extra_space_repaired);
  EXPECT_EQ(1u, r.repairs.extra_space_repaired);
  EXPECT_EQ(1u, r.repairs.punched_blocks);
  EXPECT_EQ(data_size_, test::FileSizeOrDie(c.data_path)) << "a data file not full was cut";
  EXPECT_LT(Allocated(c.data_path), allocated);
}

// A dead block over the start of the data file (the record semantics
// accept a block at offset 0, an encrypted file's header included): its
// space is punched again, but never an encrypted file's header, which
// holds the file key of every block.
TEST_P(RepairStepsTest, RepunchingNeverTouchesAnEncryptedHeader) {
  const std::string root = tmp_.Join("d");
  const HandContainer c = Write(root, 1, {MakeCreate(5, 0, 10), Create(1, 0), Create(2, 1),
                                          MakeDelete(5)});
  WriteEveryBlock(c.data_path);
  const std::string head_before = test::Slurp(c.data_path).substr(0, 64);
  OpenResult before;
  ASSERT_OK(fs::OpenBlockManager(Options({root}, false, 3), &before));

  OpenResult r;
  ASSERT_OK(fs::OpenBlockManager(Options({root}, true, 3), &r));
  EXPECT_TRUE(r.repairs.errors.empty()) << r.repairs.status.ToString();
  EXPECT_EQ(1u, r.repairs.punched_blocks);
  if (k_ != nullptr) {
    EXPECT_EQ(head_before, test::Slurp(c.data_path).substr(0, 64));
  }
  OpenResult after;
  ASSERT_OK(fs::OpenBlockManager(Options({root}, false, 3), &after));
  EXPECT_EQ(test::LiveSetOf(before), test::LiveSetOf(after));
  EXPECT_EQ(2u, test::LiveSetOf(after).size());
}

// A zero-length block far past the end of the data file (accepted, §4.2)
// puts the next block offset there: cutting the file at it would grow it,
// to a size the filesystem refuses. The cut is not needed, the entry is
// repaired, and the repair goes on to the other steps.
TEST_P(RepairStepsTest, ANextBlockOffsetPastTheEndGrowsNoFile) {
  const std::string root = tmp_.Join("d");
  const HandContainer c =
      Write(root, 1, {Create(1, 0), MakeCreate(2, int64_t{1} << 62, 0), Create(3, 1, 10),
                      MakeDelete(3)});
  WriteEveryBlock(c.data_path);
  // An incomplete container beside it, for a later step to delete.
  const std::string stem = env::JoinPath(env::JoinPath(root, "data"), test::ContainerIdFor(9));
  ASSERT_OK(test::WriteStringToFile(stem + ".data", ""));
  ASSERT_OK(test::WriteStringToFile(stem + ".metadata", ""));

  OpenResult r;
  ASSERT_OK(fs::OpenBlockManager(Options({root}, true, 3), &r));
  EXPECT_TRUE(r.repairs.errors.empty()) << r.repairs.status.ToString();
  const ContainerInfo* info = Find(r, c.path);
  ASSERT_NE(nullptr, info);
  ASSERT_TRUE(info->data_full);
  EXPECT_TRUE(r.repairs.containers[info - r.containers.data()].extra_space_repaired);
  EXPECT_EQ(data_size_, test::FileSizeOrDie(c.data_path));
  EXPECT_FALSE(env::FileExists(stem + ".metadata"));
  EXPECT_FALSE(env::FileExists(stem + ".data"));
}

// A live misaligned block inside a dead block's aligned tail keeps its
// bytes (Kudu punches the whole aligned range and zeroes it).
TEST_P(RepairStepsTest, RepunchingSparesLiveBytesInADeadBlocksTail) {
  const std::string root = tmp_.Join("d");
  const HandContainer c =
      Write(root, 1, {MakeCreate(1, base_, 100), MakeCreate(2, base_ + 200, 300),
                      MakeDelete(1)});
  const std::string pattern = test::RandomBytes(2 * 4096, 9);
  {
    WriteEncryption enc;
    enc.server_key = k_;
    std::unique_ptr<WritableFile> f;
    ASSERT_OK(WritableFile::Open(c.data_path, CreateMode::kOpenExisting, enc, &f));
    ASSERT_OK(f->Write(base_, Slice(pattern)));
    ASSERT_OK(f->Close());
  }
  OpenResult r;
  ASSERT_OK(fs::OpenBlockManager(Options({root}, true, 2), &r));
  EXPECT_TRUE(r.repairs.errors.empty()) << r.repairs.status.ToString();
  EXPECT_EQ(1u, r.repairs.punched_blocks);
  EXPECT_EQ(base_ + 4096, test::FileSizeOrDie(c.data_path));

  std::unique_ptr<RandomAccessFile> f;
  ASSERT_OK(RandomAccessFile::Open(c.data_path, k_, &f));
  // Three reads: a hole reads as zeros only in a read of its own (the
  // all-zero rule of an encrypted file).
  std::string got(4096, '\0');
  for (auto r : {std::make_pair(0, 200), std::make_pair(200, 500), std::make_pair(500, 4096)}) {
    ASSERT_OK(f->Read(base_ + r.first, reinterpret_cast<uint8_t*>(&got[r.first]),
                      r.second - r.first));
  }
  EXPECT_EQ(pattern.substr(200, 300), got.substr(200, 300)) << "the live block was zeroed";
  EXPECT_EQ(std::string(200, '\0'), got.substr(0, 200)) << "the dead block was not punched";
  EXPECT_EQ(std::string(4096 - 500, '\0'), got.substr(500));
}

// A record whose length runs past the end with a valid record after it is
// damage, never a torn write: whatever the open calls it, the repair never
// cuts the valid records after it.
TEST_P(RepairStepsTest, PartialRecordWithAValidRecordAfterItIsNeverTruncated) {
  const std::vector<std::string> roots = {tmp_.Join("d0"), tmp_.Join("d1")};
  Generate(roots);
  ASSERT_FALSE(HasFatalFailure());
  test::LbmCorruptor corruptor(CorruptorOptions(roots));
  ASSERT_OK(corruptor.Init());
  test::Injected inj;
  ASSERT_OK(corruptor.SetHostileLength(&inj));
  std::string bytes;
  ASSERT_OK(test::ReadFileToString(inj.file, &bytes));

  OpenResult r;
  Status s = fs::OpenBlockManager(Options(roots, true, 30), &r);
  std::string after;
  ASSERT_OK(test::ReadFileToString(inj.file, &after));
  EXPECT_EQ(bytes.size(), after.size());
  EXPECT_TRUE(bytes == after) << "the metadata file was changed";
  if (s.ok()) {
    // Read as a partial record: the truncation is refused, and says why.
    ASSERT_EQ(1u, r.repairs.errors.size());
    EXPECT_STREQ(fs::kPartialRecordsStep, r.repairs.errors[0].step);
    EXPECT_EQ(inj.file, r.repairs.errors[0].path);
    EXPECT_TRUE(test::Contains(r.repairs.status.ToString(), "not truncating it"));
  }
}

// A file whose partial record the open saw, and that a writer completed
// since and left torn further on: the repair cuts it only where the partial
// record still is, never at the offset the open saw.
TEST_P(RepairStepsTest, APartialRecordThatMovedSinceTheOpenIsNeverTruncated) {
  const std::string root = tmp_.Join("d");
  const HandContainer c = WritePartial(root, 1, 1);
  OpenResult r;
  ASSERT_OK(fs::OpenBlockManager(Options({root}, false), &r));
  ASSERT_EQ(1u, r.containers.size());
  const uint64_t at = r.containers[0].partial_record_offset();
  const HandContainer now = Write(root, 1, {Create(1, 0), Create(2, 1), Create(3, 2)});
  ASSERT_OK(test::TruncateFileTo(now.metadata_path, now.end_offset - 3));
  std::string bytes;
  ASSERT_OK(test::ReadFileToString(c.metadata_path, &bytes));
  ASSERT_GT(bytes.size(), at);

  fs::RepairInput in;
  in.server_key = k_;
  in.containers = &r.containers;
  in.block_map = r.block_map.get();
  fs::RepairSummary sum;
  EXPECT_FALSE(fs::RepairContainers(in, &sum).ok());
  ASSERT_EQ(1u, sum.errors.size());
  EXPECT_STREQ(fs::kPartialRecordsStep, sum.errors[0].step);
  EXPECT_EQ(c.metadata_path, sum.errors[0].path);
  EXPECT_TRUE(test::Contains(sum.status.ToString(), "no longer ends in a partial record"))
      << sum.status.ToString();
  std::string after;
  ASSERT_OK(test::ReadFileToString(c.metadata_path, &after));
  EXPECT_EQ(bytes.size(), after.size());
  EXPECT_TRUE(bytes == after) << "the metadata file was changed";
}

// The peak resident memory (VmHWM) of this process, in bytes; 0 where
// /proc does not say.
uint64_t PeakResidentBytes() {
  std::string status;
  if (!test::ReadFileToString("/proc/self/status", &status).ok()) return 0;
  const size_t at = status.find("VmHWM:");
  return at == std::string::npos ? 0 : std::stoull(status.substr(at + 6)) * 1024;
}

// A zero tail (§2 step 3) far larger than the memory it may cost, as a
// hole: the repair cuts it without reading it into memory. Before it cuts,
// it reads the file again as the open's reference does, whose zero check
// skips holes and whose look-ahead reads a chunk at a time.
TEST_P(RepairStepsTest, AHugeSparseZeroTailIsCutWithoutBeingHeldInMemory) {
  const std::string root = tmp_.Join("d");
  const HandContainer c = Write(root, 1, {Create(1, 0), Create(2, 1)});
  const uint64_t size = test::FileSizeOrDie(c.metadata_path);
  ASSERT_EQ(0, ::truncate(c.metadata_path.c_str(), static_cast<off_t>(size + (1ull << 30))));
  // The peak from here on: "5" resets it (proc(5), clear_refs).
  const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  const bool peak_reset = fd >= 0 && ::write(fd, "5", 1) == 1;
  if (fd >= 0) ::close(fd);
  const uint64_t before = PeakResidentBytes();

  OpenResult r;
  ASSERT_OK(fs::OpenBlockManager(Options({root}, true), &r));
  EXPECT_TRUE(r.repairs.errors.empty()) << r.repairs.status.ToString();
  EXPECT_EQ(1u, r.repairs.partial_records_truncated);
  EXPECT_EQ(size, test::FileSizeOrDie(c.metadata_path));
  if (!peak_reset || before == 0) GTEST_SKIP() << "no resettable peak resident memory here";
  EXPECT_LT(PeakResidentBytes() - before, uint64_t{256} << 20);
}

// Only regular files are temporary files: a directory named like one does
// not stop the repair, and a kept only copy of a container's records is
// neither deleted nor counted.
TEST_P(RepairStepsTest, OnlyRegularFilesAreTemporaryAndOnlyCopiesStay) {
  const std::string root = tmp_.Join("d");
  const HandContainer p = WritePartial(root, 1, 10);
  const std::string dir_like_tmp = root + "/data/" + test::ContainerIdFor(2) +
                                   ".metadata.kudutmp.Dir123";
  ASSERT_OK(env::CreateDirs(dir_like_tmp));
  const std::string only_copy = root + "/data/" + test::ContainerIdFor(3) +
                                ".metadata.kudutmp.Only12";
  ASSERT_OK(test::WriteStringToFile(only_copy, "the only copy"));

  OpenResult r;
  ASSERT_OK(fs::OpenBlockManager(Options({root}, true), &r));
  EXPECT_TRUE(r.repairs.errors.empty()) << r.repairs.status.ToString();
  EXPECT_EQ(0u, r.repairs.leftover_tmp_files_deleted);
  EXPECT_EQ(1u, r.repairs.partial_records_truncated);
  EXPECT_EQ(p.record_offsets[1], test::FileSizeOrDie(p.metadata_path));
  bool is_dir = false;
  ASSERT_OK(env::IsDirectory(dir_like_tmp, &is_dir));
  EXPECT_TRUE(is_dir);
  EXPECT_TRUE(env::FileExists(only_copy));
}

INSTANTIATE_PLAIN_AND_ENCRYPTED(RepairStepsTest);

}  // namespace
}  // namespace kudu
