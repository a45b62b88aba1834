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


// The list of live blocks `kudu fs generate` leaves beside a state, written
// from several threads at once, one shard each at the place the shards
// before it end: it must be the list of one writer, line for line, and a
// failed write must leave nothing behind.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kudu/tools/block_workload.h"
#include "kudu/tools/live_block_list.h"
#include "kudu/util/env.h"
#include "kudu/util/io_fault_injector.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace tools {
namespace {

using test::TempDir;

// Where the writer places each shard's lines: it must say exactly how long
// each line comes out, for every width of every field.
TEST(BlockLineBytesTest, IsTheLengthOfTheLine) {
  std::vector<uint64_t> ids = {0, std::numeric_limits<uint64_t>::max(),
                               std::numeric_limits<uint64_t>::max() - 1};
  std::vector<int64_t> numbers = {0, std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min(),
                                  std::numeric_limits<int64_t>::min() + 1};
  for (uint64_t p = 1;; p *= 10) {
    for (uint64_t v : {p - 1, p, p + 1}) {
      ids.push_back(v);
      if (v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        numbers.push_back(static_cast<int64_t>(v));
        numbers.push_back(-static_cast<int64_t>(v));
      }
    }
    if (p > std::numeric_limits<uint64_t>::max() / 10) break;
  }
  // Bit-length boundaries, where the digit count is estimated from.
  for (int bits = 1; bits < 64; bits++) {
    const uint64_t v = uint64_t{1} << bits;
    ids.push_back(v - 1);
    ids.push_back(v);
  }
  GeneratedBlock b;
  for (const std::string& container : {std::string(), std::string("c"), std::string(32, 'f')}) {
    b.container_id = container;
    for (uint64_t id : ids) {
      b.id = BlockId(id);
      for (size_t i = 0; i < numbers.size(); i++) {
        b.offset = numbers[i];
        b.length = numbers[numbers.size() - 1 - i];
        ASSERT_EQ(FormatBlockLine(b).size(), BlockLineBytes(b)) << FormatBlockLine(b);
      }
    }
  }
}

class LiveBlockListTest : public ::testing::TestWithParam<int> {
 protected:
  // Several shards (records_per_shard), several dirs.
  BlockWorkloadOptions Shape(const std::string& name) {
    BlockWorkloadOptions o;
    o.writer.data_dirs = {tmp_.Join(name + "0"), tmp_.Join(name + "1")};
    o.writer.fs_block_size = 4096;
    o.writer.sync = false;
    o.writer.sparse_data = true;
    o.container_blocks = {900, 400, 1500, 300, 1200, 700, 1100, 500, 800};
    o.deleted_blocks = 2960;
    o.records_per_shard = 1500;
    o.threads = GetParam();
    o.seed = 77;
    return o;
  }
  TempDir tmp_;
};

TEST_P(LiveBlockListTest, ShardsWrittenAtOnceMakeOneWritersList) {
  BlockWorkloadOptions o = Shape("listed");
  BlockWorkloadResult listed;
  ASSERT_OK(RunBlockWorkload(o, &listed));
  std::string expected;
  for (const GeneratedBlock& b : listed.live) expected += FormatBlockLine(b) + "\n";

  const std::string path = tmp_.Join("live.txt");
  LiveBlockListWriter list(path);
  ASSERT_OK(list.Open());
  o = Shape("written");
  size_t shards_seen = 0;
  o.on_live_shards = [&](const std::vector<ShardLiveBlocks>& shards, int threads) {
    shards_seen = shards.size();
    return list.Write(shards, threads);
  };
  BlockWorkloadResult written;
  ASSERT_OK(RunBlockWorkload(o, &written));
  ASSERT_OK(list.Finish());
  EXPECT_EQ(6u, shards_seen);
  EXPECT_TRUE(written.live.empty());
  EXPECT_EQ(listed.live_bytes, written.live_bytes);
  EXPECT_EQ(listed.live.size(), list.lines());
  std::string got;
  ASSERT_OK(test::ReadFileToString(path, &got));
  EXPECT_TRUE(expected == got) << expected.size() << " bytes expected, " << got.size() << " written";
  EXPECT_FALSE(env::FileExists(path + ".tmp"));
}

TEST_P(LiveBlockListTest, AFailedWriteLeavesNothingBehind) {
  const std::string path = tmp_.Join("live.txt");
  {
    LiveBlockListWriter list(path);
    ASSERT_OK(list.Open());
    BlockWorkloadOptions o = Shape("written");
    o.on_live_shards = [&](const std::vector<ShardLiveBlocks>& shards, int threads) {
      // The third shard's write fails.
      IoFaultInjector::Arm(IoOp::kWrite, 3, IoFault::kEIO, "live.txt.tmp");
      Status s = list.Write(shards, threads);
      IoFaultInjector::Disarm();
      return s;
    };
    BlockWorkloadResult result;
    Status s = RunBlockWorkload(o, &result);
    ASSERT_TRUE(s.IsIOError()) << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find("live.txt.tmp")) << s.ToString();
    EXPECT_TRUE(env::FileExists(path + ".tmp"));
  }
  EXPECT_FALSE(env::FileExists(path + ".tmp"));
  EXPECT_FALSE(env::FileExists(path));
}

INSTANTIATE_TEST_SUITE_P(Threads, LiveBlockListTest, ::testing::Values(1, 3));

}  // namespace
}  // namespace tools
}  // namespace kudu
