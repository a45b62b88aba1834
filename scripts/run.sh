#!/usr/bin/env bash
# The main job: sets up, builds, then generates a realistic data dir state
# with `kudu fs generate` in a temporary directory and prints a summary.
# (This becomes `kudu fs bench` once the benchmark action lands.)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
bash scripts/build.sh build

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kudu-run.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

KUDU=build/bin/kudu
DIRS="$WORK/data1,$WORK/data2,$WORK/data3"
echo "=== kudu fs generate --fs_data_dirs=$DIRS --containers=100 --blocks_per_container=1000 --deleted_block_percentage=50"
"$KUDU" fs generate --fs_data_dirs="$DIRS" --containers=100 --blocks_per_container=1000 \
  --deleted_block_percentage=50 "$@"

echo "=== on disk"
for d in "$WORK"/data*; do
  n=$(find "$d/data" -name '*.metadata' | wc -l)
  md=$(find "$d/data" -name '*.metadata' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
  echo "$(basename "$d"): $n containers, $md metadata bytes, $(du -sh "$d" | cut -f1) allocated"
done
echo "live blocks listed: $(wc -l < "$WORK/data1/generate_live_blocks.txt")"
