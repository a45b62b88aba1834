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

// `kudu fs bench`: how fast the block manager opens, strategy by strategy.
//
// Without --fs_data_dirs it generates the reference workloads (G1..G5 of
// bench_workloads.h, plain and encrypted) one at a time in a temporary
// directory, through the same writer as `kudu fs generate`, measures each,
// and deletes it. With --fs_data_dirs it measures those dirs, read-only (the
// opens never repair).
//
// Every state is opened once per variant (streaming, inmemory, auto,
// windowed when enabled) plus the floor (each metadata file read once and
// CRC'd, no parsing), repeated --bench_repetitions times with the order
// rotated each repetition, and every open must produce the same live block
// set (and, for generated states, the one the generator left).
//
// Output: a text table per state, a summary and the targets (default), or
// one JSON object on stdout with --format=json (progress and logs on stderr).
//
// Exit status: 0 when every open succeeded and agreed; 1 when an open found
// a fatal inconsistency, generation failed, or two opens disagreed; 2 for a
// usage error (bad flag value, unusable dir, bad key).
#include <gflags/gflags.h>
#include <glog/logging.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "kudu/tools/bench_report.h"
#include "kudu/tools/bench_runner.h"
#include "kudu/tools/bench_workloads.h"
#include "kudu/tools/tool_action.h"
#include "kudu/tools/tool_flags.h"
#include "kudu/tools/tool_output_format.h"
#include "kudu/util/env.h"

DEFINE_int32(bench_repetitions, 3,
             "bench: opens per strategy and state; the order of the strategies rotates every "
             "repetition, and the median and min/max are reported");
DEFINE_string(bench_workloads, "all",
              "bench (no --fs_data_dirs): comma-separated workloads to generate and measure: "
              "groups G1..G5, names such as G1-100k or G1-100k-enc, or 'all'");
DEFINE_string(bench_encryption, "both",
              "bench (no --fs_data_dirs): 'both', 'plain' or 'encrypted' variants of each "
              "selected workload");
DEFINE_string(bench_strategies, "all",
              "bench: comma-separated strategies to open with: streaming, inmemory, auto, "
              "windowed, upstream2026 (upstream Kudu's in-memory replay, emulated for "
              "comparison), or 'all' (windowed only when "
              "--log_container_metadata_replay_window_bytes > 0); the floor is always measured");
DEFINE_double(bench_scale, 1.0,
              "bench (no --fs_data_dirs): multiplies every workload's block count (G4: its "
              "container count); e.g. 10 for a 1M-block G1, 0.02 for a smoke test");
DEFINE_uint64(bench_min_block_size, 64, "bench (no --fs_data_dirs): smallest block payload");
DEFINE_uint64(bench_max_block_size, 4096,
              "bench (no --fs_data_dirs): largest block payload. Block bytes do not affect the "
              "metadata replay, only generation time and disk use");
DEFINE_string(bench_dir, "",
              "bench (no --fs_data_dirs): where to create the temporary directory "
              "(default: $TMPDIR or /tmp)");
DEFINE_bool(bench_keep_generated, false,
            "bench (no --fs_data_dirs): keep the generated data dirs (and print where)");
DEFINE_uint64(bench_seed, 1, "bench (no --fs_data_dirs): seed of the generated workloads");
DEFINE_string(bench_cache_mode, "warm",
              "bench: page cache state of every measured run: 'warm' (every metadata file is "
              "read once before a state's first run) or 'cold' (before every run: sync and "
              "echo 3 > /proc/sys/vm/drop_caches, or where that is not allowed "
              "posix_fadvise(DONTNEED) on every file of the state; checked with mincore; the "
              "report says which). Cold runs also measure the disk floor, seq-floor");
DEFINE_string(bench_readahead, "",
              "bench: comma-separated read-ahead modes (none, fadvise) to open every "
              "state with, side by side in the same repetitions (variants named "
              "'<strategy>/<mode>'); empty: every open uses "
              "--log_container_metadata_replay_readahead");
DEFINE_string(bench_json_out, "",
              "bench: also write the JSON report to this file (whatever --format says), "
              "e.g. for scripts/plot_bench.sh");
DEFINE_bool(bench_warmup, true,
            "bench: one untimed open before a state's measured runs");

