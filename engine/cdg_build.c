/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/cdg_build.c -- mode-dependent blocks and block edges for all modes
 * at once (RR-9322 4.6), from the functions of an sa_result. Semantics: see
 * engine/cdg.h. Error and reference discipline: engine/sa_int.h.
 *
 * Steps, none of which enumerates modes:
 *
 * 1. Saturation. Xi_e = chi_E(e) & ok & (d_j = c_i + sigma_e) (4.6.1), with
 *    the sums s_e = c_i + sigma_e kept: they are the orders of the reads.
 *
 * 2. Dependencies. i ~> i' = OR over variables j of T_(i,j) & Xi_(i',j),
 *    i' != i (a matched edge is saturated in every ok mode, so T & Xi = T).
 *    Only pairs sharing a variable can be related: built row by row, each
 *    matched edge (i, j) meeting the edges of column j.
 *
 * 3. Mode-dependent SCCs, exactly and cheaply. Tarjan's SCCs of the UNION
 *    graph (i -> i' wherever i ~> i' is not the false function) first. Every
 *    cycle of the dependency graph of one mode is a cycle of the union graph,
 *    so two equations that are in the same SCC in some mode are in the same
 *    union-SCC. Hence the mode-dependent reachability (the transitive
 *    closure ~>*, a BDD per ordered pair) is only needed inside each
 *    union-SCC, computed by a sparse worklist per source; a union-SCC of one
 *    equation is its own class in every mode. This keeps the closure local
 *    on models whose blocks are local (building, brake), where a global
 *    closure would cost n^2 BDDs.
 *
 * 4. Blocks. Inside a union-SCC S, mutual reachability M(i,i') = (i ~>* i')
 *    & (i' ~>* i). The block of a mode is led by its smallest equation s:
 *    its modes are ok & chi_I(s) & !M(s,k) for every k < s in S. These modes
 *    are split recursively by M(s,k) for k > s (the equation set), then by
 *    everything the identity depends on, each split a pair of conjunctions
 *    cut as soon as a side is empty: the bits of c_i (orders of the
 *    equations), and per edge of the block, chi_E, T_e and the bits of s_e
 *    (unknowns, their orders d_j = s_e, and the reads). Leaves with the same
 *    identity (e.g. the same read coming from another edge) are merged and
 *    their mode sets OR-ed: the guard is the union of all modes giving the
 *    block. The work is proportional to the number of distinct cases, never
 *    to the number of modes.
 *
 * 5. Edges. A -> B iff unknowns(A) and reads(B) share a (variable, order)
 *    pair, in the modes guard(A) & guard(B): in such a mode the read is at
 *    the variable's leading order d_j, so the edge is saturated, and
 *    conversely (see cdg.h). Found through an index of writers per variable.
 *
 * After an edit (cdg_build_seeded), the previous version's graph seeds the
 * build: only the union-SCCs the edit reaches are split again, and only
 * the edges of their blocks found again; why the others are the same is
 * sketched above run_seeded ("Seeded by the previous version's graph").
 */
#include "cdg_int.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T(f) sa__tmp(c, (f))

/* Limits of the graph (MDAE_E_LIMIT with a diagnostic that names them).
 * One mode's graph is linear in the model; the all-modes graph multiplies
 * a block's forms when independent mode variables each change a little of
 * one large block: the MSL's EngineV6_analytic has one union-SCC of 3,027
 * equations with 12 atoms, about 5,000 forms of it and 4.1 million edges,
 * and went past 24 GB. A user cannot read such a graph, and its report
 * alone would not fit in memory. */
#define CDG_MAX_EDGES 1000000
#define CDG_MAX_KEY_INTS 16000000 /* the blocks' identities, all together */
/* Step 5 compares at most this many pairs of blocks per edge of the limit
 * (pairs_to_compare). */
#define CDG_PAIRS_PER_EDGE 4000
static size_t max_edges = CDG_MAX_EDGES, max_key_ints = CDG_MAX_KEY_INTS;

void cdg_set_limits(size_t edges, size_t key_ints)
{
    max_edges = edges ? edges : CDG_MAX_EDGES;
    max_key_ints = key_ints ? key_ints : CDG_MAX_KEY_INTS;
}

/* ---- Growable temporary arrays (sa__alloc blocks, freed with the ctx) ---- */

static void *grow(sa_ctx *c, void *p, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return p;
    size_t nc = *cap ? 2 * *cap : 64;
    void *q = sa__alloc_raw(c, nc * size); /* written before it is read */
    if (n)
        memcpy(q, p, n * size);
    *cap = nc; /* the old block is freed with the context */
    return q;
}

/* One slot of the context's stack, taken from batches of 256 (*batch,
 * *left): a dependency or an edge each holds one, thousands of them. */
static BDD *next_slot(sa_ctx *c, BDD **batch, size_t *left)
{
    if (*left == 0) {
        *batch = sa__slots(c, 256);
        *left = 256;
    }
    (*left)--;
    return (*batch)++;
}

/* ---- The state of one build ---------------------------------------------- */

/* A guarded arc between equations (step 2) or blocks (the graph's edges). */
typedef struct dep {
    uint32_t from, to;
    BDD *f; /* slot */
} dep;

/* A distinct block found so far: its identity key and its guard. Key layout:
 * [n_eq, n_rd, (i, c_i) * n_eq, (j, d_j) * n_eq, (j, k) * n_rd]. */
typedef struct tblock {
    int32_t *key;
    size_t len;
    BDD guard; /* referenced by hand, released by drop_blocks(): a slot would
                  be released by the split's marks, which it outlives;
                  exact on ok only (guard & ok is the block's set of modes,
                  not empty), like the edges' guards (cdg_int.h) */
    BDD local; /* likewise, the same function: the leaf's set (emit), the
                  guard itself for a replayed block or one merged from
                  several leaves. On the building it names the modes of
                  the block's room only, where guard & ok is a chain
                  through all mode variables. */
    uint32_t id;
} tblock;

/* One item of the identity split (step 4). */
typedef struct sitem {
    bool is_edge;
    uint32_t pos; /* position of the equation in the leaf's equation list */
    size_t e;     /* edge (is_edge) */
    bool act, te;
    unsigned val; /* c_i (equation) or s_e (edge) */
} sitem;

typedef struct build {
    sa_ctx *c;
    const sa_result *r;
    int w;          /* the steps' width (step_width): c_off, d_off */
    /* r's functions as the steps read them: equal to r's on ok (the valid
     * nonsingular modes), anything elsewhere (local_inputs) */
    const BDD *c_off, *d_off, *te, *chi_e, *chi_i;
    size_t os;      /* c_off's and d_off's stride: w, or r's w_off when
                       they are r's own vectors read on their first w bits */
    /* s_e = c_i + sigma_e: isum[e] where it is a constant (most of the
     * brake's), else -1 and its w bits at sum_of[e] (slots); c_i likewise
     * ci[i] where a constant, else -1 (CONST_UNSET until saturate_row
     * reads row i in a seeded build) */
    long long *isum;
    BDD **sum_of;
    long long *ci;
    BDD *xi;        /* n_edges: Xi_e, in the slots xs where found here (a
                       seeded build reads most from its seed: run_seeded) */
    BDD *xs;
    long long *dj; /* d_j where a constant, else -1 (CONST_UNSET: as ci) */
    /* step 2: dependencies, CSR by source equation */
    size_t *out_first;
    uint32_t *out_to;
    BDD **out_f;
    /* step 4 */
    uint32_t *elist; /* the equation set of the leaf being split */
    size_t n_elist;
    sitem *items;
    size_t n_items, cap_items;
    int32_t *kbuf;   /* key being built */
    size_t cap_kbuf;
    tblock *blocks;
    size_t n_blocks, cap_blocks;
    size_t *htab; /* open addressing: index + 1 into blocks, 0 empty */
    size_t hcap;
    size_t key_ints; /* sum of the blocks' key lengths (CDG_MAX_KEY_INTS) */
    /* The union-SCCs' memo (step 6): the hint's, read; r's, written. */
    bool families; /* sa_options.families: no block edges (step 5), and the
                      limits' messages do not suggest the option */
    const sa__bmemo *memo_in;
    sa__bmemo *memo_out;
    sa__within ok_within; /* r->ok's, for emit and guard_and (local_inputs
                             makes it, or finish when ok is false) */
    /* The union-SCC at hand: its equations' places (loc, -1 outside), its
     * variables' numbers in the order its edges first name them (vloc, -1
     * outside), and variable number l itself, vj[l] (number_vars) */
    const int32_t *loc;
    int32_t *vloc;
    uint32_t *vj;
    size_t scc_first;   /* the union-SCC's first block */
    const uint32_t *scc; /* its equations, n_scc of them (for too_large) */
    size_t scc_n;
} build;

/* ---- Step 1 --------------------------------------------------------------- */

/* The value of the w bits at v (w < 63), or -1 if one is not a constant:
 * sa__vvalue's, here where every equation, variable and edge asks it
 * (bddfalse and bddtrue are the nodes 0 and 1; a call per vector was a
 * tenth of the step after an edit). */
static inline long long vec_value(const BDD *v, int w)
{
    unsigned long long x = 0;
    for (int k = 0; k < w; k++) {
        if ((unsigned)v[k] > 1u)
            return -1;
        x |= (unsigned long long)v[k] << k;
    }
    return (long long)x;
}

/* Not read yet (constants, lazy). */
#define CONST_UNSET LLONG_MIN

/* The value of the vector of w bits at v, or -1 if it is not a constant. */
static long long vector_constant(const BDD *v, int w)
{
    return w >= 63 ? sa__vvalue(v, w) : vec_value(v, w);
}

/* out[k], the value of vector k (constants), read now if it was not. */
static long long constant_at(long long *out, const BDD *v, size_t k, int w, size_t stride)
{
    if (out[k] == CONST_UNSET)
        out[k] = vector_constant(&v[k * stride], w);
    return out[k];
}

/* The value of each of the n vectors of w bits at v, or -1 where one is not
 * a constant (temporaries of the context); lazy: CONST_UNSET each, read
 * when asked (constant_at: a seeded build reads the few rows it
 * saturates, not every row and column). */
static long long *constants(sa_ctx *c, const BDD *v, size_t n, int w, size_t stride, bool lazy)
{
    MDAE_ASSERT(bddfalse == 0 && bddtrue == 1); /* vec_value */
    long long *out = sa__alloc_raw(c, (n + 1) * sizeof *out);
    for (size_t k = 0; k < n; k++)
        out[k] = lazy ? CONST_UNSET : vector_constant(&v[k * stride], w);
    return out;
}

/* Step 1 for edge e as integers when c_i, sigma_e and d_j are constants
 * (ci, dj: constants(); c_i may also be the value it takes where its row
 * is matched, r->c_matched: most of the brake's): isum[e] and xi[e], true;
 * else false (nothing written). */
static bool saturate_constants(build *b, size_t e, const long long *ci, const long long *dj)
{
    const sa_result *r = b->r;
    int w = b->w;
    unsigned long long vs;
    long long c = ci[r->edge_eq[e]], d = dj[r->edge_v[e]];
    if (c < 0 && r->c_matched != NULL) /* where e is active, c_i is that (sa_int.h) */
        c = r->c_matched[r->edge_eq[e]];
    if (c < 0 || d < 0)
        return false;
    if (r->w_sigma < 63) {
        long long sv = vec_value(&r->sigma[e * r->w_sigma], r->w_sigma);
        if (sv < 0)
            return false;
        vs = (unsigned long long)sv;
    } else if (!sa__vconst_value(&r->sigma[e * r->w_sigma], r->w_sigma, &vs)) {
        return false;
    }
    /* w <= 62: modular as sa__vadd */
    unsigned long long sum = ((unsigned long long)c + vs) & ((1ull << w) - 1);
    b->isum[e] = (long long)sum;
    b->sum_of[e] = NULL;
    sa__put(&b->xs[e], sum == (unsigned long long)d ? b->chi_e[e] : bddfalse);
    b->xi[e] = b->xs[e];
    return true;
}

/* Step 1 for the edges of row i (b->ci, b->dj, b->xs set). */
static void saturate_row(build *b, uint32_t i)
{
    sa_ctx *c = b->c;
    const sa_result *r = b->r;
    int w = b->w;
    constant_at(b->ci, b->c_off, i, w, b->os);
    for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
        constant_at(b->dj, b->d_off, r->edge_v[e], w, b->os);
        if (saturate_constants(b, e, b->ci, b->dj))
            continue;
        b->isum[e] = -1;
        uint32_t j = r->edge_v[e];
        BDD *s = b->sum_of[e] = sa__slots(c, (size_t)w); /* kept to the end */
        size_t mark = sa__mark(c);
        BDD *sig = sa__slots(c, (size_t)w);
        for (int k = 0; k < w; k++)
            sa__put(&sig[k], k < r->w_sigma ? r->sigma[e * r->w_sigma + k] : bddfalse);
        sa__vadd(c, s, &b->c_off[i * b->os], sig, w);
        sa__put(&b->xs[e], sa__vequal(c, b->chi_e[e], s, &b->d_off[j * b->os], w));
        b->xi[e] = b->xs[e];
        sa__release(c, mark);
    }
}

/* Step 1's arrays for every row (written by saturate_row); c_i and d_j read
 * as saturate_row asks them unless all_slots (a build from scratch). */
static void saturation_arrays(build *b, bool all_slots)
{
    sa_ctx *c = b->c;
    const sa_result *r = b->r;
    b->xs = sa__slots(c, r->n_edges + 1);
    b->xi = all_slots ? b->xs : sa__alloc_raw(c, (r->n_edges + 1) * sizeof *b->xi);
    b->isum = sa__alloc_raw(c, (r->n_edges + 1) * sizeof *b->isum); /* written per row */
    b->sum_of = sa__alloc_raw(c, (r->n_edges + 1) * sizeof *b->sum_of);
    b->ci = constants(c, b->c_off, r->n_eq, b->w, b->os, !all_slots);
    b->dj = constants(c, b->d_off, r->n_var, b->w, b->os, !all_slots);
}

