/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_encode.c -- from a mel_model to Boolean functions (RR-9322 4.3):
 * the variable order, chi_M, chi_I, chi_J, chi_E and sigma, and the
 * consistency check chi_E => chi_J.
 *
 * Variable order (issue 3, item 6). The matching constraints tie together
 * the edges of one equation (rows) and of one variable (columns). Rows are
 * kept contiguous (one block of edge variables per equation); the columns
 * span the rows using the variable, so the rows should be ordered so that
 * every column stays within a narrow window. Each mode variable sits just
 * before the first row whose guards mention it; mode variables only used by
 * invariants come first. Two orders of the rows (sa_config.order):
 *  - declaration order: models are written component by
 *    component (a loop body per room, per railcar), which is already a
 *    narrow-band order;
 *  - Cuthill-McKee: breadth-first over the bipartite incidence graph from a
 *    pseudo-peripheral node, neighbours by increasing degree, rows in visit
 *    order, edges of a row by visit order of their variables.
 * Measured (2026-11-21, tests/bench/README.md): on the building model,
 * Cuthill-McKee interleaves the rooms (its breadth-first levels run along the
 * corridor while each room hangs off it, and the global time variable is a
 * hub) and X is 3-4 times larger than in declaration order; analysis at
 * N = 3 takes 0.5 s instead of 0.14 s, and much worse beyond. Brake and
 * RLDC chains are fine either way.
 * Modelica exports are not written that way: OpenModelica lists the
 * aliases and unit conversions of a model first (`p_bar = p / 1e5`), whose
 * variables are used again hundreds of rows below, so their columns stay
 * open across the whole order. SA_ORDER_AUTO (the default) takes the
 * declaration order and its profile (the sum over rows of the open
 * columns, order_profile); if some part must be solved implicitly without
 * a budget (sa__hard_part), it computes Cuthill-McKee's profile too, and if
 * that is less than half (sa__cm_better) sa_analyze.c analyses the model
 * again in Cuthill-McKee's order: taken for every model with a
 * smaller profile, that order made a third of the MSL examples slower
 * (HeatExchangerSimulation and EngineV6 from 0.4 s and 1.5 s to over
 * 10 s). Measured (2026-11-25, tests/bench/README.md): MSL
 * TanksWithOverflow 16,207 against 7,887, its block's perfect matchings
 * 8.9 M nodes produced in declaration order, 1.7 M in Cuthill-McKee's; the
 * building N = 20 4,233 against 26,159 and the brake N = 100 7,393 against
 * 8,557. The order never changes a result.
 */
#include "sa_int.h"

#include <stdlib.h>
#include <string.h>

#define T(f) sa__tmp(c, (f))

/* ---- Guards to BDDs, memoised on the (shared) guard nodes ------------------- */

typedef sa__gmemo gmemo;

static size_t ghash(const void *p, size_t cap)
{
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 17;
    x *= (uintptr_t)0x9E3779B97F4A7C15ull;
    return (size_t)(x ^ (x >> 29)) & (cap - 1);
}

static void gmemo_grow(sa_ctx *c, gmemo *gm)
{
    gmemo old = *gm;
    gm->cap = old.cap ? old.cap * 2 : 1024;
    gm->key = sa__alloc(c, gm->cap * sizeof *gm->key);
    gm->val = sa__alloc(c, gm->cap * sizeof *gm->val);
    for (size_t k = 0; k < old.cap; k++) {
        if (old.key[k] == NULL)
            continue;
        size_t h = ghash(old.key[k], gm->cap);
        while (gm->key[h] != NULL)
            h = (h + 1) & (gm->cap - 1);
        gm->key[h] = old.key[k];
        gm->val[h] = old.val[k];
    }
}

/* g's value in gm, or NULL. */
static BDD *gmemo_get(const gmemo *gm, const mel_guard *g)
{
    if (gm->cap == 0)
        return NULL;
    size_t h = ghash(g, gm->cap);
    while (gm->key[h] != NULL && gm->key[h] != g)
        h = (h + 1) & (gm->cap - 1);
    return gm->val[h];
}

/* gm[g] := val (not NULL), the table grown as needed. */
static void gmemo_put(sa_ctx *c, gmemo *gm, const mel_guard *g, BDD *val)
{
    if (2 * (gm->n + 1) > gm->cap)
        gmemo_grow(c, gm);
    size_t h = ghash(g, gm->cap);
    while (gm->key[h] != NULL && gm->key[h] != g)
        h = (h + 1) & (gm->cap - 1);
    gm->n += gm->key[h] == NULL;
    gm->key[h] = g;
    gm->val[h] = val;
}

static int top_level(BDD f) { return f < 2 ? 1 << 30 : bdd_var2level(bdd_var(f)); }

typedef struct chain_op {
    BDD f;
    int level;
    size_t at; /* its place in the chain: ties keep it */
} chain_op;

static int deepest_first(const void *x, const void *y)
{
    const chain_op *a = x, *b = y;
    if (a->level != b->level)
        return a->level < b->level ? 1 : -1;
    return (a->at > b->at) - (a->at < b->at);
}

/* A chain of ORs down the left operands, g = ((a1 | a2) | a3) | ..., as
 * mc_pairs.c writes a set's cubes (the pairs still restarting: 100 cubes
 * on the brake at N = 100), into *out (a slot of the caller's): its
 * operands' BDDs OR-ed deepest first, each landing on top of the rest,
 * instead of each walking down to the bottom of the ones before it (that
 * walk was 8 % of `--first --instants`). The same function, so the same
 * BDD. */
static void or_chain(sa_ctx *c, sa__gmemo *gm, const mel_guard *g, BDD *out)
{
    /* No mark and release: the operands' memo entries are slots that must
     * outlive this call, as every entry of gm does. */
    size_t n = 1;
    for (const mel_guard *p = g; p->op == MEL_G_OR && gmemo_get(gm, p) == NULL; p = p->lhs)
        n++;
    const mel_guard **spine = sa__alloc(c, n * sizeof *spine); /* the operands */
    size_t k = 0;
    const mel_guard *p = g;
    for (; k + 1 < n; p = p->lhs)
        spine[k++] = p->rhs;
    spine[k] = p;
    chain_op *op = sa__alloc(c, n * sizeof *op);
    BDD *f = sa__slots(c, n);
    for (size_t q = 0; q < n; q++) {
        sa__put(&f[q], sa__guard_bdd(c, gm, spine[q]));
        op[q] = (chain_op){f[q], top_level(f[q]), q};
    }
    qsort(op, n, sizeof *op, deepest_first);
    BDD *acc = sa__slots(c, 1);
    sa__put(acc, bddfalse);
    for (size_t q = 0; q < n && *acc != bddtrue; q++)
        sa__put(acc, bdd_or(op[q].f, *acc));
    sa__put(out, *acc);
}

BDD sa__guard_bdd(sa_ctx *c, sa__gmemo *gm, const mel_guard *g)
{
    switch (g->op) {
    case MEL_G_FALSE:
        return bddfalse;
    case MEL_G_TRUE:
        return bddtrue;
    case MEL_G_VAR:
        return bdd_ithvar(c->r->mode_var[g->var]);
    default:
        break;
    }
    BDD *known = gmemo_get(gm, g);
    if (known != NULL)
        return *known;
    BDD f;
    if (g->op == MEL_G_OR && g->lhs->op == MEL_G_OR) {
        BDD *slot = sa__slots(c, 1);
        or_chain(c, gm, g, slot);
        gmemo_put(c, gm, g, slot);
        return *slot;
    }
    BDD a = sa__guard_bdd(c, gm, g->lhs);
    if (g->op == MEL_G_NOT) {
        f = bdd_not(a);
    } else {
        BDD b = sa__guard_bdd(c, gm, g->rhs);
        f = g->op == MEL_G_AND ? bdd_and(a, b) : bdd_or(a, b);
    }
    BDD *slot = sa__slots(c, 1);
    sa__put(slot, f);
    gmemo_put(c, gm, g, slot);
    return f;
}

