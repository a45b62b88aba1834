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


// `kudu fs bench --bench_scaling` at two tiny points per axis: the report's
// shape (every point warm and cold, auto beside Streaming, each open's peak
// RSS from a fresh process, a line fit per axis, mode and strategy), the
// CSV's, and that every point's opens found the generator's live blocks.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/kudu_subprocess.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using nlohmann::json;

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string f;
  while (std::getline(in, f, ',')) out.push_back(f);
  return out;
}

TEST(BenchScalingTest, TwoPointsPerAxisWarmAndColdWithPeakRss) {
  test::TempDir tmp;
  const std::string json_path = tmp.Join("bench.json");
  const std::string csv_path = tmp.Join("scaling.csv");
  test::RunResult r = test::RunKudu(
      tmp, {"fs", "bench", "--bench_scaling", "--bench_scaling_records=2k,4k",
            "--bench_scaling_fixed_containers=2", "--bench_scaling_containers=1,3",
            "--bench_scaling_fixed_records=3k", "--bench_repetitions=1",
            "--fs_max_thread_count_per_data_dir=2", "--bench_dir=" + tmp.path(),
            "--bench_cold_eviction=files", "--bench_json_out=" + json_path,
            "--bench_csv_out=" + csv_path});
  ASSERT_EQ(0, r.exit_status) << test::Describe(r);
  EXPECT_NE(std::string::npos, r.out.find("== how the open grows")) << r.out;
  EXPECT_NE(std::string::npos, r.out.find("peak RSS (a fresh process per open")) << r.out;

  std::string text;
  ASSERT_TRUE(test::ReadFileToString(json_path, &text).ok());
  const json j = json::parse(text);
  EXPECT_TRUE(j["ok"].get<bool>());
  EXPECT_EQ("warm,cold", j["config"]["cache_mode"]);
  // 4 points, each warm then cold.
  ASSERT_EQ(8u, j["workloads"].size()) << text;
  std::map<std::string, std::set<std::string>> modes;
  for (const json& w : j["workloads"]) {
    const std::string name = w["name"];
    SCOPED_TRACE(name + " " + w["cache_mode"].get<std::string>());
    modes[name].insert(w["cache_mode"].get<std::string>());
    EXPECT_TRUE(w["live_sets_identical"].get<bool>());
    EXPECT_EQ(w["expected_live_set"], w["live_set"]);
    EXPECT_GT(w["live_set"]["live_blocks"].get<uint64_t>(), 0u);
    std::set<std::string> opens;
    for (const json& s : w["strategies"]) {
      if (s["kind"] != "open") continue;
      opens.insert(s["strategy"].get<std::string>());
      // The open's own process: its peak is above what it started with.
      ASSERT_TRUE(s.contains("peak_rss_bytes")) << s.dump();
      EXPECT_GT(s["peak_rss_bytes"].get<uint64_t>(), s["base_rss_bytes"].get<uint64_t>());
      EXPECT_GT(s["base_rss_bytes"].get<uint64_t>(), 0u);
    }
    EXPECT_EQ((std::set<std::string>{"auto", "streaming"}), opens);
  }
  for (const char* name : {"records-2k", "records-4k", "containers-1", "containers-3"}) {
    EXPECT_EQ((std::set<std::string>{"warm", "cold"}), modes[name]) << name;
  }
  // A fit per axis, cache mode and strategy, each over both points.
  const json& fits = j["scaling"]["fits"];
  ASSERT_EQ(8u, fits.size()) << fits.dump();
  for (const json& f : fits) {
    EXPECT_EQ(2, f["wall_s"]["points"].get<int>()) << f.dump();
    EXPECT_EQ(2, f["peak_rss_bytes"]["points"].get<int>()) << f.dump();
  }

  // The CSV: a header, then one row per open and floor of every state.
  std::string csv;
  ASSERT_TRUE(test::ReadFileToString(csv_path, &csv).ok());
  std::stringstream lines(csv);
  std::string line;
  ASSERT_TRUE(static_cast<bool>(std::getline(lines, line)));
  const std::vector<std::string> header = SplitCsvLine(line);
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < header.size(); i++) col[header[i]] = i;
  for (const char* c : {"workload", "cache_mode", "strategy", "kind", "records", "live_blocks",
                        "wall_s", "peak_rss_bytes"}) {
    ASSERT_TRUE(col.count(c)) << c << " in " << line;
  }
  size_t opens = 0;
  std::map<std::string, std::set<std::string>> live_by_point;
  while (std::getline(lines, line)) {
    const std::vector<std::string> f = SplitCsvLine(line);
    ASSERT_EQ(header.size(), f.size()) << line;
    if (f[col["kind"]] != "open") continue;
    opens++;
    EXPECT_GT(std::stoull(f[col["peak_rss_bytes"]]), 0u) << line;
    live_by_point[f[col["workload"]]].insert(f[col["live_blocks"]]);
  }
  EXPECT_EQ(16u, opens);  // 8 states x (auto, streaming)
  for (const auto& e : live_by_point) EXPECT_EQ(1u, e.second.size()) << e.first;
}

TEST(BenchScalingTest, MalformedCountsAreUsageErrors) {
  test::TempDir tmp;
  test::RunResult r = test::RunKudu(
      tmp, {"fs", "bench", "--bench_scaling", "--bench_scaling_records=2x"});
  EXPECT_EQ(2, r.exit_status) << test::Describe(r);
  EXPECT_NE(std::string::npos, r.err.find("--bench_scaling_records")) << r.err;
}

}  // namespace
}  // namespace kudu
