set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
rm -rf /tmp/old && mkdir /tmp/old && tar --exclude=./build-wt --exclude=./.gpuenv --exclude=./.git -cf - . | tar -C /tmp/old -xf - && (cd /tmp/old && patch -s -R -p1 < .scratch/ramp2.patch) || echo "old tree FAILED"
OUT=$OUT/rec bash bench/gpu_record.sh build > $OUT/build.log 2>&1; el "build rc=$?"
(cd /tmp/old && ln -s /work/main/.gpuenv .gpuenv 2>/dev/null; SRC=/tmp/old BUILD_DIR=/tmp/old/build-old OUT=/tmp/oldrec bash bench/gpu_record.sh build > /tmp/oldbuild.log 2>&1); el "old build rc=$? $(ls /tmp/old/build-old/bench/clhgemm-bench-host)"
run() { # label, binary dir, env...
  lab=$1; bd=$2; shift 2
  env CLHGEMM_ROUTE=device "$@" $bd/bench/clhgemm-bench-host --sizes 256,384,512,768,1024,1536,2048,4096 --precision both --reps 15 --warmup 3 --no-device-only --no-naive --no-xt > /tmp/v-$lab.log 2>&1
  echo "$lab: $(grep -E 'ours [0-9.]+ GFLOP' /tmp/v-$lab.log | sed -E 's/ *n=([0-9]+) (.): ours ([0-9.]+) GFLOP\/s \(median ([0-9.]+) ms.*/\1\2 \4/' | tr '\n' '|')"
}
for round in 1 2 3; do
run old /tmp/old/build-old
run new build-wt
run r1 build-wt CLHGEMM_RAMP=1
for v in old new r1; do cp /tmp/v-$v.log /tmp/v-$v-$round.log; done
el "round $round"
done
SWEEP_OB_SETTLE_MS=300 build-wt/bench/clhgemm-bench-host --sweep --sizes 256,384,512,768,1024,2048 --reps 5 --no-xt > /tmp/v-sweep.log 2>&1; el "sweep rc=$?"
grep -E "^ *(s|d) +(0|0.5) +[0-9]+ " /tmp/v-sweep.log | awk '{print $1,$2,$3,"ours",$4,"OB",$6,"devroute",$8,"t/OB",$13,$14}'
env CLHGEMM_ROUTE=device CLHGEMM_VERBOSE=1 build-wt/bench/clhgemm-bench-host --sizes 256,384,512,768,1024,1536,2048,4096 --precision both --reps 1 --warmup 0 --no-device-only --no-naive --no-xt 2>&1 | grep "plan .gemm" | sed -E 's/clhgemm: plan (.gemm) m=([0-9]+) .*tiles ([0-9x]+), k slices ([0-9]+) .*first in ([0-9]+) part.*/\1 \2 tile \3 bk \4 ramp \5/' | sort -u
tar -C /tmp -czf $OUT/vlogs.tgz $(cd /tmp && ls v-*.log)
el done
