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

// A PbContainerRecordReader source that reads a metadata file of any size
// through one fixed buffer (the window), for the Windowed strategy.
//
// Reads. A Read(offset, n) that lies inside the current window is a pointer
// into it. Any other Read refills the window starting at `offset`: one
// raw read of max(n, window) bytes (clipped to the buffer and to the end of
// the file; it loops only on short reads), so a record that straddles
// the window's end is read again whole at the start of the next window and
// every Read lies entirely inside one window. The view stays valid until the
// next call, as the reader requires.
//
// Memory. The buffer is min(max(window, kMinWindowBufferBytes), payload)
// bytes, allocated once per file. A Read larger than the buffer is refused
// with an IOError ("... larger than the replay window ..."), which ends the
// replay non-cleanly so that the orchestrator falls back to Streaming: a file
// with a huge valid record still gets Streaming's exact result, and the
// window never grows. The zero-tail check (step 3 of §2) streams through the
// buffer piece by piece, keeping the reference's 4 MiB chunk semantics.
//
// Encryption (the all-zero rule of §5). After a refill the window's
// ciphertext is indexed (ZeroRunIndex, raw file offsets) and decrypted in
// place with one AES-CTR pass (one cipher context per file). A Read whose
// range lies inside a run of zero ciphertext reads zeros (zeroed in place);
// a Read shorter than the index's minimum run re-encrypts its bytes to
// recover the ciphertext. A window whose ciphertext holds more than
// kMaxIndexedZeroRuns zero runs (only an adversarial or damaged file does)
// is not indexed: it stays ciphertext and each Read is decrypted on its own,
// exactly as the reference does, so the index never holds more than a fixed
// few KiB whatever the file. Bytes that a Read changed in place (zeroed, or
// decrypted in that per-read mode) are never served again: a later Read that
// starts before them refills the window from the file.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "kudu/fs/replay_window.h"
#include "kudu/util/encryption.h"
#include "kudu/util/file.h"
#include "kudu/util/slice.h"
#include "kudu/util/status.h"
#include "kudu/util/zero_rule.h"

namespace kudu {
namespace fs {

// What one file's windowed replay did (test hooks and benchmarks).
struct WindowStats {
  uint64_t buffer_bytes = 0;       // bytes of the window buffer
  uint64_t refills = 0;            // window refills (one read each)
  uint64_t zero_check_reads = 0;   // reads of the zero-tail check
  uint64_t per_read_windows = 0;   // encrypted windows left undecrypted (too many zero runs)
  uint64_t max_zero_runs = 0;      // most zero runs indexed for one window
};

class WindowRecordSource {
 public:
  // Reads `file` through a window of `window_bytes` (>= 1). `index` is
  // reused across files; `stats` receives this file's counters.
  WindowRecordSource(RandomAccessFile* file, size_t window_bytes, ZeroRunIndex* index,
                     WindowStats* stats)
      : file_(file),
        cipher_(file->cipher()),
        data_start_(file->encryption_header_size()),
        size_(file->size()),
        window_(std::max<size_t>(window_bytes, 1)),
        capacity_(WindowBufferBytes(window_, size_ - data_start_)),
        // Not zero-initialised: only bytes a ReadRaw filled are ever served.
        buf_(capacity_ ? new uint8_t[capacity_] : nullptr),
        index_(index),
        stats_(stats) {
    *stats_ = WindowStats();
    stats_->buffer_bytes = capacity_;
    index_->Build(nullptr, 0, 0);  // clear what a previous file left
  }

  const std::string& filename() const { return file_->filename(); }
  uint64_t size() const { return size_; }
  uint64_t data_start() const { return data_start_; }
  size_t capacity() const { return capacity_; }

  Status Read(uint64_t offset, size_t n, Slice* out) {
    // The common case in one test: inside the window, past every byte changed
    // in place, and the bytes as they are (plain, or a window without zero
    // ciphertext runs and a read long enough for the index to answer).
    if (offset >= dirty_end_ && offset + n <= win_end_ && n >= fast_min_read_) {
      *out = Slice(buf_.get() + (offset - win_begin_), n);
      return Status::OK();
    }
    return ReadSlow(offset, n, out);
  }

  // Read() outside its fast path: refills, the all-zero rule, reads larger
  // than the buffer.
  Status ReadSlow(uint64_t offset, size_t n, Slice* out) {
    if (n > capacity_) {
      return Status::IOError(filename() + ": read of " + std::to_string(n) + " bytes at offset " +
                                 std::to_string(offset),
                             "record larger than the replay window of " +
                                 std::to_string(capacity_) + " bytes; replay it with streaming");
    }
    // dirty_end_ >= win_begin_: this also refills for a read before the window.
    if (offset < dirty_end_ || offset + n > win_end_) {
      RETURN_NOT_OK(Refill(offset, n));
    }
    uint8_t* p = buf_.get() + (offset - win_begin_);
    if (cipher_ != nullptr && n > 0) {
      if (per_read_) {
        RETURN_NOT_OK_PREPEND(DecryptReadInPlace(cipher_, offset, p, n), filename());
        dirty_end_ = offset + n;
      } else {
        bool zeroed;
        RETURN_NOT_OK_PREPEND(index_->ApplyToRead(cipher_, offset, p, n, &zeroed), filename());
        if (zeroed) dirty_end_ = offset + n;
      }
    }
    *out = Slice(p, n);
    return Status::OK();
  }

