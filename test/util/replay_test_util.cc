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

#include "replay_test_util.h"

#include <algorithm>

#include "kudu/util/file.h"
#include "util/test_util.h"

namespace kudu {
namespace test {

void CapturingSink::OnRecord(const fs::BlockRecord& record, uint64_t offset) {
  entries.push_back(Entry{offset, SerializeBlockRecord(record)});
}

StrategyRun RunStrategy(fs::ReplayStrategyKind kind, const std::string& path, const ServerKey* key,
                        size_t window_bytes, fs::DirectReadMode direct_read) {
  StrategyRun run;
  std::unique_ptr<RandomAccessFile> file;
  Status s = RandomAccessFile::Open(path, key, &file);
  if (!s.ok()) {
    run.outcome.kind = fs::ReplayOutcome::Kind::kIOError;
    run.outcome.status = s;
    return run;
  }
  fs::ReplayStrategyOptions opts;
  opts.window_bytes = window_bytes;
  opts.direct_read = direct_read;
  std::unique_ptr<fs::MetadataReplayStrategy> strategy = fs::NewReplayStrategy(kind, opts);
  if (!strategy) {
    run.outcome.kind = fs::ReplayOutcome::Kind::kIOError;
    run.outcome.status = Status::NotSupported("no such strategy");
    return run;
  }
  CapturingSink sink;
  run.outcome = strategy->Replay(file.get(), &sink);
  run.records = std::move(sink.entries);
  run.read_syscalls = file->stats().read_syscalls;
  run.bytes_read = file->stats().bytes_read;
  run.cache_probe_misses = file->stats().cache_probe_misses;
  run.direct_reads = file->stats().direct_reads;
  return run;
}

std::vector<fs::ReplayStrategyKind> KindsFor(bool encrypted) {
  std::vector<fs::ReplayStrategyKind> kinds = {
      encrypted ? fs::ReplayStrategyKind::kEncryptedInMemory : fs::ReplayStrategyKind::kInMemory};
  if (fs::NewReplayStrategy(fs::ReplayStrategyKind::kWindowed, fs::ReplayStrategyOptions())) {
    kinds.push_back(fs::ReplayStrategyKind::kWindowed);
  }
  return kinds;
}

std::vector<fs::ReplayStrategyKind> EveryKindFor(bool encrypted) {
  std::vector<fs::ReplayStrategyKind> kinds = {fs::ReplayStrategyKind::kStreaming};
  for (fs::ReplayStrategyKind k : KindsFor(encrypted)) kinds.push_back(k);
  return kinds;
}

std::string CompareWithStreaming(const std::string& path, const ServerKey* key,
                                 size_t window_bytes) {
  return CompareWithStreaming(path, key, std::vector<size_t>{window_bytes});
}

std::string CompareWithStreaming(const std::string& path, const ServerKey* key,
                                 const std::vector<size_t>& windows) {
  StrategyRun ref = RunStrategy(fs::ReplayStrategyKind::kStreaming, path, key);
  struct Variant {
    fs::ReplayStrategyKind kind;
    size_t window_bytes;
    fs::DirectReadMode direct_read;
  };
  const bool default_window = std::find(windows.begin(), windows.end(), 4096) != windows.end();
  std::vector<Variant> variants;
  for (fs::ReplayStrategyKind kind : KindsFor(key != nullptr)) {
    // The window is Windowed's alone; every other kind runs once.
    if (kind == fs::ReplayStrategyKind::kWindowed) {
      for (size_t w : windows) variants.push_back({kind, w, fs::DirectReadMode::kCold});
      continue;
    }
    variants.push_back({kind, windows.front(), fs::DirectReadMode::kCold});
    const bool in_memory =
        kind == fs::ReplayStrategyKind::kInMemory || kind == fs::ReplayStrategyKind::kEncryptedInMemory;
    if (in_memory && default_window) {
      variants.push_back({kind, windows.front(), fs::DirectReadMode::kAlways});
    }
  }
  for (const Variant& v : variants) {
    StrategyRun run = RunStrategy(v.kind, path, key, v.window_bytes, v.direct_read);
    std::string name = std::string(ReplayStrategyName(v.kind)) +
                       (v.direct_read == fs::DirectReadMode::kAlways ? " (direct read)" : "");
    if (v.kind == fs::ReplayStrategyKind::kWindowed && windows.size() > 1) {
      name += " (window " + std::to_string(v.window_bytes) + ")";
    }
    if (!run.outcome.SameAs(ref.outcome)) {
      return name + " outcome '" + run.outcome.ToString() + "' differs from streaming's '" +
             ref.outcome.ToString() + "'";
    }
    if (run.records != ref.records) {
      return name + " delivered " + std::to_string(run.records.size()) + " records, streaming " +
             std::to_string(ref.records.size()) + " (or different bytes/offsets)";
    }
  }
  return "";
}

}  // namespace test
}  // namespace kudu
