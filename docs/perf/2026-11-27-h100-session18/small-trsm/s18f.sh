# s18f.sh -- session 18: device TRSM at n = 1024 / 2048 / 4096 with the diagonal block of 128,
# 256, 512 (CLHGEMM_TRSM_NB), both precisions, two rounds; a clprof timeline at n = 1024.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/f-build.log 2>&1; echo "build rc=$?"
cmake --build build-wt --target clprof -j16 > /tmp/clprof-build.log 2>&1; echo "clprof rc=$?"
el built
sm() { grep -E '^trsm +[sd] ' $1 | awk '{printf "%s%s %s %s|", $2, $3, $4, $8}'; }
for r in 1 2; do for nb in 128 256 512; do
  CLHGEMM_TRSM_NB=$nb timeout 100 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 1024,2048,4096 --precision both --reps 10 --warmup 2 --no-clblast --no-cublas > /tmp/f-nb$nb-$r.log 2>&1
  el "nb=$nb r$r rc=$? $(sm /tmp/f-nb$nb-$r.log)"
done; done
for nb in 256 512; do
  CLHGEMM_TRSM_NB=$nb LD_PRELOAD=build-wt/bench/libclprof.so CLPROF_OUT=/tmp/f-prof-$nb.txt CLPROF_TRACE=/tmp/f-trace-$nb.txt timeout 60 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 1024 --precision d --reps 10 --no-clblast --no-cublas > /tmp/f-prof-$nb.log 2>&1
  el "prof $nb rc=$? $(sm /tmp/f-prof-$nb.log)"
  python3 - /tmp/f-trace-$nb.txt <<'PY'
import sys
rows=[]
for l in open(sys.argv[1]):
    f=l.split(); rows.append((f[2],int(f[3]),float(f[4]),float(f[5]),float(f[6])))
idx=[i for i,r in enumerate(rows) if r[0]=='trsm_invert_tiles']
for a,b in list(zip(idx, idx[1:]+[len(rows)]))[-3:]:
    seg=rows[a:b]
    end_i=next((k for k,r in enumerate(seg) if k>0 and r[2]-max(x[4] for x in seg[:k])>50 and r[0]=='clhgemm_pack' and r[1]>1000000), len(seg))
    tr=seg[:end_i]
    q0=tr[0][2]; s0=tr[0][3]; e=max(r[4] for r in tr)
    busy=sum(r[4]-r[3] for r in tr)
    print(f"  call: n={len(tr)} kernel span {e-s0:8.1f} busy {busy:8.1f} first queued->start {s0-q0:6.1f} enqueue span {tr[-1][2]-q0:8.1f}")
    for r in tr: print(f"    {r[0]:24s} {r[1]:9d} dur {r[4]-r[3]:7.1f} start {r[3]-s0:8.1f} queued {r[2]-q0:8.1f}")
PY
done
tar -C /tmp -czf $OUT/s18f.tgz $(cd /tmp && ls f-*.log f-*.txt)
el done