static void saturation(build *b)
{
    const sa_result *r = b->r;
    saturation_arrays(b, true);
    for (uint32_t i = 0; i < r->n_eq; i++) {
        saturate_row(b, i);
        if ((i & 255) == 255)
            sa__progress(b->c, "dependencies", i, r->n_eq);
    }
}

/* The tight edges into the result's memo (sa_result.tight_memo), for an
 * analysis it seeds: r is otherwise read only, and the memo is a function
 * of it. Without memory for it, no memo. */
static void keep_tight(build *b)
{
    sa_result *r = (sa_result *)b->r; /* the memo only: see sa_int.h */
    if (r->tight_memo != NULL || r->n_edges == 0)
        return;
    BDD *memo = mdae_malloc(r->n_edges * sizeof *memo);
    if (memo == NULL)
        return;
    for (size_t e = 0; e < r->n_edges; e++)
        memo[e] = bdd_addref(b->xi[e]);
    r->tight_memo = memo;
}

/* ---- Step 2 --------------------------------------------------------------- */

/* Counting sort's buckets for key[0 .. n) (each < n_keys): first[i] is
 * where bucket i starts, and first[n_keys + 1 + i] a copy to fill it by
 * (temporaries of the context). */
static size_t *bucket_starts(sa_ctx *c, const uint32_t *key, size_t n, uint32_t n_keys)
{
    size_t *first = sa__alloc(c, (2 * (size_t)n_keys + 2) * sizeof *first);
    for (size_t k = 0; k < n; k++) {
        MDAE_ASSERT(key[k] < n_keys);
        first[key[k] + 1]++;
    }
    for (uint32_t i = 0; i < n_keys; i++)
        first[i + 1] += first[i];
    memcpy(first + n_keys + 1, first, ((size_t)n_keys + 1) * sizeof *first);
    return first;
}

/* Sort ds[0 .. n) by (from, to), from < n_from: by counting on from, then
 * by insertion on to within each source (a handful each); stable. Linear
 * where qsort was a tenth of the brake's graph after an edit. */
static void sort_deps(sa_ctx *c, dep *ds, size_t n, uint32_t n_from)
{
    if (n < 2)
        return;
    sa__amark mark = sa__alloc_mark(c);
    uint32_t *key = sa__alloc_raw(c, n * sizeof *key);
    for (size_t k = 0; k < n; k++)
        key[k] = ds[k].from;
    size_t *first = bucket_starts(c, key, n, n_from);
    dep *out = sa__alloc_raw(c, n * sizeof *out);
    for (size_t k = 0; k < n; k++) {
        size_t at = first[n_from + 1 + key[k]]++; /* the bucket's fill */
        for (out[at] = ds[k]; at > first[key[k]] && out[at - 1].to > out[at].to; at--) {
            dep x = out[at - 1];
            out[at - 1] = out[at];
            out[at] = x;
        }
    }
    memcpy(ds, out, n * sizeof *ds);
    sa__alloc_release(c, mark);
}

/* Sort ds[0 .. n) by to, by insertion (one source's dependencies: a
 * handful); stable. */
static void sort_by_to(dep *ds, size_t n)
{
    for (size_t k = 1; k < n; k++)
        for (size_t at = k; at > 0 && ds[at - 1].to > ds[at].to; at--) {
            dep x = ds[at - 1];
            ds[at - 1] = ds[at];
            ds[at] = x;
        }
}

/* The dependencies of row i, appended to (*ds)[*nd ..): by target, those
 * of one target merged by OR (the same function in any order). cfirst,
 * cedges: the edges by variable (sa__columns). */
typedef struct deps {
    dep *ds;
    size_t nd, cap, left;
    BDD *batch;
} deps;

static void row_dependencies(build *b, uint32_t i, const size_t *cfirst, const size_t *cedges,
                             deps *d)
{
    sa_ctx *c = b->c;
    const sa_result *r = b->r;
    size_t from = d->nd;
    for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
        if (b->te[e] == bddfalse)
            continue;
        uint32_t j = r->edge_v[e];
        for (size_t q = cfirst[j]; q < cfirst[j + 1]; q++) {
            size_t e2 = cedges[q];
            if (r->edge_eq[e2] == i)
                continue;
            BDD f = sa__and(b->te[e], b->xi[e2]);
            if (f == bddfalse)
                continue;
            d->ds = grow(c, d->ds, d->nd, &d->cap, sizeof *d->ds);
            d->ds[d->nd].from = i;
            d->ds[d->nd].to = r->edge_eq[e2];
            d->ds[d->nd].f = next_slot(c, &d->batch, &d->left);
            sa__put(d->ds[d->nd].f, f);
            d->nd++;
        }
    }
    sort_by_to(&d->ds[from], d->nd - from);
    size_t m = from; /* duplicates merged */
    for (size_t k = from; k < d->nd; k++) {
        if (m > from && d->ds[m - 1].to == d->ds[k].to) {
            sa__put(d->ds[m - 1].f, sa__or(*d->ds[m - 1].f, *d->ds[k].f));
            continue;
        }
        d->ds[m++] = d->ds[k];
    }
    d->nd = m;
}

/* Step 2, row by row: the dependencies come out grouped by their source
 * equation, so only each source's few need sorting (by column they needed
 * a counting sort of all of them, a fifth of the step on an edit). */
static void dependencies(build *b)
{
    sa_ctx *c = b->c;
    const sa_result *r = b->r;
    const size_t *cfirst, *cedges; /* edges by variable (the layout's when kept) */
    sa__layout_columns(c, r, &cfirst, &cedges);
    deps d = {0};
    b->out_first = sa__alloc(c, (r->n_eq + 2) * sizeof *b->out_first);
    for (uint32_t i = 0; i < r->n_eq; i++) {
        row_dependencies(b, i, cfirst, cedges, &d);
        b->out_first[i + 1] = d.nd;
        if ((i & 255) == 255)
            sa__progress(c, "dependencies", i, r->n_eq);
    }
    b->out_to = sa__alloc_raw(c, (d.nd + 1) * sizeof *b->out_to);
    b->out_f = sa__alloc_raw(c, (d.nd + 1) * sizeof *b->out_f);
    for (size_t k = 0; k < d.nd; k++) {
        b->out_to[k] = d.ds[k].to;
        b->out_f[k] = d.ds[k].f;
    }
}

/* ---- Step 3: Tarjan on the union graph ---------------------------------- */

/* comp[i] = component number; returns the number of components. Components
 * are numbered in reverse topological order (Tarjan's). */
static uint32_t union_sccs(build *b, uint32_t *comp)
{
    return sa__sccs(b->c, b->r->n_eq, b->out_first, b->out_to, comp);
}

/* ---- Step 4: identities ------------------------------------------------- */

static uint64_t key_hash(const int32_t *k, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t a = 0; a < len; a++) {
        h ^= (uint32_t)k[a];
        h *= 1099511628211ull;
    }
    return h ^ (h >> 29);
}

/* A table for at least twice the blocks: blocks replayed from the memo
 * (new_block) are not counted as they come, so there may be many more
 * than hcap / 2 by now (the brake's N + 1 at N = 200: more blocks than
 * slots, and the probe below never ended). */
static void htab_grow(build *b)
{
    size_t cap = b->hcap ? 2 * b->hcap : 1024;
    while (cap < 2 * (b->n_blocks + 1))
        cap *= 2;
    size_t *t = sa__alloc(b->c, cap * sizeof *t);
    for (size_t k = 0; k < b->n_blocks; k++) {
        size_t h = key_hash(b->blocks[k].key, b->blocks[k].len) & (cap - 1);
        while (t[h])
            h = (h + 1) & (cap - 1);
        t[h] = k + 1;
    }
    b->htab = t;
    b->hcap = cap;
}

static int pair_cmp(const void *a, const void *b)
{
    const int32_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    if (x[1] != y[1])
        return x[1] < y[1] ? -1 : 1;
    return 0;
}

/* Sort n pairs p[2k], p[2k + 1] by pair_cmp: by insertion when there are
 * few (a leaf's unknowns, one to a handful: qsort's calls cost more). */
static void sort_pairs(int32_t *p, size_t n)
{
    if (n > 32) {
        qsort(p, n, 2 * sizeof *p, pair_cmp);
        return;
    }
    for (size_t a = 1; a < n; a++) {
        int32_t x0 = p[2 * a], x1 = p[2 * a + 1];
        size_t q = a;
        for (; q > 0 && (p[2 * q - 2] > x0 || (p[2 * q - 2] == x0 && p[2 * q - 1] > x1)); q--) {
            p[2 * q] = p[2 * q - 2];
            p[2 * q + 1] = p[2 * q - 1];
        }
        p[2 * q] = x0;
        p[2 * q + 1] = x1;
    }
}

/* A leaf of the split: every item has its value on the current path. */
/* Stop at a limit of the graph's size, saying which and why. */
/* Limit id (mdae.h) of value `value` was passed with the n equations eqs
 * of the model at hand: the diagnostic names them and is located there
 * (issue 36). */
static _Noreturn void too_large(build *b, int id, size_t value, const uint32_t *eqs, size_t n,
                                const char *fmt, ...) MDAE_PRINTF(6, 7);
static _Noreturn void too_large(build *b, int id, size_t value, const uint32_t *eqs, size_t n,
                                const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    /* Families build no block edges, so no edge limit (but the
     * identities': the families are built from the blocks). */
    const char *hint = b->families || id != MDAE_LIMIT_GRAPH_EDGES
                           ? ""
                           : " (their block families are smaller: mdae analyze --families, "
                             "session/analyze families:true; docs/block_families.md)";
    sa__limit_diag(b->c, b->r->m, eqs, eqs != NULL ? n : 0, id, (double)value,
                   "the conditional dependency graph is too large: %s, as its blocks take "
                   "too many different forms across the modes%s; it stopped",
                   what, hint);
    sa__fail(b->c, MDAE_E_LIMIT);
}

/* The pairs (A, B) step 5 compares: per read (j, k) of a block B, the
 * blocks A that have (j, k) as an unknown, or a bound on them when that
 * bound is at most limit. Counted without comparing
 * (the writers' orders of each variable, counted once), so a graph whose
 * comparisons alone would take minutes stops at once: rldc_parallel at
 * N = 15 has a few billion of them (docs/block_families.md). */
static size_t pairs_to_compare(sa_ctx *c, const cdg_graph *g, const size_t *wfirst,
                               const int *word, size_t limit)
{
    const sa_result *r = g->r;
    /* At most, every writer of a read's variable, whatever its order: one
     * pass over the reads, enough on most graphs (the brake's: a tenth of
     * the graph's final pass after an edit went to the exact count). */
    size_t bound = 0;
    for (size_t k = 0; k < g->n_blocks; k++)
        for (size_t a = 0; a < g->blocks[k].n_reads; a++) {
            uint32_t j = g->blocks[k].reads[a].index;
            bound += wfirst[j + 1] - wfirst[j];
        }
    if (bound <= limit)
        return bound;
    /* per variable, its writers' distinct orders and their counts */
    size_t *ofirst = sa__alloc(c, ((size_t)r->n_var + 2) * sizeof *ofirst);
    int *oval = sa__alloc_raw(c, (wfirst[r->n_var] + 1) * sizeof *oval);
    size_t *ocnt = sa__alloc_raw(c, (wfirst[r->n_var] + 1) * sizeof *ocnt);
    size_t no = 0;
    for (uint32_t j = 0; j < r->n_var; j++) {
        ofirst[j] = no;
        for (size_t q = wfirst[j]; q < wfirst[j + 1]; q++) {
            size_t o = ofirst[j];
            while (o < no && oval[o] != word[q])
                o++;
            if (o == no) {
                oval[no] = word[q];
                ocnt[no++] = 0;
            }
            ocnt[o]++;
        }
    }
    ofirst[r->n_var] = no;
    size_t pairs = 0;
    for (size_t k = 0; k < g->n_blocks; k++)
        for (size_t a = 0; a < g->blocks[k].n_reads; a++) {
            const cdg_item *rd = &g->blocks[k].reads[a];
            for (size_t o = ofirst[rd->index]; o < ofirst[rd->index + 1]; o++)
                if (oval[o] == rd->order)
                    pairs += ocnt[o];
        }
    return pairs;
}

/* The first of the graph's largest blocks. */
static const cdg_block *largest_block(const cdg_graph *g)
{
    const cdg_block *L = &g->blocks[0];
    for (size_t k = 1; k < g->n_blocks; k++)
        if (g->blocks[k].n_equations > L->n_equations)
            L = &g->blocks[k];
    return L;
}

/* The model indices of block B's equations (temporaries of c). */
static const uint32_t *block_equations(sa_ctx *c, const cdg_block *B)
{
    uint32_t *eqs = sa__alloc_raw(c, (B->n_equations + 1) * sizeof *eqs);
    for (size_t a = 0; a < B->n_equations; a++)
        eqs[a] = B->equations[a].index;
    return eqs;
}

/* ---- Step 6: the union-SCCs' memo (engine/sa_memo.c) ------------------------
 * A union-SCC's forms are a function of its equations' activity and
 * offsets, its edges' activity, matching and sums, and the dependencies
 * between its equations: all BDD nodes (exact on ok, a node too), offsets
 * and sums that are constants as their values, and which of its edges share
 * a variable. Its key holds them in the SCC's order (equation index), its
 * variables numbered in the order its edges first name them, and the
 * shape that ties them together. What is kept is the blocks the split
 * made, their guards and their identities with equations by their places
 * and variables by their numbers. An SCC found in the hint's memo takes
 * those blocks, its places and numbers read in the current model: the
 * same blocks, the same guards, without splitting and without merging
 * (the brake's edits: every railcar but the edited one). */

/* A union-SCC whose blocks' identities hold more integers than this is
 * not kept (the MSL's EngineV6 has 5,000 forms of a union-SCC of 2,528
 * equations). */
#define CDG_MEMO_MAX_REC ((size_t)1 << 18)

static void add_block(build *b, const int32_t *k, size_t len, BDD set, BDD local);

