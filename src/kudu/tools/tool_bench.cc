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
// Without dir flags it generates the reference workloads (G1..G5 of
// bench_workloads.h, plain and encrypted) one at a time in a temporary
// directory, through the same writer as `kudu fs generate`, measures each,
// and deletes it. With them it measures the data roots, read-only (the
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

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "kudu/tools/bench_report.h"
#include "kudu/tools/bench_runner.h"
#include "kudu/tools/bench_child_open.h"
#include "kudu/tools/bench_scaling.h"
#include "kudu/tools/bench_workloads.h"
#include "kudu/tools/tool_action.h"
#include "kudu/tools/tool_flags.h"
#include "kudu/tools/tool_output_format.h"
#include "kudu/util/env.h"

DEFINE_int32(bench_repetitions, 3,
             "bench: opens per strategy and state; the order of the strategies rotates every "
             "repetition, and the median and min/max are reported");
DEFINE_int32(bench_min_short_runs, 15,
             "bench: a state whose fastest open takes under --bench_short_open_ms gets extra "
             "interleaved rounds of the strategies (and the floor) within 10x of that open, "
             "until each has this many runs: the medians of opens that short swing with the "
             "machine's noise over a few repetitions. Warm and in process only. A value at or "
             "below --bench_repetitions adds no rounds");
DEFINE_double(bench_short_open_ms, 20,
              "bench: below this median wall time (ms), a state's fastest open makes it short "
              "(--bench_min_short_runs)");
DEFINE_string(bench_workloads, "all",
              "bench (no dir flags): comma-separated workloads to generate and measure: "
              "groups G1..G5, names such as G1-100k or G1-100k-enc, or 'all'");
DEFINE_string(bench_encryption, "both",
              "bench (no dir flags): 'both', 'plain' or 'encrypted' variants of each "
              "selected workload");
DEFINE_string(bench_strategies, "all",
              "bench: comma-separated strategies to open with: streaming, inmemory, auto, "
              "windowed, upstream2026 (upstream Kudu's in-memory replay, emulated for "
              "comparison), or 'all' (windowed only when "
              "--log_container_metadata_replay_window_bytes > 0); the floor is always measured");
DEFINE_double(bench_scale, 1.0,
              "bench (no dir flags): multiplies every workload's block count (G4: its "
              "container count); e.g. 10 for a 1M-block G1, 0.02 for a smoke test");
DEFINE_uint64(bench_min_block_size, 64, "bench (no dir flags): smallest block payload");
DEFINE_uint64(bench_max_block_size, 4096,
              "bench (no dir flags): largest block payload. Block bytes do not affect the "
              "metadata replay, only generation time and disk use");
DEFINE_string(bench_dir, "",
              "bench (no dir flags): where to create the temporary directory "
              "(default: $TMPDIR or /tmp)");
DEFINE_bool(bench_keep_generated, false,
            "bench (no dir flags): keep the generated data dirs (and print where)");
DEFINE_uint64(bench_seed, 1, "bench (no dir flags): seed of the generated workloads");
DEFINE_string(bench_cache_mode, "warm",
              "bench: page cache state of every measured run: 'warm' (every metadata file is "
              "read once before a state's first run) or 'cold' (before every run: sync and "
              "echo 3 > /proc/sys/vm/drop_caches, or where that is not allowed "
              "posix_fadvise(DONTNEED) on every file of the state; checked with mincore; the "
              "report says which), or both, 'warm,cold': every state measured warm, then cold. "
              "Cold runs also measure the disk floor, seq-floor. Left at its default, the "
              "server-scale workloads (S) and --bench_scaling are measured warm and cold");
DEFINE_bool(bench_peak_rss, false,
            "bench: run every measured open in a fresh process (the bench starts itself once "
            "per open, as a server start is one process) and report its peak RSS (the child's "
            "VmHWM) and the resident set it started the open with. Left at its default, on "
            "for the server-scale workloads (S) and --bench_scaling");
DEFINE_string(bench_readahead, "",
              "bench: comma-separated read-ahead modes (none, fadvise) to open every "
              "state with, side by side in the same repetitions (variants named "
              "'<strategy>/<mode>'); empty: every open uses "
              "--log_container_metadata_replay_readahead");
DEFINE_string(bench_json_out, "",
              "bench: also write the JSON report to this file (whatever --format says), "
              "e.g. for scripts/plot_bench.sh");
