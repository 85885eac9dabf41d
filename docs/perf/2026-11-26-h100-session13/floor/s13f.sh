set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-T0 ))s"
V=$(dirname $(find build-wt -name clhgemm_version.h | head -1))
gcc -O2 -Iinclude -I$V .scratch/floor.c -Lbuild-wt -lclhgemm -lOpenCL -Wl,-rpath,$PWD/build-wt -o /tmp/floor 2>&1 | head -5
/tmp/floor 2>&1 | tee $OUT/floor.txt
cmake --build build-wt --target clprof -j16 > /dev/null 2>&1
build-wt/bench/clhgemm-bench-gemm --sizes 256,512 --precision both --reps 50 --warmup 5 --csv $OUT/small.csv > $OUT/small.log 2>&1; grep -E "^ *[0-9]+ " $OUT/small.log | tail -8
LD_PRELOAD=build-wt/bench/libclprof.so CLPROF_FROM=10 CLPROF_OUT=$OUT/clprof.txt build-wt/bench/clhgemm-bench-gemm --sizes 256 --precision d --reps 50 --warmup 5 --no-clblast --no-cublas > /dev/null 2>&1; head -20 $OUT/clprof.txt
echo "elapsed $(( $(date +%s)-T0 ))s"
