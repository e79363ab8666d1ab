/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_blocks.c -- the primal problem block by block (issue 11): the
 * perfect matchings of every mode, and the chosen one, found separately in
 * each fine Dulmage-Mendelsohn block of the UNION graph of the modes.
 *
 * Why. A connected component of a real model can be large and depend on
 * many mode variables, each read by a few equations: the MSL's
 * PumpingSystem has one component of 267 equations and 32 atoms. The set of
 * its perfect matchings over all modes, as one BDD, blows up (over 60 s and
 * 1 GB), and 2^32 modes cannot be enumerated. But most of its edges can be
 * in no perfect matching of any mode, and the rest split into small blocks.
 *
 * Why it is exact. Suppose that in every valid mode the same variables are
 * active, and the active equations fall into groups, the same in every
 * mode, each group having exactly one active equation (an if-equation's
 * k-th equations of its branches form a group; an equation active in every
 * mode is a group alone). Map each mode's graph onto the groups: a perfect
 * matching of a mode is a perfect matching of the union graph U (groups x
 * variables, an edge wherever some valid mode has one). An edge of U lies in
 * some perfect matching of U only inside a strongly connected block of U's
 * fine Dulmage-Mendelsohn decomposition. Hence every perfect matching of
 * every mode is a union of perfect matchings of its blocks' subgraphs, and
 * conversely; a mode is nonsingular iff each block is (ok = AND ok_B). The
 * optimum's cost is a sum over edges, so a maximum-weight matching is one
 * per block. The choice is the lexicographically smallest in the BDD
 * variable order (sa__choose): the blocks' edge variables are disjoint, and
 * the lexicographic minimum of a product of sets over disjoint coordinates
 * is the product of the minima, whatever the interleaving. So each block's
 * choice, by the ordinary implicit primal (sa__primal) on the block alone,
 * and restricted to the modes where every block is nonsingular, is T_e of
 * the whole, BDD for BDD. The offsets (sa_dual.c) are a fixpoint over every
 * active edge, across blocks: they stay global.
 *
 * How each block is solved: as sa_analyze.c chooses for a component. Its
 * valid modes (over the mode variables it reads) are enumerated when that
 * is cheap; else, if they can be enumerated at all, the implicit primal
 * runs with a budget of BDD nodes worth about the enumeration's time
 * (sa__try), and the block alone is enumerated if the budget is exceeded
 * (MSL EngineV6_analytic: a block of 3,027 equations over 12 atoms; the
 * fallback of the whole component took 4x longer); else the implicit
 * primal runs without one. Both give the same functions.
 *
 * When it does not apply (a variable not active in some valid mode,
 * equations that do not group, or one block only), sa__primal_blocks says
 * so and the caller runs the ordinary primal. U not square or without a
 * perfect matching (every mode singular: issue 36) is cut by sa_udm.c,
 * except inside sa_tight.c's rounds. The singular modes' diagnostics by blocks, and when
 * they apply: below, before sa__primal_blocks.
 */
#include "sa_int.h"
#include "sm.h"

#include <stdlib.h>
#include <string.h>

#define T(f) sa__tmp(c, (f))

/* Conditional equations join one of the last GROUP_WINDOW open groups
 * (the branches of an if-equation are consecutive in the model); a group
 * active in every valid mode is full and leaves the open ones (the brake's
 * 200 valve equations probed up to 64 full groups each). */
#define GROUP_WINDOW 64

/* A block of at most this many equations has its rows ordered by
 * insertion (sub_index). */
#define SMALL_BLOCK 64

/* A mode function that holds in every valid mode; vm: chi_m's frontiers
 * (sa_within.c: on the building chi_m is a chain through every room, and
 * chi_m => f walked it for each of the 2N guarded rows, issue 40). The
 * constants answered here (vm's chi_m is never false where these are
 * asked: find_blocks returns first): most of a tight graph's edges and
 * rows are, and a call per edge was a tenth of sa__blocks_solve on the
 * brake at N = 10,000 (1.5 M calls). */
static bool always(const sa__within *vm, BDD f)
{
    return f == bddtrue || (f != bddfalse && sa__within_implies(vm, f));
}

/* A mode function false in every valid mode (as always). */
static bool never_in(const sa__within *vm, BDD f)
{
    return f == bddfalse || (f != bddtrue && sa__within_empty(vm, f));
}

/* Every variable is active in every valid mode, or (inside sa_tight.c's
 * rounds, which remove columns) in none: never[j], *n_never. */
static bool vars_always_active(sa_ctx *c, const sa__within *vm, bool *never,
                               uint32_t *n_never)
{
    const sa_result *r = c->r;
    *n_never = 0;
    for (uint32_t j = 0; j < r->n_var; j++) {
        never[j] = c->tight_depth > 0 && never_in(vm, r->chi_j[j]);
        *n_never += never[j];
        if (!never[j] && !always(vm, r->chi_j[j]))
            return false;
    }
    return true;
}

/* group_of[i]: the group of equation i, UINT32_MAX for an equation active
 * in no valid mode, for the equations rows[0 .. n) (rows NULL: every
 * equation, n = r->n_eq). False if some group has no active equation in
 * some valid mode (then the groups are not a partition mode by mode). */
static bool group_rows(sa_ctx *c, const sa__within *vm, const uint32_t *rows, uint32_t n,
                       uint32_t *group_of, uint32_t *n_groups)
{
    const sa_result *r = c->r;
    size_t mark = sa__mark(c);
    BDD *guard = sa__slots(c, (size_t)n + 1); /* per group */
    uint32_t *open = sa__alloc_raw(c, ((size_t)n + 1) * sizeof *open); /* n_open */
    uint32_t n_open = 0, ng = 0;
    for (uint32_t a = 0; a < n; a++) {
        uint32_t i = rows != NULL ? rows[a] : a;
        group_of[i] = UINT32_MAX;
        if (never_in(vm, r->chi_i[i]))
            continue;
        if (always(vm, r->chi_i[i])) {
            group_of[i] = ng++;
            continue;
        }
        uint32_t from = n_open > GROUP_WINDOW ? n_open - GROUP_WINDOW : 0;
        for (uint32_t k = from; k < n_open && group_of[i] == UINT32_MAX; k++) {
            uint32_t g = open[k];
            size_t m2 = sa__mark(c);
            BDD both = T(sa__and(guard[g], r->chi_i[i]));
            if (never_in(vm, both)) {
                group_of[i] = g;
                sa__put(&guard[g], sa__or(guard[g], r->chi_i[i]));
                if (always(vm, guard[g])) { /* full: it can take no other */
                    memmove(&open[k], &open[k + 1], (n_open - k - 1) * sizeof *open);
                    n_open--;
                }
            }
            sa__release(c, m2);
        }
        if (group_of[i] == UINT32_MAX) {
            group_of[i] = ng;
            sa__put(&guard[ng], r->chi_i[i]);
            open[n_open++] = ng++;
        }
    }
    bool covered = true; /* the full groups are */
    for (uint32_t k = 0; k < n_open && covered; k++)
        covered = always(vm, guard[open[k]]);
    sa__release(c, mark);
    *n_groups = ng;
    return covered;
}

static bool group_equations(sa_ctx *c, const sa__within *vm, uint32_t *group_of,
                            uint32_t *n_groups)
{
    return group_rows(c, vm, NULL, c->r->n_eq, group_of, n_groups);
}

/* The union graph on groups, in compressed rows without repeated columns;
 * in_union[e] (n_edges, zeroed): edge e is active in some valid mode. */
typedef struct ugraph {
    uint32_t n_rows;
    size_t *first;
    uint32_t *col;
} ugraph;

static void union_graph(sa_ctx *c, const sa__within *vm, const uint32_t *group_of,
                        uint32_t ng, const bool *never, ugraph *u, bool *in_union)
{
    const sa_result *r = c->r;
    uint32_t n_never = 0;
    for (uint32_t j = 0; j < r->n_var; j++)
        n_never += never[j];
    u->n_rows = ng + n_never; /* ng groups, then a row per never-active variable */
    u->first = sa__alloc_raw(c, ((size_t)u->n_rows + 2) * sizeof *u->first); /* [0, n_rows] */
    u->col = sa__alloc_raw(c, (r->n_edges + r->n_var + 1) * sizeof *u->col); /* first[n_rows] */
    /* Equations of each group, in model order (counting sort). */
    uint32_t *gfirst = sa__alloc(c, ((size_t)ng + 2) * sizeof *gfirst);
    uint32_t *geq = sa__alloc_raw(c, ((size_t)r->n_eq + 1) * sizeof *geq); /* gfirst[ng] */
    for (uint32_t i = 0; i < r->n_eq; i++)
        if (group_of[i] != UINT32_MAX)
            gfirst[group_of[i] + 2]++;
    for (uint32_t g = 0; g < ng; g++)
        gfirst[g + 2] += gfirst[g + 1];
    for (uint32_t i = 0; i < r->n_eq; i++)
        if (group_of[i] != UINT32_MAX)
            geq[gfirst[group_of[i] + 1]++] = i;
    uint32_t *seen = sa__alloc(c, ((size_t)r->n_var + 1) * sizeof *seen); /* g + 1 */
    size_t n = 0;
    for (uint32_t g = 0; g < ng; g++) {
        u->first[g] = n;
        for (uint32_t a = gfirst[g]; a < gfirst[g + 1]; a++) {
            uint32_t i = geq[a];
            for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
                uint32_t j = r->edge_v[e];
                in_union[e] = !never_in(vm, r->chi_e[e]);
                if (seen[j] == g + 1 || !in_union[e])
                    continue;
                seen[j] = g + 1;
                u->col[n++] = j;
            }
        }
    }
    /* A never-active variable (no edge of the union: chi_e => chi_j) is
     * matched to a row of its own, a block without equations. */
    uint32_t g = ng;
    for (uint32_t j = 0; j < r->n_var; j++)
        if (never[j]) {
            u->first[g++] = n;
            u->col[n++] = j;
        }
    MDAE_ASSERT(g == u->n_rows);
    u->first[g] = n;
}

/* Tarjan's strongly connected components (sm_sccs), with temporaries from
 * the context. Shared with cdg_build.c. */
uint32_t sa__sccs(sa_ctx *c, uint32_t n, const size_t *first, const uint32_t *to,
                  uint32_t *comp)
{
    size_t n1 = (size_t)n + 1;
    /* Not zeroed: sm_sccs clears index and on, and writes the others
     * before it reads them. */
    sm_scc_work w = {sa__alloc_raw(c, n1 * sizeof *w.index), sa__alloc_raw(c, n1 * sizeof *w.low),
                     sa__alloc_raw(c, n1 * sizeof *w.stack), sa__alloc_raw(c, n1 * sizeof *w.call),
                     sa__alloc_raw(c, n1 * sizeof *w.pos), sa__alloc_raw(c, n1 * sizeof *w.on)};
    return sm_sccs(n, first, to, comp, &w);
}

/* The blocks of a union graph u without a perfect matching (sa_udm.c),
 * row_edge a maximum matching of it: into block_of_eq and block_of_var,
 * and *kind (per block, temporaries). False when they are one block. Not
 * inside sa_tight.c's rounds: a round's tight graph that has no perfect
 * matching leaves its modes to a later round, and only singular modes want
 * these blocks. */
static bool find_singular_blocks(sa_ctx *c, const ugraph *u, const int *row_edge,
                                 const uint32_t *group_of, uint32_t *block_of_eq,
                                 uint32_t *block_of_var, uint8_t **kind, uint32_t *n_blocks)
{
    const sa_result *r = c->r;
    if (c->tight_depth > 0)
        return false;
    uint32_t *block_of_row = sa__alloc(c, ((size_t)u->n_rows + 1) * sizeof *block_of_row);
    *kind = sa__alloc(c, (size_t)u->n_rows + r->n_var + 1);
    *n_blocks = sa__union_dm(c, u->n_rows, r->n_var, u->first, u->col, row_edge, block_of_row,
                             block_of_var, *kind);
    for (uint32_t i = 0; i < r->n_eq; i++)
        block_of_eq[i] = group_of[i] == UINT32_MAX ? UINT32_MAX : block_of_row[group_of[i]];
    return *n_blocks > 1;
}

/* The block structure: block_of_eq[i] (UINT32_MAX: never active),
 * block_of_var[j] and in_union (union_graph); *kind stays NULL when the
 * union graph has a perfect matching, else find_singular_blocks. False
 * when the decomposition does not apply (see the top of the file) or gives
 * one block. */
static bool find_blocks(sa_ctx *c, uint32_t *block_of_eq, uint32_t *block_of_var,
                        bool *in_union, uint8_t **kind, uint32_t *n_blocks)
{
    const sa_result *r = c->r;
    bool *never = sa__alloc_raw(c, (size_t)r->n_var + 1); /* read once all written */
    uint32_t n_never;
    *kind = NULL;
    sa__within vm;
    sa__within_init(c, r->chi_m, &vm);
    if (r->chi_m == bddfalse || r->n_eq < 2 || !vars_always_active(c, &vm, never, &n_never))
        return false;
    uint32_t *group_of = sa__alloc_raw(c, ((size_t)r->n_eq + 1) * sizeof *group_of);
    uint32_t ng;
    if (!group_equations(c, &vm, group_of, &ng))
        return false;
    if (ng + n_never != r->n_var && c->tight_depth > 0)
        return false;
    ugraph u;
    union_graph(c, &vm, group_of, ng, never, &u, in_union);
    ng = u.n_rows;
    uint32_t *group_of_var = sa__alloc_raw(c, ((size_t)r->n_var + 1) * sizeof *group_of_var); /* perfect: all */
    int *row_edge = sa__alloc_raw(c, ((size_t)ng + 1) * sizeof *row_edge);
    /* Nothing may jump between here and sm_ws_free. */
    sm_ws *ws = sm_ws_new();
    if (ws == NULL)
        sa__fail(c, MDAE_E_NOMEM);
    sm_graph sg = {ng, r->n_var, u.first, u.col, NULL, NULL}; /* no weights */
    const sm_solution *sol = NULL;
    int rc = sm_max_matching(ws, &sg, &sol);
    bool perfect = rc == MDAE_OK && sol->perfect;
    for (uint32_t g = 0; rc == MDAE_OK && g < ng; g++)
        row_edge[g] = sol->row_edge[g];
    sm_ws_free(ws);
    if (rc == MDAE_E_NOMEM)
        sa__fail(c, MDAE_E_NOMEM);
    if (rc != MDAE_OK)
        return false;
    if (!perfect)
        return find_singular_blocks(c, &u, row_edge, group_of, block_of_eq, block_of_var, kind,
                                    n_blocks);
    for (uint32_t g = 0; g < ng; g++)
        group_of_var[u.col[row_edge[g]]] = g;
    /* Group g -> group g' when g has an edge to the variable matched to g'. */
    uint32_t *succ = sa__alloc_raw(c, (u.first[ng] + 1) * sizeof *succ);
    for (size_t k = 0; k < u.first[ng]; k++)
        succ[k] = group_of_var[u.col[k]];
    uint32_t *comp = sa__alloc_raw(c, ((size_t)ng + 1) * sizeof *comp); /* sm_sccs */
    *n_blocks = sa__sccs(c, ng, u.first, succ, comp);
    for (uint32_t i = 0; i < r->n_eq; i++)
        block_of_eq[i] = group_of[i] == UINT32_MAX ? UINT32_MAX : comp[group_of[i]];
    for (uint32_t j = 0; j < r->n_var; j++)
        block_of_var[j] = comp[group_of_var[j]];
    return *n_blocks > 1;
}

/* ---- One block ------------------------------------------------------------------ */

/* The block's sub-problem as an sa_result that borrows the whole's BDDs
 * (no references of its own, except the fields sa__primal fills: ok and
 * singular, and the edge set if a path asked for it (sa__edgeset), dropped
 * by drop_sub; and te, slots of the context). */
typedef struct sub {
    sa_result r;
    sa_ctx *ctx;
    sa_result *whole;    /* c->r again after the block, or after a jump */
    uint32_t *eq_local;  /* whole's equation -> local, for the members */
    uint32_t *var_local; /* whole's variable -> local, for the members */
    size_t *edge_whole;  /* local edge -> whole's edge */
    int *var_edge;       /* BDD variable -> local edge, -1 outside (sub_enter) */
    uint32_t *order_pos; /* whole's equation -> its place in whole's eq_order */
    bool square;         /* the block is one of a union graph with a perfect
                            matching (as many groups as columns) */
} sub;

static void drop_sub(void *arg)
{
    sub *s = arg;
    s->ctx->r = s->whole;
    if (sa__running()) {
        bdd_delref(s->r.ok);
        bdd_delref(s->r.singular);
        bdd_delref(s->r.edgeset);
    }
    s->r.ok = s->r.singular = s->r.edgeset = bddfalse;
}

/* A sub-result's frame over c->r, the whole (temporaries of the context);
 * sub_index and sub_fill give it its rows and columns, after sub_maps. */
static sub *sub_new(sa_ctx *c)
{
    sa_result *w = c->r;
    sub *s = sa__alloc(c, sizeof *s);
    s->ctx = c;
    s->whole = w;
    uint32_t n_eq = w->n_eq, *pos = sa__alloc_raw(c, ((size_t)n_eq + 1) * sizeof *pos); /* all */
    const uint32_t *order = w->eq_order; /* locals: the stores could alias w's and s's */
    for (uint32_t a = 0; a < n_eq; a++)
        pos[order[a]] = a;
    s->order_pos = pos;
    return s;
}

/* s's maps from the whole's numbers, made when s first indexes a block
 * (sub_index), in the caller's temporaries (those of sub_new: a block
 * reused from the hint's records by place needs none, and the seeded
 * rounds' tight graphs reuse them all). */
static void sub_maps(sa_ctx *c, sub *s)
{
    const sa_result *w = s->whole;
    if (s->eq_local != NULL)
        return;
    /* Not cleared: read only at a block's members, which sub_index writes
     * first (its edges' rows and columns are members: MDAE_ASSERT there);
     * under self_check eq_local is, for sub_index's walk of every row. */
    bool self_check = c->opt != NULL && c->opt->self_check;
    s->eq_local = self_check ? sa__alloc(c, ((size_t)w->n_eq + 1) * sizeof *s->eq_local)
                             : sa__alloc_raw(c, ((size_t)w->n_eq + 1) * sizeof *s->eq_local);
    s->var_local = sa__alloc_raw(c, ((size_t)w->n_var + 1) * sizeof *s->var_local);
    s->var_edge = sa__alloc_raw(c, ((size_t)w->n_bddvars + 1) * sizeof *s->var_edge); /* below */
    memset(s->var_edge, 0xff, (size_t)w->n_bddvars * sizeof *s->var_edge); /* -1: two's complement */
}

/* The filled sub-result becomes c->r: its edges' variables, edge set and
 * te (slots of the caller's mark), and the cleanup that gives the whole
 * back on a jump. sub_leave undoes it, after the caller has read r's ok
 * and singular (dropped there). */
static void sub_enter(sa_ctx *c, sub *s)
{
    sa_result *r = &s->r;
    for (size_t k = 0; k < r->n_edges; k++)
        s->var_edge[r->edge_var[k]] = (int)k;
    r->var_edge = s->var_edge;
    /* r->edgeset: made by sa__edgeset if the block's path asks for it (an
     * enumerated block never does). Made here for every block, it was a
     * fifth of the brake's time at N = 10,000 (issue 40): a node lookup
     * per edge in a table far larger than the caches. */
    r->edgeset = bddfalse;
    r->te = sa__slots(c, r->n_edges + 1);
    r->te_within = false;
    sa__push_cleanup(c, drop_sub, s);
    c->r = r;
}

static void sub_leave(sa_ctx *c, sub *s)
{
    sa__pop_cleanup(c);
    drop_sub(s);
    for (size_t k = 0; k < s->r.n_edges; k++)
        s->var_edge[s->r.edge_var[k]] = -1;
}

