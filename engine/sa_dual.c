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

#include <stdlib.h>
#include <string.h>

#define T(f) sa__tmp(c, (f))

/* What the fixpoint below knows of its operands as integers: c_i, d_j
 * and sigma_e as the value of their wk low bits when those are constants,
 * else -1 (read from the bits when asked: only the steps of dirty nodes
 * and the edges of the warm start's support ask, so an edit reads a few;
 * issue 40 read all of them, 340,000 weights and 110,000 columns at the
 * brake's N = 10,000, per attempt); and cs[i], the value c_i takes
 * wherever row i is matched, if that is one integer (the rows whose chosen
 * edges are guarded: the brake's valves), else -1. c_i is 0 where its row
 * is not matched, and an edge is active only where its row is
 * (sa_encode.c) and, in a valid nonsingular mode, every active row is
 * matched: so wherever edge e counts, c_i + sigma_e is cs[i] + sigma_e.
 * Invariant: cs[i] = c_i's value whenever that is a constant (it is set
 * so with every c_i, and a row the warm start keeps takes the hint's c_i
 * with the hint's cs, which held it), so cs is r->c_matched itself. */
typedef struct known {
    const sa_result *r;
    int w, wk;
    long long *cs;
    /* r->cd_within, read once per fixpoint (it does not change inside):
     * c's rows in that form (sa__off_value), else exact (sa__vvalue) */
    bool within;
    /* when the fixpoint keeps d within ok (off_chain.within): each column's
     * value as the exact step would have stored it (column_value_of,
     * below); NULL: read r->d */
    const long long *dval;
} known;

static long long kn_c(const known *kn, uint32_t i)
{
    const BDD *row = &kn->r->c[(size_t)i * kn->w];
    return kn->within ? sa__off_value(kn->r, row, kn->wk) : sa__vvalue(row, kn->wk);
}

static long long kn_d(const known *kn, uint32_t j)
{
    /* d in the fixpoint: unmasked (finish_offsets masks it after), read as
     * it is, or its value so kept when d is kept within ok */
    if (kn->dval != NULL)
        return kn->dval[j];
    return sa__vvalue(&kn->r->d[(size_t)j * kn->w], kn->wk);
}

static long long kn_sig(const known *kn, size_t e)
{
    const sa_result *r = kn->r;
    return sa__vvalue(&r->sigma[e * (size_t)r->w_sigma], r->w_sigma);
}

/* The edges of each column j: edges[first[j] .. first[j + 1]). */
typedef struct columns {
    const size_t *first, *edges;
} columns;

/* c_i wherever edge e of row i is active, as an integer if it is one
 * there, else -1 (above). */
static long long c_on_edge(const sa_result *r, const known *kn, size_t e)
{
    uint32_t i = r->edge_eq[e];
    long long ci = kn_c(kn, i);
    return ci >= 0 ? ci : kn->cs[i];
}

/* The value c_i takes wherever row i is matched: d_j - sigma_e of its
 * chosen edge there (wk bits, modular as sa__vsub), if every chosen edge
 * gives the same integer; else -1. */
