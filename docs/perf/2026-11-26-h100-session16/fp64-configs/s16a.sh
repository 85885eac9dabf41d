# s16a.sh -- session 16, lease 1: build HEAD; FP64 kernel configurations forced on every class
# (CLHGEMM_DGEMM_PARAMS) at the mid sizes and TRSM's update shapes, against the tuned classes.
set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
OUT=$OUT/rec bash bench/gpu_record.sh build > $OUT/build.log 2>&1; el "build rc=$?"
B=build-wt/bench
COMMON="MMA=2,SA=1,SB=1"
declare -A CFG
CFG[base]=""
CFG[L8]="MWG=128,NWG=192,KWG=8,MDIMC=16,NDIMC=16,VWM=2,VWN=2,KWI=8,WM=2,$COMMON"
CFG[W4a]="MWG=128,NWG=96,KWG=8,MDIMC=16,NDIMC=8,VWM=2,VWN=2,KWI=8,WM=2,$COMMON"
CFG[W4pf]="MWG=128,NWG=96,KWG=8,MDIMC=16,NDIMC=8,VWM=2,VWN=2,KWI=8,WM=2,PF=2,$COMMON"
CFG[W4c]="MWG=96,NWG=128,KWG=8,MDIMC=16,NDIMC=8,VWM=2,VWN=2,KWI=8,WM=2,$COMMON"
CFG[W4k12]="MWG=128,NWG=96,KWG=12,MDIMC=16,NDIMC=8,VWM=2,VWN=1,KWI=12,WM=2,$COMMON"
CFG[W4s]="MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,VWM=2,VWN=2,KWI=8,WM=2,$COMMON"
CFG[W4k16]="MWG=128,NWG=64,KWG=16,MDIMC=16,NDIMC=8,VWM=2,VWN=2,KWI=16,WM=2,$COMMON"
for c in base L8 W4a W4pf W4c W4k12 W4s W4k16; do
  p=${CFG[$c]}
  if [ -n "$p" ]; then export CLHGEMM_DGEMM_PARAMS=$p; else unset CLHGEMM_DGEMM_PARAMS; fi
  timeout 60 $B/clhgemm-bench-gemm --precision d --sizes 1024,2048,3072,4096,8192 \
    --shapes 4096x8192x4096,2048x8192x2048,1024x8192x1024,512x8192x512 --reps 10 --warmup 2 \
    --no-clblast > $OUT/g-$c.log 2>&1
  el "$c rc=$? $(grep -E '^ *[0-9]+x[0-9]+x[0-9]+ +d' $OUT/g-$c.log | awk '{printf "%s %s %s %s|", $1, $3, $4, $8}')"
done
for c in base W4a W4pf; do
  p=${CFG[$c]}
  if [ -n "$p" ]; then export CLHGEMM_DGEMM_PARAMS=$p; else unset CLHGEMM_DGEMM_PARAMS; fi
  timeout 60 $B/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision d --reps 5 --no-clblast > $OUT/t-$c.log 2>&1
  el "trsm $c rc=$? $(grep -iE 'trsm' $OUT/t-$c.log | tail -2 | tr '\n' '|')"
done
unset CLHGEMM_DGEMM_PARAMS
el done
