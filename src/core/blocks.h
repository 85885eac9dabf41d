/*
 * blocks.h -- the building blocks of a device GEMM (blocks.c owns them): the kernel set of a
 * GEMM or level-3 variant (packs, GEMM kernel, write-back) and the enqueues of one step each --
 * pack a slice of an operand, run the GEMM kernel on packed panels, write a block of C back --
 * with the level-3 structure (symmetric / triangular packs, triangle-only C, k ranges) said in
 * pack coordinates (core/gemm.h explains them). The blocked core (core/gemm.c), the host
 * pipeline (src/host/tile.c) and TRSM compose their calls from these; core/gemm.h includes this
 * header, so its users reach them through it. The last part is for core/gemm.c only: the
 * helpers that its own launches (split-K, the direct variants, C := beta*C) share with these.
 */
#ifndef CHG_BLOCKS_H
#define CHG_BLOCKS_H

#include "kernels/codegen.h"

typedef enum { CHG_GENERAL = 0, CHG_SYMMETRIC = 1, CHG_TRIANGULAR = 2 } chg_struct_kind_t;
enum { CHG_TRI_NONE = 0, CHG_TRI_UPPER = 1, CHG_TRI_LOWER = 2 };

/* Structure of a level-3 problem in pack coordinates; all zero is a plain real GEMM. "Upper"
 * means X(i,p) with i <= p in global indices (whole matrix, not block).
 *
 * cplx: the operands and C are complex (the C and Z routines; kernels/codegen.h says how the
 * packs turn the product into one real product of the GEMM kernel, Van Zee and Smith's 1m).
 * Every count, position, offset and leading dimension said to a building block below is then
 * in complex elements, the tile in complex elements is MWG/2 x NWG x KWG/2 of the real kernel
 * (chg_l3_tile), and the packed A is twice the complex size of its tile (CHG_PACK_A_FACTOR): a
 * complex element of X_A becomes a 2 x 2 real block. The plain GEMM's device paths (split-K,
 * the direct kernel and operands, the tail split) are real only: a complex call is never
 * "general" in their sense. */
typedef struct chg_struct_s {
    chg_struct_kind_t kind_a, kind_b;
    int upper_a, upper_b; /* the stored (symmetric) / non-zero (triangular) triangle is upper */
    int unit_a, unit_b;   /* triangular with an implicit unit diagonal (not read) */
    int c_tri;            /* CHG_TRI_*: only that triangle of C (m == n) is computed/written */
    int cplx;             /* complex elements */
    int conj_a, conj_b;   /* X_A / X_B conjugated (a conjugate transpose, HERK's A^H) */
    int herm_a, herm_b;   /* the symmetric operand is Hermitian (its diagonal's imaginary part
                           * is never read and taken as zero) */
    int herm_c;           /* C Hermitian (HERK, HER2K): its diagonal's imaginary part is not
                           * read and is written as zero */
} chg_struct_t;

/* The packed A's size in elements of the call's type per element of its tile: 2 for complex
 * (each complex X_A(i,p) is a 2 x 2 block of reals), 1 for real. */
#define CHG_PACK_A_FACTOR(st) ((st)->cplx ? 2 : 1)

/* ---- building blocks (the blocked core in core/gemm.c, the host pipeline, TRSM) ---------- */

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
    /* complex: the factor X_A's pack multiplies by (1 + 0i from chg_l3_kernels_create; a
     * caller's copy sets it per product where alpha goes into the pack: HER2K's two products
     * take alpha and conj(alpha), core/l3_map.c) */
    double scale_a[2];
} chg_gemm_kernels_t;

/* The tile of a kernel set in the call's elements (complex: MWG/2 x NWG x KWG/2 of the real
 * kernel, chg_struct_t), what its callers pad m, n and k to. */
chg_gemm_params_t chg_l3_tile(const chg_gemm_params_t *gp, const chg_struct_t *st);

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
/* C(mc x nc at off, ldc) := alpha*Cp + beta*C (beta ignored and C not read if beta_zero).
 * Real kernel sets (chg_enqueue_writeback_at takes complex alpha and beta). */
