/*
 * tiny_select.h -- which small GEMMs of the CPU route run cpu/tiny.h's kernel and which OpenBLAS
 * (tiny_select.c owns it), so that a call routed to the CPU costs no more than a direct OpenBLAS
 * call on every host.
 *
 * Whether the kernel beats the CPU BLAS depends on the host: on the EPYC development VM it won
 * most shapes up to 32, on the H100 machine's Xeon OpenBLAS 0.3.21's own small-matrix kernels
 * were up to 2x faster in others (d col TT n = 8: 88 ns against 44). So the choice is measured
 * on this host, per cell -- precision, beta zero or not, A and B transposed or not in the
 * column-major view, a size bucket of max(m, n, k) (<= 6, 12, 20, 32) and how the kernel's
 * vector panels cover C's rows in the column-major view (one padded panel, whole panels, or a
 * last panel overlapping the one before): one representative product, the kernel and OpenBLAS
 * timed alternately, the median of their ratios; the kernel takes the cell only where it is at
 * least 3% faster (a tie goes to OpenBLAS). A cell is measured lazily, the first time a
 * CPU-routed GEMM with m, n, k <= CHG_TINY_MAX falls in it (never on a path that could not use
 * the kernel), on that call's thread: about 0.1 ms, where all 256 cells took 10-12 ms on the H100
 * host's Xeon -- a program pays only for the cells it uses. Each cell's byte of chg_tiny_table_
 * says unknown, being measured, OpenBLAS or the kernel; a thread that finds its cell being
 * measured by another uses OpenBLAS for that call (nothing waits, no cell is measured twice).
 * A measured cell then costs a few loads per call (chg_tiny_use). With CLHGEMM_VERBOSE=1 the
 * first such call measures every cell at once instead (chg_tiny_calibrate) and logs the table.
 * A child of fork() measures again the cells that were being measured when it was made.
 *
 * CLHGEMM_TINY=auto|off|on (read once per process, chg_env_choice): auto as above; off: every
 * call to OpenBLAS; on: the kernel for every call with m, n, k <= CHG_TINY_MAX (tests).
 */
#ifndef CHG_CPU_TINY_SELECT_H
#define CHG_CPU_TINY_SELECT_H

#include <stdatomic.h>
#include <stdint.h>

#include "cpu/tiny.h"
#include "kernels/precision.h"

/* chg_tiny_state_: CLHGEMM_TINY not read yet, off, on, auto (the cells measured lazily). */
enum { CHG_TINY_UNREAD = -1, CHG_TINY_OFF = 0, CHG_TINY_ON = 1, CHG_TINY_AUTO = 2 };
extern atomic_int chg_tiny_state_;
/* The table's cells per precision (chg_tiny_cell; all 128 used). */
#define CHG_TINY_CELLS 128
/* A cell's byte of chg_tiny_table_: not measured yet (zero, the table's initial value), being
 * measured by some thread, OpenBLAS, the kernel (the answer in bit 0 of the last two). */
enum { CHG_TINY_UNKNOWN = 0, CHG_TINY_MEASURING = 1, CHG_TINY_BLAS = 2, CHG_TINY_KERNEL = 3 };
/* Per precision and cell (chg_tiny_cell): UNKNOWN -> MEASURING (compare-and-swap by the thread
 * that measures it) -> BLAS or KERNEL (release store, final); read with acquire. With
 * CLHGEMM_TINY off or on, every cell is set to BLAS or KERNEL when the variable is read. */
extern atomic_uchar chg_tiny_table_[2][CHG_TINY_CELLS];
/* max(m, n, k) -> size bucket 0 .. 3 (<= 6, 12, 20, 32); per precision, C's rows m (column-major
 * view) -> how tiny.c's panels cover them: CHG_TINY_PADDED (one panel padded with zeros: floats
 * m < 4, doubles m = 1), CHG_TINY_WHOLE (whole vectors: floats 4, 8, 16, 32; doubles 2, 4, 8,
 * 16, 24, 32), CHG_TINY_OVERLAP (a last panel overlapping the one before); and m = n = k = 4, 8,
 * 16 or 32 (one per size bucket), which tiny.c runs on code of constant sizes, CHG_TINY_SQUARE. */
