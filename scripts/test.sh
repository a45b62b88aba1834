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

# Sets up, builds and runs every test: the Release build first, then (unless
# SKIP_SANITIZERS=1) the whole suite under ASan+UBSan (a clang build that also
# holds the libFuzzer targets), about a minute of differential fuzzing, and the
# concurrency and memory-budget tests under TSan. Sized for 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

JOBS=${JOBS:-2}
export JOBS

# Each stage's header says how long the run has taken so far: CI's budget
# is for the whole run, and the builds, not the tests, are most of it.
stage() { echo "=== [$((SECONDS / 60))m$((SECONDS % 60))s] $*"; }

bash scripts/setup.sh

# Sanitizer runtimes of this toolchain refuse the high mmap randomisation of
# recent kernels ("unexpected memory mapping"); running without address-space
# randomisation avoids it. setarch is in util-linux, on every Debian system.
NORAND=()
if command -v setarch >/dev/null 2>&1 && setarch "$(uname -m)" -R true 2>/dev/null; then
  NORAND=(setarch "$(uname -m)" -R)
fi

# Line tables are all a test run needs from debug info (sanitizer reports
# name functions and lines); full -g costs gcc a third more compile time.
# The unity build of the library, the kudu program and the test helpers
# parses their shared headers once per batch instead of once per file.
BUILD_OPTS=(-DKUDU_DEBUG_INFO=-g1 -DKUDU_UNITY_BUILD=ON)

stage "Release build"
bash scripts/build.sh build "${BUILD_OPTS[@]}"
stage "Release tests"
(cd build && ctest --output-on-failure -j"$JOBS")

if [[ "${SKIP_SANITIZERS:-0}" == "1" ]]; then
  echo "=== sanitizers skipped (SKIP_SANITIZERS=1)"
  exit 0
fi

stage "ASan + UBSan build (clang, with the libFuzzer targets)"
# One clang build serves both the sanitizer suite and the fuzz targets: every
# library and test is compiled with ASan + UBSan (UB is fatal), and the
# fuzz targets link libFuzzer on top. This saves a whole build in CI.
export CC=clang CXX=clang++
bash scripts/build.sh build-fuzz -DKUDU_FUZZ=ON "${BUILD_OPTS[@]}"
stage "ASan + UBSan tests"
(cd build-fuzz && "${NORAND[@]}" ctest --output-on-failure -j"$JOBS")

stage "bounded differential fuzzing (${FUZZ_SECONDS:-20} s per target)"
FUZZ_DIR=build-fuzz bash scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
unset CC CXX

stage "TSan build (the concurrency tests)"
# Only the tests with concurrency in them run under TSan, so only those are
# built (none of them runs the kudu program).
TSAN_PATTERN='concurrency|budget|thread_pool|block_map|page_arena|final_merges|container_listing|replay_threads|deferred_close|sharded_generation|live_block_list'
tsan_targets=()
for f in test/unit/*_test.cc test/integration/*_test.cc; do
  [[ -e "$f" ]] || continue
  name=$(basename "$f" .cc)
  if [[ "$name" =~ $TSAN_PATTERN ]]; then
    tsan_targets+=("$name")
  fi
done
if [[ ${#tsan_targets[@]} -eq 0 ]]; then
  echo "no tests match '$TSAN_PATTERN'; TSan run skipped"
  exit 0
fi
NINJA_TARGETS="${tsan_targets[*]}" bash scripts/build.sh build-tsan -DKUDU_SANITIZE=tsan "${BUILD_OPTS[@]}"
stage "TSan tests"
(cd build-tsan && "${NORAND[@]}" ctest --output-on-failure -j"$JOBS" -R "$TSAN_PATTERN")
stage "done"
