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

// The all-zero rule (§5 of docs/on-disk-format.md) and the zero tests it
// rests on, written once for the file layer and every record source.
//
// The reference reader decrypts each read on its own and leaves a read whose
// ciphertext is entirely zero as zeros; that is what lets a zero-filled tail
// be recognised in an encrypted file. Sources meet the rule in two forms:
//   - with the read's ciphertext at hand (the file layer, a window that is
//     decrypted read by read): DecryptReadInPlace;
//   - after a whole buffer was decrypted in one pass, which loses the
//     ciphertext: the buffer's zero-ciphertext runs are indexed first
//     (ZeroRunIndex::Build) and each read asks the index
//     (ZeroRunIndex::ApplyToRead).
// The zero-tail check (step 3 of §2) reads in chunks of kZeroCheckChunkSize,
// one read each; ReadIsAllZeroByChunks is that loop, and a chunk reads as
// zeros iff its ciphertext is all zero or its decryption is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "kudu/util/encryption.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/status.h"

namespace kudu {

bool IsAllZero(const uint8_t* data, size_t n);

// One read of an encrypted file, decrypted in place under the rule: left as
// zeros when its ciphertext is entirely zero, decrypted otherwise. `offset`
// is the raw file offset of buf[0].
Status DecryptReadInPlace(FileCipher* cipher, uint64_t offset, uint8_t* buf, size_t n);

// Zero-ciphertext runs a buffer's index holds at least before the buffer is
// read another way (16 bytes each): a window's limit, and a whole file's
// least limit.
constexpr size_t kMaxIndexedZeroRuns = 1024;

// Where a buffer's ciphertext is all zeros: its maximal runs of at least
// kMinRun zero bytes, at raw file offsets. Shorter runs are not recorded:
// most reads the record reader makes are at least 4 bytes long (a v1
// length, a v2 length + checksum, a body + checksum); a shorter one (the
// last chunk of a zero-tail check or of the look-ahead, an empty body
// parsed again) ApplyToRead settles by re-encrypting those few bytes.
class ZeroRunIndex {
 public:
  static constexpr size_t kMinRun = 4;

  struct Run {
    uint64_t begin;
    uint64_t end;  // exclusive
  };

  // Indexes `data[0, n)`, which sits at raw file offset `base`.
  void Build(const uint8_t* data, size_t n, uint64_t base);

  // Whether raw range [offset, offset + n), n >= kMinRun, lies inside one
  // recorded run. Costs nothing when there are no runs, the usual case.
  bool Covers(uint64_t offset, uint64_t n) const;

  // Whether the ciphertext of [offset, offset + n), indexed here and now
  // decrypted at `p`, was all zero.
  Status CiphertextWasZero(FileCipher* cipher, uint64_t offset, const uint8_t* p, size_t n,
                           bool* zero) const {
    if (n >= kMinRun) {  // every record read: answered without a call when there are no runs
      *zero = !runs_.empty() && Covers(offset, n);
      return Status::OK();
    }
    return ShortCiphertextWasZero(cipher, offset, p, n, zero);
  }

  // The rule for one read of [offset, offset + n), indexed here and now
  // decrypted at `p`: zeroes `p` in place when its ciphertext was all zero
  // (*zeroed says whether it did).
  Status ApplyToRead(FileCipher* cipher, uint64_t offset, uint8_t* p, size_t n,
                     bool* zeroed) const {
    RETURN_NOT_OK(CiphertextWasZero(cipher, offset, p, n, zeroed));
    if (*zeroed) std::memset(p, 0, n);
    return Status::OK();
  }

  size_t run_count() const { return runs_.size(); }
  bool empty() const { return runs_.empty(); }
  const std::vector<Run>& runs() const { return runs_; }

 private:
  // Reads shorter than kMinRun, which the index cannot answer.
  Status ShortCiphertextWasZero(FileCipher* cipher, uint64_t offset, const uint8_t* p, size_t n,
                                bool* zero) const;

  std::vector<Run> runs_;
};

// Counts the maximal runs of at least ZeroRunIndex::kMinRun zero bytes in
// data[0, n) with the index's scan, stopping as soon as the count exceeds
// `limit`. Allocates nothing.
size_t CountZeroRuns(const uint8_t* data, size_t n, size_t limit);

// The zero-tail check's loop: [offset, offset + n) as the reference reads
// it, one read per kZeroCheckChunkSize chunk, stopping at the first chunk
// that does not read as zeros. `chunk_is_zero(offset, len, bool*)` performs
// one such read and returns a Status.
// `data_at(pos)` is the first offset at or after `pos` that may hold data
// (RandomAccessFile::DataOffsetAtOrAfter): chunks that lie wholly before it
// are in a hole, which reads as zeros in a plain file and as zero
// ciphertext, hence zeros, in an encrypted one, so they are not read. A
// sparse tail of any length costs one call per chunk that holds data.
template <class ChunkIsZero, class DataAt>
Status ReadIsAllZeroByChunks(uint64_t offset, uint64_t n, ChunkIsZero&& chunk_is_zero,
                             DataAt&& data_at, bool* all_zero) {
  constexpr uint64_t kChunk = pb_container::kZeroCheckChunkSize;
  while (n > 0) {
    const uint64_t data = data_at(offset);
    if (data > offset) {
      if (data - offset >= n) break;  // the rest is one hole
      const uint64_t hole_chunks = (data - offset) / kChunk;
      offset += hole_chunks * kChunk;
      n -= hole_chunks * kChunk;
    }
    const uint64_t chunk = n < kChunk ? n : kChunk;
    bool zero = false;
    RETURN_NOT_OK(chunk_is_zero(offset, chunk, &zero));
    if (!zero) {
      *all_zero = false;
      return Status::OK();
    }
    offset += chunk;
    n -= chunk;
  }
  *all_zero = true;
  return Status::OK();
}

// The same over bytes with no holes to skip (already in memory).
template <class ChunkIsZero>
Status ReadIsAllZeroByChunks(uint64_t offset, uint64_t n, ChunkIsZero&& chunk_is_zero,
                             bool* all_zero) {
  return ReadIsAllZeroByChunks(offset, n, std::forward<ChunkIsZero>(chunk_is_zero),
                               [](uint64_t pos) { return pos; }, all_zero);
}

}  // namespace kudu
