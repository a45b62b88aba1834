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

#include "kudu/fs/block_id_table.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "kudu/util/prefault.h"

namespace kudu {
namespace fs {

const BlockMapEntry* BlockIdTable::Find(uint64_t id, uint64_t run_hash) const {
  const Key key = has_base_ ? KeyOf(id) : kFree;
  if (key == kFree) {
    auto it = outside_.find(id);
    return it == outside_.end() ? nullptr : Held(id, it->second);
  }
  if (keys_ == nullptr) return nullptr;
  const size_t p = Probe(id, key, run_hash);
  return keys_[p] == key ? Held(id, values_[p]) : nullptr;
}

void BlockIdTable::Reserve(size_t n, bool touch) {
  if (keys_ == nullptr || MaxSizeFor(capacity_) < n) {
    Rehash(std::max(SlotsFor(n), capacity_));
    if (touch && !AllocatedPresent<PackedEntry>(capacity_)) {
      PrefaultForWrite(values_.get(), capacity_ * sizeof(PackedEntry));
    }
  }
}

uint64_t BlockIdTable::bytes() const {
  // The side maps' slots and their control bytes.
  const uint64_t side = unpacked_.capacity() * (sizeof(std::pair<uint64_t, BlockMapEntry>) + 1) +
                        outside_.capacity() * (sizeof(std::pair<uint64_t, PackedEntry>) + 1);
  return keys_.get_deleter().bytes + values_.get_deleter().bytes + side;
}

void BlockIdTable::Grow() { Rehash(keys_ == nullptr ? SlotsFor(0) : 2 * capacity_); }

size_t BlockIdTable::SlotsInWholePages(size_t slots) {
  const size_t keys = PageMemoryWholeHugePages(slots * sizeof(Key)) / sizeof(Key);
  const size_t values = PageMemoryWholeHugePages(slots * sizeof(PackedEntry)) / sizeof(PackedEntry);
  return std::max(slots, std::min(keys, values) / kRun * kRun);
}

void BlockIdTable::Rehash(size_t slots) {
  slots = SlotsInWholePages(slots);
  Array<Key> old_keys = std::move(keys_);
  Array<PackedEntry> old_values = std::move(values_);
  const size_t old_capacity = capacity_;
  keys_ = Allocate<Key>(slots);
  // Only the keys are initialised: an entry is first written by the insert
  // that fills it (a smaller value array's pages are faulted in by
  // Reserve's touch or by those inserts).
  values_ = Allocate<PackedEntry>(slots);
  // Every key kFree. A key array too small for page memory of its own is
  // made present first: one call where the memset would fault page by page.
  if (!AllocatedPresent<Key>(slots)) PrefaultForWrite(keys_.get(), slots * sizeof(Key));
  static_assert(kFree == ~Key{0}, "the memset writes all ones");
  std::memset(keys_.get(), 0xff, slots * sizeof(Key));
  capacity_ = slots;
  max_size_ = MaxSizeFor(slots);
  // Entries move packed as they are: the side map is keyed by id, not by
  // slot, and stays as it is.
  for (size_t p = 0; p < old_capacity; p++) {
    const Key key = old_keys[p];
    if (key == kFree) continue;
    const uint64_t id = base_ + key;
    const size_t q = Probe(id, key, RunHash(id));
    keys_[q] = key;
    values_[q] = old_values[p];
  }
  // Arrays from the arena are not freed before it: their pages go back now.
  // A map sized after containers that had lost more of their blocks than
  // the rest (the largest metadata files, claimed first) grows every shard
  // once, and would otherwise hold all its first tables to the end.
  if (old_keys.get_deleter().from_arena) {
    arena_->Release(old_keys.get(), old_keys.get_deleter().bytes);
  }
  if (old_values.get_deleter().from_arena) {
    arena_->Release(old_values.get(), old_values.get_deleter().bytes);
  }
}

bool BlockIdTable::InsertOutside(uint64_t id, const BlockMapEntry& entry, uint32_t* held_by) {
  auto r = outside_.try_emplace(id, PackedEntry{0});
  if (!r.second) {
    *held_by = Unpack(id, r.first->second).container;
    return false;
  }
  Pack(id, entry, &r.first->second);
  if (outside_.size() >= rebase_check_at_) MaybeRebase();
  return true;
}

void BlockIdTable::MaybeRebase() {
  rebase_check_at_ = 2 * outside_.size();
  uint64_t lo = ~uint64_t{0};
  uint64_t hi = 0;
  auto see = [&](uint64_t id) {
    lo = std::min(lo, id);
    hi = std::max(hi, id);
  };
  for (size_t p = 0; p < capacity_; p++) {
    if (keys_[p] != kFree) see(base_ + keys_[p]);
  }
  for (const auto& kv : outside_) see(kv.first);
  if (hi - lo >= kFree) return;
  std::vector<std::pair<uint64_t, PackedEntry>> all;
  all.reserve(size_ + outside_.size());
  for (size_t p = 0; p < capacity_; p++) {
    if (keys_[p] != kFree) all.emplace_back(base_ + keys_[p], values_[p]);
  }
  all.insert(all.end(), outside_.begin(), outside_.end());
  absl::flat_hash_map<uint64_t, PackedEntry>().swap(outside_);
  // The room left in the window, shared out on both sides of the ids held.
  base_ = lo - ((kFree - 1) - (hi - lo)) / 2;
  if (capacity_ > 0) std::memset(keys_.get(), 0xff, capacity_ * sizeof(Key));
  size_ = 0;
  if (keys_ == nullptr || MaxSizeFor(capacity_) < all.size()) {
    Rehash(std::max(SlotsFor(all.size()), capacity_));
  }
  // Entries move packed as they are; the unpacked map is keyed by id.
  for (const auto& [id, value] : all) {
    const Key key = KeyOf(id);
    const size_t p = Probe(id, key, RunHash(id));
    keys_[p] = key;
    values_[p] = value;
    size_++;
  }
}

}  // namespace fs
}  // namespace kudu
