/*
 * gemm.h -- the device GEMM core (gemm.c owns it): one column-major entry point that every
 * level-3 routine and the front end funnel into. It plans blocks that keep the temporaries
 * within a bounded per-queue workspace, packs op(A) and op(B) with the generated copy kernels,
 * runs the GEMM kernel (accumulating over k blocks) and writes back alpha*Cp + beta*C.
 * Arguments are assumed valid (api.c and level3.c check them).
 *
 * The other level-3 routines (level3.c) describe themselves to the same core with a
 * chg_struct_t: which packed operand is symmetric or triangular (a structured pack fills it
 * from its stored triangle), and whether only one triangle of C is wanted (the kernel then
 * computes only the tiles that touch it and the write-back is masked). Everything is said in
 * pack coordinates: X_A = op(A), whose rows run along C's rows, and X_B = op(B)^T, whose rows run
 * along C's columns; both have k along their columns. trans_a / trans_b say how X is read from
 * memory, as for GEMM: X_A(i,p) = A[i + p*lda] unless trans_a (then A[p + i*lda]), X_B(j,p) =
 * B[p + j*ldb] unless trans_b (then B[j + p*ldb]).
 */
#ifndef CHG_GEMM_H
#define CHG_GEMM_H

#include "kernels/codegen.h"

typedef enum { CHG_GENERAL = 0, CHG_SYMMETRIC = 1, CHG_TRIANGULAR = 2 } chg_struct_kind_t;
enum { CHG_TRI_NONE = 0, CHG_TRI_UPPER = 1, CHG_TRI_LOWER = 2 };

/* Structure of a level-3 problem in pack coordinates; all zero is a plain GEMM. "Upper" means
 * X(i,p) with i <= p in global indices (whole matrix, not block). */
typedef struct chg_struct_s {
    chg_struct_kind_t kind_a, kind_b;
    int upper_a, upper_b; /* the stored (symmetric) / non-zero (triangular) triangle is upper */
    int unit_a, unit_b;   /* triangular with an implicit unit diagonal (not read) */
    int c_tri;            /* CHG_TRI_*: only that triangle of C (m == n) is computed/written */
} chg_struct_t;

typedef struct chg_gemm_args_s {
    chg_precision_t prec;
    int trans_a, trans_b;  /* 0 = no transpose, 1 = transpose (column-major view) */
    size_t m, n, k;
    double alpha, beta;
    cl_mem a, b, c;
    size_t off_a, off_b, off_c;  /* elements */
    size_t lda, ldb, ldc;
    chg_struct_t st;  /* level-3 structure (zero: GEMM) */
    /* SYR2K fused: also accumulate op(B)*op(A) with the buffers of a and b exchanged (same
     * transposes and leading dimensions follow their buffers) into the same Cp, before the one
     * write-back: C := alpha*(op(A)op(B) + op(B')op(A')) + beta*C. */
    int swap_sum;
} chg_gemm_args_t;

/* The caller's view of a GEMM call after the shape checks (api.c): layout and transposes as
 * flags, and the stored shape (rows x cols, rows being what ld strides over) of A, B and C. */
typedef struct chg_shape_s {
    int col, ta, tb;
    size_t a_rows, a_cols, b_rows, b_cols, c_rows, c_cols;
} chg_shape_t;

/* Checks enums, sizes and leading dimensions in the reference BLAS order, each with its own
 * status; shared by the device-buffer and host-memory front ends. */
clhgemm_status_t chg_gemm_check_shape(int layout, int transA, int transB, int m, int n, int k,
                                      int lda, int ldb, int ldc, chg_shape_t *sh);

/* Checks a user buffer that must hold a stored rows x cols matrix (rows along ld) at offset
 * off: NULL -> null_st, another context than ctx -> CLHGEMM_CONTEXT_MISMATCH, too small (without
 * overflow for offsets near SIZE_MAX) -> small_st; OpenCL errors of the queries pass through. */
clhgemm_status_t chg_check_buffer(cl_mem buf, cl_context ctx, size_t off, size_t rows,
                                  size_t cols, size_t ld, size_t es, clhgemm_status_t null_st,
                                  clhgemm_status_t small_st);

/* Enqueues C := alpha*op(A)*op(B) + beta*C (column-major) on queue, after the events in
 * wait_list. *event (if not NULL) receives an event that completes when C is final. */
