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

#include "kudu/tools/block_workload.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>

#include "kudu/fs/seeded_random.h"

namespace kudu {
namespace tools {

using fs::LogWritableBlockManager;
using fs::SeededRandom;

namespace {

// Simulated wall clock: a fixed epoch advanced a little per record, so the
// timestamps look like a server's and still repeat exactly for a seed.
constexpr uint64_t kEpochMicros = 1700000000ULL * 1000000ULL;

// The most DELETE records one group commit holds. Deletions that keep pace
// with creations never come this many at once, so their states are the
// same with or without the bound.
constexpr size_t kDeleteGroup = 1024;

// Log-uniform in [lo, hi]. The logarithms of the bounds are taken once,
// not per block (three of the four transcendental calls per block), with
// the same expressions, so a seed draws the same sizes.
class LogUniform {
 public:
  LogUniform(uint64_t lo, uint64_t hi)
      : lo_(lo),
        hi_(hi),
        log_lo_(hi <= lo ? 0 : std::log(static_cast<double>(lo))),
        log_span_(hi <= lo ? 0 : std::log(static_cast<double>(hi + 1)) - log_lo_) {}
  uint64_t operator()(SeededRandom* rng) const {
    if (hi_ <= lo_) return lo_;
    const double x = log_lo_ + rng->NextDouble() * log_span_;
    return std::min<uint64_t>(hi_, std::max<uint64_t>(lo_, static_cast<uint64_t>(std::exp(x))));
  }

 private:
  uint64_t lo_, hi_;
  double log_lo_, log_span_;
};

// Mostly small blocks with a long tail: 97% up to 4 KiB, 3% up to the max.
class BlockSizes {
 public:
  explicit BlockSizes(const BlockWorkloadOptions& o)
      : small_(Lo(o), Knee(o)), large_(Knee(o), std::max(Lo(o), o.max_block_size)) {}
  uint64_t Next(SeededRandom* rng) const {
    if (rng->Uniform(100) < 97) return small_(rng);
    return large_(rng);
  }

 private:
  static uint64_t Lo(const BlockWorkloadOptions& o) { return std::max<uint64_t>(1, o.min_block_size); }
  static uint64_t Knee(const BlockWorkloadOptions& o) {
    return std::min(std::max(Lo(o), o.max_block_size), std::max<uint64_t>(Lo(o), 4096));
  }
  LogUniform small_, large_;
};

}  // namespace

std::string FormatBlockLine(const GeneratedBlock& b) {
  std::string line;
  AppendBlockLine(b, &line);
  return line;
}

void AppendBlockLine(const GeneratedBlock& b, std::string* out) {
  char id[BlockId::kMaxFormattedLength + 1];
  out->append(id, static_cast<size_t>(BlockId::Format(b.id.id(), id)));
  out->push_back(' ');
  out->append(b.container_id);
  for (int64_t v : {b.offset, b.length}) {
    char digits[24];  // a sign and 19 digits
    out->push_back(' ');
    out->append(digits, static_cast<size_t>(std::to_chars(digits, digits + sizeof(digits), v).ptr - digits));
  }
}

Status RunBlockWorkload(const BlockWorkloadOptions& opts, BlockWorkloadResult* result) {
  if (opts.containers < 0) return Status::InvalidArgument("containers must not be negative");
  if (opts.blocks_per_container < 1) {
    return Status::InvalidArgument("blocks_per_container must be at least 1");
  }
  if (opts.deleted_block_percentage < 0 || opts.deleted_block_percentage > 100) {
    return Status::InvalidArgument("deleted_block_percentage must be within 0..100");
  }
  if (opts.seed == 0) return Status::InvalidArgument("the workload seed must be non-zero");
  uint64_t total = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(opts.containers),
                             static_cast<uint64_t>(opts.blocks_per_container), &total)) {
    return Status::InvalidArgument("containers x blocks_per_container is above 2^64-1");
  }
  if (!opts.container_blocks.empty()) {
    total = 0;
    for (int64_t n : opts.container_blocks) {
      if (n < 1) return Status::InvalidArgument("every container needs at least 1 block");
      total += static_cast<uint64_t>(n);
    }
  }
  if (opts.deleted_blocks > static_cast<int64_t>(total)) {
    return Status::InvalidArgument("deleted_blocks exceeds the blocks created");
  }

  // Independent streams, so that e.g. a change in payload sizes does not
  // change which blocks get deleted.
  SeededRandom master(opts.seed);
  SeededRandom size_rng = master.Fork();
  const BlockSizes block_sizes(opts);
  SeededRandom data_rng = master.Fork();
  SeededRandom delete_rng = master.Fork();
  auto clock_rng = std::make_shared<SeededRandom>(master.Fork());
  auto now = std::make_shared<uint64_t>(kEpochMicros + clock_rng->Uniform(1000000));

