#!/bin/bash
set -u
export JOBS=16
O=$OUT; t0=$(date +%s)
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1 &
SRC=.scratch/ab-base BUILD_DIR=build-ab OUT=/tmp/gr2 bash bench/gpu_record.sh build > $O/build-ab.log 2>&1
wait
tail -1 /tmp/gr/build/summary.txt; tail -1 /tmp/gr2/build/summary.txt; echo "build $(( $(date +%s) - t0 )) s"
L=/tmp/gpuenv/usr/lib/x86_64-linux-gnu
for r in 1 2; do
  order="old new"; [ $r = 2 ] && order="new old"
  for side in $order; do
    b=build-ab; [ $side = new ] && b=build-wt
    timeout 150 $b/bench/clhgemm-bench-host --sweep --sizes 2048,4096,8192 --precision both --reps 5 --warmup 1 --no-xt --no-device-only --csv $O/sw-$side-$r.csv > $O/sw-$side-$r.log 2>&1
    env LD_LIBRARY_PATH=$b/blas:$L/lapack:$L/openblas-pthread:${LD_LIBRARY_PATH:-} timeout 100 python3-debian .scratch/npd.py 8192 "$side$r" d 2>&1 | tail -1
  done
  echo "round $r $(( $(date +%s) - t0 )) s"
done
python3 - $O <<'PY'
import sys,glob,csv,collections
O=sys.argv[1]; rows=collections.defaultdict(dict)
for f in sorted(glob.glob(O+'/sw-*.log')):
    side,r=f.split('sw-')[1][:-4].split('-')
    for l in open(f):
        p=l.split()
        if len(p)>5 and p[0] in ('s','d') and p[2].isdigit():
            rows[(p[0],p[1],int(p[2]))].setdefault(side,[]).append((float(p[3]),p[4]))
for k in sorted(rows):
    v=rows[k]; o=[x for x,_ in v.get('old',[])]; n=[x for x,_ in v.get('new',[])]
    print(f"{k[0]} beta {k[1]:3s} n={k[2]:5d} old {' '.join('%7.0f'%x for x in o)} new {' '.join('%7.0f'%x for x in n)}  {max(n)/max(o) if o and n else 0:5.2f}   spread old {' '.join(s for _,s in v.get('old',[]))} new {' '.join(s for _,s in v.get('new',[]))}")
PY
H=build-wt/bench/clhgemm-bench-host
for n in 2048 8192; do
  CLHGEMM_VERBOSE=1 CLHGEMM_TRACE=$O/trace-d$n.json timeout 120 $H --sizes $n --precision d --reps 1 --warmup 1 --no-xt --no-naive --no-check > $O/host-d$n.log 2>&1
  python3 bench/trace_summary.py $O/trace-d$n.json --gaps 8 > $O/trace-d$n.txt 2>&1
  grep -E '^  n=[0-9]+ d: ours' $O/host-d$n.log; grep -E 'kernel queue busy|idle' $O/trace-d$n.txt
done
cd $O && tar czf logs.tgz *.log *.txt *.csv *.json 2>/dev/null; rm -f *.json host-*.log sw-*.csv
echo "total $(( $(date +%s) - t0 )) s"
