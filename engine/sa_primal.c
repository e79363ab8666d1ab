/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_primal.c -- the primal problem for all modes (RR-9322 4.4): the
 * perfect matchings X, the maximum-weight ones S, one chosen MWPM T per
 * mode, T_e per edge, and the singular modes.
 *
 * Weight shift. Instead of omega = sum of sigma over the matching, we
 * minimise the deficit: per edge, (max sigma of the edge's column in the
 * mode) - sigma, then minus the least such value of the edge's row. In a
 * perfect matching every active variable and equation is matched once, so
 * the total deficit is a mode-dependent constant minus omega: the same
 * matchings are optimal, but most edges have deficit 0 and the values stay
 * small (issue 3, item 6).
 *
 * Seeding (issue 6). With sa_options.hint, the costs are reduced costs
 * instead: for c_i = the hint's offsets carried over by name (sa_hint.c),
 * d_j = max over the active edges (i, j) of c_i + sigma_ij and
 * r_ij = d_j - c_i - sigma_ij. LP duality makes this exact for ANY c >= 0:
 * r >= 0 on active edges, and over a perfect matching M of a mode the sum of
 * r is (sum_j d_j - sum_i c_i) - omega(M), a constant of the mode minus the
 * weight, so the minimal ones are again exactly the maximum-weight ones: the
 * same S, hence the same chosen T and everything after it. When c is the
 * previous version's canonical offsets, r is 0 on the tight edges away from
 * the edit, and the optimum of most modes is 0 or 1. That alone did not
 * make the dynamic programme cheaper (measured, building N = 20: its cost is
 * walking X's 76,000 nodes with mode functions, not the width of the
 * values; the cold deficits are 0/1 there already), so seeded analyses do
 * not walk X. Where the perfect matchings of the edges of cost 0 exist,
 * they are S, and the chosen T is the smallest of them: first the hint's
 * own chosen matching is repaired near the edit (sa_repair.c says why
 * that gives the same T), then, in the modes the repair leaves, those
 * matchings are built, without X (X_0: a third of X's work on the
 * building). In the modes both leave, the same for the offsets of a mode
 * sampled there (up to SEEDED_ZERO_ROUNDS), and when that covers every
 * valid mode X is never built (issue 16: the building at N = 40, an
 * incidence added, 0.27 s -> 0.05 s by X_0, 0.024 s with the repair; a
 * guard negated 0.26 s -> 0.07 s by X_0, 0.028 s with the repair).
 * Else X, and for k = 1, ... up to
 * SA_CHEAP_MAX, X & "cost <= k" gives S in the modes whose optimum is k
 * (cheap_part, below), and the dynamic programme runs only on the modes
 * left, if any.
 *
 * S is not computed by the paper's bit-by-bit pruning of a weight vector but
 * by a shortest-path dynamic programme on the BDD of X (sa__best, below,
 * which says why); S is the same set.
 */
#include "sa_int.h"

#include <stdlib.h>
#include <string.h>

#define T(f) sa__tmp(c, (f))

static int level_of(const sa_result *r, size_t e) { return bdd_var2level(r->edge_var[e]); }

void sa__onehot(sa_ctx *c, const size_t *es, const BDD *act, size_t n, bool exactly,
                BDD *one, BDD *none)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    size_t *ix = sa__alloc(c, (n + 1) * sizeof *ix);
    for (size_t k = 0; k < n; k++) { /* by level, insertion sort: short lists */
        size_t b = k;
        while (b > 0 && level_of(r, es[ix[b - 1]]) > level_of(r, es[k])) {
            ix[b] = ix[b - 1];
            b--;
        }
        ix[b] = k;
    }
    BDD *z = sa__slots(c, 2);
    sa__put(&z[0], bddtrue);                       /* none of the rest */
    sa__put(&z[1], exactly ? bddfalse : bddtrue); /* one (at most one) */
    /* Bottom-up, deepest edge first, so each step adds one node on top. */
    for (size_t q = n; q-- > 0;) {
        size_t k = ix[q];
        size_t m2 = sa__mark(c);
        BDD v = bdd_ithvar(r->edge_var[es[k]]);
        BDD take = act ? T(sa__and(z[0], act[k])) : z[0];
        sa__put(&z[1], bdd_ite(v, take, z[1]));
        sa__put(&z[0], bdd_ite(v, bddfalse, z[0]));
        sa__release(c, m2);
    }
    sa__put(one, z[1]);
    sa__put(none, z[0]);
    sa__release(c, mark);
}

/* Column lists: edges of each variable. */
void sa__columns(sa_ctx *c, const sa_result *r, size_t **first, size_t **edges)
{
    size_t *f = sa__alloc(c, (r->n_var + 2) * sizeof *f);
    size_t *ed = sa__alloc_raw(c, (r->n_edges + 1) * sizeof *ed); /* written whole */
    for (size_t e = 0; e < r->n_edges; e++)
        f[r->edge_v[e] + 2]++;
    for (uint32_t j = 0; j < r->n_var; j++)
        f[j + 2] += f[j + 1];
    for (size_t e = 0; e < r->n_edges; e++)
        ed[f[r->edge_v[e] + 1]++] = e;
    *first = f;
    *edges = ed;
}

void sa__mats_init(sa_ctx *c, sa__mats *mt)
{
    sa__columns(c, c->r, &mt->cfirst, &mt->cedges);
    mt->rnone = sa__slots(c, c->r->n_eq + 1);
    mt->cnone = sa__slots(c, c->r->n_var + 1);
    mt->quantify = false;
    mt->act = NULL;
}

/* The conjunction of the edge variables of column j (a temporary). */
static BDD column_edges(sa_ctx *c, const sa__mats *mt, uint32_t j)
{
    const sa_result *r = c->r;
    size_t nc = mt->cfirst[j + 1] - mt->cfirst[j];
    int *vars = sa__alloc(c, (nc + 1) * sizeof *vars);
    for (size_t k = 0; k < nc; k++)
        vars[k] = r->edge_var[mt->cedges[mt->cfirst[j] + k]];
    return sa__cube(c, vars, nc);
}

/* Conjoin the row and column constraints into *x, in the variable order
 * (rows by eq_order, each column right after its last row), so that only
 * the columns crossing the current row are open in the intermediate BDD. */
void sa__matchings(sa_ctx *c, BDD *x, bool perfect, sa__mats *mt, const char *phase)
{
    sa__matchings_ex(c, x, perfect, perfect, mt, phase);
}

