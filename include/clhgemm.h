/*
 * clhgemm.h -- the one public header of libclhgemm.
 *
 * clhgemm computes BLAS level-3 matrix products with OpenCL on whatever devices a machine has.
 * This header declares the status codes, the version query, device discovery, the
 * device-buffer GEMM entry points (clhgemm_{s,d}gemm_cl) that take cl_mem operands and enqueue
 * asynchronously on the caller's command queue, the other level-3 routines on device buffers
 * (clhgemm_{s,d}{symm,syrk,syr2k,trmm,trsm}_cl), and the host-memory GEMM (clhgemm_{s,d}gemm on
 * a handle) that tiles, stages and overlaps the transfers across every selected device, with
 * SYMM, SYRK, SYR2K and TRMM on host memory through the same pipeline and TRSM on its GEMMs,
 * and the factorizations (Cholesky, LU, QR and their solvers) with LAPACK's semantics.
 *
 * Conventions: argument order and enum values follow CBLAS, so CBLAS users need no translation
 * (CLHGEMM_COL_MAJOR == CblasColMajor == 102, CLHGEMM_TRANS == CblasTrans == 112, ...).
 * Every fallible call returns clhgemm_status_t; OpenCL error codes pass through at their own
 * (negative) values, the library's own codes live in the range -2000..-2999.
 */
#ifndef CLHGEMM_H
#define CLHGEMM_H

#include <stddef.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "clhgemm_version.h"

#if defined(_WIN32)
#  if defined(CLHGEMM_BUILDING)
#    define CLHGEMM_API __declspec(dllexport)
#  else
#    define CLHGEMM_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define CLHGEMM_API __attribute__((visibility("default")))
#else
#  define CLHGEMM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- enums (CBLAS values) --------------------------------------------------------------- */
typedef enum clhgemm_layout_e {
    CLHGEMM_ROW_MAJOR = 101,
    CLHGEMM_COL_MAJOR = 102
} clhgemm_layout_t;

typedef enum clhgemm_transpose_e {
    CLHGEMM_NO_TRANS = 111,
    CLHGEMM_TRANS = 112,
    CLHGEMM_CONJ_TRANS = 113 /* same as CLHGEMM_TRANS for real data */
} clhgemm_transpose_t;

typedef enum clhgemm_uplo_e {
    CLHGEMM_UPPER = 121,
    CLHGEMM_LOWER = 122
} clhgemm_uplo_t;

typedef enum clhgemm_diag_e {
    CLHGEMM_NON_UNIT = 131,
    CLHGEMM_UNIT = 132
} clhgemm_diag_t;

typedef enum clhgemm_side_e {
    CLHGEMM_LEFT = 141,
    CLHGEMM_RIGHT = 142
} clhgemm_side_t;

/* ---- status ----------------------------------------------------------------------------- */
/* X-macro: name, value, message. Library codes only; OpenCL codes (CL_*) are returned as they
 * are and clhgemm_status_string() names them too. */
#define CLHGEMM_STATUS_LIST(X)                                                                  \
    X(CLHGEMM_SUCCESS, 0, "success")                                                            \
    X(CLHGEMM_INVALID_LAYOUT, -2001, "layout is not CLHGEMM_ROW_MAJOR or CLHGEMM_COL_MAJOR")    \
    X(CLHGEMM_INVALID_TRANS_A, -2002, "transA is not a CLHGEMM_*TRANS value")                   \
    X(CLHGEMM_INVALID_TRANS_B, -2003, "transB is not a CLHGEMM_*TRANS value")                   \
    X(CLHGEMM_INVALID_M, -2004, "m is negative")                                                \
    X(CLHGEMM_INVALID_N, -2005, "n is negative")                                                \
    X(CLHGEMM_INVALID_K, -2006, "k is negative")                                                \
    X(CLHGEMM_INVALID_LDA, -2007, "lda is smaller than the rows of A as stored")                \
    X(CLHGEMM_INVALID_LDB, -2008, "ldb is smaller than the rows of B as stored")                \
    X(CLHGEMM_INVALID_LDC, -2009, "ldc is smaller than the rows of C as stored")                \
    X(CLHGEMM_NULL_BUFFER_A, -2010, "buffer A is NULL")                                         \
    X(CLHGEMM_NULL_BUFFER_B, -2011, "buffer B is NULL")                                         \
    X(CLHGEMM_NULL_BUFFER_C, -2012, "buffer C is NULL")                                         \
    X(CLHGEMM_INSUFFICIENT_BUFFER_A, -2013, "buffer A is too small for offset plus extent")     \
    X(CLHGEMM_INSUFFICIENT_BUFFER_B, -2014, "buffer B is too small for offset plus extent")     \
    X(CLHGEMM_INSUFFICIENT_BUFFER_C, -2015, "buffer C is too small for offset plus extent")     \
    X(CLHGEMM_INVALID_QUEUE, -2016, "command queue is NULL or not valid")                       \
    X(CLHGEMM_CONTEXT_MISMATCH, -2017, "a buffer belongs to another context than the queue")   \
    X(CLHGEMM_FP64_NOT_SUPPORTED, -2018, "the device has no double precision (cl_khr_fp64)")    \
    X(CLHGEMM_KERNEL_BUILD_FAILED, -2019, "an OpenCL kernel failed to build on this device")    \
    X(CLHGEMM_OUT_OF_HOST_MEMORY, -2020, "a host memory allocation failed")                     \
    X(CLHGEMM_NO_DEVICE, -2021, "no OpenCL device matches")                                     \
    X(CLHGEMM_INVALID_ARGUMENT, -2022, "an argument is NULL or out of range")                   \
    X(CLHGEMM_INVALID_DEVICE_SPEC, -2023, "device selection string matches no device")          \
    X(CLHGEMM_WORKSPACE_TOO_SMALL, -2024, "the device cannot hold even one tile of temporaries")\
    X(CLHGEMM_NULL_HANDLE, -2025, "handle is NULL")                                            \
    X(CLHGEMM_INVALID_OPTION, -2026, "an option (or its environment variable) is out of range") \
    X(CLHGEMM_INVALID_SIDE, -2030, "side is not CLHGEMM_LEFT or CLHGEMM_RIGHT")                 \
    X(CLHGEMM_INVALID_UPLO, -2031, "uplo is not CLHGEMM_UPPER or CLHGEMM_LOWER")                \
    X(CLHGEMM_INVALID_DIAG, -2032, "diag is not CLHGEMM_UNIT or CLHGEMM_NON_UNIT")              \
    X(CLHGEMM_INVALID_TRANS, -2033, "trans is not a CLHGEMM_*TRANS value")                      \
    X(CLHGEMM_SIZE_OVERFLOW, -2034, "a matrix (ld x (cols - 1) + rows elements) exceeds memory") \
    X(CLHGEMM_INVALID_NRHS, -2035, "nrhs is negative")                                         \
    X(CLHGEMM_NULL_IPIV, -2036, "ipiv is NULL")                                                \
    X(CLHGEMM_NULL_TAU, -2037, "tau is NULL")                                                  \
    X(CLHGEMM_NULL_INFO, -2038, "info is NULL")                                                \
    X(CLHGEMM_NO_CPU_LAPACK, -2039, "no CPU LAPACK (OpenBLAS's) for the factorizations' panels")\
    X(CLHGEMM_INTERNAL_ERROR, -2099, "internal error (please report)")

