#!/bin/sh
# smoke.sh -- CTest bench_scalapack_smoke: clhgemm-bench-scalapack on 4 ranks at tiny sizes
# (n = 96, NB 16 and 32, grids 1 x 1, 2 x 2, 1 x 4, residuals checked), each rank on the
# drop-ins the environment names (LD_LIBRARY_PATH, CLHGEMM_*, passed on by mpirun -x): the
# program must finish, every residual pass, the best-NB table come out and the BLAS drop-in's
# stats lines count offloaded calls. Skips (77) without Open MPI's mpirun.
#   sh smoke.sh <clhgemm-bench-scalapack>
prog=$1
mpirun=$(command -v mpirun.openmpi) || { echo "SKIP: no mpirun.openmpi (openmpi-bin)"; exit 77; }
export OMPI_MCA_btl_vader_single_copy_mechanism="${OMPI_MCA_btl_vader_single_copy_mechanism:-none}"
set -- --oversubscribe -np 4 -x LD_LIBRARY_PATH
[ "$(id -u)" -eq 0 ] && set -- --allow-run-as-root "$@"
for v in $(env | sed -n 's/^\(CLHGEMM_[A-Z0-9_]*\|OPENBLAS_NUM_THREADS\)=.*/\1/p'); do
  set -- "$@" -x "$v"
done
out=$(timeout -k 10 240 "$mpirun" "$@" "$prog" --sizes 96 --nb 16,32 --grids 1x1,2x2,1x4 \
      --check 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
runs=$(echo "$out" | awk '/^pd(gemm|potrf|getrf) / && NF >= 10' | wc -l)
[ "$runs" -eq 18 ] || { echo "FAIL: $runs result lines, want 18"; exit 1; }
echo "$out" | grep -q '^== best NB and grid' || { echo "FAIL: no best-NB table"; exit 1; }
off=$(echo "$out" | sed -n 's/^clhgemm-blas: [0-9]* level-3 calls, \([0-9]*\) offloaded.*/\1/p' |
      awk '{ s += $1 } END { print s + 0 }')
[ "$off" -gt 0 ] || { echo "FAIL: no offloaded call in the BLAS drop-in's stats"; exit 1; }
echo "bench_scalapack_smoke: ok ($runs runs, $off level-3 calls offloaded)"
