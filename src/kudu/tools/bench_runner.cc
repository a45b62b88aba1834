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

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>

#include "kudu/fs/container_writer.h"
#include "kudu/tools/bench_upstream2026.h"
#include "kudu/tools/page_cache.h"
#include "kudu/util/crc32c.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/mix64.h"
#include "kudu/util/process_cpu_times.h"
#include "kudu/util/thread_pool.h"

namespace kudu {
namespace tools {
namespace {


// Measures wall and CPU time around a piece of work.
class Stopwatch {
 public:
  Stopwatch() : wall_(std::chrono::steady_clock::now()), cpu_(ProcessCpuTimes()), reads_(GlobalReadSyscalls()) {}
  void Stop(RunMetrics* m) const {
    const auto wall = std::chrono::steady_clock::now();
    const CpuTimes cpu = ProcessCpuTimes();
    m->wall_s = std::chrono::duration<double>(wall - wall_).count();
    m->user_s = cpu.user - cpu_.user;
    m->sys_s = cpu.sys - cpu_.sys;
    m->process_read_syscalls = GlobalReadSyscalls() - reads_;
  }

 private:
  const std::chrono::steady_clock::time_point wall_;
  const CpuTimes cpu_;
  const uint64_t reads_;
};

// FNV-1a, 64 bits.
class Fnv64 {
 public:
  void Add(const void* p, size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; i++) {
      h_ ^= b[i];
      h_ *= 0x100000001b3ULL;
    }
  }
  void Add(uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = static_cast<uint8_t>(v >> (8 * i));
    Add(b, 8);
  }
  void Add(const std::string& s) {
    Add(s.size());
    Add(s.data(), s.size());
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xcbf29ce484222325ULL;
};

// Reads every metadata file once (the warm mode's preparation).
Status ReadAll(const std::vector<MetadataFileRef>& files) {
  std::vector<uint8_t> buf;
  for (const MetadataFileRef& f : files) {
    std::unique_ptr<RandomAccessFile> file;
    RETURN_NOT_OK(RandomAccessFile::Open(f.path, nullptr, &file));
    buf.resize(std::max<size_t>(buf.size(), file->size()));
    RETURN_NOT_OK(file->ReadRaw(0, buf.data(), file->size()));
  }
  return Status::OK();
}

// Metadata bytes of `files` in the page cache now (mincore), or -1.
int64_t CachedBytesOf(const std::vector<MetadataFileRef>& files) {
  int64_t total = 0;
  for (const MetadataFileRef& f : files) {
    std::unique_ptr<RandomAccessFile> file;
    if (!RandomAccessFile::Open(f.path, nullptr, &file).ok()) return -1;
    const int64_t c = PageCacheResidentBytes(*file);
    if (c < 0) return -1;
    total += c;
  }
  return total;
}

// What a server process has cached long before it opens its block
// manager, dropped by drop_caches with everything else. glibc stats the time
// zone file (/etc/localtime, a symlink into /usr/share/zoneinfo) for every
// log timestamp, so the open's first log line would otherwise wait for
// several dependent disk reads queued behind the metadata reads, a large
// part of a cold open of a small state (docs/benchmarks.md). A server after
// a reboot has read the file for the first line it logged at startup.
void RereadProcessFiles() { ::tzset(); }

// posix_fadvise(DONTNEED) on every file of the data/ dirs holding `files`.
Status EvictFiles(const std::vector<MetadataFileRef>& files) {
  ::sync();
  std::set<std::string> dirs;
  for (const MetadataFileRef& f : files) dirs.insert(env::DirName(f.path));
  for (const std::string& dir : dirs) {
    std::vector<std::string> names;
    RETURN_NOT_OK(env::ListDir(dir, &names));
    for (const std::string& n : names) {
      std::unique_ptr<RandomAccessFile> file;
      if (!RandomAccessFile::Open(env::JoinPath(dir, n), nullptr, &file).ok()) continue;
      DropFromPageCache(*file);
    }
  }
  return Status::OK();
}

class ColdCache : public BenchCacheMode {
 public:
  std::string name() const override { return "cold"; }
  std::string description() const override { return description_; }
  bool cold() const override { return true; }

