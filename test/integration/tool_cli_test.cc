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

// The `kudu` command line as an operator meets it, run as a subprocess: help
// at every level, the version, flags refused where they do not belong or
// with bad values (exit 2, one line naming the flag and the value), checked
// writes to standard output, block ids as Kudu prints them, the directory
// flags, `fs list`'s columns and formats, and `fs locate_block`.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kudu/util/env.h"
#include "util/kudu_subprocess.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using nlohmann::json;
using test::Describe;
using test::RunKudu;
using test::RunProgram;
using test::RunResult;
using test::TempDir;


class ToolCliTest : public ::testing::Test {
 protected:
  // One generated root, shared by the cases of a test.
  std::string Generated(const std::string& name, int containers = 3, int blocks = 6,
                        int seed = 1) {
    const std::string root = tmp_.Join(name);
    RunResult r = RunKudu(tmp_, {"fs", "generate", "--fs_data_dirs=" + root,
                                 "--containers=" + std::to_string(containers),
                                 "--blocks_per_container=" + std::to_string(blocks),
                                 "--seed=" + std::to_string(seed)});
    EXPECT_EQ(0, r.exit_status) << Describe(r);
    return root;
  }
  // Exit 2, nothing on stdout, one line on stderr holding every `what`.
  void ExpectUsageError(const std::vector<std::string>& args,
                        const std::vector<std::string>& what) {
    std::string cmd;
    for (const auto& a : args) cmd += " " + a;
    SCOPED_TRACE(cmd);
    RunResult r = RunKudu(tmp_, args);
    EXPECT_EQ(2, r.exit_status) << Describe(r);
    EXPECT_EQ("", r.out);
    const std::vector<std::string> lines = test::NonEmptyLines(r.err);
    ASSERT_EQ(1u, lines.size()) << r.err;
    EXPECT_EQ(0u, lines[0].rfind("kudu: error:", 0)) << lines[0];
    for (const std::string& w : what) EXPECT_NE(std::string::npos, lines[0].find(w)) << lines[0];
  }

  TempDir tmp_;
};

TEST_F(ToolCliTest, HelpAtEveryLevel) {
  RunResult top = RunKudu(tmp_, {"--help"});
  EXPECT_EQ(0, top.exit_status) << Describe(top);
  EXPECT_NE(std::string::npos, top.out.find("  fs\t")) << top.out;
  EXPECT_NE(std::string::npos, top.out.find("  pbc\t")) << top.out;

  RunResult group = RunKudu(tmp_, {"fs", "--help"});
  EXPECT_EQ(0, group.exit_status) << Describe(group);
  for (const char* action : {"check", "list", "generate", "bench", "locate_block"}) {
    EXPECT_NE(std::string::npos, group.out.find(std::string("  ") + action + "\t")) << action;
  }

  for (const char* h : {"--help", "-h", "--helpshort"}) {
    SCOPED_TRACE(h);
    RunResult r = RunKudu(tmp_, {"fs", "check", h});
    EXPECT_EQ(0, r.exit_status) << Describe(r);
    EXPECT_EQ(0u, r.out.rfind("Usage: kudu fs check", 0)) << r.out;
    // Its own flags with their defaults, and nothing of glog's.
    EXPECT_NE(std::string::npos, r.out.find("  -repair (")) << r.out;
    EXPECT_NE(std::string::npos, r.out.find("type: bool default: false")) << r.out;
    EXPECT_NE(std::string::npos, r.out.find("  -fs_wal_dir (")) << r.out;
    EXPECT_NE(std::string::npos, r.out.find("  -fs_max_thread_count_per_data_dir (")) << r.out;
    EXPECT_NE(std::string::npos, r.out.find("type: int32 default: 8")) << r.out;
    EXPECT_EQ(std::string::npos, r.out.find("logtostderr")) << r.out;
    EXPECT_EQ(std::string::npos, r.out.find("-columns")) << r.out;
  }
  RunResult pbc = RunKudu(tmp_, {"pbc", "dump", "--help"});
  EXPECT_EQ(0, pbc.exit_status) << Describe(pbc);
  EXPECT_EQ(0u, pbc.out.rfind("Usage: kudu pbc dump <file>", 0)) << pbc.out;
  EXPECT_NE(std::string::npos, pbc.out.find("  -json_pretty (")) << pbc.out;

  RunResult full = RunKudu(tmp_, {"--helpfull"});
  EXPECT_EQ(0, full.exit_status);
  for (const char* flag : {"log_container_max_size", "fs_metadata_dir", "oneline", "columns",
                           "bench_repetitions", "logtostderr"}) {
    EXPECT_NE(std::string::npos, full.out.find(flag)) << flag;
  }
  RunResult version = RunKudu(tmp_, {"--version"});
  EXPECT_EQ(0, version.exit_status) << Describe(version);
  EXPECT_EQ(0u, version.out.rfind("kudu ", 0)) << version.out;

  // No action: the group's actions on stderr, then the error.
  RunResult bare = RunKudu(tmp_, {"fs"});
  EXPECT_EQ(2, bare.exit_status);
  EXPECT_NE(std::string::npos, bare.err.find("  locate_block\t")) << bare.err;
  EXPECT_NE(std::string::npos, bare.err.find("kudu: error: missing fs command")) << bare.err;
}

