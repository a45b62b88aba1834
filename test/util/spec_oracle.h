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

// An independent model of the on-disk format, for differential tests and
// fuzzers. Every strategy of the project runs the same templated record
// reader (pb_container_reader.h) and the same record semantics
// (container_replay_state.cc), so comparing strategies with each other cannot
// catch a mistake they share. This header re-derives both from
// docs/on-disk-format.md alone, written straight from the text and kept
// deliberately naive:
//
//   - §2 + §5: OracleReplay() parses a whole file held in a string. Each
//     "read" of the reference reader (16-byte header, record prefix, body +
//     checksum, 4 MiB zero-check chunks) is modelled as its own range, and an
//     encrypted range is decrypted unless its ciphertext is all zero (the
//     all-zero rule). Bodies are parsed by protobuf itself, into a fresh
//     message each time.
//   - §4: OracleContainer applies CREATE/DELETE with std::map and 128-bit
//     arithmetic.
//
// It shares only CRC-32C (checked against the format's test vectors in
// crc32c_test), the AES primitives and the generated protobuf classes with the
// code under test. Header-only so the libFuzzer targets can use it without
// linking the gtest-based test library.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kudu/fs/fs.pb.h"
#include "kudu/util/crc32c.h"
#include "kudu/util/encryption.h"
#include "kudu/util/pb_util.pb.h"

namespace kudu {
namespace oracle {

enum class OracleKind { kClean, kPartial, kCorruption, kOpenFailed };

inline const char* OracleKindName(OracleKind k) {
  switch (k) {
    case OracleKind::kClean: return "clean";
    case OracleKind::kPartial: return "partial";
    case OracleKind::kCorruption: return "corruption";
    case OracleKind::kOpenFailed: return "open_failed";
  }
  return "?";
}

struct OracleRecord {
  uint64_t offset;
  BlockRecordPB record;  // parsed by protobuf into a fresh message
};

struct OracleResult {
  OracleKind kind = OracleKind::kClean;
  // Where the replay stopped: the file's end when clean, the record's offset
  // on a partial/corrupt record, the data start (0 or 64) on a header
  // failure. Meaningless for kOpenFailed.
  uint64_t offset = 0;
  bool header_failure = false;  // the file or supplemental header failed
  std::vector<OracleRecord> records;
  std::string why;  // for failure messages only
};

namespace internal {

inline uint32_t Le32(const std::string& s, size_t at) {
  uint32_t v;
  std::memcpy(&v, s.data() + at, 4);
  return v;
}

class Reader {
 public:
  Reader(const std::string& file, uint64_t start, FileCipher* cipher)
      : file_(file), start_(start), cipher_(cipher) {}

  // One read of the reference reader: [off, off + n) as the per-read path
  // returns it.
  std::string Read(uint64_t off, uint64_t n) const {
    std::string out = file_.substr(off, n);
    if (cipher_ == nullptr) return out;
    bool zero = true;
    for (char c : out) {
      if (c != 0) {
        zero = false;
        break;
      }
    }
    if (zero) return out;
    std::string plain(out.size(), '\0');
    if (!cipher_->Crypt(off, reinterpret_cast<const uint8_t*>(out.data()),
                        reinterpret_cast<uint8_t*>(&plain[0]), out.size())
             .ok()) {
      std::abort();
    }
    return plain;
  }

  uint64_t size() const { return file_.size(); }
  uint64_t start() const { return start_; }

