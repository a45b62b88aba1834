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
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <set>

#include "kudu/fs/container_writer.h"
#include "kudu/fs/live_record_scan.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_container_writer.h"

namespace kudu {
namespace fs {

namespace {

constexpr char kTmpInfix[] = ".metadata.tmp.";

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

  const std::string tmp = NewTempMetadataPath(c.metadata_path);
  WriteEncryption enc;
  enc.server_key = key;
  enc.algorithm = scan.algorithm;
  std::string framed;
  for (const LiveRecord& r : scan.live) {
    pb_container::AppendRecord(scan.version, Slice(r.body), &framed);
  }
  auto write_tmp = [&]() -> Status {
    std::unique_ptr<PbContainerWriter> w;
    RETURN_NOT_OK(LogBlockContainerWriter::CreateMetadataFile(tmp, CreateMode::kCreateNew, enc,
                                                              scan.version, /*sync=*/false, &w));
    if (!framed.empty()) RETURN_NOT_OK(w->AppendFramed(Slice(framed)));
    RETURN_NOT_OK(w->Sync());
    return w->Close();
  };
  s = write_tmp();
  if (s.ok()) s = env::RenameFile(tmp, c.metadata_path);
  if (!s.ok()) {
    // Best effort; a leftover is ignored by the open and deleted by the
    // next repair.
    env::DeleteFile(tmp);
    return s.CloneAndPrepend("repair: rewrite of " + c.metadata_path);
  }
  RETURN_NOT_OK_PREPEND(env::SyncDir(env::DirName(c.metadata_path)), "repair: sync dir");
  return Status::OK();
}

}  // namespace

std::string NewTempMetadataPath(const std::string& metadata_path) {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  static std::atomic<uint64_t> counter{0};
  std::mt19937_64 rng(static_cast<uint64_t>(
                          std::chrono::steady_clock::now().time_since_epoch().count()) ^
                      (static_cast<uint64_t>(getpid()) << 32) ^ counter.fetch_add(1));
  std::string suffix(6, 'x');
  for (char& ch : suffix) ch = kChars[rng() % (sizeof(kChars) - 1)];
  return metadata_path + ".tmp." + suffix;
}

bool IsTempMetadataName(const std::string& name, std::string* id) {
  const size_t pos = name.find(kTmpInfix);
  if (pos == std::string::npos) return false;
  *id = name.substr(0, pos);
  return LogBlockContainerWriter::IsValidId(*id) && name.size() > pos + sizeof(kTmpInfix) - 1;
}

Status RepairContainers(const RepairInput& in, RepairSummary* summary) {
  *summary = RepairSummary();
  auto fail = [&](Status s) {
    summary->status = s;
    return s;
  };
  if (in.leftover_tmp_files != nullptr) {
    for (const std::string& tmp : *in.leftover_tmp_files) {
      Status s = env::DeleteFile(tmp);
      if (!s.ok() && !s.IsNotFound()) return fail(s.CloneAndPrepend("repair: delete leftover"));
      summary->leftover_tmp_files_deleted++;
      LOG(INFO) << "Repair: deleted leftover " << tmp;
    }
    std::set<std::string> dirs;
    for (const std::string& tmp : *in.leftover_tmp_files) dirs.insert(env::DirName(tmp));
    for (const std::string& dir : dirs) {
      Status s = env::SyncDir(dir);
      if (!s.ok()) return fail(s.CloneAndPrepend("repair: sync dir"));
    }
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
