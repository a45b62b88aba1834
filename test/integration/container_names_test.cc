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

// Container names (§1): every `<stem>.data` / `<stem>.metadata` directly in
// <root>/data without the ".kudutmp" infix is a container file, whatever its
// stem; a stem that is not 32 lowercase hex is noted, not skipped. In-process
// opens of hand-made files, then `kudu fs` itself on a generated dir.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/fs_report.h"
#include "kudu/tools/block_workload.h"
#include "kudu/util/env.h"
#include "util/fs_fixture_util.h"
#include "util/kudu_subprocess.h"
#include "util/lbm_corruptor.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

using fs::ContainerProblem;
using fs::OpenResult;
using nlohmann::json;

std::vector<std::string> Strings(const json& list) {
  std::vector<std::string> out;
  for (const json& e : list) out.push_back(e.get<std::string>());
  return out;
}

TEST(ContainerNamesTest, NonEmptyDataWithoutMetadataIsFatalAndNoted) {
  TempDir tmp;
  const std::string root = tmp.Join("d");
  std::vector<BlockRecordPB> good = {MakeCreate(1, 0, 100)};
  HandContainer c;
  ASSERT_OK(WriteHandContainer(root, ContainerIdFor(1), 4096, &good, nullptr, &c));
  ASSERT_OK(WriteDataFile(root + "/data/notes.data", 100, nullptr));
  OpenResult r;
  fs::OpenBlockManager(OpenOptions({root}, nullptr), &r);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(OpenResult::Failure::kInconsistent, r.failure);
  const json j = fs::FsReportJson(r);
  EXPECT_EQ(1u, j["nonstandard_container_names"].get<uint64_t>());
  EXPECT_EQ(std::vector<std::string>{root + "/data/notes"},
            Strings(j["entries"]["nonstandard_container_names"]));
  ASSERT_EQ(1u, j["entries"]["corruption"].size()) << j["entries"]["corruption"];
  const json& e = j["entries"]["corruption"][0];
  EXPECT_EQ(root + "/data/notes", e["container"]);
  EXPECT_TRUE(e["offset"].is_null());
  EXPECT_TRUE(Contains(e["message"].get<std::string>(), root + "/data/notes.data")) << e;
  EXPECT_EQ(1u, j["containers"].get<uint64_t>());  // the corrupt one is not counted
}

TEST(ContainerNamesTest, EmptyDataAloneIsAnIncompleteContainer) {
  TempDir tmp;
  const std::string root = tmp.Join("d");
  ASSERT_OK(env::CreateDirs(root + "/data"));
  ASSERT_OK(WriteStringToFile(root + "/data/x.data", ""));
  OpenResult r;
  fs::OpenBlockManager(OpenOptions({root}, nullptr), &r);
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  const json j = fs::FsReportJson(r);
  EXPECT_EQ(1u, j["incomplete_containers"].get<uint64_t>());
  EXPECT_EQ(root + "/data/x", j["entries"]["incomplete_containers"][0]["container"]);
  EXPECT_EQ(std::vector<std::string>{root + "/data/x"},
            Strings(j["entries"]["nonstandard_container_names"]));
  EXPECT_EQ(0u, j["containers"].get<uint64_t>());
}

