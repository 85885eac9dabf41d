#!/bin/bash
set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
export CLHGEMM_TAIL_SPLIT=off
O=$OUT; t0=$(date +%s)
B=build-wt/bench/clhgemm-bench-gemm
bld() { cp .scratch/gemm-$1.cl cl/gemm.cl; cmake --build build-wt -j16 --target clhgemm-bench-gemm >> $O/build.log 2>&1 || echo "build $1 failed"; }
OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt; echo "build $(( $(date +%s) - t0 )) s"
W=16384x256x16384,8192x64x8192,1024x1024x8192,512x512x32768,64x8192x8192,8192x256x4096
for r in 1 2; do for v in noclamp clamp; do
  bld $v
  timeout 100 $B --precision both --sizes none --shapes $W --reps 10 --warmup 2 --no-clblast --no-cublas --no-check > $O/w-$v-$r.log 2>&1
  printf "%-8s %s\n" $v "$(grep -E '^[0-9]+x' $O/w-$v-$r.log | awk '{printf "%s%s %6.0f  ", $2, $3, $4}')"
done; done
T=16384x256x16384,16384x128x16384,8192x256x4096,16384x256x8192,32768x256x8192,8192x128x8192,65536x256x4096
for c in auto large; do
  CLHGEMM_SHAPE_CLASS=$c timeout 100 $B --precision s --sizes none --shapes $T --reps 10 --warmup 2 --no-clblast --no-cublas --no-check > $O/t-$c.log 2>&1
  printf "%-6s %s\n" $c "$(grep -E '^[0-9]+x' $O/t-$c.log | awk '{printf "%s %6.0f  ", $3, $4}')"
done
cd $O && tar czf logs.tgz *.log
echo "total $(( $(date +%s) - t0 )) s"
