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
 *
 * After an edit (sa_options.hint, issue 40) the fixpoint starts from the
 * hint's offsets wherever that is exact, and from 0 only in the part of the
 * model the edit can have lowered: see warm_start below.
 */
#include "sa_int.h"

#define T(f) sa__tmp(c, (f))

/* What the fixpoint below knows of its operands as integers: each c_i,
 * d_j and sigma_e that is a constant on its wk bits, else -1; and cs[i],
 * the value c_i takes wherever row i is matched, if that is one integer
 * (the rows whose chosen edges are guarded: the brake's valves), else -1.
 * c_i is 0 where its row is not matched, and an edge is active only where
 * its row is (sa_encode.c) and, in a valid nonsingular mode, every active
 * row is matched: so wherever edge e counts, c_i + sigma_e is cs[i] +
 * sigma_e. */
typedef struct known {
    long long *c, *d, *sig, *cs;
} known;

/* c_i wherever edge e of row i is active, as an integer if it is one
 * there, else -1 (above). */
static long long c_on_edge(const sa_result *r, const known *kn, size_t e)
{
    uint32_t i = r->edge_eq[e];
    return kn->c[i] >= 0 ? kn->c[i] : kn->cs[i];
}

/* The value c_i takes wherever row i is matched: d_j - sigma_e of its
 * chosen edge there (wk bits, modular as sa__vsub), if every chosen edge
 * gives the same integer; else -1. */
static long long row_common_value(const sa_result *r, const known *kn, int wk, uint32_t i)
{
    unsigned long long mask = (1ull << wk) - 1;
    long long common = -1;
    for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
        if (r->te[e] == bddfalse)
            continue;
        long long d = kn->d[r->edge_v[e]], s = kn->sig[e];
        if (d < 0 || s < 0)
            return -1;
        long long v = (long long)(((unsigned long long)d - (unsigned long long)s) & mask);
        if (common >= 0 && v != common)
            return -1;
        common = v;
    }
    return common;
}

/* The column step as integers: the largest c_i + sigma_e (wk bits,
 * modular as sa__vadd) over column j's active edges, 0 if none, when every
 * edge's activity, c_i and sigma_e are constants: true and *v; else false.
 * Most of the brake's columns. */
static bool column_constant(const sa_result *r, const sa__mats *mt, const known *kn,
                            const BDD *act, int wk, uint32_t j, unsigned long long *v)
{
    unsigned long long top = 0, mask = (1ull << wk) - 1;
    for (size_t k = mt->cfirst[j]; k < mt->cfirst[j + 1]; k++) {
        size_t e = mt->cedges[k];
        if (act[e] == bddfalse)
            continue;
        long long a = c_on_edge(r, kn, e), s = kn->sig[e];
        if (act[e] != bddtrue || a < 0 || s < 0)
            return false;
        unsigned long long t = ((unsigned long long)a + (unsigned long long)s) & mask;
        top = t > top ? t : top;
    }
    *v = top;
    return true;
}

/* The row step as integers: d_j - sigma_e of row i's last chosen edge (wk
 * bits, modular as sa__vsub), 0 if none, when the choices, d_j and sigma_e
 * are constants: true and *v; else false. */
static bool row_constant(const sa_result *r, const known *kn, int wk, uint32_t i,
                         unsigned long long *v)
{
    unsigned long long val = 0, mask = (1ull << wk) - 1;
    for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
        if (r->te[e] == bddfalse)
            continue;
        long long d = kn->d[r->edge_v[e]], s = kn->sig[e];
        if (r->te[e] != bddtrue || d < 0 || s < 0)
            return false;
        val = ((unsigned long long)d - (unsigned long long)s) & mask;
    }
    *v = val;
    return true;
}

/* The column step when every active edge's c_i and sigma_e are constants
 * but not every activity is (the brake's valve columns): the largest sum
 * where an edge of it is active, level by level from the top, 0 where
 * none is; a few disjunctions per level where the vectors cost an
 * addition, an ite and a maximum per edge. Into acc (wk slots): true;
 * false if a sum is not a constant (acc then undefined). */
