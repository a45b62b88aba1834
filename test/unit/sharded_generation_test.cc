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

// A large state is generated as shards written by several threads
// (BlockWorkloadOptions::records_per_shard): its bytes must depend on the
// seed alone, it must be a state a server could have left (every block in
// one container, every DELETE after its CREATE in that container), and it
// must have the shape asked for.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <map>
#include <set>
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

// Every metadata file's bytes and every data file's size (sparse: holes
// past its header) under each root's data dir, by name relative to the root.
std::map<std::string, std::string> ReadDataDirs(const std::vector<std::string>& roots) {
  std::map<std::string, std::string> files;
  for (size_t r = 0; r < roots.size(); r++) {
    const std::string dir = LogBlockContainerWriter::DataDir(roots[r]);
    std::vector<std::string> names;
    EXPECT_OK(env::ListDir(dir, &names));
    for (const std::string& n : names) {
      const std::string path = env::JoinPath(dir, n);
      std::string bytes;
      if (n.size() > 9 && n.compare(n.size() - 9, 9, ".metadata") == 0) {
        EXPECT_OK(test::ReadFileToString(path, &bytes));
      } else {
        bytes = std::to_string(test::FileSizeOrDie(path));
      }
      files[std::to_string(r) + "/" + n] = std::move(bytes);
    }
  }
  return files;
}

class ShardedGenerationTest : public ::testing::Test {
 protected:
  // 9 containers of varied sizes, 40 % of the blocks deleted (10,360
  // records), cut into 6 shards of about 1,700 records.
  tools::BlockWorkloadOptions Shape(const std::vector<std::string>& roots) const {
    tools::BlockWorkloadOptions o;
    o.writer.data_dirs = roots;
    o.writer.fs_block_size = 4096;
    o.writer.sync = false;
    o.writer.sparse_data = true;
    o.writer.max_open_containers = 2;  // deletes reopen evicted containers
    o.container_blocks = {900, 400, 1500, 300, 1200, 700, 1100, 500, 800};
    o.deleted_blocks = 2960;
    o.records_per_shard = 1500;
    o.seed = 77;
    return o;
  }

  std::vector<std::string> Roots(const std::string& name, int n) {
    std::vector<std::string> roots;
    for (int i = 0; i < n; i++) roots.push_back(tmp_.Join(name + std::to_string(i)));
    return roots;
  }

  TempDir tmp_;
};

TEST_F(ShardedGenerationTest, TheSameSeedGivesTheSameBytesWhateverTheThreadCount) {
  std::map<std::string, std::string> first;
  std::vector<std::string> first_list;
  for (int threads : {1, 3, 8}) {
    SCOPED_TRACE(threads);
    const std::vector<std::string> roots = Roots("t" + std::to_string(threads) + "-", 2);
    tools::BlockWorkloadOptions o = Shape(roots);
    o.threads = threads;
    tools::BlockWorkloadResult result;
    ASSERT_OK(tools::RunBlockWorkload(o, &result));
    std::vector<std::string> list;
    for (const tools::GeneratedBlock& b : result.live) list.push_back(tools::FormatBlockLine(b));
    std::map<std::string, std::string> files = ReadDataDirs(roots);
    ASSERT_EQ(18u, files.size());  // 9 containers, a data and a metadata file each
    if (first.empty()) {
      first = std::move(files);
      first_list = std::move(list);
      continue;
    }
    EXPECT_EQ(first_list, list);
    ASSERT_EQ(first.size(), files.size());
    for (const auto& [name, bytes] : first) {
      ASSERT_EQ(1u, files.count(name)) << name;
      EXPECT_TRUE(bytes == files[name]) << name;
    }
  }
}

