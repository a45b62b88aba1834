#include "kudu/fs/block_map.h"

#include <algorithm>
#include <atomic>

namespace kudu {
namespace fs {

static_assert(BlockMap::kNumShards == 32, "ShardOf keeps the top 5 bits");

bool BlockMap::Insert(uint64_t id, const BlockMapEntry& entry, BlockMapEntry* existing) {
  Shard& s = shards_[ShardOf(id)];
  std::lock_guard<std::mutex> l(s.mu);
  auto r = s.map.try_emplace(id, entry);
  if (!r.second && existing != nullptr) *existing = r.first->second;
  return r.second;
}

void BlockMap::InsertBatch(Batch* batch, std::vector<Rejected>* rejected) {
  // Prefetch a few entries ahead: a large map misses the cache on almost
  // every insert, and the misses overlap when their addresses are known early.
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
      for (size_t i = 0; i < n && i < kAhead; i++) shard.map.prefetch(items[i].id);
      for (size_t i = 0; i < n; i++) {
        if (i + kAhead < n) shard.map.prefetch(items[i + kAhead].id);
        const Item& it = items[i];
        auto r = shard.map.try_emplace(it.id, it.entry);
        if (!r.second) {
          rejected->push_back(Rejected{it.id, r.first->second.container, it.entry.container});
        }
      }
    }
    items.clear();
  }
  batch->size_ = 0;
}

bool BlockMap::Find(uint64_t id, BlockMapEntry* entry) const {
  const Shard& s = shards_[ShardOf(id)];
  std::lock_guard<std::mutex> l(s.mu);
  auto it = s.map.find(id);
  if (it == s.map.end()) return false;
  if (entry != nullptr) *entry = it->second;
  return true;
}

void BlockMap::Reserve(size_t n) {
  for (Shard& s : shards_) {
    std::lock_guard<std::mutex> l(s.mu);
    s.map.reserve(n / kNumShards + 1);
  }
}

size_t BlockMap::size() const {
  size_t n = 0;
  for (const Shard& s : shards_) n += s.map.size();
  return n;
}

void BlockMap::ForEach(const std::function<void(uint64_t, const BlockMapEntry&)>& fn) const {
  for (const Shard& s : shards_) {
    for (const auto& kv : s.map) fn(kv.first, kv.second);
  }
}

std::vector<uint64_t> BlockMap::SortedIds() const {
  std::vector<uint64_t> ids;
  ids.reserve(size());
  for (const Shard& s : shards_) {
    for (const auto& kv : s.map) ids.push_back(kv.first);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<std::pair<uint64_t, BlockMapEntry>> BlockMap::SortedEntries() const {
  std::vector<std::pair<uint64_t, BlockMapEntry>> out;
  out.reserve(size());
  for (const Shard& s : shards_) {
    for (const auto& kv : s.map) out.emplace_back(kv.first, kv.second);
  }
  std::sort(out.begin(), out.end(),
            [](const std::pair<uint64_t, BlockMapEntry>& a,
               const std::pair<uint64_t, BlockMapEntry>& b) { return a.first < b.first; });
  return out;
}

}  // namespace fs
}  // namespace kudu
