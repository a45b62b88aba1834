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

// Resource bounds: no input makes the replay allocate beyond the file sizes
// plus the memory budget, and an open of many containers stays within its
// budget and a low descriptor limit (descriptor leaks of replay cycles:
// descriptor_bounds_test.cc).
//
// Memory is measured two ways, both in a forked child so nothing the parent
// did before pollutes the figures:
//   - the heap: this test binary replaces the global operator new/delete
//     with counting versions (every C++ allocation of the code under test:
//     buffers, protobuf, hash maps), so even an allocation that is never
//     touched, which RSS would not see, counts at its full size;
//   - peak RSS: the child resets its high-water mark (/proc/self/clear_refs)
//     and reads VmHWM afterwards. Under ASan the allocator's quarantine and
//     shadow memory make RSS meaningless, so only the heap bound is asserted
//     there.
// A control case (a whole-file in-memory replay) proves each measurement
// sees a buffer of the file's size, so the bounds cannot pass vacuously.
#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glog/logging.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/container_replay_state.h"
#include "kudu/fs/container_replayer.h"
#include "kudu/fs/container_writer.h"
#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/util/byte_budget.h"
#include "kudu/util/crc32c.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"
#include "util/fs_fixture_util.h"
#include "util/replay_test_util.h"
#include "util/test_macros.h"
#include "util/test_util.h"


