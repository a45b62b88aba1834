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

#include "kudu/fs/container_replayer.h"

#include <glog/logging.h>

#include <algorithm>
#include <chrono>

#include "kudu/util/byte_budget.h"
#include "kudu/util/file.h"

namespace kudu {
namespace fs {

ContainerReplayer::ContainerReplayer(const ReplayPolicyOptions& opts, ByteBudget* budget,
                                     ReplayStats* stats, StrategyFactory factory)
    : opts_(opts), budget_(budget), stats_(stats), factory_(std::move(factory)) {
  if (!factory_) {
    ReplayStrategyOptions sopts;
    sopts.window_bytes = opts_.window_bytes ? opts_.window_bytes : sopts.window_bytes;
    sopts.direct_read = opts_.direct_read;
    sopts.read_buffers = &read_buffers_;
    factory_ = [sopts](ReplayStrategyKind k) { return NewReplayStrategy(k, sopts); };
  }
}

MetadataReplayStrategy* ContainerReplayer::Strategy(ReplayStrategyKind kind) {
  auto& slot = strategies_[static_cast<int>(kind)];
  if (!slot) slot = factory_(kind);
  return slot.get();
}

namespace {

// A partial trailing record the shared reader found is what Streaming would
// find: the same reader code over the same bytes read for read (the sources'
// equivalence with the reference is what the equivalence suites test), and
// every record before it was delivered already. Replaying the file again
// would cost two reads per record to confirm a tail the reader has just
// decided from the bytes in memory, under the per-read all-zero rule. Any
// other unclean end falls back: an I/O error may not recur (or is a window
// too small for a record, which Streaming can read), and damage is rare.
constexpr uint64_t kLoggedFallbacks = 10;

bool IsStreamingsVerdict(const ReplayOutcome& outcome) {
  return outcome.kind == ReplayOutcome::Kind::kPartialRecord && outcome.decided_by_reader;
}

bool ReadsWholeFile(ReplayStrategyKind kind) {
  return kind == ReplayStrategyKind::kInMemory || kind == ReplayStrategyKind::kEncryptedInMemory;
}

}  // namespace

ContainerReplayResult ContainerReplayer::Replay(RandomAccessFile* file,
                                                ContainerReplayState* state) {
  ContainerReplayResult result;
  ReplayPolicyInput in;
  in.payload_bytes = file->size() - file->encryption_header_size();
  in.header_bytes = file->encryption_header_size();
  in.encrypted = file->encrypted();
  const ReplayPlan plan = ChooseReplayPlan(opts_, in);

  // The buffer kept from the last container serves this one when the
  // plan's first step reads the whole file into no more than the buffer
  // holds, and its grant covers the file or can grow to it without
  // waiting. It is trimmed to the file, its grant with it. Otherwise it
  // goes before any budget is asked for.
  const ReplayStep* step = &plan.first();
  const bool reuse = read_buffers_.capacity() > 0 && ReadsWholeFile(step->strategy) &&
                     step->budget_bytes <= read_buffers_.capacity() &&
                     (budget_ == nullptr || kept_grant_.TryGrowTo(step->budget_bytes));
  if (reuse) {
    read_buffers_.TrimTo(step->budget_bytes);
    kept_grant_.ShrinkTo(std::max<uint64_t>(step->budget_bytes, read_buffers_.resident()));
  } else {
    ReleaseKeptBuffer();
  }

  // The first step of the plan whose budget we get (or that needs none);
  // the policy ends every plan with one that needs none.
  ByteBudgetGrant grant;
  for (size_t i = 0; !reuse && i < plan.num_steps; i++) {
    step = &plan.steps[i];
    if (step->budget_bytes == 0 || budget_ == nullptr) break;
    bool got;
    if (step->wait_ms > 0) {
      if (stats_) stats_->Add(stats_->budget_waits, 1);
      got = budget_->AcquireFor(step->budget_bytes, std::chrono::milliseconds(step->wait_ms));
      if (!got && stats_) stats_->Add(stats_->budget_wait_timeouts, 1);
    } else {
      got = budget_->TryAcquire(step->budget_bytes);
    }
    if (got) {
      grant = ByteBudgetGrant(budget_, step->budget_bytes);
      break;
    }
  }
  DCHECK(reuse || grant.bytes() > 0 || step->budget_bytes == 0 || budget_ == nullptr)
      << "the plan for " << file->filename() << " ended in a step that needs budget";

  result.chosen = step->strategy;
  result.budget_bytes = reuse ? kept_grant_.bytes() : grant.bytes();
  if (stats_) stats_->Add(stats_->containers_by_strategy[static_cast<int>(step->strategy)], 1);

  MetadataReplayStrategy* strategy = Strategy(step->strategy);
  result.outcome = strategy->Replay(file, state);
  // A buffer the strategy left in the cache keeps the grant it was read
  // under; without one the grant goes back now.
  if (!reuse) {
    if (read_buffers_.capacity() > 0) {
      kept_grant_ = std::move(grant);
    } else {
      grant.Reset();
    }
  }

  if (!result.outcome.clean() && step->strategy != ReplayStrategyKind::kStreaming &&
      !IsStreamingsVerdict(result.outcome)) {
    result.fell_back = true;
    result.fallback_reason = result.outcome.ToString();
    // The first few are logged, the rest only counted (the report has the
    // count): a dir whose every file fails alike (an encrypted dir opened
    // without its key, a disk gone bad) would log a line per container.
    const uint64_t earlier =
        stats_ ? stats_->fallbacks.fetch_add(1, std::memory_order_relaxed) : 0;
    if (earlier < kLoggedFallbacks) {
      LOG(WARNING) << "Replay of " << file->filename() << " with " << strategy->name()
                   << " ended with " << result.fallback_reason
                   << "; discarding its records and replaying with streaming"
                   << (earlier + 1 == kLoggedFallbacks ? " (further fallbacks are counted, "
                                                         "not logged)"
                                                       : "");
    }
    state->Reset();
    result.outcome = Strategy(ReplayStrategyKind::kStreaming)->Replay(file, state);
  }
  if (stats_) {
    stats_->Add(stats_->records, result.outcome.records);
    stats_->Add(stats_->metadata_read_syscalls, file->stats().read_syscalls);
    stats_->Add(stats_->metadata_bytes_read, file->stats().bytes_read);
    stats_->Add(stats_->direct_reads, file->stats().direct_reads);
    stats_->Add(stats_->cache_probe_hits, file->stats().cache_probe_hits);
    stats_->Add(stats_->cache_probe_misses, file->stats().cache_probe_misses);
  }
  return result;
}

void ContainerReplayer::ReleaseKeptBuffer() {
  read_buffers_.Clear();
  kept_grant_.Reset();
}

}  // namespace fs
}  // namespace kudu
