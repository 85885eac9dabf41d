/*
 * test_tuning.c -- the tuning database (src/tuning/: dbfile, resolve, tuning): format, lookup
 * and its use by the library.
 *
 * Links clhgemm_internal. Modes (argv[1]):
 *   unit     no device needed: write -> read round trip (every field), rejection of corrupt JSON,
 *            another format or format version, an incompatible library version, an unknown
 *            precision and schema errors (the routing figures' too), each with its reason; the
 *            lookup at every level
 *            (exact, architecture, vendor, built-in) on a synthetic device with databases in a
 *            temporary CLHGEMM_TUNING_DIR and CLHGEMM_SHIPPED_TUNING_DIR, the user database
 *            before the shipped one, an entry without the precision or with parameters that do
 *            not fit passed over (with a note) and the defaults used, the env override winning,
 *            CLHGEMM_TUNING=off, merge semantics of upsert, atomic writes; the cached forms
 *            (chg_tuned_gemm, chg_tuned_entry, chg_tuning_copy_params) answer as the uncached
 *            ones, see a reload (a new generation), the bypass hook and each setenv at once,
 *            and stay right with more devices than slots and with threads beside reloads;
 *            trsm_nb: round trip, merge, rejections, and TRSM's block order CLHGEMM_TRSM_NB >
 *            the entry's trsm_nb (a database in CLHGEMM_TUNING_DIR) > the built-in 512;
 *            the factorizations' potrf_nb, getrf_nb, geqrf_nb likewise: round trip, merge (as a
 *            set), rejections, and the panel width a call's nb > CLHGEMM_FACTOR_NB > the entry's
 *            > the built-in default (lapack/fact_driver.c chg_fact_nb);
 *            stderr at the default verbosity: one line per rejected user file (corrupt, a value
 *            out of range) and per CLHGEMM_TUNING_DIR that is missing or not a directory, once
 *            per process, and none for a rejected shipped file or an absent default directory.
 *   device   on the real device: an exact entry with non-default parameters is what the library
 *            selects, and GEMMs through the public API with it are right (OpenBLAS oracle).
 *   tuned F  after a real clhgemm-tune run that wrote the database file F: the library finds an
 *            exact entry for this device in F (CLHGEMM_TUNING_DIR is F's directory), selects its
 *            parameters, and GEMMs with them are right; the entry has the routing figures and a
 *            handle takes them (latency, OpenBLAS's rates without measuring them).
 *   cpumodel F  after clhgemm-tune --cpu-model --force-cpu-model wrote F: the entry has a split
 *            model per precision with its error and guided-search check; a handle with the CPU
 *            share on auto (CLHGEMM_CPU_SHARE_ANY_DEVICE=1 beside PoCL) gives the CPU exactly the
 *            rows that model chooses (chg_split_best, 2% rule) with its predicted time, and the
 *            result is right; then the same with a synthetic model (CPU 3x the devices' speed)
 *            in another directory, whose choice is known in advance.
 *   trsm F   after clhgemm-tune --trsm wrote F: the exact entry has a trsm_nb per precision,
 *            and the library's TRSM block order is it (CLHGEMM_TRSM_NB still wins).
 *   factor F after clhgemm-tune --factor wrote F: the exact entry has the three panel widths
 *            per precision (candidates, with the size and rates), and the factorizations' panel
 *            width is each (CLHGEMM_FACTOR_NB still wins).
 */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "core/gemm.h"
#include "core/trsm_subst.h"
#include "cpu/route_calls.h"
#include "host/route.h"
#include "kernels/params.h"
#include "lapack/fact_driver.h"
#include "tuning/tuning.h"
#include "base/util.h"

static char g_tmp[512];

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

static void rm_rf(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    char p[1024];
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) rm_rf(p);
        else unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* A synthetic GPU device: the lookup only reads the identity, the keys and the limits. */
static chg_device_t fake_device(const char *name, const char *driver, const char *arch,
                                const char *vendor)
{
    chg_device_t d;
    memset(&d, 0, sizeof d);
    snprintf(d.info.name, sizeof d.info.name, "%s", name);
    snprintf(d.info.driver_version, sizeof d.info.driver_version, "%s", driver);
    snprintf(d.info.vendor, sizeof d.info.vendor, "Fake Vendor");
    snprintf(d.info.platform_name, sizeof d.info.platform_name, "Fake Platform");
    d.info.kind = CLHGEMM_DEVICE_GPU;
    d.info.has_fp64 = 1;
    d.info.compute_units = 64;
    d.info.max_work_group_size = 1024;
    d.info.local_mem_bytes = 48 * 1024;
    d.info.global_mem_bytes = 16ull << 30;
    d.info.max_alloc_bytes = 4ull << 30;
    d.features = CHG_FEAT_GPU | CHG_FEAT_FP64 | CHG_FEAT_FMA_F32 | CHG_FEAT_FMA_F64;
    snprintf(d.arch_key, sizeof d.arch_key, "%s", arch);
    snprintf(d.vendor_key, sizeof d.vendor_key, "%s", vendor);
    return d;
}

static const chg_gemm_params_t P_EXACT = {64, 64, 16, 8, 16, 2, 4, 1, 0, 8, 0, 0, 0, 0, 0, 0};
static const chg_gemm_params_t P_ARCH = {128, 64, 8, 16, 8, 4, 2, 0, 1, 4, 0, 0, 0, 0, 0, 0};
static const chg_gemm_params_t P_VENDOR = {32, 128, 32, 8, 16, 4, 8, 1, 1, 16, 0, 0, 0, 0, 0, 0};

/* A record for dev with gemm parameters for the precisions in mask (1: s, 2: d). */
static chg_tuning_record_t record_for(const chg_device_t *dev, chg_gemm_params_t g, int mask)
{
    chg_tuning_record_t r;
    chg_tuning_record_init(&r, dev);
    snprintf(r.date, sizeof r.date, "2026-11-23T00:00:00Z");
    snprintf(r.tool, sizeof r.tool, "test_tuning");
    for (int p = 0; p < 2; p++) {
        if (!(mask & (1 << p))) continue;
        r.prec[p].present = 1;
        r.prec[p].gemm = g;
        r.prec[p].size = 1024;
        r.prec[p].gflops = 1000.0 + p;
    }
    return r;
}

static void write_db(const char *path, const chg_tuning_record_t *recs, int n)
{
    chg_tuning_file_t f;
    chg_tuning_file_init(&f);
    for (int i = 0; i < n; i++)
        if (chg_tuning_file_upsert(&f, &recs[i])) exit(1);
    char why[512] = "";
    int rc = chg_tuning_file_write(path, &f, why, sizeof why);
    EXPECT(rc == 0, "write %s: %s", path, why);
    chg_tuning_file_free(&f);
}

/* ---- format ------------------------------------------------------------------------------ */

static int prec_equal(const chg_tuning_prec_t *a, const chg_tuning_prec_t *b)
{
    if (a->present != b->present || memcmp(&a->gemm, &b->gemm, sizeof a->gemm) ||
        a->size != b->size || a->gflops != b->gflops || a->kernel_gflops != b->kernel_gflops ||
        a->default_gflops != b->default_gflops || a->candidates != b->candidates ||
        a->failed != b->failed || a->search_seconds != b->search_seconds ||
        a->best_at_seconds != b->best_at_seconds || a->has_copy != b->has_copy ||
        a->nrates != b->nrates)
        return 0;
    if (a->has_copy) {
        const chg_copy_params_t *x[2] = {&a->pack, &a->pack_t}, *y[2] = {&b->pack, &b->pack_t};
        for (int i = 0; i < 2; i++)
            if (x[i]->tile_i != y[i]->tile_i || x[i]->tile_p != y[i]->tile_p ||
                x[i]->wpt_i != y[i]->wpt_i || x[i]->wpt_p != y[i]->wpt_p ||
                x[i]->ud_i != y[i]->ud_i || x[i]->ud_p != y[i]->ud_p || x[i]->pad != y[i]->pad ||
                x[i]->src_contig_i != y[i]->src_contig_i)
                return 0;
        if (a->pack_gbs != b->pack_gbs || a->pack_t_gbs != b->pack_t_gbs ||
            a->copy_buffer_gbs != b->copy_buffer_gbs)
            return 0;
    }
    for (int i = 0; i < a->nrates; i++)
        if (memcmp(&a->rates[i], &b->rates[i], sizeof a->rates[i])) return 0;
    if (a->trsm_nb != b->trsm_nb || a->trsm_size != b->trsm_size ||
        a->trsm_gflops != b->trsm_gflops)
        return 0;
    if (memcmp(a->factor_nb, b->factor_nb, sizeof a->factor_nb) ||
        a->factor_size != b->factor_size ||
        memcmp(a->factor_gflops, b->factor_gflops, sizeof a->factor_gflops))
        return 0;
    if (a->route.present != b->route.present || a->route.latency_us != b->route.latency_us ||
        a->route.cpu_threads != b->route.cpu_threads)
        return 0;
    for (int i = 0; i < CHG_TUNING_ROUTE_SIZES; i++)
        if (a->route.cpu_gflops[i] != b->route.cpu_gflops[i]) return 0;
    return 1;
}

