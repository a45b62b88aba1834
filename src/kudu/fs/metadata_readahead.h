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

// Read-ahead across containers for cold starts: while a replay thread parses
// one container, the metadata files of the next containers in its data
// dir's queue are already being read.
//
// Each data dir's containers are replayed in a fixed order by a pool whose
// threads claim queue positions from a shared cursor. When a thread claims
// position k it tells the dir's DirReadahead (Claim(k)), which keeps the
// positions after k — up to threads x --log_container_metadata_replay_
// readahead_containers of them, and never more than half the memory budget
// of bytes — being read (positions below the thread count are claimed by the
// pool's first wave at once and are not read ahead; a dir with no more
// containers than threads gets no read-ahead):
//
//   fadvise  the claiming thread asks the kernel (posix_fadvise WILLNEED,
//            RandomAccessFile::Prefetch) to read the newly covered files into
//            the page cache and goes on; the replay later reads them as usual
//            (from the page cache, with the same system calls). Holds no
//            memory of ours, so no budget. Skipped while the whole-file
//            reads so far found their files cached (a warm restart). Files
//            the replay reads past the page cache are left to that read
//            (ChooseReadaheadBytes gives them no bytes).
//   none     nothing.
//
// Reading ahead into buffers of our own (io_uring) is slower than fadvise
// on the cold benchmarks (docs/benchmarks.md): its bytes are copied twice, it needs an I/O thread per dir, and its buffers take budget from
// the replays, while fadvise lets the replay's own pread wait on the page.
//
// Read-ahead never changes what a replay reads or decides: it only changes
// how early the bytes reach the page cache. A read-ahead that fails is left
// to the replay, which reads the file normally.
#pragma once

#include <gflags/gflags_declare.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "kudu/fs/replay_stats.h"
#include "kudu/util/byte_budget.h"
#include "kudu/util/status.h"

DECLARE_string(log_container_metadata_replay_readahead);
DECLARE_uint32(log_container_metadata_replay_readahead_containers);

namespace kudu {
namespace fs {

enum class ReadaheadMode { kNone, kFadvise };
// "none" or "fadvise"; anything else is InvalidArgument naming the flag.
Status ParseReadaheadMode(const std::string& name, ReadaheadMode* mode);
const char* ReadaheadModeName(ReadaheadMode mode);

struct ReadaheadOptions {
  ReadaheadMode mode = ReadaheadMode::kFadvise;
  // Positions read ahead per replay thread of a dir.
  uint32_t containers_per_thread = 8;

  // From --log_container_metadata_replay_readahead(_containers).
  static Status FromFlags(ReadaheadOptions* opts);
};

class DirReadahead {
 public:
  struct Entry {
    std::string path;
    uint64_t bytes = 0;  // bytes [0, bytes) to read ahead; 0: nothing
    // The file's slot in the listing's HeldFiles, or null: a descriptor
    // found there is advised (taken for the advice, then put back) instead
    // of opening the file by name again.
    int* held = nullptr;
  };

  // `queue`: the dir's metadata files in the order the replay threads claim
  // them; `threads` of them, the first `first_wave` at once (the others
  // start when the open turns out cold: ReplayThreadGate). `budget` (may be
  // null) bounds the bytes read ahead; `stats` may be null.
  DirReadahead(const ReadaheadOptions& opts, std::vector<Entry> queue, int threads,
               int first_wave, ByteBudget* budget, ReplayStats* stats);
  DirReadahead(const DirReadahead&) = delete;
  DirReadahead& operator=(const DirReadahead&) = delete;

  ReadaheadMode mode() const { return mode_; }

  // Called by the replay thread that claimed position `k`, before it opens
  // that file: read-ahead moves on past k. Thread-safe.
  void Claim(size_t k);

 private:
  // The first position past `k` that is not to be read ahead yet: at most
  // window_ positions after k, and at most max_bytes_ahead_ bytes read ahead
  // (counted from the first position read ahead at all).
  size_t HorizonAfter(size_t k) const;
  void FadviseUpTo(size_t k);
  // Whether the open's whole-file reads so far, a first wave of them at
  // least, found the page cache warm (ProbesLookWarm over stats_'s cache
  // probes; a read past the cache is a miss): then the next files are most
  // likely cached as well, and advising them would cost an fadvise (or an
  // open, an fadvise and a close) each for nothing. Misses turn read-ahead
  // back on from the next claim; an open whose strategy does not probe
  // (Streaming) always reads ahead.
  bool LooksWarm() const;

  const ReadaheadMode mode_;
  const std::vector<Entry> queue_;
  std::vector<uint64_t> prefix_;  // prefix_[i]: bytes of entries [0, i)
  const size_t window_;
  const uint64_t max_bytes_ahead_;
  // Positions below this one are claimed by the pool's first wave.
  size_t first_ahead_ = 0;
  ReplayStats* const stats_;

  // Every position before this one was advised (or is claimed by the first
  // wave).
  std::mutex mu_;
  size_t advised_ = 0;
};

}  // namespace fs
}  // namespace kudu
