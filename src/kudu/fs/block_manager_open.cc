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

#include "kudu/fs/block_manager_open.h"

#include <gflags/gflags.h>
#include <glog/logging.h>
#include <sys/resource.h>

#include <algorithm>
#include <limits>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>

#include "kudu/fs/block_merge.h"
#include "kudu/fs/container_load.h"
#include "kudu/fs/container_replayer.h"
#include "kudu/fs/container_writer.h"
#include "kudu/fs/final_merges.h"
#include "kudu/fs/open_progress.h"
#include "kudu/fs/replay_policy.h"
#include "kudu/fs/replay_stats.h"
#include "kudu/fs/replay_thread_gate.h"
#include "kudu/util/byte_budget.h"
#include "kudu/util/process_cpu_times.h"
#include "kudu/util/flag_validators.h"
#include "kudu/util/thread_pool.h"

DEFINE_bool(encrypt_data_at_rest, false,
            "Kudu's flag: the server's data is encrypted at rest. Set, an open that finds no "
            "server key (neither --server_key_hex nor a key in an instance file) fails; unset, "
            "a key found in an instance file is used all the same");

DEFINE_int32(fs_max_thread_count_per_data_dir, 8,
             "Threads per data dir that replay container metadata when the block manager "
             "opens. Each data dir has its own pool, so one slow disk does not hold up the "
             "others; within a dir, more threads overlap I/O waits with parsing. While the "
             "metadata is found in the page cache (a warm restart) each dir runs only its "
             "share of the machine's CPUs of them: the replay is then CPU-bound and more "
             "threads would only take turns. All of them run once a read misses the cache. "
             "A dir's threads claim its large containers (1 MiB of metadata or more) first, "
             "largest first, so that none is left replaying a large file alone at the end.");
DEFINE_validator(fs_max_thread_count_per_data_dir, &kudu::flags::ValidateThreadCount);
DEFINE_double(log_container_live_metadata_before_compact_ratio, 0.50,
              "A full log block container whose live/total block ratio is at or below this "
              "has its metadata rewritten by a repair with only its live CREATE records, so "
              "the next startup replays fewer records. With "
              "--log_container_metadata_runtime_compact, a container (full or not) whose "
              "ratio is strictly below it is a candidate too, once its metadata file is large "
              "enough.");
DEFINE_validator(log_container_live_metadata_before_compact_ratio, &kudu::flags::ValidateRatio);

namespace kudu {
namespace fs {

BlockManagerOpenOptions::BlockManagerOpenOptions()
    : encrypt_data_at_rest(FLAGS_encrypt_data_at_rest),
      threads_per_dir(FLAGS_fs_max_thread_count_per_data_dir),
      cpus(static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))),
      max_container_size(FLAGS_log_container_max_size),
      max_container_blocks(FLAGS_log_container_max_blocks),
      live_ratio_before_compact(FLAGS_log_container_live_metadata_before_compact_ratio) {
  ReadaheadOptions ra;
  if (ReadaheadOptions::FromFlags(&ra).ok()) readahead = ra;
  classification.SetFromClassificationFlags();
}

