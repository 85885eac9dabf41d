/*
 * tiny_select.c -- the CPU route's choice between the small-matrix kernel and OpenBLAS, measured
 * on this host cell by cell, the first time a call falls in each (tiny_select.h).
 */
#include "cpu/tiny_select.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/trace.h"
#include "base/util.h"

atomic_int chg_tiny_state_ = CHG_TINY_UNREAD;
atomic_uchar chg_tiny_table_[2][CHG_TINY_CELLS];
/* Each measured cell's ratio of times (for the verbose table): written by the thread that
 * measured it before its byte's release store, read after an acquire load that saw it final. */
static double g_ratio[2][CHG_TINY_CELLS];
static atomic_uint g_measured;  /* cells measured (chg_tiny_measured) */
static atomic_int g_table_logged; /* the verbose first call's whole table: claimed once */

const uint8_t chg_tiny_bucket_[CHG_TINY_MAX + 1] = {
    0, 0, 0, 0, 0, 0, 0,                /* 0 .. 6 */
    1, 1, 1, 1, 1, 1,                   /* 7 .. 12 */
    2, 2, 2, 2, 2, 2, 2, 2,             /* 13 .. 20 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* 21 .. 32 */
};
/* tiny.c's panels: floats 16 wide from m = 16, 8 from 8, 4 from 4 (padded below); doubles 8, 4, 2
 * (padded at 1); the rows left past whole panels take one more that overlaps the one before. */
#define W_ CHG_TINY_WHOLE
#define O_ CHG_TINY_OVERLAP
const uint8_t chg_tiny_kind_[2][CHG_TINY_MAX + 1] = {
    [CHG_F32] = {0, 0, 0, 0, W_, O_, O_, O_, W_, O_, O_, O_, O_, O_, O_, O_, W_,
                 O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, W_},
    [CHG_F64] = {0, 0, W_, O_, W_, O_, O_, O_, W_, O_, O_, O_, O_, O_, O_, O_, W_,
                 O_, O_, O_, O_, O_, O_, O_, W_, O_, O_, O_, O_, O_, O_, O_, W_},
};
#undef W_
#undef O_

/* The representative product of a cell, by size bucket: C's rows m by the panels' kind (padded:
 * floats 3, doubles 1; whole; overlapping; square: the cell's one size), n = k by kind; calls per
 * timed sample (a sample of about 1-2 us: a clock reading is some 20 ns). The whole cells'
 * products are not square (a square one is a square cell's, on other code). */
static const int kRepM[2][4][4] = {{{3, 3, 3, 3}, {4, 8, 16, 32}, {6, 12, 20, 28}, {4, 8, 16, 32}},
                                   {{1, 1, 1, 1}, {4, 8, 16, 32}, {6, 12, 20, 28}, {4, 8, 16, 32}}};
static const int kRepNK[4][4] = {{5, 10, 16, 28}, {5, 7, 13, 28}, {6, 12, 20, 28}, {4, 8, 16, 32}};
static const int kCalls[4] = {48, 16, 6, 2};
#define SAMPLES 11
#define TIE 0.97 /* the kernel takes a cell only below this ratio of times */

/* A child of fork() has only the thread that forked: a cell that another thread was measuring
 * goes back to unknown, to be measured again there (else OpenBLAS for good in that cell). */
static void on_fork_child(void)
{
    for (int p = 0; p < 2; p++)
        for (unsigned cell = 0; cell < CHG_TINY_CELLS; cell++) {
            unsigned char v = CHG_TINY_MEASURING;
            atomic_compare_exchange_strong(&chg_tiny_table_[p][cell], &v, CHG_TINY_UNKNOWN);
        }
}

/* Every cell to OpenBLAS (off) or the kernel (on): nothing to measure. */
static void fill_table(int s)
{
    for (int p = 0; p < 2; p++)
        for (unsigned cell = 0; cell < CHG_TINY_CELLS; cell++)
            atomic_store_explicit(&chg_tiny_table_[p][cell], s == CHG_TINY_ON ? CHG_TINY_KERNEL : CHG_TINY_BLAS,
                                  memory_order_release);
}

static int read_mode(void)
{
    static const char *const choices[] = {"auto", "off", "on", NULL};
    const int c = chg_env_choice("CLHGEMM_TINY", choices, 0);
    int v = c == 1 ? CHG_TINY_OFF : c == 2 ? CHG_TINY_ON : CHG_TINY_AUTO, expected = CHG_TINY_UNREAD;
    if (!atomic_compare_exchange_strong(&chg_tiny_state_, &expected, v)) return expected;
    /* the one thread that set the mode */
    if (v == CHG_TINY_AUTO)
        pthread_atfork(NULL, NULL, on_fork_child);
    else
        fill_table(v);
    return v;
}

