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

// `kudu fs check` and `kudu fs list` run as subprocesses, the way an
// operator runs them: output formats, exit statuses (0 ok, 1 fatal
// inconsistency with the report still printed, 2 usage error with one line
// on stderr naming the path), and the syscall count cross-checked with
// strace when it is available.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kudu/fs/container_writer.h"
#include "kudu/util/env.h"
#include "util/fs_fixture_util.h"
#include "util/kudu_subprocess.h"
#include "util/kudu_tool_fixture.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using nlohmann::json;
using test::Describe;
using test::KuduBinary;
using test::RunKudu;
using test::RunProgram;
using test::RunResult;
using test::TempDir;


constexpr char kKeyHex[] = "000102030405060708090a0b0c0d0e0f";
constexpr char kOtherKeyHex[] = "f00102030405060708090a0b0c0d0e0f";



using test::ErrorLines;

class ToolCheckTest : public test::KuduToolTest {};

TEST_F(ToolCheckTest, CheckAndListAgreeWithTheGenerator) {
  const std::vector<std::string> roots = {tmp_.Join("a"), tmp_.Join("b"), tmp_.Join("c")};
  Generate(roots, 60, 30);
  ASSERT_FALSE(HasFatalFailure());
  std::string expected_list;
  ASSERT_OK(test::ReadFileToString(env::JoinPath(roots[0], "generate_live_blocks.txt"),
                                   &expected_list));
  const size_t live = test::NonEmptyLines(expected_list).size();

  RunResult list = RunKudu(tmp_, {"fs", "list", "--fs_data_dirs=" + Join(roots)});
  ASSERT_EQ(0, list.exit_status) << Describe(list);
  EXPECT_EQ(expected_list, list.out);

  json first;
  for (const char* strategy : {"streaming", "inmemory", "auto"}) {
    SCOPED_TRACE(strategy);
    RunResult r = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + Join(roots), "--format=json",
                                 std::string("--log_container_metadata_replay_strategy=") +
                                     strategy,
                                 "--fs_max_thread_count_per_data_dir=3"});
    ASSERT_EQ(0, r.exit_status) << Describe(r);
    // stdout is one JSON object and nothing else.
    json j = json::parse(r.out);
    ASSERT_TRUE(j.is_object());
    // Every key of the tool contract.
    for (const char* key :
         {"ok", "status", "wal_dir", "metadata_dir", "data_dirs", "encrypted", "containers",
          "full_containers", "dead_containers", "low_live_containers", "live_blocks",
          "live_bytes", "live_bytes_aligned", "max_block_id", "next_block_id",
          "malformed_records", "misaligned_blocks", "partial_records", "incomplete_containers",
          "full_container_extra_space", "full_container_extra_space_bytes",
          "corrupt_containers", "leftover_tmp_files", "unexpected_files",
          "nonstandard_container_names", "unlocked_dirs", "repair_errors", "repaired", "entries",
          "replay", "timing"}) {
      EXPECT_TRUE(j.contains(key)) << key;
    }
    for (const char* key : {"full_container_extra_space", "full_container_extra_space_bytes",
                            "incomplete_containers", "partial_records", "dead_containers",
                            "compacted_containers", "leftover_tmp_files", "punched_blocks"}) {
      EXPECT_EQ(0u, j["repaired"][key].get<uint64_t>()) << key;
    }
    // Each count is its list's length.
    for (const char* key :
         {"malformed_records", "misaligned_blocks", "partial_records", "incomplete_containers",
          "full_container_extra_space", "dead_containers", "low_live_containers",
          "leftover_tmp_files", "unexpected_files", "nonstandard_container_names",
          "unlocked_dirs", "repair_errors"}) {
      ASSERT_TRUE(j["entries"][key].is_array()) << key;
      EXPECT_EQ(j["entries"][key].size(), j[key].get<uint64_t>()) << key;
    }
    EXPECT_TRUE(j["entries"]["corruption"].is_array());
    for (const char* key : {"containers_by_strategy", "fallbacks", "metadata_read_syscalls",
                            "metadata_bytes_read", "peak_buffer_bytes", "memory_budget_bytes"}) {
      EXPECT_TRUE(j["replay"].contains(key)) << key;
    }
    EXPECT_TRUE(j["ok"].get<bool>());
    EXPECT_EQ("OK", j["status"]);
    EXPECT_EQ(60u, j["containers"].get<uint64_t>());
    EXPECT_EQ(live, j["live_blocks"].get<uint64_t>());
    EXPECT_EQ(60u, j["replay"]["containers_by_strategy"][std::string(strategy) == "streaming"
                                                            ? "streaming"
                                                            : "inmemory"]
                       .get<uint64_t>());
    j.erase("replay");
    j.erase("timing");
    if (first.is_null()) {
      first = j;
    } else {
      EXPECT_EQ(first, j);
    }
  }

  RunResult text = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + Join(roots)});
  ASSERT_EQ(0, text.exit_status) << Describe(text);
  EXPECT_NE(std::string::npos, text.out.find("FS layout report"));
  EXPECT_NE(std::string::npos, text.out.find("Total live blocks: " + std::to_string(live)));
  EXPECT_NE(std::string::npos, text.out.find("Status: OK"));
  // Progress and timing go to the log (stderr).
  EXPECT_NE(std::string::npos, text.err.find("Opened 60 log block containers in"));
}

