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

// `kudu pbc dump` run as a subprocess on metadata files (plain and
// encrypted), on a container of another record type and on one whose type
// its header does not describe, and on damaged files: every mode of Kudu's
// tool, the records before a problem printed, then the problem with its
// offset.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kudu/fs/fs.pb.h"
#include "kudu/util/crc32c.h"
#include "kudu/util/encryption.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_container_writer.h"
#include "kudu/util/pb_util.pb.h"
#include "util/kudu_subprocess.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using nlohmann::json;
using test::Describe;
using test::RunKudu;
using test::RunResult;
using test::TempDir;

constexpr char kKeyHex[] = "000102030405060708090a0b0c0d0e0f";

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

std::string Fixed32(uint32_t v) {
  std::string s(4, '\0');
  std::memcpy(&s[0], &v, 4);
  return s;
}

// A v2 record: length, its CRC, the body, the body's CRC.
std::string Frame(const std::string& body) {
  const uint32_t len = static_cast<uint32_t>(body.size());
  return Fixed32(len) + Fixed32(crc::Crc32cFixed32(len)) + body +
         Fixed32(crc::Crc32c(body.data(), body.size()));
}

// A v2 container file: the file header, the supplemental header `sup`,
// then the record bodies.
std::string Container(const std::string& sup, const std::vector<std::string>& bodies) {
  std::string header = std::string(pb_container::kMagic, pb_container::kMagicSize) + Fixed32(2);
  header += Fixed32(crc::Crc32c(header.data(), header.size()));
  std::string out = header + Frame(sup);
  for (const std::string& b : bodies) out += Frame(b);
  return out;
}

// A supplemental header naming `pb_type` with no schema at all.
std::string UndescribedHeader(const std::string& pb_type) {
  ContainerSupHeaderPB sup;
  sup.mutable_protos();
  sup.set_pb_type(pb_type);
  return sup.SerializeAsString();
}

class ToolPbcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = tmp_.Join("c.metadata");
    ASSERT_OK(test::WriteMetadataFile(path_, {test::MakeCreate(7, 0, 100), test::MakeCreate(8, 4096, 5),
                                              test::MakeDelete(7)}));
  }
  RunResult Dump(const std::vector<std::string>& extra, const std::string& path = "") {
    std::vector<std::string> args = {"pbc", "dump", path.empty() ? path_ : path};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunKudu(tmp_, args);
  }

  TempDir tmp_;
  std::string path_;
};

TEST_F(ToolPbcTest, DefaultModeIsMessageAndTextFormat) {
  RunResult r = Dump({});
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  const std::vector<std::string> l = Lines(r.out);
  ASSERT_GE(l.size(), 8u) << r.out;
  EXPECT_EQ("Message 0", l[0]);
  EXPECT_EQ("-------", l[1]);
  EXPECT_EQ("block_id {", l[2]);
  EXPECT_EQ("  id: 7", l[3]);
  EXPECT_EQ("}", l[4]);
  EXPECT_EQ("op_type: CREATE", l[5]);
  EXPECT_NE(std::string::npos, r.out.find("Message 2\n-------\nblock_id {\n  id: 7\n}\nop_type: DELETE"))
      << r.out;
  EXPECT_EQ(std::string::npos, r.out.find("Message 3")) << r.out;
}