  ContainerWriterOptions wo = opts.writer;
  wo.seed = master.Next64() | 1;
  wo.first_block_id = 1 + master.Uniform(1ULL << 40);
  wo.roll_after_blocks = opts.blocks_per_container;
  wo.container_block_limits = opts.container_blocks;
  wo.clock_us = [clock_rng, now]() {
    *now += 1 + clock_rng->Uniform(2000);
    return *now;
  };

  LogWritableBlockManager bm(wo);
  Status s = bm.Open();
  if (!s.ok()) return s;

  const uint64_t to_delete =
      opts.deleted_blocks >= 0
          ? static_cast<uint64_t>(opts.deleted_blocks)
          : static_cast<uint64_t>(
                (static_cast<unsigned __int128>(total) * opts.deleted_block_percentage + 50) /
                100);
  const bool sparse = wo.sparse_data;
  const int max_group = std::max(1, opts.max_group_size);

  std::vector<BlockId> live;  // unordered; picked from at random
  live.reserve(total - to_delete + static_cast<uint64_t>(max_group) + 1);  // its peak
  std::string payload;
  std::vector<uint64_t> sizes;
  std::vector<Slice> slices;
  std::vector<BlockId> ids;
  std::vector<BlockId> victims;
  uint64_t created = 0, deleted = 0;

  while (s.ok() && created < total) {
    // One group commit of a few blocks.
    const uint64_t g = std::min<uint64_t>(total - created, 1 + size_rng.Uniform(max_group));
    sizes.clear();
    uint64_t bytes = 0;
    for (uint64_t i = 0; i < g; i++) {
      sizes.push_back(block_sizes.Next(&size_rng));
      bytes += sizes.back();
    }
    if (sparse) {
      // Only the sizes are used; grow the buffer, never refill it.
      if (payload.size() < bytes) payload.resize(bytes);
    } else {
      payload.resize(bytes);
      data_rng.Fill(reinterpret_cast<uint8_t*>(&payload[0]), bytes);
    }
    slices.clear();
    uint64_t pos = 0;
    for (uint64_t sz : sizes) {
      slices.emplace_back(payload.data() + pos, sz);
      pos += sz;
    }
    s = bm.CreateBlocks(slices, &ids);
    if (!s.ok()) break;
    live.insert(live.end(), ids.begin(), ids.end());
    created += g;

    // Deletions keep pace with creations, so they land all through the
    // metadata files (and in containers long full), not in one run at the
    // end (unless asked for). Victims are random earlier blocks still live,
    // deleted in group commits of a server's size.
    const uint64_t due =
        opts.delete_after_creating
            ? (created == total ? to_delete : 0)
            : static_cast<uint64_t>(static_cast<unsigned __int128>(to_delete) * created / total);
    while (s.ok() && deleted < due && !live.empty()) {
      victims.clear();
      while (deleted + victims.size() < due && victims.size() < kDeleteGroup && !live.empty()) {
        size_t i = delete_rng.Uniform(live.size());
        victims.push_back(live[i]);
        live[i] = live.back();
        live.pop_back();
      }
      s = bm.DeleteBlocks(victims);
      deleted += victims.size();
    }
  }
  if (s.ok()) s = bm.Close();
  if (!s.ok()) {
    bm.AbandonUnfinished();
    return s;
  }

  *result = BlockWorkloadResult();
  result->containers = bm.containers().size();
  result->blocks_created = bm.blocks_created();
  result->blocks_deleted = bm.blocks_deleted();
  result->data_bytes_written = bm.data_bytes_written();
  for (const auto& c : bm.containers()) {
    result->metadata_bytes += c->metadata_size();
    result->container_ids.push_back(c->id());
  }
  result->metadata_bytes_written = result->metadata_bytes + bm.deleted_metadata_bytes();
  // Nothing is drawn from here on, so the seed's files are the same either way.
  std::vector<BlockId>().swap(live);
  GeneratedBlock b;
  if (!opts.on_live_block) result->live.reserve(bm.live_blocks().size());
  // By ascending id, as the list is kept.
  bm.live_blocks().ForEach([&](BlockId id, const fs::LogWritableBlockManager::WrittenBlock& w) {
    b.id = id;
    b.container_id = w.container->id();
    b.offset = w.offset;
    b.length = w.length;
    result->live_bytes += static_cast<uint64_t>(w.length);
    if (opts.on_live_block) {
      opts.on_live_block(b);
    } else {
      result->live.push_back(b);
    }
  });
  return Status::OK();
}

}  // namespace tools
}  // namespace kudu
