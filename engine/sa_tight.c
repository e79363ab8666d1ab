/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_tight.c -- the primal problem of a union-graph block that has
 * too many modes to enumerate (issue 11), and a maximum matching of each of
 * its singular modes, by the tight graphs of the offsets of a few sampled
 * modes, block by block.
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
 * Singular modes. A singular sample's maximum matching (the single-mode
 * path's) leaves delta rows U_r and delta columns U_c unmatched; its
 * overdetermined rows R reach, in that mode, delta columns fewer than they
 * are. In a mode m where the active rows of R outnumber the columns their
 * active edges reach by at least delta, Hall's theorem says every matching
 * of G(m) misses at least delta rows; if moreover U_r and U_c are active
 * and G(m) without them has a perfect matching, that matching misses
 * exactly delta rows: it is a maximum matching of G(m), and m is singular.
 * G without U_r and U_c is nonsingular in the sample, so its perfect
 * matchings in the modes where that holds are found as above, by the tight
 * graph of its own offsets in the sample (the union graph then has
 * variables active in no mode, U_c, which sa_blocks.c accepts inside these
 * rounds: each is a block of its own without equations).
 *
 * Rounds. The sampled mode is itself covered (its offsets are optimal, or
 * its certificate holds), so each round covers at least one more mode.
 * Rounds go on over the modes not covered yet, up to TIGHT_ROUNDS, while
 * they cover something. If they cover every valid mode, the result is kept:
 * ok, singular, te, and a maximum matching of each singular mode (tmax);
 * else nothing is kept and the caller goes on as before (measured: the
 * ordinary primal restricted to the modes left blows up where the offsets
 * vary part by part, as on the brake, whose rest after 8 rounds is a set of
 * many cubes). sa_blocks.c calls this for a block with too many modes to
 * enumerate, and for the whole when the singular modes' diagnostics cannot
 * be found from the blocks' own maximum matchings (tmax is then a maximum
 * matching of the whole). The samples are drawn from a fixed seed: the
 * result does not depend on them, only the time does.
 */
#include "sa_int.h"
#include "sm.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define T(f) sa__tmp(c, (f))

/* Rounds of sampling before giving up, and the BDD nodes all of them may
 * produce (sa__try): past either, the caller goes on as if this file did
 * not exist, having lost little. Measured on BatchPlant_StandardWater: its
 * block in two rounds (nonsingular, singular) of 5,000 and 20,000 nodes;
 * the whole model analysed as one result (tests/engine/test_mo_msl.c) in
 * four rounds of 700,000 nodes in all. */
#define TIGHT_ROUNDS 8
#define TIGHT_BUDGET 2000000

/* Before any round, TIGHT_PROBES modes are solved alone: the rounds are
 * tried only if at least half of them are nonsingular with the first
 * nonsingular one's offsets (else its tight graph covers few modes: the
 * brake's offsets differ valve by valve, and its rounds cost it more than
 * its whole implicit primal). Not asked under SA_METHOD_TIGHT (tests). */
#define TIGHT_PROBES 16

/* A tight graph's blocks must have at most this many equations (or the
 * model's eighth, if more) for a seeded or learned round to go on: the
 * largest measured that paid, the brake's, have 9; the building's union
 * of tight edges is one block of nearly every equation, whose matchings
 * cost a third of a cold analysis and cover only part of the modes. */
#define SEEDED_BLOCK_ROWS 64

/* The literal roots of one array of mode functions (chi_i, chi_j, chi_e
 * or sigma's bits), read once for the probes of a block: position pos
 * held the node root, whose variable is mode variable k (-1: none, read as
 * false, as sa__eval does) and whose children are the constants lo and
 * hi. In increasing pos. A probe evaluates ~50,000 such roots of 910,000
 * functions at N = 10,000 (the rest are constants), each a read of a node
 * scattered in a table of 40 MB and more: a cache miss each, per probe
 * (issue 40: bdd_var 20 times its time at N = 1,000). */
typedef struct lit_entry {
    uint32_t pos;
    BDD root;
    int32_t k;
    bool lo, hi;
} lit_entry;

typedef struct lit_list {
    lit_entry *e;
    size_t n, cap;
} lit_list;

enum { LIT_I, LIT_J, LIT_E, LIT_SIGMA, LIT_ARRAYS };

/* A sampled mode: what is active in it and the edges' orders (-1:
 * inactive), as the single-mode path takes them (made by the first
 * solve_probe), and the seeded rounds' repair from the hint (sa_probe.c;
 * NULL: none). lits: the literal roots of lit_r's arrays (lit_of) as read
 * in node epoch lit_epoch (sa__node_epoch), for later probes. */
typedef struct probe {
    bool *mode, *eq_active, *var_active;
    int *sigma;
    sa__warm *warm;
    lit_list lits[LIT_ARRAYS];
    const BDD *lit_of[LIT_ARRAYS];
    const sa_result *lit_r;
    unsigned long lit_epoch;
} probe;

static void probe_init(sa_ctx *c, probe *p)
{
    *p = (probe){.mode = sa__alloc(c, (size_t)c->r->n_modes + 1)};
}

static void lit_push(sa_ctx *c, lit_list *l, lit_entry x)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 1024;
        lit_entry *e = sa__alloc_raw(c, cap * sizeof *e);
        if (l->n)
            memcpy(e, l->e, l->n * sizeof *e);
        l->e = e;
        l->cap = cap;
    }
    l->e[l->n++] = x;
}

/* The literal roots of f[0 .. n) into l (emptied first). */
static void lits_read(sa_ctx *c, const BDD *f, size_t n, lit_list *l)
{
    const sa_result *r = c->r;
    l->n = 0;
    MDAE_ASSERT(n <= UINT32_MAX);
    for (size_t q = 0; q < n; q++) {
        if (f[q] < 2)
            continue;
        BDD lo = bdd_low(f[q]), hi = bdd_high(f[q]);
        if (lo >= 2 || hi >= 2)
            continue; /* not a literal: sa__eval reads it */
        int v = bdd_var(f[q]);
        int k = (v >= 0 && v < r->n_bddvars) ? r->var_mode[v] : -1;
        lit_push(c, l, (lit_entry){(uint32_t)q, f[q], k, lo == bddtrue, hi == bddtrue});
    }
}

/* p's literal roots of c->r's arrays, read again unless they were read
 * from the same arrays in the current node epoch. */
static void lits_update(sa_ctx *c, probe *p)
{
    const sa_result *r = c->r;
    const BDD *of[LIT_ARRAYS] = {r->chi_i, r->chi_j, r->chi_e, r->sigma};
    size_t n[LIT_ARRAYS] = {r->n_eq, r->n_var, r->n_edges, r->n_edges * (size_t)r->w_sigma};
    if (sa__probe_lits_off) { /* tests: every function by sa__eval */
        for (int a = 0; a < LIT_ARRAYS; a++)
            p->lits[a].n = 0;
        p->lit_r = NULL;
        return;
    }
    bool same = p->lit_r == r && p->lit_epoch == sa__node_epoch();
    for (int a = 0; a < LIT_ARRAYS; a++)
        same = same && p->lit_of[a] == of[a];
    if (same)
        return;
    for (int a = 0; a < LIT_ARRAYS; a++) {
        lits_read(c, of[a], n[a], &p->lits[a]);
        p->lit_of[a] = of[a];
    }
    p->lit_r = r;
    p->lit_epoch = sa__node_epoch(); /* lits_read makes no node */
}

bool sa__probe_lits_off;
bool sa__probe_lits_check;
size_t sa__probe_lits_hits;

/* sa__eval(r, f, mode) where f is position pos of the array of l: from l
 * when it holds pos with the root f (the same node: same epoch, see
 * lits_update), else by sa__eval. *q: a cursor into l, for positions
 * asked in increasing order. */
static bool lit_eval(const sa_result *r, const lit_list *l, size_t *q, size_t pos, BDD f,
                     const bool *mode)
{
    if (f < 2)
        return f == bddtrue;
    while (*q < l->n && l->e[*q].pos < pos)
        (*q)++;
    if (*q < l->n && l->e[*q].pos == pos && l->e[*q].root == f) {
        const lit_entry *x = &l->e[*q];
        bool val = x->k >= 0 && mode[x->k] ? x->hi : x->lo;
        sa__probe_lits_hits++;
        MDAE_ASSERT(!sa__probe_lits_check || val == sa__eval(r, f, mode));
        return val;
    }
    return sa__eval(r, f, mode);
}

/* The answer of the single-mode path in the mode p->mode into *v (borrowed
 * from frame): its offsets, or its DM parts when singular. Every caller
 * reads those only, so the lexicographic choice is not made
 * (sm_frame_offsets). */
static void solve_probe(sa_ctx *c, sm_frame *frame, probe *p, const sm_mode **v)
{
    const sa_result *r = c->r;
    if (p->sigma == NULL) {
        p->eq_active = sa__alloc(c, (size_t)r->n_eq + 1);
        p->var_active = sa__alloc(c, (size_t)r->n_var + 1);
        p->sigma = sa__alloc(c, (r->n_edges + 1) * sizeof *p->sigma);
    }
    bool *mode = p->mode, *eq_active = p->eq_active, *var_active = p->var_active;
    int *sigma = p->sigma;
    lits_update(c, p);
    size_t qi = 0, qj = 0, qe = 0, qs = 0;
    for (uint32_t i = 0; i < r->n_eq; i++)
        eq_active[i] = lit_eval(r, &p->lits[LIT_I], &qi, i, r->chi_i[i], mode);
    for (uint32_t j = 0; j < r->n_var; j++)
        var_active[j] = lit_eval(r, &p->lits[LIT_J], &qj, j, r->chi_j[j], mode);
    const size_t w = (size_t)r->w_sigma;
    for (size_t e = 0; e < r->n_edges; e++) {
        sigma[e] = -1;
        if (!lit_eval(r, &p->lits[LIT_E], &qe, e, r->chi_e[e], mode))
            continue;
        unsigned val = 0; /* sa__veval of the edge's bits */
        for (size_t b = 0; b < w; b++)
            val |= (unsigned)lit_eval(r, &p->lits[LIT_SIGMA], &qs, e * w + b, r->sigma[e * w + b], mode)
                 << b;
        sigma[e] = (int)val;
    }
    /* the probe's setup (the evaluation above; a first probe's frame and
     * samples before it) is a stretch of its own: 10 to 80 ms at
     * N = 10,000 */
    sa__poll_cancel(c);
    int rc = sm_frame_offsets(frame, eq_active, var_active, sigma, v);
    if (rc < 0)
        sa__fail(c, rc);
    /* a probe solves a whole component: the brake's at N = 10,000 ran
     * 0.2-0.8 s of them between two checkpoints, which an editor's cancel
     * of the mode-change check waited out before the next edit's check */
    sa__poll_cancel(c);
}

/* A valid mode of r (r->chi_m not false) into p, and its answer as above. */
static void sample_mode(sa_ctx *c, sm_frame *frame, uint64_t *seed, probe *p,
                        const sm_mode **v)
{
    int rc = sa_result_sample_mode(c->r, seed, p->mode);
    MDAE_ASSERT(rc == MDAE_OK);
    solve_probe(c, frame, p, v);
}

/* The value of the wv bits at ci wherever act holds, when it is one
 * integer there (act neither true nor false): true and *v. By the
 * generalized cofactor, ci[b] constrained to act, which is a constant
 * exactly when ci[b] is one within act. */
static bool value_where(BDD act, const BDD *ci, int wv, unsigned long long *v)
{
    if (act == bddtrue || act == bddfalse)
        return false;
    unsigned long long x = 0;
    for (int b = 0; b < wv; b++) {
        BDD f = ci[b] < 2 ? ci[b] : bdd_constrain(ci[b], act);
        if (f >= 2)
            return false;
        x |= (unsigned long long)(f == bddtrue) << b;
    }
    *v = x;
    return true;
}

/* c_i + sigma_e for edge e, c_i the wv bits at ci: as an integer when both
 * are constants (w bits hold it), else -1 and the vector into sum (w
 * slots). The caller reads the sum only where e is active (chi_E): c_i
 * counts as a constant when it is one there, and the tight edges are the
 * same. A canonical c_i is 0 where its row is inactive: the brake's valve
 * rows' offsets are k where open[i], 0 elsewhere, and sent every
 * railcar's column to the vector arithmetic when an edit was seeded by a
 * result without tight_memo (an editor's previous edit, whose graph was
 * never built: 22,022 sa__vmax at N = 2,000, issue 40). */
