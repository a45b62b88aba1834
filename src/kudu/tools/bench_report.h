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

// The report of `kudu fs bench`: a text table per state plus a summary and
// the targets of docs/benchmarks.md, or one JSON object (--format=json) that
// scripts/plot_bench.sh turns into plots.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kudu/tools/bench_runner.h"

namespace kudu {
namespace tools {

struct BenchMachine {
  int cpus = 0;
  std::string cpu_model;
  std::string kernel;
  double load_before[3] = {0, 0, 0};  // getloadavg when the bench started
  double load_after[3] = {0, 0, 0};   // and when it ended
};
BenchMachine DescribeMachine();

struct BenchReport {
  bool ok = true;
  std::string status = "OK";
  BenchMachine machine;
  // Config.
  bool generated = false;  // no dir flags: the reference workloads
  std::string data_root;   // where they were generated
  double scale = 1.0;
  uint64_t min_block_size = 0, max_block_size = 0;
  int repetitions = 0;
  int threads_per_dir = 0;
  std::string cache_mode;
  std::string cache_description;
  std::vector<std::string> variants;
  fs::ReplayPolicyOptions policy;
  // The flags' read-ahead (variants without a "/<mode>" suffix use it).
  fs::ReadaheadOptions readahead;
  double total_seconds = 0;
  std::vector<TargetResult> results;
};

// A performance target of the bench (a goal for one figure of one workload
// or group), evaluated on the workloads present.
struct TargetCheck {
  std::string name;
  std::string description;
  std::string workload;  // where measured ("" when not measured)
  double value = 0;
  double goal = 0;
  bool higher_is_better = true;
  bool measured = false;
  bool met = false;
};
std::vector<TargetCheck> EvaluateTargets(const BenchReport& report);

// Derived figures of one variant of one state.
struct VariantFigures {
  double speedup_over_streaming = 0;  // 0 when streaming was not measured
  // Against the faster of "floor" and "floor-cached" (cold runs measure
  // both), and of "seq-floor" and "seq-floor-cached".
  double floor_ratio = 0;             // wall median / floor wall median
  double floor_ratio_cpu = 0;         // CPU (user + sys) median / the floor's
  double disk_floor_ratio = 0;        // wall median / seq-floor wall median (cold runs)
  // The open's CPU (user + sys median) spread over the cores it can use
  // (CpuBoundCores), over the floor's wall: the least floor_ratio that much
  // CPU allows here, however well it overlapped the reads. Where it is near
  // floor_ratio the open is bound by its CPU work, not by the disk.
  double cpu_bound_floor_ratio = 0;
  double syscalls_per_container = 0;
  // The same without the open's one-time key probe (one read per open).
  double replay_syscalls_per_container = 0;
  double syscall_reduction = 0;  // 1 - syscalls / streaming's (0 when unknown)
};
VariantFigures FiguresOf(const TargetResult& t, const VariantResult& v);
// The cores an open of `t` can keep busy: the machine's, or one per
// metadata file when it has fewer (a file is replayed by one thread).
unsigned CpuBoundCores(const TargetResult& t);

nlohmann::ordered_json BenchReportJson(const BenchReport& report);
std::string BenchReportText(const BenchReport& report);

}  // namespace tools
}  // namespace kudu
