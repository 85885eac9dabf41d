# s22c.sh -- session 22, lease 3: the large class (tail split) against auto on the medium class's
# biggest outputs (m*n = 2^23 .. 2^24), both precisions, beta 0.5
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/c
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/c-build.log 2>&1; el "build rc=$?"
SH=2048x8192x2048,1024x8192x1024,3072x3072x3072,4096x4096x2048,4096x4096x1024,2000x3000x1500,10000x1000x1000,4000x4000x4000
G="build-wt/bench/clhgemm-bench-gemm --precision both --sizes 4096 --shapes $SH --reps 10 --warmup 2 --no-clblast"
sumg() { sed -n '/^m x n x k/,$p' $1 | awk 'NR>1 && NF>5{printf "%s%s %s %d|", $2, $1, $3, $4}'; }
timeout 150 $G > /tmp/c-g-cu.log 2>&1; el "cublas ref rc=$?"
sed -n '/^m x n x k/,$p' /tmp/c-g-cu.log
for r in 1 2; do for v in auto large; do
  CLHGEMM_SHAPE_CLASS=$v CLHGEMM_VERBOSE=1 timeout 120 $G --no-cublas > /tmp/c-g-$v-$r.log 2>&1
  el "class=$v r$r rc=$? $(sumg /tmp/c-g-$v-$r.log)"
done; done
grep -h -i "tail" /tmp/c-g-large-1.log | sort | uniq -c | head -20
tar -C /tmp -czf $OUT/c/s22c.tgz $(cd /tmp && ls c-*.log)
el done
