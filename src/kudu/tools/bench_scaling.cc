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


#include "kudu/tools/bench_scaling.h"

#include <gflags/gflags.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <tuple>

DEFINE_bool(bench_scaling, false,
            "bench (no dir flags): instead of the reference workloads, measure how the "
            "open grows: states generated with sparse data files (as `kudu fs generate "
            "--generate_sparse_data`, 10% of the created blocks deleted) for every record count "
            "of --bench_scaling_records at --bench_scaling_fixed_containers containers, and "
            "for every container count of --bench_scaling_containers at "
            "--bench_scaling_fixed_records records; unless the flags say otherwise, each is "
            "opened warm and cold (--bench_cache_mode=warm,cold) with auto and streaming "
            "(--bench_strategies=auto,streaming), every open in a fresh process for its peak "
            "RSS (--bench_peak_rss). The report adds a line fit per axis (seconds per M "
            "records, bytes of peak RSS per live block); --bench_csv_out writes one row per open");
DEFINE_string(bench_scaling_records, "1M,3M,10M,30M,100M",
              "bench --bench_scaling: comma-separated record counts (CREATE and DELETE "
              "records) of the records axis; k and M suffixes allowed");
DEFINE_int64(bench_scaling_fixed_containers, 1000,
             "bench --bench_scaling: the container count of every state of the records axis");
DEFINE_string(bench_scaling_containers, "100,300,1000,4096,16384",
              "bench --bench_scaling: comma-separated container counts of the containers axis");
DEFINE_string(bench_scaling_fixed_records, "3M",
              "bench --bench_scaling: the record count of every state of the containers axis "
              "(k and M suffixes allowed)");
