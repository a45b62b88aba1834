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

// The file layer (file.h), the path functions (env.h) and the fault injector
// (io_fault_injector.h), on real files in a temporary directory.
#include "kudu/util/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kudu/util/env.h"
#include "kudu/util/io_fault_injector.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using test::Contains;

using test::TempDir;


std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

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

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override { IoFaultInjector::Disarm(); }
  void TearDown() override { IoFaultInjector::Disarm(); }

  // Writes `contents` to a new file `name` in the temp dir (not through the
  // layer under test) and returns its path.
  std::string MakeFile(const std::string& name, const std::string& contents) {
    std::string path = dir_.Join(name);
    EXPECT_OK(test::WriteStringToFile(path, contents));
    return path;
  }

  std::unique_ptr<RandomAccessFile> OpenOrDie(const std::string& path) {
    std::unique_ptr<RandomAccessFile> f;
    Status s = RandomAccessFile::Open(path, nullptr, &f);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return f;
  }

  TempDir dir_;
};

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

// ---------------------------------------------------------------------------
// WritableFile

std::unique_ptr<WritableFile> OpenWritable(const std::string& path, CreateMode mode) {
  std::unique_ptr<WritableFile> f;
  Status s = WritableFile::Open(path, mode, WriteEncryption(), &f);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return f;
}

std::string Slurp(const std::string& path) {
  std::string s;
  EXPECT_OK(test::ReadFileToString(path, &s));
  return s;
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

// ---------------------------------------------------------------------------
// env

TEST_F(FileTest, EnvGetFileSizeAndExists) {
  std::string path = MakeFile("sz.dat", std::string(1234, 'x'));
  uint64_t size = 0;
  ASSERT_OK(env::GetFileSize(path, &size));
  EXPECT_EQ(1234u, size);
  EXPECT_TRUE(env::FileExists(path));
  std::string missing = dir_.Join("nope");
  Status s = env::GetFileSize(missing, &size);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), missing));
  EXPECT_FALSE(env::FileExists(missing));
  bool is_dir = true;
  ASSERT_OK(env::IsDirectory(path, &is_dir));
  EXPECT_FALSE(is_dir);
  ASSERT_OK(env::IsDirectory(dir_.path(), &is_dir));
  EXPECT_TRUE(is_dir);
  EXPECT_TRUE(env::IsDirectory(missing, &is_dir).IsNotFound());
}

TEST_F(FileTest, EnvListDir) {
  std::vector<std::string> names = {"x"};
  ASSERT_OK(env::ListDir(dir_.path(), &names));
  EXPECT_TRUE(names.empty());
  MakeFile("a", "1");
  MakeFile("b.metadata", "2");
  ASSERT_OK(env::CreateDirs(dir_.Join("sub")));
  ASSERT_OK(env::ListDir(dir_.path(), &names));
  std::sort(names.begin(), names.end());
  EXPECT_EQ((std::vector<std::string>{"a", "b.metadata", "sub"}), names);
  Status s = env::ListDir(dir_.Join("missing"), &names);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), dir_.Join("missing")));
}

TEST_F(FileTest, EnvRenameAndDelete) {
  std::string from = MakeFile("from", "payload");
  std::string to = dir_.Join("to");
  ASSERT_OK(env::RenameFile(from, to));
  EXPECT_FALSE(env::FileExists(from));
  EXPECT_EQ("payload", Slurp(to));
  // Rename over an existing file replaces it.
  std::string third = MakeFile("third", "new");
  ASSERT_OK(env::RenameFile(third, to));
  EXPECT_EQ("new", Slurp(to));
  Status s = env::RenameFile(dir_.Join("ghost"), to);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), dir_.Join("ghost")));

  ASSERT_OK(env::DeleteFile(to));
  EXPECT_FALSE(env::FileExists(to));
  s = env::DeleteFile(to);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), to));
}

TEST_F(FileTest, EnvInjectedRenameDeleteSyncTruncateFaults) {
  std::string a = MakeFile("a.metadata.tmp.123456", "A");
  std::string b = dir_.Join("a.metadata");
  IoFaultInjector::Arm(IoOp::kRename, 1, IoFault::kEIO);
  Status s = env::RenameFile(a, b);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(EIO, s.posix_code());
  EXPECT_TRUE(Contains(s.ToString(), a)) << s.ToString();
  EXPECT_TRUE(env::FileExists(a));
  EXPECT_FALSE(env::FileExists(b));
  ASSERT_OK(env::RenameFile(a, b));
  EXPECT_TRUE(env::FileExists(b));

  IoFaultInjector::Arm(IoOp::kDelete, 1, IoFault::kEIO);
  s = env::DeleteFile(b);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), b)) << s.ToString();
  EXPECT_TRUE(env::FileExists(b));

  IoFaultInjector::Arm(IoOp::kSync, 1, IoFault::kEIO);
  s = env::SyncDir(dir_.path());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), dir_.path())) << s.ToString();
  ASSERT_OK(env::SyncDir(dir_.path()));

  std::string c = MakeFile("c.dat", std::string(100, 'c'));
  IoFaultInjector::Arm(IoOp::kTruncate, 1, IoFault::kEIO);
  s = env::TruncateFile(c, 10);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), c)) << s.ToString();
  EXPECT_EQ(100u, test::FileSizeOrDie(c));
  ASSERT_OK(env::TruncateFile(c, 10));
  EXPECT_EQ(10u, test::FileSizeOrDie(c));

  // The N-th delete among several, filtered by path.
  std::vector<std::string> victims;
  for (int i = 0; i < 4; i++) victims.push_back(MakeFile("v" + std::to_string(i) + ".data", "v"));
  std::string bystander = MakeFile("keep.metadata", "k");
  IoFaultInjector::Arm(IoOp::kDelete, 3, IoFault::kEIO, ".data");
  ASSERT_OK(env::DeleteFile(bystander));
  ASSERT_OK(env::DeleteFile(victims[0]));
  ASSERT_OK(env::DeleteFile(victims[1]));
  s = env::DeleteFile(victims[2]);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), victims[2]));
  ASSERT_OK(env::DeleteFile(victims[3]));
  EXPECT_EQ(4u, IoFaultInjector::Count(IoOp::kDelete));
}

