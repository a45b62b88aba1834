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

// Every crash state of a repair, and of the block writer's create and
// delete path (util/crash_explorer.h): the run's file operations are
// recorded, every state a power loss could leave is rebuilt, and each must
// open without a fatal problem, with the live set from before the repair
// (a repair never changes it; for the writer, the set after the last
// acknowledged step or the one after it), and a repair of it must leave a
// clean dir with that same live set.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <functional>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/container_writer.h"
#include "kudu/fs/fs_report.h"
#include "kudu/fs/repair.h"
#include "kudu/fs/temp_files.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/io_fault_injector.h"
#include "util/crash_explorer.h"
#include "util/fs_fixture_util.h"
#include "util/lbm_corruptor.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

using fs::OpenResult;
using test::CrashExplorer;
using test::LiveSet;

enum class Kind {
  kPartialRecord,
  kIncompleteContainer,
  kDeadContainer,
  kCompaction,
  kExtraSpace,
  kTempFiles,
  kBlockWriter,
};

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kPartialRecord: return "partial_record";
    case Kind::kIncompleteContainer: return "incomplete_container";
    case Kind::kDeadContainer: return "dead_container";
    case Kind::kCompaction: return "compaction";
    case Kind::kExtraSpace: return "extra_space";
    case Kind::kTempFiles: return "temp_files";
    case Kind::kBlockWriter: return "block_writer";
  }
  return "?";
}

// Fewest distinct states a kind must reach, so that a change to the
// recorder or the explorer cannot silently explore nothing.
constexpr uint64_t kMinStatesPerKind = 20;
constexpr int64_t kBlocksPerContainer = 3;
// Containers of each kind of damage in a repair's fixture.
constexpr int kDamagedPerKind = 20;

struct Param {
  Kind kind;
  bool encrypted;
};

class CrashStatesTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    key_ = test::TestServerKey(16);
    k_ = GetParam().encrypted ? &key_ : nullptr;
    tree_ = tmp_.Join("tree");
    roots_ = {tree_ + "/d0", tree_ + "/d1"};
  }

  std::vector<std::string> Roots(const std::string& tree) const {
    return {tree + "/d0", tree + "/d1"};
  }
  fs::BlockManagerOpenOptions Options(const std::vector<std::string>& roots, bool repair) const {
    fs::BlockManagerOpenOptions o = test::OpenOptions(roots, k_);
    o.threads_per_dir = 1;
    o.max_container_blocks = kBlocksPerContainer;
    // 1 live of 3 is a candidate, 1 of 2 is not: a compaction that keeps a
    // dead block (§7.1) leaves no candidate behind.
    if (GetParam().kind == Kind::kCompaction) o.live_ratio_before_compact = 0.4;
    o.repair = repair;
    return o;
  }
  std::unique_ptr<fs::LogWritableBlockManager> NewWriter() const {
    fs::ContainerWriterOptions o;
    o.data_dirs = roots_;
    o.fs_block_size = 4096;
    o.server_key = k_;
    o.sync = true;
    o.seed = 11;
    o.max_container_blocks = kBlocksPerContainer;
    // Dead containers stay, as after a crash between a full container's
    // last DELETE record and the deletion of its files.
    o.delete_dead_containers = false;
    auto clock = std::make_shared<uint64_t>(1000);
    o.clock_us = [clock]() { return ++*clock; };
    return std::make_unique<fs::LogWritableBlockManager>(o);
  }
  // Blocks of a few KiB: several 4 KiB pieces each, so writes can tear.
  static std::string Payload(uint64_t n) {
    return test::RandomBytes(1000 + 2500 * (n % 4), static_cast<uint32_t>(n));
  }
  void Create(fs::LogWritableBlockManager* w, int n, std::vector<BlockId>* ids) {
    std::vector<std::string> bytes;
    std::vector<Slice> data;
    for (int i = 0; i < n; i++) bytes.push_back(Payload(ids->size() + i));
    for (const std::string& b : bytes) data.emplace_back(b);
    std::vector<BlockId> got;
    ASSERT_OK(w->CreateBlocks(data, &got));
    ids->insert(ids->end(), got.begin(), got.end());
  }
  test::LbmCorruptor::Options CorruptorOptions() const {
    test::LbmCorruptor::Options o;
    o.roots = roots_;
    o.server_key = k_;
    o.max_container_blocks = kBlocksPerContainer;
    o.seed = 5;
    return o;
  }

  // The damaged dirs a repair acts on, one kind of repair each.
  void BuildRepairFixture(Kind kind) {
    auto w = NewWriter();
    ASSERT_OK(w->Open());
    std::vector<BlockId> ids;
    switch (kind) {
      case Kind::kPartialRecord:
      case Kind::kIncompleteContainer:
      case Kind::kTempFiles:
        Create(w.get(), 3 * kDamagedPerKind + 2, &ids);
        break;
      case Kind::kDeadContainer:
        for (int c = 0; c < kDamagedPerKind; c++) {
          std::vector<BlockId> batch;
          Create(w.get(), 3, &batch);
          ASSERT_OK(w->DeleteBlocks(batch));
        }
        Create(w.get(), 1, &ids);
        break;
      case Kind::kCompaction:
        // Full containers with 1 of 3 blocks live: below the ratio.
        for (int c = 0; c < kDamagedPerKind; c++) {
          std::vector<BlockId> batch;
          Create(w.get(), 3, &batch);
          ASSERT_OK(w->DeleteBlocks({batch[c % 3], batch[(c + 1) % 3]}));
        }
        Create(w.get(), 2, &ids);
        break;
      case Kind::kExtraSpace:
        // Full containers with one dead block each, punched as a server does.
        for (int c = 0; c < kDamagedPerKind / 2; c++) {
          std::vector<BlockId> batch;
          Create(w.get(), 3, &batch);
          ASSERT_OK(w->DeleteBlocks({batch[c % 3]}));
        }
        break;
      case Kind::kBlockWriter:
        break;
    }
    ASSERT_OK(w->Close());
    w.reset();
    test::LbmCorruptor corruptor(CorruptorOptions());
    ASSERT_OK(corruptor.Init());
    if (kind == Kind::kPartialRecord) {
      for (int i = 0; i < kDamagedPerKind; i++) {
        ASSERT_OK(corruptor.AddPartialRecord(static_cast<test::PartialKind>(i % 3)));
      }
    } else if (kind == Kind::kIncompleteContainer) {
      for (int i = 0; i < kDamagedPerKind; i++) {
        ASSERT_OK(corruptor.CreateIncompleteContainer(
            static_cast<test::IncompleteKind>(i % test::kNumIncompleteKinds)));
      }
    } else if (kind == Kind::kExtraSpace) {
      // Preallocated space (truncated) and unpunched dead blocks (punched).
      for (int i = 0; i < kDamagedPerKind / 4; i++) {
        ASSERT_OK(corruptor.PreallocateFullContainer());
        ASSERT_OK(corruptor.AddUnpunchedBlockToFullContainer());
      }
    } else if (kind == Kind::kTempFiles) {
      // An interrupted rewrite's leftovers: a half-written copy and an empty one.
      int made = 0;
      for (const std::string& root : roots_) {
        std::vector<std::string> names;
        ASSERT_OK(env::ListDir(root + "/data", &names));
        for (const std::string& name : names) {
          std::string id;
          bool is_metadata = false;
          if (!fs::ParseContainerFileName(name, &id, &is_metadata) || !is_metadata) continue;
          const std::string path = root + "/data/" + name;
          std::string bytes;
          ASSERT_OK(test::ReadFileToString(path, &bytes));
          ASSERT_OK(test::WriteStringToFile(fs::NewTempFilePath(path),
                                            bytes.substr(0, made % 2 == 0 ? 40 : 0)));
          made++;
        }
      }
      ASSERT_GE(made, 2);
    }
  }

  // The checks every crash state must pass: "" or what failed.
  std::string CheckState(const std::vector<std::string>& roots,
                         const std::vector<LiveSet>& allowed, const CrashExplorer::State& st,
                         const std::string& log) {
    auto fail = [&](const std::string& what) {
      return what + "\ncrash after op " + std::to_string(st.prefix) + " (" + st.what + ", " +
             std::to_string(st.steps_done) + " steps done); log:\n" + log;
    };
    OpenResult r;
    Status s = fs::OpenBlockManager(Options(roots, false), &r);
    if (!s.ok()) return fail("fatal open: " + s.ToString());
    // Every block live both before and after the step in flight (and so
    // every acknowledged one) is there, and nothing live is from neither.
    const LiveSet live = test::LiveSetOf(r);
    const LiveSet& lo = allowed.front();
    const LiveSet& hi = allowed.back();
    for (const auto& kv : lo) {
      auto a = hi.find(kv.first);
      if (a != hi.end() && a->second == kv.second && live.count(kv.first) == 0) {
        return fail("acknowledged block " + std::to_string(kv.first) + " lost");
      }
    }
    for (const auto& kv : live) {
      auto b = lo.find(kv.first);
      auto a = hi.find(kv.first);
      if ((b == lo.end() || b->second != kv.second) && (a == hi.end() || a->second != kv.second)) {
        return fail("block " + std::to_string(kv.first) +
                    " live, but neither before nor after the step");
      }
    }
    OpenResult rep;
    s = fs::OpenBlockManager(Options(roots, true), &rep);
    if (!s.ok() || !rep.repairs.status.ok()) {
      return fail("repair of the crash state failed: " + s.ToString() + " / " +
                  rep.repairs.status.ToString());
    }
    OpenResult after;
    s = fs::OpenBlockManager(Options(roots, false), &after);
    if (!s.ok()) return fail("reopen after the repair: " + s.ToString());
    if (test::LiveSetOf(after) != live) return fail("the repair changed the live set");
    const nlohmann::json j = fs::FsReportJson(after);
    for (const char* k : {"partial_records", "incomplete_containers", "dead_containers",
                          "low_live_containers", "leftover_tmp_files"}) {
      if (j[k].get<uint64_t>() != 0) {
        return fail("after the repair still " + j[k].dump() + " " + k);
      }
    }
    return "";
  }

  // Explores every state of `ex`; `failed(error)` decides whether to go on.
  void ExploreAndCheck(CrashExplorer* ex, const std::vector<LiveSet>& allowed_by_step,
                       const std::function<bool(const std::string&)>& failed) {
    ASSERT_GT(ex->ops(), 0u);
    const std::string log = ex->DescribeLog();
    // States are built and repaired thousands of times: in memory where
    // there is a tmpfs, so that the repairs' fsyncs do not wait for a disk.
    std::string into = tmp_.Join("state");
    std::string shm;
    if (env::IsWritableDir("/dev/shm")) {
      char tmpl[] = "/dev/shm/kudu-crash-states.XXXXXX";
      if (::mkdtemp(tmpl) != nullptr) {
        shm = tmpl;
        into = shm + "/state";
      }
    }
    const std::vector<std::string> roots = Roots(into);
    CrashExplorer::Counts counts;
    ASSERT_OK(ex->Explore(
        into,
        [&](const CrashExplorer::State& st) {
          // Acknowledged steps are kept; the one in flight may be in part.
          std::vector<LiveSet> allowed = {allowed_by_step[st.steps_done]};
          if (st.steps_done + 1 < allowed_by_step.size()) {
            allowed.push_back(allowed_by_step[st.steps_done + 1]);
          }
          const std::string error = CheckState(roots, allowed, st, log);
          return error.empty() || failed(error);
        },
        &counts));
    if (!shm.empty()) ASSERT_OK(env::DeleteRecursively(shm));
    std::cout << "crash states: " << KindName(GetParam().kind)
              << (GetParam().encrypted ? " encrypted" : " plain") << ": " << ex->ops()
              << " operations, " << counts.generated << " states built, " << counts.distinct
              << " distinct explored" << std::endl;
    explored_ = counts.distinct;
  }

  // Records the run the kind is about (the repair, or the writer's steps)
  // into `ex`, with the live set before and after each step.
  void RecordRun(CrashExplorer* ex, std::vector<LiveSet>* live_by_step);

  test::TempDir tmp_;
  ServerKey key_;
  const ServerKey* k_ = nullptr;
  std::string tree_;
  std::vector<std::string> roots_;
  uint64_t explored_ = 0;
};