TEST_F(ToolCheckTest, ProgressIsLoggedEvery200Containers) {
  const std::vector<std::string> roots = {tmp_.Join("a")};
  Generate(roots, 450, 1);
  ASSERT_FALSE(HasFatalFailure());
  RunResult r = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + Join(roots)});
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  EXPECT_NE(std::string::npos, r.err.find("Opened 200 log block containers (of 450, 44%)"));
  EXPECT_NE(std::string::npos, r.err.find("Opened 400 log block containers (of 450, 88%)"));
  EXPECT_NE(std::string::npos, r.err.find("Opened 450 log block containers in"));
  // In order, the first line first, each line with what was read and what is left.
  const size_t opening = r.err.find("Opening 450 log block containers in 1 data dirs");
  const size_t first = r.err.find("Opened 200 log block containers");
  const size_t second = r.err.find("Opened 400 log block containers");
  ASSERT_NE(std::string::npos, opening) << r.err;
  EXPECT_LT(opening, first);
  EXPECT_LT(first, second);
  const std::string line = r.err.substr(first, r.err.find('\n', first) - first);
  EXPECT_NE(std::string::npos, line.find("of metadata read")) << line;
  EXPECT_NE(std::string::npos, line.find("elapsed")) << line;
  EXPECT_NE(std::string::npos, line.find("left")) << line;
}

