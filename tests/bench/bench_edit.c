/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_edit.c -- re-analysis after an edit through the
 * incremental session (engine/inc.h), against the cold analysis (issue 6,
 * "Speed"): compressible building N = 20, 40 and brake N = 50, 100.
 *
 * Per model: the cold time (fresh session: split, sa_analyze, cdg_build),
 * then, in the same session, each edit applied to the original text and
 * re-analysed: (a) one equation instance in the middle of the chain gets a
 * different incidence (a derivative where there was none), (b) one guard
 * instance in the middle is flipped, (c) N + 1, (s) the same text again
 * (the cache alone); after (a) and (b), "next": the same edit on the next
 * instance, seeded by the first (the first undone, the second made, as an
 * editor's session goes on). Each row prints the time, the ratio to cold and the
 * parts reused / recomputed. before_s and before_ratio: the same edit in a
 * second session with the hint's tight graphs off (sa_options.seeded =
 * SA_SEEDED_OFF: the seeded costs of the implicit primal only, as before
 * issue 16), timed alternately with it, and its ratio to its own cold run.
 *
 * Honest note: the building and the brake are ONE connected component each
 * (the corridor / brake line chains every room / car), so component reuse
 * alone cannot make (a)-(c) cheap: only (s) and edits that keep the
 * structure are. What makes (a)-(c) cheaper is the seed: the previous
 * version's offsets (sa_options.hint, engine/sa_primal.c).
 *
 * Runs with the glibc tunables of mdaed's workers (as_a_worker, below).
 *
 * Each session parses a version with the model of the version it analysed
 * before as mel_options.since (issue 40 item 3: the equations the edit
 * left alone share their sides with it), as an editor's worker would.
 *
 * Usage: bench_edit [--phases] [--reps R] [--n 50,100] [--no-before] [--no-since] [building|brake] (default both)
 *   --n: the brake's sizes (default 50,100; at most 8)
 *   --no-before: without the before_s columns (the session with the hint's
 *             tight graphs off: minutes per edit at N = 1,000)
 *   --no-since: parse every version cold (no mel_options.since)
 *   --phases: also the time of each analysis phase of each run (stderr)
 *   --reps R: each row is the median of R runs (default 5), every edit run
 *             from the original text analysed just before it
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_floor.h"
#include "bench_run.h"
#include "inc.h"
#include "mel.h"
#include "sa.h"

static bool show_phases;

/* --no-before: no second session with the hint's tight graphs off (its
 * edits of the brake at N = 1,000 take minutes); its columns print 0. */
static bool with_before = true;

/* --no-since: every parse cold, without the previous version's model. */
static bool with_since = true;

/* The model each session analysed last (the next parse's since). */
typedef struct last_models {
    const inc_session *s[2];
    mel_model *m[2];
} last_models;
static last_models last;

static mel_model **last_of(const inc_session *s)
{
    for (int k = 0; k < 2; k++)
        if (last.s[k] == s)
            return &last.m[k];
    for (int k = 0; k < 2; k++)
        if (last.s[k] == NULL) {
            last.s[k] = s;
            return &last.m[k];
        }
    fprintf(stderr, "bench_edit: more than two sessions\n");
    exit(1);
}

/* Free session s and the model it analysed last. */
static void session_free(inc_session *s)
{
    for (int k = 0; k < 2; k++)
        if (s != NULL && last.s[k] == s) {
            mel_model_free(last.m[k]);
            last.m[k] = NULL;
            last.s[k] = NULL;
        }
    inc_session_free(s);
}

/* --n: the brake's sizes instead of 50 and 100 (issue 40 item 5: 10,000). */
static long long brake_ns[8] = {50, 100};
static size_t n_brake_ns = 2;


/* Analyse; returns seconds, fills stats. Exits on failure. */
static double run(inc_session *s, const char *text, long long n, int seeded, inc_stats *st)
{
    if (seeded == SA_SEEDED_OFF && !with_before)
        return 0;
    bench_phases pc = {NULL, 0, 0, false};
    sa_options so = {.seeded = seeded};
    if (show_phases) {
        so.progress = bench_on_phase;
        so.progress_ctx = &pc;
    }
    mel_define d = {"N", n};
    mel_options mo = {0};
    mo.defines = &d;
    mo.n_defines = 1;
    mel_model **prev = last_of(s);
    mo.since = with_since ? *prev : NULL;
    /* Nothing from an earlier run in BuDDy's caches: the two sessions
     * repeat each other's operations (the same edit, alternately). */
    sa_forget_caches();
    double t0 = bench_now();
    pc.phase = "front-end"; /* and the session's work before the analysis */
    pc.last = t0;
    mel_model *m = NULL;
    int rc = mel_model_parse(text, strlen(text), &mo, &m, NULL);
    inc_result *r = NULL;
    if (rc == MDAE_OK)
        rc = inc_analyze(s, m, &so, &r, NULL);
    double t = bench_now() - t0;
    if (show_phases && pc.phase != NULL)
        fprintf(stderr, "    %-12s %8.4f s (and what follows it)\n", pc.phase, bench_now() - pc.last);
    if (rc != MDAE_OK) {
        fprintf(stderr, "bench_edit: %s\n", mdae_err_name(rc));
        exit(1);
    }
    inc_result_stats(r, st);
    inc_result_free(r);
    mel_model_free(*prev);
    *prev = m;
    return t;
}