TEST_F(ShardedGenerationTest, IsAStateWithTheShapeAskedFor) {
  const std::vector<std::string> roots = Roots("shape-", 2);
  tools::BlockWorkloadOptions o = Shape(roots);
  o.threads = 2;
  tools::BlockWorkloadResult result;
  ASSERT_OK(tools::RunBlockWorkload(o, &result));
  EXPECT_EQ(9u, result.containers);
  EXPECT_EQ(7400u, result.blocks_created);
  EXPECT_EQ(2960u, result.blocks_deleted);
  ASSERT_EQ(7400u - 2960u, result.live.size());
  // One run of ids, ascending across shards: a shard's ids follow the ones
  // of the shard before it.
  for (size_t i = 1; i < result.live.size(); i++) {
    ASSERT_LT(result.live[i - 1].id, result.live[i].id) << i;
  }

  // Read back with the reference reader: each container is one of the
  // shape's, its records are well-formed and the live blocks are the
  // generator's. Containers alternate over the two dirs in creation order,
  // across the shards too.
  test::ReferenceReplay replay;
  ASSERT_OK(test::ReplayDataDirs(roots, nullptr, &replay));
  ASSERT_EQ(result.container_ids.size(), replay.records.size());
  std::vector<uint64_t> first_ids;
  for (size_t i = 0; i < result.container_ids.size(); i++) {
    const std::string& id = result.container_ids[i];
    SCOPED_TRACE(id);
    EXPECT_EQ(roots[i % 2], replay.container_root[id]) << i;
    const std::vector<BlockRecordPB>& records = replay.records[id];
    ASSERT_FALSE(records.empty());
    int64_t creates = 0;
    for (const BlockRecordPB& r : records) creates += r.op_type() == CREATE ? 1 : 0;
    EXPECT_EQ(o.container_blocks[i], creates) << i;
    first_ids.push_back(records.front().block_id().id());
  }
  EXPECT_TRUE(std::is_sorted(first_ids.begin(), first_ids.end()));
  ASSERT_EQ(result.live.size(), replay.live.size());
  for (const tools::GeneratedBlock& b : result.live) {
    auto it = replay.live.find(b.id.id());
    ASSERT_NE(replay.live.end(), it) << b.id.ToString();
    EXPECT_EQ(b.container_id, it->second.container_id);
    EXPECT_EQ(b.offset, it->second.offset);
    EXPECT_EQ(b.length, it->second.length);
  }
}

TEST_F(ShardedGenerationTest, ASmallStateIsOneShardDrawnFromTheSeed) {
  // Under twice records_per_shard a state is one shard drawn from the seed
  // itself, whatever the threads: the state `kudu fs generate
  // --containers=9 --blocks_per_container=800 --deleted_block_percentage=40
  // --seed=77 --generate_sparse_data` has always written on a 4 KiB
  // filesystem, so that a seed names the same small state from one version
  // to the next.
  tools::BlockWorkloadOptions o;
  o.writer.data_dirs = Roots("small-", 1);
  o.writer.fs_block_size = 4096;
  o.writer.sync = false;
  o.writer.sparse_data = true;
  o.containers = 9;
  o.blocks_per_container = 800;
  o.deleted_block_percentage = 40;
  o.seed = 77;
  o.records_per_shard = 5041;  // 10,080 records: one shard
  o.threads = 4;
  tools::BlockWorkloadResult small;
  ASSERT_OK(tools::RunBlockWorkload(o, &small));
  ASSERT_EQ(4320u, small.live.size());
  EXPECT_EQ("0000458432934075 23c8981ed5e545e68accc56f8bac3139 151552 269",
            tools::FormatBlockLine(small.live.front()));
  EXPECT_EQ("0000458432934112 23c8981ed5e545e68accc56f8bac3139 344064 197",
            tools::FormatBlockLine(small.live[1]));
  EXPECT_EQ("0000458432941237 12e8df5331da48e3b4cd43a10c520121 3936256 1059",
            tools::FormatBlockLine(small.live.back()));
  std::vector<std::string> ids = small.container_ids;
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ((std::vector<std::string>{
                "12e8df5331da48e3b4cd43a10c520121", "23c8981ed5e545e68accc56f8bac3139",
                "2e540c2f46ad4dafa9547578cd0e01d6", "6793745ca4be42fba453d5423b5c69ac",
                "7f12895b42034436a1d17b13f3afef60", "934e4edfcd994419be77406779bdc09a",
                "9508f22139a7432d9248de9f72092a4b", "a76e1abe7b4b472aae4f2dcd496b6930",
                "e1a02a80f78c4afdbfea58f72c82583b"}),
            ids);

  // Half its records per shard and the same seed is cut in two: other bytes.
  tools::BlockWorkloadOptions cut = o;
  cut.writer.data_dirs = Roots("cut-", 1);
  cut.records_per_shard = 5040;
  tools::BlockWorkloadResult sharded;
  ASSERT_OK(tools::RunBlockWorkload(cut, &sharded));
  EXPECT_EQ(small.blocks_deleted, sharded.blocks_deleted);
  EXPECT_NE(ReadDataDirs(o.writer.data_dirs), ReadDataDirs(cut.writer.data_dirs));
  EXPECT_NE(tools::FormatBlockLine(small.live.front()),
            tools::FormatBlockLine(sharded.live.front()));
}

