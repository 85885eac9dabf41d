/*
 * kernel_sources.c -- clhgemm-kernel-sources: writes every OpenCL kernel source (with its build
 * options) that the library can emit for a non-NVIDIA device, without any OpenCL device, so that
 * tools/amd_compile_check.sh can compile each one for AMD GPUs with clang and report registers
 * and scratch. Dumping from live runs (CLHGEMM_DUMP_KERNELS) only shows what one device built
 * for the calls that were made; this enumerates them all.
 *
 * The sources come from the library's own code paths, not from a copy of the generator: for each
 * call shape that src/core/l3_map.c and src/core/gemm_api.c hand to the GEMM core (GEMM with every
 * transpose pair and beta == 0 or not, SYMM left/right, SYRK/SYR2K upper/lower, TRMM
 * left/right x upper/lower x trans), chg_l3_kernels_create() of src/core/blocks.c is called on a
 * device described without OpenCL (a chg_device_t filled in by hand: features, work-group and
 * local-memory limits, tuning keys). It picks the packs (tuned PACK parameters, structured
 * packs derived from them), the GEMM kernel with the TRIANGLE / KLIMIT switch the shape needs
 * and the (masked) write-back exactly as in a real call; its program builds are intercepted at
 * link time (-Wl,--wrap=chg_program_get, clCreateKernel, clReleaseKernel: see
 * tools/CMakeLists.txt), which records (name, source, options) instead of compiling. The SCALE
 * kernels of the quick path (beta*C when k == 0 or alpha == 0) take the codegen defaults, as
 * src/core/gemm.c's enqueue_scale does. The plain GEMM's direct variants (operands read in place, C
 * written by the kernel: gemm.h CHG_DIRECT_*) come from chg_gemm_kernel_direct(), all eleven
 * modes per parameter set, and TRMM's C written by its KLIMIT variants (beta zero or not). GEMM
 * parameters come from chg_gemm_params_select(), so the tuning lookup decides as it does at run
 * time.
 *
 * Parameter sets:
 *   class      built-in defaults (tuning databases bypassed) for each non-NVIDIA device class:
 *              amd-gpu (ROCm: FP64, FMA, AMD flag, 256 work-items, 64 KiB local memory), gpu
 *              (another vendor's GPU without FMA flags: the mul+add path), gpu-small (no FP64,
 *              64 work-items, 32 KiB: the defaults shrink), cpu, accelerator (neither CPU nor
 *              GPU flag).
 *   tuned      every shipped tuning entry (tuning/ *.json) whose vendor key is not "nvidia",
 *              on a device with that entry's identity, so that the lookup returns the entry
 *              itself (checked: an entry the lookup does not take is an error).
 *   tuner      a seeded sample of clhgemm-tune's FMA GEMM space for an AMD GPU (the tuner's own
 *              tools/tune_space.c), each with the plain kernel, one level-3 switch and one
 *              direct mode in turn; and of its copy-kernel space (tools/tune_copy.c's two stages'
 *              blockings, unroll degrees and padding, restated as their cross product: the
 *              second stage grows from the first one's measured winners), each as PACK and,
 *              where valid, as the structured packs that src/core/blocks.c derives from a
 *              tuned PACK. Every third GEMM sample carries a rasterisation width (SWZ 4, 8 or
 *              16).
 * Both precisions wherever the device class has FP64. The class set also lists the complex
 * routines' kernels (the 1m packs, the GEMM kernel with CPLX, the complex updates and TRSM
 * inversion) for the same shapes plus HEMM and HERK/HER2K: cshapes() below.
 *
 * Output (--out DIR): DIR/kernels/<hash>.cl, one file per distinct (source, options), the
 * options in its first line as a comment; DIR/manifest.tsv, one row per variant:
 *   variant  set  prec  program  entry  params  options  file
 * Several variants often share one file (the write-back does not depend on the GEMM tile).
 *
 *   clhgemm-kernel-sources --out DIR [--tuner-gemm N] [--tuner-copy N] [--seed S] [--quiet]
 * Exit status: 0, 1 on an error (nothing is compiled here).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernels/codegen.h"
#include "device/device.h"
#include "core/gemm.h"
#include "core/splitk.h"
#include "core/trsm_dev.h"
#include "kernels/params.h"
#include "tuning/tuning.h"
#include "tune_space.h"

/* ---- interception of the library's program builds (linked with --wrap) ------------------- */

typedef struct rec_s {
    char name[64];
    char entry[64];
    char *source;
    char *options;
} rec_t;

#define MAX_RECS 8
static rec_t g_recs[MAX_RECS];
static int g_nrecs;
static int g_dummy_program, g_dummy_kernel;

static void recs_clear(void)
{
    for (int i = 0; i < g_nrecs; i++) {
        free(g_recs[i].source);
        free(g_recs[i].options);
    }
    memset(g_recs, 0, sizeof g_recs);
    g_nrecs = 0;
}

clhgemm_status_t __wrap_chg_program_get(cl_context context, const chg_device_t *dev,
                                        const char *name, const char *source, const char *options,
                                        cl_program *out);
clhgemm_status_t __wrap_chg_program_get(cl_context context, const chg_device_t *dev,
                                        const char *name, const char *source, const char *options,
                                        cl_program *out)
{
    (void)context;
    (void)dev;
    if (g_nrecs == MAX_RECS) return CLHGEMM_INTERNAL_ERROR;
    rec_t *r = &g_recs[g_nrecs];
    snprintf(r->name, sizeof r->name, "%s", name);
    r->source = strdup(source);
    r->options = strdup(options ? options : "");
    if (!r->source || !r->options) return CLHGEMM_OUT_OF_HOST_MEMORY;
    g_nrecs++;
    *out = (cl_program)&g_dummy_program;
    return CLHGEMM_SUCCESS;
}

cl_kernel __wrap_clCreateKernel(cl_program program, const char *name, cl_int *err);
cl_kernel __wrap_clCreateKernel(cl_program program, const char *name, cl_int *err)
{
    /* the kernel of the program recorded last */
    if (program != (cl_program)&g_dummy_program || g_nrecs == 0) {
        if (err) *err = CL_INVALID_PROGRAM;
        return NULL;
    }
    snprintf(g_recs[g_nrecs - 1].entry, sizeof g_recs[0].entry, "%s", name);
    if (err) *err = CL_SUCCESS;
    return (cl_kernel)&g_dummy_kernel;
}

