/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_greedy.c -- the equations a greedy basis leaves out, in every
 * mode at once (sa.h, sa_result_left_out; issue 13: which equations the
 * first instant of each mode change erases, engine/mc_pairs.c).
 *
 * The rows of a bipartite graph form a transversal matroid: a set of rows
 * is independent when some matching matches all of them. Where some
 * matching matches every column (the modes this file answers for), the
 * bases are the row sets of those matchings, so "independent" reads: some
 * column-perfect matching matches the set. The greedy basis for an order
 * of the rows keeps a row when it is independent of the rows kept before
 * it. Hence, with Y the column-perfect matchings (a BDD over the modes and
 * the edges, sa__matchings_ex) and, step by step in the order,
 *
 *   can  = the modes where some element of Y matches the row
 *          (EXISTS edges . Y & row's edges),
 *   keep = can & the step's guard (and the row's turn),
 *   Y   := Y & (keep => the row is matched),
 *
 * Y stays the column-perfect matchings that match every row kept so far,
 * and a row is kept exactly where the greedy basis keeps it: Y is never
 * empty in a mode where it was not (keep asks for an element), and in each
 * mode it is the set the greedy algorithm would test the next row against.
 * Nothing enumerates modes; each step costs one relational product over Y.
 *
 * That is the implicit path. Its Y can be much larger than the model's
 * other BDDs (high offsets make many rows and edges whose activity depends
 * on the modes: a random model of 9 equations took 50 s), so it runs on a
 * budget of BDD nodes (GREEDY_BUDGET, or sa_options.implicit_budget), past
 * which the answer is MDAE_E_LIMIT. Where the modes to answer for are few
 * (GREEDY_ENUMERATE: those of the small models, whose analysis was
 * enumerated anyway), each is solved alone instead: the same greedy order,
 * each row kept when an augmenting path (Kuhn) from it reaches a free
 * column in the graph of the rows kept so far, which is the same test
 * (Berge), and its left-out rows added to their sets as one minterm.
 *
 * Rows outside every maximum matching's complement (the coarse
 * Dulmage-Mendelsohn decomposition's well-determined and underdetermined
 * parts) are matched by every element of Y: their steps keep them and
 * leave Y as it is. So only the surplus (overdetermined) rows can be left
 * out, as R4 of mc_change.c says.
 */
#include "sa_int.h"

#include <stdlib.h>
#include <string.h>

#define T(f) sa__tmp(c, (f))

/* ---- Rows every element of Y matches ---------------------------------------------
 * A row that every column-perfect matching matches (in every mode) is kept
 * at each of its turns and leaves Y as it is: its steps can be skipped (on
 * the brake at N = 100, 1,003 of its 1,303 rows). Which rows those are
 * takes one walk over Y's nodes, when each row's edge variables occupy an
 * interval of levels (its band) disjoint from the other rows' (the
 * encoding's order, sa_encode.c; else nothing is skipped): a row can be
 * left unmatched iff some path to true sets none of its edge variables,
 * that is, an arc of Y skips its whole band, or a path enters the band and
 * leaves it (or reaches true) through low arcs of its edge variables only.
 * Each node lies in at most one band, so the walks inside the bands visit
 * each node once in all. */

typedef struct band {
    int lo, hi;   /* levels of the row's first and last edge variables */
    uint32_t eq;
} band;

static int band_cmp(const void *a, const void *b)
{
    const band *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

static int level_of_node(BDD f) { return f < 2 ? 1 << 30 : bdd_var2level(bdd_var(f)); }

/* The first band whose lo is > level (nb if none). */
static uint32_t band_after(const band *bs, uint32_t nb, int level)
{
    uint32_t lo = 0, hi = nb;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (bs[mid].lo > level)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* A growable stack of nodes (sa__alloc blocks, freed with the context). */
typedef struct nstack {
    BDD *v;
    size_t n, cap;
} nstack;

static void push(sa_ctx *c, nstack *s, BDD f)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        BDD *v = sa__alloc(c, cap * sizeof *v);
        if (s->n)
            memcpy(v, s->v, s->n * sizeof *v);
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = f;
}

/* The bands of the rows that have edges, sorted by level, into *out (n
 * rows); false if two overlap. */
static bool make_bands(sa_ctx *c, band **out, uint32_t *n)
{
    const sa_result *r = c->r;
    band *bs = sa__alloc(c, ((size_t)r->n_eq + 1) * sizeof *bs);
    uint32_t nb = 0;
    for (uint32_t i = 0; i < r->n_eq; i++) {
        if (r->eq_first[i] == r->eq_first[i + 1])
            continue; /* no edge: never matched */
        band b = {1 << 30, -1, i};
        for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
            int l = bdd_var2level(r->edge_var[e]);
            b.lo = l < b.lo ? l : b.lo;
            b.hi = l > b.hi ? l : b.hi;
        }
        bs[nb++] = b;
    }
    qsort(bs, nb, sizeof *bs, band_cmp);
    for (uint32_t k = 0; k + 1 < nb; k++)
        if (bs[k].hi >= bs[k + 1].lo)
            return false;
    *out = bs;
    *n = nb;
    return true;
}

/* Every arc of y (the root's from level -1, then each node's): open[k] for
 * the bands some arc to a node other than false skips whole, and the
 * (node, band) pairs where an arc enters a band from above, into
 * *entries. */
