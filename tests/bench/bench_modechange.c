/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_modechange.c -- what the mode-change analysis costs
 * (issue 13, "Speed"): one row per run, times only, nothing asserted.
 *
 *   one  MODEL N equations change seconds_per_change status instants
 *        (mc_change, median of repetitions; with and without the impulse
 *        analysis)
 *   all  MODEL N valid_modes pairs seconds method   (mc_all_enumerate)
 *   all  MODEL N ... refused                       (past the enumeration's
 *        reach)
 *   first MODEL N pairs seconds cold ratio classes   (mc_first_instants: the
 *        first instant of every change on BDDs, in CPU seconds, the fastest
 *        of 3 runs when one takes under a second and of 15 under 0.1 s,
 *        beside the cold all-modes analysis of the same model, the fastest
 *        of 5 or 15, and the ratio)
 *   erasures MODEL N pairs seconds cold ratio rows  (the same with which
 *        equations each first instant erases: mc_options.first_erasures)
 *   whole MODEL N pairs seconds cold ratio counts (and every later instant:
 *        mc_options.first_later; `--first --instants`, issue 41's row: within
 *        10x the cold analysis)
 *   instants MODEL N later seconds cold ratio rows (the same run: every
 *        instant's erasures and restart systems as sets of pairs,
 *        mc_first.later; issue 41's row: within 20x)
 *   impulses MODEL N later seconds cold ratio classes (and every instant's
 *        impulse orders as classes of pairs: mc_options.first_impulses,
 *        issue 41 item 7)
 *
 * Usage: bench_modechange [--n-one N] [--n-all LIST] [--n-first LIST]
 *        [--first-model brake|building_compressible] [--phases] [--max-seconds S]
 * (--max-seconds: each first/erasures/whole run is cancelled past S
 * seconds, 60 by default, and its row says so.)
 * See tests/bench/README.md for measured numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_floor.h"
#include "bench_run.h"
#include "mc.h"
#include "mdae.h"
#include "mel.h"
#include "sa.h"


static mel_model *load(const char *name, long long n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/models/%s.mel", MDAE_SOURCE_DIR, name);
    size_t len;
    char *text = bench_slurp(path, &len);
    if (text == NULL)
        return NULL;
    mel_define def = {"N", n};
    mel_options opt;
    memset(&opt, 0, sizeof opt);
    opt.defines = &def;
    opt.n_defines = 1;
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    int rc = mel_model_parse(text, len, &opt, &m, &d);
    mdae_diags_close(&d);
    free(text);
    return rc == MDAE_OK ? m : NULL;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median seconds of mc_change over reps runs. */
static double time_change(const mel_model *m, const bool *from, const bool *to,
                          const mc_options *opt, int reps, mc_status *st, uint32_t *k)
{
    double *t = calloc((size_t)reps, sizeof *t);
    for (int r = 0; r < reps; r++) {
        mc_result *res = NULL;
        sa_forget_caches(); /* the same change again: nothing cached */
        double t0 = bench_now();
        int rc = mc_change(m, from, to, opt, &res, NULL, 0);
        t[r] = bench_now() - t0;
        if (rc != MDAE_OK) {
            free(t);
            return -1;
        }
        *st = res->status;
        *k = res->n_instants;
        mc_result_free(res);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_d);
    double med = t[reps / 2];
    free(t);
    return med;
}

static void one(const char *model, long long n, const char *label, const bool *from,
                const bool *to, const mel_model *m)
{
    mc_options skip = {.skip_impulses = true};
    mc_status st = MC_CONTINUOUS;
    uint32_t k = 0;
    double full = time_change(m, from, to, NULL, 21, &st, &k);
    double bare = time_change(m, from, to, &skip, 21, &st, &k);
    printf("one %-26s N=%-4lld %5u eqs  %-22s %9.6f s  (%9.6f s without impulses)  %s, %u "
           "instant%s\n", model, n, m->n_equations, label, full, bare, mc_status_name(st), k,
           k == 1 ? "" : "s");
}

static void ones(long long n)
{
    mel_model *m = load("brake", n);
    if (m == NULL) {
        printf("one brake N=%lld: cannot load\n", n);
        return;
    }
    bool *from = calloc(m->n_modes + 1, 1), *to = calloc(m->n_modes + 1, 1);
    to[0] = true; /* the first valve opens */
    one("brake", n, "open[1]: 0->1", from, to, m);
    one("brake", n, "open[1]: 1->0", to, from, m);
    for (uint32_t k = 0; k < m->n_modes; k += 2)
        to[k] = true; /* half the valves open at once */
    one("brake", n, "every other: 0->1", from, to, m);
    printf("floor brake N=%lld: one single-mode analysis %.6f s\n", n, bench_floor(m));
    free(from);
    free(to);
    mel_model_free(m);
}

static void all(const char *model, long long n)
{
    mel_model *m = load(model, n);
    if (m == NULL) {
        printf("all %-26s N=%-4lld cannot load\n", model, n);
        return;
    }
    char why[256] = "";
    mc_all *a = NULL;
    double t0 = bench_now();
    int rc = mc_all_enumerate(m, MC_ALL_MAX_PAIRS, &a, why, sizeof why);
    double t = bench_now() - t0;
    if (rc == MDAE_OK)
        printf("all %-26s N=%-4lld %6u valid modes %8zu pairs %9.3f s  method %s "
               "(%zu continuous, %zu reset, %zu rejected)\n",
               model, n, a->valid_modes, a->n_pairs, t, a->method, a->counts[MC_CONTINUOUS],
               a->counts[MC_RESET], a->counts[MC_REJECTED]);
    else
        printf("all %-26s N=%-4lld refused: %s\n", model, n, why);
    mc_all_free(a);
    mel_model_free(m);
}

/* --phases: the time of each phase of the analyses on stderr;
 * --max-seconds: the budget of each run (cancelled past it). */
static bool show_phases;
static double max_seconds = 60;

/* One run of mc_first_instants (phases shown if asked and `show`). */
static mc_first *run_first(const mel_model *m, const mc_options *mopt, char *why,
                           size_t why_len, int *rc, double *t, bool show)
{
    mc_first *f = NULL;
    sa_forget_caches(); /* the same run again: nothing cached */
    double t0 = bench_now(), c0 = bench_cpu_now();
    bench_phases pc = {NULL, t0, t0 + max_seconds, !show};
    sa_options so = {.progress = bench_on_phase, .progress_ctx = &pc};
    *rc = mc_first_instants(m, &so, mopt, &f, why, why_len);
    *t = bench_cpu_now() - c0;
    if (show && pc.phase != NULL)
        fprintf(stderr, "    %-12s %8.4f s (and what follows it)\n", pc.phase,
                bench_now() - pc.last);
    return f;
}

/* mc_first_instants of m with mopt, its code in *rc and its CPU time in
 * *t, cancelled after max_seconds (wall); the result or NULL. A run under
 * a second is the fastest of 3, under 0.1 s of 15, as the cold analysis
 * beside it (before 2026-11-26, third stop: one run, whose collections of
 * garbage made the ratios jump by a tenth from run to run; before
 * 2026-12-03, wall time and 3 runs: the brake at N = 100's 3 ms cold
 * analysis put its ratios anywhere from 7 to 11 on an idle machine). */
static mc_first *timed_first(const mel_model *m, const mc_options *mopt, char *why,
                             size_t why_len, int *rc, double *t)
{
    mc_first *f = run_first(m, mopt, why, why_len, rc, t, show_phases);
    int runs = *t < 0.1 ? 15 : 3;
    for (int k = 1; k < runs && *rc == MDAE_OK && *t < 1.0; k++) {
        double tk;
        int rk;
        mc_first *g = run_first(m, mopt, why, why_len, &rk, &tk, false);
        if (rk == MDAE_OK && tk < *t)
            *t = tk;
        mc_first_free(g);
    }
    return f;
}

/* Why a row has no figure: the engine's reason, or its code. */
static const char *why_not(int rc, const char *computed_why, const char *why)
{
    if (rc == MDAE_E_CANCELED)
        return "over --max-seconds";
    if (rc == MDAE_OK)
        return computed_why;
    return why[0] != '\0' ? why : mdae_err_name(rc);
}

static void first(const char *model, long long n)
{
    mel_model *m = load(model, n);
    if (m == NULL) {
        printf("first %-24s N=%-4lld cannot load\n", model, n);
        return;
    }
    /* cold: the fastest of 5 analyses in CPU time, 15 under 0.1 s (the
     * first pays the manager's warm-up), so that the ratios are the
     * harshest */
    double cold = 1e30, t;
    int rc = MDAE_OK;
    for (int k = 0; k < (cold < 0.1 ? 15 : 5) && rc == MDAE_OK; k++) {
        sa_forget_caches(); /* the same analysis again: nothing cached */
        double t0 = bench_cpu_now();
        sa_result *res = NULL;
        rc = sa_analyze(m, NULL, &res, NULL);
        double tk = bench_cpu_now() - t0;
        cold = tk < cold ? tk : cold;
        sa_result_free(res);
    }
    mc_options mopt = {.ignore_guard_fixpoints = true};
    char why[256] = "";
    mc_first *f = rc == MDAE_OK ? timed_first(m, &mopt, why, sizeof why, &rc, &t) : NULL;
    if (rc == MDAE_OK)
        printf("first %-24s N=%-4lld %10.4g pairs %9.3f s  cold %8.3f s  ratio %6.1f  "
               "(%.4g continuous, %.4g restart, %.4g rejected at the first instant)\n",
               model, n, f->pairs, t, cold, t / cold, f->counts[0], f->counts[1], f->counts[2]);
    else
        printf("first %-24s N=%-4lld not computed: %s\n", model, n, why_not(rc, "", why));
    mc_first_free(f);
    if (rc != MDAE_OK) {
        mel_model_free(m);
        return;
    }
    /* The same with the erased equations of every pair (--erasures). */
    mopt.first_erasures = true;
    f = timed_first(m, &mopt, why, sizeof why, &rc, &t);
    if (rc == MDAE_OK && f->erasures_computed)
        printf("erasures %-21s N=%-4lld %10.4g pairs %9.3f s  cold %8.3f s  ratio %6.1f  "
               "(%zu rows erased in some pair)\n",
               model, n, f->pairs, t, cold, t / cold, f->n_erasures);
    else
        printf("erasures %-21s N=%-4lld not computed after %.3f s: %s\n", model, n, t,
               why_not(rc, rc == MDAE_OK ? f->erasures_why : "", why));
    mc_first_free(f);
    /* And every later instant (--instants). */
    mopt.first_later = true;
    f = timed_first(m, &mopt, why, sizeof why, &rc, &t);
    if (rc == MDAE_OK && f->later_computed)
        printf("whole %-24s N=%-4lld %10.4g pairs %9.3f s  cold %8.3f s  ratio %6.1f  "
               "(%.4g continuous, %.4g reset, %.4g rejected; %zu outcomes)\n",
               model, n, f->pairs, t, cold, t / cold, f->status_counts[MC_CONTINUOUS],
               f->status_counts[MC_RESET], f->status_counts[MC_REJECTED], f->n_outcomes);
    if (rc == MDAE_OK && f->later_computed) {
        size_t erased = f->n_erasures, kept = 0;
        for (size_t k = 0; k < f->n_later; k++) {
            erased += f->later[k].n_erasures;
            kept += f->later[k].n_rows;
        }
        printf("instants %-21s N=%-4lld %10zu later %9.3f s  cold %8.3f s  ratio %6.1f  "
               "(every instant's erasures: %zu rows erased in some pair; later restart "
               "systems: %zu rows)\n",
               model, n, f->n_later, t, cold, t / cold, erased, kept);
    } else
        printf("whole %-24s N=%-4lld not computed after %.3f s: %s\n", model, n, t,
               why_not(rc, rc == MDAE_OK ? f->later_why : "", why));
    mc_first_free(f);
    /* And the impulse orders of every instant as classes of pairs. */
    mopt.first_impulses = true;
    f = timed_first(m, &mopt, why, sizeof why, &rc, &t);
    if (rc == MDAE_OK && f->later_computed) {
        size_t classes = f->n_impulses, stopped = !f->impulses_computed && f->counts[1] > 0;
        for (size_t k = 0; k < f->n_later; k++) {
            classes += f->later[k].n_impulses;
            stopped += !f->later[k].impulses_computed;
        }
        printf("impulses %-21s N=%-4lld %10zu later %9.3f s  cold %8.3f s  ratio %6.1f  "
               "(%zu classes of impulse orders; %zu instant%s stopped by a limit%s%.120s)\n",
               model, n, f->n_later, t, cold, t / cold, classes, stopped,
               stopped == 1 ? "" : "s", stopped ? ": " : "",
               stopped ? (f->impulses_why != NULL ? f->impulses_why : "a later instant") : "");
    } else
        printf("impulses %-21s N=%-4lld not computed after %.3f s: %s\n", model, n, t,
               why_not(rc, rc == MDAE_OK ? f->later_why : "", why));
    mc_first_free(f);
    mel_model_free(m);
}

int main(int argc, char **argv)
{
    long long n_one = 100;
    const char *n_all = "3,5,7,10,20,50", *n_first = "3,5,10,20,50", *first_only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--n-one") == 0 && i + 1 < argc)
            n_one = atoll(argv[++i]);
        else if (strcmp(argv[i], "--n-all") == 0 && i + 1 < argc)
            n_all = argv[++i];
        else if (strcmp(argv[i], "--n-first") == 0 && i + 1 < argc)
            n_first = argv[++i];
        else if (strcmp(argv[i], "--first-model") == 0 && i + 1 < argc)
            first_only = argv[++i];
        else if (strcmp(argv[i], "--phases") == 0)
            show_phases = true;
        else if (strcmp(argv[i], "--max-seconds") == 0 && i + 1 < argc)
            max_seconds = atof(argv[++i]);
        else {
            fprintf(stderr,
                    "usage: bench_modechange [--n-one N] [--n-all LIST] [--n-first LIST] "
                    "[--first-model brake|building_compressible] [--phases] "
                    "[--max-seconds S]\n");
            return 2;
        }
    }
    if (sa_begin(NULL) != MDAE_OK)
        return 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    char *fl = strdup(n_first);
    for (char *tok = strtok(fl, ","); tok != NULL; tok = strtok(NULL, ",")) {
        if (first_only == NULL || strcmp(first_only, "brake") == 0)
            first("brake", atoll(tok));
        if (first_only == NULL || strcmp(first_only, "building_compressible") == 0)
            first("building_compressible", atoll(tok));
    }
    free(fl);
    ones(n_one);
    char *list = strdup(n_all);
    for (char *tok = strtok(list, ","); tok != NULL; tok = strtok(NULL, ",")) {
        all("brake", atoll(tok));
        all("building_compressible", atoll(tok));
    }
    free(list);
    sa_end();
    return 0;
}
