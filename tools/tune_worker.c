/*
 * tune_worker.c -- parallel, crash-isolated kernel builds for clhgemm-tune.
 *
 * A build worker is this same program started as `clhgemm-tune --worker INDEX`: it opens the
 * device, then reads one request per line on stdin, generates the kernel source (params.c or
 * codegen.c, exactly as the library does), builds it with clBuildProgram, and answers on stdout
 * with the program binary and the kernel's work-group limit and private/local memory use (or a
 * one-line reason for the failure). The parent loads the binary, which costs a fraction of a
 * build, and times it.
 *
 * Why processes rather than threads: a candidate kernel may crash or hang the vendor's compiler
 * (large unrolled tiles are where compilers break), and inside one process that would end the
 * whole tuning run. A worker that dies or exceeds the build timeout costs only its candidate,
 * which is skipped with the signal or the timeout as its reason, and the worker is replaced.
 * N workers build N candidates at once, whatever locking the driver does inside one process,
 * while the parent keeps the device busy timing the ones already built.
 *
 * Protocol (one request in flight per worker):
 *   parent -> worker   "ID g PREC PARAMS\n" | "ID c PREC KIND CONTIG PARAMS\n"
 *   worker -> parent   "ok ID WG PRIV LMEM BUILD_MS BINLEN\n" + BINLEN bytes | "fail ID REASON\n"
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tune.h"

extern char **environ;

/* ---- requests ---------------------------------------------------------------------------- */

void wp_gemm_request(chg_precision_t prec, const chg_gemm_params_t *p, char *buf, size_t len)
{
    char t[200];
    chg_gemm_params_format(p, t, sizeof t);
    snprintf(buf, len, "g %c %s", prec == CHG_F64 ? 'd' : 's', t);
}

void wp_copy_request(const chg_copy_params_t *p, char *buf, size_t len)
{
    char t[200];
    chg_copy_params_format(p, t, sizeof t);
    snprintf(buf, len, "c %c %d %d %s", p->prec == CHG_F64 ? 'd' : 's', (int)p->kind,
             p->src_contig_i, t);
}

/* ---- the worker process ------------------------------------------------------------------ */

