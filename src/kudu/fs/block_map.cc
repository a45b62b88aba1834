#include "kudu/fs/block_map.h"

#include <algorithm>

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
