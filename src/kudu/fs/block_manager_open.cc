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
#include <atomic>
#include <chrono>
#include <cstring>
#include <cinttypes>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "kudu/fs/block_id.h"
#include "kudu/fs/container_replayer.h"
#include "kudu/fs/container_writer.h"
#include "kudu/fs/final_merges.h"
#include "kudu/fs/live_record_scan.h"
#include "kudu/fs/replay_stats.h"
#include "kudu/util/byte_budget.h"
#include "kudu/util/env.h"
#include "kudu/util/process_cpu_times.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/thread_pool.h"

DEFINE_int32(fs_max_thread_count_per_data_dir, 8,
             "Threads per data dir that replay container metadata when the block manager "
             "opens. Each data dir has its own pool, so one slow disk does not hold up the "
             "others; within a dir, more threads overlap I/O waits with parsing.");
DEFINE_double(log_container_live_metadata_before_compact_ratio, 0.50,
              "A full log block container whose live/total block ratio is at or below this "
              "has its metadata rewritten by a repair with only its live CREATE records, so "
              "the next startup replays fewer records.");

namespace kudu {
namespace fs {

const char* ContainerProblemKindName(ContainerProblem::Kind kind) {
  switch (kind) {
    case ContainerProblem::Kind::kCorruption: return "corruption";
    case ContainerProblem::Kind::kIOError: return "io_error";
    case ContainerProblem::Kind::kMissingData: return "missing_data_file";
    case ContainerProblem::Kind::kMissingMetadata: return "missing_metadata_file";
    case ContainerProblem::Kind::kDuplicateId: return "duplicate_block_id";
  }
  return "?";
}

BlockManagerOpenOptions::BlockManagerOpenOptions()
    : threads_per_dir(FLAGS_fs_max_thread_count_per_data_dir),
      max_container_size(FLAGS_log_container_max_size),
      max_container_blocks(FLAGS_log_container_max_blocks),
      live_ratio_before_compact(FLAGS_log_container_live_metadata_before_compact_ratio) {
  ReadaheadOptions ra;
  if (ReadaheadOptions::FromFlags(&ra).ok()) readahead = ra;
}

namespace {

constexpr char kDataSuffix[] = ".data";
constexpr char kMetadataSuffix[] = ".metadata";

bool EndsWith(const std::string& s, const char* suffix, size_t n) {
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// A block id live in two containers, as the merge met it.
struct Conflict {
  uint64_t id;
  uint32_t first;   // container index already in the map
  uint32_t second;  // container index that tried to add it
};

// What every replay thread of every dir shares.
struct SharedOpenState {
  SharedOpenState(const BlockManagerOpenOptions& o)
      : opts(o), budget(o.policy.memory_budget_bytes), map(new BlockMap()) {}
  const BlockManagerOpenOptions& opts;
  ByteBudget budget;
  ReplayStats stats;
  std::unique_ptr<BlockMap> map;
  std::mutex conflicts_mu;
  std::vector<Conflict> conflicts;
  std::atomic<uint64_t> processed{0};
};

// One replay thread's live blocks waiting to be merged into the block map.
// Containers are merged only after their replay has ended, a batch of
// containers at a time, so that the map's shard locks are taken once per
// batch rather than once per block (or per small container).
struct MergeBuffer {
  // Flush once this many blocks are waiting: a few MiB per thread.
  static constexpr size_t kFlushBlocks = 1 << 16;
  BlockMap::Batch items;
  // The containers' live blocks the batch points into, kept until it is
  // inserted.
  std::vector<std::vector<LiveBlock>> pending;
  std::vector<BlockMap::Rejected> rejected;
};

void RecordConflicts(SharedOpenState* shared, MergeBuffer* buf) {
  if (buf->rejected.empty()) return;
  std::lock_guard<std::mutex> l(shared->conflicts_mu);
  for (const BlockMap::Rejected& r : buf->rejected) {
    shared->conflicts.push_back(Conflict{r.id, r.held_by, r.rejected_from});
  }
  buf->rejected.clear();
}

void FlushMergeBuffer(SharedOpenState* shared, MergeBuffer* buf) {
  if (buf->items.size() > 0) shared->map->InsertBatch(&buf->items, &buf->rejected);
  buf->pending.clear();
  RecordConflicts(shared, buf);
}

// An upper estimate of the CREATE records in `payload` metadata bytes, to
// size hash maps once: a CREATE record as every writer emits it takes at
// least ~42 bytes (8-byte v2 prefix, 11-byte block id, op, timestamp,
// offset, length, 4-byte CRC). Capped, so a huge file cannot make a huge
// reservation; past the cap the maps grow as usual.
uint64_t EstimatedCreateRecords(uint64_t payload) {
  return std::min<uint64_t>(payload / 42, 1ULL << 22);
}


// The checks before anything is listed. Every failure here is about how the
// tool was called (a wrong path), not about the on-disk state.
Status CheckDataDir(const std::string& root) {
  bool is_dir = false;
  Status s = env::IsDirectory(root, &is_dir);
  if (s.IsNotFound()) return Status::NotFound("data dir " + root + " does not exist");
  RETURN_NOT_OK_PREPEND(s, "data dir " + root);
  if (!is_dir) return Status::InvalidArgument("data dir " + root + " is not a directory");
  const std::string data = LogBlockContainerWriter::DataDir(root);
  s = env::IsDirectory(data, &is_dir);
  if (s.IsNotFound() || (s.ok() && !is_dir)) {
    return Status::NotFound("data dir " + root + " has no data/ subdirectory (" + data +
                            "): not a log block manager data dir");
  }
  RETURN_NOT_OK_PREPEND(s, "data dir " + root);
  return Status::OK();
}

// Lists <root>/data/ and pairs its files into containers (sizes included).
Status ListContainers(uint32_t dir_index, const std::string& root, uint64_t fs_block_size,
                      bool encrypted, std::vector<ContainerInfo>* containers,
                      std::vector<std::string>* tmp_files) {
  const std::string data_dir = LogBlockContainerWriter::DataDir(root);
  std::vector<std::string> names;
  RETURN_NOT_OK_PREPEND(env::ListDir(data_dir, &names), "cannot list data dir");
  std::map<std::string, ContainerInfo> by_id;  // ordered: deterministic
  for (const std::string& name : names) {
    std::string id, tmp_id;
    bool is_metadata = false;
    if (ParseContainerFileName(name, &id, &is_metadata)) {
      ContainerInfo& c = by_id[id];
      const std::string path = env::JoinPath(data_dir, name);
      uint64_t size = 0;
      Status s = env::GetFileSize(path, &size);
      if (s.IsNotFound()) continue;  // deleted since the listing: as if absent
      RETURN_NOT_OK(s);
      if (is_metadata) {
        c.has_metadata = true;
        c.metadata_size = size;
      } else {
        c.has_data = true;
        c.data_size = size;
      }
    } else if (IsTempMetadataName(name, &tmp_id)) {
      tmp_files->push_back(env::JoinPath(data_dir, name));
    }
    // Anything else (block_manager_instance, stray files) is not ours.
  }
  for (auto& kv : by_id) {
    ContainerInfo c = std::move(kv.second);
    if (!c.has_data && !c.has_metadata) continue;
    c.dir_index = dir_index;
    c.id = kv.first;
    c.path = env::JoinPath(data_dir, c.id);
    c.data_path = LogBlockContainerWriter::DataPath(root, c.id);
    c.metadata_path = LogBlockContainerWriter::MetadataPath(root, c.id);
    c.encrypted = encrypted;
    c.fs_block_size = fs_block_size;
    containers->push_back(std::move(c));
  }
  return Status::OK();
}

void AddProblem(ContainerInfo* c, ContainerProblem::Kind kind, const std::string& file,
                uint64_t offset, Status status, uint64_t block_id = 0) {
  c->problems.push_back(ContainerProblem{kind, file, offset, std::move(status), block_id});
}

// Replays one container and queues its live blocks for the merge. Runs on
// a pool thread; touches only `*c`, `*merge` and the thread-safe parts of
// `shared`.
// Whether ProcessContainer will open and replay `c`'s metadata file (the
// checks it makes before opening it).
bool WillReplay(const ContainerInfo& c) {
  const uint64_t header = c.encrypted ? kEncryptionHeaderSize : 0;
  const uint64_t min_metadata = pb_container::kMinimumValidLength + header;
  if (c.metadata_size < min_metadata && c.data_size <= header) return false;
  return c.has_metadata;
}

void ProcessContainer(uint32_t index, ContainerInfo* c, ContainerReplayer* replayer,
                      SharedOpenState* shared, MergeBuffer* merge, PrefetchedBytes prefetched) {
  const BlockManagerOpenOptions& opts = shared->opts;
  const uint64_t header = c->encrypted ? kEncryptionHeaderSize : 0;
  const uint64_t min_metadata = pb_container::kMinimumValidLength + header;

  // §4: a crash while creating the container. A missing file counts as
  // size 0.
  if (c->metadata_size < min_metadata && c->data_size <= header) {
    c->incomplete = true;
    c->incomplete_reason =
        !c->has_metadata ? "no metadata file, and the data file holds no block"
        : !c->has_data   ? "metadata file shorter than a container header, and no data file"
                         : "metadata file shorter than a container header, and the data file "
                           "holds no block";
    return;
  }
  if (!c->has_metadata) {
    AddProblem(c, ContainerProblem::Kind::kMissingMetadata, c->data_path, 0,
               Status::Corruption(c->data_path + ": data file of " +
                                  std::to_string(c->data_size) + " bytes has no metadata file (" +
                                  c->metadata_path + " is missing)"));
    return;
  }

  std::unique_ptr<RandomAccessFile> file;
  Status s = RandomAccessFile::Open(c->metadata_path, opts.server_key, &file);
  if (!s.ok()) {
    AddProblem(c, s.IsCorruption() ? ContainerProblem::Kind::kCorruption
                                   : ContainerProblem::Kind::kIOError,
               c->metadata_path, 0, s);
    return;
  }
  // Bytes read ahead for this file (uring read-ahead): its reads are served
  // from them, each still one read for the fault injector.
  if (!prefetched.empty()) file->AdoptPrefetched(std::move(prefetched));
  // Without a data file, bounds against its size mean nothing: replay the
  // records as they are to learn whether they leave live blocks (an error:
  // the blocks' bytes are gone) or not (an incomplete container).
  ContainerReplayState state(c->has_data ? c->data_size : UINT64_MAX, header, c->fs_block_size);
  // Sized once for the most CREATE records the file can hold, so that the
  // live map does not rehash as it fills.
  state.Reserve(EstimatedCreateRecords(c->metadata_size - std::min(c->metadata_size, header)));
  ContainerReplayResult r = replayer->Replay(file.get(), &state);
  file.reset();  // one metadata file open per thread at most
  c->replayed = true;
  c->outcome = r.outcome;
  c->strategy = r.chosen;
  c->fell_back = r.fell_back;

  if (r.outcome.kind == ReplayOutcome::Kind::kCorruption) {
    AddProblem(c, ContainerProblem::Kind::kCorruption, c->metadata_path, r.outcome.offset,
               r.outcome.status);
  } else if (r.outcome.kind == ReplayOutcome::Kind::kIOError) {
    AddProblem(c, ContainerProblem::Kind::kIOError, c->metadata_path, r.outcome.offset,
               r.outcome.status);
  }

  if (!c->has_data && !c->fatal()) {
    if (state.live_count() == 0) {
      c->incomplete = true;
      c->incomplete_reason = "metadata file without a data file, and no live block";
      c->outcome = ReplayOutcome();  // its tail does not matter: repair deletes it
      return;
    }
    AddProblem(c, ContainerProblem::Kind::kMissingData, c->metadata_path, 0,
               Status::Corruption(c->metadata_path + ": data file " + c->data_path +
                                  " is missing, but the metadata has " +
                                  std::to_string(state.live_count()) + " live blocks"));
  }

  c->malformed = state.malformed();
  c->live_blocks = state.live_count();
  c->live_bytes = state.live_bytes();
  c->live_bytes_aligned = state.live_bytes_aligned();
  c->total_blocks = state.total_blocks();
  c->next_write_offset = state.next_write_offset();
  c->has_max_block_id = state.has_max_block_id();
  c->max_block_id = state.max_block_id();
  c->full = c->next_write_offset >= opts.max_container_size ||
            (opts.max_container_blocks > 0 &&
             c->total_blocks >= static_cast<uint64_t>(opts.max_container_blocks));
  c->dead = c->full && c->live_blocks == 0;
  c->low_live = c->full && c->live_blocks > 0 &&
                static_cast<double>(c->live_blocks) <=
                    opts.live_ratio_before_compact * static_cast<double>(c->total_blocks);

  // Merge only now that the replay has ended (queued, then merged with the
  // thread's other containers). Blocks of a failed container are merged
  // too: the map is not published then, but a duplicate id is still worth
  // reporting.
  merge->pending.push_back(state.TakeLiveBlocks());
  const std::vector<LiveBlock>& blocks = merge->pending.back();
  merge->items.AddSorted(index, blocks.data(), blocks.size());
  if (merge->items.size() >= MergeBuffer::kFlushBlocks) FlushMergeBuffer(shared, merge);
}

// Turns the merge's conflicts into one problem per (id, container), each
// with the offset of the CREATE record that made the block live there.
void ReportDuplicates(const std::vector<Conflict>& conflicts, const ServerKey* key,
                      std::vector<ContainerInfo>* containers, ReplayStats* stats) {
  std::map<uint64_t, std::set<uint32_t>> holders;  // id → containers, both ordered
  for (const Conflict& c : conflicts) {
    holders[c.id].insert(c.first);
    holders[c.id].insert(c.second);
  }
  // One rescan per involved container.
  std::map<uint32_t, std::map<uint64_t, uint64_t>> offsets;  // container → id → record offset
  for (const auto& h : holders) {
    for (uint32_t ci : h.second) offsets[ci][h.first] = 0;
  }
  for (auto& o : offsets) {
    const ContainerInfo& c = (*containers)[o.first];
    LiveRecordScanParams p;
    p.metadata_path = c.metadata_path;
    p.server_key = key;
    p.data_file_size = c.has_data ? c.data_size : UINT64_MAX;
    p.fs_block_size = c.fs_block_size;
    LiveRecordScan scan;
    Status s = ScanLiveRecords(p, &scan);
    stats->Add(stats->metadata_read_syscalls, scan.io.read_syscalls);
    stats->Add(stats->metadata_bytes_read, scan.io.bytes_read);
    for (const LiveRecord& r : scan.live) {
      auto it = o.second.find(r.block_id);
      if (it != o.second.end()) it->second = r.offset;
    }
  }
  for (const auto& h : holders) {
    const std::string hex = BlockId(h.first).ToString();
    for (uint32_t ci : h.second) {
      ContainerInfo& c = (*containers)[ci];
      const uint64_t offset = offsets[ci][h.first];
      std::string others;
      for (uint32_t other : h.second) {
        if (other == ci) continue;
        others += (others.empty() ? "" : ", ") + (*containers)[other].path;
      }
      AddProblem(&c, ContainerProblem::Kind::kDuplicateId, c.metadata_path, offset,
                 Status::Corruption(c.metadata_path + ": record at offset " +
                                    std::to_string(offset) + ": block " + hex +
                                    " is live in container " + c.path +
                                    " and also in container " + others),
                 h.first);
    }
  }
}

bool MessageHas(const Status& s, const char* what) {
  return s.message().find(what) != std::string::npos;
}

// A wrong key, a key for a plain dir, or no key for an encrypted dir look
// like damage in every file; they are a usage error, said once.
Status DetectKeyMisuse(const BlockManagerOpenOptions& opts,
                       const std::vector<ContainerInfo>& containers) {
  if (opts.server_key == nullptr) {
    for (const ContainerInfo& c : containers) {
      for (const ContainerProblem& p : c.problems) {
        if (p.status.IsNotSupported()) return p.status;
      }
    }
    return Status::OK();
  }
  uint64_t attempted = 0, bad_magic = 0, no_header = 0;
  const ContainerInfo* first = nullptr;
  for (const ContainerInfo& c : containers) {
    if (c.incomplete || !c.has_metadata) continue;
    attempted++;
    if (first == nullptr) first = &c;
    for (const ContainerProblem& p : c.problems) {
      if (p.offset == kEncryptionHeaderSize && MessageHas(p.status, "bad PB container magic")) {
        bad_magic++;
        break;
      }
      if (MessageHas(p.status, "no valid encryption header")) {
        no_header++;
        break;
      }
    }
  }
  if (attempted == 0) return Status::OK();
  if (bad_magic == attempted) {
    return Status::InvalidArgument(
        first->metadata_path + ": offset 64: bad PB container magic right after the encryption "
        "header (in all " + std::to_string(attempted) +
        " containers): wrong server key? (--server_key_hex)");
  }
  if (no_header == attempted) {
    return Status::InvalidArgument(
        first->metadata_path + ": offset 0: no encryption header (in all " +
        std::to_string(attempted) +
        " containers): the data dirs are not encrypted, but a server key was given");
  }
  return Status::OK();
}

// Before any replay: a missing, wrong or superfluous key would make every
// container fail (and the accelerated strategies fall back and log for
// each); recognise it from the first bytes of the metadata files instead and
// say it once. Probes containers in order until one looks right, so a good
// key costs one small read, and a wrong one one read per container. The
// reads count as metadata reads.
Status ProbeKey(const ServerKey* key, const std::vector<ContainerInfo>& containers,
                ReplayStats* stats) {
  enum Verdict { kFine, kEncryptedNoKey, kNoHeader, kBadMagic };
  constexpr size_t kProbe = kEncryptionHeaderSize + pb_container::kMagicSize;
  uint64_t probed = 0, no_header = 0, bad_magic = 0;
  const ContainerInfo* first = nullptr;
  for (const ContainerInfo& c : containers) {
    const uint64_t need = (key != nullptr ? kEncryptionHeaderSize : 0) + pb_container::kHeaderReadSize;
    if (!c.has_metadata || c.metadata_size < need) continue;
    std::unique_ptr<RandomAccessFile> file;
    if (!RandomAccessFile::Open(c.metadata_path, nullptr, &file).ok()) return Status::OK();
    uint8_t buf[kProbe];
    const size_t n = std::min<uint64_t>(kProbe, file->size());
    Status s = file->ReadRaw(0, buf, n);
    stats->Add(stats->metadata_read_syscalls, file->stats().read_syscalls);
    stats->Add(stats->metadata_bytes_read, file->stats().bytes_read);
    if (!s.ok()) return Status::OK();  // not a key problem: the open reports it
    const bool enc_magic = HasEncryptionMagic(Slice(buf, n));
    Verdict v = kFine;
    if (key == nullptr) {
      v = enc_magic ? kEncryptedNoKey : kFine;
    } else if (!enc_magic) {
      v = kNoHeader;
    } else if (n == kProbe) {
      CipherAlgorithm alg;
      std::string file_key;
      std::unique_ptr<FileCipher> cipher;
      uint8_t magic[pb_container::kMagicSize];
      if (ParseEncryptionHeader(c.metadata_path, Slice(buf, kEncryptionHeaderSize), *key, &alg,
                                &file_key).ok() &&
          FileCipher::Create(alg, file_key, &cipher).ok() &&
          cipher->Crypt(kEncryptionHeaderSize, buf + kEncryptionHeaderSize, magic,
                        sizeof(magic)).ok()) {
        v = std::memcmp(magic, pb_container::kMagic, sizeof(magic)) == 0 ? kFine : kBadMagic;
      }
    }
    if (v == kEncryptedNoKey) {
      return Status::NotSupported(c.metadata_path +
                                  ": file is encrypted but no server key was given "
                                  "(--server_key_hex)");
    }
    if (v == kFine) return Status::OK();
    probed++;
    if (first == nullptr) first = &c;
    if (v == kNoHeader) no_header++;
    if (v == kBadMagic) bad_magic++;
  }
  if (probed > 0 && bad_magic == probed) {
    return Status::InvalidArgument(
        first->metadata_path +
        ": offset 64: bad PB container magic right after the encryption header (in all " +
        std::to_string(probed) + " containers): wrong server key? (--server_key_hex)");
  }
  if (probed > 0 && no_header == probed) {
    return Status::InvalidArgument(
        first->metadata_path + ": offset 0: no encryption header (in all " +
        std::to_string(probed) +
        " containers): the data dirs are not encrypted, but a server key was given");
  }
  return Status::OK();
}

void Snapshot(const SharedOpenState& shared, ReplayStatsSnapshot* out) {
  for (int k = 0; k < ReplayStats::kKinds; k++) {
    out->containers_by_strategy[k] = shared.stats.containers_by_strategy[k].load();
  }
  out->fallbacks = shared.stats.fallbacks.load();
  out->metadata_read_syscalls = shared.stats.metadata_read_syscalls.load();
  out->metadata_bytes_read = shared.stats.metadata_bytes_read.load();
  out->records = shared.stats.records.load();
  out->budget_waits = shared.stats.budget_waits.load();
  out->budget_wait_timeouts = shared.stats.budget_wait_timeouts.load();
  out->peak_buffer_bytes = shared.budget.peak();
  out->memory_budget_bytes = shared.budget.total();
  out->readahead_files = shared.stats.readahead_files.load();
  out->readahead_bytes = shared.stats.readahead_bytes.load();
  out->readahead_skipped = shared.stats.readahead_skipped.load();
  out->readahead_failed = shared.stats.readahead_failed.load();
  out->prefetched_reads = shared.stats.prefetched_reads.load();
  out->direct_reads = shared.stats.direct_reads.load();
}

}  // namespace

bool ParseContainerFileName(const std::string& name, std::string* id, bool* is_metadata) {
  const size_t kData = sizeof(kDataSuffix) - 1, kMeta = sizeof(kMetadataSuffix) - 1;
  if (EndsWith(name, kMetadataSuffix, kMeta)) {
    *id = name.substr(0, name.size() - kMeta);
    *is_metadata = true;
  } else if (EndsWith(name, kDataSuffix, kData)) {
    *id = name.substr(0, name.size() - kData);
    *is_metadata = false;
  } else {
    return false;
  }
  return LogBlockContainerWriter::IsValidId(*id);
}

Status OpenBlockManager(const BlockManagerOpenOptions& opts, OpenResult* result) {
  *result = OpenResult();
  const auto wall_start = std::chrono::steady_clock::now();
  const CpuTimes cpu_start = ProcessCpuTimes();
  auto usage_failure = [&](Status s) {
    result->status = std::move(s);
    result->failure = OpenResult::Failure::kUsage;
    // Not logged: the caller prints it, as the one line an operator sees.
    return result->status;
  };

  if (opts.data_dirs.empty()) return usage_failure(Status::InvalidArgument("no data dirs given"));
  result->data_dirs = opts.data_dirs;
  result->encrypted = opts.server_key != nullptr && !opts.server_key->empty();
  const ServerKey* key = result->encrypted ? opts.server_key : nullptr;

  // List every dir first: cheap, and it fixes the containers' order (and so
  // their indices in the block map) before any thread starts.
  for (uint32_t d = 0; d < opts.data_dirs.size(); d++) {
    const std::string& root = opts.data_dirs[d];
    Status s = CheckDataDir(root);
    if (!s.ok()) return usage_failure(s);
    uint64_t block_size = opts.fs_block_size;
    if (block_size == 0) {
      s = env::GetBlockSize(LogBlockContainerWriter::DataDir(root), &block_size);
      if (!s.ok() || block_size == 0) {
        LOG(WARNING) << "Cannot learn the filesystem block size of " << root << " ("
                     << s.ToString() << "); assuming 4096";
        block_size = 4096;
      }
    }
    result->fs_block_sizes.push_back(block_size);
    s = ListContainers(d, root, block_size, result->encrypted, &result->containers,
                       &result->leftover_tmp_files);
    if (!s.ok()) return usage_failure(s);
  }
  std::sort(result->containers.begin(), result->containers.end(),
            [](const ContainerInfo& a, const ContainerInfo& b) { return a.path < b.path; });
  std::sort(result->leftover_tmp_files.begin(), result->leftover_tmp_files.end());
  std::vector<ContainerInfo>& containers = result->containers;
  const uint64_t total = containers.size();
  SharedOpenState shared(opts);
  Status probe = ProbeKey(key, containers, &shared.stats);
  if (!probe.ok()) {
    Snapshot(shared, &result->replay);
    return usage_failure(probe);
  }

  // The block map sized once for every CREATE record the files can hold,
  // so that merges do not rehash it shard by shard as it fills (sized here,
  // allocated below).
  {
    uint64_t payload = 0;
    for (const ContainerInfo& c : containers) {
      const uint64_t header = c.encrypted ? kEncryptionHeaderSize : 0;
      if (c.has_metadata) payload += c.metadata_size - std::min(c.metadata_size, header);
    }
    shared.map->Reserve(EstimatedCreateRecords(payload));
  }

  // Replay: one pool per dir, one ContainerReplayer and merge buffer per
  // pool thread; the dir's read-ahead runs ahead of the pool's cursor.
  {
    std::vector<std::vector<uint32_t>> by_dir(opts.data_dirs.size());
    for (uint32_t i = 0; i < total; i++) by_dir[containers[i].dir_index].push_back(i);
    std::vector<std::unique_ptr<ThreadPool>> pools;
    std::vector<std::unique_ptr<std::atomic<size_t>>> cursors;
    // One per dir with more containers than replay threads (otherwise the
    // first wave claims them all at once); cleared once the pools are done
    // (every position claimed by then).
    std::vector<std::unique_ptr<DirReadahead>> readaheads;
    auto threads_for_dir = [&opts, &by_dir](size_t d) {
      return by_dir[d].empty() ? 0
                               : std::max(1, std::min<int>(opts.threads_per_dir,
                                                           static_cast<int>(by_dir[d].size())));
    };
    size_t replay_threads = 0;
    for (size_t d = 0; d < by_dir.size(); d++) replay_threads += threads_for_dir(d);
    // Every replay thread's last merge, shared with the threads that have
    // finished (final_merges.h): the slowest thread's last container is the
    // tail of the open.
    FinalMerges final_merges(shared.map.get(), replay_threads);
    for (size_t d = 0; d < by_dir.size(); d++) {
      if (by_dir[d].empty()) continue;
      const int threads = threads_for_dir(d);
      DirReadahead* ra = nullptr;
      if (opts.readahead.mode != ReadaheadMode::kNone &&
          opts.readahead.containers_per_thread > 0 &&
          by_dir[d].size() > static_cast<size_t>(threads)) {
        std::vector<DirReadahead::Entry> queue;
        queue.reserve(by_dir[d].size());
        for (uint32_t i : by_dir[d]) {
          const ContainerInfo& c = containers[i];
          DirReadahead::Entry e;
          if (WillReplay(c)) {
            e.path = c.metadata_path;
            e.bytes = ReadaheadBytesFor(c.metadata_size, c.encrypted ? kEncryptionHeaderSize : 0,
                                        opts.policy.inmem_threshold_bytes,
                                        opts.policy.window_bytes);
          }
          queue.push_back(std::move(e));
        }
        readaheads.emplace_back(new DirReadahead(opts.readahead, std::move(queue), threads,
                                                 &shared.budget, &shared.stats));
        ra = readaheads.back().get();
        result->replay.readahead_mode = ra->mode();
      }
      pools.emplace_back(new ThreadPool("replay-dir-" + std::to_string(d), threads));
      cursors.emplace_back(new std::atomic<size_t>(0));
      const std::vector<uint32_t>* work = &by_dir[d];
      std::atomic<size_t>* cursor = cursors.back().get();
      for (int t = 0; t < threads; t++) {
        pools.back()->Submit([&opts, &shared, &containers, &final_merges, work, cursor, total, ra] {
          ContainerReplayer replayer(opts.policy, &shared.budget, &shared.stats,
                                     opts.strategy_factory);
          MergeBuffer merge;
          while (true) {
            const size_t k = cursor->fetch_add(1);
            if (k >= work->size()) break;
            const uint32_t index = (*work)[k];
            PrefetchedBytes prefetched = ra != nullptr ? ra->Claim(k) : PrefetchedBytes();
            ProcessContainer(index, &containers[index], &replayer, &shared, &merge,
                             std::move(prefetched));
            const uint64_t n = shared.processed.fetch_add(1) + 1;
            if (opts.progress_every > 0 && n % opts.progress_every == 0) {
              LOG(INFO) << "Opened " << n << " log block containers (of " << total << ")";
            }
          }
          final_merges.Finish(&merge.items, &merge.rejected);
          merge.pending.clear();
          RecordConflicts(&shared, &merge);
        });
      }
    }
    // The block map's memory, allocated and touched by this thread while
    // the replay threads wait for their first reads, not before they start
    // (it would delay the first metadata read of a cold start) nor by the
    // merges (a shard a merge reaches first allocates itself).
    shared.map->Allocate();
    // Logged once the replay threads run: glog's timestamp can cost a disk
    // read after a reboot (glibc stats /etc/localtime), which would
    // otherwise delay every replay.
    LOG(INFO) << "Opening " << total << " log block containers in " << opts.data_dirs.size()
              << " data dirs (" << opts.threads_per_dir << " threads per dir, replay strategy "
              << StrategyChoiceName(opts.policy.choice) << ")";
    for (auto& p : pools) p->Wait();
    // Every position was claimed: the read-aheads end (uring: their I/O
    // threads exit) before the budget and stats they use go away.
    readaheads.clear();
  }

  // Everything below runs on this thread, in container order.
  if (!shared.conflicts.empty()) {
    ReportDuplicates(shared.conflicts, key, &containers, &shared.stats);
  }
  for (ContainerInfo& c : containers) {
    std::stable_sort(c.problems.begin(), c.problems.end(),
                     [](const ContainerProblem& a, const ContainerProblem& b) {
                       return a.offset < b.offset;
                     });
    if (c.has_max_block_id && (!result->has_max_block_id || c.max_block_id > result->max_block_id)) {
      result->has_max_block_id = true;
      result->max_block_id = c.max_block_id;
    }
  }
  result->next_block_id = result->has_max_block_id ? result->max_block_id + 1 : 1;
  {
    const ReadaheadMode ran = result->replay.readahead_mode;
    Snapshot(shared, &result->replay);
    result->replay.readahead_mode = ran;
  }

  Status misuse = DetectKeyMisuse(opts, containers);
  if (!misuse.ok()) return usage_failure(misuse);

  uint64_t fatal = 0, counted = 0, live = 0, live_bytes = 0;
  for (const ContainerInfo& c : containers) {
    if (c.counted()) counted++;
    live += c.live_blocks;
    live_bytes += c.live_bytes;
    for (const ContainerProblem& p : c.problems) {
      // The report lists them all; the log shows the first few.
      if (fatal < 10) LOG(ERROR) << p.status.ToString();
      if (fatal++ == 0) result->status = p.status;
    }
  }
  if (fatal > 10) LOG(ERROR) << "... and " << (fatal - 10) << " more fatal problems";
  if (fatal > 0) {
    result->failure = OpenResult::Failure::kInconsistent;
  } else {
    result->block_map = std::move(shared.map);
  }

  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                    wall_start).count();
  const CpuTimes cpu_end = ProcessCpuTimes();
  result->timing.wall_s = wall;
  result->timing.user_s = cpu_end.user - cpu_start.user;
  result->timing.sys_s = cpu_end.sys - cpu_start.sys;