void sa__matchings_ex(sa_ctx *c, BDD *x, bool rows_all, bool cols_all, sa__mats *mt,
                      const char *phase)
{
    sa_result *r = c->r;
    uint32_t *pos = sa__alloc(c, (r->n_eq + 1) * sizeof *pos);
    for (uint32_t a = 0; a < r->n_eq; a++)
        pos[r->eq_order[a]] = a;
    /* Variables grouped by the position of their last row. */
    uint32_t *last = sa__alloc(c, (r->n_var + 1) * sizeof *last);
    /* Bottom-up (last row first): each new row lands on top of the BDD
     * built so far, so the conjunction stays near the root. Measured on the
     * building model, N = 10: 0.2 s instead of 3.5 s top-down. */
    bool up = true;
    size_t *gfirst = sa__alloc(c, (r->n_eq + 2) * sizeof *gfirst);
    uint32_t *gvars = sa__alloc(c, (r->n_var + 1) * sizeof *gvars);
    for (uint32_t j = 0; j < r->n_var; j++) {
        last[j] = up ? r->n_eq - 1 : 0;
        for (size_t k = mt->cfirst[j]; k < mt->cfirst[j + 1]; k++) {
            uint32_t p = pos[r->edge_eq[mt->cedges[k]]];
            if (up ? p < last[j] : p > last[j])
                last[j] = p;
        }
        gfirst[last[j] + 2]++;
    }
    for (uint32_t a = 0; a < r->n_eq; a++)
        gfirst[a + 2] += gfirst[a + 1];
    for (uint32_t j = 0; j < r->n_var; j++)
        gvars[gfirst[last[j] + 1]++] = j;

    size_t *es = sa__alloc(c, (r->n_edges + 1) * sizeof *es);
    BDD *one = sa__slots(c, 1);
    /* Variables in no equation: where they exist, nothing can match them.
     * Their "no edge" set is set here, not in the row loop below, which
     * never runs for a model without equations. */
    for (uint32_t j = 0; j < r->n_var; j++) {
        if (mt->cfirst[j] != mt->cfirst[j + 1])
            continue;
        sa__put(&mt->cnone[j], bddtrue);
        if (cols_all)
            sa__put(x, bdd_apply(*x, r->chi_j[j], bddop_diff));
    }
    for (uint32_t step = 0; step < r->n_eq; step++) {
        uint32_t a = up ? r->n_eq - 1 - step : step;
        uint32_t i = r->eq_order[a];
        size_t n = r->eq_first[i + 1] - r->eq_first[i];
        size_t m2 = sa__mark(c);
        for (size_t k = 0; k < n; k++)
            es[k] = r->eq_first[i] + k;
        const BDD *act = mt->act != NULL ? mt->act : r->chi_e;
        sa__onehot(c, es, &act[r->eq_first[i]], n, rows_all, one, &mt->rnone[i]);
        /* Inactive equations take no edge: chi_E => chi_I already. The
         * row and the columns it closes are conjoined first, then with
         * *x at once: each conjunction with *x rebuilt its top down to
         * the levels it reads (the brake's pair model at N = 100: its
         * column-covering matchings, a sixth of the instructions of
         * `modechange --first --instants`); the same function. */
        BDD *step_c = sa__slots(c, 1);
        sa__put(step_c, sa__ite(r->chi_i[i], *one, mt->rnone[i]));
        /* Quantified, *x stays small (the open columns only): the row
         * first, then each column it closes, its edges quantified at once
         * (they are in no other column and every row of theirs is in).
         * Building the row's and its columns' conjunction first made most
         * of the nodes (the brake's pair model at N = 100, a later
         * instant's perfect matchings: 18,000 of 41,000); the same
         * function. */
        if (mt->quantify)
            sa__put(x, sa__and(*x, *step_c));
        for (size_t g = gfirst[a]; g < gfirst[a + 1]; g++) {
            uint32_t j = gvars[g];
            size_t nc = mt->cfirst[j + 1] - mt->cfirst[j];
            if (nc == 0) {
                sa__put(&mt->cnone[j], bddtrue);
                continue;
            }
            size_t m3 = sa__mark(c);
            sa__onehot(c, &mt->cedges[mt->cfirst[j]], NULL, nc, cols_all, one, &mt->cnone[j]);
            BDD col = T(sa__ite(r->chi_j[j], *one, mt->cnone[j]));
            if (mt->quantify) /* every row of j's edges is in (gvars) */
                sa__put(x, bdd_appex(*x, col, bddop_and, column_edges(c, mt, j)));
            else
                sa__put(step_c, sa__and(*step_c, col));
            sa__release(c, m3);
        }
        if (!mt->quantify)
            sa__put(x, sa__and(*x, *step_c));
        sa__release(c, m2);
        if ((step & 63) == 63)
            sa__progress(c, phase, step, r->n_eq);
        else /* a step can take ms (the brake at N = 10,000: 64 took 0.4 s) */
            sa__poll_cancel(c);
    }
}

/* Why the matchings start from true, not from the modes they are read in
 * (sa__matchable, sa__covering). The rows are conjoined bottom-up, each on
 * top of what is built, so a step touches only the levels above the rows
 * it has seen -- unless *x starts as a function of modes at every level.
 * A pair model's valid pairs (mc_pairs.c: "the two modes differ", an OR
 * over all mode variables) are such a function: every step then rebuilt
 * the path from the root down to its row. Brake N = 100, first instants:
 * 610,000 nodes produced for the perfect matchings' existence instead of
 * 57,000, and the column-covering matchings, masked by the singular pairs,
 * had 56,807 nodes instead of 28,363 unmasked (tests/bench/README.md). */
/* The matchings sa__matchings_ex's flags say, from true, into a new slot;
 * with quantify, over the modes only (every column with edges is closed by
 * the end, so the last EXISTS only walks the result). */
static BDD matchings_from_true(sa_ctx *c, bool rows_all, bool cols_all, bool quantify,
                               const char *phase)
{
    BDD *out = sa__slots(c, 1);
    size_t mark = sa__mark(c);
    BDD *x = sa__slots(c, 1);
    sa__put(x, bddtrue);
    sa__mats mt;
    sa__mats_init(c, &mt);
    mt.quantify = quantify;
    sa__matchings_ex(c, x, rows_all, cols_all, &mt, phase);
    sa__put(out, quantify ? bdd_exist(*x, sa__edgeset(c, c->r)) : *x);
    sa__release(c, mark);
    return *out;
}

BDD sa__matchable(sa_ctx *c, bool rows_all, bool cols_all, const char *phase)
{
    return matchings_from_true(c, rows_all, cols_all, true, phase);
}

BDD sa__covering(sa_ctx *c, const char *phase)
{
    sa_result *r = c->r;
    if (!r->covering_known) {
        r->covering = bdd_addref(matchings_from_true(c, false, true, false, phase));
        r->covering_known = true;
    }
    return r->covering;
}

/* ---- The perfect matchings' existence through the covering ones -----------
 * A matching that matches every active variable once matches as many
 * equations as there are active variables: it is perfect iff it also
 * matches every active equation. So the modes with a perfect matching are
 * EXISTS edges . covering & (every active row matched), one relational
 * product over sa__covering's BDD. Before the quantification both sets
 * are the perfect matchings (a row: at most one edge, and one where it is
 * active), so this is sa__matchable(c, true, true, ..)'s BDD. Worth it
 * when sa_result_left_out reads the covering matchings next (mc_pairs.c,
 * sa_options.singular_by_covering): the brake at N = 100, first instants,
 * the existence alone produced 60,000 nodes beside the covering's 130,000;
 * the product and its rows, a seventh of that (tests/bench/README.md). */

/* Every active row matched: the AND over the rows of (chi_i => one of its
 * edges), rows conjoined bottom-up, each on top of the rest (a temporary). */
static BDD rows_matched(sa_ctx *c)
{
    const sa_result *r = c->r;
    BDD *acc = sa__slots(c, 1);
    sa__put(acc, bddtrue);
    for (uint32_t a = r->n_eq; a-- > 0;) {
        uint32_t i = r->eq_order[a];
        size_t m2 = sa__mark(c);
        BDD matched = bddfalse;
        for (size_t e = r->eq_first[i + 1]; e-- > r->eq_first[i];)
            matched = T(bdd_or(bdd_ithvar(r->edge_var[e]), matched));
        sa__put(acc, bdd_and(*acc, T(bdd_imp(r->chi_i[i], matched))));
        sa__release(c, m2);
    }
    return *acc;
}

/* sa__try's body: the covering matchings (kept, with the nodes they took)
 * and the existence read off them, into *arg (a slot). */
static void perfect_via_covering(sa_ctx *c, void *arg)
{
    BDD *out = arg;
    long before = sa__produced();
    BDD y = sa__covering(c, "matchings");
    c->r->covering_produced = (size_t)(sa__produced() - before);
    sa__put(out, bdd_appex(y, rows_matched(c), bddop_and, sa__edgeset(c, c->r)));
}

bool sa__perfect_from_covering(sa_ctx *c, size_t budget, BDD *out)
{
    BDD *slot = sa__slots(c, 1);
    if (c->r->covering_known || !sa__try(c, budget, perfect_via_covering, slot))
        return false;
    *out = *slot; /* the caller's slot: sa__try released only its own */
    return true;
}

/* ---- Optimal elements by dynamic programming on the BDD ---------------------
 * Why not RR-9322's bit-by-bit pruning of a weight vector: measured on the
 * building model (N = 10), the sum of the weights couples every edge through
 * its carries, and the intermediate sets (elements whose high bits are
 * optimal) grew 20-fold, to 585,000 nodes, before shrinking; thresholding by
 * value needed one pass per distinct optimum, which grows with N. The cost is
 * additive over edges, so the optimum is a shortest path in the BDD of s:
 * for each node n, F(n) = modes where n has a solution, val(n) = the optimal
 * cost from n (a mode-dependent integer), and S(n) = the optimal solutions
 * from n: at an edge node, the branches whose cost equals val(n) in a mode.
 * Mode nodes just select. One memoised pass, linear in |s| operations on
 * mode functions. The result is the same set as the paper's S. */