TEST_F(ToolCheckTest, EncryptedDirsWithTheKeyInEitherForm) {
  const std::vector<std::string> roots = {tmp_.Join("a"), tmp_.Join("b")};
  Generate(roots, 20, 10, {"--encrypt", std::string("--server_key_hex=") + kKeyHex});
  ASSERT_FALSE(HasFatalFailure());
  std::string expected_list;
  ASSERT_OK(test::ReadFileToString(env::JoinPath(roots[0], "generate_live_blocks.txt"),
                                   &expected_list));
  RunResult list = RunKudu(tmp_, {"fs", "list", "--fs_data_dirs=" + Join(roots),
                                  std::string("--server_key_hex=") + kKeyHex});
  ASSERT_EQ(0, list.exit_status) << Describe(list);
  EXPECT_EQ(expected_list, list.out);

  // Kudu's test key provider form: every byte XORed with 42.
  ServerKey key;
  ASSERT_OK(ServerKey::FromHex(kKeyHex, &key));
  std::string xored;
  char hex[3];
  for (unsigned char c : key.bytes()) {
    std::snprintf(hex, sizeof(hex), "%02x", c ^ 42);
    xored += hex;
  }
  RunResult check = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + Join(roots), "--format=json",
                                   "--server_key_test_provider_hex=" + xored});
  ASSERT_EQ(0, check.exit_status) << Describe(check);
  json j = json::parse(check.out);
  EXPECT_TRUE(j["encrypted"].get<bool>());
  EXPECT_EQ(test::NonEmptyLines(expected_list).size(), j["live_blocks"].get<uint64_t>());
  EXPECT_EQ(20u, j["replay"]["containers_by_strategy"]["encrypted_inmemory"].get<uint64_t>());

  // generate stored the key in the instance files (§1), where an open
  // without --server_key_hex finds it: without them no key is anywhere.
  for (const std::string& r : roots) ASSERT_OK(env::DeleteFile(env::JoinPath(r, "instance")));
  // Without the key the dirs are read as plain ones (§5: a dir is encrypted
  // when it has a key): every metadata file has a bad magic, which is
  // damage, reported container by container (exit 1), not a usage error.
  RunResult nokey = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + Join(roots),
                                   "--format=json"});
  ASSERT_EQ(1, nokey.exit_status) << Describe(nokey);
  json jn = json::parse(nokey.out);
  EXPECT_FALSE(jn["ok"].get<bool>());
  EXPECT_FALSE(jn["encrypted"].get<bool>());
  EXPECT_EQ(20u, jn["corrupt_containers"].get<uint64_t>());
  EXPECT_EQ(0u, jn["containers"].get<uint64_t>());
  const std::vector<std::string> nokey_err = test::NonEmptyLines(nokey.err);
  ASSERT_FALSE(nokey_err.empty());
  EXPECT_EQ(0u, nokey_err.back().rfind("kudu: error:", 0)) << nokey_err.back();
  EXPECT_NE(std::string::npos, nokey_err.back().find("no server key was given"))
      << nokey_err.back();
  RunResult nokey_list = RunKudu(tmp_, {"fs", "list", "--fs_data_dirs=" + Join(roots)});
  EXPECT_EQ(1, nokey_list.exit_status) << Describe(nokey_list);
  EXPECT_EQ("", nokey_list.out);
  // With the wrong key, a key of the wrong length, or not hex.
  ExpectUsageError({"fs", "check", "--fs_data_dirs=" + Join(roots),
                    std::string("--server_key_hex=") + kOtherKeyHex},
                   "wrong server key? (the key given on the command line)");
  ExpectUsageError({"fs", "check", "--fs_data_dirs=" + Join(roots),
                    std::string("--server_key_hex=") + kOtherKeyHex},
                   roots[0]);
  ExpectUsageError({"fs", "check", "--fs_data_dirs=" + Join(roots), "--server_key_hex=0011223344"},
                   "16, 24 or 32 bytes");
  ExpectUsageError({"fs", "check", "--fs_data_dirs=" + Join(roots), "--server_key_hex=zz"},
                   "--server_key_hex");
}

// Kudu's FS layout report, line for line (tool contract, "Text report"),
// then the project's sections and the status as the last line.
TEST_F(ToolCheckTest, TextReportStartsWithKudusLayoutReport) {
  const std::vector<std::string> roots = {tmp_.Join("a"), tmp_.Join("b")};
  Generate(roots, 4, 10);
  ASSERT_FALSE(HasFatalFailure());
  RunResult js = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + Join(roots), "--format=json"});
  ASSERT_EQ(0, js.exit_status) << Describe(js);
  const json j = json::parse(js.out);
  RunResult r = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + Join(roots)});
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  auto n = [&](const char* key) { return std::to_string(j[key].get<uint64_t>()); };
  const std::string want =
      "FS layout report\n"
      "--------------------\n"
      "wal directory: " + j["wal_dir"].get<std::string>() + "\n"
      "metadata directory: " + j["metadata_dir"].get<std::string>() + "\n"
      "2 data directories: " + roots[0] + "/data, " + roots[1] + "/data\n"
      "Total live blocks: " + n("live_blocks") + "\n"
      "Total live bytes: " + n("live_bytes") + "\n"
      "Total live bytes (after alignment): " + n("live_bytes_aligned") + "\n"
      "Total number of LBM containers: 4 (" + n("full_containers") + " full)\n"
      "Did not check for missing blocks\n"
      "Did not check for orphaned blocks\n"
      "Total full LBM containers with extra space: 0 (0 repaired)\n"
      "Total full LBM container extra space in bytes: 0 (0 repaired)\n"
      "Total incomplete LBM containers: 0 (0 repaired)\n"
      "Total LBM partial records: 0 (0 repaired)\n"
      "Total corrupted LBM metadata records in RocksDB: 0 (0 repaired)\n"
      "\n";
  EXPECT_EQ(want, r.out.substr(0, want.size()));
  EXPECT_EQ(roots[0], j["wal_dir"]);
  const std::vector<std::string> lines = test::NonEmptyLines(r.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ("Status: OK", lines.back());
  EXPECT_EQ('\n', r.out.back());
}

