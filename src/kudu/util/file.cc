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

#include "kudu/util/file.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "kudu/util/deferred_close.h"
#include "kudu/util/env.h"
#include "kudu/util/io_fault_injector.h"
#include "kudu/util/zero_rule.h"

namespace kudu {
namespace {

std::atomic<uint64_t> g_read_syscalls{0};
std::atomic<uint64_t> g_bytes_read{0};

std::string OffsetContext(const std::string& path, const char* op, uint64_t offset, size_t n) {
  return path + ": " + op + " of " + std::to_string(n) + " bytes at offset " +
         std::to_string(offset);
}

// Applies an injected read fault to the request size. Returns -1 with errno
// set when the call must fail outright.
ssize_t FaultedLength(IoFault fault, size_t want) {
  switch (fault) {
    case IoFault::kNone: return static_cast<ssize_t>(want);
    case IoFault::kEIO: errno = EIO; return -1;
    case IoFault::kShortRead: return static_cast<ssize_t>(want > 1 ? want / 2 : want);
    case IoFault::kUnexpectedEof: return 0;
  }
  return static_cast<ssize_t>(want);
}

// openat(2) of `name` in `dir_fd` (AT_FDCWD with the whole path as name),
// retried on EINTR, then the size; the fd is closed on failure. Errors name
// `path`.
Status OpenAndStat(int dir_fd, const char* name, const std::string& path, int flags, int* fd_out,
                   uint64_t* size, struct stat* st_out = nullptr,
                   env::FileAttributes* attrs_out = nullptr) {
  int fd;
  do {
    fd = ::openat(dir_fd, name, flags, 0644);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return Status::FromErrno(path, errno);
  struct stat st;
  env::FileAttributes attrs;
  if (env::StatAt(fd, "", AT_EMPTY_PATH, &st, &attrs) != 0) {
    int err = errno;
    ::close(fd);
    return Status::FromErrno(path, err);
  }
  if (attrs_out != nullptr) *attrs_out = attrs;
  // The path may have been swapped for a FIFO or device since it was
  // listed: O_NONBLOCK kept the open from blocking, and nothing but a
  // regular file is read.
  if ((flags & O_ACCMODE) == O_RDONLY && !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::IllegalState(path + ": not a regular file");
  }
  *fd_out = fd;
  *size = static_cast<uint64_t>(st.st_size);
  if (st_out != nullptr) *st_out = st;
  return Status::OK();
}

}  // namespace

uint64_t GlobalReadSyscalls() { return g_read_syscalls.load(); }
uint64_t GlobalBytesRead() { return g_bytes_read.load(); }

Status RandomAccessFile::Open(const std::string& path, const ServerKey* server_key,
                              std::unique_ptr<RandomAccessFile>* file) {
  return OpenAt(AT_FDCWD, path, server_key, file);
}

Status RandomAccessFile::OpenAt(int dir_fd, const std::string& path, const ServerKey* server_key,
                                std::unique_ptr<RandomAccessFile>* file) {
  const char* name = path.c_str();
  if (dir_fd != AT_FDCWD) {
    // memrchr, not std::string::rfind, which steps back a byte at a time:
    // this runs once per container open.
    const void* slash = ::memrchr(path.data(), '/', path.size());
    if (slash != nullptr) name = static_cast<const char*>(slash) + 1;
  }
  int fd;
  uint64_t size;
  RETURN_NOT_OK(OpenAndStat(dir_fd, name, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, &fd, &size));
  return FromOpenFd(fd, path, size, server_key, file);
}

Status RandomAccessFile::OpenDescriptorAt(int dir_fd, const char* name, const std::string& path,
                                          int* fd, struct stat* st, env::FileAttributes* attrs) {
  uint64_t size;
  return OpenAndStat(dir_fd, name, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, fd,
                     &size, st, attrs);
}

Status RandomAccessFile::FromOpenFd(int fd, const std::string& path, uint64_t size,
                                    const ServerKey* server_key,
                                    std::unique_ptr<RandomAccessFile>* file) {
  std::unique_ptr<RandomAccessFile> f(new RandomAccessFile(path, fd, size));
  if (server_key != nullptr && !server_key->empty()) {
    if (f->size_ < kEncryptionHeaderSize) {
      return Status::Corruption(path + ": file of " + std::to_string(f->size_) +
                                " bytes is too short for its 64-byte encryption header");
    }
    uint8_t header[kEncryptionHeaderSize];
    RETURN_NOT_OK(f->PreadFully(0, header, sizeof(header)));
    CipherAlgorithm alg;
    std::string file_key;
    RETURN_NOT_OK(ParseEncryptionHeader(path, Slice(header, sizeof(header)), *server_key, &alg,
                                        &file_key));
    RETURN_NOT_OK_PREPEND(FileCipher::Create(alg, file_key, &f->cipher_), path);
  }
  *file = std::move(f);
  return Status::OK();
}

RandomAccessFile::~RandomAccessFile() {
  if (closer_ != nullptr) {
    closer_->Close(fd_);
  } else {
    ::close(fd_);
  }
}

void RandomAccessFile::CountReadSyscall() {
  stats_.read_syscalls++;
  g_read_syscalls.fetch_add(1, std::memory_order_relaxed);
}

void RandomAccessFile::CountBytesRead(size_t n) {
  stats_.bytes_read += n;
  g_bytes_read.fetch_add(n, std::memory_order_relaxed);
}

Status RandomAccessFile::EndedEarly(uint64_t offset, size_t n, uint64_t got) const {
  return Status::IOError(OffsetContext(filename_, "read", offset, n),
                         "file ended after " + std::to_string(got) + " bytes");
}

Status RandomAccessFile::PreadFully(uint64_t offset, uint8_t* buf, size_t n, bool cached_first) {
  uint64_t pos = offset;
  size_t left = n;
  bool probe = cached_first && n > 0;
  while (left > 0) {
    IoFault fault = IoFaultInjector::OnCall(IoOp::kRead, filename_);
    ssize_t want = FaultedLength(fault, left);
    ssize_t r;
    if (want < 0) {
      r = -1;
    } else if (want == 0) {
      r = 0;
    } else if (probe) {
      struct iovec iov = {buf, static_cast<size_t>(want)};
      r = ::preadv2(fd_, &iov, 1, static_cast<off_t>(pos), RWF_NOWAIT);
    } else {
      r = ::pread(fd_, buf, static_cast<size_t>(want), static_cast<off_t>(pos));
    }
    CountReadSyscall();
    if (probe) {
      probe = false;
      const bool hit = r == static_cast<ssize_t>(left);
      (hit ? stats_.cache_probe_hits : stats_.cache_probe_misses)++;
      // Nothing cached (EAGAIN), or a filesystem that cannot say: read it.
      if (r < 0 && fault == IoFault::kNone && (errno == EAGAIN || errno == EOPNOTSUPP)) continue;
    }
    if (r < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno(OffsetContext(filename_, "read", offset, n), errno);
    }
    if (r == 0) {
      return EndedEarly(offset, n, pos - offset);
    }
    CountBytesRead(static_cast<size_t>(r));
    buf += r;
    pos += r;
    left -= r;
  }
  return Status::OK();
}

Status RandomAccessFile::ReadRaw(uint64_t offset, uint8_t* buf, size_t n) {
  return PreadFully(offset, buf, n);
}

Status RandomAccessFile::ReadRawCachedFirst(uint64_t offset, uint8_t* buf, size_t n) {
  return PreadFully(offset, buf, n, /*cached_first=*/true);
}

Status RandomAccessFile::Read(uint64_t offset, uint8_t* buf, size_t n) {
  RETURN_NOT_OK(PreadFully(offset, buf, n));
  if (cipher_) {
    RETURN_NOT_OK_PREPEND(DecryptReadInPlace(cipher_.get(), offset, buf, n), filename_);
  }
  return Status::OK();
}

namespace {

// The kernel caps one WILLNEED at the device's readahead window
// (force_page_cache_ra: max(read_ahead_kb, max_sectors_kb)): a single call
// for 32 MiB leaves all but the first window unread.
void AdviseWillNeed(int fd, uint64_t offset, uint64_t end) {
  for (uint64_t o = offset; o < end; o += RandomAccessFile::kPrefetchChunkBytes) {
    ::posix_fadvise(fd, static_cast<off_t>(o),
                    static_cast<off_t>(std::min(RandomAccessFile::kPrefetchChunkBytes, end - o)),
                    POSIX_FADV_WILLNEED);
  }
}

}  // namespace

void RandomAccessFile::Prefetch(uint64_t offset, uint64_t len) {
  const uint64_t end = len > size_ - std::min(offset, size_) ? size_ : offset + len;
  AdviseWillNeed(fd_, offset, end);
}

Status RandomAccessFile::PrefetchPath(const std::string& path, uint64_t len) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return Status::FromErrno(path, errno);
  PrefetchFd(fd, len);
  ::close(fd);
  return Status::OK();
}

void RandomAccessFile::PrefetchFd(int fd, uint64_t len) { AdviseWillNeed(fd, 0, len); }

int64_t RandomAccessFile::CachedBytesQuick() const {
#ifdef __NR_cachestat
  constexpr long kCachestat = __NR_cachestat;
#else
  constexpr long kCachestat = 451;  // x86-64 and the asm-generic table (glibc headers before 2.39 lack it)
#endif
  struct {
    uint64_t off, len;  // len 0: to the end of the file
  } range{0, 0};
  struct {
    uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
  } cs{};
  if (::syscall(kCachestat, fd_, &range, &cs, 0) != 0) return -1;
  const long page = ::sysconf(_SC_PAGESIZE);
  return std::min<int64_t>(static_cast<int64_t>(cs.nr_cache) * page, static_cast<int64_t>(size_));
}

Status RandomAccessFile::ReadRawDirect(uint8_t* buf, size_t n, bool* direct) {
  *direct = false;
  if (n == 0) return Status::OK();
  // Reopened through /proc/self/fd only, so it is the same inode even if
  // the path was replaced since Open. Never by path: a file renamed over
  // it would be read in place of the one listed. Without /proc, or where
  // the filesystem refuses O_DIRECT, a normal read of the held descriptor.
  const std::string same_file = "/proc/self/fd/" + std::to_string(fd_);
  int dfd = -1;
  do {
    dfd = ::open(same_file.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  } while (dfd < 0 && errno == EINTR);
  if (dfd < 0) return PreadFully(0, buf, n);
  const size_t capacity = DirectReadCapacity(n);
  size_t done = 0;
  Status s;
  while (done < n) {
    IoFault fault = IoFaultInjector::OnCall(IoOp::kRead, filename_);
    const ssize_t want = FaultedLength(fault, capacity - done);
    ssize_t r;
    if (want <= 0) {
      r = want;
    } else {
      // Always the aligned length O_DIRECT needs; an injected short read
      // is the kernel reading more and the caller seeing less.
      r = ::pread(dfd, buf + done, capacity - done, static_cast<off_t>(done));
      if (r > want) r = want;
    }
    CountReadSyscall();
    if (r < 0) {
      if (errno == EINTR) continue;
      if (errno == EINVAL && done == 0 && fault == IoFault::kNone) break;  // refused at the first read
      s = Status::FromErrno(OffsetContext(filename_, "read", done, n - done), errno);
      break;
    }
    if (r == 0) {
      s = EndedEarly(0, n, done);
      break;
    }
    const size_t useful = std::min<size_t>(static_cast<size_t>(r), n - done);
    stats_.direct_reads++;
    CountBytesRead(useful);
    done += useful;
    *direct = true;
    // O_DIRECT needs aligned offsets: after a short read, finish normally.
    if (done < n && done % kDirectReadAlignment != 0) break;
  }
  ::close(dfd);
  if (!s.ok()) return s;
  if (done < n) return PreadFully(done, buf + done, n - done);
  return Status::OK();
}

uint64_t RandomAccessFile::DataOffsetAtOrAfter(uint64_t offset) const {
  if (offset >= size_) return size_;
  const off_t data = ::lseek(fd_, static_cast<off_t>(offset), SEEK_DATA);
  if (data < 0) {
    // ENXIO: no data from `offset` to the end of the file.
    return errno == ENXIO ? size_ : offset;
  }
  return std::min<uint64_t>(static_cast<uint64_t>(data), size_);
}

// ---------------------------------------------------------------------------

Status WritableFile::Open(const std::string& path, CreateMode mode, const WriteEncryption& enc,
                          std::unique_ptr<WritableFile>* file) {
  int flags = O_RDWR | O_CLOEXEC;
  switch (mode) {
    case CreateMode::kCreateNew: flags |= O_CREAT | O_EXCL; break;
    case CreateMode::kTruncate: flags |= O_CREAT | O_TRUNC; break;
    case CreateMode::kOpenExisting: break;
  }
  int fd;
  uint64_t size;
  RETURN_NOT_OK(OpenAndStat(AT_FDCWD, path.c_str(), path, flags, &fd, &size));
  if (mode != CreateMode::kOpenExisting) {
    IoRecorder::Note(IoRecord::Kind::kCreate, path, 0, 0, mode == CreateMode::kTruncate);
  }
  std::unique_ptr<WritableFile> f(new WritableFile(path, fd, size));
  if (enc.server_key == nullptr || enc.server_key->empty()) {
    *file = std::move(f);
    return Status::OK();
  }
  if (mode == CreateMode::kOpenExisting && f->size_ > 0) {
    uint8_t header[kEncryptionHeaderSize];
    ssize_t r = ::pread(fd, header, sizeof(header), 0);
    if (r != static_cast<ssize_t>(sizeof(header))) {
      return Status::Corruption(path + ": cannot read its 64-byte encryption header");
    }
    CipherAlgorithm alg;
    std::string key;
    RETURN_NOT_OK(ParseEncryptionHeader(path, Slice(header, sizeof(header)), *enc.server_key,
                                        &alg, &key));
    RETURN_NOT_OK_PREPEND(FileCipher::Create(alg, key, &f->cipher_), path);
  } else {
    std::string key = enc.file_key;
    if (key.empty()) RETURN_NOT_OK(GenerateFileKey(enc.algorithm, &key));
    std::string header;
    RETURN_NOT_OK_PREPEND(BuildEncryptionHeader(enc.algorithm, key, *enc.server_key, &header), path);
    RETURN_NOT_OK_PREPEND(FileCipher::Create(enc.algorithm, key, &f->cipher_), path);
    // The header is written in the clear, by the raw path.
    RETURN_NOT_OK(f->PwriteFully(0, reinterpret_cast<const uint8_t*>(header.data()), header.size()));
    f->size_ = std::max<uint64_t>(f->size_, header.size());
  }
  *file = std::move(f);
  return Status::OK();
}

WritableFile::~WritableFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status WritableFile::PwriteFully(uint64_t offset, const uint8_t* data, size_t n) {
  uint64_t pos = offset;
  while (n > 0) {
    IoFault fault = IoFaultInjector::OnCall(IoOp::kWrite, filename_);
    ssize_t r;
    if (fault == IoFault::kEIO) {
      errno = EIO;
      r = -1;
    } else {
      r = ::pwrite(fd_, data, n, static_cast<off_t>(pos));
    }
    stats_.write_syscalls++;
    if (r < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno(OffsetContext(filename_, "write", offset, n), errno);
    }
    IoRecorder::NoteWrite(filename_, pos, data, static_cast<size_t>(r));
    stats_.bytes_written += r;
    data += r;
    pos += r;
    n -= r;
  }
  return Status::OK();
}

Status WritableFile::Write(uint64_t offset, Slice data) {
  if (offset < encryption_header_size()) {
    return Status::InvalidArgument(filename_ + ": write at offset " + std::to_string(offset) +
                                   " would overwrite the encryption header");
  }
  const uint8_t* src = data.data();
  if (cipher_) {
    scratch_.resize(data.size());
    auto* dst = reinterpret_cast<uint8_t*>(&scratch_[0]);
    RETURN_NOT_OK_PREPEND(cipher_->Crypt(offset, data.data(), dst, data.size()), filename_);
    src = dst;
  }
  RETURN_NOT_OK(PwriteFully(offset, src, data.size()));
  size_ = std::max<uint64_t>(size_, offset + data.size());
  return Status::OK();
}

Status WritableFile::Sync() {
  if (IoFaultInjector::OnCall(IoOp::kSync, filename_) == IoFault::kEIO) {
    return Status::FromErrno(filename_ + ": fsync", EIO);
  }
  if (::fdatasync(fd_) != 0) return Status::FromErrno(filename_ + ": fsync", errno);
  IoRecorder::Note(IoRecord::Kind::kSyncFile, filename_);
  return Status::OK();
}

Status WritableFile::Truncate(uint64_t size) {
  if (IoFaultInjector::OnCall(IoOp::kTruncate, filename_) == IoFault::kEIO) {
    return Status::FromErrno(filename_ + ": truncate to " + std::to_string(size), EIO);
  }
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) {
    return Status::FromErrno(filename_ + ": truncate to " + std::to_string(size), errno);
  }
  IoRecorder::Note(IoRecord::Kind::kTruncate, filename_, size);
  size_ = size;
  return Status::OK();
}

Status WritableFile::PunchHole(uint64_t offset, uint64_t len) {
  if (len == 0) return Status::OK();
  if (::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                  static_cast<off_t>(len)) != 0) {
    // Filesystems without hole punching keep the bytes; that costs space only.
    if (errno == EOPNOTSUPP) return Status::OK();
    return Status::FromErrno(filename_ + ": punch hole at offset " + std::to_string(offset), errno);
  }
  IoRecorder::Note(IoRecord::Kind::kPunchHole, filename_, offset, len);
  return Status::OK();
}

Status WritableFile::Close() {
  if (fd_ < 0) return Status::OK();
  int r = ::close(fd_);
  fd_ = -1;
  if (r != 0) return Status::FromErrno(filename_ + ": close", errno);
  return Status::OK();
}

}  // namespace kudu
