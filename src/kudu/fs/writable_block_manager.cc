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

// LogWritableBlockManager (fs/container_writer.h): the containers of several
// data dirs, block creation and deletion across them.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <utility>

#include <glog/logging.h>

#include "kudu/fs/container_writer.h"
#include "kudu/util/env.h"

namespace kudu {
namespace fs {

namespace {
constexpr int kMaxIdAttempts = 16;

Status DeletedTwice(BlockId id) {
  return Status::InvalidArgument("block " + id.ToString() + " is deleted twice in one batch");
}

uint64_t SeedOrEntropy(uint64_t seed) {
  if (seed != 0) return seed;
  std::random_device rd;
  uint64_t v = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  return v ^ static_cast<uint64_t>(
                 std::chrono::steady_clock::now().time_since_epoch().count());
}
}  // namespace

LogWritableBlockManager::LogWritableBlockManager(ContainerWriterOptions opts)
    : opts_(std::move(opts)),
      rng_(SeedOrEntropy(opts_.seed)),
      next_block_id_(opts_.first_block_id) {}

LogWritableBlockManager::~LogWritableBlockManager() {
  for (auto& c : containers_) (void)c->Close();
}

uint64_t LogWritableBlockManager::NowMicros() const {
  if (opts_.clock_us) return opts_.clock_us();
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

Status LogWritableBlockManager::Open() {
  if (opts_.data_dirs.empty()) return Status::InvalidArgument("no data dirs given");
  if (opts_.container_version != 1 && opts_.container_version != 2) {
    return Status::InvalidArgument("unsupported PB container version " +
                                   std::to_string(opts_.container_version));
  }
  if (opts_.server_key != nullptr && !opts_.server_key->empty()) {
    size_t n = opts_.server_key->bytes().size();
    if (n != 16 && n != 24 && n != 32) {
      return Status::InvalidArgument("server key must be 16, 24 or 32 bytes, got " +
                                     std::to_string(n));
    }
  }
  block_sizes_.clear();
  for (const std::string& root : opts_.data_dirs) {
    const std::string dir = LogBlockContainerWriter::DataDir(root);
    RETURN_NOT_OK(env::CreateDirs(dir));
    if (!env::IsWritableDir(dir)) return Status::IOError(dir + ": directory is not writable");
    uint64_t bs = opts_.fs_block_size;
    if (bs == 0) RETURN_NOT_OK(env::GetBlockSize(dir, &bs));
    block_sizes_.push_back(bs == 0 ? 4096 : bs);
  }
  open_limit_ = opts_.max_open_containers == 0
                    ? DefaultOpenContainers()
                    : std::max<size_t>(opts_.max_open_containers, 2);
  opened_ = true;
  return Status::OK();
}

size_t LogWritableBlockManager::DefaultOpenContainers() {
  size_t n = 64;
  struct rlimit limit;
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    const uint64_t fds = limit.rlim_cur == RLIM_INFINITY ? (uint64_t{1} << 20) : limit.rlim_cur;
    n = std::max<size_t>(n, static_cast<size_t>(fds / 4 / 2));
  }
  return n;
}

Status LogWritableBlockManager::Touch(LogBlockContainerWriter* c) {
  if (!open_lru_.empty() && open_lru_.front() == c) return Status::OK();
  auto it = open_pos_.find(c);
  if (it != open_pos_.end()) {
    open_lru_.splice(open_lru_.begin(), open_lru_, it->second);
    return Status::OK();
  }
  RETURN_NOT_OK(c->Reopen());
  open_lru_.push_front(c);
  open_pos_[c] = open_lru_.begin();
  // Close the least recently used containers beyond the limit, but never the
  // one being filled or the one just touched.
  auto victim = open_lru_.end();
  while (open_lru_.size() > open_limit_ && victim != open_lru_.begin()) {
    --victim;
    LogBlockContainerWriter* v = *victim;
    if (v == c || v == current_) continue;
    RETURN_NOT_OK(v->Close());
    open_pos_.erase(v);
    victim = open_lru_.erase(victim);
  }
  return Status::OK();
}

Status LogWritableBlockManager::RollContainer() {
  const size_t dir = next_dir_ % opts_.data_dirs.size();
  LogBlockContainerWriter::Params p;
  p.root = opts_.data_dirs[dir];
  p.fs_block_size = block_sizes_[dir];
  p.server_key = opts_.server_key;
  p.algorithm = opts_.algorithm;
  p.version = opts_.container_version;
  p.sync = opts_.sync;
  p.sparse_data = opts_.sparse_data;
  p.first_block_id = next_block_id_;
  // By creation order: a dead container deleted since leaves containers_.
  const size_t index = containers_created_;
  p.roll_after_blocks = index < opts_.container_block_limits.size()
                            ? opts_.container_block_limits[index]
                            : opts_.roll_after_blocks;
  const bool encrypted = opts_.server_key != nullptr && !opts_.server_key->empty();
  std::unique_ptr<LogBlockContainerWriter> c;
  Status s;
  for (int attempt = 0; attempt < kMaxIdAttempts; attempt++) {
    p.id = LogBlockContainerWriter::NewId(&rng_);
    if (encrypted && opts_.seed != 0) {
      p.data_file_key = rng_.Bytes(FileKeySize(opts_.algorithm));
      p.metadata_file_key = rng_.Bytes(FileKeySize(opts_.algorithm));
    }
    s = LogBlockContainerWriter::Create(p, &c);
    // An id collision (a seeded run over an old one, or sheer chance): draw
    // another id rather than touch a file that is not ours.
    if (s.ok() || !LogBlockContainerWriter::IsAlreadyExists(s)) break;
  }
  RETURN_NOT_OK(s);
  next_dir_++;
  containers_created_++;
  current_ = c.get();
  if (p.roll_after_blocks > 0) current_->live().Reserve(static_cast<size_t>(p.roll_after_blocks));
  containers_.push_back(std::move(c));
  first_ids_.push_back(p.first_block_id);
  return Touch(current_);
}

Status LogWritableBlockManager::CreateBlock(Slice data, BlockId* id) {
  std::vector<BlockId> ids;
  RETURN_NOT_OK(CreateBlocks({data}, &ids));
  *id = ids[0];
  return Status::OK();
}

Status LogWritableBlockManager::CommitCreates(LogBlockContainerWriter* c,
                                              std::vector<PendingCreate>* pending) {
  if (pending->empty()) return Status::OK();
  RETURN_NOT_OK(Touch(c));
  if (opts_.sync) RETURN_NOT_OK(c->SyncData());
  RETURN_NOT_OK(c->CommitRecords());
  if (opts_.sync) RETURN_NOT_OK(c->SyncMetadata());
  // Every id is new, so each is an append to the container's set.
  for (const PendingCreate& p : *pending) {
    c->live().Insert(p.id.id(), BlockLocation{p.offset, p.length});
  }
  live_count_ += pending->size();
  blocks_created_ += pending->size();
  pending->clear();
  return Status::OK();
}

Status LogWritableBlockManager::CreateBlocks(const std::vector<Slice>& data,
                                             std::vector<BlockId>* ids) {
  if (!opened_) return Status::IllegalState("block manager is not open");
  ids->clear();
  std::vector<PendingCreate>& pending = pending_;
  pending.clear();
  // One time for the records of one metadata write (one container's share
  // of the batch), as Kudu stamps them.
  const LogBlockContainerWriter* stamped = nullptr;
  uint64_t now = 0;
  for (const Slice& d : data) {
    if (current_ == nullptr) RETURN_NOT_OK(RollContainer());
    LogBlockContainerWriter* c = current_;
    if (c != stamped) {
      stamped = c;
      now = NowMicros();
    }
    int64_t offset = 0;
    RETURN_NOT_OK(Touch(c));
    RETURN_NOT_OK(c->AppendBlockData(d, &offset));
    data_bytes_written_ += d.size();
    const BlockId id(next_block_id_++);
    const int64_t length = static_cast<int64_t>(d.size());
    BlockRecord create;
    create.block_id = id.id();
    create.op_type = CREATE;
    create.has_offset = create.has_length = true;
    create.offset = offset;
    create.length = length;
    RETURN_NOT_OK(c->StageRecord(create, now));
    pending.push_back(PendingCreate{id, offset, length});
    ids->push_back(id);
    const bool full = IsFull(c);
    if (full || c->Rolled()) {
      // The container takes no more blocks: commit what went there and let
      // the next block start a new container. It stays the one being filled
      // until that is done: a commit that fails leaves block bytes without
      // their records, and AbandonUnfinished must delete it.
      RETURN_NOT_OK(CommitCreates(c, &pending));
      if (c->IsFull(opts_.max_container_size, opts_.max_container_blocks)) {
        RETURN_NOT_OK(c->TruncateDataToNextOffset());
      }
      current_ = nullptr;
    }
  }
  if (current_ != nullptr) RETURN_NOT_OK(CommitCreates(current_, &pending));
  return Status::OK();
}

Status LogWritableBlockManager::DeleteBlock(BlockId id) { return DeleteBlocks({id}); }

Status LogWritableBlockManager::DeleteBlocks(const std::vector<BlockId>& ids) {
  if (!opened_) return Status::IllegalState("block manager is not open");
  // Validate everything before writing anything, so a bad id leaves no trace.
  std::vector<LogBlockContainerWriter*>& owner = del_.owner;
  owner.clear();
  for (BlockId id : ids) {
    LogBlockContainerWriter* c = OwnerOf(id);
    if (c == nullptr) return Status::NotFound("block " + id.ToString() + " is not live");
    owner.push_back(c);
  }
  // Duplicates: a delete batch is a few ids, where comparing pairs beats
  // sorting a copy.
  constexpr size_t kSmallBatch = 16;
  if (ids.size() <= kSmallBatch) {
    for (size_t i = 0; i < ids.size(); i++) {
      for (size_t j = i + 1; j < ids.size(); j++) {
        if (ids[i] == ids[j]) return DeletedTwice(ids[i]);
      }
    }
  } else {
    std::vector<BlockId> sorted(ids);
    std::sort(sorted.begin(), sorted.end());
    auto dup = std::adjacent_find(sorted.begin(), sorted.end());
    if (dup != sorted.end()) return DeletedTwice(*dup);
  }
  // One metadata write per container, containers in order of first
  // appearance.
  std::vector<LogBlockContainerWriter*>& order = del_.order;
  order.clear();
  absl::flat_hash_map<LogBlockContainerWriter*, size_t> group_index;  // large batches only
  std::vector<size_t>& group_of = del_.group_of;
  group_of.clear();
  for (LogBlockContainerWriter* c : owner) {
    size_t g = order.size();
    if (ids.size() <= kSmallBatch) {
      g = static_cast<size_t>(std::find(order.begin(), order.end(), c) - order.begin());
    } else {
      g = group_index.emplace(c, order.size()).first->second;
    }
    if (g == order.size()) order.push_back(c);
    group_of.push_back(g);
  }
  std::vector<size_t>& by_group = del_.by_group;
  by_group.clear();
  for (size_t i = 0; i < ids.size(); i++) by_group.push_back(i);
  if (order.size() > 1) {
    std::stable_sort(by_group.begin(), by_group.end(),
                     [&](size_t a, size_t b) { return group_of[a] < group_of[b]; });
  }
  std::vector<BlockId>& group_ids = del_.group_ids;
  for (size_t k = 0; k < by_group.size();) {
    const size_t g = group_of[by_group[k]];
    group_ids.clear();
    for (; k < by_group.size() && group_of[by_group[k]] == g; k++) {
      group_ids.push_back(ids[by_group[k]]);
    }
    RETURN_NOT_OK(CommitDeletes(order[g], group_ids, NowMicros()));
  }
  return Status::OK();
}

Status LogWritableBlockManager::CommitDeletes(LogBlockContainerWriter* c,
                                              const std::vector<BlockId>& ids,
                                              uint64_t timestamp_us) {
  RETURN_NOT_OK(Touch(c));
  BlockRecord del;
  del.op_type = DELETE;
  for (BlockId id : ids) {
    del.block_id = id.id();
    RETURN_NOT_OK(c->StageRecord(del, timestamp_us));
  }
  RETURN_NOT_OK(c->CommitRecords());
  if (opts_.sync) RETURN_NOT_OK(c->SyncMetadata());
  // The records are written: the blocks are gone whatever happens next, so
  // the holes are only space reclamation, and a failed punch must not leave
  // a deleted block in the live set.
  std::vector<BlockLocation>& holes = del_.holes;
  holes.clear();
  for (BlockId id : ids) {
    BlockLocation b;
    c->live().Erase(id.id(), &b);
    holes.push_back(b);
  }
  live_count_ -= ids.size();
  blocks_deleted_ += ids.size();
  // A full container without live blocks is dead for good: Kudu deletes
  // its files rather than punch the holes (check_death_condition).
  if (opts_.delete_dead_containers && c->live().empty() && IsFull(c)) {
    return DeleteDeadContainer(c);
  }
  Status punch;
  for (const BlockLocation& b : holes) {
    Status s = c->PunchHole(b.offset, b.length);
    if (punch.ok() && !s.ok()) punch = s;
  }
  return punch;
}

Status LogWritableBlockManager::DeleteDeadContainer(LogBlockContainerWriter* c) {
  // Full by its metadata, the container being filled can die too.
  if (current_ == c) current_ = nullptr;
  auto pos = open_pos_.find(c);
  if (pos != open_pos_.end()) {
    open_lru_.erase(pos->second);
    open_pos_.erase(pos);
  }
  // Data file first, as Kudu: a crash before the metadata file goes leaves
  // a metadata file whose records end with the last DELETE, which the open
  // takes for an incomplete container.
  deleted_metadata_bytes_ += c->metadata_size();
  Status s = c->DeleteFiles();
  ForgetContainer(c);
  return s;
}

void LogWritableBlockManager::ForgetContainer(LogBlockContainerWriter* c) {
  for (size_t i = 0; i < containers_.size(); i++) {
    if (containers_[i].get() == c) {
      live_count_ -= c->live().size();
      containers_.erase(containers_.begin() + static_cast<ptrdiff_t>(i));
      first_ids_.erase(first_ids_.begin() + static_cast<ptrdiff_t>(i));
      return;
    }
  }
}

LogBlockContainerWriter* LogWritableBlockManager::OwnerOf(BlockId id) const {
  auto after = std::upper_bound(first_ids_.begin(), first_ids_.end(), id.id());
  if (after == first_ids_.begin()) return nullptr;
  LogBlockContainerWriter* c = containers_[static_cast<size_t>(after - first_ids_.begin()) - 1].get();
  return c->live().contains(id.id()) ? c : nullptr;
}

std::optional<LogWritableBlockManager::WrittenBlock> LogWritableBlockManager::WrittenBlocks::find(
    BlockId id) const {
  LogBlockContainerWriter* c = mgr_->OwnerOf(id);
  if (c == nullptr) return std::nullopt;
  const BlockLocation loc = *c->live().Find(id.id());
  return WrittenBlock{c, loc.offset, loc.length};
}

LogWritableBlockManager::WrittenBlock LogWritableBlockManager::WrittenBlocks::at(
    BlockId id) const {
  std::optional<WrittenBlock> b = find(id);
  CHECK(b.has_value()) << "block " << id.ToString() << " is not live";
  return *b;
}

Status LogWritableBlockManager::Close() {
  Status result;
  for (auto& c : containers_) {
    Status s = c->Close();
    if (result.ok() && !s.ok()) result = s;
  }
  open_lru_.clear();
  open_pos_.clear();
  current_ = nullptr;
  if (opts_.sync && opened_) {
    for (const std::string& root : opts_.data_dirs) {
      Status s = env::SyncDir(LogBlockContainerWriter::DataDir(root));
      if (result.ok() && !s.ok()) result = s;
    }
  }
  return result;
}

void LogWritableBlockManager::AbandonUnfinished() {
  // Closing writes what is staged, and may lose it too.
  for (auto& c : containers_) (void)c->Close();
  std::vector<LogBlockContainerWriter*> unfinished;
  for (auto& c : containers_) {
    if (c.get() == current_ || c->lost_records()) unfinished.push_back(c.get());
  }
  open_lru_.clear();
  open_pos_.clear();
  current_ = nullptr;
  opened_ = false;
  for (LogBlockContainerWriter* c : unfinished) {
    (void)c->DeleteFiles();
    ForgetContainer(c);
  }
}

}  // namespace fs
}  // namespace kudu