static int by_place(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Under sa_options.self_check: eq_order (a large block's, sorted by place)
 * is the one a walk of the whole's row order gives (MDAE_ASSERT; eq_local
 * cleared by sub_maps then, and written at the members). */
static void order_walked(const sa_result *w, const sub *s, const uint32_t *members,
                         uint32_t n_members, const uint32_t *eq_order)
{
    uint32_t q = 0;
    for (uint32_t a = 0; a < w->n_eq && q < n_members; a++) {
        uint32_t i = w->eq_order[a];
        if (s->eq_local[i] < n_members && members[s->eq_local[i]] == i)
            MDAE_ASSERT(eq_order[q++] == s->eq_local[i]);
    }
    MDAE_ASSERT(q == n_members);
}

/* Index block b in s (sub_maps made): its equations and variables (local
 * numbers), the whole's edges between them (edge_whole, in the whole's
 * order), its rows' order; the sizes and what it shares with the whole in
 * s->r. Enough for its key (block_key): the rest of the sub-result
 * (sub_fill) is only made for a block the memo does not have. */
static void sub_index(sa_ctx *c, const sa_result *w, const uint32_t *members,
                      uint32_t n_members, const uint32_t *vars, uint32_t n_vars,
                      const uint32_t *block_of_var, uint32_t b, sub *s)
{
    sa_result *r = &s->r;
    MDAE_ASSERT(s->eq_local != NULL);
    memset(r, 0, sizeof *r);
    r->m = w->m;
    r->n_eq = n_members;
    r->eq_whole = members;
    r->var_whole = vars;
    r->n_var = n_vars;
    r->n_modes = w->n_modes;
    r->n_bddvars = w->n_bddvars;
    r->mode_var = w->mode_var;
    r->var_mode = w->var_mode;
    r->chi_m = w->chi_m;
    r->modeset = w->modeset;
    r->w_sigma = w->w_sigma;
    size_t most = 0; /* the members' edges, of which the block's are some */
    for (uint32_t a = 0; a < n_members; a++) {
        uint32_t i = members[a];
        s->eq_local[i] = a;
        most += w->eq_first[i + 1] - w->eq_first[i];
    }
    for (uint32_t a = 0; a < n_vars; a++)
        s->var_local[vars[a]] = a;
    s->edge_whole = sa__alloc_raw(c, (most + 1) * sizeof *s->edge_whole); /* n_edges written */
    size_t k = 0;
    for (uint32_t a = 0; a < n_members; a++)
        for (size_t e = w->eq_first[members[a]]; e < w->eq_first[members[a] + 1]; e++)
            if (block_of_var[w->edge_v[e]] == b) {
                uint32_t j = w->edge_v[e], l = s->var_local[j]; /* a member: written above */
                MDAE_ASSERT(l < n_vars && vars[l] == j);
                s->edge_whole[k++] = e;
            }
    r->n_edges = k;
    /* The members in the whole's row order: a small block by insertion (a
     * walk of the whole's order cost each of the brake's 300 blocks up to
     * 1,203 steps), a large one by that walk. */
    r->eq_order = sa__alloc_raw(c, ((size_t)n_members + 1) * sizeof *r->eq_order); /* written whole */
    if (n_members <= SMALL_BLOCK) {
        for (uint32_t a = 0; a < n_members; a++) {
            uint32_t at = s->order_pos[members[a]], q = a;
            for (; q > 0 && s->order_pos[members[r->eq_order[q - 1]]] > at; q--)
                r->eq_order[q] = r->eq_order[q - 1];
            r->eq_order[q] = a;
        }
        return;
    }
    /* A large one sorted by place (order_pos: one to one), its local number
     * in the low half (eq_local is not cleared: not read at other rows). */
    uint64_t *key = sa__alloc_raw(c, ((size_t)n_members + 1) * sizeof *key);
    for (uint32_t a = 0; a < n_members; a++)
        key[a] = (uint64_t)s->order_pos[members[a]] << 32 | a;
    qsort(key, n_members, sizeof *key, by_place);
    for (uint32_t a = 0; a < n_members; a++)
        r->eq_order[a] = (uint32_t)key[a];
    if (c->opt != NULL && c->opt->self_check)
        order_walked(w, s, members, n_members, r->eq_order);
}

/* The rest of block s's sub-result (sub_index first): its edges in
 * compressed rows and its functions, the whole's (r.var_edge and r.edgeset
 * are the caller's). */
static void sub_fill(sa_ctx *c, const sa_result *w, sub *s)
{
    sa_result *r = &s->r;
    uint32_t n_members = r->n_eq, n_vars = r->n_var;
    size_t ne = r->n_edges;
    r->eq_first = sa__alloc(c, ((size_t)n_members + 1) * sizeof *r->eq_first);
    r->edge_eq = sa__alloc(c, (ne + 1) * sizeof *r->edge_eq);
    r->edge_v = sa__alloc(c, (ne + 1) * sizeof *r->edge_v);
    r->edge_var = sa__alloc(c, (ne + 1) * sizeof *r->edge_var);
    r->chi_i = sa__alloc(c, ((size_t)n_members + 1) * sizeof(BDD));
    r->chi_j = sa__alloc(c, ((size_t)n_vars + 1) * sizeof(BDD));
    r->chi_e = sa__alloc(c, (ne + 1) * sizeof(BDD));
    r->sigma = sa__alloc(c, (ne * (size_t)w->w_sigma + 1) * sizeof(BDD));
    for (uint32_t a = 0; a < n_members; a++)
        r->chi_i[a] = w->chi_i[r->eq_whole[a]];
    for (size_t k = 0; k < ne; k++) {
        size_t e = s->edge_whole[k];
        uint32_t a = s->eq_local[w->edge_eq[e]];
        r->eq_first[a + 1]++;
        r->edge_eq[k] = a;
        r->edge_v[k] = s->var_local[w->edge_v[e]];
        r->edge_var[k] = w->edge_var[e];
        r->chi_e[k] = w->chi_e[e];
        memcpy(&r->sigma[k * w->w_sigma], &w->sigma[e * w->w_sigma],
               (size_t)w->w_sigma * sizeof(BDD));
    }
    for (uint32_t a = 0; a < n_members; a++) /* edges come row by row */
        r->eq_first[a + 1] += r->eq_first[a];
    MDAE_ASSERT(r->eq_first[n_members] == ne);
    for (uint32_t a = 0; a < n_vars; a++)
        r->chi_j[a] = w->chi_j[r->var_whole[a]];
}

void sa__choice_within(sa_ctx *c, const uint32_t *rows, uint32_t n_rows, const bool *in_col,
                       const BDD *act, BDD modes, BDD *te, BDD *found)
{
    sa_result *w = c->r;
    size_t mark = sa__mark(c);
    sa__amark temps = sa__alloc_mark(c);
    uint32_t *col_block = sa__alloc(c, ((size_t)w->n_var + 1) * sizeof *col_block);
    uint32_t *cols = sa__alloc(c, ((size_t)w->n_var + 1) * sizeof *cols);
    uint32_t nc = 0;
    for (uint32_t j = 0; j < w->n_var; j++)
        if (in_col[j]) {
            col_block[j] = 1;
            cols[nc++] = j;
        }
    sub *s = sub_new(c);
    sub_maps(c, s);
    sub_index(c, w, rows, n_rows, cols, nc, col_block, 1, s);
    sub_fill(c, w, s);
    sa_result *r = &s->r;
    BDD *local_act = sa__slots(c, r->n_edges + 1);
    for (size_t k = 0; k < r->n_edges; k++)
        sa__put(&local_act[k], act[s->edge_whole[k]]);
    BDD *x = sa__slots(c, 1), *got = sa__slots(c, 1);
    sub_enter(c, s);
    /* From true, `modes` applied at the end: a function of modes from the
     * start carries their variables through every node (the building's
     * repair, 13 rows: 319 nodes, 0.6 ms for T_e alone). */
    sa__put(x, bddtrue);
    sa__mats mt;
    sa__mats_init(c, &mt);
    mt.act = local_act;
    sa__matchings(c, x, true, &mt, "matchings");
    sa__put(got, bdd_exist(*x, sa__edgeset(c, r)));
    sa__put(got, sa__and(*got, modes));
    sa__edge_modes(c, sa__choose(c, *x));
    c->r = w;
    for (size_t k = 0; k < r->n_edges; k++)
        sa__put(&te[s->edge_whole[k]], sa__and(sa__te(c, r, k), *got));
    sa__put(found, *got);
    sub_leave(c, s);
    sa__alloc_release(c, temps);
    sa__release(c, mark);
}

/* A maximum matching of the block in each of `modes`, singular modes (the
 * sub-result in c->r): tmax[e] (the block's edges, slots) gains the modes
 * where the chosen one holds e: one of sa__max_matchings' (any would do). */
static void block_max_matching(sa_ctx *c, BDD modes, BDD *tmax)
{
    const sa_result *r = c->r;
    size_t mark = sa__mark(c);
    BDD *y = sa__slots(c, 1);
    sa__put(y, modes);
    sa__mats mt;
    sa__max_matchings(c, y, &mt);
    BDD t = sa__choose(c, *y);
    for (size_t k = 0; k < r->n_edges; k++) {
        size_t m2 = sa__mark(c);
        BDD with = T(bdd_and(t, bdd_ithvar(r->edge_var[k])));
        sa__put(&tmax[k], sa__or(tmax[k], T(bdd_exist(with, sa__edgeset(c, r)))));
        sa__release(c, m2);
    }
    sa__release(c, mark);
}

/* The block's primal on BDDs (c->r is the sub-result), and a maximum
 * matching of each singular mode into tmax (slots): one per cofactor
 * (sa_maxmatch.c), and sa__max_matchings' in the modes it leaves. */
static void implicit_primal(sa_ctx *c, void *tmax)
{
    sa__primal(c);
    if (c->r->singular == bddfalse || c->no_max)
        return;
    size_t mark = sa__mark(c);
    BDD left = sa__max_matching_by_cofactors(c, tmax);
    if (left != bddfalse)
        block_max_matching(c, left, tmax);
    sa__release(c, mark);
}

/* The implicit primal of the block within budget (sa__try), not seeded
 * (sa_options.hint): the budget, an attempt against the enumeration's
 * time, was measured without it, and seeded passes that do not cover every
 * mode only add to an attempt that may be lost (the MSL's
 * EngineV6_analytic, seeded by its own result: 4.9 s instead of 3.9, its
 * block of 3,027 equations enumerated in the end). */
static bool implicit_within(sa_ctx *c, size_t budget, BDD *tmax)
{
    const sa_options *opt = c->opt;
    sa_options unseeded = {0};
    if (opt != NULL) {
        unseeded = *opt;
        unseeded.hint = NULL;
        c->opt = &unseeded;
    }
    bool done = sa__try(c, budget, implicit_primal, tmax);
    c->opt = opt;
    return done;
}

/* Whether a block of an analysis seeded by a hint (sa_options.hint) goes
 * to the seeded primal at once, without the tight graphs of sampled modes
 * first: when the hint was solved block by block and none of its blocks by
 * those graphs. The building's block probes 16 modes and never covers
 * them: a tenth of an edit's instructions at N = 40 once the primal is a
 * repair of the hint's matching (sa_repair.c). Not when the tight method
 * is asked for (tests). */
static bool tight_in_vain(const sa_ctx *c)
{
    const sa_options *o = c->opt;
    return o != NULL && o->hint != NULL && o->method != SA_METHOD_TIGHT &&
           c->tight_depth == 0 && o->hint->primal_blocks > 0 &&
           o->hint->blocks_tight == o->hint->blocks_wide;
}

/* ---- The blocks' memo (sa_memo.c) ----------------------------------------------- */

/* The key of the block filled in s (sa_memo.c says why it is enough): its
 * sizes, whether maximum matchings are wanted, each edge's row, column and
 * BDD variable, the rows' order; and the nodes of the rows' and columns'
 * activity, of the edges' activity and weights. */
static void block_key(sa_ctx *c, const sub *s, sa__bkey *k)
{
    const sa_result *r = &s->r, *w = s->whole;
    size_t ne = r->n_edges, ws = (size_t)r->w_sigma;
    size_t n_shape = 6 + 3 * ne + r->n_eq;
    size_t n_funs = (size_t)r->n_eq + r->n_var + ne * (1 + ws);
    int32_t *shape = sa__alloc_raw(c, n_shape * sizeof *shape); /* written whole */
    BDD *funs = sa__alloc_raw(c, n_funs * sizeof *funs);
    size_t a = 0, f = 0;
    shape[a++] = SA_BMEMO_BLOCK;
    shape[a++] = (int32_t)r->n_eq;
    shape[a++] = (int32_t)r->n_var;
    shape[a++] = (int32_t)ne;
    shape[a++] = r->w_sigma;
    shape[a++] = c->no_max;
    for (size_t q = 0; q < ne; q++) { /* read in the whole: sub_fill is not done yet */
        size_t e = s->edge_whole[q];
        shape[a++] = (int32_t)s->eq_local[w->edge_eq[e]];
        shape[a++] = (int32_t)s->var_local[w->edge_v[e]];
        shape[a++] = w->edge_var[e];
        funs[f++] = w->chi_e[e];
        for (size_t b = 0; b < ws; b++)
            funs[f++] = w->sigma[e * ws + b];
    }
    for (uint32_t i = 0; i < r->n_eq; i++) {
        shape[a++] = (int32_t)r->eq_order[i];
        funs[f++] = w->chi_i[r->eq_whole[i]];
    }
    for (uint32_t j = 0; j < r->n_var; j++)
        funs[f++] = w->chi_j[r->var_whole[j]];
    MDAE_ASSERT(a == n_shape && f == n_funs);
    *k = (sa__bkey){shape, n_shape, funs, n_funs};
}

/* A block's solution in a memo: te and tmax of its edges, ok, singular. */
static size_t solution_size(const sub *s) { return 2 * s->r.n_edges + 2; }

/* ---- The blocks kept by place ----------------------------------------------------
 * Every block sa__blocks_solve solves or reuses is also kept with the
 * result it is part of (r->kept): a record of its key and solution (as the
 * memo has them) and of the result's rows, columns and edges it is made of
 * (for a block of a sub-result, a union-graph block's tight rounds, its
 * rows and edges mapped up to the result's). An analysis seeded by that
 * result whose edges are the hint's (sa__same_edges: the same rows, the
 * same columns, edge by edge) finds each block of its own at the top level
 * by the place of its first row, and takes the record's solution when the
 * block is the record's, checked by integers and node handles alone: no
 * sub-result, no key, no hash, no memo entry added.
 *
 * Lemma (why the check is the memo's). Let B be a block of ours and x the
 * record at B's first row, made from a block B' whose key is K'. If B and
 * B' have the same rows and the same columns (the result's numbers,
 * ascending in both), the same edges in the same order (the rows' edges
 * whose column is in the block, row by row: the result's edge numbers,
 * which name the same row and column in both since the edges are the
 * hint's), each edge with the same BDD variable, activity node (the tight
 * graph's, in a round) and weight nodes, the rows' and columns' activity
 * nodes equal, and B's rows in our row order are x's local order, then B's
 * key (block_key) is K', integer for integer and node for node: the
 * sizes, w_sigma and no_max are compared, a local row or column number is
 * the place of the edge's row or column in the (equal) ascending lists,
 * and the rest is compared as it is. The memo's lemma (sa_memo.c) then
 * gives B the solution kept for K', restricted to B's valid modes if
 * those are fewer, exactly as reuse_block takes it. A record's nodes are
 * referenced while it lives, so none is reused for another function, and a
 * record is read only in the layout epoch it was made in, never while
 * sifting. Where the check fails the block goes the key's way (memo, then
 * the hint's records by key, then solved). So the result is the same BDD
 * for BDD whichever way a block takes; only blocks_reused may count a
 * block the memo, when full, would have missed. */

/* One kept block; its arrays follow it in the same allocation. */
typedef struct krec {
    size_t refs;
    uint32_t n_eq, n_var;
    size_t n_edges, n_val;
    sa__bkey key;   /* shape and funs: below */
    uint64_t hash;  /* of key, when hashed (kept_find_key) */
    bool hashed;
    uint32_t *rows; /* the result's, ascending */
    uint32_t *vars; /* the result's, ascending */
    size_t *edges;  /* the result's, in the key's order */
    BDD *val;       /* te and tmax per edge, ok, singular (solution_size) */
    BDD modes;      /* the valid modes it holds in */
    bool square;    /* made from a block with as many groups as columns
                       (sub.square) */
} krec;

struct sa__kept {
    unsigned long epoch; /* sa__layout_epoch when made */
    uint32_t n_eq;
    uint32_t *row_rec;   /* per row of the result: the first record whose
                            first row it is, + 1; 0 none */
    krec **rec;
    uint32_t *link;      /* per record: the next of the same first row, + 1;
                            the first one, then the others latest first. A
                            first row's first record is the likeliest match:
                            a seeded result's round 0 (the previous version's
                            offsets), a cold one's first round (most modes;
                            the brake's cold analysis at N = 10,000 keeps
                            three records of most blocks, and searched from
                            the latest, the edit checked all three) */
    size_t n, cap;
    size_t words, max_words; /* held, and the bound (the memo's: sa_int.h) */
    size_t *htab, hcap, hashed_n; /* by key hash (kept_find_key), over rec[0 .. hashed_n) */
    uint32_t placed;     /* blocks of this result's tight rounds placed from
                            the hint's records (blocks_from_hint) */
    uint32_t afresh;     /* and the blocks of the rest, decomposed there */
    uint32_t known;      /* records of the hint taken as parts of a later
                            seeded round without krec_is (sa__known) */
    uint8_t *seeded;     /* per record: taken by this result's own seeded
                            rounds as a block of their tight graph (the
                            bulk check, "The records of the hint's own
                            rounds") */
    uint32_t bulk;       /* records of the hint taken by the bulk check */
    uint32_t again;      /* records of the hint taken as parts again, as an
                            earlier round took them ("The parts taken
                            again") */
    uint32_t by_edges;   /* records of the hint checked by their own edges
                            ("The records' own edges") */
    uint32_t merged;     /* self_check: the rest's lists merged after parts
                            were given back, and checked (rest_lists) */
};

static void krec_unref(krec *x)
{
    if (--x->refs > 0)
        return;
    if (sa__running()) {
        for (size_t k = 0; k < x->key.n_funs; k++)
            bdd_delref(x->key.funs[k]);
        for (size_t k = 0; k < x->n_val; k++)
            bdd_delref(x->val[k]);
        bdd_delref(x->modes);
    }
    mdae_free(x);
}

void sa__kept_free(sa__kept *k)
{
    if (k == NULL)
        return;
    for (size_t a = 0; a < k->n; a++)
        krec_unref(k->rec[a]);
    mdae_free(k->rec);
    mdae_free(k->link);
    mdae_free(k->seeded);
    mdae_free(k->row_rec);
    mdae_free(k->htab);
    mdae_free(k);
}

/* The result w is part of: w, or the whole of the block sub-result it is
 * (sub_index's are the only sub-results with eq_whole; a sub's r is its
 * first member), and so on up. */
static sa_result *top_result(sa_result *w)
{
    while (w->eq_whole != NULL)
        w = ((sub *)(void *)w)->whole;
    return w;
}

static uint32_t row_in_top(const sa_result *w, uint32_t i)
{
    for (; w->eq_whole != NULL; w = ((const sub *)(const void *)w)->whole)
        i = w->eq_whole[i];
    return i;
}

static uint32_t var_in_top(const sa_result *w, uint32_t j)
{
    for (; w->eq_whole != NULL; w = ((const sub *)(const void *)w)->whole)
        j = w->var_whole[j];
    return j;
}

static size_t edge_in_top(const sa_result *w, size_t e)
{
    for (; w->eq_whole != NULL; w = ((const sub *)(const void *)w)->whole)
        e = ((const sub *)(const void *)w)->edge_whole[e];
    return e;
}

/* Whether k can be read or added to now (the memo's rule, sa_memo.c). */
static bool kept_usable(const sa__kept *k)
{
    return k != NULL && !sa__sifting() && k->epoch == sa__layout_epoch();
}

/* The result's kept blocks, made when first needed; NULL if no memory or
 * not usable. */
static sa__kept *kept_of(sa_result *top)
{
    if (top->kept == NULL && !sa__sifting()) {
        sa__kept *k = mdae_calloc(1, sizeof *k);
        uint32_t *rr = mdae_calloc((size_t)top->n_eq + 1, sizeof *rr);
        if (k == NULL || rr == NULL) {
            mdae_free(k);
            mdae_free(rr);
            return NULL;
        }
        *k = (sa__kept){sa__layout_epoch(), top->n_eq, rr, NULL, NULL, 0, 0, 0,
                        SA_BMEMO_MAX_INTS, NULL, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0};
        if ((size_t)top->n_eq * SA_BMEMO_INTS_PER_EQ > k->max_words) /* n_eq < 2^32 */
            k->max_words = (size_t)top->n_eq * SA_BMEMO_INTS_PER_EQ;
        top->kept = k;
    }
    return kept_usable(top->kept) ? top->kept : NULL;
}

static size_t krec_words(const krec *x)
{
    return x->key.n_shape + x->key.n_funs + x->n_val + x->n_eq + x->n_var + 2 * x->n_edges + 16;
}

/* x (referenced here) into k, at its first row, marked seeded (a block of
 * the tight graph of k's result's own seeded rounds) or not; false if k is
 * full. */
static bool kept_put(sa_ctx *c, sa__kept *k, krec *x, bool seeded)
{
    size_t words = krec_words(x);
    if (k->words + words > k->max_words || x->n_eq == 0)
        return false;
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 64;
        krec **rec = mdae_realloc(k->rec, cap * sizeof *rec);
        if (rec != NULL)
            k->rec = rec;
        uint32_t *link = mdae_realloc(k->link, cap * sizeof *link);
        if (link != NULL)
            k->link = link;
        uint8_t *sd = mdae_realloc(k->seeded, cap);
        if (sd != NULL)
            k->seeded = sd;
        if (rec == NULL || link == NULL || sd == NULL)
            sa__fail(c, MDAE_E_NOMEM);
        k->cap = cap;
    }
    k->seeded[k->n] = seeded;
    x->refs++;
    uint32_t *head = &k->row_rec[x->rows[0]];
    k->rec[k->n] = x;
    k->words += words;
    if (*head == 0) {
        k->link[k->n] = 0;
        *head = (uint32_t)++k->n;
    } else { /* second: the first stays first (link) */
        k->link[k->n] = k->link[*head - 1];
        k->link[*head - 1] = (uint32_t)++k->n;
    }
    return true;
}

