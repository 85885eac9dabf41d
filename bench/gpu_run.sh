#!/usr/bin/env bash
# bench/gpu_run.sh -- build, test and benchmark clhgemm on the GPU test machine.
#
# Run from the repository root (the remote-run tool starts there):
#   bash bench/gpu_run.sh [extra benchmark arguments]
# Environment:
#   OUT=dir        where logs and the CSV go (set by the remote-run tool; default ./out)
#   TESTS=1        also run the device tests: ctest -L device (log: $OUT/ctest.log)
#   BENCH="..."    extra benchmark arguments (before the command-line ones), e.g. "--quick"
#   BENCH=none     build (and test) only
#   JOBS=16        build parallelism;  BUILD_DIR=build-gpu;  BUILD_TYPE=Release
#   CMAKE_ARGS=".." extra configure arguments
#   CTEST_TIMEOUT=300, BENCH_TIMEOUT=420  seconds, so that the summary is always printed
#
# The tool returns only the last 12,000 characters of output, so full logs go to $OUT
# (build.log, ctest.log, bench.log, bench.csv) and a short summary is printed LAST.
set -u -o pipefail

OUT="${OUT:-./out}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
BUILD_DIR="${BUILD_DIR:-build-gpu}"
BUILD_TYPE="${BUILD_TYPE:-Release}"
JOBS="${JOBS:-16}"
TESTS="${TESTS:-0}"
BENCH="${BENCH:-}"
CTEST_TIMEOUT="${CTEST_TIMEOUT:-300}"
BENCH_TIMEOUT="${BENCH_TIMEOUT:-420}"
T_START=$(date +%s)

FAILED=()
STEPS=()
step() { STEPS+=("$1"); }
fail() { FAILED+=("$1"); echo "!!! FAILED: $1" >&2; }
elapsed() { echo "$(( $(date +%s) - T_START ))s"; }

REV="no git"
if REV=$(git rev-parse --short HEAD 2>/dev/null); then
  git diff --quiet HEAD 2>/dev/null || REV="$REV+dirty"
else
  REV="no git"
fi
echo "=== clhgemm gpu_run: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $REV"

# ---- environment -----------------------------------------------------------------------------
if [ -f .gpuenv/env.sh ]; then
  # env.sh expands variables that may be unset (CPATH, ...): source it without nounset.
  set +u
  # shellcheck disable=SC1091
  . .gpuenv/env.sh || fail "sourcing .gpuenv/env.sh"
  set -u
else
  echo "note: .gpuenv/env.sh not found: using the system's OpenCL/CLBlast/OpenBLAS" >&2
fi
command -v nvidia-smi >/dev/null 2>&1 &&
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
echo "--- clinfo -l"
if command -v clinfo >/dev/null 2>&1; then
  clinfo -l 2>&1 || fail "clinfo -l"
else
  echo "clinfo not found"
fi

# ---- configure and build ---------------------------------------------------------------------
BUILD_OK=0
echo "--- configure + build ($BUILD_DIR, $BUILD_TYPE, -j$JOBS) -> $OUT/build.log"
# shellcheck disable=SC2086
if cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" -DCLHGEMM_BUILD_TESTS=ON ${CMAKE_ARGS:-} \
     >"$OUT/build.log" 2>&1; then
  grep -E '^-- (bench|clhgemm|CLBlast|Found OpenCL|Found CUDA)' "$OUT/build.log" | head -20
  if cmake --build "$BUILD_DIR" -j"$JOBS" >>"$OUT/build.log" 2>&1; then
    BUILD_OK=1
    step "build ok ($(elapsed))"
    grep -ciE 'warning' "$OUT/build.log" | sed 's/^/build warnings: /'
  else
    fail "build (see build.log)"
  fi
else
  fail "cmake configure (see build.log)"
fi
if [ "$BUILD_OK" != 1 ]; then
  echo "--- last lines of build.log"
  grep -E 'error|Error|ERROR' "$OUT/build.log" | head -30
  tail -n 40 "$OUT/build.log"
fi

# ---- device tests ----------------------------------------------------------------------------
CTEST_SUMMARY=""
if [ "$BUILD_OK" = 1 ] && [ "$TESTS" = 1 ]; then
  echo "--- ctest -L device -> $OUT/ctest.log"
  if timeout "$CTEST_TIMEOUT" ctest --test-dir "$BUILD_DIR" -L device --output-on-failure -j4 \
       >"$OUT/ctest.log" 2>&1; then
    step "ctest -L device ok ($(elapsed))"
  else
    rc=$?
    if [ "$rc" = 124 ]; then fail "ctest timed out after ${CTEST_TIMEOUT}s"; else fail "ctest -L device (rc=$rc)"; fi
    # the failing tests' own output, bounded
    tail -n 80 "$OUT/ctest.log"
  fi
  CTEST_SUMMARY="$(grep -E 'tests passed|tests failed|\(Failed\)|\(Timeout\)|\(SEGFAULT\)|\(Not Run\)|Skipped|\*\*\*' "$OUT/ctest.log" | tail -n 25)"
fi

# ---- benchmark -------------------------------------------------------------------------------
BENCH_SUMMARY=""
BIN="$BUILD_DIR/bench/clhgemm-bench-gemm"
if [ "$BUILD_OK" = 1 ] && [ "$BENCH" != none ]; then
  if [ -x "$BIN" ]; then
    # shellcheck disable=SC2086
    echo "--- $BIN --csv $OUT/bench.csv $BENCH $* -> $OUT/bench.log"
    # shellcheck disable=SC2086
    timeout "$BENCH_TIMEOUT" "$BIN" --csv "$OUT/bench.csv" $BENCH "$@" 2>&1 | tee "$OUT/bench.log"
    rc=$?
    if [ "$rc" = 0 ]; then
      step "bench ok ($(elapsed))"
    elif [ "$rc" = 124 ]; then
      fail "bench timed out after ${BENCH_TIMEOUT}s (partial rows are in bench.csv)"
    else
      fail "bench (rc=$rc: WARN lines, a failed library call or a crash; see bench.log)"
    fi
    BENCH_SUMMARY="$(sed -n '/^== summary/,$p' "$OUT/bench.log")"
    if [ -z "$BENCH_SUMMARY" ]; then
      # no summary (crash or timeout): the per-shape lines so far
      BENCH_SUMMARY="$(grep -E '^\[|GFLOP/s|n/a|WARN|failed' "$OUT/bench.log" | tail -n 40)"
    fi
  else
    fail "benchmark binary $BIN missing (bench/ not configured?)"
  fi
fi

# ---- summary, printed last -------------------------------------------------------------------
echo
echo "================================ gpu_run summary ($(elapsed)) ================================"
for s in "${STEPS[@]+"${STEPS[@]}"}"; do echo "ok:     $s"; done
for f in "${FAILED[@]+"${FAILED[@]}"}"; do echo "FAILED: $f"; done
if [ -n "$CTEST_SUMMARY" ]; then
  echo "--- ctest"
  echo "$CTEST_SUMMARY"
fi
if [ -n "$BENCH_SUMMARY" ]; then
  echo "--- bench"
  echo "$BENCH_SUMMARY"
fi
echo "files in $OUT: $(cd "$OUT" && ls | tr '\n' ' ')"
[ "${#FAILED[@]}" = 0 ]
