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

// The live blocks of one container while its metadata is replayed.
//
// A server hands out block ids in increasing order, so the CREATE records of
// one container almost always arrive with ascending ids. While they do, the
// set is a vector sorted by id: a CREATE is an append (no hashing, no cache
// miss: the next slot is next to the last one), a DELETE is a search that
// leaves a tombstone (a probe of an index of the slots in a set that
// deletes about as much as it creates), and a block re-created after its
// DELETE revives its tombstone in place. The first CREATE that would break
// the order moves the live blocks into a hash map, which then serves the
// rest of the replay: the result is the same either way, only the cost
// differs.
//
// A hash map insert per CREATE would be the largest single cost of a replay,
// almost all of it cache misses (the profiles in docs/benchmarks.md); the
// server's block map is filled from this set once the replay has ended, so
// each live block is hashed once, into the server's map.
//
// A forward replay holds every block its container created until the DELETE
// of it arrives: a container filled with millions of blocks and emptied
// later holds them all at the point of its file between the two. Past
// kHotSlots sorted slots, the oldest are packed, 12 bytes each instead of 24,
// in runs that share a first id and a base offset; the newest stay in the
// vector, where CREATEs append. A packed block is found, deleted and
// re-created like any other; at the hand-over the packed slots are widened
// in place, in the same memory, so a live-heavy container's array costs no
// more than without packing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "kudu/util/page_memory.h"

namespace kudu {
namespace fs {

// Trivial (no member initialisers), so that a vector of live blocks grows
// without first zeroing what is written next (PageMemoryAllocator).
struct BlockLocation {
  int64_t offset;
  int64_t length;
  bool operator==(const BlockLocation& o) const { return offset == o.offset && length == o.length; }
};

struct LiveBlock {
  uint64_t id;
  BlockLocation loc;
};
// A container's live blocks: a large container's are megabytes searched at
// random by its DELETE records, in page memory from kHugePageBytes.
using LiveBlocks = std::vector<LiveBlock, PageMemoryAllocator<LiveBlock>>;
static_assert(std::is_trivially_default_constructible<LiveBlock>::value,
              "LiveBlocks grow without zeroing");

class LiveBlockSet {
 public:
  // Adds `id` unless it is live already (then returns false, changing nothing).
  // The common case, the next ascending id, is an inline append into room
  // the vector has (growing it, and packing, are for InsertSlow), written
  // field by field: both a reference to the caller's freshly built
  // temporary and a copy of a built Slot made the compiler reload 16 bytes
  // that had just been stored as two 8-byte fields, which cannot be
  // store-forwarded (a stall per CREATE, half of the record semantics' time).
  bool Insert(uint64_t id, BlockLocation loc) {
    if (!hashed_ && !sorted_.empty() && id > sorted_.back().id &&
        sorted_.size() != sorted_.capacity()) {
      Slot& s = sorted_.emplace_back();
      s.id = id;
      s.loc.offset = loc.offset;
      s.loc.length = loc.length;
      live_++;
      return true;
    }
    return InsertSlow(id, loc);
  }
  // Removes `id` and returns where it was; false if it is not live.
  bool Erase(uint64_t id, BlockLocation* erased);
  // Where a live block is; nothing if `id` is not live.
  std::optional<BlockLocation> Find(uint64_t id) const;
  // Starts loading the slot an Erase of `id` reads first, where that is a
  // cache miss at random (a packed block: a container filled and emptied
  // later), so that the replay loop, a few records ahead, overlaps the miss
  // with the records between. Changes nothing.
  void PrefetchErase(uint64_t id) const {
    if (InPacked(id) && !hashed_) PrefetchPacked(id);
  }
  // Whether some blocks are packed.
  bool Packed() const { return !hashed_ && packed_count_ > 0; }
  bool contains(uint64_t id) const { return Find(id).has_value(); }
  size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }

  void Clear();
  // About how many CREATE records to expect.
  void Reserve(size_t n);