// §4.4: a data file truncated to 0 bytes leaves every CREATE of a non-empty
// block past its end: malformed records, fatal as for a Kudu server, which
// refuses to start on it.
TEST_F(ToolCheckTest, DataFileTruncatedToZeroIsFatal) {
  const std::string root = tmp_.Join("a");
  Generate({root}, 2, 10);
  ASSERT_FALSE(HasFatalFailure());
  std::vector<std::string> names;
  ASSERT_OK(env::ListDir(env::JoinPath(root, "data"), &names));
  std::sort(names.begin(), names.end());
  std::string data, id;
  for (const std::string& nm : names) {
    if (nm.size() > 5 && nm.substr(nm.size() - 5) == ".data") {
      data = env::JoinPath(root, "data/" + nm);
      id = nm.substr(0, nm.size() - 5);
      break;
    }
  }
  ASSERT_FALSE(data.empty());
  ASSERT_OK(test::TruncateFileTo(data, 0));

  RunResult r = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + root, "--format=json"});
  EXPECT_EQ(1, r.exit_status) << Describe(r);
  const json j = json::parse(r.out);
  EXPECT_FALSE(j["ok"].get<bool>());
  EXPECT_EQ("Corruption: found at least one fatal error in block manager on-disk state. See "
            "block manager consistency report for details",
            j["status"]);
  ASSERT_GT(j["malformed_records"].get<uint64_t>(), 0u);
  EXPECT_EQ(0u, j["corrupt_containers"].get<uint64_t>());
  // Each CREATE past the end; the DELETEs of those blocks then find them not live.
  size_t past_end = 0;
  for (const auto& e : j["entries"]["malformed_records"]) {
    EXPECT_EQ(root + "/data/" + id, e["container"]);
    const std::string reason = e["reason"];
    EXPECT_TRUE(reason == "past_end_of_data" || reason == "delete_not_live") << reason;
    past_end += reason == "past_end_of_data";
  }
  EXPECT_EQ(10u, past_end);
  RunResult text = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + root});
  EXPECT_EQ(1, text.exit_status) << Describe(text);
  EXPECT_NE(std::string::npos,
            text.out.find("Fatal error: malformed record in container " + root + "/data/" + id +
                          ": block_id {\n"));
  EXPECT_EQ("Status: Corruption: found at least one fatal error in block manager on-disk state. "
            "See block manager consistency report for details",
            test::NonEmptyLines(text.out).back());
  RunResult list = RunKudu(tmp_, {"fs", "list", "--fs_data_dirs=" + root});
  EXPECT_EQ(1, list.exit_status) << Describe(list);
  EXPECT_EQ("", list.out);
}

// `kudu fs check --format=json` of `root` beside a running server, played
// by a preloaded shim: `data` grows to `size` bytes when the check opens
// `metadata`, after its listing stat'ed `data` and before its records are
// read.
RunResult CheckWhileGrowing(const TempDir& tmp, const std::string& root,
                            const std::string& metadata, const std::string& data, uint64_t size) {
  const std::string shim =
      env::JoinPath(env::DirName(KuduBinary()), "libgrowing_data_file_shim.so");
  EXPECT_TRUE(env::FileExists(shim)) << shim;
  const std::string log = tmp.Join("grown");
  RunResult r = RunProgram(
      tmp, "env",
      {"LD_PRELOAD=" + shim, "KUDU_TEST_GROW_ON_OPEN=" + metadata.substr(metadata.rfind('/') + 1),
       "KUDU_TEST_GROW_FILE=" + data, "KUDU_TEST_GROW_TO=" + std::to_string(size),
       "KUDU_TEST_GROW_LOG=" + log, KuduBinary(), "fs", "check", "--fs_data_dirs=" + root,
       "--format=json"});
  std::string grown;
  EXPECT_OK(test::ReadFileToString(log, &grown));
  EXPECT_EQ("grew " + data + " to " + std::to_string(size) + "\n", grown)
      << "the shim did not grow the data file";
  return r;
}

