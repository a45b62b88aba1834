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

#include "kudu/fs/block_record_parser.h"

#include <endian.h>

#include <cstring>

namespace kudu {
namespace fs {
namespace {

// The encoding every writer emits, in any field order: each field once,
// known tags and wire types only, block_id as a 9-byte sub-message holding
// just its id, op_type a valid enum value, every required field present.
// For such a body the meaning is unambiguous, so decoding the fields
// directly gives exactly what protobuf's parser gives. Anything else
// returns false and goes to protobuf.
bool ParseCanonical(Slice body, BlockRecord* record) {
  using block_record_internal::ReadVarint;
  const uint8_t* p = body.data();
  const uint8_t* const end = p + body.size();
  uint64_t id = 0, op = 0, ts = 0, offset = 0, length = 0;  // ts: decoded, never used
  unsigned seen = 0;
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

bool ParseBlockRecordSlow(Slice body, BlockRecordPB* fallback, BlockRecord* record) {
  if (ParseCanonical(body, record)) return true;
  if (!ParseBlockRecordWithProtobuf(body, fallback)) return false;
  *record = BlockRecordFromPB(*fallback);
  return true;
}

}  // namespace fs
}  // namespace kudu
