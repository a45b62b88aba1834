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

#include "kudu/fs/live_block_set.h"

#include <algorithm>

namespace kudu {
namespace fs {

void LiveBlockSet::Clear() {
  hashed_ = false;
  live_ = 0;
  tombstones_ = 0;
  sorted_.clear();
  map_.clear();
}

void LiveBlockSet::Reserve(size_t n) {
  if (hashed_) {
    map_.reserve(n);
  } else {
    sorted_.reserve(n);
  }
}

const LiveBlockSet::Slot* LiveBlockSet::FindSlot(uint64_t id) const {
  // A few hundred slots (a server that deletes nearly all it writes keeps
  // about that many per container, and searches them once per DELETE):
  // a binary search without branches, each step a conditional move and a
  // load from the L1 cache, no division and no mispredicted branch.
  if (sorted_.size() <= kSearchDirectlyAtMost) {
    if (sorted_.empty()) return nullptr;
    const Slot* base = sorted_.data();
    for (size_t n = sorted_.size(); n > 1;) {
      const size_t half = n / 2;
      base += base[half].id < id ? half : 0;
      n -= half;
    }
    base += base->id < id ? 1 : 0;  // the first slot not below id
    return base != sorted_.data() + sorted_.size() && base->id == id ? base : nullptr;
  }
  // Interpolation first: a server's ids are close to evenly spaced within a
  // container, so the first guess usually lands on the slot or next to it
  // (a DELETE then costs one or two cache misses, where a binary search of
  // a large container costs a dozen). A few rounds at most, then binary
  // search of what is left, so uneven ids cost no more than log n.
  size_t lo = 0, hi = sorted_.size();  // the slot, if any, is in [lo, hi)
  for (int round = 0; round < 3 && hi - lo > 8; round++) {
    const uint64_t first = sorted_[lo].id, last = sorted_[hi - 1].id;
    if (id < first || id > last) return nullptr;
    // In double: a 128-bit integer division is a library call that costs
    // more than the cache misses the guess saves. Rounding can only move
    // the guess, never out of [lo, hi - 1].
    const double fraction = static_cast<double>(id - first) / static_cast<double>(last - first);
    const size_t guess =
        lo + std::min(hi - 1 - lo, static_cast<size_t>(fraction * static_cast<double>(hi - 1 - lo)));
    const uint64_t at = sorted_[guess].id;
    if (at == id) return &sorted_[guess];
    if (at < id) {
      lo = guess + 1;
    } else {
      hi = guess;
    }
  }
  auto it = std::lower_bound(sorted_.begin() + static_cast<std::ptrdiff_t>(lo),
                             sorted_.begin() + static_cast<std::ptrdiff_t>(hi), id,
                             [](const Slot& s, uint64_t v) { return s.id < v; });
  return it != sorted_.begin() + static_cast<std::ptrdiff_t>(hi) && it->id == id ? &*it : nullptr;
}

LiveBlockSet::Slot* LiveBlockSet::FindSlot(uint64_t id) {
  return const_cast<Slot*>(static_cast<const LiveBlockSet*>(this)->FindSlot(id));
}

void LiveBlockSet::MoveToHashMap() {
  map_.reserve(std::max(sorted_.capacity(), live_ + 1));
  for (const Slot& s : sorted_) {
    if (s.loc.length != kTombstone) map_.emplace(s.id, s.loc);
  }
  sorted_.clear();
  sorted_.shrink_to_fit();
  tombstones_ = 0;
  hashed_ = true;
}

bool LiveBlockSet::InsertSlow(uint64_t id, BlockLocation loc) {
  if (!hashed_) {
    // Not past the last id: a live id, a tombstone, or out of order.
    Slot* s = FindSlot(id);
    if (s != nullptr) {
      if (s->loc.length != kTombstone) return false;
      s->loc = loc;  // re-created after its DELETE: the order still holds
      tombstones_--;
      live_++;
      return true;
    }
    MoveToHashMap();
  }
  if (!map_.try_emplace(id, loc).second) return false;
  live_++;
  return true;
}

bool LiveBlockSet::Erase(uint64_t id, BlockLocation* erased) {
  if (hashed_) {
    auto it = map_.find(id);
    if (it == map_.end()) return false;
    *erased = it->second;
    map_.erase(it);
    live_--;
    return true;
  }
  Slot* s = FindSlot(id);
  if (s == nullptr || s->loc.length == kTombstone) return false;
  *erased = s->loc;
  s->loc.length = kTombstone;
  tombstones_++;
  live_--;
  CompactIfMostlyDead();
  return true;
}

void LiveBlockSet::CompactIfMostlyDead() {
  // Small vectors are not worth the pass.
  constexpr size_t kMinSlots = 64;
  if (tombstones_ <= live_ || sorted_.size() < kMinSlots) return;
  sorted_.erase(std::remove_if(sorted_.begin(), sorted_.end(),
                               [](const Slot& s) { return s.loc.length == kTombstone; }),
                sorted_.end());
  tombstones_ = 0;
}

const BlockLocation* LiveBlockSet::Find(uint64_t id) const {
  if (hashed_) {
    auto it = map_.find(id);
    return it == map_.end() ? nullptr : &it->second;
  }
  const Slot* s = FindSlot(id);
  return s == nullptr || s->loc.length == kTombstone ? nullptr : &s->loc;
}

LiveBlocks LiveBlockSet::TakeSorted() {
  LiveBlocks out;
  if (hashed_) {
    out.reserve(map_.size());
    for (const auto& kv : map_) out.push_back(LiveBlock{kv.first, kv.second});
    std::sort(out.begin(), out.end(),
              [](const LiveBlock& a, const LiveBlock& b) { return a.id < b.id; });
  } else {
    if (tombstones_ > 0) {
      sorted_.erase(std::remove_if(sorted_.begin(), sorted_.end(),
                                   [](const Slot& s) { return s.loc.length == kTombstone; }),
                    sorted_.end());
    }
    // A copy of the live entries when more than an eighth would be spare:
    // it costs a fraction of what parsing them did.
    if (sorted_.capacity() - sorted_.size() > sorted_.size() / 8 + 64) sorted_.shrink_to_fit();
    out = std::move(sorted_);
  }
  Clear();
  return out;
}

}  // namespace fs
}  // namespace kudu