// A read-only check beside a running server (§1): the server appends a
// block to a container after the check's listing stat'ed its data file and
// before its records are read. Its CREATE, past the end of the size the
// listing saw, asks the size again (Kudu's KUDU-1657) and is live, not a
// malformed record.
TEST_F(ToolCheckTest, ABlockAppendedDuringACheckIsLive) {
  const std::string root = tmp_.Join("a");
  Generate({root}, 2, 10, {"--deleted_block_percentage=0"});
  ASSERT_FALSE(HasFatalFailure());
  const std::string metadata = MetadataFiles(root).front();
  const std::string data = metadata.substr(0, metadata.size() - 9) + ".data";
  const uint64_t size = test::FileSizeOrDie(data);
  ASSERT_OK(test::TruncateFileTo(data, 4096));  // as the listing sees it: one block
  RunResult before = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + root, "--format=json"});
  ASSERT_EQ(1, before.exit_status) << Describe(before);
  EXPECT_EQ(9u, json::parse(before.out)["malformed_records"].get<uint64_t>()) << before.out;

  RunResult r = CheckWhileGrowing(tmp_, root, metadata, data, size);
  ASSERT_FALSE(HasFailure());
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  const json j = json::parse(r.out);
  EXPECT_EQ(0u, j["malformed_records"].get<uint64_t>()) << r.out;
  EXPECT_EQ(20u, j["live_blocks"].get<uint64_t>()) << r.out;
}

// The block appended so is a duplicate of another container's: the report
// names its record at its own offset. The rescan that finds the record
// checks records against the size the replay did, the grown one.
TEST_F(ToolCheckTest, ADuplicateAppendedDuringACheckIsNamedByItsRecord) {
  const std::string root = tmp_.Join("a");
  Generate({root}, 1, 4);
  ASSERT_FALSE(HasFatalFailure());
  const std::vector<BlockRecordPB> first = {test::MakeCreate(7, 0, 100)};
  const std::vector<BlockRecordPB> second = {test::MakeCreate(8, 0, 100),
                                             test::MakeCreate(7, 4096, 100)};
  test::HandContainer a, b;
  ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(1), 4096, &first, nullptr, &a));
  ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(2), 4096, &second, nullptr, &b));
  RunResult r = CheckWhileGrowing(tmp_, root, b.metadata_path, b.data_path, 8192);
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(1, r.exit_status) << Describe(r);
  EXPECT_NE(std::string::npos,
            r.out.find(b.metadata_path + ": record at offset " +
                       std::to_string(b.record_offsets[1]) + ": block "))
      << r.out;
}

// The runtime compaction rule needs a positive size ratio: a usage error.
TEST_F(ToolCheckTest, RuntimeCompactionWithoutASizeRatioIsAUsageError) {
  const std::string root = tmp_.Join("a");
  Generate({root}, 1, 4);
  ASSERT_FALSE(HasFatalFailure());
  ExpectUsageError({"fs", "check", "--fs_data_dirs=" + root,
                    "--log_container_metadata_runtime_compact",
                    "--log_container_metadata_size_before_compact_ratio=0"},
                   "--log_container_metadata_size_before_compact_ratio");
}

