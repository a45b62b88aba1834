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

#include "kudu/util/page_memory.h"

namespace kudu {
namespace fs {

namespace {

// The first index in [0, n) whose key is not below `id` (n if none), for
// strictly ascending keys (the packed runs' first ids). Interpolation
// first: a server's ids are close to evenly spaced within a container, so
// the first guess usually lands on the key or next to it (one or two cache
// misses, where a binary search of millions of blocks' runs costs a dozen).
// A few rounds at most, then binary search of what is left, so uneven ids
// cost no more than log n.
template <typename KeyAt>
size_t LowerBound(size_t n, uint64_t id, const KeyAt& key) {
  size_t lo = 0, hi = n;  // the answer is in [lo, hi]
  for (int round = 0; round < 3 && hi - lo > 8; round++) {
    const uint64_t first = key(lo), last = key(hi - 1);
    if (id <= first) return lo;
    if (id > last) return hi;
    // In double: a 128-bit integer division is a library call that costs
    // more than the cache misses the guess saves. Rounding can only move
    // the guess, never out of [lo, hi - 1].
    const double fraction = static_cast<double>(id - first) / static_cast<double>(last - first);
    const size_t guess =
        lo + std::min(hi - 1 - lo, static_cast<size_t>(fraction * static_cast<double>(hi - 1 - lo)));
    const uint64_t at = key(guess);
    if (at == id) return guess;
    if (at < id) {
      lo = guess + 1;
    } else {
      hi = guess;
    }
  }
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (key(mid) < id) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

size_t ElementsFor(size_t packed_slots, size_t packed_bytes) {
  return (packed_slots * packed_bytes + sizeof(LiveBlock) - 1) / sizeof(LiveBlock);
}

}  // namespace

void LiveBlockSet::Clear() {
  hashed_ = false;
  live_ = 0;
  tombstones_ = 0;
  sorted_.clear();
  index_ = std::vector<uint16_t>();
  indexed_ = 0;
  erased_ = 0;
  hot_limit_ = kHotSlots;
  packed_.clear();
  runs_.clear();
  packed_count_ = 0;
  packed_tombstones_ = 0;
  packed_last_id_ = 0;
  expected_ = 0;
  map_.clear();
}

void LiveBlockSet::Reserve(size_t n) {
  expected_ = n;
  if (hashed_) {
    map_.reserve(n);
    return;
  }
  sorted_.reserve(std::min(n, kHotSlots));
  // Room to widen every slot in place at the hand-over; only what packing
  // writes is ever made present.
  if (n > kHotSlots) packed_.reserve(n);
}

namespace {

// The first slot of `base[0, n)` (n >= 1) whose id is not below `id`, or
// base + n if every id is below it: a binary search without branches, each step
// a conditional move and a load, nothing for the branch predictor to miss.
// Its loads depend on each other, but the replay's next records do not
// depend on them, so the core runs ahead into those while they come.
const LiveBlock* BranchlessLowerBound(const LiveBlock* base, size_t n, uint64_t id) {
  for (; n > 1;) {
    const size_t half = n / 2;
    base += base[half].id < id ? half : 0;
    n -= half;
  }
  return base + (base->id < id ? 1 : 0);
}

}  // namespace

const LiveBlockSet::Slot* LiveBlockSet::FindSlot(uint64_t id) const {
  const size_t n = sorted_.size();
  const Slot* data = sorted_.data();
  // A few hundred slots: the whole set, from the L1 cache.
  if (n <= kSearchDirectlyAtMost) {
    if (n == 0) return nullptr;
    const Slot* s = BranchlessLowerBound(data, n, id);
    return s != data + n && s->id == id ? s : nullptr;
  }
  // A few thousand and more (a server that deletes nearly all it writes:
  // a container's blocks stay live while it is written and are deleted
  // long after, each DELETE a search): where the ids say the block should
  // be, then a branchless search of a window around that guess. The
  // survivors of random deletions sit within about sqrt(n) / 2 slots of
  // where evenly spaced ids would put them; the window spans 4 sqrt(n) or
  // more. The first and last slots are the ones every search reads.
  const uint64_t first = data[0].id, last = data[n - 1].id;
  if (id < first || id > last) return nullptr;
  const int log_n = 63 - __builtin_clzll(n);
  const size_t window = size_t{1} << ((log_n + 1) / 2 + 2);
  // In double: an integer division of the product would need 128 bits.
  const double fraction = static_cast<double>(id - first) / static_cast<double>(last - first);
  const size_t guess = std::min(n - 1, static_cast<size_t>(fraction * static_cast<double>(n - 1)));
  // Evenly spaced ids (a container written alone whose DELETEs have left
  // tombstones in place, not yet compacted away) put the block right at
  // the guess: one load where the window takes a dozen. Half the searches
  // of the 1,000 x 5,000 state end here; a set whose ids are not even
  // misses in a row, which the branch predictor learns.
  if (data[guess].id == id) return &data[guess];
  const size_t begin = std::min(n - window, guess - std::min(guess, window / 2));
  const Slot* s = BranchlessLowerBound(data + begin, window, id);
  const bool after = s == data + begin + window;
  if (!after && s->id == id) return s;
  // Not in the window: absent, or ids less even than the guess assumed (a
  // container's oldest blocks thinned by DELETEs and compacted, its newest
  // still dense): then the rest of the set on the side where the id is,
  // without branches as well. One window search in six falls back on the
  // 1,000 x 5,000 state at 99 % deleted.
  const bool before = begin > 0 && data[begin].id > id;
  if (!before && !(after && begin + window < n)) return nullptr;
  const Slot* rest = before ? data : data + begin + window;
  const size_t rest_n = before ? begin : n - begin - window;
  const Slot* t = BranchlessLowerBound(rest, rest_n, id);
  return t != rest + rest_n && t->id == id ? t : nullptr;
}

LiveBlockSet::Slot* LiveBlockSet::FindSlot(uint64_t id) {
  return const_cast<Slot*>(static_cast<const LiveBlockSet*>(this)->FindSlot(id));
}

LiveBlockSet::Slot* LiveBlockSet::FindSlotIndexed(uint64_t id) {
  const size_t n = sorted_.size();
  if (n < kIndexedSlotsFrom || n > kIndexedSlotsAtMost) return FindSlot(id);
  if (indexed_ == 0 || 2 * n > index_.size()) {
    // Sized for the slots there are, 2 to 4 entries a slot: the set can
    // double before the next rebuild (O(1) per slot, amortised), and a set
    // compacted to a few slots does not clear a table made for thousands.
    index_.assign(size_t{1} << (65 - __builtin_clzll(n)), 0);
    indexed_ = 0;
  }
  const size_t mask = index_.size() - 1;
  const int shift = 64 - __builtin_ctzll(index_.size());
  // Fibonacci hashing: consecutive ids, the common case, land far apart.
  const auto home = [shift](uint64_t key) {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift);
  };
  Slot* data = sorted_.data();
  for (; indexed_ < n; indexed_++) {
    size_t h = home(data[indexed_].id);
    while (index_[h] != 0) h = (h + 1) & mask;
    index_[h] = static_cast<uint16_t>(indexed_ + 1);
  }
  for (size_t h = home(id);; h = (h + 1) & mask) {
    const uint16_t e = index_[h];
    if (e == 0) return nullptr;
    if (data[e - 1].id == id) return &data[e - 1];
  }
}

size_t LiveBlockSet::RunLength(const LiveBlock* blocks, size_t n, int64_t* base) {
  // The run's base is its lowest offset: every block of it must lie within
  // 32 bits of the first id and of that offset, and be shorter than the
  // tombstone mark.
  const uint64_t first_id = blocks[0].id;
  int64_t lo = blocks[0].loc.offset, hi = lo;
  size_t j = 0;
  for (const size_t end = std::min(n, kRunSlots); j < end; j++) {
    const LiveBlock& b = blocks[j];
    const int64_t new_lo = std::min(lo, b.loc.offset), new_hi = std::max(hi, b.loc.offset);
    if (!Fits(b.id - first_id, static_cast<uint64_t>(new_hi) - static_cast<uint64_t>(new_lo),
              b.loc.length)) {
      break;
    }
    lo = new_lo;
    hi = new_hi;
  }
  *base = lo;
  return j;
}

LiveBlockSet::PackedRun LiveBlockSet::WriteRun(const LiveBlock* blocks, size_t n, int64_t base,
                                               size_t at) {
  // RunLength checked every field: no check per block here.
  const uint64_t first_id = blocks[0].id;
  for (size_t m = 0; m < n; m++) StorePacked(at + m, Encode(blocks[m], first_id, base));
  packed_last_id_ = blocks[n - 1].id;
  return PackedRun{first_id, base, at};
}

size_t LiveBlockSet::AppendRuns(const LiveBlock* blocks, size_t n) {
  packed_.resize(ElementsFor(packed_count_ + n, kPackedBytes));
  size_t i = 0;
  while (i < n) {
    int64_t base;
    const size_t len = RunLength(blocks + i, n - i, &base);
    if (len == 0) break;
    runs_.push_back(WriteRun(blocks + i, len, base, packed_count_));
    packed_count_ += len;
    i += len;
  }
  packed_.resize(ElementsFor(packed_count_, kPackedBytes));
  return i;
}

void LiveBlockSet::PackOldest() {
  const auto cut = sorted_.begin() + static_cast<std::ptrdiff_t>(sorted_.size() - kHotSlots / 4);
  auto live_end =
      std::remove_if(sorted_.begin(), cut, [](const Slot& s) { return s.loc.length == kTombstone; });
  const size_t live = static_cast<size_t>(live_end - sorted_.begin());
  if (live_end != cut) {
    tombstones_ -= static_cast<size_t>(cut - live_end);
    sorted_.erase(live_end, cut);
  }
  const size_t packed = AppendRuns(sorted_.data(), live);
  sorted_.erase(sorted_.begin(), sorted_.begin() + static_cast<std::ptrdiff_t>(packed));
  ForgetIndex();
  if (packed < live) hot_limit_ = SIZE_MAX;
}

size_t LiveBlockSet::RunFor(uint64_t id) const {
  size_t r = LowerBound(runs_.size(), id, [this](size_t i) { return runs_[i].first_id; });
  if (r == runs_.size() || runs_[r].first_id != id) {
    if (r == 0) return runs_.size();
    r--;
  }
  return id - runs_[r].first_id > UINT32_MAX ? runs_.size() : r;
}

size_t LiveBlockSet::PackedGuess(size_t r, uint32_t delta) const {
  // A run holds a server's consecutive ids, thinned by DELETEs at most, so
  // the guess is the slot or one a few away: one cache miss where a binary
  // search of the run's 768 bytes took four or five (71 % of a
  // filled-then-emptied container's open, every DELETE a search at
  // random). The ids the run spans: to the next run's first, or to the
  // last packed one.
  const size_t begin = runs_[r].begin, end = RunEnd(r);
  const uint64_t span =
      (r + 1 < runs_.size() ? runs_[r + 1].first_id : packed_last_id_ + 1) - runs_[r].first_id;
  return begin + std::min<size_t>(end - 1 - begin, static_cast<size_t>(uint64_t{delta} * (end - begin) /
                                                                       std::max<uint64_t>(span, 1)));
}

void LiveBlockSet::PrefetchPacked(uint64_t id) const {
  const size_t r = RunFor(id);
  if (r == runs_.size()) return;
  const size_t k = PackedGuess(r, static_cast<uint32_t>(id - runs_[r].first_id));
  __builtin_prefetch(reinterpret_cast<const char*>(packed_.data()) + k * kPackedBytes);
}

bool LiveBlockSet::FindPacked(uint64_t id, size_t* k, size_t* run) const {
  const size_t r = RunFor(id);
  if (r == runs_.size()) return false;
  const uint32_t delta = static_cast<uint32_t>(id - runs_[r].first_id);
  const size_t begin = runs_[r].begin, end = RunEnd(r);
  const size_t guess = PackedGuess(r, delta);
  const uint32_t at = LoadPacked(guess).id_delta;
  if (at == delta) {
    *k = guess;
    *run = r;
    return true;
  }
  // A few slots on from the guess, towards the id, then a binary search of
  // what is left on that side.
  constexpr int kWalk = 4;
  size_t lo, hi;
  if (at < delta) {
    size_t i = guess + 1;
    for (int step = 0; step < kWalk && i < end; step++, i++) {
      const uint32_t d = LoadPacked(i).id_delta;
      if (d < delta) continue;
      if (d > delta) return false;
      *k = i;
      *run = r;
      return true;
    }
    lo = i;
    hi = end;
  } else {
    size_t i = guess;  // LoadPacked(i).id_delta > delta
    for (int step = 0; step < kWalk && i > begin; step++) {
      const uint32_t d = LoadPacked(--i).id_delta;
      if (d > delta) continue;
      if (d < delta) return false;
      *k = i;
      *run = r;
      return true;
    }
    lo = begin;
    hi = i;
  }
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (LoadPacked(mid).id_delta < delta) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == end || LoadPacked(lo).id_delta != delta) return false;
  *k = lo;
  *run = r;
  return true;
}

void LiveBlockSet::RepackLive() {
  // Writing never overtakes reading: the slots written are live slots
  // already read, and greedy runs over the live slots of the runs read so
  // far are never more than those runs (each run's live slots fit one).
  LiveBlock pending[2 * kRunSlots];
  size_t n_pending = 0, out = 0, runs_out = 0;
  // Writes the runs of `pending` while at least `keep_below` are left (a
  // run is decided once kRunSlots blocks past its start are known).
  auto write = [&](size_t keep_below) {
    size_t i = 0;
    while (n_pending - i >= keep_below && i < n_pending) {
      int64_t base;
      const size_t len = RunLength(pending + i, n_pending - i, &base);
      runs_[runs_out++] = WriteRun(pending + i, len, base, out);
      out += len;
      i += len;
    }
    std::copy(pending + i, pending + n_pending, pending);
    n_pending -= i;
  };
  const size_t runs_in = runs_.size();
  for (size_t r = 0; r < runs_in; r++) {
    const PackedRun run = runs_[r];
    const size_t end = RunEnd(r);
    for (size_t k = run.begin; k < end; k++) {
      const PackedSlot p = LoadPacked(k);
      if (p.length != kPackedTombstone) pending[n_pending++] = LiveBlock{run.IdOf(p), run.LocationOf(p)};
    }
    write(kRunSlots);
  }
  write(1);
  runs_.resize(runs_out);
  packed_count_ = out;
  packed_tombstones_ = 0;
  if (out == 0) packed_last_id_ = 0;
  const size_t keep = ElementsFor(out, kPackedBytes);
  packed_.resize(keep);
  if (packed_.capacity() * sizeof(LiveBlock) >= kHugePageBytes) {
    PageMemoryRelease(packed_.data() + keep, (packed_.capacity() - keep) * sizeof(LiveBlock));
  }
}

void LiveBlockSet::CompactPackedIfMostlyDead() {
  if (packed_tombstones_ <= packed_count_ - packed_tombstones_ || packed_count_ < kRunSlots) return;
  RepackLive();
}

void LiveBlockSet::WidenPacked() {
  // Backwards: live block k takes bytes [24 k, 24 k + 24), which held packed
  // slots 2 k and 2 k + 1, both read already (slot k itself is read first).
  packed_.resize(packed_count_);
  for (size_t r = runs_.size(); r-- > 0;) {
    const PackedRun run = runs_[r];
    for (size_t k = RunEnd(r); k-- > run.begin;) {
      const PackedSlot p = LoadPacked(k);
      // Field by field, as StorePacked.
      LiveBlock& b = packed_[k];
      b.id = run.IdOf(p);
      b.loc.offset = run.base_offset + static_cast<int64_t>(p.offset_delta);
      b.loc.length = static_cast<int64_t>(p.length);
    }
  }
  runs_.clear();
  packed_count_ = 0;
  packed_last_id_ = 0;
}

void LiveBlockSet::MoveToHashMap() {
  map_.reserve(std::max({expected_, sorted_.capacity() + packed_count_, live_ + 1}));
  ForEach([this](uint64_t id, const BlockLocation& loc) { map_.emplace(id, loc); });
  sorted_.clear();
  sorted_.shrink_to_fit();
  tombstones_ = 0;
  packed_ = LiveBlocks();
  runs_ = std::vector<PackedRun>();
  packed_count_ = 0;
  packed_tombstones_ = 0;
  packed_last_id_ = 0;
  hashed_ = true;
}

bool LiveBlockSet::InsertSlow(uint64_t id, BlockLocation loc) {
  if (!hashed_) {
    const bool past_last = sorted_.empty() ? packed_count_ == 0 || id > packed_last_id_
                                           : id > sorted_.back().id;
    if (past_last) {
      if (sorted_.size() == sorted_.capacity()) {
        // Full: packed at the limit, otherwise grown, never past the limit.
        if (sorted_.size() >= hot_limit_) {
          PackOldest();
        } else if (hot_limit_ != SIZE_MAX) {
          sorted_.reserve(std::min(std::max<size_t>(2 * sorted_.size(), 16), hot_limit_));
        }
      }
      sorted_.push_back(LiveBlock{id, loc});
      live_++;
      return true;
    }
    // Not past the last id: a live id, a tombstone, or out of order.
    if (InPacked(id)) {
      size_t k, r;
      if (FindPacked(id, &k, &r)) {
        PackedSlot p = LoadPacked(k);
        if (p.length != kPackedTombstone) return false;
        // Re-created after its DELETE: in place, if its run can hold it.
        const PackedRun& run = runs_[r];
        if (loc.offset >= run.base_offset &&
            Fits(id - run.first_id,
                 static_cast<uint64_t>(loc.offset) - static_cast<uint64_t>(run.base_offset),
                 loc.length)) {
          StorePacked(k, Encode(LiveBlock{id, loc}, run.first_id, run.base_offset));
          packed_tombstones_--;
          live_++;
          return true;
        }
      }
    } else if (Slot* s = FindSlot(id); s != nullptr) {
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
  if (InPacked(id)) {
    size_t k, r;
    if (!FindPacked(id, &k, &r)) return false;
    PackedSlot p = LoadPacked(k);
    if (p.length == kPackedTombstone) return false;
    *erased = runs_[r].LocationOf(p);
    p.length = kPackedTombstone;
    StorePacked(k, p);
    packed_tombstones_++;
    live_--;
    CompactPackedIfMostlyDead();
    return true;
  }
  // A set that has lost at least as many blocks as it holds has about as
  // many DELETEs as CREATEs ahead too: indexing the slots each appends is
  // then cheaper than searching for each DELETE (a live-heavy set's few
  // DELETEs would not pay for it).
  Slot* s = erased_ >= live_ ? FindSlotIndexed(id) : FindSlot(id);
  if (s == nullptr || s->loc.length == kTombstone) return false;
  *erased = s->loc;
  s->loc.length = kTombstone;
  tombstones_++;
  live_--;
  erased_++;
  CompactIfMostlyDead();
  return true;
}

void LiveBlockSet::CompactIfMostlyDead() {
  // Small vectors are not worth the pass.
  constexpr size_t kMinSlots = 64;
  const size_t live_slots = sorted_.size() - tombstones_;
  const bool indexed = erased_ >= live_ && sorted_.size() <= kIndexedSlotsAtMost;
  const size_t kept = indexed ? kIndexedTombstonesPerLive * live_slots : live_slots;
  if (tombstones_ <= kept || sorted_.size() < kMinSlots) return;
  // Every slot copied, the write position advanced past the live ones only:
  // whether a slot is a tombstone is a coin toss, which a branch on it
  // mispredicts half the time.
  Slot* out = sorted_.data();
  for (const Slot& s : sorted_) {
    const uint64_t id = s.id;
    const BlockLocation loc = s.loc;
    out->id = id;
    out->loc.offset = loc.offset;
    out->loc.length = loc.length;
    out += loc.length != kTombstone ? 1 : 0;
  }
  sorted_.resize(static_cast<size_t>(out - sorted_.data()));
  tombstones_ = 0;
  ForgetIndex();
}

std::optional<BlockLocation> LiveBlockSet::Find(uint64_t id) const {
  if (hashed_) {
    auto it = map_.find(id);
    if (it == map_.end()) return std::nullopt;
    return it->second;
  }
  if (InPacked(id)) {
    size_t k, r;
    if (!FindPacked(id, &k, &r)) return std::nullopt;
    const PackedSlot p = LoadPacked(k);
    if (p.length == kPackedTombstone) return std::nullopt;
    return runs_[r].LocationOf(p);
  }
  const Slot* s = FindSlot(id);
  if (s == nullptr || s->loc.length == kTombstone) return std::nullopt;
  return s->loc;
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
    if (packed_count_ > 0) {
      // The packed slots widened where they are, the newest appended: no
      // second array of every live block.
      if (packed_tombstones_ > 0) RepackLive();
      packed_.reserve(packed_count_ + sorted_.size());
      WidenPacked();
      packed_.insert(packed_.end(), sorted_.begin(), sorted_.end());
      out = std::move(packed_);
    } else {
      out = std::move(sorted_);
    }
    // A copy of the live entries when more than an eighth would be spare:
    // it costs a fraction of what parsing them did.
    if (out.capacity() - out.size() > out.size() / 8 + 64) out.shrink_to_fit();
  }
  Clear();
  return out;
}

}  // namespace fs
}  // namespace kudu
