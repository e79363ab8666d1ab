/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_tight.c -- the primal problem of a union-graph block that has
 * too many modes to enumerate (issue 11), by the tight graphs of the
 * offsets of a few sampled modes, block by block.
 *
 * Why. The MSL's BatchPlant_StandardWater has a union-graph block of 742
 * equations over 48 atoms (the hydraulic network of its tanks, pipes and
 * valves). The set of its perfect matchings as one BDD blows up even in a
 * single mode (10 million nodes a third of the way, in declaration order or
 * in a greedy order of small cut width), and 2^48 modes cannot be
 * enumerated. But most of its edges are not tight: an algebraic equation
 * that reads a state whose derivative another equation reads is never
 * matched to it at the optimum. With the offsets of one mode, the union of
 * the tight edges over all modes splits into 479 blocks of at most 30
 * equations.
 *
 * Why it is exact. Take any c >= 0 per equation (here: one sampled mode's
 * canonical offsets, 0 where its equation is inactive) and, in each mode,
 * d_j = the largest c_i + sigma_ij over the active edges of column j. Then
 * d_j - c_i >= sigma_ij on every active edge: (c, d) is feasible for the
 * dual of the assignment problem, and an edge is tight where equality holds.
 * By duality, a perfect matching of a mode made of tight edges has weight
 * sum d - sum c, the dual's value, so it is of maximum weight, and then c is
 * optimal for that mode, and by complementary slackness every maximum-weight
 * perfect matching of the mode is made of tight edges. So in the modes
 * where the tight graph has a perfect matching (ok_c), the maximum-weight
 * perfect matchings are exactly the perfect matchings of the tight graph,
 * and the lexicographically smallest of them (the chosen one, sa__choose) is
 * the same. In the modes where it has none, c is not optimal, or the mode
 * is singular. The tight graph of each mode is found on BDDs (the edge
 * guards become "active and tight"), and its perfect matchings block by
 * block over its own union graph (sa__blocks_solve: the same proof as in
 * sa_blocks.c, with the tight edges as the modes' edges; all the tight
 * perfect matchings of a mode have the same weight, so the blocks' primal
 * keeps them all before choosing).
 *
 * The sampled mode is itself in ok_c (its canonical offsets are optimal),
 * so each round covers at least one more mode. Rounds go on over the modes
 * not covered yet, up to TIGHT_ROUNDS, while the sample is nonsingular and
 * the tight graph splits. If they cover every valid mode, the block is
 * nonsingular and solved; else nothing is kept and the caller runs the
 * ordinary implicit primal (measured: the ordinary primal restricted to the
 * modes left blows up where the offsets vary part by part, as on the brake,
 * whose rest after 8 rounds is a set of many cubes). Singular modes are
 * not covered: their maximum matchings are not what a tight graph gives.
 * The sample is drawn from a fixed seed: the result does not depend on it,
 * only the time does.
 */
#include "sa_int.h"
#include "sm.h"

#include <string.h>

#define T(f) sa__tmp(c, (f))

/* Rounds of sampling before giving up, and the BDD nodes all of them may
 * produce (sa__try): past either, the block goes to the implicit primal as
 * if this file did not exist, having lost little (measured: the
 * Westinghouse brake, whose offsets vary valve by valve, is never covered;
 * BatchPlant's block is in one round of 50,000 nodes). */
#define TIGHT_ROUNDS 8
#define TIGHT_BUDGET 250000

/* Before any round, TIGHT_PROBES modes are solved alone: the rounds are
 * tried only if none is singular (a singular mode is never covered) and at
 * least half of them have the first one's offsets (else its tight graph
 * covers few modes: the brake's offsets differ valve by valve, and its
 * rounds cost it more than its whole implicit primal). Forced by
 * SA_METHOD_TIGHT (tests): only the first condition. */
#define TIGHT_PROBES 16

/* A valid mode of r (r->chi_m not false) into mode, and the answer of the
 * single-mode path in it into *v (borrowed from frame). */
