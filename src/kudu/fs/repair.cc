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

#include <cerrno>
#include <memory>

#include "kudu/fs/container_writer.h"
#include "kudu/fs/live_record_scan.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_container_writer.h"

namespace kudu {
namespace fs {

namespace {

// Deletes a container's files, data first: a crash in between leaves a
// metadata file without data and without live blocks, which the next open
// sees as an incomplete container (the other order would leave block bytes
// without metadata, a fatal state).
Status DeleteContainerFiles(const ContainerInfo& c) {
  if (c.has_data) RETURN_NOT_OK_PREPEND(env::DeleteFile(c.data_path), "repair: delete");
  if (c.has_metadata) RETURN_NOT_OK_PREPEND(env::DeleteFile(c.metadata_path), "repair: delete");
  RETURN_NOT_OK_PREPEND(env::SyncDir(env::DirName(c.metadata_path)), "repair: sync dir");
  return Status::OK();
}

// Cuts a partial trailing record off: everything from its offset on was
// never acknowledged.
Status TruncatePartialRecord(const ContainerInfo& c, const ServerKey* key) {
  WriteEncryption enc;
  enc.server_key = key;
  std::unique_ptr<WritableFile> f;
  RETURN_NOT_OK_PREPEND(WritableFile::Open(c.metadata_path, CreateMode::kOpenExisting, enc, &f),
                        "repair: open for truncation");
  RETURN_NOT_OK_PREPEND(f->Truncate(c.partial_record_offset()), "repair: truncate");
  RETURN_NOT_OK_PREPEND(f->Sync(), "repair: sync");
  return f->Close();
}

// Writes the live CREATE records to a temp file, syncs it and renames it over
// the metadata file. Until the rename the original is untouched.
Status RewriteLowLiveMetadata(const ContainerInfo& c, const ServerKey* key, ReplayStats* stats) {
  LiveRecordScanParams p;
  p.metadata_path = c.metadata_path;
  p.server_key = key;
  p.data_file_size = c.data_size;
  p.fs_block_size = c.fs_block_size;
  LiveRecordScan scan;
  Status s = ScanLiveRecords(p, &scan);
  if (stats != nullptr) {
    stats->Add(stats->metadata_read_syscalls, scan.io.read_syscalls);
    stats->Add(stats->metadata_bytes_read, scan.io.bytes_read);
  }
  RETURN_NOT_OK_PREPEND(s, "repair: rescan before rewrite");
  if (scan.live.size() != c.live_blocks) {
    // The file changed since the open: rewriting from a different view
    // could drop a block.
    return Status::IllegalState(c.metadata_path + ": has " + std::to_string(scan.live.size()) +
                                " live blocks now but had " + std::to_string(c.live_blocks) +
                                " when opened; not rewriting it");
  }

  std::string tmp;
  WriteEncryption enc;
  enc.server_key = key;
  enc.algorithm = scan.algorithm;
  std::string framed;
  for (const LiveRecord& r : scan.live) {
    pb_container::AppendRecord(scan.version, Slice(r.body), &framed);
  }
  auto write_tmp = [&]() -> Status {
    std::unique_ptr<PbContainerWriter> w;
    // mkstemp's way: a name that exists is drawn again.
    for (int attempt = 0;; attempt++) {
      tmp = NewTempFilePath(c.metadata_path);
      Status c = LogBlockContainerWriter::CreateMetadataFile(tmp, CreateMode::kCreateNew, enc,
                                                             scan.version, /*sync=*/false, &w);
      if (c.ok()) break;
      if (c.posix_code() != EEXIST || attempt == kTempFileNameAttempts) return c;
    }
    if (!framed.empty()) RETURN_NOT_OK(w->AppendFramed(Slice(framed)));
    RETURN_NOT_OK(w->Sync());
    return w->Close();
  };
  s = write_tmp();
  if (s.ok()) s = env::RenameFile(tmp, c.metadata_path);
  if (!s.ok()) {
    // Best effort; a leftover is never read, and the next read-write open
    // (ours or Kudu's) deletes it.
    if (!tmp.empty()) env::DeleteFile(tmp);
    return s.CloneAndPrepend("repair: rewrite of " + c.metadata_path);
  }
  RETURN_NOT_OK_PREPEND(env::SyncDir(env::DirName(c.metadata_path)), "repair: sync dir");
  return Status::OK();
}

}  // namespace

Status RepairContainers(const RepairInput& in, RepairSummary* summary) {
  *summary = RepairSummary();
  auto fail = [&](Status s) {
    summary->status = s;
    return s;
  };
  if (in.temporary_files != nullptr) {
    // Deleted by the open, before the replay; the first step of the repair.
    const TemporaryFiles& t = *in.temporary_files;
    if (!t.failure.ok()) {
      return fail(t.failure.CloneAndPrepend("repair: delete temporary file " + t.failed_path));
    }
    summary->leftover_tmp_files_deleted = t.deleted.size();
  }
  if (in.containers == nullptr) return Status::OK();
  for (const ContainerInfo& c : *in.containers) {
    if (c.fatal()) {
      summary->containers_skipped++;
      continue;
    }
    if (c.incomplete) {
      Status s = DeleteContainerFiles(c);
      if (!s.ok()) return fail(s);
      summary->incomplete_containers_deleted++;
      LOG(INFO) << "Repair: deleted incomplete container " << c.path;
      continue;
    }
    if (c.dead) {
      Status s = DeleteContainerFiles(c);
      if (!s.ok()) return fail(s);
      summary->dead_containers_deleted++;
      LOG(INFO) << "Repair: deleted dead full container " << c.path;
      continue;
    }
    if (c.partial_record()) {
      Status s = TruncatePartialRecord(c, in.server_key);
      if (!s.ok()) return fail(s);
      summary->partial_records_truncated++;
      LOG(INFO) << "Repair: truncated " << c.metadata_path << " at offset "
                << c.partial_record_offset() << " (partial trailing record)";
    }
    if (c.low_live) {
      Status s = RewriteLowLiveMetadata(c, in.server_key, in.stats);
      if (!s.ok()) return fail(s);
      summary->low_live_metadata_rewritten++;
      LOG(INFO) << "Repair: rewrote " << c.metadata_path << " with its " << c.live_blocks
                << " live blocks of " << c.total_blocks;
    }
  }
  return Status::OK();
}

}  // namespace fs
}  // namespace kudu
