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

// What the server-side block writer (fs/container_writer.h) does as Kudu's
// log block manager does: when a container is full (by size, blocks or
// metadata size), what happens to its data file, when it dies, and the
// time its records carry.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kudu/fs/container_writer.h"
#include "kudu/util/env.h"
#include "util/reference_replay_util.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

using test::ReadMetadataRecords;
using test::TempDir;

class FullContainerWriterTest : public ::testing::Test {
 protected:
  ContainerWriterOptions Options() {
    ContainerWriterOptions o;
    o.data_dirs = {tmp_.Join("d")};
    o.fs_block_size = 4096;
    o.sync = false;
    o.seed = 7;
    o.clock_us = [this]() { return ++now_; };
    return o;
  }
  std::vector<BlockId> Create(LogWritableBlockManager* bm, int n, size_t size = 100) {
    std::vector<std::string> payloads(n, std::string(size, 'p'));
    std::vector<Slice> slices(payloads.begin(), payloads.end());
    std::vector<BlockId> ids;
    EXPECT_OK(bm->CreateBlocks(slices, &ids));
    return ids;
  }

  TempDir tmp_;
  uint64_t now_ = 1000;
};

// Kudu's FinalizeBlock cuts a container that became full by size or count
// to its next block offset (TruncateDataToNextBlockOffset): without
// preallocation, that extends the file over the last block's padding. A
// container that only took its share of a workload is not full and keeps
// its size.
TEST_F(FullContainerWriterTest, AFullDataFileEndsAtTheNextBlockOffset) {
  for (bool sparse : {false, true}) {
    SCOPED_TRACE(sparse ? "sparse" : "with bytes");
    ContainerWriterOptions o = Options();
    o.data_dirs = {tmp_.Join(sparse ? "s" : "b")};
    o.sparse_data = sparse;
    o.max_container_blocks = 3;
    o.roll_after_blocks = 2;  // the first container rolls before it is full
    LogWritableBlockManager bm(o);
    ASSERT_OK(bm.Open());
    Create(&bm, 2);  // container 0: rolled, not full
    ASSERT_OK(bm.Close());

    ContainerWriterOptions full = Options();
    full.data_dirs = {tmp_.Join(sparse ? "s2" : "b2")};
    full.sparse_data = sparse;
    full.max_container_blocks = 3;
    LogWritableBlockManager bm2(full);
    ASSERT_OK(bm2.Open());
    Create(&bm2, 4);  // 3 fill the first container, 1 starts the next
    ASSERT_OK(bm2.Close());

    ASSERT_EQ(1u, bm.containers().size());
    EXPECT_EQ(4096u + 100u, test::FileSizeOrDie(bm.containers()[0]->data_path()));
    ASSERT_EQ(2u, bm2.containers().size());
    EXPECT_EQ(3u * 4096u, test::FileSizeOrDie(bm2.containers()[0]->data_path()));
    EXPECT_EQ(100u, test::FileSizeOrDie(bm2.containers()[1]->data_path()));
  }
}

// A full container whose last block is deleted is deleted, files and all
// (check_death_condition); one that is not full stays, however empty; with
// --log_block_manager_delete_dead_container off, the dead one stays too.
TEST_F(FullContainerWriterTest, AFullContainerDiesWithItsLastBlock) {
  for (bool delete_dead : {true, false}) {
    SCOPED_TRACE(delete_dead ? "deleted" : "kept");
    ContainerWriterOptions o = Options();
    o.data_dirs = {tmp_.Join(delete_dead ? "x" : "y")};
    o.max_container_blocks = 2;
    o.delete_dead_containers = delete_dead;
    LogWritableBlockManager bm(o);
    ASSERT_OK(bm.Open());
    const std::vector<BlockId> ids = Create(&bm, 3);  // [full: a b] [c]
    ASSERT_EQ(2u, bm.containers().size());
    const std::string full_data = bm.containers()[0]->data_path();
    const std::string full_metadata = bm.containers()[0]->metadata_path();
    ASSERT_OK(bm.DeleteBlock(ids[0]));
    EXPECT_TRUE(env::FileExists(full_data));
    uint64_t full_metadata_size = 0;
    ASSERT_OK(env::GetFileSize(full_metadata, &full_metadata_size));
    const uint64_t last_delete = bm.containers()[0]->metadata_size();
    ASSERT_OK(bm.DeleteBlocks({ids[1], ids[2]}));
    EXPECT_EQ(delete_dead, !env::FileExists(full_data));
    EXPECT_EQ(delete_dead, !env::FileExists(full_metadata));
    // What it wrote still counts among the bytes written.
    EXPECT_EQ(full_metadata_size, last_delete);
    if (delete_dead) {
      EXPECT_LT(full_metadata_size, bm.deleted_metadata_bytes());
    } else {
      EXPECT_EQ(0u, bm.deleted_metadata_bytes());
    }
    EXPECT_EQ(delete_dead ? 1u : 2u, bm.containers().size());
    // The container being filled has no live block either, but takes more.
    EXPECT_TRUE(env::FileExists(bm.containers().back()->data_path()));
    EXPECT_EQ(bm.containers().back().get(), bm.current_container());
    const std::vector<BlockId> later = Create(&bm, 1);
    EXPECT_EQ(delete_dead ? 1u : 2u, bm.containers().size());
    // Blocks are still found by id once a container before theirs is gone.
    EXPECT_EQ(bm.containers().back().get(), bm.live_blocks().at(later[0]).container);
    EXPECT_TRUE(bm.DeleteBlock(ids[0]).IsNotFound());
    ASSERT_OK(bm.DeleteBlock(later[0]));
    EXPECT_TRUE(bm.live_blocks().empty());
    ASSERT_OK(bm.Close());
  }
}

