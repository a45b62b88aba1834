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
// The corruption injector, checked against the open: every kind it injects
// lands where it says (container, file, raw offset), on plain and encrypted
// dirs, and the model it keeps of the live set is the one the open finds.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kudu/fs/block_id.h"
#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/fs_report.h"
#include "kudu/tools/block_workload.h"
#include "kudu/util/env.h"
#include "util/fs_fixture_util.h"
#include "util/lbm_corruptor.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

constexpr int kContainers = 6;
constexpr int kBlocksPerContainer = 30;
using OpenResultFailure = fs::OpenResult::Failure;

class LbmCorruptorTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    key_ = TestServerKey();
    for (int i = 0; i < 2; i++) roots_.push_back(tmp_.Join("root" + std::to_string(i)));
    tools::BlockWorkloadOptions wo;
    wo.writer.data_dirs = roots_;
    wo.writer.server_key = encrypted() ? &key_ : nullptr;
    wo.writer.sync = false;
    wo.writer.fs_block_size = 4096;
    wo.containers = kContainers;
    wo.blocks_per_container = kBlocksPerContainer;
    wo.deleted_block_percentage = 40;
    wo.max_block_size = 2048;
    wo.max_group_size = 2;
    wo.seed = 11;
    tools::BlockWorkloadResult gen;
    ASSERT_OK(tools::RunBlockWorkload(wo, &gen));
  }

  bool encrypted() const { return GetParam(); }
  const ServerKey* key() const { return encrypted() ? &key_ : nullptr; }

  LbmCorruptor::Options CorruptorOptions(uint32_t seed = 1) const {
    LbmCorruptor::Options o;
    o.roots = roots_;
    o.server_key = key();
    o.max_container_blocks = kBlocksPerContainer;  // every generated container is full
    o.seed = seed;
    return o;
  }

  // Points roots_ at copies of the generated roots inside `copy`, so that
  // one case can break them and the next starts from the intact ones again
  // (the caller puts roots_ back).
  void UseCopyOfRoots(TempDir* copy) {
    for (size_t i = 0; i < roots_.size(); i++) {
      const std::string to = copy->Join("root" + std::to_string(i));
      ASSERT_OK(CopyTree(roots_[i], to));
      roots_[i] = to;
    }
  }

  void Open(fs::OpenResult* r, bool repair = false) {
    fs::BlockManagerOpenOptions o = OpenOptions(roots_, key());
    o.max_container_blocks = kBlocksPerContainer;
    o.repair = repair;
    fs::OpenBlockManager(o, r);
  }

  static const fs::ContainerInfo* Find(const fs::OpenResult& r, const std::string& path) {
    for (const fs::ContainerInfo& c : r.containers) {
      if (c.path == path) return &c;
    }
    return nullptr;
  }

  // The container an injection names, which must hold a fatal problem of
  // `kind` at the injection's offset.
  static void ExpectProblemAt(const fs::OpenResult& r, const Injected& inj,
                              fs::ContainerProblem::Kind kind) {
    ASSERT_FALSE(r.ok()) << DamageName(inj.damage);
    const fs::ContainerInfo* c = Find(r, inj.container);
    ASSERT_NE(nullptr, c) << inj.container;
    bool found = false;
    std::string seen;
    for (const fs::ContainerProblem& p : c->problems) {
      found |= p.kind == kind && p.offset == inj.offset;
      seen += std::string(" ") + fs::ContainerProblemKindName(p.kind) + "@" + std::to_string(p.offset);
    }
    EXPECT_TRUE(found) << DamageName(inj.damage) << " variant " << inj.variant << " at "
                       << inj.offset << "; problems:" << seen;
  }

  TempDir tmp_;
  ServerKey key_;
  std::vector<std::string> roots_;
};

