/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mel_since.c -- mel_options.since (issue 40 item 3): the
 * MEL front-end shares the sides of the equations an edit left alone with
 * the previous version's model (engine/mel_elab.c, "Pass 2: what an edit
 * left alone"). Checked:
 *  - the model parsed with since is the cold parse of the same text, field
 *    for field (names, locations, guards, incidences, expressions with
 *    their locations, diagnostics), for the brake's edits of bench_edit,
 *    lines inserted and deleted before, inside and after the loop, a
 *    renamed unknown, declarations and an equation deleted and added, an
 *    outer loop index of another value, N changed, an
 *    integer constant of another value (in the text or by a define, the
 *    declarations otherwise the same), a syntax error and
 *    its fix, and a few hundred random one-byte edits in a row (each
 *    parsed with the last model that parsed as since);
 *  - every MEL model of tests/models (when-clauses, conditional
 *    equations declared in both branches, errors), the same text again and
 *    three edits of its middle, and random one-byte edits of the model with
 *    a when-clause and next();
 *  - statement-level edits in a row of the brake and of every MEL model
 *    of tests/models (a statement deleted, inserted, copied, changed in
 *    place or moved, lines inserted above one, a syntax error typed and
 *    fixed at the next step), with recovery and without;
 *  - the sharing happens (the equations before the edit have the previous
 *    model's very trees) and outlives the previous model, and stops after
 *    MEL__MAX_HELD versions in a row (everything lowered again).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fx.h"
#include "mdae.h"
#include "mel.h"
#include "mel_int.h" /* mel_model_priv.depth: whether a model was replayed */
#include "model_files.h"

static void put_f(mdae_buf *b, const char *fmt, ...) MDAE_PRINTF(2, 3);
static void put_f(mdae_buf *b, const char *fmt, ...)
{
    char s[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s, sizeof s, fmt, ap);
    va_end(ap);
    mdae_buf_puts(b, s);
}

static void put_range(mdae_buf *b, mdae_range r)
{
    put_f(b, "@%u:%u:%u-%u:%u:%u", r.start.line, r.start.col, r.start.offset, r.end.line,
          r.end.col, r.end.offset);
}

static void put_guard(mdae_buf *b, const mel_model *m, const mel_guard *g)
{
    char *s = mel_guard_format(m, g);
    cr_assert_not_null(s);
    put_f(b, "[%s]", s);
    mdae_free(s);
}

/* An expression with every field and location. */
static void put_fx(mdae_buf *b, const fx_node *e)
{
    if (e == NULL) {
        mdae_buf_puts(b, "nil");
        return;
    }
    put_f(b, "(%u %u %d %u %u %.17g %s", e->op, e->fn, e->is_int, e->order, e->index, e->num,
          e->name != NULL ? e->name : "-");
    put_range(b, e->where);
    for (uint32_t k = 0; k < e->n; k++) {
        mdae_buf_puts(b, " ");
        put_fx(b, e->kids[k]);
    }
    mdae_buf_puts(b, ")");
}

/* Everything of m as text (owned: mdae_free). */
static char *dump(const mel_model *m)
{
    mdae_buf b = {0};
    for (uint32_t i = 0; i < m->n_modes; i++) {
        const mel_mode *md = &m->modes[i];
        put_f(&b, "mode %s %ld", md->name, md->reads_var);
        put_range(&b, md->where);
        put_fx(&b, md->def);
        mdae_buf_puts(&b, "\n");
    }
    for (uint32_t i = 0; i < m->n_knowns; i++) {
        const mel_known *k = &m->knowns[i];
        put_f(&b, "known %s %d %.17g %d ", k->name, k->kind, k->value, k->known);
        put_fx(&b, k->binding);
        mdae_buf_puts(&b, "\n");
    }
    for (uint32_t i = 0; i < m->n_invariants; i++) {
        put_guard(&b, m, m->invariants[i].cond);
        mdae_buf_puts(&b, "\n");
    }
    for (uint32_t i = 0; i < m->n_variables; i++) {
        const mel_variable *v = &m->variables[i];
        put_f(&b, "var %s ", v->name);
        put_guard(&b, m, v->guard);
        put_range(&b, v->where);
        mdae_buf_puts(&b, "\n");
    }
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const mel_equation *q = &m->equations[i];
        put_f(&b, "eq %s %u %u %u ", q->name, q->when, q->cond, q->cond_pos);
        put_guard(&b, m, q->guard);
        put_range(&b, q->where);
        mdae_buf_puts(&b, "\n  ");
        put_fx(&b, q->lhs);
        mdae_buf_puts(&b, " = ");
        put_fx(&b, q->rhs);
        mdae_buf_puts(&b, "\n");
        for (uint32_t k = 0; k < q->n_incs; k++) {
            const mel_incidence *inc = &q->incs[k];
            put_f(&b, "  %u:", inc->var);
            for (uint32_t c = 0; c < inc->n_cases; c++) {
                const mel_order_case *oc = &inc->cases[c];
                put_f(&b, " o%d n%d ", oc->order, oc->next);
                put_guard(&b, m, oc->guard);
                put_range(&b, oc->where);
            }
            mdae_buf_puts(&b, "\n");
        }
    }
    put_f(&b, "edges %zu syntax %u left %u\n", m->n_edges, m->n_syntax_errors, m->n_left_out);
    cr_assert(!b.oom && b.p != NULL);
    return b.p;
}

/* rc, the diagnostics and the model's dump of text parsed with since
 * (NULL: cold); *out the model (owned) or NULL. */
static char *parse(const char *text, long long n, const mel_model *since, bool recover,
                   mel_model **out)
{
    mel_define def;
    mel_options o = tm_options_n(&def, n);
    o.since = since;
    o.recover = recover;
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    int rc = mel_model_parse(text, strlen(text), &o, &m, &d);
    mdae_buf b = {0};
    put_f(&b, "rc %d\n", rc);
    for (size_t k = 0; k < d.count; k++) {
        char *s = mdae_diag_format(&d.items[k], NULL);
        cr_assert_not_null(s);
        put_f(&b, "%s\n", s);
        mdae_free(s);
    }
    mdae_diags_close(&d);
    if (m != NULL) {
        char *s = dump(m);
        mdae_buf_puts(&b, s);
        mdae_free(s);
    }
    *out = m;
    cr_assert(!b.oom && b.p != NULL);
    return b.p;
}

/* Parse text with since and cold; assert the same; the model with since
 * (owned; NULL when it does not parse). */
static mel_model *same_as_cold(const char *text, long long n, const mel_model *since,
                               bool recover, const char *what)
{
    mel_model *a = NULL, *b = NULL;
    char *x = parse(text, n, since, recover, &a);
    char *y = parse(text, n, NULL, recover, &b);
    if (strcmp(x, y) != 0) {
        FILE *f = fopen("/tmp/test_mel_since.since.txt", "w"), *g = fopen("/tmp/test_mel_since.cold.txt", "w");
        if (f != NULL && g != NULL) {
            fputs(x, f);
            fputs(y, g);
        }
        if (f != NULL)
            fclose(f);
        if (g != NULL)
            fclose(g);
    }
    cr_assert_str_eq(x, y, "%s: the model parsed with since differs from the cold one", what);
    mdae_free(x);
    mdae_free(y);
    mel_model_free(b);
    if (a != NULL && since != NULL) {
        /* the worker's count of shared sides (mel_model_sides_shared: the
         * replay's count, or its list, h-fe19) is the loop over every
         * equation's, less the kept instances (copies before h-fe19, tested
         * in edited_integer_conditions_...) */
        size_t loop = 0;
        for (uint32_t q = 0; q < a->n_equations && q < since->n_equations; q++)
            loop += a->equations[q].lhs != NULL && a->equations[q].lhs == since->equations[q].lhs;
        size_t kept = a->priv != NULL && a->priv->kept_from == since ? a->priv->sides_kept : 0;
        cr_assert_eq(mel_model_sides_shared(a, since), loop - kept, "%s: %zu shared, not %zu",
                     what, mel_model_sides_shared(a, since), loop - kept);
    }
    return a;
}

/* The version after prev, m (u's model made from prev), in one of the two
 * freeing orders a chain of edits is tested in: order 0 frees prev first,
 * as an editor's worker does, and keeps m; order 1 parses u again from m
 * (same_as_cold), then frees m and prev, and keeps that. */
static mel_model *next_version(mel_model *prev, mel_model *m, const char *u, long long n,
                               int order, const char *what)
{
    if (order == 0) {
        mel_model_free(prev);
        return m;
    }
    mel_model *again = same_as_cold(u, n, m, false, what);
    mel_model_free(m);
    mel_model_free(prev);
    return again;
}

/* An equation of m by name (must exist). */
static const mel_equation *eq(const mel_model *m, const char *name)
{
    long k = mel_model_find_equation(m, name);
    cr_assert_geq(k, 0, "no equation %s", name);
    return &m->equations[k];
}