cl_int __wrap_clReleaseKernel(cl_kernel kernel);
cl_int __wrap_clReleaseKernel(cl_kernel kernel)
{
    return kernel == (cl_kernel)&g_dummy_kernel ? CL_SUCCESS : CL_INVALID_KERNEL;
}

/* ---- output ------------------------------------------------------------------------------ */

typedef struct out_s {
    const char *dir;
    FILE *manifest;
    uint64_t *seen; /* hashes of the files written */
    size_t nseen, capseen;
    long variants;
    int quiet;
} out_t;

static int mkdir_p(const char *path)
{
    char buf[4400];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* Writes the kernel file (once per distinct source + options) and a manifest row. */
static int emit(out_t *o, const char *variant, const char *set, chg_precision_t prec,
                const char *program, const char *entry, const char *params, const char *source,
                const char *options)
{
    uint64_t h = chg_hash(CHG_HASH_INIT, options, strlen(options) + 1);
    h = chg_hash(h, source, strlen(source));
    char file[64];
    snprintf(file, sizeof file, "kernels/%016llx.cl", (unsigned long long)h);
    int seen = 0;
    for (size_t i = 0; i < o->nseen && !seen; i++) seen = o->seen[i] == h;
    if (!seen) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", o->dir, file);
        FILE *f = fopen(path, "w");
        if (!f) {
            fprintf(stderr, "clhgemm-kernel-sources: cannot write %s: %s\n", path, strerror(errno));
            return -1;
        }
        /* The options as the first line (the compile script reads them from the manifest). */
        fprintf(f, "/* clhgemm-kernel-sources: %s; build options: %s */\n%s", program, options,
                source);
        if (fclose(f) != 0) return -1;
        if (o->nseen == o->capseen) {
            size_t cap = o->capseen ? 2 * o->capseen : 256;
            uint64_t *g = realloc(o->seen, cap * sizeof *g);
            if (!g) return -1;
            o->seen = g;
            o->capseen = cap;
        }
        o->seen[o->nseen++] = h;
    }
    fprintf(o->manifest, "%s\t%s\t%c\t%s\t%s\t%s\t%s\t%s\n", variant, set,
            prec == CHG_F64 ? 'd' : 's', program, entry, params, options, file);
    o->variants++;
    return 0;
}

/* ---- devices described without OpenCL ----------------------------------------------------- */

static void fake_device(chg_device_t *d, const char *name, clhgemm_device_kind_t kind,
                        unsigned features, size_t max_wg, unsigned long long lmem,
                        const char *arch, const char *vendor_key)
{
    memset(d, 0, sizeof *d);
    d->info.index = -1;
    d->info.kind = kind;
    snprintf(d->info.name, sizeof d->info.name, "%s", name);
    snprintf(d->info.vendor, sizeof d->info.vendor, "%s", vendor_key);
    snprintf(d->info.platform_name, sizeof d->info.platform_name, "clhgemm-kernel-sources");
    snprintf(d->info.driver_version, sizeof d->info.driver_version, "none");
    snprintf(d->info.device_version, sizeof d->info.device_version, "OpenCL 1.2");
    d->info.has_fp64 = (features & CHG_FEAT_FP64) != 0;
    d->info.compute_units = 64;
    d->info.max_work_group_size = max_wg;
    d->info.local_mem_bytes = lmem;
    d->info.global_mem_bytes = 16ull << 30;
    d->info.max_alloc_bytes = 4ull << 30;
    d->features = features;
    d->cl_version = 120;
    snprintf(d->arch_key, sizeof d->arch_key, "%s", arch);
    snprintf(d->vendor_key, sizeof d->vendor_key, "%s", vendor_key);
}

/* ---- the call shapes of src/core/l3_map.c and src/core/gemm_api.c -------------------------- */

typedef struct shape_s {
    char name[48];
    int ta, tb, beta_zero;
    chg_struct_t st;
} shape_t;

static int shapes(shape_t *out)
{
    int n = 0;
    /* GEMM (device buffers and host pipeline): every transpose pair, beta == 0 or not */
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            for (int bz = 0; bz < 2; bz++) {
                shape_t *s = &out[n++];
                memset(s, 0, sizeof *s);
                snprintf(s->name, sizeof s->name, "gemm-%c%c%s", ta ? 't' : 'n', tb ? 't' : 'n',
                         bz ? "-b0" : "");
                s->ta = ta;
                s->tb = tb;
                s->beta_zero = bz;
            }
    for (int up = 0; up < 2; up++)
        for (int bz = 0; bz < 2; bz++) {
            /* SYMM left: X_A = A symmetric; right: X_B = A (trans_b) symmetric */
            for (int left = 0; left < 2; left++) {
                shape_t *s = &out[n++];
                memset(s, 0, sizeof *s);
                snprintf(s->name, sizeof s->name, "symm-%s-%s%s", left ? "left" : "right",
                         up ? "upper" : "lower", bz ? "-b0" : "");
                s->beta_zero = bz;
                if (left) {
                    s->st.kind_a = CHG_SYMMETRIC;
                    s->st.upper_a = up;
                } else {
                    s->tb = 1;
                    s->st.kind_b = CHG_SYMMETRIC;
                    s->st.upper_b = up;
                }
            }
            /* SYRK / SYR2K: trans_a = trans, trans_b = !trans, one triangle of C */
            for (int tr = 0; tr < 2; tr++) {
                shape_t *s = &out[n++];
                memset(s, 0, sizeof *s);
                snprintf(s->name, sizeof s->name, "syrk-%s-%c%s", up ? "upper" : "lower",
                         tr ? 't' : 'n', bz ? "-b0" : "");
                s->ta = tr;
                s->tb = !tr;
                s->beta_zero = bz;
                s->st.c_tri = up ? CHG_TRI_UPPER : CHG_TRI_LOWER;
            }
        }
    /* TRMM (beta = 0): left X_A = op(A) triangular, right X_B = op(A)^T triangular */
    for (int left = 0; left < 2; left++)
        for (int up = 0; up < 2; up++)
            for (int tr = 0; tr < 2; tr++)
                for (int unit = 0; unit < 2; unit++) {
                    shape_t *s = &out[n++];
                    memset(s, 0, sizeof *s);
                    snprintf(s->name, sizeof s->name, "trmm-%s-%s-%c-%s", left ? "left" : "right",
                             up ? "upper" : "lower", tr ? 't' : 'n', unit ? "unit" : "nonunit");
                    s->beta_zero = 1;
                    if (left) {
                        s->ta = tr;
                        s->st.kind_a = CHG_TRIANGULAR;
                        s->st.upper_a = up != tr;
                        s->st.unit_a = unit;
                    } else {
                        s->tb = tr;
                        s->st.kind_b = CHG_TRIANGULAR;
                        s->st.upper_b = up == tr;
                        s->st.unit_b = unit;
                    }
                }
    return n;
}