static void sample_mode(sa_ctx *c, sm_frame *frame, uint64_t *seed, bool *mode,
                        const sm_mode **v)
{
    const sa_result *r = c->r;
    int rc = sa_result_sample_mode(r, seed, mode);
    MDAE_ASSERT(rc == MDAE_OK);
    bool *eq_active = sa__alloc(c, (size_t)r->n_eq + 1);
    bool *var_active = sa__alloc(c, (size_t)r->n_var + 1);
    int *sigma = sa__alloc(c, (r->n_edges + 1) * sizeof *sigma);
    for (uint32_t i = 0; i < r->n_eq; i++)
        eq_active[i] = sa__eval(r, r->chi_i[i], mode);
    for (uint32_t j = 0; j < r->n_var; j++)
        var_active[j] = sa__eval(r, r->chi_j[j], mode);
    for (size_t e = 0; e < r->n_edges; e++)
        sigma[e] = !sa__eval(r, r->chi_e[e], mode)
                       ? -1
                       : (int)sa__veval(r, &r->sigma[e * (size_t)r->w_sigma], r->w_sigma, mode);
    rc = sm_frame_solve(frame, eq_active, var_active, sigma, v);
    if (rc < 0)
        sa__fail(c, rc);
}

/* tight[e] (n_edges slots) := the modes where edge e is active and
 * d_j = c_i + sigma_ij, d_j the largest c + sigma over column j's active
 * edges; c[i] >= 0 per equation. */
static void tight_edges(sa_ctx *c, const int *off, BDD *tight)
{
    const sa_result *r = c->r;
    size_t mark = sa__mark(c);
    int top = 0;
    for (uint32_t i = 0; i < r->n_eq; i++)
        top = off[i] > top ? off[i] : top;
    int w = sa__vbits((unsigned long long)top + (1ull << r->w_sigma)) + 1;
    size_t uw = (size_t)w;
    BDD *sum = sa__slots(c, r->n_edges * uw + 1); /* c_i + sigma_ij */
    BDD *ci = sa__slots(c, uw), *sg = sa__slots(c, uw);
    for (size_t e = 0; e < r->n_edges; e++) {
        sa__vconst(ci, w, (unsigned)off[r->edge_eq[e]]);
        for (int b = 0; b < w; b++)
            sa__put(&sg[b], b < r->w_sigma ? r->sigma[e * (size_t)r->w_sigma + b] : bddfalse);
        sa__vadd(c, &sum[e * uw], ci, sg, w);
    }
    size_t *first, *edges;
    sa__columns(c, &first, &edges);
    BDD *dj = sa__slots(c, uw), *cand = sa__slots(c, uw), *zero = sa__slots(c, uw);
    for (uint32_t j = 0; j < r->n_var; j++) {
        sa__vconst(dj, w, 0);
        for (size_t k = first[j]; k < first[j + 1]; k++) {
            size_t e = edges[k];
            sa__vite(c, cand, r->chi_e[e], &sum[e * uw], zero, w);
            sa__vmax(c, dj, dj, cand, w);
        }
        for (size_t k = first[j]; k < first[j + 1]; k++) {
            size_t e = edges[k], m2 = sa__mark(c);
            BDD at_top = sa__vgte(c, &sum[e * uw], dj, w);
            sa__put(&tight[e], sa__and(r->chi_e[e], at_top));
            sa__release(c, m2);
        }
    }
    sa__release(c, mark);
}

/* One round over the modes *rest of r: the tight graph of the offsets off,
 * solved by blocks. Adds the modes it covers to *ok and removes them from
 * *rest, and their chosen edges to te. False if the tight graph does not
 * split (nothing changed). */
static bool tight_round(sa_ctx *c, const int *off, BDD *rest, BDD *ok, BDD *te)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    sa__block *temps = sa__alloc_mark(c);
    BDD *tight = sa__slots(c, r->n_edges + 1);
    tight_edges(c, off, tight);
    BDD *chi_e = r->chi_e, chi_m = r->chi_m;
    r->chi_e = tight;
    r->chi_m = *rest;
    sa__bsol b;
    bool split = sa__blocks_solve(c, &b);
    r->chi_e = chi_e;
    r->chi_m = chi_m;
    if (split) {
        for (size_t e = 0; e < r->n_edges; e++) {
            size_t m2 = sa__mark(c);
            sa__put(&te[e], sa__or(te[e], T(sa__and(b.te[e], *b.ok))));
            sa__release(c, m2);
        }
        sa__put(ok, sa__or(*ok, *b.ok));
        sa__put(rest, sa__diff(*rest, *b.ok));
    }
    sa__release(c, mark);
    sa__alloc_release(c, temps);
    return split;
}

