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

#include "kudu/fs/block_map.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

#include "kudu/util/page_memory.h"

namespace kudu {
namespace fs {

static_assert((BlockMap::kNumShards & (BlockMap::kNumShards - 1)) == 0 &&
                  (BlockMap::kShardStretch & (BlockMap::kShardStretch - 1)) == 0,
              "ShardOf divides and takes a remainder: shifts and masks");

void BlockMap::Batch::AddSorted(uint32_t container, const LiveBlock* blocks, size_t n) {
  size_t i = 0;
  while (i < n) {
    const uint64_t stretch = blocks[i].id / kShardStretch;
    size_t j = i + 1;
    while (j < n && blocks[j].id / kShardStretch == stretch) j++;
    const int s = ShardOf(blocks[i].id);
    runs_[s].push_back(Run{blocks + i, static_cast<uint32_t>(j - i), container});
    shard_sizes_[s] += j - i;
    i = j;
  }
}

// Inlined: called once per block, with an entry the caller has just built.
__attribute__((always_inline)) inline void BlockMap::InsertLocked(
    Shard* shard, uint64_t id, uint64_t run_hash, const BlockMapEntry& entry,
    std::vector<Rejected>* rejected) {
  uint32_t held_by;
  if (!shard->map.Insert(id, run_hash, entry, &held_by)) {
    rejected->push_back(Rejected{id, held_by, entry.container});
  }
}

int BlockMap::StartShard() {
  static std::atomic<unsigned> next_start{0};
  return static_cast<int>(next_start.fetch_add(7, std::memory_order_relaxed) % kNumShards);
}

void BlockMap::InsertBatch(Batch* batch, std::vector<Rejected>* rejected) {
  const int start = StartShard();
  for (int k = 0; k < kNumShards; k++) InsertBatchShard(batch, (start + k) % kNumShards, rejected);
}

void BlockMap::InsertTakingOver(uint32_t container, LiveBlocks blocks,
                                std::vector<Rejected>* rejected) {
  // Blocks move by shard in pieces of this many (24 KiB each: many to a
  // huge page, and 32 of them, one a shard, fit in the L2 cache).
  constexpr size_t kPiece = 1024;
  if (AllShardsAllocated()) {
    // Every table is there already: releasing the array early would not
    // lower the peak, so it is not worth rearranging.
    Batch batch;
    batch.AddSorted(container, blocks.data(), blocks.size());
    InsertBatch(&batch, rejected);
    return;
  }
  LiveBlock* const v = blocks.data();
  const size_t n = blocks.size();
  // Each block is copied to its shard's open piece; a piece once full is
  // written back over the array's start. Reading is always ahead of the
  // writing: when the (w+1)-th piece fills, at least (w+1) pieces' worth
  // of blocks have been read, so the piece lands on blocks already copied.
  std::vector<LiveBlock> open_pieces(kNumShards * kPiece);
  size_t fill[kNumShards] = {};
  std::vector<uint8_t> piece_shard;  // the shard of each full piece, in order
  piece_shard.reserve(n / kPiece);
  for (size_t i = 0; i < n;) {
    const uint64_t stretch = v[i].id / kShardStretch;
    const int s = ShardOf(v[i].id);
    LiveBlock* const piece = &open_pieces[s * kPiece];
    for (; i < n && v[i].id / kShardStretch == stretch; i++) {
      piece[fill[s]++] = v[i];
      if (fill[s] == kPiece) {
        std::memcpy(v + piece_shard.size() * kPiece, piece, kPiece * sizeof(LiveBlock));
        piece_shard.push_back(static_cast<uint8_t>(s));
        fill[s] = 0;
      }
    }
  }
  // The full pieces sorted by shard, each shard's in the order they filled
  // (its ids ascending), by swapping pieces into place: shard s's full
  // pieces become [first[s], first[s + 1]), then its open piece follows.
  const size_t pieces = piece_shard.size();
  size_t first[kNumShards + 1] = {};
  for (uint8_t s : piece_shard) first[s + 1]++;
  for (int s = 0; s < kNumShards; s++) first[s + 1] += first[s];
  std::vector<size_t> dest(pieces);
  {
    size_t next[kNumShards];
    std::copy(first, first + kNumShards, next);
    for (size_t p = 0; p < pieces; p++) dest[p] = next[piece_shard[p]]++;
  }
  for (size_t p = 0; p < pieces; p++) {
    while (dest[p] != p) {
      const size_t d = dest[p];
      std::swap_ranges(v + p * kPiece, v + (p + 1) * kPiece, v + d * kPiece);
      std::swap(dest[p], dest[d]);
    }
  }
  // Shard by shard; after each, the stretch of the array under the shards
  // done next to it goes back (the array past the full pieces is dead from
  // the start, and goes with the last shard).
  const size_t bytes = blocks.capacity() * sizeof(LiveBlock);
  auto byte_at = [&](int s) {
    return s == kNumShards ? bytes : first[s] * kPiece * sizeof(LiveBlock);
  };
  Batch batch;
  bool done[kNumShards] = {};
  const int start = StartShard();
  for (int k = 0; k < kNumShards; k++) {
    const int s = (start + k) % kNumShards;
    batch.AddSorted(container, v + first[s] * kPiece, (first[s + 1] - first[s]) * kPiece);
    batch.AddSorted(container, &open_pieces[s * kPiece], fill[s]);
    InsertBatchShard(&batch, s, rejected);
    done[s] = true;
    int lo = s, hi = s + 1;
    while (lo > 0 && done[lo - 1]) lo--;
    while (hi < kNumShards && done[hi]) hi++;
    PageMemoryRelease(reinterpret_cast<char*>(v) + byte_at(lo), byte_at(hi) - byte_at(lo));
  }
}

void BlockMap::InsertBatchShard(Batch* batch, int s, std::vector<Rejected>* rejected) {
  if (batch->shard_sizes_[s] == 0) return;
  std::vector<Batch::Run>& runs = batch->runs_[s];
  Shard& shard = shards_[s];
  {
    std::lock_guard<std::mutex> l(shard.mu);
    // Grown once for the whole batch, not step by step inside the loop.
    const size_t need = shard.map.size() + batch->shard_sizes_[s];
    if (shard.map.capacity() == 0) {
      shard.map.Reserve(std::max(ExpectedPerShard(), need), /*touch=*/true);
    } else if (need > shard.map.max_size()) {
      // To what is expected now (the live share of every container merged
      // so far, not only of the first ones) and by at least a quarter, so
      // that a shard that outgrows an early estimate is rehashed a few
      // times, not once per batch. Doubling instead would leave the map
      // twice the size it needs after one short estimate: on a live-heavy
      // server that is most of the open's memory.
      shard.map.Reserve(std::max({need, ExpectedPerShard(), shard.map.size() / 4 * 5}));
    }
    // A run's ids are consecutive stretches: one prefetch per table run
    // (kRun consecutive ids share their slots' cache lines) covers it.
    // The next run's table lines and first blocks are prefetched before
    // this run is inserted, so that its misses overlap this run's work
    // (a shard's runs are scattered over the containers' arrays and the
    // table, where the hardware prefetcher does not follow).
    auto prefetch_run = [&shard](const Batch::Run& run) {
      const LiveBlock* b = run.blocks;
      __builtin_prefetch(b);
      __builtin_prefetch(reinterpret_cast<const char*>(b) + 64);
      uint64_t last_table_run = ~0ULL;
      for (size_t i = 0; i < run.count; i++) {
        const uint64_t table_run = b[i].id / BlockIdTable::kRun;
        if (table_run == last_table_run) continue;
        last_table_run = table_run;
        shard.map.Prefetch(b[i].id, BlockIdTable::RunHash(b[i].id));
      }
    };
    if (!runs.empty()) prefetch_run(runs[0]);
    for (size_t r = 0; r < runs.size(); r++) {
      if (r + 1 < runs.size()) prefetch_run(runs[r + 1]);
      const Batch::Run& run = runs[r];
      const LiveBlock* b = run.blocks;
      // Consecutive ids share their table run's hash: hashed once per run.
      uint64_t table_run = ~0ULL, run_hash = 0;
      for (size_t i = 0; i < run.count; i++) {
        const uint64_t id = b[i].id;
        if (id / BlockIdTable::kRun != table_run) {
          table_run = id / BlockIdTable::kRun;
          run_hash = BlockIdTable::RunHash(id);
        }
        InsertLocked(&shard, id, run_hash,
                     BlockMapEntry{run.container, b[i].loc.offset, b[i].loc.length}, rejected);
      }
    }
  }
  runs.clear();
  batch->shard_sizes_[s] = 0;
}

bool BlockMap::AllShardsAllocated() const {
  for (const Shard& s : shards_) {
    std::lock_guard<std::mutex> l(s.mu);
    if (s.map.capacity() == 0) return false;
  }
  return true;
}

bool BlockMap::Find(uint64_t id, BlockMapEntry* entry) const {
  const Shard& s = shards_[ShardOf(id)];
  std::lock_guard<std::mutex> l(s.mu);
  const BlockMapEntry* found = s.map.Find(id, BlockIdTable::RunHash(id));
  if (found == nullptr) return false;
  if (entry != nullptr) *entry = *found;
  return true;
}

size_t BlockMap::PerShard(size_t n) {
  if (n == 0) return 0;
  // Stretches of ids (not single ids) are what spreads over shards. With
  // every id of every stretch present (the most uneven case) a shard's ids
  // are kShardStretch times a binomial count of stretches, whose standard
  // deviation is about sqrt(mean * kShardStretch) ids. Three of them leave
  // a shard short rarely, and then only that shard grows (a 32nd of the
  // map); a fixed share of n instead would cost more than the table's own
  // slack on a large map, or be too little on a small one.
  const double mean = static_cast<double>(n) / kNumShards;
  const double deviation = std::sqrt(mean * static_cast<double>(kShardStretch));
  return static_cast<size_t>(mean + 3 * deviation) + kShardStretch;
}

size_t BlockMap::ExpectedPerShard() const {
  double records, live, live_sq_per_record, records_sq, largest_first_unseen = 0;
  {
    std::lock_guard<std::mutex> l(notes_mu_);
    records = noted_records_;
    live = noted_live_;
    live_sq_per_record = noted_live_sq_per_record_;
    records_sq = noted_records_sq_;
    if (largest_first_ > 0) {
      largest_first_unseen = std::clamp(1 - noted_largest_first_ / largest_first_, 0.0, 1.0);
    }
  }
  if (records == 0 || live >= records) return PerShard(reserved_);
  // The live share of the containers merged so far, weighted by their
  // records, plus three standard errors: the first shards are sized after
  // a few containers, whose shares differ (older containers have lost more
  // of their blocks), and a shard sized short grows by a quarter and
  // rehashes everything it holds (on a 10 M-block state, every shard once:
  // a twelfth of the open's CPU, and the quarter kept as memory).
  const double mean = live / records;
  const double variance = std::max(0.0, live_sq_per_record / records - mean * mean);
  const double containers = records * records / records_sq;  // the weights' effective count
  const double seen = std::min(1.0, mean + 3 * std::sqrt(variance / containers));
  // While containers claimed largest first are still to come, the share
  // seen is theirs, which understates the rest's (100 containers of a
  // 10 %-deleted state: the first ten kept 53-61 % of their records, all
  // of them 82 %). The unseen are then taken to miss as much of what is
  // left as the seen miss of the whole: 0.63 becomes 0.86, where a short
  // shard rehashes everything it holds, and a mostly deleted state's share
  // at most doubles, one more slot per live block. The lift fades as those
  // containers are noted.
  const double share = 1 - std::pow(1 - seen, 1 + largest_first_unseen);
  return PerShard(static_cast<size_t>(static_cast<double>(reserved_) * share));
}

void BlockMap::Reserve(size_t n) {
  reserved_ = n;
  // Shard tables of a few hundred KiB each (a map of 10^5-10^6 blocks)
  // would each be small pages: in a fresh process, thousands of page faults
  // that cost more than the inserts (docs/benchmarks.md). One arena of
  // huge pages, sized for the most every shard's first table can be, holds
  // them instead; a table that outgrows it later allocates on its own. The
  // arena is reserved, not written: only what the tables use is faulted in.
  if (arena_ != nullptr || !PageMemoryHugePages()) return;
  const uint64_t per_shard = BlockIdTable::ArenaBytesFor(PerShard(n));
  if (per_shard * kNumShards < kHugePageBytes) return;
  arena_.reset(new PageArena(per_shard * kNumShards));
  for (Shard& s : shards_) s.map.UseArena(arena_.get());
}

void BlockMap::ExpectLargestFirst(uint64_t create_records) {
  std::lock_guard<std::mutex> lock(notes_mu_);
  largest_first_ += static_cast<double>(create_records);
}

void BlockMap::NoteReplayed(uint64_t create_records, uint64_t live, bool largest_first) {
  if (create_records == 0) return;
  const double r = static_cast<double>(create_records);
  const double l = static_cast<double>(std::min(live, create_records));
  std::lock_guard<std::mutex> lock(notes_mu_);
  if (largest_first) noted_largest_first_ += r;
  noted_records_ += r;
  noted_live_ += l;
  noted_live_sq_per_record_ += l * l / r;
  noted_records_sq_ += r * r;
}

void BlockMap::Allocate() {
  const size_t per_shard = ExpectedPerShard();
  if (per_shard == 0) return;
  if (BlockIdTable::BytesFor(per_shard) * kNumShards > kEagerTableBytes) return;
  for (Shard& s : shards_) {
    std::lock_guard<std::mutex> l(s.mu);
    if (s.map.capacity() == 0) s.map.Reserve(per_shard, /*touch=*/true);
  }
}

size_t BlockMap::size() const {
  size_t n = 0;
  for (const Shard& s : shards_) n += s.map.size();
  return n;
}

uint64_t BlockMap::TableBytes() const {
  uint64_t n = 0;
  for (const Shard& s : shards_) n += s.map.bytes();
  return n;
}

void BlockMap::ForEach(const std::function<void(uint64_t, const BlockMapEntry&)>& fn) const {
  for (const Shard& s : shards_) {
    s.map.ForEach(fn);
  }
}

std::vector<std::pair<uint64_t, BlockMapEntry>> BlockMap::SortedEntries() const {
  std::vector<std::pair<uint64_t, BlockMapEntry>> out;
  out.reserve(size());
  for (const Shard& s : shards_) {
    s.map.ForEach([&out](uint64_t id, const BlockMapEntry& e) { out.emplace_back(id, e); });
  }
  std::sort(out.begin(), out.end(),
            [](const std::pair<uint64_t, BlockMapEntry>& a,
               const std::pair<uint64_t, BlockMapEntry>& b) { return a.first < b.first; });
  return out;
}

}  // namespace fs
}  // namespace kudu