TEST_F(ToolCliTest, FlagsAnActionDoesNotTakeAreRefused) {
  const std::string root = Generated("a");
  const std::string dirs = "--fs_data_dirs=" + root;
  ExpectUsageError({"fs", "list", dirs, "--repair"}, {"fs list", "--repair"});
  ExpectUsageError({"fs", "check", dirs, "--columns=offset"}, {"fs check", "--columns"});
  ExpectUsageError({"fs", "check", dirs, "--oneline"}, {"--oneline"});
  ExpectUsageError({"fs", "generate", "--fs_data_dirs=" + tmp_.Join("g"), "--repair"},
                   {"--repair"});
  // glog's flags are taken everywhere.
  RunResult r = RunKudu(tmp_, {"fs", "list", dirs, "--v=0"});
  EXPECT_EQ(0, r.exit_status) << Describe(r);
}

TEST_F(ToolCliTest, BadFlagValuesNameTheFlagAndTheValue) {
  const std::string root = Generated("a");
  const std::string dirs = "--fs_data_dirs=" + root;
  const std::string ratio = "--log_container_live_metadata_before_compact_ratio=";
  for (const char* v : {"-1", "2", "nan", "inf", "-inf", "1.5"}) {
    ExpectUsageError({"fs", "check", dirs, ratio + v},
                     {"log_container_live_metadata_before_compact_ratio", std::string("'") + v});
  }
  ExpectUsageError({"fs", "check", dirs, "--log_container_max_size=0"},
                   {"--log_container_max_size", "'0'"});
  ExpectUsageError({"fs", "check", dirs, "--log_container_max_blocks=-2"},
                   {"--log_container_max_blocks", "'-2'"});
  // A missing first data root stands in for the WAL root: the error names
  // the flag the operator gave.
  const std::string missing = tmp_.Join("missing-root");
  ExpectUsageError({"fs", "check", "--fs_data_dirs=" + missing}, {"--fs_data_dirs", missing});
  ExpectUsageError({"fs", "list", "--fs_data_dirs=" + missing, "--fs_wal_dir=" + missing},
                   {"--fs_wal_dir", missing});
  // Kudu's flag is unsigned (log_block_manager.cc:104): a negative size is no value.
  ExpectUsageError({"fs", "check", dirs, "--log_container_metadata_max_size=-5"},
                   {"--log_container_metadata_max_size", "'-5'"});
  ExpectUsageError({"fs", "check", dirs, "--fs_max_thread_count_per_data_dir=0"},
                   {"--fs_max_thread_count_per_data_dir", "'0'"});
  ExpectUsageError({"fs", "check", dirs,
                    "--log_container_metadata_replay_budget_wait_ms=18446744073709551615"},
                   {"--log_container_metadata_replay_budget_wait_ms", "18446744073709551615"});
  ExpectUsageError({"fs", "check", dirs, "--fs_max_thread_count_per_data_dir=many"},
                   {"--fs_max_thread_count_per_data_dir", "'many'"});
  ExpectUsageError({"fs", "generate", "--fs_data_dirs=" + tmp_.Join("g"), "--containers=-1"},
                   {"--containers", "'-1'"});
  ExpectUsageError({"fs", "list", dirs, "--format=xml"}, {"--format", "xml"});
  ExpectUsageError({"fs", "list", dirs, "--columns=block-id,colour"}, {"--columns", "colour"});
  // The bounds themselves are fine.
  for (const char* v : {"0", "1", "0.25"}) {
    RunResult r = RunKudu(tmp_, {"fs", "check", dirs, ratio + v});
    EXPECT_EQ(0, r.exit_status) << v << Describe(r);
  }
  RunResult r = RunKudu(tmp_, {"fs", "list", dirs, "--log_container_max_blocks=-1",
                               "--log_container_metadata_replay_budget_wait_ms=86400000"});
  EXPECT_EQ(0, r.exit_status) << Describe(r);
}

