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
  printf "%-64s %s\n" "$4" "$(grep -E '^[0-9]+x' $O/$1.log | awk '{printf "%6.0f(%s) ", $4/10, $3}') $(grep -ci 'error\|fail' $O/$1.log)"
}
S=256x256x256,512x512x512,1000x1000x1000,1024x1024x1024,768x768x768
F="SA=1,SB=1,KWI=16"
for r in 1 2; do
echo "== s small $S round $r"
run s0$r s $S ""
run sa$r s $S "s:small:MWG=64,NWG=64,MDIMC=8,NDIMC=16,VWM=4,VWN=4,KWG=16,$F:1"
run sb$r s $S "s:small:MWG=64,NWG=64,MDIMC=16,NDIMC=16,VWM=4,VWN=4,KWG=32,$F:1"
run sc$r s $S "s:small:MWG=32,NWG=64,MDIMC=8,NDIMC=16,VWM=4,VWN=4,KWG=32,$F:1"
run sd$r s $S "s:small:MWG=32,NWG=64,MDIMC=8,NDIMC=16,VWM=4,VWN=4,KWG=8,SA=1,SB=1,KWI=8:1"
run se$r s $S "s:small:MWG=32,NWG=32,MDIMC=8,NDIMC=8,VWM=4,VWN=4,KWG=16,$F:1"
run sf$r s $S "s:small:MWG=64,NWG=32,MDIMC=16,NDIMC=8,VWM=4,VWN=4,KWG=16,$F:1"
run sg$r s $S "s:small:MWG=32,NWG=64,MDIMC=16,NDIMC=16,VWM=2,VWN=4,KWG=16,$F:1"
run sh$r s $S "s:small:MWG=32,NWG=128,MDIMC=8,NDIMC=32,VWM=4,VWN=4,KWG=16,$F:1"
done
L=1024x1024x8192,512x512x32768
echo "== s large_k $L"
run l0 s $L ""
run l1 s $L "s:large_k:MWG=256,NWG=128,MDIMC=16,NDIMC=16,VWM=4,VWN=4,KWG=32,$F:16"
run l2 s $L "s:large_k:MWG=128,NWG=256,MDIMC=16,NDIMC=16,VWM=4,VWN=4,KWG=16,$F:16"
run l3 s $L "s:large_k:MWG=128,NWG=128,MDIMC=16,NDIMC=16,VWM=4,VWN=4,KWG=16,$F:16"
run l4 s $L "s:large_k:MWG=128,NWG=128,MDIMC=16,NDIMC=16,VWM=4,VWN=4,KWG=16,$F:32"
cd $O && tar czf grid.tgz *.log && rm -f [sl][0-9a-h]*.log
echo "total $(( $(date +%s) - t0 )) s"
