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

// Encryption at rest (§5 of docs/on-disk-format.md): the kuduenc header and
// its ECB key wrap, server keys, AES-CTR by file offset (checked against an
// independent OpenSSL computation), the all-zero rule, and encrypted files
// through the file layer and the container reader.
#include "kudu/util/encryption.h"
#include "kudu/util/zero_rule.h"

#include <openssl/evp.h>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kudu/fs/fs.pb.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_reader.h"
#include "util/read_buffers.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using test::Contains;

using test::TempDir;
using test::TestServerKey;


std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

const CipherAlgorithm kAllAlgorithms[] = {CipherAlgorithm::kAes128Ctr, CipherAlgorithm::kAes192Ctr,
                                          CipherAlgorithm::kAes256Ctr};
const size_t kServerKeySizes[] = {16, 24, 32};

const uint8_t* U8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }
uint8_t* U8(std::string* s) { return reinterpret_cast<uint8_t*>(&(*s)[0]); }

// ---------------------------------------------------------------------------
// Independent reference computations, straight on OpenSSL EVP.

const EVP_CIPHER* RefEcb(size_t key_size) {
  switch (key_size) {
    case 16: return EVP_aes_128_ecb();
    case 24: return EVP_aes_192_ecb();
    case 32: return EVP_aes_256_ecb();
  }
  return nullptr;
}

const EVP_CIPHER* RefCtr(size_t key_size) {
  switch (key_size) {
    case 16: return EVP_aes_128_ctr();
    case 24: return EVP_aes_192_ctr();
    case 32: return EVP_aes_256_ctr();
  }
  return nullptr;
}

// One-shot EVP operation with a fresh context.
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

void CtrIv(uint64_t block, uint8_t iv[16]) {
  std::memset(iv, 0, 16);
  for (int i = 0; i < 8; i++) iv[15 - i] = static_cast<uint8_t>(block >> (8 * i));
}

// AES-CTR of `in` placed at a 16-aligned raw offset, by EVP aes-*-ctr with
// IV = 8 zero bytes || big-endian(offset / 16).
std::string RefCtrAligned(const std::string& key, uint64_t offset, const std::string& in) {
  EXPECT_EQ(0u, offset % 16);
  uint8_t iv[16];
  CtrIv(offset / 16, iv);
  return RefEvp(RefCtr(key.size()), true, key, iv, in);
}

// The keystream for [offset, offset + n), built block by block from AES-ECB
// encryptions of the counter blocks: an implementation of CTR that shares
// nothing with OpenSSL's CTR mode.
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

std::unique_ptr<FileCipher> MakeCipher(CipherAlgorithm alg, const std::string& key) {
  std::unique_ptr<FileCipher> c;
  Status s = FileCipher::Create(alg, key, &c);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return c;
}