TEST_P(LbmCorruptorTest, ModelOfACleanDirIsTheOpensLiveSet) {
  LbmCorruptor corruptor(CorruptorOptions());
  ASSERT_OK(corruptor.Init());
  fs::OpenResult r;
  Open(&r);
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_EQ(LiveSetOf(r), corruptor.ExpectedLiveSet());
  EXPECT_FALSE(corruptor.ExpectedLiveSet().empty());
  // §4.3: Kudu counts each encrypted data file's 64-byte header as live,
  // 4096 bytes once aligned; a clean container has no extra space.
  uint64_t bytes = 0, aligned = 0;
  for (const auto& kv : corruptor.ExpectedLiveSet()) {
    const int64_t len = std::get<2>(kv.second);
    bytes += static_cast<uint64_t>(len);
    aligned += (static_cast<uint64_t>(len) + 4095) / 4096 * 4096;
  }
  const uint64_t n = static_cast<uint64_t>(kContainers);
  const nlohmann::json j = fs::FsReportJson(r);
  EXPECT_EQ(bytes + (encrypted() ? 64 * n : 0), j["live_bytes"].get<uint64_t>());
  EXPECT_EQ(aligned + (encrypted() ? 4096 * n : 0), j["live_bytes_aligned"].get<uint64_t>());
  EXPECT_EQ(0u, j["full_container_extra_space"].get<uint64_t>());
  EXPECT_EQ(0u, j["misaligned_blocks"].get<uint64_t>());
}

TEST_P(LbmCorruptorTest, PartialRecordOfEveryShapeIsReportedAtItsOffset) {
  for (int k = 0; k < kNumPartialKinds; k++) {
    LbmCorruptor corruptor(CorruptorOptions(100 + k));
    ASSERT_OK(corruptor.Init());
    Injected inj;
    ASSERT_OK(corruptor.AddPartialRecord(static_cast<PartialKind>(k), &inj));
    fs::OpenResult r;
    Open(&r);
    ASSERT_TRUE(r.ok()) << r.status.ToString();
    const fs::ContainerInfo* c = Find(r, inj.container);
    ASSERT_NE(nullptr, c);
    EXPECT_TRUE(c->partial_record()) << "kind " << k;
    EXPECT_EQ(inj.offset, c->partial_record_offset()) << "kind " << k;
    EXPECT_EQ(LiveSetOf(r), corruptor.ExpectedLiveSet()) << "kind " << k;
    // Repaired before the next kind, so that each open sees one damage.
    fs::OpenResult repaired;
    Open(&repaired, /*repair=*/true);
    ASSERT_TRUE(repaired.ok()) << repaired.status.ToString();
  }
}

TEST_P(LbmCorruptorTest, ZeroTailIsAPartialRecordAtTheOldEnd) {
  LbmCorruptor corruptor(CorruptorOptions());
  ASSERT_OK(corruptor.Init());
  Injected inj;
  ASSERT_OK(corruptor.AppendZeroTail(4096, &inj));
  fs::OpenResult r;
  Open(&r);
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  const fs::ContainerInfo* c = Find(r, inj.container);
  ASSERT_NE(nullptr, c);
  EXPECT_TRUE(c->partial_record());
  EXPECT_EQ(inj.offset, c->partial_record_offset());
}

TEST_P(LbmCorruptorTest, IncompleteContainerOfEveryShape) {
  LbmCorruptor corruptor(CorruptorOptions());
  ASSERT_OK(corruptor.Init());
  std::vector<Injected> made;
  for (int k = 0; k < kNumIncompleteKinds; k++) {
    Injected inj;
    ASSERT_OK(corruptor.CreateIncompleteContainer(static_cast<IncompleteKind>(k), &inj));
    made.push_back(inj);
  }
  fs::OpenResult r;
  Open(&r);
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  for (const Injected& inj : made) {
    const fs::ContainerInfo* c = Find(r, inj.container);
    ASSERT_NE(nullptr, c) << "kind " << inj.variant;
    EXPECT_TRUE(c->incomplete) << "kind " << inj.variant;
  }
  EXPECT_EQ(LiveSetOf(r), corruptor.ExpectedLiveSet());
}