/* The floor (bench_floor.h) of the model text with N = n. */
static double floor_of(const char *text, long long n)
{
    mel_define d = {"N", n};
    mel_options mo = {0};
    mo.defines = &d;
    mo.n_defines = 1;
    mel_model *m = NULL;
    double f = -1;
    if (mel_model_parse(text, strlen(text), &mo, &m, NULL) == MDAE_OK)
        f = bench_floor(m);
    mel_model_free(m);
    return f;
}

typedef struct edit {
    const char *name;
    const char *from, *to; /* "%d": the middle instance */
} edit;

/* Each timed row is the median of `reps` runs (--reps): an edit of the
 * brake takes 2-3 ms, where one run's noise on the reference VM is 20 %. */
static int reps = 5;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One row's runs: seconds of the seeded session (t) and the unseeded one
 * (t0), reps each. */
typedef struct row {
    double t[64], t0[64];
} row;

static void print_row(const char *file, long long n, const char *name, row *rw, double cold,
                      double cold0, const inc_stats *st, double fl)
{
    double t = median(rw->t, reps), t0 = median(rw->t0, reps);
    printf("%s.mel\t%lld\t%s\t%.4f\t%.3f\t%zu/%zu\t%.6f\t%.0f\t%.4f\t%.3f\n", file, n, name, t,
           t / cold, st->reused, st->components, fl, t / fl, t0, t0 / cold0);
}

/* The cold runs: a fresh pair of sessions each time; the last pair is kept
 * in *s and *before for the edits. */
static void cold_runs(const char *text, long long n, inc_session **s, inc_session **before,
                      row *rw, inc_stats *st)
{
    for (int k = 0; k < reps; k++) {
        if (*s != NULL) {
            session_free(*s);
            session_free(*before);
        }
        if (inc_session_new(s) != MDAE_OK || inc_session_new(before) != MDAE_OK)
            exit(1);
        rw->t0[k] = run(*before, text, n, SA_SEEDED_OFF, st);
        rw->t[k] = run(*s, text, n, SA_SEEDED_AUTO, st);
    }
}

/* Edit e's runs (the edit, and "next" after it when there is one): each in
 * a fresh pair of sessions (kept in *s, *before) that analysed the
 * original text just before, untimed: a session's cache would otherwise
 * hold the edited text from the previous run. */
static void edit_runs(inc_session **s, inc_session **before, const char *text,
                      const char *edited, const char *next, long long n, long long n2, int e,
                      row *rw, row *rn, inc_stats *st, inc_stats *stn)
{
    for (int k = 0; k < reps; k++) {
        session_free(*s);
        session_free(*before);
        if (inc_session_new(s) != MDAE_OK || inc_session_new(before) != MDAE_OK)
            exit(1);
        run(*before, text, n, SA_SEEDED_OFF, st);
        run(*s, text, n, SA_SEEDED_AUTO, st);
        /* Which session runs first alternates: the second one runs with
         * the first one's results alive in BuDDy's table too. */
        if ((e + k) % 2 == 0)
            rw->t0[k] = run(*before, edited, n2, SA_SEEDED_OFF, st);
        rw->t[k] = run(*s, edited, n2, SA_SEEDED_AUTO, st);
        if ((e + k) % 2 == 1)
            rw->t0[k] = run(*before, edited, n2, SA_SEEDED_OFF, st);
        if (next != NULL) {
            /* The next edit: the same one on the next instance, seeded by
             * this one (an editor's session), where the first is undone
             * and the second made. */
            rn->t0[k] = run(*before, next, n, SA_SEEDED_OFF, stn);
            rn->t[k] = run(*s, next, n, SA_SEEDED_AUTO, stn);
        }
    }
}

