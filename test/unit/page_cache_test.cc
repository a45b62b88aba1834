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

// The bench's page cache probing and dropping (tools/page_cache.h), on real
// files. System-wide dropping (drop_caches) is left to the cold bench test:
// run here it would empty the cache of everything else on the machine.
#include "kudu/tools/page_cache.h"

#include <sys/vfs.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace tools {
namespace {

std::unique_ptr<RandomAccessFile> OpenOrDie(const std::string& path) {
  std::unique_ptr<RandomAccessFile> f;
  Status s = RandomAccessFile::Open(path, nullptr, &f);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return f;
}

TEST(PageCacheTest, ResidentBytesOfAFileJustReadAreItsSize) {
  test::TempDir dir;
  // Not a multiple of the page size: the last page counts only its bytes.
  const std::string data(3 * 4096 + 17, 'x');
  const std::string path = dir.Join("a.dat");
  ASSERT_OK(test::WriteStringToFile(path, data));
  auto f = OpenOrDie(path);
  std::vector<uint8_t> buf(data.size());
  ASSERT_OK(f->ReadRaw(0, buf.data(), buf.size()));
  const uint64_t reads = f->stats().read_syscalls;
  EXPECT_EQ(static_cast<int64_t>(data.size()), PageCacheResidentBytes(*f));
  // Probing is not a read.
  EXPECT_EQ(reads, f->stats().read_syscalls);

  const std::string empty = dir.Join("empty.dat");
  ASSERT_OK(test::WriteStringToFile(empty, ""));
  EXPECT_EQ(0, PageCacheResidentBytes(*OpenOrDie(empty)));
}

TEST(PageCacheTest, DroppedFileIsNotResidentAndReadsTheSameBytes) {
  test::TempDir dir;
  std::string data(64 * 4096, '\0');
  for (size_t i = 0; i < data.size(); i++) data[i] = static_cast<char>(i * 131 + 7);
  const std::string path = dir.Join("a.dat");
  ASSERT_OK(test::WriteStringToFile(path, data));
  ::sync();  // DONTNEED drops clean pages only
  // tmpfs pages are the file itself: nothing can drop them.
  struct statfs fs_info;
  constexpr long kTmpfsMagic = 0x01021994;
  if (::statfs(path.c_str(), &fs_info) == 0 && fs_info.f_type == kTmpfsMagic) {
    GTEST_SKIP() << dir.path() << " is on tmpfs: nothing to drop";
  }
  auto f = OpenOrDie(path);
  ASSERT_EQ(static_cast<int64_t>(data.size()), PageCacheResidentBytes(*f));
  DropFromPageCache(*f);
  const int64_t after = PageCacheResidentBytes(*f);
  ASSERT_GE(after, 0);
  EXPECT_LT(after, static_cast<int64_t>(data.size()));
  EXPECT_EQ(0u, f->stats().read_syscalls);
  std::string got(data.size(), '\0');
  ASSERT_OK(f->ReadRaw(0, reinterpret_cast<uint8_t*>(&got[0]), got.size()));
  EXPECT_EQ(data, got);
  EXPECT_EQ(static_cast<int64_t>(data.size()), PageCacheResidentBytes(*f));
}

}  // namespace
}  // namespace tools
}  // namespace kudu
