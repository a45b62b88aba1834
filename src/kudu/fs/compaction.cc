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

#include "kudu/fs/compaction.h"

#include <algorithm>
#include <memory>

#include <absl/container/flat_hash_map.h>

#include "kudu/fs/block_record_parser.h"
#include "kudu/fs/container_replay_state.h"
#include "kudu/fs/fs.pb.h"
#include "kudu/fs/record_replay_loop.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_container_reader.h"

namespace kudu {
namespace fs {

namespace {

uint64_t AlignUp(uint64_t v, uint64_t block) { return (v + block - 1) / block * block; }

uint64_t BlockEnd(const ScannedBlock& b) {
  return static_cast<uint64_t>(b.offset) + static_cast<uint64_t>(b.length);
}

// LogBlock::fs_aligned_length: a misaligned block's end is not known, so it
// is not rounded.
uint64_t AlignedEnd(const ScannedBlock& b, uint64_t block) {
  const uint64_t off = static_cast<uint64_t>(b.offset);
  if (off % block != 0) return BlockEnd(b);
  return off + AlignUp(static_cast<uint64_t>(b.length), block);
}

std::string Bytes(Slice s) {
  return std::string(reinterpret_cast<const char*>(s.data()), s.size());
}

}  // namespace

Status ScanContainerRecords(const ContainerRecordsParams& p, ContainerRecords* out) {
  *out = ContainerRecords();
  std::unique_ptr<RandomAccessFile> file;
  RETURN_NOT_OK(RandomAccessFile::Open(p.metadata_path, p.server_key, &file));
  if (file->cipher() != nullptr) out->algorithm = file->cipher()->algorithm();
  ContainerReplayState state(p.data_file_size, file->encryption_header_size(), p.fs_block_size);
  FileRecordSource source(file.get());
  PbContainerRecordReader<FileRecordSource> reader(&source);
  Status s = reader.ReadHeaders(BlockRecordTypeName());
  if (!s.ok()) {
    out->io = file->stats();
    return s;
  }
  out->version = reader.version();

  absl::flat_hash_map<uint64_t, size_t> live_index;  // id → index in out->blocks
  BlockRecordPB pb;
  BlockRecord record;
  Slice body;
  while (true) {
    s = reader.ReadNextRecord(&body);
    if (!s.ok()) break;
    if (!ParseBlockRecord(body, &pb, &record)) {
      s = Status::Corruption(p.metadata_path + ": record at offset " +
                                 std::to_string(reader.record_offset()),
                             "body does not parse as " + BlockRecordTypeName());
      break;
    }
    const uint64_t id = record.block_id;
    const uint64_t created_before = state.total_blocks();
    const bool was_live = state.live_blocks().contains(id);
    state.OnRecord(record, reader.record_offset());
    if (state.total_blocks() != created_before) {
      ScannedBlock b;
      b.id = id;
      b.offset = record.offset;
      b.length = record.length;
      b.create_offset = reader.record_offset();
      b.create_body = Bytes(body);
      // The fast parser does not keep the timestamp; the sort needs it.
      BlockRecordPB full;
      if (ParseBlockRecordWithProtobuf(body, &full)) b.timestamp_us = full.timestamp_us();
      live_index[id] = out->blocks.size();
      out->blocks.push_back(std::move(b));
    } else if (was_live && !state.live_blocks().contains(id)) {
      auto it = live_index.find(id);
      ScannedBlock& b = out->blocks[it->second];
      b.live = false;
      b.delete_body = Bytes(body);
      live_index.erase(it);
    }
  }
  out->io = file->stats();
  if (!s.IsEndOfFile() && !s.IsIncomplete()) return s;
  out->live_blocks = state.live_count();
  out->live_bytes = state.live_bytes();
  out->next_write_offset = state.next_write_offset();
  out->has_max_block_id = state.has_max_block_id();
  out->max_block_id = state.max_block_id();
  return Status::OK();
}

std::vector<std::string> CompactedBodies(const ContainerRecords& r, uint64_t fs_block_size,
                                         bool encrypted, uint64_t* dropped_blocks) {
  // How far the live blocks alone take the next block offset, and their
  // highest id.
  uint64_t live_end = encrypted ? AlignUp(kEncryptionHeaderSize, fs_block_size) : 0;
  bool has_live = false;
  uint64_t max_live_id = 0;
  for (const ScannedBlock& b : r.blocks) {
    if (!b.live) continue;
    live_end = std::max(live_end, AlignUp(BlockEnd(b), fs_block_size));
    max_live_id = has_live ? std::max(max_live_id, b.id) : b.id;
    has_live = true;
  }
  // The last CREATE in the file wins either choice.
  size_t keep_end = SIZE_MAX, keep_id = SIZE_MAX;
  for (size_t i = 0; i < r.blocks.size(); i++) {
    const ScannedBlock& b = r.blocks[i];
    if (b.live) continue;
    if (live_end < r.next_write_offset &&
        AlignUp(BlockEnd(b), fs_block_size) == r.next_write_offset) {
      keep_end = i;
    }
    if (r.has_max_block_id && b.id == r.max_block_id && (!has_live || b.id > max_live_id)) {
      keep_id = i;
    }
  }
  std::vector<size_t> kept;
  for (size_t i : {keep_end, keep_id}) {
    if (i != SIZE_MAX && std::find(kept.begin(), kept.end(), i) == kept.end()) kept.push_back(i);
  }
  std::sort(kept.begin(), kept.end());

  std::vector<std::string> bodies;
  for (size_t i : kept) {
    bodies.push_back(r.blocks[i].create_body);
    bodies.push_back(r.blocks[i].delete_body);
  }
  std::vector<const ScannedBlock*> live;
  for (const ScannedBlock& b : r.blocks) {
    if (b.live) live.push_back(&b);
  }
  // Kudu's SortRecords order.
  std::stable_sort(live.begin(), live.end(), [](const ScannedBlock* a, const ScannedBlock* b) {
    if (a->timestamp_us != b->timestamp_us) return a->timestamp_us < b->timestamp_us;
    return a->offset < b->offset;
  });
  for (const ScannedBlock* b : live) bodies.push_back(b->create_body);
  *dropped_blocks = r.blocks.size() - live.size() - kept.size();
  return bodies;
}

std::vector<std::pair<uint64_t, uint64_t>> PunchableRanges(const ContainerRecords& r,
                                                           uint64_t fs_block_size,
                                                           uint64_t header_bytes,
                                                           uint64_t* dead_blocks) {
  // Live bytes, merged into disjoint sorted ranges (so their ends are sorted
  // too). The header is kept as a live block is: the record semantics
  // accept a block at any offset, the header's bytes included (§4.2).
  std::vector<std::pair<uint64_t, uint64_t>> live;
  if (header_bytes > 0) live.emplace_back(0, header_bytes);
  for (const ScannedBlock& b : r.blocks) {
    if (b.live && b.length > 0) live.emplace_back(static_cast<uint64_t>(b.offset), BlockEnd(b));
  }
  std::sort(live.begin(), live.end());
  std::vector<std::pair<uint64_t, uint64_t>> merged;
  for (const auto& l : live) {
    if (!merged.empty() && l.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, l.second);
    } else {
      merged.push_back(l);
    }
  }
  std::vector<std::pair<uint64_t, uint64_t>> pieces;
  *dead_blocks = 0;
  for (const ScannedBlock& b : r.blocks) {
    if (b.live) continue;
    uint64_t start = static_cast<uint64_t>(b.offset);
    const uint64_t end = AlignedEnd(b, fs_block_size);
    if (end <= start) continue;
    bool any = false;
    auto it = std::upper_bound(
        merged.begin(), merged.end(), start,
        [](uint64_t v, const std::pair<uint64_t, uint64_t>& m) { return v < m.second; });
    for (; start < end; ++it) {
      const uint64_t stop = it == merged.end() ? end : std::min(end, it->first);
      if (stop > start) {
        pieces.emplace_back(start, stop);
        any = true;
      }
      if (it == merged.end()) break;
      start = std::max(start, it->second);
    }
    if (any) (*dead_blocks)++;
  }
  std::sort(pieces.begin(), pieces.end());
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& p : pieces) {
    if (!out.empty() && p.first <= out.back().second) {
      out.back().second = std::max(out.back().second, p.second);
    } else {
      out.push_back(p);
    }
  }
  return out;
}

Status ConfirmPartialRecord(const std::string& metadata_path, const ServerKey* server_key,
                            uint64_t at, bool* confirmed, std::string* instead) {
  *confirmed = false;
  std::unique_ptr<RandomAccessFile> file;
  RETURN_NOT_OK(RandomAccessFile::Open(metadata_path, server_key, &file));
  // The same reads as the open's reference, so the same answer: under §5's
  // all-zero rule an encrypted file's bytes depend on how it is read.
  FileRecordSource source(file.get());
  struct Ignore : public BlockRecordSink {
    void OnRecord(const BlockRecord&, uint64_t) override {}
  } ignore;
  BlockRecordPB scratch;
  const ReplayOutcome out = ReplayRecordsFrom(&source, &scratch, &ignore);
  if (out.kind == ReplayOutcome::Kind::kIOError) return out.status;
  *confirmed = out.kind == ReplayOutcome::Kind::kPartialRecord && out.offset == at;
  if (!*confirmed) *instead = out.ToString();
  return Status::OK();
}

}  // namespace fs
}  // namespace kudu