static bool column_by_levels(sa_ctx *c, const sa_result *r, const sa__mats *mt,
                             const known *kn, const BDD *act, int wk, uint32_t j, BDD *acc)
{
    unsigned long long mask = (1ull << wk) - 1;
    size_t lo = mt->cfirst[j], hi = mt->cfirst[j + 1];
    for (size_t k = lo; k < hi; k++) {
        size_t e = mt->cedges[k];
        if (act[e] != bddfalse && (c_on_edge(r, kn, e) < 0 || kn->sig[e] < 0))
            return false;
    }
    size_t mark = sa__mark(c);
    BDD *above = sa__slots(c, 2), *here = above + 1; /* modes of a larger sum; of this one */
    for (int b = 0; b < wk; b++)
        sa__put(&acc[b], bddfalse);
    unsigned long long done = mask + 1; /* the sums handled: those >= done */
    while (*above != bddtrue) {
        bool found = false;
        unsigned long long v = 0; /* the next sum down */
        for (size_t k = lo; k < hi; k++) {
            size_t e = mt->cedges[k];
            if (act[e] == bddfalse)
                continue;
            unsigned long long t = ((unsigned long long)c_on_edge(r, kn, e) +
                                    (unsigned long long)kn->sig[e]) & mask;
            if (t < done && (!found || t > v)) {
                v = t;
                found = true;
            }
        }
        if (!found)
            break;
        sa__put(here, bddfalse);
        for (size_t k = lo; k < hi; k++) {
            size_t e = mt->cedges[k];
            if (act[e] != bddfalse && (((unsigned long long)c_on_edge(r, kn, e) +
                                        (unsigned long long)kn->sig[e]) & mask) == v)
                sa__put(here, sa__or(*here, act[e]));
        }
        BDD fresh = T(sa__diff(*here, *above));
        for (int b = 0; b < wk; b++)
            if ((v >> b) & 1)
                sa__put(&acc[b], sa__or(acc[b], fresh));
        sa__put(above, sa__or(*above, *here));
        done = v;
    }
    sa__release(c, mark);
    return true;
}

/* The row step when every chosen edge's d_j and sigma_e are constants but
 * not every choice is: acc = ite(T_e, d_j - sigma_e, acc) edge after edge,
 * as the vectors do it, bit by bit on constants (ite(f, 1, x) = f | x,
 * ite(f, 0, x) = x & !f). Into acc (wk slots): true; false if a value is
 * not a constant (acc then undefined). */
static bool row_by_choices(sa_ctx *c, const sa_result *r, const known *kn, int wk, uint32_t i,
                           BDD *acc)
{
    unsigned long long mask = (1ull << wk) - 1;
    for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++)
        if (r->te[e] != bddfalse && (kn->d[r->edge_v[e]] < 0 || kn->sig[e] < 0))
            return false;
    for (int b = 0; b < wk; b++)
        sa__put(&acc[b], bddfalse);
    for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
        if (r->te[e] == bddfalse)
            continue;
        unsigned long long v = ((unsigned long long)kn->d[r->edge_v[e]] -
                                (unsigned long long)kn->sig[e]) & mask;
        for (int b = 0; b < wk; b++)
            sa__put(&acc[b], (v >> b) & 1 ? sa__or(acc[b], r->te[e]) : sa__diff(acc[b], r->te[e]));
    }
    return true;
}

/* sigma_e on wk bits, in v (wk slots, overwritten): for the vector steps
 * only (most steps use the integers). */
static const BDD *sigma_of(const sa_result *r, size_t e, BDD *v, int wk)
{
    for (int b = 0; b < wk; b++)
        sa__put(&v[b], b < r->w_sigma ? r->sigma[e * (size_t)r->w_sigma + b] : bddfalse);
    return v;
}

