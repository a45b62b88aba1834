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

// The flags every `kudu fs` action honours (docs/tool-contract.md, "Flags
// every fs subcommand honours"), run as subprocesses: each action takes
// each of them, lists them in its help, and still refuses the flags of
// other actions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kudu/util/env.h"
#include "util/kudu_subprocess.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using test::Describe;
using test::RunKudu;
using test::RunResult;
using test::TempDir;

// One value of each flag of the contract's table, valid for a healthy
// generated dir (the directory flags are given by every case anyway).
const std::vector<std::string>& TableFlags() {
  static const auto* flags = new std::vector<std::string>{
      "--fs_max_thread_count_per_data_dir=2",
      "--log_container_metadata_replay_strategy=streaming",
      "--log_container_metadata_inmem_replay_threshold_bytes=1048576",
      "--log_container_metadata_replay_memory_budget_bytes=4194304",
      "--log_container_max_size=10737418240",
      "--log_container_max_blocks=-1",
      "--log_container_metadata_max_size=0",
      "--log_container_excess_space_before_cleanup_fraction=0.10",
      "--log_container_live_metadata_before_compact_ratio=0.50",
      "--log_container_metadata_runtime_compact=false",
      "--log_container_metadata_size_before_compact_ratio=0.80",
      "--server_key_hex=",
      "--encrypt_data_at_rest=false",
      "--encryption_key_length=256",
      "--containers=3",
      "--blocks_per_container=20",
      "--deleted_block_percentage=10",
  };
  return *flags;
}

// "--name=value" → "name".
std::string FlagName(const std::string& arg) {
  return arg.substr(2, arg.find('=') - 2);
}

class ToolFsFlagsTest : public ::testing::Test {
 protected:
  // A healthy dir: generate's summary line, exit 0.
  std::string Generate(const std::string& name, const std::vector<std::string>& more = {}) {
    const std::string root = tmp_.Join(name);
    std::vector<std::string> args = {"fs", "generate", "--fs_data_dirs=" + root, "--containers=3",
                                     "--blocks_per_container=20"};
    args.insert(args.end(), more.begin(), more.end());
    RunResult r = RunKudu(tmp_, args);
    EXPECT_EQ(0, r.exit_status) << Describe(r);
    return root;
  }
  // A live block id of a generated dir, for locate_block.
  std::string LiveBlockId(const std::string& root) {
    const std::string live = test::Slurp(root + "/generate_live_blocks.txt");
    return live.substr(0, live.find(' '));
  }

  TempDir tmp_;
};

// check, list and locate_block take every flag of the table on a healthy
// dir (exit 0), one at a time and all at once; the flags of other actions
// are still refused.
TEST_F(ToolFsFlagsTest, ReadOnlyActionsTakeEveryTableFlag) {
  const std::string root = Generate("d");
  const std::string dirs = "--fs_data_dirs=" + root;
  const std::vector<std::vector<std::string>> actions = {
      {"fs", "check", dirs}, {"fs", "list", dirs}, {"fs", "locate_block", dirs, LiveBlockId(root)}};
  for (const auto& action : actions) {
    SCOPED_TRACE(action[1]);
    std::vector<std::string> all = action;
    for (const std::string& flag : TableFlags()) {
      SCOPED_TRACE(flag);
      std::vector<std::string> args = action;
      args.push_back(flag);
      RunResult r = RunKudu(tmp_, args);
      EXPECT_EQ(0, r.exit_status) << Describe(r);
      all.push_back(flag);
    }
    RunResult r = RunKudu(tmp_, all);
    EXPECT_EQ(0, r.exit_status) << Describe(r);
  }
  // A flag of another action is still a usage error naming it.
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"fs", "list", dirs, "--repair"},
           {"fs", "locate_block", dirs, LiveBlockId(root), "--repair"},
           {"fs", "check", dirs, "--seed=3"}}) {
    RunResult r = RunKudu(tmp_, args);
    EXPECT_EQ(2, r.exit_status) << Describe(r);
    EXPECT_EQ("", r.out);
    EXPECT_NE(std::string::npos, r.err.find("does not take --")) << r.err;
  }
}

// generate and bench take them too: generate checks the replay flags it
// does not use, bench opens the dir it is given.
TEST_F(ToolFsFlagsTest, GenerateAndBenchTakeEveryTableFlag) {
  std::vector<std::string> gen = {"fs", "generate", "--fs_data_dirs=" + tmp_.Join("g")};
  for (const std::string& flag : TableFlags()) gen.push_back(flag);
  RunResult g = RunKudu(tmp_, gen);
  ASSERT_EQ(0, g.exit_status) << Describe(g);

  std::vector<std::string> bench = {"fs", "bench", "--fs_data_dirs=" + tmp_.Join("g"),
                                    "--bench_repetitions=1"};
  for (const std::string& flag : TableFlags()) bench.push_back(flag);
  RunResult b = RunKudu(tmp_, bench);
  EXPECT_EQ(0, b.exit_status) << Describe(b);

  // A bad value is a usage error for them too, even of a flag they do not
  // use: a replay flag for generate (before it writes anything), the
  // classification flags' combination for both.
  RunResult bad = RunKudu(tmp_, {"fs", "generate", "--fs_data_dirs=" + tmp_.Join("h"),
                                 "--log_container_metadata_replay_strategy=bogus"});
  EXPECT_EQ(2, bad.exit_status) << Describe(bad);
  EXPECT_NE(std::string::npos, bad.err.find("bogus")) << bad.err;
  EXPECT_FALSE(env::FileExists(tmp_.Join("h")));
  for (const char* action : {"generate", "bench"}) {
    SCOPED_TRACE(action);
    const std::string dir = tmp_.Join(std::string(action) == "generate" ? "h" : "g");
    RunResult r = RunKudu(tmp_, {"fs", action, "--fs_data_dirs=" + dir,
                                 "--log_container_metadata_runtime_compact",
                                 "--log_container_metadata_size_before_compact_ratio=0"});
    EXPECT_EQ(2, r.exit_status) << Describe(r);
    EXPECT_EQ("", r.out);
    EXPECT_NE(std::string::npos, r.err.find("--log_container_metadata_size_before_compact_ratio"))
        << r.err;
  }
}

// Every fs action's help lists the table's flags, and a key length other
// than 128, 192 or 256 is a usage error naming the flag for each of them.
TEST_F(ToolFsFlagsTest, HelpListsThemAndBadKeyLengthIsAUsageErrorEverywhere) {
  const std::string root = Generate("d");
  for (const char* action : {"check", "list", "locate_block", "generate", "bench"}) {
    SCOPED_TRACE(action);
    RunResult h = RunKudu(tmp_, {"fs", action, "--help"});
    ASSERT_EQ(0, h.exit_status) << Describe(h);
    for (const std::string& flag : TableFlags()) {
      EXPECT_NE(std::string::npos, h.out.find("  -" + FlagName(flag) + " (")) << flag;
    }
    const std::string dirs = "--fs_data_dirs=" + (std::string(action) == "generate"
                                                      ? tmp_.Join(std::string("new-") + action)
                                                      : root);
    for (const char* bits : {"100", "0", "512", "abc"}) {
      RunResult r = RunKudu(tmp_, {"fs", action, dirs, std::string("--encryption_key_length=") +
                                                        bits});
      EXPECT_EQ(2, r.exit_status) << Describe(r);
      EXPECT_EQ("", r.out);
      EXPECT_NE(std::string::npos, r.err.find("--encryption_key_length")) << r.err;
    }
  }
}

}  // namespace
}  // namespace kudu
