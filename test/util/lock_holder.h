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

// A forked child process that holds a lock on a file until it is destroyed:
// POSIX record locks never conflict within one process, so a test of the
// data dir lock needs a second one.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace kudu {
namespace test {

class LockHolder {
 public:
  enum Kind {
    kFcntl,  // what a Kudu server takes
    kFlock,  // flock(2): another kind, which Linux keeps apart
  };
  LockHolder(const std::string& path, Kind kind) {
    int ready[2];
    EXPECT_EQ(0, ::pipe(ready));
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(ready[0]);
      const int fd = ::open(path.c_str(), O_RDWR);
      bool ok = fd >= 0;
      if (ok && kind == kFcntl) {
        struct flock f;
        std::memset(&f, 0, sizeof(f));
        f.l_type = F_WRLCK;
        f.l_whence = SEEK_SET;
        ok = ::fcntl(fd, F_SETLK, &f) == 0;
      } else if (ok) {
        ok = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
      }
      const char c = ok ? 'y' : 'n';
      if (::write(ready[1], &c, 1) != 1) ::_exit(1);
      ::pause();
      ::_exit(0);
    }
    ::close(ready[1]);
    char c = 0;
    EXPECT_EQ(1, ::read(ready[0], &c, 1));
    EXPECT_EQ('y', c) << "the child could not lock " << path;
    ::close(ready[0]);
  }
  ~LockHolder() {
    ::kill(pid_, SIGKILL);
    int status;
    ::waitpid(pid_, &status, 0);
  }
  LockHolder(const LockHolder&) = delete;
  LockHolder& operator=(const LockHolder&) = delete;

 private:
  pid_t pid_;
};

}  // namespace test
}  // namespace kudu
