set -u
export SRC=. BUILD_DIR=build-wt JOBS=16
T0=$(date +%s)
OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-T0 ))s"
{ for f in /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag /sys/kernel/mm/transparent_hugepage/khugepaged/defrag; do echo "$f: $(cat $f)"; done; nproc; lscpu | grep -E "Model name|Socket|NUMA|Thread|L3"; free -g; } > $OUT/host.txt 2>&1
cat $OUT/host.txt
L=/tmp/gpuenv/usr/lib/x86_64-linux-gnu
NP="env LD_LIBRARY_PATH=build-wt/blas:$L/lapack:$L/openblas-pthread:$LD_LIBRARY_PATH python3-debian .scratch/npd.py"
mkdir -p $OUT/tr
for r in 1 2; do
  $NP 8192 default-$r d
  CLHGEMM_TILE=8192,2048,1024,resident $NP 8192 res2048-$r d
  CLHGEMM_TILE=8192,4096,1024,resident $NP 8192 res4096-$r d
  CLHGEMM_PREFAULT=off $NP 8192 pfoff-$r d fresh
done
CLHGEMM_VERBOSE=1 $NP 8192 verbose d fresh 2 > $OUT/verbose-default.log 2>&1
CLHGEMM_VERBOSE=1 CLHGEMM_TILE=8192,2048,1024,resident $NP 8192 verbose-res d fresh 2 > $OUT/verbose-res.log 2>&1
for cfg in default:- res2048:CLHGEMM_TILE=8192,2048,1024,resident; do
  name=${cfg%%:*}; e=${cfg#*:}; [ "$e" = "-" ] && e=X=1
  for m in fresh reused; do
    env $e CLHGEMM_TRACE=$OUT/tr/$name-$m.json $NP 8192 tr-$name-$m d $m 2
    python3 bench/trace_summary.py $OUT/tr/$name-$m.json > $OUT/tr/$name-$m.txt 2>&1
  done
done
for f in $OUT/tr/*.txt; do echo "== $f"; head -30 $f; done
(cd $OUT && tar czf tr.tgz tr && rm -rf tr)
echo "elapsed $(( $(date +%s)-T0 ))s"
CLHGEMM_TINY=off timeout 60 build-wt/bench/clhgemm-bench-smallcall --sizes 16,32 2>&1 | tail -8
