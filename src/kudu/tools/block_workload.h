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

// A synthetic server workload over the log block manager: blocks of varied
// sizes created in group commits, with deletions of random earlier blocks
// interleaved all along, as flushes and compactions of a tablet server do.
// Everything goes through LogWritableBlockManager, the same code a server's
// writes take, so the result is an on-disk state a server could have left.
//
// `kudu fs generate` is a thin shell around this; tests and benchmarks call
// it directly to make data dirs in-process.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kudu/fs/block_id.h"
#include "kudu/fs/container_writer.h"
#include "kudu/util/status.h"

namespace kudu {
namespace tools {

using fs::BlockId;
using fs::ContainerWriterOptions;

struct GeneratedBlock {
  BlockId id;
  std::string container_id;
  int64_t offset;
  int64_t length;
};

// One shard's live blocks once the run has succeeded (see
// BlockWorkloadOptions::on_live_shards), by ascending id: every id of a
// shard is below every id of the next one. Valid during that call.
class ShardLiveBlocks {
 public:
  explicit ShardLiveBlocks(const fs::LogWritableBlockManager* bm) : bm_(bm) {}
  size_t size() const { return bm_->live_blocks().size(); }
  // fn(const GeneratedBlock&) for each, by ascending id; as often as wanted.
  // The block handed over is reused from one call to the next.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    GeneratedBlock b;
    bm_->live_blocks().ForEach(
        [&](BlockId id, const fs::LogWritableBlockManager::WrittenBlock& w) {
          b.id = id;
          b.container_id = w.container->id();
          b.offset = w.offset;
          b.length = w.length;
          fn(static_cast<const GeneratedBlock&>(b));
        });
  }

 private:
  const fs::LogWritableBlockManager* bm_;
};

struct BlockWorkloadOptions {
  // Data dirs, encryption, sync, sparse data, container limits. The
  // workload sets the writer's seed, first block id, clock and
  // roll_after_blocks (and container_block_limits) itself. With sparse
  // data the payload bytes are not drawn: the metadata is the same as
  // without, since payloads come from a stream of their own.
  ContainerWriterOptions writer;
  int64_t containers = 10;
  // CREATE records per container: each container is given exactly this
  // many blocks (unless it is full first, by the writer's limits, in which
  // case more containers are made).
  int64_t blocks_per_container = 1000;
  // Non-empty: container i gets container_blocks[i] CREATE records, in
  // place of `containers` x `blocks_per_container` (server-like states whose
  // containers differ in size).
  std::vector<int64_t> container_blocks;
  // Share of the created blocks deleted, spread over the run.
  int deleted_block_percentage = 10;
  // >= 0: exactly this many blocks deleted, in place of the percentage (for
  // shares finer than a percent).
  int64_t deleted_blocks = -1;
  // The deletions all come after the last creation instead of keeping pace
  // with them: containers filled first and emptied later (a dropped table's
  // blocks), whose replay holds every block until its DELETE arrives.
  bool delete_after_creating = false;
  // Non-zero: the same seed gives byte-identical files.
  uint64_t seed = 1;
  // A state of at least twice this many records (CREATEs and DELETEs) is
  // cut into shards of whole containers, up to 8 and about this many
  // records each, which threads write at once. Each shard is a workload of
  // its own: streams drawn from the seed, the run of block ids after the
  // shard before it, and deletions of its own blocks only, as a tablet's
  // compactions delete the tablet's blocks. A smaller state is one shard
  // drawn from the seed itself. 0: one shard whatever the size.
  uint64_t records_per_shard = uint64_t{1} << 20;
  // Threads writing shards; 0: one per core. The bytes depend on the seed
  // and the shape alone, never on this.
  int threads = 0;
  // Block payload sizes: mostly small (log-uniform up to 4 KiB), a few up
  // to max_block_size, which keeps a 100x1000 run to ~150 MB of payload.
  uint64_t min_block_size = 64;
  uint64_t max_block_size = 64 * 1024;
  // Largest number of blocks in one group commit.
  int max_group_size = 8;
  // When set, called once the run has succeeded with every shard's live
  // blocks (shards in id order) and the number of threads that wrote
  // them, so that the caller can hand them on from as many threads; its
  // error is the run's, and BlockWorkloadResult::live stays empty: at
  // server scale that sorted list is the largest thing the generator
  // holds (over 100 bytes per live block).
  std::function<Status(const std::vector<ShardLiveBlocks>& shards, int threads)> on_live_shards;
};

struct BlockWorkloadResult {
  uint64_t containers = 0;
  uint64_t blocks_created = 0;
  uint64_t blocks_deleted = 0;
  uint64_t live_bytes = 0;
  uint64_t data_bytes_written = 0;
  uint64_t metadata_bytes = 0;          // of the containers on disk
  uint64_t metadata_bytes_written = 0;  // dead containers deleted since included
  // Container ids in the order the containers were created.
  std::vector<std::string> container_ids;
  // Every live block, sorted by id (empty with on_live_shards).
  std::vector<GeneratedBlock> live;
};

// Runs the workload. On failure the containers being filled are deleted
// (LogWritableBlockManager::AbandonUnfinished), the other shards stop, and
// the error returned.
Status RunBlockWorkload(const BlockWorkloadOptions& opts, BlockWorkloadResult* result);

// "<block id> <container id> <offset> <length>": one line of `kudu fs list`.
std::string FormatBlockLine(const GeneratedBlock& b);
// The same line appended to `out`, for writers of millions of them.
void AppendBlockLine(const GeneratedBlock& b, std::string* out);
// How many bytes AppendBlockLine appends for `b`, without formatting it: a
// writer of the lines from several threads at once places each thread's
// lines with it.
size_t BlockLineBytes(const GeneratedBlock& b);

}  // namespace tools
}  // namespace kudu
