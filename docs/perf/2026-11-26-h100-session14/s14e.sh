set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
[ -x build-wt/bench/clhgemm-bench-host ] || { OUT=$OUT/rec bash bench/gpu_record.sh build > $OUT/build.log 2>&1; el "build rc=$?"; }
B=build-wt
for r in 1 2; do
  CLHGEMM_VERBOSE=1 $B/bench/clhgemm-bench-host --sweep --sizes 1024,2048,4096 --precision s --reps 5 --warmup 1 --no-xt --csv $OUT/sv-$r.csv > $OUT/sv-$r.log 2>&1
  python3 - $OUT/sv-$r.csv <<'PY'
import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r['prec'],r['beta'],r['n'],'ours',round(float(r['ours_gflops'])),'dr',round(float(r['device_route_gflops'])),'spread',r['spread_pct'])
PY
done
el sv
grep -E "plan|route" $OUT/sv-1.log | grep -E "n=4096|4096" | sort | uniq -c | sort -rn | head -12
$B/bench/clhgemm-bench-gemm --shapes sweep --precision d --reps 3 --warmup 1 --csv $OUT/shapes-d.csv > $OUT/shapes-d.log 2>&1
grep -E "^[0-9]+x|geomean" $OUT/shapes-d.log
el shapes
$B/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 > $OUT/trsm-dev.log 2>&1
grep -vE "^clhgemm:" $OUT/trsm-dev.log | tail -12
el done