// Valid records under any stem replay as Kudu's would: the blocks are live,
// the container is listed in report order (dir, then id, byte by byte), and
// names that are not container files stay ignored.
TEST(ContainerNamesTest, NonstandardContainersReplayInReportOrder) {
  TempDir tmp;
  const std::string a = tmp.Join("a"), b = tmp.Join("b");
  struct Made {
    std::string root, id;
    uint64_t block;
  };
  const std::vector<Made> made = {{a, "abc", 10},           {a, ContainerIdFor(1), 1},
                                  {a, "Zz", 20},            {a, "-early", 30},
                                  {a, "two.dots.in", 40},   {b, "aaa", 50},
                                  {b, ContainerIdFor(2), 60}};
  for (const Made& m : made) {
    std::vector<BlockRecordPB> records = {MakeCreate(m.block, 0, 100),
                                          MakeCreate(m.block + 1, 4096, 100)};
    HandContainer c;
    ASSERT_OK(WriteHandContainer(m.root, m.id, 2 * 4096, &records, nullptr, &c));
  }
  // Not container files: a temporary file, another suffix, a subdirectory's.
  ASSERT_OK(WriteStringToFile(a + "/data/abc.metadata.kudutmp.Ab12Cd", "x"));
  ASSERT_OK(WriteStringToFile(a + "/data/notes.txt", "x"));
  ASSERT_OK(env::CreateDirs(a + "/data/sub"));
  ASSERT_OK(WriteStringToFile(a + "/data/sub/deep.data", "x"));

  OpenResult r;
  fs::OpenBlockManager(OpenOptions({a, b}, nullptr), &r);
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  std::vector<std::string> ids;
  for (const fs::ContainerInfo& c : r.containers) ids.push_back(c.id);
  EXPECT_EQ((std::vector<std::string>{"-early", ContainerIdFor(1), "Zz", "abc", "two.dots.in",
                                      ContainerIdFor(2), "aaa"}),
            ids);
  const LiveSet live = LiveSetOf(r);
  EXPECT_EQ(2 * made.size(), live.size());
  for (const Made& m : made) {
    ASSERT_EQ(1u, live.count(m.block)) << m.id;
    EXPECT_EQ(m.id, std::get<0>(live.at(m.block)));
  }

  const json j = fs::FsReportJson(r);
  EXPECT_TRUE(j["ok"].get<bool>());
  EXPECT_EQ(made.size(), j["containers"].get<uint64_t>());
  const std::vector<std::string> noted = {a + "/data/-early", a + "/data/Zz", a + "/data/abc",
                                          a + "/data/two.dots.in", b + "/data/aaa"};
  EXPECT_EQ(noted, Strings(j["entries"]["nonstandard_container_names"]));
  EXPECT_EQ(noted.size(), j["nonstandard_container_names"].get<uint64_t>());
  EXPECT_EQ(std::vector<std::string>{a + "/data/abc.metadata.kudutmp.Ab12Cd"},
            Strings(j["entries"]["leftover_tmp_files"]));

  const std::string text = fs::FsReportText(r);
  size_t last = 0;
  for (const std::string& path : noted) {
    const size_t at = text.find("Container name not 32 lowercase hex: " + path + "\n");
    ASSERT_NE(std::string::npos, at) << path << "\n" << text;
    EXPECT_LT(last, at) << path;  // in report order
    last = at;
  }
  EXPECT_TRUE(Contains(text, "\nStatus: OK\n")) << text;
}

// A name with the ".kudutmp" infix is a temporary file even when it ends in
// ".metadata" or ".data": not a container (no incomplete one, no data file
// without its metadata), but a leftover temporary file.
TEST(ContainerNamesTest, TmpInfixBeforeAContainerSuffixIsATemporaryFile) {
  TempDir tmp;
  const std::string root = tmp.Join("d");
  std::vector<BlockRecordPB> good = {MakeCreate(1, 0, 100)};
  HandContainer c;
  ASSERT_OK(WriteHandContainer(root, ContainerIdFor(1), 4096, &good, nullptr, &c));
  const std::string meta = root + "/data/" + ContainerIdFor(2) + ".kudutmp.metadata";
  const std::string data = root + "/data/" + ContainerIdFor(3) + ".kudutmp.data";
  ASSERT_OK(WriteStringToFile(meta, "x"));
  ASSERT_OK(WriteDataFile(data, 100, nullptr));

  OpenResult r;
  fs::OpenBlockManager(OpenOptions({root}, nullptr), &r);
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  ASSERT_EQ(1u, r.containers.size());
  EXPECT_EQ(ContainerIdFor(1), r.containers[0].id);
  const json j = fs::FsReportJson(r);
  EXPECT_TRUE(j["ok"].get<bool>()) << j["entries"];
  EXPECT_EQ(1u, j["containers"].get<uint64_t>());
  EXPECT_EQ(0u, j["incomplete_containers"].get<uint64_t>()) << j["entries"];
  EXPECT_EQ(0u, j["corrupt_containers"].get<uint64_t>()) << j["entries"];
  EXPECT_EQ(0u, j["nonstandard_container_names"].get<uint64_t>()) << j["entries"];
  EXPECT_EQ(2u, j["leftover_tmp_files"].get<uint64_t>()) << j["entries"];
  std::vector<std::string> leftovers = Strings(j["entries"]["leftover_tmp_files"]);
  std::sort(leftovers.begin(), leftovers.end());
  std::vector<std::string> expected = {meta, data};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(expected, leftovers);
}

