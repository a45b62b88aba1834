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

// The server's block map: every live block id → the container that holds it
// and where its bytes are. Built by the open from each container's local
// live map once that container's replay has ended.
//
// Replay threads of every data dir merge concurrently, so the map is split
// into shards by id, each with its own lock: two threads merging different
// containers rarely touch the same shard at once, and no thread ever holds
// two shard locks (so there is no lock order to get wrong). A shard holds
// whole stretches of kShardStretch consecutive ids, hashed to shards: a
// container's blocks sorted by id fall into a few long runs per shard, which
// the merge inserts from where they are instead of copying each block into a
// per-shard queue.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "kudu/fs/block_id_table.h"
#include "kudu/fs/live_block_set.h"
#include "kudu/util/mix64.h"
#include "kudu/util/page_arena.h"

namespace kudu {
namespace fs {

class BlockMap {
 public:
  static constexpr int kNumShards = 32;
  static constexpr uint64_t kShardStretch = 64;

  BlockMap() = default;
  BlockMap(const BlockMap&) = delete;
  BlockMap& operator=(const BlockMap&) = delete;

  // Entries waiting to be inserted, grouped by shard as they are added, so
  // that inserting them takes each shard's lock once. Not thread-safe (one
  // per replay thread); keeps its capacity.
  class Batch {
   public:
    // Every block of `blocks[0, n)`, held by `container`, ids strictly
    // ascending. Not copied: the batch keeps only where each shard's runs
    // start, so the array must stay as it is until the batch is inserted.
    void AddSorted(uint32_t container, const LiveBlock* blocks, size_t n);
    size_t size() const {
      size_t n = 0;
      for (size_t s : shard_sizes_) n += s;
      return n;
    }

   private:
    friend class BlockMap;
    struct Run {
      const LiveBlock* blocks;
      uint32_t count;
      uint32_t container;
    };
    std::vector<Run> runs_[kNumShards];
    // Per shard only: different threads may insert different shards of
    // one batch at the same time (InsertBatchShard).
    size_t shard_sizes_[kNumShards] = {};
  };
  struct Rejected {
    uint64_t id;
    uint32_t held_by;        // container of the entry in the map
    uint32_t rejected_from;  // container of the entry that was not inserted
  };
  // Inserts every entry of `*batch`, taking each shard's lock once (the open
  // merges each replay thread's containers in batches) and leaves the batch
  // empty. An id already present (in the map, or earlier in the batch, in
  // the order of adding) is left as it is and reported in `*rejected` with
  // the container that holds it. Thread-safe.
  void InsertBatch(Batch* batch, std::vector<Rejected>* rejected);
  // The same for one shard of `*batch` (which it leaves empty): threads may
  // insert different shards of one batch concurrently. Thread-safe.
  void InsertBatchShard(Batch* batch, int shard, std::vector<Rejected>* rejected);
  // Inserts one container's live blocks (ids strictly ascending) as
  // InsertBatch would, for an array of kTakeOverBytes or more: held whole
  // beside the map's tables until its last insert, it would be most of an
  // open's peak memory above the live blocks' own. The array is rearranged
  // in place so that each shard's blocks lie together, the shards are
  // inserted one at a time, and the array's memory under the shards done
  // goes back to the kernel as their tables are made; once every shard's
  // table is there, it is inserted as a batch. Thread-safe.
  void InsertTakingOver(uint32_t container, LiveBlocks blocks, std::vector<Rejected>* rejected);
  static constexpr uint64_t kTakeOverBytes = 8ULL << 20;
  // Thread-safe.
  bool Find(uint64_t id, BlockMapEntry* entry) const;
  // Sizes the map for at most `n` entries (the CREATE records the metadata
  // files can hold) without writing anything (at most an arena for the
  // shards' tables is reserved). Each shard allocates its share of the
  // entries expected when it is first inserted into, or in Allocate(),
  // whichever comes first. Not concurrent with inserts (before
  // the merges).
  void Reserve(size_t n);
  // Containers whose metadata could hold `create_records` CREATE records
  // (counted as Reserve's n was) have been replayed and left `live` live
  // blocks. The entries expected are n scaled by the live share seen so far,
  // so that the map follows the live blocks and not the deleted history: on
  // a state where most blocks were deleted, n overstates the live blocks
  // many times over. Thread-safe, cheap (once per container, under a lock
  // of its own).
  // `largest_first`: the container was among those claimed ahead of the
  // rest, largest first (ExpectLargestFirst).
  void NoteReplayed(uint64_t create_records, uint64_t live, bool largest_first = false);
  // Containers that could hold `create_records` CREATE records (counted as
  // Reserve's n was) are claimed ahead of the rest, largest first. The
  // largest files are the oldest and have lost the most, so the share they
  // show understates the rest's until they are all noted. Before the
  // merges.
  void ExpectLargestFirst(uint64_t create_records);
  // Allocates each shard not allocated yet, for its share of the entries
  // expected, and touches the memory, so that merges do not take its page
  // faults. The open calls it on its own thread while the replay threads
  // wait for their first reads, before any container says how many of n are
  // live: only a reservation whose table fits in kEagerTableBytes is
  // allocated then (all of it dead costs less than the slack an open is
  // allowed); a larger one is allocated shard by shard by the merges, sized
  // by the live share, and faulted in at once there. Thread-safe.
  void Allocate();
  static constexpr uint64_t kEagerTableBytes = 16ULL << 20;

