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

#include "kudu/tools/tool_flags.h"

#include <gflags/gflags.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <utility>

#include "kudu/fs/container_classification.h"
#include "kudu/tools/tool_action.h"

DEFINE_string(fs_wal_dir, "",
              "Directory with write-ahead logs (Kudu's WAL root). Without --fs_data_dirs it "
              "is also the only data root; may be left out when --fs_data_dirs is given, "
              "and the first data root then stands in for it");
DEFINE_string(fs_data_dirs, "",
              "Comma-separated list of data directory roots; containers live in "
              "<root>/data/. Without it the WAL root (--fs_wal_dir) is the only data root");
DEFINE_string(fs_metadata_dir, "",
              "Directory with tablet and consensus metadata. Without it: the first data root "
              "if it has a tablet-meta entry, else the WAL root");
DEFINE_string(server_key_hex, "",
              "Server key for encrypted data dirs, as hex (16, 24 or 32 bytes)");
DEFINE_string(server_key_test_provider_hex, "",
              "Server key in Kudu's test key provider form: hex of every key byte XORed with 42");

namespace kudu {
namespace tools {
namespace {

// Kudu's rules for one root (FsManager's path checks), then its
// canonicalization: realpath of the parent, then the last component, so a
// root that does not exist yet still has one name.
Status CanonicalRoot(const std::string& flag, const std::string& path, std::string* out) {
  if (!path.empty() && (std::isspace(static_cast<unsigned char>(path.front())) ||
                        std::isspace(static_cast<unsigned char>(path.back())))) {
    return Status::InvalidArgument("--" + flag + ": Path '" + path +
                                   "' contains illegal whitespace");
  }
  if (path.empty() || path[0] != '/') {
    return Status::InvalidArgument("--" + flag + ": Relative path '" + path + "' provided");
  }
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  if (p == "/") {
    *out = p;
    return Status::OK();
  }
  const size_t slash = p.rfind('/');
  const std::string parent = slash == 0 ? "/" : p.substr(0, slash);
  const std::string base = p.substr(slash + 1);
  char real[PATH_MAX];
  if (::realpath(parent.c_str(), real) == nullptr) {
    return Status::InvalidArgument("--" + flag + ": " + path + ": cannot resolve " + parent +
                                   ": " + std::strerror(errno));
  }
  const std::string r = real;
  if (base == "." || base == "..") {
    // Kudu's parent-then-basename rule would keep the dots; resolve them so
    // the same dir is never two roots.
    char whole[PATH_MAX];
    if (::realpath(p.c_str(), whole) == nullptr) {
      return Status::InvalidArgument("--" + flag + ": " + path + ": " + std::strerror(errno));
    }
    *out = whole;
    return Status::OK();
  }
  *out = (r == "/" ? "" : r) + "/" + base;
  return Status::OK();
}

// The open's options that come from flags beyond the roots and the key.
Status OpenFlagsToOptions(fs::BlockManagerOpenOptions* opts) {
  RETURN_NOT_OK(fs::ReplayPolicyOptions::FromFlags(&opts->policy));
  RETURN_NOT_OK(fs::ReadaheadOptions::FromFlags(&opts->readahead));
  RETURN_NOT_OK(fs::ValidateClassificationFlags());
  return Status::OK();
}

}  // namespace

Status ResolveFsRoots(FsRoots* roots) {
  *roots = FsRoots();
  const std::string& flag = FLAGS_fs_data_dirs;
  size_t start = 0;
  while (start <= flag.size()) {
    size_t comma = flag.find(',', start);
    if (comma == std::string::npos) comma = flag.size();
    const std::string entry = flag.substr(start, comma - start);
    start = comma + 1;
    if (entry.empty()) continue;
    std::string root;
    RETURN_NOT_OK(CanonicalRoot("fs_data_dirs", entry, &root));
    if (std::find(roots->data_dirs.begin(), roots->data_dirs.end(), root) ==
        roots->data_dirs.end()) {
      roots->data_dirs.push_back(root);
    }
  }
  // The same directory under two names (a symlinked root): its containers
  // would be opened twice, each id a duplicate of itself. Kudu refuses it
  // (its instance files then hold duplicate uuids).
  std::vector<std::pair<std::pair<dev_t, ino_t>, const std::string*>> seen;
  for (const std::string& root : roots->data_dirs) {
    struct stat st;
    if (::stat(root.c_str(), &st) != 0) continue;  // a root yet to be made
    const auto inode = std::make_pair(st.st_dev, st.st_ino);
    for (const auto& s : seen) {
      if (s.first == inode) {
        return Status::InvalidArgument("--fs_data_dirs: " + *s.second + " and " + root +
                                       " are the same directory");
      }
    }
    seen.emplace_back(inode, &root);
  }
  if (!FLAGS_fs_wal_dir.empty()) {
    RETURN_NOT_OK(CanonicalRoot("fs_wal_dir", FLAGS_fs_wal_dir, &roots->wal_dir));
    if (roots->data_dirs.empty()) roots->data_dirs.push_back(roots->wal_dir);
  } else if (!roots->data_dirs.empty()) {
    roots->wal_dir = roots->data_dirs[0];
  } else {
    return Status::InvalidArgument("--fs_wal_dir or --fs_data_dirs is required");
  }
  if (!FLAGS_fs_metadata_dir.empty()) {
    RETURN_NOT_OK(CanonicalRoot("fs_metadata_dir", FLAGS_fs_metadata_dir, &roots->metadata_dir));
  } else {
    struct stat st;
    const std::string tablet_meta = roots->data_dirs[0] + "/tablet-meta";
    roots->metadata_dir = ::stat(tablet_meta.c_str(), &st) == 0 ? roots->data_dirs[0]
                                                                : roots->wal_dir;
  }
  return Status::OK();
}

bool DirFlagsMissing() {
  return FLAGS_fs_wal_dir.empty() && FLAGS_fs_data_dirs.find_first_not_of(',') == std::string::npos;
}

std::vector<std::string> NonDataRoots(const FsRoots& roots) {
  std::vector<std::string> out;
  for (const std::string& root : {roots.wal_dir, roots.metadata_dir}) {
    if (std::find(roots.data_dirs.begin(), roots.data_dirs.end(), root) == roots.data_dirs.end() &&
        std::find(out.begin(), out.end(), root) == out.end()) {
      out.push_back(root);
    }
  }
  return out;
}

Status CheckOtherRootsExist(const FsRoots& roots) {
  // Named by the flag that gave them: without --fs_wal_dir the first data
  // root stands in for the WAL root, and the metadata root is one of those.
  const char* wal_flag = FLAGS_fs_wal_dir.empty() ? "fs_data_dirs" : "fs_wal_dir";
  const char* metadata_flag = !FLAGS_fs_metadata_dir.empty()    ? "fs_metadata_dir"
                              : roots.metadata_dir == roots.wal_dir ? wal_flag
                                                                    : "fs_data_dirs";
  for (const auto& root : {std::make_pair(wal_flag, roots.wal_dir),
                           std::make_pair(metadata_flag, roots.metadata_dir)}) {
    struct stat st;
    if (::stat(root.second.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return Status::InvalidArgument("--" + std::string(root.first) + ": " + root.second +
                                     " is not a directory that exists");
    }
  }
  return Status::OK();
}

Status ParseDataDirs(std::vector<std::string>* dirs) {
  FsRoots roots;
  RETURN_NOT_OK(ResolveFsRoots(&roots));
  *dirs = roots.data_dirs;
  return Status::OK();
}

Status LoadServerKey(ServerKey* key, bool* have_key) {
  *have_key = false;
  const bool direct = !FLAGS_server_key_hex.empty();
  const bool provider = !FLAGS_server_key_test_provider_hex.empty();
  if (direct && provider) {
    return Status::InvalidArgument(
        "give the server key once: --server_key_hex or --server_key_test_provider_hex, not both");
  }
  if (direct) {
    RETURN_NOT_OK_PREPEND(ServerKey::FromHex(FLAGS_server_key_hex, key), "--server_key_hex");
  } else if (provider) {
    RETURN_NOT_OK_PREPEND(ServerKey::FromTestKeyProviderHex(FLAGS_server_key_test_provider_hex, key),
                          "--server_key_test_provider_hex");
  } else {
    return Status::OK();
  }
  *have_key = true;
  return Status::OK();
}

Status PrepareBlockManagerOpen(fs::BlockManagerOpenOptions* opts, ServerKey* key, FsRoots* roots,
                               bool* missing) {
  *missing = DirFlagsMissing();
  RETURN_NOT_OK(ResolveFsRoots(roots));
  RETURN_NOT_OK(CheckOtherRootsExist(*roots));
  opts->data_dirs = roots->data_dirs;
  opts->other_roots = NonDataRoots(*roots);
  bool have_key = false;
  RETURN_NOT_OK(LoadServerKey(key, &have_key));
  opts->server_key = have_key ? key : nullptr;
  return OpenFlagsToOptions(opts);
}

Status ValidateOpenFlags() {
  fs::BlockManagerOpenOptions unused;
  return OpenFlagsToOptions(&unused);
}

int OpenForAction(const std::string& action, FsRoots* roots, fs::OpenResult* result) {
  fs::BlockManagerOpenOptions opts;
  ServerKey key;
  bool missing = false;
  Status s = PrepareBlockManagerOpen(&opts, &key, roots, &missing);
  if (!s.ok()) return missing ? UsageErrorWithHelp("fs", action, s.message()) : UsageError(s.message());
  fs::OpenBlockManager(opts, result);
  if (result->failure == fs::OpenResult::Failure::kUsage) {
    return UsageError(result->status.ToString());
  }
  if (!result->ok()) {
    // No partial output: a server would not start, so there is no block map.
    std::cerr << "kudu: error: " << result->status.ToString() << std::endl;
    return kExitInconsistent;
  }
  return -1;
}

}  // namespace tools
}  // namespace kudu
