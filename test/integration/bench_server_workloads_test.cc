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

// The server-scale workloads of `kudu fs bench` (group S): registered but
// opt-in, generated with sparse data files, and the after-crash state ends
// its last containers in a zero tail and a partial record that every
// strategy handles to the generator's live blocks. Run at a tiny scale,
// where the containers shrink with it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
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
using test::RunResult;
using test::TempDir;

// The first value of `key` anywhere in `j` (depth first), or -1.
int64_t FindCount(const json& j, const std::string& key) {
  if (j.is_object()) {
    auto it = j.find(key);
    if (it != j.end() && it->is_number()) return it->get<int64_t>();
  }
  if (j.is_object() || j.is_array()) {
    for (const json& v : j) {
      int64_t n = FindCount(v, key);
      if (n >= 0) return n;
    }
  }
  return -1;
}

TEST(BenchServerWorkloadsTest, NamedInTheListButNotInAll) {
  TempDir tmp;
  RunResult r = RunKudu(tmp, {"fs", "bench", "--bench_workloads=nosuch"});
  ASSERT_EQ(2, r.exit_status) << Describe(r);
  for (const char* name :
       {"S1-server", "S2-10M-live", "S3-after-crash", "S4-sparse-tail", "S5-one-container",
        "S6-filled-then-emptied", "S (opt-in)"}) {
    EXPECT_NE(std::string::npos, r.err.find(name)) << name << ": " << r.err;
  }
}

TEST(BenchServerWorkloadsTest, AfterCrashStateOpensToTheGeneratorsBlocks) {
  TempDir tmp;
  // Scale 0.00012: 2 containers (of the server's 16,721), each ~1/8 of its
  // usual size, 9 live blocks; both are torn, one of each kind.
  RunResult r = RunKudu(tmp, {"fs", "bench", "--bench_workloads=S3-after-crash",
                              "--bench_scale=0.00012", "--bench_repetitions=1",
                              "--bench_strategies=inmemory", "--format=json",
                              "--bench_cold_eviction=files", "--bench_keep_generated",
                              "--bench_dir=" + tmp.path()});
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  json j;
  ASSERT_NO_THROW(j = json::parse(r.out)) << r.out;
  EXPECT_TRUE(j["ok"].get<bool>());
  // Plain and encrypted, each warm and then cold (a server-scale state's
  // default), every open in a fresh process for its peak RSS.
  ASSERT_EQ(4u, j["workloads"].size()) << r.out;
  for (size_t i = 0; i < 4; i++) {
    const json& w = j["workloads"][i];
    EXPECT_EQ(i % 2 == 0 ? "warm" : "cold", w["cache_mode"].get<std::string>()) << i;
    EXPECT_TRUE(w["live_sets_identical"].get<bool>()) << i;
    for (const json& s : w["strategies"]) {
      if (s["kind"] == "open") {
        EXPECT_GT(s["peak_rss_bytes"].get<uint64_t>(), 0u) << s.dump();
      }
    }
  }

  // The kept plain state: `check` sees the two tails and no error.
  std::vector<std::string> roots;
  std::vector<std::string> names;
  ASSERT_OK(env::ListDir(tmp.path(), &names));
  for (const std::string& n : names) {
    const std::string root = env::JoinPath(env::JoinPath(tmp.path(), n), "S3-after-crash/d0");
    if (env::FileExists(root)) roots.push_back(root);
  }
  ASSERT_EQ(1u, roots.size());
  RunResult check = RunKudu(tmp, {"fs", "check", "--format=json", "--fs_data_dirs=" + roots[0]});
  ASSERT_EQ(0, check.exit_status) << Describe(check);
  json c;
  ASSERT_NO_THROW(c = json::parse(check.out)) << check.out;
  // Both tails are partial trailing records, one of each kind.
  EXPECT_EQ(2, FindCount(c, "partial_records")) << check.out;
  EXPECT_NE(std::string::npos, check.out.find("zero-filled tail")) << check.out;
  EXPECT_NE(std::string::npos, check.out.find("runs past the end of the file")) << check.out;
  // The data files are holes: far less allocated than their size.
  std::vector<std::string> files;
  ASSERT_OK(env::ListDir(env::JoinPath(roots[0], "data"), &files));
  uint64_t data_size = 0, allocated = 0;
  for (const std::string& f : files) {
    if (f.size() > 5 && f.compare(f.size() - 5, 5, ".data") == 0) {
      struct stat st;
      const std::string path = env::JoinPath(env::JoinPath(roots[0], "data"), f);
      ASSERT_EQ(0, ::stat(path.c_str(), &st)) << path;
      data_size += static_cast<uint64_t>(st.st_size);
      allocated += static_cast<uint64_t>(st.st_blocks) * 512;
    }
  }
  EXPECT_GT(data_size, 10u << 20);
  EXPECT_LT(allocated, data_size / 100);
}

