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

// Encryption at rest, as Kudu does it (§5 of docs/on-disk-format.md):
// a 64-byte "kuduenc" header carrying the per-file key wrapped with the
// server key in AES-ECB, then AES-CTR ciphertext whose IV is derived from the
// file offset, so any byte range decrypts on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "kudu/util/slice.h"
#include "kudu/util/status.h"

typedef struct evp_cipher_ctx_st EVP_CIPHER_CTX;

namespace kudu {

constexpr size_t kEncryptionHeaderSize = 64;
constexpr char kEncryptionMagic[] = "kuduenc";  // 7 bytes on disk, no NUL
constexpr size_t kEncryptionMagicSize = 7;

enum class CipherAlgorithm : uint8_t {
  kAes128Ctr = 0,
  kAes192Ctr = 1,
  kAes256Ctr = 2,
};

// 128, 192 or 256 → the matching algorithm.
Status CipherAlgorithmForKeyBits(int bits, CipherAlgorithm* alg);
size_t FileKeySize(CipherAlgorithm alg);        // 16, 24 or 32 key bytes used
size_t WrappedKeyFieldSize(CipherAlgorithm alg);  // 16 or 32 bytes on disk

// The key that wraps every file key. 16, 24 or 32 bytes.
class ServerKey {
 public:
  ServerKey() = default;
  // The key written directly as hex ("--server_key_hex").
  static Status FromHex(const std::string& hex, ServerKey* key);
  // Kudu's test key provider form: hex of every key byte XORed with 42.
  static Status FromTestKeyProviderHex(const std::string& hex, ServerKey* key);
  static ServerKey FromBytes(std::string bytes);

  const std::string& bytes() const { return bytes_; }
  bool empty() const { return bytes_.empty(); }
  std::string ToHex() const;

 private:
  std::string bytes_;
};

// AES-CTR over one file with one key. One OpenSSL context is created per
// instance and reused for every range, so a whole-file pass costs one
// context. Not thread-safe: one per thread.
class FileCipher {
 public:
  static Status Create(CipherAlgorithm alg, Slice file_key, std::unique_ptr<FileCipher>* out);
  ~FileCipher();

  // XORs `in[0, n)`, which sits at raw file offset `offset` (header included),
  // with the keystream into `out` (may equal `in`). Encrypt and decrypt are
  // the same operation in CTR mode.
  Status Crypt(uint64_t offset, const uint8_t* in, uint8_t* out, size_t n);

  CipherAlgorithm algorithm() const { return alg_; }
  const std::string& key() const { return key_; }

 private:
  FileCipher(CipherAlgorithm alg, std::string key, EVP_CIPHER_CTX* ctx)
      : alg_(alg), key_(std::move(key)), ctx_(ctx) {}
  CipherAlgorithm alg_;
  std::string key_;
  EVP_CIPHER_CTX* ctx_;
};

// Builds the 64-byte header for a new file.
Status BuildEncryptionHeader(CipherAlgorithm alg, Slice file_key, const ServerKey& server_key,
                             std::string* header);

// Everything a header can be checked for without the server key: its size,
// the magic and the algorithm byte (the wrapped key field carries no
// checksum, so any bytes unwrap to some key). Corruption naming `path` and
// the field's offset otherwise.
Status CheckEncryptionHeader(const std::string& path, Slice header, CipherAlgorithm* alg);

// Parses a 64-byte header (CheckEncryptionHeader, then the key unwrapped). `path` only names the file in errors.
Status ParseEncryptionHeader(const std::string& path, Slice header, const ServerKey& server_key,
                             CipherAlgorithm* alg, std::string* file_key);

// True when `data` begins with the "kuduenc" magic.
bool HasEncryptionMagic(Slice data);

Status GenerateFileKey(CipherAlgorithm alg, std::string* key);

}  // namespace kudu
