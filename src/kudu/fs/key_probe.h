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

// The wrong-key check of an open (§5 of docs/on-disk-format.md, step 2 of
// "The order of an open"): a wrong server key, or a key for a dir that is
// not encrypted, would make every container fail; it is a usage error,
// said once, before any lock is taken or anything is written. The verdict
// comes from the first raw bytes of metadata files: an encryption header or
// not, and whether the PB container magic decrypts right after it. Without
// a key nothing is checked here: a file that starts with an encryption
// header is then damage like any bad magic (§2), which its replay reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kudu/util/encryption.h"
#include "kudu/util/slice.h"
#include "kudu/util/status.h"

namespace kudu {
namespace fs {

enum class KeyVerdict {
  kOk,                 // a valid encryption header, and the magic decrypts after it
  kPlainFile,          // no encryption header
  kWrongMagic,         // the header unwraps, but the magic does not decrypt after it
  kHeaderNotUnwrapped  // an encryption header the key cannot unwrap (or too short to tell)
};

// How many raw bytes a verdict reads: the encryption header and the magic.
constexpr size_t kKeyProbeBytes = kEncryptionHeaderSize + 8;

// The verdict for a metadata file whose first raw bytes are `head` (up to
// kKeyProbeBytes), read with `key`. `path` names the file in the
// unwrapping's error, which is not reported.
KeyVerdict KeyVerdictOf(const std::string& path, Slice head, const ServerKey& key);

// Reads made by CheckServerKey, for the open's statistics.
struct KeyCheckReads {
  uint64_t syscalls = 0;
  uint64_t bytes = 0;
};

// The check itself: the container metadata files directly in each root's
// data/ (names as the listing takes them, §1), regular and at least the
// minimum valid length plus the encryption header (76 bytes), are read one
// at a time, dirs in order, until one reads with `key` as a valid
// encryption header followed by the magic: a good key costs one small read.
// None does, and at least one was tried: InvalidArgument naming the first
// file tried, why it does not read, and how many were tried. A file that
// cannot be opened or read is no evidence either way: skipped (its replay
// reports it).
Status CheckServerKey(const std::vector<std::string>& data_roots, const ServerKey& key,
                      KeyCheckReads* reads);

}  // namespace fs
}  // namespace kudu
