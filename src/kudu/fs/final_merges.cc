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

#include "kudu/fs/final_merges.h"

namespace kudu {
namespace fs {

FinalMerges::Published* FinalMerges::ClaimLocked(int* shard) {
  for (Published& p : batches_) {
    if (p.claimed < BlockMap::kNumShards) {
      *shard = (p.first_shard + p.claimed++) % BlockMap::kNumShards;
      return &p;
    }
  }
  return nullptr;
}

void FinalMerges::Finish(BlockMap::Batch* batch, std::vector<BlockMap::Rejected>* rejected) {
  std::unique_lock<std::mutex> l(mu_);
  // Threads finishing together start on different shards of a batch.
  batches_.push_back(Published{batch, static_cast<int>(batches_.size() * 7 % BlockMap::kNumShards)});
  Published* const mine = &batches_.back();
  unfinished_threads_--;
  cv_.notify_all();
  while (true) {
    int shard;
    Published* p = ClaimLocked(&shard);
    if (p != nullptr) {
      l.unlock();
      map_->InsertBatchShard(p->batch, shard, rejected);
      l.lock();
      if (++p->inserted == BlockMap::kNumShards) cv_.notify_all();
      continue;
    }
    // Nothing left to take. Leave once this thread's batch is in and no
    // other thread can still publish one; otherwise wait for either.
    if (mine->inserted == BlockMap::kNumShards && unfinished_threads_ == 0) return;
    cv_.wait(l);
  }
}

void FinalMerges::Withdraw(size_t threads) {
  if (threads == 0) return;
  std::lock_guard<std::mutex> l(mu_);
  unfinished_threads_ -= threads;
  cv_.notify_all();
}

}  // namespace fs
}  // namespace kudu
