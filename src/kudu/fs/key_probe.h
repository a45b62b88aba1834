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

// Telling a key problem from damage. A missing key for an encrypted dir, a
// wrong key, or a key for a plain dir would make every container fail (and
// the accelerated strategies fall back and log once each); they are a usage
// error, said once. The verdict comes from the first raw bytes of a
// metadata file: an encryption header or not, and, with a key, whether the
// PB container magic decrypts right after it. Nothing here reads a status
// message.
#pragma once

#include <string>
#include <vector>

#include "kudu/fs/container_info.h"
#include "kudu/fs/replay_stats.h"
#include "kudu/util/encryption.h"
#include "kudu/util/slice.h"
#include "kudu/util/status.h"

namespace kudu {
namespace fs {

enum class KeyVerdict {
  kOk,                    // the key (or its absence) fits the file
  kEncryptedWithoutKey,   // an encryption header, and no key given
  kPlainFileWithKey,      // a key given, and no encryption header
  kWrongKey,              // the container magic does not decrypt after the header
  kUndecided,             // too short, unreadable, or a header the key cannot unwrap
};

// How many raw bytes a verdict reads: the encryption header and the magic.
constexpr size_t kKeyProbeBytes = kEncryptionHeaderSize + 8;

// The verdict for a metadata file whose first raw bytes are `head` (up to
// kKeyProbeBytes), opened with `key` (null: no key). `path` names the file
// in the unwrapping's error, which is not reported.
KeyVerdict KeyVerdictOf(const std::string& path, Slice head, const ServerKey* key);

// Reads the first bytes of the container's metadata file raw (one read,
// counted in `stats`) and returns their verdict; kUndecided for a file the
// verdict cannot be read from (missing, shorter than `min_size`, or
// unreadable: the open reports that itself).
KeyVerdict ProbeContainer(const ContainerInfo& c, const ServerKey* key, uint64_t min_size,
                          ReplayStats* stats);

// The smallest file the probe before the replay looks at: one the reader
// can take a whole container header from.
uint64_t UpFrontProbeMinSize(const ServerKey* key);

// Before any replay: probes containers in path order until one is fine, so
// a good key costs one small read and a wrong one a read per container.
// An error when a file is encrypted and no key was given, or when every
// probed file says the key is wrong, or that the dir is not encrypted.
Status ProbeKey(const ServerKey* key, const std::vector<ContainerInfo>& containers,
                ReplayStats* stats);

// After the replay, for when the probe could not decide (its read failed):
// the same errors, when every replayed container failed at its header for
// that reason. Re-reads only containers whose header failed, and only
// while all have.
Status DetectKeyMisuse(const ServerKey* key, const std::vector<ContainerInfo>& containers);

}  // namespace fs
}  // namespace kudu
