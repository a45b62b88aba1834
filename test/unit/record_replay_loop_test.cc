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

// The replay loop hands every record on in file order whether or not it
// parses a few records ahead (the open does for containers whose blocks
// may be packed, to prefetch each DELETE's slot): the same records, the
// same offsets, the same outcome, also when a record in the middle is
// corrupt or the file ends in a partial record.

#include "kudu/fs/record_replay_loop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kudu/fs/buffer_record_source.h"
#include "kudu/fs/container_replay_state.h"
#include "kudu/fs/fs.pb.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_container_writer.h"

namespace kudu {
namespace fs {
namespace {

// A metadata file image of `n` records: CREATEs of ascending ids, every
// third record a DELETE of an earlier block. `starts` gets each record's
// offset in the image.
std::string Image(int n, std::vector<size_t>* starts) {
  std::string file;
  pb_container::AppendFileHeader(2, &file);
  pb_container::AppendRecord(2, PbContainerWriter::SupplementalHeader(BlockRecordPB::descriptor()),
                             &file);
  std::vector<uint64_t> live;
  uint64_t id = 1000;
  BlockRecordPB r;
  for (int i = 0; i < n; i++) {
    r.Clear();
    if (i % 3 == 2) {
      r.mutable_block_id()->set_id(live[static_cast<size_t>(i / 3)]);
      r.set_op_type(DELETE);
    } else {
      r.mutable_block_id()->set_id(id);
      live.push_back(id++);
      r.set_op_type(CREATE);
      r.set_offset(int64_t{4096} * i);
      r.set_length(100 + i);
    }
    r.set_timestamp_us(1700000000000000ULL + static_cast<uint64_t>(i));
    starts->push_back(file.size());
    pb_container::AppendRecord(2, r.SerializeAsString(), &file);
  }
  return file;
}

// What a loop handed on, and when it looked ahead.
struct Seen {
  std::vector<std::pair<BlockRecord, uint64_t>> records;
  std::vector<uint64_t> looked_ahead;  // block ids, in the order looked at
  size_t most_ahead = 0;               // records looked at and not yet handed on
  ReplayOutcome outcome;
};

template <size_t kAhead>
struct LookAt {
  static constexpr size_t kDepth = kAhead;
  Seen* seen;
  void operator()(const BlockRecord& record) const {
    seen->looked_ahead.push_back(record.block_id);
    seen->most_ahead = std::max(seen->most_ahead, seen->looked_ahead.size() - seen->records.size());
  }
};

template <size_t kAhead>
Seen Replay(const std::string& image) {
  Seen seen;
  BufferRecordSource source("loop.metadata", reinterpret_cast<const uint8_t*>(image.data()), 0,
                            image.size());
  BlockRecordPB scratch;
  auto on_record = [&seen](const BlockRecord& record, uint64_t offset, Slice) {
    seen.records.emplace_back(record, offset);
  };
  if constexpr (kAhead == 0) {
    seen.outcome = ForEachBlockRecord(&source, &scratch, on_record);
  } else {
    seen.outcome = ForEachBlockRecord(&source, &scratch, on_record, nullptr, LookAt<kAhead>{&seen});
  }
  return seen;
}

void ExpectSameRun(const Seen& plain, const Seen& ahead, size_t depth) {
  ASSERT_EQ(plain.records.size(), ahead.records.size());
  for (size_t i = 0; i < plain.records.size(); i++) {
    EXPECT_TRUE(plain.records[i].first == ahead.records[i].first) << i;
    EXPECT_EQ(plain.records[i].second, ahead.records[i].second) << i;
  }
  EXPECT_EQ(plain.outcome.kind, ahead.outcome.kind);
  EXPECT_EQ(plain.outcome.offset, ahead.outcome.offset);
  EXPECT_EQ(plain.outcome.records, ahead.outcome.records);
  EXPECT_EQ(plain.outcome.status.ToString(), ahead.outcome.status.ToString());
  // Every record handed on was looked at first, once, in order, and never
  // more than `depth` records before it was handed on.
  ASSERT_EQ(ahead.records.size(), ahead.looked_ahead.size());
  for (size_t i = 0; i < ahead.records.size(); i++) {
    EXPECT_EQ(ahead.records[i].first.block_id, ahead.looked_ahead[i]) << i;
  }
  EXPECT_LE(ahead.most_ahead, depth);
  if (ahead.records.size() > depth) {
    EXPECT_EQ(depth, ahead.most_ahead);
  }
}

TEST(RecordReplayLoopTest, LookingAheadHandsOnTheSameRecordsInTheSameOrder) {
  std::vector<size_t> starts;
  const std::string image = Image(200, &starts);
  const Seen plain = Replay<0>(image);
  ASSERT_TRUE(plain.outcome.clean()) << plain.outcome.ToString();
  ASSERT_EQ(200u, plain.records.size());
  ExpectSameRun(plain, Replay<1>(image), 1);
  ExpectSameRun(plain, Replay<3>(image), 3);
  ExpectSameRun(plain, Replay<8>(image), 8);
}

// A corrupt record stops the loop there: the records before it are handed
// on all the same, those still waiting in the look-ahead included.
TEST(RecordReplayLoopTest, RecordsBeforeACorruptOneAreHandedOnWhenLookingAhead) {
  std::vector<size_t> starts;
  const std::string clean = Image(40, &starts);
  for (size_t bad : {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{8}, size_t{9}, size_t{39}}) {
    std::string image = clean;
    image[starts[bad] + 10] ^= 0x40;  // inside the body: its checksum fails
    const Seen plain = Replay<0>(image);
    ASSERT_EQ(ReplayOutcome::Kind::kCorruption, plain.outcome.kind) << bad;
    ASSERT_EQ(bad, plain.records.size()) << bad;
    ExpectSameRun(plain, Replay<3>(image), 3);
    ExpectSameRun(plain, Replay<8>(image), 8);
  }
  // A file that ends inside its last record (a crash while appending).
  for (size_t cut : {starts[1] + 5, starts[20] + 3, clean.size() - 1}) {
    const std::string image = clean.substr(0, cut);
    const Seen plain = Replay<0>(image);
    ASSERT_EQ(ReplayOutcome::Kind::kPartialRecord, plain.outcome.kind) << cut;
    ExpectSameRun(plain, Replay<3>(image), 3);
    ExpectSameRun(plain, Replay<8>(image), 8);
  }
}

// The open's sink: a container expected to pack its blocks is replayed
// looking ahead, any other without; the state they leave is the same.
TEST(RecordReplayLoopTest, AContainerThatMayPackReplaysToTheSameState) {
  std::vector<size_t> starts;
  std::string image = Image(3000, &starts);
  image[starts[2500] + 10] ^= 0x40;
  BlockRecordPB scratch;
  auto replay = [&](size_t reserve, ReplayOutcome* out) {
    auto state = std::make_unique<ContainerReplayState>(1ULL << 40, 0, 4096);
    state->Reserve(reserve);
    BufferRecordSource source("loop.metadata", reinterpret_cast<const uint8_t*>(image.data()), 0,
                              image.size());
    *out = ReplayRecordsFrom(&source, &scratch, state.get());
    return state;
  };
  ReplayOutcome small_out, large_out;
  auto small = replay(100, &small_out);
  auto large = replay(LiveBlockSet::kHotSlots + 1, &large_out);
  ASSERT_FALSE(small->MayPack());
  ASSERT_TRUE(large->MayPack());
  EXPECT_EQ(small_out.ToString(), large_out.ToString());
  EXPECT_EQ(2500u, large_out.records);
  EXPECT_EQ(small->records_applied(), large->records_applied());
  EXPECT_EQ(small->live_count(), large->live_count());
  EXPECT_EQ(small->live_bytes(), large->live_bytes());
  EXPECT_EQ(small->max_block_id(), large->max_block_id());
  LiveBlocks a = small->TakeLiveBlocks(), b = large->TakeLiveBlocks();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); i++) {
    EXPECT_EQ(a[i].id, b[i].id) << i;
    EXPECT_EQ(a[i].loc, b[i].loc) << i;
  }
}

}  // namespace
}  // namespace fs
}  // namespace kudu
