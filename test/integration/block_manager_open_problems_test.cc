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

// The block manager open on hand-built directories: every problem of §2 and
// §4 of the format doc produces the prescribed report entries and status
// under every replay strategy, with identical JSON apart from the replay
// statistics and timing; non-fatal problems leave the open successful, fatal
// ones fail it without a block map while every container is still reported.
#include <google/protobuf/unknown_field_set.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kudu/fs/block_id.h"
#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/fs_report.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_writer.h"
#include "util/fs_fixture_util.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

using fs::OpenResult;
using nlohmann::json;
using test::HandContainer;
using test::MakeCreate;
using test::MakeDelete;
using test::TempDir;

// A corruption entry's offset when no byte is at fault (JSON null).
constexpr uint64_t kNoOffset = UINT64_MAX;

// ---------------------------------------------------------------------------
// Hand-built directories with every non-fatal problem at once.

class ProblemsTest : public test::PlainAndEncryptedTest {
 protected:
  ProblemsTest() : PlainAndEncryptedTest(/*key_bytes=*/32, /*blocks=*/16) {}
  BlockRecordPB Create(uint64_t id, int slot, int64_t len = 100) {
    return MakeCreate(id, SlotOffset(slot), len);
  }
  // Opens `roots` with every strategy; all must agree (JSON apart from
  // replay and timing, the live set, the status); returns the last.
  void OpenAll(const std::vector<std::string>& roots, OpenResult* out, json* stable) {
    json first;
    for (StrategyChoice choice : test::kAllStrategyChoices) {
      SCOPED_TRACE(StrategyChoiceName(choice));
      OpenResult r;
      fs::OpenBlockManager(test::OpenOptions(roots, k_, choice), &r);
      json j = test::StableReport(r);
      if (first.is_null()) {
        first = j;
      } else {
        EXPECT_EQ(first, j);
      }
      if (choice == StrategyChoice::kAuto) *out = std::move(r);
    }
    *stable = first;
  }

  // Raw offset of the PB container file header in a metadata file.
  uint64_t base_header() const { return k_ ? 64 : 0; }
};

