set -u
export JOBS=16
T0=$(date +%s)
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-T0 ))s"
L=/tmp/gpuenv/usr/lib/x86_64-linux-gnu
np() { env LD_LIBRARY_PATH=build-wt/blas:$L/lapack:$L/openblas-pthread:$LD_LIBRARY_PATH python3-debian .scratch/npd.py "$@"; }
for order in "4 2 6 8" "8 4 2 6" "6 8 4 2" "2 6 8 4"; do
  for t in $order; do ( export CLHGEMM_PREFAULT_THREADS=$t; np 8192 pft$t d freshnc 5 ); done
done 2>&1 | tee $OUT/threads.txt
echo "elapsed $(( $(date +%s)-T0 ))s"
