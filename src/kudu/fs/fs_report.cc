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

#include "kudu/fs/fs_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <set>
#include <sstream>

#include "kudu/fs/block_id.h"

namespace kudu {
namespace fs {

using nlohmann::json;

FsReportTotals ComputeReportTotals(const OpenResult& r) {
  FsReportTotals t;
  std::set<uint64_t> duplicate_ids;
  for (const ContainerInfo& c : r.containers) {
    if (c.incomplete) {
      t.incomplete_containers++;
      continue;
    }
    t.containers++;
    if (c.full) t.full_containers++;
    if (c.dead) t.dead_containers++;
    if (c.low_live) t.low_live_containers++;
    t.live_blocks += c.live_blocks;
    t.live_bytes += c.live_bytes;
    t.live_bytes_aligned += c.live_bytes_aligned;
    t.malformed_records += c.malformed.size();
    if (c.partial_record()) t.partial_records++;
    if (c.fatal()) t.corrupt_containers++;
    t.fatal_problems += c.problems.size();
    for (const ContainerProblem& p : c.problems) {
      // Count ids, not (id, container) pairs.
      if (p.kind == ContainerProblem::Kind::kDuplicateId) duplicate_ids.insert(p.block_id);
    }
  }
  t.duplicate_block_ids = duplicate_ids.size();
  return t;
}

namespace {

json ReplayJson(const ReplayStatsSnapshot& s) {
  json by = json::object();
  for (int k = 0; k < static_cast<int>(ReplayStrategyKind::kNumKinds); k++) {
    by[ReplayStrategyName(static_cast<ReplayStrategyKind>(k))] = s.containers_by_strategy[k];
  }
  return json{{"containers_by_strategy", by},
              {"fallbacks", s.fallbacks},
              {"metadata_read_syscalls", s.metadata_read_syscalls},
              {"metadata_bytes_read", s.metadata_bytes_read},
              {"records", s.records},
              {"budget_waits", s.budget_waits},
              {"budget_wait_timeouts", s.budget_wait_timeouts},
              {"peak_buffer_bytes", s.peak_buffer_bytes},
              {"memory_budget_bytes", s.memory_budget_bytes}};
}

json RepairsJson(const RepairSummary& s) {
  return json{{"ok", s.status.ok()},
              {"status", s.status.ok() ? std::string("OK") : s.status.ToString()},
              {"leftover_tmp_files_deleted", s.leftover_tmp_files_deleted},
              {"incomplete_containers_deleted", s.incomplete_containers_deleted},
              {"dead_containers_deleted", s.dead_containers_deleted},
              {"partial_records_truncated", s.partial_records_truncated},
              {"low_live_metadata_rewritten", s.low_live_metadata_rewritten},
              {"containers_skipped", s.containers_skipped}};
}

// Left empty, the first data root stands in (see FsReportRoots).
std::string RootOr(const std::string& root, const OpenResult& r) {
  if (!root.empty()) return root;
  return r.data_dirs.empty() ? std::string() : r.data_dirs[0];
}

// What the open found before any replay (prepare_data_dirs.h): locks it
// could not take, entries with the temporary-file infix that are not
// regular files, and a temporary file it could not delete.
void AddPreparedDirsJson(const OpenResult& r, json* j) {
  json unexpected = json::array(), unlocked = json::array(), errors = json::array();
  if (r.prepared != nullptr) {
    for (const std::string& f : r.prepared->temp_files.unexpected) unexpected.push_back(f);
    for (const UnlockedDir& u : r.prepared->unlocked_dirs) {
      unlocked.push_back(json{{"dir", u.dir}, {"message", u.message}});
    }
    const TemporaryFiles& t = r.prepared->temp_files;
    if (!t.failure.ok()) {
      errors.push_back(json{{"path", t.failed_path},
                            {"step", kTemporaryFilesStep},
                            {"message", t.failure.ToString()}});
    }
  }
  (*j)["unexpected_files"] = unexpected.size();
  (*j)["unlocked_dirs"] = unlocked.size();
  json& entries = (*j)["entries"];
  entries["unexpected_files"] = unexpected;
  entries["unlocked_dirs"] = unlocked;
  // The deletion of temporary files is the first repair step: its error
  // comes before any other.
  json& all_errors = entries["repair_errors"];
  if (!all_errors.is_array()) all_errors = json::array();
  all_errors.insert(all_errors.begin(), errors.begin(), errors.end());
  (*j)["repair_errors"] = all_errors.size();
}

std::string PreparedDirsText(const OpenResult& r) {
  if (r.prepared == nullptr) return "";
  const TemporaryFiles& t = r.prepared->temp_files;
  std::ostringstream o;
  const bool read_write = r.repaired;
  for (const std::string& f : t.found) {
    const bool kept = std::find(t.only_copies.begin(), t.only_copies.end(), f) !=
                      t.only_copies.end();
    o << "Temporary file " << f;
    if (kept && read_write) {
      o << " (kept: its container's .metadata file does not exist, so it may be the only copy "
           "of that container's records; a Kudu server starting on this dir, in any mode, "
           "deletes it)";
    }
    o << "\n";
  }
  for (const std::string& f : t.unexpected) o << "Unexpected file " << f << "\n";
  for (const UnlockedDir& u : r.prepared->unlocked_dirs) {
    o << "Unlocked dir " << u.dir << ": " << u.message << "\n";
  }
  if (!t.failure.ok()) {
    o << "Repair error (" << kTemporaryFilesStep << ") " << t.failed_path << ": "
      << t.failure.ToString() << "\n";
  }
  return o.str();
}

}  // namespace

std::string FsReportStatus(const OpenResult& r) {
  if (!r.ok()) return r.status.ToString();
  if (r.repaired && !r.repairs.status.ok()) return "repair failed: " + r.repairs.status.ToString();
  return "OK";
}

json FsReportJson(const OpenResult& r, const FsReportRoots& roots) {
  const FsReportTotals t = ComputeReportTotals(r);
  json malformed = json::array(), partial = json::array(), incomplete = json::array(),
       corruption = json::array(), dead = json::array(), low_live = json::array();
  for (const ContainerInfo& c : r.containers) {
    if (c.incomplete) {
      incomplete.push_back(json{{"container", c.path}, {"reason", c.incomplete_reason}});
      continue;
    }
    for (const MalformedRecord& m : c.malformed) {
      malformed.push_back(json{{"container", c.path},
                               {"file", c.metadata_path},
                               {"offset", m.record_offset},
                               {"block_id", BlockId(m.block_id).ToString()},
                               {"reason", m.reason}});
    }
    if (c.partial_record()) {
      partial.push_back(json{{"container", c.path},
                             {"file", c.metadata_path},
                             {"offset", c.partial_record_offset()},
                             {"message", c.outcome.status.ToString()}});
    }
    for (const ContainerProblem& p : c.problems) {
      corruption.push_back(json{{"container", c.path},
                                {"file", p.file},
                                {"offset", p.offset},
                                {"kind", ContainerProblemKindName(p.kind)},
                                {"message", p.status.ToString()}});
    }
    if (c.dead) dead.push_back(json{{"container", c.path}});
    if (c.low_live) {
      low_live.push_back(json{{"container", c.path},
                              {"live_blocks", c.live_blocks},
                              {"total_blocks", c.total_blocks}});
    }
  }
  json leftovers = json::array();
  for (const std::string& f : r.leftover_tmp_files) leftovers.push_back(f);

  json j = {
      {"ok", FsReportStatus(r) == "OK"},
      {"status", FsReportStatus(r)},
      {"wal_dir", RootOr(roots.wal_dir, r)},
      {"metadata_dir", RootOr(roots.metadata_dir, r)},
      {"data_dirs", r.data_dirs},
      {"encrypted", r.encrypted},
      {"containers", t.containers},
      {"full_containers", t.full_containers},
      {"dead_containers", t.dead_containers},
      {"low_live_containers", t.low_live_containers},
      {"live_blocks", t.live_blocks},
      {"live_bytes", t.live_bytes},
      {"live_bytes_aligned", t.live_bytes_aligned},
      {"max_block_id", r.has_max_block_id ? r.max_block_id : 0},
      {"next_block_id", r.next_block_id},
      {"malformed_records", t.malformed_records},
      {"partial_records", t.partial_records},
      {"incomplete_containers", t.incomplete_containers},
      {"corrupt_containers", t.corrupt_containers},
      {"duplicate_block_ids", t.duplicate_block_ids},
      {"leftover_tmp_files", r.leftover_tmp_files.size()},
      {"entries",
       {{"malformed_records", malformed},
        {"partial_records", partial},
        {"incomplete_containers", incomplete},
        {"corruption", corruption},
        {"dead_containers", dead},
        {"low_live_containers", low_live},
        {"leftover_tmp_files", leftovers}}},
      {"replay", ReplayJson(r.replay)},
      {"timing",
       {{"wall_s", r.timing.wall_s}, {"user_s", r.timing.user_s}, {"sys_s", r.timing.sys_s}}},
  };
  if (r.repaired) j["repairs"] = RepairsJson(r.repairs);
  AddPreparedDirsJson(r, &j);
  return j;
}

std::string FsReportText(const OpenResult& r, const FsReportRoots& roots) {
  const FsReportTotals t = ComputeReportTotals(r);
  const bool rep = r.repaired;
  const RepairSummary& s = r.repairs;
  auto repaired = [&](uint64_t n) {
    return rep ? " (" + std::to_string(n) + " repaired)" : std::string();
  };
  std::ostringstream o;
  o << "FS layout report\n";
  o << "----------------\n";
  o << "wal directory: " << RootOr(roots.wal_dir, r) << "\n";
  o << "metadata directory: " << RootOr(roots.metadata_dir, r) << "\n";
  o << r.data_dirs.size() << " data directories:";
  for (size_t i = 0; i < r.data_dirs.size(); i++) o << (i ? ", " : " ") << r.data_dirs[i];
  o << "\n";
  o << "Encrypted: " << (r.encrypted ? "yes" : "no") << "\n";
  o << "Total live blocks: " << t.live_blocks << "\n";
  o << "Total live bytes: " << t.live_bytes << "\n";
  o << "Total live bytes (after alignment): " << t.live_bytes_aligned << "\n";
  o << "Total number of LBM containers: " << t.containers << " (" << t.full_containers
    << " full)\n";
  o << "Maximum block id: " << (r.has_max_block_id ? BlockId(r.max_block_id).ToString() : "none")
    << " (next block id " << BlockId(r.next_block_id).ToString() << ")\n";
  o << "Total dead full LBM containers: " << t.dead_containers << repaired(s.dead_containers_deleted)
    << "\n";
  o << "Total full LBM containers with few live blocks: " << t.low_live_containers
    << repaired(s.low_live_metadata_rewritten) << "\n";
  o << "Total malformed LBM records: " << t.malformed_records << "\n";
  o << "Total LBM partial records: " << t.partial_records << repaired(s.partial_records_truncated)
    << "\n";
  o << "Total incomplete LBM containers: " << t.incomplete_containers
    << repaired(s.incomplete_containers_deleted) << "\n";
  o << "Total corrupted LBM containers: " << t.corrupt_containers << " (" << t.fatal_problems
    << " fatal problems, " << t.duplicate_block_ids << " duplicate block ids)\n";
  if (!r.leftover_tmp_files.empty() || rep) {
    o << "Leftover metadata temp files: " << r.leftover_tmp_files.size()
      << repaired(s.leftover_tmp_files_deleted) << "\n";
  }

  // Details, in the same order as the JSON entries.
  for (const ContainerInfo& c : r.containers) {
    if (c.incomplete) {
      o << "Incomplete container " << c.path << ": " << c.incomplete_reason << "\n";
      continue;
    }
    for (const MalformedRecord& m : c.malformed) {
      o << "Malformed record in " << c.metadata_path << " at offset " << m.record_offset
        << " (block " << BlockId(m.block_id).ToString() << "): " << m.reason << "\n";
    }
    if (c.partial_record()) {
      o << "Partial record in " << c.metadata_path << " at offset " << c.partial_record_offset()
        << "\n";
    }
    for (const ContainerProblem& p : c.problems) {
      o << "Fatal: " << p.status.ToString() << "\n";
    }
  }

  o << PreparedDirsText(r);

  const ReplayStatsSnapshot& st = r.replay;
  auto by = [&](ReplayStrategyKind k) { return st.containers_by_strategy[static_cast<int>(k)]; };
  o << "\nMetadata replay\n";
  o << "---------------\n";
  o << "Containers by strategy: streaming " << by(ReplayStrategyKind::kStreaming)
    << ", inmemory " << by(ReplayStrategyKind::kInMemory) << ", encrypted_inmemory "
    << by(ReplayStrategyKind::kEncryptedInMemory) << ", windowed "
    << by(ReplayStrategyKind::kWindowed) << "\n";
  o << "Fallbacks to streaming: " << st.fallbacks << "\n";
  o << "Metadata read syscalls: " << st.metadata_read_syscalls << " (" << st.metadata_bytes_read
    << " bytes)\n";
  o << "Peak replay buffer bytes: " << st.peak_buffer_bytes << " of a " << st.memory_budget_bytes
    << "-byte budget\n";
  char timing[160];
  std::snprintf(timing, sizeof(timing), "Open time: wall %.3fs, user %.3fs, sys %.3fs\n",
                r.timing.wall_s, r.timing.user_s, r.timing.sys_s);
  o << timing;
  if (rep) {
    o << "Repair: " << (s.status.ok() ? std::string("OK") : s.status.ToString()) << " ("
      << s.containers_skipped << " containers with fatal problems left alone)\n";
  }
  o << "\nStatus: " << FsReportStatus(r) << "\n";
  return o.str();
}

}  // namespace fs
}  // namespace kudu