TEST_P(ProblemsTest, NonFatalProblemsAreReportedAndTheOpenSucceeds) {
  TempDir tmp;
  const std::string d0 = tmp.Join("d0"), d1 = tmp.Join("d1");
  HandContainer c01, c02, c03, c04, c05, c06, c07, c08, c09;

  // c01: clean, with a deleted block.
  std::vector<BlockRecordPB> r01 = {Create(1, 0), Create(2, 1), Create(3, 2), MakeDelete(2)};
  ASSERT_OK(test::WriteHandContainer(d0, test::ContainerIdFor(1), data_size_, &r01, k_, &c01));
  // c02: a partial trailing record (the last record cut short).
  std::vector<BlockRecordPB> r02 = {Create(10, 0), Create(11, 1), Create(12, 2)};
  ASSERT_OK(test::WriteHandContainer(d0, test::ContainerIdFor(2), data_size_, &r02, k_, &c02));
  ASSERT_OK(test::TruncateFileTo(c02.metadata_path, c02.end_offset - 5));
  // c03: a zero-filled tail (size reached disk before the data).
  std::vector<BlockRecordPB> r03 = {Create(20, 0), Create(21, 1)};
  ASSERT_OK(test::WriteHandContainer(d0, test::ContainerIdFor(3), data_size_, &r03, k_, &c03));
  ASSERT_OK(test::AppendZeros(c03.metadata_path, 30));
  // c05: incomplete: empty (or header-only) data, metadata shorter than a header.
  std::vector<BlockRecordPB> none;
  ASSERT_OK(test::WriteHandContainer(d0, test::ContainerIdFor(5), 0, nullptr, k_, &c05));
  ASSERT_OK(test::WriteStringToFile(c05.metadata_path, k_ ? std::string(70, 'x') : "kudu"));
  // c06: incomplete: a lone empty data file.
  ASSERT_OK(test::WriteHandContainer(d0, test::ContainerIdFor(6), 0, nullptr, k_, &c06));
  // c07: incomplete: a lone metadata file shorter than a header.
  ASSERT_OK(test::WriteHandContainer(d0, test::ContainerIdFor(7), -1, nullptr, k_, &c07));
  ASSERT_OK(test::WriteStringToFile(c07.metadata_path, ""));
  // c08 (second dir): metadata without data, and no live block: incomplete.
  // Its replay is naive (§4.1): a DELETE of an id never created is no
  // malformed record there.
  // A malformed CREATE adds its id there too, and the DELETE after it
  // removes it: still no id left.
  BlockRecordPB no_length = Create(41, 1);
  no_length.clear_length();
  std::vector<BlockRecordPB> r08 = {Create(40, 0), MakeDelete(40), MakeDelete(77), no_length,
                                    MakeDelete(41)};
  ASSERT_OK(test::WriteHandContainer(d1, test::ContainerIdFor(8), -1, &r08, k_, &c08));
  // c09: clean; plus files the open must ignore.
  std::vector<BlockRecordPB> r09 = {Create(50, 0), Create(51, 1), Create(52, 2, 0)};
  ASSERT_OK(test::WriteHandContainer(d1, test::ContainerIdFor(9), data_size_, &r09, k_, &c09));
  ASSERT_OK(test::WriteStringToFile(c09.metadata_path + ".kudutmp.Ab3dE6", "leftover of a rewrite"));
  ASSERT_OK(test::WriteStringToFile(env::JoinPath(d1, "data/instance"), "x"));
  ASSERT_OK(test::WriteStringToFile(env::JoinPath(d1, "data/notes.txt"), "x"));
  ASSERT_OK(test::WriteStringToFile(env::JoinPath(d1, "data/C0FFEE.data.bak"), "x"));

  const auto before = test::SnapshotFiles(tmp.path());
  OpenResult r;
  json j;
  OpenAll({d0, d1}, &r, &j);
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_EQ(OpenResult::Failure::kNone, r.failure);
  // A plain open never writes.
  EXPECT_EQ(before, test::SnapshotFiles(tmp.path()));

  test::LiveSet live = test::LiveSetOf(r);
  std::set<uint64_t> ids;
  for (const auto& kv : live) ids.insert(kv.first);
  EXPECT_EQ((std::set<uint64_t>{1, 3, 10, 11, 20, 21, 50, 51, 52}), ids);
  EXPECT_EQ(52u, r.max_block_id);
  EXPECT_EQ(53u, r.next_block_id);

  EXPECT_TRUE(j["ok"].get<bool>());
  EXPECT_EQ(4u, j["containers"].get<uint64_t>());
  EXPECT_EQ(0u, j["full_containers"].get<uint64_t>());
  EXPECT_EQ(9u, j["live_blocks"].get<uint64_t>());
  // §4.3: each encrypted data file's header counts, 64 bytes and one block.
  EXPECT_EQ(800u + (k_ ? 4 * 64 : 0), j["live_bytes"].get<uint64_t>());
  EXPECT_EQ((8u + (k_ ? 4 : 0)) * 4096, j["live_bytes_aligned"].get<uint64_t>());
  EXPECT_EQ(52u, j["max_block_id"].get<uint64_t>());
  EXPECT_EQ(0u, j["malformed_records"].get<uint64_t>());
  EXPECT_EQ(2u, j["partial_records"].get<uint64_t>());
  EXPECT_EQ(4u, j["incomplete_containers"].get<uint64_t>());
  EXPECT_EQ(0u, j["corrupt_containers"].get<uint64_t>());
  EXPECT_EQ(1u, j["leftover_tmp_files"].get<uint64_t>());

  const json& partial = j["entries"]["partial_records"];
  ASSERT_EQ(2u, partial.size());
  EXPECT_EQ(c02.path, partial[0]["container"]);
  EXPECT_EQ(c02.metadata_path, partial[0]["file"]);
  EXPECT_EQ(c02.record_offsets[2], partial[0]["offset"].get<uint64_t>());
  EXPECT_EQ(c03.path, partial[1]["container"]);
  EXPECT_EQ(c03.end_offset, partial[1]["offset"].get<uint64_t>());

  const json& incomplete = j["entries"]["incomplete_containers"];
  ASSERT_EQ(4u, incomplete.size());
  EXPECT_EQ(c05.path, incomplete[0]["container"]);
  EXPECT_EQ(c06.path, incomplete[1]["container"]);
  EXPECT_EQ(c07.path, incomplete[2]["container"]);
  EXPECT_EQ(c08.path, incomplete[3]["container"]);
  EXPECT_TRUE(j["entries"]["corruption"].empty());
  EXPECT_EQ(c09.metadata_path + ".kudutmp.Ab3dE6", j["entries"]["leftover_tmp_files"][0]);

  std::string text = fs::FsReportText(r);
  EXPECT_NE(std::string::npos, text.find("Total LBM partial records: 2"));
  EXPECT_NE(std::string::npos, text.find("Total incomplete LBM containers: 4"));
  EXPECT_EQ(std::string::npos, text.find("Fatal error"));
  EXPECT_NE(std::string::npos, text.find("Partial record in " + c02.metadata_path +
                                         " at offset " + std::to_string(c02.record_offsets[2])));
}

