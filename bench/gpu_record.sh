#!/usr/bin/env bash
# shellcheck disable=SC2317  # the stage_* functions are called as "stage_$name"
# bench/gpu_record.sh -- the GPU figures of docs/PERFORMANCE.md, one named stage per measure, on
# the GPU machine (run from the repository root; it sources .gpuenv/env.sh when present, so the
# device command can be just `bash bench/gpu_record.sh STAGE...`).
#
#   bash bench/gpu_record.sh [--out DIR] STAGE...   e.g. bash bench/gpu_record.sh build tests pack
#
# Its logs go to DIR (--out), else to $OUT (the device tool's folder), else to ./gpu-out (a relative
# path from the repository root): never into docs/, which keeps the record and not its raw logs (a
# record names its logs by the commit that holds them, `git show REV:PATH`); docs/ is refused.
#
# Stages run in the order given (`all` = build tests device host level3):
#   build       configure + build Release into $BUILD_DIR (build-gpu) from $SRC (.), with the tests;
#               the cuBLAS and cublasXt columns when a CUDA toolkit is found (nvcc on PATH, else
#               $CUDA_HOME or /usr/local/cuda*: passed as CUDAToolkit_ROOT); records the GPU, the
#               OpenCL devices, clhgemm-info and which reference columns the bench has
#   tests       ctest -L $TEST_LABEL (nvidia) -j2 in $BUILD_DIR
#   device      clhgemm-bench-gemm S/DGEMM n = $DEVICE_SIZES (4096,8192), beta 0.5, then DGEMM 8192
#               beta 0; CLBlast and cuBLAS on the same buffers in the same process
#   tf32        SGEMM n = 8192 with CLHGEMM_SGEMM_MATH=3xtf32 and =tf32 (cuBLAS: FP32, TF32)
#   host        clhgemm-bench-host, host-resident (pageable) S/DGEMM n = $HOST_SIZES (16384,32768)
#               with device-only and cublasXt in the same process (XT=0: no cublasXt, ~3 min less);
#               HOST_RUNS=N more processes of ours alone (the host's copy rate varies by process)
#   sweep       clhgemm-bench-host --sweep n = $SWEEP_SIZES (8..16384), s and d, beta 0 and 0.5: ours (auto
#               route), ours on the device route, OpenBLAS alone, device-only, the bus bound; CSV, PNG
#   smallcall   clhgemm-bench-smallcall n = $SMALL_SIZES (4,8,16,32,48,64), s and d, every layout x
#               transpose: the host API's CPU route, then the BLAS drop-in's cblas_?gemm (--dropin),
#               each against a direct OpenBLAS call on the same arrays (the CPU route's promise)
#   zerocopy    bench/probe/probe_zerocopy.c: CL_MEM_USE_HOST_PTR pinning of the caller's memory
#               against staging
#   blasnumpy   numpy a @ b n = 256..16384, small calls, cholesky, solve on clhgemm's libblas.so.3 (with
#               the reference LAPACK) and on OpenBLAS's (with its LAPACK), back to back, and the
#               reference LAPACK on OpenBLAS (bench/numpy/blas_numpy.py; Debian's python3-debian
#               of .gpuenv), then NUMPY_ROUNDS - 1 more processes of each at NUMPY_ROUND_SIZES,
#               and the medians over the processes (bench/numpy/blas_numpy_summary.py: rounds.txt)
#   lapacknumpy numpy.linalg solve (n/8 right-hand sides), cholesky, qr (reduced), inv, det at
#               n = $LAPACK_NUMPY_SIZES (1024..32768) on OpenBLAS (its own LAPACK; up to
#               $LAPACK_NUMPY_OB_MAX, 16384: at 32768 its qr and inv take minutes each), on clhgemm's
#               liblapack.so.3 beside OpenBLAS's libblas.so.3, and on both drop-ins
#               (bench/numpy/lapack_numpy.py), back to back; then clhgemm-bench-lapack-dropin: the
#               drop-in's dpotrf_/dgetrf_/dgeqrf_ beside ours on a handle and OpenBLAS in one
#               process at $LAPACK_C_SIZES (4096..32768), without numpy's copies. Not timed on a
#               GPU yet; by OpenBLAS's rate on the H100 machine's host (0.5 TFLOP/s) its part alone
#               is ~2 min, the drop-in's runs ~2-3 min each (orgqr stays on the CPU LAPACK), the
#               C program ~4 min: if a 10-minute command is too short, run the stage twice with
#               LAPACK_NUMPY_SIZES and LAPACK_C_SIZES split
#   oversize    clhgemm-bench-host --oversize --sizes 65536: DGEMM larger than the GPU (103 GB)
#   scaling     host-resident S/DGEMM n = 32768 on every GPU and on the first alone (--one-device)
#   level3      clhgemm-bench-level3 n = $L3_SIZES (8192), s and d: SYMM, SYRK, SYR2K (fused and
#               two-pass), TRMM next to our GEMM of the same size and CLBlast's same routine
#   level3host  clhgemm-bench-level3 --host n = 16384 next to the host GEMM of the same size
#   complex     clhgemm-bench-gemm C/ZGEMM n = $CPLX_SIZES (4096,8192) beside CLBlast, cuBLAS and
#               cuBLAS's 3M form, then clhgemm-bench-level3 c,z n = $CPLX_L3_SIZES (4096): every
#               complex routine (HEMM, HERK, HER2K too) next to our CGEMM/ZGEMM and CLBlast's
#   trsmblocked host DTRSM n = $TB_N (32768) under CLHGEMM_DEVICE_MEMORY_LIMIT=$TB_LIMIT (4G), so that A
#               does not fit and the blocked path runs (src/host/trsm_blocked.c): the model's
#               choice, host panels with and without look-ahead, device panels; GEMM beside each
#   cpushare    clhgemm-tune --cpu-model (CPU_MODEL=0: skip; into a copy of the shipped database),
#               then clhgemm-bench-host --cpu-share n = 16384,32768: GPU-only, hybrid, OpenBLAS alone
#   trace       a Chrome trace (CLHGEMM_TRACE) of one host-resident DGEMM n = 32768 per entry of
#               TRACE_ENVS ("-" plain, else ENV=V[,ENV=V]), summed up by bench/prof/trace_summary.py
#   probe       bench/probe/probe_mma.c (the FP64 mma.sync ceiling from OpenCL),
#               bench/probe/probe_lmem.c, bench/probe/probe_pinned_share.c (two GPUs: one
#               context's pinned staging feeding the other)
#   ptxas       ptxas -v (sm_90) on each GEMM kernel the driver caches: registers, spills, mma.sync
#   factor      the factorizations' record, clhgemm-bench-lapack (one process per precision and
#               routine; every result checked; FACTOR_PARTS, default all of: incore ooc big trace
#               scaling): incore: d potrf n = $FACTOR_D_POTRF (4096,8192,20000,40000), getrf
#               $FACTOR_D_GETRF (8192,20000,40000), geqrf $FACTOR_D_GEQRF (8192,20000,30000), s of
#               the three at $FACTOR_S_SIZES (8192,20000,40000), --reps $FACTOR_REPS (2), OpenBLAS up
#               to $FACTOR_OB_MAX (8192); ooc: DPOTRF and DGEQRF n = $FACTOR_OOC_N (40000) again
#               under --memory-limit $FACTOR_LIMIT (8G) beside the in-core host column
#               (CLHGEMM_VERBOSE=1: the driver's own "out of core" line); big: DGETRF n =
#               $FACTOR_BIG_N (110000, 97 GB) from host memory, 1 call, no warm-up: plain where it
#               exceeds the GPU (nvidia-smi's memory.total up to 100 GiB: the H100), else under
#               --memory-limit $FACTOR_BIG_LIMIT (64G) alone (an H200); trace: one traced call of
#               each d routine at n = $FACTOR_TRACE_N (16384), summed by trace_summary.py;
#               scaling: where $FACTOR_GPUS (nvidia-smi's count) > 1, d potrf, getrf, geqrf at
#               $FACTOR_SCALING_SIZES (20000,40000,60000) on every GPU and on the first alone
#               (--one-device). Each run under FACTOR_TIMEOUT (570 s); the whole takes more than
#               one 10-minute device command: run the parts apart (FACTOR_PARTS=incore, then
#               FACTOR_PARTS="ooc big", ...) with a --out each, since a stage's folder is cleared
#               when it starts
#   scalapack   clhgemm-bench-scalapack (bench/scalapack/; needs Open MPI's mpirun, libopenmpi-dev
#               and libscalapack-openmpi-dev where the tree is built): PDGEMM, PDPOTRF, PDGETRF at
#               n = $SCAL_SIZES (8192,16384), NB = $SCAL_NBS (64..2048), the grids of $SCAL_GRIDS
#               (1x1,1x2,2x1,2x2,1x4,4x4,2x8) that use every rank (none: 1 x ranks):
#               on one GPU with both drop-ins (CLHGEMM_DEVICES=local-rank) on $SCAL_GPU_RANKS
#               (1 2 4) ranks, then on OpenBLAS alone (its libblas.so.3 and liblapack.so.3, the
#               cores shared out as OPENBLAS_NUM_THREADS) on $SCAL_CPU_RANKS (1 4 16) ranks;
#               SCAL_PARTS (gpu cpu) picks either. GFLOP/s, the ranks' time in local level-3 calls,
#               in the panels' level 1-2 and LAPACK calls, in MPI; the best NB and grid per routine
#               and n. Each rank count is one process group under a 590 s limit: for n = 40000 run
#               the stage with SCAL_SIZES=40000 and the NBs that won at 16384 (SCAL_NBS)
#   ab REV      REV (a git revision, a source directory, or .scratch/ab-REV made where git is:
#               git archive --prefix=ab-REV/ REV | tar -x -C .scratch) built in build-ab-REV, the
#               working tree in $BUILD_DIR; then device n = 8192 S/D, host 16384/32768 S/D
#               (AB_HOST_SIZES) and level3 n = 8192 (AB_PARTS; also midhost: host calls on the
#               device route at n = $AB_MID_SIZES, 256..4096) for REV and the working tree
#               alternately, AB_ROUNDS times, in one session; prints the before/after table
#   pack        (run last wherever it is named) this run's stage folders into $OUT/gpu-record.tgz
#               beside summary.txt: the device tool brings back at most 8 files
#
# Each stage writes its logs, CSVs and summary.txt under $OUT/<stage>/ (--out or OUT), and
# every bench run's mean SM clock and power (nvidia-smi sampling, read only) into clocks.txt;
# the stages' short tables are printed last. Exit status: 0 if every stage succeeded.
# A device command may run 10 minutes: `build tests device` fit one, `host` another (the build
# stays on a warm machine), `ab` a third.
# Environment: OUT, SRC, BUILD_DIR, JOBS (16), CMAKE_ARGS, TEST_LABEL, DEVICE_SIZES, REPS (10),
# HOST_SIZES, HOST_PREC (both), XT (1), HOST_RUNS (1), OVERSIZE_N (65536), L3_SIZES, CM_BUDGET
# (80s), CPU_MODEL (1), TRACE_N (32768), TRACE_ENVS (-), AB_PARTS (device host level3),
# AB_ROUNDS (1), AB_SRC, AB_HOST_SIZES, AB_MID_SIZES, NUMPY_BUDGET (12), NUMPY_SIZES, NUMPY_ROUNDS (3), NUMPY_ROUND_SIZES (256,512,1024),
# LAPACK_NUMPY_SIZES, LAPACK_NUMPY_OB_MAX (16384), LAPACK_NUMPY_BUDGET (20), LAPACK_C_SIZES,
# FACTOR_PARTS, FACTOR_D_POTRF, FACTOR_D_GETRF, FACTOR_D_GEQRF, FACTOR_S_SIZES, FACTOR_REPS (2),
# FACTOR_OB_MAX (8192), FACTOR_OOC_N (40000), FACTOR_LIMIT (8G), FACTOR_BIG_N (110000),
# FACTOR_BIG_LIMIT (64G), FACTOR_TRACE_N (16384), FACTOR_GPUS, FACTOR_SCALING_SIZES,
# FACTOR_TIMEOUT (570), SCAL_SIZES, SCAL_NBS, SCAL_GRIDS, SCAL_GPU_RANKS, SCAL_CPU_RANKS,
# SCAL_PARTS, CLHGEMM_CACHE_DIR (/tmp/clhgemm-cache).
set -u -o pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
ROOT=$PWD