enum { CHG_TINY_PADDED = 0, CHG_TINY_WHOLE = 1, CHG_TINY_OVERLAP = 2, CHG_TINY_SQUARE = 3 };
extern const uint8_t chg_tiny_bucket_[CHG_TINY_MAX + 1];
extern const uint8_t chg_tiny_kind_[2][CHG_TINY_MAX + 1];

/* The CPU BLAS's GEMM as cpu/route_calls.h has it (chg_cpu_blas_gemm), which the calibration times
 * against the kernel (passed in, so that this module does not depend on route_calls). */
typedef int (*chg_tiny_ref_fn)(chg_precision_t prec, int layout, int ta, int tb, int m, int n, int k, double alpha,
                               const void *a, int lda, const void *b, int ldb, double beta, void *c, int ldc);

/* The table's cell of a call (column-major view: row-major swaps m with n and A with B; layout
 * and transposes as clhgemm's enums, CBLAS's values: row-major 101, no transpose 111), m, n, k
 * in 0 .. CHG_TINY_MAX: bit 6 beta == 0, bit 5 A transposed, bit 4 B transposed, bits 2-3 the
 * size bucket, bits 0-1 the panels' kind (CHG_TINY_SQUARE for the square sizes). */
static inline unsigned chg_tiny_cell(chg_precision_t prec, int layout, int ta, int tb, int m, int n, int k,
                                     double beta)
{
    const int row = layout == 101;
    const unsigned tra = (row ? tb : ta) != 111, trb = (row ? ta : tb) != 111;
    const int big = m > n ? (m > k ? m : k) : (n > k ? n : k);
    /* m = n = k a power of two from 4 (the sizes are at most CHG_TINY_MAX = 32 here) */
    const int square = m == n && n == k && m >= 4 && (m & (m - 1)) == 0;
    return (unsigned)(beta == 0.0) << 6 | tra << 5 | trb << 4 | (unsigned)chg_tiny_bucket_[big] << 2 |
           (square ? (unsigned)CHG_TINY_SQUARE : chg_tiny_kind_[prec][row ? n : m]);
}

/* The answer for a cell not measured yet (reads CLHGEMM_TINY the first time; in auto measures
 * the cell, or with CLHGEMM_VERBOSE >= 1 the whole table, unless another thread is measuring it:
 * then 0, OpenBLAS, for this call). */
int chg_tiny_use_slow(chg_precision_t prec, unsigned cell, chg_tiny_ref_fn ref);

/* 1 when the CPU route runs this GEMM (arguments checked, m, n, k >= 0) on the kernel, 0 for
 * OpenBLAS. Inline: three compares, the cell (two table loads) and the cell's byte (one
 * acquire load, a plain load on x86-64); the slow path only until the cell is measured. */
static inline int chg_tiny_use(chg_precision_t prec, int layout, int ta, int tb, int m, int n, int k, double beta,
                               chg_tiny_ref_fn ref)
{
    if (m > CHG_TINY_MAX || n > CHG_TINY_MAX || k > CHG_TINY_MAX) return 0;
    const unsigned cell = chg_tiny_cell(prec, layout, ta, tb, m, n, k, beta);
    const unsigned v = atomic_load_explicit(&chg_tiny_table_[prec][cell], memory_order_acquire);
    if (v >= CHG_TINY_BLAS) return (int)(v & 1u);
    return chg_tiny_use_slow(prec, cell, ref);
}

/* CLHGEMM_TINY as read (CHG_TINY_OFF, CHG_TINY_ON or CHG_TINY_AUTO; reads it the first time),
 * without measuring anything. */
int chg_tiny_mode(void);

/* Measures now every cell of both precisions not measured yet if CLHGEMM_TINY=auto (cells that
 * other threads are measuring meanwhile: waits for them, up to a second), and with
 * CLHGEMM_VERBOSE >= 1 logs the table; tests use it. Returns chg_tiny_mode(). */
int chg_tiny_calibrate(chg_tiny_ref_fn ref);

/* How many cells this process has measured (tests: one per cell, never twice). */
unsigned chg_tiny_measured(void);

/* Tests only, with no call in flight: every cell back to CHG_TINY_UNKNOWN (auto; off and on:
 * the table as set when the variable was read). */
void chg_tiny_reset(void);

#endif