#define MAX_SHAPES 64

/* The complex calls' shapes (the C and Z routines, core/blocks.h chg_struct_t.cplx): every real
 * shape with complex elements, then HEMM (the SYMM shapes with the symmetric operand Hermitian)
 * and HERK/HER2K (the SYRK shapes with C's diagonal real). Conjugation is a run-time argument
 * of the complex packs, so it makes no source of its own. */
static int cshapes(shape_t *out)
{
    shape_t real[MAX_SHAPES];
    const int nr = shapes(real);
    int n = 0;
    for (int i = 0; i < nr; i++) {
        shape_t *s = &out[n++];
        *s = real[i];
        snprintf(s->name, sizeof s->name, "cplx-%.40s", real[i].name);
        s->st.cplx = 1;
    }
    for (int i = 0; i < nr; i++) {
        const int symm = !strncmp(real[i].name, "symm-", 5);
        const int syrk = !strncmp(real[i].name, "syrk-", 5);
        if (!symm && !syrk) continue;
        shape_t *s = &out[n++];
        *s = real[i];
        snprintf(s->name, sizeof s->name, "%s%.40s", symm ? "hemm-" : "herk-", real[i].name + 5);
        s->st.cplx = 1;
        if (syrk) s->st.herm_c = 1;
        else if (s->st.kind_a == CHG_SYMMETRIC) s->st.herm_a = 1;
        else s->st.herm_b = 1;
    }
    return n;
}

static void copy_desc(const chg_copy_params_t *cp, char *buf, size_t len)
{
    char p[160];
    chg_copy_params_format(cp, p, sizeof p);
    snprintf(buf, len, "%s,CONTIG=%d,BETA_ZERO=%d", p, cp->src_contig_i, cp->beta_zero);
}

/* The kernels of one call shape with GEMM parameters gp on dev, through chg_l3_kernels_create. */
static int emit_shape(out_t *o, const char *set, const char *prefix, const chg_device_t *dev,
                      chg_precision_t prec, const chg_gemm_params_t *gp, const shape_t *sh)
{
    recs_clear();
    chg_gemm_kernels_t ks;
    clhgemm_status_t st = chg_l3_kernels_create((cl_context)&g_dummy_program, dev, prec, gp, sh->ta,
                                                sh->tb, sh->beta_zero, &sh->st, &ks);
    if (st != CLHGEMM_SUCCESS || g_nrecs != 4) {
        char gpd[160];
        chg_gemm_params_format(gp, gpd, sizeof gpd);
        fprintf(stderr, "clhgemm-kernel-sources: %s/%c/%s: chg_l3_kernels_create failed (%d, %d "
                        "programs) for %s\n",
                prefix, prec ? 'd' : 's', sh->name, (int)st, g_nrecs, gpd);
        recs_clear();
        return -1;
    }
    /* chg_l3_kernels_create builds pack_a, pack_b, the GEMM kernel, the write-back, in order */
    const char *roles[4] = {"pack_a", "pack_b", "gemm", "writeback"};
    for (int i = 0; i < 4; i++) {
        char params[256], variant[256];
        if (i == 2) {
            chg_gemm_params_format(gp, params, sizeof params);
            size_t l = strlen(params);
            snprintf(params + l, sizeof params - l, ",TRIANGLE=%d,KLIMIT=%d", ks.st.c_tri,
                     ks.klimit);
        } else {
            copy_desc(i == 0 ? &ks.cpa : i == 1 ? &ks.cpb : &ks.cpw, params, sizeof params);
        }
        snprintf(variant, sizeof variant, "%s/%c/%s/%s", prefix, prec ? 'd' : 's', sh->name,
                 roles[i]);
        if (emit(o, variant, set, prec, g_recs[i].name, g_recs[i].entry, params,
                 g_recs[i].source, g_recs[i].options) != 0) {
            chg_gemm_kernels_release(&ks);
            recs_clear();
            return -1;
        }
    }
    chg_gemm_kernels_release(&ks);
    recs_clear();
    return 0;
}

/* The plain GEMM's direct variants (gemm.h CHG_DIRECT_*: A and/or B read in place, C written by
 * the kernel with or without beta), chg_gemm_kernel_direct as src/core/blocks.c builds them. */
static const int g_direct_modes[] = {
    CHG_DIRECT_A, CHG_DIRECT_B, CHG_DIRECT_A | CHG_DIRECT_B, CHG_DIRECT_C,
    CHG_DIRECT_C | CHG_DIRECT_BETA0, CHG_DIRECT_A | CHG_DIRECT_C,
    CHG_DIRECT_A | CHG_DIRECT_C | CHG_DIRECT_BETA0, CHG_DIRECT_B | CHG_DIRECT_C,
    CHG_DIRECT_B | CHG_DIRECT_C | CHG_DIRECT_BETA0, CHG_DIRECT_A | CHG_DIRECT_B | CHG_DIRECT_C,
    CHG_DIRECT_A | CHG_DIRECT_B | CHG_DIRECT_C | CHG_DIRECT_BETA0};
#define N_DIRECT_MODES ((int)(sizeof g_direct_modes / sizeof g_direct_modes[0]))

/* One direct variant d of gp, of the KLIMIT variant klimit (a TRMM's: C written by the kernel
 * over packed operands) or of the plain kernel (0). */
