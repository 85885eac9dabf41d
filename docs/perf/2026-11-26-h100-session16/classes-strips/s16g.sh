# s16g.sh -- session 16: (1) TRSM's update shapes under each shape class's configuration
# (CLHGEMM_SHAPE_CLASS forced) and a 4-warp 128x64 FP64 tile; (2) the host TRSM's strip width
# (CLHGEMM_TRSM_STRIP) with the chunked copies.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
SRC=. BUILD_DIR=build-wt OUT=/tmp/newrec bash bench/gpu_record.sh build > /tmp/newbuild.log 2>&1; el "build rc=$?"
B=build-wt/bench
SH=512x8192x512,1024x8192x1024,2048x8192x2048,4096x8192x4096,512x4096x512,1024x4096x1024
for cls in auto medium small rank_k large wide W4s; do
  case $cls in
    auto) e="" ;;
    W4s) e="CLHGEMM_DGEMM_PARAMS=MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,VWM=2,VWN=2,KWI=8,WM=2,MMA=2,SA=1,SB=1" ;;
    *) e="CLHGEMM_SHAPE_CLASS=$cls" ;;
  esac
  p=both; [ $cls = W4s ] && p=d
  env $e timeout 80 $B/clhgemm-bench-gemm --precision $p --sizes none --shapes $SH --reps 10 --warmup 2 --no-clblast > /tmp/c-$cls.log 2>&1
  el "$cls rc=$? $(grep -E '^ *[0-9]+x[0-9]+x[0-9]+ +[sd] ' /tmp/c-$cls.log | awk '{printf "%s%s %s %s %s|", $1, $2, $3, $4, $8}')"
done
for w in 2048 4096 8192 2048 4096; do
  env CLHGEMM_TRSM_STRIP=$w timeout 150 $B/clhgemm-bench-level3 --host --routines trsm --sizes 16384 --precision both --reps 2 --warmup 1 --no-xt > /tmp/w-$w.log 2>&1
  el "strip $w rc=$? $(grep -E '^trsm +[sd] ' /tmp/w-$w.log | awk '{printf "%s %s gemm %s %s|", $2, $4, $7, $8}')"
done
tar -C /tmp -czf $OUT/glogs.tgz $(cd /tmp && ls c-*.log w-*.log)
el done
