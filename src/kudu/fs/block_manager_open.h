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

// Opening the log block manager at server startup: every data dir listed,
// its files paired into containers, the container-level checks of §4, each
// container's metadata replayed on its data dir's thread pool through the
// replay policy, the local live maps merged into one block map, and every
// problem collected for the report. Optionally followed by repair.
//
// This file is the orchestration; each concern has its own file:
//   container_listing.h       dirs checked, data/ listed, files paired, sorted by path
//   key_probe.h               a missing, wrong or superfluous key, said once
//   container_load.h          per container: size checks, open, replay, counts, class
//   container_classification.h  incomplete / full / dead / low-live, from numbers
//   block_merge.h             per-thread merge batches, duplicate ids
//   final_merges.h            the replay threads' last merges, shared
//
//   for each root:    <root>/data/ listed, <id>.data + <id>.metadata paired
//   before replay:    key probe (a usage error instead of one failure per file)
//   per container:    incomplete?  → recorded, not replayed
//                     otherwise    → ContainerReplayer (one per pool thread,
//                                    one ByteBudget and ReplayStats for all)
//                     then         → live blocks merged into the BlockMap
//   after all dirs:   duplicate ids resolved to record offsets, wrong-key
//                     detection, problems sorted, status = first fatal one;
//                     the block map is published only when the open succeeded
//
// Only the metadata file of a container being replayed is open, so file
// descriptors stay at most one per replay thread, plus read-ahead's
// (metadata_readahead.h): fadvise opens each file it advises for the length
// of one call.
#pragma once

#include <gflags/gflags_declare.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kudu/fs/block_map.h"
#include "kudu/fs/container_classification.h"
#include "kudu/fs/container_info.h"
#include "kudu/fs/container_listing.h"
#include "kudu/fs/container_replayer.h"
#include "kudu/fs/metadata_readahead.h"
#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/fs/prepare_data_dirs.h"
#include "kudu/fs/repair.h"
#include "kudu/fs/replay_policy.h"
#include "kudu/fs/replay_stats.h"
#include "kudu/util/encryption.h"
#include "kudu/util/status.h"

DECLARE_bool(encrypt_data_at_rest);
DECLARE_int32(fs_max_thread_count_per_data_dir);
DECLARE_double(log_container_live_metadata_before_compact_ratio);

namespace kudu {
namespace fs {

struct BlockManagerOpenOptions {
  // Reads --fs_max_thread_count_per_data_dir, --log_container_max_size,
  // --log_container_max_blocks,
  // --log_container_live_metadata_before_compact_ratio, the classification
  // flags (container_classification.h) and the read-ahead flags as they are now (an unparsable read-ahead flag leaves the
  // defaults; the tools reject it before opening).
  // `policy` keeps its defaults: set it with ReplayPolicyOptions::FromFlags.
  BlockManagerOpenOptions();

  std::vector<std::string> data_dirs;  // roots; containers live in <root>/data/
  // The WAL and metadata roots that are not data roots: only their
  // `instance` files are read, and checked with the data roots' (§1).
  std::vector<std::string> other_roots;
  const ServerKey* server_key = nullptr;  // every file is encrypted when set
  // --encrypt_data_at_rest: an open without any key is a usage error (§5).
  bool encrypt_data_at_rest;
  int threads_per_dir;
  // CPUs the open may use (std::thread::hardware_concurrency()): while the
  // page cache looks warm each dir runs only its share of them as replay
  // threads (ChooseFirstWaveThreads), and the listing stats on at most
  // this many threads.
  int cpus;
  ReplayPolicyOptions policy;
  // Read-ahead across each dir's containers (fs/metadata_readahead.h).
  ReadaheadOptions readahead;
  uint64_t max_container_size;
  int64_t max_container_blocks;  // <= 0: unlimited
  double live_ratio_before_compact;
  // The other limits of §4.3 (metadata size, extra space, runtime
  // compaction), from their flags; its first three fields are the ones above.
  ClassificationRules classification;
  // 0: each dir's filesystem block size (env::GetBlockSize of <root>/data).
  uint64_t fs_block_size = 0;
  // Log "Opened N log block containers" every this many containers.
  uint64_t progress_every = 200;
  // Repair what can be repaired after the open (see repair.h).
  bool repair = false;
  // Makes each replay thread's strategies; empty: NewReplayStrategy. The
  // framework's plug-in point: any MetadataReplayStrategy runs inside the
  // same open, policy, budget and fallback (`kudu fs bench` measures
  // upstream Kudu's reader this way).
  ContainerReplayer::StrategyFactory strategy_factory;
};

// Replay statistics of one open: the shared ReplayStats' counters as the
// open ended, and what the budget and read-ahead say about the whole open.
struct ReplayStatsSnapshot : ReplayCounters {
  uint64_t peak_buffer_bytes = 0;
  uint64_t memory_budget_bytes = 0;
  // The read-ahead mode that ran.
  ReadaheadMode readahead_mode = ReadaheadMode::kNone;
};

struct OpenTiming {
  double wall_s = 0;
  double user_s = 0;
  double sys_s = 0;
};

struct OpenResult {
  // How the open failed, which decides the tool's exit status.
  enum class Failure {
    kNone,
    kUsage,         // a bad dir or key: nothing about the on-disk state (exit 2)
    kInconsistent,  // corruption, I/O error, duplicate id, missing data (exit 1)
    kInstance,      // an on-disk instance problem, before any report (exit 1)
    // The process ran out of file descriptors or memory while it read a
    // file: nothing is known about the on-disk state, so there is no report
    // and no repair (exit 1, the message says what ran out).
    kResource,
  };
  Status status;
  Failure failure = Failure::kNone;
  bool ok() const { return status.ok(); }

  std::vector<std::string> data_dirs;
  std::vector<uint64_t> fs_block_sizes;  // per data dir
  bool encrypted = false;
  // Every container found, sorted by path (so reports are deterministic
  // whatever the thread timing).
  ContainerInfos containers;
  // Data dirs whose data/ could not be listed: fatal, before any container.
  std::vector<DataDirProblem> dir_problems;
  // Temporary files found (full paths, sorted): prepared->temp_files.found.
  std::vector<std::string> leftover_tmp_files;
  // Instance files, locks (held while this lives), temporary files; null when
  // the open stopped before them.
  std::unique_ptr<PreparedDataDirs> prepared;

  // Published only when the open succeeded; null otherwise.
  std::unique_ptr<BlockMap> block_map;
  // Highest id of an accepted CREATE record in any counted container, and
  // the server's next block id (that plus one; 1 when there is none). When
  // the highest id is 2^64-1 there is no next id: a wrapped 0 would hand
  // out ids again (§4.2).
  bool has_max_block_id = false;
  uint64_t max_block_id = 0;
  bool has_next_block_id = true;
  uint64_t next_block_id = 1;

  ReplayStatsSnapshot replay;
  OpenTiming timing;

  bool repaired = false;  // repair ran (it may have stopped on an error)
  RepairSummary repairs;
};

// Opens the block manager. Returns result->status: OK, or the first fatal
// problem (in container path, offset order). Even on failure `result`
// describes every container, so a check reports them all.
Status OpenBlockManager(const BlockManagerOpenOptions& opts, OpenResult* result);

}  // namespace fs
}  // namespace kudu
