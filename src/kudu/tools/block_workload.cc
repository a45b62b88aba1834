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
#include <atomic>
#include <charconv>
#include <cmath>
#include <memory>
#include <thread>

#include "kudu/fs/seeded_random.h"
#include "kudu/util/thread_pool.h"

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

// The most shards a state is cut into, whatever the machine: the bytes of a
// seed must not depend on how many cores wrote them.
constexpr size_t kMaxShards = 8;

// Independent streams forked from one seed in a fixed order, so that e.g. a
// change in payload sizes does not change which blocks get deleted.
struct WorkloadStreams {
  explicit WorkloadStreams(uint64_t seed)
      : master(seed),
        sizes(master.Fork()),
        data(master.Fork()),
        deletes(master.Fork()),
        clock(master.Fork()),
        writer_seed(master.Next64() | 1),
        first_block_id(1 + master.Uniform(1ULL << 40)) {}
  SeededRandom master;  // first: the others are drawn from it
  SeededRandom sizes, data, deletes, clock;
  uint64_t writer_seed;
  uint64_t first_block_id;
};

// A run of whole containers written as a workload of its own.
struct Shard {
  uint64_t seed = 0;
  // 0: the one its seed draws (a state of one shard).
  uint64_t first_block_id = 0;
  // Index of its first container in the state: where the data dirs'
  // round-robin stands when it starts.
  size_t first_container = 0;
  int64_t containers = 0;
  std::vector<int64_t> container_blocks;  // its slice of the state's, if any
  uint64_t creates = 0;
  uint64_t deletes = 0;
  std::unique_ptr<LogWritableBlockManager> bm;  // kept for its live blocks
  Status status;
};

// Cuts the state into shards of whole containers with about as many
// records each.
std::vector<Shard> PlanShards(const BlockWorkloadOptions& opts, uint64_t total,
                              uint64_t to_delete) {
  const bool listed = !opts.container_blocks.empty();
  const size_t containers =
      listed ? opts.container_blocks.size() : static_cast<size_t>(opts.containers);
  size_t n = 1;
  if (opts.records_per_shard > 0) {
    const uint64_t by_records = (total + to_delete) / opts.records_per_shard;
    n = static_cast<size_t>(std::clamp<uint64_t>(
        by_records, 1, std::max<uint64_t>(1, std::min<uint64_t>(kMaxShards, containers))));
  }
  std::vector<Shard> shards(n);
  if (n == 1) {
    shards[0].seed = opts.seed;
    shards[0].containers = opts.containers;
    shards[0].container_blocks = opts.container_blocks;
    shards[0].creates = total;
    shards[0].deletes = to_delete;
    return shards;
  }
  auto blocks = [&](size_t i) {
    return static_cast<uint64_t>(listed ? opts.container_blocks[i] : opts.blocks_per_container);
  };
  // Deletions in proportion to creations, rounded on the running sums so
  // that they add up to to_delete and no shard deletes more than it made.
  auto deletes_before = [&](uint64_t created) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(to_delete) * created / total);
  };
  SeededRandom seeds(opts.seed);
  uint64_t next_id = WorkloadStreams(opts.seed).first_block_id;
  size_t begin = 0;
  uint64_t created = 0;
  for (size_t k = 0; k < n; k++) {
    Shard& shard = shards[k];
    const uint64_t target =
        static_cast<uint64_t>(static_cast<unsigned __int128>(total) * (k + 1) / n);
    const size_t last = containers - (n - 1 - k);  // leaves one for each shard after
    size_t end = begin;
    uint64_t c = created;
    do {
      c += blocks(end++);
    } while (end < last && (c < target || k + 1 == n));
    shard.seed = seeds.Next64() | 1;
    shard.first_block_id = next_id;
    shard.first_container = begin;
    shard.containers = static_cast<int64_t>(end - begin);
    if (listed) {
      shard.container_blocks.assign(opts.container_blocks.begin() + static_cast<ptrdiff_t>(begin),
                                    opts.container_blocks.begin() + static_cast<ptrdiff_t>(end));
    }
    shard.creates = c - created;
    shard.deletes = deletes_before(c) - deletes_before(created);
    next_id += shard.creates;
    begin = end;
    created = c;
  }
  return shards;
}

