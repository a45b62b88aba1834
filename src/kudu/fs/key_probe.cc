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

#include <cstring>
#include <memory>

#include "kudu/fs/container_listing.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"

namespace kudu {
namespace fs {

static_assert(kKeyProbeBytes == kEncryptionHeaderSize + pb_container::kMagicSize,
              "the probe reads the header and the magic after it");

KeyVerdict KeyVerdictOf(const std::string& path, Slice head, const ServerKey& key) {
  if (!HasEncryptionMagic(head)) return KeyVerdict::kPlainFile;
  if (head.size() < kKeyProbeBytes) return KeyVerdict::kHeaderNotUnwrapped;
  CipherAlgorithm alg;
  std::string file_key;
  std::unique_ptr<FileCipher> cipher;
  uint8_t magic[pb_container::kMagicSize];
  if (!ParseEncryptionHeader(path, Slice(head.data(), kEncryptionHeaderSize), key, &alg,
                             &file_key).ok() ||
      !FileCipher::Create(alg, file_key, &cipher).ok() ||
      !cipher->Crypt(kEncryptionHeaderSize, head.data() + kEncryptionHeaderSize, magic,
                     sizeof(magic)).ok()) {
    return KeyVerdict::kHeaderNotUnwrapped;
  }
  return std::memcmp(magic, pb_container::kMagic, sizeof(magic)) == 0 ? KeyVerdict::kOk
                                                                       : KeyVerdict::kWrongMagic;
}

namespace {

// Reads `path`'s verdict; false when the file is no candidate (not a
// regular file, shorter than a container header after the encryption
// header) or cannot be read.
bool ProbeFile(const std::string& path, const ServerKey& key, KeyCheckReads* reads,
               KeyVerdict* verdict) {
  std::unique_ptr<RandomAccessFile> file;
  if (!RandomAccessFile::Open(path, nullptr, &file).ok()) return false;
  if (file->size() < kEncryptionHeaderSize + pb_container::kMinimumValidLength) return false;
  uint8_t buf[kKeyProbeBytes];
  const Status s = file->ReadRaw(0, buf, sizeof(buf));
  reads->syscalls += file->stats().read_syscalls;
  reads->bytes += file->stats().bytes_read;
  if (!s.ok()) return false;
  *verdict = KeyVerdictOf(path, Slice(buf, sizeof(buf)), key);
  return true;
}

// Why the first file tried does not read with the key, and the count.
Status WrongKeyError(const std::string& first, KeyVerdict why, uint64_t tried,
                     bool all_plain) {
  const std::string count = std::to_string(tried) + " metadata file" + (tried == 1 ? "" : "s");
  if (all_plain) {
    return Status::InvalidArgument(first + ": offset 0: no encryption header (in all " + count +
                                   " tried): the data dirs are not encrypted, but a server key "
                                   "was given");
  }
  std::string reason;
  switch (why) {
    case KeyVerdict::kPlainFile:
      reason = "offset 0: no encryption header";
      break;
    case KeyVerdict::kWrongMagic:
      reason = "offset 64: bad PB container magic right after the encryption header";
      break;
    case KeyVerdict::kHeaderNotUnwrapped:
    case KeyVerdict::kOk:
      reason = "offset 0: an encryption header the key does not unwrap";
      break;
  }
  return Status::InvalidArgument(first + ": " + reason + ", and none of the " + count +
                                 " tried reads with the key: wrong server key?");
}

}  // namespace

Status CheckServerKey(const std::vector<std::string>& data_roots, const ServerKey& key,
                      KeyCheckReads* reads) {
  uint64_t tried = 0;
  bool all_plain = true;
  bool found_good = false;
  std::string first;
  KeyVerdict first_why = KeyVerdict::kOk;
  for (const std::string& root : data_roots) {
    const std::string data = env::JoinPath(root, "data");
    // A dir that cannot be read is the listing's to report.
    env::ForEachName(data, [&](const std::string& name) {
      size_t stem;
      bool is_metadata;
      if (!ContainerFileStem(name, &stem, &is_metadata) || !is_metadata) return true;
      const std::string path = env::JoinPath(data, name);
      KeyVerdict v;
      if (!ProbeFile(path, key, reads, &v)) return true;
      if (v == KeyVerdict::kOk) {
        found_good = true;
        return false;
      }
      if (tried++ == 0) {
        first = path;
        first_why = v;
      }
      if (v != KeyVerdict::kPlainFile) all_plain = false;
      return true;
    });
    if (found_good) return Status::OK();
  }
  if (tried == 0) return Status::OK();
  return WrongKeyError(first, first_why, tried, all_plain);
}

}  // namespace fs
}  // namespace kudu
