#!/usr/bin/env bash
# bench/gpu_frag.sh -- on the GPU machine (issue 7): the fragment-ordered FP64 tensor-core
# variants (FRAG: staged without padding, or read through L1 with no barrier, PF: L1 prefetch)
# against the shipped entry. Build with tests; test_mma (proves each FRAG geometry on random
# data) and the CTest entries named *frag*; then DGEMM at N (8192) for each variant of VARIANTS
# (CLHGEMM_DGEMM_PARAMS over the shipped entry; "-" is the entry), ROUNDS interleaved rounds, ours
# only with device time, while nvidia-smi samples SM clock and power every 100 ms (read only);
# each variant's mean clock and power over its window; ptxas -v of every cached kernel; then, for
# BEST (a variant string; default the fastest variant of the sweep), bench-gemm next to CLBlast
# and cuBLAS at 4096 and 8192, beta 0.5 and 0. Logs in $OUT/logs.tgz, the table in
# $OUT/summary.txt (printed last).
# HOSTN (e.g. 32768): also host-resident DGEMM from pageable memory with BEST and with the
# shipped entry, same run.
# A variant is "-" (the shipped entry) or "+"-joined parts: CLHGEMM_*=V environment settings and
# DGEMM parameters (e.g. "FRAG=1+CLHGEMM_DIRECT=c"). BENCH_ARGS go to every variant's bench
# (e.g. --parts); PROBE=1 (default) first runs bench/probe_lmem.c (local memory above the
# reported size); TEST_RE picks the CTest entries (default "frag"), TEST_ENV (VAR=V ...) sets their
# environment.
#   OUT=dir [N=8192] [ROUNDS=2] [VARIANTS="- FRAG=1 ..."] [BEST=...] [BETAS="0.5 0"] [BEST_SIZES=4096,8192]
#     [TESTS=1] [HOSTN=] [BENCH_ARGS=] [PROBE=1] [TEST_RE=frag] bash bench/gpu_frag.sh
OUT=${OUT:-./out}; mkdir -p "$OUT"
LOGD=/tmp/fraglog; rm -rf "$LOGD"; mkdir -p "$LOGD"
GPU_TESTS=${GPU_TESTS:-ON} . bench/gpu_build.sh
nvidia-smi >"$LOGD/smi-start.txt" 2>&1
if [ "${PROBE:-1}" = 1 ]; then
  cc -O2 -o /tmp/probe_lmem bench/probe_lmem.c -lOpenCL >"$LOGD/probe.log" 2>&1 && /tmp/probe_lmem >>"$LOGD/probe.log" 2>&1
  cat "$LOGD/probe.log"
fi
if [ "${TESTS:-1}" = 1 ]; then
  timeout 240 build-gpu/tests/test_mma >"$LOGD/test_mma.log" 2>&1; echo "test_mma rc=$?"
  grep -E 'mapping|wrong runs|wrong|did not build|FRAG' "$LOGD/test_mma.log" | grep -v ': correct' | head -12
  grep -c 'FRAG=1.*correct' "$LOGD/test_mma.log" | sed 's/^/FRAG geometries correct: /'
  (cd build-gpu && env ${TEST_ENV:-} timeout 300 ctest -R "${TEST_RE:-frag}" -j2 --output-on-failure >"$LOGD/ctest.log" 2>&1; grep -E 'tests passed|Failed|\*\*\*' "$LOGD/ctest.log" | head -8)
fi
. bench/gpu_smi.sh
smi_start "$LOGD"
V=${VARIANTS:-"- FRAG=1 SA=0,SB=0,KWG=16,KWI=16,FRAG=1,PF=2"}
# a variant: "-" (the shipped entry), or parts joined by "+": CLHGEMM_*=V environment settings,
# the rest DGEMM parameters over the entry (CLHGEMM_DGEMM_PARAMS)
variant_env() {
  e=(); local params="" x
  [ "$1" = "-" ] && return
  for x in $(echo "$1" | tr '+' ' '); do
    case "$x" in CLHGEMM_*) e+=("$x") ;; *) params="${params:+$params,}$x" ;; esac
  done
  [ -n "$params" ] && e+=("CLHGEMM_DGEMM_PARAMS=$params")
}
: >"$LOGD/parts.txt"
# one variant's bench (environment in e): "GFLOP/s call-ms device-ms" of ours
bench_variant() {
  env "${e[@]}" build-gpu/bench/clhgemm-bench-gemm --precision d --sizes "${N:-8192}" --shapes none \
    --reps 10 --warmup 2 --no-clblast --no-cublas --profile ${BENCH_ARGS:-} 2>&1 |
    tee "$1" | awk '/^    ours  +[0-9]/{print $2, $5, $12}'
}
i=0
for r in $(seq "${ROUNDS:-2}"); do
  for v in $V; do
    i=$((i + 1))
    variant_env "$v"
    smi_window "$v" bench_variant "$LOGD/variant-$i.log"
    grep -h '^    parts' "$LOGD/variant-$i.log" | sed "s|^    parts|$v:|" >>"$LOGD/parts.txt"
  done
done
# BEST: the given string, else the variant (not "-") with the highest GFLOP/s of any round
BEST=${BEST:-$(awk '$1 != "-" && $4 + 0 > b {b = $4 + 0; v = $1} END {print v}' "$LOGD/windows.txt")}
echo "best variant: $BEST"; echo "best: $BEST" >"$LOGD/best.txt"
variant_env "$BEST"
for beta in ${BETAS:-0.5 0}; do
  smi_window "best-beta$beta" env "${e[@]}" build-gpu/bench/clhgemm-bench-gemm --precision d \
    --sizes "${BEST_SIZES:-4096,8192}" --shapes none --reps 10 --warmup 2 --beta $beta \
    --csv "$LOGD/bench-best.csv" >"$LOGD/bench-best-beta$beta.log" 2>&1
done
if [ -n "${HOSTN:-}" ]; then
  smi_window host-best env "${e[@]}" CLHGEMM_VERBOSE=1 timeout 240 build-gpu/bench/clhgemm-bench-host \
    --sizes "$HOSTN" --precision d --reps 3 --no-xt --no-naive >"$LOGD/bench-host-best.log" 2>&1
  smi_window host-shipped env CLHGEMM_VERBOSE=1 timeout 240 build-gpu/bench/clhgemm-bench-host \
    --sizes "$HOSTN" --precision d --reps 3 --no-xt --no-naive >"$LOGD/bench-host-shipped.log" 2>&1
fi
smi_stop
bash bench/ptxas_cache.sh >"$LOGD/ptxas.txt" 2>&1
smi_summary >"$LOGD/summary.txt"
cat "$LOGD/best.txt" "$LOGD/parts.txt" >>"$LOGD/summary.txt"
grep -h -A6 '== summary' "$LOGD"/bench-best-beta*.log >>"$LOGD/summary.txt"
[ -n "${HOSTN:-}" ] && tail -4 "$LOGD/bench-host-best.log" "$LOGD/bench-host-shipped.log" >>"$LOGD/summary.txt"
(cd "$LOGD" && find . -type f -size -4M | tar czf "$OUT/logs.tgz" -T -)
cp "$LOGD/summary.txt" "$LOGD/ptxas.txt" "$OUT/"
echo "== ptxas (FRAG and shipped DGEMM kernels)"; grep 'PRECISION=64' "$LOGD/ptxas.txt" | cut -c1-220 | head -14
echo "== summary"; cat "$LOGD/summary.txt"