void CrashStatesTest::RecordRun(CrashExplorer* ex, std::vector<LiveSet>* live_by_step) {
  const Kind kind = GetParam().kind;
  auto live_now = [&]() {
    OpenResult r;
    Status s = fs::OpenBlockManager(Options(roots_, false), &r);
    EXPECT_TRUE(s.ok()) << s.ToString();
    live_by_step->push_back(test::LiveSetOf(r));
  };
  if (kind == Kind::kBlockWriter) {
    // Creates that fill a container and roll to new ones, a delete with its
    // hole punched, a group commit across two containers, a group delete.
    auto w = NewWriter();
    ASSERT_OK(w->Open());
    std::vector<BlockId> ids;
    Create(w.get(), 2, &ids);
    ASSERT_OK(ex->Snapshot());
    live_now();
    auto step = [&](const std::function<void()>& f) {
      IoRecorder::Start();
      f();
      ASSERT_OK(ex->AddStep(IoRecorder::Stop()));
      live_now();
    };
    step([&] { Create(w.get(), 1, &ids); });
    step([&] { Create(w.get(), 1, &ids); });
    step([&] { ASSERT_OK(w->DeleteBlock(ids[0])); });
    step([&] { Create(w.get(), 3, &ids); });
    step([&] { ASSERT_OK(w->DeleteBlocks({ids[2], ids[4]})); });
    step([&] { Create(w.get(), 4, &ids); });
    step([&] { ASSERT_OK(w->DeleteBlocks({ids[1], ids[6], ids[9]})); });
    step([&] { ASSERT_OK(w->Close()); });
  } else {
    BuildRepairFixture(kind);
    ASSERT_FALSE(HasFatalFailure());
    ASSERT_OK(ex->Snapshot());
    live_now();
    IoRecorder::Start();
    OpenResult r;
    Status s = fs::OpenBlockManager(Options(roots_, true), &r);
    ASSERT_OK(ex->AddStep(IoRecorder::Stop()));
    ASSERT_OK(s);
    ASSERT_TRUE(r.repaired);
    ASSERT_OK(r.repairs.status);
    const fs::RepairSummary& sum = r.repairs;
    const uint64_t done = kind == Kind::kPartialRecord        ? sum.partial_records_truncated
                          : kind == Kind::kIncompleteContainer ? sum.incomplete_containers_deleted
                          : kind == Kind::kDeadContainer       ? sum.dead_containers_deleted
                          : kind == Kind::kCompaction          ? sum.low_live_metadata_rewritten
                          : kind == Kind::kExtraSpace          ? sum.extra_space_repaired
                                                               : sum.leftover_tmp_files_deleted;
    EXPECT_GE(done, 2u) << "the fixture must give the repair something of its kind to do";
    // A repair never changes the live set: the state after it has the same.
    live_by_step->push_back(live_by_step->front());
  }
}

