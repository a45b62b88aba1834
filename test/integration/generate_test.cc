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

// End-to-end tests of `kudu fs generate`, run as a subprocess the way an
// operator runs it: the files it leaves are read back with the reference
// reader and replayed independently, and must match the live-block list it
// wrote exactly; the same seed must give the same bytes; bad input must give
// exit status 2 and one line on stderr.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "kudu/fs/fs.pb.h"
#include "kudu/fs/instance_files.h"
#include "kudu/util/encryption.h"
#include "kudu/util/env.h"
#include "util/reference_replay_util.h"
#include "util/kudu_subprocess.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using test::ReferenceReplay;
using test::ReplayDataDirs;
using test::Describe;
using test::KuduBinary;
using test::RunKudu;
using test::RunProgram;
using test::RunResult;
using test::TempDir;


// 16-byte server key as hex, and the same key in the test key provider form.
constexpr char kKeyHex[] = "000102030405060708090a0b0c0d0e0f";


size_t CountLines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

class GenerateTest : public ::testing::Test {
 protected:
  // Generates into `roots` and checks the result against an independent
  // replay through the reference reader.
  void GenerateAndVerify(const std::vector<std::string>& roots, int containers, int blocks,
                         int deleted_pct, const std::vector<std::string>& extra,
                         const ServerKey* key) {
    std::string dirs;
    for (const std::string& r : roots) dirs += (dirs.empty() ? "" : ",") + r;
    std::vector<std::string> args = {"fs",
                                     "generate",
                                     "--fs_data_dirs=" + dirs,
                                     "--containers=" + std::to_string(containers),
                                     "--blocks_per_container=" + std::to_string(blocks),
                                     "--deleted_block_percentage=" + std::to_string(deleted_pct)};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = RunKudu(tmp_, args);
    ASSERT_EQ(0, r.exit_status) << Describe(r);
    EXPECT_EQ(1u, CountLines(r.out)) << r.out;
    EXPECT_NE(std::string::npos,
              r.out.find(std::to_string(containers) + (containers == 1 ? " container " : " containers ")))
        << r.out;

    ReferenceReplay replay;
    ASSERT_OK(ReplayDataDirs(roots, key, &replay));
    std::string listed;
    ASSERT_OK(test::ReadFileToString(env::JoinPath(roots[0], "generate_live_blocks.txt"), &listed));
    ASSERT_TRUE(test::SameLines(test::FormatLiveBlocks(replay.live), listed));

    const uint64_t total = static_cast<uint64_t>(containers) * blocks;
    const uint64_t deleted = (total * deleted_pct + 50) / 100;
    EXPECT_EQ(total - deleted, replay.live.size());
    ASSERT_EQ(static_cast<size_t>(containers), replay.records.size());

    // Containers spread round-robin over the dirs.
    std::map<std::string, int> per_root;
    for (const auto& e : replay.container_root) per_root[e.second]++;
    for (const std::string& root : roots) {
      EXPECT_NEAR(static_cast<double>(containers) / roots.size(), per_root[root], 1.0) << root;
    }

    // Every container holds exactly `blocks` CREATE records, and deletions
    // are spread over the run as a server's are, not written at the end.
    uint64_t deletes = 0;
    std::vector<uint64_t> create_ts, delete_ts;
    for (const auto& e : replay.records) {
      int creates = 0;
      for (const BlockRecordPB& rec : e.second) {
        if (rec.op_type() == CREATE) {
          creates++;
          create_ts.push_back(rec.timestamp_us());
        } else {
          deletes++;
          delete_ts.push_back(rec.timestamp_us());
        }
      }
      EXPECT_EQ(blocks, creates) << e.first;
    }
    EXPECT_EQ(deleted, deletes);
    if (deleted >= 100) {
      std::sort(create_ts.begin(), create_ts.end());
      const uint64_t median_create = create_ts[create_ts.size() / 2];
      const uint64_t early = std::count_if(delete_ts.begin(), delete_ts.end(),
                                           [&](uint64_t t) { return t < median_create; });
      EXPECT_GT(early, deletes * 3 / 10) << "deletes cluster at the end";
      EXPECT_LT(early, deletes * 7 / 10) << "deletes cluster at the start";
    }
    // Block layout: aligned offsets, plausible skewed sizes.
    uint64_t bs = 0;
    ASSERT_OK(env::GetBlockSize(env::JoinPath(roots[0], "data"), &bs));
    uint64_t small = 0, sum = 0;
    for (const auto& e : replay.live) {
      EXPECT_EQ(0, e.second.offset % static_cast<int64_t>(bs));
      if (key != nullptr) {
        EXPECT_GE(e.second.offset, static_cast<int64_t>(bs < 64 ? 64 : bs));
      }
      EXPECT_GE(e.second.length, 64);
      EXPECT_LE(e.second.length, 64 * 1024);
      if (e.second.length <= 4096) small++;
      sum += e.second.length;
    }
    if (!replay.live.empty()) {
      EXPECT_GT(small, replay.live.size() * 8 / 10);
      EXPECT_LT(sum / replay.live.size(), 8192u);
    }
  }