static long long edge_sum(sa_ctx *c, const BDD *ci, int wv, size_t e, BDD *sum, int w)
{
    const sa_result *r = c->r;
    const BDD *sg = &r->sigma[e * (size_t)r->w_sigma];
    unsigned long long vc, vs;
    if (sa__vconst_value(sg, r->w_sigma, &vs) &&
        (sa__vconst_value(ci, wv, &vc) || value_where(r->chi_e[e], ci, wv, &vc)))
        return (long long)(vc + vs);
    size_t mark = sa__mark(c);
    BDD *a = sa__slots(c, (size_t)w), *b = sa__slots(c, (size_t)w);
    for (int k = 0; k < w; k++) {
        sa__put(&a[k], k < wv ? ci[k] : bddfalse);
        sa__put(&b[k], k < r->w_sigma ? sg[k] : bddfalse);
    }
    sa__vadd(c, sum, a, b, w);
    sa__release(c, mark);
    return -1;
}

/* tight[] of a column whose n edges (es) all have constant sums and
 * constant activity, as integers: true, else false (nothing written). */
static bool column_as_integers(const sa_result *r, const long long *isum, const size_t *es,
                               size_t n, BDD *tight)
{
    long long top = 0;
    for (size_t k = 0; k < n; k++) {
        size_t e = es[k];
        if (isum[e] < 0 || (r->chi_e[e] != bddtrue && r->chi_e[e] != bddfalse))
            return false;
        if (r->chi_e[e] == bddtrue && isum[e] > top)
            top = isum[e];
    }
    for (size_t k = 0; k < n; k++) {
        size_t e = es[k];
        sa__put(&tight[e], r->chi_e[e] == bddtrue && isum[e] >= top ? bddtrue : bddfalse);
    }
    return true;
}

/* tight[] of a column whose n edges (es) all have constant sums, whatever
 * their activity: an edge is tight where it is active and no edge of a
 * larger sum is (d_j is the largest active sum). A few conjunctions instead
 * of the vector arithmetic: the brake's valve columns, whose edges are
 * guarded. True, else false (nothing written). */
static bool column_by_activity(sa_ctx *c, const long long *isum, const size_t *es, size_t n,
                               BDD *tight)
{
    const sa_result *r = c->r;
    for (size_t k = 0; k < n; k++)
        if (isum[es[k]] < 0)
            return false;
    size_t mark = sa__mark(c);
    BDD *above = sa__slots(c, 1); /* active edges of a larger sum than the current */
    long long done = LLONG_MAX;   /* the sums handled: those above `done` */
    for (;;) {
        long long v = -1; /* the next sum down */
        for (size_t k = 0; k < n; k++)
            if (isum[es[k]] < done && isum[es[k]] > v)
                v = isum[es[k]];
        if (v < 0)
            break;
        BDD *here = sa__slots(c, 1);
        for (size_t k = 0; k < n; k++)
            if (isum[es[k]] == v) {
                size_t e = es[k];
                sa__put(&tight[e], sa__diff(r->chi_e[e], *above));
                sa__put(here, sa__or(*here, r->chi_e[e]));
            }
        sa__put(above, sa__or(*above, *here));
        done = v;
    }
    sa__release(c, mark);
    return true;
}

/* tight[e] (n_edges slots) := the modes where edge e is active and
 * d_j = c_i + sigma_ij, d_j the largest c + sigma over column j's active
 * edges. c_i >= 0 is a mode function per equation: cv[i * stride + b],
 * b < wv, little-endian (the proof at the top of the file holds mode by
 * mode, so the offsets may differ from mode to mode). Only the columns j
 * with cols[j] if cols is not NULL (the others' tight[] are left). Returns
 * how many columns took the vector arithmetic (sums not all integers). */
static uint32_t tight_edges_vec(sa_ctx *c, const BDD *cv, size_t stride, int wv,
                                const bool *cols, BDD *tight)
{
    const sa_result *r = c->r;
    size_t mark = sa__mark(c);
    sa__amark temps = sa__alloc_mark(c);
    int w = sa__vbits(((1ull << wv) - 1) + (1ull << r->w_sigma)) + 1;
    size_t uw = (size_t)w;
    /* A sum of constants is kept as an integer (isum, else -1) and made a
     * vector only for a column that needs one: the brake's offsets and
     * weights are mostly constants, and its columns mostly unguarded. The
     * vectors, c_i + sigma_ij, are the column's own (sum[k * uw] for its
     * k-th edge), not n_edges * w slots of which most columns use none. */
    long long *isum = sa__alloc_raw(c, (r->n_edges + 1) * sizeof *isum); /* a column's before it reads them */
    const size_t *first, *edges; /* the layout's, kept with it: not made per call */
    sa__layout_columns(c, r, &first, &edges);
    BDD *dj = sa__slots(c, uw), *cand = sa__slots(c, uw), *zero = sa__slots(c, uw);
    uint32_t vector_columns = 0, nv = r->n_var;
    /* cols: the few columns made again, found 8 flags at a time */
    for (uint32_t j = cols != NULL ? sa__next_flag(cols, 0, nv) : 0; j < nv;
         j = cols != NULL ? sa__next_flag(cols, j + 1, nv) : j + 1) {
        const size_t *es = &edges[first[j]];
        size_t n = first[j + 1] - first[j], m1 = sa__mark(c);
        BDD *sum = sa__slots(c, n * uw + 1);
        for (size_t k = 0; k < n; k++)
            isum[es[k]] = edge_sum(c, &cv[r->edge_eq[es[k]] * stride], wv, es[k], &sum[k * uw], w);
        if (column_as_integers(r, isum, es, n, tight) || column_by_activity(c, isum, es, n, tight)) {
            sa__release(c, m1);
            continue;
        }
        vector_columns++;
        sa__vconst(dj, w, 0);
        for (size_t k = 0; k < n; k++) {
            if (isum[es[k]] >= 0)
                sa__vconst_put(&sum[k * uw], w, (unsigned long long)isum[es[k]]);
            sa__vite(c, cand, r->chi_e[es[k]], &sum[k * uw], zero, w);
            sa__vmax(c, dj, dj, cand, w);
        }
        for (size_t k = 0; k < n; k++) {
            size_t m2 = sa__mark(c);
            BDD at_top = sa__vgte(c, &sum[k * uw], dj, w);
            sa__put(&tight[es[k]], sa__and(r->chi_e[es[k]], at_top));
            sa__release(c, m2);
        }
        sa__release(c, m1);
    }
    sa__alloc_release(c, temps);
    sa__release(c, mark);
    return vector_columns;
}

/* The same for constant offsets off[i] >= 0. */
static void tight_edges(sa_ctx *c, const int *off, BDD *tight)
{
    const sa_result *r = c->r;
    size_t mark = sa__mark(c);
    int top = 0;
    for (uint32_t i = 0; i < r->n_eq; i++)
        top = off[i] > top ? off[i] : top;
    int wv = sa__vbits((unsigned long long)top);
    BDD *cv = sa__slots(c, (size_t)r->n_eq * (size_t)wv + 1);
    for (uint32_t i = 0; i < r->n_eq; i++)
        sa__vconst(&cv[(size_t)i * (size_t)wv], wv, (unsigned)off[i]);
    tight_edges_vec(c, cv, (size_t)wv, wv, NULL, tight);
    sa__release(c, mark);
}

/* The seeded rounds' merges of round 0's chosen edges, put off to the end
 * (pay_owed). Round 0's blocks are kept for the later rounds (r0), and a
 * later round's block taken from round 0 has its very functions
 * (sa__blocks_solve), so instead of an AND and an OR per edge and round,
 * te[e] gets r0.te[e] in the modes of all those rounds at once: with no
 * BDD operation at all where they are every mode. */
typedef struct owed {
    uint8_t *mask; /* per edge: the rounds whose r0.te[e] is owed to te[e] */
    BDD *ok;       /* per round: the modes it covered (slots) */
    int round;     /* the current round */
} owed;

/* Whether the round's chosen edges of column v (in the blocks b) are owed
 * rather than merged now: all of round 0's when it is kept for later rounds
 * (defer_all), a later round's where its block is round 0's. */
static bool owe_column(const sa__bsol *b, const sa__bround *prev, bool defer_all, uint32_t v)
{
    return defer_all || (prev != NULL && b->from_prev[b->block_of_var[v]]);
}

/* One round over the modes *rest of r: the tight graph tight[e] (n_edges
 * mode functions), solved by blocks. Adds the modes it covers to *ok and
 * removes them from *rest, and their chosen edges to te (or, with owe not
 * NULL, marks in owe those of round 0's functions: see owed). False if the
 * tight graph does not split (nothing changed). prev (may be NULL): an
 * earlier round's blocks, for sa__blocks_solve. keep (may be NULL): where
 * modes are left for a later round, this round's blocks into *keep, and its
 * slots and temporaries are then not released (the caller's scope holds
 * them); else keep->te stays NULL. */
static bool tight_solve(sa_ctx *c, BDD *tight, BDD *rest, BDD *ok, BDD *te,
                        const sa__bround *prev, sa__bsol *keep, owed *owe)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    sa__amark temps = sa__alloc_mark(c);
    BDD *chi_e = r->chi_e, chi_m = r->chi_m;
    bool no_max = c->no_max;
    r->chi_e = tight;
    r->chi_m = *rest;
    c->no_max = true;
    /* How the round's blocks were solved is the round's business: the
     * result reports how its own blocks were (sa_method_info). */
    sa_result before = *r;
    sa__bsol b;
    bool split = sa__blocks_solve(c, prev, &b);
    r->enumerated_modes = before.enumerated_modes;
    r->blocks_fell_back = before.blocks_fell_back;
    r->blocks_tight = before.blocks_tight;
    r->seeded_zero = before.seeded_zero;
    r->seeded_sampled = before.seeded_sampled;
    r->seeded_repaired = before.seeded_repaired;
    r->max_by_cofactors = before.max_by_cofactors;
    c->no_max = no_max;
    r->chi_e = chi_e;
    r->chi_m = chi_m;
    if (split) {
        sa__put(rest, sa__diff(*rest, *b.ok));
        bool defer_all = keep != NULL && *rest != bddfalse; /* kept below */
        bool owing = owe != NULL && (defer_all || prev != NULL);
        if (owing)
            sa__put(&owe->ok[owe->round], *b.ok);
        for (size_t e = 0; e < r->n_edges; e++) {
            if (b.te[e] == bddfalse) /* most edges: in no matching */
                continue;
            if (owing && owe_column(&b, prev, defer_all, r->edge_v[e])) {
                owe->mask[e] |= (uint8_t)(1u << owe->round);
                continue;
            }
            if (*b.ok == bddtrue) { /* a round that covers every mode */
                sa__put(&te[e], te[e] == bddfalse ? b.te[e] : sa__or(te[e], b.te[e]));
                continue;
            }
            size_t m2 = sa__mark(c);
            sa__put(&te[e], sa__or(te[e], T(sa__and(b.te[e], *b.ok))));
            sa__release(c, m2);
        }
        sa__put(ok, sa__or(*ok, *b.ok));
        if (defer_all) { /* a later round reads it */
            *keep = b;
            return true;
        }
    }
    sa__release(c, mark);
    sa__alloc_release(c, temps);
    return split;
}

/* The same round on the tight graph of the constant offsets off. */
static bool tight_round(sa_ctx *c, const int *off, BDD *rest, BDD *ok, BDD *te)
{
    size_t mark = sa__mark(c);
    BDD *tight = sa__slots(c, c->r->n_edges + 1);
    tight_edges(c, off, tight);
    bool split = tight_solve(c, tight, rest, ok, te, NULL, NULL, NULL);
    sa__release(c, mark);
    return split;
}


/* Nonsingular sampled modes and their canonical offsets (learned_rounds):
 * at most max of them, in groups of SAMPLES_GROUP allocated as they fill
 * (the brake keeps 10-14 samples of the 256 allowed: the 256 rows, zeroed,
 * were 123 MB of the 600 MB its analysis peaked at, N = 10,000). Within a
 * group the samples of one equation (one mode variable) are side by side:
 * learned_offsets reads equation by equation, and with one row per sample
 * each equation's offsets were a cache miss per sample (the BDD work
 * between two equations evicts them): half of learned_offsets' time at
 * N = 10,000 (issue 40). Only samples [0, n) are ever read; the rest of a
 * group is not initialised. */
