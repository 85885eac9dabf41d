# s19d.sh -- session 19, lease 4: the committed tree (level-3 class by wave fill, SGEMM NT's B
# packed from 1024^3 up): SGEMM NT with CLBlast and cuBLAS, SYRK/SYR2K beside the NT GEMM, host
# TRSM 16384 with cublasXt (the strips' device solves run the leaves' new tiles).
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/d
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > $OUT/d/build.log 2>&1; el "build rc=$?"
timeout 90 build-wt/bench/clhgemm-bench-gemm --precision s --sizes 1024,2048,4096,8192 --trans NT --reps 10 > $OUT/d/nt.log 2>&1
el "nt rc=$?"; grep -E '^ *[0-9]+x' $OUT/d/nt.log
timeout 90 build-wt/bench/clhgemm-bench-level3 --routines syrk,syr2k --syr2k lib --sizes 4096,8192 --precision s --reps 5 > $OUT/d/syrk.log 2>&1
el "syrk rc=$?"; sed -n '/^routine/,$p' $OUT/d/syrk.log | cut -c1-120
timeout 300 build-wt/bench/clhgemm-bench-level3 --host --routines trsm --sizes 16384 --precision both --reps 2 --warmup 1 > $OUT/d/host-trsm.log 2>&1
el "host rc=$?"; sed -n '/^routine/,$p' $OUT/d/host-trsm.log | cut -c1-200
el done
