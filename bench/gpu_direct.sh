#!/usr/bin/env bash
# bench/gpu_direct.sh -- on the GPU machine (issue 7): build with tests; the NVIDIA test group
# and the GEMM tables on the shipped H100 entry (tensor-core DGEMM, tuned SGEMM), which read
# aligned operands in place (direct A/B/C); device-buffer GEMM next to CLBlast and cuBLAS with
# the direct operands (default) and without (CLHGEMM_DIRECT=off), same run; ptxas -v on the
# PTX the driver cached for our kernels (registers, spills, ld.global.nc, mma count); then
# host-resident DGEMM from pageable memory (ours and device-only, same run) and a Chrome trace
# of one call at the first host size.
#   OUT=dir [SIZES=4096,8192] [HOST_SIZES=16384,32768] bash bench/gpu_direct.sh
OUT=${OUT:-./out}; mkdir -p "$OUT"
GPU_TESTS=ON . bench/gpu_build.sh
SIZES=${SIZES:-4096,8192}
echo "== tests (nvidia group, GEMM tables on the shipped entry)"
(cd build-gpu && timeout 240 ctest -L nvidia -j2 --output-on-failure >"$OUT/ctest-nvidia.log" 2>&1; tail -3 "$OUT/ctest-nvidia.log")
for p in d s; do
  timeout 150 build-gpu/tests/test_gemm $p col >"$OUT/test_gemm_$p.log" 2>&1; echo "test_gemm $p col rc=$? $(tail -1 "$OUT/test_gemm_$p.log")"
done
echo "== bench: device-buffer GEMM, direct operands (default) then CLHGEMM_DIRECT=off"
build-gpu/bench/clhgemm-bench-gemm --precision both --sizes "$SIZES" --shapes none --reps 10 \
  --warmup 2 --csv "$OUT/bench-direct.csv" >"$OUT/bench-direct.log" 2>&1
CLHGEMM_DIRECT=off build-gpu/bench/clhgemm-bench-gemm --precision both --sizes "$SIZES" --shapes none \
  --reps 10 --warmup 2 --csv "$OUT/bench-nodirect.csv" >"$OUT/bench-nodirect.log" 2>&1
echo "== ptxas -v on the cached PTX"
bash bench/ptxas_cache.sh >"$OUT/ptxas.txt"; wc -l <"$OUT/ptxas.txt"
if [ -n "${HOST_SIZES=16384,32768}" ]; then
  CLHGEMM_VERBOSE=1 timeout 300 build-gpu/bench/clhgemm-bench-host --sizes "$HOST_SIZES" --precision d --reps 3 \
    --no-xt --no-naive --csv "$OUT/bench-host.csv" >"$OUT/bench-host.log" 2>&1
  grep "plan dgemm" "$OUT/bench-host.log" | sort -u
  CLHGEMM_TRACE=/tmp/trace.json timeout 120 build-gpu/bench/clhgemm-bench-host --sizes "${HOST_SIZES%%,*}" \
    --precision d --reps 1 --warmup 1 --no-xt --no-naive --no-device-only --no-check >/dev/null 2>&1
  python3 bench/trace_summary.py /tmp/trace.json >"$OUT/trace.txt" 2>&1; tail -3 "$OUT/trace.txt"
  echo "== summary: host-resident DGEMM"; tail -5 "$OUT/bench-host.log"
fi
echo "== summary: direct (default)"; grep -A8 "== summary" "$OUT/bench-direct.log" | tail -8
echo "== summary: CLHGEMM_DIRECT=off"; grep -A8 "== summary" "$OUT/bench-nodirect.log" | tail -8