static void reply_fail(long id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply_fail(long id, const char *fmt, ...)
{
    char why[400], line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    for (char *c = why; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
    snprintf(line, sizeof line, "fail %ld %s\n", id, why);
    chg_write_all(1, line, strlen(line));
}

/* The first error-looking line of a build log (whole log when none looks like one). */
static void log_summary(const char *log, char *out, size_t len)
{
    out[0] = '\0';
    if (!log) return;
    const char *hit = strstr(log, "error");
    if (!hit) hit = log;
    const char *start = hit;
    while (start > log && start[-1] != '\n') start--;
    snprintf(out, len, "%s", start);
}

static void serve(const chg_device_t *dev, cl_context ctx, long id, char *req)
{
    char type = 0, pc = 0;
    int off = 0;
    if (sscanf(req, " %c %c %n", &type, &pc, &off) < 2 || (pc != 's' && pc != 'd')) {
        reply_fail(id, "malformed request");
        return;
    }
    const chg_precision_t prec = pc == 'd' ? CHG_F64 : CHG_F32;
    chg_str_t src;
    chg_str_init(&src);
    const char *name = NULL;
    char why[256] = "";
    if (type == 'g') {
        chg_gemm_params_t p;
        memset(&p, 0, sizeof p);
        if (chg_gemm_params_parse(req + off, &p) != 0) {
            reply_fail(id, "malformed parameters");
            return;
        }
        if (!chg_gemm_params_valid(dev, prec, &p, why, sizeof why)) {
            reply_fail(id, "invalid on this device: %s", why);
            return;
        }
        if (chg_gemm_source(dev, prec, &p, &src) != 0) {
            chg_str_free(&src);
            reply_fail(id, "source generation failed");
            return;
        }
        name = "clhgemm_gemm";
    } else if (type == 'c') {
        int kind = 0, contig = 0, off2 = 0;
        if (sscanf(req + off, "%d %d %n", &kind, &contig, &off2) < 2) {
            reply_fail(id, "malformed request");
            return;
        }
        chg_copy_params_t p;
        chg_copy_params_default(dev, (chg_copy_kind_t)kind, prec, &p);
        p.src_contig_i = contig;
        if (chg_copy_params_parse(req + off + off2, &p) != 0) {
            reply_fail(id, "malformed copy parameters");
            return;
        }
        if (!chg_copy_params_valid(dev, &p, why, sizeof why)) {
            reply_fail(id, "invalid on this device: %s", why);
            return;
        }
        if (chg_copy_generate(dev, &p, &src, &name) != 0) {
            chg_str_free(&src);
            reply_fail(id, "source generation failed");
            return;
        }
    } else {
        reply_fail(id, "unknown request type '%c'", type);
        return;
    }

    /* Test hooks: a candidate whose parameters contain CLHGEMM_TUNE_FAULT_CRASH kills its
     * worker the way a compiler crash would (SIGSEGV, no core file); one that contains
     * CLHGEMM_TUNE_FAULT_BUILD gets a compile error from the real compiler. */
    const char *crash = getenv("CLHGEMM_TUNE_FAULT_CRASH");
    if (crash && *crash && strstr(req + off, crash)) {
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        signal(SIGSEGV, SIG_DFL); /* the OpenCL runtime may have a handler of its own */
        raise(SIGSEGV);
    }
    const char *bad = getenv("CLHGEMM_TUNE_FAULT_BUILD");
    if (bad && *bad && strstr(req + off, bad))
        chg_str_append(&src, "\n#error injected by CLHGEMM_TUNE_FAULT_BUILD\n");

    const double t0 = tune_now();
    cl_program prog = NULL;
    char *log = NULL;
    clhgemm_status_t st = chg_program_build_uncached(ctx, dev->info.device, src.data,
                                                     chg_build_options(dev), &prog, &log);
    chg_str_free(&src);
    if (st != CLHGEMM_SUCCESS) {
        char sum[300];
        log_summary(log, sum, sizeof sum);
        reply_fail(id, "build failed (%s)%s%s", clhgemm_status_string(st), sum[0] ? ": " : "", sum);
        free(log);
        return;
    }
    free(log);
    cl_int err;
    cl_kernel k = clCreateKernel(prog, name, &err);
    size_t wg = 0;
    cl_ulong priv = 0, lmem = 0;
    if (err == CL_SUCCESS) {
        clGetKernelWorkGroupInfo(k, dev->info.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
        clGetKernelWorkGroupInfo(k, dev->info.device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof priv, &priv,
                                 NULL);
        clGetKernelWorkGroupInfo(k, dev->info.device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem, &lmem,
                                 NULL);
        clReleaseKernel(k);
    }
    const double build_ms = (tune_now() - t0) * 1e3;
    size_t binlen = 0;
    unsigned char *bin = NULL;
    if (err == CL_SUCCESS)
        err = clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof binlen, &binlen, NULL);
    if (err == CL_SUCCESS && binlen > 0 && (bin = malloc(binlen)))
        err = clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
    clReleaseProgram(prog);
    if (err != CL_SUCCESS || !bin || binlen == 0) {
        reply_fail(id, "built, but no kernel or binary (%s)", clhgemm_status_string(err));
        free(bin);
        return;
    }
    char head[200];
    snprintf(head, sizeof head, "ok %ld %zu %llu %llu %.1f %zu\n", id, wg, (unsigned long long)priv,
             (unsigned long long)lmem, build_ms, binlen);
    chg_write_all(1, head, strlen(head));
    chg_write_all(1, bin, binlen);
    free(bin);
}

int wp_worker_main(int dev_index)
{
    signal(SIGPIPE, SIG_DFL);
    char spec[32];
    snprintf(spec, sizeof spec, "%d", dev_index);
    clhgemm_device_info_t info;
    size_t count = 0;
    chg_device_t dev;
    if (clhgemm_devices_get(spec, &info, 1, &count) != CLHGEMM_SUCCESS || count != 1 ||
        chg_device_query(info.device, &dev) != CLHGEMM_SUCCESS) {
        fprintf(stderr, "clhgemm-tune worker: device %d not found\n", dev_index);
        return 1;
    }
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &info.device, NULL, NULL, &err);
    if (!ctx) {
        fprintf(stderr, "clhgemm-tune worker: clCreateContext: %s\n", clhgemm_status_string(err));
        return 1;
    }
    char line[2048];
    while (fgets(line, sizeof line, stdin)) {
        char *end = NULL;
        long id = strtol(line, &end, 10);
        if (end == line) continue;
        line[strcspn(line, "\n")] = '\0';
        serve(&dev, ctx, id, end);
    }
    clReleaseContext(ctx);
    return 0;
}

/* ---- the pool (parent side) -------------------------------------------------------------- */

static int spawn(wp_pool_t *p, wp_worker_t *w)
{
    int in[2], out[2];
    memset(w, 0, sizeof *w);
    w->id = -1;
    w->pid = -1;
    w->to = w->from = -1;
    if (pipe2(in, O_CLOEXEC) != 0) return -1;
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, p->errlog[0] ? p->errlog : "/dev/null",
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    char idx[32];
    snprintf(idx, sizeof idx, "%d", p->dev_index);
    char *argv[] = {p->exe, "--worker", idx, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, p->exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    if (rc != 0) {
        close(in[1]);
        close(out[0]);
        return -1;
    }
    w->pid = pid;
    w->to = in[1];
    w->from = out[0];
    return 0;
}

static void reap(wp_worker_t *w, int kill_it, int *status)
{
    if (w->pid > 0) {
        if (kill_it) kill(w->pid, SIGKILL);
        int st = 0;
        while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) {
        }
        if (status) *status = st;
    }
    if (w->to >= 0) close(w->to);
    if (w->from >= 0) close(w->from);
    free(w->buf);
    w->buf = NULL;
    w->pid = -1;
    w->to = w->from = -1;
}

int wp_start(wp_pool_t *p, const char *exe, int dev_index, int n, const char *errlog)
{
    memset(p, 0, sizeof *p);
    snprintf(p->exe, sizeof p->exe, "%s", exe);
    snprintf(p->errlog, sizeof p->errlog, "%s", errlog ? errlog : "");
    p->dev_index = dev_index;
    p->build_timeout_s = 300;
    signal(SIGPIPE, SIG_IGN);
    if (n > TUNE_MAX_WORKERS) n = TUNE_MAX_WORKERS;
    for (int i = 0; i < n; i++) {
        if (spawn(p, &p->w[p->n]) != 0) break;
        p->n++;
    }
    return p->n;
}

void wp_stop(wp_pool_t *p)
{
    for (int i = 0; i < p->n; i++) {
        wp_worker_t *w = &p->w[i];
        if (w->pid <= 0) continue;
        /* Idle workers end on EOF; busy ones are killed (their build is no longer wanted). */
        const int busy = w->id >= 0;
        if (!busy && w->to >= 0) {
            close(w->to);
            w->to = -1;
        }
        reap(w, busy, NULL);
    }
    p->n = 0;
}

int wp_idle(const wp_pool_t *p)
{
    int n = 0;
    for (int i = 0; i < p->n; i++) n += p->w[i].pid > 0 && p->w[i].id < 0;
    return n;
}

int wp_busy(const wp_pool_t *p)
{
    int n = 0;
    for (int i = 0; i < p->n; i++) n += p->w[i].pid > 0 && p->w[i].id >= 0;
    return n;
}

int wp_submit(wp_pool_t *p, long id, const char *line)
{
    for (int i = 0; i < p->n; i++) {
        wp_worker_t *w = &p->w[i];
        if (w->pid <= 0 || w->id >= 0) continue;
        char buf[2048];
        int len = snprintf(buf, sizeof buf, "%ld %s\n", id, line);
        if (len <= 0 || (size_t)len >= sizeof buf) return -1;
        w->id = id;
        w->since = tune_now();
        if (chg_write_all(w->to, buf, (size_t)len) != 0) {
            /* Dead already: wp_wait reports the failure and replaces it. */
            w->dead = 1;
        }
        return 0;
    }
    return -1;
}

/* A complete answer in w's buffer -> res (consumed). 1 when one was there. */
static int take_answer(wp_worker_t *w, wp_result_t *res)
{
    char *nl = w->buf ? memchr(w->buf, '\n', w->len) : NULL;
    if (!nl) return 0;
    const size_t head = (size_t)(nl - w->buf) + 1;
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)(head - 1 < sizeof line - 1 ? head - 1 : sizeof line - 1),
             w->buf);
    memset(res, 0, sizeof *res);
    size_t consumed = head;
    if (!strncmp(line, "ok ", 3)) {
        unsigned long long priv = 0, lmem = 0;
        size_t wg = 0, binlen = 0;
        double ms = 0;
        long id = -1;
        if (sscanf(line + 3, "%ld %zu %llu %llu %lf %zu", &id, &wg, &priv, &lmem, &ms, &binlen) != 6) {
            res->id = w->id;
            snprintf(res->reason, sizeof res->reason, "garbled answer from the build worker");
        } else {
            if (w->len < head + binlen) return 0; /* binary not complete yet */
            res->id = id;
            res->binary = malloc(binlen);
            if (!res->binary) {
                snprintf(res->reason, sizeof res->reason, "out of memory");
            } else {
                memcpy(res->binary, w->buf + head, binlen);
                res->binlen = binlen;
                res->ok = 1;
            }
            res->wg_max = wg;
            res->priv_mem = priv;
            res->local_mem = lmem;
            res->build_s = ms * 1e-3;
            consumed += binlen;
        }
    } else if (!strncmp(line, "fail ", 5)) {
        char *end = NULL;
        res->id = strtol(line + 5, &end, 10);
        snprintf(res->reason, sizeof res->reason, "%s", end && *end == ' ' ? end + 1 : "failed");
    } else {
        res->id = w->id;
        snprintf(res->reason, sizeof res->reason, "garbled answer from the build worker");
    }
    memmove(w->buf, w->buf + consumed, w->len - consumed);
    w->len -= consumed;
    w->id = -1;
    return 1;
}

