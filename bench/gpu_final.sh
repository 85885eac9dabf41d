#!/usr/bin/env bash
# bench/gpu_final.sh -- on the GPU machine, issue 7's figures in one call: build with tests, the
# nvidia CTest group, then (each a window of bench/gpu_smi.sh: SM clock and power, read only)
# device-buffer GEMM at 4096 and 8192 in both precisions next to CLBlast and cuBLAS (beta 0.5),
# DGEMM 8192 at beta 0, and host-resident DGEMM from pageable memory at HOSTN once per entry
# of HOST_ENVS ("-" plain, else ENV=V[,ENV=V]; the first also measures device-only).
# Logs in $OUT/logs.tgz, the table in $OUT/final.txt (printed last).
# TESTS=0 skips the build of the tests and the CTest group.
#   OUT=dir [HOSTN=32768] [HOST_ENVS="- CLHGEMM_KGROUP=1"] [TABLES=1] [TESTS=1] bash bench/gpu_final.sh
OUT=${OUT:-./out}; mkdir -p "$OUT"
LOGD=/tmp/finallog; rm -rf "$LOGD"; mkdir -p "$LOGD"
if [ "${TESTS:-1}" = 1 ]; then
  GPU_TESTS=ON . bench/gpu_build.sh
  (cd build-gpu && timeout 300 ctest -L nvidia -j2 --output-on-failure >"$LOGD/ctest-nvidia.log" 2>&1)
  grep -E 'tests passed|tests failed' "$LOGD/ctest-nvidia.log"
else
  . bench/gpu_build.sh
fi
. bench/gpu_smi.sh
smi_start "$LOGD"
B=build-gpu/bench
if [ "${TABLES:-1}" = 1 ]; then
  smi_window table-beta0.5 sh -c "$B/clhgemm-bench-gemm --precision both --sizes 4096,8192 --shapes none --reps 10 \
    --warmup 2 >$LOGD/bench-table.log 2>&1; echo"
  smi_window dgemm-8192-beta0 sh -c "$B/clhgemm-bench-gemm --precision d --sizes 8192 --shapes none --reps 10 \
    --warmup 2 --beta 0 >$LOGD/bench-beta0.log 2>&1; echo"
fi
h=0; donly=""
for v in ${HOST_ENVS:--}; do
  h=$((h + 1)); e=""; [ "$v" != "-" ] && e=$(echo "$v" | tr ',' ' ')
  smi_window "host-${HOSTN:-32768}:$v" sh -c "env $e CLHGEMM_VERBOSE=1 timeout 420 $B/clhgemm-bench-host \
    --sizes ${HOSTN:-32768} --precision d --reps 3 --no-xt --no-naive $donly >$LOGD/bench-host-$h.log 2>&1;
    grep -o 'done in [0-9.]* s[^:]*: [0-9.]* GFLOP/s' $LOGD/bench-host-$h.log | tail -3 | awk '{printf \"%s \", \$(NF-1)}'"
  donly="--no-device-only"
done
smi_stop
{
  smi_summary
  for f in "$LOGD"/bench-table.log "$LOGD"/bench-beta0.log; do
    [ -f "$f" ] && grep -A12 '== summary' "$f" | grep -v '^$'
  done
  for f in "$LOGD"/bench-host-*.log; do
    [ -f "$f" ] || continue
    echo "-- $(basename "$f")"; grep -h 'plan dgemm\|  why' "$f" | sort -u | head -2; grep -A3 '== summary' "$f" | tail -2
  done
} >"$LOGD/final.txt"
cp build-gpu/Testing/Temporary/LastTest.log "$LOGD/ctest-last.log" 2>/dev/null
(cd "$LOGD" && find . -maxdepth 1 -type f -size -4M | tar czf "$OUT/logs.tgz" -T -)
cp "$LOGD/final.txt" "$OUT/"
echo "== final"; cat "$LOGD/final.txt"
