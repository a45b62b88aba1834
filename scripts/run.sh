#!/usr/bin/env bash
# Licensed to the Apache Software Foundation (ASF) under one
# or more contributor license agreements.  See the NOTICE file
# distributed with this work for additional information
# regarding copyright ownership.  The ASF licenses this file
# to you under the Apache License, Version 2.0 (the
# "License"); you may not use this file except in compliance
# with the License.  You may obtain a copy of the License at
#
#   http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing,
# software distributed under the License is distributed on an
# "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
# KIND, either express or implied.  See the License for the
# specific language governing permissions and limitations
# under the License.

# The main job: sets up, builds, then runs `kudu fs bench` with no data dirs:
# it generates the reference workloads (G1..G5, plain and AES-128 encrypted)
# one at a time in a temporary directory through the server's own writer,
# opens each with every replay strategy side by side (3 interleaved
# repetitions), checks that every open found the same live blocks, and prints
# the tables, a summary and the targets (docs/benchmarks.md). About a minute
# on 2 cores. The JSON report goes to build/bench.json (plots:
# scripts/plot_bench.sh build/bench.json). Extra arguments go to the bench,
# e.g. --bench_workloads=G1,G4 or --bench_scale=10.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
# The benchmarked binary is always built the same way: file by file, full
# debug info (scripts/test.sh builds the same tree as a unity build with -g1).
bash scripts/build.sh build -DKUDU_UNITY_BUILD=OFF -DKUDU_DEBUG_INFO=-g

KUDU=build/bin/kudu
echo "=== $KUDU fs bench --bench_json_out=build/bench.json $*"
"$KUDU" fs bench --bench_json_out=build/bench.json "$@"