// Writes one shard through a manager of its own; stops, abandoning its
// unfinished container, once `stop` is set.
Status RunShard(const BlockWorkloadOptions& opts, size_t open_limit, const std::atomic<bool>& stop,
                Shard* shard) {
  WorkloadStreams streams(shard->seed);
  const BlockSizes block_sizes(opts);
  auto clock_rng = std::make_shared<SeededRandom>(streams.clock);
  auto now = std::make_shared<uint64_t>(kEpochMicros + clock_rng->Uniform(1000000));

  ContainerWriterOptions wo = opts.writer;
  if (!wo.data_dirs.empty()) {
    std::rotate(wo.data_dirs.begin(),
                wo.data_dirs.begin() +
                    static_cast<ptrdiff_t>(shard->first_container % wo.data_dirs.size()),
                wo.data_dirs.end());
  }
  wo.seed = streams.writer_seed;
  wo.first_block_id = shard->first_block_id != 0 ? shard->first_block_id : streams.first_block_id;
  wo.roll_after_blocks = opts.blocks_per_container;
  wo.container_block_limits = shard->container_blocks;
  wo.max_open_containers = open_limit;
  wo.clock_us = [clock_rng, now]() {
    *now += 1 + clock_rng->Uniform(2000);
    return *now;
  };

  shard->bm = std::make_unique<LogWritableBlockManager>(wo);
  LogWritableBlockManager& bm = *shard->bm;
  Status s = bm.Open();
  if (!s.ok()) return s;

  const uint64_t total = shard->creates;
  const uint64_t to_delete = shard->deletes;
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
    if (stop.load(std::memory_order_relaxed)) {
      s = Status::Aborted("stopped: another shard of the workload failed");
      break;
    }
    // One group commit of a few blocks.
    const uint64_t g = std::min<uint64_t>(total - created, 1 + streams.sizes.Uniform(max_group));
    sizes.clear();
    uint64_t bytes = 0;
    for (uint64_t i = 0; i < g; i++) {
      sizes.push_back(block_sizes.Next(&streams.sizes));
      bytes += sizes.back();
    }
    if (sparse) {
      // Only the sizes are used; grow the buffer, never refill it.
      if (payload.size() < bytes) payload.resize(bytes);
    } else {
      payload.resize(bytes);
      streams.data.Fill(reinterpret_cast<uint8_t*>(&payload[0]), bytes);
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
        size_t i = streams.deletes.Uniform(live.size());
        victims.push_back(live[i]);
        live[i] = live.back();
        live.pop_back();
      }
      s = bm.DeleteBlocks(victims);
      deleted += victims.size();
    }
  }
  if (s.ok()) s = bm.Close();
  if (!s.ok()) bm.AbandonUnfinished();
  return s;
}

}  // namespace

std::string FormatBlockLine(const GeneratedBlock& b) {
  std::string line;
  AppendBlockLine(b, &line);
  return line;
}

namespace {

// The decimal digits of `v` (to_chars' count), from its bit length.
size_t DecimalDigits(uint64_t v) {
  static constexpr uint64_t kPowersOf10[] = {
      1ULL,          10ULL,          100ULL,          1000ULL,          10000ULL,
      100000ULL,     1000000ULL,     10000000ULL,     100000000ULL,     1000000000ULL,
      10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
      1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL, 1000000000000000000ULL,
      10000000000000000000ULL};
  // floor(log10(v)) is floor(log10(2) * bits) or one less (1233 / 4096 is
  // log10(2) rounded up far enough for 64 bits). v | 1 is never 0 (whose
  // one digit the formula would miss) and has v's digits: v + 1 is a power
  // of ten only for an odd v.
  v |= 1;
  const int bits = 64 - __builtin_clzll(v);
  const int t = (bits * 1233) >> 12;
  return static_cast<size_t>(t - (v < kPowersOf10[t] ? 1 : 0) + 1);
}

size_t SignedDecimalBytes(int64_t v) {
  const uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  return DecimalDigits(magnitude) + (v < 0 ? 1 : 0);
}

}  // namespace

