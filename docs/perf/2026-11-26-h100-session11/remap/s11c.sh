#!/bin/bash
set -u
export CLHGEMM_SHIPPED_TUNING_DIR=/tmp/h
O=$OUT; t0=$(date +%s)
B=build-wt/bench/clhgemm-bench-gemm
W=64x8192x8192,64x16384x8192,32x16384x8192,256x256x256,512x512x512,1000x1000x1000,1024x1024x1024,256x16384x16384
bld() { cp .scratch/gemm-$1.cl cl/gemm.cl; cmake --build build-wt -j16 --target clhgemm-bench-gemm test_gemm test_shapes test_mma >> $O/build.log 2>&1 || echo "build $1 failed"; }
bld remap
(cd build-wt && timeout 200 ctest -R "test_shapes_d$|test_shapes_d_split$|test_shapes_d_direct|test_shapes_d_tail$|test_gemm_mma|test_mma" -LE slow -j4 > $O/nv-remap.log 2>&1)
grep -E "tests passed|Failed|\*\*\*" $O/nv-remap.log | head
for r in 1 2; do for v in remap head; do
  bld $v
  timeout 100 $B --precision d --sizes none --shapes $W --reps 10 --warmup 2 --no-clblast --no-cublas > $O/w-$v-$r.log 2>&1
  printf "%-5s %s\n" $v "$(grep -E '^[0-9]+x' $O/w-$v-$r.log | awk '{printf "%6.0f ", $4}')"
done; done
cd $O && tar czf logs2.tgz *.log
echo "total $(( $(date +%s) - t0 )) s"
