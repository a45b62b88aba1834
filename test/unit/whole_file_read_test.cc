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

// Whole-file reads for the in-memory strategies (whole_file_read.h) and the
// file layer's O_DIRECT read under them: the same bytes whichever path is
// taken, the path chosen as documented, faults handled like any read.
#include "kudu/fs/whole_file_read.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "kudu/tools/page_cache.h"
#include "kudu/util/file.h"
#include "kudu/util/page_memory.h"
#include "kudu/util/io_fault_injector.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

using test::Contains;

// Whether `path`'s filesystem lets it be opened with O_DIRECT (tmpfs does
// not): what the direct path must fall back on.
bool DirectIoSupported(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

class WholeFileReadTest : public ::testing::Test {
 protected:
  void TearDown() override { IoFaultInjector::Disarm(); }

  std::string MakeFile(const std::string& name, const std::string& contents) {
    std::string path = dir_.Join(name);
    EXPECT_TRUE(test::WriteStringToFile(path, contents).ok());
    return path;
  }

  std::unique_ptr<RandomAccessFile> Open(const std::string& path) {
    std::unique_ptr<RandomAccessFile> f;
    Status s = RandomAccessFile::Open(path, nullptr, &f);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return f;
  }

  // Writes the file, flushes it and drops it from the page cache, as after
  // a reboot. False when the kernel kept it cached (then the cold cases
  // have nothing to test).
  bool MakeColdFile(const std::string& path, const std::string& contents) {
    std::unique_ptr<WritableFile> w;
    if (!WritableFile::Open(path, CreateMode::kTruncate, WriteEncryption(), &w).ok()) return false;
    if (!w->Append(Slice(contents)).ok() || !w->Sync().ok() || !w->Close().ok()) return false;
    auto f = Open(path);
    tools::DropFromPageCache(*f);
    return f->CachedBytesQuick() >= 0 && static_cast<uint64_t>(f->CachedBytesQuick()) < f->size();
  }

  test::TempDir dir_;
};

TEST_F(WholeFileReadTest, ParsesTheFlagValues) {
  DirectReadMode m;
  ASSERT_OK(ParseDirectReadMode("cold", &m));
  EXPECT_EQ(DirectReadMode::kCold, m);
  ASSERT_OK(ParseDirectReadMode("always", &m));
  EXPECT_EQ(DirectReadMode::kAlways, m);
  ASSERT_OK(ParseDirectReadMode("never", &m));
  EXPECT_EQ(DirectReadMode::kNever, m);
  Status s = ParseDirectReadMode("sometimes", &m);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_TRUE(Contains(s.ToString(), "--log_container_metadata_replay_direct_io")) << s.ToString();
  EXPECT_STREQ("cold", DirectReadModeName(DirectReadMode::kCold));
}

// Every size around the alignment, read each way: identical bytes, one read
// system call, and the page cache bypassed exactly when the filesystem
// allows it.
TEST_F(WholeFileReadTest, SameBytesEitherWayAtEverySize) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{4095}, size_t{4096}, size_t{4097}, size_t{65536 + 3},
                   size_t{300000}, kReleasedReadBufferBytes + 4097}) {
    const std::string data = test::RandomBytes(n, static_cast<uint32_t>(n + 1));
    const std::string path = MakeFile("f" + std::to_string(n), data);
    const bool supported = DirectIoSupported(path);
    for (DirectReadMode mode : {DirectReadMode::kNever, DirectReadMode::kCold, DirectReadMode::kAlways}) {
      auto f = Open(path);
      AlignedBytes buf;
      bool direct = true;
      ASSERT_OK(ReadWholeFile(f.get(), mode, 0, &buf, &direct));
      ASSERT_NE(nullptr, buf.get());
      EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(buf.get()) % RandomAccessFile::kDirectReadAlignment);
      EXPECT_EQ(0, std::memcmp(buf.get(), data.data(), n)) << n << " " << DirectReadModeName(mode);
      // A file just written is in the page cache: only 'always' bypasses it.
      const bool expect_direct = mode == DirectReadMode::kAlways && supported && n > 0;
      EXPECT_EQ(expect_direct, direct) << n << " " << DirectReadModeName(mode);
      EXPECT_EQ(expect_direct ? 1u : 0u, f->stats().direct_reads);
      EXPECT_EQ(n > 0 ? 1u : 0u, f->stats().read_syscalls) << n << " " << DirectReadModeName(mode);
      EXPECT_EQ(n, f->stats().bytes_read);
    }
  }
}