static void walk_arcs(sa_ctx *c, BDD y, const band *bs, uint32_t nb, bool *open, nstack *entries)
{
    int *diff = sa__alloc(c, ((size_t)nb + 2) * sizeof *diff); /* bands skipped, as runs */
    nstack nodes = {0};
    unsigned char *seen = sa__seen(c);
    for (size_t q = 0; q <= nodes.n; q++) { /* nodes grows: breadth first */
        BDD p = q == 0 ? bddfalse : nodes.v[q - 1];
        int lp = q == 0 ? -1 : level_of_node(p);
        for (int side = 0; side < 2; side++) {
            BDD ch = q == 0 ? (side == 0 ? y : bddfalse) : side == 0 ? bdd_low(p) : bdd_high(p);
            if (ch == bddfalse)
                continue;
            int lq = level_of_node(ch);
            uint32_t a = band_after(bs, nb, lp), b = a; /* skipped: [a, b) */
            while (b < nb && bs[b].hi < lq)
                b++;
            if (a < b) {
                diff[a]++;
                diff[b]--;
            }
            if (b < nb && bs[b].lo <= lq && lq <= bs[b].hi && bs[b].lo > lp) {
                push(c, entries, ch);
                push(c, entries, (BDD)b);
            }
            if (ch >= 2 && !(seen[ch >> 3] >> (ch & 7) & 1)) {
                seen[ch >> 3] |= (unsigned char)(1u << (ch & 7));
                push(c, &nodes, ch);
            }
        }
    }
    for (size_t k = 0; k < nodes.n; k++)
        seen[nodes.v[k] >> 3] = 0;
    int run = 0;
    for (uint32_t k = 0; k < nb; k++) {
        run += diff[k];
        open[k] = run > 0;
    }
}

/* Inside each band not yet open, from where arcs enter it: a path through
 * low arcs of the row's own edge variables (any arc of the others) to a
 * node below the band or to true opens it. */
static void walk_bands(sa_ctx *c, const band *bs, bool *open, const nstack *entries)
{
    const sa_result *r = c->r;
    nstack todo = {0}, visited = {0};
    unsigned char *seen = sa__seen(c);
    for (size_t f = 0; f < entries->n; f += 2) {
        uint32_t k = (uint32_t)entries->v[f + 1];
        todo.n = 0;
        if (!open[k])
            push(c, &todo, entries->v[f]);
        while (todo.n > 0 && !open[k]) {
            BDD n = todo.v[--todo.n];
            if (n < 2 || level_of_node(n) > bs[k].hi) {
                open[k] = n != bddfalse;
                continue;
            }
            if (seen[n >> 3] >> (n & 7) & 1)
                continue; /* explored from another entry of the band */
            seen[n >> 3] |= (unsigned char)(1u << (n & 7));
            push(c, &visited, n);
            int e = r->var_edge[bdd_var(n)];
            push(c, &todo, bdd_low(n));
            if (e < 0 || r->edge_eq[e] != bs[k].eq)
                push(c, &todo, bdd_high(n));
        }
    }
    for (size_t k = 0; k < visited.n; k++)
        seen[visited.v[k] >> 3] = 0;
}

/* always[i] := every element of y matches equation i (false where unsure). */
static void always_matched(sa_ctx *c, BDD y, bool *always)
{
    band *bs;
    uint32_t nb;
    if (y == bddfalse || !make_bands(c, &bs, &nb))
        return; /* nothing to answer for, or bands overlap: skip nothing */
    bool *open = sa__alloc(c, (size_t)nb + 1); /* some element leaves it unmatched */
    nstack entries = {0};
    walk_arcs(c, y, bs, nb, open, &entries);
    walk_bands(c, bs, open, &entries);
    for (uint32_t k = 0; k < nb; k++)
        always[bs[k].eq] = !open[k];
}

/* ---- Every row's answers in one pass over Y ----------------------------------------
 * A step asks two things of Y for its row i: where some element matches i
 * (can: a relational product over Y) and, once keep is known, whether
 * Y & (keep => i matched) is Y again (a conjunction over Y): both walk Y,
 * and on the brake at N = 50 its 250 steps cost 0.18 s for a Y that never
 * changes. With Above(n) the modes where some path from Y's root reaches
 * node n and Below(m) those where some path from m reaches true (EXISTS
 * edges . m), mode functions both, one pass gives every row's
 *
 *   can_i  = OR over the nodes n labelled by an edge of row i of
 *            Above(n) & Below(high(n)),
 *   miss_i = the modes where some element leaves i unmatched = OR over
 *            the arcs p -> q that enter or skip i's band (the levels of its
 *            edges) of Above(p) & the arc's literal & Below(m), m the node
 *            where q's chain of low arcs leaves the band (q if it skips it),
 *
 * since an upper and a lower part of a path lie on disjoint levels, so
 * that each pair of them is a path of Y, and inside a band every node is
 * one of the row's edges (checked: else no pass). Then Y changes at a
 * step iff keep & miss_i is not empty. After a change the steps go back
 * to the relational products until ALL_CAN_QUIET steps in a row have left
 * Y as it is, then pass again (the building changes Y at 80 of its 260 steps, N = 20).
 * A pass whose arcs cross too many bands (ALL_CAN_CROSSINGS per node) is
 * not made. */
#define ALL_CAN_QUIET 4
#define ALL_CAN_CROSSINGS 16

/* Work arrays of the pass, grown as needed (sa__alloc: freed with the
 * context). */