TEST_P(LbmCorruptorTest, MalformedRecordOfEveryReasonAtItsOffset) {
  LbmCorruptor corruptor(CorruptorOptions());
  ASSERT_OK(corruptor.Init());
  std::vector<Injected> made;
  for (int k = 0; k < kNumMalformedKinds; k++) {
    Injected inj;
    ASSERT_OK(corruptor.AddMalformedRecord(static_cast<MalformedKind>(k), &inj));
    made.push_back(inj);
  }
  fs::OpenResult r;
  Open(&r);
  // §4.4: fatal, with Kudu's status when nothing else is wrong; yet no
  // container is corrupt: each still counts.
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(OpenResultFailure::kInconsistent, r.failure);
  EXPECT_EQ(nullptr, r.block_map);
  EXPECT_EQ("Corruption: found at least one fatal error in block manager on-disk state. See "
            "block manager consistency report for details",
            r.status.ToString());
  const nlohmann::json j = fs::FsReportJson(r);
  EXPECT_FALSE(j["ok"].get<bool>());
  EXPECT_EQ(0u, j["corrupt_containers"].get<uint64_t>());
  EXPECT_EQ(static_cast<uint64_t>(kContainers), j["containers"].get<uint64_t>());
  EXPECT_EQ(made.size(), j["malformed_records"].get<uint64_t>());
  ASSERT_EQ(made.size(), j["entries"]["malformed_records"].size());
  const std::string text = fs::FsReportText(r);
  for (const Injected& inj : made) {
    SCOPED_TRACE(MalformedReason(static_cast<MalformedKind>(inj.variant)));
    const fs::ContainerInfo* c = Find(r, inj.container);
    ASSERT_NE(nullptr, c);
    EXPECT_TRUE(c->counted());
    const fs::MalformedRecord* found = nullptr;
    for (const fs::MalformedRecord& m : c->malformed) {
      if (m.record_offset == inj.offset) found = &m;
    }
    ASSERT_NE(nullptr, found) << inj.offset;
    EXPECT_EQ(inj.block_id, found->block_id);
    EXPECT_STREQ(MalformedReason(static_cast<MalformedKind>(inj.variant)), found->reason);
    // The protobuf text format, the id unpadded, each line ending in a newline.
    EXPECT_EQ(0u, found->text.find("block_id {\n  id: " + std::to_string(inj.block_id) + "\n}\n"))
        << found->text;
    EXPECT_EQ('\n', found->text.back());
    EXPECT_NE(std::string::npos, text.find("Fatal error: malformed record in container " +
                                           inj.container + ": " + found->text + "\n"));
    bool in_json = false;
    for (const auto& e : j["entries"]["malformed_records"]) {
      in_json |= e["offset"].get<uint64_t>() == inj.offset && e["container"] == inj.container &&
                 e["reason"] == found->reason && e["record"] == found->text &&
                 e["block_id"] == fs::BlockId(inj.block_id).ToString();
    }
    EXPECT_TRUE(in_json);
  }
}

TEST_P(LbmCorruptorTest, MisalignedBlockIsLiveWhereTheCorruptorPutIt) {
  LbmCorruptor corruptor(CorruptorOptions());
  ASSERT_OK(corruptor.Init());
  Injected inj;
  ASSERT_OK(corruptor.AddMisalignedBlock(&inj));
  fs::OpenResult r;
  Open(&r);
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  const LiveSet live = LiveSetOf(r);
  ASSERT_EQ(1u, live.count(inj.block_id));
  EXPECT_NE(0, std::get<1>(live.at(inj.block_id)) % 4096);
  EXPECT_EQ(live, corruptor.ExpectedLiveSet());
  // Reported once, not fatal (§4.3).
  const nlohmann::json j = fs::FsReportJson(r);
  ASSERT_EQ(1u, j["misaligned_blocks"].get<uint64_t>());
  const nlohmann::json& e = j["entries"]["misaligned_blocks"][0];
  EXPECT_EQ(inj.container, e["container"]);
  EXPECT_EQ(fs::BlockId(inj.block_id).ToString(), e["block_id"]);
  EXPECT_EQ(std::get<1>(live.at(inj.block_id)), e["offset"].get<int64_t>());
  EXPECT_NE(std::string::npos,
            fs::FsReportText(r).find("Misaligned block in container " + inj.container + ": " +
                                     fs::BlockId(inj.block_id).ToString() + "\n"));
}

