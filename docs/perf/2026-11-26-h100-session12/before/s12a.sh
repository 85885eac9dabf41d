#!/bin/bash
set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
O=$OUT; t0=$(date +%s)
OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt; echo "build $(( $(date +%s) - t0 )) s"
H=build-wt/bench/clhgemm-bench-host
(cd build-wt && timeout 120 ctest -R "test_params" -j4 --output-on-failure > $O/params.log 2>&1)
grep -E "tests passed|Failed|\*\*\*" $O/params.log | head -5
# traces of mid-size host calls (beta 0.5, pageable), second call of each
for n in 2048 4096 8192; do
  CLHGEMM_VERBOSE=1 CLHGEMM_TRACE=$O/trace-d$n.json timeout 120 $H --sizes $n --precision d --reps 1 --warmup 1 --no-xt --no-naive --no-check > $O/host-d$n.log 2>&1
  python3 bench/trace_summary.py $O/trace-d$n.json --gaps 8 > $O/trace-d$n.txt 2>&1
  echo "== d $n"; grep -E 'plan dgemm' $O/host-d$n.log | tail -2; grep -E '^  n=[0-9]+ d:' $O/host-d$n.log; grep -E '^(dev|pack|call|total)' $O/trace-d$n.txt | head -12
done
echo "traces $(( $(date +%s) - t0 )) s"
timeout 300 $H --sweep --sizes 1024,2048,4096,8192,16384 --precision both --reps 5 --warmup 1 --no-xt --csv $O/sweep.csv > $O/sweep.log 2>&1
grep -vE '^\s*$' $O/sweep.log | tail -30
echo "sweep $(( $(date +%s) - t0 )) s"
cd $O && tar czf logs.tgz *.log *.txt *.csv *.json 2>/dev/null; rm -f *.json host-*.log
echo "total $(( $(date +%s) - t0 )) s"