TEST_F(ToolCheckTest, FatalCorruptionGivesExitOneAndTheReport) {
  const std::string root = tmp_.Join("a");
  Generate({root}, 5, 20);
  ASSERT_FALSE(HasFatalFailure());
  const std::vector<std::string> mds = MetadataFiles(root);
  ASSERT_FALSE(mds.empty());
  const std::string md = mds.front();
  // A byte in the middle of the file: mid-file corruption.
  const uint64_t size = test::FileSizeOrDie(md);
  ASSERT_OK(test::FlipByte(md, size / 2));

  RunResult r = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + root, "--format=json"});
  EXPECT_EQ(1, r.exit_status) << Describe(r);
  json j = json::parse(r.out);
  EXPECT_FALSE(j["ok"].get<bool>());
  const std::string status = j["status"];
  EXPECT_NE(std::string::npos, status.find(md)) << status;
  EXPECT_NE(std::string::npos, status.find("offset")) << status;
  ASSERT_EQ(1u, j["entries"]["corruption"].size());
  EXPECT_EQ(md, j["entries"]["corruption"][0]["file"]);
  std::vector<std::string> errors = ErrorLines(r.err);
  ASSERT_EQ(1u, errors.size()) << r.err;
  EXPECT_NE(std::string::npos, errors[0].find(md));

  RunResult text = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + root});
  EXPECT_EQ(1, text.exit_status) << Describe(text);
  EXPECT_NE(std::string::npos, text.out.find("FS layout report"));

  // A list is all or nothing: no partial block map.
  RunResult list = RunKudu(tmp_, {"fs", "list", "--fs_data_dirs=" + root});
  EXPECT_EQ(1, list.exit_status) << Describe(list);
  EXPECT_EQ("", list.out);
  EXPECT_EQ(1u, ErrorLines(list.err).size()) << list.err;

  // --repair does not touch it.
  std::string before;
  ASSERT_OK(test::ReadFileToString(md, &before));
  RunResult rep = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + root, "--repair"});
  EXPECT_EQ(1, rep.exit_status) << Describe(rep);
  std::string after;
  ASSERT_OK(test::ReadFileToString(md, &after));
  EXPECT_EQ(before, after);
}

TEST_F(ToolCheckTest, RepairRoundTrip) {
  const std::string root = tmp_.Join("a");
  Generate({root}, 4, 10);
  ASSERT_FALSE(HasFatalFailure());
  const std::vector<std::string> mds = MetadataFiles(root);
  ASSERT_GE(mds.size(), 2u);
  for (size_t i = 0; i < 2; i++) ASSERT_OK(test::AppendZeros(mds[i], 17));
  // An incomplete container: a crash right after creating the data file.
  ASSERT_OK(test::WriteStringToFile(
      env::JoinPath(root, "data/" + test::ContainerIdFor(77) + ".data"), ""));
  std::string expected_list;
  ASSERT_OK(test::ReadFileToString(env::JoinPath(root, "generate_live_blocks.txt"),
                                   &expected_list));

  RunResult check = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + root, "--format=json"});
  ASSERT_EQ(0, check.exit_status) << Describe(check);
  json j = json::parse(check.out);
  EXPECT_EQ(2u, j["partial_records"].get<uint64_t>());
  EXPECT_EQ(1u, j["incomplete_containers"].get<uint64_t>());
  EXPECT_FALSE(j.contains("repairs"));

  RunResult rep =
      RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + root, "--format=json", "--repair"});
  ASSERT_EQ(0, rep.exit_status) << Describe(rep);
  json jr = json::parse(rep.out);
  ASSERT_TRUE(jr.contains("repairs"));
  EXPECT_EQ(2u, jr["repairs"]["partial_records_truncated"].get<uint64_t>());
  EXPECT_EQ(1u, jr["repairs"]["incomplete_containers_deleted"].get<uint64_t>());

  RunResult again = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + root, "--format=json"});
  ASSERT_EQ(0, again.exit_status) << Describe(again);
  json ja = json::parse(again.out);
  EXPECT_EQ(0u, ja["partial_records"].get<uint64_t>());
  EXPECT_EQ(0u, ja["incomplete_containers"].get<uint64_t>());
  RunResult list = RunKudu(tmp_, {"fs", "list", "--fs_data_dirs=" + root});
  ASSERT_EQ(0, list.exit_status) << Describe(list);
  EXPECT_EQ(expected_list, list.out);
}

