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

#include "kudu/tools/bench_workloads.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <set>
#include <sstream>

#include "kudu/fs/container_writer.h"
#include "kudu/fs/seeded_random.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"

namespace kudu {
namespace tools {
namespace {

int64_t Scaled(double scale, double n) {
  return std::max<int64_t>(1, static_cast<int64_t>(std::llround(n * scale)));
}

// CREATE records per container so that `live` blocks stay live after
// `deleted` percent of the created ones are deleted.
int64_t BlocksForLive(double live, int64_t containers, int deleted) {
  const double keep = (100.0 - deleted) / 100.0;
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(live / keep / containers)));
}

// 100000 → "100k", 1500000 → "1.5M", 250 → "250".
std::string Count(double n) {
  char buf[32];
  if (n >= 1e6) {
    std::snprintf(buf, sizeof(buf), "%gM", std::round(n / 1e5) / 10);
  } else if (n >= 1e4) {
    std::snprintf(buf, sizeof(buf), "%gk", std::round(n / 1e2) / 10);
  } else {
    std::snprintf(buf, sizeof(buf), "%.0f", n);
  }
  return buf;
}

// The server the S workloads model, at --bench_scale=1.
constexpr double kServerContainers = 16721;
constexpr double kServerLiveBlocks = 77987;
// Metadata a created-then-deleted block leaves in a container: a framed
// CREATE and a framed DELETE record of the generator's ids and timestamps.
constexpr double kMetadataBytesPerDeletedBlock = 76;
// Below this many containers the containers shrink too (in proportion), so
// that a smoke test at a tiny scale stays small.
constexpr double kServerMinFullSizeContainers = 16;
// The histogram's own seed: the container sizes are part of the workload's
// definition, the same whatever --bench_seed says.
constexpr uint64_t kServerHistogramSeed = 16721;

// CREATEs per container for `containers` containers whose metadata sizes
// follow the server's histogram: 80% log-uniform in 4-16 MiB, 10% in
// 1-4 MiB, 10% in 16-32 MiB; each scaled by `fill` (at most 1).
std::vector<int64_t> ServerContainerBlocks(int64_t containers, double fill) {
  struct Bin {
    uint64_t share_percent;
    double lo_mib, hi_mib;
  };
  static const Bin kBins[] = {{10, 1, 4}, {80, 4, 16}, {10, 16, 32}};
  fs::SeededRandom rng(kServerHistogramSeed);
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(containers));
  for (int64_t i = 0; i < containers; i++) {
    uint64_t pick = rng.Uniform(100);
    const Bin* bin = &kBins[0];
    for (const Bin& b : kBins) {
      bin = &b;
      if (pick < b.share_percent) break;
      pick -= b.share_percent;
    }
    const double mib = std::exp(std::log(bin->lo_mib) +
                                rng.NextDouble() * (std::log(bin->hi_mib) - std::log(bin->lo_mib)));
    out.push_back(std::max<int64_t>(
        1, static_cast<int64_t>(fill * mib * (1 << 20) / kMetadataBytesPerDeletedBlock)));
  }
  return out;
}

// Appends a crash tail to the metadata file of container `id` in `root`:
// `zero_tail` extends the file by a page of zero bytes (a size that reached
// the disk before the bytes did), otherwise the first half of a framed
// DELETE record is written (a torn append).
// Ends the metadata file of container `id` in a zero tail of
// `zero_tail_bytes` (a size extended past unwritten bytes: a hole, zero
// ciphertext when encrypted) or, when 0, in the first half of a DELETE
// record.
Status AddCrashTail(const std::string& root, const std::string& id, const ServerKey* key,
                    uint64_t zero_tail_bytes) {
  WriteEncryption enc;
  enc.server_key = key;
  enc.algorithm = CipherAlgorithm::kAes128Ctr;
  std::unique_ptr<WritableFile> f;
  RETURN_NOT_OK(WritableFile::Open(fs::LogBlockContainerWriter::MetadataPath(root, id),
                                   CreateMode::kOpenExisting, enc, &f));
  Status s;
  if (zero_tail_bytes > 0) {
    s = f->Truncate(f->size() + zero_tail_bytes);
  } else {
    const BlockRecordPB r =
        fs::LogBlockContainerWriter::MakeDeleteRecord(fs::BlockId(1), 1700000000000000ULL);
    std::string framed;
    pb_container::AppendRecord(pb_container::kVersion2, r.SerializeAsString(), &framed);
    s = f->Write(f->size(), Slice(framed.data(), framed.size() / 2));
  }
  Status c = f->Close();
  return s.ok() ? c : s;
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + ",") {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur.push_back(c);
    }
  }
  return out;
}

}  // namespace

