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
// keys only, sixteen to a cache line; the entry is read once the key matched.
//
// The map holds every live block of the server for as long as it runs, so
// its slot size is most of the open's memory per live block. A slot stores
// its entry packed in 8 bytes (PackedEntry below) instead of the 24 of a
// BlockMapEntry, and its key in 4: the id's distance from the table's base.
// A server's ids come from one counter (Kudu's starts at 1 and goes on from
// the highest id found), so its live ids lie within 2^32 of each other
// unless it has created billions of blocks since its oldest live one; the
// window of keys is centred on the first id inserted, and moves if that
// id turns out to lie near one end. A slot is then 12 bytes, and a run's
// entries share one cache line, its keys half of one. The rare id outside
// the window is kept beside the slots with its entry packed, and the rare
// entry too large to pack is kept whole in a side map, so every id and
// every value the record semantics accept comes back exactly as it went in.
//
// Not thread-safe, lookups included: the block map locks a shard around it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include <absl/container/flat_hash_map.h>

#include "kudu/util/mix64.h"
#include "kudu/util/page_arena.h"
#include "kudu/util/page_memory.h"

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

  // Inserts `id` → `entry` unless `id` is present; then returns false and
  // the container of the entry already there in `*held_by` (all the merge
  // reports of a duplicate). Nothing is written but the slot: this runs
  // once per live block of the server, and each store more is one more
  // entry in a store buffer that the slots' cache misses keep full.
  bool Insert(uint64_t id, uint64_t run_hash, const BlockMapEntry& entry, uint32_t* held_by) {
    if (__builtin_expect(!has_base_, 0)) SetBase(id);
    const Key key = KeyOf(id);
    if (__builtin_expect(key == kFree, 0)) return InsertOutside(id, entry, held_by);
    if (size_ + 1 > max_size_) Grow();
    const size_t p = Probe(id, key, run_hash);
    if (keys_[p] == key) {
      *held_by = Unpack(id, values_[p]).container;
      return false;
    }
    keys_[p] = key;
    Pack(id, entry, &values_[p]);
    size_++;
    return true;
  }
  // The entry of `id`, or nullptr. The pointer is valid until the next
  // Find.
  const BlockMapEntry* Find(uint64_t id, uint64_t run_hash) const;
  // Starts loading the cache lines an insert or lookup of `id` will touch
  // first, so that the misses of several upcoming inserts overlap.
  // Inlined by force: GCC finds a function whose only statements are
  // prefetches free of side effects and deletes the calls to it, prefetches
  // and all, before it would inline them.
  __attribute__((always_inline)) void Prefetch(uint64_t id, uint64_t run_hash) const {
    if (keys_ == nullptr) return;
    const size_t p = Home(id, run_hash);
    __builtin_prefetch(&keys_[p], 1);
    __builtin_prefetch(&values_[p], 1);
  }

  // Arrays smaller than a huge page are taken from `arena` while it lasts
  // (it must outlive the table), not each from the allocator: see
  // util/page_arena.h. Before the table allocates.
  void UseArena(PageArena* arena) { arena_ = arena; }
  // The bytes a table reserved for `n` ids takes from an arena: its arrays
  // smaller than a huge page, each 64-byte aligned.
  static uint64_t ArenaBytesFor(size_t n) {
    const size_t slots = SlotsFor(n);
    auto small = [](uint64_t bytes) {
      return PageMemoryWholeHugePages(bytes) >= kHugePageBytes ? 0 : (bytes + 63) / 64 * 64;
    };
    return small(slots * sizeof(Key)) + small(slots * sizeof(PackedEntry));
  }

  // Room for `n` ids without growing. With `touch`, the value array's pages
  // are faulted in now (by whoever has time for it) rather than by the
  // inserts that fill them.
  void Reserve(size_t n, bool touch = false);
  size_t size() const { return size_ + outside_.size(); }
  // Slots allocated.
  size_t capacity() const { return capacity_; }
  // Ids it holds before it must grow.
  size_t max_size() const { return max_size_; }
  // Entries whose offset and length are kept beside the slots because they
  // do not fit a slot: what the side map holds.
  size_t unpacked_size() const { return unpacked_.size(); }
  // Ids kept beside the slots because they lie outside the keys' window.
  size_t outside_size() const { return outside_.size(); }
  // Bytes allocated for the slots and the side map (statistics).
  uint64_t bytes() const;
  // Bytes a table reserved for `n` ids allocates (with no side map).
  static uint64_t BytesFor(size_t n) {
    const size_t slots = SlotsFor(n);
    return PageMemoryWholeHugePages(slots * sizeof(Key)) +
           PageMemoryWholeHugePages(slots * sizeof(PackedEntry));
  }

  // fn(id, entry) for every id, in no particular order.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (size_t p = 0; p < capacity_; p++) {
      if (keys_[p] != kFree) fn(base_ + keys_[p], Unpack(base_ + keys_[p], values_[p]));
    }
    for (const auto& kv : outside_) fn(kv.first, Unpack(kv.first, kv.second));
  }

 private:
  // A BlockMapEntry in 8 bytes, for the blocks a server writes: the offset
  // in 4 KiB units (22 bits: a block starts on a filesystem block, and a
  // container's data file stays under 16 GiB, Kudu's default cap being 10
  // GiB), the length (25 bits: under 32 MiB, a CFile of a 32 MiB rowset at
  // most) and the container (17 bits: eight times the containers of the
  // largest server this project was measured against). Bits 0-21 are the
  // offset, 22-46 the length, 47-63 the container. The word kUnpacked says
  // that the entry is in the side map instead: a misaligned or negative
  // offset, one of 16 GiB or more (a length-0 block may lie anywhere past
  // its file's end), a length of 32 MiB or more or negative, a container
  // index of 2^17 - 1 or more.
  using PackedEntry = uint64_t;
  static constexpr int kOffsetShift = 12;
  static constexpr int kOffsetBits = 22;
  static constexpr int kLengthBits = 25;
  static constexpr int kContainerShift = kOffsetBits + kLengthBits;
  static constexpr uint64_t kOffsetLimit = uint64_t{1} << (kOffsetBits + kOffsetShift);
  static constexpr uint64_t kLengthLimit = uint64_t{1} << kLengthBits;
  // The all-ones container field is kUnpacked's alone.
  static constexpr uint64_t kContainerLimit = (uint64_t{1} << (64 - kContainerShift)) - 1;
  static constexpr PackedEntry kUnpacked = ~uint64_t{0};
  static_assert(sizeof(PackedEntry) * kRun == 64, "a run's entries fill one cache line");

  // Whether the entry fits a slot (a negative value, as an unsigned one, is
  // too large for its field).
  static bool Fits(const BlockMapEntry& e) {
    const uint64_t offset = static_cast<uint64_t>(e.offset);
    return offset < kOffsetLimit && (offset & ((uint64_t{1} << kOffsetShift) - 1)) == 0 &&
           static_cast<uint64_t>(e.length) < kLengthLimit && e.container < kContainerLimit;
  }
  void Pack(uint64_t id, const BlockMapEntry& e, PackedEntry* slot) {
    if (__builtin_expect(Fits(e), 1)) {
      *slot = static_cast<uint64_t>(e.offset) >> kOffsetShift |
              static_cast<uint64_t>(e.length) << kOffsetBits |
              uint64_t{e.container} << kContainerShift;
    } else {
      *slot = kUnpacked;
      unpacked_[id] = e;
    }
  }
  BlockMapEntry Unpack(uint64_t id, PackedEntry slot) const {
    if (__builtin_expect(slot == kUnpacked, 0)) return unpacked_.at(id);
    BlockMapEntry e;
    e.container = static_cast<uint32_t>(slot >> kContainerShift);
    e.offset = static_cast<int64_t>((slot & ((uint64_t{1} << kOffsetBits) - 1)) << kOffsetShift);
    e.length = static_cast<int64_t>((slot >> kOffsetBits) & (kLengthLimit - 1));
    return e;
  }
  // `id`'s entry, unpacked into held_.
  const BlockMapEntry* Held(uint64_t id, PackedEntry slot) const {
    held_ = Unpack(id, slot);
    return &held_;
  }

  // A slot's key: the id's distance from base_. kFree marks a free slot;
  // an id at that distance or more (or below the base) is kept in outside_.
  using Key = uint32_t;
  static constexpr Key kFree = ~Key{0};
  // The window: the kFree ids from base_ on, modulo 2^64 (the distance is
  // one-to-one, so the window may wrap past 2^64 - 1), centred on the first
  // id inserted.
  void SetBase(uint64_t id) {
    has_base_ = true;
    base_ = id - (uint64_t{1} << 31);
  }
  // `id`'s key, or kFree when it lies outside the window.
  Key KeyOf(uint64_t id) const {
    const uint64_t d = id - base_;
    return d < kFree ? static_cast<Key>(d) : kFree;
  }
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
  // The slot that holds `id` (whose key is `key`), or else the free slot
  // where it goes.
  size_t Probe(uint64_t id, Key key, uint64_t run_hash) const {
    size_t p = Home(id, run_hash);
    while (true) {
      const Key k = keys_[p];
      if (k == key || k == kFree) return p;
      p = p + 1 == capacity_ ? 0 : p + 1;
    }
  }
  void Grow();
  // At least `slots`, and as many more as the arrays' whole huge pages hold
  // anyway (PageMemoryWholeHugePages): used, they lower the load instead of
  // lying idle.
  static size_t SlotsInWholePages(size_t slots);
  void Rehash(size_t slots);
  bool InsertOutside(uint64_t id, const BlockMapEntry& entry, uint32_t* held_by);
  // Once the side map holds kRebaseCheck ids, and each time it has doubled
  // since: if every id held spans less than the window, moves the window
  // to hold them all (the first id may lie near one end of the server's
  // ids). One pass over the slots; otherwise nothing changes.
  static constexpr size_t kRebaseCheck = 4096;
  void MaybeRebase();

  // Raw storage, cache-line aligned (a run's keys are half a line, its
  // entries a whole one): allocated without constructing, the keys then set to kFree and
  // an entry read only where its key says one was written, so a new table
  // costs the key array's initialisation, not a pass over every entry too.
  // An array of kHugePageBytes or more is page memory of its own (huge
  // pages where allowed, present from the start, and where that costs at
  // most a quarter more, whole huge pages to its end): a server-scale table
  // is hundreds of MiB written at random.
  static constexpr std::align_val_t kAlign{64};
  struct RawDelete {
    RawDelete() : bytes(0) {}
    explicit RawDelete(size_t n, bool from_arena = false) : bytes(n), from_arena(from_arena) {}
    size_t bytes;
    bool from_arena;  // freed with the arena
    void operator()(void* p) const {
      if (from_arena) return;
      if (bytes >= kHugePageBytes) {
        PageMemoryFree(p, bytes);
      } else {
        ::operator delete(p, kAlign);
      }
    }
  };
  template <typename T>
  using Array = std::unique_ptr<T[], RawDelete>;
  template <typename T>
  Array<T> Allocate(size_t n) {
    const size_t bytes = PageMemoryWholeHugePages(n * sizeof(T));
    if (bytes < kHugePageBytes && arena_ != nullptr) {
      if (void* p = arena_->Allocate(bytes)) {
        return Array<T>(static_cast<T*>(p), RawDelete{bytes, true});
      }
    }
    void* p = bytes >= kHugePageBytes ? PageMemoryAllocate(bytes) : ::operator new(bytes, kAlign);
    return Array<T>(static_cast<T*>(p), RawDelete{bytes});
  }
  // Whether an array of `n` T is present from its allocation.
  template <typename T>
  static bool AllocatedPresent(size_t n) {
    return n * sizeof(T) >= kHugePageBytes;
  }

  PageArena* arena_ = nullptr;
  Array<Key> keys_;
  Array<PackedEntry> values_;
  size_t capacity_ = 0;  // slots: a multiple of kRun, >= 2 * kRun once allocated
  size_t size_ = 0;      // ids in the arrays
  size_t max_size_ = 0;  // grow before exceeding
  // The entries that do not fit a slot, by id.
  absl::flat_hash_map<uint64_t, BlockMapEntry> unpacked_;
  // Where the keys' window starts, set by the first insert.
  uint64_t base_ = 0;
  bool has_base_ = false;
  // The ids outside the window, with their entries packed as in a slot (a
  // server whose live ids span more than 2^32 keeps some of them here, at
  // 19-39 bytes each instead of a slot's 16 per reserved id).
  absl::flat_hash_map<uint64_t, PackedEntry> outside_;
  size_t rebase_check_at_ = kRebaseCheck;
  // What Find returns a pointer to.
  mutable BlockMapEntry held_;
};

}  // namespace fs
}  // namespace kudu
