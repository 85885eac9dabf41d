#!/bin/sh
# smoke_check.sh -- the checks of clhgemm-bench-lapack's out-of-core and one-device smoke tests
# (bench/lapack/CMakeLists.txt), beyond its exit status, which only says that every result
# passed its backward-error check:
#
#   sh smoke_check.sh ooc    N CMD...   CMD (the benchmark at the single size N with
#        --memory-limit and CLHGEMM_VERBOSE=1) must exit 0, show ooc "yes" in its limit column
#        for each of the three routines, and the library must have said "out of core" for each
#        (its own verbose line: the column is an estimate, the driver decides)
#   sh smoke_check.sh onedev N CMD...   CMD (with --one-device, on two devices) must exit 0 and
#        print a host/1dev ratio for each routine and precision; 77 (skipped) where the
#        benchmark says the handle has one device
#
# CMD may be a wrapper before the benchmark (tests/run_pocl_multidev.sh). The output goes
# through as it comes; a copy is kept to be searched.
mode=$1 n=$2
shift 2
log=$(mktemp "${TMPDIR:-/tmp}/clhgemm-bench-smoke.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
"$@" >"$log" 2>&1
rc=$?
cat "$log"
fail() { echo "smoke_check: $*"; exit 1; }
if [ "$mode" = onedev ] && grep -q -- "--one-device skipped" "$log"; then
  echo "smoke_check: one device only: skipped"
  exit 77
fi
[ "$rc" = 0 ] || fail "the benchmark exited with $rc"
# a row: n, ours-host, devs, ooc, then (ooc mode) ours-lim, its ooc, lim/host;
# (onedev mode) ours-1dev, host/1dev
num='[0-9][0-9.e+-]*'
case $mode in
  ooc)
    rows=$(grep -cE "^ *$n +[^ ]+ +[^ ]+ +[^ ]+ +$num +yes +$num " "$log")
    [ "$rows" -ge 3 ] || fail "$rows row(s) with the limit column out of core (ooc yes), 3 expected"
    for r in potrf getrf geqrf; do
      grep -qE "factor: [sd]$r $n x $n .* out of core$" "$log" ||
        fail "the library did not run $r out of core (no 'out of core' line of CLHGEMM_VERBOSE)"
    done ;;
  onedev)
    rows=$(grep -cE "^ *$n +$num +2 +[^ ]+ +$num +$num " "$log")
    [ "$rows" -ge 6 ] ||
      fail "$rows row(s) with ours on 2 devices and a host/1dev ratio, 6 expected" ;;
  *) fail "unknown mode $mode" ;;
esac
echo "smoke_check: $mode ok"
