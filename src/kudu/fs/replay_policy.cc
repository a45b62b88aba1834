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

#include "kudu/fs/replay_policy.h"

#include <gflags/gflags.h>

#include <algorithm>

#include "kudu/fs/replay_window.h"
#include "kudu/util/file.h"
#include "kudu/util/flag_validators.h"

DEFINE_string(log_container_metadata_replay_strategy, "auto",
              "How log block container metadata is replayed at startup: 'auto' lets the "
              "policy choose per container; 'streaming' (the legacy reader, two reads per "
              "record), 'inmemory' (one read per file; Encrypted-InMemory for encrypted "
              "files) or 'windowed' (a fixed window per thread) force one. A forced strategy "
              "still respects the memory budget and falls back to streaming on any error.");
DEFINE_uint64(log_container_metadata_inmem_replay_threshold_bytes, 64ULL << 20,
              "Under 'auto': the largest container metadata payload (bytes, excluding the "
              "encryption header) replayed from a single in-memory buffer; 0 turns in-memory "
              "replay off. A forced 'inmemory' ignores it (0 included).");
DEFINE_uint64(log_container_metadata_replay_memory_budget_bytes, 256ULL << 20,
              "Process-wide cap on the bytes held at once by metadata replay buffers, shared "
              "by every replay thread of every data dir. An in-memory replay holds its whole "
              "file, encryption header included, rounded up to 4 KiB. The default holds "
              "three files at the in-memory threshold (four plain files a multiple of 4 KiB "
              "long), or dozens of typical 4-16 MiB files, which is more concurrent replays "
              "than a server has cores; without the cap 8 threads x 16 dirs x 64 MiB could "
              "hold 8 GiB. Must be at least the in-memory threshold plus the 64-byte "
              "encryption header, rounded up to 4 KiB, for every file at the threshold to "
              "be replayed in memory.");
DEFINE_uint64(log_container_metadata_replay_budget_wait_ms, 1000,
              "How long a replay waits for memory budget held by other replays before it "
              "replays with bounded memory instead. Waiting wins: an in-memory replay "
              "releases its bytes within milliseconds, while streaming a large file costs "
              "two system calls per record.");
DEFINE_validator(log_container_metadata_replay_budget_wait_ms, &kudu::flags::ValidateWaitMs);
DEFINE_string(log_container_metadata_replay_direct_io, "cold",
              "How the in-memory metadata replay reads a file. 'cold': a file of at least "
              "256 KiB that is not all in the page cache (cachestat(2), Linux 6.5+) is read "
              "with O_DIRECT, straight into the replay buffer: after a reboot this saves the "
              "kernel's page-cache fill and copy (CPU on the startup's critical path) and "
              "leaves the cache to data that is read again; cached files are read normally. "
              "'never': always through the page cache. 'always': O_DIRECT whenever the "
              "filesystem allows it, cached or not (keeps a restart's metadata out of the "
              "page cache). Filesystems that refuse "
              "O_DIRECT (tmpfs) are read normally; the bytes, and so the replay, are the same "
              "either way.");
DEFINE_uint64(log_container_metadata_replay_window_bytes, 4ULL << 20,
              "Window of the windowed metadata replay: the fixed buffer, per replay thread, "
              "through which metadata files above the in-memory threshold, and files the "
              "memory budget cannot hold whole right now, are read with one read system call "
              "per window (instead of two per record); it is held from "
              "--log_container_metadata_replay_memory_budget_bytes while a file is replayed. "
              "0 disables windowed replay (such files are streamed); values below 64 KiB are "
              "raised to 64 KiB. At the default (4 MiB) one read serves ~100,000 records, so "
              "the read cost is negligible next to parsing. Lower it (to 1 MiB) when many "
              "replay threads share a small memory budget, so that every thread gets a window "
              "instead of streaming; raise it only if a cold-start measurement shows the disk "
              "needs larger reads. A record larger than the window is replayed with streaming.");

