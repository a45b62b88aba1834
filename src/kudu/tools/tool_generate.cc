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

// `kudu fs generate`: writes a realistic on-disk state through the project's
// own writer (fs/container_writer.h, driven by fs/block_workload.h), the same
// code path a server takes to create and delete blocks.
//
// Output: the layout of `kudu fs format` (instance files, §1 of the format
// doc; with --encrypt the server key in `instance`), the containers in
// <root>/data/ of every --fs_data_dirs root, and,
// for tests, <first root>/generate_live_blocks.txt listing every live block
// sorted by id, one `<block id> <container id> <offset> <length>` per line
// (exactly what `kudu fs list` prints for the same dirs). One summary line
// goes to stdout.
//
// Exit status: 0 on success; 2 for a usage error (unknown flag, missing or
// unusable data dir, bad key, --encrypt into dirs formatted without a key
// and none given, out-of-range counts, roots partly formatted, a data dir
// that already holds containers, a data dir locked by another process); 1
// when writing fails midway or an existing instance file is bad, which
// leaves the roots as they were.
//
// What an interrupted run leaves behind:
//  - a failure we see (an I/O error) deletes the container being filled, so
//    only complete containers remain, and no live-blocks file is written;
//  - a SIGKILL (or power loss) can stop us anywhere. Every container is
//    created as an empty .data then a .metadata whose container header and
//    supplemental header go in one write (one page, which a signal cannot
//    split), so the possible states are: an incomplete container (empty or
//    header-only .data with a missing or sub-header .metadata), which the
//    open recognises and repair deletes; or a complete container whose last
//    record may be partial (the format's Incomplete: a torn write that was
//    never acknowledged, which replay drops and repair truncates). Block
//    bytes are always written before the record that points at them, so no
//    record refers to bytes that are not there. What cannot appear is a file
//    that looks like a valid container but is not. The live-blocks file is
//    written to a temporary name and renamed, so it is either absent or
//    complete (and then matches the dirs).
#include <gflags/gflags.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/container_writer.h"
#include "kudu/fs/instance_files.h"
#include "kudu/fs/prepare_data_dirs.h"
#include "kudu/tools/block_workload.h"
#include "kudu/tools/live_block_list.h"
#include "kudu/tools/tool_action.h"
#include "kudu/tools/tool_flags.h"
#include "kudu/util/encryption.h"
#include "kudu/util/env.h"
#include "kudu/util/flag_validators.h"

DEFINE_int64(containers, 10,
             "generate: number of containers, spread round-robin over the data dirs (more when "
             "--log_container_max_size, --log_container_max_blocks or "
             "--log_container_metadata_max_size fill containers before they hold "
             "--blocks_per_container blocks)");
DEFINE_validator(containers, &kudu::flags::ValidateNonNegativeI64);
DEFINE_int64(blocks_per_container, 1000, "generate: CREATE records (blocks) per container");
DEFINE_validator(blocks_per_container, &kudu::flags::ValidatePositiveI64);
DEFINE_int32(deleted_block_percentage, 10,
             "generate: share (0..100) of the created blocks that are deleted, interleaved with "
             "the creations");
DEFINE_validator(deleted_block_percentage, &kudu::flags::ValidatePercentage);
DEFINE_uint64(seed, 1,
              "generate: random seed; the same seed gives byte-identical containers (encrypted "
              "ones too, with the same server key) and live-blocks file; the instance files "
              "carry fresh uuids and the time, as a format does. 0 picks one from the clock (and "
              "prints it)");
DEFINE_bool(encrypt, false,
            "generate: encrypt every file at rest with the server key (--server_key_hex or "
            "--server_key_test_provider_hex; without either, a fresh 16-byte key, as Kudu's "
            "default key provider makes it). The key is stored in the instance files, where "
            "an open without a key flag finds it. A key flag alone, or a key in the instance "
            "files of roots formatted before, encrypts too: a dir with a key is encrypted");
DEFINE_int32(encryption_key_length, 128,
             "generate --encrypt: file key length in bits (128, 192 or 256)");
DEFINE_validator(encryption_key_length, +[](const char*, int32_t bits) {
  kudu::CipherAlgorithm alg;
  return kudu::CipherAlgorithmForKeyBits(bits, &alg).ok() ? true
                                                          : kudu::flags::Fail("must be 128, 192 or 256");
});
DEFINE_bool(generate_fsync, false,
            "generate: fsync data before records and metadata after each commit, as a server "
            "does (slower; the order of writes is the same without it)");
DEFINE_bool(generate_sparse_data, false,
            "generate: do not write block bytes; size each data file to hold its blocks as "
            "holes. The metadata is byte-identical to a run without the flag (same seed), "
            "written in fewer, larger writes: for server-sized states whose block contents "
            "are not needed");