TEST_P(LbmCorruptorTest, ExtraSpaceKindsAllocateSpaceAndKeepTheLiveSet) {
  LbmCorruptor corruptor(CorruptorOptions());
  ASSERT_OK(corruptor.Init());
  std::vector<Injected> made;
  for (int i = 0; i < 2; i++) {
    SCOPED_TRACE(i == 0 ? "preallocated" : "unpunched");
    // Both need a full container: every generated one is.
    std::map<std::string, uint64_t> allocated_before;
    for (const std::string& root : roots_) {
      std::vector<std::string> names;
      ASSERT_OK(env::ListDir(env::JoinPath(root, "data"), &names));
      for (const std::string& n : names) {
        const std::string p = env::JoinPath(env::JoinPath(root, "data"), n);
        struct stat st;
        ASSERT_EQ(0, ::stat(p.c_str(), &st));
        allocated_before[p] = static_cast<uint64_t>(st.st_blocks) * 512;
      }
    }
    Injected inj;
    ASSERT_OK(i == 0 ? corruptor.PreallocateFullContainer(&inj)
                     : corruptor.AddUnpunchedBlockToFullContainer(&inj));
    struct stat after;
    ASSERT_EQ(0, ::stat(inj.file.c_str(), &after));
    // The data file's allocated size grew by at least what was allocated
    // (16 KiB preallocated, or the unpunched block's fs-block multiple).
    EXPECT_GE(static_cast<uint64_t>(after.st_blocks) * 512, allocated_before[inj.file] + 4096);
    made.push_back(inj);
  }
  fs::OpenResult r;
  Open(&r);
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_EQ(LiveSetOf(r), corruptor.ExpectedLiveSet());
  // §4.3: measured on the allocated size, against the aligned live bytes
  // and their 10% slack; the entry's excess is allocated - aligned.
  const nlohmann::json j = fs::FsReportJson(r);
  uint64_t excess_sum = 0;
  for (const auto& e : j["entries"]["full_container_extra_space"]) {
    excess_sum += e["excess_bytes"].get<uint64_t>();
  }
  EXPECT_EQ(excess_sum, j["full_container_extra_space_bytes"].get<uint64_t>());
  EXPECT_EQ(j["entries"]["full_container_extra_space"].size(),
            j["full_container_extra_space"].get<uint64_t>());
  for (const Injected& inj : made) {
    const fs::ContainerInfo* c = Find(r, inj.container);
    ASSERT_NE(nullptr, c);
    struct stat st;
    ASSERT_EQ(0, ::stat(c->data_path.c_str(), &st));
    const uint64_t allocated = static_cast<uint64_t>(st.st_blocks) * 512;
    const bool expected =
        allocated > static_cast<uint64_t>(static_cast<double>(c->live_bytes_aligned) * 1.1);
    EXPECT_EQ(expected, c->extra_space) << DamageName(inj.damage);
    if (expected) {
      EXPECT_EQ(allocated - c->live_bytes_aligned, c->excess_bytes);
    }
  }
  // 16 KiB preallocated beside at most 30 small blocks is past the slack.
  EXPECT_TRUE(Find(r, made[0].container)->extra_space);
}