static int emit_direct_one(out_t *o, const char *set, const char *prefix, const chg_device_t *dev,
                           chg_precision_t prec, const chg_gemm_params_t *gp, int klimit, int d)
{
    recs_clear();
    cl_kernel k = NULL;
    clhgemm_status_t st =
        chg_gemm_kernel_direct((cl_context)&g_dummy_program, dev, prec, gp, klimit, d, &k);
    if (st != CLHGEMM_SUCCESS || g_nrecs != 1) {
        fprintf(stderr, "clhgemm-kernel-sources: %s/%c: direct variant %d (klimit %d) failed (%d)\n",
                prefix, prec ? 'd' : 's', d, klimit, (int)st);
        recs_clear();
        return -1;
    }
    char params[256], variant[256];
    chg_gemm_params_format(gp, params, sizeof params);
    size_t l = strlen(params);
    snprintf(params + l, sizeof params - l, ",DIRECT_A=%d,DIRECT_B=%d,DIRECT_C=%d",
             !!(d & CHG_DIRECT_A), !!(d & CHG_DIRECT_B),
             d & CHG_DIRECT_C ? (d & CHG_DIRECT_BETA0 ? 2 : 1) : 0);
    if (klimit) {
        l = strlen(params);
        snprintf(params + l, sizeof params - l, ",KLIMIT=%d", klimit);
        snprintf(variant, sizeof variant, "%s/%c/direct-%d-klimit%d/gemm", prefix,
                 prec ? 'd' : 's', d, klimit);
    } else {
        snprintf(variant, sizeof variant, "%s/%c/direct-%d/gemm", prefix, prec ? 'd' : 's', d);
    }
    const int rc = emit(o, variant, set, prec, g_recs[0].name, g_recs[0].entry, params,
                        g_recs[0].source, g_recs[0].options);
    clReleaseKernel(k);
    recs_clear();
    return rc;
}

/* TRMM's C written by the KLIMIT variants of gp (core/direct.c: C only, beta 0 or not). */
static int emit_klimit_direct(out_t *o, const char *set, const char *prefix,
                              const chg_device_t *dev, chg_precision_t prec,
                              const chg_gemm_params_t *gp)
{
    for (int kl = 1; kl <= 4; kl++)
        for (int b0 = 0; b0 < 2; b0++)
            if (emit_direct_one(o, set, prefix, dev, prec, gp, kl,
                                CHG_DIRECT_C | (b0 ? CHG_DIRECT_BETA0 : 0)))
                return -1;
    return 0;
}

/* The direct variants: the plain GEMM's (mode 0: all eleven; otherwise that one) and, with mode
 * 0, TRMM's KLIMIT ones (emit_klimit_direct). */
static int emit_direct(out_t *o, const char *set, const char *prefix, const chg_device_t *dev,
                       chg_precision_t prec, const chg_gemm_params_t *gp, int mode)
{
    for (int i = 0; i < N_DIRECT_MODES; i++) {
        const int d = g_direct_modes[i];
        if (mode && d != mode) continue;
        if (emit_direct_one(o, set, prefix, dev, prec, gp, 0, d)) return -1;
    }
    return mode ? 0 : emit_klimit_direct(o, set, prefix, dev, prec, gp);
}

/* The one program a library call just recorded, as `what` of gp (NULL: no parameters). */
static int emit_recorded(out_t *o, const char *set, const char *prefix, chg_precision_t prec,
                         const char *what, const chg_gemm_params_t *gp, clhgemm_status_t st,
                         cl_kernel k)
{
    if (st != CLHGEMM_SUCCESS || g_nrecs != 1) {
        fprintf(stderr, "clhgemm-kernel-sources: %s/%c: %s failed (%d)\n", prefix,
                prec ? 'd' : 's', what, (int)st);
        recs_clear();
        return -1;
    }
    char params[256] = "-", variant[256];
    if (gp) chg_gemm_params_format(gp, params, sizeof params);
    snprintf(variant, sizeof variant, "%s/%c/%s", prefix, prec ? 'd' : 's', what);
    const int rc = emit(o, variant, set, prec, g_recs[0].name, g_recs[0].entry, params,
                        g_recs[0].source, g_recs[0].options);
    clReleaseKernel(k);
    recs_clear();
    return rc;
}

/* Split-K (core/splitk.c): the SPLITK variant of the GEMM kernel for gp (and the tail split's
 * uneven SPLITK 2), and the reduce, with beta = 0 and not. */
static int emit_splitk(out_t *o, const char *set, const char *prefix, const chg_device_t *dev,
                       chg_precision_t prec, const chg_gemm_params_t *gp, int reduce)
{
    cl_context ctx = (cl_context)&g_dummy_program;
    cl_kernel k = NULL;
    recs_clear();
    clhgemm_status_t st = chg_gemm_kernel_direct(ctx, dev, prec, gp, 0, CHG_KERNEL_SPLITK, &k);
    int rc = emit_recorded(o, set, prefix, prec, "splitk/gemm", gp, st, k);
    if (rc == 0) {
        const int flags = CHG_KERNEL_SPLITK | CHG_KERNEL_SPLITK_UNEVEN;
        st = chg_gemm_kernel_direct(ctx, dev, prec, gp, 0, flags, &k);
        rc = emit_recorded(o, set, prefix, prec, "splitk2/gemm", gp, st, k);
    }
    for (int bz = 0; bz < 2 && reduce && rc == 0; bz++) {
        st = chg_splitk_reduce_kernel(ctx, dev, prec, bz, &k);
        rc = emit_recorded(o, set, prefix, prec, bz ? "splitk/reduce0" : "splitk/reduce", NULL,
                           st, k);
    }
    return rc;
}

/* The direct kernel (cl/gemm_direct.cl) for gp (DK = 1). */
static int emit_direct_kernel(out_t *o, const char *set, const char *prefix,
                              const chg_device_t *dev, chg_precision_t prec,
                              const chg_gemm_params_t *gp)
{
    cl_kernel k = NULL;
    recs_clear();
    const clhgemm_status_t st =
        chg_gemm_direct_kernel((cl_context)&g_dummy_program, dev, prec, gp, &k);
    return emit_recorded(o, set, prefix, prec, "gemm-direct", gp, st, k);
}

/* Every shape class's configuration on dev (core/gemm.c: the direct kernel for DK = 1, else the
 * plain GEMM kernel and its SPLITK variant, and where it differs from the main parameters the
 * level-3 routines' kernels on it -- they run their shape's class too, on the packed kernel
 * where the class's is the direct one: every call shape, and TRMM's KLIMIT variants with C
 * written by the kernel), the direct kernel's built-in geometry, and the SPLITK variant of the
 * main parameters with the reduce. */
