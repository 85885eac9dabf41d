#!/usr/bin/env bash
# tools/gpu_tune.sh -- build, tune and benchmark on the GPU test machine, unattended.
#
#   bash tools/gpu_tune.sh OUTDIR
#
# Steps (each logged under OUTDIR; a short summary is printed last):
#   1. . .gpuenv/env.sh (OpenCL loader, CLBlast, OpenBLAS, cJSON unpacked under /tmp/gpuenv)
#   2. configure + build build-gpu                                   -> OUTDIR/build.log
#   3. clhgemm-tune --devices gpu --precision $PREC --budget $BUDGET --out-dir OUTDIR/tune
#      (database OUTDIR/tune/tuning.json; tune.log, candidates.csv, improvements.csv)
#   4. clhgemm-info with that database                               -> OUTDIR/info.txt
#   5. clhgemm-bench-gemm --sizes $SIZES --defaults with that database: tuned next to the
#      built-in defaults, CLBlast and cuBLAS in the same run         -> OUTDIR/bench.{log,csv}
# Environment:
#   BUDGET=5m          tuning budget (the whole tuning run)
#   PREC=both          s, d or both
#   TUNE_ARGS=""       more clhgemm-tune options, e.g. "--gemm" or "--size 8192"
#   RESUME_DIR=dir     continue the search logged in dir (a previous OUTDIR/tune): it is copied
#                      to OUTDIR/tune and clhgemm-tune runs with --resume
#   BENCH=1            0: no benchmark;  SIZES=4096,8192;  REPS=10
#   JOBS=16            build parallelism;  BUILD_DIR=build-gpu
# cJSON must be in .gpuenv: shared/device/prepare.sh does not fetch it; on the machine with the
# package registry run  (cd .gpuenv/debs && apt-get download libcjson1 libcjson-dev)  once.
set -u -o pipefail

OUT="${1:-${OUT:-./out}/tune-run}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
BUDGET="${BUDGET:-5m}"
PREC="${PREC:-both}"
TUNE_ARGS="${TUNE_ARGS:-}"
RESUME_DIR="${RESUME_DIR:-}"
BENCH="${BENCH:-1}"
SIZES="${SIZES:-4096,8192}"
REPS="${REPS:-10}"
JOBS="${JOBS:-16}"
BUILD_DIR="${BUILD_DIR:-build-gpu}"
T0=$(date +%s)
elapsed() { echo "$(( $(date +%s) - T0 ))s"; }
FAILED=()
fail() { FAILED+=("$1"); echo "!!! FAILED: $1" >&2; }

echo "=== clhgemm gpu_tune: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(git rev-parse --short HEAD 2>/dev/null || echo 'no git')"
if [ -f .gpuenv/env.sh ]; then
  set +u
  # shellcheck disable=SC1091
  . .gpuenv/env.sh || fail "sourcing .gpuenv/env.sh"
  set -u
fi
if ! ls /tmp/gpuenv/usr/include/cjson/cJSON.h /usr/include/cjson/cJSON.h >/dev/null 2>&1 &&
   ! ls .gpuenv/debs/libcjson-dev_*.deb >/dev/null 2>&1; then
  echo "cJSON is missing: add libcjson1 and libcjson-dev to .gpuenv/debs (see the header of $0)" >&2
fi
command -v nvidia-smi >/dev/null 2>&1 &&
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | sed 's/^/gpu: /'

echo "--- build ($BUILD_DIR, -j$JOBS) -> $OUT/build.log"
if cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCLHGEMM_BUILD_TESTS=OFF >"$OUT/build.log" 2>&1 &&
   cmake --build "$BUILD_DIR" -j"$JOBS" >>"$OUT/build.log" 2>&1; then
  echo "build ok ($(elapsed))"
else
  fail "build (see build.log)"
  grep -E 'error|Error' "$OUT/build.log" | head -20
  tail -n 30 "$OUT/build.log"
  exit 1
fi

# ---- tune -------------------------------------------------------------------------------------
TDIR="$OUT/tune"
RESUME=""
if [ -n "$RESUME_DIR" ]; then
  mkdir -p "$TDIR"
  cp -r "$RESUME_DIR"/. "$TDIR"/
  RESUME="--resume"
fi
# Budget in seconds for the outer timeout (the tuner stops itself; this is a safety net that
# sends SIGTERM, on which it writes what it has).
secs=$(echo "$BUDGET" | awk '{s=0; n=""; for(i=1;i<=length($0);i++){c=substr($0,i,1); if(c~/[0-9.]/) n=n c; else {if(c=="h") s+=n*3600; else if(c=="m") s+=n*60; else s+=n; n=""}} if(n!="") s+=n; print int(s)}')
echo "--- clhgemm-tune --budget $BUDGET --precision $PREC $TUNE_ARGS $RESUME -> $TDIR"
# CLHGEMM_TUNING_DIR=off: the search starts from the built-in defaults, not a user database.
CLHGEMM_TUNING_DIR=off CLHGEMM_CACHE_DIR="$OUT/kernel-cache" \
  timeout --signal=TERM --kill-after=30 $((secs + 90)) \
  "$BUILD_DIR/tools/clhgemm-tune" --devices gpu --precision "$PREC" --budget "$BUDGET" \
  --out-dir "$TDIR" $RESUME $TUNE_ARGS >"$OUT/tune.out" 2>&1 # (TUNE_ARGS split on purpose)
rc=$?
[ "$rc" = 0 ] || fail "clhgemm-tune (rc=$rc, see tune.out)"
echo "tuning done ($(elapsed))"

CLHGEMM_TUNING_DIR="$TDIR" "$BUILD_DIR/tools/clhgemm-info" --devices gpu >"$OUT/info.txt" 2>&1 ||
  fail "clhgemm-info"

# ---- benchmark: tuned vs defaults vs CLBlast vs cuBLAS ----------------------------------------
if [ "$BENCH" = 1 ]; then
  echo "--- clhgemm-bench-gemm --sizes $SIZES --defaults -> $OUT/bench.log"
  CLHGEMM_TUNING_DIR="$TDIR" CLHGEMM_CACHE_DIR="$OUT/kernel-cache" \
    timeout 300 "$BUILD_DIR/bench/clhgemm-bench-gemm" --device gpu --sizes "$SIZES" --shapes none \
    --reps "$REPS" --defaults --csv "$OUT/bench.csv" >"$OUT/bench.log" 2>&1 || fail "bench (see bench.log)"
fi
rm -rf "$OUT/kernel-cache"

# ---- summary, printed last ---------------------------------------------------------------------
echo
echo "================================ gpu_tune summary ($(elapsed)) ================================"
for f in "${FAILED[@]+"${FAILED[@]}"}"; do echo "FAILED: $f"; done
sed -n '/^== clhgemm-tune summary/,$p' "$OUT/tune.out"
echo "--- improvements (search seconds, GFLOP/s kernel alone)"
cut -d, -f1,3,6 "$TDIR/improvements.csv" 2>/dev/null | tail -n 30
grep -E '^  [sd]gemm:|kernel  ' "$OUT/info.txt"
[ "$BENCH" = 1 ] && sed -n '/^== summary/,$p' "$OUT/bench.log"
echo "files in $OUT: $(cd "$OUT" && ls | tr '\n' ' ')"
[ "${#FAILED[@]}" = 0 ]
