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

// The repair's compaction step (§7.1): the compacted file replays to what
// the old one did and keeps its owner and mode, and a file that changed
// since the open is left as it is.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/repair.h"
#include "kudu/util/encryption.h"
#include "util/repair_fixture.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using fs::ContainerInfo;
using fs::OpenResult;
using test::HandContainer;
using test::MakeDelete;

class RepairCompactionTest : public test::RepairFixture {
 protected:
  // The open saw `records` in a low-live container; a writer appended
  // `appended` since. The compaction re-reads the file, sees that its live
  // set is no longer the open's, fails its step and leaves the file as it is.
  void ExpectCompactionRefused(std::vector<BlockRecordPB> records,
                               const std::vector<BlockRecordPB>& appended) {
    const std::string root = tmp_.Join("d");
    const HandContainer c = Write(root, 1, records);
    OpenResult r;
    ASSERT_OK(fs::OpenBlockManager(Options({root}, false, 5), &r));
    ASSERT_EQ(1u, r.containers.size());
    ASSERT_TRUE(r.containers[0].low_live);
    ASSERT_NE(nullptr, r.block_map);
    records.insert(records.end(), appended.begin(), appended.end());
    Write(root, 1, records);
    std::string bytes;
    ASSERT_OK(test::ReadFileToString(c.metadata_path, &bytes));

    fs::RepairInput in;
    in.server_key = k_;
    in.containers = &r.containers;
    in.block_map = r.block_map.get();
    fs::RepairSummary sum;
    EXPECT_FALSE(fs::RepairContainers(in, &sum).ok());
    ASSERT_EQ(1u, sum.errors.size());
    EXPECT_STREQ(fs::kCompactionStep, sum.errors[0].step);
    EXPECT_EQ(c.metadata_path, sum.errors[0].path);
    EXPECT_EQ(0u, sum.low_live_metadata_rewritten);
    std::string after;
    ASSERT_OK(test::ReadFileToString(c.metadata_path, &after));
    EXPECT_TRUE(bytes == after) << "the metadata file was changed";
  }
};

// §7.1: the compacted file replays to the same live set, next block offset
// and highest id (two dead blocks kept for it), is v2, and keeps the old
// file's owner, group and mode.
TEST_P(RepairCompactionTest, CompactionKeepsNextOffsetHighestIdOwnerAndMode) {
  const std::string root = tmp_.Join("d");
  // Block 7 ends the container, block 9 has the highest id, block 3 is
  // dropped; block 1 (and 5, created later but stamped earlier) stay live.
  const HandContainer c = Write(root, 1,
                                {Create(1, 1, 100, 50), Create(7, 5, 100, 2), Create(9, 0, 100, 3),
                                 Create(3, 2, 100, 4), Create(5, 4, 100, 10), MakeDelete(7),
                                 MakeDelete(9), MakeDelete(3)},
                                GetParam() ? 2 : 1);
  ASSERT_EQ(0, ::chmod(c.metadata_path.c_str(), 0640));
  const bool root_user = ::geteuid() == 0;
  if (root_user) {
    ASSERT_EQ(0, ::chown(c.metadata_path.c_str(), 12345, 23456));
  }

  OpenResult before;
  ASSERT_OK(fs::OpenBlockManager(Options({root}, false, 5), &before));
  const ContainerInfo* b = Find(before, c.path);
  ASSERT_NE(nullptr, b);
  ASSERT_TRUE(b->low_live);

  OpenResult r;
  ASSERT_OK(fs::OpenBlockManager(Options({root}, true, 5), &r));
  EXPECT_TRUE(r.repairs.errors.empty()) << r.repairs.status.ToString();
  EXPECT_EQ(1u, r.repairs.low_live_metadata_rewritten);

  OpenResult after;
  ASSERT_OK(fs::OpenBlockManager(Options({root}, false, 5), &after));
  EXPECT_EQ(test::LiveSetOf(before), test::LiveSetOf(after));
  const ContainerInfo* a = Find(after, c.path);
  ASSERT_NE(nullptr, a);
  EXPECT_EQ(b->next_write_offset, a->next_write_offset);
  EXPECT_EQ(b->max_block_id, a->max_block_id);
  EXPECT_EQ(before.next_block_id, after.next_block_id);
  EXPECT_EQ(4u, a->total_blocks);  // 7, 9 kept dead; 1, 5 live
  EXPECT_EQ(6u, a->outcome.records);

  struct stat st;
  ASSERT_EQ(0, ::stat(c.metadata_path.c_str(), &st));
  EXPECT_EQ(0640u, st.st_mode & 07777);
  if (root_user) {
    EXPECT_EQ(12345u, st.st_uid);
    EXPECT_EQ(23456u, st.st_gid);
  }
  std::string bytes;
  ASSERT_OK(test::ReadFileToString(c.metadata_path, &bytes));
  const size_t header = GetParam() ? kEncryptionHeaderSize : 0;
  ASSERT_GT(bytes.size(), header + 12);
  if (!GetParam()) {
    EXPECT_EQ('\2', bytes[header + 8]) << "the compacted file is v2";
  }
}

// A compaction of a file that changed since the open (a block deleted
// since) fails and changes nothing (§7.1 step 1).
TEST_P(RepairCompactionTest, CompactionOfAFileThatChangedSinceTheOpenFails) {
  ExpectCompactionRefused({Create(1, 0), Create(2, 1), Create(3, 2), Create(4, 3), Create(5, 4),
                           MakeDelete(1), MakeDelete(2), MakeDelete(3)},
                          {MakeDelete(4)});
}

// The same with a change that keeps every count the open took (live
// blocks, next block offset, highest id): a block deleted and another one,
// of a lower id and inside the space already used, created. Only the live
// set tells: §7.1 compares it.
TEST_P(RepairCompactionTest, CompactionComparesTheLiveSetNotOnlyItsCounts) {
  ExpectCompactionRefused({Create(10, 0), Create(20, 1), Create(30, 2), Create(40, 3),
                           Create(50, 4), MakeDelete(10), MakeDelete(20), MakeDelete(30)},
                          {MakeDelete(40), Create(15, 0)});
}

// The same with a change that keeps the live set and the highest id: a
// block of a lower id created past the old end and deleted again. Only the
// next block offset tells.
TEST_P(RepairCompactionTest, CompactionComparesTheNextBlockOffset) {
  ExpectCompactionRefused({Create(1, 0), Create(2, 1), Create(3, 2), Create(4, 3), Create(5, 4),
                           MakeDelete(1), MakeDelete(2), MakeDelete(3)},
                          {Create(2, 6), MakeDelete(2)});
}

INSTANTIATE_PLAIN_AND_ENCRYPTED(RepairCompactionTest);

}  // namespace
}  // namespace kudu