typedef struct best_ctx {
    const BDD *const *cost; /* per edge: wc-bit cost when taken, or NULL */
    int w, wc;
    bool maximize;
    int *key;
    BDD *ent; /* cap entries of (w + 2) slots: F, S, val[w] */
    size_t cap;
    /* Edge variables a path skips are free in s. When maximising a cost of
     * 1 per edge (the diagnostics), the best is to take them all: ecount
     * (by level) counts them and the branch's solutions force them to 1.
     * When minimising deficits, s is a set of perfect matchings, which never
     * leaves an edge free (flipping it changes a row's count). */
    int *ecount; /* n_levels + 1, or NULL */
    const char *phase;
    size_t done, total; /* nodes, for progress and cancellation */
} best_ctx;

static int lvl(BDD f) { return f < 2 ? bdd_varnum() : bdd_var2level(bdd_var(f)); }

static BDD *best_ent(best_ctx *b, size_t h) { return &b->ent[h * (size_t)(b->w + 2)]; }

/* The conjunction of the edge variables at levels strictly between l1, l2. */
static BDD skipped_cube(sa_ctx *c, int l1, int l2)
{
    BDD *f = sa__slots(c, 1);
    sa__put(f, bddtrue);
    for (int l = l2 - 1; l > l1; l--) {
        int v = bdd_level2var(l);
        if (v < c->r->n_bddvars && c->r->var_edge[v] >= 0)
            sa__put(f, bdd_and(bdd_ithvar(v), *f));
    }
    return *f;
}

static BDD *best_rec(sa_ctx *c, best_ctx *b, BDD f);
static BDD *best_node(sa_ctx *c, best_ctx *b, BDD f);

/* One branch of node f (level lf) to child: its value (*val: w BDDs) and
 * its optimal solutions (returned), the edge cost not included. Both are
 * the child's own entry, referenced by the memo table and never changed
 * once computed, unless the branch skips edge variables (then they are new
 * slots of the caller's): copying them was a tenth of the brake's dynamic
 * programme. */
static BDD branch(sa_ctx *c, best_ctx *b, int lf, BDD child, const BDD **val)
{
    BDD *ch = best_rec(c, b, child);
    int skip = b->ecount ? b->ecount[lvl(child)] - b->ecount[lf + 1] : 0;
    if (skip <= 0) {
        *val = &ch[2];
        return ch[1];
    }
    BDD *k = sa__slots(c, (size_t)b->w), *sum = sa__slots(c, (size_t)b->w);
    sa__vconst(k, b->w, (unsigned)skip);
    sa__vadd(c, sum, &ch[2], k, b->w);
    *val = sum;
    BDD cube = skipped_cube(c, lf, lvl(child));
    return T(sa__and(ch[1], cube));
}

/* f's entry if it has one already, else NULL. */
static BDD *best_find(best_ctx *b, BDD f)
{
    if (f < 2)
        return best_ent(b, (size_t)f); /* entries 0 and 1 are the constants */
    size_t h = ((size_t)f * 2654435761u) % (b->cap - 2) + 2;
    while (b->key[h] != -1 && b->key[h] != f)
        h = h + 1 < b->cap ? h + 1 : 2;
    return b->key[h] == f ? best_ent(b, h) : NULL;
}

/* The entry of f, computed children first (low, then high, then f, as a
 * recursion would) with an explicit stack: a recursion follows the BDD's
 * depth, a frame per level, and overflowed the C stack on the compressible
 * building at N = 1,000 (47,000 levels; issue 40). best_node finds the
 * children's entries computed. */
static BDD *best_rec(sa_ctx *c, best_ctx *b, BDD f)
{
    BDD *known = best_find(b, f);
    if (known != NULL)
        return known;
    size_t cap = 64, top = 0;
    BDD *st = sa__alloc_raw(c, cap * sizeof *st);
    st[top++] = f;
    while (top > 0) {
        BDD g = st[top - 1];
        if (best_find(b, g) != NULL) {
            top--;
            continue;
        }
        bool lo_known = best_find(b, bdd_low(g)) != NULL;
        bool hi_known = best_find(b, bdd_high(g)) != NULL;
        if (lo_known && hi_known) {
            best_node(c, b, g);
            top--;
            continue;
        }
        if (top + 2 > cap) { /* the old block is freed with the context */
            BDD *bigger = sa__alloc_raw(c, 2 * cap * sizeof *bigger);
            memcpy(bigger, st, top * sizeof *st);
            st = bigger;
            cap *= 2;
        }
        if (!hi_known)
            st[top++] = bdd_high(g);
        if (!lo_known)
            st[top++] = bdd_low(g); /* on top: done first */
    }
    known = best_find(b, f);
    MDAE_ASSERT(known != NULL);
    return known;
}

static BDD *best_node(sa_ctx *c, best_ctx *b, BDD f)
{
    if (f < 2)
        return best_ent(b, (size_t)f); /* entries 0 and 1 are the constants */
    size_t h = ((size_t)f * 2654435761u) % (b->cap - 2) + 2;
    while (b->key[h] != -1 && b->key[h] != f)
        h = h + 1 < b->cap ? h + 1 : 2;
    if (b->key[h] == f)
        return best_ent(b, h);
    /* Claim the slot before the recursion: a child probing past it would
     * otherwise take it, and this node's results would then overwrite the
     * child's F while flo/fhi (unreferenced copies of it) are still used. */
    b->key[h] = f;
    int v = bdd_var(f), lf = bdd_var2level(v), w = b->w;
    BDD flo = best_rec(c, b, bdd_low(f))[0];
    BDD fhi = best_rec(c, b, bdd_high(f))[0];
    BDD *n = best_ent(b, h);
    size_t mark = sa__mark(c);
    const BDD *vl, *vh;
    BDD sl = branch(c, b, lf, bdd_low(f), &vl);
    BDD sh = branch(c, b, lf, bdd_high(f), &vh);
    BDD x = bdd_ithvar(v);
    if (c->r->var_mode[v] >= 0) {
        sa__put(&n[0], sa__ite(x, fhi, flo));
        sa__put(&n[1], sa__ite(x, sh, sl));
        sa__vite(c, &n[2], x, vh, vl, w);
    } else {
        size_t e = (size_t)c->r->var_edge[v];
        const BDD *ce = b->cost[e];
        sa__put(&n[0], sa__or(flo, fhi));
        if (fhi == bddfalse) { /* one-hot rows make most nodes one-sided */
            sa__vcopy(&n[2], vl, w);
            sa__put(&n[1], sa__ite(x, bddfalse, sl));
        } else {
            BDD *zero = sa__slots(c, (size_t)w);
            if (ce != NULL) { /* the cost of taking the edge */
                BDD *wide = sa__slots(c, (size_t)w), *cost = sa__slots(c, (size_t)w);
                for (int k = 0; k < b->wc && k < w; k++)
                    sa__put(&wide[k], ce[k]);
                sa__vadd(c, cost, vh, wide, w);
                sa__vite(c, cost, fhi, cost, zero, w); /* 0 where no solution */
                vh = cost;
            }
            if (flo == bddfalse) {
                sa__vcopy(&n[2], vh, w);
                sa__put(&n[1], sa__ite(x, sh, bddfalse));
            } else {
                /* Low is optimal where it has a solution and high has none
                 * or is no better; high likewise. Both may be. */
                BDD lo_good = b->maximize ? sa__vgte(c, vl, vh, w) : sa__vgte(c, vh, vl, w);
                BDD hi_good = b->maximize ? sa__vgte(c, vh, vl, w) : sa__vgte(c, vl, vh, w);
                BDD pick_lo = T(sa__and(flo, T(sa__imp(fhi, lo_good))));
                BDD hi_ok = T(sa__and(fhi, T(sa__imp(flo, hi_good))));
                sa__vite(c, &n[2], pick_lo, vl, vh, w);
                sl = T(sa__and(pick_lo, sl));
                sh = T(sa__and(hi_ok, sh));
                sa__put(&n[1], sa__ite(x, sh, sl));
            }
        }
    }
    sa__release(c, mark);
    if ((++b->done & 1023) == 0)
        sa__progress(c, b->phase, b->done, b->total);
    return n;
}

