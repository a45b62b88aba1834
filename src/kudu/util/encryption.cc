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

#include "kudu/util/encryption.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cstring>

#include "kudu/util/zero_rule.h"

namespace kudu {
namespace {

const EVP_CIPHER* CtrCipherFor(CipherAlgorithm alg) {
  switch (alg) {
    case CipherAlgorithm::kAes128Ctr: return EVP_aes_128_ctr();
    case CipherAlgorithm::kAes192Ctr: return EVP_aes_192_ctr();
    case CipherAlgorithm::kAes256Ctr: return EVP_aes_256_ctr();
  }
  return nullptr;
}

const EVP_CIPHER* EcbCipherForKeySize(size_t key_size) {
  switch (key_size) {
    case 16: return EVP_aes_128_ecb();
    case 24: return EVP_aes_192_ecb();
    case 32: return EVP_aes_256_ecb();
  }
  return nullptr;
}

std::string OpenSslError() {
  unsigned long e = ERR_get_error();
  if (e == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

// AES-ECB without padding over `n` bytes (a multiple of 16).
Status EcbCrypt(bool encrypt, const ServerKey& key, const uint8_t* in, uint8_t* out, size_t n) {
  const EVP_CIPHER* cipher = EcbCipherForKeySize(key.bytes().size());
  if (cipher == nullptr) {
    return Status::InvalidArgument("server key must be 16, 24 or 32 bytes, got " +
                                   std::to_string(key.bytes().size()));
  }
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  if (ctx == nullptr) return Status::IOError("EVP_CIPHER_CTX_new", OpenSslError());
  const auto* k = reinterpret_cast<const unsigned char*>(key.bytes().data());
  int ok = EVP_CipherInit_ex(ctx, cipher, nullptr, k, nullptr, encrypt ? 1 : 0);
  ok = ok && EVP_CIPHER_CTX_set_padding(ctx, 0);
  int outl = 0;
  ok = ok && EVP_CipherUpdate(ctx, out, &outl, in, static_cast<int>(n));
  int finl = 0;
  ok = ok && EVP_CipherFinal_ex(ctx, out + outl, &finl);
  EVP_CIPHER_CTX_free(ctx);
  if (!ok) return Status::IOError("AES-ECB key wrap failed", OpenSslError());
  return Status::OK();
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Status DecodeHex(const std::string& hex, std::string* out) {
  if (hex.size() % 2 != 0) {
    return Status::InvalidArgument("key hex has an odd number of digits (" +
                                   std::to_string(hex.size()) + ")");
  }
  out->clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = HexValue(hex[i]), lo = HexValue(hex[i + 1]);
    if (hi < 0 || lo < 0) {
      return Status::InvalidArgument("key is not hex: bad digit at position " +
                                     std::to_string(hi < 0 ? i : i + 1));
    }
    out->push_back(static_cast<char>(hi << 4 | lo));
  }
  return Status::OK();
}

Status CheckServerKeySize(size_t n) {
  if (n != 16 && n != 24 && n != 32) {
    return Status::InvalidArgument("server key must be 16, 24 or 32 bytes (32, 48 or 64 hex digits), got " +
                                   std::to_string(n) + " bytes");
  }
  return Status::OK();
}

}  // namespace

Status CipherAlgorithmForKeyBits(int bits, CipherAlgorithm* alg) {
  switch (bits) {
    case 128: *alg = CipherAlgorithm::kAes128Ctr; return Status::OK();
    case 192: *alg = CipherAlgorithm::kAes192Ctr; return Status::OK();
    case 256: *alg = CipherAlgorithm::kAes256Ctr; return Status::OK();
  }
  return Status::InvalidArgument("encryption key length must be 128, 192 or 256 bits, got " +
                                 std::to_string(bits));
}

size_t FileKeySize(CipherAlgorithm alg) {
  switch (alg) {
    case CipherAlgorithm::kAes128Ctr: return 16;
    case CipherAlgorithm::kAes192Ctr: return 24;
    case CipherAlgorithm::kAes256Ctr: return 32;
  }
  return 0;
}

size_t WrappedKeyFieldSize(CipherAlgorithm alg) {
  return alg == CipherAlgorithm::kAes128Ctr ? 16 : 32;
}

Status ServerKey::FromHex(const std::string& hex, ServerKey* key) {
  std::string bytes;
  RETURN_NOT_OK(DecodeHex(hex, &bytes));
  RETURN_NOT_OK(CheckServerKeySize(bytes.size()));
  key->bytes_ = std::move(bytes);
  return Status::OK();
}

Status ServerKey::FromTestKeyProviderHex(const std::string& hex, ServerKey* key) {
  std::string bytes;
  RETURN_NOT_OK(DecodeHex(hex, &bytes));
  for (char& c : bytes) c = static_cast<char>(c ^ 42);
  RETURN_NOT_OK(CheckServerKeySize(bytes.size()));
  key->bytes_ = std::move(bytes);
  return Status::OK();
}

ServerKey ServerKey::FromBytes(std::string bytes) {
  ServerKey k;
  k.bytes_ = std::move(bytes);
  return k;
}

std::string ServerKey::ToHex() const {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes_) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

Status FileCipher::Create(CipherAlgorithm alg, Slice file_key, std::unique_ptr<FileCipher>* out) {
  const EVP_CIPHER* cipher = CtrCipherFor(alg);
  if (cipher == nullptr) return Status::NotSupported("unknown cipher algorithm");
  if (file_key.size() != FileKeySize(alg)) {
    return Status::InvalidArgument("file key has wrong length");
  }
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  if (ctx == nullptr) return Status::IOError("EVP_CIPHER_CTX_new", OpenSslError());
  if (!EVP_EncryptInit_ex(ctx, cipher, nullptr, file_key.data(), nullptr)) {
    EVP_CIPHER_CTX_free(ctx);
    return Status::IOError("AES-CTR init failed", OpenSslError());
  }
  out->reset(new FileCipher(alg, file_key.ToString(), ctx));
  return Status::OK();
}

FileCipher::~FileCipher() { EVP_CIPHER_CTX_free(ctx_); }

Status FileCipher::Crypt(uint64_t offset, const uint8_t* in, uint8_t* out, size_t n) {
  uint8_t iv[16] = {0};
  uint64_t block = offset / 16;
  for (int i = 0; i < 8; i++) iv[15 - i] = static_cast<uint8_t>(block >> (8 * i));
  if (!EVP_EncryptInit_ex(ctx_, nullptr, nullptr, nullptr, iv)) {
    return Status::IOError("AES-CTR IV setup failed", OpenSslError());
  }
  int outl = 0;
  size_t skip = offset % 16;
  if (skip != 0) {
    // Enter the keystream mid-block by encrypting throw-away bytes.
    uint8_t scratch[16] = {0};
    if (!EVP_EncryptUpdate(ctx_, scratch, &outl, scratch, static_cast<int>(skip))) {
      return Status::IOError("AES-CTR failed", OpenSslError());
    }
  }
  // EVP takes an int length: feed large ranges in pieces.
  constexpr size_t kMaxPiece = 1 << 30;
  while (n > 0) {
    size_t piece = n < kMaxPiece ? n : kMaxPiece;
    if (!EVP_EncryptUpdate(ctx_, out, &outl, in, static_cast<int>(piece))) {
      return Status::IOError("AES-CTR failed", OpenSslError());
    }
    in += piece;
    out += piece;
    n -= piece;
  }
  return Status::OK();
}

Status BuildEncryptionHeader(CipherAlgorithm alg, Slice file_key, const ServerKey& server_key,
                             std::string* header) {
  if (file_key.size() != FileKeySize(alg)) return Status::InvalidArgument("file key has wrong length");
  RETURN_NOT_OK(CheckServerKeySize(server_key.bytes().size()));
  size_t field = WrappedKeyFieldSize(alg);
  uint8_t plain[32] = {0};
  std::memcpy(plain, file_key.data(), file_key.size());
  header->assign(kEncryptionHeaderSize, '\0');
  auto* h = reinterpret_cast<uint8_t*>(&(*header)[0]);
  std::memcpy(h, kEncryptionMagic, kEncryptionMagicSize);
  h[7] = static_cast<uint8_t>(alg);
  return EcbCrypt(true, server_key, plain, h + 8, field);
}

Status CheckEncryptionHeader(const std::string& path, Slice header, CipherAlgorithm* alg) {
  if (header.size() < kEncryptionHeaderSize || !HasEncryptionMagic(header)) {
    return Status::Corruption(path + ": offset 0: no valid encryption header (magic 'kuduenc' expected)");
  }
  uint8_t a = header[7];
  if (a > 2) {
    return Status::Corruption(path + ": offset 7: unknown encryption algorithm " + std::to_string(a));
  }
  *alg = static_cast<CipherAlgorithm>(a);
  return Status::OK();
}

Status ParseEncryptionHeader(const std::string& path, Slice header, const ServerKey& server_key,
                             CipherAlgorithm* alg, std::string* file_key) {
  RETURN_NOT_OK(CheckEncryptionHeader(path, header, alg));
  size_t field = WrappedKeyFieldSize(*alg);
  uint8_t plain[32];
  // Kudu unwraps the field as one read of the file, so the all-zero rule
  // applies to it as to any read: a field of zeros is a key of zeros.
  if (IsAllZero(header.data() + 8, field)) {
    std::memset(plain, 0, sizeof(plain));
  } else {
    RETURN_NOT_OK_PREPEND(EcbCrypt(false, server_key, header.data() + 8, plain, field), path);
  }
  file_key->assign(reinterpret_cast<const char*>(plain), FileKeySize(*alg));
  return Status::OK();
}

bool HasEncryptionMagic(Slice data) {
  return data.size() >= kEncryptionMagicSize &&
         std::memcmp(data.data(), kEncryptionMagic, kEncryptionMagicSize) == 0;
}

Status GenerateFileKey(CipherAlgorithm alg, std::string* key) {
  key->assign(FileKeySize(alg), '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(&(*key)[0]), static_cast<int>(key->size())) != 1) {
    return Status::IOError("RAND_bytes failed", OpenSslError());
  }
  return Status::OK();
}

}  // namespace kudu
