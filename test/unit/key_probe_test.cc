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

// The key verdict is a function of a file's first bytes and the key: a
// table of heads (plain, encrypted with the right key, with another key,
// damaged) and the verdict each gives.
#include "kudu/fs/key_probe.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "kudu/util/env.h"
#include "kudu/util/io_fault_injector.h"
#include "kudu/util/pb_container_format.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

// The first kKeyProbeBytes of a v2 container encrypted with `key`.
std::string EncryptedHead(const ServerKey& key) {
  const CipherAlgorithm alg = CipherAlgorithm::kAes128Ctr;
  std::string file_key, head, plain;
  EXPECT_TRUE(GenerateFileKey(alg, &file_key).ok());
  EXPECT_TRUE(BuildEncryptionHeader(alg, file_key, key, &head).ok());
  pb_container::AppendFileHeader(pb_container::kVersion2, &plain);
  std::unique_ptr<FileCipher> cipher;
  EXPECT_TRUE(FileCipher::Create(alg, file_key, &cipher).ok());
  std::string enc(pb_container::kMagicSize, '\0');
  EXPECT_TRUE(cipher->Crypt(kEncryptionHeaderSize, reinterpret_cast<const uint8_t*>(plain.data()),
                            reinterpret_cast<uint8_t*>(&enc[0]), enc.size()).ok());
  return head + enc;
}

std::string PlainHead() {
  std::string h;
  pb_container::AppendFileHeader(pb_container::kVersion2, &h);
  return h;
}

TEST(KeyProbeTest, VerdictTable) {
  const ServerKey key = ServerKey::FromBytes(std::string(16, 'k'));
  const ServerKey other = ServerKey::FromBytes(std::string(16, 'o'));
  const std::string enc = EncryptedHead(key);
  std::string unknown_alg = enc;
  unknown_alg[7] = 9;
  struct Row {
    const char* what;
    std::string head;
    const ServerKey* key;
    KeyVerdict verdict;
  };
  const Row rows[] = {
      {"encrypted, its key", enc, &key, KeyVerdict::kOk},
      {"encrypted, another key", enc, &other, KeyVerdict::kWrongMagic},
      {"plain, a key", PlainHead(), &key, KeyVerdict::kPlainFile},
      {"header without the magic after it", enc.substr(0, kEncryptionHeaderSize), &key,
       KeyVerdict::kHeaderNotUnwrapped},
      {"a header the key cannot unwrap", unknown_alg, &key, KeyVerdict::kHeaderNotUnwrapped},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    EXPECT_EQ(static_cast<int>(row.verdict),
              static_cast<int>(KeyVerdictOf("f", Slice(row.head), *row.key)));
  }
}

// A data dir with the given files in data/, each `bytes` long.
void MakeDir(const std::string& root, const std::vector<std::pair<std::string, std::string>>& files) {
  ASSERT_TRUE(env::CreateDirs(env::JoinPath(root, "data")).ok());
  for (const auto& f : files) {
    ASSERT_TRUE(test::WriteStringToFile(env::JoinPath(env::JoinPath(root, "data"), f.first),
                                        f.second).ok());
  }
}