static void round_trip(void)
{
    chg_device_t dev = fake_device("Round Trip GPU \"quoted\" \\ name", "drv 1.2.3", "fake:rt",
                                   "fake");
    chg_tuning_record_t r = record_for(&dev, P_EXACT, 3);
    r.seconds = 123.456;
    r.prec[1].gemm = P_ARCH;
    r.prec[1].gemm.mma = 2; /* the tensor-core fields must survive the round trip */
    r.prec[1].gemm.wm = 4;
    for (int p = 0; p < 2; p++) {
        chg_tuning_prec_t *x = &r.prec[p];
        x->kernel_gflops = 1234.5678901234 + p;
        x->default_gflops = 999.25;
        x->candidates = 321;
        x->failed = 7;
        x->search_seconds = 59.5;
        x->best_at_seconds = 12.0625;
        x->has_copy = 1;
        x->pack = (chg_copy_params_t){.kind = CHG_COPY_PACK, .prec = (chg_precision_t)p,
                                      .src_contig_i = 1, .tile_i = 64, .tile_p = 8, .wpt_i = 2,
                                      .wpt_p = 1, .pad = 0, .ud_i = 2, .ud_p = 0};
        x->pack_t = (chg_copy_params_t){.kind = CHG_COPY_PACK, .prec = (chg_precision_t)p,
                                        .src_contig_i = 0, .tile_i = 32, .tile_p = 32,
                                        .wpt_i = 4, .wpt_p = 2, .pad = 1, .ud_i = 0, .ud_p = 4};
        x->pack_gbs = 1.0 / 3.0;
        x->pack_t_gbs = 2.5e2;
        x->copy_buffer_gbs = 3e3;
        x->nrates = 3;
        for (int i = 0; i < 3; i++)
            x->rates[i] = (chg_tuning_rate_t){1024 << i, 2048 << i, 512, 100.0 / (i + 3)};
    }
    /* TRSM's block order: s with its timing, d with the order alone. */
    r.prec[0].trsm_nb = 384;
    r.prec[0].trsm_size = 512;
    r.prec[0].trsm_gflops = 1.0 / 3.0;
    r.prec[1].trsm_nb = 4096;
    /* The panel widths: s all three with their timing, d getrf's alone without it. */
    r.prec[0].factor_nb[0] = 16;
    r.prec[0].factor_nb[1] = 256;
    r.prec[0].factor_nb[2] = 4096;
    r.prec[0].factor_size = 8192;
    r.prec[0].factor_gflops[0] = 1.0 / 7.0;
    r.prec[0].factor_gflops[1] = 12345.5;
    r.prec[0].factor_gflops[2] = 0.0;
    r.prec[1].factor_nb[1] = 192;
    /* The routing figures: s with OpenBLAS rates, d with the latency alone. */
    r.prec[0].route = (chg_tuning_route_t){.present = 1, .latency_us = 1234.0 / 3.0, .cpu_threads = 28,
                                           .cpu_gflops = {12.5, 1.0 / 7.0, 2.5e3, 3100.75}};
    r.prec[1].route = (chg_tuning_route_t){.present = 1, .latency_us = 987.654321};
    chg_tuning_pipeline_t *pl = &r.pipeline;
    pl->present = 1;
    pl->h2d_pageable_gbs = 6.9;
    pl->d2h_pageable_gbs = 10.01;
    pl->h2d_pinned_gbs = 54.6;
    pl->d2h_pinned_gbs = 55.0;
    pl->pack_threads = 8;
    pl->npack = 3;
    pl->pack_gbs[0] = (chg_tuning_point_t){1, 9.5};
    pl->pack_gbs[1] = (chg_tuning_point_t){4, 31.25};
    pl->pack_gbs[2] = (chg_tuning_point_t){8, 47.0};
    pl->queues = 4;
    pl->nqueue = 2;
    pl->queue_seconds[0] = (chg_tuning_point_t){3, 0.51};
    pl->queue_seconds[1] = (chg_tuning_point_t){4, 0.49};
    r.model = strdup("{\"cpu_gflops\":[1,2,3],\"note\":\"kept\","
                     "\"cpu_share\":{\"s\":{\"stale\":1}}}");
    /* The split model of d (s has none): every field, negative k2/k3 included. */
    chg_tuning_cpumodel_t *cm = &r.cpumodel[CHG_F64];
    cm->present = 1;
    cm->split = (chg_split_model_t){.gpu = {2.5e-14, -3e-11, 1.5e-3}, .cpu = {1.0 / 3e11, 2e-10, -1e-4},
                                    .h2d_ts = 1e-5, .h2d_tw = 1.0 / 25e9, .d2h_ts = 2e-5,
                                    .d2h_tw = 1.0 / 26e9, .gamma = 0.375};
    cm->cpu_threads = 28;
    snprintf(cm->cpu_core, sizeof cm->cpu_core, "Cooperlake");
    cm->mean_rel_err = 0.0625;
    cm->gpu_err = 0.03;
    cm->cpu_err = 0.01;
    cm->hybrid_err = 0.125;
    cm->samples = 17;
    cm->check_n = 8192;
    cm->model_share = 0.04;
    cm->model_pred_s = 0.25;
    cm->model_s = 0.26;
    cm->search_share = 0.05;
    cm->search_s = 0.255;
    cm->search_evals = 9;

    chg_device_t dev2 = fake_device("Second", "2", "fake:other", "fake");
    chg_tuning_record_t r2 = record_for(&dev2, P_VENDOR, 1);

    char path[600];
    snprintf(path, sizeof path, "%s/rt/sub/db.json", g_tmp);
    chg_tuning_record_t both[2] = {r, r2};
    write_db(path, both, 2);

    chg_tuning_file_t f;
    char why[512] = "";
    int rc = chg_tuning_file_read(path, &f, why, sizeof why);
    EXPECT(rc == 0, "read back %s: %s", path, why);
    if (rc == 0) {
        EXPECT(f.count == 2, "%d records read back, want 2", f.count);
        EXPECT(!strcmp(f.library_version, CLHGEMM_VERSION_STRING), "library_version %s",
               f.library_version);
        const chg_tuning_record_t *g = chg_tuning_file_find(&f, r.name, r.driver);
        EXPECT(g != NULL, "record of \"%s\" not found after the round trip", r.name);
        if (g) {
            EXPECT(!strcmp(g->vendor, r.vendor) && !strcmp(g->platform, r.platform) &&
                       !strcmp(g->arch, r.arch) && !strcmp(g->vendor_key, r.vendor_key) &&
                       g->compute_units == r.compute_units && g->local_mem == r.local_mem &&
                       g->global_mem == r.global_mem && g->max_work_group == r.max_work_group,
                   "device identity differs after the round trip");
            EXPECT(!strcmp(g->date, r.date) && !strcmp(g->tool, r.tool) && g->seconds == r.seconds,
                   "tuned{} differs after the round trip");
            for (int p = 0; p < 2; p++)
                EXPECT(prec_equal(&g->prec[p], &r.prec[p]), "precision %d differs after the round trip",
                       p);
            const chg_tuning_pipeline_t *q = &g->pipeline;
            int same = q->present && q->h2d_pageable_gbs == pl->h2d_pageable_gbs &&
                       q->d2h_pageable_gbs == pl->d2h_pageable_gbs &&
                       q->h2d_pinned_gbs == pl->h2d_pinned_gbs &&
                       q->d2h_pinned_gbs == pl->d2h_pinned_gbs &&
                       q->pack_threads == pl->pack_threads && q->npack == pl->npack &&
                       q->queues == pl->queues && q->nqueue == pl->nqueue;
            for (int i = 0; same && i < pl->npack; i++)
                same = q->pack_gbs[i].x == pl->pack_gbs[i].x &&
                       q->pack_gbs[i].value == pl->pack_gbs[i].value;
            for (int i = 0; same && i < pl->nqueue; i++)
                same = q->queue_seconds[i].x == pl->queue_seconds[i].x &&
                       q->queue_seconds[i].value == pl->queue_seconds[i].value;
            EXPECT(same, "pipeline differs after the round trip");
            EXPECT(g->model && strstr(g->model, "\"kept\"") && strstr(g->model, "[1,2,3]"),
                   "model object not kept: %s", g->model ? g->model : "(null)");
            /* cpu_share is written from the parsed models: the stale text of s is gone. */
            EXPECT(g->model && !strstr(g->model, "stale") && !g->cpumodel[CHG_F32].present,
                   "stale cpu_share kept: %s", g->model ? g->model : "(null)");
            EXPECT(!memcmp(&g->cpumodel[CHG_F64], cm, sizeof *cm),
                   "split model differs after the round trip (gamma %g, k1 %g, threads %d, core %s)",
                   g->cpumodel[CHG_F64].split.gamma, g->cpumodel[CHG_F64].split.gpu.k1,
                   g->cpumodel[CHG_F64].cpu_threads, g->cpumodel[CHG_F64].cpu_core);
        }
        const chg_tuning_record_t *g2 = chg_tuning_file_find(&f, "Second", "2");
        EXPECT(g2 && g2->prec[0].present && !g2->prec[1].present && !g2->pipeline.present &&
                   !memcmp(&g2->prec[0].gemm, &P_VENDOR, sizeof P_VENDOR),
               "second record differs after the round trip");

        /* Upsert: d of the first device replaced, s and the pipeline and the model kept. */
        chg_tuning_record_t upd = record_for(&dev, P_VENDOR, 2);
        upd.date[0] = '\0';
        EXPECT(chg_tuning_file_upsert(&f, &upd) == 0, "upsert");
        const chg_tuning_record_t *m = chg_tuning_file_find(&f, r.name, r.driver);
        EXPECT(f.count == 2 && m && !memcmp(&m->prec[1].gemm, &P_VENDOR, sizeof P_VENDOR) &&
                   !memcmp(&m->prec[0].gemm, &P_EXACT, sizeof P_EXACT) && m->pipeline.present &&
                   m->model && !strcmp(m->date, r.date) && m->cpumodel[CHG_F64].present &&
                   m->cpumodel[CHG_F64].split.gamma == 0.375 && m->prec[0].route.present &&
                   m->prec[0].route.cpu_threads == 28 && !m->prec[1].route.present,
               "upsert did not merge (count %d)", f.count);
        /* a precision written without trsm_nb keeps the stored one; one with it replaces it */
        EXPECT(m && m->prec[1].trsm_nb == 4096 && m->prec[0].trsm_nb == 384 &&
                   m->prec[0].trsm_size == 512,
               "upsert lost trsm_nb (s %d, d %d)", m ? m->prec[0].trsm_nb : -1,
               m ? m->prec[1].trsm_nb : -1);
        /* likewise the panel widths, as a set: d's getrf alone is kept beside nothing */
        EXPECT(m && m->prec[0].factor_nb[0] == 16 && m->prec[0].factor_nb[2] == 4096 &&
                   m->prec[0].factor_size == 8192 && m->prec[0].factor_gflops[1] == 12345.5 &&
                   m->prec[1].factor_nb[1] == 192 && !m->prec[1].factor_nb[0],
               "upsert lost the panel widths (s potrf %d, d getrf %d)",
               m ? m->prec[0].factor_nb[0] : -1, m ? m->prec[1].factor_nb[1] : -1);
        chg_tuning_record_t upd3 = record_for(&dev, P_EXACT, 1);
        upd3.prec[0].trsm_nb = 128;
        upd3.prec[0].factor_nb[1] = 64; /* a new set: getrf's alone, the others dropped */
        upd3.prec[0].factor_size = 512;
        EXPECT(chg_tuning_file_upsert(&f, &upd3) == 0, "upsert 3");
        m = chg_tuning_file_find(&f, r.name, r.driver);
        EXPECT(m && m->prec[0].trsm_nb == 128 && m->prec[0].trsm_size == 0 &&
                   m->prec[1].trsm_nb == 4096,
               "upsert did not replace trsm_nb (s %d)", m ? m->prec[0].trsm_nb : -1);
        EXPECT(m && m->prec[0].factor_nb[1] == 64 && !m->prec[0].factor_nb[0] &&
                   !m->prec[0].factor_nb[2] && m->prec[0].factor_size == 512 &&
                   m->prec[1].factor_nb[1] == 192,
               "upsert did not replace the panel widths as a set (s %d %d %d, size %d)",
               m ? m->prec[0].factor_nb[0] : -1, m ? m->prec[0].factor_nb[1] : -1,
               m ? m->prec[0].factor_nb[2] : -1, m ? m->prec[0].factor_size : -1);
        /* A new split model of s is added beside d's. */
        chg_tuning_record_t upd2 = record_for(&dev, P_VENDOR, 0);
        upd2.cpumodel[CHG_F32] = *cm;
        upd2.cpumodel[CHG_F32].split.gamma = 0.5;
        EXPECT(chg_tuning_file_upsert(&f, &upd2) == 0, "upsert 2");
        m = chg_tuning_file_find(&f, r.name, r.driver);
        EXPECT(m && m->cpumodel[CHG_F32].present && m->cpumodel[CHG_F32].split.gamma == 0.5 &&
                   m->cpumodel[CHG_F64].present && m->cpumodel[CHG_F64].split.gamma == 0.375,
               "upsert of a split model did not merge per precision");
        chg_tuning_file_free(&f);
    }
    /* No temporary file is left next to the database. */
    char dir[600];
    snprintf(dir, sizeof dir, "%s/rt/sub", g_tmp);
    DIR *d = opendir(dir);
    int others = 0;
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, "db.json"))
            others++;
    if (d) closedir(d);
    EXPECT(others == 0, "%d stray file(s) next to the written database", others);
    chg_tuning_record_free(&r);
    chg_tuning_record_free(&r2);
}

static const char *const VALID_HEAD =
    "{\"format\":\"clhgemm-tuning\",\"format_version\":1,\"library_version\":\"" CLHGEMM_VERSION_STRING
    "\",\"entries\":[";
static const char *const VALID_ENTRY =
    "{\"device\":{\"name\":\"X\",\"driver\":\"1\",\"arch\":\"a:b\",\"vendor_key\":\"a\"},"
    "\"precisions\":{\"s\":{\"gemm\":{\"MWG\":64,\"NWG\":64,\"KWG\":16,\"MDIMC\":8,\"NDIMC\":8,"
    "\"VWM\":2,\"VWN\":2,\"SA\":1,\"SB\":1,\"KWI\":4}}}}";

static void expect_reject(const char *label, const char *text, const char *want)
{
    chg_tuning_file_t f;
    char why[512] = "";
    int rc = chg_tuning_file_parse(text, &f, why, sizeof why);
    EXPECT(rc == -1 && strstr(why, want) != NULL,
           "%s: want rejection mentioning \"%s\", got rc %d \"%s\"", label, want, rc, why);
    if (rc == 0) chg_tuning_file_free(&f);
}

/* precisions.s.route: a valid one (with and without the OpenBLAS rates), then each kind of
 * break, each rejecting the whole file with its reason. */
static void route_rejections(void)
{
    static const char *const RT = "\"route\":{\"latency_us\":850.5,\"cpu_threads\":4,"
                                  "\"cpu_gflops\":[10,40,80.5,90]}";
    char ent[1024], buf[2048], why[512] = "";
    /* VALID_ENTRY ends with the closing braces of gemm, s, precisions and the entry */
    const int cut = (int)strlen(VALID_ENTRY) - 3;
    snprintf(ent, sizeof ent, "%.*s,%s}}}", cut, VALID_ENTRY, RT);
    snprintf(buf, sizeof buf, "%s%s]}", VALID_HEAD, ent);
    chg_tuning_file_t f;
    int rc = chg_tuning_file_parse(buf, &f, why, sizeof why);
    const chg_tuning_route_t *r = rc == 0 && f.count == 1 ? &f.records[0].prec[0].route : NULL;
    EXPECT(r && r->present && r->latency_us == 850.5 && r->cpu_threads == 4 && r->cpu_gflops[0] == 10 &&
               r->cpu_gflops[2] == 80.5 && r->cpu_gflops[3] == 90,
           "a valid route record was rejected or misread: %s", why);
    if (rc == 0) chg_tuning_file_free(&f);
    char lat[1024];
    snprintf(lat, sizeof lat, "%s%.*s,\"route\":{\"latency_us\":3e2}}}}]}", VALID_HEAD, cut, VALID_ENTRY);
    rc = chg_tuning_file_parse(lat, &f, why, sizeof why);
    EXPECT(rc == 0 && f.records[0].prec[0].route.present && f.records[0].prec[0].route.latency_us == 300 &&
               f.records[0].prec[0].route.cpu_threads == 0,
           "a route record without OpenBLAS rates was rejected or misread: %s", why);
    if (rc == 0) chg_tuning_file_free(&f);
    static const struct {
        const char *from, *to, *want;
    } breaks[] = {
        {"\"latency_us\":850.5", "\"latency_us\":-850.5", "precisions.s.route.latency_us: must be > 0"},
        {"\"latency_us\":850.5", "\"latency_us\":0", "precisions.s.route.latency_us: must be > 0"},
        {"\"latency_us\":850.5", "\"latency_us\":\"1\"", "route.latency_us: expected a finite number"},
        {"\"latency_us\":850.5,", "", "precisions.s.route.latency_us: missing"},
        {",90]", "]", "route.cpu_gflops: expected 4 numbers (n = 64, 256, 1024, 2048), got 3"},
        {",90]", ",90,100]", "route.cpu_gflops: expected 4 numbers"},
        {"[10,", "[0,", "route.cpu_gflops[0]: expected a number > 0"},
        {",80.5,", ",-80.5,", "route.cpu_gflops[2]: expected a number > 0"},
        {",90]", ",\"x\"]", "route.cpu_gflops[3]: expected a number > 0"},
        {"\"cpu_gflops\":[10,40,80.5,90]", "\"cpu_gflops\":90", "route.cpu_gflops: expected an array"},
        {"\"cpu_threads\":4", "\"cpu_threads\":0", "route.cpu_threads: must be >= 1"},
        {"\"cpu_threads\":4,", "", "route: cpu_threads and cpu_gflops go together"},
        {",\"cpu_gflops\":[10,40,80.5,90]", "", "route: cpu_threads and cpu_gflops go together"},
        {"\"route\":{", "\"route\":3,\"z\":{", "precisions.s.route: expected an object"},
    };
    for (size_t i = 0; i < sizeof breaks / sizeof breaks[0]; i++) {
        char bad[2048];
        snprintf(bad, sizeof bad, "%s", buf);
        char *at = strstr(bad, breaks[i].from);
        if (!at) {
            EXPECT(0, "test setup: \"%s\" not in the text", breaks[i].from);
            continue;
        }
        char tail[2048];
        snprintf(tail, sizeof tail, "%s", at + strlen(breaks[i].from));
        snprintf(at, sizeof bad - (size_t)(at - bad), "%s%s", breaks[i].to, tail);
        expect_reject(breaks[i].want, bad, breaks[i].want);
    }
}

