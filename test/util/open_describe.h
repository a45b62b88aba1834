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

// A canonical text form of a block manager open's result, for comparing
// opens: one line for the whole open, one per container (its checks,
// outcome, counts, malformed records and problems), and the published block
// map. Leaves out what legitimately differs between strategies and runs:
// the chosen strategy, fallbacks, replay statistics and timing.
// Header-only: the fuzz targets use it too.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "kudu/fs/block_manager_open.h"

namespace kudu {
namespace test {

inline std::string DescribeOpenHead(const fs::OpenResult& r) {
  std::ostringstream o;
  o << "status=" << r.status.ToString() << " failure=" << static_cast<int>(r.failure)
    << " max_id=" << r.has_max_block_id << "/" << r.max_block_id << " next=" << r.next_block_id
    << " containers=" << r.containers.size() << " tmp=" << r.leftover_tmp_files.size();
  return o.str();
}

inline std::string DescribeContainer(const fs::ContainerInfo& c) {
  std::ostringstream o;
  o << c.path << " data=" << c.has_data << "/" << c.data_size << " meta=" << c.has_metadata << "/"
    << c.metadata_size << " incomplete=" << c.incomplete << "(" << c.incomplete_reason
    << ") replayed=" << c.replayed << " outcome=" << c.outcome.ToString()
    << " live=" << c.live_blocks << "/" << c.live_bytes << "/" << c.live_bytes_aligned
    << " total=" << c.total_blocks << " nwo=" << c.next_write_offset << " max=" << c.has_max_block_id
    << "/" << c.max_block_id << " full=" << c.full << " dead=" << c.dead << " low=" << c.low_live;
  for (const auto& m : c.malformed) {
    o << "\n  malformed " << m.record_offset << " " << m.block_id << " " << m.reason;
  }
  for (const auto& p : c.problems) {
    o << "\n  problem " << fs::ContainerProblemKindName(p.kind) << " " << p.file << " " << p.offset
      << " " << p.block_id << " " << p.status.ToString();
  }
  return o.str();
}

inline std::string DescribeBlockMap(const fs::OpenResult& r) {
  if (!r.block_map) return "map: none";
  std::ostringstream o;
  o << "map:";
  for (const auto& [id, e] : r.block_map->SortedEntries()) {
    o << " " << id << "@" << r.containers[e.container].path << ":" << e.offset << "+" << e.length;
  }
  return o.str();
}

inline std::string DescribeOpen(const fs::OpenResult& r) {
  std::string s = DescribeOpenHead(r) + "\n";
  for (const fs::ContainerInfo& c : r.containers) s += DescribeContainer(c) + "\n";
  return s + DescribeBlockMap(r) + "\n";
}

}  // namespace test
}  // namespace kudu
