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

// The replay policy: which strategy replays a container's metadata, and how
// much of the memory budget it holds while doing so. A pure function of its
// inputs (sizes, encryption, the budget's state, the options), so it is
// tested with a table and no I/O; the caller owns the budget and the waiting.
#pragma once

#include <cstdint>
#include <string>

#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/util/status.h"

namespace kudu {

// --log_container_metadata_replay_strategy.
enum class StrategyChoice { kAuto, kStreaming, kInMemory, kWindowed };
Status ParseStrategyChoice(const std::string& name, StrategyChoice* choice);
const char* StrategyChoiceName(StrategyChoice choice);

struct ReplayPolicyOptions {
  StrategyChoice choice = StrategyChoice::kAuto;
  // Largest payload (bytes after the encryption header) replayed from one
  // buffer; 0 disables in-memory replay.
  uint64_t inmem_threshold_bytes = 64ULL << 20;
  // Process-wide cap on bytes held by replay buffers at once.
  uint64_t memory_budget_bytes = 256ULL << 20;
  // How long a replay waits for budget that is momentarily all held before
  // taking the bounded-memory path instead.
  uint64_t budget_wait_ms = 1000;
  // Window of the Windowed strategy; 0 when it is not available, in which
  // case the bounded-memory path is Streaming.
  uint64_t window_bytes = 0;
  // How the in-memory strategies read a file (whole_file_read.h).
  DirectReadMode direct_read = DirectReadMode::kCold;

  // From the --log_container_metadata_* flags.
  static Status FromFlags(ReplayPolicyOptions* opts);
};

struct ReplayPolicyInput {
  uint64_t payload_bytes = 0;  // metadata file size minus the encryption header
  bool encrypted = false;
  // Bytes of the memory budget free when the caller asked.
  uint64_t budget_free_bytes = 0;
  // True when this container already waited once for budget.
  bool waited = false;
};

struct ReplayPlan {
  ReplayStrategyKind strategy = ReplayStrategyKind::kStreaming;
  // Bytes of budget to hold while replaying; 0 for none.
  uint64_t budget_bytes = 0;
  // When > 0 the budget cannot serve `budget_bytes` now and the plan is to
  // wait up to this long for them; if the wait fails, ask again with
  // `waited` set.
  uint64_t wait_ms = 0;
  // Why, for logs and tests.
  const char* reason = "";
};

ReplayPlan ChooseReplayPlan(const ReplayPolicyOptions& opts, const ReplayPolicyInput& input);

}  // namespace kudu