// The "auto" open of the workload named `name` in `j`, or null.
const json* AutoOpen(const json& j, const std::string& name) {
  for (const json& w : j["workloads"]) {
    if (w["name"] != name) continue;
    for (const json& s : w["strategies"]) {
      if (s["strategy"] == "auto") return &s;
    }
  }
  return nullptr;
}

const json* TargetNamed(const json& j, const std::string& name) {
  for (const json& t : j["targets"]) {
    if (t["name"] == name) return &t;
  }
  return nullptr;
}

// The bench's JSON report of server states at a tiny scale (by default the
// clean and the after-crash one), auto only, in `cache_mode`.
void BenchServerStates(const TempDir& tmp, const std::string& cache_mode, int repetitions,
                       json* j, const std::string& workloads = "S1-server,S3-after-crash") {
  RunResult r = RunKudu(tmp, {"fs", "bench", "--bench_workloads=" + workloads,
                              "--bench_scale=0.00012",
                              "--bench_repetitions=" + std::to_string(repetitions),
                              "--bench_strategies=auto", "--bench_encryption=plain",
                              "--bench_cache_mode=" + cache_mode,
                              "--bench_cold_eviction=files", "--format=json"});
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  ASSERT_NO_THROW(*j = json::parse(r.out)) << r.out;
}

TEST(BenchServerWorkloadsTest, AfterCrashAndGenerationTargetsComeFromTheSameRun) {
  TempDir tmp;
  json j;
  ASSERT_NO_FATAL_FAILURE(BenchServerStates(tmp, "warm", 3, &j));
  const json* clean = AutoOpen(j, "S1-server");
  const json* crashed = AutoOpen(j, "S3-after-crash");
  ASSERT_TRUE(clean != nullptr && crashed != nullptr) << j.dump();

  // The crashed state's open over the clean one's, both of this run.
  const json* vs_clean = TargetNamed(j, "after_crash_vs_clean_open");
  ASSERT_TRUE(vs_clean != nullptr) << j.dump();
  ASSERT_TRUE((*vs_clean)["measured"].get<bool>()) << vs_clean->dump();
  EXPECT_EQ("S3-after-crash / S1-server (warm)", (*vs_clean)["workload"]);
  EXPECT_DOUBLE_EQ((*crashed)["wall_s"]["median"].get<double>() /
                       (*clean)["wall_s"]["median"].get<double>(),
                   (*vs_clean)["value"].get<double>());

  // A torn plain container is still read with one read: its tail is
  // confirmed in the buffer, with no fallback to Streaming.
  const json* reads = TargetNamed(j, "after_crash_reads_per_container");
  ASSERT_TRUE(reads != nullptr) << j.dump();
  ASSERT_TRUE((*reads)["measured"].get<bool>()) << reads->dump();
  EXPECT_DOUBLE_EQ(1.0, (*reads)["value"].get<double>());
  EXPECT_TRUE((*reads)["met"].get<bool>());
  EXPECT_EQ(0, (*crashed)["fallbacks"].get<int>());

  // The memory beyond the live blocks: the worst open's peak less its own
  // base and its own held buffers (each open is a fresh process).
  const json* beyond = TargetNamed(j, "peak_rss_beyond_live_and_buffers_mib");
  ASSERT_TRUE(beyond != nullptr) << j.dump();
  ASSERT_TRUE((*beyond)["measured"].get<bool>()) << beyond->dump();
  double worst = 0;
  bool any = false;
  for (const json& w : j["workloads"]) {
    const double live = w["live_set"]["live_blocks"].get<double>();
    for (const json& run : (*AutoOpen(j, w["name"].get<std::string>()))["runs"]) {
      const double x =
          (run["peak_rss_bytes"].get<double>() - run["base_rss_bytes"].get<double>() -
           run["peak_buffer_bytes"].get<double>() - 64.0 * live) / (1024.0 * 1024.0);
      if (!any || x > worst) worst = x;
      any = true;
    }
  }
  EXPECT_DOUBLE_EQ(worst, (*beyond)["value"].get<double>());

  // The generation rate: the slower of the two sparse states' records over
  // their generation time.
  const json* generation = TargetNamed(j, "sparse_generation_records_per_second");
  ASSERT_TRUE(generation != nullptr) << j.dump();
  ASSERT_TRUE((*generation)["measured"].get<bool>()) << generation->dump();
  double slowest = 0;
  for (const json& w : j["workloads"]) {
    const json& g = w["generated"];
    const double records = g["blocks_created"].get<double>() + g["blocks_deleted"].get<double>();
    ASSERT_GE(records, 100000) << w["name"];  // large enough to count
    const double rate = records / g["seconds"].get<double>();
    if (slowest == 0 || rate < slowest) slowest = rate;
  }
  EXPECT_GT(slowest, 0);
  EXPECT_DOUBLE_EQ(slowest, (*generation)["value"].get<double>());
}