/* chi_M, the conjunction of m's invariants, into *out (a slot of the
 * caller's), deepest first as or_chain does: each invariant lands on top
 * of the conjunction of those below it instead of walking down the whole
 * conjunction so far. The compressible building has one invariant per
 * room, each below the ones before: conjoined in order, the N steps each
 * walked the chain of the rooms above (N = 1,000: 326 M instructions,
 * growing like N^2.3, and N^2 / 2 nodes of garbage). The same function,
 * so the same BDD. */
static void invariants_bdd(sa_ctx *c, sa__gmemo *gm, const mel_model *m, BDD *out)
{
    size_t n = m->n_invariants;
    chain_op *op = sa__alloc(c, (n + 1) * sizeof *op);
    BDD *f = sa__slots(c, n + 1);
    for (size_t k = 0; k < n; k++) {
        sa__put(&f[k], sa__guard_bdd(c, gm, m->invariants[k].cond));
        op[k] = (chain_op){f[k], top_level(f[k]), k};
    }
    qsort(op, n, sizeof *op, deepest_first);
    sa__put(out, bddtrue);
    for (size_t k = 0; k < n && *out != bddfalse; k++)
        sa__put(out, bdd_and(op[k].f, *out));
}

/* ---- Ordering -------------------------------------------------------------- */

typedef struct sa__rowgraph {
    uint32_t n;     /* n_eq + n_var nodes: equations first */
    size_t *first;  /* n + 1 */
    uint32_t *adj;
    uint32_t *deg;
    const mel_model *m;
    double profile; /* of the declaration order (row_order) */
} graph;

static void graph_build(sa_ctx *c, const mel_model *m, graph *g)
{
    uint32_t ne = m->n_equations, n = ne + m->n_variables;
    g->n = n;
    g->first = sa__alloc(c, (n + 1) * sizeof *g->first);
    g->deg = sa__alloc(c, (n + 1) * sizeof *g->deg);
    g->adj = sa__alloc(c, 2 * m->n_edges * sizeof *g->adj + 1);
    for (uint32_t i = 0; i < ne; i++) {
        g->deg[i] = m->equations[i].n_incs;
        for (uint32_t k = 0; k < m->equations[i].n_incs; k++)
            g->deg[ne + m->equations[i].incs[k].var]++;
    }
    for (uint32_t v = 0; v < n; v++)
        g->first[v + 1] = g->first[v] + g->deg[v];
    uint32_t *fill = sa__alloc(c, (n + 1) * sizeof *fill);
    for (uint32_t i = 0; i < ne; i++)
        for (uint32_t k = 0; k < m->equations[i].n_incs; k++) {
            uint32_t j = ne + m->equations[i].incs[k].var;
            g->adj[g->first[i] + fill[i]++] = j;
            g->adj[g->first[j] + fill[j]++] = i;
        }
}

/* Breadth-first from start over unvisited nodes, neighbours by increasing
 * degree (Cuthill-McKee). Appends to order; returns the last node reached. */
static uint32_t bfs(const graph *g, uint32_t start, uint8_t *seen, uint8_t mark,
                    uint32_t *order, uint32_t *n_order, uint32_t *tmp)
{
    uint32_t head = *n_order, last = start;
    order[(*n_order)++] = start;
    seen[start] = mark;
    while (head < *n_order) {
        uint32_t u = order[head++];
        last = u;
        uint32_t nt = 0;
        for (size_t k = g->first[u]; k < g->first[u + 1]; k++)
            if (seen[g->adj[k]] != mark)
                tmp[nt++] = g->adj[k], seen[g->adj[k]] = mark;
        for (uint32_t a = 1; a < nt; a++) { /* insertion sort: short lists */
            uint32_t x = tmp[a], b = a;
            while (b > 0 && (g->deg[tmp[b - 1]] > g->deg[x] ||
                             (g->deg[tmp[b - 1]] == g->deg[x] && tmp[b - 1] > x))) {
                tmp[b] = tmp[b - 1];
                b--;
            }
            tmp[b] = x;
        }
        for (uint32_t a = 0; a < nt; a++)
            order[(*n_order)++] = tmp[a];
    }
    return last;
}

static uint32_t *node_order(sa_ctx *c, const graph *g)
{
    uint32_t n = g->n, n_order = 0;
    uint32_t *order = sa__alloc(c, (n + 1) * sizeof *order);
    uint32_t *probe = sa__alloc(c, (n + 1) * sizeof *probe);
    uint32_t *tmp = sa__alloc(c, (n + 1) * sizeof *tmp);
    uint8_t *seen = sa__alloc(c, n + 1);
    uint8_t *seen2 = sa__alloc(c, n + 1);
    /* The nodes by degree, then index (a stable counting sort): each
     * component starts at the first one not yet visited, the unvisited
     * node of least degree, the first of them on a tie. A scan of all the
     * nodes per component made this quadratic in the components (a pair
     * model of the brake at N = 100: 3.4 M instructions per analysis). */
    uint32_t dmax = 0;
    for (uint32_t v = 0; v < n; v++)
        dmax = g->deg[v] > dmax ? g->deg[v] : dmax;
    size_t *at = sa__alloc(c, ((size_t)dmax + 2) * sizeof *at);
    uint32_t *by_deg = sa__alloc(c, (n + 1) * sizeof *by_deg);
    for (uint32_t v = 0; v < n; v++)
        at[g->deg[v] + 1]++;
    for (uint32_t d = 0; d < dmax; d++)
        at[d + 1] += at[d];
    for (uint32_t v = 0; v < n; v++)
        by_deg[at[g->deg[v]]++] = v;
    for (uint32_t next = 0;;) {
        /* Next component: an unvisited node of least degree. */
        while (next < n && seen[by_deg[next]])
            next++;
        if (next == n)
            break;
        uint32_t best = by_deg[next];
        /* One probe from it finds a far end (pseudo-peripheral start). */
        uint32_t np = 0;
        memcpy(seen2, seen, n);
        uint32_t far = bfs(g, best, seen2, 1, probe, &np, tmp);
        bfs(g, far, seen, 1, order, &n_order, tmp);
    }
    return order;
}

static void mark_rec(const mel_guard *g, uint8_t *used, int *pending, int *n_pending,
                     gmemo *visited, sa_ctx *c);

/* The mode variables g reads, not used yet, into pending (marked used);
 * visited: the AND/OR/NOT nodes seen. Most guards are TRUE: no call. */
static inline void mark_modes(const mel_guard *g, uint8_t *used, int *pending, int *n_pending,
                              gmemo *visited, sa_ctx *c)
{
    if (g->op != MEL_G_TRUE && g->op != MEL_G_FALSE)
        mark_rec(g, used, pending, n_pending, visited, c);
}

