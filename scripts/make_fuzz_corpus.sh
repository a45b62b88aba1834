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

# Regenerates the committed seed corpus test/fuzz/corpus/<target>/ with the
# generator test/fuzz/make_fuzz_corpus.cc (valid files, truncated, broken,
# hostile lengths, malformed and non-canonical records, encrypted variants,
# small data dirs). Deterministic; the seeds stay well under 1 MiB.
#   scripts/make_fuzz_corpus.sh [out_dir]   (default test/fuzz/corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-test/fuzz/corpus}
BUILD=${FUZZ_DIR:-build-fuzz}
CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DKUDU_FUZZ=ON >/dev/null
ninja -C "$BUILD" -j"${JOBS:-2}" make_fuzz_corpus
NORAND=()
if command -v setarch >/dev/null 2>&1 && setarch "$(uname -m)" -R true 2>/dev/null; then
  NORAND=(setarch "$(uname -m)" -R)
fi
"${NORAND[@]}" "$BUILD/bin/make_fuzz_corpus" "$OUT"
du -sh "$OUT"