// §4.2 and §4.4: every kind of malformed record, each named by the first rule
// it breaks and printed in the protobuf text format; fatal, yet no
// container is corrupt, so both still count.
TEST_P(ProblemsTest, MalformedRecordsAreFatalWithTheirReasonAndText) {
  TempDir tmp;
  const std::string d0 = tmp.Join("d0");
  HandContainer c01, c04;
  std::vector<BlockRecordPB> r01 = {Create(1, 0), Create(2, 1), Create(3, 2), MakeDelete(2)};
  ASSERT_OK(test::WriteHandContainer(d0, test::ContainerIdFor(1), data_size_, &r01, k_, &c01));
  // c04: every kind of malformed record of §4.
  BlockRecordPB no_offset = Create(31, 1);
  no_offset.clear_offset();
  BlockRecordPB no_length = Create(37, 1);
  no_length.clear_length();
  BlockRecordPB unknown = Create(36, 3);
  unknown.set_op_type(UNKNOWN);
  std::vector<BlockRecordPB> r04 = {
      Create(30, 0),
      no_offset,
      MakeCreate(32, -1, 100),                                        // negative offset
      MakeCreate(33, static_cast<int64_t>(base_), -5),                // negative length
      MakeCreate(34, static_cast<int64_t>(data_size_) - 50, 100),     // past the data file
      MakeCreate(35, INT64_MAX - 10, 100),                            // offset + length overflows
      Create(30, 4),                                                  // already live
      MakeDelete(99),                                                 // not live
      unknown,                                                        // op_type UNKNOWN
      no_length,
  };
  ASSERT_OK(test::WriteHandContainer(d0, test::ContainerIdFor(4), data_size_, &r04, k_, &c04));

  OpenResult r;
  json j;
  OpenAll({d0}, &r, &j);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(OpenResult::Failure::kInconsistent, r.failure);
  EXPECT_EQ(nullptr, r.block_map);
  const std::string kudu_status =
      "Corruption: found at least one fatal error in block manager on-disk state. See block "
      "manager consistency report for details";
  EXPECT_EQ(kudu_status, r.status.ToString());
  EXPECT_FALSE(j["ok"].get<bool>());
  EXPECT_EQ(kudu_status, j["status"]);
  EXPECT_EQ(2u, j["containers"].get<uint64_t>());
  EXPECT_EQ(0u, j["corrupt_containers"].get<uint64_t>());
  EXPECT_TRUE(j["entries"]["corruption"].empty());
  EXPECT_EQ(3u, j["live_blocks"].get<uint64_t>());
  EXPECT_EQ(9u, j["malformed_records"].get<uint64_t>());
  // Malformed CREATEs do not raise the highest id; accepted ones do.
  EXPECT_EQ(30u, j["max_block_id"].get<uint64_t>());

  const json& malformed = j["entries"]["malformed_records"];
  ASSERT_EQ(9u, malformed.size());
  const std::vector<std::pair<uint64_t, std::string>> expected_malformed = {
      {31, "missing_offset"},         {32, "negative_offset"},
      {33, "negative_length"},        {34, "past_end_of_data"},
      {35, "offset_length_overflow"}, {30, "duplicate_create"},
      {99, "delete_not_live"},        {36, "unknown_op_type"},
      {37, "missing_length"}};
  const std::string text = fs::FsReportText(r);
  for (size_t i = 0; i < malformed.size(); i++) {
    SCOPED_TRACE(i);
    EXPECT_EQ(c04.path, malformed[i]["container"]);
    EXPECT_EQ(c04.record_offsets[i + 1], malformed[i]["offset"].get<uint64_t>());
    EXPECT_EQ(BlockId(expected_malformed[i].first).ToString(), malformed[i]["block_id"]);
    EXPECT_EQ(expected_malformed[i].second, malformed[i]["reason"]);
    const std::string record = malformed[i]["record"];
    EXPECT_NE(std::string::npos,
              text.find("Fatal error: malformed record in container " + c04.path + ": " +
                        record + "\n"));
  }
  // The text format of tool-contract.md, field by field.
  EXPECT_EQ("block_id {\n  id: 31\n}\nop_type: CREATE\ntimestamp_us: 1\nlength: 100\n",
            malformed[0]["record"]);
  EXPECT_EQ("block_id {\n  id: 99\n}\nop_type: DELETE\ntimestamp_us: 2\n", malformed[6]["record"]);
  EXPECT_EQ("block_id {\n  id: 35\n}\nop_type: CREATE\ntimestamp_us: 1\noffset: " +
                std::to_string(INT64_MAX - 10) + "\nlength: 100\n",
            malformed[4]["record"]);
  EXPECT_EQ("block_id {\n  id: 32\n}\nop_type: CREATE\ntimestamp_us: 1\noffset: -1\nlength: 100\n",
            malformed[1]["record"]);
  EXPECT_NE(std::string::npos, malformed[7]["record"].get<std::string>().find("op_type: UNKNOWN\n"));
  EXPECT_NE(std::string::npos, text.find("\nStatus: " + kudu_status + "\n"));
}