  TempDir tmp_;
};

TEST_F(GenerateTest, PlainMatchesReferenceReplay) {
  GenerateAndVerify({tmp_.Join("d1"), tmp_.Join("d2")}, 100, 1000, 50, {}, nullptr);
}

TEST_F(GenerateTest, EncryptedMatchesReferenceReplay) {
  ServerKey key;
  ASSERT_OK(ServerKey::FromHex(kKeyHex, &key));
  const std::vector<std::string> roots = {tmp_.Join("e1"), tmp_.Join("e2")};
  GenerateAndVerify(roots, 100, 1000, 50, {"--encrypt", std::string("--server_key_hex=") + kKeyHex},
                    &key);
  // Every file carries the kuduenc header.
  for (const std::string& root : roots) {
    std::vector<std::string> names;
    ASSERT_OK(env::ListDir(env::JoinPath(root, "data"), &names));
    ASSERT_FALSE(names.empty());
    for (const std::string& n : names) {
      if (n == "block_manager_instance") continue;  // never encrypted (§1)
      std::string raw;
      ASSERT_OK(test::ReadFileToString(env::JoinPath(env::JoinPath(root, "data"), n), &raw));
      EXPECT_EQ("kuduenc", raw.substr(0, 7)) << n;
    }
  }
  // Without the key the files are not readable as containers.
  ReferenceReplay replay;
  EXPECT_FALSE(ReplayDataDirs(roots, nullptr, &replay).ok());
}

TEST_F(GenerateTest, SmallEdgeCases) {
  GenerateAndVerify({tmp_.Join("s1")}, 3, 1, 100, {}, nullptr);
  ServerKey key;
  ASSERT_OK(ServerKey::FromHex(std::string(64, 'a'), &key));
  GenerateAndVerify({tmp_.Join("s2"), tmp_.Join("s3"), tmp_.Join("s4")}, 7, 13, 0,
                    {"--encrypt", "--encryption_key_length=256",
                     "--server_key_hex=" + std::string(64, 'a')},
                    &key);
  GenerateAndVerify({tmp_.Join("s5")}, 0, 10, 10, {}, nullptr);
}

// The list of live blocks is written to a temporary name and renamed: when
// that fails (here the rename, onto a directory; on a full disk the write),
// generate fails and leaves no temporary file of its own behind.
TEST_F(GenerateTest, AFailedLiveBlocksFileLeavesNoTemporaryFile) {
  const std::string root = tmp_.Join("r");
  ASSERT_OK(env::CreateDirs(env::JoinPath(root, "generate_live_blocks.txt/in-the-way")));
  RunResult r = RunKudu(tmp_, {"fs", "generate", "--fs_data_dirs=" + root, "--containers=2",
                               "--blocks_per_container=3"});
  EXPECT_EQ(1, r.exit_status) << Describe(r);
  EXPECT_NE(std::string::npos, r.err.find("generate_live_blocks.txt")) << r.err;
  EXPECT_FALSE(env::FileExists(env::JoinPath(root, "generate_live_blocks.txt.tmp")));
}

