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

// Read-ahead across containers (fs/metadata_readahead.h) never changes what
// an open finds, stays within the memory budget, and leaves every read to
// the fault injector.
//
//   - Identical opens: generated two-dir states (plain and encrypted; with a
//     partial trailing record, an incomplete container, and a state with a
//     corrupted container) opened with read-ahead none / fadvise, under
//     every strategy choice and 1 or 3 threads per dir, give the same report
//     as without read-ahead.
//   - Budget: DirReadahead never advises more than half the budget of bytes
//     ahead of the claims, advises every later position once, and holds no
//     budget itself; an open with a tight budget, many threads and
//     read-ahead never holds more than the budget and still gives the
//     reference result.
//   - Faults: the k-th read of an open with read-ahead on fails (EIO, short
//     read, unexpected EOF) for every k; the open either gives the reference
//     result (absorbed: a read-ahead read that fails is dropped, an
//     accelerated strategy falls back) or fails with an I/O error naming the
//     metadata file, and the next open is the reference again.
#include <fcntl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <glog/logging.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/container_listing.h"
#include "kudu/fs/container_writer.h"
#include "kudu/fs/metadata_readahead.h"
#include "kudu/tools/block_workload.h"
#include "kudu/tools/page_cache.h"
#include "kudu/util/env.h"
#include "kudu/util/io_fault_injector.h"
#include "util/fs_fixture_util.h"
#include "util/open_describe.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

using fs::ReadaheadMode;

#define RA_ASSERT_OK(expr)                         \
  do {                                             \
    ::kudu::Status _st = (expr);                   \
    ASSERT_TRUE(_st.ok()) << _st.ToString();       \
  } while (0)

const std::vector<ReadaheadMode> kModes = {ReadaheadMode::kNone, ReadaheadMode::kFadvise};
const std::vector<StrategyChoice> kChoices = {StrategyChoice::kStreaming,
                                              StrategyChoice::kInMemory,
                                              StrategyChoice::kWindowed, StrategyChoice::kAuto};

std::vector<std::string> MetadataFilesIn(const std::string& root) {
  std::vector<std::string> names, out;
  const std::string data = fs::LogBlockContainerWriter::DataDir(root);
  if (!env::ListDir(data, &names).ok()) return out;
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) {
    if (n.size() > 9 && n.compare(n.size() - 9, 9, ".metadata") == 0) {
      out.push_back(env::JoinPath(data, n));
    }
  }
  return out;
}

// A generated two-dir state: `containers` containers with deleted blocks,
// one with a torn append (a partial trailing record, decided by every
// strategy in one pass), an incomplete container, and with `corrupt` a record in
// the middle of one metadata file damaged (a fatal corruption).
void MakeState(const test::TempDir& tmp, const ServerKey* key, int containers, bool corrupt,
               std::vector<std::string>* roots) {
  *roots = {tmp.Join("dir0"), tmp.Join("dir1")};
  tools::BlockWorkloadOptions wo;
  wo.writer.data_dirs = *roots;
  wo.writer.server_key = key;
  wo.writer.sync = false;
  wo.writer.fs_block_size = 4096;
  wo.containers = containers;
  wo.blocks_per_container = 8;
  wo.deleted_block_percentage = 30;
  wo.max_block_size = 512;
  wo.max_group_size = 3;
  wo.seed = 11;
  tools::BlockWorkloadResult gen;
  RA_ASSERT_OK(tools::RunBlockWorkload(wo, &gen));
  const std::vector<std::string> m0 = MetadataFilesIn((*roots)[0]);
  const std::vector<std::string> m1 = MetadataFilesIn((*roots)[1]);
  ASSERT_GE(m0.size(), 3u);
  ASSERT_GE(m1.size(), 3u);
  RA_ASSERT_OK(test::AppendZeros(m0[1], 30));
  if (corrupt) {
    const uint64_t size = test::FileSizeOrDie(m1[2]);
    RA_ASSERT_OK(test::FlipByte(m1[2], size / 2, 0x5a));
  }
  test::HandContainer hc;
  RA_ASSERT_OK(test::WriteHandContainer((*roots)[1], test::ContainerIdFor(77), key ? 64 : 0,
                                        nullptr, key, &hc));
}