static void mark_rec(const mel_guard *g, uint8_t *used, int *pending, int *n_pending,
                     gmemo *visited, sa_ctx *c)
{
    if (g->op == MEL_G_VAR) {
        if (!used[g->var]) {
            used[g->var] = 1;
            pending[(*n_pending)++] = (int)g->var;
        }
        return;
    }
    if (g->op != MEL_G_NOT && g->op != MEL_G_AND && g->op != MEL_G_OR)
        return;
    if (gmemo_get(visited, g) != NULL)
        return;
    gmemo_put(c, visited, g, (BDD *)visited); /* any non-NULL marker */
    mark_modes(g->lhs, used, pending, n_pending, visited, c);
    if (g->op != MEL_G_NOT)
        mark_modes(g->rhs, used, pending, n_pending, visited, c);
}

/* ---- Where the mode variables only invariants name go ---------------------
 * Such a variable (the copy g of a pair model whose rows read only g', at
 * the later instants of mode changes: mc_pairs.c) is placed just above a
 * variable the rows read that it is tied to: the nearest enclosing
 * subformula of an invariant that names a rows' variable gives it (its
 * partner). Placed first, above every row, the pair model's g went far
 * from g', and the invariant "the modes differ" (the OR over k of
 * g_k xor g_k') took 2^n nodes: the brake's later instants grew 4x per
 * railcar (tests/bench/README.md). Variables tied to none still go first. */

/* The memo of rows_var_in: guard nodes to pointers into `cells`, where
 * cells[i] = i (n_modes + 1 of them): cell w + 1 says "the rows' variable
 * w", cell 0 "none". */
typedef struct partner_memo {
    gmemo rows_var, seen;
    BDD *cells;
} partner_memo;

/* Some mode variable of g that the rows read (in_rows), or -1. */
static int rows_var_in(sa_ctx *c, partner_memo *pm, const mel_guard *g, const uint8_t *in_rows)
{
    if (g->op == MEL_G_VAR)
        return in_rows[g->var] ? (int)g->var : -1;
    if (g->op != MEL_G_NOT && g->op != MEL_G_AND && g->op != MEL_G_OR)
        return -1;
    BDD *known = gmemo_get(&pm->rows_var, g);
    if (known != NULL)
        return *known - 1;
    int w = rows_var_in(c, pm, g->lhs, in_rows);
    if (w < 0 && g->op != MEL_G_NOT)
        w = rows_var_in(c, pm, g->rhs, in_rows);
    gmemo_put(c, &pm->rows_var, g, &pm->cells[w + 1]);
    return w;
}

/* partner[k] for the variables of g the rows do not read and that have
 * none yet: `around`, or the rows' variable of a nearer subformula. Each
 * shared node is visited once. */
static void find_partners(sa_ctx *c, partner_memo *pm, const mel_guard *g, int around,
                          const uint8_t *in_rows, int *partner)
{
    if (g->op == MEL_G_VAR) {
        if (!in_rows[g->var] && partner[g->var] < 0)
            partner[g->var] = around;
        return;
    }
    if (g->op != MEL_G_NOT && g->op != MEL_G_AND && g->op != MEL_G_OR)
        return;
    if (gmemo_get(&pm->seen, g) != NULL)
        return;
    gmemo_put(c, &pm->seen, g, pm->cells); /* any non-NULL marker */
    int w = rows_var_in(c, pm, g, in_rows);
    around = w >= 0 ? w : around;
    find_partners(c, pm, g->lhs, around, in_rows, partner);
    if (g->op != MEL_G_NOT)
        find_partners(c, pm, g->rhs, around, in_rows, partner);
}

/* Mode variable k takes the next BDD variable, after the variables tied to
 * it (first_tied, next_tied: lists by partner) that have none yet. */
static void place_mode(sa_result *r, uint8_t *used, const int *first_tied,
                       const int *next_tied, int k, int *next)
{
    for (int t = first_tied[k]; t >= 0; t = next_tied[t])
        if (!used[t]) {
            used[t] = 1;
            r->mode_var[t] = (*next)++;
        }
    r->mode_var[k] = (*next)++;
}

/* The profile of a row order (the node order of graph_build, n nodes):
 * the sum over the rows of the variables that have rows both before and
 * after it (the open columns of the perfect matchings' BDD there). */
static double order_profile(sa_ctx *c, const mel_model *m, const uint32_t *order, uint32_t n)
{
    uint32_t ne = m->n_equations, nv = m->n_variables;
    uint32_t *first = sa__alloc(c, ((size_t)nv + 1) * sizeof *first);
    uint32_t *last = sa__alloc(c, ((size_t)nv + 1) * sizeof *last);
    long *delta = sa__alloc(c, ((size_t)ne + 2) * sizeof *delta);
    for (uint32_t j = 0; j < nv; j++)
        first[j] = UINT32_MAX;
    uint32_t a = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (order[k] >= ne)
            continue;
        const mel_equation *eq = &m->equations[order[k]];
        for (uint32_t q = 0; q < eq->n_incs; q++) {
            uint32_t j = eq->incs[q].var;
            if (first[j] == UINT32_MAX)
                first[j] = a;
            last[j] = a;
        }
        a++;
    }
    for (uint32_t j = 0; j < nv; j++)
        if (first[j] != UINT32_MAX && last[j] > first[j]) {
            delta[first[j]]++;
            delta[last[j]]--;
        }
    double sum = 0;
    long open = 0;
    for (uint32_t b = 0; b < ne; b++) {
        open += delta[b];
        sum += (double)open;
    }
    return sum;
}

/* Cuthill-McKee is worth another attempt (SA_ORDER_AUTO) when its profile
 * is below this fraction of the declaration order's. */
#define CM_PROFILE_RATIO 0.5

/* The order of the nodes (equations, then variables: graph_build) whose
 * equations give the rows' order: c->order's; for SA_ORDER_AUTO the
 * declaration order, and sa__cm_better says whether Cuthill-McKee's
 * profile is much smaller (when asked: only a hard part asks, and the
 * brake's edits spent 2 % of their instructions finding out). */
/* The declaration order of g's n nodes (temporaries). */
static uint32_t *decl_order(sa_ctx *c, uint32_t n)
{
    uint32_t *decl = sa__alloc(c, ((size_t)n + 1) * sizeof *decl);
    for (uint32_t k = 0; k < n; k++)
        decl[k] = k;
    return decl;
}

static uint32_t *row_order(sa_ctx *c, const mel_model *m, graph *g)
{
    uint32_t *decl = decl_order(c, g->n);
    double rows = (double)m->n_equations + 1;
    if (c->order == SA_ORDER_DECLARATION) {
        c->row_profile = order_profile(c, m, decl, g->n) / rows;
        return decl;
    }
    if (c->order == SA_ORDER_CUTHILL_MCKEE) {
        uint32_t *cm = node_order(c, g);
        c->row_profile = order_profile(c, m, cm, g->n) / rows;
        return cm;
    }
    g->m = m;
    g->profile = order_profile(c, m, decl, g->n);
    c->row_profile = g->profile / rows;
    c->rowgraph = g; /* for sa__cm_better */
    return decl;
}

bool sa__cm_better(sa_ctx *c)
{
    if (c->order != SA_ORDER_AUTO)
        return false;
    graph *g = c->rowgraph;
    if (g == NULL) { /* the layout was the hint's (encode_from_hint) */
        const mel_model *m = c->r->m;
        g = sa__alloc(c, sizeof *g);
        graph_build(c, m, g);
        g->m = m;
        g->profile = order_profile(c, m, decl_order(c, g->n), g->n);
        c->rowgraph = g;
    }
    uint32_t *cm = node_order(c, g);
    return order_profile(c, g->m, cm, g->n) < CM_PROFILE_RATIO * g->profile;
}

