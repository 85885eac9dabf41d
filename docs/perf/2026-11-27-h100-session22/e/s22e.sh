# s22e.sh -- session 22, lease 5: large's reach (FP64 k_min 1536, FP32 3072) against abae5ef
# (head): DGEMM/SGEMM shapes at the reach, DTRSM/STRSM 8192, host DGEMM 4096/8192, alternated,
# two rounds; the sweep record with CLBlast and cuBLAS; the tuner's reach on two outputs; GPU tests.
# Before: rm -rf .scratch/ab-head && git archive --prefix=ab-head/ abae5ef | tar -x -C .scratch
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/e
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/e-build-wt.log 2>&1; el "build wt rc=$?"
SRC=.scratch/ab-head BUILD_DIR=build-head OUT=/tmp/gr2 bash bench/gpu_record.sh build > /tmp/e-build-head.log 2>&1; el "build head rc=$?"
sumg() { sed -n '/^m x n x k/,$p' $1 | awk 'NR>1 && NF>5{printf "%s%s %s %d|", $2, $1, $3, $4}'; }
SH=4096x4096x4096,2048x8192x2048,3072x3072x3072,3500x3500x3500,4000x4000x4000,2048x4096x4096,3072x3072x1536,4096x4096x1536,2000x3000x1500,1024x8192x1024,8192x8192x8192
for r in 1 2; do for t in head wt; do
  timeout 100 build-$t/bench/clhgemm-bench-gemm --precision both --shapes $SH --reps 10 --warmup 2 --no-clblast --no-cublas > /tmp/e-g-$t-$r.log 2>&1
  el "gemm $t r$r rc=$? $(sumg /tmp/e-g-$t-$r.log)"
done; done
for r in 1 2; do for t in head wt; do
  timeout 60 build-$t/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --warmup 1 --no-clblast --no-cublas > /tmp/e-t-$t-$r.log 2>&1
  el "trsm $t r$r rc=$? $(sed -n '/^routine/,$p' /tmp/e-t-$t-$r.log | awk 'NR>1{printf "%s%s %d %d %s|", $1, $2, $4, $7, $8}')"
done; done
for t in head wt; do
  timeout 100 build-$t/bench/clhgemm-bench-host --sizes 4096,8192 --precision d --reps 3 --warmup 1 --no-naive --no-xt --no-device-only > /tmp/e-h-$t.log 2>&1
  el "host $t rc=$? $(sed -n "/^ *n prec/,/^eff/p" /tmp/e-h-$t.log | awk "NR>1 && NF>5{printf \"%s%s %s|\", \$1, \$2, \$3}")"
done
timeout 300 build-wt/bench/clhgemm-bench-gemm --shapes sweep --precision both --reps 3 --warmup 1 --csv /tmp/e-sweep.csv > /tmp/e-sweep.log 2>&1; el "sweep rc=$? $(grep 'geomean ours/' /tmp/e-sweep.log | tr -s ' ' | tr '\n' '|')"
cp tuning/nvidia-h100.json /tmp/e-tune.json
timeout 120 build-wt/tools/clhgemm-tune --occupancy --precision both --budget 60 --out /tmp/e-tune.json --out-dir /tmp/e-tunelog > /tmp/e-tune.log 2>&1
el "tune rc=$?"; grep -E "reach" /tmp/e-tune.log | tail -12
(cd build-wt && timeout 120 ctest -j4 --timeout 100 -R "test_gemm_mma|test_trsm_cl|test_shapes_d|test_internal" > /tmp/e-ctest.log 2>&1); el "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*" /tmp/e-ctest.log | head
(cd /tmp && tar -czf $OUT/e/s22e.tgz e-*.log e-sweep.csv e-tune.json e-tunelog)
echo "=== sweep"; sed -n '/^m x n x k/,$p' /tmp/e-sweep.log
el done
