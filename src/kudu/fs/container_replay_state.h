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

// What a container's records mean (§4 of docs/on-disk-format.md), written
// once. Every strategy feeds the same code through the BlockRecordSink
// interface; the state is local to one container and is merged into the
// server's block map only after its replay has ended (and, after a fallback,
// only the Streaming replay's state is kept).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kudu/fs/block_record.h"
#include "kudu/fs/live_block_set.h"
#include "kudu/fs/replay_outcome.h"

namespace kudu {
namespace fs {

// The reasons of §4.2, one per rule, in the order the rules are tried: a
// record is reported with the first rule it breaks.
namespace malformed_reason {
constexpr const char kMissingOffset[] = "missing_offset";
constexpr const char kMissingLength[] = "missing_length";
constexpr const char kNegativeOffset[] = "negative_offset";
constexpr const char kNegativeLength[] = "negative_length";
constexpr const char kOffsetLengthOverflow[] = "offset_length_overflow";
constexpr const char kPastEndOfData[] = "past_end_of_data";
constexpr const char kDuplicateCreate[] = "duplicate_create";
constexpr const char kDeleteNotLive[] = "delete_not_live";
constexpr const char kUnknownOpType[] = "unknown_op_type";
}  // namespace malformed_reason

struct MalformedRecord {
  uint64_t block_id = 0;
  uint64_t record_offset = 0;  // raw offset of the record in the metadata file
  const char* reason = "";     // one of malformed_reason
  // The record's protobuf text format (tool contract), filled in by the
  // open once the replay has ended: the replay keeps no record bodies.
  std::string text;
};

// The CREATE record of one dead block that a metadata compaction (§7.1)
// keeps, so that the rewritten file replays to the same next block offset
// and highest block id.
struct KeptDeadBlock {
  uint64_t block_id = 0;
  uint64_t record_offset = 0;  // raw offset of its CREATE record
  int64_t offset = 0;          // where its bytes were in <id>.data
  int64_t length = 0;
};

class ContainerReplayState : public BlockRecordSink {
 public:
  // `data_file_size` is the raw size of <id>.data; `data_start` its
  // encryption header size (0 or 64); `fs_block_size` the data dir's
  // filesystem block size.
  ContainerReplayState(uint64_t data_file_size, uint64_t data_start, uint64_t fs_block_size);

  void OnRecord(const BlockRecord& record, uint64_t offset) override;
  // What OnRecord does, for a caller that knows its sink is this class: the
  // replay loop inlines it rather than make a virtual call per record,
  // whose register saves and restores cost as much as a record's checks.
  __attribute__((always_inline)) inline void Apply(const BlockRecord& record, uint64_t offset);
  // Called a few records before Apply(record): starts loading what a
  // DELETE's search will miss on. Changes nothing.
  void PrefetchFor(const BlockRecord& record) const {
    if (record.op_type == DELETE) live_.PrefetchErase(record.block_id);
  }
  // Whether some of the container's blocks are packed: only then do its
  // DELETEs miss at random, and does the replay loop look ahead for them.
  bool Packed() const;

  // How to ask the data file's size again. A CREATE past the end of the
  // size given to the constructor asks it before calling the record
  // malformed, as Kudu does (KUDU-1657): a read-only check beside a running
  // server reads records appended since the data file was stat'ed. Returns
  // false when the size cannot be had (the record stays malformed).
  using DataFileSizer = std::function<bool(uint64_t* size)>;
  void set_data_file_sizer(DataFileSizer sizer) { data_file_sizer_ = std::move(sizer); }

  // Forgets every record applied so far (a failed accelerated replay).
  void Reset();
  // Hint: about how many records to expect, to size the live map once.
  void Reserve(size_t records);

  const LiveBlockSet& live_blocks() const { return live_; }
  // The live blocks by ascending id, moved out for the merge once the replay
  // has ended: live_blocks() is empty afterwards; the counters below keep
  // their values.
  LiveBlocks TakeLiveBlocks() { return live_.TakeSorted(); }
  const std::vector<MalformedRecord>& malformed() const { return malformed_; }

  uint64_t live_count() const { return live_.size(); }
  uint64_t live_bytes() const { return live_bytes_; }
  // Sum of the live blocks' aligned lengths (AlignedLength). Neither counts
  // the encryption header: that is the container's, not a record's.
  uint64_t live_bytes_aligned() const { return live_bytes_aligned_; }
  // A block's aligned length (§4.3, Kudu's LogBlock::fs_aligned_length): its
  // length rounded up to the filesystem block size when it starts on a block
  // boundary; unrounded otherwise (KUDU-1793: where a misaligned block's
  // space ends is not known).
  uint64_t AlignedLength(uint64_t offset, uint64_t length) const;
  // Rounds up to the filesystem block size (saturating).
  uint64_t AlignUpToBlock(uint64_t v) const;
  uint64_t fs_block_size() const { return fs_block_size_; }
  // The data file's size the records were checked against (grown when the
  // sizer found the file grown).
  uint64_t data_file_size() const { return data_file_size_; }
  // The dead blocks a compaction keeps (§7.1), at most two, by ascending
  // record offset; valid once the replay has ended.
  std::vector<KeptDeadBlock> DeadBlocksCompactionKeeps() const;
  // Accepted CREATE records: live and dead blocks.
  uint64_t total_blocks() const { return total_blocks_; }
  uint64_t total_bytes() const { return total_bytes_; }
  uint64_t dead_blocks() const { return total_blocks_ - live_.size(); }
  // Highest id of an accepted CREATE; valid when has_max_block_id().
  uint64_t max_block_id() const { return max_block_id_; }
  bool has_max_block_id() const { return total_blocks_ > 0; }
  // Where the next block would be written: past every block ever created.
  uint64_t next_write_offset() const { return next_write_offset_; }
  uint64_t records_applied() const { return records_; }

