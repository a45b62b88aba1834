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

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "kudu/fs/container_classification.h"
#include "kudu/util/env.h"
#include "kudu/util/flag_validators.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/uuid.h"

// Kudu's names and defaults, defined next to the code that obeys them.
DEFINE_uint64(log_container_max_size, 10ULL * 1024 * 1024 * 1024,
              "Maximum size (soft, bytes) of a log block container: once its next write offset "
              "reaches this, no new block goes into it");
DEFINE_validator(log_container_max_size, &kudu::flags::ValidatePositiveU64);
DEFINE_int64(log_container_max_blocks, -1,
             "Maximum number of blocks (soft) of a log block container; -1 or 0: no limit "
             "(below -1 is refused)");
DEFINE_validator(log_container_max_blocks, &kudu::flags::ValidateBlockLimit);
DEFINE_bool(log_block_manager_delete_dead_container, true,
            "When a full log block container's last block is deleted, delete its data and "
            "metadata files instead of punching the block's hole (Kudu's flag). Off, such "
            "dead containers stay on disk until a repair deletes them");

namespace kudu {
namespace fs {

namespace {
// With sparse data, staged records are written once this many bytes are
// pending: ~1,500 records, so the system call is cheap per record, and
// small, because every open container holds a buffer and thousands stay
// open. At 1 MiB, a state of 1,000 containers filled its buffers with
// 0.5 GB of first-touched pages and took 40 % longer to generate
// (docs/benchmarks.md, "Generation").
constexpr size_t kSparseMetadataFlushBytes = 64 << 10;

}  // namespace

bool LogBlockContainerWriter::IsAlreadyExists(const Status& s) {
  return s.posix_code() == EEXIST;
}

ContainerWriterOptions::ContainerWriterOptions()
    : max_container_size(FLAGS_log_container_max_size),
      max_container_blocks(FLAGS_log_container_max_blocks),
      max_metadata_size(MetadataMaxSizeFlag()),
      delete_dead_containers(FLAGS_log_block_manager_delete_dead_container) {}

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
  uint8_t bytes[16];
  for (int half = 0; half < 2; half++) {
    const uint64_t v = rng->Next64();
    std::memcpy(bytes + 8 * half, &v, sizeof(v));
  }
  return UuidV4Hex(bytes);
}

void LogBlockContainerWriter::FillCreateRecord(BlockId id, uint64_t timestamp_us, int64_t offset,
                                               int64_t length, BlockRecordPB* r) {
  r->mutable_block_id()->set_id(id.id());
  r->set_op_type(CREATE);
  r->set_timestamp_us(timestamp_us);
  r->set_offset(offset);
  r->set_length(length);
}

void LogBlockContainerWriter::FillDeleteRecord(BlockId id, uint64_t timestamp_us,
                                               BlockRecordPB* r) {
  r->mutable_block_id()->set_id(id.id());
  r->set_op_type(DELETE);
  r->set_timestamp_us(timestamp_us);
  r->clear_offset();
  r->clear_length();
}

BlockRecordPB LogBlockContainerWriter::MakeCreateRecord(BlockId id, uint64_t timestamp_us,
                                                        int64_t offset, int64_t length) {
  BlockRecordPB r;
  FillCreateRecord(id, timestamp_us, offset, length, &r);
  return r;
}

BlockRecordPB LogBlockContainerWriter::MakeDeleteRecord(BlockId id, uint64_t timestamp_us) {
  BlockRecordPB r;
  FillDeleteRecord(id, timestamp_us, &r);
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

  // An encrypted data file's header is durable before the metadata file
  // holds one: a metadata file long enough to replay beside a data file
  // without its header is fatal (§4.1), not a state a crash may leave.
  if (params.sync) s = c->data_->Sync();
  WriteEncryption md_enc = data_enc;
  md_enc.file_key = params.metadata_file_key;
  if (s.ok()) {
    s = CreateMetadataFile(c->metadata_path_, CreateMode::kCreateNew, md_enc, params.version,
                           /*sync=*/false, &c->metadata_);
  }
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
  c->data_end_ = c->data_->size();
  c->metadata_end_ = c->metadata_->offset();
  *out = std::move(c);
  return Status::OK();
}

Status LogBlockContainerWriter::AppendBlockData(Slice data, int64_t* offset) {
  if (!is_open()) return Status::IllegalState(data_path_ + ": container is closed");
  const uint64_t off = next_offset_;
  if (!data.empty()) {
    if (!params_.sparse_data) RETURN_NOT_OK(data_->Write(off, data));
    data_end_ = std::max(data_end_, off + data.size());
  }
  *offset = static_cast<int64_t>(off);
  // Deleted blocks keep their space: offsets only ever grow (§4).
  next_offset_ = std::max(next_offset_, AlignUp(off + data.size(), params_.fs_block_size));
  total_blocks_++;
  return Status::OK();
}

Status LogBlockContainerWriter::AppendRecords(const std::vector<const BlockRecordPB*>& records) {
  if (!is_open()) return Status::IllegalState(metadata_path_ + ": container is closed");
  for (const BlockRecordPB* r : records) {
    Status s = StageRecord(*r);
    if (!s.ok()) {
      staged_.clear();
      return s;
    }
  }
  return WriteStaged();
}

Status LogBlockContainerWriter::StageRecord(const BlockRecordPB& record) {
  if (!is_open()) return Status::IllegalState(metadata_path_ + ": container is closed");
  // Checked before serializing: serializing a message that misses required
  // fields is a fatal CHECK in libprotobuf, not an error return.
  if (!record.IsInitialized()) {
    return Status::InvalidArgument(metadata_path_ + ": record is missing required fields: " +
                                   record.InitializationErrorString());
  }
  body_.clear();
  if (!record.AppendToString(&body_)) {
    return Status::InvalidArgument(metadata_path_ + ": record does not serialize");
  }
  StageBody(body_);
  return Status::OK();
}

void LogBlockContainerWriter::StageBody(Slice body) {
  // Sparse data stages up to a flush's worth: reserving it once saves the
  // string's regrowth copies.
  if (params_.sparse_data && staged_.capacity() < kSparseMetadataFlushBytes) {
    staged_.reserve(kSparseMetadataFlushBytes + 4096);
  }
  pb_container::AppendRecord(params_.version, body, &staged_);
}

Status LogBlockContainerWriter::StageRecord(const BlockRecord& record, uint64_t timestamp_us) {
  if (!is_open()) return Status::IllegalState(metadata_path_ + ": container is closed");
  uint8_t body[kMaxEncodedBlockRecordBytes];
  StageBody(Slice(body, EncodeBlockRecord(record, timestamp_us, body)));
  return Status::OK();
}

Status LogBlockContainerWriter::CommitRecords() {
  if (params_.sparse_data && staged_.size() < kSparseMetadataFlushBytes) return Status::OK();
  return WriteStaged();
}

Status LogBlockContainerWriter::ExtendSparseData() {
  if (!params_.sparse_data || data_->size() >= data_end_) return Status::OK();
  return data_->Truncate(data_end_);
}

Status LogBlockContainerWriter::WriteStaged() {
  if (staged_.empty()) return Status::OK();
  if (!is_open()) return Status::IllegalState(metadata_path_ + ": container is closed");
  // Bytes first, record second, sparse data too: a record must never name
  // bytes past the end of the data file, even when the process dies next.
  RETURN_NOT_OK(ExtendSparseData());
  Status s = metadata_->AppendFramed(staged_);
  // A failed write may still have put part of the batch on disk; our notion
  // of the end follows the writer, which only advances on success, and the
  // failed records are dropped as a server drops an unacknowledged commit.
  metadata_end_ = metadata_->offset();
  staged_.clear();
  if (!s.ok()) lost_records_ = true;
  return s;
}

Status LogBlockContainerWriter::SyncData() {
  if (!is_open()) return Status::IllegalState(data_path_ + ": container is closed");
  // Sparse data's size is what the sync makes durable before the records.
  RETURN_NOT_OK(ExtendSparseData());
  return data_->Sync();
}

Status LogBlockContainerWriter::SyncMetadata() {
  if (!is_open()) return Status::IllegalState(metadata_path_ + ": container is closed");
  RETURN_NOT_OK(WriteStaged());
  return metadata_->Sync();
}

Status LogBlockContainerWriter::PunchHole(int64_t offset, int64_t length) {
  if (!is_open()) return Status::IllegalState(data_path_ + ": container is closed");
  if (offset < 0 || length < 0) {
    return Status::InvalidArgument(data_path_ + ": bad hole at offset " + std::to_string(offset));
  }
  // Sparse data was never written: the range is a hole already.
  if (params_.sparse_data) return Status::OK();
  // Kudu punches the block's fs-aligned length: the padding after a block
  // belongs to it, and whole fs blocks are what the filesystem can free.
  return data_->PunchHole(static_cast<uint64_t>(offset),
                          AlignUp(static_cast<uint64_t>(length), params_.fs_block_size));
}

Status LogBlockContainerWriter::Close() {
  Status result = WriteStaged();
  std::string().swap(staged_);  // a closed container holds no buffer
  if (metadata_) {
    metadata_end_ = metadata_->offset();
    closed_metadata_writes_ += metadata_->file()->stats().write_syscalls;
    Status s = metadata_->Close();
    if (result.ok() && !s.ok()) result = s;
    metadata_.reset();
  }
  if (data_) {
    // Sparse data: the file gets the size the block writes would have given it.
    Status extended = ExtendSparseData();
    if (result.ok() && !extended.ok()) result = extended;
    Status s = data_->Close();
    if (result.ok() && !s.ok()) result = s;
    data_.reset();
  }
  // What was staged is gone with the buffer, written or not.
  if (!result.ok()) lost_records_ = true;
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

bool LogBlockContainerWriter::IsFull(uint64_t max_size, int64_t max_blocks,
                                     int64_t max_metadata_size) const {
  return IsFull(max_size, max_blocks) ||
         (max_metadata_size > 0 && metadata_size() >= static_cast<uint64_t>(max_metadata_size));
}

Status LogBlockContainerWriter::TruncateDataToNextOffset() {
  if (!is_open()) return Status::IllegalState(data_path_ + ": container is closed");
  data_end_ = next_offset_;
  // Sparse data files get their size when they are closed.
  if (params_.sparse_data) return Status::OK();
  return data_->Truncate(next_offset_);
}

}  // namespace fs
}  // namespace kudu
