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

// §2 step 5's look-ahead: a record whose body runs past the end of its file
// is a torn write only when no valid v2 record starts after it. The file's
// rest is read once, in chunks, and every offset tried as a frame; each
// candidate's body checksum comes from the rest's running CRC at the body's
// two ends (Crc32cShift), so the work is linear in the rest's length
// whatever its bytes, and the memory is a chunk, not the rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "kudu/util/slice.h"
#include "kudu/util/status.h"

namespace kudu {
namespace pb_container {

struct LookAhead {
  // The offsets tried: [from, size).
  uint64_t from = 0;
  uint64_t size = 0;
  // Bytes [from, from + known.size()) already read by the caller, so that no
  // byte is read twice.
  Slice known;
  // Reads [offset, offset + n); the slice may be the reader's buffer, valid
  // until its next call.
  std::function<Status(uint64_t offset, size_t n, Slice* out)> read;
  // Whether a body whose checksums match is a record (step 7); empty: every
  // such frame is.
  std::function<bool(Slice body)> is_record;
  // Read size, and the largest body read again to be parsed: a frame whose
  // checksums match around a larger body is taken as valid unparsed (a
  // valid record is then reported, never a torn write cut).
  size_t chunk_bytes = 4 << 20;
  uint64_t max_parsed_body = 64 << 20;
  // Frames whose bodies overlap, each awaiting its body's end (24 bytes
  // each): only a file written to defeat the scan has more.
  size_t max_pending_frames = 1 << 20;
};

// Sets `*found` and `*at` (the lowest such offset) when a valid v2 record
// starts in [from, size). Fails when a read fails, and with Corruption when
// more than max_pending_frames frames are open at once or the bodies of
// frames whose checksums match but which are not records add up to more
// than twice the rest (only a file written to defeat the scan does either;
// the caller then cannot call the record a torn write).
Status FindValidRecord(const LookAhead& in, bool* found, uint64_t* at);

}  // namespace pb_container
}  // namespace kudu