// §4.3 on real containers: full by metadata size, and Kudu's runtime
// compaction rule (only with its flag, full or not), through the open's
// options.
TEST_P(LbmCorruptorTest, MetadataLimitAndRuntimeCompactionRule) {
  auto open = [&](int64_t max_blocks, int64_t max_metadata, bool runtime, double ratio) {
    fs::BlockManagerOpenOptions o = OpenOptions(roots_, key());
    o.max_container_blocks = max_blocks;
    o.live_ratio_before_compact = ratio;
    o.classification.max_metadata_size = max_metadata;
    o.classification.runtime_compact = runtime;
    fs::OpenResult r;
    fs::OpenBlockManager(o, &r);
    EXPECT_TRUE(r.ok()) << r.status.ToString();
    return fs::FsReportJson(r);
  };
  // Not full by blocks; every metadata file is past 1 byte: full by metadata.
  nlohmann::json j = open(-1, 1, false, 0.5);
  EXPECT_EQ(static_cast<uint64_t>(kContainers), j["full_containers"].get<uint64_t>());
  // Neither limit: nothing full, and without the runtime rule no candidate.
  j = open(-1, 0, false, 0.9);
  EXPECT_EQ(0u, j["full_containers"].get<uint64_t>());
  EXPECT_EQ(0u, j["low_live_containers"].get<uint64_t>());
  // The runtime rule takes containers that are not full, strictly below the
  // ratio (with no size limit the size condition holds).
  j = open(-1, 0, true, 0.9);
  EXPECT_GT(j["low_live_containers"].get<uint64_t>(), 0u);
  for (const auto& e : j["entries"]["low_live_containers"]) {
    EXPECT_EQ("runtime", e["rule"]);
    EXPECT_LT(e["live_blocks"].get<double>(), 0.9 * e["total_blocks"].get<double>());
    EXPECT_FALSE(e["repaired"].get<bool>());
  }
  // A size limit no file reaches: the runtime rule's size condition fails.
  j = open(-1, 1LL << 40, true, 0.9);
  EXPECT_EQ(0u, j["low_live_containers"].get<uint64_t>());
  // Full as well: the startup rule wins for the containers both take.
  j = open(kBlocksPerContainer, 0, true, 0.9);
  for (const auto& e : j["entries"]["low_live_containers"]) EXPECT_EQ("startup", e["rule"]);
}

TEST_P(LbmCorruptorTest, FatalKindsAreReportedAtTheirOffsets) {
  struct Case {
    const char* name;
    std::function<Status(LbmCorruptor*, Injected*)> inject;
    fs::ContainerProblem::Kind kind;
  };
  std::vector<Case> cases = {
      {"checksum", [](LbmCorruptor* c, Injected* i) { return c->FlipRecordChecksum(i); },
       fs::ContainerProblem::Kind::kCorruption},
      {"magic", [](LbmCorruptor* c, Injected* i) { return c->DamageHeader(HeaderPart::kMagic, i); },
       fs::ContainerProblem::Kind::kCorruption},
      {"version", [](LbmCorruptor* c, Injected* i) { return c->DamageHeader(HeaderPart::kVersion, i); },
       fs::ContainerProblem::Kind::kCorruption},
      {"header crc",
       [](LbmCorruptor* c, Injected* i) { return c->DamageHeader(HeaderPart::kHeaderChecksum, i); },
       fs::ContainerProblem::Kind::kCorruption},
      // §2: at the supplemental header's own record offset.
      {"supplemental header",
       [](LbmCorruptor* c, Injected* i) {
         return c->DamageHeader(HeaderPart::kSupplementalHeader, i);
       },
       fs::ContainerProblem::Kind::kCorruption},
      {"duplicate id", [](LbmCorruptor* c, Injected* i) { return c->DuplicateLiveId(i); },
       fs::ContainerProblem::Kind::kDuplicateId},
      {"missing data", [](LbmCorruptor* c, Injected* i) { return c->RemoveDataFile(i); },
       fs::ContainerProblem::Kind::kMissingData},
      {"missing metadata", [](LbmCorruptor* c, Injected* i) { return c->RemoveMetadataFile(i); },
       fs::ContainerProblem::Kind::kMissingMetadata},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    TempDir copy;
    const std::vector<std::string> saved = roots_;
    ASSERT_NO_FATAL_FAILURE(UseCopyOfRoots(&copy));
    LbmCorruptor corruptor(CorruptorOptions());
    ASSERT_OK(corruptor.Init());
    Injected inj;
    ASSERT_OK(tc.inject(&corruptor, &inj));
    fs::OpenResult r;
    Open(&r);
    ExpectProblemAt(r, inj, tc.kind);
    roots_ = saved;
  }
}