 private:
  const std::string& file_;
  const uint64_t start_;
  FileCipher* const cipher_;
};

enum class Step { kOk, kEnd, kIncomplete, kCorrupt };

// One record at `o` (steps 1-6 of §2). On kOk, `body` and `next` are set.
inline Step ReadRecord(const Reader& r, uint32_t version, uint64_t o, std::string* body,
                       uint64_t* next, std::string* why) {
  const uint64_t size = r.size();
  if (o == size) return Step::kEnd;
  const uint64_t prefix = version == 1 ? 4 : 8;
  if (o + prefix > size) {
    *why = "short prefix";
    return version == 1 ? Step::kCorrupt : Step::kIncomplete;
  }
  const std::string h = r.Read(o, prefix);
  const uint32_t len = Le32(h, 0);
  if (version == 2) {
    const uint32_t len_crc = Le32(h, 4);
    if (len == 0 && len_crc == 0) {
      bool rest_zero = true;
      constexpr uint64_t kChunk = 4 << 20;
      for (uint64_t c = o + 8; c < size && rest_zero; c += kChunk) {
        const std::string chunk = r.Read(c, std::min<uint64_t>(kChunk, size - c));
        for (char ch : chunk) {
          if (ch != 0) {
            rest_zero = false;
            break;
          }
        }
      }
      if (rest_zero) {
        *why = "zero tail";
        return Step::kIncomplete;
      }
    }
    if (crc::Crc32c(h.data(), 4) != len_crc) {
      *why = "length crc";
      return Step::kCorrupt;
    }
  }
  // 64-bit: a length near 2^32 is a record running past the end.
  const uint64_t end = o + prefix + uint64_t{len} + 4;
  if (end > size) {
    *why = "body past end";
    if (version == 1) return Step::kCorrupt;
    // Step 5: a valid record at some later offset makes it damage.
    for (uint64_t q = o + 1; q + 12 <= size; q++) {
      const std::string qh = r.Read(q, 8);
      const uint32_t qlen = Le32(qh, 0);
      if (crc::Crc32c(qh.data(), 4) != Le32(qh, 4) || q + 12 + uint64_t{qlen} > size) continue;
      const std::string qb = r.Read(q + 8, uint64_t{qlen} + 4);
      BlockRecordPB parsed;
      if (crc::Crc32c(qb.data(), qlen) != Le32(qb, qlen) ||
          !parsed.ParseFromString(qb.substr(0, qlen))) {
        continue;
      }
      *why = "body past end, valid record at " + std::to_string(q);
      return Step::kCorrupt;
    }
    return Step::kIncomplete;
  }
  const std::string b = r.Read(o + prefix, uint64_t{len} + 4);
  const uint32_t stored = Le32(b, len);
  uint32_t computed;
  if (version == 2) {
    computed = crc::Crc32c(b.data(), len);
  } else {
    computed = crc::Crc32cExtend(crc::Crc32c(h.data(), 4), b.data(), len);
  }
  if (stored != computed) {
    *why = "body crc";
    return Step::kCorrupt;
  }
  body->assign(b.data(), len);
  *next = end;
  return Step::kOk;
}

}  // namespace internal

// Replays the whole metadata file `file` (its raw bytes). With `server_key`
// the file must carry the encryption header.
inline OracleResult OracleReplay(const std::string& file, const ServerKey* server_key) {
  using internal::Reader;
  using internal::Step;
  OracleResult res;
  std::unique_ptr<FileCipher> cipher;
  uint64_t start = 0;
  if (server_key != nullptr && !server_key->empty()) {
    CipherAlgorithm alg;
    std::string file_key;
    if (file.size() < kEncryptionHeaderSize ||
        !ParseEncryptionHeader("oracle", Slice(file.data(), kEncryptionHeaderSize), *server_key,
                               &alg, &file_key)
             .ok() ||
        !FileCipher::Create(alg, file_key, &cipher).ok()) {
      res.kind = OracleKind::kOpenFailed;
      res.header_failure = true;
      res.why = "encryption header";
      return res;
    }
    start = kEncryptionHeaderSize;
  }
  Reader r(file, start, cipher.get());
  auto header_failure = [&](const std::string& why) {
    res.kind = OracleKind::kCorruption;
    res.header_failure = true;
    res.offset = start;
    res.why = why;
    return res;
  };
  if (file.size() < start + 16) return header_failure("too short for the header");
  const std::string h = r.Read(start, 16);
  // An encrypted file read without a key is no exception (§5): its
  // encryption header is where the magic should be.
  if (std::memcmp(h.data(), "kuducntr", 8) != 0) return header_failure("magic");
  const uint32_t version = internal::Le32(h, 8);
  if (version != 1 && version != 2) return header_failure("version");
  if (version == 2 && crc::Crc32c(h.data(), 12) != internal::Le32(h, 12)) {
    return header_failure("header crc");
  }
  uint64_t o = start + (version == 1 ? 12 : 16);
  std::string body, why;
  uint64_t next = 0;
  // §2: a supplemental header problem is at that header's record offset.
  auto sup_failure = [&](const std::string& why) {
    OracleResult failed = header_failure(why);
    failed.offset = o;
    return failed;
  };
  if (internal::ReadRecord(r, version, o, &body, &next, &why) != Step::kOk) {
    return sup_failure("supplemental header: " + why);
  }
  ContainerSupHeaderPB sup;
  if (!sup.ParseFromString(body)) return sup_failure("supplemental header does not parse");
  if (sup.pb_type() != "kudu.BlockRecordPB") return sup_failure("pb_type");
  o = next;
  while (true) {
    Step st = internal::ReadRecord(r, version, o, &body, &next, &why);
    if (st == Step::kEnd) {
      res.kind = OracleKind::kClean;
      res.offset = o;
      return res;
    }
    if (st == Step::kIncomplete || st == Step::kCorrupt) {
      res.kind = st == Step::kIncomplete ? OracleKind::kPartial : OracleKind::kCorruption;
      res.offset = o;
      res.why = why;
      return res;
    }
    OracleRecord rec;
    rec.offset = o;
    if (!rec.record.ParseFromString(body)) {
      res.kind = OracleKind::kCorruption;
      res.offset = o;
      res.why = "body does not parse";
      return res;
    }
    res.records.push_back(std::move(rec));
    o = next;
  }
}

// §4 for one container, naively.
struct OracleContainer {
  OracleContainer(uint64_t data_size, uint64_t data_start, uint64_t block_size)
      : data_size(data_size), block_size(block_size), next_write_offset(AlignUp(data_start)) {}

