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

#include "kudu/tools/bench_upstream2026.h"

#include <algorithm>
#include <cstdio>

#include "kudu/tools/upstream2026_replay.h"

namespace kudu {
namespace tools {
namespace {

using ojson = nlohmann::ordered_json;

// The variant of `strategy` that ran with the flags' read-ahead: "auto", or
// "auto/<mode>" in a --bench_readahead run.
const VariantResult* Named(const BenchReport& r, const TargetResult& t,
                           const std::string& strategy) {
  const VariantResult* v = t.Find(strategy);
  return v != nullptr ? v : t.Find(strategy + "/" + fs::ReadaheadModeName(r.readahead.mode));
}

double Ratio(double num, double den) { return num > 0 && den > 0 ? num / den : 0; }

struct SideBySide {
  const VariantResult* streaming = nullptr;
  const VariantResult* upstream = nullptr;
  const VariantResult* ours = nullptr;  // auto: what a server runs
  // Speed ratios of wall (and CPU) medians; 0 when a side is missing.
  double ours_over_upstream = 0, ours_over_upstream_cpu = 0;
  double upstream_over_streaming = 0, upstream_over_streaming_cpu = 0;
};

SideBySide Compare(const BenchReport& r, const TargetResult& t) {
  SideBySide s;
  s.streaming = Named(r, t, "streaming");
  s.upstream = Named(r, t, kUpstream2026Name);
  s.ours = Named(r, t, "auto");
  if (s.upstream != nullptr && s.ours != nullptr) {
    s.ours_over_upstream = Ratio(s.upstream->wall_s.median, s.ours->wall_s.median);
    s.ours_over_upstream_cpu = Ratio(s.upstream->cpu_s_median, s.ours->cpu_s_median);
  }
  if (s.upstream != nullptr && s.streaming != nullptr) {
    s.upstream_over_streaming = Ratio(s.streaming->wall_s.median, s.upstream->wall_s.median);
    s.upstream_over_streaming_cpu = Ratio(s.streaming->cpu_s_median, s.upstream->cpu_s_median);
  }
  return s;
}

std::string Fmt(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}

std::string Pad(const std::string& s, size_t w, bool right = true) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

}  // namespace

bool Upstream2026Variant(const std::string& name, BenchVariant* v) {
  if (name != kUpstream2026Name) return false;
  *v = BenchVariant();
  v->name = kUpstream2026Name;
  // Every plan Streaming: no budget grant and no fallback, as upstream.
  v->choice = fs::StrategyChoice::kStreaming;
  v->strategies = &Upstream2026StrategyFactory;
  return true;
}

void AddUpstream2026Targets(const BenchReport& r, std::vector<TargetCheck>* out) {
  // Warm where the run measured the workload warm (a warm,cold run has one
  // result of each), else its cold result, so that the flags' order does not
  // pick the figure.
  auto faster = [&](const char* name, const char* desc, const std::string& workload) {
    TargetCheck c{name, desc, "", 0, 3, true, false, false};
    for (const char* mode : {"warm", "cold"}) {
      for (const TargetResult& t : r.results) {
        const std::string& m = t.target.cache_mode;
        if (c.measured || !t.status.ok() || t.target.name != workload ||
            (m.empty() ? "warm" : m) != mode) {
          continue;
        }
        const SideBySide s = Compare(r, t);
        if (s.ours_over_upstream <= 0) continue;
        c.workload = workload + (t.target.cache_mode == "cold" ? ", cold" : "");
        c.value = s.ours_over_upstream;
        c.measured = true;
        c.met = c.value >= c.goal;
      }
    }
    out->push_back(c);
  };
  faster("ours_vs_upstream2026_g1_100k",
         "ours (auto) >= 3x faster than upstream2026 (wall, G1-100k)", "G1-100k");
  faster("ours_vs_upstream2026_g1_100k_enc",
         "ours (auto) >= 3x faster than upstream2026 (wall, G1-100k-enc)", "G1-100k-enc");
  faster("ours_vs_upstream2026_g4",
         "ours (auto) >= 3x faster than upstream2026 (wall, G4)", "G4-2000x250");
  faster("ours_vs_upstream2026_g4_enc",
         "ours (auto) >= 3x faster than upstream2026 (wall, G4-enc)", "G4-2000x250-enc");
  TargetCheck c{"cold_ours_vs_upstream2026",
                "cold: ours (auto) no slower than upstream2026 on every workload (worst "
                "upstream2026 wall / ours)",
                "", 0, 1, true, false, false};
  for (const TargetResult& t : r.results) {
    if (!t.status.ok() || t.target.cache_mode != "cold") continue;
    const SideBySide s = Compare(r, t);
    if (s.ours_over_upstream <= 0) continue;
    if (!c.measured || s.ours_over_upstream < c.value) {
      c.value = s.ours_over_upstream;
      c.workload = t.target.name;
    }
    c.measured = true;
  }
  if (!c.measured) return;  // no cold result beside upstream2026: not this run's target
  c.met = c.value >= c.goal;
  out->push_back(c);
}

void AddUpstream2026Json(const BenchReport& r, const TargetResult& t, ojson* workload) {
  const SideBySide s = Compare(r, t);
  if (s.upstream == nullptr || s.upstream->runs.empty()) return;
  auto side = [](const VariantResult* v) {
    if (v == nullptr || v->runs.empty()) return ojson();
    return ojson{{"strategy", v->variant.name},
                 {"wall_s_median", v->wall_s.median},
                 {"cpu_s_median", v->cpu_s_median},
                 {"metadata_read_syscalls", v->runs[0].metadata_read_syscalls}};
  };
  (*workload)[kUpstream2026Name] =
      ojson{{"streaming", side(s.streaming)},
            {"upstream2026", side(s.upstream)},
            {"ours", side(s.ours)},
            {"ours_speedup_over_upstream2026", s.ours_over_upstream},
            {"ours_cpu_speedup_over_upstream2026", s.ours_over_upstream_cpu},
            {"upstream2026_speedup_over_streaming", s.upstream_over_streaming},
            {"upstream2026_cpu_speedup_over_streaming", s.upstream_over_streaming_cpu}};
}

void Upstream2026Text(const BenchReport& r, std::ostream& o) {
  bool any = false;
  for (const TargetResult& t : r.results) {
    any = any || (t.status.ok() && Compare(r, t).upstream != nullptr);
  }
  if (!any) return;
  o << "\n== upstream2026: upstream Kudu's in-memory replay (emulated) beside Streaming and "
       "ours (auto), medians\n";
  o << "   ours/up: upstream2026's wall / ours; up/str: Streaming's wall / upstream2026's "
       "(upstream's commits: 2.0-2.3x plain, ~1.7x encrypted)\n";
  o << "   " << Pad("workload", 22, false) << Pad("str ms", 9) << Pad("up ms", 9)
    << Pad("ours ms", 9) << Pad("str cpu", 9) << Pad("up cpu", 9) << Pad("ours cpu", 9)
    << Pad("str sysc", 10) << Pad("up sysc", 9) << Pad("ours sysc", 10) << Pad("ours/up", 9)
    << Pad("up/str", 8) << "\n";
  auto ms = [](const VariantResult* v, bool cpu) {
    if (v == nullptr) return std::string("-");
    return Fmt("%.2f", (cpu ? v->cpu_s_median : v->wall_s.median) * 1e3);
  };
  auto sc = [](const VariantResult* v) {
    return v != nullptr && !v->runs.empty() ? std::to_string(v->runs[0].metadata_read_syscalls)
                                            : std::string("-");
  };
  auto x = [](double v) { return v > 0 ? Fmt("%.2fx", v) : std::string("-"); };
  for (const TargetResult& t : r.results) {
    if (!t.status.ok()) continue;
    const SideBySide s = Compare(r, t);
    if (s.upstream == nullptr) continue;
    o << "   " << Pad(t.target.name, 22, false) << Pad(ms(s.streaming, false), 9)
      << Pad(ms(s.upstream, false), 9) << Pad(ms(s.ours, false), 9)
      << Pad(ms(s.streaming, true), 9) << Pad(ms(s.upstream, true), 9)
      << Pad(ms(s.ours, true), 9) << Pad(sc(s.streaming), 10) << Pad(sc(s.upstream), 9)
      << Pad(sc(s.ours), 10) << Pad(x(s.ours_over_upstream), 9)
      << Pad(x(s.upstream_over_streaming), 8) << "\n";
  }
}

}  // namespace tools
}  // namespace kudu
