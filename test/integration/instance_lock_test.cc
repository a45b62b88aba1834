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

// The steps of an open before any record is read (§1 "The order of an
// open"), run as an operator runs them: `kudu fs generate` lays the roots out
// as `kudu fs format` does; `check` and `list` read the instance files (each
// verdict an exit 1 with one line and no report), take the locks (a
// read-write open without one changes nothing and exits 2, a read-only one
// warns and reports the dir) and find the temporary files (listed, or
// deleted by --repair but for the only copy of a container's records).
#include <sys/stat.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kudu/fs/fs.pb.h"
#include "kudu/fs/instance_files.h"
#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/fs_report.h"
#include "kudu/util/env.h"
#include "kudu/util/io_fault_injector.h"
#include "util/fs_fixture_util.h"
#include "util/kudu_subprocess.h"
#include "util/lock_holder.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using nlohmann::json;
using test::Contains;
using test::Describe;
using test::LockHolder;
using test::RunKudu;
using test::RunResult;
using test::TempDir;

constexpr char kKeyHex[] = "00112233445566778899aabbccddeeff";

size_t CountLines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

std::string LastLine(const std::string& s) {
  std::string t = s;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  const size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

class InstanceLockTest : public ::testing::Test {
 protected:
  // Two formatted roots with a few containers (through `generate`).
  std::vector<std::string> Generate(const std::vector<std::string>& extra = {}) {
    const std::vector<std::string> roots = {tmp_.Join("r" + std::to_string(n_)),
                                            tmp_.Join("s" + std::to_string(n_))};
    n_++;
    std::vector<std::string> args = {"fs", "generate", "--fs_data_dirs=" + Dirs(roots),
                                     "--containers=4", "--blocks_per_container=20"};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = RunKudu(tmp_, args);
    EXPECT_EQ(0, r.exit_status) << Describe(r);
    return roots;
  }
  static std::string Dirs(const std::vector<std::string>& roots) {
    return roots[0] + "," + roots[1];
  }
  RunResult Check(const std::vector<std::string>& roots, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"fs", "check", "--fs_data_dirs=" + Dirs(roots),
                                     "--format=json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunKudu(tmp_, args);
  }
  // Every file under the roots (not the captured outputs beside them).
  static std::map<std::string, std::string> Snapshot(const std::vector<std::string>& roots) {
    std::map<std::string, std::string> all;
    for (const std::string& r : roots) {
      const auto files = test::SnapshotFiles(r);
      all.insert(files.begin(), files.end());
    }
    return all;
  }
  TempDir tmp_;
  int n_ = 0;
};

TEST_F(InstanceLockTest, GenerateLaysOutWhatFormatDoes) {
  const std::vector<std::string> roots = Generate();
  for (const std::string& root : roots) {
    InstanceMetadataPB inst;
    ASSERT_OK(fs::ReadPBContainerFromPath(fs::InstanceFilePath(root), &inst));
    DirInstanceMetadataPB dir;
    ASSERT_OK(fs::ReadPBContainerFromPath(fs::DirInstanceFilePath(root), &dir));
    EXPECT_EQ("log", dir.dir_type());
    EXPECT_EQ(2, dir.dir_set().all_uuids_size());
  }
  for (const char* d : {"wals", "tablet-meta", "consensus-meta"}) {
    EXPECT_TRUE(env::FileExists(env::JoinPath(roots[0], d))) << d;
  }
  RunResult r = Check(roots);
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  json j = json::parse(r.out);
  EXPECT_EQ(0u, j["unlocked_dirs"].get<uint64_t>());
  EXPECT_EQ(0u, j["leftover_tmp_files"].get<uint64_t>());
  EXPECT_EQ(4u, j["containers"].get<uint64_t>());
}

TEST_F(InstanceLockTest, TheServerKeyComesFromTheInstanceFile) {
  const std::vector<std::string> roots =
      Generate({"--encrypt", std::string("--server_key_hex=") + kKeyHex});
  InstanceMetadataPB inst;
  ASSERT_OK(fs::ReadPBContainerFromPath(fs::InstanceFilePath(roots[1]), &inst));
  ServerKey stored;
  ASSERT_OK(ServerKey::FromTestKeyProviderHex(inst.server_key(), &stored));
  EXPECT_EQ(kKeyHex, stored.ToHex());
  // No key on the command line: the instance file's.
  RunResult r = Check(roots);
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  json j = json::parse(r.out);
  EXPECT_TRUE(j["encrypted"].get<bool>());
  EXPECT_EQ(4u, j["containers"].get<uint64_t>());
  // A given key wins, and a wrong one is still a usage error.
  r = Check(roots, {"--server_key_hex=" + std::string(32, '1')});
  EXPECT_EQ(2, r.exit_status) << Describe(r);
  EXPECT_TRUE(r.out.empty());
}

// Without a key flag, generate --encrypt makes one as Kudu's default key
// provider does, and only the instance files know it.
TEST_F(InstanceLockTest, GenerateMakesAServerKeyWhenNoneIsGiven) {
  const std::vector<std::string> roots = Generate({"--encrypt"});
  InstanceMetadataPB inst;
  ASSERT_OK(fs::ReadPBContainerFromPath(fs::InstanceFilePath(roots[0]), &inst));
  EXPECT_EQ(32u, inst.server_key().size());
  EXPECT_EQ("encryptionkey@0", inst.server_key_version());
  std::string raw;
  ASSERT_OK(test::ReadFileToString(fs::DirInstanceFilePath(roots[0]), &raw));
  EXPECT_EQ("kuducntr", raw.substr(0, 8));  // never encrypted
  RunResult r = Check(roots);
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  json j = json::parse(r.out);
  EXPECT_TRUE(j["encrypted"].get<bool>());
  std::string live;
  ASSERT_OK(test::ReadFileToString(env::JoinPath(roots[0], "generate_live_blocks.txt"), &live));
  EXPECT_EQ(CountLines(live), j["live_blocks"].get<uint64_t>());
}

TEST_F(InstanceLockTest, EveryInstanceVerdictExitsOneBeforeAnyReport) {
  using Damage = std::function<std::string(const std::vector<std::string>&)>;
  auto edit_dir = [](const std::string& root, std::function<void(DirInstanceMetadataPB*)> e) {
    DirInstanceMetadataPB d;
    EXPECT_OK(fs::ReadPBContainerFromPath(fs::DirInstanceFilePath(root), &d));
    e(&d);
    EXPECT_OK(fs::WritePBContainerToPath(fs::DirInstanceFilePath(root), d));
  };
  auto edit = [](const std::string& root, std::function<void(InstanceMetadataPB*)> e) {
    InstanceMetadataPB i;
    EXPECT_OK(fs::ReadPBContainerFromPath(fs::InstanceFilePath(root), &i));
    e(&i);
    EXPECT_OK(fs::WritePBContainerToPath(fs::InstanceFilePath(root), i));
  };
  const std::vector<std::pair<const char*, Damage>> cases = {
      {"could not load",
       [](const std::vector<std::string>& r) {
         EXPECT_OK(test::FlipByte(fs::DirInstanceFilePath(r[1]), 30));
         return fs::DirInstanceFilePath(r[1]);
       }},
      {"cannot restart with a different format type 'log'",
       [&](const std::vector<std::string>& r) {
         edit_dir(r[1], [](DirInstanceMetadataPB* d) { d->set_dir_type("file"); });
         return fs::DirInstanceFilePath(r[1]);
       }},
      {"Wrong filesystem block size: Expected 1 but was",
       [&](const std::vector<std::string>& r) {
         edit_dir(r[0], [](DirInstanceMetadataPB* d) { d->set_filesystem_block_size_bytes(1); });
         return fs::DirInstanceFilePath(r[0]);
       }},
      {"Mismatched UUIDs across filesystem roots",
       [&](const std::vector<std::string>& r) {
         edit(r[1], [](InstanceMetadataPB* i) { i->set_uuid(std::string(32, 'f')); });
         return fs::InstanceFilePath(r[1]);
       }},
      {"is missing, but",
       [](const std::vector<std::string>& r) {
         EXPECT_OK(env::DeleteFile(fs::DirInstanceFilePath(r[0])));
         return fs::DirInstanceFilePath(r[0]);
       }},
      {"server_key is not hex",
       [&](const std::vector<std::string>& r) {
         edit(r[0], [](InstanceMetadataPB* i) { i->set_server_key("xyz"); });
         return fs::InstanceFilePath(r[0]);
       }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.first);
    const std::vector<std::string> roots = Generate();
    const std::string file = c.second(roots);
    // A temporary file a --repair would delete: it stays.
    const std::string leftover = env::JoinPath(roots[1], "data/x.kudutmp.abcdef");
    ASSERT_OK(test::WriteStringToFile(leftover, "x"));
    const auto before = Snapshot(roots);
    for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{
             {}, {"--repair"}, {"--format=text"}}) {
      RunResult r = Check(roots, extra);
      EXPECT_EQ(1, r.exit_status) << Describe(r);
      EXPECT_TRUE(r.out.empty()) << r.out;
      EXPECT_EQ(1u, CountLines(r.err)) << r.err;
      EXPECT_TRUE(Contains(LastLine(r.err), c.first)) << r.err;
      EXPECT_TRUE(Contains(LastLine(r.err), file)) << r.err;
    }
    RunResult l = RunKudu(tmp_, {"fs", "list", "--fs_data_dirs=" + Dirs(roots)});
    EXPECT_EQ(1, l.exit_status) << Describe(l);
    EXPECT_TRUE(l.out.empty());
    EXPECT_EQ(before, Snapshot(roots));
  }
}