static const struct {
    const char *what, *from, *to;
} edits[] = {
    {"(a) rhs", "px[i] : equation b[i] = K*x[i];",
     "px[i] : equation b[i] = K*x[i] + (if i == 3 then der(x[i]) else 0);"},
    {"(b) guard", "if open[i] then", "if open[i] & i <> 3 | !open[i] & i == 3 then"},
    {"a line before the loop", "// Railcars\n", "// Railcars\n// one more line\n"},
    {"a line deleted before the loop", "// Plug equations at one end of the train\n", ""},
    {"a line inside the loop", "  // at the reservoir\n", "  // at the reservoir\n\n\n"},
    {"a line after the loop", "plug2 : equation", "\nplug2 : equation"},
    {"same length, other text", "me2[i] : equation fv[i] - fch[i]", "me2[i] : equation fv[i] + fch[i]"},
    {"an unknown renamed", "fl[i] : real;", "fk[i] : real;"},
    {"an equation renamed", "pb[i] : equation", "pq[i] : equation"},
    {"a constant changed", "K : real = 1000.0;", "K : real = 2000.0;"},
    {"a syntax error", "me1[i] : equation fb[i]", "me1[i] : equation fb[i] +* "},
    {"an undeclared name", "fel[i] : equation fl[i]", "fel[i] : equation fq[i]"},
    {"the ghost car's loop", "foreach i in 1 .. N + 1 do", "foreach i in 0 .. N + 1 do"},
    {"an unknown's declaration deleted", "  fl[i] : real;   // leakage\n", ""},
    {"a parameter's declaration deleted", "F2 : real = 0.01;\n", ""},
    {"an equation deleted", "  me2[i] : equation fv[i] - fch[i] - fl[i] - ft[i] = 0;\n", ""},
    {"an unknown declared", "t : real;\n", "t : real;\nw : real;\n"},
    {"an equation added in the loop", "  // Flow equations\n",
     "  // Flow equations\n  mx[i] : equation b[i] = x[i];\n"},
};

Test(mel_since, brake_edits_are_the_cold_models)
{
    char *text = tm_slurp("brake.mel");
    for (size_t k = 0; k < sizeof edits / sizeof *edits; k++) {
        for (int recover = 0; recover < 2; recover++) {
            mel_model *m0 = same_as_cold(text, 6, NULL, recover, "original");
            char *t = tm_replaced(text, edits[k].from, edits[k].to);
            mel_model *m1 = same_as_cold(t, 6, m0, recover, edits[k].what);
            /* and back, from the edited version (if it parsed) */
            mel_model *m2 = same_as_cold(text, 6, m1 != NULL ? m1 : m0, recover, edits[k].what);
            mel_model_free(m0);
            mel_model_free(m1);
            mel_model_free(m2);
            free(t);
        }
    }
    /* N changed: same text, other declarations */
    mel_model *m0 = same_as_cold(text, 6, NULL, false, "N = 6");
    mel_model_free(same_as_cold(text, 7, m0, false, "N = 7"));
    mel_model_free(same_as_cold(text, 5, m0, false, "N = 5"));
    mel_model_free(m0);
    free(text);
}

Test(mel_since, random_one_byte_edits_in_a_row)
{
    char *text = tm_slurp("brake.mel");
    size_t n = strlen(text);
    char *t = malloc(n + 400);
    cr_assert_not_null(t);
    memcpy(t, text, n + 1);
    static const char bytes[] = "ab1+-*;:[]()i \n/=";
    unsigned seed = 12345;
    mel_model *prev = same_as_cold(t, 4, NULL, true, "original");
    for (int k = 0; k < 300; k++) {
        seed = seed * 1103515245u + 12345u;
        size_t len = strlen(t), at = (seed >> 8) % (len + 1);
        int op = (int)((seed >> 4) % 3);
        char c = bytes[(seed >> 16) % (sizeof bytes - 1)];
        if (op == 0 && len + 1 < n + 400) { /* insert */
            memmove(t + at + 1, t + at, len - at + 1);
            t[at] = c;
        } else if (op == 1 && at < len) { /* delete */
            memmove(t + at, t + at + 1, len - at);
        } else if (at < len) {
            t[at] = c;
        }
        char what[64];
        snprintf(what, sizeof what, "random edit %d", k);
        mel_model *m = same_as_cold(t, 4, prev, true, what);
        if (m != NULL) {
            mel_model_free(prev);
            prev = m;
        }
        if (k % 50 == 49) { /* back to the original text now and then */
            memcpy(t, text, n + 1);
            m = same_as_cold(t, 4, prev, true, "original again");
            cr_assert_not_null(m);
            mel_model_free(prev);
            prev = m;
        }
    }
    mel_model_free(prev);
    free(t);
    free(text);
}

/* The same statement at the same place under an outer loop index of
 * another value: lowered again. */
Test(mel_since, an_outer_loop_index_of_another_value)
{
    static const char a[] = "N : integer = 3;\n"
                            "foreach i in 1 .. N do x[i] : real; y[i] : real done;\n"
                            "foreach k in 1 .. 1 do\n"
                            "  foreach i in 1 .. N do\n"
                            "    e[i] : equation x[i] = y[k] + der(y[i]);\n"
                            "  done\n"
                            "done;\n"
                            "foreach i in 1 .. N do f[i] : equation y[i] = 0 done;\n";
    char *b = tm_replaced(a, "foreach k in 1 .. 1", "foreach k in 2 .. 2");
    mel_model *m0 = same_as_cold(a, -1, NULL, false, "k = 1");
    mel_model *m1 = same_as_cold(b, -1, m0, false, "k = 2");
    cr_assert_eq(eq(m1, "f[2]")->lhs, eq(m0, "f[2]")->lhs);
    cr_assert_neq(eq(m1, "e[2]")->rhs, eq(m0, "e[2]")->rhs);
    mel_model_free(m0);
    mel_model_free(m1);
    free(b);
}

/* An integer constant of another value, the declarations otherwise the
 * same and every equation statement the same bytes at the same place: its
 * uses are folded into the sides (lower), so none may be shared (the
 * declarations differ: nothing is), whether
 * the value changed in the text (same length) or by a define (same text).
 * A parameter of another value is a known quantity, not folded: shared. */
Test(mel_since, an_integer_constant_of_another_value)
{
    static const char a[] = "N : integer = 2;\n"
                            "K : real = 5.0;\n"
                            "x : real; y : real;\n"
                            "e : equation x = N * y + K;\n"
                            "f : equation y = der(x) + N;\n";
    char *b = tm_replaced(a, "N : integer = 2", "N : integer = 3");
    char *c = tm_replaced(a, "K : real = 5.0", "K : real = 6.0");
    mel_model *m0 = same_as_cold(a, -1, NULL, false, "N = 2");
    mel_model *m1 = same_as_cold(b, -1, m0, false, "N = 3 in the text");
    mel_model *m2 = same_as_cold(a, 4, m0, false, "N = 4 by a define");
    mel_model *m3 = same_as_cold(a, 2, m0, false, "N = 2 by a define");
    mel_model *m4 = same_as_cold(c, -1, m0, false, "K = 6.0");
    for (const mel_model *const *m = (const mel_model *const[]){m1, m2, NULL}; *m != NULL; m++) {
        cr_assert_neq(eq(*m, "e")->rhs, eq(m0, "e")->rhs);
        cr_assert_neq(eq(*m, "f")->rhs, eq(m0, "f")->rhs);
    }
    cr_assert_eq(eq(m3, "e")->rhs, eq(m0, "e")->rhs); /* the same value */
    cr_assert_eq(eq(m4, "e")->rhs, eq(m0, "e")->rhs);
    mel_model_free(m0);
    mel_model_free(m1);
    mel_model_free(m2);
    mel_model_free(m3);
    mel_model_free(m4);
    free(b);
    free(c);
}

Test(mel_since, the_equations_before_the_edit_are_shared_and_outlive_their_model)
{
    char *text = tm_slurp("brake.mel");
    char *t = tm_replaced(text, edits[0].from, edits[0].to);
    mel_model *m0 = same_as_cold(text, 6, NULL, false, "original");
    mel_model *m1 = same_as_cold(t, 6, m0, false, "(a)");
    /* before the edit: the same trees; the edited statement and those after
     * it (moved): lowered again */
    cr_assert_eq(eq(m1, "me1[2]")->lhs, eq(m0, "me1[2]")->lhs);
    cr_assert_eq(eq(m1, "pb[5]")->rhs, eq(m0, "pb[5]")->rhs);
    cr_assert_neq(eq(m1, "px[2]")->rhs, eq(m0, "px[2]")->rhs);
    cr_assert_neq(eq(m1, "ve1[2]")->lhs, eq(m0, "ve1[2]")->lhs);
    char *before = dump(m1);
    mel_model_free(m0);
    char *after = dump(m1); /* reads m0's trees: ASan's use-after-free if not held */
    cr_assert_str_eq(before, after);
    /* versions in a row: each shares with the last; past MEL__MAX_HELD
     * versions a replay rebases (mel_elab.c, "Replay: a chain without
     * end"), keeping the trees it shares: sharing never starts over */
    mel_model *prev = m1;
    int fresh = 0;
    for (int k = 0; k < 20; k++) {
        mel_model *m = same_as_cold(k % 2 ? t : text, 6, prev, false, "in a row");
        if (eq(m, "me1[2]")->lhs != eq(prev, "me1[2]")->lhs)
            fresh++;
        cr_assert_gt(m->priv->depth, 0); /* replayed */
        mel_model_free(prev);
        prev = m;
    }
    cr_assert_eq(fresh, 0, "sharing started over");
    mel_model_free(prev);
    mdae_free(before);
    mdae_free(after);
    free(t);
    free(text);
}

