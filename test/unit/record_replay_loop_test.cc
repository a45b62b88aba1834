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
  bool active() const { return true; }
  void operator()(const BlockRecord& record) const {
    seen->looked_ahead.push_back(record.block_id);
    // Looking starts once kLookAheadCheckEvery records were handed on.
    const size_t looked = seen->looked_ahead.size() + static_cast<size_t>(kLookAheadCheckEvery);
    seen->most_ahead = std::max(seen->most_ahead, looked - seen->records.size());
  }
};

template <size_t kAhead>
Seen Replay(const std::string& image) {
  Seen seen;
  // The source keeps a reference to its file's name.
  static const std::string* const name = new std::string("loop.metadata");
  BufferRecordSource source(*name, reinterpret_cast<const uint8_t*>(image.data()), 0,
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
  // The loop asks whether to look ahead once kLookAheadCheckEvery records
  // have been handed on; from then on every record handed on was looked at
  // first, once, in order, and never more than `depth` records before.
  const size_t from = static_cast<size_t>(kLookAheadCheckEvery);
  ASSERT_EQ(ahead.records.size() > from ? ahead.records.size() - from : 0,
            ahead.looked_ahead.size());
  for (size_t i = 0; i < ahead.looked_ahead.size(); i++) {
    EXPECT_EQ(ahead.records[from + i].first.block_id, ahead.looked_ahead[i]) << i;
  }
  EXPECT_LE(ahead.most_ahead, depth);
  if (ahead.records.size() > from + depth) {
    EXPECT_EQ(depth, ahead.most_ahead);
  }
}

TEST(RecordReplayLoopTest, LookingAheadHandsOnTheSameRecordsInTheSameOrder) {
  std::vector<size_t> starts;
  const std::string image = Image(6000, &starts);
  const Seen plain = Replay<0>(image);
  ASSERT_TRUE(plain.outcome.clean()) << plain.outcome.ToString();
  ASSERT_EQ(6000u, plain.records.size());
  ExpectSameRun(plain, Replay<1>(image), 1);
  ExpectSameRun(plain, Replay<3>(image), 3);
  ExpectSameRun(plain, Replay<8>(image), 8);
}

// A corrupt record stops the loop there: the records before it are handed
// on all the same, those still waiting in the look-ahead included.
TEST(RecordReplayLoopTest, RecordsBeforeACorruptOneAreHandedOnWhenLookingAhead) {
  std::vector<size_t> starts;
  const std::string clean = Image(4200, &starts);
  // Before the loop looks ahead, and 0, 1, 2, 7, 8, 9 records and more
  // after it starts.
  for (size_t bad : {size_t{0}, size_t{1}, size_t{4095}, size_t{4096}, size_t{4097}, size_t{4098},
                     size_t{4103}, size_t{4104}, size_t{4105}, size_t{4199}}) {
    std::string image = clean;
    image[starts[bad] + 10] ^= 0x40;  // inside the body: its checksum fails
    const Seen plain = Replay<0>(image);
    ASSERT_EQ(ReplayOutcome::Kind::kCorruption, plain.outcome.kind) << bad;
    ASSERT_EQ(bad, plain.records.size()) << bad;
    ExpectSameRun(plain, Replay<3>(image), 3);
    ExpectSameRun(plain, Replay<8>(image), 8);
  }
  // A file that ends inside its last record (a crash while appending).
  for (size_t cut : {starts[1] + 5, starts[4100] + 3, clean.size() - 1}) {
    const std::string image = clean.substr(0, cut);
    const Seen plain = Replay<0>(image);
    ASSERT_EQ(ReplayOutcome::Kind::kPartialRecord, plain.outcome.kind) << cut;
    ExpectSameRun(plain, Replay<3>(image), 3);
    ExpectSameRun(plain, Replay<8>(image), 8);
  }
}

// The open's sink looks ahead once its container's blocks are packed (a
// container filled with more blocks than a set holds unpacked); it ends in
// the state the same records applied one by one leave, a corrupt record
// after the packing included.
TEST(RecordReplayLoopTest, AContainerThatPacksReplaysToTheSameState) {
  std::vector<size_t> starts;
  std::string image = Image(480000, &starts);  // ~160 k blocks live at the end
  image[starts[470000] + 10] ^= 0x40;
  BlockRecordPB scratch;
  const std::string name = "loop.metadata";
  const auto* bytes = reinterpret_cast<const uint8_t*>(image.data());
  ContainerReplayState looked(1ULL << 40, 0, 4096), plain(1ULL << 40, 0, 4096);
  looked.Reserve(starts.size());
  plain.Reserve(starts.size());
  BufferRecordSource a(name, bytes, 0, image.size());
  const ReplayOutcome looked_out = ReplayRecordsFrom(&a, &scratch, &looked);
  BufferRecordSource b(name, bytes, 0, image.size());
  const ReplayOutcome plain_out = ForEachBlockRecord(
      &b, &scratch, [&plain](const BlockRecord& r, uint64_t offset, Slice) { plain.Apply(r, offset); });
  ASSERT_TRUE(looked.Packed());
  EXPECT_EQ(ReplayOutcome::Kind::kCorruption, looked_out.kind);
  EXPECT_EQ(plain_out.ToString(), looked_out.ToString());
  EXPECT_EQ(470000u, looked_out.records);
  EXPECT_EQ(plain.records_applied(), looked.records_applied());
  EXPECT_EQ(plain.live_count(), looked.live_count());
  EXPECT_EQ(plain.live_bytes(), looked.live_bytes());
  EXPECT_EQ(plain.max_block_id(), looked.max_block_id());
  LiveBlocks x = plain.TakeLiveBlocks(), y = looked.TakeLiveBlocks();
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); i++) {
    ASSERT_EQ(x[i].id, y[i].id) << i;
    ASSERT_EQ(x[i].loc, y[i].loc) << i;
  }
}

}  // namespace
}  // namespace fs
}  // namespace kudu