TEST_F(ToolCliTest, AFailedWriteToStandardOutputIsAnError) {
  if (!env::FileExists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string root = Generated("a");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"fs", "list", "--fs_data_dirs=" + root},
        std::vector<std::string>{"fs", "check", "--fs_data_dirs=" + root},
        std::vector<std::string>{"fs", "check", "--fs_data_dirs=" + root, "--format=json"}}) {
    SCOPED_TRACE(args[1]);
    RunResult r = RunKudu(tmp_, args, "/dev/full");
    EXPECT_EQ(1, r.exit_status) << Describe(r);
    const std::vector<std::string> lines = test::NonEmptyLines(r.err);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(0u, lines.back().rfind("kudu: error: cannot write to standard output", 0))
        << r.err;
  }
}

TEST_F(ToolCliTest, BlockIdsAreZeroPaddedDecimal) {
  const std::string root = Generated("a");
  std::string expected;
  ASSERT_OK(test::ReadFileToString(env::JoinPath(root, "generate_live_blocks.txt"), &expected));
  RunResult list = RunKudu(tmp_, {"fs", "list", "--fs_data_dirs=" + root});
  ASSERT_EQ(0, list.exit_status) << Describe(list);
  EXPECT_EQ(expected, list.out);
  const std::regex line("[0-9]{16,20} [0-9a-f]{32} [0-9]+ [0-9]+");
  const std::vector<std::string> lines = test::NonEmptyLines(list.out);
  ASSERT_FALSE(lines.empty());
  for (const std::string& l : lines) EXPECT_TRUE(std::regex_match(l, line)) << l;

  // The text report's ids are the same decimal form.
  RunResult check = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + root});
  ASSERT_EQ(0, check.exit_status) << Describe(check);
  const std::string max_id = lines.back().substr(0, lines.back().find(' '));
  EXPECT_NE(std::string::npos, check.out.find("(highest block id " + max_id + ")")) << check.out;
}

