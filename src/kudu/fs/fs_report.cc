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
#include <cstdio>
#include <sstream>
#include <utility>
#include <vector>

#include "kudu/fs/block_id.h"
#include "kudu/fs/container_listing.h"

namespace kudu {
namespace fs {

using nlohmann::json;

namespace {

// Every entry of the report, each list in report order. The one place that
// says which container goes in which list: incomplete ones in no other;
// corrupt ones (§4.1) only in `corrupt`, but their malformed records are
// still listed.
struct ReportEntries {
  std::vector<const ContainerInfo*> counted;  // opened, neither incomplete nor corrupt
  std::vector<std::pair<const ContainerInfo*, const MalformedRecord*>> malformed;
  std::vector<std::pair<const ContainerInfo*, const LiveBlock*>> misaligned;
  std::vector<const ContainerInfo*> partial, incomplete, extra_space, dead, low_live, corrupt;
  // Every container whose id Kudu would not make, whatever else it is.
  std::vector<const ContainerInfo*> nonstandard_names;
};

ReportEntries CollectEntries(const OpenResult& r) {
  std::vector<const ContainerInfo*> order;
  order.reserve(r.containers.size());
  for (const ContainerInfo& c : r.containers) order.push_back(&c);
  std::stable_sort(order.begin(), order.end(), [](const ContainerInfo* a, const ContainerInfo* b) {
    return a->dir_index != b->dir_index ? a->dir_index < b->dir_index : a->id < b->id;
  });
  ReportEntries e;
  for (const ContainerInfo* c : order) {
    if (!IsStandardContainerId(c->id)) e.nonstandard_names.push_back(c);
    if (c->incomplete) {
      e.incomplete.push_back(c);
      continue;
    }
    for (const MalformedRecord& m : c->malformed) e.malformed.push_back({c, &m});
    if (c->fatal()) {
      e.corrupt.push_back(c);
      continue;
    }
    e.counted.push_back(c);
    for (const LiveBlock& b : c->misaligned_blocks) e.misaligned.push_back({c, &b});
    if (c->partial_record()) e.partial.push_back(c);
    if (c->extra_space) e.extra_space.push_back(c);
    if (c->dead) e.dead.push_back(c);
    if (c->low_live) e.low_live.push_back(c);
  }
  return e;
}

template <class Entries, class Flag>
uint64_t CountRepaired(const Entries& entries, Flag repaired) {
  uint64_t n = 0;
  for (const auto& entry : entries) n += repaired(entry) ? 1 : 0;
  return n;
}

FsReportTotals TotalsOf(const OpenResult& r, const ReportEntries& e) {
  FsReportTotals t;
  t.containers = e.counted.size();
  for (const ContainerInfo* c : e.counted) {
    if (c->full) t.full_containers++;
    t.live_blocks += c->live_blocks;
    t.live_bytes += c->live_bytes;
    t.live_bytes_aligned += c->live_bytes_aligned;
  }
  t.dead_containers = e.dead.size();
  t.low_live_containers = e.low_live.size();
  t.malformed_records = e.malformed.size();
  t.misaligned_blocks = e.misaligned.size();
  t.partial_records = e.partial.size();
  t.incomplete_containers = e.incomplete.size();
  t.full_container_extra_space = e.extra_space.size();
  for (const ContainerInfo* c : e.extra_space) {
    t.full_container_extra_space_bytes += c->excess_bytes;
    if (c->repaired_extra_space) t.repaired.full_container_extra_space_bytes += c->excess_bytes;
  }
  t.corrupt_containers = e.corrupt.size();
  t.corruption_entries = r.dir_problems.size();
  for (const ContainerInfo* c : e.corrupt) t.corruption_entries += c->problems.size();
  t.leftover_tmp_files = r.leftover_tmp_files.size();

  FsReportTotals::Repaired& rep = t.repaired;
  rep.full_container_extra_space =
      CountRepaired(e.extra_space, [](const ContainerInfo* c) { return c->repaired_extra_space; });
  rep.incomplete_containers =
      CountRepaired(e.incomplete, [](const ContainerInfo* c) { return c->repaired_incomplete; });
  rep.partial_records =
      CountRepaired(e.partial, [](const ContainerInfo* c) { return c->repaired_partial_record; });
  rep.dead_containers =
      CountRepaired(e.dead, [](const ContainerInfo* c) { return c->repaired_dead; });
  rep.compacted_containers =
      CountRepaired(e.low_live, [](const ContainerInfo* c) { return c->repaired_compaction; });
  for (const ContainerInfo* c : e.counted) rep.punched_blocks += c->punched_blocks;
  if (r.repaired) {
    // The repair's own totals where it has not flagged each entry it did.
    const RepairSummary& s = r.repairs;
    rep.incomplete_containers = std::max(rep.incomplete_containers, s.incomplete_containers_deleted);
    rep.partial_records = std::max(rep.partial_records, s.partial_records_truncated);
    rep.dead_containers = std::max(rep.dead_containers, s.dead_containers_deleted);
    rep.compacted_containers = std::max(rep.compacted_containers, s.low_live_metadata_rewritten);
    rep.leftover_tmp_files = s.leftover_tmp_files_deleted;
  }
  return t;
}

// The WAL and metadata roots as the directory flags resolved them; left
// empty, the first data root stands in (tool contract).
std::string RootOr(const std::string& root, const OpenResult& r) {
  if (!root.empty()) return root;
  return r.data_dirs.empty() ? std::string() : r.data_dirs[0];
}

std::vector<std::string> DataDirPaths(const OpenResult& r) {
  std::vector<std::string> out;
  for (const std::string& root : r.data_dirs) out.push_back(root + "/data");
  return out;
}

// No next id once the highest one is 2^64 - 1 (§4.2).
bool BlockIdSpaceExhausted(const OpenResult& r) {
  return r.has_max_block_id && r.max_block_id == UINT64_MAX;
}

// Problems without a byte to point at (a missing file) have a null offset.
json ProblemOffset(const ContainerProblem& p) {
  if (p.whole_file || p.kind == ContainerProblem::Kind::kMissingData ||
      p.kind == ContainerProblem::Kind::kMissingMetadata ||
      p.kind == ContainerProblem::Kind::kNotRegularFile) {
    return nullptr;
  }
  return p.offset;
}

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
              {"replay_threads_held_back", s.replay_threads_held_back},
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

json RepairedJson(const FsReportTotals::Repaired& rep) {
  return json{{"full_container_extra_space", rep.full_container_extra_space},
              {"full_container_extra_space_bytes", rep.full_container_extra_space_bytes},
              {"incomplete_containers", rep.incomplete_containers},
              {"partial_records", rep.partial_records},
              {"dead_containers", rep.dead_containers},
              {"compacted_containers", rep.compacted_containers},
              {"leftover_tmp_files", rep.leftover_tmp_files},
              {"punched_blocks", rep.punched_blocks}};
}

// Every repair step that failed (the repair stops at the first), the
// deletion of temporary files included.
json RepairErrorsJson(const OpenResult& r) {
  json errors = json::array();
  if (!r.repaired) return errors;
  for (const RepairError& e : r.repairs.errors) {
    errors.push_back(json{{"path", e.path}, {"step", e.step}, {"message", e.status.ToString()}});
  }
  return errors;
}

json EntriesJson(const OpenResult& r, const ReportEntries& e) {
  json malformed = json::array(), misaligned = json::array(), partial = json::array(),
       incomplete = json::array(), extra = json::array(), dead = json::array(),
       low_live = json::array(), corruption = json::array(), leftovers = json::array(),
       nonstandard = json::array();
  for (const auto& m : e.malformed) {
    malformed.push_back(json{{"container", m.first->path},
                             {"file", m.first->metadata_path},
                             {"offset", m.second->record_offset},
                             {"block_id", BlockId(m.second->block_id).ToString()},
                             {"reason", m.second->reason},
                             {"record", m.second->text}});
  }
  for (const auto& b : e.misaligned) {
    misaligned.push_back(json{{"container", b.first->path},
                              {"block_id", BlockId(b.second->id).ToString()},
                              {"offset", b.second->loc.offset},
                              {"length", b.second->loc.length}});
  }
  for (const ContainerInfo* c : e.partial) {
    partial.push_back(json{{"container", c->path},
                           {"file", c->metadata_path},
                           {"offset", c->partial_record_offset()},
                           {"message", c->outcome.status.ToString()},
                           {"repaired", c->repaired_partial_record}});
  }
  for (const ContainerInfo* c : e.incomplete) {
    incomplete.push_back(json{{"container", c->path},
                              {"reason", c->incomplete_reason},
                              {"repaired", c->repaired_incomplete}});
  }
  for (const ContainerInfo* c : e.extra_space) {
    extra.push_back(json{{"container", c->path},
                         {"excess_bytes", c->excess_bytes},
                         {"repaired", c->repaired_extra_space}});
  }
  for (const ContainerInfo* c : e.dead) {
    dead.push_back(json{{"container", c->path}, {"repaired", c->repaired_dead}});
  }
  for (const ContainerInfo* c : e.low_live) {
    low_live.push_back(json{{"container", c->path},
                            {"rule", c->compaction_rule},
                            {"live_blocks", c->live_blocks},
                            {"total_blocks", c->total_blocks},
                            {"repaired", c->repaired_compaction}});
  }
  for (const DataDirProblem& d : r.dir_problems) {
    corruption.push_back(json{{"path", d.path},
                              {"offset", nullptr},
                              {"kind", "unlisted_data_dir"},
                              {"message", d.status.ToString()}});
  }
  for (const ContainerInfo* c : e.corrupt) {
    for (const ContainerProblem& p : c->problems) {
      corruption.push_back(json{{"container", c->path},
                                {"file", p.file},
                                {"offset", ProblemOffset(p)},
                                {"kind", ContainerProblemKindName(p.kind)},
                                {"message", p.status.ToString()}});
    }
  }
  for (const std::string& f : r.leftover_tmp_files) leftovers.push_back(f);
  for (const ContainerInfo* c : e.nonstandard_names) nonstandard.push_back(c->path);
  return json{{"malformed_records", malformed},
              {"misaligned_blocks", misaligned},
              {"partial_records", partial},
              {"incomplete_containers", incomplete},
              {"full_container_extra_space", extra},
              {"dead_containers", dead},
              {"low_live_containers", low_live},
              {"leftover_tmp_files", leftovers},
              {"unexpected_files", json::array()},
              {"nonstandard_container_names", nonstandard},
              {"unlocked_dirs", json::array()},
              {"corruption", corruption},
              {"repair_errors", RepairErrorsJson(r)}};
}

std::string RepairedSuffix(uint64_t n) { return " (" + std::to_string(n) + " repaired)"; }

// Kudu's FsReport::ToString, line for line (tool contract, "Text report").
void KuduLayoutText(const OpenResult& r, const FsReportRoots& roots, const ReportEntries& e,
                    const FsReportTotals& t, std::ostringstream& o) {
  const std::vector<std::string> dirs = DataDirPaths(r);
  o << "FS layout report\n";
  o << "--------------------\n";
  o << "wal directory: " << RootOr(roots.wal_dir, r) << "\n";
  o << "metadata directory: " << RootOr(roots.metadata_dir, r) << "\n";
  o << dirs.size() << " data directories: ";
  for (size_t i = 0; i < dirs.size(); i++) o << (i ? ", " : "") << dirs[i];
  o << "\n";
  o << "Total live blocks: " << t.live_blocks << "\n";
  o << "Total live bytes: " << t.live_bytes << "\n";
  o << "Total live bytes (after alignment): " << t.live_bytes_aligned << "\n";
  o << "Total number of LBM containers: " << t.containers << " (" << t.full_containers
    << " full)\n";
  o << "Did not check for missing blocks\n";
  o << "Did not check for orphaned blocks\n";
  o << "Total full LBM containers with extra space: " << t.full_container_extra_space
    << RepairedSuffix(t.repaired.full_container_extra_space) << "\n";
  o << "Total full LBM container extra space in bytes: " << t.full_container_extra_space_bytes
    << RepairedSuffix(t.repaired.full_container_extra_space_bytes) << "\n";
  o << "Total incomplete LBM containers: " << t.incomplete_containers
    << RepairedSuffix(t.repaired.incomplete_containers) << "\n";
  for (const auto& m : e.malformed) {
    o << "Fatal error: malformed record in container " << m.first->path << ": " << m.second->text
      << "\n";
  }
  for (const auto& b : e.misaligned) {
    o << "Misaligned block in container " << b.first->path << ": "
      << BlockId(b.second->id).ToString() << "\n";
  }
  o << "Total LBM partial records: " << t.partial_records
    << RepairedSuffix(t.repaired.partial_records) << "\n";
  o << "Total corrupted LBM metadata records in RocksDB: 0 (0 repaired)\n";
}

// What the open found before any replay (prepare_data_dirs.h): locks it
// could not take, and entries with the temporary-file infix that are not
// regular files.
void AddPreparedDirsJson(const OpenResult& r, json* j) {
  json unexpected = json::array(), unlocked = json::array();
  if (r.prepared != nullptr) {
    for (const std::string& f : r.prepared->temp_files.unexpected) unexpected.push_back(f);
    for (const UnlockedDir& u : r.prepared->unlocked_dirs) {
      unlocked.push_back(json{{"dir", u.dir}, {"message", u.message}});
    }
  }
  (*j)["unexpected_files"] = unexpected.size();
  (*j)["unlocked_dirs"] = unlocked.size();
  json& entries = (*j)["entries"];
  entries["unexpected_files"] = unexpected;
  entries["unlocked_dirs"] = unlocked;
  (*j)["repair_errors"] = entries["repair_errors"].size();
}

// One line per temporary file, with the warning for a kept only copy (§1).
std::string TemporaryFilesText(const OpenResult& r) {
  std::ostringstream o;
  const std::vector<std::string> none;
  const std::vector<std::string>& only_copies =
      r.prepared != nullptr ? r.prepared->temp_files.only_copies : none;
  for (const std::string& f : r.leftover_tmp_files) {
    o << "  " << f;
    if (r.repaired && std::find(only_copies.begin(), only_copies.end(), f) != only_copies.end()) {
      o << " (kept: its container's .metadata file does not exist, so it may be the only copy "
           "of that container's records; a Kudu server starting on this dir, in any mode, "
           "deletes it)";
    }
    o << "\n";
  }
  return o.str();
}

std::string PreparedDirsText(const OpenResult& r, const ReportEntries& e) {
  if (r.prepared == nullptr) return "";
  const TemporaryFiles& t = r.prepared->temp_files;
  std::ostringstream o;
  for (const std::string& f : t.unexpected) o << "Unexpected file " << f << "\n";
  for (const ContainerInfo* c : e.nonstandard_names) {
    o << "Container name not 32 lowercase hex: " << c->path << "\n";
  }
  for (const UnlockedDir& u : r.prepared->unlocked_dirs) {
    o << "Unlocked dir " << u.dir << ": " << u.message << "\n";
  }
  return o.str();
}

// The project's sections: what Kudu's report does not show.
void ProjectText(const OpenResult& r, const ReportEntries& e, const FsReportTotals& t,
                 std::ostringstream& o) {
  o << "Encrypted: " << (r.encrypted ? "yes" : "no") << "\n";
  o << "Next block id: ";
  if (BlockIdSpaceExhausted(r)) {
    o << "none (block id space exhausted)";
  } else {
    o << BlockId(r.next_block_id).ToString();
  }
  o << " (highest block id "
    << (r.has_max_block_id ? BlockId(r.max_block_id).ToString() : std::string("none")) << ")\n";
  o << "Total dead full LBM containers: " << t.dead_containers
    << RepairedSuffix(t.repaired.dead_containers) << "\n";
  for (const ContainerInfo* c : e.dead) o << "  Dead container " << c->path << "\n";
  o << "Total LBM containers to compact: " << t.low_live_containers
    << RepairedSuffix(t.repaired.compacted_containers) << "\n";
  for (const ContainerInfo* c : e.low_live) {
    o << "  Compaction candidate " << c->path << " (" << c->compaction_rule << " rule): "
      << c->live_blocks << " of " << c->total_blocks << " blocks live\n";
  }
  for (const ContainerInfo* c : e.extra_space) {
    o << "  Extra space in container " << c->path << ": " << c->excess_bytes << " bytes\n";
  }
  for (const ContainerInfo* c : e.partial) {
    o << "  Partial record in " << c->metadata_path << " at offset "
      << c->partial_record_offset() << "\n";
  }
  for (const ContainerInfo* c : e.incomplete) {
    o << "  Incomplete container " << c->path << ": " << c->incomplete_reason << "\n";
  }
  o << "Total corrupt LBM containers: " << t.corrupt_containers << " (" << t.corruption_entries
    << " problems)\n";
  for (const DataDirProblem& d : r.dir_problems) {
    o << "  Data dir " << d.path << " not listed: " << d.status.ToString() << "\n";
  }
  for (const ContainerInfo* c : e.corrupt) {
    for (const ContainerProblem& p : c->problems) {
      o << "  Corruption in container " << c->path << ": " << p.status.ToString() << "\n";
    }
  }
  o << "Leftover temporary files: " << t.leftover_tmp_files
    << RepairedSuffix(t.repaired.leftover_tmp_files) << "\n";
  o << TemporaryFilesText(r);
  o << PreparedDirsText(r, e);
  if (r.repaired) {
    for (const RepairError& err : r.repairs.errors) {
      o << "Repair error (" << err.step << ") " << err.path << ": " << err.status.ToString()
        << "\n";
    }
  }

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
  if (r.repaired) {
    const RepairSummary& s = r.repairs;
    o << "Repair: " << (s.status.ok() ? std::string("OK") : s.status.ToString()) << " ("
      << s.containers_skipped << " containers with fatal problems left alone)\n";
  }
}

}  // namespace

FsReportTotals ComputeReportTotals(const OpenResult& r) {
  return TotalsOf(r, CollectEntries(r));
}

bool FsReportOk(const OpenResult& r) {
  return r.ok() && (!r.repaired || r.repairs.status.ok());
}

std::string FsReportStatus(const OpenResult& r) {
  if (!r.ok()) return r.status.ToString();
  // With no fatal problem, the first repair error's message, as the
  // repair_errors entry gives it.
  if (r.repaired && !r.repairs.errors.empty()) return r.repairs.errors.front().status.ToString();
  if (r.repaired && !r.repairs.status.ok()) return r.repairs.status.ToString();
  return "OK";
}

json FsReportJson(const OpenResult& r, const FsReportRoots& roots) {
  const ReportEntries e = CollectEntries(r);
  const FsReportTotals t = TotalsOf(r, e);
  json j = {
      {"ok", FsReportOk(r)},
      {"status", FsReportStatus(r)},
      {"wal_dir", RootOr(roots.wal_dir, r)},
      {"metadata_dir", RootOr(roots.metadata_dir, r)},
      {"data_dirs", DataDirPaths(r)},
      {"encrypted", r.encrypted},
      {"containers", t.containers},
      {"full_containers", t.full_containers},
      {"dead_containers", t.dead_containers},
      {"low_live_containers", t.low_live_containers},
      {"live_blocks", t.live_blocks},
      {"live_bytes", t.live_bytes},
      {"live_bytes_aligned", t.live_bytes_aligned},
      {"max_block_id", r.has_max_block_id ? r.max_block_id : 0},
      {"next_block_id", BlockIdSpaceExhausted(r) ? json(nullptr) : json(r.next_block_id)},
      {"malformed_records", t.malformed_records},
      {"misaligned_blocks", t.misaligned_blocks},
      {"partial_records", t.partial_records},
      {"incomplete_containers", t.incomplete_containers},
      {"full_container_extra_space", t.full_container_extra_space},
      {"full_container_extra_space_bytes", t.full_container_extra_space_bytes},
      {"corrupt_containers", t.corrupt_containers},
      {"leftover_tmp_files", t.leftover_tmp_files},
      {"unexpected_files", 0},
      {"nonstandard_container_names", e.nonstandard_names.size()},
      {"unlocked_dirs", 0},
      {"repair_errors", 0},
      {"repaired", RepairedJson(t.repaired)},
      {"entries", EntriesJson(r, e)},
      {"replay", ReplayJson(r.replay)},
      {"timing",
       {{"wall_s", r.timing.wall_s}, {"user_s", r.timing.user_s}, {"sys_s", r.timing.sys_s}}},
  };
  if (r.repaired) j["repairs"] = RepairsJson(r.repairs);
  AddPreparedDirsJson(r, &j);
  return j;
}

std::string FsReportText(const OpenResult& r, const FsReportRoots& roots) {
  const ReportEntries e = CollectEntries(r);
  const FsReportTotals t = TotalsOf(r, e);
  std::ostringstream o;
  KuduLayoutText(r, roots, e, t, o);
  o << "\n";
  ProjectText(r, e, t, o);
  o << "\nStatus: " << FsReportStatus(r) << "\n";
  return o.str();
}

}  // namespace fs
}  // namespace kudu