typedef enum clhgemm_status_e {
#define CLHGEMM_STATUS_ENUM_(name, value, msg) name = value,
    CLHGEMM_STATUS_LIST(CLHGEMM_STATUS_ENUM_)
#undef CLHGEMM_STATUS_ENUM_
    CLHGEMM_STATUS_FORCE_INT_ = 0x7fffffff
} clhgemm_status_t;

/* Name of a status (library or OpenCL code), e.g. "CLHGEMM_INVALID_LDA" or
 * "CL_OUT_OF_RESOURCES". Never NULL; unknown codes give "CLHGEMM_UNKNOWN_STATUS". */
CLHGEMM_API const char *clhgemm_status_string(int status);
/* One-line human description of a status. Never NULL. */
CLHGEMM_API const char *clhgemm_status_message(int status);

/* ---- version ---------------------------------------------------------------------------- */
/* "MAJOR.MINOR.PATCH" of the library actually loaded (compare with CLHGEMM_VERSION_STRING). */
CLHGEMM_API const char *clhgemm_version(void);

/* ---- devices ---------------------------------------------------------------------------- */
typedef enum clhgemm_device_kind_e {
    CLHGEMM_DEVICE_GPU = 1,
    CLHGEMM_DEVICE_CPU = 2,
    CLHGEMM_DEVICE_ACCELERATOR = 3,
    CLHGEMM_DEVICE_OTHER = 4
} clhgemm_device_kind_t;

typedef struct clhgemm_device_info_s {
    int index;                 /* position in the full enumeration (all platforms, in order) */
    cl_platform_id platform;
    cl_device_id device;
    clhgemm_device_kind_t kind;
    char name[256];
    char vendor[256];
    char platform_name[256];
    char driver_version[128];
    char device_version[128];  /* CL_DEVICE_VERSION, e.g. "OpenCL 3.0 CUDA" */
    int has_fp64;
    unsigned compute_units;
    size_t max_work_group_size;
    unsigned long long local_mem_bytes;
    unsigned long long global_mem_bytes;
    unsigned long long max_alloc_bytes;
    int nv_compute_capability; /* e.g. 90 for sm_90; 0 when not an NVIDIA device */
    char features[512];        /* kernel feature macros derived from the above, space-separated */
} clhgemm_device_info_t;

/* Lists the OpenCL devices of all platforms, filtered by `spec` (NULL: the environment variable
 * CLHGEMM_DEVICES, or every device when it is unset or empty). A spec is a comma-separated list
 * of items, each a device index (as in `index`) or a case-insensitive substring of the device
 * name, vendor or platform name; "gpu" / "cpu" select by kind; "local-rank" keeps one of the
 * devices the other items select (none: the GPUs, else all), the one at the MPI launcher's local
 * rank (OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID) modulo their count: one
 * device per rank of a node (docs/ENVIRONMENT.md). Up to `capacity` entries are
 * written to `out` (which may be NULL when capacity is 0); *count receives how many matched.
 * Returns CLHGEMM_INVALID_DEVICE_SPEC if a non-empty spec matches nothing and CLHGEMM_NO_DEVICE
 * when the machine has no OpenCL device at all. */
CLHGEMM_API clhgemm_status_t clhgemm_devices_get(const char *spec, clhgemm_device_info_t *out,
                                                 size_t capacity, size_t *count);

/* Fills *info for one device (any device, selected or not). */
CLHGEMM_API clhgemm_status_t clhgemm_device_info(cl_device_id device, clhgemm_device_info_t *info);

/* ---- precisions ------------------------------------------------------------------------- */
/* X(prefix, element type): every routine below exists in single (s, float) and double (d,
 * double) precision; each declaration is written once for T and expanded over this list. */
#define CLHGEMM_PRECISIONS(X) X(s, float) X(d, double)

/* X(prefix, type of the parts): the complex routines, single (c) and double (z). A complex
 * matrix is an array of interleaved (real, imaginary) pairs of T -- the layout of C99's
 * float complex / double complex, C++'s std::complex<T> and Fortran's COMPLEX -- and every
 * count, offset and leading dimension is in complex elements. A complex scalar (alpha, beta)
 * is passed as `const void *` pointing at such a pair, and host matrices as `void *`, exactly
 * as CBLAS passes them: that is portable to every C and C++ compiler (C99's _Complex is
 * optional in C11, absent from MSVC's C and not a C++ type; a struct passed by value has
 * another calling convention than _Complex on some ABIs), takes the address of any of those
 * types without a cast, and lets CBLAS users call without translation. The real scalars of
 * HERK and HER2K (their alpha / beta) are plain T, as in CBLAS. */
#define CLHGEMM_CPRECISIONS(X) X(c, float) X(z, double)

/* ---- device-buffer GEMM ----------------------------------------------------------------- */
/* C := alpha * op(A) * op(B) + beta * C on buffers that live on the queue's device.
 * Offsets and leading dimensions are in elements. The work is enqueued on `queue` and the call
 * returns without waiting; if `event` is not NULL it receives an event (to be released by the
 * caller) that completes when C is final. All argument checks happen before anything is
 * enqueued: on any error nothing is written to C. beta == 0 never reads C (NaN in C does not
 * propagate). Safe to call from several threads, also on one queue. */
/* clhgemm_status_t clhgemm_{s,d}gemm_cl(clhgemm_layout_t layout, clhgemm_transpose_t transA,
 *                                       clhgemm_transpose_t transB, int m, int n, int k, T alpha,
 *                                       cl_mem A, size_t offA, int lda, cl_mem B, size_t offB,
 *                                       int ldb, T beta, cl_mem C, size_t offC, int ldc,
 *                                       cl_command_queue queue, cl_event *event); */
#define CLHGEMM_GEMM_CL_(p, T)                                                                     \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##gemm_cl(                                             \
        clhgemm_layout_t layout, clhgemm_transpose_t transA, clhgemm_transpose_t transB, int m,    \
        int n, int k, T alpha, cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb,     \
        T beta, cl_mem C, size_t offC, int ldc, cl_command_queue queue, cl_event *event);
CLHGEMM_PRECISIONS(CLHGEMM_GEMM_CL_)
#undef CLHGEMM_GEMM_CL_

/* The complex GEMM on device buffers: C := alpha * op(A) * op(B) + beta * C with op one of
 * X, X^T and X^H (CLHGEMM_CONJ_TRANS), alpha and beta complex (NULL: CLHGEMM_INVALID_ARGUMENT,
 * after the shape checks); everything said for clhgemm_sgemm_cl holds. It runs on the real
 * GEMM kernel (the packs lay the complex operands out so that one real product of twice the
 * rows and twice the inner dimension is the complex product: no extra arithmetic). */
/* clhgemm_status_t clhgemm_{c,z}gemm_cl(clhgemm_layout_t layout, clhgemm_transpose_t transA,
 *                                       clhgemm_transpose_t transB, int m, int n, int k,
 *                                       const void *alpha, cl_mem A, size_t offA, int lda,
 *                                       cl_mem B, size_t offB, int ldb, const void *beta,
 *                                       cl_mem C, size_t offC, int ldc,
 *                                       cl_command_queue queue, cl_event *event); */
#define CLHGEMM_CGEMM_CL_(p, T)                                                                    \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##gemm_cl(                                             \
        clhgemm_layout_t layout, clhgemm_transpose_t transA, clhgemm_transpose_t transB, int m,    \
        int n, int k, const void *alpha, cl_mem A, size_t offA, int lda, cl_mem B, size_t offB,    \
        int ldb, const void *beta, cl_mem C, size_t offC, int ldc, cl_command_queue queue,         \
        cl_event *event);
CLHGEMM_CPRECISIONS(CLHGEMM_CGEMM_CL_)
#undef CLHGEMM_CGEMM_CL_

