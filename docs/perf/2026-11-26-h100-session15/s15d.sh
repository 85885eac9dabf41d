# s15d.sh -- written for the lease that did not start (device time ran out): the committed ramp
# constant (6b94157) against the tree before the ramp (20d6f6d) and against one part forced.
# Before it runs: git diff 20d6f6d 6b94157 -- src > .scratch/ramp3.patch (the old tree is this
# tree with that patch reversed); on the device: . .gpuenv/env.sh && bash .scratch/s15d.sh
set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
rm -rf /tmp/old && mkdir /tmp/old && tar --exclude=./build-wt --exclude=./.gpuenv --exclude=./.git -cf - . | tar -C /tmp/old -xf - && (cd /tmp/old && patch -s -R -p1 < .scratch/ramp3.patch) || echo "old tree FAILED"
OUT=$OUT/rec bash bench/gpu_record.sh build > $OUT/build.log 2>&1; el "build rc=$?"
(cd /tmp/old && SRC=/tmp/old BUILD_DIR=/tmp/old/build-old OUT=/tmp/oldrec bash bench/gpu_record.sh build > /tmp/oldbuild.log 2>&1); el "old build rc=$?"
run() { # label, binary dir, sizes, extra args, env...
  lab=$1; bd=$2; sz=$3; ex=$4; shift 4
  env CLHGEMM_ROUTE=device "$@" $bd/bench/clhgemm-bench-host --sizes $sz --precision both $ex --no-device-only --no-naive --no-xt > /tmp/v-$lab.log 2>&1
  echo "$lab: $(grep -E 'ours [0-9.]+ GFLOP' /tmp/v-$lab.log | sed -E 's/ *n=([0-9]+) (.): ours ([0-9.]+) GFLOP\/s \(median ([0-9.]+) ms.*/\1\2 \3/' | tr '\n' '|')"
}
for round in 1 2; do
  run old-$round /tmp/old/build-old 1024,1536,2048,3072,4096 "--reps 10 --warmup 3"
  run new-$round build-wt 1024,1536,2048,3072,4096 "--reps 10 --warmup 3"
  run r1-$round build-wt 1024,1536,2048,3072,4096 "--reps 10 --warmup 3" CLHGEMM_RAMP=1
  el "round $round"
done
run bigold /tmp/old/build-old 8192,16384 "--reps 3 --warmup 1 --no-check"
run bignew build-wt 8192,16384 "--reps 3 --warmup 1 --no-check"
el big
env CLHGEMM_ROUTE=device CLHGEMM_VERBOSE=1 build-wt/bench/clhgemm-bench-host --sizes 256,512,768,1024,1536,2048,3072,4096,8192 --precision both --reps 1 --warmup 0 --no-device-only --no-naive --no-xt --no-check 2>&1 | grep "plan .gemm" | sed -E 's/clhgemm: plan (.gemm) m=([0-9]+) .*tiles ([0-9x]+), k slices ([0-9]+) .*first in ([0-9]+) part.*/\1 \2 tile \3 bk \4 ramp \5/' | sort -u | tr '\n' ';'
echo
grep -h "check\|FAIL" /tmp/v-new-1.log | tail -3
tar -C /tmp -czf $OUT/vlogs.tgz $(cd /tmp && ls v-*.log)
el done
