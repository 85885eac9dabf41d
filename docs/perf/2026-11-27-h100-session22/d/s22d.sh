# s22d.sh -- session 22, lease 4: large's reach down along k (the FP64 entry's k_min 2048) --
# DGEMM at the boundary (k 1536 .. 2048) on auto / large / medium; FP32 large against medium at
# k >= 3072; clhgemm-tune's occupancy phase with the new reach; GPU tests of the shapes
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/d
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/d-build.log 2>&1; el "build rc=$?"
sumg() { sed -n '/^m x n x k/,$p' $1 | awk 'NR>1 && NF>5{printf "%s%s %s %d|", $2, $1, $3, $4}'; }
DSH=3072x3072x1536,3072x3072x1792,3072x3072x2048,4096x4096x1536,4096x4096x1792,2048x8192x1536,2500x2500x2500,3500x3500x3500,2048x4096x4096
SSH=3072x3072x3072,4000x4000x4000,4096x4096x4096,3500x3500x3500,4096x4096x3072,2048x8192x3072,2048x8192x4096,3072x3072x2048
for r in 1 2; do for v in auto large medium; do
  CLHGEMM_SHAPE_CLASS=$v timeout 100 build-wt/bench/clhgemm-bench-gemm --precision d --shapes $DSH --reps 10 --warmup 2 --no-clblast --no-cublas > /tmp/d-gd-$v-$r.log 2>&1
  el "d $v r$r rc=$? $(sumg /tmp/d-gd-$v-$r.log)"
done; done
for r in 1 2; do for v in large medium; do
  CLHGEMM_SHAPE_CLASS=$v timeout 100 build-wt/bench/clhgemm-bench-gemm --precision s --shapes $SSH --reps 10 --warmup 2 --no-clblast --no-cublas > /tmp/d-gs-$v-$r.log 2>&1
  el "s $v r$r rc=$? $(sumg /tmp/d-gs-$v-$r.log)"
done; done
cp tuning/nvidia-h100.json /tmp/d-tune.json
timeout 200 build-wt/tools/clhgemm-tune --occupancy --precision both --budget 150 --out /tmp/d-tune.json --out-dir /tmp/d-tunelog > /tmp/d-tune.log 2>&1
el "tune rc=$?"; grep -E "reach|work-group" /tmp/d-tune.log | tail -30
python3 -c "import json;d=json.load(open('/tmp/d-tune.json'));print({p: d['entries'][0]['precisions'][p]['classes']['large'].get('k_min') for p in 'sd'})" 2>&1 | tail -2
cd build-wt && timeout 150 ctest -R "test_shapes_d|test_gemm_mma|test_mma" -j4 --timeout 120 > /tmp/d-ctest.log 2>&1; el "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*" /tmp/d-ctest.log | tail -5; cd ..
(cd /tmp && tar -czf $OUT/d/s22d.tgz d-*.log d-tune.json d-tunelog)
el done