cl_int chg_enqueue_writeback(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t mc,
                             size_t nc, double alpha, double beta, cl_mem cp, size_t ldcp,
                             cl_mem c, size_t off, size_t ldc, cl_uint nwait, const cl_event *wait,
                             cl_event *ev);

/* ---- level-3 building blocks (the blocked core uses them; so can the host pipeline, one C
 * tile at a time). Positions i0, j0, p0 are global: the tile's place in the whole C and
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
/* The GEMM kernel's diag argument for the C block at (i0, j0) and the k range from p0: global row
 * minus global column at (0, 0) of what the variant looks at -- Cp for TRIANGLE (c_tri), Ap(row,
 * k) or Bp(col, k) for KLIMIT 1-2 / 3-4 (a triangular operand); 0 for neither. */
long chg_kernel_diag(const chg_gemm_kernels_t *ks, size_t i0, size_t j0, size_t p0);
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
 * the elements of the triangle are read and written. alpha and beta are (re, im); a real
 * kernel set takes their real parts. */
cl_int chg_enqueue_writeback_at(cl_command_queue q, const chg_gemm_kernels_t *ks, size_t i0,
                                size_t j0, size_t mc, size_t nc, const double alpha[2],
                                const double beta[2], cl_mem cp, size_t ldcp, cl_mem c,
                                size_t off, size_t ldc, cl_uint nwait, const cl_event *wait,
                                cl_event *ev);
/* Tiles of an mt x nt tile grid (mwg x nwg tiles) that touch the upper (or lower) triangle of
 * a block whose (0,0) is at global row - column = diag: the work-group count of a TRIANGLE
 * kernel (must agree with cl/gemm.cl). */
size_t chg_l3_triangle_tiles(int upper, long diag, size_t mt, size_t nt, int mwg, int nwg);
/* The KLIMIT of the GEMM kernel (cl/gemm.cl) for a TRMM's structure: 1 / 2 a triangular Ap
 * (upper / lower: tile row g runs k from g*MWG / up to (g+1)*MWG), 3 / 4 a triangular Bp (by tile
 * columns and NWG); 0 when neither operand is triangular. */
int chg_l3_klimit(const chg_struct_t *st);
/* Whether the KLIMIT kernel of gp launches its tiles longest k range first (cl/gemm.cl's
 * condition: the FP64 tensor-core kernel, FP32 tiles of 128 x 128 or more), else tile rows
 * fastest. */
int chg_l3_klimit_longest_first(chg_precision_t prec, const chg_gemm_params_t *gp);
/* The share of `slots` work-group slots that a KLIMIT launch of mt x nt tiles of gp over k keeps
 * busy until its last tile ends (diag 0): the slots take the tiles in the kernel's launch order
 * (chg_l3_klimit_longest_first), each the next one when free; a tile costs its KWG slices plus
 * one (its C block). Above 64 tiles a slot the greedy's bound (total / slots + the longest
 * tile) stands in. */
double chg_l3_klimit_fill(int klimit, chg_precision_t prec, const chg_gemm_params_t *gp,
                          size_t mt, size_t nt, size_t k, size_t slots);


/* ---- GEMM kernel variants -------------------------------------------------------------------
 * The direct modes of the blocked core (core/direct.h, chg_gemm_direct_mode, says when each
 * applies): CHG_DIRECT_A reads op(A) = A in place, CHG_DIRECT_B op(B)^T = B, CHG_DIRECT_C has
 * the kernel apply alpha/beta and write C itself, CHG_DIRECT_BETA0 with it: beta = 0, C never
 * read (cl/gemm.cl, DIRECT_*); CHG_DIRECT_BK reads op(B) = B not transposed in place (k-major,
 * kernels that stage B: DIRECT_B 2). CHG_DIRECT_BANY: B read in place either way. */
enum { CHG_DIRECT_A = 1, CHG_DIRECT_B = 2, CHG_DIRECT_C = 4, CHG_DIRECT_BETA0 = 8, CHG_DIRECT_BK = 32 };
#define CHG_DIRECT_BANY (CHG_DIRECT_B | CHG_DIRECT_BK)
/* Not a direct mode: chg_gemm_kernel_direct with this flag alone builds the SPLITK variant of
 * the GEMM kernel (core/splitk.h); with CHG_KERNEL_SPLITK_UNEVEN too, the variant whose last
 * slice may be shorter (SPLITK 2: a tail split's slices that do not divide k; the bound it
 * computes cost the FMA kernel 12% on SGEMM 16384 x 256 x 16384, so even slices keep SPLITK 1). */
