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

// A live set's blocks as one comparable value, by ascending id: what two
// replays of the same file must agree on, whichever form each set took.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "kudu/fs/live_block_set.h"

namespace kudu {
namespace test {

inline std::vector<std::pair<uint64_t, fs::BlockLocation>> SortedEntriesOf(
    const fs::LiveBlockSet& set) {
  std::vector<std::pair<uint64_t, fs::BlockLocation>> out;
  out.reserve(set.size());
  set.ForEach([&out](uint64_t id, const fs::BlockLocation& loc) { out.emplace_back(id, loc); });
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

}  // namespace test
}  // namespace kudu
