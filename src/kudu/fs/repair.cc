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

#include "kudu/fs/repair.h"

#include <glog/logging.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "kudu/fs/compaction.h"
#include "kudu/fs/container_writer.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_container_writer.h"

namespace kudu {
namespace fs {

namespace {

// A file already gone is what a deletion wants (a crash may have removed it).
Status DeleteIfPresent(const std::string& path) {
  Status s = env::DeleteFile(path);
  return s.IsNotFound() ? Status::OK() : s;
}

struct PunchPlan {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  uint64_t dead_blocks = 0;
};

class Repairer {
 public:
  Repairer(const RepairInput& in, RepairSummary* sum) : in_(in), sum_(sum) {}

  Status Run();

 private:
  // One failed step: recorded, and nothing runs after it.
  Status Fail(const std::string& path, const char* step, const Status& s) {
    sum_->errors.push_back(RepairError{path, step, s});
    // Most errors name their file already: then it is not said twice.
    const bool named = s.message().compare(0, path.size() + 2, path + ": ") == 0;
    sum_->status = s.CloneAndPrepend(std::string("repair step ") + step + " failed" +
                                     (named ? "" : " on " + path));
    // What the dirs hold now is what was done before the failure.
    LOG(ERROR) << sum_->status.ToString() << "; nothing after it ran. Done before it: "
               << sum_->leftover_tmp_files_deleted << " temporary files deleted, "
               << sum_->dead_containers_deleted << " dead containers deleted, "
               << sum_->extra_space_repaired << " data files cut to their next block offset, "
               << sum_->partial_records_truncated << " partial records truncated, "
               << sum_->incomplete_containers_deleted << " incomplete containers deleted, "
               << sum_->low_live_metadata_rewritten << " metadata files compacted, "
               << sum_->punched_blocks << " dead blocks punched";
    return sum_->status;
  }
  Status RepairDir(const std::vector<size_t>& members);
  // Steps 1-6 for one dir; `*dirty` when one changed the dir's entries.
  Status RunSteps(const std::vector<size_t>& members, bool* dirty);
  Status FindExtraSpace(const ContainerInfo& c, ContainerRepair* rep);
  Status DeleteDead(const ContainerInfo& c);
  // `step`: the repair step it is part of, named if it fails.
  Status TruncatePartialRecord(const ContainerInfo& c, const char* step);
  Status Compact(size_t index, bool* compacted);
  // What re-punching will punch, read before compaction drops the dead
  // blocks' records.
  Status FindPunchableRanges(const ContainerInfo& c, PunchPlan* plan);
  Status Repunch(const ContainerInfo& c, const PunchPlan& plan);
  Status Scan(const ContainerInfo& c, ContainerRecords* records);

