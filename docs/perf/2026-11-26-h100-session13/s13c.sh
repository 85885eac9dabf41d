set -u
export JOBS=16
T0=$(date +%s)
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build new rc=$? $(( $(date +%s)-T0 ))s"
SRC=.scratch/ab-base BUILD_DIR=build-ab OUT=/tmp/gr2 bash bench/gpu_record.sh build > $OUT/build-ab.log 2>&1; echo "build base rc=$? $(( $(date +%s)-T0 ))s"
L=/tmp/gpuenv/usr/lib/x86_64-linux-gnu
np() { env LD_LIBRARY_PATH=$1/blas:$L/lapack:$L/openblas-pthread:$LD_LIBRARY_PATH python3-debian .scratch/npd.py "${@:2}"; }
for r in 1 2; do
  for v in base new; do
    B=build-wt; [ $v = base ] && B=build-ab
    np $B 8192 $v-$r d fresh,reused 5
    np $B 8192 $v-$r s fresh,reused 5
    np $B 4096 $v-$r d fresh,reused 7
    $B/bench/clhgemm-bench-host --sizes 2048,4096,8192 --precision both --reps 5 --warmup 1 --no-device-only --no-naive --no-xt > $OUT/bh-$v-$r.log 2>&1
    grep -E "^ +[0-9]+ +[sd] " $OUT/bh-$v-$r.log | awk -v t="$v-$r" '{print "bh", t, $1, $2, $3}'
  done
done
echo "elapsed $(( $(date +%s)-T0 ))s"
CLHGEMM_VERBOSE=2 np build-wt 8192 verbose d reused 1 > $OUT/verbose-new.log 2>&1; grep -E "plan|last k slice|pieces" $OUT/verbose-new.log | head -5
mkdir -p $OUT/tr
CLHGEMM_TRACE=$OUT/tr/new-reused.json np build-wt 8192 tr-new d reused 2
CLHGEMM_TRACE=$OUT/tr/base-reused.json np build-ab 8192 tr-base d reused 2
for f in $OUT/tr/*.json; do python3 bench/trace_summary.py $f > ${f%.json}.txt 2>&1; head -4 ${f%.json}.txt; grep "idle" ${f%.json}.txt; done
(cd $OUT && tar czf tr.tgz tr && rm -rf tr)
echo "elapsed $(( $(date +%s)-T0 ))s"
