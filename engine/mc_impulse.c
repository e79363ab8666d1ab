/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mc_impulse.c -- impulse analysis of a restart instant (mc_int.h,
 * mc__impulse): bounds on the impulse order of each value of the restart
 * system (impulsive ones, with the values of equal order, and finite
 * ones), the residuals of the erased equations, its restart relations;
 * and the standard meaning of the values of a finished restart
 * (mc__standard, S1-S3 at the end of the file).
 *
 * The papers' rules (RR-9459 section 6, Fig. 19, lost from the extracted
 * text; RR-8933 App. A; reconstructed in the notes section 2.3) work on
 * expressions. This file applies them to the structure, reading every
 * equation as a generic sum of terms (the linear reading of RR-8933 A.1
 * (20), which is the case of the papers' restart systems), the bodies
 * telling only whether a sum has a constant term (I7), with these
 * readings, each a choice of ours:
 *
 *  I1 Quantities. Y(x, s, l), the s-th Euler derivative of x at shift l
 *     (Y(x, 0, l) = x.^l), linked by dt * Y(x, s+1, l) = Y(x, s, l+1) -
 *     Y(x, s, l). A quantity all of whose values are known (set by earlier
 *     instants) is finite (Assumption 2): order <= 0, and 0 where I9 can.
 *  I2 Priors (Assumption 1 and 2 of RR-9459 section 6.2): x, ..., x^(d-1)
 *     of a variable with d = d_x(m+) >= 1 are states, finite: order <= 0.
 *     Algebraic values and leading derivatives are free.
 *  I3 An equation f.^k of the restart system is a generic sum: its terms
 *     are Y(x, sigma, k) for each incidence (x, sigma) in m+, plus one
 *     constant term of order 0 when I7 says it has one. The sum rule
 *     (R6-R8, (45)): the largest order is reached by at least two terms,
 *     or every term is identically 0.
 *  I7 The constant term: a term of the equation's body, read in m+ (its
 *     if-expressions on mode variables resolved), that reads no unknown
 *     and is not 0 (the Cup-and-Ball's g in e2 and L^2 in k1; not in e1
 *     nor k2: 0 = lambda + s gives [lambda] = [s] exactly, (40)). Without
 *     expressions (mel_options.no_expressions), every equation has one:
 *     the permissive reading, which can only widen the bounds.
 *  I4 A conflict with the past: an equation g.^k erased at this instant
 *     whose values are all known has a residual R = g.^k (RR-9459 (49)),
 *     finite (order <= 0, or -infinity), 0 where I9 can (the prior (51):
 *     the old state violates the new constraint by a finite amount, the
 *     clutch's w1 - w2). When a higher shift g.^(k+j) holds at this
 *     instant (kept or in the context, the shifts between erased),
 *     g.^(k+j) - g.^k = -R telescopes into a sum over 0 <= h < j and the
 *     incidences of dt * Y(x, sigma+1, k + h), and R. With finite states
 *     this sum is infinitesimal: the second-order Cup-and-Ball's k1, k1.
 *     hold at the impact up to an infinitesimal (the rope is straight, the
 *     positions continuous, RR-9459 (30)), which the paper's (51) ("finite
 *     and nonzero") contradicts for this model; its (40) uses the priors
 *     (38) only, as this reading does. Erased equations that involve
 *     values of this instant have no residual: they are consequences of
 *     the restart, not data.
 *  I9 The generic priors: known quantities and residuals have order 0
 *     (finite and nonzero) wherever an assignment allows it: all at once
 *     if possible, else one at a time in creation order, each kept when an
 *     assignment remains (a note says when some could not be). The
 *     ground contact's old height, on the ground, is infinitesimal.
 *  I6 The event of a transient mode (mc_change.c R8) has when-body
 *     equations with next(): next(v) is the value v. itself, Y(v, 0, 1),
 *     not the Euler derivative (v. - v)/dt that an order-1 incidence reads
 *     as elsewhere; next(der(y)) is Y(y, 1, 1) (mel_order_case.next says
 *     how many of an incidence's orders are next()). Every other equation of
 *     the event reads as in I3, so the elastic Cup-and-Ball's impact law
 *     next(v) = -e * v leaves v. - v finite, and e4 (der(v) + lambda * y +
 *     g = 0, kept at the event) makes lambda possibly impulsive: the rope's
 *     percussion, which RR-9459 section 5.2.4 describes but does not derive.
 *  I5 Orders are integers in -3..3 or -infinity (identically 0); the
 *     bounds lo, hi of each quantity are its least and largest order over
 *     every assignment satisfying I1-I9, found by backtracking with a node
 *     budget (beyond it, or beyond MC_IMP_MAX_VARS quantities, a note
 *     says the analysis was not done).
 *  I8 Equalities: two possibly impulsive values of an instant with the
 *     same bounds have equal orders when no assignment gives them
 *     different ones (searched; dropped silently past the node budget).
 * Results on the papers' systems: the clutch engaging, tau1 = tau2 = 1
 * exactly (RR-8933 A.1, A.2; the notes' derivation), the residual of e3 of
 * order 0; the Cup-and-Ball (24) and (25), in both forms, [lambda] = [s]
 * <= 1 and x.^2, y.^2 of order 0 (RR-9459 (40)); the paper's "= 1" needs a
 * nonzero normal velocity, which is not structural.
 *
 * Restart relations (RR-9459 section 6.1.2, first method): the possibly
 * impulsive values (hi > 0: a relation must hold whatever their order,
 * and the paper eliminates the Cup-and-Ball's lambda and s this way,
 * section 5.2.2, (26)-(27)) are eliminated from the equations that contain them;
 * when these are linear in them, |equations| - rank combinations are free
 * of impulses; with dt -> 0 they relate the restart values x+ (shifted
 * values) to the left limits x- (known values): for ClutchBasic, one
 * relation among w1+, w2+, w1-, w2- (j1 (w1+ - w1-) + j2 (w2+ - w2-) = 0)
 * and e3. (w1+ = w2+), whence the weighted mean. Coefficients are not
 * structural: the relation is given by the equations it combines.
 */
#include "mc_int.h"

#include <string.h>

#include "fx.h"

#define MC_IMP_MAX_NODES 200000L
#define ORD_MIN (-3)
#define ORD_MAX 3
#define N_VALS (ORD_MAX - ORD_MIN + 2) /* -inf and ORD_MIN..ORD_MAX */
#define NEG MC_ORDER_NEG_INF

typedef struct qty {
    uint32_t var; /* a residual: the equation */
    int s, l;     /* a residual: s = -1, l its shift */
    bool known;
    bool residual; /* I4: R = g.^l of an erased equation */
    unsigned dom;  /* bit b: order val_of(b) allowed */
} qty;

typedef struct term {
    int q;   /* quantity, or -1 for a constant */
    int off; /* added to the quantity's order (or the constant's order) */
} term;

typedef struct cons {
    size_t first, n; /* terms[first .. first + n) */
} cons;

typedef struct imp {
    const mel_model *m;
    const bool *to;
    const int *d;
    const mc_instant *in;
    uint32_t W;
    signed char *state; /* n_var * W: 1 known, 2 unknown, 0 not mentioned */
    qty *q;
    size_t nq, cq;
    term *t;
    size_t nt, ct;
    cons *c;
    size_t nc, cc;
    size_t *qc_first, *qc; /* constraints of each quantity (CSR) */
    size_t *queue;         /* propagation worklist (a ring of nc + 1) */
    bool *queued;
    unsigned *support;     /* per quantity: orders seen in solutions */
    long nodes;
    bool gave_up;
} imp;

static int val_of(int b) { return b == 0 ? NEG : ORD_MIN + b - 1; }

static bool value_known(const imp *p, uint32_t j, int l)
{
    if (l < 0 || (uint32_t)l >= p->W)
        return true;
    return p->state[(size_t)j * p->W + (size_t)l] != 2;
}

static int add_term(imp *p, int q, int off)
{
    int rc = mc__grow((void **)&p->t, &p->ct, p->nt + 1, sizeof *p->t);
    if (rc < 0)
        return rc;
    p->t[p->nt].q = q;
    p->t[p->nt].off = off;
    p->nt++;
    return MDAE_OK;
}

static int begin_cons(imp *p)
{
    int rc = mc__grow((void **)&p->c, &p->cc, p->nc + 1, sizeof *p->c);
    if (rc < 0)
        return rc;
    p->c[p->nc].first = p->nt;
    p->c[p->nc].n = 0;
    p->nc++;
    return MDAE_OK;
}

static void end_cons(imp *p) { p->c[p->nc - 1].n = p->nt - p->c[p->nc - 1].first; }

/* The quantity Y(j, s, l), created with its defining constraint (I1). *out
 * is its index (-1 past MC_IMP_MAX_VARS: a constant, and p->gave_up). */
static int quantity(imp *p, uint32_t j, int s, int l, int *out)
{
    for (size_t k = 0; k < p->nq; k++)
        if (!p->q[k].residual && p->q[k].var == j && p->q[k].s == s && p->q[k].l == l) {
            *out = (int)k;
            return MDAE_OK;
        }
    if (p->nq >= MC_IMP_MAX_VARS) {
        p->gave_up = true;
        *out = -1;
        return MDAE_OK;
    }
    bool known = true;
    for (int v = l; v <= l + s; v++)
        known &= value_known(p, j, v);
    int rc = mc__grow((void **)&p->q, &p->cq, p->nq + 1, sizeof *p->q);
    if (rc < 0)
        return rc;
    size_t me = p->nq++;
    p->q[me].var = j;
    p->q[me].s = s;
    p->q[me].l = l;
    p->q[me].known = known;
    p->q[me].residual = false;
    unsigned all = (1u << N_VALS) - 1;
    unsigned finite = 0; /* orders <= 0, and -inf (I2) */
    for (int b = 0; b < N_VALS; b++)
        if (val_of(b) <= 0)
            finite |= 1u << b;
    p->q[me].dom = known || (p->d[j] >= 1 && s <= p->d[j] - 1) ? finite : all;
    if (s >= 1) { /* dt * Y(s) - Y(s-1, l+1) + Y(s-1, l) = 0 */
        int a, b;
        rc = quantity(p, j, s - 1, l + 1, &a);
        if (rc == MDAE_OK)
            rc = quantity(p, j, s - 1, l, &b);
        if (rc == MDAE_OK)
            rc = begin_cons(p);
        if (rc == MDAE_OK)
            rc = add_term(p, (int)me, -1);
        if (rc == MDAE_OK)
            rc = add_term(p, a, 0);
        if (rc == MDAE_OK)
            rc = add_term(p, b, 0);
        if (rc < 0)
            return rc;
        end_cons(p);
    }
    *out = (int)me;
    return MDAE_OK;
}

/* How many of the sigma derivatives of inc's case of order sigma in mode
 * are next() (mel_order_case.next): 0 outside when-bodies. */
static int case_next(const mel_incidence *inc, const bool *mode, int sigma)
{
    for (uint32_t c = 0; c < inc->n_cases; c++)
        if (inc->cases[c].order == sigma && mel_guard_eval(inc->cases[c].guard, mode))
            return inc->cases[c].next;
    return 0;
}

bool mc__mode_cond(const struct fx_node *e, const bool *to, bool *ok)
{
    switch (e->op) {
    case FX_BOOL:
        return e->num != 0;
    case FX_MODE:
        return to[e->index];
    case FX_NOT:
        return !mc__mode_cond(e->kids[0], to, ok);
    case FX_AND:
    case FX_OR: {
        bool and = e->op == FX_AND, v = and;
        for (uint32_t k = 0; k < e->n; k++) {
            bool x = mc__mode_cond(e->kids[k], to, ok);
            v = and ? v && x : v || x;
        }
        return v;
    }
    default:
        *ok = false;
        return false;
    }
}

/* Whether e reads an unknown (its value at this instant or not). */
static bool reads_unknown(const fx_node *e)
{
    if (e->op == FX_VAR || e->op == FX_OPAQUE)
        return true;
    for (uint32_t k = 0; k < e->n; k++)
        if (reads_unknown(e->kids[k]))
            return true;
    return false;
}

/* I7: does the sum e (a side of an equation, read in mode `to`) have a term
 * that reads no unknown and is not the number 0? Sums and negations are
 * walked, if-expressions on mode variables resolved; anything else that
 * reads no unknown is such a term. */
static bool has_constant_term(const fx_node *e, const bool *to)
{
    switch (e->op) {
    case FX_NUM:
        return e->num != 0;
    case FX_NEG:
        return has_constant_term(e->kids[0], to);
    case FX_ADD:
        for (uint32_t k = 0; k < e->n; k++)
            if (has_constant_term(e->kids[k], to))
                return true;
        return false;
    case FX_IF: {
        bool ok = true;
        bool c = mc__mode_cond(e->kids[0], to, &ok);
        if (!ok)
            return true; /* a condition on values: the generic reading */
        return has_constant_term(e->kids[c ? 1 : 2], to);
    }
    default:
        return !reads_unknown(e);
    }
}

/* I7: whether equation i, in mode `to`, reads as a sum with a constant
 * term: always when its expressions were not kept. */
static bool equation_has_constant(const mel_model *m, uint32_t i, const bool *to)
{
    const mel_equation *q = &m->equations[i];
    if (q->lhs == NULL || q->rhs == NULL)
        return true;
    return has_constant_term(q->lhs, to) || has_constant_term(q->rhs, to);
}

/* I3: the sum of the kept equation (i, k). I6: an incidence of order sigma
 * of which n are next() reads Y(x, sigma - n, k + n). */
static int row_cons(imp *p, uint32_t i, int k)
{
    const mel_equation *q = &p->m->equations[i];
    int idx[64];
    uint32_t n = 0;
    for (uint32_t e = 0; e < q->n_incs && n < 64; e++) {
        int s = mel_incidence_order(&q->incs[e], p->to);
        if (s < 0)
            continue;
        int nx = case_next(&q->incs[e], p->to, s);
        int rc = quantity(p, q->incs[e].var, s - nx, k + nx, &idx[n++]);
        if (rc < 0)
            return rc;
    }
    if (q->n_incs > 64)
        p->gave_up = true;
    int rc = begin_cons(p);
    for (uint32_t e = 0; e < n && rc == MDAE_OK; e++)
        rc = add_term(p, idx[e], 0);
    if (rc == MDAE_OK && equation_has_constant(p->m, i, p->to))
        rc = add_term(p, -1, 0); /* the constant term */
    if (rc == MDAE_OK)
        end_cons(p);
    return rc;
}

static bool listed(const mc_list *l, uint32_t index, int shift)
{
    for (size_t k = 0; k < l->n; k++)
        if (l->items[k].index == index && l->items[k].shift == shift)
            return true;
    return false;
}

/* Whether every value of (i, k) was fixed by an earlier instant. */
static bool row_all_known(const imp *p, uint32_t i, int k)
{
    const mel_equation *q = &p->m->equations[i];
    for (uint32_t e = 0; e < q->n_incs; e++) {
        int s = mel_incidence_order(&q->incs[e], p->to);
        for (int v = k; s >= 0 && v <= k + s; v++)
            if (!value_known(p, q->incs[e].var, v))
                return false;
    }
    return true;
}

/* The orders of a finite value: <= 0, or -infinity. */
static unsigned finite_mask(void)
{
    unsigned m = 0;
    for (int b = 0; b < N_VALS; b++)
        if (val_of(b) <= 0)
            m |= 1u << b;
    return m;
}

/* The residual quantity R = g.^k of erased equation i (I4). */
static int residual_qty(imp *p, uint32_t i, int k, int *out)
{
    if (p->nq >= MC_IMP_MAX_VARS) {
        p->gave_up = true;
        *out = -1;
        return MDAE_OK;
    }
    int rc = mc__grow((void **)&p->q, &p->cq, p->nq + 1, sizeof *p->q);
    if (rc < 0)
        return rc;
    qty *x = &p->q[p->nq];
    x->var = i;
    x->s = -1;
    x->l = k;
    x->known = false;
    x->residual = true;
    x->dom = finite_mask();
    *out = (int)p->nq++;
    return MDAE_OK;
}

/* I4: an erased (i, k) whose values are all known: its residual R, and,
 * when a higher shift (i, k + j) holds at this instant (kept or in the
 * context; the shifts between erased), g.^(k+j) - g.^k = -R telescoped:
 * the sum over 0 <= h < j and the incidences (x, sigma) of
 * dt * Y(x, sigma + 1, k + h), and R. */
static int jump_cons(imp *p, uint32_t i, int k)
{
    int me;
    int rc = residual_qty(p, i, k, &me);
    if (rc < 0 || me < 0)
        return rc;
    const mc_instant *in = p->in;
    int j = 0;
    for (int h = k + 1; h <= k + 8 && j == 0; h++) {
        if (listed(&in->equations, i, h) || listed(&in->context, i, h))
            j = h - k;
        else if (!listed(&in->erased, i, h))
            break;
    }
    if (j == 0)
        return MDAE_OK; /* nothing relates it to this instant: the prior alone */
    const mel_equation *q = &p->m->equations[i];
    int idx[64];
    uint32_t n = 0;
    for (int h = 0; h < j; h++)
        for (uint32_t e = 0; e < q->n_incs && n < 64; e++) {
            int s = mel_incidence_order(&q->incs[e], p->to);
            if (s < 0)
                continue;
            rc = quantity(p, q->incs[e].var, s + 1, k + h, &idx[n++]);
            if (rc < 0)
                return rc;
        }
    rc = begin_cons(p);
    for (uint32_t e = 0; e < n && rc == MDAE_OK; e++)
        rc = add_term(p, idx[e], -1);
    if (rc == MDAE_OK)
        rc = add_term(p, me, 0);
    if (rc == MDAE_OK)
        end_cons(p);
    return rc;
}


/* ---- The search (I5) ------------------------------------------------------------
 * Generalised arc consistency on the domains (a value stays when every
 * constraint of its quantity has a support with it), then, for the bounds,
 * maintained-consistency search: each (quantity, order) left is tried, and
 * every solution found records the orders it uses. Propagation alone is
 * sound for "impulsive for sure" (it only removes impossible orders); the
 * search makes lo and hi exact. When the search exceeds its node budget,
 * the bounds are those of propagation (hi may then be too large) and a
 * note says so. */

static int bit_of(int v) { return v == NEG ? 0 : v - ORD_MIN + 1; }

/* Orders a term can take, as a mask over levels: bit 0 is -infinity, bit
 * o + 5 the order o (-4 .. 4: a quantity's -3 .. 3 plus an offset of -1 or
 * +1). */
static unsigned level_mask(const imp *p, const unsigned *dom, const term *t, size_t v, int b)
{
    if (t->q < 0)
        return 1u << (t->off + 5);
    unsigned d = (size_t)t->q == v ? 1u << b : dom[t->q];
    unsigned out = d & 1u;
    for (int bb = 1; bb < N_VALS; bb++)
        if (d & (1u << bb))
            out |= 1u << (val_of(bb) + t->off + 5);
    return out;
}

/* Does constraint c have an assignment from dom with v at order bit b?
 * The sum rule: every term identically zero, or a level M reached by two
 * terms while every term can stay at or below M. */
static bool supported(const imp *p, const unsigned *dom, const cons *c, size_t v, int b)
{
    unsigned masks[64];
    size_t n = c->n < 64 ? c->n : 64;
    bool all_neg = true;
    for (size_t k = 0; k < n; k++) {
        masks[k] = level_mask(p, dom, &p->t[c->first + k], v, b);
        all_neg &= (masks[k] & 1u) != 0;
    }
    if (all_neg || c->n > 64)
        return true;
    for (int M = 1; M <= 9; M++) {
        unsigned at_or_below = (2u << M) - 1;
        int reach = 0;
        bool below = true;
        for (size_t k = 0; k < n && below; k++) {
            reach += (masks[k] >> M) & 1u;
            below = (masks[k] & at_or_below) != 0;
        }
        if (below && reach >= 2)
            return true;
    }
    return false;
}

/* Propagate to a fixpoint with a worklist of constraints (all of them at
 * first; those of a quantity whose domain shrank after); false when a
 * domain empties. */
static bool propagate_from(imp *p, unsigned *dom, long only)
{
    size_t head = 0, tail = 0, cap = p->nc + 1;
    if (only < 0) {
        for (size_t ci = 0; ci < p->nc; ci++) {
            p->queue[tail++ % cap] = ci;
            p->queued[ci] = true;
        }
    } else { /* the rest is consistent already: the constraints of `only` */
        for (size_t x = p->qc_first[only]; x < p->qc_first[only + 1]; x++)
            if (!p->queued[p->qc[x]]) {
                p->queued[p->qc[x]] = true;
                p->queue[tail++ % cap] = p->qc[x];
            }
    }
    bool ok = true;
    while (head != tail) {
        size_t ci = p->queue[head++ % cap];
        p->queued[ci] = false;
        if (!ok)
            continue; /* drain: leave queued[] clear */
        if (++p->nodes > MC_IMP_MAX_NODES)
            p->gave_up = true;
        const cons *c = &p->c[ci];
        for (size_t k = 0; k < c->n && ok && !p->gave_up; k++) {
            int q = p->t[c->first + k].q;
            if (q < 0)
                continue;
            unsigned before = dom[q];
            for (int b = 0; b < N_VALS; b++)
                if ((dom[q] & (1u << b)) && !supported(p, dom, c, (size_t)q, b))
                    dom[q] &= ~(1u << b);
            if (dom[q] == 0)
                ok = false;
            else if (dom[q] != before)
                for (size_t x = p->qc_first[q]; x < p->qc_first[q + 1]; x++)
                    if (!p->queued[p->qc[x]]) {
                        p->queued[p->qc[x]] = true;
                        p->queue[tail++ % cap] = p->qc[x];
                    }
        }
    }
    return ok;
}

static bool propagate(imp *p, unsigned *dom) { return propagate_from(p, dom, -1); }

static void record_solution(imp *p, const unsigned *dom)
{
    for (size_t k = 0; k < p->nq; k++)
        p->support[k] |= dom[k];
}

/* Depth-first search for one solution below dom (owned by the caller);
 * records it. */
static bool search(imp *p, const unsigned *dom)
{
    if (p->gave_up)
        return false;
    size_t pick = p->nq;
    int best = N_VALS + 1;
    for (size_t k = 0; k < p->nq; k++) {
        int n = __builtin_popcount(dom[k]);
        if (n > 1 && n < best) {
            best = n;
            pick = k;
        }
    }
    if (pick == p->nq) { /* every domain a singleton, arc consistent: a solution */
        record_solution(p, dom);
        return true;
    }
    unsigned *next = mdae_malloc((p->nq + 1) * sizeof *next);
    if (next == NULL) {
        p->gave_up = true;
        return false;
    }
    bool found = false;
    for (int b = N_VALS - 1; b >= 0 && !found && !p->gave_up; b--) {
        if (!(dom[pick] & (1u << b)))
            continue;
        memcpy(next, dom, p->nq * sizeof *next);
        next[pick] = 1u << b;
        if (propagate_from(p, next, (long)pick) && !p->gave_up)
            found = search(p, next);
    }
    mdae_free(next);
    return found;
}

/* Exact bounds: try every (quantity, order) the root propagation left and
 * no solution has used yet. */
static bool bounds(imp *p, unsigned *root)
{
    if (!propagate(p, root))
        return false;
    if (p->gave_up)
        return true;
    unsigned *dom = mdae_malloc((p->nq + 1) * sizeof *dom);
    if (dom == NULL) {
        p->gave_up = true;
        return true;
    }
    bool any = false;
    for (size_t v = 0; v < p->nq && !p->gave_up; v++)
        for (int b = 0; b < N_VALS && !p->gave_up; b++) {
            if (!(root[v] & (1u << b)) || (p->support[v] & (1u << b)))
                continue;
            memcpy(dom, root, p->nq * sizeof *dom);
            dom[v] = 1u << b;
            if (propagate_from(p, dom, (long)v) && !p->gave_up)
                any |= search(p, dom);
        }
    mdae_free(dom);
    return any || p->gave_up;
}

static int index_constraints(imp *p)
{
    p->qc_first = mdae_calloc(p->nq + 2, sizeof *p->qc_first);
    p->qc = mdae_calloc(p->nt + 1, sizeof *p->qc);
    size_t *fill = mdae_calloc(p->nq + 1, sizeof *fill);
    if (p->qc_first == NULL || p->qc == NULL || fill == NULL) {
        mdae_free(fill);
        return MDAE_E_NOMEM;
    }
    for (size_t c = 0; c < p->nc; c++)
        for (size_t k = 0; k < p->c[c].n; k++) {
            int q = p->t[p->c[c].first + k].q;
            if (q >= 0)
                p->qc_first[q + 1]++;
        }
    for (size_t q = 0; q < p->nq; q++)
        p->qc_first[q + 1] += p->qc_first[q];
    for (size_t c = 0; c < p->nc; c++)
        for (size_t k = 0; k < p->c[c].n; k++) {
            int q = p->t[p->c[c].first + k].q;
            if (q >= 0)
                p->qc[p->qc_first[q] + fill[q]++] = c;
        }
    mdae_free(fill);
    return MDAE_OK;
}

/* ---- Results ------------------------------------------------------------------------ */

static void support_bounds(unsigned sup, int *lo, int *hi)
{
    *lo = 1000;
    *hi = NEG;
    for (int b = 0; b < N_VALS; b++)
        if (sup & (1u << b)) {
            int v = val_of(b);
            *lo = v < *lo ? v : *lo;
            *hi = v > *hi ? v : *hi;
        }
}

/* Append the value q of instant r, of support sup, to res->impulsive (hi >
 * 0) or res->finite. */
static int push_value(mc_result *res, const qty *q, uint32_t r, unsigned sup)
{
    int lo, hi;
    support_bounds(sup, &lo, &hi);
    bool imp_v = hi > 0;
    size_t *n = imp_v ? &res->n_impulsive : &res->n_finite;
    mc_impulse **list = imp_v ? &res->impulsive : &res->finite;
    size_t cap = *n; /* exact size so far: grow by one */
    int rc = mc__grow((void **)list, &cap, *n + 1, sizeof **list);
    if (rc < 0)
        return rc;
    mc_impulse *e = &(*list)[(*n)++];
    memset(e, 0, sizeof *e);
    e->var = q->var;
    e->shift = q->l;
    e->r = r;
    e->lo = lo;
    e->hi = hi;
    return MDAE_OK;
}

static int push_residual(mc_result *res, const qty *q, uint32_t r, unsigned sup)
{
    size_t cap = res->n_residuals;
    int rc = mc__grow((void **)&res->residuals, &cap, res->n_residuals + 1,
                      sizeof *res->residuals);
    if (rc < 0)
        return rc;
    mc_residual *e = &res->residuals[res->n_residuals++];
    e->r = r;
    e->eq = q->var;
    e->shift = q->l;
    support_bounds(sup, &e->lo, &e->hi);
    return MDAE_OK;
}

static bool row_mentions(const imp *p, uint32_t i, int k, uint32_t j, int l)
{
    const mel_equation *q = &p->m->equations[i];
    for (uint32_t e = 0; e < q->n_incs; e++) {
        if (q->incs[e].var != j)
            continue;
        int s = mel_incidence_order(&q->incs[e], p->to);
        return s >= 0 && l >= k && l <= k + s;
    }
    return false;
}

/* The restart relations of the instant: one entry eliminating the
 * impulsive values (if any) from the equations that contain them, and one
 * per equation without them. */
static int resets(imp *p, const bool *impulsive, mc_result *res)
{
    const mc_instant *in = p->in;
    mc_reset rs;
    memset(&rs, 0, sizeof rs);
    rs.r = in->r;
    size_t ce = 0, cf = 0, ca = 0;
    int rc = MDAE_OK;
    for (size_t u = 0; u < in->unknowns.n && rc == MDAE_OK; u++)
        if (impulsive[u])
            rc = mc__list_push(&rs.eliminate, &ce, in->unknowns.items[u].index,
                               in->unknowns.items[u].shift);
    size_t cap = 0;
    mc_reset *all = NULL;
    size_t n_all = 0;
    for (size_t e = 0; e < in->equations.n && rc == MDAE_OK; e++) {
        const mc_item *row = &in->equations.items[e];
        bool has = false;
        for (size_t u = 0; u < in->unknowns.n && !has; u++)
            has = impulsive[u] && row_mentions(p, row->index, row->shift,
                                               in->unknowns.items[u].index,
                                               in->unknowns.items[u].shift);
        if (has) {
            rc = mc__list_push(&rs.from, &cf, row->index, row->shift);
            continue;
        }
        /* its own relation */
        mc_reset own;
        memset(&own, 0, sizeof own);
        own.r = in->r;
        own.relations = 1;
        size_t c1 = 0, c2 = 0;
        rc = mc__list_push(&own.from, &c1, row->index, row->shift);
        const mel_equation *q = &p->m->equations[row->index];
        for (uint32_t i2 = 0; i2 < q->n_incs && rc == MDAE_OK; i2++) {
            int s = mel_incidence_order(&q->incs[i2], p->to);
            for (int l = row->shift; s >= 0 && l <= row->shift + s && rc == MDAE_OK; l++)
                rc = mc__list_push(&own.among, &c2, q->incs[i2].var, l);
        }
        if (rc == MDAE_OK && n_all == cap) {
            size_t nc = cap ? 2 * cap : 8;
            mc_reset *x = mdae_realloc(all, nc * sizeof *x);
            if (x == NULL)
                rc = MDAE_E_NOMEM;
            else {
                all = x;
                cap = nc;
            }
        }
        if (rc == MDAE_OK)
            all[n_all++] = own;
        else {
            mdae_free(own.from.items);
            mdae_free(own.among.items);
        }
    }
    /* values the eliminating combination relates: the non-impulsive values
     * of its equations */
    for (size_t e = 0; e < rs.from.n && rc == MDAE_OK; e++) {
        const mel_equation *q = &p->m->equations[rs.from.items[e].index];
        int k = rs.from.items[e].shift;
        for (uint32_t i2 = 0; i2 < q->n_incs && rc == MDAE_OK; i2++) {
            int s = mel_incidence_order(&q->incs[i2], p->to);
            for (int l = k; s >= 0 && l <= k + s && rc == MDAE_OK; l++) {
                uint32_t j = q->incs[i2].var;
                bool imp_v = false, dup = false;
                for (size_t u = 0; u < in->unknowns.n; u++)
                    if (impulsive[u] && in->unknowns.items[u].index == j &&
                        in->unknowns.items[u].shift == l)
                        imp_v = true;
                for (size_t a = 0; a < rs.among.n; a++)
                    if (rs.among.items[a].index == j && rs.among.items[a].shift == l)
                        dup = true;
                if (!imp_v && !dup)
                    rc = mc__list_push(&rs.among, &ca, j, l);
            }
        }
    }
    rs.relations = rs.from.n > rs.eliminate.n ? (uint32_t)(rs.from.n - rs.eliminate.n) : 0;
    if (rc == MDAE_OK)
        rc = mc__reset_texts(p->m, p->to, &rs); /* issue 41 item 8 */
    size_t need = res->n_resets + n_all + (rs.eliminate.n > 0 ? 1 : 0);
    mc_reset *x = rc == MDAE_OK ? mdae_realloc(res->resets, (need + 1) * sizeof *x) : NULL;
    if (x == NULL) {
        for (size_t k = 0; k < n_all; k++) {
            mdae_free(all[k].from.items);
            mdae_free(all[k].among.items);
        }
        mdae_free(all);
        mdae_free(rs.eliminate.items);
        mdae_free(rs.from.items);
        mdae_free(rs.among.items);
        mc__reset_close(&rs);
        return MDAE_E_NOMEM;
    }
    res->resets = x;
    if (rs.eliminate.n > 0)
        res->resets[res->n_resets++] = rs;
    else {
        mdae_free(rs.eliminate.items);
        mdae_free(rs.from.items);
        mdae_free(rs.among.items);
        mc__reset_close(&rs);
    }
    for (size_t k = 0; k < n_all; k++)
        res->resets[res->n_resets++] = all[k];
    mdae_free(all);
    return MDAE_OK;
}

static void imp_close(imp *p)
{
    mdae_free(p->state);
    mdae_free(p->q);
    mdae_free(p->t);
    mdae_free(p->c);
    mdae_free(p->qc_first);
    mdae_free(p->queue);
    mdae_free(p->queued);
    mdae_free(p->qc);
    mdae_free(p->support);
}

static int build(imp *p)
{
    const mc_instant *in = p->in;
    int maxl = 0;
    const mc_list *ls[2] = {&in->known, &in->unknowns};
    for (int k = 0; k < 2; k++)
        for (size_t e = 0; e < ls[k]->n; e++)
            maxl = ls[k]->items[e].shift > maxl ? ls[k]->items[e].shift : maxl;
    p->W = (uint32_t)maxl + 3;
    p->state = mdae_calloc((size_t)p->m->n_variables * p->W + 1, 1);
    if (p->state == NULL)
        return MDAE_E_NOMEM;
    for (int k = 0; k < 2; k++)
        for (size_t e = 0; e < ls[k]->n; e++)
            p->state[(size_t)ls[k]->items[e].index * p->W + (size_t)ls[k]->items[e].shift] =
                (signed char)(k + 1);
    int rc = MDAE_OK;
    for (size_t e = 0; e < in->equations.n && rc == MDAE_OK && !p->gave_up; e++)
        rc = row_cons(p, in->equations.items[e].index, in->equations.items[e].shift);
    for (size_t e = 0; e < in->erased.n && rc == MDAE_OK && !p->gave_up; e++) {
        const mc_item *g = &in->erased.items[e];
        if (row_all_known(p, g->index, g->shift))
            rc = jump_cons(p, g->index, g->shift);
    }
    return rc;
}

/* I9, the generic priors: a known quantity or a residual is finite and
 * nonzero (order 0; RR-9459 (51) for the residuals) wherever the rules
 * allow it. The candidates are those with order 0 in p->support (root's
 * bounds); all of them at once when that has an assignment, else one at a
 * time in creation order, each kept when an assignment remains. root2
 * receives the domains of the result, p->support its bounds. Past the
 * node budget the last feasible state stands. Returns false when some
 * candidate could not be set to 0 for the others. */
static bool generic_priors(imp *p, const unsigned *root, unsigned *root2)
{
    unsigned zero = 1u << bit_of(0);
    size_t n = p->nq;
    unsigned *keep = mdae_malloc((n + 1) * sizeof *keep);
    unsigned *cur = mdae_malloc((n + 1) * sizeof *cur);
    unsigned *try_ = mdae_malloc((n + 1) * sizeof *try_);
    if (keep == NULL || cur == NULL || try_ == NULL) {
        mdae_free(keep);
        mdae_free(cur);
        mdae_free(try_);
        memcpy(root2, root, n * sizeof *root2);
        return true;
    }
    memcpy(keep, p->support, n * sizeof *keep); /* the last feasible bounds */
    memcpy(cur, root, n * sizeof *cur);         /* the last feasible domains */
    bool cand_any = false;
    for (size_t k = 0; k < n; k++) {
        bool cand = p->q[k].known || p->q[k].residual;
        cur[k] = cand ? cur[k] & p->support[k] : cur[k];
        cand_any |= cand && (p->support[k] & zero) && p->support[k] != zero;
    }
    bool all = true;
    for (int pass = 0; pass < 2 && cand_any; pass++) {
        /* pass 0: every candidate at once; pass 1: one at a time */
        bool done = false;
        for (size_t k = 0; k < n && !done && !p->gave_up; k++) {
            bool cand = p->q[k].known || p->q[k].residual;
            if (!cand || !(cur[k] & zero) || cur[k] == zero)
                continue;
            memcpy(try_, cur, n * sizeof *try_);
            if (pass == 0) {
                for (size_t j = 0; j < n; j++)
                    if ((p->q[j].known || p->q[j].residual) && (try_[j] & zero))
                        try_[j] = zero;
            } else
                try_[k] = zero;
            memset(p->support, 0, n * sizeof *p->support);
            unsigned *dom = mdae_malloc((n + 1) * sizeof *dom);
            if (dom == NULL) {
                p->gave_up = true;
                break;
            }
            memcpy(dom, try_, n * sizeof *dom);
            bool ok = bounds(p, dom);
            mdae_free(dom);
            if (ok && !p->gave_up) {
                memcpy(cur, try_, n * sizeof *cur);
                memcpy(keep, p->support, n * sizeof *keep);
                done = pass == 0;
            } else if (pass == 1 && !p->gave_up)
                cur[k] &= ~zero, all = false;
            if (pass == 0)
                break; /* one joint try */
        }
        if (done || p->gave_up)
            break;
    }
    p->gave_up = false;
    memcpy(p->support, keep, n * sizeof *keep);
    for (size_t k = 0; k < n; k++)
        root2[k] = cur[k] & (keep[k] ? keep[k] : cur[k]);
    mdae_free(keep);
    mdae_free(cur);
    mdae_free(try_);
    return all;
}

/* Is there an assignment below dom (propagated) with a at order bit b and
 * c not? (I8) */
static bool differ_at(imp *p, const unsigned *dom, size_t a, size_t c, int b, unsigned *work)
{
    memcpy(work, dom, p->nq * sizeof *work);
    work[a] = 1u << b;
    work[c] &= ~(1u << b);
    if (work[c] == 0)
        return false;
    return propagate(p, work) && !p->gave_up && search(p, work);
}

/* I8: the listed values x (quantity qx[u] of unknown u, or -1) of equal
 * order under every assignment below dom: each gets the others of its class
 * in its `equal` list (res->impulsive from `first` on). Only for possibly
 * impulsive values; skipped silently past the node budget. */
static int equalities(imp *p, const unsigned *dom, const int *qx, mc_result *res, size_t first)
{
    const mc_instant *in = p->in;
    unsigned *work = mdae_malloc((p->nq + 1) * sizeof *work);
    if (work == NULL)
        return MDAE_E_NOMEM;
    int rc = MDAE_OK;
    for (size_t x = first; x < res->n_impulsive && rc == MDAE_OK && !p->gave_up; x++)
        for (size_t y = first; y < res->n_impulsive && rc == MDAE_OK && !p->gave_up; y++) {
            const mc_impulse *a = &res->impulsive[x], *c = &res->impulsive[y];
            if (x == y || a->lo != c->lo || a->hi != c->hi)
                continue;
            int qa = -1, qc = -1;
            for (size_t u = 0; u < in->unknowns.n; u++) {
                const mc_item *it = &in->unknowns.items[u];
                if (it->index == a->var && it->shift == a->shift)
                    qa = qx[u];
                if (it->index == c->var && it->shift == c->shift)
                    qc = qx[u];
            }
            if (qa < 0 || qc < 0)
                continue;
            bool differ = false;
            for (int b = 0; b < N_VALS && !differ && !p->gave_up; b++)
                if (dom[qa] & (1u << b))
                    differ = differ_at(p, dom, (size_t)qa, (size_t)qc, b, work) ||
                             differ_at(p, dom, (size_t)qc, (size_t)qa, b, work);
            if (!differ && !p->gave_up) {
                size_t cap = res->impulsive[x].equal.n;
                rc = mc__list_push(&res->impulsive[x].equal, &cap, c->var, c->shift);
            }
        }
    if (p->gave_up) { /* past the budget: no equality is claimed */
        for (size_t x = first; x < res->n_impulsive; x++) {
            mdae_free(res->impulsive[x].equal.items);
            memset(&res->impulsive[x].equal, 0, sizeof res->impulsive[x].equal);
        }
        p->gave_up = false;
    }
    mdae_free(work);
    return rc;
}

static int note(mc_result *res, const char *fmt, unsigned r)
{
    mdae_range nowhere;
    memset(&nowhere, 0, sizeof nowhere);
    return mdae_diags_add(&res->diags, MDAE_SEV_NOTE, nowhere, fmt, r);
}

/* The instant's results from p->support: values, residuals, equalities,
 * restart relations. */
static int report(imp *p, const unsigned *dom, mc_result *res)
{
    const mc_instant *in = p->in;
    bool *impulsive = mdae_calloc(in->unknowns.n + 1, sizeof *impulsive);
    int *qx = mdae_malloc((in->unknowns.n + 1) * sizeof *qx);
    int rc = impulsive != NULL && qx != NULL ? MDAE_OK : MDAE_E_NOMEM;
    size_t first = res->n_impulsive;
    for (size_t u = 0; u < in->unknowns.n && rc == MDAE_OK; u++) {
        const mc_item *x = &in->unknowns.items[u];
        qx[u] = -1;
        for (size_t k = 0; k < p->nq && rc == MDAE_OK; k++)
            if (!p->q[k].residual && p->q[k].var == x->index && p->q[k].s == 0 &&
                p->q[k].l == x->shift && !p->q[k].known) {
                unsigned sup = p->support[k];
                /* possibly impulsive: some reading gives it an order > 0;
                 * such a value must not appear in a restart relation */
                impulsive[u] = (sup >> (bit_of(0) + 1)) != 0;
                qx[u] = (int)k;
                rc = push_value(res, &p->q[k], in->r, sup);
            }
    }
    for (size_t k = 0; k < p->nq && rc == MDAE_OK; k++)
        if (p->q[k].residual)
            rc = push_residual(res, &p->q[k], in->r, p->support[k]);
    if (rc == MDAE_OK)
        rc = equalities(p, dom, qx, res, first);
    if (rc == MDAE_OK)
        rc = resets(p, impulsive, res);
    mdae_free(impulsive);
    mdae_free(qx);
    return rc;
}

int mc__impulse(const mel_model *m, const bool *to, const int *d, const mc_instant *in,
                mc_result *res)
{
    mc_impulse_status st;
    bool forced;
    return mc__impulse_run(m, to, d, in, res, &st, &forced);
}

int mc__impulse_run(const mel_model *m, const bool *to, const int *d, const mc_instant *in,
                    mc_result *res, mc_impulse_status *status, bool *priors_forced)
{
    imp p;
    memset(&p, 0, sizeof p);
    p.m = m;
    p.to = to;
    p.d = d;
    p.in = in;
    int rc = build(&p);
    if (rc == MDAE_OK && !p.gave_up) {
        p.support = mdae_calloc(p.nq + 1, sizeof *p.support);
        p.queue = mdae_calloc(p.nc + 1, sizeof *p.queue);
        p.queued = mdae_calloc(p.nc + 1, sizeof *p.queued);
        rc = p.support && p.queue && p.queued ? index_constraints(&p) : MDAE_E_NOMEM;
    }
    bool none = false, approx = false, prior_failed = false;
    unsigned *root = NULL, *root2 = NULL;
    if (rc == MDAE_OK && !p.gave_up) {
        root = mdae_malloc((p.nq + 1) * sizeof *root);
        root2 = mdae_malloc((p.nq + 1) * sizeof *root2);
        if (root == NULL || root2 == NULL)
            rc = MDAE_E_NOMEM;
        for (size_t k = 0; rc == MDAE_OK && k < p.nq; k++)
            root[k] = p.q[k].dom;
    }
    if (rc == MDAE_OK && !p.gave_up) {
        none = !bounds(&p, root);
        if (!none && !p.gave_up)
            prior_failed = !generic_priors(&p, root, root2);
        else
            memcpy(root2, root, p.nq * sizeof *root2);
        if (p.gave_up && !none) { /* the propagation's bounds: sound, wider */
            approx = true;
            p.gave_up = false;
            for (size_t k = 0; k < p.nq; k++)
                p.support[k] = root2[k];
        }
    }
    *status = none ? MC_IMPULSES_NONE
              : p.gave_up ? MC_IMPULSES_TOO_LARGE
              : approx ? MC_IMPULSES_BOUNDS
                       : MC_IMPULSES_DONE;
    *priors_forced = prior_failed && !none && !p.gave_up;
    if (rc == MDAE_OK && (p.gave_up || none)) {
        rc = note(res, none ? "restart instant %u: impulse analysis found no assignment of "
                              "impulse orders satisfying the structural rules (the orders "
                              "are not reported)"
                            : "restart instant %u: impulse analysis not done: the restart "
                              "system is too large for it",
                  (unsigned)in->r);
    } else if (rc == MDAE_OK) {
        if (approx)
            rc = note(res, "restart instant %u: impulse orders are bounds by propagation "
                           "only (the exact search exceeded its budget): a value said "
                           "possibly impulsive may not be", (unsigned)in->r);
        if (rc == MDAE_OK && prior_failed)
            rc = note(res, "restart instant %u: finite states (Assumption 1 of RR-9459) "
                           "force some values of the old state, or residuals of erased "
                           "equations, to be infinitesimal (see the residuals)",
                  (unsigned)in->r);
        if (rc == MDAE_OK)
            rc = report(&p, root2, res);
    }
    mdae_free(root);
    mdae_free(root2);
    imp_close(&p);
    return rc;
}

/* ---- Standard meanings (S1-S3) -----------------------------------------
 * S1 A restart of K instants leaves the new mode at instant K: its states
 *    x, x', ..., x^(d-1) (d = d_x of the new mode) are then the Euler
 *    differences of x at absolute shifts K, K + 1, ...: the restart values
 *    x^(s)+. Values at absolute shifts below K (the old mode's, and those
 *    of the restart instants before K) are, for a finite state, infinitely
 *    close to the left limits x^(s)-: the substitutions of RR-9459 (18),
 *    (30), (34).
 * S2 Instant r determines, for a state x, the level L = r + l_max - K of
 *    its newest value x.^l_max (0 when lower): the Cup-and-Ball's positions
 *    at instant 0 (x.^2 is x+), its velocities at instant 1 (x'. =
 *    (x.^2 - x.)/dt is x'+), the clutch's speeds at its only instant. Each
 *    level s <= L of x reads, at relative shift l, as x^(s)- or x^(s)+ by
 *    the side of r + l against K: the paper's expansions (20) for the
 *    positions, (21) for the velocities (RR-9459 section 5.4 leaves this
 *    choice open; this is ours, and it gives the paper's).
 * S3 Only states (d_x >= 1, levels below d_x) have a standard meaning;
 *    algebraic values of the restart instants and impulsive values have
 *    none (RR-8933 Fig. 4: "their standardization is undefined").
 * S4 A change into a transient mode (issue 41 item 6): its E events are
 *    instants 0 .. E-1 (one instant each, mc_transient.c T6) and the
 *    instants after them restart the long mode after the cascade, whose
 *    offsets d are the ones read; K is still the number of instants. An
 *    event's when-body resets states by a finite amount (next(x) = 0) in
 *    one instant, so S1's "infinitely close to the left limit" holds only
 *    before the first event: a value at absolute shift a, 0 < a < K, is the
 *    value after event min(a, E), x<e> (MC_SIDE_EVENT), at the same
 *    standard time as x- and x+ (the cascade takes no standard time); the
 *    restart instants after the last event keep it (finite states, S1).
 *    An endless or rejected cascade has no restart values: not read. */

static int push_standard(mc_result *res, uint32_t r, uint32_t var, int shift, int level,
                         mc_side side, uint32_t event)
{
    size_t cap = res->n_standard;
    int rc = mc__grow((void **)&res->standard, &cap, res->n_standard + 1, sizeof *res->standard);
    if (rc < 0)
        return rc;
    mc_standard *e = &res->standard[res->n_standard++];
    e->r = r;
    e->var = var;
    e->shift = shift;
    e->level = level;
    e->side = side;
    e->event = event;
    return MDAE_OK;
}

/* S1, S4: the side of the value at absolute shift a of a restart of K
 * instants whose first E are events; *event for MC_SIDE_EVENT. */
static mc_side side_of(int a, uint32_t K, uint32_t E, uint32_t *event)
{
    *event = 0;
    if (a >= (int)K)
        return MC_SIDE_PLUS;
    if (a <= 0 || E == 0)
        return MC_SIDE_MINUS;
    *event = (uint32_t)a < E ? (uint32_t)a : E;
    return MC_SIDE_EVENT;
}

/* The shifts of var among l's items: *lo, *hi updated (untouched if none). */
static bool shifts_of(const mc_list *l, uint32_t var, int *lo, int *hi)
{
    bool any = false;
    for (size_t k = 0; k < l->n; k++)
        if (l->items[k].index == var) {
            int s = l->items[k].shift;
            *lo = any && *lo < s ? *lo : s;
            *hi = any && *hi > s ? *hi : s;
            any = true;
        }
    return any;
}

static int standard_instant(const mel_model *m, const int *d, const mc_instant *in, uint32_t K,
                            uint32_t E, mc_result *res)
{
    int rc = MDAE_OK;
    for (uint32_t x = 0; x < m->n_variables && rc == MDAE_OK; x++) {
        int lmin = 0, lmax = 0, klo = 0, khi = 0;
        if (d[x] < 1 || !shifts_of(&in->unknowns, x, &lmin, &lmax))
            continue;
        if (shifts_of(&in->known, x, &klo, &khi) && klo < lmin)
            lmin = klo;
        int L = (int)in->r + lmax - (int)K;
        L = L < 0 ? 0 : L > d[x] - 1 ? d[x] - 1 : L;
        for (int s = 0; s <= L && rc == MDAE_OK; s++)
            for (int l = lmin; l <= lmax - s && rc == MDAE_OK; l++) {
                uint32_t ev;
                mc_side side = side_of((int)in->r + l, K, E, &ev);
                rc = push_standard(res, in->r, x, l, s, side, ev);
            }
    }
    return rc;
}

int mc__standard(const mel_model *m, const int *d, mc_result *res)
{
    if (res->status != MC_RESET || d == NULL)
        return MDAE_OK;
    const mc_transient *t = res->transient;
    if (t != NULL && (t->endless || t->too_long || t->n_events > res->n_instants))
        return MDAE_OK; /* S4 */
    uint32_t E = t != NULL ? t->n_events : 0;
    int rc = MDAE_OK;
    for (uint32_t r = 0; r < res->n_instants && rc == MDAE_OK; r++)
        rc = standard_instant(m, d, &res->instants[r], res->n_instants, E, res);
    return rc;
}