  Status BeforeState(const std::vector<MetadataFileRef>& files) override {
    // Decided once per state: drop_caches if it can be written and works.
    if (!decided_) {
      decided_ = true;
      Status s = DropSystemCaches();
      if (s.ok()) {
        use_drop_caches_ = true;
        description_ =
            "before every run: sync; echo 3 > /proc/sys/vm/drop_caches (page cache, dentries and "
            "inodes dropped, as after a reboot; then the time zone file read back, as a running "
            "server holds it), checked with mincore";
      } else {
        description_ = "before every run: posix_fadvise(DONTNEED) on every file of the state "
                       "(data and metadata; /proc/sys/vm/drop_caches not writable: " +
                       s.ToString() + "), checked with mincore; dentries and inodes stay cached";
      }
    }
    return Status::OK();
  }

  Status BeforeRun(const std::vector<MetadataFileRef>& files) override {
    if (use_drop_caches_) {
      RETURN_NOT_OK(DropSystemCaches());
      RereadProcessFiles();
    } else {
      RETURN_NOT_OK(EvictFiles(files));
    }
    uint64_t total = 0;
    for (const MetadataFileRef& f : files) total += f.size;
    const int64_t cached = CachedBytesOf(files);
    last_cached_ = cached;
    if (cached > 0 && static_cast<uint64_t>(cached) * 100 > total) {
      return Status::IllegalState("the page cache still holds " + std::to_string(cached) + " of " +
                                  std::to_string(total) +
                                  " metadata bytes after the eviction; a cold run is not possible "
                                  "here");
    }
    return Status::OK();
  }
  int64_t cached_bytes_at_start() const override { return last_cached_; }

 private:
  bool decided_ = false;
  bool use_drop_caches_ = false;
  std::string description_ = "cold (not yet decided)";
  int64_t last_cached_ = -1;
};

class WarmCache : public BenchCacheMode {
 public:
  std::string name() const override { return "warm"; }
  std::string description() const override {
    return "every metadata file read once before the state's first run (page cache warm)";
  }
  Status BeforeState(const std::vector<MetadataFileRef>& files) override { return ReadAll(files); }
  Status BeforeRun(const std::vector<MetadataFileRef>&) override { return Status::OK(); }
};

// One file of a floor: opened, read whole with one read into `*buf` (grown
// as needed, reused across files), CRC-32C'd into `*crc`; its read syscalls
// and bytes added to `*reads` and `*bytes`.
class FloorFileReader {
 public:
  Status Read(const std::string& path, uint32_t* crc, uint64_t* reads, uint64_t* bytes) {
    std::unique_ptr<RandomAccessFile> file;
    RETURN_NOT_OK(RandomAccessFile::Open(path, nullptr, &file));
    const size_t n = file->size();
    if (n > cap_) {
      buf_.reset(new uint8_t[n]);
      cap_ = n;
    }
    Status s = file->ReadRaw(0, buf_.get(), n);
    if (s.ok()) *crc ^= crc::Crc32c(buf_.get(), n);
    *reads += file->stats().read_syscalls;
    *bytes += file->stats().bytes_read;
    return s;
  }