// The resident set of this process, from /proc/self/statm.
int64_t ResidentBytes() {
  std::string statm;
  EXPECT_OK(test::ReadFileToString("/proc/self/statm", &statm));
  const int64_t pages = std::strtoll(statm.c_str() + statm.find(' ') + 1, nullptr, 10);
  return pages * ::sysconf(_SC_PAGESIZE);
}

// Large files' buffers give their pages back when freed. An allocator keeps
// them, and replay threads each freeing a file and reading one of another
// size left an open's peak memory far above what the threads held at once
// (the pattern below, four threads' buffers taking turns).
TEST_F(WholeFileReadTest, LargeBuffersLeaveNoPagesBehind) {
#ifdef KUDU_ASAN
  GTEST_SKIP() << "resident memory is the sanitizer's here, not the server's allocator's";
#endif
  const int64_t mib = 1 << 20;
  std::vector<std::unique_ptr<RandomAccessFile>> files;
  for (int64_t size_mib : {4, 7, 11, 16, 23, 32}) {
    const std::string path = dir_.Join("large" + std::to_string(size_mib));
    std::unique_ptr<WritableFile> w;
    ASSERT_OK(WritableFile::Open(path, CreateMode::kTruncate, WriteEncryption(), &w));
    ASSERT_OK(w->Close());
    // A hole: the read fills the buffer with zeros, touching every page.
    ASSERT_EQ(0, ::truncate(path.c_str(), size_mib * mib));
    files.push_back(Open(path));
  }
  constexpr int kThreads = 4;
  AlignedBytes held[kThreads];
  int64_t held_bytes[kThreads] = {};
  const int64_t before = ResidentBytes();
  int64_t worst_beyond_held = 0;
  for (int turn = 0; turn < 48; turn++) {
    const int t = turn % kThreads;
    held[t].reset();
    RandomAccessFile* f = files[(turn * 7 + turn / 5) % files.size()].get();
    bool direct;
    ASSERT_OK(ReadWholeFile(f, DirectReadMode::kNever, 0, &held[t], &direct));
    ASSERT_EQ(0u, reinterpret_cast<uintptr_t>(held[t].get()) % RandomAccessFile::kDirectReadAlignment);
    ASSERT_EQ(0, held[t][f->size() - 1]);
    held_bytes[t] = static_cast<int64_t>(f->size());
    int64_t sum = 0;
    for (int64_t b : held_bytes) sum += b;
    worst_beyond_held = std::max(worst_beyond_held, ResidentBytes() - before - sum);
  }
  EXPECT_LT(worst_beyond_held, 8 * mib);
  for (AlignedBytes& b : held) b.reset();
  EXPECT_LT(ResidentBytes() - before, 8 * mib);
}

