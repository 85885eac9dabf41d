# s17j.sh -- session 17, final tree: does the blocked inversion move TRSM's best block order?
# clhgemm-tune --trsm (m = n = 4096, nb 512, 256, 1024, 384, 768, 128) into a copy of the shipped
# H100 entry; then device TRSM n = 8192 with CLHGEMM_TRSM_NB = 512 / 768 / 1024, two rounds.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/n-build.log 2>&1; echo "build rc=$?"
el built
TUNE=$(ls build-wt/tools/clhgemm-tune build-wt/clhgemm-tune 2>/dev/null | head -1)
cp tuning/nvidia-h100.json /tmp/n-h100.json
timeout 200 $TUNE --trsm --budget 2m --out /tmp/n-h100.json > /tmp/n-tune.log 2>&1
el "tune rc=$? $(grep -E 'trsm' /tmp/n-tune.log | tail -20 | tr '\n' '|' | cut -c1-1500)"
for r in 1 2; do for nb in 512 768 1024; do
  timeout 90 env CLHGEMM_TRSM_NB=$nb build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --no-clblast > /tmp/n-nb$nb-$r.log 2>&1
  el "nb $nb $r rc=$? $(grep -E '^trsm +[sd] ' /tmp/n-nb$nb-$r.log | awk '{printf "%s %s gemm %s %s %s|", $2, $4, $7, $8, $NF}')"
done; done
cp /tmp/n-h100.json $OUT/
tar -C /tmp -czf $OUT/s17j.tgz $(cd /tmp && ls n-tune.log n-nb*.log)
el done
