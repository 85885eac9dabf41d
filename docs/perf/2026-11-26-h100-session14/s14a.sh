set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
OUT=$OUT/rec bash bench/gpu_record.sh build > $OUT/build.log 2>&1; el "build rc=$?"; tail -3 $OUT/rec/build/summary.txt 2>/dev/null
B=build-wt
# variant tree: split-K slices down to 32 rows of k (experiment for d 256^3)
mkdir -p /tmp/v && cp -r $(ls -A | grep -vE '^(build|build-wt|\.gpuenv|\.scratch|\.git)$') /tmp/v/ && \
  sed -i 's/const size_t minrows = gp->kwg > 256 ? (size_t)gp->kwg : 256;/const size_t minrows = gp->kwg > 32 ? (size_t)gp->kwg : 32;/' /tmp/v/src/core/splitk.c && \
  grep -c "kwg : 32;" /tmp/v/src/core/splitk.c
(SRC=/tmp/v BUILD_DIR=/tmp/v/b OUT=/tmp/grv bash bench/gpu_record.sh build > $OUT/build-v.log 2>&1; echo "variant build rc=$?" > $OUT/build-v.rc) &
VB=$!
# 1. the CPU route's small calls (tiny kernel change)
$B/bench/clhgemm-bench-smallcall --sizes 8,16,32 --precision both --detail > $OUT/smallcall.txt 2>&1
CLHGEMM_TINY=off $B/bench/clhgemm-bench-smallcall --sizes 16,32 --precision both > $OUT/smallcall-off.txt 2>&1
el smallcall; grep -E "geomean" $OUT/smallcall.txt; echo off:; grep geomean $OUT/smallcall-off.txt
wait $VB; cat $OUT/build-v.rc; el variant
# 2. d 256/512 split experiment (ours only in the variant; base with cuBLAS first)
$B/bench/clhgemm-bench-gemm --sizes 256,512 --precision d --reps 50 --warmup 5 --shapes none > $OUT/g-base.log 2>&1
grep -E "^ *(256|512) " $OUT/g-base.log | head; grep -iE "cublas|ours" $OUT/g-base.log | grep -E "256|512" | head -8
for s in 1 2 4 8; do
  CLHGEMM_SPLIT_K=$s /tmp/v/b/bench/clhgemm-bench-gemm --sizes 256,512 --precision d --reps 50 --warmup 5 --shapes none --no-clblast --no-cublas > $OUT/g-split$s.log 2>&1
  echo "split $s:"; grep -E "clhgemm|ours" $OUT/g-split$s.log | grep -vE "^#|device|driver" | head -4
done
el split
# 3. spread of identical host calls
gcc -O2 -Iinclude -I$B/include .scratch/spread.c -o /tmp/spread -L$B -lclhgemm $(pkg-config --libs openblas 2>/dev/null || echo -lopenblas) -Wl,-rpath,$PWD/$B 2>$OUT/spread-cc.log || cat $OUT/spread-cc.log
for a in "4096 0.5 24 0" "4096 0.5 24 4" "2048 0 40 0" "2048 0 40 5"; do
  /tmp/spread $a > "$OUT/spread-${a// /_}.log" 2>&1
  echo "$a: GF/s $(grep call "$OUT/spread-${a// /_}.log" | sed -E 's/.*ms +([0-9]+)[.0-9]* GF.*/\1/' | tr '\n' ' ')"
done
el spread
# 4. the small end of the sweep
$B/bench/clhgemm-bench-host --sweep --sizes 8,16,32,64,128,256 --precision both --reps 5 --warmup 1 --no-xt --csv $OUT/sweep-small.csv > $OUT/sweep-small.log 2>&1
grep -vE "^clhgemm:" $OUT/sweep-small.log | tail -30 | cut -c1-140
el done
