#!/usr/bin/env bash
# bench/gpu_slices.sh -- on the GPU machine: what the host pipeline's per-k-slice launches cost
# the kernel. For each "MxNxK:BK" case, clhgemm-bench-gemm --parts-bk BK times (ours only,
# device time) the call, the kernel as one launch over all of k, and the kernel as one
# accumulating launch per k slice of BK (each re-reads and re-writes Cp), while nvidia-smi
# samples the SM clock and power (bench/gpu_smi.sh, read only). Logs in $OUT/logs.tgz, the
# table in $OUT/slices.txt (printed last).
#   OUT=dir [P=d] [REPS=3] [CASES="32768x9216x32768:3072 8192x8192x8192:2048"] bash bench/gpu_slices.sh
OUT=${OUT:-./out}; mkdir -p "$OUT"
LOGD=/tmp/sliceslog; rm -rf "$LOGD"; mkdir -p "$LOGD"
. bench/gpu_build.sh
. bench/gpu_smi.sh
smi_start "$LOGD"
run_case() {
  build-gpu/bench/clhgemm-bench-gemm --precision "${P:-d}" --sizes none --shapes "$1" --parts-bk "$2" \
    --reps "${REPS:-3}" --warmup 1 --no-clblast --no-cublas 2>&1 | tee "$3" |
    awk '/^    ours  +[0-9]/{print $2, $5, $12}'
}
i=0
for cs in ${CASES:-32768x9216x32768:3072 8192x8192x8192:2048}; do
  i=$((i + 1))
  smi_window "$cs" run_case "${cs%%:*}" "${cs##*:}" "$LOGD/case-$i.log"
done
smi_stop
{ smi_summary; grep -h '^    parts' "$LOGD"/case-*.log; } >"$LOGD/slices.txt"
(cd "$LOGD" && find . -maxdepth 1 -type f -size -4M | tar czf "$OUT/logs.tgz" -T -)
cp "$LOGD/slices.txt" "$OUT/"
cat "$LOGD/slices.txt"
