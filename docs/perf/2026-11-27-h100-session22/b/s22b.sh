# s22b.sh -- session 22, lease 2: the FP64 tensor-core kernel prefetching its C block into L2 before a
# short k loop (CLHGEMM_C_PREFETCH_K = the longest k range that prefetches; 0 off), DGEMM rank-k and
# TRSM update shapes at beta 0.5, DTRSM 8192
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/b
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/b-build.log 2>&1; el "build rc=$?"
SH=4096x4096x64,4096x4096x128,4096x4096x256,8192x8192x128,8192x8192x256,512x8192x512,1024x8192x1024,2048x8192x2048,4096x8192x4096
G="build-wt/bench/clhgemm-bench-gemm --precision d --sizes 2048,4096 --shapes $SH --reps 10 --warmup 2 --no-clblast"
sumg() { sed -n '/^m x n x k/,$p' $1 | awk 'NR>1 && NF>5{printf "%s %d|", $2, $4}'; }
timeout 120 $G > /tmp/b-g-cu.log 2>&1; el "cublas ref rc=$?"
sed -n '/^m x n x k/,$p' /tmp/b-g-cu.log
for r in 1 2; do for v in 0 100000; do
  CLHGEMM_C_PREFETCH_K=$v timeout 100 $G --no-cublas > /tmp/b-g-$v-$r.log 2>&1
  el "cpf=$v r$r rc=$? $(sumg /tmp/b-g-$v-$r.log)"
done; done
timeout 100 $G --no-cublas --beta 0 > /tmp/b-g-beta0.log 2>&1; el "beta0 rc=$? $(sumg /tmp/b-g-beta0.log)"
for r in 1 2; do for v in 0 100000 1024; do
  CLHGEMM_C_PREFETCH_K=$v timeout 60 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision d --reps 5 --warmup 1 --no-clblast --no-cublas > /tmp/b-t-$v-$r.log 2>&1
  el "trsm cpf=$v r$r rc=$? $(sed -n '/^routine/,$p' /tmp/b-t-$v-$r.log | awk 'NR>1{printf "%s%s %d %d %s|", $1, $2, $4, $7, $8}')"
done; done
CLHGEMM_CACHE_DIR=/tmp/pcb CLHGEMM_C_PREFETCH_K=100000 timeout 60 build-wt/bench/clhgemm-bench-gemm --precision d --shapes 4096x4096x256 --reps 1 --no-clblast --no-cublas > /dev/null 2>&1
bash .scratch/ptx.sh /tmp/pcb /tmp/b-ptx.txt; cat /tmp/b-ptx.txt
tar -C /tmp -czf $OUT/b/s22b.tgz $(cd /tmp && ls b-*.log b-ptx.txt)
el done