/* Fill r's index arrays: BDD variable of every mode variable and edge. */
static void assign_vars(sa_ctx *c, const mel_model *m)
{
    sa_result *r = c->r;
    graph *g = sa__alloc(c, sizeof *g); /* kept for sa__cm_better */
    graph_build(c, m, g);
    uint32_t *order = row_order(c, m, g);
    uint32_t ne = m->n_equations;
    uint32_t *pos = sa__alloc(c, (g->n + 1) * sizeof *pos);
    for (uint32_t k = 0; k < g->n; k++)
        pos[order[k]] = k;
    uint32_t n_eo = 0;
    for (uint32_t k = 0; k < g->n; k++)
        if (order[k] < ne)
            r->eq_order[n_eo++] = order[k];

    uint8_t *used = sa__alloc(c, m->n_modes + 1);
    int *pending = sa__alloc(c, (m->n_modes + 1) * sizeof *pending);
    gmemo visited = {0};
    int next = 0, n_pending = 0;
    int *first_tied = sa__alloc(c, (m->n_modes + 1) * sizeof *first_tied);
    int *next_tied = sa__alloc(c, (m->n_modes + 1) * sizeof *next_tied);
    /* Mode variables the rows never mention, but invariants do, go first,
     * unless tied to one they mention (find_partners). */
    {
        uint8_t *in_rows = sa__alloc(c, m->n_modes + 1);
        int np = 0;
        for (uint32_t i = 0; i < ne; i++) {
            const mel_equation *eq = &m->equations[i];
            mark_modes(eq->guard, in_rows, pending, &np, &visited, c);
            for (uint32_t k = 0; k < eq->n_incs; k++) {
                mark_modes(m->variables[eq->incs[k].var].guard, in_rows, pending, &np,
                           &visited, c);
                for (uint32_t q = 0; q < eq->incs[k].n_cases; q++)
                    mark_modes(eq->incs[k].cases[q].guard, in_rows, pending, &np, &visited,
                               c);
            }
        }
        for (uint32_t v = 0; v < m->n_variables; v++)
            mark_modes(m->variables[v].guard, in_rows, pending, &np, &visited, c);
        int *partner = sa__alloc(c, (m->n_modes + 1) * sizeof *partner);
        for (uint32_t k = 0; k < m->n_modes; k++)
            partner[k] = first_tied[k] = next_tied[k] = -1;
        partner_memo pmemo = {{0}, {0}, sa__alloc(c, (m->n_modes + 1) * sizeof(BDD))};
        for (uint32_t k = 0; k <= m->n_modes; k++)
            pmemo.cells[k] = (BDD)k;
        for (uint32_t q = 0; q < m->n_invariants; q++)
            find_partners(c, &pmemo, m->invariants[q].cond, -1, in_rows, partner);
        for (uint32_t k = m->n_modes; k-- > 0;)
            if (!in_rows[k] && partner[k] >= 0) { /* placed with it, below */
                next_tied[k] = first_tied[partner[k]];
                first_tied[partner[k]] = (int)k;
            }
        for (uint32_t k = 0; k < m->n_modes; k++)
            if (!in_rows[k] && partner[k] < 0) {
                used[k] = 1;
                r->mode_var[k] = next++;
            }
        memset(&visited, 0, sizeof visited);
    }
    uint32_t *tmp = sa__alloc(c, (m->n_variables + 1) * sizeof *tmp);
    for (uint32_t a = 0; a < ne; a++) {
        uint32_t i = r->eq_order[a];
        const mel_equation *eq = &m->equations[i];
        n_pending = 0;
        mark_modes(eq->guard, used, pending, &n_pending, &visited, c);
        for (uint32_t k = 0; k < eq->n_incs; k++) {
            mark_modes(m->variables[eq->incs[k].var].guard, used, pending, &n_pending,
                       &visited, c);
            for (uint32_t q = 0; q < eq->incs[k].n_cases; q++)
                mark_modes(eq->incs[k].cases[q].guard, used, pending, &n_pending, &visited,
                           c);
        }
        for (int p = 0; p < n_pending; p++)
            place_mode(r, used, first_tied, next_tied, pending[p], &next);
        /* Edges of the row by traversal order of their variables. */
        for (uint32_t k = 0; k < eq->n_incs; k++) {
            uint32_t x = k, b = k;
            while (b > 0 && pos[ne + eq->incs[tmp[b - 1]].var] > pos[ne + eq->incs[x].var]) {
                tmp[b] = tmp[b - 1];
                b--;
            }
            tmp[b] = x;
        }
        for (uint32_t k = 0; k < eq->n_incs; k++)
            r->edge_var[r->eq_first[i] + tmp[k]] = next++;
    }
    /* Variables' own guards may name modes no row mentions (unused vars). */
    for (uint32_t v = 0; v < m->n_variables; v++) {
        n_pending = 0;
        mark_modes(m->variables[v].guard, used, pending, &n_pending, &visited, c);
        for (int p = 0; p < n_pending; p++)
            place_mode(r, used, first_tied, next_tied, pending[p], &next);
    }
    for (uint32_t k = 0; k < m->n_modes; k++)
        if (!used[k])
            r->mode_var[k] = next++;
    r->n_bddvars = next;
}

/* ---- Encoding -------------------------------------------------------------- */

/* Equation i's chi_I, and the chi_E and sigma of its edges, into r (whose
 * layout is set); guards memoised in gm. */
static void encode_row(sa_ctx *c, gmemo *gm, const mel_model *m, uint32_t i)
{
    sa_result *r = c->r;
    const mel_equation *eq = &m->equations[i];
    sa__put(&r->chi_i[i], sa__guard_bdd(c, gm, eq->guard));
    for (uint32_t k = 0; k < eq->n_incs; k++) {
        size_t e = r->eq_first[i] + k;
        const mel_incidence *inc = &eq->incs[k];
        BDD *sig = &r->sigma[e * (size_t)r->w_sigma];
        BDD *any = &r->chi_e[e];
        /* Cases by decreasing order: the first that holds gives sigma. */
        for (uint32_t q = inc->n_cases; q-- > 0;) {
            /* Memoised guards live in slots: mark after computing it. */
            BDD gq = sa__guard_bdd(c, gm, inc->cases[q].guard);
            if (gq == bddtrue || gq == bddfalse) { /* most cases: no slots */
                if (gq == bddtrue) {
                    sa__vconst(sig, r->w_sigma, (unsigned)inc->cases[q].order);
                    sa__put(any, bddtrue);
                }
                continue;
            }
            size_t m2 = sa__mark(c);
            BDD *cv = sa__slots(c, (size_t)r->w_sigma);
            sa__vconst(cv, r->w_sigma, (unsigned)inc->cases[q].order);
            sa__vite(c, sig, gq, cv, sig, r->w_sigma);
            sa__put(any, sa__or(*any, gq));
            sa__release(c, m2);
        }
        /* An edge is active where its variable exists (the check reports
         * models where a case holds outside), and only where its equation
         * is: mel.h's case guards include the equation's own, which the
         * offsets' fixpoint relies on (sa_dual.c); kept here whoever built
         * the model. */
        sa__put(any, sa__and(*any, r->chi_j[inc->var]));
        if (r->chi_i[i] != bddtrue)
            sa__put(any, sa__and(*any, r->chi_i[i]));
    }
}

