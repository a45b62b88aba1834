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

# Plots the scaling sweep of `kudu fs bench --bench_scaling --bench_csv_out=<csv>`:
#   scripts/plot_scaling.sh [scaling.csv] [out-dir]
# (defaults: build/scaling.csv, docs/img). Writes two PNGs with gnuplot
# (pngcairo; Debian's gnuplot-nox), each with the open's wall time (left)
# and its peak RSS (right), warm and cold, auto and Streaming:
#   scaling_records.png     against records, at a fixed container count
#   scaling_containers.png  against containers, at a fixed record count
set -euo pipefail
cd "$(dirname "$0")/.."

CSV=${1:-build/scaling.csv}
OUT=${2:-docs/img}
command -v gnuplot >/dev/null || { echo "plot_scaling: gnuplot is missing (scripts/setup.sh installs it)" >&2; exit 1; }
[[ -f "$CSV" ]] || { echo "plot_scaling: no CSV at $CSV (run: build/bin/kudu fs bench --bench_scaling --bench_csv_out=$CSV)" >&2; exit 1; }
mkdir -p "$OUT"
DATA=$(mktemp -d "${TMPDIR:-/tmp}/plot_scaling.XXXXXX")
trap 'rm -rf "$DATA"' EXIT

# One file per axis, cache mode and strategy: x (M records or containers),
# wall s, peak RSS MiB; sorted by x. Columns by the header's names.
awk -F, -v out="$DATA" '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  $col["kind"] == "open" && $col["group"] ~ /^scaling-/ {
    axis = $col["group"]; sub(/^scaling-/, "", axis)
    x = axis == "records" ? $col["records"] / 1e6 : $col["containers"]
    f = out "/" axis "-" $col["cache_mode"] "-" $col["strategy"] ".dat"
    printf "%.6f %.6f %.3f\n", x, $col["wall_s"], $col["peak_rss_bytes"] / 1048576 >> f
  }' "$CSV"
for f in "$DATA"/*.dat; do sort -g -o "$f" "$f"; done

plot_axis() {
  local axis=$1 xlabel=$2 png=$3
  local series=()
  for f in "$DATA/$axis"-*.dat; do [[ -e "$f" ]] && series+=("$f"); done
  [[ ${#series[@]} -gt 0 ]] || { echo "plot_scaling: no $axis points in $CSV" >&2; return 0; }
  local wall="" rss=""
  for f in "${series[@]}"; do
    local t; t=$(basename "$f" .dat); t=${t#"$axis"-}
    local style="lp"
    wall+="${wall:+, }'$f' using 1:2 with $style title '$t'"
    rss+="${rss:+, }'$f' using 1:3 with $style title '$t'"
  done
  gnuplot <<GP
set terminal pngcairo size 1200,480 font ",10"
set output "$OUT/$png"
set multiplot layout 1,2
set grid
set key top left
set xlabel "$xlabel"
set ylabel "open wall time (s)"
set title "open time"
plot $wall
set ylabel "peak RSS (MiB)"
set title "peak RSS of the open (a fresh process per open)"
plot $rss
unset multiplot
GP
  echo "plot_scaling: wrote $OUT/$png"
}
plot_axis records "records (millions)" scaling_records.png
plot_axis containers "containers" scaling_containers.png
