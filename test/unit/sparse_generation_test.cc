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

// Sparse generation (ContainerWriterOptions::sparse_data): the metadata must
// be exactly what the normal path writes for the same seed, the data files
// must have the same sizes, and their blocks must be holes.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "kudu/fs/container_writer.h"
#include "kudu/tools/block_workload.h"
#include "kudu/util/env.h"
#include "util/reference_replay_util.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

using test::TempDir;

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class SparseGenerationTest : public ::testing::TestWithParam<bool> {
 protected:
  // Runs the same seeded workload into `root`, sparse or not.
  void Generate(const std::string& root, bool sparse, tools::BlockWorkloadResult* result,
                std::function<Status(const std::vector<tools::ShardLiveBlocks>&, int)>
                    on_live_shards = nullptr) {
    tools::BlockWorkloadOptions o;
    o.on_live_shards = std::move(on_live_shards);
    o.writer.data_dirs = {root};
    o.writer.fs_block_size = 4096;
    o.writer.sync = false;
    o.writer.sparse_data = sparse;
    // Few open containers, so that deletes reopen evicted ones and their
    // staged records must survive the close.
    o.writer.max_open_containers = 2;
    if (GetParam()) o.writer.server_key = &key_;
    o.container_blocks = {700, 50, 1300, 400, 900};
    o.deleted_blocks = 2900;
    o.seed = 1234;
    ASSERT_OK(tools::RunBlockWorkload(o, result));
  }

  const ServerKey key_ = test::TestServerKey(16);
  TempDir tmp_;
};

TEST_P(SparseGenerationTest, SameMetadataBytesSameDataSizesBlocksAreHoles) {
  const std::string plain_root = tmp_.Join("written");
  const std::string sparse_root = tmp_.Join("sparse");
  tools::BlockWorkloadResult written, sparse;
  ASSERT_NO_FATAL_FAILURE(Generate(plain_root, false, &written));
  ASSERT_NO_FATAL_FAILURE(Generate(sparse_root, true, &sparse));
  EXPECT_EQ(5u, written.containers);
  EXPECT_EQ(written.containers, sparse.containers);
  EXPECT_EQ(3350u - 2900u, sparse.live.size());
  EXPECT_EQ(written.metadata_bytes, sparse.metadata_bytes);
  ASSERT_EQ(written.live.size(), sparse.live.size());
  for (size_t i = 0; i < written.live.size(); i++) {
    EXPECT_EQ(tools::FormatBlockLine(written.live[i]), tools::FormatBlockLine(sparse.live[i]));
  }

  std::vector<std::string> names, sparse_names;
  const std::string dir = LogBlockContainerWriter::DataDir(plain_root);
  const std::string sparse_dir = LogBlockContainerWriter::DataDir(sparse_root);
  ASSERT_OK(env::ListDir(dir, &names));
  ASSERT_OK(env::ListDir(sparse_dir, &sparse_names));
  std::sort(names.begin(), names.end());
  std::sort(sparse_names.begin(), sparse_names.end());
  ASSERT_EQ(names, sparse_names);
  ASSERT_EQ(10u, names.size());
  uint64_t data_files = 0;
  for (const std::string& n : names) {
    const std::string a = env::JoinPath(dir, n), b = env::JoinPath(sparse_dir, n);
    if (EndsWith(n, ".metadata")) {
      std::string x, y;
      ASSERT_OK(test::ReadFileToString(a, &x));
      ASSERT_OK(test::ReadFileToString(b, &y));
      EXPECT_TRUE(x == y) << n << ": " << x.size() << " vs " << y.size() << " bytes";
      continue;
    }
    data_files++;
    EXPECT_EQ(test::FileSizeOrDie(a), test::FileSizeOrDie(b)) << n;
    // The sparse file holds no block bytes: at most its encryption header
    // is allocated.
    struct stat st;
    ASSERT_EQ(0, ::stat(b.c_str(), &st)) << b;
    EXPECT_LE(static_cast<uint64_t>(st.st_blocks) * 512, 4096u) << n;
  }
  EXPECT_EQ(5u, data_files);

  // And the sparse state replays to the generator's live blocks.
  test::ReferenceReplay replay;
  ASSERT_OK(test::ReplayDataDirs({sparse_root}, GetParam() ? &key_ : nullptr, &replay));
  EXPECT_EQ(sparse.live.size(), replay.live.size());
}

