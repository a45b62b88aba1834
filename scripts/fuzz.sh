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

# Builds the libFuzzer targets with clang (ASan + UBSan + libFuzzer) into
# build-fuzz and runs each one for a bounded time on a copy of its seed
# corpus, printing the executions per target. Any divergence from Streaming,
# crash, leak, timeout or out-of-memory fails the script and leaves the
# reproducer in build-fuzz/artifacts/.
#
#   scripts/fuzz.sh [seconds_per_target]      (default 20: about a minute in all)
#
# Environment:
#   FUZZ_TARGETS  space-separated subset of the targets (default: all of test/fuzz/*_fuzz.cc)
#   FUZZ_ARGS     extra libFuzzer flags, e.g. "-jobs=4 -workers=4" for long runs
#   FUZZ_DIR      build dir (default build-fuzz)
#   JOBS          ninja parallelism (default 2)
# The working corpus (seeds plus what the runs found) persists in
# $FUZZ_DIR/corpus/<target>, so repeated runs continue where they stopped.
set -euo pipefail
cd "$(dirname "$0")/.."

SECS=${1:-20}
JOBS=${JOBS:-2}
BUILD=${FUZZ_DIR:-build-fuzz}

if [[ -z "${FUZZ_TARGETS:-}" ]]; then
  FUZZ_TARGETS=""
  for f in test/fuzz/*_fuzz.cc; do FUZZ_TARGETS+=" $(basename "$f" .cc)"; done
fi

CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DKUDU_FUZZ=ON >/dev/null
# shellcheck disable=SC2086
ninja -C "$BUILD" -j"$JOBS" $FUZZ_TARGETS

# Sanitizer runtimes of this toolchain refuse the high mmap randomisation of
# recent kernels; run without address-space randomisation (as scripts/test.sh).
NORAND=()
if command -v setarch >/dev/null 2>&1 && setarch "$(uname -m)" -R true 2>/dev/null; then
  NORAND=(setarch "$(uname -m)" -R)
fi

max_len_for() {
  case "$1" in
    data_dir_open_fuzz) echo 8192 ;;
    *) echo 4096 ;;
  esac
}

mkdir -p "$BUILD/artifacts"
summary=()
total_execs=0
for t in $FUZZ_TARGETS; do
  work="$BUILD/corpus/$t"
  seeds="test/fuzz/corpus/$t"
  mkdir -p "$work"
  log="$BUILD/artifacts/$t.log"
  echo "=== $t: ${SECS}s"
  args=(-max_total_time="$SECS" -max_len="$(max_len_for "$t")" -timeout=20 -rss_limit_mb=2560
        -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$t-")
  dirs=("$work")
  [[ -d "$seeds" ]] && dirs+=("$seeds")
  # shellcheck disable=SC2086
  if ! "${NORAND[@]}" "$BUILD/bin/$t" "${args[@]}" ${FUZZ_ARGS:-} "${dirs[@]}" >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "FAILED: $t (log: $log; reproducer: $BUILD/artifacts/$t-*)"
    exit 1
  fi
  execs=$(grep -h '^stat::number_of_executed_units' "$log" | awk '{s += $2} END {print s + 0}')
  rate=$(grep -h '^stat::average_exec_per_sec' "$log" | awk '{s += $2} END {print s + 0}')
  corpus=$(find "$work" -type f | wc -l)
  total_execs=$((total_execs + execs))
  line=$(printf '%-34s %10s execs %7s exec/s  corpus %5s files' "$t" "$execs" "$rate" "$corpus")
  echo "$line"
  summary+=("$line")
done
echo "=== fuzz summary (${SECS}s per target, 0 divergences)"
printf '%s\n' "${summary[@]}"
echo "total executions: $total_execs"