// Byte-identical output for the same seed (ciphertext included), different
// output for another seed, and the test key provider form of a key gives the
// same files as the key itself.
TEST_F(GenerateTest, SameSeedSameBytes) {
  std::string provider_hex;
  {
    std::string bytes;
    ServerKey key;
    ASSERT_OK(ServerKey::FromHex(kKeyHex, &key));
    ServerKey wrapped = ServerKey::FromBytes([&] {
      std::string b = key.bytes();
      for (char& c : b) c = static_cast<char>(c ^ 42);
      return b;
    }());
    provider_hex = wrapped.ToHex();
  }
  struct Run {
    std::string root;
    std::vector<std::string> flags;
  };
  const std::vector<Run> runs = {
      {tmp_.Join("r1"), {"--seed=7", std::string("--server_key_hex=") + kKeyHex}},
      {tmp_.Join("r2"), {"--seed=7", std::string("--server_key_hex=") + kKeyHex}},
      {tmp_.Join("r3"), {"--seed=7", "--server_key_test_provider_hex=" + provider_hex}},
      {tmp_.Join("r4"), {"--seed=8", std::string("--server_key_hex=") + kKeyHex}},
  };
  std::vector<std::map<std::string, std::string>> contents;
  for (const Run& run : runs) {
    std::vector<std::string> args = {"fs", "generate", "--fs_data_dirs=" + run.root,
                                     "--containers=6", "--blocks_per_container=150",
                                     "--deleted_block_percentage=30", "--encrypt"};
    args.insert(args.end(), run.flags.begin(), run.flags.end());
    RunResult r = RunKudu(tmp_, args);
    ASSERT_EQ(0, r.exit_status) << Describe(r);
    std::map<std::string, std::string> files;
    std::vector<std::string> names;
    ASSERT_OK(env::ListDir(env::JoinPath(run.root, "data"), &names));
    for (const std::string& n : names) {
      // Its uuids are random, as Kudu's format makes them.
      if (n == "block_manager_instance") continue;
      ASSERT_OK(test::ReadFileToString(env::JoinPath(env::JoinPath(run.root, "data"), n), &files[n]));
    }
    ASSERT_OK(test::ReadFileToString(env::JoinPath(run.root, "generate_live_blocks.txt"),
                                     &files["generate_live_blocks.txt"]));
    contents.push_back(std::move(files));
  }
  ASSERT_EQ(13u, contents[0].size());
  EXPECT_TRUE(contents[0] == contents[1]);
  EXPECT_TRUE(contents[0] == contents[2]);
  EXPECT_FALSE(contents[0] == contents[3]);
}

