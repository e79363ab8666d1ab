/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_within.c -- bdd_simplify(x & d, d) without building x & d
 * (issue 40). The valid modes d of a model whose invariants span every mode
 * variable (the compressible building: one per room) are a chain through
 * all of them, and so is x & d for a function x of one room's modes: a
 * conjunction that walks and copies the chain above the room, O(N) nodes
 * kept per function, N^2 for the model. Its simplification by d is local
 * again. This computes it from x and d alone, in time that follows x.
 *
 * Why it is the same function. BuDDy's simplify_rec(f, d) (bddop.c):
 * f if d = 1 or f constant; 1 if f = d; 0 if d = 0; else at v, the top
 * level of f and d, with f0, f1, d0, d1 their cofactors at v:
 *   level(f) = level(d): d0 = 0: S(f1, d1); d1 = 0: S(f0, d0);
 *                        else node(v, S(f0, d0), S(f1, d1));
 *   level(f) < level(d): node(v, S(f0, d), S(f1, d));
 *   level(f) > level(d): node(v, S(f, d0), S(f, d1)).
 * Let W(x, d) = S(x & d, d). Then W(x, 0) = 0, W(x, 1) = x, W(0, d) = 0,
 * W(1, d) = 1 (d not 0), and otherwise, v the top level of x and d:
 *   d0 = 0: W(x1, d1);  d1 = 0: W(x0, d0);  else node(v, W(x0, d0), W(x1, d1)),
 * whichever of x, d and g = x & d has v at its top (g_b = x_b & d_b). For
 * g's top at v this is S's rule for that case, the sub-results being W by
 * induction; for g independent of v (g0 = g1 = g) S gives S(g, d) by its
 * other rules: node(v, S(g, d0), S(g, d1)) with S(g, d_b) = S(x_b & d_b,
 * d_b) = W(x_b, d_b), or, when d0 = 0, g = x0 & 0 = 0 and both sides are
 * 0; and S's early answers (g = d: 1, g = 0: 0) are what the recursion
 * gives too (W(x_b, d_b) = 1 resp. 0 for every b). The rule never looks
 * at x where d is false: W(x, d) is a function of x & d.
 *
 * The walk above x. Where level(d) < level(x) the rule reads x whole, so
 * W(x, d) = W(x, p) whenever every path of d from its root that does not
 * end in 0 meets the node p at the first node at level >= L, for some
 * L <= level(x) (the frontier of d at L is {p}): each node above L gives
 * node(v, W, W) of the same value or its one non-0 child's. On the
 * building that is the chain's node where x's room begins. sa__within_init
 * finds, once for d, the deepest such p for every level, and the rule then
 * runs on x's own levels only: O(|x| times d's nodes there).
 *
 * Budgets (SA_WITHIN_MAX_*): past them, bdd_simplify(bdd_and(x, d), d).
 */
#include "sa_int.h"

#include <string.h>

#define SA_WITHIN_MAX_D ((size_t)1 << 20) /* d's nodes for the frontier */
#define SA_WITHIN_MEMO 4096               /* pairs (x, d) of one call */
#define SA_WITHIN_DEPTH 2048              /* recursion */

static int level_of(BDD f) { return f < 2 ? bdd_varnum() : bdd_var2level(bdd_var(f)); }

/* Open-addressing set of d's nodes, each with its index. */
typedef struct nodeset {
    BDD *key; /* -1: empty */
    size_t cap;
} nodeset;

static size_t ns_find(const nodeset *s, BDD f)
{
    size_t h = ((size_t)(unsigned)f * 0x9E3779B97F4A7C15ull) & (s->cap - 1);
    while (s->key[h] != -1 && s->key[h] != f)
        h = (h + 1) & (s->cap - 1);
    return h;
}

/* Insert f (once) and count an entry into it. */
static void ns_enter(nodeset *s, long *indeg, BDD *stack, size_t *top, BDD f)
{
    size_t h = ns_find(s, f);
    if (s->key[h] == -1) {
        s->key[h] = f;
        stack[(*top)++] = f;
    }
    indeg[h]++;
}

/* start[L] for every level L in [0, levels]: the deepest frontier node
 * described above for some level <= L, d itself where there is none. */