std::string Crypt(FileCipher* c, uint64_t offset, const std::string& in) {
  std::string out(in.size(), '\0');
  Status s = c->Crypt(offset, U8(in), U8(&out), in.size());
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

// ---------------------------------------------------------------------------
// Sizes and algorithm selection

TEST(EncryptionTest, AlgorithmSizes) {
  EXPECT_EQ(16u, FileKeySize(CipherAlgorithm::kAes128Ctr));
  EXPECT_EQ(24u, FileKeySize(CipherAlgorithm::kAes192Ctr));
  EXPECT_EQ(32u, FileKeySize(CipherAlgorithm::kAes256Ctr));
  EXPECT_EQ(16u, WrappedKeyFieldSize(CipherAlgorithm::kAes128Ctr));
  EXPECT_EQ(32u, WrappedKeyFieldSize(CipherAlgorithm::kAes192Ctr));
  EXPECT_EQ(32u, WrappedKeyFieldSize(CipherAlgorithm::kAes256Ctr));
  CipherAlgorithm alg;
  ASSERT_OK(CipherAlgorithmForKeyBits(128, &alg));
  EXPECT_EQ(CipherAlgorithm::kAes128Ctr, alg);
  ASSERT_OK(CipherAlgorithmForKeyBits(192, &alg));
  EXPECT_EQ(CipherAlgorithm::kAes192Ctr, alg);
  ASSERT_OK(CipherAlgorithmForKeyBits(256, &alg));
  EXPECT_EQ(CipherAlgorithm::kAes256Ctr, alg);
  for (int bad : {0, 64, 127, 129, 512, -128}) {
    Status s = CipherAlgorithmForKeyBits(bad, &alg);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad;
    EXPECT_TRUE(Contains(s.ToString(), std::to_string(bad))) << s.ToString();
  }
}

TEST(EncryptionTest, GenerateFileKey) {
  for (CipherAlgorithm alg : kAllAlgorithms) {
    std::string a, b;
    ASSERT_OK(GenerateFileKey(alg, &a));
    ASSERT_OK(GenerateFileKey(alg, &b));
    EXPECT_EQ(FileKeySize(alg), a.size());
    EXPECT_EQ(FileKeySize(alg), b.size());
    EXPECT_NE(a, b);
  }
}

// ---------------------------------------------------------------------------
// Server keys

TEST(EncryptionTest, ServerKeyFromHexValid) {
  for (size_t n : kServerKeySizes) {
    std::string bytes = RandomBytes(n, static_cast<uint32_t>(n));
    ServerKey k = ServerKey::FromBytes(bytes);
    std::string hex = k.ToHex();
    EXPECT_EQ(2 * n, hex.size());
    ServerKey parsed;
    ASSERT_OK(ServerKey::FromHex(hex, &parsed));
    EXPECT_EQ(bytes, parsed.bytes());
    EXPECT_FALSE(parsed.empty());
    // Upper case digits too.
    std::string upper = hex;
    for (char& c : upper) c = static_cast<char>(std::toupper(c));
    ServerKey parsed_upper;
    ASSERT_OK(ServerKey::FromHex(upper, &parsed_upper));
    EXPECT_EQ(bytes, parsed_upper.bytes());
  }
  ServerKey k;
  ASSERT_OK(ServerKey::FromHex("000102030405060708090a0b0c0d0eFF", &k));
  std::string expected;
  for (int i = 0; i < 15; i++) expected.push_back(static_cast<char>(i));
  expected.push_back('\xff');
  EXPECT_EQ(expected, k.bytes());
  EXPECT_EQ("000102030405060708090a0b0c0d0eff", k.ToHex());
  EXPECT_TRUE(ServerKey().empty());
}

TEST(EncryptionTest, ServerKeyFromHexInvalid) {
  const std::string good32 = std::string(32, 'a');
  ServerKey k = ServerKey::FromBytes("unchanged");
  // Odd number of digits.
  Status s = ServerKey::FromHex(good32 + "a", &k);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "odd")) << s.ToString();
  // A bad digit, high or low nibble.
  for (size_t pos : {0, 1, 17, 31}) {
    for (char bad : {'g', 'G', 'x', ' ', '-', '\0'}) {
      std::string hex = good32;
      hex[pos] = bad;
      s = ServerKey::FromHex(hex, &k);
      EXPECT_TRUE(s.IsInvalidArgument()) << pos << " " << s.ToString();
      EXPECT_TRUE(Contains(s.ToString(), "position " + std::to_string(pos))) << s.ToString();
    }
  }
  // Wrong lengths: 15 and 17 bytes, and others.
  for (size_t n : {0, 1, 8, 15, 17, 23, 25, 31, 33, 64}) {
    s = ServerKey::FromHex(std::string(2 * n, '1'), &k);
    EXPECT_TRUE(s.IsInvalidArgument()) << n << " " << s.ToString();
    EXPECT_TRUE(Contains(s.ToString(), std::to_string(n) + " bytes")) << s.ToString();
  }
  // Nothing was stored by a failed parse.
  EXPECT_EQ("unchanged", k.bytes());
}

TEST(EncryptionTest, ServerKeyFromTestKeyProviderHex) {
  for (size_t n : kServerKeySizes) {
    std::string bytes = RandomBytes(n, static_cast<uint32_t>(100 + n));
    std::string xored = bytes;
    for (char& c : xored) c = static_cast<char>(c ^ 42);
    std::string hex = ServerKey::FromBytes(xored).ToHex();
    ServerKey k;
    ASSERT_OK(ServerKey::FromTestKeyProviderHex(hex, &k));
    EXPECT_EQ(bytes, k.bytes());
    // As plain hex the same string is a different key.
    ServerKey plain;
    ASSERT_OK(ServerKey::FromHex(hex, &plain));
    EXPECT_EQ(xored, plain.bytes());
    EXPECT_NE(plain.bytes(), k.bytes());
  }
  // Literal: 0x2a ^ 42 == 0, 0x2b ^ 42 == 1.
  ServerKey k;
  ASSERT_OK(ServerKey::FromTestKeyProviderHex(std::string(30, '2') + "2b", &k));
  // "22" = 0x22 ^ 0x2a = 0x08
  EXPECT_EQ(std::string(15, '\x08') + std::string(1, '\x01'), k.bytes());
  EXPECT_TRUE(ServerKey::FromTestKeyProviderHex("2a2a", &k).IsInvalidArgument());
  EXPECT_TRUE(ServerKey::FromTestKeyProviderHex(std::string(31, '2'), &k).IsInvalidArgument());
  EXPECT_TRUE(ServerKey::FromTestKeyProviderHex(std::string(32, 'z'), &k).IsInvalidArgument());
}

