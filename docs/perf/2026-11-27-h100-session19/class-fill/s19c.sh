# s19c.sh -- session 19, lease 3: the level-3 class choice by wave fill (working tree): GPU
# tests, level-3 bench against HEAD (build-old, kept from s19b if warm, else rebuilt), SGEMM NT
# with B read in place or packed, TRSM with CLBlast and cuBLAS.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/c
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/c/build-new.log 2>&1; el "build new rc=$?"
[ -x build-old/bench/clhgemm-bench-level3 ] || { SRC=.scratch/ab-old BUILD_DIR=build-old OUT=/tmp/gr2 bash bench/gpu_record.sh build > $OUT/c/build-old.log 2>&1; el "build old rc=$?"; }
(cd build-wt && timeout 200 ctest -j4 --timeout 150 -R "test_level3|test_trsm_cl|test_mma|test_trsm_host_d$" > $OUT/c/ctest.log 2>&1); el "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*|Not Run|Timeout" $OUT/c/ctest.log | head
for t in wt old; do
  timeout 150 build-$t/bench/clhgemm-bench-level3 --routines symm,syrk,syr2k,trmm,trsm --syr2k lib --sizes 1024,2048,4096,8192 --precision both --reps 5 --warmup 1 --no-clblast --no-cublas > $OUT/c/l3-$t.log 2>&1
  el "$t rc=$?"
done
for v in auto ac; do
  d=$v; [ $v = ac ] && d=a,c
  CLHGEMM_DIRECT=$d timeout 90 build-wt/bench/clhgemm-bench-gemm --precision s --sizes 1024,2048,4096,8192 --trans NT --reps 10 --no-cublas --no-clblast > $OUT/c/nt-$v.log 2>&1
  el "nt $v rc=$? $(grep -E '^ *[0-9]+x' $OUT/c/nt-$v.log | awk '{printf "%s %s|", $1, $4}')"
done
timeout 150 build-wt/bench/clhgemm-bench-level3 --routines trsm --sizes 1024,4096,8192 --precision both --reps 5 > $OUT/c/trsm-rec.log 2>&1
el "trsm rec rc=$?"; sed -n '/^routine/,$p' $OUT/c/trsm-rec.log | cut -c1-200
for t in wt old; do echo "== $t"; sed -n '/^routine/,$p' $OUT/c/l3-$t.log | awk '{print $1,$2,$3,$4,$7}' | head -42; done
el done
