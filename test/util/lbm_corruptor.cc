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
#include "util/lbm_corruptor.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <memory>
#include <set>
#include <utility>

#include "kudu/util/crc32c.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_container_writer.h"
#include "util/fs_fixture_util.h"
#include "util/reference_replay_util.h"
#include "util/test_util.h"

namespace kudu {
namespace test {

namespace {

uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

bool StemOf(const std::string& name, const char* suffix, std::string* stem) {
  const size_t n = std::char_traits<char>::length(suffix);
  if (name.size() <= n || name.compare(name.size() - n, n, suffix) != 0) return false;
  *stem = name.substr(0, name.size() - n);
  return true;
}

Status RawFileOp(const std::string& path, int (*op)(int fd, void* arg), void* arg) {
  int fd = ::open(path.c_str(), O_RDWR);
  if (fd < 0) return Status::FromErrno(path, errno);
  int rc = op(fd, arg);
  int err = errno;
  ::close(fd);
  return rc == 0 ? Status::OK() : Status::FromErrno(path, err);
}

// Allocates [offset, offset + len) of `path` (mode 0: the size grows to
// cover it; FALLOC_FL_KEEP_SIZE: it does not), as a writer that preallocated
// a block and crashed would leave it.
Status Fallocate(const std::string& path, int mode, uint64_t offset, uint64_t len) {
  struct Args { int mode; off_t off, len; } a{mode, static_cast<off_t>(offset), static_cast<off_t>(len)};
  return RawFileOp(path, [](int fd, void* p) {
    auto* a = static_cast<Args*>(p);
    return ::fallocate(fd, a->mode, a->off, a->len);
  }, &a);
}


}  // namespace

const char* DamageName(Damage d) {
  switch (d) {
    case Damage::kPreallocatedExtraSpace: return "preallocated_extra_space";
    case Damage::kUnpunchedDeadBlock: return "unpunched_dead_block";
    case Damage::kIncompleteContainer: return "incomplete_container";
    case Damage::kMisalignedBlock: return "misaligned_block";
    case Damage::kPartialRecord: return "partial_record";
    case Damage::kMalformedRecord: return "malformed_record";
    case Damage::kChecksumFlip: return "checksum_flip";
    case Damage::kDamagedHeader: return "damaged_header";
    case Damage::kHostileLength: return "hostile_length";
    case Damage::kDuplicateLiveId: return "duplicate_live_id";
    case Damage::kMissingDataFile: return "missing_data_file";
    case Damage::kMissingMetadataFile: return "missing_metadata_file";
    case Damage::kShortDataFile: return "short_data_file";
    case Damage::kDamagedDataFileHeader: return "damaged_data_file_header";
    case Damage::kZeroTail: return "zero_tail";
  }
  return "?";
}

const char* MalformedReason(MalformedKind k) {
  switch (k) {
    case MalformedKind::kMissingOffset: return "missing_offset";
    case MalformedKind::kMissingLength: return "missing_length";
    case MalformedKind::kNegativeOffset: return "negative_offset";
    case MalformedKind::kNegativeLength: return "negative_length";
    case MalformedKind::kOffsetLengthOverflow: return "offset_length_overflow";
    case MalformedKind::kPastEndOfData: return "past_end_of_data";
    case MalformedKind::kDuplicateCreate: return "duplicate_create";
    case MalformedKind::kDeleteNotLive: return "delete_not_live";
    case MalformedKind::kUnknownOpType: return "unknown_op_type";
  }
  return "?";
}

LbmCorruptor::LbmCorruptor(Options opts) : opts_(std::move(opts)), rng_(opts_.seed) {}

Status LbmCorruptor::Init() {
  containers_.clear();
  for (const std::string& root : opts_.roots) {
    std::vector<std::string> names;
    RETURN_NOT_OK(env::ListDir(env::JoinPath(root, "data"), &names));
    std::set<std::string> datas, metas;
    for (const std::string& n : names) {
      std::string stem;
      if (n.find(".kudutmp") != std::string::npos) continue;
      if (StemOf(n, ".data", &stem)) datas.insert(stem);
      if (StemOf(n, ".metadata", &stem)) metas.insert(stem);
    }
    for (const std::string& id : metas) {
      if (datas.count(id) == 0) continue;  // only whole containers, as upstream's corruptor
      Container c;
      RETURN_NOT_OK(LoadContainer(root, id, &c));
      containers_.push_back(std::move(c));
    }
  }
  return Status::OK();
}

Status LbmCorruptor::LoadContainer(const std::string& root, const std::string& id, Container* c) {
  const std::string dir = env::JoinPath(root, "data");
  c->root = root;
  c->id = id;
  c->path = env::JoinPath(dir, id);
  c->data_path = c->path + ".data";
  c->metadata_path = c->path + ".metadata";
  RETURN_NOT_OK(env::GetBlockSize(dir, &c->fs_block_size));
  c->next_block_offset = FirstBlockOffset(*c);
  std::vector<BlockRecordPB> records;
  std::vector<uint64_t> offsets;
  RETURN_NOT_OK(ReadMetadataRecords(c->metadata_path, opts_.server_key, &records, &offsets,
                                    &c->version));
  for (size_t i = 0; i < records.size(); i++) {
    c->records.push_back(records[i]);
    c->record_offsets.push_back(offsets[i]);
    ApplyRecord(c, records[i]);
  }
  return Status::OK();
}

uint64_t LbmCorruptor::FirstBlockOffset(const Container& c) const {
  return opts_.server_key != nullptr ? AlignUp(kEncryptionHeaderSize, c.fs_block_size) : 0;
}

// Clean-file semantics (§4.2) for the records the corruptor itself writes as
// valid: a CREATE becomes live and moves the next block offset, a DELETE
// ends it.
void LbmCorruptor::ApplyRecord(Container* c, const BlockRecordPB& r) {
  const uint64_t id = r.block_id().id();
  max_id_ = std::max(max_id_, id);
  if (r.op_type() == CREATE) {
    c->live[id] = r;
    c->total_blocks++;
    c->next_block_offset = std::max<uint64_t>(
        c->next_block_offset, AlignUp(static_cast<uint64_t>(r.offset() + r.length()), c->fs_block_size));
  } else if (r.op_type() == DELETE) {
    c->live.erase(id);
  }
}

bool LbmCorruptor::IsFull(const Container& c) const {
  return c.next_block_offset >= opts_.max_container_size ||
         (opts_.max_container_blocks > 0 &&
          c.total_blocks >= static_cast<uint64_t>(opts_.max_container_blocks));
}

Status LbmCorruptor::PickContainer(const char* what,
                                   const std::function<bool(const Container&)>& want,
                                   Container** out) {
  std::vector<Container*> candidates;
  for (Container& c : containers_) {
    if (!c.sealed && want(c)) candidates.push_back(&c);
  }
  if (candidates.empty()) return Status::IllegalState(std::string("no container that is ") + what);
  *out = candidates[rng_() % candidates.size()];
  return Status::OK();
}

uint64_t LbmCorruptor::DataFileSize(const Container& c) const {
  uint64_t size = 0;
  return env::GetFileSize(c.data_path, &size).ok() ? size : 0;
}

Status LbmCorruptor::ExtendDataFile(const Container& c, uint64_t size) {
  if (DataFileSize(c) >= size) return Status::OK();
  return env::TruncateFile(c.data_path, size);
}

uint64_t LbmCorruptor::FreshBlockId() {
  max_id_ += 1 + rng_() % 1000;
  return max_id_;
}

std::string LbmCorruptor::FreshContainerId() {
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016" PRIx64 "%016" PRIx64, static_cast<uint64_t>(rng_()),
                static_cast<uint64_t>(rng_()));
  return buf;
}

// Appends `records` with the project's writer, which frames them as the
// file's version and encrypts them at their offsets.
Status LbmCorruptor::AppendRecords(Container* c, const std::vector<BlockRecordPB>& records,
                                   uint64_t* first_offset) {
  WriteEncryption enc;
  enc.server_key = opts_.server_key;
  std::unique_ptr<WritableFile> file;
  RETURN_NOT_OK(WritableFile::Open(c->metadata_path, CreateMode::kOpenExisting, enc, &file));
  const uint64_t end = file->size();
  std::unique_ptr<PbContainerWriter> writer =
      PbContainerWriter::Reopen(std::move(file), c->version, end);
  if (first_offset != nullptr) *first_offset = writer->offset();
  for (const BlockRecordPB& r : records) {
    c->record_offsets.push_back(writer->offset());
    c->records.push_back(r);
    RETURN_NOT_OK(writer->Append(r));
  }
  RETURN_NOT_OK(writer->Sync());
  return writer->Close();
}

void LbmCorruptor::Record(Injected inj, Injected* out) {
  injected_.push_back(inj);
  if (out != nullptr) *out = inj;
}

Status LbmCorruptor::PreallocateFullContainer(Injected* out) {
  Container* c = nullptr;
  RETURN_NOT_OK(PickContainer("full", [&](const Container& x) { return IsFull(x); }, &c));
  constexpr uint64_t kPreallocateBytes = 16 * 1024;
  const uint64_t size = DataFileSize(*c);
  // Either way the data file holds more allocated space than its blocks:
  // grown, or allocated past its end with the size kept.
  const bool keep_size = rng_() % 2 == 1;
  RETURN_NOT_OK(Fallocate(c->data_path, keep_size ? FALLOC_FL_KEEP_SIZE : 0, size, kPreallocateBytes));
  Record({Damage::kPreallocatedExtraSpace, c->path, c->data_path, size, 0, keep_size ? 1 : 0}, out);
  return Status::OK();
}

Status LbmCorruptor::AddUnpunchedBlockToFullContainer(Injected* out) {
  Container* c = nullptr;
  RETURN_NOT_OK(PickContainer("full", [&](const Container& x) { return IsFull(x); }, &c));
  const uint64_t offset = std::max(AlignUp(DataFileSize(*c), c->fs_block_size), c->next_block_offset);
  const uint64_t length = (1 + rng_() % 16) * c->fs_block_size;
  RETURN_NOT_OK(Fallocate(c->data_path, 0, offset, length));
  const uint64_t id = FreshBlockId();
  BlockRecordPB create = MakeCreate(id, static_cast<int64_t>(offset), static_cast<int64_t>(length));
  uint64_t at = 0;
  RETURN_NOT_OK(AppendRecords(c, {create, MakeDelete(id)}, &at));
  ApplyRecord(c, create);
  ApplyRecord(c, MakeDelete(id));
  Record({Damage::kUnpunchedDeadBlock, c->path, c->data_path, offset, id, 0}, out);
  return Status::OK();
}

Status LbmCorruptor::CreateIncompleteContainer(IncompleteKind kind, Injected* out) {
  if (opts_.roots.empty()) return Status::IllegalState("no data dir");
  const std::string root = opts_.roots[rng_() % opts_.roots.size()];
  const std::string path = env::JoinPath(env::JoinPath(root, "data"), FreshContainerId());
  WriteEncryption enc;
  enc.server_key = opts_.server_key;
  const bool data = kind == IncompleteKind::kEmptyDataOnly || kind == IncompleteKind::kEmptyDataShortMetadata;
  const bool short_metadata =
      kind == IncompleteKind::kShortMetadataOnly || kind == IncompleteKind::kEmptyDataShortMetadata;
  if (data) {
    // Empty, or only its encryption header: the crash came before any block.
    std::unique_ptr<WritableFile> f;
    RETURN_NOT_OK(WritableFile::Open(path + ".data", CreateMode::kCreateNew, enc, &f));
    RETURN_NOT_OK(f->Close());
  }
  if (short_metadata) {
    // Fewer bytes than a file header: the first write was torn.
    std::unique_ptr<WritableFile> f;
    RETURN_NOT_OK(WritableFile::Open(path + ".metadata", CreateMode::kCreateNew, enc, &f));
    const std::string header = std::string(pb_container::kMagic, pb_container::kMagicSize) +
                               std::string(pb_container::kMinimumValidLength, '\0');
    RETURN_NOT_OK(f->Append(Slice(header.data(), 1 + rng_() % (pb_container::kMinimumValidLength - 1))));
    RETURN_NOT_OK(f->Close());
  } else if (!data) {
    // Headers (and maybe whole CREATE+DELETE pairs) but no data file: a dead
    // container whose data file was deleted first, the repair's own order.
    std::unique_ptr<WritableFile> f;
    RETURN_NOT_OK(WritableFile::Open(path + ".metadata", CreateMode::kCreateNew, enc, &f));
    std::unique_ptr<PbContainerWriter> w;
    RETURN_NOT_OK(PbContainerWriter::Create(std::move(f), pb_container::kVersion2,
                                            BlockRecordPB::descriptor(), &w));
    if (kind == IncompleteKind::kDeadRecordsNoData) {
      for (int i = 0; i < 3; i++) {
        const uint64_t id = FreshBlockId();
        RETURN_NOT_OK(w->Append(MakeCreate(id, i * 4096, 100)));
        RETURN_NOT_OK(w->Append(MakeDelete(id)));
      }
    }
    RETURN_NOT_OK(w->Sync());
    RETURN_NOT_OK(w->Close());
  }
  Record({Damage::kIncompleteContainer, path, path + (data ? ".data" : ".metadata"), 0, 0,
          static_cast<int>(kind)},
         out);
  return Status::OK();
}

Status LbmCorruptor::AddMalformedRecord(MalformedKind kind, Injected* out) {
  Container* c = nullptr;
  const bool needs_live = kind == MalformedKind::kDuplicateCreate;
  RETURN_NOT_OK(PickContainer(needs_live ? "holding a live block" : "whole",
                              [&](const Container& x) { return !needs_live || !x.live.empty(); }, &c));
  // Room in the data file for the block, so that only the rule under test
  // is broken (as upstream's corruptor does).
  constexpr int64_t kBlockSize = 16 * 1024;
  const uint64_t offset = std::max(AlignUp(DataFileSize(*c), c->fs_block_size), c->next_block_offset);
  RETURN_NOT_OK(ExtendDataFile(*c, offset + kBlockSize));
  uint64_t id = FreshBlockId();
  BlockRecordPB r = MakeCreate(id, static_cast<int64_t>(offset), kBlockSize, 0);
  switch (kind) {
    case MalformedKind::kMissingOffset: r.clear_offset(); break;
    case MalformedKind::kMissingLength: r.clear_length(); break;
    case MalformedKind::kNegativeOffset: r.set_offset(-1); break;
    case MalformedKind::kNegativeLength: r.set_length(-1); break;
    case MalformedKind::kOffsetLengthOverflow:
      r.set_offset(std::numeric_limits<int64_t>::max() - kBlockSize / 2);
      break;
    case MalformedKind::kPastEndOfData: r.set_offset(std::numeric_limits<int64_t>::max() / 2); break;
    case MalformedKind::kDuplicateCreate: {
      auto it = c->live.begin();
      std::advance(it, rng_() % c->live.size());
      r = it->second;
      id = it->first;
      break;
    }
    case MalformedKind::kDeleteNotLive: r = MakeDelete(id, 0); break;
    case MalformedKind::kUnknownOpType: r.set_op_type(UNKNOWN); break;
  }
  uint64_t at = 0;
  RETURN_NOT_OK(AppendRecords(c, {r}, &at));
  Record({Damage::kMalformedRecord, c->path, c->metadata_path, at, id, static_cast<int>(kind)}, out);
  return Status::OK();
}

Status LbmCorruptor::AddMisalignedBlock(Injected* out) {
  Container* c = nullptr;
  RETURN_NOT_OK(PickContainer("whole", [](const Container&) { return true; }, &c));
  const uint64_t fs = c->fs_block_size;
  // A gap of one fs block past everything used, so the block cannot intrude
  // on the aligned space of the blocks before it (KUDU-1793's invariant).
  const uint64_t base = std::max(DataFileSize(*c), c->next_block_offset);
  uint64_t offset = base + fs + rng_() % fs;
  if (offset % fs == 0) offset++;
  const uint64_t id = FreshBlockId();
  uint64_t length = rng_() % (4 * fs);
  length -= length % sizeof(id);
  // The block's bytes repeat its id, so a reader can verify them.
  std::string bytes(length, '\0');
  for (uint64_t i = 0; i < length; i += sizeof(id)) std::memcpy(&bytes[i], &id, sizeof(id));
  RETURN_NOT_OK(ExtendDataFile(*c, offset));
  if (length > 0) {
    WriteEncryption enc;
    enc.server_key = opts_.server_key;
    std::unique_ptr<WritableFile> f;
    RETURN_NOT_OK(WritableFile::Open(c->data_path, CreateMode::kOpenExisting, enc, &f));
    RETURN_NOT_OK(f->Write(offset, Slice(bytes)));
    RETURN_NOT_OK(f->Sync());
    RETURN_NOT_OK(f->Close());
  }
  BlockRecordPB create = MakeCreate(id, static_cast<int64_t>(offset), static_cast<int64_t>(length));
  uint64_t at = 0;
  RETURN_NOT_OK(AppendRecords(c, {create}, &at));
  ApplyRecord(c, create);
  Record({Damage::kMisalignedBlock, c->path, c->metadata_path, at, id, 0}, out);
  return Status::OK();
}

Status LbmCorruptor::AddPartialRecord(PartialKind kind, Injected* out) {
  Container* c = nullptr;
  RETURN_NOT_OK(PickContainer("whole", [](const Container&) { return true; }, &c));
  const uint64_t id = FreshBlockId();
  const BlockRecordPB r = MakeCreate(id, static_cast<int64_t>(c->next_block_offset), 4096);
  uint64_t at = 0;
  RETURN_NOT_OK(AppendRecords(c, {r}, &at));
  const uint64_t end = FileSizeOrDie(c->metadata_path);
  const uint64_t prefix = pb_container::RecordPrefixSize(c->version);
  switch (kind) {
    case PartialKind::kInLengthField:
      RETURN_NOT_OK(TruncateFileTo(c->metadata_path, at + 1 + rng_() % (prefix - 1)));
      break;
    case PartialKind::kInBody:
      RETURN_NOT_OK(TruncateFileTo(c->metadata_path, at + prefix + rng_() % (end - at - prefix)));
      break;
    case PartialKind::kZeroedFrame:
      RETURN_NOT_OK(ZeroFillFrom(c->metadata_path, at));
      break;
  }
  c->records.pop_back();
  c->record_offsets.pop_back();
  c->sealed = true;
  Record({Damage::kPartialRecord, c->path, c->metadata_path, at, id, static_cast<int>(kind)}, out);
  return Status::OK();
}

Status LbmCorruptor::AppendZeroTail(uint64_t bytes, Injected* out) {
  Container* c = nullptr;
  RETURN_NOT_OK(PickContainer("whole", [](const Container&) { return true; }, &c));
  const uint64_t at = FileSizeOrDie(c->metadata_path);
  RETURN_NOT_OK(AppendZeros(c->metadata_path, bytes));
  c->sealed = true;
  Record({Damage::kZeroTail, c->path, c->metadata_path, at, 0, 0}, out);
  return Status::OK();
}

Status LbmCorruptor::InjectRandomNonFatalInconsistency(Injected* out) {
  const bool any_full = std::any_of(containers_.begin(), containers_.end(),
                                    [&](const Container& c) { return !c.sealed && IsFull(c); });
  const bool any_whole = std::any_of(containers_.begin(), containers_.end(),
                                     [](const Container& c) { return !c.sealed; });
  while (true) {
    switch (rng_() % 6) {
      case 0:
        if (any_whole) return AddMisalignedBlock(out);
        break;
      case 1:
        return CreateIncompleteContainer(static_cast<IncompleteKind>(rng_() % kNumIncompleteKinds), out);
      case 2:
        if (any_full) return PreallocateFullContainer(out);
        break;
      case 3:
        if (any_full) return AddUnpunchedBlockToFullContainer(out);
        break;
      case 4:
        if (any_whole) return AddPartialRecord(static_cast<PartialKind>(rng_() % kNumPartialKinds), out);
        break;
      case 5:
        if (any_whole) return AppendZeroTail(1 + rng_() % 8192, out);
        break;
    }
  }
}

}  // namespace test
}  // namespace kudu