/* ---- The hint's encoding, by position (issue 16) ----------------------------
 * An edit mostly leaves the layout alone. Where the hint's model (c->opt->
 * hint) has as many equations, variables, modes and invariants, every
 * equation's incidences name the same variables with as many cases, every
 * variable's guard and invariant is the same formula, and every guard of
 * an equation reads the same mode variables in the same order (depth
 * first, repeats included, as mark_rec meets them), assign_vars would lay
 * the BDD variables out exactly as it did for the hint, in the same row
 * order: the rows' order depends on the incidences alone, the mode
 * variables' places on the order the guards first read them and on the
 * invariants. So the hint's layout is taken as it is, with chi_M, the
 * chi_J and its rows' profile; and so are the chi_I, chi_E and sigma of
 * every equation whose guards and orders are the hint's (BDDs are
 * canonical: these are the very functions encode_row would build). Only
 * the other equations are encoded. The brake at N = 100: an edit of one
 * equation or one guard encodes 1 of 1,203 rows.
 * Issue 40: what is left is linear with a small constant. The layout's
 * arrays are shared with the hint (sa__layout, reference counted), the
 * hint's functions copied whole and only the changed rows cleared and
 * encoded; sa__check_edges checks only those (c->enc_same) and the plan
 * of the method's choice is the hint's when they read the same mode
 * variables (sa_enum.c, sa__enum_plan_whole). The brake's edit (a) at
 * N = 10,000: 97.7 M instructions for these three, now 38.8 M (the
 * comparison of the rows, and the copies). */

/* Guards compared or read per formula before giving up (a guard is a DAG:
 * walked as a tree, it could be exponential). */
#define HINT_GUARD_BUDGET 256

/* Whether a and b are the same formula (false also past *budget). */
static bool same_guard(const mel_guard *a, const mel_guard *b, int *budget)
{
    if (a == b)
        return true;
    if (--*budget < 0 || a->op != b->op)
        return false;
    switch (a->op) {
    case MEL_G_VAR:
        return a->var == b->var;
    case MEL_G_NOT:
        return same_guard(a->lhs, b->lhs, budget);
    case MEL_G_AND:
    case MEL_G_OR:
        return same_guard(a->lhs, b->lhs, budget) && same_guard(a->rhs, b->rhs, budget);
    default:
        return true;
    }
}

/* The mode variables g reads as mark_rec meets them (repeats included)
 * into seq[*n..] (HINT_GUARD_BUDGET entries); false past *budget nodes. */
static bool mentions(const mel_guard *g, uint32_t *seq, int *n, int *budget)
{
    if (--*budget < 0)
        return false;
    if (g->op == MEL_G_VAR) {
        MDAE_ASSERT(*n < HINT_GUARD_BUDGET); /* one node per entry, within the budget */
        seq[(*n)++] = g->var;
        return true;
    }
    if (g->op != MEL_G_NOT && g->op != MEL_G_AND && g->op != MEL_G_OR)
        return true;
    return mentions(g->lhs, seq, n, budget) &&
           (g->op == MEL_G_NOT || mentions(g->rhs, seq, n, budget));
}

/* Whether guards a and b read the same mode variables in the same order. */
static bool same_mentions(const mel_guard *a, const mel_guard *b)
{
    uint32_t sa[HINT_GUARD_BUDGET], sb[HINT_GUARD_BUDGET];
    int na = 0, nb = 0, ba = HINT_GUARD_BUDGET, bb = HINT_GUARD_BUDGET;
    return mentions(a, sa, &na, &ba) && mentions(b, sb, &nb, &bb) && na == nb &&
           memcmp(sa, sb, (size_t)na * sizeof *sa) == 0;
}

/* Guard a against the hint's b: 2 the same formula, 1 the same mode
 * variables read in the same order, 0 neither. */
static inline int guard_kinship(const mel_guard *a, const mel_guard *b)
{
    if (a->op == b->op && (a->op == MEL_G_TRUE || a->op == MEL_G_FALSE))
        return 2; /* most guards */
    int budget = HINT_GUARD_BUDGET;
    if (same_guard(a, b, &budget))
        return 2;
    return same_mentions(a, b) ? 1 : 0;
}

/* An equation the hint's model shares (the same guard and incidences, as
 * an incremental session's private models share those of an unchanged
 * equation): the same as itself, 2, without comparing its cases; *maxo
 * raised to its largest order, each incidence's first case's (cases are
 * sorted by decreasing order: mel.h). */
static int shared_row(const mel_equation *a, int *maxo)
{
    int top = *maxo;
    for (uint32_t k = 0; k < a->n_incs; k++)
        if (a->incs[k].n_cases > 0 && a->incs[k].cases[0].order > top)
            top = a->incs[k].cases[0].order;
    *maxo = top;
    return 2;
}

/* Equation a against the hint's b: 2 the same (guards and orders), 1 the
 * same layout (above), 0 another; *maxo raised to a's largest order
 * (when not 0), a shared row's only when `shared` (see compare_rows). */
static int row_kinship(const mel_equation *a, const mel_equation *b, int *maxo, bool shared)
{
    if (a->n_incs != b->n_incs)
        return 0;
    if (a->incs == b->incs && a->guard == b->guard)
        return shared ? shared_row(a, maxo) : 2;
    int kin = guard_kinship(a->guard, b->guard), top = *maxo;
    for (uint32_t k = 0; k < a->n_incs && kin > 0; k++) {
        const mel_incidence *x = &a->incs[k], *y = &b->incs[k];
        if (x->var != y->var || x->n_cases != y->n_cases)
            return 0;
        for (uint32_t q = 0; q < x->n_cases && kin > 0; q++) {
            const mel_order_case *u = &x->cases[q], *v = &y->cases[q];
            if (u->guard->op != MEL_G_TRUE || v->guard->op != MEL_G_TRUE) {
                int g = guard_kinship(u->guard, v->guard);
                kin = g < kin ? g : kin;
            }
            top = u->order > top ? u->order : top;
            if (u->order != v->order)
                kin = kin < 1 ? kin : 1;
        }
    }
    *maxo = top;
    return kin;
}

/* The hint whose layout m may take: the same counts, row order,
 * invariants and variables' guards (the rows are compared by
 * compare_rows), or NULL. */
static const sa_result *layout_hint(sa_ctx *c, const mel_model *m)
{
    const sa_result *h = c->opt != NULL ? c->opt->hint : NULL;
    const sa_result *r = c->r;
    if (h == NULL || h == r || h->m == NULL || h->eq_whole != NULL || h->chi_i == NULL ||
        h->enc_order != c->order)
        return NULL;
    const mel_model *hm = h->m;
    if (hm->n_equations != m->n_equations || hm->n_variables != m->n_variables ||
        hm->n_modes != m->n_modes || hm->n_invariants != m->n_invariants ||
        h->n_eq != m->n_equations || h->n_var != m->n_variables || h->n_modes != m->n_modes)
        return NULL;
    for (uint32_t k = 0; k < m->n_invariants; k++) {
        int budget = HINT_GUARD_BUDGET;
        if (!same_guard(m->invariants[k].cond, hm->invariants[k].cond, &budget))
            return NULL;
    }
    /* the variables that may differ (sa_options.hint_vars), or all */
    const uint32_t *vars = c->opt->hint_vars;
    uint32_t nv = vars != NULL ? c->opt->n_hint_vars : m->n_variables;
    for (uint32_t k = 0; k < nv; k++) {
        uint32_t j = vars != NULL ? vars[k] : k;
        MDAE_ASSERT(j < m->n_variables);
        const mel_guard *a = m->variables[j].guard, *b = hm->variables[j].guard;
        int budget = HINT_GUARD_BUDGET;
        if (a != b && !(a->op == MEL_G_TRUE && b->op == MEL_G_TRUE) &&
            !same_guard(a, b, &budget))
            return NULL;
    }
    return h;
}

