# s21g.sh -- session 21, lease 6: the record on e6cfce9 (committed tree = working tree): the shape
# sweep in both precisions with CLBlast and cuBLAS, TRSM n = 8192 on device buffers with CLBlast
# and cuBLAS, TRSM n = 16384 from host memory with cublasXt, and the reference BLAS programs and
# host TRSM tests on the GPU.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/g
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/g-build.log 2>&1; el "build rc=$?"
timeout 300 build-wt/bench/clhgemm-bench-gemm --shapes sweep --precision both --reps 3 --warmup 1 --csv /tmp/g-sweep.csv > /tmp/g-sweep.log 2>&1; el "sweep rc=$? $(grep 'geomean ours/cuBLAS' /tmp/g-sweep.log | tr -s ' ' | tr '\n' '|')"
timeout 150 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 --warmup 1 > /tmp/g-trsm-dev.log 2>&1; el "trsm dev rc=$?"
sed -n '/^routine/,$p' /tmp/g-trsm-dev.log
timeout 200 build-wt/bench/clhgemm-bench-level3 --host --routines trsm --sizes 16384 --precision both --reps 2 --warmup 1 --no-cublas > /tmp/g-trsm-host.log 2>&1; el "trsm host rc=$?"
sed -n '/^routine/,$p' /tmp/g-trsm-host.log
(cd build-wt && timeout 200 ctest -j4 --timeout 180 -R "blas_ref_x|test_trsm_host|test_host_level3" > /tmp/g-ctest.log 2>&1); el "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*" /tmp/g-ctest.log | head
tar -C /tmp -czf $OUT/g/s21g.tgz $(cd /tmp && ls g-*.log g-*.csv)
echo "=== sweep"; sed -n '/^m x n x k/,$p' /tmp/g-sweep.log
el done
