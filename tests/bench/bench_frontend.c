/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_frontend.c -- what keeping the equations' expressions
 * costs (issue 38, "Speed"): every figure is taken twice in the same run,
 * with the expressions (the default) and without them
 * (mel_options.no_expressions, the structure only: the front-ends as they
 * were before, until the structure came to be read from the expressions,
 * which no_expressions now builds and drops: compare two binaries
 * instead), the two alternated, each the best of R runs (more for a
 * figure under a millisecond: run_pair); the ratio
 * with / without is printed, not asserted (the machine is shared).
 *
 * Rows:
 *   msl    the Base Modelica models of ../shared/msl (*.bmo, *.mo):
 *          mo_model_parse's time per model; the row gives the median of the
 *          times with and without, and the median (and 90th percentile) of
 *          the per-model ratios. --each also prints one row per model.
 *   brake  tests/models/brake.mel with -D N=100 (as bench_analyze and
 *          bench_singular read it): the front-end alone (mel_model_parse)
 *          and the complete analysis (the parse, then sa_analyze, as
 *          bench_analyze times it), for the sound model and beside it
 *          the other cases the front-end meets: one equation of the chain
 *          removed at its middle and one added there (singular; the edits
 *          of bench_singular.c), and a half-typed equation appended,
 *          parsed with recover (brake_edited);
 *          and for each case, the front-end's difference with / without
 *          as a share of the complete analysis without (the complete
 *          analysis's own ratio is at the mercy of the machine's noise).
 *
 * Usage: bench_frontend [--msl DIR] [--n N] [--repeat R] [--budget S] [--each]
 *   defaults: DIR = ../shared/msl beside the source tree, N = 100, R = 7,
 *   S = 60 (an analysis over S seconds is cancelled, printed as such).
 * Output (tab-separated): row case with_s without_s ratio status; the
 * seconds are the thread's CPU time (cpu_now).
 * See tests/bench/README.md for measured numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_run.h"
#include "dir_list.h"
#include "mo.h"

typedef int (*parse_fn)(const char *text, size_t len, const mel_options *opt, mel_model **out,
                        mdae_diags *diags);

/* One thing to time: a parse of text, and the analysis after it when
 * `complete`. */
typedef struct job {
    parse_fn parse;
    const char *text;
    size_t len;
    mel_options opt;
    bool complete;
    double budget;
} job;

/* What one run gave. */
typedef struct outcome {
    double seconds; /* -1: failed (rc) */
    int rc;
    bool singular;
} outcome;

/* This thread's CPU seconds: the figures are CPU time, not wall time, so
 * that the other builds on a shared machine (load 5 to 13 on two cores)
 * count less; the deadline of an analysis is on the wall clock. */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static outcome run_once(const job *j, bool exprs)
{
    outcome o = {-1, MDAE_OK, false};
    mel_options opt = j->opt;
    opt.no_expressions = !exprs;
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    sa_result *r = NULL;
    double t0 = cpu_now();
    o.rc = j->parse(j->text, j->len, &opt, &m, &d);
    if (o.rc == MDAE_OK && j->complete) {
        bench_deadline dl = {bench_now() + j->budget};
        sa_options so = {.progress = bench_past_deadline, .progress_ctx = &dl};
        o.rc = sa_analyze(m, &so, &r, &d);
    }
    double t = cpu_now() - t0;
    if (o.rc == MDAE_OK) {
        o.seconds = t;
        o.singular = r != NULL && sa_result_singular(r);
    }
    sa_result_free(r);
    mel_model_free(m);
    mdae_diags_close(&d);
    return o;
}

/* The best of at least `repeat` runs with expressions (*with) and
 * without (*without), alternated so that both see the same machine; more
 * runs (up to 100 times as many) while they took under MIN_SECONDS in all,
 * so that a figure of a fraction of a millisecond is the best of many. */
