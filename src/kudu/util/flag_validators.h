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

// Range checks for command-line flags, registered with gflags next to each
// flag's definition (DEFINE_validator), so a bad value is refused when it is
// set, before anything runs with it. Each check is written once here and
// shared by every flag of its kind.
//
// gflags reports a failed validation only as "invalid value"; the reason is
// kept in FlagValidationFailure() so the caller can print one line naming
// the flag, the value and the rule.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

namespace kudu {
namespace flags {

// Longest wait a wait-time flag accepts: a day. Larger values are typos,
// and values near 2^64 ms overflow a deadline computed from now into the
// past, which would turn "wait" into an immediate time-out.
constexpr uint64_t kMaxWaitMs = 24ULL * 3600 * 1000;

// The reason the last failed validation gave, for the one-line usage error.
inline std::string& FlagValidationFailure() {
  static std::string reason;
  return reason;
}

inline bool Fail(const char* why) {
  FlagValidationFailure() = why;
  return false;
}

inline bool ValidateRatio(const char* /*flag*/, double v) {
  return (std::isfinite(v) && v >= 0.0 && v <= 1.0) ? true
                                                    : Fail("must be a finite number in [0, 1]");
}

inline bool ValidatePositiveU64(const char* /*flag*/, uint64_t v) {
  return v > 0 ? true : Fail("must be greater than 0");
}

inline bool ValidateThreadCount(const char* /*flag*/, int32_t v) {
  return v >= 1 ? true : Fail("must be at least 1");
}

inline bool ValidateWaitMs(const char* /*flag*/, uint64_t v) {
  return v <= kMaxWaitMs ? true : Fail("must be at most 86400000 (a day)");
}

inline bool ValidateNonNegativeI64(const char* /*flag*/, int64_t v) {
  return v >= 0 ? true : Fail("must not be negative");
}

inline bool ValidatePositiveI64(const char* /*flag*/, int64_t v) {
  return v >= 1 ? true : Fail("must be at least 1");
}

inline bool ValidatePercentage(const char* /*flag*/, int32_t v) {
  return (v >= 0 && v <= 100) ? true : Fail("must be within 0..100");
}

// Kudu's block-count limits: -1 (and 0) mean no limit.
inline bool ValidateBlockLimit(const char* /*flag*/, int64_t v) {
  return v >= -1 ? true : Fail("must be -1 (no limit), 0 (no limit) or greater");
}

}  // namespace flags
}  // namespace kudu
