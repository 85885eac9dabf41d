#!/usr/bin/env bash
# bench/gpu_issue7.sh -- on the GPU machine: build, tune DGEMM with the FP64 tensor-core kernel in
# the search space (merged into a copy of the shipped H100 entry), then with that database:
# DGEMM on device buffers next to CLBlast and cuBLAS, and host-resident DGEMM (pageable).
#   OUT=dir [BUDGET=4m30s] [HOST_SIZES=16384,32768] bash bench/gpu_issue7.sh
OUT=${OUT:-./out}; mkdir -p "$OUT"
. bench/gpu_build.sh
mkdir -p build-gpu/db && cp tuning/nvidia-h100.json build-gpu/db/nvidia-h100.json
# TUNE_SEED="MWG=..,...": put into the copy's DGEMM entry, so the search starts from it (stage 0
# times the built-in defaults and the entry in use); otherwise the search starts from the defaults.
TUNEDIR=off
if [ -n "${TUNE_SEED:-}" ]; then
  python3 - build-gpu/db/nvidia-h100.json "$TUNE_SEED" <<'PY'
import json, sys
path, seed = sys.argv[1], sys.argv[2]
db = json.load(open(path))
g = db["entries"][0]["precisions"]["d"]["gemm"]
for kv in seed.split(","):
    k, v = kv.split("=")
    g[k] = int(v)
json.dump(db, open(path, "w"), indent=1)
PY
  TUNEDIR=$PWD/build-gpu/db
fi
env CLHGEMM_TUNING_DIR=$TUNEDIR CLHGEMM_SHIPPED_TUNING_DIR=off build-gpu/tools/clhgemm-tune --devices gpu --precision d --gemm \
  --budget "${BUDGET:-4m30s}" ${TUNE_SIZE:+--size $TUNE_SIZE} --out build-gpu/db/nvidia-h100.json --out-dir /tmp/tune-out \
  >/tmp/tune-out.txt 2>&1
tail -6 /tmp/tune-out.txt
cp /tmp/tune-out/improvements.csv "$OUT/tune-improvements.csv"; tail -40 /tmp/tune-out/tune.log > "$OUT/tune-tail.log"
cp build-gpu/db/nvidia-h100.json "$OUT/"
export CLHGEMM_TUNING_DIR=$PWD/build-gpu/db CLHGEMM_SHIPPED_TUNING_DIR=off
build-gpu/tools/clhgemm-info >"$OUT/info.txt" 2>&1; grep -i "dgemm" "$OUT/info.txt"
build-gpu/bench/clhgemm-bench-gemm --precision d --sizes 4096,8192 --shapes none --reps 10 \
  --warmup 2 >"$OUT/bench-gemm.log" 2>&1
grep -A4 "== summary" "$OUT/bench-gemm.log"
if [ -n "${HOST_SIZES:-16384,32768}" ]; then
  build-gpu/bench/clhgemm-bench-host --sizes "${HOST_SIZES:-16384,32768}" --precision d --reps 3 \
    --no-xt --no-naive >"$OUT/bench-host.log" 2>&1
  tail -8 "$OUT/bench-host.log"
fi
if [ "${L3:-1}" = 1 ]; then  # level 3 on device buffers (and from host memory if L3_HOST_SIZES)
  echo "== level 3, device buffers, DGEMM kernel from this database"
  build-gpu/bench/clhgemm-bench-level3 --sizes 8192 --precision d --reps 5 \
    >"$OUT/bench-level3-d.log" 2>&1
  grep -A6 "== summary" "$OUT/bench-level3-d.log"
  if [ -n "${L3_HOST_SIZES:-}" ]; then
  echo "== level 3 from host memory, next to the host GEMM"
  build-gpu/bench/clhgemm-bench-level3 --host --sizes "$L3_HOST_SIZES" --precision both \
    --reps 2 --warmup 1 --csv "$OUT/bench-level3-host.csv" >"$OUT/bench-level3-host.log" 2>&1
  grep -A12 "== summary" "$OUT/bench-level3-host.log"
  fi
fi
