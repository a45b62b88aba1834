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

#include <algorithm>
#include <cerrno>
#include <new>
#include <string>

#include "kudu/util/file.h"
#include "kudu/util/page_memory.h"

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
    if (cache != nullptr && cache->TakeBack(p, bytes)) return;
    PageMemoryFree(p, bytes);
  } else {
    ::operator delete[](p, kReadBufferAlignment);
  }
}

uint8_t* ReadBufferCache::Lend(size_t capacity) {
  if (kept_ == nullptr || lent_ || capacity_ < capacity) return nullptr;
  lent_ = true;
  resident_ = std::max(resident_, capacity);
  return kept_;
}

bool ReadBufferCache::TakeBack(uint8_t* p, size_t bytes) {
  if (p == kept_) {
    lent_ = false;
    if (clear_on_return_) Clear();
    return true;
  }
  if (kept_ != nullptr) return false;
  kept_ = p;
  capacity_ = bytes;
  resident_ = bytes;  // allocated present
  return true;
}

void ReadBufferCache::TrimTo(size_t bytes) {
  const size_t keep = std::min(capacity_, (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes);
  // Nothing past the huge page the file ends in: no system call.
  if (kept_ == nullptr || lent_ || resident_ <= keep) return;
  // Up to the buffer's end, not to resident_'s last whole huge page: a
  // buffer's last partial 2 MiB is small pages, which count too.
  PageMemoryReleaseTail(kept_, capacity_, bytes);
  // The huge page the file ends in stays whole.
  resident_ = keep;
}

void ReadBufferCache::Clear() {
  if (kept_ == nullptr) return;
  // A lent buffer is still being read from: it goes when it comes back.
  if (lent_) {
    clear_on_return_ = true;
    return;
  }
  PageMemoryFree(kept_, capacity_);
  kept_ = nullptr;
  capacity_ = 0;
  resident_ = 0;
  clear_on_return_ = false;
}

AlignedBytes AllocateReadBuffer(size_t capacity, ReadBufferCache* cache) {
  if (capacity >= kReleasedReadBufferBytes) {
    if (cache != nullptr) {
      if (uint8_t* kept = cache->Lend(capacity)) {
        return AlignedBytes(kept, ReadBufferDelete{cache->capacity(), cache});
      }
      // Too small for this file: its pages go before the larger buffer's
      // come, so the thread never holds both. A lent one stays kept.
      if (!cache->lent_) cache->Clear();
    }
    return AlignedBytes(static_cast<uint8_t*>(PageMemoryAllocate(capacity)),
                        ReadBufferDelete{capacity, cache});
  }
  return AlignedBytes(new (kReadBufferAlignment) uint8_t[capacity], ReadBufferDelete{capacity});
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
                     bool* direct, ReadBufferCache* cache) {
  const uint64_t size = file->size();
  const size_t capacity = RandomAccessFile::DirectReadCapacity(size ? size : 1);
  // Not zero-initialised: every byte the replay reads is overwritten by the read.
  // A buffer the process cannot have is this strategy's failure, not the
  // open's: the replayer falls back to Streaming, whose buffers are small.
  try {
    *out = AllocateReadBuffer(capacity, cache);
  } catch (const std::bad_alloc&) {
    return Status::IOError(file->filename() + ": cannot allocate " + std::to_string(capacity) +
                           " bytes to read the whole file", "", ENOMEM);
  }
  *direct = false;
  if (ShouldReadPastCache(file, mode)) return file->ReadRawDirect(out->get(), size, direct);
  from = std::min(from, size);
  // Cached first: whether it was all in the page cache tells the open's
  // read-ahead whether it is worth its system calls (metadata_readahead.h).
  return file->ReadRawCachedFirst(from, out->get() + from, size - from);
}

}  // namespace fs
}  // namespace kudu
