#!/bin/sh
# run_dropin_client.sh -- CTest blas_numpy*, blas_r, blas_octave, lapack_numpy*, lapack_r,
# lapack_octave: a real program through the drop-ins (numpy, R, Octave), then, per drop-in, the
# exit line of its stats (CLHGEMM_BLAS_STATS, CLHGEMM_LAPACK_STATS) and its warning lines checked:
#   sh run_dropin_client.sh <lib> <offloaded: some|none> <warning lines: 0|1> <stats regex|->
#                           [<lib> ...] -- <cmd...>
# <lib> is blas or lapack (the lines clhgemm-blas: / clhgemm-lapack:); offloaded "-" checks no
# count. Each of the stats regexes (grep -E patterns separated by '@', "-" for none) must match
# one of the drop-in's per-routine stats lines: e.g. that LAPACK's own calls (dtrsm) came
# through the BLAS drop-in, or that dpotrf was offloaded. Exit 77
# (skipped) when the program is not installed or the script says so -- unless
# CLHGEMM_BLAS_CLIENTS=require or CLHGEMM_LAPACK_CLIENTS=require (.ci/run) names one of the
# drop-ins checked, which makes a missing program a failure.
expects=""
required=0
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  [ $# -ge 4 ] || { echo "usage: run_dropin_client.sh <lib> <some|none> <0|1> <regex|-> ... -- <cmd...>"; exit 2; }
  expects="$expects $1:$2:$3"
  eval "line_$1=\$4"
  case $1 in
    blas) [ "${CLHGEMM_BLAS_CLIENTS:-}" = require ] && required=1 ;;
    lapack) [ "${CLHGEMM_LAPACK_CLIENTS:-}" = require ] && required=1 ;;
    *) echo "unknown drop-in '$1'"; exit 2 ;;
  esac
  shift 4
done
[ "${1:-}" = -- ] && shift
skip() {
  if [ $required -eq 1 ]; then echo "FAIL: $* (the clients are required)"; exit 1; fi
  echo "SKIP: $*"
  exit 77
}
command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed"
out=$("$@" 2>&1)
rc=$?
echo "$out"
[ $rc -eq 77 ] && skip "the program skipped itself"
[ $rc -eq 0 ] || { echo "FAIL: the program's checks (exit $rc)"; exit 1; }
summary=""
for e in $expects; do
  lib=${e%%:*} rest=${e#*:}
  want_off=${rest%%:*} want_warn=${rest#*:}
  eval "want_line=\$line_$lib"
  stats=$(echo "$out" | grep -E "^clhgemm-$lib: [0-9]+ (level-3 )?calls, [0-9]+ offloaded")
  [ -n "$stats" ] || { echo "FAIL: no stats line of the $lib drop-in"; exit 1; }
  off=$(echo "$stats" | sed 's/.* calls, \([0-9]*\) offloaded.*/\1/')
  case $want_off in
    some) [ "$off" -gt 0 ] || { echo "FAIL: $lib: nothing was offloaded"; exit 1; } ;;
    none) [ "$off" -eq 0 ] || { echo "FAIL: $lib: $off calls offloaded, want none"; exit 1; } ;;
  esac
  if [ "$want_line" != - ]; then
    old_ifs=$IFS
    IFS=@
    set -f  # the patterns are not file names
    for re in $want_line; do
      echo "$out" | grep -E "^clhgemm-$lib:   " | grep -qE "$re" ||
        { echo "FAIL: no $lib stats line matches '$re'"; exit 1; }
    done
    IFS=$old_ifs
    set +f
  fi
  warns=$(echo "$out" | grep -c -E "^clhgemm-$lib: .*(failed|no clhgemm device)")
  [ "$warns" -eq "$want_warn" ] || { echo "FAIL: $lib: $warns warning lines, want $want_warn"; exit 1; }
  summary="$summary $lib: $off offloaded, $warns warning line(s);"
done
echo "$1: ok ($summary )"
