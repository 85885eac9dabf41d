# bench/gpu_smi.sh -- sourced by the GPU scripts (bench/gpu_variants.sh, bench/gpu_ceiling.sh): reads
# the GPU's SM clock and power while commands run, and what each command window saw. Read only:
# nvidia-smi --query-gpu, never a setting.
#   smi_start DIR          sample every 100 ms into DIR/smi.csv (DIR/windows.txt collects windows)
#   smi_window NAME CMD..  run CMD, record NAME and its start/end time; the command's stdout is
#                          appended to the window line (keep it to one short line)
#   smi_stop               stop sampling
#   smi_summary            per window: the command's output, mean SM MHz and W over the busy
#                          samples (> 150 W) and the throttle-reason masks seen
smi_start() {
  SMI_DIR=$1; : >"$SMI_DIR/windows.txt"
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
    --format=csv,noheader,nounits -lms 100 >"$SMI_DIR/smi.csv" 2>&1 &
  SMI_PID=$!
}
smi_window() {
  local name=$1 t0 t1 out; shift
  t0=$(date +%s.%N); out=$("$@"); t1=$(date +%s.%N)
  echo "$name $t0 $t1 $out" >>"$SMI_DIR/windows.txt"
}
smi_stop() { kill "$SMI_PID" 2>/dev/null; wait "$SMI_PID" 2>/dev/null; }
smi_summary() {
  python3 - "$SMI_DIR/windows.txt" "$SMI_DIR/smi.csv" <<'PY'
import sys, datetime
wins = [l.split() for l in open(sys.argv[1]) if l.strip()]
smi = []
for l in open(sys.argv[2]):
    f = [x.strip() for x in l.split(',')]
    try:
        t = datetime.datetime.strptime(f[0], '%Y/%m/%d %H:%M:%S.%f').timestamp()
        smi.append((t, float(f[1]), float(f[3]), f[5] if len(f) > 5 else ''))
    except Exception:
        pass
print('%-62s %9s %8s %8s %7s %7s %s' % ('window', 'GFLOP/s', 'call ms', 'dev ms', 'MHz', 'W', 'reasons'))
for w in wins:
    t0, t1 = float(w[1]), float(w[2])
    s = [x for x in smi if t0 <= x[0] <= t1 and x[2] > 150]  # busy samples only
    mhz = sum(x[1] for x in s) / len(s) if s else 0
    pw = sum(x[2] for x in s) / len(s) if s else 0
    rs = sorted(set(x[3] for x in s))
    rest = w[3:] + [''] * 3
    print('%-62s %9s %8s %8s %7.0f %7.0f %s' % (w[0][:62], rest[0], rest[1], rest[2], mhz, pw, ','.join(rs)[:40]))
PY
}
