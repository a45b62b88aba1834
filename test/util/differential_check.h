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

// The differential check used by the mutation test and the libFuzzer
// targets: one metadata file is replayed
//   - by every strategy directly (Streaming, the in-memory one that fits,
//     Windowed with several windows when it exists), each into a sink that
//     captures the records and applies them to a ContainerReplayState;
//   - by ContainerReplayer with each forced choice (what the open uses,
//     fallback included);
//   - by the independent model of spec_oracle.h;
// and every result must be the same: outcome (kind, offset, record count,
// message), record stream (offsets and the re-serialized records), and the
// container state (live map, dead/total counts, bytes, max id, next write
// offset, malformed records). Header-only so fuzz targets need no gtest.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kudu/fs/container_replay_state.h"
#include "kudu/fs/container_replayer.h"
#include "kudu/fs/fs.pb.h"
#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/fs/replay_outcome.h"
#include "kudu/fs/replay_policy.h"
#include "kudu/util/byte_budget.h"
#include "kudu/util/file.h"
#include "util/spec_oracle.h"
#include "util/test_util.h"

namespace kudu {
namespace diff {

struct StateSnapshot {
  std::vector<std::pair<uint64_t, std::pair<int64_t, int64_t>>> live;  // sorted by id
  std::vector<std::pair<uint64_t, uint64_t>> malformed;  // (record offset, block id)
  std::vector<std::string> malformed_reasons;
  uint64_t live_bytes = 0, live_bytes_aligned = 0, total_blocks = 0, total_bytes = 0;
  bool has_max = false;
  uint64_t max_id = 0, next_write_offset = 0, records = 0;

  bool operator==(const StateSnapshot& o) const {
    return live == o.live && malformed == o.malformed &&
           malformed_reasons == o.malformed_reasons && live_bytes == o.live_bytes &&
           live_bytes_aligned == o.live_bytes_aligned && total_blocks == o.total_blocks &&
           total_bytes == o.total_bytes && has_max == o.has_max && max_id == o.max_id &&
           next_write_offset == o.next_write_offset && records == o.records;
  }
};

inline StateSnapshot Snapshot(const fs::ContainerReplayState& s) {
  StateSnapshot out;
  s.live_blocks().ForEach([&out](uint64_t id, const fs::BlockLocation& loc) {
    out.live.push_back({id, {loc.offset, loc.length}});
  });
  std::sort(out.live.begin(), out.live.end());
  for (const auto& m : s.malformed()) {
    out.malformed.push_back({m.record_offset, m.block_id});
    out.malformed_reasons.push_back(m.reason);
  }
  out.live_bytes = s.live_bytes();
  out.live_bytes_aligned = s.live_bytes_aligned();
  out.total_blocks = s.total_blocks();
  out.total_bytes = s.total_bytes();
  out.has_max = s.has_max_block_id();
  out.max_id = s.has_max_block_id() ? s.max_block_id() : 0;
  out.next_write_offset = s.next_write_offset();
  out.records = s.records_applied();
  return out;
}

// Captures (offset, serialized record) and applies each record to a state.
class TeeSink : public fs::BlockRecordSink {
 public:
  explicit TeeSink(fs::ContainerReplayState* state) : state_(state) {}
  void OnRecord(const fs::BlockRecord& record, uint64_t offset) override {
    records.push_back({offset, test::SerializeBlockRecord(record)});
    state_->OnRecord(record, offset);
  }
  std::vector<std::pair<uint64_t, std::string>> records;