// A replay thread's cache lends its kept buffer to the next large file that
// fits, so the buffer's pages are not given back and mapped afresh for
// every file; a larger file replaces it, small files never use it, and a
// second buffer asked for while the first is lent is a fresh one.
TEST_F(WholeFileReadTest, ACacheLendsItsBufferToTheNextLargeFileThatFits) {
  const size_t mib = size_t{1} << 20;
  const std::string a = test::RandomBytes(6 * mib + 11, 21);
  const std::string b = test::RandomBytes(5 * mib + 7, 22);
  const std::string c = test::RandomBytes(9 * mib + 3, 23);
  const std::string small = test::RandomBytes(mib, 24);
  auto fa = Open(MakeFile("a", a)), fb = Open(MakeFile("b", b)), fc = Open(MakeFile("c", c));
  auto fsmall = Open(MakeFile("small", small));
  ReadBufferCache cache;
  bool direct;
  AlignedBytes buf;
  ASSERT_OK(ReadWholeFile(fa.get(), DirectReadMode::kNever, 0, &buf, &direct, &cache));
  const uint8_t* first = buf.get();
  EXPECT_EQ(0u, cache.capacity()) << "lent buffers are not counted as kept";
  buf.reset();
  EXPECT_EQ(RandomAccessFile::DirectReadCapacity(a.size()), cache.capacity());

  ASSERT_OK(ReadWholeFile(fb.get(), DirectReadMode::kNever, 0, &buf, &direct, &cache));
  EXPECT_EQ(first, buf.get()) << "a smaller file is read into the kept buffer";
  EXPECT_EQ(0, std::memcmp(buf.get(), b.data(), b.size()));
  {
    // The kept buffer is lent: another one is made, and freed when done.
    AlignedBytes other;
    ASSERT_OK(ReadWholeFile(fa.get(), DirectReadMode::kNever, 0, &other, &direct, &cache));
    EXPECT_NE(buf.get(), other.get());
    EXPECT_EQ(0, std::memcmp(other.get(), a.data(), a.size()));
    EXPECT_EQ(0, std::memcmp(buf.get(), b.data(), b.size()));
  }
  buf.reset();
  EXPECT_EQ(RandomAccessFile::DirectReadCapacity(a.size()), cache.capacity());

  ASSERT_OK(ReadWholeFile(fsmall.get(), DirectReadMode::kNever, 0, &buf, &direct, &cache));
  EXPECT_EQ(0, std::memcmp(buf.get(), small.data(), small.size()));
  buf.reset();
  EXPECT_EQ(RandomAccessFile::DirectReadCapacity(a.size()), cache.capacity())
      << "a small file's buffer is the allocator's, not kept";

  ASSERT_OK(ReadWholeFile(fc.get(), DirectReadMode::kNever, 0, &buf, &direct, &cache));
  EXPECT_EQ(0, std::memcmp(buf.get(), c.data(), c.size()));
  buf.reset();
  EXPECT_EQ(RandomAccessFile::DirectReadCapacity(c.size()), cache.capacity())
      << "a larger file's buffer replaces the kept one";

#ifndef KUDU_ASAN
  const int64_t kept = ResidentBytes();
  cache.Clear();
  EXPECT_EQ(0u, cache.capacity());
  EXPECT_GT(kept - ResidentBytes(), static_cast<int64_t>(8 * mib)) << "its pages are given back";
#else
  cache.Clear();
  EXPECT_EQ(0u, cache.capacity());
#endif
}

// Trimmed to a smaller file, the kept buffer gives back every page past the
// huge page that file ends in, its last partial 2 MiB (small pages) too:
// what it still holds is what resident() says, which its grant covers.
TEST_F(WholeFileReadTest, ATrimmedBufferKeepsOnlyWhatItCounts) {
#ifdef KUDU_ASAN
  GTEST_SKIP() << "resident memory is the sanitizer's here, not the server's allocator's";
#endif
  const size_t mib = size_t{1} << 20;
  // 9 MiB and a bit: four whole huge pages and a partial one.
  const std::string big = test::RandomBytes(9 * mib + 5000, 31);
  auto f = Open(MakeFile("big", big));
  ReadBufferCache cache;
  bool direct;
  AlignedBytes buf;
  ASSERT_OK(ReadWholeFile(f.get(), DirectReadMode::kNever, 0, &buf, &direct, &cache));
  buf.reset();
  const size_t capacity = cache.capacity();
  ASSERT_EQ(capacity, cache.resident());
  const int64_t before = ResidentBytes();
  cache.TrimTo(mib);
  EXPECT_EQ(kHugePageBytes, cache.resident());
  EXPECT_GE(before - ResidentBytes(), static_cast<int64_t>(capacity - kHugePageBytes - 64 * 1024))
      << "the pages past the first huge page are given back, the last partial 2 MiB's too";
  cache.TrimTo(mib / 2);
  EXPECT_EQ(kHugePageBytes, cache.resident()) << "the huge page the file ends in stays whole";
}

// Reading from an offset (an encrypted file's payload): through the cache
// only [from, size) is read; past it the read starts at 0 and says so in
// its byte count.
TEST_F(WholeFileReadTest, FromAnOffset) {
  const std::string data = test::RandomBytes(10000, 5);
  const std::string path = MakeFile("f", data);
  for (DirectReadMode mode : {DirectReadMode::kNever, DirectReadMode::kAlways}) {
    auto f = Open(path);
    AlignedBytes buf;
    bool direct = false;
    ASSERT_OK(ReadWholeFile(f.get(), mode, 64, &buf, &direct));
    EXPECT_EQ(0, std::memcmp(buf.get() + 64, data.data() + 64, data.size() - 64));
    EXPECT_EQ(direct ? data.size() : data.size() - 64, f->stats().bytes_read);
    EXPECT_EQ(1u, f->stats().read_syscalls);
  }
}

