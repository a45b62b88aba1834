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
// Hostile files at the open: container files that are not regular files
// (FIFOs, devices, directories, bad symlinks) are fatal and never block the
// open; the block id space's end; duplicates over many copies of a
// container stay linear in the report.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <limits>
#include <string>
#include <vector>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/fs_report.h"
#include "kudu/fs/open_progress.h"
#include "kudu/util/env.h"
#include "util/fs_fixture_util.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

using fs::ContainerProblem;
using fs::OpenResult;

// The open, in a thread, with a watchdog: a hang is a failure, not a stuck
// suite (no thread can be cancelled, so the process ends).
void OpenWithin(const std::vector<std::string>& roots, OpenResult* r) {
  auto done = std::async(std::launch::async, [&] { fs::OpenBlockManager(OpenOptions(roots, nullptr), r); });
  if (done.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    std::fprintf(stderr, "the open did not return within 60 s: it blocked on a special file\n");
    std::_Exit(1);
  }
}

class HostileFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = tmp_.Join("d");
    std::vector<BlockRecordPB> good = {MakeCreate(1, 0, 100), MakeCreate(2, 4096, 100)};
    ASSERT_OK(WriteHandContainer(root_, ContainerIdFor(1), 3 * 4096, &good, nullptr, &good_));
    std::vector<BlockRecordPB> victim = {MakeCreate(10, 0, 100)};
    ASSERT_OK(WriteHandContainer(root_, ContainerIdFor(2), 2 * 4096, &victim, nullptr, &victim_));
  }

  // Replaces `path` by `make(path)`, opens, and checks the one fatal entry.
  void ExpectNotRegular(const std::string& path, const std::string& what) {
    SCOPED_TRACE(what);
    OpenResult r;
    OpenWithin({root_}, &r);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(OpenResult::Failure::kInconsistent, r.failure);
    bool found = false;
    for (const fs::ContainerInfo& c : r.containers) {
      if (c.path == victim_.path) {
        ASSERT_EQ(1u, c.problems.size());
        EXPECT_EQ(ContainerProblem::Kind::kNotRegularFile, c.problems[0].kind);
        EXPECT_EQ(path, c.problems[0].file);
        const std::string msg = c.problems[0].status.ToString();
        EXPECT_NE(std::string::npos, msg.find(path + ": not a regular file")) << msg;
        EXPECT_NE(std::string::npos, msg.find(what)) << msg;
        found = true;
      } else {
        // The other container is still opened and counted.
        EXPECT_TRUE(c.problems.empty()) << c.path;
        EXPECT_EQ(2u, c.live_blocks);
      }
    }
    EXPECT_TRUE(found);
  }

  TempDir tmp_;
  std::string root_;
  HandContainer good_, victim_;
};

TEST_F(HostileFilesTest, MetadataFifoIsFatalAndNeverBlocks) {
  ASSERT_OK(env::DeleteFile(victim_.metadata_path));
  ASSERT_EQ(0, ::mkfifo(victim_.metadata_path.c_str(), 0644));
  ExpectNotRegular(victim_.metadata_path, "a FIFO");
}

TEST_F(HostileFilesTest, SymlinkToAFifoIsFatal) {
  const std::string fifo = tmp_.Join("fifo");
  ASSERT_EQ(0, ::mkfifo(fifo.c_str(), 0644));
  ASSERT_OK(env::DeleteFile(victim_.metadata_path));
  ASSERT_EQ(0, ::symlink(fifo.c_str(), victim_.metadata_path.c_str()));
  ExpectNotRegular(victim_.metadata_path, "a symlink to a FIFO");
}

TEST_F(HostileFilesTest, DataFileThatIsADirectoryIsFatal) {
  ASSERT_OK(env::DeleteFile(victim_.data_path));
  ASSERT_OK(env::CreateDirs(victim_.data_path));
  ExpectNotRegular(victim_.data_path, "a directory");
}

TEST_F(HostileFilesTest, DataSymlinkToDevZeroIsFatal) {
  ASSERT_OK(env::DeleteFile(victim_.data_path));
  ASSERT_EQ(0, ::symlink("/dev/zero", victim_.data_path.c_str()));
  ExpectNotRegular(victim_.data_path, "a symlink to a character device");
}

TEST_F(HostileFilesTest, SymlinkLoopIsFatalWithAReport) {
  ASSERT_OK(env::DeleteFile(victim_.metadata_path));
  ASSERT_EQ(0, ::symlink(victim_.metadata_path.c_str(), victim_.metadata_path.c_str()));
  ExpectNotRegular(victim_.metadata_path, "a symlink loop");
}

