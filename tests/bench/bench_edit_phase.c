/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_edit_phase.c -- the front-end phase of an edit of the
 * brake (issue 40 item 3): from mel_model_parse (with the previous
 * version's model as mel_options.since) to sa_analyze's first progress
 * report, i.e. the front-end and the incremental session's work before the
 * analysis (split into parts, hashes, cache look-up, private model), and
 * the whole edit (parse + inc_analyze), in CPU seconds of the process.
 *
 * The original text is analysed in a fresh session, then each repetition
 * makes the edit on a new instance (N/2, N/2 + 1, ...: no cache hit) and
 * goes back to the original (untimed), as an editor's session goes on:
 * (a) one equation gains a derivative, (b) one guard negated (bench_edit's
 * (a) and (b)). BuDDy's caches are emptied before each edit.
 *
 * Under callgrind (valgrind --tool=callgrind --collect-atstart=no), the
 * first repetition is collected: the front-end phase with --phase-only,
 * else the whole edit (docs/figures.md, "The session's keys and private
 * model follow the edit").
 *
 * With --offsets, the edit is what an editor's first publication waits for
 * (issue 40 item 5): parse + inc_analyze_offsets, the dependency graph made
 * after the clock stops (inc_result_graphs, as the check's second stage).
 *
 * Usage: bench_edit_phase [--phase-only] [--offsets] N a|b [REPS]
 *        (REPS: 1..64, default 3)
 * Prints the median and the smallest of the REPS figures.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_TOGGLE_COLLECT
#endif

#include "bench_run.h"
#include "inc.h"
#include "mel.h"
#include "sa.h"

/* The brake's text with edit `which` on instance k. */
static char *edited(const char *text, char which, int k)
{
    char to[256];
    if (which == 'a') {
        snprintf(to, sizeof to,
                 "px[i] : equation b[i] = K*x[i] + (if i == %d then der(x[i]) else 0);", k);
        return bench_replaced(text, "px[i] : equation b[i] = K*x[i];", to);
    }
    snprintf(to, sizeof to, "if open[i] & i <> %d | !open[i] & i == %d then", k, k);
    return bench_replaced(text, "if open[i] then", to);
}

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static mel_model *parse(const char *text, long long n, const mel_model *since)
{
    mel_define d = {"N", n};
    mel_options mo = {0};
    mo.defines = &d;
    mo.n_defines = 1;
    mo.since = since;
    mel_model *m = NULL;
    int rc = mel_model_parse(text, strlen(text), &mo, &m, NULL);
    if (rc != MDAE_OK) {
        fprintf(stderr, "bench_edit_phase: parse: %s\n", mdae_err_name(rc));
        exit(1);
    }
    return m;
}

/* The phase's end: the first progress report of the analysis. */
typedef struct phase {
    double end;      /* < 0 until then */
    bool collecting; /* callgrind collects until then */
} phase;

static int on_progress(void *ctx, const char *name, size_t done, size_t total)
{
    phase *ph = ctx;
    (void)name;
    (void)done;
    (void)total;
    if (ph->end < 0) {
        ph->end = cpu_now();
        if (ph->collecting) {
            CALLGRIND_TOGGLE_COLLECT;
            ph->collecting = false;
        }
    }
    return 0;
}

/* Analyse m in s, the graphs too unless offsets; exits on failure. */
static inc_result *analyse(inc_session *s, const mel_model *m, const sa_options *so, bool offsets)
{
    inc_result *r = NULL;
    int rc = offsets ? inc_analyze_offsets(s, m, so, &r, NULL) : inc_analyze(s, m, so, &r, NULL);
    if (rc != MDAE_OK) {
        fprintf(stderr, "bench_edit_phase: analysis: %s\n", mdae_err_name(rc));
        exit(1);
    }
    return r;
}

/* The graphs an offsets-only analysis left, then the result dropped. */
static void finish(inc_result *r)
{
    if (inc_result_graphs(r, NULL, NULL) != MDAE_OK) {
        fprintf(stderr, "bench_edit_phase: graphs failed\n");
        exit(1);
    }
    inc_result_free(r);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int a = 1;
    bool phase_only = a < argc && strcmp(argv[a], "--phase-only") == 0;
    a += phase_only;
    bool offsets = a < argc && strcmp(argv[a], "--offsets") == 0;
    a += offsets;
    long long n = a < argc ? atoll(argv[a]) : 0;
    char which = a + 1 < argc ? argv[a + 1][0] : '?';
    int reps = a + 2 < argc ? atoi(argv[a + 2]) : 3;
    if (n < 2 || (which != 'a' && which != 'b') || reps < 1 || reps > 64) {
        fprintf(stderr, "usage: bench_edit_phase [--phase-only] [--offsets] N a|b [REPS]\n");
        return 2;
    }
    char *text = bench_model_text_or_exit("brake");
    if (sa_begin(NULL) != MDAE_OK)
        return 1;
    inc_session *s = NULL;
    if (inc_session_new(&s) != MDAE_OK)
        return 1;
    mel_model *prev = parse(text, n, NULL);
    finish(analyse(s, prev, NULL, false));
    double fe[64], whole[64];
    for (int k = 0; k < reps; k++) {
        char *t = edited(text, which, (int)(n / 2) + k);
        phase ph = {-1, k == 0};
        sa_options so = {.progress = on_progress, .progress_ctx = &ph};
        sa_forget_caches();
        if (ph.collecting)
            CALLGRIND_TOGGLE_COLLECT;
        ph.collecting = ph.collecting && phase_only;
        double t0 = cpu_now();
        mel_model *m = parse(t, n, prev);
        inc_result *r = analyse(s, m, &so, offsets);
        double t1 = cpu_now();
        if (k == 0 && (!phase_only || ph.collecting)) /* the phase never ended: a cache hit */
            CALLGRIND_TOGGLE_COLLECT;
        finish(r); /* untimed: the second stage's */
        inc_session_trim(s); /* untimed: the worker's, after its answer */
        fe[k] = ph.end >= 0 ? ph.end - t0 : t1 - t0;
        whole[k] = t1 - t0;
        mel_model_free(prev);
        free(t);
        /* back to the original, untimed */
        prev = parse(text, n, m);
        mel_model_free(m);
        finish(analyse(s, prev, NULL, false));
    }
    qsort(fe, (size_t)reps, sizeof *fe, cmp_double);
    qsort(whole, (size_t)reps, sizeof *whole, cmp_double);
    printf("brake N=%lld edit (%c), %d edits: front-end phase %.4f s (min %.4f), whole edit "
           "%.4f s (min %.4f)\n",
           n, which, reps, fe[reps / 2], fe[0], whole[reps / 2], whole[0]);
    mel_model_free(prev);
    inc_session_free(s);
    sa_end();
    free(text);
    return 0;
}
