# s22f.sh -- session 22, lease 6: the shape sweep on the final tree, two more processes (both
# precisions, CLBlast and cuBLAS in the same process), and DTRSM / STRSM 8192 in three processes
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/f
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/f-build.log 2>&1; el "build rc=$?"
for r in 1 2; do
  timeout 200 build-wt/bench/clhgemm-bench-gemm --shapes sweep --precision both --reps 3 --warmup 1 --csv /tmp/f-sweep-$r.csv > /tmp/f-sweep-$r.log 2>&1; el "sweep $r rc=$? $(grep 'geomean ours/' /tmp/f-sweep-$r.log | tr -s ' ' | tr '\n' '|')"
done
for r in 1 2 3; do
  timeout 60 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --warmup 1 --no-clblast --no-cublas > /tmp/f-t-$r.log 2>&1
  el "trsm r$r rc=$? $(sed -n '/^routine/,$p' /tmp/f-t-$r.log | awk 'NR>1{printf "%s%s %d %d %s|", $1, $2, $4, $7, $8}')"
done
(cd /tmp && tar -czf $OUT/f/s22f.tgz f-*.log f-*.csv)
el done
