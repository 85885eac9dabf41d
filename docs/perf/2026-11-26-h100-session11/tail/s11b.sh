#!/bin/bash
set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
O=$OUT; t0=$(date +%s)
B=build-wt/bench/clhgemm-bench-gemm
OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
cmake --build build-wt -j16 --target clhgemm-bench-gemm clhgemm-bench-level3 clhgemm-tune >> $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt; echo "build $(( $(date +%s) - t0 )) s"
(cd build-wt && timeout 60 ctest -R "test_shapes_d_tail$" --output-on-failure > $O/dtail.log 2>&1)
grep -E "FAIL|tail split|failures" $O/dtail.log | head -8
# occupancy of the shipped H100 entry's classes
mkdir -p /tmp/h && cp tuning/nvidia-h100.json /tmp/h/
timeout 200 build-wt/tools/clhgemm-tune --occupancy --out /tmp/h/nvidia-h100.json --budget 120 > $O/occ.log 2>&1
grep -E "work-group" $O/occ.log | sed 's/(MWG.*//' ; cp /tmp/h/nvidia-h100.json $O/
export CLHGEMM_SHIPPED_TUNING_DIR=/tmp/h
echo "occ $(( $(date +%s) - t0 )) s"
(cd build-wt && timeout 200 ctest -R "test_shapes_[sd]|test_gemm_mma|test_mma|test_trsm_cl|tune_run_occ" -LE slow -j4 > $O/nv.log 2>&1; timeout 150 ctest -L nvidia -j4 >> $O/nv.log 2>&1)
grep -E "tests passed|Failed|\*\*\*" $O/nv.log | head
echo "tests $(( $(date +%s) - t0 )) s"
D=1000x1000x1000,1024x1024x1024,2000x2000x2000,2048x2048x2048,4096x4096x4096,5000x5000x5000,2000x3000x1500,10000x1000x1000,4096x4096x256,8192x8192x256,8192x8192x128,4096x4096x128,16384x256x16384,8192x8192x8192,3000x3000x3000,6000x6000x6000
CLHGEMM_VERBOSE=2 timeout 60 $B --precision both --sizes none --shapes $D --reps 1 --warmup 0 --no-clblast --no-cublas --no-check 2>&1 | grep -E "tail split|gemm [sd] m=" | uniq > $O/decisions.log
grep -B1 "tail split" $O/decisions.log | grep -v "^--" | paste - - | awk '{print $3,$4,$5,$6,$17,$19,$21,$24}'
for r in 1 2; do for t in off auto; do
  CLHGEMM_TAIL_SPLIT=$t timeout 120 $B --precision both --sizes none --shapes $D --reps 10 --warmup 2 --no-clblast --no-cublas --no-check > $O/ab-$t-$r.log 2>&1
done; done
python3 - $O <<'PY'
import sys,re,glob
O=sys.argv[1]
rows={}
for f in sorted(glob.glob(O+'/ab-*.log')):
    t=f.split('ab-')[1].split('-')[0]
    for l in open(f):
        p=l.split()
        if len(p)>3 and re.match(r'^\d+x\d+x\d+$',p[0]) and p[1] in 'sd':
            rows.setdefault((p[1],p[0]),{}).setdefault(t,[]).append(float(p[3]))
for (pr,sh),v in sorted(rows.items()):
    off=max(v.get('off',[0])); au=max(v.get('auto',[0]))
    print(f"{pr} {sh:18s} off {' '.join('%6.0f'%x for x in v.get('off',[]))}  auto {' '.join('%6.0f'%x for x in v.get('auto',[]))}  {au/off if off else 0:5.2f}")
PY
echo "ab $(( $(date +%s) - t0 )) s"
for t in off auto; do
CLHGEMM_TAIL_SPLIT=$t timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 > $O/trsm-$t.log 2>&1
echo "trsm $t: $(grep -A4 '== summary' $O/trsm-$t.log | grep -E '^trsm' | awk '{printf "%s ", $0}')"
done
timeout 200 $B --shapes sweep --precision both --reps 3 --warmup 1 --csv $O/sweep-1.csv > $O/sweep-1.log 2>&1
grep -E 'geomean ours/' $O/sweep-1.log
cd $O && tar czf logs.tgz *.log *.csv 2>/dev/null
echo "total $(( $(date +%s) - t0 )) s"
