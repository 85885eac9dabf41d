#!/bin/sh
# run_blas_numpy.sh -- CTest blas_numpy*: tests/test_blas_numpy.py through the drop-in, then the
# exit line of CLHGEMM_BLAS_STATS and the warning lines checked:
#   sh run_blas_numpy.sh <script> <offloaded: some|none> <warning lines expected: 0|1>
# (77: skipped, no numpy)
script=$1 want_off=$2 want_warn=$3
out=$(/usr/bin/python3 "$script" 2>&1)
rc=$?
echo "$out"
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "FAIL: the products (exit $rc)"; exit 1; }
stats=$(echo "$out" | grep -E '^clhgemm-blas: [0-9]+ level-3 calls, [0-9]+ offloaded')
[ -n "$stats" ] || { echo "FAIL: no CLHGEMM_BLAS_STATS line"; exit 1; }
off=$(echo "$stats" | sed 's/.* calls, \([0-9]*\) offloaded.*/\1/')
case $want_off in
  some) [ "$off" -gt 0 ] || { echo "FAIL: nothing was offloaded"; exit 1; } ;;
  none) [ "$off" -eq 0 ] || { echo "FAIL: $off calls offloaded, want none"; exit 1; } ;;
esac
warns=$(echo "$out" | grep -c -E '^clhgemm-blas: .*(failed|no clhgemm device)')
[ "$warns" -eq "$want_warn" ] || { echo "FAIL: $warns warning lines, want $want_warn"; exit 1; }
echo "blas_numpy: ok ($off offloaded, $warns warning line(s))"