// 'cold' reads past the cache only what is not cached, and only files large
// enough for it to matter.
TEST_F(WholeFileReadTest, ColdReadsPastTheCacheOnlyLargeUncachedFiles) {
  const std::string big = test::RandomBytes(kMinDirectReadBytes + 5000, 7);
  const std::string small = test::RandomBytes(kMinDirectReadBytes - 1, 8);
  const std::string big_path = dir_.Join("big"), small_path = dir_.Join("small");
  if (!MakeColdFile(big_path, big) || !MakeColdFile(small_path, small)) {
    GTEST_SKIP() << "no cachestat(2) here, or the page cache kept the files";
  }
  {
    auto f = Open(small_path);
    AlignedBytes buf;
    bool direct = true;
    ASSERT_OK(ReadWholeFile(f.get(), DirectReadMode::kCold, 0, &buf, &direct));
    EXPECT_FALSE(direct) << "below kMinDirectReadBytes";
    EXPECT_EQ(0, std::memcmp(buf.get(), small.data(), small.size()));
  }
  {
    auto f = Open(big_path);
    AlignedBytes buf;
    bool direct = false;
    ASSERT_OK(ReadWholeFile(f.get(), DirectReadMode::kCold, 0, &buf, &direct));
    EXPECT_EQ(DirectIoSupported(big_path), direct);
    EXPECT_EQ(0, std::memcmp(buf.get(), big.data(), big.size()));
    EXPECT_EQ(1u, f->stats().read_syscalls);
    // Read past the cache, so still not cached: a second cold read goes
    // past it again; 'never' reads (and caches) it.
    AlignedBytes again;
    ASSERT_OK(ReadWholeFile(f.get(), DirectReadMode::kNever, 0, &again, &direct));
    EXPECT_FALSE(direct);
    EXPECT_EQ(0, std::memcmp(again.get(), big.data(), big.size()));
    ASSERT_OK(ReadWholeFile(f.get(), DirectReadMode::kCold, 0, &again, &direct));
    EXPECT_FALSE(direct) << "now all cached";
  }
}

// Where O_DIRECT is refused (tmpfs before Linux 6.6), the read falls back
// and is still right.
TEST_F(WholeFileReadTest, FilesystemWithoutDirectIoFallsBack) {
  struct statfs st;
  constexpr long kTmpfsMagic = 0x01021994;
  if (::statfs("/dev/shm", &st) != 0 || st.f_type != kTmpfsMagic || ::access("/dev/shm", W_OK) != 0) {
    GTEST_SKIP() << "no writable tmpfs at /dev/shm";
  }
  char dir[] = "/dev/shm/kudu-whole-file-read-XXXXXX";
  ASSERT_NE(nullptr, ::mkdtemp(dir));
  const std::string path = std::string(dir) + "/f";
  const std::string data = test::RandomBytes(10000, 3);
  ASSERT_TRUE(test::WriteStringToFile(path, data).ok());
  if (DirectIoSupported(path)) {
    ::unlink(path.c_str());
    ::rmdir(dir);
    GTEST_SKIP() << "this kernel's tmpfs takes O_DIRECT (Linux 6.6+): no fallback to test";
  }
  {
    auto f = Open(path);
    AlignedBytes buf;
    bool direct = true;
    EXPECT_OK(ReadWholeFile(f.get(), DirectReadMode::kAlways, 0, &buf, &direct));
    EXPECT_FALSE(direct);
    EXPECT_EQ(0, std::memcmp(buf.get(), data.data(), data.size()));
    EXPECT_EQ(1u, f->stats().read_syscalls);
  }
  ::unlink(path.c_str());
  ::rmdir(dir);
}

// The read past the cache reads the file that was opened, even when its
// path now names another file (a rewrite by rename).
TEST_F(WholeFileReadTest, DirectReadFollowsTheOpenFileNotThePath) {
  const std::string data = test::RandomBytes(20000, 6);
  const std::string path = MakeFile("f", data);
  if (!DirectIoSupported(path)) GTEST_SKIP() << "no O_DIRECT on this filesystem";
  auto f = Open(path);
  const std::string other = MakeFile("g", test::RandomBytes(20000, 9));
  ASSERT_EQ(0, ::rename(other.c_str(), path.c_str()));
  AlignedBytes buf;
  bool direct = false;
  ASSERT_OK(ReadWholeFile(f.get(), DirectReadMode::kAlways, 0, &buf, &direct));
  EXPECT_TRUE(direct);
  EXPECT_EQ(0, std::memcmp(buf.get(), data.data(), data.size()));
}