typedef struct pass_mem {
    BDD *nodes, *key;
    uint32_t *at; /* key -> index in nodes */
    /* Node k's variable, level, children and their indices (NO_NODE for a
     * constant), read once from BuDDy's table: the walks below read them
     * again and again (a third of the pass's instructions, brake N = 100). */
    int *var, *lvl;
    BDD *lo, *hi;
    uint32_t *lo_ix, *hi_ix;
    size_t cap, hcap;
    band *bs; /* the rows' bands by level, or NULL: no pass */
    uint32_t nb;
} pass_mem;

static void pass_grow(sa_ctx *c, pass_mem *pm, size_t n)
{
    if (n <= pm->cap)
        return;
    size_t cap = pm->cap ? pm->cap : 1024;
    while (cap < n)
        cap *= 2;
    /* Unzeroed: nodes_by_level clears key and writes the rest before
     * reading them (a third of its node table's bytes were zeroed twice). */
    pm->nodes = sa__alloc_raw(c, cap * sizeof *pm->nodes);
    pm->hcap = 4 * cap;
    pm->key = sa__alloc_raw(c, pm->hcap * sizeof *pm->key);
    pm->at = sa__alloc_raw(c, pm->hcap * sizeof *pm->at);
    pm->var = sa__alloc_raw(c, cap * sizeof *pm->var);
    pm->lvl = sa__alloc_raw(c, cap * sizeof *pm->lvl);
    pm->lo = sa__alloc_raw(c, cap * sizeof *pm->lo);
    pm->hi = sa__alloc_raw(c, cap * sizeof *pm->hi);
    pm->lo_ix = sa__alloc_raw(c, cap * sizeof *pm->lo_ix);
    pm->hi_ix = sa__alloc_raw(c, cap * sizeof *pm->hi_ix);
    pm->cap = cap;
}

static size_t node_slot(const pass_mem *pm, BDD f)
{
    size_t h = ((size_t)f * 0x9E3779B97F4A7C15ull) >> 17 & (pm->hcap - 1);
    while (pm->key[h] != 0 && pm->key[h] != f)
        h = (h + 1) & (pm->hcap - 1);
    return h;
}

static uint32_t index_of(const pass_mem *pm, BDD f) { return pm->at[node_slot(pm, f)]; }

#define NO_NODE UINT32_MAX /* a constant's index */

static uint32_t child_index(const pass_mem *pm, BDD f) { return f < 2 ? NO_NODE : index_of(pm, f); }

/* Y's nodes (not the constants) into pm->nodes by increasing level, their
 * number into *n, and the node -> index map. */
static void nodes_by_level(sa_ctx *c, BDD y, pass_mem *pm, size_t *n)
{
    nstack st = {0}, all = {0};
    unsigned char *seen = sa__seen(c);
    if (y >= 2)
        push(c, &st, y);
    while (st.n > 0) {
        BDD f = st.v[--st.n];
        if (f < 2 || (seen[f >> 3] >> (f & 7) & 1))
            continue;
        seen[f >> 3] |= (unsigned char)(1u << (f & 7));
        push(c, &all, f);
        push(c, &st, bdd_low(f));
        push(c, &st, bdd_high(f));
    }
    for (size_t k = 0; k < all.n; k++)
        seen[all.v[k] >> 3] = 0;
    pass_grow(c, pm, all.n + 1);
    int levels = bdd_varnum();
    size_t *start = sa__alloc(c, ((size_t)levels + 2) * sizeof *start); /* counting sort */
    for (size_t k = 0; k < all.n; k++)
        start[level_of_node(all.v[k]) + 1]++;
    for (int l = 0; l < levels; l++)
        start[l + 1] += start[l];
    memset(pm->key, 0, pm->hcap * sizeof *pm->key);
    for (size_t k = 0; k < all.n; k++)
        pm->nodes[start[level_of_node(all.v[k])]++] = all.v[k];
    for (size_t k = 0; k < all.n; k++) {
        size_t h = node_slot(pm, pm->nodes[k]);
        pm->key[h] = pm->nodes[k];
        pm->at[h] = (uint32_t)k;
    }
    for (size_t k = 0; k < all.n; k++) {
        BDD f = pm->nodes[k];
        pm->var[k] = bdd_var(f);
        pm->lvl[k] = bdd_var2level(pm->var[k]);
        pm->lo[k] = bdd_low(f);
        pm->hi[k] = bdd_high(f);
        pm->lo_ix[k] = child_index(pm, pm->lo[k]);
        pm->hi_ix[k] = child_index(pm, pm->hi[k]);
        if ((k & 4095) == 0) /* millions of nodes at N = 10,000 (the brake) */
            sa__poll_cancel(c);
    }
    *n = all.n;
}

static bool is_mode_var(const sa_result *r, int v) { return v < r->n_bddvars && r->var_mode[v] >= 0; }

/* The arc's mode literal (a mode variable's), or true (an edge's). */
static BDD arc_literal(const sa_result *r, int v, int side)
{
    if (!is_mode_var(r, v))
        return bddtrue;
    return side ? bdd_ithvar(v) : bdd_nithvar(v);
}

/* Below(f), f a node of index ix or a constant. */
static BDD below_at(const BDD *below, BDD f, uint32_t ix) { return f < 2 ? f : below[ix]; }

/* Where q's (index *qi) chain of low arcs leaves band b (q itself if it
 * lies past the band), its index into *qi; -1 (as a BDD) if a node inside
 * is not one of the row's edges. */
static BDD band_exit(const sa_result *r, const pass_mem *pm, const band *b, BDD q, uint32_t *qi)
{
    while (q >= 2 && pm->lvl[*qi] <= b->hi) {
        int v = pm->var[*qi];
        if (v >= r->n_bddvars || r->var_edge[v] < 0 || r->edge_eq[r->var_edge[v]] != b->eq)
            return (BDD)-1;
        uint32_t k = *qi;
        q = pm->lo[k];
        *qi = pm->lo_ix[k];
    }
    return q;
}