TEST_F(InstanceLockTest, AHeldLockStopsARepairAndIsReportedByACheck) {
  const std::vector<std::string> roots = Generate();
  const std::string leftover = env::JoinPath(roots[0], "data/x.kudutmp.abcdef");
  ASSERT_OK(test::WriteStringToFile(leftover, "x"));
  const std::string locked = fs::DirInstanceFilePath(roots[1]);
  LockHolder holder(locked, LockHolder::kFcntl);
  const auto before = Snapshot(roots);

  // Read-write: nothing changed (the temporary file of the other dir
  // included), nothing on stdout, Kudu's message, exit 2.
  RunResult r = Check(roots, {"--repair"});
  EXPECT_EQ(2, r.exit_status) << Describe(r);
  EXPECT_TRUE(r.out.empty()) << r.out;
  const std::string kudu_message =
      "Could not lock instance file. Make sure that Kudu is not already running and you are not "
      "trying to run Kudu with a different user than before: lock " + locked + ": ";
  EXPECT_TRUE(Contains(r.err, kudu_message)) << r.err;
  EXPECT_EQ(before, Snapshot(roots));
  // generate too: it writes only under every lock.
  RunResult g = RunKudu(tmp_, {"fs", "generate", "--fs_data_dirs=" + Dirs(roots)});
  EXPECT_EQ(2, g.exit_status) << Describe(g);

  // Read-only: a warning, the dir in the report, the open goes on.
  RunResult c = Check(roots);
  ASSERT_EQ(0, c.exit_status) << Describe(c);
  EXPECT_TRUE(Contains(c.err, kudu_message)) << c.err;
  EXPECT_TRUE(Contains(c.err, "Proceeding without lock")) << c.err;
  json j = json::parse(c.out);
  ASSERT_EQ(1u, j["unlocked_dirs"].get<uint64_t>());
  EXPECT_EQ(env::JoinPath(roots[1], "data"), j["entries"]["unlocked_dirs"][0]["dir"]);
  EXPECT_TRUE(Contains(j["entries"]["unlocked_dirs"][0]["message"].get<std::string>(),
                       kudu_message));
  EXPECT_EQ(1u, j["leftover_tmp_files"].get<uint64_t>());
  RunResult l = RunKudu(tmp_, {"fs", "list", "--fs_data_dirs=" + Dirs(roots)});
  ASSERT_EQ(0, l.exit_status) << Describe(l);
  EXPECT_FALSE(l.out.empty());
  EXPECT_TRUE(Contains(l.err, "Proceeding without lock")) << l.err;
  EXPECT_EQ(before, Snapshot(roots));
}

