/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mc_elim.c -- the symbolic elimination of a restart relation
 * (mc_elim.h, E1-E5, says the method; mc_int.h, mc__reset_texts, its
 * texts in the result), and the same machinery on given rows, as
 * Gauss-Jordan, for the restart values solved (mc_linear_solve; the rows
 * not linear set aside instead of giving up).
 *
 * Promises: pure, no I/O, no global state; the pseudo-random points of the
 * zero test come from a hash of (point, unknown), so the answers are the
 * same on every run. Memory: expressions in the caller's pool; the
 * matrices are freed before returning.
 */
#include "mc_elim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mc_int.h"

#define ELIM_MAX_NODES 4000u /* a coefficient or row larger than this: given up */
#define ZERO_EPS 1e-9
#define N_PROBES 3

typedef struct el {
    const mel_model *m;
    const bool *to;
    fx_pool *p;
    uint32_t nv;            /* m->n_variables: the shift encoding */
    const mc_reset *rs;     /* the restart relation, or NULL: mc_linear_solve */
    const uint32_t *cols;   /* rs NULL: the unknowns, FX_VAR(cols[j], 0) */
    size_t n_cols;
    bool jordan;            /* rs NULL: eliminate from the pivot rows too */
    const char *why;        /* static reason, or NULL */
} el;

/* ---- E1: the rows ---------------------------------------------------------- */

static bool is_eliminated(const el *c, uint32_t var, int shift)
{
    if (c->rs == NULL) { /* mc_linear_solve: no shifts */
        for (size_t j = 0; j < c->n_cols; j++)
            if (c->cols[j] == var)
                return true;
        return false;
    }
    for (size_t j = 0; j < c->rs->eliminate.n; j++)
        if (c->rs->eliminate.items[j].index == var && c->rs->eliminate.items[j].shift == shift)
            return true;
    return false;
}

/* e read at shift k, mode if-expressions resolved; NULL with c->why (or on
 * OOM, c->why NULL). */
static const fx_node *at_shift(el *c, const fx_node *e, uint32_t k)
{
    switch (e->op) {
    case FX_VAR:
        return fx_var(c->p, e->index + k * c->nv, e->order, e->where);
    case FX_NUM:
    case FX_BOOL:
    case FX_TIME:
    case FX_KNOWN:
    case FX_MODE:
        return e;
    case FX_IF: {
        bool ok = true;
        bool v = mc__mode_cond(e->kids[0], c->to, &ok);
        if (!ok) {
            c->why = "an equation has an if-expression on values";
            return NULL;
        }
        return at_shift(c, e->kids[v ? 1 : 2], k);
    }
    case FX_OPAQUE:
        c->why = "an equation has an expression mdae keeps only as text";
        return NULL;
    case FX_NEXT:
        c->why = "an equation reads next()";
        return NULL;
    default:
        break;
    }
    const fx_node *small[8] = {0};
    const fx_node **kids = e->n <= 8 ? small : mdae_malloc(e->n * sizeof *kids);
    if (kids == NULL)
        return NULL;
    const fx_node *out = NULL;
    uint32_t i = 0;
    for (; i < e->n; i++)
        if ((kids[i] = at_shift(c, e->kids[i], k)) == NULL)
            break;
    if (i == e->n)
        out = e->op == FX_CALL ? fx_call(c->p, (fx_fn)e->fn, e->name, kids, e->n, e->where)
                               : fx_make(c->p, (fx_op)e->op, kids, e->n, e->where);
    if (kids != small)
        mdae_free(kids);
    return out;
}

