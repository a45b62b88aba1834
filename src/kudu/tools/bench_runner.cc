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

#include "kudu/tools/bench_runner.h"

#include <glog/logging.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>

#include "kudu/tools/bench_child_open.h"
#include "kudu/tools/bench_floor.h"
#include "kudu/tools/bench_upstream2026.h"

namespace kudu {
namespace tools {

std::vector<std::string> SplitBenchList(const std::string& spec) {
  std::vector<std::string> items;
  std::string cur;
  for (char c : spec + ",") {
    if (c == ' ') continue;
    if (c != ',') {
      cur.push_back(c);
      continue;
    }
    if (!cur.empty()) items.push_back(cur);
    cur.clear();
  }
  return items;
}

Status ParseBenchVariants(const std::string& spec, bool windowed_available,
                          std::vector<BenchVariant>* out) {
  out->clear();
  std::set<std::string> seen;
  for (const std::string& item : SplitBenchList(spec)) {
    std::string name = item == "in_memory" ? "inmemory" : item;
    if (name == "floor") continue;  // always measured
    if (!seen.insert(name).second) continue;
    BenchVariant v;
    v.name = name;
    if (name == "all") {
      seen.erase("all");
      for (const char* n : {"streaming", "inmemory", "auto", "windowed", "upstream2026"}) {
        if (std::string(n) == "windowed" && !windowed_available) continue;
        if (!seen.insert(n).second) continue;
        BenchVariant a;
        if (!Upstream2026Variant(n, &a)) {
          a.name = n;
          Status s = fs::ParseStrategyChoice(n, &a.choice);
          if (!s.ok()) return s;
        }
        out->push_back(a);
      }
      continue;
    }
    if (Upstream2026Variant(name, &v)) {
      out->push_back(v);
      continue;
    }
    Status s = fs::ParseStrategyChoice(name, &v.choice);
    if (!s.ok()) {
      return Status::InvalidArgument("--bench_strategies: unknown strategy '" + name +
                                     "' (known: streaming, inmemory, auto, windowed, upstream2026, all)");
    }
    if (v.choice == fs::StrategyChoice::kWindowed && !windowed_available) {
      return Status::InvalidArgument(
          "--bench_strategies: windowed replay is disabled "
          "(--log_container_metadata_replay_window_bytes=0)");
    }
    out->push_back(v);
  }
  if (out->empty()) return Status::InvalidArgument("--bench_strategies names no strategy");
  BenchVariant floor;
  floor.name = kFloorName;
  floor.kind = BenchVariantKind::kFloor;
  out->push_back(floor);
  return Status::OK();
}

Status ApplyBenchReadahead(const std::string& spec, std::vector<BenchVariant>* variants) {
  std::vector<fs::ReadaheadMode> modes;
  for (const std::string& item : SplitBenchList(spec)) {
    fs::ReadaheadMode m;
    Status s = fs::ParseReadaheadMode(item, &m);
    if (!s.ok()) {
      return Status::InvalidArgument("--bench_readahead: unknown read-ahead mode '" + item +
                                     "' (known: none, fadvise)");
    }
    if (std::find(modes.begin(), modes.end(), m) == modes.end()) modes.push_back(m);
  }
  if (modes.empty()) return Status::OK();
  std::vector<BenchVariant> out;
  for (const BenchVariant& v : *variants) {
    if (v.kind != BenchVariantKind::kOpen) {
      out.push_back(v);
      continue;
    }
    for (fs::ReadaheadMode m : modes) {
      BenchVariant x = v;
      x.name = v.name + "/" + fs::ReadaheadModeName(m);
      x.readahead_set = true;
      x.readahead = m;
      out.push_back(x);
    }
  }
  *variants = std::move(out);
  return Status::OK();
}

void AddColdFloors(std::vector<BenchVariant>* variants) {
  for (const BenchVariant& v : *variants) {
    if (v.kind == BenchVariantKind::kSeqFloor) return;
  }
  using Floor = std::pair<const char*, BenchVariantKind>;
  for (const auto& [name, kind] : {Floor{kCachedFloorName, BenchVariantKind::kFloor},
                                   Floor{kSeqFloorName, BenchVariantKind::kSeqFloor},
                                   Floor{kCachedSeqFloorName, BenchVariantKind::kSeqFloor}}) {
    BenchVariant f;
    f.name = name;
    f.kind = kind;
    variants->push_back(f);
  }
}

Spread SpreadOf(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  const size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return s;
}

const VariantResult* TargetResult::Find(const std::string& name) const {
  for (const VariantResult& v : variants) {
    if (v.variant.name == name) return &v;
  }
  return nullptr;
}

const VariantResult* TargetResult::FindLike(const std::string& strategy,
                                            const BenchVariant& like) const {
  if (!like.readahead_set) return Find(strategy);
  return Find(strategy + "/" + fs::ReadaheadModeName(like.readahead));
}

fs::ReplayPolicyOptions PolicyOfTarget(const fs::ReplayPolicyOptions& policy,
                                       const BenchTarget& target) {
  fs::ReplayPolicyOptions p = policy;
  if (target.in_memory_threshold_bytes > 0) p.in_memory_threshold_bytes = target.in_memory_threshold_bytes;
  return p;
}

Status MeasureOpen(const BenchTarget& target, const fs::ReplayPolicyOptions& policy,
                   int threads_per_dir, const BenchVariant& v, RunMetrics* m, bool* usage_error) {
  fs::BlockManagerOpenOptions o;
  o.data_dirs = target.data_dirs;
  o.server_key = target.server_key;
  o.threads_per_dir = threads_per_dir;
  o.policy = policy;
  o.policy.choice = v.choice;
  if (v.strategies) o.strategy_factory = v.strategies(o.policy);
  if (v.readahead_set) o.readahead.mode = v.readahead;
  o.progress_every = 0;
  if (target.max_container_blocks != 0) o.max_container_blocks = target.max_container_blocks;
  fs::OpenResult r;
  BenchStopwatch sw;
  fs::OpenBlockManager(o, &r);
  sw.Stop(m);
  if (!r.ok()) {
    *usage_error = r.failure == fs::OpenResult::Failure::kUsage;
    return r.status;
  }
  const fs::ReplayStatsSnapshot& st = r.replay;
  m->metadata_read_syscalls = st.metadata_read_syscalls;
  m->metadata_bytes_read = st.metadata_bytes_read;
  m->peak_buffer_bytes = st.peak_buffer_bytes;
  m->records = st.records;
  m->fallbacks = st.fallbacks;
  m->budget_waits = st.budget_waits;
  m->memory_budget_bytes = st.memory_budget_bytes;
  m->readahead = st.readahead_mode;
  m->readahead_files = st.readahead_files;
  m->direct_reads = st.direct_reads;
  for (int k = 0; k < static_cast<int>(fs::ReplayStrategyKind::kNumKinds); k++) {
    m->containers_by_strategy[k] = st.containers_by_strategy[k];
  }
  m->digest = DigestOfOpen(r);
  return Status::OK();
}

namespace {

double MedianWall(const VariantResult& v) {
  std::vector<double> wall;
  for (const RunMetrics& m : v.runs) wall.push_back(m.wall_s);
  return SpreadOf(wall).median;
}

// The extra rounds of a short state (BenchRunOptions::min_short_runs), the
// quick variants' order rotated every round as in the repetitions.
template <typename RunOne>
Status RunShortStateRounds(const BenchRunOptions& opts, BenchCacheMode* cache, TargetResult* out,
                           const RunOne& run_one) {
  if (opts.min_short_runs <= opts.repetitions || opts.fresh_process_per_open ||
      (cache != nullptr && cache->cold())) {
    return Status::OK();
  }
  double fastest = 0;
  for (const VariantResult& v : out->variants) {
    if (v.variant.kind != BenchVariantKind::kOpen || v.runs.empty()) continue;
    const double w = MedianWall(v);
    if (fastest == 0 || w < fastest) fastest = w;
  }
  if (fastest <= 0 || fastest >= opts.short_open_seconds) return Status::OK();
  // The floor always: it is every quick open's denominator, and on a
  // loaded machine its median can stray past the span.
  std::vector<size_t> quick;
  for (size_t i = 0; i < out->variants.size(); i++) {
    const VariantResult& v = out->variants[i];
    if (v.runs.empty()) continue;
    if (v.variant.kind == BenchVariantKind::kFloor || MedianWall(v) <= kShortStateSpan * fastest) {
      quick.push_back(i);
    }
  }
  for (int rep = opts.repetitions; rep < opts.min_short_runs; rep++) {
    for (size_t j = 0; j < quick.size(); j++) {
      RETURN_NOT_OK(run_one(quick[(j + static_cast<size_t>(rep)) % quick.size()], rep,
                            opts.min_short_runs));
    }
  }
  out->short_open_s = fastest;
  out->short_runs = opts.min_short_runs;
  return Status::OK();
}

}  // namespace

Status RunBenchTarget(const BenchRunOptions& opts, const BenchTarget& target, TargetResult* out) {
  *out = TargetResult();
  BenchCacheMode* cache = opts.cache;
  out->target = target;
  out->threads_per_dir = opts.threads_per_dir;
  if (cache != nullptr) out->target.cache_mode = cache->name();
  auto progress = [&](const std::string& line) {
    if (opts.progress) opts.progress(target.name + ": " + line);
  };
  auto fail = [&](Status s) {
    out->status = s;
    return s;
  };

  Status s = ListMetadataFiles(target.data_dirs, &out->files);
  if (!s.ok()) {
    out->usage_error = true;
    return fail(s);
  }
  std::vector<uint64_t> per_dir(target.data_dirs.size(), 0);
  for (const MetadataFileRef& f : out->files) {
    out->metadata_bytes += f.size;
    per_dir[f.dir_index]++;
  }
  for (uint64_t n : per_dir) {
    out->replay_threads += static_cast<int>(std::min<uint64_t>(opts.threads_per_dir, n));
  }

  const fs::ReplayPolicyOptions policy = PolicyOfTarget(opts.policy, target);
  out->in_memory_threshold_bytes = policy.in_memory_threshold_bytes;

  if (target.generated) {
    out->has_expected = true;
    out->expected = target.expected;
  }

  if (cache != nullptr) {
    s = cache->BeforeState(out->files);
    if (!s.ok()) return fail(s.CloneAndPrepend("cache mode " + cache->name()));
  }

  auto open_once = [&](const BenchVariant& v, RunMetrics* m) -> Status {
    bool usage_error = false;
    Status st = opts.fresh_process_per_open
                    ? MeasureOpenInChild(target, policy, opts.threads_per_dir, v, m, &usage_error)
                    : MeasureOpen(target, policy, opts.threads_per_dir, v, m, &usage_error);
    out->usage_error = out->usage_error || usage_error;
    return st;
  };

  if (opts.warmup) {
    RunMetrics warm;
    BenchVariant warmup;
    warmup.name = "auto";
    s = open_once(warmup, &warm);
    if (!s.ok()) return fail(s);
  }

  const size_t nv = opts.variants.size();
  out->variants.resize(nv);
  for (size_t i = 0; i < nv; i++) out->variants[i].variant = opts.variants[i];
  bool have_reference = false;
  // One measured run of variant i, the rep-th of its runs.
  auto run_one = [&](size_t i, int rep, int of) -> Status {
    VariantResult& vr = out->variants[i];
    if (cache != nullptr) {
      RETURN_NOT_OK(cache->BeforeRun(out->files).CloneAndPrepend("cache mode " + cache->name()));
    }
    RunMetrics m;
    if (cache != nullptr) m.cached_bytes_at_start = cache->cached_bytes_at_start();
    const FloorReads how = vr.variant.name == kCachedFloorName ||
                                   vr.variant.name == kCachedSeqFloorName
                               ? FloorReads::kThroughTheCache
                               : FloorReads::kAsTheOpen;
    if (vr.variant.kind == BenchVariantKind::kFloor) {
      // In a fresh process too when the opens are: side by side with
      // theirs, its costs are a fresh process's.
      const bool warm = cache == nullptr || !cache->cold();
      RETURN_NOT_OK((opts.fresh_process_per_open
                         ? MeasureFloorInChild(target, opts.threads_per_dir, warm, how, &m)
                         : MeasureFloor(out->files, target.data_dirs.size(), opts.threads_per_dir,
                                        warm, how, &m))
                        .CloneAndPrepend(vr.variant.name));
    } else if (vr.variant.kind == BenchVariantKind::kSeqFloor) {
      RETURN_NOT_OK(MeasureSeqFloor(out->files, how, &m).CloneAndPrepend(vr.variant.name));
    } else {
      RETURN_NOT_OK(open_once(vr.variant, &m));
      if (!have_reference) {
        have_reference = true;
        out->digest = m.digest;
        out->records = m.records;
        out->containers = m.digest.containers;
        if (out->has_expected && m.digest != out->expected && out->identical) {
          out->identical = false;
          out->mismatch = vr.variant.name + " (repetition " + std::to_string(rep + 1) +
                          ") found " + m.digest.ToString() + ", but the generator left " +
                          out->expected.ToString();
        }
      } else if (m.digest != out->digest && out->identical) {
        out->identical = false;
        out->mismatch = vr.variant.name + " (repetition " + std::to_string(rep + 1) +
                        ") found " + m.digest.ToString() + ", but the first open found " +
                        out->digest.ToString();
      }
      if (vr.variant.choice == fs::StrategyChoice::kStreaming) out->records = m.records;
    }
    char line[160];
    std::snprintf(line, sizeof(line), "%s %d/%d: wall %.4f s, user %.4f s, sys %.4f s",
                  vr.variant.name.c_str(), rep + 1, of, m.wall_s, m.user_s, m.sys_s);
    // One line per state by default (tool_bench.cc); each run's with --v=1.
    if (VLOG_IS_ON(1)) progress(line);
    vr.runs.push_back(m);
    return Status::OK();
  };
  for (int rep = 0; rep < opts.repetitions; rep++) {
    for (size_t j = 0; j < nv; j++) {
      s = run_one((j + static_cast<size_t>(rep)) % nv, rep, opts.repetitions);
      if (!s.ok()) return fail(s);
    }
  }
  s = RunShortStateRounds(opts, cache, out, run_one);
  if (!s.ok()) return fail(s);

  for (VariantResult& vr : out->variants) {
    std::vector<double> wall, user, sys, cpu, rate;
    for (const RunMetrics& m : vr.runs) {
      wall.push_back(m.wall_s);
      user.push_back(m.user_s);
      sys.push_back(m.sys_s);
      cpu.push_back(m.cpu_s());
      if (m.cpu_s() > 0) rate.push_back(static_cast<double>(m.records) / m.cpu_s());
      vr.peak_buffer_bytes = std::max(vr.peak_buffer_bytes, m.peak_buffer_bytes);
      if (m.peak_rss_bytes > vr.peak_rss_bytes) {
        vr.peak_rss_bytes = m.peak_rss_bytes;
        vr.base_rss_bytes = m.base_rss_bytes;
      }
    }
    vr.wall_s = SpreadOf(wall);
    vr.user_s = SpreadOf(user);
    vr.sys_s = SpreadOf(sys);
    vr.cpu_s_median = SpreadOf(cpu).median;
    vr.records_per_cpu_s = SpreadOf(rate).median;
  }
  return Status::OK();
}

Status RunTwinPair(const BenchRunOptions& opts, const BenchVariant& inmemory,
                   const BenchTarget& plain, TargetResult* out) {
  const BenchTarget& self = out->target;
  auto open = [&](const BenchTarget& t, double* wall) -> Status {
    RunMetrics m;
    bool usage_error = false;
    RETURN_NOT_OK(MeasureOpen(t, PolicyOfTarget(opts.policy, t), opts.threads_per_dir, inmemory,
                              &m, &usage_error));
    if (t.generated && m.digest != t.expected) {
      return Status::Corruption(t.name + ": an open beside its twin found " + m.digest.ToString() +
                                ", but the generator left " + t.expected.ToString());
    }
    if (wall != nullptr) *wall = m.wall_s;
    return Status::OK();
  };
  RETURN_NOT_OK(open(plain, nullptr));
  RETURN_NOT_OK(open(self, nullptr));
  const int runs = std::max(opts.repetitions, opts.min_short_runs);
  std::vector<double> plain_wall(runs), wall(runs);
  for (int r = 0; r < runs; r++) {
    if (r % 2 == 0) {
      RETURN_NOT_OK(open(plain, &plain_wall[r]));
      RETURN_NOT_OK(open(self, &wall[r]));
    } else {
      RETURN_NOT_OK(open(self, &wall[r]));
      RETURN_NOT_OK(open(plain, &plain_wall[r]));
    }
  }
  out->twin_pair.twin = plain.name;
  out->twin_pair.runs = runs;
  out->twin_pair.plain_wall_s = SpreadOf(plain_wall);
  out->twin_pair.wall_s = SpreadOf(wall);
  return Status::OK();
}

}  // namespace tools
}  // namespace kudu
