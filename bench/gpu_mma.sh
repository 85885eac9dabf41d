#!/usr/bin/env bash
# bench/gpu_mma.sh -- on the GPU machine: build with tests, prove the FP64 tensor-core kernel
# (test_mma and the MMA CTest group), sweep MMA parameter sets for DGEMM, then benchmark the best
# next to the FMA kernel, CLBlast and cuBLAS in one run. Optionally the level-3 benchmark.
#   OUT=dir [SIZES=8192] [L3=1] bash bench/gpu_mma.sh "P1" "P2" ...
OUT=${OUT:-./out}; mkdir -p "$OUT"
SIZES=${SIZES:-8192}
GPU_TESTS=ON . bench/gpu_build.sh
echo "== test_mma"; build-gpu/tests/test_mma 2>&1 | tee "$OUT/test_mma.log" | grep -v '^  '
(cd build-gpu && ctest -L nvidia --output-on-failure >"$OUT/ctest-nvidia.log" 2>&1; tail -4 "$OUT/ctest-nvidia.log")
echo "== sweep (DGEMM kernel-alone via --profile, n=$SIZES)"
for p in "$@"; do
  line=$(env CLHGEMM_DGEMM_PARAMS="$p" CLHGEMM_VERBOSE=1 build-gpu/bench/clhgemm-bench-gemm --precision d \
         --sizes "$SIZES" --shapes none --reps 5 --warmup 1 --no-clblast --no-cublas 2>&1 |
         tee -a "$OUT/sweep.log" |
         awk '/^[0-9]+x[0-9]+x[0-9]+ /{r=r" "$1":"$3} /ignoring|did not build/{r=r" FALLBACK/INVALID"} /FAIL|check/{if($0~/FAIL/)r=r" FAILCHECK"} END{print r}')
  echo "$p ->$line"
done | tee "$OUT/sweep.txt"
best=$(awk '{for(i=1;i<=NF;i++) if($i ~ /^[0-9]+x[0-9]+x[0-9]+:/){split($i,a,":"); if(a[2]+0>b && $0 !~ /FALLBACK|FAIL/){b=a[2]+0; p=$1}}} END{print p}' "$OUT/sweep.txt")
echo "== best MMA set: $best"
if [ -n "$best" ]; then
  echo "== DGEMM: best MMA set vs the shipped FMA entry, CLBlast, cuBLAS (same run)"
  CLHGEMM_DGEMM_PARAMS="$best" build-gpu/bench/clhgemm-bench-gemm --precision d --sizes 4096,8192 \
    --shapes none --reps 10 --warmup 2 --csv "$OUT/bench-mma.csv" >"$OUT/bench-mma.log" 2>&1
  tail -6 "$OUT/bench-mma.log"
fi
if [ "${L3:-0}" = 1 ]; then
  echo "== level 3 at n=8192 (device buffers), both precisions, next to GEMM and CLBlast"
  build-gpu/bench/clhgemm-bench-level3 --sizes 8192 --precision both --syr2k both --reps 5 \
    --csv "$OUT/bench-level3.csv" >"$OUT/bench-level3.log" 2>&1
  grep -A40 "== summary" "$OUT/bench-level3.log" | head -40
fi