static int emit_class_configs(out_t *o, const char *set, const char *prefix,
                              const chg_device_t *dev, chg_precision_t prec,
                              const chg_gemm_params_t *main_gp)
{
    int rc = emit_splitk(o, set, prefix, dev, prec, main_gp, 1);
    chg_gemm_params_t dk;
    chg_gemm_params_direct_default(dev, prec, &dk);
    if (rc == 0 && chg_gemm_params_valid(dev, prec, &dk, NULL, 0))
        rc = emit_direct_kernel(o, set, prefix, dev, prec, &dk);
    const int gpu = (dev->features & CHG_FEAT_GPU) != 0;
    shape_t sh[MAX_SHAPES];
    const int nsh = shapes(sh);
    for (int c = 0; c < CHG_SHAPE_NCLASSES && rc == 0; c++) {
        size_t m, n, k;
        chg_shape_class_example(c, gpu, &m, &n, &k);
        chg_gemm_choice_t ch;
        chg_tuned_gemm_shape(dev, prec, m, n, k, 0, &ch);
        char cprefix[128];
        snprintf(cprefix, sizeof cprefix, "%s/class-%s", prefix, chg_shape_class_name(c));
        if (ch.gp.dk) {
            rc = emit_direct_kernel(o, set, cprefix, dev, prec, &ch.gp);
        } else {
            cl_kernel kk = NULL;
            recs_clear();
            const clhgemm_status_t st = chg_gemm_kernel_direct(
                (cl_context)&g_dummy_program, dev, prec, &ch.gp, 0, CHG_DIRECT_C, &kk);
            rc = emit_recorded(o, set, cprefix, prec, "gemm-direct-c", &ch.gp, st, kk);
            if (rc == 0) rc = emit_splitk(o, set, cprefix, dev, prec, &ch.gp, 0);
            if (rc == 0 && memcmp(&ch.gp, main_gp, sizeof ch.gp) != 0) {
                for (int i = 0; i < nsh && rc == 0; i++)
                    if (sh[i].st.kind_a || sh[i].st.kind_b || sh[i].st.c_tri)
                        rc = emit_shape(o, set, cprefix, dev, prec, &ch.gp, &sh[i]);
                if (rc == 0) rc = emit_klimit_direct(o, set, cprefix, dev, prec, &ch.gp);
            }
        }
    }
    return rc;
}

/* A generated copy kernel from explicit parameters (chg_copy_generate, as the library and the
 * tuner's build workers call it). */
static int emit_copy(out_t *o, const char *set, const char *prefix, const chg_device_t *dev,
                     const chg_copy_params_t *cp)
{
    static const char *const kinds[] = {"pack", "writeback", "scale", "pack-sym", "pack-tri",
                                        "writeback-tri", "scale-tri"};
    chg_str_t src;
    chg_str_init(&src);
    const char *entry = NULL;
    char params[256], variant[320];
    copy_desc(cp, params, sizeof params);
    if (chg_copy_generate(dev, cp, &src, &entry) != 0) {
        fprintf(stderr, "clhgemm-kernel-sources: %s: chg_copy_generate rejected %s %s\n", prefix,
                kinds[cp->kind], params);
        chg_str_free(&src);
        return -1;
    }
    snprintf(variant, sizeof variant, "%s/%c/%s/%s%s", prefix, cp->prec ? 'd' : 's',
             kinds[cp->kind], cp->src_contig_i ? "contig" : "trans",
             cp->beta_zero ? "-b0" : "");
    int rc = emit(o, variant, set, cp->prec, kinds[cp->kind], entry, params, src.data,
                  chg_build_options(dev));
    chg_str_free(&src);
    return rc;
}

/* TRSM's diagonal-block inversion (core/trsm_dev.c, cl/trsm_inv.cl): one source per
 * precision and device. */
static int emit_trsm_inv(out_t *o, const char *set, const char *prefix, const chg_device_t *dev,
                         chg_precision_t prec, int cplx)
{
    recs_clear();
    cl_kernel k = NULL;
    if (chg_trsm_inv_kernel((cl_context)&g_dummy_program, dev, prec, cplx, &k) != CLHGEMM_SUCCESS ||
        g_nrecs != 1) {
        fprintf(stderr, "clhgemm-kernel-sources: %s/%c: chg_trsm_inv_kernel failed\n", prefix,
                prec ? 'd' : 's');
        recs_clear();
        return -1;
    }
    clReleaseKernel(k);
    char variant[320];
    snprintf(variant, sizeof variant, "%s/%c/%strsm-inv", prefix, prec ? 'd' : 's',
             cplx ? "cplx-" : "");
    const rec_t *r = &g_recs[0];
    const int rc = emit(o, variant, set, prec, r->name, r->entry, "-", r->source, r->options);
    recs_clear();
    return rc;
}

/* The complex calls' kernels on dev in one precision with GEMM parameters gp: every complex
 * shape, the complex SCALE kernels of the quick path (C's diagonal real or not where
 * triangular), the complex inversion of TRSM's diagonal blocks. */
static int emit_device_cplx(out_t *o, const char *set, const char *prefix,
                            const chg_device_t *dev, chg_precision_t prec,
                            const chg_gemm_params_t *gp)
{
    shape_t sh[MAX_SHAPES];
    const int n = cshapes(sh);
    for (int i = 0; i < n; i++)
        if (emit_shape(o, set, prefix, dev, prec, gp, &sh[i]) != 0) return -1;
    for (int tri = 0; tri < 2; tri++)
        for (int herm = 0; herm <= tri; herm++)
            for (int bz = 0; bz < 2; bz++) {
                chg_copy_params_t cp;
                chg_copy_params_default(dev, tri ? CHG_COPY_SCALE_TRI : CHG_COPY_SCALE, prec, &cp);
                cp.beta_zero = bz;
                cp.cplx = 1;
                cp.herm = herm;
                if (emit_copy(o, set, prefix, dev, &cp) != 0) return -1;
            }
    return emit_trsm_inv(o, set, prefix, dev, prec, 1);
}

/* Everything the library emits on dev in one precision: every call shape plus the SCALE
 * kernels of the quick path; with cplx also the complex routines' (the built-in classes only:
 * a complex source differs from its real twin by the packs' layout and gemm.cl's CPLX bounds,
 * which the classes' parameters exercise; under the tuned and sampled parameters they would
 * mostly double the compile time). */
