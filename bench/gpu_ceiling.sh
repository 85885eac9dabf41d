#!/usr/bin/env bash
# bench/gpu_ceiling.sh -- on the GPU machine (issue 7): what bounds DGEMM, with the SM clock and
# power of each step (bench/gpu_smi.sh): the FP64 tensor-core ceiling from OpenCL
# (bench/probe_mma.c: mma.sync on registers, each shape, 4/8/16 warps per work-group), the device
# call and its parts (pack A, pack B, kernel alone, write-back: clhgemm-bench-gemm --parts) at each
# of SIZES, and host-resident DGEMM from pageable memory at HOSTN with its device-only figure.
# Logs in $OUT/logs.tgz, the table in $OUT/summary.txt (printed last).
# HOST_TILES: host-resident runs, "-" for the planner's plan or a CLHGEMM_TILE value each (the
# first also measures device-only). PROBE=0 skips the mma probe; SIZES= (empty) the device calls.
#   OUT=dir [SIZES=8192,16384,32768] [HOSTN=32768] [HOST_TILES="- 16384,18432,8192"] [PROBE=1]
#     [ENVV="CLHGEMM_...=V ..."] bash bench/gpu_ceiling.sh
OUT=${OUT:-./out}; mkdir -p "$OUT"
LOGD=/tmp/ceillog; rm -rf "$LOGD"; mkdir -p "$LOGD"
GPU_TESTS=${GPU_TESTS:-OFF} . bench/gpu_build.sh
. bench/gpu_smi.sh
cc -O2 -o /tmp/probe_mma bench/probe_mma.c -lOpenCL >"$LOGD/probe-build.log" 2>&1 || cat "$LOGD/probe-build.log"
nvidia-smi >"$LOGD/smi-start.txt" 2>&1
smi_start "$LOGD"
[ "${PROBE:-1}" = 1 ] && smi_window probe_mma sh -c "/tmp/probe_mma >$LOGD/probe_mma.log 2>&1"
read -r -a ev <<<"${ENVV:-}"
for n in $(echo "${SIZES-8192,16384,32768}" | tr ',' ' '); do
  smi_window "device-$n" sh -c "env ${ev[*]} build-gpu/bench/clhgemm-bench-gemm --precision d --sizes $n --shapes none \
    --reps 5 --warmup 1 --no-clblast --parts >$LOGD/bench-$n.log 2>&1; awk '/^    ours  +[0-9]/{print \$2, \$5, \$12}' $LOGD/bench-$n.log"
done
# host-resident at HOSTN, once per entry of HOST_TILES: "-" the planner's plan, else a forced
# CLHGEMM_TILE (bm,bn,bk[,mode]); the first run also measures device-only
if [ -n "${HOSTN=32768}" ]; then
  h=0; donly=""
  for tile in ${HOST_TILES:--}; do
    h=$((h + 1)); te=""; [ "$tile" != "-" ] && te="CLHGEMM_TILE=$tile"
    smi_window "host-$HOSTN-tile:$tile" sh -c "env ${ev[*]} $te CLHGEMM_VERBOSE=1 timeout 400 build-gpu/bench/clhgemm-bench-host \
      --sizes $HOSTN --precision d --reps 3 --no-xt --no-naive $donly >$LOGD/bench-host-$h.log 2>&1;
      grep -o 'done in [0-9.]* s[^:]*: [0-9.]* GFLOP/s' $LOGD/bench-host-$h.log | tail -3 | awk '{printf \"%s \", \$(NF-1)}'"
    donly="--no-device-only"
  done
fi
smi_stop
{
  smi_summary
  cat "$LOGD/probe_mma.log" 2>/dev/null
  grep -h '^    parts\|^    ours \|^    cuBLAS ' "$LOGD"/bench-*.log
  for f in "$LOGD"/bench-host-*.log; do
    [ -f "$f" ] || continue
    echo "-- $(basename "$f")"; grep -h 'plan dgemm\|  why' "$f" | sort -u | head -2; grep -A3 '== summary' "$f" | tail -2
  done
} >"$LOGD/summary.txt"
(cd "$LOGD" && find . -maxdepth 1 -type f -size -4M | tar czf "$OUT/logs.tgz" -T -)
cp "$LOGD/summary.txt" "$OUT/"
echo "== summary"; cat "$LOGD/summary.txt"
