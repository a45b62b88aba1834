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

// Flags shared by every `kudu fs` action: where the roots are and how to get
// the server key. Defined once here so each action's file can use them
// without defining them twice (gflags refuses a duplicate definition).
#pragma once

#include <gflags/gflags_declare.h>

#include <string>
#include <vector>

#include "kudu/fs/block_manager_open.h"
#include "kudu/util/encryption.h"
#include "kudu/util/status.h"

DECLARE_string(fs_wal_dir);
DECLARE_string(fs_data_dirs);
DECLARE_string(fs_metadata_dir);
DECLARE_string(server_key_hex);
DECLARE_string(server_key_test_provider_hex);

namespace kudu {
namespace tools {

// The roots of a Kudu filesystem, resolved from the directory flags as
// Kudu's FsManager does, every one canonical.
struct FsRoots {
  std::string wal_dir;
  std::string metadata_dir;
  std::vector<std::string> data_dirs;  // flag order, each root once
};

// Resolves --fs_wal_dir, --fs_data_dirs and --fs_metadata_dir:
//  - empty --fs_data_dirs entries are skipped; a root named twice (the same
//    canonical path, however spelled) counts once, at its first place;
//  - without --fs_data_dirs the WAL root is the only data root; without
//    --fs_wal_dir the first data root stands in for it;
//  - without --fs_metadata_dir: the first data root when it has a
//    `tablet-meta` entry of any kind (followed through symlinks), else the
//    WAL root;
//  - every root must be absolute, without leading or trailing white space;
//    it is canonicalized as Kudu does: the real path of its parent, then its
//    own last component.
// InvalidArgument naming the flag or the path otherwise (a usage error).
Status ResolveFsRoots(FsRoots* roots);

// Neither --fs_wal_dir nor --fs_data_dirs names a root: the one required
// flag of every fs action is missing (its help is then due).
bool DirFlagsMissing();

// The WAL root, then the metadata root, each once, unless it is a data
// root: the roots whose `instance` files the open reads besides the data
// roots' (§1), in the order a key is looked for.
std::vector<std::string> NonDataRoots(const FsRoots& roots);

// The WAL and metadata roots exist as directories. The data roots are the
// open's to check; the others only name where a server keeps its WALs and
// tablet metadata, and must be there all the same. InvalidArgument naming
// the flag otherwise.
Status CheckOtherRootsExist(const FsRoots& roots);

// The data roots of ResolveFsRoots.
Status ParseDataDirs(std::vector<std::string>* dirs);

// Reads the server key from --server_key_hex (the key as hex) or
// --server_key_test_provider_hex (Kudu's test key provider: hex of every
// byte XORed with 42). `*have_key` is false when neither is set.
// InvalidArgument for bad hex, a key that is not 16, 24 or 32 bytes, or
// both flags at once.
Status LoadServerKey(ServerKey* key, bool* have_key);

// Everything before an open of the block manager, from the flags: roots,
// key, replay policy and read-ahead. A failure is a usage error; `*missing`
// says it is the missing directory flags (the action's help is then due).
Status PrepareBlockManagerOpen(fs::BlockManagerOpenOptions* opts, ServerKey* key, FsRoots* roots,
                               bool* missing);

// What PrepareBlockManagerOpen checks of the replay, classification and
// key-length flags, for an action that takes them without opening (a bad
// value is a usage error whatever the action).
Status ValidateOpenFlags();

// Prepares and runs the open as every read-only action does: returns -1
// when `result` holds a block map to use; otherwise the error was printed
// (the action's help first for missing directory flags) and the exit status
// is returned. `action` names the action ("list").
int OpenForAction(const std::string& action, FsRoots* roots, fs::OpenResult* result);

}  // namespace tools
}  // namespace kudu
