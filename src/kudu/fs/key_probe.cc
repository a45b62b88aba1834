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

#include "kudu/fs/key_probe.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"

namespace kudu {
namespace fs {

namespace {

static_assert(kKeyProbeBytes == kEncryptionHeaderSize + pb_container::kMagicSize,
              "the probe reads the header and the magic after it");

// The one message of each key misuse verdict; `n` files said so, the first
// of them `first`.
Status MisuseError(KeyVerdict v, const ContainerInfo& first, uint64_t n) {
  const std::string in_all = "(in all " + std::to_string(n) + " containers)";
  switch (v) {
    case KeyVerdict::kWrongKey:
      return Status::InvalidArgument(
          first.metadata_path + ": offset 64: bad PB container magic right after the "
          "encryption header " + in_all + ": wrong server key? (--server_key_hex)");
    case KeyVerdict::kPlainFileWithKey:
      return Status::InvalidArgument(
          first.metadata_path + ": offset 0: no encryption header " + in_all +
          ": the data dirs are not encrypted, but a server key was given");
    case KeyVerdict::kEncryptedWithoutKey:
      return Status::NotSupported(first.metadata_path +
                                  ": file is encrypted but no server key was given "
                                  "(--server_key_hex)");
    case KeyVerdict::kOk:
    case KeyVerdict::kUndecided:
      break;
  }
  return Status::OK();
}

// Whether the replay of `c` met corruption at `offset` of its metadata file
// (a damaged data file header is at offset 0 too, and says nothing of the key).
bool CorruptAt(const ContainerInfo& c, uint64_t offset) {
  for (const ContainerProblem& p : c.problems) {
    if (p.kind == ContainerProblem::Kind::kCorruption && p.offset == offset &&
        p.file == c.metadata_path) {
      return true;
    }
  }
  return false;
}

// Whether `v`, probed after the replay, explains how the replay of `c`
// failed: the file layer found no encryption header (offset 0), or the
// reader a whole PB container header whose magic is wrong (right after the
// encryption header).
bool ExplainsFailure(KeyVerdict v, const ContainerInfo& c) {
  switch (v) {
    case KeyVerdict::kPlainFileWithKey:
      return CorruptAt(c, 0);
    case KeyVerdict::kWrongKey:
      return CorruptAt(c, kEncryptionHeaderSize) &&
             c.metadata_size >= kEncryptionHeaderSize + pb_container::kHeaderReadSize;
    default:
      return false;
  }
}

}  // namespace

KeyVerdict KeyVerdictOf(const std::string& path, Slice head, const ServerKey* key) {
  const bool enc_magic = HasEncryptionMagic(head);
  if (key == nullptr) return enc_magic ? KeyVerdict::kEncryptedWithoutKey : KeyVerdict::kOk;
  if (!enc_magic) return KeyVerdict::kPlainFileWithKey;
  if (head.size() < kKeyProbeBytes) return KeyVerdict::kUndecided;
  CipherAlgorithm alg;
  std::string file_key;
  std::unique_ptr<FileCipher> cipher;
  uint8_t magic[pb_container::kMagicSize];
  if (!ParseEncryptionHeader(path, Slice(head.data(), kEncryptionHeaderSize), *key, &alg,
                             &file_key).ok() ||
      !FileCipher::Create(alg, file_key, &cipher).ok() ||
      !cipher->Crypt(kEncryptionHeaderSize, head.data() + kEncryptionHeaderSize, magic,
                     sizeof(magic)).ok()) {
    return KeyVerdict::kUndecided;
  }
  return std::memcmp(magic, pb_container::kMagic, sizeof(magic)) == 0 ? KeyVerdict::kOk
                                                                       : KeyVerdict::kWrongKey;
}

// Up front, a file the reader cannot take a whole container header from
// is left to the open.
uint64_t UpFrontProbeMinSize(const ServerKey* key) {
  return (key != nullptr ? kEncryptionHeaderSize : 0) + pb_container::kHeaderReadSize;
}

KeyVerdict ProbeContainer(const ContainerInfo& c, const ServerKey* key, uint64_t min_size,
                          ReplayStats* stats) {
  if (!c.has_metadata || c.metadata_size < min_size) return KeyVerdict::kUndecided;
  std::unique_ptr<RandomAccessFile> file;
  if (!RandomAccessFile::Open(c.metadata_path, nullptr, &file).ok()) return KeyVerdict::kUndecided;
  uint8_t buf[kKeyProbeBytes];
  const size_t n = std::min<uint64_t>(sizeof(buf), file->size());
  Status s = file->ReadRaw(0, buf, n);
  stats->Add(stats->metadata_read_syscalls, file->stats().read_syscalls);
  stats->Add(stats->metadata_bytes_read, file->stats().bytes_read);
  if (!s.ok()) return KeyVerdict::kUndecided;
  return KeyVerdictOf(c.metadata_path, Slice(buf, n), key);
}

Status ProbeKey(const ServerKey* key, const std::vector<ContainerInfo>& containers,
                ReplayStats* stats) {
  uint64_t probed = 0, plain = 0, wrong = 0;
  const ContainerInfo* first = nullptr;
  for (const ContainerInfo& c : containers) {
    if (!c.has_metadata || c.metadata_size < UpFrontProbeMinSize(key)) continue;
    const KeyVerdict v = ProbeContainer(c, key, UpFrontProbeMinSize(key), stats);
    // A file the probe cannot read, or whose header the key cannot unwrap,
    // is not a key problem: the open reports it.
    if (v == KeyVerdict::kOk || v == KeyVerdict::kUndecided) return Status::OK();
    if (v == KeyVerdict::kEncryptedWithoutKey) return MisuseError(v, c, 1);
    probed++;
    if (first == nullptr) first = &c;
    if (v == KeyVerdict::kPlainFileWithKey) plain++;
    if (v == KeyVerdict::kWrongKey) wrong++;
  }
  if (probed > 0 && wrong == probed) return MisuseError(KeyVerdict::kWrongKey, *first, probed);
  if (probed > 0 && plain == probed) {
    return MisuseError(KeyVerdict::kPlainFileWithKey, *first, probed);
  }
  return Status::OK();
}

Status DetectKeyMisuse(const ServerKey* key, const std::vector<ContainerInfo>& containers) {
  if (key == nullptr) {
    // The reader says "encrypted, no key" by its status code.
    for (const ContainerInfo& c : containers) {
      for (const ContainerProblem& p : c.problems) {
        if (p.status.IsNotSupported()) return p.status;
      }
    }
    return Status::OK();
  }
  uint64_t attempted = 0;
  KeyVerdict common = KeyVerdict::kUndecided;
  const ContainerInfo* first = nullptr;
  // Re-read headers only while every container so far failed at its header
  // for the same key reason; the counts of the open are already taken.
  ReplayStats reprobe_reads;
  for (const ContainerInfo& c : containers) {
    if (c.incomplete || !c.has_metadata) continue;
    if (!CorruptAt(c, 0) && !CorruptAt(c, kEncryptionHeaderSize)) return Status::OK();
    const KeyVerdict v = ProbeContainer(c, key, kEncryptionHeaderSize, &reprobe_reads);
    if (!ExplainsFailure(v, c)) return Status::OK();
    if (first != nullptr && v != common) return Status::OK();
    common = v;
    if (first == nullptr) first = &c;
    attempted++;
  }
  if (attempted == 0) return Status::OK();
  return MisuseError(common, *first, attempted);
}

}  // namespace fs
}  // namespace kudu
