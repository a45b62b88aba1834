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

// Merging the containers' live blocks into the server's block map, and
// what the merge finds: a block id live in two containers. Each replay
// thread keeps its loaded containers' blocks in a ThreadMerge and inserts
// them a batch at a time, so the map's shard locks are taken once per batch
// rather than once per block (or per small container); its last batch goes
// through FinalMerges (final_merges.h), shared with the threads that have
// finished. Only after every thread is done are the conflicts turned into
// problems naming the record that made each block live, on one thread, in
// container order.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "kudu/fs/block_map.h"
#include "kudu/fs/container_info.h"
#include "kudu/fs/live_block_set.h"
#include "kudu/fs/replay_stats.h"
#include "kudu/util/encryption.h"

namespace kudu {
namespace fs {

class FinalMerges;

// A block id live in two containers, as the merge met it.
struct Conflict {
  uint64_t id;
  uint32_t first;   // container index already in the map
  uint32_t second;  // container index that tried to add it
};

// The conflicts every replay thread's merges met.
class ConflictLog {
 public:
  // Takes the rejections of one insert (and clears them).
  void Record(std::vector<BlockMap::Rejected>* rejected);
  // Once every thread is done.
  const std::vector<Conflict>& conflicts() const { return conflicts_; }

 private:
  std::mutex mu_;
  std::vector<Conflict> conflicts_;
};

// One replay thread's live blocks waiting to be merged into the block map.
class ThreadMerge {
 public:
  // Flush once this many blocks are waiting. Every replay thread of every
  // data dir holds up to this many live blocks (24 bytes each) beside the
  // map until its flush, and at the end of the open all of them at once;
  // a batch this size still takes each shard's lock once per few hundred
  // inserts.
  static constexpr size_t kFlushBlocks = 1 << 14;

  // `containers`, when given, are the open's containers: each queued one
  // tells the map how many of the CREATE records its metadata could hold
  // are live (BlockMap::NoteReplayed).
  ThreadMerge(BlockMap* map, ConflictLog* conflicts,
              const ContainerInfos* containers = nullptr)
      : map_(map), conflicts_(conflicts), containers_(containers) {}

  // Queues the live blocks (ascending ids) of container `index`, whose
  // replay has ended; inserts the batch once it is large enough.
  void Queue(uint32_t index, LiveBlocks blocks);
  // The thread's last batch, once it has no container left.
  void Finish(FinalMerges* final_merges);

 private:
  void Flush();

  BlockMap* const map_;
  ConflictLog* const conflicts_;
  const ContainerInfos* const containers_;
  BlockMap::Batch items_;
  // The containers' live blocks the batch points into, kept until it is
  // inserted.
  std::vector<LiveBlocks> pending_;
  std::vector<BlockMap::Rejected> rejected_;
};

// Turns the merge's conflicts into one problem per (id, container), each
// with the offset of the CREATE record that made the block live there
// (one rescan per involved container, its reads counted in `stats`).
void ReportDuplicates(const std::vector<Conflict>& conflicts, const ServerKey* key,
                      ContainerInfos* containers, ReplayStats* stats);

}  // namespace fs
}  // namespace kudu