/* precisions.s.trsm_nb: valid ones read back, then each kind of break rejecting the file. */
static void trsm_rejections(void)
{
    const int cut = (int)strlen(VALID_ENTRY) - 3; /* before the braces of gemm, s, ... */
    static const struct {
        const char *keys;
        int nb, size;
    } ok[] = {{"\"trsm_nb\":16", 16, 0}, {"\"trsm_nb\":4096", 4096, 0},
              {"\"trsm_nb\":384,\"trsm_size\":512,\"trsm_gflops\":1.5", 384, 512}};
    char buf[2048], why[512];
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        snprintf(buf, sizeof buf, "%s%.*s,%s}}}]}", VALID_HEAD, cut, VALID_ENTRY, ok[i].keys);
        chg_tuning_file_t f;
        why[0] = '\0';
        const int rc = chg_tuning_file_parse(buf, &f, why, sizeof why);
        EXPECT(rc == 0 && f.count == 1 && f.records[0].prec[0].trsm_nb == ok[i].nb &&
                   f.records[0].prec[0].trsm_size == ok[i].size,
               "valid trsm_nb (%s) rejected or misread: rc %d %s", ok[i].keys, rc, why);
        if (rc == 0) chg_tuning_file_free(&f);
    }
    static const struct {
        const char *keys, *want;
    } bad[] = {
        {"\"trsm_nb\":0", "precisions.s.trsm_nb: 0 is not a multiple of 16 from 16 to 4096"},
        {"\"trsm_nb\":8", "precisions.s.trsm_nb: 8 is not a multiple of 16"},
        {"\"trsm_nb\":100", "precisions.s.trsm_nb: 100 is not a multiple of 16"},
        {"\"trsm_nb\":4112", "precisions.s.trsm_nb: 4112 is not a multiple of 16 from 16 to 4096"},
        {"\"trsm_nb\":-16", "precisions.s.trsm_nb: expected an integer"},
        {"\"trsm_nb\":128.5", "precisions.s.trsm_nb: expected an integer"},
        {"\"trsm_nb\":\"256\"", "precisions.s.trsm_nb: expected an integer"},
        {"\"trsm_nb\":256,\"trsm_size\":-1", "precisions.s.trsm_size: expected an integer"},
        {"\"trsm_nb\":256,\"trsm_gflops\":\"x\"", "precisions.s.trsm_gflops: expected a number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(buf, sizeof buf, "%s%.*s,%s}}}]}", VALID_HEAD, cut, VALID_ENTRY, bad[i].keys);
        expect_reject(bad[i].want, buf, bad[i].want);
    }
}

/* precisions.s.{potrf,getrf,geqrf}_nb: valid ones read back, then each kind of break
 * rejecting the file. */
static void factor_rejections(void)
{
    const int cut = (int)strlen(VALID_ENTRY) - 3; /* before the braces of gemm, s, ... */
    static const struct {
        const char *keys;
        int nb[3], size;
    } ok[] = {{"\"potrf_nb\":16", {16, 0, 0}, 0},
              {"\"geqrf_nb\":4096,\"factor_size\":8192", {0, 0, 4096}, 8192},
              {"\"potrf_nb\":512,\"potrf_gflops\":1.5,\"getrf_nb\":256,\"getrf_gflops\":2,"
               "\"geqrf_nb\":128,\"geqrf_gflops\":3,\"factor_size\":8192",
               {512, 256, 128}, 8192},
              /* the size and a rate without their width mean nothing and are not read */
              {"\"factor_size\":-3,\"getrf_gflops\":\"x\"", {0, 0, 0}, 0}};
    char buf[2048], why[512];
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        snprintf(buf, sizeof buf, "%s%.*s,%s}}}]}", VALID_HEAD, cut, VALID_ENTRY, ok[i].keys);
        chg_tuning_file_t f;
        why[0] = '\0';
        const int rc = chg_tuning_file_parse(buf, &f, why, sizeof why);
        const chg_tuning_prec_t *x = rc == 0 && f.count == 1 ? &f.records[0].prec[0] : NULL;
        EXPECT(x && !memcmp(x->factor_nb, ok[i].nb, sizeof ok[i].nb) &&
                   x->factor_size == ok[i].size,
               "valid panel widths (%s) rejected or misread: rc %d %s", ok[i].keys, rc, why);
        if (rc == 0) chg_tuning_file_free(&f);
    }
    static const struct {
        const char *keys, *want;
    } bad[] = {
        {"\"potrf_nb\":0", "precisions.s.potrf_nb: 0 is not a multiple of 16 from 16 to 4096"},
        {"\"getrf_nb\":8", "precisions.s.getrf_nb: 8 is not a multiple of 16"},
        {"\"geqrf_nb\":100", "precisions.s.geqrf_nb: 100 is not a multiple of 16"},
        {"\"potrf_nb\":4112",
         "precisions.s.potrf_nb: 4112 is not a multiple of 16 from 16 to 4096"},
        {"\"getrf_nb\":-16", "precisions.s.getrf_nb: expected an integer"},
        {"\"geqrf_nb\":128.5", "precisions.s.geqrf_nb: expected an integer"},
        {"\"potrf_nb\":\"256\"", "precisions.s.potrf_nb: expected an integer"},
        {"\"potrf_nb\":256,\"getrf_nb\":200", "precisions.s.getrf_nb: 200 is not a multiple of 16"},
        {"\"getrf_nb\":256,\"factor_size\":-1", "precisions.s.factor_size: expected an integer"},
        {"\"geqrf_nb\":256,\"geqrf_gflops\":\"x\"", "precisions.s.geqrf_gflops: expected a number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(buf, sizeof buf, "%s%.*s,%s}}}]}", VALID_HEAD, cut, VALID_ENTRY, bad[i].keys);
        expect_reject(bad[i].want, buf, bad[i].want);
    }
}

static void rejections(void)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%s%s]}", VALID_HEAD, VALID_ENTRY);
    chg_tuning_file_t f;
    char why[512] = "";
    EXPECT(chg_tuning_file_parse(buf, &f, why, sizeof why) == 0 && f.count == 1,
           "a minimal valid database was rejected: %s", why);
    chg_tuning_file_free(&f);

    expect_reject("truncated", "{\"format\":\"clhgemm-tuning\",\"format_version\":1,\"entr",
                  "not valid JSON");
    expect_reject("empty", "", "not valid JSON");
    expect_reject("array", "[1,2]", "expected an object");
    expect_reject("other format",
                  "{\"format\":\"clblast\",\"format_version\":1,\"library_version\":\"0.1.0\","
                  "\"entries\":[]}",
                  "format \"clblast\"");
    snprintf(buf, sizeof buf,
             "{\"format\":\"clhgemm-tuning\",\"format_version\":2,\"library_version\":\"%s\","
             "\"entries\":[]}",
             CLHGEMM_VERSION_STRING);
    expect_reject("format version", buf, "format_version 2");
    expect_reject("library version",
                  "{\"format\":\"clhgemm-tuning\",\"format_version\":1,\"library_version\":"
                  "\"9.9.0\",\"entries\":[]}",
                  "written by clhgemm 9.9.0");
    snprintf(buf, sizeof buf, "%s%s]}", VALID_HEAD, VALID_ENTRY);
    char *q = strstr(buf, "\"s\":{\"gemm\"");
    q[1] = 'q';
    expect_reject("precision", buf, "unknown precision");
    snprintf(buf, sizeof buf, "%s%s]}", VALID_HEAD, VALID_ENTRY);
    q = strstr(buf, "\"VWM\":2");
    q[6] = '3';
    expect_reject("vector width", buf, "VWM and VWN");
    snprintf(buf, sizeof buf, "%s%s]}", VALID_HEAD, VALID_ENTRY);
    q = strstr(buf, "\"KWI\":4");
    memcpy(q, "\"KWX\"", 5);
    expect_reject("missing key", buf, "entries[0].precisions.s.gemm.KWI: missing");
    snprintf(buf, sizeof buf, "%s%s,%s]}", VALID_HEAD, VALID_ENTRY, VALID_ENTRY);
    expect_reject("duplicate", buf, "a second entry");
    snprintf(buf, sizeof buf, "%s{\"device\":{\"name\":\"X\",\"driver\":3,\"arch\":\"a\","
                              "\"vendor_key\":\"a\"},\"precisions\":{}}]}",
             VALID_HEAD);
    expect_reject("driver type", buf, "entries[0].device.driver: expected a string");

    /* The split model (model.cpu_share): a valid one, then each kind of break. */
    static const char *const CM =
        "\"gpu\":{\"k1\":2e-14,\"k2\":-1e-11,\"k3\":0.001},"
        "\"cpu\":{\"k1\":3e-12,\"k2\":0,\"k3\":0,\"threads\":4},"
        "\"h2d\":{\"ts\":1e-5,\"tw\":4e-11},\"d2h\":{\"ts\":1e-5,\"tw\":4e-11},\"gamma\":0.2";
    char ent[1024];
    snprintf(ent, sizeof ent, "%.*s,\"model\":{\"other\":[1],\"cpu_share\":{\"d\":{%s}}}}",
             (int)strlen(VALID_ENTRY) - 1, VALID_ENTRY, CM);
    snprintf(buf, sizeof buf, "%s%s]}", VALID_HEAD, ent);
    why[0] = '\0';
    EXPECT(chg_tuning_file_parse(buf, &f, why, sizeof why) == 0 && f.count == 1 &&
               f.records[0].cpumodel[CHG_F64].present && !f.records[0].cpumodel[CHG_F32].present &&
               f.records[0].cpumodel[CHG_F64].split.gpu.k2 == -1e-11 &&
               f.records[0].cpumodel[CHG_F64].cpu_threads == 4,
           "a valid split model was rejected or misread: %s", why);
    if (f.count) chg_tuning_file_free(&f);
    static const struct {
        const char *from, *to, *want;
    } breaks[] = {
        {"\"d\":{", "\"x\":{", "model.cpu_share.x: unknown precision"},
        {"\"gamma\":0.2", "\"gamma\":-1", "model.cpu_share.d.gamma: expected a number >= 0"},
        {"\"gamma\":0.2", "\"gammb\":0.2", "model.cpu_share.d.gamma: missing"},
        {"\"k1\":2e-14", "\"k1\":0e-14", "model.cpu_share.d.gpu.k1: must be > 0"},
        {"\"k3\":0.001", "\"k3\":\"a\"", "model.cpu_share.d.gpu.k3: expected a finite number"},
        {"\"threads\":4", "\"threads\":0", "model.cpu_share.d.cpu.threads: must be >= 1"},
        {"\"h2d\":{", "\"h2x\":{", "model.cpu_share.d.h2d: missing"},
        {"\"tw\":4e-11}", "\"tw\":-4e-11}", "model.cpu_share.d.h2d.tw: expected a number >= 0"},
        {"\"cpu_share\":{", "\"cpu_share\":3,\"z\":{", "model.cpu_share: expected an object"},
    };
    route_rejections();
    trsm_rejections();
    factor_rejections();
    for (size_t i = 0; i < sizeof breaks / sizeof breaks[0]; i++) {
        char bad[2048];
        snprintf(bad, sizeof bad, "%s", buf);
        char *at = strstr(bad, breaks[i].from);
        if (!at) {
            EXPECT(0, "test setup: \"%s\" not in the text", breaks[i].from);
            continue;
        }
        char tail[2048];
        snprintf(tail, sizeof tail, "%s", at + strlen(breaks[i].from));
        snprintf(at, sizeof bad - (size_t)(at - bad), "%s%s", breaks[i].to, tail);
        expect_reject(breaks[i].want, bad, breaks[i].want);
    }
}

/* ---- lookup ------------------------------------------------------------------------------ */

static void set_dirs(const char *user, const char *shipped)
{
    char p[600];
    if (user) {
        snprintf(p, sizeof p, "%s/%s", g_tmp, user);
        mkdir(p, 0755);
        setenv("CLHGEMM_TUNING_DIR", p, 1);
    } else {
        setenv("CLHGEMM_TUNING_DIR", "off", 1);
    }
    if (shipped) {
        snprintf(p, sizeof p, "%s/%s", g_tmp, shipped);
        mkdir(p, 0755);
        setenv("CLHGEMM_SHIPPED_TUNING_DIR", p, 1);
    } else {
        setenv("CLHGEMM_SHIPPED_TUNING_DIR", "off", 1);
    }
    chg_tuning_reload();
}

static void path_in(char *buf, size_t len, const char *dir, const char *file)
{
    snprintf(buf, len, "%s/%s/%s", g_tmp, dir, file);
}