// The text format keeps a record's unknown fields, in the order they appear:
// a varint in decimal, fixed32 and fixed64 in hex, a length-delimited field
// that is no message as a C-escaped string, one that is as a nested message.
TEST_P(ProblemsTest, MalformedRecordTextKeepsUnknownFields) {
  TempDir tmp;
  const std::string d0 = tmp.Join("d0");
  BlockRecordPB odd = MakeDelete(98);
  google::protobuf::UnknownFieldSet* u = odd.mutable_unknown_fields();
  u->AddVarint(9, 5);
  u->AddFixed32(10, 7);
  u->AddFixed64(11, 8);
  u->AddLengthDelimited(12, "hi\n\377");
  u->AddLengthDelimited(13)->assign(std::string("\x08\x2a", 2));  // field 1, varint 42
  std::vector<BlockRecordPB> rs = {Create(1, 0), odd};
  HandContainer c;
  ASSERT_OK(test::WriteHandContainer(d0, test::ContainerIdFor(1), data_size_, &rs, k_, &c));
  OpenResult r;
  json j;
  OpenAll({d0}, &r, &j);
  ASSERT_EQ(1u, j["entries"]["malformed_records"].size());
  const json& m = j["entries"]["malformed_records"][0];
  EXPECT_EQ("delete_not_live", m["reason"]);
  EXPECT_EQ(c.record_offsets[1], m["offset"].get<uint64_t>());
  EXPECT_EQ("block_id {\n  id: 98\n}\nop_type: DELETE\ntimestamp_us: 2\n9: 5\n10: 0x00000007\n"
            "11: 0x0000000000000008\n12: \"hi\\n\\377\"\n13 {\n  1: 42\n}\n",
            m["record"]);
}