fs::BlockManagerOpenOptions Options(const std::vector<std::string>& roots, const ServerKey* key,
                                    StrategyChoice choice, ReadaheadMode mode, int threads) {
  fs::BlockManagerOpenOptions o = test::OpenOptions(roots, key, choice);
  o.threads_per_dir = threads;
  o.progress_every = 0;
  o.policy.window_bytes = 64;  // Windowed: many windows per file
  o.readahead.mode = mode;
  o.readahead.containers_per_thread = 2;
  return o;
}

class OpenReadaheadTest : public ::testing::TestWithParam<bool> {
 protected:
  static void SetUpTestSuite() { FLAGS_minloglevel = 3; }
  void SetUp() override {
    encrypted_ = GetParam();
    key_ = test::TestServerKey(16);
  }
  const ServerKey* key() const { return encrypted_ ? &key_ : nullptr; }

  test::TempDir tmp_;
  bool encrypted_ = false;
  ServerKey key_;
};

void CheckIdenticalOpens(const std::vector<std::string>& roots, const ServerKey* key,
                         bool expect_ok) {
  for (StrategyChoice choice : kChoices) {
    fs::OpenResult ref;
    fs::OpenBlockManager(Options(roots, key, choice, ReadaheadMode::kNone, 1), &ref);
    ASSERT_EQ(expect_ok, ref.ok()) << ref.status.ToString();
    ASSERT_EQ(0u, ref.replay.readahead_files);
    const std::string want = test::DescribeOpen(ref);
    for (ReadaheadMode mode : kModes) {
      for (int threads : {1, 3}) {
        const std::string what = std::string(StrategyChoiceName(choice)) + " with read-ahead " +
                                 fs::ReadaheadModeName(mode) + ", " + std::to_string(threads) +
                                 " threads per dir";
        fs::OpenResult r;
        fs::OpenBlockManager(Options(roots, key, choice, mode, threads), &r);
        ASSERT_EQ(want, test::DescribeOpen(r)) << what;
        ASSERT_EQ(test::StableReport(ref).dump(), test::StableReport(r).dump()) << what;
        if (mode == ReadaheadMode::kNone) continue;
        // fadvise advises from the claiming thread, so every open with it
        // reads ahead; the replay still reads every byte itself.
        EXPECT_EQ(ReadaheadMode::kFadvise, r.replay.readahead_mode) << what;
        EXPECT_GT(r.replay.readahead_files, 0u) << what;
      }
    }
  }
}

TEST_P(OpenReadaheadTest, ReadaheadGivesIdenticalOpens) {
  std::vector<std::string> roots;
  ASSERT_NO_FATAL_FAILURE(MakeState(tmp_, key(), 16, /*corrupt=*/false, &roots));
  ASSERT_NO_FATAL_FAILURE(CheckIdenticalOpens(roots, key(), /*expect_ok=*/true));
}

TEST_P(OpenReadaheadTest, ReadaheadGivesIdenticalFailedOpens) {
  std::vector<std::string> roots;
  ASSERT_NO_FATAL_FAILURE(MakeState(tmp_, key(), 16, /*corrupt=*/true, &roots));
  ASSERT_NO_FATAL_FAILURE(CheckIdenticalOpens(roots, key(), /*expect_ok=*/false));
}