/* miss[eq] |= the arc p -> q's part (upper: Above(p) & its literal) for
 * every band it enters or skips; false if a band is not clean or the arcs
 * cross too many bands (*budget). */
static bool arc_misses(sa_ctx *c, const pass_mem *pm, const BDD *below, int lp, BDD upper,
                       BDD q, uint32_t qi, BDD *miss, size_t *budget)
{
    const sa_result *r = c->r;
    int lq = q < 2 ? 1 << 30 : pm->lvl[qi];
    for (uint32_t k = band_after(pm->bs, pm->nb, lp); k < pm->nb && pm->bs[k].lo <= lq; k++) {
        if (*budget == 0)
            return false;
        (*budget)--;
        uint32_t mi = qi;
        BDD m = band_exit(r, pm, &pm->bs[k], q, &mi);
        if (m == (BDD)-1)
            return false;
        if (m == bddfalse)
            continue;
        size_t m2 = sa__mark(c);
        BDD *to = &miss[pm->bs[k].eq];
        sa__put(to, sa__or(*to, T(sa__and(upper, below_at(below, m, mi)))));
        sa__release(c, m2);
    }
    return true;
}

/* can[i] and miss[i] (n_eq slots the caller owns) for every row over y,
 * and EXISTS edges . y into *exists (a slot of the caller's: Below of the
 * root); false, with them unspecified, when the pass cannot answer. whole: y is
 * every column-covering matching (sa__covering, no step has restricted
 * it); then can[i] is read off without the pass (only under
 * sa_options.self_check: keep_row reads row_active then): the modes where
 * y is not empty and row i has an active edge (i, j). Why: take M in y there; if M
 * leaves i unmatched, j is active (an edge's guard implies its variable's,
 * sa__check_edges), so M matches it to some row r, and M - (r, j) + (i, j)
 * still matches every active column: it is in y and matches i. */
static bool all_rows(sa_ctx *c, BDD y, pass_mem *pm, bool whole, BDD *can, BDD *miss,
                     BDD *exists)
{
    const sa_result *r = c->r;
    if (pm->bs == NULL || y < 2) /* a constant Y: the products answer at once */
        return false;
    size_t mark = sa__mark(c), n;
    for (uint32_t i = 0; i < r->n_eq; i++) {
        sa__put(&can[i], bddfalse);
        sa__put(&miss[i], bddfalse);
    }
    nodes_by_level(c, y, pm, &n);
    BDD *above = sa__slots(c, n + 1), *below = sa__slots(c, n + 1);
    if (n > 0)
        sa__put(&above[index_of(pm, y)], bddtrue);
    for (size_t k = n; k-- > 0;) { /* bottom up */
        BDD bl = below_at(below, pm->lo[k], pm->lo_ix[k]);
        BDD bh = below_at(below, pm->hi[k], pm->hi_ix[k]);
        int v = pm->var[k];
        sa__put(&below[k], is_mode_var(r, v) ? sa__ite(bdd_ithvar(v), bh, bl) : sa__or(bl, bh));
        if ((k & 1023) == 0) /* 2.8 M nodes took 1.1 s (the brake at N = 10,000) */
            sa__poll_cancel(c);
    }
    size_t budget = ALL_CAN_CROSSINGS * (n + 1) + 1024;
    bool ok = arc_misses(c, pm, below, -1, bddtrue, y, index_of(pm, y), miss, &budget);
    for (size_t k = 0; k < n && ok; k++) { /* top down */
        BDD a = above[k];
        if (a == bddfalse)
            continue;
        int v = pm->var[k];
        for (int side = 0; side < 2 && ok; side++) {
            BDD q = side ? pm->hi[k] : pm->lo[k];
            uint32_t qi = side ? pm->hi_ix[k] : pm->lo_ix[k];
            if (q == bddfalse)
                continue;
            size_t m2 = sa__mark(c);
            BDD upper = T(sa__and(a, arc_literal(r, v, side)));
            if (q >= 2) {
                BDD *to = &above[qi];
                sa__put(to, sa__or(*to, upper));
            }
            ok = arc_misses(c, pm, below, pm->lvl[k], upper, q, qi, miss, &budget);
            if (!whole && side == 1 && !is_mode_var(r, v) && v < r->n_bddvars &&
                r->var_edge[v] >= 0) {
                BDD *to = &can[r->edge_eq[r->var_edge[v]]];
                sa__put(to, sa__or(*to, T(sa__and(a, below_at(below, q, qi)))));
            }
            sa__release(c, m2);
        }
        if ((k & 1023) == 0)
            sa__progress(c, "greedy", k, n);
    }
    BDD some = n > 0 ? below[index_of(pm, y)] : bddfalse; /* EXISTS edges . y */
    sa__put(exists, some);
    /* Whole, keep_row reads the row's active edges unmasked instead
     * (row_active): can[i], a conjunction with `some` (a function of
     * every mode variable) per row, only for the self-check (the brake's
     * pairs at N = 100: 1,303 conjunctions read by nothing). */
    bool want_can = c->opt != NULL && c->opt->self_check;
    for (uint32_t i = 0; whole && want_can && ok && i < r->n_eq; i++) {
        size_t m2 = sa__mark(c);
        BDD any = bddfalse;
        for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++)
            any = T(sa__or(any, r->chi_e[e]));
        sa__put(&can[i], sa__and(some, any));
        sa__release(c, m2);
    }
    sa__release(c, mark);
    return ok;
}