  uint64_t AlignUp(unsigned __int128 v) const {
    unsigned __int128 r = (v + block_size - 1) / block_size * block_size;
    return r > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(r);
  }

  void Apply(const BlockRecordPB& r, uint64_t record_offset) {
    const uint64_t id = r.block_id().id();
    if (r.op_type() == CREATE) {
      if (!r.has_offset() || !r.has_length() || r.offset() < 0 || r.length() < 0) {
        malformed.push_back(record_offset);
        return;
      }
      const unsigned __int128 end = static_cast<unsigned __int128>(r.offset()) +
                                    static_cast<unsigned __int128>(r.length());
      if (end > UINT64_MAX || (r.length() > 0 && end > data_size) || live.count(id)) {
        malformed.push_back(record_offset);
        return;
      }
      live[id] = {r.offset(), r.length()};
      total_blocks++;
      if (!has_max || id > max_id) max_id = id;
      has_max = true;
      next_write_offset = std::max(next_write_offset, AlignUp(end));
    } else if (r.op_type() == DELETE) {
      if (!live.erase(id)) malformed.push_back(record_offset);
    } else {
      malformed.push_back(record_offset);
    }
  }

  uint64_t LiveBytes() const {
    uint64_t b = 0;
    for (const auto& kv : live) b += static_cast<uint64_t>(kv.second.second);
    return b;
  }

  const uint64_t data_size;
  const uint64_t block_size;
  std::map<uint64_t, std::pair<int64_t, int64_t>> live;  // id -> (offset, length)
  std::vector<uint64_t> malformed;                       // record offsets
  uint64_t total_blocks = 0;
  bool has_max = false;
  uint64_t max_id = 0;
  uint64_t next_write_offset;
};

}  // namespace oracle
}  // namespace kudu
