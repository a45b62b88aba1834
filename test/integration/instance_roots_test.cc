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

// The WAL and metadata roots' `instance` files (§1) and Kudu's
// --encrypt_data_at_rest (§5), as an operator meets them: every instance of
// every root must carry the same uuid (else exit 1, one line naming the
// file, no report); the first one found, data roots then WAL root then
// metadata root, supplies the key; with --encrypt_data_at_rest an open that
// finds no key anywhere is a usage error (exit 2, nothing changed).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "kudu/fs/fs.pb.h"
#include "kudu/fs/instance_files.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_container_writer.h"
#include "util/fs_fixture_util.h"
#include "util/kudu_subprocess.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using nlohmann::json;
using test::Contains;
using test::Describe;
using test::RunKudu;
using test::RunResult;
using test::TempDir;

constexpr char kKeyHex[] = "00112233445566778899aabbccddeeff";
constexpr char kNoKey[] = "--encrypt_data_at_rest is set, but no server key found.";

class InstanceRootsTest : public ::testing::Test {
 protected:
  InstanceRootsTest() : data_(tmp_.Join("data-root")), wal_(tmp_.Join("wal-root")) {}

  // `kudu fs generate` of two containers into the data root, with the WAL
  // root beside it (formatted too).
  void Generate(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"fs",
                                     "generate",
                                     "--fs_data_dirs=" + data_,
                                     "--fs_wal_dir=" + wal_,
                                     "--containers=2",
                                     "--blocks_per_container=10"};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = RunKudu(tmp_, args);
    ASSERT_EQ(0, r.exit_status) << Describe(r);
    std::string live;
    ASSERT_OK(test::ReadFileToString(data_ + "/generate_live_blocks.txt", &live));
    live_blocks_ = test::NonEmptyLines(live).size();
  }
  RunResult Run(const char* action, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"fs", action, "--fs_data_dirs=" + data_};
    if (std::string(action) == "check") args.push_back("--format=json");
    args.insert(args.end(), extra.begin(), extra.end());
    return RunKudu(tmp_, args);
  }
  // A failure before any report: `status`, nothing on stdout, one stderr
  // line holding each of `what`.
  void ExpectOneLine(const RunResult& r, int status, const std::vector<std::string>& what) {
    EXPECT_EQ(status, r.exit_status) << Describe(r);
    EXPECT_TRUE(r.out.empty()) << r.out;
    const std::vector<std::string> lines = test::NonEmptyLines(r.err);
    ASSERT_EQ(1u, lines.size()) << r.err;
    for (const std::string& w : what) EXPECT_TRUE(Contains(lines[0], w)) << lines[0];
  }
  static void SetUuid(const std::string& root, const std::string& uuid) {
    InstanceMetadataPB inst;
    ASSERT_OK(fs::ReadPBContainerFromPath(fs::InstanceFilePath(root), &inst));
    inst.set_uuid(uuid);
    ASSERT_OK(fs::WritePBContainerToPath(fs::InstanceFilePath(root), inst));
  }
  static std::map<std::string, std::string> Snapshot(const std::vector<std::string>& roots) {
    std::map<std::string, std::string> all;
    for (const std::string& r : roots) {
      const auto files = test::SnapshotFiles(r);
      all.insert(files.begin(), files.end());
    }
    return all;
  }

  TempDir tmp_;
  const std::string data_, wal_;
  size_t live_blocks_ = 0;
};

TEST_F(InstanceRootsTest, GenerateFormatsTheWalRootToo) {
  Generate();
  InstanceMetadataPB d, w;
  ASSERT_OK(fs::ReadPBContainerFromPath(fs::InstanceFilePath(data_), &d));
  ASSERT_OK(fs::ReadPBContainerFromPath(fs::InstanceFilePath(wal_), &w));
  EXPECT_EQ(d.uuid(), w.uuid());
  for (const char* dir : {"wals", "tablet-meta", "consensus-meta"}) {
    EXPECT_TRUE(env::FileExists(env::JoinPath(wal_, dir))) << dir;
  }
  EXPECT_FALSE(env::FileExists(data_ + "/wals"));
  RunResult r = Run("check", {"--fs_wal_dir=" + wal_});
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  EXPECT_EQ(wal_, json::parse(r.out)["wal_dir"]);
}

