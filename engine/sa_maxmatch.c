/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_maxmatch.c -- a maximum matching of each singular mode of a
 * problem, one per cofactor of its singular modes (issue 11).
 *
 * Why. The singular modes' diagnostics (sa_blocks.c) need a maximum
 * matching of each singular mode. As one BDD, the matchings of maximum
 * cardinality (sa__max_matchings: at most one edge per row and column, then
 * the best by a dynamic programme) blow up on MSL TanksWithOverflow's block
 * of 116 equations over 40 mode variables (over a minute), whose perfect
 * matchings take seconds: "at most one" leaves every row and column free
 * to be unmatched, and the BDD carries all those choices. The same
 * matchings restricted, mode by mode, to the graph without the rows and
 * columns its union graph leaves unmatched are perfect matchings, but as
 * one BDD over all modes they cost as much as the primal again (measured:
 * 19 M nodes produced instead of 10 M). Yet the singularity of such a block
 * comes from which equations are active (a tank port with neither regular
 * flow nor inflow sets its mass flow to zero twice), and within a cofactor
 * that fixes them one matching does for every mode.
 *
 * How. A decision tree over the singular modes. A node is a cofactor: its
 * modes chi (singular modes of the cube of its fixed variables). While some
 * equation is active in some but not every mode of chi (the first in model
 * order), split on the first variable of its activity restricted to the
 * cube. Then compare two graphs on the active equations and variables: the
 * union graph U (every edge active in some mode of chi) and the common
 * graph I (every edge active in all of them), by their maximum matchings
 * (sm_solve, one graph each). If they have the same size, the node is a
 * leaf and I's matching is the answer for all its modes; else some edge of
 * U's matching is not in I, and the node splits on the first variable of
 * that edge's activity restricted to the cube. At most NODES_MAX nodes;
 * the modes of the nodes beyond are left to the caller (sa_blocks.c:
 * sa__max_matchings on those modes only).
 *
 * Why it is exact. In a leaf, every mode's graph G contains I and lies in
 * U, with the same rows (each is active in all of the leaf's modes or in
 * none): I's maximum matching M is a matching of G, and no matching of G
 * is larger than U's maximum, which is |M|. So M is a maximum matching of
 * G. Which one is chosen does not matter: the diagnostics computed from a
 * maximum matching do not depend on it (sa_blocks.c). The leaves' modes
 * are disjoint (their cubes are), so tmax is a matching in every mode.
 */
#include "sa_int.h"
#include "sm.h"

#define T(f) sa__tmp(c, (f))

/* At most this many nodes of the tree; the modes of the rest are left to
 * the caller. */
#define NODES_MAX 16384

typedef struct tree {
    const uint32_t *cond; /* equations active in some but not every singular mode */
    uint32_t n_cond;
    size_t nodes;
    BDD *tmax; /* the caller's */
    BDD *left; /* a slot: the modes no leaf resolved */
} tree;

/* One graph of a node on its active equations (rows) and all variables:
 * the edges whose activity meets chi (union) or contains it (common). */
typedef struct graph {
    uint32_t n_rows;
    size_t *first;
    uint32_t *col;
    size_t *edge; /* the edge behind each entry of col */
    int *zero;
    uint32_t size; /* of a maximum matching, once solved */
    int *row_edge; /* entry of col matched to each row, or -1 */
} graph;

static void graph_build(sa_ctx *c, BDD chi, bool common, graph *g)
{
    const sa_result *r = c->r;
    g->first = sa__alloc(c, ((size_t)r->n_eq + 2) * sizeof *g->first);
    g->col = sa__alloc(c, (r->n_edges + 1) * sizeof *g->col);
    g->edge = sa__alloc(c, (r->n_edges + 1) * sizeof *g->edge);
    g->zero = sa__alloc(c, (r->n_edges + 1) * sizeof *g->zero);
    g->row_edge = sa__alloc(c, ((size_t)r->n_eq + 1) * sizeof *g->row_edge);
    g->n_rows = 0;
    size_t n = 0;
    for (uint32_t i = 0; i < r->n_eq; i++) {
        if (sa__and(r->chi_i[i], chi) == bddfalse)
            continue;
        g->first[g->n_rows++] = n;
        for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
            BDD on = r->chi_e[e];
            if (common ? sa__imp(chi, on) == bddtrue : sa__and(on, chi) != bddfalse) {
                g->edge[n] = e;
                g->col[n++] = r->edge_v[e];
            }
        }
    }
    g->first[g->n_rows] = n;
}