// A signal during the lock's open or fcntl (an open on NFS or FUSE can
// sleep) is retried, as Kudu's RETRY_ON_EINTR does: a repair still takes
// every lock and runs, and a check reports no dir as unlocked. The
// interruptions come from a preloaded shim, which logs each one it makes.
TEST_F(InstanceLockTest, AnInterruptedLockIsRetried) {
  const std::vector<std::string> roots = Generate();
  const std::string lock_file = fs::DirInstanceFilePath(roots[1]);
  const std::string shim = env::JoinPath(env::DirName(test::KuduBinary()), "libinterrupted_lock_shim.so");
  ASSERT_TRUE(env::FileExists(shim)) << shim;
  for (const bool repair : {true, false}) {
    SCOPED_TRACE(repair ? "--repair" : "read-only");
    const std::string log = tmp_.Join(repair ? "interrupted-repair" : "interrupted-check");
    std::vector<std::string> args = {"LD_PRELOAD=" + shim, "KUDU_TEST_INTERRUPT_PATH=" + lock_file,
                                     "KUDU_TEST_INTERRUPT_LOG=" + log, test::KuduBinary(),
                                     "fs", "check", "--fs_data_dirs=" + Dirs(roots), "--format=json"};
    if (repair) args.push_back("--repair");
    RunResult r = test::RunProgram(tmp_, "env", args);
    std::string interrupted;
    ASSERT_OK(test::ReadFileToString(log, &interrupted));
    ASSERT_EQ("open\nopen\nfcntl\nfcntl\n", interrupted) << "the shim did not reach the lock's calls";
    ASSERT_EQ(0, r.exit_status) << Describe(r);
    EXPECT_FALSE(Contains(r.err, "Could not lock")) << r.err;
    EXPECT_EQ(0u, json::parse(r.out)["unlocked_dirs"].get<uint64_t>()) << r.out;
  }
}

