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

#include <algorithm>

namespace kudu {
namespace fs {

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
  last_at_next_offset_ = KeptDeadBlock();
  last_of_max_id_ = KeptDeadBlock();
}

void ContainerReplayState::Reserve(size_t records) { live_.Reserve(records); }

void ContainerReplayState::Malformed(const BlockRecord& record, uint64_t offset,
                                     const char* reason) {
  malformed_.push_back(MalformedRecord{record.block_id, offset, reason, std::string()});
}

uint64_t ContainerReplayState::AlignUpToBlock(uint64_t v) const { return AlignUp(v); }

uint64_t ContainerReplayState::AlignedLength(uint64_t offset, uint64_t length) const {
  const bool aligned =
      fs_block_mask_ != 0 ? (offset & fs_block_mask_) == 0 : offset % fs_block_size_ == 0;
  return aligned ? AlignUp(length) : length;
}

std::vector<KeptDeadBlock> ContainerReplayState::DeadBlocksCompactionKeeps() const {
  std::vector<KeptDeadBlock> kept;
  if (total_blocks_ == 0) return kept;
  // Whether the block a CREATE record made live is still that block.
  auto dead = [this](const KeptDeadBlock& b) {
    const BlockLocation* loc = live_.Find(b.block_id);
    return loc == nullptr || loc->offset != b.offset || loc->length != b.length;
  };
  // The dead block that sets the next write offset, unless a live block (or
  // the encryption header) reaches as far: then the offset survives anyway.
  // Usually that block is still live, and the walk over every live block
  // is not needed.
  if (dead(last_at_next_offset_)) {
    uint64_t live_reach = AlignUp(data_start_);
    live_.ForEach([&](uint64_t, const BlockLocation& loc) {
      const uint64_t end = AlignUp(static_cast<uint64_t>(loc.offset) +
                                   static_cast<uint64_t>(loc.length));
      if (end > live_reach) live_reach = end;
    });
    if (live_reach < next_write_offset_) kept.push_back(last_at_next_offset_);
  }
  // The dead block of the highest id: with it live, no live id is below it.
  if (dead(last_of_max_id_) && live_.Find(max_block_id_) == nullptr &&
      (kept.empty() || kept[0].record_offset != last_of_max_id_.record_offset)) {
    kept.push_back(last_of_max_id_);
  }
  std::sort(kept.begin(), kept.end(), [](const KeptDeadBlock& x, const KeptDeadBlock& y) {
    return x.record_offset < y.record_offset;
  });
  return kept;
}

void ContainerReplayState::OnRecord(const BlockRecord& record, uint64_t offset) {
  namespace why = malformed_reason;
  records_++;
  const uint64_t id = record.block_id;
  switch (record.op_type) {
    case CREATE: {
      if (!record.has_offset) return Malformed(record, offset, why::kMissingOffset);
      if (!record.has_length) return Malformed(record, offset, why::kMissingLength);
      const int64_t off = record.offset;
      const int64_t len = record.length;
      if (off < 0) return Malformed(record, offset, why::kNegativeOffset);
      if (len < 0) return Malformed(record, offset, why::kNegativeLength);
      // No block can end past INT64_MAX (Kudu's int64 sum would wrap).
      if (off > INT64_MAX - len) return Malformed(record, offset, why::kOffsetLengthOverflow);
      const uint64_t uoff = static_cast<uint64_t>(off), ulen = static_cast<uint64_t>(len);
      const uint64_t end = uoff + ulen;
      if (len > 0 && end > data_file_size_) {
        return Malformed(record, offset, why::kPastEndOfData);
      }
      if (!live_.Insert(id, BlockLocation{off, len})) {
        return Malformed(record, offset, why::kDuplicateCreate);
      }
      live_bytes_ += ulen;
      live_bytes_aligned_ += AlignedLength(uoff, ulen);
      total_blocks_++;
      total_bytes_ += ulen;
      if (id >= max_block_id_ || total_blocks_ == 1) {
        max_block_id_ = id;
        last_of_max_id_ = KeptDeadBlock{id, offset, off, len};
      }
      const uint64_t next = AlignUp(end);
      if (next >= next_write_offset_) {
        next_write_offset_ = next;
        last_at_next_offset_ = KeptDeadBlock{id, offset, off, len};
      }
      return;
    }
    case DELETE: {
      BlockLocation erased;
      if (!live_.Erase(id, &erased)) return Malformed(record, offset, why::kDeleteNotLive);
      live_bytes_ -= static_cast<uint64_t>(erased.length);
      live_bytes_aligned_ -= AlignedLength(static_cast<uint64_t>(erased.offset),
                                           static_cast<uint64_t>(erased.length));
      return;
    }
    default:
      return Malformed(record, offset, why::kUnknownOpType);
  }
}

}  // namespace fs
}  // namespace kudu