// The same without /proc, as in a container that does not mount it: the
// descriptor cannot be reopened for O_DIRECT, and reopening the path would
// read the file renamed over it. The read must still be of the open file.
// Run in a child with its own mount namespace and a tmpfs over /proc;
// skipped where the process may not make one.
TEST_F(WholeFileReadTest, WithoutProcTheReadStillFollowsTheOpenFile) {
  const std::string data = test::RandomBytes(20000, 6);
  const std::string path = MakeFile("f", data);
  if (!DirectIoSupported(path)) GTEST_SKIP() << "no O_DIRECT on this filesystem";
  const std::string other = MakeFile("g", test::RandomBytes(20000, 9));
  constexpr int kSkip = 77, kSame = 0, kOther = 1, kError = 2;
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("none", "/proc", "tmpfs", 0, nullptr) != 0 || ::access("/proc/self/fd", F_OK) == 0) {
      ::_exit(kSkip);
    }
    std::unique_ptr<RandomAccessFile> f;
    if (!RandomAccessFile::Open(path, nullptr, &f).ok() || ::rename(other.c_str(), path.c_str()) != 0) {
      ::_exit(kError);
    }
    AlignedBytes buf;
    bool direct = false;
    if (!ReadWholeFile(f.get(), DirectReadMode::kAlways, 0, &buf, &direct).ok()) ::_exit(kError);
    ::_exit(std::memcmp(buf.get(), data.data(), data.size()) == 0 ? kSame : kOther);
  }
  int status = 0;
  ASSERT_EQ(pid, ::waitpid(pid, &status, 0));
  ASSERT_TRUE(WIFEXITED(status)) << status;
  if (WEXITSTATUS(status) == kSkip) GTEST_SKIP() << "cannot hide /proc in a private mount namespace";
  EXPECT_EQ(kSame, WEXITSTATUS(status)) << "1: the file renamed over the path was read; 2: the read failed";
}

// Faults on the read past the cache behave as on any read: an error names
// the file, a short read is finished, an early end of file is an error.
// A read through the page cache asks first for what the cache holds: a
// cached file is still one read system call and counts a hit; a file the
// cache dropped counts a miss and takes one more call, the same bytes
// either way. An injected fault on that first call is the read's fault.
TEST_F(WholeFileReadTest, ReadThroughTheCacheSaysWhetherItWasAllCached) {
  const std::string data = test::RandomBytes(5 * 4096 + 7, 9);
  AlignedBytes buf;
  bool direct = true;
  {
    auto f = Open(MakeFile("warm", data));
    ASSERT_OK(ReadWholeFile(f.get(), DirectReadMode::kNever, 0, &buf, &direct));
    EXPECT_EQ(0, std::memcmp(buf.get(), data.data(), data.size()));
    EXPECT_EQ(1u, f->stats().read_syscalls);
    EXPECT_EQ(1u, f->stats().cache_probe_hits);
    EXPECT_EQ(0u, f->stats().cache_probe_misses);
  }
  // A probe that does not return everything (injected here: a short read,
  // as the kernel gives for a partly cached file) counts a miss, and the
  // rest takes more calls: the same bytes.
  {
    auto f = Open(MakeFile("partly", data));
    IoFaultInjector::Arm(IoOp::kRead, 1, IoFault::kShortRead);
    ASSERT_OK(ReadWholeFile(f.get(), DirectReadMode::kNever, 0, &buf, &direct));
    EXPECT_TRUE(IoFaultInjector::Fired());
    IoFaultInjector::Disarm();
    EXPECT_EQ(0, std::memcmp(buf.get(), data.data(), data.size()));
    EXPECT_EQ(0u, f->stats().cache_probe_hits);
    EXPECT_EQ(1u, f->stats().cache_probe_misses);
    EXPECT_EQ(data.size(), f->stats().bytes_read);
    EXPECT_LE(2u, f->stats().read_syscalls);
  }
  // A file the page cache dropped: usually EAGAIN, a miss. On a loaded
  // machine the kernel has been seen to serve the no-wait read in full all
  // the same (cachestat saying nothing was cached just before), which
  // counts a hit in one call; either way the counts match the calls.
  const std::string cold = dir_.Join("cold");
  if (MakeColdFile(cold, data)) {
    auto f = Open(cold);
    ASSERT_OK(ReadWholeFile(f.get(), DirectReadMode::kNever, 0, &buf, &direct));
    EXPECT_EQ(0, std::memcmp(buf.get(), data.data(), data.size()));
    EXPECT_EQ(1u, f->stats().cache_probe_hits + f->stats().cache_probe_misses);
    EXPECT_EQ(data.size(), f->stats().bytes_read);
    if (f->stats().cache_probe_misses == 1) {
      EXPECT_LE(2u, f->stats().read_syscalls);
    } else {
      EXPECT_EQ(1u, f->stats().read_syscalls);
    }
  }
  for (IoFault fault : {IoFault::kEIO, IoFault::kUnexpectedEof}) {
    auto f = Open(MakeFile("faulted", data));
    IoFaultInjector::Arm(IoOp::kRead, 1, fault);
    Status s = ReadWholeFile(f.get(), DirectReadMode::kNever, 0, &buf, &direct);
    EXPECT_TRUE(IoFaultInjector::Fired());
    EXPECT_TRUE(s.IsIOError()) << s.ToString();
    EXPECT_TRUE(Contains(s.ToString(), "faulted")) << s.ToString();
    IoFaultInjector::Disarm();
  }
}