/* The residual of equation item `eq` (E1), or NULL with c->why. */
static const fx_node *row_of(el *c, mc_item eq)
{
    const mel_equation *q = &c->m->equations[eq.index];
    if (q->lhs == NULL || q->rhs == NULL) {
        c->why = "the model was read without its expressions";
        return NULL;
    }
    int err = MDAE_OK;
    const fx_node *l = fx_dt(c->p, q->lhs, 0, &err); /* FX_DER expanded */
    const fx_node *r = l != NULL ? fx_dt(c->p, q->rhs, 0, &err) : NULL;
    if (r == NULL) {
        if (err == MDAE_E_NOTIMPL)
            c->why = "an equation reads next() or last()";
        return NULL;
    }
    const fx_node *ls = at_shift(c, l, (uint32_t)eq.shift);
    const fx_node *rs = ls != NULL ? at_shift(c, r, (uint32_t)eq.shift) : NULL;
    return rs != NULL ? fx_residual(c->p, ls, rs) : NULL;
}

/* ---- E2: linearity ---------------------------------------------------------- */

/* Whether e reads a value to eliminate; *deriv: through a derivative. */
static bool reads_eliminated(const el *c, const fx_node *e, bool *deriv)
{
    if (e->op == FX_VAR) {
        uint32_t x = e->index % c->nv;
        int k = (int)(e->index / c->nv);
        for (int l = k; l <= k + (int)e->order; l++)
            if (is_eliminated(c, x, l)) {
                *deriv |= e->order > 0;
                return true;
            }
        return false;
    }
    if (e->op == FX_PRE || e->op == FX_LAST) /* the value before the change */
        return false;
    for (uint32_t i = 0; i < e->n; i++)
        if (reads_eliminated(c, e->kids[i], deriv))
            return true;
    return false;
}

/* e with every value to eliminate set to 0 (E3), not folded. */
static const fx_node *set_zero(el *c, const fx_node *e)
{
    if (e->op == FX_VAR) {
        if (e->order == 0 && is_eliminated(c, e->index % c->nv, (int)(e->index / c->nv)))
            return fx_num(c->p, 0, true, e->where);
        return e;
    }
    if (e->n == 0 || e->op == FX_PRE || e->op == FX_LAST)
        return e;
    const fx_node *small[8] = {0};
    const fx_node **kids = e->n <= 8 ? small : mdae_malloc(e->n * sizeof *kids);
    if (kids == NULL)
        return NULL;
    const fx_node *out = NULL;
    uint32_t i = 0;
    for (; i < e->n; i++)
        if ((kids[i] = set_zero(c, e->kids[i])) == NULL)
            break;
    if (i == e->n)
        out = e->op == FX_CALL ? fx_call(c->p, (fx_fn)e->fn, e->name, kids, e->n, e->where)
                               : e->op == FX_OPAQUE ? e
                                                    : fx_make(c->p, (fx_op)e->op, kids, e->n, e->where);
    if (kids != small)
        mdae_free(kids);
    return out;
}

/* ---- The zero test (E4) ------------------------------------------------------ */

typedef struct probe {
    const el *c;
    uint64_t seed;
} probe;