static void lookup_levels(void)
{
    const chg_device_t dev = fake_device("Fake GPU 9000", "1.0", "fake:arch9", "fake");
    const chg_device_t same_arch = fake_device("Fake GPU 9100", "1.0", "fake:arch9", "fake");
    const chg_device_t same_vendor = fake_device("Fake GPU 100", "7", "fake:arch1", "fake");
    const chg_device_t other = fake_device("Other GPU", "1.0", "other:x", "other");
    chg_tuning_entry_t e;
    char p[700], q[700];

    /* One shipped file holding an exact, an architecture and a vendor entry. */
    set_dirs(NULL, "levels");
    chg_tuning_record_t recs[3] = {record_for(&dev, P_EXACT, 3), record_for(&same_arch, P_ARCH, 3),
                                   record_for(&same_vendor, P_VENDOR, 3)};
    path_in(p, sizeof p, "levels", "db.json");
    write_db(p, recs, 3);
    chg_tuning_reload();

    EXPECT(chg_tuning_lookup(&dev, CHG_F32, &e) == CHG_TUNING_EXACT &&
               !memcmp(&e.prec.gemm, &P_EXACT, sizeof P_EXACT) && !strcmp(e.source, p),
           "exact: level %s from %s", chg_tuning_level_name(e.level), e.source);
    /* The split model: from the exact entry only, of the precision asked for. */
    {
        chg_tuning_record_t withm[3] = {recs[0], recs[1], recs[2]};
        withm[0].cpumodel[CHG_F64].present = 1;
        withm[0].cpumodel[CHG_F64].split = (chg_split_model_t){.gpu = {1e-14, 0, 0}, .cpu = {1e-12, 0, 0},
                                                              .gamma = 0.25};
        withm[0].cpumodel[CHG_F64].cpu_threads = 2;
        withm[1].cpumodel[CHG_F64] = withm[0].cpumodel[CHG_F64];
        write_db(p, withm, 3);
        chg_tuning_reload();
        EXPECT(chg_tuning_lookup(&dev, CHG_F64, &e) == CHG_TUNING_EXACT && e.cpumodel.present &&
                   e.cpumodel.split.gamma == 0.25 && !strcmp(e.cpumodel_source, p),
               "exact entry: split model not given (%d, %s)", e.cpumodel.present, e.cpumodel_source);
        EXPECT(chg_tuning_lookup(&dev, CHG_F32, &e) == CHG_TUNING_EXACT && !e.cpumodel.present,
               "exact entry: a split model of d given for s");
        const chg_device_t sibling = fake_device("Fake GPU 9400", "1.0", "fake:arch9", "fake");
        EXPECT(chg_tuning_lookup(&sibling, CHG_F64, &e) == CHG_TUNING_ARCH && !e.cpumodel.present,
               "architecture level: a split model must not be taken from another device");
        write_db(p, recs, 3);
        chg_tuning_reload();
    }
    /* Same device, another driver: the architecture level. */
    const chg_device_t arch_only_first = fake_device("Fake GPU 9300", "1.0", "fake:arch9", "fake");
    chg_device_t newer = dev;
    snprintf(newer.info.driver_version, sizeof newer.info.driver_version, "2.0");
    EXPECT(chg_tuning_lookup(&newer, CHG_F32, &e) == CHG_TUNING_ARCH &&
               !memcmp(&e.prec.gemm, &P_EXACT, sizeof P_EXACT),
           "another driver: want the architecture level with the same device's entry, got %s",
           chg_tuning_level_name(e.level));
    /* ... also when another device of the architecture comes first in the file. */
    {
        chg_tuning_record_t swapped[3] = {recs[1], recs[0], recs[2]};
        write_db(p, swapped, 3);
        chg_tuning_reload();
        EXPECT(chg_tuning_lookup(&newer, CHG_F32, &e) == CHG_TUNING_ARCH &&
                   !memcmp(&e.prec.gemm, &P_EXACT, sizeof P_EXACT),
               "another driver: the same device name must come before other devices of the "
               "architecture");
        EXPECT(chg_tuning_lookup(&arch_only_first, CHG_F32, &e) == CHG_TUNING_ARCH &&
                   !memcmp(&e.prec.gemm, &P_ARCH, sizeof P_ARCH),
               "architecture: the first entry of the architecture in file order");
        write_db(p, recs, 3);
        chg_tuning_reload();
    }
    chg_device_t arch_only = fake_device("Fake GPU 9200", "1.0", "fake:arch9", "fake");
    EXPECT(chg_tuning_lookup(&arch_only, CHG_F64, &e) == CHG_TUNING_ARCH &&
               !memcmp(&e.prec.gemm, &P_EXACT, sizeof P_EXACT),
           "architecture: got %s", chg_tuning_level_name(e.level));
    chg_device_t vendor_only = fake_device("Fake GPU 5", "1.0", "fake:arch5", "fake");
    EXPECT(chg_tuning_lookup(&vendor_only, CHG_F32, &e) == CHG_TUNING_VENDOR &&
               !memcmp(&e.prec.gemm, &P_EXACT, sizeof P_EXACT),
           "vendor: got %s", chg_tuning_level_name(e.level));
    chg_gemm_params_t def;
    chg_gemm_params_default(&other, CHG_F32, &def);
    EXPECT(chg_tuning_lookup(&other, CHG_F32, &e) == CHG_TUNING_BUILTIN &&
               !memcmp(&e.prec.gemm, &def, sizeof def) && !strcmp(e.source, "built-in"),
           "other device: got %s from %s", chg_tuning_level_name(e.level), e.source);

    /* The level order is strict: drop the exact entry and the architecture one is used. */
    chg_tuning_record_t two[2] = {recs[1], recs[2]};
    write_db(p, two, 2);
    chg_tuning_reload();
    EXPECT(chg_tuning_lookup(&dev, CHG_F32, &e) == CHG_TUNING_ARCH &&
               !memcmp(&e.prec.gemm, &P_ARCH, sizeof P_ARCH),
           "without the exact entry: want P_ARCH at the architecture level, got %s",
           chg_tuning_level_name(e.level));
    write_db(p, &recs[2], 1);
    chg_tuning_reload();
    EXPECT(chg_tuning_lookup(&dev, CHG_F32, &e) == CHG_TUNING_VENDOR &&
               !memcmp(&e.prec.gemm, &P_VENDOR, sizeof P_VENDOR),
           "vendor only: got %s", chg_tuning_level_name(e.level));

    /* The user database comes before the shipped one at the same level, and an exact shipped
     * entry before a vendor user entry. */
    set_dirs("user", "levels");
    write_db(p, recs, 3);
    chg_tuning_record_t mine = record_for(&dev, P_VENDOR, 1);
    path_in(q, sizeof q, "user", "tuning.json");
    write_db(q, &mine, 1);
    chg_tuning_reload();
    EXPECT(chg_tuning_lookup(&dev, CHG_F32, &e) == CHG_TUNING_EXACT &&
               !memcmp(&e.prec.gemm, &P_VENDOR, sizeof P_VENDOR) && !strcmp(e.source, q),
           "user over shipped: got %s from %s", chg_tuning_level_name(e.level), e.source);
    /* ... the user's entry has no d: the shipped exact entry serves d, with a note. */
    EXPECT(chg_tuning_lookup(&dev, CHG_F64, &e) == CHG_TUNING_EXACT &&
               !memcmp(&e.prec.gemm, &P_EXACT, sizeof P_EXACT) && !strcmp(e.source, p) &&
               strstr(e.note, "no dgemm parameters"),
           "d from the shipped entry: got %s from %s, note \"%s\"", chg_tuning_level_name(e.level),
           e.source, e.note);

    /* Wrong precision only: the defaults, and the note says why. */
    set_dirs("prec", NULL);
    chg_tuning_record_t sonly = record_for(&dev, P_EXACT, 1);
    path_in(q, sizeof q, "prec", "a.json");
    write_db(q, &sonly, 1);
    chg_tuning_reload();
    chg_gemm_params_default(&dev, CHG_F64, &def);
    EXPECT(chg_tuning_lookup(&dev, CHG_F64, &e) == CHG_TUNING_BUILTIN &&
               !memcmp(&e.prec.gemm, &def, sizeof def) && strstr(e.note, "no dgemm parameters") &&
               strstr(e.note, q),
           "s-only entry used for d? level %s, note \"%s\"", chg_tuning_level_name(e.level), e.note);

    /* Parameters that do not fit the device (work-group of 2048 > 1024): passed over. */
    set_dirs("fit", NULL);
    chg_gemm_params_t big = {128, 128, 16, 32, 64, 4, 2, 1, 1, 16, 0, 0, 0, 0, 0, 0};
    chg_tuning_record_t unfit = record_for(&dev, big, 1);
    path_in(q, sizeof q, "fit", "a.json");
    write_db(q, &unfit, 1);
    chg_tuning_reload();
    chg_gemm_params_default(&dev, CHG_F32, &def);
    EXPECT(chg_tuning_lookup(&dev, CHG_F32, &e) == CHG_TUNING_BUILTIN &&
               !memcmp(&e.prec.gemm, &def, sizeof def) && strstr(e.note, "do not fit") &&
               strstr(e.note, "work-group"),
           "unfit parameters: level %s, note \"%s\"", chg_tuning_level_name(e.level), e.note);

    /* Corrupt files and other versions are rejected, visible in the sources and the note, and
     * a valid file beside them still serves. */
    set_dirs("mixed", NULL);
    path_in(q, sizeof q, "mixed", "a-corrupt.json");
    write_text(q, "{\"format\":\"clhgemm-tuning\",");
    path_in(q, sizeof q, "mixed", "b-version.json");
    write_text(q, "{\"format\":\"clhgemm-tuning\",\"format_version\":1,\"library_version\":"
                  "\"0.0.1\",\"entries\":[]}");
    path_in(q, sizeof q, "mixed", "c-good.json");
    write_db(q, recs, 1);
    path_in(q, sizeof q, "mixed", "notes.txt");
    write_text(q, "not a database: ignored, not .json");
    chg_tuning_reload();
    chg_tuning_source_t src[8];
    int n = chg_tuning_sources(src, 8);
    EXPECT(n == 3 && !src[0].ok && strstr(src[0].reason, "not valid JSON") && !src[1].ok &&
               strstr(src[1].reason, "0.0.1") && src[2].ok && src[2].records == 1 && src[2].user,
           "sources: n=%d [0] %d \"%s\" [1] %d \"%s\"", n, n > 0 ? src[0].ok : -1,
           n > 0 ? src[0].reason : "", n > 1 ? src[1].ok : -1, n > 1 ? src[1].reason : "");
    EXPECT(chg_tuning_lookup(&dev, CHG_F32, &e) == CHG_TUNING_EXACT &&
               strstr(e.note, "a-corrupt.json") && strstr(e.note, "b-version.json"),
           "mixed: level %s note \"%s\"", chg_tuning_level_name(e.level), e.note);
    /* Only a corrupt file: the defaults. */
    set_dirs("bad", NULL);
    path_in(q, sizeof q, "bad", "x.json");
    write_text(q, "\x01\x02garbage");
    chg_tuning_reload();
    EXPECT(chg_tuning_lookup(&dev, CHG_F32, &e) == CHG_TUNING_BUILTIN && strstr(e.note, "x.json"),
           "corrupt only: level %s note \"%s\"", chg_tuning_level_name(e.level), e.note);

    /* The environment override wins over an exact entry; CLHGEMM_TUNING=off bypasses it. */
    set_dirs(NULL, "levels");
    write_db(p, recs, 3);
    chg_tuning_reload();
    chg_gemm_params_t sel;
    chg_gemm_params_select(&dev, CHG_F32, &sel);
    EXPECT(!memcmp(&sel, &P_EXACT, sizeof sel), "select without override is not the exact entry");
    setenv("CLHGEMM_SGEMM_PARAMS", "MWG=32,NWG=32,KWG=8,MDIMC=8,NDIMC=8,VWM=1,VWN=1,SA=0,SB=0,KWI=2", 1);
    chg_gemm_params_select(&dev, CHG_F32, &sel);
    EXPECT(sel.mwg == 32 && sel.kwg == 8 && sel.vwm == 1 && sel.kwi == 2,
           "env override did not win over the database");
    setenv("CLHGEMM_SGEMM_PARAMS", "KWI=4", 1); /* a subset applies over the entry */
    chg_gemm_params_select(&dev, CHG_F32, &sel);
    chg_gemm_params_t want = P_EXACT;
    want.kwi = 4;
    EXPECT(!memcmp(&sel, &want, sizeof sel), "partial override not applied over the entry");
    unsetenv("CLHGEMM_SGEMM_PARAMS");
    setenv("CLHGEMM_TUNING", "off", 1);
    chg_gemm_params_default(&dev, CHG_F32, &def);
    EXPECT(chg_tuning_lookup(&dev, CHG_F32, &e) == CHG_TUNING_BUILTIN &&
               !memcmp(&e.prec.gemm, &def, sizeof def),
           "CLHGEMM_TUNING=off did not bypass the database");
    unsetenv("CLHGEMM_TUNING");
    chg_tuning_set_bypass(1);
    EXPECT(chg_tuning_lookup(&dev, CHG_F32, &e) == CHG_TUNING_BUILTIN, "bypass hook ignored");
    chg_tuning_set_bypass(0);
    EXPECT(chg_tuning_lookup(&dev, CHG_F32, &e) == CHG_TUNING_EXACT, "bypass not lifted");

    /* Copy parameters from the entry (when valid), the defaults otherwise. */
    chg_tuning_record_t cr = record_for(&dev, P_EXACT, 1);
    cr.prec[0].has_copy = 1;
    cr.prec[0].pack = (chg_copy_params_t){.tile_i = 64, .tile_p = 4, .wpt_i = 2, .wpt_p = 1,
                                          .ud_i = 1};
    cr.prec[0].pack_t = (chg_copy_params_t){.tile_i = 16, .tile_p = 16, .wpt_i = 1, .wpt_p = 2,
                                            .pad = 1, .ud_p = 2};
    write_db(p, &cr, 1);
    chg_tuning_reload();
    chg_copy_params_t cp;
    chg_tuning_copy_params(&dev, CHG_F32, CHG_COPY_PACK, 1, &cp);
    EXPECT(cp.tile_i == 64 && cp.tile_p == 4 && cp.wpt_i == 2 && cp.ud_i == 1 &&
               cp.src_contig_i == 1 && cp.kind == CHG_COPY_PACK,
           "contiguous pack parameters not from the entry");
    chg_tuning_copy_params(&dev, CHG_F32, CHG_COPY_PACK, 0, &cp);
    EXPECT(cp.tile_i == 16 && cp.wpt_p == 2 && cp.pad == 1 && cp.ud_p == 2 && cp.src_contig_i == 0,
           "transposing pack parameters not from the entry");
    chg_copy_params_t dflt;
    chg_copy_params_default(&dev, CHG_COPY_WRITEBACK, CHG_F32, &dflt);
    chg_tuning_copy_params(&dev, CHG_F32, CHG_COPY_WRITEBACK, 1, &cp);
    EXPECT(!memcmp(&cp, &dflt, sizeof cp), "write-back parameters are not the defaults");

    /* The kernel-rate table: nearest measurement in log space, less for a smaller area. */
    {
        chg_tuning_prec_t t;
        memset(&t, 0, sizeof t);
        EXPECT(chg_tuning_kernel_rate(&t, 1024, 1024, 1024) == 0, "empty table must give 0");
        t.nrates = 3;
        t.rates[0] = (chg_tuning_rate_t){1024, 1024, 1024, 100};
        t.rates[1] = (chg_tuning_rate_t){4096, 4096, 4096, 400};
        t.rates[2] = (chg_tuning_rate_t){4096, 4096, 1024, 300};
        EXPECT(chg_tuning_kernel_rate(&t, 4096, 4096, 4096) == 400e9, "exact row");
        EXPECT(chg_tuning_kernel_rate(&t, 5000, 4000, 1100) == 300e9, "nearest row");
        EXPECT(chg_tuning_kernel_rate(&t, 8192, 8192, 8192) == 400e9, "larger: the largest row");
        const double small = chg_tuning_kernel_rate(&t, 512, 512, 1024);
        EXPECT(small == 100e9 * 0.25, "smaller area scaled: %g", small);
    }

    /* Changing the directory takes effect without a reload. */
    setenv("CLHGEMM_SHIPPED_TUNING_DIR", "off", 1);
    EXPECT(chg_tuning_lookup(&dev, CHG_F32, &e) == CHG_TUNING_BUILTIN,
           "directory change not seen");
    for (int i = 0; i < 3; i++) chg_tuning_record_free(&recs[i]);
}

