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

#include "kudu/fs/container_replay_state.h"

namespace kudu {

inline uint64_t ContainerReplayState::AlignUp(uint64_t v) const {
  if (fs_block_mask_ != 0) {
    // Twice per CREATE: an add and a mask. Past the last multiple of the
    // block size (2^64 - size) only an aligned value stays; others saturate.
    if (v > UINT64_MAX - fs_block_mask_) return (v & fs_block_mask_) == 0 ? v : UINT64_MAX;
    return (v + fs_block_mask_) & ~fs_block_mask_;
  }
  const uint64_t rem = v % fs_block_size_;
  if (rem == 0) return v;
  const uint64_t pad = fs_block_size_ - rem;
  return v > UINT64_MAX - pad ? UINT64_MAX : v + pad;
}

ContainerReplayState::ContainerReplayState(uint64_t data_file_size, uint64_t data_start,
                                           uint64_t fs_block_size)
    : data_file_size_(data_file_size),
      data_start_(data_start),
      fs_block_size_(fs_block_size ? fs_block_size : 4096),
      fs_block_mask_((fs_block_size_ & (fs_block_size_ - 1)) == 0 ? fs_block_size_ - 1 : 0) {
  Reset();
}

void ContainerReplayState::Reset() {
  live_.Clear();
  malformed_.clear();
  live_bytes_ = 0;
  live_bytes_aligned_ = 0;
  total_blocks_ = 0;
  total_bytes_ = 0;
  max_block_id_ = 0;
  next_write_offset_ = AlignUp(data_start_);
  records_ = 0;
}

void ContainerReplayState::Reserve(size_t records) { live_.Reserve(records); }

namespace {

// The reasons that need formatting, out of line: OnRecord runs once per
// record, and string code inline in it made every call save and restore
// registers only these rare paths use.
__attribute__((noinline, cold)) std::string NegativeReason(int64_t off, int64_t len) {
  return "CREATE record with negative offset " + std::to_string(off) + " or length " +
         std::to_string(len);
}

__attribute__((noinline, cold)) std::string PastEndReason(uint64_t off, uint64_t end,
                                                         uint64_t data_file_size) {
  return "CREATE record for bytes [" + std::to_string(off) + ", " + std::to_string(end) +
         ") past the end of the data file (" + std::to_string(data_file_size) + " bytes)";
}

}  // namespace

void ContainerReplayState::Malformed(const BlockRecord& record, uint64_t offset,
                                     const char* reason) {
  Malformed(record, offset, std::string(reason));
}

void ContainerReplayState::Malformed(const BlockRecord& record, uint64_t offset,
                                     std::string reason) {
  malformed_.push_back(MalformedRecord{record.block_id, offset, std::move(reason)});
}

void ContainerReplayState::OnRecord(const BlockRecord& record, uint64_t offset) {
  records_++;
  const uint64_t id = record.block_id;
  switch (record.op_type) {
    case CREATE: {
      if (!record.has_offset || !record.has_length) {
        Malformed(record, offset, "CREATE record without offset or length");
        return;
      }
      const int64_t off = record.offset;
      const int64_t len = record.length;
      if (off < 0 || len < 0) {
        Malformed(record, offset, NegativeReason(off, len));
        return;
      }
      // Kudu computes offset + length in int64: a sum past INT64_MAX is malformed.
      if (off > INT64_MAX - len) {
        Malformed(record, offset, "CREATE record whose offset + length overflows");
        return;
      }
      const uint64_t uoff = static_cast<uint64_t>(off), ulen = static_cast<uint64_t>(len);
      const uint64_t end = uoff + ulen;
      if (len > 0 && end > data_file_size_) {
        Malformed(record, offset, PastEndReason(uoff, end, data_file_size_));
        return;
      }
      if (!live_.Insert(id, BlockLocation{off, len})) {
        Malformed(record, offset, "CREATE record for a block that is already live");
        return;
      }
      live_bytes_ += ulen;
      live_bytes_aligned_ += AlignUp(ulen);
      total_blocks_++;
      total_bytes_ += ulen;
      if (id > max_block_id_ || total_blocks_ == 1) max_block_id_ = id;
      const uint64_t next = AlignUp(end);
      if (next > next_write_offset_) next_write_offset_ = next;
      return;
    }
    case DELETE: {
      BlockLocation erased;
      if (!live_.Erase(id, &erased)) {
        Malformed(record, offset, "DELETE record for a block that is not live");
        return;
      }
      const uint64_t ulen = static_cast<uint64_t>(erased.length);
      live_bytes_ -= ulen;
      live_bytes_aligned_ -= AlignUp(ulen);
      return;
    }
    default:
      Malformed(record, offset, "record with op_type UNKNOWN");
      return;
  }
}

}  // namespace kudu
