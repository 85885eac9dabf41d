set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-T0 ))s"
L=/tmp/gpuenv/usr/lib/x86_64-linux-gnu
np() { env LD_LIBRARY_PATH=build-wt/blas:$L/lapack:$L/openblas-pthread:$LD_LIBRARY_PATH python3-debian .scratch/npd.py "$@"; }
mkdir -p $OUT/tr
for cfg in auto:X=1 onetile:CLHGEMM_TILE=8192,8192,1024,stream; do
  name=${cfg%%:*}; e=${cfg#*:}
  for m in freshnc reused; do
    ( export $e CLHGEMM_VERBOSE=1 CLHGEMM_TRACE=$OUT/tr/$name-$m.json; np 8192 tr-$name-$m d $m 2 2> $OUT/tr/$name-$m.verbose )
    grep -E "plan dgemm m=8192 n=8192" $OUT/tr/$name-$m.verbose | tail -1
    python3 bench/trace_summary.py $OUT/tr/$name-$m.json > $OUT/tr/$name-$m.txt 2>&1
    head -2 $OUT/tr/$name-$m.txt | tail -1; grep "idle" $OUT/tr/$name-$m.txt
  done
done
(cd $OUT && tar czf tr.tgz tr && rm -rf tr)
echo "elapsed $(( $(date +%s)-T0 ))s"
