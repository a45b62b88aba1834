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

// The block manager open on generated server states (plain and encrypted, 1
// to 4 data dirs, thousands of containers): each opens to exactly the live
// set the writer recorded, with every report field checked against an
// independent reference replay, the same under every replay strategy.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/fs_report.h"
#include "kudu/tools/block_workload.h"
#include "util/fs_fixture_util.h"
#include "util/reference_replay_util.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

using fs::OpenResult;
using nlohmann::json;
using test::TempDir;

uint64_t AlignUp(uint64_t v) { return (v + 4095) / 4096 * 4096; }

// §7.1, naively: how many dead blocks of a well-formed container's records a
// compaction keeps (the one at the next block offset when no live block
// reaches it, the one of the highest id when above every live id).
size_t KeptDeadBlocks(const std::vector<BlockRecordPB>& records, bool encrypted) {
  struct Create {
    uint64_t id, aligned_end;
    bool dead;
  };
  std::vector<Create> creates;
  std::map<uint64_t, size_t> live;  // id -> its CREATE
  for (const BlockRecordPB& r : records) {
    if (r.op_type() == CREATE) {
      live[r.block_id().id()] = creates.size();
      creates.push_back({r.block_id().id(),
                         AlignUp(static_cast<uint64_t>(r.offset() + r.length())), false});
    } else if (r.op_type() == DELETE) {
      creates[live.at(r.block_id().id())].dead = true;
      live.erase(r.block_id().id());
    }
  }
  if (creates.empty()) return 0;
  const uint64_t start = encrypted ? 4096 : 0;
  uint64_t next = start, reach = start, max_id = 0;
  for (const Create& c : creates) {
    next = std::max(next, c.aligned_end);
    if (!c.dead) reach = std::max(reach, c.aligned_end);
    max_id = std::max(max_id, c.id);
  }
  std::set<size_t> kept;
  size_t last_at_next = 0, last_of_max = 0;
  for (size_t i = 0; i < creates.size(); i++) {
    if (creates[i].aligned_end == next) last_at_next = i;
    if (creates[i].id == max_id) last_of_max = i;
  }
  if (reach < next && creates[last_at_next].dead) kept.insert(last_at_next);
  if (live.count(max_id) == 0 && creates[last_of_max].dead) kept.insert(last_of_max);
  return kept.size();
}

// ---------------------------------------------------------------------------
// Generated server states.

struct GeneratedCase {
  int dirs;
  bool encrypted;
  int containers;
  int blocks_per_container;
};

class GeneratedOpenTest : public ::testing::TestWithParam<GeneratedCase> {};

