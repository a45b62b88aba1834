#include "kudu/fs/block_map.h"

#include <algorithm>
#include <atomic>

namespace kudu {
namespace fs {

static_assert((BlockMap::kNumShards & (BlockMap::kNumShards - 1)) == 0,
              "ShardOf takes the run hash modulo kNumShards: a mask");

bool BlockMap::Insert(uint64_t id, const BlockMapEntry& entry, BlockMapEntry* existing) {
  const uint64_t h = BlockIdTable::RunHash(id);
  Shard& s = shards_[ShardOf(h)];
  std::lock_guard<std::mutex> l(s.mu);
  bool inserted;
  const BlockMapEntry* held = s.map.Insert(id, h, entry, &inserted);
  if (!inserted && existing != nullptr) *existing = *held;
  return inserted;
}

void BlockMap::InsertBatch(Batch* batch, std::vector<Rejected>* rejected) {
  // Prefetch a few entries ahead: runs of ids share cache lines, but a new
  // run's slots are a miss in a large map, and the misses overlap when
  // their addresses are known early.
  constexpr size_t kAhead = 8;
  // Threads that flush at the same time (the end of an open) start at
  // different shards instead of queueing behind each other shard by shard.
  static std::atomic<unsigned> next_start{0};
  const int start = static_cast<int>(next_start.fetch_add(7, std::memory_order_relaxed) % kNumShards);
  for (int k = 0; k < kNumShards; k++) {
    const int s = (start + k) % kNumShards;
    std::vector<Item>& items = batch->shards_[s];
    const size_t n = items.size();
    if (n == 0) continue;
    Shard& shard = shards_[s];
    {
      std::lock_guard<std::mutex> l(shard.mu);
      // Grown once for the whole batch, not step by step inside the loop
      // (and never while prefetched addresses are pending).
      shard.map.Reserve(shard.map.size() + n);
      for (size_t i = 0; i < n && i < kAhead; i++) {
        shard.map.Prefetch(items[i].id, BlockIdTable::RunHash(items[i].id));
      }
      for (size_t i = 0; i < n; i++) {
        if (i + kAhead < n) {
          shard.map.Prefetch(items[i + kAhead].id, BlockIdTable::RunHash(items[i + kAhead].id));
        }
        const Item& it = items[i];
        bool inserted;
        const BlockMapEntry* held =
            shard.map.Insert(it.id, BlockIdTable::RunHash(it.id), it.entry, &inserted);
        if (!inserted) rejected->push_back(Rejected{it.id, held->container, it.entry.container});
      }
    }
    items.clear();
  }
  batch->size_ = 0;
}

bool BlockMap::Find(uint64_t id, BlockMapEntry* entry) const {
  const uint64_t h = BlockIdTable::RunHash(id);
  const Shard& s = shards_[ShardOf(h)];
  std::lock_guard<std::mutex> l(s.mu);
  const BlockMapEntry* found = s.map.Find(id, h);
  if (found == nullptr) return false;
  if (entry != nullptr) *entry = *found;
  return true;
}

void BlockMap::Reserve(size_t n) {
  for (Shard& s : shards_) {
    std::lock_guard<std::mutex> l(s.mu);
    // Runs of ids (not single ids) are what spreads over shards: leave room
    // for a shard getting a few runs more than its share.
    s.map.Reserve(n / kNumShards + n / (8 * kNumShards) + BlockIdTable::kRun);
  }
}

size_t BlockMap::size() const {
  size_t n = 0;
  for (const Shard& s : shards_) n += s.map.size();
  return n;
}

void BlockMap::ForEach(const std::function<void(uint64_t, const BlockMapEntry&)>& fn) const {
  for (const Shard& s : shards_) {
    s.map.ForEach(fn);
  }
}

std::vector<uint64_t> BlockMap::SortedIds() const {
  std::vector<uint64_t> ids;
  ids.reserve(size());
  for (const Shard& s : shards_) {
    s.map.ForEach([&ids](uint64_t id, const BlockMapEntry&) { ids.push_back(id); });
  }
  std::sort(ids.begin(), ids.end());
  return ids;
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
