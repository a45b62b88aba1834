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

// `kudu fs bench` with the upstream2026 variant (bench_upstream2026.h), as a
// subprocess on tiny workloads: the variant is part of 'all', finds the
// same live set as every other open, and the report carries its row, the
// side-by-side ratios and its targets, in JSON and in text.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "util/kudu_subprocess.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using nlohmann::json;
using test::Describe;
using test::RunKudu;
using test::RunResult;
using test::TempDir;

TEST(BenchUpstream2026Test, SideBySideInJsonAndText) {
  TempDir tmp;
  const std::string json_path = tmp.Join("bench.json");
  RunResult r = RunKudu(tmp, {"fs", "bench", "--bench_workloads=G1-100k,G4", "--bench_scale=0.01",
                              "--bench_repetitions=1", "--bench_min_short_runs=0",
                              "--fs_max_thread_count_per_data_dir=2",
                              "--bench_strategies=all", "--bench_dir=" + tmp.path(),
                              "--bench_json_out=" + json_path});
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  std::string text;
  ASSERT_TRUE(test::ReadFileToString(json_path, &text).ok());
  json j;
  ASSERT_NO_THROW(j = json::parse(text));
  ASSERT_TRUE(j["ok"].get<bool>()) << j["status"];
  ASSERT_EQ(4u, j["workloads"].size());
  for (const json& w : j["workloads"]) {
    SCOPED_TRACE(w["name"].get<std::string>());
    EXPECT_TRUE(w["live_sets_identical"].get<bool>());
    std::map<std::string, json> by;
    for (const json& s : w["strategies"]) by[s["strategy"].get<std::string>()] = s;
    ASSERT_EQ(1u, by.count("upstream2026"));
    const json& up = by["upstream2026"];
    EXPECT_EQ(w["records"], up["records"]);
    EXPECT_EQ(0, up["fallbacks"].get<long>());
    // One whole-file read per container (two when encrypted) instead of
    // two per record.
    EXPECT_LT(up["metadata_read_syscalls"].get<long>(),
              by["streaming"]["metadata_read_syscalls"].get<long>() / 10);
    const json& side = w["upstream2026"];
    ASSERT_TRUE(side.is_object()) << w.dump(2);
    EXPECT_EQ("streaming", side["streaming"]["strategy"]);
    EXPECT_EQ("upstream2026", side["upstream2026"]["strategy"]);
    EXPECT_EQ("auto", side["ours"]["strategy"]);
    for (const char* k : {"ours_speedup_over_upstream2026", "ours_cpu_speedup_over_upstream2026",
                          "upstream2026_speedup_over_streaming",
                          "upstream2026_cpu_speedup_over_streaming"}) {
      EXPECT_GT(side[k].get<double>(), 0.0) << k;
    }
    EXPECT_DOUBLE_EQ(by["streaming"]["wall_s"]["median"].get<double>() /
                         up["wall_s"]["median"].get<double>(),
                     side["upstream2026_speedup_over_streaming"].get<double>());
  }
  std::map<std::string, json> targets;
  for (const json& t : j["targets"]) targets[t["name"].get<std::string>()] = t;
  for (const char* name : {"ours_vs_upstream2026_g1_100k", "ours_vs_upstream2026_g1_100k_enc",
                           "ours_vs_upstream2026_g4", "ours_vs_upstream2026_g4_enc"}) {
    ASSERT_EQ(1u, targets.count(name)) << name;
    EXPECT_TRUE(targets[name]["measured"].get<bool>()) << name;
    EXPECT_EQ(3.0, targets[name]["goal"].get<double>());
  }
  // Warm runs have no cold target.
  EXPECT_EQ(0u, targets.count("cold_ours_vs_upstream2026"));

  EXPECT_TRUE(test::Contains(r.out, "== upstream2026")) << r.out;
  EXPECT_TRUE(test::Contains(r.out, "faster than upstream2026 (wall, G4-enc)")) << r.out;
}

TEST(BenchUpstream2026Test, AloneBesideStreaming) {
  TempDir tmp;
  RunResult r = RunKudu(tmp, {"fs", "bench", "--bench_workloads=G1-10k", "--bench_encryption=plain",
                              "--bench_scale=0.1", "--bench_repetitions=1",
                              "--bench_min_short_runs=0", "--format=json",
                              "--bench_strategies=streaming,upstream2026",
                              "--bench_dir=" + tmp.path()});
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  json j = json::parse(r.out);
  ASSERT_EQ(1u, j["workloads"].size());
  const json& side = j["workloads"][0]["upstream2026"];
  EXPECT_GT(side["upstream2026_speedup_over_streaming"].get<double>(), 0.0);
  EXPECT_TRUE(side["ours"].is_null());  // auto was not measured
  EXPECT_EQ(0.0, side["ours_speedup_over_upstream2026"].get<double>());
}

// A run measuring both cache modes: the ours-vs-upstream targets take the
// warm result (not the last one measured, the cold one here), and the cold
// target is there, from the cold results only.
TEST(BenchUpstream2026Test, WarmAndColdEachHaveTheirTargets) {
  TempDir tmp;
  RunResult r = RunKudu(tmp, {"fs", "bench", "--bench_workloads=G4", "--bench_encryption=plain",
                              "--bench_scale=0.01", "--bench_repetitions=1",
                              "--bench_min_short_runs=0", "--format=json",
                              "--bench_cache_mode=warm,cold", "--bench_cold_eviction=files",
                              "--bench_strategies=auto,upstream2026",
                              "--bench_dir=" + tmp.path()});
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  json j = json::parse(r.out);
  std::map<std::string, double> ours_over_up;
  for (const json& w : j["workloads"]) {
    ours_over_up[w["cache_mode"].get<std::string>()] =
        w["upstream2026"]["ours_speedup_over_upstream2026"].get<double>();
  }
  ASSERT_EQ(2u, ours_over_up.size()) << r.out;
  std::map<std::string, json> targets;
  for (const json& t : j["targets"]) targets[t["name"].get<std::string>()] = t;
  const json& g4 = targets["ours_vs_upstream2026_g4"];
  ASSERT_TRUE(g4["measured"].get<bool>()) << g4;
  EXPECT_EQ(ours_over_up["warm"], g4["value"].get<double>()) << g4;
  ASSERT_EQ(1u, targets.count("cold_ours_vs_upstream2026")) << r.out;
  const json& cold = targets["cold_ours_vs_upstream2026"];
  EXPECT_TRUE(cold["measured"].get<bool>());
  EXPECT_EQ(ours_over_up["cold"], cold["value"].get<double>()) << cold;
}

}  // namespace
}  // namespace kudu
