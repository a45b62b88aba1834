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

// What an open does before it reads any container (§1 "The order of an
// open", steps 2 to 4):
//   2. the instance files: the fs block size of every data dir, the server
//      key when none was given, every verdict of §1 (an on-disk instance
//      problem: the tool exits 1 before any report); then the wrong-key
//      check of §5 (a usage error: exit 2);
//   3. the lock of every block_manager_instance: a read-write open that
//      misses one stops with nothing changed (exit 2), a read-only open
//      warns and goes on;
//   4. the temporary files: listed by a read-only open, deleted by a
//      read-write one (but for the only copies of a container's records).
// Synthetic dirs without instance files get the defaults: no lock, the
// open's own fs block size.
#pragma once

#include <gflags/gflags_declare.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kudu/fs/dir_lock.h"
#include "kudu/fs/instance_files.h"
#include "kudu/fs/key_probe.h"
#include "kudu/fs/temp_files.h"
#include "kudu/util/encryption.h"
#include "kudu/util/status.h"


namespace kudu {
namespace fs {

struct PrepareDataDirsOptions {
  std::vector<std::string> data_roots;
  // The WAL and metadata roots that are not data roots: their `instance`
  // files are checked too.
  std::vector<std::string> other_roots;
  // The key given on the command line; null: the instance file's, if any.
  const ServerKey* given_key = nullptr;
  // Kudu's --encrypt_data_at_rest: a server that must be encrypted, so an
  // open that finds no key at all is a usage error (§5).
  bool encrypt_data_at_rest = false;
  // Every lock needed, and temporary files deleted (--repair, generate).
  bool read_write = false;
};

struct UnlockedDir {
  std::string dir;  // <root>/data
  std::string message;
};

struct PreparedDataDirs {
  enum class Failure {
    kNone,
    kInstance,  // an on-disk instance problem: exit 1, no report
    kKeyUsage,  // a usage-class key problem (a wrong key, or none anywhere but one is
                // required): exit 2
    kLock,      // a read-write open without every lock: exit 2, nothing changed
  };
  Failure failure = Failure::kNone;
  // The failures that are about how the tool was called, not the disk's
  // state (exit 2, nothing changed).
  bool usage_failure() const { return failure == Failure::kKeyUsage || failure == Failure::kLock; }

  // instance.fs_block_sizes: per data root, the block size every alignment
  // rule uses, or 0 without a block_manager_instance (the open's default).
  InstanceFilesState instance;
  // The key of the open: the given one, else the instance file's; null
  // for a server without encryption. Points into this object or at the
  // caller's key.
  const ServerKey* server_key = nullptr;
  // The wrong-key check's reads of metadata files (the open counts them).
  KeyCheckReads key_check_reads;
  // Held while this object lives (the tools keep it until they exit).
  std::vector<std::unique_ptr<InstanceFileLock>> locks;
  std::vector<UnlockedDir> unlocked_dirs;
  TemporaryFiles temp_files;
  // Per data root, the names of the entries of its data/ as the walk for
  // temporary files read them (none where it could not): nothing but this
  // open writes there once the locks are held, and a temporary file it
  // deleted is never a container, so the listing pairs these. (A read-only
  // open of a dir whose lock another process holds sees that dir change
  // under it whichever read it pairs; a file gone by the time it is
  // stat'ed counts as absent, as it always did.)
  std::vector<std::optional<std::vector<std::string>>> data_dir_names;

  PreparedDataDirs() = default;
  // server_key may point into it.
  PreparedDataDirs(const PreparedDataDirs&) = delete;
  PreparedDataDirs& operator=(const PreparedDataDirs&) = delete;
};

// Steps 2 to 4 above. A failure of a step stops there (`failure` says
// which); a failed deletion of a temporary file is not one: it is in
// `temp_files.failure`, for the repair to report, and the open goes on.
Status PrepareDataDirs(const PrepareDataDirsOptions& opts, PreparedDataDirs* prepared);

}  // namespace fs
}  // namespace kudu
