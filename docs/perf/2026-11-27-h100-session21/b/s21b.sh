# s21b.sh -- session 21, lease 1: (1) the C prefetch into L2 (CLHGEMM_C_PREFETCH=N slices before
# the end; cl/gemm.cl CPF) on DGEMM/SGEMM mid shapes, beta 0.5 (and beta 0 as the no-C-read
# reference), and DTRSM/STRSM 8192; (2) STRMM 1024-8192 committed form vs f440900 (the session-20
# question). Before: rm -rf .scratch/ab-head && git archive --prefix=ab-head/ f440900 | tar -x -C .scratch
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/b
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/b-build-wt.log 2>&1; el "build wt rc=$?"
SRC=.scratch/ab-head BUILD_DIR=build-head OUT=/tmp/gr2 bash bench/gpu_record.sh build > /tmp/b-build-head.log 2>&1; el "build head rc=$?"
SH=4096x8192x4096,2048x8192x2048,1024x8192x1024,512x8192x512,4096x4096x256
sumg() { sed -n '/^m x n x k/,$p' $1 | awk 'NR>1 && NF>5{printf "%s%s %d|", $1, $2, $4}'; }
timeout 120 build-wt/bench/clhgemm-bench-gemm --precision both --sizes 2048,4096 --shapes $SH --reps 10 --warmup 2 --no-clblast > /tmp/b-g-cu.log 2>&1; el "cublas ref rc=$?"
sed -n '/^m x n x k/,$p' /tmp/b-g-cu.log
for r in 1 2; do for v in 0 8 32; do
  CLHGEMM_C_PREFETCH=$v timeout 100 build-wt/bench/clhgemm-bench-gemm --precision both --sizes 2048,4096 --shapes $SH --reps 10 --warmup 2 --no-clblast --no-cublas > /tmp/b-g-$v-$r.log 2>&1
  el "cpf=$v r$r rc=$? $(sumg /tmp/b-g-$v-$r.log)"
done; done
timeout 100 build-wt/bench/clhgemm-bench-gemm --precision both --sizes 2048,4096 --shapes $SH --reps 10 --warmup 2 --no-clblast --no-cublas --beta 0 > /tmp/b-g-beta0.log 2>&1
el "beta0 rc=$? $(sumg /tmp/b-g-beta0.log)"
for r in 1 2; do for v in 0 16; do
  CLHGEMM_C_PREFETCH=$v timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --warmup 1 --no-clblast --no-cublas > /tmp/b-t-$v-$r.log 2>&1
  el "trsm cpf=$v r$r rc=$? $(sed -n '/^routine/,$p' /tmp/b-t-$v-$r.log | awk 'NR>1{printf "%s%s%s %d %s|", $1, $2, $3, $4, $8}')"
done; done
for r in 1 2; do for t in head wt; do
  timeout 100 build-$t/bench/clhgemm-bench-level3 --routines trmm --sizes 1024,2048,4096,8192 --precision s --reps 10 --warmup 2 --no-clblast --no-cublas > /tmp/b-l3-$t-$r.log 2>&1
  el "strmm $t $r rc=$? $(sed -n '/^routine/,$p' /tmp/b-l3-$t-$r.log | awk 'NR>1{printf "%s%s%s %d|", $1, $2, $3, $4}')"
done; done
tar -C /tmp -czf $OUT/b/s21b.tgz $(cd /tmp && ls b-*.log)
el done
