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

// The block manager open's usage errors (missing dirs, keys that do not fit
// the files), which say nothing about the on-disk state and are recognised
// before any replay, and the open of an empty data dir.
#include <gtest/gtest.h>

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
namespace fs {
namespace {

using fs::OpenResult;
using nlohmann::json;
using test::HandContainer;
using test::MakeCreate;
using test::TempDir;

TEST(BlockManagerOpenUsageTest, BadDirsAndKeysAreUsageErrorsNamingThePath) {
  TempDir tmp;
  ServerKey key = test::TestServerKey(16), other = test::TestServerKey(24);
  const std::string enc = tmp.Join("enc"), plain = tmp.Join("plain");
  HandContainer c;
  std::vector<BlockRecordPB> rs = {MakeCreate(1, 4096, 10)};
  ASSERT_OK(test::WriteHandContainer(enc, test::ContainerIdFor(1), 8192, &rs, &key, &c));
  std::vector<BlockRecordPB> rs2 = {MakeCreate(2, 4096, 10)};
  ASSERT_OK(test::WriteHandContainer(enc, test::ContainerIdFor(2), 8192, &rs2, &key, &c));
  std::vector<BlockRecordPB> rp = {MakeCreate(1, 0, 10)};
  HandContainer p;
  ASSERT_OK(test::WriteHandContainer(plain, test::ContainerIdFor(1), 8192, &rp, nullptr, &p));
  ASSERT_OK(env::CreateDirs(tmp.Join("nodata")));

  struct Case {
    std::vector<std::string> roots;
    const ServerKey* key;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {{tmp.Join("missing")}, nullptr, tmp.Join("missing") + " does not exist"},
      {{plain, tmp.Join("nodata")}, nullptr, tmp.Join("nodata") + " has no data/"},
      {{enc}, &other, "wrong server key?"},
      {{plain}, &key, "not encrypted, but a server key was given"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.expect);
    for (StrategyChoice choice : test::kAllStrategyChoices) {
      OpenResult r;
      Status s = fs::OpenBlockManager(test::OpenOptions(tc.roots, tc.key, choice), &r);
      ASSERT_FALSE(s.ok());
      EXPECT_EQ(OpenResult::Failure::kUsage, r.failure);
      EXPECT_NE(std::string::npos, s.ToString().find(tc.expect)) << s.ToString();
      EXPECT_EQ(nullptr, r.block_map);
      EXPECT_EQ(0u, r.replay.fallbacks);  // recognised before any replay
    }
  }
  OpenResult r;
  ASSERT_OK(fs::OpenBlockManager(test::OpenOptions({enc}, &key), &r));
  EXPECT_EQ(2u, r.block_map->size());
}

// Without a key, an encrypted dir is not a usage error (§5: a dir is
// encrypted when it has a key): every metadata file starts with an
// encryption header where the PB container magic should be, which is damage
// like any bad magic (§2): fatal, each container reported, the message
// saying why the magic is bad.
TEST(BlockManagerOpenUsageTest, EncryptedDirWithoutAKeyIsDamageNotUsage) {
  TempDir tmp;
  ServerKey key = test::TestServerKey(16);
  const std::string enc = tmp.Join("enc");
  for (uint64_t i = 1; i <= 3; i++) {
    std::vector<BlockRecordPB> re = {MakeCreate(i, 4096, 10)};
    HandContainer c;
    ASSERT_OK(test::WriteHandContainer(enc, test::ContainerIdFor(i), 8192, &re, &key, &c));
  }
  for (StrategyChoice choice : test::kAllStrategyChoices) {
    OpenResult r;
    Status s = fs::OpenBlockManager(test::OpenOptions({enc}, nullptr, choice), &r);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(OpenResult::Failure::kInconsistent, r.failure);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find("offset 0: bad PB container magic"))
        << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find("no server key was given")) << s.ToString();
    json j = fs::FsReportJson(r);
    EXPECT_EQ(3u, j["corrupt_containers"].get<uint64_t>());
    EXPECT_EQ(3u, j["entries"]["corruption"].size());
  }
}

// The wrong-key check reads as little as it needs and is not fooled by a
// read that fails: with one metadata read failing, the other files decide.
TEST(BlockManagerOpenUsageTest, WrongKeyIsFoundWhenOneReadFails) {
  TempDir tmp;
  ServerKey key = test::TestServerKey(16), other = test::TestServerKey(24);
  const std::string enc = tmp.Join("enc"), plain = tmp.Join("plain");
  for (uint64_t i = 1; i <= 3; i++) {
    std::vector<BlockRecordPB> re = {MakeCreate(i, 4096, 10)};
    HandContainer c;
    ASSERT_OK(test::WriteHandContainer(enc, test::ContainerIdFor(i), 8192, &re, &key, &c));
    std::vector<BlockRecordPB> rp = {MakeCreate(i, 0, 10)};
    ASSERT_OK(test::WriteHandContainer(plain, test::ContainerIdFor(i), 8192, &rp, nullptr, &c));
  }
  struct Case {
    std::string root;
    const ServerKey* key;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {enc, &other, "none of the 2 metadata files tried reads with the key: wrong server key?"},
      {plain, &key, "(in all 2 metadata files tried): the data dirs are not encrypted"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.expect);
    OpenResult r;
    IoFaultInjector::Arm(IoOp::kRead, 1, IoFault::kEIO, ".metadata");
    Status s = fs::OpenBlockManager(test::OpenOptions({tc.root}, tc.key), &r);
    const bool fired = IoFaultInjector::Fired();
    IoFaultInjector::Disarm();
    ASSERT_TRUE(fired);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(OpenResult::Failure::kUsage, r.failure);
    EXPECT_NE(std::string::npos, s.ToString().find(tc.expect)) << s.ToString();
    EXPECT_EQ(nullptr, r.block_map);
    EXPECT_TRUE(r.containers.empty());  // before the listing: no report exists
  }
  // The right key: one read, whichever file.
  OpenResult r;
  ASSERT_OK(fs::OpenBlockManager(test::OpenOptions({enc}, &key), &r));
}

TEST(BlockManagerOpenUsageTest, EmptyDirOpensWithZeroContainers) {
  TempDir tmp;
  ASSERT_OK(env::CreateDirs(tmp.Join("d/data")));
  OpenResult r;
  ASSERT_OK(fs::OpenBlockManager(test::OpenOptions({tmp.Join("d")}, nullptr), &r));
  json j = fs::FsReportJson(r);
  EXPECT_EQ(0u, j["containers"].get<uint64_t>());
  EXPECT_EQ(0u, j["live_blocks"].get<uint64_t>());
  EXPECT_EQ("OK", j["status"]);
  EXPECT_EQ(1u, r.next_block_id);
}

}  // namespace
}  // namespace fs
}  // namespace kudu