  const ReplayStatsSnapshot& st = result->replay;
  auto by = [&](ReplayStrategyKind k) { return st.containers_by_strategy[static_cast<int>(k)]; };
  char timing[128];
  std::snprintf(timing, sizeof(timing), "%.3fs (user %.3fs, sys %.3fs)", result->timing.wall_s,
                result->timing.user_s, result->timing.sys_s);
  LOG(INFO) << "Opened " << counted << " log block containers in " << timing << ": " << live
            << " live blocks, " << live_bytes << " live bytes, " << fatal
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
            << " readahead_skipped=" << st.readahead_skipped
            << " prefetched_reads=" << st.prefetched_reads
            << " direct_reads=" << st.direct_reads;

  if (opts.repair) {
    result->repaired = true;
    RepairInput in;
    in.server_key = key;
    in.containers = &result->containers;
    in.leftover_tmp_files = &result->leftover_tmp_files;
    in.stats = &shared.stats;
    Status s = RepairContainers(in, &result->repairs);
    // The rescans of rewritten containers read metadata too.
    result->replay.metadata_read_syscalls = shared.stats.metadata_read_syscalls.load();
    result->replay.metadata_bytes_read = shared.stats.metadata_bytes_read.load();
    if (!s.ok()) LOG(ERROR) << "Repair stopped: " << s.ToString();
  }
  return result->status;
}

}  // namespace fs
}  // namespace kudu
