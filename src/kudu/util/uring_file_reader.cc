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

#include "kudu/util/uring_file_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>

#include "kudu/util/io_fault_injector.h"

#ifdef KUDU_HAVE_LIBURING
#include <liburing.h>
#endif

namespace kudu {
namespace {
std::atomic<uint64_t> g_uring_reads{0};
}  // namespace

uint64_t GlobalUringReads() { return g_uring_reads.load(); }

#ifdef KUDU_HAVE_LIBURING

struct UringFileReader::Impl {
  struct io_uring ring;
  unsigned queued = 0;  // prepared, not yet submitted
};

bool UringFileReader::Available() {
  static const bool available = [] {
    struct io_uring ring;
    if (io_uring_queue_init(2, &ring, 0) != 0) return false;
    io_uring_queue_exit(&ring);
    return true;
  }();
  return available;
}

UringFileReader::UringFileReader(unsigned capacity) : capacity_(capacity), impl_(new Impl()) {}

Status UringFileReader::Create(unsigned queue_depth, std::unique_ptr<UringFileReader>* out) {
  if (queue_depth == 0) queue_depth = 1;
  std::unique_ptr<UringFileReader> r(new UringFileReader(queue_depth));
  const int err = io_uring_queue_init(queue_depth, &r->impl_->ring, 0);
  if (err != 0) {
    r->impl_.reset();
    return Status::FromErrno("io_uring_queue_init", -err);
  }
  r->fds_.assign(queue_depth, -1);
  r->tags_.assign(queue_depth, 0);
  for (unsigned i = queue_depth; i > 0; i--) r->free_slots_.push_back(i - 1);
  *out = std::move(r);
  return Status::OK();
}

UringFileReader::~UringFileReader() {
  if (!impl_) return;
  Completion c;
  while (Wait(&c)) {
  }
  io_uring_queue_exit(&impl_->ring);
}

Status UringFileReader::Submit(const std::string& path, uint64_t offset, uint8_t* buf, size_t n,
                               uint64_t tag) {
  if (free_slots_.empty()) return Status::IOError(path + ": read-ahead queue full");
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return Status::FromErrno(path, errno);
  // The read (not the open) is what the injector sees, as for a pread.
  const IoFault fault = IoFaultInjector::OnCall(IoOp::kRead, path);
  g_uring_reads.fetch_add(1, std::memory_order_relaxed);
  if (fault == IoFault::kEIO || fault == IoFault::kUnexpectedEof) {
    ::close(fd);
    synthetic_.push_back(Completion{tag, fault == IoFault::kEIO ? -EIO : 0});
    pending_++;
    return Status::OK();
  }
  if (fault == IoFault::kShortRead && n > 1) n /= 2;
  struct io_uring_sqe* sqe = io_uring_get_sqe(&impl_->ring);
  if (sqe == nullptr) {
    // The SQ is full of prepared entries: hand them over and retry once.
    Flush();
    sqe = io_uring_get_sqe(&impl_->ring);
  }
  if (sqe == nullptr) {
    ::close(fd);
    return Status::IOError(path + ": no io_uring submission entry");
  }
  const unsigned slot = free_slots_.back();
  free_slots_.pop_back();
  fds_[slot] = fd;
  tags_[slot] = tag;
  io_uring_prep_read(sqe, fd, buf, static_cast<unsigned>(n), offset);
  io_uring_sqe_set_data64(sqe, slot);
  impl_->queued++;
  pending_++;
  return Status::OK();
}

void UringFileReader::Flush() {
  while (impl_->queued > 0) {
    const int r = io_uring_submit(&impl_->ring);
    if (r > 0) {
      impl_->queued -= std::min<unsigned>(impl_->queued, static_cast<unsigned>(r));
    } else if (r != -EINTR && r != -EAGAIN && r != -EBUSY) {
      break;  // nothing more can be submitted; Wait() will find the entries stuck
    }
  }
}

bool UringFileReader::Reap(Completion* c, bool wait) {
  if (!synthetic_.empty()) {
    *c = synthetic_.front();
    synthetic_.pop_front();
    pending_--;
    return true;
  }
  if (pending_ == 0) return false;
  Flush();
  struct io_uring_cqe* cqe = nullptr;
  int r;
  do {
    r = wait ? io_uring_wait_cqe(&impl_->ring, &cqe) : io_uring_peek_cqe(&impl_->ring, &cqe);
  } while (r == -EINTR && wait);
  if (r != 0 || cqe == nullptr) return false;
  const unsigned slot = static_cast<unsigned>(io_uring_cqe_get_data64(cqe));
  c->tag = tags_[slot];
  c->result = cqe->res;
  io_uring_cqe_seen(&impl_->ring, cqe);
  ::close(fds_[slot]);
  fds_[slot] = -1;
  free_slots_.push_back(slot);
  pending_--;
  return true;
}

bool UringFileReader::Wait(Completion* c) { return Reap(c, true); }
bool UringFileReader::Poll(Completion* c) { return Reap(c, false); }

#else  // !KUDU_HAVE_LIBURING

struct UringFileReader::Impl {};

bool UringFileReader::Available() { return false; }
UringFileReader::UringFileReader(unsigned capacity) : capacity_(capacity) {}
UringFileReader::~UringFileReader() = default;
Status UringFileReader::Create(unsigned, std::unique_ptr<UringFileReader>*) {
  return Status::NotSupported("built without liburing");
}
Status UringFileReader::Submit(const std::string& path, uint64_t, uint8_t*, size_t, uint64_t) {
  return Status::NotSupported(path + ": built without liburing");
}
void UringFileReader::Flush() {}
bool UringFileReader::Reap(Completion*, bool) { return false; }
bool UringFileReader::Wait(Completion* c) { return Reap(c, true); }
bool UringFileReader::Poll(Completion* c) { return Reap(c, false); }

#endif  // KUDU_HAVE_LIBURING

}  // namespace kudu
