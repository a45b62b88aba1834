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

// The file-layer pieces of read-ahead: reads served from prefetched bytes
// (RandomAccessFile::AdoptPrefetched), ByteBudget::TryAcquireKeeping, and
// the read-ahead flags.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kudu/fs/metadata_readahead.h"
#include "kudu/util/byte_budget.h"
#include "kudu/util/file.h"
#include "kudu/util/io_fault_injector.h"
#include "util/test_util.h"

namespace kudu {
namespace {

#define RF_ASSERT_OK(expr)                       \
  do {                                           \
    ::kudu::Status _st = (expr);                 \
    ASSERT_TRUE(_st.ok()) << _st.ToString();     \
  } while (0)

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

PrefetchedBytes BytesOf(const std::string& file, uint64_t offset, size_t n) {
  PrefetchedBytes b;
  b.data.reset(new uint8_t[n]);
  std::memcpy(b.data.get(), file.data() + offset, n);
  b.offset = offset;
  b.size = n;
  return b;
}

class PrefetchedReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    contents_ = RandomBytes(10000, 7);
    path_ = tmp_.Join("f");
    RF_ASSERT_OK(test::WriteStringToFile(path_, contents_));
  }
  void TearDown() override { IoFaultInjector::Disarm(); }

  test::TempDir tmp_;
  std::string path_;
  std::string contents_;
};

TEST_F(PrefetchedReadTest, ReadsInsideAreServedFromMemoryWithoutASyscall) {
  std::unique_ptr<RandomAccessFile> f;
  RF_ASSERT_OK(RandomAccessFile::Open(path_, nullptr, &f));
  f->AdoptPrefetched(BytesOf(contents_, 1000, 4000));
  EXPECT_EQ(4000u, f->prefetched_size());
  std::string buf(3000, '\0');
  RF_ASSERT_OK(f->ReadRaw(1500, reinterpret_cast<uint8_t*>(&buf[0]), 3000));
  EXPECT_EQ(contents_.substr(1500, 3000), buf);
  EXPECT_EQ(0u, f->stats().read_syscalls);
  EXPECT_EQ(1u, f->stats().prefetched_reads);
  EXPECT_EQ(3000u, f->stats().bytes_read);
  // Starting inside, ending past the prefetched bytes: the rest is read.
  buf.assign(2000, '\0');
  RF_ASSERT_OK(f->ReadRaw(4500, reinterpret_cast<uint8_t*>(&buf[0]), 2000));
  EXPECT_EQ(contents_.substr(4500, 2000), buf);
  EXPECT_EQ(1u, f->stats().read_syscalls);
  EXPECT_EQ(2u, f->stats().prefetched_reads);
  // Before the prefetched bytes: from the file.
  buf.assign(500, '\0');
  RF_ASSERT_OK(f->ReadRaw(0, reinterpret_cast<uint8_t*>(&buf[0]), 500));
  EXPECT_EQ(contents_.substr(0, 500), buf);
  EXPECT_EQ(2u, f->stats().read_syscalls);
  // Dropped: from the file again.
  f->DropPrefetched();
  EXPECT_EQ(0u, f->prefetched_size());
  buf.assign(100, '\0');
  RF_ASSERT_OK(f->ReadRaw(2000, reinterpret_cast<uint8_t*>(&buf[0]), 100));
  EXPECT_EQ(contents_.substr(2000, 100), buf);
  EXPECT_EQ(3u, f->stats().read_syscalls);
}

TEST_F(PrefetchedReadTest, GrantIsHeldUntilTheBytesGo) {
  ByteBudget budget(10000);
  ASSERT_TRUE(budget.TryAcquire(4000));
  {
    std::unique_ptr<RandomAccessFile> f;
    RF_ASSERT_OK(RandomAccessFile::Open(path_, nullptr, &f));
    PrefetchedBytes b = BytesOf(contents_, 0, 4000);
    b.grant = ByteBudgetGrant(&budget, 4000);
    f->AdoptPrefetched(std::move(b));
    EXPECT_EQ(4000u, budget.held());
  }
  EXPECT_EQ(0u, budget.held());
}

