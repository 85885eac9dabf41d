#!/usr/bin/env bash
# amd_compile_check.sh -- every kernel that clhgemm can emit for a non-NVIDIA device must compile
# for AMD GPUs: CDNA2 (gfx90a) and RDNA2 (gfx1030) by default. Registers, scratch and spills are
# read from each object and reported (stdout table + CSV).
#
#   tools/amd_compile_check.sh --sources-tool build/tools/clhgemm-kernel-sources --out DIR
#                              [--jobs N] [--targets "gfx90a gfx1030"] [--tuner-gemm N]
#                              [--tuner-copy N] [--seed S]
#
# clhgemm-kernel-sources (tools/kernel_sources.c) writes the sources through the library's own
# selection and generation code; this script compiles each distinct one per target with
#   clang <library options> -cl-std=CL1.2 -target amdgcn-amd-amdhsa -mcpu=<target> -nogpulib
#         -Xclang -finclude-default-header -O3 -c -o x.o x.cl
# and reads the AMDGPU metadata note of x.o (llvm-readobj --notes: .vgpr_count, .sgpr_count,
# .private_segment_fixed_size, .vgpr_spill_count, .sgpr_spill_count, .group_segment_fixed_size)
# plus clang's kernel-resource-usage remark (AGPRs, occupancy in waves per SIMD) where clang has
# it (LLVM >= 15).
#
# Device library. With -nogpulib every OpenCL builtin (get_global_id, barrier, fma, ...) stays a
# call to an undefined function: the code compiles, but the backend then assumes the worst of
# each call (a 16 KiB stack, call-clobbered registers), so the counts say nothing about the
# kernel. When the ROCm device library (Debian: rocm-device-libs, bitcode for LLVM 15, hence
# clang-15) is found, -nogpulib is replaced by --rocm-device-lib-path=DIR, which links it as the
# AMD OpenCL runtime does, and the counts are the kernel's ("mode devlibs"). Without it the
# check still proves that everything compiles ("mode nogpulib") and reports no counts.
#
# Environment: CLANG, LLVM_READOBJ, AMD_DEVICE_LIBS (bitcode directory) override the search.
# CLHGEMM_AMD_CHECK=require (set by .ci/run) turns a missing toolchain or device library into a
# failure instead of a skip.
# Exit status: 0 all compiled; 1 a kernel failed to compile (compiler message shown) or another
# error; 77 no clang with the amdgcn target (skip).
set -euo pipefail

# ---- one compile (run in parallel through xargs) -------------------------------------------
if [ "${1:-}" = "--compile-one" ]; then
    target=$2 file=$3
    base=$(basename "$file" .cl)
    odir="$AMDCHK_OUT/obj/$target"
    obj="$odir/$base.o" log="$odir/$base.log" res="$odir/$base.res"
    opts=$(awk -F'\t' -v f="kernels/$base.cl" '$8 == f { print $7; exit }' "$AMDCHK_OUT/src/manifest.tsv")
    # shellcheck disable=SC2086 # options are a word list
    set -- $opts -cl-std=CL1.2 -target amdgcn-amd-amdhsa -mcpu="$target" $AMDCHK_LIBFLAG \
        -Xclang -finclude-default-header -O3 $AMDCHK_REMARK -c -o "$obj" "$file"
    t0=$(date +%s.%N)
    if "$AMDCHK_CLANG" "$@" >"$log" 2>&1; then
        status=ok
    else
        status=fail
    fi
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    vgpr=- sgpr=- scratch=- vspill=- sspill=- lds=- agpr=- occ=- warn=0
    if [ $status = ok ] && [ "$AMDCHK_MODE" = devlibs ]; then
        if [ -n "$AMDCHK_READOBJ" ]; then
            eval "$("$AMDCHK_READOBJ" --notes "$obj" | awk '
                /^ *\.vgpr_count:/ { print "vgpr=" $2 }
                /^ *\.sgpr_count:/ { print "sgpr=" $2 }
                /^ *\.private_segment_fixed_size:/ { print "scratch=" $2 }
                /^ *\.vgpr_spill_count:/ { print "vspill=" $2 }
                /^ *\.sgpr_spill_count:/ { print "sspill=" $2 }
                /^ *\.group_segment_fixed_size:/ { print "lds=" $2 }')"
        fi
        eval "$(sed -n 's/.*remark: *\(.*\) \[-Rpass-analysis=kernel-resource-usage\].*/\1/p' "$log" | awk -F': *' '
            $1 == "AGPRs" { print "agpr=" $2 }
            $1 == "Occupancy [waves/SIMD]" { print "occ=" $2 }
            $1 == "VGPRs" && v == "" { v = $2; print "rvgpr=" $2 }
            $1 == "SGPRs" { print "rsgpr=" $2 }
            $1 == "ScratchSize [bytes/lane]" { print "rscratch=" $2 }
            $1 == "VGPRs Spill" { print "rvspill=" $2 }
            $1 == "SGPRs Spill" { print "rsspill=" $2 }
            $1 == "LDS Size [bytes/block]" { print "rlds=" $2 }')"
        # without llvm-readobj, the remark's figures
        if [ -z "$AMDCHK_READOBJ" ]; then
            vgpr=${rvgpr:--} sgpr=${rsgpr:--} scratch=${rscratch:--} vspill=${rvspill:--}
            sspill=${rsspill:--} lds=${rlds:--}
        fi
    fi
    if [ $status = ok ] && grep -q "warning:" "$log"; then warn=1; fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "kernels/$base.cl" "$target" \
        "$status" "$vgpr" "$agpr" "$sgpr" "$scratch" "$vspill" "$sspill" "$lds" "$occ" "$secs" \
        "$warn" >"$res"
    [ $status = ok ] && rm -f "$obj"
    exit 0
