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

// The file layer's reads (RandomAccessFile in file.h) and the fault injector
// (io_fault_injector.h), on real files in a temporary directory. Writes are
// in writable_file_test.cc, the path functions in env_test.cc.
#include "kudu/util/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

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

// The kernel's own count of read system calls of this process
// (/proc/self/io "syscr"), for checking the layer's counters independently.
// Taking a sample costs exactly one read syscall, counted after the sample's
// value was produced.
uint64_t KernelReadSyscalls() {
  int fd = ::open("/proc/self/io", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[1024];
  ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  const char* p = std::strstr(buf, "syscr:");
  if (p == nullptr) return 0;
  return std::strtoull(p + 6, nullptr, 10);
}

bool KernelCountsAvailable() {
#if defined(__SANITIZE_THREAD__)
  return false;  // TSan's background thread reads files of its own
#endif
  uint64_t a = KernelReadSyscalls();
  uint64_t b = KernelReadSyscalls();
  return a != 0 && b == a + 1;
}

// ---------------------------------------------------------------------------
// RandomAccessFile

TEST_F(FileTest, OpenReportsSizeAndCostsNoRead) {
  std::string data = RandomBytes(10000, 1);
  std::string path = MakeFile("a.dat", data);
  uint64_t global_before = GlobalReadSyscalls();
  auto f = OpenOrDie(path);
  ASSERT_TRUE(f);
  EXPECT_EQ(10000u, f->size());
  EXPECT_EQ(path, f->filename());
  EXPECT_FALSE(f->encrypted());
  EXPECT_EQ(nullptr, f->cipher());
  EXPECT_EQ(0u, f->encryption_header_size());
  EXPECT_EQ(0u, f->stats().read_syscalls);
  EXPECT_EQ(0u, f->stats().bytes_read);
  EXPECT_EQ(global_before, GlobalReadSyscalls());
  EXPECT_GE(f->fd(), 0);
}

TEST_F(FileTest, OpenMissingFileIsNotFoundNamingThePath) {
  std::unique_ptr<RandomAccessFile> f;
  std::string path = dir_.Join("no-such-file");
  Status s = RandomAccessFile::Open(path, nullptr, &f);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
  EXPECT_EQ(ENOENT, s.posix_code());
  EXPECT_FALSE(f);
}

// OpenAt finds the file by its name in the directory it is given, not by
// the path: a directory open before its path changed still serves it, and
// the file keeps the path it was asked for as its name.
TEST_F(FileTest, OpenAtFindsTheNameInTheGivenDirectory) {
  ASSERT_OK(env::CreateDirs(dir_.Join("held")));
  const std::string data = RandomBytes(5000, 3);
  const std::string path = dir_.Join("held/a.metadata");
  ASSERT_EQ(path, MakeFile("held/a.metadata", data));
  env::OpenDirs dirs;
  ASSERT_OK(dirs.Add(dir_.Join("held")));
  ASSERT_OK(env::RenameFile(dir_.Join("held"), dir_.Join("moved")));
  std::unique_ptr<RandomAccessFile> f;
  ASSERT_OK(RandomAccessFile::OpenAt(dirs.fds()[0], path, nullptr, &f));
  EXPECT_EQ(5000u, f->size());
  EXPECT_EQ(path, f->filename());
  std::string got(5000, '\0');
  ASSERT_OK(f->Read(0, reinterpret_cast<uint8_t*>(&got[0]), got.size()));
  EXPECT_EQ(data, got);
  // By its whole path the file is gone; AT_FDCWD means the whole path.
  Status s = RandomAccessFile::OpenAt(AT_FDCWD, path, nullptr, &f);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  // A name the directory does not hold: NotFound naming the whole path.
  const std::string missing = dir_.Join("held/b.metadata");
  s = RandomAccessFile::OpenAt(dirs.fds()[0], missing, nullptr, &f);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), missing)) << s.ToString();
}

