#include "kudu/fs/block_record_parser.h"

#include <endian.h>

#include <cstring>

namespace kudu {
namespace {

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

// The encoding every writer emits: each field once, known tags and wire
// types only, block_id as a 9-byte sub-message holding just its id, op_type a
// valid enum value, every required field present. For such a body the
// meaning is unambiguous, so decoding the fields directly gives exactly what
// protobuf's parser gives. Anything else returns false and goes to protobuf.
bool ParseCanonical(Slice body, BlockRecord* record) {
  const uint8_t* p = body.data();
  const uint8_t* const end = p + body.size();
  uint64_t id = 0, op = 0, ts = 0, offset = 0, length = 0;  // ts: checked, not decoded
  unsigned seen = 0;
  // The layout writers actually produce, fields in number order:
  //   0a 09 09 <id: 8 bytes> 10 <op: 1 byte> 18 <ts> [20 <offset>] [28 <length>]
  // decoded straight through, without the loop and switch below. Whatever
  // does not match exactly (field order, a longer op varint, anything after
  // the length) starts over in the general loop, which accepts a superset.
  if (end - p >= 15 && p[0] == 0x0a && p[1] == 0x09 && p[2] == 0x09 && p[11] == 0x10 &&
      p[12] <= 2 && p[13] == 0x18) {
    std::memcpy(&id, p + 3, 8);
    id = le64toh(id);
    op = p[12];
    const uint8_t* q = p + 14;
    // The timestamp must be a valid varint for the body to parse, but
    // nothing in the replay reads its value.
    if (ReadVarint</*kDecode=*/false>(q, body.data(), end, &ts)) {
      unsigned s = 7;
      if (q < end && *q == 0x20) {
        q++;
        if (ReadVarint(q, body.data(), end, &offset)) s |= 8;
        else q = nullptr;
      }
      if (q != nullptr && q < end && *q == 0x28) {
        q++;
        if (ReadVarint(q, body.data(), end, &length)) s |= 16;
        else q = nullptr;
      }
      if (q == end) {
        seen = s;
        p = end;
      }
    }
    if (seen == 0) id = op = ts = offset = length = 0;
  }
  while (p < end) {
    const uint8_t tag = *p++;
    unsigned bit;
    uint64_t* dst;
    switch (tag) {
      case 0x0a:  // block_id, length-delimited
        if (end - p < 10 || p[0] != 9 || p[1] != 0x09 || (seen & 1)) return false;
        std::memcpy(&id, p + 2, 8);
        id = le64toh(id);
        p += 10;
        seen |= 1;
        continue;
      case 0x10: bit = 2; dst = &op; break;
      case 0x18: bit = 4; dst = &ts; break;
      case 0x20: bit = 8; dst = &offset; break;
      case 0x28: bit = 16; dst = &length; break;
      default: return false;
    }
    if ((seen & bit) || !ReadVarint(p, body.data(), end, dst)) return false;
    seen |= bit;
  }
  if ((seen & 7) != 7 || op > 2) return false;
  record->block_id = id;
  record->op_type = static_cast<BlockRecordType>(op);
  record->has_offset = (seen & 8) != 0;
  record->has_length = (seen & 16) != 0;
  record->offset = static_cast<int64_t>(offset);  // 0 when absent, as protobuf reads it
  record->length = static_cast<int64_t>(length);
  return true;
}

}  // namespace

bool ParseBlockRecordWithProtobuf(Slice body, BlockRecordPB* record) {
  // ParseFromArray() is exactly this, but logs an ERROR line for every body
  // missing a required field; a damaged file could flood the log.
  return record->ParsePartialFromArray(body.data(), static_cast<int>(body.size())) &&
         record->IsInitialized();
}

bool ParseBlockRecord(Slice body, BlockRecordPB* fallback, BlockRecord* record) {
  if (ParseCanonical(body, record)) return true;
  if (!ParseBlockRecordWithProtobuf(body, fallback)) return false;
  *record = BlockRecordFromPB(*fallback);
  return true;
}

}  // namespace kudu
