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

#include "kudu/tools/page_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

namespace kudu {
namespace tools {

int64_t PageCacheResidentBytes(const RandomAccessFile& file) {
  const uint64_t size = file.size();
  if (size == 0) return 0;
  const long page = ::sysconf(_SC_PAGESIZE);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, file.fd(), 0);
  if (map == MAP_FAILED) return -1;
  std::vector<unsigned char> vec((size + page - 1) / page);
  int64_t cached = -1;
  if (::mincore(map, size, vec.data()) == 0) {
    cached = 0;
    for (unsigned char v : vec) cached += (v & 1) ? page : 0;
    cached = std::min<int64_t>(cached, static_cast<int64_t>(size));
  }
  ::munmap(map, size);
  return cached;
}

void DropFromPageCache(const RandomAccessFile& file) {
  ::posix_fadvise(file.fd(), 0, 0, POSIX_FADV_DONTNEED);
}

Status DropSystemCaches() {
  ::sync();
  const char* path = "/proc/sys/vm/drop_caches";
  int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(path, errno);
  ssize_t r;
  do {
    r = ::write(fd, "3", 1);
  } while (r < 0 && errno == EINTR);
  const int err = errno;
  ::close(fd);
  if (r != 1) return Status::FromErrno(std::string("write 3 to ") + path, err);
  return Status::OK();
}

}  // namespace tools
}  // namespace kudu
