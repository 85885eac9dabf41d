#!/bin/sh
# run_blas_client.sh -- CTest blas_numpy*, blas_r, blas_octave: a real program through the drop-in
# (numpy, R, Octave), then the exit line of CLHGEMM_BLAS_STATS and the warning lines checked:
#   sh run_blas_client.sh <offloaded: some|none> <warning lines expected: 0|1> <stats regex|-> <cmd...>
# The stats regex (a grep -E pattern, "-" for none) must match one of the per-routine stats
# lines: e.g. that LAPACK's own calls (dtrsm) came through. Exit 77 (skipped) when the program is
# not installed or the script says so -- unless CLHGEMM_BLAS_CLIENTS=require (.ci/run), which
# makes a missing program a failure.
want_off=$1 want_warn=$2 want_line=$3
shift 3
if ! command -v "$1" >/dev/null 2>&1; then
  echo "SKIP: $1 is not installed"
  [ "${CLHGEMM_BLAS_CLIENTS:-}" = require ] && { echo "FAIL: CLHGEMM_BLAS_CLIENTS=require"; exit 1; }
  exit 77
fi
out=$("$@" 2>&1)
rc=$?
echo "$out"
if [ $rc -eq 77 ]; then
  [ "${CLHGEMM_BLAS_CLIENTS:-}" = require ] && { echo "FAIL: skipped under CLHGEMM_BLAS_CLIENTS=require"; exit 1; }
  exit 77
fi
[ $rc -eq 0 ] || { echo "FAIL: the program's checks (exit $rc)"; exit 1; }
stats=$(echo "$out" | grep -E '^clhgemm-blas: [0-9]+ level-3 calls, [0-9]+ offloaded')
[ -n "$stats" ] || { echo "FAIL: no CLHGEMM_BLAS_STATS line"; exit 1; }
off=$(echo "$stats" | sed 's/.* calls, \([0-9]*\) offloaded.*/\1/')
case $want_off in
  some) [ "$off" -gt 0 ] || { echo "FAIL: nothing was offloaded"; exit 1; } ;;
  none) [ "$off" -eq 0 ] || { echo "FAIL: $off calls offloaded, want none"; exit 1; } ;;
esac
if [ "$want_line" != - ]; then
  echo "$out" | grep -E '^clhgemm-blas:   ' | grep -qE "$want_line" ||
    { echo "FAIL: no stats line matches '$want_line'"; exit 1; }
fi
warns=$(echo "$out" | grep -c -E '^clhgemm-blas: .*(failed|no clhgemm device)')
[ "$warns" -eq "$want_warn" ] || { echo "FAIL: $warns warning lines, want $want_warn"; exit 1; }
echo "$1: ok ($off offloaded, $warns warning line(s))"