// §1, the order of an open: the wrong-key check is step 2, before the locks
// (3) and the temporary files (4). A wrong key therefore changes nothing,
// even in a read-write open (the temporary file stays), and is the only
// line on standard error whatever lock is held, read-only or read-write.
TEST_F(InstanceLockTest, AWrongKeyStopsTheOpenBeforeLocksAndTemporaryFiles) {
  const std::vector<std::string> roots =
      Generate({"--encrypt", "--server_key_hex=00112233445566778899aabbccddeeff"});
  const std::string leftover = env::JoinPath(roots[0], "data/x.kudutmp.abcdef");
  ASSERT_OK(test::WriteStringToFile(leftover, "x"));
  const std::vector<std::string> wrong = {"--server_key_hex=ffeeddccbbaa99887766554433221100"};
  const auto before = Snapshot(roots);
  auto expect_key_error_only = [&](const RunResult& r) {
    EXPECT_EQ(2, r.exit_status) << Describe(r);
    EXPECT_TRUE(r.out.empty()) << r.out;
    const std::vector<std::string> lines = test::NonEmptyLines(r.err);
    ASSERT_EQ(1u, lines.size()) << r.err;
    EXPECT_TRUE(Contains(lines[0], "wrong server key?")) << lines[0];
    EXPECT_EQ(before, Snapshot(roots));
  };
  std::vector<std::string> repair = wrong;
  repair.push_back("--repair");
  expect_key_error_only(Check(roots, repair));
  EXPECT_TRUE(env::FileExists(leftover));
  {
    LockHolder holder(fs::DirInstanceFilePath(roots[1]), LockHolder::kFcntl);
    expect_key_error_only(Check(roots, wrong));   // no "Proceeding without lock" first
    expect_key_error_only(Check(roots, repair));  // the key's error, not the lock's
  }
  // The right key (from the instance files) opens, and a repair then
  // deletes the temporary file.
  RunResult ok = Check(roots, {"--repair"});
  EXPECT_EQ(0, ok.exit_status) << Describe(ok);
  EXPECT_FALSE(env::FileExists(leftover));
}