TEST_P(CrashStatesTest, EveryCrashStateOpensWithTheSameLiveBlocks) {
  CrashExplorer ex(tree_, CrashExplorer::Options());
  std::vector<LiveSet> live_by_step;
  RecordRun(&ex, &live_by_step);
  ASSERT_FALSE(HasFailure());
  ExploreAndCheck(&ex, live_by_step, [](const std::string& error) {
    ADD_FAILURE() << error;
    return false;
  });
  EXPECT_GE(explored_, kMinStatesPerKind);
}

// A harsher model than the one above, which no filesystem the project
// supports gives in full: directory operations made durable out of order,
// and writes whose size reached the disk before their data. Its findings
// (docs/reliability.md) are printed; a state failing in any other way
// than those fails the test.
TEST_P(CrashStatesTest, HarsherModelFindsOnlyTheKnownStates) {
  // The kinds whose logs have un-synced directory operations or writes to
  // files a crash can leave in place; the rest add time, not states.
  const Kind kind = GetParam().kind;
  if (kind != Kind::kDeadContainer && kind != Kind::kBlockWriter && kind != Kind::kCompaction &&
      kind != Kind::kExtraSpace) {
    GTEST_SKIP() << "nothing for the harsher model in " << KindName(kind);
  }
  CrashExplorer::Options o;
  o.reorder_dir_ops = true;
  o.zeroed_writes = true;
  CrashExplorer ex(tree_, o);
  std::vector<LiveSet> live_by_step;
  RecordRun(&ex, &live_by_step);
  ASSERT_FALSE(HasFailure());
  uint64_t known = 0;
  ExploreAndCheck(&ex, live_by_step, [&](const std::string& error) {
    // A new container's metadata header as zeros. (A dead container's
    // unlinks are ordered by a dir fsync, so its data file can no longer
    // outlive its metadata.)
    const bool zero_header = kind == Kind::kBlockWriter &&
                             test::Contains(error, ".metadata: offset ") &&
                             test::Contains(error, "reached the disk as zeros");
    if (zero_header) {
      known++;
      return true;
    }
    ADD_FAILURE() << error;
    return false;
  });
  std::cout << "harsher model: " << known << " states fail in the known ways" << std::endl;
}