static void emit(build *b, BDD local)
{
    sa_ctx *c = b->c;
    const sa_result *r = b->r;
    /* The guard is kept exact on ok only, as the edges' are (cdg_int.h):
     * local & ok would copy ok's chain above the block's room on the
     * building, 4 N^2 nodes kept (issue 40). Empty within ok: no block. */
    if (sa__within_empty(&b->ok_within, local))
        return;
    BDD set = local;
    size_t ne = b->n_elist;
    size_t need = 2 + 4 * ne + 2 * b->n_items;
    if (b->cap_kbuf < need) {
        b->cap_kbuf = 2 * need;
        b->kbuf = sa__alloc_raw(c, b->cap_kbuf * sizeof *b->kbuf);
    }
    int32_t *k = b->kbuf;
    int32_t *eqs = k + 2, *unk = eqs + 2 * ne, *rd = unk + 2 * ne;
    size_t nu = 0, nr = 0;
    for (size_t a = 0; a < b->n_items; a++) {
        const sitem *it = &b->items[a];
        if (!it->is_edge) {
            eqs[2 * it->pos] = (int32_t)b->elist[it->pos];
            eqs[2 * it->pos + 1] = (int32_t)it->val;
        } else if (it->act && it->te) {
            unk[2 * nu] = (int32_t)r->edge_v[it->e];
            unk[2 * nu + 1] = (int32_t)it->val;
            nu++;
        }
    }
    if (nu != ne) {
        /* T gives each active equation exactly one edge in ok modes. */
        mdae_diags_add(c->diags, MDAE_SEV_ERROR, (mdae_range){{0, 0, 0}, {0, 0, 0}},
                       "internal error: a block has %zu equations and %zu unknowns", ne, nu);
        sa__fail(c, MDAE_E_BDD);
    }
    sort_pairs(unk, nu);
    for (size_t a = 0; a < b->n_items; a++) {
        const sitem *it = &b->items[a];
        if (!it->is_edge || !it->act || it->te)
            continue;
        int32_t p[2] = {(int32_t)r->edge_v[it->e], (int32_t)it->val};
        if (bsearch(p, unk, nu, 2 * sizeof *unk, pair_cmp) != NULL)
            continue;
        rd[2 * nr] = p[0];
        rd[2 * nr + 1] = p[1];
        nr++;
    }
    sort_pairs(rd, nr);
    size_t m = 0;
    for (size_t a = 0; a < nr; a++)
        if (m == 0 || pair_cmp(&rd[2 * (m - 1)], &rd[2 * a]) != 0) {
            rd[2 * m] = rd[2 * a];
            rd[2 * m + 1] = rd[2 * a + 1];
            m++;
        }
    nr = m;
    k[0] = (int32_t)ne;
    k[1] = (int32_t)nr;
    add_block(b, k, 2 + 4 * ne + 2 * nr, set, local);
}

/* A new block, identity k[0 .. len), guard `set` and `local` (local & ok
 * = set); no other block may have that identity. Returns its index. */
static size_t new_block(build *b, const int32_t *k, size_t len, BDD set, BDD local)
{
    sa_ctx *c = b->c;
    b->key_ints += len;
    if (b->key_ints > max_key_ints)
        too_large(b, MDAE_LIMIT_GRAPH_ITEMS, max_key_ints, b->scc, b->scc_n,
                  "its blocks' identities exceed %zu items (%zu blocks so far)", max_key_ints,
                  b->n_blocks);
    b->blocks = grow(c, b->blocks, b->n_blocks, &b->cap_blocks, sizeof *b->blocks);
    tblock *nt = &b->blocks[b->n_blocks];
    nt->key = sa__alloc_raw(c, len * sizeof *k);
    memcpy(nt->key, k, len * sizeof *k);
    nt->len = len;
    nt->guard = bdd_addref(set);
    nt->local = bdd_addref(local);
    return b->n_blocks++;
}

/* The modes `set` to the block whose identity is k[0 .. len), a new one if
 * no block has it (the hash table lists the blocks of the union-SCCs
 * split; a replayed one's cannot meet them: identities list their
 * equations). */
static void add_block(build *b, const int32_t *k, size_t len, BDD set, BDD local)
{
    if (2 * (b->n_blocks + 1) > b->hcap)
        htab_grow(b);
    size_t h = key_hash(k, len) & (b->hcap - 1);
    while (b->htab[h]) {
        tblock *t = &b->blocks[b->htab[h] - 1];
        if (t->len == len && memcmp(t->key, k, len * sizeof *k) == 0) {
            BDD nv = bdd_addref(bdd_or(t->guard, set));
            bdd_delref(t->guard);
            t->guard = nv;
            /* local & ok = guard for the guard itself: no second OR (the
             * incompressible building merges many leaves, the edges use few) */
            bdd_delref(t->local);
            t->local = bdd_addref(t->guard);
            return;
        }
        h = (h + 1) & (b->hcap - 1);
    }
    b->htab[h] = new_block(b, k, len, set, local) + 1;
}

/* Split `set` by the values of items[it..] (see step 4); sub is the position
 * inside item `it`: for an equation, the bits of c_i from the top; for an
 * edge, 0: chi_E, 1: T_e, 2..: the bits of s_e from the top. A test whose
 * one side is empty (the common case: most bits are constant on the set)
 * just advances in the loop; only real splits recurse, so the depth is the
 * number of real splits on a path, not the size of the block. */
static void split_items(build *b, BDD set0, size_t it, int sub, unsigned acc)
{
    sa_ctx *c = b->c;
    int w = b->w;
    size_t mark = sa__mark(c);
    BDD *s = sa__slots(c, 3); /* the current set, its 0 and 1 sides */
    sa__put(&s[0], set0);
    for (;;) {
        if (s[0] == bddfalse)
            break;
        if (it == b->n_items) {
            emit(b, s[0]);
            break;
        }
        sitem *x = &b->items[it];
        BDD f;
        int kind = 0; /* 0: a bit of a value, 1: chi_E, 2: T_e */
        int bit = -1;
        if (!x->is_edge || sub >= 2) {
            /* A constant's bits split nothing: its value at once. */
            long long known = x->is_edge ? b->isum[x->e] : b->ci[b->elist[x->pos]];
            bit = w - 1 - (x->is_edge ? sub - 2 : sub);
            if (bit < 0 || known >= 0) {
                x->val = known >= 0 ? (unsigned)known : acc;
                it++;
                sub = 0;
                acc = 0;
                continue;
            }
            f = x->is_edge ? b->sum_of[x->e][bit]
                           : b->c_off[b->elist[x->pos] * b->os + bit];
        } else {
            kind = sub == 0 ? 1 : 2;
            f = sub == 0 ? b->chi_e[x->e] : b->te[x->e];
        }
        sa__put(&s[1], sa__diff(s[0], f));
        sa__put(&s[2], sa__and(s[0], f));
        /* Side 0: an inactive edge is finished (no T_e, no order). */
        size_t it0 = kind == 1 ? it + 1 : it;
        int sub0 = kind == 1 ? 0 : sub + 1;
        unsigned acc0 = kind == 1 ? 0 : acc;
        unsigned acc1 = kind == 0 ? acc | (1u << bit) : 0;
        if (s[1] != bddfalse) {
            if (kind == 1)
                x->act = x->te = false;
            else if (kind == 2)
                x->te = false;
            if (s[2] == bddfalse) {
                sa__put(&s[0], s[1]);
                it = it0, sub = sub0, acc = acc0;
                continue;
            }
            split_items(b, s[1], it0, sub0, acc0);
        }
        /* Side 1. */
        if (kind == 1)
            x->act = true;
        else if (kind == 2)
            x->te = true;
        sa__put(&s[0], s[2]);
        sub = sub + 1;
        acc = acc1;
    }
    sa__release(c, mark);
}

/* The items of the leaf's equation set elist[0..n_elist): each equation,
 * then its edges. */
static void leaf_items(build *b)
{
    const sa_result *r = b->r;
    b->n_items = 0;
    for (size_t p = 0; p < b->n_elist; p++) {
        uint32_t i = b->elist[p];
        size_t need = b->n_items + 1 + (r->eq_first[i + 1] - r->eq_first[i]);
        if (b->cap_items < need) {
            size_t cap = 2 * need;
            sitem *q = sa__alloc(b->c, cap * sizeof *q);
            if (b->n_items)
                memcpy(q, b->items, b->n_items * sizeof *q);
            b->items = q;
            b->cap_items = cap;
        }
        b->items[b->n_items++] = (sitem){.is_edge = false, .pos = (uint32_t)p};
        for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++)
            b->items[b->n_items++] = (sitem){.is_edge = true, .pos = (uint32_t)p, .e = e};
    }
}

/* The leaf's equation set is elist[0..n_elist): split by identity. */
static void split_identity(build *b, BDD set)
{
    leaf_items(b);
    split_items(b, set, 0, 0, 0);
}

/* Split `set` (modes led by s) by the equation set: cand[0..n) are the
 * equations k > s with M(s, k) not false, mk their M(s, k). */
static void split_members(build *b, BDD set, const uint32_t *cand, BDD *const *mk, size_t n,
                          size_t at)
{
    if (set == bddfalse)
        return;
    if (at == n) {
        split_identity(b, set);
        return;
    }
    sa_ctx *c = b->c;
    size_t mark = sa__mark(c);
    BDD out = T(sa__diff(set, *mk[at]));
    BDD in = T(sa__and(set, *mk[at]));
    split_members(b, out, cand, mk, n, at + 1);
    size_t keep = b->n_elist;
    b->elist[b->n_elist++] = cand[at];
    split_members(b, in, cand, mk, n, at + 1);
    b->n_elist = keep;
    sa__release(c, mark);
}

/* The k of the closure's row s that are not false, by increasing k
 * (a union-SCC's closure is often sparse: the building's corridor makes
 * one union-SCC of 641 equations at N = 40, whose closure has 9,751 entries
 * of 410,881 and 1,800 mutually reachable pairs, and the loops over every
 * k were a tenth of an edit's instructions), or every k when the row is
 * dense (the MSL's EngineV6: two of 2,528 whose closure is complete):
 * keys NULL. */
typedef struct rkeys {
    uint32_t *k;
    size_t n;
    BDD *v; /* n: F(s, k) of each key k, referenced slots (scc_blocks) */
} rkeys;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The keys of a row whose entries not false are touched[0 .. nt), each
 * flagged in listed (cleared here), with their values moved out of the
 * scratch row (left all false): the closure is kept row by row, not as an
 * n x n matrix (at N = 1,000 the building's union-SCC of 16,000 equations
 * made that matrix 1 GB of slots, set and scanned; issue 40). */
static rkeys row_keys(sa_ctx *c, uint32_t *touched, size_t nt, bool *listed, size_t n,
                      BDD *row)
{
    rkeys out = {NULL, n, NULL};
    if (nt * 4 < n) {
        qsort(touched, nt, sizeof *touched, cmp_u32);
        out.k = sa__alloc(c, (nt + 1) * sizeof *out.k);
        memcpy(out.k, touched, nt * sizeof *out.k);
        out.n = nt;
    }
    out.v = sa__slots(c, out.n + 1);
    for (size_t a = 0; a < out.n; a++)
        sa__put(&out.v[a], row[out.k ? out.k[a] : a]);
    for (size_t a = 0; a < nt; a++) {
        listed[touched[a]] = false;
        sa__put(&row[touched[a]], bddfalse);
    }
    return out;
}

static uint32_t key_at(const rkeys *rk, size_t a) { return rk->k ? rk->k[a] : (uint32_t)a; }

