/*
 * common.h -- shared test harness (static library clhgemm_testcommon).
 *
 * Every device test needs the same scaffolding: open the first device that clhgemm_devices_get
 * selects (honouring CLHGEMM_DEVICES), make operands whose unused parts are poisoned, run one
 * GEMM and compare it with OpenBLAS in double. The oracle's tolerance scales with k and the
 * precision (|C - Cref| <= tolfac*(k+2)*eps*(|alpha||op(A)||op(B)| + |beta||C0|) + tiny), and
 * every element of the C buffer that is not part of the m x n matrix must come back bit-identical,
 * so a kernel that writes into ld gaps, before the offset or past the end is caught.
 *
 * The check macro EXPECT and the one pair of counters (tc_checks, tc_failures) are here too, so
 * that every test program reports its failures the same way (file:line, the message, the
 * condition that failed) and none keeps a copy of its own.
 *
 * Exit codes: 0 pass, 1 fail, TC_SKIP (77) only when there is no OpenCL device at all (or no fp64
 * for a double-only test, or a GPU machine with fewer devices than a multi-device test asks for
 * with CLHGEMM_TEST_REQUIRE_DEVICES).
 */
#ifndef CLHGEMM_TESTS_COMMON_H
#define CLHGEMM_TESTS_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "clhgemm.h"

#define TC_SKIP 77

/* ---- checks ------------------------------------------------------------------------------ */
/* EXPECT(cond, fmt, ...) counts one check; when cond is false it counts a failure and prints
 * "FAIL <file>:<line>: <message> (failed: <cond>)" to stderr (stdout flushed first, so the line
 * lands after what the test printed before it). The message arguments are evaluated only on
 * failure. Evaluates to 1 when cond holds, else 0. Safe from several threads (the counters are
 * atomic, a line is printed whole). Every test program reports tc_checks() and tc_failures() at
 * the end and fails when tc_failures() is not 0. */
#define EXPECT(cond, ...) ((cond) ? tc_pass() : tc_fail(__FILE__, __LINE__, #cond, __VA_ARGS__))
int tc_pass(void);
int tc_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A check whose failure message the caller printed itself: counted, and counted as a failure
 * when failed is not 0. tc_tally_n adds checks and failures counted elsewhere (worker threads'
 * own tallies). */
void tc_tally(int failed);
void tc_tally_n(int checks, int failures);
int tc_checks(void);
int tc_failures(void);
/* At most n FAIL lines from EXPECT (then one line saying the rest are only counted); 0, the
 * default: all of them. For checks inside loops over every element. */
void tc_fail_print_limit(int n);

/* ---- device ------------------------------------------------------------------------------ */
typedef struct tc_env_s {
    clhgemm_device_info_t info;
    cl_device_id device;
    cl_context ctx;
    cl_command_queue queue; /* in-order */
    int has_fp64;
} tc_env_t;

/* CLHGEMM_TEST_REQUIRE_FEATURE for tests that do not call tc_open (the host-memory API): TC_SKIP
 * (after a SKIP line) when the first selected device lacks the feature, else 0. tc_open applies
 * the same check to its device. Also CLHGEMM_TEST_REQUIRE_DEVICES=N: TC_SKIP where the machine
 * lists fewer than N devices and one of them is not a CPU device (where all are CPU devices, as
 * with PoCL, the test runs). */
int tc_require_feature(void);
/* For the tests whose device-memory caps (a few hundred KiB to a few MiB) exist to cut the host
 * pipeline's work into many tiles, slices and strips: where a device the library would use is a
 * GPU, its tuned kernels' tiles (128 x 192 doubles and up on the H100) do not fit such a cap and
 * every call answers CLHGEMM_WORKSPACE_TOO_SMALL, so this sets CLHGEMM_GEMM_PARAMS to the
 * portable kernel on 32 x 32 tiles (unless a *GEMM_PARAMS variable is already set) and says
 * so on stdout. Call it before the first handle or device-buffer call (the parameters are
 * resolved once per device). Nothing on CPU devices (PoCL: the tests as written). */
void tc_small_tiles_on_gpu(const char *why);
/* 1 when a device the library would use (clhgemm_devices_get(NULL, ...)) is a GPU. */
int tc_any_gpu(void);
/* Opens the first device of clhgemm_devices_get(NULL, ...). Returns 0, TC_SKIP when the machine
 * has no OpenCL device or lacks CLHGEMM_TEST_REQUIRE_FEATURE, or 1 on any other error (message
 * printed). */
int tc_open(tc_env_t *env);
void tc_close(tc_env_t *env);
/* A new in-order queue on env's context and device (NULL on failure, message printed). */
cl_command_queue tc_queue_new(const tc_env_t *env);

/* ---- random numbers (xorshift64*) -------------------------------------------------------- */
typedef struct tc_rng_s {
    uint64_t s;
} tc_rng_t;
void tc_rng_seed(tc_rng_t *r, uint64_t seed);
uint64_t tc_rng_next(tc_rng_t *r);
/* Uniform in [-1, 1], never zero. */
double tc_rng_uniform(tc_rng_t *r);

