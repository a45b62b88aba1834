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

// The file layer's writes (WritableFile in file.h): create modes, appends and
// positioned writes, truncation, hole punching, and injected write, sync and
// truncate faults, on real files in a temporary directory.
#include "kudu/util/file.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "kudu/util/env.h"
#include "kudu/util/io_fault_injector.h"
#include "util/file_fixture.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using test::Contains;
using test::FileTest;
using test::RandomBytes;
using test::Slurp;

std::unique_ptr<WritableFile> OpenWritable(const std::string& path, CreateMode mode) {
  std::unique_ptr<WritableFile> f;
  Status s = WritableFile::Open(path, mode, WriteEncryption(), &f);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return f;
}

TEST_F(FileTest, WritableWriteAndAppend) {
  std::string path = dir_.Join("w.dat");
  auto f = OpenWritable(path, CreateMode::kCreateNew);
  ASSERT_TRUE(f);
  EXPECT_EQ(0u, f->size());
  EXPECT_EQ(0u, f->encryption_header_size());
  EXPECT_EQ(path, f->filename());
  ASSERT_OK(f->Append("hello"));
  EXPECT_EQ(5u, f->size());
  ASSERT_OK(f->Append(" world"));
  EXPECT_EQ(11u, f->size());
  // Overwrite in the middle: size unchanged.
  ASSERT_OK(f->Write(0, "J"));
  EXPECT_EQ(11u, f->size());
  // Write past the end leaves a hole of zeros.
  ASSERT_OK(f->Write(20, "!"));
  EXPECT_EQ(21u, f->size());
  EXPECT_EQ(4u, f->stats().write_syscalls);
  EXPECT_EQ(13u, f->stats().bytes_written);
  ASSERT_OK(f->Sync());
  ASSERT_OK(f->Close());
  ASSERT_OK(f->Close());  // idempotent
  EXPECT_EQ(std::string("Jello world") + std::string(9, '\0') + "!", Slurp(path));
  // Empty writes are fine.
  auto g = OpenWritable(path, CreateMode::kOpenExisting);
  ASSERT_OK(g->Append(Slice()));
  EXPECT_EQ(21u, g->size());
}

TEST_F(FileTest, WritableCreateModes) {
  std::string path = MakeFile("m.dat", "existing contents");
  std::unique_ptr<WritableFile> f;
  Status s = WritableFile::Open(path, CreateMode::kCreateNew, WriteEncryption(), &f);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(EEXIST, s.posix_code());
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();

  auto e = OpenWritable(path, CreateMode::kOpenExisting);
  EXPECT_EQ(17u, e->size());
  ASSERT_OK(e->Append("!"));
  e.reset();
  EXPECT_EQ("existing contents!", Slurp(path));

  auto t = OpenWritable(path, CreateMode::kTruncate);
  EXPECT_EQ(0u, t->size());
  t.reset();
  EXPECT_EQ("", Slurp(path));

  std::string missing = dir_.Join("missing.dat");
  s = WritableFile::Open(missing, CreateMode::kOpenExisting, WriteEncryption(), &f);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), missing));
  EXPECT_FALSE(env::FileExists(missing));

  auto n = OpenWritable(missing, CreateMode::kTruncate);
  EXPECT_TRUE(env::FileExists(missing));
}

TEST_F(FileTest, WritableTruncate) {
  std::string path = dir_.Join("t.dat");
  auto f = OpenWritable(path, CreateMode::kCreateNew);
  ASSERT_OK(f->Append(RandomBytes(1000, 16)));
  ASSERT_OK(f->Truncate(300));
  EXPECT_EQ(300u, f->size());
  EXPECT_EQ(300u, test::FileSizeOrDie(path));
  // Appends go to the new end.
  ASSERT_OK(f->Append("xyz"));
  EXPECT_EQ(303u, test::FileSizeOrDie(path));
  EXPECT_EQ("xyz", Slurp(path).substr(300));
  // Growing truncate.
  ASSERT_OK(f->Truncate(5000));
  EXPECT_EQ(5000u, f->size());
  EXPECT_EQ(5000u, test::FileSizeOrDie(path));
  EXPECT_EQ(std::string(5000 - 303, '\0'), Slurp(path).substr(303));
}

TEST_F(FileTest, WritablePunchHole) {
  std::string path = dir_.Join("p.dat");
  auto f = OpenWritable(path, CreateMode::kCreateNew);
  std::string data = RandomBytes(4 * 4096, 17);
  for (char& c : data) c |= 1;  // no zero byte anywhere
  ASSERT_OK(f->Append(data));
  ASSERT_OK(f->PunchHole(4096, 8192));
  ASSERT_OK(f->PunchHole(0, 0));  // no-op
  EXPECT_EQ(data.size(), f->size());
  ASSERT_OK(f->Sync());
  std::string got = Slurp(path);
  ASSERT_EQ(data.size(), got.size());
  EXPECT_EQ(data.substr(0, 4096), got.substr(0, 4096));
  EXPECT_EQ(data.substr(3 * 4096), got.substr(3 * 4096));
  struct stat st;
  ASSERT_EQ(0, ::stat(path.c_str(), &st));
  if (got.substr(4096, 8192) != std::string(8192, '\0')) {
    GTEST_SKIP() << "filesystem of " << path << " does not punch holes";
  }
  // The punched range frees space: fewer than 4 blocks are allocated.
  EXPECT_LT(static_cast<uint64_t>(st.st_blocks) * 512, data.size());
}

TEST_F(FileTest, InjectedWriteSyncTruncateFaults) {
  std::string path = dir_.Join("faulty.dat");
  auto f = OpenWritable(path, CreateMode::kCreateNew);
  ASSERT_OK(f->Append("0123456789"));

  IoFaultInjector::Arm(IoOp::kWrite, 2, IoFault::kEIO);
  ASSERT_OK(f->Append("abc"));
  Status s = f->Append("def");
  EXPECT_TRUE(IoFaultInjector::Fired());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(EIO, s.posix_code());
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "offset 13")) << s.ToString();
  EXPECT_EQ(13u, f->size());  // the failed write did not move the end
  ASSERT_OK(f->Append("ghi"));
  EXPECT_EQ("0123456789abcghi", Slurp(path));

  IoFaultInjector::Arm(IoOp::kSync, 1, IoFault::kEIO);
  s = f->Sync();
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(EIO, s.posix_code());
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
  ASSERT_OK(f->Sync());

  IoFaultInjector::Arm(IoOp::kTruncate, 1, IoFault::kEIO);
  s = f->Truncate(4);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
  EXPECT_EQ(16u, f->size());
  EXPECT_EQ(16u, test::FileSizeOrDie(path));
  ASSERT_OK(f->Truncate(4));
  EXPECT_EQ(4u, test::FileSizeOrDie(path));

  // Path filtering on writes.
  std::string other = dir_.Join("other.dat");
  auto g = OpenWritable(other, CreateMode::kCreateNew);
  IoFaultInjector::Arm(IoOp::kWrite, 1, IoFault::kEIO, "faulty");
  ASSERT_OK(g->Append("fine"));
  EXPECT_FALSE(f->Append("x").ok());
  EXPECT_EQ(1u, IoFaultInjector::Count(IoOp::kWrite));
}
}  // namespace
}  // namespace kudu
