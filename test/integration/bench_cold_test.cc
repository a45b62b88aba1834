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

// `kudu fs bench --bench_cache_mode=cold --bench_readahead=...` as a
// subprocess on a tiny G4 (~1 s): every run starts with no cached metadata
// byte, the report says how the cache was dropped, the disk floor is
// measured, each open runs once per read-ahead mode with the same live set,
// and the read-ahead counters say what each mode did. With
// --bench_cold_eviction=files, only the state's own files leave the cache.
// Usage errors for bad read-ahead values.
//
// The default eviction drops the whole machine's page cache (as root), which
// would slow or disturb every test beside it: ctest runs this driver alone
// (RUN_SERIAL), and every other test that runs the bench cold asks for
// --bench_cold_eviction=files.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kudu/tools/page_cache.h"
#include "kudu/util/file.h"
#include "util/kudu_subprocess.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using nlohmann::json;

TEST(BenchColdTest, ColdRunsWithEveryReadaheadMode) {
  test::TempDir tmp;
  const std::string json_path = tmp.Join("bench.json");
  test::RunResult r = test::RunKudu(
      tmp, {"fs", "bench", "--bench_workloads=G4", "--bench_encryption=plain",
            "--bench_scale=0.02", "--bench_repetitions=1", "--bench_cache_mode=cold",
            "--bench_strategies=auto,streaming", "--bench_readahead=none,fadvise",
            "--fs_max_thread_count_per_data_dir=2", "--bench_dir=" + tmp.path(),
            "--bench_json_out=" + json_path});
  ASSERT_EQ(0, r.exit_status) << test::Describe(r);
  // The text: the cold section, the method used, the disk floor.
  EXPECT_NE(std::string::npos, r.out.find("page cache cold")) << r.out;
  EXPECT_NE(std::string::npos, r.out.find("== cold start and read-ahead")) << r.out;
  const bool dropped = r.out.find("drop_caches (page cache, dentries and inodes") != std::string::npos;
  EXPECT_TRUE(dropped || r.out.find("posix_fadvise(DONTNEED) on every file") != std::string::npos)
      << r.out;
  // What a running server keeps cached (the time zone file, its program) is
  // read back after the drop, and said.
  if (dropped) {
    EXPECT_NE(std::string::npos, r.out.find("time zone file and the program's own files read back"))
        << r.out;
  }
  EXPECT_NE(std::string::npos, r.out.find("seq-floor")) << r.out;
  EXPECT_NE(std::string::npos, r.out.find("cpu-bound: the open's CPU (user + sys) spread over the "
                                         "cores it can use"))
      << r.out;

  std::string text;
  ASSERT_TRUE(test::ReadFileToString(json_path, &text).ok());
  const json j = json::parse(text);
  EXPECT_EQ("cold", j["config"]["cache_mode"]);
  EXPECT_EQ("fadvise", j["config"]["readahead"]);
  ASSERT_EQ(1u, j["workloads"].size());
  const json& w = j["workloads"][0];
  EXPECT_TRUE(w["live_sets_identical"].get<bool>());
  std::set<std::string> names;
  for (const json& s : w["strategies"]) {
    const std::string name = s["strategy"];
    names.insert(name);
    // Every run started cold.
    ASSERT_TRUE(s.contains("cached_bytes_at_start")) << name;
    EXPECT_EQ(0, s["cached_bytes_at_start"].get<int64_t>()) << name;
    if (s["kind"] != "open") continue;
    const std::string mode = name.substr(name.find('/') + 1);
    const uint64_t files = s["readahead_files"];
    if (mode == "none") {
      EXPECT_EQ("none", s["readahead"]) << name;
      EXPECT_EQ(0u, files) << name;
    } else {
      EXPECT_EQ("fadvise", mode) << name;
      EXPECT_EQ("fadvise", s["readahead"]) << name;
      EXPECT_GT(files, 0u) << name;  // 40 containers, 2 threads
    }
    // Streaming with read-ahead is compared with Streaming with the same
    // read-ahead.
    if (s["strategy_choice"] == "streaming") {
      EXPECT_EQ(1.0, s["speedup_over_streaming"]) << name;
    }
  }
  for (const char* n : {"auto/none", "auto/fadvise", "streaming/none", "streaming/fadvise",
                        "floor", "seq-floor", "floor-cached", "seq-floor-cached"}) {
    EXPECT_EQ(1u, names.count(n)) << n;
  }
  EXPECT_EQ(8u, names.size());
  // Each floor is measured both ways a file can be read, and every ratio is
  // to the faster of the two.
  std::map<std::string, double> wall;
  for (const json& s : w["strategies"]) wall[s["strategy"]] = s["wall_s"]["median"];
  const double floor = std::min(wall["floor"], wall["floor-cached"]);
  const double seq_floor = std::min(wall["seq-floor"], wall["seq-floor-cached"]);
  // The cores it can use: one per metadata file when there are fewer.
  const double cpus = std::min(j["machine"]["cpus"].get<double>(),
                               w["metadata_files"].get<double>());
  for (const json& s : w["strategies"]) {
    const std::string name = s["strategy"];
    EXPECT_DOUBLE_EQ(wall[name] / floor, s["floor_ratio"].get<double>()) << name;
    EXPECT_DOUBLE_EQ(wall[name] / seq_floor, s["disk_floor_ratio"].get<double>()) << name;
    // The least floor ratio the open's CPU allows on every core.
    const double cpu = s["cpu_s_median"].get<double>();
    EXPECT_GT(cpu, 0) << name;
    EXPECT_DOUBLE_EQ(cpu / cpus / floor, s["cpu_bound_floor_ratio"].get<double>()) << name;
  }
}