usage() { sed -n '3,/^set -u/p' "$ROOT/bench/gpu_record.sh" | sed '$d; s/^# \{0,1\}//'; }

# ---- the stage list, checked before anything runs -----------------------------------------------
STAGES=()
PACK=0
AB_REV=""
while [ $# -gt 0 ]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --out)
      [ $# -ge 2 ] || { echo "gpu_record: --out needs a directory" >&2; exit 2; }
      OUT=$2; shift ;;
    --out=*) OUT=${1#--out=} ;;
    all) STAGES+=(build tests device host level3) ;;
    build | tests | device | tf32 | host | sweep | smallcall | zerocopy | blasnumpy | lapacknumpy | oversize | scaling | level3 | level3host | complex | trsmblocked | cpushare | trace | factor | probe | ptxas | scalapack)
      STAGES+=("$1") ;;
    ab)
      [ $# -ge 2 ] || { echo "gpu_record: ab needs a revision (ab REV)" >&2; exit 2; }
      STAGES+=(ab); AB_REV=$2; shift ;;
    pack) PACK=1 ;;
    *) echo "gpu_record: unknown stage '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
[ ${#STAGES[@]} -gt 0 ] || [ "$PACK" = 1 ] || { usage >&2; exit 2; }

# ---- environment --------------------------------------------------------------------------------
if [ -f .gpuenv/env.sh ] && [ -z "${OCL_ICD_VENDORS:-}" ]; then
  set +u  # .gpuenv/env.sh expands variables that may be unset (CPATH, ...)
  # shellcheck source=/dev/null
  . .gpuenv/env.sh >/dev/null 2>&1 || echo "gpu_record: sourcing .gpuenv/env.sh failed" >&2
  set -u
fi
OUT=${OUT:-./gpu-out}
case "$(realpath -m "$OUT")/" in  # raw logs stay out of docs/ (the record cites them from git)
  "$(realpath "$ROOT")"/docs/*) echo "gpu_record: $OUT is under docs/: write the logs elsewhere" \
    "(--out DIR or OUT)" >&2; exit 2 ;;
esac
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
SRC=${SRC:-.}
BUILD_DIR=${BUILD_DIR:-build-gpu}
B=$BUILD_DIR/bench
JOBS=${JOBS:-16}
REPS=${REPS:-10}
export CLHGEMM_CACHE_DIR=${CLHGEMM_CACHE_DIR:-/tmp/clhgemm-cache}
HAVE_SMI=0
command -v nvidia-smi >/dev/null 2>&1 && HAVE_SMI=1

CUDA_ARGS=()
CUDA_ROOT=""
if command -v nvcc >/dev/null 2>&1; then
  CUDA_ROOT=$(dirname "$(dirname "$(command -v nvcc)")")
else
  for d in ${CUDA_HOME:-} /usr/local/cuda /usr/local/cuda-*; do
    if [ -x "$d/bin/nvcc" ]; then CUDA_ROOT=$d; CUDA_ARGS=(-DCUDAToolkit_ROOT="$d"); break; fi
  done
fi

revision() { # DIR: short commit (+dirty) of a git tree, or what an extracted tree says
  if [ -f "$1/.gpu_record_rev" ]; then cat "$1/.gpu_record_rev"
  elif git -C "$1" rev-parse --short HEAD >/dev/null 2>&1; then
    printf '%s%s\n' "$(git -C "$1" rev-parse --short HEAD)" \
      "$(git -C "$1" diff --quiet HEAD -- 2>/dev/null || echo +dirty)"
  else echo "$1 (no git)"; fi
}

# ---- helpers ------------------------------------------------------------------------------------
SD=$OUT  # the running stage's directory

# run_win LABEL LOG SECONDS CMD...: CMD with stdout and stderr in LOG, under a time limit, while
# nvidia-smi samples the SM clock and power every 100 ms (read only: a query, never a setting);
# appends the label, exit status and mean clock and power over the busy samples (> 150 W) to
# $SD/clocks.txt. Returns CMD's status (124: timed out).
run_win() {
  local label=$1 log=$2 limit=$3 rc smi_pid="" stat
  shift 3
  if [ "$HAVE_SMI" = 1 ]; then
    nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader,nounits -lms 100 \
      >"$log.smi.csv" 2>/dev/null &
    smi_pid=$!
  fi
  timeout "$limit" "$@" >"$log" 2>&1
  rc=$?
  if [ -n "$smi_pid" ]; then kill "$smi_pid" 2>/dev/null; wait "$smi_pid" 2>/dev/null; fi
  stat="no clock samples"
  [ -f "$log.smi.csv" ] && stat=$(awk -F', *' '$2 + 0 > 150 { n++; c += $1; p += $2 }
    END { if (n) printf "%.0f MHz, %.0f W", c / n, p / n; else printf "no busy samples" }' "$log.smi.csv")
  [ "$rc" = 124 ] && stat="$stat; TIMED OUT after ${limit}s"
  printf '%-44s rc %-3s %s\n' "$label" "$rc" "$stat" >>"$SD/clocks.txt"
  return "$rc"
}

summary_of() { sed -n '/^== summary/,$p' "$1" | sed '/^$/d; /^eff % = /d'; }  # a bench's table
header_of() { grep -E '^(device|driver|params [sd]|CLBlast|cuBLAS) *:' "$1" | head -6; }
pack_rates() { # LOG...: the pack threads' copy rates the host pipeline reported
  grep -ho 'pack threads reached [0-9.]* GB/s' "$@" 2>/dev/null | awk '{ v = $4 + 0; if (!n++ || v < lo) lo = v; if (v > hi) hi = v }
    END { if (n) printf "pack threads reached %.1f-%.1f GB/s over %d calls\n", lo, hi, n }'
}

configure_build() { # SRC DIR TESTS LOG [cmake args...]
  local src=$1 dir=$2 tests=$3 log=$4
  shift 4
  # shellcheck disable=SC2086  # CMAKE_ARGS: words on purpose
  cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCLHGEMM_BUILD_TESTS="$tests" \
    -DCLHGEMM_BUILD_EXAMPLES=OFF "${CUDA_ARGS[@]+"${CUDA_ARGS[@]}"}" "$@" ${CMAKE_ARGS:-} >"$log" 2>&1 &&
    cmake --build "$dir" -j"$JOBS" >>"$log" 2>&1
}

need_build() { # the bench programs of $BUILD_DIR, built first when missing
  [ -x "$B/clhgemm-bench-gemm" ] && return 0
  echo "  ($BUILD_DIR not built: building it, log $SD/build.log)"
  configure_build "$SRC" "$BUILD_DIR" ON "$SD/build.log" || { tail -20 "$SD/build.log"; return 1; }
}

# ---- stages -------------------------------------------------------------------------------------
stage_build() {
  local t0 rc
  {
    echo "revision: $(revision "$SRC")"
    [ "$HAVE_SMI" = 1 ] && nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm \
      --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores," \
      "$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
    echo "cuda: ${CUDA_ROOT:-none found}"
    command -v clinfo >/dev/null 2>&1 && clinfo -l 2>&1
  } >"$SD/machine.txt"
  t0=$(date +%s)
  configure_build "$SRC" "$BUILD_DIR" ON "$SD/build.log"
  rc=$?
  [ "$rc" = 0 ] && "$BUILD_DIR/tools/clhgemm-info" >"$SD/info.txt" 2>&1
  {
    grep -v '^Platform\|^ *`--' "$SD/machine.txt"
    [ -f "$SD/info.txt" ] && head -2 "$SD/info.txt"
    grep -E '^-- bench: (CLBlast|cuBLAS|CUDA|no CUDA|OpenBLAS|cublasXt|no clhgemm_openblas)' "$SD/build.log"
    if [ "$rc" = 0 ]; then
      echo "build ok in $(($(date +%s) - t0)) s ($BUILD_DIR, Release, tests on), $(grep -ci 'warning' "$SD/build.log") warning lines"
    else
      echo "BUILD FAILED (rc $rc):"; grep -E 'error|Error' "$SD/build.log" | head -20; tail -15 "$SD/build.log"
    fi
  } >"$SD/summary.txt"
  return "$rc"
}

stage_tests() {
  need_build || return 1
  local rc
  (cd "$BUILD_DIR" && timeout "${TESTS_TIMEOUT:-480}" ctest -L "${TEST_LABEL:-nvidia}" \
    -j"${TEST_JOBS:-2}" --output-on-failure) >"$SD/ctest.log" 2>&1
  rc=$?
  cp "$BUILD_DIR/Testing/Temporary/LastTest.log" "$SD/" 2>/dev/null
  {
    echo "ctest -L ${TEST_LABEL:-nvidia} -j${TEST_JOBS:-2} in $BUILD_DIR ($(revision "$SRC")):"
    grep -E 'tests passed|tests failed' "$SD/ctest.log" || echo "no result (rc $rc)"
    sed -n '/The following tests FAILED/,$p' "$SD/ctest.log" | head -20
    grep -E '\*\*\*Skipped|Not Run' "$SD/ctest.log" | head -12
    grep -E 'Total Test time' "$SD/ctest.log"
  } >"$SD/summary.txt"
  return "$rc"
}

stage_device() {
  need_build || return 1
  local r=0
  run_win "bench-gemm s,d ${DEVICE_SIZES:-4096,8192} beta 0.5" "$SD/bench-gemm.log" 360 \
    "$B/clhgemm-bench-gemm" --precision both --sizes "${DEVICE_SIZES:-4096,8192}" --shapes none \
    --reps "$REPS" --warmup 2 --csv "$SD/bench-gemm.csv" || r=1
  run_win "bench-gemm d 8192 beta 0" "$SD/bench-gemm-beta0.log" 240 \
    "$B/clhgemm-bench-gemm" --precision d --sizes 8192 --shapes none --reps "$REPS" --warmup 2 \
    --beta 0 --csv "$SD/bench-gemm-beta0.csv" || r=1
  { header_of "$SD/bench-gemm.log"; summary_of "$SD/bench-gemm.log"; summary_of "$SD/bench-gemm-beta0.log"
    cat "$SD/clocks.txt"; } >"$SD/summary.txt"
  return "$r"
}

stage_tf32() {
  need_build || return 1
  local r=0 m
  for m in 3xtf32 tf32; do
    run_win "bench-gemm s 8192 CLHGEMM_SGEMM_MATH=$m" "$SD/bench-gemm-$m.log" 240 \
      env CLHGEMM_SGEMM_MATH="$m" "$B/clhgemm-bench-gemm" --precision s --sizes 8192 --shapes none \
      --reps "$REPS" --warmup 2 --csv "$SD/bench-gemm-$m.csv" || r=1
  done
  { for m in 3xtf32 tf32; do echo "-- CLHGEMM_SGEMM_MATH=$m"; grep -E '^(params s|cuBLAS) *:' "$SD/bench-gemm-$m.log"
      summary_of "$SD/bench-gemm-$m.log"; done; cat "$SD/clocks.txt"; } >"$SD/summary.txt"
  return "$r"
}

stage_host() {
  need_build || return 1
  local r=0 i xt=(--xt-reps 1 --xt-warmup 0) more=()
  [ "${XT:-1}" = 0 ] && xt=(--no-xt)
  for i in $(seq "${HOST_RUNS:-1}"); do
    run_win "bench-host ${HOST_SIZES:-16384,32768} ${HOST_PREC:-both} run $i" "$SD/bench-host-$i.log" \
      "${HOST_TIMEOUT:-570}" env CLHGEMM_VERBOSE=1 "$B/clhgemm-bench-host" \
      --sizes "${HOST_SIZES:-16384,32768}" --precision "${HOST_PREC:-both}" --reps 3 --warmup 1 \
      --no-naive "${xt[@]}" "${more[@]+"${more[@]}"}" --csv "$SD/bench-host.csv" || r=1
    xt=(--no-xt); more=(--no-device-only)  # later processes: ours alone
  done
  { for i in $(seq "${HOST_RUNS:-1}"); do
      echo "-- run $i"; grep -E '^cublasXt' "$SD/bench-host-$i.log" | head -1; summary_of "$SD/bench-host-$i.log"
      grep -E '^  n=[0-9]+ [sd]: ours [0-9]' "$SD/bench-host-$i.log"; pack_rates "$SD/bench-host-$i.log"
    done; cat "$SD/clocks.txt"; } >"$SD/summary.txt"
  return "$r"
}

stage_sweep() {
  need_build || return 1
  # host calls of every size: ours (auto route), ours on the device route, OpenBLAS alone,
  # the device-only rate and the bus bound; SWEEP_SIZES (8..16384), SWEEP_PREC (both), REPS 5
  local r=0
  run_win "bench-host --sweep ${SWEEP_SIZES:-8,16,32,64,128,256,512,1024,2048,4096,8192,16384}" "$SD/sweep.log" \
    "${SWEEP_TIMEOUT:-540}" env CLHGEMM_VERBOSE="${SWEEP_VERBOSE:-0}" "$B/clhgemm-bench-host" --sweep \
    --sizes "${SWEEP_SIZES:-8,16,32,64,128,256,512,1024,2048,4096,8192,16384}" --precision "${SWEEP_PREC:-both}" \
    --reps "${SWEEP_REPS:-5}" --warmup 1 --no-xt --csv "$SD/sweep.csv" --png "$SD/sweep.png" || r=1
  { grep -vE '^clhgemm:' "$SD/sweep.log" | tail -60; cat "$SD/clocks.txt"; } >"$SD/summary.txt"
  return "$r"
}

stage_smallcall() {
  # what a small call costs through the host API and through the drop-in, each against
  # a direct OpenBLAS call (paired samples, every case checked first)
  need_build || return 1
  cmake --build "$BUILD_DIR" -j"$JOBS" --target clhgemm_blas clhgemm-bench-smallcall >"$SD/build.log" 2>&1 ||
    { tail -5 "$SD/build.log" >"$SD/summary.txt"; return 1; }
  local r=0 sizes=${SMALL_SIZES:-4,8,16,32,48,64}
  run_win "bench-smallcall --sizes $sizes" "$SD/api.txt" 280 "$B/clhgemm-bench-smallcall" --sizes "$sizes" \
    --precision both --detail --csv "$SD/api.csv" || r=1
  run_win "bench-smallcall --dropin --sizes $sizes" "$SD/dropin.txt" 280 "$B/clhgemm-bench-smallcall" \
    --sizes "$sizes" --precision both --detail --csv "$SD/dropin.csv" --dropin "$BUILD_DIR/blas/libblas.so.3" || r=1
  { echo "host API:"; grep -E '^#|geomean' "$SD/api.txt"; echo "drop-in:"; grep -E '^#|geomean' "$SD/dropin.txt"
    cat "$SD/clocks.txt"; } >"$SD/summary.txt"
  return "$r"
}

stage_zerocopy() {
  need_build || return 1
  # the zero-copy trial: pinning the caller's memory (CL_MEM_USE_HOST_PTR) against the pack threads'
  # staging
  local r=0
  cmake --build "$BUILD_DIR" -j"$JOBS" --target probe_zerocopy >"$SD/build.log" 2>&1 || { tail -5 "$SD/build.log" >"$SD/summary.txt"; return 1; }
  run_win "probe_zerocopy ${ZC_SIZES:-8,32,128,512}" "$SD/zerocopy.log" 300 \
    "$B/probe_zerocopy" --sizes "${ZC_SIZES:-8,32,128,512}" --reps 3 || r=1
  { cat "$SD/zerocopy.log"; cat "$SD/clocks.txt"; } >"$SD/summary.txt"
  return "$r"
}

stage_blasnumpy() {
  # numpy on clhgemm's libblas.so.3 and on OpenBLAS's, back to back (bench/numpy/blas_numpy.py)
  local r=0 L=/tmp/gpuenv/usr/lib/x86_64-linux-gnu
  cmake --build "$BUILD_DIR" -j"$JOBS" --target clhgemm_blas >"$SD/build.log" 2>&1 || { tail -5 "$SD/build.log" >"$SD/summary.txt"; return 1; }
  run_win "numpy on OpenBLAS" "$SD/openblas.txt" 300 env LD_LIBRARY_PATH="$L/openblas-pthread:${LD_LIBRARY_PATH:-}" \
    python3-debian "$ROOT/bench/numpy/blas_numpy.py" --label openblas --sizes "${NUMPY_SIZES:-256,512,1024,2048,4096,8192,16384}" --budget "${NUMPY_BUDGET:-12}" || r=1
  # LAPACK: numpy on OpenBLAS uses OpenBLAS's liblapack.so.3 (its own BLAS inside); on clhgemm the
  # reference LAPACK ($L/lapack), whose routines call the BLAS by symbol, so that cholesky and
  # solve reach the drop-in (until a fix of 2026-11-25 both runs used OpenBLAS's LAPACK,
  # and the factorizations never reached the drop-in); the third run, the reference LAPACK on
  # OpenBLAS's BLAS, tells the LAPACK's share from the BLAS's
  run_win "numpy on clhgemm" "$SD/clhgemm.txt" 300 env LD_LIBRARY_PATH="$BUILD_DIR/blas:$L/lapack:$L/openblas-pthread:${LD_LIBRARY_PATH:-}" \
    CLHGEMM_BLAS_STATS=1 python3-debian "$ROOT/bench/numpy/blas_numpy.py" --label clhgemm --sizes "${NUMPY_SIZES:-256,512,1024,2048,4096,8192,16384}" --budget "${NUMPY_BUDGET:-12}" || r=1
  run_win "numpy on OpenBLAS, reference LAPACK" "$SD/openblas-reflapack.txt" 300 env \
    LD_LIBRARY_PATH="$L/lapack:$L/openblas-pthread:${LD_LIBRARY_PATH:-}" \
    python3-debian "$ROOT/bench/numpy/blas_numpy.py" --label openblas-reflapack --sizes "${NUMPY_SIZES:-256,512,1024,2048,4096,8192,16384}" --budget "${NUMPY_BUDGET:-12}" || r=1
  # more processes of each, alternated, at the sizes where processes spread (NUMPY_ROUNDS in all,
  # default 3; NUMPY_ROUND_SIZES): the summary takes the median over the processes of each library
  local i ours=$SD/clhgemm.txt ob=$SD/openblas.txt
  for i in $(seq 2 "${NUMPY_ROUNDS:-3}"); do
    run_win "numpy on OpenBLAS, round $i" "$SD/openblas-$i.txt" 200 env LD_LIBRARY_PATH="$L/openblas-pthread:${LD_LIBRARY_PATH:-}" \
      python3-debian "$ROOT/bench/numpy/blas_numpy.py" --label "openblas-$i" --sizes "${NUMPY_ROUND_SIZES:-256,512,1024}" \
      --budget "${NUMPY_BUDGET:-12}" || r=1
    run_win "numpy on clhgemm, round $i" "$SD/clhgemm-$i.txt" 200 env LD_LIBRARY_PATH="$BUILD_DIR/blas:$L/lapack:$L/openblas-pthread:${LD_LIBRARY_PATH:-}" \
      python3-debian "$ROOT/bench/numpy/blas_numpy.py" --label "clhgemm-$i" --sizes "${NUMPY_ROUND_SIZES:-256,512,1024}" \
      --budget "${NUMPY_BUDGET:-12}" || r=1
    ours=$ours,$SD/clhgemm-$i.txt
    ob=$ob,$SD/openblas-$i.txt
  done
  python3 "$ROOT/bench/numpy/blas_numpy_summary.py" --ours "$ours" --openblas "$ob" \
    --reflapack "$SD/openblas-reflapack.txt" >"$SD/rounds.txt" 2>&1 || r=1
  { paste -d'|' <(cut -c1-70 "$SD/openblas.txt") <(cut -c1-70 "$SD/clhgemm.txt"); grep '^clhgemm-blas' "$SD/clhgemm.txt"
    echo "reference LAPACK on OpenBLAS's BLAS:"; cut -c1-70 "$SD/openblas-reflapack.txt"
    echo "medians over the processes of each library:"; cat "$SD/rounds.txt"; cat "$SD/clocks.txt"; } >"$SD/summary.txt"
  return "$r"
}

stage_lapacknumpy() {
  # numpy.linalg on OpenBLAS's LAPACK, on clhgemm's liblapack.so.3 alone (OpenBLAS's libblas.so.3
  # beside it) and on both drop-ins, back to back (bench/numpy/lapack_numpy.py); then the drop-in's
  # Fortran calls beside ours on a handle without numpy (clhgemm-bench-lapack-dropin)
  local r=0 L=/tmp/gpuenv/usr/lib/x86_64-linux-gnu
  local sizes=${LAPACK_NUMPY_SIZES:-1024,2048,4096,8192,16384,32768} ob_max=${LAPACK_NUMPY_OB_MAX:-16384}
  local budget=${LAPACK_NUMPY_BUDGET:-20} ob_sizes
  ob_sizes=$(echo "$sizes" | tr ',' '\n' | awk -v m="$ob_max" '$1 <= m' | paste -sd, -)
  cmake --build "$BUILD_DIR" -j"$JOBS" --target clhgemm_blas clhgemm_lapack clhgemm-bench-lapack-dropin \
    >"$SD/build.log" 2>&1 || { tail -5 "$SD/build.log" >"$SD/summary.txt"; return 1; }
  if [ -n "$ob_sizes" ]; then
    run_win "numpy.linalg on OpenBLAS" "$SD/openblas.txt" 590 env LD_LIBRARY_PATH="$L/openblas-pthread:${LD_LIBRARY_PATH:-}" \
      python3-debian "$ROOT/bench/numpy/lapack_numpy.py" --label openblas --sizes "$ob_sizes" --budget "$budget" || r=1
  else
    echo "(no size up to LAPACK_NUMPY_OB_MAX=$ob_max)" >"$SD/openblas.txt"
  fi
  run_win "numpy.linalg on clhgemm's LAPACK" "$SD/lapack.txt" 590 env \
    LD_LIBRARY_PATH="$BUILD_DIR/lapack:$L/openblas-pthread:${LD_LIBRARY_PATH:-}" CLHGEMM_LAPACK_STATS=1 \
    python3-debian "$ROOT/bench/numpy/lapack_numpy.py" --label clhgemm-lapack --sizes "$sizes" --budget "$budget" || r=1
  run_win "numpy.linalg on both drop-ins" "$SD/both.txt" 590 env \
    LD_LIBRARY_PATH="$BUILD_DIR/blas:$BUILD_DIR/lapack:$L/openblas-pthread:${LD_LIBRARY_PATH:-}" \
    CLHGEMM_LAPACK_STATS=1 CLHGEMM_BLAS_STATS=1 \
    python3-debian "$ROOT/bench/numpy/lapack_numpy.py" --label clhgemm-both --sizes "$sizes" --budget "$budget" || r=1
  run_win "drop-in, ours, OpenBLAS without numpy" "$SD/dropin.txt" 590 "$B/lapack/clhgemm-bench-lapack-dropin" \
    --dropin "$BUILD_DIR/lapack/liblapack.so.3" --sizes "${LAPACK_C_SIZES:-4096,8192,16384,32768}" \
    --no-openblas-above "$ob_max" || r=1
  { echo "numpy.linalg: OpenBLAS | clhgemm's liblapack.so.3 | both drop-ins"
    paste -d'|' <(cut -c1-56 "$SD/openblas.txt") <(cut -c1-56 "$SD/lapack.txt") <(cut -c1-56 "$SD/both.txt")
    grep -h '^clhgemm-' "$SD/lapack.txt" "$SD/both.txt"
    echo "the LAPACK calls alone (clhgemm-bench-lapack-dropin):"; cat "$SD/dropin.txt"
    cat "$SD/clocks.txt"; } >"$SD/summary.txt"
  return "$r"
}

stage_scalapack() {
  # ScaLAPACK over MPI: on one GPU through both drop-ins, then on OpenBLAS alone (bench/scalapack/)
  local r=0 L=/tmp/gpuenv/usr/lib/x86_64-linux-gnu ranks part mpirun prog log cores grids
  local sizes=${SCAL_SIZES:-8192,16384} nbs=${SCAL_NBS:-64,128,256,512,1024,2048}
  mpirun=$(command -v mpirun.openmpi || command -v mpirun) ||
    { echo "no mpirun (openmpi-bin) on this machine" | tee "$SD/summary.txt"; return 1; }
  # Open MPI unpacked away from /usr (.gpuenv's /tmp/gpuenv) finds its own files, and mpicc
  # reports its folders to CMake, only through OPAL_PREFIX
  case $mpirun in
    /usr/bin/*) ;;
    */usr/bin/*) export OPAL_PREFIX=${OPAL_PREFIX:-${mpirun%/bin/*}} ;;
  esac
  cmake "$BUILD_DIR" -UCLHGEMM_MPI_INCLUDE -UCLHGEMM_MPI_LIBRARY -UCLHGEMM_MPICC \
    >"$SD/build.log" 2>&1
  cmake --build "$BUILD_DIR" -j"$JOBS" --target clhgemm_blas clhgemm_lapack clhgemm-bench-scalapack \
    >>"$SD/build.log" 2>&1 || { tail -5 "$SD/build.log" | tee "$SD/summary.txt"; return 1; }
  prog=$B/scalapack/clhgemm-bench-scalapack
  cores=$(nproc)
  local mpi=("$mpirun" --oversubscribe --bind-to none)
  [ "$(id -u)" -eq 0 ] && mpi+=(--allow-run-as-root)
  for part in ${SCAL_PARTS:-gpu cpu}; do
    for ranks in $([ "$part" = gpu ] && echo "${SCAL_GPU_RANKS:-1 2 4}" || echo "${SCAL_CPU_RANKS:-1 4 16}"); do
      log=$SD/$part-$ranks.txt
      grids=$(echo "${SCAL_GRIDS:-1x1,1x2,2x1,2x2,1x4,4x4,2x8}" | tr ',' '\n' |
              awk -F x -v r="$ranks" '$1 * $2 == r' | paste -sd, -)
      [ -n "$grids" ] || grids=1x$ranks
      if [ "$part" = gpu ]; then
        run_win "scalapack gpu, $ranks ranks" "$log" 590 "${mpi[@]}" -np "$ranks" \
          -x LD_LIBRARY_PATH="$BUILD_DIR/blas:$BUILD_DIR/lapack:${LD_LIBRARY_PATH:-}" \
          -x CLHGEMM_DEVICES=local-rank -x CLHGEMM_BLAS_STATS=1 -x CLHGEMM_LAPACK_STATS=1 \
          -x CLHGEMM_CACHE_DIR -x OPENBLAS_NUM_THREADS=$((cores / ranks > 0 ? cores / ranks : 1)) \
          "$prog" --sizes "$sizes" --nb "$nbs" --grids "$grids" || r=1
      else
        run_win "scalapack OpenBLAS, $ranks ranks" "$log" 590 "${mpi[@]}" -np "$ranks" \
          -x LD_LIBRARY_PATH="$L/openblas-pthread:${LD_LIBRARY_PATH:-}" \
          -x OPENBLAS_NUM_THREADS=$((cores / ranks > 0 ? cores / ranks : 1)) \
          "$prog" --sizes "$sizes" --nb "$nbs" --grids "$grids" || r=1
      fi
    done
  done
  { echo "columns: s (slowest rank), GFLOP/s, then the ranks' mean seconds in local level-3"
    echo "calls, in the panels (levels 1-2, LAPACK), in MPI, elsewhere"
    for log in "$SD"/gpu-*.txt "$SD"/cpu-*.txt; do
      [ -f "$log" ] || continue
      echo "== $(basename "$log" .txt)"
      grep -E '^(routine|pd(gemm|potrf|getrf)) ' "$log" | awk 'NF >= 10'
      sed -n '/^== best NB/,$p' "$log" | grep -E '^(==|routine|pd)'
      grep -E '^clhgemm-(blas|lapack): [0-9]+ ' "$log" | sort | uniq -c | head -8
    done
    cat "$SD/clocks.txt"; } >"$SD/summary.txt"
  return "$r"
}

stage_oversize() {
  need_build || return 1
  local r=0
  run_win "bench-host --oversize ${OVERSIZE_N:-65536}" "$SD/bench-oversize.log" 580 \
    env CLHGEMM_VERBOSE=1 "$B/clhgemm-bench-host" --oversize --sizes "${OVERSIZE_N:-65536}" \
    --csv "$SD/bench-oversize.csv" || r=1
  { grep -E 'plan dgemm|setup [0-9.]* ms|done in' "$SD/bench-oversize.log" | head -4
    summary_of "$SD/bench-oversize.log"; cat "$SD/clocks.txt"; } >"$SD/summary.txt"
  return "$r"
}

stage_scaling() {
  need_build || return 1
  local r=0
  run_win "bench-host 32768 s,d --one-device" "$SD/bench-scaling.log" 570 \
    env CLHGEMM_VERBOSE=1 "$B/clhgemm-bench-host" --sizes "${SCALING_N:-32768}" --precision both \
    --reps 3 --warmup 1 --one-device --no-naive --no-xt --csv "$SD/bench-scaling.csv" || r=1
  { [ "$HAVE_SMI" = 1 ] && echo "GPUs: $(nvidia-smi -L 2>/dev/null | wc -l)"
    summary_of "$SD/bench-scaling.log"; grep -E 'plan [sd]gemm' "$SD/bench-scaling.log" | sort -u | head -4
    cat "$SD/clocks.txt"; } >"$SD/summary.txt"
  return "$r"
}

stage_level3() {
  need_build || return 1
  local r=0
  run_win "bench-level3 ${L3_SIZES:-8192} s,d" "$SD/bench-level3.log" 570 \
    "$B/clhgemm-bench-level3" --sizes "${L3_SIZES:-8192}" --precision both --reps 5 \
    --csv "$SD/bench-level3.csv" || r=1
  { summary_of "$SD/bench-level3.log"; cat "$SD/clocks.txt"; } >"$SD/summary.txt"
  return "$r"
}

stage_complex() {
  need_build || return 1
  local r=0
  run_win "bench-gemm c,z ${CPLX_SIZES:-4096,8192} beta 0.5" "$SD/bench-gemm-complex.log" 360 \
    "$B/clhgemm-bench-gemm" --precision complex --sizes "${CPLX_SIZES:-4096,8192}" --shapes none \
    --reps "$REPS" --warmup 2 --csv "$SD/bench-gemm-complex.csv" || r=1
  run_win "bench-level3 ${CPLX_L3_SIZES:-4096} c,z" "$SD/bench-level3-complex.log" 570 \
    "$B/clhgemm-bench-level3" --sizes "${CPLX_L3_SIZES:-4096}" --precision complex --reps 5 \
    --csv "$SD/bench-level3-complex.csv" || r=1
  { header_of "$SD/bench-gemm-complex.log"; summary_of "$SD/bench-gemm-complex.log"
    summary_of "$SD/bench-level3-complex.log"; cat "$SD/clocks.txt"; } >"$SD/summary.txt"
  return "$r"
}

stage_level3host() {
  need_build || return 1
  local r=0
  run_win "bench-level3 --host ${L3_HOST_SIZES:-16384} s,d" "$SD/bench-level3-host.log" 570 \
    "$B/clhgemm-bench-level3" --host --sizes "${L3_HOST_SIZES:-16384}" --precision both --reps 2 \
    --warmup 1 --csv "$SD/bench-level3-host.csv" || r=1
  { summary_of "$SD/bench-level3-host.log"; cat "$SD/clocks.txt"; } >"$SD/summary.txt"
  return "$r"
}

stage_trsmblocked() {
  # TRSM from host memory with A larger than the device budget, each way of the blocked path
  need_build || return 1
  local r=0 n=${TB_N:-32768} lim=${TB_LIMIT:-4G} way
  for way in auto openblas openblas-nolookahead device; do
    local panel=${way%-nolookahead} la=1
    [ "$way" = openblas-nolookahead ] && la=0
    run_win "bench-level3 --host trsm d $n $way" "$SD/$way.log" 280 env CLHGEMM_DEVICE_MEMORY_LIMIT="$lim" \
      CLHGEMM_TRSM_PANEL="$panel" CLHGEMM_TRSM_LOOKAHEAD="$la" CLHGEMM_VERBOSE=1 "$B/clhgemm-bench-level3" --host \
      --routines trsm --sizes "$n" --precision d --reps 1 --warmup 1 --no-check --no-xt --csv "$SD/$way.csv" || r=1
  done
  { for way in auto openblas openblas-nolookahead device; do
      echo "== $way"; grep -m1 'trsm: blocked' "$SD/$way.log"; summary_of "$SD/$way.log"; done
    cat "$SD/clocks.txt"; } >"$SD/summary.txt"
  return "$r"
}

stage_cpushare() {
  need_build || return 1
  local r=0 db=() f
  if [ "${CPU_MODEL:-1}" = 1 ]; then
    # the split model fitted now, merged into a copy of the shipped database (tuning/ of $SRC)
    mkdir -p "$SD/db" && cp "$SRC"/tuning/*.json "$SD/db/"
    f=$SD/db/nvidia-h100.json
    run_win "clhgemm-tune --cpu-model ${CM_BUDGET:-80s}" "$SD/cpumodel.log" 300 \
      env CLHGEMM_TUNING_DIR=off "$BUILD_DIR/tools/clhgemm-tune" --devices gpu --cpu-model \
      --budget "${CM_BUDGET:-80s}" --out "$f" --out-dir "$SD/tune" || r=1
    db=(CLHGEMM_TUNING_DIR="$SD/db" CLHGEMM_SHIPPED_TUNING_DIR=off)
  fi
  run_win "bench-host --cpu-share 16384,32768 s,d" "$SD/cpushare.log" "${CPUSHARE_TIMEOUT:-420}" \
    env "${db[@]+"${db[@]}"}" "$B/clhgemm-bench-host" --cpu-share --sizes "${CPUSHARE_SIZES:-16384,32768}" \
    --precision both --reps 1 --warmup 1 --cpu-slab 512 --cpu-csv "$SD/cpushare.csv" || r=1
  { grep -E 'cpu share model' "$SD/cpumodel.log" 2>/dev/null
    head -1 "$SD/cpushare.log"
    grep -E '^n=[0-9]+ (single|double):|^  case |^  (gpu-only|auto-|cpu-only|[0-9.]+-(slab|strips))|hybrid auto over' \
      "$SD/cpushare.log"
    cat "$SD/clocks.txt"; } >"$SD/summary.txt"
  return "$r"
}

stage_trace() {
  need_build || return 1
  local r=0 i=0 v e
  : >"$SD/summary.txt"
  for v in ${TRACE_ENVS:--}; do
    i=$((i + 1)); e=()
    [ "$v" != "-" ] && IFS=, read -r -a e <<<"$v"
    run_win "trace ${TRACE_N:-32768} d $v" "$SD/host-$i.log" 300 \
      env "${e[@]+"${e[@]}"}" CLHGEMM_VERBOSE=1 CLHGEMM_TRACE="$SD/trace-$i.json" "$B/clhgemm-bench-host" \
      --sizes "${TRACE_N:-32768}" --precision d --reps 1 --warmup 1 --no-xt --no-naive --no-device-only \
      --no-check || r=1
    python3 "$ROOT/bench/prof/trace_summary.py" "$SD/trace-$i.json" --gaps 8 >"$SD/trace-$i.txt" 2>&1 || r=1
    gzip -f "$SD/trace-$i.json" 2>/dev/null
    { echo "-- $i: $v"; grep -E 'plan dgemm' "$SD/host-$i.log" | tail -1
      grep -E '^  n=[0-9]+ d: ours' "$SD/host-$i.log"
      grep -E '^dev[0-9]+:' "$SD/trace-$i.txt"; } >>"$SD/summary.txt"
  done
  cat "$SD/clocks.txt" >>"$SD/summary.txt"
  return "$r"
}

# factor: a bench-lapack log's tables (its routine heads, rows, notes and verdict; not the
# library's verbose lines)
factor_tables() { sed -n '/^== /,$p' "$1" | grep -vE '^(CSV|PNG):|^clhgemm:|^$'; }

stage_factor() {
  need_build || return 1
  local r=0 p rt sizes n lim mem gpus big=() i
  local bl=$B/lapack/clhgemm-bench-lapack t=${FACTOR_TIMEOUT:-570} reps=${FACTOR_REPS:-2}
  local parts=" ${FACTOR_PARTS:-incore ooc big trace scaling} "
  [ -x "$bl" ] || { echo "no $bl (built with OpenBLAS only)" >"$SD/summary.txt"; return 1; }
  if [[ $parts == *" incore "* ]]; then
    for p in d s; do
      for rt in potrf getrf geqrf; do
        case $p$rt in
          dpotrf) sizes=${FACTOR_D_POTRF:-4096,8192,20000,40000} ;;
          dgetrf) sizes=${FACTOR_D_GETRF:-8192,20000,40000} ;;
          dgeqrf) sizes=${FACTOR_D_GEQRF:-8192,20000,30000} ;;
          *) sizes=${FACTOR_S_SIZES:-8192,20000,40000} ;;
        esac
        run_win "bench-lapack $p$rt $sizes" "$SD/$p$rt.log" "$t" "$bl" --prec "$p" --routines "$rt" \
          --sizes "$sizes" --reps "$reps" --no-openblas-above "${FACTOR_OB_MAX:-8192}" \
          --csv "$SD/$p$rt.csv" || r=1
      done
    done
  fi
  if [[ $parts == *" ooc "* ]]; then
    n=${FACTOR_OOC_N:-40000} lim=${FACTOR_LIMIT:-8G}
    for rt in potrf geqrf; do
      run_win "bench-lapack d$rt $n --memory-limit $lim" "$SD/ooc-d$rt.log" "$t" env CLHGEMM_VERBOSE=1 \
        "$bl" --prec d --routines "$rt" --sizes "$n" --reps "$reps" --memory-limit "$lim" --no-device \
        --no-cusolver --no-openblas --csv "$SD/ooc-d$rt.csv" || r=1
    done
  fi
  if [[ $parts == *" big "* ]]; then
    # larger than an 80 GB GPU as it is; on a larger one (H200: 141 GB) under a limit instead
    mem=0
    [ "$HAVE_SMI" = 1 ] && mem=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits 2>/dev/null |
      head -1 | tr -dc 0-9)
    [ "${mem:-0}" -gt 102400 ] && big=(--memory-limit "${FACTOR_BIG_LIMIT:-64G}" --no-host)
    n=${FACTOR_BIG_N:-110000}
    run_win "bench-lapack dgetrf $n ${big[*]:-(plain)}" "$SD/big-dgetrf.log" "$t" env CLHGEMM_VERBOSE=1 \
      "$bl" --prec d --routines getrf --sizes "$n" --reps 1 --warmup 0 --no-device --no-cusolver \
      --no-openblas "${big[@]+"${big[@]}"}" --csv "$SD/big-dgetrf.csv" || r=1
  fi
  if [[ $parts == *" trace "* ]]; then
    n=${FACTOR_TRACE_N:-16384}
    run_win "bench-lapack d traces $n" "$SD/trace.log" "$t" "$bl" --prec d --sizes "$n" --reps 1 \
      --no-device --no-cusolver --no-openblas --trace "$SD/trace.json" || r=1
    for rt in potrf getrf geqrf; do
      [ -f "$SD/trace-d$rt.json" ] || continue
      python3 "$ROOT/bench/prof/trace_summary.py" "$SD/trace-d$rt.json" --gaps 8 >"$SD/trace-d$rt.txt" 2>&1 || r=1
      gzip -f "$SD/trace-d$rt.json" 2>/dev/null
    done
  fi
  if [[ $parts == *" scaling "* ]]; then
    gpus=${FACTOR_GPUS:-0}
    [ -z "${FACTOR_GPUS:-}" ] && [ "$HAVE_SMI" = 1 ] && gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
    if [ "$gpus" -gt 1 ]; then
      sizes=${FACTOR_SCALING_SIZES:-20000,40000,60000}
      for rt in potrf getrf geqrf; do
        run_win "bench-lapack d$rt $sizes --one-device" "$SD/scaling-d$rt.log" "$t" "$bl" --prec d \
          --routines "$rt" --sizes "$sizes" --reps "$reps" --one-device --no-device --no-cusolver \
          --no-openblas --csv "$SD/scaling-d$rt.csv" || r=1
      done
    else
      echo "one GPU: no scaling runs" >"$SD/scaling.txt"
    fi
  fi
  {
    [ -f "$SD/dpotrf.log" ] && grep -E '^(device|handles|cuSOLVER|OpenBLAS) *:' "$SD/dpotrf.log"
    for i in dpotrf dgetrf dgeqrf spotrf sgetrf sgeqrf ooc-dpotrf ooc-dgeqrf big-dgetrf trace \
      scaling-dpotrf scaling-dgetrf scaling-dgeqrf; do
      [ -f "$SD/$i.log" ] || continue
      echo "-- $i"; grep -E '^(limit|one dev) *:' "$SD/$i.log"; factor_tables "$SD/$i.log"
      grep -hE '^clhgemm: factor: [sd][a-z]+ [0-9]+ x [0-9]+ .*(in core|out of core)$' "$SD/$i.log" | sort | uniq -c
    done
    for rt in potrf getrf geqrf; do
      [ -f "$SD/trace-d$rt.txt" ] || continue
      echo "-- trace d$rt"; grep -E '^trace |^dev[0-9]+:' "$SD/trace-d$rt.txt"
    done
    cat "$SD/scaling.txt" 2>/dev/null
    cat "$SD/clocks.txt"
  } >"$SD/summary.txt"
  return "$r"
}

stage_probe() {
  local r=0 p
  : >"$SD/summary.txt"
  for p in probe_mma probe_lmem probe_pinned_share; do
    if cc -O2 -o "$SD/$p" "$ROOT/bench/probe/$p.c" -lOpenCL >"$SD/$p-build.log" 2>&1; then
      run_win "$p" "$SD/$p.log" 180 "$SD/$p" || r=1
      { echo "-- $p"; grep -v '^ *$' "$SD/$p.log" | tail -14; } >>"$SD/summary.txt"
    else
      r=1; { echo "-- $p: build failed"; tail -5 "$SD/$p-build.log"; } >>"$SD/summary.txt"
    fi
    rm -f "$SD/$p"
  done
  cat "$SD/clocks.txt" >>"$SD/summary.txt"
  return "$r"
}

stage_ptxas() {
  need_build || return 1
  local cache=/tmp/gpu_record-ptxas-cache ptxas f
  ptxas=$(command -v ptxas || echo "${CUDA_ROOT:-/usr/local/cuda}/bin/ptxas")
  [ -x "$ptxas" ] || { echo "no ptxas (CUDA toolkit) found" >"$SD/summary.txt"; return 1; }
  rm -rf "$cache"
  # the kernels of the device stage's calls, each compiled once into an empty program cache
  run_win "bench-gemm s,d 8192 (fills the cache)" "$SD/fill-1.log" 240 env CLHGEMM_CACHE_DIR="$cache" \
    "$B/clhgemm-bench-gemm" --precision both --sizes 8192 --shapes none --reps 1 --warmup 0 --no-clblast \
    --no-cublas --no-check
  run_win "bench-gemm d 8192 beta 0 (fills the cache)" "$SD/fill-2.log" 240 env CLHGEMM_CACHE_DIR="$cache" \
    "$B/clhgemm-bench-gemm" --precision d --sizes 8192 --shapes none --reps 1 --warmup 0 --beta 0 \
    --no-clblast --no-cublas --no-check
  for f in "$cache"/*; do
    [ -f "$f" ] || continue
    # a cache file: 32-byte header (magic, key length, binary length, hash), the key (kernel source
    # and options), the driver's binary: PTX text on NVIDIA
    python3 - "$f" "$SD/k.ptx" <<'PY' || continue
import struct, sys
b = open(sys.argv[1], 'rb').read()
kl, bl = struct.unpack('<QQ', b[8:24])
key = b[32:32 + kl].decode('latin1'); ptx = b[32 + kl:32 + kl + bl]
if b'.entry clhgemm_gemm' not in ptx: sys.exit(1)
defs = {}
for l in key.splitlines():  # the prepended defines come first; the file's own defaults after
    w = l.split()
    if len(w) >= 3 and w[0] == '#define' and w[1] in ('PRECISION', 'MWG', 'NWG', 'KWG', 'MMA', 'WM', 'ASYNC',
            'DIRECT_A', 'DIRECT_B', 'DIRECT_C', 'TRIANGLE', 'KLIMIT', 'VWM', 'VWN', 'KWI', 'SA', 'SB',
            'SWZ', 'TF32'):
        defs.setdefault(w[1], w[2])
print(','.join(k + '=' + v for k, v in defs.items()), end=' ')
open(sys.argv[2], 'wb').write(ptx.rstrip(b'\0'))
PY
    echo "nc=$(grep -c 'ld.global.nc' "$SD/k.ptx") mma=$(grep -c 'mma.sync' "$SD/k.ptx")" \
      "$("$ptxas" -arch=sm_90 -v "$SD/k.ptx" -o /tmp/gpu_record-k.cubin 2>&1 |
        grep -o 'Used [0-9]* registers\|[0-9]* bytes spill stores\|[0-9]* bytes smem' | tr '\n' ' ')"
  done | sort -u >"$SD/ptxas.txt"
  rm -f "$SD/k.ptx" /tmp/gpu_record-k.cubin
  { echo "ptxas: $ptxas"; cat "$SD/ptxas.txt"; } >"$SD/summary.txt"
  [ -s "$SD/ptxas.txt" ]
}

# ab: the bench rows of one run as "part<TAB>case<TAB>GFLOP/s" lines
ab_rows() { # PART LOG
  summary_of "$2" | awk -v part="$1" 'BEGIN { OFS = "\t" }
    part == "device" && $1 ~ /^[0-9]+x[0-9]+x[0-9]+$/ && $2 ~ /^[sd]$/ {
      if ($3 ~ /^[0-9.]+$/) print part, $2 " " $1, $3
      if ($6 ~ /^[0-9.]+$/) print part, $2 " " $1 " cuBLAS", $6 }
    (part == "host" || part == "midhost") && $1 ~ /^[0-9]+$/ && $2 ~ /^[sd]$/ && $3 ~ /^[0-9.]+$/ {
      print part, $2 " n=" $1, $3 }
    part == "level3" && $1 ~ /^(symm|syrk|syr2k|trmm)$/ && $4 ~ /^[0-9.]+$/ { print part, $1 " " $2 " n=" $3, $4 }'
}

stage_ab() {
  local rev=$1 tag src bdir r part side order log bin limit rc=0 pid_rev pid_wt cmd
  tag=$(basename "$rev" | tr -c 'A-Za-z0-9._\n-' _)
  tag=${tag#ab-}  # .scratch/ab-REV -> REV
  bdir=build-ab-$tag
  if [ -n "${AB_SRC:-}" ]; then src=$AB_SRC
  elif [ -f "$rev/CMakeLists.txt" ]; then src=$rev
  elif git rev-parse -q --verify "$rev^{commit}" >/dev/null 2>&1; then
    src=build-ab-src-$tag
    rm -rf "$src" && mkdir -p "$src" && git archive "$rev" | tar -x -C "$src" || return 1
    git rev-parse --short "$rev^{commit}" >"$src/.gpu_record_rev"
  elif [ -f ".scratch/ab-$tag/CMakeLists.txt" ]; then src=.scratch/ab-$tag
  else
    echo "ab: no source for '$rev' (no git here?): make it where git is with" \
      "git archive --prefix=ab-$tag/ $rev | tar -x -C .scratch  and carry .scratch" | tee "$SD/summary.txt"
    return 2
  fi
  echo "  ab: $rev from $src into $bdir; the working tree ($SRC) in $BUILD_DIR"
  # both builds at once (no tests, tools or examples for REV)
  configure_build "$src" "$bdir" OFF "$SD/build-rev.log" -DCLHGEMM_BUILD_TOOLS=OFF &
  pid_rev=$!
  if [ -f "$BUILD_DIR/CMakeCache.txt" ]; then
    cmake --build "$BUILD_DIR" -j"$JOBS" >"$SD/build-wt.log" 2>&1 &
  else
    configure_build "$SRC" "$BUILD_DIR" OFF "$SD/build-wt.log" &
  fi
  pid_wt=$!
  wait "$pid_rev" || { echo "ab: build of $rev failed"; tail -20 "$SD/build-rev.log"; return 1; }
  wait "$pid_wt" || { echo "ab: build of the working tree failed"; tail -20 "$SD/build-wt.log"; return 1; }
  : >"$SD/ab.tsv"
  for r in $(seq "${AB_ROUNDS:-1}"); do
    order="old new"; [ $((r % 2)) = 0 ] && order="new old"  # alternate who goes first
    for part in ${AB_PARTS:-device host level3}; do
      for side in $order; do
        bin=$bdir/bench; [ "$side" = new ] && bin=$B
        log=$SD/$part-$side-$r.log
        cmd=()
        case $part in
          device) limit=300; cmd=("$bin/clhgemm-bench-gemm" --precision both --sizes 8192 --shapes none
                    --reps "$REPS" --warmup 2 --no-clblast) ;;
          host) limit=420; cmd=("$bin/clhgemm-bench-host" --sizes "${AB_HOST_SIZES:-16384,32768}"
                  --precision both --reps 3 --warmup 1 --no-naive --no-xt --no-device-only) ;;
          midhost) limit=300; cmd=(env CLHGEMM_ROUTE=device "$bin/clhgemm-bench-host"
                     --sizes "${AB_MID_SIZES:-256,512,1024,2048,4096}" --precision both --reps 15
                     --warmup 3 --no-naive --no-xt --no-device-only) ;;
          level3) limit=300; cmd=("$bin/clhgemm-bench-level3" --sizes 8192 --precision both --reps 5
                    --no-clblast --syr2k lib) ;;
          *) echo "ab: unknown part '$part' (device, host, midhost, level3)"; return 2 ;;
        esac
        run_win "ab $part $side round $r" "$log" "$limit" \
          env CLHGEMM_CACHE_DIR="$CLHGEMM_CACHE_DIR-ab-$side" "${cmd[@]}" || rc=1
        ab_rows "$part" "$log" | awk -v s="$side" -v r="$r" 'BEGIN { FS = OFS = "\t" } { print $1, $2, s, r, $3 }' \
          >>"$SD/ab.tsv"
      done
    done
  done
  {
    echo "A/B: old = $rev ($(revision "$src"), $bdir), new = working tree ($(revision "$SRC"), $BUILD_DIR)"
    echo "GFLOP/s; ${AB_ROUNDS:-1} round(s), old and new alternated per part (parts: ${AB_PARTS:-device host level3})"
    awk 'BEGIN { FS = "\t" }
      function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
          if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : "" }
      { k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
        if ($3 == "old") old[k] = old[k] " " $5; else nw[k] = nw[k] " " $5 }
      END { printf "%-30s %22s %22s %8s\n", "case", "old (each round)", "new (each round)", "new/old"
        for (i = 1; i <= nk; i++) { k = keys[i]; mo = med(old[k]); mn = med(nw[k])
          printf "%-30s %22s %22s %8s\n", k, substr(old[k], 2), substr(nw[k], 2),
            (mo > 0 && mn > 0) ? sprintf("%.3f", mn / mo) : "-" } }' "$SD/ab.tsv"
    echo "(device ... cuBLAS rows: cuBLAS in the same process, a drift reference)"
    cat "$SD/clocks.txt"
  } >"$SD/summary.txt"
  return "$rc"
}

# ---- run ----------------------------------------------------------------------------------------
T_START=$(date +%s)
GPU_NAME=""
[ "$HAVE_SMI" = 1 ] && GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c |
  awk '{ $1 = $1 "x"; print }' | paste -sd, -)
echo "=== gpu_record: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(revision "$SRC"); OUT=$OUT"
DONE=()
FAILED=0
for st in "${STAGES[@]+"${STAGES[@]}"}"; do
  SD=$OUT/$st
  rm -rf "$SD"; mkdir -p "$SD"
  t0=$(date +%s)
  echo "=== $st ($(date -u +%H:%M:%S))"
  if [ "$st" = ab ]; then stage_ab "$AB_REV"; else "stage_$st"; fi
  rc=$?
  [ "$rc" = 0 ] || FAILED=1
  DONE+=("$st rc=$rc $(($(date +%s) - t0))s")
done

{
  echo "================ gpu_record summary: $(revision "$SRC"), $(date -u +%Y-%m-%d)," \
    "${GPU_NAME:-no nvidia-smi}, $(($(date +%s) - T_START)) s ================"
  for d in "${DONE[@]+"${DONE[@]}"}"; do
    st=${d%% *}
    echo "== $d"
    cat "$OUT/$st/summary.txt" 2>/dev/null
  done
} >"$OUT/summary.txt"

if [ "$PACK" = 1 ]; then
  # this run's stage folders (files below 8 MB) in one archive beside the summary: the device
  # tool returns few files. Only what this run wrote is removed.
  ran=()
  for d in "${DONE[@]+"${DONE[@]}"}"; do ran+=("${d%% *}"); done
  if [ ${#ran[@]} -gt 0 ]; then
    (cd "$OUT" && find "${ran[@]}" -type f -size -8M | tar czf gpu-record.tgz -T - &&
      find "${ran[@]}" -type f -size +8M >left-out.txt && rm -rf "${ran[@]}")
    [ -s "$OUT/left-out.txt" ] || rm -f "$OUT/left-out.txt"
  fi
fi

cat "$OUT/summary.txt"
exit "$FAILED"