TEST_F(InstanceRootsTest, AMismatchedUuidInTheWalOrMetadataRootFailsTheOpen) {
  Generate();
  SetUuid(wal_, std::string(32, 'e'));
  const auto before = Snapshot({data_, wal_});
  const std::string wal_instance = fs::InstanceFilePath(wal_);
  for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{
           {}, {"--repair"}, {"--format=text"}}) {
    std::vector<std::string> args = extra;
    args.push_back("--fs_wal_dir=" + wal_);
    ExpectOneLine(Run("check", args), 1, {"Mismatched UUIDs across filesystem roots", wal_instance});
  }
  ExpectOneLine(Run("list", {"--fs_wal_dir=" + wal_}), 1, {"Mismatched UUIDs", wal_instance});
  EXPECT_EQ(before, Snapshot({data_, wal_}));
  // Not named, the WAL root is not read.
  EXPECT_EQ(0, Run("check").exit_status);

  // The metadata root is checked the same way.
  const std::string meta = tmp_.Join("meta-root");
  ASSERT_OK(env::CreateDirs(meta));
  InstanceMetadataPB inst;
  ASSERT_OK(fs::ReadPBContainerFromPath(fs::InstanceFilePath(data_), &inst));
  ASSERT_OK(fs::WritePBContainerToPath(fs::InstanceFilePath(meta), inst));
  EXPECT_EQ(0, Run("check", {"--fs_metadata_dir=" + meta}).exit_status);
  SetUuid(meta, std::string(32, 'd'));
  ExpectOneLine(Run("check", {"--fs_metadata_dir=" + meta}), 1,
                {"Mismatched UUIDs", fs::InstanceFilePath(meta)});
}

// An instance file whose record lacks a required field fails the open with
// one line naming the file and the field, not libprotobuf's own line too.
TEST_F(InstanceRootsTest, AnInstanceRecordMissingARequiredFieldIsOneLine) {
  Generate();
  InstanceMetadataPB inst;
  ASSERT_OK(fs::ReadPBContainerFromPath(fs::InstanceFilePath(data_), &inst));
  DirInstanceMetadataPB dir;
  ASSERT_OK(fs::ReadPBContainerFromPath(fs::DirInstanceFilePath(data_), &dir));
  inst.clear_format_stamp();
  dir.clear_dir_set();
  for (auto [path, pb, field] :
       {std::tuple<std::string, const google::protobuf::Message*, const char*>{
            fs::InstanceFilePath(data_), &inst, "format_stamp"},
        {fs::DirInstanceFilePath(data_), &dir, "dir_set"}}) {
    SCOPED_TRACE(path);
    std::string good;
    ASSERT_OK(test::ReadFileToString(path, &good));
    // The writer refuses such a record: frame its partial bytes by hand.
    std::unique_ptr<WritableFile> f;
    ASSERT_OK(WritableFile::Open(path, CreateMode::kTruncate, WriteEncryption(), &f));
    std::unique_ptr<PbContainerWriter> w;
    ASSERT_OK(PbContainerWriter::Create(std::move(f), pb_container::kVersion2,
                                        pb->GetDescriptor(), &w));
    std::string framed;
    pb_container::AppendRecord(pb_container::kVersion2, pb->SerializePartialAsString(), &framed);
    ASSERT_OK(w->AppendFramed(framed));
    ASSERT_OK(w->Close());
    ExpectOneLine(Run("check"), 1, {path, field});
    ASSERT_OK(test::WriteStringToFile(path, good));
  }
}

TEST_F(InstanceRootsTest, AKeyOnlyInTheWalRootsInstanceIsUsed) {
  Generate({"--encrypt", std::string("--server_key_hex=") + kKeyHex});
  ASSERT_OK(env::DeleteFile(fs::InstanceFilePath(data_)));
  RunResult r = Run("check", {"--fs_wal_dir=" + wal_});
  ASSERT_EQ(0, r.exit_status) << Describe(r);
  json j = json::parse(r.out);
  EXPECT_TRUE(j["encrypted"].get<bool>());
  EXPECT_EQ(live_blocks_, j["live_blocks"].get<uint64_t>());
  RunResult list = Run("list", {"--fs_wal_dir=" + wal_});
  EXPECT_EQ(0, list.exit_status) << Describe(list);
  EXPECT_EQ(live_blocks_, test::NonEmptyLines(list.out).size());
  // Without the WAL root there is no key: the dir is read as a plain one,
  // and every encrypted metadata file is damage (§5), not a usage error.
  EXPECT_EQ(1, Run("check").exit_status);

  // A data root's instance comes first: a key there wins over the WAL root's.
  InstanceMetadataPB inst;
  ASSERT_OK(fs::ReadPBContainerFromPath(fs::InstanceFilePath(wal_), &inst));
  inst.set_server_key(std::string(32, '7'));  // another key, as the provider stores it
  ASSERT_OK(fs::WritePBContainerToPath(fs::InstanceFilePath(data_), inst));
  r = Run("check", {"--fs_wal_dir=" + wal_});
  EXPECT_EQ(2, r.exit_status) << Describe(r);
  EXPECT_TRUE(Contains(r.err, "wrong server key")) << r.err;
  // The message names where the refused key came from.
  EXPECT_TRUE(Contains(r.err, "(the key of " + fs::InstanceFilePath(data_) + ")")) << r.err;
}