#define SAMPLES_GROUP 16
#define SAMPLES_MAX_GROUPS 16
typedef struct samples {
    uint32_t n, max;
    uint32_t n_groups;
    bool *modes[SAMPLES_MAX_GROUPS]; /* n_modes * SAMPLES_GROUP each */
    int *c[SAMPLES_MAX_GROUPS];      /* n_eq * SAMPLES_GROUP each, >= 0 */
    sa_ctx *ctx;                     /* whose temporary memory they are */
    const sa_result *r;              /* the block sampled (n_eq, n_modes) */
} samples;

/* Sample s's canonical offset of equation i (s < sm->n). */
static inline int sample_c(const samples *sm, uint32_t s, uint32_t i)
{
    return sm->c[s / SAMPLES_GROUP][(size_t)i * SAMPLES_GROUP + s % SAMPLES_GROUP];
}

/* Sample s's value of mode variable k (s < sm->n). */
static inline bool sample_var(const samples *sm, uint32_t s, uint32_t k)
{
    return sm->modes[s / SAMPLES_GROUP][(size_t)k * SAMPLES_GROUP + s % SAMPLES_GROUP];
}

static void samples_init(sa_ctx *c, samples *sm, uint32_t max)
{
    MDAE_ASSERT(max <= SAMPLES_GROUP * SAMPLES_MAX_GROUPS);
    sm->n = 0;
    sm->max = max;
    sm->n_groups = 0;
    sm->ctx = c;
    sm->r = c->r;
}

static void samples_add(const sa_result *r, samples *sm, const bool *mode, const sm_mode *v)
{
    if (sm == NULL || sm->n == sm->max || v->singular)
        return;
    MDAE_ASSERT(r->n_eq == sm->r->n_eq && r->n_modes == sm->r->n_modes);
    uint32_t g = sm->n / SAMPLES_GROUP, at = sm->n % SAMPLES_GROUP;
    if (g == sm->n_groups) { /* not zeroed: see above */
        MDAE_ASSERT(at == 0 && g < SAMPLES_MAX_GROUPS);
        sm->modes[g] = sa__alloc_raw(sm->ctx, (size_t)r->n_modes * SAMPLES_GROUP + 1);
        sm->c[g] = sa__alloc_raw(sm->ctx, ((size_t)r->n_eq * SAMPLES_GROUP + 1) * sizeof **sm->c);
        sm->n_groups++;
    }
    bool *modes = sm->modes[g] + at;
    for (uint32_t k = 0; k < r->n_modes; k++)
        modes[(size_t)k * SAMPLES_GROUP] = mode[k];
    int *cs = sm->c[g] + at;
    for (uint32_t i = 0; i < r->n_eq; i++)
        cs[(size_t)i * SAMPLES_GROUP] = v->c[i] > 0 ? v->c[i] : 0;
    sm->n++;
}

/* Whether the rounds of constant offsets are worth trying (TIGHT_PROBES,
 * or forced); *agree: half the probes had the first one's offsets, which
 * off gets. The nonsingular probes go to sm. */
static bool promising(sa_ctx *c, sm_frame *frame, uint64_t *seed, probe *p, int *off,
                      samples *sm, bool *agree)
{
    const sa_result *r = c->r;
    bool forced = c->opt != NULL && c->opt->method == SA_METHOD_TIGHT;
    int same = 0, nonsingular = 0;
    /* Stop as soon as half of them can no longer agree: every probe is a
     * single-mode analysis of the whole block (the brake at N = 200: 16
     * probes were 6 % of a cold analysis, and its offsets never agree). */
    for (int k = 0; k < TIGHT_PROBES; k++) {
        if (!forced && 2 * (same + TIGHT_PROBES - k) < TIGHT_PROBES)
            break;
        const sm_mode *v;
        sample_mode(c, frame, seed, p, &v);
        samples_add(r, sm, p->mode, v);
        if (v->singular)
            continue;
        bool equal = true;
        for (uint32_t i = 0; i < r->n_eq; i++) {
            int ci = v->c[i] > 0 ? v->c[i] : 0;
            equal = equal && (nonsingular == 0 || off[i] == ci);
            off[i] = nonsingular == 0 ? ci : off[i];
        }
        same += equal;
        nonsingular++;
    }
    *agree = 2 * same >= TIGHT_PROBES;
    return forced || *agree;
}

/* The state a jump out of a round must restore (sa__try's cleanup): the
 * block's own functions, which a round replaces for its duration, the
 * options sa__blocks_solve replaces, and the frame. */
typedef struct tight_state {
    sa_ctx *c;
    sa_result *r;
    BDD *chi_i, *chi_j, *chi_e;
    BDD chi_m;
    const sa_options *opt;
    sm_frame *frame;
    BDD *tmax; /* the caller's slots */
    BDD *te;   /* the block's own te while tight_whole lends it others */
    bool te_within0; /* and its te_within then */
    /* te (tight_rounds') holds the within forms of tight_whole's single
     * round, whose modes covered all of them: within *ok */
    bool te_within;
    bool covered;
    bool wide; /* some round had keys at distance two (learned_rounds) */
    sa__known *known; /* c->known before the rounds (open_rounds) */
} tight_state;

static void tight_restore(void *arg)
{
    tight_state *t = arg;
    t->c->r = t->r;
    t->c->opt = t->opt;
    t->r->chi_i = t->chi_i;
    t->r->chi_j = t->chi_j;
    t->r->chi_e = t->chi_e;
    t->r->chi_m = t->chi_m;
    if (t->te != NULL) {
        t->r->te = t->te;
        t->r->te_within = t->te_within0;
    }
    t->te = NULL;
    t->c->edge_modes_within = NULL;
    t->c->tight_depth--;
    t->c->no_max = false;
    t->c->max_block_rows = 0;
    t->c->known = t->known;
    sm_frame_free(t->frame);
    t->frame = NULL;
}

/* The single-mode path's frame over c->r: with ranked, its edges ranked by
 * level, so that its choice is the BDDs' lexicographic one; without, for
 * a frame that only ever gives offsets (sm_frame_offsets: the canonical
 * offsets do not depend on the ranks), in index order, neither ranked nor
 * sorted. The caller frees it. */
static sm_frame *new_frame(sa_ctx *c, bool ranked)
{
    const sa_result *r = c->r;
    uint32_t *rank = NULL;
    if (ranked) {
        rank = sa__alloc(c, (r->n_edges + 1) * sizeof *rank);
        for (size_t e = 0; e < r->n_edges; e++)
            rank[e] = (uint32_t)bdd_var2level(r->edge_var[e]);
    }
    sm_frame *frame = NULL;
    int rc = sm_frame_new(r->n_eq, r->n_var, r->eq_first, r->edge_v, rank, &frame);
    if (rc < 0)
        sa__fail(c, rc);
    return frame;
}

/* Before rounds: the single-mode path's frame (now, or NULL until a round
 * samples: an edit's seeded rounds often need none), and what
 * tight_restore undoes when they end, normally or by a jump. */
static void open_rounds(sa_ctx *c, tight_state *t, bool frame_now)
{
    t->frame = frame_now ? new_frame(c, true) : NULL;
    t->known = c->known;
    c->tight_depth++;
    sa__push_cleanup(c, tight_restore, t);
}

/* Add the one-bit function f to the w-bit vector acc. */
static void count_in(sa_ctx *c, BDD *acc, BDD f, int w)
{
    size_t mark = sa__mark(c);
    BDD *one = sa__slots(c, (size_t)w);
    sa__put(&one[0], f);
    sa__vadd(c, acc, acc, one, w);
    sa__release(c, mark);
}

/* The modes of r where the rows over (the sample's overdetermined ones)
 * outnumber the columns their active edges reach by at least delta: by
 * Hall's theorem, every matching leaves at least delta rows unmatched.
 * Into *out, a caller slot. */
static void hall_deficient(sa_ctx *c, const bool *over, uint32_t delta, BDD *out)
{
    const sa_result *r = c->r;
    size_t mark = sa__mark(c);
    uint32_t n_over = 0;
    for (uint32_t i = 0; i < r->n_eq; i++)
        n_over += over[i];
    int w = sa__vbits((unsigned long long)n_over + delta) + 1;
    BDD *rows = sa__slots(c, (size_t)w), *cols = sa__slots(c, (size_t)w);
    BDD *reach = sa__slots(c, (size_t)r->n_var + 1);
    for (uint32_t i = 0; i < r->n_eq; i++) {
        if (!over[i])
            continue;
        count_in(c, rows, r->chi_i[i], w);
        for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++)
            sa__put(&reach[r->edge_v[e]], sa__or(reach[r->edge_v[e]], r->chi_e[e]));
    }
    for (uint32_t j = 0; j < r->n_var; j++)
        if (reach[j] != bddfalse)
            count_in(c, cols, reach[j], w);
    BDD *d = sa__slots(c, (size_t)w);
    sa__vconst(d, w, delta);
    sa__vadd(c, cols, cols, d, w);
    sa__put(out, sa__vgte(c, rows, cols, w));
    sa__release(c, mark);
}

/* One round on a singular sample (v, whose maximum matching leaves the rows
 * and columns drop unmatched): the modes of *rest where the sample's Hall
 * certificate holds for as many rows, those rows and columns are active,
 * and the graph without them has a perfect matching (found by its tight
 * graph, as in tight_round): there it is a maximum matching. Adds them to
 * *sing and removes them from *rest, and the matching to tmax. False if it
 * covers nothing (then nothing changed). */
static bool singular_round(sa_ctx *c, tight_state *t, sm_frame *frame, const probe *p,
                           const sm_mode *v, BDD *rest, BDD *sing, BDD *tmax)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    sa__amark temps = sa__alloc_mark(c);
    bool *drop_row = sa__alloc(c, (size_t)r->n_eq + 1);
    bool *drop_col = sa__alloc(c, (size_t)r->n_var + 1);
    bool *over = sa__alloc(c, (size_t)r->n_eq + 1);
    uint32_t delta = 0, dc = 0;
    for (uint32_t j = 0; j < r->n_var; j++)
        drop_col[j] = p->var_active[j];
    for (uint32_t i = 0; i < r->n_eq; i++) {
        over[i] = v->overdetermined[i];
        if (!p->eq_active[i])
            continue;
        if (v->matched_edge[i] < 0)
            drop_row[i] = true, delta++;
        else
            drop_col[r->edge_v[v->matched_edge[i]]] = false;
    }
    for (uint32_t j = 0; j < r->n_var; j++)
        dc += drop_col[j];
    bool covered = false;
    if (delta > 0 && dc == delta) {
        BDD *cond = sa__slots(c, 1);
        hall_deficient(c, over, delta, cond);
        BDD *fi = sa__slots(c, (size_t)r->n_eq + 1), *fj = sa__slots(c, (size_t)r->n_var + 1);
        BDD *fe = sa__slots(c, r->n_edges + 1);
        for (uint32_t i = 0; i < r->n_eq; i++) {
            sa__put(&fi[i], drop_row[i] ? bddfalse : r->chi_i[i]);
            if (drop_row[i])
                sa__put(cond, sa__and(*cond, r->chi_i[i]));
        }
        for (uint32_t j = 0; j < r->n_var; j++) {
            sa__put(&fj[j], drop_col[j] ? bddfalse : r->chi_j[j]);
            if (drop_col[j])
                sa__put(cond, sa__and(*cond, r->chi_j[j]));
        }
        int *sigma = sa__alloc(c, (r->n_edges + 1) * sizeof *sigma);
        bool *ea = sa__alloc(c, (size_t)r->n_eq + 1), *va = sa__alloc(c, (size_t)r->n_var + 1);
        for (size_t e = 0; e < r->n_edges; e++) {
            bool cut = drop_row[r->edge_eq[e]] || drop_col[r->edge_v[e]];
            sa__put(&fe[e], cut ? bddfalse : r->chi_e[e]);
            sigma[e] = cut ? -1 : p->sigma[e];
        }
        for (uint32_t i = 0; i < r->n_eq; i++)
            ea[i] = p->eq_active[i] && !drop_row[i];
        for (uint32_t j = 0; j < r->n_var; j++)
            va[j] = p->var_active[j] && !drop_col[j];
        const sm_mode *v2;
        int rc = sm_frame_solve(frame, ea, va, sigma, &v2);
        if (rc < 0)
            sa__fail(c, rc);
        BDD *within = sa__slots(c, 1);
        sa__put(within, sa__and(*rest, *cond));
        if (!v2->singular && *within != bddfalse) {
            int *off = sa__alloc(c, ((size_t)r->n_eq + 1) * sizeof *off);
            for (uint32_t i = 0; i < r->n_eq; i++)
                off[i] = v2->c[i] > 0 ? v2->c[i] : 0;
            BDD *none = sa__slots(c, r->n_edges + 1), *ok = sa__slots(c, 1);
            r->chi_i = fi;
            r->chi_j = fj;
            r->chi_e = fe;
            BDD *left = sa__slots(c, 1);
            sa__put(left, *within);
            tight_round(c, off, left, ok, none);
            r->chi_i = t->chi_i;
            r->chi_j = t->chi_j;
            r->chi_e = t->chi_e;
            covered = *ok != bddfalse;
            for (size_t e = 0; covered && e < r->n_edges; e++)
                sa__put(&tmax[e], sa__or(tmax[e], none[e]));
            sa__put(sing, sa__or(*sing, *ok));
            sa__put(rest, sa__diff(*rest, *ok));
        }
    }
    sa__release(c, mark);
    sa__alloc_release(c, temps);
    return covered;
}

