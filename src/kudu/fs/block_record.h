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

// One metadata record as the replay uses it: the fields of BlockRecordPB in
// a plain struct.
//
// The replay decodes ~10^7 records at startup and reads each once. Setting
// them into a protobuf message and reading them back through its accessors
// (has-bits, a sub-message for the id, unknown-field bookkeeping) was a
// fifth of a replay thread's time (docs/benchmarks.md); a struct the parser
// fills in place costs a few stores. BlockRecordPB stays the format's
// definition, what writers serialise and what protobuf's parser (the
// decoder of anything unusual, and the tests' reference) produces.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kudu/fs/fs.pb.h"

namespace kudu {
namespace fs {

// timestamp_us is not kept: the replay never reads it (neither does Kudu's),
// so the parser only checks that it is well formed, which the body must be
// to parse, and skips it.
struct BlockRecord {
  uint64_t block_id = 0;
  BlockRecordType op_type = UNKNOWN;
  // offset and length are optional in the format: a CREATE without them is
  // malformed, which the record semantics must be able to tell.
  bool has_offset = false;
  bool has_length = false;
  int64_t offset = 0;
  int64_t length = 0;

  bool operator==(const BlockRecord& o) const {
    return block_id == o.block_id && op_type == o.op_type &&
           has_offset == o.has_offset && has_length == o.has_length && offset == o.offset &&
           length == o.length;
  }
};

// The same record from a parsed message (an unset optional field reads as
// absent and 0, as in the message).
inline BlockRecord BlockRecordFromPB(const BlockRecordPB& pb) {
  BlockRecord r;
  r.block_id = pb.block_id().id();
  r.op_type = pb.op_type();
  r.has_offset = pb.has_offset();
  r.has_length = pb.has_length();
  r.offset = pb.offset();
  r.length = pb.length();
  return r;
}

// The most bytes EncodeBlockRecord writes: the id's sub-message (11) and
// four fields of a tag and a varint of up to 10 bytes each.
constexpr size_t kMaxEncodedBlockRecordBytes = 11 + 4 * 11;

// Writes the body protobuf serialises for the BlockRecordPB holding `r`'s
// fields and `timestamp_us`, byte for byte: fields in number order, the id a
// sub-message of one fixed64, varints as protobuf writes them (an enum or
// int64 below 0 in ten bytes), offset and length only when present.
// Returns how many bytes it wrote at `out` (at most
// kMaxEncodedBlockRecordBytes). The writer's path: a message built and
// serialised for every record cost a fifth of generation's user time on a
// delete-heavy state (docs/benchmarks.md, "Generation");
// block_record_parser_test holds it to protobuf's bytes.
inline size_t EncodeBlockRecord(const BlockRecord& r, uint64_t timestamp_us, uint8_t* out) {
  uint8_t* p = out;
  auto varint = [&p](uint64_t v) {
    while (v >= 0x80) {
      *p++ = static_cast<uint8_t>(v | 0x80);
      v >>= 7;
    }
    *p++ = static_cast<uint8_t>(v);
  };
  *p++ = 0x0a;  // field 1, length-delimited: BlockIdPB
  *p++ = 9;
  *p++ = 0x09;  // its field 1, fixed64
  for (int i = 0; i < 8; i++) *p++ = static_cast<uint8_t>(r.block_id >> (8 * i));
  *p++ = 0x10;  // field 2, varint
  varint(static_cast<uint64_t>(static_cast<int64_t>(r.op_type)));
  *p++ = 0x18;  // field 3, varint
  varint(timestamp_us);
  if (r.has_offset) {
    *p++ = 0x20;  // field 4, varint
    varint(static_cast<uint64_t>(r.offset));
  }
  if (r.has_length) {
    *p++ = 0x28;  // field 5, varint
    varint(static_cast<uint64_t>(r.length));
  }
  return static_cast<size_t>(p - out);
}

}  // namespace fs
}  // namespace kudu