int chg_tiny_mode(void)
{
    const int s = atomic_load_explicit(&chg_tiny_state_, memory_order_acquire);
    return s == CHG_TINY_UNREAD ? read_mode() : s;
}

static double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            const double t = v[j]; v[j] = v[j - 1]; v[j - 1] = t;
        }
    return v[n / 2];
}

/* One cell: the median over SAMPLES of (kernel time / OpenBLAS time) on its representative
 * product, the two timed alternately (which goes first alternating too), after one untimed
 * round; 0 when there is no OpenBLAS to compare with. */
static double cell_ratio(chg_precision_t prec, unsigned cell, chg_tiny_ref_fn ref, const void *a, const void *b,
                         void *c)
{
    const double beta = cell >> 6 & 1u ? 0.0 : 0.5;
    const int ta = cell >> 5 & 1u ? 112 : 111, tb = cell >> 4 & 1u ? 112 : 111;
    const int bucket = (int)(cell >> 2 & 3u), kind = (int)(cell & 3u), calls = kCalls[bucket];
    const int m = kRepM[prec][kind][bucket], n = kRepNK[kind][bucket], k = n;
    const int lda = ta == 111 ? m : k, ldb = tb == 111 ? k : n;
    double r[SAMPLES];
    for (int s = -1; s < SAMPLES; s++) {
        unsigned long long t[2] = {0, 0};
        for (int half = 0; half < 2; half++) {
            const int kern = (half == 0) == (s % 2 == 0);
            const unsigned long long t0 = chg_now_ns();
            for (int i = 0; i < calls; i++) {
                if (kern)
                    chg_tiny_gemm(prec, 102, ta, tb, m, n, k, 1.0, a, lda, b, ldb, beta, c, m);
                else if (ref(prec, 102, ta, tb, m, n, k, 1.0, a, lda, b, ldb, beta, c, m) != 0)
                    return 0;
            }
            t[kern] = chg_now_ns() - t0;
        }
        if (s >= 0) r[s] = (double)t[1] / (double)(t[0] > 0 ? t[0] : 1);
    }
    return median(r, SAMPLES);
}

/* "NN 3x5 0.71+ 4 0.80+ 6 1.02 ..." for one precision, beta and transpose pair: each cell's
 * representative m x n = k (or n), its ratio of times, '+' where the kernel takes it. */
static void log_row(chg_precision_t prec, unsigned base, const double *ratio, const uint8_t *table)
{
    char line[320];
    int len = snprintf(line, sizeof line, "tiny: %s beta %s %c%c:", prec == CHG_F64 ? "d" : "s",
                       base >> 6 & 1u ? "0" : "!0", base >> 5 & 1u ? 'T' : 'N', base >> 4 & 1u ? 'T' : 'N');
    for (unsigned i = 0; i < 16 && len > 0 && len < (int)sizeof line; i++) {
        const unsigned cell = base | i, kind = cell & 3u, bucket = cell >> 2 & 3u;
        const int m = kRepM[prec][kind][bucket], n = kRepNK[kind][bucket];
        if (m == n)
            len += snprintf(line + len, sizeof line - (size_t)len, " %d %.2f%s", n, ratio[cell], table[cell] ? "+" : "");
        else
            len += snprintf(line + len, sizeof line - (size_t)len, " %dx%d %.2f%s", m, n, ratio[cell],
                            table[cell] ? "+" : "");
    }
    chg_log(1, "%s", line);
}

/* A, B and C of one precision, CHG_TINY_MAX squared each, of random values in [-0.5, 0.5) (the
 * floats the doubles rounded); NULL when out of memory. */
static void *make_operands(chg_precision_t prec)
{
    const size_t nn = (size_t)CHG_TINY_MAX * CHG_TINY_MAX;
    void *buf = malloc(3 * nn * (prec == CHG_F64 ? sizeof(double) : sizeof(float)));
    if (!buf) return NULL;
    unsigned seed = 12345u;
    for (size_t i = 0; i < 3 * nn; i++) {
        seed = seed * 1664525u + 1013904223u;
        const double v = (double)(seed >> 8) / (double)(1u << 24) - 0.5;
        if (prec == CHG_F64)
            ((double *)buf)[i] = v;
        else
            ((float *)buf)[i] = (float)v;
    }
    return buf;
}

/* Measures one cell if it is unknown (claimed by compare-and-swap, so that no two threads
 * measure one cell): its ratio, then its byte, final (release). ops: make_operands(prec), or
 * NULL to make them here. Returns the cell's byte after (CHG_TINY_MEASURING: another thread's). */