/* Pryce's fixpoint on the first wk bits of every w-bit offset (r->c, r->d,
 * all zero on entry). False if a d reached 2^(wk-1): the values might then
 * not fit, and the caller starts again on more bits. Why it is exact when it
 * returns true: the iteration only increases c and d; while every c is below
 * 2^(wk-1), c + sigma (sigma < 2^(wk-2)) cannot wrap, so every d computed
 * is exact, and it is checked before any c is derived from it.
 *
 * Only what changed is recomputed: a column whose rows' c did not change
 * keeps its d, a row whose matched column's d did not change keeps its c.
 * Both maps are monotone, so this chaotic iteration from c = 0 reaches the
 * same least fixpoint as sweeping everything each round (the canonical
 * offsets), with much less work once few offsets still move (most of an
 * edit's, issue 16). */
/* ---- Starting from the hint's offsets (issue 40) -----------------------------
 * Write F for one sweep of the two steps above (monotone), L for its least
 * fixpoint (the canonical offsets) and h for the hint's, the least fixpoint
 * of the hint's own F_h. Iterating from any start s with s <= L and
 * s <= F(s) (a pre-fixpoint) only raises values, never above L (F(L) = L),
 * and stops at a fixpoint: L itself. The start, node by node (rows and
 * columns):
 *   - Z, the nodes whose step differs from the hint's: a row whose edges,
 *     their activity, weights or chosen modes (te) are not the hint's row's;
 *     a column whose edges, activity or weights are not; 0.
 *   - A, the nodes a node of Z supports, transitively, in h: u supports v
 *     where v's value is u's plus the edge's weight in some mode (v a column
 *     and u a row whose edge to it is tight: the hint's tight edges, or
 *     their integers, or any active edge when unknown; v a row and u a
 *     column it is matched to in some mode); but a node whose value in h is
 *     0 in every mode supports nothing (0 is below any fixpoint). 0.
 *   - every other node: its value in h.
 * Why s <= L: the Kleene iteration that gave h derives each positive value
 * from a supporting node reached earlier, so by induction along it, a node
 * v outside A has its support outside A or at 0, and the same step as in
 * the hint (v not in Z): L(v) >= L(support) + weight >= h(support) + weight
 * = h(v). Why s <= F(s): outside A, F(s)(v) >= h(v) by the same support,
 * and F(s)(v) <= F_h(h)(v) = h(v) since s <= h; in A, 0 (a row's step is
 * taken after every dirty column's, so d_j >= c_i + sigma there: no wrap).
 * An edit that lowers an offset lowers it inside A only (an equation that
 * loses its derivative: every offset that was raised through it), and the
 * offsets the edit leaves are never computed again.
 *
 * Nodes are the hint's by index and steps are compared as BDD nodes, so no
 * name is read: every function here is one of BuDDy's variables, whatever
 * they mean in either model (a node whose step only looks the same under
 * another layout is in Z, and gets 0). When: the hint has as many rows and
 * columns (an edit of an equation's right-hand side or of a guard: the
 * rows' edges may differ), the same nonsingular modes, offsets of the same
 * width that fitted the small attempt (sa__dual), and the attempt is that
 * one: on wk bits. Else the start is 0, as before. */

/* Whether h's offsets can start r's fixpoint on wk of w bits (above). */
static bool warm_applies(const sa_result *r, const sa_result *h, int w, int wk)
{
    return h != NULL && h != r && h->c != NULL && h->d != NULL && h->c_matched != NULL &&
           h->te != NULL && h->small && h->w_off == w && wk < w && h->w_sigma == r->w_sigma &&
           h->ok == r->ok && h->n_eq == r->n_eq && h->n_var == r->n_var;
}

/* The hint's edge of its row i to column j, or -1; the k-th of the row
 * first (the edges of a row the edit left alone line up). */
