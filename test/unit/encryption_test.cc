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
// independent OpenSSL computation) and the all-zero rule. Encrypted files
// through the file layer are in encrypted_file_test.cc.
#include "kudu/util/encryption.h"
#include "kudu/util/zero_rule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "util/encryption_reference.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

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

// Kudu unwraps the key field as one read of the file (DoDecryptV), which
// leaves an all-zero read untouched: a field of zeros is a file key of zeros,
// whatever the server key. ECB would give another key.
TEST(EncryptionTest, AnAllZeroKeyFieldIsAKeyOfZeros) {
  for (CipherAlgorithm alg : kAllAlgorithms) {
    for (size_t sk_size : kServerKeySizes) {
      std::string header = "kuduenc";
      header.push_back(static_cast<char>(alg));
      header.resize(64, '\0');
      CipherAlgorithm parsed_alg;
      std::string parsed_key;
      ASSERT_OK(ParseEncryptionHeader("x", header, TestServerKey(sk_size), &parsed_alg,
                                      &parsed_key));
      EXPECT_EQ(alg, parsed_alg);
      EXPECT_EQ(std::string(FileKeySize(alg), '\0'), parsed_key);
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

}  // namespace
}  // namespace test
}  // namespace kudu