// Live blocks handed over by shard instead of listed: the same blocks in
// the same order, and the same files.
TEST_P(SparseGenerationTest, LiveBlocksHandedOverAreTheListedOnes) {
  tools::BlockWorkloadResult listed, handed;
  std::vector<std::string> lines;
  ASSERT_NO_FATAL_FAILURE(Generate(tmp_.Join("listed"), true, &listed));
  ASSERT_NO_FATAL_FAILURE(Generate(
      tmp_.Join("handed"), true, &handed,
      [&lines](const std::vector<tools::ShardLiveBlocks>& shards, int threads) {
        EXPECT_GE(threads, 1);
        for (const tools::ShardLiveBlocks& shard : shards) {
          shard.ForEach([&lines](const tools::GeneratedBlock& b) {
            lines.push_back(tools::FormatBlockLine(b));
          });
        }
        return Status::OK();
      }));
  EXPECT_TRUE(handed.live.empty());
  std::vector<std::string> expected;
  for (const tools::GeneratedBlock& b : listed.live) expected.push_back(tools::FormatBlockLine(b));
  EXPECT_EQ(3350u - 2900u, lines.size());
  EXPECT_EQ(expected, lines);
  EXPECT_EQ(listed.live_bytes, handed.live_bytes);
  EXPECT_EQ(listed.metadata_bytes, handed.metadata_bytes);
  EXPECT_EQ(listed.container_ids, handed.container_ids);
}

// One data dir in `tmp`, 4 KiB fs blocks, sparse data.
ContainerWriterOptions SparseWriterOptions(const TempDir& tmp, bool sync) {
  ContainerWriterOptions o;
  o.data_dirs = {tmp.Join("d")};
  o.fs_block_size = 4096;
  o.sync = sync;
  o.sparse_data = true;
  return o;
}

// Bytes first, record second holds for sparse data too: by the time a
// record naming a block is on disk, the data file reaches the block's end
// (or a crash leaves a CREATE past the end of its data file, which is fatal
// and no repair mends). With sync, each commit's records are on disk.
TEST(SparseWriterTest, TheDataFileReachesEveryBlockItsRecordsName) {
  TempDir tmp;
  LogWritableBlockManager bm(SparseWriterOptions(tmp, /*sync=*/true));
  ASSERT_OK(bm.Open());
  for (size_t n : {100u, 5000u, 3u}) {
    BlockId id;
    ASSERT_OK(bm.CreateBlock(std::string(n, 'x'), &id));
    const LogWritableBlockManager::WrittenBlock& b = bm.live_blocks().at(id);
    struct stat st;
    ASSERT_EQ(0, ::stat(b.container->data_path().c_str(), &st));
    EXPECT_GE(static_cast<uint64_t>(st.st_size), static_cast<uint64_t>(b.offset + b.length)) << n;
  }
  ASSERT_OK(bm.Close());
}

// Sparse data batches a container's metadata writes across group commits,
// and flushes them at tens of KiB rather than holding a container's records
// whole: thousands of containers stay open, each with its buffer.
TEST(SparseWriterTest, MetadataWritesAreBatchedAcrossGroupCommits) {
  TempDir tmp;
  LogWritableBlockManager bm(SparseWriterOptions(tmp, /*sync=*/false));
  ASSERT_OK(bm.Open());
  constexpr int kBlocks = 4000;  // ~180 KB of CREATE records
  for (int i = 0; i < kBlocks; i++) {
    BlockId id;
    ASSERT_OK(bm.CreateBlock(std::string(1, 'x'), &id));
  }
  const LogBlockContainerWriter* c = bm.current_container();
  ASSERT_NE(nullptr, c);
  ASSERT_GT(c->metadata_size(), 150u * 1000);
  // The header, then one write per flush.
  EXPECT_GE(c->metadata_write_syscalls(), 3u);
  EXPECT_LE(c->metadata_write_syscalls(), 10u);
  ASSERT_OK(bm.Close());
  std::vector<BlockRecordPB> recs;
  ASSERT_OK(test::ReadMetadataRecords(c->metadata_path(), nullptr, &recs));
  EXPECT_EQ(static_cast<size_t>(kBlocks), recs.size());
}

INSTANTIATE_TEST_SUITE_P(PlainAndEncrypted, SparseGenerationTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Encrypted" : "Plain";
                         });

}  // namespace
}  // namespace fs
}  // namespace kudu