TEST_P(LbmCorruptorTest, EncryptionHeaderDamageIsFatalAtOffsetZero) {
  if (!encrypted()) GTEST_SKIP() << "plain files have no encryption header";
  LbmCorruptor corruptor(CorruptorOptions());
  ASSERT_OK(corruptor.Init());
  Injected inj;
  ASSERT_OK(corruptor.DamageHeader(HeaderPart::kEncryptionHeader, &inj));
  fs::OpenResult r;
  Open(&r);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(0u, inj.offset);
}

// §4.1, last row: an encrypted data file beside a replayable metadata file
// must hold a valid encryption header. Each damage makes its container
// corrupt: one corruption entry naming the data file at offset 0, counted
// only in corrupt_containers (its live blocks and bytes, the header's 64
// included, leave the totals), and no repair touches any file.
TEST_P(LbmCorruptorTest, EncryptedDataFileWithoutAValidHeaderIsACorruptContainer) {
  struct Case {
    std::string name;
    std::function<Status(LbmCorruptor*, Injected*)> inject;
  };
  std::vector<Case> cases;
  for (uint64_t size : {0, 1, 63}) {
    cases.push_back({"truncated to " + std::to_string(size), [size](LbmCorruptor* c, Injected* i) {
                       return c->TruncateDataFileBelowHeader(size, i);
                     }});
  }
  cases.push_back({"magic", [](LbmCorruptor* c, Injected* i) {
                     return c->DamageDataFileHeader(DataHeaderPart::kMagic, i);
                   }});
  cases.push_back({"algorithm", [](LbmCorruptor* c, Injected* i) {
                     return c->DamageDataFileHeader(DataHeaderPart::kAlgorithm, i);
                   }});
  if (!encrypted()) {
    LbmCorruptor corruptor(CorruptorOptions());
    ASSERT_OK(corruptor.Init());
    for (const Case& tc : cases) EXPECT_TRUE(tc.inject(&corruptor, nullptr).IsIllegalState()) << tc.name;
    return;
  }
  fs::OpenResult clean;
  Open(&clean);
  ASSERT_TRUE(clean.ok()) << clean.status.ToString();
  const fs::FsReportTotals before = fs::ComputeReportTotals(clean);
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    TempDir copy;
    const std::vector<std::string> saved = roots_;
    ASSERT_NO_FATAL_FAILURE(UseCopyOfRoots(&copy));
    LbmCorruptor corruptor(CorruptorOptions());
    ASSERT_OK(corruptor.Init());
    Injected inj;
    ASSERT_OK(tc.inject(&corruptor, &inj));
    EXPECT_EQ(0u, inj.offset);
    const uint64_t data_size = FileSizeOrDie(inj.file);
    const std::string metadata = Slurp(inj.container + ".metadata");
    fs::OpenResult r;
    Open(&r);
    ExpectProblemAt(r, inj, fs::ContainerProblem::Kind::kCorruption);
    const fs::ContainerInfo* c = Find(r, inj.container);
    ASSERT_NE(nullptr, c);
    ASSERT_EQ(1u, c->problems.size());
    EXPECT_EQ(inj.file, c->problems[0].file);
    EXPECT_TRUE(Contains(c->problems[0].status.ToString(), inj.file + ": offset "))
        << c->problems[0].status.ToString();
    EXPECT_FALSE(c->counted());
    const fs::ContainerInfo* was = nullptr;
    for (const fs::ContainerInfo& x : clean.containers) {
      if (x.path.substr(x.path.rfind('/')) == inj.container.substr(inj.container.rfind('/'))) was = &x;
    }
    ASSERT_NE(nullptr, was);
    const fs::FsReportTotals t = fs::ComputeReportTotals(r);
    EXPECT_EQ(1u, t.corrupt_containers);
    EXPECT_EQ(before.containers - 1, t.containers);
    EXPECT_EQ(before.live_blocks - was->live_blocks, t.live_blocks);
    EXPECT_EQ(before.live_bytes - was->live_bytes, t.live_bytes);
    EXPECT_EQ(before.live_bytes_aligned - was->live_bytes_aligned, t.live_bytes_aligned);
    EXPECT_EQ(before.full_containers - 1, t.full_containers);

    fs::OpenResult repaired;
    Open(&repaired, /*repair=*/true);
    EXPECT_FALSE(repaired.ok());
    EXPECT_EQ(data_size, FileSizeOrDie(inj.file));
    EXPECT_EQ(metadata, Slurp(inj.container + ".metadata"));
    roots_ = saved;
  }
}