  // Not thread-safe with concurrent inserts: for after the open.
  size_t size() const;
  // The memory the map holds: its shards' tables, whatever their load.
  uint64_t TableBytes() const;
  void ForEach(const std::function<void(uint64_t, const BlockMapEntry&)>& fn) const;
  // Every entry, by ascending id (what `kudu fs list` prints), without a
  // lookup per id.
  std::vector<std::pair<uint64_t, BlockMapEntry>> SortedEntries() const;

 private:
  struct Shard {
    mutable std::mutex mu;
    BlockIdTable map;
  };
  // Stretches of ids spread evenly over the shards whatever the ids look
  // like; the table inside a shard places ids by another hash.
  static int ShardOf(uint64_t id) {
    return static_cast<int>(Mix64(id / kShardStretch) % kNumShards);
  }
  bool AllShardsAllocated() const;
  // The shard an insert of every shard starts at: threads that insert at
  // the same time (the end of an open) start at different shards instead
  // of queueing behind each other shard by shard.
  static int StartShard();
  // Inserts into a locked shard; a duplicate goes to `*rejected`.
  static void InsertLocked(Shard* shard, uint64_t id, uint64_t run_hash, const BlockMapEntry& entry,
                           std::vector<Rejected>* rejected);
  // A shard's share of `n` entries, with room for a shard getting a few
  // more stretches than its share.
  static size_t PerShard(size_t n);
  // The share a shard allocated now is sized for.
  size_t ExpectedPerShard() const;
  // Where the shards' first tables come from when each is smaller than a
  // huge page (Reserve): declared before the shards, which it outlives.
  std::unique_ptr<PageArena> arena_;
  Shard shards_[kNumShards];
  size_t reserved_ = 0;
  // What NoteReplayed was told: sums over the containers of their records
  // r and live blocks l (l capped at r), of l^2 / r and of r^2, for the
  // weighted mean of their live shares and its standard error.
  mutable std::mutex notes_mu_;
  double noted_records_ = 0;
  double noted_live_ = 0;
  double noted_live_sq_per_record_ = 0;
  double noted_records_sq_ = 0;
  double largest_first_ = 0;        // what ExpectLargestFirst was told
  double noted_largest_first_ = 0;  // the records of those noted so far
};

}  // namespace fs
}  // namespace kudu