static long hint_edge_to(const sa_result *h, uint32_t i, uint32_t j, size_t k)
{
    size_t q0 = h->eq_first[i] + k;
    if (q0 < h->eq_first[i + 1] && h->edge_v[q0] == j)
        return (long)q0;
    for (size_t q = h->eq_first[i]; q < h->eq_first[i + 1]; q++)
        if (h->edge_v[q] == j)
            return (long)q;
    return -1;
}

/* Whether our edge e and the hint's q have the same activity and weight. */
static bool same_edge(const sa_result *r, const sa_result *h, size_t e, size_t q)
{
    size_t ws = (size_t)r->w_sigma;
    if (r->chi_e[e] != h->chi_e[q])
        return false;
    for (size_t b = 0; b < ws; b++)
        if (r->sigma[e * ws + b] != h->sigma[q * ws + b])
            return false;
    return true;
}

/* Z (above) into in_a (rows, then columns at n_eq + j); from[e]: our edge
 * e's edge in the hint, or -1. */
static void changed_steps(const sa_result *r, const sa_result *h, bool *in_a, long *from)
{
    bool *cols = in_a + r->n_eq;
    for (uint32_t i = 0; i < r->n_eq; i++) {
        size_t found = 0;
        for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
            uint32_t j = r->edge_v[e];
            long q = from[e] = hint_edge_to(h, i, j, e - r->eq_first[i]);
            if (q < 0 || !same_edge(r, h, e, (size_t)q)) {
                cols[j] = true;
                in_a[i] = true;
                from[e] = -1;
                continue;
            }
            found++;
            if (r->te[e] != h->te[q])
                in_a[i] = true;
        }
        if (found == h->eq_first[i + 1] - h->eq_first[i])
            continue;
        in_a[i] = true; /* an edge the hint had and we do not */
        for (size_t q = h->eq_first[i]; q < h->eq_first[i + 1]; q++) {
            bool ours = false;
            for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1] && !ours; e++)
                ours = from[e] == (long)q;
            if (!ours)
                cols[h->edge_v[q]] = true;
        }
    }
}

/* Whether edge e (the hint's q) may be tight in the hint: row i's value
 * plus its weight is column j's (above). */
static bool hint_tight_edge(const sa_result *h, const known *kh, long long sig, size_t q,
                            int wk)
{
    if (h->tight_memo != NULL) /* cdg_build's, exact in ok */
        return h->tight_memo[q] != bddfalse;
    long long ci = h->c_matched[h->edge_eq[q]], dj = kh->d[h->edge_v[q]];
    if (ci < 0 || dj < 0 || sig < 0)
        return true; /* not known: as if */
    return (long long)(((unsigned long long)ci + (unsigned long long)sig) &
                       ((1ull << wk) - 1)) == dj;
}

/* A (above): in_a holds Z on entry. kh->d: the hint's column values. An
 * edge supports nothing where it is never active in ok (act is chi_E,
 * unmasked: see sa__dual). */
static void close_support(sa_ctx *c, const sa__mats *mt, const BDD *act, const sa__within *okw,
                          const sa_result *h, const known *kh, const long long *sig,
                          const long *from, int wk, bool *in_a)
{
    const sa_result *r = c->r;
    size_t n = (size_t)r->n_eq + r->n_var;
    uint32_t *queue = sa__alloc_raw(c, (n + 1) * sizeof *queue), head = 0, tail = 0;
    for (size_t u = 0; u < n; u++)
        if (in_a[u])
            queue[tail++] = (uint32_t)u;
    while (head < tail) {
        uint32_t u = queue[head++];
        if (u < r->n_eq) {
            if (h->c_matched[u] == 0) /* 0 in every mode */
                continue;
            for (size_t e = r->eq_first[u]; e < r->eq_first[u + 1]; e++) {
                uint32_t v = r->n_eq + r->edge_v[e];
                if (in_a[v] || act[e] == bddfalse || sa__within_empty(okw, act[e]) ||
                    (from[e] >= 0 && !hint_tight_edge(h, kh, sig[e], (size_t)from[e], wk)))
                    continue;
                in_a[v] = true;
                queue[tail++] = v;
            }
            continue;
        }
        uint32_t j = u - r->n_eq;
        if (kh->d[j] == 0)
            continue;
        for (size_t k = mt->cfirst[j]; k < mt->cfirst[j + 1]; k++) {
            size_t e = mt->cedges[k];
            uint32_t i = r->edge_eq[e];
            if (in_a[i] || r->te[e] == bddfalse)
                continue;
            in_a[i] = true;
            queue[tail++] = i;
        }
    }
}