// ---------------------------------------------------------------------------
// The header

TEST(EncryptionTest, HeaderRoundTripEveryAlgorithmAndServerKeySize) {
  for (CipherAlgorithm alg : kAllAlgorithms) {
    for (size_t sk_size : kServerKeySizes) {
      SCOPED_TRACE("alg " + std::to_string(static_cast<int>(alg)) + " server key " +
                   std::to_string(sk_size));
      ServerKey sk = TestServerKey(sk_size);
      std::string file_key = FileKeyFor(alg, static_cast<uint32_t>(sk_size * 10 + static_cast<int>(alg)));
      std::string header;
      ASSERT_OK(BuildEncryptionHeader(alg, file_key, sk, &header));
      ASSERT_EQ(kEncryptionHeaderSize, header.size());
      EXPECT_EQ("kuduenc", header.substr(0, 7));
      EXPECT_TRUE(HasEncryptionMagic(header));
      EXPECT_EQ(static_cast<uint8_t>(alg), static_cast<uint8_t>(header[7]));
      const size_t field = WrappedKeyFieldSize(alg);
      // Zero padding after the field.
      EXPECT_EQ(std::string(64 - 8 - field, '\0'), header.substr(8 + field));
      // The key is not stored in the clear.
      EXPECT_FALSE(Contains(header, file_key));
      // Independent unwrap: AES-ECB by the server key's size over the field.
      std::string unwrapped =
          RefEvp(RefEcb(sk_size), false, sk.bytes(), nullptr, header.substr(8, field));
      ASSERT_EQ(field, unwrapped.size());
      EXPECT_EQ(file_key, unwrapped.substr(0, FileKeySize(alg)));
      EXPECT_EQ(std::string(field - FileKeySize(alg), '\0'), unwrapped.substr(FileKeySize(alg)));

      CipherAlgorithm parsed_alg;
      std::string parsed_key;
      ASSERT_OK(ParseEncryptionHeader("/p/x.metadata", header, sk, &parsed_alg, &parsed_key));
      EXPECT_EQ(alg, parsed_alg);
      EXPECT_EQ(file_key, parsed_key);
    }
  }
}

TEST(EncryptionTest, HeaderWrittenByAnIndependentWrapParses) {
  // A header built by hand (as Kudu would write it) parses to its key.
  for (CipherAlgorithm alg : kAllAlgorithms) {
    for (size_t sk_size : kServerKeySizes) {
      ServerKey sk = TestServerKey(sk_size);
      std::string file_key = FileKeyFor(alg, 7);
      std::string field(WrappedKeyFieldSize(alg), '\0');
      field.replace(0, file_key.size(), file_key);
      std::string header = std::string("kuduenc") + static_cast<char>(alg) +
                           RefEvp(RefEcb(sk_size), true, sk.bytes(), nullptr, field);
      header.resize(64, '\0');
      CipherAlgorithm parsed_alg;
      std::string parsed_key;
      ASSERT_OK(ParseEncryptionHeader("x", header, sk, &parsed_alg, &parsed_key));
      EXPECT_EQ(alg, parsed_alg);
      EXPECT_EQ(file_key, parsed_key);
    }
  }
}

// Behaviour with the wrong server key: the format has no key check value, so
// the header parses and yields a different (garbage) file key. The failure
// is only detectable later, when the decrypted container does not start with
// "kuducntr" (see WrongServerKeyIsDetectedByTheContainerReader).
TEST(EncryptionTest, WrongServerKeyGivesADifferentFileKey) {
  for (CipherAlgorithm alg : kAllAlgorithms) {
    for (size_t sk_size : kServerKeySizes) {
      ServerKey right = TestServerKey(sk_size);
      std::string wrong_bytes = right.bytes();
      wrong_bytes[0] ^= 1;
      ServerKey wrong = ServerKey::FromBytes(wrong_bytes);
      std::string file_key = FileKeyFor(alg, 99);
      std::string header;
      ASSERT_OK(BuildEncryptionHeader(alg, file_key, right, &header));
      CipherAlgorithm parsed_alg;
      std::string parsed_key;
      ASSERT_OK(ParseEncryptionHeader("x", header, wrong, &parsed_alg, &parsed_key));
      EXPECT_EQ(alg, parsed_alg);
      EXPECT_EQ(FileKeySize(alg), parsed_key.size());
      EXPECT_NE(file_key, parsed_key);
      // A server key of another size is also just "wrong".
      ServerKey other_size = TestServerKey(sk_size == 16 ? 32 : 16);
      ASSERT_OK(ParseEncryptionHeader("x", header, other_size, &parsed_alg, &parsed_key));
      EXPECT_NE(file_key, parsed_key);
    }
  }
}