// Every read served from memory is still a read for the fault injector,
// and each fault does what it does to a pread.
TEST_F(PrefetchedReadTest, FaultsReachReadsServedFromMemory) {
  for (IoFault fault : {IoFault::kEIO, IoFault::kShortRead, IoFault::kUnexpectedEof}) {
    std::unique_ptr<RandomAccessFile> f;
    RF_ASSERT_OK(RandomAccessFile::Open(path_, nullptr, &f));
    f->AdoptPrefetched(BytesOf(contents_, 0, contents_.size()));
    IoFaultInjector::Arm(IoOp::kRead, 2, fault);
    std::string buf(800, '\0');
    RF_ASSERT_OK(f->ReadRaw(0, reinterpret_cast<uint8_t*>(&buf[0]), 800));
    Status s = f->ReadRaw(800, reinterpret_cast<uint8_t*>(&buf[0]), 800);
    EXPECT_TRUE(IoFaultInjector::Fired());
    if (fault == IoFault::kShortRead) {
      RF_ASSERT_OK(s);  // the layer loops: a second read finishes it
      EXPECT_EQ(contents_.substr(800, 800), buf);
      EXPECT_EQ(3u, f->stats().prefetched_reads);
    } else {
      EXPECT_TRUE(s.IsIOError()) << s.ToString();
      EXPECT_NE(std::string::npos, s.ToString().find(path_)) << s.ToString();
    }
    EXPECT_EQ(0u, f->stats().read_syscalls);
    IoFaultInjector::Disarm();
  }
}

// Encrypted files: Read decrypts bytes served from memory exactly as bytes
// read from the file.
TEST_F(PrefetchedReadTest, EncryptedReadsFromMemoryDecryptTheSame) {
  const ServerKey key = test::TestServerKey(16);
  const std::string path = tmp_.Join("enc.metadata");
  test::MetadataFileOptions mo;
  mo.server_key = &key;
  RF_ASSERT_OK(test::WriteMetadataFile(path, test::MakeRecordSequence(50), mo));
  std::string raw;
  RF_ASSERT_OK(test::ReadFileToString(path, &raw));
  std::unique_ptr<RandomAccessFile> a, b;
  RF_ASSERT_OK(RandomAccessFile::Open(path, &key, &a));
  RF_ASSERT_OK(RandomAccessFile::Open(path, &key, &b));
  b->AdoptPrefetched(BytesOf(raw, 0, raw.size()));
  const size_t n = raw.size() - 64;
  std::string x(n, '\0'), y(n, '\0');
  RF_ASSERT_OK(a->Read(64, reinterpret_cast<uint8_t*>(&x[0]), n));
  RF_ASSERT_OK(b->Read(64, reinterpret_cast<uint8_t*>(&y[0]), n));
  EXPECT_EQ(x, y);
  EXPECT_EQ(1u, b->stats().prefetched_reads);
}

TEST(ByteBudgetKeepingTest, TakesOnlyWhatLeavesTheReserveFree) {
  ByteBudget b(100);
  EXPECT_TRUE(b.TryAcquireKeeping(50, 50));
  EXPECT_FALSE(b.TryAcquireKeeping(1, 50));
  EXPECT_TRUE(b.TryAcquireKeeping(1, 49));
  EXPECT_FALSE(b.TryAcquireKeeping(60, 0));  // only 49 free
  EXPECT_FALSE(b.TryAcquireKeeping(101, 0));
  EXPECT_FALSE(b.TryAcquireKeeping(10, 200));
  b.Release(51);
  EXPECT_EQ(0u, b.held());
  EXPECT_EQ(51u, b.peak());
}

TEST(ReadaheadFlagsTest, ParseAndBytes) {
  fs::ReadaheadMode m;
  EXPECT_TRUE(fs::ParseReadaheadMode("none", &m).ok());
  EXPECT_EQ(fs::ReadaheadMode::kNone, m);
  EXPECT_TRUE(fs::ParseReadaheadMode("fadvise", &m).ok());
  EXPECT_EQ(fs::ReadaheadMode::kFadvise, m);
  // io_uring read-ahead is not a mode: refused with a message naming the
  // flag, the value and what is accepted.
  for (const char* bad : {"uring", "io_uring", "readahead", ""}) {
    Status s = fs::ParseReadaheadMode(bad, &m);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad << ": " << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find("--log_container_metadata_replay_readahead"));
    EXPECT_NE(std::string::npos, s.ToString().find("none or fadvise, got '" + std::string(bad) + "'"))
        << s.ToString();
  }
  // Whole files up to the threshold; above it, the header plus one window.
  EXPECT_EQ(1000u, fs::ReadaheadBytesFor(1000, 0, 1000, 64));
  EXPECT_EQ(1064u, fs::ReadaheadBytesFor(1064, 64, 1000, 64));
  EXPECT_EQ(64u + 4096, fs::ReadaheadBytesFor(100000, 64, 1000, 4096));
  EXPECT_EQ(RandomAccessFile::kPrefetchChunkBytes, fs::ReadaheadBytesFor(1 << 30, 0, 0, 0));
}

}  // namespace
}  // namespace kudu
