/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mel_inc.c -- the incidence structure of a flat model computed from
 * its equations' expressions (issue 38: one incidence pass, whatever the
 * language the model was read in; mel_int.h, "Incidences from
 * expressions").
 *
 * An equation side (an fx tree, engine/fx.h) reads unknown x at order o
 * where FX_VAR(x, o) stands, raised by the der() and next() around it;
 * under pre() and last() it reads nothing (a left limit is known). An
 * if-expression whose condition is a formula over mode variables (FX_MODE,
 * Booleans, integer comparisons, not/and/or, == and <> between formulas,
 * if-expressions of formulas) selects: its branches are read under the
 * guard and the condition, resp. its negation, and a branch whose guard is
 * FALSE is not read. Any other condition (a relation over reals, a call, a
 * known quantity) selects nothing: both branches are read under the guard,
 * and the condition's own unknowns are not incidences (they decide which
 * branch, they are not solved for). The guards are built as MEL's
 * elaborator builds them from the source (n-ary and/or as balanced trees,
 * `a == b` as (a & b) | (!a & !b), `if c then a else b` as
 * (c & a) | (!c & b)), so the structure is the same one.
 *
 * Promises: pure; no I/O; recursion bounded by the trees' depth (the
 * parsers' max_depth, fx.h "Depth").
 */
#include "mel_int.h"
#include "fx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct walker {
    mel__gfactory *gf;
    mel__uses *u;
    uint32_t eq;
    bool oom;
} walker;

/* ---- Conditions --------------------------------------------------------------- */

/* The value of an integer expression made of integer literals (loop
 * indices and integer constants are literals once lowered), as MEL's
 * eval_int computes it; false when e is anything else or overflows. */
static bool int_value(const fx_node *e, double *out)
{
    double a, b;
    switch ((fx_op)e->op) {
    case FX_NUM: *out = e->num; return e->is_int;
    case FX_NEG:
        if (!int_value(e->kids[0], &a))
            return false;
        *out = -a;
        return true;
    case FX_ADD:
    case FX_MUL: {
        if (!int_value(e->kids[0], &a))
            return false;
        for (uint32_t k = 1; k < e->n; k++) {
            if (!int_value(e->kids[k], &b))
                return false;
            a = e->op == FX_ADD ? a + b : a * b;
        }
        *out = a;
        return fabs(a) < 9007199254740992.0; /* exact */
    }
    case FX_DIV:
        if (!int_value(e->kids[0], &a) || !int_value(e->kids[1], &b) || b == 0)
            return false;
        *out = trunc(a / b);
        return true;
    case FX_POW:
        if (!int_value(e->kids[0], &a) || !int_value(e->kids[1], &b) || b < 0)
            return false;
        *out = pow(a, b);
        return fabs(*out) < 9007199254740992.0;
    default: return false;
    }
}

static bool compare(fx_op op, double a, double b)
{
    switch (op) {
    case FX_LT: return a < b;
    case FX_LE: return a <= b;
    case FX_GT: return a > b;
    case FX_GE: return a >= b;
    case FX_EQ: return a == b;
    default: return a != b;
    }
}

static const mel_guard *formula(walker *w, const fx_node *c);

/* kids[lo .. hi) of an n-ary and/or, combined as a balanced tree. */
static const mel_guard *nary(walker *w, const fx_node *c, uint32_t lo, uint32_t hi)
{
    if (hi - lo == 1)
        return formula(w, c->kids[lo]);
    uint32_t mid = lo + (hi - lo) / 2;
    const mel_guard *a = nary(w, c, lo, mid);
    const mel_guard *b = a != NULL ? nary(w, c, mid, hi) : NULL;
    if (b == NULL)
        return NULL;
    return c->op == FX_AND ? mel__g_and(w->gf, a, b) : mel__g_or(w->gf, a, b);
}

/* The guard condition c stands for, or NULL when c is no formula over
 * mode variables (it then selects nothing). */
