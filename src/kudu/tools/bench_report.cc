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

#include "kudu/tools/bench_report.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "kudu/fs/replay_stats.h"
#include "kudu/tools/bench_scaling.h"
#include "kudu/tools/bench_upstream2026.h"

namespace kudu {
namespace tools {
namespace {

using ojson = nlohmann::ordered_json;

// Before any lock or replay, an open with a server key reads the first
// bytes of one metadata file to recognise a wrong key (fs/key_probe.h):
// one read per open of a healthy encrypted state, not per container.
constexpr double kKeyProbeReads = 1;

std::string Fmt(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}

// 1234567 → "1.23 M", for rates and counts in the text table.
std::string Human(double v) {
  if (v >= 1e9) return Fmt("%.2f G", v / 1e9);
  if (v >= 1e6) return Fmt("%.2f M", v / 1e6);
  if (v >= 1e4) return Fmt("%.1f k", v / 1e3);
  return Fmt("%.0f", v);
}

std::string Bytes(double v) {
  if (v >= 1 << 30) return Fmt("%.2f GiB", v / (1 << 30));
  if (v >= 1 << 20) return Fmt("%.2f MiB", v / (1 << 20));
  if (v >= 1 << 10) return Fmt("%.1f KiB", v / (1 << 10));
  return Fmt("%.0f B", v);
}

std::string Pad(const std::string& s, size_t w, bool right = true) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

ojson SpreadJson(const Spread& s) {
  return ojson{{"median", s.median}, {"min", s.min}, {"max", s.max}};
}

ojson DigestJson(const LiveSetDigest& d) {
  return ojson{{"hash", d.HashHex()},
               {"live_blocks", d.live_blocks},
               {"live_bytes", d.live_bytes},
               {"containers", d.containers}};
}

ojson ByStrategyJson(const RunMetrics& m) {
  ojson by = ojson::object();
  for (int k = 0; k < fs::ReplayCounters::kKinds; k++) {
    by[ReplayStrategyName(static_cast<fs::ReplayStrategyKind>(k))] = m.containers_by_strategy[k];
  }
  return by;
}

// A state's name in the report's tables, with its cache mode when the run
// measured more than one.
std::string Label(const BenchReport& r, const TargetResult& t) {
  if (r.cache_mode.find(',') == std::string::npos) return t.target.name;
  return t.target.name + " (" + t.target.cache_mode + ")";
}

}  // namespace

BenchMachine DescribeMachine() {
  BenchMachine m;
  m.cpus = static_cast<int>(std::thread::hardware_concurrency());
  struct utsname u;
  if (uname(&u) == 0) m.kernel = std::string(u.sysname) + " " + u.release + " " + u.machine;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) m.cpu_model = line.substr(colon + 2);
      break;
    }
  }
  if (getloadavg(m.load_before, 3) < 0) m.load_before[0] = m.load_before[1] = m.load_before[2] = -1;
  return m;
}

unsigned CpuBoundCores(const TargetResult& t) {
  const unsigned cpus = std::thread::hardware_concurrency();
  return t.files.empty() ? cpus : std::min<unsigned>(cpus, static_cast<unsigned>(t.files.size()));
}