/* The start above into r->c, r->d (all zero on entry) and kn, and the
 * nodes of A dirty: true. False (nothing written): start from 0. */
static bool warm_start(sa_ctx *c, const sa__mats *mt, const BDD *act, const sa__within *okw,
                       int w, int wk, known *kn, bool *col_dirty, bool *row_dirty)
{
    sa_result *r = c->r;
    const sa_result *h = c->opt != NULL ? c->opt->hint : NULL;
    if (!warm_applies(r, h, w, wk))
        return false;
    size_t mark = sa__mark(c);
    bool *in_a = sa__alloc(c, (size_t)r->n_eq + r->n_var + 1);
    long *from = sa__alloc_raw(c, (r->n_edges + 1) * sizeof *from);
    known kh = {NULL, sa__alloc_raw(c, ((size_t)r->n_var + 1) * sizeof *kh.d), NULL, NULL};
    for (uint32_t j = 0; j < r->n_var; j++)
        kh.d[j] = sa__vvalue(&h->d[(size_t)j * w], wk);
    changed_steps(r, h, in_a, from);
    close_support(c, mt, act, okw, h, &kh, kn->sig, from, wk, in_a);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < r->n_eq; i++) {
        row_dirty[i] = in_a[i];
        if (in_a[i])
            continue;
        kept++;
        for (int b = 0; b < wk; b++)
            sa__put(&r->c[(size_t)i * w + b], h->c[(size_t)i * w + b]);
        /* Where an edge of the row is active, c_i is the value it takes
         * where matched: the hint's (its c_i and te are ours). */
        kn->c[i] = -1;
        kn->cs[i] = h->c_matched[i];
    }
    for (uint32_t j = 0; j < r->n_var; j++) {
        col_dirty[j] = in_a[r->n_eq + j];
        if (col_dirty[j])
            continue;
        kept++;
        for (int b = 0; b < wk; b++)
            sa__put(&r->d[(size_t)j * w + b], h->d[(size_t)j * w + b]);
        kn->d[j] = kh.d[j];
    }
    r->offsets_from_hint = kept;
    sa__release(c, mark);
    return true;
}