static int emit_device(out_t *o, const char *set, const char *prefix, const chg_device_t *dev,
                       chg_precision_t prec, int cplx)
{
    chg_gemm_params_t gp;
    chg_gemm_params_select(dev, prec, &gp);
    char why[200] = "";
    if (!chg_gemm_params_valid(dev, prec, &gp, why, sizeof why)) {
        fprintf(stderr, "clhgemm-kernel-sources: %s/%c: parameters do not fit: %s\n", prefix,
                prec ? 'd' : 's', why);
        return -1;
    }
    shape_t sh[MAX_SHAPES];
    const int n = shapes(sh);
    for (int i = 0; i < n; i++)
        if (emit_shape(o, set, prefix, dev, prec, &gp, &sh[i]) != 0) return -1;
    if (emit_direct(o, set, prefix, dev, prec, &gp, 0) != 0) return -1;
    if (emit_class_configs(o, set, prefix, dev, prec, &gp) != 0) return -1;
    /* src/core/gemm.c enqueue_scale: codegen defaults, beta == 0 or not, whole C or one triangle */
    for (int tri = 0; tri < 2; tri++)
        for (int bz = 0; bz < 2; bz++) {
            chg_copy_params_t cp;
            chg_copy_params_default(dev, tri ? CHG_COPY_SCALE_TRI : CHG_COPY_SCALE, prec, &cp);
            cp.beta_zero = bz;
            if (emit_copy(o, set, prefix, dev, &cp) != 0) return -1;
        }
    if (cplx && emit_device_cplx(o, set, prefix, dev, prec, &gp) != 0) return -1;
    return emit_trsm_inv(o, set, prefix, dev, prec, 0);
}

/* ---- the built-in classes ----------------------------------------------------------------- */

static int emit_classes(out_t *o)
{
    const unsigned fma = CHG_FEAT_FMA_F32 | CHG_FEAT_FMA_F64;
    struct {
        const char *name;
        clhgemm_device_kind_t kind;
        unsigned features;
        size_t max_wg;
        unsigned long long lmem;
        const char *arch, *vendor;
    } cls[] = {
        {"amd-gpu", CLHGEMM_DEVICE_GPU, CHG_FEAT_GPU | CHG_FEAT_AMD | CHG_FEAT_FP64 | fma, 256,
         65536, "amd:gfx90a", "amd"},
        {"gpu", CLHGEMM_DEVICE_GPU, CHG_FEAT_GPU | CHG_FEAT_FP64, 512, 65536, "intel:gpu",
         "intel"},
        {"gpu-small", CLHGEMM_DEVICE_GPU, CHG_FEAT_GPU | CHG_FEAT_FMA_F32, 64, 32768, "other:gpu",
         "other"},
        {"cpu", CLHGEMM_DEVICE_CPU, CHG_FEAT_CPU | CHG_FEAT_FP64 | fma, 4096, 1 << 20, "pocl:cpu",
         "pocl"},
        {"accelerator", CLHGEMM_DEVICE_ACCELERATOR, CHG_FEAT_FP64 | CHG_FEAT_FMA_F32, 1024, 65536,
         "other:accelerator", "other"},
    };
    chg_tuning_set_bypass(1);
    int rc = 0;
    for (size_t c = 0; c < sizeof cls / sizeof cls[0] && rc == 0; c++) {
        chg_device_t dev;
        fake_device(&dev, cls[c].name, cls[c].kind, cls[c].features, cls[c].max_wg, cls[c].lmem,
                    cls[c].arch, cls[c].vendor);
        char prefix[64];
        snprintf(prefix, sizeof prefix, "class:%s", cls[c].name);
        for (int prec = 0; prec < 2 && rc == 0; prec++) {
            if (prec == CHG_F64 && !(dev.features & CHG_FEAT_FP64)) continue;
            rc = emit_device(o, "class", prefix, &dev, (chg_precision_t)prec, 1);
        }
    }
    chg_tuning_set_bypass(0);
    return rc;
}

/* ---- the shipped non-NVIDIA tuning entries ------------------------------------------------ */

static int emit_tuned(out_t *o, int *entries)
{
    char dir[4096];
    *entries = 0;
    if (!chg_tuning_shipped_dir(dir, sizeof dir)) {
        if (!o->quiet) printf("no shipped tuning directory: no tuned entries\n");
        return 0;
    }
    DIR *d = opendir(dir);
    if (!d) {
        if (!o->quiet) printf("shipped tuning directory %s not readable: no tuned entries\n", dir);
        return 0;
    }
    char *names[256];
    int nn = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && nn < 256;) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0) names[nn++] = strdup(e->d_name);
    }
    closedir(d);
    /* in name order, so that the output does not depend on the directory order */
    for (int i = 1; i < nn; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    int rc = 0;
    for (int i = 0; i < nn; i++) {
        char path[8300], why[512];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        chg_tuning_file_t f;
        chg_tuning_file_init(&f);
        if (chg_tuning_file_read(path, &f, why, sizeof why) != 0) {
            fprintf(stderr, "clhgemm-kernel-sources: %s: %s\n", path, why);
            rc = -1;
        }
        for (int r = 0; r < f.count && rc == 0; r++) {
            const chg_tuning_record_t *rec = &f.records[r];
            if (strcmp(rec->vendor_key, "nvidia") == 0) continue;
            const int cpu = strstr(rec->arch, ":cpu") != NULL;
            const int gpu = !cpu && (strstr(rec->arch, ":gpu") || strncmp(rec->arch, "amd:gfx", 7) == 0);
            unsigned feat = CHG_FEAT_FP64 | CHG_FEAT_FMA_F32 | CHG_FEAT_FMA_F64;
            if (cpu) feat |= CHG_FEAT_CPU;
            if (gpu) feat |= CHG_FEAT_GPU;
            if (gpu && strcmp(rec->vendor_key, "amd") == 0) feat |= CHG_FEAT_AMD;
            chg_device_t dev;
            fake_device(&dev, rec->name,
                        cpu ? CLHGEMM_DEVICE_CPU : gpu ? CLHGEMM_DEVICE_GPU : CLHGEMM_DEVICE_OTHER,
                        feat, rec->max_work_group ? (size_t)rec->max_work_group : 256,
                        rec->local_mem ? rec->local_mem : 65536, rec->arch, rec->vendor_key);
            snprintf(dev.info.driver_version, sizeof dev.info.driver_version, "%s", rec->driver);
            snprintf(dev.info.platform_name, sizeof dev.info.platform_name, "%s", rec->platform);
            snprintf(dev.info.vendor, sizeof dev.info.vendor, "%s", rec->vendor);
            if (rec->compute_units) dev.info.compute_units = rec->compute_units;
            (*entries)++;
            for (int prec = 0; prec < 2 && rc == 0; prec++) {
                if (!rec->prec[prec].present) continue;
                chg_tuning_entry_t e;
                chg_tuning_level_t lv = chg_tuning_lookup(&dev, (chg_precision_t)prec, &e);
                if (lv != CHG_TUNING_EXACT) {
                    fprintf(stderr, "clhgemm-kernel-sources: %s entry \"%s\" (%c): the lookup "
                                    "took %s (%s) %s\n",
                            names[i], rec->name, prec ? 'd' : 's', chg_tuning_level_name(lv),
                            e.key, e.note);
                    rc = -1;
                    break;
                }
                char prefix[400];
                snprintf(prefix, sizeof prefix, "tuned:%s:%s", names[i], rec->arch);
                rc = emit_device(o, "tuned", prefix, &dev, (chg_precision_t)prec, 0);
            }
        }
        chg_tuning_file_free(&f);
    }
    for (int i = 0; i < nn; i++) free(names[i]);
    return rc;
}