TEST_P(ProblemsTest, FatalProblemsFailTheOpenButEveryContainerIsReported) {
  // Every case: built, opened with every strategy (same JSON), the open
  // fails with the first problem's message, no block map is published, and
  // the healthy container beside it is still reported.
  struct Case {
    const char* name;
    std::function<void(const std::string& root, HandContainer* c, uint64_t* offset,
                       std::string* word, uint64_t* live)>
        build;
  };
  const std::vector<Case> cases = {
      {"mid-file body corruption",
       [&](const std::string& root, HandContainer* c, uint64_t* offset, std::string* word,
           uint64_t* live) {
         std::vector<BlockRecordPB> rs = {Create(1, 0), Create(2, 1), Create(3, 2), Create(4, 3)};
         ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(1), data_size_, &rs, k_, c));
         ASSERT_OK(test::FlipByte(c->metadata_path, c->record_offsets[2] + 10));
         *offset = c->record_offsets[2];
         *word = "body checksum mismatch";
         *live = 2;  // the records before the damage
       }},
      {"mid-file length corruption",
       [&](const std::string& root, HandContainer* c, uint64_t* offset, std::string* word,
           uint64_t* live) {
         std::vector<BlockRecordPB> rs = {Create(1, 0), Create(2, 1), Create(3, 2)};
         ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(1), data_size_, &rs, k_, c));
         ASSERT_OK(test::FlipByte(c->metadata_path, c->record_offsets[1], 0x01));
         *offset = c->record_offsets[1];
         *word = "length checksum mismatch";
         *live = 1;
       }},
      {"non-zero garbage after zeros",
       [&](const std::string& root, HandContainer* c, uint64_t* offset, std::string* word,
           uint64_t* live) {
         std::vector<BlockRecordPB> rs = {Create(1, 0), Create(2, 1)};
         ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(1), data_size_, &rs, k_, c));
         ASSERT_OK(test::AppendZeros(c->metadata_path, 40));
         ASSERT_OK(test::SetByte(c->metadata_path, c->end_offset + 30, 0x5a));
         *offset = c->end_offset;
         *word = "length checksum mismatch";
         *live = 2;
       }},
      {"file header damage",
       [&](const std::string& root, HandContainer* c, uint64_t* offset, std::string* word,
           uint64_t* live) {
         std::vector<BlockRecordPB> rs = {Create(1, 0)};
         ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(1), data_size_, &rs, k_, c));
         ASSERT_OK(test::FlipByte(c->metadata_path, base_header() + 12));  // header crc
         *offset = base_header();
         *word = "header checksum mismatch";
         *live = 0;
       }},
      {"supplemental header damage",
       [&](const std::string& root, HandContainer* c, uint64_t* offset, std::string* word,
           uint64_t* live) {
         std::vector<BlockRecordPB> rs = {Create(1, 0)};
         ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(1), data_size_, &rs, k_, c));
         ASSERT_OK(test::FlipByte(c->metadata_path, base_header() + 16 + 20));
         *offset = base_header() + 16;  // §2: the supplemental header's record offset
         *word = "supplemental header";
         *live = 0;
       }},
      {"supplemental header naming another record type",
       [&](const std::string& root, HandContainer* c, uint64_t* offset, std::string* word,
           uint64_t* live) {
         std::vector<BlockRecordPB> rs = {Create(1, 0)};
         ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(1), data_size_, &rs, k_, c));
         WriteEncryption enc;
         enc.server_key = k_;
         std::unique_ptr<WritableFile> f;
         ASSERT_OK(WritableFile::Open(c->metadata_path, CreateMode::kTruncate, enc, &f));
         std::unique_ptr<PbContainerWriter> w;
         ASSERT_OK(PbContainerWriter::Create(std::move(f), 2, BlockIdPB::descriptor(), &w));
         ASSERT_OK(w->Close());
         *offset = base_header() + 16;  // §2: the supplemental header's record offset
         *word = "names record type";
         *live = 0;
       }},
      {"v1 partial record is corruption",
       [&](const std::string& root, HandContainer* c, uint64_t* offset, std::string* word,
           uint64_t* live) {
         std::vector<BlockRecordPB> rs = {Create(1, 0), Create(2, 1)};
         ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(1), data_size_, &rs, k_, c,
                                            /*version=*/1));
         ASSERT_OK(test::TruncateFileTo(c->metadata_path, c->end_offset - 3));
         *offset = c->record_offsets[1];
         *word = "v1 file";
         *live = 1;
       }},
      {"metadata without data but with live blocks",
       [&](const std::string& root, HandContainer* c, uint64_t* offset, std::string* word,
           uint64_t* live) {
         // Replayed naively (§4.1): the DELETE of an unknown id is no malformed record.
         std::vector<BlockRecordPB> rs = {Create(1, 0), Create(2, 1), MakeDelete(1), MakeDelete(77)};
         ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(1), -1, &rs, k_, c));
         *offset = kNoOffset;  // a missing file: no byte to point at
         *word = "is missing, but the metadata has 1 live blocks";
         *live = 1;
       }},
      {"metadata without data whose only block is malformed",
       [&](const std::string& root, HandContainer* c, uint64_t* offset, std::string* word,
           uint64_t* live) {
         // Naively (§4.1) a CREATE adds its id whatever its offset says: the
         // id is left, the data file is missing.
         BlockRecordPB bad = Create(1, 0);
         bad.set_offset(-5);
         std::vector<BlockRecordPB> rs = {bad};
         ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(1), -1, &rs, k_, c));
         *offset = kNoOffset;
         *word = "is missing, but the metadata has 1 live blocks";
         *live = 1;
       }},
      {"metadata without data ending in a partial trailing record",
       [&](const std::string& root, HandContainer* c, uint64_t* offset, std::string* word,
           uint64_t* live) {
         // No id is left before the torn record, yet only a clean end makes
         // an incomplete container (§4.1).
         std::vector<BlockRecordPB> rs = {Create(1, 0), MakeDelete(1), Create(2, 1)};
         ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(1), -1, &rs, k_, c));
         ASSERT_OK(test::TruncateFileTo(c->metadata_path, c->end_offset - 5));
         *offset = kNoOffset;
         *word = "ends in a partial trailing record at offset " +
                 std::to_string(c->record_offsets[2]);
         *live = 0;
       }},
      {"metadata without data ending in a zero-filled tail",
       [&](const std::string& root, HandContainer* c, uint64_t* offset, std::string* word,
           uint64_t* live) {
         std::vector<BlockRecordPB> rs = {Create(1, 0), MakeDelete(1)};
         ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(1), -1, &rs, k_, c));
         ASSERT_OK(test::AppendZeros(c->metadata_path, 30));
         *offset = kNoOffset;
         *word = "ends in a partial trailing record at offset " + std::to_string(c->end_offset);
         *live = 0;
       }},
      {"data without metadata",
       [&](const std::string& root, HandContainer* c, uint64_t* offset, std::string* word,
           uint64_t* live) {
         ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(1), data_size_, nullptr,
                                            k_, c));
         *offset = kNoOffset;
         *word = "has no metadata file";
         *live = 0;
       }},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    TempDir tmp;
    const std::string root = tmp.Join("d");
    HandContainer bad, healthy;
    uint64_t offset = 0, live_in_bad = 0;
    std::string word;
    tc.build(root, &bad, &offset, &word, &live_in_bad);
    if (HasFatalFailure()) return;
    std::vector<BlockRecordPB> ok_records = {Create(100, 0), Create(101, 1)};
    ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(2), data_size_, &ok_records, k_,
                                       &healthy));
    const auto before = test::SnapshotFiles(tmp.path());

    OpenResult r;
    json j;
    OpenAll({root}, &r, &j);
    EXPECT_EQ(before, test::SnapshotFiles(tmp.path()));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(OpenResult::Failure::kInconsistent, r.failure);
    EXPECT_EQ(nullptr, r.block_map);  // never a partial block map
    const std::string status = r.status.ToString();
    EXPECT_NE(std::string::npos, status.find(bad.id)) << status;
    EXPECT_NE(std::string::npos, status.find(word)) << status;

    EXPECT_FALSE(j["ok"].get<bool>());
    EXPECT_EQ(status, j["status"]);
    // §4.1: a corrupt container counts only in corrupt_containers; the
    // healthy one beside it is reported as usual.
    EXPECT_EQ(1u, j["corrupt_containers"].get<uint64_t>());
    EXPECT_EQ(0u, j["malformed_records"].get<uint64_t>());
    EXPECT_EQ(1u, j["containers"].get<uint64_t>());
    EXPECT_EQ(2u, j["live_blocks"].get<uint64_t>());
    EXPECT_EQ(101u, j["max_block_id"].get<uint64_t>());
    (void)live_in_bad;
    const json& corruption = j["entries"]["corruption"];
    ASSERT_EQ(1u, corruption.size());
    EXPECT_EQ(bad.path, corruption[0]["container"]);
    if (offset == kNoOffset) {
      EXPECT_TRUE(corruption[0]["offset"].is_null()) << corruption[0];
    } else {
      EXPECT_EQ(offset, corruption[0]["offset"].get<uint64_t>());
    }
    EXPECT_NE(std::string::npos, corruption[0]["message"].get<std::string>().find(word));
    EXPECT_NE(std::string::npos, corruption[0]["message"].get<std::string>().find(
                                     corruption[0]["file"].get<std::string>()));
  }
}