// A shard that fails stops the others; each abandons the container it was
// filling, so the dirs hold complete containers only, and the error is the
// failure's, not a stopped shard's.
TEST_F(ShardedGenerationTest, AFailingShardStopsTheOthersAndLeavesCompleteContainers) {
  // The data file sizes of the seed's containers, from a run without limit.
  const std::vector<std::string> probe_roots = Roots("probe-", 2);
  tools::BlockWorkloadResult probe;
  ASSERT_OK(tools::RunBlockWorkload(Shape(probe_roots), &probe));
  test::ReferenceReplay probed;
  ASSERT_OK(test::ReplayDataDirs(probe_roots, nullptr, &probed));
  uint64_t largest = 0, second = 0;
  for (size_t i = 0; i < probe.container_ids.size(); i++) {
    const std::string& id = probe.container_ids[i];
    const uint64_t size = test::FileSizeOrDie(
        LogBlockContainerWriter::DataPath(probed.container_root[id], id));
    if (size > largest) {
      second = largest;
      largest = size;
    } else {
      second = std::max(second, size);
    }
  }
  ASSERT_LT(second, largest);
  // A file size limit only the largest container's data file passes: its
  // shard fails (EFBIG) part way through it.
  struct rlimit old_limit;
  ASSERT_EQ(0, ::getrlimit(RLIMIT_FSIZE, &old_limit));
  ASSERT_GE(old_limit.rlim_max, static_cast<rlim_t>(largest));
  struct sigaction ignore = {}, old_action = {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(0, ::sigaction(SIGXFSZ, &ignore, &old_action));
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    const std::vector<std::string> roots = Roots("fail" + std::to_string(threads) + "-", 2);
    tools::BlockWorkloadOptions o = Shape(roots);
    o.threads = threads;
    struct rlimit cap = old_limit;
    cap.rlim_cur = static_cast<rlim_t>(largest - 1);
    ASSERT_EQ(0, ::setrlimit(RLIMIT_FSIZE, &cap));
    tools::BlockWorkloadResult result;
    const Status s = tools::RunBlockWorkload(o, &result);
    ASSERT_EQ(0, ::setrlimit(RLIMIT_FSIZE, &old_limit));
    ASSERT_FALSE(s.ok());
    EXPECT_TRUE(s.IsIOError()) << s.ToString();

    test::ReferenceReplay replay;
    ASSERT_OK(test::ReplayDataDirs(roots, nullptr, &replay));
    EXPECT_LT(replay.records.size(), probe.container_ids.size());
    std::multiset<int64_t> shape(o.container_blocks.begin(), o.container_blocks.end());
    for (const auto& [id, records] : replay.records) {
      int64_t creates = 0;
      for (const BlockRecordPB& r : records) creates += r.op_type() == CREATE ? 1 : 0;
      EXPECT_EQ(1u, shape.count(creates)) << id << ": " << creates << " blocks, not one of the shape's";
      EXPECT_NE(1500, creates) << id;
    }
    if (threads == 1) {
      // Shards one after the other: the first (900 and 400 blocks) was
      // written, the second failed in its only container, the others
      // never started.
      EXPECT_EQ(2u, replay.records.size());
    }
  }
  ASSERT_EQ(0, ::sigaction(SIGXFSZ, &old_action, nullptr));
}

}  // namespace
}  // namespace fs
}  // namespace kudu