/* ---- what cannot be used is said ----------------------------------------------------------- */

/* stderr of one lookup of a fresh set of directories (dropped first), as a string to free. */
static char *lookup_stderr(const chg_device_t *dev)
{
    tc_capture_t cap;
    chg_tuning_entry_t e;
    chg_tuning_reload();
    tc_capture_begin(&cap);
    chg_tuning_lookup(dev, CHG_F32, &e);
    chg_tuning_lookup(dev, CHG_F64, &e);
    return tc_capture_end(&cap);
}

/* A rejected user file and a CLHGEMM_TUNING_DIR that names no readable directory each give one
 * line on stderr at the default verbosity, naming the file or the variable, once per process
 * (a reload and a second lookup add none); a rejected shipped file, a missing default user
 * directory and a good database give none. */
static void warnings(void)
{
    const chg_device_t dev = fake_device("Warn GPU", "1.0", "warn:arch", "warn");
    const int quiet = chg_verbose() == 0; /* CLHGEMM_VERBOSE adds lines of its own */
    char p[700], q[700];
    setenv("CLHGEMM_SHIPPED_TUNING_DIR", "off", 1);

    /* missing, then a file that is not a directory */
    snprintf(p, sizeof p, "%s/warn-missing", g_tmp);
    setenv("CLHGEMM_TUNING_DIR", p, 1);
    for (int round = 0; round < 2; round++) {
        char *text = lookup_stderr(&dev);
        const int want = round == 0;
        EXPECT(tc_count_lines(text, "clhgemm: CLHGEMM_TUNING_DIR=", p, "cannot be read") == want &&
                   (!quiet || tc_count_lines(text, "clhgemm: ", "", NULL) == want),
               "missing CLHGEMM_TUNING_DIR, lookup %d: want %d line(s) naming it: [%s]", round + 1,
               want, text);
        free(text);
    }
    snprintf(q, sizeof q, "%s/warn-file", g_tmp);
    write_text(q, "{}");
    setenv("CLHGEMM_TUNING_DIR", q, 1);
    for (int round = 0; round < 2; round++) {
        char *text = lookup_stderr(&dev);
        const int want = round == 0;
        EXPECT(tc_count_lines(text, "clhgemm: CLHGEMM_TUNING_DIR=", q, "not a directory") == want &&
                   (!quiet || tc_count_lines(text, "clhgemm: ", "", NULL) == want),
               "CLHGEMM_TUNING_DIR a file, lookup %d: want %d line(s): [%s]", round + 1, want,
               text);
        free(text);
    }

    /* a corrupt and an out-of-range user file beside a good one: one line each */
    set_dirs("warn-user", NULL);
    char bad[700], range[700], good[700];
    path_in(bad, sizeof bad, "warn-user", "bad.json");
    path_in(range, sizeof range, "warn-user", "range.json");
    path_in(good, sizeof good, "warn-user", "tuning.json");
    write_text(bad, "{\"format\": \"clhgemm-tuning\", \"entries\": [");
    {   /* well-formed JSON, a vector width out of range */
        char text[2048];
        snprintf(text, sizeof text, "%s%s]}", VALID_HEAD, VALID_ENTRY);
        char *at = strstr(text, "\"VWM\":2");
        EXPECT(at != NULL, "no VWM key in VALID_ENTRY");
        if (at) at[6] = '3';
        write_text(range, text);
    }
    chg_tuning_record_t rec = record_for(&dev, P_EXACT, 3);
    write_db(good, &rec, 1);
    chg_tuning_record_free(&rec);
    for (int round = 0; round < 2; round++) {
        char *text = lookup_stderr(&dev);
        const int want = round == 0;
        EXPECT(tc_count_lines(text, "clhgemm: user tuning file ", bad, "not valid JSON") == want &&
                   tc_count_lines(text, "clhgemm: user tuning file ", range, "VWM") == want &&
                   tc_count_lines(text, "clhgemm: ", good, NULL) == 0 &&
                   (!quiet || tc_count_lines(text, "clhgemm: ", "", NULL) == 2 * want),
               "rejected user files, lookup %d: want %d line(s) each, none for the good file: [%s]",
               round + 1, want, text);
        free(text);
    }
    chg_tuning_entry_t e;
    EXPECT(chg_tuning_lookup(&dev, CHG_F32, &e) == CHG_TUNING_EXACT && !strcmp(e.source, good),
           "the good user file beside rejected ones: %s from %s", chg_tuning_level_name(e.level),
           e.source);

    /* a rejected shipped file: a verbose note only */
    set_dirs(NULL, "warn-shipped");
    path_in(q, sizeof q, "warn-shipped", "bad.json");
    write_text(q, "not json");
    if (quiet) {
        char *text = lookup_stderr(&dev);
        EXPECT(tc_count_lines(text, "clhgemm: ", "", NULL) == 0,
               "a rejected shipped file must stay quiet at verbosity 0: [%s]", text);
        free(text);
    }

    /* the default user directory (unset variable) that does not exist: silent */
    snprintf(q, sizeof q, "%s/warn-home", g_tmp);
    mkdir(q, 0755);
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char *xdg = getenv("XDG_CONFIG_HOME") ? strdup(getenv("XDG_CONFIG_HOME")) : NULL;
    unsetenv("CLHGEMM_TUNING_DIR");
    unsetenv("XDG_CONFIG_HOME");
    setenv("HOME", q, 1);
    setenv("CLHGEMM_SHIPPED_TUNING_DIR", "off", 1);
    if (quiet) {
        char *text = lookup_stderr(&dev);
        EXPECT(tc_count_lines(text, "clhgemm: ", "", NULL) == 0,
               "no CLHGEMM_TUNING_DIR and no ~/.config/clhgemm must stay quiet: [%s]", text);
        free(text);
    }
    if (home) setenv("HOME", home, 1);
    else unsetenv("HOME");
    if (xdg) setenv("XDG_CONFIG_HOME", xdg, 1);
    free(home);
    free(xdg);
    set_dirs(NULL, NULL);
}

/* ---- resolved once: chg_tuned_gemm, chg_tuned_entry ------------------------------------- */

/* The cached forms answer what the uncached ones answer, in both precisions. */
static void expect_uncached(const chg_device_t *dev, const char *what)
{
    for (int p = 0; p < 2; p++) {
        const chg_precision_t prec = (chg_precision_t)p;
        const char pc = p ? 'd' : 's';
        chg_tuning_entry_t e, c;
        const chg_tuning_level_t le = chg_tuning_lookup(dev, prec, &e);
        const chg_tuning_level_t lc = chg_tuned_entry(dev, prec, &c);
        EXPECT(le == lc && e.level == c.level &&
                   !memcmp(&e.prec.gemm, &c.prec.gemm, sizeof e.prec.gemm) &&
                   !memcmp(&e.prec.pack, &c.prec.pack, sizeof e.prec.pack) &&
                   !memcmp(&e.prec.pack_t, &c.prec.pack_t, sizeof e.prec.pack_t) &&
                   !strcmp(e.source, c.source) && !strcmp(e.key, c.key) &&
                   !strcmp(e.note, c.note) && e.pipeline.present == c.pipeline.present &&
                   e.cpumodel.present == c.cpumodel.present,
               "%s: %cgemm: chg_tuned_entry gives %s from %s, chg_tuning_lookup %s from %s", what,
               pc, chg_tuning_level_name(lc), c.source, chg_tuning_level_name(le), e.source);
        chg_gemm_params_t sel, tuned;
        chg_gemm_params_select(dev, prec, &sel);
        chg_tuned_gemm(dev, prec, &tuned);
        EXPECT(!memcmp(&sel, &tuned, sizeof sel),
               "%s: %cgemm: chg_tuned_gemm is not select's answer", what, pc);
        chg_copy_params_t cp;
        chg_tuning_copy_params(dev, prec, CHG_COPY_PACK, 0, &cp);
        EXPECT(cp.tile_i == e.prec.pack_t.tile_i && cp.tile_p == e.prec.pack_t.tile_p &&
                   cp.wpt_i == e.prec.pack_t.wpt_i && cp.pad == e.prec.pack_t.pad,
               "%s: %cgemm: transposing pack parameters are not the entry's", what, pc);
    }
}

typedef struct hammer_s {
    const chg_device_t *dev;
    int bad;
} hammer_t;

static void *hammer(void *arg)
{
    hammer_t *h = arg;
    for (int i = 0; i < 2000; i++) {
        chg_gemm_params_t g;
        chg_tuning_entry_t e;
        chg_tuned_gemm(h->dev, CHG_F32, &g);
        h->bad += memcmp(&g, &P_EXACT, sizeof g) != 0;
        h->bad += chg_tuned_entry(h->dev, CHG_F64, &e) != CHG_TUNING_EXACT;
    }
    return NULL;
}

/* TRSM's diagonal-block order (core/trsm_subst.c chg_trsm_nb): CLHGEMM_TRSM_NB > the device's
 * tuning entry (a user database in CLHGEMM_TUNING_DIR, architecture level included) > 512. */
static void trsm_nb_precedence(void)
{
    const chg_device_t dev = fake_device("Fake GPU 9000", "1.0", "fake:arch9", "fake");
    const chg_device_t same_arch = fake_device("Fake GPU 9100", "3.0", "fake:arch9", "fake");
    const chg_device_t other = fake_device("Other GPU", "1.0", "other:x", "other");
    char p[700], src[600];
    unsetenv("CLHGEMM_TRSM_NB");
    set_dirs("trsmnb", NULL);
    chg_tuning_record_t r = record_for(&dev, P_EXACT, 3);
    r.prec[CHG_F32].trsm_nb = 384;
    r.prec[CHG_F64].trsm_nb = 0; /* d: none, the default */
    path_in(p, sizeof p, "trsmnb", "tuning.json");
    write_db(p, &r, 1);
    chg_tuning_reload();
    EXPECT(chg_tuned_trsm_nb(&dev, CHG_F32, src, sizeof src) == 384 && strstr(src, "exact") &&
               strstr(src, p),
           "tuned trsm_nb of the exact entry: %s", src);
    EXPECT(chg_trsm_nb(&dev, CHG_F32) == 384, "s: the entry's 384 not taken (%zu)",
           chg_trsm_nb(&dev, CHG_F32));
    EXPECT(chg_trsm_nb(&dev, CHG_F64) == CHG_TRSM_NB_DEFAULT, "d without trsm_nb: %zu, want 512",
           chg_trsm_nb(&dev, CHG_F64));
    EXPECT(chg_trsm_nb(&same_arch, CHG_F32) == 384, "architecture entry's trsm_nb not taken: %zu",
           chg_trsm_nb(&same_arch, CHG_F32));
    EXPECT(chg_trsm_nb(&other, CHG_F32) == CHG_TRSM_NB_DEFAULT, "no entry: %zu, want 512",
           chg_trsm_nb(&other, CHG_F32));
    EXPECT(chg_trsm_nb(NULL, CHG_F32) == CHG_TRSM_NB_DEFAULT, "no device: %zu, want 512",
           chg_trsm_nb(NULL, CHG_F32));
    /* the environment wins over the entry, and is read at every call */
    setenv("CLHGEMM_TRSM_NB", "96", 1);
    EXPECT(chg_trsm_nb(&dev, CHG_F32) == 96, "CLHGEMM_TRSM_NB=96 did not win: %zu",
           chg_trsm_nb(&dev, CHG_F32));
    EXPECT(chg_trsm_nb(&other, CHG_F64) == 96, "CLHGEMM_TRSM_NB=96 without an entry: %zu",
           chg_trsm_nb(&other, CHG_F64));
    /* malformed: reported, and the entry's (else the default) used; out of range: the bound */
    setenv("CLHGEMM_TRSM_NB", "12x", 1);
    EXPECT(chg_trsm_nb(&dev, CHG_F32) == 384 && chg_trsm_nb(&dev, CHG_F64) == 512,
           "malformed CLHGEMM_TRSM_NB: %zu / %zu, want 384 / 512", chg_trsm_nb(&dev, CHG_F32),
           chg_trsm_nb(&dev, CHG_F64));
    setenv("CLHGEMM_TRSM_NB", "0", 1);
    EXPECT(chg_trsm_nb(&dev, CHG_F32) == 1, "CLHGEMM_TRSM_NB=0: %zu, want 1",
           chg_trsm_nb(&dev, CHG_F32));
    unsetenv("CLHGEMM_TRSM_NB");
    EXPECT(chg_trsm_nb(&dev, CHG_F32) == 384, "CLHGEMM_TRSM_NB unset: %zu, want 384",
           chg_trsm_nb(&dev, CHG_F32));
    /* the databases off: the default */
    setenv("CLHGEMM_TUNING", "off", 1);
    EXPECT(chg_trsm_nb(&dev, CHG_F32) == CHG_TRSM_NB_DEFAULT, "CLHGEMM_TUNING=off: %zu",
           chg_trsm_nb(&dev, CHG_F32));
    unsetenv("CLHGEMM_TUNING");
    /* a rewritten entry is seen after a reload */
    r.prec[CHG_F32].trsm_nb = 1024;
    write_db(p, &r, 1);
    chg_tuning_reload();
    EXPECT(chg_trsm_nb(&dev, CHG_F32) == 1024, "after a reload: %zu, want 1024",
           chg_trsm_nb(&dev, CHG_F32));
    chg_tuning_record_free(&r);
    set_dirs(NULL, NULL);
}

