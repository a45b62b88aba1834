#!/usr/bin/env python3
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

"""Markdown tables from a `kudu fs bench` JSON report (for docs/benchmarks.md).

    python3 scripts/bench_tables.py build/bench.json > /tmp/tables.md

Prints a summary table (one row per workload), a per-strategy detail table
and the targets. Standard library only.
"""
import json
import sys


def ms(x):
    return f"{x * 1e3:.2f}"


def human(x):
    if x >= 1e6:
        return f"{x / 1e6:.2f} M"
    if x >= 1e4:
        return f"{x / 1e3:.1f} k"
    return f"{x:.0f}"


def size(b):
    if b >= 1 << 20:
        return f"{b / (1 << 20):.2f} MiB"
    if b >= 1 << 10:
        return f"{b / (1 << 10):.1f} KiB"
    return f"{b} B"


def main():
    r = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "build/bench.json"))
    m, c = r["machine"], r["config"]
    print(f"Run: {m['cpus']} CPUs ({m['cpu_model']}), {m['kernel']}, load average "
          f"{m['load_avg_before'][0]:.2f} at start / {m['load_avg_after'][0]:.2f} at end; "
          f"{c['repetitions']} repetitions, {c['threads_per_dir']} threads per dir, "
          f"cache {c['cache_mode']}, scale {c['scale']}, {r['total_seconds']:.1f} s in all.\n")

    print("| workload | containers | records | metadata | streaming ms | inmemory ms | "
          "speedup | auto | windowed | syscalls str → inm | rec/CPU-s inm | ÷ floor (wall) | "
          "÷ floor (CPU) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for w in r["workloads"]:
        by = {s["strategy"]: s for s in w["strategies"]}
        s, i = by.get("streaming"), by.get("inmemory")
        if not s or not i:
            continue
        a, win = by.get("auto"), by.get("windowed")
        sp = lambda v: f"{v['speedup_over_streaming']:.2f}×" if v else "–"
        print(f"| {w['name']} | {w['containers']} | {w['records']} | {size(w['metadata_bytes'])} | "
              f"{ms(s['wall_s']['median'])} | {ms(i['wall_s']['median'])} | **{sp(i)}** | "
              f"{sp(a)} | {sp(win)} | {s['metadata_read_syscalls']} → "
              f"{i['metadata_read_syscalls']} | {human(i['records_per_cpu_s'])} | "
              f"{i['floor_ratio']:.2f} | {i.get('floor_ratio_cpu', 0):.2f} |")
    print()

    print("| workload | strategy | wall ms median [min–max] | user ms | sys ms | read syscalls | "
          "bytes read | peak buffer | rec/CPU-s | speedup | ÷ floor |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for w in r["workloads"]:
        for s in w["strategies"]:
            floor = s["strategy"].endswith("floor")
            print(f"| {w['name']} | {s['strategy']} | {ms(s['wall_s']['median'])} "
                  f"[{ms(s['wall_s']['min'])}–{ms(s['wall_s']['max'])}] | "
                  f"{ms(s['user_s']['median'])} | {ms(s['sys_s']['median'])} | "
                  f"{s['metadata_read_syscalls']} | {size(s['metadata_bytes_read'])} | "
                  f"{'–' if floor else size(s['peak_buffer_bytes'])} | "
                  f"{'–' if floor else human(s['records_per_cpu_s'])} | "
                  f"{s['speedup_over_streaming']:.2f}× | {s['floor_ratio']:.2f} |")
    print()

    print("| target | measured on | value | goal | met |")
    print("|---|---|---:|---:|:---:|")
    for t in r["targets"]:
        if not t["measured"]:
            continue
        v, g = t["value"], t["goal"]
        fmt = human if g >= 1e6 else (lambda x: f"{x:.4f}") if g < 1 else (lambda x: f"{x:.2f}")
        print(f"| {t['description']} | {t['workload']} | {fmt(v)} | {fmt(g)} | "
              f"{'yes' if t['met'] else '**no**'} |")


if __name__ == "__main__":
    main()