/* The complex SYMM, HEMM, SYRK, HERK, SYR2K, HER2K and TRMM on device buffers, with CBLAS's
 * arguments and semantics and everything said for the real ones below (checks in the reference
 * order, then queue and buffers; only the uplo triangle of A, or of C for the rank-k updates,
 * is read; asynchronous; thread-safe). HEMM's A, and HERK's and HER2K's C, are Hermitian: the
 * imaginary part of their diagonal is never read (taken as zero), and HERK and HER2K write C's
 * diagonal with a zero imaginary part (but where alpha == 0 or k == 0 with beta == 1, which
 * leaves C as it is, as the reference does). HERK takes trans NO_TRANS or CONJ_TRANS, SYRK
 * NO_TRANS or TRANS (anything else: CLHGEMM_INVALID_TRANS); HERK's alpha and beta and HER2K's
 * beta are real. TRMM's transA may be CONJ_TRANS (op(A) = A^H). */
/* clhgemm_status_t clhgemm_{c,z}{symm,hemm}_cl(clhgemm_layout_t layout, clhgemm_side_t side,
 *                                    clhgemm_uplo_t uplo, int m, int n, const void *alpha,
 *                                    cl_mem A, size_t offA, int lda, cl_mem B, size_t offB,
 *                                    int ldb, const void *beta, cl_mem C, size_t offC, int ldc,
 *                                    cl_command_queue queue, cl_event *event); */
#define CLHGEMM_CSYMM_CL_(p, name)                                                                 \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##name##_cl(                                           \
        clhgemm_layout_t layout, clhgemm_side_t side, clhgemm_uplo_t uplo, int m, int n,           \
        const void *alpha, cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb,         \
        const void *beta, cl_mem C, size_t offC, int ldc, cl_command_queue queue, cl_event *event);
#define CLHGEMM_CSYMM_CL2_(p, T) CLHGEMM_CSYMM_CL_(p, symm) CLHGEMM_CSYMM_CL_(p, hemm)
CLHGEMM_CPRECISIONS(CLHGEMM_CSYMM_CL2_)
#undef CLHGEMM_CSYMM_CL2_
#undef CLHGEMM_CSYMM_CL_

/* clhgemm_status_t clhgemm_{c,z}syrk_cl(clhgemm_layout_t layout, clhgemm_uplo_t uplo,
 *                                       clhgemm_transpose_t trans, int n, int k,
 *                                       const void *alpha, cl_mem A, size_t offA, int lda,
 *                                       const void *beta, cl_mem C, size_t offC, int ldc,
 *                                       cl_command_queue queue, cl_event *event);
 * clhgemm_status_t clhgemm_{c,z}herk_cl(clhgemm_layout_t layout, clhgemm_uplo_t uplo,
 *                                       clhgemm_transpose_t trans, int n, int k, T alpha,
 *                                       cl_mem A, size_t offA, int lda, T beta, cl_mem C,
 *                                       size_t offC, int ldc, cl_command_queue queue,
 *                                       cl_event *event); */
#define CLHGEMM_CSYRK_CL_(p, T)                                                                    \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syrk_cl(                                             \
        clhgemm_layout_t layout, clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n, int k,     \
        const void *alpha, cl_mem A, size_t offA, int lda, const void *beta, cl_mem C,             \
        size_t offC, int ldc, cl_command_queue queue, cl_event *event);                            \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##herk_cl(                                             \
        clhgemm_layout_t layout, clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n, int k,     \
        T alpha, cl_mem A, size_t offA, int lda, T beta, cl_mem C, size_t offC, int ldc,           \
        cl_command_queue queue, cl_event *event);
CLHGEMM_CPRECISIONS(CLHGEMM_CSYRK_CL_)
#undef CLHGEMM_CSYRK_CL_

/* clhgemm_status_t clhgemm_{c,z}syr2k_cl(clhgemm_layout_t layout, clhgemm_uplo_t uplo,
 *                                        clhgemm_transpose_t trans, int n, int k,
 *                                        const void *alpha, cl_mem A, size_t offA, int lda,
 *                                        cl_mem B, size_t offB, int ldb, const void *beta,
 *                                        cl_mem C, size_t offC, int ldc,
 *                                        cl_command_queue queue, cl_event *event);
 * clhgemm_status_t clhgemm_{c,z}her2k_cl(... the same, but T beta ...); */
#define CLHGEMM_CSYR2K_CL_(p, T)                                                                   \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syr2k_cl(                                            \
        clhgemm_layout_t layout, clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n, int k,     \
        const void *alpha, cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb,         \
        const void *beta, cl_mem C, size_t offC, int ldc, cl_command_queue queue,                  \
        cl_event *event);                                                                          \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##her2k_cl(                                            \
        clhgemm_layout_t layout, clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n, int k,     \
        const void *alpha, cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb, T beta, \
        cl_mem C, size_t offC, int ldc, cl_command_queue queue, cl_event *event);
CLHGEMM_CPRECISIONS(CLHGEMM_CSYR2K_CL_)
#undef CLHGEMM_CSYR2K_CL_

/* clhgemm_status_t clhgemm_{c,z}{trmm,trsm}_cl(clhgemm_layout_t layout, clhgemm_side_t side,
 *                                    clhgemm_uplo_t uplo, clhgemm_transpose_t transA,
 *                                    clhgemm_diag_t diag, int m, int n, const void *alpha,
 *                                    cl_mem A, size_t offA, int lda, cl_mem B, size_t offB,
 *                                    int ldb, cl_command_queue queue, cl_event *event);
 * (TRSM: as clhgemm_{s,d}trsm_cl below.) */
#define CLHGEMM_CTRIANGULAR_CL_(p, name)                                                           \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##name##_cl(                                           \
        clhgemm_layout_t layout, clhgemm_side_t side, clhgemm_uplo_t uplo,                         \
        clhgemm_transpose_t transA, clhgemm_diag_t diag, int m, int n, const void *alpha,          \
        cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb, cl_command_queue queue,    \
        cl_event *event);
#define CLHGEMM_CTRIANGULAR_CL2_(p, T) CLHGEMM_CTRIANGULAR_CL_(p, trmm) CLHGEMM_CTRIANGULAR_CL_(p, trsm)
CLHGEMM_CPRECISIONS(CLHGEMM_CTRIANGULAR_CL2_)
#undef CLHGEMM_CTRIANGULAR_CL2_
#undef CLHGEMM_CTRIANGULAR_CL_

/* ---- device-buffer SYMM, SYRK, SYR2K, TRMM ---------------------------------------------- */
/* The other level-3 routines, with CBLAS argument order and semantics, on buffers of the
 * queue's device; everything said above for clhgemm_sgemm_cl holds (asynchronous, *event
 * completes when the output is final, all checks before anything is enqueued, nothing written
 * on error, beta == 0 never reads C, thread-safe). Only the triangle named by uplo of a
 * symmetric or triangular matrix is read; the other triangle of A (and its diagonal when
 * diag == CLHGEMM_UNIT) is never read. Arguments are checked in the reference BLAS order
 * (layout, side, uplo, trans, diag, m, n, k, lda, ldb, ldc), then queue and buffers.
 *
 * SYMM:  C := alpha*A*B + beta*C (side LEFT, A m x m) or alpha*B*A + beta*C (side RIGHT,
 *        A n x n); A symmetric, B and C m x n. */
