/*
 * test_blas_threads.c -- the BLAS drop-in (libblas.so.3) from many threads at once and after
 * fork(): 8 threads call dgemm_ and sgemm_ together (small calls that stay on the CPU BLAS and,
 * with CLHGEMM_BLAS_OFFLOAD=always, calls on the devices), each result checked against a naive
 * product; then a child made by fork() after the library was used calls dgemm_ (on the CPU
 * BLAS) and must finish within 60 s with the right result, while the parent goes on calling.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *, size_t, size_t);
void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *, const float *,
            const int *, const float *, const int *, const float *, float *, const int *, size_t, size_t);

/* C := 1.5 A B + 0.5 C for an n x n problem of the given precision; 0 when right. */
static int one_call(int n, int dbl, unsigned seed)
{
    const size_t nn = (size_t)n * n;
    double *a = malloc(nn * 8), *b = malloc(nn * 8), *c = malloc(nn * 8), *want = malloc(nn * 8);
    float *af = malloc(nn * 4), *bf = malloc(nn * 4), *cf = malloc(nn * 4);
    int bad = !a || !b || !c || !want || !af || !bf || !cf;
    for (size_t i = 0; !bad && i < nn; i++) {
        seed = seed * 1103515245u + 12345u;
        a[i] = af[i] = (float)((seed >> 8) % 2001) / 1000.0f - 1.0f;
        seed = seed * 1103515245u + 12345u;
        b[i] = bf[i] = (float)((seed >> 8) % 2001) / 1000.0f - 1.0f;
        c[i] = cf[i] = (float)(i % 7) - 3.0f;
    }
    for (int j = 0; !bad && j < n; j++)
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int p = 0; p < n; p++) s += a[i + (size_t)p * n] * b[p + (size_t)j * n];
            want[i + (size_t)j * n] = 1.5 * s + 0.5 * c[i + (size_t)j * n];
        }
    const double alpha = 1.5, beta = 0.5;
    const float alf = 1.5f, bef = 0.5f;
    if (!bad && dbl) dgemm_("N", "N", &n, &n, &n, &alpha, a, &n, b, &n, &beta, c, &n, 1, 1);
    if (!bad && !dbl) sgemm_("N", "N", &n, &n, &n, &alf, af, &n, bf, &n, &bef, cf, &n, 1, 1);
    const double tol = (dbl ? 1e-13 : 2e-5) * n * 4;
    for (size_t i = 0; !bad && i < nn; i++)
        if (!(fabs((dbl ? c[i] : cf[i]) - want[i]) <= tol * (1.0 + fabs(want[i])))) bad = 1;
    free(a), free(b), free(c), free(want), free(af), free(bf), free(cf);
    return bad;
}

static void *worker(void *arg)
{
    const long id = (long)arg;
    long bad = 0;
    for (int r = 0; r < 6; r++) bad += one_call(r % 2 ? 96 : 17 + (int)id, (int)((id + r) % 2), (unsigned)(id * 31 + r));
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
    printf("threads: %ld wrong results of 48\n", bad);
    const pid_t pid = fork();
    if (pid == 0) {
        alarm(60);
        const int child_bad = one_call(64, 1, 99) + one_call(33, 0, 98);
        _exit(child_bad ? 1 : 0);
    }
    const int parent_bad = one_call(80, 1, 7);
    int status = 0;
    waitpid(pid, &status, 0);
    const int child_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    printf("fork: child %s, parent after fork %s\n", child_ok ? "ok" : WIFSIGNALED(status) ? "killed (hang or crash)" : "wrong",
           parent_bad ? "wrong" : "ok");
    return bad || !child_ok || parent_bad ? 1 : 0;
}