clhgemm_status_t chg_gemm_enqueue(const chg_gemm_args_t *args, cl_command_queue queue,
                                  cl_uint num_wait, const cl_event *wait_list, cl_event *event);

/* chg_gemm_enqueue for a caller that has resolved the queue's device and context already
 * (chg_queue_device: two queue queries and a search under a lock), so that a call pays it once. */
clhgemm_status_t chg_gemm_enqueue_on(const chg_gemm_args_t *args, const chg_device_t *dev,
                                     cl_context ctx, cl_command_queue queue, cl_uint num_wait,
                                     const cl_event *wait_list, cl_event *event);

/* chg_gemm_enqueue with the kernel parameters gp (valid for the device; NULL: the tuned choice
 * of the call's shape class) and, for a plain GEMM, the split of k split_k (as a class's: 0
 * chosen per call, 1 none, s >= 2 at most s slices). For clhgemm-tune, which times each
 * candidate configuration as the library runs it. */
clhgemm_status_t chg_gemm_enqueue_with(const chg_gemm_args_t *args, const chg_gemm_params_t *gp,
                                       int split_k, cl_command_queue queue, cl_uint num_wait,
                                       const cl_event *wait_list, cl_event *event);

/* Device facts for the queue's device (cached per device). */
clhgemm_status_t chg_queue_device(cl_command_queue queue, const chg_device_t **dev,
                                  cl_context *context);

/* ---- building blocks (used by the blocked core below and by the host pipeline) ----------- */

/* The kernels of one GEMM variant on one device. cl_kernel objects are not thread-safe: each
 * thread that enqueues owns its own set. */
typedef struct chg_gemm_kernels_s {
    chg_precision_t prec;
    chg_gemm_params_t gp;
    cl_kernel pack_a, pack_b, gemm, wb;
    chg_copy_params_t cpa, cpb, cpw;
    /* level-3 variant (chg_l3_kernels_create; zero for chg_gemm_kernels_create) */
    chg_struct_t st;
    int trans_a, trans_b;
    int klimit;  /* the KLIMIT of the GEMM kernel (cl/gemm.cl), 0 when none */
} chg_gemm_kernels_t;

/* Builds (through the program cache) the kernels for op(A) with trans_a, op(B) with trans_b,
 * and a write-back that never reads C when beta_zero. */
clhgemm_status_t chg_gemm_kernels_create(cl_context ctx, const chg_device_t *dev,
                                         chg_precision_t prec, const chg_gemm_params_t *gp,
                                         int trans_a, int trans_b, int beta_zero,
                                         chg_gemm_kernels_t *ks);
void chg_gemm_kernels_release(chg_gemm_kernels_t *ks);

/* Packs op(A)(rows=mc, cols=kc) stored at src+off (column-major, ld) into dst+dst_off in the
 * kernel's block-major layout padded to (mpad, kpad). pack_b does the same for op(B)^T with
 * rows=nc. General operands only (the kernels of chg_gemm_kernels_create); a structured operand
 * goes through chg_enqueue_pack_a_at / _b_at below. dpk: the k extent of the destination's
 * panels when they hold more than this slice (the slice then starts at k row dst_off / block
 * of each panel; 0: the panels are this slice, kpad rows). */
cl_int chg_enqueue_pack_a(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t mc, size_t kc,
                          cl_mem src, size_t off, size_t ld, cl_mem dst, size_t dst_off,
                          size_t dpk, cl_uint nwait, const cl_event *wait, cl_event *ev);
cl_int chg_enqueue_pack_b(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t nc, size_t kc,
                          cl_mem src, size_t off, size_t ld, cl_mem dst, size_t dst_off,
                          size_t dpk, cl_uint nwait, const cl_event *wait, cl_event *ev);
/* Cp(mpad x npad) (+)= Ap(mpad x kpad at aoff) * Bp(kpad x npad at boff): chg_enqueue_kernel_at
 * at the origin, with panels of just these kpad rows (GEMM kernels). */
cl_int chg_enqueue_kernel(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t mpad,
                          size_t npad, size_t kpad, cl_mem ap, size_t aoff, cl_mem bp,
                          size_t boff, cl_mem cp, int accumulate, cl_uint nwait,
                          const cl_event *wait, cl_event *ev);