TEST_F(ToolCliTest, ListColumnsAndFormats) {
  const std::string root = Generated("a", 2, 4);
  const std::string dirs = "--fs_data_dirs=" + root;
  RunResult plain = RunKudu(tmp_, {"fs", "list", dirs});
  ASSERT_EQ(0, plain.exit_status) << Describe(plain);
  const std::vector<std::string> rows = test::NonEmptyLines(plain.out);
  ASSERT_FALSE(rows.empty());
  std::istringstream first(rows[0]);
  std::string id, container, offset, length;
  first >> id >> container >> offset >> length;
  const std::string data_file = root + "/data/" + container + ".data";

  RunResult space = RunKudu(tmp_, {"fs", "list", dirs, "--format=space"});
  EXPECT_EQ(plain.out, space.out);

  RunResult csv = RunKudu(tmp_, {"fs", "list", dirs, "--format=csv",
                                 "--columns=data-file,block-id,length"});
  ASSERT_EQ(0, csv.exit_status) << Describe(csv);
  EXPECT_EQ(data_file + "," + id + "," + length, test::NonEmptyLines(csv.out)[0]);
  EXPECT_EQ(rows.size(), test::NonEmptyLines(csv.out).size());

  RunResult tsv = RunKudu(tmp_, {"fs", "list", dirs, "--format=tsv", "--columns=offset,block-id"});
  EXPECT_EQ(offset + "\t" + id, test::NonEmptyLines(tsv.out)[0]);

  RunResult pretty = RunKudu(tmp_, {"fs", "list", dirs, "--format=pretty"});
  ASSERT_EQ(0, pretty.exit_status) << Describe(pretty);
  const std::vector<std::string> p = test::NonEmptyLines(pretty.out);
  ASSERT_EQ(rows.size() + 2, p.size());
  EXPECT_TRUE(std::regex_match(p[0], std::regex(" block-id +\\| container +\\| offset +\\| length")))
      << p[0];
  EXPECT_EQ(0u, p[1].find("------")) << p[1];
  EXPECT_NE(std::string::npos, p[2].find(id)) << p[2];

  RunResult js = RunKudu(tmp_, {"fs", "list", dirs, "--format=json",
                                "--columns=block-id,container,offset,length,data-file"});
  ASSERT_EQ(0, js.exit_status) << Describe(js);
  json a = json::parse(js.out);
  ASSERT_TRUE(a.is_array());
  ASSERT_EQ(rows.size(), a.size());
  EXPECT_EQ(id, a[0]["block-id"]);
  EXPECT_EQ(container, a[0]["container"]);
  EXPECT_EQ(std::stoll(offset), a[0]["offset"].get<int64_t>());
  EXPECT_EQ(std::stoll(length), a[0]["length"].get<int64_t>());
  EXPECT_EQ(data_file, a[0]["data-file"]);

  ASSERT_OK(env::CreateDirs(tmp_.Join("empty/data")));
  RunResult none = RunKudu(tmp_, {"fs", "list", "--fs_data_dirs=" + tmp_.Join("empty"),
                                  "--format=json"});
  EXPECT_EQ("[]\n", none.out);
}

TEST_F(ToolCliTest, LocateBlock) {
  const std::string root = Generated("a", 2, 4);
  const std::string dirs = "--fs_data_dirs=" + root;
  RunResult plain = RunKudu(tmp_, {"fs", "list", dirs});
  const std::vector<std::string> rows = test::NonEmptyLines(plain.out);
  ASSERT_GE(rows.size(), 2u);
  std::istringstream a(rows[0]), b(rows.back());
  std::string id_a, c_a, id_b, c_b;
  a >> id_a >> c_a;
  b >> id_b >> c_b;

  // Unpadded input prints padded, as Kudu prints ids.
  const std::string unpadded = std::to_string(std::stoull(id_b));
  RunResult found = RunKudu(tmp_, {"fs", "locate_block", dirs, id_a, unpadded});
  ASSERT_EQ(0, found.exit_status) << Describe(found);
  EXPECT_EQ(id_a + " | " + root + "/data/" + c_a + ".data\n" + id_b + " | " + root + "/data/" +
                c_b + ".data\n",
            found.out);

  // Hyphens for underscores in action names, as Kudu's tool takes them.
  RunResult hyphen = RunKudu(tmp_, {"fs", "locate-block", dirs, id_a, unpadded});
  EXPECT_EQ(0, hyphen.exit_status) << Describe(hyphen);
  EXPECT_EQ(found.out, hyphen.out);

  RunResult missing = RunKudu(tmp_, {"fs", "locate_block", dirs, id_a, "18446744073709551615"});
  EXPECT_EQ(1, missing.exit_status) << Describe(missing);
  EXPECT_NE(std::string::npos, missing.out.find("18446744073709551615 | not found")) << missing.out;
  EXPECT_NE(std::string::npos, missing.out.find(id_a + " | ")) << missing.out;
  EXPECT_NE(std::string::npos, missing.err.find("1 of 2 blocks not found")) << missing.err;

  // Kudu's tool reads ids with safe_strtou64: a '+' and white space around
  // the digits are accepted, nothing else.
  RunResult signed_id = RunKudu(tmp_, {"fs", "locate_block", dirs, "+" + id_a, " " + unpadded + "\t"});
  EXPECT_EQ(0, signed_id.exit_status) << Describe(signed_id);
  EXPECT_EQ(found.out, signed_id.out);
  ExpectUsageError({"fs", "locate_block", dirs, "1-"}, {"1-"});
  ExpectUsageError({"fs", "locate_block", dirs, "+"}, {"+"});
  ExpectUsageError({"fs", "locate_block", dirs, "1 2"}, {"1 2"});
  ExpectUsageError({"fs", "locate_block", dirs, "0x10"}, {"0x10"});
  ExpectUsageError({"fs", "locate_block", dirs, "18446744073709551616"}, {"18446744073709551616"});
  RunResult none = RunKudu(tmp_, {"fs", "locate_block", dirs});
  EXPECT_EQ(2, none.exit_status);
  EXPECT_EQ(0u, none.err.rfind("Usage: kudu fs locate_block <block id>...", 0)) << none.err;
}

