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

// Replays one container's metadata file the way the policy says, holding the
// memory budget the plan needs, and falls back to Streaming when an
// accelerated strategy ends in anything but a clean end of file or a partial
// trailing record its reader decided (ReplayOutcome::decided_by_reader, which
// is Streaming's verdict already): what the first attempt delivered is
// discarded, the container is replayed again from scratch, the fallback is
// counted and logged once with its reason. A container's result is therefore
// always exactly Streaming's.
//
// One ContainerReplayer per replay thread: it keeps one instance of each
// strategy, so buffers and parsing messages are reused across containers.
// A whole-file buffer of 4 MiB or more stays too (ReadBufferCache), with
// the budget grant it was read under: the next container whose plan needs
// no more is read into it without asking the budget again. A plan that
// needs more, or another kind of strategy, gives it back first, so a
// thread never waits for budget while it keeps a buffer.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "kudu/fs/container_replay_state.h"
#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/fs/replay_policy.h"
#include "kudu/fs/replay_stats.h"
#include "kudu/fs/whole_file_read.h"
#include "kudu/util/byte_budget.h"

namespace kudu {
class RandomAccessFile;

namespace fs {

struct ContainerReplayResult {
  // The outcome as Streaming gives it (after a fallback, Streaming's own).
  ReplayOutcome outcome;
  // What the policy chose.
  ReplayStrategyKind chosen = ReplayStrategyKind::kStreaming;
  bool fell_back = false;
  // The first attempt's outcome when it fell back.
  std::string fallback_reason;
  // Bytes of budget held during the first attempt.
  uint64_t budget_bytes = 0;
};

class ContainerReplayer {
 public:
  using StrategyFactory =
      std::function<std::unique_ptr<MetadataReplayStrategy>(ReplayStrategyKind)>;

  // `budget` may be null (no cap); `stats` may be null. `factory` makes the
  // strategies the policy picks (by default NewReplayStrategy): another
  // implementation plugs in here, and a mock proves the fallback rules.
  ContainerReplayer(const ReplayPolicyOptions& opts, ByteBudget* budget, ReplayStats* stats,
                    StrategyFactory factory = nullptr);
  // The default factory's strategies point at this replayer's buffer.
  ContainerReplayer(const ContainerReplayer&) = delete;
  ContainerReplayer& operator=(const ContainerReplayer&) = delete;

  // Replays the already opened metadata `file` into `state`.
  ContainerReplayResult Replay(RandomAccessFile* file, ContainerReplayState* state);
  // Where the replays' reads are counted (null: nowhere).
  ReplayStats* stats() const { return stats_; }
  // Frees the buffer kept from the last container and gives its budget
  // back: for a thread that has no container left to replay.
  void ReleaseKeptBuffer();
  // Bytes of the buffer kept for the next container (0: none).
  size_t kept_buffer_bytes() const { return read_buffers_.capacity(); }

 private:
  MetadataReplayStrategy* Strategy(ReplayStrategyKind kind);

  const ReplayPolicyOptions opts_;
  ByteBudget* const budget_;
  ReplayStats* const stats_;
  StrategyFactory factory_;
  // Declared before the strategies, which may hold pointers to it.
  ReadBufferCache read_buffers_;
  ByteBudgetGrant kept_grant_;  // the budget read_buffers_' buffer was read under
  std::unique_ptr<MetadataReplayStrategy> strategies_[ReplayStats::kKinds];
};

}  // namespace fs
}  // namespace kudu