 private:
  fs::ContainerReplayState* state_;
};

struct Options {
  const ServerKey* key = nullptr;
  // The container's data file (for the §4 checks of CREATE records).
  uint64_t data_file_size = 1 << 20;
  uint64_t fs_block_size = 4096;
  // Windows for Windowed (when it exists); empty: only the default.
  std::vector<size_t> windows = {1, 7, 64, 4096};
  bool check_replayer = true;
  bool check_oracle = true;
};

struct Run {
  std::string what;
  bool open_failed = false;
  Status open_status;
  fs::ReplayOutcome outcome;
  std::vector<std::pair<uint64_t, std::string>> records;
  StateSnapshot state;
};

inline uint64_t DataStart(const Options& o) { return o.key ? kEncryptionHeaderSize : 0; }

inline Run RunStrategy(fs::ReplayStrategyKind kind, size_t window, const std::string& path,
                       const Options& o) {
  Run run;
  run.what = std::string(ReplayStrategyName(kind)) +
             (kind == fs::ReplayStrategyKind::kWindowed ? "(window " + std::to_string(window) + ")"
                                                    : "");
  std::unique_ptr<RandomAccessFile> file;
  run.open_status = RandomAccessFile::Open(path, o.key, &file);
  if (!run.open_status.ok()) {
    run.open_failed = true;
    return run;
  }
  fs::ReplayStrategyOptions sopts;
  sopts.window_bytes = window;
  std::unique_ptr<fs::MetadataReplayStrategy> strategy = fs::NewReplayStrategy(kind, sopts);
  if (!strategy) std::abort();
  fs::ContainerReplayState state(o.data_file_size, DataStart(o), o.fs_block_size);
  TeeSink sink(&state);
  run.outcome = strategy->Replay(file.get(), &sink);
  run.records = std::move(sink.records);
  run.state = Snapshot(state);
  return run;
}

inline Run RunReplayer(fs::StrategyChoice choice, uint64_t window, uint64_t budget_bytes,
                       const std::string& path, const Options& o, fs::ContainerReplayResult* res) {
  Run run;
  run.what = std::string("replayer(") + StrategyChoiceName(choice) + ")";
  std::unique_ptr<RandomAccessFile> file;
  run.open_status = RandomAccessFile::Open(path, o.key, &file);
  if (!run.open_status.ok()) {
    run.open_failed = true;
    return run;
  }
  fs::ReplayPolicyOptions popts;
  popts.choice = choice;
  popts.window_bytes = window;
  popts.memory_budget_bytes = budget_bytes;
  popts.budget_wait_ms = 0;
  ByteBudget budget(budget_bytes);
  fs::ContainerReplayer replayer(popts, &budget, nullptr);
  fs::ContainerReplayState state(o.data_file_size, DataStart(o), o.fs_block_size);
  *res = replayer.Replay(file.get(), &state);
  run.outcome = res->outcome;
  run.records.clear();
  run.state = Snapshot(state);
  if (budget.held() != 0) std::abort();  // a grant outlived the replay
  return run;
}

inline std::string CompareRuns(const Run& ref, const Run& r, bool compare_records = true) {
  if (ref.open_failed != r.open_failed) return r.what + ": open failed differently";
  if (ref.open_failed) {
    return ref.open_status.ToString() == r.open_status.ToString()
               ? ""
               : r.what + ": open status differs";
  }
  if (!r.outcome.SameAs(ref.outcome)) {
    return r.what + " outcome '" + r.outcome.ToString() + "' differs from streaming's '" +
           ref.outcome.ToString() + "'";
  }
  if (compare_records && r.records != ref.records) {
    return r.what + " delivered " + std::to_string(r.records.size()) + " records, streaming " +
           std::to_string(ref.records.size()) + " (or different bytes/offsets)";
  }
  if (!(r.state == ref.state)) return r.what + ": container state differs from streaming's";
  return "";
}

inline std::string CompareWithOracle(const oracle::OracleResult& want, const Run& got,
                                     const std::string& path, const Options& o) {
  using oracle::OracleKind;
  const std::string pre = "oracle says " + std::string(oracle::OracleKindName(want.kind)) +
                          " at " + std::to_string(want.offset) + " after " +
                          std::to_string(want.records.size()) + " records (" + want.why +
                          "), " + got.what + " says ";
  if (want.kind == OracleKind::kOpenFailed) {
    if (!got.open_failed) return pre + "the file opens: " + got.outcome.ToString();
    if (!got.open_status.IsCorruption()) return pre + got.open_status.ToString();
    return "";
  }
  if (got.open_failed) return pre + "open failed: " + got.open_status.ToString();
  const fs::ReplayOutcome& out = got.outcome;
  fs::ReplayOutcome::Kind k;
  switch (want.kind) {
    case OracleKind::kClean: k = fs::ReplayOutcome::Kind::kClean; break;
    case OracleKind::kPartial: k = fs::ReplayOutcome::Kind::kPartialRecord; break;
    case OracleKind::kCorruption: k = fs::ReplayOutcome::Kind::kCorruption; break;
    default: k = fs::ReplayOutcome::Kind::kIOError; break;
  }
  if (out.kind != k || out.offset != want.offset || out.records != want.records.size()) {
    return pre + out.ToString();
  }
  // A failed replay's message names the file.
  if (!out.clean() && out.status.ToString().find(path) == std::string::npos) {
    return pre + "a message without the file name: " + out.status.ToString();
  }
  if (got.records.size() != want.records.size()) {
    return pre + std::to_string(got.records.size()) + " records delivered";
  }
  for (size_t i = 0; i < want.records.size(); i++) {
    if (got.records[i].first != want.records[i].offset ||
        // What the replay delivers is a BlockRecord: the oracle's message
        // reduced to the same fields (no timestamp, no unknown fields).
        got.records[i].second != test::SerializeBlockRecord(fs::BlockRecordFromPB(want.records[i].record))) {
      return pre + "a different record " + std::to_string(i) + " at offset " +
             std::to_string(got.records[i].first) + ": " + want.records[i].record.ShortDebugString();
    }
  }
  // §4 over the same records.
  oracle::OracleContainer c(o.data_file_size, DataStart(o), o.fs_block_size);
  for (const auto& r : want.records) c.Apply(r.record, r.offset);
  const StateSnapshot& s = got.state;
  std::vector<std::pair<uint64_t, std::pair<int64_t, int64_t>>> live(c.live.begin(),
                                                                      c.live.end());
  std::vector<uint64_t> malformed;
  for (const auto& m : s.malformed) malformed.push_back(m.first);
  if (live != s.live || malformed != c.malformed || s.total_blocks != c.total_blocks ||
      s.has_max != c.has_max || s.max_id != c.max_id ||
      s.next_write_offset != c.next_write_offset || s.live_bytes != c.LiveBytes() ||
      s.records != want.records.size()) {
    return pre + "a container state different from the model's (live " +
           std::to_string(s.live.size()) + " vs " + std::to_string(live.size()) +
           ", malformed " + std::to_string(malformed.size()) + " vs " +
           std::to_string(c.malformed.size()) + ", next write offset " +
           std::to_string(s.next_write_offset) + " vs " + std::to_string(c.next_write_offset) +
           ")";
  }
  return "";
}

struct Counters {
  uint64_t strategy_runs = 0;
  uint64_t replayer_runs = 0;
  uint64_t oracle_runs = 0;
};

inline bool WindowedAvailable() {
  static const bool available =
      fs::NewReplayStrategy(fs::ReplayStrategyKind::kWindowed, fs::ReplayStrategyOptions()) != nullptr;
  return available;
}

// Replays the file at `path` (whose raw bytes are `bytes`) every way and
// returns "" when everything agrees, otherwise the first difference.
// `streaming` receives Streaming's run.
inline std::string CheckFile(const std::string& path, const std::string& bytes, const Options& o,
                             Run* streaming = nullptr, Counters* counters = nullptr) {
  Counters local;
  Counters* cnt = counters ? counters : &local;
  Run ref = RunStrategy(fs::ReplayStrategyKind::kStreaming, 0, path, o);
  cnt->strategy_runs++;
  std::vector<std::pair<fs::ReplayStrategyKind, size_t>> kinds;
  kinds.push_back({o.key ? fs::ReplayStrategyKind::kEncryptedInMemory : fs::ReplayStrategyKind::kInMemory, 0});
  if (WindowedAvailable()) {
    for (size_t w : o.windows) kinds.push_back({fs::ReplayStrategyKind::kWindowed, w});
  }
  for (const auto& k : kinds) {
    Run r = RunStrategy(k.first, k.second, path, o);
    cnt->strategy_runs++;
    std::string d = CompareRuns(ref, r);
    if (!d.empty()) return d;
  }
  if (o.check_replayer) {
    std::vector<fs::StrategyChoice> choices = {fs::StrategyChoice::kAuto, fs::StrategyChoice::kStreaming,
                                           fs::StrategyChoice::kInMemory};
    if (WindowedAvailable()) choices.push_back(fs::StrategyChoice::kWindowed);
    for (fs::StrategyChoice c : choices) {
      fs::ContainerReplayResult res;
      // A budget that holds the whole file, and for Windowed a tiny window.
      Run r = RunReplayer(c, 16, bytes.size() + 1, path, o, &res);
      cnt->replayer_runs++;
      std::string d = CompareRuns(ref, r, /*compare_records=*/false);
      if (!d.empty()) return d;
      if (!r.open_failed && bytes.size() > DataStart(o) && c != fs::StrategyChoice::kStreaming &&
          c != fs::StrategyChoice::kAuto && res.chosen == fs::ReplayStrategyKind::kStreaming) {
        return r.what + " chose streaming although the budget holds the file";
      }
    }
  }
  if (o.check_oracle) {
    cnt->oracle_runs++;
    std::string d = CompareWithOracle(oracle::OracleReplay(bytes, o.key), ref, path, o);
    if (!d.empty()) return d;
  }
  if (streaming) *streaming = std::move(ref);
  return "";
}

}  // namespace diff
}  // namespace kudu