/* clhgemm_status_t clhgemm_{s,d}symm_cl(clhgemm_layout_t layout, clhgemm_side_t side,
 *                                       clhgemm_uplo_t uplo, int m, int n, T alpha, cl_mem A,
 *                                       size_t offA, int lda, cl_mem B, size_t offB, int ldb,
 *                                       T beta, cl_mem C, size_t offC, int ldc,
 *                                       cl_command_queue queue, cl_event *event); */
#define CLHGEMM_SYMM_CL_(p, T)                                                                     \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##symm_cl(                                             \
        clhgemm_layout_t layout, clhgemm_side_t side, clhgemm_uplo_t uplo, int m, int n, T alpha,  \
        cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb, T beta, cl_mem C,          \
        size_t offC, int ldc, cl_command_queue queue, cl_event *event);
CLHGEMM_PRECISIONS(CLHGEMM_SYMM_CL_)
#undef CLHGEMM_SYMM_CL_

/* SYRK:  C := alpha*A*A^T + beta*C (trans NO_TRANS, A n x k) or alpha*A^T*A + beta*C (A k x n);
 *        C n x n symmetric: only its uplo triangle is read and written, the other triangle
 *        stays bit-identical. */
/* clhgemm_status_t clhgemm_{s,d}syrk_cl(clhgemm_layout_t layout, clhgemm_uplo_t uplo,
 *                                       clhgemm_transpose_t trans, int n, int k, T alpha, cl_mem A,
 *                                       size_t offA, int lda, T beta, cl_mem C, size_t offC,
 *                                       int ldc, cl_command_queue queue, cl_event *event); */
#define CLHGEMM_SYRK_CL_(p, T)                                                                     \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syrk_cl(                                             \
        clhgemm_layout_t layout, clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n, int k,     \
        T alpha, cl_mem A, size_t offA, int lda, T beta, cl_mem C, size_t offC, int ldc,           \
        cl_command_queue queue, cl_event *event);
CLHGEMM_PRECISIONS(CLHGEMM_SYRK_CL_)
#undef CLHGEMM_SYRK_CL_

/* SYR2K: C := alpha*(A*B^T + B*A^T) + beta*C (trans NO_TRANS, A and B n x k) or
 *        alpha*(A^T*B + B^T*A) + beta*C (A and B k x n); only the uplo triangle of C. */
/* clhgemm_status_t clhgemm_{s,d}syr2k_cl(clhgemm_layout_t layout, clhgemm_uplo_t uplo,
 *                                        clhgemm_transpose_t trans, int n, int k, T alpha,
 *                                        cl_mem A, size_t offA, int lda, cl_mem B, size_t offB,
 *                                        int ldb, T beta, cl_mem C, size_t offC, int ldc,
 *                                        cl_command_queue queue, cl_event *event); */
#define CLHGEMM_SYR2K_CL_(p, T)                                                                    \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syr2k_cl(                                            \
        clhgemm_layout_t layout, clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n, int k,     \
        T alpha, cl_mem A, size_t offA, int lda, cl_mem B, size_t offB, int ldb, T beta, cl_mem C, \
        size_t offC, int ldc, cl_command_queue queue, cl_event *event);
CLHGEMM_PRECISIONS(CLHGEMM_SYR2K_CL_)
#undef CLHGEMM_SYR2K_CL_

/* TRMM:  B := alpha*op(A)*B (side LEFT, A m x m) or alpha*B*op(A) (side RIGHT, A n x n), in
 *        place; A triangular (uplo), unit or non-unit diagonal, B m x n. alpha == 0 sets B to
 *        zero without reading A or B. */
/* clhgemm_status_t clhgemm_{s,d}trmm_cl(clhgemm_layout_t layout, clhgemm_side_t side,
 *                                       clhgemm_uplo_t uplo, clhgemm_transpose_t transA,
 *                                       clhgemm_diag_t diag, int m, int n, T alpha, cl_mem A,
 *                                       size_t offA, int lda, cl_mem B, size_t offB, int ldb,
 *                                       cl_command_queue queue, cl_event *event); */
#define CLHGEMM_TRMM_CL_(p, T)                                                                     \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##trmm_cl(                                             \
        clhgemm_layout_t layout, clhgemm_side_t side, clhgemm_uplo_t uplo,                         \
        clhgemm_transpose_t transA, clhgemm_diag_t diag, int m, int n, T alpha, cl_mem A,          \
        size_t offA, int lda, cl_mem B, size_t offB, int ldb, cl_command_queue queue,              \
        cl_event *event);
CLHGEMM_PRECISIONS(CLHGEMM_TRMM_CL_)
#undef CLHGEMM_TRMM_CL_

/* TRSM:  solves op(A)*X = alpha*B (side LEFT, A m x m) or X*op(A) = alpha*B (side RIGHT, A n x n)
 *        and overwrites B (m x n) with X; A triangular (uplo), unit or non-unit diagonal, the
 *        arguments and checks exactly TRMM's (the same statuses in the same order). alpha == 0
 *        sets B to zero without reading A or B. Nothing goes through the host: A's diagonal
 *        blocks (CLHGEMM_TRSM_NB, default 512) are inverted by a kernel into a temporary
 *        device buffer, then B is solved by a recursive blocked substitution whose every step
 *        is a GEMM on the device (halves of B updated with inner dimension k/2, k/4, ..., each
 *        diagonal block applied as a GEMM with its inverse). Like the other routines the call
 *        only enqueues (after the commands already enqueued on `queue`, each command chained
 *        to the previous one by events, so an out-of-order queue works too) and returns;
 *        *event (if not NULL) is the last command's: B is final when it completes, and a
 *        device error during the solve shows as its error status. The temporaries are
 *        released when the commands end. If enqueueing fails part way, the call waits for
 *        what it enqueued and returns the error; B may then be partly solved. Without device
 *        memory for the temporaries (and under CLHGEMM_TRSM_PANEL=openblas|ref) it solves
 *        each diagonal block on the host instead, with blocking reads and writes on `queue`:
 *        that fallback waits, and *event is complete when it returns. */
/* clhgemm_status_t clhgemm_{s,d}trsm_cl(clhgemm_layout_t layout, clhgemm_side_t side,
 *                                       clhgemm_uplo_t uplo, clhgemm_transpose_t transA,
 *                                       clhgemm_diag_t diag, int m, int n, T alpha, cl_mem A,
 *                                       size_t offA, int lda, cl_mem B, size_t offB, int ldb,
 *                                       cl_command_queue queue, cl_event *event); */
#define CLHGEMM_TRSM_CL_(p, T)                                                                     \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##trsm_cl(                                             \
        clhgemm_layout_t layout, clhgemm_side_t side, clhgemm_uplo_t uplo,                         \
        clhgemm_transpose_t transA, clhgemm_diag_t diag, int m, int n, T alpha, cl_mem A,          \
        size_t offA, int lda, cl_mem B, size_t offB, int ldb, cl_command_queue queue,              \
        cl_event *event);
CLHGEMM_PRECISIONS(CLHGEMM_TRSM_CL_)
#undef CLHGEMM_TRSM_CL_

/* ---- host-memory GEMM through the pipeline ---------------------------------------------- */
/* A handle owns the devices, contexts, command queues, pinned staging buffers and pack threads
 * of the host pipeline. Create it once and reuse it: creation measures the bus and builds the
 * kernels. One handle may be used by several threads at once (calls are serialised per
 * handle; use several handles to run independent products side by side). */
typedef struct clhgemm_handle_s *clhgemm_handle_t;