// The repair's paths are built from the stem too: a partial record is
// truncated, a compaction rewrites through "<stem>.metadata.kudutmp.*", and
// a lone "<stem>.metadata.kudutmp.*" is kept as the only copy.
TEST(ContainerNamesTest, RepairWorksOnAnyStem) {
  TempDir tmp;
  const std::string root = tmp.Join("d");
  std::vector<BlockRecordPB> torn = {MakeCreate(1, 0, 100), MakeCreate(2, 4096, 100)};
  HandContainer abc;
  ASSERT_OK(WriteHandContainer(root, "abc", 2 * 4096, &torn, nullptr, &abc));
  std::string bytes;
  ASSERT_OK(ReadFileToString(abc.metadata_path, &bytes));
  ASSERT_OK(WriteStringToFile(abc.metadata_path, bytes + std::string("\x05\x00\x00", 3)));

  std::vector<BlockRecordPB> sparse;
  for (uint64_t i = 0; i < 4; i++) sparse.push_back(MakeCreate(10 + i, i * 4096, 100));
  for (uint64_t i = 0; i < 3; i++) sparse.push_back(MakeDelete(10 + i));
  HandContainer old_style;
  ASSERT_OK(WriteHandContainer(root, "old-style", 4 * 4096, &sparse, nullptr, &old_style));
  const uint64_t old_size = FileSizeOrDie(old_style.metadata_path);
  const std::string only_copy = root + "/data/gone.metadata.kudutmp.Xy34Zw";
  ASSERT_OK(WriteStringToFile(only_copy, "records"));

  fs::BlockManagerOpenOptions o = OpenOptions({root}, nullptr);
  o.max_container_blocks = 4;  // old-style is full, one of its four blocks live
  OpenResult before;
  fs::OpenBlockManager(o, &before);
  ASSERT_TRUE(before.ok()) << before.status.ToString();
  const json j = fs::FsReportJson(before);
  EXPECT_EQ(1u, j["partial_records"].get<uint64_t>()) << j["entries"];
  EXPECT_EQ(root + "/data/abc", j["entries"]["partial_records"][0]["container"]);
  EXPECT_EQ(1u, j["low_live_containers"].get<uint64_t>()) << j["entries"];
  EXPECT_EQ(root + "/data/old-style", j["entries"]["low_live_containers"][0]["container"]);

  o.repair = true;
  OpenResult repaired;
  fs::OpenBlockManager(o, &repaired);
  ASSERT_TRUE(repaired.ok()) << repaired.status.ToString();
  ASSERT_TRUE(repaired.repairs.status.ok()) << repaired.repairs.status.ToString();
  EXPECT_EQ(abc.end_offset, FileSizeOrDie(abc.metadata_path));
  EXPECT_LT(FileSizeOrDie(old_style.metadata_path), old_size);
  EXPECT_TRUE(env::FileExists(only_copy));
  std::vector<std::string> names;
  ASSERT_OK(env::ListDir(root + "/data", &names));
  std::sort(names.begin(), names.end());
  EXPECT_EQ((std::vector<std::string>{"abc.data", "abc.metadata", "gone.metadata.kudutmp.Xy34Zw",
                                      "old-style.data", "old-style.metadata"}),
            names);

  o.repair = false;
  OpenResult after;
  fs::OpenBlockManager(o, &after);
  ASSERT_TRUE(after.ok()) << after.status.ToString();
  EXPECT_EQ(LiveSetOf(before), LiveSetOf(after));
  const json k = fs::FsReportJson(after);
  EXPECT_EQ(0u, k["partial_records"].get<uint64_t>());
  EXPECT_EQ(0u, k["low_live_containers"].get<uint64_t>());
}

