/*
 * codegen.h -- generator of the copy/pack kernels (codegen.c owns it).
 *
 * The GEMM kernel wants its operands packed (params.h). These kernels put them there and put
 * the result back, and they are generated at run time from a small explicit parameter set in
 * the spirit of Matsumoto et al.'s copying kernels: a two-level blocking (work-group tile TILE_I x
 * TILE_P, work-item tile WPT_I x WPT_P, loops over the work-item tile unrolled UD_I / UD_P times,
 * fully by default) plus a local-memory padding for the transposing variant. Kinds:
 *   PACK      dst[dst_off + (i/blk)][p][i%blk] = X(i,p) for i < rows, p < cols, zero elsewhere up to the
 *             padded extents; X(i,p) = src[off + i + p*ld] (SRC_CONTIG_I) or
 *             src[off + p + i*ld] (transposing, staged through local memory for coalescing).
 *   WRITEBACK C(i,j) = alpha*Cp(i,j) + beta*C(i,j) on column-major C; BETA_ZERO never reads C.
 *   SCALE     C(i,j) = beta*C(i,j); BETA_ZERO writes zeros without reading C.
 * Kinds for the other level-3 routines (src/core/l3_map.c). The structured packs take the sub-block
 * X(i0.., p0..) of a matrix of which only one triangle is stored, with diag = i0 - p0 (global
 * row minus global column at local (0,0)), so that element (i,p) of the sub-block lies in the
 * upper triangle when i + diag <= p (lower: >= p); `upper` and `unit` are run-time arguments:
 *   PACK_SYM  like PACK, X symmetric: inside the stored triangle X(i,p) = src[off + i*si + p*sp],
 *             outside it X(p,i) = src[off_m + p*si + i*sp] ((si, sp) = (1, ld) when
 *             SRC_CONTIG_I, else (ld, 1)); the other triangle of the source is never read.
 *   PACK_TRI  like PACK, X triangular: inside the triangle as PACK_SYM, outside zero (not read);
 *             with unit != 0 the diagonal is 1 (not read).
 *   WRITEBACK_TRI, SCALE_TRI  WRITEBACK / SCALE on the elements of C with i + diag <= j (upper)
 *             or >= j (lower) only; the rest of C is neither read nor written.
 * Complex operands (cplx; the C and Z routines on the real GEMM kernel by the 1m method of Van
 * Zee and Smith, "Implementing high-performance complex matrix multiplication via the 1m
 * method", SIAM J. Sci. Comput. 2017): the source and C hold interleaved (re, im) pairs and
 * every count, offset and leading dimension of them is in complex elements. A pack reads the
 * complex X(i,p) (any of the three kinds, always staged through local memory), takes conj(X)
 * when the run-time `conj` is set and multiplies by the run-time complex `scale`, and writes
 * the real packed operand of the kernel's real product Cr = Xr_A * Xr_B^T, where Cr is C's
 * memory read as a real 2m x n matrix (rows 2i, 2i+1: the real and imaginary parts of row i):
 *   cplx 1 (X_A)  2 x 2 real blocks: Xr_A(2i.., 2p..) = [re -im; im re] of X(i,p) (2m x 2k);
 *   cplx 2 (X_B)  Xr_B(j, 2p) = re, Xr_B(j, 2p + 1) = im of X(j,p) (n x 2k),
 * so that the real kernel's 4mnk multiply-adds are exactly the complex product's. rows, cols,
 * ipad, ppad count complex elements; blk, pstride and dst_off count the destination's reals.
 * herm (PACK_SYM): X Hermitian, the mirrored elements conjugated and the diagonal's imaginary
 * part taken as zero (never read). The update kinds with cplx take complex alpha and beta and
 * C (Cp: the real kernel's 2m x n result, i.e. complex with leading dimension ldcp); with herm
 * (the _TRI kinds: HERK, HER2K) the diagonal of C is real: its imaginary part is not read and
 * is written as zero, beta's as well as the product's.
 * CLHGEMM_DUMP_KERNELS=dir writes every generated source (through the program cache).
 */
#ifndef CHG_CODEGEN_H
#define CHG_CODEGEN_H

#include "kernels/params.h"

typedef enum {
    CHG_COPY_PACK = 0,
    CHG_COPY_WRITEBACK = 1,
    CHG_COPY_SCALE = 2,
    CHG_COPY_PACK_SYM = 3,
    CHG_COPY_PACK_TRI = 4,
    CHG_COPY_WRITEBACK_TRI = 5,
    CHG_COPY_SCALE_TRI = 6
} chg_copy_kind_t;

typedef struct chg_copy_params_s {
    chg_copy_kind_t kind;
    chg_precision_t prec;
    int src_contig_i;  /* PACK: source contiguous along i (no transpose on the way) */
    int beta_zero;     /* WRITEBACK/SCALE: beta == 0, C is never read */
    int tile_i, tile_p; /* work-group tile in elements (i is the contiguous output dimension) */
    int wpt_i, wpt_p;   /* elements per work-item in each dimension */
    int pad;            /* extra local-memory columns for the transposing PACK (bank conflicts) */
    int ud_i, ud_p;     /* unroll degrees of the work-item loops along i and p (Matsumoto
                         * et al.'s M_ud, N_ud); 0 = unroll completely. The transposing PACK has one
                         * loop per phase: ud_p unrolls its reads (along p), ud_i its writes. */
    int cplx;           /* complex elements (above): packs 1 = X_A, 2 = X_B; updates 1 */
    int herm;           /* PACK_SYM: Hermitian; WRITEBACK_TRI / SCALE_TRI: C's diagonal real */
} chg_copy_params_t;

/* The argument index of a complex pack's `conj` (then its `scale`): every complex pack takes
 * the structured packs' arguments 0-14 (the general kind ignores 11-14). */
#define CHG_PACK_CPLX_ARG 15

/* Defaults for a device class. */
void chg_copy_params_default(const chg_device_t *dev, chg_copy_kind_t kind, chg_precision_t prec,
                             chg_copy_params_t *p);

/* 1 when the parameter set is consistent and fits the device (why gets the reason if not). */
int chg_copy_params_valid(const chg_device_t *dev, const chg_copy_params_t *p, char *why,
                          size_t why_len);

/* Generates the kernel source into s (feature macros included). *kernel_name receives the
 * entry point (static string). Returns 0, or -1 on invalid parameters. */
int chg_copy_generate(const chg_device_t *dev, const chg_copy_params_t *p, chg_str_t *s,
                      const char **kernel_name);

/* Work sizes for a launch covering an extent_i x extent_p index space. */
void chg_copy_work_size(const chg_copy_params_t *p, size_t extent_i, size_t extent_p,
                        size_t global[2], size_t local[2]);

#endif
