#!/bin/bash
set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
O=$OUT; t0=$(date +%s)
cp -r .scratch/headfiles/. . && echo restored helper files
OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt; echo "build $(( $(date +%s) - t0 )) s"
(cd build-wt && timeout 250 ctest -R "test_shapes" -j4 --output-on-failure > $O/nv.log 2>&1)
grep -E "tests passed|Failed|\*\*\*" $O/nv.log | head
B=build-wt/bench/clhgemm-bench-gemm
mkdir -p /tmp/old && cp .scratch/h100-head.json /tmp/old/nvidia-h100.json
for r in 1 2; do
CLHGEMM_SHIPPED_TUNING_DIR=/tmp/old timeout 200 $B --shapes sweep --precision s --reps 3 --warmup 1 --no-clblast --no-cublas > $O/sw-old-$r.log 2>&1
timeout 200 $B --shapes sweep --precision s --reps 3 --warmup 1 --no-clblast --no-cublas > $O/sw-new-$r.log 2>&1
done
run() { # name prec shapes spec
  local dir=/tmp/var-$1; mkdir -p $dir
  if [ -n "$4" ]; then python3 .scratch/mkvar3.py tuning/nvidia-h100.json $dir/nvidia-h100.json "$4"; else cp tuning/nvidia-h100.json $dir/; fi
  CLHGEMM_SHIPPED_TUNING_DIR=$dir timeout 100 $B --precision $2 --sizes none --shapes $3 --reps 5 --warmup 1 --no-clblast --no-cublas > $O/$1.log 2>&1
  printf "%-64s %s\n" "$4" "$(grep -E '^[0-9]+x' $O/$1.log | awk '{printf "%6.0f(%s) ", $4/10, $3}') $(grep -ci 'error\|fail' $O/$1.log)"
}
F="VWM=4,VWN=4,SA=1,SB=1,KWG=16,KWI=16"
T=8192x64x8192,16384x64x8192,16384x32x8192,32768x48x4096
echo "== s tall_thin $T"
run t0 s $T ""
run t1 s $T "s:tall_thin:MWG=128,NWG=64,MDIMC=16,NDIMC=8,$F:8"
run t2 s $T "s:tall_thin:MWG=128,NWG=64,MDIMC=16,NDIMC=8,$F:0"
run t3 s $T "s:tall_thin:MWG=128,NWG=32,MDIMC=16,NDIMC=8,$F:8"
run t4 s $T "s:tall_thin:MWG=256,NWG=64,MDIMC=32,NDIMC=8,$F:4"
run t5 s $T "s:tall_thin:MWG=128,NWG=64,MDIMC=32,NDIMC=8,VWM=4,VWN=4,SA=1,SB=1,KWG=16,KWI=16:4"
W=64x8192x8192,64x16384x8192,32x16384x8192,48x32768x4096
echo "== s wide_thin $W"
run w0 s $W ""
run w1 s $W "s:wide_thin:MWG=64,NWG=256,MDIMC=16,NDIMC=16,$F:2"
run w2 s $W "s:wide_thin:MWG=64,NWG=256,MDIMC=16,NDIMC=16,$F:8"
run w3 s $W "s:wide_thin:MWG=64,NWG=256,MDIMC=8,NDIMC=32,$F:4"
run w4 s $W "s:wide_thin:MWG=64,NWG=512,MDIMC=16,NDIMC=16,$F:4"
run w5 s $W "s:wide_thin:MWG=32,NWG=256,MDIMC=8,NDIMC=16,$F:4"
run w6 s $W "s:wide_thin:MWG=64,NWG=256,MDIMC=16,NDIMC=16,VWM=4,VWN=4,SA=1,SB=1,KWG=32,KWI=16:4"
D=16384x256x16384,8192x256x4096,8192x128x8192,256x16384x16384,256x8192x4096,128x8192x8192
echo "== d tall / wide $D"
run d0 d $D ""
run d1 d $D "d:tall:MWG=128,NWG=128,KWG=16,KWI=16,MDIMC=16,NDIMC=16,WM=2:4;d:wide:MWG=128,NWG=128,KWG=16,KWI=16,MDIMC=16,NDIMC=16,WM=2:4"
run d2 d $D "d:tall:MWG=64,NWG=128,KWG=16,KWI=16,MDIMC=16,NDIMC=16,WM=1,PF=2:2;d:wide:MWG=64,NWG=128,KWG=16,KWI=16,MDIMC=16,NDIMC=16,WM=1,PF=2:2"
run d3 d $D "d:tall:MWG=128,NWG=64,KWG=16,KWI=16,MDIMC=16,NDIMC=8,WM=2:4;d:wide:MWG=64,NWG=128,KWG=16,KWI=16,MDIMC=16,NDIMC=16,WM=2:4"
run d4 d $D "d:tall:MWG=64,NWG=128,KWG=8,KWI=8,MDIMC=16,NDIMC=16,WM=1,PF=2:4;d:wide:MWG=64,NWG=128,KWG=8,KWI=8,MDIMC=16,NDIMC=16,WM=1,PF=2:4"
cd $O && tar czf grid.tgz *.log && rm -f [twd][0-9]*.log sw-*.log
echo "total $(( $(date +%s) - t0 )) s"
