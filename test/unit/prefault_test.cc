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

#include "kudu/util/prefault.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

namespace kudu {
namespace {

// Fresh anonymous pages, unmapped at the end.
class Pages {
 public:
  explicit Pages(size_t count) : size_(count * PageSize()) {
    mem_ = static_cast<uint8_t*>(
        ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  }
  ~Pages() {
    if (mem_ != MAP_FAILED) ::munmap(mem_, size_);
  }
  bool ok() const { return mem_ != MAP_FAILED; }
  uint8_t* at(size_t page, size_t offset = 0) const { return mem_ + page * PageSize() + offset; }
  // Which pages are resident (mincore).
  std::vector<bool> Resident() const {
    std::vector<unsigned char> v(size_ / PageSize());
    EXPECT_EQ(0, ::mincore(mem_, size_, v.data()));
    std::vector<bool> out;
    for (unsigned char c : v) out.push_back((c & 1) != 0);
    return out;
  }
  static size_t PageSize() { return static_cast<size_t>(::sysconf(_SC_PAGESIZE)); }

 private:
  size_t size_;
  uint8_t* mem_;
};

// Both ways of prefaulting: the madvise (where the kernel has it) and the
// per-page writes it falls back to.
class PrefaultTest : public ::testing::TestWithParam<bool> {
 protected:
  void Prefault(void* p, size_t n) {
    if (GetParam()) {
      internal::TouchPages(p, n);
    } else {
      PrefaultForWrite(p, n);
    }
  }
};
INSTANTIATE_TEST_SUITE_P(Ways, PrefaultTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? "TouchPages" : "PrefaultForWrite";
                         });

TEST_P(PrefaultTest, MakesEveryPageOfTheRangePresentAndNoOther) {
  const size_t page = Pages::PageSize();
  struct Case {
    size_t first_page, first_offset, last_page, end_offset;  // end = at(last_page, end_offset)
  };
  // Page-aligned, unaligned at either end, inside one page, one byte.
  for (const Case& c : {Case{2, 0, 10, 0}, Case{2, 100, 10, 50}, Case{3, 7, 3, 9},
                        Case{4, page - 1, 5, 1}, Case{5, 0, 5, 1}, Case{1, 1, 13, page - 1}}) {
    Pages pages(16);
    ASSERT_TRUE(pages.ok());
    uint8_t* begin = pages.at(c.first_page, c.first_offset);
    uint8_t* end = pages.at(c.last_page, c.end_offset);
    Prefault(begin, static_cast<size_t>(end - begin));
    const std::vector<bool> resident = pages.Resident();
    const size_t last_touched = c.end_offset == 0 ? c.last_page - 1 : c.last_page;
    for (size_t p = 0; p < resident.size(); p++) {
      EXPECT_EQ(p >= c.first_page && p <= last_touched, resident[p])
          << "page " << p << " of range " << c.first_page << "+" << c.first_offset << " .. "
          << c.last_page << "+" << c.end_offset;
    }
  }
}

TEST_P(PrefaultTest, LeavesTheBytesAroundTheRangeAlone) {
  Pages pages(8);
  ASSERT_TRUE(pages.ok());
  // Neighbours on the range's partial first and last pages.
  *pages.at(1, 99) = 0xab;
  *pages.at(5, 50) = 0xcd;
  uint8_t* begin = pages.at(1, 100);
  Prefault(begin, static_cast<size_t>(pages.at(5, 50) - begin));
  EXPECT_EQ(0xab, *pages.at(1, 99));
  EXPECT_EQ(0xcd, *pages.at(5, 50));
  Prefault(begin, 0);  // nothing to do
  EXPECT_EQ(0xab, *pages.at(1, 99));
}

}  // namespace
}  // namespace kudu
