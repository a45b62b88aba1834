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

// An LD_PRELOAD library that plays a server appending a block while a
// read-only check runs: when the check first opens a given metadata file,
// the container's data file is grown to a given size (the block's bytes
// landed), after the listing stat'ed it and before its records are read.
//   KUDU_TEST_GROW_ON_OPEN  the metadata file's name (its last component)
//   KUDU_TEST_GROW_FILE     the data file to grow (a path)
//   KUDU_TEST_GROW_TO       its new size in bytes
//   KUDU_TEST_GROW_LOG      a file the growth appends a line to
// Not part of any program: tests preload it into the `kudu` they run.
// Its own definitions of openat: no fortified or 64-bit renames.
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

std::atomic<bool> grown{false};

bool IsTarget(const char* path) {
  const char* target = std::getenv("KUDU_TEST_GROW_ON_OPEN");
  if (target == nullptr || path == nullptr) return false;
  const char* slash = std::strrchr(path, '/');
  return std::strcmp(slash != nullptr ? slash + 1 : path, target) == 0;
}

void GrowOnce() {
  if (grown.exchange(true)) return;
  const char* file = std::getenv("KUDU_TEST_GROW_FILE");
  const char* to = std::getenv("KUDU_TEST_GROW_TO");
  if (file == nullptr || to == nullptr) return;
  if (::truncate(file, static_cast<off_t>(std::strtoull(to, nullptr, 10))) != 0) return;
  if (const char* log = std::getenv("KUDU_TEST_GROW_LOG")) {
    if (FILE* f = std::fopen(log, "a")) {
      std::fprintf(f, "grew %s to %s\n", file, to);
      std::fclose(f);
    }
  }
}

mode_t ModeArg(int flags, va_list ap) {
  return (flags & (O_CREAT | O_TMPFILE)) != 0 ? static_cast<mode_t>(va_arg(ap, int)) : 0;
}

}  // namespace

extern "C" {

int openat(int dir_fd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = ModeArg(flags, ap);
  va_end(ap);
  if (IsTarget(path)) GrowOnce();
  using OpenatFn = int (*)(int, const char*, int, ...);
  static OpenatFn real = reinterpret_cast<OpenatFn>(::dlsym(RTLD_NEXT, "openat"));
  return real(dir_fd, path, flags, mode);
}

// The 64-bit name: on a 64-bit system the same call.
int openat64(int dir_fd, const char* path, int flags, ...) __attribute__((alias("openat")));

}  // extern "C"