typedef struct clhgemm_options_s {
    /* Devices, as a clhgemm_devices_get spec. NULL: CLHGEMM_DEVICES, else every GPU, and the
     * CPU devices only when there is no GPU. */
    const char *devices;
    /* Bytes of device memory the pipeline may use on each device. 0:
     * CLHGEMM_DEVICE_MEMORY_LIMIT (K/M/G suffixes), else 80% of the device's global memory. */
    unsigned long long device_memory_limit;
    /* Command queues per device (>= 3: host->device copies, kernels, device->host copies).
     * 0: CLHGEMM_QUEUES, else 3. */
    int queues;
    /* CPU threads that pack user matrices into pinned staging and unpack results.
     * 0: CLHGEMM_CPU_THREADS, else the number of online cores (at most 32). */
    int cpu_threads;
    /* Chrome trace-event JSON written after every call (one track per queue and per pack
     * thread). NULL: CLHGEMM_TRACE; unset: no trace. */
    const char *trace_file;
    /* The CPU's share of each product, computed by OpenBLAS on the host's cores while the
     * devices compute the rest: "off"; "auto" (the split model decides, and chooses 0 when the
     * share would not pay for the cores and memory bandwidth it takes from the pipeline); or a
     * fraction "0".."1" of C's rows. NULL: CLHGEMM_CPU_SHARE, else "auto". */
    const char *cpu_share;
    /* OpenBLAS threads for the CPU share (the pack threads keep the other cores while it runs).
     * 0: CLHGEMM_CPU_SHARE_THREADS, else half the online cores. */
    int cpu_share_threads;
} clhgemm_options_t;

/* Fills *options with the defaults (all zero / NULL: environment, then built-in). */
CLHGEMM_API void clhgemm_options_init(clhgemm_options_t *options);

/* Creates a handle. options may be NULL (defaults). On error *handle is NULL. */
CLHGEMM_API clhgemm_status_t clhgemm_create(clhgemm_handle_t *handle,
                                            const clhgemm_options_t *options);
/* Destroys a handle (NULL is allowed). No call may be in progress on it. */
CLHGEMM_API void clhgemm_destroy(clhgemm_handle_t handle);

/* C := alpha * op(A) * op(B) + beta * C on matrices in ordinary host memory, of any size
 * (larger than the devices' memory too). Synchronous: returns when C is final. On error, C
 * blocks that were not yet written back are untouched. beta == 0 never reads C. */
/* clhgemm_status_t clhgemm_{s,d}gemm(clhgemm_handle_t handle, clhgemm_layout_t layout,
 *                                    clhgemm_transpose_t transA, clhgemm_transpose_t transB, int m,
 *                                    int n, int k, T alpha, const T *A, int lda, const T *B,
 *                                    int ldb, T beta, T *C, int ldc); */
#define CLHGEMM_GEMM_(p, T)                                                                        \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##gemm(                                                \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_transpose_t transA,              \
        clhgemm_transpose_t transB, int m, int n, int k, T alpha, const T *A, int lda, const T *B, \
        int ldb, T beta, T *C, int ldc);
CLHGEMM_PRECISIONS(CLHGEMM_GEMM_)
#undef CLHGEMM_GEMM_

/* SYMM, SYRK, SYR2K and TRMM on matrices in ordinary host memory, through the same pipeline
 * as clhgemm_{s,d}gemm (tiles, pinned staging, every device of the handle). Arguments,
 * semantics and checks are those of the device-buffer versions above (the same statuses in the
 * same order, the handle first; nothing is written on a rejected call): only the uplo triangle
 * of a symmetric or triangular A is read (not its diagonal when diag == CLHGEMM_UNIT), SYRK and
 * SYR2K read and write only the uplo triangle of C (the other stays bit-identical), beta == 0
 * never reads C, and TRMM works in place on B (alpha == 0 sets B to zero without reading A or
 * B). Synchronous: they return when the output is final. On a device error, the tiles already
 * written back stay written; for TRMM that leaves B partly updated. These calls do not use the
 * CPU share (options.cpu_share): the devices compute everything. */
/* clhgemm_status_t clhgemm_{s,d}symm(clhgemm_handle_t handle, clhgemm_layout_t layout,
 *                                    clhgemm_side_t side, clhgemm_uplo_t uplo, int m, int n,
 *                                    T alpha, const T *A, int lda, const T *B, int ldb, T beta,
 *                                    T *C, int ldc); */
#define CLHGEMM_SYMM_(p, T)                                                                        \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##symm(                                                \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_side_t side,                     \
        clhgemm_uplo_t uplo, int m, int n, T alpha, const T *A, int lda, const T *B, int ldb,      \
        T beta, T *C, int ldc);
CLHGEMM_PRECISIONS(CLHGEMM_SYMM_)
#undef CLHGEMM_SYMM_

/* clhgemm_status_t clhgemm_{s,d}syrk(clhgemm_handle_t handle, clhgemm_layout_t layout,
 *                                    clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n, int k,
 *                                    T alpha, const T *A, int lda, T beta, T *C, int ldc); */
#define CLHGEMM_SYRK_(p, T)                                                                        \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syrk(                                                \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_uplo_t uplo,                     \
        clhgemm_transpose_t trans, int n, int k, T alpha, const T *A, int lda, T beta, T *C,       \
        int ldc);
CLHGEMM_PRECISIONS(CLHGEMM_SYRK_)
#undef CLHGEMM_SYRK_

/* clhgemm_status_t clhgemm_{s,d}syr2k(clhgemm_handle_t handle, clhgemm_layout_t layout,
 *                                     clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n, int k,
 *                                     T alpha, const T *A, int lda, const T *B, int ldb, T beta,
 *                                     T *C, int ldc); */
#define CLHGEMM_SYR2K_(p, T)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syr2k(                                               \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_uplo_t uplo,                     \
        clhgemm_transpose_t trans, int n, int k, T alpha, const T *A, int lda, const T *B,         \
        int ldb, T beta, T *C, int ldc);
CLHGEMM_PRECISIONS(CLHGEMM_SYR2K_)
#undef CLHGEMM_SYR2K_

/* clhgemm_status_t clhgemm_{s,d}trmm(clhgemm_handle_t handle, clhgemm_layout_t layout,
 *                                    clhgemm_side_t side, clhgemm_uplo_t uplo,
 *                                    clhgemm_transpose_t transA, clhgemm_diag_t diag, int m, int n,
 *                                    T alpha, const T *A, int lda, T *B, int ldb); */
#define CLHGEMM_TRMM_(p, T)                                                                        \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##trmm(                                                \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_side_t side,                     \
        clhgemm_uplo_t uplo, clhgemm_transpose_t transA, clhgemm_diag_t diag, int m, int n,        \
        T alpha, const T *A, int lda, T *B, int ldb);
CLHGEMM_PRECISIONS(CLHGEMM_TRMM_)
#undef CLHGEMM_TRMM_

/* TRSM on host memory: op(A)*X = alpha*B or X*op(A) = alpha*B, B overwritten by X, with the
 * arguments, semantics and checks of clhgemm_{s,d}trsm_cl (the handle first, no offsets, no
 * queue; NULL A is allowed when alpha == 0, NULL B when m or n is 0). Routed as a whole as the
 * other host routines are (OpenBLAS's TRSM on this thread for a call the model gives the CPU);
 * otherwise, when A (with its inverted diagonal blocks) fits every device's memory budget, B
 * moves once: strips of right-hand sides copied through pinned staging, solved by the
 * device-buffer algorithm and copied back, three in flight per device, taken by the devices as
 * they free up (clhgemm_last_call_info: tiles = strips); a device lost in the call leaves its
 * strips to the others or to the CPU (the call succeeds; one line on stderr), and a handle with
 * no device left runs OpenBLAS's TRSM. Else the blocked substitution: each diagonal block's
 * panel of B solved in place -- by OpenBLAS on the host (each next panel while a helper thread
 * runs the rest of the update), or, where a block of a larger order fits the devices and the
 * cost model says so, by the strips above -- and the rest of B updated by
 * clhgemm_{s,d}gemm on this handle (each update routed and tiled as any host GEMM;
 * clhgemm_last_call_info then describes the last update or panel). Synchronous. */