TEST_F(InstanceLockTest, AnFlockHolderDoesNotStopARepair) {
  const std::vector<std::string> roots = Generate();
  LockHolder holder(fs::DirInstanceFilePath(roots[0]), LockHolder::kFlock);
  RunResult r = Check(roots, {"--repair"});
  EXPECT_EQ(0, r.exit_status) << Describe(r);
}

TEST_F(InstanceLockTest, TemporaryFilesAreListedOrDeletedButTheOnlyCopyIsKept) {
  const std::vector<std::string> roots = Generate();
  const std::string data = env::JoinPath(roots[0], "data");
  std::vector<std::string> names;
  ASSERT_OK(env::ListDir(data, &names));
  std::string id;
  for (const std::string& n : names) {
    if (n.size() == 41 && n.compare(32, 9, ".metadata") == 0) id = n.substr(0, 32);
  }
  ASSERT_FALSE(id.empty());
  const std::string rewrite = env::JoinPath(data, id + ".metadata.kudutmp.AbC123");
  const std::string only_copy = env::JoinPath(data, std::string(32, 'e') + ".metadata.kudutmp.q");
  const std::string deep = env::JoinPath(data, "sub/getblocksize.kudutmp.zzzzzz");
  const std::string odd_dir = env::JoinPath(data, "d.kudutmp");
  ASSERT_OK(test::WriteStringToFile(rewrite, "half a rewrite"));
  ASSERT_OK(test::WriteStringToFile(only_copy, "the only copy"));
  ASSERT_OK(env::CreateDirs(odd_dir));
  ASSERT_OK(env::CreateDirs(env::DirName(deep)));
  ASSERT_OK(test::WriteStringToFile(deep, "x"));

  const auto before = Snapshot(roots);
  RunResult r = Check(roots);
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  EXPECT_EQ(before, Snapshot(roots));
  json j = json::parse(r.out);
  EXPECT_EQ(3u, j["leftover_tmp_files"].get<uint64_t>());
  EXPECT_EQ(1u, j["unexpected_files"].get<uint64_t>());
  EXPECT_EQ(odd_dir, j["entries"]["unexpected_files"][0]);
  EXPECT_EQ(4u, j["containers"].get<uint64_t>());  // none of them is a container

  r = Check(roots, {"--repair"});
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  j = json::parse(r.out);
  EXPECT_EQ(3u, j["leftover_tmp_files"].get<uint64_t>());
  EXPECT_EQ(2u, j["repairs"]["leftover_tmp_files_deleted"].get<uint64_t>());
  EXPECT_FALSE(env::FileExists(rewrite));
  EXPECT_FALSE(env::FileExists(deep));
  EXPECT_TRUE(env::FileExists(only_copy));
  EXPECT_TRUE(env::FileExists(odd_dir));
  EXPECT_TRUE(Contains(r.err, only_copy + ": kept")) << r.err;
  EXPECT_TRUE(Contains(r.err, "deletes it")) << r.err;
  RunResult t = Check(roots, {"--repair", "--format=text"});
  EXPECT_TRUE(Contains(t.out, "  " + only_copy + " (kept: ")) << t.out;
  // Each temporary file is listed once, under its total.
  for (const std::string& f : {only_copy, rewrite, deep}) {
    EXPECT_EQ(t.out.find(f), t.out.rfind(f)) << f << " listed twice:\n" << t.out;
  }
}