void sa__best(sa_ctx *c, BDD *s, const BDD *const *cost, int wc, int w, bool maximize)
{
    size_t mark = sa__mark(c);
    best_ctx b = {cost, w, wc, maximize, NULL, NULL, 0, NULL, NULL, 0, 0};
    size_t n = (size_t)bdd_nodecount(*s) + 2;
    b.phase = maximize ? "diagnostics" : "argmax";
    b.total = n;
    b.cap = 2 * n + 3;
    b.key = sa__alloc(c, b.cap * sizeof *b.key);
    for (size_t k = 0; k < b.cap; k++)
        b.key[k] = -1;
    b.ent = sa__slots(c, b.cap * (size_t)(w + 2));
    sa__put(&best_ent(&b, 1)[0], bddtrue); /* the true leaf: solution, cost 0 */
    sa__put(&best_ent(&b, 1)[1], bddtrue);
    if (maximize) {
        int nl = bdd_varnum();
        b.ecount = sa__alloc(c, (size_t)(nl + 2) * sizeof *b.ecount);
        for (int l = 0; l < nl; l++)
            b.ecount[l + 1] = b.ecount[l] + (bdd_level2var(l) < c->r->n_bddvars &&
                                             c->r->var_edge[bdd_level2var(l)] >= 0);
        b.ecount[nl + 1] = b.ecount[nl];
    }
    const BDD *val;
    BDD top = branch(c, &b, -1, *s, &val);
    sa__put(s, top);
    sa__release(c, mark);
}

/* ---- Choice of one element per mode ----------------------------------------
 * choose(f): for each mode, the element of f (an edge set) that is
 * lexicographically smallest in the variable order, false before true.
 * At an edge node: take the low branch where it has a solution
 * (sat = exists E), else the high branch. Memoised on nodes; linear in |f|
 * recursive calls. */

typedef struct memo {
    int *key;
    BDD *val; /* slots */
    size_t cap, done, total;
} memo;

static void memo_init(sa_ctx *c, memo *mm, BDD f)
{
    size_t n = (size_t)bdd_nodecount(f) + 2, cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    mm->cap = cap;
    mm->key = sa__alloc(c, cap * sizeof *mm->key);
    for (size_t k = 0; k < cap; k++)
        mm->key[k] = -1;
    mm->val = sa__slots(c, cap);
    mm->done = 0;
    mm->total = n;
}

static BDD *memo_at(memo *mm, int f, bool *found)
{
    size_t h = ((size_t)f * 2654435761u) & (mm->cap - 1);
    while (mm->key[h] != -1 && mm->key[h] != f)
        h = (h + 1) & (mm->cap - 1);
    *found = mm->key[h] == f;
    mm->key[h] = f;
    return &mm->val[h];
}

static BDD sat_rec(sa_ctx *c, memo *mm, BDD f)
{
    if (f < 2)
        return f;
    bool found;
    BDD *slot = memo_at(mm, f, &found);
    if (found)
        return *slot;
    int v = bdd_var(f);
    BDD lo = sat_rec(c, mm, bdd_low(f));
    BDD hi = sat_rec(c, mm, bdd_high(f));
    if (c->r->var_mode[v] >= 0)
        sa__put(slot, sa__ite(bdd_ithvar(v), hi, lo));
    else
        sa__put(slot, sa__or(lo, hi));
    return *slot;
}

static BDD choose_rec(sa_ctx *c, memo *cm, memo *sm, BDD f)
{
    if (f < 2)
        return f;
    bool found;
    BDD *slot = memo_at(cm, f, &found);
    if (found)
        return *slot;
    int v = bdd_var(f);
    BDD lo = bdd_low(f), hi = bdd_high(f);
    BDD cl = choose_rec(c, cm, sm, lo);
    BDD ch = choose_rec(c, cm, sm, hi);
    size_t mark = sa__mark(c);
    if (c->r->var_mode[v] >= 0) {
        sa__put(slot, sa__ite(bdd_ithvar(v), ch, cl));
    } else {
        BDD sl = sat_rec(c, sm, lo);
        BDD x = T(sa__diff(ch, sl));
        sa__put(slot, sa__ite(bdd_ithvar(v), x, cl));
    }
    sa__release(c, mark);
    if ((++cm->done & 1023) == 0)
        sa__progress(c, "choice", cm->done, cm->total);
    return *slot;
}

BDD sa__choose(sa_ctx *c, BDD s)
{
    BDD *out = sa__slots(c, 1);
    size_t mark = sa__mark(c);
    memo cm, sm;
    memo_init(c, &cm, s);
    memo_init(c, &sm, s);
    sa__put(out, choose_rec(c, &cm, &sm, s));
    sa__release(c, mark);
    return *out;
}

/* ---- T_e for every edge in one pass ------------------------------------------
 * T_e = exists E. (T & e), for all edges at once. Why not one quantification
 * per edge: measured on the brake (N = 200, 5,000 edges) it took 8.4 s of
 * an 11 s analysis. T holds exactly one edge set per mode, so in each mode
 * exactly one path of T reaches true. Top-down, in level order, ctx(n) =
 * the modes whose path goes through n: a mode node splits ctx by its
 * literal, an edge node sends ctx to the branch that has a solution in the
 * mode (sat = exists E of the branch), and the edge is chosen in
 * ctx(n) & sat(high). */

static int cmp_level(const void *a, const void *b)
{
    int la = bdd_var2level(bdd_var(*(const BDD *)a));
    int lb = bdd_var2level(bdd_var(*(const BDD *)b));
    return (la > lb) - (la < lb);
}

/* nodes[0 .. n) (not constants) in level order, stably: a counting sort
 * by level (qsort took 86 M instructions for t's 83,000 nodes on the
 * compressible building at N = 1,000; glibc's is a merge sort, stable too,
 * so the order is the one it gave). Its counts span every level of the
 * manager, so a t small beside them (a block's, sa_blocks.c's repair) is
 * sorted by qsort, as before. */
static void sort_by_level(sa_ctx *c, BDD *nodes, size_t n)
{
    size_t levels = (size_t)bdd_varnum();
    if (n < levels / 4) {
        qsort(nodes, n, sizeof *nodes, cmp_level);
        return;
    }
    sa__amark mark = sa__alloc_mark(c);
    size_t *at = sa__alloc(c, (levels + 2) * sizeof *at);
    int *lv = sa__alloc_raw(c, (n + 1) * sizeof *lv);
    BDD *sorted = sa__alloc_raw(c, (n + 1) * sizeof *sorted);
    for (size_t k = 0; k < n; k++) {
        lv[k] = bdd_var2level(bdd_var(nodes[k]));
        at[(size_t)lv[k] + 1]++;
    }
    for (size_t l = 0; l < levels; l++)
        at[l + 1] += at[l];
    for (size_t k = 0; k < n; k++)
        sorted[at[lv[k]]++] = nodes[k];
    memcpy(nodes, sorted, n * sizeof *nodes);
    sa__alloc_release(c, mark);
}

typedef struct nodeset {
    int *key; /* node -> index into nodes, open addressing */
    uint32_t *idx;
    size_t cap;
    BDD *nodes;
    size_t n;
} nodeset;

static size_t ns_find(const nodeset *ns, BDD f)
{
    size_t h = ((size_t)f * 2654435761u) & (ns->cap - 1);
    while (ns->key[h] != -1 && ns->key[h] != f)
        h = (h + 1) & (ns->cap - 1);
    return h;
}

static void ns_collect(nodeset *ns, BDD f)
{
    if (f < 2)
        return;
    size_t h = ns_find(ns, f);
    if (ns->key[h] == f)
        return;
    ns->key[h] = f;
    ns->nodes[ns->n++] = f;
    ns_collect(ns, bdd_low(f));
    ns_collect(ns, bdd_high(f));
}

/* The contexts factored at t's dominators (issue 40). A node D of t that
 * every path from the root to n meets (sa__within_dominator: t's single
 * frontier at or above n's level) splits ctx(n) = ctx(D) & rel(n), rel(n)
 * the same top-down pass started at D from true: by induction on the
 * pass, since each step is a conjunction with ctx or a disjunction of
 * such terms, and (A & x) | (A & y) = A & (x | y). All of an edge
 * variable's nodes share one level, so one dominator, and T_e =
 * ctx(D) & OR of rel(n) & sat(high). Dominators follow one another (each
 * path meets them all, in level order): ctx(D) = ctx(D') & in(D), D' the
 * one above and in(D) what reaches D from D' (rel). Where the valid modes
 * are a chain through every room (the compressible building), every
 * ctx(n) is one, and each step on it walked the rooms above n: N^2 nodes
 * made for N^2 / 2 steps (N = 1,000: 1.3 G instructions in BuDDy's unique
 * table); rel(n) stays in n's room, and the chain is walked once per
 * dominator and per edge (N = 300: 6,600 and 6,000 conjunctions where
 * there were 25,000 steps). The pass itself never reads ctx(D) (a
 * dominator sends from true), so the chain is built after it, and only
 * when te is written exact (contexts_by_chain; edge_modes_within says why
 * the within path needs none of it). */
