# s21h.sh -- session 21, lease 7: host TRSM n = 16384 (the record lease gave s 73% / d 67%, against
# 78-79% / 72% in session 20) on e6cfce9 against 336ca78 (.scratch/ab-head), two rounds
# alternated; the FP32 small squares again (512^3 ran 0.98x CLBlast in the record sweep).
set -u
export JOBS=16
T0=$(date +%s)
el() { echo "[$(( $(date +%s)-T0 ))s] $*"; }
mkdir -p $OUT/h
SRC=. BUILD_DIR=build-wt OUT=/tmp/gr bash bench/gpu_record.sh build > /tmp/h-build-wt.log 2>&1; el "build wt rc=$?"
SRC=.scratch/ab-head BUILD_DIR=build-head OUT=/tmp/gr2 bash bench/gpu_record.sh build > /tmp/h-build-head.log 2>&1; el "build head rc=$?"
for r in 1 2; do for t in head wt; do
  timeout 120 build-$t/bench/clhgemm-bench-level3 --host --routines trsm --sizes 16384 --precision both --reps 2 --warmup 1 --no-xt > /tmp/h-host-$t-$r.log 2>&1
  el "host trsm $t r$r rc=$? $(sed -n '/^routine/,$p' /tmp/h-host-$t-$r.log | awk 'NR>1{printf "%s%s%s %s %s %s|", $1, $2, $3, $4, $7, $8}')"
done; done
timeout 100 build-wt/bench/clhgemm-bench-gemm --precision s --sizes 256,512,1000,1024 --shapes none --reps 10 --warmup 2 > /tmp/h-small-s.log 2>&1; el "small s rc=$?"
sed -n '/^m x n x k/,$p' /tmp/h-small-s.log | head -6
tar -C /tmp -czf $OUT/h/s21h.tgz $(cd /tmp && ls h-*.log)
el done
