#!/usr/bin/env bash
# bench/gpu_tf32.sh -- on the GPU machine (issue 7): build with tests; the NVIDIA test group
# (test_mma proves the TF32 fragment mapping and error bounds, test_gemm_{tf32,3xtf32}_s run the
# GEMM table through the opt-in); a sweep of TF32 / 3xTF32 tile geometries and of work-group
# rasterisation widths (SWZ) for the shipped DGEMM and SGEMM entries (ours only, device time,
# interleaved rounds); then the opt-in next to CLBlast and cuBLAS in the same run (cuBLAS in TF32
# math for tf32, in FP32 for 3xtf32), and the IEEE default.
#   OUT=dir [N=8192] [ROUNDS=2] [SWEEP=1] [TG="T1 T2 T3 T4"] [SWZ_SWEEP=1] [TRACE=0] bash bench/gpu_tf32.sh
# TRACE=1 adds a Chrome trace (gzipped, raw) of one host-resident DGEMM at n = 32768; HOSTAB=1
# before it, host-resident DGEMM at n = 32768 with the next band's A prefetch spread over the
# whole band (default) and half a tile early (CLHGEMM_PREFETCH_EARLY=1), interleaved A/B/A.
# BETA0=1: device-buffer GEMM with beta = 0 (C never read) for the tensor-core kernels (DGEMM,
# 3xTF32) with the kernel writing C itself (CLHGEMM_DIRECT=c) against the write-back (off),
# interleaved. HOSTS=1: host-resident SGEMM n = 32768 from pageable memory, IEEE then 3xTF32.
# Everything under $OUT is packed into $OUT/all.tgz at the end (the device tool returns few files).
OUT=${OUT:-./out}; mkdir -p "$OUT"
GPU_TESTS=ON . bench/gpu_build.sh
N=${N:-8192}
echo "== tests (nvidia group; test_mma's output kept)"
(cd build-gpu && timeout 240 ctest -L nvidia -j2 --output-on-failure >"$OUT/ctest-nvidia.log" 2>&1
 tail -3 "$OUT/ctest-nvidia.log" | head -1; grep -h "FAIL\|Failed" "$OUT/ctest-nvidia.log" | head -8)
timeout 60 build-gpu/tests/test_mma >"$OUT/test_mma.log" 2>&1; grep "tf32 / 3xtf32\|available" "$OUT/test_mma.log"
# the shipped H100 entries (tuning/nvidia-h100.json)
D="MWG=128,NWG=192,KWG=8,MDIMC=16,NDIMC=16,VWM=2,VWN=2,SA=1,SB=1,KWI=8,MMA=2,WM=2"
S="MWG=128,NWG=256,KWG=16,MDIMC=16,NDIMC=16,VWM=4,VWN=4,SA=1,SB=1,KWI=16"
T1="MWG=128,NWG=128,KWG=16,MDIMC=16,NDIMC=16,VWM=4,VWN=4,SA=1,SB=1,KWI=16,MMA=3,WM=2"
T2="MWG=128,NWG=256,KWG=8,MDIMC=16,NDIMC=16,VWM=4,VWN=4,SA=1,SB=1,KWI=8,MMA=3,WM=2"
T3="MWG=256,NWG=128,KWG=8,MDIMC=16,NDIMC=16,VWM=4,VWN=4,SA=1,SB=1,KWI=8,MMA=3,WM=4"
T4="MWG=64,NWG=128,KWG=16,MDIMC=16,NDIMC=8,VWM=4,VWN=4,SA=1,SB=1,KWI=16,MMA=3,WM=2"
T5="MWG=64,NWG=256,KWG=16,MDIMC=16,NDIMC=8,VWM=4,VWN=4,SA=1,SB=1,KWI=16,MMA=3,WM=1"
T6="MWG=128,NWG=128,KWG=16,MDIMC=16,NDIMC=8,VWM=4,VWN=4,SA=1,SB=1,KWI=16,MMA=3,WM=2"
T7="MWG=64,NWG=64,KWG=32,MDIMC=16,NDIMC=8,VWM=4,VWN=4,SA=1,SB=1,KWI=32,MMA=3,WM=2"
T8="MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,VWM=4,VWN=4,SA=1,SB=1,KWI=8,MMA=3,WM=2"
T9="MWG=128,NWG=256,KWG=8,MDIMC=16,NDIMC=16,VWM=4,VWN=4,SA=1,SB=1,KWI=8,MMA=3,WM=4"
T10="MWG=256,NWG=128,KWG=8,MDIMC=16,NDIMC=16,VWM=4,VWN=4,SA=1,SB=1,KWI=8,MMA=3,WM=2"
one() { # env... -> "GFLOP/s device-ms"
  env "$@" build-gpu/bench/clhgemm-bench-gemm --precision "$P" --sizes "$N" --shapes none --reps 10 \
    --warmup 2 --no-clblast --no-cublas --profile 2>&1 | tee -a "$OUT/sweep.log" |
    awk '/^    ours  +[0-9]/{print $2, $12}'
}
if [ "${SWEEP:-1}" = 1 ]; then
  echo "== sweep n=$N (GFLOP/s, device ms)"
  for r in $(seq "${ROUNDS:-2}"); do
    P=s; for t in 1 3; do for g in ${TG:-T1 T2 T3 T4}; do
      printf 's TF32=%d %-3s %s\n' $t $g "$(one CLHGEMM_SGEMM_PARAMS="${!g},TF32=$t")"; done; done
    if [ "${SWZ_SWEEP:-1}" = 1 ]; then
      printf 's TF32=3 T1,SWZ=8 %s\n' "$(one CLHGEMM_SGEMM_PARAMS="$T1,TF32=3,SWZ=8")"
      for z in 0 4 8 16; do printf 's FMA SWZ=%-2d %s\n' $z "$(one CLHGEMM_SGEMM_PARAMS="$S,SWZ=$z")"; done
      P=d; for z in 0 4 8 16; do printf 'd MMA SWZ=%-2d %s\n' $z "$(one CLHGEMM_DGEMM_PARAMS="$D,SWZ=$z")"; done
    fi
  done | tee "$OUT/sweep.txt"