/* text with `ins` inserted at the start of its middle line and, when del,
 * its byte `at` deleted (owned: free). */
static char *edited(const char *text, const char *ins, bool del)
{
    size_t n = strlen(text), mid = n / 2;
    while (mid > 0 && text[mid - 1] != '\n')
        mid--;
    size_t k = strlen(ins);
    char *o = malloc(n + k + 1);
    cr_assert_not_null(o);
    memcpy(o, text, mid);
    memcpy(o + mid, ins, k);
    memcpy(o + mid + k, text + mid, n - mid + 1);
    if (del && n > 0) {
        size_t at = mid + k + (n - mid) / 2;
        memmove(o + at, o + at + 1, n + k - at);
    }
    return o;
}

/* Calls each(name, text, k) on the k-th MEL model of tests/models, for
 * every one; asserts there are at least 20. */
static void for_each_mel_model(void (*each)(const char *name, const char *text, size_t k))
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/models", MDAE_SOURCE_DIR);
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    size_t models = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".mel") != 0)
            continue;
        char *text = tm_slurp(e->d_name);
        each(e->d_name, text, models++);
        free(text);
    }
    closedir(d);
    cr_assert_geq(models, 20);
}

/* The model, its middle edited four ways, and back. */
static void middle_edits(const char *name, const char *text, size_t models)
{
    (void)models;
    static const struct {
        const char *ins;
        bool del;
    } ed[] = {{"", false}, {"\n", false}, {"// a comment\n", true}, {"", true}};
    for (size_t k = 0; k < sizeof ed / sizeof *ed; k++) {
        char what[300];
        snprintf(what, sizeof what, "%s, edit %zu", name, k);
        mel_model *m0 = same_as_cold(text, -1, NULL, true, what);
        char *t = edited(text, ed[k].ins, ed[k].del);
        mel_model *m1 = same_as_cold(t, -1, m0, true, what);
        mel_model_free(same_as_cold(text, -1, m1 != NULL ? m1 : m0, true, what));
        mel_model_free(m0);
        mel_model_free(m1);
        free(t);
    }
}

Test(mel_since, every_model_of_tests_models_and_its_edits_are_the_cold_models)
{
    for_each_mel_model(middle_edits);
}

Test(mel_since, random_edits_of_a_model_with_a_when_clause)
{
    char *text = tm_slurp("cup_and_ball_elastic_impact.mel");
    size_t n = strlen(text);
    char *t = malloc(n + 200);
    cr_assert_not_null(t);
    memcpy(t, text, n + 1);
    static const char bytes[] = "xy1+-*;:()e \nt";
    unsigned seed = 777;
    mel_model *prev = same_as_cold(t, -1, NULL, true, "original");
    for (int k = 0; k < 150; k++) {
        seed = seed * 1103515245u + 12345u;
        size_t len = strlen(t), at = (seed >> 8) % (len + 1);
        char c = bytes[(seed >> 16) % (sizeof bytes - 1)];
        if ((seed >> 4) % 2 == 0 && len + 1 < n + 200) {
            memmove(t + at + 1, t + at, len - at + 1);
            t[at] = c;
        } else if (at < len) {
            memmove(t + at, t + at + 1, len - at);
        }
        char what[64];
        snprintf(what, sizeof what, "random edit %d", k);
        mel_model *m = same_as_cold(t, -1, prev, true, what);
        if (m != NULL) {
            mel_model_free(prev);
            prev = m;
        }
        if (k % 30 == 29)
            memcpy(t, text, n + 1);
    }
    mel_model_free(prev);
    free(t);
    free(text);
}

/* An equation that was in a when-clause whose condition is false (no
 * incidences there) and is a plain equation once the `when` is broken:
 * its sides are shared, its incidences are read again, not copied from the
 * clause's none (mel_parse_fuzz's since check found the copy). */
Test(mel_since, a_statement_out_of_a_when_clause_gets_its_own_incidences)
{
    const char *in_when = "v : real;\ng : boolean;\nwhen !g & g then\n"
                          "e : equation der(v) = 9;\nend;\n";
    const char *broken = "v : real;\ng : boolean;\nwh(n !g & g then\n"
                         "e : equation der(v) = 9;\nend;\n";
    mel_model *a = same_as_cold(in_when, -1, NULL, true, "in the when-clause");
    cr_assert_eq(a->equations[0].n_incs, 0);
    mel_model *b = same_as_cold(broken, -1, a, true, "the when broken");
    cr_assert_eq(b->equations[0].n_incs, 1);
    mel_model *c = same_as_cold(in_when, -1, b, true, "the when mended");
    cr_assert_eq(c->equations[0].n_incs, 0);
    mel_model_free(a);
    mel_model_free(b);
    mel_model_free(c);
}

/* An integer constant that becomes an integer parameter of the same value
 * (same length, so every equation statement stays at its place): the
 * constant was folded into the sides, the parameter is a known quantity,
 * so nothing may be shared although the knowns have the same names, kinds
 * and values. And the other way round. */
Test(mel_since, an_integer_constant_that_becomes_a_parameter)
{
    static const char a[] = "N : integer = 0;          \n"
                            "x : real; y : real;\n"
                            "e : equation x = N * y;\n"
                            "f : equation y = der(x) + N;\n";
    char *b = tm_replaced(a, "N : integer = 0;          ", "N : parameter integer = 0;");
    mel_model *m0 = same_as_cold(a, -1, NULL, false, "a constant");
    mel_model *m1 = same_as_cold(b, -1, m0, false, "a parameter");
    mel_model *m2 = same_as_cold(a, -1, m1, false, "a constant again");
    mel_model_free(m0);
    mel_model_free(m1);
    mel_model_free(m2);
    free(b);
}

/* An equation statement at the same place, its integer constants now
 * declared after it (the declarations otherwise the same, in the same
 * order): its sides are shared, but the names are checked again, and the
 * cold parse's "used before its declaration" is reported (mel_elab.c
 * p2_item skips the check of a shared statement only when it names no
 * integer constant). With an index (c[i], a loop's) and without. */
Test(mel_since, an_integer_constant_declared_after_its_use_now)
{
    static const char a[] = "c : integer = 1;\n"
                            "x : real;\n"
                            "e : equation x = c;\n";
    static const char b[] = "x : real;       \n"
                            "         \n"
                            "e : equation x = c;\n"
                            "c : integer = 1;\n";
    static const char c[] = "foreach i in 1 .. 2 do d[i] : integer = i done;\n"
                            "foreach i in 1 .. 2 do x[i] : real done;\n"
                            "foreach i in 1 .. 2 do e[i] : equation x[i] = d[i] done;\n";
    static const char d[] = "foreach i in 1 .. 2 do x[i] : real done;        \n"
                            "                                       \n"
                            "foreach i in 1 .. 2 do e[i] : equation x[i] = d[i] done;\n"
                            "foreach i in 1 .. 2 do d[i] : integer = i done;\n";
    const char *pairs[][2] = {{a, b}, {c, d}};
    for (size_t k = 0; k < 2; k++) {
        mel_model *m0 = same_as_cold(pairs[k][0], -1, NULL, false, "declared before");
        cr_assert_not_null(m0);
        mel_model *m1 = same_as_cold(pairs[k][1], -1, m0, false, "declared after");
        cr_assert_null(m1);
        mel_model_free(m0);
    }
}

/* The declarations key (engine/mel_elab.c): a text whose equations' sides
 * alone changed takes the previous version's declarations without
 * comparing them (and declares outside conditionals without looking the
 * names up); any change to what pass 1 reads (a declaration's type or
 * value, a loop's bounds, a condition, a label, a define) compares them
 * as before. Each edit of the base, parsed with the base's model as
 * since, then the base again with the edit's, is the cold parse. */