/* clhgemm_status_t clhgemm_{s,d}trsm(clhgemm_handle_t handle, clhgemm_layout_t layout,
 *                                    clhgemm_side_t side, clhgemm_uplo_t uplo,
 *                                    clhgemm_transpose_t transA, clhgemm_diag_t diag, int m, int n,
 *                                    T alpha, const T *A, int lda, T *B, int ldb); */
#define CLHGEMM_TRSM_(p, T)                                                                        \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##trsm(                                                \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_side_t side,                     \
        clhgemm_uplo_t uplo, clhgemm_transpose_t transA, clhgemm_diag_t diag, int m, int n,        \
        T alpha, const T *A, int lda, T *B, int ldb);
CLHGEMM_PRECISIONS(CLHGEMM_TRSM_)
#undef CLHGEMM_TRSM_

/* ---- complex routines on host memory ----------------------------------------------------- */
/* The complex GEMM, SYMM, HEMM, SYRK, HERK, SYR2K, HER2K, TRMM and TRSM on a handle: the
 * arguments, semantics and checks of the device-buffer complex versions above (the handle
 * first, no offsets, no queue; NULL alpha or beta: CLHGEMM_INVALID_ARGUMENT after the shape
 * checks), and everything said for the real host routines: synchronous, routed as a whole
 * (OpenBLAS's complex routine on this thread for a call the model gives the CPU), tiled over
 * every device of the handle through the same pipeline (complex elements staged as they are),
 * a lost device's work done by the others or the CPU. They take no CPU share beside the
 * devices. */
/* clhgemm_status_t clhgemm_{c,z}gemm(clhgemm_handle_t handle, clhgemm_layout_t layout,
 *                                    clhgemm_transpose_t transA, clhgemm_transpose_t transB,
 *                                    int m, int n, int k, const void *alpha, const void *A,
 *                                    int lda, const void *B, int ldb, const void *beta, void *C,
 *                                    int ldc); */
#define CLHGEMM_CGEMM_(p, T)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##gemm(                                                \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_transpose_t transA,              \
        clhgemm_transpose_t transB, int m, int n, int k, const void *alpha, const void *A,         \
        int lda, const void *B, int ldb, const void *beta, void *C, int ldc);
CLHGEMM_CPRECISIONS(CLHGEMM_CGEMM_)
#undef CLHGEMM_CGEMM_

/* clhgemm_status_t clhgemm_{c,z}{symm,hemm}(clhgemm_handle_t handle, clhgemm_layout_t layout,
 *                                    clhgemm_side_t side, clhgemm_uplo_t uplo, int m, int n,
 *                                    const void *alpha, const void *A, int lda, const void *B,
 *                                    int ldb, const void *beta, void *C, int ldc); */
#define CLHGEMM_CSYMM_(p, name)                                                                    \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##name(                                                \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_side_t side,                     \
        clhgemm_uplo_t uplo, int m, int n, const void *alpha, const void *A, int lda,              \
        const void *B, int ldb, const void *beta, void *C, int ldc);
#define CLHGEMM_CSYMM2_(p, T) CLHGEMM_CSYMM_(p, symm) CLHGEMM_CSYMM_(p, hemm)
CLHGEMM_CPRECISIONS(CLHGEMM_CSYMM2_)
#undef CLHGEMM_CSYMM2_
#undef CLHGEMM_CSYMM_

/* clhgemm_status_t clhgemm_{c,z}syrk(clhgemm_handle_t handle, clhgemm_layout_t layout,
 *                                    clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n, int k,
 *                                    const void *alpha, const void *A, int lda, const void *beta,
 *                                    void *C, int ldc);
 * clhgemm_status_t clhgemm_{c,z}herk(... T alpha, const void *A, int lda, T beta, void *C,
 *                                    int ldc); */
#define CLHGEMM_CSYRK_(p, T)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syrk(                                                \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_uplo_t uplo,                     \
        clhgemm_transpose_t trans, int n, int k, const void *alpha, const void *A, int lda,        \
        const void *beta, void *C, int ldc);                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##herk(                                                \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_uplo_t uplo,                     \
        clhgemm_transpose_t trans, int n, int k, T alpha, const void *A, int lda, T beta, void *C, \
        int ldc);
CLHGEMM_CPRECISIONS(CLHGEMM_CSYRK_)
#undef CLHGEMM_CSYRK_

/* clhgemm_status_t clhgemm_{c,z}syr2k(clhgemm_handle_t handle, clhgemm_layout_t layout,
 *                                     clhgemm_uplo_t uplo, clhgemm_transpose_t trans, int n,
 *                                     int k, const void *alpha, const void *A, int lda,
 *                                     const void *B, int ldb, const void *beta, void *C,
 *                                     int ldc);
 * clhgemm_status_t clhgemm_{c,z}her2k(... the same, but T beta ...); */
#define CLHGEMM_CSYR2K_(p, T)                                                                      \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##syr2k(                                               \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_uplo_t uplo,                     \
        clhgemm_transpose_t trans, int n, int k, const void *alpha, const void *A, int lda,        \
        const void *B, int ldb, const void *beta, void *C, int ldc);                               \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##her2k(                                               \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_uplo_t uplo,                     \
        clhgemm_transpose_t trans, int n, int k, const void *alpha, const void *A, int lda,        \
        const void *B, int ldb, T beta, void *C, int ldc);
CLHGEMM_CPRECISIONS(CLHGEMM_CSYR2K_)
#undef CLHGEMM_CSYR2K_

/* clhgemm_status_t clhgemm_{c,z}{trmm,trsm}(clhgemm_handle_t handle, clhgemm_layout_t layout,
 *                                    clhgemm_side_t side, clhgemm_uplo_t uplo,
 *                                    clhgemm_transpose_t transA, clhgemm_diag_t diag, int m,
 *                                    int n, const void *alpha, const void *A, int lda, void *B,
 *                                    int ldb); */
#define CLHGEMM_CTRIANGULAR_(p, name)                                                              \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##name(                                                \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_side_t side,                     \
        clhgemm_uplo_t uplo, clhgemm_transpose_t transA, clhgemm_diag_t diag, int m, int n,        \
        const void *alpha, const void *A, int lda, void *B, int ldb);
#define CLHGEMM_CTRIANGULAR2_(p, T) CLHGEMM_CTRIANGULAR_(p, trmm) CLHGEMM_CTRIANGULAR_(p, trsm)
CLHGEMM_CPRECISIONS(CLHGEMM_CTRIANGULAR2_)
#undef CLHGEMM_CTRIANGULAR2_
#undef CLHGEMM_CTRIANGULAR_