// Whether `fd` is an open descriptor of this process.
bool IsOpen(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

TEST_F(FileTest, OpenDescriptorAtHoldsARegularFileForLaterReads) {
  ASSERT_OK(env::CreateDirs(dir_.Join("held")));
  const std::string data = RandomBytes(3000, 8);
  const std::string path = MakeFile("held/a.metadata", data);
  env::OpenDirs dirs;
  ASSERT_OK(dirs.Add(dir_.Join("held")));
  int fd = -1;
  struct stat st;
  ASSERT_OK(RandomAccessFile::OpenDescriptorAt(dirs.fds()[0], "a.metadata", path, &fd, &st));
  const uint64_t size = st.st_size;
  EXPECT_EQ(3000u, size);
  // Read later, after the name is gone: the descriptor is the file.
  ASSERT_OK(env::DeleteFile(path));
  std::unique_ptr<RandomAccessFile> f;
  ASSERT_OK(RandomAccessFile::FromOpenFd(fd, path, size, nullptr, &f));
  EXPECT_EQ(path, f->filename());
  EXPECT_EQ(3000u, f->size());
  std::string got(3000, '\0');
  ASSERT_OK(f->Read(0, reinterpret_cast<uint8_t*>(&got[0]), got.size()));
  EXPECT_EQ(data, got);
  f.reset();
  EXPECT_FALSE(IsOpen(fd));  // closed with the file
}

TEST_F(FileTest, OpenDescriptorAtRefusesWhatIsNotARegularFileWithoutBlocking) {
  const int dir = AT_FDCWD;
  int fd = -1;
  struct stat st;
  // A FIFO would block an open without O_NONBLOCK; a directory opens but is
  // no file to read; neither leaves a descriptor behind.
  const std::string fifo = dir_.Join("f.metadata");
  ASSERT_EQ(0, ::mkfifo(fifo.c_str(), 0644));
  Status s = RandomAccessFile::OpenDescriptorAt(dir, fifo.c_str(), fifo, &fd, &st);
  EXPECT_TRUE(s.IsIllegalState()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), fifo)) << s.ToString();
  ASSERT_OK(env::CreateDirs(dir_.Join("d.metadata")));
  s = RandomAccessFile::OpenDescriptorAt(dir, dir_.Join("d.metadata").c_str(),
                                         dir_.Join("d.metadata"), &fd, &st);
  EXPECT_TRUE(s.IsIllegalState()) << s.ToString();
  // A symlink, even to a regular file, is not followed: the caller stats
  // the name instead, which says what the link is.
  const std::string target = MakeFile("t", "bytes");
  const std::string link = dir_.Join("l.metadata");
  ASSERT_EQ(0, ::symlink(target.c_str(), link.c_str()));
  s = RandomAccessFile::OpenDescriptorAt(dir, link.c_str(), link, &fd, &st);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(ELOOP, s.posix_code()) << s.ToString();
  const std::string missing = dir_.Join("m.metadata");
  s = RandomAccessFile::OpenDescriptorAt(dir, missing.c_str(), missing, &fd, &st);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), missing)) << s.ToString();
}

TEST_F(FileTest, ReadReturnsTheBytesAtEveryOffset) {
  std::string data = RandomBytes(5000, 2);
  std::string path = MakeFile("a.dat", data);
  auto f = OpenOrDie(path);
  for (uint64_t off : {0, 1, 7, 100, 4095, 4096, 4999}) {
    for (size_t n : {1, 2, 13, 1000}) {
      if (off + n > data.size()) continue;
      std::vector<uint8_t> buf(n, 0xAA);
      ASSERT_OK(f->Read(off, buf.data(), n));
      EXPECT_EQ(0, std::memcmp(buf.data(), data.data() + off, n)) << off << "+" << n;
      std::vector<uint8_t> raw(n, 0xAA);
      ASSERT_OK(f->ReadRaw(off, raw.data(), n));
      EXPECT_EQ(buf, raw);
    }
  }
  // The whole file, and the very last byte.
  std::vector<uint8_t> all(data.size());
  ASSERT_OK(f->Read(0, all.data(), all.size()));
  EXPECT_EQ(0, std::memcmp(all.data(), data.data(), data.size()));
  uint8_t last = 0;
  ASSERT_OK(f->Read(data.size() - 1, &last, 1));
  EXPECT_EQ(static_cast<uint8_t>(data.back()), last);
}