/* "Row i is matched": the disjunction of its edge variables (a temporary). */
static BDD row_matched(sa_ctx *c, uint32_t i)
{
    const sa_result *r = c->r;
    BDD matched = bddfalse;
    for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++)
        matched = T(sa__or(matched, bdd_ithvar(r->edge_var[e])));
    return matched;
}

/* sa_options.self_check: the can and miss of every row with edges equal
 * the relational products over y they stand for. */
static void check_rows(sa_ctx *c, BDD y, const BDD *can, const BDD *miss)
{
    const sa_result *r = c->r;
    for (uint32_t i = 0; i < r->n_eq; i++) {
        if (r->eq_first[i] == r->eq_first[i + 1])
            continue; /* no edge, no band: never kept, its miss unread */
        size_t m2 = sa__mark(c);
        BDD matched = row_matched(c, i);
        MDAE_ASSERT(can[i] == T(bdd_appex(y, matched, bddop_and, sa__edgeset(c, r))));
        MDAE_ASSERT(miss[i] == T(bdd_appex(y, T(bdd_not(matched)), bddop_and, sa__edgeset(c, r))));
        sa__release(c, m2);
    }
}

/* Y and what answers for it (left_out_bdds): the pass's can and miss
 * (all_rows, n_eq slots each) while Y is pass_y (bddfalse: no pass yet). */
typedef struct greedy_y {
    BDD *y, *matched, *can, *miss, *pass_y;
    BDD *exists; /* EXISTS edges . pass_y, by the pass */
    BDD answered; /* the modes read (left_out_bdds), referenced by it */
    bool pass_whole; /* the pass was over every column-covering matching */
    size_t quiet; /* steps since Y last changed */
    pass_mem pm;
} greedy_y;

static void greedy_y_init(sa_ctx *c, greedy_y *g)
{
    const sa_result *r = c->r;
    memset(g, 0, sizeof *g);
    g->y = sa__slots(c, 1);
    sa__put(g->y, sa__covering(c, "greedy"));
    g->matched = sa__slots(c, 1);
    g->can = sa__slots(c, (size_t)r->n_eq + 1);
    g->miss = sa__slots(c, (size_t)r->n_eq + 1);
    g->pass_y = sa__slots(c, 1);
    g->exists = sa__slots(c, 1);
    g->quiet = ALL_CAN_QUIET;
    if (!make_bands(c, &g->pm.bs, &g->pm.nb))
        g->pm.bs = NULL;
}

/* The pass over Y as it is (all_rows into g->can and g->miss); false,
 * and no pass from now on, when it cannot answer. */
static bool pass_over_y(sa_ctx *c, greedy_y *g)
{
    const sa_result *r = c->r;
    bool whole = *g->y == r->covering; /* Y only shrinks: unchanged */
    if (g->pm.bs == NULL || !all_rows(c, *g->y, &g->pm, whole, g->can, g->miss, g->exists)) {
        g->pm.bs = NULL; /* the products from now on */
        return false;
    }
    sa__put(g->pass_y, *g->y);
    g->pass_whole = whole;
    if (c->opt != NULL && c->opt->self_check)
        check_rows(c, *g->y, g->can, g->miss);
    return true;
}

/* Where row i has an active edge (a temporary). */
static BDD row_active(sa_ctx *c, uint32_t i)
{
    const sa_result *r = c->r;
    BDD any = bddfalse;
    for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++)
        any = T(sa__or(any, r->chi_e[e]));
    return any;
}

/* Row i's turn in the modes `turn` (not masked by g->answered: the
 * guards, rows and edges of a step are local to a few mode variables, the
 * answered modes span them all, and a conjunction with them made every
 * BDD of the step as wide; brake N = 100, a third of the greedy's work):
 * where it is kept, within `turn` (a temporary, exact within answered),
 * Y restricted to the elements that match it in the answered modes of
 * that. After a pass over every column-covering matching, can = the modes
 * where Y is not empty (every mode of answered) & the row's edges; the
 * part within answered is what Y changes by. */
static BDD keep_row(sa_ctx *c, greedy_y *g, uint32_t i, BDD turn)
{
    const sa_result *r = c->r;
    BDD *y = g->y;
    if (*g->pass_y != *y && g->quiet >= ALL_CAN_QUIET && g->pm.bs != NULL)
        pass_over_y(c, g);
    bool fresh = *g->pass_y == *y && *y != bddfalse;
    /* "Row i is matched" only when a product or a restriction reads it
     * (after the pass, most steps read neither). */
    if (!fresh)
        sa__put(g->matched, row_matched(c, i));
    BDD can = !fresh ? T(bdd_appex(*y, *g->matched, bddop_and, sa__edgeset(c, r)))
              : g->pass_whole ? row_active(c, i)
                              : g->can[i];
    BDD keep = T(sa__and(turn, can));
    BDD before = *y;
    /* miss lies within the modes where Y is not empty: the unmasked keep
     * meets it where the masked one does, and is the cheaper test. */
    if (keep != bddfalse && (!fresh || T(sa__and(keep, g->miss[i])) != bddfalse)) {
        BDD masked = T(sa__and(keep, g->answered));
        if (masked != bddfalse && (!fresh || T(sa__and(masked, g->miss[i])) != bddfalse)) {
            if (fresh)
                sa__put(g->matched, row_matched(c, i));
            sa__put(y, sa__and(*y, T(bdd_imp(masked, *g->matched))));
        }
    }
    g->quiet = *y == before ? g->quiet + 1 : 0;
    return keep;
}