// A path may hold any byte but '/' and NUL, UTF-8 or not. The JSON
// outputs still come out whole, with U+FFFD for such bytes (JSON strings
// cannot carry them); the text ones print the bytes as they are.
TEST_F(ToolCliTest, PathsThatAreNotUtf8StillGiveJson) {
  const std::string root = Generated(std::string("r\xfe", 2), 2, 4);
  const std::string dirs = "--fs_data_dirs=" + root;
  std::string shown = root;
  shown.replace(shown.size() - 1, 1, "\xef\xbf\xbd");  // U+FFFD for the 0xfe

  RunResult check = RunKudu(tmp_, {"fs", "check", dirs, "--format=json"});
  ASSERT_EQ(0, check.exit_status) << Describe(check);
  json j = json::parse(check.out);
  EXPECT_EQ(shown + "/data", j["data_dirs"][0].get<std::string>());

  RunResult list = RunKudu(tmp_, {"fs", "list", dirs, "--format=json"});
  ASSERT_EQ(0, list.exit_status) << Describe(list);
  RunResult rows = RunKudu(tmp_, {"fs", "list", dirs});
  ASSERT_EQ(0, rows.exit_status) << Describe(rows);
  EXPECT_EQ(test::NonEmptyLines(rows.out).size(), json::parse(list.out).size()) << list.out;

  RunResult text = RunKudu(tmp_, {"fs", "check", dirs});
  ASSERT_EQ(0, text.exit_status) << Describe(text);
  EXPECT_NE(std::string::npos, text.out.find(root + "/data")) << text.out;
}

// The open's report with what varies from run to run taken out.
json StableReport(const std::string& out) {
  json j = json::parse(out);
  j.erase("replay");
  j.erase("timing");
  return j;
}

// Too few file descriptors says nothing about the disk: the open either
// gives the report it gives without a limit, or fails with one line saying
// what ran out and prints no report, never one with containers called
// corrupt for it (which would depend on the limit, the threads and the
// page cache). Not under the sanitizers: their runtimes need descriptors
// of their own (UBSan's check of a dynamic type opens a pipe to test that
// memory is readable, and reports a bad vptr when it cannot).
TEST_F(ToolCliTest, RunningOutOfDescriptorsIsNoCorruption) {
#if defined(KUDU_ASAN) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizers' runtimes need descriptors of their own";
#endif
  const std::string dirs =
      "--fs_data_dirs=" + tmp_.Join("a") + "," + tmp_.Join("b") + "," + tmp_.Join("c");
  RunResult g = RunKudu(tmp_, {"fs", "generate", dirs, "--containers=2000",
                               "--blocks_per_container=2"});
  ASSERT_EQ(0, g.exit_status) << Describe(g);
  RunResult ref = RunKudu(tmp_, {"fs", "check", dirs, "--format=json"});
  ASSERT_EQ(0, ref.exit_status) << Describe(ref);
  int failed = 0;
  for (const char* strategy : {"streaming", "auto"}) {
    for (int limit : {16, 20, 28}) {
      SCOPED_TRACE(std::string(strategy) + " under ulimit -n " + std::to_string(limit));
      RunResult r = RunProgram(
          tmp_, "/bin/sh",
          {"-c", "ulimit -n " + std::to_string(limit) + "; exec " + test::KuduBinary() +
                     " fs check " + dirs + " --format=json" +
                     " --log_container_metadata_replay_strategy=" + strategy});
      if (r.exit_status == 0) {
        EXPECT_EQ(StableReport(ref.out), StableReport(r.out));
        continue;
      }
      failed++;
      EXPECT_EQ(1, r.exit_status) << Describe(r);
      EXPECT_EQ("", r.out);
      EXPECT_NE(std::string::npos, r.err.find("Too many open files")) << r.err;
    }
  }
  EXPECT_GT(failed, 0) << "no limit was low enough to be tested";
}

