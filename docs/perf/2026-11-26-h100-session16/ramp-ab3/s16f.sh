# s16f.sh -- session 16: the A/B harness again (s16d's lease was noisy): 20d6f6d against the
# working tree, device-routed host calls 1024..8192, three rounds alternated.
set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
AB_PARTS="midhost" AB_MID_SIZES=1024,2048,4096,8192 AB_ROUNDS=3 \
  OUT=$OUT/ab timeout 500 bash bench/gpu_record.sh ab .scratch/ab-20d6f6d > $OUT/ab.log 2>&1
echo "ab rc=$?"
cat $OUT/ab/ab/summary.txt
cd $OUT/ab/ab && for f in midhost-*.log; do { grep -E ": ours" $f; } > $f.t && mv $f.t $f; done; rm -f *.smi.csv build-*.log