typedef struct dom_pass {
    nodeset ns;
    sa__within fr; /* t's frontier */
    BDD *ctx;  /* per node (ns's index): rel(n); for a dominator D, in(D)
                * during the pass, ctx(D) once contexts_by_chain ran */
    BDD *from; /* per dominator: the one above it (its parents') */
    bool chained; /* contexts_by_chain ran */
} dom_pass;

static size_t node_index(const dom_pass *p, BDD f) { return p->ns.idx[ns_find(&p->ns, f)]; }

/* Send `to` (relative to the dominator of f) down to f's child ch. */
static void send_down(dom_pass *p, BDD f, BDD ch, BDD to)
{
    if (ch < 2)
        return;
    size_t k = node_index(p, ch);
    BDD d = sa__within_dominator(&p->fr, ch);
    if (d == ch) /* a dominator: what reaches it from the one above */
        p->from[k] = sa__within_dominator(&p->fr, f);
    MDAE_ASSERT(d == ch || d == sa__within_dominator(&p->fr, f));
    sa__put(&p->ctx[k], sa__or(p->ctx[k], to));
}

/* Whether node k (ns's index, not the root) is a dominator the pass
 * reached (its slot not false); then *above is the index of the dominator
 * above it, which comes first in level order. */
static bool reached_dominator(const dom_pass *p, size_t k, size_t *above)
{
    BDD f = p->ns.nodes[k];
    if (p->ctx[k] == bddfalse || sa__within_dominator(&p->fr, f) != f)
        return false;
    *above = node_index(p, p->from[k]);
    MDAE_ASSERT(*above < k);
    return true;
}

/* ctx(D) = ctx(D') & in(D) for every dominator D the pass reached, D' the
 * one above it, in level order (D' first), over in(D) in D's slot; the
 * root's context is true. */
static void contexts_by_chain(dom_pass *p)
{
    MDAE_ASSERT(!p->chained);
    p->chained = true;
    size_t above;
    for (size_t k = 1; k < p->ns.n; k++) {
        if (!reached_dominator(p, k, &above))
            continue;
        sa__put(&p->ctx[k], sa__and(p->ctx[above], p->ctx[k]));
    }
}

/* The conditions of the within path (edge_modes_within) that do not depend
 * on the pass: c->edge_modes_within asks for it, r->te all false (nothing
 * to OR into), ok not constant. */
static bool within_wanted(const sa_ctx *c)
{
    const sa_result *r = c->r;
    if (c->edge_modes_within != r || r->ok < 2 || r->te_within || sa__edge_modes_exact)
        return false;
    for (size_t e = 0; e < r->n_edges; e++)
        if (r->te[e] != bddfalse)
            return false;
    return true;
}

/* Whether ok implies ctx(tdom[e]) for every edge with tel[e] not false,
 * with the slots holding in(D) (contexts_by_chain not run): ctx(D) is the
 * AND of in() over the dominators from the root down to D (the chain), so
 * ok => ctx(D) iff ok implies each of them; sa__within_implies answers
 * each without a node, and chain_ok[k] (k a dominator's index) memoises it
 * down the chain, in level order. A dominator the pass did not reach has
 * ctx false, which the non-constant ok does not imply. */
static bool ok_implies_contexts(sa_ctx *c, const dom_pass *p, const sa__within *wok,
                                const BDD *tel, const BDD *tdom)
{
    const sa_result *r = c->r;
    bool *chain_ok = sa__alloc(c, (p->ns.n + 1) * sizeof *chain_ok);
    if (p->ns.n > 0)
        chain_ok[0] = true; /* the root: ctx true */
    size_t above;
    for (size_t k = 1; k < p->ns.n; k++) {
        if (!reached_dominator(p, k, &above))
            continue;
        chain_ok[k] = chain_ok[above] && sa__within_implies(wok, p->ctx[k]);
    }
    for (size_t e = 0; e < r->n_edges; e++)
        if (tel[e] != bddfalse && !chain_ok[node_index(p, tdom[e])])
            return false;
    return true;
}

/* sa__edge_modes' te within r->ok, when c->edge_modes_within asks for it
 * and it can: within_wanted, and ok implies the context of every edge's
 * dominator. Then te[e] & ok = ctx(D) & tel[e] & ok = tel[e] & ok, whose
 * within form sa__within_simplify gives without the chain ctx(D) & tel[e]
 * (2 N^2 nodes on the compressible building: docs/figures.md, h-bldg16).
 * The contexts themselves are not built either (ok_implies_contexts): on
 * the building ctx(D) is ok's node at D, and each step ctx(D') & in(D)
 * walked ok down to D's room, N^2 / 2 steps (N = 1,000: 230 M
 * instructions, 69,000 conjunctions, most of sa__edge_modes). With
 * sa__edge_modes_chain (tests) the contexts are built and read as before.
 * Sets r->te_within and true; else false, nothing written to r (the
 * dominators' slots hold in(D), or ctx(D) where p->chained). */
bool sa__edge_modes_exact;
bool sa__edge_modes_chain;

static bool edge_modes_within(sa_ctx *c, dom_pass *p, const BDD *tel, const BDD *tdom)
{
    sa_result *r = c->r;
    if (!within_wanted(c))
        return false;
    sa__within wok;
    sa__within_init(c, r->ok, &wok);
    bool implied = ok_implies_contexts(c, p, &wok, tel, tdom);
    if (sa__edge_modes_chain) { /* the check before ok_implies_contexts: the same */
        contexts_by_chain(p);
        bool each = true;
        for (size_t e = 0; e < r->n_edges; e++)
            each = each && (tel[e] == bddfalse ||
                            sa__within_implies(&wok, p->ctx[node_index(p, tdom[e])]));
        MDAE_ASSERT(each == implied);
    }
    if (!implied)
        return false;
    for (size_t e = 0; e < r->n_edges; e++) {
        if (tel[e] == bddfalse)
            continue;
        size_t m2 = sa__mark(c);
        sa__put(&r->te[e], sa__within_simplify(c, &wok, tel[e]));
        sa__release(c, m2);
    }
    r->te_within = true;
    return true;
}

void sa__edge_modes(sa_ctx *c, BDD t)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    dom_pass p = {0};
    nodeset *ns = &p.ns;
    size_t n = (size_t)bdd_nodecount(t) + 1;
    ns->cap = 16;
    while (ns->cap < 2 * n)
        ns->cap *= 2;
    ns->key = sa__alloc(c, ns->cap * sizeof *ns->key);
    ns->idx = sa__alloc(c, ns->cap * sizeof *ns->idx);
    for (size_t k = 0; k < ns->cap; k++)
        ns->key[k] = -1;
    ns->nodes = sa__alloc(c, n * sizeof *ns->nodes);
    ns_collect(ns, t);
    /* Nodes only: they are reachable from t, which is referenced. */
    sort_by_level(c, ns->nodes, ns->n);
    for (size_t k = 0; k < ns->n; k++)
        ns->idx[ns_find(ns, ns->nodes[k])] = (uint32_t)k;
    sa__within_init(c, t, &p.fr);
    p.ctx = sa__slots(c, ns->n + 1);
    p.from = sa__alloc(c, (ns->n + 1) * sizeof *p.from);
    BDD *tel = sa__slots(c, r->n_edges + 1); /* OR of rel(n) & sat(high) */
    BDD *tdom = sa__alloc(c, (r->n_edges + 1) * sizeof *tdom);
    memo sm;
    memo_init(c, &sm, t);
    if (ns->n > 0)
        sa__put(&p.ctx[0], bddtrue); /* the root comes first, a dominator */
    for (size_t k = 0; k < ns->n; k++) {
        BDD f = ns->nodes[k];
        if (p.ctx[k] == bddfalse)
            continue;
        BDD d = sa__within_dominator(&p.fr, f);
        BDD here = d == f ? bddtrue : p.ctx[k];
        int v = bdd_var(f);
        BDD lo = bdd_low(f), hi = bdd_high(f);
        size_t m2 = sa__mark(c);
        BDD to_lo, to_hi;
        if (r->var_mode[v] >= 0) {
            to_lo = T(sa__diff(here, bdd_ithvar(v)));
            to_hi = T(sa__and(here, bdd_ithvar(v)));
        } else {
            to_hi = T(sa__and(here, sat_rec(c, &sm, hi)));
            to_lo = T(sa__and(here, sat_rec(c, &sm, lo)));
            size_t e = (size_t)r->var_edge[v];
            MDAE_ASSERT(tel[e] == bddfalse || tdom[e] == d);
            tdom[e] = d;
            sa__put(&tel[e], sa__or(tel[e], to_hi));
        }
        send_down(&p, f, lo, to_lo);
        send_down(&p, f, hi, to_hi);
        sa__release(c, m2);
        if ((k & 1023) == 1023)
            sa__progress(c, "choice", k, ns->n);
    }
    if (!edge_modes_within(c, &p, tel, tdom)) {
        MDAE_ASSERT(!r->te_within); /* ORed into as exact functions */
        if (!p.chained)
            contexts_by_chain(&p);
        for (size_t e = 0; e < r->n_edges; e++) {
            if (tel[e] == bddfalse)
                continue;
            size_t m2 = sa__mark(c);
            BDD g = T(sa__and(p.ctx[node_index(&p, tdom[e])], tel[e]));
            sa__put(&r->te[e], r->te[e] == bddfalse ? g : sa__or(r->te[e], g));
            sa__release(c, m2);
        }
    }
    sa__release(c, mark);
}

