#!/usr/bin/env bash
# Sweeps GEMM kernel parameter sets on the GPU machine through CLHGEMM_{S,D}GEMM_PARAMS (until
# clhgemm-tune exists). Assumes build-gpu is built. Usage: bench/gpu_sweep.sh s|d SIZES "P1" "P2" ...
# Prints one summary line per parameter set; full logs go to $OUT/sweep-<prec>.log.
set -u
prec=$1; sizes=$2; shift 2
OUT=${OUT:-./out}; mkdir -p "$OUT"
var=CLHGEMM_SGEMM_PARAMS; [ "$prec" = d ] && var=CLHGEMM_DGEMM_PARAMS
for p in "$@"; do
  line=$(env "$var=$p" CLHGEMM_VERBOSE=1 build-gpu/bench/clhgemm-bench-gemm --precision "$prec" \
         --sizes "$sizes" --shapes none --reps 5 --warmup 1 --no-clblast --no-cublas \
         --csv "$OUT/sweep.csv" 2>&1 | tee -a "$OUT/sweep-$prec.log" |
         awk -v p="$p" '/^[0-9]+x[0-9]+x[0-9]+ /{r=r" "$1":"$3} /ignoring/{r=r" INVALID"} END{print p r}')
  echo "$prec $line"
done