static const mel_guard *formula(walker *w, const fx_node *c)
{
    mel__gfactory *f = w->gf;
    double x, y;
    switch ((fx_op)c->op) {
    case FX_BOOL: return c->num != 0 ? mel__g_true() : mel__g_false();
    case FX_MODE: return mel__g_var(f, c->index);
    case FX_NOT: {
        const mel_guard *a = formula(w, c->kids[0]);
        return a != NULL ? mel__g_not(f, a) : NULL;
    }
    case FX_AND:
    case FX_OR: return nary(w, c, 0, c->n);
    case FX_LT: case FX_LE: case FX_GT: case FX_GE: case FX_EQ: case FX_NE: {
        if (int_value(c->kids[0], &x) && int_value(c->kids[1], &y))
            return compare((fx_op)c->op, x, y) ? mel__g_true() : mel__g_false();
        if (c->op != FX_EQ && c->op != FX_NE)
            return NULL;
        const mel_guard *a = formula(w, c->kids[0]);
        const mel_guard *b = a != NULL ? formula(w, c->kids[1]) : NULL;
        if (b == NULL)
            return NULL;
        const mel_guard *same = mel__g_or(f, mel__g_and(f, a, b),
                                          mel__g_and(f, mel__g_not(f, a), mel__g_not(f, b)));
        return c->op == FX_EQ ? same : mel__g_not(f, same);
    }
    case FX_IF: {
        const mel_guard *k = formula(w, c->kids[0]);
        if (k == NULL)
            return NULL;
        const mel_guard *a = k->op == MEL_G_FALSE ? mel__g_false() : formula(w, c->kids[1]);
        const mel_guard *b = a == NULL ? NULL
                             : k->op == MEL_G_TRUE ? mel__g_false()
                                                   : formula(w, c->kids[2]);
        if (b == NULL)
            return NULL;
        return mel__g_or(f, mel__g_and(f, k, a), mel__g_and(f, mel__g_not(f, k), b));
    }
    default: return NULL;
    }
}

/* ---- Uses --------------------------------------------------------------------- */

static void add_use(walker *w, const fx_node *x, int order, int next, const mel_guard *g)
{
    if (g->op == MEL_G_FALSE || w->oom)
        return;
    mel__uses *u = w->u;
    if (u->n == u->cap) {
        size_t cap = u->cap ? 2 * u->cap : 64;
        mel__use *p = mdae_realloc(u->p, cap * sizeof *p);
        if (p == NULL) {
            w->oom = true;
            return;
        }
        u->p = p;
        u->cap = cap;
    }
    u->p[u->n] = (mel__use){w->eq, x->index, order, next, g, x->where, u->n};
    u->n++;
}

static void walk(walker *w, const fx_node *e, int shift, int next, const mel_guard *g)
{
    switch ((fx_op)e->op) {
    case FX_VAR: {
        long o = (long)e->order + shift;
        add_use(w, e, o > MEL_MAX_ORDER ? MEL_MAX_ORDER : (int)o, next, g);
        return;
    }
    case FX_DER: walk(w, e->kids[0], shift + 1, next, g); return;
    case FX_NEXT: walk(w, e->kids[0], shift + 1, next + 1, g); return;
    case FX_PRE:
    case FX_LAST: return;
    case FX_IF: {
        const mel_guard *c = formula(w, e->kids[0]);
        if (c == NULL) { /* selects nothing */
            walk(w, e->kids[1], shift, next, g);
            walk(w, e->kids[2], shift, next, g);
            return;
        }
        const mel_guard *ga = mel__g_and(w->gf, g, c);
        const mel_guard *gb = mel__g_and(w->gf, g, mel__g_not(w->gf, c));
        if (ga->op != MEL_G_FALSE)
            walk(w, e->kids[1], shift, next, ga);
        if (gb->op != MEL_G_FALSE)
            walk(w, e->kids[2], shift, next, gb);
        return;
    }
    default:
        for (uint32_t k = 0; k < e->n; k++)
            walk(w, e->kids[k], shift, next, g);
        return;
    }
}

bool mel__inc_uses(mel__gfactory *gf, mel__uses *u, uint32_t eq, const struct fx_node *e,
                   const mel_guard *g)
{
    walker w = {gf, u, eq, false};
    if (e != NULL)
        walk(&w, e, 0, 0, g);
    return !w.oom;
}

/* ---- Grouping ----------------------------------------------------------------- */