VariantFigures FiguresOf(const TargetResult& t, const VariantResult& v) {
  VariantFigures f;
  // With --bench_readahead, against Streaming with the same read-ahead.
  const VariantResult* streaming = v.variant.kind == BenchVariantKind::kOpen
                                       ? t.FindLike("streaming", v.variant)
                                       : t.Find("streaming");
  // Each floor measured both ways (bench_runner.h): the faster of the two.
  const auto faster = [](const VariantResult* a, const VariantResult* b) {
    if (a == nullptr || (b != nullptr && b->wall_s.median < a->wall_s.median)) return b;
    return a;
  };
  const VariantResult* floor = faster(t.Find(kFloorName), t.Find(kCachedFloorName));
  const VariantResult* seq_floor = faster(t.Find(kSeqFloorName), t.Find(kCachedSeqFloorName));
  if (streaming != nullptr && v.wall_s.median > 0) {
    f.speedup_over_streaming = streaming->wall_s.median / v.wall_s.median;
  }
  if (floor != nullptr && floor->wall_s.median > 0) {
    f.floor_ratio = v.wall_s.median / floor->wall_s.median;
  }
  if (floor != nullptr && floor->cpu_s_median > 0) {
    f.floor_ratio_cpu = v.cpu_s_median / floor->cpu_s_median;
  }
  const unsigned cores = CpuBoundCores(t);
  if (floor != nullptr && floor->wall_s.median > 0 && cores > 0) {
    f.cpu_bound_floor_ratio = v.cpu_s_median / cores / floor->wall_s.median;
  }
  if (seq_floor != nullptr && seq_floor->wall_s.median > 0) {
    f.disk_floor_ratio = v.wall_s.median / seq_floor->wall_s.median;
  }
  if (!v.runs.empty()) {
    const double sc = static_cast<double>(v.runs[0].metadata_read_syscalls);
    if (t.files.size() > 0) {
      f.syscalls_per_container = sc / static_cast<double>(t.files.size());
      if (v.variant.kind == BenchVariantKind::kOpen && t.target.encrypted &&
          sc >= kKeyProbeReads) {
        f.replay_syscalls_per_container = (sc - kKeyProbeReads) / static_cast<double>(t.files.size());
      } else {
        f.replay_syscalls_per_container = f.syscalls_per_container;
      }
    }
    if (streaming != nullptr && !streaming->runs.empty() &&
        streaming->runs[0].metadata_read_syscalls > 0) {
      f.syscall_reduction =
          1.0 - sc / static_cast<double>(streaming->runs[0].metadata_read_syscalls);
    }
  }
  return f;
}


