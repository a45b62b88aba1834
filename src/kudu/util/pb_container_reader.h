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

// The PB container record reader: §2 of docs/on-disk-format.md, step by step,
// written once. It is a template over where the bytes come from (a Source),
// so the reference streaming path (FileRecordSource: one read system call per
// step) and the whole-file strategies (a buffer in memory) run the very same
// decisions, and an in-memory source pays no virtual call per record.
//
// A Source provides:
//   const std::string& filename() const;
//   uint64_t size() const;        // raw file size, encryption header included
//   uint64_t data_start() const;  // raw offset of the file header (0 or 64)
//   // The `n` bytes at raw `offset` as one read; offset + n <= size().
//   // The view stays valid until the next call.
//   Status Read(uint64_t offset, size_t n, Slice* out);
//   // Whether [offset, offset + n) reads as zeros, read in chunks of
//   // kZeroCheckChunkSize, one read each (the zero-tail check of step 3).
//   Status ReadIsAllZero(uint64_t offset, uint64_t n, bool* all_zero);
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "kudu/util/crc32c.h"
#include "kudu/util/encryption.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_container_look_ahead.h"
#include "kudu/util/pb_util.pb.h"
#include "kudu/util/slice.h"
#include "kudu/util/status.h"
#include "kudu/util/zero_rule.h"

namespace kudu {

template <class Source>
class PbContainerRecordReader {
 public:
  explicit PbContainerRecordReader(Source* source) : src_(source) {}

  // Reads and checks the file header and the supplemental header. Any
  // failure is fatal for the file: Corruption (or IOError) naming the file
  // and offset, never Incomplete; record_offset() is then the damaged
  // header's raw offset (the file header's, or the supplemental header's).
  // An empty `expected_pb_type` takes any record type (tools that dump any
  // container); `sup`, when given, receives the parsed supplemental header.
  Status ReadHeaders(const std::string& expected_pb_type, ContainerSupHeaderPB* sup = nullptr);

  // Reads the next record. OK: `*body` is the record's body, which started at
  // record_offset(). EndOfFile: the file ended cleanly. Incomplete: a partial
  // trailing record at record_offset() (v2 only). Corruption / IOError: the
  // message names the file and record_offset().
  //
  // Inlined into the caller's loop: it runs once per record, and as a call
  // its register saves and restores cost as much as its checks.
  __attribute__((always_inline)) inline Status ReadNextRecord(Slice* body);

  // Whether a body whose checksums hold is a record of the file's type
  // (the parse of step 7), for the look-ahead of step 5; without one, any
  // frame whose checksums hold counts as a record.
  using BodyCheck = bool (*)(Slice body, void* arg);
  void set_body_check(BodyCheck check, void* arg) {
    body_check_ = check;
    body_check_arg_ = arg;
  }

  uint64_t record_offset() const { return record_offset_; }
  uint64_t next_offset() const { return offset_; }
  uint32_t version() const { return version_; }
  Source* source() const { return src_; }

 private:
  std::string Where(uint64_t offset) const {
    return src_->filename() + ": record at offset " + std::to_string(offset);
  }
  // v1 cannot tell a torn write from damage: every Incomplete is Corruption.
  Status IncompleteOrCorruption(uint64_t offset, const std::string& what) const {
    if (version_ == pb_container::kVersion1) {
      return Status::Corruption(Where(offset), what + " (v1 file: treated as corruption)");
    }
    return Status::Incomplete(Where(offset), "partial trailing record: " + what);
  }

  // Step 5 for a record at `o` whose `len`-byte body runs past the end:
  // Incomplete only when no valid record starts at a later offset (a torn
  // write is only ever the last record), otherwise Corruption at `o`.
  // Rare: out of line, so ReadNextRecord's common path stays small.
  // `prefix`: the record's 8 prefix bytes as read.
  __attribute__((noinline, cold)) Status BodyPastEnd(uint64_t o, uint32_t len,
                                                     const uint8_t* prefix);
  // Whether a valid v2 record starts in (o, size): the rest of the file
  // after the prefix is read once, in chunks (pb_container_look_ahead.h).
  Status ValidRecordAfter(uint64_t o, const uint8_t* prefix, bool* found, uint64_t* at);

  Source* const src_;
  BodyCheck body_check_ = nullptr;
  void* body_check_arg_ = nullptr;
  uint32_t version_ = 0;
  uint64_t offset_ = 0;
  uint64_t record_offset_ = 0;
};

// The reference source: every Read is one read system call on the file (the
// file decrypts it under the per-read all-zero rule when encrypted).
class FileRecordSource {
 public:
  explicit FileRecordSource(RandomAccessFile* file) : file_(file) {}