namespace {

// What every replay thread of every dir shares.
struct SharedOpenState {
  SharedOpenState(const BlockManagerOpenOptions& o, const ServerKey* k)
      : opts(o), key(k), budget(o.policy.memory_budget_bytes), map(new BlockMap()) {
    rules = o.classification;
    rules.max_container_size = o.max_container_size;
    rules.max_container_blocks = o.max_container_blocks;
    rules.live_ratio_before_compact = o.live_ratio_before_compact;
  }
  const BlockManagerOpenOptions& opts;
  const ServerKey* const key;  // null for plain dirs
  // Each dir's data/, by dir index, and the metadata files it opened, by
  // container index (the listing's).
  const std::vector<int>* data_dir_fds = nullptr;
  HeldFiles* metadata_files = nullptr;
  // Closes the replayed metadata files a batch at a time: the listing
  // opened them in a burst, so a batch is mostly runs of consecutive
  // descriptors, each closed with one system call instead of one per file.
  // Large enough that the listing threads' interleaved chunks of
  // descriptors (kBuildChunk each) come together into long runs.
  DeferredCloser metadata_closer{512};
  ClassificationRules rules;
  ByteBudget budget;
  ReplayStats stats;
  std::unique_ptr<BlockMap> map;
  ConflictLog conflicts;
  uint64_t total = 0;  // containers of every dir
  std::unique_ptr<OpenProgress> progress;
};

// One data dir's share of the replay: its containers in claim order, the
// cursor its pool threads claim positions from, and its read-ahead.
struct DirWork {
  std::vector<uint32_t> queue;  // container indices
  std::atomic<size_t> cursor{0};
  std::unique_ptr<DirReadahead> readahead;  // null: none
  int threads = 0;
  // Threads that start at once; the gate holds the others back while the
  // open looks warm.
  int first_wave = 0;
  std::unique_ptr<ReplayThreadGate> gate;
  std::unique_ptr<ThreadPool> pool;  // the first wave
  std::unique_ptr<ThreadPool> rest;  // the others, once the gate opens
};

// The body of a replay pool thread of a dir: claims the dir's containers one
// at a time, loads each and queues its blocks for the merge, then takes part
// in the final merges until every thread has finished.
void RunReplayThread(SharedOpenState* shared, ContainerInfos* containers,
                     DirWork* work, FinalMerges* final_merges) {
  ContainerReplayer replayer(shared->opts.policy, &shared->budget, &shared->stats,
                             shared->opts.strategy_factory);
  ThreadMerge merge(shared->map.get(), &shared->conflicts, containers);
  while (true) {
    const size_t k = work->cursor.fetch_add(1);
    if (k >= work->queue.size()) {
      // Threads still held back are not needed: nothing waits for them.
      const int dismissed = work->gate->Dismiss();
      final_merges->Withdraw(static_cast<size_t>(dismissed));
      shared->progress->ThreadDone(static_cast<size_t>(dismissed));
      shared->stats.Add(shared->stats.replay_threads_held_back, static_cast<uint64_t>(dismissed));
      // Its buffer would wait out the final merges with budget held that
      // the dir's other threads may be waiting for.
      replayer.ReleaseKeptBuffer();
      break;
    }
    const uint32_t index = work->queue[k];
    if (work->readahead != nullptr) work->readahead->Claim(k);
    ContainerInfo* c = &(*containers)[index];
    merge.Queue(index, LoadContainer(c, (*shared->data_dir_fds)[c->dir_index],
                                     shared->metadata_files->slot(index), shared->key,
                                     shared->rules, &replayer, &shared->metadata_closer));
    shared->progress->ContainerDone();
    // A miss in any dir opens every dir's gate: a dir's own probes are not
    // counted apart, and holding threads back is only worth it when the
    // whole open is warm.
    if (work->gate->closed() &&
        !KeepReplayThreadsBack(
            shared->stats.cache_probe_hits.load(),
            shared->stats.cache_probe_misses.load() + shared->stats.direct_reads.load())) {
      work->gate->Open();
    }
  }
  merge.Finish(final_merges);
  shared->progress->ThreadDone();
}

// Read-ahead for a dir with more containers than replay threads (otherwise
// the first wave claims them all at once); null when there is none.
std::unique_ptr<DirReadahead> MakeReadahead(SharedOpenState* shared,
                                            const ContainerInfos& containers,
                                            const DirWork& work) {
  const BlockManagerOpenOptions& opts = shared->opts;
  if (opts.readahead.mode == ReadaheadMode::kNone || opts.readahead.containers_per_thread <= 0 ||
      work.queue.size() <= static_cast<size_t>(work.threads)) {
    return nullptr;
  }
  std::vector<DirReadahead::Entry> queue;
  queue.reserve(work.queue.size());
  for (uint32_t i : work.queue) {
    const ContainerInfo& c = containers[i];
    DirReadahead::Entry e;
    if (WillReplay(c)) {
      e.path = c.metadata_path;
      e.bytes = ChooseReadaheadBytes(opts.policy, c.metadata_size,
                                     c.encrypted ? kEncryptionHeaderSize : 0);
      e.held = shared->metadata_files->slot(i);
    }
    queue.push_back(std::move(e));
  }
  return std::unique_ptr<DirReadahead>(new DirReadahead(opts.readahead, std::move(queue),
                                                      work.threads, work.first_wave,
                                                      &shared->budget, &shared->stats));
}

// Splits the containers by dir and sizes each dir's pool.
std::vector<std::unique_ptr<DirWork>> PlanDirs(SharedOpenState* shared,
                                               ContainerInfos* infos) {
  const ContainerInfos& containers = *infos;
  std::vector<std::unique_ptr<DirWork>> dirs;
  for (size_t d = 0; d < shared->opts.data_dirs.size(); d++) dirs.emplace_back(new DirWork());
  for (uint32_t i = 0; i < containers.size(); i++) {
    dirs[containers[i].dir_index]->queue.push_back(i);
  }
  const size_t dirs_with_work = static_cast<size_t>(
      std::count_if(dirs.begin(), dirs.end(), [](const auto& w) { return !w->queue.empty(); }));
  for (auto& w : dirs) {
    if (w->queue.empty()) continue;
    w->threads = std::max(1, std::min<int>(shared->opts.threads_per_dir,
                                           static_cast<int>(w->queue.size())));
    std::vector<uint64_t> bytes;
    bytes.reserve(w->queue.size());
    for (uint32_t i : w->queue) bytes.push_back(containers[i].metadata_size);
    const std::vector<uint32_t> in_path_order = std::move(w->queue);
    w->queue.clear();
    size_t ahead = 0;
    for (uint32_t k : ChooseClaimOrder(bytes, w->threads, &ahead)) {
      const uint32_t i = in_path_order[k];
      if (w->queue.size() < ahead) {
        (*infos)[i].claimed_largest_first = true;
        shared->map->ExpectLargestFirst(EstimatedCreateRecords(containers[i]));
      }
      w->queue.push_back(i);
    }
    w->first_wave = ChooseFirstWaveThreads(w->threads, shared->opts.cpus, dirs_with_work);
    w->readahead = MakeReadahead(shared, containers, *w);
  }
  return dirs;
}

// Replays every container: one pool per dir, one replayer and merge per
// pool thread; each dir's read-ahead runs ahead of its pool's cursor.
// Returns the read-ahead mode that ran.
ReadaheadMode ReplayAllDirs(SharedOpenState* shared, ContainerInfos* containers) {
  std::vector<std::unique_ptr<DirWork>> dirs = PlanDirs(shared, containers);
  size_t replay_threads = 0, first_wave = 0;
  ReadaheadMode ran = ReadaheadMode::kNone;
  for (const auto& w : dirs) {
    replay_threads += w->threads;
    first_wave += w->first_wave;
    if (w->readahead != nullptr) ran = w->readahead->mode();
  }
  // Every replay thread's last merge, shared with the threads that have
  // finished: the slowest thread's last container is the tail of the open.
  FinalMerges final_merges(shared->map.get(), replay_threads);
  auto start = [shared, containers, &final_merges](DirWork* work, const std::string& name,
                                                   int threads, std::unique_ptr<ThreadPool>* pool) {
    pool->reset(new ThreadPool(name, threads));
    for (int t = 0; t < threads; t++) {
      (*pool)->Submit([shared, containers, work, &final_merges] {
        RunReplayThread(shared, containers, work, &final_merges);
      });
    }
  };
  for (size_t d = 0; d < dirs.size(); d++) {
    DirWork* work = dirs[d].get();
    if (work->threads == 0) continue;
    const std::string name = "replay-dir-" + std::to_string(d);
    // Opened by a first-wave thread, which is still running then: the main
    // thread sees `rest` once the first wave's pool is done.
    work->gate.reset(new ReplayThreadGate(work->threads, work->first_wave, [=] {
      start(work, name + "-rest", work->threads - work->first_wave, &work->rest);
    }));
    start(work, name, work->first_wave, &work->pool);
  }
  // The block map's memory, allocated and touched by this thread while the
  // replay threads wait for their first reads, not before they start (it
  // would delay the first metadata read of a cold start) nor by the merges
  // (a shard a merge reaches first allocates itself).
  shared->map->Allocate();
  // Logged once the replay threads run: glog's timestamp can cost a disk
  // read after a reboot (glibc stats /etc/localtime), which would otherwise
  // delay every replay.
  LOG(INFO) << "Opening " << shared->total << " log block containers in "
            << shared->opts.data_dirs.size() << " data dirs (" << replay_threads
            << " replay threads, " << first_wave
            << " while the page cache looks warm; replay strategy "
            << StrategyChoiceName(shared->opts.policy.choice) << ")";
  shared->progress->Run(replay_threads);
  for (auto& w : dirs) {
    if (w->pool != nullptr) w->pool->Wait();
    if (w->rest != nullptr) w->rest->Wait();
  }
  shared->metadata_closer.Flush();
  // Every position was claimed: the read-aheads end here, before the budget
  // and stats they use go away.
  dirs.clear();
  return ran;
}

// The replay's counters and the budget's, as they are now.
void Snapshot(const SharedOpenState& shared, ReplayStatsSnapshot* out) {
  static_cast<ReplayCounters&>(*out) = shared.stats.Snapshot();
  out->peak_buffer_bytes = shared.budget.peak();
  out->memory_budget_bytes = shared.budget.total();
}

// Problems in offset order per container, and the highest block id.
void FinishContainers(OpenResult* result) {
  for (ContainerInfo& c : result->containers) {
    std::stable_sort(c.problems.begin(), c.problems.end(),
                     [](const ContainerProblem& a, const ContainerProblem& b) {
                       return a.offset < b.offset;
                     });
    // A corrupt container counts in no total (§4.1), the highest id included.
    if (c.counted() && c.has_max_block_id &&
        (!result->has_max_block_id || c.max_block_id > result->max_block_id)) {
      result->has_max_block_id = true;
      result->max_block_id = c.max_block_id;
    }
  }
  result->has_next_block_id =
      !result->has_max_block_id || result->max_block_id != std::numeric_limits<uint64_t>::max();
  result->next_block_id = !result->has_max_block_id   ? 1
                          : result->has_next_block_id ? result->max_block_id + 1
                                                      : 0;
}

// A file the open could not read because the process ran out of
// descriptors or memory says nothing about the disk: calling its container
// corrupt would make the verdict depend on the limit, the thread count and
// the page cache. The first such problem, or null.
const ContainerProblem* ResourceProblem(const OpenResult& r) {
  for (const ContainerInfo& c : r.containers) {
    for (const ContainerProblem& p : c.problems) {
      const int e = p.status.posix_code();
      if (e == EMFILE || e == ENFILE || e == ENOMEM) return &p;
    }
  }
  return nullptr;
}

// Totals for the open's log line.
struct OpenTotals {
  uint64_t fatal = 0, counted = 0, live = 0, live_bytes = 0;
};

// The open's status: the first fatal problem in container order, each of
// the first few logged (the report lists them all).
OpenTotals CollectProblems(OpenResult* result) {
  OpenTotals t;
  for (const DataDirProblem& d : result->dir_problems) {
    LOG(ERROR) << d.status.ToString();
    if (t.fatal++ == 0) result->status = d.status;
  }
  for (const ContainerInfo& c : result->containers) {
    if (c.counted()) t.counted++;
    t.live += c.live_blocks;
    t.live_bytes += c.live_bytes;
    for (const ContainerProblem& p : c.problems) {
      if (t.fatal < 10) LOG(ERROR) << p.status.ToString();
      if (t.fatal++ == 0) result->status = p.status;
    }
  }
  if (t.fatal > 10) LOG(ERROR) << "... and " << (t.fatal - 10) << " more fatal problems";
  // Malformed records are fatal too (§4.4), yet not corruption: with no
  // other problem the status is Kudu's.
  uint64_t malformed = 0;
  for (const ContainerInfo& c : result->containers) malformed += c.malformed.size();
  if (malformed > 0 && t.fatal == 0) {
    result->status = Status::Corruption(
        "found at least one fatal error in block manager on-disk state. See block manager "
        "consistency report for details");
  }
  t.fatal += malformed;
  if (t.fatal > 0) result->failure = OpenResult::Failure::kInconsistent;
  return t;
}

void LogOpenSummary(const OpenResult& result, const OpenTotals& t) {
  const ReplayStatsSnapshot& st = result.replay;
  auto by = [&](ReplayStrategyKind k) { return st.containers_by_strategy[static_cast<int>(k)]; };
  char timing[128];
  std::snprintf(timing, sizeof(timing), "%.3fs (user %.3fs, sys %.3fs)", result.timing.wall_s,
                result.timing.user_s, result.timing.sys_s);
  LOG(INFO) << "Opened " << t.counted << " log block containers in " << timing << ": " << t.live
            << " live blocks, " << t.live_bytes << " live bytes, " << t.fatal
            << " fatal problems; replay: streaming=" << by(ReplayStrategyKind::kStreaming)
            << " inmemory=" << by(ReplayStrategyKind::kInMemory)
            << " encrypted_inmemory=" << by(ReplayStrategyKind::kEncryptedInMemory)
            << " windowed=" << by(ReplayStrategyKind::kWindowed) << " fallbacks=" << st.fallbacks
            << " metadata_read_syscalls=" << st.metadata_read_syscalls
            << " metadata_bytes_read=" << st.metadata_bytes_read
            << " peak_buffer_bytes=" << st.peak_buffer_bytes << " of budget "
            << st.memory_budget_bytes << " readahead=" << ReadaheadModeName(st.readahead_mode)
            << " readahead_files=" << st.readahead_files
            << " readahead_bytes=" << st.readahead_bytes
            << " direct_reads=" << st.direct_reads << " cached_whole_reads=" << st.cache_probe_hits
            << " uncached_whole_reads=" << st.cache_probe_misses
            << " replay_threads_held_back=" << st.replay_threads_held_back;
}

void Repair(const ServerKey* key, ReplayStats* stats, OpenResult* result) {
  result->repaired = true;
  RepairInput in;
  in.server_key = key;
  in.containers = &result->containers;
  in.fatal_outside_containers = !result->dir_problems.empty();
  in.block_map = result->block_map.get();
  in.temporary_files = &result->prepared->temp_files;
  in.stats = stats;
  Status s = RepairContainers(in, &result->repairs);
  // The report says, entry by entry, what this run repaired.
  const std::vector<ContainerRepair>& reps = result->repairs.containers;
  for (size_t i = 0; i < reps.size() && i < result->containers.size(); i++) {
    ContainerInfo& c = result->containers[i];
    c.repaired_dead = reps[i].dead_deleted;
    c.repaired_extra_space = reps[i].extra_space_repaired;
    c.repaired_partial_record = reps[i].partial_record_truncated;
    c.repaired_incomplete = reps[i].incomplete_deleted;
    c.repaired_compaction = reps[i].compacted;
    c.punched_blocks = reps[i].punched_blocks;
  }
  // The rescans of rewritten containers read metadata too.
  result->replay.metadata_read_syscalls = stats->metadata_read_syscalls.load();
  result->replay.metadata_bytes_read = stats->metadata_bytes_read.load();
  if (!s.ok()) LOG(ERROR) << "Repair stopped: " << s.ToString();
}

// The block map sized once for every CREATE record the files can hold, so
// that merges do not rehash it shard by shard as it fills (allocated once
// the replay threads run). Estimated file by file, as the merges note each
// container's share (BlockMap::NoteReplayed): the cap on one file's estimate
// must not cap the whole map, or a server with more live blocks than one
// file could hold would grow every shard while it merges.
void ReserveBlockMap(const ContainerInfos& containers, BlockMap* map) {
  uint64_t records = 0;
  for (const ContainerInfo& c : containers) {
    records += EstimatedCreateRecords(c);
  }
  map->Reserve(records);
}

}  // namespace

