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

// Tests of the server-side block writer (fs/container_writer.h): naming,
// alignment, when containers roll over, encryption layout, and that what it
// writes reads back through the reference reader exactly as written.
#include "kudu/fs/container_writer.h"

#include <sys/resource.h>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/io_fault_injector.h"
#include "kudu/util/pb_container_format.h"
#include "util/reference_replay_util.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

using test::ReadMetadataRecords;
using test::ReferenceReplay;
using test::ReplayDataDirs;
using test::TempDir;


std::string Payload(size_t n, char seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; i++) s[i] = static_cast<char>(seed + i * 7);
  return s;
}

// A deterministic clock so timestamps can be compared.
struct FakeClock {
  uint64_t now = 1000;
  std::function<uint64_t()> fn() {
    return [this]() { return ++now; };
  }
};

class ContainerWriterTest : public ::testing::Test {
 protected:
  ContainerWriterOptions Options(int ndirs = 1) {
    ContainerWriterOptions o;
    for (int i = 0; i < ndirs; i++) o.data_dirs.push_back(tmp_.Join("d" + std::to_string(i)));
    o.fs_block_size = 4096;
    o.sync = false;
    o.seed = 42;
    o.clock_us = clock_.fn();
    return o;
  }

  // Whether this filesystem frees punched holes (they then read as zeros).
  bool HolePunchingWorks() {
    std::string p = tmp_.Join("punch-probe");
    int fd = ::open(p.c_str(), O_CREAT | O_RDWR, 0644);
    if (fd < 0) return false;
    std::string buf(8192, 'x');
    bool ok = ::pwrite(fd, buf.data(), buf.size(), 0) == 8192 &&
              ::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096) == 0;
    ::close(fd);
    ::unlink(p.c_str());
    return ok;
  }

  TempDir tmp_;
  FakeClock clock_;
};

TEST_F(ContainerWriterTest, ContainerIdsAre32LowercaseHexAndFilesArePaired) {
  ContainerWriterOptions o = Options(2);
  o.max_container_blocks = 2;
  LogWritableBlockManager bm(o);
  ASSERT_OK(bm.Open());
  std::vector<BlockId> ids;
  std::vector<std::string> payloads = {Payload(10, 'a'), Payload(20, 'b'), Payload(30, 'c'),
                                       Payload(40, 'd'), Payload(50, 'e')};
  std::vector<Slice> slices(payloads.begin(), payloads.end());
  ASSERT_OK(bm.CreateBlocks(slices, &ids));
  ASSERT_OK(bm.Close());
  ASSERT_EQ(3u, bm.containers().size());
  for (const auto& c : bm.containers()) {
    EXPECT_TRUE(LogBlockContainerWriter::IsValidId(c->id())) << c->id();
    EXPECT_EQ(32u, c->id().size());
    // A random UUID, as Kudu's ObjectIdGenerator makes them: version 4,
    // RFC 4122 variant.
    EXPECT_EQ('4', c->id()[12]) << c->id();
    EXPECT_NE(std::string::npos, std::string("89ab").find(c->id()[16])) << c->id();
    EXPECT_TRUE(env::FileExists(c->data_path()));
    EXPECT_TRUE(env::FileExists(c->metadata_path()));
    EXPECT_EQ(LogBlockContainerWriter::DataDir(c->root()), env::DirName(c->data_path()));
    EXPECT_EQ(c->id() + ".data", env::BaseName(c->data_path()));
    EXPECT_EQ(c->id() + ".metadata", env::BaseName(c->metadata_path()));
  }
  EXPECT_NE(bm.containers()[0]->id(), bm.containers()[1]->id());
  EXPECT_FALSE(LogBlockContainerWriter::IsValidId("0123456789ABCDEF0123456789abcdef"));
  EXPECT_FALSE(LogBlockContainerWriter::IsValidId("0123456789abcdef0123456789abcde"));
  EXPECT_FALSE(LogBlockContainerWriter::IsValidId("0123456789abcdef0123456789abcdeg"));
}