static long long row_common_value(const sa_result *r, const known *kn, int wk, uint32_t i)
{
    unsigned long long mask = (1ull << wk) - 1;
    long long common = -1;
    for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
        if (sa__te_never(r, e))
            continue;
        long long d = kn_d(kn, r->edge_v[e]), s = kn_sig(kn, e);
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
static bool column_constant(const sa_result *r, const columns *mt, const known *kn,
                            const BDD *act, int wk, uint32_t j, unsigned long long *v)
{
    unsigned long long top = 0, mask = (1ull << wk) - 1;
    for (size_t k = mt->first[j]; k < mt->first[j + 1]; k++) {
        size_t e = mt->edges[k];
        if (act[e] == bddfalse)
            continue;
        long long a = c_on_edge(r, kn, e), s = kn_sig(kn, e);
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
        if (sa__te_never(r, e))
            continue;
        long long d = kn_d(kn, r->edge_v[e]), s = kn_sig(kn, e);
        if (!sa__te_always(r, e) || d < 0 || s < 0)
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
static bool column_by_levels(sa_ctx *c, const sa_result *r, const columns *mt,
                             const known *kn, const BDD *act, int wk, uint32_t j, BDD *acc)
{
    unsigned long long mask = (1ull << wk) - 1;
    size_t lo = mt->first[j], hi = mt->first[j + 1];
    for (size_t k = lo; k < hi; k++) {
        size_t e = mt->edges[k];
        if (act[e] != bddfalse && (c_on_edge(r, kn, e) < 0 || kn_sig(kn, e) < 0))
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
            size_t e = mt->edges[k];
            if (act[e] == bddfalse)
                continue;
            unsigned long long t = ((unsigned long long)c_on_edge(r, kn, e) +
                                    (unsigned long long)kn_sig(kn, e)) & mask;
            if (t < done && (!found || t > v)) {
                v = t;
                found = true;
            }
        }
        if (!found)
            break;
        sa__put(here, bddfalse);
        for (size_t k = lo; k < hi; k++) {
            size_t e = mt->edges[k];
            if (act[e] != bddfalse && (((unsigned long long)c_on_edge(r, kn, e) +
                                        (unsigned long long)kn_sig(kn, e)) & mask) == v)
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

/* ---- The column step off the chain of valid modes (issue 40) ----------------
 * The vector column step, d_j = max over column j's edges of
 * ite(act_e, c_i + sigma_e, 0), is mode by mode: each bit of the result is
 * a Boolean function of the operands' bits in the same mode. Split the
 * modes by ok:
 *   - in ok, it only reads c_i there, so any c'_i equal to c_i on ok gives
 *     the same values: c'_i = bdd_simplify(c_i, ok) (Coudert-Madre's
 *     restrict agrees with its argument on the care set);
 *   - out of ok, c_i is 0 (the fixpoint's invariant: c starts at 0 or at
 *     the hint's, whose ok is ours and whose c is 0 out of it
 *     (warm_applies, sa_int.h), and every row step gives 0 there, T_e being
 *     false out of ok), so d_j there is the same step with every c_i = 0,
 *     out_j, which does not change during the fixpoint.
 * So d_j = ite(ok, step(c'), out_j): the same function, hence the same
 * BDD, as the step on c. On the compressible building ok is a chain
 * through every room and each conditional c_i copies it above its room;
 * the step on c walked those copies in each addition, ite and maximum of
 * each edge (N = 400: 20,000 maxima of 16,400 instructions each, 330 M,
 * N^2.5 from N = 100), where c' stays in the room and the chain is walked
 * once per bit by the last ite.
 *
 * The row steps likewise: c_i = ite(T_e, d_j - sigma_e, ...) over row i's
 * edges from 0 (the vectors, or row_by_choices' bits) reads T_e and d_j;
 * in ok, T'_e = simplify(T_e, ok) and d'_j = simplify(d_j, ok) are T_e and
 * d_j; out of ok every T_e is false, so the step gives 0 there. So c_i =
 * step(T', d') & ok, bit by bit: the same BDD. */
/* ---- c and d within ok (issue 40) ----------------------------------------
 * On the compressible building ok is a chain through every room, and each
 * exact bit of c (c' & ok) copies the chain above its room, and so does
 * each bit of the unmasked d (the column step's ite(ok, step(c'), out_j)):
 * at N = 1,000, 0.93 M of the 1.05 M nodes live at the dual's garbage
 * collections were those copies (held by c, or by d when c alone was kept
 * within: docs/figures.md, h-dual21), and mask_by_ok's conjunctions, the
 * column step's last ite and the simplifications of c and d walked them
 * (0.65 G, 0.21 G, 0.12 G instructions, N^2). From a cold start with ok
 * not a constant, the fixpoint keeps both within ok (r->cd_within while it
 * runs): each bit as its canonical form sa__within_simplify, made from
 * local functions only:
 *   - c: the row step's c' (c on ok) is stored as sa__within_simplify(c'),
 *     the very node offset_in_ok made from the exact bit, so the column
 *     steps read the same c';
 *   - d: the column step's value on ok (step(c'), or the integer or level
 *     paths' value) is stored as its within form, the very node
 *     offset_in_ok made from the unmasked d (d'_j), so the row steps read
 *     the same d'.
 * Out of ok every row's value is 0 (above), and a column's value there
 * only served kn_d (the steps read d on ok; finish_offsets clears it at the
 * end): the fixpoint keeps kn_d's value of the unmasked d as before
 * (known.dval, column_value_of), so every step takes the same path (the
 * integers, the levels, the vectors) as on exact forms. A column whose d
 * changed out of ok only no longer pushes its rows, whose step then gave
 * the same c: the same c change at every step, so the same kn.cs
 * (r->c_matched), iterations and fits. Equal forms mean equal functions
 * under one ok, so the comparisons (sa__vsame) decide as before, and
 * kn_c reads c as the exact value (sa__off_value). At the end
 * (finish_offsets), sa__cd_exact turns both into exact forms (one
 * conjunction with ok per bit: the result's size); else they stay within.
 * Not from a warm start: warm_applies takes only a hint with exact c and
 * d, and the fixpoint then runs on exact forms, as before (a within hint
 * lacks the unmasked d that kn_d reads; its analysis runs cold, which is
 * linear now). The hint's readers (sa_hint.c's three entries, sa_probe.c)
 * take either form. sa__cd_exact: false by default (kept within);
 * sa__dual_within false: the cold fixpoint on exact forms, for the tests
 * that compare the two. */
bool sa__cd_exact = false;
bool sa__dual_within = true;

/* Whether r's cold fixpoint keeps c and d within ok (above). */
static bool cd_within_applies(const sa_result *r)
{
    return sa__dual_within && r->ok != bddtrue && r->ok != bddfalse;
}

typedef struct off_chain {
    BDD ok;       /* r->ok; bddtrue: the plain step */
    int w, wk;
    BDD *crel;    /* n_eq * wk slots: c'_i, valid where cvalid[i] */
    bool *cvalid;
    BDD *out;     /* n_var * wk slots: out_j, valid where ovalid[j] */
    bool *ovalid;
    BDD *drel;    /* n_var * wk slots: d'_j, valid where dvalid[j] */
    bool *dvalid;
    BDD *terel;   /* n_edges slots: T'_e, valid where tvalid[e] */
    bool *tvalid;
    /* c and d stored within ok (r->cd_within, "c and d within ok" above):
     * each row step's c' kept as sa__within_simplify(c') instead of c' & ok,
     * each column step's value on ok as its within form, dval the values
     * kn_d reads; okw is ok's. False: c' & ok and the unmasked d. */
    bool within;
    const sa__within *okw;
    const BDD *c;    /* r->c */
    long long *dval;  /* n_var, when within */
} off_chain;

static void off_chain_init(sa_ctx *c, off_chain *oc, int w, int wk)
{
    const sa_result *r = c->r;
    oc->ok = r->ok;
    oc->w = w;
    oc->wk = wk;
    oc->within = false;
    oc->okw = NULL;
    oc->c = r->c;
    oc->dval = NULL;
    if (oc->ok == bddtrue)
        return;
    oc->crel = sa__slots(c, (size_t)r->n_eq * (size_t)wk + 1);
    oc->cvalid = sa__alloc(c, (size_t)r->n_eq + 1);
    oc->out = sa__slots(c, (size_t)r->n_var * (size_t)wk + 1);
    oc->ovalid = sa__alloc(c, (size_t)r->n_var + 1);
    oc->drel = sa__slots(c, (size_t)r->n_var * (size_t)wk + 1);
    oc->dvalid = sa__alloc(c, (size_t)r->n_var + 1);
    oc->terel = sa__slots(c, r->n_edges + 1);
    oc->tvalid = sa__alloc(c, r->n_edges + 1);
}

/* Offset k of offs (r->c or r->d, w bits a row) restricted to ok, in
 * rel's k-th wk slots: c'_i or d'_j (above), made when first
 * asked after the offset changed (valid[k] false). */
static const BDD *offset_in_ok(const off_chain *oc, const BDD *offs, BDD *rel, bool *valid,
                               uint32_t k)
{
    if (oc->within) /* stored as c' or d' already */
        return &offs[(size_t)k * (size_t)oc->w];
    BDD *v = &rel[(size_t)k * (size_t)oc->wk];
    if (!valid[k]) {
        const BDD *from = &offs[(size_t)k * (size_t)oc->w];
        for (int b = 0; b < oc->wk; b++)
            sa__put(&v[b], sa__simplify(from[b], oc->ok));
        valid[k] = true;
    }
    return v;
}

/* T'_e (above), made once. */
static BDD te_in_ok(const sa_result *r, off_chain *oc, size_t e)
{
    if (!oc->tvalid[e]) { /* oc->ok is r->ok */
        sa__put(&oc->terel[e], sa__te_in_ok(r, e));
        oc->tvalid[e] = true;
    }
    return oc->terel[e];
}

/* acc := its canonical form within ok, bit by bit (the same function once
 * conjoined with ok, made without ok's chain; constants are their own). */
static void keep_within(sa_ctx *c, const sa__within *okw, BDD *acc, int wk)
{
    for (int b = 0; b < wk; b++) {
        if (acc[b] == bddfalse || acc[b] == bddtrue)
            continue;
        size_t mark = sa__mark(c);
        sa__put(&acc[b], sa__within_simplify(c, okw, acc[b]));
        sa__release(c, mark);
    }
}

/* acc &= ok, bit by bit: a row step's value out of ok is 0 (above); when
 * oc->within, acc := its canonical form within ok instead. */
static void mask_by_ok(sa_ctx *c, const off_chain *oc, BDD *acc)
{
    if (oc->within) {
        keep_within(c, oc->okw, acc, oc->wk);
        return;
    }
    for (int b = 0; b < oc->wk; b++)
        if (acc[b] != bddfalse)
            sa__put(&acc[b], sa__and(acc[b], oc->ok));
}

/* The row step when every chosen edge's d_j and sigma_e are constants but
 * not every choice is: acc = ite(T_e, d_j - sigma_e, acc) edge after edge,
 * as the vectors do it, bit by bit on constants (ite(f, 1, x) = f | x,
 * ite(f, 0, x) = x & !f). Into acc (wk slots): true; false if a value is
 * not a constant (acc then undefined). */
static bool row_by_choices(sa_ctx *c, const sa_result *r, const known *kn, off_chain *oc,
                           uint32_t i, BDD *acc)
{
    int wk = oc->wk;
    bool split = oc->ok != bddtrue; /* on T'_e, then & ok (above) */
    unsigned long long mask = (1ull << wk) - 1;
    for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++)
        if (!sa__te_never(r, e) && (kn_d(kn, r->edge_v[e]) < 0 || kn_sig(kn, e) < 0))
            return false;
    for (int b = 0; b < wk; b++)
        sa__put(&acc[b], bddfalse);
    for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
        if (sa__te_never(r, e))
            continue;
        unsigned long long v = ((unsigned long long)kn_d(kn, r->edge_v[e]) -
                                (unsigned long long)kn_sig(kn, e)) & mask;
        BDD t = split ? te_in_ok(r, oc, e) : sa__te(c, r, e);
        for (int b = 0; b < wk; b++)
            sa__put(&acc[b], (v >> b) & 1 ? sa__or(acc[b], t) : sa__diff(acc[b], t));
    }
    if (split)
        mask_by_ok(c, oc, acc);
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

/* Whether h's offsets can start r's fixpoint on wk of w bits (above).
 * Only a hint whose c and d are exact: the fixpoint from a warm start runs
 * on exact forms, and a hint stored within ok (h->cd_within, "c and d
 * within ok") lacks the values of the unmasked d that its kn_d reads; such
 * an analysis runs the cold fixpoint, within ok and linear. */
static bool warm_applies(const sa_result *r, const sa_result *h, int w, int wk)
{
    return h != NULL && h != r && h->c != NULL && h->d != NULL &&
           !h->cd_within && h->c_matched != NULL &&
           sa__te_exact(h) != NULL && h->small && h->w_off == w && wk < w && h->w_sigma == r->w_sigma &&
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

/* The nodes of A (above) as found, in order: rows i as i, columns j as
 * n_eq + j; in_a says which are in. */
typedef struct node_set {
    bool *in_a;
    uint32_t *at, n;
} node_set;

static void add_node(node_set *a, uint32_t u)
{
    if (a->in_a[u])
        return;
    a->in_a[u] = true;
    a->at[a->n++] = u;
}

/* Z (above) into a; from[e]: our edge e's edge in the hint, or -1. */
static void changed_steps(const sa_result *r, const sa_result *h, node_set *a, long *from)
{
    for (uint32_t i = 0; i < r->n_eq; i++) {
        size_t found = 0;
        for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
            uint32_t j = r->edge_v[e];
            long q = from[e] = hint_edge_to(h, i, j, e - r->eq_first[i]);
            if (q < 0 || !same_edge(r, h, e, (size_t)q)) {
                add_node(a, r->n_eq + j);
                add_node(a, i);
                from[e] = -1;
                continue;
            }
            found++;
            if (!sa__te_same(r, e, h, (size_t)q))
                add_node(a, i);
        }
        if (found == h->eq_first[i + 1] - h->eq_first[i])
            continue;
        add_node(a, i); /* an edge the hint had and we do not */
        for (size_t q = h->eq_first[i]; q < h->eq_first[i + 1]; q++) {
            bool ours = false;
            for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1] && !ours; e++)
                ours = from[e] == (long)q;
            if (!ours)
                add_node(a, r->n_eq + h->edge_v[q]);
        }
    }
}

/* Z (above) into a when the layout is the hint's (sa__same_edges): edge e is
 * the hint's e, so Z is where chi_E, sigma or te differ. Compared a run
 * of edges at a time with memcmp, edge by edge only in a run that
 * differs: an edit's few rows, where the comparison edge by edge
 * (changed_steps) walked the 340,000 edges of the brake at N = 10,000. */
static void same_layout_steps(const sa_result *r, const sa_result *h, node_set *a)
{
    for (size_t lo = 0; lo < r->n_edges; lo += SA_RUN_EDGES) {
        size_t n = r->n_edges - lo < SA_RUN_EDGES ? r->n_edges - lo : SA_RUN_EDGES;
        if (sa__run_same(r, h, lo, n, true))
            continue;
        for (size_t e = lo; e < lo + n; e++) {
            if (!sa__edge_same(r, h, e)) {
                add_node(a, r->n_eq + r->edge_v[e]);
                add_node(a, r->edge_eq[e]);
            } else if (!sa__te_same(r, e, h, e)) {
                add_node(a, r->edge_eq[e]);
            }
        }
    }
}

/* Whether edge e (the hint's q) may be tight in the hint: row i's value
 * plus its weight is column j's (above). */
static bool hint_tight_edge(const sa_result *h, long long sig, size_t q, int wk)
{
    if (h->tight_memo != NULL) /* cdg_build's, exact in ok */
        return h->tight_memo[q] != bddfalse;
    long long ci = h->c_matched[h->edge_eq[q]];
    long long dj = sa__off_value(h, sa__d_row(h, h->edge_v[q]), wk);
    if (ci < 0 || dj < 0 || sig < 0)
        return true; /* not known: as if */
    return (long long)(((unsigned long long)ci + (unsigned long long)sig) &
                       ((1ull << wk) - 1)) == dj;
}

/* Our edge e's edge in the hint: from[e], or e itself when from is NULL
 * (sa__same_edges) and the edge is the hint's; -1 if none. */
static long hint_edge_of(const sa_result *r, const sa_result *h, const long *from, size_t e)
{
    if (from != NULL)
        return from[e];
    return sa__edge_same(r, h, e) ? (long)e : -1;
}

/* A (above): a holds Z on entry. An edge supports nothing where it is
 * never active in ok (act is chi_E, unmasked: see sa__dual). */
static void close_support(const columns *mt, const BDD *act, const sa__within *okw,
                          const sa_result *h, const known *kn, const long *from, node_set *a)
{
    const sa_result *r = kn->r;
    int wk = kn->wk;
    for (uint32_t head = 0; head < a->n; head++) {
        uint32_t u = a->at[head];
        if (u < r->n_eq) {
            if (h->c_matched[u] == 0) /* 0 in every mode */
                continue;
            for (size_t e = r->eq_first[u]; e < r->eq_first[u + 1]; e++) {
                uint32_t v = r->n_eq + r->edge_v[e];
                if (a->in_a[v] || act[e] == bddfalse || sa__within_empty(okw, act[e]))
                    continue;
                long q = hint_edge_of(r, h, from, e);
                if (q >= 0 && !hint_tight_edge(h, kn_sig(kn, e), (size_t)q, wk))
                    continue;
                add_node(a, v);
            }
            continue;
        }
        uint32_t j = u - r->n_eq;
        if (sa__off_value(h, sa__d_row(h, j), wk) == 0)
            continue;
        for (size_t k = mt->first[j]; k < mt->first[j + 1]; k++) {
            size_t e = mt->edges[k];
            if (!sa__te_never(r, e))
                add_node(a, r->edge_eq[e]);
        }
    }
}

/* ---- The fixpoint's work: the nodes whose step is to be taken -------------- */

typedef struct worklist {
    uint32_t *at, n;
    bool *in;
} worklist;

static void worklist_init(sa_ctx *c, worklist *l, size_t cap)
{
    l->at = sa__alloc_raw(c, (cap + 1) * sizeof *l->at);
    l->in = sa__alloc(c, cap + 1);
    l->n = 0;
}

static void push(worklist *l, uint32_t k)
{
    if (l->in[k])
        return;
    l->in[k] = true;
    l->at[l->n++] = k;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* The list in index order, the order the sweeps took the nodes in before
 * the lists (the same BDD operations in the same order); unmarked, so
 * that the other phase may push them again. The caller empties it after
 * the phase (l->n = 0). */
static void take_in_order(worklist *l)
{
    bool sorted = true;
    for (uint32_t k = 1; k < l->n && sorted; k++)
        sorted = l->at[k - 1] < l->at[k];
    if (!sorted)
        qsort(l->at, l->n, sizeof *l->at, cmp_u32);
    for (uint32_t k = 0; k < l->n; k++)
        l->in[l->at[k]] = false;
}

/* The start above from r->c, r->d and kn->cs, which hold the hint's
 * offsets (copy_offsets): the nodes of A set to 0 and pushed (their steps
 * to be taken), every other node kept. */
static void warm_start(sa_ctx *c, const columns *mt, const BDD *act, const sa__within *okw,
                       const known *kn, worklist *cols, worklist *rows)
{
    sa_result *r = c->r;
    const sa_result *h = c->opt->hint;
    size_t mark = sa__mark(c);
    size_t n = (size_t)r->n_eq + r->n_var, w = (size_t)kn->w;
    node_set a = {sa__alloc(c, n + 1), sa__alloc_raw(c, (n + 1) * sizeof *a.at), 0};
    long *from = NULL; /* NULL: the hint's edges by index */
    if (sa__same_edges(r, h)) {
        same_layout_steps(r, h, &a);
    } else {
        from = sa__alloc_raw(c, (r->n_edges + 1) * sizeof *from);
        changed_steps(r, h, &a, from);
    }
    close_support(mt, act, okw, h, kn, from, &a);
    for (uint32_t k = 0; k < a.n; k++) {
        uint32_t u = a.at[k];
        BDD *v = u < r->n_eq ? &r->c[u * w] : &r->d[(u - r->n_eq) * w];
        for (size_t b = 0; b < w; b++)
            sa__put(&v[b], bddfalse);
        if (u < r->n_eq) {
            kn->cs[u] = 0;
            push(rows, u);
        } else {
            push(cols, u - r->n_eq);
        }
    }
    r->offsets_from_hint = (uint32_t)(n - a.n);
    sa__release(c, mark);
}

/* The vector column step of column j on the rows' values cv(i) (r->c's
 * rows, or c'), into acc; term, zero and sig: scratch vectors. */
static void column_step_on(sa_ctx *c, const columns *mt, const BDD *act, uint32_t j,
                           off_chain *oc, bool in_ok, BDD *acc, BDD *term, const BDD *zero,
                           BDD *sig)
{
    const sa_result *r = c->r;
    int wk = oc->wk;
    sa__vconst(acc, wk, 0);
    for (size_t q = mt->first[j]; q < mt->first[j + 1]; q++) {
        size_t e = mt->edges[q];
        uint32_t i = r->edge_eq[e];
        const BDD *ci = in_ok ? offset_in_ok(oc, r->c, oc->crel, oc->cvalid, i)
                              : &r->c[(size_t)i * (size_t)oc->w];
        sa__vadd(c, term, ci, sigma_of(r, e, sig, wk), wk);
        sa__vite(c, term, act[e], term, zero, wk);
        sa__vmax(c, acc, acc, term, wk);
    }
}

/* kn_d's value of the unmasked d = ite(ok, x, out) (sa__vvalue of it), x
 * given by its within forms wx, made without it: ok not constant, a bit is
 * a constant only where wx's is one, k, and then ite(ok, k, out_b) is k if
 * out_b is, ok or !ok if out_b is !k; a non-constant out_b is decided on
 * the exact bit (out of ok's chain: out_b is local). -1 if not constant. */
static long long column_value_of(sa_ctx *c, const off_chain *oc, const BDD *wx, const BDD *out)
{
    unsigned long long v = 0;
    for (int b = 0; b < oc->wk; b++)
        if (wx[b] != bddtrue && wx[b] != bddfalse)
            return -1;
    for (int b = 0; b < oc->wk; b++) {
        if (out[b] != wx[b]) {
            if (out[b] == bddtrue || out[b] == bddfalse)
                return -1;
            size_t mark = sa__mark(c);
            bool same = T(sa__ite(oc->ok, wx[b], out[b])) == wx[b];
            sa__release(c, mark);
            if (!same)
                return -1;
        }
        v |= (unsigned long long)(wx[b] == bddtrue) << b;
    }
    return (long long)v;
}

/* The column step of column j into acc, through ok's split (above) unless
 * ok is true. When oc->within, acc is its value on ok in within forms and
 * the result kn_d's value of the unmasked step (column_value_of); else
 * -1. */
static long long column_step(sa_ctx *c, const columns *mt, const BDD *act, uint32_t j,
                             off_chain *oc, BDD *acc, BDD *term, const BDD *zero, BDD *sig)
{
    const sa_result *r = c->r;
    int wk = oc->wk;
    if (oc->ok == bddtrue) {
        column_step_on(c, mt, act, j, oc, false, acc, term, zero, sig);
        return -1;
    }
    BDD *out = &oc->out[(size_t)j * (size_t)wk];
    if (!oc->ovalid[j]) { /* every c_i = 0: c_i + sigma_e is sigma_e */
        sa__vconst(out, wk, 0);
        for (size_t q = mt->first[j]; q < mt->first[j + 1]; q++) {
            size_t e = mt->edges[q];
            sa__vite(c, term, act[e], sigma_of(r, e, sig, wk), zero, wk);
            sa__vmax(c, out, out, term, wk);
        }
        oc->ovalid[j] = true;
    }
    column_step_on(c, mt, act, j, oc, true, acc, term, zero, sig);
    if (oc->within) {
        keep_within(c, oc->okw, acc, wk);
        return column_value_of(c, oc, acc, out);
    }
    sa__vite(c, acc, oc->ok, acc, out, wk);
    return -1;
}

/* The vector row step of row i into acc, through ok's split (above) unless
 * ok is true; term and sig: scratch vectors. */
static void row_step(sa_ctx *c, uint32_t i, off_chain *oc, BDD *acc, BDD *term, BDD *sig)
{
    const sa_result *r = c->r;
    int wk = oc->wk;
    bool split = oc->ok != bddtrue;
    sa__vconst(acc, wk, 0);
    for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
        if (sa__te_never(r, e))
            continue;
        uint32_t j = r->edge_v[e];
        const BDD *dj = split ? offset_in_ok(oc, r->d, oc->drel, oc->dvalid, j)
                              : &r->d[(size_t)j * (size_t)oc->w];
        sa__vsub(c, term, dj, sigma_of(r, e, sig, wk), wk);
        sa__vite(c, acc, split ? te_in_ok(r, oc, e) : sa__te(c, r, e), term, acc, wk);
    }
    if (split)
        mask_by_ok(c, oc, acc);
}

/* Pryce's fixpoint on the first wk bits of every w-bit offset (r->c, r->d:
 * all zero on entry, or the hint's when warm: warm_start). False if a d
 * reached 2^(wk-1): the values might then not fit, and the caller starts
 * again on more bits. Why it is exact when it returns true: the iteration
 * only increases c and d; while every c is below 2^(wk-1), c + sigma
 * (sigma < 2^(wk-2)) cannot wrap, so every d computed is exact, and it is
 * checked before any c is derived from it.
 *
 * Only what changed is recomputed: a column whose rows' c did not change
 * keeps its d, a row whose matched column's d did not change keeps its c.
 * Both maps are monotone, so this chaotic iteration from c = 0 reaches the
 * same least fixpoint as sweeping everything each round (the canonical
 * offsets), with much less work once few offsets still move (most of an
 * edit's, issue 16). The nodes to step are kept in lists (issue 40: a
 * round read a flag per node, 220,000 at the brake's N = 10,000, where an
 * edit's rounds step a few), taken in index order: the same steps as the
 * sweeps, in the same order. */
static bool fixpoint(sa_ctx *c, const columns *mt, const BDD *act, const sa__within *okw,
                     int w, int wk, bool warm)
{
    sa_result *r = c->r;
    /* the fixpoint reads and writes r->c and r->d themselves: both within
     * ok from a cold start (cd_within_applies), else c exact and d unmasked
     * until sa__dual's finish_offsets. All false on a cold entry (both
     * forms). */
    MDAE_ASSERT(!r->cd_within);
    size_t mark = sa__mark(c);
    BDD *acc = sa__slots(c, (size_t)w);
    BDD *term = sa__slots(c, (size_t)w);
    BDD *zero = sa__slots(c, (size_t)w);
    BDD *sig = sa__slots(c, (size_t)w); /* sigma_of's */
    worklist cols, rows;
    worklist_init(c, &cols, r->n_var);
    worklist_init(c, &rows, r->n_eq);
    known kn = {r, w, wk, r->c_matched, false, NULL}; /* within: below */
    off_chain oc; /* c' and out_j of the column step, made as asked */
    off_chain_init(c, &oc, w, wk);
    oc.within = !warm && cd_within_applies(r);
    oc.okw = okw;
    r->cd_within = oc.within; /* kn_c reads r->c in that form */
    kn.within = oc.within;
    if (oc.within) { /* cold: every d is 0 */
        oc.dval = sa__alloc(c, ((size_t)r->n_var + 1) * sizeof *oc.dval);
        kn.dval = oc.dval;
    }
    if (warm) {
        warm_start(c, mt, act, okw, &kn, &cols, &rows);
    } else {
        memset(kn.cs, 0, ((size_t)r->n_eq + 1) * sizeof *kn.cs); /* c = d = 0 */
        for (uint32_t j = 0; j < r->n_var; j++)
            push(&cols, j);
    }
    size_t bound = (size_t)r->n_eq + r->n_var + 3;
    bool fits = true, moved = true;
    for (size_t it = 0; fits && moved; it++) {
        if (it > bound) {
            mdae_diags_add(c->diags, MDAE_SEV_ERROR, (mdae_range){{0, 0, 0}, {0, 0, 0}},
                           "internal error: the offsets did not converge");
            sa__fail(c, MDAE_E_BDD);
        }
        r->fpi_iterations = (int)it + 1;
        take_in_order(&cols);
        for (uint32_t k = 0; k < cols.n && fits; k++) {
            uint32_t j = cols.at[k];
            unsigned long long v;
            long long dv; /* kn_d's value of the unmasked step, when oc.within */
            if (column_constant(r, mt, &kn, act, wk, j, &v)) {
                sa__vconst_put(acc, wk, v);
                dv = (long long)v;
            } else if (column_by_levels(c, r, mt, &kn, act, wk, j, acc)) {
                dv = sa__vvalue(acc, wk);
                if (oc.within)
                    keep_within(c, okw, acc, wk);
            } else {
                dv = column_step(c, mt, act, j, &oc, acc, term, zero, sig);
            }
            if (oc.within)
                oc.dval[j] = dv;
            BDD *dj = &r->d[(size_t)j * w];
            if (!sa__vsame(dj, acc, wk)) {
                sa__vcopy(dj, acc, wk);
                if (oc.ok != bddtrue)
                    oc.dvalid[j] = false;
                for (size_t q = mt->first[j]; q < mt->first[j + 1]; q++)
                    if (!sa__te_never(r, mt->edges[q]))
                        push(&rows, r->edge_eq[mt->edges[q]]);
            }
            fits = wk == w || sa__within_empty(okw, acc[wk - 1]); /* in ok */
        }
        if (!fits)
            break;
        cols.n = 0;
        moved = false;
        take_in_order(&rows);
        for (uint32_t k = 0; k < rows.n; k++) {
            uint32_t i = rows.at[k];
            unsigned long long v;
            bool known_value = row_constant(r, &kn, wk, i, &v);
            if (known_value)
                sa__vconst_put(acc, wk, v);
            else if (!row_by_choices(c, r, &kn, &oc, i, acc))
                row_step(c, i, &oc, acc, term, sig);
            BDD *ci = &r->c[(size_t)i * w];
            if (!sa__vsame(ci, acc, wk)) {
                moved = true;
                sa__vcopy(ci, acc, wk);
                if (oc.ok != bddtrue)
                    oc.cvalid[i] = false;
                long long now = known_value ? (long long)v : sa__off_value(r, acc, wk);
                kn.cs[i] = now >= 0 ? now : row_common_value(r, &kn, wk, i);
                for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++)
                    push(&cols, r->edge_v[e]);
            }
        }
        rows.n = 0;
        sa__progress(c, "offsets", it, bound);
    }
    sa__release(c, mark);
    return fits;
}

/* The width of the offsets (r->w_off): enough that no canonical offset
 * wraps. */
static int offsets_width(sa_ctx *c)
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
    return w;
}

