#!/bin/bash
set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
O=$OUT; t0=$(date +%s)
OUT=/tmp/gr bash bench/gpu_record.sh build > $O/build.log 2>&1
tail -1 /tmp/gr/build/summary.txt; git log --oneline -1 2>/dev/null
(cd build-wt && timeout 400 ctest -R "test_host|test_trsm_host|test_internal|test_params" -LE slow -j4 > $O/host-tests.log 2>&1)
grep -E "tests passed|Failed|\*\*\*|Total Test" $O/host-tests.log | head -12
echo "total $(( $(date +%s) - t0 )) s"