// Nothing on disk checks the key a data file's header is wrapped with
// (§5: the key probe reads metadata files only, and block bytes carry no
// checksum): a valid header wrapped with another server key opens.
TEST_P(LbmCorruptorTest, DataFileHeaderWrappedWithAnotherKeyIsNotChecked) {
  if (!encrypted()) GTEST_SKIP() << "plain files have no encryption header";
  const std::string data = roots_[0] + "/data";
  std::vector<std::string> names;
  ASSERT_OK(env::ListDir(data, &names));
  std::string victim;
  for (const std::string& n : names) {
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".data") == 0) victim = data + "/" + n;
  }
  ASSERT_FALSE(victim.empty());
  std::string file_key;
  ASSERT_OK(GenerateFileKey(CipherAlgorithm::kAes128Ctr, &file_key));
  std::string header;
  ASSERT_OK(BuildEncryptionHeader(CipherAlgorithm::kAes128Ctr, file_key, TestServerKey(32), &header));
  std::string bytes = Slurp(victim);
  ASSERT_GE(bytes.size(), header.size());
  bytes.replace(0, header.size(), header);
  ASSERT_OK(WriteStringToFile(victim, bytes));
  fs::OpenResult r;
  Open(&r);
  EXPECT_TRUE(r.ok()) << r.status.ToString();
}

// Upstream's block_manager-stress-test does this with 16 inconsistencies:
// random non-fatal damage, a repair, and a reopened dir with nothing left to
// repair and the same live set.
TEST_P(LbmCorruptorTest, RandomNonFatalDamageIsRepairedWithTheLiveSetKept) {
  for (uint32_t seed = 1; seed <= 3; seed++) {
    SCOPED_TRACE(seed);
    TempDir copy;
    const std::vector<std::string> saved = roots_;
    ASSERT_NO_FATAL_FAILURE(UseCopyOfRoots(&copy));
    LbmCorruptor corruptor(CorruptorOptions(seed));
    ASSERT_OK(corruptor.Init());
    for (int i = 0; i < 16; i++) ASSERT_OK(corruptor.InjectRandomNonFatalInconsistency());
    fs::OpenResult damaged;
    Open(&damaged);
    ASSERT_TRUE(damaged.ok()) << damaged.status.ToString();
    EXPECT_EQ(LiveSetOf(damaged), corruptor.ExpectedLiveSet());

    fs::OpenResult repaired;
    Open(&repaired, /*repair=*/true);
    ASSERT_TRUE(repaired.ok()) << repaired.status.ToString();

    fs::OpenResult after;
    Open(&after);
    ASSERT_TRUE(after.ok()) << after.status.ToString();
    for (const fs::ContainerInfo& c : after.containers) {
      EXPECT_FALSE(c.partial_record()) << c.path;
      EXPECT_FALSE(c.incomplete) << c.path;
    }
    EXPECT_EQ(LiveSetOf(after), corruptor.ExpectedLiveSet());
    roots_ = saved;
  }
}

INSTANTIATE_TEST_SUITE_P(PlainAndEncrypted, LbmCorruptorTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "Encrypted" : "Plain";
                         });

}  // namespace
}  // namespace test
}  // namespace kudu