/* The factorizations' panel width (lapack/fact_driver.c chg_fact_nb) of an n x n call. */
static size_t fact_nb(const chg_device_t *dev, chg_precision_t prec, int kind, size_t n,
                      size_t nb)
{
    const chg_fact_call_t c = {.kind = (chg_fact_kind_t)kind, .prec = prec, .m = n, .n = n,
                               .nb = nb};
    return chg_fact_nb(dev, &c);
}

/* The panel width: a call's nb > CLHGEMM_FACTOR_NB > the device's tuning entry (its
 * architecture's too) > the built-in default (GPU: 512 for Cholesky, 256 for LU and QR; CPU
 * device: 64), at most min(m, n) rounded up to 16. */
static void factor_nb_precedence(void)
{
    const chg_device_t dev = fake_device("Fake GPU 9000", "1.0", "fake:arch9", "fake");
    const chg_device_t same_arch = fake_device("Fake GPU 9100", "3.0", "fake:arch9", "fake");
    chg_device_t cpu = fake_device("Other CPU", "1.0", "other:x", "other");
    cpu.info.kind = CLHGEMM_DEVICE_CPU;
    char p[700], src[600];
    unsetenv("CLHGEMM_FACTOR_NB");
    set_dirs("factornb", NULL);
    chg_tuning_record_t r = record_for(&dev, P_EXACT, 3);
    r.prec[CHG_F32].factor_nb[0] = 384; /* s: potrf and geqrf, getrf the default */
    r.prec[CHG_F32].factor_nb[2] = 96;
    r.prec[CHG_F32].factor_size = 8192;
    path_in(p, sizeof p, "factornb", "tuning.json");
    write_db(p, &r, 1);
    chg_tuning_reload();
    EXPECT(chg_tuned_factor_nb(&dev, CHG_F32, 0, src, sizeof src) == 384 &&
               strstr(src, "exact") && strstr(src, p),
           "tuned potrf_nb of the exact entry: %s", src);
    EXPECT(chg_tuned_factor_nb(&dev, CHG_F32, 1, NULL, 0) == 0 &&
               chg_tuned_factor_nb(&dev, CHG_F64, 0, NULL, 0) == 0 &&
               chg_tuned_factor_nb(&dev, CHG_F32, 3, NULL, 0) == 0 &&
               chg_tuned_factor_nb(&dev, CHG_F32, -1, NULL, 0) == 0,
           "an absent width or a bad kind is not 0");
    const size_t n = 8192;
    EXPECT(fact_nb(&dev, CHG_F32, 0, n, 0) == 384 && fact_nb(&dev, CHG_F32, 2, n, 0) == 96,
           "s: the entry's 384 / 96 not taken (%zu / %zu)", fact_nb(&dev, CHG_F32, 0, n, 0),
           fact_nb(&dev, CHG_F32, 2, n, 0));
    EXPECT(fact_nb(&dev, CHG_F32, 1, n, 0) == 256 && fact_nb(&dev, CHG_F64, 0, n, 0) == 512,
           "without the width: %zu / %zu, want the defaults 256 / 512",
           fact_nb(&dev, CHG_F32, 1, n, 0), fact_nb(&dev, CHG_F64, 0, n, 0));
    EXPECT(fact_nb(&same_arch, CHG_F32, 0, n, 0) == 384,
           "architecture entry's potrf_nb not taken: %zu", fact_nb(&same_arch, CHG_F32, 0, n, 0));
    EXPECT(fact_nb(&cpu, CHG_F32, 0, n, 0) == 64 && fact_nb(NULL, CHG_F32, 1, n, 0) == 64,
           "CPU device / no device: %zu / %zu, want 64", fact_nb(&cpu, CHG_F32, 0, n, 0),
           fact_nb(NULL, CHG_F32, 1, n, 0));
    EXPECT(fact_nb(&dev, CHG_F32, 0, 100, 0) == 112, "cut to the matrix: %zu, want 112",
           fact_nb(&dev, CHG_F32, 0, 100, 0));
    /* the environment wins over the entry, and is read at every call */
    setenv("CLHGEMM_FACTOR_NB", "48", 1);
    EXPECT(fact_nb(&dev, CHG_F32, 0, n, 0) == 48 && fact_nb(&cpu, CHG_F64, 2, n, 0) == 48,
           "CLHGEMM_FACTOR_NB=48 did not win: %zu / %zu", fact_nb(&dev, CHG_F32, 0, n, 0),
           fact_nb(&cpu, CHG_F64, 2, n, 0));
    /* a call's own width (clhgemm-tune's candidates) wins over the environment */
    EXPECT(fact_nb(&dev, CHG_F32, 0, n, 768) == 768, "the call's 768: %zu",
           fact_nb(&dev, CHG_F32, 0, n, 768));
    /* malformed: reported, and the entry's (else the default) used */
    setenv("CLHGEMM_FACTOR_NB", "12x", 1);
    EXPECT(fact_nb(&dev, CHG_F32, 0, n, 0) == 384 && fact_nb(&dev, CHG_F32, 1, n, 0) == 256,
           "malformed CLHGEMM_FACTOR_NB: %zu / %zu, want 384 / 256",
           fact_nb(&dev, CHG_F32, 0, n, 0), fact_nb(&dev, CHG_F32, 1, n, 0));
    unsetenv("CLHGEMM_FACTOR_NB");
    /* the databases off: the default */
    setenv("CLHGEMM_TUNING", "off", 1);
    EXPECT(fact_nb(&dev, CHG_F32, 0, n, 0) == 512, "CLHGEMM_TUNING=off: %zu",
           fact_nb(&dev, CHG_F32, 0, n, 0));
    unsetenv("CLHGEMM_TUNING");
    /* a rewritten entry is seen after a reload */
    r.prec[CHG_F32].factor_nb[0] = 1024;
    write_db(p, &r, 1);
    chg_tuning_reload();
    EXPECT(fact_nb(&dev, CHG_F32, 0, n, 0) == 1024, "after a reload: %zu, want 1024",
           fact_nb(&dev, CHG_F32, 0, n, 0));
    chg_tuning_record_free(&r);
    set_dirs(NULL, NULL);
}

static void tuned_cache(void)
{
    const chg_device_t dev = fake_device("Fake GPU 9000", "1.0", "fake:arch9", "fake");
    const chg_device_t same_arch = fake_device("Fake GPU 9100", "1.0", "fake:arch9", "fake");
    const chg_device_t other = fake_device("Other GPU", "1.0", "other:x", "other");
    chg_tuning_entry_t e;
    chg_gemm_params_t g, want;
    char p[700];

    set_dirs(NULL, "tuned");
    chg_tuning_record_t recs[2] = {record_for(&dev, P_EXACT, 3), record_for(&same_arch, P_ARCH, 1)};
    path_in(p, sizeof p, "tuned", "db.json");
    write_db(p, recs, 2);
    chg_tuning_reload();
    unsigned long gen = chg_tuning_generation();
    EXPECT(chg_tuned_entry(&dev, CHG_F32, &e) == CHG_TUNING_EXACT && !strcmp(e.source, p) &&
               !memcmp(&e.prec.gemm, &P_EXACT, sizeof P_EXACT),
           "tuned entry: %s from %s", chg_tuning_level_name(e.level), e.source);
    chg_tuned_gemm(&dev, CHG_F32, &g);
    EXPECT(!memcmp(&g, &P_EXACT, sizeof g), "tuned gemm is not the exact entry's");
    expect_uncached(&dev, "exact");
    expect_uncached(&same_arch, "architecture");
    expect_uncached(&other, "built-in");
    EXPECT(chg_tuning_generation() == gen, "a lookup changed the generation");

    /* More devices than the cache has slots: the answers stay right. */
    for (int i = 0; i < 20; i++) {
        char name[64];
        snprintf(name, sizeof name, "Fake GPU %d", 9000 + (i % 3) * 100 + i);
        const chg_device_t d = fake_device(name, i % 2 ? "1.0" : "2.0", "fake:arch9", "fake");
        expect_uncached(&d, name);
    }
    expect_uncached(&dev, "exact, after many devices");

    /* A rewritten file is seen after chg_tuning_reload (a new generation), not before: the
     * parsed files were always cached until then. */
    chg_tuning_record_t now = record_for(&dev, P_VENDOR, 3);
    write_db(p, &now, 1);
    chg_tuned_gemm(&dev, CHG_F32, &g);
    EXPECT(!memcmp(&g, &P_EXACT, sizeof g), "a rewritten file was seen before chg_tuning_reload");
    chg_tuning_reload();
    EXPECT(chg_tuning_generation() != gen, "chg_tuning_reload did not change the generation");
    gen = chg_tuning_generation();
    chg_tuned_gemm(&dev, CHG_F32, &g);
    EXPECT(!memcmp(&g, &P_VENDOR, sizeof g), "after chg_tuning_reload: the old file's parameters");
    EXPECT(chg_tuned_entry(&dev, CHG_F32, &e) == CHG_TUNING_EXACT &&
               !memcmp(&e.prec.gemm, &P_VENDOR, sizeof P_VENDOR),
           "after chg_tuning_reload: entry %s", chg_tuning_level_name(e.level));
    /* (P_VENDOR needs too much local memory in FP64 on this device: d is built-in now) */
    EXPECT(chg_tuned_entry(&dev, CHG_F64, &e) == CHG_TUNING_BUILTIN && strstr(e.note, "do not fit"),
           "after chg_tuning_reload: d entry %s", chg_tuning_level_name(e.level));
    expect_uncached(&dev, "after reload");

    /* The bypass hook: another generation, the built-in defaults, and back. */
    chg_tuning_set_bypass(1);
    EXPECT(chg_tuning_generation() != gen, "chg_tuning_set_bypass did not change the generation");
    EXPECT(chg_tuned_entry(&dev, CHG_F32, &e) == CHG_TUNING_BUILTIN && strstr(e.key, "bypass"),
           "bypass: tuned entry %s (%s)", chg_tuning_level_name(e.level), e.key);
    expect_uncached(&dev, "bypass");
    chg_tuning_set_bypass(0);
    EXPECT(chg_tuned_entry(&dev, CHG_F32, &e) == CHG_TUNING_EXACT, "bypass lifted: still built-in");

    /* The environment is read at every call: a setenv between two calls counts at the second. */
    setenv("CLHGEMM_SGEMM_PARAMS", "KWI=4", 1);
    chg_tuned_gemm(&dev, CHG_F32, &g);
    want = P_VENDOR;
    want.kwi = 4;
    EXPECT(!memcmp(&g, &want, sizeof g), "CLHGEMM_SGEMM_PARAMS set between two calls: not applied");
    chg_gemm_params_t dwant;
    chg_gemm_params_default(&dev, CHG_F64, &dwant);
    chg_tuned_gemm(&dev, CHG_F64, &g);
    EXPECT(!memcmp(&g, &dwant, sizeof g), "CLHGEMM_SGEMM_PARAMS applied to d");
    setenv("CLHGEMM_GEMM_PARAMS", "KWI=2", 1);
    chg_tuned_gemm(&dev, CHG_F64, &g);
    dwant.kwi = 2;
    EXPECT(!memcmp(&g, &dwant, sizeof g), "CLHGEMM_GEMM_PARAMS set between two calls: not applied");
    chg_tuned_gemm(&dev, CHG_F32, &g);
    EXPECT(g.kwi == 4, "CLHGEMM_SGEMM_PARAMS must win over CLHGEMM_GEMM_PARAMS");
    setenv("CLHGEMM_SGEMM_PARAMS", "MWG=3", 1); /* invalid: ignored, reported */
    chg_tuned_gemm(&dev, CHG_F32, &g);
    EXPECT(!memcmp(&g, &P_VENDOR, sizeof g), "an invalid override was not ignored");
    expect_uncached(&dev, "overrides");
    unsetenv("CLHGEMM_SGEMM_PARAMS");
    unsetenv("CLHGEMM_GEMM_PARAMS");
    chg_tuned_gemm(&dev, CHG_F32, &g);
    EXPECT(!memcmp(&g, &P_VENDOR, sizeof g), "override unset between two calls: still applied");
    setenv("CLHGEMM_TUNING", "off", 1);
    EXPECT(chg_tuned_entry(&dev, CHG_F32, &e) == CHG_TUNING_BUILTIN, "CLHGEMM_TUNING=off not seen");
    unsetenv("CLHGEMM_TUNING");
    EXPECT(chg_tuned_entry(&dev, CHG_F32, &e) == CHG_TUNING_EXACT, "CLHGEMM_TUNING unset not seen");
    setenv("CLHGEMM_SHIPPED_TUNING_DIR", "off", 1);
    EXPECT(chg_tuned_entry(&dev, CHG_F32, &e) == CHG_TUNING_BUILTIN,
           "directory change without a reload not seen");

    /* Pack parameters through the cache: the entry's, and after a reload the new file's. */
    set_dirs(NULL, "tuned");
    chg_tuning_record_t cr = record_for(&dev, P_EXACT, 3);
    cr.prec[0].has_copy = 1;
    cr.prec[0].pack = (chg_copy_params_t){.tile_i = 64, .tile_p = 4, .wpt_i = 2, .wpt_p = 1,
                                          .ud_i = 1};
    cr.prec[0].pack_t = (chg_copy_params_t){.tile_i = 16, .tile_p = 16, .wpt_i = 1, .wpt_p = 2,
                                            .pad = 1, .ud_p = 2};
    write_db(p, &cr, 1);
    chg_tuning_reload();
    chg_copy_params_t cp, dflt;
    chg_tuning_copy_params(&dev, CHG_F32, CHG_COPY_PACK, 1, &cp);
    EXPECT(cp.tile_i == 64 && cp.wpt_i == 2 && cp.src_contig_i == 1,
           "pack parameters not the entry's");
    expect_uncached(&dev, "copy parameters");
    write_db(p, recs, 2); /* no copy parameters: the built-in ones */
    chg_tuning_reload();
    chg_tuning_copy_params(&dev, CHG_F32, CHG_COPY_PACK, 1, &cp);
    chg_copy_params_default(&dev, CHG_COPY_PACK, CHG_F32, &dflt);
    dflt.src_contig_i = 1;
    EXPECT(!memcmp(&cp, &dflt, sizeof cp), "after a reload: the old file's pack parameters");

    /* Threads resolving while the database is reloaded under them (same file: same answers). */
    hammer_t h[4];
    pthread_t th[4];
    int started = 0;
    for (int i = 0; i < 4; i++) {
        h[i] = (hammer_t){&dev, 0};
        if (pthread_create(&th[i], NULL, hammer, &h[i]) == 0) started++;
        else break;
    }
    for (int i = 0; i < 20; i++) chg_tuning_reload();
    for (int i = 0; i < started; i++) {
        pthread_join(th[i], NULL);
        EXPECT(h[i].bad == 0, "thread %d: %d wrong answers from the cache", i, h[i].bad);
    }
    EXPECT(started == 4, "could start only %d threads", started);

    chg_tuning_record_free(&cr);
    chg_tuning_record_free(&now);
    for (int i = 0; i < 2; i++) chg_tuning_record_free(&recs[i]);
}

