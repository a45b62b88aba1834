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

#include "kudu/util/env.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "kudu/util/io_fault_injector.h"

namespace kudu {
namespace env {

Status ListDir(const std::string& dir, std::vector<std::string>* names) {
  names->clear();
  return ForEachName(dir, [names](const std::string& name) {
    names->push_back(name);
    return true;
  });
}

Status ForEachName(const std::string& dir, const std::function<bool(const std::string&)>& fn) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return Status::FromErrno(dir, errno);
  int err = 0;
  while (true) {
    errno = 0;  // readdir's end and its failure differ only by errno
    struct dirent* e = ::readdir(d);
    if (e == nullptr) {
      err = errno;
      break;
    }
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (!fn(name)) break;
  }
  ::closedir(d);
  if (err != 0) return Status::FromErrno(dir + ": readdir", err);
  return Status::OK();
}

Status GetFileSize(const std::string& path, uint64_t* size) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Status::FromErrno(path, errno);
  *size = static_cast<uint64_t>(st.st_size);
  return Status::OK();
}

namespace {

const char* FileTypeName(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a plain file";
}

}  // namespace

Status GetRegularFileSizeAt(int dir_fd, const std::string& name, const std::string& path,
                            uint64_t* size) {
  struct stat st;
  RETURN_NOT_OK(StatRegularFileAt(dir_fd, name, path, &st));
  *size = static_cast<uint64_t>(st.st_size);
  return Status::OK();
}

int StatAt(int dir_fd, const char* name, int flags, struct stat* st, FileAttributes* attrs) {
  struct statx x;
  *attrs = FileAttributes();
  if (::statx(dir_fd, name, flags, STATX_BASIC_STATS | STATX_MNT_ID, &x) != 0) {
    if (errno != ENOSYS) return -1;
    return ::fstatat(dir_fd, name, st, flags);  // a kernel before statx: attributes unknown
  }
  *st = {};
  st->st_dev = makedev(x.stx_dev_major, x.stx_dev_minor);
  st->st_ino = x.stx_ino;
  st->st_mode = x.stx_mode;
  st->st_nlink = x.stx_nlink;
  st->st_uid = x.stx_uid;
  st->st_gid = x.stx_gid;
  st->st_rdev = makedev(x.stx_rdev_major, x.stx_rdev_minor);
  st->st_size = static_cast<off_t>(x.stx_size);
  st->st_blksize = static_cast<blksize_t>(x.stx_blksize);
  st->st_blocks = static_cast<blkcnt_t>(x.stx_blocks);
  st->st_atim = {x.stx_atime.tv_sec, x.stx_atime.tv_nsec};
  st->st_mtim = {x.stx_mtime.tv_sec, x.stx_mtime.tv_nsec};
  st->st_ctim = {x.stx_ctime.tv_sec, x.stx_ctime.tv_nsec};
  attrs->write_protected = (x.stx_attributes & (STATX_ATTR_IMMUTABLE | STATX_ATTR_APPEND)) != 0;
  if (x.stx_mask & STATX_MNT_ID) attrs->mount_id = x.stx_mnt_id;
  return 0;
}

Status StatRegularFileAt(int dir_fd, const std::string& name, const std::string& path,
                         struct stat* out, FileAttributes* attrs_out) {
  struct stat& st = *out;
  FileAttributes attrs;
  if (StatAt(dir_fd, name.c_str(), AT_SYMLINK_NOFOLLOW, &st, &attrs) != 0) {
    return Status::FromErrno(path, errno);
  }
  const bool link = S_ISLNK(st.st_mode);
  if (link && StatAt(dir_fd, name.c_str(), 0, &st, &attrs) != 0) {
    const int err = errno;
    return Status::IllegalState(path + ": not a regular file (" +
                                (err == ELOOP ? "a symlink loop" : "a dangling symlink") + ")");
  }
  if (attrs_out != nullptr) *attrs_out = attrs;
  if (!S_ISREG(st.st_mode)) {
    return Status::IllegalState(path + ": not a regular file (" + (link ? "a symlink to " : "") +
                                FileTypeName(st.st_mode) + ")");
  }
  return Status::OK();
}

Status GetFileAllocatedSize(const std::string& path, uint64_t* bytes) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Status::FromErrno(path, errno);
  *bytes = static_cast<uint64_t>(st.st_blocks) * 512;
  return Status::OK();
}

Status CopyOwnerAndMode(const std::string& from, const std::string& to) {
  struct stat src, dst;
  if (::stat(from.c_str(), &src) != 0) return Status::FromErrno(from, errno);
  if (::stat(to.c_str(), &dst) != 0) return Status::FromErrno(to, errno);
  if ((src.st_uid != dst.st_uid || src.st_gid != dst.st_gid) &&
      ::chown(to.c_str(), src.st_uid, src.st_gid) != 0) {
    return Status::FromErrno(to + ": chown to " + std::to_string(src.st_uid) + ":" +
                                 std::to_string(src.st_gid) + " (the owner of " + from + ")",
                             errno);
  }
  // After chown, which may clear the set-id bits.
  if (::chmod(to.c_str(), src.st_mode & 07777) != 0) {
    return Status::FromErrno(to + ": chmod (the mode of " + from + ")", errno);
  }
  return Status::OK();
}

bool FileExists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

Status IsDirectory(const std::string& path, bool* is_dir) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Status::FromErrno(path, errno);
  *is_dir = S_ISDIR(st.st_mode);
  return Status::OK();
}