Test(mel_since, the_declarations_key_sees_what_pass_1_reads)
{
    static const char a[] = "N : integer = 5;\n"
                            "M : integer = 2;\n"
                            "p : real    = 1;\n"
                            "foreach i in 1 .. M do\n"
                            "  x[i] : real;\n"
                            "  g[i] : boolean = x[i] > 0;\n"
                            "  if g[i] then\n"
                            "    y[i] : real;\n"
                            "    e[i] : equation y[i] = x[i];\n"
                            "  else\n"
                            "    y[i] : real;\n"
                            "    e[i] : equation y[i] = 2 * x[i];\n"
                            "  end;\n"
                            "  f[i] : equation der(x[i]) = p * y[i];\n"
                            "done;\n"
                            "h : equation z = N + M;\n"
                            "z : real;\n";
    static const struct {
        const char *what, *from, *to;
        bool shared; /* f[1]'s sides are the base's */
    } cases[] = {
        {"a side in a branch", "y[i] = 2 * x[i]", "y[i] = 3 * x[i]", true},
        {"a side before a declaration, longer", "z = N + M;", "z = N + M + 0;", true},
        {"a side made of the last declaration", "z = N + M;", "z = z;", true},
        {"a parameter made an integer constant", "p : real    = 1", "p : integer = 1", false},
        {"a constant of another value", "N : integer = 5", "N : integer = 6", false},
        {"a loop's bounds", "1 .. M do", "1 .. 2 do", true},
        {"a condition", "if g[i] then", "if g[2] then", true},
        {"a label", "h : equation", "k : equation", false},
        {"a declaration's spaces", "z : real;", "z :  real;", true},
        {"a declaration moved before the equations", "h : equation z = N + M;\nz : real;\n",
         "z : real;\nh : equation z = N + M;\n", true},
    };
    mel_model *m0 = same_as_cold(a, -1, NULL, false, "the base");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *b = tm_replaced(a, cases[k].from, cases[k].to);
        mel_model *m1 = same_as_cold(b, -1, m0, false, cases[k].what);
        cr_assert_not_null(m1, "%s", cases[k].what);
        cr_assert_eq(eq(m1, "f[1]")->rhs == eq(m0, "f[1]")->rhs, cases[k].shared, "%s",
                     cases[k].what);
        mel_model *m2 = same_as_cold(a, -1, m1, false, cases[k].what);
        mel_model_free(m1);
        mel_model_free(m2);
        free(b);
    }
    /* The same text under defines of N: other keys, the same names. */
    mel_model *m3 = same_as_cold(a, 3, m0, false, "a define of N = 3");
    cr_assert_neq(eq(m3, "h")->rhs, eq(m0, "h")->rhs);
    mel_model *m4 = same_as_cold(a, 2, m3, false, "a define of N = 2");
    cr_assert_neq(eq(m4, "h")->rhs, eq(m3, "h")->rhs);
    mel_model_free(m0);
    mel_model_free(m3);
    mel_model_free(m4);
}

/* ---- Statement-level edits in a row (issue 40 item 3) ----------------------
 * An editor's edits are mostly whole statements: one inserted, deleted,
 * changed or moved, and a syntax error typed then fixed. The lines of a
 * model are its statements (one a line in tests/models, comments aside);
 * each step edits the text of the last step by lines and parses it with the
 * last model that parsed as since, which must be the cold parse (locations
 * and diagnostics included, with recovery and without). */

/* The lines of a text: starts[k] .. starts[k + 1]. */
typedef struct lines {
    size_t n, starts[4096];
} lines;

static void split_lines(const char *t, lines *ls)
{
    ls->n = 0;
    for (size_t p = 0;;) {
        cr_assert_lt(ls->n + 1, sizeof ls->starts / sizeof *ls->starts);
        ls->starts[ls->n++] = p;
        const char *nl = strchr(t + p, '\n');
        if (nl == NULL)
            break;
        p = (size_t)(nl - t) + 1;
    }
    ls->starts[ls->n] = strlen(t);
}

/* t with bytes [a, b) replaced by `to` (owned: free). */
static char *spliced(const char *t, size_t a, size_t b, const char *to)
{
    size_t n = strlen(t), c = strlen(to);
    char *o = malloc(n - (b - a) + c + 1);
    cr_assert_not_null(o);
    memcpy(o, t, a);
    memcpy(o + a, to, c);
    memcpy(o + a + c, t + b, n - b + 1);
    return o;
}

/* One statement-level edit of t chosen by r (owned: free); *kind says
 * which. A syntax error (kind 5) is typed into a line whose statement ends
 * in ';'; the caller fixes it at the next step (reverts). */
static char *statement_edit(const char *t, unsigned r, int *kind)
{
    lines ls;
    split_lines(t, &ls);
    size_t k = (r >> 3) % ls.n, a = ls.starts[k], b = ls.starts[k + 1];
    size_t k2 = (r >> 13) % ls.n, a2 = ls.starts[k2];
    char line[512];
    size_t len = b - a < sizeof line - 1 ? b - a : sizeof line - 1;
    memcpy(line, t + a, len);
    line[len] = '\0';
    char *semi = strrchr(line, ';');
    char buf[600];
    *kind = (int)(r % 7);
    switch (*kind) {
    case 0: /* a statement deleted: the lines below move up */
        return spliced(t, a, b, "");
    case 1: /* a new unknown and its equation inserted: the lines below move down */
        snprintf(buf, sizeof buf, "zz%u : real;\nzq%u : equation der(zz%u) = zz%u;\n", r % 97,
                 r % 97, r % 97, r % 97);
        return spliced(t, a2, a2, buf);
    case 2: /* a statement copied elsewhere (a redeclaration, or an equation more) */
        return spliced(t, a2, a2, line);
    case 3: /* a statement changed in place, lines unchanged */
        if (semi == NULL || strstr(line, ": equation") == NULL)
            return spliced(t, a, a, "  ");
        *semi = '\0';
        snprintf(buf, sizeof buf, "%s + 0;%s", line, semi + 1);
        return spliced(t, a, b, buf);
    case 4: /* a statement moved: deleted here, inserted there */
        if (a2 >= a && a2 < b)
            return spliced(t, a, b, "");
        {
            char *o = k2 < k ? spliced(t, a, b, "") : NULL;
            char *p = k2 < k ? spliced(o, a2, a2, line) : spliced(t, a2, a2, line);
            free(o);
            if (k2 < k)
                return p;
            char *q = spliced(p, a, b, "");
            free(p);
            return q;
        }
    case 5: /* a syntax error typed */
        if (semi == NULL)
            return spliced(t, a, a, "+* ");
        *semi = '\0';
        snprintf(buf, sizeof buf, "%s +* ;%s", line, semi + 1);
        return spliced(t, a, b, buf);
    default: /* lines inserted above a statement, nothing else */
        return spliced(t, a2, a2, "\n// moved down\n");
    }
}

static char *copy(const char *s)
{
    size_t n = strlen(s) + 1;
    char *o = malloc(n);
    cr_assert_not_null(o);
    memcpy(o, s, n);
    return o;
}

/* steps statement edits in a row of text (n: N's define, or -1), each
 * parsed with the last model that parsed as since, with and without
 * recovery; a syntax error typed at one step is fixed at the next. */
static void statement_edits_in_a_row(const char *name, const char *text, long long n, int steps,
                                     unsigned seed)
{
    for (int recover = 0; recover < 2; recover++) {
        char *t = copy(text);
        mel_model *prev = same_as_cold(t, n, NULL, recover, name);
        for (int s = 0; s < steps; s++) {
            seed = seed * 1103515245u + 12345u;
            int kind;
            char *u = statement_edit(t, seed >> 4, &kind);
            char what[300];
            snprintf(what, sizeof what, "%s, statement edit %d (kind %d, recover %d)", name, s,
                     kind, recover);
            mel_model *m = same_as_cold(u, n, prev, recover, what);
            if (m != NULL) {
                mel_model_free(prev);
                prev = m;
            }
            if (kind == 5) { /* fixed: back to the text before the error */
                free(u);
                snprintf(what, sizeof what, "%s, statement edit %d fixed (recover %d)", name, s,
                         recover);
                m = same_as_cold(t, n, prev, recover, what);
                if (m != NULL) {
                    mel_model_free(prev);
                    prev = m;
                }
                continue;
            }
            free(t);
            t = u;
            if (s % 16 == 15) { /* back to the model now and then */
                free(t);
                t = copy(text);
            }
        }
        mel_model_free(prev);
        free(t);
    }
}

Test(mel_since, statement_edits_of_the_brake_in_a_row)
{
    char *text = tm_slurp("brake.mel");
    statement_edits_in_a_row("brake.mel", text, 5, 120, 4242);
    free(text);
}

static void statement_edits(const char *name, const char *text, size_t k)
{
    statement_edits_in_a_row(name, text, -1, 24, 99u + (unsigned)k);
}

Test(mel_since, statement_edits_of_every_model_of_tests_models_in_a_row)
{
    for_each_mel_model(statement_edits);
}