static bool fixpoint(sa_ctx *c, const sa__mats *mt, const BDD *act, const sa__within *okw,
                     int w, int wk)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    BDD *acc = sa__slots(c, (size_t)w);
    BDD *term = sa__slots(c, (size_t)w);
    BDD *zero = sa__slots(c, (size_t)w);
    BDD *sig = sa__slots(c, (size_t)w); /* sigma_of's */
    bool *col_dirty = sa__alloc(c, (size_t)r->n_var + 1);
    bool *row_dirty = sa__alloc(c, (size_t)r->n_eq + 1);
    known kn = {sa__alloc(c, ((size_t)r->n_eq + 1) * sizeof *kn.c), /* c = d = 0 */
                sa__alloc(c, ((size_t)r->n_var + 1) * sizeof *kn.d),
                sa__alloc_raw(c, (r->n_edges + 1) * sizeof *kn.sig), /* below */
                sa__alloc(c, ((size_t)r->n_eq + 1) * sizeof *kn.cs)}; /* read once c < 0 */
    for (size_t e = 0; e < r->n_edges; e++)
        kn.sig[e] = sa__vvalue(&r->sigma[e * (size_t)r->w_sigma], r->w_sigma);
    if (!warm_start(c, mt, act, okw, w, wk, &kn, col_dirty, row_dirty))
        for (uint32_t j = 0; j < r->n_var; j++)
            col_dirty[j] = true;
    size_t bound = (size_t)r->n_eq + r->n_var + 3;
    bool fits = true, moved = true;
    for (size_t it = 0; fits && moved; it++) {
        if (it > bound) {
            mdae_diags_add(c->diags, MDAE_SEV_ERROR, (mdae_range){{0, 0, 0}, {0, 0, 0}},
                           "internal error: the offsets did not converge");
            sa__fail(c, MDAE_E_BDD);
        }
        r->fpi_iterations = (int)it + 1;
        for (uint32_t j = 0; j < r->n_var && fits; j++) {
            if (!col_dirty[j])
                continue;
            col_dirty[j] = false;
            unsigned long long v;
            bool known_value = column_constant(r, mt, &kn, act, wk, j, &v);
            if (known_value)
                sa__vconst_put(acc, wk, v);
            else if (!column_by_levels(c, r, mt, &kn, act, wk, j, acc)) {
                sa__vconst(acc, wk, 0);
                for (size_t k = mt->cfirst[j]; k < mt->cfirst[j + 1]; k++) {
                    size_t e = mt->cedges[k];
                    sa__vadd(c, term, &r->c[(size_t)r->edge_eq[e] * w], sigma_of(r, e, sig, wk),
                             wk);
                    sa__vite(c, term, act[e], term, zero, wk);
                    sa__vmax(c, acc, acc, term, wk);
                }
            }
            BDD *dj = &r->d[(size_t)j * w];
            if (!sa__vsame(dj, acc, wk)) {
                sa__vcopy(dj, acc, wk);
                kn.d[j] = known_value ? (long long)v : sa__vvalue(acc, wk);
                for (size_t k = mt->cfirst[j]; k < mt->cfirst[j + 1]; k++)
                    if (r->te[mt->cedges[k]] != bddfalse)
                        row_dirty[r->edge_eq[mt->cedges[k]]] = true;
            }
            fits = wk == w || sa__within_empty(okw, acc[wk - 1]); /* in ok */
        }
        if (!fits)
            break;
        moved = false;
        for (uint32_t i = 0; i < r->n_eq; i++) {
            if (!row_dirty[i])
                continue;
            row_dirty[i] = false;
            unsigned long long v;
            bool known_value = row_constant(r, &kn, wk, i, &v);
            if (known_value)
                sa__vconst_put(acc, wk, v);
            else if (!row_by_choices(c, r, &kn, wk, i, acc)) {
                sa__vconst(acc, wk, 0);
                for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
                    if (r->te[e] == bddfalse)
                        continue;
                    sa__vsub(c, term, &r->d[(size_t)r->edge_v[e] * w], sigma_of(r, e, sig, wk),
                             wk);
                    sa__vite(c, acc, r->te[e], term, acc, wk);
                }
            }
            BDD *ci = &r->c[(size_t)i * w];
            if (!sa__vsame(ci, acc, wk)) {
                moved = true;
                sa__vcopy(ci, acc, wk);
                kn.c[i] = known_value ? (long long)v : sa__vvalue(acc, wk);
                kn.cs[i] = kn.c[i] >= 0 ? kn.c[i] : row_common_value(r, &kn, wk, i);
                for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++)
                    col_dirty[r->edge_v[e]] = true;
            }
        }
        sa__progress(c, "offsets", it, bound);
    }
    for (uint32_t i = 0; fits && i < r->n_eq; i++)
        r->c_matched[i] = kn.c[i] >= 0 ? kn.c[i] : kn.cs[i];
    sa__release(c, mark);
    return fits;
}

