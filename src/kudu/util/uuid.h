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

// Identifiers as Kudu's ObjectIdGenerator makes them: a random UUID
// (version 4, RFC 4122 variant, boost::uuids::random_generator) printed as
// 32 lowercase hex characters without hyphens. Container ids, instance and
// dir uuids all look like this in a Kudu server's files.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace kudu {

// The UUID whose random bits come from `random`.
inline std::string UuidV4Hex(const uint8_t (&random)[16]) {
  static const char kDigits[] = "0123456789abcdef";
  uint8_t b[16];
  std::memcpy(b, random, sizeof(b));
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);  // variant 10xx
  std::string hex;
  hex.reserve(32);
  for (uint8_t c : b) {
    hex.push_back(kDigits[c >> 4]);
    hex.push_back(kDigits[c & 15]);
  }
  return hex;
}

}  // namespace kudu
