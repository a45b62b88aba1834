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

// The reference workloads of `kudu fs bench` (docs/benchmarks.md): what each
// one is, how big at --bench_scale=1, and how it is generated. Generation
// goes through fs/block_workload.h, the very code path of `kudu fs generate`
// (the server's own writer), so a benchmarked state is one a server could
// have left behind.
//
//   G1  dataset size: 1 dir, 10k / 50k / 100k live blocks in a few containers
//   G2  deleted share: 0 / 50 / 90 / 99 % of the created blocks deleted
//   G3  container count: --log_container_max_blocks unlimited / 10000 / 1000
//       over the same 100k blocks (1 / 10 / 100 containers)
//   G4  many small containers: 2000 containers of ~250 records each
//   G5  metadata files above the in-memory threshold: the threshold is
//       lowered to 1 MiB for this workload (instead of writing 64 MiB
//       files), and both containers' files (~3 MiB) are above it
//
// Server scale, opt-in (named by group or name, never part of "all", so the
// default run stays short), generated with sparse data files:
//
//   S1  the server this project exists for: 16,721 containers whose
//       metadata sizes follow a histogram of mostly 4-16 MiB, 77,987 live
//       blocks, every other created block deleted; --bench_scale multiplies the
//       container and live block counts (fractions welcome, e.g. 0.01)
//   S2  10M live blocks (the scale of upstream's startup-time reports), 10%
//       deleted, in 1,000 containers of ~0.5 MiB metadata
//   S3  S1 after a crash: the last containers being written end in a zero
//       tail (a size extended past unwritten bytes) or a partial record
//   S4  a sparse zero tail: 4 containers x 2,000 blocks, the last metadata
//       file then extended by a hole of 4 GiB times --bench_scale (a hole
//       reads as zeros; the open must not read it)
//   S5  one container of 2 M live blocks, none deleted
//   S6  one container of 2 M blocks, 99 % of them deleted after the last
//       was created (filled, then emptied)
//
// Each exists plain and encrypted (AES-128 file keys): "G1-100k" and
// "G1-100k-enc".
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kudu/tools/block_workload.h"
#include "kudu/util/encryption.h"
#include "kudu/util/status.h"

namespace kudu {
namespace tools {

struct BenchWorkload {
  std::string name;   // "G1-100k", "G1-100k-enc"
  std::string group;  // "G1"
  std::string description;
  bool encrypted = false;
  int64_t containers = 1;
  int64_t blocks_per_container = 1000;
  int deleted_percentage = 10;
  // --log_container_max_blocks the state was written with (<= 0: unlimited);
  // given to the open so that "full" means the same thing.
  int64_t max_container_blocks = -1;
  // Non-zero: the in-memory threshold for this workload (G5); 0: the flag's.
  uint64_t in_memory_threshold_bytes = 0;
  // Left out of "all": selected by its group or name only.
  bool opt_in = false;
  // Non-empty: CREATEs of each container, in place of containers x
  // blocks_per_container; deleted_blocks >= 0 then replaces the percentage.
  std::vector<int64_t> container_blocks;
  int64_t deleted_blocks = -1;
  // Every deletion after the last creation (BlockWorkloadOptions).
  bool delete_after_creating = false;
  // Data files as holes (fs::ContainerWriterOptions::sparse_data).
  bool sparse_data = false;
  // After generation, this many of the last containers written get a crash
  // tail: a zero tail and a partial record, alternately.
  int64_t crashed_containers = 0;
  // After generation, the last container's metadata file is extended by a
  // hole of this many bytes (rounded up to 4 KiB).
  uint64_t sparse_tail_bytes = 0;
};

struct WorkloadSizing {
  // Multiplies the block counts (G4: the container count), at least 1 each.
  double scale = 1.0;
  uint64_t min_block_size = 64;
  uint64_t max_block_size = 4096;
};

// Every reference workload at `scale`, plain and encrypted, in report order.
std::vector<BenchWorkload> ReferenceWorkloads(const WorkloadSizing& sizing);

// Picks workloads by a comma-separated list of groups ("G1"), names
// ("G1-100k") or names with "-enc", "all" for every one not opt-in; `encryption` is
// "both", "plain" or "encrypted". InvalidArgument for a token that names
// nothing (the message lists the names).
Status SelectWorkloads(const std::vector<BenchWorkload>& all, const std::string& spec,
                       const std::string& encryption, std::vector<BenchWorkload>* out);

struct GeneratedState {
  std::vector<std::string> data_dirs;
  tools::BlockWorkloadResult result;
  double seconds = 0;
};

// About how many bytes `w` takes on disk once generated: 36 bytes of
// metadata per record (CREATE or DELETE; 38-41 measured on the S1 and G1
// states) and, unless its data is sparse, a 4 KiB filesystem block per live
// block (blocks are aligned; deleted ones are punched out). It errs low: it
// is there to refuse a state that cannot fit, not to plan one that can.
uint64_t EstimatedStateBytes(const BenchWorkload& w);

// Writes `w` into a fresh data dir under `parent` (<parent>/<name>/d0),
// encrypted with `key` (AES-128 file keys) when w.encrypted, then gives the
// crashed containers their tails. A state whose EstimatedStateBytes exceed
// the free space of `parent`'s filesystem is not started: IOError naming
// both and the --bench_scale that would fit (S1-server at the default scale
// is the seed server itself, some 80 GB of metadata). `on_live_shards`, when set, receives the
// live blocks in place of out->result.live (BlockWorkloadOptions).
Status GenerateWorkload(
    const BenchWorkload& w, const WorkloadSizing& sizing, const std::string& parent,
    const ServerKey* key, uint64_t seed, GeneratedState* out,
    std::function<Status(const std::vector<tools::ShardLiveBlocks>&, int)> on_live_shards = nullptr);

}  // namespace tools
}  // namespace kudu