/* ---- buffers ----------------------------------------------------------------------------- */
/* Buffer initialised from host memory (bytes > 0). NULL on failure (message printed). */
cl_mem tc_buffer_from_host(cl_context ctx, const void *host, size_t bytes);
/* Blocking read / write of a whole buffer prefix on queue q. 0 on success. */
int tc_read(cl_command_queue q, cl_mem m, void *host, size_t bytes);
int tc_write(cl_command_queue q, cl_mem m, const void *host, size_t bytes);
/* A buffer of elems (at least one) elements of esz bytes (4: float, 8: double), uniform random
 * from rng; its contents are kept in *host (malloc'ed, the caller frees them) unless host is
 * NULL. NULL on failure. */
cl_mem tc_random_buffer(cl_context ctx, size_t elems, size_t esz, tc_rng_t *rng, void **host);

/* ---- rejected calls (test_args.c, test_level3.c) ------------------------------------------ */
/* What *event holds before a call that must leave it alone. */
#define TC_EV_SENTINEL ((cl_event)(uintptr_t)0x5EB71E10)
/* A buffer whose contents must survive a rejected call, the queue to read it on, and the
 * contents it must still hold. */
typedef struct tc_watched_s {
    cl_mem buf;
    cl_command_queue q;
    const void *host;
    size_t bytes;
} tc_watched_t;
/* 0 when w (or its buffer) is NULL or the buffer holds w->host bit for bit; 1 otherwise, with
 * a FAIL line naming tag. */
int tc_unchanged(const tc_watched_t *w, const char *tag);

/* ---- storage geometry -------------------------------------------------------------------- */
/* op(X) is r x c. *contig = extent of the stored matrix along memory (what ld must cover),
 * *lines = number of such lines. */
void tc_stored(clhgemm_layout_t layout, clhgemm_transpose_t t, int r, int c, int *contig,
               int *lines);
/* Index (from the offset) of element (i, j) of op(X). */
size_t tc_index(clhgemm_layout_t layout, clhgemm_transpose_t t, int i, int j, int ld);
/* Index of C(i, j). */
size_t tc_index_c(clhgemm_layout_t layout, int i, int j, int ld);
/* Elements that a stored matrix needs: off + (lines-1)*ld + contig (off when empty). */
size_t tc_required(size_t off, int contig, int lines, int ld);

/* Sentinel bit pattern for element idx of a C buffer outside the matrix. */
void tc_sentinel(int dbl, size_t idx, void *dst);

/* ---- reference --------------------------------------------------------------------------- */
/* OpenBLAS cblas_dgemm (serialised by a mutex so threads may call it). */
void tc_ref_dgemm(clhgemm_layout_t layout, clhgemm_transpose_t ta, clhgemm_transpose_t tb, int m,
                  int n, int k, double alpha, const double *A, int lda, const double *B, int ldb,
                  double beta, double *C, int ldc);

/* Checks a C buffer after a call. got: whole buffer read back (native precision, nc elements);
 * before: the buffer as written before the call; want/bound: whole-buffer doubles holding the
 * reference result and |alpha||op(A)||op(B)| + |beta||C0| at the matrix positions. k sets the
 * tolerance. Prints one line naming tag and the worst element on failure. Returns 0 on pass. */
int tc_check_c(int dbl, clhgemm_layout_t layout, int m, int n, int k, const void *got,
               const void *before, size_t nc, size_t offc, int ldc, const double *want,
               const double *bound, const char *tag);

/* The same for a symmetric n x n C of which only the uplo triangle is the result (SYRK, SYR2K):
 * the triangle is checked against want, the other triangle must be bit-identical to before,
 * like everything outside the matrix. */
int tc_check_c_tri(int dbl, clhgemm_layout_t layout, clhgemm_uplo_t uplo, int n, int k,
                   const void *got, const void *before, size_t nc, size_t offc, int ldc,
                   const double *want, const double *bound, const char *tag);

/* ---- one GEMM problem -------------------------------------------------------------------- */
typedef struct tc_case_s {
    int dbl; /* 0: sgemm, 1: dgemm */
    clhgemm_layout_t layout;
    clhgemm_transpose_t ta, tb;
    int m, n, k;
    double alpha, beta;
    int lda, ldb, ldc;       /* 0: tight (max(1, rows as stored)) */
    int pad;                 /* added to each ld left at 0 */
    size_t offa, offb, offc; /* elements */
    int null_a, null_b;      /* pass NULL for A / B (only valid when k == 0 or alpha == 0) */
    int c_nan;               /* matrix part of C is NaN (forced when beta == 0) */
    size_t extra;            /* NaN elements added after A and B (room for reads past them) */
} tc_case_t;

typedef struct tc_problem_s {
    tc_case_t c;
    size_t esz;
    size_t na, nb, nc; /* elements in each buffer */
    void *a0, *b0, *c0; /* initial buffer contents, native precision */
    cl_mem a, b, cbuf;
} tc_problem_t;