/* ---- a sample of clhgemm-tune's spaces on an AMD GPU -------------------------------------- */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Partial Fisher-Yates: the first k of n items of a (size elem) in random order. */
static void sample_front(void *a, size_t n, size_t k, size_t elem, uint64_t *rng)
{
    char tmp[256];
    for (size_t i = 0; i < k && i < n; i++) {
        size_t j = i + (size_t)(splitmix(rng) % (n - i));
        memcpy(tmp, (char *)a + i * elem, elem);
        memcpy((char *)a + i * elem, (char *)a + j * elem, elem);
        memcpy((char *)a + j * elem, tmp, elem);
    }
}

typedef struct gemm_list_s {
    chg_gemm_params_t *c;
    size_t n, cap;
} gemm_list_t;

static int gemm_list_add(void *arg, const chg_gemm_params_t *p)
{
    gemm_list_t *l = arg;
    if (l->n == l->cap) {
        const size_t cap = l->cap ? 2 * l->cap : 4096;
        chg_gemm_params_t *g = realloc(l->c, cap * sizeof *g);
        if (!g) return -1;
        l->c = g;
        l->cap = cap;
    }
    l->c[l->n++] = *p;
    return 0;
}

/* clhgemm-tune's FMA space (tools/tune_space.c) on a GPU whose driver reports no registers per
 * block. */
static int tuner_gemm_space(const chg_device_t *dev, chg_precision_t prec, chg_gemm_params_t **out)
{
    gemm_list_t l = {NULL, 0, 0};
    long raw = 0, pruned[TS_COUNT] = {0};
    if (tune_fma_space(dev, prec, 1, 0, gemm_list_add, &l, &raw, pruned) != 0) {
        free(l.c);
        return -1;
    }
    *out = l.c;
    return (int)l.n;
}

/* tools/tune_copy.c: stage 1 (blockings, full unroll) and stage 2 (unroll degrees, padding) of
 * the PACK search, with its GPU work-group floor of 32. */
static int tuner_copy_space(const chg_device_t *dev, chg_precision_t prec, int contig,
                            chg_copy_params_t **out)
{
    static const int ti[] = {8, 16, 32, 64, 128, 256}, tp[] = {1, 2, 4, 8, 16, 32, 64};
    static const int w[] = {1, 2, 4, 8};
    static const int uds[] = {0, 1, 2, 4}, pads[] = {0, 1, 2};
    size_t cap = 4096, n = 0;
    chg_copy_params_t *c = malloc(cap * sizeof *c);
    if (!c) return -1;
    chg_copy_params_t def;
    chg_copy_params_default(dev, CHG_COPY_PACK, prec, &def);
    def.src_contig_i = contig;
    for (int a = 0; a < 6; a++)
    for (int b = 0; b < 7; b++)
    for (int x = 0; x < 4; x++)
    for (int y = 0; y < 4; y++)
    for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
    for (int k = 0; k < (contig ? 1 : 3); k++) {
        chg_copy_params_t p = def;
        p.tile_i = ti[a];
        p.tile_p = tp[b];
        p.wpt_i = w[x];
        p.wpt_p = w[y];
        p.ud_i = uds[i];
        p.ud_p = uds[j];
        p.pad = contig ? 0 : pads[k];
        const int lim_i = contig ? p.wpt_i : p.wpt_i * p.wpt_p;
        const int lim_p = contig ? p.wpt_p : p.wpt_i * p.wpt_p;
        if ((p.ud_i >= lim_i && p.ud_i) || (p.ud_p >= lim_p && p.ud_p)) continue;
        if (!chg_copy_params_valid(dev, &p, NULL, 0)) continue;
        const size_t threads = (size_t)(p.tile_i / p.wpt_i) * (p.tile_p / p.wpt_p);
        if (threads < 32) continue;
        if (n == cap) {
            cap *= 2;
            chg_copy_params_t *g = realloc(c, cap * sizeof *g);
            if (!g) {
                free(c);
                return -1;
            }
            c = g;
        }
        c[n++] = p;
    }
    *out = c;
    return (int)n;
}

