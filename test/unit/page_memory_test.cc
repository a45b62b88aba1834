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
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

DECLARE_bool(log_container_metadata_replay_huge_pages);

namespace kudu {
namespace {

size_t PageSize() { return static_cast<size_t>(::sysconf(_SC_PAGESIZE)); }

// Whether every page of [p, p + n) is resident (mincore).
bool AllResident(void* p, size_t n) {
  std::vector<unsigned char> v((n + PageSize() - 1) / PageSize());
  if (::mincore(p, n, v.data()) != 0) return false;
  for (unsigned char c : v) {
    if ((c & 1) == 0) return false;
  }
  return true;
}

// The VmFlags line of the mapping of /proc/self/smaps that holds `p`.
std::string VmFlagsAt(const void* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool in = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {
      in = begin <= a && a < end;
    } else if (in && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

bool TransparentHugePagesOn() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string s;
  std::getline(f, s);
  return s.find("[never]") == std::string::npos && !s.empty();
}

class PageMemoryTest : public ::testing::Test {
 protected:
  // glibc's malloc maps a large allocation on its own and unmaps it when it
  // is freed, which would hide what PageMemoryFree() leaves behind: here it
  // comes from the heap, which keeps freed memory mapped for reuse, as the
  // server's allocator does (a no-op under other allocators).
  static void SetUpTestSuite() {
    ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
    ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
  }
  void TearDown() override { FLAGS_log_container_metadata_replay_huge_pages = saved_; }
  const bool saved_ = FLAGS_log_container_metadata_replay_huge_pages;
};

// An array ends on a whole huge page where that adds at most a quarter of
// its bytes, and only with the flag: the rounding's table.
TEST_F(PageMemoryTest, WholeHugePagesWhereTheyCostAtMostAQuarter) {
  constexpr size_t kMiB = 1 << 20;
  struct Case {
    size_t bytes;
    size_t with_flag;
  };
  const Case cases[] = {
      {1, 1},
      {kHugePageBytes - 1, kHugePageBytes - 1},     // small pages only
      {kHugePageBytes, kHugePageBytes},             // whole already
      {kHugePageBytes + 1, kHugePageBytes + 1},     // would almost double
      {3 * kMiB, 3 * kMiB},                         // a third more: kept as it is
      {3 * kMiB + kMiB / 8, 3 * kMiB + kMiB / 8},   // 28 % more: kept
      {3 * kMiB + kMiB / 4, 4 * kMiB},              // 23 % more: rounded
      {5 * kMiB, 6 * kMiB},                         // a fifth
      {7 * kMiB, 8 * kMiB},
      {10 * kMiB + 1, 12 * kMiB},
      {100 * kMiB + 1, 102 * kMiB},
  };
  for (const Case& c : cases) {
    FLAGS_log_container_metadata_replay_huge_pages = true;
    EXPECT_EQ(c.with_flag, PageMemoryWholeHugePages(c.bytes)) << c.bytes;
    FLAGS_log_container_metadata_replay_huge_pages = false;
    EXPECT_EQ(c.bytes, PageMemoryWholeHugePages(c.bytes)) << c.bytes;
  }
}

// Present from the start, writable, aligned for huge pages, of every size
// the open asks for (below a huge page, whole ones, and a ragged tail).
TEST_F(PageMemoryTest, PresentWritableAndAligned) {
  for (bool huge : {true, false}) {
    FLAGS_log_container_metadata_replay_huge_pages = huge;
    for (size_t n : {size_t{4096}, size_t{100000}, kHugePageBytes, 3 * kHugePageBytes + 12345}) {
      void* p = PageMemoryAllocate(n);
      ASSERT_NE(nullptr, p);
      EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(p) % kHugePageBytes) << n;
      // Whole pages only: mincore of a ragged end rounds up into whatever
      // the allocator keeps beside the array.
      EXPECT_TRUE(AllResident(p, n / PageSize() * PageSize())) << "huge " << huge << ", " << n;
      std::memset(p, 0xab, n);
      EXPECT_EQ(0xab, static_cast<uint8_t*>(p)[n - 1]);
      PageMemoryFree(p, n);
    }
  }
}

// The advice for huge pages is given for the whole 2 MiB of an array with
// the flag, never without it, and taken back when the array is freed (the
// allocator hands the range out again).
TEST_F(PageMemoryTest, HugePageAdviceFollowsTheFlag) {
  if (!TransparentHugePagesOn()) GTEST_SKIP() << "no transparent huge pages here";
  const size_t n = 4 * kHugePageBytes;
  FLAGS_log_container_metadata_replay_huge_pages = true;
  void* p = PageMemoryAllocate(n);
  const std::string advised = VmFlagsAt(p);
  PageMemoryFree(p, n);
  ASSERT_NE("", advised) << "no mapping in /proc/self/smaps";
  EXPECT_NE(std::string::npos, advised.find(" hg")) << advised;
  const std::string freed = VmFlagsAt(p);  // "" where the allocator unmapped it
  EXPECT_EQ(std::string::npos, freed.find(" hg")) << freed;

  FLAGS_log_container_metadata_replay_huge_pages = false;
  p = PageMemoryAllocate(n);
  const std::string plain = VmFlagsAt(p);
  PageMemoryFree(p, n);
  EXPECT_EQ(std::string::npos, plain.find(" hg")) << plain;
}

// Freed, its pages go back to the kernel, huge ones included.
TEST_F(PageMemoryTest, FreedPagesAreNotResident) {
  for (bool huge : {true, false}) {
    FLAGS_log_container_metadata_replay_huge_pages = huge;
    const size_t n = 4 * kHugePageBytes;
    void* p = PageMemoryAllocate(n);
    std::memset(p, 1, n);
    PageMemoryFree(p, n);
    std::vector<unsigned char> v(n / PageSize());
    // Unmapped by the allocator: nothing of it can be resident.
    if (::mincore(p, n, v.data()) != 0 && errno == ENOMEM) continue;
    size_t resident = 0;
    for (unsigned char c : v) resident += c & 1;
    // The allocator may write its bookkeeping into the first bytes of the
    // block it got back (glibc's free list, ASan's quarantine): a page or
    // two, of the 2,048 that were written.
    EXPECT_LE(resident, 2u) << "huge " << huge;
  }
}

// Vectors grow into page memory at kHugePageBytes, which is left to the
// writes that reach it: spare capacity costs no resident memory.
TEST_F(PageMemoryTest, AllocatorForVectorsThatGrowLarge) {
  std::vector<uint64_t, PageMemoryAllocator<uint64_t>> v;
  for (uint64_t i = 0; i < (3 * kHugePageBytes) / sizeof(uint64_t); i++) {
    v.push_back(i * 3);
    if (v.size() == 100) {
      EXPECT_LT(v.capacity() * sizeof(uint64_t), kHugePageBytes);
    }
  }
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(v.data()) % kHugePageBytes);
  for (uint64_t i = 0; i < v.size(); i += 4099) ASSERT_EQ(i * 3, v[i]);

  PageMemoryAllocator<uint64_t> alloc;
  const size_t n = 4 * kHugePageBytes / sizeof(uint64_t);
  uint64_t* p = alloc.allocate(n);
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(p) % kHugePageBytes);
  std::vector<unsigned char> resident(4 * kHugePageBytes / PageSize());
  ASSERT_EQ(0, ::mincore(p, 4 * kHugePageBytes, resident.data()));
  size_t present = 0;
  for (unsigned char c : resident) present += c & 1;
  // Not made present: at most what the allocator had left resident where
  // it placed the array (a few pages of earlier, smaller allocations).
  EXPECT_LT(present, resident.size() / 4);
  p[n - 1] = 1;
  alloc.deallocate(p, n);
}

}  // namespace
}  // namespace kudu
