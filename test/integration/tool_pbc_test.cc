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

#include <google/protobuf/descriptor.pb.h>
#include <nlohmann/json.hpp>

#include "kudu/fs/fs.pb.h"
#include "kudu/fs/instance_files.h"
#include "kudu/util/crc32c.h"
#include "kudu/util/encryption.h"
#include "kudu/util/env.h"
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
  EXPECT_NE(std::string::npos, d.out.find("Message 2\nerror: failed to parse protobuf message\n"
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


// A record the open would not parse is not printed as one: a missing
// required field, or a body that is no BlockRecordPB, ends the dump there,
// in every mode, naming the offset (Kudu's reader parses with every
// required field checked); --debug gives Kudu's block for it.
TEST_F(ToolPbcTest, RecordsThatDoNotParseEndTheDump) {
  const std::string sup = PbContainerWriter::SupplementalHeader(BlockRecordPB::descriptor());
  BlockRecordPB no_timestamp = test::MakeCreate(8, 4096, 5);
  no_timestamp.clear_timestamp_us();
  const std::string first = test::MakeCreate(7, 0, 100).SerializeAsString();
  const std::string missing = tmp_.Join("m.metadata");
  ASSERT_OK(test::WriteStringToFile(
      missing, Container(sup, {first, no_timestamp.SerializePartialAsString()})));
  const uint64_t second_at = Container(sup, {first}).size();
  for (const char* mode : {"--oneline", "--json", "--json_pretty", "--debug"}) {
    SCOPED_TRACE(mode);
    RunResult r = Dump({mode}, missing);
    EXPECT_EQ(1, r.exit_status) << Describe(r);
    EXPECT_NE(std::string::npos, r.out.find("7")) << r.out;  // the record before it
    EXPECT_EQ(std::string::npos, r.out.find("4096")) << r.out;
    EXPECT_NE(std::string::npos, r.err.find(missing + ": record at offset " +
                                            std::to_string(second_at)))
        << r.err;
    EXPECT_NE(std::string::npos, r.err.find("missing required fields: timestamp_us")) << r.err;
    EXPECT_EQ(std::string::npos, r.err.find("libprotobuf")) << r.err;
  }
  RunResult d = Dump({"--debug"}, missing);
  EXPECT_NE(std::string::npos,
            d.out.find("Message 1\nerror: failed to parse protobuf message\noffset: " +
                       std::to_string(second_at) + "\n"))
      << d.out;

  // A body whose checksums hold but which is no BlockRecordPB.
  const std::string garbage = tmp_.Join("g.metadata");
  ASSERT_OK(test::WriteStringToFile(garbage, Container(sup, {first, std::string("\xff\xff", 2)})));
  RunResult g = Dump({"--debug"}, garbage);
  EXPECT_EQ(1, g.exit_status) << Describe(g);
  EXPECT_NE(std::string::npos,
            g.out.find("Message 1\nerror: failed to parse protobuf message\noffset: " +
                       std::to_string(second_at) + "\nremaining file length: 14\n-------\n"))
      << g.out;
}

// The schema files of the supplemental header may come in any order, a file
// before the one it imports, as Kudu loads them.
TEST_F(ToolPbcTest, SchemaFilesInAnyOrder) {
  namespace gpb = google::protobuf;
  gpb::FileDescriptorProto a, b;
  a.set_name("a.proto");
  a.set_package("t");
  gpb::DescriptorProto* ma = a.add_message_type();
  ma->set_name("A");
  gpb::FieldDescriptorProto* x = ma->add_field();
  x->set_name("x");
  x->set_number(1);
  x->set_label(gpb::FieldDescriptorProto::LABEL_OPTIONAL);
  x->set_type(gpb::FieldDescriptorProto::TYPE_INT32);
  b.set_name("b.proto");
  b.set_package("t");
  b.add_dependency("a.proto");
  gpb::DescriptorProto* mb = b.add_message_type();
  mb->set_name("B");
  gpb::FieldDescriptorProto* fa = mb->add_field();
  fa->set_name("a");
  fa->set_number(1);
  fa->set_label(gpb::FieldDescriptorProto::LABEL_OPTIONAL);
  fa->set_type(gpb::FieldDescriptorProto::TYPE_MESSAGE);
  fa->set_type_name(".t.A");
  gpb::FieldDescriptorProto* fs = mb->add_field();
  fs->set_name("s");
  fs->set_number(2);
  fs->set_label(gpb::FieldDescriptorProto::LABEL_OPTIONAL);
  fs->set_type(gpb::FieldDescriptorProto::TYPE_STRING);
  ContainerSupHeaderPB sup;
  *sup.mutable_protos()->add_file() = b;  // before the file it imports
  *sup.mutable_protos()->add_file() = a;
  sup.set_pb_type("t.B");
  const std::string path = tmp_.Join("b.pbc");
  ASSERT_OK(test::WriteStringToFile(
      path, Container(sup.SerializeAsString(), {std::string("\x0a\x02\x08\x03\x12\x02hi", 8)})));
  RunResult r = Dump({"--oneline"}, path);
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  EXPECT_EQ("0\ta { x: 3 } s: \"hi\"\n", r.out);
}

// With a key, a file that is not encrypted reads as plain (an instance
// file never is); the key may come from an instance file that carries it.
TEST_F(ToolPbcTest, KeyFromAnInstanceFileAndPlainFilesWithAKey) {
  const std::string key_flag = std::string("--server_key_hex=") + kKeyHex;
  RunResult plain = Dump({"--oneline", key_flag});
  ASSERT_EQ(0, plain.exit_status) << Describe(plain);
  EXPECT_EQ(3u, Lines(plain.out).size()) << plain.out;

  const std::string root = tmp_.Join("enc");
  RunResult g = RunKudu(tmp_, {"fs", "generate", "--fs_wal_dir=" + root, "--containers=1",
                               "--blocks_per_container=3", "--encrypt", key_flag});
  ASSERT_EQ(0, g.exit_status) << Describe(g);
  std::vector<std::string> names;
  ASSERT_OK(env::ListDir(env::JoinPath(root, "data"), &names));
  std::string metadata;
  for (const std::string& n : names) {
    if (n.size() > 9 && n.compare(n.size() - 9, 9, ".metadata") == 0) metadata = n;
  }
  ASSERT_FALSE(metadata.empty());
  metadata = env::JoinPath(env::JoinPath(root, "data"), metadata);
  const std::string instance_flag = "--instance_file=" + env::JoinPath(root, "instance");
  RunResult with_instance = Dump({"--oneline", instance_flag}, metadata);
  ASSERT_EQ(0, with_instance.exit_status) << Describe(with_instance);
  EXPECT_EQ(3u, Lines(with_instance.out).size()) << with_instance.out;
  RunResult with_key = Dump({"--oneline", key_flag}, metadata);
  EXPECT_EQ(with_key.out, with_instance.out);
  RunResult without = Dump({"--oneline"}, metadata);
  EXPECT_EQ(1, without.exit_status) << Describe(without);

  // Kudu's dump takes the server key unless told to take a tenant's, even
  // where the open would take the default tenant's first.
  InstanceMetadataPB instance;
  ASSERT_OK(fs::ReadPBContainerFromPath(env::JoinPath(root, "instance"), &instance));
  auto* tenant = instance.add_tenants();
  tenant->set_tenant_id(std::string(32, '0'));
  tenant->set_tenant_key(std::string(32, 'a'));  // another key
  ASSERT_OK(fs::WritePBContainerToPath(env::JoinPath(root, "instance"), instance));
  RunResult server_key = Dump({"--oneline", instance_flag}, metadata);
  EXPECT_EQ(0, server_key.exit_status) << Describe(server_key);
  EXPECT_EQ(with_key.out, server_key.out);
  RunResult tenant_key = Dump({"--oneline", instance_flag, "--encryption_key_type=tenant_key",
                               "--tenant_id=" + std::string(32, '0')},
                              metadata);
  EXPECT_EQ(1, tenant_key.exit_status) << Describe(tenant_key);
  // No such tenant: no key, and the error says where the key was to come from.
  RunResult no_tenant = Dump({"--oneline", instance_flag, "--encryption_key_type=tenant_key",
                              "--tenant_id=abc"},
                             metadata);
  EXPECT_EQ(1, no_tenant.exit_status) << Describe(no_tenant);
  EXPECT_NE(std::string::npos, no_tenant.err.find("no tenant 'abc'")) << no_tenant.err;
  EXPECT_EQ(std::string::npos, no_tenant.err.find("--server_key_hex")) << no_tenant.err;
  RunResult bad_type = Dump({"--oneline", instance_flag, "--encryption_key_type=other"}, metadata);
  EXPECT_EQ(2, bad_type.exit_status) << Describe(bad_type);

  RunResult both = Dump({"--oneline", instance_flag, key_flag}, metadata);
  EXPECT_EQ(2, both.exit_status) << Describe(both);
  RunResult missing = Dump({"--oneline", "--instance_file=" + tmp_.Join("nope")}, metadata);
  EXPECT_EQ(2, missing.exit_status) << Describe(missing);
  EXPECT_NE(std::string::npos, missing.err.find(tmp_.Join("nope"))) << missing.err;
}

}  // namespace
}  // namespace kudu
