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

// The measuring part of `kudu fs bench`: opens one on-disk state once per
// variant (a replay strategy forced for every container, the auto policy,
// and the physical floor), interleaved and repeated, and checks that every
// open produced the same live block set.
//
// Cache state is a seam (BenchCacheMode): the warm mode reads every
// metadata file once before the first measured run, so every run sees a
// warm page cache; the cold mode drops the page cache before every run
// (/proc/sys/vm/drop_caches, or posix_fadvise DONTNEED on every file of the
// state where that is not allowed), checked with mincore. Cold runs add the
// disk floor ("seq-floor": every metadata file read with one read, one file
// after another on one thread), and --bench_readahead measures each open
// once per read-ahead mode, side by side.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/metadata_readahead.h"
#include "kudu/fs/replay_policy.h"
#include "kudu/tools/block_workload.h"
#include "kudu/util/encryption.h"
#include "kudu/util/status.h"

namespace kudu {
namespace tools {

// One metadata file of the state, as the floor and the cache mode see it.
struct MetadataFileRef {
  uint32_t dir_index = 0;
  std::string path;
  uint64_t size = 0;
};

// Lists <root>/data/<id>.metadata of every root (sorted by path).
Status ListMetadataFiles(const std::vector<std::string>& roots,
                         std::vector<MetadataFileRef>* files);

// What the page cache holds when a measured run starts.
class BenchCacheMode {
 public:
  virtual ~BenchCacheMode() = default;
  // "warm", ... (the JSON's config.cache_mode).
  virtual std::string name() const = 0;
  // How it was achieved (e.g. "every metadata file read once before the
  // first run"); for the report.
  virtual std::string description() const = 0;
  // Once per state, before its first measured run (and before the warm-up).
  virtual Status BeforeState(const std::vector<MetadataFileRef>& files) = 0;
  // Before every measured run (open or floor).
  virtual Status BeforeRun(const std::vector<MetadataFileRef>& files) = 0;
  // True when runs start with the state's files out of the page cache.
  virtual bool cold() const { return false; }
  // Metadata bytes found in the page cache after the last BeforeRun (-1:
  // not checked).
  virtual int64_t cached_bytes_at_start() const { return -1; }
};

// "warm" or "cold"; InvalidArgument for anything else.
//
// cold: before every run, sync(), then "3" to /proc/sys/vm/drop_caches
// (page cache, dentries and inodes, as after a reboot). Where that cannot be
// written (not root, read-only /proc in a container), or with
// --bench_cold_eviction=files, every file of the
// state (data and metadata, every data dir) is evicted with
// posix_fadvise(DONTNEED) instead (every file in the data/ dirs that hold
// the metadata files); dentries and inodes then stay cached.
// Either way the metadata files' cached bytes are checked with mincore and
// the run fails if more than 1% stayed; description() says which it used.
Status NewBenchCacheMode(const std::string& name, std::unique_ptr<BenchCacheMode>* out);

// A digest of a live block set: every entry (block id, container id,
// offset, length) hashed on its own with a 64-bit mix, the entry hashes
// combined by sum and xor (so the walk order of the map does not matter and
// no sort is needed: O(n) for maps of 10^7 entries), plus counts. Two opens
// that agree on the digest produced the same block map (up to a 64-bit
// collision).
struct LiveSetDigest {
  uint64_t hash = 0;
  uint64_t live_blocks = 0;
  uint64_t live_bytes = 0;
  uint64_t containers = 0;  // containers holding metadata (not incomplete)
  bool operator==(const LiveSetDigest& o) const {
    return hash == o.hash && live_blocks == o.live_blocks && live_bytes == o.live_bytes &&
           containers == o.containers;
  }
  bool operator!=(const LiveSetDigest& o) const { return !(*this == o); }
  std::string HashHex() const;
  std::string ToString() const;
};
// Of a successful open (its published block map).
LiveSetDigest DigestOfOpen(const fs::OpenResult& r);
// Of what the generator says it left live, as it hands its shards' live
// blocks over (BlockWorkloadOptions::on_live_shards): each shard digested
// on a thread of its own, the digests then combined.
class GeneratedDigester {
 public:
  GeneratedDigester();
  ~GeneratedDigester();
  void AddShards(const std::vector<tools::ShardLiveBlocks>& shards, int threads);
  LiveSetDigest Finish(uint64_t containers) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// kFloor: every metadata file read once with one read and CRC'd, on the
// open's per-dir pools (the parallel floor). kSeqFloor: the same reads one
// file after another on one thread (the disk floor of a cold run).
enum class BenchVariantKind { kOpen, kFloor, kSeqFloor };

struct BenchVariant {
  // "streaming", "inmemory", "auto", "windowed", "upstream2026", "floor",
  // "seq-floor"; with
  // --bench_readahead "<strategy>/<mode>" ("auto/fadvise").
  std::string name;
  BenchVariantKind kind = BenchVariantKind::kOpen;
  fs::StrategyChoice choice = fs::StrategyChoice::kAuto;  // kOpen only
  // kOpen only: the read-ahead of this variant when set; otherwise the
  // flags' (--log_container_metadata_replay_readahead).
  bool readahead_set = false;
  fs::ReadaheadMode readahead = fs::ReadaheadMode::kNone;
  // kOpen only: when set, makes the open's replay strategies from the
  // policy in force (a reader emulated for comparison,
  // bench_upstream2026.h); empty: the server's.
  std::function<fs::ContainerReplayer::StrategyFactory(const fs::ReplayPolicyOptions&)> strategies;
  std::string strategy() const { return name.substr(0, name.find('/')); }
};

// The non-empty items of a comma-separated flag value, spaces dropped.
std::vector<std::string> SplitBenchList(const std::string& spec);

// The variants for a --bench_strategies list ("streaming,inmemory,auto,windowed,upstream2026";
// windowed only when `windowed_available`); the floor is always added last.
Status ParseBenchVariants(const std::string& spec, bool windowed_available,
                          std::vector<BenchVariant>* out);
// --bench_readahead: a comma-separated list of read-ahead modes (none,
// fadvise); each open variant of `variants` is replaced by one per
// mode, named "<strategy>/<mode>", side by side in the same repetitions.
// Empty: unchanged (every open uses the flags' read-ahead).
Status ApplyBenchReadahead(const std::string& spec, std::vector<BenchVariant>* variants);
// The floors' names. A cold run measures each floor both ways a file can be
// read (bench_floor.h, FloorReads): "floor" and "seq-floor" as the open
// reads, and their "-cached" twins through the page cache; an open is held
// to the faster of each pair.
constexpr char kFloorName[] = "floor";
constexpr char kSeqFloorName[] = "seq-floor";
constexpr char kCachedFloorName[] = "floor-cached";
constexpr char kCachedSeqFloorName[] = "seq-floor-cached";
// Appends the cold runs' floors: seq-floor and both "-cached" twins.
void AddColdFloors(std::vector<BenchVariant>* variants);

// One measured run.
struct RunMetrics {
  double wall_s = 0;
  double user_s = 0;  // getrusage(RUSAGE_SELF) deltas: every thread of the process
  double sys_s = 0;
  // The file layer's counts: on metadata files during the open (ReplayStats),
  // and process-wide (GlobalReadSyscalls) over the same interval.
  uint64_t metadata_read_syscalls = 0;
  uint64_t process_read_syscalls = 0;
  uint64_t metadata_bytes_read = 0;
  uint64_t peak_buffer_bytes = 0;
  uint64_t records = 0;
  uint64_t fallbacks = 0;
  uint64_t containers_by_strategy[static_cast<int>(fs::ReplayStrategyKind::kNumKinds)] = {};
  uint64_t budget_waits = 0;
  uint64_t memory_budget_bytes = 0;
  // Read-ahead of the open: the mode that ran and the files read ahead.
  fs::ReadaheadMode readahead = fs::ReadaheadMode::kNone;
  uint64_t readahead_files = 0;
  uint64_t direct_reads = 0;  // metadata reads past the page cache (O_DIRECT)
  // Metadata bytes in the page cache when the run started (cold runs: the
  // check that the eviction worked); -1 when not measured.
  int64_t cached_bytes_at_start = -1;
  LiveSetDigest digest;  // opens only
  // Opens in a fresh process (BenchRunOptions::fresh_process_per_open): the
  // child's peak resident set (VmHWM after the open) and
  // its resident set just before the open (the program's base); 0 otherwise.
  uint64_t peak_rss_bytes = 0;
  uint64_t base_rss_bytes = 0;
  uint32_t floor_crc = 0;  // floor only: xor of the files' CRCs (keeps the work)
  double cpu_s() const { return user_s + sys_s; }
};

struct Spread {
  double median = 0, min = 0, max = 0;
};
Spread SpreadOf(std::vector<double> v);

struct VariantResult {
  BenchVariant variant;
  std::vector<RunMetrics> runs;  // in repetition order
  Spread wall_s, user_s, sys_s;
  double cpu_s_median = 0;  // median of user + sys over runs
  // Records per CPU-second (user + sys) of the open: the throughput of one
  // busy replay thread, whatever the thread count. Median over runs.
  double records_per_cpu_s = 0;
  uint64_t peak_buffer_bytes = 0;  // max over runs
  uint64_t peak_rss_bytes = 0;     // max over runs (0: not measured)
  uint64_t base_rss_bytes = 0;     // of the run with the largest peak
};

// One state to measure.
struct BenchTarget {
  std::string name = "dirs";
  std::string group;
  std::string description;
  // The page cache mode it was measured in (BenchCacheMode::name()).
  std::string cache_mode;
  bool encrypted = false;
  std::vector<std::string> data_dirs;
  const ServerKey* server_key = nullptr;
  uint64_t in_memory_threshold_bytes = 0;  // 0: the policy's (flags)
  int64_t max_container_blocks = 0;    // 0: the flag's
  bool generated = false;
  bool sparse_data = false;  // generated with data files as holes (S, the sweep)
  // When generated: what the generator wrote, its live list dropped (the
  // digest below stands for it, and a state of 10^8 records would keep
  // gigabytes of it in every result).
  tools::BlockWorkloadResult generated_result;
  LiveSetDigest expected;  // the GeneratedDigester's, of the generator's live blocks
  double generate_seconds = 0;
};

// An encrypted state's InMemory opens interleaved with those of its plain
// twin (the same workload generated without encryption just before it), so
// that what encryption costs is a ratio of opens measured side by side, not
// of two states measured minutes apart.
struct TwinPair {
  std::string twin;  // the plain state's name
  int runs = 0;      // opens of each; 0: not measured
  Spread plain_wall_s, wall_s;  // InMemory on the twin, on this state
};

// The extra rounds of a short state (BenchRunOptions::min_short_runs) take
// the variants within this many times its fastest open: the floor and the
// in-memory strategies, not Streaming.
constexpr double kShortStateSpan = 10;

struct TargetResult {
  BenchTarget target;
  Status status;  // OK, or why the target could not be measured
  bool usage_error = false;  // the open refused the dirs or the key (exit 2)
  std::vector<MetadataFileRef> files;
  uint64_t metadata_bytes = 0;
  uint64_t containers = 0;  // counted by the open
  uint64_t records = 0;     // valid records replayed (streaming's count)
  uint64_t in_memory_threshold_bytes = 0;
  int threads_per_dir = 0;
  int replay_threads = 0;  // sum over dirs of min(threads per dir, containers)
  LiveSetDigest digest;
  bool has_expected = false;
  LiveSetDigest expected;
  // Every open agreed with the first (and with `expected` when set).
  bool identical = true;
  std::string mismatch;  // the first disagreement
  std::vector<VariantResult> variants;
  // When the state was short: its fastest open's median, and the runs each
  // of its quick variants got (0: no extra rounds).
  double short_open_s = 0;
  int short_runs = 0;
  TwinPair twin_pair;

