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

// How the in-memory strategies read a metadata file: whole, in one read,
// either through the page cache or past it (O_DIRECT).
//
// A tablet server reads each container's metadata once, at startup. After a
// reboot none of it is in the page cache, and a normal read makes the kernel
// fill the cache and then copy every byte out of it: CPU on the open's
// critical path (docs/benchmarks.md has the cost per MiB) for pages nobody
// reads again. Read
// with O_DIRECT the device writes straight into the replay buffer. When the
// file is already cached (a process restart, or the fadvise read-ahead of
// the open got to it first) the normal read is a copy from memory and
// cheaper than going to the device, so the default reads past the cache
// only what cachestat(2) says is not all in it. Either way it is one read
// system call of the same bytes: what the replay sees cannot differ.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>

#include "kudu/util/file.h"
#include "kudu/util/status.h"

namespace kudu {
namespace fs {

enum class DirectReadMode {
  kNever,   // always through the page cache
  kCold,    // past it when the file is large and not all cached (default)
  kAlways,  // past it whenever the filesystem allows, cached or not
};

// Parses --log_container_metadata_replay_direct_io ("cold", "always", "never").
Status ParseDirectReadMode(const std::string& name, DirectReadMode* mode);
const char* DirectReadModeName(DirectReadMode mode);

// Files smaller than this are read through the page cache even when cold:
// the copy it saves is small next to the device's latency, and the many
// small containers of a busy server are read ahead (fadvise) into the cache
// anyway, which the cache check would find.
constexpr uint64_t kMinDirectReadBytes = 256 * 1024;

// A replay buffer: bytes aligned for O_DIRECT, not zero-initialised; a
// small one from the aligned operator new, a large one page memory of its
// own (util/page_memory.h).
//
// A large one's pages go back to the kernel when it is freed: the
// allocator would keep them for its next use, and with several replay
// threads each freeing a file and reading one of another size, those kept
// pages added up to half again what the threads held at once
// (docs/benchmarks.md, "Memory that follows live blocks"). The next large
// buffer is mapped afresh, present before the read fills it, in huge pages
// where they are allowed, unless its thread kept one (ReadBufferCache).
constexpr size_t kReleasedReadBufferBytes = 4 << 20;

class ReadBufferCache;

struct ReadBufferDelete {
  size_t bytes = 0;  // the capacity allocated
  // Where a large buffer goes back to instead of the kernel (may be null).
  ReadBufferCache* cache = nullptr;
  void operator()(uint8_t* p) const;
};
using AlignedBytes = std::unique_ptr<uint8_t[], ReadBufferDelete>;

// One replay thread's large read buffer, kept from one file to the next.
//
// Mapped afresh for every file, a buffer's pages were zeroed by the kernel
// and then overwritten by the read: on a server of many 4-16 MiB metadata
// files that was a third of an open's system time, and the parse then
// started on memory no cache had seen (docs/benchmarks.md, "A replay
// thread keeps its buffer"). A buffer freed into its cache stays there,
// and the next file of the thread that fits is read into it; a larger one
// replaces it. Between files the buffer is trimmed to the next file's
// size, so the pages a thread keeps follow the file it reads, not the
// largest it has read. Not thread-safe: one per replay thread, whose
// ContainerReplayer counts the kept pages in the memory budget.
class ReadBufferCache {
 public:
  ReadBufferCache() = default;
  ~ReadBufferCache() { Clear(); }
  ReadBufferCache(const ReadBufferCache&) = delete;
  ReadBufferCache& operator=(const ReadBufferCache&) = delete;

  // The kept buffer's capacity; 0 when none is kept.
  size_t capacity() const { return capacity_; }
  // Gives back the kept buffer's pages past its first `bytes` (whole huge
  // pages), before a smaller file is read into it.
  void TrimTo(size_t bytes);
  // How much of the kept buffer may have pages: what its grant covers.
  size_t resident() const { return resident_; }
  // Gives the kept buffer's pages back (a lent one's when it comes back).
  void Clear();

 private:
  friend AlignedBytes AllocateReadBuffer(size_t capacity, ReadBufferCache* cache);
  friend struct ReadBufferDelete;
  // The kept buffer if it holds `capacity` bytes and is not lent, else null.
  uint8_t* Lend(size_t capacity);
  // Takes back `p` (its capacity `bytes`): the lent buffer, or one to keep
  // when none is kept yet. False when the caller must free `p` itself.
  bool TakeBack(uint8_t* p, size_t bytes);

  uint8_t* kept_ = nullptr;
  size_t capacity_ = 0;
  size_t resident_ = 0;  // at most this prefix of the kept buffer has pages
  bool lent_ = false;
  bool clear_on_return_ = false;
};

// At least `capacity` bytes, aligned to RandomAccessFile::kDirectReadAlignment.
// With a cache, a large buffer comes from it when the kept one is large
// enough, and goes back to it when freed.
AlignedBytes AllocateReadBuffer(size_t capacity, ReadBufferCache* cache = nullptr);

// Reads the raw bytes [from, size) of `file` into `*out` at the same
// offsets (allocated here, aligned, at least size bytes), choosing the path
// by `mode`; `*direct` says whether the page cache was bypassed. A read
// past the cache starts at offset 0 (O_DIRECT needs aligned offsets), so it
// reads [0, from) again: 64 bytes for an encrypted file's header. Errors
// name the file and offset, as every read of the file layer does.
// `cache` (may be null) lends and takes back the buffer (ReadBufferCache).
Status ReadWholeFile(RandomAccessFile* file, DirectReadMode mode, uint64_t from, AlignedBytes* out,
                     bool* direct, ReadBufferCache* cache = nullptr);

}  // namespace fs
}  // namespace kudu