  const RepairInput& in_;
  RepairSummary* sum_;
};

Status Repairer::Run() {
  if (in_.temporary_files != nullptr) {
    // Deleted by the open, before the replay: the first step of the repair.
    const TemporaryFiles& t = *in_.temporary_files;
    sum_->leftover_tmp_files_deleted = t.deleted.size();  // those done before any failure
    if (!t.failure.ok()) return Fail(t.failed_path, kTemporaryFilesStep, t.failure);
  }
  if (in_.containers == nullptr) return Status::OK();
  const ContainerInfos& cs = *in_.containers;
  sum_->containers.assign(cs.size(), ContainerRepair());

  // A server that will not start gains nothing from a partial repair; a
  // malformed record is the one fatal problem that only holds back its dir.
  bool fatal = in_.fatal_outside_containers;
  std::map<uint32_t, std::vector<size_t>> dirs;
  std::map<uint32_t, bool> malformed_dirs;
  for (size_t i = 0; i < cs.size(); i++) {
    if (cs[i].fatal() || !cs[i].malformed.empty()) sum_->containers_skipped++;
    if (cs[i].fatal()) fatal = true;
    if (!cs[i].malformed.empty()) malformed_dirs[cs[i].dir_index] = true;
    dirs[cs[i].dir_index].push_back(i);
  }
  if (fatal) {
    LOG(WARNING) << "Repair: nothing repaired, the open found a fatal problem";
    return Status::OK();
  }
  for (const auto& d : dirs) {
    if (malformed_dirs.count(d.first) != 0) {
      LOG(WARNING) << "Repair: data dir of " << cs[d.second.front()].path
                   << " holds a malformed record; nothing repaired in it";
      continue;
    }
    RETURN_NOT_OK(RepairDir(d.second));
  }
  return Status::OK();
}

// The open's verdict (container_classification.h decides it once).
Status Repairer::FindExtraSpace(const ContainerInfo& c, ContainerRepair* rep) {
  if (!c.extra_space || !c.has_data) return Status::OK();
  rep->has_extra_space = true;
  rep->excess_bytes = c.excess_bytes;
  return Status::OK();
}

Status Repairer::RepairDir(const std::vector<size_t>& members) {
  const std::string dir = env::DirName((*in_.containers)[members.front()].metadata_path);
  bool dirty = false;  // something in the dir was deleted, renamed or truncated
  Status s = RunSteps(members, &dirty);
  // 7. One dir fsync makes the deletes, truncations and renames durable,
  // those of the steps before a failed one too: the counts report them.
  if (dirty) {
    Status synced = env::SyncDir(dir);
    if (!synced.ok()) {
      if (s.ok()) return Fail(dir, kSyncStep, synced);
      LOG(WARNING) << "Repair: could not sync " << dir << " after a failed step: "
                   << synced.ToString();
    }
  }
  return s;
}

Status Repairer::RunSteps(const std::vector<size_t>& members, bool* dirty_out) {
  const ContainerInfos& cs = *in_.containers;
  std::vector<ContainerRepair>& reps = sum_->containers;
  bool& dirty = *dirty_out;

  std::map<size_t, PunchPlan> punch;
  for (size_t i : members) {
    Status s = FindExtraSpace(cs[i], &reps[i]);
    if (!s.ok()) return Fail(cs[i].data_path, kExtraSpaceStep, s);
    if (reps[i].has_extra_space && !cs[i].dead && cs[i].live_blocks > 0) {
      RETURN_NOT_OK(FindPunchableRanges(cs[i], &punch[i]));
    }
  }
  // 1. Dead containers.
  for (size_t i : members) {
    const ContainerInfo& c = cs[i];
    if (!c.dead || c.incomplete) continue;
    RETURN_NOT_OK(DeleteDead(c));
    dirty = true;
    reps[i].dead_deleted = true;
    sum_->dead_containers_deleted++;
    LOG(INFO) << "Repair: deleted dead full container " << c.path;
  }
  // 2. Extra space: the data file cut at the next block offset, which no
  // accepted CREATE ends after.
  for (size_t i : members) {
    const ContainerInfo& c = cs[i];
    ContainerRepair& rep = reps[i];
    if (!rep.has_extra_space) continue;
    // Full by metadata size alone leaves the data file as it is, and the
    // entry is repaired all the same: the truncation was not needed, and
    // step 6 punches the dead blocks' space (§7 step 2, as Kudu does).
    // A file that ends before the next block offset is cut at its own end
    // instead: the cut to the offset would grow it (a zero-length block may
    // stand far past the end, §4.2), to a size the filesystem may refuse.
    // Either cut frees space allocated past the end (a preallocation that
    // kept the file's size), as Kudu's does.
    if (!rep.dead_deleted && c.data_full) {
      const uint64_t cut = std::min(c.data_size, c.next_write_offset);
      Status s = env::TruncateFile(c.data_path, cut);
      if (!s.ok()) return Fail(c.data_path, kExtraSpaceStep, s);
      dirty = true;
      LOG(INFO) << "Repair: truncated " << c.data_path << " to " << cut
                << (cut == c.next_write_offset ? " (its next block offset)" : " (its own size)");
    }
    rep.extra_space_repaired = true;
    sum_->extra_space_repaired++;
    sum_->extra_space_bytes_repaired += rep.excess_bytes;
  }
  // 3. Partial trailing records.
  for (size_t i : members) {
    const ContainerInfo& c = cs[i];
    if (c.incomplete || !c.partial_record()) continue;
    if (!reps[i].dead_deleted) {
      RETURN_NOT_OK(TruncatePartialRecord(c, kPartialRecordsStep));
      dirty = true;
      LOG(INFO) << "Repair: truncated " << c.metadata_path << " at offset "
                << c.partial_record_offset() << " (partial trailing record)";
    }
    reps[i].partial_record_truncated = true;
    sum_->partial_records_truncated++;
  }
  // 4. Incomplete containers: either order of the unlinks is safe, and a
  // file already gone is fine.
  for (size_t i : members) {
    const ContainerInfo& c = cs[i];
    if (!c.incomplete) continue;
    if (c.has_metadata) {
      Status s = DeleteIfPresent(c.metadata_path);
      if (!s.ok()) return Fail(c.metadata_path, kIncompleteContainersStep, s);
    }
    if (c.has_data) {
      Status s = DeleteIfPresent(c.data_path);
      if (!s.ok()) return Fail(c.data_path, kIncompleteContainersStep, s);
    }
    dirty = true;
    reps[i].incomplete_deleted = true;
    sum_->incomplete_containers_deleted++;
    LOG(INFO) << "Repair: deleted incomplete container " << c.path;
  }
  // 5. Compaction.
  for (size_t i : members) {
    const ContainerInfo& c = cs[i];
    if (!c.low_live || c.dead || c.incomplete) continue;
    bool compacted = false;
    RETURN_NOT_OK(Compact(i, &compacted));
    if (!compacted) continue;
    dirty = true;
    reps[i].compacted = true;
    sum_->low_live_metadata_rewritten++;
  }
  // 6. Re-punching of what extra space the dead blocks of living
  // containers still hold.
  for (const auto& p : punch) {
    RETURN_NOT_OK(Repunch(cs[p.first], p.second));
    reps[p.first].punched_blocks = p.second.dead_blocks;
    sum_->punched_blocks += p.second.dead_blocks;
  }
  return Status::OK();
}

// Data first, then a dir fsync, then metadata: the metadata's unlink must
// not reach the disk before the data's, or block bytes would be left
// without metadata (fatal); metadata without data and without live blocks
// is an incomplete container. Only if it reads to a clean end, though
// (§4.1): a partial trailing record is cut off first, so that a crash
// between the two unlinks leaves an incomplete container, not a fatal one.
Status Repairer::DeleteDead(const ContainerInfo& c) {
  if (c.has_metadata && c.partial_record()) {
    RETURN_NOT_OK(TruncatePartialRecord(c, kDeadContainersStep));
  }
  if (c.has_data) {
    Status s = DeleteIfPresent(c.data_path);
    if (!s.ok()) return Fail(c.data_path, kDeadContainersStep, s);
    const std::string dir = env::DirName(c.data_path);
    s = env::SyncDir(dir);
    if (!s.ok()) return Fail(dir, kDeadContainersStep, s);
  }
  if (c.has_metadata) {
    Status s = DeleteIfPresent(c.metadata_path);
    if (!s.ok()) return Fail(c.metadata_path, kDeadContainersStep, s);
  }
  return Status::OK();
}

// Everything from the partial record's offset on was never acknowledged,
// unless a valid record follows it: then the bytes there are damage, and
// cutting them would destroy that record. The file is read again as the
// open's reference read it, and cut only where that still finds the
// partial record.
Status Repairer::TruncatePartialRecord(const ContainerInfo& c, const char* step) {
  const uint64_t at = c.partial_record_offset();
  bool confirmed = false;
  std::string instead;
  Status s = ConfirmPartialRecord(c.metadata_path, in_.server_key, at, &confirmed, &instead);
  if (s.ok() && !confirmed) {
    s = Status::Corruption(c.metadata_path + ": offset " + std::to_string(at),
                           "the file no longer ends in a partial record there (" + instead +
                               "); not truncating it");
  }
  if (s.ok()) {
    WriteEncryption enc;
    enc.server_key = in_.server_key;
    std::unique_ptr<WritableFile> f;
    s = WritableFile::Open(c.metadata_path, CreateMode::kOpenExisting, enc, &f);
    if (s.ok()) s = f->Truncate(at);
    if (s.ok()) s = f->Sync();
    if (s.ok()) s = f->Close();
  }
  return s.ok() ? s : Fail(c.metadata_path, step, s);
}

Status Repairer::Scan(const ContainerInfo& c, ContainerRecords* records) {
  ContainerRecordsParams p;
  p.metadata_path = c.metadata_path;
  p.server_key = in_.server_key;
  p.data_file_size = c.data_size;
  p.fs_block_size = c.fs_block_size;
  Status s = ScanContainerRecords(p, records);
  if (in_.stats != nullptr) {
    in_.stats->Add(in_.stats->metadata_read_syscalls, records->io.read_syscalls);
    in_.stats->Add(in_.stats->metadata_bytes_read, records->io.bytes_read);
  }
  return s;
}

// §7.1: re-read, write the compacted file to a temporary name with the old
// file's owner and mode, fsync, rename over the metadata file, fsync the dir.
// Whether the rescanned `records` hold the live set the open saw for
// container `index`: as many live blocks, each in the block map under this
// container at the same offset and length.
bool SameLiveSet(const ContainerRecords& records, const ContainerInfo& c, size_t index,
                 const BlockMap* map) {
  if (records.live_blocks != c.live_blocks) return false;
  if (map == nullptr) return true;
  for (const ScannedBlock& b : records.blocks) {
    if (!b.live) continue;
    BlockMapEntry e;
    if (!map->Find(b.id, &e) || e.container != index || e.offset != b.offset ||
        e.length != b.length) {
      return false;
    }
  }
  return true;
}

Status Repairer::Compact(size_t index, bool* compacted) {
  const ContainerInfo& c = (*in_.containers)[index];
  auto fail = [&](const std::string& path, const Status& s) {
    return Fail(path, kCompactionStep, s);
  };
  ContainerRecords records;
  Status s = Scan(c, &records);
  if (!s.ok()) return fail(c.metadata_path, s);
  if (!SameLiveSet(records, c, index, in_.block_map) ||
      records.next_write_offset != c.next_write_offset ||
      records.has_max_block_id != c.has_max_block_id || records.max_block_id != c.max_block_id) {
    // The file changed since the open: a rewrite from another view could
    // drop a block.
    return fail(c.metadata_path,
                Status::IllegalState(c.metadata_path + ": its live blocks (" +
                                     std::to_string(records.live_blocks) + " now, " +
                                     std::to_string(c.live_blocks) +
                                     " when opened), next block offset or highest id are "
                                     "no longer what the open saw; not compacting it"));
  }
  uint64_t dropped = 0;
  const std::vector<std::string> bodies =
      CompactedBodies(records, c.fs_block_size, in_.server_key != nullptr, &dropped);
  if (dropped == 0) return Status::OK();  // every dead block is one the new file must keep
  std::string framed;
  for (const std::string& b : bodies) {
    pb_container::AppendRecord(pb_container::kVersion2, Slice(b), &framed);
  }

  WriteEncryption enc;
  enc.server_key = in_.server_key;
  enc.algorithm = records.algorithm;  // a fresh file key of the old algorithm
  std::string tmp;
  std::unique_ptr<PbContainerWriter> w;
  for (int attempt = 0;; attempt++) {
    // mkstemp's way: a name that exists is drawn again.
    tmp = NewTempFilePath(c.metadata_path);
    s = LogBlockContainerWriter::CreateMetadataFile(tmp, CreateMode::kCreateNew, enc,
                                                    pb_container::kVersion2, /*sync=*/false, &w);
    if (s.ok() || s.posix_code() != EEXIST || attempt == kTempFileNameAttempts) break;
  }
  if (s.ok()) s = env::CopyOwnerAndMode(c.metadata_path, tmp);
  if (s.ok() && !framed.empty()) s = w->AppendFramed(Slice(framed));
  if (s.ok()) s = w->Sync();
  if (s.ok()) s = w->Close();
  if (s.ok()) s = env::RenameFile(tmp, c.metadata_path);
  if (!s.ok()) {
    // Best effort: a leftover is never read, and the next read-write open
    // (ours or Kudu's) deletes it, since the metadata file is still there.
    if (w != nullptr) env::DeleteFile(tmp);
    return fail(tmp, s);
  }
  const std::string dir = env::DirName(c.metadata_path);
  s = env::SyncDir(dir);
  if (!s.ok()) return fail(dir, s);
  *compacted = true;
  LOG(INFO) << "Repair: compacted " << c.metadata_path << " to its " << c.live_blocks
            << " live blocks of " << c.total_blocks << " (" << dropped << " dropped)";
  return Status::OK();
}

Status Repairer::FindPunchableRanges(const ContainerInfo& c, PunchPlan* plan) {
  ContainerRecords records;
  Status s = Scan(c, &records);
  if (!s.ok()) return Fail(c.metadata_path, kRepunchingStep, s);
  plan->ranges = PunchableRanges(records, c.fs_block_size,
                                 c.encrypted ? kEncryptionHeaderSize : 0, &plan->dead_blocks);
  return Status::OK();
}

Status Repairer::Repunch(const ContainerInfo& c, const PunchPlan& plan) {
  const auto& ranges = plan.ranges;
  if (ranges.empty()) return Status::OK();
  Status s;
  WriteEncryption enc;
  enc.server_key = in_.server_key;
  std::unique_ptr<WritableFile> f;
  s = WritableFile::Open(c.data_path, CreateMode::kOpenExisting, enc, &f);
  for (size_t i = 0; s.ok() && i < ranges.size(); i++) {
    s = f->PunchHole(ranges[i].first, ranges[i].second - ranges[i].first);
  }
  if (s.ok()) s = f->Sync();
  if (s.ok()) s = f->Close();
  if (!s.ok()) return Fail(c.data_path, kRepunchingStep, s);
  LOG(INFO) << "Repair: punched " << plan.dead_blocks << " dead blocks of " << c.data_path;
  return Status::OK();
}

}  // namespace

Status RepairContainers(const RepairInput& in, RepairSummary* summary) {
  *summary = RepairSummary();
  Repairer r(in, summary);
  return r.Run();
}

}  // namespace fs
}  // namespace kudu