/* F(s, k) in row s's keys rk, or NULL where it is false (not a key). */
static const BDD *row_at(const rkeys *rk, uint32_t k)
{
    if (rk->k == NULL)
        return &rk->v[k];
    size_t lo = 0, hi = rk->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rk->k[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < rk->n && rk->k[lo] == k ? &rk->v[lo] : NULL;
}

/* One union-SCC S (sorted equation indices, |S| >= 2; loc their places,
 * set by the caller). */
static void scc_blocks(build *b, const uint32_t *S, size_t n, const int32_t *loc)
{
    sa_ctx *c = b->c;
    size_t mark = sa__mark(c);
    /* F(s, k): modes where S[s] ~>* S[k], row s in keys[s] (row_keys),
     * found in row, a scratch row. A worklist per source, semi-naive: a
     * node passes on only the modes it gained since it was last processed
     * (delta), not its whole reach set again. */
    BDD *row = sa__slots(c, n);
    BDD *delta = sa__slots(c, n);
    uint32_t *queue = sa__alloc(c, (n + 1) * sizeof *queue);
    uint32_t *touched = sa__alloc(c, (n + 1) * sizeof *touched);
    bool *inq = sa__alloc(c, n + 1), *listed = sa__alloc(c, n + 1);
    rkeys *keys = sa__alloc(c, (n + 1) * sizeof *keys);
    for (size_t s = 0; s < n; s++) {
        size_t nt = 0;
        sa__put(&row[s], b->chi_i[S[s]]);
        sa__put(&delta[s], row[s]);
        touched[nt++] = (uint32_t)s;
        listed[s] = true;
        size_t qh = 0, qn = 0; /* circular queue of at most n entries */
        queue[0] = (uint32_t)s;
        qn = 1;
        inq[s] = true;
        while (qn > 0) {
            uint32_t k = queue[qh];
            qh = (qh + 1) % n;
            qn--;
            inq[k] = false;
            uint32_t i = S[k];
            size_t m1 = sa__mark(c);
            BDD d = T(delta[k]);
            sa__put(&delta[k], bddfalse);
            for (size_t q = b->out_first[i]; q < b->out_first[i + 1]; q++) {
                int32_t k2 = loc[b->out_to[q]];
                if (k2 < 0)
                    continue;
                size_t m2 = sa__mark(c);
                BDD step = T(sa__and(d, *b->out_f[q]));
                BDD gain = T(sa__diff(step, row[k2]));
                if (gain != bddfalse) {
                    if (!listed[k2]) {
                        listed[k2] = true;
                        touched[nt++] = (uint32_t)k2;
                    }
                    sa__put(&row[k2], sa__or(row[k2], gain));
                    sa__put(&delta[k2], sa__or(delta[k2], gain));
                    if (!inq[k2]) {
                        queue[(qh + qn) % n] = (uint32_t)k2;
                        qn++;
                        inq[k2] = true;
                    }
                }
                sa__release(c, m2);
            }
            sa__release(c, m1);
        }
        keys[s] = row_keys(c, touched, nt, listed, n, row);
        sa__progress(c, "blocks", s, n);
    }
    /* M(s, k) = F(s, k) & F(k, s), stored in the upper triangle of F: not
     * false only where k is a key of row s (and s one of row k). */
    for (size_t s = 0; s < n; s++)
        for (size_t a = 0; a < keys[s].n; a++) {
            size_t k = key_at(&keys[s], a);
            if (k <= s || keys[s].v[a] == bddfalse)
                continue;
            const BDD *back = row_at(&keys[k], (uint32_t)s);
            sa__put(&keys[s].v[a], back == NULL ? bddfalse : sa__and(keys[s].v[a], *back));
        }
    uint32_t *cand = sa__alloc(c, (n + 1) * sizeof *cand);
    BDD **mk = sa__alloc(c, (n + 1) * sizeof *mk);
    for (size_t s = 0; s < n; s++) {
        size_t m2 = sa__mark(c);
        BDD *lead = sa__slots(c, 1);
        sa__put(lead, b->chi_i[S[s]]);
        /* M(k, s) not false needs F(s, k): k among row s's keys. */
        for (size_t a = 0; a < keys[s].n && *lead != bddfalse; a++) {
            size_t k = key_at(&keys[s], a);
            const BDD *m = k < s ? row_at(&keys[k], (uint32_t)s) : NULL;
            if (m != NULL && *m != bddfalse)
                sa__put(lead, sa__diff(*lead, *m));
        }
        size_t nc = 0;
        for (size_t a = 0; a < keys[s].n && *lead != bddfalse; a++) {
            size_t k = key_at(&keys[s], a);
            if (k > s && keys[s].v[a] != bddfalse) {
                cand[nc] = S[k];
                mk[nc] = &keys[s].v[a];
                nc++;
            }
        }
        b->n_elist = 1;
        b->elist[0] = S[s];
        split_members(b, *lead, cand, mk, nc, 0);
        sa__release(c, m2);
    }
    sa__release(c, mark);
}

/* Number the variables of the union-SCC S (n equations) in the order its
 * edges first name them: b->vloc, b->vj (step 6). Returns how many. */
static size_t number_vars(build *b, const uint32_t *S, size_t n)
{
    const sa_result *r = b->r;
    size_t ne = 0, nv = 0;
    for (size_t p = 0; p < n; p++)
        ne += r->eq_first[S[p] + 1] - r->eq_first[S[p]];
    b->vj = sa__alloc_raw(b->c, (ne + 1) * sizeof *b->vj);
    for (size_t p = 0; p < n; p++)
        for (size_t e = r->eq_first[S[p]]; e < r->eq_first[S[p] + 1]; e++)
            if (b->vloc[r->edge_v[e]] < 0) {
                b->vloc[r->edge_v[e]] = (int32_t)nv;
                b->vj[nv++] = r->edge_v[e];
            }
    return nv;
}

/* Variable number l of the union-SCC at hand in the current model. */
static uint32_t var_of(const build *b, int32_t l)
{
    MDAE_ASSERT(l >= 0);
    return b->vj[l];
}

/* The key of the union-SCC S (n equations, loc their places, its variables
 * numbered): see step 6. Its arrays are temporaries of the context. */
static void scc_key(build *b, const uint32_t *S, size_t n, const int32_t *loc, sa__bkey *k)
{
    sa_ctx *c = b->c;
    const sa_result *r = b->r;
    size_t w = (size_t)b->w, ns = 4 + 2 * n, nf = 1, nd = 0;
    for (size_t p = 0; p < n; p++) {
        uint32_t i = S[p];
        nf += 1 + (b->ci[i] < 0 ? w : 0);
        for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
            ns += 2;
            nf += 2 + (b->isum[e] < 0 ? w : 0);
        }
        for (size_t q = b->out_first[i]; q < b->out_first[i + 1]; q++)
            nd += loc[b->out_to[q]] >= 0;
    }
    ns += 2 * nd;
    nf += nd;
    int32_t *shape = sa__alloc_raw(c, ns * sizeof *shape); /* written whole */
    BDD *funs = sa__alloc_raw(c, nf * sizeof *funs);
    size_t a = 0, f = 0;
    shape[a++] = SA_BMEMO_SCC;
    shape[a++] = (int32_t)n;
    shape[a++] = b->w;
    shape[a++] = (int32_t)nd;
    funs[f++] = r->ok;
    /* A constant c_i or s_e is its value in the shape (w <= 31 bits: an
     * int32), a vector -1 there and its bits in the functions. Each edge's
     * variable by its number: which edges share a variable. */
    for (size_t p = 0; p < n; p++) {
        uint32_t i = S[p];
        shape[a++] = (int32_t)(r->eq_first[i + 1] - r->eq_first[i]);
        MDAE_ASSERT(b->ci[i] != CONST_UNSET); /* saturated: split_region */
        shape[a++] = (int32_t)b->ci[i];
        funs[f++] = b->chi_i[i];
        for (size_t x = 0; b->ci[i] < 0 && x < w; x++)
            funs[f++] = b->c_off[i * b->os + x];
        for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
            shape[a++] = (int32_t)b->isum[e];
            shape[a++] = b->vloc[r->edge_v[e]];
            funs[f++] = b->chi_e[e];
            funs[f++] = b->te[e];
            for (size_t x = 0; b->isum[e] < 0 && x < w; x++)
                funs[f++] = b->sum_of[e][x];
        }
        for (size_t q = b->out_first[i]; q < b->out_first[i + 1]; q++) {
            int32_t to = loc[b->out_to[q]];
            if (to < 0)
                continue;
            shape[a++] = (int32_t)p;
            shape[a++] = to;
            funs[f++] = *b->out_f[q];
        }
    }
    MDAE_ASSERT(a == ns && f == nf);
    *k = (sa__bkey){shape, ns, funs, nf};
}

/* The blocks the union-SCC split (from b->scc_first on) into r's memo under
 * key k: their guards, and their identities with the equations by their
 * places and the variables by their numbers. Nothing if they take more
 * than CDG_MEMO_MAX_REC integers. */
static void keep_scc(build *b, const sa__bkey *k)
{
    if (b->memo_out == NULL)
        return;
    size_t nb = b->n_blocks - b->scc_first, len = 0;
    for (size_t q = b->scc_first; q < b->n_blocks; q++)
        len += b->blocks[q].len;
    if (len > CDG_MEMO_MAX_REC)
        return;
    int32_t *d = sa__alloc_raw(b->c, (len + 1) * sizeof *d);
    BDD *f = sa__alloc_raw(b->c, (nb + 1) * sizeof *f);
    size_t at = 0;
    for (size_t q = b->scc_first; q < b->n_blocks; q++) {
        const tblock *t = &b->blocks[q];
        size_t ne = (size_t)t->key[0];
        f[q - b->scc_first] = t->guard;
        d[at++] = t->key[0];
        d[at++] = t->key[1];
        for (size_t x = 2; x < t->len; x += 2) {
            bool eq = x < 2 + 2 * ne;
            int32_t local = eq ? b->loc[t->key[x]] : b->vloc[t->key[x]];
            MDAE_ASSERT(local >= 0); /* the union-SCC's own */
            d[at++] = local;
            d[at++] = t->key[x + 1];
        }
    }
    MDAE_ASSERT(at == len);
    sa__bmemo_add(b->c, b->memo_out, k, &(sa__mval){f, nb, d, len, bddtrue, NULL});
}

/* The blocks of the union-SCC S from the hint's memo under key k, and the
 * entry kept in r's: true; false if the memo does not have it (nothing
 * added). The key fixed the places, numbers and values; the equations and
 * variables are the current model's (var_of), whose order may differ from
 * the kept one's: pairs sorted again. */
static bool replay_scc(build *b, const uint32_t *S, const sa__bkey *k)
{
    sa__mval v;
    if (!sa__bmemo_find(b->memo_in, k, &v))
        return false;
    size_t d = 0;
    for (size_t q = 0; q < v.n_f; q++) {
        MDAE_ASSERT(d + 2 <= v.n_d);
        size_t ne = (size_t)v.d[d], nr = (size_t)v.d[d + 1], len = 2 + 4 * ne + 2 * nr;
        MDAE_ASSERT(d + len <= v.n_d);
        if (b->cap_kbuf < len) {
            b->cap_kbuf = 2 * len;
            b->kbuf = sa__alloc_raw(b->c, b->cap_kbuf * sizeof *b->kbuf);
        }
        int32_t *key = b->kbuf;
        key[0] = (int32_t)ne;
        key[1] = (int32_t)nr;
        for (size_t x = 2; x < len; x += 2) {
            int32_t local = v.d[d + x];
            key[x] = x < 2 + 2 * ne ? (int32_t)S[local] : (int32_t)var_of(b, local);
            key[x + 1] = v.d[d + x + 1];
        }
        sort_pairs(key + 2 + 2 * ne, ne); /* unknowns */
        sort_pairs(key + 2 + 4 * ne, nr); /* reads */
        new_block(b, key, len, v.f[q], v.f[q]); /* within ok: the key holds it */
        d += len;
    }
    MDAE_ASSERT(d == v.n_d);
    sa__bmemo_add(b->c, b->memo_out, k, &v);
    return true;
}

/* The forms of the union-SCC S (n equations, sorted), as steps 3 and 4
 * say, or from the hint's memo (step 6); kept in r's memo. loc and
 * b->vloc: -1 everywhere, on entry and on return. True if from the memo. */
static bool component(build *b, const uint32_t *S, size_t n, int32_t *loc)
{
    sa_ctx *c = b->c;
    size_t mark = sa__mark(c);
    b->scc = S; /* what a limit names (too_large) */
    b->scc_n = n;
    for (size_t a = 0; a < n; a++)
        loc[S[a]] = (int32_t)a;
    b->loc = loc;
    size_t nv = number_vars(b, S, n);
    sa__bkey key;
    scc_key(b, S, n, loc, &key);
    b->scc_first = b->n_blocks;
    bool reused = replay_scc(b, S, &key);
    if (!reused) {
        if (n == 1) {
            b->n_elist = 1;
            b->elist[0] = S[0];
            split_identity(b, b->chi_i[S[0]]);
        } else {
            scc_blocks(b, S, n, loc);
        }
        keep_scc(b, &key);
    }
    for (size_t l = 0; l < nv; l++)
        b->vloc[var_of(b, (int32_t)l)] = -1;
    for (size_t a = 0; a < n; a++)
        loc[S[a]] = -1;
    sa__release(c, mark);
    b->scc = NULL;
    return reused;
}

/* ---- Final order and edges ------------------------------------------------ */

/* Up to this many blocks, sort_blocks sorts in place (both sorts are
 * stable by tblock_cmp: the same order). */
#define SORT_FEW_BLOCKS 32

static int tblock_cmp(const void *a, const void *b)
{
    const tblock *x = a, *y = b;
    /* Smallest equation index first (keys list equations sorted), then the
     * whole key. */
    if (x->key[2] != y->key[2])
        return x->key[2] < y->key[2] ? -1 : 1;
    size_t n = x->len < y->len ? x->len : y->len;
    for (size_t k = 0; k < n; k++)
        if (x->key[k] != y->key[k])
            return x->key[k] < y->key[k] ? -1 : 1;
    return x->len < y->len ? -1 : x->len > y->len;
}

/* A stable insertion sort by tblock_cmp: sort_blocks's order for the few
 * new blocks of an edit, without its buckets (a pass over every equation). */
static void insertion_sort_blocks(tblock *v, size_t n)
{
    for (size_t k = 1; k < n; k++)
        for (size_t at = k; at > 0 && tblock_cmp(&v[at - 1], &v[at]) > 0; at--) {
            tblock x = v[at - 1];
            v[at - 1] = v[at];
            v[at] = x;
        }
}

/* Sort v[0 .. n) by tblock_cmp: by counting on the smallest equation
 * (key[2] < n_eq), then by insertion among the blocks that share it (a
 * handful: an equation's forms in different modes). qsort's comparisons
 * through a pointer were a sixth of the graph's final pass on an edit. */
static void sort_blocks(sa_ctx *c, tblock *v, size_t n, uint32_t n_eq)
{
    if (n < 2)
        return;
    if (n <= SORT_FEW_BLOCKS) {
        insertion_sort_blocks(v, n);
        return;
    }
    sa__amark temps = sa__alloc_mark(c);
    uint32_t *key = sa__alloc_raw(c, n * sizeof *key);
    for (size_t k = 0; k < n; k++) {
        MDAE_ASSERT(v[k].key[2] >= 0);
        key[k] = (uint32_t)v[k].key[2];
    }
    size_t *first = bucket_starts(c, key, n, n_eq);
    tblock *out = sa__alloc_raw(c, n * sizeof *out);
    for (size_t k = 0; k < n; k++) {
        size_t at = first[n_eq + 1 + key[k]]++; /* the bucket's fill */
        for (out[at] = v[k]; at > first[key[k]] && tblock_cmp(&out[at - 1], &out[at]) > 0; at--) {
            tblock x = out[at - 1];
            out[at - 1] = out[at];
            out[at] = x;
        }
    }
    memcpy(v, out, n * sizeof *v);
    sa__alloc_release(c, temps);
}

/* guard(A) & guard(B) = (local(A) & local(B)) & ok: where the locals'
 * conjunction is one of them (a reader in some of its writer's modes) or
 * empty, that block's guard is the edge's, or false, without a conjunction
 * of the guards. Those
 * walk both operands above their first common node, and on a model whose
 * invariants span every mode variable (the building) ok and every guard
 * are chains through all of them: O(N) an edge (issue 40); the locals name
 * the blocks' own rooms. In every case the locals' conjunction x, unmasked:
 * an edge's guard is kept exact on ok only (cdg_int.h, eguard), since
 * x & ok would be a chain of O(N) new nodes kept for each edge (26,000 of
 * them at N = 1,000: 7.3 G instructions, and most of the live nodes that
 * every garbage collection marks). Whether x & ok is empty is told by its
 * simplification within ok, which sa_within.c makes from x, locally. */
