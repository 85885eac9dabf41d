/*
 * tune_gemm_space.c -- the space of clhgemm-tune's GEMM search (tune_gemm.c's header comment
 * says what it holds): every FMA-kernel configuration, pruned before anything is built, and on
 * devices with NVIDIA FP64 tensor cores the DGEMM tensor-core kernel's; sorted by a key of the
 * parameters so that a configuration is found by binary search (seeds, resumed candidates).
 * Kept apart from the search's order (tune_gemm_order.c): what may be tried is one question,
 * in which order another. Prints the "N configurations, M left after pruning (...)" line.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "tune_gemm_int.h"
#include "tune_space.h"

#ifndef CL_DEVICE_REGISTERS_PER_BLOCK_NV
#define CL_DEVICE_REGISTERS_PER_BLOCK_NV 0x4002
#endif

static uint64_t pkey(const chg_gemm_params_t *p)
{
    return (uint64_t)p->mwg << 48 | (uint64_t)p->nwg << 38 | (uint64_t)p->kwg << 31 |
           (uint64_t)p->mdimc << 24 | (uint64_t)p->ndimc << 17 | (uint64_t)p->vwm << 13 |
           (uint64_t)p->vwn << 9 | (uint64_t)p->sa << 8 | (uint64_t)p->sb << 7 | (uint64_t)p->kwi |
           (uint64_t)p->mma << 57 | (uint64_t)p->wm << 60;
}

static int cmp_cand(const void *a, const void *b)
{
    uint64_t x = ((const cand_t *)a)->key, y = ((const cand_t *)b)->key;
    return (x > y) - (x < y);
}

int tg_find(const search_t *s, const chg_gemm_params_t *p)
{
    const uint64_t k = pkey(p);
    int lo = 0, hi = s->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (s->c[mid].key == k) return mid;
        if (s->c[mid].key < k) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* Appends p (not yet timed) to the space, unsorted. 0, or -1 when out of memory. */
static int add_cand(search_t *s, const chg_gemm_params_t *p)
{
    if ((size_t)s->n == s->cap) {
        const size_t cap = s->cap ? 2 * s->cap : 4096;
        cand_t *g = realloc(s->c, cap * sizeof *g);
        if (!g) return -1;
        s->c = g;
        s->cap = cap;
    }
    cand_t *c = &s->c[s->n++];
    memset(c, 0, sizeof *c);
    c->p = *p;
    c->key = pkey(p);
    c->kgf = -1;
    return 0;
}

typedef struct space_count_s {
    long raw;
    long pruned[TS_COUNT];
    cl_uint regs_per_block; /* reported by the driver (NVIDIA), else 0 */
} space_count_t;

/* ---- the two kernels' configurations --------------------------------------------------------- */

static int add_fma(void *arg, const chg_gemm_params_t *p) { return add_cand(arg, p); }

/* The FMA kernel: tiles, k slice, work-group, vector widths, staging, KWI (tune_space.c). */
static int enumerate_fma(search_t *s, space_count_t *cnt)
{
    return tune_fma_space(&s->d->dev, s->prec, s->gpu, cnt->regs_per_block, add_fma, s,
                          &cnt->raw, cnt->pruned);
}

/* The FP64 tensor-core kernel (cl/gemm.cl MMA) where the device has it: every shape, tile,
 * k slice, work-group of 2-16 warps, warp arrangement and load width that
 * chg_gemm_params_valid accepts (whole mma instructions per warp, at most 128 accumulators,
 * local memory); SA/SB: both panels staged, B read from global memory, or both; KWI does
 * not apply. */
static int enumerate_mma(search_t *s, space_count_t *cnt)
{
    static const int mtiles[] = {32, 64, 96, 128, 192, 256}, mkwgs[] = {4, 8, 16, 32};
    static const int wgs[][2] = {{16, 4}, {16, 8}, {32, 8}, {16, 16}, {32, 16}, {32, 32}};
    static const int wms[] = {1, 2, 4, 8}, mvws[] = {1, 2, 4};
    for (int mma = 1; mma <= 4; mma++)
    for (int a = 0; a < 6; a++)
    for (int b = 0; b < 6; b++)
    for (int kk = 0; kk < 4; kk++)
    for (int w = 0; w < 6; w++)
    for (int wmi = 0; wmi < 4; wmi++)
    for (int vm = 0; vm < 3; vm++)
    for (int vn = 0; vn < 3; vn++)
    for (int st = 0; st < 3; st++) {
        /* both panels staged, or B (the smaller reuse) read from global memory, or both */
        chg_gemm_params_t p = {mtiles[a], mtiles[b], mkwgs[kk], wgs[w][0], wgs[w][1],
                               mvws[vm], mvws[vn], st < 2, st == 0, mkwgs[kk], mma, wms[wmi], 0, 0, 0, 0};
        cnt->raw++;
        char why[160] = "";
        if (!chg_gemm_params_valid(&s->d->dev, s->prec, &p, why, sizeof why)) {
            cnt->pruned[strstr(why, "local memory") ? TS_LMEM
                        : strstr(why, "accumulators") ? TS_REG
                        : strstr(why, "work-group limit") ? TS_WG : TS_DIV]++;
            continue;
        }
        if (add_cand(s, &p) != 0) return -1;
    }
    return 0;
}

/* The space's line: how many configurations, how many left, pruned for what. */
static void say_space(search_t *s, const space_count_t *cnt)
{
    char line[600];
    int len = snprintf(line, sizeof line, "%ld configurations, %d left after pruning (", cnt->raw, s->n);
    for (int i = 0; i < TS_COUNT; i++)
        if (cnt->pruned[i] && len < (int)sizeof line)
            len += snprintf(line + len, sizeof line - len, "%s%s %ld", len > 0 && line[len - 1] != '(' ? ", " : "",
                            tune_space_prune_names[i], cnt->pruned[i]);
    tune_say(s->r, "%s %cgemm space: %s)", s->d->log_prefix, s->pc, line);
    if (cnt->regs_per_block)
        tune_log(s->r, "%s registers per block reported by the driver: %u", s->d->log_prefix,
                 cnt->regs_per_block);
}

int tg_enumerate(search_t *s)
{
    const chg_device_t *dev = &s->d->dev;
    space_count_t cnt;
    memset(&cnt, 0, sizeof cnt);
    if (clGetDeviceInfo(dev->info.device, CL_DEVICE_REGISTERS_PER_BLOCK_NV,
                        sizeof cnt.regs_per_block, &cnt.regs_per_block, NULL) != CL_SUCCESS)
        cnt.regs_per_block = 0;
    s->cap = 4096;
    s->c = malloc(s->cap * sizeof *s->c);
    if (!s->c) return -1;
    s->n = 0;
    if (enumerate_fma(s, &cnt) != 0) return -1;
    if (s->prec == CHG_F64 && (dev->features & CHG_FEAT_NV_MMA_F64) && enumerate_mma(s, &cnt) != 0)
        return -1;
    qsort(s->c, (size_t)s->n, sizeof *s->c, cmp_cand);
    say_space(s, &cnt);
    return 0;
}

int tg_ensure(search_t *s, const chg_gemm_params_t *p)
{
    int i = tg_find(s, p);
    if (i >= 0) return i;
    if (!chg_gemm_params_valid(&s->d->dev, s->prec, p, NULL, 0)) return -1;
    if (add_cand(s, p) != 0) return -1;
    qsort(s->c, (size_t)s->n, sizeof *s->c, cmp_cand);
    return tg_find(s, p);
}