TEST_F(FileTest, EnvSyncDir) {
  ASSERT_OK(env::SyncDir(dir_.path()));
  Status s = env::SyncDir(dir_.Join("missing"));
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(Contains(s.ToString(), dir_.Join("missing")));
}

TEST_F(FileTest, EnvCreateDirs) {
  std::string deep = dir_.Join("a/b/c/d");
  ASSERT_OK(env::CreateDirs(deep));
  bool is_dir = false;
  ASSERT_OK(env::IsDirectory(deep, &is_dir));
  EXPECT_TRUE(is_dir);
  // Idempotent, and a trailing slash is fine.
  ASSERT_OK(env::CreateDirs(deep));
  ASSERT_OK(env::CreateDirs(dir_.Join("a/b/e/")));
  ASSERT_OK(env::IsDirectory(dir_.Join("a/b/e"), &is_dir));
  EXPECT_TRUE(is_dir);
  // A file in the way.
  std::string file = MakeFile("f", "x");
  Status s = env::CreateDirs(file);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), file));
  s = env::CreateDirs(env::JoinPath(file, "below"));
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(env::CreateDirs("").IsInvalidArgument());
}

TEST_F(FileTest, EnvCreateDirsRelative) {
  char cwd[4096];
  ASSERT_NE(nullptr, ::getcwd(cwd, sizeof(cwd)));
  ASSERT_EQ(0, ::chdir(dir_.path().c_str()));
  Status s = env::CreateDirs("rel/x");
  bool is_dir = false;
  Status s2 = env::IsDirectory(dir_.Join("rel/x"), &is_dir);
  ASSERT_EQ(0, ::chdir(cwd));
  ASSERT_OK(s);
  ASSERT_OK(s2);
  EXPECT_TRUE(is_dir);
}

TEST_F(FileTest, EnvMakeTempDirAndDeleteRecursively) {
  std::string a, b;
  ASSERT_OK(env::MakeTempDir("kudu-file-test", &a));
  ASSERT_OK(env::MakeTempDir("kudu-file-test", &b));
  EXPECT_NE(a, b);
  EXPECT_TRUE(Contains(env::BaseName(a), "kudu-file-test"));
  bool is_dir = false;
  ASSERT_OK(env::IsDirectory(a, &is_dir));
  EXPECT_TRUE(is_dir);
  std::vector<std::string> names;
  ASSERT_OK(env::ListDir(a, &names));
  EXPECT_TRUE(names.empty());
  EXPECT_TRUE(env::IsWritableDir(a));
  ASSERT_OK(env::CreateDirs(env::JoinPath(a, "x/y")));
  ASSERT_OK(test::WriteStringToFile(env::JoinPath(a, "x/y/f"), "data"));
  ASSERT_OK(env::DeleteRecursively(a));
  EXPECT_FALSE(env::FileExists(a));
  ASSERT_OK(env::DeleteRecursively(b));
  EXPECT_FALSE(env::FileExists(b));
  EXPECT_FALSE(env::DeleteRecursively(a).ok());
}

TEST_F(FileTest, EnvGetBlockSize) {
  uint64_t bs = 0;
  ASSERT_OK(env::GetBlockSize(dir_.path(), &bs));
  EXPECT_GE(bs, 512u);
  EXPECT_EQ(0u, bs & (bs - 1)) << bs;  // a power of two
  EXPECT_FALSE(env::GetBlockSize(dir_.Join("missing"), &bs).ok());
}

TEST_F(FileTest, EnvPathHelpers) {
  EXPECT_EQ("a/b", env::JoinPath("a", "b"));
  EXPECT_EQ("a/b", env::JoinPath("a/", "b"));
  EXPECT_EQ("b", env::JoinPath("", "b"));
  EXPECT_EQ("/x/y", env::DirName("/x/y/z"));
  EXPECT_EQ("/", env::DirName("/x"));
  EXPECT_EQ(".", env::DirName("x"));
  EXPECT_EQ("z", env::BaseName("/x/y/z"));
  EXPECT_EQ("z", env::BaseName("z"));
  EXPECT_EQ("", env::BaseName("/x/"));
}

}  // namespace
}  // namespace kudu