 private:
  std::unique_ptr<uint8_t[]> buf_;
  size_t cap_ = 0;
};

// The floor: every metadata file read once with one read of the whole file
// through the file layer, and CRC-32C'd over the whole buffer, on the same
// per-dir thread pools as the open, without parsing. For encrypted files the
// bytes are ciphertext (the floor does not decrypt).
Status MeasureFloor(const std::vector<MetadataFileRef>& files, size_t num_dirs,
                    int threads_per_dir, RunMetrics* m) {
  std::vector<std::vector<const MetadataFileRef*>> by_dir(num_dirs);
  for (const MetadataFileRef& f : files) by_dir[f.dir_index].push_back(&f);
  std::atomic<uint64_t> reads{0}, bytes{0};
  std::atomic<uint32_t> crc{0};
  std::mutex err_mu;
  Status first_error;

  Stopwatch sw;
  {
    std::vector<std::unique_ptr<ThreadPool>> pools;
    std::vector<std::unique_ptr<std::atomic<size_t>>> cursors;
    for (size_t d = 0; d < by_dir.size(); d++) {
      if (by_dir[d].empty()) continue;
      const int threads =
          std::max(1, std::min<int>(threads_per_dir, static_cast<int>(by_dir[d].size())));
      pools.emplace_back(new ThreadPool("bench-floor-" + std::to_string(d), threads));
      cursors.emplace_back(new std::atomic<size_t>(0));
      const std::vector<const MetadataFileRef*>* work = &by_dir[d];
      std::atomic<size_t>* cursor = cursors.back().get();
      for (int t = 0; t < threads; t++) {
        pools.back()->Submit([work, cursor, &reads, &bytes, &crc, &err_mu, &first_error] {
          FloorFileReader reader;
          uint32_t local_crc = 0;
          uint64_t local_reads = 0, local_bytes = 0;
          while (true) {
            const size_t k = cursor->fetch_add(1);
            if (k >= work->size()) break;
            Status s = reader.Read((*work)[k]->path, &local_crc, &local_reads, &local_bytes);
            if (!s.ok()) {
              std::lock_guard<std::mutex> l(err_mu);
              if (first_error.ok()) first_error = s;
            }
          }
          crc.fetch_xor(local_crc, std::memory_order_relaxed);
          reads.fetch_add(local_reads, std::memory_order_relaxed);
          bytes.fetch_add(local_bytes, std::memory_order_relaxed);
        });
      }
    }
    for (auto& p : pools) p->Wait();
  }
  sw.Stop(m);
  m->metadata_read_syscalls = reads.load();
  m->metadata_bytes_read = bytes.load();
  m->floor_crc = crc.load();
  return first_error;
}

// The disk floor: every metadata file read once with one read of the whole
// file, one after another in path order on this thread, CRC'd.
Status MeasureSeqFloor(const std::vector<MetadataFileRef>& files, RunMetrics* m) {
  FloorFileReader reader;
  uint32_t crc = 0;
  uint64_t reads = 0, bytes = 0;
  Status first_error;
  Stopwatch sw;
  for (const MetadataFileRef& f : files) {
    Status s = reader.Read(f.path, &crc, &reads, &bytes);
    if (!s.ok() && first_error.ok()) first_error = s;
  }
  sw.Stop(m);
  m->metadata_read_syscalls = reads;
  m->metadata_bytes_read = bytes;
  m->floor_crc = crc;
  return first_error;
}

}  // namespace

Status ListMetadataFiles(const std::vector<std::string>& roots,
                         std::vector<MetadataFileRef>* files) {
  files->clear();
  for (uint32_t d = 0; d < roots.size(); d++) {
    const std::string dir = fs::LogBlockContainerWriter::DataDir(roots[d]);
    std::vector<std::string> names;
    RETURN_NOT_OK_PREPEND(env::ListDir(dir, &names), "cannot list " + dir);
    for (const std::string& n : names) {
      std::string id;
      bool is_metadata = false;
      if (!fs::ParseContainerFileName(n, &id, &is_metadata) || !is_metadata) continue;
      MetadataFileRef f;
      f.dir_index = d;
      f.path = env::JoinPath(dir, n);
      RETURN_NOT_OK(env::GetFileSize(f.path, &f.size));
      files->push_back(std::move(f));
    }
  }
  std::sort(files->begin(), files->end(),
            [](const MetadataFileRef& a, const MetadataFileRef& b) { return a.path < b.path; });
  return Status::OK();
}

Status NewBenchCacheMode(const std::string& name, std::unique_ptr<BenchCacheMode>* out) {
  if (name == "warm") {
    out->reset(new WarmCache());
    return Status::OK();
  }
  if (name == "cold") {
    out->reset(new ColdCache());
    return Status::OK();
  }
  return Status::InvalidArgument("unknown cache mode '" + name + "' (known: warm, cold)");
}

std::string LiveSetDigest::HashHex() const {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%016" PRIx64, hash);
  return buf;
}

std::string LiveSetDigest::ToString() const {
  return "hash " + HashHex() + ", " + std::to_string(live_blocks) + " live blocks, " +
         std::to_string(live_bytes) + " live bytes, " + std::to_string(containers) +
         " containers";
}

namespace {

// Accumulates entries in any order: each entry is hashed on its own, and
// the entry hashes are combined by sum and xor, which do not depend on order.
class SetDigester {
 public:
  void Add(uint64_t id, uint64_t container_hash, uint64_t offset, uint64_t length) {
    uint64_t h = Mix64(id + 0x9e3779b97f4a7c15ULL);
    h = Mix64(h ^ container_hash);
    h = Mix64(h ^ offset);
    h = Mix64(h ^ length);
    sum_ += h;
    xor_ ^= Mix64(h + 1);
  }
  uint64_t value() const { return Mix64(sum_) ^ xor_; }