/* cost (n_edges vectors of w bits, stride w) minus, per row, its minimum over
 * the row's active edges, then masked by act: as in the first step of the
 * Hungarian method, every perfect matching's cost drops by the same amount
 * in a mode, so the optimal ones stay the same, and most costs become 0.
 * Returns the sum over rows of the largest cost a row can have (2^top - 1,
 * top its highest bit in use): a bound on any matching's cost. */
static unsigned long long minus_row_minimum(sa_ctx *c, BDD *cost, const BDD *act, int w)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c), uw = (size_t)w;
    BDD *acc = sa__slots(c, uw), *inf = sa__slots(c, uw);
    sa__vconst(inf, w, (unsigned)((1ull << w) - 1));
    unsigned long long bound = 0;
    for (uint32_t i = 0; i < r->n_eq; i++) {
        sa__vcopy(acc, inf, w);
        for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
            size_t m2 = sa__mark(c);
            BDD *cand = sa__slots(c, uw);
            sa__vite(c, cand, act[e], &cost[e * uw], inf, w);
            BDD g = sa__vgte(c, acc, cand, w); /* min(acc, cand) */
            sa__vite(c, acc, g, cand, acc, w);
            sa__release(c, m2);
        }
        int top = 0;
        for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
            BDD *ce = &cost[e * uw];
            sa__vsub(c, ce, ce, acc, w);
            for (int b = 0; b < w; b++) {
                sa__put(&ce[b], sa__and(ce[b], act[e]));
                if (ce[b] != bddfalse && b + 1 > top)
                    top = b + 1;
            }
        }
        bound += (1ull << top) - 1;
    }
    sa__release(c, mark);
    return bound;
}

/* The per-edge costs sa__best takes: a pointer into cost (stride w), NULL
 * where the cost is 0 in every mode. */
static const BDD **cost_table(sa_ctx *c, const BDD *cost, int w)
{
    sa_result *r = c->r;
    const BDD **t = sa__alloc(c, (r->n_edges + 1) * sizeof *t);
    for (size_t e = 0; e < r->n_edges; e++)
        for (int b = 0; b < w; b++)
            if (cost[e * (size_t)w + b] != bddfalse)
                t[e] = &cost[e * (size_t)w];
    return t;
}

/* The cold costs: deficits (slots of the context's stack; NULL: 0). */
static void cold_costs(sa_ctx *c, const sa__mats *mt, const BDD *act, const BDD ***out,
                       int *wc, int *wd)
{
    sa_result *r = c->r;
    /* Deficits (see the top of the file): column maximum minus sigma, then
     * minus the row minimum (every perfect matching also uses one edge per
     * active row), as in the first step of the Hungarian method. Both shifts
     * change every perfect matching's weight by the same amount in a mode.
     * Only the valid modes with a perfect matching matter, but the costs
     * are not masked by them (see sa__primal). */
    int ws = r->w_sigma;
    *wc = ws;
    BDD *acc = sa__slots(c, (size_t)ws);
    BDD *def = sa__slots(c, r->n_edges * (size_t)ws + 1);
    for (uint32_t j = 0; j < r->n_var; j++) {
        sa__vconst(acc, ws, 0);
        for (size_t k = mt->cfirst[j]; k < mt->cfirst[j + 1]; k++) {
            size_t e = mt->cedges[k];
            size_t m2 = sa__mark(c);
            BDD *sg = sa__slots(c, (size_t)ws);
            sa__vite(c, sg, act[e], &r->sigma[e * ws], sg, ws);
            sa__vmax(c, acc, acc, sg, ws);
            sa__release(c, m2);
        }
        for (size_t k = mt->cfirst[j]; k < mt->cfirst[j + 1]; k++) {
            size_t e = mt->cedges[k];
            sa__vsub(c, &def[e * ws], acc, &r->sigma[e * ws], ws);
        }
    }
    *wd = sa__vbits(minus_row_minimum(c, def, act, ws));
    *out = cost_table(c, def, ws);
}

/* The seeded costs (see the top of the file) of the offsets cv (stride
 * stride, wv bits, c >= 0 per equation and mode): reduced costs, then minus
 * each row's minimum as in the cold deficits (c_i plus that minimum is
 * another c >= 0, so this stays exact, and rows without offsets get the
 * cold deficits). False if they would not fit 31 bits. Widths: c + sigma
 * and d fit in wc bits and no difference can wrap (0 <= r_e <= d_j). wd
 * holds the sum over rows of each row's largest cost, a bound on the cost
 * of any matching (one edge per row), should a dynamic programme use these
 * costs. */
static bool reduced_costs(sa_ctx *c, const sa__mats *mt, const BDD *act, const BDD *cv,
                          size_t stride, int wv, const BDD ***out, int *wc_out, int *wd_out)
{
    sa_result *r = c->r;
    int ws = r->w_sigma;
    unsigned long long maxs = (1ull << ws) - 1;
    int wc = sa__vbits(((1ull << wv) - 1) + maxs);
    if (wc > 31)
        return false;
    size_t uw = (size_t)wc;
    /* term_e = c_i + sigma_e on wc bits, 0 where the edge is not active. */
    BDD *term = sa__slots(c, r->n_edges * uw + 1);
    BDD *ci = sa__slots(c, uw), *sg = sa__slots(c, uw), *zero = sa__slots(c, uw);
    for (uint32_t i = 0; i < r->n_eq; i++) {
        for (int b = 0; b < wc; b++)
            sa__put(&ci[b], b < wv ? cv[(size_t)i * stride + (size_t)b] : bddfalse);
        for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
            for (int b = 0; b < wc; b++)
                sa__put(&sg[b], b < ws ? r->sigma[e * (size_t)ws + b] : bddfalse);
            sa__vadd(c, &term[e * uw], ci, sg, wc);
            sa__vite(c, &term[e * uw], act[e], &term[e * uw], zero, wc);
        }
    }
    /* d_j, then r_e = d_j - term_e (masked). */
    BDD *acc = sa__slots(c, uw);
    BDD *red = sa__slots(c, r->n_edges * uw + 1);
    for (uint32_t j = 0; j < r->n_var; j++) {
        sa__vconst(acc, wc, 0);
        for (size_t k = mt->cfirst[j]; k < mt->cfirst[j + 1]; k++)
            sa__vmax(c, acc, acc, &term[mt->cedges[k] * uw], wc);
        for (size_t k = mt->cfirst[j]; k < mt->cfirst[j + 1]; k++) {
            size_t e = mt->cedges[k];
            sa__vsub(c, &red[e * uw], acc, &term[e * uw], wc);
            sa__vite(c, &red[e * uw], act[e], &red[e * uw], zero, wc);
        }
    }
    unsigned long long bound = minus_row_minimum(c, red, act, wc);
    *out = cost_table(c, red, wc);
    *wc_out = wc;
    *wd_out = sa__vbits(bound);
    return true;
}