TEST_F(GenerateTest, BadInputIsAUsageError) {
  const std::string file = tmp_.Join("a-file");
  ASSERT_OK(test::WriteStringToFile(file, "x"));
  const std::string ok_dir = "--fs_data_dirs=" + tmp_.Join("bad");
  const std::vector<std::vector<std::string>> cases = {
      {"fs", "generate", ok_dir, "--no_such_flag=1"},
      {"fs", "generate", "--fs_data_dirs=" + file},
      {"fs", "generate", "--fs_data_dirs=" + file + "/sub"},
      {"fs", "generate", ok_dir, "--encrypt", "--server_key_hex=00112233"},
      {"fs", "generate", ok_dir, "--encrypt", "--server_key_hex=" + std::string(34, '1')},
      {"fs", "generate", ok_dir, "--encrypt", "--server_key_hex=zz" + std::string(30, '1')},
      {"fs", "generate", ok_dir, "--deleted_block_percentage=101"},
      {"fs", "generate", ok_dir, "--blocks_per_container=0"},
      {"fs", "generate", ok_dir, "--encrypt", std::string("--server_key_hex=") + kKeyHex,
       "--encryption_key_length=100"},
      {"fs", "generate", ok_dir, "--containers=abc"},
      // Their product would wrap around 2^64 into a small count.
      {"fs", "generate", ok_dir, "--containers=4611686018427387904", "--blocks_per_container=4"},
      {"fs", "generate", ok_dir, "--containers=3", "--blocks_per_container=6148914691236517206"},
  };
  std::vector<std::vector<std::string>> all = cases;
  if (::geteuid() != 0) {
    // Permissions do not stop root, so this case only runs unprivileged.
    const std::string ro = tmp_.Join("read-only");
    ASSERT_OK(env::CreateDirs(ro));
    ASSERT_EQ(0, ::chmod(ro.c_str(), 0555));
    all.push_back({"fs", "generate", "--fs_data_dirs=" + ro});
  }
  for (const auto& args : all) {
    std::string cmd;
    for (const auto& a : args) cmd += " " + a;
    SCOPED_TRACE(cmd);
    RunResult r = RunKudu(tmp_, args);
    EXPECT_EQ(2, r.exit_status) << Describe(r);
    EXPECT_EQ(1u, CountLines(r.err)) << r.err;
    EXPECT_GT(r.err.size(), 10u);
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // Without a dir, the action's help comes first, then the one error line.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"fs", "generate"},
        std::vector<std::string>{"fs", "generate", "--fs_data_dirs="}}) {
    RunResult r = RunKudu(tmp_, args);
    EXPECT_EQ(2, r.exit_status) << Describe(r);
    EXPECT_EQ(0u, r.err.rfind("Usage: kudu fs generate", 0)) << r.err;
    EXPECT_NE(std::string::npos, r.err.find("\nkudu: error: --fs_wal_dir or --fs_data_dirs"))
        << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // Nothing was generated by any of them.
  EXPECT_FALSE(env::FileExists(env::JoinPath(tmp_.Join("bad"), "generate_live_blocks.txt")));

  // A second generate into the same dirs is refused rather than mixed in.
  const std::string dir = tmp_.Join("twice");
  RunResult first = RunKudu(tmp_, {"fs", "generate", "--fs_data_dirs=" + dir, "--containers=1",
                                   "--blocks_per_container=5"});
  ASSERT_EQ(0, first.exit_status) << Describe(first);
  RunResult second = RunKudu(tmp_, {"fs", "generate", "--fs_data_dirs=" + dir});
  EXPECT_EQ(2, second.exit_status) << Describe(second);
  EXPECT_EQ(1u, CountLines(second.err)) << second.err;
}

// Generate writes into roots laid out whole, locking them, or into roots
// with no layout, formatting them; what is in between is refused before
// anything is written. A dir with a key is encrypted, however the key came.
TEST_F(GenerateTest, WhatTheRootsHoldDecides) {
  auto generate = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"fs", "generate", "--containers=2",
                                     "--blocks_per_container=5"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunKudu(tmp_, args);
  };
  auto containers_in = [](const std::string& root) {
    std::vector<std::string> names;
    (void)env::ListDir(env::JoinPath(root, "data"), &names);
    return std::count_if(names.begin(), names.end(), [](const std::string& n) {
      return n.size() > 5 && n.compare(n.size() - 5, 5, ".data") == 0;
    });
  };

  // An instance without the block_manager_instance to lock.
  const std::string a = tmp_.Join("a"), b = tmp_.Join("b");
  ASSERT_EQ(0, generate({"--fs_data_dirs=" + a, "--containers=0"}).exit_status);
  ASSERT_OK(env::DeleteFile(env::JoinPath(a, "data/block_manager_instance")));
  RunResult partial = generate({"--fs_data_dirs=" + a});
  EXPECT_EQ(2, partial.exit_status) << Describe(partial);
  EXPECT_NE(std::string::npos, partial.err.find(env::JoinPath(a, "data/block_manager_instance")))
      << partial.err;
  EXPECT_EQ(0, containers_in(a));
  // One root formatted, one not: the other gets nothing either.
  RunResult mixed = generate({"--fs_data_dirs=" + b + "," + a});
  EXPECT_EQ(2, mixed.exit_status) << Describe(mixed);
  EXPECT_FALSE(env::FileExists(b + "/instance"));
  EXPECT_FALSE(env::FileExists(b + "/data"));

  // Instance files that disagree: exit 1, and the roots are as they were.
  const std::string c = tmp_.Join("c"), d = tmp_.Join("d");
  ASSERT_EQ(0, generate({"--fs_data_dirs=" + c + "," + d, "--containers=0"}).exit_status);
  InstanceMetadataPB inst;
  ASSERT_OK(fs::ReadPBContainerFromPath(fs::InstanceFilePath(d), &inst));
  inst.set_uuid(std::string(32, 'f'));
  ASSERT_OK(fs::WritePBContainerToPath(fs::InstanceFilePath(d), inst));
  RunResult mismatch = generate({"--fs_data_dirs=" + c + "," + d});
  EXPECT_EQ(1, mismatch.exit_status) << Describe(mismatch);
  EXPECT_EQ(0, containers_in(c) + containers_in(d));

  // A key stored by an earlier format encrypts without --encrypt, and a key
  // flag alone encrypts and is stored: either state opens without a flag.
  const std::string e = tmp_.Join("e"), f = tmp_.Join("f");
  ASSERT_EQ(0, generate({"--fs_data_dirs=" + e, "--containers=0", "--encrypt"}).exit_status);
  for (const auto& run : {generate({"--fs_data_dirs=" + e}),
                          generate({"--fs_data_dirs=" + f,
                                    std::string("--server_key_hex=") + kKeyHex})}) {
    EXPECT_EQ(0, run.exit_status) << Describe(run);
    EXPECT_NE(std::string::npos, run.out.find(", encrypted,")) << run.out;
  }
  for (const std::string& root : {e, f}) {
    RunResult check = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + root, "--format=json"});
    EXPECT_EQ(0, check.exit_status) << Describe(check);
    EXPECT_NE(std::string::npos, check.out.find("\"encrypted\": true")) << check.out;
  }
}

