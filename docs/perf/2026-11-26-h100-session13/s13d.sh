set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
OUT=$OUT/rec SWEEP_REPS=5 bash bench/gpu_record.sh build sweep pack > $OUT/rec.log 2>&1; echo "rc=$? $(( $(date +%s)-T0 ))s"
tail -45 $OUT/rec/sweep/summary.txt 2>/dev/null || tail -30 $OUT/rec.log
