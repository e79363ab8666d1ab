/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_run.h -- what several benchmarks do alike: read a file
 * whole, edit a MEL model's text (an equation appended, one of a foreach
 * chain left out), and time the complete analysis `mdae analyze --json` runs
 * (incremental session, whole result, both reports) under a deadline.
 * Header-only (static functions), as bench_floor.h, so that each benchmark
 * stays one executable. Prints nothing; asserts nothing.
 */
#ifndef BENCH_RUN_H
#define BENCH_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* tests/models/NAME.mel, as bench_slurp reads it. */
static inline char *bench_model_text(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/models/%s.mel", MDAE_SOURCE_DIR, name);
    return bench_slurp(path, len);
}

/* bench_model_text, exiting with a message when the file cannot be read. */
static inline char *bench_model_text_or_exit(const char *name)
{
    char *t = bench_model_text(name, NULL);
    if (t == NULL) {
        fprintf(stderr, "cannot read tests/models/%s.mel\n", name);
        exit(1);
    }
    return t;
}

/* text with the first `from` replaced by `to` (free() it); exits when
 * `from` is not there (an edit that no longer applies to the model). */
static inline char *bench_replaced(const char *text, const char *from, const char *to)
{
    const char *p = strstr(text, from);
    if (p == NULL) {
        fprintf(stderr, "'%s' not found in the model\n", from);
        exit(1);
    }
    size_t a = (size_t)(p - text), b = strlen(from), c = strlen(to), n = strlen(text);
    char *o = malloc(n - b + c + 1);
    if (o == NULL)
        exit(1);
    memcpy(o, text, a);
    memcpy(o + a, to, c);
    memcpy(o + a + c, p + b, n - a - b + 1);
    return o;
}

/* The options the sized benchmarks share: --n N (the model's size),
 * --repeat R (best of R runs), --budget S (seconds before an analysis is
 * cancelled). */
typedef struct bench_size_opts {
    long n;
    int repeat;
    double budget;
} bench_size_opts;

/* Whether argv[*a] is one of bench_size_opts's options followed by its
 * value: then the value stored in *o and *a on the value. */
static inline bool bench_size_opt(int argc, char **argv, int *a, bench_size_opts *o)
{
    if (*a + 1 >= argc)
        return false;
    const char *opt = argv[*a], *v = argv[*a + 1];
    if (!strcmp(opt, "--n"))
        o->n = atol(v);
    else if (!strcmp(opt, "--repeat"))
        o->repeat = atoi(v);
    else if (!strcmp(opt, "--budget"))
        o->budget = atof(v);
    else
        return false;
    ++*a;
    return true;
}

/* sa_begin with the default configuration; false (said on stderr) when it
 * fails. */
static inline bool bench_begin(void)
{
    if (sa_begin(NULL) == MDAE_OK)
        return true;
    fprintf(stderr, "sa_begin failed\n");
    return false;
}

/* text, then `line` on a line of its own, malloc'd; NULL on OOM. */
static inline char *bench_appended(const char *text, const char *line)
{
    size_t n = strlen(text) + strlen(line) + 3;
    char *out = malloc(n);
    if (out != NULL)
        snprintf(out, n, "%s\n%s\n", text, line);
    return out;
}

/* text with the equation of a foreach chain that starts `EQ[INDEX] :
 * equation` left out where INDEX is `where` (an expression: "1",
 * "(N + 1) / 2"...): wrapped in `if INDEX <> WHERE then ... end`.
 * malloc'd; NULL on OOM or when text has no such equation. */
static inline char *bench_chain_removed(const char *text, const char *eq, const char *index,
                                        const char *where)
{
    char pat[128];
    snprintf(pat, sizeof pat, "%s[%s] : equation", eq, index);
    const char *at = strstr(text, pat), *semi = at ? strchr(at, ';') : NULL;
    if (semi == NULL)
        return NULL;
    size_t n = strlen(text) + strlen(index) + strlen(where) + 32;
    char *out = malloc(n);
    if (out != NULL)
        snprintf(out, n, "%.*sif %s <> %s then %.*s end%s", (int)(at - text), text, index, where,
                 (int)(semi - at), at, semi);
    return out;
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