TEST_F(ContainerWriterTest, BlocksStartAtAlignedOffsetsAndIdsCountUp) {
  ContainerWriterOptions o = Options();
  o.first_block_id = 1000;
  LogWritableBlockManager bm(o);
  ASSERT_OK(bm.Open());
  const std::vector<size_t> sizes = {1, 5000, 4096, 0, 100};
  std::vector<BlockId> ids;
  for (size_t n : sizes) {
    BlockId id;
    ASSERT_OK(bm.CreateBlock(Payload(n, 'x'), &id));
    ids.push_back(id);
  }
  const std::vector<int64_t> expected = {0, 4096, 12288, 16384, 16384};
  for (size_t i = 0; i < ids.size(); i++) {
    EXPECT_EQ(1000 + i, ids[i].id());
    const auto& b = bm.live_blocks().at(ids[i]);
    EXPECT_EQ(expected[i], b.offset) << "block " << i;
    EXPECT_EQ(static_cast<int64_t>(sizes[i]), b.length);
  }
  EXPECT_EQ(1005u, bm.next_block_id());
  EXPECT_EQ(16384u + 4096u, bm.current_container()->next_offset());
}

TEST_F(ContainerWriterTest, UsesTheDirectorysBlockSizeByDefault) {
  ContainerWriterOptions o = Options();
  o.fs_block_size = 0;
  LogWritableBlockManager bm(o);
  ASSERT_OK(bm.Open());
  uint64_t bs = 0;
  ASSERT_OK(env::GetBlockSize(LogBlockContainerWriter::DataDir(o.data_dirs[0]), &bs));
  BlockId a, b;
  ASSERT_OK(bm.CreateBlock(Payload(3, 'a'), &a));
  ASSERT_OK(bm.CreateBlock(Payload(3, 'b'), &b));
  EXPECT_EQ(static_cast<int64_t>(bs), bm.live_blocks().at(b).offset);
}

TEST_F(ContainerWriterTest, NewContainerWhenMaxBlocksReachedRoundRobinOverDirs) {
  ContainerWriterOptions o = Options(2);
  o.max_container_blocks = 3;
  LogWritableBlockManager bm(o);
  ASSERT_OK(bm.Open());
  std::vector<std::string> payloads;
  for (int i = 0; i < 7; i++) payloads.push_back(Payload(100 + i, 'a' + i));
  std::vector<Slice> slices(payloads.begin(), payloads.end());
  std::vector<BlockId> ids;
  ASSERT_OK(bm.CreateBlocks(slices, &ids));  // one group commit spilling over two boundaries
  ASSERT_OK(bm.Close());
  ASSERT_EQ(3u, bm.containers().size());
  EXPECT_EQ(3, bm.containers()[0]->total_blocks());
  EXPECT_EQ(3, bm.containers()[1]->total_blocks());
  EXPECT_EQ(1, bm.containers()[2]->total_blocks());
  EXPECT_EQ(o.data_dirs[0], bm.containers()[0]->root());
  EXPECT_EQ(o.data_dirs[1], bm.containers()[1]->root());
  EXPECT_EQ(o.data_dirs[0], bm.containers()[2]->root());
  // The first block of each new container is at the start of its file.
  EXPECT_EQ(0, bm.live_blocks().at(ids[3]).offset);
  EXPECT_EQ(bm.containers()[1].get(), bm.live_blocks().at(ids[3]).container);

  ReferenceReplay replay;
  ASSERT_OK(ReplayDataDirs(o.data_dirs, nullptr, &replay));
  EXPECT_EQ(7u, replay.live.size());
  for (const auto& c : bm.containers()) {
    EXPECT_EQ(static_cast<size_t>(c->total_blocks()), replay.records[c->id()].size());
  }
}

TEST_F(ContainerWriterTest, NewContainerWhenMaxSizeReached) {
  ContainerWriterOptions o = Options();
  o.max_container_size = 8192;
  LogWritableBlockManager bm(o);
  ASSERT_OK(bm.Open());
  for (int i = 0; i < 5; i++) {
    BlockId id;
    ASSERT_OK(bm.CreateBlock(Payload(100, 'q'), &id));
  }
  // Offsets 0 and 4096; the next write offset is then 8192 >= max size.
  ASSERT_EQ(3u, bm.containers().size());
  EXPECT_EQ(2, bm.containers()[0]->total_blocks());
  EXPECT_EQ(8192u, bm.containers()[0]->next_offset());
  EXPECT_TRUE(bm.containers()[0]->IsFull(o.max_container_size, o.max_container_blocks));
  EXPECT_EQ(1, bm.containers()[2]->total_blocks());
  EXPECT_FALSE(bm.containers()[2]->IsFull(o.max_container_size, o.max_container_blocks));
}

