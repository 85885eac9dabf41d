/*
 * test_lapack_threads.c -- the LAPACK drop-in (liblapack.so.3) from many threads at once and
 * after fork(): 8 threads call dgesv_, spotrf_ and dgeqrf_ + dorgqr_ together (small calls that
 * stay on the CPU LAPACK and, with CLHGEMM_LAPACK_OFFLOAD=always, calls through the library on
 * the devices), each result checked by its residual; then a child made by fork() after the
 * library was used calls them (on the CPU LAPACK) and must finish within 60 s with the right
 * results, while the parent goes on calling.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b, const int *ldb,
            int *info);
void spotrf_(const char *uplo, const int *n, float *a, const int *lda, int *info, size_t l1);
void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work,
             const int *lwork, int *info);
void dorgqr_(const int *m, const int *n, const int *k, double *a, const int *lda, const double *tau,
             double *work, const int *lwork, int *info);

static double rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (double)((*seed >> 8) % 2001) / 1000.0 - 1.0;
}

/* A X = B for a diagonally dominant n x n A and 3 right-hand sides; 0 when the residual is small. */
static int gesv_call(int n, unsigned seed)
{
    const int nrhs = 3;
    double *a = malloc(sizeof(double) * n * n), *a0 = malloc(sizeof(double) * n * n);
    double *b = malloc(sizeof(double) * n * nrhs), *b0 = malloc(sizeof(double) * n * nrhs);
    int *ipiv = malloc(sizeof(int) * n), info = -1, bad = !a || !a0 || !b || !b0 || !ipiv;
    for (int i = 0; !bad && i < n * n; i++) a[i] = a0[i] = rnd(&seed) + (i % (n + 1) == 0 ? n : 0);
    for (int i = 0; !bad && i < n * nrhs; i++) b[i] = b0[i] = rnd(&seed);
    if (!bad) dgesv_(&n, &nrhs, a, &n, ipiv, b, &n, &info);
    bad = bad || info != 0;
    for (int j = 0; !bad && j < nrhs; j++)
        for (int i = 0; i < n; i++) {
            double s = -b0[i + j * n];
            for (int p = 0; p < n; p++) s += a0[i + p * n] * b[p + j * n];
            if (!(fabs(s) <= 1e-12 * n * n)) bad = 1;
        }
    free(a), free(a0), free(b), free(b0), free(ipiv);
    return bad;
}

/* The lower Cholesky factor of G G^T + n I in single precision; 0 when L L^T matches. */
static int potrf_call(int n, unsigned seed)
{
    float *a = malloc(sizeof(float) * n * n);
    double *p = malloc(sizeof(double) * n * n), *g = malloc(sizeof(double) * n * n);
    int info = -1, bad = !a || !p || !g;
    for (int i = 0; !bad && i < n * n; i++) g[i] = rnd(&seed);
    for (int j = 0; !bad && j < n; j++)
        for (int i = 0; i < n; i++) {
            double s = i == j ? n : 0;
            for (int q = 0; q < n; q++) s += g[i + q * n] * g[j + q * n];
            p[i + j * n] = s;
            a[i + j * n] = (float)s;
        }
    if (!bad) spotrf_("L", &n, a, &n, &info, 1);
    bad = bad || info != 0;
    for (int j = 0; !bad && j < n; j++)
        for (int i = j; i < n; i++) {
            double s = -p[i + j * n];
            for (int q = 0; q <= j; q++) s += (double)a[i + q * n] * a[j + q * n];
            if (!(fabs(s) <= 2e-6 * n * n)) bad = 1;
        }
    free(a), free(p), free(g);
    return bad;
}

/* Q of an m x n QR (workspace asked for first); 0 when Q^T Q = I. */
static int qr_call(int m, int n, unsigned seed)
{
    double *a = malloc(sizeof(double) * m * n), *tau = malloc(sizeof(double) * n), wq = 0, *work = NULL;
    int info = -1, lwork = -1, bad = !a || !tau;
    for (int i = 0; !bad && i < m * n; i++) a[i] = rnd(&seed);
    if (!bad) dgeqrf_(&m, &n, a, &m, tau, &wq, &lwork, &info);
    lwork = (int)wq > n ? (int)wq : n;
    work = malloc(sizeof(double) * lwork);
    bad = bad || info != 0 || !work;
    if (!bad) dgeqrf_(&m, &n, a, &m, tau, work, &lwork, &info);
    if (!bad && info == 0) dorgqr_(&m, &n, &n, a, &m, tau, work, &lwork, &info);
    bad = bad || info != 0;
    for (int j = 0; !bad && j < n; j++)
        for (int i = 0; i < n; i++) {
            double s = i == j ? -1 : 0;
            for (int q = 0; q < m; q++) s += a[q + i * m] * a[q + j * m];
            if (!(fabs(s) <= 1e-13 * m)) bad = 1;
        }
    free(a), free(tau), free(work);
    return bad;
}

static int three_calls(int n, unsigned seed)
{
    return gesv_call(n, seed) + potrf_call(n, seed + 1) + qr_call(n + 9, n, seed + 2);
}

static void *worker(void *arg)
{
    const long id = (long)arg;
    long bad = 0;
    for (int r = 0; r < 4; r++) bad += three_calls(r % 2 ? 120 : 9 + (int)id, (unsigned)(id * 31 + r));
    return (void *)bad;
}

int main(void)
{
    pthread_t th[8];
    for (long i = 0; i < 8; i++) pthread_create(&th[i], NULL, worker, (void *)i);
    long bad = 0;
    for (int i = 0; i < 8; i++) {
        void *r;
        pthread_join(th[i], &r);
        bad += (long)r;
    }
    printf("threads: %ld wrong results of 96\n", bad);
    const pid_t pid = fork();
    if (pid == 0) {
        alarm(60);
        _exit(three_calls(100, 99) + three_calls(13, 98) ? 1 : 0);
    }
    const int parent_bad = three_calls(80, 7);
    int status = 0;
    waitpid(pid, &status, 0);
    const int child_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    printf("fork: child %s, parent after fork %s\n",
           child_ok ? "ok" : WIFSIGNALED(status) ? "killed (hang or crash)" : "wrong",
           parent_bad ? "wrong" : "ok");
    return bad || !child_ok || parent_bad ? 1 : 0;
}