// The container where the id turns up live a second time in report order
// (data dir order, then id) is the corrupt one, with one entry naming the
// first holder, which stays counted (§4.2).
TEST_P(ProblemsTest, SameLiveIdInTwoContainersIsFatalAndNamesBoth) {
  TempDir tmp;
  const std::string d0 = tmp.Join("d0"), d1 = tmp.Join("d1");
  HandContainer a, b, c;
  std::vector<BlockRecordPB> ra = {Create(1, 0), Create(7, 1), Create(8, 2)};
  std::vector<BlockRecordPB> rb = {Create(5, 0), MakeDelete(5), Create(7, 1)};
  // A dead duplicate is no duplicate: 8 is deleted in c.
  std::vector<BlockRecordPB> rc = {Create(8, 0), MakeDelete(8), Create(9, 1)};
  ASSERT_OK(test::WriteHandContainer(d0, test::ContainerIdFor(1), data_size_, &ra, k_, &a));
  ASSERT_OK(test::WriteHandContainer(d1, test::ContainerIdFor(2), data_size_, &rb, k_, &b));
  ASSERT_OK(test::WriteHandContainer(d1, test::ContainerIdFor(3), data_size_, &rc, k_, &c));

  OpenResult r;
  json j;
  OpenAll({d0, d1}, &r, &j);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(OpenResult::Failure::kInconsistent, r.failure);
  EXPECT_EQ(nullptr, r.block_map);
  EXPECT_EQ(1u, j["corrupt_containers"].get<uint64_t>());
  const json& corruption = j["entries"]["corruption"];
  ASSERT_EQ(1u, corruption.size());
  EXPECT_EQ(b.path, corruption[0]["container"]);
  EXPECT_EQ(b.record_offsets[2], corruption[0]["offset"].get<uint64_t>());
  const std::string msg = corruption[0]["message"];
  EXPECT_NE(std::string::npos, msg.find(BlockId(7).ToString())) << msg;
  EXPECT_NE(std::string::npos, msg.find(a.path)) << msg;
  EXPECT_NE(std::string::npos, msg.find(b.path)) << msg;
  EXPECT_EQ(j["status"], corruption[0]["message"]);
}