DEFINE_string(bench_csv_out, "",
              "bench: also write one CSV row per open and floor of every state to this file "
              "(workload, cache mode, strategy, sizes, wall and CPU seconds, peak RSS), e.g. "
              "for scripts/plot_scaling.sh");
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
  Progress(r.target.name + ": measured " + r.target.cache_mode + ", " +
           std::to_string(run.variants.size()) +
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
  if (IsBenchOpenChild()) return RunBenchOpenChild();
  const auto start = std::chrono::steady_clock::now();
  OutputFormat format;
  Status s = ParseOutputFormat(&format);
  if (!s.ok()) return UsageError(s.message());
  if (FLAGS_bench_repetitions < 1) return UsageError("--bench_repetitions must be at least 1");
  if (FLAGS_bench_min_short_runs < 0) return UsageError("--bench_min_short_runs must be >= 0");
  if (!(FLAGS_bench_short_open_ms >= 0)) return UsageError("--bench_short_open_ms must be >= 0");
  if (FLAGS_fs_max_thread_count_per_data_dir < 1) {
    return UsageError("--fs_max_thread_count_per_data_dir must be at least 1");
  }
  if (!(FLAGS_bench_scale > 0) || FLAGS_bench_scale > 1000) {
    return UsageError("--bench_scale must be within (0, 1000]");
  }
  if (FLAGS_bench_seed == 0) return UsageError("--bench_seed must be non-zero");
  // As for every fs action, including the rules that only check uses (the
  // classification flags' combination).
  s = ValidateOpenFlags();
  if (!s.ok()) return UsageError(s.message());

  BenchReport report;
  report.machine = DescribeMachine();
  s = fs::ReplayPolicyOptions::FromFlags(&report.policy);
  if (!s.ok()) return UsageError(s.message());

  BenchRunOptions run;
  run.repetitions = FLAGS_bench_repetitions;
  run.min_short_runs = FLAGS_bench_min_short_runs;
  run.short_open_seconds = FLAGS_bench_short_open_ms / 1e3;
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
  // The cache modes each state is measured in: the flag's, or when it is
  // left at its default, warm and cold for the server-scale states.
  const bool cache_mode_given = !gflags::GetCommandLineFlagInfoOrDie("bench_cache_mode").is_default;
  const bool peak_rss_given = !gflags::GetCommandLineFlagInfoOrDie("bench_peak_rss").is_default;
  std::vector<std::unique_ptr<BenchCacheMode>> caches;
  for (const char* name : {"warm", "cold"}) {
    std::unique_ptr<BenchCacheMode> c;
    CHECK(NewBenchCacheMode(name, &c).ok());
    caches.push_back(std::move(c));
  }
  std::vector<BenchCacheMode*> flag_caches;
  for (const std::string& item : SplitBenchList(FLAGS_bench_cache_mode)) {
    std::unique_ptr<BenchCacheMode> probe;
    s = NewBenchCacheMode(item, &probe);
    if (!s.ok()) return UsageError("--bench_cache_mode: " + s.message());
    BenchCacheMode* c = item == "warm" ? caches[0].get() : caches[1].get();
    if (std::find(flag_caches.begin(), flag_caches.end(), c) == flag_caches.end()) {
      flag_caches.push_back(c);
    }
  }
  if (flag_caches.empty()) return UsageError("--bench_cache_mode names no cache mode");
  const std::vector<BenchCacheMode*> both_caches = {caches[0].get(), caches[1].get()};
  // Server scale: the S workloads and the sweep.
  auto caches_for = [&](bool server_scale) {
    return server_scale && !cache_mode_given ? both_caches : flag_caches;
  };
  auto fresh_process_for = [&](bool server_scale) {
    return peak_rss_given ? FLAGS_bench_peak_rss : server_scale;
  };
  const bool scaling = ScalingSweepRequested();
  if (scaling && gflags::GetCommandLineFlagInfoOrDie("bench_strategies").is_default) {
    s = ParseBenchVariants("auto,streaming", report.policy.window_bytes > 0, &run.variants);
    CHECK(s.ok()) << s.ToString();
    s = ApplyBenchReadahead(FLAGS_bench_readahead, &run.variants);
    if (!s.ok()) return UsageError(s.message());
  }
  std::vector<std::string> modes_used;
  // The InMemory variant an encrypted state is measured with beside its
  // plain twin (none: no pairs).
  const BenchVariant* inmemory = nullptr;
  for (const BenchVariant& v : run.variants) {
    if (v.kind == BenchVariantKind::kOpen && v.name == "inmemory") inmemory = &v;
  }
  // Measures `t` in every cache mode it gets, one result each; with `twin`
  // (its plain twin, still on disk), warm and in process, also InMemory on
  // both side by side.
  auto measure = [&](const BenchTarget& t, bool server_scale, const BenchTarget* twin) {
    for (BenchCacheMode* c : caches_for(server_scale)) {
      BenchRunOptions r = run;
      r.cache = c;
      if (c->cold()) AddColdFloors(&r.variants);
      r.fresh_process_per_open = fresh_process_for(server_scale);
      if (std::find(modes_used.begin(), modes_used.end(), c->name()) == modes_used.end()) {
        modes_used.push_back(c->name());
      }
      for (const BenchVariant& v : r.variants) {
        if (std::find(report.variants.begin(), report.variants.end(), v.name) ==
            report.variants.end()) {
          report.variants.push_back(v.name);
        }
      }
      TargetResult result;
      Status st = RunBenchTarget(r, t, &result);
      if (st.ok() && twin != nullptr && inmemory != nullptr && !c->cold() &&
          !r.fresh_process_per_open) {
        st = RunTwinPair(r, *inmemory, *twin, &result);
        if (!st.ok()) result.status = st;
      }
      ReportMeasured(r, result);
      report.results.push_back(std::move(result));
      if (report.results.back().usage_error) return false;
    }
    return true;
  };

  ServerKey key;
  bool have_key = false;
  s = LoadServerKey(&key, &have_key);
  if (!s.ok()) return UsageError(s.message());

  report.repetitions = run.repetitions;
  report.threads_per_dir = run.threads_per_dir;

  // The opens log two INFO lines each; keep stderr to the bench's progress
  // unless --minloglevel was given.
  gflags::CommandLineFlagInfo info;
  if (gflags::GetCommandLineFlagInfo("minloglevel", &info) && info.is_default &&
      FLAGS_minloglevel < google::GLOG_WARNING) {
    FLAGS_minloglevel = google::GLOG_WARNING;
  }

  // DIRS as every fs action takes them: the WAL root alone is the data root.
  const bool given_dirs = !DirFlagsMissing() || !FLAGS_fs_metadata_dir.empty();
  if (given_dirs) {
    BenchTarget t;
    FsRoots roots;
    s = ResolveFsRoots(&roots);
    if (s.ok()) s = CheckOtherRootsExist(roots);
    if (!s.ok()) return UsageError(s.message());
    t.data_dirs = roots.data_dirs;
    t.name = "dirs";
    for (const std::string& d : t.data_dirs) {
      t.description += (t.description.empty() ? "" : ",") + d;
    }
    t.encrypted = have_key;
    t.server_key = have_key ? &key : nullptr;
    for (const std::string& d : t.data_dirs) {
      bool is_dir = false;
      if (!env::IsDirectory(d, &is_dir).ok() || !is_dir) {
        return UsageError("data dir " + d + " does not exist or is not a directory");
      }
    }
    if (!measure(t, false, nullptr)) return UsageError(report.results.back().status.ToString());
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
    s = scaling ? ScalingWorkloads(&workloads)
                : SelectWorkloads(ReferenceWorkloads(sizing), FLAGS_bench_workloads,
                                  FLAGS_bench_encryption, &workloads);
    if (!s.ok()) return UsageError(s.message());
    report.generated = true;
    report.scale = sizing.scale;
    report.min_block_size = sizing.min_block_size;
    report.max_block_size = sizing.max_block_size;
    s = MakeBenchRoot(&report.data_root);
    if (!s.ok()) return UsageError(s.message());
    Progress("generating " + std::to_string(workloads.size()) + " workloads in " +
             report.data_root + ", one at a time");

    // A short plain state (BenchRunOptions::min_short_runs) whose encrypted
    // twin is next stays on disk until the twin has been measured beside it.
    // Only a short one: a large state kept while its twin is generated
    // (G4's are 1.2 GB each) is written back to the disk meanwhile, which
    // slows the twin's measurement and then its own deletion (15-40 s here).
    BenchTarget twin;
    bool have_twin = false;
    for (size_t i = 0; i < workloads.size(); i++) {
      const BenchWorkload& w = workloads[i];
      bool twin_next = !w.encrypted && i + 1 < workloads.size() &&
                       workloads[i + 1].name == w.name + "-enc";
      const bool beside_twin = w.encrypted && have_twin && twin.name + "-enc" == w.name;
      BenchTarget t;
      t.name = w.name;
      t.group = w.group;
      t.description = w.description;
      t.encrypted = w.encrypted;
      t.server_key = w.encrypted ? &key : nullptr;
      t.in_memory_threshold_bytes = w.in_memory_threshold_bytes;
      t.max_container_blocks = w.max_container_blocks;
      t.generated = true;
      t.sparse_data = w.sparse_data;
      GeneratedState g;
      // Digested as handed over: a sorted list of a server-sized state's
      // live blocks would outweigh the open being measured.
      GeneratedDigester digester;
      s = GenerateWorkload(w, sizing, report.data_root, &key, FLAGS_bench_seed, &g,
                           [&digester](const std::vector<tools::ShardLiveBlocks>& shards,
                                       int threads) {
                             digester.AddShards(shards, threads);
                             return Status::OK();
                           });
      if (!s.ok()) {
        TargetResult result;
        result.target = t;
        result.status = s;
        Progress(w.name + ": " + s.ToString());
        report.results.push_back(std::move(result));
      } else {
        t.data_dirs = g.data_dirs;
        t.generate_seconds = g.seconds;
        t.expected = digester.Finish(g.result.containers);
        t.generated_result = std::move(g.result);
        const uint64_t live_blocks = t.expected.live_blocks;
        char line[200];
        std::snprintf(line, sizeof(line),
                      "generated %llu containers, %llu live blocks, %llu metadata bytes in %.2f s",
                      static_cast<unsigned long long>(t.generated_result.containers),
                      static_cast<unsigned long long>(live_blocks),
                      static_cast<unsigned long long>(t.generated_result.metadata_bytes),
                      t.generate_seconds);
        Progress(w.name + ": " + line);
        measure(t, w.group == "S" || scaling, beside_twin ? &twin : nullptr);
        twin_next = twin_next && report.results.back().short_runs > 0;
        if (twin_next) {
          twin = t;
          have_twin = true;
        }
      }
      if (!FLAGS_bench_keep_generated) {
        if (!twin_next || !have_twin) env::DeleteRecursively(env::JoinPath(report.data_root, w.name));
        if (beside_twin) env::DeleteRecursively(env::JoinPath(report.data_root, twin.name));
      }
      if (!twin_next) have_twin = false;
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
  if (modes_used.empty()) {
    for (const BenchCacheMode* c : flag_caches) modes_used.push_back(c->name());
  }
  for (const std::string& m : modes_used) {
    const BenchCacheMode* c = m == "warm" ? caches[0].get() : caches[1].get();
    report.cache_mode += (report.cache_mode.empty() ? "" : ",") + m;
    report.cache_description += (report.cache_description.empty() ? "" : "; ") +
                                (modes_used.size() > 1 ? m + ": " : "") + c->description();
  }
  if (getloadavg(report.machine.load_after, 3) < 0) report.machine.load_after[0] = -1;
  report.total_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (!FLAGS_bench_json_out.empty()) {
    std::ofstream out(FLAGS_bench_json_out, std::ios::trunc);
    out << JsonText(BenchReportJson(report), 2) << std::endl;
    if (!out) {
      std::cerr << "kudu: error: cannot write " << FLAGS_bench_json_out << std::endl;
      report.ok = false;
    }
  }
  if (!FLAGS_bench_csv_out.empty()) {
    s = WriteBenchCsv(report, FLAGS_bench_csv_out);
    if (!s.ok()) {
      std::cerr << "kudu: error: " << s.ToString() << std::endl;
      report.ok = false;
    }
  }
  if (format == OutputFormat::kJson) {
    std::cout << JsonText(BenchReportJson(report), 2) << std::endl;
  } else {
    std::cout << BenchReportText(report) << std::flush;
  }
  if (!report.ok) {
    if (report.status != "OK") std::cerr << "kudu: error: " << report.status << std::endl;
    return kExitInconsistent;
  }
  return kExitOk;
}

[[maybe_unused]] const bool bench_registered = RegisterToolAction(
    {"fs", "bench",
     "measure the block manager open strategy by strategy (streaming, inmemory, auto, "
     "windowed) against the read-and-CRC floor, on the reference workloads or, read-only, "
     "on the data roots of --fs_wal_dir / --fs_data_dirs; [--format=text|json]",
     &RunBench, FlagList(FsFlags(), {"format", "bench_*"}), "", ""});

}  // namespace
}  // namespace tools
}  // namespace kudu
