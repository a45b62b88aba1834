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


// The scaling sweep of `kudu fs bench --bench_scaling`: how the open's time
// and peak memory grow with the records of a state (at a fixed container
// count) and with its containers (at a fixed record count). Every point is
// a generated state with sparse data files (the metadata a server writes,
// data files as holes), opened warm and cold with auto and with Streaming
// beside it, each open in a fresh process for its peak RSS. The report gets
// a least-squares line per axis, cache mode and strategy: seconds per
// million records (or per thousand containers) and peak RSS bytes per live
// block (or per container), with R² to say how straight the curve is; the
// CSV has one row per open, for plotting (scripts/plot_scaling.sh).
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kudu/tools/bench_report.h"
#include "kudu/tools/bench_workloads.h"
#include "kudu/util/status.h"

namespace kudu {
namespace tools {

// Whether --bench_scaling is set.
bool ScalingSweepRequested();

// The sweep's states from the --bench_scaling_* flags; InvalidArgument for a
// malformed list. Groups "scaling-records" and "scaling-containers".
Status ScalingWorkloads(std::vector<BenchWorkload>* out);

// The sweep's figures of `report` (its scaling-* states): the points and
// the fits, as JSON (report["scaling"]) and as text. Nothing when the
// report has no sweep state.
void AddScalingJson(const BenchReport& report, nlohmann::ordered_json* j);
void ScalingText(const BenchReport& report, std::ostringstream& o);

// One row per open of the sweep's states (and of any other state, so that
// a CSV can be had of every run) to `path`; IOError naming the path.
Status WriteBenchCsv(const BenchReport& report, const std::string& path);

}  // namespace tools
}  // namespace kudu
