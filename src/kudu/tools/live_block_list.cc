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


#include "kudu/tools/live_block_list.h"

#include <memory>
#include <utility>

#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/thread_pool.h"

namespace kudu {
namespace tools {

namespace {
// Lines are written in pieces of about this size.
constexpr size_t kFlushBytes = 1 << 20;
}  // namespace

LiveBlockListWriter::LiveBlockListWriter(std::string path)
    : path_(std::move(path)), tmp_(path_ + ".tmp") {}

LiveBlockListWriter::~LiveBlockListWriter() {
  if (!done_) Abandon();
}

Status LiveBlockListWriter::Open() {
  std::unique_ptr<WritableFile> f;
  Status s = WritableFile::Open(tmp_, CreateMode::kTruncate, WriteEncryption(), &f);
  if (s.ok()) s = f->Close();
  created_ = created_ || f != nullptr;
  return s;
}

Status LiveBlockListWriter::Write(const std::vector<ShardLiveBlocks>& shards, int threads) {
  // Where each shard's lines start: the bytes of the shards before it.
  std::vector<uint64_t> start(shards.size() + 1, 0);
  ParallelFor("list-sizes", shards.size(), threads, [&](size_t k) {
    uint64_t bytes = 0;
    shards[k].ForEach([&](const GeneratedBlock& b) { bytes += BlockLineBytes(b) + 1; });
    start[k + 1] = bytes;
  });
  for (size_t k = 0; k < shards.size(); k++) start[k + 1] += start[k];
  // Each shard through a file of its own: a WritableFile is one writer's.
  std::vector<Status> status(shards.size());
  ParallelFor("list-write", shards.size(), threads, [&](size_t k) {
    std::unique_ptr<WritableFile> f;
    Status s = WritableFile::Open(tmp_, CreateMode::kOpenExisting, WriteEncryption(), &f);
    uint64_t at = start[k];
    std::string buf;
    auto flush = [&] {
      if (s.ok() && !buf.empty()) s = f->Write(at, Slice(buf));
      at += buf.size();
      buf.clear();
    };
    if (s.ok()) {
      shards[k].ForEach([&](const GeneratedBlock& b) {
        AppendBlockLine(b, &buf);
        buf.push_back('\n');
        if (buf.size() >= kFlushBytes) flush();
      });
      flush();
    }
    // A line that came out another length than BlockLineBytes said would
    // overwrite the next shard's first lines.
    if (s.ok() && at != start[k + 1]) {
      s = Status::IllegalState(tmp_ + ": shard " + std::to_string(k) + " wrote " +
                               std::to_string(at - start[k]) + " bytes, not " +
                               std::to_string(start[k + 1] - start[k]));
    }
    if (s.ok()) s = f->Close();
    status[k] = s;
  });
  for (const Status& s : status) RETURN_NOT_OK(s);
  for (const ShardLiveBlocks& shard : shards) lines_ += shard.size();
  return Status::OK();
}

Status LiveBlockListWriter::Finish() {
  Status s = env::RenameFile(tmp_, path_);
  if (!s.ok()) Abandon();
  done_ = true;
  return s;
}

void LiveBlockListWriter::Abandon() {
  if (created_) (void)env::DeleteFile(tmp_);
  done_ = true;
}

}  // namespace tools
}  // namespace kudu