TEST(EncryptionTest, HeaderErrors) {
  ServerKey sk = TestServerKey(16);
  std::string key = FileKeyFor(CipherAlgorithm::kAes128Ctr, 1);
  std::string header;
  ASSERT_OK(BuildEncryptionHeader(CipherAlgorithm::kAes128Ctr, key, sk, &header));
  CipherAlgorithm alg;
  std::string out;

  // Bad magic.
  for (size_t i = 0; i < 7; i++) {
    std::string h = header;
    h[i] ^= 0x20;
    Status s = ParseEncryptionHeader("/dir/f.metadata", h, sk, &alg, &out);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_TRUE(Contains(s.ToString(), "/dir/f.metadata")) << s.ToString();
    EXPECT_TRUE(Contains(s.ToString(), "offset 0")) << s.ToString();
  }
  // Unknown algorithm.
  for (int a : {3, 4, 0x80, 0xff}) {
    std::string h = header;
    h[7] = static_cast<char>(a);
    Status s = ParseEncryptionHeader("/dir/f.metadata", h, sk, &alg, &out);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_TRUE(Contains(s.ToString(), "/dir/f.metadata")) << s.ToString();
    EXPECT_TRUE(Contains(s.ToString(), "offset 7")) << s.ToString();
  }
  // Too short.
  Status s = ParseEncryptionHeader("/dir/f.metadata", Slice(header.data(), 63), sk, &alg, &out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "/dir/f.metadata")) << s.ToString();
  // A server key of an impossible size.
  s = ParseEncryptionHeader("/dir/f.metadata", header, ServerKey::FromBytes("short"), &alg, &out);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "/dir/f.metadata")) << s.ToString();
  s = BuildEncryptionHeader(CipherAlgorithm::kAes128Ctr, key, ServerKey::FromBytes("short"), &header);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = BuildEncryptionHeader(CipherAlgorithm::kAes128Ctr, key, ServerKey(), &header);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  // A file key of the wrong length.
  s = BuildEncryptionHeader(CipherAlgorithm::kAes256Ctr, key, sk, &header);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();

  EXPECT_FALSE(HasEncryptionMagic("kuduen"));
  EXPECT_FALSE(HasEncryptionMagic("kuducntr"));
  EXPECT_TRUE(HasEncryptionMagic("kuduenc"));
}

// ---------------------------------------------------------------------------
// FileCipher

TEST(EncryptionTest, FileCipherRejectsWrongKeyLength) {
  std::unique_ptr<FileCipher> c;
  for (CipherAlgorithm alg : kAllAlgorithms) {
    for (size_t n : {0, 15, 17, 24, 31, 33}) {
      if (n == FileKeySize(alg)) continue;
      EXPECT_TRUE(FileCipher::Create(alg, std::string(n, 'k'), &c).IsInvalidArgument())
          << static_cast<int>(alg) << " " << n;
    }
    ASSERT_OK(FileCipher::Create(alg, std::string(FileKeySize(alg), 'k'), &c));
    EXPECT_EQ(alg, c->algorithm());
    EXPECT_EQ(std::string(FileKeySize(alg), 'k'), c->key());
  }
  EXPECT_FALSE(FileCipher::Create(static_cast<CipherAlgorithm>(5), std::string(16, 'k'), &c).ok());
}

const uint64_t kOffsets[] = {0, 1, 15, 16, 17, 63, 64, 65, 4095, (1u << 20) + 3};
const size_t kLengths[] = {0, 1, 2, 15, 16, 17, 31, 32, 33, 100, 4096, 10007};

TEST(EncryptionTest, CryptRoundTripsAtOddOffsetsAndLengths) {
  for (CipherAlgorithm alg : kAllAlgorithms) {
    std::string key = FileKeyFor(alg, 5);
    auto c = MakeCipher(alg, key);
    for (uint64_t off : kOffsets) {
      for (size_t n : kLengths) {
        SCOPED_TRACE(std::to_string(static_cast<int>(alg)) + " @" + std::to_string(off) + "+" +
                     std::to_string(n));
        std::string plain = RandomBytes(n, static_cast<uint32_t>(off * 31 + n));
        std::string cipher = Crypt(c.get(), off, plain);
        if (n >= 16) {
          EXPECT_NE(plain, cipher);
        }
        EXPECT_EQ(plain, Crypt(c.get(), off, cipher));
        // In place gives the same.
        std::string inplace = plain;
        ASSERT_OK(c->Crypt(off, U8(inplace), U8(&inplace), n));
        EXPECT_EQ(cipher, inplace);
        // Independent keystream (AES-ECB of the counter blocks).
        EXPECT_EQ(Xor(plain, RefKeystream(key, off, n)), cipher);
      }
    }
  }
}

