/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_compose.c -- the all-modes result of a model from the results of
 * its independent parts (sa_compose, issue 6), without solving anything
 * again.
 *
 * Why the composition equals a cold sa_analyze of the model. The parts are
 * the connected components of the all-modes incidence graph (engine/inc.h
 * says why every per-mode quantity splits over them); each was analysed as
 * a sub-model carrying all mode variables and invariants. Field by field,
 * every one of them a function of the modes only:
 *   - chi_m, chi_i, chi_j, chi_e, sigma: the model is encoded here, as
 *     sa_analyze would (same variable layout, hence the same BDDs);
 *   - ok: a mode has a perfect matching iff every part has one: the
 *     conjunction of the parts' ok; singular = chi_m & !ok;
 *   - te (the chosen MWPM): the lexicographically smallest element of a
 *     product of independent sets is the product of the parts' smallest
 *     elements, as long as each part orders its edges as the model does
 *     (rows in model order, and a part's variables keep the model's relative
 *     order: sa_encode.c); cold te is empty outside ok, hence the mask;
 *   - c, d (canonical offsets): the parts' smallest offsets, 0 outside ok
 *     (sa_dual.c); the width is the one sa__dual would choose for m;
 *   - over, under: the coarse DM sets of a singular mode are the union of
 *     the singular parts' sets (a part with a perfect matching has none).
 * The parts' functions live over their own BDD variables; they are carried
 * into the model's layout with bdd_replace on mode variables (their only
 * support). Reports and the dependency graph built from the composed result
 * are therefore those of a cold analysis, byte for byte.
 */
#include "sa_int.h"

#include <string.h>

#define T(f) sa__tmp(c, (f))

/* The parts cover m exactly: every equation and variable once, the same
 * modes, each equation's incidences in the same order on the same
 * variables. */
static int parts_cover(const mel_model *m, const sa_part *parts, size_t n_parts)
{
    uint8_t *eq_seen = mdae_calloc(m->n_equations + 1, 1);
    uint8_t *var_seen = mdae_calloc(m->n_variables + 1, 1);
    if (eq_seen == NULL || var_seen == NULL) {
        mdae_free(eq_seen);
        mdae_free(var_seen);
        return MDAE_E_NOMEM;
    }
    bool ok = true;
    size_t n_eq = 0, n_var = 0;
    for (size_t k = 0; ok && k < n_parts; k++) {
        const sa_result *pr = parts[k].res;
        if (pr == NULL || pr->n_modes != m->n_modes || (pr->n_eq && !parts[k].eq_of) ||
            (pr->n_var && !parts[k].var_of)) {
            ok = false;
            break;
        }
        for (uint32_t q = 0; ok && q < pr->n_var; q++) {
            uint32_t j = parts[k].var_of[q];
            ok = j < m->n_variables && !var_seen[j];
            if (ok)
                var_seen[j] = 1;
        }
        for (uint32_t q = 0; ok && q < pr->n_eq; q++) {
            uint32_t i = parts[k].eq_of[q];
            ok = i < m->n_equations && !eq_seen[i] &&
                 pr->eq_first[q + 1] - pr->eq_first[q] == m->equations[i].n_incs;
            for (uint32_t e = 0; ok && e < m->equations[i].n_incs; e++) {
                uint32_t pv = pr->edge_v[pr->eq_first[q] + e];
                ok = pv < pr->n_var && parts[k].var_of[pv] == m->equations[i].incs[e].var;
            }
            if (ok)
                eq_seen[i] = 1;
        }
        n_eq += pr->n_eq;
        n_var += pr->n_var;
    }
    ok = ok && n_eq == m->n_equations && n_var == m->n_variables;
    mdae_free(eq_seen);
    mdae_free(var_seen);
    return ok ? MDAE_OK : MDAE_E_INVAL;
}

/* Pairs live in the context so that a jump out of BuDDy frees them: pairs[k]
 * is part k's (NULL: none needed), and owned[0 .. n) the distinct ones,
 * which parts with the same mode variables share. */
typedef struct compose_ctx {
    bddPair **pairs;
    bddPair **owned;
    size_t n;
} compose_ctx;