TEST_F(ContainerWriterTest, OptionsPickUpKudusFlags) {
  EXPECT_EQ(10ULL * 1024 * 1024 * 1024, FLAGS_log_container_max_size);
  EXPECT_EQ(-1, FLAGS_log_container_max_blocks);
  const int64_t saved = FLAGS_log_container_max_blocks;
  FLAGS_log_container_max_blocks = 5;
  ContainerWriterOptions o;
  FLAGS_log_container_max_blocks = saved;
  EXPECT_EQ(5, o.max_container_blocks);
  EXPECT_EQ(FLAGS_log_container_max_size, o.max_container_size);
}

TEST_F(ContainerWriterTest, EncryptedFilesCarryTheHeaderAndFirstBlockFollowsIt) {
  const ServerKey key = test::TestServerKey(16);
  for (uint64_t bs : {4096ULL, 16ULL, 512ULL}) {
    SCOPED_TRACE("fs block size " + std::to_string(bs));
    ContainerWriterOptions o = Options();
    o.data_dirs = {tmp_.Join("enc" + std::to_string(bs))};
    o.fs_block_size = bs;
    o.server_key = &key;
    o.algorithm = CipherAlgorithm::kAes256Ctr;
    LogWritableBlockManager bm(o);
    ASSERT_OK(bm.Open());
    const std::string p1 = Payload(100, '1'), p2 = Payload(3000, '2');
    BlockId a, b;
    ASSERT_OK(bm.CreateBlock(p1, &a));
    ASSERT_OK(bm.CreateBlock(p2, &b));
    ASSERT_OK(bm.Close());
    const uint64_t first = LogBlockContainerWriter::AlignUp(64, bs);
    EXPECT_EQ(first, LogBlockContainerWriter::FirstBlockOffset(true, bs));
    EXPECT_EQ(static_cast<int64_t>(first), bm.live_blocks().at(a).offset);
    EXPECT_EQ(static_cast<int64_t>(LogBlockContainerWriter::AlignUp(first + 100, bs)),
              bm.live_blocks().at(b).offset);

    const LogBlockContainerWriter& c = *bm.containers()[0];
    for (const std::string& path : {c.data_path(), c.metadata_path()}) {
      std::string raw;
      ASSERT_OK(test::ReadFileToString(path, &raw));
      ASSERT_GE(raw.size(), 64u);
      EXPECT_EQ("kuduenc", raw.substr(0, 7)) << path;
      EXPECT_EQ(2, raw[7]) << path;  // AES-256-CTR
      // Nothing in clear after the header.
      EXPECT_EQ(std::string::npos, raw.find("kuducntr")) << path;
    }
    // The block bytes decrypt back through the reference file layer.
    std::unique_ptr<RandomAccessFile> f;
    ASSERT_OK(RandomAccessFile::Open(c.data_path(), &key, &f));
    std::string got(p2.size(), '\0');
    ASSERT_OK(f->Read(bm.live_blocks().at(b).offset, reinterpret_cast<uint8_t*>(&got[0]),
                      got.size()));
    EXPECT_EQ(p2, got);

    std::vector<BlockRecordPB> recs;
    ASSERT_OK(ReadMetadataRecords(c.metadata_path(), &key, &recs));
    ASSERT_EQ(2u, recs.size());
    EXPECT_EQ(a.id(), recs[0].block_id().id());
    EXPECT_EQ(static_cast<int64_t>(first), recs[0].offset());
  }
}