std::vector<BenchWorkload> ReferenceWorkloads(const WorkloadSizing& sizing) {
  const double k = sizing.scale;
  std::vector<BenchWorkload> plain;
  auto add = [&](std::string name, std::string group, std::string desc, int64_t containers,
                 int64_t bpc, int deleted, int64_t max_blocks = -1, uint64_t threshold = 0) {
    BenchWorkload w;
    w.name = std::move(name);
    w.group = std::move(group);
    w.description = std::move(desc);
    w.containers = containers;
    w.blocks_per_container = bpc;
    w.deleted_percentage = deleted;
    w.max_container_blocks = max_blocks > 0 ? max_blocks : -1;
    w.in_memory_threshold_bytes = threshold;
    plain.push_back(std::move(w));
  };
  // G1: dataset size on one dir, a few containers, 10% of blocks deleted.
  for (int live_k : {10, 50, 100}) {
    const int64_t containers = live_k == 10 ? 2 : 4;
    const int64_t live = Scaled(k, live_k * 1000.0);
    add("G1-" + std::to_string(live_k) + "k", "G1",
        Count(live) + " live blocks, " + std::to_string(containers) + " containers, 10% deleted",
        containers, BlocksForLive(live, containers, 10), 10);
  }
  // G2: deleted share over the same 50k created blocks.
  for (int del : {0, 50, 90, 99}) {
    add("G2-del" + std::to_string(del), "G2",
        Count(4 * Scaled(k, 12500)) + " created blocks, " + std::to_string(del) +
            "% deleted, 4 containers",
        4, Scaled(k, 12500), del);
  }
  // G3: container count over the same 100k created blocks, as
  // --log_container_max_blocks makes it.
  {
    const int64_t total = Scaled(k, 100000);
    add("G3-unlimited", "G3",
        Count(total) + " blocks, --log_container_max_blocks=-1 (1 container), 10% deleted", 1,
        total, 10);
    for (int64_t max_blocks : {10000, 1000}) {
      const int64_t m = Scaled(k, static_cast<double>(max_blocks));
      add("G3-max" + std::to_string(max_blocks), "G3",
          Count(total) + " blocks, --log_container_max_blocks=" + std::to_string(m) + " (" +
              std::to_string((total + m - 1) / m) + " containers), 10% deleted",
          (total + m - 1) / m, m, 10, m);
    }
  }
  // G4: many small containers, ~250 records each.
  add("G4-2000x250", "G4",
      std::to_string(Scaled(k, 2000)) +
          " containers x 200 blocks, 25% deleted (250 records each)",
      Scaled(k, 2000), 200, 25);
  // G5: files above the in-memory threshold. The threshold is lowered to
  // 1 MiB for this workload rather than writing files above 64 MiB.
  // (scaled with the blocks, so that it stays below the files at any scale).
  {
    const uint64_t threshold = std::max<uint64_t>(4096, static_cast<uint64_t>(k * (1 << 20)));
    add("G5-above-threshold", "G5",
        "2 containers x " + Count(Scaled(k, 60000)) +
            " blocks, 10% deleted (~2.7 MiB metadata each at scale 1), in-memory threshold "
            "lowered to " + (threshold >= (1 << 20) ? std::to_string(threshold >> 20) + " MiB"
                                                   : std::to_string(threshold >> 10) + " KiB"),
        2, Scaled(k, 60000), 10, -1, threshold);
  }

  // S: server scale, opt-in, sparse data files.
  auto server_workload = [](std::string name) {
    BenchWorkload w;
    w.name = std::move(name);
    w.group = "S";
    w.opt_in = true;
    w.sparse_data = true;
    return w;
  };
  auto add_server = [&](std::string name, std::string desc, double fill, int64_t live,
                        int64_t crashed) {
    std::vector<int64_t> blocks = ServerContainerBlocks(Scaled(k, kServerContainers), fill);
    BenchWorkload w = server_workload(std::move(name));
    w.containers = static_cast<int64_t>(blocks.size());
    int64_t created = 0;
    for (int64_t n : blocks) created += n;
    w.deleted_blocks = std::max<int64_t>(0, created - live);
    w.deleted_percentage = static_cast<int>(std::lround(100.0 * w.deleted_blocks / created));
    char share[32];
    std::snprintf(share, sizeof(share), "%.3f%%", 100.0 * w.deleted_blocks / created);
    char sizes[64];
    std::snprintf(sizes, sizeof(sizes), " containers (metadata mostly %.3g-%.3g MiB each), ",
                  4 * fill, 16 * fill);
    w.description = std::to_string(w.containers) + sizes +
                    Count(static_cast<double>(created)) + " created blocks, " + Count(live) +
                    " live (" + share + " deleted)" + desc;
    w.container_blocks = std::move(blocks);
    w.crashed_containers = crashed;
    plain.push_back(std::move(w));
  };
  const int64_t server_containers = Scaled(k, kServerContainers);
  const int64_t server_live = Scaled(k, kServerLiveBlocks);
  const double server_fill = std::min(1.0, k * kServerContainers / kServerMinFullSizeContainers);
  add_server("S1-server", "", server_fill, server_live, 0);
  {
    BenchWorkload w = server_workload("S2-10M-live");
    w.containers = Scaled(k, 1000);
    w.blocks_per_container = 11112;
    w.deleted_percentage = 10;
    w.description = Count(static_cast<double>(w.containers) * 10000) + " live blocks, " +
                    std::to_string(w.containers) + " containers of 11112 blocks, 10% deleted";
    plain.push_back(std::move(w));
  }
  {
    // All live blocks in one container: its replay's array of live blocks
    // is as large as the block map's table, the shape where holding both
    // at once would set the open's peak memory.
    BenchWorkload w = server_workload("S5-one-container");
    w.containers = 1;
    w.blocks_per_container = Scaled(k, 2000000);
    w.deleted_percentage = 0;
    w.description = "1 container of " + Count(static_cast<double>(w.blocks_per_container)) +
                    " live blocks, none deleted";
    plain.push_back(std::move(w));
  }
  {
    // Filled first and emptied later (a dropped table's container): the
    // replay holds every created block until the DELETEs at the end of the
    // file, the shape where memory could follow deleted history.
    BenchWorkload w = server_workload("S6-filled-then-emptied");
    w.containers = 1;
    w.blocks_per_container = Scaled(k, 2000000);
    w.deleted_percentage = 99;
    w.delete_after_creating = true;
    w.description = "1 container of " + Count(static_cast<double>(w.blocks_per_container)) +
                    " blocks, then 99% of them deleted";
    plain.push_back(std::move(w));
  }
  {
    // A server writes to several containers at once; all of them are torn.
    const int64_t crashed = std::min<int64_t>(server_containers, 8);
    add_server("S3-after-crash",
               ", the last " + std::to_string(crashed) +
                   " containers ending in a zero tail or a partial record",
               server_fill, server_live, crashed);
  }

  {
    // Not scaled but its hole: the records are a backdrop, the hole is
    // what is measured (a 4 GiB hole costs no disk, but the floor reads it).
    BenchWorkload w = server_workload("S4-sparse-tail");
    w.containers = 4;
    w.blocks_per_container = 2000;
    w.deleted_percentage = 10;
    w.sparse_tail_bytes = std::max<uint64_t>(4096, static_cast<uint64_t>(k * (4ULL << 30)));
    w.description = "4 containers x 2000 blocks, 10% deleted, the last metadata file followed by "
                    "a hole of " +
                    (w.sparse_tail_bytes >= (1 << 20)
                         ? std::to_string(w.sparse_tail_bytes >> 20) + " MiB"
                         : std::to_string(w.sparse_tail_bytes >> 10) + " KiB") +
                    " (a sparse zero tail)";
    plain.push_back(std::move(w));
  }

  std::vector<BenchWorkload> all;
  for (const BenchWorkload& w : plain) {
    all.push_back(w);
    BenchWorkload e = w;
    e.name += "-enc";
    e.encrypted = true;
    e.description += ", encrypted (AES-128)";
    all.push_back(e);
  }
  return all;
}