/* A record (not yet referenced) of key, the solution val (n_val) in
 * modes, for a block of n_eq rows, n_var columns and n_edges edges, its
 * places left to the caller; NULL if k has no room for it. */
static krec *krec_new(sa_ctx *c, const sa__kept *k, const sa__bkey *key, const BDD *val,
                      size_t n_val, BDD modes, uint32_t n_eq, uint32_t n_var, size_t n_edges)
{
    if (k->words + key->n_shape + key->n_funs + n_val > k->max_words)
        return NULL;
    size_t bytes = sizeof(krec) + n_edges * sizeof(size_t) + key->n_shape * sizeof(int32_t) +
                   (key->n_funs + n_val) * sizeof(BDD) + ((size_t)n_eq + n_var) * sizeof(uint32_t);
    krec *x = mdae_malloc(bytes);
    if (x == NULL)
        sa__fail(c, MDAE_E_NOMEM);
    x->refs = 0;
    x->n_eq = n_eq;
    x->n_var = n_var;
    x->n_edges = n_edges;
    x->n_val = n_val;
    x->hashed = false;
    x->square = false;
    x->edges = (size_t *)(x + 1);
    int32_t *shape = (int32_t *)(x->edges + n_edges);
    BDD *funs = (BDD *)(shape + key->n_shape);
    x->val = funs + key->n_funs;
    x->rows = (uint32_t *)(x->val + n_val);
    x->vars = x->rows + n_eq;
    x->key = (sa__bkey){shape, key->n_shape, funs, key->n_funs};
    memcpy(shape, key->shape, key->n_shape * sizeof *shape);
    for (size_t a = 0; a < key->n_funs; a++)
        funs[a] = bdd_addref(key->funs[a]);
    for (size_t a = 0; a < n_val; a++)
        x->val[a] = bdd_addref(val[a]);
    x->modes = bdd_addref(modes);
    return x;
}

/* x, placed, into k (seeded: as kept_put); freed if k is full. */
static void kept_put_new(sa_ctx *c, sa__kept *k, krec *x, bool seeded)
{
    x->refs = 1; /* ours until k takes it */
    kept_put(c, k, x, seeded);
    krec_unref(x);
}

/* Blocks of more rows are not kept by place: the check of such a block
 * costs about what its key does, and the record a copy of it (the brake's
 * union-graph block of every railcar, 1,203 rows at N = 100, cost its cold
 * analysis 0.3 M instructions), while the many small blocks of a tight
 * graph are what the key's fixed costs were paid for. They stay in the
 * memo (by key). */
#define KEPT_BLOCK_ROWS 64

/* blocks_from_hint gives parts back to the rest (those on a cycle, or
 * next to a rest without a perfect matching) at most this many times
 * before it leaves the whole to find_blocks. */
#define PLACE_ROUNDS 8

/* sa__blocks_solve reports its progress (sa__progress: the caller's
 * callback, a clock read) after every block it solves, and after every
 * this many it reuses from the hint's records: the brake's seeded rounds
 * reuse thousands of blocks of a few rows (N = 2,000: 6,000 reports were
 * 0.8 M of the round's 17 M instructions). */
#define REUSED_PER_PROGRESS 64

/* A record of block s (sub_index'd in s->whole) under key, with the
 * solution val (solution_size) in modes, into the kept blocks of the
 * result s->whole is part of (if it is small: KEPT_BLOCK_ROWS). */
static void kept_record(sa_ctx *c, const sub *s, const sa__bkey *key, const BDD *val, BDD modes)
{
    const sa_result *w = s->whole, *r = &s->r;
    if (r->n_eq > KEPT_BLOCK_ROWS)
        return;
    sa__kept *k = kept_of(top_result(s->whole));
    krec *x = k == NULL ? NULL
                        : krec_new(c, k, key, val, solution_size(s), modes, r->n_eq, r->n_var,
                                   r->n_edges);
    if (x == NULL)
        return;
    for (size_t q = 0; q < r->n_edges; q++)
        x->edges[q] = edge_in_top(w, s->edge_whole[q]);
    for (uint32_t a = 0; a < r->n_eq; a++)
        x->rows[a] = row_in_top(w, r->eq_whole[a]);
    for (uint32_t a = 0; a < r->n_var; a++)
        x->vars[a] = var_in_top(w, r->var_whole[a]);
    x->square = s->square;
    kept_put_new(c, k, x, false);
}

/* The hint's kept blocks where this analysis may find its blocks by place:
 * c->r is the result itself (not a block's sub-result), and its edges are
 * the hint's; else NULL. */
static const sa__kept *kept_by_place(const sa_ctx *c)
{
    const sa_result *w = c->r, *h = c->opt != NULL ? c->opt->hint : NULL;
    if (h == NULL || h == w || w->eq_whole != NULL || !kept_usable(h->kept) ||
        h->kept->n_eq != w->n_eq || h->w_sigma != w->w_sigma || !sa__same_edges(w, h))
        return NULL;
    return h->kept;
}

/* Whether record x is block b of c->r (its rows eqs[0 .. ne), columns
 * vars[0 .. nv)) by the check of the lemma above, its rows in the result's
 * order by order_pos. */
static bool krec_is(const sa_ctx *c, const krec *x, const uint32_t *eqs, uint32_t ne,
                    const uint32_t *vars, uint32_t nv, const uint32_t *block_of_var, uint32_t b,
                    const uint32_t *order_pos);

/* krec_is's checks of x's sizes and places. */
static inline bool krec_sized(const sa_ctx *c, const krec *x, const uint32_t *eqs, uint32_t ne,
                              const uint32_t *vars, uint32_t nv)
{
    const int32_t *shape = x->key.shape;
    return x->n_eq == ne && x->n_var == nv && shape[4] == c->r->w_sigma &&
           shape[5] == c->no_max &&
           (x->rows == eqs || memcmp(x->rows, eqs, ne * sizeof *eqs) == 0) &&
           (x->vars == vars || memcmp(x->vars, vars, nv * sizeof *vars) == 0); /* take_part's: its own */
}

/* krec_is's checks after the edges': the rows' and columns' activity, the
 * rows' order, the modes. */
static inline bool krec_rest(const sa_ctx *c, const krec *x, const uint32_t *eqs, uint32_t ne,
                             const uint32_t *vars, uint32_t nv, const uint32_t *order_pos)
{
    const sa_result *w = c->r;
    const int32_t *shape = x->key.shape;
    const BDD *fr = &x->key.funs[x->n_edges * (1 + (size_t)w->w_sigma)];
    for (uint32_t a = 0; a < ne; a++)
        if (fr[a] != w->chi_i[eqs[a]])
            return false;
    for (uint32_t a = 0; a < nv; a++)
        if (fr[ne + a] != w->chi_j[vars[a]])
            return false;
    const int32_t *order = &shape[6 + 3 * x->n_edges];
    for (uint32_t a = 1; a < ne; a++)
        if (order_pos[eqs[order[a - 1]]] > order_pos[eqs[order[a]]])
            return false;
    return x->modes == w->chi_m || sa__imp(w->chi_m, x->modes) == bddtrue;
}

/* Whether a[0 .. n) and b[0 .. n) are the same nodes (a few: not memcmp). */
static inline bool same_bdds(const BDD *a, const BDD *b, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (a[k] != b[k])
            return false;
    return true;
}

/* krec_rest for a record of the bulk check (bulk_edges: none of x's
 * columns unlike, so their activity is the hint's, which x's is): the
 * rows' activity unless kn->same_rows, their order unless kn->same_order
 * (the bulk check's lemma: x passed these checks against the hint's), the
 * modes. */
static inline bool krec_rest_bulk(const sa_ctx *c, const sa__known *kn, const krec *x,
                                  const uint32_t *order_pos)
{
    const sa_result *w = c->r;
    const int32_t *shape = x->key.shape;
    const BDD *fr = &x->key.funs[x->n_edges * (1 + (size_t)w->w_sigma)];
    uint32_t ne = x->n_eq;
    const uint32_t *eqs = x->rows;
    for (uint32_t a = 0; !kn->same_rows && a < ne; a++)
        if (fr[a] != w->chi_i[eqs[a]])
            return false;
    const int32_t *order = &shape[6 + 3 * x->n_edges];
    for (uint32_t a = 1; !kn->same_order && a < ne; a++)
        if (order_pos[eqs[order[a - 1]]] > order_pos[eqs[order[a]]])
            return false;
    return x->modes == w->chi_m || sa__imp(w->chi_m, x->modes) == bddtrue;
}

static bool krec_is(const sa_ctx *c, const krec *x, const uint32_t *eqs, uint32_t ne,
                    const uint32_t *vars, uint32_t nv, const uint32_t *block_of_var, uint32_t b,
                    const uint32_t *order_pos)
{
    const sa_result *w = c->r;
    const int32_t *shape = x->key.shape;
    size_t ws = (size_t)w->w_sigma, stride = 1 + ws;
    if (!krec_sized(c, x, eqs, ne, vars, nv))
        return false;
    /* The record's edge q: x->edges[q], its variable at shape[6 + 3q + 2],
     * its tight function and sigma at f[q * stride ..]; walked by
     * pointers (no product per edge). */
    const BDD *f = x->key.funs, *chi_e = w->chi_e, *sigma = w->sigma;
    const size_t *eq_first = w->eq_first, *xe = x->edges, *xend = x->edges + x->n_edges;
    const uint32_t *edge_v = w->edge_v;
    const int *edge_var = w->edge_var;
    const int32_t *var_q = &shape[6 + 2];
    for (uint32_t a = 0; a < ne; a++)
        for (size_t e = eq_first[eqs[a]], end = eq_first[eqs[a] + 1]; e < end; e++) {
            if (block_of_var[edge_v[e]] != b)
                continue;
            if (xe == xend || *xe != e || *var_q != edge_var[e] || f[0] != chi_e[e])
                return false;
            if (ws == 1 ? f[1] != sigma[e] : !same_bdds(&f[1], &sigma[e * ws], ws))
                return false;
            xe++;
            var_q += 3;
            f += stride;
        }
    return xe == xend && krec_rest(c, x, eqs, ne, vars, nv, order_pos);
}

/* The record of k that block b of c->r is (krec_is), among those whose
 * first row is the block's; NULL if none. */
static const krec *kept_same(const sa_ctx *c, const sa__kept *k, const uint32_t *eqs, uint32_t ne,
                             const uint32_t *vars, uint32_t nv, const uint32_t *block_of_var,
                             uint32_t b, const uint32_t *order_pos)
{
    for (uint32_t at = k->row_rec[eqs[0]]; at != 0; at = k->link[at - 1])
        if (krec_is(c, k->rec[at - 1], eqs, ne, vars, nv, block_of_var, b, order_pos))
            return k->rec[at - 1];
    return NULL;
}

static uint64_t krec_hash(krec *x)
{
    if (!x->hashed) {
        x->hash = mdae_hash_words(
            mdae_hash_words(MDAE_HASH_SEED, x->key.shape, x->key.n_shape * sizeof(int32_t)),
            x->key.funs, x->key.n_funs * sizeof(BDD));
        x->hashed = true;
    }
    return x->hash;
}

static bool krec_has_key(const krec *x, const sa__bkey *key)
{
    return x->key.n_shape == key->n_shape && x->key.n_funs == key->n_funs &&
           memcmp(x->key.shape, key->shape, key->n_shape * sizeof(int32_t)) == 0 &&
           memcmp(x->key.funs, key->funs, key->n_funs * sizeof(BDD)) == 0;
}

/* A record of k with key (any place), by a table of their keys' hashes
 * made when first asked (an analysis that cannot find its blocks by place:
 * the hint's memo lacks the blocks the hint itself found by place); NULL
 * if none (or no memory for the table). */
static const krec *kept_find_key(sa__kept *k, const sa__bkey *key)
{
    if (k->hashed_n != k->n) {
        size_t cap = 64;
        while (cap < 2 * k->n + 2)
            cap *= 2;
        size_t *t = mdae_calloc(cap, sizeof *t);
        if (t == NULL)
            return NULL;
        for (size_t a = 0; a < k->n; a++) {
            size_t at = krec_hash(k->rec[a]) & (cap - 1);
            while (t[at] != 0)
                at = (at + 1) & (cap - 1);
            t[at] = a + 1;
        }
        mdae_free(k->htab);
        k->htab = t;
        k->hcap = cap;
        k->hashed_n = k->n;
    }
    uint64_t h = mdae_hash_words(
        mdae_hash_words(MDAE_HASH_SEED, key->shape, key->n_shape * sizeof(int32_t)), key->funs,
        key->n_funs * sizeof(BDD));
    for (size_t at = h & (k->hcap - 1); k->htab[at] != 0; at = (at + 1) & (k->hcap - 1)) {
        krec *x = k->rec[k->htab[at] - 1];
        if (krec_hash(x) == h && krec_has_key(x, key))
            return x;
    }
    return NULL;
}

/* ---- te borrowed in the tight rounds ------------------------------------------
 * In the tight rounds (c->no_max) sa__blocks_solve's te is not slots but a
 * temporary array (bddfalse = 0 throughout first) whose entries hold no
 * reference of their own: each borrows one that lives at least as long as
 * the array (until the caller releases its slots and temporaries, the
 * same scope): a record's solution (x->val: the record is referenced by
 * the hint's kept blocks, which the hint keeps while this analysis runs,
 * and is never changed), a restricted copy of it (slots of the caller's
 * scope, not released), prev's te (an earlier round's, released after
 * this one), or `own` slots the block puts its values in (a block solved,
 * or taken from a memo: their values die with the block's own marks).
 * The readers (sa_tight.c's tight_solve, later rounds by prev, pay_owed,
 * learn_failures) only read te. A BDD is a node number: the same values,
 * read the same; only the addref / delref pairs per edge are gone (16,000
 * of each per round at N = 2,000). Under sa_options.self_check
 * borrowed_checked collects the garbage and asks BuDDy about each entry
 * (a node freed since would be an error). */

/* te[e] = f: referenced in te (not borrowing), else borrowed, and held in
 * *own first if own is not NULL. */
static inline void te_set(BDD *te, bool borrow, size_t e, BDD f, BDD *own)
{
    if (!borrow) {
        sa__put(&te[e], f);
        return;
    }
    if (own != NULL)
        sa__put(own, f);
    te[e] = f;
}

/* A solution kept in more valid modes than ours (or the same), val in
 * `held`, taken into te, tmax (NULL: not wanted; the whole's edges:
 * edges[0 .. ne)), *ok,
 * *sing and *bok as solve_block would; the values taken (restricted to our
 * modes) into *got, slots of the caller's mark, or val itself. With
 * borrow, te borrows (the section above): held in own[0 .. ne) if own is
 * not NULL, else the caller keeps *got alive. */
static void take_solution(sa_ctx *c, const BDD *val, BDD held, const size_t *edges, size_t ne,
                          BDD *te, bool borrow, BDD *own, BDD *tmax, BDD *ok, BDD *sing,
                          BDD *bok, const BDD **got)
{
    size_t n_val = 2 * ne + 2;
    BDD modes = c->r->chi_m;
    *got = val; /* in the same modes: as they are */
    if (held != modes) {
        BDD *in = sa__slots(c, n_val);
        for (size_t a = 0; a < n_val; a++)
            sa__put(&in[a], sa__and(val[a], modes));
        *got = in;
    }
    if (borrow && own == NULL) {
        const BDD *g = *got; /* a local: *got could alias te */
        for (size_t k = 0; k < ne; k++)
            te[edges[k]] = g[k];
    } else {
        for (size_t k = 0; k < ne; k++)
            te_set(te, borrow, edges[k], (*got)[k], own != NULL ? &own[k] : NULL);
    }
    for (size_t k = 0; tmax != NULL && k < ne; k++)
        sa__put(&tmax[edges[k]], (*got)[ne + k]);
    sa__put(ok, sa__and(*ok, (*got)[2 * ne]));
    sa__put(bok, (*got)[2 * ne]);
    sa__put(sing, (*got)[2 * ne + 1]);
}

/* Whether c->r's blocks are those of a round of its own seeded rounds
 * (sa_tight.c's seeded_rounds: c->known is theirs, c->r's tight graph
 * theirs), not of a block's sub-result or of other tight rounds. */
static bool in_own_rounds(const sa_ctx *c)
{
    return c->known != NULL && c->known->r == c->r && c->r->chi_e == c->known->tight;
}

/* Where reuse_kept keeps the records it reuses: kept_of(c->r), asked at
 * the first and again when the layout epoch moves (kept_of makes it once,
 * and it is usable while its epoch is the layout's: kept_usable). */
typedef struct own_kept {
    bool asked;
    unsigned long epoch; /* sa__layout_epoch when asked */
    sa__kept *k;
} own_kept;

/* Block b of c->r as the record x has it (kept_same, or a part that krec_is
 * or its shortcuts found a block of c->r): its solution into te .. bok, and
 * x kept with this result too (ok: the call's own_kept). */
