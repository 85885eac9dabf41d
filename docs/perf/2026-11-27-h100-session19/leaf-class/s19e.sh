# s19e.sh -- session 19, lease 5 (experiment, not committed code): TRSM's leaves forced onto one
# class (X_L3_CLASS in the scratch tree .scratch/ab-x: beta-0 level-3 calls only), and the
# block order 256 against 512 at small sizes, on the working tree's rule otherwise.
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/e
SRC=.scratch/ab-x BUILD_DIR=build-x OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/e/build.log 2>&1; el "build rc=$?"
B=build-x/bench/clhgemm-bench-level3
run() { # name, env...
  local n=$1; shift
  env "$@" timeout 80 $B --routines trsm --sizes 1024,2048,4096,8192 --precision both --reps 5 --warmup 1 --no-clblast --no-cublas > $OUT/e/t-$n.log 2>&1
  el "$n rc=$? $(sed -n '/^routine/,$p' $OUT/e/t-$n.log | awk 'NR>1{printf "%s%s %s|", $2, $3, $4}')"
}
run auto X=1
run small X_L3_CLASS=small
run medium X_L3_CLASS=medium
run large X_L3_CLASS=large
run wide X_L3_CLASS=wide
run nb256 CLHGEMM_TRSM_NB=256
run auto2 X=1
el done