// The corruption injector on a server-written container renamed to a stem
// Kudu never makes: the damage is reported under that name, and a repair of
// random non-fatal damage leaves it clean with the injector's live set.
class RenamedContainerTest : public ::testing::Test {
 protected:
  static constexpr int kBlocks = 30;
  void SetUp() override {
    root_ = tmp_.Join("d");
    tools::BlockWorkloadOptions wo;
    wo.writer.data_dirs = {root_};
    wo.writer.sync = false;
    wo.writer.fs_block_size = 4096;
    wo.containers = 1;
    wo.blocks_per_container = kBlocks;
    wo.deleted_block_percentage = 40;
    wo.max_block_size = 2048;
    wo.seed = 5;
    tools::BlockWorkloadResult gen;
    ASSERT_OK(tools::RunBlockWorkload(wo, &gen));
    ASSERT_EQ(1u, gen.container_ids.size());
    for (const char* suffix : {".data", ".metadata"}) {
      ASSERT_OK(env::RenameFile(root_ + "/data/" + gen.container_ids[0] + suffix,
                                root_ + "/data/legacy" + suffix));
    }
  }
  LbmCorruptor::Options CorruptorOptions() const {
    LbmCorruptor::Options o;
    o.roots = {root_};
    o.max_container_blocks = kBlocks;  // the container is full
    return o;
  }
  void Open(OpenResult* r, bool repair = false) {
    fs::BlockManagerOpenOptions o = OpenOptions({root_}, nullptr);
    o.max_container_blocks = kBlocks;
    o.repair = repair;
    fs::OpenBlockManager(o, r);
  }
  TempDir tmp_;
  std::string root_;
};

TEST_F(RenamedContainerTest, MalformedRecordIsReportedUnderTheStem) {
  LbmCorruptor corruptor(CorruptorOptions());
  ASSERT_OK(corruptor.Init());
  Injected inj;
  ASSERT_OK(corruptor.AddMalformedRecord(MalformedKind::kDeleteNotLive, &inj));
  EXPECT_EQ(root_ + "/data/legacy", inj.container);
  OpenResult r;
  Open(&r);
  ASSERT_FALSE(r.ok());
  const json j = fs::FsReportJson(r);
  ASSERT_EQ(1u, j["malformed_records"].get<uint64_t>());
  const json& m = j["entries"]["malformed_records"][0];
  EXPECT_EQ(root_ + "/data/legacy", m["container"]);
  EXPECT_EQ(inj.offset, m["offset"].get<uint64_t>());
  EXPECT_EQ("delete_not_live", m["reason"]);
  EXPECT_EQ(std::vector<std::string>{root_ + "/data/legacy"},
            Strings(j["entries"]["nonstandard_container_names"]));
}

TEST_F(RenamedContainerTest, RandomNonFatalDamageIsRepaired) {
  LbmCorruptor corruptor(CorruptorOptions());
  ASSERT_OK(corruptor.Init());
  for (int i = 0; i < 4; i++) ASSERT_OK(corruptor.InjectRandomNonFatalInconsistency());
  OpenResult r;
  Open(&r, /*repair=*/true);
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  ASSERT_TRUE(r.repairs.status.ok()) << r.repairs.status.ToString();
  OpenResult after;
  Open(&after);
  ASSERT_TRUE(after.ok()) << after.status.ToString();
  EXPECT_EQ(corruptor.ExpectedLiveSet(), LiveSetOf(after));
  const json j = fs::FsReportJson(after);
  // What a repair always fixes (extra space can stay: a misaligned block's
  // end is undercounted, KUDU-1793).
  for (const char* kind : {"partial_records", "incomplete_containers"}) {
    EXPECT_EQ(0u, j[kind].get<uint64_t>()) << kind << ": " << j["entries"][kind];
  }
  EXPECT_EQ(root_ + "/data/legacy", j["entries"]["nonstandard_container_names"][0]);
}

