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

// Memory for a large array that is written all over as soon as it is
// allocated: the block map's tables and large metadata read buffers.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace kudu {

// The transparent huge page size of x86-64 and of arm64 with 4 KiB pages.
constexpr size_t kHugePageBytes = 2 << 20;

// Returns `bytes` (> 0) of writable memory from the aligned operator new (so
// that the allocator's statistics and heap accounting see it like any
// allocation), every page present, its contents unspecified. Throws
// std::bad_alloc as operator new does. Free it with PageMemoryFree(), which
// gives its pages back to the kernel at once: an allocator would keep them
// for its next use, and with several replay threads each freeing a buffer
// and allocating one of another size, kept pages add up to far more than
// the threads hold at once.
//
// With --log_container_metadata_replay_huge_pages, and for 2 MiB or more,
// the memory is 2 MiB-aligned and advised for transparent huge pages
// (MADV_HUGEPAGE) before it is made present: one fault per 2 MiB instead of
// 512, and one TLB entry where 512 were, for arrays then written at random
// (the block map's inserts). Where the kernel has no transparent huge
// pages, or finds none free, the pages are small, as without the flag.
//
// `present` false: the pages are left to the writes that reach them (with
// huge pages, one fault per 2 MiB), for an array whose tail may never be
// written (a vector's spare capacity).
void* PageMemoryAllocate(size_t bytes, bool present = true);
void PageMemoryFree(void* p, size_t bytes);
// Gives the kernel back every whole 2 MiB-aligned stretch inside
// [p, p + bytes) of page memory whose contents are dead, at once, while
// the array stays allocated (it is freed as usual later). Only whole huge
// pages: giving back part of one frees nothing until the kernel splits it.
void PageMemoryRelease(void* p, size_t bytes);
// Gives the kernel back the pages of page memory `p` of `bytes` (as
// allocated) from the end of the huge page its first `keep` bytes end in:
// its whole huge pages and the small pages of its last partial 2 MiB.
void PageMemoryReleaseTail(void* p, size_t bytes, size_t keep);
// Frees it to the allocator with its pages still present, for the next
// allocation there to use without faulting them in again: memory freed
// once, when its owner is done (not a buffer freed over and over).
void PageMemoryFreeKeepingPages(void* p);

// What to allocate for an array of `bytes` that is written all over: with
// huge pages (the flag above) and from 2 MiB, `bytes` rounded up to whole
// 2 MiB when that adds at most a quarter; otherwise `bytes`. Only whole
// 2 MiB can be a huge page: an array's last partial 2 MiB is small pages,
// each faulted in on its own, and in a virtual machine whose guest page
// tables are shadowed each first write to a small page traps to the host as
// well (10-19 us a page where measured, docs/benchmarks.md). The bound
// keeps the spare bytes a small share of the array.
size_t PageMemoryWholeHugePages(size_t bytes);

// Whether page memory is advised for huge pages (the flag above).
bool PageMemoryHugePages();

// A std::allocator for vectors that grow large and are then read and
// written at random: page memory (not made present) from kHugePageBytes,
// the default allocator below.
template <typename T>
struct PageMemoryAllocator {
  using value_type = T;
  PageMemoryAllocator() = default;
  template <typename U>
  PageMemoryAllocator(const PageMemoryAllocator<U>&) {}  // NOLINT: rebinding converts implicitly
  T* allocate(size_t n) {
    if (n * sizeof(T) >= kHugePageBytes) {
      return static_cast<T*>(PageMemoryAllocate(n * sizeof(T), /*present=*/false));
    }
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, size_t n) {
    if (n * sizeof(T) >= kHugePageBytes) {
      PageMemoryFree(p, n * sizeof(T));
    } else {
      std::allocator<T>().deallocate(p, n);
    }
  }
  // A trivially constructible element is left as it is (default-initialised)
  // where a std::allocator would zero it: `resize` of an array written next
  // does not write it twice. Anything else is value-initialised as usual.
  template <typename U>
  void construct(U* p) {
    if constexpr (std::is_trivially_default_constructible<U>::value) {
      ::new (static_cast<void*>(p)) U;
    } else {
      ::new (static_cast<void*>(p)) U();
    }
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  friend bool operator==(const PageMemoryAllocator&, const PageMemoryAllocator&) { return true; }
  friend bool operator!=(const PageMemoryAllocator&, const PageMemoryAllocator&) { return false; }
};

}  // namespace kudu
