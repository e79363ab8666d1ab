/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_run.h -- what several benchmarks do alike: read a file
 * whole, and time the complete analysis `mdae analyze --json` runs
 * (incremental session, whole result, both reports) under a deadline.
 * Header-only (static functions), as bench_floor.h, so that each benchmark
 * stays one executable. Prints nothing; asserts nothing.
 */
#ifndef BENCH_RUN_H
#define BENCH_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_floor.h"
#include "cdg.h"
#include "inc.h"
#include "sa.h"

/* The file at path, NUL-terminated (free() it), its length in *len unless
 * len is NULL; NULL when it cannot be read. */
static inline char *bench_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *s = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0)
        s = malloc((size_t)n + 1);
    if (s != NULL && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    if (s != NULL) {
        s[n] = '\0';
        if (len != NULL)
            *len = (size_t)n;
    }
    return s;
}

/* Seconds of the analysis `mdae analyze --json` runs on m with the given
 * method, stopped past budget seconds; -1 on failure, its code in *rc_out.
 * On success, the session's statistics in *st and whether some mode is
 * singular in *singular (each unless NULL). */
static inline double bench_analyse(const mel_model *m, int method, double budget,
                                   inc_stats *st, bool *singular, int *rc_out)
{
    bench_deadline dl = {bench_now() + budget};
    sa_options so = {.progress = bench_past_deadline, .progress_ctx = &dl, .method = method};
    inc_session *s = NULL;
    inc_result *ir = NULL;
    sa_result *res = NULL;
    cdg_graph *g = NULL;
    sa_report *rep = NULL;
    cdg_report *crep = NULL;
    mdae_diags d;
    mdae_diags_init(&d);
    double t0 = bench_now();
    int rc = inc_session_new(&s);
    if (rc == MDAE_OK)
        rc = inc_analyze(s, m, &so, &ir, &d);
    if (rc == MDAE_OK)
        rc = inc_result_whole(ir, m, &so, &res, &g, &d);
    if (rc == MDAE_OK)
        rc = sa_result_report(res, &rep);
    if (rc == MDAE_OK)
        rc = cdg_graph_report(g, &crep);
    double t = bench_now() - t0;
    if (rc == MDAE_OK && st != NULL)
        inc_result_stats(ir, st);
    if (singular != NULL)
        *singular = rc == MDAE_OK && sa_result_singular(res);
    cdg_report_free(crep);
    sa_report_free(rep);
    inc_result_free(ir);
    inc_session_free(s);
    mdae_diags_close(&d);
    *rc_out = rc;
    return rc == MDAE_OK ? t : -1;
}

#endif /* BENCH_RUN_H */
