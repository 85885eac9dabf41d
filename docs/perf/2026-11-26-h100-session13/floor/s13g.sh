set -u
export JOBS=16 SRC=. BUILD_DIR=build-wt
T0=$(date +%s)
OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-T0 ))s"
V=$(dirname $(find build-wt -name clhgemm_version.h | head -1))
gcc -O2 -shared -fPIC .scratch/apitime.c -o /tmp/libapitime.so -ldl
gcc -O2 -Iinclude -I$V .scratch/one.c -Lbuild-wt -lclhgemm -lOpenCL -Wl,-rpath,$PWD/build-wt -o /tmp/one
for cfg in "d 256 0" "d 256 0.5" "s 256 0" "d 512 0.5" "d 1024 0.5"; do
  /tmp/one $cfg 2000 2>&1 | tail -1
  LD_PRELOAD=/tmp/libapitime.so /tmp/one $cfg 2000 2>&1 | sort -k5 -n -r | head -9
done 2>&1 | tee $OUT/apitime.txt
echo "elapsed $(( $(date +%s)-T0 ))s"
