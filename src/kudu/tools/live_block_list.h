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

// The list of a generated state's live blocks that `kudu fs generate` leaves
// beside it (one FormatBlockLine per block, by ascending id): what tests
// hold an open to. At server scale it is the largest thing generation
// writes (0.7 GB at 10 M live blocks), so every shard's lines are written
// at once, each shard from its own thread at the place the shards before
// it end.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kudu/tools/block_workload.h"
#include "kudu/util/status.h"

namespace kudu {
namespace tools {

// Writes to <path>.tmp and renames it into place once complete. A failure,
// or a writer destroyed before Finish, leaves nothing of its own behind (on
// a full disk, not the part it could write).
class LiveBlockListWriter {
 public:
  explicit LiveBlockListWriter(std::string path);
  ~LiveBlockListWriter();
  LiveBlockListWriter(const LiveBlockListWriter&) = delete;
  LiveBlockListWriter& operator=(const LiveBlockListWriter&) = delete;

  // Creates <path>.tmp, empty.
  Status Open();
  // Every shard's lines, on up to `threads` threads: BlockWorkloadOptions::
  // on_live_shards. Once per list.
  Status Write(const std::vector<ShardLiveBlocks>& shards, int threads);
  // Renames the list into place.
  Status Finish();
  uint64_t lines() const { return lines_; }

 private:
  void Abandon();

  const std::string path_;
  const std::string tmp_;
  bool created_ = false;
  bool done_ = false;
  uint64_t lines_ = 0;
};

}  // namespace tools
}  // namespace kudu