// The cold device-floor target is the worst cold open's ratio, and it says
// what that open's CPU alone would allow spread over every core: whether a
// miss is the disk's or the CPU work's.
TEST(BenchServerWorkloadsTest, ColdFloorTargetSaysWhatTheOpensCpuAllows) {
  TempDir tmp;
  json j;
  // S6 is one file: its open can keep one core busy, whatever the machine.
  ASSERT_NO_FATAL_FAILURE(
      BenchServerStates(tmp, "cold", 1, &j, "S1-server,S3-after-crash,S6-filled-then-emptied"));
  for (const json& w : j["workloads"]) {
    const json* open = AutoOpen(j, w["name"]);
    ASSERT_TRUE(open != nullptr) << w["name"];
    double floor = 0;
    for (const json& s : w["strategies"]) {
      if (s["strategy"] != "floor" && s["strategy"] != "floor-cached") continue;
      const double wall = s["wall_s"]["median"];
      if (floor == 0 || wall < floor) floor = wall;
    }
    const double cores = std::min(j["machine"]["cpus"].get<double>(),
                                  w["metadata_files"].get<double>());
    if (w["name"] == "S6-filled-then-emptied") {
      EXPECT_EQ(1, cores);
    }
    EXPECT_DOUBLE_EQ((*open)["cpu_s_median"].get<double>() / cores / floor,
                     (*open)["cpu_bound_floor_ratio"].get<double>())
        << w["name"];
  }
  const json* target = TargetNamed(j, "cold_open_device_floor_s");
  ASSERT_TRUE(target != nullptr) << j.dump();
  ASSERT_TRUE((*target)["measured"].get<bool>()) << target->dump();
  const json* worst = nullptr;
  std::string worst_name;
  int worst_cores = 0;
  for (const json& w : j["workloads"]) {
    const std::string name = w["name"];
    const json* open = AutoOpen(j, name);
    ASSERT_TRUE(open != nullptr) << name;
    if (worst == nullptr || (*open)["floor_ratio"] > (*worst)["floor_ratio"]) {
      worst = open;
      worst_name = name;
      // The cores it can use: one per metadata file when there are fewer.
      worst_cores = std::min(j["machine"]["cpus"].get<int>(), w["metadata_files"].get<int>());
    }
  }
  ASSERT_TRUE(worst != nullptr) << j.dump();
  EXPECT_DOUBLE_EQ((*worst)["floor_ratio"].get<double>(), (*target)["value"].get<double>());
  char bound[128];
  std::snprintf(bound, sizeof(bound), " (auto; its CPU over %d core%s alone is %.2fx the floor)",
                worst_cores, worst_cores == 1 ? "" : "s",
                (*worst)["cpu_bound_floor_ratio"].get<double>());
  EXPECT_EQ(worst_name + bound, (*target)["workload"]);
  EXPECT_GT((*worst)["cpu_bound_floor_ratio"].get<double>(), 0);
}

// The live-heavy state is judged by its memory per live block, encrypted
// too, and never by the mostly-deleted states' allowance.
TEST(BenchServerWorkloadsTest, EncryptedLiveHeavyStateHasTheLiveBlockTarget) {
  TempDir tmp;
  RunResult r = RunKudu(tmp, {"fs", "bench", "--bench_workloads=S2-10M-live-enc",
                              "--bench_scale=0.0001", "--bench_repetitions=1",
                              "--bench_strategies=auto", "--bench_cache_mode=warm",
                              "--format=json"});
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  json j;
  ASSERT_NO_THROW(j = json::parse(r.out)) << r.out;
  const json* per_block = TargetNamed(j, "peak_rss_per_live_block");
  ASSERT_TRUE(per_block != nullptr) << r.out;
  EXPECT_TRUE((*per_block)["measured"].get<bool>()) << per_block->dump();
  EXPECT_EQ("S2-10M-live-enc (warm)", (*per_block)["workload"]);
  const json* deleted = TargetNamed(j, "peak_rss_beyond_live_and_buffers_mib");
  ASSERT_TRUE(deleted != nullptr) << r.out;
  EXPECT_FALSE((*deleted)["measured"].get<bool>()) << deleted->dump();
  // The opens ran in fresh processes, and so did the floor beside them: its
  // runs have a peak of their own, so its costs are a fresh process's too.
  for (const json& s : j["workloads"][0]["strategies"]) {
    for (const json& run : s["runs"]) {
      EXPECT_GT(run["peak_rss_bytes"].get<uint64_t>(), 0u) << s["strategy"];
    }
  }
}

