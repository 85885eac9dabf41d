# s17h.sh -- session 17, final tree: device TRSM n = 8192 both precisions with CLBlast's TRSM in
# the same process (two processes); the TRSM tests, the reference BLAS programs through the
# drop-in and the soak test on the GPU.
set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
CMAKE_ARGS="-DCLHGEMM_BLAS_REFERENCE_DIR=/tmp/gpuenv/usr/lib/x86_64-linux-gnu/blas" OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/k-build.log 2>&1; echo "build rc=$?"
el built
for r in 1 2; do
  timeout 90 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 8192 --precision both --reps 5 > /tmp/k-dev-$r.log 2>&1
  el "dev $r rc=$? $(grep -E '^trsm +[sd] ' /tmp/k-dev-$r.log | awk '{printf "%s %s gemm %s %s clblast %s x%s %s|", $2, $4, $7, $8, $5, $6, $NF}')"
done
(cd build-wt && timeout 420 ctest -R "test_trsm|blas_ref_x|blas_threads|test_soak" -j4 --timeout 300 --output-on-failure > /tmp/k-ctest.log 2>&1; echo "ctest rc=$?"; grep -E 'tests passed|\*\*\*' /tmp/k-ctest.log | head -20)
tar -C /tmp -czf $OUT/s17h.tgz $(cd /tmp && ls k-*.log)
el done