namespace kudu {
namespace fs {

Status ParseStrategyChoice(const std::string& name, StrategyChoice* choice) {
  if (name == "auto") {
    *choice = StrategyChoice::kAuto;
  } else if (name == "streaming") {
    *choice = StrategyChoice::kStreaming;
  } else if (name == "inmemory" || name == "in_memory" || name == "encrypted_inmemory") {
    *choice = StrategyChoice::kInMemory;
  } else if (name == "windowed") {
    *choice = StrategyChoice::kWindowed;
  } else {
    return Status::InvalidArgument(
        "--log_container_metadata_replay_strategy must be auto, streaming, inmemory or "
        "windowed, got '" + name + "'");
  }
  return Status::OK();
}

const char* StrategyChoiceName(StrategyChoice choice) {
  switch (choice) {
    case StrategyChoice::kAuto: return "auto";
    case StrategyChoice::kStreaming: return "streaming";
    case StrategyChoice::kInMemory: return "inmemory";
    case StrategyChoice::kWindowed: return "windowed";
  }
  return "?";
}

Status ReplayPolicyOptions::FromFlags(ReplayPolicyOptions* opts) {
  RETURN_NOT_OK(ParseStrategyChoice(FLAGS_log_container_metadata_replay_strategy, &opts->choice));
  opts->in_memory_threshold_bytes = FLAGS_log_container_metadata_inmem_replay_threshold_bytes;
  opts->memory_budget_bytes = FLAGS_log_container_metadata_replay_memory_budget_bytes;
  opts->budget_wait_ms = FLAGS_log_container_metadata_replay_budget_wait_ms;
  const uint64_t window = FLAGS_log_container_metadata_replay_window_bytes;
  opts->window_bytes = window == 0 ? 0 : std::max<uint64_t>(window, kMinWindowBufferBytes);
  RETURN_NOT_OK(ParseDirectReadMode(FLAGS_log_container_metadata_replay_direct_io, &opts->direct_read));
  return Status::OK();
}

namespace {

ReplayStrategyKind InMemoryKindFor(bool encrypted) {
  return encrypted ? ReplayStrategyKind::kEncryptedInMemory : ReplayStrategyKind::kInMemory;
}

// What a whole-file read allocates (whole_file_read.cc): the file, an
// encrypted file's header included, rounded up to the alignment a direct
// read needs. The budget grants that, not the payload the threshold weighs:
// a grant short of the buffer would let each replay thread hold up to 4 KiB
// and a header more than the budget knows of.
uint64_t WholeFileBufferBytes(const ReplayPolicyInput& in) {
  return RandomAccessFile::DirectReadCapacity(in.header_bytes + in.payload_bytes);
}

ReplayPlan Only(ReplayStrategyKind kind, const char* reason) {
  ReplayPlan plan;
  plan.Add(ReplayStep{kind, 0, 0, reason});
  return plan;
}

// A plan that reads through a buffer of `bytes` held from the budget: taken
// if free, else, when `may_wait`, waited for up to the bounded wait; then the
// steps of `otherwise`.
ReplayPlan Buffered(const ReplayPolicyOptions& opts, ReplayStrategyKind kind, uint64_t bytes,
                    bool may_wait, const ReplayPlan& otherwise, const char* reason) {
  ReplayPlan plan;
  if (bytes > opts.memory_budget_bytes) {
    // Never granted, so never waited for: that is what keeps a large file
    // from blocking every thread behind it.
    plan = otherwise;
    plan.steps[0].reason = "the buffer is larger than the whole memory budget";
    return plan;
  }
  plan.Add(ReplayStep{kind, bytes, 0, reason});
  if (may_wait && opts.budget_wait_ms > 0) {
    plan.Add(ReplayStep{kind, bytes, opts.budget_wait_ms, "memory budget held by others: bounded wait"});
  }
  for (size_t i = 0; i < otherwise.num_steps; i++) {
    ReplayStep step = otherwise.steps[i];
    if (step.strategy == ReplayStrategyKind::kStreaming) step.reason = "memory budget exhausted";
    plan.Add(step);
  }
  return plan;
}

// The bounded-memory path for files the in-memory path cannot take: a
// window if the budget has one free, else Streaming. A window is small: if
// it is not free, streaming costs less than waiting for it.
ReplayPlan BoundedPath(const ReplayPolicyOptions& opts, const ReplayPolicyInput& in,
                       const char* reason) {
  const ReplayPlan streaming = Only(ReplayStrategyKind::kStreaming, reason);
  if (opts.window_bytes == 0 || in.payload_bytes == 0) return streaming;
  // The grant is the buffer the strategy really allocates (at least 64 KiB).
  const uint64_t window = WindowBufferBytes(opts.window_bytes, in.payload_bytes);
  return Buffered(opts, ReplayStrategyKind::kWindowed, window, false, streaming, reason);
}

}  // namespace

ReplayPlan ChooseReplayPlan(const ReplayPolicyOptions& opts, const ReplayPolicyInput& in) {
  switch (opts.choice) {
    case StrategyChoice::kStreaming:
      return Only(ReplayStrategyKind::kStreaming, "forced streaming");
    case StrategyChoice::kWindowed:
      if (opts.window_bytes > 0) {
        const uint64_t window =
            WindowBufferBytes(opts.window_bytes, std::max<uint64_t>(in.payload_bytes, 1));
        return Buffered(opts, ReplayStrategyKind::kWindowed, window, true,
                        Only(ReplayStrategyKind::kStreaming, ""), "forced windowed");
      }
      return Only(ReplayStrategyKind::kStreaming, "windowed replay is not available");
    case StrategyChoice::kInMemory:
      // Forced in-memory ignores the size threshold but not the budget.
      if (in.payload_bytes == 0) return Only(ReplayStrategyKind::kStreaming, "empty payload");
      return Buffered(opts, InMemoryKindFor(in.encrypted), WholeFileBufferBytes(in), true,
                      BoundedPath(opts, in, "forced in-memory, bounded path"), "forced in-memory");
    case StrategyChoice::kAuto:
      break;
  }
  if (in.payload_bytes == 0) return Only(ReplayStrategyKind::kStreaming, "empty payload");
  if (opts.in_memory_threshold_bytes == 0) {
    return BoundedPath(opts, in, "in-memory replay disabled (threshold 0)");
  }
  if (in.payload_bytes > opts.in_memory_threshold_bytes) {
    return BoundedPath(opts, in, "payload above the in-memory threshold");
  }
  return Buffered(opts, InMemoryKindFor(in.encrypted), WholeFileBufferBytes(in), true,
                  BoundedPath(opts, in, "bounded path"), "payload within the in-memory threshold");
}

uint64_t ChooseReadaheadBytes(const ReplayPolicyOptions& opts, uint64_t file_size,
                              uint64_t header_bytes) {
  const uint64_t payload = file_size - std::min(file_size, header_bytes);
  if (payload <= opts.in_memory_threshold_bytes) {
    // A large file read whole is read past the page cache while it is not
    // in it (O_DIRECT, straight into the replay's buffer). Read ahead, it
    // would be found there and copied out, after the kernel had filled
    // pages for it: CPU a cold open of large files is bound by (cold
    // S1-server at 3.21 GiB opened a quarter faster without it). The
    // dir's replay threads keep that many reads in flight instead.
    const bool read_whole =
        opts.choice == StrategyChoice::kAuto || opts.choice == StrategyChoice::kInMemory;
    if (read_whole && opts.direct_read != DirectReadMode::kNever &&
        file_size >= kMinDirectReadBytes) {
      return 0;
    }
    return file_size;
  }
  const uint64_t window = opts.window_bytes > 0 ? opts.window_bytes : kReadaheadBytesWithoutWindow;
  return std::min(file_size, header_bytes + window);
}

int ChooseFirstWaveThreads(int threads, int cpus, size_t dirs_with_work) {
  const int64_t dirs = static_cast<int64_t>(std::max<size_t>(dirs_with_work, 1));
  const int64_t per_dir = (std::max(cpus, 1) + dirs - 1) / dirs;
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, per_dir)));
}

