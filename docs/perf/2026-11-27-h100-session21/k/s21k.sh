# s21k.sh -- session 21, lease 10: DTRSM / STRSM n = 8192 on device buffers on ee8f1e9, five
# processes (the spread of the ratio to GEMM on the final tree).
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/k
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/k-build.log 2>&1; el "build rc=$?"
for r in 1 2 3 4 5; do
  timeout 60 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --warmup 1 --no-clblast --no-cublas > /tmp/k-t-$r.log 2>&1
  el "trsm r$r rc=$? $(sed -n '/^routine/,$p' /tmp/k-t-$r.log | awk 'NR>1{printf "%s%s%s %d %d %s|", $1, $2, $3, $4, $7, $8}')"
done
tar -C /tmp -czf $OUT/k/s21k.tgz $(cd /tmp && ls k-*.log)
el done
