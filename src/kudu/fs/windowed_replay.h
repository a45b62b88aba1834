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

// Windowed: replays a metadata file of any size through one fixed buffer
// per replay thread (the window, --log_container_metadata_replay_window_bytes),
// one read system call per window instead of two per record, plain or
// encrypted. See window_record_source.h for how records that straddle a
// window boundary, the all-zero rule and records larger than the window are
// handled.
//
// The buffer is min(max(window, kMinWindowBufferBytes), payload) bytes,
// allocated when Replay starts and freed before it returns, so it is held
// exactly while the caller holds the memory-budget grant for the window.
// Nothing is allocated per record: reads are pointers into the buffer, the
// parsing message is reused, and the zero-run index keeps its (bounded)
// capacity across files.
//
// Outcomes are exactly Streaming's, with one documented exception: a record
// (or supplemental header) larger than the buffer ends the replay with an
// IOError outcome ("... larger than the replay window ...") at that record's
// offset, after delivering the records before it. ContainerReplayer then
// discards them and replays the file with Streaming, so the container still
// gets Streaming's exact result; only the memory for that one file is not
// bounded by the window (Streaming allocates what the record needs).
#pragma once

#include "kudu/fs/fs.pb.h"
#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/fs/window_record_source.h"
#include "kudu/util/zero_rule.h"

namespace kudu {
namespace fs {

class WindowedReplay : public MetadataReplayStrategy {
 public:
  // `window_bytes` 0 is taken as 1.
  explicit WindowedReplay(size_t window_bytes) : window_bytes_(window_bytes ? window_bytes : 1) {}

  ReplayStrategyKind kind() const override { return ReplayStrategyKind::kWindowed; }
  ReplayOutcome Replay(RandomAccessFile* file, BlockRecordSink* sink) override;

  size_t window_bytes() const { return window_bytes_; }
  // Counters of the last Replay (test hooks: buffer size, refills, ...).
  const WindowStats& last_stats() const { return last_stats_; }
  // Entries of the zero-run index kept between files (bounded by
  // kMaxIndexedZeroRuns whatever the files hold).
  size_t zero_run_index_runs() const { return zero_runs_.run_count(); }

 private:
  const size_t window_bytes_;
  BlockRecordPB scratch_;
  ZeroRunIndex zero_runs_;
  WindowStats last_stats_;
};

}  // namespace fs
}  // namespace kudu
