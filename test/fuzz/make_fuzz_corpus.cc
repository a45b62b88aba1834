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

// Writes the seed corpus of the fuzz targets:
//   make_fuzz_corpus <dir>   → <dir>/<target>/<name> for each target
// Seeds are valid files, truncated and broken ones, files with hostile
// lengths, malformed records (§4) and non-canonical record encodings; for
// the encrypted target the same files under the target's fixed keys, as
// ciphertext and as plaintext with zeroed ciphertext ranges; for the open
// target small data dirs built from them. Deterministic: the same binary
// writes the same bytes, so the committed corpus can be regenerated
// (scripts/make_fuzz_corpus.sh).
#include <sys/stat.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/fuzz_common.h"
#include "kudu/fs/fs.pb.h"
#include "kudu/util/crc32c.h"
#include "kudu/util/env.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_container_writer.h"

namespace kudu {
namespace fuzz {
namespace {

namespace pbc = pb_container;

BlockRecordPB Create(uint64_t id, int64_t off, int64_t len, uint64_t ts = 1000) {
  BlockRecordPB r;
  r.mutable_block_id()->set_id(id);
  r.set_op_type(CREATE);
  r.set_timestamp_us(ts);
  r.set_offset(off);
  r.set_length(len);
  return r;
}

BlockRecordPB Delete(uint64_t id, uint64_t ts = 2000) {
  BlockRecordPB r;
  r.mutable_block_id()->set_id(id);
  r.set_op_type(DELETE);
  r.set_timestamp_us(ts);
  return r;
}

// A plausible sequence: CREATEs at aligned offsets, every third a DELETE.
std::vector<std::string> Sequence(int n, uint64_t first_id = 1) {
  std::vector<std::string> out;
  std::vector<uint64_t> live;
  uint64_t id = first_id, ts = 1000;
  int64_t off = 0;
  size_t cursor = 0;
  for (int i = 0; i < n; i++) {
    if (i % 3 == 2 && cursor < live.size()) {
      out.push_back(Delete(live[cursor++], ts++).SerializeAsString());
      continue;
    }
    const int64_t len = 100 + (i * 37) % 5000;
    out.push_back(Create(id, off, len, ts++).SerializeAsString());
    live.push_back(id++);
    off += (len + 4095) / 4096 * 4096;
  }
  return out;
}

std::string Headers(uint32_t version) {
  std::string f;
  pbc::AppendFileHeader(version, &f);
  pbc::AppendRecord(version, PbContainerWriter::SupplementalHeader(BlockRecordPB::descriptor()), &f);
  return f;
}

std::string File(uint32_t version, const std::vector<std::string>& bodies) {
  std::string f = Headers(version);
  for (const auto& b : bodies) pbc::AppendRecord(version, b, &f);
  return f;
}

// A v2 record prefix whose length is `len` with a valid length checksum,
// followed by a few body bytes.
std::string HostileRecord(uint32_t version, uint32_t len) {
  std::string r;
  pbc::PutFixed32(&r, len);
  if (version == 2) {
    uint8_t b[4];
    pbc::EncodeFixed32(b, len);
    pbc::PutFixed32(&r, crc::Crc32c(b, 4));
  }
  r.append("\x0a\x09\x09" "abcdefgh\x10\x01", 13);
  return r;
}

using Seeds = std::vector<std::pair<std::string, std::string>>;  // name, plaintext file

Seeds PlainSeeds() {
  Seeds s;
  for (uint32_t v : {1u, 2u}) {
    const std::string p = "v" + std::to_string(v) + "_";
    s.push_back({p + "empty", File(v, {})});
    s.push_back({p + "one", File(v, Sequence(1))});
    s.push_back({p + "twenty", File(v, Sequence(20))});
    std::string full = File(v, Sequence(20));
    const size_t h = Headers(v).size();
    s.push_back({p + "truncated_prefix", full.substr(0, full.size() - 40)});
    s.push_back({p + "truncated_body", full.substr(0, full.size() - 5)});
    s.push_back({p + "header_only", full.substr(0, pbc::HeaderSize(v))});
    s.push_back({p + "sup_truncated", full.substr(0, h - 3)});
    std::string flipped = full;
    flipped[h + 60] ^= 0x40;
    s.push_back({p + "flipped", flipped});
    s.push_back({p + "zero_tail", File(v, Sequence(5)) + std::string(16, '\0')});
    s.push_back({p + "short_zero_tail", File(v, Sequence(5)) + std::string(3, '\0')});
    std::string zero_mid = File(v, Sequence(6));
    for (size_t i = zero_mid.size() - 60; i < zero_mid.size() - 40; i++) zero_mid[i] = 0;
    s.push_back({p + "zero_middle", zero_mid});
    for (uint32_t len : {0xFFFFFFF0u, 0xFFFFFFFCu, 0xFFFFFFFFu, 0x7FFFFFFFu}) {
      char name[32];
      std::snprintf(name, sizeof(name), "hostile_len_%08x", len);
      s.push_back({p + name, File(v, Sequence(2)) + HostileRecord(v, len)});
    }
    // §4: malformed records of every kind, and a valid sequence around them.
    BlockRecordPB unknown_op = Create(9, 0, 10);
    unknown_op.set_op_type(UNKNOWN);
    BlockRecordPB no_length = Create(10, 0, 10);
    no_length.clear_length();
    s.push_back({p + "malformed",
                 File(v, {Create(1, 0, 100).SerializeAsString(),
                          Create(1, 4096, 100).SerializeAsString(),  // already live
                          Delete(77).SerializeAsString(),            // not live
                          unknown_op.SerializeAsString(), no_length.SerializeAsString(),
                          Create(11, -1, 5).SerializeAsString(),
                          Create(12, INT64_MAX, INT64_MAX).SerializeAsString(),  // overflow
                          Create(13, (1 << 20) - 10, 100).SerializeAsString(),   // past the data
                          Create(14, 8192, 0).SerializeAsString(), Delete(1).SerializeAsString(),
                          Create(1, 12288, 7).SerializeAsString()})});
    // Encodings the fast parser leaves to protobuf: duplicate fields, an
    // unknown field, op_type 7, fields out of order, a block_id sub-message
    // with an extra field followed by canonical records.
    const std::string canon = Create(5, 8192, 300, 42).SerializeAsString();
    s.push_back({p + "noncanonical",
                 File(v, {canon + canon, canon + std::string("\x30\x01", 2),
                          canon + std::string("\x10\x07", 2),
                          std::string("\x18\x01\x10\x01\x28\x05\x20\x00\x0a\x09\x09" "ABCDEFGH", 19),
                          std::string("\x0a\x0b\x09" "abcdefgh\x10\x05\x10\x01\x18\x01\x20\x00\x28\x01", 21),
                          Create(6, 0, 1).SerializeAsString()})});
    // Wrong record type in the supplemental header.
    std::string wrong_type;
    pbc::AppendFileHeader(v, &wrong_type);
    pbc::AppendRecord(v, PbContainerWriter::SupplementalHeader(BlockIdPB::descriptor()), &wrong_type);
    s.push_back({p + "wrong_pb_type", wrong_type});
  }
  std::string bad_version = File(2, Sequence(2));
  bad_version[8] = 3;
  s.push_back({"v3_header", bad_version});
  s.push_back({"encryption_magic", std::string("kuduenc\0", 8) + std::string(56, '\0') + File(2, {})});
  s.push_back({"tiny", "kuducntr"});
  return s;
}

void WriteSeed(const std::string& dir, const std::string& name, const std::string& bytes,
               size_t* total) {
  const std::string path = dir + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) Die("write " + path);
  std::fclose(f);
  *total += bytes.size();
}

}  // namespace
}  // namespace fuzz
}  // namespace kudu

