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

// The upstream2026 variant of `kudu fs bench` (upstream2026_replay.h):
// every open variant is measured beside it in the same repetitions, and
// the report gives, per workload, wall, CPU and reads of Streaming,
// upstream2026 and ours (auto, what a server runs), with two speed ratios:
//   ours over upstream2026        = upstream2026's wall / ours
//   upstream2026 over Streaming   = Streaming's wall / upstream2026's
// (the second is what upstream's commits quote: 2.0-2.3x plain, ~1.7x
// encrypted). Its targets: ours >= 3x faster than upstream2026 on G1-100k
// and G4 (plain and encrypted); cold, ours no slower on any workload.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kudu/tools/bench_report.h"
#include "kudu/tools/bench_runner.h"

namespace kudu {
namespace tools {

// True when `name` names the upstream2026 variant; then `*v` is it.
bool Upstream2026Variant(const std::string& name, BenchVariant* v);

void AddUpstream2026Targets(const BenchReport& r, std::vector<TargetCheck>* out);

// Sets `(*workload)["upstream2026"]` when `t` measured the variant beside
// Streaming or ours.
void AddUpstream2026Json(const BenchReport& r, const TargetResult& t,
                         nlohmann::ordered_json* workload);

// The side-by-side section of the text report (nothing when not measured).
void Upstream2026Text(const BenchReport& r, std::ostream& o);

}  // namespace tools
}  // namespace kudu
