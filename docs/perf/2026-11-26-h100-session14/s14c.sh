set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
[ -x build-wt/bench/clhgemm-bench-host ] || { OUT=$OUT/rec bash bench/gpu_record.sh build > $OUT/build.log 2>&1; el "build rc=$?"; }
cmake --build build-wt -j16 > $OUT/build2.log 2>&1; el "build2 rc=$?"
B=build-wt
gcc -O2 -Iinclude -I$B/include .scratch/spread.c -o /tmp/spread -L$B -lclhgemm -lopenblas -Wl,-rpath,$PWD/$B 2>$OUT/spread-cc.log || cat $OUT/spread-cc.log
med() { grep call "$1" | tail -n +3 | sed -E 's/.*ms +([0-9]+)[.0-9]* GF.*/\1/' | sort -n | awk '{v[NR]=$1} END{printf "median %d min %d max %d (n %d)", v[int((NR+1)/2)], v[1], v[NR], NR}'; }
sp() { local tag=$1; shift; /tmp/spread "$@" > "$OUT/spread-$tag.log" 2>&1; echo "$tag: $(med $OUT/spread-$tag.log)"; }
for r in 1 2; do
sp none-$r 4096 0.5 20 0
sp ob2-$r 4096 0.5 20 2
OPENBLAS_THREAD_TIMEOUT=4 sp ob2-t4-$r 4096 0.5 20 2
OPENBLAS_THREAD_TIMEOUT=22 sp ob2-t22-$r 4096 0.5 20 2
sp ob2-shut-$r 4096 0.5 20 2 1
done
el spread
L=/tmp/gpuenv/usr/lib/x86_64-linux-gnu
np() { env LD_LIBRARY_PATH=$B/blas:$L/lapack:$L/openblas-pthread:$LD_LIBRARY_PATH "$@"; }
np python3-debian .scratch/mix.py 512 4096 10 default 2>&1 | tee $OUT/mix-default.log
OPENBLAS_THREAD_TIMEOUT=22 np python3-debian .scratch/mix.py 512 4096 10 timeout22 2>&1 | tee $OUT/mix-t22.log
OPENBLAS_THREAD_TIMEOUT=4 np python3-debian .scratch/mix.py 512 4096 10 timeout4 2>&1 | tee $OUT/mix-t4.log
el numpy-mix
# OpenBLAS alone at the CPU route's sizes with each timeout (what a shorter spin costs it)
for t in "" 22 4; do
  env ${t:+OPENBLAS_THREAD_TIMEOUT=$t} $B/bench/clhgemm-bench-host --sweep --sizes 128,256,512 --precision d --reps 5 --warmup 1 --no-xt --no-device-only > $OUT/ob-t${t:-def}.log 2>&1
  echo "timeout ${t:-default}:"; grep -E "^ +d +0" $OUT/ob-t${t:-def}.log | cut -c1-60
done
el done