// A state of one container is judged by its memory per live block, as the
// live-heavy state is, but not by the generation rate: one container's
// records are one writer's sequence, one core's rate.
TEST(BenchServerWorkloadsTest, OneContainerStateHasTheLiveBlockTargetNotTheGenerationRate) {
  TempDir tmp;
  // Scale 0.05: 100,000 live blocks, as many records as the rate needs.
  RunResult r = RunKudu(tmp, {"fs", "bench", "--bench_workloads=S5-one-container",
                              "--bench_scale=0.05", "--bench_repetitions=1",
                              "--bench_strategies=auto", "--bench_cache_mode=warm",
                              "--format=json"});
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  json j;
  ASSERT_NO_THROW(j = json::parse(r.out)) << r.out;
  ASSERT_EQ(2u, j["workloads"].size()) << r.out;  // plain and encrypted
  for (const json& w : j["workloads"]) {
    EXPECT_TRUE(w["live_sets_identical"].get<bool>()) << w["name"];
    EXPECT_EQ(100000, FindCount(w, "live_blocks")) << w.dump();
  }
  const json* per_block = TargetNamed(j, "peak_rss_per_live_block");
  ASSERT_TRUE(per_block != nullptr) << r.out;
  EXPECT_TRUE((*per_block)["measured"].get<bool>()) << per_block->dump();
  EXPECT_NE(std::string::npos,
            (*per_block)["workload"].get<std::string>().find("S5-one-container"))
      << per_block->dump();
  const json* generation = TargetNamed(j, "sparse_generation_records_per_second");
  ASSERT_TRUE(generation != nullptr) << r.out;
  EXPECT_FALSE((*generation)["measured"].get<bool>()) << generation->dump();
}

// A container filled and emptied later is a mostly-deleted state: judged by
// the memory beyond its live blocks and held buffers, as S1 and S3 are, and
// not by the generation rate, even in several containers: they are written
// one after another, each filled and then emptied.
TEST(BenchServerWorkloadsTest, FilledThenEmptiedStateHasTheMostlyDeletedMemoryTarget) {
  TempDir tmp;
  // Scale 0.1: 200,000 blocks, past the size where a live set packs them;
  // containers of 100 MB hold them in several.
  RunResult r = RunKudu(tmp, {"fs", "bench", "--bench_workloads=S6-filled-then-emptied",
                              "--bench_scale=0.1", "--bench_encryption=plain",
                              "--bench_repetitions=1", "--bench_strategies=auto",
                              "--bench_cache_mode=warm", "--log_container_max_size=100000000",
                              "--format=json"});
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  json j;
  ASSERT_NO_THROW(j = json::parse(r.out)) << r.out;
  ASSERT_EQ(1u, j["workloads"].size()) << r.out;
  for (const json& w : j["workloads"]) {
    EXPECT_TRUE(w["live_sets_identical"].get<bool>()) << w["name"];
    EXPECT_EQ(2000, FindCount(w, "live_blocks")) << w.dump();
    EXPECT_GT(w["containers"].get<int64_t>(), 1) << w.dump();
  }
  const json* generation = TargetNamed(j, "sparse_generation_records_per_second");
  ASSERT_TRUE(generation != nullptr) << r.out;
  EXPECT_FALSE((*generation)["measured"].get<bool>()) << generation->dump();
  const json* beyond = TargetNamed(j, "peak_rss_beyond_live_and_buffers_mib");
  ASSERT_TRUE(beyond != nullptr) << r.out;
  EXPECT_TRUE((*beyond)["measured"].get<bool>()) << beyond->dump();
  EXPECT_NE(std::string::npos,
            (*beyond)["workload"].get<std::string>().find("S6-filled-then-emptied"))
      << beyond->dump();
}

