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
#include <optional>

namespace kudu {
namespace fs {

ContainerReplayState::ContainerReplayState(uint64_t data_file_size, uint64_t data_start,
                                           uint64_t fs_block_size)
    : data_file_size_(data_file_size),
      data_start_(data_start),
      fs_block_size_(fs_block_size ? fs_block_size : 4096),
      fs_block_mask_((fs_block_size_ & (fs_block_size_ - 1)) == 0 ? fs_block_size_ - 1 : 0) {
  Reset();
}

bool ContainerReplayState::DataFileGrewTo(uint64_t end) {
  uint64_t size = 0;
  if (!data_file_sizer_ || !data_file_sizer_(&size)) return false;
  data_file_size_ = std::max(data_file_size_, size);
  return end <= data_file_size_;
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

bool ContainerReplayState::Packed() const { return live_.Packed(); }

void ContainerReplayState::Malformed(uint64_t block_id, uint64_t offset, const char* reason) {
  malformed_.push_back(MalformedRecord{block_id, offset, reason, std::string()});
}

uint64_t ContainerReplayState::AlignUpToBlock(uint64_t v) const { return AlignUp(v); }

uint64_t ContainerReplayState::AlignedLength(uint64_t offset, uint64_t length) const {
  return InlineAlignedLength(offset, length);
}

std::vector<KeptDeadBlock> ContainerReplayState::DeadBlocksCompactionKeeps() const {
  std::vector<KeptDeadBlock> kept;
  if (total_blocks_ == 0) return kept;
  // Whether the block a CREATE record made live is still that block.
  auto dead = [this](const KeptDeadBlock& b) {
    const std::optional<BlockLocation> loc = live_.Find(b.block_id);
    return !loc.has_value() || loc->offset != b.offset || loc->length != b.length;
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
  if (dead(last_of_max_id_) && !live_.contains(max_block_id_) &&
      (kept.empty() || kept[0].record_offset != last_of_max_id_.record_offset)) {
    kept.push_back(last_of_max_id_);
  }
  std::sort(kept.begin(), kept.end(), [](const KeptDeadBlock& x, const KeptDeadBlock& y) {
    return x.record_offset < y.record_offset;
  });
  return kept;
}

void ContainerReplayState::OnRecord(const BlockRecord& record, uint64_t offset) {
  Apply(record, offset);
}

}  // namespace fs
}  // namespace kudu
