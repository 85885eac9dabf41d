# s21i.sh -- session 21, lease 8: the reference BLAS programs through the drop-in on e6cfce9 (the
# tensor-core kernel's C epilogue changed; offload forced, sizes raised), with the reference dir
# of .gpuenv's libblas-test.
set -u
export JOBS=16
T0=$(date +%s)
mkdir -p $OUT/i
CMAKE_ARGS="-DCLHGEMM_BLAS_REFERENCE_DIR=/tmp/gpuenv/usr/lib/x86_64-linux-gnu/blas" SRC=. BUILD_DIR=build-ref OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/i-build.log 2>&1; echo "build rc=$? $(( $(date +%s)-T0 ))s"
(cd build-ref && timeout 450 ctest -R "blas_ref_x|blas_threads" -j6 --timeout 300 --output-on-failure > /tmp/i-ctest.log 2>&1); echo "ctest rc=$? $(( $(date +%s)-T0 ))s"
grep -E "tests passed|\*\*\*|Test +#" /tmp/i-ctest.log | tail -40
tar -C /tmp -czf $OUT/i/s21i.tgz i-build.log i-ctest.log