namespace kudu {
namespace tools {
namespace {

constexpr char kLiveBlocksFile[] = "generate_live_blocks.txt";

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Checks that generation can write into <root>/data and that no container
// is there already (a second run would mix block id ranges and could reuse
// a seeded container id). Creates nothing: a run that fails later must
// leave the roots as they were.
// The format makes a root that is missing: its nearest existing parent (or
// the root itself) must be a directory that takes it. `what` names the root.
Status CheckRootCanBeMade(const std::string& what, const std::string& root) {
  std::string parent = root;
  while (!env::FileExists(parent) && parent != env::DirName(parent)) {
    parent = env::DirName(parent);
  }
  if (!env::IsWritableDir(parent)) {
    return Status::InvalidArgument(what + " " + root + " cannot be made: " + parent +
                                   " is not a writable directory");
  }
  return Status::OK();
}

// The directory `root` names, or will name once the format makes it: the
// real path of its nearest existing ancestor, and the rest. A symlink that
// does not resolve is refused: the format could not make it, and if it
// names another root the two would be one directory.
Status WouldBePath(const std::string& root, std::string* out) {
  std::string existing = root, rest;
  struct stat st;
  while (::lstat(existing.c_str(), &st) != 0) {
    const std::string parent = env::DirName(existing);
    if (parent == existing) break;
    rest = "/" + existing.substr(parent == "/" ? 1 : parent.size() + 1) + rest;
    existing = parent;
  }
  char real[PATH_MAX];
  if (::realpath(existing.c_str(), real) == nullptr) {
    return Status::InvalidArgument(root + " cannot be made: " + existing + " does not resolve (" +
                                   std::strerror(errno) + ")");
  }
  *out = (std::string(real) == "/" ? "" : std::string(real)) + rest;
  return Status::OK();
}

// Each root its own directory: Kudu's format fails on a root that is
// another under a second name (its instance file exists already). The
// same name twice is one root.
// Roots that exist are compared by device and inode as well (a bind
// mount is one directory under two real paths).
Status CheckRootsAreDistinct(const std::vector<std::string>& roots) {
  struct Seen {
    std::string path;  // would-be path
    std::string root;
    bool exists;
    dev_t dev;
    ino_t ino;
  };
  std::vector<Seen> seen;
  for (const std::string& root : roots) {
    Seen me{"", root, false, 0, 0};
    RETURN_NOT_OK(WouldBePath(root, &me.path));
    struct stat st;
    if (::stat(root.c_str(), &st) == 0) me = Seen{me.path, root, true, st.st_dev, st.st_ino};
    for (const Seen& other : seen) {
      const bool same = other.path == me.path ||
                        (other.exists && me.exists && other.dev == me.dev && other.ino == me.ino);
      if (same && other.root != root) {
        return Status::InvalidArgument(other.root + " and " + root + " are the same directory");
      }
    }
    seen.push_back(me);
  }
  return Status::OK();
}

Status CheckDataDir(const std::string& root) {
  const std::string data = fs::LogBlockContainerWriter::DataDir(root);
  if (!env::FileExists(data)) return CheckRootCanBeMade("data dir", root);
  if (!env::IsWritableDir(data)) {
    return Status::InvalidArgument("data dir " + root + " is not writable");
  }
  std::vector<std::string> names;
  RETURN_NOT_OK(env::ListDir(data, &names));
  for (const std::string& n : names) {
    if (EndsWith(n, ".data") || EndsWith(n, ".metadata")) {
      return Status::InvalidArgument("data dir " + root + " already holds containers (" + n +
                                     "); generate writes into empty data dirs only");
    }
  }
  return Status::OK();
}

// Generate writes into roots `kudu fs format` laid out whole (then it
// locks them as a server does) or into roots with no layout at all (then
// it formats them first). Anything between, such as an `instance` without
// a `block_manager_instance` to lock, is refused: generating there would
// write without the lock, or next to a layout generate did not make.
Status FindLayout(const FsRoots& roots, bool* formatted) {
  std::vector<std::string> needed;
  for (const std::string& root : roots.data_dirs) {
    needed.push_back(fs::InstanceFilePath(root));
    needed.push_back(fs::DirInstanceFilePath(root));
  }
  for (const std::string& root : NonDataRoots(roots)) needed.push_back(fs::InstanceFilePath(root));
  std::string present, missing;
  for (const std::string& path : needed) {
    struct stat st;  // lstat: a symlink that leads nowhere is there, for the open to refuse
    std::string& slot = ::lstat(path.c_str(), &st) == 0 ? present : missing;
    if (slot.empty()) slot = path;
  }
  *formatted = !present.empty();
  if (!present.empty() && !missing.empty()) {
    return Status::InvalidArgument(missing + " is missing, but " + present +
                                   " exists: the roots are partly formatted; generate writes "
                                   "into roots laid out whole or into roots with no layout");
  }
  return Status::OK();
}

// A server encrypts with the key its instance files hold, and writes plain
// files when they hold none (§5): on roots formatted before, a given key
// must be that key, or generate would write files under a key no instance
// file holds, which an open without the flag refuses. Instance files that
// do not load are left for the open's own checks to report.
Status CheckGivenKeyIsStored(const FsRoots& roots, const ServerKey& given) {
  fs::InstanceFilesState stored;
  if (!fs::LoadInstanceFiles(roots.data_dirs, NonDataRoots(roots), /*load_key=*/true, &stored)
           .ok()) {
    return Status::OK();
  }
  if (!stored.has_key) {
    return Status::InvalidArgument(
        "a server key was given, but the roots were formatted without a server key: a server "
        "on them writes plain files");
  }
  if (stored.key.bytes() != given.bytes()) {
    return Status::InvalidArgument("the given server key is not the key of " + stored.key_file +
                                   ", the key a server on these roots encrypts with");
  }
  return Status::OK();
}

int RunGenerate(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("unexpected argument '" + args[0] + "'");
  FsRoots roots;
  Status s = ResolveFsRoots(&roots);
  const std::vector<std::string>& dirs = roots.data_dirs;
  if (!s.ok()) {
    return DirFlagsMissing() ? UsageErrorWithHelp("fs", "generate", s.message()) : UsageError(s.message());
  }
  s = ValidateOpenFlags();
  if (!s.ok()) return UsageError(s.message());
  if (FLAGS_containers > 0 &&
      FLAGS_blocks_per_container > std::numeric_limits<int64_t>::max() / FLAGS_containers) {
    return UsageError("--containers x --blocks_per_container is above 2^63-1 blocks");
  }
  ServerKey key;
  bool have_key = false;
  s = LoadServerKey(&key, &have_key);
  if (!s.ok()) return UsageError(s.message());
  CipherAlgorithm alg = CipherAlgorithm::kAes128Ctr;
  s = CipherAlgorithmForKeyBits(FLAGS_encryption_key_length, &alg);  // validated with the flag
  if (!s.ok()) return UsageError("--encryption_key_length: " + s.message());
  for (const std::string& root : dirs) {
    s = CheckDataDir(root);
    if (!s.ok()) return UsageError(s.message());
  }
  std::vector<std::string> all_roots = dirs;
  for (const std::string& root : NonDataRoots(roots)) all_roots.push_back(root);
  s = CheckRootsAreDistinct(all_roots);
  if (!s.ok()) return UsageError(s.message());
  bool formatted = false;
  s = FindLayout(roots, &formatted);
  if (!s.ok()) return UsageError(s.message());
  // Only a format writes into the WAL and metadata roots.
  for (const std::string& root : NonDataRoots(roots)) {
    s = formatted ? Status::OK() : CheckRootCanBeMade("root", root);
    if (!s.ok()) return UsageError(s.message());
  }
  // A dir is encrypted when it has a key (§5): asked for by a flag, given,
  // or stored in the instance files of a format done before.
  bool encrypt = FLAGS_encrypt || FLAGS_encrypt_data_at_rest || have_key;
  if (encrypt && !have_key && !formatted) {
    // What Kudu's default key provider makes: 16 random bytes.
    std::string bytes;
    s = GenerateFileKey(CipherAlgorithm::kAes128Ctr, &bytes);
    if (!s.ok()) return UsageError(s.ToString());
    key = ServerKey::FromBytes(std::move(bytes));
    have_key = true;
  }
  if (!formatted) {
    fs::FormatOptions format;
    format.data_roots = dirs;
    format.wal_root = roots.wal_dir;
    format.metadata_root = roots.metadata_dir;
    format.server_key = encrypt ? &key : nullptr;
    s = fs::FormatRoots(format);
    if (s.IsAlreadyPresent()) {
      return UsageError(s.message() + ": another run formatted the roots at the same time");
    }
    if (s.IsInvalidArgument()) return UsageError(s.message());  // one dir named twice
    if (!s.ok()) {
      std::cerr << "kudu: error: generate failed: " << s.ToString() << std::endl;
      return kExitInconsistent;
    }
  }
  if (formatted && have_key) {
    s = CheckGivenKeyIsStored(roots, key);
    if (!s.ok()) return UsageError(s.message());
  }
  fs::PreparedDataDirs prepared;
  {
    fs::PrepareDataDirsOptions p;
    p.data_roots = dirs;
    p.other_roots = NonDataRoots(roots);
    p.given_key = have_key ? &key : nullptr;
    p.encrypt_data_at_rest = FLAGS_encrypt_data_at_rest;
    p.read_write = true;
    s = fs::PrepareDataDirs(p, &prepared);
    if (prepared.usage_failure()) return UsageError(s.ToString());
    if (!s.ok()) {
      std::cerr << "kudu: error: " << s.ToString() << std::endl;
      return kExitInconsistent;
    }
  }
  // Again under the locks: another run may have written between the first
  // look and the lock.
  for (const std::string& root : dirs) {
    s = CheckDataDir(root);
    if (!s.ok()) return UsageError(s.message());
  }

  tools::BlockWorkloadOptions opts;
  opts.writer.data_dirs = dirs;
  opts.writer.sync = FLAGS_generate_fsync;
  // Blocks aligned to the block size the instance files record, which every
  // open aligns by; the writer takes one size for all dirs, so a mix keeps
  // its per-dir default.
  const std::vector<uint64_t>& recorded = prepared.instance.fs_block_sizes;
  if (!recorded.empty() && recorded[0] != 0 &&
      std::all_of(recorded.begin(), recorded.end(), [&](uint64_t b) { return b == recorded[0]; })) {
    opts.writer.fs_block_size = recorded[0];
  }
  opts.writer.sparse_data = FLAGS_generate_sparse_data;
  encrypt = encrypt || prepared.server_key != nullptr;
  if (encrypt) {
    if (prepared.server_key == nullptr) {
      // A server on them writes plain files, and a key given now would be
      // one no instance file holds (CheckGivenKeyIsStored).
      return UsageError("--encrypt: the data dirs were formatted without a server key, so a "
                        "server on them writes plain files; generate into new roots to "
                        "encrypt");
    }
    opts.writer.server_key = prepared.server_key;
    opts.writer.algorithm = alg;
  }
  opts.containers = FLAGS_containers;
  opts.blocks_per_container = FLAGS_blocks_per_container;
  opts.deleted_block_percentage = FLAGS_deleted_block_percentage;
  opts.seed = FLAGS_seed;
  if (opts.seed == 0) {
    opts.seed = static_cast<uint64_t>(
                    std::chrono::system_clock::now().time_since_epoch().count()) | 1;
  }

  const auto start = std::chrono::steady_clock::now();
  LiveBlockListWriter list(env::JoinPath(dirs[0], kLiveBlocksFile));
  s = list.Open();
  opts.on_live_shards = [&list](const std::vector<tools::ShardLiveBlocks>& shards, int threads) {
    return list.Write(shards, threads);
  };
  tools::BlockWorkloadResult result;
  if (s.ok()) s = tools::RunBlockWorkload(opts, &result);
  if (s.ok()) s = list.Finish();
  if (!s.ok()) {
    std::cerr << "kudu: error: generate failed: " << s.ToString() << std::endl;
    return kExitInconsistent;
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::ostringstream line;
  line << "generated " << result.containers << (result.containers == 1 ? " container in " : " containers in ") << dirs.size()
       << (dirs.size() == 1 ? " data dir: " : " data dirs: ") << list.lines() << " live blocks (" << result.live_bytes
       << " bytes), " << result.blocks_deleted << " deleted blocks, "
       << result.blocks_created + result.blocks_deleted << " records, "
       << result.data_bytes_written << " data bytes and " << result.metadata_bytes_written
       << " metadata bytes written; seed " << opts.seed << ", "
       << (encrypt ? "encrypted" : "not encrypted") << ", ";
  char t[32];
  std::snprintf(t, sizeof(t), "%.2f s", secs);
  line << t;
  std::cout << line.str() << std::endl;
  return kExitOk;
}

[[maybe_unused]] const bool generate_registered = RegisterToolAction(ToolAction{
    "fs", "generate",
    "Write a realistic on-disk state through the server's own block writer",
    &RunGenerate,
    // Its own flags first in its help, then the rest of what every fs action
    // takes (the replay flags), which generate checks but does not use: it
    // replays nothing.
    FlagList(FlagList(DirFlags(), {"containers", "blocks_per_container",
                                   "deleted_block_percentage", "seed", "encrypt",
                                   "encrypt_data_at_rest", "encryption_key_length",
                                   "generate_fsync", "server_key_hex",
                                   "server_key_test_provider_hex", "log_container_max_size",
                                   "log_container_max_blocks", "log_container_metadata_max_size",
                                   "log_block_manager_delete_dead_container",
                                   "generate_sparse_data"}),
             FsFlags()),
    "",
    "Writes containers with CREATE and DELETE records (data files with bytes, metadata "
    "files in the order a server writes them) into <root>/data/ of every data root, "
    "round-robin, then <first root>/generate_live_blocks.txt listing every live block as "
    "`kudu fs list` prints it, and one summary line. The data dirs must hold no container "
    "yet."});

}  // namespace
}  // namespace tools
}  // namespace kudu