nlohmann::ordered_json BenchReportJson(const BenchReport& r) {
  ojson j;
  j["ok"] = r.ok;
  j["status"] = r.status;
  const BenchMachine& m = r.machine;
  j["machine"] = ojson{{"cpus", m.cpus},
                       {"cpu_model", m.cpu_model},
                       {"kernel", m.kernel},
                       {"load_avg_before", {m.load_before[0], m.load_before[1], m.load_before[2]}},
                       {"load_avg_after", {m.load_after[0], m.load_after[1], m.load_after[2]}}};
  j["config"] = ojson{{"generated", r.generated},
                      {"data_root", r.data_root},
                      {"scale", r.scale},
                      {"min_block_size", r.min_block_size},
                      {"max_block_size", r.max_block_size},
                      {"repetitions", r.repetitions},
                      {"threads_per_dir", r.threads_per_dir},
                      {"cache_mode", r.cache_mode},
                      {"cache_description", r.cache_description},
                      {"strategies", r.variants},
                      {"in_memory_threshold_bytes", r.policy.in_memory_threshold_bytes},
                      {"memory_budget_bytes", r.policy.memory_budget_bytes},
                      {"window_bytes", r.policy.window_bytes},
                      {"readahead", fs::ReadaheadModeName(r.readahead.mode)},
                      {"readahead_containers_per_thread", r.readahead.containers_per_thread},
                      {"timing_note",
                       "user_s and sys_s are getrusage(RUSAGE_SELF) deltas: every thread of the "
                       "process; records_per_cpu_s = records / (user_s + sys_s)"}};
  j["total_seconds"] = r.total_seconds;

  ojson workloads = ojson::array();
  for (const TargetResult& t : r.results) {
    ojson w;
    w["name"] = t.target.name;
    w["group"] = t.target.group;
    w["description"] = t.target.description;
    w["cache_mode"] = t.target.cache_mode;
    w["encrypted"] = t.target.encrypted;
    w["data_dirs"] = t.target.data_dirs;
    w["ok"] = t.status.ok() && t.identical;
    w["status"] = !t.status.ok() ? t.status.ToString() : t.identical ? "OK" : t.mismatch;
    w["containers"] = t.containers;
    w["metadata_files"] = t.files.size();
    w["metadata_bytes"] = t.metadata_bytes;
    w["records"] = t.records;
    w["in_memory_threshold_bytes"] = t.in_memory_threshold_bytes;
    w["threads_per_dir"] = t.threads_per_dir;
    w["replay_threads"] = t.replay_threads;
    if (t.target.generated) {
      const tools::BlockWorkloadResult& g = t.target.generated_result;
      w["generated"] = ojson{{"seconds", t.target.generate_seconds},
                             {"containers", g.containers},
                             {"blocks_created", g.blocks_created},
                             {"blocks_deleted", g.blocks_deleted},
                             {"data_bytes_written", g.data_bytes_written},
                             {"metadata_bytes", g.metadata_bytes}};
    }
    w["live_set"] = DigestJson(t.digest);
    if (t.has_expected) w["expected_live_set"] = DigestJson(t.expected);
    w["live_sets_identical"] = t.identical;
    if (t.short_runs > 0) {
      w["short_state"] = ojson{{"fastest_open_s", t.short_open_s}, {"runs", t.short_runs}};
    }
    if (t.twin_pair.runs > 0) {
      const TwinPair& tp = t.twin_pair;
      w["twin_pair"] = ojson{{"twin", tp.twin},
                             {"strategy", "inmemory"},
                             {"runs", tp.runs},
                             {"twin_wall_s", SpreadJson(tp.plain_wall_s)},
                             {"wall_s", SpreadJson(tp.wall_s)}};
    }
    if (!t.identical) w["mismatch"] = t.mismatch;
    ojson strategies = ojson::array();
    for (const VariantResult& v : t.variants) {
      if (v.runs.empty()) continue;
      const RunMetrics& first = v.runs[0];
      const VariantFigures f = FiguresOf(t, v);
      ojson s;
      s["strategy"] = v.variant.name;
      s["kind"] = v.variant.kind == BenchVariantKind::kFloor      ? "floor"
                  : v.variant.kind == BenchVariantKind::kSeqFloor ? "seq_floor"
                                                                  : "open";
      s["wall_s"] = SpreadJson(v.wall_s);
      s["user_s"] = SpreadJson(v.user_s);
      s["sys_s"] = SpreadJson(v.sys_s);
      s["metadata_read_syscalls"] = first.metadata_read_syscalls;
      s["process_read_syscalls"] = first.process_read_syscalls;
      s["metadata_bytes_read"] = first.metadata_bytes_read;
      s["peak_buffer_bytes"] = v.peak_buffer_bytes;
      if (v.peak_rss_bytes > 0) {
        s["peak_rss_bytes"] = v.peak_rss_bytes;
        s["base_rss_bytes"] = v.base_rss_bytes;
      }
      s["records"] = first.records;
      s["records_per_cpu_s"] = v.records_per_cpu_s;
      s["speedup_over_streaming"] = f.speedup_over_streaming;
      s["floor_ratio"] = f.floor_ratio;
      s["cpu_s_median"] = v.cpu_s_median;
      s["floor_ratio_cpu"] = f.floor_ratio_cpu;
      s["cpu_bound_floor_ratio"] = f.cpu_bound_floor_ratio;
      if (f.disk_floor_ratio > 0) s["disk_floor_ratio"] = f.disk_floor_ratio;
      if (first.cached_bytes_at_start >= 0) s["cached_bytes_at_start"] = first.cached_bytes_at_start;
      s["syscalls_per_container"] = f.syscalls_per_container;
      s["replay_syscalls_per_container"] = f.replay_syscalls_per_container;
      s["syscall_reduction"] = f.syscall_reduction;
      if (v.variant.kind == BenchVariantKind::kOpen) {
        s["containers_by_strategy"] = ByStrategyJson(first);
        s["fallbacks"] = first.fallbacks;
        s["budget_waits"] = first.budget_waits;
        s["strategy_choice"] = v.variant.strategy();
        s["readahead"] = fs::ReadaheadModeName(first.readahead);
        s["readahead_files"] = first.readahead_files;
        s["direct_reads"] = first.direct_reads;
      }
      ojson runs = ojson::array();
      for (const RunMetrics& m : v.runs) {
        runs.push_back(ojson{{"wall_s", m.wall_s},
                             {"user_s", m.user_s},
                             {"sys_s", m.sys_s},
                             {"metadata_read_syscalls", m.metadata_read_syscalls},
                             {"peak_buffer_bytes", m.peak_buffer_bytes},
                             {"peak_rss_bytes", m.peak_rss_bytes},
                             {"base_rss_bytes", m.base_rss_bytes}});
      }
      s["runs"] = runs;
      strategies.push_back(s);
    }
    w["strategies"] = strategies;
    AddUpstream2026Json(r, t, &w);
    workloads.push_back(w);
  }
  j["workloads"] = workloads;

  ojson targets = ojson::array();
  for (const TargetCheck& c : EvaluateTargets(r)) {
    ojson t{{"name", c.name}, {"description", c.description}, {"measured", c.measured}};
    if (c.measured) {
      t["workload"] = c.workload;
      t["value"] = c.value;
      t["goal"] = c.goal;
      t["met"] = c.met;
    }
    targets.push_back(t);
  }
  j["targets"] = targets;
  AddScalingJson(r, &j);
  return j;
}