/* ---- Offsets learned from samples ---------------------------------------------
 * When the probes disagree (the brake: every valve changes its railcar's
 * offsets), the offsets are often still local: c_i depends only on the mode
 * variables near equation i -- those its own guard and the guards and
 * orders of the edges of its variables read (L_i). Then the samples say
 * c_i for each assignment of L_i they met, and one function per equation
 * (a table over L_i, the most common value where no sample went) gives
 * offsets for every mode at once. A sample that disagrees with another on
 * the same assignment of L_i shows that c_i is not local: the rounds stop.
 * Whatever the table says, the round is exact (the top of the file): it
 * covers the modes where those offsets are optimal; further rounds sample
 * the modes left. */

#define LEARN_SAMPLES 256 /* samples kept in all */
_Static_assert(LEARN_SAMPLES <= SAMPLES_GROUP * SAMPLES_MAX_GROUPS, "samples' groups");
#define LEARN_LOCAL 6    /* |L_i| beyond which the rounds stop */
#define LEARN_ROUNDS 4
#define LEARN_MORE 4     /* samples added per further round */

/* Offsets local at distance two. The building's rte[i], Er = Mr h(Tr),
 * has its offset 1 exactly where door i is open, but open[i] guards
 * dop[i], Pr[i] = Pc[i], which shares no variable with rte[i]: it is two
 * steps away (rte -> Mr, Tr -> rtm -> Pr -> dop). When the samples
 * contradict L_i, the key is chosen instead among the candidates C_i (L_i
 * and the L of the equations that share a variable with i, at most
 * LEARN_CAND; columns of more than LEARN_HUB edges, such as the building's
 * time, are not followed): greedily, the variable that tells apart the
 * most pairs of samples with different offsets and the same key so far,
 * until no such pair is left (at most LEARN_LOCAL variables). Such keys
 * are guesses from a few samples: the rounds first draw LEARN_FIRST
 * samples in all, and the learned offsets must then predict LEARN_CHECK
 * more samples exactly before their tight graph may be one large block
 * (c->max_block_rows lifted, the budget raised by LEARN_NODES_PER_EDGE
 * per edge: the building's tight graph is one block of nearly every
 * equation, whose perfect matchings are all optimal and replace the
 * dynamic programme over all of them). Whatever the keys, a round stays
 * exact (the top of the file). */
#define LEARN_CAND 24
#define LEARN_HUB 16
#define LEARN_FIRST 64
#define LEARN_CHECK 16
#define LEARN_NODES_PER_EDGE 1000

/* A growable list of mode variables (sa__alloc'd; the old blocks are
 * freed with the context). */
typedef struct mode_list {
    uint32_t *k;
    size_t n, cap;
} mode_list;

static void mode_list_push(sa_ctx *c, mode_list *l, uint32_t k)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        uint32_t *p = sa__alloc_raw(c, cap * sizeof *p);
        if (l->n)
            memcpy(p, l->k, l->n * sizeof *p);
        l->k = p;
        l->cap = cap;
    }
    l->k[l->n++] = k;
}

/* Move the mode variables the walk w marked in `in` to l, each once, and
 * clear them in `in` (all false again); forget the walk. */
static void walked_modes(sa_ctx *c, sa__walk *w, bool *in, mode_list *l)
{
    for (size_t q = 0; q < w->n_visited; q++) {
        int k = c->r->var_mode[bdd_var(w->visited[q])];
        if (k >= 0 && in[k]) {
            in[k] = false;
            mode_list_push(c, l, (uint32_t)k);
        }
    }
    sa__walk_done(w);
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The candidates of every equation (top of the section): cand[i *
 * LEARN_CAND ...], n_cand[i] of them, the first n_l1[i] being L_i (all of
 * L_i when it has more than LEARN_CAND: then only those, and n_l1[i] is
 * LEARN_CAND + 1). Each column's variables are kept as a list: a row of
 * n_modes flags per column made this quadratic (issue 40). */
typedef struct cands {
    uint32_t *cand, *n_cand, *n_l1;
    bool near_only; /* L_i only: an analysis seeded by a hint (sa.h), whose
                       block the repair of its matching solves instead */
} cands;

/* L_i of every equation into l1 (l1_first[i] ..). */
static void first_ring(sa_ctx *c, const size_t *first, const size_t *edges, mode_list *l1,
                       size_t *l1_first)
{
    const sa_result *r = c->r;
    bool *in = sa__alloc(c, (size_t)r->n_modes + 1); /* all false between uses */
    size_t *col_first = sa__alloc_raw(c, ((size_t)r->n_var + 1) * sizeof *col_first);
    mode_list cols = {NULL, 0, 0};
    sa__walk w;
    sa__walk_init(c, &w);
    for (uint32_t j = 0; j < r->n_var; j++) {
        col_first[j] = cols.n;
        for (size_t k = first[j]; k < first[j + 1]; k++) {
            size_t e = edges[k];
            sa__walk_modes(c, &w, r->chi_e[e], in);
            for (int b = 0; b < r->w_sigma; b++)
                sa__walk_modes(c, &w, r->sigma[e * (size_t)r->w_sigma + b], in);
        }
        walked_modes(c, &w, in, &cols);
    }
    col_first[r->n_var] = cols.n;
    for (uint32_t i = 0; i < r->n_eq; i++) {
        size_t from = l1->n;
        l1_first[i] = from;
        sa__walk_modes(c, &w, r->chi_i[i], in);
        walked_modes(c, &w, in, l1);
        for (size_t q = from; q < l1->n; q++)
            in[l1->k[q]] = true;
        for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
            uint32_t j = r->edge_v[e];
            for (size_t q = col_first[j]; q < col_first[j + 1]; q++)
                if (!in[cols.k[q]]) {
                    in[cols.k[q]] = true;
                    mode_list_push(c, l1, cols.k[q]);
                }
        }
        for (size_t q = from; q < l1->n; q++)
            in[l1->k[q]] = false;
        if (l1->n - from > 1)
            qsort(&l1->k[from], l1->n - from, sizeof *l1->k, u32_cmp);
    }
    l1_first[r->n_eq] = l1->n;
}

static void locals(sa_ctx *c, cands *cd)
{
    const sa_result *r = c->r;
    size_t *first, *edges;
    sa__columns(c, c->r, &first, &edges);
    mode_list l1 = {NULL, 0, 0};
    size_t *l1_first = sa__alloc_raw(c, ((size_t)r->n_eq + 1) * sizeof *l1_first);
    first_ring(c, first, edges, &l1, l1_first);
    bool *in = sa__alloc(c, (size_t)r->n_modes + 1);
    cd->cand = sa__alloc_raw(c, ((size_t)r->n_eq * LEARN_CAND + 1) * sizeof *cd->cand);
    cd->n_cand = sa__alloc_raw(c, ((size_t)r->n_eq + 1) * sizeof *cd->n_cand);
    cd->n_l1 = sa__alloc_raw(c, ((size_t)r->n_eq + 1) * sizeof *cd->n_l1);
    for (uint32_t i = 0; i < r->n_eq; i++) {
        uint32_t *ci = &cd->cand[(size_t)i * LEARN_CAND], n = 0;
        size_t n1 = l1_first[i + 1] - l1_first[i];
        if (n1 > LEARN_CAND) {
            cd->n_cand[i] = 0;
            cd->n_l1[i] = LEARN_CAND + 1;
            continue;
        }
        for (size_t q = l1_first[i]; q < l1_first[i + 1]; q++)
            in[ci[n++] = l1.k[q]] = true;
        cd->n_l1[i] = n;
        for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
            uint32_t j = r->edge_v[e];
            if (first[j + 1] - first[j] > LEARN_HUB)
                continue;
            for (size_t k = first[j]; k < first[j + 1]; k++) {
                uint32_t i2 = r->edge_eq[edges[k]];
                for (size_t q = l1_first[i2]; q < l1_first[i2 + 1] && n < LEARN_CAND; q++)
                    if (!in[l1.k[q]])
                        in[ci[n++] = l1.k[q]] = true;
            }
        }
        for (uint32_t q = 0; q < n; q++)
            in[ci[q]] = false;
        cd->n_cand[i] = n;
    }
}

/* The key of sample s on the n variables li. */
static uint32_t sample_key(const sa_result *r, const samples *sm, uint32_t s, const uint32_t *li,
                           uint32_t n)
{
    uint32_t key = 0;
    for (uint32_t a = 0; a < n; a++)
        key |= (uint32_t)sample_var(sm, s, li[a]) << a;
    return key;
}

/* Whether the samples' offsets of equation i are a function of the n
 * variables li (n <= LEARN_LOCAL). */
static bool consistent(const sa_result *r, const samples *sm, uint32_t i, const uint32_t *li,
                       uint32_t n)
{
    int table[1 << LEARN_LOCAL];
    for (uint32_t k = 0; k < (1u << n); k++)
        table[k] = -1;
    for (uint32_t s = 0; s < sm->n; s++) {
        uint32_t key = sample_key(r, sm, s, li, n);
        int v = sample_c(sm, s, i);
        if (table[key] >= 0 && table[key] != v)
            return false;
        table[key] = v;
    }
    return true;
}

/* The key of equation i into li (*n variables): L_i if the samples agree
 * with it, else chosen greedily among its candidates (top of the section;
 * *grown then). False if none is found. keyv: sm->n scratch integers. */
static bool key_of(const sa_result *r, const samples *sm, const cands *cd, uint32_t i,
                   uint32_t *li, uint32_t *n, bool *grown, uint32_t *keyv)
{
    const uint32_t *ci = &cd->cand[(size_t)i * LEARN_CAND];
    uint32_t n1 = cd->n_l1[i];
    if (n1 <= LEARN_LOCAL && consistent(r, sm, i, ci, n1)) {
        memcpy(li, ci, n1 * sizeof *li);
        *n = n1;
        return true;
    }
    if (cd->near_only)
        return false;
    *n = 0;
    for (uint32_t s = 0; s < sm->n; s++)
        keyv[s] = 0;
    for (;;) {
        /* The candidate that tells apart the most pairs of samples with
         * different offsets and the same key so far. */
        uint32_t best = UINT32_MAX, best_split = 0, left = 0;
        uint32_t split[LEARN_CAND] = {0};
        for (uint32_t s = 0; s < sm->n; s++)
            for (uint32_t t = s + 1; t < sm->n; t++) {
                if (keyv[s] != keyv[t] ||
                    sample_c(sm, s, i) == sample_c(sm, t, i))
                    continue;
                left++;
                for (uint32_t q = 0; q < cd->n_cand[i]; q++)
                    split[q] += sample_var(sm, s, ci[q]) != sample_var(sm, t, ci[q]);
            }
        if (left == 0) {
            *grown = true;
            return true;
        }
        if (*n == LEARN_LOCAL)
            return false;
        for (uint32_t q = 0; q < cd->n_cand[i]; q++)
            if (split[q] > best_split)
                best = q, best_split = split[q];
        if (best == UINT32_MAX)
            return false;
        for (uint32_t s = 0; s < sm->n; s++)
            keyv[s] |= (uint32_t)sample_var(sm, s, ci[best]) << *n;
        li[(*n)++] = ci[best];
    }
}

/* The learned offsets (wv bits each, stride wv) into cv, *wv their width,
 * and each equation's key into loc (LEARN_LOCAL per equation, n_loc[i]
 * used); false if some equation has no key the samples agree with.
 * *grown: some key is not L_i (top of the section). */
