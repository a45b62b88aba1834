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

// `kill -9` at random points of `kudu fs check --repair` and of `kudu fs
// generate`, in a seeded loop. After a killed repair the dir must open
// without a fatal problem and with the live set it had before; after a
// killed generate every metadata file must be a prefix of the one an
// uninterrupted run with the same seed writes, and the dir must open. In
// both cases a repair of what was left must finish with the same live set
// and nothing left to repair.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/container_writer.h"
#include "kudu/fs/fs_report.h"
#include "kudu/fs/repair.h"
#include "kudu/fs/temp_files.h"
#include "kudu/util/env.h"
#include "util/fs_fixture_util.h"
#include "util/kudu_subprocess.h"
#include "util/lbm_corruptor.h"
#include "util/test_macros.h"
#include "util/test_util.h"

extern char** environ;

namespace kudu {
namespace fs {
namespace {

using fs::OpenResult;
using test::LiveSet;
using test::TempDir;

constexpr int kIterations = 20;
constexpr int64_t kBlocksPerContainer = 4;

// Runs kudu with `args` (output discarded) and, when `kill` is set, sends
// it SIGKILL after `delay`; returns true if the kill came first, false if it
// had exited (with `*exit_status`).
bool RunAndKill(const std::vector<std::string>& args, bool kill, std::chrono::microseconds delay,
                int* exit_status) {
  const std::string program = test::KuduBinary();
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  const int rc = posix_spawn(&pid, program.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  EXPECT_EQ(0, rc) << "posix_spawn of " << program;
  if (rc != 0) return false;
  if (kill) {
    std::this_thread::sleep_for(delay);
    ::kill(pid, SIGKILL);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  *exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

// Wall time of one uninterrupted run.
std::chrono::microseconds TimeRun(const std::vector<std::string>& args, int* exit_status) {
  const auto start = std::chrono::steady_clock::now();
  RunAndKill(args, /*kill=*/false, std::chrono::seconds(0), exit_status);
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               start);
}

class KillDuringRepairTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    key_ = test::TestServerKey(16);
    k_ = GetParam() ? &key_ : nullptr;
  }
  std::vector<std::string> Roots(const std::string& tree) const {
    return {tree + "/d0", tree + "/d1"};
  }
  std::vector<std::string> KeyArgs() const {
    if (k_ == nullptr) return {};
    return {"--server_key_hex=" + k_->ToHex()};
  }
  fs::BlockManagerOpenOptions Options(const std::vector<std::string>& roots, bool repair,
                                      int64_t max_blocks) const {
    fs::BlockManagerOpenOptions o = test::OpenOptions(roots, k_);
    o.threads_per_dir = 2;
    o.max_container_blocks = max_blocks;
    o.fs_block_size = 0;  // what the tool uses
    o.repair = repair;
    return o;
  }
  // Opens read-only (must not be fatal), repairs, reopens: clean, and the
  // same live set throughout. Returns the live set.
  LiveSet ExpectOpensAndRepairs(const std::vector<std::string>& roots, int64_t max_blocks,
                                const std::string& what) {
    OpenResult r;
    Status s = fs::OpenBlockManager(Options(roots, false, max_blocks), &r);
    EXPECT_TRUE(s.ok()) << what << ": " << s.ToString();
    const LiveSet live = test::LiveSetOf(r);
    OpenResult rep;
    s = fs::OpenBlockManager(Options(roots, true, max_blocks), &rep);
    EXPECT_TRUE(s.ok() && rep.repairs.status.ok())
        << what << ": repair: " << s.ToString() << " " << rep.repairs.status.ToString();
    OpenResult after;
    s = fs::OpenBlockManager(Options(roots, false, max_blocks), &after);
    EXPECT_TRUE(s.ok()) << what << ": " << s.ToString();
    EXPECT_EQ(live, test::LiveSetOf(after)) << what;
    const nlohmann::json j = fs::FsReportJson(after);
    for (const char* k : {"partial_records", "incomplete_containers", "dead_containers",
                          "low_live_containers", "leftover_tmp_files"}) {
      EXPECT_EQ(0u, j[k].get<uint64_t>()) << what << ": " << k;
    }
    return live;
  }

  ServerKey key_;
  const ServerKey* k_ = nullptr;
};

TEST_P(KillDuringRepairTest, KilledRepairKeepsTheLiveSet) {
  TempDir tmp;
  const std::string pristine = tmp.Join("pristine");
  const std::vector<std::string> roots = Roots(pristine);
  {
    // Something of every kind for the repair: dead and low-live full
    // containers, partial records, incomplete containers, a leftover.
    fs::ContainerWriterOptions o;
    o.data_dirs = roots;
    o.server_key = k_;
    o.seed = 21;
    o.max_container_blocks = kBlocksPerContainer;
    fs::LogWritableBlockManager w(o);
    ASSERT_OK(w.Open());
    std::mt19937 rng(3);
    std::vector<BlockId> live;
    for (int c = 0; c < 24; c++) {
      std::vector<std::string> bytes;
      std::vector<Slice> data;
      for (int i = 0; i < kBlocksPerContainer; i++) bytes.push_back(test::RandomBytes(700, static_cast<uint32_t>(rng())));
      for (const std::string& b : bytes) data.emplace_back(b);
      std::vector<BlockId> ids;
      ASSERT_OK(w.CreateBlocks(data, &ids));
      const int drop = c % 4 == 0 ? 4 : c % 4 == 1 ? 3 : 0;  // dead, low-live, kept
      ASSERT_OK(w.DeleteBlocks(std::vector<BlockId>(ids.begin(), ids.begin() + drop)));
    }
    ASSERT_OK(w.Close());
    test::LbmCorruptor::Options co;
    co.roots = roots;
    co.server_key = k_;
    co.max_container_blocks = kBlocksPerContainer;
    co.seed = 9;
    test::LbmCorruptor corruptor(co);
    ASSERT_OK(corruptor.Init());
    for (int i = 0; i < 4; i++) {
      ASSERT_OK(corruptor.AddPartialRecord(static_cast<test::PartialKind>(i % 3)));
      ASSERT_OK(corruptor.CreateIncompleteContainer(static_cast<test::IncompleteKind>(i)));
    }
    std::vector<std::string> names;
    ASSERT_OK(env::ListDir(roots[0] + "/data", &names));
    for (const std::string& name : names) {
      std::string id;
      bool is_metadata = false;
      if (fs::ParseContainerFileName(name, &id, &is_metadata) && is_metadata) {
        ASSERT_OK(test::WriteStringToFile(fs::NewTempFilePath(roots[0] + "/data/" + name),
                                          "half"));
        break;
      }
    }
  }
  OpenResult before;
  ASSERT_OK(fs::OpenBlockManager(Options(roots, false, kBlocksPerContainer), &before));
  const LiveSet live = test::LiveSetOf(before);
  ASSERT_FALSE(live.empty());

  auto args_for = [&](const std::string& tree) {
    std::vector<std::string> a = {"fs", "check", "--repair",
                                  "--fs_data_dirs=" + tree + "/d0," + tree + "/d1",
                                  "--log_container_max_blocks=" + std::to_string(kBlocksPerContainer)};
    for (const std::string& k : KeyArgs()) a.push_back(k);
    return a;
  };
  int exit_status = -1;
  const std::string timed = tmp.Join("timed");
  ASSERT_OK(test::CopyTree(pristine, timed));
  const auto full = TimeRun(args_for(timed), &exit_status);
  ASSERT_EQ(0, exit_status) << "an uninterrupted repair must succeed";
  EXPECT_EQ(live, ExpectOpensAndRepairs(Roots(timed), kBlocksPerContainer, "uninterrupted"));

  std::mt19937_64 rng(GetParam() ? 77 : 7);
  int killed = 0;
  for (int it = 0; it < kIterations; it++) {
    const std::string work = tmp.Join("kill" + std::to_string(it));
    ASSERT_OK(test::CopyTree(pristine, work));
    const auto delay = std::chrono::microseconds(rng() % (full.count() + 1));
    const bool was_killed = RunAndKill(args_for(work), /*kill=*/true, delay, &exit_status);
    if (was_killed) {
      killed++;
    } else {
      EXPECT_EQ(0, exit_status);
    }
    const std::string what = "iteration " + std::to_string(it) + ", killed after " +
                             std::to_string(delay.count()) + " us";
    EXPECT_EQ(live, ExpectOpensAndRepairs(Roots(work), kBlocksPerContainer, what)) << what;
    ASSERT_OK(env::DeleteRecursively(work));
    if (HasFailure()) break;
  }
  std::cout << "kill -9 of repair: " << kIterations << " runs, " << killed
            << " killed before the end (an uninterrupted one takes " << full.count() << " us)"
            << std::endl;
}

TEST_P(KillDuringRepairTest, KilledGenerateLeavesAPrefix) {
  TempDir tmp;
  auto args_for = [&](const std::string& tree) {
    std::vector<std::string> a = {"fs", "generate",
                                  "--fs_data_dirs=" + tree + "/d0," + tree + "/d1",
                                  "--containers=6", "--blocks_per_container=150",
                                  "--deleted_block_percentage=20", "--seed=5"};
    if (k_ != nullptr) a.push_back("--encrypt");
    for (const std::string& k : KeyArgs()) a.push_back(k);
    return a;
  };
  auto make_roots = [&](const std::string& tree) {
    for (const std::string& r : Roots(tree)) ASSERT_OK(env::CreateDirs(r));
  };
  const std::string full_tree = tmp.Join("full");
  make_roots(full_tree);
  int exit_status = -1;
  const auto first = TimeRun(args_for(full_tree), &exit_status);
  ASSERT_EQ(0, exit_status) << "an uninterrupted generate must succeed";
  const int64_t max_blocks = -1;  // generate fills containers by its own count
  ExpectOpensAndRepairs(Roots(full_tree), max_blocks, "uninterrupted");
  const std::string full_again = tmp.Join("full_again");
  make_roots(full_again);
  // The faster of two runs: the first also pays for a cold binary.
  const auto full = std::min(first, TimeRun(args_for(full_again), &exit_status));
  ASSERT_EQ(0, exit_status);
  const auto reference = test::SnapshotFiles(full_again);

  std::mt19937_64 rng(GetParam() ? 55 : 5);
  int killed = 0;
  int before_dirs = 0;
  int half_formatted = 0;
  for (int it = 0; it < kIterations; it++) {
    const std::string work = tmp.Join("kill" + std::to_string(it));
    make_roots(work);
    const auto delay = std::chrono::microseconds(rng() % (full.count() + 1));
    if (RunAndKill(args_for(work), /*kill=*/true, delay, &exit_status)) killed++;
    const std::string what = "iteration " + std::to_string(it) + ", killed after " +
                             std::to_string(delay.count()) + " us";
    const auto files = test::SnapshotFiles(work);
    bool all_dirs = true;
    for (const std::string& r : Roots(work)) all_dirs &= env::FileExists(r + "/data");
    if (!all_dirs) {
      // Killed while laying out the roots, before every data/ dir: at most
      // instance files and the format's temporary files, no container, and
      // the roots are not data dirs (a usage error for the tool, not a
      // state).
      for (const auto& kv : files) {
        const std::string rel = kv.first.substr(work.size());
        EXPECT_TRUE(test::Contains(rel, "instance") || test::Contains(rel, ".kudutmp."))
            << what << ": " << kv.first;
      }
      before_dirs++;
      ASSERT_OK(env::DeleteRecursively(work));
      continue;
    }
    size_t formatted = 0;
    for (const std::string& r : Roots(work)) {
      formatted += env::FileExists(r + "/data/block_manager_instance") ? 1 : 0;
    }
    if (formatted > 0 && formatted < Roots(work).size()) {
      // Killed while laying out the instance files, before any container:
      // a half-formatted server, which the open refuses naming the missing
      // file (a failed dir, as Kudu has it), before any report.
      for (const auto& kv : files) EXPECT_FALSE(test::Contains(kv.first, ".metadata")) << what;
      OpenResult r;
      Status s = fs::OpenBlockManager(Options(Roots(work), false, max_blocks), &r);
      EXPECT_EQ(OpenResult::Failure::kInstance, r.failure) << what << ": " << s.ToString();
      EXPECT_TRUE(test::Contains(s.ToString(), "block_manager_instance is missing")) << s.ToString();
      half_formatted++;
      ASSERT_OK(env::DeleteRecursively(work));
      continue;
    }
    // Every metadata file is a prefix of the uninterrupted run's.
    for (const auto& kv : files) {
      const std::string rel = kv.first.substr(work.size());
      if (!test::Contains(rel, ".metadata")) continue;
      auto ref = reference.find(full_again + rel);
      ASSERT_NE(ref, reference.end()) << what << ": " << rel << " is not in the full run";
      EXPECT_EQ(ref->second.substr(0, kv.second.size()), kv.second)
          << what << ": " << rel << " is not a prefix of the full run's";
    }
    ExpectOpensAndRepairs(Roots(work), max_blocks, what);
    ASSERT_OK(env::DeleteRecursively(work));
    if (HasFailure()) break;
  }
  std::cout << "kill -9 of generate: " << kIterations << " runs, " << killed
            << " killed before the end, " << before_dirs
            << " of them before its data dirs existed, " << half_formatted
            << " while writing the instance files (an uninterrupted one takes "
            << full.count() << " us)" << std::endl;
}

INSTANTIATE_TEST_SUITE_P(PlainAndEncrypted, KillDuringRepairTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? "encrypted" : "plain";
                         });

}  // namespace
}  // namespace fs
}  // namespace kudu