// Out of memory or threads (address space limited with `ulimit -v`), the
// tool either gives the report it gives without a limit or ends with one
// line saying what ran out, exit 1, nothing on standard output: no abort,
// no partial report. (Below some limit tcmalloc's own start fails, before
// the tool runs: the scan stops there.) Not under the sanitizers, whose
// shadow memory needs terabytes of address space.
TEST_F(ToolCliTest, RunningOutOfMemoryIsOneLine) {
#if defined(KUDU_ASAN) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "address-space limits and sanitizers do not mix";
#endif
  const std::string dirs = "--fs_data_dirs=" + Generated("a", 20, 50);
  RunResult ref = RunKudu(tmp_, {"fs", "check", dirs, "--format=json"});
  ASSERT_EQ(0, ref.exit_status) << Describe(ref);
  int one_line = 0;
  for (int mb = 160; mb >= 16; mb -= 8) {
    SCOPED_TRACE("ulimit -v " + std::to_string(mb) + " MiB");
    RunResult r = RunProgram(tmp_, "/bin/sh",
                             {"-c", "ulimit -v " + std::to_string(mb * 1024) + "; exec " +
                                        test::KuduBinary() + " fs check " + dirs +
                                        " --format=json"});
    if (r.exit_status == 0) {
      EXPECT_EQ(StableReport(ref.out), StableReport(r.out));
      continue;
    }
    if (r.err.find("tcmalloc") != std::string::npos) break;
    one_line++;
    EXPECT_EQ(1, r.exit_status) << Describe(r);
    EXPECT_EQ("", r.out);
    const std::vector<std::string> lines = test::NonEmptyLines(r.err);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(0u, lines.back().rfind("kudu: error: ", 0)) << r.err;
    EXPECT_EQ(std::string::npos, r.err.find("terminate called")) << r.err;
  }
  EXPECT_GT(one_line, 0) << "no limit was low enough to be tested";
}