static int cmp_use(const void *x, const void *y)
{
    const mel__use *a = x, *b = y;
    if (a->eq != b->eq)
        return a->eq < b->eq ? -1 : 1;
    if (a->var != b->var)
        return a->var < b->var ? -1 : 1;
    if (a->order != b->order)
        return a->order > b->order ? -1 : 1; /* decreasing order */
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Sort the uses by cmp_use. They come equation after equation unless an
 * equation is declared in two branches: sorted by insertion then, which
 * moves none across equations and only a handful within each (qsort's
 * calls were a tenth of the elaboration), else by qsort. */
static void sort_uses(mel__use *u, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (u[i].eq < u[i - 1].eq) {
            qsort(u, n, sizeof *u, cmp_use);
            return;
        }
    for (size_t j = 1; j < n; j++) {
        mel__use x = u[j];
        size_t q = j;
        for (; q > 0 && cmp_use(&u[q - 1], &x) > 0; q--)
            u[q] = u[q - 1];
        u[q] = x;
    }
}

static bool same_case(const mel__use *a, const mel__use *b)
{
    return a->eq == b->eq && a->var == b->var && a->order == b->order;
}

/* The guard and next() count of the case of uses u[0 .. n): the OR of their
 * guards (gs: scratch for n), the largest count. */
static const mel_guard *case_guard(mel__gfactory *gf, const mel__use *u, size_t n,
                                   const mel_guard **gs, int *next)
{
    *next = u[0].next;
    if (n == 1)
        return u[0].guard;
    for (size_t k = 0; k < n; k++) {
        gs[k] = u[k].guard;
        *next = u[k].next > *next ? u[k].next : *next;
    }
    return mel__g_or_all(gf, gs, n);
}

int mel__inc_build(mel__uses *uses, mel_equation *eqs, mel__arena *ma, mel__gfactory *gf,
                   size_t *n_edges)
{
    mel__use *u = uses->p;
    size_t n = uses->n;
    sort_uses(u, n);
    *n_edges = 0;
    size_t n_incs = 0, n_cases = 0, widest = 1;
    for (size_t i = 0, c = 0; i < n; i++) {
        bool inc = i == 0 || u[i].eq != u[i - 1].eq || u[i].var != u[i - 1].var;
        bool new_case = inc || u[i].order != u[i - 1].order;
        n_incs += inc;
        n_cases += new_case;
        c = new_case ? 1 : c + 1;
        widest = c > widest ? c : widest;
    }
    mel_incidence *incs = n_incs ? mel__arena_alloc_raw(ma, n_incs * sizeof *incs) : NULL;
    mel_order_case *cases = n_cases ? mel__arena_alloc_raw(ma, n_cases * sizeof *cases) : NULL;
    const mel_guard **gs = widest > 1 ? mdae_malloc(widest * sizeof *gs) : NULL;
    if ((n_incs > 0 && incs == NULL) || (n_cases > 0 && cases == NULL) ||
        (widest > 1 && gs == NULL)) {
        mdae_free(gs);
        return MDAE_E_NOMEM;
    }
    uint32_t nc = 0; /* cases of the incidence being built, from cases[0] */
    for (size_t c = 0, d; c < n; c = d) { /* one case: u[c .. d) */
        for (d = c + 1; d < n && same_case(&u[c], &u[d]); d++)
            ;
        mel_equation *q = &eqs[u[c].eq];
        if (c == 0 || u[c].eq != u[c - 1].eq)
            q->incs = incs; /* a new equation: its incidences from here */
        int next;
        const mel_guard *g = case_guard(gf, &u[c], d - c, gs, &next);
        /* A case whose guard equals a higher-order case's adds nothing
         * (sigma is the max), nor does anything below a TRUE case: drop
         * them, so `der(x) + x` is one case. */
        bool redundant = g->op == MEL_G_FALSE || (nc > 0 && cases[nc - 1].guard->op == MEL_G_TRUE);
        for (uint32_t k = 0; k < nc && !redundant; k++)
            redundant = cases[k].guard == g;
        if (!redundant)
            cases[nc++] = (mel_order_case){g, u[c].order, u[c].where, next};
        if ((d == n || u[d].eq != u[c].eq || u[d].var != u[c].var) && nc > 0) {
            incs[0] = (mel_incidence){u[c].var, nc, cases}; /* the variable's last case */
            incs++;
            cases += nc;
            nc = 0;
            q->n_incs++;
            ++*n_edges;
        }
    }
    mdae_free(gs);
    return gf->err;
}
