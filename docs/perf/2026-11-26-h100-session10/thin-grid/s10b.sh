#!/bin/bash
set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
O=$OUT; t0=$(date +%s)
OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt; echo "build $(( $(date +%s) - t0 )) s"
B=build-wt/bench/clhgemm-bench-gemm
run() { # name prec shapes spec
  local dir=/tmp/var-$1; mkdir -p $dir
  if [ -n "$4" ]; then python3 .scratch/mkvar3.py tuning/nvidia-h100.json $dir/nvidia-h100.json "$4"; else cp tuning/nvidia-h100.json $dir/; fi
  CLHGEMM_SHIPPED_TUNING_DIR=$dir timeout 100 $B --precision $2 --sizes none --shapes $3 --reps 5 --warmup 1 --no-clblast --no-cublas > $O/$1.log 2>&1
  printf "%-64s %s\n" "$4" "$(grep -E '^[0-9]+x' $O/$1.log | awk '{printf "%6.0f(%s) ", $4/10, $3}') $(grep -ci 'error\|fail' $O/$1.log)"
}
F="VWM=4,VWN=4,SA=1,SB=1,KWG=16,KWI=16"
T=8192x64x8192,16384x64x8192,16384x32x8192
echo "== s thin tall $T"
run t0 s $T "s:tall:MWG=64,NWG=64,MDIMC=8,NDIMC=16,$F:4"
run t1 s $T "s:tall:MWG=64,NWG=64,MDIMC=8,NDIMC=16,$F:8"
run t2 s $T "s:tall:MWG=64,NWG=64,MDIMC=8,NDIMC=16,$F:0"
run t3 s $T "s:tall:MWG=128,NWG=64,MDIMC=16,NDIMC=8,$F:4"
run t4 s $T "s:tall:MWG=64,NWG=64,MDIMC=8,NDIMC=8,$F:4"
run t5 s $T "s:tall:MWG=128,NWG=32,MDIMC=16,NDIMC=8,$F:4"
run t6 s $T "s:tall:MWG=64,NWG=64,MDIMC=8,NDIMC=16,VWM=4,VWN=4,SA=1,SB=1,KWG=32,KWI=16:4"
W=64x8192x8192,64x16384x8192,32x16384x8192
echo "== s thin wide $W"
run w0 s $W ""
run w1 s $W "s:wide:MWG=64,NWG=64,MDIMC=16,NDIMC=8,$F:4"
run w2 s $W "s:wide:MWG=64,NWG=64,MDIMC=8,NDIMC=16,$F:4"
run w3 s $W "s:wide:MWG=64,NWG=128,MDIMC=16,NDIMC=8,$F:4"
run w4 s $W "s:wide:MWG=64,NWG=128,MDIMC=8,NDIMC=16,$F:4"
run w5 s $W "s:wide:MWG=64,NWG=64,MDIMC=8,NDIMC=8,$F:4"
run w6 s $W "s:wide:MWG=64,NWG=256,MDIMC=16,NDIMC=16,$F:4"
run w7 s $W "s:wide:MWG=64,NWG=128,MDIMC=16,NDIMC=8,$F:8"
T2=16384x256x16384,8192x256x4096,8192x128x8192,256x16384x16384,256x8192x4096,128x8192x8192
echo "== s tall/wide 128-256 $T2 (tall then wide set)"
run u0 s $T2 ""
run u1 s $T2 "s:tall:MWG=64,NWG=128,MDIMC=16,NDIMC=16,$F:2;s:wide:MWG=128,NWG=64,MDIMC=16,NDIMC=16,$F:2"
run u2 s $T2 "s:tall:MWG=64,NWG=128,MDIMC=16,NDIMC=16,$F:0;s:wide:MWG=64,NWG=128,MDIMC=16,NDIMC=16,$F:2"
run u3 s $T2 "s:tall:MWG=64,NWG=128,MDIMC=8,NDIMC=16,$F:2;s:wide:MWG=128,NWG=64,MDIMC=16,NDIMC=8,$F:2"
run u4 s $T2 "s:tall:MWG=128,NWG=128,MDIMC=16,NDIMC=16,$F:4;s:wide:MWG=128,NWG=128,MDIMC=16,NDIMC=16,$F:4"
S=256x256x256,512x512x512,1000x1000x1000,1024x1024x1024
echo "== s small $S"
run s0 s $S ""
run s1 s $S "s:small:MWG=32,NWG=64,MDIMC=8,NDIMC=16,$F:0"
run s2 s $S "s:small:MWG=64,NWG=64,MDIMC=8,NDIMC=16,$F:0"
run s3 s $S "s:small:MWG=32,NWG=32,MDIMC=8,NDIMC=8,$F:0"
run s4 s $S "s:small:MWG=64,NWG=64,MDIMC=16,NDIMC=16,$F:0"
run s5 s $S "s:small:MWG=32,NWG=64,MDIMC=8,NDIMC=16,$F,DK=1:1"
run s6 s $S "s:small:MWG=64,NWG=32,MDIMC=16,NDIMC=8,$F:0"
L=1024x1024x8192,512x512x32768,2048x2048x8192
echo "== s large_k $L"
run l0 s $L ""
run l1 s $L "s:large_k:MWG=128,NWG=128,MDIMC=16,NDIMC=16,$F:8"
run l2 s $L "s:large_k:MWG=128,NWG=128,MDIMC=16,NDIMC=16,$F:0"
run l3 s $L "s:large_k:MWG=64,NWG=128,MDIMC=16,NDIMC=16,$F:0"
run l4 s $L "s:large_k:MWG=128,NWG=256,MDIMC=16,NDIMC=16,$F:0"
run l5 s $L "s:large_k:MWG=64,NWG=64,MDIMC=8,NDIMC=16,$F:0"
cd $O && tar czf grid.tgz *.log && rm -f [twusl][0-9]*.log
echo "total $(( $(date +%s) - t0 )) s"