/* Every equation of m against the hint's model hm, in one pass: same[i]
 * says equation i is the hint's (row_kinship 2), *maxo the largest order
 * of m's cases (with `shared`; else of the rows that do not share their
 * incidences with hm's), *n_same how many are the same. False when some
 * equation has another layout (row_kinship 0): the hint is not taken.
 * Why the orders of the shared rows may wait (issue 40: a pass over every
 * case of the brake's 120,000 rows per edit): the caller needs
 * vbits(largest order) to be the hint's w_sigma, vbits(largest order of
 * hm), and is monotone; a shared row's cases are hm's row's, so their
 * vbits are at most w_sigma, and when the other rows reach w_sigma the
 * answer is known; else it reads the shared rows' too. */
static bool compare_rows(const mel_model *m, const mel_model *hm, uint8_t *same, int *maxo,
                         uint32_t *n_same, bool shared)
{
    int top = 0;
    uint32_t n = 0;
    const mel_equation *mine = m->equations, *hint = hm->equations;
    uint32_t ne = m->n_equations; /* same[] may alias m: read once */
    for (uint32_t i = 0; i < ne; i++) {
        if (!shared && mine[i].incs == hint[i].incs && mine[i].guard == hint[i].guard &&
            mine[i].n_incs == hint[i].n_incs) { /* row_kinship's first answer, inline */
            same[i] = 1;
            n++;
            continue;
        }
        int kin = row_kinship(&mine[i], &hint[i], &top, shared);
        if (kin == 0)
            return false;
        same[i] = kin == 2;
        n += kin == 2;
    }
    *maxo = top;
    *n_same = n;
    return true;
}

/* compare_rows(..., false) when the caller listed the rows that may
 * differ from hm's beyond their locations (sa_options.hint_rows,
 * increasing): every other row has hm's row's guard, variables, cases,
 * orders and case guards, which row_kinship would find the same (2), and
 * its orders are hm's row's, as a shared row's: not read (see above: their
 * vbits are at most w_sigma, and the caller reads every row's orders when
 * the listed ones do not reach it). Only the listed rows are compared
 * (issue 40 item 5: a pass over the brake's rows per edit, 2,000 of them
 * moved by the edit). The same same[], *n_same and decision as
 * compare_rows (test_inc_follow: both ways). */
static bool compare_listed_rows(const mel_model *m, const mel_model *hm, uint8_t *same,
                                int *maxo, uint32_t *n_same, const uint32_t *rows,
                                uint32_t n_rows)
{
    int top = 0;
    uint32_t ne = m->n_equations, n = ne - n_rows;
    MDAE_ASSERT(n_rows <= ne);
    memset(same, 1, ne);
    const mel_equation *mine = m->equations, *hint = hm->equations;
    for (uint32_t k = 0; k < n_rows; k++) {
        uint32_t i = rows[k];
        MDAE_ASSERT(i < ne && (k == 0 || rows[k - 1] < i)); /* increasing */
        if (mine[i].incs == hint[i].incs && mine[i].guard == hint[i].guard &&
            mine[i].n_incs == hint[i].n_incs) {
            n++;
            continue;
        }
        int kin = row_kinship(&mine[i], &hint[i], &top, false);
        if (kin == 0)
            return false;
        same[i] = kin == 2;
        n += kin == 2;
    }
    *maxo = top;
    *n_same = n;
    return true;
}

/* The rows to encode: those not the same, increasing (n_rows of them);
 * only among the listed ones when the caller listed them. */
static uint32_t *rows_to_encode(sa_ctx *c, const uint8_t *same, uint32_t n_rows,
                                const uint32_t *listed, uint32_t n_listed)
{
    sa_result *r = c->r;
    uint32_t *rows = sa__alloc_raw(c, ((size_t)n_rows + 1) * sizeof *rows);
    uint32_t k = 0;
    if (listed != NULL) {
        for (uint32_t q = 0; q < n_listed; q++)
            if (!same[listed[q]])
                rows[k++] = listed[q];
    } else {
        for (uint32_t i = 0; i < r->n_eq && k < n_rows; i++)
            if (!same[i])
                rows[k++] = i;
    }
    MDAE_ASSERT(k == n_rows);
    return rows;
}

/* The layout arrays of a result (sa_result.layout), shared by the
 * results that took it from a hint: read only once encoded. */
struct sa__layout {
    size_t refs;
    int *mode_var, *var_mode, *edge_var, *var_edge;
    size_t *eq_first;
    uint32_t *edge_eq, *edge_v, *eq_order;
    size_t *col_first, *col_edges; /* sa__layout_columns */
};

void sa__layout_unref(sa__layout *l)
{
    if (l == NULL || --l->refs > 0)
        return;
    mdae_free(l->mode_var);
    mdae_free(l->var_mode);
    mdae_free(l->edge_var);
    mdae_free(l->var_edge);
    mdae_free(l->eq_first);
    mdae_free(l->edge_eq);
    mdae_free(l->edge_v);
    mdae_free(l->eq_order);
    mdae_free(l->col_first);
    mdae_free(l->col_edges);
    mdae_free(l);
}

static void *keep_copy(sa_ctx *c, const void *p, size_t n);

/* r's arrays, made by the cold encoding, handed to a layout of its own,
 * with the edges of each column (sa__layout_columns), built once here. */
static void own_layout(sa_ctx *c, sa_result *r)
{
    sa__layout *l = sa__alloc_keep_raw(c, sizeof *l);
    *l = (sa__layout){1,           r->mode_var, r->var_mode, r->edge_var, r->var_edge,
                      r->eq_first, r->edge_eq,  r->edge_v,   r->eq_order, NULL,
                      NULL};
    r->layout = l;
    size_t *f, *ed;
    sa__columns(c, r, &f, &ed); /* temporaries: kept copies */
    l->col_first = keep_copy(c, f, ((size_t)r->n_var + 2) * sizeof *f);
    l->col_edges = keep_copy(c, ed, r->n_edges * sizeof *ed);
}

void sa__layout_columns(sa_ctx *c, const sa_result *r, const size_t **first,
                        const size_t **edges)
{
    if (r->layout != NULL && r->layout->col_edges != NULL) {
        *first = r->layout->col_first;
        *edges = r->layout->col_edges;
        return;
    }
    size_t *f, *ed;
    sa__columns(c, r, &f, &ed);
    *first = f;
    *edges = ed;
}

bool sa__same_edges(const sa_result *r, const sa_result *h)
{
    if (r->n_eq != h->n_eq || r->n_var != h->n_var || r->n_edges != h->n_edges)
        return false;
    if (r->eq_first == h->eq_first && r->edge_v == h->edge_v)
        return true;
    return memcmp(r->eq_first, h->eq_first, ((size_t)r->n_eq + 1) * sizeof *r->eq_first) == 0 &&
           (r->n_edges == 0 ||
            memcmp(r->edge_v, h->edge_v, r->n_edges * sizeof *r->edge_v) == 0);
}

bool sa__run_same(const sa_result *r, const sa_result *h, size_t lo, size_t n, bool with_te)
{
    MDAE_ASSERT(r->w_sigma == h->w_sigma && lo + n <= r->n_edges);
    size_t ws = (size_t)r->w_sigma;
    return memcmp(&r->chi_e[lo], &h->chi_e[lo], n * sizeof(BDD)) == 0 &&
           (!with_te || (sa__te_comparable(r, h) &&
                          memcmp(sa__te_exact(r) + lo, sa__te_exact(h) + lo, n * sizeof(BDD)) == 0)) &&
           memcmp(&r->sigma[lo * ws], &h->sigma[lo * ws], n * ws * sizeof(BDD)) == 0;
}

