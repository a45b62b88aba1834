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

// The PB container file format (§2 of docs/on-disk-format.md), as constants
// and encoders. Everything that writes or parses framing uses these, so the
// layout is defined once.
//
//   file    := [encryption header, 64 bytes] file_header sup_header_record record*
//   file_header (v1) := magic(8) version(4)
//   file_header (v2) := magic(8) version(4) header_crc(4)
//   record (v2) := len(4) len_crc(4) body(len) body_crc(4)
//   record (v1) := len(4) body(len) crc(4)            crc = CRC(len || body)
//
// All integers little-endian, CRC = CRC-32C.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "kudu/util/crc32c.h"
#include "kudu/util/slice.h"

namespace kudu {
namespace pb_container {

constexpr char kMagic[] = "kuducntr";
constexpr size_t kMagicSize = 8;
constexpr uint32_t kVersion1 = 1;
constexpr uint32_t kVersion2 = 2;
constexpr size_t kV1HeaderSize = 12;
constexpr size_t kV2HeaderSize = 16;
// The reference reader always reads this much to learn the version.
constexpr size_t kHeaderReadSize = 16;
// Smallest file that can hold a container (v1 header), before encryption.
constexpr size_t kMinimumValidLength = kV1HeaderSize;
// Zero-tail check granularity: the reference reads the rest of the file in
// chunks of this size, one read each.
constexpr size_t kZeroCheckChunkSize = 4 * 1024 * 1024;

inline size_t HeaderSize(uint32_t version) {
  return version == kVersion1 ? kV1HeaderSize : kV2HeaderSize;
}
// Framing bytes before the body: len (+ len_crc for v2).
inline size_t RecordPrefixSize(uint32_t version) { return version == kVersion1 ? 4 : 8; }
inline size_t RecordOverhead(uint32_t version) { return RecordPrefixSize(version) + 4; }

inline uint32_t DecodeFixed32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);  // little-endian host (x86-64, aarch64)
  return v;
}
inline void EncodeFixed32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }
inline void PutFixed32(std::string* dst, uint32_t v) {
  uint8_t b[4];
  EncodeFixed32(b, v);
  dst->append(reinterpret_cast<const char*>(b), 4);
}

void AppendFileHeader(uint32_t version, std::string* dst);

// Appends one framed record holding `body` to `dst`.
void AppendRecord(uint32_t version, Slice body, std::string* dst);

}  // namespace pb_container
}  // namespace kudu