// A mixed history of single and batched creates and deletes, plain and
// encrypted, v1 and v2: the reference reader sees exactly these records.
TEST_F(ContainerWriterTest, RecordsReadBackWithTheReferenceReader) {
  const ServerKey key = test::TestServerKey(24);
  for (bool encrypt : {false, true}) {
    for (uint32_t version : {2u, 1u}) {
      SCOPED_TRACE(std::string(encrypt ? "encrypted" : "plain") + " v" + std::to_string(version));
      ContainerWriterOptions o = Options(2);
      o.data_dirs = {tmp_.Join("rr" + std::to_string(encrypt) + std::to_string(version) + "a"),
                     tmp_.Join("rr" + std::to_string(encrypt) + std::to_string(version) + "b")};
      o.container_version = version;
      o.max_container_blocks = 4;
      if (encrypt) o.server_key = &key;
      LogWritableBlockManager bm(o);
      ASSERT_OK(bm.Open());
      // What each container's metadata must hold, built alongside.
      std::map<const LogBlockContainerWriter*, std::vector<BlockRecordPB>> expected;
      auto expect_create = [&](BlockId id) {
        const auto& b = bm.live_blocks().at(id);
        expected[b.container].push_back(
            LogBlockContainerWriter::MakeCreateRecord(id, 0, b.offset, b.length));
      };
      std::vector<std::string> payloads;
      for (int i = 0; i < 6; i++) payloads.push_back(Payload(500 * i + 1, 'k'));
      std::vector<Slice> slices(payloads.begin(), payloads.end());
      std::vector<BlockId> batch;
      ASSERT_OK(bm.CreateBlocks(slices, &batch));
      for (BlockId id : batch) expect_create(id);
      BlockId single;
      ASSERT_OK(bm.CreateBlock(Payload(77, 'z'), &single));
      expect_create(single);
      // Deletes spanning two containers in one call, then one more.
      std::vector<BlockId> victims = {batch[1], batch[5], batch[0]};
      std::vector<const LogBlockContainerWriter*> owners;
      for (BlockId id : victims) owners.push_back(bm.live_blocks().at(id).container);
      ASSERT_OK(bm.DeleteBlocks(victims));
      // Grouped per container, in order of first appearance.
      expected[owners[0]].push_back(LogBlockContainerWriter::MakeDeleteRecord(victims[0], 0));
      expected[owners[0]].push_back(LogBlockContainerWriter::MakeDeleteRecord(victims[2], 0));
      expected[owners[1]].push_back(LogBlockContainerWriter::MakeDeleteRecord(victims[1], 0));
      const LogBlockContainerWriter* single_owner = bm.live_blocks().at(single).container;
      ASSERT_OK(bm.DeleteBlock(single));
      expected[single_owner].push_back(LogBlockContainerWriter::MakeDeleteRecord(single, 0));
      EXPECT_EQ(3u, bm.live_blocks().size());
      ASSERT_OK(bm.Close());

      ASSERT_EQ(2u, bm.containers().size());
      uint64_t last_ts = 0;
      for (const auto& c : bm.containers()) {
        std::vector<BlockRecordPB> recs;
        ASSERT_OK(ReadMetadataRecords(c->metadata_path(), encrypt ? &key : nullptr, &recs));
        const auto& want = expected[c.get()];
        ASSERT_EQ(want.size(), recs.size()) << c->id();
        for (size_t i = 0; i < recs.size(); i++) {
          BlockRecordPB got = recs[i];
          EXPECT_GT(got.timestamp_us(), 1000u);
          if (i > 0) {
            // One time per metadata write (full_container_writer_test.cc).
            EXPECT_GE(got.timestamp_us(), recs[i - 1].timestamp_us());
          }
          last_ts = std::max(last_ts, got.timestamp_us());
          got.set_timestamp_us(0);
          EXPECT_EQ(want[i].SerializeAsString(), got.SerializeAsString())
              << c->id() << " record " << i << ": " << got.ShortDebugString() << " vs "
              << want[i].ShortDebugString();
        }
        // Every file is clean: the reference reader ends exactly at its end.
        EXPECT_EQ(c->metadata_size(), test::FileSizeOrDie(c->metadata_path()));
      }
      EXPECT_EQ(clock_.now, last_ts);
      ReferenceReplay replay;
      ASSERT_OK(ReplayDataDirs(o.data_dirs, encrypt ? &key : nullptr, &replay));
      ASSERT_EQ(bm.live_blocks().size(), replay.live.size());
      uint64_t previous = 0;
      bm.live_blocks().ForEach([&](BlockId id, const LogWritableBlockManager::WrittenBlock& w) {
        EXPECT_LT(previous, id.id()) << "not by ascending id";
        previous = id.id();
        const auto& r = replay.live.at(id.id());
        EXPECT_EQ(w.container->id(), r.container_id);
        EXPECT_EQ(w.offset, r.offset);
        EXPECT_EQ(w.length, r.length);
        EXPECT_EQ(w.offset, bm.live_blocks().at(id).offset);
      });
    }
  }
}

