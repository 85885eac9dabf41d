#!/bin/sh
# run_lapack_reference.sh -- CTest lapack_ref_*: one of Debian's reference LAPACK test programs
# (package liblapack-test) on clhgemm's LAPACK drop-in and on the reference liblapack.so.3, with
# the same inputs, group by group.
#
#   sh run_lapack_reference.sh <dir of our liblapack.so.3> <dir of the reference liblapack.so.3
#                              and its test programs> <work dir> <program> <input file>...
#
# The drop-in's run takes the environment as it is (CLHGEMM_LAPACK_OFFLOAD, CLHGEMM_FACTOR_NB,
# CLHGEMM_LAPACK_STATS, ...) with <dir of our liblapack.so.3> first in LD_LIBRARY_PATH; the
# reference run has the reference's folder first instead. Skips (77) without liblapack-test,
# unless CLHGEMM_LAPACK_CLIENTS=require (.ci/run). Fails unless
#   - the program loads <dir>/liblapack.so.3 (the dynamic loader's list, as ldd prints it),
#   - on every input it exits 0 and reaches "End of tests" (where the reference does),
#   - every verdict line that says a test group passed on the reference (" passed ": the error
#     exits, the threshold of each group and matrix set; and where the eigenvalue programs'
#     balancing tests give counts instead, "... info is not 0 = 0", "ILO or IHI wrong = 0" and
#     the number of examples tested) is there on the drop-in as many times.
# Prints per input the number of such group verdicts on each side, both times, and the drop-in's
# stats line (with CLHGEMM_LAPACK_STATS=1).
set -u
libdir=$1 refdir=$2 work=$3 prog=$4
shift 4

if [ ! -x "$refdir/xlintstd" ]; then
    echo "skipped: $refdir/xlintstd not found (install Debian's liblapack-test)"
    [ "${CLHGEMM_LAPACK_CLIENTS:-}" = require ] && { echo "FAIL: CLHGEMM_LAPACK_CLIENTS=require"; exit 1; }
    exit 77
fi
fail() { echo "FAIL: $prog: $*"; exit 1; }
[ -f "$libdir/liblapack.so.3" ] || fail "$libdir/liblapack.so.3 does not exist"
[ -f "$refdir/liblapack.so.3" ] || fail "$refdir/liblapack.so.3 does not exist"
[ -x "$refdir/$prog" ] || fail "$refdir/$prog does not exist"
[ $# -gt 0 ] || fail "no input file"
mkdir -p "$work" && cd "$work" || fail "cannot enter $work"
rm -f -- *.out *.pass
path=${LD_LIBRARY_PATH:-}
ours="$libdir${path:+:$path}" theirs="$refdir${path:+:$path}"

# 1. The program must really run on our library.
want=$(readlink -f "$libdir/liblapack.so.3")
got=$(LD_LIBRARY_PATH="$ours" LD_TRACE_LOADED_OBJECTS=1 "$refdir/$prog" </dev/null 2>&1 |
      awk '$1 == "liblapack.so.3" { print $3; exit } $1 ~ /\/liblapack\.so\.3$/ { print $1; exit }')
[ -n "$got" ] || fail "the dynamic loader lists no liblapack.so.3"
[ "$(readlink -f "$got")" = "$want" ] || fail "loads $got instead of $want"
echo "$prog loads $got"

# the lines that say a group passed
verdicts=' passed |(info is not (zero|0)|ILO or IHI wrong) *= *0$|total number of examples tested'
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# 2. Each input on both libraries, then the verdicts.
bad=0
for input in "$@"; do
    [ -f "$input" ] || fail "input $input does not exist"
    tag=$(basename "$input" .in)
    t0=$(now)
    LD_LIBRARY_PATH="$theirs" "$refdir/$prog" <"$input" >"ref_$tag.out" 2>&1
    rc_ref=$?
    t1=$(now)
    LD_LIBRARY_PATH="$ours" "$refdir/$prog" <"$input" >"drop_$tag.out" 2>&1
    rc=$?
    t2=$(now)
    for side in ref drop; do
        grep -E "$verdicts" "${side}_$tag.out" | sed 's/  */ /g' >"${side}_$tag.pass"
    done
    n_ref=$(wc -l <"ref_$tag.pass") n_drop=$(wc -l <"drop_$tag.pass")
    echo "== $prog < $tag.in: $n_ref group verdicts passed on the reference ($(secs "$t0" "$t1") s," \
         "exit $rc_ref), $n_drop on the drop-in ($(secs "$t1" "$t2") s, exit $rc)"
    grep '^clhgemm-lapack: ' "drop_$tag.out"
    ok=1
    if [ "$rc" -ne 0 ]; then
        echo "FAIL: $tag: the drop-in's run exits $rc"
        ok=0
    fi
    if grep -q 'End of tests' "ref_$tag.out" && ! grep -q 'End of tests' "drop_$tag.out"; then
        echo "FAIL: $tag: the drop-in's run did not reach End of tests"
        ok=0
    fi
    # every passed verdict of the reference, as many times, on the drop-in
    missing=$(awk 'NR == FNR { want[$0]++; next } { have[$0]++ }
                   END { for (l in want) if (have[l] < want[l]) print "  " want[l] - have[l] " x" l }' \
              "ref_$tag.pass" "drop_$tag.pass")
    if [ -n "$missing" ]; then
        echo "FAIL: $tag: passed on the reference, not on the drop-in:"
        echo "$missing"
        ok=0
    fi
    if [ $ok -eq 0 ]; then
        echo "-- the drop-in's failures and messages:"
        grep -n -i -e 'fail' -e '\*\*\*' -e 'clhgemm' -e 'error' "drop_$tag.out" | grep -v ' passed ' | head -40
        bad=1
    fi
done
[ $bad -eq 0 ] || fail "a group that passes on the reference does not pass on the drop-in"
echo "$prog: PASSED (every group that passes on the reference passes on the drop-in)"