/* One-line description of a case ("s col NT m=.. n=.. k=.. alpha=.. beta=.. ld=.. off=.."). */
void tc_case_describe(const tc_case_t *c, char *buf, size_t len);

/* Resolves the ld fields, fills host data (A/B random, gaps NaN; C random or NaN, outside the
 * matrix the sentinel) and creates the buffers. Returns 0 on success. */
int tc_problem_init(tc_problem_t *p, cl_context ctx, const tc_case_t *c, tc_rng_t *rng);
/* The host part of tc_problem_init alone: ld fields resolved, a0/b0/c0 filled and poisoned the
 * same way, no OpenCL buffers (a, b, cbuf stay NULL; for tests of the host-memory API). */
int tc_problem_init_host(tc_problem_t *p, const tc_case_t *c, tc_rng_t *rng);
/* Calls clhgemm_{s,d}gemm_cl on queue with the problem's arguments. */
clhgemm_status_t tc_problem_call(const tc_problem_t *p, cl_command_queue queue, cl_event *event);
/* Reads A, B, C back on queue (blocking) and checks C against OpenBLAS and the sentinels, and
 * that A and B are unchanged. Returns 0 on pass. */
int tc_problem_check(const tc_problem_t *p, cl_command_queue queue, const char *tag);
/* Reference pieces: want/bound (p->nc doubles, whole C buffer) := C0 and |C0| (NaN -> 0 when
 * beta == 0); then want := alpha*op(A)*op(B) + beta*want and bound := |alpha||A||B| +
 * |beta|*bound with p's operands (apply may be chained over several problems sharing C's
 * geometry). apply returns 0 on success. */
void tc_problem_ref_init(const tc_problem_t *p, double *want, double *bound);
int tc_problem_ref_apply(const tc_problem_t *p, double *want, double *bound);
/* Same, but C must be bit-identical to its initial content. */
int tc_problem_check_unchanged(const tc_problem_t *p, cl_command_queue queue, const char *tag);
void tc_problem_free(tc_problem_t *p);

/* Init + call (with event) + wait + release + check + free. Prints one line on failure.
 * Returns 0 on pass. */
/* The asynchronous contract of a call that returned st and ev on queue (success, an event of
 * ctx that completes); waits for and releases ev. -1: the call failed or gave no event (reported);
 * else 0, or 1 when the contract is broken (reported). */
int tc_event_contract(cl_context ctx, cl_command_queue queue, clhgemm_status_t st, cl_event ev,
                      const char *tag);
int tc_run_case(cl_context ctx, cl_command_queue queue, const tc_case_t *c, tc_rng_t *rng);

/* Printable layout/trans names. */
const char *tc_layout_name(clhgemm_layout_t l);
const char *tc_trans_name(clhgemm_transpose_t t);


/* ---- level 3 (test_level3.c, test_host_level3.c) ----------------------------------------- */
enum { TC_L3_SYMM, TC_L3_SYRK, TC_L3_SYR2K, TC_L3_TRMM, TC_L3_NROUTINES };

/* One SYMM/SYRK/SYR2K/TRMM case. */
typedef struct tc_l3case_s {
    int r, dbl; /* TC_L3_*; double precision */
    clhgemm_layout_t layout;
    clhgemm_side_t side;
    clhgemm_uplo_t uplo;
    clhgemm_transpose_t trans;
    clhgemm_diag_t diag;
    int m, n, k; /* SYMM/TRMM: B, C are m x n; SYRK/SYR2K: C n x n, op(A) n x k */
    double alpha, beta;
    int pad;
    size_t offa, offb, offc;
    int null_a, null_b, null_c; /* pass NULL (argument tests of the host API) */
} tc_l3case_t;

/* The reference over the whole output buffer (C, or B for TRMM; nc / nb elements):
 * want := alpha*op + beta*C0 and bound := |alpha||op| + |beta||C0|, OpenBLAS in double on the
 * initial contents a0, b0, c0 (na, nb, nc elements, the case's precision). */
void tc_l3_reference(const tc_l3case_t *c, int lda, int ldb, int ldc, size_t na, size_t nb,
                     size_t nc, const void *a0, const void *b0, const void *c0, double *want,
                     double *bound);

/* ---- process ------------------------------------------------------------------------------ */
/* stderr into a temporary file (the library's warning and verbose lines): tc_capture_begin, then
 * tc_capture_end restores stderr, echoes what was captured to it and returns it as a string the
 * caller frees ("" when nothing could be read). Aborts when stderr cannot be redirected. */
typedef struct tc_capture_s {
    void *tmp; /* FILE * */
    int saved;
} tc_capture_t;
void tc_capture_begin(tc_capture_t *k);
char *tc_capture_end(tc_capture_t *k);
/* Lines of text that start with `prefix` and contain `a` and, unless NULL, `b`. */
int tc_count_lines(const char *text, const char *prefix, const char *a, const char *b);
/* VmRSS of /proc/self/status in MiB (0 if unreadable). */
double tc_vmrss_mib(void);

#endif