static void pairs_free(compose_ctx *cc)
{
    for (size_t k = 0; k < cc->n; k++)
        bdd_freepair(cc->owned[k]);
    cc->n = 0;
}

/* The pair of a part, new (and owned) or shared with an earlier part whose
 * mode variables are the same ones: a BuDDy pair is a table over every
 * variable, and one per part, of thousands, was a third of the time of the
 * MSL's EngineV6. */
static bddPair *new_pair(sa_ctx *c, compose_ctx *cc, const int *mode_var)
{
    const sa_result *r = c->r;
    bddPair *p = bdd_newpair();
    if (p == NULL)
        sa__fail(c, MDAE_E_NOMEM);
    cc->owned[cc->n++] = p;
    for (uint32_t q = 0; q < r->n_modes; q++)
        if (mode_var[q] != r->mode_var[q] && bdd_setpair(p, mode_var[q], r->mode_var[q]) < 0)
            sa__fail(c, MDAE_E_BDD);
    return p;
}

/* Part k's mode variables onto the model's: pairs[k], NULL where they are
 * the same variables already. Parts are grouped by their mode variables in
 * an open-addressing table of part indices. */
static void make_pairs(sa_ctx *c, compose_ctx *cc, const sa_part *parts, size_t n_parts)
{
    const sa_result *r = c->r;
    size_t bytes = (size_t)r->n_modes * sizeof *r->mode_var, cap = 16;
    while (cap < 2 * n_parts)
        cap *= 2;
    size_t *first = sa__alloc(c, cap * sizeof *first); /* part + 1, 0: free */
    for (size_t k = 0; k < n_parts; k++) {
        const int *mv = parts[k].res->mode_var;
        cc->pairs[k] = NULL;
        if (bytes == 0 || memcmp(mv, r->mode_var, bytes) == 0)
            continue;
        size_t at = (size_t)mdae_hash(mv, bytes) & (cap - 1);
        while (first[at] != 0 && memcmp(parts[first[at] - 1].res->mode_var, mv, bytes) != 0)
            at = (at + 1) & (cap - 1);
        if (first[at] != 0) {
            cc->pairs[k] = cc->pairs[first[at] - 1];
            continue;
        }
        first[at] = k + 1;
        cc->pairs[k] = new_pair(c, cc, mv);
    }
}

/* *slot := f carried over by pair (NULL: the same variables), and mask. */
static void carry(sa_ctx *c, BDD *slot, BDD f, bddPair *pair, BDD mask)
{
    size_t mark = sa__mark(c);
    BDD g = pair != NULL ? T(bdd_replace(f, pair)) : f;
    sa__put(slot, bdd_and(g, mask));
    sa__release(c, mark);
}

static void compose_primal(sa_ctx *c, const compose_ctx *cc, const sa_part *parts,
                           size_t n_parts)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    BDD *ok = sa__slots(c, 1);
    sa__put(ok, r->chi_m);
    for (size_t k = 0; k < n_parts; k++)
        carry(c, ok, parts[k].res->ok, cc->pairs[k], *ok);
    sa__put(&r->ok, *ok);
    sa__put(&r->singular, bdd_apply(r->chi_m, r->ok, bddop_diff));
    r->te = sa__alloc_keep(c, (r->n_edges + 1) * sizeof(BDD));
    r->over = sa__alloc_keep(c, (r->n_eq + 1) * sizeof(BDD));
    r->under = sa__alloc_keep(c, (r->n_var + 1) * sizeof(BDD));
    for (size_t k = 0; k < n_parts; k++) {
        const sa_result *pr = parts[k].res;
        for (uint32_t q = 0; q < pr->n_eq; q++) {
            uint32_t i = parts[k].eq_of[q];
            for (size_t e = 0; e < pr->eq_first[q + 1] - pr->eq_first[q]; e++)
                carry(c, &r->te[r->eq_first[i] + e], sa__te(c, pr, pr->eq_first[q] + e),
                      cc->pairs[k], r->ok);
            carry(c, &r->over[i], pr->over[q], cc->pairs[k], r->singular);
        }
        for (uint32_t q = 0; q < pr->n_var; q++)
            carry(c, &r->under[parts[k].var_of[q]], pr->under[q], cc->pairs[k],
                  r->singular);
    }
    sa__release(c, mark);
}