fi

# ---- arguments -----------------------------------------------------------------------------
tool= out= jobs= targets="gfx90a gfx1030" tgemm=40 tcopy=12 seed=1
while [ $# -gt 0 ]; do
    case $1 in
    --sources-tool) tool=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --targets) targets=$2; shift 2 ;;
    --tuner-gemm) tgemm=$2; shift 2 ;;
    --tuner-copy) tcopy=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    *) echo "amd_compile_check: unknown argument $1" >&2; exit 1 ;;
    esac
done
if [ -z "$tool" ] || [ -z "$out" ]; then
    echo "usage: $0 --sources-tool PATH --out DIR [--jobs N] [--targets LIST] [--tuner-gemm N] [--tuner-copy N] [--seed S]" >&2
    exit 1
fi
[ -n "$jobs" ] || jobs=$(nproc 2>/dev/null || echo 2)
require=0
[ "${CLHGEMM_AMD_CHECK:-}" = require ] && require=1
skip() {
    if [ $require = 1 ]; then
        echo "amd_compile_check: FAILED: $* (CLHGEMM_AMD_CHECK=require)" >&2
        exit 1
    fi
    echo "amd_compile_check: SKIPPED: $*"
    exit 77
}

# ---- toolchain -----------------------------------------------------------------------------
probe_dir=$(mktemp -d)
trap 'rm -rf "$probe_dir"' EXIT
cat >"$probe_dir/p.cl" <<'EOF'
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void p(__global double *a) { a[get_global_id(0)] = fma(a[0], 2.0, 1.0); }
EOF
probe() { # clang, library flag
    "$1" -cl-std=CL1.2 -target amdgcn-amd-amdhsa -mcpu=gfx90a $2 -Xclang -finclude-default-header \
        -O3 -c -o "$probe_dir/p.o" "$probe_dir/p.cl" >"$probe_dir/log" 2>&1
}
libdirs=()
[ -n "${AMD_DEVICE_LIBS:-}" ] && libdirs+=("$AMD_DEVICE_LIBS")
for d in /usr/lib/x86_64-linux-gnu/amdgcn/bitcode /usr/lib/aarch64-linux-gnu/amdgcn/bitcode \
         /usr/lib/amdgcn/bitcode /opt/rocm/amdgcn/bitcode /opt/rocm/lib/llvm/lib/clang/*/lib/amdgcn/bitcode; do
    [ -d "$d" ] && libdirs+=("$d")
done
if [ -n "${CLANG:-}" ]; then
    candidates=("$CLANG")
else
    candidates=(clang-15 clang-16 clang-17 clang-18 clang-19 clang-20 clang clang-14)
fi
clang_amd= mode= libflag=
for c in "${candidates[@]}"; do
    command -v "$c" >/dev/null 2>&1 || continue
    probe "$c" -nogpulib || continue
    [ -n "$clang_amd" ] || clang_amd=$c
    for d in "${libdirs[@]}"; do
        if probe "$c" "--rocm-device-lib-path=$d"; then
            clang_amd=$c mode=devlibs libflag="--rocm-device-lib-path=$d"
            break 2
        fi
    done
done
[ -n "$clang_amd" ] || skip "no clang with the amdgcn target (install clang-15 llvm-15 rocm-device-libs)"
if [ -z "$mode" ]; then
    [ $require = 1 ] && skip "$clang_amd has the amdgcn target but no usable ROCm device library (rocm-device-libs, clang-15)"
    mode=nogpulib libflag=-nogpulib
fi
clang_path=$(command -v "$clang_amd")
clang_version=$("$clang_amd" --version | head -1)
readobj=${LLVM_READOBJ:-}
if [ -z "$readobj" ]; then
    ver=$(echo "$clang_amd" | sed -n 's/.*clang-\([0-9][0-9]*\)$/\1/p')
    for r in "$(dirname "$(readlink -f "$clang_path")")/llvm-readobj" ${ver:+llvm-readobj-$ver} llvm-readobj; do
        if command -v "$r" >/dev/null 2>&1; then readobj=$(command -v "$r"); break; fi
    done
fi
remark=
if "$clang_amd" -cl-std=CL1.2 -target amdgcn-amd-amdhsa -mcpu=gfx90a $libflag \
        -Xclang -finclude-default-header -O3 -c -o "$probe_dir/p.o" "$probe_dir/p.cl" \
        -Rpass-analysis=kernel-resource-usage 2>&1 | grep -q "Occupancy"; then
    remark=-Rpass-analysis=kernel-resource-usage
fi
if [ $mode = devlibs ] && [ -z "$readobj" ] && [ -z "$remark" ]; then
    skip "neither llvm-readobj nor clang's kernel-resource-usage remark: cannot read the counts"
fi
echo "== AMD compile check: $clang_version ($clang_path), mode $mode ($libflag)"
echo "   llvm-readobj: ${readobj:-none, counts from the remark}; targets: $targets; jobs: $jobs"

# ---- sources -------------------------------------------------------------------------------
rm -rf "$out"
mkdir -p "$out"
t_start=$(date +%s)
"$tool" --out "$out/src" --tuner-gemm "$tgemm" --tuner-copy "$tcopy" --seed "$seed"
manifest="$out/src/manifest.tsv"
for t in $targets; do mkdir -p "$out/obj/$t"; done

# ---- compile -------------------------------------------------------------------------------
export AMDCHK_OUT="$out" AMDCHK_CLANG="$clang_amd" AMDCHK_LIBFLAG="$libflag" AMDCHK_MODE="$mode"
export AMDCHK_READOBJ="$readobj" AMDCHK_REMARK="$remark"
nfiles=$(ls "$out/src/kernels" | wc -l)
echo "== compiling $nfiles distinct sources for: $targets"
for t in $targets; do
    for f in "$out"/src/kernels/*.cl; do printf '%s\n%s\n' "$t" "$f"; done
done | xargs -d '\n' -n 2 -P "$jobs" "$0" --compile-one
t_end=$(date +%s)
cat "$out"/obj/*/*.res >"$out/results.tsv"