namespace kudu {
namespace tools {
namespace {

using ojson = nlohmann::ordered_json;

constexpr char kRecordsAxis[] = "scaling-records";
constexpr char kContainersAxis[] = "scaling-containers";
// The share of created blocks the sweep's states delete; records are CREATEs
// plus DELETEs, so a state of R records has R / (1 + share) CREATEs.
constexpr int kDeletedPercentage = 10;

// "3M" → 3000000, "100k" → 100000, "16384" → 16384; InvalidArgument names
// the flag.
Status ParseCount(const std::string& flag, const std::string& item, int64_t* out) {
  char* end = nullptr;
  const double v = std::strtod(item.c_str(), &end);
  double mult = 1;
  const std::string suffix = end != nullptr ? std::string(end) : "";
  if (suffix == "k" || suffix == "K") {
    mult = 1e3;
  } else if (suffix == "M" || suffix == "m") {
    mult = 1e6;
  } else if (!suffix.empty()) {
    return Status::InvalidArgument("--" + flag + ": cannot parse '" + item + "'");
  }
  if (end == item.c_str() || !(v * mult >= 1) || v * mult > 1e10) {
    return Status::InvalidArgument("--" + flag + ": '" + item + "' is not a count in [1, 1e10]");
  }
  *out = static_cast<int64_t>(std::llround(v * mult));
  return Status::OK();
}

Status ParseCounts(const std::string& flag, const std::string& spec, std::vector<int64_t>* out) {
  out->clear();
  for (const std::string& item : SplitBenchList(spec)) {
    int64_t n = 0;
    RETURN_NOT_OK(ParseCount(flag, item, &n));
    out->push_back(n);
  }
  if (out->empty()) return Status::InvalidArgument("--" + flag + " names no count");
  return Status::OK();
}

std::string CountName(int64_t n) {
  char buf[32];
  if (n >= 1000000 && n % 100000 == 0) {
    std::snprintf(buf, sizeof(buf), "%gM", static_cast<double>(n) / 1e6);
  } else if (n >= 1000 && n % 1000 == 0) {
    std::snprintf(buf, sizeof(buf), "%gk", static_cast<double>(n) / 1e3);
  } else {
    std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(n));
  }
  return buf;
}

BenchWorkload SweepPoint(const std::string& axis, int64_t records, int64_t containers) {
  BenchWorkload w;
  w.group = axis;
  w.name = axis == kRecordsAxis ? "records-" + CountName(records)
                                : "containers-" + CountName(containers);
  w.opt_in = true;
  w.sparse_data = true;
  w.containers = containers;
  const double creates = static_cast<double>(records) * 100.0 / (100.0 + kDeletedPercentage);
  w.blocks_per_container =
      std::max<int64_t>(1, std::llround(creates / static_cast<double>(containers)));
  w.deleted_percentage = kDeletedPercentage;
  w.description = CountName(records) + " records in " + std::to_string(containers) +
                  " containers of " + std::to_string(w.blocks_per_container) + " CREATEs, " +
                  std::to_string(kDeletedPercentage) + "% deleted, sparse data files";
  return w;
}

bool IsSweep(const TargetResult& t) {
  return t.target.group == kRecordsAxis || t.target.group == kContainersAxis;
}

struct LineFit {
  size_t n = 0;
  double slope = 0, intercept = 0, r2 = 0;
  double unit_cost_first = 0, unit_cost_last = 0;  // y / x at the smallest and largest x
};

// Least squares over (x, y); points sorted by x for the unit costs.
LineFit FitLine(std::vector<std::pair<double, double>> p) {
  LineFit f;
  f.n = p.size();
  if (p.empty()) return f;
  std::sort(p.begin(), p.end());
  if (p.front().first > 0) f.unit_cost_first = p.front().second / p.front().first;
  if (p.back().first > 0) f.unit_cost_last = p.back().second / p.back().first;
  if (p.size() < 2) return f;
  double sx = 0, sy = 0;
  for (const auto& q : p) {
    sx += q.first;
    sy += q.second;
  }
  const double n = static_cast<double>(p.size());
  const double mx = sx / n, my = sy / n;
  double sxx = 0, sxy = 0, syy = 0;
  for (const auto& q : p) {
    sxx += (q.first - mx) * (q.first - mx);
    sxy += (q.first - mx) * (q.second - my);
    syy += (q.second - my) * (q.second - my);
  }
  if (sxx <= 0) return f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  f.r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 1;
  return f;
}

// One fit per axis, cache mode and open strategy.
struct SweepFit {
  std::string axis, cache_mode, strategy;
  std::string x_unit, rss_unit;
  LineFit time, rss;
};

std::vector<SweepFit> Fits(const BenchReport& r) {
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, std::vector<std::pair<double, double>>> time, rss;
  for (const TargetResult& t : r.results) {
    if (!IsSweep(t) || !t.status.ok()) continue;
    const bool records_axis = t.target.group == kRecordsAxis;
    const double x = records_axis ? static_cast<double>(t.records) / 1e6
                                  : static_cast<double>(t.containers) / 1e3;
    const double x_mem = records_axis ? static_cast<double>(t.digest.live_blocks)
                                      : static_cast<double>(t.containers);
    for (const VariantResult& v : t.variants) {
      if (v.variant.kind != BenchVariantKind::kOpen || v.runs.empty()) continue;
      const Key k{t.target.group, t.target.cache_mode, v.variant.name};
      time[k].emplace_back(x, v.wall_s.median);
      if (v.peak_rss_bytes > 0) rss[k].emplace_back(x_mem, static_cast<double>(v.peak_rss_bytes));
    }
  }
  std::vector<SweepFit> out;
  for (const auto& e : time) {
    SweepFit f;
    std::tie(f.axis, f.cache_mode, f.strategy) = e.first;
    const bool records_axis = f.axis == kRecordsAxis;
    f.x_unit = records_axis ? "M records" : "k containers";
    f.rss_unit = records_axis ? "live block" : "container";
    f.time = FitLine(e.second);
    auto it = rss.find(e.first);
    if (it != rss.end()) f.rss = FitLine(it->second);
    out.push_back(f);
  }
  return out;
}

ojson FitJson(const LineFit& f) {
  return ojson{{"points", f.n},
               {"slope", f.slope},
               {"intercept", f.intercept},
               {"r2", f.r2},
               {"unit_cost_smallest", f.unit_cost_first},
               {"unit_cost_largest", f.unit_cost_last}};
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

bool ScalingSweepRequested() { return FLAGS_bench_scaling; }

Status ScalingWorkloads(std::vector<BenchWorkload>* out) {
  out->clear();
  std::vector<int64_t> records, containers;
  RETURN_NOT_OK(ParseCounts("bench_scaling_records", FLAGS_bench_scaling_records, &records));
  RETURN_NOT_OK(
      ParseCounts("bench_scaling_containers", FLAGS_bench_scaling_containers, &containers));
  int64_t fixed_records = 0;
  RETURN_NOT_OK(ParseCount("bench_scaling_fixed_records", FLAGS_bench_scaling_fixed_records,
                           &fixed_records));
  if (FLAGS_bench_scaling_fixed_containers < 1) {
    return Status::InvalidArgument("--bench_scaling_fixed_containers must be at least 1");
  }
  for (int64_t n : records) {
    out->push_back(SweepPoint(kRecordsAxis, n, FLAGS_bench_scaling_fixed_containers));
  }
  for (int64_t c : containers) out->push_back(SweepPoint(kContainersAxis, fixed_records, c));
  return Status::OK();
}

void AddScalingJson(const BenchReport& r, ojson* j) {
  bool any = false;
  for (const TargetResult& t : r.results) any = any || IsSweep(t);
  if (!any) return;
  ojson fits = ojson::array();
  for (const SweepFit& f : Fits(r)) {
    fits.push_back(ojson{{"axis", f.axis},
                         {"cache_mode", f.cache_mode},
                         {"strategy", f.strategy},
                         {"wall_s_per", f.x_unit},
                         {"wall_s", FitJson(f.time)},
                         {"peak_rss_bytes_per", f.rss_unit},
                         {"peak_rss_bytes", FitJson(f.rss)}});
  }
  (*j)["scaling"] = ojson{{"fits", fits}};
}

void ScalingText(const BenchReport& r, std::ostringstream& o) {
  const std::vector<SweepFit> fits = Fits(r);
  if (fits.empty()) return;
  o << "\n== how the open grows (least squares; per unit at the smallest / largest point)\n";
  for (const SweepFit& f : fits) {
    char line[400];
    std::snprintf(line, sizeof(line),
                  "   %-19s %-5s %-10s %8.4f s per %s (R2 %.4f; %.4f / %.4f)",
                  f.axis.c_str(), f.cache_mode.c_str(), f.strategy.c_str(), f.time.slope,
                  f.x_unit.c_str(), f.time.r2, f.time.unit_cost_first, f.time.unit_cost_last);
    o << line;
    if (f.rss.n > 0) {
      std::snprintf(line, sizeof(line), ", %.1f B peak RSS per %s (R2 %.4f; %.1f / %.1f)",
                    f.rss.slope, f.rss_unit.c_str(), f.rss.r2, f.rss.unit_cost_first,
                    f.rss.unit_cost_last);
      o << line;
    }
    o << "\n";
  }
}

Status WriteBenchCsv(const BenchReport& r, const std::string& path) {
  std::ofstream out(path, std::ios::trunc);
  out << "workload,group,cache_mode,strategy,kind,containers,records,live_blocks,metadata_bytes,"
         "replay_threads,wall_s,wall_s_min,wall_s_max,cpu_s,peak_rss_bytes,base_rss_bytes,"
         "floor_ratio,load_avg_before\n";
  for (const TargetResult& t : r.results) {
    if (!t.status.ok()) continue;
    for (const VariantResult& v : t.variants) {
      if (v.runs.empty()) continue;
      const VariantFigures f = FiguresOf(t, v);
      const char* kind = v.variant.kind == BenchVariantKind::kFloor      ? "floor"
                         : v.variant.kind == BenchVariantKind::kSeqFloor ? "seq_floor"
                                                                         : "open";
      char nums[400];
      std::snprintf(nums, sizeof(nums),
                    "%llu,%llu,%llu,%llu,%d,%.6f,%.6f,%.6f,%.6f,%llu,%llu,%.4f,%.2f",
                    static_cast<unsigned long long>(t.containers),
                    static_cast<unsigned long long>(t.records),
                    static_cast<unsigned long long>(t.digest.live_blocks),
                    static_cast<unsigned long long>(t.metadata_bytes), t.replay_threads,
                    v.wall_s.median, v.wall_s.min, v.wall_s.max, v.cpu_s_median,
                    static_cast<unsigned long long>(v.peak_rss_bytes),
                    static_cast<unsigned long long>(v.base_rss_bytes), f.floor_ratio,
                    r.machine.load_before[0]);
      out << CsvField(t.target.name) << "," << CsvField(t.target.group) << ","
          << CsvField(t.target.cache_mode) << "," << CsvField(v.variant.name) << "," << kind
          << "," << nums << "\n";
    }
  }
  out.flush();
  if (!out) return Status::IOError("cannot write " + path);
  return Status::OK();
}

}  // namespace tools
}  // namespace kudu
