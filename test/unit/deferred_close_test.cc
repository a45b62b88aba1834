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
#include "kudu/util/deferred_close.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "kudu/util/file.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

bool IsOpen(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

class DeferredCloseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.Join("file");
    ASSERT_OK(test::WriteStringToFile(path_, "some bytes"));
    // Descriptors at known numbers, far above what the test process has
    // open, each a real file's.
    struct rlimit limit;
    ASSERT_EQ(0, ::getrlimit(RLIMIT_NOFILE, &limit));
    ASSERT_GE(limit.rlim_cur, 600u) << "the test places descriptors at 300-499";
  }

  // Opens the test file at descriptor number `n`, which must be free.
  int OpenAt(int n) {
    EXPECT_FALSE(IsOpen(n)) << n;
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    EXPECT_GE(fd, 0);
    const int placed = ::fcntl(fd, F_DUPFD_CLOEXEC, n);
    ::close(fd);
    EXPECT_EQ(n, placed) << "descriptor " << n << " was taken";
    return placed;
  }

  test::TempDir dir_;
  std::string path_;
};

TEST_F(DeferredCloseTest, ARunOfConsecutiveDescriptorsIsOneCall) {
  std::vector<int> fds;
  for (int n = 300; n < 364; n++) fds.push_back(OpenAt(n));
  std::vector<int> shuffled(fds.rbegin(), fds.rend());
  EXPECT_EQ(1u, CloseDescriptors(&shuffled));
  EXPECT_TRUE(shuffled.empty());
  for (int fd : fds) EXPECT_FALSE(IsOpen(fd)) << fd;
}

// A run closes the numbers handed over, never one between two runs.
TEST_F(DeferredCloseTest, ADescriptorBetweenRunsStaysOpen) {
  std::vector<int> handed = {OpenAt(300), OpenAt(301), OpenAt(303), OpenAt(305), OpenAt(306),
                             OpenAt(307)};
  const int between1 = OpenAt(302), between2 = OpenAt(304), above = OpenAt(308);
  std::vector<int> fds = handed;
  fds.push_back(-1);  // ignored
  // 300-301, 303 alone, 305-307.
  EXPECT_EQ(3u, CloseDescriptors(&fds));
  for (int fd : handed) EXPECT_FALSE(IsOpen(fd)) << fd;
  for (int fd : {between1, between2, above}) {
    EXPECT_TRUE(IsOpen(fd)) << fd;
    ::close(fd);
  }
}

TEST_F(DeferredCloseTest, ABatchIsClosedWhenItFills) {
  DeferredCloser closer(4);
  std::vector<int> fds;
  for (int n = 300; n < 307; n++) fds.push_back(OpenAt(n));
  for (int i = 0; i < 3; i++) closer.Close(fds[i]);
  for (int i = 0; i < 3; i++) EXPECT_TRUE(IsOpen(fds[i])) << "closed before its batch filled";
  closer.Close(fds[3]);
  for (int i = 0; i < 4; i++) EXPECT_FALSE(IsOpen(fds[i])) << fds[i];
  closer.Close(fds[4]);
  closer.Close(-1);
  closer.Flush();
  EXPECT_FALSE(IsOpen(fds[4]));
  {
    DeferredCloser last(100);
    last.Close(fds[5]);
    last.Close(fds[6]);
    EXPECT_TRUE(IsOpen(fds[5]));
  }
  EXPECT_FALSE(IsOpen(fds[5])) << "the closer's end closes what it holds";
  EXPECT_FALSE(IsOpen(fds[6]));
}

TEST_F(DeferredCloseTest, AFileHandsItsDescriptorToItsCloser) {
  DeferredCloser closer(100);
  int fd;
  {
    std::unique_ptr<RandomAccessFile> file;
    ASSERT_OK(RandomAccessFile::Open(path_, nullptr, &file));
    fd = file->fd();
    file->CloseWith(&closer);
  }
  EXPECT_TRUE(IsOpen(fd)) << "closed with the file, not by its closer";
  closer.Flush();
  EXPECT_FALSE(IsOpen(fd));
}

// A number closed with one batch may be a new file's by the next: the
// next batch must not close it again.
TEST_F(DeferredCloseTest, AClosedBatchIsNotClosedAgain) {
  DeferredCloser closer(2);
  closer.Close(OpenAt(300));
  closer.Close(OpenAt(301));
  const int reused = OpenAt(300);
  closer.Close(OpenAt(302));
  closer.Close(OpenAt(303));
  closer.Flush();
  EXPECT_TRUE(IsOpen(reused)) << "closed again with a later batch";
  ::close(reused);
}

// Threads hand over descriptors at once (CI runs this under TSan): every
// one is closed.
TEST_F(DeferredCloseTest, ThreadsHandingOverAtOnceLoseNone) {
  constexpr int kThreads = 4, kPerThread = 50;
  std::vector<int> fds;
  for (int n = 300; n < 300 + kThreads * kPerThread; n++) fds.push_back(OpenAt(n));
  {
    DeferredCloser closer(16);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
      threads.emplace_back([&closer, &fds, t] {
        for (int i = t; i < kThreads * kPerThread; i += kThreads) closer.Close(fds[i]);
      });
    }
    for (std::thread& t : threads) t.join();
  }
  for (int fd : fds) EXPECT_FALSE(IsOpen(fd)) << fd;
}

}  // namespace
}  // namespace kudu
