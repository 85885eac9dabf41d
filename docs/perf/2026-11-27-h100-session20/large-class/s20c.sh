# s20c.sh -- session 20, lease 3: FP64 mid-size products on the large class (128x192 tiles, one
# work-group per SM, the tail split) against the classifier's choice (medium / small / rank_k):
# the issue-22 sweep's mid shapes and DTRSM's update shapes, two rounds alternated; then TRSM
# 2048-8192 the same way.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/c
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/c-build.log 2>&1; el "build rc=$?"
B=build-wt/bench/clhgemm-bench-gemm
SH=1000x1000x1000,1024x1024x1024,2000x2000x2000,2048x2048x2048,3072x3072x3072,4096x4096x4096,5000x5000x5000,2000x3000x1500,10000x1000x1000,1024x8192x1024,2048x8192x2048,4096x4096x256,8192x8192x256,1024x1024x8192
for r in 1 2; do for v in auto large; do
  if [ $v = auto ]; then E=X=1; else E=CLHGEMM_SHAPE_CLASS=large; fi
  env $E CLHGEMM_VERBOSE=0 timeout 150 $B --precision both --sizes none --shapes $SH --reps 8 --warmup 2 --no-clblast > /tmp/c-g-$v-$r.log 2>&1
  el "gemm $v $r rc=$?"
done; done
for r in 1 2; do for v in auto large; do
  if [ $v = auto ]; then E=X=1; else E=CLHGEMM_SHAPE_CLASS=large; fi
  env $E timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 2048,4096,8192 --precision both --reps 5 --warmup 1 --no-clblast --no-cublas > /tmp/c-t-$v-$r.log 2>&1
  el "trsm $v $r rc=$? $(sed -n '/^routine/,$p' /tmp/c-t-$v-$r.log | awk 'NR>1{printf "%s%s %d %s|", $2, $3, $4, $7}')"
done; done
tar -C /tmp -czf $OUT/c/s20c.tgz $(cd /tmp && ls c-*.log)
echo "=== ours GFLOP/s (class) and ours/cuBLAS: auto r1 | large r1 | auto r2 | large r2"
for p in s d; do
python3 - $p <<'PY'
import sys
p = sys.argv[1]
def rd(f):
    d = {}
    for l in open(f):
        x = l.split()
        if len(x) >= 7 and 'x' in x[0] and x[1] == p: d[x[0]] = (x[2], float(x[3]), x[-3])
    return d
runs = [rd(f'/tmp/c-g-{v}-{r}.log') for r in (1, 2) for v in ('auto', 'large')]
for sh in runs[0]:
    print(p, sh.ljust(18), ' | '.join(f"{r[sh][1]:8.0f} {r[sh][0][:8]:8s} {r[sh][2]}" if sh in r else '-' for r in runs))
PY
done
el done
