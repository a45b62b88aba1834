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

// Asynchronous reads of file ranges through io_uring (liburing), for the
// metadata read-ahead of fs/metadata_readahead.h. Part of the file layer:
// it opens the files it reads (read-only; each closed when its read
// completes), asks the fault injector about every read it submits, and
// counts them. The reads are buffered: their bytes go through the page
// cache exactly as a pread's would.
//
// Not thread-safe: one thread submits and reaps (the read-ahead's I/O
// thread).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "kudu/util/status.h"

namespace kudu {

// Reads submitted through io_uring by every UringFileReader of the process
// (not system calls: a batch of them costs one io_uring_enter).
uint64_t GlobalUringReads();

class UringFileReader {
 public:
  // True when the build has liburing and the kernel lets this process set
  // up a ring (io_uring can be switched off by the kernel.io_uring_disabled
  // sysctl or a seccomp filter). Probed once.
  static bool Available();
  // A reader with room for `queue_depth` reads in flight.
  static Status Create(unsigned queue_depth, std::unique_ptr<UringFileReader>* out);
  // Waits for every read still in flight: the kernel writes into the
  // callers' buffers until then.
  ~UringFileReader();
  UringFileReader(const UringFileReader&) = delete;
  UringFileReader& operator=(const UringFileReader&) = delete;

  struct Completion {
    uint64_t tag = 0;
    int64_t result = 0;  // bytes read (may be short), or -errno
  };

  // Queues a read of up to `n` bytes at `offset` of `path` into `buf`
  // (which must stay valid until its completion); `tag` comes back with it.
  // Started at the next Flush or Wait. An error means nothing was queued
  // (the file cannot be opened, or the queue is full). A read the fault
  // injector fails completes with -EIO or 0 bytes without reaching the
  // kernel; a short-read fault asks the kernel for half.
  Status Submit(const std::string& path, uint64_t offset, uint8_t* buf, size_t n, uint64_t tag);
  // Hands the queued reads to the kernel.
  void Flush();
  // Waits for the next completion (flushing first). False when nothing is
  // queued or in flight.
  bool Wait(Completion* c);
  // The next completion if one is ready, without waiting.
  bool Poll(Completion* c);

  // Reads queued or in flight.
  size_t pending() const { return pending_; }
  unsigned capacity() const { return capacity_; }

 private:
  struct Impl;
  explicit UringFileReader(unsigned capacity);
  bool Reap(Completion* c, bool wait);

  const unsigned capacity_;
  std::unique_ptr<Impl> impl_;
  size_t pending_ = 0;
  // Completions decided without the kernel (injected faults).
  std::deque<Completion> synthetic_;
  // Per slot: the fd of the read in flight there (-1 when free) and its tag.
  std::vector<int> fds_;
  std::vector<uint64_t> tags_;
  std::vector<unsigned> free_slots_;
};

}  // namespace kudu
