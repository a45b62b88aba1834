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
// replays of the same file must agree on, whichever form each set took; and
// a whole set checked against a std::map model of it.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <ostream>
#include <utility>
#include <vector>

#include "kudu/fs/live_block_set.h"

namespace kudu {
namespace fs {
inline void PrintTo(const BlockLocation& l, std::ostream* os) {
  *os << "{offset " << l.offset << ", length " << l.length << "}";
}
}  // namespace fs

namespace test {

inline std::vector<std::pair<uint64_t, fs::BlockLocation>> SortedEntriesOf(
    const fs::LiveBlockSet& set) {
  std::vector<std::pair<uint64_t, fs::BlockLocation>> out;
  out.reserve(set.size());
  set.ForEach([&out](uint64_t id, const fs::BlockLocation& loc) { out.emplace_back(id, loc); });
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

using LiveBlockModel = std::map<uint64_t, fs::BlockLocation>;

// Every query a live set answers, answered as the model does: size,
// contents, the visit order while sorted, and what the merge takes.
inline void ExpectSame(const LiveBlockModel& model, const fs::LiveBlockSet& set) {
  ASSERT_EQ(model.size(), set.size());
  EXPECT_EQ(model.empty(), set.empty());
  std::vector<std::pair<uint64_t, fs::BlockLocation>> expected(model.begin(), model.end());
  EXPECT_EQ(expected, SortedEntriesOf(set));
  std::vector<uint64_t> visited;
  set.ForEach([&](uint64_t id, const fs::BlockLocation& loc) {
    visited.push_back(id);
    auto it = model.find(id);
    ASSERT_NE(it, model.end()) << id;
    EXPECT_EQ(it->second, loc);
  });
  EXPECT_EQ(model.size(), visited.size());
  if (!set.hashed()) {
    // While sorted, the merge sees ids in order.
    EXPECT_TRUE(std::is_sorted(visited.begin(), visited.end()));
  }
  // What the merge takes: every live block by ascending id, no tombstone,
  // whichever representation; the set is empty afterwards.
  fs::LiveBlockSet taken = set;
  fs::LiveBlocks blocks = taken.TakeSorted();
  ASSERT_EQ(expected.size(), blocks.size());
  for (size_t i = 0; i < blocks.size(); i++) {
    EXPECT_EQ(expected[i].first, blocks[i].id);
    EXPECT_EQ(expected[i].second, blocks[i].loc);
  }
  EXPECT_TRUE(taken.empty());
  EXPECT_EQ(0u, taken.slot_count());
  EXPECT_TRUE(taken.Insert(1, fs::BlockLocation{0, 1}));  // usable again
}

}  // namespace test
}  // namespace kudu