static int emit_tuner(out_t *o, int ngemm, int ncopy, uint64_t seed)
{
    chg_device_t dev;
    fake_device(&dev, "amd-gpu", CLHGEMM_DEVICE_GPU,
                CHG_FEAT_GPU | CHG_FEAT_AMD | CHG_FEAT_FP64 | CHG_FEAT_FMA_F32 | CHG_FEAT_FMA_F64,
                256, 65536, "amd:gfx90a", "amd");
    shape_t sh[MAX_SHAPES];
    const int nsh = shapes(sh);
    /* the level-3 shapes that change the GEMM kernel: one TRIANGLE or KLIMIT value each */
    int l3[8], nl3 = 0;
    int seen_tri[3] = {0}, seen_kl[5] = {0};
    for (int i = 0; i < nsh && nl3 < 8; i++) {
        const chg_struct_t *st = &sh[i].st;
        const int kl = chg_l3_klimit(st);
        if (st->c_tri && !seen_tri[st->c_tri]) seen_tri[st->c_tri] = 1, l3[nl3++] = i;
        else if (kl && !seen_kl[kl]) seen_kl[kl] = 1, l3[nl3++] = i;
    }
    chg_tuning_set_bypass(1);
    int rc = 0;
    for (int prec = 0; prec < 2 && rc == 0; prec++) {
        uint64_t rng = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)prec + 1;
        chg_gemm_params_t *space = NULL;
        const int n = tuner_gemm_space(&dev, (chg_precision_t)prec, &space);
        if (n < 0) return -1;
        const int k = ngemm < n ? ngemm : n;
        sample_front(space, (size_t)n, (size_t)k, sizeof *space, &rng);
        if (!o->quiet)
            printf("tuner %cgemm space on amd-gpu: %d configurations, %d sampled (seed %llu)\n",
                   prec ? 'd' : 's', n, k, (unsigned long long)seed);
        for (int i = 0; i < k && rc == 0; i++) {
            char prefix[64];
            snprintf(prefix, sizeof prefix, "tuner:gemm%03d", i);
            /* every third sample with work-group rasterisation (SWZ, a parameter a database
             * entry or CLHGEMM_*GEMM_PARAMS may set on any device) */
            if (i % 3 == 2) space[i].swz = 4 << (i / 3 % 3);
            /* the plain kernel (GEMM n/n shape) and one level-3 switch in turn */
            rc = emit_shape(o, "tuner", prefix, &dev, (chg_precision_t)prec, &space[i], &sh[0]);
            /* and one direct variant in turn */
            if (rc == 0)
                rc = emit_direct(o, "tuner", prefix, &dev, (chg_precision_t)prec, &space[i],
                                 g_direct_modes[i % N_DIRECT_MODES]);
            if (rc == 0 && nl3)
                rc = emit_shape(o, "tuner", prefix, &dev, (chg_precision_t)prec, &space[i],
                                &sh[l3[i % nl3]]);
            /* the class phase's candidates: the SPLITK variant, and the same geometry as the
             * direct kernel (DK = 1) where it is valid for it */
            if (rc == 0 && i % 4 == 0 && !space[i].swz)
                rc = emit_splitk(o, "tuner", prefix, &dev, (chg_precision_t)prec, &space[i], 0);
            chg_gemm_params_t dk = space[i];
            dk.dk = 1;
            dk.swz = 0;
            if (rc == 0 && i % 4 == 1 && chg_gemm_params_valid(&dev, (chg_precision_t)prec, &dk, NULL, 0))
                rc = emit_direct_kernel(o, "tuner", prefix, &dev, (chg_precision_t)prec, &dk);
        }
        free(space);
        for (int contig = 0; contig < 2 && rc == 0; contig++) {
            chg_copy_params_t *cs = NULL;
            const int m = tuner_copy_space(&dev, (chg_precision_t)prec, contig, &cs);
            if (m < 0) return -1;
            const int kc = ncopy < m ? ncopy : m;
            sample_front(cs, (size_t)m, (size_t)kc, sizeof *cs, &rng);
            if (!o->quiet)
                printf("tuner %s pack space (%c) on amd-gpu: %d configurations, %d sampled\n",
                       contig ? "contiguous" : "transposing", prec ? 'd' : 's', m, kc);
            for (int i = 0; i < kc && rc == 0; i++) {
                char prefix[64];
                snprintf(prefix, sizeof prefix, "tuner:copy%03d", i);
                rc = emit_copy(o, "tuner", prefix, &dev, &cs[i]);
                /* the structured packs start from a tuned PACK's blocking (src/core/blocks.c
                 * chg_pack_params) where it is valid for them */
                for (int kind = CHG_COPY_PACK_SYM; kind <= CHG_COPY_PACK_TRI && rc == 0; kind++) {
                    chg_copy_params_t q = cs[i];
                    q.kind = (chg_copy_kind_t)kind;
                    if (chg_copy_params_valid(&dev, &q, NULL, 0))
                        rc = emit_copy(o, "tuner", prefix, &dev, &q);
                }
            }
            free(cs);
        }
    }
    chg_tuning_set_bypass(0);
    return rc;
}

/* ---- main --------------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: clhgemm-kernel-sources --out DIR [--tuner-gemm N] [--tuner-copy N] [--seed S] "
            "[--quiet]\n"
            "Writes every kernel source (and its build options) that clhgemm can emit for a\n"
            "non-NVIDIA device to DIR/kernels/, and DIR/manifest.tsv (one row per variant).\n"
            "No OpenCL device is needed; nothing is compiled.\n"
            "  --tuner-gemm N   GEMM configurations sampled from clhgemm-tune's AMD space, per\n"
            "                   precision (default 40)\n"
            "  --tuner-copy N   pack configurations sampled per precision and direction (default 12)\n"
            "  --seed S         sampling seed (default 1)\n");
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    int ngemm = 40, ncopy = 12, quiet = 0;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--out") && v) dir = argv[++i];
        else if (!strcmp(a, "--tuner-gemm") && v) ngemm = atoi(argv[++i]);
        else if (!strcmp(a, "--tuner-copy") && v) ncopy = atoi(argv[++i]);
        else if (!strcmp(a, "--seed") && v) seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--quiet")) quiet = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 1;
        }
    }
    if (!dir || ngemm < 0 || ncopy < 0) {
        usage(stderr);
        return 1;
    }
    /* What the library would pick with no user database and no override: the shipped
     * database only (a developer's ~/.config/clhgemm must not change the set). */
    setenv("CLHGEMM_TUNING_DIR", "off", 1);
    unsetenv("CLHGEMM_TUNING");
    unsetenv("CLHGEMM_GEMM_PARAMS");
    unsetenv("CLHGEMM_SGEMM_PARAMS");
    unsetenv("CLHGEMM_DGEMM_PARAMS");
    unsetenv("CLHGEMM_FAULT_BUILD");

    char kdir[4200];
    snprintf(kdir, sizeof kdir, "%s/kernels", dir);
    if (mkdir_p(kdir) != 0) {
        fprintf(stderr, "clhgemm-kernel-sources: cannot create %s: %s\n", kdir, strerror(errno));
        return 1;
    }
    char mpath[4200];
    snprintf(mpath, sizeof mpath, "%s/manifest.tsv", dir);
    out_t o = {.dir = dir, .quiet = quiet};
    o.manifest = fopen(mpath, "w");
    if (!o.manifest) {
        fprintf(stderr, "clhgemm-kernel-sources: cannot write %s: %s\n", mpath, strerror(errno));
        return 1;
    }
    fprintf(o.manifest, "variant\tset\tprec\tprogram\tentry\tparams\toptions\tfile\n");
    int entries = 0;
    int rc = emit_classes(&o);
    const long v_class = o.variants;
    if (rc == 0) rc = emit_tuned(&o, &entries);
    const long v_tuned = o.variants - v_class;
    if (rc == 0) rc = emit_tuner(&o, ngemm, ncopy, seed);
    const long v_tuner = o.variants - v_class - v_tuned;
    if (fclose(o.manifest) != 0) rc = -1;
    free(o.seen);
    if (rc != 0) return 1;
    if (!quiet)
        printf("%ld variants (%ld built-in classes, %ld from %d shipped non-NVIDIA tuning "
               "entries, %ld tuner samples), %zu distinct kernel sources in %s\n",
               o.variants, v_class, v_tuned, entries, v_tuner, o.nseen, kdir);
    return 0;
}