TEST(EncryptionTest, CryptMatchesEvpCtrAtAlignedOffsets) {
  for (CipherAlgorithm alg : kAllAlgorithms) {
    std::string key = FileKeyFor(alg, 6);
    auto c = MakeCipher(alg, key);
    for (uint64_t off : {uint64_t{0}, uint64_t{16}, uint64_t{64}, uint64_t{4096},
                         uint64_t{1} << 20, (uint64_t{1} << 36) + 48,
                         (uint64_t{0xFFFFFFFF} << 4), uint64_t{0x123456789ABCDEF0}}) {
      for (size_t n : {1, 16, 17, 1000, 65536}) {
        std::string plain = RandomBytes(n, static_cast<uint32_t>(n + off));
        EXPECT_EQ(RefCtrAligned(key, off, plain), Crypt(c.get(), off, plain))
            << static_cast<int>(alg) << " @" << off << "+" << n;
      }
    }
  }
}

TEST(EncryptionTest, CryptAcrossA32BitCounterBoundary) {
  // The counter is the full 64-bit block index: crossing 2^32 blocks must carry.
  for (CipherAlgorithm alg : kAllAlgorithms) {
    std::string key = FileKeyFor(alg, 8);
    auto c = MakeCipher(alg, key);
    uint64_t off = (uint64_t{1} << 36) - 40;  // block 2^32 - 3, mid-block
    std::string plain = RandomBytes(200, 1);
    EXPECT_EQ(Xor(plain, RefKeystream(key, off, plain.size())), Crypt(c.get(), off, plain));
  }
}

TEST(EncryptionTest, PiecesEqualWhole) {
  // CTR offset independence: decrypting a range in arbitrary pieces gives the
  // bytes of decrypting it whole, with one cipher reused in any order.
  std::mt19937 rng(1234);
  for (CipherAlgorithm alg : kAllAlgorithms) {
    std::string key = FileKeyFor(alg, 9);
    auto c = MakeCipher(alg, key);
    for (uint64_t base : {uint64_t{0}, uint64_t{64}, uint64_t{3}, uint64_t{(1 << 20) + 3}}) {
      std::string plain = RandomBytes(20000, static_cast<uint32_t>(base));
      std::string whole = Crypt(c.get(), base, plain);
      for (int trial = 0; trial < 5; trial++) {
        // Random cut points, pieces processed in shuffled order.
        std::vector<size_t> cuts = {0, plain.size()};
        for (int i = 0; i < 30; i++) cuts.push_back(rng() % plain.size());
        std::sort(cuts.begin(), cuts.end());
        std::vector<size_t> order(cuts.size() - 1);
        for (size_t i = 0; i < order.size(); i++) order[i] = i;
        std::shuffle(order.begin(), order.end(), rng);
        std::string pieces(plain.size(), '\0');
        for (size_t i : order) {
          size_t a = cuts[i], b = cuts[i + 1];
          ASSERT_OK(c->Crypt(base + a, U8(plain) + a, U8(&pieces) + a, b - a));
        }
        EXPECT_EQ(whole, pieces) << static_cast<int>(alg) << " base " << base;
      }
      // And decrypting the whole ciphertext in pieces, too.
      std::string back(plain.size(), '\0');
      for (size_t a = 0; a < plain.size(); a += 4099) {
        size_t n = std::min<size_t>(4099, plain.size() - a);
        ASSERT_OK(c->Crypt(base + a, U8(whole) + a, U8(&back) + a, n));
      }
      EXPECT_EQ(plain, back);
    }
  }
}

TEST(EncryptionTest, DifferentKeysDifferentCiphertext) {
  auto a = MakeCipher(CipherAlgorithm::kAes128Ctr, std::string(16, 'a'));
  auto b = MakeCipher(CipherAlgorithm::kAes128Ctr, std::string(16, 'b'));
  std::string plain(64, 'x');
  EXPECT_NE(Crypt(a.get(), 0, plain), Crypt(b.get(), 0, plain));
  // And different offsets, different keystream.
  EXPECT_NE(Crypt(a.get(), 0, plain), Crypt(a.get(), 16, plain));
}

// ---------------------------------------------------------------------------
// The all-zero rule

