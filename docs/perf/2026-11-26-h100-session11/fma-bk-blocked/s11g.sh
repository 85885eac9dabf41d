#!/bin/bash
set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
O=$OUT; t0=$(date +%s)
B=build-wt/bench/clhgemm-bench-gemm
OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
cmake --build build-wt -j16 --target clhgemm-bench-gemm >> $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt; echo "build $(( $(date +%s) - t0 )) s"
S=256x256x256,384x384x384,512x512x512,768x768x768,1000x1000x1000,1024x1024x1024,1536x1536x1536,2048x2048x2048,4096x4096x128,8192x8192x128
CLHGEMM_DIRECT=on CLHGEMM_VERBOSE=2 timeout 60 $B --precision s --sizes none --shapes $S --reps 1 --warmup 0 --no-clblast --no-cublas 2>&1 | grep -E "gemm s m=|^[0-9]+x" | uniq > $O/decisions-on.log
for r in 1 2 3; do for m in auto on; do
  CLHGEMM_DIRECT=$m timeout 100 $B --precision s --sizes none --shapes $S --reps 20 --warmup 3 --no-clblast --no-cublas --no-check > $O/d-$m-$r.log 2>&1
  printf "%-5s %s\n" $m "$(grep -E '^[0-9]+x' $O/d-$m-$r.log | awk '{printf "%6.0f ", $4}')"
done; done
grep -c "ok\|WARN" $O/decisions-on.log; grep -E "WARN|FAIL" $O/decisions-on.log | head -3
cd $O && tar czf logs.tgz *.log
echo "total $(( $(date +%s) - t0 )) s"
