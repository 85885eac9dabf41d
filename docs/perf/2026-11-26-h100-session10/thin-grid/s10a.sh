#!/bin/bash
set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
O=$OUT; t0=$(date +%s)
OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
cmake --build build-wt -j16 --target clhgemm-bench-level3 >> $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt; echo "build $(( $(date +%s) - t0 )) s"
(cd build-wt && timeout 200 ctest -L nvidia -j4 > $O/nv.log 2>&1; timeout 150 ctest -R "test_shapes_d|test_shapes_s|test_trsm_cl" -j4 >> $O/nv.log 2>&1)
grep -E "tests passed|Failed|\*\*\*" $O/nv.log | head
for r in 1 2; do for x in 0 1; do
CLHGEMM_TRSM_INV_BESIDE=$x timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --no-clblast > $O/tr-$x-$r.log 2>&1
echo "beside=$x: $(grep -A4 '== summary' $O/tr-$x-$r.log | grep -E '^trsm' | awk '{printf "%s %s %s | ", $2, $4, $7}')"
done; done
B=build-wt/bench/clhgemm-bench-gemm
run() { # name prec shapes spec
  local dir=/tmp/var-$1; mkdir -p $dir
  if [ -n "$4" ]; then python3 .scratch/mkvar3.py tuning/nvidia-h100.json $dir/nvidia-h100.json "$4"; else cp tuning/nvidia-h100.json $dir/; fi
  CLHGEMM_SHIPPED_TUNING_DIR=$dir timeout 100 $B --precision $2 --sizes none --shapes $3 --reps 5 --warmup 1 --no-clblast --no-cublas > $O/$1.log 2>&1
  printf "%-64s %s\n" "$4" "$(grep -E '^[0-9]+x' $O/$1.log | awk '{printf "%6.0f(%s) ", $4/10, $3}') $(grep -ci 'error\|fail' $O/$1.log)"
}
T=8192x64x8192,16384x256x16384,8192x256x4096,8192x128x8192
F="VWM=4,VWN=4,SA=1,SB=1,KWG=16,KWI=16"
echo "== s tall $T"
run t0 s $T ""
run t1 s $T "s:tall:MWG=32,NWG=64,MDIMC=8,NDIMC=16,$F:4"
run t2 s $T "s:tall:MWG=32,NWG=64,MDIMC=8,NDIMC=16,$F:0"
run t3 s $T "s:tall:MWG=64,NWG=64,MDIMC=16,NDIMC=16,$F:4"
run t4 s $T "s:tall:MWG=64,NWG=64,MDIMC=16,NDIMC=16,$F:2"
run t5 s $T "s:tall:MWG=64,NWG=64,MDIMC=8,NDIMC=16,$F:4"
run t6 s $T "s:tall:MWG=128,NWG=64,MDIMC=16,NDIMC=16,$F:2"
run t7 s $T "s:tall:MWG=128,NWG=64,MDIMC=16,NDIMC=16,$F:4"
run t8 s $T "s:tall:MWG=128,NWG=128,MDIMC=16,NDIMC=16,$F:2"
run t9 s $T "s:tall:MWG=64,NWG=128,MDIMC=16,NDIMC=16,$F:2"
run t01 s $T ""
cd $O && tar czf grid.tgz *.log && rm -f t[0-9]*.log tr-*.log
echo "total $(( $(date +%s) - t0 )) s"
