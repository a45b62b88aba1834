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

#include "kudu/fs/live_record_scan.h"

#include <algorithm>
#include <memory>

#include <absl/container/flat_hash_map.h>

#include "kudu/fs/block_record_parser.h"
#include "kudu/fs/container_replay_state.h"
#include "kudu/fs/fs.pb.h"
#include "kudu/fs/record_replay_loop.h"
#include "kudu/util/pb_container_reader.h"
#include "kudu/util/slice.h"

namespace kudu {
namespace fs {

Status ScanLiveRecords(const LiveRecordScanParams& params, LiveRecordScan* scan) {
  *scan = LiveRecordScan();
  std::unique_ptr<RandomAccessFile> file;
  RETURN_NOT_OK(RandomAccessFile::Open(params.metadata_path, params.server_key, &file));
  scan->encrypted = file->encrypted();
  if (file->cipher() != nullptr) scan->algorithm = file->cipher()->algorithm();

  ContainerReplayState state(params.data_file_size, file->encryption_header_size(),
                             params.fs_block_size);
  FileRecordSource source(file.get());
  // id → (record offset, body) of the record that made the block live.
  absl::flat_hash_map<uint64_t, LiveRecord> live;
  BlockRecordPB fallback;
  const ReplayOutcome outcome = ForEachBlockRecord(
      &source, &fallback,
      [&](const BlockRecord& record, uint64_t offset, Slice body) {
        const uint64_t id = record.block_id;
        const bool was_live = state.live_blocks().contains(id);
        state.OnRecord(record, offset);
        const bool is_live = state.live_blocks().contains(id);
        if (!was_live && is_live) {
          live[id] = LiveRecord{
              id, offset, std::string(reinterpret_cast<const char*>(body.data()), body.size())};
        } else if (was_live && !is_live) {
          live.erase(id);
        }
      },
      &scan->version);
  scan->io = file->stats();
  scan->outcome = outcome;
  if (!outcome.clean() && outcome.kind != ReplayOutcome::Kind::kPartialRecord) {
    return outcome.status;
  }

  scan->live.reserve(live.size());
  for (auto& kv : live) scan->live.push_back(std::move(kv.second));
  std::sort(scan->live.begin(), scan->live.end(),
            [](const LiveRecord& a, const LiveRecord& b) { return a.offset < b.offset; });
  return Status::OK();
}

}  // namespace fs
}  // namespace kudu
