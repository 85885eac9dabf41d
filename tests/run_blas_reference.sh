#!/bin/sh
# run_blas_reference.sh -- CTest blas_ref_*: one of Debian's reference BLAS test programs
# (package libblas-test) against clhgemm's BLAS drop-in.
#
#   sh run_blas_reference.sh <dir of our libblas.so.3> <dir of the test programs> <work dir>
#                            <program> [<input file>]
#
# Skips (77) without libblas-test. Fails unless
#   - the program loads <dir>/libblas.so.3 (the dynamic loader's list, as ldd prints it),
#   - it exits 0 and its output (stdout, and the summary file that a Fortran level 2/3 input
#     names) shows no "FAIL" and no "**" (the programs' marks of a wrong result, a wrong error
#     exit or an abandoned run),
#   - level 1: every "Test of subprogram number" is followed by a PASS;
#   - level 2/3: "END OF TESTS", and every routine that the input selects (T) "PASSED THE ...
#     COMPUTATIONAL TESTS" (twice for a CBLAS input that asks for both layouts).
set -u
libdir=$1 refdir=$2 work=$3 prog=$4 input=${5:-}

if [ ! -x "$refdir/xblat1d" ]; then
    echo "skipped: $refdir/xblat1d not found (install Debian's libblas-test)"
    exit 77
fi
fail() { echo "FAIL: $prog: $*"; exit 1; }
[ -f "$libdir/libblas.so.3" ] || fail "$libdir/libblas.so.3 does not exist"
[ -x "$refdir/$prog" ] || fail "$refdir/$prog does not exist"
[ -z "$input" ] || [ -f "$input" ] || fail "input $input does not exist"
mkdir -p "$work" && cd "$work" || fail "cannot enter $work"
rm -f -- *.out *.SNAP stdout.txt

# 1. The program must really run on our library.
want=$(readlink -f "$libdir/libblas.so.3")
got=$(LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_TRACE_LOADED_OBJECTS=1 \
      "$refdir/$prog" </dev/null 2>&1 |
      awk '$1 == "libblas.so.3" { print $3; exit } $1 ~ /\/libblas\.so\.3$/ { print $1; exit }')
[ -n "$got" ] || fail "the dynamic loader lists no libblas.so.3"
[ "$(readlink -f "$got")" = "$want" ] || fail "loads $got instead of $want"
echo "$prog loads $got"

# 2. Run it.
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -n "$input" ]; then
    "$refdir/$prog" <"$input" >stdout.txt 2>&1
else
    "$refdir/$prog" </dev/null >stdout.txt 2>&1
fi
rc=$?
summary=stdout.txt
if [ -n "$input" ]; then
    named=$(sed -n "1s/^'\([^']*\)'.*NAME OF SUMMARY OUTPUT FILE.*/\1/p" "$input")
    [ -z "$named" ] || summary=$named
fi
[ -f "$summary" ] || fail "exit status $rc, no summary file $summary; output: $(cat stdout.txt)"
cat "$summary"
[ "$summary" = stdout.txt ] || cat stdout.txt
[ "$rc" -eq 0 ] || fail "exit status $rc"

# 3. The verdicts.
if grep -n -e 'FAIL' -e '\*\*' "$summary" stdout.txt; then
    fail "the output above reports failures"
fi
if [ -z "$input" ]; then
    tests=$(grep -c 'Test of subprogram number' "$summary")
    passes=$(grep -c -e '----- PASS -----' "$summary")
    [ "$tests" -gt 0 ] && [ "$tests" -eq "$passes" ] || fail "$passes PASS for $tests subprograms"
else
    grep -q 'END OF TESTS' "$summary" || fail "no END OF TESTS"
    layouts=1
    if grep -q '0 TO TEST COLUMN-MAJOR, 1 TO TEST ROW-MAJOR, 2 TO TEST BOTH' "$input"; then
        flag=$(awk '/0 TO TEST COLUMN-MAJOR, 1 TO TEST ROW-MAJOR, 2 TO TEST BOTH/ { print $1 }' "$input")
        [ "$flag" = 2 ] && layouts=2
    fi
    routines=$(awk '$2 == "T" && $3 == "PUT" { print $1 }' "$input")
    [ -n "$routines" ] || fail "the input $input selects no routine"
    for r in $routines; do
        n=$(grep -c -e "^ *$r *PASSED THE .*COMPUTATIONAL TESTS" "$summary")
        [ "$n" -ge "$layouts" ] || fail "$r: $n of $layouts computational test runs PASSED"
    done
    echo "$prog: $(echo $routines | wc -w) routines passed ($layouts layout(s))"
fi
echo "$prog: PASSED"
exit 0
