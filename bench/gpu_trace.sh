#!/usr/bin/env bash
# bench/gpu_trace.sh -- on the GPU machine: a Chrome trace (CLHGEMM_TRACE) of one host-resident
# DGEMM from pageable memory at HOSTN per entry of TRACE_ENVS ("-" plain, else ENV=V[,ENV=V]),
# each summarised by bench/trace_summary.py (kernel queue busy %, idle gaps, time by command),
# with the SM clock and power of each window (bench/gpu_smi.sh, read only). The traces enable
# profiling on the queues, so compare their figures among themselves.
# Logs and gzipped traces in $OUT/logs.tgz, the summaries in $OUT/traces.txt (printed last).
#   OUT=dir [HOSTN=32768] [TRACE_ENVS="- CLHGEMM_KGROUP=1"] bash bench/gpu_trace.sh
OUT=${OUT:-./out}; mkdir -p "$OUT"
LOGD=/tmp/tracelog; rm -rf "$LOGD"; mkdir -p "$LOGD"
. bench/gpu_build.sh
. bench/gpu_smi.sh
smi_start "$LOGD"
i=0
for v in ${TRACE_ENVS:--}; do
  i=$((i + 1)); e=""; [ "$v" != "-" ] && e=$(echo "$v" | tr ',' ' ')
  smi_window "trace-${HOSTN:-32768}:$v" sh -c "env $e CLHGEMM_VERBOSE=1 CLHGEMM_TRACE=$LOGD/trace-$i.json timeout 300 \
    build-gpu/bench/clhgemm-bench-host --sizes ${HOSTN:-32768} --precision d --reps 1 --warmup 1 --no-xt --no-naive \
    --no-device-only --no-check >$LOGD/host-$i.log 2>&1;
    grep -o 'done in [0-9.]* s[^:]*: [0-9.]* GFLOP/s' $LOGD/host-$i.log | tail -1 | awk '{printf \"%s\", \$(NF-1)}'"
done
smi_stop
{
  smi_summary
  for j in $(seq "$i"); do
    echo "-- $j"; grep -h 'plan dgemm' "$LOGD/host-$j.log" | head -1
    python3 bench/trace_summary.py "$LOGD/trace-$j.json" --gaps 8 2>&1
    gzip -f "$LOGD/trace-$j.json"
  done
} >"$LOGD/traces.txt"
(cd "$LOGD" && find . -maxdepth 1 -type f -size -4M | tar czf "$OUT/logs.tgz" -T -)
cp "$LOGD/traces.txt" "$OUT/"
cat "$LOGD/traces.txt"