TEST_F(FileTest, StatsCountOneSyscallPerReadAndTheBytes) {
  std::string data = RandomBytes(3 * 1024 * 1024 + 17, 3);
  std::string path = MakeFile("a.dat", data);
  auto f = OpenOrDie(path);
  std::vector<uint8_t> buf(data.size());
  uint64_t global_calls = GlobalReadSyscalls();
  uint64_t global_bytes = GlobalBytesRead();

  ASSERT_OK(f->Read(0, buf.data(), 8));
  EXPECT_EQ(1u, f->stats().read_syscalls);
  EXPECT_EQ(8u, f->stats().bytes_read);
  ASSERT_OK(f->Read(8, buf.data(), 100));
  EXPECT_EQ(2u, f->stats().read_syscalls);
  EXPECT_EQ(108u, f->stats().bytes_read);
  ASSERT_OK(f->ReadRaw(0, buf.data(), 12));
  EXPECT_EQ(3u, f->stats().read_syscalls);
  EXPECT_EQ(120u, f->stats().bytes_read);
  // A large read is still one pread.
  ASSERT_OK(f->Read(0, buf.data(), data.size()));
  EXPECT_EQ(4u, f->stats().read_syscalls);
  EXPECT_EQ(120u + data.size(), f->stats().bytes_read);
  // A zero-length read issues nothing.
  ASSERT_OK(f->Read(5, buf.data(), 0));
  EXPECT_EQ(4u, f->stats().read_syscalls);
  EXPECT_EQ(120u + data.size(), f->stats().bytes_read);
  // Writes are not reads.
  EXPECT_EQ(0u, f->stats().write_syscalls);

  EXPECT_EQ(global_calls + 4, GlobalReadSyscalls());
  EXPECT_EQ(global_bytes + 120u + data.size(), GlobalBytesRead());

  // Another file has its own counters.
  auto g = OpenOrDie(path);
  EXPECT_EQ(0u, g->stats().read_syscalls);
  ASSERT_OK(g->Read(0, buf.data(), 1));
  EXPECT_EQ(1u, g->stats().read_syscalls);
  EXPECT_EQ(4u, f->stats().read_syscalls);
}

TEST_F(FileTest, StatsAgreeWithTheKernelsCount) {
  if (!KernelCountsAvailable()) GTEST_SKIP() << "/proc/self/io not usable here";
  std::string data = RandomBytes(1 << 20, 4);
  std::string path = MakeFile("a.dat", data);
  auto f = OpenOrDie(path);
  std::vector<uint8_t> buf(data.size());

  uint64_t k0 = KernelReadSyscalls();
  uint64_t s0 = f->stats().read_syscalls;
  for (int i = 0; i < 50; i++) ASSERT_OK(f->Read(i * 8, buf.data(), 8));
  ASSERT_OK(f->Read(0, buf.data(), data.size()));
  ASSERT_OK(f->ReadRaw(3, buf.data(), 5));
  IoFaultInjector::Arm(IoOp::kRead, 1, IoFault::kShortRead);
  ASSERT_OK(f->Read(0, buf.data(), 4096));
  ASSERT_TRUE(IoFaultInjector::Fired());
  IoFaultInjector::Arm(IoOp::kRead, 1, IoFault::kShortRead);
  ASSERT_OK(f->ReadRaw(1000, buf.data(), 300));
  ASSERT_TRUE(IoFaultInjector::Fired());
  IoFaultInjector::Disarm();
  uint64_t k1 = KernelReadSyscalls();
  uint64_t layer = f->stats().read_syscalls - s0;
  EXPECT_EQ(50u + 1 + 1 + 2 + 2, layer);
  // k1 - k0 includes the one read of the first sample.
  EXPECT_EQ(layer, k1 - k0 - 1);
}

