/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/rimis_peval.c -- conditions as BDDs and back, and the partial
 * evaluation pi_q of RR-9459 section 4.6.2 (engine/rimis_int.h says what
 * each function promises; the notes' section 3.3 gives pi_q):
 *
 *   pi_q(if p then a else b) = pi_{q&p}(a)   if q & !p is empty,
 *                              pi_{q&!p}(b)  if q & p is empty,
 *                              if r then pi_{q&p}(a) else pi_{q&!p}(b)
 *                                 with q & p => r => p | !q;
 *   pi_q(op(e1, ...)) = op(pi_q(e1), ...).
 *
 * "Empty" is read within the care set (the valid nonsingular modes), and
 * so is the interval r is chosen in: r is the shorter of p as written and
 * an irredundant cover (sa__isop) of [q & p & care, p | !q | !care]
 * projected on p's own mode variables (so that r names no mode variable
 * p does not: free(pi_q(e)) within free(e)); an invariant thus decides or
 * shortens a condition (the Water Tank's `not (bh and bl)`: under bl,
 * `if bh then a else b` is b). Both keep rimis_int.h's promise: the same
 * value in every mode of q & care.
 *
 * pre(), last() and next() are left as they are: they read the value at
 * another instant, in a mode q does not describe.
 *
 * Trees may be DAGs (differentiated equations share nodes): each (node, q)
 * pair is evaluated once (a memo), so the walk is linear in the DAG times
 * the number of distinct q. The result is rebuilt only where something
 * changed, then folded once (fx_fold_keep: every unknown read stays), so
 * an unchanged e is returned as is.
 *
 * BDD discipline (engine/sa_int.h): every BDD kept across a BuDDy call is
 * in a slot of c; the slots and temporaries of a call are released before
 * it returns (its result BDD, if any, in a slot of the caller's). Failures
 * of BuDDy or memory longjmp through sa__fail; out of memory in the pool
 * is sticky there (the result NULL).
 */
#include <assert.h>
#include <string.h>

#include "rimis_int.h"

/* ---- Conditions as BDDs ----------------------------------------------------- */

/* e's set of modes into *out (a slot): true, or false when e is not
 * decided (out then untouched). */
static bool cond_rec(sa_ctx *c, const sa_result *r, const fx_node *e, BDD *out)
{
    switch ((fx_op)e->op) {
    case FX_BOOL:
        sa__put(out, e->num != 0 ? bddtrue : bddfalse);
        return true;
    case FX_MODE:
        if (e->index >= r->n_modes)
            return false;
        sa__put(out, bdd_ithvar(r->mode_var[e->index]));
        return true;
    case FX_NOT:
        if (e->n != 1 || !cond_rec(c, r, e->kids[0], out))
            return false;
        sa__put(out, bdd_not(*out));
        return true;
    case FX_AND:
    case FX_OR:
    case FX_EQ:
    case FX_NE: {
        if (e->n < 2 || ((e->op == FX_EQ || e->op == FX_NE) && e->n != 2))
            return false;
        size_t mark = sa__mark(c);
        BDD *kid = sa__slots(c, 2);
        bool ok = cond_rec(c, r, e->kids[0], &kid[0]);
        int op = e->op == FX_AND  ? bddop_and
                 : e->op == FX_OR ? bddop_or
                 : e->op == FX_EQ ? bddop_biimp
                                  : bddop_xor;
        for (uint32_t k = 1; ok && k < e->n; k++) {
            ok = cond_rec(c, r, e->kids[k], &kid[1]);
            if (ok)
                sa__put(&kid[0], bdd_apply(kid[0], kid[1], op));
        }
        if (ok)
            sa__put(out, kid[0]);
        sa__release(c, mark);
        return ok;
    }
    default:
        return false;
    }
}

BDD rimis__cond_bdd(sa_ctx *c, const sa_result *r, const fx_node *e, bool *decided)
{
    assert(c != NULL && r != NULL && e != NULL && decided != NULL);
    BDD *res = sa__slots(c, 1);
    *decided = cond_rec(c, r, e, res);
    if (!*decided)
        sa__put(res, bddfalse);
    return *res;
}

/* ---- BDDs as conditions ------------------------------------------------------ */

typedef struct cover_acc {
    const sa_result *r;
    fx_pool *p;
    const fx_node **cubes; /* sa__alloc'd, grown by doubling */
    size_t n, cap, limit;
    bool soft; /* past limit: over, instead of failing */
    bool over;
} cover_acc;

/* The cube's literals as a conjunction, in mode order; true if none. */
static const fx_node *cube_fx(sa_ctx *c, const cover_acc *a, const sa__lit *lits,
                              size_t n_lits)
{
    static const mdae_range nowhere;
    if (n_lits == 0)
        return fx_bool(a->p, true, nowhere);
    const fx_node **t = sa__alloc_raw(c, n_lits * sizeof *t);
    for (size_t i = 0; i < n_lits; i++) {
        const fx_node *v = fx_mode(a->p, lits[i].mode, nowhere);
        t[i] = lits[i].value ? v : fx_un(a->p, FX_NOT, v, nowhere);
    }
    return n_lits == 1 ? t[0] : fx_make(a->p, FX_AND, t, (uint32_t)n_lits, nowhere);
}

/* An sa__cube_fn: append the cube as an expression. */
static void cover_emit(sa_ctx *c, void *arg, const sa__lit *lits, size_t n_lits)
{
    cover_acc *a = arg;
    if (a->n == a->limit) {
        if (!a->soft)
            sa__fail(c, MDAE_E_LIMIT);
        a->over = true;
        return;
    }
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 8;
        const fx_node **t = sa__alloc_raw(c, cap * sizeof *t);
        if (a->n)
            memcpy(t, a->cubes, a->n * sizeof *t);
        a->cubes = t;
        a->cap = cap;
    }
    a->cubes[a->n++] = cube_fx(c, a, lits, n_lits);
}