void sa__offsets_alloc(sa_ctx *c)
{
    sa_result *r = c->r;
    unsigned long long maxs = (1ull << r->w_sigma) - 1;
    int w = sa__vbits(((unsigned long long)r->n_eq + 2) * (maxs + 1)) + 1;
    if (w > SA_MAX_OFFSET_BITS) {
        sa__limit_diag(c, r->m, NULL, 0, MDAE_LIMIT_OFFSET_BITS, SA_MAX_OFFSET_BITS,
                       "the offsets would need %d bits (derivative orders up to %llu)", w,
                       maxs);
        sa__fail(c, MDAE_E_LIMIT);
    }
    r->w_off = w;
    r->small = false; /* until sa__dual says */
    r->c = sa__alloc_keep(c, ((size_t)r->n_eq * w + 1) * sizeof(BDD));
    r->d = sa__alloc_keep(c, ((size_t)r->n_var * w + 1) * sizeof(BDD));
}

/* d &= ok, bit by bit: the fixpoint's columns outside ok (below) cleared. */
static void mask_columns(sa_ctx *c, int w)
{
    sa_result *r = c->r;
    if (r->ok == bddtrue)
        return;
    for (size_t k = 0; k < (size_t)r->n_var * w; k++)
        if (r->d[k] != bddfalse)
            sa__put(&r->d[k], sa__and(r->d[k], r->ok));
}

/* Why the fixpoint runs on chi_E, not on "active edge in an analysed mode"
 * chi_E & ok (issue 40). The steps are mode by mode, and in a mode of ok
 * both masks are the same, so each sweep gives the same values there. Out
 * of ok, te is false (T_e is a matching of ok's modes, sa_int.h), so every
 * row step gives c_i = 0 there: c is the same BDD whatever d holds out of
 * ok, the sweeps move (c changes) exactly as before, and the columns out
 * of ok, max of 0 + sigma or of cs + sigma (the value c_i takes where
 * matched, which column_constant reads), are bounded and settle after one
 * sweep. The test that a value fits reads d in ok only (sa__within_empty),
 * and d is masked by ok at the end: the same c and d as with chi_E & ok.
 * On the compressible building ok is a chain through every room, so
 * chi_E & ok copied it above the edge's room for each conditional edge
 * (N = 1,000: 7,000 conjunctions, 0.9 G instructions in BuDDy's unique
 * table), and every step on the masks walked those copies; on chi_E most
 * columns are integers (column_constant: an unconditional edge's chi_E is
 * true) and the rest stay local. */
void sa__dual(sa_ctx *c)
{
    sa_result *r = c->r;
    sa__offsets_alloc(c);
    int w = r->w_off;
    if (r->ok == bddfalse)
        return;
    size_t mark = sa__mark(c);
    sa__mats mt;
    sa__mats_init(c, &mt);
    sa__within okw; /* emptiness in ok without the chain (sa_within.c) */
    sa__within_init(c, r->ok, &okw);
    const BDD *act = r->chi_e; /* unmasked: see above */
    /* Offsets are small in practice: first on a few bits (the arithmetic
     * costs per bit: brake N = 50, 12 bits, 10 ms), on all w if they do not
     * fit. The result has w bits either way (the high ones false). */
    r->c_matched = sa__alloc_keep_raw(c, ((size_t)r->n_eq + 1) * sizeof *r->c_matched);
    int wk = r->w_sigma + 3 < w ? r->w_sigma + 3 : w;
    r->small = wk < w; /* fixpoint on wk bits: below 2^(wk - 1) if it fits */
    if (!fixpoint(c, &mt, act, &okw, w, wk)) {
        r->small = false;
        r->offsets_from_hint = 0;
        for (size_t k = 0; k < (size_t)r->n_eq * w; k++)
            sa__put(&r->c[k], bddfalse);
        for (size_t k = 0; k < (size_t)r->n_var * w; k++)
            sa__put(&r->d[k], bddfalse);
        fixpoint(c, &mt, act, &okw, w, w);
    }
    mask_columns(c, w);
    sa__release(c, mark);
}