TEST_F(FileTest, ReadPastEndOfFileIsIOErrorNamingFileAndOffset) {
  std::string path = MakeFile("short.dat", RandomBytes(100, 5));
  auto f = OpenOrDie(path);
  std::vector<uint8_t> buf(200);

  // Entirely past the end.
  Status s = f->Read(150, buf.data(), 10);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "offset 150")) << s.ToString();

  // Starting inside, ending past the end: the first 10 bytes come, then EOF.
  s = f->Read(90, buf.data(), 20);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "offset 90")) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "after 10 bytes")) << s.ToString();

  // Exactly at the end.
  s = f->ReadRaw(100, buf.data(), 1);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "offset 100")) << s.ToString();

  // The last byte is still readable.
  ASSERT_OK(f->Read(99, buf.data(), 1));
}

// ---------------------------------------------------------------------------
// Fault injection on reads

TEST_F(FileTest, InjectedEioFailsTheNthReadOnceNamingTheFile) {
  std::string data = RandomBytes(1000, 7);
  std::string path = MakeFile("victim.dat", data);
  auto f = OpenOrDie(path);
  std::vector<uint8_t> buf(100);
  IoFaultInjector::Arm(IoOp::kRead, 3, IoFault::kEIO);
  ASSERT_OK(f->Read(0, buf.data(), 10));
  ASSERT_OK(f->Read(10, buf.data(), 10));
  EXPECT_FALSE(IoFaultInjector::Fired());
  Status s = f->Read(20, buf.data(), 10);
  EXPECT_TRUE(IoFaultInjector::Fired());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(EIO, s.posix_code());
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "offset 20")) << s.ToString();
  EXPECT_EQ(3u, IoFaultInjector::Count(IoOp::kRead));
  // Once only: the next reads succeed.
  ASSERT_OK(f->Read(20, buf.data(), 10));
  EXPECT_EQ(0, std::memcmp(buf.data(), data.data() + 20, 10));
  ASSERT_OK(f->Read(30, buf.data(), 10));
  EXPECT_EQ(5u, IoFaultInjector::Count(IoOp::kRead));
}

TEST_F(FileTest, InjectedEioOnReadRaw) {
  std::string path = MakeFile("victim.dat", RandomBytes(1000, 8));
  auto f = OpenOrDie(path);
  std::vector<uint8_t> a(10);
  IoFaultInjector::Arm(IoOp::kRead, 1, IoFault::kEIO);
  Status s = f->ReadRaw(7, a.data(), 10);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(EIO, s.posix_code());
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "offset 7")) << s.ToString();
}

TEST_F(FileTest, InjectedShortReadIsLoopedOver) {
  std::string data = RandomBytes(10000, 9);
  std::string path = MakeFile("a.dat", data);
  auto f = OpenOrDie(path);
  std::vector<uint8_t> buf(1000, 0);
  IoFaultInjector::Arm(IoOp::kRead, 1, IoFault::kShortRead);
  ASSERT_OK(f->Read(123, buf.data(), buf.size()));
  EXPECT_TRUE(IoFaultInjector::Fired());
  EXPECT_EQ(0, std::memcmp(buf.data(), data.data() + 123, buf.size()));
  EXPECT_EQ(2u, f->stats().read_syscalls);  // one extra
  EXPECT_EQ(1000u, f->stats().bytes_read);  // no byte counted twice

  // The second read of a later call.
  IoFaultInjector::Arm(IoOp::kRead, 2, IoFault::kShortRead);
  ASSERT_OK(f->Read(0, buf.data(), 10));
  ASSERT_OK(f->Read(500, buf.data(), 999));
  EXPECT_TRUE(IoFaultInjector::Fired());
  EXPECT_EQ(0, std::memcmp(buf.data(), data.data() + 500, 999));
  EXPECT_EQ(5u, f->stats().read_syscalls);
  EXPECT_EQ(1000u + 10 + 999, f->stats().bytes_read);
}

TEST_F(FileTest, InjectedUnexpectedEofIsAnError) {
  std::string path = MakeFile("a.dat", RandomBytes(1000, 11));
  auto f = OpenOrDie(path);
  std::vector<uint8_t> buf(100);
  IoFaultInjector::Arm(IoOp::kRead, 1, IoFault::kUnexpectedEof);
  Status s = f->Read(40, buf.data(), 100);
  EXPECT_TRUE(IoFaultInjector::Fired());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "offset 40")) << s.ToString();

  IoFaultInjector::Arm(IoOp::kRead, 1, IoFault::kUnexpectedEof);
  s = f->ReadRaw(40, buf.data(), 20);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
}

