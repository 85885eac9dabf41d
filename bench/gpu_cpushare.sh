#!/usr/bin/env bash
# bench/gpu_cpushare.sh -- on the GPU machine: fit the CPU-share split model with clhgemm-tune
# --cpu-model (merged into a copy of the shipped H100 entry), then clhgemm-bench-host --cpu-share:
# GPU-only, hybrid (auto; slab and strips), CPU-only on a slab, model prediction vs measurement.
#   OUT=dir [CM_BUDGET=100s] [SIZES=16384,32768] bash bench/gpu_cpushare.sh
OUT=${OUT:-./out}; mkdir -p "$OUT"
. bench/gpu_build.sh
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Cooperlake}
build-gpu/tools/clhgemm-info 2>&1 | grep -i "host CPU\|openblas" | head -3
mkdir -p build-gpu/db && cp tuning/nvidia-h100.json build-gpu/db/nvidia-h100.json
build-gpu/tools/clhgemm-tune --devices gpu --cpu-model --budget "${CM_BUDGET:-100s}" \
  --out build-gpu/db/nvidia-h100.json --out-dir /tmp/cm >"$OUT/cpumodel.txt" 2>&1
tail -12 "$OUT/cpumodel.txt"
cp build-gpu/db/nvidia-h100.json "$OUT/nvidia-h100-cpumodel.json"
export CLHGEMM_TUNING_DIR=$PWD/build-gpu/db CLHGEMM_SHIPPED_TUNING_DIR=off
timeout "${BENCH_TIMEOUT:-330}" build-gpu/bench/clhgemm-bench-host --cpu-share --sizes "${SIZES:-16384,32768}" \
  --precision both --reps 1 --warmup 1 --cpu-slab 512 --cpu-csv "$OUT/cpushare.csv" >"$OUT/cpushare.txt" 2>&1
tail -30 "$OUT/cpushare.txt"