TEST_F(ToolPbcTest, OnelineJsonAndPretty) {
  RunResult one = Dump({"--oneline"});
  ASSERT_EQ(0, one.exit_status) << Describe(one);
  const std::vector<std::string> l = Lines(one.out);
  ASSERT_EQ(3u, l.size()) << one.out;
  EXPECT_EQ(0u, l[0].rfind("0\tblock_id { id: 7 } op_type: CREATE", 0)) << l[0];
  EXPECT_EQ(0u, l[2].rfind("2\tblock_id { id: 7 } op_type: DELETE", 0)) << l[2];

  RunResult js = Dump({"--json"});
  ASSERT_EQ(0, js.exit_status) << Describe(js);
  const std::vector<std::string> jl = Lines(js.out);
  ASSERT_EQ(3u, jl.size()) << js.out;
  json first = json::parse(jl[0]);
  EXPECT_EQ("CREATE", first["opType"]);
  EXPECT_EQ("7", first["blockId"]["id"]);  // 64-bit integers are strings in proto3 JSON
  EXPECT_EQ("DELETE", json::parse(jl[2])["opType"]);

  RunResult pretty = Dump({"--json_pretty"});
  ASSERT_EQ(0, pretty.exit_status) << Describe(pretty);
  EXPECT_GT(Lines(pretty.out).size(), 3u);
  EXPECT_NE(std::string::npos, pretty.out.find("\n \"opType\": \"CREATE\"")) << pretty.out;

  RunResult two = Dump({"--json", "--oneline"});
  EXPECT_EQ(2, two.exit_status) << Describe(two);
  EXPECT_EQ("", two.out);
}

TEST_F(ToolPbcTest, DebugPrintsTheHeaderAndEachOffset) {
  RunResult r = Dump({"--debug"});
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  const std::string size = std::to_string(test::FileSizeOrDie(path_));
  EXPECT_EQ(0u, r.out.rfind("File header\n-------\nProtobuf container version: 2\n"
                            "Total container file size: " + size + "\n"
                            "Entry PB type: kudu.BlockRecordPB\n\nMessage 0\noffset: ",
                            0))
      << r.out;
  EXPECT_NE(std::string::npos, r.out.find("\nlength: ")) << r.out;
}

TEST_F(ToolPbcTest, EncryptedFileWithTheKey) {
  ServerKey key;
  ASSERT_OK(ServerKey::FromHex(kKeyHex, &key));
  test::MetadataFileOptions opts;
  opts.server_key = &key;
  const std::string enc = tmp_.Join("e.metadata");
  ASSERT_OK(test::WriteMetadataFile(enc, {test::MakeCreate(9, 0, 10)}, opts));
  RunResult r = Dump({"--oneline", std::string("--server_key_hex=") + kKeyHex}, enc);
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  EXPECT_EQ(0u, r.out.rfind("0\tblock_id { id: 9 } op_type: CREATE", 0)) << r.out;
  // The offsets are raw: the 64-byte encryption header comes first.
  RunResult d = Dump({"--debug", std::string("--server_key_hex=") + kKeyHex}, enc);
  ASSERT_EQ(0, d.exit_status) << Describe(d);
  RunResult plain = Dump({"--debug"});
  const auto offset_of = [](const std::string& out) {
    const size_t at = out.find("offset: ");
    return std::stoull(out.substr(at + 8));
  };
  EXPECT_EQ(offset_of(plain.out) + 64, offset_of(d.out));
  // Without the key: the one line says what is missing.
  RunResult nokey = Dump({}, enc);
  EXPECT_EQ(1, nokey.exit_status) << Describe(nokey);
  EXPECT_NE(std::string::npos, nokey.err.find("server key")) << nokey.err;
}

