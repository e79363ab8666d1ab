/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/rimis_eqs.c -- the equations of a RIMIS (engine/rimis.h; the
 * build's state in rimis_core.h):
 *  - rc__block_equations (step 4): each (equation, order) of a block
 *    differentiated (fx_dt), partially evaluated under the block's
 *    condition (rimis__peval), renamed (rimis_names.c), and guarded by
 *    the condition with `else w = 0` where w is the unknown a perfect
 *    matching of the block (equations x unknowns at their leading orders,
 *    Kuhn's augmenting paths on the evaluated equations' incidences)
 *    gives it;
 *  - rc__define_values (step 2): for every output variable declared, what
 *    defines it: a multiplexer (V of a replicated (u, n), a read
 *    replicate), a state equation der(V) = V' (factored) or der(rho) =
 *    rho' with its reinitialisation (a state replicate).
 */
#include "rimis_core.h"

#include <assert.h>
#include <string.h>

/* ---- Block equations ------------------------------------------------------- */

/* The position of (v, r) among the block's unknowns, or -1. */
static long unknown_at(const cdg_block *k, uint32_t v, int r)
{
    size_t lo = 0, hi = k->n_unknowns;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (k->unknowns[mid].index < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < k->n_unknowns && k->unknowns[lo].index == v && k->unknowns[lo].order == r)
        return (long)lo;
    return -1;
}

/* The block's bipartite graph (equations x unknowns at their leading
 * orders, sparse: the unknowns of equation j are adj[first[j] ..
 * first[j + 1])) and a matching of it. */
typedef struct match {
    size_t n;
    size_t *first;
    uint32_t *adj;
    size_t n_adj, cap_adj;
    long *of_unk;   /* unknown -> equation */
    long *of_eq;    /* equation -> unknown */
    uint32_t *seen; /* per unknown: the stamp of the last search / walk */
    uint32_t stamp;
} match;

static void add_edge(rc_build *b, match *mt, uint32_t t)
{
    if (mt->seen[t] == mt->stamp)
        return; /* already an edge of this equation */
    mt->seen[t] = mt->stamp;
    if (mt->n_adj == mt->cap_adj) {
        size_t cap = mt->cap_adj ? 2 * mt->cap_adj : 64;
        uint32_t *a = sa__alloc_raw(b->c, cap * sizeof *a);
        if (mt->n_adj > 0)
            memcpy(a, mt->adj, mt->n_adj * sizeof *a);
        mt->adj = a;
        mt->cap_adj = cap;
    }
    mt->adj[mt->n_adj++] = t;
}

static void mark_incidence(rc_build *b, const cdg_block *k, const fx_node *e, match *mt)
{
    if (e == NULL)
        return;
    if (e->op == FX_VAR) {
        long t = unknown_at(k, e->index, e->order);
        if (t >= 0)
            add_edge(b, mt, (uint32_t)t);
        return;
    }
    for (uint32_t i = 0; i < e->n; i++)
        mark_incidence(b, k, e->kids[i], mt);
}

static bool augment(match *mt, size_t j)
{
    for (size_t a = mt->first[j]; a < mt->first[j + 1]; a++) {
        uint32_t t = mt->adj[a];
        if (mt->seen[t] == mt->stamp)
            continue;
        mt->seen[t] = mt->stamp;
        if (mt->of_unk[t] < 0 || augment(mt, (size_t)mt->of_unk[t])) {
            mt->of_unk[t] = (long)j;
            mt->of_eq[j] = (long)t;
            return true;
        }
    }
    return false;
}

/* A perfect matching where the incidences allow it (Kuhn's augmenting
 * paths); equations left unmatched take the unknowns left, in order
 * (still a bijection). */
static bool block_matching(match *mt)
{
    bool perfect = true;
    for (size_t j = 0; j < mt->n; j++) {
        mt->stamp++;
        perfect = augment(mt, j) && perfect;
    }
    size_t t = 0;
    for (size_t j = 0; j < mt->n; j++) {
        if (mt->of_eq[j] >= 0)
            continue;
        while (mt->of_unk[t] >= 0)
            t++;
        mt->of_unk[t] = (long)j;
        mt->of_eq[j] = (long)t;
    }
    return perfect;
}

static void match_init(rc_build *b, match *mt, size_t n)
{
    mt->n = n;
    mt->first = sa__alloc(b->c, (n + 1) * sizeof *mt->first);
    mt->of_unk = sa__alloc_raw(b->c, (n + 1) * sizeof *mt->of_unk);
    mt->of_eq = sa__alloc_raw(b->c, (n + 1) * sizeof *mt->of_eq);
    mt->seen = sa__alloc(b->c, (n + 1) * sizeof *mt->seen);
    for (size_t j = 0; j < n; j++)
        mt->of_unk[j] = mt->of_eq[j] = -1;
}

/* e with every der(a) of an expression a (FX_DER, which fx_dt leaves
 * where it does not differentiate) replaced by a's time derivative, so
 * that the output's equations hold der() of its states only. NULL with
 * *err on failure (fx_dt's errors). */
const fx_node *rc__expand_der(rc_build *b, const fx_node *e, int *err)
{
    if (e == NULL || e->n == 0 || *err != MDAE_OK)
        return e;
    const fx_node **kids = sa__alloc_raw(b->c, e->n * sizeof *kids);
    bool changed = false;
    for (uint32_t i = 0; i < e->n; i++) {
        kids[i] = rc__expand_der(b, e->kids[i], err);
        if (kids[i] == NULL)
            return NULL;
        changed = changed || kids[i] != e->kids[i];
    }
    if (e->op == FX_DER)
        return fx_dt(b->pool, kids[0], 1, err);
    if (!changed)
        return e;
    const fx_node *n = e->op == FX_CALL     ? fx_call(b->pool, (fx_fn)e->fn, e->name, kids, e->n, e->where)
                       : e->op == FX_OPAQUE ? fx_opaque(b->pool, e->name, kids, e->n, e->where)
                                            : fx_make(b->pool, (fx_op)e->op, kids, e->n, e->where);
    if (n == NULL)
        rc__oom(b);
    return n;
}

/* lhs, rhs of (equation i, order o) differentiated and evaluated under
 * block blk's condition; false (refused) when that cannot be done. */
static bool evaluated(rc_build *b, uint32_t blk, const cdg_item *it, const fx_node **lhs,
                      const fx_node **rhs)
{
    const mel_equation *q = &b->m->equations[it->index];
    if (q->lhs == NULL || q->rhs == NULL) {
        rc__refuse(b, q->where, "RIMIS needs the expressions of equation '%s'", q->name);
        return false;
    }
    int err = MDAE_OK;
    sa__amark am = sa__alloc_mark(b->c);
    const fx_node *l = rc__expand_der(b, q->lhs, &err);
    const fx_node *r = rc__expand_der(b, q->rhs, &err);
    sa__alloc_release(b->c, am);
    l = err == MDAE_OK ? fx_dt(b->pool, l, (unsigned)it->order, &err) : NULL;
    r = err == MDAE_OK ? fx_dt(b->pool, r, (unsigned)it->order, &err) : NULL;
    if (err != MDAE_OK && err != MDAE_E_NOMEM) {
        rc__refuse(b, q->where, "RIMIS cannot differentiate equation '%s' %d time(s): %s",
                   q->name, it->order, mdae_strerror(err));
        return false;
    }
    if (l == NULL || r == NULL)
        rc__oom(b);
    size_t mark = sa__mark(b->c);
    *lhs = rimis__peval(b->c, b->r, b->pool, l, b->bq[blk], b->r->ok);
    *rhs = rimis__peval(b->c, b->r, b->pool, r, b->bq[blk], b->r->ok);
    sa__release(b->c, mark);
    if (*lhs == NULL || *rhs == NULL)
        rc__oom(b);
    return true;
}

/* The left side of equation j's else-branch: w + eps * (the block's other
 * unknowns that its evaluated equation contains), eps = 1 / (2 n). So a
 * single-mode tool may match the equation to any unknown it contains and
 * still find that unknown in both branches, and outside the block's modes
 * the block is a linear system with solution 0 that is nonsingular: the
 * matrix is the matching's permutation plus eps times at most n - 1 ones
 * per row, invertible since eps * (n - 1) < 1. */
static const fx_node *else_side(rc_build *b, uint32_t blk, const match *mt, size_t j,
                                uint32_t w)
{
    static const mdae_range r0;
    const cdg_block *k = &b->blk[blk];
    size_t n_others = mt->first[j + 1] - mt->first[j];
    const fx_node *wv = fx_var(b->pool, w, 0, r0);
    if (wv == NULL)
        rc__oom(b);
    const fx_node **others = sa__alloc(b->c, (n_others + 1) * sizeof *others);
    uint32_t n = 0;
    for (size_t a = mt->first[j]; a < mt->first[j + 1]; a++) {
        const cdg_item *u = &k->unknowns[mt->adj[a]];
        uint32_t x = rc__own_name(b, blk, u->index, u->order);
        if (x != w && (others[n++] = fx_var(b->pool, x, 0, r0)) == NULL)
            rc__oom(b);
    }
    if (n == 0)
        return wv;
    const fx_node *sum = n == 1 ? others[0] : fx_make(b->pool, FX_ADD, others, n, r0);
    const fx_node *eps = fx_num(b->pool, 1.0 / (2.0 * (double)mt->n), false, r0);
    const fx_node *e = fx_bin(b->pool, FX_ADD, wv, fx_bin(b->pool, FX_MUL, eps, sum, r0), r0);
    if (e == NULL)
        rc__oom(b);
    return e;
}

static void put_block_equation(rc_build *b, uint32_t blk, const cdg_item *it, const fx_node *l,
                               const fx_node *r, uint32_t w, const fx_node *alt)
{
    const mel_equation *q = &b->m->equations[it->index];
    const char *why = NULL;
    const fx_node *nl = rc__rename(b, l, blk, &why);
    const fx_node *nr = nl != NULL ? rc__rename(b, r, blk, &why) : NULL;
    if (nl == NULL || nr == NULL) {
        rc__refuse(b, q->where, "RIMIS cannot print equation '%s': %s", q->name,
                   why != NULL ? why : "?");
        return;
    }
    rc_beq *e = rc__push(b, &b->beq, sizeof *e);
    e->block = blk;
    e->eq = it->index;
    e->order = it->order;
    e->lhs = nl;
    e->rhs = nr;
    long ci = b->bcond[blk];
    e->guard = ci >= 0 && !b->opt->no_guard ? b->cond_fx[ci] : NULL;
    e->w = w;
    e->alt = alt;
}

/* The block's equations, evaluated under its condition, have no perfect
 * matching onto its unknowns: their expressions lost incidences the
 * structure has (a cancellation such as x - x, a branch the structure
 * counts in modes the expression does not); the output may be singular
 * there. */
static void lost_incidence(rc_build *b, uint32_t blk)
{
    const cdg_item *e = &b->blk[blk].equations[0];
    const mel_equation *q = &b->m->equations[e->index];
    if (mdae_diags_add(&b->res->warnings, MDAE_SEV_WARNING, q->where,
                       "RIMIS: the equations of the block of '%s' (derivative %d) do not all "
                       "contain the unknowns the analysis gives them once evaluated (a "
                       "cancellation in the expressions?): the output may be singular there",
                       q->name, e->order) != MDAE_OK)
        rc__oom(b);
}

void rc__block_equations(rc_build *b, uint32_t blk)
{
    const cdg_block *k = &b->blk[blk];
    size_t n = k->n_equations;
    const fx_node **l = sa__alloc(b->c, (n + 1) * sizeof *l);
    const fx_node **r = sa__alloc(b->c, (n + 1) * sizeof *r);
    match mt = {0};
    match_init(b, &mt, n);
    for (size_t j = 0; j < n; j++) {
        if (!evaluated(b, blk, &k->equations[j], &l[j], &r[j]))
            return;
        mt.stamp++;
        mark_incidence(b, k, l[j], &mt);
        mark_incidence(b, k, r[j], &mt);
        mt.first[j + 1] = mt.n_adj;
    }
    if (!block_matching(&mt))
        lost_incidence(b, blk);
    for (size_t j = 0; j < n; j++) {
        const cdg_item *u = &k->unknowns[mt.of_eq[j]];
        uint32_t w = rc__own_name(b, blk, u->index, u->order);
        put_block_equation(b, blk, &k->equations[j], l[j], r[j], w, else_side(b, blk, &mt, j, w));
    }
}

/* ---- Definitions of the values ---------------------------------------------- */

/* var = the writers' names of (u, n) among those meeting `within`, by
 * their conditions (don't-cares: outside within and the writers' modes,
 * and the modes of earlier branches). */
static void multiplexer(rc_build *b, uint32_t var, uint32_t u, int n, BDD within)
{
    size_t mark = sa__mark(b->c);
    BDD *care = sa__slots(b->c, 2); /* care, taken */
    uint32_t count = 0;
    for (uint32_t i = b->wfirst[u]; i < b->wfirst[u + 1]; i++) {
        if (b->w[i].k >= n && sa__and(b->bq[b->w[i].block], within) != bddfalse) {
            sa__put(&care[0], sa__or(care[0], b->bq[b->w[i].block]));
            count++;
        }
    }
    sa__put(&care[0], sa__and(care[0], within));
    rc_multi *x = rc__push(b, &b->multi, sizeof *x);
    x->var = var;
    x->n = count;
    x->rhos = sa__alloc(b->c, (count + 1) * sizeof *x->rhos);
    x->conds = sa__alloc(b->c, (count + 1) * sizeof *x->conds);
    uint32_t at = 0;
    for (uint32_t i = b->wfirst[u]; i < b->wfirst[u + 1]; i++) {
        BDD q = b->bq[b->w[i].block];
        if (b->w[i].k < n || sa__and(q, within) == bddfalse)
            continue;
        x->rhos[at] = rc__own_name(b, b->w[i].block, u, n);
        if (at + 1 < count) {
            BDD lo = sa__tmp(b->c, sa__and(q, care[0]));
            BDD hi = sa__tmp(b->c, sa__or(sa__or(q, care[1]), sa__diff(bddtrue, care[0])));
            x->conds[at] = rc__cond_expr(b, lo, hi);
            sa__put(&care[1], sa__or(care[1], q));
        }
        at++;
    }
    sa__release(b->c, mark);
}

static void diff_equation(rc_build *b, uint32_t state, uint32_t rate)
{
    rc_diff *d = rc__push(b, &b->diff, sizeof *d);
    d->state = state;
    d->rate = rate;
    b->res->vars[state].state = true;
}

static void define_value(rc_build *b, uint32_t v)
{
    const rimis_var x = b->res->vars[v];
    long direct = -1;
    switch (rc__class(b, x.var, x.order, &direct)) {
    case RC_DIRECT: return;
    case RC_FACTORED: diff_equation(b, v, rc__value(b, x.var, x.order + 1)); return;
    case RC_REPL:
        rc__replicates(b, x.var, x.order);
        multiplexer(b, v, x.var, x.order, bddtrue);
        return;
    case RC_NONE:
        if (x.order == 0) { /* exists in no valid nonsingular mode */
            rc_multi *z = rc__push(b, &b->multi, sizeof *z);
            z->var = v;
            return;
        }
        rc__refuse(b, b->m->variables[x.var].where,
                   "RIMIS: the derivative %d of '%s' is read, but no block computes it",
                   x.order, b->m->variables[x.var].name);
        return;
    }
}

static void define_replicate(rc_build *b, uint32_t v)
{
    const rimis_var x = b->res->vars[v];
    if (!x.state)
        return;
    uint32_t blk = (uint32_t)x.block;
    diff_equation(b, v, rc__own_name(b, blk, x.var, x.order + 1));
    if (x.cond < 0)
        return;
    rc_reinit *ri = rc__push(b, &b->reinit, sizeof *ri);
    ri->var = v;
    ri->cond = b->cond_fx[x.cond];
    static const mdae_range r0;
    ri->value = fx_un(b->pool, FX_PRE, fx_var(b->pool, rc__value(b, x.var, x.order), 0, r0), r0);
    if (ri->value == NULL)
        rc__oom(b);
}

void rc__define_values(rc_build *b, uint32_t first_var)
{
    for (uint32_t v = first_var; v < b->res->n_vars; v++) { /* n_vars grows */
        const rimis_var *x = &b->res->vars[v];
        switch (x->kind) {
        case RIMIS_V_SOURCE:
        case RIMIS_V_DUMMY: define_value(b, v); break;
        case RIMIS_V_REPLICATE: define_replicate(b, v); break;
        case RIMIS_V_READ:
            multiplexer(b, v, x->var, x->order, b->bq[x->block]);
            break;
        }
    }
}