size_t BlockLineBytes(const GeneratedBlock& b) {
  return std::max<size_t>(BlockId::kMinDigits, DecimalDigits(b.id.id())) + 1 +
         b.container_id.size() + 1 + SignedDecimalBytes(b.offset) + 1 +
         SignedDecimalBytes(b.length);
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
  const uint64_t to_delete =
      opts.deleted_blocks >= 0
          ? static_cast<uint64_t>(opts.deleted_blocks)
          : static_cast<uint64_t>(
                (static_cast<unsigned __int128>(total) * opts.deleted_block_percentage + 50) /
                100);

  std::vector<Shard> shards = PlanShards(opts, total, to_delete);
  const int threads = static_cast<int>(std::min<size_t>(
      shards.size(), opts.threads > 0 ? static_cast<size_t>(opts.threads)
                                       : std::max(1u, std::thread::hardware_concurrency())));
  // Managers writing at once share the descriptors one would have.
  const size_t open_limit =
      opts.writer.max_open_containers > 0
          ? opts.writer.max_open_containers
          : std::max<size_t>(2, LogWritableBlockManager::DefaultOpenContainers() /
                                    static_cast<size_t>(threads));
  std::atomic<bool> failed{false};
  ParallelFor("generate", shards.size(), threads, [&](size_t k) {
    shards[k].status = RunShard(opts, open_limit, failed, &shards[k]);
    if (!shards[k].status.ok()) failed.store(true, std::memory_order_relaxed);
  });
  // The first shard that failed by itself, not one stopped for it.
  Status stopped;
  for (const Shard& shard : shards) {
    if (shard.status.ok()) continue;
    if (!shard.status.IsAborted()) return shard.status;
    if (stopped.ok()) stopped = shard.status;
  }
  if (!stopped.ok()) return stopped;

  *result = BlockWorkloadResult();
  size_t live_blocks = 0;
  for (const Shard& shard : shards) {
    const LogWritableBlockManager& bm = *shard.bm;
    result->containers += bm.containers().size();
    result->blocks_created += bm.blocks_created();
    result->blocks_deleted += bm.blocks_deleted();
    result->data_bytes_written += bm.data_bytes_written();
    for (const auto& c : bm.containers()) {
      result->metadata_bytes += c->metadata_size();
      result->container_ids.push_back(c->id());
    }
    result->metadata_bytes_written += bm.deleted_metadata_bytes();
    live_blocks += bm.live_blocks().size();
  }
  result->metadata_bytes_written += result->metadata_bytes;
  std::vector<ShardLiveBlocks> live;
  for (const Shard& shard : shards) live.emplace_back(shard.bm.get());
  if (opts.on_live_shards) {
    std::vector<uint64_t> live_bytes(shards.size(), 0);
    ParallelFor("live-bytes", shards.size(), threads, [&](size_t k) {
      shards[k].bm->live_blocks().ForEach(
          [&](BlockId, const fs::LogWritableBlockManager::WrittenBlock& w) {
            live_bytes[k] += static_cast<uint64_t>(w.length);
          });
    });
    for (uint64_t bytes : live_bytes) result->live_bytes += bytes;
    return opts.on_live_shards(live, threads);
  }
  result->live.reserve(live_blocks);
  // By ascending id, as the list is kept: each shard's ids follow the one
  // before it.
  for (const ShardLiveBlocks& shard : live) {
    shard.ForEach([&](const GeneratedBlock& b) {
      result->live_bytes += static_cast<uint64_t>(b.length);
      result->live.push_back(b);
    });
  }
  return Status::OK();
}

}  // namespace tools
}  // namespace kudu