/* rimis__cond_fx with a limit on the cubes: past it, MDAE_E_LIMIT
 * (soft false) or NULL (soft true: the caller has something shorter). */
static const fx_node *cover_fx(sa_ctx *c, const sa_result *r, fx_pool *p, BDD lo, BDD hi,
                               size_t limit, bool soft)
{
    static const mdae_range nowhere;
    assert(c != NULL && r != NULL && p != NULL);
    size_t mark = sa__mark(c);
    sa__amark amark = sa__alloc_mark(c);
    assert(bdd_imp(lo, hi) == bddtrue);
    if (limit > UINT32_MAX)
        limit = UINT32_MAX;
    cover_acc a = {r, p, NULL, 0, 0, limit, soft, false};
    BDD *cover = sa__slots(c, 1);
    sa__isop(c, r, lo, hi, cover_emit, &a, cover);
    const fx_node *res;
    if (a.over)
        res = NULL;
    else if (a.n == 0)
        res = fx_bool(p, false, nowhere);
    else if (a.n == 1)
        res = a.cubes[0];
    else
        res = fx_make(p, FX_OR, a.cubes, (uint32_t)a.n, nowhere); /* NULL if a cube is */
    sa__alloc_release(c, amark);
    sa__release(c, mark);
    return res;
}

const fx_node *rimis__cond_fx(sa_ctx *c, const sa_result *r, fx_pool *p, BDD lo, BDD hi)
{
    return cover_fx(c, r, p, lo, hi, c->max_cubes ? c->max_cubes : SA_MAX_CUBES, false);
}

/* ---- Partial evaluation -------------------------------------------------------- */

typedef struct pe_entry {
    const fx_node *e; /* NULL: empty */
    BDD q;
    const fx_node *val;
} pe_entry;

typedef struct pe {
    sa_ctx *c;
    const sa_result *r;
    fx_pool *p;
    BDD care;
    pe_entry *memo; /* sa__alloc'd; cap a power of two */
    size_t cap, n;
} pe;

static size_t pe_slot(const pe *w, const fx_node *e, BDD q)
{
    uint64_t h = ((uint64_t)(uintptr_t)e ^ (uint64_t)(unsigned)q * 0xC2B2AE3D27D4EB4Full) *
                 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 20) & (w->cap - 1);
    while (w->memo[i].e != NULL && (w->memo[i].e != e || w->memo[i].q != q))
        i = (i + 1) & (w->cap - 1);
    return i;
}

static void pe_put(pe *w, const fx_node *e, BDD q, const fx_node *val)
{
    if (2 * (w->n + 1) > w->cap) {
        pe_entry *old = w->memo;
        size_t old_cap = w->cap;
        w->cap = old_cap ? 2 * old_cap : 64;
        w->memo = sa__alloc(w->c, w->cap * sizeof *w->memo);
        w->n = 0;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].e != NULL) {
                w->memo[pe_slot(w, old[i].e, old[i].q)] = old[i];
                w->n++;
            }
    }
    pe_entry *x = &w->memo[pe_slot(w, e, q)];
    if (x->e == NULL) {
        *x = (pe_entry){e, q, val};
        w->n++;
    }
}

static const fx_node *pe_rec(pe *w, const fx_node *e, BDD q);

/* e with kids t (rebuilt only if one of them changed). */
static const fx_node *pe_rebuild(pe *w, const fx_node *e, const fx_node *const *t)
{
    bool changed = false;
    for (uint32_t k = 0; k < e->n; k++) {
        if (t[k] == NULL)
            return NULL;
        changed = changed || t[k] != e->kids[k];
    }
    if (!changed)
        return e;
    switch ((fx_op)e->op) {
    case FX_CALL: return fx_call(w->p, (fx_fn)e->fn, e->name, t, e->n, e->where);
    case FX_OPAQUE: return fx_opaque(w->p, e->name, t, e->n, e->where);
    default: return fx_make(w->p, (fx_op)e->op, t, e->n, e->where);
    }
}