/* g->size and g->row_edge: a maximum matching (sm_solve). */
static void graph_solve(sa_ctx *c, graph *g)
{
    /* Nothing may jump between here and sm_ws_free. */
    sm_ws *ws = sm_ws_new();
    if (ws == NULL)
        sa__fail(c, MDAE_E_NOMEM);
    sm_graph sg = {g->n_rows, c->r->n_var, g->first, g->col, g->zero, NULL};
    const sm_solution *sol = NULL;
    int rc = sm_solve(ws, &sg, &sol);
    if (rc == MDAE_OK) {
        g->size = sol->max_matching;
        for (uint32_t a = 0; a < g->n_rows; a++)
            g->row_edge[a] = sol->row_edge[a];
    }
    sm_ws_free(ws);
    if (rc != MDAE_OK)
        sa__fail(c, rc);
}

/* At a node whose equations are all decided: true (and tmax updated) if
 * it is a leaf; else *split := the activity, restricted to the cube, of an
 * edge of U's maximum matching that is not in I (not constant). */
static bool leaf(sa_ctx *c, tree *t, BDD chi, BDD cube, BDD *split)
{
    const sa_result *r = c->r;
    sa__amark temps = sa__alloc_mark(c);
    graph u, in;
    graph_build(c, chi, false, &u);
    graph_build(c, chi, true, &in);
    graph_solve(c, &u);
    graph_solve(c, &in);
    MDAE_ASSERT(in.size <= u.size);
    bool done = in.size == u.size;
    for (uint32_t a = 0; done && a < in.n_rows; a++)
        if (in.row_edge[a] >= 0) {
            BDD *to = &t->tmax[in.edge[in.row_edge[a]]];
            sa__put(to, sa__or(*to, chi));
        }
    for (uint32_t a = 0; !done && a < u.n_rows && *split == bddfalse; a++) {
        if (u.row_edge[a] < 0)
            continue;
        size_t e = u.edge[u.row_edge[a]];
        if (sa__imp(chi, r->chi_e[e]) != bddtrue)
            sa__put(split, bdd_restrict(r->chi_e[e], cube));
    }
    MDAE_ASSERT(done || (*split != bddfalse && *split != bddtrue));
    sa__alloc_release(c, temps);
    return done;
}

/* The subtree of the node chi (modes) and cube (its fixed variables);
 * t->cond[0..k) are decided there. */
static void grow(sa_ctx *c, tree *t, uint32_t k, BDD chi, BDD cube)
{
    const sa_result *r = c->r;
    if (++t->nodes > NODES_MAX) {
        sa__put(t->left, sa__or(*t->left, chi));
        return;
    }
    size_t mark = sa__mark(c);
    BDD *split = sa__slots(c, 1);
    for (; k < t->n_cond && *split == bddfalse; k++) {
        BDD on = T(sa__and(r->chi_i[t->cond[k]], chi));
        if (on != bddfalse && on != chi)
            sa__put(split, bdd_restrict(r->chi_i[t->cond[k]], cube));
    }
    if (*split != bddfalse) {
        k--; /* undecided here, perhaps decided below */
    } else if (leaf(c, t, chi, cube, split)) {
        sa__release(c, mark);
        sa__progress(c, "diagnostics", t->nodes, NODES_MAX);
        return;
    }
    /* Not constant on the cube, which contains chi: its first variable is
     * a mode variable the cube does not fix. */
    MDAE_ASSERT(*split != bddfalse && *split != bddtrue);
    int v = bdd_var(*split);
    MDAE_ASSERT(r->var_mode[v] >= 0);
    for (int value = 0; value < 2; value++) {
        BDD lit = value ? bdd_ithvar(v) : bdd_nithvar(v);
        BDD chi2 = T(sa__and(chi, lit));
        if (chi2 != bddfalse)
            grow(c, t, k, chi2, T(sa__and(cube, lit)));
    }
    sa__release(c, mark);
}

BDD sa__max_matching_by_cofactors(sa_ctx *c, BDD *tmax)
{
    sa_result *r = c->r;
    BDD *left = sa__slots(c, 1);
    size_t mark = sa__mark(c);
    uint32_t *cond = sa__alloc(c, ((size_t)r->n_eq + 1) * sizeof *cond);
    uint32_t n_cond = 0;
    for (uint32_t i = 0; i < r->n_eq; i++) {
        size_t m2 = sa__mark(c);
        BDD on = T(sa__and(r->chi_i[i], r->singular));
        if (on != bddfalse && on != r->singular)
            cond[n_cond++] = i;
        sa__release(c, m2);
    }
    tree t = {cond, n_cond, 0, tmax, left};
    if (r->singular != bddfalse)
        grow(c, &t, 0, r->singular, bddtrue);
    r->max_by_cofactors += *left != r->singular;
    sa__release(c, mark);
    return *left;
}