/* The hint's offsets (sa_hint.c) into *hc (slots, stride *wh, *wv bits in
 * use). c fits in wh bits, the width the dual would use for this model:
 * larger hint values cannot be this model's canonical offsets and become
 * 0. The arithmetic on them uses only the bits in use (offsets are small:
 * 12-bit vectors where 2 bits hold every value made the brake's seeded
 * costs cost 10 ms instead of 3). False if there is no usable hint, and
 * inside sa_tight.c's rounds: their blocks are a tight graph's, made by
 * offsets already (seeding them again changed nothing measurable on the
 * brake's edits). */
static bool hint_offsets(sa_ctx *c, const BDD **hc, int *wh, int *wv)
{
    if (c->tight_depth > 0)
        return false;
    *hc = sa__hint_offsets(c, true, wh, wv, NULL);
    return *hc != NULL;
}

/* ---- Cheap elements -----------------------------------------------------------
 * Costs are >= 0 integers. In the modes where the optimum is k, the optimal
 * elements are the elements of X of cost <= k. So, for k = 0, 1, ...: C_k
 * is "the taken edges cost at most k in the mode" (a BDD over the edges and
 * the modes, built bottom-up in level order with one function per budget
 * left, so that each edge lands on top), X & C_k holds the optimal
 * elements of the modes where it is not empty and which no smaller k
 * settled. With seeded costs, most edges cost 0 everywhere and k stays
 * small. Why not restrict X node by node, as sa__best walks it: the costs
 * are mode functions whose variables sit among the rows, and conjoining one
 * at every node of X rebuilt the mode splits below each node; measured on
 * the building model, N = 20, seeded by its own result: 0.45 s for the
 * node walk, 0.05 s for X & C_0 (C_0 has 900 nodes, X 76,000). When C_k
 * grows past X (costs that depend on modes far from their rows), the
 * caller falls back to the dynamic programme: returns false. */

/* The largest budget tried before the dynamic programme. Measured on the
 * building (bench_edit, N = 20 and 40): an edit leaves optima of 0 or 1,
 * N + 1 needs 1; each budget costs about one X & C_k. */
#define SA_CHEAP_MAX 4

static bool cheap_part(sa_ctx *c, BDD x, const BDD *const *cost, int wc, int k, BDD *rest,
                       BDD *s)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    int limit = bdd_nodecount(x) + 1000;
    size_t nk = (size_t)k + 1;
    BDD *f = sa__slots(c, nk), *nf = sa__slots(c, nk), *eq = sa__slots(c, nk);
    for (size_t t = 0; t < nk; t++)
        sa__put(&f[t], bddtrue); /* f[t]: the edges below cost at most t */
    size_t added = 0;
    for (int l = bdd_varnum() - 1; l >= 0; l--) {
        int v = bdd_level2var(l);
        if (v >= r->n_bddvars || r->var_edge[v] < 0)
            continue;
        const BDD *ce = cost[r->var_edge[v]];
        if (ce == NULL)
            continue;
        size_t m2 = sa__mark(c);
        for (size_t u = 0; u < nk; u++) { /* eq[u]: the modes where it costs u */
            BDD g = wc < 31 && (u >> wc) != 0 ? bddfalse : bddtrue; /* too big */
            for (int b = 0; b < wc && g != bddfalse; b++)
                g = T(bdd_and(g, (u >> b) & 1u ? ce[b] : T(bdd_not(ce[b]))));
            sa__put(&eq[u], g);
        }
        for (size_t t = 0; t < nk; t++) {
            BDD take = bddfalse;
            for (size_t u = 0; u <= t; u++)
                take = T(bdd_or(take, T(bdd_and(eq[u], f[t - u]))));
            sa__put(&nf[t], bdd_ite(bdd_ithvar(v), take, f[t]));
        }
        for (size_t t = 0; t < nk; t++)
            sa__put(&f[t], nf[t]);
        sa__release(c, m2);
        if ((++added & 63) == 0) {
            if (bdd_nodecount(f[k]) > limit) {
                sa__release(c, mark);
                return false;
            }
            sa__progress(c, "argmax", (size_t)k, SA_CHEAP_MAX + 1);
        }
    }
    BDD xk = T(bdd_and(T(bdd_and(x, *rest)), f[k]));
    BDD good = T(bdd_exist(xk, sa__edgeset(c, r)));
    sa__put(s, bdd_or(*s, xk));
    sa__put(rest, bdd_apply(*rest, good, bddop_diff));
    sa__release(c, mark);
    return true;
}

/* The optimal elements of the modes of `modes` where the seeded costs'
 * minimum is 0: the perfect matchings of the edges of cost 0 (tight for the
 * dual the costs come from), built directly, without X, into *x0. */
static void zero_cost_matchings(sa_ctx *c, sa__mats *mt, const BDD *zero, BDD modes, BDD *x0)
{
    sa__put(x0, modes);
    mt->act = zero;
    sa__matchings(c, x0, true, mt, "matchings");
    mt->act = NULL;
}

/* The edges of cost 0 (zero[e], n_edges slots): active where no bit of
 * their cost is set. */
static void zero_edges(sa_ctx *c, const BDD *const *cost, int wc, BDD *zero)
{
    sa_result *r = c->r;
    for (size_t e = 0; e < r->n_edges; e++) {
        size_t mark = sa__mark(c);
        BDD some = bddfalse;
        for (int b = 0; cost[e] != NULL && b < wc; b++)
            some = T(sa__or(some, cost[e][b]));
        sa__put(&zero[e], sa__diff(r->chi_e[e], some));
        sa__release(c, mark);
    }
}

/* X, the perfect matchings within the valid modes, into *x; ok, singular. */
static void perfect_matchings(sa_ctx *c, sa__mats *mt, BDD *x)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    /* From true, then the valid modes once (matchings_from_true says why:
     * started from them, a chain through every room on the building, each
     * row rebuilt the path down to it; issue 40). The same function. */
    sa__put(x, bddtrue);
    sa__matchings(c, x, true, mt, "matchings");
    sa__put(x, sa__and(*x, r->chi_m));
    sa__reorder(c);
    BDD pm = T(bdd_exist(*x, sa__edgeset(c, r)));
    sa__put(&r->ok, pm);
    sa__put(&r->singular, bdd_apply(r->chi_m, pm, bddop_diff));
    sa__release(c, mark);
}

/* Cold: X, then its optimal elements by the dynamic programme (into *x).
 * Inside sa_tight.c's rounds the edges are a tight graph's, tight for a
 * dual feasible in every mode: each of its perfect matchings has the
 * dual's value as weight in its mode, so all of X is optimal and the
 * dynamic programme, which would keep all of it, is skipped (on the
 * building, whose optimal deficits count the open doors, its values grow
 * like N^2 nodes: issue 40). */
static void cold_primal(sa_ctx *c, sa__mats *mt, BDD *x)
{
    sa_result *r = c->r;
    const BDD **deficit = NULL;
    int wc = 0, wd = 0;
    perfect_matchings(c, mt, x);
    if (c->tight_depth > 0)
        return; /* a tight graph's: all of them are optimal (below) */
    sa__progress(c, "weights", 0, r->n_edges);
    cold_costs(c, mt, r->chi_e, &deficit, &wc, &wd);
    sa__progress(c, "argmax", 0, (size_t)wd);
    r->searched = true;
    sa__best(c, x, (const BDD *const *)deficit, wc, wd, false);
}

/* Rounds of sampled duals after the hint's own (seeded_primal). Measured
 * on the building at N = 40 (bench_edit): a guard flipped leaves a third of
 * the modes to the second, N + 1 two thirds. */
#define SEEDED_ZERO_ROUNDS 3

/* The modes the perfect matchings *x0 exist in, added to *covered and
 * removed from *rest; false if there are none. */
static bool cover(sa_ctx *c, BDD x0, BDD *covered, BDD *rest)
{
    size_t mark = sa__mark(c);
    BDD got = T(bdd_exist(x0, sa__edgeset(c, c->r)));
    sa__put(covered, sa__or(*covered, got));
    sa__put(rest, sa__diff(*rest, got));
    sa__release(c, mark);
    return got != bddfalse;
}

/* The hint's chosen matching and tight edges carried (sa__hint_matching),
 * for sa__repair; NULL tc if there are none. */
