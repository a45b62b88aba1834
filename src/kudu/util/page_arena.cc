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


#include "kudu/util/page_arena.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#include "kudu/util/page_memory.h"

namespace kudu {

namespace {
constexpr size_t kArenaAlignment = 64;  // a cache line: a table's run of keys is one
}  // namespace

PageArena::PageArena(size_t capacity)
    : capacity_((capacity + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes) {
  if (capacity_ == 0) capacity_ = kHugePageBytes;
  base_ = static_cast<char*>(PageMemoryAllocate(capacity_, /*present=*/false));
}

// The owner's successor (the next open in a process that opens again) takes
// the same memory back from the allocator: given back to the kernel, every
// page of it, or of whatever else the allocator put there, would be faulted
// in again.
PageArena::~PageArena() { PageMemoryFreeKeepingPages(base_); }

void* PageArena::Allocate(size_t bytes) {
  const size_t want = (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
  size_t used = used_.load(std::memory_order_relaxed);
  do {
    // A request that does not fit takes nothing: a smaller one may still.
    if (want > capacity_ - used) return nullptr;
  } while (!used_.compare_exchange_weak(used, used + want, std::memory_order_relaxed));
  return base_ + used;
}

void PageArena::Release(void* p, size_t bytes) {
  // Inward to whole small pages: the neighbours' pieces may share the edges.
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) / page * page;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace kudu