  const std::string& filename() const { return file_->filename(); }
  uint64_t size() const { return file_->size(); }
  uint64_t data_start() const { return file_->encryption_header_size(); }

  Status Read(uint64_t offset, size_t n, Slice* out) {
    if (buf_.size() < n) buf_.resize(n);
    RETURN_NOT_OK(file_->Read(offset, buf_.data(), n));
    *out = Slice(buf_.data(), n);
    return Status::OK();
  }

  Status ReadIsAllZero(uint64_t offset, uint64_t n, bool* all_zero) {
    return ReadIsAllZeroByChunks(
        offset, n,
        [this](uint64_t pos, uint64_t len, bool* zero) {
          Slice s;
          RETURN_NOT_OK(Read(pos, static_cast<size_t>(len), &s));
          *zero = IsAllZero(s.data(), s.size());
          return Status::OK();
        },
        [this](uint64_t pos) { return file_->DataOffsetAtOrAfter(pos); }, all_zero);
  }

 private:
  RandomAccessFile* const file_;
  std::vector<uint8_t> buf_;
};

// ---------------------------------------------------------------------------

template <class Source>
Status PbContainerRecordReader<Source>::ReadHeaders(const std::string& expected_pb_type,
                                                    ContainerSupHeaderPB* sup_out) {
  namespace pbc = pb_container;
  const uint64_t start = src_->data_start();
  const uint64_t size = src_->size();
  const std::string& name = src_->filename();
  // Where a header problem is (§2): the file header's start until the
  // supplemental header's record is reached.
  record_offset_ = start;
  if (size < start + pbc::kHeaderReadSize) {
    return Status::Corruption(name + ": offset " + std::to_string(start) +
                              ": file of " + std::to_string(size) +
                              " bytes is too short for a PB container header");
  }
  Slice h;
  RETURN_NOT_OK(src_->Read(start, pbc::kHeaderReadSize, &h));
  if (std::memcmp(h.data(), pbc::kMagic, pbc::kMagicSize) != 0) {
    if (start == 0 && HasEncryptionMagic(h)) {
      return Status::Corruption(name + ": offset 0: bad PB container magic (expected "
                                "'kuducntr'): the file starts with an encryption header, but "
                                "no server key was given (--server_key_hex)");
    }
    return Status::Corruption(name + ": offset " + std::to_string(start) +
                              ": bad PB container magic (expected 'kuducntr')");
  }
  version_ = pbc::DecodeFixed32(h.data() + pbc::kMagicSize);
  if (version_ != pbc::kVersion1 && version_ != pbc::kVersion2) {
    return Status::Corruption(name + ": offset " + std::to_string(start + pbc::kMagicSize) +
                              ": unsupported PB container version " + std::to_string(version_));
  }
  if (version_ == pbc::kVersion2) {
    uint32_t stored = pbc::DecodeFixed32(h.data() + 12);
    uint32_t computed = crc::Crc32c(h.data(), 12);
    if (stored != computed) {
      return Status::Corruption(name + ": offset " + std::to_string(start + 12) +
                                ": file header checksum mismatch");
    }
  }
  offset_ = start + pbc::HeaderSize(version_);

  Slice body;
  Status s = ReadNextRecord(&body);
  if (!s.ok()) {
    if (s.IsIOError()) return s;
    // The record reader's message names the file (and the offset) this one
    // names.
    std::string why = s.message();
    for (const std::string& named :
         {name + ": ", "record at offset " + std::to_string(record_offset_) + ": "}) {
      if (why.compare(0, named.size(), named) == 0) why.erase(0, named.size());
    }
    return Status::Corruption(name + ": supplemental header at offset " +
                              std::to_string(record_offset_) + " is damaged or missing",
                              why);
  }
  // Every container a server writes carries the same supplemental header,
  // and parsing it (a FileDescriptorSet) costs more than a small container's
  // records (BM_ReadHeaders). The outcome depends only on the bytes, so
  // bytes this thread has already accepted for this record type are not
  // parsed again.
  thread_local std::string accepted_body;
  thread_local std::string accepted_type;
  if (sup_out == nullptr && !accepted_type.empty() && accepted_type == expected_pb_type &&
      body.size() == accepted_body.size() &&
      std::memcmp(body.data(), accepted_body.data(), body.size()) == 0) {
    return Status::OK();
  }
  ContainerSupHeaderPB sup;
  if (!sup.ParsePartialFromArray(body.data(), static_cast<int>(body.size())) ||
      !sup.IsInitialized()) {
    return Status::Corruption(name + ": supplemental header at offset " +
                              std::to_string(record_offset_) + " does not parse");
  }
  if (!expected_pb_type.empty() && sup.pb_type() != expected_pb_type) {
    return Status::Corruption(name + ": supplemental header at offset " +
                              std::to_string(record_offset_) + " names record type '" +
                              sup.pb_type() + "', expected '" + expected_pb_type + "'");
  }
  if (sup_out != nullptr) *sup_out = std::move(sup);
  if (expected_pb_type.empty()) return Status::OK();
  accepted_body.assign(reinterpret_cast<const char*>(body.data()), body.size());
  accepted_type = expected_pb_type;
  return Status::OK();
}

template <class Source>
Status PbContainerRecordReader<Source>::ReadNextRecord(Slice* body) {
  namespace pbc = pb_container;
  const uint64_t o = offset_;
  const uint64_t size = src_->size();
  record_offset_ = o;
  // Step 1: clean end.
  if (o == size) return Status::EndOfFile(src_->filename() + ": end of file");
  const size_t prefix = pbc::RecordPrefixSize(version_);
  // Step 2: the length (and its checksum).
  if (o + prefix > size) {
    return IncompleteOrCorruption(o, "only " + std::to_string(size - o) + " of its " +
                                         std::to_string(prefix) + " header bytes are in the file");
  }
  Slice h;
  RETURN_NOT_OK(src_->Read(o, prefix, &h));
  const uint32_t len = pbc::DecodeFixed32(h.data());
  if (version_ == pbc::kVersion2) {
    const uint32_t len_crc = pbc::DecodeFixed32(h.data() + 4);
    // Step 3: a zero-filled tail is a write whose size reached disk before
    // its data.
    if (len == 0 && len_crc == 0) {
      bool rest_zero = false;
      RETURN_NOT_OK(src_->ReadIsAllZero(o + prefix, size - (o + prefix), &rest_zero));
      if (rest_zero) {
        return Status::Incomplete(Where(o), "partial trailing record: zero-filled tail of " +
                                                std::to_string(size - o) + " bytes");
      }
    }
    // Step 4.
    const uint32_t computed = crc::Crc32cFixed32(len);
    if (computed != len_crc) {
      return Status::Corruption(Where(o), "length checksum mismatch (length " + std::to_string(len) +
                                              ")");
    }
  }
  // Step 5: body and trailing checksum, checked against the file size in
  // 64-bit arithmetic before anything is read or allocated.
  const uint64_t body_end = o + prefix + static_cast<uint64_t>(len) + 4;
  if (body_end > size) return BodyPastEnd(o, len, h.data());
  Slice b;
  RETURN_NOT_OK(src_->Read(o + prefix, static_cast<size_t>(len) + 4, &b));
  const uint32_t stored = pbc::DecodeFixed32(b.data() + len);
  uint32_t computed;
  if (version_ == pbc::kVersion2) {
    computed = crc::Crc32c(b.data(), len);
  } else {
    computed = crc::Crc32cExtend(crc::Crc32cFixed32(len), b.data(), len);
  }
  // Step 6.
  if (stored != computed) {
    return Status::Corruption(Where(o), "body checksum mismatch (length " + std::to_string(len) + ")");
  }
  *body = Slice(b.data(), len);
  offset_ = body_end;
  return Status::OK();
}

template <class Source>
Status PbContainerRecordReader<Source>::BodyPastEnd(uint64_t o, uint32_t len, const uint8_t* prefix) {
  const uint64_t size = src_->size();
  const std::string past_end = "a " + std::to_string(len) +
                               "-byte body runs past the end of the file (" +
                               std::to_string(size) + " bytes)";
  if (version_ == pb_container::kVersion2) {
    bool found = false;
    uint64_t at = 0;
    Status s = ValidRecordAfter(o, prefix, &found, &at);
    if (s.IsCorruption()) return Status::Corruption(Where(o), past_end + ", but " + s.message());
    RETURN_NOT_OK(s);
    if (found) {
      return Status::Corruption(Where(o), past_end + ", but a valid record starts at offset " +
                                              std::to_string(at) + ": damage, not a torn write");
    }
  }
  return IncompleteOrCorruption(o, past_end);
}

template <class Source>
Status PbContainerRecordReader<Source>::ValidRecordAfter(uint64_t o, const uint8_t* prefix,
                                                         bool* found, uint64_t* at) {
  pb_container::LookAhead in;
  in.from = o + 1;
  in.size = src_->size();
  in.known = Slice(prefix + 1, 7);  // the rest of the prefix at `o`, read already
  in.read = [this](uint64_t offset, size_t n, Slice* out) { return src_->Read(offset, n, out); };
  if (body_check_ != nullptr) {
    in.is_record = [this](Slice body) { return body_check_(body, body_check_arg_); };
  }
  return pb_container::FindValidRecord(in, found, at);
}

}  // namespace kudu