/* ---- Replay of an edit inside one equation (engine/mel_elab.c, "Replay") --
 * When the bytes that changed lie inside the sides of one equation
 * statement, the model is made from the previous one with only that
 * statement's instances elaborated again. Checked: the model is the cold
 * parse field for field (locations after the edit moved: offsets, lines,
 * columns on the edit's line), the replay happens where it should
 * (mel_model_priv.depth), falls back where it must (errors, a guard not
 * made yet, the work limit, the chain at MEL__MAX_HELD), and the models
 * may be freed in either order. */

/* How many versions in a row m was replayed (0: elaborated in full). */
static unsigned replayed(const mel_model *m)
{
    return m->priv->depth;
}

/* The lines of t that are equation statements ending in ';' (a line of
 * tests/models is a statement). */
static size_t equation_lines(const char *t, const lines *ls, size_t *out, size_t cap)
{
    size_t n = 0;
    for (size_t k = 0; k < ls->n && n < cap; k++) {
        size_t a = ls->starts[k], b = ls->starts[k + 1];
        char line[512];
        size_t len = b - a < sizeof line - 1 ? b - a : sizeof line - 1;
        memcpy(line, t + a, len);
        line[len] = '\0';
        char *c = strstr(line, "//");
        if (c != NULL)
            *c = '\0';
        if (strstr(line, ": equation") != NULL && strchr(line, ';') != NULL)
            out[n++] = k;
    }
    return n;
}

/* t with `term` typed before the ';' of its line k (owned: free). */
static char *term_typed(const char *t, const lines *ls, size_t k, const char *term)
{
    const char *semi = memchr(t + ls->starts[k], ';', ls->starts[k + 1] - ls->starts[k]);
    cr_assert_not_null(semi);
    size_t at = (size_t)(semi - t);
    return spliced(t, at, at, term);
}

/* Terms typed into the brake's equations: inside the railcar loop (i),
 * outside it; some with mode-dependent if-expressions, a line break, an
 * undeclared name, an equation's name. */
static const char *const loop_terms[] = {
    " + 0", " + der(x[i])", " + (if i == 2 then der(b[i]) else 0)",
    " + (if open[i] then x[i] else 0)", " + K*fl[i]", " - (if i > 1 then Pt[i - 1] else 0)",
    "\n    + Pr[i]", " + qq[i]", " + me1[i]", " + (if open[i] & i <> 2 then 0 else fv[i])",
    " + (if !open[i] then der(Pt[i]) else 0)", " + N*t",
};
static const char *const top_terms[] = {" + 0", " + der(t)", " + t\n  ", " + K", " + zz"};

Test(mel_since, replayed_edits_inside_the_brakes_equations_in_a_row)
{
    char *text = tm_slurp("brake.mel");
    unsigned seed = 777, replays = 0;
    for (int order = 0; order < 2; order++) {
        char *t = copy(text);
        mel_model *prev = same_as_cold(t, 6, NULL, false, "original");
        for (int s = 0; s < 40; s++) {
            seed = seed * 1103515245u + 12345u;
            lines ls;
            split_lines(t, &ls);
            size_t eqs[256];
            size_t n = equation_lines(t, &ls, eqs, 256);
            cr_assert_gt(n, 0);
            size_t k = eqs[(seed >> 8) % n];
            bool in_loop = strstr(t + ls.starts[k], "[i]") != NULL &&
                           strstr(t + ls.starts[k], "[i]") < t + ls.starts[k + 1];
            const char *term = in_loop ? loop_terms[(seed >> 16) % (sizeof loop_terms /
                                                                    sizeof *loop_terms)]
                                       : top_terms[(seed >> 16) % (sizeof top_terms /
                                                                   sizeof *top_terms)];
            char *u = term_typed(t, &ls, k, term);
            char what[300];
            snprintf(what, sizeof what, "replay %d (order %d): '%s' on line %zu", s, order, term,
                     k + 1);
            mel_model *m = same_as_cold(u, 6, prev, false, what);
            if (m == NULL) { /* an error: the text goes back */
                free(u);
                continue;
            }
            replays += replayed(m) > 0;
            prev = next_version(prev, m, u, 6, order, what);
            free(t);
            t = u;
            if (s % 13 == 12) { /* back to the model */
                free(t);
                t = copy(text);
            }
        }
        mel_model_free(prev);
        free(t);
    }
    cr_assert_gt(replays, 20, "only %u replays", replays);
    free(text);
}

/* Edit (a) of bench_edit in a row: always replayed (past MEL__MAX_HELD
 * versions, rebased: mel_elab.c, "Replay: a chain without end"); the
 * same text again is replayed too. */
Test(mel_since, the_chain_of_replays_is_bounded)
{
    char *text = tm_slurp("brake.mel");
    mel_model *prev = same_as_cold(text, 6, NULL, false, "original");
    cr_assert_eq(replayed(prev), 0);
    unsigned full = 0;
    for (int k = 0; k < 20; k++) {
        char to[200];
        snprintf(to, sizeof to,
                 "px[i] : equation b[i] = K*x[i] + (if i == %d then der(x[i]) else 0);",
                 1 + k % 6);
        char *t = k % 5 == 4 ? copy(text)
                             : tm_replaced(text, "px[i] : equation b[i] = K*x[i];", to);
        mel_model *m = same_as_cold(t, 6, prev, false, "edit (a)");
        full += replayed(m) == 0;
        cr_assert_leq(replayed(m), MEL__MAX_HELD);
        cr_assert_leq(m->priv->n_held, MEL__MAX_HELD);
        mel_model *same = same_as_cold(t, 6, m, false, "the same text again");
        full += replayed(same) == 0;
        mel_model_free(prev);
        mel_model_free(m);
        prev = same;
        free(t);
    }
    cr_assert_eq(full, 0);
    mel_model_free(prev);
    free(text);
}

/* What a chain of replays holds (see "Replay: a chain without end"): at
 * most MEL__MAX_HELD pools and depth, whatever the length of the chain. */
static void chain_bounded(const mel_model *m)
{
    const struct mel_model_priv *p = m->priv;
    cr_assert_gt(p->depth, 0, "elaborated in full");
    cr_assert_leq(p->depth, MEL__MAX_HELD);
    cr_assert_leq(p->n_held, MEL__MAX_HELD);
    cr_assert_leq(p->root_slots, p->n_held);
    size_t n = (size_t)m->n_equations + m->n_modes + m->n_knowns;
    for (size_t i = 0; i < n; i++)
        cr_assert_leq(p->tree_pool[i], p->n_held);
}

/* The k-th text of the tests' chains of edits (caller frees): for k < 12
 * the bench's edit of px with K = 1 + k (made from text, the original),
 * then " + 0" typed into t's (the previous text's) typed-th equation
 * line, counting from the top and around. */
static char *chain_text(const char *text, const char *t, int k, size_t typed)
{
    if (k < 12) {
        char to[200];
        snprintf(to, sizeof to,
                 "px[i] : equation b[i] = K*x[i] + (if i == %d then der(x[i]) else 0);", 1 + k);
        return tm_replaced(text, "px[i] : equation b[i] = K*x[i];", to);
    }
    lines ls;
    split_lines(t, &ls);
    size_t eqs[256];
    size_t n = equation_lines(t, &ls, eqs, 256);
    cr_assert_gt(n, 0);
    return term_typed(t, &ls, eqs[typed % n], " + 0");
}

/* 30 edits in a row, none elaborated in full, each the cold parse: the
 * bench's edit with K = 1 .. 12 (the text grows at K = 10: everything
 * after moves), then " + 0" typed into the brake's equations from the top
 * down (each version's pool keeps the trees of one statement, so a rebase
 * finds them all in use and copies them into its own pool), the
 * previous version freed first (as a worker does) or last, and the
 * replays of the replays. */
Test(mel_since, a_chain_of_thirty_edits_never_elaborates_in_full)
{
    char *text = tm_slurp("brake.mel");
    for (int order = 0; order < 2; order++) {
        mel_model *prev = same_as_cold(text, 6, NULL, false, "original");
        char *t = NULL;
        for (int k = 0; k < 30; k++) {
            char *u = chain_text(text, t, k, (size_t)(k - 12));
            char what[64];
            snprintf(what, sizeof what, "edit %d (order %d)", k, order);
            mel_model *m = same_as_cold(u, 6, prev, false, what);
            cr_assert_not_null(m);
            chain_bounded(m);
            prev = next_version(prev, m, u, 6, order, what);
            chain_bounded(prev);
            free(t);
            t = u;
        }
        mel_model_free(prev);
        free(t);
    }
    free(text);
}

/* A replay of an edit in the statement the previous version's replay
 * edited reads that version's list of the statement's instances instead of
 * scanning every source (mel_elab.c's replay_sources, h-fe19): two chains
 * of the same texts (the bench's edit of px, then " + 0" typed into the
 * brake's equations from the top down), the slow one with each version's
 * list forgotten (mel_model_forget_edited_rows: the next replay scans),
 * make the same lists, and each version is the cold model. */
