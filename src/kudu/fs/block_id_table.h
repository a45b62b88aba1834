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

// The hash table under each shard of the server's block map: block id →
// BlockMapEntry, open addressing with linear probing, keys and values in
// separate arrays.
//
// Why not a general-purpose hash map: the open's merge inserts every live
// block once, and profiles (docs/benchmarks.md) showed those inserts as the
// largest single cost of a replay thread, nearly all of it cache misses: a
// good hash sends consecutive ids to random slots, so each insert touches a
// new cache line of the slots and another of the control bytes. Block ids
// are not random: a server hands them out from a counter, so a container's
// live blocks come as runs of consecutive ids. Here an id's home slot keeps
// runs of kRun consecutive ids together (the run is hashed, the id's place
// within the run is not): inserting a run fills one small stretch of the
// key array (kRun keys share a cache line) instead of kRun random lines,
// while runs still spread evenly whatever the ids look like. Lookups probe
// keys only, eight to a cache line; the entry is read once the key matched.
//
// Not thread-safe: the block map locks a shard around it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>

#include "kudu/util/mix64.h"

namespace kudu {
namespace fs {

struct BlockMapEntry {
  uint32_t container = 0;  // index into OpenResult::containers
  int64_t offset = 0;
  int64_t length = 0;
};

class BlockIdTable {
 public:
  // Consecutive ids that share a home stretch of slots.
  static constexpr uint64_t kRun = 8;

  // A well-mixed 64-bit hash of `id`'s run; its high bits place the run in
  // a table.
  static uint64_t RunHash(uint64_t id) { return Mix64(id / kRun); }

  BlockIdTable() = default;
  BlockIdTable(const BlockIdTable&) = delete;
  BlockIdTable& operator=(const BlockIdTable&) = delete;

  // Inserts `id` → `entry` unless `id` is present. Returns the entry that
  // holds `id` afterwards (the new one, or the one already there) and
  // whether it was inserted. The pointer is valid until the next insert.
  const BlockMapEntry* Insert(uint64_t id, uint64_t run_hash, const BlockMapEntry& entry,
                              bool* inserted) {
    if (id == kEmpty) return InsertEmptyKey(entry, inserted);
    if (size_ + 1 > max_size_) Grow();
    size_t p = Home(id, run_hash);
    while (true) {
      const uint64_t k = keys_[p];
      if (k == id) {
        *inserted = false;
        return &values_[p];
      }
      if (k == kEmpty) {
        keys_[p] = id;
        // Field by field: the caller's entry is usually a temporary it just
        // stored field by field, and one 16-byte copy of two of its 8-byte
        // fields cannot be forwarded from those stores (a ~15-cycle stall
        // per insert, a third of the merge).
        BlockMapEntry& v = values_[p];
        v.container = entry.container;
        v.offset = entry.offset;
        v.length = entry.length;
        size_++;
        *inserted = true;
        return &values_[p];
      }
      p = Next(p);
    }
  }
  const BlockMapEntry* Find(uint64_t id, uint64_t run_hash) const;
  // Starts loading the cache lines an insert or lookup of `id` will touch
  // first, so that the misses of several upcoming inserts overlap.
  void Prefetch(uint64_t id, uint64_t run_hash) const {
    if (keys_ == nullptr) return;
    const size_t p = Home(id, run_hash);
    __builtin_prefetch(&keys_[p], 1);
    __builtin_prefetch(&values_[p], 1);
  }

  // Room for `n` ids without growing. With `touch`, the value array's pages
  // are faulted in now (by whoever has time for it) rather than by the
  // inserts that fill them.
  void Reserve(size_t n, bool touch = false);
  size_t size() const { return size_ + (has_empty_key_ ? 1 : 0); }
  // Slots allocated (statistics, tests).
  size_t capacity() const { return capacity_; }
  // Ids it holds before it must grow.
  size_t max_size() const { return max_size_; }

  // fn(id, entry) for every id, in no particular order.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (size_t p = 0; p < capacity_; p++) {
      if (keys_[p] != kEmpty) fn(keys_[p], values_[p]);
    }
    if (has_empty_key_) fn(kEmpty, empty_key_value_);
  }

 private:
  // The key that marks a free slot. The id with this value (a valid,
  // if unlikely, block id) is kept beside the arrays.
  static constexpr uint64_t kEmpty = ~0ULL;
  // At most 3/4 full: linear probing's probe lengths stay short.
  static size_t MaxSizeFor(size_t capacity) { return capacity / 4 * 3; }
  // Slots for at most `n` ids: any multiple of kRun (not only powers of
  // two), so that a table reserved for n ids takes 4/3 n slots, not up to
  // twice that.
  static size_t SlotsFor(size_t n) {
    const size_t slots = (n / 3 + 1) * 4;
    return std::max<size_t>(2 * kRun, (slots + kRun - 1) / kRun * kRun);
  }

  size_t Home(uint64_t id, uint64_t run_hash) const {
    // The run hash scaled to [0, runs) by a multiply (Lemire's "fastrange"):
    // its high bits decide, as a power-of-two table's mask would.
    const uint64_t run = static_cast<uint64_t>(
        (static_cast<unsigned __int128>(run_hash) * (capacity_ / kRun)) >> 64);
    return run * kRun + id % kRun;
  }
  // Linear probing's next slot, wrapping at the end.
  size_t Next(size_t p) const { return p + 1 == capacity_ ? 0 : p + 1; }
  void Grow();
  void Rehash(size_t slots);
  const BlockMapEntry* InsertEmptyKey(const BlockMapEntry& entry, bool* inserted);

  // Raw storage for the values: allocated without constructing (a value is
  // read only where its key says one was written), so a new table costs the
  // key array's initialisation, not a pass over every entry as well.
  struct RawDelete {
    void operator()(BlockMapEntry* p) const { ::operator delete(p); }
  };
  using Values = std::unique_ptr<BlockMapEntry[], RawDelete>;
  static_assert(std::is_trivially_copyable<BlockMapEntry>::value, "written without construction");

  std::unique_ptr<uint64_t[]> keys_;
  Values values_;
  size_t capacity_ = 0;  // slots: a multiple of kRun, >= 2 * kRun once allocated
  size_t size_ = 0;      // ids in the arrays
  size_t max_size_ = 0;  // grow before exceeding
  bool has_empty_key_ = false;
  BlockMapEntry empty_key_value_;
};

}  // namespace fs
}  // namespace kudu