// §5: the key is wrong when at least one container metadata file of 76
// bytes or more exists and none reads with it as a valid encryption header
// followed by the magic. One good file anywhere clears the key, whatever
// the others hold; too-short files, data files and temporary files are no
// evidence; the error names the first file tried and the count.
TEST(KeyProbeTest, CheckServerKeyFollowsTheWrongKeyRule) {
  test::TempDir tmp;
  const ServerKey key = ServerKey::FromBytes(std::string(16, 'k'));
  const ServerKey other = ServerKey::FromBytes(std::string(16, 'o'));
  const std::string pad(16, 'x');  // past the 72 bytes read: 88-byte files
  const std::string good = EncryptedHead(key) + pad;
  const std::string wrong = EncryptedHead(other) + pad;
  std::string unknown_alg = good;
  unknown_alg[7] = 9;
  const std::string plain = PlainHead() + std::string(80, 'p');
  const std::string a = std::string(32, 'a'), b = std::string(32, 'b'), c = std::string(32, 'c');
  struct Case {
    const char* what;
    std::vector<std::vector<std::pair<std::string, std::string>>> dirs;
    bool ok;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"one good file", {{{a + ".metadata", good}}}, true, ""},
      {"only wrong", {{{a + ".metadata", wrong}, {b + ".metadata", wrong}}}, false,
       "none of the 2 metadata files tried reads with the key: wrong server key?"},
      {"wrong and an unknown algorithm", {{{a + ".metadata", unknown_alg}}, {{b + ".metadata", wrong}}},
       false, "none of the 2 metadata files tried"},
      {"wrong beside plain", {{{a + ".metadata", plain}, {b + ".metadata", wrong}}}, false,
       "none of the 2 metadata files tried"},
      {"all plain", {{{a + ".metadata", plain}, {b + ".metadata", plain}}}, false,
       "no encryption header (in all 2 metadata files tried): the data dirs are not encrypted"},
      {"a good file in the second dir clears the key",
       {{{a + ".metadata", wrong}}, {{b + ".metadata", plain}, {c + ".metadata", good}}}, true, ""},
      {"no evidence: short files, data files, temporary files",
       {{{a + ".metadata", wrong.substr(0, 75)},
         {b + ".data", wrong},
         {c + ".metadata.kudutmp.Ab12Cd", wrong},
         {"notes.txt", wrong}}},
       true, ""},
      {"76 bytes are enough", {{{a + ".metadata", wrong.substr(0, 76)}}}, false,
       "none of the 1 metadata file tried"},
      {"no metadata at all", {{}}, true, ""},
  };
  int n = 0;
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.what);
    std::vector<std::string> roots;
    for (const auto& files : tc.dirs) {
      roots.push_back(tmp.Join("case" + std::to_string(n++)));
      ASSERT_NO_FATAL_FAILURE(MakeDir(roots.back(), files));
    }
    KeyCheckReads reads;
    const Status s = CheckServerKey(roots, key, &reads);
    EXPECT_EQ(tc.ok, s.ok()) << s.ToString();
    if (!tc.ok) {
      EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
      EXPECT_NE(std::string::npos, s.ToString().find(tc.says)) << s.ToString();
      EXPECT_NE(std::string::npos, s.ToString().find(roots[0])) << s.ToString();
    }
  }
}

// The check reads no more than it needs: a good first file is one read;
// an unreadable file is skipped, not taken as evidence of a wrong key.
TEST(KeyProbeTest, CheckServerKeyReadsOneGoodFileAndSkipsUnreadableOnes) {
  test::TempDir tmp;
  const ServerKey key = ServerKey::FromBytes(std::string(16, 'k'));
  const std::string good = EncryptedHead(key) + std::string(16, 'x');
  std::vector<std::pair<std::string, std::string>> files;
  for (char ch = 'a'; ch <= 'e'; ch++) files.push_back({std::string(32, ch) + ".metadata", good});
  ASSERT_NO_FATAL_FAILURE(MakeDir(tmp.Join("d"), files));
  KeyCheckReads reads;
  ASSERT_TRUE(CheckServerKey({tmp.Join("d")}, key, &reads).ok());
  EXPECT_EQ(1u, reads.syscalls);
  EXPECT_EQ(kKeyProbeBytes, reads.bytes);
  // Every read fails once in turn: the other files still clear the key.
  for (uint64_t k = 1; k <= files.size(); k++) {
    IoFaultInjector::Arm(IoOp::kRead, k, IoFault::kEIO, ".metadata");
    KeyCheckReads r;
    const Status s = CheckServerKey({tmp.Join("d")}, key, &r);
    IoFaultInjector::Disarm();
    EXPECT_TRUE(s.ok()) << k << ": " << s.ToString();
  }
}

}  // namespace
}  // namespace fs
}  // namespace kudu