Test(mel_since, the_edited_statements_rows_read_from_the_list_are_the_scans)
{
    char *text = tm_slurp("brake.mel");
    mel_model *fast = same_as_cold(text, 6, NULL, false, "original");
    mel_model *slow = same_as_cold(text, 6, NULL, false, "original");
    char *t = NULL;
    int listed = 0;
    for (int k = 0; k < 24; k++) {
        char *u = chain_text(text, t, k, (size_t)(k - 12) / 2); /* twice each */
        char what[64];
        snprintf(what, sizeof what, "edit %d", k);
        bool known = fast->priv->rows_known;
        uint32_t at = fast->priv->rows_at;
        mel_model *f = same_as_cold(u, 6, fast, false, what);
        mel_model *g = same_as_cold(u, 6, slow, false, what);
        cr_assert(f != NULL && g != NULL);
        cr_assert_eq(f->priv->rows_known, g->priv->rows_known, "%s", what);
        cr_assert_eq(f->priv->n_edited_rows, g->priv->n_edited_rows, "%s", what);
        cr_assert(f->priv->n_edited_rows == 0 ||
                      memcmp(f->priv->edited_rows, g->priv->edited_rows,
                             f->priv->n_edited_rows * sizeof *f->priv->edited_rows) == 0,
                  "%s: other rows", what);
        listed += known && f->priv->rows_known && f->priv->rows_at == at;
        mel_model_forget_edited_rows(g);
        mel_model_free(fast);
        mel_model_free(slow);
        fast = f;
        slow = g;
        free(t);
        t = u;
    }
    cr_assert_geq(listed, 16, "the list read %d times", listed);
    mel_model_free(fast);
    mel_model_free(slow);
    free(t);
    free(text);
}

/* Edits of integer conditions only (mel_elab.c, "Replay: instances an
 * edited condition leaves alone"): the instances whose conditions keep
 * their values take the previous sides, the others are replayed; each
 * version is the cold parse. Conditions on loop indices of two loops,
 * nested if-expressions, a branch that names an undeclared name where it
 * is not taken, an operator changed, an integer constant (not an atom:
 * replayed as usual), a literal outside the conditions, a condition on
 * other integer expressions, a condition that became a real comparison. */
Test(mel_since, edited_integer_conditions_keep_the_instances_they_leave_alone)
{
    static const char a[] =
        "N : integer = 6; M : integer = 3;\n"
        "foreach j in 1 .. 2 do foreach i in 1 .. N do\n"
        "  x[j, i] : real; y[j, i] : real;\n"
        "  e[j, i] : equation x[j, i] = y[j, i] + (if i == 2 then der(y[j, i]) else 0) +\n"
        "    (if i + 1 == 3 then 1 else 2);\n"
        "  f[j, i] : equation y[j, i] = (if j == 1 then (if i < 7 then x[j, i] else qq) else 1);\n"
        "done done\n";
    static const struct {
        const char *from, *to;
        size_t kept; /* instances that take the previous sides */
        char label;  /* the edited statement's */
    } steps[] = {
        {"if i == 2 then der", "if i == 3 then der", 8, 'e'},
        {"if i == 3 then der", "if i <> 3 then der", 0, 'e'},
        {"if i <> 3 then der", "if 3 <> i then der", 12, 'e'},
        {"if j == 1 then (if i < 7", "if j == 2 then (if i < 7", 0, 'f'},
        {"if j == 2 then (if i < 7", "if j == 2 then (if i < 5", 0, 'f'}, /* qq: an error */
        {"if j == 2 then (if i < 7", "if j == 2 then (if i < 8", 12, 'f'},
        {"if 3 <> i then der", "if 3 <> M then der", 0, 'e'},
        {"if 3 <> M then der", "if 3 <> i then der", 0, 'e'},
        {"else 0) +", "else 7) +", 0, 'e'},         /* not in a condition */
        {"if i + 1 == 3", "if i + 2 == 3", 0, 'e'}, /* a condition on no atoms */
        {"if 3 <> i then der", "if 3.0<i then der", 0, 'e'},
    };
    char *t = copy(a);
    mel_model *prev = same_as_cold(t, -1, NULL, false, "original");
    for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
        char *u = tm_replaced(t, steps[k].from, steps[k].to);
        mel_model *m = same_as_cold(u, -1, prev, false, steps[k].to);
        if (m == NULL) { /* an error: back to the last text */
            free(u);
            continue;
        }
        cr_assert_eq(m->priv->sides_as_before, steps[k].kept, "%s: %zu instances kept",
                     steps[k].to, m->priv->sides_as_before);
        /* the kept instances' sides are prev's trees (h-fe19), and only
         * theirs among the edited rows */
        const uint32_t *rows = NULL;
        size_t n_rows = 0, listed_shared = 0, unlisted_shared = 0, r = 0;
        bool list = mel_model_edited_rows(m, prev, &rows, &n_rows); /* not when rebased */
        cr_assert(list || steps[k].kept == 0 || m->priv->depth == 1, "%s: no list", steps[k].to);
        for (uint32_t q = 0; list && q < m->n_equations; q++) {
            bool listed = r < n_rows && rows[r] == q;
            r += listed;
            bool lhs = m->equations[q].lhs == prev->equations[q].lhs;
            cr_assert_eq(lhs, m->equations[q].rhs == prev->equations[q].rhs);
            listed_shared += listed && lhs;
            unlisted_shared += !listed && lhs;
        }
        cr_assert(!list || listed_shared == steps[k].kept, "%s: %zu listed rows shared",
                  steps[k].to, listed_shared);
        cr_assert(!list || unlisted_shared == m->n_equations - n_rows);
        /* the worker's sharedEquations: prev's sides, but for the edited
         * statement's instances (copies before h-fe19), counted by a loop
         * over every equation; the same without the list (the slow path) */
        size_t shared = 0;
        for (uint32_t q = 0; q < m->n_equations; q++)
            shared += m->equations[q].lhs == prev->equations[q].lhs &&
                      m->equations[q].lhs != NULL &&
                      !(m->equations[q].name[0] == steps[k].label && m->equations[q].name[1] == '[');
        cr_assert_eq(mel_model_sides_shared(m, prev), shared, "%s: %zu shared, not %zu",
                     steps[k].to, mel_model_sides_shared(m, prev), shared);
        cr_assert_eq(mel_model_sides_shared(m, NULL), 0);
        mel_model_forget_edited_rows(m);
        cr_assert_eq(mel_model_sides_shared(m, prev), shared, "%s: without the list", steps[k].to);
        char *before = dump(m);
        mel_model_free(prev);
        char *after = dump(m); /* the kept trees outlive prev's model: ASan would tell */
        cr_assert_str_eq(before, after);
        free(before);
        free(after);
        prev = m;
        free(t);
        t = u;
    }
    mel_model_free(prev);
    free(t);
}

/* Statements after the edit on the edit's own line: their columns move. A
 * guard the previous parse made only after the edited statement is not
 * found (the cold parse makes it there): elaborated in full. */
Test(mel_since, columns_on_the_edits_line_and_guards_made_later)
{
    const char *a = "g : boolean; h : boolean; x : real; y : real; z : real;\n"
                    "e1 : equation x = 1; e2 : equation der(y) = x; e3 : equation z = y;\n"
                    "if g then e4 : equation der(z) = 0; end;\n"
                    "e5 : equation 0 = (if h then x else y);\n";
    mel_model *m0 = same_as_cold(a, -1, NULL, false, "original");
    char *b = tm_replaced(a, "e1 : equation x = 1;", "e1 : equation x = 1 + der(y)*2;");
    mel_model *m1 = same_as_cold(b, -1, m0, false, "columns");
    cr_assert_gt(replayed(m1), 0);
    char *c = tm_replaced(b, "x = 1 + der(y)*2;", "x = (if h then 1 else 2);");
    mel_model *m2 = same_as_cold(c, -1, m1, false, "a guard made later");
    char *d = tm_replaced(c, "der(z) = 0;", "der(z) = (if g then 0 else x);");
    mel_model *m3 = same_as_cold(d, -1, m2, false, "inside the conditional");
    char *e = tm_replaced(d, "e2 : equation der(y) = x;", "e2 : equation der(y) =\n\n x + y;");
    mel_model *m4 = same_as_cold(e, -1, m3, false, "lines added inside");
    cr_assert_gt(replayed(m4), 0);
    mel_model_free(m0);
    mel_model_free(m2);
    mel_model_free(m1);
    mel_model_free(m4);
    mel_model_free(m3);
    free(b);
    free(c);
    free(d);
    free(e);
}

/* A statement grown past the work limit (pass 1 charges its size per
 * execution): the cold parse's limit error, not a replay. */
