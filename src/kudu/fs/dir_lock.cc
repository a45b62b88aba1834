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

#include "kudu/fs/dir_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kudu {
namespace fs {

namespace {

// Kudu's words (dir_util.cc), so that an operator who knows them recognises
// the cause: another process holds the dir, or another user owns the file.
constexpr char kLockFailure[] =
    "Could not lock instance file. Make sure that Kudu is not already running and you are not "
    "trying to run Kudu with a different user than before";

}  // namespace

Status InstanceFileLock::Acquire(const std::string& path,
                                 std::unique_ptr<InstanceFileLock>* lock) {
  // A signal during either call is retried, as Kudu's env does: on NFS or
  // FUSE the open can sleep, and a read-write open without the lock fails.
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int err = errno;
    return Status::IOError(kLockFailure, path + ": " + std::strerror(err), err);
  }
  struct flock f;
  std::memset(&f, 0, sizeof(f));
  f.l_type = F_WRLCK;
  f.l_whence = SEEK_SET;
  f.l_start = 0;
  f.l_len = 0;  // the whole file, however long it grows
  int rc;
  do {
    rc = ::fcntl(fd, F_SETLK, &f);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int err = errno;
    ::close(fd);
    return Status::IOError(kLockFailure, "lock " + path + ": " + std::strerror(err), err);
  }
  lock->reset(new InstanceFileLock(path, fd));
  return Status::OK();
}

InstanceFileLock::~InstanceFileLock() { ::close(fd_); }

}  // namespace fs
}  // namespace kudu
