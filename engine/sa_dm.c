/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_dm.c -- diagnostics of the singular modes: the coarse
 * Dulmage-Mendelsohn decomposition of every singular mode at once.
 *
 * An equation is overdetermined in a mode iff some maximum-cardinality
 * matching of that mode's graph leaves it unmatched; a variable is
 * underdetermined likewise. So: the matchings (at most one edge per active
 * equation / variable, along active edges) restricted to the singular modes,
 * the ones of maximum cardinality (sa__best with a cost of 1 per edge, the
 * dynamic programme of the primal problem), then, per item, the modes where some
 * remaining matching leaves it unmatched. Skipped when no valid mode is
 * singular (the common case), so it costs nothing on nonsingular models.
 */
#include "sa_int.h"

#define T(f) sa__tmp(c, (f))

void sa__max_matchings(sa_ctx *c, BDD *y, sa__mats *mt)
{
    const sa_result *r = c->r;
    sa__mats_init(c, mt);
    sa__matchings(c, y, false, mt, "diagnostics");
    /* Maximum cardinality: every edge costs 1, maximised. */
    BDD *one = sa__slots(c, 1);
    sa__put(one, bddtrue);
    const BDD **cost = sa__alloc(c, (r->n_edges + 1) * sizeof *cost);
    for (size_t e = 0; e < r->n_edges; e++)
        cost[e] = one;
    sa__best(c, y, (const BDD *const *)cost, 1, sa__vbits(r->n_eq), true);
}

void sa__dm(sa_ctx *c)
{
    sa_result *r = c->r;
    if (r->over != NULL) /* found by blocks (sa_blocks.c) */
        return;
    r->over = sa__alloc_keep(c, (r->n_eq + 1) * sizeof(BDD));
    r->under = sa__alloc_keep(c, (r->n_var + 1) * sizeof(BDD));
    if (r->singular == bddfalse)
        return;
    size_t mark = sa__mark(c);
    sa__progress(c, "diagnostics", 0, r->n_eq);
    BDD *y = sa__slots(c, 1);
    sa__put(y, r->singular);
    sa__mats mt;
    sa__max_matchings(c, y, &mt);
    for (uint32_t i = 0; i < r->n_eq; i++) {
        size_t m2 = sa__mark(c);
        BDD un = T(bdd_and(r->chi_i[i], mt.rnone[i]));
        sa__put(&r->over[i], bdd_appex(*y, un, bddop_and, sa__edgeset(c, r)));
        sa__release(c, m2);
    }
    for (uint32_t j = 0; j < r->n_var; j++) {
        size_t m2 = sa__mark(c);
        BDD un = T(bdd_and(r->chi_j[j], mt.cnone[j]));
        sa__put(&r->under[j], bdd_appex(*y, un, bddop_and, sa__edgeset(c, r)));
        sa__release(c, m2);
    }
    sa__release(c, mark);
}
