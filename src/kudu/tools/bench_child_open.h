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


// Peak memory of one open, measured in a fresh process: `kudu fs bench`
// runs itself again with --bench_open_child=<strategy>, and that child opens
// the dirs once, prints its metrics and live set digest as one JSON object,
// and exits; its peak resident set is its VmHWM (/proc/self/status) read
// after the open. Not the parent's wait4 ru_maxrss: exec keeps the
// high-water mark of the memory the child shared with the parent before it
// (posix_spawn's vfork), so that figure is at least the bench's own peak.
//
// A fresh process rather than resetting the high-water mark between opens
// in one process (/proc/self/clear_refs): the reset only lowers the mark to
// the current resident set, and after earlier opens that includes every
// page the allocator kept for reuse, so an open that fits in the kept pages
// shows no peak of its own, and one that follows a smaller open shows the
// sum. A server opens its block manager once, in a fresh process; so does
// the child.
#pragma once

#include "kudu/fs/replay_policy.h"
#include "kudu/tools/bench_floor.h"
#include "kudu/tools/bench_runner.h"
#include "kudu/util/status.h"

namespace kudu {
namespace tools {

// MeasureOpen in a child process: the same open (the flags this process was
// given, but with `target`'s dirs, key and limits, `policy`'s in-memory
// threshold and `v`'s strategy and read-ahead), with peak_rss_bytes (the
// child's VmHWM after the open) and base_rss_bytes (its VmRSS before) set.
// The child's wall and CPU times are its open's alone.
Status MeasureOpenInChild(const BenchTarget& target, const fs::ReplayPolicyOptions& policy,
                          int threads_per_dir, const BenchVariant& v, RunMetrics* m,
                          bool* usage_error);

// MeasureFloor in a child process, beside opens measured so: the floor of
// `target`'s files, a fresh process's as theirs are (`warm` and `how` as
// MeasureFloor's).
Status MeasureFloorInChild(const BenchTarget& target, int threads_per_dir, bool warm,
                           FloorReads how, RunMetrics* m);

// True when this process is such a child (--bench_open_child is set).
bool IsBenchOpenChild();
// The child's work: one open (or the floor) from the flags, its JSON on
// stdout. The exit
// status of `kudu fs bench` (0, 1, or 2 for a usage error).
int RunBenchOpenChild();

}  // namespace tools
}  // namespace kudu