Status SelectWorkloads(const std::vector<BenchWorkload>& all, const std::string& spec,
                       const std::string& encryption, std::vector<BenchWorkload>* out) {
  out->clear();
  if (encryption != "both" && encryption != "plain" && encryption != "encrypted") {
    return Status::InvalidArgument("--bench_encryption must be both, plain or encrypted, got '" +
                                   encryption + "'");
  }
  std::vector<std::string> tokens = Split(spec);
  if (tokens.empty()) return Status::InvalidArgument("--bench_workloads names no workload");
  std::set<std::string> chosen;
  for (const std::string& t : tokens) {
    bool matched = false;
    for (const BenchWorkload& w : all) {
      std::string base = w.encrypted ? w.name.substr(0, w.name.size() - 4) : w.name;
      if ((t == "all" && !w.opt_in) || t == w.group || t == base || t == w.name) {
        // An explicit "-enc" name selects that one whatever --bench_encryption says.
        const bool enc_ok = t == w.name ||
                            (encryption == "both" || (encryption == "plain") != w.encrypted);
        if (enc_ok) chosen.insert(w.name);
        matched = true;
      }
    }
    if (!matched) {
      std::ostringstream names;
      names << "G1..G5, S (opt-in), all";
      for (const BenchWorkload& w : all) names << ", " << w.name;
      return Status::InvalidArgument("--bench_workloads: no workload named '" + t +
                                     "' (known: " + names.str() + ")");
    }
  }
  for (const BenchWorkload& w : all) {
    if (chosen.count(w.name)) out->push_back(w);
  }
  if (out->empty()) {
    return Status::InvalidArgument("--bench_workloads and --bench_encryption select nothing");
  }
  return Status::OK();
}

