# ptx.sh CACHE OUTFILE -- ptxas -v (sm_90) of every GEMM kernel in a program cache
cache=$1; out=$2
ptxas=$(command -v ptxas || echo "${CUDA_ROOT:-/usr/local/cuda}/bin/ptxas")
[ -x "$ptxas" ] || { echo "no ptxas" > $out; exit 0; }
for f in "$cache"/*; do
  python3 - "$f" /tmp/k.ptx <<'PY' || continue
import struct, sys
b = open(sys.argv[1], 'rb').read()
kl, bl = struct.unpack('<QQ', b[8:24])
key = b[32:32 + kl].decode('latin1'); ptx = b[32 + kl:32 + kl + bl]
if b'.entry clhgemm_gemm' not in ptx: sys.exit(1)
defs = {}
for l in key.splitlines():
    w = l.split()
    if len(w) >= 3 and w[0] == '#define' and w[1] in ('PRECISION', 'MWG', 'NWG', 'MMA', 'DIRECT_A', 'DIRECT_B', 'DIRECT_C', 'KLIMIT', 'PF2', 'SPLITK'):
        defs.setdefault(w[1], w[2])
print(','.join(k + '=' + v for k, v in defs.items()), end=' ')
open(sys.argv[2], 'wb').write(ptx.rstrip(b'\0'))
PY
  echo "$("$ptxas" -arch=sm_90 -v /tmp/k.ptx -o /tmp/k.cubin 2>&1 | grep -o 'Used [0-9]* registers\|[0-9]* bytes spill stores' | tr '\n' ' ')"
done | sort -u > $out