static BDD guard_and(build *b, const tblock *ta, const tblock *tb)
{
    sa_ctx *c = b->c;
    /* Guards are exact on ok only and not empty there (emit). */
    BDD x = T(sa__and(ta->guard, tb->guard));
    if (x == tb->guard || x == ta->guard) /* one guard within the other */
        return x;
    if (x == bddfalse || sa__within_empty(&b->ok_within, x))
        return bddfalse;
    return x;
}

/* guard(A) & guard(B), an edge's guard: from the hint's memo when it has
 * the pair (the blocks the edit left keep their guards' nodes, and the
 * building's carry its valid modes' 81 nodes: 2,300 instructions a
 * conjunction, thousands of them), kept in r's. */
static BDD edge_guard(build *b, const tblock *ta, const tblock *tb)
{
    sa_ctx *c = b->c;
    BDD ga = ta->guard, gb = tb->guard;
    /* Guards are exact on ok only (emit): where one is ok or true, the
     * other serves. */
    if (ga == b->r->ok || ga == bddtrue)
        return gb;
    if (gb == b->r->ok || gb == bddtrue || ga == gb)
        return ga;
    if (b->memo_out == NULL)
        return guard_and(b, ta, tb);
    static const int32_t tag = SA_BMEMO_EDGE;
    /* with ok: the value, exact on ok only (guard_and), is the edge's
     * guard only for the same valid modes */
    BDD pair[3] = {ga, gb, b->r->ok};
    sa__bkey k = {&tag, 1, pair, 3};
    sa__mval v;
    if (sa__bmemo_find(b->memo_in, &k, &v)) {
        sa__bmemo_add(c, b->memo_out, &k, &v);
        return v.f[0];
    }
    BDD f = guard_and(b, ta, tb);
    sa__bmemo_add(c, b->memo_out, &k, &(sa__mval){&f, 1, NULL, 0, bddtrue, NULL});
    return f;
}

/* The graph's block arrays for nb blocks of nitems items in all. */
static void alloc_blocks(sa_ctx *c, cdg_graph *g, size_t nb, size_t nitems)
{
    g->blocks = sa__alloc_keep_raw(c, (nb + 1) * sizeof *g->blocks);
    g->bguard = sa__alloc_keep_raw(c, (nb + 1) * sizeof *g->bguard);
    g->blocal = sa__alloc_keep_raw(c, (nb + 1) * sizeof *g->blocal);
    g->items = sa__alloc_keep_raw(c, (nitems + 1) * sizeof *g->items);
    g->n_blocks = nb;
}

/* Block k of g: ne equations, their unknowns and nr reads from the pairs
 * p (key layout, tblock), items from *it on (advanced), guard and local
 * referenced. */
static void set_block(cdg_graph *g, size_t k, const int32_t *p, size_t ne, size_t nr,
                      cdg_item **it, BDD guard, BDD local)
{
    const mel_model *m = g->r->m;
    cdg_block *blk = &g->blocks[k];
    cdg_item *x = *it;
    blk->id = (uint32_t)k;
    blk->n_equations = blk->n_unknowns = ne;
    blk->n_reads = nr;
    blk->equations = x;
    for (size_t a = 0; a < ne; a++, p += 2, x++)
        *x = (cdg_item){(uint32_t)p[0], p[1], m->equations[p[0]].name};
    blk->unknowns = x;
    for (size_t a = 0; a < ne; a++, p += 2, x++)
        *x = (cdg_item){(uint32_t)p[0], p[1], m->variables[p[0]].name};
    blk->reads = x;
    for (size_t a = 0; a < nr; a++, p += 2, x++)
        *x = (cdg_item){(uint32_t)p[0], p[1], m->variables[p[0]].name};
    *it = x;
    if (ne > g->max_block)
        g->max_block = ne;
    g->bguard[k] = bdd_addref(guard);
    g->blocal[k] = bdd_addref(local);
}

/* The writers of each variable: blocks wblk[q] writing it at order
 * word[q], q in wfirst[j] .. wfirst[j + 1) (temporaries of c). */
typedef struct writers {
    size_t *first;
    uint32_t *blk;
    int *ord;
} writers;

static writers writers_of(sa_ctx *c, const cdg_graph *g)
{
    const sa_result *r = g->r;
    size_t nb = g->n_blocks;
    writers w;
    w.first = sa__alloc(c, (r->n_var + 2) * sizeof *w.first);
    for (size_t k = 0; k < nb; k++)
        for (size_t a = 0; a < g->blocks[k].n_unknowns; a++)
            w.first[g->blocks[k].unknowns[a].index + 1]++;
    for (uint32_t j = 0; j < r->n_var; j++)
        w.first[j + 1] += w.first[j];
    size_t *fill = sa__alloc_raw(c, (r->n_var + 1) * sizeof *fill);
    memcpy(fill, w.first, r->n_var * sizeof *fill);
    w.blk = sa__alloc_raw(c, (w.first[r->n_var] + 1) * sizeof *w.blk);
    w.ord = sa__alloc_raw(c, (w.first[r->n_var] + 1) * sizeof *w.ord);
    for (size_t k = 0; k < nb; k++)
        for (size_t a = 0; a < g->blocks[k].n_unknowns; a++) {
            size_t q = fill[g->blocks[k].unknowns[a].index]++;
            w.blk[q] = (uint32_t)k;
            w.ord[q] = g->blocks[k].unknowns[a].order;
        }
    return w;
}

/* Stop before comparing more pairs of blocks than the edges' limit allows
 * (pairs_to_compare). */
static void check_pairs(build *b, const cdg_graph *g, const writers *w)
{
    if (pairs_to_compare(b->c, g, w->first, w->ord, max_edges * CDG_PAIRS_PER_EDGE) >
        max_edges * CDG_PAIRS_PER_EDGE) {
        const cdg_block *L = largest_block(g); /* where it is located */
        too_large(b, MDAE_LIMIT_GRAPH_EDGES, max_edges, block_equations(b->c, L),
                  L->n_equations,
                  "its %zu blocks have more than %zu pairs of blocks to compare (a writer and "
                  "a reader of the same unknown) for at most %zu edges",
                  g->n_blocks, max_edges * CDG_PAIRS_PER_EDGE, max_edges);
    }
}

/* Edge A -> B of guard f (not false) appended to es (B names the limit). */
static void add_edge(build *b, const cdg_graph *g, deps *es, uint32_t A, uint32_t B, BDD f)
{
    if (es->nd == max_edges) {
        const cdg_block *L = &g->blocks[B];
        too_large(b, MDAE_LIMIT_GRAPH_EDGES, max_edges, block_equations(b->c, L),
                  L->n_equations, "it has more than %zu edges between its %zu blocks", max_edges,
                  g->n_blocks);
    }
    es->ds = grow(b->c, es->ds, es->nd, &es->cap, sizeof *es->ds);
    es->ds[es->nd].from = A;
    es->ds[es->nd].to = B;
    es->ds[es->nd].f = next_slot(b->c, &es->batch, &es->left);
    sa__put(es->ds[es->nd].f, f);
    es->nd++;
}

/* The edges es, sorted by (from, to), into g. */
static void store_edges(build *b, cdg_graph *g, deps *es)
{
    sa_ctx *c = b->c;
    size_t ne = es->nd;
    sort_deps(c, es->ds, ne, (uint32_t)g->n_blocks);
    g->efrom = sa__alloc_keep_raw(c, (ne + 1) * sizeof *g->efrom);
    g->eto = sa__alloc_keep_raw(c, (ne + 1) * sizeof *g->eto);
    g->eguard = sa__alloc_keep_raw(c, (ne + 1) * sizeof *g->eguard);
    for (size_t k = 0; k < ne; k++) {
        g->efrom[k] = es->ds[k].from;
        g->eto[k] = es->ds[k].to;
        g->eguard[k] = bdd_addref(*es->ds[k].f);
        g->n_edges = k + 1;
    }
}

/* The edges A -> B whose reader B is one of the blocks is[0 .. n) (all
 * when is is NULL), appended to es; fin[k]: block k's guard and local. */
static void reader_edges(build *b, const cdg_graph *g, const writers *w, const tblock *fin,
                         const uint32_t *is, size_t n, deps *es)
{
    sa_ctx *c = b->c;
    size_t nb = g->n_blocks;
    uint32_t *seen = sa__alloc(c, (nb + 1) * sizeof *seen); /* last B + 1 */
    for (size_t x = 0; x < n; x++) {
        size_t bb = is != NULL ? is[x] : x;
        const cdg_block *B = &g->blocks[bb];
        for (size_t a = 0; a < B->n_reads; a++) {
            uint32_t j = B->reads[a].index;
            for (size_t q = w->first[j]; q < w->first[j + 1]; q++) {
                uint32_t A = w->blk[q];
                if (A == bb || seen[A] == bb + 1 || w->ord[q] != B->reads[a].order)
                    continue;
                BDD f = edge_guard(b, &fin[A], &fin[bb]);
                seen[A] = (uint32_t)bb + 1;
                if (f != bddfalse)
                    add_edge(b, g, es, A, (uint32_t)bb, f);
            }
        }
        if ((x & 255) == 255)
            sa__progress(c, "edges", x, n);
    }
}

static void finish(build *b, cdg_graph *g)
{
    sa_ctx *c = b->c;
    const sa_result *r = b->r;
    size_t nb = b->n_blocks;
    sort_blocks(c, b->blocks, nb, r->n_eq);
    size_t nitems = 0;
    for (size_t k = 0; k < nb; k++) {
        b->blocks[k].id = (uint32_t)k;
        nitems += (b->blocks[k].len - 2) / 2;
    }
    alloc_blocks(c, g, nb, nitems);
    cdg_item *it = g->items;
    for (size_t k = 0; k < nb; k++) {
        const tblock *t = &b->blocks[k];
        set_block(g, k, t->key + 2, (size_t)t->key[0], (size_t)t->key[1], &it, t->guard,
                  t->local);
    }

    /* Step 5, unless the caller reports families (which find their edges
     * from their items: engine/cdg_family.c). */
    g->no_edges = b->families;
    if (b->families)
        return;
    writers w = writers_of(c, g);
    sa__within_init(c, r->ok, &b->ok_within);
    sa__progress(c, "edges", 0, nb);
    check_pairs(b, g, &w);
    deps es = {0};
    reader_edges(b, g, &w, b->blocks, NULL, nb, &es);
    store_edges(b, g, &es);
}

/* The steps' inputs: r's offsets, chosen matching and guards simplified
 * within ok (Coudert-Madre's restrict, bdd_simplify). r keeps them masked
 * by ok, the valid nonsingular modes, which on a model whose invariants
 * span every mode variable (the building: one per room) is a chain through
 * all of them: every operation on a masked function walked the chain, and
 * the graph grew like N^2.2 from N = 20 to 100. Simplified, they depend on
 * the modes near their equation. Every step is pointwise in the mode
 * (conjunctions, comparisons, reachability, splits), so its results agree
 * with the masked ones on ok, and emit masks the leaves by ok: the same
 * blocks and guards. */
/* The width the steps compute on. r's offsets have w_off bits, enough for
 * any canonical offset of the model (the brake at N = 100: 14); the dual
 * leaves them below 2^(w_sigma + 2) on its first attempt (sa_dual.c),
 * and then c + sigma fits in w_sigma + 3 bits: every vector of the steps
 * is that much shorter (a third of the brake's). The same width for any
 * version whose offsets stay that small, so the memo's keys, which hold
 * it, still meet. */
static int step_width(const sa_result *r)
{
    int wn = r->w_sigma + 3, wo = r->w_off;
    if (wn >= wo || r->c == NULL || r->d == NULL)
        return wo;
    if (r->small) /* the dual says so: no scan */
        return wn;
    for (size_t k = 0; k < (size_t)r->n_eq; k++)
        for (int q = wn - 1; q < wo; q++)
            if (!sa__off_never(sa__c_row(r, k), q))
                return wo;
    for (size_t k = 0; k < (size_t)r->n_var; k++)
        for (int q = wn - 1; q < wo; q++)
            if (!sa__off_never(sa__d_row(r, k), q))
                return wo;
    return wn;
}

bool cdg__inputs_exact;

static void local_inputs(build *b)
{
    sa_ctx *c = b->c;
    const sa_result *r = b->r;
    size_t w = (size_t)b->w, wo = (size_t)r->w_off;
    /* r's own, read on their first w bits: as stored when ok is a constant
     * (then both forms are the exact one), else their within forms below */
    b->c_off = sa__c_stored(r);
    b->d_off = sa__d_stored(r);
    b->os = wo;
    b->te = sa__te_exact(r);
    b->chi_e = r->chi_e;
    b->chi_i = r->chi_i;
    sa__within_init(c, r->ok, &b->ok_within); /* emit's emptiness, ci below */
    bool narrow = w < wo, masked = r->ok != bddtrue && r->ok != bddfalse;
    if (narrow && masked) { /* the offsets on b->w bits (step_width), simplified */
        BDD *cv = sa__slots(c, r->n_eq * w + 1), *dv = sa__slots(c, r->n_var * w + 1);
        for (size_t i = 0; i < r->n_eq; i++)
            for (size_t q = 0; q < w; q++)
                sa__put(&cv[i * w + q], sa__off_in_ok(r, sa__c_row(r, i), (int)q));
        for (size_t j = 0; j < r->n_var; j++)
            for (size_t q = 0; q < w; q++)
                sa__put(&dv[j * w + q], sa__off_in_ok(r, sa__d_row(r, j), (int)q));
        b->c_off = cv;
        b->d_off = dv;
        b->os = w;
    }
    if (!masked)
        return;
    BDD *te = sa__slots(c, r->n_edges + 1), *ce = sa__slots(c, r->n_edges + 1);
    BDD *ci = sa__slots(c, (size_t)r->n_eq + 1);
    if (!narrow) {
        BDD *cv = sa__slots(c, r->n_eq * w + 1), *dv = sa__slots(c, r->n_var * w + 1);
        for (size_t k = 0; k < r->n_eq * w; k++) /* w == wo: k is row k / w's bit k % w */
            sa__put(&cv[k], sa__off_in_ok(r, sa__c_stored(r), (int)k));
        for (size_t k = 0; k < r->n_var * w; k++)
            sa__put(&dv[k], sa__off_in_ok(r, sa__d_stored(r), (int)k));
        b->c_off = cv;
        b->d_off = dv;
    }
    /* chi_E within ok as chi_I below: simplify(chi_E & ok, ok), made
     * without the chain (bdd_simplify(chi_E, ok) quantified ok's rooms
     * above the edge's, each edge: 0.46 G instructions of the building at
     * N = 1,000); it agrees with chi_E on ok, which is all the steps read
     * (above) */
    for (size_t e = 0; e < r->n_edges; e++) {
        sa__put(&te[e], sa__te_in_ok(r, e));
        size_t mark = sa__mark(c);
        sa__put(&ce[e], cdg__inputs_exact
                            ? sa__simplify(r->chi_e[e], r->ok)
                            : sa__within_simplify(c, &b->ok_within, r->chi_e[e]));
        sa__release(c, mark);
    }
    /* simplify(chi_I & ok, ok) without the chain */
    for (uint32_t i = 0; i < r->n_eq; i++)
        sa__put(&ci[i], sa__within_simplify(c, &b->ok_within, r->chi_i[i]));
    b->te = te;
    b->chi_e = ce;
    b->chi_i = ci;
}

