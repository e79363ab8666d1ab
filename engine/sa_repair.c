/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_repair.c -- the previous version's chosen matching, repaired
 * near an edit instead of choosing again among every optimal matching
 * (issue 16, item 2).
 *
 * The seeded primal (sa_primal.c) knows a dual feasible in every valid mode
 * and its edges of cost 0, Z (zero[e]). Where some perfect matching of Z
 * exists in a mode, the optimal matchings of the mode are exactly the
 * perfect matchings of Z, and the chosen one, T*, is the lexicographically
 * smallest of them in the variable order (sa__choose). Building them all
 * (X_0) is most of an edit's cost on the building: 20 ms of 50 at N = 40.
 *
 * The hint's chosen matching T_h was the smallest of the hint's optimal
 * matchings, the perfect matchings of its tight edges Z_h. Carried by name
 * (sa__hint_matching), its edges that are in Z make T_c, a matching of each
 * mode, perfect away from the edit. Call N the edges of Z that are not
 * carried tight edges of the hint (new, or not tight before). In a mode m,
 * the symmetric difference T* ^ T_c is made of
 *  - alternating paths, from an equation T_c leaves unmatched to a variable
 *    T_c leaves unmatched (T* is perfect, T_c is not);
 *  - alternating cycles, each holding an edge of N. A cycle C without one
 *    is carried, edge for edge, to a cycle of the hint's mode alternating
 *    between T_h and Z_h; T* ^ C is a perfect matching of Z, and larger
 *    than T* (the smallest), so C's first edge in the order is in T_c; if
 *    both layouts order the carried edges alike (sa__hint_matching checks),
 *    T_h ^ C would then be an optimal matching of the hint smaller than T_h:
 *    impossible.
 * In the directed graph D_m -- an equation to a variable along an edge of Z
 * not in T_c, a variable to its equation along T_c -- the paths go from an
 * unmatched equation to an unmatched variable, and a cycle through an edge
 * (i, j) of N goes from j back to i. So every vertex where T* differs from
 * T_c is reached, in D_m, from an unmatched equation or the head of an edge
 * of N, and reaches an unmatched variable or the tail of an edge of N: two
 * searches over all modes at once, labels being mode functions (reach).
 * The region is what both reach in some mode, closed under T_c (a vertex's
 * partner in any mode joins it). Outside, T* = T_c; inside, T* is the
 * smallest perfect matching of Z within the region (the smallest of a
 * product over disjoint edges is the product of the smallest: sa_blocks.c),
 * built by sa__choice_within on the region alone. It is exact in the modes
 * where T_c matches everything outside and the region has a perfect
 * matching, which makes Z's perfect matchings exist. Where T_c matches
 * everything outside but the region has none, Z has none either (if it
 * had, T* would give the region one): the caller need not build them there.
 * Elsewhere, and everywhere when the region holds more than
 * REPAIR_MAX_SHARE % of the rows (no cheaper than building them all),
 * sa__repair says nothing.
 */
#include "sa_int.h"

#define T(f) sa__tmp(c, (f))

/* The largest region, in percent of the rows, worth repairing. */
#define REPAIR_MAX_SHARE 50

/* D_m: vertices are the equations (0 .. n_eq) then the variables; arc[e]:
 * equation to variable (an edge of Z not in T_c), back[e]: variable to
 * equation (an edge of T_c), in the modes of the functions. */
typedef struct dgraph {
    size_t *cfirst, *cedges; /* edges of each variable */
    const BDD *arc, *back;
} dgraph;

/* One step of a search: lab[to] |= lab[from] & via; queued if it grew. */
static void relax(sa_ctx *c, BDD *lab, uint32_t from, uint32_t to, BDD via, uint32_t *queue,
                  size_t *tail, size_t cap, bool *queued)
{
    if (via == bddfalse || lab[from] == bddfalse)
        return;
    size_t mark = sa__mark(c);
    BDD grown = T(sa__or(lab[to], T(sa__and(lab[from], via))));
    if (grown != lab[to]) {
        sa__put(&lab[to], grown);
        if (!queued[to]) {
            queued[to] = true;
            queue[*tail % cap] = to;
            (*tail)++;
        }
    }
    sa__release(c, mark);
}

/* Where each vertex is reached from the labels' vertices (forward) or
 * reaches them (!forward) along D_m, per mode: lab (n_eq + n_var slots)
 * grows to its least fixpoint. */