static void family(const char *file, const long long *ns, size_t n_ns, const edit *ed,
                   size_t n_ed)
{
    char *text = bench_model_text_or_exit(file);
    for (size_t k = 0; k < n_ns; k++) {
        long long n = ns[k];
        /* Two sessions: `now`, and `before` with the hint's tight graphs
         * off (sa_options.seeded), each edit timed in both, alternately. */
        inc_session *s = NULL, *before = NULL;
        inc_stats st, stn;
        row rw, rn;
        double fl = floor_of(text, n);
        cold_runs(text, n, &s, &before, &rw, &st);
        double cold = median(rw.t, reps), cold0 = median(rw.t0, reps);
        print_row(file, n, "cold", &rw, cold, cold0, &st, fl);
        for (size_t e = 0; e <= n_ed + 1; e++) {
            char to[512], name[64];
            char *t2 = NULL, *t3 = NULL;
            long long n2 = e == n_ed ? n + 1 : n;
            if (e < n_ed) {
                snprintf(to, sizeof to, ed[e].to, (int)(n / 2), (int)(n / 2));
                t2 = bench_replaced(text, ed[e].from, to);
                snprintf(to, sizeof to, ed[e].to, (int)(n / 2 + 1), (int)(n / 2 + 1));
                t3 = bench_replaced(text, ed[e].from, to);
            }
            edit_runs(&s, &before, text, t2 != NULL ? t2 : text, t3, n, n2, (int)e, &rw, &rn, &st,
                      &stn);
            print_row(file, n, e < n_ed ? ed[e].name : e == n_ed ? "(c) N+1" : "(s) same text",
                      &rw, cold, cold0, &st, fl);
            if (t3 != NULL) {
                snprintf(name, sizeof name, "%s next", ed[e].name);
                print_row(file, n, name, &rn, cold, cold0, &stn, fl);
            }
            free(t2);
            free(t3);
        }
        fflush(stdout);
        session_free(s);
        session_free(before);
    }
    free(text);
}

/* An editor's session is a worker of mdaed, which starts its workers with
 * these glibc tunables (server/srv_main.c, MDAE_GLIBC_TUNABLES): so does
 * this benchmark, unless GLIBC_TUNABLES is set (`GLIBC_TUNABLES= ` for
 * glibc's defaults). glibc reads them when a process starts: the benchmark
 * starts itself again with them. Without them, an edit that follows
 * another one paid 150 to 240 page faults (glibc gave back to the kernel
 * the memory the previous version's result had freed), twice its time on
 * the reference VM, which mdaed's workers do not pay. */
#define BENCH_WORKER_TUNABLES "glibc.malloc.hugetlb=1"

static void as_a_worker(char **argv)
{
    if (getenv("GLIBC_TUNABLES") != NULL)
        return;
    if (setenv("GLIBC_TUNABLES", BENCH_WORKER_TUNABLES, 0) == 0)
        execv("/proc/self/exe", argv);
    fprintf(stderr, "bench_edit: cannot start again with %s: %s (glibc's defaults)\n",
            BENCH_WORKER_TUNABLES, strerror(errno));
}

int main(int argc, char **argv)
{
    as_a_worker(argv);
    int a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (strcmp(argv[a], "--phases") == 0) {
            show_phases = true;
        } else if (strcmp(argv[a], "--no-since") == 0) {
            with_since = false;
        } else if (strcmp(argv[a], "--no-before") == 0) {
            with_before = false;
        } else if (strcmp(argv[a], "--n") == 0 && a + 1 < argc) {
            n_brake_ns = 0;
            for (char *p = argv[++a]; *p != '\0' && n_brake_ns < 8;) {
                char *end;
                long long v = strtoll(p, &end, 10);
                if (end == p || v < 2)
                    break;
                brake_ns[n_brake_ns++] = v;
                p = *end == ',' ? end + 1 : end;
            }
            if (n_brake_ns == 0)
                n_brake_ns = 1, brake_ns[0] = 100;
        } else if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc && atoi(argv[a + 1]) >= 1 &&
                   atoi(argv[a + 1]) <= 64) {
            reps = atoi(argv[++a]);
        } else {
            fprintf(stderr, "usage: bench_edit [--phases] [--reps 1..64] [--n 50,100] [--no-before] [--no-since] [building|brake]\n");
            return 2;
        }
    }
    const char *only = a < argc ? argv[a] : NULL;
    if (sa_begin(NULL) != MDAE_OK)
        return 1;
    printf("model\tN\trun\tseconds\tratio\treused/parts\tfloor_s\tratio_to_floor\tbefore_s\t"
           "before_ratio\n");
    if (only == NULL || strcmp(only, "building") == 0) {
        static const long long ns[] = {20, 40};
        static const edit ed[] = {
            {"(a) rhs", "rimf[i] : equation mu_in[i] = flow_vent(Pin - Pr[i]);",
             "rimf[i] : equation mu_in[i] = flow_vent(Pin - Pr[i]) + "
             "(if i == %d then der(Tr[i]) else 0);"},
            {"(b) guard", "if open[i] then", "if open[i] & i <> %d | !open[i] & i == %d then"},
        };
        family("building_compressible", ns, 2, ed, 2);
    }
    if (only == NULL || strcmp(only, "brake") == 0) {
        static const edit ed[] = {
            {"(a) rhs", "px[i] : equation b[i] = K*x[i];",
             "px[i] : equation b[i] = K*x[i] + (if i == %d then der(x[i]) else 0);"},
            {"(b) guard", "if open[i] then", "if open[i] & i <> %d | !open[i] & i == %d then"},
        };
        family("brake", brake_ns, n_brake_ns, ed, 2);
    }
    sa_end();
    return 0;
}