/* ---- device ------------------------------------------------------------------------------ */

static int run_gemms(tc_env_t *env, const char *tag)
{
    tc_rng_t rng;
    tc_rng_seed(&rng, 0x7E57ULL);
    static const int shapes[][3] = {{129, 70, 45}, {64, 64, 64}, {33, 250, 17}};
    int fails = 0;
    for (int dbl = 0; dbl < 2; dbl++) {
        if (dbl && !env->has_fp64) continue;
        for (int s = 0; s < 3; s++) {
            tc_case_t c = {0};
            c.dbl = dbl;
            c.layout = s == 1 ? CLHGEMM_ROW_MAJOR : CLHGEMM_COL_MAJOR;
            c.ta = (s & 1) ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
            c.tb = (s & 2) ? CLHGEMM_TRANS : CLHGEMM_NO_TRANS;
            c.m = shapes[s][0];
            c.n = shapes[s][1];
            c.k = shapes[s][2];
            c.alpha = 0.75;
            c.beta = s == 2 ? 0.0 : -1.0;
            c.pad = 3;
            c.offa = 1;
            c.offc = 5;
            if (!EXPECT(tc_run_case(env->ctx, env->queue, &c, &rng) == 0,
                        "GEMM with the %s parameters (case %d, %s)", tag, s, dbl ? "d" : "s"))
                fails++;
        }
    }
    return fails;
}

static void device_entry(tc_env_t *env, const chg_device_t *dev)
{
    set_dirs("devuser", NULL);
    chg_tuning_record_t r;
    chg_tuning_record_init(&r, dev);
    /* A valid non-default kernel on any device, and non-default pack kernels. */
    const chg_gemm_params_t g = {16, 32, 8, 8, 8, 2, 1, 1, 0, 2, 0, 0, 0, 0, 0, 0};
    for (int p = 0; p < 2; p++) {
        r.prec[p].present = 1;
        r.prec[p].gemm = g;
        r.prec[p].has_copy = 1;
        r.prec[p].pack = (chg_copy_params_t){.tile_i = 8, .tile_p = 8, .wpt_i = 1, .wpt_p = 2,
                                             .ud_p = 1};
        r.prec[p].pack_t = (chg_copy_params_t){.tile_i = 8, .tile_p = 16, .wpt_i = 2, .wpt_p = 2,
                                               .pad = 1, .ud_i = 1, .ud_p = 2};
    }
    char q[700];
    path_in(q, sizeof q, "devuser", CHG_TUNING_USER_FILE);
    write_db(q, &r, 1);
    chg_tuning_reload();
    for (int p = 0; p < 2; p++) {
        if (p == CHG_F64 && !env->has_fp64) continue;
        chg_gemm_params_t sel;
        chg_gemm_params_select(dev, (chg_precision_t)p, &sel);
        EXPECT(!memcmp(&sel, &g, sizeof g), "the device's exact entry is not selected (prec %d)", p);
        chg_copy_params_t cp;
        chg_tuning_copy_params(dev, (chg_precision_t)p, CHG_COPY_PACK, 0, &cp);
        EXPECT(cp.tile_p == 16 && cp.pad == 1 && cp.ud_p == 2, "pack_t not from the entry");
    }
    run_gemms(env, "database");
    chg_tuning_record_free(&r);
}

/* The routing figures of the tuner's entry (r): written for s, and a handle on the device takes
 * them (the latency, and OpenBLAS's rates without measuring: the model's CPU time of a 64^3
 * call is the stored rate's at n = 64), the OpenBLAS thread count being the tuner's. */
static void tuned_route(const chg_tuning_record_t *r)
{
    const chg_tuning_route_t *rt = &r->prec[0].route;
    EXPECT(rt->present && rt->latency_us > 0 && rt->cpu_threads >= 1 && rt->cpu_gflops[0] > 0 &&
               rt->cpu_gflops[3] > 0,
           "tuned entry without routing figures for s (present %d, latency %g us, threads %d)", rt->present,
           rt->latency_us, rt->cpu_threads);
    if (!rt->present) return;
    printf("tuned route s: latency %.1f us, OpenBLAS on %d threads %.1f, %.1f, %.1f, %.1f GFLOP/s\n",
           rt->latency_us, rt->cpu_threads, rt->cpu_gflops[0], rt->cpu_gflops[1], rt->cpu_gflops[2],
           rt->cpu_gflops[3]);
    clhgemm_handle_t h = NULL;
    const clhgemm_status_t st = clhgemm_create(&h, NULL);
    EXPECT(st == CLHGEMM_SUCCESS, "route: clhgemm_create: %s", clhgemm_status_string(st));
    if (st != CLHGEMM_SUCCESS) return;
    if (h->ndev == 1 && !strcmp(h->devs[0].dev.info.name, r->name) && !getenv("CLHGEMM_ROUTE_MODEL")) {
        double lat = 0;
        for (int p = 0; p < 2; p++)
            if (r->prec[p].route.present) lat = CHG_MAX(lat, r->prec[p].route.latency_us * 1e-6);
        EXPECT(fabs(h->route.latency - lat) <= 1e-12 * lat, "route: the handle's latency %g s, the entry's %g s",
               h->route.latency, lat);
        EXPECT(chg_cpu_blas_threads() != rt->cpu_threads || atomic_load(&h->route.cpu_known[0]),
               "route: OpenBLAS's rates not taken from the entry (%d threads, as measured)", rt->cpu_threads);
        const chg_route_call_t rc = {.prec = CHG_F32, .name = "sgemm", .m = 64, .n = 64, .k = 64,
                                 .flops = 2.0 * 64 * 64 * 64, .in_elems = 2 * 64 * 64, .c_elems = 64 * 64};
        const double want = rc.flops / (rt->cpu_gflops[0] * 1e9), got = chg_route_cpu_time(h, &rc);
        EXPECT(chg_cpu_blas_threads() != rt->cpu_threads || fabs(got - want) <= 1e-12 * want,
               "route: the model's OpenBLAS time of 64^3 is %g s, the entry's rate gives %g s", got, want);
    }
    clhgemm_destroy(h);
}

static void tuned_file(tc_env_t *env, const chg_device_t *dev, const char *file)
{
    chg_tuning_file_t f;
    char why[512] = "";
    int rc = chg_tuning_file_read(file, &f, why, sizeof why);
    EXPECT(rc == 0, "the tuner's database %s: %s", file, why);
    if (rc) return;
    const chg_tuning_record_t *r = chg_tuning_file_find(&f, dev->info.name, dev->info.driver_version);
    EXPECT(r && r->prec[0].present, "no s entry for %s in %s", dev->info.name, file);
    if (r && r->prec[0].present) {
        chg_tuning_entry_t e;
        EXPECT(chg_tuning_lookup(dev, CHG_F32, &e) == CHG_TUNING_EXACT &&
                   !memcmp(&e.prec.gemm, &r->prec[0].gemm, sizeof e.prec.gemm) &&
                   strstr(e.source, CHG_TUNING_USER_FILE),
               "the library does not use the tuned entry: %s from %s (%s)",
               chg_tuning_level_name(e.level), e.source, e.note);
        EXPECT(r->prec[0].gflops > 0 && r->prec[0].kernel_gflops > 0 && r->prec[0].candidates > 0,
               "tuned entry without measurements");
        EXPECT(r->prec[0].has_copy && r->prec[0].pack_gbs > 0 && r->prec[0].copy_buffer_gbs > 0,
               "tuned entry without copy-kernel results");
        EXPECT(r->pipeline.present && r->pipeline.h2d_pinned_gbs > 0 &&
                   r->pipeline.d2h_pageable_gbs > 0,
               "tuned entry without pipeline figures");
        char buf[200];
        chg_gemm_params_format(&e.prec.gemm, buf, sizeof buf);
        printf("tuned sgemm parameters in use: %s (%.2f GFLOP/s at n=%d, %d candidates)\n", buf,
               r->prec[0].gflops, r->prec[0].size, r->prec[0].candidates);
        tuned_route(r);
    }
    chg_tuning_file_free(&f);
    run_gemms(env, "tuned");
}

/* One host-memory GEMM (n^3, col-major NN, alpha 1, beta 0.5) on a handle with the CPU share on
 * auto; checks the CPU's rows against the split model's choice and the result against OpenBLAS. */
