set -u
export JOBS=16
T0=$(date +%s)
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-T0 ))s"
for c in 2 32; do mkdir -p /tmp/pf$c && cp -r CMakeLists.txt cmake src cl include tuning tests bench tools examples docs README.md /tmp/pf$c/ && sed -i "s/#define PF_CHUNK (8ull << 20)/#define PF_CHUNK (${c}ull << 20)/" /tmp/pf$c/src/host/prefault.c && grep -c "PF_CHUNK (${c}ull" /tmp/pf$c/src/host/prefault.c; SRC=/tmp/pf$c BUILD_DIR=build-pf$c OUT=/tmp/gr$c bash bench/gpu_record.sh build > $OUT/build-pf$c.log 2>&1; echo "build pf$c rc=$? $(( $(date +%s)-T0 ))s"; done
L=/tmp/gpuenv/usr/lib/x86_64-linux-gnu
np() { B=$1; shift; env LD_LIBRARY_PATH=$B/blas:$L/lapack:$L/openblas-pthread:$LD_LIBRARY_PATH python3-debian .scratch/npd.py "$@"; }
for r in 1 2; do
  for v in wt pf2 pf32; do
    B=build-$v
    np $B 8192 $v-$r d freshnc,reused 5
  done
  ( export CLHGEMM_PREFAULT=off; np build-wt 8192 pfoff-$r d freshnc 5 )
done
echo "elapsed $(( $(date +%s)-T0 ))s"
