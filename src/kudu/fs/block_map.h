// The server's block map: every live block id → the container that holds it
// and where its bytes are. Built by the open from each container's local
// live map once that container's replay has ended.
//
// Replay threads of every data dir merge concurrently, so the map is split
// into shards by id, each with its own lock: two threads merging different
// containers rarely touch the same shard at once, and no thread ever holds
// two shard locks (so there is no lock order to get wrong).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "kudu/fs/block_id_table.h"

namespace kudu {
namespace fs {

class BlockMap {
 public:
  static constexpr int kNumShards = 32;

  BlockMap() = default;
  BlockMap(const BlockMap&) = delete;
  BlockMap& operator=(const BlockMap&) = delete;

  // Inserts `id` unless it is already present. When it is, nothing changes
  // and `*existing` (if not null) receives the entry that holds it. Thread-safe.
  bool Insert(uint64_t id, const BlockMapEntry& entry, BlockMapEntry* existing);
  struct Item {
    uint64_t id;
    BlockMapEntry entry;
  };
  // Entries waiting to be inserted, grouped by shard as they are added, so
  // that inserting them takes each shard's lock once and needs no sorting or
  // copying. Not thread-safe (one per replay thread); keeps its capacity.
  class Batch {
   public:
    void Add(uint64_t id, const BlockMapEntry& entry) {
      shards_[ShardOf(BlockIdTable::RunHash(id))].push_back(Item{id, entry});
      size_++;
    }
    size_t size() const { return size_; }
    // Room for `more` entries spread over the shards (ids hash evenly), so
    // that adding a large container's blocks does not regrow 32 vectors
    // step by step. Grows geometrically: a reserve of exactly size + more
    // per small container would copy each shard again and again.
    void Reserve(size_t more) {
      const size_t per_shard = more / kNumShards + more / (4 * kNumShards) + 16;
      for (std::vector<Item>& s : shards_) {
        if (s.capacity() < s.size() + per_shard) {
          s.reserve(std::max(2 * s.capacity(), s.size() + per_shard));
        }
      }
    }

   private:
    friend class BlockMap;
    std::vector<Item> shards_[kNumShards];
    size_t size_ = 0;
  };
  struct Rejected {
    uint64_t id;
    uint32_t held_by;        // container of the entry in the map
    uint32_t rejected_from;  // container of the entry that was not inserted
  };
  // Inserts every entry of `*batch`, taking each shard's lock once (the open
  // merges each replay thread's containers in batches) and leaves the batch
  // empty. An id already present (in the map, or earlier in the batch) is
  // left as it is and reported in `*rejected` with the container that holds
  // it. Thread-safe.
  void InsertBatch(Batch* batch, std::vector<Rejected>* rejected);
  // Thread-safe.
  bool Find(uint64_t id, BlockMapEntry* entry) const;
  void Reserve(size_t n);

  // Not thread-safe with concurrent inserts: for after the open.
  size_t size() const;
  void ForEach(const std::function<void(uint64_t, const BlockMapEntry&)>& fn) const;
  // Every id, ascending.
  std::vector<uint64_t> SortedIds() const;
  // Every entry, by ascending id (what `kudu fs list` prints), without a
  // lookup per id.
  std::vector<std::pair<uint64_t, BlockMapEntry>> SortedEntries() const;

 private:
  struct Shard {
    mutable std::mutex mu;
    BlockIdTable map;
  };
  // The run hash's low bits (the table uses its high bits): a run of
  // consecutive ids stays in one shard, and runs spread evenly over shards.
  static int ShardOf(uint64_t run_hash) { return static_cast<int>(run_hash % kNumShards); }
  Shard shards_[kNumShards];
};

}  // namespace fs
}  // namespace kudu