TEST_F(ToolCliTest, DirectoryFlags) {
  const std::string a = Generated("a", 2, 4);
  const std::string b = Generated("b", 2, 4, 2);
  // Two servers' roots used as one server's: without what `kudu fs format`
  // lays out (synthetic dirs), since their instance uuids differ and the
  // tablet-meta entry would decide the metadata root.
  for (const std::string& root : {a, b}) {
    ASSERT_OK(env::DeleteFile(root + "/instance"));
    ASSERT_OK(env::DeleteFile(root + "/data/block_manager_instance"));
    for (const char* dir : {"/wals", "/tablet-meta", "/consensus-meta"}) {
      ASSERT_OK(env::DeleteRecursively(root + dir));
    }
  }
  RunResult both = RunKudu(tmp_, {"fs", "list", "--fs_data_dirs=" + a + "," + b});
  ASSERT_EQ(0, both.exit_status) << Describe(both);

  // Empty entries are skipped; a root spelled twice counts once.
  RunResult spelled = RunKudu(tmp_, {"fs", "list", "--fs_data_dirs=," + a + ",," + b + "/," +
                                                       tmp_.Join("b/../a") + ","});
  EXPECT_EQ(0, spelled.exit_status) << Describe(spelled);
  EXPECT_EQ(both.out, spelled.out);
  // The same dir under another name (a symlink to a root) would be opened
  // twice, every id a duplicate of itself: refused, naming both.
  const std::string alias = tmp_.Join("alias");
  ASSERT_EQ(0, ::symlink(a.c_str(), alias.c_str()));
  ExpectUsageError({"fs", "list", "--fs_data_dirs=" + a + "," + alias}, {a, alias});
  ExpectUsageError({"fs", "check", "--fs_data_dirs=" + alias + "," + b + "," + a, "--repair"},
                   {a, alias, "the same directory"});

  // The WAL root alone is the data root.
  RunResult wal = RunKudu(tmp_, {"fs", "check", "--fs_wal_dir=" + a, "--format=json"});
  ASSERT_EQ(0, wal.exit_status) << Describe(wal);
  json j = json::parse(wal.out);
  EXPECT_EQ(a, j["wal_dir"]);
  EXPECT_EQ(a, j["metadata_dir"]);
  EXPECT_EQ(1u, j["data_dirs"].size());

  // A WAL root beside the data roots is not opened; the metadata root is the
  // first data root once it has a tablet-meta entry (a plain file counts).
  const std::string w = tmp_.Join("wal");
  ASSERT_OK(env::CreateDirs(w));
  RunResult text = RunKudu(tmp_, {"fs", "check", "--fs_wal_dir=" + w, "--fs_data_dirs=" + b});
  ASSERT_EQ(0, text.exit_status) << Describe(text);
  EXPECT_NE(std::string::npos, text.out.find("wal directory: " + w + "\n")) << text.out;
  EXPECT_NE(std::string::npos, text.out.find("metadata directory: " + w + "\n")) << text.out;
  ASSERT_OK(test::WriteStringToFile(b + "/tablet-meta", ""));
  text = RunKudu(tmp_, {"fs", "check", "--fs_wal_dir=" + w, "--fs_data_dirs=" + b});
  EXPECT_NE(std::string::npos, text.out.find("metadata directory: " + b + "\n")) << text.out;
  const std::string m = tmp_.Join("meta");
  ExpectUsageError({"fs", "check", "--fs_wal_dir=" + w, "--fs_data_dirs=" + b,
                    "--fs_metadata_dir=" + m},
                   {"--fs_metadata_dir", m});
  ExpectUsageError({"fs", "list", "--fs_wal_dir=" + tmp_.Join("nowal"), "--fs_data_dirs=" + b},
                   {"--fs_wal_dir", tmp_.Join("nowal")});
  ASSERT_OK(env::CreateDirs(m));
  text = RunKudu(tmp_, {"fs", "check", "--fs_wal_dir=" + w, "--fs_data_dirs=" + b,
                        "--fs_metadata_dir=" + m + "/"});
  EXPECT_NE(std::string::npos, text.out.find("metadata directory: " + m + "\n")) << text.out;

  // Canonical: a symlinked parent resolves.
  ASSERT_EQ(0, ::symlink(tmp_.path().c_str(), tmp_.Join("link").c_str()));
  RunResult linked = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + tmp_.Join("link") + "/a",
                                    "--format=json"});
  ASSERT_EQ(0, linked.exit_status) << Describe(linked);
  // Reported as the canonical root (with or without its /data).
  const std::string reported = json::parse(linked.out)["data_dirs"][0];
  EXPECT_EQ(0u, reported.rfind(a, 0)) << reported;
  EXPECT_EQ(a, json::parse(linked.out)["wal_dir"]);

  ExpectUsageError({"fs", "list", "--fs_data_dirs=relative/dir"}, {"Relative path", "relative/dir"});
  ExpectUsageError({"fs", "list", "--fs_data_dirs= " + a}, {"illegal whitespace"});
  ExpectUsageError({"fs", "list", "--fs_wal_dir=" + a + " "}, {"illegal whitespace"});
  ExpectUsageError({"fs", "list", "--fs_data_dirs=" + tmp_.Join("nowhere/x")}, {"nowhere"});
}

}  // namespace
}  // namespace kudu