/* Offsets on the width sa__dual would choose for the model (sa_dual.c). */
static void compose_dual(sa_ctx *c, const compose_ctx *cc, const sa_part *parts,
                         size_t n_parts)
{
    sa_result *r = c->r;
    sa__offsets_alloc(c);
    int w = r->w_off;
    if (r->ok == bddfalse)
        return;
    for (size_t k = 0; k < n_parts; k++) {
        const sa_result *pr = parts[k].res;
        int wp = pr->w_off < w ? pr->w_off : w;
        for (uint32_t q = 0; q < pr->n_eq; q++) { /* the part's exact bits */
            size_t mark = sa__mark(c);
            for (int b = 0; b < wp; b++)
                carry(c, &r->c[(size_t)parts[k].eq_of[q] * w + b],
                      sa__off_bit(c, pr, sa__c_row(pr, q), b), cc->pairs[k], r->ok);
            sa__release(c, mark);
        }
        for (uint32_t q = 0; q < pr->n_var; q++) {
            size_t mark = sa__mark(c);
            for (int b = 0; b < wp; b++)
                carry(c, &r->d[(size_t)parts[k].var_of[q] * w + b],
                      sa__off_bit(c, pr, sa__d_row(pr, q), b), cc->pairs[k], r->ok);
            sa__release(c, mark);
        }
        if (pr->fpi_iterations > r->fpi_iterations)
            r->fpi_iterations = pr->fpi_iterations;
    }
}

int sa_compose(const mel_model *m, const sa_part *parts, size_t n_parts, sa_result **out,
               mdae_diags *diags)
{
    if (!sa__running())
        return MDAE_E_STATE;
    if (m == NULL || out == NULL || (n_parts > 0 && parts == NULL))
        return MDAE_E_INVAL;
    int rc = parts_cover(m, parts, n_parts);
    if (rc < 0)
        return rc;
    sa_ctx *c = mdae_malloc(sizeof *c);
    compose_ctx *cc = mdae_calloc(1, sizeof *cc);
    bddPair **pairs = mdae_calloc(n_parts + 1, sizeof *pairs);
    bddPair **owned = mdae_calloc(n_parts + 1, sizeof *owned);
    if (c == NULL || cc == NULL || pairs == NULL || owned == NULL) {
        mdae_free(c);
        mdae_free(cc);
        mdae_free(pairs);
        mdae_free(owned);
        return MDAE_E_NOMEM;
    }
    cc->pairs = pairs;
    cc->owned = owned;
    sa__ctx_init(c, NULL, diags);
    c->r = mdae_calloc(1, sizeof *c->r);
    rc = MDAE_E_NOMEM;
    if (c->r == NULL)
        goto done;
    if (setjmp(c->jb)) {
        rc = c->rc;
        sa__leave(c);
        if (rc == MDAE_E_BDD_LIMIT)
            sa__node_limit_diag(c, m);
        sa_result_free(c->r);
        goto done;
    }
    sa__enter(c);
    sa__encode(c, m);
    if (sa__check_edges(c) > 0) /* the parts passed the same check */
        sa__fail(c, MDAE_E_MODEL);
    make_pairs(c, cc, parts, n_parts);
    compose_primal(c, cc, parts, n_parts);
    compose_dual(c, cc, parts, n_parts);
    sa_result *r = c->r;
    r->valid_count = sa__count_modes(c, r, r->chi_m);
    sa__count_modes_exact(c, r, r->chi_m, NULL, 0, r->valid_count, &r->valid_exact);
    for (size_t k = 0; k < n_parts; k++)
        if (parts[k].res->peak_nodes > r->peak_nodes)
            r->peak_nodes = parts[k].res->peak_nodes;
    sa__leave(c);
    *out = r;
    rc = MDAE_OK;
done:
    pairs_free(cc);
    mdae_free(pairs);
    mdae_free(owned);
    mdae_free(cc);
    mdae_free(c);
    return rc;
}