/* What a build seeded by g reads: the union graph (first, to: CSR by
 * source over r's equations) and its components comp. */
static void keep_topology(build *b, cdg_graph *g, const uint32_t *comp, const size_t *first,
                          const uint32_t *to)
{
    sa_ctx *c = b->c;
    size_t n = b->r->n_eq, na = first[n];
    g->arc_first = sa__alloc_keep_raw(c, (n + 1) * sizeof *g->arc_first);
    g->arc_to = sa__alloc_keep_raw(c, (na + 1) * sizeof *g->arc_to);
    g->comp = sa__alloc_keep_raw(c, (n + 1) * sizeof *g->comp);
    memcpy(g->arc_first, first, (n + 1) * sizeof *first);
    memcpy(g->arc_to, to, na * sizeof *to);
    memcpy(g->comp, comp, n * sizeof *comp);
    g->w = b->w;
    g->epoch = sa__layout_epoch();
}

static void run(build *b, cdg_graph *g)
{
    sa_ctx *c = b->c;
    const sa_result *r = b->r;
    b->w = r->w_off;
    sa__progress(c, "dependencies", 0, r->n_edges);
    if (r->ok == bddfalse || r->n_eq == 0) {
        finish(b, g);
        return;
    }
    b->w = step_width(r);
    local_inputs(b);
    saturation(b);
    keep_tight(b);
    dependencies(b);
    uint32_t *comp = sa__alloc_raw(c, (r->n_eq + 1) * sizeof *comp);
    uint32_t ncomp = union_sccs(b, comp);
    g->n_sccs = ncomp;
    keep_topology(b, g, comp, b->out_first, b->out_to);
    /* Members of each component, sorted by equation index. */
    size_t *cfirst = sa__alloc(c, ((size_t)ncomp + 2) * sizeof *cfirst);
    for (uint32_t i = 0; i < r->n_eq; i++)
        cfirst[comp[i] + 1]++;
    for (uint32_t k = 0; k < ncomp; k++)
        cfirst[k + 1] += cfirst[k];
    size_t *fill = sa__alloc_raw(c, ((size_t)ncomp + 1) * sizeof *fill);
    memcpy(fill, cfirst, ncomp * sizeof *fill);
    uint32_t *members = sa__alloc_raw(c, (r->n_eq + 1) * sizeof *members);
    for (uint32_t i = 0; i < r->n_eq; i++)
        members[fill[comp[i]]++] = i;
    int32_t *loc = sa__alloc_raw(c, (r->n_eq + 1) * sizeof *loc);
    for (uint32_t i = 0; i < r->n_eq; i++)
        loc[i] = -1;
    b->vloc = sa__alloc_raw(c, (r->n_var + 1) * sizeof *b->vloc);
    for (uint32_t j = 0; j < r->n_var; j++)
        b->vloc[j] = -1;
    b->elist = sa__alloc_raw(c, (r->n_eq + 1) * sizeof *b->elist);
    size_t done = 0;
    for (uint32_t k = 0; k < ncomp; k++) {
        const uint32_t *S = &members[cfirst[k]];
        size_t n = cfirst[k + 1] - cfirst[k];
        g->sccs_reused += component(b, S, n, loc);
        done += n;
        sa__progress(c, "blocks", done, r->n_eq);
    }
    finish(b, g);
}

/* ---- Seeded by the previous version's graph (cdg_build_seeded) --------------
 * r is an edit of the result o the seed graph was built from: the same
 * equations and variables by index, the same valid modes ok, width w and
 * BDD layout (seed_usable). Row i is *dirty* (D) when one of the steps'
 * inputs on it is not o's: chi_I, c_i (bits and c_matched), or one of its
 * edges' variable, chi_E, T, sigma or saturation Xi (o's Xi: its
 * tight_memo; Xi carries d_j). Every step is a function of such nodes and
 * integers (a node of BuDDy's one table is one function in one layout:
 * sa_memo.c), so:
 *
 * (1) An arc i -> i' of the union graph between two rows outside D has the
 *     same function in both versions: the OR over their shared variables j
 *     of T_(i,j) & Xi_(i',j), neither row's edges changed. Only the arcs
 *     with an end in D are found again (D's rows by row, the arcs into D
 *     by its columns); the others are the seed's (arc_to).
 * (2) A union-SCC C' of the new graph with no row in D has all its arcs in
 *     the old graph (1), so it is strongly connected there: C' lies in an
 *     old union-SCC C. If C has no row in D either, C is strongly connected
 *     in the new graph, so C = C'. Such a C' is *kept*: its rows' inputs
 *     and the arcs between them are unchanged, and step 4 reads nothing
 *     else (its equations, their edges, the arcs inside C', ok), so its
 *     blocks are the seed's: identities, guards and locals. Any other
 *     union-SCC (the *region*: a row in D, or a piece of an old one that
 *     had one) is split again (component(), the hint's memo still serving),
 *     and the seed's blocks of the old union-SCCs over the region's rows
 *     are dropped: an old union-SCC with no row in D and not kept was
 *     merged into a new one with a row in D.
 * (3) An edge A -> B is a function of A's unknowns, B's reads and both
 *     blocks' guards and locals (step 5): between two kept blocks it is the
 *     seed's, guard and all; those with a new block at an end are found
 *     again.
 *
 * The new union graph is made whole from (1) (integers, O(n + arcs)) and
 * Tarjan run on it: exact, and it numbers the components for the next
 * seed. BDD work is done for the region's rows only (and for D's arcs).
 * Blocks: the kept ones in the seed's order (by smallest equation, then
 * content: cdg.h), the new ones sorted as finish sorts them, merged; no
 * smallest equation is in both. The graph is the one a build from scratch
 * gives (test_cdg_seeded compares them on random edits of random models).
 */

/* g can seed a build of r's graph (above). Its offsets stored as r's are
 * (sa__cd_comparable: the rows below compare them handle by handle). */
static bool seed_usable(const sa_result *r, const cdg_graph *seed, bool families)
{
    const sa_result *o = seed != NULL ? seed->r : NULL;
    return o != NULL && o != r && seed->comp != NULL && !seed->no_edges && !families &&
           o->tight_memo != NULL && r->ok == o->ok && r->ok != bddfalse && r->n_eq > 0 &&
           r->n_eq == o->n_eq && r->n_var == o->n_var && r->w_off == o->w_off &&
           r->w_sigma == o->w_sigma && (r->c_matched == NULL) == (o->c_matched == NULL) &&
           r->c != NULL && o->c != NULL && r->d != NULL && o->d != NULL && sa__cd_comparable(r, o) &&
           r->m != NULL && !sa__sifting() &&
           seed->epoch == sa__layout_epoch() && step_width(r) == seed->w;
}

/* Row i has the same inputs in r and in the seed's o (above; its Xi too
 * when with_xi). */
static bool same_row(const build *b, const sa_result *o, uint32_t i, bool with_xi)
{
    const sa_result *r = b->r;
    size_t wo = (size_t)r->w_off, ws = (size_t)r->w_sigma;
    if (r->chi_i[i] != o->chi_i[i] || memcmp(sa__c_row(r, i), sa__c_row(o, i), wo * sizeof(BDD)) ||
        (r->c_matched != NULL && r->c_matched[i] != o->c_matched[i]))
        return false;
    size_t e0 = r->eq_first[i], f0 = o->eq_first[i], n = r->eq_first[i + 1] - e0;
    if (o->eq_first[i + 1] - f0 != n)
        return false;
    for (size_t k = 0; k < n; k++) {
        size_t e = e0 + k, f = f0 + k;
        if (r->edge_v[e] != o->edge_v[f] || r->chi_e[e] != o->chi_e[f] || !sa__te_same(r, e, o, f) ||
            (with_xi && b->xi[e] != o->tight_memo[f]) ||
            memcmp(&r->sigma[e * ws], &o->sigma[f * ws], ws * sizeof(BDD)))
            return false;
    }
    return true;
}

/* dirty[owner[k]] |= element k of a and b differ (owner NULL: dirty[k]),
 * n elements of `size` bytes: compared 64 at a time first (most are the
 * same). Whether some element differs. */
static bool diff_rows(const void *a, const void *b, size_t n, size_t size, const uint32_t *owner,
                      bool *dirty)
{
    const char *x = a, *y = b;
    bool any = false;
    for (size_t k0 = 0; k0 < n; k0 += 64) {
        size_t m = n - k0 < 64 ? n - k0 : 64;
        if (memcmp(x + k0 * size, y + k0 * size, m * size) == 0)
            continue;
        for (size_t k = k0; k < k0 + m; k++)
            if (memcmp(x + k * size, y + k * size, size) != 0)
                any = dirty[owner != NULL ? owner[k] : k] = true;
    }
    return any;
}

/* dirty[i]: row i's inputs but Xi differ in r and the seed's o (same_row),
 * found array by array when both lay out their edges alike (same). */
static void dirty_rows(const build *b, const sa_result *o, bool same, bool *dirty)
{
    const sa_result *r = b->r;
    size_t n = r->n_eq, ne = r->n_edges;
    if (!same || !sa__te_comparable(r, o)) { /* te: function by function */
        for (uint32_t i = 0; i < n; i++)
            dirty[i] = !same_row(b, o, i, false);
        return;
    }
    diff_rows(r->chi_i, o->chi_i, n, sizeof(BDD), NULL, dirty);
    diff_rows(sa__c_stored(r), sa__c_stored(o), n, (size_t)r->w_off * sizeof(BDD), NULL, dirty);
    if (r->c_matched != NULL)
        diff_rows(r->c_matched, o->c_matched, n, sizeof *r->c_matched, NULL, dirty);
    diff_rows(r->edge_v, o->edge_v, ne, sizeof *r->edge_v, r->edge_eq, dirty);
    diff_rows(r->chi_e, o->chi_e, ne, sizeof(BDD), r->edge_eq, dirty);
    diff_rows(sa__te_exact(r), sa__te_exact(o), ne, sizeof(BDD), r->edge_eq, dirty);
    diff_rows(r->sigma, o->sigma, ne, (size_t)r->w_sigma * sizeof(BDD), r->edge_eq, dirty);
}

/* The state of a seeded build beyond b's. */
typedef struct seeded {
    const cdg_graph *seed;
    bool *dirty;         /* n_eq: D */
    bool *region;        /* n_eq: the rows whose union-SCC is split again */
    const size_t *cfirst, *cedges; /* edges by variable (sa__layout_columns) */
    deps d;              /* the dependencies found: row i's at rs[i], rn[i] of them */
    size_t *rs;
    uint32_t *rn;
    bool *found;         /* n_eq: row i's are in d */
    bool *sat;           /* n_eq: row i saturated here (else its Xi is the
                            seed's, its sums unknown) */
    uint32_t *comp;      /* n_eq: the new union-SCCs */
    size_t *first;       /* the new union graph, CSR */
    uint32_t *to;
    uint32_t ncomp;
} seeded;

/* Step 1 from the seed: Xi is o's (its tight_memo) for the rows whose
 * inputs are o's and whose variables have o's d_j; the others are
 * saturated, and dirty (D) if their inputs or Xi differ. */
static void seed_saturation(build *b, seeded *sd)
{
    sa_ctx *c = b->c;
    const sa_result *r = b->r, *o = sd->seed->r;
    uint32_t n = r->n_eq;
    bool same = r->n_edges == o->n_edges &&
                memcmp(r->eq_first, o->eq_first, ((size_t)n + 1) * sizeof *r->eq_first) == 0;
    saturation_arrays(b, false);
    dirty_rows(b, o, same, sd->dirty);
    bool *dcol = sa__alloc(c, (size_t)r->n_var + 1);
    bool any_col = diff_rows(sa__d_stored(r), sa__d_stored(o), r->n_var, (size_t)r->w_off * sizeof(BDD), NULL, dcol);
    if (same)
        memcpy(b->xi, o->tight_memo, r->n_edges * sizeof *b->xi);
    for (uint32_t i = 0; i < n; i++) {
        size_t e0 = r->eq_first[i], ne = r->eq_first[i + 1] - e0;
        bool cand = sd->dirty[i];
        for (size_t e = e0; any_col && e < e0 + ne && !cand; e++)
            cand = dcol[r->edge_v[e]];
        if (!same && !sd->dirty[i]) /* as many edges: same_row */
            memcpy(&b->xi[e0], &o->tight_memo[o->eq_first[i]], ne * sizeof *b->xi);
        if (!cand)
            continue;
        saturate_row(b, i);
        sd->sat[i] = true;
        sd->dirty[i] = sd->dirty[i] || !same_row(b, o, i, true);
    }
}