static bool learned_offsets(sa_ctx *c, const samples *sm, const cands *cd, uint32_t *loc,
                            uint32_t *n_loc, BDD **cv, int *wv, bool *grown)
{
    const sa_result *r = c->r;
    enum { KEYS = 1 << LEARN_LOCAL };
    int top = 0;
    for (uint32_t g = 0; g < sm->n_groups; g++) { /* group by group, in memory order */
        uint32_t from = g * SAMPLES_GROUP;
        uint32_t in = sm->n - from < SAMPLES_GROUP ? sm->n - from : SAMPLES_GROUP;
        for (size_t i = 0; i < r->n_eq; i++)
            for (uint32_t s = 0; s < in; s++)
                top = sm->c[g][i * SAMPLES_GROUP + s] > top ? sm->c[g][i * SAMPLES_GROUP + s] : top;
    }
    *wv = sa__vbits((unsigned long long)top);
    *cv = sa__slots(c, (size_t)r->n_eq * (size_t)*wv + 1);
    *grown = false;
    int table[KEYS], votes[KEYS];
    uint32_t *keyv = sa__alloc_raw(c, ((size_t)sm->n + 1) * sizeof *keyv);
    for (uint32_t i = 0; i < r->n_eq; i++) {
        uint32_t *li = &loc[(size_t)i * LEARN_LOCAL];
        if (!key_of(r, sm, cd, i, li, &n_loc[i], grown, keyv))
            return false; /* not local */
        uint32_t nk = 1u << n_loc[i];
        for (uint32_t k = 0; k < nk; k++)
            table[k] = -1, votes[k] = 0;
        int best = 0, best_votes = 0;
        for (uint32_t s = 0; s < sm->n; s++) {
            uint32_t key = sample_key(r, sm, s, li, n_loc[i]);
            int v = sample_c(sm, s, i);
            table[key] = v;
            if (++votes[key] > best_votes)
                best = v, best_votes = votes[key];
        }
        BDD *ci = &(*cv)[(size_t)i * (size_t)*wv];
        for (uint32_t k = 0; k < nk; k++) {
            unsigned v = (unsigned)(table[k] >= 0 ? table[k] : best);
            if (v == 0)
                continue;
            size_t mark = sa__mark(c);
            BDD cube = bddtrue;
            for (uint32_t a = 0; a < n_loc[i]; a++) {
                BDD lit = bdd_ithvar(r->mode_var[li[a]]);
                cube = T(bdd_and(cube, (k >> a) & 1u ? lit : T(bdd_not(lit))));
            }
            for (int b = 0; b < *wv; b++)
                if ((v >> b) & 1u)
                    sa__put(&ci[b], bdd_or(ci[b], cube));
            sa__release(c, mark);
        }
    }
    return true;
}

/* A round whose tight graph is one block (tight_solve: it does not
 * split): its perfect matchings over *rest as one BDD, the implicit primal
 * of the whole (sa__primal, which inside the rounds keeps them all: each
 * is optimal where it exists), then the chosen one. Adds the modes where
 * they exist to *ok and their chosen edges to te, and removes those modes
 * from *rest; false if there are none. The building's rounds, whose
 * learned offsets are local at distance two (learned_rounds): its X and
 * dynamic programme, whose values grow like N^2 nodes, replaced by the
 * tight graph's matchings (issue 40). */
static bool tight_whole(sa_ctx *c, tight_state *t, BDD *tight, BDD *rest, BDD *ok, BDD *te)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    BDD *chi_e = r->chi_e, chi_m = r->chi_m, *te0 = r->te;
    t->te = te0; /* restored by tight_restore after a jump */
    t->te_within0 = r->te_within;
    /* The first round to add modes, which may cover them all: then te may
     * be its primal's within form (sa__edge_modes), no other round adding
     * to it (each runs only while *rest has modes). */
    bool first = *ok == bddfalse && !t->te_within;
    for (size_t e = 0; first && e < r->n_edges; e++)
        first = te[e] == bddfalse;
    BDD *keep = sa__slots(c, 2);
    sa__put(&keep[0], r->ok);
    sa__put(&keep[1], r->singular);
    bool no_max = c->no_max;
    c->no_max = true;
    r->chi_e = tight;
    r->chi_m = *rest;
    r->te = sa__slots(c, r->n_edges + 1);
    r->te_within = false;
    c->edge_modes_within = first ? r : NULL;
    sa__primal(c);
    c->edge_modes_within = NULL;
    BDD *got = sa__slots(c, 1);
    sa__put(got, r->ok);
    /* within *got, which is then all of *ok (false before) */
    bool within = first && r->te_within && r->ok == *got && sa__diff(*rest, *got) == bddfalse;
    for (size_t e = 0; e < r->n_edges; e++)
        if (!sa__te_never(r, e))
            sa__put(&te[e], within ? r->te[e] : sa__or(te[e], T(sa__and(sa__te(c, r, e), *got))));
    t->te_within = within;
    r->te = te0;
    r->te_within = t->te_within0;
    t->te = NULL;
    r->chi_e = chi_e;
    r->chi_m = chi_m;
    c->no_max = no_max;
    sa__put(&r->ok, keep[0]);
    sa__put(&r->singular, keep[1]);
    sa__put(ok, sa__or(*ok, *got));
    sa__put(rest, sa__diff(*rest, *got));
    bool any = *got != bddfalse;
    sa__release(c, mark);
    return any;
}

/* A valid mode drawn down chi_m as sa_result_sample_mode does, but
 * taking the branch force[k] (0 or 1; -1: random) at mode variable k
 * where that branch is not false. */
static void forced_mode(const sa_result *r, uint64_t *seed, const int8_t *force, bool *mode)
{
    for (uint32_t k = 0; k < r->n_modes; k++) {
        *seed ^= *seed << 13, *seed ^= *seed >> 7, *seed ^= *seed << 17; /* xorshift64 */
        mode[k] = force[k] >= 0 ? force[k] == 1 : (*seed >> 32) & 1u;
    }
    BDD f = r->chi_m;
    while (f >= 2) {
        int k = r->var_mode[bdd_var(f)];
        MDAE_ASSERT(k >= 0);
        BDD lo = bdd_low(f), hi = bdd_high(f);
        bool b = (mode[k] && hi != bddfalse) || lo == bddfalse;
        mode[k] = b;
        f = b ? hi : lo;
    }
}

/* The entries of each equation's key (loc, n_loc) that some sample met,
 * one bit each, or-ed into seen (n_eq masks) for samples from .. sm->n. */
static void mark_seen(const sa_result *r, const samples *sm, uint32_t from, const uint32_t *loc,
                      const uint32_t *n_loc, uint64_t *seen)
{
    for (uint32_t s = from; s < sm->n; s++)
        for (uint32_t i = 0; i < r->n_eq; i++)
            seen[i] |= 1ull << sample_key(r, sm, s, &loc[(size_t)i * LEARN_LOCAL], n_loc[i]);
}

/* Samples drawn towards the keys' entries no sample met (their tables
 * would guess them): each forces, for as many equations as do not clash,
 * one entry not tried yet, down chi_m (an entry no valid mode has is
 * tried once and left). At most LEARN_TARGETED samples. */
#define LEARN_TARGETED 24
static void fill_entries(sa_ctx *c, tight_state *t, samples *sm, uint64_t *seed, probe *p,
                         const uint32_t *loc, const uint32_t *n_loc)
{
    const sa_result *r = c->r;
    size_t mark = sa__mark(c);
    uint64_t *seen = sa__alloc(c, ((size_t)r->n_eq + 1) * sizeof *seen);
    uint64_t *tried = sa__alloc(c, ((size_t)r->n_eq + 1) * sizeof *tried);
    int8_t *force = sa__alloc(c, (size_t)r->n_modes + 1);
    mark_seen(r, sm, 0, loc, n_loc, seen);
    for (int q = 0; q < LEARN_TARGETED && sm->n < sm->max; q++) {
        memset(force, -1, r->n_modes);
        bool any = false;
        for (uint32_t i = 0; i < r->n_eq; i++) {
            const uint32_t *li = &loc[(size_t)i * LEARN_LOCAL];
            uint64_t all = n_loc[i] == LEARN_LOCAL ? ~0ull : (1ull << (1u << n_loc[i])) - 1;
            uint64_t open = all & ~seen[i] & ~tried[i];
            for (uint32_t k = 0; open != 0 && k < (1u << n_loc[i]); k++) {
                if (!((open >> k) & 1u))
                    continue;
                bool clash = false;
                for (uint32_t a = 0; a < n_loc[i] && !clash; a++)
                    clash = force[li[a]] >= 0 && force[li[a]] != (int8_t)((k >> a) & 1u);
                if (clash)
                    continue;
                for (uint32_t a = 0; a < n_loc[i]; a++)
                    force[li[a]] = (int8_t)((k >> a) & 1u);
                tried[i] |= 1ull << k;
                any = true;
                break;
            }
        }
        if (!any)
            break;
        const sm_mode *v;
        uint32_t from = sm->n;
        forced_mode(r, seed, force, p->mode);
        solve_probe(c, t->frame, p, &v);
        samples_add(r, sm, p->mode, v);
        mark_seen(r, sm, from, loc, n_loc, seen);
    }
    sa__release(c, mark);
}

/* Whether the learned offsets cv (wv bits) give the canonical offsets of
 * LEARN_CHECK more sampled modes (each nonsingular one; added to sm). */
static bool predicts(sa_ctx *c, tight_state *t, samples *sm, uint64_t *seed, probe *p,
                     const BDD *cv, int wv)
{
    sa_result *r = c->r;
    for (int k = 0; k < LEARN_CHECK; k++) {
        const sm_mode *v;
        sample_mode(c, t->frame, seed, p, &v);
        samples_add(r, sm, p->mode, v);
        if (v->singular)
            continue;
        for (uint32_t i = 0; i < r->n_eq; i++) {
            int ci = v->c[i] > 0 ? v->c[i] : 0;
            if ((int)sa__veval(r, &cv[(size_t)i * (size_t)wv], wv, p->mode) != ci)
                return false;
        }
    }
    return true;
}

/* Rounds with learned offsets over *rest (after the probes of sm), adding
 * what they cover to *ok and te; stop at the first round that covers
 * nothing or finds the offsets not local. Whether they covered it all. */
static bool learned_rounds(sa_ctx *c, tight_state *t, samples *sm, uint64_t *seed, probe *p,
                           BDD *rest, BDD *ok, BDD *te)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    uint32_t *loc = sa__alloc(c, ((size_t)r->n_eq * LEARN_LOCAL + 1) * sizeof *loc);
    uint32_t *n_loc = sa__alloc(c, ((size_t)r->n_eq + 1) * sizeof *n_loc);
    if (sm->n == 0) {
        sa__release(c, mark);
        return false;
    }
    cands cd;
    locals(c, &cd);
    /* here and around the tight edges: the rounds' setup before the first
     * block polled, ~90 ms of the brake at N = 10,000 without */
    sa__poll_cancel(c);
    cd.near_only = c->opt != NULL && c->opt->hint != NULL;
    uint32_t limit = r->n_eq / 8 > SEEDED_BLOCK_ROWS ? r->n_eq / 8 : SEEDED_BLOCK_ROWS;
    BDD *tight = sa__slots(c, r->n_edges + 1);
    bool wide = false;
    for (int round = 0; round < LEARN_ROUNDS && *rest != bddfalse; round++) {
        for (int k = 0; round > 0 && k < LEARN_MORE; k++) { /* from the modes left */
            const sm_mode *v;
            r->chi_m = *rest;
            sample_mode(c, t->frame, seed, p, &v);
            r->chi_m = t->chi_m;
            samples_add(r, sm, p->mode, v);
        }
        size_t m2 = sa__mark(c);
        BDD *cv;
        int wv;
        bool grown = false;
        bool local = learned_offsets(c, sm, &cd, loc, n_loc, &cv, &wv, &grown);
        if (local && grown && round == 0 && sm->n < LEARN_FIRST) {
            while (sm->n < LEARN_FIRST) { /* keys guessed: more samples first */
                const sm_mode *v;
                uint32_t before = sm->n;
                sample_mode(c, t->frame, seed, p, &v);
                samples_add(r, sm, p->mode, v);
                if (sm->n == before && v->singular)
                    break;
            }
            sa__release(c, m2);
            local = learned_offsets(c, sm, &cd, loc, n_loc, &cv, &wv, &grown);
            for (int f = 0; local && f < 2; f++) { /* the entries no sample met */
                uint32_t before = sm->n;
                fill_entries(c, t, sm, seed, p, loc, n_loc);
                if (sm->n == before)
                    break;
                sa__release(c, m2);
                local = learned_offsets(c, sm, &cd, loc, n_loc, &cv, &wv, &grown);
            }
        }
        wide = local && grown && (round > 0 ? wide : predicts(c, t, sm, seed, p, cv, wv));
        BDD before = *rest;
        sa__poll_cancel(c);
        if (local) {
            tight_edges_vec(c, cv, (size_t)wv, wv, NULL, tight);
            sa__poll_cancel(c);
            c->max_block_rows = wide ? 0 : limit;
            if (wide)
                sa__raise_budget(c, r->n_edges * LEARN_NODES_PER_EDGE);
            if (!tight_solve(c, tight, rest, ok, te, NULL, NULL, NULL) && wide)
                tight_whole(c, t, tight, rest, ok, te);
            t->wide = t->wide || grown;
            c->max_block_rows = 0;
        }
        sa__release(c, m2);
        sa__progress(c, "tight", (size_t)round, LEARN_ROUNDS);
        if (!local || *rest == before)
            break;
    }
    sa__release(c, mark);
    return *rest == bddfalse;
}