/* Every kid of e under q. */
static const fx_node *pe_kids(pe *w, const fx_node *e, BDD q)
{
    const fx_node **t = sa__alloc_raw(w->c, e->n * sizeof *t);
    for (uint32_t k = 0; k < e->n; k++)
        t[k] = pe_rec(w, e->kids[k], q);
    return pe_rebuild(w, e, t);
}

static void modes_of(const fx_node *e, bool *in)
{
    if (e->op == FX_MODE)
        in[e->index] = true;
    for (uint32_t k = 0; k < e->n; k++)
        modes_of(e->kids[k], in);
}

/* The cube of the mode variables a (decided) condition does not name, in
 * a slot. */
static BDD other_modes(pe *w, const fx_node *cond)
{
    const sa_result *r = w->r;
    bool *in = sa__alloc(w->c, r->n_modes + 1);
    modes_of(cond, in);
    int *vars = sa__alloc_raw(w->c, (r->n_modes + 1) * sizeof *vars);
    size_t n = 0;
    for (uint32_t k = 0; k < r->n_modes; k++)
        if (!in[k])
            vars[n++] = r->mode_var[k];
    return sa__cube(w->c, vars, n);
}

/* An if-expression whose condition is decided: cond its set of modes. */
static const fx_node *pe_if(pe *w, const fx_node *e, BDD q, BDD cond)
{
    sa_ctx *c = w->c;
    BDD qc = sa__tmp(c, bdd_and(q, w->care));
    BDD q_then = sa__tmp(c, bdd_and(q, cond));
    BDD q_else = sa__tmp(c, bdd_apply(q, cond, bddop_diff));
    if (sa__tmp(c, bdd_apply(qc, cond, bddop_diff)) == bddfalse)
        return pe_rec(w, e->kids[1], q_then);
    if (sa__tmp(c, bdd_and(qc, cond)) == bddfalse)
        return pe_rec(w, e->kids[2], q_else);
    /* The interval [q & cond & care, cond | !(q & care)], projected on
     * the condition's own mode variables (lo's existential, hi's
     * universal projection: cond is still in it), so that the cover names
     * no mode variable e does not. */
    BDD others = other_modes(w, e->kids[0]);
    BDD lo = sa__tmp(c, bdd_exist(sa__tmp(c, bdd_and(q_then, w->care)), others));
    BDD hi = sa__tmp(c, bdd_forall(sa__tmp(c, bdd_or(cond, bdd_not(qc))), others));
    const fx_node *t[3];
    /* A cover of more cubes than the condition has nodes is not shorter,
     * nor one past the context's limit: not made (the written condition
     * stays), so that a large one does not fail the whole build. */
    size_t written = fx_size(e->kids[0]);
    size_t most = c->max_cubes && c->max_cubes < written ? c->max_cubes : written;
    t[0] = cover_fx(c, w->r, w->p, lo, hi, most, true);
    if (t[0] == NULL || fx_size(t[0]) >= written)
        t[0] = e->kids[0];
    t[1] = pe_rec(w, e->kids[1], q_then);
    t[2] = pe_rec(w, e->kids[2], q_else);
    return pe_rebuild(w, e, t);
}

static const fx_node *pe_rec(pe *w, const fx_node *e, BDD q)
{
    if (e == NULL || e->n == 0)
        return e;
    /* Another instant's value: q says nothing of its mode. */
    if (e->op == FX_PRE || e->op == FX_LAST || e->op == FX_NEXT)
        return e;
    size_t h = pe_slot(w, e, q);
    if (w->memo[h].e != NULL)
        return w->memo[h].val;
    const fx_node *res;
    if (e->op == FX_IF && e->n == 3) {
        bool decided;
        BDD cond = rimis__cond_bdd(w->c, w->r, e->kids[0], &decided);
        res = decided ? pe_if(w, e, q, cond) : pe_kids(w, e, q);
    } else {
        res = pe_kids(w, e, q);
    }
    if (res != NULL)
        pe_put(w, e, q, res);
    return res;
}

const fx_node *rimis__peval(sa_ctx *c, const sa_result *r, fx_pool *p, const fx_node *e, BDD q,
                            BDD care)
{
    assert(c != NULL && r != NULL && p != NULL);
    if (e == NULL || fx_pool_failed(p))
        return NULL;
    size_t mark = sa__mark(c);
    sa__amark amark = sa__alloc_mark(c);
    pe w = {c, r, p, care, NULL, 0, 0};
    w.cap = 64;
    w.memo = sa__alloc(c, w.cap * sizeof *w.memo);
    /* The q of every memo entry stays in a slot until the end (a node
     * freed by a collection could come back as another function). */
    const fx_node *res = pe_rec(&w, e, sa__tmp(c, q));
    sa__alloc_release(c, amark);
    sa__release(c, mark);
    if (res != NULL && res != e)
        res = fx_fold_keep(p, res);
    return fx_pool_failed(p) ? NULL : res;
}
