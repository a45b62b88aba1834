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

#include "kudu/util/pb_container_format.h"

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
      {"plain, no key", PlainHead(), nullptr, KeyVerdict::kOk},
      {"encrypted, no key", enc, nullptr, KeyVerdict::kEncryptedWithoutKey},
      {"encrypted, its key", enc, &key, KeyVerdict::kOk},
      {"encrypted, another key", enc, &other, KeyVerdict::kWrongKey},
      {"plain, a key", PlainHead(), &key, KeyVerdict::kPlainFileWithKey},
      {"header without the magic after it", enc.substr(0, kEncryptionHeaderSize), &key,
       KeyVerdict::kUndecided},
      {"a header the key cannot unwrap", unknown_alg, &key, KeyVerdict::kUndecided},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    EXPECT_EQ(static_cast<int>(row.verdict),
              static_cast<int>(KeyVerdictOf("f", Slice(row.head), row.key)));
  }
}

}  // namespace
}  // namespace fs
}  // namespace kudu