// In process, with the fault injector: a temporary file that cannot be
// deleted is the repair's first error and no other repair runs.
TEST_F(InstanceLockTest, AFailedDeletionStopsEveryRepair) {
  const std::vector<std::string> roots = {tmp_.Join("f0"), tmp_.Join("f1")};
  for (const std::string& r : roots) ASSERT_OK(env::CreateDirs(env::JoinPath(r, "data")));
  fs::FormatOptions format;
  format.data_roots = roots;
  ASSERT_OK(fs::FormatRoots(format));
  test::HandContainer c;
  // An incomplete container: a lone empty data file, which a repair deletes.
  ASSERT_OK(test::WriteHandContainer(roots[1], test::ContainerIdFor(1), 0, nullptr, nullptr, &c));
  const std::string leftover = env::JoinPath(roots[0], "data/x.kudutmp.abcdef");
  ASSERT_OK(test::WriteStringToFile(leftover, "x"));

  fs::BlockManagerOpenOptions opts = test::OpenOptions(roots, nullptr);
  opts.repair = true;
  fs::OpenResult r;
  IoFaultInjector::Arm(IoOp::kDelete, 1, IoFault::kEIO, ".kudutmp");
  Status s = fs::OpenBlockManager(opts, &r);
  IoFaultInjector::Disarm();
  ASSERT_OK(s);  // the open itself replays and reports
  ASSERT_TRUE(r.repaired);
  EXPECT_FALSE(r.repairs.status.ok());
  EXPECT_TRUE(env::FileExists(leftover));
  EXPECT_TRUE(env::FileExists(c.data_path));  // no repair ran
  json j = fs::FsReportJson(r);
  ASSERT_EQ(1u, j["repair_errors"].get<uint64_t>());
  EXPECT_EQ("temporary_files", j["entries"]["repair_errors"][0]["step"]);
  EXPECT_EQ(leftover, j["entries"]["repair_errors"][0]["path"]);
  EXPECT_EQ(0u, j["repairs"]["leftover_tmp_files_deleted"].get<uint64_t>());
  // The file is named once: the step's error already names it.
  const std::string status = r.repairs.status.message();
  EXPECT_EQ(status.find(leftover), status.rfind(leftover)) << status;
  EXPECT_TRUE(test::Contains(status, "repair step temporary_files failed")) << status;
}

// The rewrite of a low-live container goes through Kudu's temporary name.
TEST_F(InstanceLockTest, AMetadataRewriteUsesKudusTemporaryName) {
  const std::string root = tmp_.Join("w");
  test::HandContainer c;
  const std::vector<BlockRecordPB> records = {
      test::MakeCreate(1, 0, 10), test::MakeCreate(2, 4096, 10), test::MakeCreate(3, 8192, 10),
      test::MakeCreate(4, 12288, 10), test::MakeDelete(1), test::MakeDelete(2),
      test::MakeDelete(3)};
  ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(1), 16384, &records, nullptr, &c));
  fs::BlockManagerOpenOptions opts = test::OpenOptions({root}, nullptr);
  opts.max_container_blocks = 4;
  opts.repair = true;
  fs::OpenResult r;
  IoFaultInjector::Arm(IoOp::kRename, 1, IoFault::kEIO, c.metadata_path + ".kudutmp.");
  Status s = fs::OpenBlockManager(opts, &r);
  const bool fired = IoFaultInjector::Fired();
  IoFaultInjector::Disarm();
  ASSERT_OK(s);
  EXPECT_TRUE(fired);
  EXPECT_FALSE(r.repairs.status.ok());
  // The temporary file went again; the original is untouched.
  std::vector<std::string> names;
  ASSERT_OK(env::ListDir(env::JoinPath(root, "data"), &names));
  EXPECT_EQ(2u, names.size());
}

}  // namespace
}  // namespace kudu
