#!/bin/sh
# run_scalapack_client.sh -- CTest scalapack_*: one of ScaLAPACK's own test programs (Debian's
# scalapack-mpi-test, built on Open MPI) under mpirun on both drop-ins, which the program reaches
# through libscalapack-openmpi.so's own libblas.so.3 and liblapack.so.3 (LD_LIBRARY_PATH):
#   sh run_scalapack_client.sh <np> <program> <input .dat> <work dir> <blas> <lapack> [<line>]
# <blas>, <lapack>: what the ranks' stats exit lines (CLHGEMM_BLAS_STATS, CLHGEMM_LAPACK_STATS)
# must show, summed over the ranks: "some" (calls, some offloaded), "calls" (calls, offloaded
# or not: the default routing's choice), "-" (no check: the dense drivers call none of the
# LAPACK drop-in's routines, only the band ones do). <line>: a grep -E pattern that one line of
# the output must match (the library's line on ranks sharing devices, say). Each rank gets every CLHGEMM_* variable and
# LD_LIBRARY_PATH (mpirun -x). The input is copied into <work dir>, the program's working folder,
# with its test of the condition estimators and iterative refinement turned off: in Debian 12's
# ScaLAPACK 2.2.1 on Open MPI 4.1 that part deadlocks on a 1 x 4 grid and fails with
# MPI_ERR_TRUNCATE when a later grid follows, with the system BLAS alone as with the drop-ins
# (the reference itself, not the library under test). The program's own summary must count
# passed tests and no failed one. Skips (77) without mpirun or the program, unless
# CLHGEMM_SCALAPACK_CLIENTS=require (.ci/run), which makes a missing one a failure.
# shellcheck disable=SC2034  # want_blas, want_lapack: read through eval below
np=$1 prog=$2 input=$3 work=$4 want_blas=$5 want_lapack=$6 want_line=${7:-}
skip() {
  if [ "${CLHGEMM_SCALAPACK_CLIENTS:-}" = require ]; then
    echo "FAIL: $* (the ScaLAPACK clients are required)"
    exit 1
  fi
  echo "SKIP: $*"
  exit 77
}
mpirun=$(command -v mpirun.openmpi) || skip "mpirun.openmpi is not installed (openmpi-bin)"
[ -x "$prog" ] || skip "$prog is not installed (scalapack-mpi-test)"
[ -f "$input" ] || skip "$input is not installed (scalapack-test-common)"

# The process must load the drop-ins: the loader's choice under the same library path.
deps=$(ldd "$prog")
for lib in libblas.so.3 liblapack.so.3; do
  dir=$(echo "$deps" | sed -n "s|^[[:space:]]*$lib => \(.*\)/$lib .*|\1|p")
  case $lib in libblas*) want=$CHG_EXPECT_BLAS_DIR ;; *) want=$CHG_EXPECT_LAPACK_DIR ;; esac
  [ "$(cd "$dir" 2>/dev/null && pwd -P)" = "$(cd "$want" && pwd -P)" ] ||
    { echo "FAIL: $prog takes $lib from '$dir', not from $want"; echo "$deps"; exit 1; }
done

# Open MPI's shared-memory transport copies between ranks with process_vm_readv, which containers
# often forbid (ptrace scope): its plain copy through the shared segment works everywhere.
export OMPI_MCA_btl_vader_single_copy_mechanism="${OMPI_MCA_btl_vader_single_copy_mechanism:-none}"
rm -rf "$work" && mkdir -p "$work" || exit 1
sed 's/^T\([[:space:]]*(T or F) Test Cond\)/F\1/' "$input" > "$work/$(basename "$input")" || exit 1
cd "$work" || exit 1

set -- --oversubscribe -np "$np" -x LD_LIBRARY_PATH
[ "$(id -u)" -eq 0 ] && set -- --allow-run-as-root "$@"
vars=$(env | sed -n 's/^\(CLHGEMM_[A-Z0-9_]*\|OPENBLAS_NUM_THREADS\|POCL_[A-Z0-9_]*\)=.*/\1/p')
for v in $vars; do
  set -- "$@" -x "$v"
done
start=$(date +%s)
# mpirun's own limit: a rank that hangs must not outlive CTest's timeout
out=$(timeout -k 10 "${CHG_SCALAPACK_TIMEOUT:-500}" "$mpirun" "$@" "$prog" 2>&1)
rc=$?
secs=$(( $(date +%s) - start ))
echo "$out"
echo "== mpirun $* $prog: exit $rc, ${secs} s"
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }

# The program's verdict. Drivers (xllt, xlu, xqr, the band ones): "N tests completed and passed
# residual checks" and "M tests completed and failed residual checks"; PBLAS testers: a summary
# table row per routine, "|  PDGEMM  total passed failed skipped".
passed=$(echo "$out" | sed -n 's/^ *\([0-9]*\) tests completed and passed residual checks.*/\1/p')
if [ -n "$passed" ]; then
  failed=$(echo "$out" | sed -n 's/^ *\([0-9]*\) tests completed and failed residual checks.*/\1/p')
  [ "$failed" = 0 ] && [ "$passed" -gt 0 ] ||
    { echo "FAIL: $passed passed, $failed failed residual checks"; exit 1; }
  echo "$out" | grep -q "END OF TESTS" || { echo "FAIL: no END OF TESTS"; exit 1; }
  verdict="$passed passed"
else
  rows=$(echo "$out" | grep -E '^ *\| +P[SDCZ][A-Z0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+')
  [ -n "$rows" ] || { echo "FAIL: neither a driver's nor a PBLAS tester's summary"; exit 1; }
  bad=$(echo "$rows" | awk '$5 != 0 || $4 == 0')
  [ -z "$bad" ] || { echo "FAIL: routines with failures or no passed test:"; echo "$bad"; exit 1; }
  echo "$out" | grep -q "End of Tests" || { echo "FAIL: no End of Tests"; exit 1; }
  verdict="$(echo "$rows" | awk '{p += $4} END {print p}') passed"
fi

# The drop-ins' exit lines, one per rank that called them: calls and offloaded summed.
summary=""
for lib in blas lapack; do
  eval "want=\$want_$lib"
  [ "$want" = - ] && continue
  sums=$(echo "$out" | grep -E "^clhgemm-$lib: [0-9]+ (level-3 )?calls, [0-9]+ offloaded" |
         sed 's/^[^0-9]*\([0-9]*\) [a-z3 -]*calls, \([0-9]*\) offloaded.*/\1 \2/' |
         awk '{c += $1; o += $2; r++} END {print r + 0, c + 0, o + 0}')
  set -- $sums
  [ "$1" -gt 0 ] && [ "$2" -gt 0 ] ||
    { echo "FAIL: no calls in the $lib drop-in's stats lines"; exit 1; }
  [ "$want" = some ] && { [ "$3" -gt 0 ] || { echo "FAIL: $lib: nothing was offloaded"; exit 1; }; }
  summary="$summary $lib: $2 calls on $1 ranks, $3 offloaded;"
done
[ -z "$want_line" ] || echo "$out" | grep -qE "$want_line" ||
  { echo "FAIL: no line matches '$want_line'"; exit 1; }
warns=$(echo "$out" | grep -c -E "^clhgemm-(blas|lapack): .*(failed|no clhgemm device)")
[ "$warns" -eq 0 ] || { echo "FAIL: $warns warning lines of the drop-ins"; exit 1; }
echo "$(basename "$prog"): ok ($verdict;$summary ${secs} s)"
