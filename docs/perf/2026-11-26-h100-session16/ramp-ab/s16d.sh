# s16d.sh -- session 16: the ramp constant (6b94157; tree of ec4c49b) against 20d6f6d (before the
# per-plan ramp): device-routed host calls 1024..4096 and host calls 8192/16384, two rounds
# alternated; the plans' ramp counts; then the small sizes of the sweep (issue 19's small calls).
set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
AB_PARTS="midhost host" AB_MID_SIZES=1024,1536,2048,3072,4096 AB_HOST_SIZES=8192,16384 AB_ROUNDS=2 \
  OUT=$OUT/ab timeout 420 bash bench/gpu_record.sh ab .scratch/ab-20d6f6d > $OUT/ab.log 2>&1
el "ab rc=$?"
env CLHGEMM_ROUTE=device CLHGEMM_VERBOSE=1 build-wt/bench/clhgemm-bench-host --sizes 1024,1536,2048,3072,4096,8192 --precision both --reps 1 --warmup 0 --no-device-only --no-naive --no-xt --no-check 2>&1 | grep "plan .gemm" | sed -E 's/clhgemm: plan (.gemm) m=([0-9]+) .*tiles ([0-9x]+), k slices ([0-9]+) .*first in ([0-9]+) part.*/\1 \2 tile \3 bk \4 ramp \5/' | sort -u > $OUT/plans.txt
el plans
SWEEP_SIZES=8,16,32,64,128,256 OUT=$OUT/sw timeout 150 bash bench/gpu_record.sh sweep > $OUT/sweep.log 2>&1
el "sweep rc=$?"
cat $OUT/ab/ab/summary.txt; cat $OUT/plans.txt | tr '\n' ';'; echo
cat $OUT/sw/sweep/summary.txt 2>/dev/null | head -60
tar -C $OUT -czf $OUT/logs.tgz ab sw ab.log sweep.log && rm -rf $OUT/ab $OUT/sw $OUT/ab.log $OUT/sweep.log
