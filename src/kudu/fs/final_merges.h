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

// The replay threads' last merges, shared.
//
// Each replay thread merges its containers' live blocks into the block map
// in batches, the last one when it has no container left. An open ends
// when its slowest thread does, and that thread's last container is the
// tail: its replay, then its merge, while the threads that finished earlier
// have nothing to do. Here a thread that has run out of containers does
// not leave: it publishes its last batch, inserts it shard by shard
// together with any other finished thread, and keeps helping until every
// thread has published its batch and every shard of every batch is in.
// The last container's merge is then split over the idle cores.
//
// What ends up in the map is the same either way: each shard of a batch
// is inserted by exactly one thread, under the shard's lock; an id claimed
// twice is rejected once, as with one thread (which container keeps a
// duplicated id depends on timing in both cases, and the open reports
// every container involved).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <vector>

#include "kudu/fs/block_map.h"

namespace kudu {
namespace fs {

class FinalMerges {
 public:
  // `threads`: how many threads will call Finish, once each. They must all
  // be able to run at the same time (the open: one per replay pool thread,
  // one task each): Finish waits until every one of them has called it.
  FinalMerges(BlockMap* map, size_t threads) : map_(map), unfinished_threads_(threads) {}

  // Inserts `*batch` into the map, with the help of other finished threads,
  // and helps insert theirs. Returns once its own batch is fully inserted
  // (so its memory and the blocks it points into may go) and no published
  // batch has a shard left for it to take. Ids rejected by the shards this
  // thread inserted (its own batch's or another's) go to `*rejected`.
  void Finish(BlockMap::Batch* batch, std::vector<BlockMap::Rejected>* rejected);

  // `threads` of those counted will not call Finish (replay threads that
  // were never needed, ReplayThreadGate): Finish stops waiting for them.
  void Withdraw(size_t threads);

 private:
  struct Published {
    BlockMap::Batch* batch;
    int first_shard;   // where claiming starts (spreads lock traffic)
    int claimed = 0;   // shards handed out
    int inserted = 0;  // shards done
  };

  // A shard of a published batch nobody has taken yet, or null.
  Published* ClaimLocked(int* shard);

  BlockMap* const map_;
  std::mutex mu_;
  std::condition_variable cv_;
  size_t unfinished_threads_;     // threads that have not called Finish yet
  std::deque<Published> batches_;  // stable addresses as it grows
};

}  // namespace fs
}  // namespace kudu