// ---- counting global allocator ----
namespace {
std::atomic<int64_t> g_heap_now{0};
std::atomic<int64_t> g_heap_peak{0};

inline void* Counted(void* p) {
  if (p != nullptr) {
    const int64_t n = static_cast<int64_t>(malloc_usable_size(p));
    const int64_t now = g_heap_now.fetch_add(n, std::memory_order_relaxed) + n;
    int64_t peak = g_heap_peak.load(std::memory_order_relaxed);
    while (now > peak && !g_heap_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }
  return p;
}
inline void Uncount(void* p) {
  if (p != nullptr) {
    g_heap_now.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  }
}
void* AllocOrThrow(size_t n) {
  void* p = Counted(std::malloc(n ? n : 1));
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* AlignedOrThrow(size_t n, std::align_val_t al) {
  void* p = nullptr;
  if (posix_memalign(&p, static_cast<size_t>(al), n ? n : 1) != 0) throw std::bad_alloc();
  return Counted(p);
}
}  // namespace

void* operator new(size_t n) { return AllocOrThrow(n); }
void* operator new[](size_t n) { return AllocOrThrow(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return Counted(std::malloc(n ? n : 1)); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return Counted(std::malloc(n ? n : 1)); }
void* operator new(size_t n, std::align_val_t al) { return AlignedOrThrow(n, al); }
void* operator new[](size_t n, std::align_val_t al) { return AlignedOrThrow(n, al); }
void operator delete(void* p) noexcept { Uncount(p); std::free(p); }
void operator delete[](void* p) noexcept { Uncount(p); std::free(p); }
void operator delete(void* p, size_t) noexcept { Uncount(p); std::free(p); }
void operator delete[](void* p, size_t) noexcept { Uncount(p); std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { Uncount(p); std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { Uncount(p); std::free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { Uncount(p); std::free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { Uncount(p); std::free(p); }

namespace kudu {
namespace test {
namespace {

namespace pbc = pb_container;

int64_t StatusKb(const char* field) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  int64_t v = -1;
  const size_t n = std::strlen(field);
  while (std::fgets(line, sizeof(line), f)) {
    if (std::strncmp(line, field, n) == 0 && line[n] == ':') {
      v = std::strtoll(line + n + 1, nullptr, 10);
      break;
    }
  }
  std::fclose(f);
  return v;
}

struct Measured {
  bool ok = false;           // the child exited normally with its checks passed
  std::string error;         // what the child reported otherwise
  int64_t heap_peak = 0;     // bytes above the heap in use when the work started
  int64_t rss_peak = 0;      // bytes above RSS when the work started
  bool rss_valid = false;
};

// Runs `work` in a forked child and measures its peak heap and RSS growth.
// `work` returns "" on success or what went wrong.
Measured MeasureInChild(const std::function<std::string()>& work) {
  int fds[2];
  Measured m;
  if (pipe(fds) != 0) {
    m.error = "pipe";
    return m;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    ::close(fds[0]);
    // Reset the RSS high-water mark to the current RSS (Linux >= 4.0).
    bool rss_valid = false;
    int cr = ::open("/proc/self/clear_refs", O_WRONLY);
    if (cr >= 0) {
      rss_valid = ::write(cr, "5", 1) == 1;
      ::close(cr);
    }
    const int64_t rss0 = StatusKb("VmRSS");
    const int64_t heap0 = g_heap_now.load();
    g_heap_peak.store(heap0);
    std::string err = work();
    const int64_t heap_peak = g_heap_peak.load() - heap0;
    const int64_t rss_peak = (StatusKb("VmHWM") - rss0) * 1024;
    char buf[4096];
    int len = std::snprintf(buf, sizeof(buf), "%lld %lld %d %s",
                            static_cast<long long>(heap_peak), static_cast<long long>(rss_peak),
                            rss_valid ? 1 : 0, err.c_str());
    if (::write(fds[1], buf, static_cast<size_t>(std::min<int>(len, sizeof(buf) - 1))) < 0) _exit(3);
    _exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t r;
  while ((r = ::read(fds[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(r));
  ::close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    m.error = "child died (status " + std::to_string(status) + ")";
    return m;
  }
  long long heap = 0, rss = 0;
  int valid = 0, consumed = 0;
  if (std::sscanf(out.c_str(), "%lld %lld %d %n", &heap, &rss, &valid, &consumed) < 3) {
    m.error = "bad child report: " + out;
    return m;
  }
  m.heap_peak = heap;
  m.rss_peak = rss;
  m.rss_valid = valid != 0;
  m.error = out.substr(static_cast<size_t>(consumed));
  m.ok = m.error.empty();
  return m;
}

constexpr int64_t kKiB = 1024, kMiB = 1024 * 1024;

// Checks a measurement against a bound: heap always, RSS outside ASan. RSS
// bounds carry a few MiB for pages touched for the first time in the child
// (code, library state): the heap bound is the tight one.
void ExpectWithin(const Measured& m, int64_t heap_bound, int64_t rss_bound, const std::string& what) {
  ASSERT_TRUE(m.ok) << what << ": " << m.error;
  std::cout << "[bounds] " << what << ": peak heap +" << m.heap_peak / kKiB << " KiB (bound "
            << heap_bound / kKiB << " KiB), peak RSS +" << m.rss_peak / kKiB << " KiB (bound "
            << rss_bound / kKiB << " KiB)" << std::endl;
  EXPECT_LE(m.heap_peak, heap_bound) << what;
#ifndef KUDU_ASAN
  if (m.rss_valid) {
    EXPECT_LE(m.rss_peak, rss_bound) << what;
  }
#endif
}

std::string Framed(uint32_t version, uint32_t len, const std::string& tail) {
  std::string r;
  pbc::PutFixed32(&r, len);
  if (version == 2) {
    uint8_t b[4];
    pbc::EncodeFixed32(b, len);
    pbc::PutFixed32(&r, crc::Crc32c(b, 4));
  }
  return r + tail;
}

// Replays `path` with `kind` directly; "" when the outcome is `want`.
std::string ReplayExpecting(fs::ReplayStrategyKind kind, const std::string& path, const ServerKey* key,
                            fs::ReplayOutcome::Kind want, uint64_t want_records) {
  std::unique_ptr<RandomAccessFile> file;
  Status s = RandomAccessFile::Open(path, key, &file);
  if (!s.ok()) return s.ToString();
  fs::ReplayStrategyOptions so;
  so.window_bytes = 64 * kKiB;
  std::unique_ptr<fs::MetadataReplayStrategy> st = fs::NewReplayStrategy(kind, so);
  if (!st) return "no strategy";
  fs::ContainerReplayState state(1 << 30, file->encryption_header_size(), 4096);
  fs::ReplayOutcome out = st->Replay(file.get(), &state);
  if (out.kind != want || out.records != want_records) {
    return std::string(ReplayStrategyName(kind)) + ": " + out.ToString();
  }
  return "";
}

bool WindowedAvailable() {
  return fs::NewReplayStrategy(fs::ReplayStrategyKind::kWindowed, fs::ReplayStrategyOptions()) != nullptr;
}

// Replays `path` through ContainerReplayer with a byte budget of `budget`.
std::string ReplayWithBudget(fs::StrategyChoice choice, uint64_t budget, uint64_t window,
                             const std::string& path, const ServerKey* key,
                             fs::ReplayOutcome::Kind want, uint64_t want_records,
                             uint64_t* budget_peak = nullptr) {
  std::unique_ptr<RandomAccessFile> file;
  Status s = RandomAccessFile::Open(path, key, &file);
  if (!s.ok()) return s.ToString();
  fs::ReplayPolicyOptions po;
  po.choice = choice;
  po.memory_budget_bytes = budget;
  po.window_bytes = WindowedAvailable() ? window : 0;
  po.budget_wait_ms = 0;
  ByteBudget b(budget);
  fs::ContainerReplayer replayer(po, &b, nullptr);
  fs::ContainerReplayState state(1 << 30, file->encryption_header_size(), 4096);
  fs::ContainerReplayResult r = replayer.Replay(file.get(), &state);
  if (budget_peak) *budget_peak = b.peak();
  if (b.peak() > budget) return "budget oversubscribed";
  if (r.outcome.kind != want || r.outcome.records != want_records) {
    return "replayer: " + r.outcome.ToString();
  }
  return "";
}

class ResourceBoundsTest : public ::testing::Test {
 protected:
  // Fallbacks and opens log a line each; thousands are expected here.
  static void SetUpTestSuite() { FLAGS_minloglevel = 2; }
  TempDir dir_;
};

// A length of nearly 4 GiB with a valid length checksum (v2), or just a
// length (v1), after a few valid records: nothing may allocate it.
TEST_F(ResourceBoundsTest, HostileLengthsAllocateNothingBig) {
  int cases = 0;
  for (uint32_t version : {1u, 2u}) {
    for (size_t key_bytes : {0, 16, 32}) {
      ServerKey key = TestServerKey(key_bytes ? key_bytes : 16);
      const ServerKey* k = key_bytes ? &key : nullptr;
      for (uint32_t len : {0xFFFFFFF0u, 0xFFFFFFFCu, 0xFFFFFFFFu, 0x7FFFFFFFu, 0x10000000u}) {
        const std::string path = dir_.Join("hostile.metadata");
        MetadataFileOptions fo;
        fo.version = version;
        fo.server_key = k;
        if (k) {
          ASSERT_TRUE(CipherAlgorithmForKeyBits(static_cast<int>(key_bytes * 8), &fo.algorithm).ok());
        }
        ASSERT_TRUE(WriteMetadataFile(path, MakeRecordSequence(3), fo).ok());
        // Append the hostile record through the file layer so an encrypted
        // file gets it encrypted.
        {
          WriteEncryption enc;
          enc.server_key = k;
          std::unique_ptr<WritableFile> wf;
          ASSERT_TRUE(WritableFile::Open(path, CreateMode::kOpenExisting, enc, &wf).ok());
          ASSERT_TRUE(wf->Append(Framed(version, len, std::string(40, 'x'))).ok());
          ASSERT_TRUE(wf->Close().ok());
        }
        const int64_t size = static_cast<int64_t>(FileSizeOrDie(path));
        const fs::ReplayOutcome::Kind want =
            version == 2 ? fs::ReplayOutcome::Kind::kPartialRecord : fs::ReplayOutcome::Kind::kCorruption;
        for (fs::ReplayStrategyKind kind : EveryKindFor(k != nullptr)) {
          Measured m = MeasureInChild([&] { return ReplayExpecting(kind, path, k, want, 3); });
          const std::string what = "v" + std::to_string(version) + (k ? " encrypted " : " plain ") +
                                   ReplayStrategyName(kind) + " len " + std::to_string(len);
          // The file, a window, parsing scratch: far below what the length claims.
          ASSERT_NO_FATAL_FAILURE(ExpectWithin(m, size + 128 * kKiB, size + 8 * kMiB, what));
          cases++;
        }
        Measured m = MeasureInChild(
            [&] { return ReplayWithBudget(fs::StrategyChoice::kAuto, kMiB, 0, path, k, want, 3); });
        ASSERT_NO_FATAL_FAILURE(ExpectWithin(m, size + 128 * kKiB, size + 8 * kMiB,
                                             "replayer v" + std::to_string(version) + " len " +
                                                 std::to_string(len)));
        cases++;
      }
    }
  }
  std::cout << "[bounds] hostile-length replays measured: " << cases << std::endl;
}

// A metadata file with a huge zero-filled (sparse) tail: the zero-tail check
// reads it in 4 MiB chunks, and a tight budget keeps the whole-file path
// away. The control replays a smaller such file in memory and must see it.
TEST_F(ResourceBoundsTest, HugeZeroTailStaysWithinBudget) {
  for (bool encrypted : {false, true}) {
    ServerKey key = TestServerKey(16);
    const ServerKey* k = encrypted ? &key : nullptr;
    const std::string path = dir_.Join("zerotail.metadata");
    MetadataFileOptions fo;
    fo.server_key = k;
    ASSERT_TRUE(WriteMetadataFile(path, MakeRecordSequence(10), fo).ok());
    const uint64_t tail = 256 * kMiB;
    ASSERT_TRUE(TruncateFileTo(path, FileSizeOrDie(path) + tail).ok());  // sparse zeros
    const std::string tag = encrypted ? "encrypted " : "plain ";
    const uint64_t budget = 8 * kMiB;
    for (fs::StrategyChoice c : {fs::StrategyChoice::kAuto, fs::StrategyChoice::kInMemory, fs::StrategyChoice::kStreaming}) {
      uint64_t budget_peak = 0;
      Measured m = MeasureInChild([&] {
        return ReplayWithBudget(c, budget, 1 * kMiB, path, k, fs::ReplayOutcome::Kind::kPartialRecord, 10,
                                &budget_peak);
      });
      // Budget + one 4 MiB zero-check chunk of the reference path + slack.
      ASSERT_NO_FATAL_FAILURE(ExpectWithin(m, budget + 4 * kMiB + 256 * kKiB,
                                           budget + 4 * kMiB + 8 * kMiB,
                                           tag + "256 MiB zero tail, budget 8 MiB, " +
                                               StrategyChoiceName(c)));
    }
    // Control: the whole-file strategy on a 32 MiB tail must show ~32 MiB.
    ASSERT_TRUE(WriteMetadataFile(path, MakeRecordSequence(10), fo).ok());
    ASSERT_TRUE(TruncateFileTo(path, FileSizeOrDie(path) + 32 * kMiB).ok());
    Measured m = MeasureInChild([&] {
      return ReplayExpecting(encrypted ? fs::ReplayStrategyKind::kEncryptedInMemory
                                       : fs::ReplayStrategyKind::kInMemory,
                             path, k, fs::ReplayOutcome::Kind::kPartialRecord, 10);
    });
    ASSERT_TRUE(m.ok) << m.error;
    std::cout << "[bounds] control " << tag << "in-memory replay of a 32 MiB file: peak heap +"
              << m.heap_peak / kKiB << " KiB, peak RSS +" << m.rss_peak / kKiB << " KiB" << std::endl;
    EXPECT_GE(m.heap_peak, 32 * kMiB) << "the heap measurement does not see the buffer";
#ifndef KUDU_ASAN
    if (m.rss_valid) {
      EXPECT_GE(m.rss_peak, 30 * kMiB) << "the RSS measurement does not see the buffer";
    }
#endif
  }
}

// 400,000 records whose blocks are created and deleted again (the live set
// stays tiny, so the replay's own memory is what is measured): with a 1 MiB
// budget the replay must stay within it whatever the record count; with a
// budget that holds the file, within the file's size.
TEST_F(ResourceBoundsTest, HugeRecordCountStaysWithinBudget) {
  std::vector<BlockRecordPB> records;
  for (uint64_t id = 1; records.size() < 400000; id++) {
    records.push_back(MakeCreate(id, static_cast<int64_t>((id % 1000) * 4096), 4096));
    records.push_back(MakeDelete(id));
  }
  const std::string path = dir_.Join("many.metadata");
  ASSERT_TRUE(WriteMetadataFile(path, records).ok());
  const int64_t size = static_cast<int64_t>(FileSizeOrDie(path));
  ASSERT_GT(size, 8 * kMiB);
  for (fs::StrategyChoice c : {fs::StrategyChoice::kAuto, fs::StrategyChoice::kInMemory, fs::StrategyChoice::kWindowed}) {
    Measured m = MeasureInChild([&] {
      return ReplayWithBudget(c, kMiB, 256 * kKiB, path, nullptr, fs::ReplayOutcome::Kind::kClean,
                              records.size());
    });
    ASSERT_NO_FATAL_FAILURE(ExpectWithin(m, kMiB + 256 * kKiB, kMiB + 8 * kMiB,
                                         std::to_string(size / kMiB) + " MiB, 400k records, budget 1 MiB, " +
                                             StrategyChoiceName(c)));
  }
  Measured m = MeasureInChild([&] {
    return ReplayWithBudget(fs::StrategyChoice::kAuto, 64 * kMiB, 0, path, nullptr,
                            fs::ReplayOutcome::Kind::kClean, records.size());
  });
  ASSERT_NO_FATAL_FAILURE(ExpectWithin(m, size + 256 * kKiB, size + 8 * kMiB,
                                       "400k records, budget 64 MiB (in memory)"));
  EXPECT_GE(m.heap_peak, size) << "the in-memory replay's buffer was not seen";
}

// Writes a data dir root with `n` containers of a few records each; every
// `broken_every`-th one damaged in one of several ways. Ids are unique.
// Opens of a 2-dir state of 2,000 containers: no descriptor leak across
// repeated opens, the open succeeds under RLIMIT_NOFILE = 64 (it holds one
// metadata file per replay thread), and its heap stays within the budget
// plus the per-container bookkeeping it returns.
TEST_F(ResourceBoundsTest, ManyContainersOpenWithFewDescriptors) {
  const std::vector<std::string> roots = {dir_.Join("d0"), dir_.Join("d1")};
  ASSERT_OK(WriteSmallContainers(roots[0], 1000, 1, 0));
  ASSERT_OK(WriteSmallContainers(roots[1], 1000, 5000, 0));
  fs::BlockManagerOpenOptions opts;
  opts.data_dirs = roots;
  opts.threads_per_dir = 4;
  opts.fs_block_size = 4096;
  opts.progress_every = 0;
  opts.policy.memory_budget_bytes = 256 * kKiB;
  opts.policy.budget_wait_ms = 0;

  const size_t before = OpenDescriptorCount();
  uint64_t live = 0;
  for (int i = 0; i < 3; i++) {
    fs::OpenResult r;
    ASSERT_TRUE(fs::OpenBlockManager(opts, &r).ok()) << r.status.ToString();
    ASSERT_EQ(2000u, r.containers.size());
    live = r.block_map->size();
    EXPECT_LE(r.replay.peak_buffer_bytes, opts.policy.memory_budget_bytes);
  }
  EXPECT_EQ(before, OpenDescriptorCount());
  EXPECT_GT(live, 2000u);

  // Under a descriptor limit of 64 (the test process holds a handful).
  Measured m = MeasureInChild([&]() -> std::string {
    struct rlimit rl = {64, 64};
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) return "setrlimit";
    fs::OpenResult r;
    Status s = fs::OpenBlockManager(opts, &r);
    if (!s.ok()) return s.ToString();
    if (r.block_map->size() != live) return "different block map under the fd limit";
    return "";
  });
  ASSERT_TRUE(m.ok) << m.error;
  // The open returns 2,000 ContainerInfo and a block map of `live` entries;
  // beyond those, only the budget and per-thread parsing state.
  const int64_t bookkeeping = 2000 * 2 * kKiB + static_cast<int64_t>(live) * 64;
  ASSERT_NO_FATAL_FAILURE(ExpectWithin(m, opts.policy.memory_budget_bytes + bookkeeping + 4 * kMiB,
                                       opts.policy.memory_budget_bytes + bookkeeping + 32 * kMiB,
                                       "open of 2,000 containers, 2 dirs x 4 threads, budget 256 KiB, "
                                       "RLIMIT_NOFILE 64"));
}

// A metadata file whose size is mostly a hole (a 4 GiB sparse zero tail):
// the open reserves for the blocks its data file can hold, not for the
// records its size could frame (~10^8, which sized a live set and the block
// map's arena at more than 100 MiB for 17 blocks).
TEST_F(ResourceBoundsTest, AHoleInAMetadataFileReservesNothingForIt) {
  const std::string root = dir_.Join("hole");
  ASSERT_OK(WriteSmallContainers(root, 4, 1, 0));
  fs::BlockManagerOpenOptions opts;
  opts.data_dirs = {root};
  opts.threads_per_dir = 2;
  opts.fs_block_size = 4096;
  opts.progress_every = 0;
  size_t live = 0;
  {
    fs::OpenResult r;
    ASSERT_TRUE(fs::OpenBlockManager(opts, &r).ok()) << r.status.ToString();
    live = r.block_map->size();
  }
  char id[33];
  std::snprintf(id, sizeof(id), "%032x", 1);
  const std::string mpath = fs::LogBlockContainerWriter::MetadataPath(root, id);
  ASSERT_TRUE(TruncateFileTo(mpath, FileSizeOrDie(mpath) + (4ULL << 30)).ok());
  Measured m = MeasureInChild([&]() -> std::string {
    fs::OpenResult r;
    Status s = fs::OpenBlockManager(opts, &r);
    if (!s.ok()) return s.ToString();
    if (r.block_map->size() != live) return "live blocks: " + std::to_string(r.block_map->size());
    return "";
  });
  // A window of the large file and the zero check's chunk, beside four
  // containers' bookkeeping.
  ASSERT_NO_FATAL_FAILURE(
      ExpectWithin(m, 12 * kMiB, 32 * kMiB, "open of 4 containers, one with a 4 GiB hole"));
}

}  // namespace
}  // namespace test
}  // namespace kudu
