# bench/gpu_build.sh -- sourced (not run) by bench/gpu_mma.sh, gpu_issue7.sh, gpu_cpushare.sh:
# the GPU machine's environment from .gpuenv (sourced before `set -u`: env.sh reads unset
# variables), the kernel cache in /tmp, and a Release build in build-gpu (log /tmp/build.log;
# on failure its tail is printed and the calling script exits).
#   GPU_TESTS=ON   also build the tests (default OFF)
. .gpuenv/env.sh >/tmp/env.log 2>&1
set -u
export CLHGEMM_CACHE_DIR=${CLHGEMM_CACHE_DIR:-/tmp/clhgemm-cache}
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCLHGEMM_BUILD_TESTS="${GPU_TESTS:-OFF}" \
  -DCLHGEMM_BUILD_EXAMPLES=OFF >/tmp/build.log 2>&1 &&
  cmake --build build-gpu -j16 >>/tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