void sa__offsets_alloc(sa_ctx *c)
{
    sa_result *r = c->r;
    int w = offsets_width(c);
    r->w_off = w;
    r->small = false; /* until sa__dual says */
    r->c = sa__alloc_keep(c, ((size_t)r->n_eq * w + 1) * sizeof(BDD));
    r->d = sa__alloc_keep(c, ((size_t)r->n_var * w + 1) * sizeof(BDD));
    r->cd_within = false; /* every writer writes exact bits */
}

/* A copy of the hint's n offsets of w bits, kept with the result, its
 * functions referenced. Only their wk low bits can be other than false
 * (the hint's fixpoint fitted on wk bits: warm_applies); sa__copy_refs
 * finds the few nodes 16 bits at a time (issue 40: memcpy, then a test
 * per low bit, were 4.6 M instructions of the brake's edit at N = 2,000,
 * 3 ms at N = 10,000). */
static BDD *copy_offsets(sa_ctx *c, const BDD *from, size_t n, int w)
{
    BDD *q = sa__alloc_keep_raw(c, (n * (size_t)w + 1) * sizeof *q);
    sa__copy_refs(q, from, n * (size_t)w);
    q[n * (size_t)w] = bddfalse;
    return q;
}

/* f &= ok for each of the n functions of f that is not false. */
static void and_ok(const sa_result *r, BDD *f, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (f[k] != bddfalse)
            sa__put(&f[k], sa__and(f[k], r->ok));
}

