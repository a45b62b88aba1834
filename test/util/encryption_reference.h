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

// Independent reference computations of encryption at rest (§5 of
// docs/on-disk-format.md), straight on OpenSSL EVP and sharing nothing with
// util/encryption.cc, for tests of the cipher, the header and encrypted files.
#pragma once

#include <openssl/evp.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "kudu/util/encryption.h"

namespace kudu {
namespace test {

inline constexpr CipherAlgorithm kAllAlgorithms[] = {
    CipherAlgorithm::kAes128Ctr, CipherAlgorithm::kAes192Ctr, CipherAlgorithm::kAes256Ctr};
inline constexpr size_t kServerKeySizes[] = {16, 24, 32};

inline const uint8_t* U8(const std::string& s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}
inline uint8_t* U8(std::string* s) { return reinterpret_cast<uint8_t*>(&(*s)[0]); }

// AES-ECB of the server key's size (16, 24 or 32 bytes): the key wrap.
const EVP_CIPHER* RefEcb(size_t key_size);

// One-shot EVP operation with a fresh context, no padding.
std::string RefEvp(const EVP_CIPHER* cipher, bool encrypt, const std::string& key,
                   const uint8_t* iv, const std::string& in);

// AES-CTR of `in` placed at a 16-aligned raw offset, by EVP aes-*-ctr with
// IV = 8 zero bytes || big-endian(offset / 16).
std::string RefCtrAligned(const std::string& key, uint64_t offset, const std::string& in);

// The keystream for [offset, offset + n), built block by block from AES-ECB
// encryptions of the counter blocks: an implementation of CTR that shares
// nothing with OpenSSL's CTR mode.
std::string RefKeystream(const std::string& key, uint64_t offset, size_t n);

std::string Xor(const std::string& a, const std::string& b);

// A file key of the algorithm's size, the same for the same seed.
std::string FileKeyFor(CipherAlgorithm alg, uint32_t seed);

}  // namespace test
}  // namespace kudu
