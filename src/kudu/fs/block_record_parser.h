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

// Step 7 of the record format: a checked body must parse as a BlockRecordPB
// with every required field present.
#pragma once

#include <endian.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kudu/fs/block_record.h"
#include "kudu/fs/fs.pb.h"
#include "kudu/util/slice.h"

namespace kudu {
namespace fs {

// Parses `body` into `*record`. False when the body is not a complete
// BlockRecordPB, exactly as protobuf's own parser decides; when true,
// `*record` is what BlockRecordFromPB gives for protobuf's message.
//
// The common encoding (what Kudu and this project write) is decoded by a
// direct loop several times faster than the generic parser, straight into
// the struct; any other encoding (repeated or unknown fields, odd varints,
// invalid enum values, missing fields) is handed to protobuf, which parses
// into `*fallback` (reused between calls), so the answer is always
// protobuf's.
__attribute__((always_inline)) inline bool ParseBlockRecord(Slice body, BlockRecordPB* fallback,
                                                            BlockRecord* record);

// Every body ParseBlockRecord's inline path does not take: other field
// orders and encodings (a direct loop), then protobuf.
bool ParseBlockRecordSlow(Slice body, BlockRecordPB* fallback, BlockRecord* record);

// Protobuf's generic parser alone: the reference the fast path is tested
// against.
bool ParseBlockRecordWithProtobuf(Slice body, BlockRecordPB* record);

namespace block_record_internal {

// Reads a varint of at most 10 bytes whose value fits 64 bits, from
// [p, end) inside the body [begin, end). False for anything else (left to
// protobuf, which knows every corner).
//
// No branch per byte for a varint that ends within the next 8 bytes (every
// field of a record but the largest ids): the next 8 bytes are loaded as one
// word (near the end of the body, the last 8 bytes of the body shifted down,
// so nothing outside it is read), the first byte without the continuation
// bit ends the varint, and three mask-and-shift steps pack the 7-bit
// groups. Such a value is below 2^56, so it always fits.
//
// Without kDecode the varint is only checked and stepped over (*v is left
// alone): for a field the replay does not use.
template <bool kDecode = true>
__attribute__((always_inline)) inline bool ReadVarint(const uint8_t*& p, const uint8_t* begin,
                                                      const uint8_t* end, uint64_t* v) {
  const ptrdiff_t avail = end - p;
  if (avail <= 0) return false;
  uint64_t w;
  if (avail >= 8) {
    std::memcpy(&w, p, 8);
    w = le64toh(w);
  } else if (end - begin >= 8) {
    std::memcpy(&w, end - 8, 8);
    w = le64toh(w) >> (8 * (8 - avail));  // bytes past `end` read as 0: "ends here"
  } else {
    w = 0;
    for (ptrdiff_t i = 0; i < avail; i++) w |= static_cast<uint64_t>(p[i]) << (8 * i);
  }
  const uint64_t stops = ~w & 0x8080808080808080ULL;
  if (stops != 0) {
    const int bytes = (__builtin_ctzll(stops) >> 3) + 1;
    if (bytes > avail) return false;  // the terminator was past `end`
    p += bytes;
    if (!kDecode) return true;
    uint64_t x = w & 0x7f7f7f7f7f7f7f7fULL;
    if (bytes < 8) x &= (1ULL << (8 * bytes)) - 1;
    x = (x & 0x007f007f007f007fULL) | ((x & 0x7f007f007f007f00ULL) >> 1);
    x = (x & 0x00003fff00003fffULL) | ((x & 0x3fff00003fff0000ULL) >> 2);
    x = (x & 0x000000000fffffffULL) | ((x & 0x0fffffff00000000ULL) >> 4);
    *v = x;
    return true;
  }
  // 9 or 10 bytes (or more, which protobuf rejects): byte by byte.
  uint64_t result = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p == end) return false;
    const uint8_t b = *p++;
    if (shift == 63 && b > 1) return false;
    result |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      if (kDecode) *v = result;
      return true;
    }
  }
  return false;
}

// The layout writers actually produce, fields in number order:
//   0a 09 09 <id: 8 bytes> 10 <op: 1 byte> 18 <ts> [20 <offset>] [28 <length>]
// decoded straight through. Inline in the replay loop: called once per
// record, a call's register saves and restores were a tenth of the parse.
// False (and `*record` untouched) for anything else.
__attribute__((always_inline)) inline bool ParseWriterLayout(Slice body, BlockRecord* record) {
  const uint8_t* const p = body.data();
  const uint8_t* const end = p + body.size();
  if (!(end - p >= 15 && p[0] == 0x0a && p[1] == 0x09 && p[2] == 0x09 && p[11] == 0x10 &&
        p[12] <= 2 && p[13] == 0x18)) {
    return false;
  }
  const uint8_t* q = p + 14;
  // The timestamp must be a valid varint for the body to parse, but
  // nothing in the replay reads its value.
  uint64_t ts, offset = 0, length = 0;
  if (!ReadVarint</*kDecode=*/false>(q, p, end, &ts)) return false;
  bool has_offset = false, has_length = false;
  if (q < end && *q == 0x20) {
    q++;
    if (!ReadVarint(q, p, end, &offset)) return false;
    has_offset = true;
  }
  if (q < end && *q == 0x28) {
    q++;
    if (!ReadVarint(q, p, end, &length)) return false;
    has_length = true;
  }
  if (q != end) return false;
  uint64_t id;
  std::memcpy(&id, p + 3, 8);
  record->block_id = le64toh(id);
  record->op_type = static_cast<BlockRecordType>(p[12]);
  record->has_offset = has_offset;
  record->has_length = has_length;
  record->offset = static_cast<int64_t>(offset);  // 0 when absent, as protobuf reads it
  record->length = static_cast<int64_t>(length);
  return true;
}

}  // namespace block_record_internal

__attribute__((always_inline)) inline bool ParseBlockRecord(Slice body, BlockRecordPB* fallback,
                                                            BlockRecord* record) {
  if (block_record_internal::ParseWriterLayout(body, record)) return true;
  // Through a copy: were `*record`'s address passed to the out-of-line
  // parser, the caller's record would have to live in memory, and its
  // offset and length, stored as two 8-byte fields, were then read back as
  // one 16-byte load that cannot be forwarded from those stores (a stall on
  // every CREATE).
  BlockRecord slow;
  if (!ParseBlockRecordSlow(body, fallback, &slow)) return false;
  *record = slow;
  return true;
}

}  // namespace fs
}  // namespace kudu