/* The offsets as the result keeps them: from the fixpoint's exact forms,
 * d &= ok (its columns outside ok, below, cleared); from its within forms
 * (r->cd_within, "c and d within ok"), kept so, or both turned exact
 * (& ok) if sa__cd_exact. */
static void finish_offsets(sa_ctx *c, int w)
{
    sa_result *r = c->r;
    if (r->ok == bddtrue)
        return;
    if (!r->cd_within) {
        and_ok(r, r->d, (size_t)r->n_var * w);
        return;
    }
    if (!sa__cd_exact)
        return;
    and_ok(r, r->c, (size_t)r->n_eq * w);
    and_ok(r, r->d, (size_t)r->n_var * w);
    r->cd_within = false;
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
 * and d is masked by ok at the end (or kept within ok: finish_offsets):
 * the same c and d as with chi_E & ok.
 * On the compressible building ok is a chain through every room, so
 * chi_E & ok copied it above the edge's room for each conditional edge
 * (N = 1,000: 7,000 conjunctions, 0.9 G instructions in BuDDy's unique
 * table), and every step on the masks walked those copies; on chi_E most
 * columns are integers (column_constant: an unconditional edge's chi_E is
 * true) and the rest stay local. */
void sa__dual(sa_ctx *c)
{
    sa_result *r = c->r;
    const sa_result *h = c->opt != NULL ? c->opt->hint : NULL;
    int w = offsets_width(c);
    /* Offsets are small in practice: first on a few bits (the arithmetic
     * costs per bit: brake N = 50, 12 bits, 10 ms), on all w if they do not
     * fit. The result has w bits either way (the high ones false). */
    int wk = r->w_sigma + 3 < w ? r->w_sigma + 3 : w;
    bool warm = r->ok != bddfalse && warm_applies(r, h, w, wk);
    if (!warm) {
        sa__offsets_alloc(c);
        if (r->ok == bddfalse)
            return;
    } else {
        r->w_off = w;
        r->cd_within = false; /* exact: warm_applies */
        r->c = copy_offsets(c, sa__c_stored(h), r->n_eq, w);
        r->d = copy_offsets(c, sa__d_stored(h), r->n_var, w);
    }
    size_t mark = sa__mark(c);
    columns mt; /* the edges of each column */
    sa__layout_columns(c, r, &mt.first, &mt.edges);
    sa__within okw; /* emptiness in ok without the chain (sa_within.c) */
    sa__within_init(c, r->ok, &okw);
    const BDD *act = r->chi_e; /* unmasked: see above */
    r->c_matched = sa__alloc_keep_raw(c, ((size_t)r->n_eq + 1) * sizeof *r->c_matched);
    if (warm)
        memcpy(r->c_matched, h->c_matched, (size_t)r->n_eq * sizeof *r->c_matched);
    r->small = wk < w; /* fixpoint on wk bits: below 2^(wk - 1) if it fits */
    if (!fixpoint(c, &mt, act, &okw, w, wk, warm)) {
        r->small = false;
        r->offsets_from_hint = 0;
        r->cd_within = false; /* the second attempt starts cold: its own */
        for (size_t k = 0; k < (size_t)r->n_eq * w; k++)
            sa__put(&r->c[k], bddfalse);
        for (size_t k = 0; k < (size_t)r->n_var * w; k++)
            sa__put(&r->d[k], bddfalse);
        fixpoint(c, &mt, act, &okw, w, w, false);
    }
    finish_offsets(c, w);
    sa__release(c, mark);
}
