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


// The floors of `kudu fs bench` (every metadata file read once and CRC'd,
// no parsing) and the stopwatch every measured run shares with them.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kudu/tools/bench_runner.h"
#include "kudu/util/process_cpu_times.h"
#include "kudu/util/status.h"

namespace kudu {
namespace tools {

// Measures wall and CPU time (every thread of the process) and the file
// layer's process-wide read syscalls around a piece of work.
class BenchStopwatch {
 public:
  BenchStopwatch();
  void Stop(RunMetrics* m) const;

 private:
  const std::chrono::steady_clock::time_point wall_;
  const CpuTimes cpu_;
  const uint64_t reads_;
};

// The floor: every metadata file read once with one read of the whole file
// through the file layer, and CRC-32C'd over the whole buffer, on the same
// per-dir thread pools as the open, without parsing. Files are opened and
// closed as the open does its held ones: by name in their dir's descriptor,
// closed a batch at a time. For encrypted files the
// bytes are ciphertext (the floor does not decrypt). Cold, this is the device
// floor of the open: the same files read in parallel with its thread count,
// `how` they are read (below).
// `warm`: the files are in the page cache, and each dir runs only the
// threads a warm open runs (fs::ChooseFirstWaveThreads), which is also the
// faster floor there.
//
// Cold, a file of 256 KiB or more is read either as the open reads it,
// past the page cache with O_DIRECT (unless
// --log_container_metadata_replay_direct_io is never), or through the page
// cache. Neither is always the faster: O_DIRECT saves the kernel's fill and
// copy, which large files pay for on a small machine, while files of a few
// hundred KiB come faster buffered, whose read-ahead keeps more requests in
// flight. The bench measures both ways and holds the open to the faster
// (VariantFigures). Warm, files are read through the page cache.
enum class FloorReads { kAsTheOpen, kThroughTheCache };
Status MeasureFloor(const std::vector<MetadataFileRef>& files, size_t num_dirs,
                    int threads_per_dir, bool warm, FloorReads how, RunMetrics* m);

// The disk floor: every metadata file read once with one read of the whole
// file, one after another in path order on this thread, CRC'd.
Status MeasureSeqFloor(const std::vector<MetadataFileRef>& files, FloorReads how, RunMetrics* m);

}  // namespace tools
}  // namespace kudu