namespace kudu {
namespace tools {
namespace {

// The key of generated encrypted workloads when none is given.
constexpr char kDefaultBenchKeyHex[] = "000102030405060708090a0b0c0d0e0f";

void Progress(const std::string& line) { std::cerr << "bench: " << line << std::endl; }

// The one line a state gets once measured (each run's line with --v=1).
void ReportMeasured(const BenchRunOptions& run, const TargetResult& r) {
  Progress(r.target.name + ": measured " + std::to_string(run.variants.size()) +
           " strategies x " + std::to_string(run.repetitions) + " repetitions" +
           (r.status.ok() ? std::string() : ": " + r.status.ToString()));
}

Status MakeBenchRoot(std::string* path) {
  std::string parent = FLAGS_bench_dir;
  if (parent.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    parent = tmp != nullptr && *tmp ? tmp : "/tmp";
  }
  RETURN_NOT_OK(env::CreateDirs(parent));
  std::string tmpl = env::JoinPath(parent, "kudu-bench.XXXXXX");
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    return Status::IOError("cannot create a temporary directory under " + parent);
  }
  *path = buf.data();
  return Status::OK();
}

int RunBench(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("fs bench: unexpected argument '" + args[0] + "'");
  const auto start = std::chrono::steady_clock::now();
  OutputFormat format;
  Status s = ParseOutputFormat(&format);
  if (!s.ok()) return UsageError(s.message());
  if (FLAGS_bench_repetitions < 1) return UsageError("--bench_repetitions must be at least 1");
  if (FLAGS_fs_max_thread_count_per_data_dir < 1) {
    return UsageError("--fs_max_thread_count_per_data_dir must be at least 1");
  }
  if (!(FLAGS_bench_scale > 0) || FLAGS_bench_scale > 1000) {
    return UsageError("--bench_scale must be within (0, 1000]");
  }
  if (FLAGS_bench_seed == 0) return UsageError("--bench_seed must be non-zero");

  BenchReport report;
  report.machine = DescribeMachine();
  s = fs::ReplayPolicyOptions::FromFlags(&report.policy);
  if (!s.ok()) return UsageError(s.message());

  BenchRunOptions run;
  run.repetitions = FLAGS_bench_repetitions;
  run.warmup = FLAGS_bench_warmup;
  run.threads_per_dir = FLAGS_fs_max_thread_count_per_data_dir;
  run.policy = report.policy;
  run.progress = &Progress;
  s = fs::ReadaheadOptions::FromFlags(&report.readahead);
  if (!s.ok()) return UsageError(s.message());
  s = ParseBenchVariants(FLAGS_bench_strategies, report.policy.window_bytes > 0, &run.variants);
  if (!s.ok()) return UsageError(s.message());
  s = ApplyBenchReadahead(FLAGS_bench_readahead, &run.variants);
  if (!s.ok()) return UsageError(s.message());
  std::unique_ptr<BenchCacheMode> cache;
  s = NewBenchCacheMode(FLAGS_bench_cache_mode, &cache);
  if (!s.ok()) return UsageError("--bench_cache_mode: " + s.message());
  if (cache->cold()) AddSeqFloor(&run.variants);
  run.cache = cache.get();

  ServerKey key;
  bool have_key = false;
  s = LoadServerKey(&key, &have_key);
  if (!s.ok()) return UsageError(s.message());

  report.repetitions = run.repetitions;
  report.threads_per_dir = run.threads_per_dir;
  report.cache_mode = cache->name();
  for (const BenchVariant& v : run.variants) report.variants.push_back(v.name);

  // The opens log two INFO lines each; keep stderr to the bench's progress
  // unless --minloglevel was given.
  gflags::CommandLineFlagInfo info;
  if (gflags::GetCommandLineFlagInfo("minloglevel", &info) && info.is_default &&
      FLAGS_minloglevel < google::GLOG_WARNING) {
    FLAGS_minloglevel = google::GLOG_WARNING;
  }

  const bool given_dirs = !FLAGS_fs_data_dirs.empty();
  if (given_dirs) {
    BenchTarget t;
    s = ParseDataDirs(&t.data_dirs);
    if (!s.ok()) return UsageError(s.message());
    t.name = "dirs";
    t.description = FLAGS_fs_data_dirs;
    t.encrypted = have_key;
    t.server_key = have_key ? &key : nullptr;
    for (const std::string& d : t.data_dirs) {
      bool is_dir = false;
      if (!env::IsDirectory(d, &is_dir).ok() || !is_dir) {
        return UsageError("data dir " + d + " does not exist or is not a directory");
      }
    }
    TargetResult result;
    RunBenchTarget(run, t, &result);
    ReportMeasured(run, result);
    if (result.usage_error) return UsageError(result.status.ToString());
    report.results.push_back(std::move(result));
  } else {
    if (!have_key) {
      CHECK(ServerKey::FromHex(kDefaultBenchKeyHex, &key).ok());
      have_key = true;
    }
    WorkloadSizing sizing;
    sizing.scale = FLAGS_bench_scale;
    sizing.min_block_size = std::max<uint64_t>(1, FLAGS_bench_min_block_size);
    sizing.max_block_size = std::max(sizing.min_block_size, FLAGS_bench_max_block_size);
    std::vector<BenchWorkload> workloads;
    s = SelectWorkloads(ReferenceWorkloads(sizing), FLAGS_bench_workloads, FLAGS_bench_encryption,
                        &workloads);
    if (!s.ok()) return UsageError(s.message());
    report.generated = true;
    report.scale = sizing.scale;
    report.min_block_size = sizing.min_block_size;
    report.max_block_size = sizing.max_block_size;
    s = MakeBenchRoot(&report.data_root);
    if (!s.ok()) return UsageError(s.message());
    Progress("generating " + std::to_string(workloads.size()) + " workloads in " +
             report.data_root + ", one at a time");

    for (const BenchWorkload& w : workloads) {
      BenchTarget t;
      t.name = w.name;
      t.group = w.group;
      t.description = w.description;
      t.encrypted = w.encrypted;
      t.server_key = w.encrypted ? &key : nullptr;
      t.inmem_threshold_bytes = w.inmem_threshold_bytes;
      t.max_container_blocks = w.max_container_blocks;
      t.generated = true;
      GeneratedState g;
      s = GenerateWorkload(w, sizing, report.data_root, &key, FLAGS_bench_seed, &g);
      TargetResult result;
      if (!s.ok()) {
        result.target = t;
        result.status = s;
        Progress(w.name + ": " + s.ToString());
      } else {
        t.data_dirs = g.data_dirs;
        t.generate_seconds = g.seconds;
        t.generated_result = std::move(g.result);
        char line[200];
        std::snprintf(line, sizeof(line),
                      "generated %llu containers, %llu live blocks, %llu metadata bytes in %.2f s",
                      static_cast<unsigned long long>(t.generated_result.containers),
                      static_cast<unsigned long long>(t.generated_result.live.size()),
                      static_cast<unsigned long long>(t.generated_result.metadata_bytes),
                      t.generate_seconds);
        Progress(w.name + ": " + line);
        RunBenchTarget(run, t, &result);
        ReportMeasured(run, result);
        result.target.generated_result.live.clear();  // not needed any more
        result.target.generated_result.live.shrink_to_fit();
      }
      if (!FLAGS_bench_keep_generated) {
        env::DeleteRecursively(env::JoinPath(report.data_root, w.name));
      }
      report.results.push_back(std::move(result));
    }
    if (FLAGS_bench_keep_generated) {
      Progress("kept the generated data dirs in " + report.data_root);
    } else {
      env::DeleteRecursively(report.data_root);
    }
  }

  for (const TargetResult& t : report.results) {
    if (!t.status.ok()) {
      report.ok = false;
      if (report.status == "OK") report.status = t.target.name + ": " + t.status.ToString();
    } else if (!t.identical) {
      report.ok = false;
      if (report.status == "OK") report.status = t.target.name + ": live sets differ: " + t.mismatch;
    }
  }
  // Known once a state was prepared (the cold mode decides how it evicts).
  report.cache_description = cache->description();
  if (getloadavg(report.machine.load_after, 3) < 0) report.machine.load_after[0] = -1;
  report.total_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (!FLAGS_bench_json_out.empty()) {
    std::ofstream out(FLAGS_bench_json_out, std::ios::trunc);
    out << BenchReportJson(report).dump(2) << std::endl;
    if (!out) {
      std::cerr << "kudu: error: cannot write " << FLAGS_bench_json_out << std::endl;
      report.ok = false;
    }
  }
  if (format == OutputFormat::kJson) {
    std::cout << BenchReportJson(report).dump(2) << std::endl;
  } else {
    std::cout << BenchReportText(report) << std::flush;
  }
  if (!report.ok) {
    if (report.status != "OK") std::cerr << "kudu: error: " << report.status << std::endl;
    return kExitInconsistent;
  }
  return kExitOk;
}

[[maybe_unused]] const bool registered = RegisterToolAction(
    {"fs", "bench",
     "measure the block manager open strategy by strategy (streaming, inmemory, auto, "
     "windowed) against the read-and-CRC floor, on the reference workloads or on "
     "--fs_data_dirs (read-only); [--format=text|json]",
     &RunBench, FlagList(OpenFlags(), {"format", "bench_*"}), "", ""});

}  // namespace
}  // namespace tools
}  // namespace kudu