std::vector<uint32_t> ChooseClaimOrder(const std::vector<uint64_t>& metadata_bytes, int threads,
                                       size_t* ahead) {
  uint64_t total = 0;
  for (uint64_t b : metadata_bytes) total += std::min(b, UINT64_MAX - total);
  const uint64_t thread_bytes = total / static_cast<uint64_t>(std::max(threads, 1));
  const uint64_t first_from =
      std::max(kClaimFirstMinBytes, thread_bytes / kClaimFirstShareOfThread);
  std::vector<uint32_t> order;
  order.reserve(metadata_bytes.size());
  for (uint32_t k = 0; k < metadata_bytes.size(); k++) {
    if (metadata_bytes[k] >= first_from) order.push_back(k);
  }
  std::stable_sort(order.begin(), order.end(), [&metadata_bytes](uint32_t a, uint32_t b) {
    return metadata_bytes[a] > metadata_bytes[b];
  });
  if (ahead != nullptr) *ahead = order.size();
  for (uint32_t k = 0; k < metadata_bytes.size(); k++) {
    if (metadata_bytes[k] < first_from) order.push_back(k);
  }
  return order;
}

bool KeepReplayThreadsBack(uint64_t hits, uint64_t misses) { return hits > 0 && misses == 0; }

bool ProbesLookWarm(uint64_t hits, uint64_t misses, uint64_t min_hits) {
  return hits >= std::max<uint64_t>(min_hits, 1) && misses * 8 < hits + misses;
}

}  // namespace fs
}  // namespace kudu