 private:
  uint64_t sum_ = 0;
  uint64_t xor_ = 0;
};

uint64_t HashString(const std::string& s) {
  Fnv64 h;
  h.Add(s);
  return h.value();
}

}  // namespace

LiveSetDigest DigestOfOpen(const fs::OpenResult& r) {
  LiveSetDigest d;
  std::vector<uint64_t> container_hash(r.containers.size());
  for (size_t i = 0; i < r.containers.size(); i++) {
    if (r.containers[i].counted()) d.containers++;
    container_hash[i] = HashString(r.containers[i].id);
  }
  if (r.block_map == nullptr) return d;
  SetDigester h;
  r.block_map->ForEach([&](uint64_t id, const fs::BlockMapEntry& e) {
    h.Add(id, container_hash[e.container], static_cast<uint64_t>(e.offset),
          static_cast<uint64_t>(e.length));
    d.live_blocks++;
    d.live_bytes += static_cast<uint64_t>(e.length);
  });
  d.hash = h.value();
  return d;
}

LiveSetDigest DigestOfGenerated(const fs::BlockWorkloadResult& g) {
  LiveSetDigest d;
  d.containers = g.containers;
  SetDigester h;
  std::map<std::string, uint64_t> container_hash;
  for (const fs::GeneratedBlock& b : g.live) {
    auto it = container_hash.find(b.container_id);
    if (it == container_hash.end()) {
      it = container_hash.emplace(b.container_id, HashString(b.container_id)).first;
    }
    h.Add(b.id.id(), it->second, static_cast<uint64_t>(b.offset),
          static_cast<uint64_t>(b.length));
    d.live_blocks++;
    d.live_bytes += static_cast<uint64_t>(b.length);
  }
  d.hash = h.value();
  return d;
}

namespace {
// The non-empty items of a comma-separated flag value, spaces dropped.
std::vector<std::string> SplitCommaList(const std::string& spec) {
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
}  // namespace

Status ParseBenchVariants(const std::string& spec, bool windowed_available,
                          std::vector<BenchVariant>* out) {
  out->clear();
  std::set<std::string> seen;
  for (const std::string& item : SplitCommaList(spec)) {
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
  floor.name = "floor";
  floor.kind = BenchVariantKind::kFloor;
  out->push_back(floor);
  return Status::OK();
}

Status ApplyBenchReadahead(const std::string& spec, std::vector<BenchVariant>* variants) {
  std::vector<fs::ReadaheadMode> modes;
  for (const std::string& item : SplitCommaList(spec)) {
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

void AddSeqFloor(std::vector<BenchVariant>* variants) {
  for (const BenchVariant& v : *variants) {
    if (v.kind == BenchVariantKind::kSeqFloor) return;
  }
  BenchVariant f;
  f.name = "seq-floor";
  f.kind = BenchVariantKind::kSeqFloor;
  variants->push_back(f);
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

Status RunBenchTarget(const BenchRunOptions& opts, const BenchTarget& target, TargetResult* out) {
  *out = TargetResult();
  out->target = target;
  out->threads_per_dir = opts.threads_per_dir;
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

  fs::ReplayPolicyOptions policy = opts.policy;
  if (target.inmem_threshold_bytes > 0) policy.inmem_threshold_bytes = target.inmem_threshold_bytes;
  out->inmem_threshold_bytes = policy.inmem_threshold_bytes;

  if (target.generated) {
    out->has_expected = true;
    out->expected = DigestOfGenerated(target.generated_result);
  }

  BenchCacheMode* cache = opts.cache;
  if (cache != nullptr) {
    s = cache->BeforeState(out->files);
    if (!s.ok()) return fail(s.CloneAndPrepend("cache mode " + cache->name()));
  }

  // One open with `choice`; its metrics, and the digest outside the timing.
  auto open_once = [&](const BenchVariant& v, RunMetrics* m) -> Status {
    fs::BlockManagerOpenOptions o;
    o.data_dirs = target.data_dirs;
    o.server_key = target.server_key;
    o.threads_per_dir = opts.threads_per_dir;
    o.policy = policy;
    o.policy.choice = v.choice;
    if (v.strategies) o.strategy_factory = v.strategies(o.policy);
    if (v.readahead_set) o.readahead.mode = v.readahead;
    o.progress_every = 0;
    if (target.max_container_blocks != 0) o.max_container_blocks = target.max_container_blocks;
    fs::OpenResult r;
    Stopwatch sw;
    fs::OpenBlockManager(o, &r);
    sw.Stop(m);
    if (!r.ok()) {
      out->usage_error = r.failure == fs::OpenResult::Failure::kUsage;
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
  for (int rep = 0; rep < opts.repetitions; rep++) {
    for (size_t j = 0; j < nv; j++) {
      const size_t i = (j + static_cast<size_t>(rep)) % nv;
      VariantResult& vr = out->variants[i];
      if (cache != nullptr) {
        s = cache->BeforeRun(out->files);
        if (!s.ok()) return fail(s.CloneAndPrepend("cache mode " + cache->name()));
      }
      RunMetrics m;
      if (cache != nullptr) m.cached_bytes_at_start = cache->cached_bytes_at_start();
      if (vr.variant.kind == BenchVariantKind::kFloor) {
        s = MeasureFloor(out->files, target.data_dirs.size(), opts.threads_per_dir, &m);
        if (!s.ok()) return fail(s.CloneAndPrepend("floor"));
      } else if (vr.variant.kind == BenchVariantKind::kSeqFloor) {
        s = MeasureSeqFloor(out->files, &m);
        if (!s.ok()) return fail(s.CloneAndPrepend("seq-floor"));
      } else {
        s = open_once(vr.variant, &m);
        if (!s.ok()) return fail(s);
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
                    vr.variant.name.c_str(), rep + 1, opts.repetitions, m.wall_s, m.user_s,
                    m.sys_s);
      // One line per state by default (tool_bench.cc); each run's with --v=1.
      if (VLOG_IS_ON(1)) progress(line);
      vr.runs.push_back(m);
    }
  }

  for (VariantResult& vr : out->variants) {
    std::vector<double> wall, user, sys, cpu, rate;
    for (const RunMetrics& m : vr.runs) {
      wall.push_back(m.wall_s);
      user.push_back(m.user_s);
      sys.push_back(m.sys_s);
      cpu.push_back(m.cpu_s());
      if (m.cpu_s() > 0) rate.push_back(static_cast<double>(m.records) / m.cpu_s());
      vr.peak_buffer_bytes = std::max(vr.peak_buffer_bytes, m.peak_buffer_bytes);
    }
    vr.wall_s = SpreadOf(wall);
    vr.user_s = SpreadOf(user);
    vr.sys_s = SpreadOf(sys);
    vr.cpu_s_median = SpreadOf(cpu).median;
    vr.records_per_cpu_s = SpreadOf(rate).median;
  }
  return Status::OK();
}

}  // namespace tools
}  // namespace kudu
