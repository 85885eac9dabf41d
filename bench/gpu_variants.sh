#!/usr/bin/env bash
# bench/gpu_variants.sh -- on the GPU machine: the same device-buffer GEMM under several
# environment settings, one bench run each (our figure only; device time with --profile), in
# an interleaved order repeated ROUNDS times so that drift hits every setting alike, while
# nvidia-smi samples the SM clock and power (bench/gpu_smi.sh, read only): each run's mean clock
# and power are printed beside its figure. Builds build-gpu if needed (tests too with
# GPU_TESTS=ON), optionally runs a CTest label first. BENCH_ARGS go to every bench run (e.g.
# --parts: pack A, pack B, the kernel alone and the write-back timed apart, listed after the
# table). Logs in $OUT/logs.tgz, the table in $OUT/variants.txt (printed last).
#   OUT=dir [P=d] [N=8192] [ROUNDS=2] [LABEL=nvidia] [BENCH_ARGS=] bash bench/gpu_variants.sh "ENV=V ..." ...
#   ("-" is the plain setting)
OUT=${OUT:-./out}; mkdir -p "$OUT"
LOGD=/tmp/variantlog; rm -rf "$LOGD"; mkdir -p "$LOGD"
. bench/gpu_build.sh
if [ -n "${LABEL:-}" ]; then
  (cd build-gpu && timeout 300 ctest -L "$LABEL" -j2 --output-on-failure >"$LOGD/ctest-$LABEL.log" 2>&1
   tail -4 "$LOGD/ctest-$LABEL.log" | head -2)
fi
. bench/gpu_smi.sh
smi_start "$LOGD"
# one run (environment in e): "GFLOP/s median-ms device-ms" of ours
bench_run() {
  env "${e[@]}" build-gpu/bench/clhgemm-bench-gemm --precision "${P:-d}" --sizes "${N:-8192}" \
    --shapes none --reps 10 --warmup 2 --no-clblast --no-cublas --profile ${BENCH_ARGS:-} 2>&1 |
    tee "$1" | awk '/^    ours  +[0-9]/{print $2, $5, $12}'
}
: >"$LOGD/parts.txt"
i=0
for r in $(seq "${ROUNDS:-2}"); do
  for v in "$@"; do
    i=$((i + 1))
    e=(); [ "$v" != "-" ] && read -r -a e <<<"$v"
    smi_window "$(echo "$v" | tr ' ' '+')" bench_run "$LOGD/variant-$i.log"
    grep -h '^    parts' "$LOGD/variant-$i.log" | sed "s|^    parts|$v:|" >>"$LOGD/parts.txt"
  done
done
smi_stop
{ smi_summary; cat "$LOGD/parts.txt"; } >"$LOGD/variants.txt"
(cd "$LOGD" && find . -maxdepth 1 -type f -size -4M | tar czf "$OUT/logs.tgz" -T -)
cp "$LOGD/variants.txt" "$OUT/"
cat "$LOGD/variants.txt"