TEST_F(ContainerWriterTest, MetadataHeaderAndSupplementalHeaderAreOneWrite) {
  for (bool encrypt : {false, true}) {
    const ServerKey key = test::TestServerKey(16);
    WriteEncryption enc;
    if (encrypt) enc.server_key = &key;
    std::unique_ptr<PbContainerWriter> w;
    const std::string path = tmp_.Join(std::string("md-") + (encrypt ? "enc" : "plain"));
    ASSERT_OK(LogBlockContainerWriter::CreateMetadataFile(path, CreateMode::kCreateNew, enc, 2,
                                                          /*sync=*/true, &w));
    // The encryption header is its own write; the container header and
    // supplemental header are exactly one more.
    EXPECT_EQ(encrypt ? 2u : 1u, w->file()->stats().write_syscalls);
    EXPECT_GT(w->offset(), (encrypt ? 64u : 0u) + pb_container::kV2HeaderSize);
    ASSERT_OK(w->Close());
    std::vector<BlockRecordPB> recs;
    ASSERT_OK(ReadMetadataRecords(path, encrypt ? &key : nullptr, &recs));
    EXPECT_TRUE(recs.empty());
  }
}

TEST_F(ContainerWriterTest, GroupCommitIsOneMetadataWritePerContainer) {
  ContainerWriterOptions o = Options();
  LogWritableBlockManager bm(o);
  ASSERT_OK(bm.Open());
  std::vector<std::string> payloads(5, Payload(10, 'g'));
  std::vector<Slice> slices(payloads.begin(), payloads.end());
  std::vector<BlockId> ids;
  const auto* c = bm.containers().empty() ? nullptr : bm.containers()[0].get();
  ASSERT_EQ(nullptr, c);
  ASSERT_OK(bm.CreateBlocks(slices, &ids));
  c = bm.current_container();
  // The header write, then one write for the five records.
  EXPECT_EQ(2u, c->metadata_write_syscalls());
  const uint64_t after_create = c->metadata_size();
  ASSERT_OK(bm.DeleteBlocks({ids[0], ids[3], ids[4]}));
  EXPECT_EQ(3u, c->metadata_write_syscalls());
  ASSERT_OK(bm.Close());
  EXPECT_EQ(3u, c->metadata_write_syscalls());
  EXPECT_GT(c->metadata_size(), after_create);
  // No torn framing between the records: the reader walks them back to back.
  std::vector<BlockRecordPB> recs;
  ASSERT_OK(ReadMetadataRecords(c->metadata_path(), nullptr, &recs));
  EXPECT_EQ(8u, recs.size());
  EXPECT_EQ(c->metadata_size(), test::FileSizeOrDie(c->metadata_path()));
}

TEST_F(ContainerWriterTest, DeletePunchesTheBlocksSpace) {
  if (!HolePunchingWorks()) GTEST_SKIP() << "filesystem does not punch holes";
  ContainerWriterOptions o = Options();
  LogWritableBlockManager bm(o);
  ASSERT_OK(bm.Open());
  BlockId a, b;
  ASSERT_OK(bm.CreateBlock(Payload(5000, 'a'), &a));
  ASSERT_OK(bm.CreateBlock(Payload(100, 'b'), &b));
  const std::string path = bm.current_container()->data_path();
  ASSERT_OK(bm.DeleteBlock(a));
  ASSERT_OK(bm.Close());
  std::string raw;
  ASSERT_OK(test::ReadFileToString(path, &raw));
  ASSERT_EQ(8192u + 100u, raw.size());  // the size is kept
  EXPECT_EQ(std::string(8192, '\0'), raw.substr(0, 8192));
  EXPECT_EQ(Payload(100, 'b'), raw.substr(8192));
}

TEST_F(ContainerWriterTest, DeletingAnUnknownBlockWritesNothing) {
  ContainerWriterOptions o = Options();
  LogWritableBlockManager bm(o);
  ASSERT_OK(bm.Open());
  BlockId a;
  ASSERT_OK(bm.CreateBlock(Payload(10, 'a'), &a));
  const uint64_t size = bm.current_container()->metadata_size();
  Status s = bm.DeleteBlocks({a, BlockId(a.id() + 100)});
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  // Below every container's ids, and the next id, not yet given out.
  EXPECT_TRUE(bm.DeleteBlock(BlockId(a.id() - 1)).IsNotFound());
  EXPECT_TRUE(bm.DeleteBlock(BlockId(a.id() + 1)).IsNotFound());
  EXPECT_FALSE(bm.live_blocks().find(BlockId(a.id() - 1)).has_value());
  s = bm.DeleteBlocks({a, a});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(size, bm.current_container()->metadata_size());
  EXPECT_EQ(1u, bm.live_blocks().size());
  ASSERT_OK(bm.DeleteBlock(a));
  EXPECT_TRUE(bm.DeleteBlock(a).IsNotFound());
}