int main(int argc, char** argv) {
  using namespace kudu;
  using namespace kudu::fuzz;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  const std::string root = argv[1];
  const Seeds plain = PlainSeeds();
  size_t total = 0, count = 0;

  std::string dir = root + "/metadata_replay_fuzz";
  if (!env::CreateDirs(dir).ok()) Die("mkdir " + dir);
  for (const auto& s : plain) {
    WriteSeed(dir, s.first, s.second, &total);
    count++;
  }

  dir = root + "/encrypted_metadata_replay_fuzz";
  if (!env::CreateDirs(dir).ok()) Die("mkdir " + dir);
  for (const auto& s : plain) {
    if (s.first == "encryption_magic") continue;
    // Mode 0 (the ciphertext itself) under each key size for the main
    // files, 128-bit for the rest.
    const bool main = s.first.find("twenty") != std::string::npos ||
                      s.first.find("zero_tail") != std::string::npos;
    for (int alg = 0; alg < (main ? 3 : 1); alg++) {
      std::string in(1, static_cast<char>(alg));
      std::string payload = EncryptPayload(alg, s.second);
      // A zero-filled plaintext tail is zero ciphertext on disk.
      if (s.first.find("zero_tail") != std::string::npos) {
        const size_t n = s.first.find("short") != std::string::npos ? 3 : 16;
        for (size_t i = payload.size() - n; i < payload.size(); i++) payload[i] = 0;
      }
      WriteSeed(dir, s.first + "_alg" + std::to_string(alg), in + payload, &total);
      count++;
    }
  }
  // Mode 1: plaintext with zeroed ciphertext ranges: a zero tail from a
  // record start, one from inside a record, a zero record in the middle.
  {
    const std::string f = File(2, Sequence(8));
    const std::string v1 = File(1, Sequence(8));
    struct Z {
      const char* name;
      const std::string* file;
      std::vector<std::pair<uint16_t, uint16_t>> ranges;
    };
    const uint16_t last = static_cast<uint16_t>(f.size() - 40);
    std::vector<Z> zs = {
        {"zero_tail_from_record", &f, {{static_cast<uint16_t>(f.size() - 38), 0}}},
        {"zero_tail_inside_record", &f, {{last, 0}}},
        {"zero_middle", &f, {{static_cast<uint16_t>(f.size() - 120), 20}}},
        {"two_ranges", &f, {{static_cast<uint16_t>(f.size() - 120), 4}, {last, 0}}},
        {"v1_zero_tail", &v1, {{static_cast<uint16_t>(v1.size() - 30), 0}}},
        {"zero_header", &f, {{0, 16}}},
    };
    for (const Z& z : zs) {
      for (int alg = 0; alg < 3; alg++) {
        std::string in(1, static_cast<char>(4 | alg));
        in.push_back(static_cast<char>(z.ranges.size()));
        for (const auto& r : z.ranges) {
          in.push_back(static_cast<char>(r.first & 0xff));
          in.push_back(static_cast<char>(r.first >> 8));
          in.push_back(static_cast<char>(r.second & 0xff));
          in.push_back(static_cast<char>(r.second >> 8));
        }
        in += *z.file;
        WriteSeed(dir, std::string("zeroed_") + z.name + "_alg" + std::to_string(alg), in, &total);
        count++;
      }
    }
  }

  dir = root + "/data_dir_open_fuzz";
  if (!env::CreateDirs(dir).ok()) Die("mkdir " + dir);
  {
    auto container = [](int dir, int slot, int data_code, std::string meta, bool has_meta = true) {
      FuzzContainer c;
      c.dir = dir;
      c.id_slot = slot;
      c.data_code = data_code;
      c.metadata = std::move(meta);
      c.has_metadata = has_meta;
      return c;
    };
    const std::string good_a = File(2, Sequence(6, 1));
    const std::string good_b = File(2, Sequence(6, 100));
    const std::string good_v1 = File(1, Sequence(4, 200));
    std::vector<std::pair<std::string, FuzzDataDir>> dirs;
    for (int enc = 0; enc < 2; enc++) {
      const std::string p = enc ? "enc_" : "plain_";
      FuzzDataDir d;
      d.encrypted = enc;
      d.two_dirs = true;
      d.containers = {container(0, 0, 40, good_a), container(1, 1, 40, good_b),
                      container(1, 2, 20, good_v1)};
      dirs.push_back({p + "healthy", d});
      FuzzDataDir partial = d;
      partial.containers[0].metadata += std::string(10, '\0');
      partial.containers[1].metadata.resize(partial.containers[1].metadata.size() - 7);
      dirs.push_back({p + "partial_records", partial});
      FuzzDataDir dup = d;
      dup.containers[1].metadata = good_a;  // same ids in two containers
      dirs.push_back({p + "duplicate_ids", dup});
      FuzzDataDir corrupt = d;
      corrupt.containers[2].metadata[corrupt.containers[2].metadata.size() - 20] ^= 1;
      dirs.push_back({p + "corruption", corrupt});
      FuzzDataDir incomplete = d;
      incomplete.containers.push_back(container(0, 3, 1, "kuducntr"));
      incomplete.containers.push_back(container(1, 3, 0, File(2, {Create(500, 0, 10).SerializeAsString(),
                                                                 Delete(500).SerializeAsString()})));
      dirs.push_back({p + "incomplete", incomplete});
      FuzzDataDir missing = d;
      missing.containers[1].data_code = 0;       // metadata with live blocks, no data
      missing.containers[2].has_metadata = false;  // data without metadata
      dirs.push_back({p + "missing_files", missing});
      FuzzDataDir small_data = d;
      small_data.containers[0].data_code = 2;  // CREATEs past the end of the data
      dirs.push_back({p + "small_data", small_data});
    }
    for (const auto& d : dirs) {
      WriteSeed(dir, d.first, SerializeDataDirInput(d.second), &total);
      count++;
    }
  }
  std::printf("wrote %zu seeds, %zu bytes, under %s\n", count, total, root.c_str());
  return 0;
}
