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

// The Windowed strategy: Streaming's records and outcome whatever the window
// (down to one byte, so records straddle window boundaries at every
// position), zero-filled tails longer than the window and than the 4 MiB
// check chunk, the all-zero rule across windows, one read per window, memory
// bounded by the window, and the window flag. A record larger than the window
// and the fallback it causes are in windowed_replay_fallback_test.cc.
#include "kudu/fs/windowed_replay.h"

#include <gflags/gflags.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <new>
#include <random>

#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/fs/replay_policy.h"
#include "kudu/fs/replay_window.h"
#include "kudu/fs/window_record_source.h"
#include "kudu/util/file.h"
#include "kudu/util/zero_rule.h"
#include "util/replay_test_util.h"
#include "util/test_util.h"

DECLARE_uint64(log_container_metadata_replay_window_bytes);

// Counts heap allocations, to show that replay allocates nothing per record.
// (GCC cannot see that these replacements pair malloc with free.)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
std::atomic<uint64_t> g_allocations{0};
}  // namespace
void* operator new(size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

namespace kudu {
namespace test {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

struct Variant {
  uint32_t version;
  size_t key_bytes;  // 0: plain
  CipherAlgorithm algorithm;
  std::string Name() const {
    return "v" + std::to_string(version) +
           (key_bytes ? "_enc" + std::to_string(FileKeySize(algorithm) * 8) : "_plain");
  }
};

const Variant kVariants[] = {
    {1, 0, CipherAlgorithm::kAes128Ctr},  {2, 0, CipherAlgorithm::kAes128Ctr},
    {1, 16, CipherAlgorithm::kAes128Ctr}, {2, 16, CipherAlgorithm::kAes128Ctr},
    {1, 32, CipherAlgorithm::kAes256Ctr}, {2, 24, CipherAlgorithm::kAes192Ctr},
};

class WindowedReplayTest : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    const Variant& v = GetParam();
    if (v.key_bytes) key_ = TestServerKey(v.key_bytes);
    opts_.version = v.version;
    opts_.server_key = v.key_bytes ? &key_ : nullptr;
    opts_.algorithm = v.algorithm;
    path_ = dir_.Join("c.metadata");
  }
  const ServerKey* key() const { return opts_.server_key; }
  bool encrypted() const { return opts_.server_key != nullptr; }

  // Writes `n` records; returns the record offsets.
  std::vector<uint64_t> Write(int n) {
    EXPECT_TRUE(WriteMetadataFile(path_, MakeRecordSequence(n), opts_).ok());
    StrategyRun ref = RunStrategy(fs::ReplayStrategyKind::kStreaming, path_, key());
    EXPECT_TRUE(ref.outcome.clean()) << ref.outcome.ToString();
    std::vector<uint64_t> offsets;
    for (const auto& e : ref.records) offsets.push_back(e.offset);
    return offsets;
  }

  StrategyRun Reference() { return RunStrategy(fs::ReplayStrategyKind::kStreaming, path_, key()); }

  // Windowed with `window` gives exactly Streaming's records and outcome.
  void ExpectWindowedSame(size_t window, const std::string& what) {
    ExpectWindowedSame(Reference(), window, what);
  }
  void ExpectWindowedSame(const StrategyRun& ref, size_t window, const std::string& what) {
    StrategyRun run = RunStrategy(fs::ReplayStrategyKind::kWindowed, path_, key(), window);
    ASSERT_TRUE(run.outcome.SameAs(ref.outcome))
        << what << ", window " << window << ": windowed '" << run.outcome.ToString()
        << "', streaming '" << ref.outcome.ToString() << "'";
    ASSERT_TRUE(run.records == ref.records)
        << what << ", window " << window << ": windowed delivered " << run.records.size()
        << " records, streaming " << ref.records.size();
  }

  static std::vector<size_t> SmallAndOddWindows() {
    std::vector<size_t> w;
    for (size_t i = 1; i <= 64; i++) w.push_back(i);
    for (size_t i : {65, 97, 127, 211, 509, 1021, 4093, 65535, 65536, 65537, 100003}) {
      w.push_back(i);
    }
    return w;
  }

  TempDir dir_;
  ServerKey key_;
  MetadataFileOptions opts_;
  std::string path_;
};

TEST_P(WindowedReplayTest, EveryWindowSizeGivesStreamingsResult) {
  std::vector<uint64_t> offsets = Write(300);
  std::string pristine;
  ASSERT_TRUE(ReadFileToString(path_, &pristine).ok());
  const uint64_t size = pristine.size();
  struct Damage {
    std::string name;
    std::function<Status()> apply;
  };
  const uint64_t mid = offsets[150];
  const std::vector<Damage> damages = {
      {"healthy", [] { return Status::OK(); }},
      {"truncated inside a record", [&] { return TruncateFileTo(path_, mid + 5); }},
      {"byte flipped in a body", [&] { return FlipByte(path_, mid + 10); }},
      {"zero-filled from a record", [&] { return ZeroFillFrom(path_, offsets[280]); }},
      {"zero-filled from inside a record", [&] { return ZeroFillFrom(path_, offsets[280] + 3); }},
      {"zeros appended", [&] { return AppendZeros(path_, 1000); }},
      {"zeros in the middle", [&] {
         std::string b = pristine;
         for (uint64_t k = mid; k < mid + 12; k++) b[k] = 0;
         return WriteStringToFile(path_, b);
       }},
      {"truncated by one byte", [&] { return TruncateFileTo(path_, size - 1); }},
  };
  for (const Damage& d : damages) {
    ASSERT_TRUE(WriteStringToFile(path_, pristine).ok());
    ASSERT_TRUE(d.apply().ok()) << d.name;
    const StrategyRun ref = Reference();
    for (size_t w : SmallAndOddWindows()) {
      ASSERT_NO_FATAL_FAILURE(ExpectWindowedSame(ref, w, d.name));
    }
  }
}

// A zero-filled tail longer than the window and longer than the 4 MiB chunk
// of the zero check; a non-zero byte at the edges of the chunks makes it
// corruption instead.
TEST_P(WindowedReplayTest, LongZeroTails) {
  Write(200);
  std::string pristine;
  ASSERT_TRUE(ReadFileToString(path_, &pristine).ok());
  const uint64_t tail_start = pristine.size();
  for (uint64_t tail : {uint64_t{100} * 1024 + 3, 4 * kMiB + 5, 9 * kMiB}) {
    ASSERT_TRUE(WriteStringToFile(path_, pristine).ok());
    ASSERT_TRUE(AppendZeros(path_, tail).ok());
    const StrategyRun ref = Reference();
    EXPECT_EQ(GetParam().version == 2 ? fs::ReplayOutcome::Kind::kPartialRecord
                                      : fs::ReplayOutcome::Kind::kCorruption,
              ref.outcome.kind);
    EXPECT_EQ(tail_start, ref.outcome.offset);
    EXPECT_EQ(200u, ref.records.size());
    for (size_t w : {size_t{64} * 1024, size_t{100} * 1024 + 3, size_t{1} * kMiB}) {
      ASSERT_NO_FATAL_FAILURE(ExpectWindowedSame(ref, w, "zero tail of " + std::to_string(tail)));
    }
    // The check's chunks start 8 bytes into the tail (after len, len_crc):
    // a non-zero byte at the edges of chunks and windows.
    const uint64_t chunk_start = tail_start + 8;
    for (uint64_t pos : {chunk_start, chunk_start + 64 * 1024 - 1, chunk_start + 64 * 1024,
                         chunk_start + 4 * kMiB - 1, chunk_start + 4 * kMiB,
                         tail_start + tail - 1}) {
      if (pos >= tail_start + tail) continue;
      ASSERT_TRUE(SetByte(path_, pos, 7).ok());
      const StrategyRun bad = Reference();
      EXPECT_FALSE(bad.outcome.clean());
      for (size_t w : {size_t{64} * 1024, size_t{100} * 1024 + 3}) {
        ASSERT_NO_FATAL_FAILURE(ExpectWindowedSame(
            bad, w, "zero tail of " + std::to_string(tail) + ", byte 7 at " + std::to_string(pos)));
      }
      ASSERT_TRUE(SetByte(path_, pos, 0).ok());
    }
  }
}

// Zero ciphertext indexed across many windows: zeroed spans in the middle
// of the file at every offset modulo a small window.
TEST_P(WindowedReplayTest, ZeroSpansAcrossWindowBoundaries) {
  std::vector<uint64_t> offsets = Write(120);
  std::string pristine;
  ASSERT_TRUE(ReadFileToString(path_, &pristine).ok());
  for (uint64_t start = offsets[60]; start < offsets[62]; start += 3) {
    for (uint64_t len : {3, 4, 8, 13}) {
      std::string b = pristine;
      for (uint64_t k = start; k < start + len; k++) b[k] = 0;
      ASSERT_TRUE(WriteStringToFile(path_, b).ok());
      for (size_t w : {5, 9, 16, 31, 48}) {
        ASSERT_NO_FATAL_FAILURE(ExpectWindowedSame(
            w, "zeroed " + std::to_string(len) + " bytes at " + std::to_string(start)));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, WindowedReplayTest, ::testing::ValuesIn(kVariants),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return info.param.Name();
                         });

// ---------------------------------------------------------------------------
// Encryption: the all-zero rule across windows and chunks.

TEST(WindowedReplayEncryptionTest, ZeroTailsOfMixedCiphertextAndPlaintext) {
  TempDir dir;
  const ServerKey key = TestServerKey(16);
  MetadataFileOptions opts;
  opts.server_key = &key;
  const std::string path = dir.Join("c.metadata");
  ASSERT_TRUE(WriteMetadataFile(path, MakeRecordSequence(100), opts).ok());
  std::string pristine;
  ASSERT_TRUE(ReadFileToString(path, &pristine).ok());
  const uint64_t s = pristine.size();
  struct Case {
    const char* name;
    uint64_t zero_ct;   // raw zero bytes first
    uint64_t zero_pt;   // then encrypted zeros
    fs::ReplayOutcome::Kind expected;
  };
  const Case cases[] = {
      // Plaintext zeros: len and len_crc read as zeros, every chunk decrypts to zeros.
      {"encrypted zeros", 0, 6 * kMiB, fs::ReplayOutcome::Kind::kPartialRecord},
      // One chunk holding both: neither its ciphertext nor its plaintext is all zero.
      {"zero ciphertext then encrypted zeros in one chunk", 2 * kMiB, 3 * kMiB,
       fs::ReplayOutcome::Kind::kCorruption},
      // Chunk 1 all zero ciphertext, chunk 2 all zero plaintext: both read as zeros.
      {"chunk of zero ciphertext then chunk of encrypted zeros", 8 + 4 * kMiB, 3 * kMiB,
       fs::ReplayOutcome::Kind::kPartialRecord},
      {"one byte short of that", 7 + 4 * kMiB, 3 * kMiB + 1, fs::ReplayOutcome::Kind::kCorruption},
  };
  for (const Case& c : cases) {
    ASSERT_TRUE(WriteStringToFile(path, pristine).ok());
    if (c.zero_ct) {
      ASSERT_TRUE(AppendZeros(path, c.zero_ct).ok());
    }
    if (c.zero_pt) {
      ASSERT_TRUE(AppendEncryptedZeros(path, key, c.zero_pt).ok());
    }
    fs::ReplayOutcome::Kind expected = c.expected;
    if (c.zero_ct == 7 + 4 * kMiB) {
      // The file key is random: with probability 1/256 the first keystream
      // byte after the zero ciphertext is itself 0, which makes that byte
      // zero ciphertext too and turns the tail into a zero tail.
      std::unique_ptr<RandomAccessFile> f;
      ASSERT_TRUE(RandomAccessFile::Open(path, &key, &f).ok());
      uint8_t zero = 0, ks = 0;
      ASSERT_TRUE(f->cipher()->Crypt(s + c.zero_ct, &zero, &ks, 1).ok());
      if (ks == 0) expected = fs::ReplayOutcome::Kind::kPartialRecord;
    }
    StrategyRun ref = RunStrategy(fs::ReplayStrategyKind::kStreaming, path, &key);
    EXPECT_EQ(expected, ref.outcome.kind) << c.name << ": " << ref.outcome.ToString();
    EXPECT_EQ(s, ref.outcome.offset) << c.name;
    EXPECT_EQ("", CompareWithStreaming(path, &key, {1, 64 * 1024, kMiB + 1, 4 * kMiB})) << c.name;
  }
}

// Ciphertext with more zero runs than one window indexes (a damaged or
// adversarial file): those windows are decrypted read by read, still exact.
TEST(WindowedReplayEncryptionTest, WindowsWithManyZeroRunsAreExact) {
  TempDir dir;
  const ServerKey key = TestServerKey(32);
  for (uint32_t version : {1u, 2u}) {
    MetadataFileOptions opts;
    opts.version = version;
    opts.server_key = &key;
    opts.algorithm = CipherAlgorithm::kAes256Ctr;
    const std::string path = dir.Join("c" + std::to_string(version));
    // (a) Runs after 200 records: the first window is read per read from the
    // file header on. (b) Runs from the middle of 3000 records.
    for (int which = 0; which < 2; which++) {
      const int n = which == 0 ? 200 : 3000;
      ASSERT_TRUE(WriteMetadataFile(path, MakeRecordSequence(n), opts).ok());
      std::string b;
      ASSERT_TRUE(ReadFileToString(path, &b).ok());
      uint64_t from = b.size();
      if (which == 0) {
        b.append(40000, '\x5a');
      } else {
        from = b.size() / 4;
      }
      for (uint64_t k = from; k + 4 <= b.size(); k += 9) std::memset(&b[k], 0, 4);
      ASSERT_TRUE(WriteStringToFile(path, b).ok());
      StrategyRun ref = RunStrategy(fs::ReplayStrategyKind::kStreaming, path, &key);
      EXPECT_FALSE(ref.outcome.clean());
      for (size_t w : {size_t{1}, size_t{64} * 1024, size_t{100} * 1024 + 1, size_t{1} * kMiB}) {
        std::unique_ptr<RandomAccessFile> file;
        ASSERT_TRUE(RandomAccessFile::Open(path, &key, &file).ok());
        fs::WindowedReplay windowed(w);
        CapturingSink sink;
        fs::ReplayOutcome out = windowed.Replay(file.get(), &sink);
        EXPECT_TRUE(out.SameAs(ref.outcome))
            << "v" << version << " case " << which << " window " << w << ": " << out.ToString()
            << " vs " << ref.outcome.ToString();
        EXPECT_TRUE(sink.entries == ref.records) << "v" << version << " window " << w;
        if (w >= 64 * 1024) {
          EXPECT_GT(windowed.last_stats().per_read_windows, 0u);
        }
        EXPECT_LE(windowed.zero_run_index_runs(), kMaxIndexedZeroRuns);
      }
    }
  }
}

// Encrypted-InMemory indexes a whole file's zero-ciphertext runs, 16 bytes
// each outside the replay budget: a file with more than one per KiB (a
// damaged or adversarial one) is refused with an I/O-class error, which
// Streaming takes over, rather than indexed; one with a few is replayed.
TEST(WindowedReplayEncryptionTest, EncryptedInMemoryRefusesAFileOfZeroRuns) {
  TempDir dir;
  const ServerKey key = TestServerKey(32);
  MetadataFileOptions opts;
  opts.server_key = &key;
  opts.algorithm = CipherAlgorithm::kAes256Ctr;
  const std::string path = dir.Join("c");
  ASSERT_TRUE(WriteMetadataFile(path, MakeRecordSequence(3000), opts).ok());
  std::string b;
  ASSERT_TRUE(ReadFileToString(path, &b).ok());
  const std::string clean = b;
  for (uint64_t k = b.size() / 4; k + 4 <= b.size(); k += 9) std::memset(&b[k], 0, 4);
  ASSERT_TRUE(WriteStringToFile(path, b).ok());
  StrategyRun many = RunStrategy(fs::ReplayStrategyKind::kEncryptedInMemory, path, &key);
  EXPECT_EQ(fs::ReplayOutcome::Kind::kIOError, many.outcome.kind) << many.outcome.ToString();
  EXPECT_NE(std::string::npos, many.outcome.ToString().find("runs of zero ciphertext"))
      << many.outcome.ToString();

  b = clean;
  for (uint64_t k = b.size() / 2; k < b.size() / 2 + 90; k += 9) std::memset(&b[k], 0, 4);
  ASSERT_TRUE(WriteStringToFile(path, b).ok());
  StrategyRun few = RunStrategy(fs::ReplayStrategyKind::kEncryptedInMemory, path, &key);
  StrategyRun ref = RunStrategy(fs::ReplayStrategyKind::kStreaming, path, &key);
  EXPECT_TRUE(few.outcome.SameAs(ref.outcome))
      << few.outcome.ToString() << " vs " << ref.outcome.ToString();
  EXPECT_TRUE(few.records == ref.records);
}

TEST(WindowedReplayEncryptionTest, CountZeroRunsMatchesTheIndex) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 300; round++) {
    const size_t n = rng() % 3000;
    std::vector<uint8_t> data(n);
    const int zero_pct = static_cast<int>(rng() % 90);
    for (auto& b : data) b = static_cast<int>(rng() % 100) < zero_pct ? 0 : 1 + rng() % 255;
    ZeroRunIndex index;
    index.Build(data.data(), n, 1000);
    EXPECT_EQ(index.run_count(), CountZeroRuns(data.data(), n, n)) << "round " << round;
    const size_t limit = index.run_count() / 2;
    if (index.run_count() > 0) {
      EXPECT_EQ(limit + 1, CountZeroRuns(data.data(), n, limit));
    }
  }
}

// ---------------------------------------------------------------------------
// Cost: read system calls and memory.

class CountingSink : public fs::BlockRecordSink {
 public:
  void OnRecord(const fs::BlockRecord& record, uint64_t offset) override {
    count++;
    sum += record.block_id + offset;
  }
  uint64_t count = 0;
  uint64_t sum = 0;
};

TEST(WindowedReplayCostTest, OneReadPerWindowAndMemoryBoundedByTheWindow) {
  TempDir dir;
  const ServerKey key = TestServerKey(16);
  constexpr int kRecords = 50000;
  for (bool enc : {false, true}) {
    MetadataFileOptions opts;
    if (enc) opts.server_key = &key;
    const std::string path = dir.Join(enc ? "e" : "p");
    ASSERT_TRUE(WriteMetadataFile(path, MakeRecordSequence(kRecords), opts).ok());
    const uint64_t size = FileSizeOrDie(path);
    const uint64_t header_reads = enc ? 1 : 0;  // the encryption header, at open
    const uint64_t payload = size - (enc ? kEncryptionHeaderSize : 0);
    for (size_t w : {size_t{64} * 1024, size_t{256} * 1024, size_t{3} * kMiB + 7,
                     size_t{4} * kMiB}) {
      std::unique_ptr<RandomAccessFile> file;
      ASSERT_TRUE(RandomAccessFile::Open(path, enc ? &key : nullptr, &file).ok());
      fs::WindowedReplay windowed(w);
      CountingSink warmup;
      ASSERT_TRUE(windowed.Replay(file.get(), &warmup).clean());  // allocates the scratch message
      const uint64_t syscalls_before = file->stats().read_syscalls;
      const uint64_t bytes_before = file->stats().bytes_read;
      CountingSink sink;
      const uint64_t allocs_before = g_allocations.load();
      fs::ReplayOutcome out = windowed.Replay(file.get(), &sink);
      const uint64_t allocs = g_allocations.load() - allocs_before;
      ASSERT_TRUE(out.clean()) << out.ToString();
      EXPECT_EQ(static_cast<uint64_t>(kRecords), sink.count);
      EXPECT_EQ(warmup.sum, sink.sum);

      const fs::WindowStats& st = windowed.last_stats();
      const uint64_t syscalls = file->stats().read_syscalls - syscalls_before;
      const uint64_t bytes = file->stats().bytes_read - bytes_before;
      // Memory: one buffer of the window (the file is smaller than some windows).
      EXPECT_EQ(std::min<uint64_t>(w, payload), st.buffer_bytes) << "window " << w;
      // Per file (the buffer, the supplemental header's parse, the outcome's
      // status), never per record.
      EXPECT_LT(allocs, 500u) << "window " << w;
      EXPECT_EQ(0u, windowed.zero_run_index_runs());
      // One read per window: a refill advances by the window less the record
      // that straddled (< 64 bytes here).
      EXPECT_EQ(st.refills, syscalls);
      const uint64_t buf = st.buffer_bytes;
      EXPECT_GE(syscalls, (payload + buf - 1) / buf);
      EXPECT_LE(syscalls, (payload + (buf - 64) - 1) / (buf - 64)) << "window " << w;
      EXPECT_LE(bytes, payload + 64 * syscalls);
      // The first Replay read the same way (plus the encryption header at open).
      EXPECT_EQ(header_reads + syscalls, syscalls_before);
      std::cout << (enc ? "encrypted" : "plain") << " window " << w << ": payload " << payload
                << " bytes, " << syscalls << " reads, " << bytes << " bytes read, buffer "
                << st.buffer_bytes << ", allocations " << allocs << "\n";
    }
  }
}

// Informational (timings on a shared machine are not asserted): records per
// second of Windowed against InMemory on a warm file.
TEST(WindowedReplayCostTest, ThroughputAgainstInMemory) {
  TempDir dir;
  const ServerKey key = TestServerKey(16);
  constexpr int kRecords = 200000;
  for (bool enc : {false, true}) {
    MetadataFileOptions opts;
    if (enc) opts.server_key = &key;
    const std::string path = dir.Join(enc ? "e" : "p");
    ASSERT_TRUE(WriteMetadataFile(path, MakeRecordSequence(kRecords), opts).ok());
    std::unique_ptr<RandomAccessFile> file;
    ASSERT_TRUE(RandomAccessFile::Open(path, enc ? &key : nullptr, &file).ok());
    auto best_of = [&](fs::MetadataReplayStrategy* s) {
      double best = 1e9;
      for (int rep = 0; rep < 7; rep++) {
        CountingSink sink;
        auto t0 = std::chrono::steady_clock::now();
        EXPECT_TRUE(s->Replay(file.get(), &sink).clean());
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                                  .count());
        EXPECT_EQ(static_cast<uint64_t>(kRecords), sink.count);
      }
      return best;
    };
    std::unique_ptr<fs::MetadataReplayStrategy> inmem = fs::NewReplayStrategy(
        enc ? fs::ReplayStrategyKind::kEncryptedInMemory : fs::ReplayStrategyKind::kInMemory,
        fs::ReplayStrategyOptions());
    const double t_inmem = best_of(inmem.get());
    std::cout << (enc ? "encrypted" : "plain") << " " << kRecords << " records, "
              << FileSizeOrDie(path) << " bytes: " << ReplayStrategyName(inmem->kind()) << " "
              << static_cast<uint64_t>(kRecords / t_inmem) << " records/s";
    for (size_t w : {size_t{64} * 1024, size_t{1} * kMiB, size_t{4} * kMiB}) {
      fs::WindowedReplay windowed(w);
      const double t = best_of(&windowed);
      std::cout << "; windowed " << (w >> 10) << " KiB " << static_cast<uint64_t>(kRecords / t)
                << " (" << t_inmem / t << "x)";
    }
    std::cout << std::endl;
  }
}