fi
echo "== with CLBlast and cuBLAS, same run"
for m in tf32 3xtf32; do
  CLHGEMM_SGEMM_MATH=$m timeout 120 build-gpu/bench/clhgemm-bench-gemm --precision s --sizes "$N" --shapes none \
    --reps 10 --warmup 2 --csv "$OUT/bench-$m.csv" >"$OUT/bench-$m.log" 2>&1
  echo "-- $m"; grep -E "^params s|^cuBLAS|^    (ours|clblast|cublas) " "$OUT/bench-$m.log" | head -6
done
timeout 150 build-gpu/bench/clhgemm-bench-gemm --precision both --sizes "$N" --shapes none --reps 10 \
  --warmup 2 --csv "$OUT/bench-ieee.csv" >"$OUT/bench-ieee.log" 2>&1
echo "-- ieee (default)"; grep -E "^params|^    (ours|clblast|cublas) " "$OUT/bench-ieee.log" | head -8
if [ "${BETA0:-0}" = 1 ]; then
  echo "== beta 0: CLHGEMM_DIRECT off / c (GFLOP/s, device ms; ours only)"
  for r in 1 2; do for pm in "d -" "s CLHGEMM_SGEMM_MATH=3xtf32" "s -"; do for dm in off c; do
    set -- $pm; P=$1; e=$2; [ "$e" = - ] && e=CLHGEMM_UNSET_=1
    printf '%s %-28s DIRECT=%-3s %s\n' "$P" "$e" "$dm" "$(env $e CLHGEMM_DIRECT=$dm build-gpu/bench/clhgemm-bench-gemm \
      --precision "$P" --sizes "$N" --shapes none --reps 10 --warmup 2 --no-clblast --no-cublas --profile \
      --beta 0 2>&1 | tee -a "$OUT/beta0.log" | awk '/^    ours  +[0-9]/{print $2, $12}')"
  done; done; done | tee "$OUT/beta0.txt"
fi
if [ "${HOSTS:-0}" = 1 ]; then
  echo "== host-resident SGEMM n=32768, pageable: IEEE / 3xTF32"
  for m in ieee 3xtf32; do
    CLHGEMM_SGEMM_MATH=$m CLHGEMM_VERBOSE=1 timeout 150 build-gpu/bench/clhgemm-bench-host --sizes 32768 \
      --precision s --reps 3 --no-xt --no-naive >"$OUT/host-s-$m.log" 2>&1
    printf '%-7s %s | %s\n' $m "$(grep -E '^  n=32768 s: ours' "$OUT/host-s-$m.log" | tail -1)" \
      "$(grep -E 'device-only' "$OUT/host-s-$m.log" | grep -v column | tail -1)"
  done | tee "$OUT/host-s.txt"
fi
if [ "${HOSTAB:-0}" = 1 ]; then
  echo "== host-resident DGEMM n=32768, pageable: prefetch spread (default) / early / spread"
  i=0
  for e in - CLHGEMM_PREFETCH_EARLY=1 -; do
    i=$((i + 1)); extra=--no-device-only; [ $i = 1 ] && extra=
    env ${e/#-/CLHGEMM_UNSET_=1} CLHGEMM_VERBOSE=1 timeout 150 build-gpu/bench/clhgemm-bench-host --sizes 32768 \
      --precision d --reps 3 --no-xt --no-naive $extra >"$OUT/host-ab-$i.log" 2>&1
    printf '%-28s %s\n' "$e" "$(grep -E '^  n=32768 d: ours' "$OUT/host-ab-$i.log" | tail -1)"
    grep -E "device-only|dev-only" "$OUT/host-ab-$i.log" | tail -2
  done | tee "$OUT/host-ab.txt"
fi
if [ "${TRACE:-0}" = 1 ]; then
  echo "== trace: host-resident DGEMM n=32768 from pageable memory"
  CLHGEMM_VERBOSE=1 CLHGEMM_TRACE=/tmp/trace.json timeout 150 build-gpu/bench/clhgemm-bench-host --sizes 32768 \
    --precision d --reps 1 --warmup 1 --no-xt --no-naive --no-device-only --no-check >"$OUT/host-trace.log" 2>&1
  python3 bench/trace_summary.py /tmp/trace.json >"$OUT/trace.txt" 2>&1; head -28 "$OUT/trace.txt" | tail -6
  gzip -c /tmp/trace.json >"$OUT/trace.json.gz"; grep -i "plan\|GFLOP" "$OUT/host-trace.log" | tail -3
fi
mkdir -p /tmp/pack && mv "$OUT"/* /tmp/pack/ && tar czf "$OUT/all.tgz" -C /tmp/pack . && ls -la "$OUT"
