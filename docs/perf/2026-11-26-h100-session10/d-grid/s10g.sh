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
  CLHGEMM_SHIPPED_TUNING_DIR=$dir timeout 100 $B --precision $2 --sizes none --shapes $3 --reps 10 --warmup 2 --no-clblast --no-cublas > $O/$1.log 2>&1
  printf "%-64s %s\n" "$4" "$(grep -E '^[0-9]+x' $O/$1.log | awk '{printf "%6.0f(%s) ", $4/10, $3}') $(grep -ci 'error\|fail\|ignor\|not fit' $O/$1.log)"
}
W=64x8192x8192,64x16384x8192,32x16384x8192
S=256x256x256,512x512x512,1000x1000x1000,1024x1024x1024,768x768x768
for r in 1 2; do
echo "== d wide_thin $W round $r"
run w0$r d $W ""
run w1$r d $W "d:wide_thin:MWG=64,NWG=128,KWG=16,KWI=16,MDIMC=16,NDIMC=16,WM=2:4"
run w2$r d $W "d:wide_thin:MWG=64,NWG=64,KWG=16,KWI=16,MDIMC=16,NDIMC=8,WM=2:8"
run w3$r d $W "d:wide_thin:MWG=64,NWG=64,KWG=16,KWI=16,MDIMC=16,NDIMC=8,WM=2,PF=2:4"
run w4$r d $W "d:wide_thin:MWG=64,NWG=128,KWG=16,KWI=16,MDIMC=16,NDIMC=16,WM=1,PF=2:4"
echo "== d small $S round $r"
run s0$r d $S ""
run s1$r d $S "d:small:MWG=64,NWG=64,KWG=16,KWI=16,MDIMC=16,NDIMC=8,WM=2:0"
run s2$r d $S "d:small:MWG=64,NWG=64,KWG=16,KWI=16,MDIMC=16,NDIMC=8,WM=2,PF=2:0"
run s3$r d $S "d:small:MWG=64,NWG=32,KWG=8,KWI=8,MDIMC=16,NDIMC=8,WM=2:0"
run s4$r d $S "d:small:MWG=32,NWG=64,KWG=8,KWI=8,MDIMC=8,NDIMC=16,WM=1:0"
done
cd $O && tar czf grid.tgz *.log && rm -f [ws][0-9]*.log
echo "total $(( $(date +%s) - t0 )) s"