void sa__within_init(sa_ctx *c, BDD d, sa__within *out)
{
    out->d = d;
    out->start = NULL;
    if (d < 2 || (size_t)bdd_nodecount(d) > SA_WITHIN_MAX_D)
        return;
    size_t levels = (size_t)bdd_varnum(); /* the level of the constants */
    nodeset s = {NULL, 16};
    while (s.cap < 2 * (size_t)bdd_nodecount(d) + 4)
        s.cap *= 2;
    s.key = sa__alloc_raw(c, s.cap * sizeof *s.key);
    for (size_t k = 0; k < s.cap; k++)
        s.key[k] = -1;
    BDD *stack = sa__alloc_raw(c, s.cap * sizeof *stack);
    /* cross: the difference array of crossing(L), the entries (the root's
     * and the edges u -> k, k not 0) with level(u) < L <= level(k);
     * indeg: entries by node; at, count: a node and the number of them by
     * level (the constant 1 at `levels`) */
    long *cross = sa__alloc(c, (levels + 2) * sizeof *cross);
    long *indeg = sa__alloc(c, s.cap * sizeof *indeg);
    BDD *at = sa__alloc_raw(c, (levels + 1) * sizeof *at);
    int *count = sa__alloc(c, (levels + 1) * sizeof *count);
    size_t top = 0;
    cross[0]++;
    cross[level_of(d) + 1]--;
    ns_enter(&s, indeg, stack, &top, d);
    while (top > 0) {
        BDD u = stack[--top];
        int lu = level_of(u);
        at[lu] = u;
        count[lu]++;
        if (u < 2)
            continue;
        BDD kids[2] = {bdd_low(u), bdd_high(u)};
        for (int b = 0; b < 2; b++) {
            if (kids[b] == bddfalse)
                continue;
            cross[lu + 1]++;
            cross[level_of(kids[b]) + 1]--;
            ns_enter(&s, indeg, stack, &top, kids[b]);
        }
    }
    /* single[L]: an occupied level whose one node p takes every entry
     * crossing L: the frontier at L is {p} */
    bool *single = sa__alloc(c, (levels + 1) * sizeof *single);
    long crossing = 0;
    for (size_t L = 0; L <= levels; L++) {
        crossing += cross[L];
        single[L] = count[L] == 1 && crossing == indeg[ns_find(&s, at[L])];
    }
    /* the frontier at L is the one at the first occupied level >= L (no
     * node between), else the deepest single level above serves */
    int *next = sa__alloc_raw(c, (levels + 1) * sizeof *next);
    next[levels] = (int)levels;
    for (size_t L = levels; L-- > 0;)
        next[L] = count[L] > 0 ? (int)L : next[L + 1];
    out->start = sa__alloc_raw(c, (levels + 1) * sizeof *out->start);
    BDD best = d;
    for (size_t L = 0; L <= levels; L++) {
        out->start[L] = single[next[L]] ? at[next[L]] : best;
        if (single[L])
            best = at[L];
    }
}

typedef struct walk {
    BDD *key_x, *key_d, *val; /* cap entries; val: slots */
    bool *used;
    size_t cap, n; /* cap a power of two; full past cap / 2 */
    int depth;
    bool failed;
} walk;

static BDD within_rec(walk *w, BDD x, BDD d)
{
    if (x == bddfalse || d == bddfalse)
        return bddfalse;
    if (d == bddtrue)
        return x;
    if (x == bddtrue)
        return bddtrue;
    if (w->failed)
        return bddfalse;
    size_t h = ((size_t)(unsigned)x * 0x9E3779B97F4A7C15ull) ^ ((size_t)(unsigned)d * 0xC2B2AE3D27D4EB4Full);
    for (h = (h >> 32) & (w->cap - 1); w->used[h]; h = (h + 1) & (w->cap - 1))
        if (w->key_x[h] == x && w->key_d[h] == d)
            return w->val[h];
    if (2 * ++w->n > w->cap || ++w->depth > SA_WITHIN_DEPTH) {
        w->failed = true; /* the caller tries a larger memo, or falls back */
        return bddfalse;
    }
    int lx = level_of(x), ld = level_of(d), v = lx < ld ? lx : ld;
    BDD x0 = lx == v ? bdd_low(x) : x, x1 = lx == v ? bdd_high(x) : x;
    BDD d0 = ld == v ? bdd_low(d) : d, d1 = ld == v ? bdd_high(d) : d;
    /* the entry is taken first: its slot keeps the result from the
     * collections of the calls below (the sub-results are in theirs) */
    w->used[h] = true;
    w->key_x[h] = x;
    w->key_d[h] = d;
    BDD res;
    if (d0 == bddfalse)
        res = within_rec(w, x1, d1);
    else if (d1 == bddfalse)
        res = within_rec(w, x0, d0);
    else {
        BDD lo = within_rec(w, x0, d0);
        BDD hi = within_rec(w, x1, d1);
        res = lo == hi || w->failed ? lo : bdd_ite(bdd_ithvar(bdd_level2var(v)), hi, lo);
    }
    sa__put(&w->val[h], res);
    w->depth--;
    return res;
}

/* One walk with a memo of cap entries: *res in a new slot, or false. */
static bool walk_with(sa_ctx *c, BDD x, BDD d, size_t cap, BDD *res)
{
    size_t mark = sa__mark(c);
    sa__amark temps = sa__alloc_mark(c);
    walk w = {NULL, NULL, NULL, NULL, cap, 0, 0, false};
    w.key_x = sa__alloc_raw(c, cap * sizeof *w.key_x);
    w.key_d = sa__alloc_raw(c, cap * sizeof *w.key_d);
    w.used = sa__alloc(c, cap * sizeof *w.used);
    w.val = sa__slots(c, cap);
    BDD f = bdd_addref(within_rec(&w, x, d));
    sa__release(c, mark);
    sa__alloc_release(c, temps);
    if (!w.failed)
        *res = sa__tmp(c, f);
    bdd_delref(f);
    return !w.failed;
}

BDD sa__within_simplify(sa_ctx *c, const sa__within *within, BDD x)
{
    BDD d = within->d, res = bddfalse;
    if (x < 2 || d < 2)
        return x == bddfalse || d == bddfalse ? bddfalse : d == bddtrue ? x : bddtrue;
    if (within->start != NULL) {
        BDD from = within->start[level_of(x)];
        for (size_t cap = 64; cap <= SA_WITHIN_MEMO; cap *= 8)
            if (walk_with(c, x, from, cap, &res))
                return res;
    }
    return sa__tmp(c, bdd_simplify(sa__tmp(c, bdd_and(x, d)), d));
}