TEST_P(GeneratedOpenTest, OpensToTheGeneratedLiveSet) {
  const GeneratedCase& gc = GetParam();
  TempDir tmp;
  std::vector<std::string> roots;
  for (int d = 0; d < gc.dirs; d++) roots.push_back(tmp.Join("dir" + std::to_string(d)));
  ServerKey key = test::TestServerKey(16);
  const ServerKey* k = gc.encrypted ? &key : nullptr;

  tools::BlockWorkloadOptions wo;
  wo.writer.data_dirs = roots;
  wo.writer.server_key = k;
  wo.writer.sync = false;
  wo.writer.fs_block_size = 4096;
  wo.containers = gc.containers;
  wo.blocks_per_container = gc.blocks_per_container;
  wo.deleted_block_percentage = 40;  // enough for dead and low-live containers
  wo.max_block_size = 2048;
  wo.max_group_size = 2;
  wo.seed = 7 + gc.dirs;
  tools::BlockWorkloadResult gen;
  ASSERT_OK(tools::RunBlockWorkload(wo, &gen));
  ASSERT_EQ(gc.containers, static_cast<int>(gen.containers));

  // An independent replay of the same files for the fields the generator
  // does not record (ids of deleted blocks, per-container totals).
  test::ReferenceReplay ref;
  ASSERT_OK(test::ReplayDataDirs(roots, k, &ref));
  test::LiveSet expected_live;
  for (const tools::GeneratedBlock& b : gen.live) {
    expected_live[b.id.id()] = std::make_tuple(b.container_id, b.offset, b.length);
  }
  uint64_t live_bytes = 0, live_aligned = 0, max_id = 0;
  for (const tools::GeneratedBlock& b : gen.live) {
    live_bytes += b.length;
    live_aligned += AlignUp(b.length);
  }
  std::map<std::string, uint64_t> live_per_container, total_per_container;
  for (const tools::GeneratedBlock& b : gen.live) live_per_container[b.container_id]++;
  for (const auto& kv : ref.records) {
    for (const BlockRecordPB& r : kv.second) {
      if (r.op_type() == CREATE) {
        total_per_container[kv.first]++;
        max_id = std::max<uint64_t>(max_id, r.block_id().id());
      }
    }
  }
  uint64_t full = 0, dead = 0, low_live = 0;
  for (const auto& kv : total_per_container) {
    if (kv.second < static_cast<uint64_t>(gc.blocks_per_container)) continue;
    full++;
    const uint64_t live = live_per_container[kv.first];
    if (live == 0) dead++;
    // §4.3: not when the rewrite would drop nothing.
    const size_t kept = KeptDeadBlocks(ref.records.at(kv.first), gc.encrypted);
    if (live > 0 && live * 2 <= kv.second && kv.second - live > kept) low_live++;
  }
  // §4.3: Kudu counts each encrypted data file's header as live.
  if (gc.encrypted) {
    live_bytes += 64 * gen.containers;
    live_aligned += 4096 * gen.containers;
  }

  // The fixture must exercise what it checks.
  EXPECT_EQ(gen.containers, full);
  if (gc.containers >= 1000) {
    EXPECT_GT(dead, 0u);
    EXPECT_GT(low_live, 0u);
  }

  json first_report;
  for (StrategyChoice choice : test::kAllStrategyChoices) {
    SCOPED_TRACE(StrategyChoiceName(choice));
    fs::BlockManagerOpenOptions opts = test::OpenOptions(roots, k, choice);
    opts.threads_per_dir = 1 + gc.dirs;
    opts.max_container_blocks = gc.blocks_per_container;
    OpenResult r;
    ASSERT_OK(fs::OpenBlockManager(opts, &r));
    ASSERT_EQ(OpenResult::Failure::kNone, r.failure);
    ASSERT_NE(nullptr, r.block_map);
    EXPECT_EQ(expected_live, test::LiveSetOf(r));

    // `kudu fs list` order: ascending ids, the generator's file exactly.
    const auto entries = r.block_map->SortedEntries();
    ASSERT_EQ(gen.live.size(), entries.size());
    for (size_t i = 0; i < entries.size(); i++) ASSERT_EQ(gen.live[i].id.id(), entries[i].first);

    json j = fs::FsReportJson(r);
    EXPECT_TRUE(j["ok"].get<bool>());
    EXPECT_EQ("OK", j["status"]);
    std::vector<std::string> data_dirs;
    for (const std::string& root : roots) data_dirs.push_back(root + "/data");
    EXPECT_EQ(data_dirs, j["data_dirs"].get<std::vector<std::string>>());
    EXPECT_EQ(gc.encrypted, j["encrypted"].get<bool>());
    EXPECT_EQ(gen.containers, j["containers"].get<uint64_t>());
    EXPECT_EQ(full, j["full_containers"].get<uint64_t>());
    EXPECT_EQ(dead, j["dead_containers"].get<uint64_t>());
    EXPECT_EQ(low_live, j["low_live_containers"].get<uint64_t>());
    EXPECT_EQ(gen.live.size(), j["live_blocks"].get<uint64_t>());
    EXPECT_EQ(live_bytes, j["live_bytes"].get<uint64_t>());
    EXPECT_EQ(gen.live_bytes + (gc.encrypted ? 64 * gen.containers : 0),
              j["live_bytes"].get<uint64_t>());
    EXPECT_EQ(live_aligned, j["live_bytes_aligned"].get<uint64_t>());
    EXPECT_EQ(max_id, j["max_block_id"].get<uint64_t>());
    EXPECT_EQ(max_id + 1, j["next_block_id"].get<uint64_t>());
    EXPECT_EQ(max_id + 1, r.next_block_id);
    for (const char* zero : {"malformed_records", "partial_records", "incomplete_containers",
                             "corrupt_containers", "misaligned_blocks",
                             "full_container_extra_space", "leftover_tmp_files"}) {
      EXPECT_EQ(0u, j[zero].get<uint64_t>()) << zero;
    }
    for (const char* empty : {"malformed_records", "partial_records", "incomplete_containers",
                              "corruption"}) {
      EXPECT_TRUE(j["entries"][empty].empty()) << empty;
    }
    EXPECT_EQ(dead, j["entries"]["dead_containers"].size());
    EXPECT_EQ(low_live, j["entries"]["low_live_containers"].size());
    EXPECT_FALSE(j.contains("repairs"));

    const json& rp = j["replay"];
    uint64_t by_strategy = 0;
    for (const char* s : {"streaming", "inmemory", "encrypted_inmemory", "windowed"}) {
      ASSERT_TRUE(rp["containers_by_strategy"].contains(s)) << s;
      by_strategy += rp["containers_by_strategy"][s].get<uint64_t>();
    }
    EXPECT_EQ(gen.containers, by_strategy);
    EXPECT_EQ(0u, rp["fallbacks"].get<uint64_t>());
    EXPECT_GT(rp["metadata_read_syscalls"].get<uint64_t>(), 0u);
    EXPECT_GE(rp["metadata_bytes_read"].get<uint64_t>(), gen.metadata_bytes);
    EXPECT_EQ(opts.policy.memory_budget_bytes, rp["memory_budget_bytes"].get<uint64_t>());
    EXPECT_LE(rp["peak_buffer_bytes"].get<uint64_t>(), rp["memory_budget_bytes"].get<uint64_t>());
    if (choice == StrategyChoice::kStreaming) {
      EXPECT_EQ(gen.containers, rp["containers_by_strategy"]["streaming"].get<uint64_t>());
      EXPECT_EQ(0u, rp["peak_buffer_bytes"].get<uint64_t>());
    } else {
      const char* inmem = gc.encrypted ? "encrypted_inmemory" : "inmemory";
      EXPECT_EQ(gen.containers, rp["containers_by_strategy"][inmem].get<uint64_t>());
      EXPECT_GT(rp["peak_buffer_bytes"].get<uint64_t>(), 0u);
      // One read of the whole file per container (+ the header read of an
      // encrypted file), plus a probe or two for the key check. The read
      // asks the page cache first (RWF_NOWAIT); a file not all cached,
      // which a machine under load may have evicted or still be writing
      // back, takes a second read, counted as a cache probe miss.
      EXPECT_LE(rp["metadata_read_syscalls"].get<uint64_t>(),
                gen.containers * (gc.encrypted ? 2 : 1) +
                    r.replay.cache_probe_misses + 2);
    }
    for (const char* t : {"wall_s", "user_s", "sys_s"}) EXPECT_TRUE(j["timing"][t].is_number());

    json stable = test::StableReport(r);
    if (first_report.is_null()) {
      first_report = stable;
    } else {
      EXPECT_EQ(first_report, stable);
    }
    std::string text = fs::FsReportText(r);
    EXPECT_NE(std::string::npos, text.find("FS layout report"));
    EXPECT_NE(std::string::npos,
              text.find("Total live blocks: " + std::to_string(gen.live.size())));
  }
}

INSTANTIATE_TEST_SUITE_P(
    DirsAndEncryption, GeneratedOpenTest,
    ::testing::Values(GeneratedCase{1, false, 120, 5}, GeneratedCase{2, false, 120, 5},
                      GeneratedCase{3, false, 120, 5}, GeneratedCase{4, false, 120, 5},
                      GeneratedCase{1, true, 120, 5}, GeneratedCase{2, true, 120, 5},
                      GeneratedCase{3, true, 120, 5}, GeneratedCase{4, true, 120, 5},
                      // Thousands of containers.
                      GeneratedCase{4, false, 2000, 4}, GeneratedCase{3, true, 2000, 4}),
    [](const ::testing::TestParamInfo<GeneratedCase>& i) {
      return std::to_string(i.param.dirs) + "dirs_" + (i.param.encrypted ? "encrypted" : "plain") +
             "_" + std::to_string(i.param.containers) + "containers";
    });

}  // namespace
}  // namespace fs
}  // namespace kudu