/* C(mc x nc at off, ldc) := alpha*Cp + beta*C (beta ignored and C not read if beta_zero). */
cl_int chg_enqueue_writeback(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t mc,
                             size_t nc, double alpha, double beta, cl_mem cp, size_t ldcp,
                             cl_mem c, size_t off, size_t ldc, cl_uint nwait, const cl_event *wait,
                             cl_event *ev);

/* ---- level-3 building blocks (the blocked core below uses them; so can the host pipeline,
 * one C tile at a time). Positions i0, j0, p0 are global: the tile's place in the whole C and
 * k range, which is what decides where the triangles are. ------------------------------- */

/* Kernels for a level-3 variant: packs per operand structure (general packs as for GEMM),
 * the GEMM kernel with TRIANGLE / KLIMIT as the structure needs, the (masked) write-back. */
clhgemm_status_t chg_l3_kernels_create(cl_context ctx, const chg_device_t *dev,
                                       chg_precision_t prec, const chg_gemm_params_t *gp,
                                       int trans_a, int trans_b, int beta_zero,
                                       const chg_struct_t *st, chg_gemm_kernels_t *ks);

/* Whether C block (i0.., j0..) of mc x nc touches the wanted triangle of C (always 1 without
 * c_tri): blocks that do not are neither computed nor written. */
int chg_l3_block_needed(const chg_struct_t *st, size_t i0, size_t mc, size_t j0, size_t nc);

/* The k range [*klo, *khi) within [0, k) that can hold a non-zero of a triangular operand for
 * the C block (i0.., j0..); [0, k) when no operand is triangular. */
void chg_l3_k_range(const chg_struct_t *st, size_t i0, size_t mc, size_t j0, size_t nc, size_t k,
                    size_t *klo, size_t *khi);

/* Packs the sub-block X_A(i0..i0+mc, p0..p0+kc) (resp. X_B(j0.., p0..) for pack_b) of the whole
 * operand stored at src+base (element (0,0) of the whole matrix, leading dimension ld) into
 * dst+dst_off, padded as chg_enqueue_pack_a / _b do. Symmetric operands read only their stored
 * triangle (the other half of the block mirrored), triangular ones get zeros outside their
 * triangle and 1 on a unit diagonal without reading either. */
cl_int chg_enqueue_pack_a_at(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t i0,
                             size_t p0, size_t mc, size_t kc, cl_mem src, size_t base, size_t ld,
                             cl_mem dst, size_t dst_off, cl_uint nwait, const cl_event *wait,
                             cl_event *ev);
cl_int chg_enqueue_pack_b_at(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t j0,
                             size_t p0, size_t nc, size_t kc, cl_mem src, size_t base, size_t ld,
                             cl_mem dst, size_t dst_off, cl_uint nwait, const cl_event *wait,
                             cl_event *ev);
/* The same for a structured operand with the addresses given directly, for callers that stage
 * only the parts of A a tile reads (the host pipeline): off addresses X(0,0) of the sub-block
 * and off_m its mirror, element X(p0, i0) of the whole matrix (read by a symmetric pack
 * outside the stored triangle; both with the operand's direction of contiguity and ld), and
 * diag = global row - global column of X(0,0) decides which elements are inside. */
cl_int chg_enqueue_pack_a_struct(cl_command_queue q, const chg_gemm_kernels_t *ks, long diag,
                                 size_t mc, size_t kc, cl_mem src, size_t off, size_t off_m,
                                 size_t ld, cl_mem dst, size_t dst_off, size_t dpk, cl_uint nwait,
                                 const cl_event *wait, cl_event *ev);
cl_int chg_enqueue_pack_b_struct(cl_command_queue q, const chg_gemm_kernels_t *ks, long diag,
                                 size_t nc, size_t kc, cl_mem src, size_t off, size_t off_m,
                                 size_t ld, cl_mem dst, size_t dst_off, size_t dpk, cl_uint nwait,
                                 const cl_event *wait, cl_event *ev);
/* chg_enqueue_kernel for the C block at (i0, j0) and the k range starting at p0 (kpad packed
 * rows, which must follow global k one to one when an operand is triangular): with c_tri only
 * the tiles touching the triangle run (a marker if none does), with a triangular operand each
 * tile runs only its non-zero KWG slices. apk / bpk: the k extents of the packed panels when
 * they hold more than these kpad rows (aoff / boff then select the first row; 0: kpad). */