// ---------------------------------------------------------------------------
// The window flag.

TEST(WindowedReplayFlagTest, WindowFlag) {
  const uint64_t saved = FLAGS_log_container_metadata_replay_window_bytes;
  EXPECT_EQ(4 * kMiB, saved);
  fs::ReplayPolicyOptions o;
  ASSERT_TRUE(fs::ReplayPolicyOptions::FromFlags(&o).ok());
  EXPECT_EQ(4 * kMiB, o.window_bytes);
  FLAGS_log_container_metadata_replay_window_bytes = 0;
  ASSERT_TRUE(fs::ReplayPolicyOptions::FromFlags(&o).ok());
  EXPECT_EQ(0u, o.window_bytes);
  FLAGS_log_container_metadata_replay_window_bytes = 100;
  ASSERT_TRUE(fs::ReplayPolicyOptions::FromFlags(&o).ok());
  EXPECT_EQ(fs::kMinWindowBufferBytes, o.window_bytes);
  FLAGS_log_container_metadata_replay_window_bytes = 1 * kMiB;
  ASSERT_TRUE(fs::ReplayPolicyOptions::FromFlags(&o).ok());
  EXPECT_EQ(1 * kMiB, o.window_bytes);
  FLAGS_log_container_metadata_replay_window_bytes = saved;
}

}  // namespace
}  // namespace test
}  // namespace kudu
