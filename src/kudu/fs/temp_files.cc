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

#include "kudu/fs/temp_files.h"

#include <dirent.h>
#include <glog/logging.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "kudu/util/env.h"

namespace kudu {
namespace fs {

namespace {

constexpr char kMetadataTmpInfix[] = ".metadata.kudutmp";

// A directory's entries: names[i] is of type types[i] (d_type: DT_UNKNOWN
// when the filesystem does not say). Two arrays, not one of pairs: the
// names are what the container listing takes, without a copy or a move
// each (a data dir of a large server holds tens of thousands).
struct DirEntries {
  std::vector<std::string> names;
  std::vector<unsigned char> types;
};

// The entries of `dir`, or NotFound when it went away during the walk.
// `expected`: how many to make room for at once (an estimate; 0: none).
Status ListEntries(const std::string& dir, size_t expected, DirEntries* entries) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return Status::FromErrno(dir + ": opendir", errno);
  entries->names.clear();
  entries->types.clear();
  entries->names.reserve(expected);
  entries->types.reserve(expected);
  errno = 0;
  while (struct dirent* e = ::readdir(d)) {
    const char* n = e->d_name;
    if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'))) continue;
    entries->names.emplace_back(n);
    entries->types.push_back(e->d_type);
    errno = 0;
  }
  const int err = errno;
  ::closedir(d);
  if (err != 0) return Status::FromErrno(dir + ": readdir", err);
  return Status::OK();
}

void Walk(const std::string& dir, const DirEntries& entries, dev_t dev, bool top,
          TemporaryFiles* out) {
  for (size_t i = 0; i < entries.names.size(); i++) {
    const std::string& name = entries.names[i];
    const bool tmp = HasTmpInfix(name);
    // A regular file without the infix is what a data dir is full of (two
    // per container): the directory entry's type says enough, where a stat
    // of each cost every open two system calls per container. Anything
    // else, or a filesystem that gives no type, is looked at with lstat.
    if (entries.types[i] == DT_REG && !tmp) continue;
    const std::string path = env::JoinPath(dir, name);
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) {
      // Vanished since the listing; otherwise, as Kudu's walk (FTS_NS), said.
      const int err = errno;
      if (err != ENOENT) {
        LOG(WARNING) << "Unable to access " << path << " during the walk for temporary files ("
                     << Status::FromErrno(path, err).ToString()
                     << "): if it is a temporary file, it is neither listed nor deleted";
      }
      continue;
    }
    if (S_ISREG(st.st_mode)) {
      if (!tmp) continue;
      out->found.push_back(path);
      const size_t pos = name.find(kMetadataTmpInfix);
      if (top && pos != std::string::npos &&
          !env::FileExists(env::JoinPath(dir, name.substr(0, pos) + ".metadata"))) {
        out->only_copies.push_back(path);
      }
      continue;
    }
    if (tmp) out->unexpected.push_back(path);
    // Kudu's walk enters every directory, those with the infix too, but
    // neither follows a symlink (lstat above) nor crosses a mount.
    if (!S_ISDIR(st.st_mode) || st.st_dev != dev) continue;
    DirEntries below;
    const Status s = ListEntries(path, 0, &below);
    if (s.ok()) {
      Walk(path, below, dev, false, out);
    } else if (!s.IsNotFound()) {
      // As Kudu's walk (FTS_DNR), which goes on: said, not silently skipped.
      LOG(WARNING) << "Unable to access " << path << " during the walk for temporary files ("
                   << s.ToString() << "): any temporary file in it is neither listed nor "
                   << "deleted";
    }
  }
}

}  // namespace

bool HasTmpInfix(const std::string& name) { return name.find(kTmpInfix) != std::string::npos; }

std::string NewTempFilePath(const std::string& prefix) {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 rng([] {
    std::random_device seed;
    return (static_cast<uint64_t>(seed()) << 32) ^ seed();
  }());
  std::string suffix(6, 'x');
  for (char& ch : suffix) ch = kChars[rng() % (sizeof(kChars) - 1)];
  return prefix + kTmpInfix + "." + suffix;
}

