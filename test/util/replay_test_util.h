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

// Helpers for replay tests: capture the record stream a strategy delivers and
// run every strategy over the same file.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kudu/fs/fs.pb.h"
#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/fs/replay_outcome.h"
#include "kudu/util/encryption.h"
#include "kudu/util/status.h"

namespace kudu {
namespace test {

// Records every record as (offset, the record serialised as a BlockRecordPB).
class CapturingSink : public fs::BlockRecordSink {
 public:
  void OnRecord(const fs::BlockRecord& record, uint64_t offset) override;
  struct Entry {
    uint64_t offset;
    std::string bytes;
    bool operator==(const Entry& o) const { return offset == o.offset && bytes == o.bytes; }
  };
  std::vector<Entry> entries;
};

struct StrategyRun {
  fs::ReplayOutcome outcome;
  std::vector<CapturingSink::Entry> records;
  uint64_t read_syscalls = 0;
  uint64_t bytes_read = 0;
  // Whole-file reads that found part of the file out of the page cache, and
  // reads past the cache (RandomAccessFile::Stats).
  uint64_t cache_probe_misses = 0;
  uint64_t direct_reads = 0;
};

// Opens `path` (with `key` when not null) and replays it with `kind`.
// An open failure is returned as an IOError outcome.
StrategyRun RunStrategy(fs::ReplayStrategyKind kind, const std::string& path, const ServerKey* key,
                        size_t window_bytes = 4096,
                        fs::DirectReadMode direct_read = fs::DirectReadMode::kCold);

// The kinds a file is checked against Streaming with: the in-memory one that
// fits it, and Windowed when it exists.
std::vector<fs::ReplayStrategyKind> KindsFor(bool encrypted);
// Streaming and KindsFor(encrypted): every kind that can replay the file.
std::vector<fs::ReplayStrategyKind> EveryKindFor(bool encrypted);

// Empty when every kind gives Streaming's records and outcome; otherwise a
// description of the first difference. With the default window the
// in-memory kind runs twice: as configured by default (a test's file is in
// the page cache, so through it) and reading past the page cache (O_DIRECT
// where the filesystem allows it).
std::string CompareWithStreaming(const std::string& path, const ServerKey* key,
                                 size_t window_bytes = 4096);
// The same for several windows at once: Streaming and the in-memory kind run
// once (the window is Windowed's alone), Windowed once per window.
std::string CompareWithStreaming(const std::string& path, const ServerKey* key,
                                 const std::vector<size_t>& windows);

}  // namespace test
}  // namespace kudu
