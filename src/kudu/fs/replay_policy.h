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
// inputs (sizes, encryption, the options), so it is
// tested with a table and no I/O. The plan says what to try, how long to
// wait for budget and what to do when the wait ends; the caller only
// carries it out against the budget. The read-ahead asks it too how much of
// a file the replay will read first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/util/status.h"

namespace kudu {
namespace fs {

// --log_container_metadata_replay_strategy.
enum class StrategyChoice { kAuto, kStreaming, kInMemory, kWindowed };
Status ParseStrategyChoice(const std::string& name, StrategyChoice* choice);
const char* StrategyChoiceName(StrategyChoice choice);

struct ReplayPolicyOptions {
  StrategyChoice choice = StrategyChoice::kAuto;
  // Largest payload (bytes after the encryption header) replayed from one
  // buffer; 0 disables in-memory replay.
  uint64_t in_memory_threshold_bytes = 64ULL << 20;
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
  uint64_t header_bytes = 0;   // the encryption header (0 for a plain file)
  bool encrypted = false;
};

// One way to replay: a strategy and the budget it holds while it runs.
struct ReplayStep {
  ReplayStrategyKind strategy = ReplayStrategyKind::kStreaming;
  // Bytes of budget to hold while replaying; 0 for none.
  uint64_t budget_bytes = 0;
  // 0: take `budget_bytes` only if they are free now. > 0: wait up to this
  // long for them (the bounded wait).
  uint64_t wait_ms = 0;
  // Why, for logs and tests.
  const char* reason = "";
};

// The whole decision for one container: steps tried in order, the first
// whose budget is granted (or that needs none) replays it. The last step
// needs no budget (Streaming), so what to do when the budget is taken, or a
// bounded wait ends without the bytes, is part of the plan, never made up
// by the caller. The plan does not depend on the budget's state: a step
// that asks for free bytes costs nothing when they are not free.
struct ReplayPlan {
  static constexpr size_t kMaxSteps = 4;
  ReplayStep steps[kMaxSteps];
  size_t num_steps = 0;

  const ReplayStep& first() const { return steps[0]; }
  void Add(const ReplayStep& step) {
    if (num_steps < kMaxSteps) steps[num_steps++] = step;
  }
};

ReplayPlan ChooseReplayPlan(const ReplayPolicyOptions& opts, const ReplayPolicyInput& input);

// With windowed replay off, read-ahead of a file above the in-memory
// threshold fetches this much of it (the kernel's default read-ahead
// window): the replay streams it from the start.
constexpr uint64_t kReadaheadBytesWithoutWindow = 128 << 10;

// How many bytes of a metadata file of `file_size` raw bytes, the first
// `header_bytes` of them its encryption header, read-ahead fetches: what the
// replay reads first. The whole file when its payload is within the
// in-memory threshold (it is replayed from one buffer), unless the replay
// reads it past the page cache (kMinDirectReadBytes or more, direct reads
// on): then nothing. Above the threshold the header and one window (what
// Windowed reads first; the kernel's sequential read-ahead follows its
// later windows).
uint64_t ChooseReadaheadBytes(const ReplayPolicyOptions& opts, uint64_t file_size,
                              uint64_t header_bytes);

// How many of a dir's `threads` replay threads start at once: a warm open
// (metadata in the page cache) is CPU-bound, and threads beyond the `cpus`
// the open's `dirs_with_work` dirs share only take turns (each switch a
// wake-up and a reschedule). The rest start once KeepReplayThreadsBack says
// no more. At least one, at most `threads`.
int ChooseFirstWaveThreads(int threads, int cpus, size_t dirs_with_work);

// A container claimed last can leave one thread replaying it while the
// others idle: containers whose metadata is at least this share of a
// thread's bytes (and kClaimFirstMinBytes) are claimed first, so that what
// is left at the end is small.
constexpr uint64_t kClaimFirstShareOfThread = 64;
// Below this a replay takes about a millisecond: not worth moving.
constexpr uint64_t kClaimFirstMinBytes = 1 << 20;

// The order a data dir's `threads` replay threads claim its containers in,
// given each container's metadata bytes in the dir's (path) order:
// positions into `metadata_bytes`. Each thread claims the next container
// when it is done with one.
//
// In path order the sizes come at random, and a thread could claim a 32 MiB
// file while the others had a few small ones left: the open then waited for
// it on one core. So the large containers (above) go first, largest first,
// equal sizes in path order (longest processing time first); the rest
// follow in path order. Not every container by size: the block map sizes
// its tables from the live share of the containers merged first
// (BlockMap::NoteReplayed), a fair sample only when their order has
// nothing to do with their size (a container with more records has usually
// lost more of its blocks).
// `ahead`, when given, receives how many of the order's first positions are
// the large containers claimed ahead.
std::vector<uint32_t> ChooseClaimOrder(const std::vector<uint64_t>& metadata_bytes, int threads,
                                       size_t* ahead = nullptr);

// Whether the replay threads beyond the first wave may stay unstarted, from
// the cache probes of the open's reads so far (`hits`: every byte was in the
// page cache; `misses`: not, or read past the cache): while every probe hit.
// One miss means a replay thread waited for the disk, and from then on the
// open runs every thread to overlap such waits, as it would without the
// first wave; a cached read that is refused now and then (RWF_NOWAIT gives
// up on a page it would have to wait for) costs no more than that. No
// probe at all (Streaming does not probe) does not hold threads back.
bool KeepReplayThreadsBack(uint64_t hits, uint64_t misses);

// Whether read-ahead may hold back: the reads so far found the page cache
// warm, at least `min_hits` hits and fewer than one miss in eight. Not
// "all": a refused cached read would turn read-ahead on for nothing, while
// a cold open misses nearly always; misses turn it back on, enough hits off
// again. No probes at all is not warm.
bool ProbesLookWarm(uint64_t hits, uint64_t misses, uint64_t min_hits);

}  // namespace fs
}  // namespace kudu
