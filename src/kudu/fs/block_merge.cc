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

#include "kudu/fs/block_merge.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "kudu/fs/block_id.h"
#include "kudu/fs/container_load.h"
#include "kudu/fs/final_merges.h"
#include "kudu/fs/live_record_scan.h"

namespace kudu {
namespace fs {

void ConflictLog::Record(std::vector<BlockMap::Rejected>* rejected) {
  if (rejected->empty()) return;
  std::lock_guard<std::mutex> l(mu_);
  for (const BlockMap::Rejected& r : *rejected) {
    conflicts_.push_back(Conflict{r.id, r.held_by, r.rejected_from});
  }
  rejected->clear();
}

void ThreadMerge::Queue(uint32_t index, LiveBlocks blocks) {
  if (containers_ != nullptr) {
    const ContainerInfo& c = (*containers_)[index];
    map_->NoteReplayed(EstimatedCreateRecords(c), blocks.size(), c.claimed_largest_first);
  }
  if (blocks.empty()) return;
  if (blocks.size() * sizeof(LiveBlock) >= BlockMap::kTakeOverBytes) {
    map_->InsertTakingOver(index, std::move(blocks), &rejected_);
    conflicts_->Record(&rejected_);
    return;
  }
  pending_.push_back(std::move(blocks));
  const LiveBlocks& b = pending_.back();
  items_.AddSorted(index, b.data(), b.size());
  if (items_.size() >= kFlushBlocks) Flush();
}

void ThreadMerge::Flush() {
  if (items_.size() > 0) map_->InsertBatch(&items_, &rejected_);
  pending_.clear();
  conflicts_->Record(&rejected_);
}

void ThreadMerge::Finish(FinalMerges* final_merges) {
  final_merges->Finish(&items_, &rejected_);
  pending_.clear();
  conflicts_->Record(&rejected_);
}

namespace {

using Holders = std::map<uint64_t, std::set<uint32_t>>;    // id → containers, both ordered
using Offsets = std::map<uint32_t, std::map<uint64_t, uint64_t>>;  // container → id → offset

// The record offset of each conflicting id in each container blamed for it
// (every holder but the first in report order): one rescan per container.
Offsets FindRecordOffsets(const Holders& holders, const ServerKey* key,
                          const ContainerInfos& containers, ReplayStats* stats) {
  Offsets offsets;
  for (const auto& h : holders) {
    for (auto it = std::next(h.second.begin()); it != h.second.end(); ++it) offsets[*it][h.first] = 0;
  }
  for (auto& o : offsets) {
    const ContainerInfo& c = containers[o.first];
    LiveRecordScanParams p;
    p.metadata_path = c.metadata_path;
    p.server_key = key;
    // The size its replay checked the records against: the rescan must
    // find the same records live.
    p.data_file_size = c.has_data ? std::max(c.data_size, c.records_data_size) : UINT64_MAX;
    p.fs_block_size = c.fs_block_size;
    LiveRecordScan scan;
    Status s = ScanLiveRecords(p, &scan);
    stats->Add(stats->metadata_read_syscalls, scan.io.read_syscalls);
    stats->Add(stats->metadata_bytes_read, scan.io.bytes_read);
    for (const LiveRecord& r : scan.live) {
      auto it = o.second.find(r.block_id);
      if (it != o.second.end()) it->second = r.offset;
    }
  }
  return offsets;
}

}  // namespace

void ReportDuplicates(const std::vector<Conflict>& conflicts, const ServerKey* key,
                      ContainerInfos* containers, ReplayStats* stats) {
  Holders holders;
  for (const Conflict& c : conflicts) {
    holders[c.id].insert(c.first);
    holders[c.id].insert(c.second);
  }
  // Container indices are in report order (data dir, then id): the first
  // holder keeps the id, every later one is corrupt with one entry per id
  // naming the first (§4.2), so the report grows with the copies, not with
  // their pairs.
  Offsets offsets = FindRecordOffsets(holders, key, *containers, stats);
  for (const auto& h : holders) {
    const std::string id = BlockId(h.first).ToString();
    const ContainerInfo& first = (*containers)[*h.second.begin()];
    for (auto it = std::next(h.second.begin()); it != h.second.end(); ++it) {
      ContainerInfo& c = (*containers)[*it];
      const uint64_t offset = offsets[*it][h.first];
      c.AddProblem(ContainerProblem::Kind::kDuplicateId, c.metadata_path, offset,
                   Status::Corruption(c.metadata_path + ": record at offset " +
                                      std::to_string(offset) + ": block " + id +
                                      " is already live in container " + first.path),
                   h.first);
    }
  }
}

}  // namespace fs
}  // namespace kudu