/* What the last call on this handle did (for benchmarks and CLHGEMM_VERBOSE). */
typedef struct clhgemm_call_info_s {
    int devices_used;
    long long tiles;             /* C tiles computed */
    int tile_m, tile_n, tile_k;  /* planned tile shape */
    double seconds;              /* wall time of the call; 0 for a call the routing gave to the
                                    CPU BLAS (cpu_fraction 1, devices_used 0): such a call is
                                    not timed, so that it costs what the CPU BLAS's own does */
    double bytes_to_device;      /* host->device bytes moved */
    double bytes_from_device;
    int a_mode;                  /* how A was held: 0 streamed per tile, 1 band resident,
                                    2 band resident with the next band prefetched */
    long long tiles_stolen;      /* tiles a device took from another device's band */
    double cpu_fraction;         /* fraction of C's elements computed by OpenBLAS on the host */
    int cpu_threads;             /* OpenBLAS threads of that share (0: no share) */
    double predicted_seconds;    /* the plan's model time for the whole call (with the share) */
    double setup_seconds;        /* part of `seconds` spent on one-time costs: planning (with a
                                    first kernel-rate measurement), kernel builds, device buffers
                                    and pinned staging (near 0 once a handle has run the shape) */
} clhgemm_call_info_t;
CLHGEMM_API clhgemm_status_t clhgemm_last_call_info(clhgemm_handle_t handle,
                                                    clhgemm_call_info_t *info);

/* Releases every cached program and temporary buffer held for any context (and the references
 * the library holds on contexts and queues). Waits for work the library enqueued to finish.
 * Optional: without it the driver reclaims everything at process exit. (The library does not
 * call OpenCL from a destructor: drivers may already be gone at that point.) */
CLHGEMM_API void clhgemm_release_resources(void);

/* ---- Factorizations (LAPACK) ------------------------------------------------------------ */
/* Cholesky (potrf), LU with partial pivoting (getrf) and QR (geqrf), and the solvers on them,
 * with LAPACK's semantics exactly and LAPACKE's argument order after the handle: the same
 * results in the same places (the factors over A, ipiv 1-based, tau, info), the other triangle
 * of a Cholesky never read or written. Both layouts: a row-major matrix is what LAPACKE makes
 * of it (leading dimensions at least max(1, columns); ipiv and tau refer to rows and
 * reflectors of the matrix as the caller sees it).
 *
 * Arguments are checked in LAPACK's order (layout, then the routine's own: uplo, side, trans,
 * m, n, k, nrhs, lda, ldb/ldc), each invalid one with its own status (CLHGEMM_INVALID_NRHS for
 * nrhs; k out of 0..nq for ormqr, n > m and k > n for orgqr as LAPACK checks them), then
 * CLHGEMM_SIZE_OVERFLOW, then the pointers the call touches in parameter order
 * (CLHGEMM_NULL_BUFFER_A/B/C, CLHGEMM_NULL_IPIV, CLHGEMM_NULL_TAU, CLHGEMM_NULL_INFO), then
 * double precision on the devices; the host routines check the handle first. Nothing is read
 * or written on a rejected call. LAPACK's quick returns hold (n = 0 or m = 0: nothing done,
 * info = 0; gels with nothing to factor sets B to zero). `info` is LAPACK's: > 0 the order of
 * the leading minor that is not positive definite (potrf, posv: A holds the factor of the
 * minors before it), the first exactly zero pivot U(i,i) (getrf, gesv: the factorization is
 * complete, LAPACK's), the first zero on the triangular factor's diagonal (gels); posv and
 * gesv do not solve when info > 0. The routines need a CPU LAPACK (OpenBLAS's) for their
 * panels: without one they answer CLHGEMM_NO_CPU_LAPACK (potrs and getrs, which need only
 * triangular solves, still run).
 *
 * Host memory, on a handle (synchronous): each call goes as a whole to the CPU LAPACK on the
 * calling thread or to the devices, by CLHGEMM_ROUTE and a cost model (every device a CPU, as
 * with PoCL: the CPU); on the devices the CPU factors the panels while the devices update the
 * rest. The solvers' triangular solves are clhgemm_{s,d}trsm on the handle.
 *
 * potrf:  A = U^T U (uplo UPPER) or L L^T, A n x n symmetric positive definite.
 * getrf:  A = P L U, A m x n; ipiv min(m, n) pivots.
 * geqrf:  A = Q R, A m x n; Q as min(m, n) reflectors (below the diagonal of A, and tau).
 * potrs, getrs: solve A X = B (getrs: op(A) X = B) with potrf's / getrf's factors, B n x nrhs.
 * posv, gesv: the factorization, then the solve.
 * ormqr:  C := op(Q) C (side LEFT, A m x k) or C op(Q) (side RIGHT, A n x k), C m x n, Q the
 *         product of geqrf's first k reflectors.
 * orgqr:  A := the first n columns of Q (m x n, m >= n >= k).
 * gels:   least squares (m >= n, NO_TRANS; m < n, TRANS) or minimum norm solutions of op(A) X = B
 *         with A of full rank, by the QR or LQ factorization; B max(m, n) x nrhs. */

/* clhgemm_status_t clhgemm_{s,d}potrf(clhgemm_handle_t handle, clhgemm_layout_t layout,
 *                                     clhgemm_uplo_t uplo, int n, T *A, int lda, int *info); */
#define CLHGEMM_POTRF_(p, T)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##potrf(clhgemm_handle_t handle,                      \
                                                    clhgemm_layout_t layout, clhgemm_uplo_t uplo,  \
                                                    int n, T *A, int lda, int *info);
CLHGEMM_PRECISIONS(CLHGEMM_POTRF_)
#undef CLHGEMM_POTRF_

/* clhgemm_status_t clhgemm_{s,d}getrf(clhgemm_handle_t handle, clhgemm_layout_t layout, int m,
 *                                     int n, T *A, int lda, int *ipiv, int *info); */
#define CLHGEMM_GETRF_(p, T)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##getrf(clhgemm_handle_t handle,                      \
                                                    clhgemm_layout_t layout, int m, int n, T *A,   \
                                                    int lda, int *ipiv, int *info);
CLHGEMM_PRECISIONS(CLHGEMM_GETRF_)
#undef CLHGEMM_GETRF_

/* clhgemm_status_t clhgemm_{s,d}geqrf(clhgemm_handle_t handle, clhgemm_layout_t layout, int m,
 *                                     int n, T *A, int lda, T *tau); */
#define CLHGEMM_GEQRF_(p, T)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##geqrf(clhgemm_handle_t handle,                      \
                                                    clhgemm_layout_t layout, int m, int n, T *A,   \
                                                    int lda, T *tau);
CLHGEMM_PRECISIONS(CLHGEMM_GEQRF_)
#undef CLHGEMM_GEQRF_

/* clhgemm_status_t clhgemm_{s,d}potrs(clhgemm_handle_t handle, clhgemm_layout_t layout,
 *                                     clhgemm_uplo_t uplo, int n, int nrhs, const T *A, int lda,
 *                                     T *B, int ldb); */
#define CLHGEMM_POTRS_(p, T)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##potrs(                                               \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_uplo_t uplo, int n, int nrhs,    \
        const T *A, int lda, T *B, int ldb);
CLHGEMM_PRECISIONS(CLHGEMM_POTRS_)
#undef CLHGEMM_POTRS_

/* clhgemm_status_t clhgemm_{s,d}posv(clhgemm_handle_t handle, clhgemm_layout_t layout,
 *                                    clhgemm_uplo_t uplo, int n, int nrhs, T *A, int lda, T *B,
 *                                    int ldb, int *info); */
#define CLHGEMM_POSV_(p, T)                                                                        \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##posv(                                                \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_uplo_t uplo, int n, int nrhs,    \
        T *A, int lda, T *B, int ldb, int *info);
CLHGEMM_PRECISIONS(CLHGEMM_POSV_)
#undef CLHGEMM_POSV_

/* clhgemm_status_t clhgemm_{s,d}getrs(clhgemm_handle_t handle, clhgemm_layout_t layout,
 *                                     clhgemm_transpose_t trans, int n, int nrhs, const T *A,
 *                                     int lda, const int *ipiv, T *B, int ldb); */
