/*
 * extent.h -- whether a stored matrix, as a call declares it, can exist in memory: the shape
 * checks of every routine (core/gemm_api.c for GEMM, core/l3_map.c for SYMM,
 * SYRK, SYR2K, TRMM and TRSM) reject a call whose A, B or C would span more bytes than any
 * object can, with CLHGEMM_SIZE_OVERFLOW, before anything is read or written. Without it,
 * m = n = k = lda = ldb = ldc = INT_MAX passed the checks and the host pipeline computed
 * offsets past the caller's buffers (or, at 8 bytes an element, byte counts that wrap size_t).
 *
 * A rows x cols matrix stored with leading dimension ld spans ld * (cols - 1) + rows elements
 * (none when rows or cols is 0). The bound is PTRDIFF_MAX bytes (the largest object C allows a
 * pointer difference over; malloc refuses more) at CHG_EXTENT_ELEM_MAX = 8 bytes an element,
 * the largest element the library has: the shape checks do not know the precision, and a float
 * matrix of over 2^60 elements is beyond every address space too (x86-64: 2^57 bytes at most).
 * The products are checked for overflow (a 32-bit size_t wraps well before that bound).
 */
#ifndef CHG_EXTENT_H
#define CHG_EXTENT_H

#include <stddef.h>
#include <stdint.h>

#define CHG_EXTENT_ELEM_MAX 8u

/* 1 if a rows x cols matrix with leading dimension ld spans at most PTRDIFF_MAX bytes at
 * es bytes an element; 0 otherwise (also when the byte count would overflow size_t). */
static inline int chg_extent_fits(size_t rows, size_t cols, size_t ld, size_t es)
{
    if (rows == 0 || cols == 0) return 1;
    size_t elems, bytes;
    if (__builtin_mul_overflow(ld, cols - 1, &elems) || __builtin_add_overflow(elems, rows, &elems) ||
        __builtin_mul_overflow(elems, es, &bytes))
        return 0;
    return bytes <= (size_t)PTRDIFF_MAX;
}

/* The shape checks' form: A, B and C of a call (B absent: b_cols 0) at the largest element
 * size; CLHGEMM_SIZE_OVERFLOW if any of them cannot exist. */
#define CHG_EXTENTS_FIT(ar, ac, lda, br, bc, ldb, cr, cc, ldc)                                   \
    (chg_extent_fits((ar), (ac), (size_t)(lda), CHG_EXTENT_ELEM_MAX) &&                          \
     chg_extent_fits((br), (bc), (size_t)(ldb), CHG_EXTENT_ELEM_MAX) &&                          \
     chg_extent_fits((cr), (cc), (size_t)(ldc), CHG_EXTENT_ELEM_MAX))

#endif
