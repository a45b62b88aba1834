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


// Many small arrays that live as long as their owner, carved from one
// region of page memory. In a fresh process every small page an array
// touches first is a page fault, and in a virtual machine whose guest page
// tables are shadowed each one traps to the host as well (10-13 us a page
// where measured, docs/benchmarks.md): the block map's 32 shard tables of a
// few hundred KiB each are thousands of such faults. One region advised for
// huge pages takes one fault per 2 MiB instead.
#pragma once

#include <atomic>
#include <cstddef>

namespace kudu {

class PageArena {
 public:
  // Reserves `capacity` bytes (rounded up to whole 2 MiB) of page memory,
  // none of it present: a page is faulted in by the first write to it, with
  // huge pages (--log_container_metadata_replay_huge_pages) 2 MiB at a
  // time, so an arena sized for the most its owner may take costs only
  // what is written.
  explicit PageArena(size_t capacity);
  ~PageArena();
  PageArena(const PageArena&) = delete;
  PageArena& operator=(const PageArena&) = delete;

  // `bytes` of the rest, 64-byte aligned, never given again; nullptr when
  // too little is left (the caller allocates elsewhere). Thread-safe.
  // Nothing is freed before the arena.
  void* Allocate(size_t bytes);
  // Gives the kernel back the pages that lie wholly inside a piece its
  // owner no longer uses (`p` and `bytes` as Allocate gave them): a table
  // that outgrew its first arrays would otherwise hold them beside their
  // successors until the arena goes. The range is not handed out again;
  // only its memory goes (a huge page under it is split). Thread-safe.
  void Release(void* p, size_t bytes);

  size_t capacity() const { return capacity_; }
  // Bytes handed out so far (alignment included).
  size_t used() const { return used_.load(std::memory_order_relaxed); }

 private:
  char* base_;
  size_t capacity_;
  std::atomic<size_t> used_{0};
};

}  // namespace kudu
