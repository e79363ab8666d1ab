/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_dual.c -- the dual problem for all modes (RR-9322 4.5): Pryce's
 * fixpoint from c = 0, which yields the canonical (smallest) offsets,
 * computed on mode-dependent integers.
 *
 *   d_j <- max over active edges (i, j) of c_i + sigma_ij
 *   c_i <- d_j(i) - sigma_i,j(i)      (j(i): the edge T_e gives i)
 *
 * until no BDD changes (BDDs are canonical, so comparing handles suffices).
 * Only the valid nonsingular modes take part: elsewhere there is no perfect
 * matching and the iteration would not terminate; offsets are 0 there.
 * Arithmetic is modular on w_off bits, chosen so that no offset can wrap:
 * canonical offsets are at most about n * max sigma.
 */
#include "sa_int.h"

#define T(f) sa__tmp(c, (f))

void sa__dual(sa_ctx *c)
{
    sa_result *r = c->r;
    unsigned long long maxs = (1ull << r->w_sigma) - 1;
    int w = sa__vbits(((unsigned long long)r->n_eq + 2) * (maxs + 1)) + 1;
    if (w > 31)
        sa__fail(c, MDAE_E_LIMIT);
    r->w_off = w;
    r->c = sa__alloc_keep(c, ((size_t)r->n_eq * w + 1) * sizeof(BDD));
    r->d = sa__alloc_keep(c, ((size_t)r->n_var * w + 1) * sizeof(BDD));
    if (r->ok == bddfalse)
        return;
    size_t mark = sa__mark(c);
    sa__mats mt;
    sa__mats_init(c, &mt);
    /* sigma on w bits, and the mask "active edge in an analysed mode". */
    BDD *sig = sa__slots(c, r->n_edges * (size_t)w + 1);
    BDD *act = sa__slots(c, r->n_edges + 1);
    for (size_t e = 0; e < r->n_edges; e++) {
        for (int b = 0; b < r->w_sigma; b++)
            sa__put(&sig[e * w + b], r->sigma[e * r->w_sigma + b]);
        sa__put(&act[e], bdd_and(r->chi_e[e], r->ok));
    }
    BDD *acc = sa__slots(c, (size_t)w);
    BDD *term = sa__slots(c, (size_t)w);
    BDD *zero = sa__slots(c, (size_t)w);
    size_t bound = (size_t)r->n_eq + r->n_var + 3;
    for (size_t it = 0;; it++) {
        if (it > bound) {
            mdae_diags_add(c->diags, MDAE_SEV_ERROR, (mdae_range){{0, 0, 0}, {0, 0, 0}},
                           "internal error: the offsets did not converge");
            sa__fail(c, MDAE_E_BDD);
        }
        r->fpi_iterations = (int)it + 1;
        for (uint32_t j = 0; j < r->n_var; j++) {
            sa__vconst(acc, w, 0);
            for (size_t k = mt.cfirst[j]; k < mt.cfirst[j + 1]; k++) {
                size_t e = mt.cedges[k];
                sa__vadd(c, term, &r->c[(size_t)r->edge_eq[e] * w], &sig[e * w], w);
                sa__vite(c, term, act[e], term, zero, w);
                sa__vmax(c, acc, acc, term, w);
            }
            sa__vcopy(&r->d[(size_t)j * w], acc, w);
        }
        bool changed = false;
        for (uint32_t i = 0; i < r->n_eq; i++) {
            sa__vconst(acc, w, 0);
            for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
                if (r->te[e] == bddfalse)
                    continue;
                sa__vsub(c, term, &r->d[(size_t)r->edge_v[e] * w], &sig[e * w], w);
                sa__vite(c, acc, r->te[e], term, acc, w);
            }
            BDD *ci = &r->c[(size_t)i * w];
            if (!sa__vsame(ci, acc, w)) {
                changed = true;
                sa__vcopy(ci, acc, w);
            }
        }
        sa__progress(c, "offsets", it, bound);
        if (!changed)
            break;
    }
    sa__release(c, mark);
}
