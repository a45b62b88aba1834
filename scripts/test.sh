#!/usr/bin/env bash
# Sets up, builds and runs every test: the Release build first, then (unless
# SKIP_SANITIZERS=1) the whole suite under ASan+UBSan, and the concurrency
# and memory-budget tests under TSan. Sized for 2 cores and well under 15
# minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

JOBS=${JOBS:-2}
export JOBS

bash scripts/setup.sh

# Sanitizer runtimes of this toolchain refuse the high mmap randomisation of
# recent kernels ("unexpected memory mapping"); running without address-space
# randomisation avoids it. setarch is in util-linux, on every Debian system.
NORAND=()
if command -v setarch >/dev/null 2>&1 && setarch "$(uname -m)" -R true 2>/dev/null; then
  NORAND=(setarch "$(uname -m)" -R)
fi

echo "=== Release build and tests"
bash scripts/build.sh build
(cd build && ctest --output-on-failure -j"$JOBS")

if [[ "${SKIP_SANITIZERS:-0}" == "1" ]]; then
  echo "=== sanitizers skipped (SKIP_SANITIZERS=1)"
  exit 0
fi

echo "=== ASan + UBSan build and tests"
bash scripts/build.sh build-asan -DKUDU_SANITIZE=asan
(cd build-asan && "${NORAND[@]}" ctest --output-on-failure -j"$JOBS" -LE slow)

echo "=== TSan build and concurrency tests"
# Only the tests with concurrency in them run under TSan, so only those are built.
TSAN_PATTERN='concurrency|budget'
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
NINJA_TARGETS="kudu ${tsan_targets[*]}" bash scripts/build.sh build-tsan -DKUDU_SANITIZE=tsan
(cd build-tsan && "${NORAND[@]}" ctest --output-on-failure -j"$JOBS" -R "$TSAN_PATTERN")