/* The modes where equation i is left out, into lo[i] (n_eq slots). */
static void left_out_bdds(sa_ctx *c, const sa_greedy_step *steps, size_t n_steps, BDD *lo)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    greedy_y g;
    greedy_y_init(c, &g);
    BDD *answered = sa__slots(c, 1);
    BDD *taken = sa__slots(c, (size_t)r->n_eq + 1); /* modes where i had its turn */
    BDD *kept = sa__slots(c, (size_t)r->n_eq + 1);
    bool *always = sa__alloc(c, (size_t)r->n_eq + 1);
    /* The first step would pass over the whole Y anyway: its miss says
     * which rows every element matches (miss false), without the walk,
     * and Below of its root is EXISTS edges . Y (a relational product
     * over Y less: 3.7 M instructions, the brake's pairs at N = 100). */
    bool passed = *g.y >= 2 && pass_over_y(c, &g);
    if (passed)
        for (uint32_t i = 0; i < r->n_eq; i++)
            always[i] = r->eq_first[i] != r->eq_first[i + 1] && g.miss[i] == bddfalse;
    else
        always_matched(c, *g.y, always);
    /* Y is over every mode (sa__covering); the answers, in the singular ones. */
    BDD some = passed ? *g.exists : T(bdd_exist(*g.y, sa__edgeset(c, r)));
    if (!r->covering_exists_known) { /* *g.y is r->covering (greedy_y_init) */
        r->covering_exists = bdd_addref(some);
        r->covering_exists_known = true;
    }
    sa__put(answered, sa__and(some, r->singular));
    g.answered = *answered;
    /* The guards first: their memo's slots must outlive every step. */
    BDD *whens = sa__slots(c, n_steps + 1);
    sa__gmemo gm;
    memset(&gm, 0, sizeof gm);
    for (size_t s = 0; s < n_steps; s++)
        if (!always[steps[s].eq]) /* else never read */
            sa__put(&whens[s], sa__guard_bdd(c, &gm, steps[s].when)); /* unmasked: keep_row */
    for (size_t s = 0; s < n_steps; s++) {
        uint32_t i = steps[s].eq;
        MDAE_ASSERT(i < r->n_eq);
        if (always[i]) { /* kept at every turn, Y as it is */
            sa__put(&kept[i], bddtrue);
            continue;
        }
        size_t m2 = sa__mark(c);
        BDD turn = T(bdd_apply(T(sa__and(whens[s], r->chi_i[i])), taken[i], bddop_diff));
        if (turn != bddfalse) {
            sa__put(&taken[i], sa__or(taken[i], turn));
            sa__put(&kept[i], sa__or(kept[i], keep_row(c, &g, i, turn)));
        }
        sa__release(c, m2);
        sa__progress(c, "greedy", s, n_steps);
    }
    /* Where i is active and not kept, then within the answered modes: a
     * row kept wherever it is active (every row an element of Y always
     * matches, most rows of most models) is left out nowhere without a
     * conjunction with `answered`, a function of every mode variable (the
     * brake's pairs at N = 100: 1,303 such conjunctions were a third of
     * R4's time); the same function. */
    for (uint32_t i = 0; i < r->n_eq; i++) {
        size_t m2 = sa__mark(c);
        BDD out = T(bdd_apply(r->chi_i[i], kept[i], bddop_diff));
        sa__put(&lo[i], out == bddfalse ? bddfalse : sa__and(out, *answered));
        sa__release(c, m2);
        sa__poll_cancel(c); /* a row can take ms at N = 3,000 (the brake) */
    }
    sa__release(c, mark);
}

/* ---- One mode at a time -------------------------------------------------------- */

/* The BDD nodes the implicit path may produce (sa__try), and the largest
 * number of modes solved one at a time instead. */
#define GREEDY_BUDGET SA_GREEDY_BUDGET
#define GREEDY_ENUMERATE SA_GREEDY_ENUMERATE

typedef struct one_mode {
    const sa_result *r;
    const bool *edge_on; /* n_edges: active in the mode */
    int32_t *col_row;    /* n_var: the row matched to a column, -1 */
    uint32_t *seen;      /* n_var: the search that visited a column last */
    uint32_t search;
} one_mode;

/* Kuhn's augmenting path from row i: true (and the matching augmented) if
 * it reaches a free column. */
static bool augment(one_mode *o, uint32_t i)
{
    const sa_result *r = o->r;
    for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
        uint32_t j = r->edge_v[e];
        if (!o->edge_on[e] || o->seen[j] == o->search)
            continue;
        o->seen[j] = o->search;
        if (o->col_row[j] < 0 || augment(o, (uint32_t)o->col_row[j])) {
            o->col_row[j] = (int32_t)i;
            return true;
        }
    }
    return false;
}

typedef struct enum_state {
    const sa_greedy_step *steps;
    size_t n_steps;
    int *level_mode;  /* mode variable at each of their levels, in order */
    bool *mode, *row_on, *edge_on, *taken, *kept;
    one_mode o;
    BDD *lo;
} enum_state;

/* The greedy basis in mode st->mode, its left-out rows OR-ed into st->lo:
 * in every singular mode, also where no matching matches every active
 * column (issue 41 item 4: the first instants rejected there erase too,
 * and mc_change's R4 is the same greedy basis). */