  // Chunk by chunk as the reference reads it (each kZeroCheckChunkSize chunk
  // is one read there): a chunk reads as zeros iff its bytes are zero, or,
  // encrypted, iff its ciphertext is all zero or its plaintext is. Each chunk
  // is read afresh through the buffer in pieces of at most capacity() bytes;
  // the window is empty afterwards.
  Status ReadIsAllZero(uint64_t offset, uint64_t n, bool* all_zero) {
    if (n > 0 && capacity_ == 0) {  // cannot happen: the range lies in the payload
      return Status::IOError(filename() + ": zero check past the end of the payload");
    }
    return ReadIsAllZeroByChunks(
        offset, n,
        [this](uint64_t pos, uint64_t left, bool* zero) { return ChunkIsZero(pos, left, zero); },
        [this](uint64_t pos) { return file_->DataOffsetAtOrAfter(pos); }, all_zero);
  }

 private:
  // One chunk of the zero check (one read in the reference), loaded through
  // the buffer in pieces: zero iff all its ciphertext is zero or, encrypted,
  // all its plaintext is.
  Status ChunkIsZero(uint64_t pos, uint64_t left, bool* zero) {
    bool ct_zero = true;
    bool pt_zero = cipher_ != nullptr;
    while (left > 0) {
      const size_t piece = static_cast<size_t>(std::min<uint64_t>(left, capacity_));
      RETURN_NOT_OK(LoadRaw(pos, piece));
      stats_->zero_check_reads++;
      uint8_t* p = buf_.get();
      ct_zero = ct_zero && IsAllZero(p, piece);
      if (pt_zero) {
        RETURN_NOT_OK_PREPEND(cipher_->Crypt(pos, p, p, piece), filename());
        pt_zero = IsAllZero(p, piece);
      }
      if (!ct_zero && !pt_zero) break;
      pos += piece;
      left -= piece;
    }
    *zero = ct_zero || pt_zero;
    return Status::OK();
  }

  // Reads raw [offset, offset + len) into the buffer; the window is empty.
  // The file's first read is cached first: the same one call when it is in
  // the page cache, and the open learns whether it was (the probe that
  // decides whether a warm open holds replay threads back and skips
  // read-ahead). Only the first: once a file is being read, the kernel's
  // sequential read-ahead caches the next windows of a cold file too, and
  // their hits would outvote the miss that says the open is cold.
  Status LoadRaw(uint64_t offset, size_t len) {
    win_begin_ = win_end_ = dirty_end_ = offset;
    fast_min_read_ = kNoFastPath;
    if (probed_) return file_->ReadRaw(offset, buf_.get(), len);
    probed_ = true;
    return file_->ReadRawCachedFirst(offset, buf_.get(), len);
  }

  // Makes the window start at `offset` and hold at least `n` bytes
  // (n <= capacity_, offset + n <= size_, as the reader guarantees).
  Status Refill(uint64_t offset, size_t n) {
    size_t len = std::max(n, window_);
    len = std::min(len, capacity_);
    len = static_cast<size_t>(std::min<uint64_t>(len, size_ - offset));
    RETURN_NOT_OK(LoadRaw(offset, len));
    stats_->refills++;
    if (cipher_ != nullptr) {
      const size_t runs = CountZeroRuns(buf_.get(), len, kMaxIndexedZeroRuns);
      per_read_ = runs > kMaxIndexedZeroRuns;
      if (per_read_) {
        index_->Build(nullptr, 0, offset);
        stats_->per_read_windows++;
      } else {
        // No runs (the usual case): an empty index without a second scan.
        index_->Build(buf_.get(), runs ? len : 0, offset);
        stats_->max_zero_runs = std::max<uint64_t>(stats_->max_zero_runs, index_->run_count());
        RETURN_NOT_OK_PREPEND(cipher_->Crypt(offset, buf_.get(), buf_.get(), len), filename());
      }
    }
    win_end_ = offset + len;
    if (cipher_ == nullptr) {
      fast_min_read_ = 0;
    } else if (!per_read_ && index_->empty()) {
      fast_min_read_ = ZeroRunIndex::kMinRun;
    }
    return Status::OK();
  }

  RandomAccessFile* const file_;
  FileCipher* const cipher_;
  const uint64_t data_start_;
  const uint64_t size_;
  const size_t window_;
  const size_t capacity_;
  const std::unique_ptr<uint8_t[]> buf_;
  ZeroRunIndex* const index_;
  WindowStats* const stats_;
  // The window holds raw file range [win_begin_, win_end_); bytes before
  // dirty_end_ may have been changed in place by a Read.
  uint64_t win_begin_ = 0;
  uint64_t win_end_ = 0;
  uint64_t dirty_end_ = 0;
  // Reads of at least this many bytes inside the window may skip ReadSlow.
  static constexpr size_t kNoFastPath = ~size_t{0};
  size_t fast_min_read_ = kNoFastPath;
  // Encrypted window left as ciphertext, decrypted read by read.
  bool per_read_ = false;
  bool probed_ = false;  // the page cache probe was made (LoadRaw)
};

}  // namespace fs
}  // namespace kudu