TEST(EncryptionTest, IsAllZero) {
  for (size_t n : {0, 1, 7, 8, 9, 15, 16, 17, 100}) {
    std::vector<uint8_t> buf(n, 0);
    EXPECT_TRUE(IsAllZero(buf.data(), n)) << n;
    for (size_t i = 0; i < n; i++) {
      buf[i] = 1;
      EXPECT_FALSE(IsAllZero(buf.data(), n)) << n << " " << i;
      buf[i] = 0;
    }
  }
}

TEST(EncryptionTest, DecryptReadInPlaceAllZeroRule) {
  for (CipherAlgorithm alg : kAllAlgorithms) {
    std::string key = FileKeyFor(alg, 10);
    auto c = MakeCipher(alg, key);
    for (uint64_t off : kOffsets) {
      for (size_t n : {1, 8, 16, 33, 4096}) {
        // All-zero ciphertext stays zeros.
        std::string zeros(n, '\0');
        std::string buf = zeros;
        ASSERT_OK(DecryptReadInPlace(c.get(), off, U8(&buf), n));
        EXPECT_EQ(zeros, buf);
        // One non-zero byte anywhere: the whole read is decrypted, zero
        // bytes included.
        for (size_t pos : {size_t{0}, n / 2, n - 1}) {
          std::string ct = zeros;
          ct[pos] = 0x5a;
          buf = ct;
          ASSERT_OK(DecryptReadInPlace(c.get(), off, U8(&buf), n));
          EXPECT_EQ(Xor(ct, RefKeystream(key, off, n)), buf) << off << "+" << n << " @" << pos;
        }
        // Ordinary ciphertext decrypts.
        std::string plain = RandomBytes(n, static_cast<uint32_t>(off + n));
        buf = Crypt(c.get(), off, plain);
        ASSERT_OK(DecryptReadInPlace(c.get(), off, U8(&buf), n));
        EXPECT_EQ(plain, buf);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Encrypted files through the file layer

class EncryptedFileTest : public ::testing::Test {
 protected:
  TempDir dir_;
};

TEST_F(EncryptedFileTest, WritableFileWritesHeaderAndCiphertextAtTheRightOffsets) {
  for (CipherAlgorithm alg : kAllAlgorithms) {
    for (size_t sk_size : kServerKeySizes) {
      SCOPED_TRACE(std::to_string(static_cast<int>(alg)) + "/" + std::to_string(sk_size));
      ServerKey sk = TestServerKey(sk_size);
      std::string path = dir_.Join("enc-" + std::to_string(static_cast<int>(alg)) + "-" +
                                   std::to_string(sk_size));
      WriteEncryption enc;
      enc.server_key = &sk;
      enc.algorithm = alg;
      enc.file_key = FileKeyFor(alg, 11);
      std::unique_ptr<WritableFile> f;
      ASSERT_OK(WritableFile::Open(path, CreateMode::kCreateNew, enc, &f));
      EXPECT_EQ(64u, f->size());
      EXPECT_EQ(64u, f->encryption_header_size());
      std::string p1 = RandomBytes(1000, 1), p2 = RandomBytes(77, 2), p3 = RandomBytes(5, 3);
      ASSERT_OK(f->Append(p1));
      ASSERT_OK(f->Append(p2));
      ASSERT_OK(f->Write(5000, p3));  // leaves a hole
      EXPECT_EQ(5005u, f->size());
      // Writing into the header is refused.
      for (uint64_t off : {0, 1, 63}) {
        Status s = f->Write(off, "x");
        EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
        EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
      }
      ASSERT_OK(f->Close());

      std::string disk;
      ASSERT_OK(test::ReadFileToString(path, &disk));
      ASSERT_EQ(5005u, disk.size());
      EXPECT_EQ("kuduenc", disk.substr(0, 7));
      EXPECT_EQ(static_cast<char>(alg), disk[7]);
      std::string unwrapped = RefEvp(RefEcb(sk_size), false, sk.bytes(), nullptr,
                                     disk.substr(8, WrappedKeyFieldSize(alg)));
      EXPECT_EQ(enc.file_key, unwrapped.substr(0, FileKeySize(alg)));
      EXPECT_EQ(Xor(p1, RefKeystream(enc.file_key, 64, p1.size())), disk.substr(64, 1000));
      EXPECT_EQ(RefCtrAligned(enc.file_key, 64, p1), disk.substr(64, 1000));
      EXPECT_EQ(Xor(p2, RefKeystream(enc.file_key, 1064, p2.size())), disk.substr(1064, 77));
      EXPECT_EQ(Xor(p3, RefKeystream(enc.file_key, 5000, p3.size())), disk.substr(5000, 5));
      EXPECT_EQ(std::string(5000 - 1141, '\0'), disk.substr(1141, 5000 - 1141));

      // Read back through RandomAccessFile with the key.
      std::unique_ptr<RandomAccessFile> r;
      ASSERT_OK(RandomAccessFile::Open(path, &sk, &r));
      EXPECT_TRUE(r->encrypted());
      EXPECT_EQ(64u, r->encryption_header_size());
      EXPECT_EQ(5005u, r->size());
      EXPECT_EQ(1u, r->stats().read_syscalls);  // the header
      EXPECT_EQ(64u, r->stats().bytes_read);
      ASSERT_NE(nullptr, r->cipher());
      EXPECT_EQ(enc.file_key, r->cipher()->key());
      std::string got(1077, '\0');
      ASSERT_OK(r->Read(64, U8(&got), got.size()));
      EXPECT_EQ(p1 + p2, got);
      std::string mid(33, '\0');
      ASSERT_OK(r->Read(64 + 17, U8(&mid), mid.size()));
      EXPECT_EQ(p1.substr(17, 33), mid);
      std::string raw(1000, '\0');
      ASSERT_OK(r->ReadRaw(64, U8(&raw), raw.size()));
      EXPECT_EQ(disk.substr(64, 1000), raw);
      std::string tail(5, '\0');
      ASSERT_OK(r->Read(5000, U8(&tail), 5));
      EXPECT_EQ(p3, tail);
      // The hole is all-zero ciphertext: it reads as zeros.
      std::string hole(100, 'x');
      ASSERT_OK(r->Read(2000, U8(&hole), hole.size()));
      EXPECT_EQ(std::string(100, '\0'), hole);
      // Consecutive buffers, each decrypted as its own read.
      std::string a(10, '\0'), b(1067, '\0');
      Slice bufs[] = {Slice(U8(&a), a.size()), Slice(U8(&b), b.size())};
      ASSERT_OK(test::ReadIntoBuffers(r.get(), 64, bufs, 2));
      EXPECT_EQ(p1 + p2, a + b);
    }
  }
}

TEST_F(EncryptedFileTest, RandomFileKeyByDefaultAndReopenExisting) {
  ServerKey sk = TestServerKey(32);
  std::string p1 = dir_.Join("one"), p2 = dir_.Join("two");
  WriteEncryption enc;
  enc.server_key = &sk;
  enc.algorithm = CipherAlgorithm::kAes256Ctr;
  std::unique_ptr<WritableFile> f1, f2;
  ASSERT_OK(WritableFile::Open(p1, CreateMode::kCreateNew, enc, &f1));
  ASSERT_OK(WritableFile::Open(p2, CreateMode::kCreateNew, enc, &f2));
  std::string data = RandomBytes(300, 4);
  ASSERT_OK(f1->Append(data));
  ASSERT_OK(f2->Append(data));
  f1.reset();
  f2.reset();
  std::string d1, d2;
  ASSERT_OK(test::ReadFileToString(p1, &d1));
  ASSERT_OK(test::ReadFileToString(p2, &d2));
  EXPECT_NE(d1.substr(8, 56), d2.substr(8, 56));   // different wrapped keys
  EXPECT_NE(d1.substr(64), d2.substr(64));         // so different ciphertext

  // Reopen the existing file and append: the key comes from the header.
  std::unique_ptr<WritableFile> again;
  WriteEncryption reopen;
  reopen.server_key = &sk;
  ASSERT_OK(WritableFile::Open(p1, CreateMode::kOpenExisting, reopen, &again));
  EXPECT_EQ(364u, again->size());
  std::string more = RandomBytes(50, 5);
  ASSERT_OK(again->Append(more));
  again.reset();
  std::string d1b;
  ASSERT_OK(test::ReadFileToString(p1, &d1b));
  EXPECT_EQ(d1.substr(0, 64), d1b.substr(0, 64));  // header unchanged
  std::unique_ptr<RandomAccessFile> r;
  ASSERT_OK(RandomAccessFile::Open(p1, &sk, &r));
  std::string got(350, '\0');
  ASSERT_OK(r->Read(64, U8(&got), got.size()));
  EXPECT_EQ(data + more, got);
}

TEST_F(EncryptedFileTest, AllZeroRuleIsPerRead) {
  ServerKey sk = TestServerKey(16);
  std::string path = dir_.Join("z");
  WriteEncryption enc;
  enc.server_key = &sk;
  std::unique_ptr<WritableFile> f;
  ASSERT_OK(WritableFile::Open(path, CreateMode::kCreateNew, enc, &f));
  std::string plain = RandomBytes(200, 6);
  ASSERT_OK(f->Append(plain));
  f.reset();
  // Zero the ciphertext of [164, 264): a torn tail.
  ASSERT_OK(test::ZeroFillFrom(path, 164));
  std::unique_ptr<RandomAccessFile> r;
  ASSERT_OK(RandomAccessFile::Open(path, &sk, &r));
  std::string z(100, 'x');
  ASSERT_OK(r->Read(164, U8(&z), z.size()));
  EXPECT_EQ(std::string(100, '\0'), z);  // all-zero read: left as zeros
  // A read covering ciphertext and zeros is decrypted as a whole: the zero
  // ciphertext bytes come out as keystream, not as zeros.
  std::string both(200, '\0');
  ASSERT_OK(r->Read(64, U8(&both), both.size()));
  EXPECT_EQ(plain.substr(0, 100), both.substr(0, 100));
  EXPECT_EQ(RefKeystream(r->cipher()->key(), 164, 100), both.substr(100));
  EXPECT_NE(std::string(100, '\0'), both.substr(100));
}

TEST_F(EncryptedFileTest, OpenWithKeyErrors) {
  ServerKey sk = TestServerKey(16);
  // A plain file opened with a key: no header.
  std::string plain = dir_.Join("plain");
  ASSERT_OK(test::WriteStringToFile(plain, std::string(100, 'p')));
  std::unique_ptr<RandomAccessFile> r;
  Status s = RandomAccessFile::Open(plain, &sk, &r);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), plain)) << s.ToString();
  // Too short for a header.
  std::string tiny = dir_.Join("tiny");
  ASSERT_OK(test::WriteStringToFile(tiny, "kuduenc"));
  s = RandomAccessFile::Open(tiny, &sk, &r);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), tiny)) << s.ToString();
  // An empty key means no encryption.
  ServerKey none;
  ASSERT_OK(RandomAccessFile::Open(plain, &none, &r));
  EXPECT_FALSE(r->encrypted());
}