static void reach(sa_ctx *c, const dgraph *g, BDD *lab, bool forward)
{
    const sa_result *r = c->r;
    size_t nv = (size_t)r->n_eq + r->n_var;
    uint32_t *queue = sa__alloc(c, (nv + 1) * sizeof *queue);
    bool *queued = sa__alloc(c, nv + 1);
    size_t head = 0, tail = 0;
    for (size_t v = 0; v < nv; v++)
        if (lab[v] != bddfalse) {
            queued[v] = true;
            queue[tail++ % nv] = (uint32_t)v;
        }
    while (head != tail) {
        uint32_t v = queue[head++ % nv];
        queued[v] = false;
        if (v < r->n_eq) { /* an equation: its edges */
            for (size_t e = r->eq_first[v]; e < r->eq_first[v + 1]; e++) {
                uint32_t col = r->n_eq + r->edge_v[e];
                if (forward)
                    relax(c, lab, v, col, g->arc[e], queue, &tail, nv, queued);
                else
                    relax(c, lab, v, col, g->back[e], queue, &tail, nv, queued);
            }
        } else { /* a variable: its column */
            uint32_t j = v - r->n_eq;
            for (size_t k = g->cfirst[j]; k < g->cfirst[j + 1]; k++) {
                size_t e = g->cedges[k];
                if (forward)
                    relax(c, lab, v, r->edge_eq[e], g->back[e], queue, &tail, nv, queued);
                else
                    relax(c, lab, v, r->edge_eq[e], g->arc[e], queue, &tail, nv, queued);
            }
        }
        if ((head & 1023) == 0)
            sa__progress(c, "repair", head, nv);
    }
}

/* in[v] for the vertices both searches reach in some valid mode, then
 * closed under T_c (any mode); returns the equations in it. */
static uint32_t region(sa_ctx *c, const dgraph *g, const BDD *fwd, const BDD *bwd, bool *in)
{
    const sa_result *r = c->r;
    size_t nv = (size_t)r->n_eq + r->n_var;
    uint32_t *stack = sa__alloc(c, (nv + 1) * sizeof *stack);
    size_t top = 0;
    for (size_t v = 0; v < nv; v++)
        if (fwd[v] != bddfalse && bwd[v] != bddfalse && sa__and(fwd[v], bwd[v]) != bddfalse) {
            in[v] = true;
            stack[top++] = (uint32_t)v;
        }
    while (top > 0) {
        uint32_t v = stack[--top];
        if (v < r->n_eq) {
            for (size_t e = r->eq_first[v]; e < r->eq_first[v + 1]; e++) {
                uint32_t col = r->n_eq + r->edge_v[e];
                if (g->back[e] != bddfalse && !in[col]) {
                    in[col] = true;
                    stack[top++] = col;
                }
            }
        } else {
            uint32_t j = v - r->n_eq;
            for (size_t k = g->cfirst[j]; k < g->cfirst[j + 1]; k++) {
                size_t e = g->cedges[k];
                if (g->back[e] != bddfalse && !in[r->edge_eq[e]]) {
                    in[r->edge_eq[e]] = true;
                    stack[top++] = r->edge_eq[e];
                }
            }
        }
    }
    uint32_t rows = 0;
    for (uint32_t i = 0; i < r->n_eq; i++)
        rows += in[i];
    return rows;
}

/* The modes of `modes` where every vertex outside the region that is
 * active is matched by T_c (matched: n_eq + n_var functions), into *good. */
static void outside_matched(sa_ctx *c, const bool *in, const BDD *matched, BDD modes, BDD *good)
{
    const sa_result *r = c->r;
    sa__put(good, modes);
    for (uint32_t v = 0; v < r->n_eq + r->n_var && *good != bddfalse; v++) {
        if (in[v])
            continue;
        BDD act = v < r->n_eq ? r->chi_i[v] : r->chi_j[v - r->n_eq];
        size_t mark = sa__mark(c);
        sa__put(good, sa__and(*good, T(sa__imp(act, matched[v]))));
        sa__release(c, mark);
    }
}

/* The searches' starting labels: fwd from the equations T_c leaves
 * unmatched and the heads of N's edges, bwd from the variables it leaves
 * unmatched and the tails of N's edges, within `modes`; matched[v]: where
 * T_c matches v. */
