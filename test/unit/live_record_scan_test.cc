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

// The live-record scan runs the replay loop itself, so for any file it must
// agree with a Streaming replay: the same live blocks, the same outcome and
// the same error texts; and each live record's body is its bytes on disk.
#include "kudu/fs/live_record_scan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <memory>
#include <string>
#include <vector>

#include "kudu/fs/container_replay_state.h"
#include "kudu/fs/fs.pb.h"
#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

struct Reference {
  ReplayOutcome outcome;
  std::vector<uint64_t> live_ids;  // ascending
};

Reference StreamingReplay(const std::string& path, const ServerKey* key) {
  std::unique_ptr<RandomAccessFile> file;
  EXPECT_OK(RandomAccessFile::Open(path, key, &file));
  ContainerReplayState state(UINT64_MAX, file->encryption_header_size(), 4096);
  Reference ref;
  ref.outcome =
      NewReplayStrategy(ReplayStrategyKind::kStreaming, ReplayStrategyOptions())->Replay(file.get(), &state);
  for (const LiveBlock& b : state.TakeLiveBlocks()) ref.live_ids.push_back(b.id);
  return ref;
}

Status Scan(const std::string& path, const ServerKey* key, LiveRecordScan* scan) {
  LiveRecordScanParams p;
  p.metadata_path = path;
  p.server_key = key;
  p.data_file_size = UINT64_MAX;
  return ScanLiveRecords(p, scan);
}

class LiveRecordScanTest : public ::testing::TestWithParam<std::tuple<uint32_t, bool>> {
 protected:
  void SetUp() override {
    key_ = test::TestServerKey();
    opts_.version = std::get<0>(GetParam());
    opts_.server_key = std::get<1>(GetParam()) ? &key_ : nullptr;
    path_ = dir_.Join("c.metadata");
    records_ = test::MakeRecordSequence(300, 3);
    // A block deleted and created again: its second CREATE is the live one.
    records_.push_back(test::MakeDelete(records_[0].block_id().id()));
    records_.push_back(test::MakeCreate(records_[0].block_id().id(), 1 << 30, 77));
    ASSERT_OK(test::WriteMetadataFile(path_, records_, opts_));
  }

  // The scan agrees with Streaming; every live record is the last CREATE of
  // its block, byte for byte.
  void ExpectAgrees(const LiveRecordScan& scan) {
    const Reference ref = StreamingReplay(path_, opts_.server_key);
    EXPECT_TRUE(ref.outcome.SameAs(scan.outcome)) << ref.outcome.ToString() << " vs "
                                             << scan.outcome.ToString();
    std::map<uint64_t, std::string> last_create;
    for (const BlockRecordPB& r : records_) {
      if (r.op_type() == CREATE) last_create[r.block_id().id()] = r.SerializeAsString();
    }
    std::string raw;
    ASSERT_OK(test::ReadFileToString(path_, &raw));
    const size_t prefix = pb_container::RecordPrefixSize(opts_.version);
    std::vector<uint64_t> ids;
    uint64_t prev_offset = 0;
    for (const LiveRecord& r : scan.live) {
      ids.push_back(r.block_id);
      EXPECT_EQ(last_create[r.block_id], r.body) << r.block_id;
      if (opts_.server_key == nullptr) {  // the body is where the offset says
        EXPECT_EQ(raw.substr(r.offset + prefix, r.body.size()), r.body) << r.offset;
      }
      EXPECT_GT(r.offset, prev_offset);  // file order
      prev_offset = r.offset;
    }
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(ref.live_ids, ids);
    EXPECT_EQ(opts_.version, scan.version);
    EXPECT_EQ(opts_.server_key != nullptr, scan.encrypted);
  }

  test::TempDir dir_;
  ServerKey key_;
  test::MetadataFileOptions opts_;
  std::string path_;
  std::vector<BlockRecordPB> records_;
};

TEST_P(LiveRecordScanTest, CleanFile) {
  LiveRecordScan scan;
  ASSERT_OK(Scan(path_, opts_.server_key, &scan));
  EXPECT_TRUE(scan.outcome.clean());
  EXPECT_GT(scan.live.size(), 100u);
  ExpectAgrees(scan);
}

TEST_P(LiveRecordScanTest, TornLastRecord) {
  ASSERT_OK(test::TruncateFileTo(path_, test::FileSizeOrDie(path_) - 3));
  LiveRecordScan scan;
  const Status s = Scan(path_, opts_.server_key, &scan);
  records_.pop_back();  // the torn CREATE never happened
  if (opts_.version == pb_container::kVersion1) {
    // v1 cannot tell a torn write from damage: the scan fails as the replay does.
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_EQ(StreamingReplay(path_, opts_.server_key).outcome.status.ToString(), s.ToString());
    return;
  }
  ASSERT_OK(s);
  EXPECT_EQ(ReplayOutcome::Kind::kPartialRecord, scan.outcome.kind);
  ExpectAgrees(scan);
}

// A record whose checksums hold but whose body is not a BlockRecordPB: the
// scan fails with the replay's own words.
TEST_P(LiveRecordScanTest, BodyThatDoesNotParse) {
  if (opts_.server_key != nullptr) GTEST_SKIP() << "appended in the clear";
  std::string file;
  ASSERT_OK(test::ReadFileToString(path_, &file));
  pb_container::AppendRecord(opts_.version, Slice(std::string("\xff\xff\xff", 3)), &file);
  ASSERT_OK(test::WriteStringToFile(path_, file));
  LiveRecordScan scan;
  const Status s = Scan(path_, opts_.server_key, &scan);
  const Reference ref = StreamingReplay(path_, opts_.server_key);
  ASSERT_EQ(ReplayOutcome::Kind::kCorruption, ref.outcome.kind);
  EXPECT_EQ(ref.outcome.status.ToString(), s.ToString());
  EXPECT_TRUE(ref.outcome.SameAs(scan.outcome));
}

TEST_P(LiveRecordScanTest, DamagedHeaderIsTheReplaysError) {
  ASSERT_OK(test::FlipByte(path_, opts_.server_key ? kEncryptionHeaderSize + 3 : 3));
  LiveRecordScan scan;
  const Status s = Scan(path_, opts_.server_key, &scan);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(StreamingReplay(path_, opts_.server_key).outcome.status.ToString(), s.ToString());
  EXPECT_TRUE(scan.live.empty());
}

INSTANTIATE_TEST_SUITE_P(VersionsAndEncryption, LiveRecordScanTest,
                         ::testing::Combine(::testing::Values(1u, 2u), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<uint32_t, bool>>& i) {
                           return "v" + std::to_string(std::get<0>(i.param)) +
                                  (std::get<1>(i.param) ? "_encrypted" : "_plain");
                         });

}  // namespace
}  // namespace fs
}  // namespace kudu
