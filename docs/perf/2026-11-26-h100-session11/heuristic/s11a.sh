#!/bin/bash
set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
O=$OUT; t0=$(date +%s)
B=build-wt/bench/clhgemm-bench-gemm
OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
cmake --build build-wt -j16 --target clhgemm-bench-gemm clhgemm-bench-level3 >> $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt; echo "build $(( $(date +%s) - t0 )) s"
(cd build-wt && timeout 240 ctest -R "test_shapes_[sd]|test_gemm_mma|test_mma|test_trsm_cl" -LE slow -j4 > $O/nv.log 2>&1; timeout 150 ctest -L nvidia -j4 >> $O/nv.log 2>&1)
grep -E "tests passed|Failed|\*\*\*" $O/nv.log | head
echo "tests $(( $(date +%s) - t0 )) s"
# occupancy probe: T = 132 j tiles of the class's tiles, tail split off
occ() { # prec class mwg nwg
  local sh=""; for j in 1 2 3 4; do sh="$sh,$(( $3 * 12 * j ))x$(( $4 * 11 ))x4096"; done
  CLHGEMM_TAIL_SPLIT=off CLHGEMM_SHAPE_CLASS=$2 timeout 60 $B --precision $1 --sizes none --shapes ${sh#,} --reps 5 --warmup 1 --no-clblast --no-cublas --no-check > $O/occ-$1-$2.log 2>&1
  printf "occ %s %-7s %s\n" $1 $2 "$(grep -E '^[0-9]+x' $O/occ-$1-$2.log | awk '{printf "%6.0f ", $4}')"
}
occ d large 128 192; occ d medium 64 128; occ s large 128 256; occ s medium 128 128
D=1000x1000x1000,1024x1024x1024,2000x2000x2000,2048x2048x2048,4096x4096x4096,5000x5000x5000,2000x3000x1500,10000x1000x1000,4096x4096x256,8192x8192x256,8192x8192x128,4096x4096x128,16384x256x16384,8192x8192x8192
CLHGEMM_VERBOSE=2 timeout 60 $B --precision both --sizes none --shapes $D --reps 1 --warmup 0 --no-clblast --no-cublas --no-check 2>&1 | grep -E "tail split|gemm [sd] m=" | sort | uniq > $O/decisions.log
for r in 1 2; do for t in off auto; do
  CLHGEMM_TAIL_SPLIT=$t timeout 120 $B --precision both --sizes none --shapes $D --reps 10 --warmup 2 --no-clblast --no-cublas --no-check > $O/ab-$t-$r.log 2>&1
done; done
CLHGEMM_SHAPE_CLASS=large timeout 120 $B --precision both --sizes none --shapes $D --reps 10 --warmup 2 --no-clblast --no-cublas --no-check > $O/ab-large-1.log 2>&1
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
    print(f"{pr} {sh:18s} off {' '.join('%6.0f'%x for x in v.get('off',[]))}  auto {' '.join('%6.0f'%x for x in v.get('auto',[]))}  {au/off if off else 0:5.2f}  large+tail {' '.join('%6.0f'%x for x in v.get('large',[]))}")
PY
echo "ab $(( $(date +%s) - t0 )) s"
timeout 250 $B --shapes sweep --precision both --reps 3 --warmup 1 --csv $O/sweep-1.csv > $O/sweep-1.log 2>&1
grep -E 'geomean ours/cuBLAS' $O/sweep-1.log
cd $O && tar czf logs.tgz *.log *.csv 2>/dev/null; rm -f sweep-*.log
echo "total $(( $(date +%s) - t0 )) s"
