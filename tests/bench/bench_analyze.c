/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_analyze.c -- how the implicit engine scales: analyse the
 * parameterised model families of tests/models for growing N and print one
 * row per run:
 *
 *   model N equations modes_log10 seconds peak_nodes status
 *
 * Usage: bench_analyze [--model NAME] [--max-seconds S] [--n LIST] [--phases]
 *   --model   one family (building_compressible, building_incompressible,
 *             brake, rldc_chain); default: all
 *   --n       comma-separated N values; default: a growing series
 *   --max-seconds  per-run budget (default 10): a family stops growing after
 *             a run that exceeds it (the run is cancelled at 3x the budget)
 *   --phases  also print the time spent in each phase of each run (stderr)
 *   --order   cm: rows in Cuthill-McKee order instead of declaration order
 *   --reorder sift once after building X (sa_config.dynamic_reorder)
 *   --report  also time sa_result_report (stderr)
 *   --nodes N initial node table (sa_config.initial_nodes)
 *   --frontend R  also time the front-end (stderr): R parses with the
 *             expressions kept and R without (mel_options.no_expressions),
 *             alternated; medians per parse, the difference, and its share
 *             of the complete analysis (front-end + sa_analyze); issue 38
 * Times cover sa_analyze only (not the report, whose cube lists can be
 * exponential, see sa.h).
 * See tests/bench/README.md for measured numbers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fx.h"
#include "mdae.h"
#include "mel.h"
#include "sa.h"
#include "bench_run.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct prog {
    double start, last, limit;
    const char *phase;
    bool phases;
} prog;

static int on_progress(void *ctx, const char *phase, size_t done, size_t total)
{
    prog *p = ctx;
    double t = now();
    if (p->phases && (p->phase == NULL || strcmp(p->phase, phase) != 0)) {
        if (p->phase != NULL)
            fprintf(stderr, "    %-12s %8.3f s\n", p->phase, t - p->last);
        p->phase = phase;
        p->last = t;
    }
    (void)done;
    (void)total;
    return p->limit > 0 && t - p->start > p->limit;
}


/* One run; returns the wall time, or -1 on error. */
static bool with_report;
static int frontend_runs; /* --frontend */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median seconds of frontend_runs parses of text, with and without the
 * expressions, alternated (so that the machine's load hits both alike);
 * false if a parse fails. */
static bool time_frontend(const char *text, size_t len, const mel_options *base, double *with,
                          double *without)
{
    int r = frontend_runs;
    double *t = malloc(2 * (size_t)r * sizeof *t);
    if (t == NULL)
        return false;
    bool ok = true;
    for (int k = 0; k < 2 * r && ok; k++) {
        mel_options o = *base;
        o.no_expressions = k % 2 == 1;
        mel_model *m = NULL;
        double t0 = now();
        ok = mel_model_parse(text, len, &o, &m, NULL) == MDAE_OK;
        t[(k % 2) * r + k / 2] = now() - t0;
        mel_model_free(m);
    }
    qsort(t, (size_t)r, sizeof *t, cmp_double);
    qsort(t + r, (size_t)r, sizeof *t, cmp_double);
    *with = t[r / 2];
    *without = t[r + r / 2];
    free(t);
    return ok;
}

static double run(const char *model, long n, double budget, bool phases)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/models/%s.mel", MDAE_SOURCE_DIR, model);
    size_t len;
    char *text = bench_slurp(path, &len);
    if (text == NULL) {
        fprintf(stderr, "cannot read %s\n", path);
        return -1;
    }
    mel_define def = {"N", n};
    mel_options o = {.defines = &def, .n_defines = 1};
    mel_model *m = NULL;
    mdae_diags d;
    mdae_diags_init(&d);
    double fe_with = 0, fe_without = 0;
    if (frontend_runs > 0 && !time_frontend(text, len, &o, &fe_with, &fe_without))
        frontend_runs = -1; /* reported below with the parse's own error */
    int rc = mel_model_parse(text, len, &o, &m, &d);
    free(text);
    if (rc != MDAE_OK) {
        printf("%s %ld - - - - parse:%s\n", model, n, mdae_err_name(rc));
        mdae_diags_close(&d);
        return -1;
    }
    prog p = {now(), now(), budget * 3, NULL, phases};
    sa_options so = {.progress = on_progress, .progress_ctx = &p};
    sa_result *r = NULL;
    double t0 = now();
    rc = sa_analyze(m, &so, &r, &d);
    double t = now() - t0;
    if (phases && p.phase != NULL)
        fprintf(stderr, "    %-12s %8.3f s\n", p.phase, now() - p.last);
    const char *status = mdae_err_name(rc);
    double modes = ldexp(1.0, (int)m->n_modes);
    if (rc == MDAE_OK) {
        modes = sa_result_valid_modes(r);
        status = sa_result_singular(r) ? "singular" : "nonsingular";
    }
    if (with_report && rc == MDAE_OK) {
        sa_report *rep = NULL;
        double t1 = now();
        int rr = sa_result_report(r, &rep);
        if (rr == MDAE_E_LIMIT) {
            sa_report_free(rep);
            rep = NULL;
            rr = sa_result_report_ex(r, SA_REPORT_VALID_CARE, &rep);
        }
        fprintf(stderr, "    report       %8.3f s (%s)\n", now() - t1, mdae_err_name(rr));
        sa_report_free(rep);
    }
    if (frontend_runs > 0)
        fprintf(stderr, "    front-end    %8.1f us with expressions, %8.1f us without: "
                        "+%.1f us (+%.1f %% of the front-end, +%.1f %% of front-end + "
                        "analysis %.1f us); pool %zu bytes\n",
                1e6 * fe_with, 1e6 * fe_without, 1e6 * (fe_with - fe_without),
                100 * (fe_with - fe_without) / fe_without,
                100 * (fe_with - fe_without) / (fe_without + t), 1e6 * (fe_without + t),
                fx_pool_bytes(mel_model_exprs(m)));
    printf("%s %ld %u %.2f %.3f %zu %s\n", model, n, m->n_equations,
           modes > 0 ? log10(modes) : 0.0, t, sa_result_peak_nodes(r), status);
    fflush(stdout);
    sa_result_free(r);
    mel_model_free(m);
    mdae_diags_close(&d);
    return rc == MDAE_OK ? t : t + 1e9;
}