TEST_F(ToolPbcTest, DamagedFilesPrintWhatCameBeforeThenTheOffset) {
  // A partial trailing record: two bytes of a third record's header.
  const std::string partial = tmp_.Join("p.metadata");
  ASSERT_OK(test::WriteMetadataFile(partial, {test::MakeCreate(1, 0, 1), test::MakeCreate(2, 4096, 1)}));
  const uint64_t end = test::FileSizeOrDie(partial);
  std::string bytes;
  ASSERT_OK(test::ReadFileToString(partial, &bytes));
  ASSERT_OK(test::WriteStringToFile(partial, bytes + std::string("\x05\x00", 2)));
  RunResult r = Dump({"--oneline"}, partial);
  EXPECT_EQ(1, r.exit_status) << Describe(r);
  EXPECT_EQ(2u, Lines(r.out).size()) << r.out;
  EXPECT_NE(std::string::npos, r.err.find(partial + ": record at offset " + std::to_string(end)))
      << r.err;
  RunResult d = Dump({"--debug"}, partial);
  EXPECT_EQ(1, d.exit_status);
  EXPECT_NE(std::string::npos, d.out.find("Message 2\nerror: failed to read protobuf message\n"
                                          "offset: " + std::to_string(end) +
                                          "\nremaining file length: 2\n"))
      << d.out;

  // Corruption in the middle: the first record's body CRC.
  const std::string corrupt = tmp_.Join("x.metadata");
  ASSERT_OK(test::WriteStringToFile(corrupt, bytes));
  ASSERT_OK(test::FlipByte(corrupt, end - 1));
  RunResult c = Dump({}, corrupt);
  EXPECT_EQ(1, c.exit_status) << Describe(c);
  EXPECT_NE(std::string::npos, c.out.find("Message 0")) << c.out;
  EXPECT_NE(std::string::npos, c.err.find("checksum")) << c.err;
  EXPECT_NE(std::string::npos, c.err.find("offset")) << c.err;

  // A damaged file header names its offset and prints no record.
  const std::string header = tmp_.Join("h.metadata");
  ASSERT_OK(test::WriteStringToFile(header, bytes));
  ASSERT_OK(test::FlipByte(header, 0));
  RunResult h = Dump({}, header);
  EXPECT_EQ(1, h.exit_status) << Describe(h);
  EXPECT_EQ("", h.out);
  EXPECT_NE(std::string::npos, h.err.find(header + ": offset 0")) << h.err;

  // Usage errors.
  RunResult missing = Dump({}, tmp_.Join("nope"));
  EXPECT_EQ(2, missing.exit_status) << Describe(missing);
  EXPECT_NE(std::string::npos, missing.err.find(tmp_.Join("nope"))) << missing.err;
  RunResult none = RunKudu(tmp_, {"pbc", "dump"});
  EXPECT_EQ(2, none.exit_status);
  EXPECT_EQ(0u, none.err.rfind("Usage: kudu pbc dump <file>", 0)) << none.err;
}

TEST_F(ToolPbcTest, AnyRecordType) {
  // Another type the header describes prints with its field names.
  ContainerSupHeaderPB record;
  record.set_pb_type("an.Example");
  record.mutable_protos();
  const std::string other = tmp_.Join("o.pbc");
  ASSERT_OK(test::WriteStringToFile(
      other, Container(PbContainerWriter::SupplementalHeader(ContainerSupHeaderPB::descriptor()),
                       {record.SerializeAsString()})));
  RunResult o = Dump({"--oneline"}, other);
  ASSERT_EQ(0, o.exit_status) << Describe(o);
  EXPECT_EQ("0\tprotos { } pb_type: \"an.Example\"\n", o.out);
  RunResult od = Dump({"--debug"}, other);
  EXPECT_NE(std::string::npos, od.out.find("Entry PB type: kudu.ContainerSupHeaderPB\n")) << od.out;

  // A type the header does not describe prints by field numbers.
  BlockRecordPB pb = test::MakeCreate(5, 4096, 10);
  pb.set_timestamp_us(1);
  const std::string undescribed = tmp_.Join("u.pbc");
  ASSERT_OK(test::WriteStringToFile(
      undescribed, Container(UndescribedHeader("no.SuchType"), {pb.SerializeAsString()})));
  RunResult u = Dump({}, undescribed);
  ASSERT_EQ(0, u.exit_status) << Describe(u);
  EXPECT_NE(std::string::npos, u.out.find("Message 0\n-------\n1 {\n  1: 0x0000000000000005\n}\n2: 1\n")) << u.out;
  RunResult uj = Dump({"--json"}, undescribed);
  ASSERT_EQ(0, uj.exit_status) << Describe(uj);
  json j = json::parse(Lines(uj.out)[0]);
  EXPECT_EQ(1u, j["2"].get<uint64_t>()) << uj.out;
  RunResult ud = Dump({"--debug"}, undescribed);
  EXPECT_NE(std::string::npos, ud.out.find("Entry PB type: no.SuchType\n")) << ud.out;
}

}  // namespace
}  // namespace kudu