// A G3 state is written under the --log_container_max_blocks its open is
// given: each container is full as a server leaves it, its data file cut
// to the next block offset, a multiple of the block size.
TEST(BenchServerWorkloadsTest, LimitedContainersAreWrittenFull) {
  TempDir tmp;
  const std::string dir = tmp.Join("states");
  RunResult r = RunKudu(tmp, {"fs", "bench", "--bench_workloads=G3-max1000", "--bench_scale=0.01",
                              "--bench_repetitions=1", "--bench_strategies=auto",
                              "--bench_cache_mode=warm", "--bench_keep_generated",
                              "--bench_dir=" + dir, "--format=json"});
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  std::vector<std::string> runs;
  ASSERT_OK(env::ListDir(dir, &runs));
  ASSERT_EQ(1u, runs.size());  // the run's own kudu-bench.XXXXXX
  const std::string data = dir + "/" + runs[0] + "/G3-max1000/d0/data";
  std::vector<std::string> names;
  ASSERT_OK(env::ListDir(data, &names));
  int full = 0;
  for (const std::string& n : names) {
    if (n.size() < 5 || n.compare(n.size() - 5, 5, ".data") != 0) continue;
    struct stat st;
    ASSERT_EQ(0, ::stat((data + "/" + n).c_str(), &st)) << n;
    EXPECT_EQ(0, st.st_size % 4096) << n << ": " << st.st_size;
    full++;
  }
  EXPECT_EQ(100, full);
}

TEST(BenchServerWorkloadsTest, SparseTailIsNotRead) {
  TempDir tmp;
  // Scale 0.02: an 82 MiB hole after the last container's records, more
  // than the target allows to be read; plain and encrypted (zero
  // ciphertext), the reference reader beside the policy's.
  RunResult r = RunKudu(tmp, {"fs", "bench", "--bench_workloads=S4-sparse-tail",
                              "--bench_scale=0.02", "--bench_repetitions=1",
                              "--bench_strategies=auto,streaming,inmemory",
                              // No budget for the 82 MiB file: the forced
                              // in-memory strategy cannot replay it whole.
                              "--log_container_metadata_replay_memory_budget_bytes=67108864",
                              "--bench_cache_mode=warm", "--format=json"});
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  json j;
  ASSERT_NO_THROW(j = json::parse(r.out)) << r.out;
  ASSERT_EQ(2u, j["workloads"].size()) << r.out;
  uint64_t worst = 0;
  for (const json& w : j["workloads"]) {
    EXPECT_TRUE(w["live_sets_identical"].get<bool>()) << w["name"];
    const uint64_t hole = 82ULL << 20;
    EXPECT_GT(w["metadata_bytes"].get<uint64_t>(), hole) << w["name"];
    for (const json& s : w["strategies"]) {
      if (s["kind"] != "open" || s["strategy"] == "inmemory") continue;
      EXPECT_LT(s["metadata_bytes_read"].get<uint64_t>(), 16u << 20) << s.dump();
      EXPECT_EQ(0, s["fallbacks"].get<int>()) << s.dump();
      if (s["strategy"] == "auto") {
        worst = std::max(worst, s["metadata_bytes_read"].get<uint64_t>());
      }
    }
  }
  // Its last file is above the in-memory threshold, so the in-memory
  // target, which is about files under it, does not count this state.
  const json* whole = TargetNamed(j, "inmemory_syscalls_per_container");
  ASSERT_TRUE(whole != nullptr) << r.out;
  EXPECT_FALSE((*whole)["measured"].get<bool>()) << whole->dump();
  const json* reads = TargetNamed(j, "sparse_tail_mib_read");
  ASSERT_TRUE(reads != nullptr) << r.out;
  ASSERT_TRUE((*reads)["measured"].get<bool>()) << reads->dump();
  EXPECT_DOUBLE_EQ(static_cast<double>(worst) / (1 << 20), (*reads)["value"].get<double>());
  EXPECT_TRUE((*reads)["met"].get<bool>());
  const json* wall = TargetNamed(j, "sparse_tail_open_seconds");
  ASSERT_TRUE(wall != nullptr) << r.out;
  EXPECT_TRUE((*wall)["measured"].get<bool>()) << wall->dump();
  // Its 8,800 records are too few for a generation rate: making its files
  // costs more than they do.
  const json* generation = TargetNamed(j, "sparse_generation_records_per_second");
  ASSERT_TRUE(generation != nullptr) << r.out;
  EXPECT_FALSE((*generation)["measured"].get<bool>()) << generation->dump();
}

}  // namespace
}  // namespace kudu
