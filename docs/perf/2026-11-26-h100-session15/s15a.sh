set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
[ -x build-wt/bench/clhgemm-bench-host ] || { OUT=$OUT/rec bash bench/gpu_record.sh build > $OUT/build.log 2>&1; el "build rc=$?"; }
B=build-wt/bench/clhgemm-bench-host
run() { # label, env...
  lab=$1; shift
  env CLHGEMM_ROUTE=device "$@" $B --sizes 512,1024,2048 --precision both --reps 15 --warmup 3 --no-device-only --no-naive --no-xt > $OUT/v-$lab.log 2>&1
  echo "$lab: $(grep -E 'ours [0-9.]+ GFLOP' $OUT/v-$lab.log | sed -E 's/ *n=([0-9]+) (.): ours ([0-9.]+) GFLOP\/s \(median ([0-9.]+) ms.*/\1\2 \3GF \4ms/' | tr '\n' '|')"
}
run base
run ramp1 CLHGEMM_RAMP=1
run memcpy CLHGEMM_STREAM_COPY=0
run kg1 CLHGEMM_KGROUP=1
run spin1000 CLHGEMM_POOL_SPIN_US=1000
run thr4 CLHGEMM_CPU_THREADS=4
run nopf CLHGEMM_PREFAULT=off
run ramp1p1 CLHGEMM_RAMP=1 CLHGEMM_FINAL_PIECES=1
run ramp1mem CLHGEMM_RAMP=1 CLHGEMM_STREAM_COPY=0
run base2
el variants
for s in d s; do for n in 512 1024; do
  rm -f /tmp/tr.json
  env CLHGEMM_ROUTE=device CLHGEMM_TRACE=/tmp/tr.json $B --sizes $n --precision $s --reps 5 --warmup 3 --no-device-only --no-naive --no-xt > /dev/null 2>&1
  cp /tmp/tr.json $OUT/tr-$s$n.json 2>/dev/null
  echo "== trace $s $n"; python3 bench/trace_summary.py /tmp/tr.json --gaps 6 2>&1 | head -40
done; done
env CLHGEMM_ROUTE=device CLHGEMM_VERBOSE=1 $B --sizes 512,1024 --precision d --reps 3 --warmup 1 --no-device-only --no-naive --no-xt 2>&1 | grep -E "device 0:|done in" | tail -4
el done