TEST_F(HostileFilesTest, DanglingSymlinkIsFatal) {
  ASSERT_OK(env::DeleteFile(victim_.metadata_path));
  ASSERT_EQ(0, ::symlink(tmp_.Join("nowhere").c_str(), victim_.metadata_path.c_str()));
  ExpectNotRegular(victim_.metadata_path, "a dangling symlink");
}

TEST_F(HostileFilesTest, SymlinkToARegularFileIsFollowed) {
  const std::string moved = tmp_.Join("moved.metadata");
  ASSERT_EQ(0, ::rename(victim_.metadata_path.c_str(), moved.c_str()));
  ASSERT_EQ(0, ::symlink(moved.c_str(), victim_.metadata_path.c_str()));
  OpenResult r;
  OpenWithin({root_}, &r);
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_EQ(3u, LiveSetOf(r).size());
}

// §4.2: the highest id 2^64-1 leaves no next id (a wrapped 0 would be
// handed out again).
TEST(BlockIdSpaceTest, HighestPossibleIdLeavesNoNextId) {
  TempDir tmp;
  const uint64_t top = std::numeric_limits<uint64_t>::max();
  std::vector<BlockRecordPB> records = {MakeCreate(top, 0, 100), MakeCreate(5, 4096, 100)};
  HandContainer c;
  ASSERT_OK(WriteHandContainer(tmp.Join("d"), ContainerIdFor(1), 2 * 4096, &records, nullptr, &c));
  OpenResult r;
  fs::OpenBlockManager(OpenOptions({tmp.Join("d")}, nullptr), &r);
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_EQ(top, r.max_block_id);
  EXPECT_FALSE(r.has_next_block_id);
  const nlohmann::json j = fs::FsReportJson(r);
  EXPECT_TRUE(j["next_block_id"].is_null()) << j["next_block_id"];
  EXPECT_EQ(top, j["max_block_id"].get<uint64_t>());
  EXPECT_NE(std::string::npos, fs::FsReportText(r).find("none (block id space exhausted)"));

  // One below the top still has one.
  TempDir tmp2;
  records[0] = MakeCreate(top - 1, 0, 100);
  ASSERT_OK(WriteHandContainer(tmp2.Join("d"), ContainerIdFor(1), 2 * 4096, &records, nullptr, &c));
  OpenResult r2;
  fs::OpenBlockManager(OpenOptions({tmp2.Join("d")}, nullptr), &r2);
  ASSERT_TRUE(r2.ok());
  EXPECT_TRUE(r2.has_next_block_id);
  EXPECT_EQ(top, r2.next_block_id);
}

// Every copy after the first is blamed once per id, naming the first: the
// report grows with the copies, not with their pairs.
TEST(DuplicateReportTest, ManyCopiesOfOneContainerStayLinear) {
  TempDir tmp;
  constexpr int kCopies = 50, kIds = 20;
  std::vector<BlockRecordPB> records;
  for (int i = 0; i < kIds; i++) records.push_back(MakeCreate(100 + i, i * 4096, 100));
  for (int k = 0; k < kCopies; k++) {
    HandContainer c;
    ASSERT_OK(WriteHandContainer(tmp.Join("d"), ContainerIdFor(k + 1), kIds * 4096, &records,
                                 nullptr, &c));
  }
  OpenResult r;
  fs::OpenBlockManager(OpenOptions({tmp.Join("d")}, nullptr), &r);
  ASSERT_FALSE(r.ok());
  size_t entries = 0;
  for (size_t i = 0; i < r.containers.size(); i++) {
    const fs::ContainerInfo& c = r.containers[i];
    EXPECT_EQ(i == 0 ? 0u : static_cast<size_t>(kIds), c.problems.size()) << c.path;
    entries += c.problems.size();
  }
  EXPECT_EQ(static_cast<size_t>((kCopies - 1) * kIds), entries);
  const std::string report = fs::FsReportJson(r).dump();
  // A few hundred bytes per entry; naming every other copy in each entry
  // would be ~50 times that.
  EXPECT_LT(report.size(), entries * 600) << report.size();
}

TEST(OpenProgressTest, LineSaysTotalShareBytesRateAndTimeLeft) {
  EXPECT_EQ(
      "Opened 250 log block containers (of 1000, 25%): 10.0 MiB of metadata read at 5.0 MiB/s, "
      "2.0 s elapsed, about 6.0 s left",
      fs::OpenProgress::Line(250, 1000, 10 << 20, 2.0));
  EXPECT_EQ(
      "Opened 1000 log block containers (of 1000, 100%): 512 B of metadata read at 256 B/s, "
      "2.0 s elapsed",
      fs::OpenProgress::Line(1000, 1000, 512, 2.0));
  EXPECT_NE(std::string::npos, fs::OpenProgress::Line(1, 100, 0, 90).find("about 148m30s left"));
}

}  // namespace
}  // namespace test
}  // namespace kudu