static int g_guard; /* cpumodel-guard: the planner's prediction may overrule the model */
static void auto_uses_model(const chg_device_t *dev, chg_precision_t prec, const char *tag)
{
    chg_tuning_entry_t e;
    chg_tuning_lookup(dev, prec, &e);
    EXPECT(e.cpumodel.present, "%s: no split model for %c in the lookup", tag, prec ? 'd' : 's');
    if (!e.cpumodel.present) return;
    const int n = e.cpumodel.check_n > 0 ? CHG_MIN(e.cpumodel.check_n, 512) : 384;
    const double es = (double)chg_elem_size(prec);
    double t, t_dev = chg_split_time(&e.cpumodel.split, 0, n, n, n, es, 1, NULL, NULL);
    double mc = chg_split_best(&e.cpumodel.split, n, n, n, es, 1, &t);
    if (!(mc >= 1 && t <= 0.98 * t_dev)) mc = 0;
    const size_t nn = (size_t)n * n;
    double *A = malloc(nn * 8), *B = malloc(nn * 8), *C = malloc(nn * 8), *R = malloc(nn * 8);
    tc_rng_t rng;
    tc_rng_seed(&rng, 0xC0DE);
    for (size_t i = 0; i < nn; i++) {
        A[i] = tc_rng_uniform(&rng);
        B[i] = tc_rng_uniform(&rng);
        C[i] = R[i] = tc_rng_uniform(&rng);
    }
    float *a = (float *)A, *b = (float *)B, *c = (float *)C, *rr = (float *)R;
    if (prec == CHG_F32) /* the same values, in place, as floats */
        for (size_t i = 0; i < nn; i++) {
            a[i] = (float)A[i];
            b[i] = (float)B[i];
            c[i] = rr[i] = (float)C[i];
        }
    clhgemm_options_t o;
    clhgemm_options_init(&o);
    o.cpu_share = "auto";
    o.cpu_share_threads = e.cpumodel.cpu_threads;
    clhgemm_handle_t h = NULL;
    clhgemm_status_t st = clhgemm_create(&h, &o);
    EXPECT(st == CLHGEMM_SUCCESS, "%s: clhgemm_create: %s", tag, clhgemm_status_string(st));
    if (st == CLHGEMM_SUCCESS) {
        st = prec == CHG_F64 ? clhgemm_dgemm(h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, n, n, n,
                                             1.0, A, n, B, n, 0.5, C, n)
                             : clhgemm_sgemm(h, CLHGEMM_COL_MAJOR, CLHGEMM_NO_TRANS, CLHGEMM_NO_TRANS, n, n, n,
                                             1.0f, a, n, b, n, 0.5f, c, n);
        EXPECT(st == CLHGEMM_SUCCESS, "%s: gemm: %s", tag, clhgemm_status_string(st));
        clhgemm_call_info_t info;
        clhgemm_last_call_info(h, &info);
        const double want = floor(mc) / n;
        if (g_guard && floor(mc) >= n && info.cpu_fraction == 0) {
            /* all of C on the CPU is the route's decision, not the share's (host/share.c): the
             * share refuses it unless CLHGEMM_CPU_MODEL_ONLY */
            printf("%s %c n=%d: the split model gives the CPU all rows; the share refuses (the route's "
                   "decision)\n", tag, prec ? 'd' : 's', n);
            mc = 0;
        } else if (g_guard && mc > 0 && info.cpu_fraction == 0) {
            /* the planner overruled the model: only right if its figure for the devices alone
             * (reported as the prediction) is not beaten by the model's hybrid time */
            EXPECT(t > 0.98 * info.predicted_seconds,
                   "%s %c: no CPU share although the model's hybrid %.6g s beats the plan's %.6g s",
                   tag, prec ? 'd' : 's', t, info.predicted_seconds);
            printf("%s %c n=%d: the plan (%.3f ms for the devices alone) overrules the split model "
                   "(share %.4f, %.3f ms)\n", tag, prec ? 'd' : 's', n, info.predicted_seconds * 1e3,
                   mc / n, t * 1e3);
            mc = 0;
        }
        EXPECT(mc == 0 || fabs(info.cpu_fraction - want) < 1e-9,
               "%s %c: the CPU got %.4f of C, the split model chooses %.4f (%.0f of %d rows)", tag,
               prec ? 'd' : 's', info.cpu_fraction, want, mc, n);
        if (mc > 0)
            EXPECT(fabs(info.predicted_seconds - t) <= 1e-9 * t + 1e-15,
                   "%s: predicted %.6g s, the model says %.6g s", tag, info.predicted_seconds, t);
        printf("%s %c n=%d: split model share %.4f (%.3f ms predicted; devices alone %.3f ms), call %.3f ms, "
               "CPU fraction %.4f\n",
               tag, prec ? 'd' : 's', n, mc / n, t * 1e3, t_dev * 1e3, info.seconds * 1e3, info.cpu_fraction);
        /* the result against OpenBLAS */
        double worst = 0;
        if (prec == CHG_F64) {
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A, n, B, n, 0.5, R, n);
            for (size_t i = 0; i < nn; i++) worst = CHG_MAX(worst, fabs(C[i] - R[i]));
        } else {
            cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.5f, rr, n);
            for (size_t i = 0; i < nn; i++) worst = CHG_MAX(worst, fabs((double)c[i] - (double)rr[i]));
        }
        const double tol = (prec == CHG_F64 ? 2.3e-16 : 1.2e-7) * (n + 2) * 4 * (n + 1);
        EXPECT(worst <= tol, "%s %c: result off by %g (tolerance %g)", tag, prec ? 'd' : 's', worst, tol);
        clhgemm_destroy(h);
    }
    free(A);
    free(B);
    free(C);
    free(R);
}

static void cpumodel_file(tc_env_t *env, const chg_device_t *dev, const char *file)
{
    chg_tuning_file_t f;
    char why[512] = "";
    int rc = chg_tuning_file_read(file, &f, why, sizeof why);
    EXPECT(rc == 0, "the tuner's database %s: %s", file, why);
    if (rc) return;
    chg_tuning_record_t *r = chg_tuning_file_find(&f, dev->info.name, dev->info.driver_version);
    EXPECT(r != NULL, "no entry for %s in %s", dev->info.name, file);
    for (int p = 0; r && p < 2; p++) {
        if (p == CHG_F64 && !env->has_fp64) continue;
        const chg_tuning_cpumodel_t *c = &r->cpumodel[p];
        EXPECT(c->present && c->split.gpu.k1 > 0 && c->split.cpu.k1 > 0 && c->cpu_threads >= 1 &&
                   c->samples >= 7 && isfinite(c->mean_rel_err) && c->mean_rel_err >= 0 && c->check_n > 0 &&
                   c->search_evals >= 3 && c->split.h2d_tw > 0 && c->split.d2h_tw > 0,
               "split model of %c incomplete (present %d, samples %d, check n %d, evaluations %d)", p ? 'd' : 's',
               c->present, c->samples, c->check_n, c->search_evals);
        printf("tuned split model %c: gamma %.3f, mean error %.1f%% over %d runs; n=%d model share %.3f vs guided "
               "search %.3f\n",
               p ? 'd' : 's', c->split.gamma, 100 * c->mean_rel_err, c->samples, c->check_n, c->model_share,
               c->search_share);
        if (c->present) auto_uses_model(dev, (chg_precision_t)p, "tuned");
    }
    /* A synthetic model with a known answer: the CPU three times the devices' speed, no
     * transfers, gamma 0: the CPU takes 3/4 of the rows. */
    if (r) {
        for (int p = 0; p < 2; p++) {
            chg_tuning_cpumodel_t *c = &r->cpumodel[p];
            c->present = 1;
            c->split = (chg_split_model_t){.gpu = {3e-10, 0, 0}, .cpu = {1e-10, 0, 0}, .gamma = 0};
            c->cpu_threads = chg_cpu_share_threads_default();
            c->check_n = 256;
        }
        char dir[700], path[800];
        snprintf(dir, sizeof dir, "%s/synthetic", g_tmp);
        snprintf(path, sizeof path, "%s/%s", dir, CHG_TUNING_USER_FILE);
        EXPECT(chg_tuning_file_write(path, &f, why, sizeof why) == 0, "write %s: %s", path, why);
        setenv("CLHGEMM_TUNING_DIR", dir, 1);
        chg_tuning_reload();
        for (int p = 0; p < 2; p++) {
            if (p == CHG_F64 && !env->has_fp64) continue;
            auto_uses_model(dev, (chg_precision_t)p, "synthetic");
        }
    }
    chg_tuning_file_free(&f);
}

/* After clhgemm-tune --trsm wrote file: the exact entry of the device has trsm_nb in each
 * precision timed (one of the candidates, with its size and rate), and the library's TRSM
 * takes it (CLHGEMM_TUNING_DIR is the file's directory) unless CLHGEMM_TRSM_NB is set. */
static void trsm_file(const chg_device_t *dev, const char *file)
{
    chg_tuning_file_t f;
    char why[512] = "";
    EXPECT(chg_tuning_file_read(file, &f, why, sizeof why) == 0, "read %s: %s", file, why);
    const chg_tuning_record_t *r = chg_tuning_file_find(&f, dev->info.name, dev->info.driver_version);
    EXPECT(r != NULL, "no exact entry for %s in %s", dev->info.name, file);
    unsetenv("CLHGEMM_TRSM_NB");
    for (int p = 0; r && p < 2; p++) {
        if (p == CHG_F64 && !(dev->features & CHG_FEAT_FP64)) continue;
        const chg_tuning_prec_t *x = &r->prec[p];
        const int nb = x->trsm_nb;
        EXPECT(x->present && (nb == 128 || nb == 256 || nb == 384 || nb == 512 || nb == 768 ||
                              nb == 1024) && x->trsm_size >= 128 && x->trsm_gflops > 0,
               "%c: trsm_nb %d, size %d, %g GFLOP/s", p ? 'd' : 's', nb, x->trsm_size,
               x->trsm_gflops);
        char src[600] = "";
        const size_t got = chg_trsm_nb(dev, (chg_precision_t)p);
        EXPECT(got == (size_t)nb && chg_tuned_trsm_nb(dev, (chg_precision_t)p, src, sizeof src) == nb &&
                   strstr(src, "exact") && strstr(src, file),
               "%c: the library's nb %zu (%s), the file's %d", p ? 'd' : 's', got, src, nb);
        printf("%ctrsm: nb %d from %s (%.1f GFLOP/s at m = n = %d)\n", p ? 'd' : 's', nb, src,
               x->trsm_gflops, x->trsm_size);
        setenv("CLHGEMM_TRSM_NB", "48", 1);
        EXPECT(chg_trsm_nb(dev, (chg_precision_t)p) == 48, "CLHGEMM_TRSM_NB does not win");
        unsetenv("CLHGEMM_TRSM_NB");
    }
    chg_tuning_file_free(&f);
}

/* After clhgemm-tune --factor wrote file: the exact entry of the device has, in each precision
 * timed, a panel width per factorization (one of the candidates, with the size and a rate),
 * and the factorizations take them (CLHGEMM_TUNING_DIR is the file's directory) unless
 * CLHGEMM_FACTOR_NB is set. */
static void factor_file(const chg_device_t *dev, const char *file)
{
    static const char *const names[] = CHG_TUNING_FACTOR_NAMES;
    chg_tuning_file_t f;
    char why[512] = "";
    EXPECT(chg_tuning_file_read(file, &f, why, sizeof why) == 0, "read %s: %s", file, why);
    const chg_tuning_record_t *r =
        chg_tuning_file_find(&f, dev->info.name, dev->info.driver_version);
    EXPECT(r != NULL, "no exact entry for %s in %s", dev->info.name, file);
    unsetenv("CLHGEMM_FACTOR_NB");
    for (int p = 0; r && p < 2; p++) {
        if (p == CHG_F64 && !(dev->features & CHG_FEAT_FP64)) continue;
        const chg_tuning_prec_t *x = &r->prec[p];
        EXPECT(x->present && x->factor_size >= 256, "%c: factor_size %d", p ? 'd' : 's',
               x->factor_size);
        for (int k = 0; k < CHG_TUNING_FACTOR_KINDS; k++) {
            const int nb = x->factor_nb[k];
            EXPECT((nb == 64 || nb == 96 || nb == 128 || nb == 192 || nb == 256 || nb == 384 ||
                    nb == 512 || nb == 768 || nb == 1024) && 4 * nb <= x->factor_size &&
                       x->factor_gflops[k] > 0,
                   "%c%s: nb %d, %g GFLOP/s", p ? 'd' : 's', names[k], nb, x->factor_gflops[k]);
            char src[600] = "";
            const size_t n = (size_t)x->factor_size;
            const size_t got = fact_nb(dev, (chg_precision_t)p, k, n, 0);
            EXPECT(got == (size_t)nb &&
                       chg_tuned_factor_nb(dev, (chg_precision_t)p, k, src, sizeof src) == nb &&
                       strstr(src, "exact") && strstr(src, file),
                   "%c%s: the library's nb %zu (%s), the file's %d", p ? 'd' : 's', names[k], got,
                   src, nb);
            printf("%c%s: nb %d from %s (%.1f GFLOP/s at n = %d)\n", p ? 'd' : 's', names[k], nb,
                   src, x->factor_gflops[k], x->factor_size);
            setenv("CLHGEMM_FACTOR_NB", "48", 1);
            EXPECT(fact_nb(dev, (chg_precision_t)p, k, n, 0) == 48,
                   "CLHGEMM_FACTOR_NB does not win");
            unsetenv("CLHGEMM_FACTOR_NB");
        }
    }
    chg_tuning_file_free(&f);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "unit";
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(g_tmp, sizeof g_tmp, "%s/clhgemm-test-tuning-XXXXXX", base);
    if (!mkdtemp(g_tmp)) {
        perror("mkdtemp");
        return 1;
    }
    unsetenv("CLHGEMM_TUNING");
    unsetenv("CLHGEMM_GEMM_PARAMS");
    unsetenv("CLHGEMM_SGEMM_PARAMS");
    unsetenv("CLHGEMM_DGEMM_PARAMS");
    int rc = 0;
    if (!strcmp(mode, "unit")) {
        round_trip();
        rejections();
        lookup_levels();
        tuned_cache();
        trsm_nb_precedence();
        factor_nb_precedence();
        warnings();
    } else if (!strcmp(mode, "device") || ((!strcmp(mode, "tuned") || !strcmp(mode, "cpumodel") ||
                                                 !strcmp(mode, "trsm") || !strcmp(mode, "factor") ||
                                                 !strcmp(mode, "cpumodel-guard")) && argc > 2)) {
        g_guard = !strcmp(mode, "cpumodel-guard");
        const int tuned = strcmp(mode, "device") != 0;
        tc_env_t env;
        rc = tc_open(&env);
        if (rc == 0) {
            const chg_device_t *dev = NULL;
            clhgemm_status_t st = chg_queue_device(env.queue, &dev, NULL);
            EXPECT(st == CLHGEMM_SUCCESS, "chg_queue_device: %s", clhgemm_status_string(st));
            if (st == CLHGEMM_SUCCESS && tuned) {
                char dir[600];
                snprintf(dir, sizeof dir, "%s", argv[2]);
                char *slash = strrchr(dir, '/');
                if (slash) *slash = '\0';
                setenv("CLHGEMM_TUNING_DIR", dir, 1);
                chg_tuning_reload();
                if (!strncmp(mode, "cpumodel", 8))
                    cpumodel_file(&env, dev, argv[2]);
                else if (!strcmp(mode, "trsm"))
                    trsm_file(dev, argv[2]);
                else if (!strcmp(mode, "factor"))
                    factor_file(dev, argv[2]);
                else
                    tuned_file(&env, dev, argv[2]);
            } else if (st == CLHGEMM_SUCCESS) {
                device_entry(&env, dev);
            }
            tc_close(&env);
        }
    } else {
        fprintf(stderr, "usage: test_tuning unit | device | tuned FILE | cpumodel[-guard] FILE"
                        " | trsm FILE | factor FILE\n");
        rc = 2;
    }
    rm_rf(g_tmp);
    if (rc) return rc;
    printf("%d checks, %d failed\n", tc_checks(), tc_failures());
    return tc_failures() ? 1 : 0;
}