Status OpenBlockManager(const BlockManagerOpenOptions& given_opts, OpenResult* result) {
  *result = OpenResult();
  const auto wall_start = std::chrono::steady_clock::now();
  const CpuTimes cpu_start = ProcessCpuTimes();
  auto usage_failure = [&](Status s) {
    result->status = std::move(s);
    result->failure = OpenResult::Failure::kUsage;
    // Not logged: the caller prints it, as the one line an operator sees.
    return result->status;
  };
  if (given_opts.data_dirs.empty()) {
    return usage_failure(Status::InvalidArgument("no data dirs given"));
  }
  // Every dir checked before anything reads or locks one of them.
  for (const std::string& root : given_opts.data_dirs) {
    Status s = CheckDataDir(root);
    if (!s.ok()) return usage_failure(s);
  }
  // Instance files, key, locks, temporary files: before any record is read.
  result->prepared.reset(new PreparedDataDirs());
  {
    PrepareDataDirsOptions p;
    p.data_roots = given_opts.data_dirs;
    p.other_roots = given_opts.other_roots;
    p.given_key = given_opts.server_key;
    p.encrypt_data_at_rest = given_opts.encrypt_data_at_rest;
    p.read_write = given_opts.repair;
    Status s = PrepareDataDirs(p, result->prepared.get());
    if (!s.ok()) {
      if (result->prepared->usage_failure()) return usage_failure(s);
      result->status = s;
      result->failure = OpenResult::Failure::kInstance;
      return s;
    }
    result->leftover_tmp_files = result->prepared->temp_files.found;
  }
  BlockManagerOpenOptions prepared_opts = given_opts;
  prepared_opts.server_key = result->prepared->server_key;
  const BlockManagerOpenOptions& opts = prepared_opts;
  result->data_dirs = opts.data_dirs;
  result->encrypted = opts.server_key != nullptr && !opts.server_key->empty();
  const ServerKey* key = result->encrypted ? opts.server_key : nullptr;

  // Every dir listed first: cheap, and it fixes the containers' order (and
  // so their indices in the block map) before any thread starts.
  // The block size every offset is aligned to: the flag's, else the one
  // block_manager_instance records, else the filesystem's.
  std::vector<uint64_t> block_sizes = result->prepared->instance.fs_block_sizes;
  if (opts.fs_block_size != 0) block_sizes.assign(opts.data_dirs.size(), opts.fs_block_size);
  // The listing's stats are kernel work, CPU-bound on a warm cache: more
  // threads than cores would only queue.
  const int stat_threads = static_cast<int>(std::min<uint64_t>(
      static_cast<uint64_t>(opts.threads_per_dir) * opts.data_dirs.size(),
      static_cast<uint64_t>(std::max(1, opts.cpus))));
  ContainerListing listing;
  Status s = ListDataDirs(opts.data_dirs, block_sizes, result->encrypted, stat_threads, &listing,
                          &result->prepared->data_dir_names,
                          DescriptorsReservedFor(static_cast<size_t>(opts.threads_per_dir) *
                                                 opts.data_dirs.size()));
  // Not needed again, and a large server's names are megabytes.
  std::vector<std::optional<std::vector<std::string>>>().swap(result->prepared->data_dir_names);
  result->fs_block_sizes = std::move(listing.fs_block_sizes);
  result->containers = std::move(listing.containers);
  result->dir_problems = std::move(listing.unlisted_dirs);
  if (!s.ok()) return usage_failure(s);

  SharedOpenState shared(opts, key);
  shared.data_dir_fds = &listing.data_dirs.fds();
  shared.metadata_files = &listing.metadata_files;
  shared.total = result->containers.size();
  shared.progress.reset(new OpenProgress(shared.total, opts.progress_every, &shared.stats));
  shared.stats.Add(shared.stats.metadata_read_syscalls,
                   result->prepared->key_check_reads.syscalls);
  shared.stats.Add(shared.stats.metadata_bytes_read, result->prepared->key_check_reads.bytes);
  ReserveBlockMap(result->containers, shared.map.get());
  const ReadaheadMode readahead_ran = ReplayAllDirs(&shared, &result->containers);
  // What the replay did not take (containers it did not replay) is closed
  // now, before a repair rewrites or deletes any of those files.
  listing.metadata_files.Reset({});

  // Everything below runs on this thread, in container order.
  if (!shared.conflicts.conflicts().empty()) {
    ReportDuplicates(shared.conflicts.conflicts(), key, &result->containers, &shared.stats);
  }
  if (const ContainerProblem* p = ResourceProblem(*result)) {
    result->failure = OpenResult::Failure::kResource;
    result->status = Status::IOError(
        p->status.message(),
        p->status.posix_code() == ENOMEM
            ? "the process ran out of memory; nothing is known of the on-disk state"
            : "the process ran out of file descriptors (raise `ulimit -n` or lower "
              "--fs_max_thread_count_per_data_dir); nothing is known of the on-disk state",
        p->status.posix_code());
    LOG(ERROR) << result->status.ToString();
    return result->status;
  }
  FinishContainers(result);
  Snapshot(shared, &result->replay);
  result->replay.readahead_mode = readahead_ran;
  const OpenTotals totals = CollectProblems(result);
  if (totals.fatal == 0) result->block_map = std::move(shared.map);
  const CpuTimes cpu_end = ProcessCpuTimes();
  result->timing.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  result->timing.user_s = cpu_end.user - cpu_start.user;
  result->timing.sys_s = cpu_end.sys - cpu_start.sys;
  LogOpenSummary(*result, totals);

  if (opts.repair) Repair(key, &shared.stats, result);
  return result->status;
}

}  // namespace fs
}  // namespace kudu