int main(int argc, char **argv)
{
    const char *only = NULL, *list = NULL;
    double budget = 10;
    bool phases = false, cm = false, reorder = false;
    size_t init_nodes = 0;
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--model") && k + 1 < argc)
            only = argv[++k];
        else if (!strcmp(argv[k], "--max-seconds") && k + 1 < argc)
            budget = atof(argv[++k]);
        else if (!strcmp(argv[k], "--n") && k + 1 < argc)
            list = argv[++k];
        else if (!strcmp(argv[k], "--phases"))
            phases = true;
        else if (!strcmp(argv[k], "--nodes") && k + 1 < argc)
            init_nodes = (size_t)atol(argv[++k]);
        else if (!strcmp(argv[k], "--frontend") && k + 1 < argc)
            frontend_runs = atoi(argv[++k]);
        else if (!strcmp(argv[k], "--report"))
            with_report = true;
        else if (!strcmp(argv[k], "--reorder"))
            reorder = true;
        else if (!strcmp(argv[k], "--order") && k + 1 < argc)
            cm = !strcmp(argv[++k], "cm");
        else {
            fprintf(stderr, "usage: %s [--model NAME] [--max-seconds S] [--n LIST] [--phases] [--order cm] [--reorder] [--report] [--nodes N] [--frontend R]\n",
                    argv[0]);
            return 2;
        }
    }
    static const char *families[] = {"building_compressible", "building_incompressible",
                                     "brake", "rldc_chain"};
    static const long series[] = {1, 2, 3, 5, 7, 10, 14, 20, 28, 40, 50, 70, 100, 140, 200};
    sa_config cfg;
    sa_config_default(&cfg);
    cfg.order = cm ? SA_ORDER_CUTHILL_MCKEE : SA_ORDER_AUTO;
    cfg.dynamic_reorder = reorder;
    cfg.initial_nodes = init_nodes;
    if (sa_begin(&cfg) != MDAE_OK)
        return 1;
    printf("model N equations modes_log10 seconds peak_nodes status\n");
    for (size_t f = 0; f < 4; f++) {
        if (only && strcmp(only, families[f]) != 0)
            continue;
        if (list) {
            for (const char *p = list; *p;) {
                long n = strtol(p, NULL, 10);
                run(families[f], n, budget, phases);
                p += strcspn(p, ",");
                p += *p == ',';
            }
            continue;
        }
        for (size_t k = 0; k < sizeof series / sizeof *series; k++) {
            double t = run(families[f], series[k], budget, phases);
            if (t < 0 || t > budget)
                break;
        }
    }
    sa_end();
    return 0;
}