namespace {

// Cold runs and --bench_readahead runs: per state and strategy, the open
// per read-ahead mode against the disk floor, and the gain over no
// read-ahead.
void ColdStartText(const BenchReport& r, std::ostringstream& o) {
  bool any = false;
  for (const TargetResult& t : r.results) {
    for (const VariantResult& v : t.variants) {
      any = any || v.variant.readahead_set || v.variant.kind == BenchVariantKind::kSeqFloor;
    }
  }
  if (!any) return;
  o << "\n== " << (r.cache_mode == "cold" ? "cold start" : "page cache " + r.cache_mode)
    << " and read-ahead (" << r.cache_description << ")\n";
  o << "   seq-floor: every metadata file read with one read, one file after another on one "
       "thread (the disk floor; cold, files of 256 KiB or more with O_DIRECT, as the open "
       "reads them);\n   floor: the same reads on the open's per-dir pools; -cached: the same "
       "through the page cache (ratios are to the faster of the two);\n   cpu-bound: the "
       "open's CPU (user + sys) spread over the cores it can use (all "
    << std::thread::hardware_concurrency()
    << ", or one per metadata file when fewer), / floor: the least /floor that CPU allows on "
       "this machine;\n   gain: the same strategy without read-ahead / this\n";
  o << "   " << Pad("workload", 22, false) << Pad("open", 20, false) << Pad("wall ms", 9)
    << Pad("/seq-floor", 11) << Pad("/floor", 8) << Pad("cpu-bound", 10) << Pad("gain", 7)
    << Pad("ra files", 10) << "\n";
  for (const TargetResult& t : r.results) {
    if (!t.status.ok()) continue;
    std::string label = Label(r, t);
    for (const VariantResult& v : t.variants) {
      if (v.runs.empty()) continue;
      const VariantFigures f = FiguresOf(t, v);
      const RunMetrics& first = v.runs[0];
      std::string name = v.variant.name;
      std::string gain = "-";
      if (v.variant.kind == BenchVariantKind::kOpen) {
        if (!v.variant.readahead_set) {
          name += " (" + std::string(fs::ReadaheadModeName(first.readahead)) + ")";
        }
        const VariantResult* none = t.Find(v.variant.strategy() + "/none");
        if (none != nullptr && v.wall_s.median > 0) {
          gain = Fmt("%.2fx", none->wall_s.median / v.wall_s.median);
        }
      }
      const bool open = v.variant.kind == BenchVariantKind::kOpen;
      o << "   " << Pad(label, 22, false) << Pad(name, 20, false)
        << Pad(Fmt("%.2f", v.wall_s.median * 1e3), 9)
        << Pad(f.disk_floor_ratio > 0 ? Fmt("%.2f", f.disk_floor_ratio) : "-", 11)
        << Pad(f.floor_ratio > 0 ? Fmt("%.2f", f.floor_ratio) : "-", 8)
        << Pad(open && f.cpu_bound_floor_ratio > 0 ? Fmt("%.2f", f.cpu_bound_floor_ratio) : "-", 10)
        << Pad(gain, 7)
        << Pad(open ? std::to_string(first.readahead_files) : "-", 10) << "\n";
      label.clear();
    }
  }
}

// Opens in fresh processes: each one's peak RSS, and what it is above the
// resident set the child had before the open, per live block.
void PeakRssText(const TargetResult& t, std::ostringstream& o) {
  bool any = false;
  for (const VariantResult& v : t.variants) any = any || v.peak_rss_bytes > 0;
  if (!any) return;
  o << "   peak RSS (a fresh process per open; above the base, per live block):";
  for (const VariantResult& v : t.variants) {
    if (v.peak_rss_bytes == 0) continue;
    const double above =
        static_cast<double>(v.peak_rss_bytes) - static_cast<double>(v.base_rss_bytes);
    o << " " << v.variant.name << " " << Bytes(static_cast<double>(v.peak_rss_bytes)) << " (base "
      << Bytes(static_cast<double>(v.base_rss_bytes));
    if (t.digest.live_blocks > 0) {
      o << ", " << Fmt("%.1f", above / static_cast<double>(t.digest.live_blocks)) << " B/block";
    }
    o << ")";
  }
  o << "\n";
}

}  // namespace

