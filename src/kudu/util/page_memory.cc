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

#include "kudu/util/page_memory.h"

#include <gflags/gflags.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <new>

#include "kudu/util/prefault.h"

DEFINE_bool(log_container_metadata_replay_huge_pages, true,
            "Back the memory an open writes all over as soon as it allocates it (the block "
            "map's tables and metadata read buffers, from 2 MiB) with transparent huge pages "
            "(madvise MADV_HUGEPAGE) where the kernel has them: one page fault per 2 MiB "
            "instead of 512, and far fewer TLB misses for the block map's inserts. Turn it off "
            "where the kernel's compaction for huge pages would stall (memory fragmented, "
            "/sys/kernel/mm/transparent_hugepage/defrag set to madvise or always).");

namespace kudu {

namespace {
constexpr std::align_val_t kAlignment{kHugePageBytes};
}  // namespace

void* PageMemoryAllocate(size_t bytes, bool present) {
  void* p = ::operator new(bytes, kAlignment);
  if (FLAGS_log_container_metadata_replay_huge_pages && bytes >= kHugePageBytes) {
    // Only whole 2 MiB can be huge pages; the advice is refused (EINVAL)
    // where the kernel has none, and the pages are then small.
    ::madvise(p, bytes / kHugePageBytes * kHugePageBytes, MADV_HUGEPAGE);
  }
  if (present) PrefaultForWrite(p, bytes);
  return p;
}

size_t PageMemoryWholeHugePages(size_t bytes) {
  if (!FLAGS_log_container_metadata_replay_huge_pages || bytes < kHugePageBytes) return bytes;
  const size_t whole = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  return whole - bytes <= bytes / 4 ? whole : bytes;
}

void PageMemoryFreeKeepingPages(void* p) {
  if (p != nullptr) ::operator delete(p, kAlignment);
}

bool PageMemoryHugePages() { return FLAGS_log_container_metadata_replay_huge_pages; }

void PageMemoryRelease(void* p, size_t bytes) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p);
  const uintptr_t first = (begin + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const uintptr_t end = (begin + bytes) / kHugePageBytes * kHugePageBytes;
  if (end > first) ::madvise(reinterpret_cast<void*>(first), end - first, MADV_DONTNEED);
}

void PageMemoryReleaseTail(void* p, size_t bytes, size_t keep) {
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p);
  const uintptr_t from = (begin + keep + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  // Not past the array's last whole page: what follows may be another's.
  const uintptr_t end = (begin + bytes) / page * page;
  if (end > from) ::madvise(reinterpret_cast<void*>(from), end - from, MADV_DONTNEED);
}

void PageMemoryFree(void* p, size_t bytes) {
  if (p == nullptr) return;
  // Only whole pages inside the array: the allocator's own bookkeeping is
  // outside it. Its contents are dead.
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p);
  const uintptr_t end = (begin + bytes) / page * page;
  if (end > begin) ::madvise(p, end - begin, MADV_DONTNEED);
  // The advice stays with the address range, which the allocator hands out
  // again: a smaller array there would get a huge page past its end, and
  // giving back part of a huge page frees nothing until the kernel splits
  // it under memory pressure.
  if (bytes >= kHugePageBytes) {
    ::madvise(p, bytes / kHugePageBytes * kHugePageBytes, MADV_NOHUGEPAGE);
  }
  ::operator delete(p, kAlignment);
}

}  // namespace kudu