// Bytes of `path` in the page cache now, or -1.
int64_t ResidentBytes(const std::string& path) {
  std::unique_ptr<RandomAccessFile> file;
  if (!RandomAccessFile::Open(path, nullptr, &file).ok()) return -1;
  return tools::PageCacheResidentBytes(*file);
}

TEST(BenchColdTest, FilesEvictionLeavesTheRestOfTheCacheAlone) {
  test::TempDir tmp;
  // A file beside the bench's dir, cached: what other work on the machine
  // holds in the page cache.
  const std::string bystander = tmp.Join("bystander");
  ASSERT_TRUE(test::WriteStringToFile(bystander, test::RandomBytes(1 << 20, 7)).ok());
  ASSERT_FALSE(test::Slurp(bystander).empty());
  if (ResidentBytes(bystander) != (1 << 20)) GTEST_SKIP() << "the page cache did not keep it";

  test::RunResult r = test::RunKudu(
      tmp, {"fs", "bench", "--bench_workloads=G4", "--bench_encryption=plain",
            "--bench_scale=0.02", "--bench_repetitions=2", "--bench_cache_mode=cold",
            "--bench_cold_eviction=files", "--bench_strategies=auto",
            "--fs_max_thread_count_per_data_dir=2", "--bench_dir=" + tmp.path(),
            "--format=json"});
  ASSERT_EQ(0, r.exit_status) << test::Describe(r);
  const json j = json::parse(r.out);
  // Said, and the state's own metadata still left the cache before each run.
  const std::string how = j["config"]["cache_description"];
  EXPECT_NE(std::string::npos, how.find("posix_fadvise(DONTNEED) on every file of the state"))
      << how;
  for (const json& s : j["workloads"][0]["strategies"]) {
    EXPECT_EQ(0, s["cached_bytes_at_start"].get<int64_t>()) << s["strategy"];
  }
  EXPECT_EQ(1 << 20, ResidentBytes(bystander));
}

TEST(BenchColdTest, UsageErrors) {
  test::TempDir tmp;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"fs", "bench", "--bench_readahead=none,sometimes"},
        std::vector<std::string>{"fs", "bench", "--bench_cache_mode=lukewarm"},
        std::vector<std::string>{"fs", "bench", "--bench_cold_eviction=some"},
        std::vector<std::string>{"fs", "bench", "--log_container_metadata_replay_readahead=x"},
        std::vector<std::string>{"fs", "check", "--fs_data_dirs=" + tmp.path(),
                                 "--log_container_metadata_replay_readahead=x"}}) {
    test::RunResult r = test::RunKudu(tmp, args);
    EXPECT_EQ(2, r.exit_status) << test::Describe(r);
    EXPECT_TRUE(r.out.empty()) << test::Describe(r);
  }
  // io_uring read-ahead is not a mode: one stderr line saying what is.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"fs", "check", "--fs_data_dirs=" + tmp.path(),
                                 "--log_container_metadata_replay_readahead=uring"},
        std::vector<std::string>{"fs", "bench", "--log_container_metadata_replay_readahead=uring"},
        std::vector<std::string>{"fs", "bench", "--bench_readahead=fadvise,uring"}}) {
    test::RunResult r = test::RunKudu(tmp, args);
    EXPECT_EQ(2, r.exit_status) << test::Describe(r);
    EXPECT_TRUE(r.out.empty()) << test::Describe(r);
    EXPECT_NE(std::string::npos, r.err.find("uring")) << test::Describe(r);
    EXPECT_NE(std::string::npos, r.err.find("none")) << test::Describe(r);
    EXPECT_NE(std::string::npos, r.err.find("fadvise")) << test::Describe(r);
  }
}

}  // namespace
}  // namespace kudu
