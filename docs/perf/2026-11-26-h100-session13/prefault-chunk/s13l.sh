set -u
export JOBS=16
T0=$(date +%s)
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-T0 ))s"
L=/tmp/gpuenv/usr/lib/x86_64-linux-gnu
np() { env LD_LIBRARY_PATH=build-wt/blas:$L/lapack:$L/openblas-pthread:$LD_LIBRARY_PATH python3-debian .scratch/npd.py "$@"; }
run() { ( export CLHGEMM_PREFAULT=$1 CLHGEMM_PREFAULT_THREADS=$2; np 8192 $1-$2 d freshnc 5 ); }
for order in "auto:4 touch:4 touch:8 auto:8" "touch:8 auto:4 touch:4 touch:16" "touch:4 touch:16 auto:4 touch:8"; do
  for v in $order; do run ${v%%:*} ${v#*:}; done
done 2>&1 | tee $OUT/touch.txt
( export CLHGEMM_PREFAULT=touch; np 8192 touch-check d fresh,reused 3 ) 2>&1 | tee -a $OUT/touch.txt
echo "elapsed $(( $(date +%s)-T0 ))s"