 private:
  // Rare: out of line and marked cold, so OnRecord's common path stays
  // small. The id by value: a reference would keep the caller's record in
  // memory (see ParseBlockRecord).
  __attribute__((noinline, cold)) void Malformed(uint64_t block_id, uint64_t offset,
                                                 const char* reason);
  // Whether the data file, asked again, now reaches `end`.
  __attribute__((noinline, cold)) bool DataFileGrewTo(uint64_t end);
  // Twice per CREATE: inlined.
  __attribute__((always_inline)) inline uint64_t AlignUp(uint64_t v) const;
  // AlignedLength, once per CREATE and DELETE: inlined there.
  __attribute__((always_inline)) inline uint64_t InlineAlignedLength(uint64_t offset,
                                                                     uint64_t length) const;

  uint64_t data_file_size_;  // grows when the sizer finds the file grown
  DataFileSizer data_file_sizer_;
  const uint64_t data_start_;
  const uint64_t fs_block_size_;
  // fs_block_size_ - 1 when it is a power of two (every real filesystem),
  // else 0: aligning then needs no division, twice per CREATE.
  const uint64_t fs_block_mask_;

  LiveBlockSet live_;
  std::vector<MalformedRecord> malformed_;
  uint64_t live_bytes_ = 0;
  uint64_t live_bytes_aligned_ = 0;
  uint64_t total_blocks_ = 0;
  uint64_t total_bytes_ = 0;
  uint64_t max_block_id_ = 0;
  uint64_t next_write_offset_ = 0;
  uint64_t records_ = 0;
  // The last accepted CREATE whose aligned end is the next write offset, and
  // the last one of the highest id: the candidates §7.1 keeps when dead.
  KeptDeadBlock last_at_next_offset_;
  KeptDeadBlock last_of_max_id_;
};

// ---------------------------------------------------------------------------
// Inline definitions: once per record, inlined into the replay loop.

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

inline uint64_t ContainerReplayState::InlineAlignedLength(uint64_t offset,
                                                          uint64_t length) const {
  const bool aligned =
      fs_block_mask_ != 0 ? (offset & fs_block_mask_) == 0 : offset % fs_block_size_ == 0;
  return aligned ? AlignUp(length) : length;
}

inline void ContainerReplayState::Apply(const BlockRecord& record, uint64_t offset) {
  namespace why = malformed_reason;
  records_++;
  const uint64_t id = record.block_id;
  switch (record.op_type) {
    case CREATE: {
      if (!record.has_offset) return Malformed(id, offset, why::kMissingOffset);
      if (!record.has_length) return Malformed(id, offset, why::kMissingLength);
      const int64_t off = record.offset;
      const int64_t len = record.length;
      if (off < 0) return Malformed(id, offset, why::kNegativeOffset);
      if (len < 0) return Malformed(id, offset, why::kNegativeLength);
      // No block can end past INT64_MAX (Kudu's int64 sum would wrap).
      if (off > INT64_MAX - len) return Malformed(id, offset, why::kOffsetLengthOverflow);
      const uint64_t uoff = static_cast<uint64_t>(off), ulen = static_cast<uint64_t>(len);
      const uint64_t end = uoff + ulen;
      if (len > 0 && end > data_file_size_ && !DataFileGrewTo(end)) {
        return Malformed(id, offset, why::kPastEndOfData);
      }
      if (!live_.Insert(id, BlockLocation{off, len})) {
        return Malformed(id, offset, why::kDuplicateCreate);
      }
      live_bytes_ += ulen;
      live_bytes_aligned_ += InlineAlignedLength(uoff, ulen);
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
      if (!live_.Erase(id, &erased)) return Malformed(id, offset, why::kDeleteNotLive);
      live_bytes_ -= static_cast<uint64_t>(erased.length);
      live_bytes_aligned_ -= InlineAlignedLength(static_cast<uint64_t>(erased.offset),
                                                 static_cast<uint64_t>(erased.length));
      return;
    }
    default:
      return Malformed(id, offset, why::kUnknownOpType);
  }
}

}  // namespace fs
}  // namespace kudu