/* r takes h's layout: shared when h has one, else copied. */
static void take_layout(sa_ctx *c, sa_result *r, const sa_result *h, size_t nv);

/* A copy of n bytes of p, kept with the result. */
static void *keep_copy(sa_ctx *c, const void *p, size_t n)
{
    void *q = sa__alloc_keep_raw(c, n);
    memcpy(q, p, n);
    return q;
}

static void take_layout(sa_ctx *c, sa_result *r, const sa_result *h, size_t nv)
{
    size_t ne = h->n_edges;
    if (h->layout != NULL) {
        sa__layout *l = h->layout;
        l->refs++;
        r->layout = l;
        r->mode_var = l->mode_var;
        r->var_mode = l->var_mode;
        r->edge_var = l->edge_var;
        r->var_edge = l->var_edge;
        r->eq_first = l->eq_first;
        r->edge_eq = l->edge_eq;
        r->edge_v = l->edge_v;
        r->eq_order = l->eq_order;
        return;
    }
    r->eq_first = keep_copy(c, h->eq_first, (r->n_eq + 1) * sizeof(size_t));
    r->edge_eq = keep_copy(c, h->edge_eq, (ne + 1) * sizeof(uint32_t));
    r->edge_v = keep_copy(c, h->edge_v, (ne + 1) * sizeof(uint32_t));
    r->mode_var = keep_copy(c, h->mode_var, (r->n_modes + 1) * sizeof(int));
    r->var_mode = keep_copy(c, h->var_mode, (nv + 1) * sizeof(int));
    r->edge_var = keep_copy(c, h->edge_var, (ne + 1) * sizeof(int));
    r->var_edge = keep_copy(c, h->var_edge, (nv + 1) * sizeof(int));
    r->eq_order = keep_copy(c, h->eq_order, (r->n_eq + 1) * sizeof(uint32_t));
}

/* The entries sa__copy_refs tests at once, and again in a block that has
 * a node (the brake's offsets: a few nodes in a few rows; its chi_E and
 * sigma: one in 20). */
#define COPY_BLOCK 32
#define COPY_PART 8

/* Reference the nodes among a[0 .. COPY_PART). */
static void ref_part(const BDD *a)
{
    BDD any = 0;
    for (size_t q = 0; q < COPY_PART; q++)
        any |= a[q];
    if (any >= 2)
        for (size_t q = 0; q < COPY_PART; q++)
            if (a[q] >= 2)
                bdd_addref(a[q]);
}

void sa__copy_refs(BDD *restrict to, const BDD *restrict from, size_t n)
{
    size_t k = 0;
    for (; k + COPY_BLOCK <= n; k += COPY_BLOCK) {
        BDD any = 0;
        for (size_t q = 0; q < COPY_BLOCK; q++) {
            to[k + q] = from[k + q];
            any |= from[k + q];
        }
        if (any >= 2) /* some entry is a node (BDDs are never negative) */
            for (size_t q = k; q < k + COPY_BLOCK; q += COPY_PART)
                ref_part(&to[q]);
    }
    for (; k < n; k++) {
        to[k] = from[k];
        if (to[k] >= 2)
            bdd_addref(to[k]);
    }
}

void sa__ref_all(const BDD *a, size_t n)
{
    size_t k = 0;
    for (; k + COPY_BLOCK <= n; k += COPY_BLOCK) {
        BDD any = 0;
        for (size_t q = 0; q < COPY_BLOCK; q++)
            any |= a[k + q];
        if (any >= 2)
            for (size_t q = k; q < k + COPY_BLOCK; q += COPY_PART)
                ref_part(&a[q]);
    }
    for (; k < n; k++)
        if (a[k] >= 2)
            bdd_addref(a[k]);
}

void sa__move_bdds(BDD *restrict to, BDD *restrict from, size_t n)
{
    size_t k = 0;
    for (; k + COPY_BLOCK <= n; k += COPY_BLOCK)
        for (size_t q = k; q < k + COPY_BLOCK; q++) {
            to[q] = from[q];
            from[q] = bddfalse;
        }
    for (; k < n; k++) {
        to[k] = from[k];
        from[k] = bddfalse;
    }
}

void sa__swap_bdds(BDD *restrict a, BDD *restrict b, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        BDD t = a[k];
        a[k] = b[k];
        b[k] = t;
    }
}

uint32_t sa__next_flag(const bool *flags, uint32_t from, uint32_t n)
{
    uint32_t j = from;
    for (; j < n && j % 8 != 0; j++)
        if (flags[j])
            return j;
    for (; j + 8 <= n; j += 8) {
        uint64_t w;
        memcpy(&w, flags + j, sizeof w);
        if (w != 0)
            break;
    }
    for (; j < n; j++)
        if (flags[j])
            return j;
    return n;
}

/* A copy of the hint's n functions f, kept with the result, each
 * referenced (filled before anything can fail: a result being built is
 * freed function by function on a jump). */
static BDD *keep_bdds(sa_ctx *c, const BDD *f, size_t n)
{
    BDD *q = sa__alloc_keep_raw(c, (n + 1) * sizeof *q);
    sa__copy_refs(q, f, n);
    q[n] = bddfalse;
    return q;
}

/* Equation i's functions back to bddfalse, to be encoded (encode_row). */
static void clear_row(sa_result *r, uint32_t i)
{
    int ws = r->w_sigma;
    sa__put(&r->chi_i[i], bddfalse);
    for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
        sa__put(&r->chi_e[e], bddfalse);
        for (int b = 0; b < ws; b++)
            sa__put(&r->sigma[e * (size_t)ws + b], bddfalse);
    }
}

/* r's layout and BDDs from the hint (layout_hint, compare_rows), if it
 * can be taken: its arrays copied whole, then only the equations that
 * are not the hint's encoded (and checked: sa__check_edges). No pass
 * over the rows but the comparison and the copies (issue 40: the
 * brake's edit at N = 10,000 spent 0.03-0.2 s here). */
static bool encode_from_hint(sa_ctx *c, const mel_model *m)
{
    const sa_result *h = layout_hint(c, m);
    if (h == NULL)
        return false;
    sa_result *r = c->r;
    uint8_t *same = sa__alloc_raw(c, (size_t)m->n_equations + 1);
    int maxo;
    uint32_t n_same;
    const uint32_t *listed = c->opt->hint_rows; /* layout_hint: c->opt->hint is h */
    uint32_t n_listed = c->opt->n_hint_rows;
    if (listed != NULL ? !compare_listed_rows(m, h->m, same, &maxo, &n_same, listed, n_listed)
                       : !compare_rows(m, h->m, same, &maxo, &n_same, false))
        return false;
    if (sa__vbits((unsigned)maxo) < h->w_sigma) /* the shared rows' orders may reach it */
        compare_rows(m, h->m, same, &maxo, &n_same, true);
    if (sa__vbits((unsigned)maxo) != h->w_sigma)
        return false;
    /* The same incidences row by row: the same edges. */
    size_t ne = h->n_edges, nv = (size_t)m->n_modes + ne;
    r->n_edges = ne;
    r->w_sigma = h->w_sigma;
    r->n_bddvars = h->n_bddvars;
    take_layout(c, r, h, nv);
    r->row_profile = c->row_profile = h->row_profile;
    r->chi_i = keep_bdds(c, h->chi_i, r->n_eq);
    r->chi_j = keep_bdds(c, h->chi_j, r->n_var);
    r->chi_e = keep_bdds(c, h->chi_e, ne);
    r->sigma = keep_bdds(c, h->sigma, ne * (size_t)r->w_sigma);
    sa__need_vars(c, r->n_bddvars);
    sa__put(&r->modeset, h->modeset);
    sa__put(&r->chi_m, h->chi_m);
    uint32_t n_rows = r->n_eq - n_same;
    uint32_t *rows = rows_to_encode(c, same, n_rows, listed, n_listed);
    size_t mark = sa__mark(c);
    gmemo gm = {0};
    for (uint32_t k = 0; k < n_rows; k++) {
        clear_row(r, rows[k]);
        encode_row(c, &gm, m, rows[k]);
    }
    sa__release(c, mark);
    r->encoded_from_hint = n_same;
    c->enc_same = same;
    c->enc_rows = rows;
    c->n_enc_rows = n_rows;
    return true;
}