// Every read of an open with read-ahead on fails once, in turn.
TEST_P(OpenReadaheadTest, ReadFaultsWithReadaheadOn) {
  std::vector<std::string> roots;
  ASSERT_NO_FATAL_FAILURE(MakeState(tmp_, key(), 8, /*corrupt=*/false, &roots));
  uint64_t fired = 0, absorbed = 0, failed = 0;
  for (ReadaheadMode mode : {ReadaheadMode::kFadvise}) {
    // Streaming too: a plain in-memory open absorbs every single fault (its
    // fallback reads again), so only Streaming's reads can fail a plain open.
    for (StrategyChoice choice :
         {StrategyChoice::kInMemory, StrategyChoice::kAuto, StrategyChoice::kStreaming}) {
      for (int threads : {1, 2}) {
        if (choice == StrategyChoice::kStreaming && threads > 1) continue;  // reads a lot
        const fs::BlockManagerOpenOptions opts = Options(roots, key(), choice, mode, threads);
        IoFaultInjector::Disarm();
        fs::OpenResult ref;
        ASSERT_TRUE(fs::OpenBlockManager(opts, &ref).ok()) << ref.status.ToString();
        const std::string want = test::DescribeOpen(ref);
        const uint64_t reads = IoFaultInjector::Count(IoOp::kRead);
        ASSERT_GT(reads, 4u);
        for (uint64_t k = 1; k <= reads + 1; k++) {
          for (IoFault fault : {IoFault::kEIO, IoFault::kShortRead, IoFault::kUnexpectedEof}) {
            const std::string what =
                std::string(fs::ReadaheadModeName(mode)) + " " + StrategyChoiceName(choice) +
                " x" + std::to_string(threads) + ": read " + std::to_string(k) + " of " +
                std::to_string(reads) + " fails with fault " +
                std::to_string(static_cast<int>(fault));
            IoFaultInjector::Arm(IoOp::kRead, k, fault);
            fs::OpenResult r;
            fs::OpenBlockManager(opts, &r);
            const bool did_fire = IoFaultInjector::Fired();
            IoFaultInjector::Disarm();
            if (!did_fire || r.ok() || fault == IoFault::kShortRead) {
              ASSERT_TRUE(r.ok()) << what << ": " << r.status.ToString();
              ASSERT_EQ(want, test::DescribeOpen(r)) << what;
              if (did_fire) {
                fired++;
                absorbed++;
              }
            } else {
              fired++;
              failed++;
              ASSERT_EQ(nullptr, r.block_map) << what;
              ASSERT_EQ(fs::OpenResult::Failure::kInconsistent, r.failure) << what;
              ASSERT_TRUE(r.status.IsIOError()) << what << ": " << r.status.ToString();
              // A metadata file's read, or, encrypted, a data file header's (§4.1).
              ASSERT_TRUE(r.status.ToString().find(".metadata") != std::string::npos ||
                          (encrypted_ && r.status.ToString().find(".data") != std::string::npos))
                  << what << ": " << r.status.ToString();
              int faulted = 0;
              ASSERT_EQ(ref.containers.size(), r.containers.size());
              for (size_t i = 0; i < r.containers.size(); i++) {
                if (r.containers[i].fatal()) {
                  faulted++;
                  ASSERT_EQ(fs::ContainerProblem::Kind::kIOError,
                            r.containers[i].problems[0].kind) << what;
                } else {
                  ASSERT_EQ(test::DescribeContainer(ref.containers[i]),
                            test::DescribeContainer(r.containers[i])) << what;
                }
              }
              ASSERT_EQ(1, faulted) << what;
            }
          }
        }
        fs::OpenResult again;
        ASSERT_TRUE(fs::OpenBlockManager(opts, &again).ok());
        ASSERT_EQ(want, test::DescribeOpen(again));
      }
    }
  }
  std::cout << "[readahead faults] " << (encrypted_ ? "encrypted" : "plain") << ": " << fired
            << " faults injected, " << absorbed << " absorbed, " << failed
            << " failed with an I/O error naming the file" << std::endl;
  EXPECT_GT(absorbed, 0u);
  EXPECT_GT(failed, 0u);
}

INSTANTIATE_TEST_SUITE_P(Encryption, OpenReadaheadTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? "encrypted" : "plain";
                         });

// Many small metadata files, sizes varied.
void WriteFiles(const test::TempDir& tmp, int n, std::vector<fs::DirReadahead::Entry>* queue,
                std::vector<std::string>* contents) {
  for (int i = 0; i < n; i++) {
    const std::string path = tmp.Join("f" + std::to_string(i) + ".metadata");
    RA_ASSERT_OK(test::WriteMetadataFile(path, test::MakeRecordSequence(20 + (i * 37) % 400)));
    std::string bytes;
    RA_ASSERT_OK(test::ReadFileToString(path, &bytes));
    queue->push_back(fs::DirReadahead::Entry{path, bytes.size()});
    contents->push_back(std::move(bytes));
  }
}

