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

}  // namespace fs
}  // namespace kudu
