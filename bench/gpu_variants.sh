#!/usr/bin/env bash
# bench/gpu_variants.sh -- on the GPU machine: the same device-buffer GEMM under several
# environment settings, one bench run each (our figure only; --profile adds device time), in
# an interleaved order repeated ROUNDS times so that drift hits every setting alike. Builds
# build-gpu if needed (tests too with GPU_TESTS=ON), optionally runs a CTest label first.
#   OUT=dir [P=d] [N=8192] [ROUNDS=2] [LABEL=nvidia] bash bench/gpu_variants.sh "ENV=V ..." ...
#   ("-" is the plain setting)
OUT=${OUT:-./out}; mkdir -p "$OUT"
. bench/gpu_build.sh
if [ -n "${LABEL:-}" ]; then
  (cd build-gpu && timeout 300 ctest -L "$LABEL" -j2 --output-on-failure >"$OUT/ctest-$LABEL.log" 2>&1
   tail -4 "$OUT/ctest-$LABEL.log" | head -2)
fi
i=0
for r in $(seq "${ROUNDS:-2}"); do
  for v in "$@"; do
    i=$((i + 1))
    e=(); [ "$v" != "-" ] && read -r -a e <<<"$v"
    line=$(env "${e[@]}" build-gpu/bench/clhgemm-bench-gemm --precision "${P:-d}" --sizes "${N:-8192}" \
      --shapes none --reps 10 --warmup 2 --no-clblast --no-cublas --profile 2>&1 |
      tee "$OUT/variant-$i.log" | awk '/^    ours  +[0-9]/{print $2, "GFLOP/s median", $5, "ms, device", $12, "ms"}')
    printf '%-60s %s\n' "$v" "$line"
  done
done | tee "$OUT/variants.txt"