TEST_F(InstanceRootsTest, EncryptDataAtRestWithoutAnyKeyIsAUsageError) {
  Generate();
  const auto before = Snapshot({data_, wal_});
  for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{
           {"--encrypt_data_at_rest"},
           {"--encrypt_data_at_rest", "--repair"},
           {"--encrypt_data_at_rest", "--fs_wal_dir=" + wal_}}) {
    ExpectOneLine(Run("check", extra), 2, {kNoKey});
  }
  ExpectOneLine(Run("list", {"--encrypt_data_at_rest"}), 2, {kNoKey});
  EXPECT_EQ(before, Snapshot({data_, wal_}));
  // Unset (Kudu's default), the plain dir opens as before.
  EXPECT_EQ(0, Run("check", {"--encrypt_data_at_rest=false"}).exit_status);
}

TEST_F(InstanceRootsTest, EncryptDataAtRestWithAKeyOpens) {
  Generate({"--encrypt_data_at_rest"});
  InstanceMetadataPB inst;
  ASSERT_OK(fs::ReadPBContainerFromPath(fs::InstanceFilePath(wal_), &inst));
  EXPECT_EQ(32u, inst.server_key().size());  // generate made one, as --encrypt does
  for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{
           {"--encrypt_data_at_rest"}, {}}) {
    RunResult r = Run("check", extra);
    ASSERT_EQ(0, r.exit_status) << Describe(r);
    EXPECT_TRUE(json::parse(r.out)["encrypted"].get<bool>());
    EXPECT_EQ(live_blocks_, json::parse(r.out)["live_blocks"].get<uint64_t>());
  }
  // The key only in the WAL root's instance counts as found.
  ASSERT_OK(env::DeleteFile(fs::InstanceFilePath(data_)));
  EXPECT_EQ(0, Run("check", {"--encrypt_data_at_rest", "--fs_wal_dir=" + wal_}).exit_status);
  ExpectOneLine(Run("check", {"--encrypt_data_at_rest"}), 2, {kNoKey});
}

TEST_F(InstanceRootsTest, GenerateWithEncryptDataAtRestOnAPlainFormatNeedsAKey) {
  fs::FormatOptions format;  // what `kudu fs format` leaves, without a key
  format.data_roots = {data_};
  ASSERT_OK(fs::FormatRoots(format));
  RunResult r = RunKudu(tmp_, {"fs", "generate", "--fs_data_dirs=" + data_,
                               "--encrypt_data_at_rest", "--containers=1"});
  ExpectOneLine(r, 2, {kNoKey});
  std::vector<std::string> names;
  ASSERT_OK(env::ListDir(data_ + "/data", &names));
  EXPECT_EQ(std::vector<std::string>{"block_manager_instance"}, names);
}

// A server encrypts with the key its instance files hold, and writes plain
// files when they hold none: on roots formatted before, generate takes a
// given key only if it is that key. Any other key would leave files that
// no server writes and that an open without the flag refuses.
TEST_F(InstanceRootsTest, GenerateTakesOnlyTheKeyTheRootsHold) {
  const std::string plain = tmp_.Join("plain"), random = tmp_.Join("random");
  const std::string given = tmp_.Join("given");
  auto generate = [&](const std::string& root, std::vector<std::string> extra) {
    std::vector<std::string> args = {"fs", "generate", "--fs_data_dirs=" + root,
                                     "--blocks_per_container=3"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunKudu(tmp_, args);
  };
  const std::string key_flag = std::string("--server_key_hex=") + kKeyHex;
  ASSERT_EQ(0, generate(plain, {"--containers=0"}).exit_status);
  ASSERT_EQ(0, generate(random, {"--containers=0", "--encrypt"}).exit_status);
  ASSERT_EQ(0, generate(given, {"--containers=0", key_flag}).exit_status);
  ExpectOneLine(generate(plain, {"--containers=2", key_flag}), 2,
                {"formatted without a server key"});
  ExpectOneLine(generate(random, {"--containers=2", key_flag}), 2,
                {"not the key", fs::InstanceFilePath(random)});
  // Nor does --encrypt on roots formatted plain point at a key flag.
  RunResult encrypt = generate(plain, {"--containers=2", "--encrypt"});
  ExpectOneLine(encrypt, 2, {"--encrypt", "plain files"});
  EXPECT_FALSE(Contains(encrypt.err, "--server_key_hex")) << encrypt.err;
  for (const std::string& root : {plain, random}) {
    std::vector<std::string> names;
    ASSERT_OK(env::ListDir(root + "/data", &names));
    EXPECT_EQ(std::vector<std::string>{"block_manager_instance"}, names) << root;
  }
  RunResult same = generate(given, {"--containers=2", key_flag});
  EXPECT_EQ(0, same.exit_status) << Describe(same);
  RunResult check = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + given});
  EXPECT_EQ(0, check.exit_status) << Describe(check);
}

TEST_F(InstanceRootsTest, EveryActionThatOpensADirTakesTheFlag) {
  for (const char* action : {"check", "list", "locate_block", "generate", "bench"}) {
    SCOPED_TRACE(action);
    RunResult r = RunKudu(tmp_, {"fs", action, "--help"});
    EXPECT_TRUE(Contains(r.out + r.err, "-encrypt_data_at_rest (")) << Describe(r);
  }
}

}  // namespace
}  // namespace kudu