// fadvise read-ahead on its own: after one claim it has advised at most
// half the budget of bytes (and at least one file); once every position is
// claimed, each position after the first wave was advised exactly once. It
// holds no budget.
TEST(DirReadaheadTest, AdvisesAtMostHalfTheBudgetAheadAndEveryPositionOnce) {
  test::TempDir tmp;
  std::vector<fs::DirReadahead::Entry> queue;
  std::vector<std::string> contents;
  ASSERT_NO_FATAL_FAILURE(WriteFiles(tmp, 40, &queue, &contents));
  uint64_t largest = 0, total = 0;
  for (const auto& e : queue) {
    largest = std::max(largest, e.bytes);
    total += e.bytes;
  }
  for (uint64_t budget_bytes : {largest, uint64_t{6} * largest, uint64_t{16} << 20}) {
    ByteBudget budget(budget_bytes);
    ReplayStats stats;
    fs::ReadaheadOptions ro;
    ro.mode = ReadaheadMode::kFadvise;
    ro.containers_per_thread = 16;
    fs::DirReadahead ra(ro, queue, 2, 2, &budget, &stats);
    ASSERT_EQ(ReadaheadMode::kFadvise, ra.mode());
    ra.Claim(0);
    ra.Claim(1);
    EXPECT_GE(stats.readahead_files.load(), 1u) << budget_bytes;
    if (stats.readahead_files.load() > 1) {
      EXPECT_LE(stats.readahead_bytes.load(), budget_bytes / 2) << budget_bytes;
    }
    for (size_t k = 2; k < queue.size(); k++) ra.Claim(k);
    // Positions 0 and 1 are the first wave of two threads.
    EXPECT_EQ(queue.size() - 2, stats.readahead_files.load()) << budget_bytes;
    EXPECT_EQ(total - queue[0].bytes - queue[1].bytes, stats.readahead_bytes.load())
        << budget_bytes;
    EXPECT_EQ(0u, stats.readahead_failed.load()) << budget_bytes;
    EXPECT_EQ(0u, budget.peak()) << budget_bytes;
  }
}

// A missing file, or one that shrank: the read-ahead of the first is counted
// as failed and left to the replay, the second is advised for the bytes the
// listing gave (advice past its end reads nothing); neither is an error.
TEST(DirReadaheadTest, MissingAndShrunkFiles) {
  test::TempDir tmp;
  std::vector<fs::DirReadahead::Entry> queue;
  std::vector<std::string> contents;
  ASSERT_NO_FATAL_FAILURE(WriteFiles(tmp, 6, &queue, &contents));
  queue[2].path = tmp.Join("missing.metadata");
  RA_ASSERT_OK(test::TruncateFileTo(queue[3].path, 10));
  ByteBudget budget(1 << 20);
  ReplayStats stats;
  fs::ReadaheadOptions ro;
  ro.mode = ReadaheadMode::kFadvise;
  ro.containers_per_thread = 8;
  fs::DirReadahead ra(ro, queue, 1, 1, &budget, &stats);
  for (size_t k = 0; k < queue.size(); k++) ra.Claim(k);
  EXPECT_EQ(1u, stats.readahead_failed.load());
  EXPECT_EQ(4u, stats.readahead_files.load());  // 1, 3, 4, 5 (0 is the first wave)
  EXPECT_EQ(queue[1].bytes + queue[3].bytes + queue[4].bytes + queue[5].bytes,
            stats.readahead_bytes.load());
}

// Files the listing holds open are advised through their descriptors, not
// opened by name again: a held file whose name is gone is still read ahead
// (by name it would fail), and its descriptor is back in its slot
// afterwards. A slot without a descriptor falls back to the name.
TEST(DirReadaheadTest, AdvisesTheListingsHeldDescriptorsWithoutOpeningByName) {
  test::TempDir tmp;
  std::vector<fs::DirReadahead::Entry> queue;
  std::vector<std::string> contents;
  ASSERT_NO_FATAL_FAILURE(WriteFiles(tmp, 8, &queue, &contents));
  std::vector<int> fds;
  for (size_t i = 0; i < queue.size(); i++) {
    fds.push_back(::open(queue[i].path.c_str(), O_RDONLY | O_CLOEXEC));
    ASSERT_GE(fds.back(), 0);
  }
  const std::vector<int> issued = fds;
  fds[3] = -1;  // not held: advised by name
  ::close(issued[3]);
  fds[5] = -1;  // not held, and gone: the replay's to report
  ::close(issued[5]);
  HeldFiles held;
  held.Reset(fds);
  for (size_t i = 0; i < queue.size(); i++) {
    queue[i].held = held.slot(i);
    if (i != 3) {
      ASSERT_EQ(0, ::unlink(queue[i].path.c_str())) << queue[i].path;
    }
  }
  ReplayStats stats;
  fs::ReadaheadOptions ro;
  ro.mode = ReadaheadMode::kFadvise;
  ro.containers_per_thread = 8;
  fs::DirReadahead ra(ro, queue, 1, 1, nullptr, &stats);
  for (size_t k = 0; k < queue.size(); k++) ra.Claim(k);
  EXPECT_EQ(6u, stats.readahead_files.load());  // 1-7 but 5 (0 is the first wave)
  EXPECT_EQ(1u, stats.readahead_failed.load());
  for (size_t i = 0; i < queue.size(); i++) {
    EXPECT_EQ(fds[i], *held.slot(i)) << i;
  }
}