Status CreateTempFile(const std::string& prefix, const WriteEncryption& enc,
                      std::unique_ptr<WritableFile>* file, std::string* path) {
  for (int attempt = 0; attempt < kTempFileNameAttempts; attempt++) {
    const std::string candidate = NewTempFilePath(prefix);
    Status s = WritableFile::Open(candidate, CreateMode::kCreateNew, enc, file);
    if (s.ok()) {
      *path = candidate;
      return s;
    }
    if (s.posix_code() != EEXIST) return s;
  }
  return Status::IOError(prefix + kTmpInfix + ".XXXXXX: no unused temporary file name");
}

Status FindTemporaryFiles(const std::string& data_dir, TemporaryFiles* out,
                          std::vector<std::string>* names) {
  // stat, not lstat: a data/ that is a symlink is the dir walked, and the
  // filesystem its subdirectories must be on is its target's.
  struct stat st;
  if (::stat(data_dir.c_str(), &st) != 0) return Status::FromErrno(data_dir, errno);
  // Room for the entries at once: a directory's size is at least what its
  // entries' names take, and a data dir's names are ~40 bytes.
  DirEntries entries;
  RETURN_NOT_OK_PREPEND(ListEntries(data_dir, static_cast<size_t>(st.st_size) / 32, &entries),
                        "cannot list data dir");
  Walk(data_dir, entries, st.st_dev, true, out);
  if (names != nullptr) *names = std::move(entries.names);
  return Status::OK();
}

void TemporaryFilesOfDirs::Add(const std::string& data_dir, TemporaryFiles&& walk) {
  // The walk follows no symlink below data_dir, so a name's real path is
  // data_dir's real path and the rest of the name.
  char buf[PATH_MAX];
  const std::string real = ::realpath(data_dir.c_str(), buf) != nullptr ? buf : data_dir;
  auto real_name = [&](const std::string& path) { return real + path.substr(data_dir.size()); };
  for (auto [from, to] : {std::pair{&walk.found, &all_.found},
                          std::pair{&walk.unexpected, &all_.unexpected}}) {
    for (std::string& path : *from) {
      if (names_.emplace(real_name(path), path).second) to->push_back(std::move(path));
    }
  }
  // Under the name the file is listed under: whichever walk saw it directly
  // in a data/ without its metadata file, it is kept.
  for (const std::string& path : walk.only_copies) {
    all_.only_copies.push_back(names_[real_name(path)]);
  }
}

TemporaryFiles TemporaryFilesOfDirs::Take() {
  for (auto* v : {&all_.found, &all_.unexpected, &all_.only_copies}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  names_.clear();
  return std::move(all_);
}

Status DeleteTemporaryFiles(TemporaryFiles* files) {
  const std::set<std::string> keep(files->only_copies.begin(), files->only_copies.end());
  std::set<std::string> dirs;
  auto fail = [files](const std::string& path, const Status& s) {
    files->failed_path = path;
    files->failure = s;
    return s;
  };
  std::string failed_path;
  Status failure;
  for (const std::string& path : files->found) {
    if (keep.count(path) > 0) continue;
    Status s = env::DeleteFile(path);
    if (!s.ok() && !s.IsNotFound()) {
      failed_path = path;
      failure = s;
      break;
    }
    files->deleted.push_back(path);
    dirs.insert(env::DirName(path));
  }
  // What was deleted before a failure is made durable too, and counted;
  // without the fsync nothing is reported deleted.
  for (const std::string& dir : dirs) {
    Status s = env::SyncDir(dir);
    if (!s.ok()) {
      files->deleted.clear();
      return fail(dir, s);
    }
  }
  return failure.ok() ? Status::OK() : fail(failed_path, failure);
}

}  // namespace fs
}  // namespace kudu
