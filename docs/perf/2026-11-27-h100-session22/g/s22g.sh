# s22g.sh -- session 22, lease 7: the final tree (structured calls classify without large's
# reach): GPU tests of the GEMM core, level 3 and TRSM; DGEMM / DSYMM 4096 classes
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/g
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/g-build.log 2>&1; el "build rc=$?"
timeout 60 build-wt/bench/clhgemm-bench-gemm --precision d --shapes 4096x4096x4096,3072x3072x3072,2048x2048x2048 --reps 5 --warmup 1 --no-clblast --no-cublas > /tmp/g-g.log 2>&1
el "gemm rc=$? $(sed -n '/^m x n x k/,$p' /tmp/g-g.log | awk 'NR>1 && NF>5{printf "%s%s %s %d|", $2, $1, $3, $4}')"
(cd build-wt && timeout 200 ctest -j4 --timeout 150 -R "test_gemm_mma|test_mma|test_level3|test_trsm_cl|test_gemm_gpu|test_shapes_d|test_internal" > /tmp/g-ctest.log 2>&1); el "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*Fail" /tmp/g-ctest.log | head
(cd /tmp && tar -czf $OUT/g/s22g.tgz g-*.log)
el done