static void reuse_kept(sa_ctx *c, own_kept *ok_, const krec *x, BDD *te, bool borrow, BDD *tmax,
                       BDD *ok, BDD *sing, BDD *bok)
{
    size_t mark = sa__mark(c);
    const BDD *got;
    take_solution(c, x->val, x->modes, x->edges, x->n_edges, te, borrow, NULL, tmax, ok, sing, bok,
                  &got);
    if (!ok_->asked || ok_->epoch != sa__layout_epoch()) {
        ok_->k = kept_of(c->r);
        ok_->epoch = sa__layout_epoch();
        ok_->asked = true;
    }
    sa__kept *k = ok_->k;
    bool own = in_own_rounds(c); /* x: krec_is holds of it in this round */
    if (k != NULL && got == x->val) { /* the same solution in the same modes: shared */
        kept_put(c, k, (krec *)x, own);
    } else if (k != NULL) { /* restricted to our modes: a record of its own */
        krec *y = krec_new(c, k, &x->key, got, x->n_val, c->r->chi_m, x->n_eq, x->n_var,
                           x->n_edges);
        if (y != NULL) {
            memcpy(y->edges, x->edges, x->n_edges * sizeof *y->edges);
            memcpy(y->rows, x->rows, x->n_eq * sizeof *y->rows);
            memcpy(y->vars, x->vars, x->n_var * sizeof *y->vars);
            y->square = x->square;
            kept_put_new(c, k, y, own);
        }
    }
    if (got != x->val && !borrow) /* else no slot made, or te borrows from them */
        sa__release(c, mark);
}

/* The block in s as the hint's memo has it, or else, with by_key (when
 * blocks are not found by place: kept_by_place), the hint's kept blocks
 * by key (then into te, tmax, *ok, *sing and *bok as solve_block would, and
 * into this analysis's memo and kept blocks): true; else false, nothing
 * changed. Kept in more valid modes than ours, it is restricted to ours
 * (sa_memo.c says why that is exact). */
static bool reuse_block(sa_ctx *c, const sub *s, const sa__bkey *k, bool by_key, BDD *te,
                        bool borrow, BDD *own, BDD *tmax, BDD *ok, BDD *sing, BDD *bok)
{
    const sa_result *h = c->opt != NULL ? c->opt->hint : NULL;
    size_t n_val = solution_size(s), ne = s->r.n_edges;
    BDD modes = s->r.chi_m;
    sa__mval v;
    if (h == NULL)
        return false;
    if (!sa__bmemo_find(h->bmemo, k, &v)) {
        const krec *x = by_key && kept_usable(h->kept) ? kept_find_key(h->kept, k) : NULL;
        if (x == NULL)
            return false;
        v = (sa__mval){x->val, x->n_val, NULL, 0, x->modes, NULL};
    }
    if (v.modes != modes && sa__imp(modes, v.modes) != bddtrue)
        return false;
    MDAE_ASSERT(v.n_f == n_val);
    size_t mark = sa__mark(c);
    const BDD *got;
    take_solution(c, v.f, v.modes, s->edge_whole, ne, te, borrow, own, tmax, ok, sing, bok, &got);
    sa__bmemo_add(c, c->bmemo, k,
                  &(sa__mval){got, n_val, NULL, 0, modes, v.modes == modes ? v.entry : NULL});
    kept_record(c, s, k, got, modes);
    sa__release(c, mark);
    return true;
}

/* Keep the block just solved in this analysis's memo and kept blocks: te
 * and tmax of its edges (local), its ok and singular modes, in its valid
 * modes. */
static void keep_block(sa_ctx *c, const sub *s, const sa__bkey *k, const BDD *te,
                       const BDD *tmax, BDD ok, BDD sing)
{
    if (c->bmemo == NULL)
        return;
    size_t mark = sa__mark(c);
    size_t ne = s->r.n_edges;
    BDD *v = sa__slots(c, solution_size(s));
    for (size_t k2 = 0; k2 < ne; k2++) {
        sa__put(&v[k2], te[k2]);
        sa__put(&v[ne + k2], tmax[k2]);
    }
    sa__put(&v[2 * ne], ok);
    sa__put(&v[2 * ne + 1], sing);
    sa__bmemo_add(c, c->bmemo, k, &(sa__mval){v, solution_size(s), NULL, 0, s->r.chi_m, NULL});
    kept_record(c, s, k, v, s->r.chi_m);
    sa__release(c, mark);
}

/* Solve the block in s, its sub-result in c->r for the call: by
 * enumerating the assignments of the mode variables it reads, or by the
 * implicit primal (the top of the file says which). Adds its matched edges
 * to te (within its ok when it sets *within: its primal's te_within) and a maximum matching of its singular modes to tmax (whole's
 * edges, slots), its nonsingular modes to *ok, and sets *sing to its
 * singular modes and *bok to its nonsingular ones; keeps it in the
 * analysis's memo under key. With borrow, te borrows (own: as many slots
 * as the block has edges, the caller's, hold the values). */
static void solve_block(sa_ctx *c, sub *s, const sa__bkey *key, BDD *te, bool borrow, BDD *own,
                        BDD *tmax, BDD *ok, BDD *sing, BDD *bok, bool *within)
{
    sa_result *w = c->r, *r = &s->r;
    size_t mark = sa__mark(c);
    sub_enter(c, s);
    BDD *local_tmax = sa__slots(c, r->n_edges + 1);
    sa__plan plan = {.primal_only = true, .tmax = local_tmax};
    sa__enum_plan(c, &plan);
    size_t budget = sa__implicit_budget(c, r, plan.modes);
    bool cheap = sa__enum_is_cheap(c, r, plan.modes);
    if (c->opt != NULL && c->opt->method == SA_METHOD_TIGHT && c->tight_depth == 0) {
        cheap = false; /* forced (tests) */
        budget = 0;
    }
    bool fell_back = !cheap && budget > 0 && !implicit_within(c, budget, local_tmax);
    if (cheap || fell_back) {
        r->searched = false;
        sa__enumerate(c, &plan);
        w->enumerated_modes += r->enumerated_modes;
        w->blocks_fell_back += fell_back;
    } else if (budget == 0) {
        /* The tight graphs first (cheap when they cover every mode), unless
         * they failed the hint; else the implicit primal, in Cuthill-McKee's
         * order if that is much narrower (sa__hard_part may start the
         * analysis again). */
        bool tight = !tight_in_vain(c) && sa__tight_primal(c, local_tmax);
        w->blocks_tight += tight;
        w->blocks_learned += tight && r->blocks_learned > 0;
        w->blocks_wide += tight && r->blocks_wide > 0;
        if (!tight) {
            sa__hard_part(c);
            implicit_primal(c, local_tmax);
        }
    }
    /* The memo and the kept blocks hold exact te, which a block within its
     * ok has not made: not kept (a later analysis solves it again). */
    if (!r->te_within)
        keep_block(c, s, key, sa__te_exact(r), local_tmax, r->ok, r->singular);
    *within = r->te_within;
    for (size_t k = 0; tmax != NULL && k < r->n_edges; k++)
        sa__put(&tmax[s->edge_whole[k]], local_tmax[k]);
    c->r = w;
    for (size_t k = 0; k < r->n_edges; k++) /* as stored: *within says */
        te_set(te, borrow, s->edge_whole[k], r->te[k], borrow ? &own[k] : NULL);
    sa__put(ok, sa__and(*ok, r->ok));
    sa__put(bok, r->ok);
    sa__put(sing, r->singular);
    w->searched |= r->searched;
    w->seeded += r->seeded; /* its equations, each in one block */
    w->seeded_zero += r->seeded_zero;
    w->seeded_sampled += r->seeded_sampled;
    w->seeded_repaired += r->seeded_repaired;
    w->max_by_cofactors += !fell_back && r->max_by_cofactors > 0;
    sub_leave(c, s);
    sa__release(c, mark);
}

/* ---- The singular modes' diagnostics ----------------------------------------
 * The blocks' own matchings (perfect in the nonsingular blocks of a mode,
 * maximum in its singular ones) are a maximum matching of the mode's graph
 * when no two singular blocks of a mode are joined by a path of the union
 * graph's block order. An augmenting path joins an unmatched row and an
 * unmatched column, each in a singular block; along it, the blocks follow
 * the union graph's edges between blocks (a matched edge stays inside its
 * block), which are ordered (a walk that left a block and came back would
 * be a cycle through other blocks, which would then be part of it). So it
 * either stays inside one block, where the matching is maximum already, or
 * goes from one singular block to another one it reaches: excluded. Given a
 * maximum matching, the Dulmage-Mendelsohn parts are what alternating paths
 * reach: the rows reachable from an unmatched row (row -> edge -> column ->
 * its matched row) are overdetermined, the columns reachable from an
 * unmatched column likewise underdetermined (sa_dm.c defines them by
 * maximum matchings, which is the same). Both are least fixpoints over
 * mode functions, like the offsets. Otherwise the same reachability from
 * a maximum matching of the whole in each singular mode, when sa_tight.c
 * finds one (BatchPlant_StandardWater: its big block and a block of three
 * equations are singular in common modes and joined); else sa_dm.c on the
 * whole. */

/* At most this many blocks singular in some mode: one search of the block
 * order from each. */
#define SINGULAR_BLOCKS_MAX 256

/* The modes where block b's own maximum matching leaves a row unmatched
 * (srow[b], slots of the caller's) and where it leaves a column unmatched
 * (scol[b]): both its singular modes for a square block, whose maximum
 * matchings are perfect where it is not singular; for a block of the
 * over- or underdetermined part of a union graph without a perfect
 * matching (sa_udm.c), read from tmax, a maximum matching in every mode
 * (such a block has no perfect matching in any). */
static void unmatched_modes(sa_ctx *c, const sa__bsol *b, BDD *srow, BDD *scol)
{
    const sa_result *r = c->r;
    for (uint32_t k = 0; k < b->nb; k++) {
        sa__put(&srow[k], b->kind == NULL || b->kind[k] == SA_UBLOCK_SQUARE ? b->sing[k] : bddfalse);
        sa__put(&scol[k], srow[k]);
    }
    if (b->kind == NULL)
        return;
    size_t mark = sa__mark(c);
    BDD *mrow = sa__slots(c, (size_t)r->n_eq + 1), *mcol = sa__slots(c, (size_t)r->n_var + 1);
    for (size_t e = 0; e < r->n_edges; e++)
        if (b->tmax[e] != bddfalse) {
            sa__put(&mrow[r->edge_eq[e]], sa__or(mrow[r->edge_eq[e]], b->tmax[e]));
            sa__put(&mcol[r->edge_v[e]], sa__or(mcol[r->edge_v[e]], b->tmax[e]));
        }
    for (uint32_t i = 0; i < r->n_eq; i++) {
        uint32_t k = b->block_of_eq[i];
        if (k == UINT32_MAX || b->kind[k] == SA_UBLOCK_SQUARE)
            continue;
        size_t m2 = sa__mark(c);
        BDD act = T(sa__and(r->chi_i[i], r->chi_m));
        sa__put(&srow[k], sa__or(srow[k], T(sa__diff(act, mrow[i]))));
        sa__release(c, m2);
    }
    for (uint32_t j = 0; j < r->n_var; j++) { /* active in every valid mode */
        uint32_t k = b->block_of_var[j];
        if (b->kind[k] != SA_UBLOCK_SQUARE)
            sa__put(&scol[k], sa__or(scol[k], sa__diff(r->chi_m, mcol[j])));
    }
    sa__release(c, mark);
}

/* The block order: b -> b' when a row of b has a union edge to a column
 * of b' (compressed rows, *first and *to; repeated edges do no harm). */
static void block_graph(sa_ctx *c, uint32_t nb, const uint32_t *block_of_eq,
                        const uint32_t *block_of_var, const bool *in_union, size_t **first_out,
                        uint32_t **to_out)
{
    const sa_result *r = c->r;
    size_t *first = sa__alloc(c, ((size_t)nb + 2) * sizeof *first);
    uint32_t *to = sa__alloc(c, (r->n_edges + 1) * sizeof *to);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t e = 0; e < r->n_edges; e++) {
            uint32_t a = block_of_eq[r->edge_eq[e]], b = block_of_var[r->edge_v[e]];
            if (a == UINT32_MAX || a == b || !in_union[e])
                continue;
            if (pass == 0)
                first[a + 2]++;
            else
                to[first[a + 1]++] = b;
        }
        if (pass == 0)
            for (uint32_t b = 0; b < nb; b++)
                first[b + 2] += first[b + 1];
    }
    *first_out = first;
    *to_out = to;
}

/* Each block's place in a topological order of the block order (Kahn's;
 * blocks on a cycle, which sa_udm.c and the strongly connected blocks
 * exclude, would come last, in any order). */
static uint32_t *block_ranks(sa_ctx *c, uint32_t nb, const size_t *first, const uint32_t *to)
{
    uint32_t *indeg = sa__alloc(c, ((size_t)nb + 1) * sizeof *indeg);
    uint32_t *queue = sa__alloc(c, ((size_t)nb + 1) * sizeof *queue);
    uint32_t *rank = sa__alloc(c, ((size_t)nb + 1) * sizeof *rank);
    bool *placed = sa__alloc(c, (size_t)nb + 1);
    for (size_t q = 0; q < first[nb]; q++)
        indeg[to[q]]++;
    uint32_t tail = 0, n = 0;
    for (uint32_t b = 0; b < nb; b++)
        if (indeg[b] == 0)
            queue[tail++] = b;
    for (uint32_t head = 0; head < tail; head++) {
        uint32_t b = queue[head];
        placed[b] = true;
        rank[b] = n++;
        for (size_t q = first[b]; q < first[b + 1]; q++)
            if (--indeg[to[q]] == 0)
                queue[tail++] = to[q];
    }
    for (uint32_t b = 0; b < nb; b++)
        if (!placed[b])
            rank[b] = n++;
    return rank;
}

/* Whether the blocks' own matchings are maximum in every singular mode
 * (above): no block with an unmatched row (srow) in a mode reaches,
 * along a path of the union graph's block order, another block with an
 * unmatched column (scol) in the same mode. */
static bool singular_blocks_apart(sa_ctx *c, const BDD *srow, const BDD *scol, uint32_t nb,
                                  const uint32_t *block_of_eq, const uint32_t *block_of_var,
                                  const bool *in_union)
{
    uint32_t *singular = sa__alloc(c, ((size_t)nb + 1) * sizeof *singular), ns = 0;
    for (uint32_t b = 0; b < nb; b++)
        if (srow[b] != bddfalse) {
            if (ns == SINGULAR_BLOCKS_MAX)
                return false;
            singular[ns++] = b;
        }
    uint32_t *ends = sa__alloc(c, ((size_t)nb + 1) * sizeof *ends), n_ends = 0;
    for (uint32_t b = 0; b < nb; b++)
        if (scol[b] != bddfalse)
            ends[n_ends++] = b;
    size_t *first;
    uint32_t *to;
    block_graph(c, nb, block_of_eq, block_of_var, in_union, &first, &to);
    uint32_t *seen = sa__alloc(c, ((size_t)nb + 1) * sizeof *seen); /* search + 1 */
    uint32_t *queue = sa__alloc(c, ((size_t)nb + 1) * sizeof *queue);
    for (uint32_t k = 0; k < ns; k++) {
        uint32_t head = 0, tail = 0;
        queue[tail++] = singular[k];
        seen[singular[k]] = k + 1;
        while (head < tail) {
            uint32_t b = queue[head++];
            for (size_t q = first[b]; q < first[b + 1]; q++)
                if (seen[to[q]] != k + 1) {
                    seen[to[q]] = k + 1;
                    queue[tail++] = to[q];
                }
        }
        for (uint32_t l = 0; l < n_ends; l++) {
            uint32_t b = ends[l];
            if (b != singular[k] && seen[b] == k + 1 &&
                sa__and(srow[singular[k]], scol[b]) != bddfalse)
                return false;
        }
    }
    return true;
}

/* The edges of each row (eq_first, edges in index order: es NULL) or of
 * each column (sa__columns): those of item x are es[first[x] ..
 * first[x + 1]). */
typedef struct incidence {
    const size_t *first;
    const size_t *es;
} incidence;

static incidence side_edges(sa_ctx *c, bool rows)
{
    incidence in = {c->r->eq_first, NULL};
    if (!rows) {
        size_t *first, *es;
        sa__columns(c, c->r, &first, &es);
        in.first = first;
        in.es = es;
    }
    return in;
}

static size_t edge_at(const incidence *in, size_t k) { return in->es ? in->es[k] : k; }

/* A binary heap of items by key (smallest first), each at most once. */
typedef struct heap {
    size_t *a, n;
    const uint32_t *key, *dist;
    size_t *seq, pushes; /* per item: when it was pushed (FIFO among equals) */
} heap;

static bool heap_less(const heap *h, size_t x, size_t y)
{
    if (h->key[x] != h->key[y])
        return h->key[x] < h->key[y];
    if (h->dist[x] != h->dist[y])
        return h->dist[x] < h->dist[y];
    return h->seq[x] < h->seq[y];
}

static void heap_push(heap *h, size_t x)
{
    h->seq[x] = h->pushes++;
    size_t k = h->n++;
    for (; k > 0 && heap_less(h, x, h->a[(k - 1) / 2]); k = (k - 1) / 2)
        h->a[k] = h->a[(k - 1) / 2];
    h->a[k] = x;
}

static size_t heap_pop(heap *h)
{
    size_t top = h->a[0], x = h->a[--h->n], k = 0;
    for (;;) {
        size_t l = 2 * k + 1, m = l + 1 < h->n && heap_less(h, h->a[l + 1], h->a[l]) ? l + 1 : l;
        if (l >= h->n || !heap_less(h, h->a[m], x))
            break;
        h->a[k] = h->a[m];
        k = m;
    }
    if (h->n > 0)
        h->a[k] = x;
    return top;
}

/* The length of the shortest alternating path of the union of the modes
 * (any edge, then any edge that is matched in some mode) from an item
 * where from[] holds to each item (UINT32_MAX: none), for reach's order. */
static uint32_t *distances(sa_ctx *c, const BDD *match, const BDD *from, bool rows,
                           const incidence *mine, const incidence *other)
{
    const sa_result *r = c->r;
    size_t n = rows ? r->n_eq : r->n_var;
    uint32_t *dist = sa__alloc_raw(c, (n + 1) * sizeof *dist);
    size_t *queue = sa__alloc(c, (n + 1) * sizeof *queue), tail = 0;
    for (size_t x = 0; x < n; x++) {
        dist[x] = from[x] != bddfalse ? 0 : UINT32_MAX;
        if (dist[x] == 0)
            queue[tail++] = x;
    }
    for (size_t head = 0; head < tail; head++) {
        size_t x = queue[head];
        for (size_t k = mine->first[x]; k < mine->first[x + 1]; k++) {
            size_t e = edge_at(mine, k), y = rows ? r->edge_v[e] : r->edge_eq[e];
            for (size_t q = other->first[y]; q < other->first[y + 1]; q++) {
                size_t f = edge_at(other, q), x2 = rows ? r->edge_eq[f] : r->edge_v[f];
                if (match[f] != bddfalse && dist[x2] == UINT32_MAX) {
                    dist[x2] = dist[x] + 1;
                    queue[tail++] = x2;
                }
            }
        }
    }
    return dist;
}

/* Alternating reachability: from[x] holds, on entry, the modes where x is
 * an unmatched row (rows = true; columns otherwise), and on return the
 * modes where x is reached: x -> any active edge -> y on the other side ->
 * y's matched edge -> x'. A worklist of the items whose modes grew, taken
 * by key (key[x]: the place of x's block in the order the paths follow),
 * then by distance from the start in the union of the modes (distances),
 * then first in first out: an item is taken once what reaches it is
 * (nearly) final, and no partial union of paths is built and built again.
 * Any order reaches the same fixpoint, but not at the same cost, on the
 * brake with one equation added (sa_udm.c), its railcars in one block: a
 * FIFO made the intermediate functions blow up with the equation at the
 * start (31 s at N = 100), the items' order with it in the middle (over a
 * minute); this order takes 0.1 s in both. */