// A warm restart: while the whole-file reads of the open found their files
// in the page cache (a first wave of them at least, all but fewer than one
// in eight), nothing is advised; reads that were not all cached, or went
// past the cache, turn read-ahead back on from the next claim, and enough
// cached ones turn it off again. Without probes (Streaming) it always reads
// ahead.
TEST(DirReadaheadTest, NothingAheadWhileEveryWholeFileReadFoundItsFileCached) {
  test::TempDir tmp;
  std::vector<fs::DirReadahead::Entry> queue;
  std::vector<std::string> contents;
  ASSERT_NO_FATAL_FAILURE(WriteFiles(tmp, 12, &queue, &contents));
  fs::ReadaheadOptions ro;
  ro.mode = ReadaheadMode::kFadvise;
  ro.containers_per_thread = 1;  // two threads: two positions ahead of a claim
  for (auto turn_cold : {&ReplayStats::cache_probe_misses, &ReplayStats::direct_reads}) {
    ReplayStats stats;
    fs::DirReadahead ra(ro, queue, 2, 2, nullptr, &stats);
    ra.Claim(0);  // the first wave, before any read: 2 and 3 advised
    ra.Claim(1);
    EXPECT_EQ(2u, stats.readahead_files.load());
    stats.Add(stats.cache_probe_hits, 2);  // both found cached
    for (size_t k = 2; k < 6; k++) ra.Claim(k);
    EXPECT_EQ(2u, stats.readahead_files.load());
    stats.Add(stats.*turn_cold, 1);  // one in three missed
    ra.Claim(6);
    EXPECT_EQ(4u, stats.readahead_files.load());  // 7 and 8
    stats.Add(stats.cache_probe_hits, 5);  // one in eight
    ra.Claim(7);
    EXPECT_EQ(5u, stats.readahead_files.load());  // 9
    stats.Add(stats.cache_probe_hits, 1);  // one in nine
    ra.Claim(8);
    EXPECT_EQ(5u, stats.readahead_files.load());
  }
  {
    ReplayStats stats;  // one of the first wave's reads done: too early to tell
    fs::DirReadahead ra(ro, queue, 2, 2, nullptr, &stats);
    ra.Claim(0);
    ra.Claim(1);
    stats.Add(stats.cache_probe_hits, 1);
    ra.Claim(2);
    EXPECT_EQ(3u, stats.readahead_files.load());
  }
  {
    ReplayStats stats;  // no whole-file reads at all (Streaming)
    fs::DirReadahead ra(ro, queue, 2, 2, nullptr, &stats);
    for (size_t k = 0; k < queue.size(); k++) ra.Claim(k);
    EXPECT_EQ(queue.size() - 2, stats.readahead_files.load());
  }
}

// A first wave of one of four threads (the other three held while the open
// looks warm, ReplayThreadGate): the positions they would have claimed at
// once are not theirs yet, so the first claim reads them ahead too.
TEST(DirReadaheadTest, ReadsAheadFromTheEndOfTheFirstWave) {
  test::TempDir tmp;
  std::vector<fs::DirReadahead::Entry> queue;
  std::vector<std::string> contents;
  ASSERT_NO_FATAL_FAILURE(WriteFiles(tmp, 12, &queue, &contents));
  fs::ReadaheadOptions ro;
  ro.mode = ReadaheadMode::kFadvise;
  ro.containers_per_thread = 1;  // four threads: four positions ahead of a claim
  ReplayStats stats;
  fs::DirReadahead ra(ro, queue, 4, 1, nullptr, &stats);
  ra.Claim(0);
  EXPECT_EQ(4u, stats.readahead_files.load());  // 1 to 4
  EXPECT_EQ(queue[1].bytes + queue[2].bytes + queue[3].bytes + queue[4].bytes,
            stats.readahead_bytes.load());
}

