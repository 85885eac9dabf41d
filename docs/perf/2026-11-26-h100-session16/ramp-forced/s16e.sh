# s16e.sh -- session 16: why HEAD's device-routed host calls ran slower than 20d6f6d's (s16d):
# the ramp count or the k slice (bk) the new fill term picks? Same binary with CLHGEMM_RAMP and
# CLHGEMM_TILE forced, against the old binary, alternated, two rounds.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
(SRC=. BUILD_DIR=build-wt OUT=/tmp/newrec bash bench/gpu_record.sh build > /tmp/newbuild.log 2>&1; echo "new build rc=$?") &
(SRC=.scratch/ab-20d6f6d BUILD_DIR=build-old OUT=/tmp/oldrec bash bench/gpu_record.sh build > /tmp/oldbuild.log 2>&1; echo "old build rc=$?") &
wait; el built
run() { # label bindir sizes envs...
  lab=$1; bd=$2; sz=$3; shift 3
  env CLHGEMM_ROUTE=device CLHGEMM_VERBOSE=1 "$@" timeout 100 $bd/bench/clhgemm-bench-host --sizes $sz --precision both --reps 15 --warmup 3 --no-device-only --no-naive --no-xt > /tmp/e-$lab.log 2>&1
  el "$lab: $(grep -E ': ours' /tmp/e-$lab.log | sed -E 's/ *n=([0-9]+) (.): ours ([0-9.]+) GFLOP.s \(median ([0-9.]+) ms.*tile ([0-9x]+),.*/\1\2 \4ms \5/' | tr '\n' '|') ramps $(grep -oE 'first in [0-9]+' /tmp/e-$lab.log | sort | uniq -c | tr '\n' ' ')"
}
for r in 1 2; do
  run old-$r build-old 2048
  run auto-$r build-wt 2048
  run r4-$r build-wt 2048 CLHGEMM_RAMP=4
  run t1024-$r build-wt 2048 CLHGEMM_TILE=2048,2048,1024
  run t1024r4-$r build-wt 2048 CLHGEMM_TILE=2048,2048,1024 CLHGEMM_RAMP=4
  run t512r4-$r build-wt 2048 CLHGEMM_TILE=2048,2048,512 CLHGEMM_RAMP=4
  run old8-$r build-old 8192
  run auto8-$r build-wt 8192
  run r4-8-$r build-wt 8192 CLHGEMM_RAMP=4
done
tar -C /tmp -czf $OUT/elogs.tgz $(cd /tmp && ls e-*.log)
el done