Test(mel_since, a_replay_within_the_work_limit_only)
{
    const char *a = "N : integer = 10;\nforeach i in 1 .. N do x[i] : real; e[i] : equation x[i] = "
                    "1; done\n";
    mel_options o = {.max_instances = 30};
    mel_model *m0 = NULL, *m1 = NULL, *c1 = NULL;
    cr_assert_eq(mel_model_parse(a, strlen(a), &o, &m0, NULL), MDAE_OK);
    char big[4096] = "";
    strcat(big, "x[i] = 1");
    for (int k = 0; k < 200; k++)
        strcat(big, " + 1");
    char *b = tm_replaced(a, "x[i] = 1", big);
    mel_options w = o;
    w.since = m0;
    int rc1 = mel_model_parse(b, strlen(b), &w, &m1, NULL);
    int rc2 = mel_model_parse(b, strlen(b), &o, &c1, NULL);
    cr_assert_eq(rc1, rc2);
    cr_assert_eq(rc1, MDAE_E_LIMIT);
    mel_model_free(m0);
    free(b);
}

/* Every MEL model of tests/models: " + 0" typed into each equation in
 * turn, each version parsed with the last. */
static void zero_typed(const char *name, const char *text, size_t k)
{
    (void)k;
    char *t = copy(text);
    mel_model *prev = same_as_cold(t, -1, NULL, true, name);
    lines ls;
    split_lines(t, &ls);
    size_t eqs[512];
    size_t n = equation_lines(t, &ls, eqs, 512);
    for (size_t j = 0; j < n && prev != NULL; j++) {
        split_lines(t, &ls);
        char *u = term_typed(t, &ls, eqs[j], j % 2 ? " + 0" : " - der(0)");
        char what[300];
        snprintf(what, sizeof what, "%s, equation line %zu", name, eqs[j] + 1);
        mel_model *m = same_as_cold(u, -1, prev, true, what);
        if (m != NULL) {
            mel_model_free(prev);
            prev = m;
        }
        free(t);
        t = u;
    }
    mel_model_free(prev);
    free(t);
}

Test(mel_since, terms_typed_into_every_models_equations)
{
    for_each_mel_model(zero_typed);
}

/* ---- Replay of an edited condition (engine/mel_elab.c, "Replay: an edited
 * condition") -------------------------------------------------------------
 * When the bytes that changed lie in the condition of an `if` whose
 * branches are equations, the model is made from the previous one with
 * only that conditional's guards made again, new guards in an overlay of
 * the previous table. Checked: the cold model field for field (guards
 * negated, a new combination of mode variables, a guard made equal to an
 * existing one, TRUE and FALSE, conditions that fold for some loop index
 * or are in error: those fall back), the replay happens where it should,
 * chains of such edits and of edits inside equations, both models freed
 * in either order, and a model whose ORs depend on the guards' order is
 * elaborated in full. */

static const char *const brake_conditions[] = {
    "open[i] & i <> 3 | !open[i] & i == 3", /* bench_edit's (b) at i = 3 */
    "!open[i]",                             /* negated: no new guard */
    "open[i] & open[1]",                    /* a new combination */
    "open[i] | open[N]",
    "!!open[i]",                            /* equal to the existing one */
    "open[i] | open[i]",
    "open[i] == open[i]",                   /* TRUE: ve2 never active */
    "open[i] <> open[i]",                   /* FALSE */
    "open[i] == open[1]",
    "(open[i] & !open[1]) | (open[1] & !open[i])",
    "open[N + 1 - i]",                      /* other variables */
    "open[i] & i > 2",                      /* folds for i <= 2: in full */
    "open[i] & qq",                         /* an error: in full */
    "open[i + 1]",                          /* open[N + 1]: an error */
    "open[i]  ",                            /* spaces only */
};

static char *condition_typed(const char *text, const char *cond)
{
    char to[256];
    snprintf(to, sizeof to, "if %s then", cond);
    return tm_replaced(text, "if open[i] then", to);
}

Test(mel_since, edited_conditions_are_replayed_as_the_cold_models)
{
    char *text = tm_slurp("brake.mel");
    size_t n = sizeof brake_conditions / sizeof *brake_conditions;
    unsigned replays = 0;
    for (size_t k = 0; k < n; k++) {
        mel_model *m0 = same_as_cold(text, 6, NULL, false, "original");
        char *t = condition_typed(text, brake_conditions[k]);
        mel_model *m1 = same_as_cold(t, 6, m0, false, brake_conditions[k]);
        if (k < 11 || k == 14) {
            cr_assert_not_null(m1);
            cr_assert_gt(replayed(m1), 0, "'%s' not replayed", brake_conditions[k]);
        }
        if (m1 != NULL)
            replays += replayed(m1) > 0;
        /* back, from the edited version; then the previous one freed first */
        mel_model *m2 = same_as_cold(text, 6, m1 != NULL ? m1 : m0, false, "back");
        mel_model_free(m0);
        char *before = m1 != NULL ? dump(m1) : NULL;
        mel_model_free(m2);
        if (m1 != NULL) { /* reads the guards and trees of m0, which it holds */
            char *after = dump(m1);
            cr_assert_str_eq(before, after);
            mdae_free(after);
        }
        mdae_free(before);
        mel_model_free(m1);
        free(t);
    }
    cr_assert_geq(replays, 12);
    free(text);
}

Test(mel_since, edited_conditions_and_equations_in_a_row)
{
    char *text = tm_slurp("brake.mel");
    size_t n = sizeof brake_conditions / sizeof *brake_conditions;
    unsigned seed = 4711, replays = 0;
    for (int order = 0; order < 2; order++) {
        char *t = copy(text);
        mel_model *prev = same_as_cold(t, 5, NULL, false, "original");
        for (int s = 0; s < 60; s++) {
            seed = seed * 1103515245u + 12345u;
            char *u;
            char what[300];
            const char *ifp = strstr(t, "  if ");
            if ((seed >> 9) % 3 != 0 && ifp != NULL) { /* the condition replaced */
                const char *c = ifp + 5, *then = strstr(c, " then");
                cr_assert_not_null(then);
                char to[256];
                snprintf(to, sizeof to, "%s", brake_conditions[(seed >> 12) % n]);
                u = spliced(t, (size_t)(c - t), (size_t)(then - t), to);
                snprintf(what, sizeof what, "step %d (order %d): if %s", s, order, to);
            } else { /* a term typed into an equation */
                lines ls;
                split_lines(t, &ls);
                size_t eqs[256];
                size_t ne = equation_lines(t, &ls, eqs, 256);
                size_t k = eqs[(seed >> 8) % ne];
                const char *term = loop_terms[(seed >> 16) % 4];
                if (strstr(t + ls.starts[k], "[i]") == NULL ||
                    strstr(t + ls.starts[k], "[i]") >= t + ls.starts[k + 1])
                    term = " + 0";
                u = term_typed(t, &ls, k, term);
                snprintf(what, sizeof what, "step %d (order %d): '%s' on line %zu", s, order, term,
                         k + 1);
            }
            mel_model *m = same_as_cold(u, 5, prev, false, what);
            if (m == NULL) {
                free(u);
                continue;
            }
            replays += replayed(m) > 0;
            prev = next_version(prev, m, u, 5, order, what);
            free(t);
            t = u;
        }
        mel_model_free(prev);
        free(t);
    }
    cr_assert_gt(replays, 40, "only %u replays", replays);
    free(text);
}

/* An OR whose operands' order is the guards' creation order (a case read
 * under g and under h): an edited condition that makes guards anew is
 * elaborated in full (or replayed), and the model is the cold one. */
Test(mel_since, a_model_whose_ors_depend_on_the_guards_order)
{
    const char *a = "g : boolean; h : boolean; x : real; y : real; z : real;\n"
                    "e1 : equation x = (if h then y else 0) + (if g then y else 0);\n"
                    "if g then e2 : equation der(y) = x; else e3 : equation y = 0; end;\n"
                    "e4 : equation z = (if g & h then x else y);\n";
    mel_model *m0 = same_as_cold(a, -1, NULL, false, "original");
    char *b = tm_replaced(a, "if g then e2", "if h & g then e2");
    mel_model *m1 = same_as_cold(b, -1, m0, false, "h & g");
    cr_assert_eq(replayed(m1), 0);
    char *c = tm_replaced(a, "if g then e2", "if !h then e2");
    mel_model *m2 = same_as_cold(c, -1, m0, false, "!h");
    mel_model_free(m0);
    mel_model_free(m1);
    mel_model_free(m2);
    free(b);
    free(c);
}

/* A condition edit with no loop around, then an equation edit from the
 * replayed model (its guards an overlay): the OR of e4's cases then
 * compares guards, made in no cold order: elaborated in full. */