Status CreateDirs(const std::string& path) {
  if (path.empty()) return Status::InvalidArgument("empty directory path");
  std::string partial;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    partial = path.substr(0, pos);
    if (partial.empty()) continue;
    if (::mkdir(partial.c_str(), 0755) == 0) {
      IoRecorder::Note(IoRecord::Kind::kMkdir, partial);
    } else if (errno != EEXIST) {
      return Status::FromErrno(partial + ": mkdir", errno);
    }
  }
  bool is_dir = false;
  RETURN_NOT_OK(IsDirectory(path, &is_dir));
  if (!is_dir) return Status::IOError(path + ": exists and is not a directory");
  return Status::OK();
}

Status DeleteFile(const std::string& path) {
  if (IoFaultInjector::OnCall(IoOp::kDelete, path) == IoFault::kEIO) {
    return Status::FromErrno(path + ": unlink", EIO);
  }
  if (::unlink(path.c_str()) != 0) return Status::FromErrno(path + ": unlink", errno);
  IoRecorder::Note(IoRecord::Kind::kUnlink, path);
  return Status::OK();
}

Status RenameFile(const std::string& from, const std::string& to) {
  if (IoFaultInjector::OnCall(IoOp::kRename, from) == IoFault::kEIO) {
    return Status::FromErrno(from + ": rename to " + to, EIO);
  }
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return Status::FromErrno(from + ": rename to " + to, errno);
  }
  IoRecorder::NoteRename(from, to);
  return Status::OK();
}

Status RenameFileNoReplace(const std::string& from, const std::string& to) {
  if (IoFaultInjector::OnCall(IoOp::kRename, from) == IoFault::kEIO) {
    return Status::FromErrno(from + ": rename to " + to, EIO);
  }
  int rc = ::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE);
  if (rc != 0 && errno == EINVAL) {
    // A filesystem without RENAME_NOREPLACE: link(2) refuses an existing
    // name just the same.
    rc = ::link(from.c_str(), to.c_str());
    if (rc == 0) ::unlink(from.c_str());
  }
  if (rc != 0) {
    const int err = errno;
    if (err == EEXIST) return Status::AlreadyPresent(to + ": exists already");
    return Status::FromErrno(from + ": rename to " + to, err);
  }
  IoRecorder::NoteRename(from, to);
  return Status::OK();
}

Status SyncDir(const std::string& dir) {
  if (IoFaultInjector::OnCall(IoOp::kSync, dir) == IoFault::kEIO) {
    return Status::FromErrno(dir + ": fsync", EIO);
  }
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(dir, errno);
  int r = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (r != 0) return Status::FromErrno(dir + ": fsync", err);
  IoRecorder::Note(IoRecord::Kind::kSyncDir, dir);
  return Status::OK();
}

Status TruncateFile(const std::string& path, uint64_t size) {
  if (IoFaultInjector::OnCall(IoOp::kTruncate, path) == IoFault::kEIO) {
    return Status::FromErrno(path + ": truncate to " + std::to_string(size), EIO);
  }
  if (::truncate(path.c_str(), static_cast<off_t>(size)) != 0) {
    return Status::FromErrno(path + ": truncate to " + std::to_string(size), errno);
  }
  IoRecorder::Note(IoRecord::Kind::kTruncate, path, size);
  return Status::OK();
}

Status GetBlockSize(const std::string& path, uint64_t* block_size) {
  // st_blksize, not statvfs's f_bsize: Kudu records and checks st_blksize
  // (§1), and the two differ on some filesystems.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Status::FromErrno(path, errno);
  *block_size = st.st_blksize > 0 ? static_cast<uint64_t>(st.st_blksize) : 4096;
  return Status::OK();
}

namespace {
int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) { return ::remove(path); }
}  // namespace

Status DeleteRecursively(const std::string& path) {
  if (::nftw(path.c_str(), RemoveEntry, 64, FTW_DEPTH | FTW_PHYS) != 0) {
    return Status::FromErrno(path + ": recursive delete", errno);
  }
  return Status::OK();
}

Status MakeTempDir(const std::string& prefix, std::string* path) {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix + ".XXXXXX";
  if (::mkdtemp(&tmpl[0]) == nullptr) return Status::FromErrno(tmpl + ": mkdtemp", errno);
  *path = tmpl;
  return Status::OK();
}

bool IsWritableDir(const std::string& dir) { return ::access(dir.c_str(), W_OK | X_OK) == 0; }

std::string JoinPath(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (a.back() == '/') return a + b;
  return a + "/" + b;
}

std::string DirName(const std::string& path) {
  size_t p = path.find_last_of('/');
  if (p == std::string::npos) return ".";
  if (p == 0) return "/";
  return path.substr(0, p);
}

std::string BaseName(const std::string& path) {
  size_t p = path.find_last_of('/');
  return p == std::string::npos ? path : path.substr(p + 1);
}

OpenDirs::~OpenDirs() { CloseAll(); }

OpenDirs& OpenDirs::operator=(OpenDirs&& other) noexcept {
  if (this != &other) {
    CloseAll();
    fds_ = std::move(other.fds_);
    other.fds_.clear();
  }
  return *this;
}

void OpenDirs::CloseAll() {
  for (int fd : fds_) {
    if (fd >= 0) ::close(fd);
  }
  fds_.clear();
}

Status OpenDirs::Add(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const int err = errno;
  fds_.push_back(fd);
  if (fd < 0) return Status::FromErrno(dir + ": cannot open directory", err);
  return Status::OK();
}

}  // namespace env
}  // namespace kudu
