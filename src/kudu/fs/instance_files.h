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

// Kudu's instance files (§1 "Instance files"): <root>/instance
// (InstanceMetadataPB: the server's uuid and, with encryption, its key as the
// key provider stores it) and <root>/data/block_manager_instance
// (DirInstanceMetadataPB: the dir's uuid, its type and the fs block size
// every offset in it is aligned to). Each is a PB container of one record,
// never encrypted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kudu/fs/fs.pb.h"
#include "kudu/util/encryption.h"
#include "kudu/util/status.h"

namespace google {
namespace protobuf {
class Message;
}  // namespace protobuf
}  // namespace google

namespace kudu {
namespace fs {

constexpr char kInstanceFileName[] = "instance";
constexpr char kDirInstanceFileName[] = "block_manager_instance";
constexpr char kLogDirType[] = "log";

std::string InstanceFilePath(const std::string& root);
std::string DirInstanceFilePath(const std::string& data_root);

// Writes `pb` as Kudu's WritePBContainerToPath does: "<path>.kudutmp.XXXXXX"
// with the header and supplemental header, the record, fsync, rename over
// `path`, fsync of the dir. A failure leaves `path` as it was.
Status WritePBContainerToPath(const std::string& path, const google::protobuf::Message& pb);
// Reads the first record of the container at `path` into `pb` (every
// required field set). NotFound when `path` does not exist.
Status ReadPBContainerFromPath(const std::string& path, google::protobuf::Message* pb);

// What `kudu fs format` lays out (§1).
struct FormatOptions {
  std::vector<std::string> data_roots;
  std::string wal_root;       // empty: the first data root
  std::string metadata_root;  // empty: the WAL root
  // Stored in `instance` as the default key provider wraps it; null: a
  // server without encryption.
  const ServerKey* server_key = nullptr;
};
// Writes `instance` in every root, wals/, tablet-meta/, consensus-meta/ and
// each data root's data/block_manager_instance. The roots and their data/
// dirs are created first when missing; two roots that are one directory
// under two names are InvalidArgument. An instance file that exists already is
// not replaced: AlreadyPresent, as Kudu's format refuses roots that exist.
// On any failure the files written are removed again (directories stay).
Status FormatRoots(const FormatOptions& opts);

// What the instance files of a server say, once checked (§1 "What the open
// does with them", §5 "The server key").
struct InstanceFilesState {
  // Either every data root has a block_manager_instance or none has.
  bool has_dir_instances = false;
  // Per data root: its recorded block size; 0 without the file.
  std::vector<uint64_t> fs_block_sizes;
  // The key of the first `instance` found (data roots, WAL root, metadata
  // root), when `load_key` and it carries one.
  bool has_key = false;
  ServerKey key;
  std::string key_file;
};
// Reads and checks every instance file. Any failure is an on-disk instance
// problem (the tool exits 1 before any report), its message naming the file.
// `other_roots`: the WAL and metadata roots that are not data roots.
Status LoadInstanceFiles(const std::vector<std::string>& data_roots,
                         const std::vector<std::string>& other_roots, bool load_key,
                         InstanceFilesState* state);

// The key a stored instance carries (tenants first, §5), as the default key
// provider unwraps it. `*has_key` false when it carries none (an empty
// field carries none).
Status ServerKeyFromInstance(const std::string& path, const InstanceMetadataPB& instance,
                             bool* has_key, ServerKey* key);

// One stored key field (`what` names it in errors), as the default key
// provider unwraps it: hex of the key's bytes XORed with 42.
Status ServerKeyFromField(const std::string& path, const std::string& what,
                          const std::string& field, bool* has_key, ServerKey* key);

}  // namespace fs
}  // namespace kudu
