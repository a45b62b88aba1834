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

# Plots a `kudu fs bench --format=json` report (or --bench_json_out file):
#   scripts/plot_bench.sh [report.json] [out-dir]
# (defaults: build/bench.json, docs/img). Writes PNGs with gnuplot (pngcairo;
# Debian's gnuplot-nox) from data that python3 (standard library only)
# extracts from the JSON:
#   speedup.png     wall-time speedup over Streaming of each strategy, per workload
#   syscalls.png    metadata read syscalls per strategy and the floor (log scale)
#   floor.png       replay wall time / floor wall time (1 = the floor)
#   throughput.png  records per CPU-second (= per busy thread) per strategy
set -euo pipefail
cd "$(dirname "$0")/.."

REPORT=${1:-build/bench.json}
OUT=${2:-docs/img}
command -v gnuplot >/dev/null || { echo "plot_bench: gnuplot is missing (scripts/setup.sh installs it)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "plot_bench: python3 is missing" >&2; exit 1; }
[[ -f "$REPORT" ]] || { echo "plot_bench: no report at $REPORT (run: build/bin/kudu fs bench --bench_json_out=$REPORT)" >&2; exit 1; }
mkdir -p "$OUT"
DATA=$(mktemp -d "${TMPDIR:-/tmp}/plot_bench.XXXXXX")
trap 'rm -rf "$DATA"' EXIT

# One row per workload: name, then per strategy (streaming inmemory auto
# windowed floor): speedup, syscalls, floor ratio, records per CPU-second,
# wall ms. "?" where a strategy was not measured (gnuplot skips it).
python3 - "$REPORT" "$DATA" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
out = sys.argv[2]
strategies = ["streaming", "inmemory", "auto", "windowed", "floor"]
rows = {"plain": [], "encrypted": []}
for w in report["workloads"]:
    by = {s["strategy"]: s for s in w.get("strategies", [])}
    if not by:
        continue
    cols = [w["name"].replace("-enc", "")]
    for key in ("speedup_over_streaming", "metadata_read_syscalls", "floor_ratio",
                "records_per_cpu_s"):
        for s in strategies:
            v = by.get(s, {}).get(key)
            cols.append("?" if v in (None, 0) else repr(v))
    for s in strategies:
        v = by.get(s, {}).get("wall_s", {}).get("median")
        cols.append("?" if v is None else repr(v * 1e3))
    rows["encrypted" if w["encrypted"] else "plain"].append(cols)
for kind, rs in rows.items():
    with open(f"{out}/{kind}.dat", "w") as f:
        f.write("# name " + " ".join(f"{k}_{s}" for k in ("speedup", "syscalls", "floor", "rate", "wall") for s in strategies) + "\n")
        for r in rs:
            f.write(" ".join(f'"{c}"' if i == 0 else c for i, c in enumerate(r)) + "\n")
m = report.get("machine", {})
c = report.get("config", {})
with open(f"{out}/title.txt", "w") as f:
    f.write(f"{m.get('cpus', '?')} CPUs, {c.get('threads_per_dir', '?')} threads/dir, "
            f"{c.get('repetitions', '?')} reps, page cache {c.get('cache_mode', '?')}, "
            f"load average {m.get('load_avg_before', [0])[0]:.2f} at start")
PY

# Columns: 1 name; speedup 2-6; syscalls 7-11; floor ratio 12-16;
# rate 17-21; wall 22-26 (streaming, inmemory, auto, windowed, floor).
SUB=$(cat "$DATA/title.txt")
gnuplot <<GP
set terminal pngcairo size 1400,900 font "DejaVu Sans,11"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key top left horizontal
# Headroom above the tallest bar so the key never covers one.
set offsets 0, 0, graph 0.2, 0
set xtics rotate by -30 scale 0
set datafile missing "?"
set linetype 1 lc rgb "#b0b0b0"
set linetype 2 lc rgb "#1f77b4"
set linetype 3 lc rgb "#2ca02c"
set linetype 4 lc rgb "#ff7f0e"
set linetype 5 lc rgb "#7f7f7f"

set output "$OUT/speedup.png"
set multiplot layout 2,1 title "Open wall time: speedup over Streaming (median; higher is better)\n{/*0.8 $SUB}"
set ylabel "x faster than Streaming"
set yrange [0:*]
set title "plain"
plot "$DATA/plain.dat" using 3:xtic(1) lt 2 title "inmemory", '' using 4 lt 3 title "auto", '' using 5 lt 4 title "windowed", \
     4 with lines lw 2 dt 2 lc rgb "#d62728" title "4x target", 10 with lines lw 2 dt 3 lc rgb "#9467bd" title "10x target (G4)"
set title "encrypted (AES-128)"
plot "$DATA/encrypted.dat" using 3:xtic(1) lt 2 title "inmemory (encrypted)", '' using 4 lt 3 title "auto", '' using 5 lt 4 title "windowed", \
     4 with lines lw 2 dt 2 lc rgb "#d62728" title "4x target"
unset multiplot

set output "$OUT/syscalls.png"
set multiplot layout 2,1 title "Metadata read system calls per open (log scale; the file layer's count)\n{/*0.8 $SUB}"
set logscale y
set yrange [1:*]
set ylabel "read syscalls"
set format y "10^{%L}"
set title "plain"
plot "$DATA/plain.dat" using 7:xtic(1) title "streaming", '' using 8 title "inmemory", '' using 9 title "auto", '' using 10 title "windowed", '' using 11 title "floor"
set title "encrypted (AES-128)"
plot "$DATA/encrypted.dat" using 7:xtic(1) title "streaming", '' using 8 title "inmemory", '' using 9 title "auto", '' using 10 title "windowed", '' using 11 title "floor"
unset multiplot
unset logscale y
set format y "%g"

set output "$OUT/floor.png"
set multiplot layout 2,1 title "Open wall time / floor wall time (read every metadata byte once + CRC; lower is better)\n{/*0.8 $SUB}"
set logscale y
set yrange [0.5:*]
set ylabel "x the floor"
set title "plain"
plot "$DATA/plain.dat" using 12:xtic(1) lt 1 title "streaming", '' using 13 lt 2 title "inmemory", '' using 14 lt 3 title "auto", '' using 15 lt 4 title "windowed", \
     3 with lines lw 2 dt 2 lc rgb "#d62728" title "3x target", 1 with lines lw 1 lc rgb "black" notitle
set title "encrypted (AES-128)"
plot "$DATA/encrypted.dat" using 12:xtic(1) lt 1 title "streaming", '' using 13 lt 2 title "inmemory", '' using 14 lt 3 title "auto", '' using 15 lt 4 title "windowed", \
     3 with lines lw 2 dt 2 lc rgb "#d62728" title "3x target", 1 with lines lw 1 lc rgb "black" notitle
unset multiplot
unset logscale y

set output "$OUT/throughput.png"
set multiplot layout 2,1 title "Records replayed per CPU-second (user + sys of the open = per busy thread)\n{/*0.8 $SUB}"
set yrange [0:*]
set ylabel "M records / CPU-s"
set title "plain"
plot "$DATA/plain.dat" using (\$17/1e6):xtic(1) title "streaming", '' using (\$18/1e6) title "inmemory", '' using (\$19/1e6) title "auto", '' using (\$20/1e6) title "windowed", \
     5 with lines lw 2 dt 2 lc rgb "#d62728" title "5 M/s target"
set title "encrypted (AES-128)"
plot "$DATA/encrypted.dat" using (\$17/1e6):xtic(1) title "streaming", '' using (\$18/1e6) title "inmemory", '' using (\$19/1e6) title "auto", '' using (\$20/1e6) title "windowed", \
     5 with lines lw 2 dt 2 lc rgb "#d62728" title "5 M/s target"
unset multiplot
GP
echo "plot_bench: wrote $OUT/speedup.png $OUT/syscalls.png $OUT/floor.png $OUT/throughput.png"