#define CLHGEMM_GETRS_(p, T)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##getrs(                                               \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_transpose_t trans, int n,        \
        int nrhs, const T *A, int lda, const int *ipiv, T *B, int ldb);
CLHGEMM_PRECISIONS(CLHGEMM_GETRS_)
#undef CLHGEMM_GETRS_

/* clhgemm_status_t clhgemm_{s,d}gesv(clhgemm_handle_t handle, clhgemm_layout_t layout, int n,
 *                                    int nrhs, T *A, int lda, int *ipiv, T *B, int ldb,
 *                                    int *info); */
#define CLHGEMM_GESV_(p, T)                                                                        \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##gesv(clhgemm_handle_t handle,                       \
                                                   clhgemm_layout_t layout, int n, int nrhs, T *A, \
                                                   int lda, int *ipiv, T *B, int ldb, int *info);
CLHGEMM_PRECISIONS(CLHGEMM_GESV_)
#undef CLHGEMM_GESV_

/* clhgemm_status_t clhgemm_{s,d}ormqr(clhgemm_handle_t handle, clhgemm_layout_t layout,
 *                                     clhgemm_side_t side, clhgemm_transpose_t trans, int m,
 *                                     int n, int k, const T *A, int lda, const T *tau, T *C,
 *                                     int ldc); */
#define CLHGEMM_ORMQR_(p, T)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##ormqr(                                               \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_side_t side,                     \
        clhgemm_transpose_t trans, int m, int n, int k, const T *A, int lda, const T *tau, T *C,   \
        int ldc);
CLHGEMM_PRECISIONS(CLHGEMM_ORMQR_)
#undef CLHGEMM_ORMQR_

/* clhgemm_status_t clhgemm_{s,d}orgqr(clhgemm_handle_t handle, clhgemm_layout_t layout, int m,
 *                                     int n, int k, T *A, int lda, const T *tau); */
#define CLHGEMM_ORGQR_(p, T)                                                                       \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##orgqr(clhgemm_handle_t handle,                      \
                                                    clhgemm_layout_t layout, int m, int n, int k,  \
                                                    T *A, int lda, const T *tau);
CLHGEMM_PRECISIONS(CLHGEMM_ORGQR_)
#undef CLHGEMM_ORGQR_

/* clhgemm_status_t clhgemm_{s,d}gels(clhgemm_handle_t handle, clhgemm_layout_t layout,
 *                                    clhgemm_transpose_t trans, int m, int n, int nrhs, T *A,
 *                                    int lda, T *B, int ldb, int *info); */
#define CLHGEMM_GELS_(p, T)                                                                        \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##gels(                                                \
        clhgemm_handle_t handle, clhgemm_layout_t layout, clhgemm_transpose_t trans, int m, int n, \
        int nrhs, T *A, int lda, T *B, int ldb, int *info);
CLHGEMM_PRECISIONS(CLHGEMM_GELS_)
#undef CLHGEMM_GELS_

/* Device buffers: potrf, getrf, geqrf, potrs and getrs on buffers of the queue's device, with
 * offsets in elements as the level-3 _cl routines take them; ipiv, tau and info in host memory.
 * Synchronous, unlike the level-3 routines: they start after the commands enqueued before on
 * `queue` and return when the result is final, so they take no event. The checks are the host
 * routines' with the queue and the buffers as the level-3 _cl routines check them
 * (CLHGEMM_INVALID_QUEUE, CLHGEMM_CONTEXT_MISMATCH, CLHGEMM_INSUFFICIENT_BUFFER_A/B) in place of
 * the handle and the NULL pointers. The factorizations factor the panels with the CPU LAPACK and
 * update the rest on the device; the solvers are clhgemm_{s,d}trsm_cl on the queue. */

/* clhgemm_status_t clhgemm_{s,d}potrf_cl(clhgemm_layout_t layout, clhgemm_uplo_t uplo, int n,
 *                                        cl_mem A, size_t offA, int lda, int *info,
 *                                        cl_command_queue queue); */
#define CLHGEMM_POTRF_CL_(p, T)                                                                    \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##potrf_cl(clhgemm_layout_t layout,                   \
                                                       clhgemm_uplo_t uplo, int n, cl_mem A,       \
                                                       size_t offA, int lda, int *info,            \
                                                       cl_command_queue queue);
CLHGEMM_PRECISIONS(CLHGEMM_POTRF_CL_)
#undef CLHGEMM_POTRF_CL_

/* clhgemm_status_t clhgemm_{s,d}getrf_cl(clhgemm_layout_t layout, int m, int n, cl_mem A,
 *                                        size_t offA, int lda, int *ipiv, int *info,
 *                                        cl_command_queue queue); */
#define CLHGEMM_GETRF_CL_(p, T)                                                                    \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##getrf_cl(clhgemm_layout_t layout, int m, int n,     \
                                                       cl_mem A, size_t offA, int lda, int *ipiv,  \
                                                       int *info, cl_command_queue queue);
CLHGEMM_PRECISIONS(CLHGEMM_GETRF_CL_)
#undef CLHGEMM_GETRF_CL_

/* clhgemm_status_t clhgemm_{s,d}geqrf_cl(clhgemm_layout_t layout, int m, int n, cl_mem A,
 *                                        size_t offA, int lda, T *tau, cl_command_queue queue); */
#define CLHGEMM_GEQRF_CL_(p, T)                                                                    \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##geqrf_cl(clhgemm_layout_t layout, int m, int n,     \
                                                       cl_mem A, size_t offA, int lda, T *tau,     \
                                                       cl_command_queue queue);
CLHGEMM_PRECISIONS(CLHGEMM_GEQRF_CL_)
#undef CLHGEMM_GEQRF_CL_

/* clhgemm_status_t clhgemm_{s,d}potrs_cl(clhgemm_layout_t layout, clhgemm_uplo_t uplo, int n,
 *                                        int nrhs, cl_mem A, size_t offA, int lda, cl_mem B,
 *                                        size_t offB, int ldb, cl_command_queue queue); */
#define CLHGEMM_POTRS_CL_(p, T)                                                                    \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##potrs_cl(                                            \
        clhgemm_layout_t layout, clhgemm_uplo_t uplo, int n, int nrhs, cl_mem A, size_t offA,      \
        int lda, cl_mem B, size_t offB, int ldb, cl_command_queue queue);
CLHGEMM_PRECISIONS(CLHGEMM_POTRS_CL_)
#undef CLHGEMM_POTRS_CL_

/* clhgemm_status_t clhgemm_{s,d}getrs_cl(clhgemm_layout_t layout, clhgemm_transpose_t trans,
 *                                        int n, int nrhs, cl_mem A, size_t offA, int lda,
 *                                        const int *ipiv, cl_mem B, size_t offB, int ldb,
 *                                        cl_command_queue queue); */
#define CLHGEMM_GETRS_CL_(p, T)                                                                    \
    CLHGEMM_API clhgemm_status_t clhgemm_##p##getrs_cl(                                            \
        clhgemm_layout_t layout, clhgemm_transpose_t trans, int n, int nrhs, cl_mem A,             \
        size_t offA, int lda, const int *ipiv, cl_mem B, size_t offB, int ldb,                     \
        cl_command_queue queue);
CLHGEMM_PRECISIONS(CLHGEMM_GETRS_CL_)
#undef CLHGEMM_GETRS_CL_

#ifdef __cplusplus
}
#endif

#endif /* CLHGEMM_H */