/* The rounds (top of the file), under sa__try: t->covered when they cover
 * every valid mode of the block, which then has r->ok, singular, te and a
 * maximum matching of each singular mode in t->tmax. */
static void tight_rounds(sa_ctx *c, void *arg)
{
    tight_state *t = arg;
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    open_rounds(c, t, true);
    BDD *rest = sa__slots(c, 1), *ok = sa__slots(c, 1), *te = sa__slots(c, r->n_edges + 1);
    sa__put(rest, r->chi_m);
    BDD *sing = sa__slots(c, 1), *tmax = sa__slots(c, r->n_edges + 1);
    probe p;
    probe_init(c, &p);
    int *off = sa__alloc(c, ((size_t)r->n_eq + 1) * sizeof *off);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    samples sm;
    samples_init(c, &sm, LEARN_SAMPLES);
    bool agree = false;
    bool go = promising(c, t->frame, &seed, &p, off, &sm, &agree);
    /* Probes that disagree: offsets learned from them first (under
     * SA_METHOD_TIGHT too, then the constant rounds on the modes left). */
    bool learned = !agree && learned_rounds(c, t, &sm, &seed, &p, rest, ok, te);
    for (int round = 0; go && round < TIGHT_ROUNDS && *rest != bddfalse; round++) {
        const sm_mode *v;
        r->chi_m = *rest;
        sample_mode(c, t->frame, &seed, &p, &v);
        r->chi_m = t->chi_m;
        if (v->singular) {
            go = singular_round(c, t, t->frame, &p, v, rest, sing, tmax);
        } else {
            for (uint32_t i = 0; i < r->n_eq; i++)
                off[i] = v->c[i] > 0 ? v->c[i] : 0;
            go = tight_round(c, off, rest, ok, te);
        }
        sa__progress(c, "tight", (size_t)round, TIGHT_ROUNDS);
    }
    sa__pop_cleanup(c);
    tight_restore(t);
    t->covered = *rest == bddfalse;
    if (t->covered) {
        for (size_t e = 0; e < r->n_edges; e++) { /* all of r->te, either form */
            sa__put(&r->te[e], te[e]);
            sa__put(&t->tmax[e], tmax[e]);
        }
        r->te_within = t->te_within && *ok != bddfalse; /* within *ok (tight_whole) */
        sa__put(&r->ok, *ok);
        sa__put(&r->singular, *sing);
        r->blocks_learned += learned;
        r->blocks_wide += t->wide;
    }
    sa__release(c, mark);
}

bool sa__tight_primal(sa_ctx *c, BDD *tmax)
{
    sa_result *r = c->r;
    if (r->chi_m == bddfalse || c->tight_depth > 0)
        return false;
    tight_state t = {.c = c, .r = r, .chi_i = r->chi_i, .chi_j = r->chi_j, .chi_e = r->chi_e,
                     .chi_m = r->chi_m, .opt = c->opt, .tmax = tmax};
    return sa__try(c, TIGHT_BUDGET, tight_rounds, &t) && t.covered;
}

/* ---- Seeded by an earlier result (issue 16) ----------------------------------
 * After an edit, the previous version's canonical offsets (sa_options.hint,
 * mode functions carried over by name, sa_hint.c) are optimal in every mode
 * the edit did not disturb. They are one c >= 0 per equation and mode, so
 * the proof at the top of the file applies mode by mode: where their tight
 * graph has a perfect matching, its perfect matchings are exactly the
 * maximum-weight ones. The first round takes them as they are. In the modes
 * it leaves (where the edit moved the optimum), each further round samples
 * one mode m, solves it alone (the single-mode path), and shifts the hint by
 * what the edit changed there: c_i := max(0, hint_i + (c_i(m) - hint_i(m))),
 * which is the sample's own offsets in m and, in the modes that differ from
 * m away from the edit, the hint's (an equation inactive in m keeps the
 * shift an earlier sample showed; and before the round solves, more modes
 * are sampled where blocks of the first round fail that no sample of the
 * round lies in: learn_shift, learn_failures). Even the first round
 * samples first where an equation has no tight edge at all, and shifts it
 * there only (learn_dead). A first round whose tight graph does not split
 * (no perfect matching of its union graph) does not end the rounds:
 * an edit seeded by the one before (the brake's railcar 51 after 50, whose
 * own offsets the hint still has) needs the second, and stopping there sent
 * it cold, 10 ms instead of 8 at N = 100. When the rounds cover every valid mode,
 * the perfect matchings of the whole component (sa_primal.c's X and its
 * dynamic programme, the two global parts of a cold analysis) are never
 * built: each tight graph splits into small blocks. When they do not (a
 * tight graph whose blocks stay large, as on the building, whose offsets
 * depend on modes far away; a singular mode; the rounds or the budget run
 * out), nothing is kept and the caller goes on cold, having lost the rounds.
 * Whatever the rounds do, the result is the cold one: only the time
 * depends on them. */

#define SEEDED_ROUNDS 4
#define SEEDED_BUDGET 4000000
_Static_assert(SEEDED_ROUNDS <= 8, "owed.mask has a bit per round");


/* out := max(0, base + delta[i]) per equation with rows[i] (rows NULL:
 * every equation; the others' stay false), on wv bits (stride wv); base
 * has stride stride and wb bits. */
static void shift_offsets(sa_ctx *c, const BDD *base, size_t stride, int wb, const int *delta,
                          const bool *rows, int wv, BDD *out)
{
    const sa_result *r = c->r;
    size_t mark = sa__mark(c), uw = (size_t)wv;
    BDD *k = sa__slots(c, uw), *diff = sa__slots(c, uw), *zero = sa__slots(c, uw);
    uint32_t n = r->n_eq;
    /* rows: few (redo_rows), found 8 flags at a time */
    for (uint32_t i = rows != NULL ? sa__next_flag(rows, 0, n) : 0; i < n;
         i = rows != NULL ? sa__next_flag(rows, i + 1, n) : i + 1) {
        BDD *ci = &out[i * uw];
        for (int b = 0; b < wv; b++)
            sa__put(&ci[b], b < wb ? base[i * stride + (size_t)b] : bddfalse);
        if (delta[i] == 0)
            continue;
        size_t m2 = sa__mark(c);
        sa__vconst(k, wv, (unsigned)(delta[i] > 0 ? delta[i] : -delta[i]));
        if (delta[i] > 0) {
            sa__vadd(c, ci, ci, k, wv);
        } else {
            BDD ge = sa__vgte(c, ci, k, wv);
            sa__vsub(c, diff, ci, k, wv);
            sa__vite(c, ci, ge, diff, zero, wv);
        }
        sa__release(c, m2);
    }
    sa__release(c, mark);
}

/* The seeded rounds' state, for sa__try. */
typedef struct seeded_state {
    tight_state t;
    const BDD *hc; /* the hint's offsets, stride wh, wv bits used */
    const long *same; /* per row: the hint's row whose offsets hc has as they are, or -1 */
    int wh, wv;
    bool *redo; /* per column: its tight edges differ from round 0's */
    int *shift; /* per row: the shift its samples found (learn_shift) */
} seeded_state;

/* A mode of rest (within r's valid modes) sampled and solved alone with
 * *frame (made here if NULL), and what it shows of the shift of base (per
 * equation: stride, wb bits in use) into shift (n_eq, the caller's, zeroed
 * before the first sample): an equation active in it gets what its offset
 * there adds to base's value there; an inactive one keeps what an earlier
 * sample found (0 at first), for the sample says nothing of the modes
 * where it counts.
 * Measured on the brake's guard edit seeded by the one before (railcars 51
 * and 50): both valve rows need +1 wherever active, and no mode has both
 * active; a shift taken afresh from each sample (the inactive row's made
 * of its 0 there) covered a quarter of the modes per round, four rounds in
 * all, against three this way (two with learn_failures). False if the
 * sample is singular (no offsets: nothing learned). With p->warm, the
 * lesson is read from the hint's offsets repaired near the edit
 * (sa_probe.c: the same shifts, without solving the mode whole), and
 * checked against the whole solve under sa_options.self_check. */
static bool learn_shift(sa_ctx *c, sm_frame **frame, uint64_t *seed, probe *p, BDD rest,
                        const BDD *base, size_t stride, int wb, int *shift)
{
    sa_result *r = c->r;
    BDD valid = r->chi_m;
    r->chi_m = rest;
    int rc = sa_result_sample_mode(r, seed, p->mode);
    r->chi_m = valid;
    MDAE_ASSERT(rc == MDAE_OK);
    bool check = c->opt != NULL && c->opt->self_check;
    int *before = NULL; /* under self_check: shift before the warm lesson */
    if (check && p->warm != NULL) {
        before = sa__alloc_raw(c, ((size_t)r->n_eq + 1) * sizeof *before);
        memcpy(before, shift, (size_t)r->n_eq * sizeof *before);
    }
    int warm = p->warm != NULL ? sa__warm_learn(c, p->warm, p->mode, shift) : -1;
    if (warm >= 0 && !check)
        return warm > 0;
    int *into = warm >= 0 ? before : shift;
    if (*frame == NULL)
        *frame = new_frame(c, false); /* offsets only (solve_probe) */
    const sm_mode *v;
    solve_probe(c, *frame, p, &v);
    if (!v->singular)
        for (uint32_t i = 0; i < r->n_eq; i++)
            if (p->eq_active[i]) {
                unsigned had = sa__veval(r, &base[(size_t)i * stride], wb, p->mode);
                into[i] = (v->c[i] > 0 ? v->c[i] : 0) - (int)had;
            }
    if (warm >= 0) /* self_check: the warm lesson is the cold one */
        MDAE_ASSERT(warm == !v->singular &&
                    (v->singular || memcmp(before, shift, (size_t)r->n_eq * sizeof *shift) == 0));
    return !v->singular;
}

/* base shifted by shift: c_i := max(0, base_i + shift_i) for the
 * equations with rows[i] (NULL: all; the others' false), into *cv (wv
 * bits, slots allocated here). */
static void shift_base(sa_ctx *c, const BDD *base, size_t stride, int wb, const int *shift,
                       const bool *rows, BDD **cv, int *wv)
{
    const sa_result *r = c->r;
    int most = 0; /* the largest shift, 0 if none is positive (vector code) */
    uint32_t n = r->n_eq;
    for (uint32_t i = 0; i < n; i++)
        most = shift[i] > most ? shift[i] : most;
    unsigned top = (unsigned)most;
    *wv = sa__vbits(((1ull << wb) - 1) + top);
    *cv = sa__slots(c, (size_t)r->n_eq * (size_t)*wv + 1);
    shift_offsets(c, base, stride, wb, shift, rows, *wv, *cv);
}

/* The first sample's probe, shifts and repair from the hint (none until a
 * round samples: an edit's seeded rounds often need none; the frame
 * follows when a sample is solved whole, learn_shift). */
static void begin_samples(sa_ctx *c, seeded_state *s, probe *p)
{
    if (s->shift != NULL)
        return;
    probe_init(c, p);
    p->warm = sa__warm_new(c, s->hc, (size_t)s->wh, s->wv);
    s->shift = sa__alloc(c, ((size_t)c->r->n_eq + 1) * sizeof *s->shift);
}

/* Equation i's columns marked in s->redo: a shift of i changes their
 * tight edges. */
static void redo_columns(const sa_result *r, seeded_state *s, uint32_t i)
{
    for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++)
        s->redo[r->edge_v[e]] = true;
}

/* The samples drawn for one round: their modes (n of at most cap), so that
 * a set of modes is sampled only if none of them lies in it already. */