  const VariantResult* Find(const std::string& name) const;
  // The variant of `strategy` measured with the same read-ahead as `like`
  // ("streaming" for "auto/fadvise" is "streaming/fadvise").
  const VariantResult* FindLike(const std::string& strategy, const BenchVariant& like) const;
};

struct BenchRunOptions {
  int repetitions = 3;
  // One untimed open (auto) before the measured runs, so that first-open
  // costs (page faults of fresh heap, first thread creation) fall on no
  // variant in particular.
  bool warmup = true;
  int threads_per_dir = 8;
  fs::ReplayPolicyOptions policy;  // from the flags; the choice is set per variant
  std::vector<BenchVariant> variants;
  BenchCacheMode* cache = nullptr;
  // Every measured open runs in a fresh process (bench_child_open.h), as a
  // server start does, so that its peak RSS is the open's alone.
  bool fresh_process_per_open = false;
  // A state whose fastest open (median of the repetitions) takes less than
  // `short_open_seconds` is measured again in extra interleaved rounds of
  // the variants within kShortStateSpan times that open, until each has
  // `min_short_runs` runs: a 4 ms open's median over 3 runs swung its floor
  // ratio between 2.1 and 4.8 from run to run. In process and warm only (a
  // cold run drops the page cache each time, a fresh process starts one
  // each time). `min_short_runs` 0 or at most `repetitions`: no extra rounds.
  int min_short_runs = 0;
  double short_open_seconds = 0.020;
  // Progress lines (stderr); may be empty.
  std::function<void(const std::string&)> progress;
};

// The replay policy `target` is opened with: `policy` (the flags') with the
// target's in-memory threshold when it sets one.
fs::ReplayPolicyOptions PolicyOfTarget(const fs::ReplayPolicyOptions& policy,
                                       const BenchTarget& target);

// One open of `target` as `v` with `policy`, in this process: its metrics,
// and its live set digest (outside the timing). `*usage_error` is set when
// the open refused the dirs or the key.
Status MeasureOpen(const BenchTarget& target, const fs::ReplayPolicyOptions& policy,
                   int threads_per_dir, const BenchVariant& v, RunMetrics* m, bool* usage_error);

// Measures `target`: for repetition r the variants run in order rotated by
// r (interleaved, so drift spreads over every variant). Fills `out` and
// returns its status; a disagreement between opens is not a failed status
// but `identical == false` (the caller exits 1).
Status RunBenchTarget(const BenchRunOptions& opts, const BenchTarget& target, TargetResult* out);

// Opens `plain` and `out`'s state with `inmemory` (the InMemory variant)
// alternately, max(repetitions, min_short_runs) times each, the order
// swapped every round, after one untimed open of each; fills
// out->twin_pair. Warm and in process. An open that does not find what the
// generator left is an error.
Status RunTwinPair(const BenchRunOptions& opts, const BenchVariant& inmemory,
                   const BenchTarget& plain, TargetResult* out);

}  // namespace tools
}  // namespace kudu