uint64_t EstimatedStateBytes(const BenchWorkload& w) {
  uint64_t created = 0;
  if (w.container_blocks.empty()) {
    created = static_cast<uint64_t>(std::max<int64_t>(0, w.containers)) *
              static_cast<uint64_t>(std::max<int64_t>(0, w.blocks_per_container));
  } else {
    for (int64_t n : w.container_blocks) created += static_cast<uint64_t>(std::max<int64_t>(0, n));
  }
  const uint64_t deleted =
      std::min(created, w.deleted_blocks >= 0
                            ? static_cast<uint64_t>(w.deleted_blocks)
                            : created * static_cast<uint64_t>(std::max(0, w.deleted_percentage)) / 100);
  constexpr uint64_t kMetadataBytesPerRecord = 36;
  constexpr uint64_t kFilesystemBlockBytes = 4096;
  return (created + deleted) * kMetadataBytesPerRecord +
         (w.sparse_data ? 0 : (created - deleted) * kFilesystemBlockBytes);
}

namespace {

Status CheckRoomFor(const BenchWorkload& w, double scale, const std::string& parent) {
  struct statvfs st;
  if (::statvfs(parent.c_str(), &st) != 0) return Status::OK();  // no figure: nothing to refuse
  const uint64_t free_bytes = static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
  const uint64_t need = EstimatedStateBytes(w);
  if (need <= free_bytes) return Status::OK();
  constexpr double kGiB = 1 << 30;
  char msg[400];
  std::snprintf(msg, sizeof(msg),
                "%s needs about %.1f GiB on disk and %s has %.1f GiB free: "
                "--bench_scale=%.2g or less would leave half of it free (this run's is %g)",
                w.name.c_str(), static_cast<double>(need) / kGiB, parent.c_str(),
                static_cast<double>(free_bytes) / kGiB,
                scale * static_cast<double>(free_bytes) / static_cast<double>(need) / 2, scale);
  return Status::IOError(msg, "", ENOSPC);
}

}  // namespace