static void reach(sa_ctx *c, const BDD *match, BDD *from, bool rows, const uint32_t *key)
{
    const sa_result *r = c->r;
    size_t mark = sa__mark(c);
    size_t n = rows ? r->n_eq : r->n_var, n_other = rows ? r->n_var : r->n_eq;
    incidence mine = side_edges(c, rows), other = side_edges(c, !rows);
    BDD *mid = sa__slots(c, n_other + 1);
    heap h = {sa__alloc(c, (n + 1) * sizeof *h.a), 0, key,
              distances(c, match, from, rows, &mine, &other),
              sa__alloc(c, (n + 1) * sizeof *h.seq), 0};
    bool *queued = sa__alloc(c, n + 1);
    for (size_t x = 0; x < n; x++)
        if (from[x] != bddfalse) {
            heap_push(&h, x);
            queued[x] = true;
        }
    size_t steps = 0;
    while (h.n > 0) {
        size_t x = heap_pop(&h);
        queued[x] = false;
        for (size_t k = mine.first[x]; k < mine.first[x + 1]; k++) {
            size_t e = edge_at(&mine, k), y = rows ? r->edge_v[e] : r->edge_eq[e];
            size_t m2 = sa__mark(c);
            BDD grown = T(sa__or(mid[y], T(sa__and(from[x], r->chi_e[e]))));
            if (grown != mid[y]) {
                sa__put(&mid[y], grown);
                for (size_t q = other.first[y]; q < other.first[y + 1]; q++) {
                    size_t f = edge_at(&other, q), x2 = rows ? r->edge_eq[f] : r->edge_v[f];
                    if (match[f] == bddfalse)
                        continue;
                    BDD now = T(sa__or(from[x2], T(sa__and(mid[y], match[f]))));
                    if (now == from[x2])
                        continue;
                    sa__put(&from[x2], now);
                    if (!queued[x2]) {
                        heap_push(&h, x2);
                        queued[x2] = true;
                    }
                }
            }
            sa__release(c, m2);
        }
        if ((++steps & 255) == 0)
            sa__progress(c, "diagnostics", steps, n);
    }
    sa__release(c, mark);
}

/* The keys reach takes: rows by their block's rank in the block order,
 * columns by the reverse (paths from unmatched columns run against it). */
static void reach_keys(sa_ctx *c, const sa__bsol *b, uint32_t **rkey, uint32_t **ckey)
{
    const sa_result *r = c->r;
    size_t *first;
    uint32_t *to;
    block_graph(c, b->nb, b->block_of_eq, b->block_of_var, b->in_union, &first, &to);
    uint32_t *rank = block_ranks(c, b->nb, first, to);
    *rkey = sa__alloc(c, ((size_t)r->n_eq + 1) * sizeof **rkey);
    *ckey = sa__alloc(c, ((size_t)r->n_var + 1) * sizeof **ckey);
    for (uint32_t i = 0; i < r->n_eq; i++) /* a never-active row: unreached */
        (*rkey)[i] = b->block_of_eq[i] == UINT32_MAX ? 0 : rank[b->block_of_eq[i]];
    for (uint32_t j = 0; j < r->n_var; j++)
        (*ckey)[j] = b->nb - 1 - rank[b->block_of_var[j]];
}

static void diagnostics_by_reach(sa_ctx *c, const sa__bsol *b, const BDD *match)
{
    sa_result *r = c->r;
    r->over = sa__alloc_keep(c, (r->n_eq + 1) * sizeof(BDD));
    r->under = sa__alloc_keep(c, (r->n_var + 1) * sizeof(BDD));
    size_t mark = sa__mark(c);
    BDD *matched = sa__slots(c, (size_t)r->n_eq + r->n_var + 1);
    BDD *mrow = matched, *mcol = matched + r->n_eq;
    for (size_t e = 0; e < r->n_edges; e++) {
        sa__put(&mrow[r->edge_eq[e]], sa__or(mrow[r->edge_eq[e]], match[e]));
        sa__put(&mcol[r->edge_v[e]], sa__or(mcol[r->edge_v[e]], match[e]));
    }
    for (uint32_t i = 0; i < r->n_eq; i++) {
        size_t m2 = sa__mark(c);
        BDD act = T(sa__and(r->chi_i[i], r->singular));
        sa__put(&r->over[i], sa__diff(act, mrow[i]));
        sa__release(c, m2);
    }
    for (uint32_t j = 0; j < r->n_var; j++) {
        size_t m2 = sa__mark(c);
        BDD act = T(sa__and(r->chi_j[j], r->singular));
        sa__put(&r->under[j], sa__diff(act, mcol[j]));
        sa__release(c, m2);
    }
    uint32_t *rkey, *ckey;
    reach_keys(c, b, &rkey, &ckey);
    reach(c, match, r->over, true, rkey);
    reach(c, match, r->under, false, ckey);
    sa__release(c, mark);
}

/* ---- The decomposition from the hint's records ------------------------------------
 * A seeded tight round (c->tight_depth > 0, no earlier round: round 0)
 * whose blocks can be found by place (kept_by_place) takes its block
 * structure from the hint's records instead of decomposing the whole tight
 * graph: every record that is, by krec_is, a block of ours (the same rows,
 * columns, edges, edge and activity nodes, row order and valid modes within
 * the record's; each found at its first row, disjoint from those taken
 * before) and whose rows fall into as many groups as it has columns
 * (krec_square) becomes a part; the rest (rows and columns in no part) is
 * grouped, matched and split as find_blocks does, on the rest alone; and
 * one Tarjan pass over the graph of the parts and the rest's groups (an
 * edge p -> q where a row of p has an edge to a column of q: q's part, or
 * the rest's group matched to it) numbers the blocks. A part that is not
 * a strongly connected component of that graph alone (a changed edge
 * closes a cycle through it) goes back to the rest, and the rest is done
 * again (PLACE_ROUNDS; then, or where the rest does not group, false: the
 * caller decomposes the whole graph as before). A part next to a rest
 * that has no perfect matching goes back to the rest too (square parts: if the whole has a perfect matching, some rest
 * row reaches a part's column); with none next to it, no valid mode's tight
 * graph has a perfect matching, and the round, which then covers no mode,
 * stops there (find_blocks' union graph then has none either on the
 * brake; were it to have one, its blocks would all fail and be kept for
 * the later rounds' samples: only the rounds' choice of samples, never the
 * functions, could differ).
 *
 * Lemma (why the blocks so found give the cold functions). Let P_1 .. P_n
 * be a partition of the active groups and columns into parts, each with as
 * many active rows as active columns in every valid mode (a group has one
 * active row in each), and suppose the graph of the parts (an edge from
 * P to Q, P != Q, where a row of P has an edge active in some valid mode
 * to a column of Q) is acyclic. Then in every valid mode m every perfect
 * matching M of G(m) lies within the parts: take a part Z with no edge
 * out (a sink); its rows' edges all end in Z, so M matches its rows (one
 * active per group, as many as Z's columns) to all of Z's columns; remove
 * Z and go on. Conversely a union of perfect matchings of the parts is one
 * of G(m). So the perfect matchings of every mode are the products of the
 * parts' (as with the fine blocks: the top of the file), the weights and
 * the lexicographic choice split the same way, and each part may be solved
 * alone; a part that is a record is solved by the record (the lemma of the
 * blocks kept by place: its key is the record's, and the solution
 * restricted to our valid modes is ours by sa_memo.c's lemma). A record's
 * rows are as many groups as its columns in every valid mode of ours
 * (krec_square: the record's block was square, as many groups as columns
 * over its modes, which hold ours; every row active in some mode), its columns
 * active in every valid mode (the record's block was a block of an
 * analysis over more modes whose columns all were: vars_always_active;
 * chi_j compared node for node). The Tarjan pass proves the acyclicity:
 * a part alone in its component lies on no cycle, and the rest's groups
 * are split into their own components, which are the fine blocks of the
 * rest (find_blocks' proof on the rest's union graph: a cycle through a
 * part would have put the part in the component). Edges of a part's rows
 * are taken when their tight function is not false (more than those
 * active in a valid mode: at worst a cycle that is not there, and the part
 * goes back to the rest). So the blocks are a block-triangular partition
 * (the union graph's fine blocks when each part is strongly connected in
 * our modes too, else a coarser one), each solved exactly: te, ok, tmax
 * and sing are the cold
 * ones, BDD for BDD. What may differ is the blocks' order (Tarjan's over
 * a smaller graph), hence which failing block learn_failures samples
 * first: the later seeded rounds may sample other modes (seededRounds may
 * differ), never the functions. in_union is not written for the parts'
 * edges (the tight rounds do not read it). */

/* Whether x's rows are as many groups as its columns in every valid mode
 * of ours: x was made from a block of a union graph with a perfect matching
 * (x->square), over more valid modes than ours (krec_is), so its rows'
 * groups then still have one active row each in every valid mode of ours;
 * and each row is active in some (as find_blocks has it). */
static bool krec_square(const sa_ctx *c, const sa__within *vm, const krec *x)
{
    const sa_result *w = c->r;
    if (!x->square)
        return false;
    for (uint32_t a = 0; x->modes != w->chi_m && a < x->n_eq; a++)
        if (never_in(vm, w->chi_i[x->rows[a]]))
            return false;
    return true;
}

/* ---- The seeded rounds' records found (sa__known) ---------------------------
 * Why a record found a block of an earlier seeded round's tight graph by
 * take_part's krec_is is one in a later round if none of its columns is in
 * redo. take_part asks krec_is of record x with its own rows and columns
 * and x's columns alone marked p in part_of_var, so the answer reads only:
 * x; the result's sizes, edges (eq_first, edge_v, edge_var), sigma,
 * w_sigma, chi_i, chi_j and row order, none of which the rounds change;
 * c->no_max, true in every round (sa_tight.c's tight_solve); chi_e of the
 * edges of x's rows into x's columns, the rounds' tight graph, whose
 * columns outside redo keep the functions they had in every round so far
 * (a round makes again only the columns of redo, which only grows:
 * sa_tight.c's seeded_rounds); and last chi_m => x->modes, where chi_m,
 * the modes left, only shrinks from round to round (true stays true).
 * So a true answer stays true; a false one is asked again. krec_square is
 * asked every time (it reads chi_m). */

static struct sa__took *took_new(sa_ctx *c, size_t n); /* "The parts taken again" */
enum { TOOK_TAKEN = 1, TOOK_REFUSED = 2 }; /* how a record's visit ended, if asked */

sa__known *sa__known_new(sa_ctx *c, const BDD *tight, const bool *redo)
{
    const sa_result *w = c->r, *h = c->opt != NULL ? c->opt->hint : NULL;
    if (h == NULL)
        return NULL;
    const sa__kept *k = kept_usable(h->kept) && h->kept->n > 0 ? h->kept : NULL;
    size_t n = k != NULL ? k->n : 0;
    sa__known *kn = sa__alloc(c, sizeof *kn);
    bool same_var = w->n_edges == h->n_edges &&
                    (w->edge_var == h->edge_var ||
                     memcmp(w->edge_var, h->edge_var, w->n_edges * sizeof *w->edge_var) == 0);
    *kn = (sa__known){w, tight, redo, k, sa__layout_epoch(), n, sa__alloc(c, n + 1),
                      NULL, same_var, 0, k != NULL ? took_new(c, n) : NULL, false, false, 0};
    return kn;
}

/* c->known, if it holds for the records k of c->r's current round. */
static sa__known *known_for(const sa_ctx *c, const sa__kept *k)
{
    sa__known *kn = c->known;
    return kn != NULL && k != NULL && kn->k == k && kn->r == c->r && kn->tight == c->r->chi_e &&
                   kn->epoch == sa__layout_epoch() && kn->n == k->n
               ? kn
               : NULL;
}

/* Whether record a (x) was found a block in an earlier round and none of
 * its columns was made again since (the section's lemma: krec_is's
 * answer is then true). */
static bool known_block(const sa__known *kn, size_t a, const krec *x)
{
    if (kn == NULL || !kn->is[a])
        return false;
    for (uint32_t v = 0; v < x->n_var; v++)
        if (kn->redo[x->vars[v]])
            return false;
    return true;
}

/* ---- The records of the hint's own rounds (the bulk check) ----------------
 * Why krec_is needs no edge compared for record a (x) of the hint h's kept
 * blocks when h is a seeded result whose own seeded rounds took x as a
 * block of their tight graph (k->seeded[a], set by reuse_kept only where
 * in_own_rounds: x was found by krec_is, or by this section's or
 * sa__known's shortcuts, a block of that round's graph T_h), and none of
 * x's columns is unlike (below) or in redo (made again since round 0).
 * The edge loop of krec_is compares, for the edges of x's rows into x's
 * columns, the record's edge, its BDD variable, its tight function and
 * sigma with ours, all of which it found equal to h's in h's round. The
 * edges are h's (kept_by_place: sa__same_edges), so are edge_var
 * (kn->same_var) and, in a column not unlike, sigma and the tight
 * function: sa__known_columns compared our round 0's with h->own_tight,
 * which holds, for every column h's rounds did not make again (not
 * stale), the function that column had in each of h's rounds (a round
 * makes again only redo's columns: sa_tight.c). Our later rounds change
 * only redo's columns. krec_rest's checks of activity and row order read,
 * besides the record, only chi_i and chi_j of x's rows and columns and the
 * result's row order, which the rounds do not change and h's rounds read
 * as h has them: where they are h's, node for node and place for place,
 * the record passes them as it did in h's round. sa__known_columns marks
 * unlike a column whose chi_j is not h's, and says whether every row's
 * chi_i (same_rows) and the row order (same_order) are h's; what is not,
 * is compared (krec_rest_bulk). Sizes and modes are checked as krec_is
 * checks them. Under sa_options.self_check krec_is is asked all the same
 * (MDAE_ASSERT). */

void sa__known_columns(sa_ctx *c, sa__known *kn)
{
    const sa_result *w = c->r, *h = c->opt != NULL ? c->opt->hint : NULL;
    const sa__own_tight *o = h != NULL ? h->own_tight : NULL;
    if (kn == NULL || kn->k == NULL || o == NULL || o->n_edges != w->n_edges ||
        h->w_sigma != w->w_sigma || !kn->same_var || !sa__same_edges(w, h))
        return;
    size_t ws = (size_t)w->w_sigma;
    bool *unlike = sa__alloc_raw(c, (size_t)w->n_var + 1);
    memcpy(unlike, o->stale, w->n_var); /* the same columns: sa__same_edges */
    for (size_t lo = 0; lo < w->n_edges; lo += SA_RUN_EDGES) { /* a run at a time */
        size_t n = w->n_edges - lo < SA_RUN_EDGES ? w->n_edges - lo : SA_RUN_EDGES;
        if (memcmp(&kn->tight[lo], &o->tight[lo], n * sizeof(BDD)) == 0 &&
            memcmp(&w->sigma[lo * ws], &h->sigma[lo * ws], n * ws * sizeof(BDD)) == 0)
            continue;
        for (size_t e = lo; e < lo + n; e++)
            if (kn->tight[e] != o->tight[e] ||
                memcmp(&w->sigma[e * ws], &h->sigma[e * ws], ws * sizeof(BDD)) != 0)
                unlike[w->edge_v[e]] = true;
    }
    if (w->chi_j != h->chi_j && memcmp(w->chi_j, h->chi_j, w->n_var * sizeof(BDD)) != 0)
        for (uint32_t j = 0; j < w->n_var; j++) /* activity: krec_rest's, in bulk */
            unlike[j] |= w->chi_j[j] != h->chi_j[j];
    kn->same_rows =
        w->chi_i == h->chi_i || memcmp(w->chi_i, h->chi_i, w->n_eq * sizeof(BDD)) == 0;
    kn->same_order = w->eq_order == h->eq_order ||
                     memcmp(w->eq_order, h->eq_order, w->n_eq * sizeof *w->eq_order) == 0;
    kn->unlike = unlike;
}

/* ---- The records' own edges -------------------------------------------------
 * Why krec_is, asked by take_part of record x of the hint h's kept blocks
 * (x's own rows and columns, x's columns alone marked p), may walk x's own
 * edges instead of every edge of x's rows. Its edge loop finds the edges
 * of x's rows into x's columns (the others are skipped), in row order and
 * each row's edges in order, and asks that they be x->edges in that order
 * with x's BDD variables (shape) and x's tight functions and weights. A
 * record of r->kept is only ever made (kept_record: the block's rows
 * ascending, its edges those of its rows into its columns in the whole's
 * order, a sub-result's rows, columns and edges being the whole's between
 * them, in order; the variables the whole's edge_var) or put there
 * (reuse_kept: a record krec_is, or a shortcut proven to answer as it
 * does, found a block of r) so that this holds of r's layout: x->edges
 * are exactly the edges of x's rows into x's columns in that order, with
 * r's edge_var in x's shape. A result's layout (eq_first, edge_v,
 * edge_var) is made once (sa_encode.c). Where our edges are h's
 * (kept_by_place: sa__same_edges) and so is edge_var (kn->same_var), the
 * edges the loop finds are x->edges in order with x's variables: what is
 * left to compare is the tight function and weights of each of x's edges.
 * krec_sized before and krec_rest after are asked as krec_is asks them,
 * in the same order (so the same BDD operations run). Under
 * sa_options.self_check krec_is is asked all the same and must agree
 * (MDAE_ASSERT). */

/* Whether record x, of kn->k, is a block of ours: krec_is with x's own
 * rows and columns, by the section's lemma (kn->same_var). */
static bool krec_is_by_edges(const sa_ctx *c, const krec *x, const uint32_t *order_pos)
{
    const sa_result *w = c->r;
    size_t ws = (size_t)w->w_sigma, stride = 1 + ws;
    if (!krec_sized(c, x, x->rows, x->n_eq, x->vars, x->n_var))
        return false;
    const BDD *f = x->key.funs, *chi_e = w->chi_e, *sigma = w->sigma;
    const size_t *xe = x->edges, *xend = x->edges + x->n_edges;
    if (ws == 1) { /* the usual width: one weight, compared directly */
        for (; xe < xend; xe++, f += 2)
            if (f[0] != chi_e[*xe] || f[1] != sigma[*xe])
                return false;
    } else {
        for (; xe < xend; xe++, f += stride)
            if (f[0] != chi_e[*xe] || !same_bdds(&f[1], &sigma[*xe * ws], ws))
                return false;
    }
    return krec_rest(c, x, x->rows, x->n_eq, x->vars, x->n_var, order_pos);
}

/* Whether record a (x) of kn->k passes krec_is's edge loop by the
 * section's lemma. */
static bool bulk_edges(const sa__known *kn, size_t a, const krec *x)
{
    if (kn == NULL || kn->unlike == NULL || kn->k->seeded == NULL || !kn->k->seeded[a])
        return false;
    for (uint32_t v = 0; v < x->n_var; v++)
        if (kn->unlike[x->vars[v]] || kn->redo[x->vars[v]])
            return false;
    return true;
}

/* Record x (record a of the hint's, kn: see sa__known, may be NULL) as
 * part p if its rows and columns are in no part yet and it is a block of
 * ours (krec_is, krec_square): part_of_eq and part_of_var written (true);
 * else nothing changed. how (may be NULL): how[a] set when x was asked
 * (its rows and columns in no part): TOOK_TAKEN or TOOK_REFUSED. */