std::string BenchReportText(const BenchReport& r) {
  std::ostringstream o;
  const BenchMachine& m = r.machine;
  o << "kudu fs bench: " << (r.generated ? "reference workloads (generated in " + r.data_root + ")"
                                         : std::string("given data dirs"))
    << ", " << r.repetitions << " repetitions interleaved, " << r.threads_per_dir
    << " threads per dir, page cache " << r.cache_mode << "\n";
  o << "machine: " << m.cpus << " CPUs (" << m.cpu_model << "), " << m.kernel
    << ", load average " << Fmt("%.2f", m.load_before[0]) << " at start, "
    << Fmt("%.2f", m.load_after[0]) << " at end\n";
  o << "wall: median [min-max] over repetitions; user/sys: medians, every thread of the process;\n"
       "rec/s/thr: records per CPU-second; floor: read each metadata file once + CRC-32C\n";

  for (const TargetResult& t : r.results) {
    o << "\n== " << Label(r, t);
    if (!t.target.description.empty()) o << ": " << t.target.description;
    o << "\n";
    if (!t.status.ok()) {
      o << "   FAILED: " << t.status.ToString() << "\n";
      continue;
    }
    o << "   " << t.containers << " containers, " << t.digest.live_blocks << " live blocks, "
      << t.records << " records, " << Bytes(static_cast<double>(t.metadata_bytes))
      << " metadata, " << t.replay_threads << " replay threads, in-memory threshold "
      << Bytes(static_cast<double>(t.in_memory_threshold_bytes)) << "\n";
    o << "   live set " << t.digest.HashHex() << ": "
      << (t.identical ? std::string("identical in every open") +
                            (t.has_expected ? " and equal to the generator's" : "")
                      : "MISMATCH: " + t.mismatch)
      << "\n";
    if (t.short_runs > 0) {
      o << "   a short state (fastest open " << Fmt("%.2f", t.short_open_s * 1e3)
        << " ms): " << t.short_runs << " runs of each strategy within "
        << Fmt("%.0f", kShortStateSpan) << "x of it, in extra interleaved rounds\n";
    }
    if (t.twin_pair.runs > 0) {
      const TwinPair& tp = t.twin_pair;
      o << "   beside its plain twin " << tp.twin << ", inmemory interleaved " << tp.runs
        << " times: " << Fmt("%.2f", tp.wall_s.median * 1e3) << " ms against "
        << Fmt("%.2f", tp.plain_wall_s.median * 1e3) << " ms ("
        << Fmt("%.2f", tp.plain_wall_s.median > 0 ? tp.wall_s.median / tp.plain_wall_s.median : 0)
        << "x)\n";
    }
    size_t name_w = 10;
    for (const VariantResult& v : t.variants) name_w = std::max(name_w, v.variant.name.size() + 1);
    o << "   " << Pad("strategy", name_w, false) << Pad("wall ms", 9) << Pad("[min-max]", 17)
      << Pad("user ms", 9) << Pad("sys ms", 8) << Pad("read sysc", 11) << Pad("bytes read", 12)
      << Pad("peak buf", 11) << Pad("rec/s/thr", 11) << Pad("speedup", 9) << Pad("/floor", 8)
      << "\n";
    for (const VariantResult& v : t.variants) {
      if (v.runs.empty()) continue;
      const VariantFigures f = FiguresOf(t, v);
      const RunMetrics& first = v.runs[0];
      const bool is_floor = v.variant.kind != BenchVariantKind::kOpen;
      o << "   " << Pad(v.variant.name, name_w, false) << Pad(Fmt("%.2f", v.wall_s.median * 1e3), 9)
        << Pad("[" + Fmt("%.2f", v.wall_s.min * 1e3) + "-" + Fmt("%.2f", v.wall_s.max * 1e3) + "]",
               17)
        << Pad(Fmt("%.1f", v.user_s.median * 1e3), 9) << Pad(Fmt("%.1f", v.sys_s.median * 1e3), 8)
        << Pad(std::to_string(first.metadata_read_syscalls), 11)
        << Pad(Bytes(static_cast<double>(first.metadata_bytes_read)), 12)
        << Pad(is_floor ? "-" : Bytes(static_cast<double>(v.peak_buffer_bytes)), 11)
        << Pad(is_floor ? "-" : Human(v.records_per_cpu_s), 11)
        << Pad(f.speedup_over_streaming > 0 ? Fmt("%.2fx", f.speedup_over_streaming) : "-", 9)
        << Pad(f.floor_ratio > 0 ? Fmt("%.2f", f.floor_ratio) : "-", 8) << "\n";
    }
    PeakRssText(t, o);
  }

  // One line per state: the figures a reader looks for first.
  o << "\n== summary (medians)\n";
  o << "   " << Pad("workload", 22, false) << Pad("streaming ms", 13) << Pad("inmemory ms", 12)
    << Pad("speedup", 9) << Pad("auto", 8) << Pad("windowed", 9) << Pad("sysc str", 10)
    << Pad("sysc inm", 9) << Pad("rec/s/thr", 11) << Pad("inm/floor", 10) << "\n";
  for (const TargetResult& t : r.results) {
    if (!t.status.ok()) continue;
    const VariantResult* s = t.Find("streaming");
    const VariantResult* i = t.Find("inmemory");
    const VariantResult* a = t.Find("auto");
    const VariantResult* w = t.Find("windowed");
    auto ms = [](const VariantResult* v) { return v ? Fmt("%.2f", v->wall_s.median * 1e3) : "-"; };
    auto sp = [&](const VariantResult* v) {
      if (!v) return std::string("-");
      double x = FiguresOf(t, *v).speedup_over_streaming;
      return x > 0 ? Fmt("%.2fx", x) : std::string("-");
    };
    auto sc = [](const VariantResult* v) {
      return v && !v->runs.empty() ? std::to_string(v->runs[0].metadata_read_syscalls)
                                   : std::string("-");
    };
    o << "   " << Pad(Label(r, t), 22, false) << Pad(ms(s), 13) << Pad(ms(i), 12) << Pad(sp(i), 9)
      << Pad(sp(a), 8) << Pad(sp(w), 9) << Pad(sc(s), 10) << Pad(sc(i), 9)
      << Pad(i ? Human(i->records_per_cpu_s) : "-", 11)
      << Pad(i ? Fmt("%.2f", FiguresOf(t, *i).floor_ratio) : "-", 10) << "\n";
  }

  Upstream2026Text(r, o);
  ColdStartText(r, o);
  ScalingText(r, o);

  std::vector<TargetCheck> targets = EvaluateTargets(r);
  bool any = false;
  for (const TargetCheck& c : targets) any = any || c.measured;
  if (any) {
    o << "\n== targets\n";
    size_t unmeasured = 0;
    for (const TargetCheck& c : targets) {
      if (!c.measured) {
        unmeasured++;
        continue;
      }
      std::string v = c.goal >= 1e6 ? Human(c.value) : c.goal < 1 ? Fmt("%.5f", c.value)
                                                                  : Fmt("%.2f", c.value);
      o << "   " << (c.met ? "MET   " : "MISSED") << " " << c.description << ": " << v << " ("
        << c.workload << ")\n";
    }
    if (unmeasured > 0) {
      o << "   (" << unmeasured << " more not measured: this run has none of their workloads, "
        << "cache modes or strategies; --bench_json_out lists them)\n";
    }
  }
  o << "\n" << (r.ok ? "OK" : "FAILED: " + r.status) << " (" << Fmt("%.1f", r.total_seconds)
    << " s)\n";
  return o.str();
}

}  // namespace tools
}  // namespace kudu