// A tight budget, many threads, read-ahead on: the open never holds more
// than the budget, nothing deadlocks, and the result is the reference.
// Files of 256 KiB or more that the in-memory replay reads past the page
// cache while they are not in it are left to that read: read ahead, they
// would be found cached and copied out of the page cache. Read through the
// cache (direct reads off, or Streaming), they are read ahead as before.
TEST(OpenReadaheadLargeFilesTest, FilesReadPastTheCacheAreNotReadAhead) {
  test::TempDir tmp;
  const std::vector<std::string> roots = {tmp.Join("d0")};
  tools::BlockWorkloadOptions wo;
  wo.writer.data_dirs = roots;
  wo.writer.sync = false;
  wo.writer.sparse_data = true;
  wo.containers = 6;
  wo.blocks_per_container = 9000;
  wo.deleted_block_percentage = 0;
  wo.seed = 5;
  tools::BlockWorkloadResult gen;
  RA_ASSERT_OK(tools::RunBlockWorkload(wo, &gen));
  const std::vector<std::string> files = MetadataFilesIn(roots[0]);
  ASSERT_EQ(6u, files.size());
  for (const std::string& f : files) ASSERT_GE(test::FileSizeOrDie(f), kMinDirectReadBytes) << f;
  struct statfs fs_info;
  constexpr long kTmpfsMagic = 0x01021994;
  if (::statfs(files[0].c_str(), &fs_info) == 0 && fs_info.f_type == kTmpfsMagic) {
    GTEST_SKIP() << tmp.path() << " is on tmpfs: its files cannot be made cold";
  }
  const struct {
    StrategyChoice choice;
    DirectReadMode direct;
    bool read_ahead;
  } rows[] = {
      {StrategyChoice::kAuto, DirectReadMode::kCold, false},
      {StrategyChoice::kInMemory, DirectReadMode::kCold, false},
      {StrategyChoice::kAuto, DirectReadMode::kAlways, false},
      {StrategyChoice::kAuto, DirectReadMode::kNever, true},
      {StrategyChoice::kStreaming, DirectReadMode::kCold, true},
  };
  for (const auto& row : rows) {
    const std::string what = std::string(StrategyChoiceName(row.choice)) + ", direct reads " +
                             DirectReadModeName(row.direct);
    // Cold, or the read-ahead would hold back as for a warm restart.
    ::sync();
    for (const std::string& f : files) {
      std::unique_ptr<RandomAccessFile> file;
      RA_ASSERT_OK(RandomAccessFile::Open(f, nullptr, &file));
      tools::DropFromPageCache(*file);
    }
    fs::BlockManagerOpenOptions o = Options(roots, nullptr, row.choice, ReadaheadMode::kFadvise, 1);
    o.policy.direct_read = row.direct;
    fs::OpenResult r;
    fs::OpenBlockManager(o, &r);
    ASSERT_TRUE(r.ok()) << what << ": " << r.status.ToString();
    EXPECT_EQ(gen.blocks_created, r.block_map->size()) << what;
    if (row.read_ahead) {
      EXPECT_GT(r.replay.readahead_files, 0u) << what;
    } else {
      EXPECT_EQ(0u, r.replay.readahead_files) << what;
    }
  }
}

TEST(OpenReadaheadBudgetTest, TightBudgetManyThreads) {
  test::TempDir tmp;
  std::vector<std::string> roots;
  ASSERT_NO_FATAL_FAILURE(MakeState(tmp, nullptr, 60, /*corrupt=*/false, &roots));
  uint64_t metadata = 0;
  for (const auto& root : roots) {
    for (const auto& p : MetadataFilesIn(root)) metadata += test::FileSizeOrDie(p);
  }
  fs::BlockManagerOpenOptions ref_opts =
      Options(roots, nullptr, StrategyChoice::kAuto, ReadaheadMode::kNone, 1);
  fs::OpenResult ref;
  ASSERT_TRUE(fs::OpenBlockManager(ref_opts, &ref).ok());
  const std::string want = test::DescribeOpen(ref);
  for (uint64_t budget : {metadata / 20, metadata / 5}) {
    for (StrategyChoice choice : {StrategyChoice::kAuto, StrategyChoice::kInMemory}) {
      fs::BlockManagerOpenOptions o = Options(roots, nullptr, choice, ReadaheadMode::kFadvise, 16);
      o.policy.memory_budget_bytes = budget;
      o.policy.budget_wait_ms = 5;
      o.policy.window_bytes = 64 << 10;
      o.readahead.containers_per_thread = 8;
      fs::OpenResult r;
      ASSERT_TRUE(fs::OpenBlockManager(o, &r).ok()) << r.status.ToString();
      ASSERT_EQ(want, test::DescribeOpen(r)) << budget;
      EXPECT_LE(r.replay.peak_buffer_bytes, budget) << budget;
      EXPECT_EQ(budget, r.replay.memory_budget_bytes);
    }
  }
}

}  // namespace
}  // namespace fs
}  // namespace kudu
