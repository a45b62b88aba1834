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

// An LD_PRELOAD library that makes the first two open(O_RDWR) and the first
// two fcntl(F_SETLK) calls on one path fail with EINTR, as a signal
// arriving during them does (on NFS or FUSE an open can sleep), and logs
// each interruption so that a test knows the shim was reached.
//   KUDU_TEST_INTERRUPT_PATH  the path whose calls are interrupted
//   KUDU_TEST_INTERRUPT_LOG   a file each interruption appends a line to
// Not part of any program: tests preload it into the `kudu` they run.
// Its own definitions of open and fcntl: no fortified or 64-bit renames.
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int kInterruptions = 2;
std::atomic<int> opens_interrupted{0};
std::atomic<int> locks_interrupted{0};

bool IsTarget(const char* path) {
  const char* target = std::getenv("KUDU_TEST_INTERRUPT_PATH");
  return target != nullptr && path != nullptr && std::strcmp(target, path) == 0;
}

bool FdIsTarget(int fd) {
  char link[64];
  char path[4096];
  std::snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  const ssize_t n = ::readlink(link, path, sizeof(path) - 1);
  if (n <= 0) return false;
  path[n] = '\0';
  return IsTarget(path);
}

// True (and logged) while `counter` has interruptions left.
bool Interrupt(std::atomic<int>* counter, const char* what) {
  if (counter->fetch_add(1) >= kInterruptions) return false;
  if (const char* log = std::getenv("KUDU_TEST_INTERRUPT_LOG")) {
    if (FILE* f = std::fopen(log, "a")) {
      std::fprintf(f, "%s\n", what);
      std::fclose(f);
    }
  }
  errno = EINTR;
  return true;
}

template <typename Fn>
Fn Next(const char* name) {
  return reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, name));
}

int InterruptibleOpen(const char* path, int flags, mode_t mode) {
  if ((flags & O_ACCMODE) == O_RDWR && IsTarget(path) && Interrupt(&opens_interrupted, "open")) {
    return -1;
  }
  using OpenFn = int (*)(const char*, int, ...);
  static OpenFn real = Next<OpenFn>("open");
  return real(path, flags, mode);
}

int InterruptibleFcntl(int fd, int cmd, void* arg) {
  if (cmd == F_SETLK && FdIsTarget(fd) && Interrupt(&locks_interrupted, "fcntl")) return -1;
  using FcntlFn = int (*)(int, int, ...);
  static FcntlFn real = Next<FcntlFn>("fcntl");
  return real(fd, cmd, arg);
}

mode_t ModeArg(int flags, va_list ap) {
  return (flags & (O_CREAT | O_TMPFILE)) != 0 ? static_cast<mode_t>(va_arg(ap, int)) : 0;
}

}  // namespace

extern "C" {

int open(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = ModeArg(flags, ap);
  va_end(ap);
  return InterruptibleOpen(path, flags, mode);
}

int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  return InterruptibleFcntl(fd, cmd, arg);
}

// The 64-bit names: on a 64-bit system the same calls as the ones above.
int open64(const char* path, int flags, ...) __attribute__((alias("open")));
int fcntl64(int fd, int cmd, ...) __attribute__((alias("fcntl")));

}  // extern "C"