/* Whether the rounds are worth trying (TIGHT_PROBES); off gets the first
 * probe's offsets. */
static bool promising(sa_ctx *c, sm_frame *frame, uint64_t *seed, bool *mode, int *off)
{
    const sa_result *r = c->r;
    bool forced = c->opt != NULL && c->opt->method == SA_METHOD_TIGHT;
    int same = 0;
    for (int k = 0; k < TIGHT_PROBES; k++) {
        const sm_mode *v;
        sample_mode(c, frame, seed, mode, &v);
        if (v->singular)
            return false;
        bool equal = true;
        for (uint32_t i = 0; i < r->n_eq; i++) {
            int ci = v->c[i] > 0 ? v->c[i] : 0;
            equal = equal && (k == 0 || off[i] == ci);
            off[i] = k == 0 ? ci : off[i];
        }
        same += equal;
    }
    return forced || 2 * same >= TIGHT_PROBES;
}

/* The state a jump out of a round must restore (sa__try's cleanup): the
 * block's own functions, which a round replaces for its duration, the
 * options sa__blocks_solve replaces, and the frame. */
typedef struct tight_state {
    sa_ctx *c;
    sa_result *r;
    BDD *chi_e;
    BDD chi_m;
    const sa_options *opt;
    sm_frame *frame;
    bool covered;
} tight_state;

static void tight_restore(void *arg)
{
    tight_state *t = arg;
    t->c->r = t->r;
    t->c->opt = t->opt;
    t->r->chi_e = t->chi_e;
    t->r->chi_m = t->chi_m;
    t->c->tight_depth--;
    sm_frame_free(t->frame);
    t->frame = NULL;
}

/* The rounds (top of the file), under sa__try: t->covered when they cover
 * every valid mode of the block, which then has r->ok, singular and te. */
static void tight_rounds(sa_ctx *c, void *arg)
{
    tight_state *t = arg;
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    uint32_t *rank = sa__alloc(c, (r->n_edges + 1) * sizeof *rank);
    for (size_t e = 0; e < r->n_edges; e++)
        rank[e] = (uint32_t)bdd_var2level(r->edge_var[e]);
    int rc = sm_frame_new(r->n_eq, r->n_var, r->eq_first, r->edge_v, rank, &t->frame);
    if (rc < 0)
        sa__fail(c, rc);
    c->tight_depth++;
    sa__push_cleanup(c, tight_restore, t);
    BDD *rest = sa__slots(c, 1), *ok = sa__slots(c, 1), *te = sa__slots(c, r->n_edges + 1);
    sa__put(rest, r->chi_m);
    bool *mode = sa__alloc(c, (size_t)r->n_modes + 1);
    int *off = sa__alloc(c, ((size_t)r->n_eq + 1) * sizeof *off);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    bool go = promising(c, t->frame, &seed, mode, off);
    for (int round = 0; go && round < TIGHT_ROUNDS && *rest != bddfalse; round++) {
        const sm_mode *v;
        r->chi_m = *rest;
        sample_mode(c, t->frame, &seed, mode, &v);
        r->chi_m = t->chi_m;
        if (v->singular)
            break;
        for (uint32_t i = 0; i < r->n_eq; i++)
            off[i] = v->c[i] > 0 ? v->c[i] : 0;
        if (!tight_round(c, off, rest, ok, te))
            break;
        sa__progress(c, "tight", (size_t)round, TIGHT_ROUNDS);
    }
    sa__pop_cleanup(c);
    tight_restore(t);
    t->covered = *rest == bddfalse;
    if (t->covered) {
        for (size_t e = 0; e < r->n_edges; e++)
            sa__put(&r->te[e], te[e]);
        sa__put(&r->ok, *ok);
        sa__put(&r->singular, bddfalse);
    }
    sa__release(c, mark);
}

bool sa__tight_primal(sa_ctx *c)
{
    sa_result *r = c->r;
    if (r->chi_m == bddfalse || c->tight_depth > 0)
        return false;
    tight_state t = {c, r, r->chi_e, r->chi_m, c->opt, NULL, false};
    return sa__try(c, TIGHT_BUDGET, tight_rounds, &t) && t.covered;
}
