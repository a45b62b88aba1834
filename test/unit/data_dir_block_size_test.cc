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

// The fs block size of a data dir without block_manager_instance (§1): the
// st_blksize of <root>/data, as stat(2) gives it.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kudu/fs/block_manager_open.h"
#include "kudu/util/env.h"
#include "util/fs_fixture_util.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

uint64_t StBlksize(const std::string& path) {
  struct stat st;
  EXPECT_EQ(0, ::stat(path.c_str(), &st)) << path;
  return static_cast<uint64_t>(st.st_blksize);
}

TEST(DataDirBlockSizeTest, IsTheStBlksizeOfTheDataDir) {
  TempDir tmp;
  const std::string a = tmp.Join("a"), b = tmp.Join("b");
  std::vector<BlockRecordPB> records = {MakeCreate(1, 0, 100)};
  HandContainer c;
  ASSERT_OK(WriteHandContainer(a, ContainerIdFor(1), 4096, &records, nullptr, &c));
  ASSERT_OK(env::CreateDirs(b + "/data"));
  fs::BlockManagerOpenOptions o = OpenOptions({a, b}, nullptr);
  o.fs_block_size = 0;  // what the dirs say, not the tests' fixed 4 KiB
  fs::OpenResult r;
  fs::OpenBlockManager(o, &r);
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  ASSERT_EQ(2u, r.fs_block_sizes.size());
  EXPECT_EQ(StBlksize(a + "/data"), r.fs_block_sizes[0]);
  EXPECT_EQ(StBlksize(b + "/data"), r.fs_block_sizes[1]);
  ASSERT_EQ(1u, r.containers.size());
  EXPECT_EQ(StBlksize(a + "/data"), r.containers[0].fs_block_size);
}

// Where statvfs's f_bsize and st_blksize differ (procfs reports 4096 and
// 1024 on Linux), the stat one is taken.
TEST(DataDirBlockSizeTest, IsStBlksizeWhereStatvfsDiffers) {
  TempDir tmp;
  for (const std::string& path : {std::string("/proc"), std::string("/"), tmp.path()}) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) continue;
    uint64_t bs = 0;
    ASSERT_OK(env::GetBlockSize(path, &bs));
    EXPECT_EQ(static_cast<uint64_t>(st.st_blksize), bs) << path;
  }
}

}  // namespace
}  // namespace test
}  // namespace kudu