static bool take_part(sa_ctx *c, const sa__within *vm, sa__known *kn, size_t a_rec,
                      const krec *x, uint32_t p, uint32_t *part_of_eq, uint32_t *part_of_var,
                      const uint32_t *order_pos, uint32_t *n_known, uint8_t *how)
{
    const uint32_t *rows = x->rows, *vars = x->vars, ne = x->n_eq, nv = x->n_var; /* locals: the
                                                                  stores below could alias x's */
    for (uint32_t a = 0; a < ne; a++)
        if (part_of_eq[rows[a]] != UINT32_MAX)
            return false;
    for (uint32_t a = 0; a < nv; a++)
        if (part_of_var[vars[a]] != UINT32_MAX)
            return false;
    bool known = known_block(kn, a_rec, x);
    bool bulk = !known && bulk_edges(kn, a_rec, x);
    bool by_edges = !known && !bulk && kn != NULL && kn->same_var; /* "The records' own edges" */
    bool self_check = c->opt != NULL && c->opt->self_check;
    bool marked = (!known && !bulk && !by_edges) || self_check; /* krec_is reads x's columns as p */
    for (uint32_t a = 0; marked && a < nv; a++)
        part_of_var[vars[a]] = p;
    bool is = known ||
              (bulk       ? krec_sized(c, x, x->rows, x->n_eq, x->vars, x->n_var) &&
                                krec_rest_bulk(c, kn, x, order_pos)
               : by_edges ? krec_is_by_edges(c, x, order_pos)
                          : krec_is(c, x, x->rows, x->n_eq, x->vars, x->n_var, part_of_var, p,
                                    order_pos));
    if ((known || (bulk && is)) && self_check) /* the lemmas, checked */
        MDAE_ASSERT(krec_is(c, x, x->rows, x->n_eq, x->vars, x->n_var, part_of_var, p, order_pos));
    if (by_edges && self_check) /* both answers */
        MDAE_ASSERT(is == krec_is(c, x, x->rows, x->n_eq, x->vars, x->n_var, part_of_var, p,
                                  order_pos));
    if (bulk && is)
        kn->n_bulk++;
    if (by_edges)
        kn->n_by_edges++;
    if (kn != NULL && is)
        kn->is[a_rec] = 1;
    *n_known += known;
    is = is && krec_square(c, vm, x);
    if (how != NULL)
        how[a_rec] = is ? TOOK_TAKEN : TOOK_REFUSED;
    if (is != marked) /* else as they are */
        for (uint32_t a = 0, q = is ? p : UINT32_MAX; a < nv; a++)
            part_of_var[vars[a]] = q;
    if (is)
        for (uint32_t a = 0; a < ne; a++)
            part_of_eq[rows[a]] = p;
    return is;
}

/* ---- The parts taken again ------------------------------------------------
 * Why a later round of the same seeded rounds may take blocks_from_hint's
 * parts as an earlier call took them from the hint's records (before any
 * part was given back), asking again only the records with a column in
 * redo. take_parts visits the records in a fixed order (rows ascending,
 * each row's records in k's order); a visit either finds a row or column
 * of the record in a part already (refused, nothing asked), or asks
 * krec_is (or a shortcut whose answer is krec_is's: sa__known, the bulk
 * check) and krec_square. Those read, besides the parts so far, only the
 * record, x's own columns marked with a number no other column has, the
 * result's fixed arrays (sizes, edges, sigma, chi_i, chi_j, row order),
 * c->no_max, the tight functions of the edges of x's rows into x's
 * columns and chi_m, the round's modes (vm is made from it). Here chi_m
 * is the earlier call's, node for node (held in a slot: the rounds in
 * between covered nothing), and a column outside redo has the tight
 * functions it had then (a round makes again only redo's columns, and
 * redo only grows: sa__known). So, by induction over the visits, if every
 * record that was asked then and has a column in redo answers as it did,
 * every visit ends as it did and the parts are the same. Those are asked
 * here: a taken one on the parts as they were left (its columns hold its
 * part's number, no other column does), a refused one with its columns
 * marked by a number no part has. Another answer: the parts are taken
 * afresh. Under sa_options.self_check they are taken afresh all the same
 * and compared (MDAE_ASSERT). */

typedef struct sa__took {
    BDD *modes;            /* a slot: chi_m of the call that took them */
    bool valid;            /* taken at least once */
    uint32_t n_parts;
    uint32_t *part_of_eq;  /* per row: its part (n_eq) */
    uint32_t *part_of_var; /* per column: its part (n_var) */
    const krec **part_rec; /* per part: its record (n_parts) */
    uint8_t *how;          /* per record of kn->k: how its visit ended */
} sa__took;

/* An empty sa__took for n records of c->r's hint, in c's current scope. */
static sa__took *took_new(sa_ctx *c, size_t n)
{
    const sa_result *w = c->r;
    sa__took *tk = sa__alloc(c, sizeof *tk);
    tk->modes = sa__slots(c, 1);
    tk->part_of_eq = sa__alloc_raw(c, ((size_t)w->n_eq + 1) * sizeof *tk->part_of_eq);
    tk->part_of_var = sa__alloc_raw(c, ((size_t)w->n_var + 1) * sizeof *tk->part_of_var);
    tk->part_rec = sa__alloc_raw(c, ((size_t)w->n_eq + 1) * sizeof *tk->part_rec);
    tk->how = sa__alloc(c, n + 1);
    return tk;
}

/* The hint's records k taken as parts (take_part) by rows in order, each
 * row's records in k's order, into part_of_eq and part_of_var (all
 * UINT32_MAX before) and part_rec; their number. how: as take_part's. */
static uint32_t take_parts(sa_ctx *c, const sa__within *vm, sa__known *kn, const sa__kept *k,
                           uint32_t *part_of_eq, uint32_t *part_of_var, const krec **part_rec,
                           const uint32_t *order_pos, uint32_t *n_known, uint8_t *how)
{
    uint32_t n = 0, n_eq = c->r->n_eq; /* locals: take_part's stores could alias them */
    const uint32_t *row_rec = k->row_rec, *link = k->link;
    krec *const *rec = k->rec;
    for (uint32_t i = 0; i < n_eq; i++)
        for (uint32_t at = row_rec[i]; at != 0 && part_of_eq[i] == UINT32_MAX; at = link[at - 1])
            if (take_part(c, vm, kn, at - 1, rec[at - 1], n, part_of_eq, part_of_var, order_pos,
                          n_known, how))
                part_rec[n++] = rec[at - 1];
    return n;
}

/* The parts as take_parts left them (n of them, as_taken: none given back
 * yet) kept in *keep for a later round, if *keep is not NULL; then *keep
 * NULL (kept once). */
static void took_keep(sa_ctx *c, sa__took **keep, const uint32_t *part_of_eq,
                      const uint32_t *part_of_var, const krec **part_rec, uint32_t n,
                      bool as_taken)
{
    const sa_result *w = c->r;
    sa__took *tk = *keep;
    if (tk == NULL)
        return;
    MDAE_ASSERT(as_taken); /* kept before the first part is given back */
    *keep = NULL;
    memcpy(tk->part_of_eq, part_of_eq, w->n_eq * sizeof *part_of_eq);
    memcpy(tk->part_of_var, part_of_var, w->n_var * sizeof *part_of_var);
    memcpy(tk->part_rec, part_rec, n * sizeof *part_rec);
    tk->n_parts = n;
    sa__put(tk->modes, w->chi_m);
    tk->valid = true;
}

/* Whether one of x's columns is in redo. */
static bool redo_column(const sa__known *kn, const krec *x)
{
    for (uint32_t v = 0; v < x->n_var; v++)
        if (kn->redo[x->vars[v]])
            return true;
    return false;
}

/* The parts kn->took holds into part_of_eq, part_of_var, part_rec and
 * *n_parts, if the section's lemma gives them for this call: true; else
 * false (part_of_var may have been written). */
static bool took_again(sa_ctx *c, const sa__within *vm, const sa__known *kn,
                       uint32_t *part_of_eq, uint32_t *part_of_var, const krec **part_rec,
                       uint32_t *n_parts, const uint32_t *order_pos)
{
    const sa_result *w = c->r;
    const sa__took *tk = kn != NULL ? kn->took : NULL;
    if (tk == NULL || !tk->valid || *tk->modes != w->chi_m)
        return false;
    uint32_t np = tk->n_parts;
    for (uint32_t j = 0; j < w->n_var; j++) { /* the taken ones with a column in redo */
        uint32_t p = tk->part_of_var[j];
        if (!kn->redo[j] || p == UINT32_MAX)
            continue;
        const krec *x = tk->part_rec[p];
        if (!krec_is(c, x, x->rows, x->n_eq, x->vars, x->n_var, tk->part_of_var, p, order_pos) ||
            !krec_square(c, vm, x))
            return false;
    }
    memcpy(part_of_var, tk->part_of_var, w->n_var * sizeof *part_of_var);
    for (size_t a = 0; a < kn->n; a++) { /* the refused ones asked, with a column in redo */
        const krec *x = kn->k->rec[a];
        if (tk->how[a] != TOOK_REFUSED || !redo_column(kn, x))
            continue;
        for (uint32_t v = 0; v < x->n_var; v++)
            part_of_var[x->vars[v]] = np;
        bool is = krec_is(c, x, x->rows, x->n_eq, x->vars, x->n_var, part_of_var, np, order_pos) &&
                  krec_square(c, vm, x);
        for (uint32_t v = 0; v < x->n_var; v++)
            part_of_var[x->vars[v]] = tk->part_of_var[x->vars[v]];
        if (is)
            return false;
    }
    memcpy(part_of_eq, tk->part_of_eq, w->n_eq * sizeof *part_of_eq);
    memcpy(part_rec, tk->part_rec, np * sizeof *part_rec);
    *n_parts = np;
    return true;
}

/* Under sa_options.self_check: the parts took_again gave (n of them) are
 * those take_parts finds afresh; the records that found as known
 * (sa__known) into *n_known (its shortcuts are checked there too). */
static void took_checked(sa_ctx *c, const sa__within *vm, sa__known *kn, const sa__kept *k,
                         const uint32_t *part_of_eq, const uint32_t *part_of_var,
                         const krec **part_rec, uint32_t n, const uint32_t *order_pos,
                         uint32_t *n_known)
{
    const sa_result *w = c->r;
    size_t mark = sa__mark(c);
    sa__amark temps = sa__alloc_mark(c);
    uint32_t *eq = sa__alloc_raw(c, ((size_t)w->n_eq + 1) * sizeof *eq);
    uint32_t *var = sa__alloc_raw(c, ((size_t)w->n_var + 1) * sizeof *var);
    const krec **rec = sa__alloc_raw(c, ((size_t)w->n_eq + 1) * sizeof *rec);
    memset(eq, 0xff, ((size_t)w->n_eq + 1) * sizeof *eq); /* UINT32_MAX */
    memset(var, 0xff, ((size_t)w->n_var + 1) * sizeof *var);
    uint32_t n_bulk = kn->n_bulk, n_by_edges = kn->n_by_edges; /* the call's, not the check's */
    uint32_t m = take_parts(c, vm, kn, k, eq, var, rec, order_pos, n_known, NULL);
    kn->n_bulk = n_bulk;
    kn->n_by_edges = n_by_edges;
    MDAE_ASSERT(m == n);
    MDAE_ASSERT(memcmp(eq, part_of_eq, w->n_eq * sizeof *eq) == 0);
    MDAE_ASSERT(memcmp(var, part_of_var, w->n_var * sizeof *var) == 0);
    MDAE_ASSERT(memcmp(rec, part_rec, n * sizeof *rec) == 0);
    sa__alloc_release(c, temps);
    sa__release(c, mark);
}

/* The rest of a decomposition from the hint (blocks_from_hint): the rows
 * and columns in no part, grouped, their union graph (u: the rest's groups,
 * then a row per never-active column; its columns the rest's, numbered by
 * var_local) and a perfect matching of it (var_node[local column]: the
 * node of the row matched to it, n_parts + row). */
typedef struct rest {
    uint32_t n_parts, n_groups; /* n_parts: the parts not given back */
    uint32_t n_ids;      /* the parts as taken: their numbers (part_of_eq,
                            part_of_var, part_rec) stay when some are given
                            back */
    uint32_t *node;      /* by part number: its node among the parts not given
                            back (in order), UINT32_MAX if given back; NULL:
                            none was, the number itself */
    uint32_t *rows, n_rows; /* the rest's rows (in no part), ascending */
    uint32_t *cols, n_cols; /* the rest's columns, ascending */
    const size_t *g_first; /* parts_graph's first graph of the call, when no
                              part had been given back (nodes: part numbers,
                              then the rest's rows from g_np); NULL else */
    const uint32_t *g_to;
    uint32_t g_np;
    uint32_t *group_of;  /* by row, the rest's rows' groups */
    uint32_t *var_local; /* by column, the rest's */
    uint32_t *var_node;  /* by local column */
    uint32_t *gfirst, *geq; /* each group's rows, in model order */
    ugraph u;
    uint32_t *back_rows, n_back_rows; /* given back since rows and cols were */
    uint32_t *back_cols, n_back_cols; /* listed (drop_parts), in no order */
} rest;

/* The node of part p (not given back). */
static inline uint32_t part_node(const rest *t, uint32_t p)
{
    return t->node != NULL ? t->node[p] : p;
}

/* The node of column j's part, or of the rest's row matched to it. */
static uint32_t node_of_var(const rest *t, const uint32_t *part_of_var, uint32_t j)
{
    return part_of_var[j] != UINT32_MAX ? part_node(t, part_of_var[j])
                                        : t->var_node[t->var_local[j]];
}

/* The indices i < n with a[i] == UINT32_MAX (in no part), ascending, into
 * out; their number. A run of 32 entries is tested at once (an OR the
 * compiler makes branch-free): after take_parts most entries are parts'
 * (the rest: a few dozen rows of 24,000 at N = 2,000). */
static uint32_t unset_entries(const uint32_t *a, uint32_t n, uint32_t *out)
{
    uint32_t m = 0;
    size_t i = 0; /* size_t: the run is contiguous to the compiler */
    for (; i + 32 <= n; i += 32) {
        const uint32_t *b = a + i;
        uint32_t any = 0;
        for (size_t q = 0; q < 32; q++)
            any |= b[q] == UINT32_MAX;
        for (size_t q = 0; any != 0 && q < 32; q++)
            if (b[q] == UINT32_MAX)
                out[m++] = (uint32_t)(i + q);
    }
    for (; i < n; i++)
        if (a[i] == UINT32_MAX)
            out[m++] = (uint32_t)i;
    return m;
}