// `kudu fs` on a generated dir, one container renamed to a stem Kudu never
// makes: check, list and locate_block treat it as any other.
TEST(ContainerNamesToolTest, CheckListAndLocateOnARenamedContainer) {
  TempDir tmp;
  const std::string root = tmp.Join("d");
  RunResult g = RunKudu(tmp, {"fs", "generate", "--fs_data_dirs=" + root, "--containers=3",
                              "--blocks_per_container=20", "--deleted_block_percentage=20"});
  ASSERT_EQ(0, g.exit_status) << Describe(g);
  std::string expected;
  ASSERT_OK(ReadFileToString(root + "/generate_live_blocks.txt", &expected));
  const std::vector<std::string> lines = NonEmptyLines(expected);
  ASSERT_FALSE(lines.empty());
  // "<block id> <container id> <offset> <length>": rename the first line's container.
  const std::string block = lines[0].substr(0, lines[0].find(' '));
  const std::string old_id = lines[0].substr(block.size() + 1, 32);
  const std::string new_id = "legacy_container";
  for (const char* suffix : {".data", ".metadata"}) {
    ASSERT_OK(env::RenameFile(root + "/data/" + old_id + suffix, root + "/data/" + new_id + suffix));
  }
  std::string renamed;
  for (const std::string& l : lines) {
    std::string line = l;
    const size_t at = line.find(" " + old_id + " ");
    if (at != std::string::npos) line.replace(at + 1, old_id.size(), new_id);
    renamed += line + "\n";
  }

  RunResult check = RunKudu(tmp, {"fs", "check", "--fs_data_dirs=" + root, "--format=json"});
  ASSERT_EQ(0, check.exit_status) << Describe(check);
  json j = json::parse(check.out);
  EXPECT_EQ(lines.size(), j["live_blocks"].get<uint64_t>());
  EXPECT_EQ(1u, j["nonstandard_container_names"].get<uint64_t>());
  EXPECT_EQ(std::vector<std::string>{root + "/data/" + new_id},
            Strings(j["entries"]["nonstandard_container_names"]));

  RunResult list = RunKudu(tmp, {"fs", "list", "--fs_data_dirs=" + root});
  ASSERT_EQ(0, list.exit_status) << Describe(list);
  EXPECT_TRUE(test::SameLines(renamed, list.out));
  RunResult locate = RunKudu(tmp, {"fs", "locate_block", "--fs_data_dirs=" + root, block});
  ASSERT_EQ(0, locate.exit_status) << Describe(locate);
  EXPECT_TRUE(Contains(locate.out, block + " | " + root + "/data/" + new_id + ".data")) << locate.out;

  // A data file without metadata under such a name is fatal, as for Kudu,
  // and noted in report order all the same.
  ASSERT_OK(WriteDataFile(root + "/data/notes.data", 100, nullptr));
  check = RunKudu(tmp, {"fs", "check", "--fs_data_dirs=" + root, "--format=json"});
  ASSERT_EQ(1, check.exit_status) << Describe(check);
  j = json::parse(check.out);
  EXPECT_FALSE(j["ok"].get<bool>());
  EXPECT_EQ((std::vector<std::string>{root + "/data/" + new_id, root + "/data/notes"}),
            Strings(j["entries"]["nonstandard_container_names"]));
  ASSERT_EQ(1u, j["entries"]["corruption"].size());
  EXPECT_EQ(root + "/data/notes", j["entries"]["corruption"][0]["container"]);
  RunResult text = RunKudu(tmp, {"fs", "check", "--fs_data_dirs=" + root});
  EXPECT_EQ(1, text.exit_status);
  EXPECT_TRUE(Contains(text.out, "Container name not 32 lowercase hex: " + root + "/data/notes\n"))
      << text.out;
}

}  // namespace
}  // namespace test
}  // namespace kudu