static void solve_mode(sa_ctx *c, enum_state *st)
{
    const sa_result *r = c->r;
    const bool *mode = st->mode;
    for (uint32_t i = 0; i < r->n_eq; i++) {
        st->row_on[i] = sa__eval(r, r->chi_i[i], mode);
        st->taken[i] = st->kept[i] = false;
    }
    for (size_t e = 0; e < r->n_edges; e++)
        st->edge_on[e] = sa__eval(r, r->chi_e[e], mode);
    for (uint32_t j = 0; j < r->n_var; j++)
        st->o.col_row[j] = -1;
    for (size_t s = 0; s < st->n_steps; s++) {
        uint32_t i = st->steps[s].eq;
        if (!st->row_on[i] || st->taken[i] || !mel_guard_eval(st->steps[s].when, mode))
            continue;
        st->taken[i] = true;
        st->o.search++;
        st->kept[i] = augment(&st->o, i);
    }
    size_t mark = sa__mark(c);
    BDD *cube = sa__slots(c, 1);
    sa__put(cube, bddtrue);
    for (uint32_t k = 0; k < r->n_modes; k++)
        sa__put(cube, bdd_and(*cube, mode[k] ? bdd_ithvar(r->mode_var[k])
                                              : bdd_nithvar(r->mode_var[k])));
    for (uint32_t i = 0; i < r->n_eq; i++)
        if (st->row_on[i] && !st->kept[i])
            sa__put(&st->lo[i], bdd_or(st->lo[i], *cube));
    sa__release(c, mark);
}

/* Every mode of f (a mode function), mode variables from level index k on. */
static void each_mode(sa_ctx *c, enum_state *st, BDD f, uint32_t k)
{
    const sa_result *r = c->r;
    if (f == bddfalse)
        return;
    if (k == r->n_modes) {
        solve_mode(c, st);
        return;
    }
    int m = st->level_mode[k];
    bool splits = f != bddtrue && bdd_var(f) == r->mode_var[m];
    st->mode[m] = false;
    each_mode(c, st, splits ? bdd_low(f) : f, k + 1);
    st->mode[m] = true;
    each_mode(c, st, splits ? bdd_high(f) : f, k + 1);
}

static void left_out_enumerated(sa_ctx *c, const sa_greedy_step *steps, size_t n_steps,
                                BDD *lo)
{
    const sa_result *r = c->r;
    enum_state st = {steps, n_steps, NULL, NULL, NULL, NULL, NULL, NULL, {r, NULL, NULL, NULL, 0}, lo};
    st.level_mode = sa__alloc(c, ((size_t)r->n_modes + 1) * sizeof *st.level_mode);
    for (uint32_t k = 0; k < r->n_modes; k++) { /* by level: insertion sort */
        uint32_t q = k;
        int lv = bdd_var2level(r->mode_var[k]);
        for (; q > 0 && bdd_var2level(r->mode_var[st.level_mode[q - 1]]) > lv; q--)
            st.level_mode[q] = st.level_mode[q - 1];
        st.level_mode[q] = (int)k;
    }
    st.mode = sa__alloc(c, (size_t)r->n_modes + 1);
    st.row_on = sa__alloc(c, (size_t)r->n_eq + 1);
    st.taken = sa__alloc(c, (size_t)r->n_eq + 1);
    st.kept = sa__alloc(c, (size_t)r->n_eq + 1);
    st.edge_on = sa__alloc(c, r->n_edges + 1);
    st.o.edge_on = st.edge_on;
    st.o.col_row = sa__alloc(c, ((size_t)r->n_var + 1) * sizeof *st.o.col_row);
    st.o.seen = sa__alloc(c, ((size_t)r->n_var + 1) * sizeof *st.o.seen);
    each_mode(c, &st, r->singular, 0);
}

/* ---- Entry point ------------------------------------------------------------------ */

typedef struct greedy_job {
    const sa_greedy_step *steps;
    size_t n_steps;
    int method;     /* SA_METHOD_*: ENUMERATE one mode at a time, IMPLICIT on
                       BDDs within budget, AUTO by the number of modes */
    size_t budget;
    BDD *lo;        /* n_eq, referenced by the caller once computed */
    sa_set *out;
    double *count;
    mdae_bn *exact; /* or NULL */
    const mel_guard *within; /* the sets read within it, or NULL */
    sa_set *kept;   /* NULL, or n_eq: active and not left out, within */
    double *kept_count;
    mdae_bn *kept_exact; /* or NULL */
} greedy_job;

typedef struct bdd_args {
    greedy_job *j;
    BDD *lo;
} bdd_args;

static void on_bdds(sa_ctx *c, void *arg)
{
    bdd_args *a = arg;
    left_out_bdds(c, a->j->steps, a->j->n_steps, a->lo);
}

/* The implicit path within budget, the covering matchings counted in it
 * as if built here when sa_analyze built them
 * (sa_options.singular_by_covering): the limit falls where it fell. */
static bool on_bdds_within(sa_ctx *c, size_t budget, bdd_args *a)
{
    size_t spent = c->r->covering_known ? c->r->covering_produced : 0;
    return budget > spent && sa__try(c, budget - spent, on_bdds, a);
}

static void compute(sa_ctx *c, void *arg)
{
    greedy_job *j = arg;
    BDD *lo = sa__slots(c, (size_t)c->r->n_eq + 1);
    bdd_args a = {j, lo};
    bool few = sa__count_modes(c, c->r, c->r->singular) <= GREEDY_ENUMERATE;
    if (j->method == SA_METHOD_ENUMERATE || (j->method == SA_METHOD_AUTO && few))
        left_out_enumerated(c, j->steps, j->n_steps, lo);
    else if (!on_bdds_within(c, j->budget, &a))
        sa__fail(c, MDAE_E_LIMIT);
    for (uint32_t i = 0; i < c->r->n_eq; i++)
        j->lo[i] = lo[i] >= 2 ? bdd_addref(lo[i]) : lo[i]; /* outlives the context */
}