static void starts(sa_ctx *c, const dgraph *g, const BDD *fresh, BDD modes, BDD *fwd, BDD *bwd,
                   BDD *matched)
{
    const sa_result *r = c->r;
    for (size_t e = 0; e < r->n_edges; e++) {
        size_t mark = sa__mark(c);
        uint32_t i = r->edge_eq[e], col = r->n_eq + r->edge_v[e];
        if (g->back[e] != bddfalse) {
            sa__put(&matched[i], sa__or(matched[i], g->back[e]));
            sa__put(&matched[col], sa__or(matched[col], g->back[e]));
        }
        if (fresh[e] != bddfalse) {
            BDD f = T(sa__and(fresh[e], modes));
            sa__put(&fwd[col], sa__or(fwd[col], f));
            sa__put(&bwd[i], sa__or(bwd[i], f));
        }
        sa__release(c, mark);
    }
    for (uint32_t v = 0; v < r->n_eq + r->n_var; v++) {
        size_t mark = sa__mark(c);
        BDD act = v < r->n_eq ? r->chi_i[v] : r->chi_j[v - r->n_eq];
        BDD lone = T(sa__diff(T(sa__and(act, modes)), matched[v]));
        BDD *lab = v < r->n_eq ? &fwd[v] : &bwd[v];
        sa__put(lab, sa__or(*lab, lone));
        sa__release(c, mark);
    }
}

/* r->te gains T_c outside the region and the region's own choice inside
 * (te_in), in the modes `covered`. */
static void write_te(sa_ctx *c, const bool *in, const BDD *back, const BDD *te_in, BDD covered)
{
    sa_result *r = c->r;
    MDAE_ASSERT(!r->te_within); /* ORed into as exact functions */
    for (size_t e = 0; e < r->n_edges; e++) {
        bool a = in[r->edge_eq[e]], b = in[r->n_eq + r->edge_v[e]];
        BDD t = a && b ? te_in[e] : !a && !b ? back[e] : bddfalse;
        if (t == bddfalse)
            continue;
        size_t mark = sa__mark(c);
        sa__put(&r->te[e], sa__or(r->te[e], T(sa__and(t, covered))));
        sa__release(c, mark);
    }
}

void sa__repair(sa_ctx *c, const BDD *tc, const BDD *tz, const BDD *zero, BDD modes,
                BDD *covered, BDD *none)
{
    sa_result *r = c->r;
    size_t ne = r->n_edges, nv = (size_t)r->n_eq + r->n_var;
    sa__put(covered, bddfalse);
    sa__put(none, bddfalse);
    if (ne == 0 || r->n_eq == 0 || modes == bddfalse)
        return;
    size_t mark = sa__mark(c);
    sa__amark temps = sa__alloc_mark(c);
    sa__progress(c, "repair", 0, nv);
    BDD *back = sa__slots(c, ne + 1), *arc = sa__slots(c, ne + 1);
    BDD *fresh = sa__slots(c, ne + 1);
    for (size_t e = 0; e < ne; e++) {
        sa__put(&back[e], sa__and(tc[e], zero[e]));
        sa__put(&arc[e], sa__diff(zero[e], back[e]));
        sa__put(&fresh[e], sa__diff(zero[e], tz[e]));
    }
    dgraph g = {NULL, NULL, arc, back};
    sa__columns(c, c->r, &g.cfirst, &g.cedges);
    BDD *fwd = sa__slots(c, nv + 1), *bwd = sa__slots(c, nv + 1);
    BDD *matched = sa__slots(c, nv + 1);
    starts(c, &g, fresh, modes, fwd, bwd, matched);
    reach(c, &g, fwd, true);
    reach(c, &g, bwd, false);
    bool *in = sa__alloc(c, nv + 1);
    uint32_t rows = region(c, &g, fwd, bwd, in);
    BDD *good = sa__slots(c, 1), *found = sa__slots(c, 1), *te_in = sa__slots(c, ne + 1);
    if ((uint64_t)rows * 100 <= (uint64_t)r->n_eq * REPAIR_MAX_SHARE)
        outside_matched(c, in, matched, modes, good);
    sa__put(found, *good);
    bool any = false;
    for (size_t v = 0; v < nv && !any; v++)
        any = in[v];
    if (any && *good != bddfalse) {
        uint32_t *list = sa__alloc(c, ((size_t)rows + 1) * sizeof *list);
        uint32_t n = 0;
        for (uint32_t i = 0; i < r->n_eq; i++)
            if (in[i])
                list[n++] = i;
        sa__choice_within(c, list, n, &in[r->n_eq], zero, *good, te_in, found);
        sa__put(found, sa__and(*found, *good));
    }
    if (*found != bddfalse)
        write_te(c, in, back, te_in, *found);
    sa__put(covered, *found);
    sa__put(none, sa__diff(*good, *found));
    sa__alloc_release(c, temps);
    sa__release(c, mark);
}