void sa__encode(sa_ctx *c, const mel_model *m)
{
    sa_result *r = c->r;
    r->m = m;
    r->n_eq = m->n_equations;
    r->n_var = m->n_variables;
    r->n_modes = m->n_modes;
    r->enc_order = c->order;
    if (encode_from_hint(c, m))
        return;
    size_t ne = 0;
    for (uint32_t i = 0; i < m->n_equations; i++)
        ne += m->equations[i].n_incs;
    MDAE_ASSERT(ne == m->n_edges); /* graph_build's adjacency is sized by it */
    r->n_edges = ne;
    size_t nv = (size_t)m->n_modes + ne;
    if (nv > SA_MAX_BDD_VARS) {
        sa__limit_diag(c, m, NULL, 0, MDAE_LIMIT_ENCODING, SA_MAX_BDD_VARS,
                       "the encoding needs %zu BDD variables (one per mode variable and "
                       "incidence)",
                       nv);
        sa__fail(c, MDAE_E_LIMIT);
    }
    r->eq_first = sa__alloc_keep(c, (r->n_eq + 1) * sizeof(size_t));
    r->edge_eq = sa__alloc_keep_raw(c, (ne + 1) * sizeof(uint32_t));
    r->edge_v = sa__alloc_keep_raw(c, (ne + 1) * sizeof(uint32_t));
    int maxo = 0;
    for (uint32_t i = 0; i < r->n_eq; i++) {
        const mel_equation *eq = &m->equations[i];
        r->eq_first[i + 1] = r->eq_first[i] + eq->n_incs;
        for (uint32_t k = 0; k < eq->n_incs; k++) {
            r->edge_eq[r->eq_first[i] + k] = i;
            r->edge_v[r->eq_first[i] + k] = eq->incs[k].var;
            for (uint32_t q = 0; q < eq->incs[k].n_cases; q++)
                if (eq->incs[k].cases[q].order > maxo)
                    maxo = eq->incs[k].cases[q].order;
        }
    }
    r->w_sigma = sa__vbits((unsigned)maxo);
    r->chi_i = sa__alloc_keep(c, (r->n_eq + 1) * sizeof(BDD));
    r->chi_j = sa__alloc_keep(c, (r->n_var + 1) * sizeof(BDD));
    r->chi_e = sa__alloc_keep(c, (ne + 1) * sizeof(BDD));
    r->sigma = sa__alloc_keep(c, (ne * (size_t)r->w_sigma + 1) * sizeof(BDD));

    r->mode_var = sa__alloc_keep(c, (m->n_modes + 1) * sizeof(int));
    r->var_mode = sa__alloc_keep(c, (nv + 1) * sizeof(int));
    r->edge_var = sa__alloc_keep(c, (ne + 1) * sizeof(int));
    r->eq_order = sa__alloc_keep(c, (r->n_eq + 1) * sizeof(uint32_t));
    assign_vars(c, m);
    r->row_profile = c->row_profile;
    sa__need_vars(c, r->n_bddvars);
    for (size_t v = 0; v < nv; v++)
        r->var_mode[v] = -1;
    for (uint32_t k = 0; k < m->n_modes; k++)
        r->var_mode[r->mode_var[k]] = (int)k;
    r->var_edge = sa__alloc_keep(c, (nv + 1) * sizeof(int));
    for (size_t v = 0; v < nv; v++)
        r->var_edge[v] = -1;
    for (size_t e = 0; e < ne; e++)
        r->var_edge[r->edge_var[e]] = (int)e;
    own_layout(c, r);

    size_t mark = sa__mark(c);
    gmemo gm = {0};
    {
        int *mv = sa__alloc(c, (m->n_modes + 1) * sizeof(int));
        for (uint32_t k = 0; k < m->n_modes; k++)
            mv[k] = r->mode_var[k];
        sa__put(&r->modeset, sa__cube(c, mv, m->n_modes));
        /* r->edgeset: when first needed (sa__edgeset) */
    }
    invariants_bdd(c, &gm, m, &r->chi_m);
    for (uint32_t j = 0; j < r->n_var; j++)
        sa__put(&r->chi_j[j], sa__guard_bdd(c, &gm, m->variables[j].guard));
    for (uint32_t i = 0; i < r->n_eq; i++) {
        encode_row(c, &gm, m, i);
        if ((i & 255) == 255)
            sa__progress(c, "encode", i, r->n_eq);
    }
    sa__release(c, mark);
}

size_t sa__check_edges(sa_ctx *c)
{
    sa_result *r = c->r;
    const mel_model *m = r->m;
    size_t errors = 0;
    size_t mark = sa__mark(c);
    gmemo gm = {0};
    if (r->chi_m == bddfalse) {
        mdae_range where = m->n_invariants ? m->invariants[0].where : (mdae_range){{0, 0, 0}, {0, 0, 0}};
        mdae_diags_add(c->diags, MDAE_SEV_WARNING, where,
                       "the invariants exclude every mode: there is no valid mode");
    }
    /* The hint's rows (c->enc_same): its guards, orders and chi_J, it
     * passed; only the others (c->enc_rows) are checked. */
    uint32_t n = c->enc_same != NULL ? c->n_enc_rows : r->n_eq;
    for (uint32_t a = 0; a < n; a++) {
        uint32_t i = c->enc_same != NULL ? c->enc_rows[a] : a;
        const mel_equation *eq = &m->equations[i];
        for (uint32_t k = 0; k < eq->n_incs; k++) {
            const mel_incidence *inc = &eq->incs[k];
            if (r->chi_j[inc->var] == bddtrue)
                continue; /* a variable of every mode: nothing to check */
            for (uint32_t q = 0; q < inc->n_cases; q++) {
                BDD gq = sa__guard_bdd(c, &gm, inc->cases[q].guard);
                size_t m2 = sa__mark(c);
                BDD bad = T(sa__diff(gq, r->chi_j[inc->var]));
                if (bad != bddfalse) {
                    sa_set s = {0};
                    sa__set_of(c, r, bad, &s);
                    mdae_diags_add(c->diags, MDAE_SEV_ERROR, inc->cases[q].where,
                                   "variable '%s' is used in equation '%s' in modes where "
                                   "it does not exist: %s",
                                   m->variables[inc->var].name, eq->name, s.formula);
                    sa__set_close(&s);
                    errors++;
                }
                sa__release(c, m2);
            }
        }
    }
    sa__release(c, mark);
    return errors;
}
