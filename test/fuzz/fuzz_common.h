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

// Shared by the libFuzzer targets and the seed corpus generator: the fixed
// keys of the encrypted targets, the input layouts, a scratch file reused by
// every run, and how a target reports a divergence.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gflags/gflags.h>
#include <glog/logging.h>

#include "kudu/util/encryption.h"
#include "kudu/util/file.h"
#include "kudu/util/status.h"

namespace kudu {
namespace fuzz {

[[noreturn]] inline void Die(const std::string& what) {
  std::fprintf(stderr, "\n*** DIVERGENCE: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// Quiet logs (fallbacks log a warning per container) and no log files.
inline void QuietLogging() {
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = 3;
}

// One file rewritten for every input: a memfd (no disk, no cleanup), opened
// by the code under test through /proc/self/fd/N like any path. Falls back
// to a file in /dev/shm or /tmp.
class ScratchFile {
 public:
  ScratchFile() {
    fd_ = static_cast<int>(::memfd_create("kudu-fuzz.metadata", MFD_CLOEXEC));
    if (fd_ >= 0) {
      path_ = "/proc/self/fd/" + std::to_string(fd_);
      return;
    }
    for (const char* dir : {"/dev/shm", "/tmp"}) {
      path_ = std::string(dir) + "/kudu-fuzz-" + std::to_string(::getpid()) + ".metadata";
      fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (fd_ >= 0) {
        unlink_ = true;
        return;
      }
    }
    Die("cannot create a scratch file");
  }
  ~ScratchFile() {
    ::close(fd_);
    if (unlink_) ::unlink(path_.c_str());
  }
  void Write(const std::string& bytes) {
    if (::ftruncate(fd_, 0) != 0) Die("ftruncate");
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t w = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, done);
      if (w <= 0) Die("pwrite");
      done += static_cast<size_t>(w);
    }
  }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
  bool unlink_ = false;
};

// ---- the encrypted target's fixed keys ----

// Server keys of 16, 24 and 32 bytes, each with the matching algorithm, and
// fixed file keys, so a seed's ciphertext stays valid for the target.
inline ServerKey FuzzServerKey(int alg_index) {
  std::string k;
  const size_t n = alg_index == 0 ? 16 : alg_index == 1 ? 24 : 32;
  for (size_t i = 0; i < n; i++) k.push_back(static_cast<char>(0x5a ^ (i * 7)));
  return ServerKey::FromBytes(k);
}

inline CipherAlgorithm FuzzAlgorithm(int alg_index) {
  return alg_index == 0 ? CipherAlgorithm::kAes128Ctr
                        : alg_index == 1 ? CipherAlgorithm::kAes192Ctr : CipherAlgorithm::kAes256Ctr;
}

inline std::string FuzzFileKey(int alg_index) {
  std::string k;
  for (size_t i = 0; i < FileKeySize(FuzzAlgorithm(alg_index)); i++) {
    k.push_back(static_cast<char>(0xc3 + i * 13));
  }
  return k;
}

struct FuzzCipher {
  ServerKey server_key;
  std::string header;  // the 64-byte encryption header
  std::unique_ptr<FileCipher> cipher;
};

inline const FuzzCipher& GetFuzzCipher(int alg_index) {
  static FuzzCipher* ciphers = [] {
    FuzzCipher* c = new FuzzCipher[3];
    for (int i = 0; i < 3; i++) {
      c[i].server_key = FuzzServerKey(i);
      if (!BuildEncryptionHeader(FuzzAlgorithm(i), FuzzFileKey(i), c[i].server_key, &c[i].header)
               .ok() ||
          !FileCipher::Create(FuzzAlgorithm(i), FuzzFileKey(i), &c[i].cipher).ok()) {
        Die("cannot set up the fuzz cipher");
      }
    }
    return c;
  }();
  return ciphers[alg_index];
}

// Encrypts `plain` as the payload that follows the 64-byte header.
inline std::string EncryptPayload(int alg_index, const std::string& plain) {
  std::string out(plain.size(), '\0');
  if (!plain.empty() &&
      !GetFuzzCipher(alg_index)
           .cipher->Crypt(kEncryptionHeaderSize, reinterpret_cast<const uint8_t*>(plain.data()),
                          reinterpret_cast<uint8_t*>(&out[0]), plain.size())
           .ok()) {
    Die("encrypt");
  }
  return out;
}

// ---- encrypted_metadata_replay_fuzz input ----
//
//   byte 0: bits 0-1 algorithm / server key size (0: 128, 1: 192, 2 and 3: 256)
//           bit 2    mode: 0 = the rest is the ciphertext payload
//                          1 = zero ranges, then plaintext to encrypt
//   mode 0: payload
//   mode 1: byte 1 = n (mod 8) zero ranges; n x (u16 start, u16 length; length
//           0 = to the end) over the payload's ciphertext; then the plaintext.
//
// Returns the whole file (header + payload) and the algorithm index.
inline std::string EncryptedFileFromInput(const uint8_t* data, size_t size, int* alg_index) {
  *alg_index = 0;
  if (size == 0) return GetFuzzCipher(0).header;
  const uint8_t flags = data[0];
  *alg_index = (flags & 3) == 3 ? 2 : (flags & 3);
  const FuzzCipher& fc = GetFuzzCipher(*alg_index);
  if ((flags & 4) == 0) {
    return fc.header + std::string(reinterpret_cast<const char*>(data + 1), size - 1);
  }
  size_t pos = 1;
  const size_t n = pos < size ? data[pos++] % 8 : 0;
  struct Range {
    size_t start, len;
  };
  std::vector<Range> ranges;
  for (size_t i = 0; i < n && pos + 4 <= size; i++, pos += 4) {
    ranges.push_back({static_cast<size_t>(data[pos] | (data[pos + 1] << 8)),
                      static_cast<size_t>(data[pos + 2] | (data[pos + 3] << 8))});
  }
  std::string payload =
      EncryptPayload(*alg_index, std::string(reinterpret_cast<const char*>(data + pos), size - pos));
  for (const Range& r : ranges) {
    if (r.start >= payload.size()) continue;
    const size_t end = r.len == 0 ? payload.size() : std::min(payload.size(), r.start + r.len);
    std::memset(&payload[r.start], 0, end - r.start);
  }
  return fc.header + payload;
}

// ---- data_dir_open_fuzz input ----
//
//   byte 0: bit 0 encrypted (every file, with the 128-bit fuzz key; metadata
//           chunks are plaintext the harness encrypts), bit 1 two data dirs
//   then up to 4 containers, each:
//     byte  data file: 0 missing, 1 empty (or header only), 2..255: that many
//           KiB (sparse; only its size matters)
//     byte  bit 0: data dir (when two), bit 1: no metadata file,
//           bits 2-3: container id slot (ids can repeat across dirs)
//     u16   metadata length n (little-endian, clipped to what is left)
//     n     metadata bytes (plaintext when encrypted)
struct FuzzContainer {
  int dir = 0;
  int id_slot = 0;
  bool has_metadata = true;
  int data_code = 0;  // 0 missing, 1 empty, else KiB
  std::string metadata;
};

struct FuzzDataDir {
  bool encrypted = false;
  bool two_dirs = false;
  std::vector<FuzzContainer> containers;
};

inline FuzzDataDir ParseDataDirInput(const uint8_t* data, size_t size) {
  FuzzDataDir d;
  if (size == 0) return d;
  d.encrypted = data[0] & 1;
  d.two_dirs = data[0] & 2;
  size_t pos = 1;
  while (d.containers.size() < 4 && pos + 4 <= size) {
    FuzzContainer c;
    c.data_code = data[pos];
    c.dir = d.two_dirs ? (data[pos + 1] & 1) : 0;
    c.has_metadata = (data[pos + 1] & 2) == 0;
    c.id_slot = (data[pos + 1] >> 2) & 3;
    size_t n = data[pos + 2] | (data[pos + 3] << 8);
    pos += 4;
    n = std::min(n, size - pos);
    c.metadata.assign(reinterpret_cast<const char*>(data + pos), n);
    pos += n;
    d.containers.push_back(std::move(c));
  }
  return d;
}

inline std::string SerializeDataDirInput(const FuzzDataDir& d) {
  std::string out;
  out.push_back(static_cast<char>((d.encrypted ? 1 : 0) | (d.two_dirs ? 2 : 0)));
  for (const FuzzContainer& c : d.containers) {
    out.push_back(static_cast<char>(c.data_code));
    out.push_back(static_cast<char>(c.dir | (c.has_metadata ? 0 : 2) | (c.id_slot << 2)));
    const size_t n = std::min<size_t>(c.metadata.size(), 0xffff);
    out.push_back(static_cast<char>(n & 0xff));
    out.push_back(static_cast<char>(n >> 8));
    out.append(c.metadata, 0, n);
  }
  return out;
}

inline std::string FuzzContainerId(int slot) {
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%032x", 0xabc0 + slot);
  return buf;
}

}  // namespace fuzz
}  // namespace kudu