enum { CHG_KERNEL_SPLITK = 16, CHG_KERNEL_SPLITK_UNEVEN = 64 };

/* The GEMM kernel variant for a direct mode (non-zero), through the program cache; the FP64
 * tensor-core kernel falls back to the FMA kernel as chg_l3_kernels_create's does. klimit: the
 * KLIMIT variant (a TRMM's triangular operand, chg_gemm_kernels_t.klimit; with CHG_DIRECT_C
 * only), 0 for none. */
clhgemm_status_t chg_gemm_kernel_direct(cl_context ctx, const chg_device_t *dev,
                                        chg_precision_t prec, const chg_gemm_params_t *gp,
                                        int klimit, int direct, cl_kernel *out);

/* ---- for core/gemm.c: the helpers its own launches share with the blocks above ----------- */

/* Sets kernel argument i of k to v unless an earlier one failed (err, a cl_int in scope). */
#define CHG_SETARG(k, i, v) \
    (err = err != CL_SUCCESS ? err : clSetKernelArg(k, i, sizeof(v), &(v)))

/* Sets a real-valued kernel argument in the kernel's precision. */
cl_int chg_set_real(cl_kernel k, cl_uint i, chg_precision_t prec, double v);
/* The same for a complex one (real2: v[0] + i v[1]). */
cl_int chg_set_complex(cl_kernel k, cl_uint i, chg_precision_t prec, const double v[2]);

/* Arguments of the generated WRITEBACK and SCALE kernels (one signature for both); alpha and
 * beta (re, im), complex where cplx, else their real parts. */
cl_int chg_set_update_args(cl_kernel k, chg_precision_t prec, int cplx, size_t mc, size_t nc,
                           const double alpha[2], const double beta[2], cl_mem cp, size_t ldcp,
                           cl_mem c, size_t off, size_t ldc);

/* Kernel from a generated copy program (kernels/codegen.h), through the program cache. */
clhgemm_status_t chg_copy_kernel(cl_context ctx, const chg_device_t *dev,
                                 const chg_copy_params_t *cp, const char *name, cl_kernel *out);

/* Parameters of a pack of kind `kind` whose source runs along i (contig) or across: the tuned
 * PACK parameters, which the structured kinds fall back from to their own defaults where those
 * do not fit. */
void chg_pack_params(const chg_device_t *dev, chg_precision_t prec, chg_copy_kind_t kind,
                     int contig, chg_copy_params_t *cp);

/* The pack kind for an operand's structure. */
chg_copy_kind_t chg_pack_kind(chg_struct_kind_t k);

/* clEnqueueNDRangeKernel over a 2-D range (the wait list ignored when nwait is 0). */
cl_int chg_enqueue_2d(cl_command_queue q, cl_kernel k, const size_t g[2], const size_t l[2],
                      cl_uint nwait, const cl_event *wait, cl_event *ev);

/* Packs X (rows x cols at src+off) into dst+dst_off, block-major with block `blk`, padded to
 * whole blocks along i and to `pmult` along p (dpk as for chg_enqueue_pack_a). */
cl_int chg_enqueue_pack_panel(cl_command_queue q, cl_kernel k, const chg_copy_params_t *cp,
                              int blk, int pmult, size_t rows, size_t cols, cl_mem src,
                              size_t off, size_t ld, cl_mem dst, size_t dst_off, size_t dpk,
                              cl_uint nwait, const cl_event *wait, cl_event *ev);

/* Arguments 0-9 of the GEMM kernel (cl/gemm.cl), common to all its variants; apk / bpk are the
 * packed panels' k extents (0 or kpad: the panels hold just these kpad rows). */
cl_int chg_set_gemm_args(cl_kernel k, size_t kpad, size_t mpad, cl_mem ap, size_t aoff,
                         size_t apk, cl_mem bp, size_t boff, size_t bpk, cl_mem cp,
                         int accumulate);

#endif