// Roots under two names, or that cannot be made, are usage errors that
// change nothing: a WAL root that is the data root through a symlink (Kudu's
// format fails on its second instance file), in either order of the two
// names, two data roots that are one directory, and a symlink that does not
// resolve. A WAL root that exists but cannot be written is no obstacle once
// the roots are formatted: only a format writes there. A format that fails
// part way leaves no instance file behind to make the roots "partly
// formatted" for the next run.
TEST_F(GenerateTest, RootsUnderTwoNamesOrUnmakeable) {
  auto generate = [&](const std::vector<std::string>& dirs) {
    std::vector<std::string> args = {"fs", "generate", "--containers=2", "--blocks_per_container=3"};
    args.insert(args.end(), dirs.begin(), dirs.end());
    return RunKudu(tmp_, args);
  };
  auto expect_refused = [&](const std::vector<std::string>& dirs, const std::string& why,
                            const std::vector<std::string>& untouched) {
    RunResult r = generate(dirs);
    EXPECT_EQ(2, r.exit_status) << Describe(r);
    EXPECT_NE(std::string::npos, r.err.find(why)) << r.err;
    for (const std::string& p : untouched) EXPECT_FALSE(env::FileExists(p)) << p;
  };
  const std::string a = tmp_.Join("a"), w = tmp_.Join("w");
  ASSERT_EQ(0, ::symlink(a.c_str(), w.c_str()));  // dangling until a is made
  expect_refused({"--fs_data_dirs=" + a, "--fs_wal_dir=" + w}, "does not resolve", {a});
  expect_refused({"--fs_data_dirs=" + w, "--fs_wal_dir=" + a}, "does not resolve", {a});
  ASSERT_OK(env::CreateDirs(a));
  expect_refused({"--fs_data_dirs=" + a, "--fs_wal_dir=" + w}, "are the same directory",
                 {env::JoinPath(a, "instance"), env::JoinPath(a, "data")});

  // A bind mount: one directory under two real paths (in a private mount
  // namespace; skipped where one cannot be made).
  const std::string x = tmp_.Join("x"), y = tmp_.Join("y");
  ASSERT_OK(env::CreateDirs(x));
  ASSERT_OK(env::CreateDirs(y));
  const std::string script = "mount --bind " + x + " " + y + " || exit 77; exec " +
                             test::KuduBinary() + " fs generate --containers=1 --fs_data_dirs=" + x +
                             " --fs_wal_dir=" + y;
  RunResult bound = RunProgram(tmp_, "unshare", {"-m", "sh", "-c", script});
  if (bound.exit_status != 77 && bound.err.find("unshare failed") == std::string::npos) {
    EXPECT_EQ(2, bound.exit_status) << Describe(bound);
    EXPECT_NE(std::string::npos, bound.err.find("are the same directory")) << bound.err;
    EXPECT_FALSE(env::FileExists(env::JoinPath(x, "data")));
  }

  const std::string b = tmp_.Join("b"), c = tmp_.Join("c");
  ASSERT_EQ(0, ::symlink(b.c_str(), c.c_str()));
  ASSERT_OK(env::CreateDirs(b));
  expect_refused({"--fs_data_dirs=" + b + "," + c}, "are the same directory",
                 {env::JoinPath(b, "instance"), env::JoinPath(b, "data")});
  RunResult once = generate({"--fs_data_dirs=" + b});
  EXPECT_EQ(0, once.exit_status) << Describe(once);

  // Formatted (with no containers yet) with a WAL root of its own, which
  // then becomes read-only: generate writes only into the data roots. As
  // root, without the capabilities that override permissions.
  const std::string fa = tmp_.Join("fa"), fw = tmp_.Join("fw");
  RunResult formatted = generate({"--fs_data_dirs=" + fa, "--fs_wal_dir=" + fw, "--containers=0"});
  ASSERT_EQ(0, formatted.exit_status) << Describe(formatted);
  ASSERT_EQ(0, ::chmod(fw.c_str(), 0555));
  std::vector<std::string> args = {"fs", "generate", "--containers=2", "--blocks_per_container=3",
                                   "--fs_data_dirs=" + fa, "--fs_wal_dir=" + fw};
  if (::geteuid() == 0) {
    args.insert(args.begin(), {"--bounding-set=-dac_override,-dac_read_search", "--",
                               test::KuduBinary()});
  }
  RunResult read_only_wal = ::geteuid() == 0 ? RunProgram(tmp_, "/usr/bin/setpriv", args)
                                             : RunKudu(tmp_, args);
  ::chmod(fw.c_str(), 0755);
  EXPECT_EQ(0, read_only_wal.exit_status) << Describe(read_only_wal);

  const std::string d = tmp_.Join("d"), file = tmp_.Join("f");
  ASSERT_OK(test::WriteStringToFile(file, "x"));
  RunResult unmakeable = generate({"--fs_data_dirs=" + d, "--fs_wal_dir=" + file + "/wal"});
  EXPECT_EQ(2, unmakeable.exit_status) << Describe(unmakeable);
  EXPECT_FALSE(env::FileExists(env::JoinPath(d, "instance")));
  RunResult again = generate({"--fs_data_dirs=" + d});
  EXPECT_EQ(0, again.exit_status) << Describe(again);

  // The format fails after the instance files (a file where wals/ goes):
  // exit 1, and they are gone again.
  const std::string e = tmp_.Join("e"), g = tmp_.Join("g");
  ASSERT_OK(env::CreateDirs(g));
  ASSERT_OK(test::WriteStringToFile(env::JoinPath(g, "wals"), "x"));
  RunResult midway = generate({"--fs_data_dirs=" + e, "--fs_wal_dir=" + g});
  EXPECT_EQ(1, midway.exit_status) << Describe(midway);
  EXPECT_FALSE(env::FileExists(env::JoinPath(e, "instance")));
  EXPECT_FALSE(env::FileExists(env::JoinPath(g, "instance")));
  ASSERT_OK(env::DeleteFile(env::JoinPath(g, "wals")));
  RunResult after = generate({"--fs_data_dirs=" + e, "--fs_wal_dir=" + g});
  EXPECT_EQ(0, after.exit_status) << Describe(after);
}