TEST_F(FileTest, PathSubstringLimitsWhichFilesAreCountedAndFailed) {
  std::string p1 = MakeFile("alpha.metadata", RandomBytes(100, 12));
  std::string p2 = MakeFile("beta.data", RandomBytes(100, 13));
  auto f1 = OpenOrDie(p1);
  auto f2 = OpenOrDie(p2);
  std::vector<uint8_t> buf(10);
  IoFaultInjector::Arm(IoOp::kRead, 2, IoFault::kEIO, ".metadata");
  ASSERT_OK(f2->Read(0, buf.data(), 10));
  ASSERT_OK(f2->Read(0, buf.data(), 10));
  ASSERT_OK(f2->Read(0, buf.data(), 10));
  EXPECT_EQ(0u, IoFaultInjector::Count(IoOp::kRead));
  ASSERT_OK(f1->Read(0, buf.data(), 10));
  EXPECT_EQ(1u, IoFaultInjector::Count(IoOp::kRead));
  ASSERT_OK(f2->Read(0, buf.data(), 10));
  EXPECT_FALSE(IoFaultInjector::Fired());
  Status s = f1->Read(0, buf.data(), 10);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), p1)) << s.ToString();
  EXPECT_TRUE(IoFaultInjector::Fired());
  EXPECT_EQ(2u, IoFaultInjector::Count(IoOp::kRead));
}

TEST_F(FileTest, FaultOnOtherOpDoesNotAffectReads) {
  std::string path = MakeFile("a.dat", RandomBytes(100, 14));
  auto f = OpenOrDie(path);
  std::vector<uint8_t> buf(10);
  IoFaultInjector::Arm(IoOp::kWrite, 1, IoFault::kEIO);
  for (int i = 0; i < 5; i++) ASSERT_OK(f->Read(0, buf.data(), 10));
  EXPECT_FALSE(IoFaultInjector::Fired());
  EXPECT_EQ(5u, IoFaultInjector::Count(IoOp::kRead));
  EXPECT_EQ(0u, IoFaultInjector::Count(IoOp::kWrite));
}

TEST_F(FileTest, DisarmStopsInjectionAndResetsCounts) {
  std::string path = MakeFile("a.dat", RandomBytes(100, 15));
  auto f = OpenOrDie(path);
  std::vector<uint8_t> buf(10);
  IoFaultInjector::Arm(IoOp::kRead, 2, IoFault::kEIO);
  ASSERT_OK(f->Read(0, buf.data(), 10));
  EXPECT_EQ(1u, IoFaultInjector::Count(IoOp::kRead));
  IoFaultInjector::Disarm();
  EXPECT_EQ(0u, IoFaultInjector::Count(IoOp::kRead));
  EXPECT_FALSE(IoFaultInjector::Fired());
  for (int i = 0; i < 3; i++) ASSERT_OK(f->Read(0, buf.data(), 10));
  // Still counted while disarmed.
  EXPECT_EQ(3u, IoFaultInjector::Count(IoOp::kRead));
  EXPECT_FALSE(IoFaultInjector::Fired());
  // Re-arming resets the counters.
  IoFaultInjector::Arm(IoOp::kRead, 1, IoFault::kEIO);
  EXPECT_EQ(0u, IoFaultInjector::Count(IoOp::kRead));
  EXPECT_FALSE(f->Read(0, buf.data(), 10).ok());
}

TEST_F(FileTest, IoOpNames) {
  EXPECT_STREQ("read", IoOpName(IoOp::kRead));
  EXPECT_STREQ("write", IoOpName(IoOp::kWrite));
  EXPECT_STREQ("fsync", IoOpName(IoOp::kSync));
  EXPECT_STREQ("rename", IoOpName(IoOp::kRename));
  EXPECT_STREQ("truncate", IoOpName(IoOp::kTruncate));
  EXPECT_STREQ("delete", IoOpName(IoOp::kDelete));
}

}  // namespace
}  // namespace kudu
