/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_approx.c -- what the comparison with single-mode tools
 * costs (issue 38: `approx` costs at most the exact analysis's time on the
 * same model): for each model, the exact all-modes analysis (sa_analyze,
 * the automatic method) and then ap_analyze on its result (the approximate
 * analysis, the findings' sets and messages), each the best of `runs` runs
 * with BuDDy's caches emptied before each. One row per model:
 *
 *   model N equations exact_s approx_s ratio findings
 *
 * Usage: bench_approx [--runs R] [--n-brake N] [--n-building N] [--n-chain N]
 *   defaults: R = 3, the brake at N = 100, both buildings at N = 20, the
 *   RLDC chain at N = 100 (its if-expressions are one equation each: the
 *   single-mode analysis accepts it, so every comparison runs; the brake
 *   and the buildings have if-equations, and their rows depend on whether
 *   the front-end merges them by position, mel_equation.cond).
 * See tests/bench/README.md for measured numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ap.h"
#include "bench_floor.h"
#include "bench_run.h"
#include "mel.h"
#include "sa.h"

typedef struct row {
    double exact, approx;
    size_t findings;
} row;

/* The best of runs runs of both analyses of m; false on a failure. */
static bool measure(const mel_model *m, int runs, row *out)
{
    out->exact = out->approx = -1;
    for (int k = 0; k < runs; k++) {
        sa_result *r = NULL;
        ap_report *rep = NULL;
        sa_forget_caches();
        double t0 = bench_now();
        int rc = sa_analyze(m, NULL, &r, NULL);
        double t1 = bench_now();
        sa_forget_caches();
        double t2 = bench_now();
        if (rc == MDAE_OK)
            rc = ap_analyze(m, r, &rep);
        double t3 = bench_now();
        if (rc == MDAE_OK) {
            if (out->exact < 0 || t1 - t0 < out->exact)
                out->exact = t1 - t0;
            if (out->approx < 0 || t3 - t2 < out->approx)
                out->approx = t3 - t2;
            out->findings = rep->n_findings;
        }
        ap_report_free(rep);
        sa_result_free(r);
        if (rc != MDAE_OK) {
            fprintf(stderr, "bench_approx: %s\n", mdae_strerror(rc));
            return false;
        }
    }
    return true;
}

static int one(const char *name, long n, int runs)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/models/%s.mel", MDAE_SOURCE_DIR, name);
    size_t len = 0;
    char *text = bench_slurp(path, &len);
    if (text == NULL) {
        fprintf(stderr, "bench_approx: cannot read %s\n", path);
        return 1;
    }
    mel_define def = {"N", n};
    mel_options opt = {.defines = &def, .n_defines = 1};
    mel_model *m = NULL;
    int rc = mel_model_parse(text, len, &opt, &m, NULL);
    free(text);
    row rw;
    if (rc != MDAE_OK || !measure(m, runs, &rw)) {
        mel_model_free(m);
        return 1;
    }
    printf("%-24s %4ld %5u %8.3f %8.3f %6.2f %5zu\n", name, n, m->n_equations, rw.exact,
           rw.approx, rw.approx / rw.exact, rw.findings);
    fflush(stdout);
    mel_model_free(m);
    return 0;
}

int main(int argc, char **argv)
{
    int runs = 3;
    long n_brake = 100, n_building = 20, n_chain = 100;
    for (int k = 1; k + 1 < argc; k += 2) {
        if (strcmp(argv[k], "--runs") == 0)
            runs = atoi(argv[k + 1]);
        else if (strcmp(argv[k], "--n-brake") == 0)
            n_brake = atol(argv[k + 1]);
        else if (strcmp(argv[k], "--n-building") == 0)
            n_building = atol(argv[k + 1]);
        else if (strcmp(argv[k], "--n-chain") == 0)
            n_chain = atol(argv[k + 1]);
        else {
            fprintf(stderr, "usage: bench_approx [--runs R] [--n-brake N] [--n-building N] "
                            "[--n-chain N]\n");
            return 2;
        }
    }
    if (runs < 1)
        runs = 1;
    if (sa_begin(NULL) != MDAE_OK)
        return 1;
    printf("%-24s %4s %5s %8s %8s %6s %5s\n", "model", "N", "eqs", "exact_s", "approx_s",
           "ratio", "finds");
    int bad = one("brake", n_brake, runs);
    bad |= one("building_compressible", n_building, runs);
    bad |= one("building_incompressible", n_building, runs);
    bad |= one("rldc_chain", n_chain, runs);
    sa_end();
    return bad;
}