# ---- report --------------------------------------------------------------------------------
csv="$out/amd_kernels.csv"
awk -F'\t' -v OFS=, -v csv="$csv" -v mode="$mode" '
    FNR == 1 { nf++ }
    nf == 1 { key = $1 SUBSEP $2; st[key] = $3; vg[key] = $4; ag[key] = $5; sg[key] = $6
              sc[key] = $7; vs[key] = $8; ss[key] = $9; ld[key] = $10; oc[key] = $11; wn[key] = $13
              tg[$2] = 1; next }
    FNR == 1 { print "variant,set,prec,program,params,target,status,vgpr,agpr,sgpr,scratch_bytes,vgpr_spill,sgpr_spill,lds_bytes,occupancy,file" > csv; next }
    { for (t in tg) { key = $8 SUBSEP t
          print $1, $2, $3, $4, "\"" $6 "\"", t, st[key], vg[key], ag[key], sg[key], sc[key], vs[key], ss[key], ld[key], oc[key], $8 > csv } }
' "$out/results.tsv" "$manifest"

# Failures first: the compiler's own message.
failed=$(awk -F'\t' '$3 != "ok"' "$out/results.tsv" | wc -l)
if [ "$failed" -gt 0 ]; then
    echo "== FAILED: $failed compiles"
    # the first ten in full, the rest by name
    awk -F'\t' '$3 != "ok" { print $2 "\t" $1 }' "$out/results.tsv" | sort | head -10 |
    while IFS=$'\t' read -r t f; do
        b=$(basename "$f" .cl)
        echo "---- $t $out/src/$f, used by:"
        awk -F'\t' -v f="$f" '$8 == f { print "     " $1 "  " $4 "  " $6 }' "$manifest" | head -5
        head -40 "$out/obj/$t/$b.log"
    done
    if [ "$failed" -gt 10 ]; then
        echo "---- and:"
        awk -F'\t' '$3 != "ok" { print "     " $2 " " $1 }' "$out/results.tsv" | sort | tail -n +11
    fi
fi
nwarn=$(awk -F'\t' '$13 == 1' "$out/results.tsv" | wc -l)
if [ "$nwarn" -gt 0 ]; then
    echo "== $nwarn compiles gave warnings, e.g.:"
    f=$(awk -F'\t' '$13 == 1 { print $2 "/" $1; exit }' "$out/results.tsv")
    grep -m5 "warning:" "$out/obj/$(dirname "$(dirname "$f")")/$(basename "$f" .cl).log" || true