static void row_deps_once(build *b, seeded *sd, uint32_t i)
{
    if (sd->found[i])
        return;
    sd->rs[i] = sd->d.nd;
    row_dependencies(b, i, sd->cfirst, sd->cedges, &sd->d);
    sd->rn[i] = (uint32_t)(sd->d.nd - sd->rs[i]);
    sd->found[i] = true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The arcs u -> d into D's rows from rows outside D, as u << 32 | d,
 * sorted, each once (temporaries); *n of them. */
static uint64_t *arcs_into_dirty(build *b, seeded *sd, size_t *n)
{
    sa_ctx *c = b->c;
    const sa_result *r = b->r;
    uint64_t *p = NULL;
    size_t np = 0, cap = 0;
    for (uint32_t d = 0; d < r->n_eq; d++) {
        if (!sd->dirty[d])
            continue;
        for (size_t e2 = r->eq_first[d]; e2 < r->eq_first[d + 1]; e2++) {
            if (b->xi[e2] == bddfalse)
                continue;
            uint32_t j = r->edge_v[e2];
            for (size_t q = sd->cfirst[j]; q < sd->cfirst[j + 1]; q++) {
                size_t e = sd->cedges[q];
                uint32_t u = r->edge_eq[e];
                if (u == d || sd->dirty[u] || b->te[e] == bddfalse ||
                    sa__and(b->te[e], b->xi[e2]) == bddfalse)
                    continue;
                p = grow(c, p, np, &cap, sizeof *p);
                p[np++] = (uint64_t)u << 32 | d;
            }
        }
    }
    if (np > 1)
        qsort(p, np, sizeof *p, cmp_u64);
    size_t m = 0;
    for (size_t k = 0; k < np; k++)
        if (m == 0 || p[m - 1] != p[k])
            p[m++] = p[k];
    *n = m;
    return p;
}

/* The new union graph (1): D's rows' arcs found again, every other row's
 * the seed's to rows outside D and the arcs into D; then its union-SCCs. */
static void new_union_graph(build *b, seeded *sd)
{
    sa_ctx *c = b->c;
    const sa_result *r = b->r;
    const cdg_graph *sg = sd->seed;
    uint32_t n = r->n_eq;
    for (uint32_t i = 0; i < n; i++)
        if (sd->dirty[i])
            row_deps_once(b, sd, i);
    size_t np;
    const uint64_t *in = arcs_into_dirty(b, sd, &np);
    sd->first = sa__alloc_raw(c, ((size_t)n + 2) * sizeof *sd->first);
    sd->to = sa__alloc_raw(c, (sg->arc_first[n] + np + sd->d.nd + 1) * sizeof *sd->to);
    size_t at = 0, x = 0;
    for (uint32_t i = 0; i < n; i++) {
        sd->first[i] = at;
        if (sd->dirty[i]) {
            for (size_t k = sd->rs[i]; k < sd->rs[i] + sd->rn[i]; k++)
                sd->to[at++] = sd->d.ds[k].to;
            continue;
        }
        size_t q = sg->arc_first[i], qe = sg->arc_first[i + 1];
        for (;;) { /* merge: both sorted by target */
            while (q < qe && sd->dirty[sg->arc_to[q]])
                q++;
            bool more_in = x < np && (uint32_t)(in[x] >> 32) == i;
            if (q == qe && !more_in)
                break;
            uint32_t t_in = more_in ? (uint32_t)in[x] : UINT32_MAX;
            if (q < qe && sg->arc_to[q] < t_in)
                sd->to[at++] = sg->arc_to[q++];
            else
                sd->to[at++] = t_in, x++;
        }
    }
    sd->first[n] = at;
    MDAE_ASSERT(x == np);
    sd->comp = sa__alloc_raw(c, ((size_t)n + 1) * sizeof *sd->comp);
    sd->ncomp = sa__sccs(c, n, sd->first, sd->to, sd->comp);
}

/* bad[k] for the new union-SCC k: it is not kept (2). Returns how many. */
static uint32_t split_again(build *b, seeded *sd, bool *bad)
{
    sa_ctx *c = b->c;
    uint32_t n = b->r->n_eq, no = (uint32_t)sd->seed->n_sccs;
    const uint32_t *oc = sd->seed->comp;
    uint32_t *osize = sa__alloc(c, ((size_t)no + 1) * sizeof *osize);
    bool *otouched = sa__alloc(c, (size_t)no + 1);
    for (uint32_t i = 0; i < n; i++) {
        MDAE_ASSERT(oc[i] < no);
        osize[oc[i]]++;
        otouched[oc[i]] |= sd->dirty[i];
    }
    uint32_t *nsize = sa__alloc(c, ((size_t)sd->ncomp + 1) * sizeof *nsize);
    uint32_t *nold = sa__alloc_raw(c, ((size_t)sd->ncomp + 1) * sizeof *nold);
    for (uint32_t k = 0; k < sd->ncomp; k++)
        nold[k] = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = sd->comp[i];
        nsize[k]++;
        if (sd->dirty[i] || otouched[oc[i]] || (nold[k] != UINT32_MAX && nold[k] != oc[i]))
            bad[k] = true;
        nold[k] = oc[i];
    }
    uint32_t nbad = 0;
    for (uint32_t k = 0; k < sd->ncomp; k++) {
        bad[k] |= nsize[k] != osize[nold[k]];
        nbad += bad[k];
    }
    return nbad;
}

/* Steps 3 and 4 on the region: its rows' dependencies into b's CSR (the
 * other rows have none there), then each union-SCC split again, in the
 * order run takes them. Returns how many came from the hint's memo. */
static size_t split_region(build *b, seeded *sd, const bool *bad)
{
    sa_ctx *c = b->c;
    const sa_result *r = b->r;
    uint32_t n = r->n_eq;
    size_t *cnt = sa__alloc(c, ((size_t)sd->ncomp + 2) * sizeof *cnt);
    for (uint32_t i = 0; i < n; i++)
        if ((sd->region[i] = bad[sd->comp[i]])) {
            if (!sd->sat[i])
                saturate_row(b, i); /* its sums (steps 3, 4) */
            sd->sat[i] = true;
            row_deps_once(b, sd, i);
            cnt[sd->comp[i] + 1]++;
        }
    b->out_first = sa__alloc(c, ((size_t)n + 2) * sizeof *b->out_first);
    size_t na = 0;
    for (uint32_t i = 0; i < n; i++) {
        b->out_first[i] = na;
        na += sd->region[i] ? sd->rn[i] : 0;
    }
    b->out_first[n] = na;
    b->out_to = sa__alloc_raw(c, (na + 1) * sizeof *b->out_to);
    b->out_f = sa__alloc_raw(c, (na + 1) * sizeof *b->out_f);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; sd->region[i] && k < sd->rn[i]; k++) {
            b->out_to[b->out_first[i] + k] = sd->d.ds[sd->rs[i] + k].to;
            b->out_f[b->out_first[i] + k] = sd->d.ds[sd->rs[i] + k].f;
        }
    for (uint32_t k = 0; k < sd->ncomp; k++)
        cnt[k + 1] += cnt[k];
    uint32_t *members = sa__alloc_raw(c, (cnt[sd->ncomp] + 1) * sizeof *members);
    size_t *fill = sa__alloc_raw(c, ((size_t)sd->ncomp + 1) * sizeof *fill);
    memcpy(fill, cnt, sd->ncomp * sizeof *fill);
    for (uint32_t i = 0; i < n; i++)
        if (sd->region[i])
            members[fill[sd->comp[i]]++] = i;
    int32_t *loc = sa__alloc_raw(c, ((size_t)n + 1) * sizeof *loc);
    for (uint32_t i = 0; i < n; i++)
        loc[i] = -1;
    b->vloc = sa__alloc_raw(c, ((size_t)r->n_var + 1) * sizeof *b->vloc);
    for (uint32_t j = 0; j < r->n_var; j++)
        b->vloc[j] = -1;
    b->elist = sa__alloc_raw(c, (n + 1) * sizeof *b->elist);
    size_t reused = 0;
    for (uint32_t k = 0; k < sd->ncomp; k++)
        if (bad[k]) {
            reused += component(b, &members[cnt[k]], cnt[k + 1] - cnt[k], loc);
            sa__progress(c, "blocks", cnt[k + 1], cnt[sd->ncomp]);
        }
    return reused;
}

/* Block k of g: the seed's block sb, its items named in g's model. */
static void keep_block(cdg_graph *g, size_t k, const cdg_block *sb, cdg_item **it, BDD guard,
                       BDD local)
{
    const mel_model *m = g->r->m;
    cdg_block *blk = &g->blocks[k];
    cdg_item *x = *it;
    *blk = *sb;
    blk->id = (uint32_t)k;
    blk->equations = x;
    for (size_t a = 0; a < sb->n_equations; a++, x++)
        *x = (cdg_item){sb->equations[a].index, sb->equations[a].order,
                        m->equations[sb->equations[a].index].name};
    blk->unknowns = x;
    for (size_t a = 0; a < sb->n_unknowns; a++, x++)
        *x = (cdg_item){sb->unknowns[a].index, sb->unknowns[a].order,
                        m->variables[sb->unknowns[a].index].name};
    blk->reads = x;
    for (size_t a = 0; a < sb->n_reads; a++, x++)
        *x = (cdg_item){sb->reads[a].index, sb->reads[a].order,
                        m->variables[sb->reads[a].index].name};
    *it = x;
    if (sb->n_equations > g->max_block)
        g->max_block = sb->n_equations;
    g->bguard[k] = bdd_addref(guard);
    g->blocal[k] = bdd_addref(local);
}

/* The edges A -> B of a new writer A (isnew) and a kept reader B, for the
 * new blocks is[0 .. n), appended to es. */
static void writer_edges(build *b, const cdg_graph *g, const tblock *fin, const bool *isnew,
                         const uint32_t *is, size_t n, deps *es)
{
    sa_ctx *c = b->c;
    const sa_result *r = b->r;
    size_t nb = g->n_blocks;
    bool *mark = sa__alloc(c, (size_t)r->n_var + 1);
    for (size_t x = 0; x < n; x++)
        for (size_t a = 0; a < g->blocks[is[x]].n_unknowns; a++)
            mark[g->blocks[is[x]].unknowns[a].index] = true;
    size_t *rfirst = sa__alloc(c, ((size_t)r->n_var + 2) * sizeof *rfirst);
    for (size_t k = 0; k < nb; k++)
        for (size_t a = 0; !isnew[k] && a < g->blocks[k].n_reads; a++)
            rfirst[g->blocks[k].reads[a].index + 1] += mark[g->blocks[k].reads[a].index];
    for (uint32_t j = 0; j < r->n_var; j++)
        rfirst[j + 1] += rfirst[j];
    size_t *fill = sa__alloc_raw(c, ((size_t)r->n_var + 1) * sizeof *fill);
    memcpy(fill, rfirst, r->n_var * sizeof *fill);
    uint32_t *rblk = sa__alloc_raw(c, (rfirst[r->n_var] + 1) * sizeof *rblk);
    int *rord = sa__alloc_raw(c, (rfirst[r->n_var] + 1) * sizeof *rord);
    for (size_t k = 0; k < nb; k++)
        for (size_t a = 0; !isnew[k] && a < g->blocks[k].n_reads; a++) {
            const cdg_item *rd = &g->blocks[k].reads[a];
            if (!mark[rd->index])
                continue;
            size_t q = fill[rd->index]++;
            rblk[q] = (uint32_t)k;
            rord[q] = rd->order;
        }
    uint32_t *seen = sa__alloc(c, (nb + 1) * sizeof *seen); /* last A + 1 */
    for (size_t x = 0; x < n; x++) {
        uint32_t A = is[x];
        const cdg_block *BA = &g->blocks[A];
        for (size_t a = 0; a < BA->n_unknowns; a++) {
            uint32_t j = BA->unknowns[a].index;
            for (size_t q = rfirst[j]; q < rfirst[j + 1]; q++) {
                uint32_t B = rblk[q];
                if (rord[q] != BA->unknowns[a].order || seen[B] == A + 1)
                    continue;
                seen[B] = A + 1;
                BDD f = edge_guard(b, &fin[A], &fin[B]);
                if (f != bddfalse)
                    add_edge(b, g, es, A, B, f);
            }
        }
    }
}

/* The seed's edges between kept blocks (old2new: their new ids, which
 * keep their order) and the new ones es, merged by (from, to) into g. */
static void merge_edges(build *b, cdg_graph *g, const cdg_graph *sg, const uint32_t *old2new,
                        deps *es)
{
    sa_ctx *c = b->c;
    sort_deps(c, es->ds, es->nd, (uint32_t)g->n_blocks);
    size_t nk = 0;
    for (size_t k = 0; k < sg->n_edges; k++)
        nk += old2new[sg->efrom[k]] != UINT32_MAX && old2new[sg->eto[k]] != UINT32_MAX;
    size_t ne = nk + es->nd;
    if (ne > max_edges)
        too_large(b, MDAE_LIMIT_GRAPH_EDGES, max_edges, NULL, 0,
                  "it has more than %zu edges between its %zu blocks", max_edges, g->n_blocks);
    g->efrom = sa__alloc_keep_raw(c, (ne + 1) * sizeof *g->efrom);
    g->eto = sa__alloc_keep_raw(c, (ne + 1) * sizeof *g->eto);
    g->eguard = sa__alloc_keep_raw(c, (ne + 1) * sizeof *g->eguard);
    size_t k = 0, x = 0;
    for (size_t at = 0; at < ne; at++) {
        uint32_t A = UINT32_MAX, B = UINT32_MAX;
        while (k < sg->n_edges &&
               ((A = old2new[sg->efrom[k]]) == UINT32_MAX || (B = old2new[sg->eto[k]]) == UINT32_MAX))
            k++;
        const dep *d = x < es->nd ? &es->ds[x] : NULL;
        bool kept = k < sg->n_edges && (d == NULL || A < d->from || (A == d->from && B < d->to));
        g->efrom[at] = kept ? A : d->from;
        g->eto[at] = kept ? B : d->to;
        g->eguard[at] = bdd_addref(kept ? sg->eguard[k++] : *es->ds[x++].f);
        g->n_edges = at + 1;
    }
}

