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

// Filesystem operations on paths (directories, sizes, renames, deletes).
// Together with file.h this is the only place that touches the filesystem;
// renames, deletes and directory syncs pass through the fault injector so a
// repair can be crashed at every step in tests.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kudu/util/status.h"

struct stat;

namespace kudu {
namespace env {

// Names in `dir` (without "." and ".."), in directory order.
Status ListDir(const std::string& dir, std::vector<std::string>* names);
// fn(name) for each name in `dir` (without "." and ".."), in directory
// order, until it returns false: a caller looking for one entry reads no
// more of a large directory than it needs.
Status ForEachName(const std::string& dir, const std::function<bool(const std::string&)>& fn);
// NotFound if `path` does not exist.
Status GetFileSize(const std::string& path, uint64_t* size);
// The size of `name` inside the directory open as `dir_fd` (AT_FDCWD: the
// working directory) when it is a regular file, directly or through
// symlinks; errors name `path`. NotFound when nothing is there (not even a
// symlink); IllegalState naming what it is when it is anything else: a
// directory, FIFO, socket or device, a dangling symlink or a symlink loop.
// Opening such a file could block for ever (a FIFO) or read without end
// (/dev/zero). One name is looked up instead of every component of a long
// path, for a caller that stats thousands of files in one directory.
Status GetRegularFileSizeAt(int dir_fd, const std::string& name, const std::string& path,
                            uint64_t* size);
// What statx(2) says of a file beyond struct stat.
struct FileAttributes {
  // Immutable or append-only (chattr +i / +a): no open for writing gets
  // past it, whatever the mode says.
  bool write_protected = false;
  uint64_t mount_id = 0;  // the mount the file was reached on; 0: unknown
};
// The same, with the whole stat of the file (its target, for a symlink)
// and, when `attrs` is given, its attributes.
Status StatRegularFileAt(int dir_fd, const std::string& name, const std::string& path,
                         struct stat* out, FileAttributes* attrs = nullptr);
// fstatat(2) by statx(2), with the attributes. 0, or -1 with errno.
int StatAt(int dir_fd, const char* name, int flags, struct stat* st, FileAttributes* attrs);
// The disk space `path` occupies: st_blocks x 512 (holes excluded).
Status GetFileAllocatedSize(const std::string& path, uint64_t* bytes);
bool FileExists(const std::string& path);
// Gives `to` the owner, group and permission bits of `from`, so that a file
// written in place of another one keeps them whoever writes it.
Status CopyOwnerAndMode(const std::string& from, const std::string& to);
Status IsDirectory(const std::string& path, bool* is_dir);
Status CreateDirs(const std::string& path);
Status DeleteFile(const std::string& path);
Status RenameFile(const std::string& from, const std::string& to);
// Like RenameFile, but AlreadyPresent when `to` exists: what makes one of
// two processes creating the same file fail instead of both succeeding.
Status RenameFileNoReplace(const std::string& from, const std::string& to);
// fsync of a directory, making renames and deletes in it durable.
Status SyncDir(const std::string& dir);
Status TruncateFile(const std::string& path, uint64_t size);
// The block size of `path` as stat(2) gives it (st_blksize): what a dir
// without block_manager_instance aligns its blocks to.
Status GetBlockSize(const std::string& path, uint64_t* block_size);
Status DeleteRecursively(const std::string& path);
// A new empty directory under $TMPDIR (or /tmp) named after `prefix`.
Status MakeTempDir(const std::string& prefix, std::string* path);
// Whether the process can write to `dir` (an existing directory).
bool IsWritableDir(const std::string& dir);

std::string JoinPath(const std::string& a, const std::string& b);
std::string DirName(const std::string& path);
std::string BaseName(const std::string& path);

// Directories held open for the *at calls of a caller that looks up
// thousands of names in them (GetRegularFileSizeAt,
// RandomAccessFile::OpenAt); each is closed with the object.
class OpenDirs {
 public:
  OpenDirs() = default;
  ~OpenDirs();
  OpenDirs(OpenDirs&& other) noexcept : fds_(std::move(other.fds_)) { other.fds_.clear(); }
  OpenDirs& operator=(OpenDirs&& other) noexcept;
  OpenDirs(const OpenDirs&) = delete;
  OpenDirs& operator=(const OpenDirs&) = delete;

  // Opens `dir` as the next directory; errors name `dir` (its slot then
  // holds -1, so the slots still follow the order of Add).
  Status Add(const std::string& dir);
  // By the order of Add.
  const std::vector<int>& fds() const { return fds_; }

 private:
  void CloseAll();
  std::vector<int> fds_;
};

}  // namespace env
}  // namespace kudu