fi

# The table. Rows: for each built-in class and shipped entry (and precision), its GEMM kernel
# (plain: GEMM and SYMM), the TRIANGLE variants (SYRK, SYR2K) and the KLIMIT variants (TRMM),
# then its copy kernels; last the tuner sample. Each row shows the worst over its kernels:
# most VGPRs (gfx90a: VGPRs + AGPRs, one file), AGPRs, SGPRs, scratch bytes per work-item,
# spilled VGPRs/SGPRs, and the fewest waves per SIMD; "n" is the number of distinct kernels.
awk -F'\t' -v mode="$mode" -v targets="$targets" '
    FNR == 1 { nf++ }
    nf == 1 { key = $1 SUBSEP $2; vg[key] = $4; ag[key] = $5; sg[key] = $6; sc[key] = $7
              vs[key] = $8; ss[key] = $9; oc[key] = $11; next }
    FNR == 1 { next }
    {
        split($1, v, "/"); pre = v[1] "/" v[2]
        if ($4 ~ /gemm/) {
            sw = $6; sub(/.*TRIANGLE=/, "", sw); split(sw, q, /,KLIMIT=/)
            grp = q[1] != 0 ? "TRIANGLE" : (q[2] != 0 ? "KLIMIT" : "gemm")
        } else grp = "copy"
        if ($2 == "tuner") pre = "tuner sample/" $3
        g = pre SUBSEP grp
        if (!(g in gix)) { gix[g] = ++ng; gname[ng] = g
            if (grp == "gemm" && $2 != "tuner") { p = $6; sub(/,TRIANGLE=.*/, "", p); gpar[ng] = p } }
        if (!((g SUBSEP $8) in seen)) { seen[g SUBSEP $8] = 1; files[g] = files[g] " " $8; nfile[g]++ }
    }
    END {
        nt = split(targets, tg, " ")
        printf "\n%-32s %-8s %-8s %4s %5s %5s %5s %7s %8s %4s  %s\n", "kernels", "kind", "target", "n", "VGPR", "AGPR", "SGPR", "scratch", "spills", "occ", "GEMM parameters"
        for (i = 1; i <= ng; i++) {
            g = gname[i]; split(g, gg, SUBSEP); n = split(files[g], fs, " ")
            for (t = 1; t <= nt; t++) {
                mv = ma = ms = msc = mvs = mss = 0; omin = 99; na = 0
                for (j = 1; j <= n; j++) {
                    key = fs[j] SUBSEP tg[t]
                    if (!(key in vg) || vg[key] == "-") { na = 1; continue }
                    if (vg[key] + 0 > mv) mv = vg[key] + 0
                    if (ag[key] != "-" && ag[key] + 0 > ma) ma = ag[key] + 0
                    if (sg[key] + 0 > ms) ms = sg[key] + 0
                    if (sc[key] + 0 > msc) msc = sc[key] + 0
                    if (vs[key] + 0 > mvs) mvs = vs[key] + 0
                    if (ss[key] + 0 > mss) mss = ss[key] + 0
                    if (oc[key] != "-" && oc[key] + 0 < omin) omin = oc[key] + 0
                }
                flag = (msc > 0 || mvs + mss > 0) ? " !" : ""
                if (na) printf "%-32s %-8s %-8s %4d %5s %5s %5s %7s %8s %4s  %s\n", gg[1], gg[2], tg[t], n, "-", "-", "-", "-", "-", "-", (t == 1 ? gpar[i] : "")
                else printf "%-32s %-8s %-8s %4d %5d %5d %5d %7d %8s %4s  %s\n", gg[1], gg[2], tg[t], n, mv, ma, ms, msc, mvs "/" mss flag, (omin < 99 ? omin : "-"), (t == 1 ? gpar[i] : "")
            }
        }
        print "(worst over the kernels of each row; VGPR on gfx90a counts VGPRs + AGPRs; scratch in bytes per work-item; spills VGPR/SGPR, ! = scratch or spills; occ = waves per SIMD)"
        if (mode != "devlibs") print "(mode nogpulib: without the ROCm device library the counts say nothing, so none are shown: see the header of this script)"
    }
' "$out/results.tsv" "$manifest"

ncomp=$(wc -l <"$out/results.tsv")
total_s=$(awk -F'\t' '{ s += $12 } END { printf "%.0f", s }' "$out/results.tsv")
echo
echo "== $ncomp compiles ($nfiles distinct sources x targets), $failed failed; compile time $total_s s on $jobs jobs, wall $((t_end - t_start)) s; CSV: $csv"
[ "$failed" -eq 0 ] || exit 1
exit 0
