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

// `kudu fs bench` run as a subprocess on tiny workloads (a few seconds):
// the JSON's shape, every strategy agreeing on the live block set (and with
// the generator), the syscall figures' relations, the text table, given dirs
// measured read-only, and usage errors.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kudu/util/env.h"
#include "util/kudu_subprocess.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using nlohmann::json;
using test::Describe;
using test::RunKudu;
using test::RunResult;
using test::TempDir;

constexpr char kKeyHex[] = "000102030405060708090a0b0c0d0e0f";

// The flags that shrink the reference workloads to a smoke test: one extra
// round, not thirteen, for a state whose opens take milliseconds.
std::vector<std::string> Tiny(std::vector<std::string> more) {
  std::vector<std::string> args = {"fs", "bench", "--bench_scale=0.01", "--bench_repetitions=2",
                                   "--bench_min_short_runs=3",
                                   "--fs_max_thread_count_per_data_dir=2"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

void ExpectSpread(const json& s, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_TRUE(s.is_object());
  for (const char* k : {"median", "min", "max"}) ASSERT_TRUE(s[k].is_number()) << k;
  EXPECT_LE(s["min"].get<double>(), s["median"].get<double>());
  EXPECT_LE(s["median"].get<double>(), s["max"].get<double>());
  EXPECT_GE(s["min"].get<double>(), 0.0);
}

// Checks one workload's object; returns its strategies by name.
std::map<std::string, json> CheckWorkload(const json& w, int repetitions) {
  std::map<std::string, json> by;
  SCOPED_TRACE(w.value("name", std::string("?")));
  EXPECT_TRUE(w["ok"].get<bool>()) << w.dump(2);
  EXPECT_EQ("OK", w["status"]);
  EXPECT_TRUE(w["live_sets_identical"].get<bool>());
  EXPECT_GT(w["containers"].get<long>(), 0);
  EXPECT_GT(w["records"].get<long>(), 0);
  EXPECT_GT(w["metadata_bytes"].get<long>(), 0);
  EXPECT_EQ(w["live_set"]["hash"].get<std::string>().size(), 16u);
  for (const json& s : w["strategies"]) {
    const std::string name = s["strategy"];
    by[name] = s;
    SCOPED_TRACE(name);
    ExpectSpread(s["wall_s"], "wall_s");
    ExpectSpread(s["user_s"], "user_s");
    ExpectSpread(s["sys_s"], "sys_s");
    const size_t runs = s["runs"].size();
    if (w.contains("short_state")) {
      // A short state's quick strategies, the floor always among them, got
      // extra rounds; the others (Streaming, usually) only the repetitions.
      const size_t short_runs = w["short_state"]["runs"].get<size_t>();
      EXPECT_GT(short_runs, static_cast<size_t>(repetitions));
      EXPECT_TRUE(runs == static_cast<size_t>(repetitions) || runs == short_runs) << runs;
      if (name == "floor") {
        EXPECT_EQ(short_runs, runs);
      }
    } else {
      EXPECT_EQ(static_cast<size_t>(repetitions), runs);
    }
    for (const char* k : {"metadata_read_syscalls", "metadata_bytes_read", "peak_buffer_bytes",
                          "records", "records_per_cpu_s", "speedup_over_streaming", "floor_ratio"}) {
      EXPECT_TRUE(s[k].is_number()) << k;
    }
    EXPECT_GT(s["metadata_read_syscalls"].get<long>(), 0);
    EXPECT_GE(s["metadata_bytes_read"].get<long>(), w["metadata_bytes"].get<long>());
    if (name != "floor") {
      EXPECT_EQ(w["records"], s["records"]);
      EXPECT_EQ(0, s["fallbacks"].get<long>());
    }
  }
  for (const char* name : {"streaming", "inmemory", "auto", "floor"}) {
    EXPECT_EQ(1u, by.count(name)) << name;
  }
  if (by.count("streaming") && by.count("inmemory") && by.count("floor")) {
    const long containers = w["containers"].get<long>();
    const long records = w["records"].get<long>();
    // Streaming: two reads per record; InMemory: one or two per container
    // plus the open's one-time key probe; the floor: one per file.
    EXPECT_GE(by["streaming"]["metadata_read_syscalls"].get<long>(), 2 * records);
    EXPECT_LE(by["inmemory"]["metadata_read_syscalls"].get<long>(), 2 * containers + 1);
    EXPECT_EQ(w["metadata_files"].get<long>(), by["floor"]["metadata_read_syscalls"].get<long>());
    EXPECT_DOUBLE_EQ(1.0, by["streaming"]["speedup_over_streaming"].get<double>());
    EXPECT_DOUBLE_EQ(1.0, by["floor"]["floor_ratio"].get<double>());
    EXPECT_EQ(0, by["streaming"]["peak_buffer_bytes"].get<long>());
    EXPECT_GT(by["inmemory"]["peak_buffer_bytes"].get<long>(), 0);
  }
  return by;
}

class ToolBenchTest : public ::testing::Test {
 protected:
  TempDir tmp_;
};

TEST_F(ToolBenchTest, GeneratedWorkloadsJson) {
  RunResult r = RunKudu(tmp_, Tiny({"--bench_workloads=G1-10k,G4,G5", "--format=json",
                                    "--bench_dir=" + tmp_.path()}));
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  json j;
  ASSERT_NO_THROW(j = json::parse(r.out)) << r.out;  // stdout is one JSON object, nothing else
  EXPECT_TRUE(j["ok"].get<bool>());
  EXPECT_EQ("OK", j["status"]);
  EXPECT_TRUE(j["config"]["generated"].get<bool>());
  EXPECT_EQ(2, j["config"]["repetitions"].get<int>());
  EXPECT_EQ("warm", j["config"]["cache_mode"]);
  EXPECT_GT(j["machine"]["cpus"].get<int>(), 0);
  ASSERT_TRUE(j["workloads"].is_array());
  std::set<std::string> names;
  for (const json& w : j["workloads"]) {
    names.insert(w["name"]);
    auto by = CheckWorkload(w, 2);
    EXPECT_EQ(w["expected_live_set"], w["live_set"]) << w["name"];
    if (w["encrypted"].get<bool>() && by.count("inmemory")) {
      EXPECT_GT(by["inmemory"]["containers_by_strategy"]["encrypted_inmemory"].get<long>(), 0);
      EXPECT_EQ(0, by["inmemory"]["containers_by_strategy"]["inmemory"].get<long>());
    }
    // The floor reads what the open reads: each metadata file, in one read,
    // and in an encrypted state each data file's header.
    ASSERT_EQ(1u, by.count("floor"));
    EXPECT_EQ(w["metadata_files"].get<long>() * (w["encrypted"].get<bool>() ? 2 : 1),
              by["floor"]["process_read_syscalls"].get<long>())
        << w["name"];
    if (w["group"] == "G5") {
      // Every file is above the (lowered) threshold: auto takes the
      // bounded-memory path, never the in-memory one.
      EXPECT_LT(w["in_memory_threshold_bytes"].get<long>(), w["metadata_bytes"].get<long>() /
                                                            w["metadata_files"].get<long>());
      EXPECT_EQ(0, by["auto"]["containers_by_strategy"]["inmemory"].get<long>());
      EXPECT_EQ(0, by["auto"]["containers_by_strategy"]["encrypted_inmemory"].get<long>());
    }
  }
  EXPECT_EQ((std::set<std::string>{"G1-10k", "G1-10k-enc", "G4-2000x250", "G4-2000x250-enc",
                                   "G5-above-threshold", "G5-above-threshold-enc"}),
            names);
  ASSERT_TRUE(j["targets"].is_array());
  for (const json& t : j["targets"]) {
    EXPECT_TRUE(t["name"].is_string());
    EXPECT_TRUE(t["measured"].is_boolean());
  }
  // The generated state is gone afterwards.
  std::vector<std::string> left;
  ASSERT_TRUE(env::ListDir(tmp_.path(), &left).ok());
  for (const std::string& n : left) EXPECT_EQ(std::string::npos, n.find("kudu-bench")) << n;
}

TEST_F(ToolBenchTest, TextTable) {
  RunResult r = RunKudu(tmp_, Tiny({"--bench_workloads=G1-10k", "--bench_encryption=plain",
                                    "--bench_repetitions=1", "--bench_dir=" + tmp_.path()}));
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  for (const char* s : {"== G1-10k", "streaming", "inmemory", "auto", "floor", "speedup",
                        "identical in every open", "== summary"}) {
    EXPECT_NE(std::string::npos, r.out.find(s)) << s << "\n" << r.out;
  }
  EXPECT_EQ(std::string::npos, r.out.find("G1-10k-enc"));
  // One progress line per state, each run's only with --v=1.
  EXPECT_NE(std::string::npos, r.err.find("bench: G1-10k: measured ")) << r.err;
  EXPECT_EQ(std::string::npos, r.err.find(" 1/1: wall ")) << r.err;
  RunResult verbose = RunKudu(tmp_, Tiny({"--bench_workloads=G1-10k", "--bench_encryption=plain",
                                          "--bench_repetitions=1", "--bench_dir=" + tmp_.path(),
                                          "--v=1"}));
  ASSERT_EQ(0, verbose.exit_status) << Describe(verbose);
  EXPECT_NE(std::string::npos, verbose.err.find("streaming 1/1: wall ")) << verbose.err;
}

// Given dirs are measured read-only: same bytes and sizes after the bench.
// They are DIRS as every fs action takes them: the plain state is named by
// its WAL root alone, which is then its only data root.
TEST_F(ToolBenchTest, GivenDirsReadOnly) {
  for (bool encrypted : {false, true}) {
    SCOPED_TRACE(encrypted ? "encrypted" : "plain");
    const std::string root = tmp_.Join(encrypted ? "enc" : "plain");
    std::vector<std::string> gen = {"fs", "generate", "--fs_data_dirs=" + root, "--containers=6",
                                    "--blocks_per_container=300", "--deleted_block_percentage=30"};
    std::vector<std::string> key;
    if (encrypted) key = {std::string("--server_key_hex=") + kKeyHex};
    if (encrypted) gen.insert(gen.end(), {"--encrypt", key[0]});
    RunResult g = RunKudu(tmp_, gen);
    ASSERT_EQ(0, g.exit_status) << Describe(g);
    std::string live;
    ASSERT_TRUE(test::ReadFileToString(env::JoinPath(root, "generate_live_blocks.txt"), &live).ok());
    const long live_lines = std::count(live.begin(), live.end(), '\n');

    std::vector<std::string> names;
    ASSERT_TRUE(env::ListDir(env::JoinPath(root, "data"), &names).ok());
    std::map<std::string, std::string> before;
    for (const std::string& n : names) {
      ASSERT_TRUE(test::ReadFileToString(env::JoinPath(env::JoinPath(root, "data"), n), &before[n]).ok());
    }

    std::vector<std::string> args = {"fs", "bench",
                                     (encrypted ? "--fs_data_dirs=" : "--fs_wal_dir=") + root,
                                     "--bench_repetitions=2", "--bench_min_short_runs=3",
                                     "--format=json"};
    args.insert(args.end(), key.begin(), key.end());
    RunResult r = RunKudu(tmp_, args);
    ASSERT_EQ(0, r.exit_status) << Describe(r);
    json j = json::parse(r.out);
    EXPECT_FALSE(j["config"]["generated"].get<bool>());
    ASSERT_EQ(1u, j["workloads"].size());
    const json& w = j["workloads"][0];
    EXPECT_EQ(root, w["description"].get<std::string>());
    CheckWorkload(w, 2);
    EXPECT_EQ(encrypted, w["encrypted"].get<bool>());
    EXPECT_EQ(6, w["containers"].get<long>());
    EXPECT_EQ(live_lines, w["live_set"]["live_blocks"].get<long>());

    std::vector<std::string> after_names;
    ASSERT_TRUE(env::ListDir(env::JoinPath(root, "data"), &after_names).ok());
    EXPECT_EQ(names.size(), after_names.size());
    for (const auto& kv : before) {
      std::string now;
      ASSERT_TRUE(test::ReadFileToString(env::JoinPath(env::JoinPath(root, "data"), kv.first), &now).ok());
      EXPECT_TRUE(now == kv.second) << kv.first << " changed";
    }
  }
}

// A state whose opens take milliseconds gets extra interleaved rounds of
// its quick strategies and floor, warm and in process only. The bound is
// raised far above any open here, so that whether the state is short does
// not depend on how busy the machine is.
// The floor reads what the open reads, whatever says the dir is encrypted:
// with the key found in the instance files (no key flag), each data file's
// header once, except where the open reads none (an incomplete container:
// metadata without its data file), whose absence is no error.
TEST_F(ToolBenchTest, TheFloorReadsTheDataHeadersTheOpenReads) {
  const std::string root = tmp_.Join("enc");
  RunResult g = RunKudu(tmp_, {"fs", "generate", "--fs_data_dirs=" + root, "--containers=4",
                               "--blocks_per_container=20", "--deleted_block_percentage=100",
                               "--log_block_manager_delete_dead_container=false", "--encrypt"});
  ASSERT_EQ(0, g.exit_status) << Describe(g);
  std::vector<std::string> names;
  ASSERT_TRUE(env::ListDir(env::JoinPath(root, "data"), &names).ok());
  std::sort(names.begin(), names.end());
  auto data = std::find_if(names.begin(), names.end(), [](const std::string& n) {
    return n.size() > 5 && n.compare(n.size() - 5, 5, ".data") == 0;
  });
  ASSERT_NE(names.end(), data);
  ASSERT_TRUE(env::DeleteFile(env::JoinPath(env::JoinPath(root, "data"), *data)).ok());
  for (bool fresh_process : {false, true}) {
    SCOPED_TRACE(fresh_process ? "fresh processes" : "in process");
    RunResult r = RunKudu(tmp_, {"fs", "bench", "--fs_data_dirs=" + root, "--bench_repetitions=1",
                                 "--bench_min_short_runs=0",
                                 std::string("--bench_peak_rss=") + (fresh_process ? "true" : "false"),
                                 "--format=json"});
    ASSERT_EQ(0, r.exit_status) << Describe(r);
    const json w = json::parse(r.out)["workloads"][0];
    EXPECT_TRUE(w["ok"].get<bool>()) << w.dump(2);
    std::map<std::string, json> by;
    for (const json& st : w["strategies"]) by[st["strategy"].get<std::string>()] = st;
    ASSERT_EQ(1u, by.count("floor")) << w.dump(2);
    EXPECT_EQ(4 + 3, by["floor"]["process_read_syscalls"].get<long>()) << w.dump();
  }
}

TEST_F(ToolBenchTest, ShortStatesGetExtraRounds) {
  const std::string root = tmp_.Join("short");
  RunResult g = RunKudu(tmp_, {"fs", "generate", "--fs_data_dirs=" + root, "--containers=4",
                               "--blocks_per_container=200", "--deleted_block_percentage=10"});
  ASSERT_EQ(0, g.exit_status) << Describe(g);
  auto bench = [&](std::vector<std::string> more) {
    std::vector<std::string> args = {"fs", "bench", "--fs_data_dirs=" + root,
                                     "--bench_repetitions=2", "--format=json",
                                     "--bench_short_open_ms=60000",
                                     "--bench_strategies=streaming,inmemory,auto"};
    args.insert(args.end(), more.begin(), more.end());
    RunResult r = RunKudu(tmp_, args);
    EXPECT_EQ(0, r.exit_status) << Describe(r);
    json j = json::parse(r.out);
    EXPECT_EQ(1u, j["workloads"].size());
    return j["workloads"][0];
  };
  auto runs_of = [](const json& w) {
    std::map<std::string, size_t> runs;
    for (const json& s : w["strategies"]) runs[s["strategy"]] = s["runs"].size();
    return runs;
  };
  {
    const json w = bench({"--bench_min_short_runs=7"});
    CheckWorkload(w, 2);
    ASSERT_TRUE(w.contains("short_state")) << w.dump(2);
    EXPECT_EQ(7, w["short_state"]["runs"].get<int>());
    EXPECT_GT(w["short_state"]["fastest_open_s"].get<double>(), 0);
    EXPECT_LT(w["short_state"]["fastest_open_s"].get<double>(), 60.0);
    std::map<std::string, size_t> runs = runs_of(w);
    EXPECT_EQ(7u, runs["floor"]);
    EXPECT_EQ(7u, runs["inmemory"]);
    EXPECT_EQ(7u, runs["auto"]);
  }
  // No extra rounds when they are turned off, nor with a fresh process per
  // open (each would start a process).
  for (const std::string& flag : {std::string("--bench_min_short_runs=0"),
                                  std::string("--bench_peak_rss")}) {
    SCOPED_TRACE(flag);
    const json w = bench({flag});
    EXPECT_FALSE(w.contains("short_state"));
    for (const auto& kv : runs_of(w)) EXPECT_EQ(2u, kv.second) << kv.first;
  }
}

// An encrypted state is opened with InMemory beside its plain twin,
// interleaved, and the cost of encryption is judged on those opens.
TEST_F(ToolBenchTest, EncryptedStatesAreMeasuredBesideTheirPlainTwin) {
  auto target = [](const json& j) -> json {
    for (const json& t : j["targets"]) {
      if (t["name"] == "encrypted_vs_plain_inmemory_g1_100k") return t;
    }
    return json();
  };
  // Short whatever the machine's load: a loaded machine once made the
  // tiny state's fastest open slower than the default 20 ms.
  RunResult r = RunKudu(tmp_, Tiny({"--bench_workloads=G1-100k", "--format=json",
                                    "--bench_short_open_ms=60000",
                                    "--bench_dir=" + tmp_.path()}));
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  json j = json::parse(r.out);
  std::map<std::string, json> by;
  for (const json& w : j["workloads"]) by[w["name"]] = w;
  ASSERT_EQ(2u, by.size());
  EXPECT_FALSE(by["G1-100k"].contains("twin_pair"));
  const json& tp = by["G1-100k-enc"]["twin_pair"];
  ASSERT_TRUE(tp.is_object()) << by["G1-100k-enc"].dump(2);
  EXPECT_EQ("G1-100k", tp["twin"]);
  EXPECT_EQ(3, tp["runs"].get<int>());  // Tiny: 2 repetitions, 3 runs for short states
  ExpectSpread(tp["wall_s"], "wall_s");
  ExpectSpread(tp["twin_wall_s"], "twin_wall_s");
  const json t = target(j);
  ASSERT_TRUE(t["measured"].get<bool>()) << t.dump();
  EXPECT_EQ("G1-100k-enc beside G1-100k", t["workload"]);
  EXPECT_DOUBLE_EQ(tp["wall_s"]["median"].get<double>() / tp["twin_wall_s"]["median"].get<double>(),
                   t["value"].get<double>());
  // Both states are gone afterwards.
  std::vector<std::string> left;
  ASSERT_TRUE(env::ListDir(tmp_.path(), &left).ok());
  for (const std::string& n : left) EXPECT_EQ(std::string::npos, n.find("kudu-bench")) << n;

  // Only a short plain state waits for its twin (a large one would be
  // written back to the disk meanwhile): with nothing short, no pair, and
  // the target falls back to the two states' own runs.
  RunResult apart = RunKudu(tmp_, Tiny({"--bench_workloads=G1-100k", "--bench_short_open_ms=0",
                                        "--format=json", "--bench_dir=" + tmp_.path()}));
  ASSERT_EQ(0, apart.exit_status) << Describe(apart);
  json jp = json::parse(apart.out);
  ASSERT_EQ(2u, jp["workloads"].size());
  for (const json& w : jp["workloads"]) EXPECT_FALSE(w.contains("twin_pair")) << w["name"];
  EXPECT_EQ("G1-100k-enc / G1-100k", target(jp)["workload"]);

  // No twin, no pair: the encrypted state alone is not judged against a
  // plain one.
  RunResult alone = RunKudu(tmp_, Tiny({"--bench_workloads=G1-100k-enc", "--format=json",
                                        "--bench_dir=" + tmp_.path()}));
  ASSERT_EQ(0, alone.exit_status) << Describe(alone);
  json ja = json::parse(alone.out);
  ASSERT_EQ(1u, ja["workloads"].size());
  EXPECT_FALSE(ja["workloads"][0].contains("twin_pair"));
  EXPECT_FALSE(target(ja)["measured"].get<bool>());
}

// A state that cannot fit the bench dir's filesystem is refused before a
// byte is written, naming what it needs, what is free and a --bench_scale
// that fits: the seed-sized S1-server a hundred times over needs terabytes.
TEST_F(ToolBenchTest, AStateThatCannotFitIsNotStarted) {
  const std::string dir = tmp_.Join("bench");
  // Should the check ever let it start, the first file past 64 MiB ends the
  // bench (SIGXFSZ) instead of the test filling the disk.
  struct rlimit old_limit;
  ASSERT_EQ(0, ::getrlimit(RLIMIT_FSIZE, &old_limit));
  struct rlimit cap = old_limit;
  cap.rlim_cur = std::min<rlim_t>(old_limit.rlim_max, rlim_t{64} << 20);
  ASSERT_EQ(0, ::setrlimit(RLIMIT_FSIZE, &cap));
  RunResult r = RunKudu(tmp_, {"fs", "bench", "--bench_workloads=S1-server",
                               "--bench_encryption=plain", "--bench_scale=100",
                               "--bench_repetitions=1", "--bench_dir=" + dir});
  ASSERT_EQ(0, ::setrlimit(RLIMIT_FSIZE, &old_limit));
  EXPECT_EQ(1, r.exit_status) << Describe(r);
  for (const char* part : {"S1-server needs about", "GiB on disk and", "GiB free",
                           "--bench_scale=", "(this run's is 100)"}) {
    EXPECT_NE(std::string::npos, r.err.find(part)) << part << "\n" << r.err;
  }
  // Nothing generated: the bench's own dir under it is gone again.
  std::vector<std::string> left;
  ASSERT_TRUE(env::ListDir(dir, &left).ok());
  for (const std::string& name : left) {
    EXPECT_TRUE(name == "." || name == "..") << name;
  }
}

TEST_F(ToolBenchTest, UsageErrors) {
  // A state that opens, so that only the flag beside it is wrong.
  const std::string ok = tmp_.Join("ok");
  RunResult g = RunKudu(tmp_, {"fs", "generate", "--fs_data_dirs=" + ok, "--containers=1",
                               "--blocks_per_container=3"});
  ASSERT_EQ(0, g.exit_status) << Describe(g);
  const std::vector<std::vector<std::string>> cases = {
      {"fs", "bench", "--bench_workloads=G9"},
      {"fs", "bench", "--bench_repetitions=0"},
      {"fs", "bench", "--bench_min_short_runs=-1"},
      {"fs", "bench", "--bench_short_open_ms=-1"},
      {"fs", "bench", "--bench_strategies=fastest"},
      {"fs", "bench", "--bench_encryption=maybe"},
      {"fs", "bench", "--bench_cache_mode=lukewarm"},
      {"fs", "bench", "--format=xml"},
      {"fs", "bench", "--fs_data_dirs=" + tmp_.Join("missing")},
      {"fs", "bench", "--fs_wal_dir=" + tmp_.Join("missing")},
      {"fs", "bench", "--fs_wal_dir=relative/root"},
      {"fs", "bench", "--fs_metadata_dir=/tmp"},  // neither a WAL nor a data root
      {"fs", "bench", "--fs_data_dirs=" + ok, "--fs_wal_dir=" + tmp_.Join("missing")},
      {"fs", "bench", "--fs_data_dirs=" + ok, "--fs_metadata_dir=" + tmp_.Join("missing")},
      {"fs", "bench", "--no_such_flag=1"},
  };
  for (const auto& args : cases) {
    SCOPED_TRACE(args.back());
    RunResult r = RunKudu(tmp_, args);
    EXPECT_EQ(2, r.exit_status) << Describe(r);
    EXPECT_EQ("", r.out);
    EXPECT_NE(std::string::npos, r.err.find("error")) << r.err;
  }
}

}  // namespace
}  // namespace kudu