typedef struct lessons {
    bool *seen; /* n * (n_modes + 1), allocated with the first */
    int n, cap;
} lessons;

#define SEEDED_LESSONS 3 /* extra samples per round (learn_failures, learn_dead) */

/* Whether a sample of the round lies in `where` (mode functions, within the
 * modes left): one already there, or else one drawn there now and learned
 * (learn_shift), if the round has room: 1; 0 if none (where false, or no
 * room); -1 if the sample drawn is singular (nothing learned). */
static int learn_in(sa_ctx *c, seeded_state *s, uint64_t *seed, probe *p, BDD where,
                    lessons *l)
{
    const sa_result *r = c->r;
    size_t nm = (size_t)r->n_modes + 1;
    if (where == bddfalse)
        return 0;
    for (int k = 0; k < l->n; k++)
        if (sa__eval(r, where, &l->seen[(size_t)k * nm]))
            return 1;
    if (l->n == l->cap)
        return 0;
    begin_samples(c, s, p);
    if (l->seen == NULL)
        l->seen = sa__alloc(c, (size_t)l->cap * nm);
    if (!learn_shift(c, &s->t.frame, seed, p, where, s->hc, (size_t)s->wh, s->wv, s->shift))
        return -1;
    memcpy(&l->seen[(size_t)l->n++ * nm], p->mode, nm);
    return 1;
}

/* Extra samples before a later round solves (at most SEEDED_LESSONS per
 * round, besides its first, in l). Round 0's offsets fail block by block:
 * a block whose bok falls short of the modes left fails where its rows'
 * offsets are wrong, and only a sample there shows their shifts. For each
 * such block, a sample of the round in its failing modes (learn_in); the
 * round then solves once for all of them, instead of a round per lesson.
 * False if a sample is singular (the rounds stop). */
static bool learn_failures(sa_ctx *c, seeded_state *s, uint64_t *seed, probe *p, BDD rest,
                           const sa__bsol *r0, lessons *l)
{
    for (uint32_t b = 0; b < r0->nb && l->n < l->cap; b++) {
        BDD bok = r0->bok[b];
        if (bok == s->t.chi_m || r0->efirst[b + 1] == r0->efirst[b])
            continue; /* fails nowhere, or no rows */
        size_t mark = sa__mark(c);
        int got = learn_in(c, s, seed, p, T(sa__diff(rest, bok)), l);
        sa__release(c, mark);
        if (got < 0)
            return false;
    }
    return true;
}

/* The equations with an edge in a column of s->redo (temporaries of the
 * caller's): the only offsets a round's tight_edges_vec reads (its columns
 * are s->redo's), so the only ones the rounds shift. */
static const bool *redo_rows(sa_ctx *c, const seeded_state *s)
{
    const sa_result *r = c->r;
    const size_t *first, *edges;
    sa__layout_columns(c, r, &first, &edges);
    bool *rows = sa__alloc(c, (size_t)r->n_eq + 1);
    for (uint32_t j = 0; j < r->n_var; j++)
        for (size_t q = first[j]; s->redo[j] && q < first[j + 1]; q++)
            rows[r->edge_eq[edges[q]]] = true;
    return rows;
}

/* Under sa_options.self_check: the tight edges of s->redo's columns from
 * the offsets part (shifted where redo_rows says) are those from full
 * (shifted everywhere), both wv bits. */
static void check_redo_rows(sa_ctx *c, const seeded_state *s, const BDD *part, const BDD *full,
                            int wv)
{
    const sa_result *r = c->r;
    size_t mark = sa__mark(c);
    BDD *a = sa__slots(c, r->n_edges + 1), *b = sa__slots(c, r->n_edges + 1);
    tight_edges_vec(c, part, (size_t)wv, wv, s->redo, a);
    tight_edges_vec(c, full, (size_t)wv, wv, s->redo, b);
    for (size_t e = 0; e < r->n_edges; e++)
        MDAE_ASSERT(a[e] == b[e]);
    sa__release(c, mark);
}

static bool self_checking(const sa_ctx *c) { return c->opt != NULL && c->opt->self_check; }

/* The hint's offsets shifted by s->shift into *cv (wv bits, allocated
 * here) where the round reads them (redo_rows; false elsewhere), and the
 * columns of the shifted equations marked in s->redo. */
static void shift_hint(sa_ctx *c, seeded_state *s, BDD **cv, int *wv)
{
    const sa_result *r = c->r;
    for (uint32_t i = 0; i < r->n_eq; i++)
        if (s->shift[i] != 0)
            redo_columns(r, s, i);
    shift_base(c, s->hc, (size_t)s->wh, s->wv, s->shift, redo_rows(c, s), cv, wv);
    if (self_checking(c)) {
        BDD *full;
        int wf;
        shift_base(c, s->hc, (size_t)s->wh, s->wv, s->shift, NULL, &full, &wf);
        MDAE_ASSERT(wf == *wv);
        check_redo_rows(c, s, *cv, full, *wv);
    }
}

/* The hint's offsets with, for each equation i whose dead[i] is not false,
 * its shift (s->shift) within dead[i] only: c_i := ite(dead_i, max(0,
 * hint_i + shift_i), hint_i), into *cv (wv bits, allocated here) where the
 * round reads them (redo_rows; false elsewhere); the columns of the
 * equations so shifted marked in s->redo. */
static void dead_offsets(sa_ctx *c, const seeded_state *s, const BDD *dead, const int *only,
                         const bool *rows, BDD **cv, int *wv);

static void shift_dead(sa_ctx *c, seeded_state *s, const BDD *dead, BDD **cv, int *wv)
{
    const sa_result *r = c->r;
    int *only = sa__alloc(c, ((size_t)r->n_eq + 1) * sizeof *only);
    for (uint32_t i = 0; i < r->n_eq; i++) {
        only[i] = dead[i] != bddfalse ? s->shift[i] : 0;
        if (only[i] != 0)
            redo_columns(r, s, i);
    }
    dead_offsets(c, s, dead, only, redo_rows(c, s), cv, wv);
    if (self_checking(c)) {
        BDD *full;
        int wf;
        dead_offsets(c, s, dead, only, NULL, &full, &wf);
        MDAE_ASSERT(wf == *wv);
        check_redo_rows(c, s, *cv, full, *wv);
    }
}

/* shift_dead's offsets, shifted by only within dead where rows says (NULL:
 * every equation). */
static void dead_offsets(sa_ctx *c, const seeded_state *s, const BDD *dead, const int *only,
                         const bool *rows, BDD **cv, int *wv)
{
    const sa_result *r = c->r;
    shift_base(c, s->hc, (size_t)s->wh, s->wv, only, rows, cv, wv);
    size_t mark = sa__mark(c), uw = (size_t)*wv;
    BDD *hint = sa__slots(c, uw);
    for (uint32_t i = 0; i < r->n_eq; i++) {
        if (only[i] == 0 || (rows != NULL && !rows[i]))
            continue;
        for (size_t b = 0; b < uw; b++)
            sa__put(&hint[b], b < (size_t)s->wv ? s->hc[i * (size_t)s->wh + b] : bddfalse);
        sa__vite(c, &(*cv)[i * uw], dead[i], &(*cv)[i * uw], hint, *wv);
    }
    sa__release(c, mark);
}

/* The modes of rest where active equation i has none of its edges in tight
 * (false where one of them is tight in every mode); slots and temporaries
 * of the caller's scope. */
static BDD dead_modes(sa_ctx *c, const BDD *tight, uint32_t i, BDD rest)
{
    const sa_result *r = c->r;
    BDD *any = sa__slots(c, 1);
    for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1] && *any != bddtrue; e++)
        sa__put(any, sa__or(*any, tight[e]));
    return *any == bddtrue ? bddfalse : T(sa__and(T(sa__diff(r->chi_i[i], *any)), rest));
}

