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
// miss: the next slot is next to the last one), a DELETE is a binary search
// that leaves a tombstone, and a block re-created after its DELETE revives
// its tombstone in place. The first CREATE that would break the order moves
// the live blocks into a hash map, which then serves the rest of the replay:
// the result is the same either way, only the cost differs.
//
// A hash map insert per CREATE would be the largest single cost of a replay,
// almost all of it cache misses (the profiles in docs/benchmarks.md); the
// server's block map is filled from this set once the replay has ended, so
// each live block is hashed once, into the server's map.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "kudu/util/page_memory.h"

namespace kudu {
namespace fs {

struct BlockLocation {
  int64_t offset = 0;
  int64_t length = 0;
  bool operator==(const BlockLocation& o) const { return offset == o.offset && length == o.length; }
};

struct LiveBlock {
  uint64_t id;
  BlockLocation loc;
};
// A container's live blocks: a large container's are megabytes searched at
// random by its DELETE records, in page memory from kHugePageBytes.
using LiveBlocks = std::vector<LiveBlock, PageMemoryAllocator<LiveBlock>>;

class LiveBlockSet {
 public:
  // Adds `id` unless it is live already (then returns false, changing nothing).
  // The common case, the next ascending id, is an inline append, written
  // field by field: both a reference to the caller's freshly built
  // temporary and a copy of a built Slot made the compiler reload 16 bytes
  // that had just been stored as two 8-byte fields, which cannot be
  // store-forwarded (a stall per CREATE, half of the record semantics' time).
  bool Insert(uint64_t id, BlockLocation loc) {
    if (!hashed_ && (sorted_.empty() || id > sorted_.back().id)) {
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
  // Where a live block is; nullptr if `id` is not live.
  const BlockLocation* Find(uint64_t id) const;
  bool contains(uint64_t id) const { return Find(id) != nullptr; }
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

  // What the set's memory is made of: the sorted vector or the hash map,
  // and how many slots, tombstones included.
  bool hashed() const { return hashed_; }
  size_t slot_count() const { return hashed_ ? map_.size() : sorted_.size(); }

 private:
  // A valid length is never negative (the record semantics reject it).
  static constexpr int64_t kTombstone = -1;
  // FindSlot searches this many slots (24 KiB, within the L1 cache)
  // directly; more, it interpolates first. Out of the cache a branchless
  // search is slower than a branchy one, whose predicted loads run ahead.
  static constexpr size_t kSearchDirectlyAtMost = 1024;
  using Slot = LiveBlock;
  // The slot holding `id` (live or tombstone), or nullptr.
  Slot* FindSlot(uint64_t id);
  const Slot* FindSlot(uint64_t id) const;
  void MoveToHashMap();
  bool InsertSlow(uint64_t id, BlockLocation loc);
  // Drops the tombstones once they outnumber the live blocks, so that memory
  // follows the live count (a container whose blocks were mostly deleted,
  // or a million CREATE + DELETE pairs), not the record count. Each
  // compaction removes at least half the slots: O(1) per DELETE, amortised.
  void CompactIfMostlyDead();

  bool hashed_ = false;
  size_t live_ = 0;
  size_t tombstones_ = 0;  // slots of sorted_ that are not live
  LiveBlocks sorted_;  // strictly ascending ids while !hashed_
  absl::flat_hash_map<uint64_t, BlockLocation> map_;
};

}  // namespace fs
}  // namespace kudu