TEST_F(WholeFileReadTest, FaultsOnTheDirectRead) {
  const std::string data = test::RandomBytes(3 * 4096 + 100, 4);
  const std::string path = MakeFile("f", data);
  if (!DirectIoSupported(path)) GTEST_SKIP() << "no O_DIRECT on this filesystem";
  AlignedBytes buf;
  bool direct = false;
  {
    auto f = Open(path);
    IoFaultInjector::Arm(IoOp::kRead, 1, IoFault::kEIO);
    Status s = ReadWholeFile(f.get(), DirectReadMode::kAlways, 0, &buf, &direct);
    EXPECT_TRUE(s.IsIOError()) << s.ToString();
    EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
    EXPECT_TRUE(IoFaultInjector::Fired());
  }
  {
    auto f = Open(path);
    IoFaultInjector::Arm(IoOp::kRead, 1, IoFault::kShortRead);
    ASSERT_OK(ReadWholeFile(f.get(), DirectReadMode::kAlways, 0, &buf, &direct));
    EXPECT_TRUE(IoFaultInjector::Fired());
    EXPECT_TRUE(direct);
    EXPECT_EQ(0, std::memcmp(buf.get(), data.data(), data.size()));
    EXPECT_EQ(2u, f->stats().read_syscalls) << "the short read, then the rest normally";
    EXPECT_EQ(data.size(), f->stats().bytes_read);
  }
  {
    auto f = Open(path);
    IoFaultInjector::Arm(IoOp::kRead, 1, IoFault::kUnexpectedEof);
    Status s = ReadWholeFile(f.get(), DirectReadMode::kAlways, 0, &buf, &direct);
    EXPECT_TRUE(s.IsIOError()) << s.ToString();
    EXPECT_TRUE(Contains(s.ToString(), "file ended")) << s.ToString();
  }
}


// A buffer the process cannot have fails the read, with ENOMEM and the
// file's name (the in-memory strategy then falls back to Streaming, whose
// buffers are small), not the process. The address space is limited to
// what the process has mapped now and 256 MiB more; the file is a 1 GiB
// hole. Not under the sanitizers, whose shadow memory needs terabytes.
TEST_F(WholeFileReadTest, ABufferTheProcessCannotHaveIsAnError) {
#if defined(KUDU_ASAN) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "address-space limits and sanitizers do not mix";
#endif
  const std::string path = MakeFile("big", "");
  ASSERT_EQ(0, ::truncate(path.c_str(), 1LL << 30));
  auto f = Open(path);
  uint64_t mapped_pages = 0;
  {
    std::ifstream statm("/proc/self/statm");
    ASSERT_TRUE(statm >> mapped_pages);
  }
  struct rlimit old;
  ASSERT_EQ(0, ::getrlimit(RLIMIT_AS, &old));
  struct rlimit tight = old;
  tight.rlim_cur = mapped_pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)) + (256ULL << 20);
  ASSERT_EQ(0, ::setrlimit(RLIMIT_AS, &tight));
  AlignedBytes buf;
  bool direct = false;
  const Status s = ReadWholeFile(f.get(), DirectReadMode::kNever, 0, &buf, &direct);
  ASSERT_EQ(0, ::setrlimit(RLIMIT_AS, &old));
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(ENOMEM, s.posix_code()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
}

}  // namespace
}  // namespace fs
}  // namespace kudu