static unsigned measure_cell(chg_precision_t prec, unsigned cell, chg_tiny_ref_fn ref, void *ops)
{
    unsigned char v = CHG_TINY_UNKNOWN;
    if (!atomic_compare_exchange_strong_explicit(&chg_tiny_table_[prec][cell], &v, CHG_TINY_MEASURING,
                                                 memory_order_acquire, memory_order_acquire))
        return v;
    void *own = ops ? NULL : make_operands(prec), *buf = ops ? ops : own;
    const size_t nn = (size_t)CHG_TINY_MAX * CHG_TINY_MAX, es = prec == CHG_F64 ? sizeof(double) : sizeof(float);
    /* out of memory: OpenBLAS in this cell, as when nothing could be measured */
    const double r = buf ? cell_ratio(prec, cell, ref, buf, (char *)buf + nn * es, (char *)buf + 2 * nn * es) : 1.0;
    free(own);
    g_ratio[prec][cell] = r;
    atomic_fetch_add_explicit(&g_measured, 1u, memory_order_relaxed);
    const unsigned out = r < TIE ? CHG_TINY_KERNEL : CHG_TINY_BLAS;
    atomic_store_explicit(&chg_tiny_table_[prec][cell], (unsigned char)out, memory_order_release);
    return out;
}

int chg_tiny_calibrate(chg_tiny_ref_fn ref)
{
    const int s = chg_tiny_mode();
    if (s != CHG_TINY_AUTO) return s;
    const unsigned long long t0 = chg_now_ns();
    int ok = 1;
    for (int p = 0; p < 2; p++) {
        void *ops = make_operands((chg_precision_t)p);
        ok = ok && ops;
        for (unsigned cell = 0; cell < CHG_TINY_CELLS; cell++) measure_cell((chg_precision_t)p, cell, ref, ops);
        free(ops);
    }
    /* cells other threads were measuring meanwhile (0.1 ms each): their ratios, for the log */
    const unsigned long long t1 = chg_now_ns();
    for (int p = 0; p < 2; p++)
        for (unsigned cell = 0; cell < CHG_TINY_CELLS; cell++)
            while (atomic_load_explicit(&chg_tiny_table_[p][cell], memory_order_acquire) < CHG_TINY_BLAS &&
                   chg_now_ns() - t1 < 1000000000ull)
                sched_yield();
    chg_log(1, "tiny: kernel against OpenBLAS measured in %.1f ms (ratio of times per cell, '+': the kernel)",
            (chg_now_ns() - t0) * 1e-6);
    if (ok && chg_verbose() >= 1)
        for (int p = 0; p < 2; p++) {
            double ratio[CHG_TINY_CELLS];
            uint8_t table[CHG_TINY_CELLS];
            for (unsigned cell = 0; cell < CHG_TINY_CELLS; cell++) {
                const unsigned v = atomic_load_explicit(&chg_tiny_table_[p][cell], memory_order_acquire);
                table[cell] = v == CHG_TINY_KERNEL;
                ratio[cell] = v >= CHG_TINY_BLAS ? g_ratio[p][cell] : 0.0;
            }
            for (unsigned base = 0; base < CHG_TINY_CELLS; base += 16)
                log_row((chg_precision_t)p, base, ratio, table);
        }
    return CHG_TINY_AUTO;
}

int chg_tiny_use_slow(chg_precision_t prec, unsigned cell, chg_tiny_ref_fn ref)
{
    const int s = chg_tiny_mode();
    if (s != CHG_TINY_AUTO) return s; /* off or on (the table filled when it was read) */
    /* CLHGEMM_VERBOSE=1: the first such call measures and logs the whole table, as documented */
    if (chg_verbose() >= 1 && !atomic_load_explicit(&g_table_logged, memory_order_relaxed) &&
        !atomic_exchange(&g_table_logged, 1))
        chg_tiny_calibrate(ref);
    const unsigned v = measure_cell(prec, cell, ref, NULL);
    return v >= CHG_TINY_BLAS ? (int)(v & 1u) : 0; /* another thread measuring it: OpenBLAS meanwhile */
}

unsigned chg_tiny_measured(void) { return atomic_load(&g_measured); }

void chg_tiny_reset(void)
{
    const int s = chg_tiny_mode();
    if (s != CHG_TINY_AUTO) {
        fill_table(s);
        return;
    }
    for (int p = 0; p < 2; p++)
        for (unsigned cell = 0; cell < CHG_TINY_CELLS; cell++)
            atomic_store(&chg_tiny_table_[p][cell], CHG_TINY_UNKNOWN);
    atomic_store(&g_table_logged, 0);
}