static uint64_t mix(uint64_t h)
{
    h += 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

/* In [0.5, 2) with a random sign. */
static double pseudo(uint64_t h)
{
    h = mix(h);
    double u = (double)(h >> 11) / 9007199254740992.0;
    return (h & 1 ? -1 : 1) * (0.5 + 1.5 * u);
}

static double probe_var(void *ctx, uint32_t v, uint32_t o)
{
    const probe *q = ctx;
    return pseudo(q->seed * 1000003u + (uint64_t)v * 31u + o);
}

static double probe_known(void *ctx, uint32_t k)
{
    const probe *q = ctx;
    const mel_known *kn = &q->c->m->knowns[k];
    return kn->known ? kn->value : pseudo(q->seed * 7919u + k + 0x5555u);
}

static bool probe_mode(void *ctx, uint32_t k)
{
    const probe *q = ctx;
    return q->c->to[k];
}

static double probe_call(void *ctx, const char *name, uint32_t n, const double *args)
{
    const probe *q = ctx;
    uint64_t h = q->seed;
    for (const char *s = name; *s; s++)
        h = mix(h ^ (unsigned char)*s);
    double v = pseudo(h);
    for (uint32_t i = 0; i < n; i++)
        v += pseudo(h + i + 1) * args[i] + 0.1 * args[i] * args[i];
    return v;
}

static bool is_zero(const el *c, const fx_node *e)
{
    if (e->op == FX_NUM)
        return e->num == 0;
    for (uint64_t s = 1; s <= N_PROBES; s++) {
        probe q = {c, s};
        fx_point at = {0.5 + (double)s, probe_var, probe_known, probe_mode, probe_call, &q};
        double v;
        if (fx_eval(e, &at, &v) != MDAE_OK || !(fabs(v) <= ZERO_EPS))
            return false;
    }
    return true;
}

static bool number_of(const fx_node *e, double *v)
{
    if (e->op == FX_NUM) {
        *v = e->num;
        return true;
    }
    if (e->op == FX_NEG && e->kids[0]->op == FX_NUM) {
        *v = -e->kids[0]->num;
        return true;
    }
    return false;
}

static bool reads_unknowns(const fx_node *e)
{
    if (e->op == FX_VAR || e->op == FX_TIME)
        return true;
    for (uint32_t i = 0; i < e->n; i++)
        if (reads_unknowns(e->kids[i]))
            return true;
    return false;
}

/* 0: a number, 1: known quantities only, 2: else (E4's preference). */
static int pivot_rank(const fx_node *e)
{
    double v;
    return number_of(e, &v) ? 0 : reads_unknowns(e) ? 2 : 1;
}

/* ---- E4: Gaussian elimination ----------------------------------------------- */

typedef struct mat {
    size_t R, C;
    const fx_node **a;   /* R * C coefficients */
    const fx_node **cst; /* R constants */
    bool *row_used, *col_done;
    bool *aside;         /* R: not linear in the unknowns (mc_linear_solve) */
    size_t *pivot_row;   /* C: the pivot row of each column, or SIZE_MAX */
    size_t nonlinear_col; /* the first unknown a row set aside is not linear
                             in, or SIZE_MAX */
} mat;

/* fold(x*a - y*b); x NULL: 1. */
static const fx_node *combine(el *c, const fx_node *x, const fx_node *a, const fx_node *y,
                              const fx_node *b)
{
    mdae_range z = {0};
    const fx_node *l = x != NULL ? fx_bin(c->p, FX_MUL, x, a, z) : a;
    const fx_node *r = fx_un(c->p, FX_NEG, fx_bin(c->p, FX_MUL, y, b, z), z);
    const fx_node *s = fx_fold(c->p, fx_bin(c->p, FX_ADD, l, r, z));
    if (s != NULL && fx_size(s) > ELIM_MAX_NODES) {
        c->why = "the elimination grows too large";
        return NULL;
    }
    return s;
}

/* The next pivot (E4): *pi, *pj, or false when none is non-zero. */
static bool choose_pivot(el *c, const mat *x, size_t *pi, size_t *pj)
{
    int best = 3;
    size_t best_size = 0;
    for (size_t j = 0; j < x->C; j++) {
        if (x->col_done[j])
            continue;
        for (size_t i = 0; i < x->R; i++) {
            const fx_node *a = x->a[i * x->C + j];
            if (x->row_used[i] || x->aside[i] || is_zero(c, a))
                continue;
            int rank = pivot_rank(a);
            size_t size = fx_size(a);
            if (rank < best || (rank == best && size < best_size)) {
                best = rank;
                best_size = size;
                *pi = i;
                *pj = j;
            }
        }
    }
    return best < 3;
}

/* -e when e or the first term of e is negated (E5): "r = 0" and "r != 0"
 * read better without a leading minus. */
static const fx_node *positive(el *c, const fx_node *e)
{
    if (e->op == FX_NEG)
        return e->kids[0];
    if (e->op != FX_ADD || e->kids[0]->op != FX_NEG)
        return e;
    mdae_range z = {0};
    const fx_node *small[8] = {0};
    const fx_node **kids = e->n <= 8 ? small : mdae_malloc(e->n * sizeof *kids);
    if (kids == NULL)
        return NULL;
    for (uint32_t i = 0; i < e->n; i++)
        kids[i] = e->kids[i]->op == FX_NEG ? e->kids[i]->kids[0] : fx_un(c->p, FX_NEG, e->kids[i], z);
    const fx_node *out = fx_fold(c->p, fx_make(c->p, FX_ADD, kids, e->n, z));
    if (kids != small)
        mdae_free(kids);
    return out;
}

/* One step on pivot (i, j): every other remaining row loses value j. */
static int pivot_step(el *c, mat *x, size_t i, size_t j, mc_elim *out, size_t *cap_piv)
{
    const fx_node *p = x->a[i * x->C + j];
    double pv = 0;
    bool num = number_of(p, &pv);
    mdae_range z = {0};
    if (!num) {
        int rc = mc__grow((void **)&out->pivots, cap_piv, out->n_pivots + 1, sizeof *out->pivots);
        if (rc < 0)
            return rc;
        out->pivots[out->n_pivots++] = positive(c, p);
        if (out->pivots[out->n_pivots - 1] == NULL)
            return MDAE_E_NOMEM;
    }
    x->row_used[i] = true;
    x->col_done[j] = true;
    x->pivot_row[j] = i;
    for (size_t r = 0; r < x->R; r++) {
        const fx_node *a = x->a[r * x->C + j];
        if (r == i || (x->row_used[r] && !c->jordan) || x->aside[r] || is_zero(c, a))
            continue;
        const fx_node *f = NULL, *mul = NULL; /* row_r := mul*row_r - f*row_i */
        double av;
        if (num && number_of(a, &av))
            f = fx_fold(c->p, fx_num(c->p, av / pv, av / pv == (double)(long long)(av / pv), z));
        else if (num && pv == 1)
            f = a;
        else if (num && pv == -1)
            f = fx_fold(c->p, fx_un(c->p, FX_NEG, a, z));
        else if (num)
            f = fx_fold(c->p, fx_bin(c->p, FX_DIV, a, fx_num(c->p, pv, false, z), z));
        else {
            f = a;
            mul = p;
        }
        if (f == NULL)
            return MDAE_E_NOMEM;
        for (size_t k = 0; k < x->C; k++) {
            /* Gauss-Jordan: a pivot row's own column scales with it (row i
             * is 0 in every other done column) */
            if (k == j || (x->col_done[k] && !c->jordan))
                continue;
            const fx_node *v = combine(c, mul, x->a[r * x->C + k], f, x->a[i * x->C + k]);
            if (v == NULL)
                return c->why != NULL ? MDAE_OK : MDAE_E_NOMEM;
            x->a[r * x->C + k] = v;
        }
        x->a[r * x->C + j] = fx_num(c->p, 0, true, z);
        x->cst[r] = combine(c, mul, x->cst[r], f, x->cst[i]);
        if (x->cst[r] == NULL || x->a[r * x->C + j] == NULL)
            return c->why != NULL ? MDAE_OK : MDAE_E_NOMEM;
    }
    return MDAE_OK;
}

/* E2 and E3 for every row (rs mode: the rows of c->rs->from; else rows):
 * MDAE_OK with c->why or out->why (in the pool: which row is not linear in
 * which value) when not linear -- with rows, such a row is set aside
 * instead (x->aside); MDAE_E_NOMEM. */
static int coefficients(el *c, mat *x, const fx_node *const *rows, mc_elim *out)
{
    for (size_t i = 0; i < x->R; i++) {
        const fx_node *row = rows != NULL ? rows[i] : row_of(c, c->rs->from.items[i]);
        if (row == NULL)
            return c->why != NULL ? MDAE_OK : MDAE_E_NOMEM;
        for (size_t j = 0; j < x->C && !x->aside[i]; j++) {
            uint32_t col = rows != NULL ? c->cols[j]
                                        : c->rs->eliminate.items[j].index +
                                              (uint32_t)c->rs->eliminate.items[j].shift * c->nv;
            int err = MDAE_OK;
            const fx_node *a = fx_partial(c->p, row, col, 0, &err);
            if (a == NULL)
                return fx_pool_failed(c->p) ? MDAE_E_NOMEM : (c->why = "a partial derivative could not be taken", MDAE_OK);
            bool deriv = false;
            if (rows != NULL && reads_eliminated(c, a, &deriv)) {
                x->aside[i] = true;
                if (x->nonlinear_col == SIZE_MAX)
                    x->nonlinear_col = j;
                break;
            }
            mc_item v = rows != NULL ? (mc_item){0} : c->rs->eliminate.items[j];
            if (reads_eliminated(c, a, &deriv)) {
                mdae_buf b = {0};
                mc__print_item(&b, c->m, c->rs->from.items[i], false);
                mdae_buf_puts(&b, " is not linear in ");
                mc__print_item(&b, c->m, v, true);
                mdae_buf_puts(&b, deriv ? " (it reads a value to eliminate through a derivative)"
                                        : ": its derivative with respect to it, ");
                if (!deriv) {
                    mc__print_shifted(&b, c->m, a);
                    mdae_buf_puts(&b, ", reads a value to eliminate");
                }
                out->why = b.oom ? NULL : fx_pool_strndup(c->p, b.p, b.len);
                mdae_free(b.p);
                return out->why != NULL ? MDAE_OK : MDAE_E_NOMEM;
            }
            x->a[i * x->C + j] = a;
        }
        bool deriv = false;
        if (x->aside[i]) {
            x->cst[i] = row; /* read again by the caller (substitution) */
            continue;
        }
        x->cst[i] = fx_fold(c->p, set_zero(c, row));
        if (x->cst[i] == NULL)
            return MDAE_E_NOMEM;
        if (reads_eliminated(c, x->cst[i], &deriv)) {
            c->why = "a value to eliminate is read through a derivative";
            return MDAE_OK;
        }
    }
    return MDAE_OK;
}

static int relations(el *c, mat *x, mc_elim *out)
{
    size_t cap = 0;
    for (size_t r = 0; r < x->R; r++) {
        if (x->row_used[r] || is_zero(c, x->cst[r]))
            continue;
        const fx_node *e = positive(c, x->cst[r]);
        if (e == NULL)
            return MDAE_E_NOMEM;
        int rc = mc__grow((void **)&out->relations, &cap, out->n_relations + 1,
                          sizeof *out->relations);
        if (rc < 0)
            return rc;
        out->relations[out->n_relations++] = e;
    }
    return MDAE_OK;
}

/* An R x C matrix of NULL coefficients; false on OOM (then mat_free). */
static bool mat_new(mat *x, size_t R, size_t C)
{
    memset(x, 0, sizeof *x);
    x->R = R;
    x->C = C;
    x->nonlinear_col = SIZE_MAX;
    x->a = mdae_calloc(R * C + 1, sizeof *x->a);
    x->cst = mdae_calloc(R + 1, sizeof *x->cst);
    x->row_used = mdae_calloc(R + 1, sizeof *x->row_used);
    x->col_done = mdae_calloc(C + 1, sizeof *x->col_done);
    x->aside = mdae_calloc(R + 1, sizeof *x->aside);
    x->pivot_row = mdae_malloc((C + 1) * sizeof *x->pivot_row);
    if (x->pivot_row != NULL)
        for (size_t j = 0; j <= C; j++)
            x->pivot_row[j] = SIZE_MAX;
    return x->a && x->cst && x->row_used && x->col_done && x->aside && x->pivot_row;
}

static void mat_free(mat *x)
{
    mdae_free(x->a);
    mdae_free(x->cst);
    mdae_free(x->row_used);
    mdae_free(x->col_done);
    mdae_free(x->aside);
    mdae_free(x->pivot_row);
}

static int eliminate(el *c, mat *x, mc_elim *out)
{
    int rc = coefficients(c, x, NULL, out);
    if (rc < 0 || c->why != NULL || out->why != NULL)
        return rc;
    size_t cap_piv = 0;
    for (size_t step = 0; step < x->C; step++) {
        size_t i = 0, j = 0;
        if (!choose_pivot(c, x, &i, &j)) {
            c->why = "no remaining equation reads a value to eliminate (its coefficients vanish)";
            return MDAE_OK;
        }
        rc = pivot_step(c, x, i, j, out, &cap_piv);
        if (rc < 0 || c->why != NULL)
            return rc;
    }
    return relations(c, x, out);
}

int mc_reset_eliminate(const mel_model *m, const bool *to, const mc_reset *rs, fx_pool *p,
                       mc_elim *out)
{
    if (m == NULL || rs == NULL || p == NULL || out == NULL || (m->n_modes > 0 && to == NULL))
        return MDAE_E_INVAL;
    memset(out, 0, sizeof *out);
    int max_shift = 0;
    for (size_t k = 0; k < rs->from.n; k++) {
        if (rs->from.items[k].index >= m->n_equations || rs->from.items[k].shift < 0)
            return MDAE_E_INVAL;
        max_shift = rs->from.items[k].shift > max_shift ? rs->from.items[k].shift : max_shift;
    }
    for (size_t k = 0; k < rs->eliminate.n; k++)
        if (rs->eliminate.items[k].index >= m->n_variables || rs->eliminate.items[k].shift < 0)
            return MDAE_E_INVAL;
    if ((uint64_t)m->n_variables * (uint64_t)(max_shift + 2) > UINT32_MAX) {
        out->why = "too many values to number";
        return MDAE_OK;
    }
    el c = {m, to, p, m->n_variables, rs, NULL, 0, false, NULL};
    mat x;
    int rc = mat_new(&x, rs->from.n, rs->eliminate.n) ? eliminate(&c, &x, out) : MDAE_E_NOMEM;
    if (rc == MDAE_OK && fx_pool_failed(p))
        rc = MDAE_E_NOMEM;
    if (rc == MDAE_OK && c.why != NULL && out->why == NULL)
        out->why = c.why;
    if (rc < 0 || out->why != NULL) {
        mdae_free(out->relations);
        mdae_free(out->pivots);
        out->relations = NULL;
        out->pivots = NULL;
        out->n_relations = out->n_pivots = 0;
    }
    mat_free(&x);
    return rc;
}

void mc_elim_close(mc_elim *e)
{
    if (e == NULL)
        return;
    mdae_free(e->relations);
    mdae_free(e->pivots);
    e->relations = e->pivots = NULL;
    e->n_relations = e->n_pivots = 0;
}

void mc__reset_close(mc_reset *rs)
{
    for (size_t k = 0; k < rs->n_eliminated; k++) {
        mdae_free(rs->eliminated[k]);
        if (rs->standard != NULL)
            mdae_free(rs->standard[k]);
    }
    mdae_free(rs->eliminated);
    mdae_free(rs->standard);
    mdae_free(rs->std_why);
    mdae_free(rs->conditions);
    mdae_free(rs->why);
    rs->eliminated = rs->standard = NULL;
    rs->std_why = NULL;
    rs->conditions = rs->why = NULL;
    rs->n_eliminated = 0;
}

static char *copy_text(const char *s)
{
    size_t n = strlen(s) + 1;
    char *t = mdae_malloc(n);
    if (t != NULL)
        memcpy(t, s, n);
    return t;
}

/* rs's texts from e (E5: "r = 0"; the pivots "p != 0"). */
static int texts_of(const mel_model *m, const mc_elim *e, mc_reset *rs)
{
    if (e->why != NULL)
        return (rs->why = copy_text(e->why)) != NULL ? MDAE_OK : MDAE_E_NOMEM;
    rs->eliminated = mdae_calloc(e->n_relations + 1, sizeof *rs->eliminated);
    rs->standard = mdae_calloc(e->n_relations + 1, sizeof *rs->standard);
    rs->std_why = mdae_calloc(e->n_relations + 1, sizeof *rs->std_why);
    if (rs->eliminated == NULL || rs->standard == NULL || rs->std_why == NULL)
        return MDAE_E_NOMEM;
    for (size_t k = 0; k < e->n_relations; k++) {
        mdae_buf b = {0};
        mc__print_shifted(&b, m, e->relations[k]);
        mdae_buf_puts(&b, " = 0");
        if (b.oom) {
            mdae_free(b.p);
            return MDAE_E_NOMEM;
        }
        rs->eliminated[rs->n_eliminated++] = b.p;
    }
    if (e->n_pivots == 0)
        return MDAE_OK;
    mdae_buf b = {0};
    for (size_t k = 0; k < e->n_pivots; k++) {
        if (k > 0)
            mdae_buf_puts(&b, ", ");
        mc__print_shifted(&b, m, e->pivots[k]);
        mdae_buf_puts(&b, " \u2260 0");
    }
    if (b.oom) {
        mdae_free(b.p);
        return MDAE_E_NOMEM;
    }
    rs->conditions = b.p;
    return MDAE_OK;
}

int mc__reset_texts(const mel_model *m, const bool *to, mc_reset *rs)
{
    if (rs->eliminate.n == 0)
        return MDAE_OK;
    fx_pool *p = fx_pool_new();
    if (p == NULL)
        return MDAE_E_NOMEM;
    mc_elim e = {0};
    int rc = mc_reset_eliminate(m, to, rs, p, &e);
    if (rc == MDAE_OK)
        rc = texts_of(m, &e, rs);
    if (rc < 0)
        mc__reset_close(rs);
    mc_elim_close(&e);
    fx_pool_free(p);
    return rc;
}

/* ---- The same machinery on given rows (mc_elim.h, mc_linear_solve) ------------ */

int mc_linear_solve(const mel_model *m, const bool *to, fx_pool *p, const fx_node *const *rows,
                    size_t n_rows, const uint32_t *cols, size_t n_cols, mc_linear *out)
{
    if (m == NULL || p == NULL || out == NULL || (n_rows > 0 && rows == NULL) ||
        (n_cols > 0 && cols == NULL) || (m->n_modes > 0 && to == NULL))
        return MDAE_E_INVAL;
    for (size_t i = 0; i < n_rows; i++)
        if (rows[i] == NULL)
            return MDAE_E_INVAL;
    memset(out, 0, sizeof *out);
    /* nv = UINT32_MAX: FX_VAR(v, 0) is unknown v at shift 0 */
    el c = {m, to, p, UINT32_MAX, NULL, cols, n_cols, true, NULL};
    mat x;
    mc_elim e = {0};
    size_t cap_piv = 0;
    int rc = mat_new(&x, n_rows, n_cols) ? coefficients(&c, &x, rows, &e) : MDAE_E_NOMEM;
    while (rc == MDAE_OK && c.why == NULL) {
        size_t i = 0, j = 0;
        if (!choose_pivot(&c, &x, &i, &j))
            break;
        rc = pivot_step(&c, &x, i, j, &e, &cap_piv);
    }
    if (rc == MDAE_OK && fx_pool_failed(p))
        rc = MDAE_E_NOMEM;
    if (rc < 0) {
        mc_elim_close(&e);
        mat_free(&x);
        return rc;
    }
    out->n_rows = n_rows;
    out->n_cols = n_cols;
    out->a = x.a;
    out->cst = x.cst;
    out->pivot_row = x.pivot_row;
    out->aside = x.aside;
    out->nonlinear_col = x.nonlinear_col;
    out->n_pivots = e.n_pivots;
    out->pivots = e.pivots;
    out->why = c.why;
    mdae_free(x.row_used);
    mdae_free(x.col_done);
    return MDAE_OK;
}

void mc_linear_close(mc_linear *l)
{
    if (l == NULL)
        return;
    mdae_free(l->a);
    mdae_free(l->cst);
    mdae_free(l->pivot_row);
    mdae_free(l->aside);
    mdae_free(l->pivots);
    memset(l, 0, sizeof *l);
}

bool mc_linear_is_zero(const mel_model *m, const bool *to, const fx_node *e)
{
    el c = {m, to, NULL, UINT32_MAX, NULL, NULL, 0, true, NULL};
    return is_zero(&c, e);
}
