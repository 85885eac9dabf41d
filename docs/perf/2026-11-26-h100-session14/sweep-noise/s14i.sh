set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
[ -x build-wt/bench/clhgemm-bench-host ] || { OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$?"; }
B=build-wt
sw() { local tag=$1; shift; env "$@" $B/bench/clhgemm-bench-host --sweep --sizes 128,256,512,1024,2048,4096 --precision s --reps 5 --warmup 1 --no-xt --csv $OUT/$tag.csv > $OUT/$tag.log 2>&1
  python3 - $OUT/$tag.csv $tag <<'PY'
import csv,sys
print(sys.argv[2], ' '.join('%s/%s:%d(dr %d, %.0f%%)' % (r['beta'], r['n'], float(r['ours_gflops']), float(r['device_route_gflops']), float(r['spread_pct'])) for r in csv.DictReader(open(sys.argv[1])) if int(r['n']) >= 1024))
PY
}
sw default X=1
sw timeout4 OPENBLAS_THREAD_TIMEOUT=4
sw default2 X=1
