# s19b.sh -- session 19, lease 2: level-3 routines on their shape's class (working tree) against
# HEAD's main parameters: GPU tests of the new tree, then the level-3 bench A/B, alternated.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/b
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/b/build-new.log 2>&1; el "build new rc=$?"
SRC=.scratch/ab-old BUILD_DIR=build-old OUT=/tmp/gr2 bash bench/gpu_record.sh build > $OUT/b/build-old.log 2>&1; el "build old rc=$?"
(cd build-wt && timeout 200 ctest -j4 --timeout 150 -R "test_level3|test_trsm_cl|test_mma" > $OUT/b/ctest.log 2>&1); el "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*|Not Run|Timeout" $OUT/b/ctest.log | head
for r in 1 2; do
for t in old wt; do
  B=build-$t/bench/clhgemm-bench-level3
  [ $t = old ] && B=build-old/bench/clhgemm-bench-level3
  timeout 150 $B --routines symm,syrk,trmm,trsm --sizes 1024,2048,4096,8192 --precision both --reps 5 --warmup 1 --no-clblast --no-cublas > $OUT/b/l3-$t-$r.log 2>&1
  el "$t $r rc=$?"
done
done
for t in old wt; do echo "== $t"; sed -n '/^routine/,$p' $OUT/b/l3-$t-1.log | awk '{print $1,$2,$3,$4,$6,$7}' | head -40; done
el done
