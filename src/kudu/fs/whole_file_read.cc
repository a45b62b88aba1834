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

#include "kudu/fs/whole_file_read.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <new>

#include "kudu/util/file.h"
#include "kudu/util/prefault.h"

namespace kudu {
namespace fs {

Status ParseDirectReadMode(const std::string& name, DirectReadMode* mode) {
  if (name == "cold") {
    *mode = DirectReadMode::kCold;
  } else if (name == "always") {
    *mode = DirectReadMode::kAlways;
  } else if (name == "never") {
    *mode = DirectReadMode::kNever;
  } else {
    return Status::InvalidArgument(
        "--log_container_metadata_replay_direct_io must be cold, always or never, got '" + name +
        "'");
  }
  return Status::OK();
}

const char* DirectReadModeName(DirectReadMode mode) {
  switch (mode) {
    case DirectReadMode::kNever: return "never";
    case DirectReadMode::kCold: return "cold";
    case DirectReadMode::kAlways: return "always";
  }
  return "?";
}

namespace {
constexpr std::align_val_t kReadBufferAlignment{RandomAccessFile::kDirectReadAlignment};
}  // namespace

void ReadBufferDelete::operator()(uint8_t* p) const {
  if (bytes >= kReleasedReadBufferBytes) {
    // Only whole pages inside the buffer: the allocator's own bookkeeping
    // is outside it. Its contents are dead.
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) / page * page;
    const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) / page * page;
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
  }
  ::operator delete[](p, kReadBufferAlignment);
}

AlignedBytes AllocateReadBuffer(size_t capacity) {
  AlignedBytes buf(new (kReadBufferAlignment) uint8_t[capacity], ReadBufferDelete{capacity});
  // A large buffer's pages went back to the kernel when the last one was
  // freed: one madvise makes them present, instead of a page fault per
  // 4 KiB inside the read that fills them.
  if (capacity >= kReleasedReadBufferBytes) PrefaultForWrite(buf.get(), capacity);
  return buf;
}

namespace {

bool ShouldReadPastCache(RandomAccessFile* file, DirectReadMode mode) {
  if (mode == DirectReadMode::kNever) return false;
  if (mode == DirectReadMode::kAlways) return true;
  if (file->size() < kMinDirectReadBytes) return false;
  const int64_t cached = file->CachedBytesQuick();
  // A kernel without cachestat: stay with the page cache, the safe default.
  return cached >= 0 && static_cast<uint64_t>(cached) < file->size();
}

}  // namespace

Status ReadWholeFile(RandomAccessFile* file, DirectReadMode mode, uint64_t from, AlignedBytes* out,
                     bool* direct) {
  const uint64_t size = file->size();
  const size_t capacity = RandomAccessFile::DirectReadCapacity(size ? size : 1);
  // Not zero-initialised: every byte the replay reads is overwritten by the read.
  *out = AllocateReadBuffer(capacity);
  *direct = false;
  if (ShouldReadPastCache(file, mode)) return file->ReadRawDirect(out->get(), size, direct);
  from = std::min(from, size);
  // Cached first: whether it was all in the page cache tells the open's
  // read-ahead whether it is worth its system calls (metadata_readahead.h).
  return file->ReadRawCachedFirst(from, out->get() + from, size - from);
}

}  // namespace fs
}  // namespace kudu
