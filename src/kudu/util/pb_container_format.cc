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

#include "kudu/util/pb_container_format.h"

namespace kudu {
namespace pb_container {

void AppendFileHeader(uint32_t version, std::string* dst) {
  size_t start = dst->size();
  dst->append(kMagic, kMagicSize);
  PutFixed32(dst, version);
  if (version >= kVersion2) {
    PutFixed32(dst, crc::Crc32c(dst->data() + start, kMagicSize + 4));
  }
}

void AppendRecord(uint32_t version, Slice body, std::string* dst) {
  uint8_t len[4];
  EncodeFixed32(len, static_cast<uint32_t>(body.size()));
  dst->append(reinterpret_cast<const char*>(len), 4);
  if (version == kVersion1) {
    dst->append(body.cdata(), body.size());
    uint32_t c = crc::Crc32cExtend(crc::Crc32c(len, 4), body.data(), body.size());
    PutFixed32(dst, c);
    return;
  }
  PutFixed32(dst, crc::Crc32c(len, 4));
  dst->append(body.cdata(), body.size());
  PutFixed32(dst, crc::Crc32c(body.data(), body.size()));
}

}  // namespace pb_container
}  // namespace kudu
