#!/usr/bin/env bash
# Configures and builds the project: scripts/build.sh [build-dir] [extra cmake args...]
# (default build dir: build; Release). Ninja runs with -j$JOBS (default 2:
# CI machines have two cores).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${1:-build}
shift || true
JOBS=${JOBS:-2}

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
ninja -C "$BUILD_DIR" -j"$JOBS" ${NINJA_TARGETS:-}
