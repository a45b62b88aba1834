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
// The corruptor's fatal kinds: damage a server must refuse to start on
// (§4.4), each at a raw offset the report must name.
#include <algorithm>
#include <memory>
#include <tuple>

#include "kudu/util/crc32c.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"
#include "util/lbm_corruptor.h"
#include "util/test_util.h"

namespace kudu {
namespace test {

namespace {

// The body length of record `i`, from where the next record (or the file)
// starts: exactly what was written, whatever the body's encoding.
uint64_t BodyLength(uint64_t offset, uint64_t next, uint32_t version) {
  return next - offset - pb_container::RecordOverhead(version);
}

}  // namespace

Status LbmCorruptor::FlipRecordChecksum(Injected* out) {
  Container* c = nullptr;
  RETURN_NOT_OK(PickContainer("holding two records",
                              [](const Container& x) { return x.records.size() >= 2; }, &c));
  const size_t i = rng_() % (c->records.size() - 1);
  const uint64_t at = c->record_offsets[i];
  const uint64_t len = BodyLength(at, c->record_offsets[i + 1], c->version);
  // AES-CTR: flipping a ciphertext bit flips the same plaintext bit, so the
  // raw flip breaks the checksum in plain and encrypted files alike.
  const uint64_t crc_at = at + pb_container::RecordPrefixSize(c->version) + len + rng_() % 4;
  RETURN_NOT_OK(FlipByte(c->metadata_path, crc_at, 0x01));
  c->sealed = true;
  Record({Damage::kChecksumFlip, c->path, c->metadata_path, at, c->records[i].block_id().id(), 0}, out);
  return Status::OK();
}

Status LbmCorruptor::DamageHeader(HeaderPart part, Injected* out) {
  const bool encrypted = opts_.server_key != nullptr;
  if (part == HeaderPart::kEncryptionHeader && !encrypted) {
    return Status::IllegalState("a plain dir has no encryption header");
  }
  Container* c = nullptr;
  RETURN_NOT_OK(PickContainer("v2", [](const Container& x) { return x.version == 2; }, &c));
  const uint64_t start = encrypted ? kEncryptionHeaderSize : 0;
  uint64_t at = start;  // the damaged header's raw offset, as the report gives it
  uint64_t flip = start;
  switch (part) {
    case HeaderPart::kEncryptionHeader: at = flip = 0; break;
    case HeaderPart::kMagic: flip = start + rng_() % pb_container::kMagicSize; break;
    case HeaderPart::kVersion: flip = start + pb_container::kMagicSize; break;
    case HeaderPart::kHeaderChecksum: flip = start + pb_container::kMagicSize + 4; break;
    case HeaderPart::kSupplementalHeader: {
      at = start + pb_container::kV2HeaderSize;
      const uint64_t next =
          c->record_offsets.empty() ? FileSizeOrDie(c->metadata_path) : c->record_offsets[0];
      flip = next - 1;  // the last byte of its body checksum
      break;
    }
  }
  RETURN_NOT_OK(FlipByte(c->metadata_path, flip, 0x01));
  c->sealed = true;
  Record({Damage::kDamagedHeader, c->path, c->metadata_path, at, 0, static_cast<int>(part)}, out);
  return Status::OK();
}

Status LbmCorruptor::SetHostileLength(Injected* out) {
  Container* c = nullptr;
  RETURN_NOT_OK(PickContainer("v2 holding two records", [](const Container& x) {
    return x.version == 2 && x.records.size() >= 2;
  }, &c));
  const size_t i = rng_() % (c->records.size() - 1);
  const uint64_t at = c->record_offsets[i];
  const uint64_t size = FileSizeOrDie(c->metadata_path);
  // Past the end by a random amount, up to the largest length a frame holds;
  // its length checksum matches, so only the valid records after it tell
  // damage from a torn write (§2 step 5).
  const uint64_t past = size - at + 1 + rng_() % 4096;
  const uint32_t len = rng_() % 2 == 0 ? static_cast<uint32_t>(past) : 0xFFFFFFFFu - (rng_() % 8);
  std::string frame;
  pb_container::PutFixed32(&frame, len);
  pb_container::PutFixed32(&frame, crc::Crc32c(frame.data(), 4));
  WriteEncryption enc;
  enc.server_key = opts_.server_key;
  std::unique_ptr<WritableFile> f;
  RETURN_NOT_OK(WritableFile::Open(c->metadata_path, CreateMode::kOpenExisting, enc, &f));
  RETURN_NOT_OK(f->Write(at, Slice(frame)));
  RETURN_NOT_OK(f->Sync());
  RETURN_NOT_OK(f->Close());
  c->sealed = true;
  Record({Damage::kHostileLength, c->path, c->metadata_path, at, c->records[i].block_id().id(),
          static_cast<int>(len)},
         out);
  return Status::OK();
}

Status LbmCorruptor::DuplicateLiveId(Injected* out) {
  Container* first = nullptr;
  RETURN_NOT_OK(PickContainer("holding a live block",
                              [](const Container& x) { return !x.live.empty(); }, &first));
  Container* second = nullptr;
  RETURN_NOT_OK(PickContainer("another one", [&](const Container& x) { return &x != first; }, &second));
  auto it = first->live.begin();
  std::advance(it, rng_() % first->live.size());
  const uint64_t id = it->first;
  const uint64_t offset =
      std::max((DataFileSize(*second) + second->fs_block_size - 1) / second->fs_block_size *
                   second->fs_block_size,
               second->next_block_offset);
  const int64_t length = it->second.length();
  RETURN_NOT_OK(ExtendDataFile(*second, offset + static_cast<uint64_t>(length)));
  uint64_t at = 0;
  RETURN_NOT_OK(AppendRecords(second, {MakeCreate(id, static_cast<int64_t>(offset), length)}, &at));
  // The report blames the container where the id turns up live a second
  // time in report order (data dir order, then container id; §4.2).
  auto rank = [&](const Container& x) {
    const size_t dir = std::find(opts_.roots.begin(), opts_.roots.end(), x.root) - opts_.roots.begin();
    return std::make_tuple(dir, x.id);
  };
  Container* blamed = rank(*second) > rank(*first) ? second : first;
  uint64_t blamed_at = at;
  if (blamed == first) {
    for (size_t i = 0; i < first->records.size(); i++) {
      const BlockRecordPB& r = first->records[i];
      if (r.op_type() == CREATE && r.block_id().id() == id) blamed_at = first->record_offsets[i];
    }
  }
  second->sealed = true;
  Record({Damage::kDuplicateLiveId, blamed->path, blamed->metadata_path, blamed_at, id, 0}, out);
  return Status::OK();
}

Status LbmCorruptor::RemoveDataFile(Injected* out) {
  Container* c = nullptr;
  RETURN_NOT_OK(PickContainer("holding a live block",
                              [](const Container& x) { return !x.live.empty(); }, &c));
  RETURN_NOT_OK(env::DeleteFile(c->data_path));
  c->sealed = true;
  Record({Damage::kMissingDataFile, c->path, c->data_path, 0, 0, 0}, out);
  return Status::OK();
}

Status LbmCorruptor::RemoveMetadataFile(Injected* out) {
  const uint64_t header = opts_.server_key != nullptr ? kEncryptionHeaderSize : 0;
  Container* c = nullptr;
  RETURN_NOT_OK(PickContainer("with block bytes", [&](const Container& x) {
    return DataFileSize(x) > header;
  }, &c));
  RETURN_NOT_OK(env::DeleteFile(c->metadata_path));
  c->sealed = true;
  Record({Damage::kMissingMetadataFile, c->path, c->metadata_path, 0, 0, 0}, out);
  return Status::OK();
}

Status LbmCorruptor::TruncateDataFileBelowHeader(uint64_t size, Injected* out) {
  if (opts_.server_key == nullptr) return Status::IllegalState("a plain dir has no encryption header");
  if (size >= kEncryptionHeaderSize) {
    return Status::InvalidArgument("a data file of " + std::to_string(size) +
                                   " bytes still holds its encryption header");
  }
  Container* c = nullptr;
  RETURN_NOT_OK(PickContainer("with a data file", [](const Container&) { return true; }, &c));
  RETURN_NOT_OK(TruncateFileTo(c->data_path, size));
  c->sealed = true;
  Record({Damage::kShortDataFile, c->path, c->data_path, 0, 0, static_cast<int>(size)}, out);
  return Status::OK();
}

Status LbmCorruptor::DamageDataFileHeader(DataHeaderPart part, Injected* out) {
  if (opts_.server_key == nullptr) return Status::IllegalState("a plain dir has no encryption header");
  Container* c = nullptr;
  RETURN_NOT_OK(PickContainer("with a data file", [](const Container&) { return true; }, &c));
  switch (part) {
    case DataHeaderPart::kMagic:
      RETURN_NOT_OK(FlipByte(c->data_path, rng_() % kEncryptionMagicSize, 0x01));
      break;
    case DataHeaderPart::kAlgorithm:
      // Algorithms are 0-2: setting the top bit makes any of them unknown.
      RETURN_NOT_OK(FlipByte(c->data_path, kEncryptionMagicSize, 0x80));
      break;
  }
  c->sealed = true;
  Record({Damage::kDamagedDataFileHeader, c->path, c->data_path, 0, 0, static_cast<int>(part)}, out);
  return Status::OK();
}

std::map<uint64_t, std::tuple<std::string, int64_t, int64_t>> LbmCorruptor::ExpectedLiveSet() const {
  std::map<uint64_t, std::tuple<std::string, int64_t, int64_t>> live;
  for (const Container& c : containers_) {
    for (const auto& [id, r] : c.live) live[id] = std::make_tuple(c.id, r.offset(), r.length());
  }
  return live;
}

}  // namespace test
}  // namespace kudu
