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

// libFuzzer target over whole small data dirs through the block manager open
// path. The input describes one or two data dirs holding up to four
// containers (metadata bytes, data file size, missing files, repeated ids;
// plain or encrypted; layout in fuzz_common.h). The dirs are opened with
// every strategy choice (Streaming with one and two threads per dir,
// InMemory, Windowed when it exists, Auto) and the reports must be
// identical: status, failure kind, every container's checks, outcome,
// counts, malformed records and problems, and the published block map.
// Also checked: the block map is published exactly when the open succeeds
// and then holds every container's live blocks; each replayed container's
// outcome matches the independent model of the format.
#include <cstddef>
#include <cstdint>
#include <map>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include "fuzz/fuzz_common.h"
#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/container_writer.h"
#include "kudu/util/env.h"
#include "util/differential_check.h"
#include "util/open_describe.h"
#include "util/spec_oracle.h"

namespace kudu {
namespace fuzz {
namespace {

struct Scratch {
  std::string base;
  std::string roots[2];
};

Scratch* GetScratch() {
  static Scratch* s = [] {
    Scratch* s = new Scratch();
    const char* shm = "/dev/shm";
    bool is_dir = false;
    std::string parent = env::IsDirectory(shm, &is_dir).ok() && is_dir ? shm : "/tmp";
    s->base = parent + "/kudu-fuzz-open-" + std::to_string(::getpid());
    for (int d = 0; d < 2; d++) {
      s->roots[d] = s->base + "/d" + std::to_string(d);
      if (!env::CreateDirs(fs::LogBlockContainerWriter::DataDir(s->roots[d])).ok()) Die("mkdir");
    }
    std::atexit([] { (void)env::DeleteRecursively(GetScratch()->base); });
    return s;
  }();
  return s;
}

void WriteFile(const std::string& path, const std::string& bytes, uint64_t size) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) Die("open " + path);
  if (!bytes.empty() && ::pwrite(fd, bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
    Die("pwrite " + path);
  }
  if (size > bytes.size() && ::ftruncate(fd, static_cast<off_t>(size)) != 0) Die("ftruncate");
  ::close(fd);
}

// §4.1, naively: a metadata file without its data file is an incomplete
// container only when it reads to a clean end with no id left (each
// CREATE adds its id, each DELETE removes it, nothing else checked);
// otherwise it is fatal, its id count the naive one.
void CheckWithoutData(const fs::ContainerInfo& c, const oracle::OracleResult& want,
                      const std::string& what) {
  std::set<uint64_t> ids;
  for (const auto& rec : want.records) {
    if (rec.record.op_type() == CREATE) ids.insert(rec.record.block_id().id());
    if (rec.record.op_type() == DELETE) ids.erase(rec.record.block_id().id());
  }
  const bool incomplete = want.kind == oracle::OracleKind::kClean && ids.empty();
  if (c.incomplete != incomplete) {
    Die(what + ": " + c.metadata_path + ": without data, incomplete is " +
        std::to_string(c.incomplete) + ", the naive replay says " + std::to_string(incomplete));
  }
  if (incomplete) return;
  if (!c.fatal()) Die(what + ": " + c.metadata_path + ": without data and not fatal");
  if (c.outcome.records != want.records.size() || c.outcome.offset != want.offset ||
      c.live_blocks != ids.size()) {
    Die(what + ": " + c.metadata_path + ": without data, " + c.outcome.ToString() + " and " +
        std::to_string(c.live_blocks) + " ids, the naive replay " +
        std::to_string(want.records.size()) + " records and " + std::to_string(ids.size()) +
        " ids");
  }
}

void CheckInvariants(const fs::OpenResult& r, const std::map<std::string, std::string>& metadata,
                     const ServerKey* key, const std::string& what) {
  if (r.ok() != (r.block_map != nullptr)) Die(what + ": block map published iff ok violated");
  if (r.ok()) {
    uint64_t live = 0;
    for (const fs::ContainerInfo& c : r.containers) {
      live += c.live_blocks;
      if (c.fatal()) Die(what + ": ok open with a fatal container");
    }
    if (r.block_map->size() != live) Die(what + ": block map size != sum of live blocks");
  }
  if (r.failure == fs::OpenResult::Failure::kUsage) return;
  for (const fs::ContainerInfo& c : r.containers) {
    // Incomplete by the files' sizes: never replayed.
    if (!c.replayed) continue;
    auto it = metadata.find(c.metadata_path);
    if (it == metadata.end()) Die(what + ": replayed a file not written: " + c.metadata_path);
    oracle::OracleResult want = oracle::OracleReplay(it->second, key);
    if (want.kind == oracle::OracleKind::kOpenFailed) {
      if (c.problems.empty()) Die(what + ": " + c.metadata_path + " should fail to open");
      continue;
    }
    if (!c.has_data) {
      CheckWithoutData(c, want, what);
      continue;
    }
    if (c.incomplete) Die(what + ": " + c.metadata_path + ": incomplete after a replay");
    fs::ReplayOutcome::Kind k = want.kind == oracle::OracleKind::kClean ? fs::ReplayOutcome::Kind::kClean
                            : want.kind == oracle::OracleKind::kPartial
                                ? fs::ReplayOutcome::Kind::kPartialRecord
                            : want.kind == oracle::OracleKind::kCorruption
                                ? fs::ReplayOutcome::Kind::kCorruption
                                : fs::ReplayOutcome::Kind::kIOError;
    if (c.outcome.kind != k || c.outcome.offset != want.offset ||
        c.outcome.records != want.records.size()) {
      Die(what + ": " + c.metadata_path + ": outcome " + c.outcome.ToString() + ", oracle " +
          oracle::OracleKindName(want.kind) + " at " + std::to_string(want.offset) + " after " +
          std::to_string(want.records.size()) + " records");
    }
    oracle::OracleContainer oc(c.has_data ? c.data_size : UINT64_MAX, key ? 64 : 0, 4096);
    for (const auto& rec : want.records) oc.Apply(rec.record, rec.offset);
    if (oc.live.size() != c.live_blocks || oc.total_blocks != c.total_blocks ||
        oc.malformed.size() != c.malformed.size() || oc.next_write_offset != c.next_write_offset) {
      Die(what + ": " + c.metadata_path + ": container counts differ from the model's");
    }
  }
}

}  // namespace
}  // namespace fuzz
}  // namespace kudu

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  kudu::fuzz::QuietLogging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kudu;
  using namespace kudu::fuzz;
  Scratch* s = GetScratch();
  for (int d = 0; d < 2; d++) {
    const std::string dir = fs::LogBlockContainerWriter::DataDir(s->roots[d]);
    std::vector<std::string> names;
    if (!env::ListDir(dir, &names).ok()) Die("list");
    for (const auto& n : names) (void)env::DeleteFile(env::JoinPath(dir, n));
  }
  const FuzzDataDir input = ParseDataDirInput(data, size);
  const FuzzCipher& fc = GetFuzzCipher(0);
  const ServerKey* key = input.encrypted ? &fc.server_key : nullptr;
  std::map<std::string, std::string> metadata;  // path -> raw bytes on disk
  for (const FuzzContainer& c : input.containers) {
    const std::string& root = s->roots[c.dir];
    const std::string id = FuzzContainerId(c.id_slot);
    const std::string mpath = fs::LogBlockContainerWriter::MetadataPath(root, id);
    const std::string dpath = fs::LogBlockContainerWriter::DataPath(root, id);
    if (c.has_metadata) {
      std::string bytes = input.encrypted ? fc.header + EncryptPayload(0, c.metadata) : c.metadata;
      WriteFile(mpath, bytes, 0);
      metadata[mpath] = std::move(bytes);
    } else {
      (void)env::DeleteFile(mpath);
      metadata.erase(mpath);
    }
    if (c.data_code == 0) {
      (void)env::DeleteFile(dpath);
    } else {
      const uint64_t dsize = c.data_code == 1 ? 0 : uint64_t{1024} * c.data_code;
      WriteFile(dpath, input.encrypted ? fc.header : "", dsize);
    }
  }

  std::vector<std::string> roots = {s->roots[0]};
  if (input.two_dirs) roots.push_back(s->roots[1]);
  struct Variant {
    fs::StrategyChoice choice;
    int threads;
  };
  std::vector<Variant> variants = {{fs::StrategyChoice::kStreaming, 1},
                                   {fs::StrategyChoice::kStreaming, 2},
                                   {fs::StrategyChoice::kInMemory, 2},
                                   {fs::StrategyChoice::kAuto, 1}};
  if (diff::WindowedAvailable()) variants.push_back({fs::StrategyChoice::kWindowed, 2});
  std::string ref;
  for (const Variant& v : variants) {
    fs::BlockManagerOpenOptions opts;
    opts.data_dirs = roots;
    opts.server_key = key;
    opts.threads_per_dir = v.threads;
    opts.policy.choice = v.choice;
    opts.policy.memory_budget_bytes = 1 << 20;
    opts.policy.window_bytes = diff::WindowedAvailable() ? 64 : 0;
    opts.policy.budget_wait_ms = 0;
    opts.fs_block_size = 4096;
    opts.progress_every = 0;
    opts.repair = false;
    fs::OpenResult result;
    fs::OpenBlockManager(opts, &result);
    const std::string what =
        std::string(StrategyChoiceName(v.choice)) + " x" + std::to_string(v.threads);
    CheckInvariants(result, metadata, key, what);
    std::string desc = test::DescribeOpen(result);
    if (ref.empty()) {
      ref = std::move(desc);
    } else if (desc != ref) {
      Die(what + " report differs from streaming's:\n--- streaming\n" + ref + "--- " + what +
          "\n" + desc);
    }
  }
  return 0;
}