/* Worker i failed with `why` for its request: report, replace. */
static void worker_lost(wp_pool_t *p, int i, int kill_it, const char *why, wp_result_t *res)
{
    wp_worker_t *w = &p->w[i];
    const long id = w->id;
    int status = 0;
    reap(w, kill_it, &status);
    memset(res, 0, sizeof *res);
    res->id = id;
    if (why) {
        snprintf(res->reason, sizeof res->reason, "%s", why);
    } else if (WIFSIGNALED(status)) {
        p->crashes++;
        snprintf(res->reason, sizeof res->reason, "the build crashed (signal %d, %s)",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    } else {
        p->crashes++;
        snprintf(res->reason, sizeof res->reason, "the build worker exited (status %d)",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    if (spawn(p, w) != 0) w->pid = -1;
}

int wp_wait(wp_pool_t *p, double timeout_s, wp_result_t *res)
{
    const double end = tune_now() + timeout_s;
    for (;;) {
        /* Answers already buffered, dead and overdue workers first. */
        for (int i = 0; i < p->n; i++) {
            wp_worker_t *w = &p->w[i];
            if (w->pid <= 0 || w->id < 0) continue;
            if (take_answer(w, res)) return 1;
            if (w->dead) {
                worker_lost(p, i, 1, NULL, res);
                return 1;
            }
            if (tune_now() - w->since > p->build_timeout_s) {
                char why[128];
                snprintf(why, sizeof why, "the build took longer than %.0f s (killed)",
                         p->build_timeout_s);
                p->timeouts++;
                worker_lost(p, i, 1, why, res);
                return 1;
            }
        }
        struct pollfd fds[TUNE_MAX_WORKERS];
        int map[TUNE_MAX_WORKERS], nf = 0;
        for (int i = 0; i < p->n; i++) {
            if (p->w[i].pid <= 0 || p->w[i].id < 0) continue;
            fds[nf].fd = p->w[i].from;
            fds[nf].events = POLLIN;
            fds[nf].revents = 0;
            map[nf++] = i;
        }
        double left = end - tune_now();
        if (nf == 0 || left <= 0) return 0;
        int ms = (int)(left * 1e3) + 1;
        if (ms > 1000) ms = 1000; /* wake up to check the build timeout */
        int rc = poll(fds, (nfds_t)nf, ms);
        if (rc < 0 && errno != EINTR) return 0;
        for (int f = 0; f < nf && rc > 0; f++) {
            if (!fds[f].revents) continue;
            wp_worker_t *w = &p->w[map[f]];
            if (w->cap - w->len < 65536) {
                size_t cap = w->cap ? 2 * w->cap : 131072;
                while (cap - w->len < 65536) cap *= 2;
                char *b = realloc(w->buf, cap);
                if (!b) continue;
                w->buf = b;
                w->cap = cap;
            }
            ssize_t n = read(w->from, w->buf + w->len, w->cap - w->len);
            if (n > 0) w->len += (size_t)n;
            else if (n == 0 || (errno != EINTR && errno != EAGAIN)) w->dead = 1;
        }
    }
}

/* ---- loading a worker's binary ------------------------------------------------------------- */

cl_int tune_program_from_binary(const tdev_t *d, const wp_result_t *res, const char *kernel_name,
                                cl_program *prog, cl_kernel *kernel, char *why, size_t why_len)
{
    cl_int err, bst = CL_SUCCESS;
    const unsigned char *bin = res->binary;
    const cl_device_id dev = d->dev.info.device;
    *prog = NULL;
    *kernel = NULL;
    cl_program p = clCreateProgramWithBinary(d->ctx, 1, &dev, &res->binlen, &bin, &bst, &err);
    if (!p || err != CL_SUCCESS || bst != CL_SUCCESS) {
        snprintf(why, why_len, "binary refused (%s)",
                 clhgemm_status_string(err != CL_SUCCESS ? err : bst));
        if (p) clReleaseProgram(p);
        return err != CL_SUCCESS ? err : bst;
    }
    err = clBuildProgram(p, 1, &dev, chg_build_options(&d->dev), NULL, NULL);
    if (err == CL_SUCCESS) *kernel = clCreateKernel(p, kernel_name, &err);
    if (err != CL_SUCCESS) {
        snprintf(why, why_len, "loading the binary failed (%s)", clhgemm_status_string(err));
        clReleaseProgram(p);
        return err;
    }
    *prog = p;
    return CL_SUCCESS;
}