// Two runs into the same fresh roots at once: one writes, the other is
// refused (the first instance file decides a format, the locks the rest),
// and what is on disk is exactly the winner's.
TEST_F(GenerateTest, TwoRunsAtOnceNeverBothWrite) {
  for (int round = 0; round < 6; round++) {
    SCOPED_TRACE(round);
    const std::string root = tmp_.Join("race" + std::to_string(round));
    const std::vector<std::string> args = {"fs", "generate", "--fs_data_dirs=" + root,
                                           "--containers=3", "--blocks_per_container=40"};
    RunResult first, second;
    std::thread other([&] { second = RunKudu(tmp_, args); });
    first = RunKudu(tmp_, args);
    other.join();
    std::vector<int> statuses = {first.exit_status, second.exit_status};
    std::sort(statuses.begin(), statuses.end());
    EXPECT_EQ((std::vector<int>{0, 2}), statuses) << Describe(first) << Describe(second);
    RunResult list = RunKudu(tmp_, {"fs", "list", "--fs_data_dirs=" + root});
    ASSERT_EQ(0, list.exit_status) << Describe(list);
    std::string expected;
    ASSERT_OK(test::ReadFileToString(env::JoinPath(root, "generate_live_blocks.txt"), &expected));
    EXPECT_TRUE(test::SameLines(expected, list.out));
  }
}

