#include "kudu/fs/block_record_parser.h"

#include <endian.h>

#include <cstring>

namespace kudu {
namespace {

// Reads a varint of at most 10 bytes whose value fits 64 bits. False for
// anything else (left to protobuf, which knows every corner).
inline bool ReadVarint(const uint8_t*& p, const uint8_t* end, uint64_t* v) {
  // Fast path, no branch per byte: a varint that ends within the next 8
  // bytes (every field of a record but the largest ids). Its last byte is
  // the first one without the continuation bit; the 7-bit groups are then
  // packed together by three mask-and-shift steps. Such a value is below
  // 2^56, so it always fits.
  if (end - p >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    w = le64toh(w);
    const uint64_t stops = ~w & 0x8080808080808080ULL;
    if (stops != 0) {
      const int bytes = (__builtin_ctzll(stops) >> 3) + 1;
      uint64_t x = w & 0x7f7f7f7f7f7f7f7fULL;
      if (bytes < 8) x &= (1ULL << (8 * bytes)) - 1;
      x = (x & 0x007f007f007f007fULL) | ((x & 0x7f007f007f007f00ULL) >> 1);
      x = (x & 0x00003fff00003fffULL) | ((x & 0x3fff00003fff0000ULL) >> 2);
      x = (x & 0x000000000fffffffULL) | ((x & 0x0fffffff00000000ULL) >> 4);
      *v = x;
      p += bytes;
      return true;
    }
  }
  uint64_t result = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p == end) return false;
    const uint8_t b = *p++;
    if (shift == 63 && b > 1) return false;
    result |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

// The encoding every writer emits: each field once, known tags and wire
// types only, block_id as a 9-byte sub-message holding just its id, op_type a
// valid enum value, every required field present. For such a body the
// meaning is unambiguous, so setting the fields directly gives exactly what
// protobuf's parser gives. Anything else returns false and goes to protobuf.
bool ParseCanonical(Slice body, BlockRecordPB* record) {
  const uint8_t* p = body.data();
  const uint8_t* const end = p + body.size();
  uint64_t id = 0, op = 0, ts = 0, offset = 0, length = 0;
  unsigned seen = 0;
  while (p < end) {
    const uint8_t tag = *p++;
    unsigned bit;
    uint64_t* dst;
    switch (tag) {
      case 0x0a:  // block_id, length-delimited
        if (end - p < 10 || p[0] != 9 || p[1] != 0x09 || (seen & 1)) return false;
        std::memcpy(&id, p + 2, 8);
        p += 10;
        seen |= 1;
        continue;
      case 0x10: bit = 2; dst = &op; break;
      case 0x18: bit = 4; dst = &ts; break;
      case 0x20: bit = 8; dst = &offset; break;
      case 0x28: bit = 16; dst = &length; break;
      default: return false;
    }
    if ((seen & bit) || !ReadVarint(p, end, dst)) return false;
    seen |= bit;
  }
  if ((seen & 7) != 7 || op > 2) return false;
  BlockIdPB* block_id = record->mutable_block_id();
  block_id->set_id(id);
  // The sub-message too: a previous protobuf parse of a block_id with an
  // extra field leaves it among the sub-message's unknown fields.
  if (!block_id->unknown_fields().empty()) block_id->mutable_unknown_fields()->Clear();
  record->set_op_type(static_cast<BlockRecordType>(op));
  record->set_timestamp_us(ts);
  if (seen & 8) {
    record->set_offset(static_cast<int64_t>(offset));
  } else {
    record->clear_offset();
  }
  if (seen & 16) {
    record->set_length(static_cast<int64_t>(length));
  } else {
    record->clear_length();
  }
  // A previous protobuf parse may have left unknown fields behind.
  if (!record->unknown_fields().empty()) record->mutable_unknown_fields()->Clear();
  return true;
}

}  // namespace

bool ParseBlockRecordWithProtobuf(Slice body, BlockRecordPB* record) {
  // ParseFromArray() is exactly this, but logs an ERROR line for every body
  // missing a required field; a damaged file could flood the log.
  return record->ParsePartialFromArray(body.data(), static_cast<int>(body.size())) &&
         record->IsInitialized();
}

bool ParseBlockRecord(Slice body, BlockRecordPB* record) {
  if (ParseCanonical(body, record)) return true;
  return ParseBlockRecordWithProtobuf(body, record);
}

}  // namespace kudu
