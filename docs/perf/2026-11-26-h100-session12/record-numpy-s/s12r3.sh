#!/bin/bash
# record run 3: issue 20's numpy (sizes 256..16384 against OpenBLAS, small loop, cholesky, solve) and the
# FP32 device sweep (issue 22: ed20b35's k >= 256 condition, not yet run on a GPU)
set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
O=$OUT; t0=$(date +%s)
OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt
OUT=/tmp/gr NUMPY_BUDGET=2 NUMPY_ROUNDS=2 bash bench/gpu_record.sh blasnumpy > $O/numpy-stage.log 2>&1
(cd /tmp/gr/blasnumpy && tar czf $O/blasnumpy.tgz .)
cat /tmp/gr/blasnumpy/summary.txt | head -60
echo "numpy $(( $(date +%s) - t0 )) s"
timeout 200 build-wt/bench/clhgemm-bench-gemm --shapes sweep --precision s --reps 3 --warmup 1 --csv $O/sweep-s.csv > $O/sweep-s.log 2>&1
grep -E 'geomean|4096x4096x64 |256x256x256 ' $O/sweep-s.log | head -12
echo "total $(( $(date +%s) - t0 )) s"