/* Every row's set and size, in one context (one care set for all): a row
 * whose cover would exceed the limit is left empty, its size known. The
 * cancel polled after each row: the rows of the brake at N = 3,000 took
 * 3 s without a poll, during which the editor's cancel waited. */
static void covers(sa_ctx *c, void *arg)
{
    greedy_job *j = arg;
    const sa_result *r = c->r;
    sa__care cs;
    sa__care_init(c, r, r->chi_m, &cs);
    BDD within = bddtrue;
    if (j->within != NULL) {
        sa__gmemo gm;
        memset(&gm, 0, sizeof gm);
        within = sa__tmp(c, bdd_and(r->chi_m, sa__guard_bdd(c, &gm, j->within)));
    }
    for (uint32_t i = 0; i < r->n_eq; i++) {
        size_t mark = sa__mark(c);
        sa__amark temps = sa__alloc_mark(c);
        if (j->lo[i] != bddfalse) {
            BDD lo = sa__tmp(c, bdd_and(j->lo[i], within));
            j->count[i] = sa__count_modes(c, r, lo);
            if (j->exact != NULL)
                sa__count_modes_exact(c, r, lo, NULL, 0, j->count[i], &j->exact[i]);
            if (j->count[i] > 0)
                sa__set_of_care_if_few(c, r, lo, &cs, &j->out[i]);
            else if (sa__set_empty(&j->out[i]) != MDAE_OK)
                sa__fail(c, MDAE_E_NOMEM);
        }
        if (j->kept != NULL) {
            BDD kept = sa__tmp(c, bdd_and(bdd_and(r->chi_i[i], within), bdd_not(j->lo[i])));
            j->kept_count[i] = sa__count_modes(c, r, kept);
            if (j->kept_exact != NULL)
                sa__count_modes_exact(c, r, kept, NULL, 0, j->kept_count[i], &j->kept_exact[i]);
            if (j->kept_count[i] > 0)
                sa__set_of_care_if_few(c, r, kept, &cs, &j->kept[i]);
            else if (sa__set_empty(&j->kept[i]) != MDAE_OK)
                sa__fail(c, MDAE_E_NOMEM);
        }
        sa__alloc_release(c, temps);
        sa__release(c, mark);
        sa__poll_cancel(c);
    }
}

int sa_result_left_out(const sa_result *r, const sa_greedy_step *steps, size_t n_steps,
                       const sa_options *opt, size_t max_cubes, sa_set *out, double *count,
                       mdae_bn *exact)
{
    return sa_result_left_out_within(r, steps, n_steps, NULL, opt, max_cubes, out, count, exact,
                                     NULL, NULL, NULL);
}

int sa_result_left_out_within(const sa_result *r, const sa_greedy_step *steps, size_t n_steps,
                              const mel_guard *within, const sa_options *opt, size_t max_cubes,
                              sa_set *out, double *count, mdae_bn *exact, sa_set *kept,
                              double *kept_count, mdae_bn *kept_exact)
{
    if (r == NULL || out == NULL || count == NULL || (steps == NULL && n_steps > 0) ||
        (kept != NULL && kept_count == NULL))
        return MDAE_E_INVAL;
    if (!sa__running())
        return MDAE_E_STATE;
    memset(out, 0, r->n_eq * sizeof *out);
    if (kept != NULL)
        memset(kept, 0, r->n_eq * sizeof *kept);
    for (size_t s = 0; s < n_steps; s++)
        if (steps[s].eq >= r->n_eq || steps[s].when == NULL)
            return MDAE_E_INVAL;
    BDD *lo = mdae_calloc((size_t)r->n_eq + 1, sizeof *lo); /* bddfalse */
    if (lo == NULL)
        return MDAE_E_NOMEM;
    int method = opt != NULL ? opt->method : SA_METHOD_AUTO;
    size_t budget = opt != NULL && opt->implicit_budget > 0 ? opt->implicit_budget
                                                            : GREEDY_BUDGET;
    greedy_job j = {steps, n_steps, method, budget, lo, out, count, exact,
                    within, kept, kept_count, kept_exact};
    sa_options progress = {0};
    if (opt != NULL) {
        progress.progress = opt->progress;
        progress.progress_ctx = opt->progress_ctx;
        progress.self_check = opt->self_check;
    }
    int rc = sa__run_on(r, &progress, max_cubes, compute, &j);
    for (uint32_t i = 0; i < r->n_eq && rc == MDAE_OK; i++) {
        count[i] = -1;
        if (kept != NULL)
            kept_count[i] = -1;
        if (lo[i] == bddfalse) { /* most rows: what covers gives, without a context */
            count[i] = 0;
            rc = sa__set_empty(&out[i]);
        }
    }
    if (rc == MDAE_OK)
        rc = sa__run_on(r, &progress, max_cubes, covers, &j); /* a cancel is seen here too */
    for (uint32_t i = 0; i < r->n_eq; i++)
        if (lo[i] >= 2)
            bdd_delref(lo[i]);
    mdae_free(lo);
    if (rc != MDAE_OK)
        for (uint32_t i = 0; i < r->n_eq; i++) {
            sa__set_close(&out[i]);
            if (kept != NULL)
                sa__set_close(&kept[i]);
        }
    return rc;
}
