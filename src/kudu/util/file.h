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

// The file layer: the only code in the project that issues file I/O system
// calls. Every read goes through RandomAccessFile so that (a) read syscalls
// and bytes are counted per file and process-wide, which is how the replay
// statistics and the benchmark report exact figures, and (b) faults can be
// injected in one place (io_fault_injector.h). Encrypted files are decrypted
// here for the reference path; the whole-file strategies ask for raw
// ciphertext and decrypt it themselves.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <string>

#include "kudu/util/deferred_close.h"
#include "kudu/util/encryption.h"
#include "kudu/util/env.h"
#include "kudu/util/slice.h"
#include "kudu/util/status.h"

namespace kudu {

struct FileIoStats {
  uint64_t read_syscalls = 0;
  uint64_t bytes_read = 0;
  uint64_t write_syscalls = 0;
  uint64_t bytes_written = 0;
  // Of read_syscalls, the reads that bypassed the page cache (O_DIRECT).
  uint64_t direct_reads = 0;
  // ReadRawCachedFirst calls that found every byte in the page cache, and
  // those that did not.
  uint64_t cache_probe_hits = 0;
  uint64_t cache_probe_misses = 0;
};

// Process-wide totals of the read system calls the file layer issued, for
// cross-checking against `strace -c`.
uint64_t GlobalReadSyscalls();
uint64_t GlobalBytesRead();

class RandomAccessFile {
 public:
  // Opens `path` for reading. With a server key the file must carry the
  // 64-byte encryption header (read and checked here, one read syscall);
  // a plain file costs no read here (the container reader recognises an
  // encrypted file opened without a key by its magic).
  static Status Open(const std::string& path, const ServerKey* server_key,
                     std::unique_ptr<RandomAccessFile>* file);
  // The same, the file found by the last component of `path` in the
  // directory open as `dir_fd` (which must be `path`'s directory;
  // AT_FDCWD: `path` as given): one name looked up instead of every
  // component, for a caller that opens thousands of files in one directory.
  // The file keeps `path` as its name.
  static Status OpenAt(int dir_fd, const std::string& path, const ServerKey* server_key,
                       std::unique_ptr<RandomAccessFile>* file);
  // Opens the regular file `name` in `dir_fd` for reading later
  // (FromOpenFd) and learns its stat: for a caller that needs the sizes of
  // thousands of files before it reads them, and would otherwise stat each
  // by name and then look the name up again to open it. A symlink is not
  // followed (ELOOP) and anything but a regular file is refused
  // (IllegalState) without blocking on it; errors name `path`.
  // With `attrs`: what statx says beyond the stat (env::StatAt).
  static Status OpenDescriptorAt(int dir_fd, const char* name, const std::string& path, int* fd,
                                 struct stat* st, env::FileAttributes* attrs = nullptr);
  // A file over `fd` (from OpenDescriptorAt; taken: closed with the file, or
  // here on failure) of `size` bytes, named `path`; with a server key its
  // encryption header is read and checked, as Open does.
  static Status FromOpenFd(int fd, const std::string& path, uint64_t size,
                           const ServerKey* server_key, std::unique_ptr<RandomAccessFile>* file);
  ~RandomAccessFile();
  RandomAccessFile(const RandomAccessFile&) = delete;
  RandomAccessFile& operator=(const RandomAccessFile&) = delete;

  // Reads exactly `n` bytes at raw file offset `offset` (header included),
  // looping on short reads. An encrypted file's bytes are decrypted as one
  // read under the all-zero rule. Fails with IOError naming the file and
  // offset if the file ends first.
  Status Read(uint64_t offset, uint8_t* buf, size_t n);
  // The bytes as on disk (ciphertext for an encrypted file).
  Status ReadRaw(uint64_t offset, uint8_t* buf, size_t n);
  // ReadRaw, whose first read system call takes only what the page cache
  // holds (preadv2 RWF_NOWAIT); whatever it did not get is then read as
  // usual. The same bytes, and, when the file is cached, the same one
  // call: what it adds is the answer to "was it all cached?"
  // (cache_probe_hits / cache_probe_misses), one more call when not.
  Status ReadRawCachedFirst(uint64_t offset, uint8_t* buf, size_t n);

  // Asks the kernel to start reading [offset, offset+len) into the page cache
  // (posix_fadvise WILLNEED, which readahead(2) is the same as), without
  // waiting. Not a read: nothing is counted and the fault injector is not
  // asked. One WILLNEED reads at most the device's readahead window, so
  // longer ranges are advised in chunks of kPrefetchChunkBytes.
  void Prefetch(uint64_t offset, uint64_t len);
  // The same for the first `len` bytes of the file at `path`, without a
  // RandomAccessFile: an open, the advice and a close, and no stat (the
  // caller knows how much of the file it wants, and advice past the end of
  // a file, or on a file that is not regular, reads nothing).
  static Status PrefetchPath(const std::string& path, uint64_t len);
  // The same for the first `len` bytes of a file already open as `fd`,
  // which stays open and is not read from.
  static void PrefetchFd(int fd, uint64_t len);
  static constexpr uint64_t kPrefetchChunkBytes = 128 << 10;  // the kernel's default window
  // The first raw offset at or after `offset` that may hold data
  // (lseek SEEK_DATA): [offset, result) is a hole, which reads as zeros
  // without being read. size() when only a hole follows. `offset` itself
  // where the filesystem cannot tell or the call fails: the bytes are then
  // simply read. Not a read: not counted, the fault injector is not asked.
  uint64_t DataOffsetAtOrAfter(uint64_t offset) const;
  // Bytes of the file in the page cache now, from one cachestat(2) call
  // (Linux >= 6.5; not a read, no mapping): cheap enough to ask before every
  // large read. -1 where the kernel does not have it.
  int64_t CachedBytesQuick() const;

