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

#include "util/encryption_reference.h"

#include <gtest/gtest.h>

#include <cstring>

#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

const EVP_CIPHER* RefCtr(size_t key_size) {
  switch (key_size) {
    case 16: return EVP_aes_128_ctr();
    case 24: return EVP_aes_192_ctr();
    case 32: return EVP_aes_256_ctr();
  }
  return nullptr;
}

void CtrIv(uint64_t block, uint8_t iv[16]) {
  std::memset(iv, 0, 16);
  for (int i = 0; i < 8; i++) iv[15 - i] = static_cast<uint8_t>(block >> (8 * i));
}

}  // namespace

const EVP_CIPHER* RefEcb(size_t key_size) {
  switch (key_size) {
    case 16: return EVP_aes_128_ecb();
    case 24: return EVP_aes_192_ecb();
    case 32: return EVP_aes_256_ecb();
  }
  return nullptr;
}

std::string RefEvp(const EVP_CIPHER* cipher, bool encrypt, const std::string& key,
                   const uint8_t* iv, const std::string& in) {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  std::string out(in.size() + 32, '\0');
  int l1 = 0, l2 = 0;
  bool ok = EVP_CipherInit_ex(ctx, cipher, nullptr, U8(key), iv, encrypt ? 1 : 0) == 1;
  ok = ok && EVP_CIPHER_CTX_set_padding(ctx, 0) == 1;
  ok = ok && EVP_CipherUpdate(ctx, U8(&out), &l1, U8(in), static_cast<int>(in.size())) == 1;
  ok = ok && EVP_CipherFinal_ex(ctx, U8(&out) + l1, &l2) == 1;
  EVP_CIPHER_CTX_free(ctx);
  EXPECT_TRUE(ok);
  out.resize(l1 + l2);
  return out;
}

std::string RefCtrAligned(const std::string& key, uint64_t offset, const std::string& in) {
  EXPECT_EQ(0u, offset % 16);
  uint8_t iv[16];
  CtrIv(offset / 16, iv);
  return RefEvp(RefCtr(key.size()), true, key, iv, in);
}

std::string RefKeystream(const std::string& key, uint64_t offset, size_t n) {
  uint64_t first = offset / 16, last = (offset + n + 15) / 16;
  std::string counters;
  for (uint64_t b = first; b < last; b++) {
    uint8_t iv[16];
    CtrIv(b, iv);
    counters.append(reinterpret_cast<char*>(iv), 16);
  }
  std::string ks = RefEvp(RefEcb(key.size()), true, key, nullptr, counters);
  return ks.substr(offset % 16, n);
}

std::string Xor(const std::string& a, const std::string& b) {
  EXPECT_EQ(a.size(), b.size());
  std::string out(a.size(), '\0');
  for (size_t i = 0; i < a.size(); i++) out[i] = static_cast<char>(a[i] ^ b[i]);
  return out;
}

std::string FileKeyFor(CipherAlgorithm alg, uint32_t seed) {
  return RandomBytes(FileKeySize(alg), seed);
}

}  // namespace test
}  // namespace kudu