TEST_F(ToolCheckTest, BadInput) {
  const std::string root = tmp_.Join("a");
  Generate({root}, 3, 5);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_OK(env::CreateDirs(tmp_.Join("nodata")));

  ExpectUsageError({"fs", "check", "--fs_data_dirs=" + tmp_.Join("missing")},
                   tmp_.Join("missing"));
  ExpectUsageError({"fs", "list", "--fs_data_dirs=" + tmp_.Join("missing")},
                   tmp_.Join("missing"));
  ExpectUsageError({"fs", "check", "--fs_data_dirs=" + root + "," + tmp_.Join("nodata")},
                   tmp_.Join("nodata"));
  ExpectUsageErrorWithHelp({"fs", "check"}, "--fs_data_dirs");
  ExpectUsageError({"fs", "check", "--fs_data_dirs=" + root, "--no_such_flag=1"}, "no_such_flag");
  ExpectUsageError({"fs", "check", "--fs_data_dirs=" + root, "--format=xml"}, "--format");
  ExpectUsageError({"fs", "check", "--fs_data_dirs=" + root,
                    "--log_container_metadata_replay_strategy=fastest"},
                   "fastest");
  // A key for a plain dir.
  ExpectUsageError({"fs", "check", "--fs_data_dirs=" + root,
                    std::string("--server_key_hex=") + kKeyHex},
                   "not encrypted");

  // An empty dir: no containers, status 0.
  ASSERT_OK(env::CreateDirs(tmp_.Join("empty/data")));
  RunResult empty = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + tmp_.Join("empty"),
                                   "--format=json"});
  ASSERT_EQ(0, empty.exit_status) << Describe(empty);
  json j = json::parse(empty.out);
  EXPECT_EQ(0u, j["containers"].get<uint64_t>());
  EXPECT_EQ("OK", j["status"]);
  RunResult empty_list = RunKudu(tmp_, {"fs", "list", "--fs_data_dirs=" + tmp_.Join("empty")});
  EXPECT_EQ(0, empty_list.exit_status) << Describe(empty_list);
  EXPECT_EQ("", empty_list.out);
}

// metadata_read_syscalls must agree with an outside strace of the same run
// (minus the reads every run makes before the open, e.g. the dynamic loader's).
TEST_F(ToolCheckTest, ReadSyscallsAgreeWithStrace) {
  RunResult probe = RunProgram(tmp_, "strace", {"-V"});
  if (probe.exit_status != 0) GTEST_SKIP() << "strace is not available";
  // LeakSanitizer refuses to run under ptrace and fails the traced process
  // at exit; the sanitizer build still checks leaks in every other test.
  setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
  const std::vector<std::string> roots = {tmp_.Join("a"), tmp_.Join("b")};
  Generate(roots, 30, 40);
  ASSERT_FALSE(HasFatalFailure());
  auto count_preads = [&](const std::vector<std::string>& kudu_args, json* report) -> long {
    const std::string trace = tmp_.Join("strace.out");
    std::vector<std::string> args = {"-f", "-c", "-o", trace, "-e", "trace=pread64,preadv,preadv2",
                                     KuduBinary()};
    args.insert(args.end(), kudu_args.begin(), kudu_args.end());
    RunResult r = RunProgram(tmp_, "strace", args);
    if (report != nullptr && r.exit_status == 0) *report = json::parse(r.out);
    std::string summary;
    if (!test::ReadFileToString(trace, &summary).ok()) return -1;
    long total = 0;
    for (const std::string& line : test::NonEmptyLines(summary)) {
      std::istringstream in(line);
      std::vector<std::string> cols;
      std::string c;
      while (in >> c) cols.push_back(c);
      if (cols.size() >= 5 && cols.back().rfind("pread", 0) == 0) {
        total += std::stol(cols[3]);
      }
    }
    return total;
  };
  const long baseline = count_preads({"fs", "check", "--fs_data_dirs=" + tmp_.Join("none")}, nullptr);
  if (baseline < 0) GTEST_SKIP() << "strace cannot trace here";
  for (const char* strategy : {"streaming", "inmemory"}) {
    json j;
    const long preads =
        count_preads({"fs", "check", "--fs_data_dirs=" + Join(roots), "--format=json",
                      std::string("--log_container_metadata_replay_strategy=") + strategy},
                     &j);
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(preads - baseline, j["replay"]["metadata_read_syscalls"].get<long>()) << strategy;
  }
}

}  // namespace
}  // namespace kudu