// ---------------------------------------------------------------------------
// Encrypted containers and the reader

TEST_F(EncryptedFileTest, ContainerWithoutKeyIsNotSupported) {
  ServerKey sk = TestServerKey(24);
  std::string path = dir_.Join("c.metadata");
  test::MetadataFileOptions opts;
  opts.server_key = &sk;
  opts.algorithm = CipherAlgorithm::kAes192Ctr;
  ASSERT_OK(test::WriteMetadataFile(path, test::MakeRecordSequence(10), opts));

  std::unique_ptr<RandomAccessFile> f;
  ASSERT_OK(RandomAccessFile::Open(path, nullptr, &f));
  FileRecordSource src(f.get());
  PbContainerRecordReader<FileRecordSource> reader(&src);
  Status s = reader.ReadHeaders("kudu.BlockRecordPB");
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "encrypted but no server key")) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();

  // With the key every record comes back.
  ASSERT_OK(RandomAccessFile::Open(path, &sk, &f));
  FileRecordSource src2(f.get());
  PbContainerRecordReader<FileRecordSource> reader2(&src2);
  ASSERT_OK(reader2.ReadHeaders("kudu.BlockRecordPB"));
  auto records = test::MakeRecordSequence(10);
  for (const auto& want : records) {
    Slice body;
    ASSERT_OK(reader2.ReadNextRecord(&body));
    BlockRecordPB got;
    ASSERT_TRUE(got.ParseFromArray(body.data(), static_cast<int>(body.size())));
    EXPECT_EQ(want.SerializeAsString(), got.SerializeAsString());
  }
  Slice body;
  EXPECT_TRUE(reader2.ReadNextRecord(&body).IsEndOfFile());
}

TEST_F(EncryptedFileTest, WrongServerKeyIsDetectedByTheContainerReader) {
  ServerKey sk = TestServerKey(16);
  std::string path = dir_.Join("c.metadata");
  test::MetadataFileOptions opts;
  opts.server_key = &sk;
  ASSERT_OK(test::WriteMetadataFile(path, test::MakeRecordSequence(3), opts));
  std::string wrong_bytes = sk.bytes();
  wrong_bytes[15] ^= 0x80;
  ServerKey wrong = ServerKey::FromBytes(wrong_bytes);
  std::unique_ptr<RandomAccessFile> f;
  // The open itself cannot tell (no key check value in the header)...
  ASSERT_OK(RandomAccessFile::Open(path, &wrong, &f));
  FileRecordSource src(f.get());
  PbContainerRecordReader<FileRecordSource> reader(&src);
  // ...but the decrypted bytes are not a container.
  Status s = reader.ReadHeaders("kudu.BlockRecordPB");
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "offset 64")) << s.ToString();
}

}  // namespace
}  // namespace kudu