// Deletes reach back into full containers whose files were closed to stay
// under the open-file limit; they are reopened and appended to correctly.
TEST_F(ContainerWriterTest, DeletesReopenEvictedContainers) {
  const ServerKey key = test::TestServerKey(32);
  ContainerWriterOptions o = Options(3);
  o.max_container_blocks = 2;
  o.max_open_containers = 2;
  o.server_key = &key;
  LogWritableBlockManager bm(o);
  ASSERT_OK(bm.Open());
  std::vector<BlockId> all;
  for (int i = 0; i < 20; i++) {
    BlockId id;
    ASSERT_OK(bm.CreateBlock(Payload(200 + i, 'r'), &id));
    all.push_back(id);
  }
  ASSERT_EQ(10u, bm.containers().size());
  int open = 0;
  for (const auto& c : bm.containers()) open += c->is_open();
  EXPECT_LE(open, 2);
  for (size_t i = 0; i < all.size(); i += 3) ASSERT_OK(bm.DeleteBlock(all[i]));
  ASSERT_OK(bm.Close());
  ReferenceReplay replay;
  ASSERT_OK(ReplayDataDirs(o.data_dirs, &key, &replay));
  EXPECT_EQ(bm.live_blocks().size(), replay.live.size());
  EXPECT_EQ(13u, replay.live.size());
  bm.live_blocks().ForEach([&](BlockId id, const LogWritableBlockManager::WrittenBlock&) {
    EXPECT_EQ(1u, replay.live.count(id.id()));
  });
}

// By default as many containers keep their files open as a quarter of the
// descriptor limit holds (two each): DELETEs spread over a few hundred
// containers then reopen none of them.
TEST_F(ContainerWriterTest, ContainersStayOpenUpToAQuarterOfTheDescriptorLimit) {
  struct rlimit limit;
  ASSERT_EQ(0, ::getrlimit(RLIMIT_NOFILE, &limit));
  const uint64_t fds = limit.rlim_cur == RLIM_INFINITY ? (uint64_t{1} << 20) : limit.rlim_cur;
  const size_t allowed = std::max<size_t>(64, static_cast<size_t>(fds / 8));
  ContainerWriterOptions o = Options(1);
  o.max_container_blocks = 1;
  LogWritableBlockManager bm(o);
  ASSERT_OK(bm.Open());
  constexpr size_t kContainers = 300;
  for (size_t i = 0; i < kContainers; i++) {
    BlockId id;
    ASSERT_OK(bm.CreateBlock(Payload(100, 'o'), &id));
  }
  ASSERT_EQ(kContainers, bm.containers().size());
  size_t open = 0;
  for (const auto& c : bm.containers()) open += c->is_open();
  EXPECT_EQ(std::min(kContainers, allowed + 1), open) << "descriptor limit " << fds;
  ASSERT_OK(bm.Close());
}

TEST_F(ContainerWriterTest, SameSeedGivesIdenticalFiles) {
  const ServerKey key = test::TestServerKey(16);
  std::vector<std::string> roots;
  for (int run = 0; run < 2; run++) {
    ContainerWriterOptions o = Options();
    FakeClock clock;
    o.clock_us = clock.fn();
    o.data_dirs = {tmp_.Join("seed-run" + std::to_string(run))};
    o.server_key = &key;
    o.max_container_blocks = 3;
    o.sync = run == 0;  // syncing changes nothing on disk
    LogWritableBlockManager bm(o);
    ASSERT_OK(bm.Open());
    for (int i = 0; i < 7; i++) {
      BlockId id;
      ASSERT_OK(bm.CreateBlock(Payload(123 * i, 's'), &id));
    }
    ASSERT_OK(bm.Close());
    roots.push_back(o.data_dirs[0]);
  }
  std::vector<std::string> n0, n1;
  ASSERT_OK(env::ListDir(LogBlockContainerWriter::DataDir(roots[0]), &n0));
  ASSERT_OK(env::ListDir(LogBlockContainerWriter::DataDir(roots[1]), &n1));
  std::sort(n0.begin(), n0.end());
  std::sort(n1.begin(), n1.end());
  ASSERT_EQ(n0, n1);
  ASSERT_EQ(6u, n0.size());
  for (const std::string& n : n0) {
    std::string a, b;
    ASSERT_OK(test::ReadFileToString(env::JoinPath(LogBlockContainerWriter::DataDir(roots[0]), n), &a));
    ASSERT_OK(test::ReadFileToString(env::JoinPath(LogBlockContainerWriter::DataDir(roots[1]), n), &b));
    EXPECT_TRUE(a == b) << n;
  }
}