static int by_number(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The n ascending entries of list (room for n + m) merged with the m
 * entries of more (none of list's; sorted here), from the back, in place;
 * their number. */
static uint32_t merge_back(uint32_t *list, uint32_t n, uint32_t *more, uint32_t m)
{
    qsort(more, m, sizeof *more, by_number);
    uint32_t a = n, b = m, to = n + m;
    while (b > 0)
        list[--to] = a > 0 && list[a - 1] > more[b - 1] ? list[--a] : more[--b];
    return n + m;
}

/* The rest's rows and columns: the entries of part_of_eq and part_of_var
 * in no part, ascending (unset_entries), into t->rows and t->cols. After
 * drop_parts (t->rows listed before) they are the earlier lists and the
 * rows and columns given back since (drop_parts sets exactly those to
 * UINT32_MAX, and no entry leaves the rest within a call), merged: two
 * scans of every row and column less per round that gives parts back.
 * Under sa_options.self_check compared with the scans (MDAE_ASSERT). */
static void rest_lists(sa_ctx *c, const uint32_t *part_of_eq, const uint32_t *part_of_var,
                       rest *t)
{
    const sa_result *w = c->r;
    if (t->rows == NULL) {
        t->rows = sa__alloc_raw(c, ((size_t)w->n_eq + 1) * sizeof *t->rows);  /* n_rows */
        t->cols = sa__alloc_raw(c, ((size_t)w->n_var + 1) * sizeof *t->cols); /* n_cols */
        t->n_rows = unset_entries(part_of_eq, w->n_eq, t->rows);
        t->n_cols = unset_entries(part_of_var, w->n_var, t->cols);
        return;
    }
    t->n_rows = merge_back(t->rows, t->n_rows, t->back_rows, t->n_back_rows);
    t->n_cols = merge_back(t->cols, t->n_cols, t->back_cols, t->n_back_cols);
    t->n_back_rows = t->n_back_cols = 0;
    if (c->opt != NULL && c->opt->self_check) {
        uint32_t *rows = sa__alloc_raw(c, ((size_t)w->n_eq + 1) * sizeof *rows);
        uint32_t *cols = sa__alloc_raw(c, ((size_t)w->n_var + 1) * sizeof *cols);
        MDAE_ASSERT(unset_entries(part_of_eq, w->n_eq, rows) == t->n_rows);
        MDAE_ASSERT(unset_entries(part_of_var, w->n_var, cols) == t->n_cols);
        MDAE_ASSERT(memcmp(rows, t->rows, t->n_rows * sizeof *rows) == 0);
        MDAE_ASSERT(memcmp(cols, t->cols, t->n_cols * sizeof *cols) == 0);
        sa__kept *own = kept_of(c->r);
        if (own != NULL)
            own->merged++;
    }
}

/* The rest's groups and union graph (as find_blocks: the same checks), and
 * in_union for the rest's rows' edges; false if they do not apply. */
static bool rest_graph(sa_ctx *c, const sa__within *vm, const uint32_t *part_of_eq,
                       const uint32_t *part_of_var, rest *t, bool *in_union)
{
    const sa_result *w = c->r;
    const uint32_t n_var = w->n_var; /* a local: the stores below could alias w's */
    const size_t *eq_first = w->eq_first;
    rest_lists(c, part_of_eq, part_of_var, t);
    uint32_t *rows = t->rows, nr = t->n_rows, *cols = t->cols, n_cols = t->n_cols;
    uint32_t nv = 0, n_never = 0, ng;
    uint32_t *never = sa__alloc_raw(c, ((size_t)n_var + 1) * sizeof *never); /* n_never */
    t->var_local = sa__alloc_raw(c, ((size_t)n_var + 1) * sizeof *t->var_local); /* rest's */
    for (uint32_t a = 0; a < n_cols; a++) {
        uint32_t j = cols[a];
        bool nj = never_in(vm, w->chi_j[j]);
        if (!nj && !always(vm, w->chi_j[j]))
            return false;
        if (nj) /* the rest's never-active columns, ascending */
            never[n_never++] = j;
        t->var_local[j] = nv++;
    }
    if (!group_rows(c, vm, rows, nr, t->group_of, &ng) || ng + n_never != nv)
        return false;
    t->n_groups = ng;
    t->gfirst = sa__alloc(c, ((size_t)ng + 2) * sizeof *t->gfirst);
    t->geq = sa__alloc_raw(c, ((size_t)nr + 1) * sizeof *t->geq); /* gfirst[ng] */
    for (uint32_t a = 0; a < nr; a++)
        if (t->group_of[rows[a]] != UINT32_MAX)
            t->gfirst[t->group_of[rows[a]] + 2]++;
    for (uint32_t g = 0; g < ng; g++)
        t->gfirst[g + 2] += t->gfirst[g + 1];
    for (uint32_t a = 0; a < nr; a++)
        if (t->group_of[rows[a]] != UINT32_MAX)
            t->geq[t->gfirst[t->group_of[rows[a]] + 1]++] = rows[a];
    ugraph *u = &t->u;
    u->n_rows = nv;
    u->first = sa__alloc_raw(c, ((size_t)nv + 2) * sizeof *u->first); /* [0, nv] */
    size_t cap = (size_t)nv + 1;
    for (uint32_t a = 0; a < nr; a++)
        cap += eq_first[rows[a] + 1] - eq_first[rows[a]];
    u->col = sa__alloc_raw(c, cap * sizeof *u->col); /* first[nv] */
    uint32_t *seen = sa__alloc(c, ((size_t)nv + 1) * sizeof *seen); /* g + 1 */
    size_t n = 0;
    for (uint32_t g = 0; g < ng; g++) {
        u->first[g] = n;
        for (uint32_t a = t->gfirst[g]; a < t->gfirst[g + 1]; a++)
            for (size_t e = eq_first[t->geq[a]]; e < eq_first[t->geq[a] + 1]; e++) {
                uint32_t j = w->edge_v[e];
                in_union[e] = !never_in(vm, w->chi_e[e]);
                if (!in_union[e] || part_of_var[j] != UINT32_MAX || seen[t->var_local[j]] == g + 1)
                    continue;
                seen[t->var_local[j]] = g + 1;
                u->col[n++] = t->var_local[j];
            }
    }
    uint32_t g = ng;
    for (uint32_t a = 0; a < n_never; a++) {
        u->first[g++] = n;
        u->col[n++] = t->var_local[never[a]];
    }
    MDAE_ASSERT(g == nv && n < cap);
    u->first[g] = n;
    return true;
}

/* A perfect matching of the rest's union graph into t->var_node; false if
 * it has none. */
static bool rest_matching(sa_ctx *c, rest *t)
{
    uint32_t n = t->u.n_rows;
    t->var_node = sa__alloc_raw(c, ((size_t)n + 1) * sizeof *t->var_node); /* perfect: all */
    if (n == 0)
        return true;
    sm_ws *ws = sm_ws_new(); /* nothing may jump between here and sm_ws_free */
    if (ws == NULL)
        sa__fail(c, MDAE_E_NOMEM);
    sm_graph sg = {n, n, t->u.first, t->u.col, NULL, NULL};
    const sm_solution *sol = NULL;
    int rc = sm_max_matching(ws, &sg, &sol);
    bool perfect = rc == MDAE_OK && sol->perfect;
    for (uint32_t g = 0; perfect && g < n; g++)
        t->var_node[t->u.col[sol->row_edge[g]]] = t->n_parts + g;
    sm_ws_free(ws);
    if (rc == MDAE_E_NOMEM)
        sa__fail(c, MDAE_E_NOMEM);
    return perfect;
}

/* The graph of the parts and the rest's rows (nodes: parts 0 .. n_parts,
 * then the rest's union-graph rows), in compressed rows into *first and
 * *to, without loops: an edge of a part's row whose tight function is not
 * false, of a rest's row in the union graph (in_union).
 * A later graph of the same call (after parts were given back) takes a
 * part's successors from the call's first graph (t->g_first, made before
 * any part was given back: its part nodes are the part numbers) when they
 * were all parts none of which was given back since: within a call the
 * tight functions do not change, nor a part not given back (its rows and
 * columns), so neither do its edges out of it, nor the parts their
 * columns are in; only those parts' nodes are renumbered (t->node: in
 * order, so one to one), and the first occurrences, hence the order, are
 * the same. A part with a successor among the rest's rows or the parts
 * given back is walked again. */
static void parts_graph(sa_ctx *c, const rest *t, const krec *const *part_rec,
                        const uint32_t *part_of_var, const bool *in_union, size_t **first,
                        uint32_t **to)
{
    const sa_result *w = c->r;
    const size_t *eq_first = w->eq_first;
    const uint32_t *edge_v = w->edge_v;
    const BDD *chi_e = w->chi_e;
    uint32_t np = t->n_parts, nn = np + t->u.n_rows, n_ids = t->n_ids;
    size_t *fst = sa__alloc_raw(c, ((size_t)nn + 2) * sizeof *fst); /* [0, nn] */
    uint32_t *out = sa__alloc_raw(c, (w->n_edges + w->n_var + 1) * sizeof *out); /* fst[nn] */
    uint32_t *seen = sa__alloc(c, ((size_t)nn + 1) * sizeof *seen); /* node + 1 */
    size_t n = 0;
    const size_t *g_first = t->g_first;
    const uint32_t *g_to = t->g_to, *node = t->node, g_np = t->g_np;
    MDAE_ASSERT(g_first == NULL || node != NULL); /* a later graph: parts given back */
    for (uint32_t id = 0; id < n_ids; id++) { /* a part: its rows' edges not false */
        uint32_t p = part_node(t, id); /* its node */
        if (p == UINT32_MAX)
            continue; /* given back */
        fst[p] = n;
        seen[p] = p + 1;
        if (g_first != NULL) { /* its successors in the first graph, if all still parts */
            size_t k = g_first[id], k1 = g_first[id + 1];
            while (k < k1 && g_to[k] < g_np && node[g_to[k]] != UINT32_MAX)
                k++;
            if (k == k1) {
                for (k = g_first[id]; k < k1; k++)
                    out[n++] = node[g_to[k]];
                continue;
            }
        }
        const krec *x = part_rec[id];
        const uint32_t *rows = x->rows, na = x->n_eq; /* locals: the stores could alias */
        for (uint32_t a = 0; a < na; a++)
            for (size_t e = eq_first[rows[a]], end = eq_first[rows[a] + 1]; e < end; e++) {
                uint32_t j = edge_v[e], q = part_of_var[j];
                if (q == id || chi_e[e] == bddfalse) /* most edges: a part's own column */
                    continue;
                q = q != UINT32_MAX ? part_node(t, q) : t->var_node[t->var_local[j]];
                if (seen[q] != p + 1) {
                    seen[q] = p + 1;
                    out[n++] = q;
                }
            }
    }

    for (uint32_t p = np; p < nn; p++) {
        fst[p] = n;
        seen[p] = p + 1;
        uint32_t g = p - np;
        if (g >= t->n_groups) { /* a never-active column's row */
            for (size_t k = t->u.first[g]; k < t->u.first[g + 1]; k++)
                if (seen[t->var_node[t->u.col[k]]] != p + 1) {
                    seen[t->var_node[t->u.col[k]]] = p + 1;
                    out[n++] = t->var_node[t->u.col[k]];
                }
            continue;
        }
        for (uint32_t a = t->gfirst[g], a1 = t->gfirst[g + 1]; a < a1; a++) { /* in_union */
            uint32_t i = t->geq[a];
            for (size_t e = eq_first[i], end = eq_first[i + 1]; e < end; e++) {
                if (!in_union[e])
                    continue;
                uint32_t q = node_of_var(t, part_of_var, edge_v[e]);
                if (seen[q] != p + 1) {
                    seen[q] = p + 1;
                    out[n++] = q;
                }
            }
        }
    }
    MDAE_ASSERT(n <= w->n_edges + w->n_var);
    fst[nn] = n;
    *first = fst;
    *to = out;
}

/* Under sa_options.self_check: the graph parts_graph made from the edges
 * it kept (first, to) is the one a walk of every part's rows makes
 * (MDAE_ASSERT). */
static void parts_graph_checked(sa_ctx *c, const rest *t, const krec *const *part_rec,
                                const uint32_t *part_of_var, const bool *in_union,
                                const size_t *first, const uint32_t *to)
{
    rest walked = *t;
    walked.g_first = NULL;
    size_t *f2;
    uint32_t *to2, nn = t->n_parts + t->u.n_rows;
    parts_graph(c, &walked, part_rec, part_of_var, in_union, &f2, &to2);
    MDAE_ASSERT(memcmp(f2, first, ((size_t)nn + 1) * sizeof *f2) == 0);
    MDAE_ASSERT(memcmp(to2, to, first[nn] * sizeof *to2) == 0);
}

/* The parts marked in drop (by part number, cleared here) given back to
 * the rest: their rows and columns in no part; the others keep their
 * numbers, and their nodes are renumbered in order (t->node, made here
 * when first needed: scratch of c). Only the dropped parts' rows and
 * columns are written (they are near the edit; a renumbering of every
 * later part's rows and columns was 0.38 M instructions a call). */
static void drop_parts(sa_ctx *c, rest *t, const krec **part_rec, bool *drop,
                       uint32_t *part_of_eq, uint32_t *part_of_var)
{
    uint32_t n_ids = t->n_ids, live = 0;
    if (t->node == NULL) {
        t->node = sa__alloc_raw(c, ((size_t)n_ids + 1) * sizeof *t->node);
        for (uint32_t id = 0; id < n_ids; id++)
            t->node[id] = id;
    }
    if (t->back_rows == NULL) { /* rest_lists' */
        t->back_rows = sa__alloc_raw(c, ((size_t)c->r->n_eq + 1) * sizeof *t->back_rows);
        t->back_cols = sa__alloc_raw(c, ((size_t)c->r->n_var + 1) * sizeof *t->back_cols);
    }
    uint32_t *node = t->node, *back_rows = t->back_rows, *back_cols = t->back_cols;
    uint32_t n_back_rows = t->n_back_rows, n_back_cols = t->n_back_cols;
    for (uint32_t id = 0; id < n_ids; id++) {
        if (drop[id]) {
            const krec *x = part_rec[id];
            const uint32_t *rows = x->rows, *vars = x->vars, ne = x->n_eq, nv = x->n_var;
            MDAE_ASSERT(node[id] != UINT32_MAX); /* dropped once */
            for (uint32_t a = 0; a < ne; a++) {
                part_of_eq[rows[a]] = UINT32_MAX;
                back_rows[n_back_rows++] = rows[a];
            }
            for (uint32_t a = 0; a < nv; a++) {
                part_of_var[vars[a]] = UINT32_MAX;
                back_cols[n_back_cols++] = vars[a];
            }
            node[id] = UINT32_MAX;
            drop[id] = false;
        } else if (node[id] != UINT32_MAX) {
            node[id] = live++;
        }
    }
    t->n_parts = live;
    t->n_back_rows = n_back_rows;
    t->n_back_cols = n_back_cols;
}

/* Marks in drop (by part number) the parts on a cycle of the parts' graph
 * (comp: its nb components, by node; size: scratch, nb zeros); false if
 * none is. */
static bool on_cycles(const rest *t, const uint32_t *comp, uint32_t *size, bool *drop)
{
    uint32_t nn = t->n_parts + t->u.n_rows;
    bool any = false;
    for (uint32_t p = 0; p < nn; p++)
        size[comp[p]]++;
    for (uint32_t id = 0; id < t->n_ids; id++) {
        uint32_t p = part_node(t, id);
        drop[id] = p != UINT32_MAX && size[comp[p]] != 1;
        any |= drop[id];
    }
    return any;
}

/* Marks in drop the parts a row of the rest has an edge (in_union) to a
 * column of, when the rest has no perfect matching: the parts are square,
 * so then some of them lies on a cycle with the rest, or the whole has
 * none (the lemma below); false if none is. */
static bool next_to_rest(sa_ctx *c, const rest *t, const uint32_t *part_of_var,
                         const bool *in_union, bool *drop)
{
    const sa_result *w = c->r;
    bool any = false;
    for (uint32_t a = 0; a < t->gfirst[t->n_groups]; a++)
        for (size_t e = w->eq_first[t->geq[a]]; e < w->eq_first[t->geq[a] + 1]; e++) {
            uint32_t p = part_of_var[w->edge_v[e]];
            if (in_union[e] && p != UINT32_MAX && !drop[p])
                any = drop[p] = true;
        }
    return any;
}

/* The members of each block, in model order (sa__blocks_solve's counting
 * sort's arrays: efirst, vfirst by block, at their starts, eqs, vars). */
typedef struct members {
    uint32_t *efirst, *vfirst, *eqs, *vars;
} members;

/* The members of the nb blocks of block_of_eq (UINT32_MAX: a row in no
 * block) and block_of_var into *m, by a counting sort (temporaries of c;
 * the sizes in locals: the stores into the counts could alias w's). */
static void count_members(sa_ctx *c, const uint32_t *block_of_eq, const uint32_t *block_of_var,
                          uint32_t nb, members *m)
{
    const sa_result *w = c->r;
    const uint32_t n_eq = w->n_eq, n_var = w->n_var;
    uint32_t *efirst = sa__alloc(c, ((size_t)nb + 2) * sizeof *efirst);
    uint32_t *vfirst = sa__alloc(c, ((size_t)nb + 2) * sizeof *vfirst);
    uint32_t *eqs = sa__alloc_raw(c, ((size_t)n_eq + 1) * sizeof *eqs);   /* n_active */
    uint32_t *vars = sa__alloc_raw(c, ((size_t)n_var + 1) * sizeof *vars); /* n_var */
    uint32_t n_active = 0;
    for (uint32_t i = 0; i < n_eq; i++)
        if (block_of_eq[i] != UINT32_MAX) {
            efirst[block_of_eq[i] + 2]++;
            n_active++;
        }
    for (uint32_t j = 0; j < n_var; j++)
        vfirst[block_of_var[j] + 2]++;
    for (uint32_t b = 0; b < nb; b++) {
        efirst[b + 2] += efirst[b + 1];
        vfirst[b + 2] += vfirst[b + 1];
    }
    for (uint32_t i = 0; i < n_eq; i++)
        if (block_of_eq[i] != UINT32_MAX)
            eqs[efirst[block_of_eq[i] + 1]++] = i;
    for (uint32_t j = 0; j < n_var; j++)
        vars[vfirst[block_of_var[j] + 1]++] = j;
    MDAE_ASSERT(efirst[nb] == n_active && vfirst[nb] == n_var);
    *m = (members){efirst, vfirst, eqs, vars};
}

/* placed_members' arrays (block_of_eq, block_of_var, m) against those of a
 * pass over every row and column from the parts as they were (pe, pv) and
 * a counting sort (MDAE_ASSERT). */
static void members_checked(sa_ctx *c, const rest *t, const uint32_t *pe, const uint32_t *pv,
                            const uint32_t *comp, uint32_t nb, const uint32_t *block_of_eq,
                            const uint32_t *block_of_var, const members *m)
{
    const sa_result *w = c->r;
    uint32_t *be = sa__alloc_raw(c, ((size_t)w->n_eq + 1) * sizeof *be);
    uint32_t *bv = sa__alloc_raw(c, ((size_t)w->n_var + 1) * sizeof *bv);
    for (uint32_t i = 0; i < w->n_eq; i++)
        be[i] = pe[i] != UINT32_MAX            ? comp[part_node(t, pe[i])]
                : t->group_of[i] == UINT32_MAX ? UINT32_MAX
                                               : comp[t->n_parts + t->group_of[i]];
    for (uint32_t j = 0; j < w->n_var; j++)
        bv[j] = comp[node_of_var(t, pv, j)];
    MDAE_ASSERT(memcmp(be, block_of_eq, w->n_eq * sizeof *be) == 0);
    MDAE_ASSERT(memcmp(bv, block_of_var, w->n_var * sizeof *bv) == 0);
    members s;
    count_members(c, be, bv, nb, &s);
    MDAE_ASSERT(memcmp(s.efirst, m->efirst, ((size_t)nb + 2) * sizeof *s.efirst) == 0);
    MDAE_ASSERT(memcmp(s.vfirst, m->vfirst, ((size_t)nb + 2) * sizeof *s.vfirst) == 0);
    MDAE_ASSERT(memcmp(s.eqs, m->eqs, s.efirst[nb] * sizeof *s.eqs) == 0);
    MDAE_ASSERT(memcmp(s.vars, m->vars, w->n_var * sizeof *s.vars) == 0);
}

/* The blocks' rows and columns (the placed parts' and the rest's, comp:
 * the parts' graph's components by node, nb > 1 of them) into block_of_eq
 * and block_of_var (where part_of_eq and part_of_var were: the same
 * arrays), and each block's members into *m, as a pass over every row and
 * column and sa__blocks_solve's counting sort would make them, a part at
 * a time: each part is a block of its own (on_cycles found none on a
 * cycle), its rows and columns ascending (a record's are), and the rest's
 * rows and columns are listed ascending (rest_graph). Under
 * sa_options.self_check they are made the slow way too and compared. */
static void placed_members(sa_ctx *c, const rest *t, const krec *const *part_rec,
                           const uint32_t *comp, uint32_t nb, uint32_t *block_of_eq,
                           uint32_t *block_of_var, members *m)
{
    const sa_result *w = c->r;
    bool self_check = c->opt != NULL && c->opt->self_check;
    uint32_t *pe = NULL, *pv = NULL; /* self_check: the parts as they were */
    if (self_check) {
        pe = sa__alloc_raw(c, ((size_t)w->n_eq + 1) * sizeof *pe);
        pv = sa__alloc_raw(c, ((size_t)w->n_var + 1) * sizeof *pv);
        memcpy(pe, block_of_eq, w->n_eq * sizeof *pe);
        memcpy(pv, block_of_var, w->n_var * sizeof *pv);
    }
    uint32_t *ef = sa__alloc(c, ((size_t)nb + 2) * sizeof *ef); /* counts at b + 2 */
    uint32_t *vf = sa__alloc(c, ((size_t)nb + 2) * sizeof *vf);
    uint32_t np = t->n_parts, n_ids = t->n_ids; /* locals: the stores could alias t's */
    const uint32_t *node = t->node;                /* part_node's */
    for (uint32_t id = 0; id < n_ids; id++) {
        uint32_t p = node != NULL ? node[id] : id;
        if (p == UINT32_MAX)
            continue;
        ef[comp[p] + 2] = part_rec[id]->n_eq; /* a block of its own */
        vf[comp[p] + 2] = part_rec[id]->n_var;
    }
    for (uint32_t a = 0; a < t->n_rows; a++) {
        uint32_t g = t->group_of[t->rows[a]];
        if (g != UINT32_MAX)
            ef[comp[np + g] + 2]++;
    }
    for (uint32_t a = 0; a < t->n_cols; a++)
        vf[comp[t->var_node[t->var_local[t->cols[a]]]] + 2]++;
    for (uint32_t b = 0; b < nb; b++) {
        ef[b + 2] += ef[b + 1];
        vf[b + 2] += vf[b + 1];
    }
    uint32_t *eqs = sa__alloc_raw(c, ((size_t)w->n_eq + 1) * sizeof *eqs);   /* ef[nb + 1] */
    uint32_t *vars = sa__alloc_raw(c, ((size_t)w->n_var + 1) * sizeof *vars); /* n_var */
    for (uint32_t id = 0; id < n_ids; id++) {
        uint32_t p = node != NULL ? node[id] : id;
        if (p == UINT32_MAX)
            continue;
        const krec *x = part_rec[id];
        const uint32_t *rows = x->rows, *cols = x->vars, ne = x->n_eq, nv = x->n_var; /* locals:
                                                                 the stores could alias x's */
        uint32_t b = comp[p], *e0 = &eqs[ef[b + 1]], *v0 = &vars[vf[b + 1]];
        for (uint32_t a = 0; a < ne; a++) {
            block_of_eq[rows[a]] = b;
            e0[a] = rows[a];
        }
        for (uint32_t a = 0; a < nv; a++) {
            block_of_var[cols[a]] = b;
            v0[a] = cols[a];
        }
        ef[b + 1] += ne;
        vf[b + 1] += nv;
    }
    for (uint32_t a = 0; a < t->n_rows; a++) {
        uint32_t i = t->rows[a], g = t->group_of[i];
        block_of_eq[i] = g == UINT32_MAX ? UINT32_MAX : comp[np + g];
        if (g != UINT32_MAX)
            eqs[ef[block_of_eq[i] + 1]++] = i;
    }
    for (uint32_t a = 0; a < t->n_cols; a++) {
        uint32_t j = t->cols[a], b = comp[t->var_node[t->var_local[j]]];
        block_of_var[j] = b;
        vars[vf[b + 1]++] = j;
    }
    MDAE_ASSERT(vf[nb] == w->n_var);
    *m = (members){ef, vf, eqs, vars};
    if (self_check)
        members_checked(c, t, pe, pv, comp, nb, block_of_eq, block_of_var, m);
}

/* The blocks of c->r's tight graph from the hint's records k (the section
 * above): block_of_eq, block_of_var and *n_blocks as find_blocks writes
 * them, *mem (each block's members, when more than one), and *rec_of_block (per block: the record it is, or NULL); false if
 * the hint's records do not give them (block_of_eq, block_of_var and
 * in_union then hold anything: the caller decomposes afresh), with
 * *unmatched set when the rest has no perfect matching and no edge into a
 * part: then no valid mode's tight graph has a perfect matching (a mode's
 * would match the rest's active rows, one per group, onto the rest's
 * active columns, as many: a perfect matching of the rest's union graph). */
static bool blocks_from_hint(sa_ctx *c, const sa__kept *k, const uint32_t *order_pos,
                             uint32_t *block_of_eq, uint32_t *block_of_var, bool *in_union,
                             uint32_t *n_blocks, const krec ***rec_of_block, bool *unmatched,
                             members *mem)
{
    const sa_result *w = c->r;
    sa__within vm;
    sa__within_init(c, w->chi_m, &vm);
    if (w->chi_m == bddfalse || w->n_eq < 2)
        return false;
    uint32_t *part_of_eq = block_of_eq, *part_of_var = block_of_var; /* then renumbered */
    rest t = {0};
    t.group_of = sa__alloc_raw(c, ((size_t)w->n_eq + 1) * sizeof *t.group_of); /* scratch */
    /* Written and read below the parts taken only (take_parts, took_again, drop_parts,
     * parts_graph, took_keep): not cleared (2 x 192 KB per edit at N = 2,000). */
    const krec **part_rec = sa__alloc_raw(c, ((size_t)w->n_eq + 1) * sizeof *part_rec);
    sa__known *kn = known_for(c, k);
    uint32_t n_known = 0, bulk0 = kn != NULL ? kn->n_bulk : 0;
    uint32_t by_edges0 = kn != NULL ? kn->n_by_edges : 0;
    bool again = took_again(c, &vm, kn, part_of_eq, part_of_var, part_rec, &t.n_parts, order_pos);
    if (again && c->opt->self_check) /* took_again holds only with kn, of c->opt */
        took_checked(c, &vm, kn, k, part_of_eq, part_of_var, part_rec, t.n_parts, order_pos,
                     &n_known);
    sa__took *keep = NULL; /* where the parts are kept, when they change first */
    if (!again) {
        keep = kn != NULL ? kn->took : NULL;
        memset(part_of_eq, 0xff, w->n_eq * sizeof *part_of_eq); /* UINT32_MAX: no part */
        memset(part_of_var, 0xff, w->n_var * sizeof *part_of_var);
        if (keep != NULL) {
            keep->valid = false;
            memset(keep->how, 0, kn->n);
        }
        t.n_parts = take_parts(c, &vm, kn, k, part_of_eq, part_of_var, part_rec, order_pos,
                               &n_known, keep != NULL ? keep->how : NULL);
    }
    sa__kept *own = kept_of(c->r);
    if (own != NULL) {
        own->known += n_known;
        own->bulk += kn != NULL ? kn->n_bulk - bulk0 : 0;
        own->by_edges += kn != NULL ? kn->n_by_edges - by_edges0 : 0;
        own->again += again ? t.n_parts : 0;
    }
    t.n_ids = t.n_parts; /* none given back yet: t.node NULL */
    uint32_t *comp = NULL, nb = 0;
    bool *drop = sa__alloc(c, ((size_t)t.n_ids + 1) * sizeof *drop);
    /* The parts as taken, kept for a later round (took_again) before
     * drop_parts changes them or the call fails (a call that places its
     * blocks with none given back has no later round that would read
     * them: from_round's instead). */
    for (int round = 0;; round++) {
        if (t.n_parts == 0 || round > PLACE_ROUNDS ||
            !rest_graph(c, &vm, part_of_eq, part_of_var, &t, in_union)) {
            took_keep(c, &keep, part_of_eq, part_of_var, part_rec, t.n_ids, t.node == NULL);
            return false;
        }
        if (!rest_matching(c, &t)) {
            took_keep(c, &keep, part_of_eq, part_of_var, part_rec, t.n_ids, t.node == NULL);
            if (!next_to_rest(c, &t, part_of_var, in_union, drop)) {
                *unmatched = true; /* no mode has a perfect matching */
                return false;
            }
            drop_parts(c, &t, part_rec, drop, part_of_eq, part_of_var);
            continue;
        }
        size_t *first;
        uint32_t *to, nn = t.n_parts + t.u.n_rows;
        bool reread = t.g_first != NULL; /* from the call's first graph */
        parts_graph(c, &t, part_rec, part_of_var, in_union, &first, &to);
        if (reread && c->opt != NULL && c->opt->self_check)
            parts_graph_checked(c, &t, part_rec, part_of_var, in_union, first, to);
        if (!reread && t.node == NULL) { /* none given back: part nodes are numbers */
            t.g_first = first;
            t.g_to = to;
            t.g_np = t.n_parts;
        }
        comp = sa__alloc_raw(c, ((size_t)nn + 1) * sizeof *comp); /* sm_sccs */
        nb = sa__sccs(c, nn, first, to, comp);
        if (!on_cycles(&t, comp, sa__alloc(c, ((size_t)nb + 1) * sizeof(uint32_t)), drop))
            break;
        took_keep(c, &keep, part_of_eq, part_of_var, part_rec, t.n_ids, t.node == NULL);
        drop_parts(c, &t, part_rec, drop, part_of_eq, part_of_var);
    }
    if (nb > 1)
        placed_members(c, &t, part_rec, comp, nb, block_of_eq, block_of_var, mem);
    *rec_of_block = sa__alloc(c, ((size_t)nb + 1) * sizeof **rec_of_block);
    for (uint32_t id = 0; id < t.n_ids; id++)
        if (part_node(&t, id) != UINT32_MAX)
            (*rec_of_block)[comp[part_node(&t, id)]] = part_rec[id];
    *n_blocks = nb;
    sa__kept *mine = kept_of(c->r);
    if (mine != NULL && nb > 1) {
        mine->placed += t.n_parts;
        mine->afresh += nb - t.n_parts;
    }
    return nb > 1;
}

/* Whether no block has more than max equations (max 0: no bound), by
 * their starts (block b's rows: efirst[b] .. efirst[b + 1]). */
static bool blocks_within(const uint32_t *efirst, uint32_t nb, uint32_t max)
{
    for (uint32_t b = 0; max > 0 && b < nb; b++)
        if (efirst[b + 1] - efirst[b] > max)
            return false;
    return true;
}

/* Block b (its equations eqs[0 .. ne), variables vars[0 .. nv)) as an
 * earlier round of the same analysis solved it (prev): the same equations
 * and variables, no column of it redone, so the same tight edges, key and
 * solution, read in the current modes: its chosen edges into te (with
 * borrow: prev's entries borrowed), its nonsingular modes into *ok and
 * *bok; true. Else false, nothing written. */
static bool from_round(sa_ctx *c, const sa__bround *prev, const uint32_t *eqs, uint32_t ne,
                       const uint32_t *vars, uint32_t nv, const uint32_t *block_of_var,
                       uint32_t b, BDD *te, bool borrow, BDD *ok, BDD *bok)
{
    const sa_result *w = c->r;
    const sa__bsol *p = prev->b;
    uint32_t pb = p->block_of_eq[eqs[0]];
    if (pb == UINT32_MAX || p->efirst[pb + 1] - p->efirst[pb] != ne ||
        p->vfirst[pb + 1] - p->vfirst[pb] != nv)
        return false;
    for (uint32_t a = 0; a < ne; a++)
        if (p->block_of_eq[eqs[a]] != pb)
            return false;
    for (uint32_t a = 0; a < nv; a++)
        if (p->block_of_var[vars[a]] != pb || prev->redo[vars[a]])
            return false;
    for (uint32_t a = 0; a < ne; a++)
        for (size_t e = w->eq_first[eqs[a]]; e < w->eq_first[eqs[a] + 1]; e++)
            if (block_of_var[w->edge_v[e]] == b)
                te_set(te, borrow, e, p->te[e], NULL); /* prev outlives te */
    sa__put(ok, sa__and(*ok, p->bok[pb]));
    sa__put(bok, p->bok[pb]);
    return true;
}

/* n BDDs, each bddfalse, temporaries of c (no references: te borrowed).
 * Cleared a run of 32 at a time in stores the compiler makes, not by
 * memset: glibc's clears a large array by `rep stosb`, which valgrind counts
 * byte by byte (272 KB per round at N = 2,000). */
static BDD *false_bdds(sa_ctx *c, size_t n)
{
    BDD *a = sa__alloc_raw(c, n * sizeof *a);
    size_t k = 0;
    for (; k + 32 <= n; k += 32)
        for (size_t q = 0; q < 32; q++)
            a[k + q] = bddfalse;
    for (; k < n; k++)
        a[k] = bddfalse;
    return a;
}

/* Slots for the values of the edges of the rows eqs[0 .. ne) (a block's
 * edges are some of them), in the caller's scope: a block's own, where te
 * borrows. */
static BDD *row_edge_slots(sa_ctx *c, const uint32_t *eqs, uint32_t ne)
{
    const sa_result *w = c->r;
    size_t n = 0;
    for (uint32_t a = 0; a < ne; a++)
        n += w->eq_first[eqs[a] + 1] - w->eq_first[eqs[a]];
    return sa__slots(c, n + 1);
}

/* Under sa_options.self_check: the garbage collected, each node te
 * borrows is still one (BuDDy reports a freed node as an error: a
 * borrowed value whose reference went). */
static void borrowed_checked(const sa_result *w, const BDD *te)
{
    bdd_gbc();
    for (size_t e = 0; e < w->n_edges; e++)
        if (te[e] >= 2)
            MDAE_ASSERT(bdd_var(te[e]) >= 0 && bdd_low(te[e]) >= 0);
}

bool sa__blocks_solve(sa_ctx *c, const sa__bround *prev, sa__bsol *out)
{
    sa_result *w = c->r;
    memset(out, 0, sizeof *out);
    uint32_t *block_of_eq = sa__alloc_raw(c, ((size_t)w->n_eq + 1) * sizeof *block_of_eq);
    /* block_of_var: each column's, when find_blocks is true (out is not set else) */
    uint32_t *block_of_var = sa__alloc_raw(c, ((size_t)w->n_var + 1) * sizeof *block_of_var);
    uint32_t nb = 0;
    bool *in_union = sa__alloc(c, w->n_edges + 1);
    uint8_t *kind = NULL;
    sub *s = sub_new(c);
    const sa__kept *by_place = kept_by_place(c); /* NULL: by key only */
    const krec **rec_of_block = NULL; /* per block: the hint's record it is */
    bool tried = by_place != NULL && prev == NULL && c->tight_depth > 0, unmatched = false;
    members mem = {NULL, NULL, NULL, NULL};
    bool placed = tried && blocks_from_hint(c, by_place, s->order_pos, block_of_eq, block_of_var,
                                            in_union, &nb, &rec_of_block, &unmatched, &mem);
    if (unmatched)
        return false; /* the round covers no mode (find_blocks finds no perfect matching) */
    if (tried && !placed)
        memset(in_union, 0, w->n_edges + 1); /* written by the attempt */
    if (!placed) {
        rec_of_block = NULL;
        if (!find_blocks(c, block_of_eq, block_of_var, in_union, &kind, &nb))
            return false;
    }
    /* Members of each block, in model order (placed: blocks_from_hint's,
     * made a part at a time). */
    if (!placed)
        count_members(c, block_of_eq, block_of_var, nb, &mem);
    uint32_t *efirst = mem.efirst, *vfirst = mem.vfirst, *eqs = mem.eqs, *vars = mem.vars;
    if (!blocks_within(efirst, nb, c->max_block_rows))
        return false;

    /* In the tight rounds te borrows ("te borrowed in the tight rounds"). */
    bool borrow = c->no_max;
    BDD *te = borrow ? false_bdds(c, w->n_edges + 1) : sa__slots(c, w->n_edges + 1);
    /* Not wanted where no maximum matching is (c->no_max: the tight
     * rounds read te and ok only; an array of every edge less). */
    BDD *tmax = c->no_max ? NULL : sa__slots(c, w->n_edges + 1);
    BDD *sing = sa__slots(c, (size_t)nb + 1);
    BDD *bok = sa__slots(c, (size_t)nb + 1);
    BDD *ok = sa__slots(c, 1);
    sa__put(ok, w->chi_m);
    bool *from_prev = sa__alloc(c, (size_t)nb + 1);
    bool *te_within = sa__alloc(c, (size_t)nb + 1);
    memset(te_within, 0, (size_t)nb + 1);
    uint32_t reused = 0;
    own_kept own_k = {false, 0, NULL};
    for (uint32_t b = 0; b < nb; b++) {
        uint32_t ne = efirst[b + 1] - efirst[b], nv = vfirst[b + 1] - vfirst[b];
        if ((ne == 0 || nv == 0) && kind != NULL) { /* a row or column alone: singular */
            sa__put(ok, bddfalse);
            sa__put(&sing[b], w->chi_m);
            continue;
        }
        if (ne == 0)
            continue; /* a never-active variable alone (vars_always_active) */
        if (prev != NULL && from_round(c, prev, &eqs[efirst[b]], ne, &vars[vfirst[b]], nv,
                                       block_of_var, b, te, borrow, ok, &bok[b])) {
            from_prev[b] = true;
            reused++;
            continue;
        }
        const krec *x = rec_of_block != NULL && rec_of_block[b] != NULL ? rec_of_block[b]
                        : by_place == NULL ? NULL
                                           : kept_same(c, by_place, &eqs[efirst[b]], ne,
                                                       &vars[vfirst[b]], nv, block_of_var, b,
                                                       s->order_pos);
        MDAE_ASSERT(x == NULL || (x->n_eq == ne && x->n_var == nv && x->rows[0] == eqs[efirst[b]]));
        if (x != NULL) {
            reuse_kept(c, &own_k, x, te, borrow, tmax, ok, &sing[b], &bok[b]);
            reused++;
            if (reused % REUSED_PER_PROGRESS == 0) /* a few thousand instructions each */
                sa__progress(c, "blocks", b, nb);
            continue;
        }
        sub_maps(c, s); /* before the block's temporaries: for every block */
        BDD *own = borrow ? row_edge_slots(c, &eqs[efirst[b]], ne) : NULL; /* outlive m2 */
        size_t m2 = sa__mark(c);
        sa__amark temps = sa__alloc_mark(c);
        sub_index(c, w, &eqs[efirst[b]], ne, &vars[vfirst[b]], nv, block_of_var, b, s);
        s->square = kind == NULL;
        sa__bkey key;
        block_key(c, s, &key);
        if (reuse_block(c, s, &key, by_place == NULL, te, borrow, own, tmax, ok, &sing[b],
                        &bok[b])) {
            reused++;
        } else {
            sub_fill(c, w, s);
            solve_block(c, s, &key, te, borrow, own, tmax, ok, &sing[b], &bok[b],
                        &te_within[b]);
        }
        sa__alloc_release(c, temps);
        sa__release(c, m2);
        sa__progress(c, "blocks", b, nb);
    }
    w->blocks_reused += reused;
    if (borrow && c->opt != NULL && c->opt->self_check)
        borrowed_checked(w, te);
    *out = (sa__bsol){.nb = nb, .block_of_eq = block_of_eq, .block_of_var = block_of_var,
                      .in_union = in_union, .te = te, .tmax = tmax, .sing = sing, .bok = bok,
                      .ok = ok, .efirst = efirst, .vfirst = vfirst, .eqs = eqs, .vars = vars,
                      .from_prev = from_prev, .kind = kind, .te_within = te_within};
    return true;
}

/* Whether some block of b has its te within its ok, and whether every such
 * block's ok is the whole's *b.ok (the same handle: the compressible
 * building's, docs/figures.md h-bldg16) into *same. */
static bool some_within(const sa__bsol *b, bool *same)
{
    bool any = false;
    *same = true;
    for (uint32_t k = 0; k < b->nb; k++)
        if (b->te_within[k]) {
            any = true;
            *same = *same && b->bok[k] == *b->ok;
        }
    return any;
}

/* w->te from the blocks' b.te: exact, b.te & *b.ok (also for a block within
 * its ok, *b.ok implying it: what lies out of it goes), unless some block
 * has its te within its ok and every such block's ok is *b.ok, not
 * constant: then within *b.ok (w->te_within), the other blocks' exact
 * functions simplified as sa__within_simplify does (without the chain). */
static void take_te(sa_ctx *c, const sa__bsol *b, sa_result *w)
{
    bool same;
    bool within = some_within(b, &same) && same && *b->ok >= 2;
    w->te_within = within;
    if (!within) {
        for (size_t e = 0; e < w->n_edges; e++)
            sa__put(&w->te[e], sa__and(b->te[e], *b->ok));
        return;
    }
    sa__within wok;
    size_t mark = sa__mark(c);
    sa__within_init(c, *b->ok, &wok);
    for (size_t e = 0; e < w->n_edges; e++) {
        uint32_t k = b->block_of_eq[w->edge_eq[e]];
        bool in = k < b->nb && b->block_of_var[w->edge_v[e]] == k && b->te_within[k];
        size_t m2 = sa__mark(c);
        sa__put(&w->te[e], in || b->te[e] < 2 ? b->te[e] : sa__within_simplify(c, &wok, b->te[e]));
        sa__release(c, m2);
    }
    sa__release(c, mark);
}

/* b's te entries within their blocks' oks made exact (& bok), in place. */
static void exact_te(sa_ctx *c, sa__bsol *b)
{
    bool same;
    if (!some_within(b, &same))
        return;
    sa_result *w = c->r;
    for (size_t e = 0; e < w->n_edges; e++) {
        uint32_t k = b->block_of_eq[w->edge_eq[e]];
        if (k < b->nb && b->block_of_var[w->edge_v[e]] == k && b->te_within[k])
            sa__put(&b->te[e], sa__and(b->te[e], b->bok[k]));
    }
    memset(b->te_within, 0, b->nb);
}

bool sa__primal_blocks(sa_ctx *c)
{
    sa_result *w = c->r;
    size_t mark = sa__mark(c);
    sa__bsol b;
    if (!sa__blocks_solve(c, NULL, &b)) {
        sa__release(c, mark);
        return false;
    }
    MDAE_ASSERT(b.tmax != NULL); /* not c->no_max's */
    if (w->te == NULL) /* else a seeded primal's that did not cover: put over */
        w->te = sa__alloc_keep(c, (w->n_edges + 1) * sizeof(BDD));
    sa__put(&w->ok, *b.ok);
    sa__put(&w->singular, sa__diff(w->chi_m, *b.ok));
    take_te(c, &b, w);
    w->primal_blocks = b.nb;
    if (w->singular == bddfalse) {
        sa__release(c, mark);
        return true;
    }
    exact_te(c, &b); /* read below as exact */
    /* In each mode, the blocks' own matchings: perfect in the nonsingular
     * ones, maximum in the singular ones, when those are apart; else a
     * maximum matching of the whole in each singular mode, if the tight
     * graphs of sampled modes find one (sa_tight.c; it finds the same ok,
     * singular and te again). */
    BDD *srow = sa__slots(c, (size_t)b.nb + 1), *scol = sa__slots(c, (size_t)b.nb + 1);
    unmatched_modes(c, &b, srow, scol);
    bool apart =
        singular_blocks_apart(c, srow, scol, b.nb, b.block_of_eq, b.block_of_var, b.in_union);
    BDD *whole = apart ? NULL : sa__slots(c, w->n_edges + 1);
    /* sa_tight.c's rounds want a square union graph with a perfect matching. */
    if (apart || (b.kind == NULL && sa__tight_primal(c, whole))) {
        for (size_t e = 0; e < w->n_edges; e++)
            sa__put(&b.te[e],
                    apart ? sa__or(b.te[e], b.tmax[e]) : sa__or(sa__te(c, w, e), whole[e]));
        diagnostics_by_reach(c, &b, b.te);
        w->dm_by_blocks = true;
    }
    sa__release(c, mark);
    return true;
}

uint32_t sa__kept_known(const sa_result *r)
{
    return r->kept != NULL ? r->kept->known : 0;
}

uint32_t sa__kept_bulk(const sa_result *r)
{
    return r->kept != NULL ? r->kept->bulk : 0;
}

uint32_t sa__kept_again(const sa_result *r)
{
    return r->kept != NULL ? r->kept->again : 0;
}

uint32_t sa__kept_by_edges(const sa_result *r)
{
    return r->kept != NULL ? r->kept->by_edges : 0;
}

uint32_t sa__kept_merged(const sa_result *r)
{
    return r->kept != NULL ? r->kept->merged : 0;
}

uint32_t sa__kept_placed(const sa_result *r, uint32_t *afresh)
{
    *afresh = r->kept != NULL ? r->kept->afresh : 0;
    return r->kept != NULL ? r->kept->placed : 0;
}