typedef struct repair_seed {
    BDD *tc, *tz;
    bool used; /* some modes were settled so */
} repair_seed;

/* The optimal elements of the modes *rest where the costs' minimum is 0
 * (cost, wc bits): first the hint's chosen matching repaired where that
 * shows their smallest one (r->te gains it there), then the perfect
 * matchings of the edges of cost 0 in the modes left, except where the
 * repair showed there are none, which join *s. The modes either settles
 * move from *rest to *covered; false if none did. */
static bool zero_round(sa_ctx *c, sa__mats *mt, repair_seed *rs, const BDD *const *cost,
                       int wc, BDD *s, BDD *covered, BDD *rest)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    BDD *zero = sa__slots(c, r->n_edges + 1), *got = sa__slots(c, 1);
    BDD *none = sa__slots(c, 1), *open = sa__slots(c, 1);
    zero_edges(c, cost, wc, zero);
    if (rs->tc != NULL) {
        sa__repair(c, rs->tc, rs->tz, zero, *rest, got, none);
        rs->used = rs->used || *got != bddfalse;
        sa__put(covered, sa__or(*covered, *got));
        sa__put(rest, sa__diff(*rest, *got));
    }
    bool more = *got != bddfalse;
    sa__put(open, sa__diff(*rest, *none)); /* where X_0 may exist */
    if (*open != bddfalse) {
        BDD *x0 = sa__slots(c, 1);
        zero_cost_matchings(c, mt, zero, *open, x0);
        sa__put(s, sa__or(*s, *x0));
        more = cover(c, *x0, covered, rest) || more;
    }
    sa__release(c, mark);
    return more;
}

/* The rounds after the hint's own cost-0 matchings (seeded_primal): while
 * modes are left (*rest), a mode sampled there gives the offsets hc shifted
 * by what the edit changed in it, whose cost-0 edges settle modes of *rest
 * (zero_round). (Never inside sa_tight.c's rounds: hint_offsets gives no
 * seed there.) Returns the rounds that covered modes. */
static int sampled_rounds(sa_ctx *c, sa__mats *mt, repair_seed *rs, const BDD *hc, int wh,
                          int wv, BDD *s, BDD *covered, BDD *rest)
{
    sa_result *r = c->r;
    uint64_t seed = 0x2545F4914F6CDD1Dull;
    int round = 0;
    int *shift = sa__alloc(c, ((size_t)r->n_eq + 1) * sizeof *shift); /* learned */
    MDAE_ASSERT(c->tight_depth == 0);
    for (; round < SEEDED_ZERO_ROUNDS && *rest != bddfalse; round++) {
        size_t mark = sa__mark(c);
        BDD *cv = NULL;
        const BDD **cost = NULL;
        int w = 0, wc = 0, wd = 0;
        bool more = sa__sampled_shift(c, &seed, *rest, hc, (size_t)wh, wv, shift, &cv, &w) &&
                    reduced_costs(c, mt, r->chi_e, cv, (size_t)w, w, &cost, &wc, &wd);
        if (more)
            more = zero_round(c, mt, rs, (const BDD *const *)cost, wc, s, covered, rest);
        sa__release(c, mark);
        if (!more)
            break;
    }
    return round;
}

/* Seeded by the offsets hc (the hint's, stride wh, wv bits in use). First
 * the edges of reduced cost 0 alone (zero_round): the hint's chosen
 * matching repaired where that shows their smallest perfect matching
 * (sa_repair.c), their perfect matchings built where it does not; where
 * they exist they are the optimal elements. In the modes they leave, a few
 * rounds do the same for the offsets of a mode sampled there and solved
 * alone, as the hint's shifted by what the edit changed in that mode
 * (sa__sampled_shift; any c >= 0 is exact, mode by mode). When that covers
 * every valid mode, X is never built and no mode is singular (an edit that
 * moves the optimum only near itself: issue 16). Else X, and the elements
 * of cost k under the hint's costs in the modes whose optimum is k, for
 * small k; only in the modes left, the dynamic programme (on the cold
 * deficits: the seeded costs are wider, which makes its values costlier).
 * Into *x: the optimal elements. */
static void seeded_primal(sa_ctx *c, sa__mats *mt, const BDD *hc, int wh, int wv, BDD *x)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    const BDD **cost = NULL;
    int wc = 0, wd = 0;
    if (!reduced_costs(c, mt, r->chi_e, hc, (size_t)wh, wv, &cost, &wc, &wd)) {
        cold_primal(c, mt, x);
        sa__release(c, mark);
        return;
    }
    repair_seed rs = {sa__slots(c, r->n_edges + 1), sa__slots(c, r->n_edges + 1), false};
    if (!sa__hint_matching(c, rs.tc, rs.tz))
        rs.tc = rs.tz = NULL;
    BDD *s = sa__slots(c, 1), *covered = sa__slots(c, 1), *rest = sa__slots(c, 1);
    sa__put(rest, r->chi_m);
    zero_round(c, mt, &rs, (const BDD *const *)cost, wc, s, covered, rest);
    int rounds = sampled_rounds(c, mt, &rs, hc, wh, wv, s, covered, rest);
    r->seeded_repaired += rs.used;
    if (*rest == bddfalse) {
        sa__put(&r->ok, r->chi_m);
        sa__put(&r->singular, bddfalse);
        sa__put(x, *s);
        r->seeded_zero++;
        r->seeded_sampled += rounds > 0;
        sa__release(c, mark);
        return;
    }
    perfect_matchings(c, mt, x);
    sa__progress(c, "argmax", 0, (size_t)wd);
    sa__put(rest, sa__diff(r->ok, *covered));
    for (int k = 1; k <= SA_CHEAP_MAX && *rest != bddfalse; k++)
        if (!cheap_part(c, *x, (const BDD *const *)cost, wc, k, rest, s))
            break;
    if (*rest != bddfalse) {
        const BDD **deficit = NULL;
        cold_costs(c, mt, r->chi_e, &deficit, &wc, &wd);
        sa__put(x, bdd_and(*x, *rest));
        r->searched = true;
        sa__best(c, x, (const BDD *const *)deficit, wc, wd, false);
        sa__put(s, bdd_or(*s, *x));
    }
    sa__put(x, *s);
    sa__release(c, mark);
}

/* ---- The primal problem ------------------------------------------------------ */

void sa__primal(sa_ctx *c)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    sa__mats mt;
    sa__mats_init(c, &mt);
    if (r->te == NULL) /* sa_blocks.c gives a block's te as slots */
        r->te = sa__alloc_keep(c, (r->n_edges + 1) * sizeof(BDD));

    if (c->opt != NULL && c->opt->singular_only) { /* sa.h: no optimum asked */
        /* Through the covering matchings only where no fallback reads the
         * nodes produced (a budget: the method could change). */
        BDD pm;
        if (!c->opt->singular_by_covering || c->budget != 0 ||
            !sa__perfect_from_covering(c, SA_GREEDY_BUDGET, &pm))
            pm = sa__matchable(c, true, true, "matchings");
        pm = T(bdd_and(pm, r->chi_m));
        sa__put(&r->ok, pm);
        sa__put(&r->singular, bdd_apply(r->chi_m, pm, bddop_diff));
        sa__release(c, mark);
        return;
    }
    /* The costs are computed over the edges' own guards, not masked by ok
     * (the valid modes with a perfect matching): they only matter on X's
     * paths, which exist only in ok, and there both agree. Masked, every
     * cost depended on ok, a function of every mode variable, so the
     * dynamic programme's values and solutions carried mode variables that
     * sit above the node being solved, and each node rebuilt its children's
     * solutions: the building, N = 50, 12.9 s -> 0.94 s, 758 -> 62 MB, the
     * same result (tests/bench/README.md, issue 16). */
    BDD *x = sa__slots(c, 1);
    const BDD *hc = NULL;
    int wh = 0, wv = 0;
    if (c->opt != NULL && c->opt->hint != NULL)
        sa__progress(c, "weights", 0, r->n_edges);
    if (hint_offsets(c, &hc, &wh, &wv))
        seeded_primal(c, &mt, hc, wh, wv, x); /* r->te may hold repaired modes */
    else
        cold_primal(c, &mt, x);
    sa__progress(c, "choice", 0, r->n_edges);
    BDD t = sa__choose(c, *x);
    sa__edge_modes(c, t);
    sa__release(c, mark);
}