static void check_graph(const cdg_graph *g, const bool *isnew); /* below */

/* finish for a seeded build: the kept blocks (not in the region) and the
 * new ones (b->blocks) merged in canonical order, the seed's edges between
 * kept blocks and the others found again (3). */
static void finish_seeded(build *b, cdg_graph *g, const seeded *sd)
{
    sa_ctx *c = b->c;
    const sa_result *r = b->r;
    const cdg_graph *sg = sd->seed;
    size_t nn = b->n_blocks, ns = sg->n_blocks;
    sort_blocks(c, b->blocks, nn, r->n_eq);
    uint32_t *old2new = sa__alloc_raw(c, (ns + 1) * sizeof *old2new);
    size_t nitems = 0, nk = 0;
    for (size_t k = 0; k < nn; k++)
        nitems += (b->blocks[k].len - 2) / 2;
    for (size_t s = 0; s < ns; s++) {
        const cdg_block *sb = &sg->blocks[s];
        old2new[s] = UINT32_MAX;
        if (sd->region[sb->equations[0].index])
            continue;
        old2new[s] = 0; /* kept: numbered below */
        nk++;
        nitems += 2 * sb->n_equations + sb->n_reads;
        b->key_ints += 2 + 2 * (2 * sb->n_equations + sb->n_reads);
    }
    if (b->key_ints > max_key_ints)
        too_large(b, MDAE_LIMIT_GRAPH_ITEMS, max_key_ints, NULL, 0,
                  "its blocks' identities exceed %zu items (%zu blocks)", max_key_ints, nn + nk);
    size_t nb = nn + nk;
    tblock *fin = sa__alloc_raw(c, (nb + 1) * sizeof *fin); /* guard and local */
    bool *isnew = sa__alloc(c, nb + 1);
    uint32_t *is = sa__alloc_raw(c, (nn + 1) * sizeof *is);
    size_t t = 0, s = 0;
    for (size_t k = 0; k < nb; k++) {
        while (s < ns && old2new[s] == UINT32_MAX)
            s++;
        uint32_t fs = s < ns ? sg->blocks[s].equations[0].index : UINT32_MAX;
        if (t < nn && (uint32_t)b->blocks[t].key[2] < fs) {
            fin[k] = b->blocks[t];
            fin[k].id = (uint32_t)t++; /* its place in b->blocks */
            isnew[k] = true;
        } else {
            MDAE_ASSERT(s < ns && (t == nn || (uint32_t)b->blocks[t].key[2] > fs));
            fin[k] = (tblock){NULL, 0, sg->bguard[s], sg->blocal[s], (uint32_t)s};
            old2new[s++] = (uint32_t)k;
        }
    }
    size_t x = 0;
    for (size_t k = 0; k < nb; k++)
        if (isnew[k])
            is[x++] = (uint32_t)k;
    alloc_blocks(c, g, nb, nitems);
    cdg_item *it = g->items;
    for (size_t k = 0; k < nb; k++) {
        if (isnew[k]) {
            const tblock *tb = &b->blocks[fin[k].id];
            set_block(g, k, tb->key + 2, (size_t)tb->key[0], (size_t)tb->key[1], &it, tb->guard,
                      tb->local);
        } else {
            keep_block(g, k, &sg->blocks[fin[k].id], &it, fin[k].guard, fin[k].local);
        }
    }
    g->blocks_kept = nk;
    g->no_edges = false;
    writers w = writers_of(c, g);
    sa__within_init(c, r->ok, &b->ok_within);
    sa__progress(c, "edges", 0, nb);
    check_pairs(b, g, &w);
    deps es = {0};
    reader_edges(b, g, &w, fin, is, nn, &es);
    writer_edges(b, g, fin, isnew, is, nn, &es);
    merge_edges(b, g, sg, old2new, &es);
    check_graph(g, isnew);
}

static void run_seeded(build *b, cdg_graph *g, const cdg_graph *seed)
{
    sa_ctx *c = b->c;
    const sa_result *r = b->r;
    uint32_t n = r->n_eq;
    b->w = seed->w;
    sa__progress(c, "dependencies", 0, r->n_edges);
    local_inputs(b);
    seeded sd = {.seed = seed};
    sd.dirty = sa__alloc(c, (size_t)n + 1);
    sd.region = sa__alloc(c, (size_t)n + 1);
    sd.found = sa__alloc(c, (size_t)n + 1);
    sd.sat = sa__alloc(c, (size_t)n + 1);
    sd.rs = sa__alloc_raw(c, ((size_t)n + 1) * sizeof *sd.rs);
    sd.rn = sa__alloc_raw(c, ((size_t)n + 1) * sizeof *sd.rn);
    seed_saturation(b, &sd);
    keep_tight(b);
    sa__layout_columns(c, r, &sd.cfirst, &sd.cedges); /* kept with an edit's layout */
    new_union_graph(b, &sd);
    bool *bad = sa__alloc(c, (size_t)sd.ncomp + 1);
    uint32_t nbad = split_again(b, &sd, bad);
    g->n_sccs = sd.ncomp;
    g->sccs_reused = sd.ncomp - nbad + split_region(b, &sd, bad);
    finish_seeded(b, g, &sd);
    keep_topology(b, g, sd.comp, sd.first, sd.to);
}

static void drop_blocks(build *b)
{
    if (sa__running())
        for (size_t k = 0; k < b->n_blocks; k++) {
            bdd_delref(b->blocks[k].guard);
            bdd_delref(b->blocks[k].local);
        }
    b->n_blocks = 0;
}

/* The failure epilogue of cdg_build (as sa_analyze's): a diagnostic for the
 * node limit and BuDDy errors. */
static void fail_diag(sa_ctx *c, const build *b)
{
    const mel_model *m = b->r != NULL ? b->r->m : NULL;
    if (c->rc == MDAE_E_BDD_LIMIT && b->scc != NULL) /* in a union-SCC's split */
        sa__limit_diag(c, m, b->scc, b->scc_n, MDAE_LIMIT_BDD_NODES,
                       (double)c->node_limit,
                       "the dependency graph's construction exceeded %zu BDD nodes",
                       c->node_limit);
    else if (c->rc == MDAE_E_BDD_LIMIT)
        sa__node_limit_diag(c, m);
    else if (c->rc == MDAE_E_BDD)
        mdae_diags_add(c->diags, MDAE_SEV_ERROR, (mdae_range){{0, 0, 0}, {0, 0, 0}},
                       "BDD library error");
}

void cdg_graph_free(cdg_graph *g)
{
    if (g == NULL)
        return;
    if (sa__running()) {
        for (size_t k = 0; g->bguard && k < g->n_blocks; k++)
            bdd_delref(g->bguard[k]);
        for (size_t k = 0; g->blocal && k < g->n_blocks; k++)
            bdd_delref(g->blocal[k]);
        for (size_t k = 0; g->eguard && k < g->n_edges; k++)
            bdd_delref(g->eguard[k]);
    }
    mdae_free(g->blocks);
    mdae_free(g->bguard);
    mdae_free(g->items);
    mdae_free(g->efrom);
    mdae_free(g->eto);
    mdae_free(g->eguard);
    mdae_free(g->blocal);
    mdae_free(g->comp);
    mdae_free(g->arc_first);
    mdae_free(g->arc_to);
    mdae_free(g);
}

/* The items of a block identity: sorted by (index, order), each index once
 * (strict) for equations and unknowns, possibly repeated with other orders
 * for reads (cdg.h). */
static bool items_sorted(const cdg_item *v, size_t n, bool strict)
{
    for (size_t k = 1; k < n; k++) {
        if (v[k - 1].index > v[k].index)
            return false;
        if (v[k - 1].index == v[k].index && (strict || v[k - 1].order >= v[k].order))
            return false;
    }
    return true;
}

/* What cdg.h promises of a graph (issue 12): blocks[k].id == k, as many
 * unknowns as equations, sorted identities, edges sorted by (from, to)
 * between existing blocks. Linear in the graph, once per build; the
 * items of the blocks isnew says a seeded build kept (NULL: none) are its
 * seed's, checked when that was built, and not read again. */
static void check_graph(const cdg_graph *g, const bool *isnew)
{
    for (size_t k = 0; k < g->n_blocks; k++) {
        const cdg_block *b = &g->blocks[k];
        MDAE_ASSERT(b->id == k);
        if (isnew != NULL && !isnew[k])
            continue; /* the seed's items, checked when it was built */
        MDAE_ASSERT(b->n_unknowns == b->n_equations && b->n_equations > 0);
        MDAE_ASSERT(items_sorted(b->equations, b->n_equations, true));
        MDAE_ASSERT(items_sorted(b->unknowns, b->n_unknowns, true));
        MDAE_ASSERT(items_sorted(b->reads, b->n_reads, false));
        MDAE_ASSERT(b->n_equations <= g->max_block);
    }
    for (size_t k = 0; k < g->n_edges; k++) {
        MDAE_ASSERT(g->efrom[k] < g->n_blocks && g->eto[k] < g->n_blocks);
        MDAE_ASSERT(k == 0 || g->efrom[k - 1] < g->efrom[k] ||
                    (g->efrom[k - 1] == g->efrom[k] && g->eto[k - 1] < g->eto[k]));
    }
}

/* r's memo (sa_analyze made it; else made here), NULL without memory. As
 * tight_memo (keep_tight), a function of r written after r was returned. */
static sa__bmemo *memo_of(const sa_result *r)
{
    sa_result *w = (sa_result *)r;
    if (w->bmemo == NULL)
        w->bmemo = sa__bmemo_new(r->n_eq);
    return w->bmemo;
}

/* cdg_build, seeded by seed (NULL: none) when seed_usable says it can. */
static int build_graph(const sa_result *r, const sa_options *opt, const cdg_graph *seed,
                       cdg_graph **out, mdae_diags *diags)
{
    if (!sa__running())
        return MDAE_E_STATE;
    sa_ctx *c = mdae_malloc(sizeof *c);
    if (c == NULL)
        return MDAE_E_NOMEM;
    sa__ctx_init(c, opt, diags);
    cdg_graph *g = mdae_calloc(1, sizeof *g);
    if (g == NULL) {
        mdae_free(c);
        return MDAE_E_NOMEM;
    }
    g->r = r;
    build *b = mdae_calloc(1, sizeof *b);
    if (b == NULL) {
        mdae_free(g);
        mdae_free(c);
        return MDAE_E_NOMEM;
    }
    if (setjmp(c->jb)) {
        int rc = c->rc;
        drop_blocks(b); /* before sa__leave frees b->blocks */
        fail_diag(c, b); /* before sa__leave: b->scc is a temporary */
        sa__leave(c);
        /* n_blocks / n_edges count only the guards already referenced. */
        cdg_graph_free(g);
        mdae_free(b);
        mdae_free(c);
        return rc;
    }
    sa__enter(c);
    b->c = c;
    b->r = r;
    b->memo_in = opt != NULL && opt->hint != NULL ? opt->hint->bmemo : NULL;
    b->memo_out = memo_of(r);
    b->families = opt != NULL && opt->families;
    if (seed != NULL)
        run_seeded(b, g, seed);
    else
        run(b, g);
    drop_blocks(b);
    sa__leave(c);
    mdae_free(b);
    mdae_free(c);
    if (seed == NULL) /* else finish_seeded's */
        check_graph(g, NULL);
    *out = g;
    return MDAE_OK;
}

int cdg_build(const sa_result *r, const sa_options *opt, cdg_graph **out, mdae_diags *diags)
{
    if (r == NULL || out == NULL)
        return MDAE_E_INVAL;
    return build_graph(r, opt, NULL, out, diags);
}

int cdg_build_seeded(const sa_result *r, const sa_options *opt, const cdg_graph *seed,
                     cdg_graph **out, mdae_diags *diags)
{
    if (r == NULL || out == NULL)
        return MDAE_E_INVAL;
    if (!sa__running())
        return MDAE_E_STATE;
    if (!seed_usable(r, seed, opt != NULL && opt->families))
        return build_graph(r, opt, NULL, out, diags);
    /* Without diagnostics: a limit or an error is met again, and said, by
     * the build from scratch (the same words, located where it is). */
    int rc = build_graph(r, opt, seed, out, NULL);
    if (rc == MDAE_OK || rc == MDAE_E_CANCELED || rc == MDAE_E_NOMEM)
        return rc;
    return build_graph(r, opt, NULL, out, diags);
}

/* ---- Plain accessors --------------------------------------------------------- */

size_t cdg_graph_n_blocks(const cdg_graph *g) { return g ? g->n_blocks : 0; }
size_t cdg_graph_n_edges(const cdg_graph *g) { return g ? g->n_edges : 0; }
size_t cdg_graph_max_block(const cdg_graph *g) { return g ? g->max_block : 0; }
size_t cdg_graph_n_sccs(const cdg_graph *g) { return g ? g->n_sccs : 0; }
size_t cdg_graph_sccs_reused(const cdg_graph *g) { return g ? g->sccs_reused : 0; }
size_t cdg_graph_blocks_kept(const cdg_graph *g) { return g ? g->blocks_kept : 0; }

int cdg_graph_block(const cdg_graph *g, uint32_t id, cdg_block *out)
{
    if (g == NULL || out == NULL || id >= g->n_blocks)
        return MDAE_E_INVAL;
    *out = g->blocks[id];
    return MDAE_OK;
}

const cdg_block *cdg_graph_blocks(const cdg_graph *g)
{
    return g != NULL && g->n_blocks > 0 ? g->blocks : NULL;
}

int cdg_graph_edge(const cdg_graph *g, size_t k, uint32_t *from, uint32_t *to)
{
    if (g == NULL || k >= g->n_edges)
        return MDAE_E_INVAL;
    if (from)
        *from = g->efrom[k];
    if (to)
        *to = g->eto[k];
    return MDAE_OK;
}