std::vector<Param> AllParams() {
  std::vector<Param> out;
  for (Kind k : {Kind::kPartialRecord, Kind::kIncompleteContainer, Kind::kDeadContainer,
                 Kind::kCompaction, Kind::kExtraSpace, Kind::kTempFiles, Kind::kBlockWriter}) {
    for (bool enc : {false, true}) out.push_back({k, enc});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Kinds, CrashStatesTest, ::testing::ValuesIn(AllParams()),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           return std::string(KindName(i.param.kind)) +
                                  (i.param.encrypted ? "_encrypted" : "_plain");
                         });

// The recorder sees what reaches the disk: ciphertext for an encrypted
// file, and nothing once stopped.
TEST(IoRecorderTest, RecordsRawBytesAndStops) {
  test::TempDir tmp;
  const ServerKey key = test::TestServerKey(16);
  WriteEncryption enc;
  enc.server_key = &key;
  IoRecorder::Start();
  std::unique_ptr<WritableFile> f;
  ASSERT_OK(WritableFile::Open(tmp.Join("f"), CreateMode::kCreateNew, enc, &f));
  ASSERT_OK(f->Append(Slice("plaintext")));
  ASSERT_OK(f->Sync());
  ASSERT_OK(f->Close());
  ASSERT_OK(env::RenameFile(tmp.Join("f"), tmp.Join("g")));
  ASSERT_OK(env::SyncDir(tmp.path()));
  std::vector<IoRecord> log = IoRecorder::Stop();
  ASSERT_OK(env::DeleteFile(tmp.Join("g")));
  EXPECT_TRUE(IoRecorder::Stop().empty());
  std::vector<std::string> kinds;
  for (const IoRecord& r : log) kinds.push_back(IoRecordKindName(r.kind));
  EXPECT_EQ((std::vector<std::string>{"create", "write", "write", "fsync", "rename", "fsync-dir"}),
            kinds);
  ASSERT_EQ(6u, log.size());
  EXPECT_EQ(kEncryptionHeaderSize, log[1].bytes.size());
  EXPECT_EQ(kEncryptionHeaderSize, log[2].offset);
  EXPECT_EQ(9u, log[2].bytes.size());
  EXPECT_NE("plaintext", log[2].bytes);
  EXPECT_EQ(tmp.Join("g"), log[4].to);
}

// The model on a log small enough to list every state by hand: a file
// written, fsynced, renamed, and the rename made durable.
TEST(CrashExplorerTest, StatesOfAnAtomicReplace) {
  test::TempDir tmp;
  const std::string root = tmp.Join("t");
  ASSERT_OK(env::CreateDirs(root));
  ASSERT_OK(test::WriteStringToFile(root + "/g", "old"));
  CrashExplorer ex(root, CrashExplorer::Options());
  ASSERT_OK(ex.Snapshot());
  IoRecorder::Start();
  {
    std::unique_ptr<WritableFile> f;
    ASSERT_OK(WritableFile::Open(root + "/f", CreateMode::kCreateNew, WriteEncryption(), &f));
    ASSERT_OK(f->Append(Slice("new")));
    ASSERT_OK(f->Sync());
    ASSERT_OK(f->Close());
    ASSERT_OK(env::RenameFile(root + "/f", root + "/g"));
    ASSERT_OK(env::SyncDir(root));
  }
  ASSERT_OK(ex.AddStep(IoRecorder::Stop()));
  ASSERT_EQ(5u, ex.ops());
  std::set<std::string> states;
  CrashExplorer::Counts counts;
  const std::string into = tmp.Join("state");
  ASSERT_OK(ex.Explore(
      into,
      [&](const CrashExplorer::State& st) {
        std::string s;
        for (const auto& kv : test::SnapshotFiles(into)) {
          s += kv.first.substr(into.size() + 1) + "=" + kv.second + " ";
        }
        states.insert(s);
        return true;
      },
      &counts));
  // The old file, with or without the new one beside it (empty until its
  // fsync, "new" after), then the new file in its place; never an empty or
  // missing g.
  const std::set<std::string> expected = {"g=old ", "f= g=old ", "f=new g=old ", "g=new "};
  EXPECT_EQ(expected, states);
  // g=new twice: in flight, and once the step is acknowledged.
  EXPECT_EQ(5u, counts.distinct);
}

}  // namespace
}  // namespace fs
}  // namespace kudu
