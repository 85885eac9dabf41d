#!/usr/bin/env bash
# bench/gpu_host7.sh -- on the GPU machine (issue 7): re-measure the pipeline figures of the
# DGEMM entry with the tensor-core kernel (clhgemm-tune --pipeline: bus, kernel rate against the
# tile shape, pack threads, queues; merged into a copy of the shipped H100 file), then
# host-resident DGEMM from pageable memory with that database: ours and ours on device buffers
# (same run), a Chrome trace of one call at the largest size, and cublasXt on the same matrices.
#   OUT=dir [SIZES=16384,32768] [PL_BUDGET=100s] [XT=1] bash bench/gpu_host7.sh
OUT=${OUT:-./out}; mkdir -p "$OUT"
. bench/gpu_build.sh
SIZES=${SIZES:-16384,32768}
mkdir -p build-gpu/db && cp tuning/nvidia-h100.json build-gpu/db/nvidia-h100.json
env CLHGEMM_SHIPPED_TUNING_DIR=off CLHGEMM_TUNING_DIR=$PWD/build-gpu/db build-gpu/tools/clhgemm-tune \
  --devices gpu --precision d --pipeline --budget "${PL_BUDGET:-100s}" \
  --out build-gpu/db/nvidia-h100.json --out-dir /tmp/pl >"$OUT/tune-pipeline.txt" 2>&1
tail -5 "$OUT/tune-pipeline.txt"
cp build-gpu/db/nvidia-h100.json "$OUT/"
python3 -c "
import json,sys; d=json.load(open('build-gpu/db/nvidia-h100.json'))
print('d kernel_rate', [(r['m'],r['n'],r['k'],int(r['gflops'])) for r in d['entries'][0]['precisions']['d']['kernel_rate']])"
export CLHGEMM_TUNING_DIR=$PWD/build-gpu/db CLHGEMM_SHIPPED_TUNING_DIR=off
CLHGEMM_VERBOSE=1 timeout 300 build-gpu/bench/clhgemm-bench-host --sizes "$SIZES" --precision d --reps 3 \
  --no-xt --no-naive --csv "$OUT/bench-host.csv" >"$OUT/bench-host.log" 2>&1
grep -i "plan\|tile" "$OUT/bench-host.log" | tail -4
big=${SIZES##*,}
CLHGEMM_TRACE=/tmp/trace.json timeout 120 build-gpu/bench/clhgemm-bench-host --sizes "$big" --precision d \
  --reps 1 --warmup 1 --no-xt --no-naive --no-device-only --no-check >/dev/null 2>&1
python3 bench/trace_summary.py /tmp/trace.json >"$OUT/trace.txt" 2>&1; head -30 "$OUT/trace.txt"
if [ "${XT:-1}" = 1 ]; then
  timeout 200 build-gpu/bench/clhgemm-bench-host --sizes "$big" --precision d --reps 1 --warmup 0 \
    --xt-reps 1 --xt-warmup 0 --no-naive --no-device-only --no-check >"$OUT/bench-xt.log" 2>&1
  tail -6 "$OUT/bench-xt.log"
fi
echo "== summary"; tail -8 "$OUT/bench-host.log"
