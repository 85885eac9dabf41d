set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
OUT=$OUT/rec bash bench/gpu_record.sh build > $OUT/build.log 2>&1; el "build rc=$?"
B=build-wt
$B/bench/clhgemm-bench-gemm --sizes 256,512 --precision both --reps 50 --warmup 5 --shapes none > $OUT/g-new.log 2>&1
CLHGEMM_VERBOSE=2 $B/bench/clhgemm-bench-gemm --sizes 256,512 --precision d --reps 1 --warmup 0 --shapes none --no-clblast --no-cublas 2>&1 | grep -E "split-K" | sort | uniq -c | head -4
grep -E "^[0-9]+x" $OUT/g-new.log; el gemm
gcc -O2 -Iinclude -I$B/include .scratch/spread.c -o /tmp/spread -L$B -lclhgemm -lopenblas -Wl,-rpath,$PWD/$B 2>$OUT/spread-cc.log || cat $OUT/spread-cc.log
sp() { local tag=$1; shift; /tmp/spread "$@" > "$OUT/spread-$tag.log" 2>&1; echo "$tag: $(grep call "$OUT/spread-$tag.log" | sed -E 's/.*ms +([0-9]+)[.0-9]* GF.*/\1/' | tr '\n' ' ')"; }
sp base 4096 0.5 16 0
sp ob4 4096 0.5 16 4
OPENBLAS_THREAD_TIMEOUT=4 sp ob4-timeout4 4096 0.5 16 4
sp ob4-shutdown 4096 0.5 16 4 1
sp ob1-sleep0 4096 0.5 8 1 0 0
sp ob1-sleep50 4096 0.5 8 1 0 50
sp ob1-sleep150 4096 0.5 8 1 0 150
sp ob1-sleep400 4096 0.5 8 1 0 400
OPENBLAS_NUM_THREADS=8 sp ob4-8thr 4096 0.5 16 4
el spread
grep -m1 OpenBLAS $OUT/spread-base.log; nproc
