#!/bin/bash
set -u
export JOBS=16
O=$OUT; t0=$(date +%s)
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1 &
SRC=.scratch/ab-base BUILD_DIR=build-ab OUT=/tmp/gr2 bash bench/gpu_record.sh build > $O/build-ab.log 2>&1
wait
tail -1 /tmp/gr/build/summary.txt; tail -1 /tmp/gr2/build/summary.txt
S=2048,3072,4096,6144,8192,16384
for side in old new; do
  b=build-ab; [ $side = new ] && b=build-wt
  CLHGEMM_VERBOSE=1 timeout 100 $b/bench/clhgemm-bench-host --sizes $S --precision both --reps 1 --warmup 0 --no-xt --no-naive --no-device-only --no-check 2>&1 | grep -E '^clhgemm: plan' | sed "s/^/$side /" | cut -c1-200
done
for r in 1 2; do
  order="old new"; [ $r = 2 ] && order="new old"
  for side in $order; do
    b=build-ab; [ $side = new ] && b=build-wt
    timeout 200 $b/bench/clhgemm-bench-host --sweep --sizes $S --precision both --reps 5 --warmup 1 --no-xt --no-device-only --no-check > $O/sw-$side-$r.log 2>&1
  done
  echo "round $r $(( $(date +%s) - t0 )) s"
done
python3 - $O <<'PY'
import sys,glob,collections
O=sys.argv[1]; rows=collections.defaultdict(dict)
for f in sorted(glob.glob(O+'/sw-*.log')):
    side,r=f.split('sw-')[1][:-4].split('-')
    for l in open(f):
        p=l.split()
        if len(p)>5 and p[0] in ('s','d') and p[2].isdigit():
            rows[(p[0],p[1],int(p[2]))].setdefault(side,[]).append((float(p[3]),p[4]))
for k in sorted(rows):
    v=rows[k]; o=[x for x,_ in v.get('old',[])]; n=[x for x,_ in v.get('new',[])]
    print(f"{k[0]} beta {k[1]:3s} n={k[2]:5d} old {' '.join('%7.0f'%x for x in o)} new {' '.join('%7.0f'%x for x in n)}  {max(n)/max(o) if o and n else 0:5.2f}  spread old {' '.join(s for _,s in v.get('old',[]))} new {' '.join(s for _,s in v.get('new',[]))}")
PY
cd $O && tar czf logs.tgz *.log 2>/dev/null; rm -f sw-*.log
echo "total $(( $(date +%s) - t0 )) s"