// A corrupt container counts nowhere (§4.1), so the ids its records made
// live before the damage make no other container a duplicate, whichever
// comes first in report order: the healthy one stays counted, and the
// corrupt one has only its own entry. (Kudu never merges a container whose
// records fail to read.)
TEST_P(ProblemsTest, ACorruptContainersIdsMakeNoDuplicate) {
  for (bool corrupt_first : {true, false}) {
    SCOPED_TRACE(corrupt_first ? "corrupt first" : "corrupt second");
    TempDir tmp;
    const std::string root = tmp.Join("d");
    HandContainer healthy, bad;
    std::vector<BlockRecordPB> rh = {Create(1, 0), Create(7, 1)};
    std::vector<BlockRecordPB> rb = {Create(5, 0), Create(7, 1), Create(9, 2)};
    ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(corrupt_first ? 2 : 1),
                                       data_size_, &rh, k_, &healthy));
    ASSERT_OK(test::WriteHandContainer(root, test::ContainerIdFor(corrupt_first ? 1 : 2),
                                       data_size_, &rb, k_, &bad));
    // Block 9's record fails its body checksum.
    ASSERT_OK(test::FlipByte(bad.metadata_path, bad.end_offset - 1));

    OpenResult r;
    json j;
    OpenAll({root}, &r, &j);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(1u, j["corrupt_containers"].get<uint64_t>());
    EXPECT_EQ(1u, j["containers"].get<uint64_t>());
    EXPECT_EQ(2u, j["live_blocks"].get<uint64_t>());
    const json& corruption = j["entries"]["corruption"];
    ASSERT_EQ(1u, corruption.size()) << corruption;
    EXPECT_EQ(bad.path, corruption[0]["container"]);
    EXPECT_EQ(bad.record_offsets[2], corruption[0]["offset"].get<uint64_t>());
  }
}

INSTANTIATE_TEST_SUITE_P(PlainAndEncrypted, ProblemsTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? "encrypted" : "plain";
                         });

}  // namespace
}  // namespace fs
}  // namespace kudu