Status GenerateWorkload(const BenchWorkload& w, const WorkloadSizing& sizing,
                        const std::string& parent, const ServerKey* key, uint64_t seed,
                        GeneratedState* out,
                        std::function<Status(const std::vector<tools::ShardLiveBlocks>&, int)>
                            on_live_shards) {
  *out = GeneratedState();
  RETURN_NOT_OK(CheckRoomFor(w, sizing.scale, parent));
  const std::string root = env::JoinPath(env::JoinPath(parent, w.name), "d0");
  RETURN_NOT_OK(env::CreateDirs(fs::LogBlockContainerWriter::DataDir(root)));
  out->data_dirs = {root};

  tools::BlockWorkloadOptions opts;
  opts.writer.data_dirs = out->data_dirs;
  opts.writer.sync = false;  // as `kudu fs generate` by default: same bytes, faster
  if (w.encrypted) {
    if (key == nullptr || key->empty()) {
      return Status::InvalidArgument(w.name + ": an encrypted workload needs a server key");
    }
    opts.writer.server_key = key;
    opts.writer.algorithm = CipherAlgorithm::kAes128Ctr;
  }
  opts.writer.sparse_data = w.sparse_data;
  // Written under the limit its open is given, so that its containers are
  // full as a server leaves them (cut to the next block offset).
  if (w.max_container_blocks > 0) opts.writer.max_container_blocks = w.max_container_blocks;
  opts.containers = w.containers;
  opts.blocks_per_container = w.blocks_per_container;
  opts.container_blocks = w.container_blocks;
  opts.deleted_block_percentage = w.deleted_percentage;
  opts.deleted_blocks = w.deleted_blocks;
  opts.delete_after_creating = w.delete_after_creating;
  opts.seed = seed;
  opts.min_block_size = sizing.min_block_size;
  opts.max_block_size = std::max(sizing.min_block_size, sizing.max_block_size);
  opts.on_live_shards = std::move(on_live_shards);

  const auto start = std::chrono::steady_clock::now();
  RETURN_NOT_OK_PREPEND(tools::RunBlockWorkload(opts, &out->result), "generating " + w.name);
  const std::vector<std::string>& ids = out->result.container_ids;
  const size_t crashed = std::min<size_t>(ids.size(), static_cast<size_t>(w.crashed_containers));
  for (size_t i = 0; i < crashed; i++) {
    RETURN_NOT_OK_PREPEND(AddCrashTail(root, ids[ids.size() - 1 - i],
                                       w.encrypted ? key : nullptr, i % 2 == 0 ? 4096 : 0),
                          "crash tail of " + w.name);
  }
  if (w.sparse_tail_bytes > 0 && !ids.empty()) {
    const uint64_t hole = (w.sparse_tail_bytes + 4095) / 4096 * 4096;
    RETURN_NOT_OK_PREPEND(AddCrashTail(root, ids.back(), w.encrypted ? key : nullptr, hole),
                          "sparse tail of " + w.name);
  }
  out->seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Status::OK();
}

}  // namespace tools
}  // namespace kudu
