/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mc_solve.c -- the restart values solved (issue 41 item 6;
 * RR-9459 (18), (30), (35); mc_int.h, mc__restart_solve; mc.h,
 * mc_restart_values): the restart system of an instant as dt -> 0, its
 * impulsive values eliminated (mc_std.c builds it: the eliminated
 * relations and the standardised equations that read no impulsive value),
 * solved for the values the instant determines. Method:
 *
 *  V1 Unknowns: the values the instant determines (mc__std_value.unknown:
 *     the newest value of the top level of each state, x+ or x'+; finite
 *     algebraic values after the restart); the other values (x-, the
 *     restart values of earlier instants) and the knowns are parameters.
 *  V2 Gauss-Jordan on the rows with mc_elim.c's machinery
 *     (mc_linear_solve: its linearity test, partial derivatives, pivot
 *     choice and zero test); rows not linear in the unknowns are set
 *     aside (the Cup-and-Ball's rope L^2 - (x+^2 + y+^2) at its instant 0).
 *  V3 Each unknown with a pivot row that reads no unknown left without a
 *     pivot is -cst / a (folded); an unknown without one is not
 *     determined, and why says so (by a row set aside: not linear in it;
 *     else the coefficients vanish, singular). Nothing is solved then.
 *  V4 Conditions: the eliminations' pivots as dt -> 0, then V2's, each
 *     "p != 0" (the divisors of V3 are products of them). Requires: the
 *     rows left over (no pivot) that are not zero, and the rows set aside
 *     with the values substituted that are not zero, each "r = 0": what
 *     the old values must satisfy for that solution (the Cup-and-Ball's
 *     L^2 - (x-^2 + y-^2) = 0: the rope was taut before).
 *
 * Promises: pure, no I/O, no global state; deterministic (mc_elim.c's
 * zero test is). Memory: the texts are the result's; nodes in the
 * caller's pool.
 */
#include "mc_int.h"

#include <string.h>

#include "mc_elim.h"

static const char *occurrence(void *ctx, uint32_t var, uint32_t order)
{
    const mc__std_system *s = ctx;
    return order == 0 && var < s->n_values ? s->values[var].name : NULL;
}

/* e printed with the values' names, appended to b. */
static void print_value(mdae_buf *b, const mel_model *m, const mc__std_system *s,
                        const fx_node *e)
{
    fx_namer n = {(void *)s, NULL, occurrence};
    fx_print_named(b, m, e, FX_SYNTAX_MEL, &n);
}

static char *text_of(const mel_model *m, const mc__std_system *s, const fx_node *e,
                     const char *suffix)
{
    mdae_buf b = {0};
    print_value(&b, m, s, e);
    mdae_buf_puts(&b, suffix);
    if (b.oom) {
        mdae_free(b.p);
        return NULL;
    }
    return b.p;
}

/* e's operator over f of each of its children (f(p, kid, ctx)); NULL on
 * OOM, or when f gives NULL for a child. */
typedef const fx_node *kid_map(fx_pool *p, const fx_node *kid, const void *ctx);

static const fx_node *map_kids(fx_pool *p, const fx_node *e, kid_map *f, const void *ctx)
{
    const fx_node *small[8] = {0};
    const fx_node **kids = e->n <= 8 ? small : mdae_malloc(e->n * sizeof *kids);
    if (kids == NULL)
        return NULL;
    uint32_t i = 0;
    for (; i < e->n; i++)
        if ((kids[i] = f(p, e->kids[i], ctx)) == NULL)
            break;
    mdae_range z = {0};
    const fx_node *out = i < e->n          ? NULL
                         : e->op == FX_CALL ? fx_call(p, (fx_fn)e->fn, e->name, kids, e->n, z)
                                            : fx_make(p, (fx_op)e->op, kids, e->n, z);
    if (kids != small)
        mdae_free(kids);
    return out;
}

typedef struct substitution {
    const fx_node *const *by; /* by[k]: what value k becomes; NULL: kept */
    size_t n;
} substitution;

/* e with each value k that has by[k] replaced by it (not folded); NULL on
 * OOM. */
static const fx_node *subst_in(fx_pool *p, const fx_node *e, const void *ctx)
{
    const substitution *s = ctx;
    if (e->op == FX_VAR)
        return e->order == 0 && e->index < s->n && s->by[e->index] != NULL ? s->by[e->index] : e;
    if (e->n == 0 || e->op == FX_OPAQUE)
        return e;
    return map_kids(p, e, subst_in, s);
}

static const fx_node *subst(fx_pool *p, const fx_node *e, const fx_node *const *by, size_t n)
{
    substitution s = {by, n};
    return subst_in(p, e, &s);
}

/* ---- Signs, for reading (V3: nothing else is rewritten) ---- */

/* Whether e reads better negated: -x, or a sum whose first term is. */
static bool lead_neg(const fx_node *e)
{
    return e->op == FX_NEG || (e->op == FX_NUM && e->num < 0) ||
           (e->op == FX_ADD && lead_neg(e->kids[0]));
}

static kid_map negate_term;

/* -e with the minus pushed into a sum's terms and through a negation. */
static const fx_node *negate(fx_pool *p, const fx_node *e)
{
    mdae_range z = {0};
    if (e->op == FX_NEG)
        return e->kids[0];
    if (e->op == FX_NUM)
        return fx_num(p, -e->num, e->is_int, z);
    if (e->op != FX_ADD)
        return fx_un(p, FX_NEG, e, z);
    return map_kids(p, e, negate_term, NULL);
}

static const fx_node *negate_term(fx_pool *p, const fx_node *e, const void *ctx)
{
    (void)ctx;
    return negate(p, e);
}

/* A quotient with the signs moved where they read best: -(n/-d) = n/d,
 * -(n/d) = (-n)/d for a sum n; a sum led by a minus negated when `flip`
 * (an equation "r = 0" or a condition "r != 0"). NULL on OOM. */
static const fx_node *tidy(fx_pool *p, const fx_node *e, bool flip)
{
    mdae_range z = {0};
    bool neg = false;
    if (e->op == FX_NEG) {
        neg = true;
        e = e->kids[0];
    }
    if (e->op == FX_DIV) {
        const fx_node *n = e->kids[0], *d = e->kids[1];
        if (lead_neg(d)) {
            d = negate(p, d);
            neg = !neg;
        }
        if (neg && (n->op == FX_ADD || lead_neg(n))) {
            n = negate(p, n);
            neg = false;
        }
        e = n != NULL && d != NULL ? fx_bin(p, FX_DIV, n, d, z) : NULL;
    }
    if (e == NULL)
        return NULL;
    if (neg)
        return negate(p, e);
    return flip && lead_neg(e) ? negate(p, e) : e;
}

/* "a, b" joined into *out (appended); false on OOM. */
static bool join(char **out, const char *t)
{
    mdae_buf b = {0};
    if (*out != NULL) {
        mdae_buf_puts(&b, *out);
        mdae_buf_puts(&b, ", ");
    }
    mdae_buf_puts(&b, t);
    if (b.oom) {
        mdae_free(b.p);
        return false;
    }
    mdae_free(*out);
    *out = b.p;
    return true;
}

/* Whether t is an item of the ", "-joined list l (NULL: empty). */
static bool strstr_list(const char *l, const char *t)
{
    size_t n = strlen(t);
    for (const char *q = l; q != NULL && (q = strstr(q, t)) != NULL; q++)
        if ((q == l || (q >= l + 2 && q[-2] == ',' && q[-1] == ' ')) &&
            (q[n] == '\0' || (q[n] == ',' && q[n + 1] == ' ')))
            return true;
    return false;
}

static int push_entry(mc_result *res, mc_restart_values *v)
{
    size_t cap = res->n_restart_values;
    int rc = mc__grow((void **)&res->restart_values, &cap, res->n_restart_values + 1,
                      sizeof *res->restart_values);
    if (rc < 0) {
        mc__restart_values_close(v);
        return rc;
    }
    res->restart_values[res->n_restart_values++] = *v;
    return MDAE_OK;
}

/* V3: why column j (value cols[j]) is not solved, into why (nothing: it
 * is). */
static void undetermined(const mc__std_system *s, const mc_linear *l, const uint32_t *cols,
                         size_t j, const mel_model *m, const bool *to, mdae_buf *why)
{
    size_t i = l->pivot_row[j], free = i == SIZE_MAX ? j : SIZE_MAX;
    for (size_t k = 0; k < l->n_cols && free == SIZE_MAX; k++)
        if (l->pivot_row[k] == SIZE_MAX && !mc_linear_is_zero(m, to, l->a[i * l->n_cols + k]))
            free = k;
    if (free == SIZE_MAX)
        return;
    const char *x = s->values[cols[j]].name, *y = s->values[cols[free]].name;
    if (l->nonlinear_col != SIZE_MAX) {
        mdae_buf_puts(why, "not linear in ");
        mdae_buf_puts(why, s->values[cols[l->nonlinear_col]].name);
        mdae_buf_puts(why, " (");
        mdae_buf_puts(why, y);
        mdae_buf_puts(why, " is not determined by the linear equations)");
        return;
    }
    mdae_buf_puts(why, x);
    if (free == j)
        mdae_buf_puts(why, " is not determined (its coefficients vanish: a singular pivot)");
    else {
        mdae_buf_puts(why, " is not determined (it depends on ");
        mdae_buf_puts(why, y);
        mdae_buf_puts(why, ", which no equation determines)");
    }
}

/* V3: the values, names[k] = values[k]; by[cols[j]] their expressions. */
static int values_of(const mel_model *m, fx_pool *p, const mc__std_system *s,
                     const mc_linear *l, const uint32_t *cols, const fx_node **by,
                     mc_restart_values *out)
{
    out->names = mdae_calloc(l->n_cols + 1, sizeof *out->names);
    out->values = mdae_calloc(l->n_cols + 1, sizeof *out->values);
    if (out->names == NULL || out->values == NULL)
        return MDAE_E_NOMEM;
    mdae_range z = {0};
    for (size_t j = 0; j < l->n_cols; j++) {
        size_t i = l->pivot_row[j];
        const fx_node *v = fx_fold(p, fx_bin(p, FX_DIV, fx_un(p, FX_NEG, l->cst[i], z),
                                             l->a[i * l->n_cols + j], z));
        v = v != NULL ? tidy(p, v, false) : NULL;
        if (v == NULL)
            return MDAE_E_NOMEM;
        by[cols[j]] = v;
        out->names[j] = mdae_strdup(s->values[cols[j]].name);
        out->values[j] = text_of(m, s, v, "");
        out->n_values = j + 1;
        if (out->names[j] == NULL || out->values[j] == NULL)
            return MDAE_E_NOMEM;
    }
    return MDAE_OK;
}

/* V4: conditions and requires. */
static int conditions_of(const mel_model *m, const bool *to, fx_pool *p,
                         const mc__std_system *s, const mc_linear *l, const fx_node *const *by,
                         mc_restart_values *out)
{
    out->requires_row = mdae_calloc(l->n_rows + 1, sizeof *out->requires_row);
    if (out->requires_row == NULL)
        return MDAE_E_NOMEM;
    for (size_t k = 0; k < s->n_pivots + l->n_pivots; k++) {
        const fx_node *piv = k < s->n_pivots ? s->pivots[k] : l->pivots[k - s->n_pivots];
        piv = tidy(p, piv, true);
        char *t = piv != NULL ? text_of(m, s, piv, " \u2260 0") : NULL;
        bool ok = t != NULL && (strstr_list(out->conditions, t) || join(&out->conditions, t));
        mdae_free(t);
        if (!ok)
            return MDAE_E_NOMEM;
    }
    for (size_t i = 0; i < l->n_rows; i++) {
        bool pivot = false;
        for (size_t j = 0; j < l->n_cols; j++)
            pivot |= l->pivot_row[j] == i;
        if (pivot)
            continue;
        const fx_node *r = l->aside[i] ? fx_fold(p, subst(p, s->rows[i], by, s->n_values))
                                       : l->cst[i];
        if (r == NULL)
            return MDAE_E_NOMEM;
        if (mc_linear_is_zero(m, to, r))
            continue;
        out->requires_row[i] = true;
        r = tidy(p, r, true);
        char *t = r != NULL ? text_of(m, s, r, " = 0") : NULL;
        bool ok = t != NULL && (strstr_list(out->requires, t) || join(&out->requires, t));
        mdae_free(t);
        if (!ok)
            return MDAE_E_NOMEM;
    }
    return MDAE_OK;
}

/* The system and solution as expressions (mc.h); takes `by` (n_values). */
static int expressions_of(const mc__std_system *s, const fx_node **by, mc_restart_values *out)
{
    out->rows = mdae_malloc((s->n_rows + 1) * sizeof *out->rows);
    out->all_names = mdae_malloc((s->n_values + 1) * sizeof *out->all_names);
    if (out->rows == NULL || out->all_names == NULL)
        return MDAE_E_NOMEM;
    if (s->n_rows > 0)
        memcpy(out->rows, s->rows, s->n_rows * sizeof *out->rows);
    out->n_rows = s->n_rows;
    for (size_t k = 0; k < s->n_values; k++)
        out->all_names[k] = s->values[k].name;
    out->n_all = s->n_values;
    out->solution = by;
    return MDAE_OK;
}

static bool value_before(const mc__std_value *a, const mc__std_value *b)
{
    return a->var != b->var ? a->var < b->var : a->level < b->level;
}

int mc__restart_solve(const mel_model *m, const bool *to, fx_pool *p, const mc__std_system *s,
                      mc_result *res)
{
    size_t nc = 0;
    uint32_t *cols = mdae_malloc((s->n_values + 1) * sizeof *cols);
    const fx_node **by = mdae_calloc(s->n_values + 1, sizeof *by);
    if (cols == NULL || by == NULL) {
        mdae_free(cols);
        mdae_free(by);
        return MDAE_E_NOMEM;
    }
    for (size_t k = 0; k < s->n_values; k++)
        if (s->values[k].unknown) { /* by variable, then level: x before y */
            size_t at = nc++;
            while (at > 0 && value_before(&s->values[k], &s->values[cols[at - 1]])) {
                cols[at] = cols[at - 1];
                at--;
            }
            cols[at] = (uint32_t)k;
        }
    mc_restart_values out;
    memset(&out, 0, sizeof out);
    out.r = s->r;
    mc_linear l;
    memset(&l, 0, sizeof l);
    int rc = MDAE_OK;
    if (nc == 0 && s->why == NULL) /* nothing determined here: no entry */
        goto done;
    if (s->why != NULL) {
        out.why = mdae_strdup(s->why);
        rc = out.why != NULL ? push_entry(res, &out) : MDAE_E_NOMEM;
        goto done;
    }
    rc = mc_linear_solve(m, to, p, s->rows, s->n_rows, cols, nc, &l);
    if (rc < 0)
        goto done;
    mdae_buf why = {0};
    if (l.why != NULL)
        mdae_buf_puts(&why, l.why);
    for (size_t j = 0; j < nc && why.len == 0; j++)
        undetermined(s, &l, cols, j, m, to, &why);
    if (why.len > 0 && l.why == NULL && s->n_unread > 0)
        mdae_buf_puts(&why, s->n_unread == 1 ? "; an equation of the instant was not read as dt \u2192 0"
                                             : "; equations of the instant were not read as dt \u2192 0");
    if (why.oom) {
        mdae_free(why.p);
        rc = MDAE_E_NOMEM;
        goto done;
    }
    if (why.len > 0)
        out.why = why.p;
    else {
        mdae_free(why.p);
        rc = values_of(m, p, s, &l, cols, by, &out);
        if (rc == MDAE_OK)
            rc = conditions_of(m, to, p, s, &l, by, &out);
        if (rc == MDAE_OK)
            rc = expressions_of(s, by, &out);
        if (rc == MDAE_OK)
            by = NULL; /* out.solution */
    }
    rc = rc == MDAE_OK ? push_entry(res, &out) : (mc__restart_values_close(&out), rc);
done:
    mc_linear_close(&l);
    mdae_free(cols);
    mdae_free(by);
    return rc;
}

void mc__restart_values_close(mc_restart_values *v)
{
    for (size_t k = 0; k < v->n_values; k++) {
        mdae_free(v->names[k]);
        mdae_free(v->values[k]);
    }
    mdae_free(v->names);
    mdae_free(v->values);
    mdae_free(v->conditions);
    mdae_free(v->requires);
    mdae_free(v->why);
    mdae_free(v->rows);
    mdae_free(v->requires_row);
    mdae_free(v->all_names);
    mdae_free(v->solution);
    memset(v, 0, sizeof *v);
}