TEST_F(ContainerWriterTest, AbandonDeletesOnlyTheUnfinishedContainer) {
  ContainerWriterOptions o = Options();
  o.max_container_blocks = 2;
  LogWritableBlockManager bm(o);
  ASSERT_OK(bm.Open());
  for (int i = 0; i < 3; i++) {
    BlockId id;
    ASSERT_OK(bm.CreateBlock(Payload(10, 'u'), &id));
  }
  ASSERT_EQ(2u, bm.containers().size());
  const std::string full_md = bm.containers()[0]->metadata_path();
  const std::string open_md = bm.containers()[1]->metadata_path();
  const std::string open_data = bm.containers()[1]->data_path();
  bm.AbandonUnfinished();
  EXPECT_TRUE(env::FileExists(full_md));
  EXPECT_FALSE(env::FileExists(open_md));
  EXPECT_FALSE(env::FileExists(open_data));
  EXPECT_EQ(2u, bm.live_blocks().size());
  EXPECT_EQ(1u, bm.containers().size());
}

// The commit that fills a container is still part of filling it: when it
// fails, the container holds block bytes its metadata does not name (or a
// partial record), and abandoning must delete it like any unfinished one.
TEST_F(ContainerWriterTest, AFailedCommitThatFillsAContainerLeavesItUnfinished) {
  ContainerWriterOptions o = Options();
  o.max_container_blocks = 2;
  LogWritableBlockManager bm(o);
  ASSERT_OK(bm.Open());
  BlockId id;
  ASSERT_OK(bm.CreateBlock(Payload(10, 'f'), &id));
  ASSERT_EQ(1u, bm.containers().size());
  const std::string md = bm.containers()[0]->metadata_path();
  const std::string data = bm.containers()[0]->data_path();
  IoFaultInjector::Arm(IoOp::kWrite, 1, IoFault::kEIO, ".metadata");
  EXPECT_FALSE(bm.CreateBlock(Payload(10, 'g'), &id).ok());
  IoFaultInjector::Disarm();
  bm.AbandonUnfinished();
  EXPECT_FALSE(env::FileExists(md));
  EXPECT_FALSE(env::FileExists(data));
  EXPECT_TRUE(bm.live_blocks().empty());
  EXPECT_TRUE(bm.containers().empty());
}

TEST_F(ContainerWriterTest, CreateRefusesExistingFilesAndLeavesThemAlone) {
  LogBlockContainerWriter::Params p;
  p.root = tmp_.Join("exist");
  p.id = std::string(32, 'a');
  p.sync = false;
  ASSERT_OK(env::CreateDirs(LogBlockContainerWriter::DataDir(p.root)));
  const std::string md = LogBlockContainerWriter::MetadataPath(p.root, p.id);
  ASSERT_OK(test::WriteStringToFile(md, "someone else's file"));
  std::unique_ptr<LogBlockContainerWriter> c;
  Status s = LogBlockContainerWriter::Create(p, &c);
  EXPECT_FALSE(s.ok());
  // The data file it made is gone again; the existing file is untouched.
  EXPECT_FALSE(env::FileExists(LogBlockContainerWriter::DataPath(p.root, p.id)));
  std::string contents;
  ASSERT_OK(test::ReadFileToString(md, &contents));
  EXPECT_EQ("someone else's file", contents);
  p.id = "not-an-id";
  EXPECT_TRUE(LogBlockContainerWriter::Create(p, &c).IsInvalidArgument());
}

TEST_F(ContainerWriterTest, OpenFailsForAnUnusableDir) {
  const std::string file = tmp_.Join("plain-file");
  ASSERT_OK(test::WriteStringToFile(file, "x"));
  ContainerWriterOptions o = Options();
  o.data_dirs = {file};
  LogWritableBlockManager bm(o);
  EXPECT_FALSE(bm.Open().ok());
  BlockId id;
  EXPECT_TRUE(bm.CreateBlock(Payload(1, 'a'), &id).IsIllegalState());
}

}  // namespace
}  // namespace fs
}  // namespace kudu
