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

// `kudu fs check` on an encrypted dir whose data file lost its encryption
// header (§4.1, last row): exit 1, one corruption entry naming the data file
// at offset 0, the container counted only in corrupt_containers, and the
// layout report's totals without it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/fs_report.h"
#include "kudu/util/encryption.h"
#include "kudu/util/env.h"
#include "kudu/util/pb_container_format.h"
#include "util/fs_fixture_util.h"
#include "util/kudu_subprocess.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

using nlohmann::json;

constexpr char kKeyHex[] = "000102030405060708090a0b0c0d0e0f";

class EncryptedDataHeaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = tmp_.Join("a");
    RunResult g = RunKudu(tmp_, {"fs", "generate", "--fs_data_dirs=" + root_, "--containers=2",
                                 "--blocks_per_container=10", "--encrypt",
                                 std::string("--server_key_hex=") + kKeyHex});
    ASSERT_EQ(0, g.exit_status) << Describe(g);
    std::vector<std::string> names;
    ASSERT_OK(env::ListDir(root_ + "/data", &names));
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) {
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".data") == 0) {
        ids_.push_back(n.substr(0, n.size() - 5));
      }
    }
    ASSERT_EQ(2u, ids_.size());
  }

  json Check(int want_exit) {
    RunResult r = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + root_, "--format=json",
                                 std::string("--server_key_hex=") + kKeyHex});
    EXPECT_EQ(want_exit, r.exit_status) << Describe(r);
    return json::parse(r.out);
  }

  TempDir tmp_;
  std::string root_;
  std::vector<std::string> ids_;
};

TEST_F(EncryptedDataHeaderTest, ShortOrDamagedDataFileHeaderIsACorruptContainer) {
  const json clean = Check(0);
  ASSERT_EQ(2u, clean["containers"].get<uint64_t>());
  const std::string container = root_ + "/data/" + ids_[0];
  const std::string data = container + ".data";
  const std::string saved = Slurp(data);
  struct Case {
    const char* name;
    uint64_t size;      // truncated to this, or left whole
    int64_t flip_at;    // a header byte flipped (-1: none)
    uint8_t mask;
    const char* what;   // in the message
  };
  const Case cases[] = {
      {"empty", 0, -1, 0, "offset 0: data file of 0 bytes is too short"},
      {"63 bytes", 63, -1, 0, "offset 0: data file of 63 bytes is too short"},
      {"magic", saved.size(), 3, 0x01, "offset 0: no valid encryption header"},
      {"algorithm", saved.size(), kEncryptionMagicSize, 0x80,
       "offset 7: unknown encryption algorithm"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    ASSERT_OK(WriteStringToFile(data, saved.substr(0, tc.size)));
    if (tc.flip_at >= 0) ASSERT_OK(FlipByte(data, tc.flip_at, tc.mask));
    const json j = Check(1);
    EXPECT_FALSE(j["ok"].get<bool>());
    EXPECT_EQ(1u, j["corrupt_containers"].get<uint64_t>());
    EXPECT_EQ(1u, j["containers"].get<uint64_t>());
    ASSERT_EQ(1u, j["entries"]["corruption"].size()) << j["entries"]["corruption"].dump();
    const json& e = j["entries"]["corruption"][0];
    EXPECT_EQ(container, e["container"]);
    EXPECT_EQ(data, e["file"]);
    EXPECT_EQ(0u, e["offset"].get<uint64_t>());
    EXPECT_EQ("corruption", e["kind"]);
    const std::string msg = e["message"];
    EXPECT_TRUE(Contains(msg, data + ": " + tc.what)) << msg;
    // The other container alone makes the totals: its live bytes, each
    // with its 64 header bytes (§4.3).
    EXPECT_EQ(0u, j["malformed_records"].get<uint64_t>());
    EXPECT_LT(j["live_blocks"].get<uint64_t>(), clean["live_blocks"].get<uint64_t>());
    EXPECT_LT(j["live_bytes"].get<uint64_t>(), clean["live_bytes"].get<uint64_t>());
    RunResult text = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + root_,
                                    std::string("--server_key_hex=") + kKeyHex});
    EXPECT_EQ(1, text.exit_status) << Describe(text);
    EXPECT_TRUE(Contains(text.out, "Total live bytes: " +
                                       std::to_string(j["live_bytes"].get<uint64_t>()) + "\n"));
    EXPECT_TRUE(Contains(text.out, "Total number of LBM containers: 1 ("));
    EXPECT_TRUE(Contains(text.out, "Total corrupt LBM containers: 1 (1 problems)\n"));
  }
  ASSERT_OK(WriteStringToFile(data, saved));
  EXPECT_EQ(clean["live_bytes"], Check(0)["live_bytes"]);
}

// The exact-size edges, in-process on hand-made containers: a data file of
// exactly its 64-byte header (no block in it) is a container like any other.
TEST(EncryptedDataHeaderSizeTest, DataFileOfExactlyItsHeaderIsNotCorrupt) {
  TempDir tmp;
  const std::string root = tmp.Join("d");
  const ServerKey key = TestServerKey(16);
  const std::vector<BlockRecordPB> none;
  HandContainer c;
  ASSERT_OK(WriteHandContainer(root, ContainerIdFor(1), kEncryptionHeaderSize, &none, &key, &c));
  ASSERT_EQ(kEncryptionHeaderSize, FileSizeOrDie(c.data_path));
  fs::OpenResult r;
  fs::OpenBlockManager(OpenOptions({root}, &key), &r);
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  const json j = fs::FsReportJson(r);
  EXPECT_TRUE(j["ok"].get<bool>()) << j["entries"];
  EXPECT_EQ(1u, j["containers"].get<uint64_t>());
  EXPECT_EQ(0u, j["corrupt_containers"].get<uint64_t>()) << j["entries"];
  EXPECT_EQ(0u, j["entries"]["corruption"].size()) << j["entries"]["corruption"];
}

// A metadata file of exactly the minimum valid length plus the encryption
// header is long enough for the data file's header to be checked: a damaged
// one is reported.
TEST(EncryptedDataHeaderSizeTest, DataHeaderIsCheckedBesideMetadataOfExactlyTheMinimumSize) {
  TempDir tmp;
  const std::string root = tmp.Join("d");
  const ServerKey key = TestServerKey(16);
  const std::vector<BlockRecordPB> records = {MakeCreate(1, kEncryptionHeaderSize, 100)};
  HandContainer c;
  ASSERT_OK(WriteHandContainer(root, ContainerIdFor(1), kEncryptionHeaderSize + 4096, &records,
                               &key, &c));
  const uint64_t minimum = pb_container::kMinimumValidLength + kEncryptionHeaderSize;
  ASSERT_OK(TruncateFileTo(c.metadata_path, minimum));
  ASSERT_EQ(minimum, FileSizeOrDie(c.metadata_path));
  ASSERT_OK(FlipByte(c.data_path, 3, 0x01));
  fs::OpenResult r;
  fs::OpenBlockManager(OpenOptions({root}, &key), &r);
  const json j = fs::FsReportJson(r);
  bool reported = false;
  for (const json& e : j["entries"]["corruption"]) {
    if (e["file"] == c.data_path &&
        Contains(e["message"].get<std::string>(),
                 c.data_path + ": offset 0: no valid encryption header")) {
      reported = true;
    }
  }
  EXPECT_TRUE(reported) << j["entries"].dump();
}

}  // namespace
}  // namespace test
}  // namespace kudu
