/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_within.c -- bdd_simplify(x & d, d) without building x & d
 * (issue 40). The valid modes d of a model whose invariants span every mode
 * variable (the compressible building: one per room) are a chain through
 * all of them, and so is x & d for a function x of one room's modes: a
 * conjunction that walks and copies the chain above the room, O(N) nodes
 * kept per function, N^2 for the model. Its simplification by d is local
 * again. This computes it in time that follows x.
 *
 * Why it is the same function. BuDDy's simplify_rec(f, d) (bddop.c, its
 * Coudert-Madre restrict): f if d = 1 or f is constant; 1 if f = d; 0 if
 * d = 0; else, v the top level of f and d, f0, f1, d0, d1 the cofactors:
 *   level(f) = level(d): d0 = 0: S(f1, d1); d1 = 0: S(f0, d0);
 *                        else node(v, S(f0, d0), S(f1, d1));
 *   level(f) < level(d): node(v, S(f0, d), S(f1, d));
 *   level(f) > level(d): S(f, d0 | d1).
 * The frontier of d at level L: the first nodes at levels >= L (the
 * constant 1 included) on d's paths that do not end in 0. When it is one
 * node p, d = C & p with C a function of the variables above L, not 0.
 * Lemma: for x a function of the variables at L and below,
 * S(x & C & p, C & p) = S(x & p, p). By induction on C: C = 1 is the
 * claim. Else let v be C's top; y = x & p is a function below L. If y = 0
 * both sides are 0. If y = p, x & d = d and both sides are 1. Else
 * f = C & y has its top at v, as d has (C0 & y = C1 & y would need
 * C0 = C1, y being satisfiable by the variables below L alone), and the
 * rule for equal levels applies: d0 = C0 & p is 0 exactly when C0 is, so
 * the result is S(C1 & y, C1 & p), or S(C0 & y, C0 & p), or node(v, the
 * two), each S(y, p) by induction, and node(v, a, a) = a.
 *
 * So for x whose top level is L, x & d and its simplification are taken
 * with the node p of the deepest single frontier at a level <= L: x & p
 * walks x and p's nodes in x's levels (below them x is a constant, and
 * p's node is the result), and the restrict meets the same node in both
 * operands there (f = d: 1). sa__within_init finds those p for every level
 * in one pass over d. On the building p is the chain's node where x's
 * room begins. Also x & d = C & (x & p) is empty exactly when x & p is,
 * and then the simplification is 0 (restrict agrees with f on d).
 */
#include "sa_int.h"

#include <string.h>

#define SA_WITHIN_MAX_D ((size_t)1 << 20) /* d's nodes for the frontier */

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
    BDD *start = sa__alloc_raw(c, (levels + 1) * sizeof *start);
    sa__amark temps = sa__alloc_mark(c); /* the rest is freed on return */
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
    BDD best = d;
    for (size_t L = 0; L <= levels; L++) {
        start[L] = single[next[L]] ? at[next[L]] : best;
        if (single[L])
            best = at[L];
    }
    sa__alloc_release(c, temps);
    out->start = start;
}

static BDD frontier_for(const sa__within *w, BDD x);

BDD sa__within_simplify(sa_ctx *c, const sa__within *within, BDD x)
{
    BDD d = frontier_for(within, x); /* the lemma (above) */
    if (x == bddfalse || d == bddfalse)
        return bddfalse;
    return sa__tmp(c, bdd_simplify(sa__tmp(c, bdd_and(x, d)), d));
}

/* The frontier node for x: p with d = C & p, C above x's top level. */
static BDD frontier_for(const sa__within *w, BDD x)
{
    return x >= 2 && w->start != NULL ? w->start[level_of(x)] : w->d;
}

BDD sa__within_dominator(const sa__within *w, BDD x)
{
    /* The frontier at x's level is {p} (sa__within_init): a path through
     * x crosses that level at p first. */
    return frontier_for(w, x);
}

bool sa__within_empty(const sa__within *w, BDD x)
{
    /* x & d = C & (x & p), C not 0 over other variables */
    return sa__and(x, frontier_for(w, x)) == bddfalse;
}

bool sa__within_implies(const sa__within *w, BDD f)
{
    /* d => f iff p => f: d = C & p, C not 0 over variables f does not read */
    return sa__imp(frontier_for(w, f), f) == bddtrue;
}