Test(mel_since, edits_after_an_edited_condition)
{
    const char *a = "g : boolean; h : boolean; x : real; y : real; z : real;\n"
                    "if g then e2 : equation der(y) = x; else e3 : equation y = 0; end;\n"
                    "e4 : equation z = x;\n"
                    "e5 : equation x = y;\n";
    mel_model *m0 = same_as_cold(a, -1, NULL, false, "original");
    char *b = tm_replaced(a, "if g then", "if g & h then");
    mel_model *m1 = same_as_cold(b, -1, m0, false, "g & h");
    cr_assert_gt(replayed(m1), 0);
    char *c = tm_replaced(b, "z = x;", "z = (if g & h then x else 0) + (if h then x else 0);");
    mel_model *m2 = same_as_cold(c, -1, m1, false, "an OR of two guards after");
    cr_assert_eq(replayed(m2), 0);
    char *d = tm_replaced(b, "z = x;", "z = (if g & h then x else 0);");
    mel_model *m3 = same_as_cold(d, -1, m1, false, "one guard after");
    char *e = tm_replaced(d, "if g & h then", "if h then");
    mel_model *m4 = same_as_cold(e, -1, m3, false, "the condition again");
    mel_model_free(m1);
    mel_model_free(m0);
    mel_model_free(m3);
    mel_model_free(m4);
    mel_model_free(m2);
    free(b);
    free(c);
    free(d);
    free(e);
}

/* ---- A replay's plans (engine/mel_elab.c, "Pass 2: plans") -------------------
 * A replayed statement is checked by its plan, which a replay makes also
 * through if-expressions whose condition compares integers (SITE_IF: the
 * condition evaluated, the branch taken checked, none under a FALSE
 * guard), and looks one-index names up in the dense arrays pass 1 kept
 * (kept_index). Each edit below is parsed from the same original and
 * compared with the cold parse (the same errors, or the same model); the
 * edits without an error are replays. */
Test(mel_since, a_replays_plan_through_if_expressions_on_integers)
{
    const char *a = "N : integer = 4;\nM : integer = 2;\n"
                    "foreach i in 1 .. N do x[i] : real; y[i] : real; "
                    "open[i] : boolean = last(x[i]); done;\n"
                    "foreach i in 2 .. N + 3 do z[2 * i] : real; zz[2 * i] : equation "
                    "z[2 * i] = 0; done;\n"
                    "foreach i in 1 .. N do\n"
                    "  e[i] : equation x[i] = y[i];\n"
                    "  if open[i] & !open[i] then d[i] : equation y[i] = 0; end\n"
                    "done;\n"
                    "L : integer = 2;\n";
    static const struct {
        const char *from, *to;
        bool replays; /* else an error, found by the replay's check too */
    } plan_edits[] = {
        {"x[i] = y[i];", "x[i] = y[i] + (if i == 2 then der(y[i]) else 0);", true},
        {"x[i] = y[i];", "x[i] = y[i] + (if i > 100 then qq[i] else 0);", true},
        {"x[i] = y[i];", "x[i] = y[i] + (if i == 3 then qq[i] else 0);", false},
        {"x[i] = y[i];", "x[i] = y[i] + (if i == 2 then x[i + 7] else 0);", false},
        {"x[i] = y[i];",
         "x[i] = y[i] + (if i <= N - 1 then x[i + 1] else (if i == N then 0 else qq[i]));", true},
        {"x[i] = y[i];", "x[i] = y[i] + (if i == L then 0 else 1);", false},
        {"x[i] = y[i];", "x[i] = y[i] + (if i / 0 == 1 then 0 else qq[i]);", false},
        {"x[i] = y[i];", "x[i] = y[i] + (if i == M then der(x[i]) else z[2 * i + 2]);", true},
        {"x[i] = y[i];", "x[i] = y[i] + (if i == M then der(x[i]) else z[2 * i]);", false},
        {"x[i] = y[i];", "x[i] = y[i] + (if i > 1 then zz[2 * i] else 0);", false},
        {"x[i] = y[i];", "x[i] = y[i] + (if i == 2 then (if i > M then qq[i] else 1) else 0);",
         true},
        {"x[i] = y[i];", "x[i] = y[i] + x[-i + 2 * i] + (if -i < 0 then 1 else qq[i]);", true},
        {"y[i] = 0;", "y[i] = (if i == 1 then qq[i] else 0);", true},
    };
    mel_model *m0 = same_as_cold(a, -1, NULL, false, "original");
    cr_assert_not_null(m0);
    for (size_t k = 0; k < sizeof plan_edits / sizeof *plan_edits; k++) {
        char *t = tm_replaced(a, plan_edits[k].from, plan_edits[k].to);
        mel_model *m = same_as_cold(t, -1, m0, false, plan_edits[k].to);
        cr_assert_eq(m != NULL, plan_edits[k].replays, "%s", plan_edits[k].to);
        if (m != NULL) {
            cr_assert_gt(replayed(m), 0, "%s", plan_edits[k].to);
            char *u = tm_replaced(t, " else ", " else 0 + "); /* a replay of the replay */
            mel_model *m2 = same_as_cold(u, -1, m, false, u);
            cr_assert_not_null(m2, "%s", u);
            cr_assert_gt(replayed(m2), 1, "%s", u);
            mel_model_free(m);
            mel_model_free(m2);
            free(u);
        }
        free(t);
    }
    mel_model_free(m0);
}

/* A replay that moves no source (an edit of the same length, the same
 * text again) shares the previous version's equation sources
 * (mel_model_priv.eqsrc_borrowed); one that moves some copies them. Every
 * version is the cold parse, and the versions are freed in either order
 * (ASan: none freed early, none leaked). */
Test(mel_since, sources_shared_when_none_moves)
{
    char *text = tm_slurp("brake.mel");
    for (int order = 0; order < 2; order++) {
        mel_model *m0 = same_as_cold(text, 6, NULL, false, "original");
        char *a = tm_replaced(text, "px[i] : equation b[i] = K*x[i];",
                          "px[i] : equation b[i] = K*x[i] + (if i == 1 then der(x[i]) else 0);");
        mel_model *m1 = same_as_cold(a, 6, m0, false, "the shape");
        cr_assert_gt(replayed(m1), 0);
        cr_assert_neq(m1->priv->eqsrc, m0->priv->eqsrc);
        char *b = tm_replaced(a, "i == 1", "i == 2");
        mel_model *m2 = same_as_cold(b, 6, m1, false, "a literal");
        cr_assert_gt(replayed(m2), 1);
        cr_assert_eq(m2->priv->eqsrc, m1->priv->eqsrc);
        mel_model *m3 = same_as_cold(b, 6, m2, false, "the same text");
        cr_assert_eq(m3->priv->eqsrc, m1->priv->eqsrc);
        char *c = tm_replaced(b, "i == 2", "i == 12");
        mel_model *m4 = same_as_cold(c, 6, m3, false, "longer");
        cr_assert_gt(replayed(m4), 3);
        cr_assert_neq(m4->priv->eqsrc, m1->priv->eqsrc);
        mel_model *m5 = same_as_cold(b, 6, m4, false, "back");
        if (order == 0) {
            mel_model_free(m0);
            mel_model_free(m1);
            mel_model_free(m2);
            mel_model_free(m3);
            mel_model_free(m4);
        } else {
            mel_model_free(m4);
            mel_model_free(m3);
            mel_model_free(m2);
            mel_model_free(m1);
            mel_model_free(m0);
        }
        mel_model *m6 = same_as_cold(text, 6, m5, false, "the original again");
        mel_model_free(m5);
        mel_model_free(m6);
        free(a);
        free(b);
        free(c);
    }
    free(text);
}

/* Unknowns declared after the edit move with it (mel_model_priv.vars_end
 * says whether any is), in a replay and in a replay of that replay. */
Test(mel_since, unknowns_after_the_edit_move)
{
    const char *a = "x : real;\ne1 : equation x = 1;\ny : real; z : real;\ne2 : equation y = x;\n"
                    "e3 : equation z = y;\n";
    mel_model *m0 = same_as_cold(a, -1, NULL, false, "original");
    char *b = tm_replaced(a, "x = 1;", "x = 1 + 2;");
    mel_model *m1 = same_as_cold(b, -1, m0, false, "unknowns after");
    cr_assert_gt(replayed(m1), 0);
    char *c = tm_replaced(b, "x = 1 + 2;", "x = 1 +\n 2 + 3;");
    mel_model *m2 = same_as_cold(c, -1, m1, false, "again, a line added");
    cr_assert_gt(replayed(m2), 1);
    char *d = tm_replaced(c, "z = y;", "z = y + 0;");
    mel_model *m3 = same_as_cold(d, -1, m2, false, "after the last unknown");
    cr_assert_gt(replayed(m3), 2);
    cr_assert_eq(m3->variables, m2->variables);
    mel_model_free(m0);
    mel_model_free(m1);
    mel_model_free(m2);
    mel_model_free(m3);
    free(b);
    free(c);
    free(d);
}
