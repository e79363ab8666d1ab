/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/mel_test_util.h -- small helpers shared by the front-end
 * suites (test_mel_lex/parse/elab/errors.c, test_mel_exprs.c,
 * test_mo_exprs.c): parse a text and assert success, assert one located
 * error message, or parse it under every allocation failure. Header-only (static functions), so
 * each suite stays one executable.
 */
#ifndef MEL_TEST_UTIL_H
#define MEL_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "fail_alloc.h"
#include "mel.h"

static inline void mt_dump_diags(const mdae_diags *d)
{
    for (size_t i = 0; i < d->count; i++) {
        char *s = mdae_diag_format(&d->items[i], NULL);
        fprintf(stderr, "%s\n", s ? s : "(oom)");
        mdae_free(s);
    }
}

/* Parse `src` with `opt` (may be NULL); assert MDAE_OK and no diagnostics. */
static inline mel_model *mt_parse_opt(const char *src, const mel_options *opt)
{
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    int rc = mel_model_parse(src, strlen(src), opt, &m, &d);
    if (rc != MDAE_OK || d.count != 0)
        mt_dump_diags(&d);
    cr_assert_eq(rc, MDAE_OK, "mel_model_parse: %s", mdae_err_name(rc));
    cr_assert_eq(d.count, 0);
    cr_assert_not_null(m);
    mdae_diags_close(&d);
    return m;
}

static inline mel_model *mt_parse(const char *src) { return mt_parse_opt(src, NULL); }

/* Parse bytes and return the code; the diagnostics are left in *d (caller
 * closes). No model may be returned on failure. */
static inline int mt_parse_fail(const char *src, size_t len, const mel_options *opt,
                                mdae_diags *d)
{
    mdae_diags_init(d);
    mel_model *m = (mel_model *)(uintptr_t)1; /* must stay untouched on failure */
    int rc = mel_model_parse(src, len, opt, &m, d);
    if (rc == MDAE_OK)
        mel_model_free(m);
    else
        cr_assert_eq((uintptr_t)m, 1, "*out written on failure");
    return rc;
}

/* Is there an error diagnostic at line:col (0:0 = no location) whose
 * message contains `msg`? */
static inline bool mt_has(const mdae_diags *d, unsigned line, unsigned col, const char *msg)
{
    for (size_t i = 0; i < d->count; i++) {
        const mdae_diag *g = &d->items[i];
        if (g->severity == MDAE_SEV_ERROR && g->where.start.line == line &&
            g->where.start.col == col && strstr(g->message, msg) != NULL)
            return true;
    }
    return false;
}

/* Assert that src fails with `rc` and reports `msg` at line:col. */
static inline void mt_expect_error_opt(const char *src, size_t len, const mel_options *opt,
                                       int rc, unsigned line, unsigned col, const char *msg)
{
    mdae_diags d;
    int got = mt_parse_fail(src, len, opt, &d);
    if (got != rc || !mt_has(&d, line, col, msg)) {
        fprintf(stderr, "expected %s at %u:%u \"%s\", got %s:\n", mdae_err_name(rc), line, col,
                msg, mdae_err_name(got));
        mt_dump_diags(&d);
    }
    cr_assert_eq(got, rc, "got %s", mdae_err_name(got));
    cr_assert(mt_has(&d, line, col, msg), "missing \"%s\" at %u:%u", msg, line, col);
    mdae_diags_close(&d);
}

static inline void mt_expect_error(const char *src, int rc, unsigned line, unsigned col,
                                   const char *msg)
{
    mt_expect_error_opt(src, strlen(src), NULL, rc, line, col, msg);
}

/* The formatted guard (static buffer, for assertions). */
static inline const char *mt_guard(const mel_model *m, const mel_guard *g)
{
    static char buf[4096];
    char *s = mel_guard_format(m, g);
    cr_assert_not_null(s);
    snprintf(buf, sizeof buf, "%s", s);
    mdae_free(s);
    return buf;
}

/* Incidence of variable `var` in equation `eq` (names), or NULL. */
static inline const mel_incidence *mt_inc(const mel_model *m, const char *eq, const char *var)
{
    long e = mel_model_find_equation(m, eq), v = mel_model_find_variable(m, var);
    cr_assert(e >= 0, "no equation %s", eq);
    cr_assert(v >= 0, "no variable %s", var);
    const mel_equation *q = &m->equations[e];
    for (uint32_t k = 0; k < q->n_incs; k++)
        if (q->incs[k].var == (uint32_t)v)
            return &q->incs[k];
    return NULL;
}

/* "2:g | 0:!g" style summary of an incidence's cases (static buffer). */
static inline const char *mt_cases(const mel_model *m, const mel_incidence *inc)
{
    static char buf[4096];
    size_t n = 0;
    buf[0] = '\0';
    if (inc == NULL)
        return "none";
    for (uint32_t k = 0; k < inc->n_cases; k++) {
        char *g = mel_guard_format(m, inc->cases[k].guard);
        cr_assert_not_null(g);
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d:%s", k ? "; " : "",
                              inc->cases[k].order, g);
        mdae_free(g);
    }
    return buf;
}

/* A front-end's parse: mel_model_parse or mo_model_parse. */
typedef int (*mt_parse_fn)(const char *text, size_t len, const mel_options *opt,
                           mel_model **out, mdae_diags *diags);

/* Parse src (no options, no diagnostics) with allocation n failing
 * (fail_alloc.h's counting_allocator, installed here and removed), for
 * n = 0, 1, ... until the parse succeeds, at most max_n runs: every failed
 * run returns MDAE_E_NOMEM without a model, and no run leaks a block. The
 * model of the run that succeeds is given to check(m, what) (if not NULL),
 * then freed. `what` names src in messages. Returns the number of runs. */
static inline long mt_parse_every_nomem(mt_parse_fn parse, const char *src, long max_n,
                                        void (*check)(const mel_model *m, const char *what),
                                        const char *what)
{
    cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
    int rc = MDAE_E_NOMEM;
    long n;
    for (n = 0; rc == MDAE_E_NOMEM && n < max_n; n++) {
        counting_arm(n);
        mel_model *m = NULL;
        rc = parse(src, strlen(src), NULL, &m, NULL);
        if (rc == MDAE_OK) {
            cr_assert_not_null(m, "%s", what);
            if (check != NULL)
                check(m, what);
            mel_model_free(m);
        } else {
            cr_assert_eq(rc, MDAE_E_NOMEM, "%s: allocation %ld: %s", what, n, mdae_err_name(rc));
            cr_assert_null(m, "%s", what);
        }
        cr_assert_eq(live, 0, "%s: allocation %ld failing leaks %ld blocks", what, n, live);
    }
    cr_assert_eq(rc, MDAE_OK, "%s", what);
    mdae_replace_allocator(NULL);
    return n;
}

#endif /* MEL_TEST_UTIL_H */