cl_int chg_enqueue_kernel_at(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t i0,
                             size_t j0, size_t p0, size_t mpad, size_t npad, size_t kpad,
                             cl_mem ap, size_t aoff, size_t apk, cl_mem bp, size_t boff,
                             size_t bpk, cl_mem cp, int accumulate, cl_uint nwait,
                             const cl_event *wait, cl_event *ev);
/* chg_enqueue_writeback for the C block at (i0, j0) (c at off is C(i0, j0)): with c_tri only
 * the elements of the triangle are read and written. */
cl_int chg_enqueue_writeback_at(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t i0,
                                size_t j0, size_t mc, size_t nc, double alpha, double beta,
                                cl_mem cp, size_t ldcp, cl_mem c, size_t off, size_t ldc,
                                cl_uint nwait, const cl_event *wait, cl_event *ev);
/* Tiles of an mt x nt tile grid (mwg x nwg tiles) that touch the upper (or lower) triangle of
 * a block whose (0,0) is at global row - column = diag: the work-group count of a TRIANGLE
 * kernel (must agree with cl/gemm.cl). */
size_t chg_l3_triangle_tiles(int upper, long diag, size_t mt, size_t nt, int mwg, int nwg);

/* ---- direct operands (plain GEMM only) ------------------------------------------------------
 * Where the caller's matrix already has the layout the kernel reads, the blocked core skips a
 * copy (cl/gemm.cl, DIRECT_*): CHG_DIRECT_A reads op(A) = A (not transposed) in place, with
 * lda as the k stride; CHG_DIRECT_B reads op(B)^T = B when B is transposed; CHG_DIRECT_C has
 * the kernel apply alpha/beta and write C itself when a C block takes all of k in one slice (no
 * Cp, no write-back; CHG_DIRECT_BETA0 with it: beta = 0, C never read). A/B need VWM/VWN-aligned
 * offset and leading dimension, k a multiple of KWG, the rows the padded tiles read inside the
 * buffer, and (with DIRECT_C) no overlap with C. By default (CLHGEMM_DIRECT unset or "auto")
 * the FMA kernel uses all of them and the tensor-core kernels only DIRECT_C with beta = 0
 * (the others measured slower there); "on" allows them for both, "off" for neither, a list
 * such as "a,c" only those. */
enum { CHG_DIRECT_A = 1, CHG_DIRECT_B = 2, CHG_DIRECT_C = 4, CHG_DIRECT_BETA0 = 8 };
/* Not a direct mode: chg_gemm_kernel_direct with this flag alone builds the SPLITK variant of
 * the GEMM kernel (core/splitk.h). */
enum { CHG_KERNEL_SPLITK = 16 };

/* The direct modes for a call planned with k slices of kb (kb >= k: one slice). */
int chg_gemm_direct_mode(const chg_gemm_args_t *a, const chg_gemm_params_t *gp, size_t kb);

/* The GEMM kernel variant for a direct mode (non-zero), through the program cache; the FP64
 * tensor-core kernel falls back to the FMA kernel as chg_l3_kernels_create's does. */
clhgemm_status_t chg_gemm_kernel_direct(cl_context ctx, const chg_device_t *dev,
                                        chg_precision_t prec, const chg_gemm_params_t *gp,
                                        int direct, cl_kernel *out);

/* The direct kernel (cl/gemm_direct.cl) for gp (gp->dk set, valid for the device), through the
 * program cache: one launch of C := alpha*op(A)*op(B) + beta*C on the caller's matrices,
 * arguments (m, n, k, alpha, A, offA, lda, transA, B, offB, ldb, transB, beta, C, offC, ldc). */
clhgemm_status_t chg_gemm_direct_kernel(cl_context ctx, const chg_device_t *dev,
                                        chg_precision_t prec, const chg_gemm_params_t *gp,
                                        cl_kernel *out);

/* Kernel sets that device-buffer calls found kept in their queue's workspace (hits) and that
 * they had to create (builds), since the process started: a repeated call makes no program
 * lookup and creates no kernel (tests, benchmarks). */
void chg_gemm_kernel_cache_stats(unsigned long long *hits, unsigned long long *builds);

/* Frees every workspace (waits for their last use). */
void chg_gemm_release_all(void);

/* Budget in bytes for one queue's workspace on this device (CLHGEMM_WORKSPACE_LIMIT caps it). */
unsigned long long chg_workspace_budget(const chg_device_t *dev);

#endif