// Kudu's container limits are the server's, so generate obeys them as a
// server does: a container full by size, blocks or metadata takes no more
// blocks, its data file ends at the next block offset, and once its last
// block is deleted its files are gone.
TEST_F(GenerateTest, KudusContainerLimitsAreHonoured) {
  auto run = [&](const std::string& root, const std::vector<std::string>& limits,
                 const std::string& shape) {
    std::vector<std::string> args = {"fs", "generate", "--fs_wal_dir=" + root};
    std::istringstream words(shape);
    for (std::string w; words >> w;) args.push_back(w);
    args.insert(args.end(), limits.begin(), limits.end());
    RunResult g = RunKudu(tmp_, args);
    EXPECT_EQ(0, g.exit_status) << Describe(g);
    std::vector<std::string> check = {"fs", "check", "--fs_wal_dir=" + root, "--format=json"};
    check.insert(check.end(), limits.begin(), limits.end());
    RunResult c = RunKudu(tmp_, check);
    EXPECT_EQ(0, c.exit_status) << Describe(c);
    return nlohmann::json::parse(c.out);
  };
  auto files = [](const std::string& root, const std::string& suffix) {
    std::vector<std::string> names, out;
    EXPECT_OK(env::ListDir(env::JoinPath(root, "data"), &names));
    for (const std::string& n : names) {
      if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) {
        out.push_back(env::JoinPath(env::JoinPath(root, "data"), n));
      }
    }
    return out;
  };

  // Full by size: half the blocks deleted, some containers lose them all.
  const std::string by_size = tmp_.Join("size");
  nlohmann::json j = run(by_size, {"--log_container_max_size=4096"},
                         "--containers=2 --blocks_per_container=6 --deleted_block_percentage=50");
  EXPECT_EQ(0, j["dead_containers"].get<int>()) << j.dump();
  EXPECT_EQ(j["containers"], j["full_containers"]);
  EXPECT_LT(j["containers"].get<int>(), 12);  // 12 were made, one block each
  for (const std::string& data : files(by_size, ".data")) {
    EXPECT_EQ(4096u, test::FileSizeOrDie(data)) << data;
  }
  // Kept with Kudu's flag off: the dead ones stay, for a repair to delete.
  j = run(tmp_.Join("kept"), {"--log_container_max_size=4096"},
          "--containers=2 --blocks_per_container=6 --deleted_block_percentage=50 "
          "--log_block_manager_delete_dead_container=false");
  EXPECT_EQ(12, j["containers"].get<int>());
  EXPECT_EQ(6, j["dead_containers"].get<int>());

  // Full by blocks: 2 x 10 blocks go into containers of 3 (the last one,
  // not full, takes the last 2).
  j = run(tmp_.Join("blocks"), {"--log_container_max_blocks=3"},
          "--containers=2 --blocks_per_container=10 --deleted_block_percentage=0");
  EXPECT_EQ(7, j["containers"].get<int>());
  EXPECT_EQ(6, j["full_containers"].get<int>());

  // Full by metadata size: no file grows a record past the limit.
  const std::string by_metadata = tmp_.Join("metadata");
  j = run(by_metadata, {"--log_container_metadata_max_size=1000"},
          "--containers=1 --blocks_per_container=100 --deleted_block_percentage=0");
  EXPECT_GT(j["containers"].get<int>(), 1);
  for (const std::string& metadata : files(by_metadata, ".metadata")) {
    EXPECT_LT(test::FileSizeOrDie(metadata), 1000u + 64u) << metadata;
  }
}

}  // namespace
}  // namespace kudu