static int cmp_row(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The equations with an edge in a column marked in cols, in increasing
 * order (*n of them; temporaries of c): learn_dead's, found from the
 * marked columns' edges instead of every equation's (the edit's few
 * columns; the brake at N = 10,000 scanned 340,000 edges). */
static const uint32_t *remade_rows(sa_ctx *c, const bool *cols, uint32_t *n)
{
    const sa_result *r = c->r;
    const size_t *first, *edges;
    sa__layout_columns(c, r, &first, &edges);
    bool *seen = sa__alloc(c, (size_t)r->n_eq + 1);
    size_t count = 0;
    for (uint32_t j = 0; j < r->n_var; j++)
        if (cols[j])
            count += first[j + 1] - first[j];
    uint32_t *rows = sa__alloc_raw(c, (count + 1) * sizeof *rows);
    *n = 0;
    for (uint32_t j = 0; j < r->n_var; j++)
        for (size_t q = first[j]; cols[j] && q < first[j + 1]; q++) {
            uint32_t i = r->edge_eq[edges[q]];
            if (!seen[i]) {
                seen[i] = true;
                rows[(*n)++] = i;
            }
        }
    qsort(rows, *n, sizeof *rows, cmp_row);
    return rows;
}

/* Before round 0 solves: an active equation with no tight edge under the
 * hint's offsets (tight) has no perfect matching of round 0's tight graph
 * in those modes, its dead modes, which round 0 therefore cannot cover.
 * For each dead equation whose dead modes (within rest) no sample so far
 * lies in, a sample is drawn there and learned (learn_shift, at most
 * SEEDED_LESSONS samples). Round 0 then solves with the hint's offsets
 * shifted, for each dead equation a sample lay in, by its shift within its
 * dead modes only (elsewhere every offset is the hint's, so round 0 covers
 * at least what the hint as it is would); into *cv (wv bits), the columns
 * of those equations marked in s->redo. Only equations with an edge in a
 * column whose tight edges were made again (cols; NULL: all) are looked
 * at: the others have the hint's tight edges, and this only chooses
 * samples (the rounds are exact whatever they sample; a dead equation
 * missed here is a later round's). The shifts learned here serve round 0
 * only: later rounds learn theirs afresh (kept, they cost the random
 * models of test_sa_hint 4 of 280 seeded analyses, whose later rounds no
 * longer covered everything), and draw from their own seed. Measured on
 * the brake's guard edit: round 0 with the previous offsets left exactly
 * the modes where the negated valve row has no tight edge (a half; three
 * quarters after a second guard edit), which a later round covered after
 * sampling there; now round 0 covers them: one round instead of two.
 * 1 if shifted; 0 if no equation is dead (cv not written); -1 if a sample
 * is singular (the rounds stop). */
static int learn_dead(sa_ctx *c, seeded_state *s, uint64_t *seed, probe *p, BDD rest,
                      const bool *cols, const BDD *tight, BDD **cv, int *wv)
{
    const sa_result *r = c->r;
    lessons l = {NULL, 0, SEEDED_LESSONS};
    BDD *dead = sa__slots(c, (size_t)r->n_eq + 1); /* per equation: its dead
                                                      modes, if a sample lay
                                                      in them */
    uint32_t n_rows = r->n_eq;
    const uint32_t *rows = cols != NULL ? remade_rows(c, cols, &n_rows) : NULL;
    for (uint32_t k = 0; k < n_rows; k++) {
        uint32_t i = rows != NULL ? rows[k] : k;
        if (r->chi_i[i] == bddfalse)
            continue;
        size_t mark = sa__mark(c);
        BDD di = dead_modes(c, tight, i, rest);
        int got = learn_in(c, s, seed, p, di, &l);
        if (got > 0)
            sa__put(&dead[i], di);
        sa__release(c, mark);
        if (got < 0)
            return -1;
    }
    if (l.n == 0)
        return 0;
    shift_dead(c, s, dead, cv, wv);
    memset(s->shift, 0, ((size_t)r->n_eq + 1) * sizeof *s->shift); /* round 0's only */
    return 1;
}

/* Round k > 0: the hint's offsets shifted by what the samples so far found
 * (a mode of *rest sampled and solved alone, and with r0, round 0's
 * blocks, more where they fail: learn_shift, learn_failures), into *cv (wv
 * bits, allocated here), and the columns whose tight edges may differ from
 * round 0's: those of a shifted equation, and those an earlier round redid
 * (marked in s->redo). False if a sample is singular (no offsets: the
 * rounds stop). */
static bool sampled_shift(sa_ctx *c, seeded_state *s, uint64_t *seed, probe *p, BDD *rest,
                          const sa__bsol *r0, BDD **cv, int *wv)
{
    lessons l = {NULL, 0, SEEDED_LESSONS + 1}; /* the round's own sample first */
    if (learn_in(c, s, seed, p, *rest, &l) < 0 ||
        (r0 != NULL && !learn_failures(c, s, seed, p, *rest, r0, &l)))
        return false;
    shift_hint(c, s, cv, wv);
    return true;
}

/* sa__sampled_shift's frame, freed however it ends. */
static void free_frame(void *arg)
{
    sm_frame **frame = arg;
    sm_frame_free(*frame);
    *frame = NULL;
}

bool sa__sampled_shift(sa_ctx *c, uint64_t *seed, BDD rest, const BDD *base, size_t stride,
                       int wb, int *shift, BDD **cv, int *wv)
{
    sm_frame **frame = sa__alloc(c, sizeof *frame);
    *frame = new_frame(c, false); /* offsets only (solve_probe) */
    sa__push_cleanup(c, free_frame, frame);
    probe p;
    probe_init(c, &p);
    bool found = learn_shift(c, frame, seed, &p, rest, base, stride, wb, shift);
    if (found)
        shift_base(c, base, stride, wb, shift, NULL, cv, wv);
    sa__pop_cleanup(c);
    free_frame(frame);
    return found;
}

/* What the rounds owe (owed) paid: te[e] |= r0te[e] in the modes of the
 * rounds marked for e, the union of each set of rounds made once. */
static void pay_owed(sa_ctx *c, const owed *o, const BDD *r0te, BDD *te)
{
    const sa_result *r = c->r;
    size_t mark = sa__mark(c), sets = (size_t)1 << SEEDED_ROUNDS;
    BDD *modes = sa__slots(c, sets); /* per set of rounds: their modes */
    bool *made = sa__alloc(c, sets);
    for (size_t e = 0; e < r->n_edges; e++) {
        unsigned m = o->mask[e];
        if (m == 0)
            continue;
        if (!made[m]) {
            for (int k = 0; k < SEEDED_ROUNDS; k++)
                if (m >> k & 1u)
                    sa__put(&modes[m], sa__or(modes[m], o->ok[k]));
            made[m] = true;
        }
        size_t m2 = sa__mark(c);
        BDD f = modes[m] == bddtrue ? r0te[e] : T(sa__and(r0te[e], modes[m]));
        sa__put(&te[e], te[e] == bddfalse ? f : sa__or(te[e], f));
        sa__release(c, m2);
    }
    sa__release(c, mark);
}

/* The seeded rounds' state, and their tight graph: in the caller's slots,
 * for the result to keep round 0's (keep_own_tight). */
typedef struct seeded_run {
    seeded_state s;
    BDD *tight; /* n_edges: the current round's tight graph */
} seeded_run;

/* How many of the n flags are set. */
static uint32_t count_set(const bool *f, size_t n)
{
    uint32_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += f[i];
    return k;
}

static void seeded_rounds(sa_ctx *c, void *arg)
{
    seeded_run *run = arg;
    seeded_state *s = &run->s;
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    open_rounds(c, &s->t, false);
    uint32_t limit = r->n_eq / 8 > SEEDED_BLOCK_ROWS ? r->n_eq / 8 : SEEDED_BLOCK_ROWS;
    BDD *rest = sa__slots(c, 1), *ok = sa__slots(c, 1);
    BDD *te = sa__slots(c, r->n_edges + 1), *tight = run->tight;
    sa__put(rest, r->chi_m);
    probe p = {0}; /* sampled_shift's, made there */
    s->redo = sa__alloc(c, (size_t)r->n_var + 1);
    c->known = sa__known_new(c, tight, s->redo); /* until tight_restore */
    sa__bsol r0 = {0}; /* round 0's blocks, kept for the later rounds */
    owed owe = {sa__alloc(c, r->n_edges + 1), sa__slots(c, SEEDED_ROUNDS), 0};
    uint64_t seed = 0x9E3779B97F4A7C15ull, lesson_seed = 0xD1B54A32D192ED03ull;
    int rounds = 0; /* solved */
    for (int round = 0; round < SEEDED_ROUNDS && *rest != bddfalse; round++) {
        size_t m2 = sa__mark(c);
        BDD *shifted = NULL;
        int wv = s->wv;
        if (round > 0 && !sampled_shift(c, s, &seed, &p, rest, r0.te != NULL ? &r0 : NULL,
                                        &shifted, &wv))
            break;
        /* Round 0: the hint as it is. A later round's offsets are the
         * hint's but near what its sample shifted: the other columns keep
         * round 0's tight edges. */
        const bool *cols = round > 0 ? s->redo : sa__hint_tight(c, s->hc, s->same, tight);
        if (round == 0)
            r->seeded_columns_made = cols != NULL ? count_set(cols, r->n_var) : r->n_var;
        r->seeded_vector_columns +=
            tight_edges_vec(c, round > 0 ? shifted : s->hc,
                            round > 0 ? (size_t)wv : (size_t)s->wh, wv, cols, tight);
        if (round == 0) /* the hint's records' bulk check (sa_blocks.c) */
            sa__known_columns(c, c->known);
        int taught = round == 0 ? learn_dead(c, s, &lesson_seed, &p, *rest, cols, tight,
                                             &shifted, &wv)
                                : 0;
        if (taught < 0)
            break; /* a singular sample */
        if (taught > 0)
            r->seeded_vector_columns += tight_edges_vec(c, shifted, (size_t)wv, wv, s->redo, tight);
        c->max_block_rows = limit;
        sa__bround prev = {&r0, s->redo};
        owe.round = round;
        tight_solve(c, tight, rest, ok, te, round > 0 && r0.te != NULL ? &prev : NULL,
                    round == 0 ? &r0 : NULL, &owe);
        rounds++;
        c->max_block_rows = 0;
        if (round > 0 || r0.te == NULL) /* round 0's blocks kept: its slots too */
            sa__release(c, m2);
        sa__progress(c, "seeded", (size_t)round, SEEDED_ROUNDS);
    }
    sa__pop_cleanup(c);
    tight_restore(&s->t);
    s->t.covered = *rest == bddfalse;
    if (s->t.covered) {
        if (r0.te != NULL)
            pay_owed(c, &owe, r0.te, te);
        r->seeded_rounds = (uint32_t)rounds;
        /* r->te takes te's references, te's slots r->te's old ones (bddfalse
         * when fresh), released below: a sa__put per edge and the release's
         * dereference of te's nodes were 1.2 M Ir at N = 2,000. */
        MDAE_ASSERT(r->te != te);
        sa__swap_bdds(r->te, te, r->n_edges);
        sa__put(&r->ok, *ok);
        sa__put(&r->singular, bddfalse);
    }
    sa__release(c, mark);
}

/* ---- A seeded result's own tight edges (sa__own_tight) ----------------------
 * Why they are exact for an analysis seeded by this result. Round 0's
 * tight[e] is a function of three things only: the offsets c_i round 0
 * read (the hint's, hc, as wv-bit integers per mode), chi_E and sigma of
 * the edges of e's column: "e active and c_i + sigma_e >= every active
 * c_k + sigma_f of the column", mode by mode (tight_edges_vec, whichever
 * of its ways; or the hint's memo of the same function, sa__hint_tight).
 * A BDD is canonical, so the same inputs give the same node. The next
 * analysis, seeded by this result, reads our final offsets (sa__dual's c)
 * and finds the tight edges of its own columns the same way; where a
 * column is ours (same edges, chi_E, sigma: sa__hint_tight checks) and
 * each of its rows has final offsets equal, bit for bit, to those round 0
 * read, the inputs are the same, so the tight edges are round 0's. Which
 * rows' final offsets are round 0's is known only after sa__dual, so the
 * offsets round 0 read are kept (c, their wv bits in use; above them
 * every bit was false) and compared when read (sa_hint.c). A column a later
 * round or learn_dead made again from shifted offsets (s->redo, which only
 * grows) no longer holds round 0's: stale. No condition on ok: nothing
 * here reads d (where ok holds, d_j is that largest active sum, so these
 * are also the edges with d_j = c_i + sigma_e, tight_memo's). */

void sa__own_tight_free(sa__own_tight *o)
{
    if (o == NULL)
        return;
    sa__free_bdds(o->tight, o->n_edges);
    sa__free_bdds(o->c, o->n_c);
    mdae_free(o->stale);
    mdae_free(o);
}

/* The edges of the columns marked in stale (few: the edit's) moved from
 * kept back to tight, whose slots are bddfalse there: through the
 * columns' edges (the layout's; sa__next_flag), instead of a test per
 * edge (0.4 M Ir at N = 2,000). Under sa_options.self_check, every edge
 * checked to be where the test per edge would have left it. */
static void move_back_stale(sa_ctx *c, const bool *stale, BDD *kept, BDD *tight)
{
    const sa_result *r = c->r;
    const size_t *first, *edges;
    sa__layout_columns(c, r, &first, &edges);
    uint32_t nv = r->n_var;
    for (uint32_t j = sa__next_flag(stale, 0, nv); j < nv; j = sa__next_flag(stale, j + 1, nv))
        for (size_t q = first[j]; q < first[j + 1]; q++) {
            size_t e = edges[q];
            MDAE_ASSERT(tight[e] == bddfalse);
            tight[e] = kept[e];
            kept[e] = bddfalse;
        }
    if (self_checking(c))
        for (size_t e = 0; e < r->n_edges; e++)
            MDAE_ASSERT(stale[r->edge_v[e]] ? kept[e] == bddfalse : tight[e] == bddfalse);
}

/* Round 0's tight edges (run->tight outside s->redo's columns, their
 * references moved out of the slots) and the offsets it read, into
 * r->own_tight. Without memory for them, none (nothing is lost but
 * time). */
static void keep_own_tight(sa_ctx *c, seeded_run *run)
{
    sa_result *r = c->r;
    const seeded_state *s = &run->s;
    size_t wv = (size_t)s->wv, wh = (size_t)s->wh;
    MDAE_ASSERT(r->own_tight == NULL && s->wv <= s->wh);
    sa__own_tight *o = mdae_calloc(1, sizeof *o);
    if (o == NULL)
        return;
    o->tight = mdae_malloc((r->n_edges + 1) * sizeof *o->tight);
    o->stale = mdae_malloc((size_t)r->n_var + 1);
    o->c = mdae_malloc(((size_t)r->n_eq * wv + 1) * sizeof *o->c);
    if (o->tight == NULL || o->stale == NULL || o->c == NULL) {
        sa__own_tight_free(o);
        return;
    }
    memcpy(o->stale, s->redo, r->n_var);
    /* Every slot's reference moved (vector code), then the few stale
     * columns' edges moved back: a slot of a stale column keeps its own. */
    sa__move_bdds(o->tight, run->tight, r->n_edges);
    move_back_stale(c, o->stale, o->tight, run->tight);
    if (wv == wh) {
        sa__copy_refs(o->c, s->hc, (size_t)r->n_eq * wv);
    } else {
        for (size_t b = 0; b < wv; b++) /* bit by bit: wv is 1 or 2 */
            for (size_t i = 0; i < r->n_eq; i++)
                o->c[i * wv + b] = s->hc[i * wh + b];
        sa__ref_all(o->c, (size_t)r->n_eq * wv);
    }
    o->w = s->wv;
    o->n_edges = r->n_edges;
    o->n_c = (size_t)r->n_eq * wv;
    r->own_tight = o;
}

bool sa__seeded_primal(sa_ctx *c)
{
    sa_result *r = c->r;
    if (c->opt == NULL || c->opt->hint == NULL || r->chi_m == bddfalse || c->tight_depth > 0)
        return false;
    if (r->te == NULL)
        r->te = sa__alloc_keep(c, (r->n_edges + 1) * sizeof(BDD));
    uint32_t seeded = r->seeded;
    size_t mark = sa__mark(c);
    seeded_run run = {{{.c = c, .r = r, .chi_i = r->chi_i, .chi_j = r->chi_j, .chi_e = r->chi_e,
                        .chi_m = r->chi_m, .opt = c->opt},
                       NULL, NULL, 0, 0, NULL, NULL},
                      NULL};
    seeded_state *s = &run.s;
    s->hc = sa__hint_offsets(c, false, &s->wh, &s->wv, &s->same); /* ours, or the hint's own */
    if (s->hc != NULL)
        run.tight = sa__slots(c, r->n_edges + 1);
    bool done = s->hc != NULL && sa__try(c, SEEDED_BUDGET, seeded_rounds, &run) &&
                s->t.covered;
    if (done)
        keep_own_tight(c, &run);
    sa__release(c, mark);
    if (!done)
        r->seeded = seeded; /* the primal's costs will carry the hint again */
    return done;
}
