#!/usr/bin/env bash
# bench/ptxas_cache.sh -- on the GPU machine: for every GEMM kernel the driver has cached in
# $CLHGEMM_CACHE_DIR, its parameters, the count of ld.global.nc / mma.sync / ld.shared.v2 /
# ld.global.nc.v2 in the PTX, and ptxas -v for sm_90 (registers, spill bytes); one line each,
# sorted, to stdout. Used by bench/gpu_direct.sh.
PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
for f in "$CLHGEMM_CACHE_DIR"/*; do
  [ -f "$f" ] || continue
  # the cache file holds the key (source + options) then the driver's binary (PTX text)
  python3 - "$f" /tmp/k.ptx <<'PY' || continue
import sys, struct
b = open(sys.argv[1], 'rb').read()
kl, bl = struct.unpack('<QQ', b[8:24])
key = b[32:32 + kl].decode('latin1'); ptx = b[32 + kl:32 + kl + bl]
if b'.entry clhgemm_gemm' not in ptx: sys.exit(1)
defs = {}
for l in key.splitlines():  # the prepended defines come first; the file's own defaults after
    w = l.split()
    if len(w) >= 3 and w[0] == '#define' and w[1] in ('PRECISION', 'MWG', 'NWG', 'KWG', 'MMA', 'WM', 'ASYNC',
            'DIRECT_A', 'DIRECT_B', 'DIRECT_C', 'TRIANGLE', 'KLIMIT', 'VWM', 'VWN', 'KWI', 'SA', 'SB',
            'SWZ', 'TF32'):
        defs.setdefault(w[1], w[2])
print(','.join(k + '=' + v for k, v in defs.items()), end=' ')
open(sys.argv[2], 'wb').write(ptx.rstrip(b'\0'))
PY
  echo "nc=$(grep -c 'ld.global.nc' /tmp/k.ptx) nc2=$(grep -c 'ld.global.nc.v2' /tmp/k.ptx)" \
       "lds2=$(grep -c 'ld.shared.v2' /tmp/k.ptx) mma=$(grep -c 'mma.sync' /tmp/k.ptx)" \
       "$($PTXAS -arch=sm_90 -v /tmp/k.ptx -o /tmp/k.cubin 2>&1 | grep -o 'Used [0-9]* registers.*\|[0-9]* bytes spill stores' | tr '\n' ' ')"
done | sort | uniq