// --log_container_metadata_max_size makes a container full too: no block
// goes in once its metadata file reached the size (Kudu's full() of the
// native metadata), and its DELETE records count toward it.
TEST_F(FullContainerWriterTest, MetadataSizeFillsAContainer) {
  ContainerWriterOptions o = Options();
  o.max_metadata_size = 1000;  // the headers take ~750 bytes, a record ~32
  LogWritableBlockManager bm(o);
  ASSERT_OK(bm.Open());
  for (int i = 0; i < 40; i++) Create(&bm, 1);
  ASSERT_GT(bm.containers().size(), 1u);
  for (size_t i = 0; i + 1 < bm.containers().size(); i++) {
    const auto& c = bm.containers()[i];
    std::vector<BlockRecordPB> recs;
    ASSERT_OK(ReadMetadataRecords(c->metadata_path(), nullptr, &recs));
    // Full at the write that reached the size, not one later (a CREATE
    // record takes less than 64 bytes).
    const uint64_t size = test::FileSizeOrDie(c->metadata_path());
    EXPECT_GE(size, 1000u) << i;
    EXPECT_LT(size - 64, 1000u) << i;
    // Full by metadata, not by size or count: its data file is not cut.
    EXPECT_EQ(static_cast<uint64_t>((recs.size() - 1) * 4096 + 100),
              test::FileSizeOrDie(c->data_path()));
  }
  ASSERT_OK(bm.Close());
}

// Kudu stamps every record of one metadata write with one time
// (AddBlockIdsToMetadata, RemoveBlockIdsFromMetadata); later writes carry
// later times.
TEST_F(FullContainerWriterTest, OneTimePerMetadataWrite) {
  ContainerWriterOptions o = Options();
  LogWritableBlockManager bm(o);
  ASSERT_OK(bm.Open());
  const std::vector<BlockId> first = Create(&bm, 3);
  const std::vector<BlockId> second = Create(&bm, 2);
  ASSERT_OK(bm.DeleteBlocks({first[0], second[1], first[2]}));
  ASSERT_OK(bm.Close());
  std::vector<BlockRecordPB> recs;
  ASSERT_OK(ReadMetadataRecords(bm.containers()[0]->metadata_path(), nullptr, &recs));
  ASSERT_EQ(8u, recs.size());
  std::vector<uint64_t> t;
  for (const BlockRecordPB& r : recs) t.push_back(r.timestamp_us());
  EXPECT_EQ(t[0], t[1]);
  EXPECT_EQ(t[0], t[2]);
  EXPECT_LT(t[2], t[3]);
  EXPECT_EQ(t[3], t[4]);
  EXPECT_LT(t[4], t[5]);
  EXPECT_EQ(t[5], t[6]);
  EXPECT_EQ(t[5], t[7]);
}

// A batch that spills into a second container is two metadata writes, and
// Kudu stamps each (AddBlockIdsToMetadata, once per container) with its
// own time.
TEST_F(FullContainerWriterTest, EachContainersShareOfABatchHasItsOwnTime) {
  ContainerWriterOptions o = Options();
  o.roll_after_blocks = 2;
  LogWritableBlockManager bm(o);
  ASSERT_OK(bm.Open());
  Create(&bm, 4);
  ASSERT_OK(bm.Close());
  ASSERT_EQ(2u, bm.containers().size());
  std::vector<uint64_t> t;
  for (const auto& c : bm.containers()) {
    std::vector<BlockRecordPB> recs;
    ASSERT_OK(ReadMetadataRecords(c->metadata_path(), nullptr, &recs));
    ASSERT_EQ(2u, recs.size());
    EXPECT_EQ(recs[0].timestamp_us(), recs[1].timestamp_us());
    t.push_back(recs[0].timestamp_us());
  }
  EXPECT_LT(t[0], t[1]);
}

// The per-container block counts of a workload follow the order in which
// containers were created, also after a dead full container was deleted.
TEST_F(FullContainerWriterTest, BlockCountsFollowCreationOrderAfterADeletion) {
  ContainerWriterOptions o = Options();
  o.max_container_size = 8192;
  o.container_block_limits = {1, 2, 1};
  LogWritableBlockManager bm(o);
  ASSERT_OK(bm.Open());
  const std::vector<BlockId> first = Create(&bm, 1, 8192);  // full at once
  ASSERT_OK(bm.DeleteBlocks(first));                        // dead: deleted
  ASSERT_EQ(0u, bm.containers().size());
  Create(&bm, 3);
  ASSERT_EQ(2u, bm.containers().size());
  EXPECT_EQ(2, bm.containers()[0]->total_blocks());  // the second container's limit
  EXPECT_EQ(1, bm.containers()[1]->total_blocks());  // the third's
}

}  // namespace
}  // namespace fs
}  // namespace kudu