  // Calls fn(id, location) for every live block: in ascending id order while
  // the ids arrived in order, in hash order otherwise.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    if (hashed_) {
      for (const auto& kv : map_) fn(kv.first, kv.second);
      return;
    }
    for (size_t r = 0; r < runs_.size(); r++) {
      for (size_t k = runs_[r].begin; k < RunEnd(r); k++) {
        const PackedSlot p = LoadPacked(k);
        if (p.length != kPackedTombstone) fn(runs_[r].IdOf(p), runs_[r].LocationOf(p));
      }
    }
    for (const Slot& s : sorted_) {
      if (s.loc.length != kTombstone) fn(s.id, s.loc);
    }
  }
  // Hands over every live block by ascending id and leaves the set empty.
  // While the ids arrived in order this is the set's own vector, moved out
  // (its tombstones dropped in place): the open's merge reads it where it
  // is instead of copying it. Its capacity is cut to about its size: the
  // vector waits for the merge, and room reserved for the CREATE records
  // (or left by deleted blocks) would otherwise be held per container.
  LiveBlocks TakeSorted();

  // What the set's memory is made of: the sorted vector (and its packed
  // slots) or the hash map, and how many slots, tombstones included.
  bool hashed() const { return hashed_; }
  size_t slot_count() const { return hashed_ ? map_.size() : sorted_.size() + packed_count_; }
  // The bytes the sorted slots take (24 each, 12 packed, and the runs).
  size_t sorted_slot_bytes() const {
    return sorted_.size() * sizeof(Slot) + packed_count_ * kPackedBytes +
           runs_.size() * sizeof(PackedRun);
  }

  // Sorted slots kept 24 bytes wide; past them the oldest are packed. 3 MiB:
  // a container whose replay never holds more slots than this never packs.
  static constexpr size_t kHotSlots = 1 << 17;

 private:
  // A valid length is never negative (the record semantics reject it).
  static constexpr int64_t kTombstone = -1;
  // FindSlot searches this many slots (24 KiB, within the L1 cache)
  // directly; more, it first guesses from the ids where the block is and
  // searches a window around the guess (about 4 sqrt(n) slots), and the
  // rest of the set on the id's side where the ids are too uneven for the
  // window to hold it.
  static constexpr size_t kSearchDirectlyAtMost = 1024;
  using Slot = LiveBlock;
  // The slot holding `id` (live or tombstone), or nullptr.
  Slot* FindSlot(uint64_t id);
  const Slot* FindSlot(uint64_t id) const;
  // The same, through index_ while the set has kIndexedSlotsFrom to
  // kIndexedSlotsAtMost slots: what a DELETE takes.
  Slot* FindSlotIndexed(uint64_t id);
  // Slots moved: index_ is rebuilt at its next use.
  void ForgetIndex() { indexed_ = 0; }
  void MoveToHashMap();
  bool InsertSlow(uint64_t id, BlockLocation loc);
  // Drops the tombstones once they outnumber the live blocks (an indexed
  // set: kIndexedTombstonesPerLive times), so that memory follows the live
  // count (a container whose blocks were mostly deleted, or a million
  // CREATE + DELETE pairs), not the record count. Each compaction removes
  // at least half the slots: O(1) per DELETE, amortised.
  void CompactIfMostlyDead();

  // A packed slot: its id and offset relative to its run's, and its
  // length, kPackedTombstone once deleted. Stored at byte 12 k of packed_.
  struct PackedSlot {
    uint32_t id_delta;
    uint32_t offset_delta;
    uint32_t length;
  };
  static constexpr size_t kPackedBytes = sizeof(PackedSlot);
  static_assert(kPackedBytes == 12 && 2 * kPackedBytes == sizeof(LiveBlock),
                "two packed slots take the room of one live block");
  static constexpr uint32_t kPackedTombstone = UINT32_MAX;
  static constexpr size_t kRunSlots = 64;
  // Up to kRunSlots consecutive packed slots, [begin, the next run's begin).
  struct PackedRun {
    uint64_t first_id;
    int64_t base_offset;
    size_t begin;
    uint64_t IdOf(const PackedSlot& p) const { return first_id + p.id_delta; }
    BlockLocation LocationOf(const PackedSlot& p) const {
      return BlockLocation{base_offset + static_cast<int64_t>(p.offset_delta),
                           static_cast<int64_t>(p.length)};
    }
  };
  // Whether a block fits a run: its id and offset within 32 bits of the
  // run's first id and base offset (the distances given), and shorter than
  // the tombstone mark.
  static bool Fits(uint64_t id_distance, uint64_t offset_distance, int64_t length) {
    return id_distance <= UINT32_MAX && offset_distance <= UINT32_MAX &&
           static_cast<uint64_t>(length) < kPackedTombstone;
  }
  // `b` packed into a run it fits.
  static PackedSlot Encode(const LiveBlock& b, uint64_t first_id, int64_t base_offset) {
    return PackedSlot{
        static_cast<uint32_t>(b.id - first_id),
        static_cast<uint32_t>(static_cast<uint64_t>(b.loc.offset) - static_cast<uint64_t>(base_offset)),
        static_cast<uint32_t>(b.loc.length)};
  }
  PackedSlot LoadPacked(size_t k) const {
    PackedSlot p;
    std::memcpy(&p, reinterpret_cast<const char*>(packed_.data()) + k * kPackedBytes, kPackedBytes);
    return p;
  }
  // Field by field: a PackedSlot built on the stack and copied whole would
  // be reloaded in 8 bytes just after being stored in 4, which cannot be
  // store-forwarded (a stall per block, most of the packing's time).
  void StorePacked(size_t k, const PackedSlot& p) {
    char* at = reinterpret_cast<char*>(packed_.data()) + k * kPackedBytes;
    std::memcpy(at, &p.id_delta, sizeof(uint32_t));
    std::memcpy(at + 4, &p.offset_delta, sizeof(uint32_t));
    std::memcpy(at + 8, &p.length, sizeof(uint32_t));
  }
  size_t RunEnd(size_t r) const { return r + 1 < runs_.size() ? runs_[r + 1].begin : packed_count_; }
  // Whether `id` would be among the packed slots (it precedes every id of
  // sorted_).
  bool InPacked(uint64_t id) const { return packed_count_ > 0 && id <= packed_last_id_; }
  // The packed slot holding `id` (live or tombstone) and its run; false if none.
  bool FindPacked(uint64_t id, size_t* k, size_t* run) const;
  void PrefetchPacked(uint64_t id) const;
  // The run that would hold `id` (the last whose first id is not above
  // it), or runs_.size() when none can.
  size_t RunFor(uint64_t id) const;
  // The slot of run `r` where evenly spaced ids put the id `delta` past the
  // run's first: where FindPacked starts.
  size_t PackedGuess(size_t r, uint32_t delta) const;
  // Packs sorted_'s oldest slots (all but a quarter of kHotSlots), dropping
  // their tombstones. A block no run can hold (a length or an offset
  // beyond 32 bits of its run) stops packing for good.
  void PackOldest();
  // How many of `blocks[0, n)` (at most kRunSlots) one run starting at
  // blocks[0] holds, and its base offset; 0 if blocks[0] fits no run.
  static size_t RunLength(const LiveBlock* blocks, size_t n, int64_t* base);
  // Packs `blocks[0, n)`, a run RunLength gave, at packed slot `at`.
  PackedRun WriteRun(const LiveBlock* blocks, size_t n, int64_t base, size_t at);
  // Appends `blocks` (live, ascending, after every packed id) as runs.
  // Returns how many it packed: fewer than `n` only where a block cannot be
  // packed even alone.
  size_t AppendRuns(const LiveBlock* blocks, size_t n);
  // Drops the packed tombstones, rewriting the runs in place (each run's
  // live slots still fit one run, so there are never more runs than
  // before), and gives back the memory freed.
  void RepackLive();
  void CompactPackedIfMostlyDead();
  // Widens every packed slot (no tombstone left) in place into packed_'s
  // first packed_count_ live blocks.
  void WidenPacked();

  bool hashed_ = false;
  // What Reserve was told: the size of a hash map moved to.
  size_t expected_ = 0;
  size_t live_ = 0;
  size_t tombstones_ = 0;  // slots of sorted_ that are not live
  LiveBlocks sorted_;  // strictly ascending ids while !hashed_, after every packed id
  // Packing stops (for good) at SIZE_MAX.
  size_t hot_limit_ = kHotSlots;
  // The packed slots, 12 bytes each, in the bytes of a vector of live blocks
  // (of ceil(packed_count_ / 2) elements): the vector the merge is handed
  // once they are widened.
  LiveBlocks packed_;
  std::vector<PackedRun> runs_;
  size_t packed_count_ = 0;
  size_t packed_tombstones_ = 0;
  uint64_t packed_last_id_ = 0;
  absl::flat_hash_map<uint64_t, BlockLocation> map_;

  // The positions of sorted_'s slots by id, for the sets a server that
  // deletes nearly all it writes searches once per DELETE: a few hundred
  // to a few thousand slots, where a search is a dozen dependent loads and
  // a probe here one or two. Open addressing, each entry a slot's position
  // plus one (0: empty), at most half full. Built by a DELETE once the set
  // has lost as many blocks as it holds (a set that mostly grows never
  // pays for it) and brought up to date by each next one with the slots
  // appended since, so a CREATE does no more than before; a compaction or
  // packing moves slots and forgets it. Below kIndexedSlotsFrom a search
  // reads a few cache lines; above kIndexedSlotsAtMost the table would
  // outgrow 64 KiB, and FindSlot's interpolated window serves as before.
  static constexpr size_t kIndexedSlotsFrom = 64;
  static constexpr size_t kIndexedSlotsAtMost = 8192;
  // An indexed set finds a DELETE's slot in a probe or two however many
  // tombstones it holds, and each compaction makes the next DELETE build
  // the index again: within kIndexedSlotsAtMost it compacts once its
  // tombstones are this many times its live slots, not once they outnumber
  // them (docs/benchmarks.md, "Tombstones an indexed set keeps").
  static constexpr size_t kIndexedTombstonesPerLive = 3;
  std::vector<uint16_t> index_;
  size_t indexed_ = 0;  // sorted_[0, indexed_) are in index_
  size_t erased_ = 0;   // blocks of sorted_ erased since Clear
};

}  // namespace fs
}  // namespace kudu