  // Reads raw [0, n) (n <= size()) past the page cache: O_DIRECT, on a
  // second descriptor opened for this read (the same inode, through
  // /proc/self/fd), straight into `buf`, which must
  // be aligned to kDirectReadAlignment and hold DirectReadCapacity(n) bytes.
  // No copy out of the page cache, and the cache is not filled with bytes
  // that are read once. Each pread is counted and asks the fault injector
  // like any read. Where the filesystem refuses O_DIRECT (tmpfs: EINVAL at
  // open or at the first read) it reads normally and sets *direct = false;
  // a read that stops short of an aligned offset (an injected short read,
  // a file that changed) is finished normally.
  Status ReadRawDirect(uint8_t* buf, size_t n, bool* direct);
  static constexpr size_t kDirectReadAlignment = 4096;
  static size_t DirectReadCapacity(size_t n) {
    return (n + kDirectReadAlignment - 1) / kDirectReadAlignment * kDirectReadAlignment;
  }

  const std::string& filename() const { return filename_; }
  // Raw size on disk, header included (fixed at open).
  uint64_t size() const { return size_; }
  size_t encryption_header_size() const { return cipher_ ? kEncryptionHeaderSize : 0; }
  bool encrypted() const { return cipher_ != nullptr; }
  // The file's cipher, or null for a plain file.
  FileCipher* cipher() const { return cipher_.get(); }
  const FileIoStats& stats() const { return stats_; }
  int fd() const { return fd_; }
  // Hands the descriptor to `closer` when the file is destroyed instead of
  // closing it then: for a caller that opens and reads thousands of files
  // in a burst and closes them a batch at a time.
  void CloseWith(DeferredCloser* closer) { closer_ = closer; }

 private:
  RandomAccessFile(std::string filename, int fd, uint64_t size)
      : filename_(std::move(filename)), fd_(fd), size_(size) {}
  // `cached_first`: the first call is RWF_NOWAIT (ReadRawCachedFirst).
  Status PreadFully(uint64_t offset, uint8_t* buf, size_t n, bool cached_first = false);
  // The accounting and the early-end error every read path shares, so that
  // the counts agree with `strace -c` whichever path read.
  void CountReadSyscall();
  void CountBytesRead(size_t n);
  Status EndedEarly(uint64_t offset, size_t n, uint64_t got) const;

  const std::string filename_;
  const int fd_;
  const uint64_t size_;
  std::unique_ptr<FileCipher> cipher_;
  FileIoStats stats_;
  DeferredCloser* closer_ = nullptr;
};

// How a writable file is opened.
enum class CreateMode {
  kCreateNew,     // fail if it exists (O_EXCL)
  kTruncate,      // create or truncate to empty
  kOpenExisting,  // must exist; keeps its contents
};

// Encryption for a new writable file: with a server key the file gets a fresh
// header wrapping `file_key` (random when empty).
struct WriteEncryption {
  const ServerKey* server_key = nullptr;
  CipherAlgorithm algorithm = CipherAlgorithm::kAes128Ctr;
  std::string file_key;
};

class WritableFile {
 public:
  // For kOpenExisting on an encrypted file, `enc.server_key` unwraps the key
  // from the existing header.
  static Status Open(const std::string& path, CreateMode mode, const WriteEncryption& enc,
                     std::unique_ptr<WritableFile>* file);
  ~WritableFile();
  WritableFile(const WritableFile&) = delete;
  WritableFile& operator=(const WritableFile&) = delete;

  // Writes `data` at raw offset `offset` (encrypting a copy when encrypted).
  Status Write(uint64_t offset, Slice data);
  Status Append(Slice data) { return Write(size_, data); }
  Status Sync();
  Status Truncate(uint64_t size);
  // Frees the space of [offset, offset+len) (hole punching, as Kudu does for
  // deleted blocks); the size is unchanged.
  Status PunchHole(uint64_t offset, uint64_t len);
  Status Close();

  const std::string& filename() const { return filename_; }
  uint64_t size() const { return size_; }
  size_t encryption_header_size() const { return cipher_ ? kEncryptionHeaderSize : 0; }
  const FileIoStats& stats() const { return stats_; }

 private:
  WritableFile(std::string filename, int fd, uint64_t size)
      : filename_(std::move(filename)), fd_(fd), size_(size) {}
  Status PwriteFully(uint64_t offset, const uint8_t* data, size_t n);

  const std::string filename_;
  int fd_;
  uint64_t size_;
  std::unique_ptr<FileCipher> cipher_;
  std::string scratch_;  // ciphertext staging, reused across writes
  FileIoStats stats_;
};

}  // namespace kudu