#define MIN_SECONDS 0.2
static void run_pair(const job *j, int repeat, outcome *with, outcome *without)
{
    *with = *without = (outcome){-1, MDAE_OK, false};
    double t0 = bench_now();
    for (int k = 0; k < repeat || (k < 100 * repeat && bench_now() - t0 < MIN_SECONDS); k++) {
        for (int e = 0; e < 2; e++) {
            bool exprs = (k + e) % 2 == 0; /* with first, then without first */
            outcome o = run_once(j, exprs);
            outcome *best = exprs ? with : without;
            if (o.seconds < 0)
                best->rc = o.rc;
            else if (best->seconds < 0 || o.seconds < best->seconds)
                *best = o;
        }
    }
}

static void print_pair(const char *row, const char *what, const outcome *with,
                       const outcome *without)
{
    if (with->seconds < 0 || without->seconds < 0) {
        printf("%s\t%s\t-\t-\t-\t%s/%s\n", row, what, mdae_err_name(with->rc),
               mdae_err_name(without->rc));
    } else {
        printf("%s\t%s\t%.5f\t%.5f\t%.3f\t%s\n", row, what, with->seconds, without->seconds,
               with->seconds / without->seconds, with->singular ? "singular" : "ok");
    }
    fflush(stdout);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile (0..1) of v[0 .. n), sorting v; n > 0. */
static double quantile(double *v, size_t n, double q)
{
    qsort(v, n, sizeof *v, cmp_double);
    return v[(size_t)(q * (double)(n - 1) + 0.5)];
}

/* Row msl: the median front-end time over the folder's models. */
static void bench_msl(const char *dir, int repeat, bool each)
{
    static const char *const modelica[] = {".bmo", ".mo"};
    size_t n = 0;
    char **names = dir_list(dir, modelica, 2, &n);
    if (names == NULL || n == 0) {
        printf("msl\t%s\tcannot read the models\n", dir);
        free(names);
        return;
    }
    double *with = malloc(n * sizeof *with), *without = malloc(n * sizeof *without);
    double *ratio = malloc(n * sizeof *ratio);
    double sum_with = 0, sum_without = 0;
    size_t ok = 0;
    for (size_t k = 0; k < n && with != NULL && without != NULL && ratio != NULL; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        size_t len = 0;
        char *text = bench_slurp(path, &len);
        if (text == NULL)
            continue;
        job j = {mo_model_parse, text, len, {0}, false, 0};
        if (k == 0) /* warm up (see bench_brake) */
            for (int e = 0; e < 4; e++)
                (void)run_once(&j, e % 2 == 0);
        outcome w, wo;
        run_pair(&j, repeat, &w, &wo);
        free(text);
        if (each)
            print_pair("msl_model", names[k], &w, &wo);
        if (w.seconds < 0 || wo.seconds < 0)
            continue;
        with[ok] = w.seconds;
        without[ok] = wo.seconds;
        ratio[ok] = w.seconds / wo.seconds;
        sum_with += w.seconds;
        sum_without += wo.seconds;
        ok++;
    }
    if (ok > 0) {
        double med_with = quantile(with, ok, 0.5), med_without = quantile(without, ok, 0.5);
        char what[128];
        snprintf(what, sizeof what, "median_time_%zu_of_%zu_models", ok, n);
        printf("msl\t%s\t%.5f\t%.5f\t%.3f\tok\n", what, med_with, med_without,
               med_with / med_without);
        printf("msl\ttotal_time\t%.4f\t%.4f\t%.3f\tok\n", sum_with, sum_without,
               sum_with / sum_without);
        double med_ratio = quantile(ratio, ok, 0.5), p90 = quantile(ratio, ok, 0.9);
        printf("msl\tmedian_ratio\t-\t-\t%.3f\tok\n", med_ratio);
        printf("msl\tp90_ratio\t-\t-\t%.3f\tok\n", p90);
    } else {
        printf("msl\t%s\tno model parsed\n", dir);
    }
    fflush(stdout);
    free(with);
    free(without);
    free(ratio);
    for (size_t k = 0; k < n; k++)
        free(names[k]);
    free(names);
}

/* The brake's edits: one equation of its loop left out, or one added, at
 * the middle of the chain, as bench_singular.c edits it (both singular);
 * or a half-typed equation appended (`half : equation x[1] +`, the state of
 * a file while its author types a new line), which recovery (mel.h,
 * "Recovery") leaves out. (Typed into the loop instead, it takes the next
 * line with it in every railcar: the analysis of that singular model took
 * 9-14 s, against 5 ms for the sound one, 2026-12-02.) */
typedef enum brake_edit { REMOVED, ADDED, HALF_TYPED } brake_edit;

/* The brake's text with edit `how`, malloc'd, or NULL. */
static char *brake_edited(const char *text, brake_edit how)
{
    if (how == REMOVED)
        return bench_chain_removed(text, "fel", "i", "(N + 1) / 2");
    return bench_appended(text, how == ADDED ? "xtra : equation x[(N + 1) / 2] = 0;"
                                             : "half : equation x[1] +");
}

/* Rows brake: the front-end and the complete analysis, each case. */
static void bench_brake(long n, int repeat, double budget)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/models/brake.mel", MDAE_SOURCE_DIR);
    char *text = bench_slurp(path, NULL);
    if (text == NULL) {
        printf("brake\tcannot read %s\n", path);
        return;
    }
    char *removed = brake_edited(text, REMOVED), *added = brake_edited(text, ADDED);
    char *half = brake_edited(text, HALF_TYPED);
    struct {
        const char *name;
        const char *text;
        bool recover;
    } cases[] = {
        {"sound", text, false},
        {"removed_middle", removed, false},
        {"added_middle", added, false},
        {"half_typed_recover", half, true},
    };
    mel_define def = {"N", n};
    /* The process's first parses and analyses are slower (the allocator's
     * and BuDDy's tables grow): twice as long for the first case measured */
    for (int e = 0; e < 4; e++) {
        job warm = {mel_model_parse, text, strlen(text), {.defines = &def, .n_defines = 1},
                    true, budget};
        (void)run_once(&warm, e % 2 == 0);
    }
    char row[64];
    snprintf(row, sizeof row, "brake_N=%ld", n);
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        if (cases[k].text == NULL) {
            printf("%s\t%s\tcannot edit the text\n", row, cases[k].name);
            continue;
        }
        outcome w[2], wo[2]; /* [0] the front-end, [1] the complete analysis */
        for (int complete = 0; complete < 2; complete++) {
            job j = {mel_model_parse, cases[k].text, strlen(cases[k].text),
                     {.defines = &def, .n_defines = 1, .recover = cases[k].recover},
                     complete == 1, budget};
            run_pair(&j, repeat, &w[complete], &wo[complete]);
            char what[96];
            snprintf(what, sizeof what, "%s_%s", cases[k].name,
                     complete ? "complete_analysis" : "front_end");
            print_pair(row, what, &w[complete], &wo[complete]);
        }
        /* What the expressions add, as a share of the complete analysis
         * without them: the front-end's difference, measured more
         * precisely than the complete analysis's (its ratio is within the
         * machine's noise) */
        if (w[0].seconds >= 0 && wo[0].seconds >= 0 && wo[1].seconds > 0)
            printf("%s\t%s_expressions_share_of_complete\t-\t-\t%.3f\tok\n", row,
                   cases[k].name, (w[0].seconds - wo[0].seconds) / wo[1].seconds);
    }
    free(removed);
    free(added);
    free(half);
    free(text);
}

int main(int argc, char **argv)
{
    const char *msl = MDAE_SOURCE_DIR "/../shared/msl";
    bench_size_opts o = {.n = 100, .repeat = 7, .budget = 60};
    bool each = false;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--msl") && a + 1 < argc)
            msl = argv[++a];
        else if (bench_size_opt(argc, argv, &a, &o))
            continue;
        else if (!strcmp(argv[a], "--each"))
            each = true;
        else {
            fprintf(stderr, "usage: bench_frontend [--msl DIR] [--n N] [--repeat R] "
                            "[--budget S] [--each]\n");
            return 2;
        }
    }
    if (!bench_begin())
        return 1;
    printf("row\tcase\twith_s\twithout_s\tratio\tstatus\n");
    bench_msl(msl, o.repeat < 1 ? 1 : o.repeat, each);
    bench_brake(o.n, o.repeat < 1 ? 1 : o.repeat, o.budget);
    sa_end();
    return 0;
}
