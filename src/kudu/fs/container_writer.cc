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

#include "kudu/fs/container_writer.h"

#include <gflags/gflags.h>

#include <cerrno>
#include <chrono>
#include <random>
#include <utility>

#include "kudu/util/env.h"
#include "kudu/util/flag_validators.h"

// Kudu's names and defaults, defined next to the code that obeys them.
DEFINE_uint64(log_container_max_size, 10ULL * 1024 * 1024 * 1024,
              "Maximum size (soft) of a log block container: once its next write offset "
              "reaches this, no new block goes into it");
DEFINE_validator(log_container_max_size, &kudu::flags::ValidatePositiveU64);
DEFINE_int64(log_container_max_blocks, -1,
             "Maximum number of blocks (soft) of a log block container; -1 means unlimited");
DEFINE_validator(log_container_max_blocks, &kudu::flags::ValidateBlockLimit);

namespace kudu {
namespace fs {

namespace {
constexpr int kMaxIdAttempts = 16;

// True when a kCreateNew open failed because the file already exists.
bool IsAlreadyExists(const Status& s) { return s.posix_code() == EEXIST; }
}  // namespace

ContainerWriterOptions::ContainerWriterOptions()
    : max_container_size(FLAGS_log_container_max_size),
      max_container_blocks(FLAGS_log_container_max_blocks) {}

// ---------------------------------------------------------------------------
// LogBlockContainerWriter

std::string LogBlockContainerWriter::DataDir(const std::string& root) {
  return env::JoinPath(root, "data");
}

std::string LogBlockContainerWriter::DataPath(const std::string& root, const std::string& id) {
  return env::JoinPath(DataDir(root), id + ".data");
}

std::string LogBlockContainerWriter::MetadataPath(const std::string& root,
                                                  const std::string& id) {
  return env::JoinPath(DataDir(root), id + ".metadata");
}

bool LogBlockContainerWriter::IsValidId(const std::string& s) {
  if (s.size() != kIdLength) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string LogBlockContainerWriter::NewId(SeededRandom* rng) {
  static const char* kDigits = "0123456789abcdef";
  std::string id;
  id.reserve(kIdLength);
  for (int half = 0; half < 2; half++) {
    uint64_t v = rng->Next64();
    for (int i = 0; i < 16; i++) {
      id.push_back(kDigits[v & 15]);
      v >>= 4;
    }
  }
  return id;
}

BlockRecordPB LogBlockContainerWriter::MakeCreateRecord(BlockId id, uint64_t timestamp_us,
                                                        int64_t offset, int64_t length) {
  BlockRecordPB r;
  r.mutable_block_id()->set_id(id.id());
  r.set_op_type(CREATE);
  r.set_timestamp_us(timestamp_us);
  r.set_offset(offset);
  r.set_length(length);
  return r;
}

BlockRecordPB LogBlockContainerWriter::MakeDeleteRecord(BlockId id, uint64_t timestamp_us) {
  BlockRecordPB r;
  r.mutable_block_id()->set_id(id.id());
  r.set_op_type(DELETE);
  r.set_timestamp_us(timestamp_us);
  return r;
}

Status LogBlockContainerWriter::CreateMetadataFile(const std::string& path, CreateMode mode,
                                                   const WriteEncryption& enc, uint32_t version,
                                                   bool sync,
                                                   std::unique_ptr<PbContainerWriter>* writer) {
  std::unique_ptr<WritableFile> file;
  RETURN_NOT_OK(WritableFile::Open(path, mode, enc, &file));
  // PbContainerWriter::Create emits the file header and the supplemental
  // header with a single write: a file that holds the magic holds a whole
  // supplemental header too, unless the write itself was torn by power loss.
  RETURN_NOT_OK(PbContainerWriter::Create(std::move(file), version, BlockRecordPB::descriptor(),
                                          writer));
  if (sync) RETURN_NOT_OK((*writer)->Sync());
  return Status::OK();
}

LogBlockContainerWriter::LogBlockContainerWriter(Params params)
    : params_(std::move(params)),
      data_path_(DataPath(params_.root, params_.id)),
      metadata_path_(MetadataPath(params_.root, params_.id)) {}

LogBlockContainerWriter::~LogBlockContainerWriter() = default;

Status LogBlockContainerWriter::Create(const Params& params,
                                       std::unique_ptr<LogBlockContainerWriter>* out) {
  if (!IsValidId(params.id)) {
    return Status::InvalidArgument("container id '" + params.id +
                                   "' is not 32 lowercase hex characters");
  }
  if (params.fs_block_size == 0) return Status::InvalidArgument("fs block size must be positive");
  std::unique_ptr<LogBlockContainerWriter> c(new LogBlockContainerWriter(params));

  // The data file first: until the metadata file holds a header, the pair is
  // an incomplete container (empty .data, short or missing .metadata).
  WriteEncryption data_enc;
  data_enc.server_key = params.server_key;
  data_enc.algorithm = params.algorithm;
  data_enc.file_key = params.data_file_key;
  Status s = WritableFile::Open(c->data_path_, CreateMode::kCreateNew, data_enc, &c->data_);
  if (!s.ok()) return s;  // nothing of ours to clean up (it may be someone else's file)

  WriteEncryption md_enc = data_enc;
  md_enc.file_key = params.metadata_file_key;
  s = CreateMetadataFile(c->metadata_path_, CreateMode::kCreateNew, md_enc, params.version,
                         /*sync=*/false, &c->metadata_);
  if (s.ok() && params.sync) s = c->data_->Sync();
  if (s.ok() && params.sync) s = c->metadata_->Sync();
  // The new directory entries must be durable before any record is
  // acknowledged, or a crash could lose a container that holds live blocks.
  if (s.ok() && params.sync) s = env::SyncDir(DataDir(params.root));
  if (!s.ok()) {
    // Only remove the metadata file if we created it (EEXIST: not ours).
    bool md_ours = c->metadata_ != nullptr || !IsAlreadyExists(s);
    c->data_->Close();
    c->data_.reset();
    (void)env::DeleteFile(c->data_path_);
    if (c->metadata_) {
      c->metadata_->Close();
      c->metadata_.reset();
    }
    if (md_ours && env::FileExists(c->metadata_path_)) (void)env::DeleteFile(c->metadata_path_);
    return s;
  }
  c->next_offset_ = FirstBlockOffset(c->encrypted(), params.fs_block_size);
  c->metadata_end_ = c->metadata_->offset();
  *out = std::move(c);
  return Status::OK();
}

Status LogBlockContainerWriter::AppendBlockData(Slice data, int64_t* offset) {
  if (!is_open()) return Status::IllegalState(data_path_ + ": container is closed");
  const uint64_t off = next_offset_;
  if (!data.empty()) RETURN_NOT_OK(data_->Write(off, data));
  *offset = static_cast<int64_t>(off);
  // Deleted blocks keep their space: offsets only ever grow (§4).
  next_offset_ = std::max(next_offset_, AlignUp(off + data.size(), params_.fs_block_size));
  total_blocks_++;
  return Status::OK();
}

Status LogBlockContainerWriter::AppendRecords(const std::vector<const BlockRecordPB*>& records) {
  if (!is_open()) return Status::IllegalState(metadata_path_ + ": container is closed");
  std::vector<const google::protobuf::Message*> msgs(records.begin(), records.end());
  Status s = metadata_->AppendBatch(msgs);
  // A failed write may still have put part of the batch on disk; our notion
  // of the end follows the writer, which only advances on success.
  metadata_end_ = metadata_->offset();
  return s;
}

Status LogBlockContainerWriter::SyncData() {
  if (!is_open()) return Status::IllegalState(data_path_ + ": container is closed");
  return data_->Sync();
}

Status LogBlockContainerWriter::SyncMetadata() {
  if (!is_open()) return Status::IllegalState(metadata_path_ + ": container is closed");
  return metadata_->Sync();
}

Status LogBlockContainerWriter::PunchHole(int64_t offset, int64_t length) {
  if (!is_open()) return Status::IllegalState(data_path_ + ": container is closed");
  if (offset < 0 || length < 0) {
    return Status::InvalidArgument(data_path_ + ": bad hole at offset " + std::to_string(offset));
  }
  // Kudu punches the block's fs-aligned length: the padding after a block
  // belongs to it, and whole fs blocks are what the filesystem can free.
  return data_->PunchHole(static_cast<uint64_t>(offset),
                          AlignUp(static_cast<uint64_t>(length), params_.fs_block_size));
}

Status LogBlockContainerWriter::Close() {
  Status result;
  if (metadata_) {
    metadata_end_ = metadata_->offset();
    closed_metadata_writes_ += metadata_->file()->stats().write_syscalls;
    Status s = metadata_->Close();
    if (result.ok() && !s.ok()) result = s;
    metadata_.reset();
  }
  if (data_) {
    Status s = data_->Close();
    if (result.ok() && !s.ok()) result = s;
    data_.reset();
  }
  return result;
}

Status LogBlockContainerWriter::Reopen() {
  if (is_open()) return Status::OK();
  WriteEncryption enc;
  enc.server_key = params_.server_key;
  enc.algorithm = params_.algorithm;
  std::unique_ptr<WritableFile> data, md;
  RETURN_NOT_OK(WritableFile::Open(data_path_, CreateMode::kOpenExisting, enc, &data));
  RETURN_NOT_OK(WritableFile::Open(metadata_path_, CreateMode::kOpenExisting, enc, &md));
  data_ = std::move(data);
  metadata_ = PbContainerWriter::Reopen(std::move(md), params_.version, metadata_end_);
  return Status::OK();
}

Status LogBlockContainerWriter::DeleteFiles() {
  Status result = Close();
  Status s = env::DeleteFile(data_path_);
  if (result.ok() && !s.ok()) result = s;
  s = env::DeleteFile(metadata_path_);
  if (result.ok() && !s.ok()) result = s;
  return result;
}

uint64_t LogBlockContainerWriter::metadata_write_syscalls() const {
  return closed_metadata_writes_ + (metadata_ ? metadata_->file()->stats().write_syscalls : 0);
}

bool LogBlockContainerWriter::IsFull(uint64_t max_size, int64_t max_blocks) const {
  if (next_offset_ >= max_size) return true;
  return max_blocks > 0 && total_blocks_ >= max_blocks;
}

// ---------------------------------------------------------------------------
// LogWritableBlockManager

namespace {
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
  opened_ = true;
  return Status::OK();
}

Status LogWritableBlockManager::Touch(LogBlockContainerWriter* c) {
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
  const size_t limit = std::max<size_t>(opts_.max_open_containers, 2);
  auto victim = open_lru_.end();
  while (open_lru_.size() > limit && victim != open_lru_.begin()) {
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
    if (s.ok() || !IsAlreadyExists(s)) break;
  }
  RETURN_NOT_OK(s);
  next_dir_++;
  current_ = c.get();
  containers_.push_back(std::move(c));
  return Touch(current_);
}

Status LogWritableBlockManager::CreateBlock(Slice data, BlockId* id) {
  std::vector<BlockId> ids;
  RETURN_NOT_OK(CreateBlocks({data}, &ids));
  *id = ids[0];
  return Status::OK();
}

Status LogWritableBlockManager::CommitCreates(LogBlockContainerWriter* c,
                                              std::vector<BlockRecordPB>* pending) {
  if (pending->empty()) return Status::OK();
  RETURN_NOT_OK(Touch(c));
  if (opts_.sync) RETURN_NOT_OK(c->SyncData());
  std::vector<const BlockRecordPB*> recs;
  recs.reserve(pending->size());
  for (const BlockRecordPB& r : *pending) recs.push_back(&r);
  RETURN_NOT_OK(c->AppendRecords(recs));
  if (opts_.sync) RETURN_NOT_OK(c->SyncMetadata());
  for (const BlockRecordPB& r : *pending) {
    live_[BlockId(r.block_id().id())] = LiveBlock{c, r.offset(), r.length()};
  }
  blocks_created_ += pending->size();
  pending->clear();
  return Status::OK();
}

Status LogWritableBlockManager::CreateBlocks(const std::vector<Slice>& data,
                                             std::vector<BlockId>* ids) {
  if (!opened_) return Status::IllegalState("block manager is not open");
  ids->clear();
  std::vector<BlockRecordPB> pending;
  for (const Slice& d : data) {
    if (current_ == nullptr) RETURN_NOT_OK(RollContainer());
    LogBlockContainerWriter* c = current_;
    int64_t offset = 0;
    RETURN_NOT_OK(Touch(c));
    RETURN_NOT_OK(c->AppendBlockData(d, &offset));
    data_bytes_written_ += d.size();
    const BlockId id(next_block_id_++);
    pending.push_back(LogBlockContainerWriter::MakeCreateRecord(
        id, NowMicros(), offset, static_cast<int64_t>(d.size())));
    ids->push_back(id);
    if (c->IsFull(opts_.max_container_size, opts_.max_container_blocks)) {
      // A full container takes no more blocks: commit what went there and
      // let the next block start a new container.
      current_ = nullptr;
      RETURN_NOT_OK(CommitCreates(c, &pending));
    }
  }
  if (current_ != nullptr) RETURN_NOT_OK(CommitCreates(current_, &pending));
  return Status::OK();
}

Status LogWritableBlockManager::DeleteBlock(BlockId id) { return DeleteBlocks({id}); }

Status LogWritableBlockManager::DeleteBlocks(const std::vector<BlockId>& ids) {
  if (!opened_) return Status::IllegalState("block manager is not open");
  // Validate everything before writing anything, so a bad id leaves no trace.
  absl::flat_hash_map<BlockId, bool> seen;
  for (BlockId id : ids) {
    if (live_.find(id) == live_.end()) {
      return Status::NotFound("block " + id.ToString() + " is not live");
    }
    if (!seen.emplace(id, true).second) {
      return Status::InvalidArgument("block " + id.ToString() + " is deleted twice in one batch");
    }
  }
  // Group by container, in order of first appearance: one metadata write
  // per container.
  std::vector<LogBlockContainerWriter*> order;
  absl::flat_hash_map<LogBlockContainerWriter*, std::vector<BlockRecordPB>> groups;
  for (BlockId id : ids) {
    LogBlockContainerWriter* c = live_[id].container;
    auto it = groups.find(c);
    if (it == groups.end()) {
      order.push_back(c);
      it = groups.emplace(c, std::vector<BlockRecordPB>()).first;
    }
    it->second.push_back(LogBlockContainerWriter::MakeDeleteRecord(id, NowMicros()));
  }
  for (LogBlockContainerWriter* c : order) {
    std::vector<BlockRecordPB>& recs = groups[c];
    RETURN_NOT_OK(Touch(c));
    std::vector<const BlockRecordPB*> ptrs;
    for (const BlockRecordPB& r : recs) ptrs.push_back(&r);
    RETURN_NOT_OK(c->AppendRecords(ptrs));
    if (opts_.sync) RETURN_NOT_OK(c->SyncMetadata());
    // The records are written: the blocks are gone whatever happens next,
    // so the holes are only space reclamation, and a failed punch must not
    // leave a deleted block in the live set.
    Status punch;
    for (const BlockRecordPB& r : recs) {
      const BlockId id(r.block_id().id());
      const LiveBlock b = live_[id];
      live_.erase(id);
      blocks_deleted_++;
      Status s = c->PunchHole(b.offset, b.length);
      if (punch.ok() && !s.ok()) punch = s;
    }
    RETURN_NOT_OK(punch);
  }
  return Status::OK();
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
  LogBlockContainerWriter* unfinished = current_;
  for (auto& c : containers_) (void)c->Close();
  open_lru_.clear();
  open_pos_.clear();
  current_ = nullptr;
  opened_ = false;
  if (unfinished == nullptr) return;
  (void)unfinished->DeleteFiles();
  for (auto it = live_.begin(); it != live_.end();) {
    if (it->second.container == unfinished) {
      live_.erase(it++);
    } else {
      ++it;
    }
  }
  for (auto it = containers_.begin(); it != containers_.end(); ++it) {
    if (it->get() == unfinished) {
      containers_.erase(it);
      break;
    }
  }
}

}  // namespace fs
}  // namespace kudu
