/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/fx_diff.c -- folding and differentiation of expressions
 * (engine/fx.h: fx_fold, fx_dt, fx_partial, fx_residual).
 *
 * Folding is done by "smart constructors" (s_add, s_mul, ...): each builds
 * one node from kids that are already folded and simplifies only at that
 * node, so that a folded tree is rebuilt bottom-up and a derivative, built
 * from folded pieces with the same constructors, comes out folded. The
 * shapes they produce (a folded tree):
 *  - sums and products flat (no FX_ADD kid of an FX_ADD, no FX_MUL kid of
 *    an FX_MUL; a - (b + c) is a - b - c), their numbers combined into
 *    one: a product's first factor, a sum's last term (a negative one as
 *    FX_NEG of its absolute value, so that `x - 1` stays ADD(x, NEG(1)));
 *    0 terms and 1 factors dropped; like terms merged (x*y + 2*y*x is
 *    3*x*y, in sums of at most MERGE_MAX terms);
 *  - a product's, a quotient's signs pulled out: -(a*b), -(a/b); --e is e;
 *  - e^1 = e, e^0 = 1, 1^e = 1; numbers of arithmetic, relations and known
 *    functions computed when the result is finite (1/0 stays 1/0);
 *  - relations of constants, !, and, or of constants folded; if with a
 *    constant condition is its branch, if with fx_equal branches is the
 *    branch (compared up to SAME_BUDGET nodes), if c then -a else -b is
 *    -(if c then a else b);
 *  - der(x) of an unknown is x's next order, der of a constant 0.
 * These keep the value wherever the input is defined, with two accepted
 * conventions for structural work: 0 * e, 0 / e and e - e fold to 0 even
 * where e is infinite or NaN (IEEE would give NaN), and numbers are
 * combined in the order the terms come (rounding may differ in the last
 * bits).
 Keeping reads (fx_fold_keep, fx_dt_keep; a flag of the pool for the
 * call's duration, see fx_int.h): 0 * e, 0 / e, e - e (like terms whose
 * coefficients cancel), e ^ 0 and 1 ^ e stay as written (e - e as 0 * e)
 * when e reads an unknown, and the derivative of sign/floor/ceil/integer/
 * div of e is 0 * e' there, so that the result reads every unknown the
 * input reads (at its highest order, raised by the order of derivation).
 *
 * Derivatives: d() differentiates a folded tree, with respect to time or
 * to one unknown's derivative (fx_partial). Rules beyond the textbook ones
 * (chain, product, quotient, power with constant and non-constant
 * exponent), chosen here and documented in docs/differentiation.md:
 *  - abs(u)' = if u >= 0 then u' else -u'; min(a, b)' = if a <= b then a'
 *    else b'; max(a, b)' = if a >= b then a' else b' (piecewise, the
 *    branch at the kink is the one of the >= / <= side);
 *  - sign, floor, ceil, integer, div: 0 (piecewise constant);
 *    mod(x, y)' = x' - floor(x/y)*y'; rem(x, y)' = x' - div(x, y)*y';
 *  - noEvent(u)' = noEvent(u'); smooth(k, u)' = smooth(k - 1, u') (k a
 *    number >= 1; else u'); homotopy(a, s)' = homotopy(a', s');
 *  - an unknown function f(a1..an)' = sum f.d<i>(a1..an) * ai';
 *  - fx_dt expands every FX_DER first (also when k = 0, and inside the
 *    factors the product rule leaves underived);
 *  - pre(e), relations and Boolean operators: 0; if c then a else b:
 *    if c then a' else b' (conditions held fixed); FX_LAST, FX_NEXT:
 *    MDAE_E_NOTIMPL;
 *  - FX_OPAQUE(text, refs)' = FX_OPAQUE("der(text)", refs and their next
 *    orders); its partial with respect to an unknown it does not read is 0,
 *    else FX_OPAQUE("partial(text, #var, order)", refs).
 * Products of more than PRODUCT_SPLIT factors are differentiated by halves
 * (a*b)' = a'*b + a*b', so the result is O(n log n), not O(n^2).
 *
 * Memory: results and scratch arrays live in the caller's pool; the memo
 * (below) is malloc'd and freed within the call. Recursion follows the
 * tree's depth (engine/fx.h, Depth).
 */
#include "fx.h"
#include "fx_int.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define PRODUCT_SPLIT 8

static const mdae_range nowhere;

/* ---- Leaves and tests -------------------------------------------------------- */
static bool integral(double v)
{
    return isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0;
}

static const fx_node *num(fx_pool *p, double v, bool is_int)
{
    if (v == 0)
        v = 0; /* no -0 */
    return fx_num(p, v, is_int && integral(v), nowhere);
}

static const fx_node *zero(fx_pool *p) { return num(p, 0, true); }
static const fx_node *one(fx_pool *p) { return num(p, 1, true); }
static bool is_num(const fx_node *e) { return e != NULL && e->op == FX_NUM; }
static bool is_const(const fx_node *e)
{
    return e != NULL && (e->op == FX_NUM || e->op == FX_BOOL);
}
static bool is_val(const fx_node *e, double v) { return is_num(e) && e->num == v; }
static bool is_zero(const fx_node *e) { return is_val(e, 0); }

/* A sum's constant term: a number, or the negation of one. */
static bool term_const(const fx_node *t, double *v, bool *is_int)
{
    if (t->op == FX_NUM) {
        *v = t->num;
        *is_int = t->is_int;
        return true;
    }
    if (t->op == FX_NEG && t->kids[0]->op == FX_NUM) {
        *v = -t->kids[0]->num;
        *is_int = t->kids[0]->is_int;
        return true;
    }
    return false;
}

/* Scratch room for n kids (n >= 1) in the pool. */
static const fx_node **kids_new(fx_pool *p, size_t n)
{
    if (n > UINT32_MAX)
        return NULL;
    return fx__pool_alloc(p, n * sizeof(const fx_node *));
}

static bool any_null(const fx_node *const *kids, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (kids[k] == NULL)
            return true;
    return false;
}

/* fx_equal, giving up (false) after *budget nodes: two DAGs that are equal
 * but not shared may have exponentially many paths. */
static bool same(const fx_node *a, const fx_node *b, size_t *budget)
{
    if (a == b)
        return true;
    if (*budget == 0)
        return false;
    --*budget;
    if (!fx__same_head(a, b))
        return false;
    for (uint32_t k = 0; k < a->n; k++)
        if (!same(a->kids[k], b->kids[k], budget))
            return false;
    return true;
}

#define SAME_BUDGET 4096

/* ---- Keeping what a tree reads (fx_fold_keep, fx_dt_keep) ------------------------
 * In that mode a simplification that would drop a subtree reading an
 * unknown (0 * e, 0 / e, e - e, e ^ 0, 1 ^ e, the derivative 0 of a
 * piecewise-constant function of e) keeps it, multiplied by 0 where its
 * value goes: the structure (which unknowns at which order an equation
 * reads) stays the one of the input, differentiated. */
#define READS_BUDGET 4096

/* Whether e may read an unknown (outside pre() and last(), which read
 * another instant); true too when the walk gives up after *budget nodes. */
static bool reads_rec(const fx_node *e, size_t *budget)
{
    if (*budget == 0)
        return true;
    --*budget;
    if (e->op == FX_VAR)
        return true;
    if (e->op == FX_PRE || e->op == FX_LAST)
        return false;
    for (uint32_t k = 0; k < e->n; k++)
        if (reads_rec(e->kids[k], budget))
            return true;
    return false;
}

/* Whether p keeps reads and e reads an unknown: e must not be dropped. */
static bool kept(const fx_pool *p, const fx_node *e)
{
    size_t budget = READS_BUDGET;
    return fx__pool_keeps_reads(p) && reads_rec(e, &budget);
}

/* ---- Like terms: c1*f + c2*f is (c1 + c2)*f ---------------------------------------
 * Only in sums of at most MERGE_MAX terms (the comparison is quadratic);
 * terms compare with same(). A coefficient that becomes 0 drops the term:
 * x - x is 0, the convention of 0 * e. */
#define MERGE_MAX 64

/* A term of a sum seen as coef * f[0] * ... * f[n-1]. */
typedef struct termv {
    double c;
    bool c_int;
    const fx_node *const *f;
    uint32_t n;
    const fx_node *one; /* f's storage for a term that is not a product */
} termv;

static void term_view(const fx_node *t, termv *v)
{
    v->c = 1;
    v->c_int = true;
    if (t->op == FX_NEG) {
        v->c = -1;
        t = t->kids[0];
    }
    if (t->op != FX_MUL) {
        v->one = t;
        v->f = &v->one;
        v->n = 1;
        return;
    }
    uint32_t first = t->kids[0]->op == FX_NUM ? 1 : 0;
    if (first) {
        v->c *= t->kids[0]->num;
        v->c_int = t->kids[0]->is_int;
    }
    v->f = t->kids + first;
    v->n = t->n - first;
}

/* The same factors, in any order (x'*x is like x*x'): a match for each of
 * a's factors among b's unused ones. */
static bool like(const termv *a, const termv *b)
{
    if (a->n != b->n || a->n > MERGE_MAX)
        return false;
    size_t budget = SAME_BUDGET;
    bool used[MERGE_MAX] = {false};
    for (uint32_t k = 0; k < a->n; k++) {
        uint32_t j = 0;
        while (j < b->n && (used[j] || !same(a->f[k], b->f[j], &budget)))
            j++;
        if (j == b->n)
            return false;
        used[j] = true;
    }
    return true;
}

static const fx_node *s_mul(fx_pool *p, const fx_node *const *kids, uint32_t n, mdae_range where);

/* coef * v's factors. */
static const fx_node *term_of(fx_pool *p, double c, bool c_int, const termv *v)
{
    const fx_node **f = kids_new(p, (size_t)v->n + 1);
    if (f == NULL)
        return NULL;
    f[0] = num(p, c, c_int);
    memcpy(f + 1, v->f, v->n * sizeof *f);
    return s_mul(p, f, v->n + 1, nowhere);
}

/* Merge the like terms of t[0 .. *out) in place; false on OOM. */
static bool merge_like_terms(fx_pool *p, const fx_node **t, uint32_t *out)
{
    uint32_t n = *out;
    if (n < 2 || n > MERGE_MAX)
        return true;
    termv v[MERGE_MAX];
    bool alive[MERGE_MAX], merged[MERGE_MAX];
    for (uint32_t i = 0; i < n; i++) {
        term_view(t[i], &v[i]);
        alive[i] = true;
        merged[i] = false;
    }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; alive[i] && j < n; j++)
            if (alive[j] && like(&v[i], &v[j])) {
                v[i].c += v[j].c;
                v[i].c_int = v[i].c_int && v[j].c_int;
                alive[j] = false;
                merged[i] = true;
            }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!alive[i] || (merged[i] && v[i].c == 0 && !kept(p, t[i])))
            continue;
        t[k] = merged[i] ? term_of(p, v[i].c, v[i].c_int, &v[i]) : t[i];
        if (t[k++] == NULL)
            return false;
    }
    *out = k;
    return true;
}

/* ---- Smart constructors: one node from folded kids, folded ------------------ */
static const fx_node *s_neg(fx_pool *p, const fx_node *a, mdae_range where)
{
    if (a == NULL)
        return NULL;
    if (a->op == FX_NUM)
        return num(p, -a->num, a->is_int);
    if (a->op == FX_NEG)
        return a->kids[0];
    return fx_un(p, FX_NEG, a, where);
}

/* An array (in p) with room for kids flattened into one node of op
 * (FX_ADD or FX_MUL): one per kid, a kid of that op under at most one
 * negation counting its own kids, plus one for a constant. NULL when a kid
 * is NULL (an earlier failure) or on OOM. */
static const fx_node **flat_kids(fx_pool *p, const fx_node *const *kids, uint32_t n, fx_op op)
{
    if (any_null(kids, n))
        return NULL;
    size_t m = 1;
    for (uint32_t k = 0; k < n; k++) {
        const fx_node *a = kids[k]->op == FX_NEG ? kids[k]->kids[0] : kids[k];
        m += a->op == op ? a->n : 1;
    }
    return kids_new(p, m);
}

static const fx_node *s_add(fx_pool *p, const fx_node *const *kids, uint32_t n, mdae_range where)
{
    const fx_node **t = flat_kids(p, kids, n, FX_ADD);
    if (t == NULL)
        return NULL;
    double c = 0;
    bool c_int = true, has_c = false;
    uint32_t out = 0;
    for (uint32_t k = 0; k < n; k++) {
        /* a - (b + c) is a + -b + -c */
        bool neg = kids[k]->op == FX_NEG && kids[k]->kids[0]->op == FX_ADD;
        const fx_node *a = neg ? kids[k]->kids[0] : kids[k];
        bool flat = a->op == FX_ADD;
        uint32_t nt = flat ? a->n : 1;
        for (uint32_t j = 0; j < nt; j++) {
            const fx_node *term = flat ? a->kids[j] : a;
            if (neg && (term = s_neg(p, term, nowhere)) == NULL)
                return NULL;
            double v;
            bool vi;
            if (term_const(term, &v, &vi)) {
                c += v;
                c_int = c_int && vi;
                has_c = true;
            } else {
                t[out++] = term;
            }
        }
    }
    if (!merge_like_terms(p, t, &out))
        return NULL;
    if (out == 0)
        return num(p, c, c_int);
    if (has_c && c != 0)
        t[out++] = c < 0 ? fx_un(p, FX_NEG, num(p, -c, c_int), nowhere) : num(p, c, c_int);
    if (out == 1)
        return t[0];
    return fx_make(p, FX_ADD, t, out, where);
}

static const fx_node *s_mul(fx_pool *p, const fx_node *const *kids, uint32_t n, mdae_range where)
{
    const fx_node **t = flat_kids(p, kids, n, FX_MUL);
    if (t == NULL)
        return NULL;
    double c = 1;
    bool c_int = true, neg = false;
    uint32_t out = 1; /* t[0]: room for the constant */
    for (uint32_t k = 0; k < n; k++) {
        const fx_node *a = kids[k];
        if (a->op == FX_NEG) {
            neg = !neg;
            a = a->kids[0];
        }
        bool flat = a->op == FX_MUL;
        uint32_t nf = flat ? a->n : 1;
        for (uint32_t j = 0; j < nf; j++) {
            const fx_node *f = flat ? a->kids[j] : a;
            if (f->op == FX_NEG) {
                neg = !neg;
                f = f->kids[0];
            }
            if (f->op == FX_NUM) {
                c *= f->num;
                c_int = c_int && f->is_int;
            } else {
                t[out++] = f;
            }
        }
    }
    if (c == 0) {
        bool keep = false;
        for (uint32_t k = 1; k < out && !keep; k++)
            keep = kept(p, t[k]);
        if (!keep)
            return zero(p); /* 0 * e = 0: the convention of the header */
        t[0] = zero(p);
        return fx_make(p, FX_MUL, t, out, where);
    }
    if (c < 0) {
        neg = !neg;
        c = -c;
    }
    const fx_node *r;
    if (out == 1) {
        r = num(p, c, c_int);
    } else {
        uint32_t first = 1;
        if (c != 1) {
            t[0] = num(p, c, c_int);
            first = 0;
        }
        r = out - first == 1 ? t[first] : fx_make(p, FX_MUL, t + first, out - first, where);
    }
    return neg ? s_neg(p, r, nowhere) : r;
}

static const fx_node *s_add2(fx_pool *p, const fx_node *a, const fx_node *b)
{
    const fx_node *k[2] = {a, b};
    return s_add(p, k, 2, nowhere);
}

static const fx_node *s_mul2(fx_pool *p, const fx_node *a, const fx_node *b)
{
    const fx_node *k[2] = {a, b};
    return s_mul(p, k, 2, nowhere);
}

static const fx_node *s_div(fx_pool *p, const fx_node *a, const fx_node *b, mdae_range where)
{
    if (a == NULL || b == NULL)
        return NULL;
    if (is_val(b, 1))
        return a;
    if (is_zero(a) && !kept(p, b))
        return zero(p); /* 0 / e = 0: the convention of the header */
    if (is_num(a) && is_num(b)) {
        double v = a->num / b->num;
        if (isfinite(v))
            return num(p, v, a->is_int && b->is_int);
    }
    bool neg = false;
    if (a->op == FX_NEG) {
        a = a->kids[0];
        neg = !neg;
    }
    if (b->op == FX_NEG) {
        b = b->kids[0];
        neg = !neg;
    }
    if (is_num(b) && b->num < 0) {
        b = num(p, -b->num, b->is_int);
        neg = !neg;
    }
    if (is_num(a) && a->num < 0) {
        a = num(p, -a->num, a->is_int);
        neg = !neg;
    }
    const fx_node *r = is_val(b, 1) ? a : fx_bin(p, FX_DIV, a, b, where);
    return neg ? s_neg(p, r, nowhere) : r;
}

static const fx_node *s_pow(fx_pool *p, const fx_node *a, const fx_node *b, mdae_range where)
{
    if (a == NULL || b == NULL)
        return NULL;
    if (is_val(b, 1))
        return a;
    if ((is_zero(b) && !kept(p, a)) || (is_val(a, 1) && !kept(p, b)))
        return one(p); /* C's pow: x^0 = 1 and 1^y = 1 for every x, y */
    if (is_num(a) && is_num(b)) {
        double v = pow(a->num, b->num);
        if (isfinite(v))
            return num(p, v, a->is_int && b->is_int && b->num >= 0);
    }
    return fx_bin(p, FX_POW, a, b, where);
}

static const fx_node *s_rel(fx_pool *p, fx_op op, const fx_node *a, const fx_node *b,
                            mdae_range where)
{
    if (a == NULL || b == NULL)
        return NULL;
    if (is_const(a) && is_const(b)) {
        double x = a->num, y = b->num;
        bool v = op == FX_LT ? x < y : op == FX_LE ? x <= y : op == FX_GT ? x > y
               : op == FX_GE ? x >= y : op == FX_EQ ? x == y : x != y;
        return fx_bool(p, v, nowhere);
    }
    return fx_bin(p, op, a, b, where);
}

static const fx_node *s_not(fx_pool *p, const fx_node *a, mdae_range where)
{
    if (a == NULL)
        return NULL;
    if (is_const(a))
        return fx_bool(p, a->num == 0, nowhere);
    if (a->op == FX_NOT)
        return a->kids[0];
    return fx_un(p, FX_NOT, a, where);
}

/* and / or: flattened; constants dropped (neutral) or absorbing. */
static const fx_node *s_logic(fx_pool *p, fx_op op, const fx_node *const *kids, uint32_t n,
                              mdae_range where)
{
    if (any_null(kids, n))
        return NULL;
    bool absorbing = op == FX_OR; /* the value that decides */
    size_t m = 1;
    for (uint32_t k = 0; k < n; k++)
        m += kids[k]->op == op ? kids[k]->n : 1;
    const fx_node **t = kids_new(p, m);
    if (t == NULL)
        return NULL;
    uint32_t out = 0;
    for (uint32_t k = 0; k < n; k++) {
        bool flat = kids[k]->op == op;
        uint32_t nk = flat ? kids[k]->n : 1;
        for (uint32_t j = 0; j < nk; j++) {
            const fx_node *a = flat ? kids[k]->kids[j] : kids[k];
            if (!is_const(a))
                t[out++] = a;
            else if ((a->num != 0) == absorbing)
                return fx_bool(p, absorbing, nowhere);
        }
    }
    if (out == 0)
        return fx_bool(p, !absorbing, nowhere);
    return out == 1 ? t[0] : fx_make(p, op, t, out, where);
}

static const fx_node *s_if(fx_pool *p, const fx_node *c, const fx_node *a, const fx_node *b,
                           mdae_range where)
{
    if (c == NULL || a == NULL || b == NULL)
        return NULL;
    if (is_const(c))
        return c->num != 0 ? a : b;
    size_t budget = SAME_BUDGET;
    if (same(a, b, &budget))
        return a;
    if (a->op == FX_NEG && b->op == FX_NEG)
        return s_neg(p, fx_if(p, c, a->kids[0], b->kids[0], where), nowhere);
    return fx_if(p, c, a, b, where);
}

static bool int_valued(fx_fn fn)
{
    return fn == FX_FN_SIGN || fn == FX_FN_FLOOR || fn == FX_FN_CEIL || fn == FX_FN_INTEGER ||
           fn == FX_FN_DIV;
}

static const fx_node *s_call(fx_pool *p, fx_fn fn, const char *name, const fx_node *const *args,
                             uint32_t n, mdae_range where)
{
    if (any_null(args, n))
        return NULL;
    if (fn != FX_FN_UNKNOWN && n == fx_fn_arity(fn) && n <= 2) {
        double a[2] = {0, 0};
        bool all = true, ints = true;
        for (uint32_t k = 0; k < n; k++) {
            all = all && is_const(args[k]);
            ints = ints && is_num(args[k]) && args[k]->is_int;
            a[k] = args[k]->num;
        }
        if (all) {
            double v = fx__fn_apply(fn, a);
            bool same = fn == FX_FN_ABS || fn == FX_FN_MIN || fn == FX_FN_MAX ||
                        fn == FX_FN_MOD || fn == FX_FN_REM || fn == FX_FN_NOEVENT ||
                        fn == FX_FN_HOMOTOPY;
            if (isfinite(v))
                return num(p, v, int_valued(fn) || (same && ints));
        }
        if (fn == FX_FN_NOEVENT && args[0]->op == FX_CALL && args[0]->fn == FX_FN_NOEVENT)
            return args[0];
    }
    return fx_call(p, fn, name, args, n, where);
}

static const fx_node *s_der(fx_pool *p, const fx_node *a, mdae_range where)
{
    if (a == NULL)
        return NULL;
    if (a->op == FX_VAR && a->order < MEL_MAX_ORDER)
        return fx_var(p, a->index, a->order + 1u, where);
    if (is_const(a) || a->op == FX_KNOWN || a->op == FX_MODE)
        return zero(p);
    return fx_un(p, FX_DER, a, where);
}

static const fx_node *s_pre(fx_pool *p, const fx_node *a, mdae_range where)
{
    if (a == NULL)
        return NULL;
    if (is_const(a) || a->op == FX_KNOWN)
        return a;
    return fx_un(p, FX_PRE, a, where);
}

/* ---- Memo: each shared node transformed once per call ---------------------------
 * Trees become DAGs once differentiated (u is shared by cos(u) * u'), and
 * fx_dt's input may be its own output: without this map, the k-th
 * derivative would walk a shared node once per path, exponentially many.
 * Best effort: without memory it stays as it is and the transformation is
 * only slower. Owned by the call (memo_free). */
typedef struct memo_entry {
    const fx_node *key, *val;
} memo_entry;

typedef struct memo {
    memo_entry *e;
    size_t cap, n; /* cap: 0 or a power of two */
} memo;

static size_t memo_slot(const memo *m, const fx_node *k)
{
    uint64_t h = (uint64_t)(uintptr_t)k * 0x9e3779b97f4a7c15ull;
    size_t i = (size_t)(h >> 20) & (m->cap - 1);
    while (m->e[i].key != NULL && m->e[i].key != k)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static const fx_node *memo_get(const memo *m, const fx_node *k)
{
    if (m->cap == 0 || k->n == 0)
        return NULL;
    const memo_entry *x = &m->e[memo_slot(m, k)];
    return x->key == k ? x->val : NULL;
}

static void memo_put(memo *m, const fx_node *k, const fx_node *v)
{
    if (v == NULL || k->n == 0)
        return; /* leaves are cheap */
    if (2 * (m->n + 1) > m->cap) {
        size_t cap = m->cap != 0 ? 2 * m->cap : 64;
        memo_entry *e = cap < SIZE_MAX / sizeof *e ? mdae_calloc(cap, sizeof *e) : NULL;
        if (e == NULL)
            return;
        memo old = *m;
        *m = (memo){e, cap, 0};
        for (size_t i = 0; i < old.cap; i++)
            if (old.e[i].key != NULL) {
                m->e[memo_slot(m, old.e[i].key)] = old.e[i];
                m->n++;
            }
        mdae_free(old.e);
    }
    memo_entry *x = &m->e[memo_slot(m, k)];
    if (x->key == NULL) {
        *x = (memo_entry){k, v};
        m->n++;
    }
}

static void memo_free(memo *m)
{
    mdae_free(m->e);
    *m = (memo){0};
}

/* ---- Folding ------------------------------------------------------------------ */

/* Node e rebuilt from its folded kids t[0 .. e->n). */
static const fx_node *rebuild(fx_pool *p, const fx_node *e, const fx_node *const *t)
{
    mdae_range w = e->where;
    switch ((fx_op)e->op) {
    case FX_NEG: return s_neg(p, t[0], w);
    case FX_ADD: return s_add(p, t, e->n, w);
    case FX_MUL: return s_mul(p, t, e->n, w);
    case FX_DIV: return s_div(p, t[0], t[1], w);
    case FX_POW: return s_pow(p, t[0], t[1], w);
    case FX_LT: case FX_LE: case FX_GT: case FX_GE: case FX_EQ: case FX_NE:
        return s_rel(p, (fx_op)e->op, t[0], t[1], w);
    case FX_NOT: return s_not(p, t[0], w);
    case FX_AND:
    case FX_OR: return s_logic(p, (fx_op)e->op, t, e->n, w);
    case FX_IF: return s_if(p, t[0], t[1], t[2], w);
    case FX_CALL: return s_call(p, (fx_fn)e->fn, e->name, t, e->n, w);
    case FX_DER: return s_der(p, t[0], w);
    case FX_PRE: return s_pre(p, t[0], w);
    case FX_OPAQUE: return fx_opaque(p, e->name, t, e->n, w);
    default: return fx_make(p, (fx_op)e->op, t, e->n, w); /* FX_LAST, FX_NEXT */
    }
}

static const fx_node *fold(fx_pool *p, memo *m, const fx_node *e)
{
    switch ((fx_op)e->op) {
    case FX_NUM: return fx_num(p, e->num, e->is_int, e->where);
    case FX_BOOL: return fx_bool(p, e->num != 0, e->where);
    case FX_TIME: return fx_time(p, e->where);
    case FX_VAR: return fx_var(p, e->index, e->order, e->where);
    case FX_KNOWN: return fx_known(p, e->index, e->where);
    case FX_MODE: return fx_mode(p, e->index, e->where);
    default: break;
    }
    if (e->n == 0) /* an FX_OPAQUE that reads nothing */
        return rebuild(p, e, NULL);
    const fx_node *r = memo_get(m, e);
    if (r != NULL)
        return r;
    const fx_node *small[4];
    const fx_node **t = e->n <= 4 ? small : kids_new(p, e->n);
    if (t == NULL)
        return NULL;
    for (uint32_t k = 0; k < e->n; k++)
        if ((t[k] = fold(p, m, e->kids[k])) == NULL)
            return NULL;
    r = rebuild(p, e, t);
    memo_put(m, e, r);
    return r;
}

const fx_node *fx_fold(fx_pool *p, const fx_node *e)
{
    memo m = {0};
    const fx_node *r = e != NULL ? fold(p, &m, e) : NULL;
    memo_free(&m);
    return r;
}

const fx_node *fx_residual(fx_pool *p, const fx_node *lhs, const fx_node *rhs)
{
    if (lhs == NULL || rhs == NULL)
        return NULL;
    memo m = {0};
    const fx_node *l = fold(p, &m, lhs), *r = fold(p, &m, rhs);
    memo_free(&m);
    return s_add2(p, l, s_neg(p, r, nowhere));
}

/* ---- Differentiation -------------------------------------------------------------- */

/* What d() differentiates with respect to. */
typedef struct dctx {
    fx_pool *p;
    bool time;            /* d/dt; else the partial w.r.t. der^order(var) */
    uint32_t var, order;
    int err;              /* the first error other than OOM, or MDAE_OK */
    memo done;            /* the derivatives of the shared nodes */
} dctx;

static const fx_node *d(dctx *c, const fx_node *e);
static const fx_node *d_node(dctx *c, const fx_node *e);

static const fx_node *fail(dctx *c, int err)
{
    if (c->err == MDAE_OK)
        c->err = err;
    return NULL;
}

/* The product of kids[0 .. n) with kid i replaced by r. */
static const fx_node *product_but(fx_pool *p, const fx_node *const *kids, uint32_t n, uint32_t i,
                                  const fx_node *r)
{
    const fx_node **f = kids_new(p, n);
    if (f == NULL)
        return NULL;
    for (uint32_t k = 0; k < n; k++)
        f[k] = k == i ? r : kids[k];
    return s_mul(p, f, n, nowhere);
}

static const fx_node *d_mul(dctx *c, const fx_node *e)
{
    fx_pool *p = c->p;
    uint32_t n = e->n;
    if (n > PRODUCT_SPLIT) { /* (a*b)' = a'*b + a*b' by halves */
        uint32_t h = n / 2;
        const fx_node *a = s_mul(p, e->kids, h, nowhere);
        const fx_node *b = s_mul(p, e->kids + h, n - h, nowhere);
        if (a == NULL || b == NULL)
            return NULL;
        return s_add2(p, s_mul2(p, d(c, a), b), s_mul2(p, a, d(c, b)));
    }
    const fx_node **terms = kids_new(p, n);
    if (terms == NULL)
        return NULL;
    uint32_t nt = 0;
    for (uint32_t i = 0; i < n; i++) {
        const fx_node *di = d(c, e->kids[i]);
        if (di == NULL)
            return NULL;
        if (!is_zero(di) && (terms[nt++] = product_but(p, e->kids, n, i, di)) == NULL)
            return NULL;
    }
    return nt == 0 ? zero(p) : s_add(p, terms, nt, nowhere);
}

/* f * dk (dk_first: dk * f), dk a derivative: 0 when dk is 0 (what it
 * differentiates reads nothing), so that keeping reads leaves no stray
 * 0 * f behind (f is differentiated elsewhere in the same rule). */
static const fx_node *mul_d(fx_pool *p, const fx_node *f, const fx_node *dk, bool dk_first)
{
    if (is_zero(dk))
        return dk;
    return dk_first ? s_mul2(p, dk, f) : s_mul2(p, f, dk);
}

static const fx_node *d_div(dctx *c, const fx_node *e)
{
    fx_pool *p = c->p;
    const fx_node *a = e->kids[0], *b = e->kids[1];
    const fx_node *da = d(c, a), *db = d(c, b);
    if (da == NULL || db == NULL)
        return NULL;
    if (is_zero(db))
        return s_div(p, da, b, nowhere);
    const fx_node *top = s_add2(p, mul_d(p, b, da, true), s_neg(p, s_mul2(p, a, db), nowhere));
    return s_div(p, top, s_pow(p, b, num(p, 2, true), nowhere), nowhere);
}

static const fx_node *call1(fx_pool *p, fx_fn fn, const fx_node *u)
{
    return s_call(p, fn, NULL, &u, 1, nowhere);
}

static const fx_node *d_pow(dctx *c, const fx_node *e)
{
    fx_pool *p = c->p;
    const fx_node *a = e->kids[0], *b = e->kids[1];
    const fx_node *da = d(c, a), *db = d(c, b);
    if (da == NULL || db == NULL)
        return NULL;
    if (is_zero(db)) { /* (a^b)' = b * a^(b-1) * a' */
        if (is_zero(da))
            return zero(p);
        const fx_node *bm1 = is_num(b) ? num(p, b->num - 1, b->is_int)
                                       : s_add2(p, b, num(p, -1, true));
        const fx_node *k[3] = {b, s_pow(p, a, bm1, nowhere), da};
        return s_mul(p, k, 3, nowhere);
    }
    /* (a^b)' = a^b * (b' * log(a) + b * a' / a) */
    const fx_node *t1 = s_mul2(p, db, call1(p, FX_FN_LOG, a));
    const fx_node *t2 = is_zero(da) ? zero(p) : s_div(p, s_mul2(p, b, da), a, nowhere);
    return s_mul2(p, e, s_add2(p, t1, t2));
}

static const fx_node *sq(fx_pool *p, const fx_node *u)
{
    return s_pow(p, u, num(p, 2, true), nowhere);
}

/* The partial f.d<i>(args) of an unknown function f. */
static const fx_node *partial_fn(fx_pool *p, const fx_node *e, uint32_t i)
{
    size_t len = strlen(e->name) + 16;
    char *name = fx__pool_alloc(p, len);
    if (name == NULL)
        return NULL;
    snprintf(name, len, "%s.d%u", e->name, (unsigned)i);
    return fx_call(p, FX_FN_UNKNOWN, name, e->kids, e->n, nowhere);
}

static const fx_node *d_unknown_fn(dctx *c, const fx_node *e)
{
    fx_pool *p = c->p;
    if (e->n == 0)
        return zero(p);
    const fx_node **terms = kids_new(p, e->n);
    if (terms == NULL)
        return NULL;
    uint32_t nt = 0;
    for (uint32_t i = 0; i < e->n; i++) {
        const fx_node *di = d(c, e->kids[i]);
        if (di == NULL)
            return NULL;
        if (!is_zero(di) && (terms[nt++] = s_mul2(p, partial_fn(p, e, i + 1), di)) == NULL)
            return NULL;
    }
    return nt == 0 ? zero(p) : s_add(p, terms, nt, nowhere);
}

/* A one-argument function's derivative: f'(u) * u'. */
static const fx_node *d_fn1(dctx *c, const fx_node *e, const fx_node *u, const fx_node *du)
{
    fx_pool *p = c->p;
    const fx_node *one_ = one(p);
    switch ((fx_fn)e->fn) {
    case FX_FN_SIN: return s_mul2(p, call1(p, FX_FN_COS, u), du);
    case FX_FN_COS: return s_neg(p, s_mul2(p, call1(p, FX_FN_SIN, u), du), nowhere);
    case FX_FN_TAN: return s_div(p, du, sq(p, call1(p, FX_FN_COS, u)), nowhere);
    case FX_FN_ASIN:
    case FX_FN_ACOS: {
        const fx_node *r = s_div(
            p, du, call1(p, FX_FN_SQRT, s_add2(p, one_, s_neg(p, sq(p, u), nowhere))), nowhere);
        return e->fn == FX_FN_ASIN ? r : s_neg(p, r, nowhere);
    }
    case FX_FN_ATAN: return s_div(p, du, s_add2(p, one_, sq(p, u)), nowhere);
    case FX_FN_SINH: return s_mul2(p, call1(p, FX_FN_COSH, u), du);
    case FX_FN_COSH: return s_mul2(p, call1(p, FX_FN_SINH, u), du);
    case FX_FN_TANH: return s_div(p, du, sq(p, call1(p, FX_FN_COSH, u)), nowhere);
    case FX_FN_EXP: return s_mul2(p, e, du);
    case FX_FN_LOG: return s_div(p, du, u, nowhere);
    case FX_FN_LOG10: return s_div(p, du, s_mul2(p, num(p, log(10.0), false), u), nowhere);
    case FX_FN_SQRT: return s_div(p, du, s_mul2(p, num(p, 2, true), e), nowhere);
    case FX_FN_ABS:
        return s_if(p, s_rel(p, FX_GE, u, zero(p), nowhere), du, s_neg(p, du, nowhere), nowhere);
    case FX_FN_NOEVENT: return is_const(du) ? du : call1(p, FX_FN_NOEVENT, du);
    default: /* sign floor ceil integer: piecewise constant */
        return fx__pool_keeps_reads(p) ? s_mul2(p, zero(p), du) : zero(p);
    }
}

static const fx_node *d_fn2(dctx *c, const fx_node *e, const fx_node *x, const fx_node *y,
                            const fx_node *dx, const fx_node *dy)
{
    fx_pool *p = c->p;
    const fx_node *k[2];
    switch ((fx_fn)e->fn) {
    case FX_FN_ATAN2: /* atan2(Y, X)' = (X*Y' - Y*X') / (X^2 + Y^2), Y = x, X = y */
        return s_div(p,
                     s_add2(p, mul_d(p, y, dx, false), s_neg(p, mul_d(p, x, dy, false), nowhere)),
                     s_add2(p, sq(p, y), sq(p, x)), nowhere);
    case FX_FN_MIN:
    case FX_FN_MAX:
        return s_if(p, s_rel(p, e->fn == FX_FN_MIN ? FX_LE : FX_GE, x, y, nowhere), dx, dy,
                    nowhere);
    case FX_FN_MOD:
    case FX_FN_REM: {
        const fx_node *q = e->fn == FX_FN_MOD ? call1(p, FX_FN_FLOOR, s_div(p, x, y, nowhere))
                                              : (k[0] = x, k[1] = y,
                                                 s_call(p, FX_FN_DIV, NULL, k, 2, nowhere));
        return s_add2(p, dx, s_neg(p, mul_d(p, q, dy, false), nowhere));
    }
    case FX_FN_SMOOTH:
        if (is_num(x) && x->num >= 1 && !is_const(dy)) {
            k[0] = num(p, x->num - 1, x->is_int);
            k[1] = dy;
            return s_call(p, FX_FN_SMOOTH, NULL, k, 2, nowhere);
        }
        return dy;
    case FX_FN_HOMOTOPY:
        k[0] = dx;
        k[1] = dy;
        return s_call(p, FX_FN_HOMOTOPY, NULL, k, 2, nowhere);
    default: /* div: piecewise constant */
        return fx__pool_keeps_reads(p) ? s_mul2(p, zero(p), s_add2(p, dx, dy)) : zero(p);
    }
}

static const fx_node *d_call(dctx *c, const fx_node *e)
{
    if (e->fn == FX_FN_UNKNOWN)
        return d_unknown_fn(c, e);
    assert(e->n == fx_fn_arity((fx_fn)e->fn));
    if (e->n == 1) {
        const fx_node *du = d(c, e->kids[0]);
        return du == NULL ? NULL : is_zero(du) ? du : d_fn1(c, e, e->kids[0], du);
    }
    if (e->n != 2)
        return fail(c, MDAE_E_INVAL);
    const fx_node *dx = d(c, e->kids[0]), *dy = d(c, e->kids[1]);
    if (dx == NULL || dy == NULL)
        return NULL;
    return d_fn2(c, e, e->kids[0], e->kids[1], dx, dy);
}

static const fx_node *d_opaque(dctx *c, const fx_node *e)
{
    fx_pool *p = c->p;
    size_t len = strlen(e->name) + 48;
    char *text = fx__pool_alloc(p, len);
    if (text == NULL)
        return NULL;
    if (!c->time) {
        bool reads = false;
        for (uint32_t k = 0; k < e->n; k++)
            reads = reads || (e->kids[k]->op == FX_VAR && e->kids[k]->index == c->var &&
                              e->kids[k]->order == c->order);
        if (!reads)
            return zero(p);
        snprintf(text, len, "partial(%s, #%u, %u)", e->name, (unsigned)c->var,
                 (unsigned)c->order);
        return fx_opaque(p, text, e->kids, e->n, nowhere);
    }
    snprintf(text, len, "der(%s)", e->name);
    const fx_node **refs = kids_new(p, 2 * (size_t)e->n + 1);
    if (refs == NULL)
        return NULL;
    uint32_t n = 0;
    for (uint32_t k = 0; k < e->n; k++) {
        const fx_node *r = e->kids[k];
        refs[n++] = r;
        if (r->op == FX_VAR) {
            if (r->order >= MEL_MAX_ORDER)
                return fail(c, MDAE_E_LIMIT);
            refs[n++] = fx_var(p, r->index, r->order + 1u, nowhere);
        }
    }
    return fx_opaque(p, text, refs, n, nowhere);
}

static const fx_node *d_var(dctx *c, const fx_node *e)
{
    if (!c->time)
        return e->index == c->var && e->order == c->order ? one(c->p) : zero(c->p);
    if (e->order >= MEL_MAX_ORDER)
        return fail(c, MDAE_E_LIMIT);
    return fx_var(c->p, e->index, e->order + 1u, nowhere);
}

/* The derivative of the folded tree e, folded; NULL on error (c->err) or
 * OOM (the pool failed). */
static const fx_node *d(dctx *c, const fx_node *e)
{
    if (e == NULL)
        return NULL;
    const fx_node *r = memo_get(&c->done, e);
    if (r == NULL) {
        r = d_node(c, e);
        memo_put(&c->done, e, r);
    }
    return r;
}

static const fx_node *d_node(dctx *c, const fx_node *e)
{
    fx_pool *p = c->p;
    switch ((fx_op)e->op) {
    case FX_TIME: return c->time ? one(p) : zero(p);
    case FX_VAR: return d_var(c, e);
    case FX_NEG: return s_neg(p, d(c, e->kids[0]), nowhere);
    case FX_ADD: {
        const fx_node **t = kids_new(p, e->n);
        if (t == NULL)
            return NULL;
        for (uint32_t k = 0; k < e->n; k++)
            if ((t[k] = d(c, e->kids[k])) == NULL)
                return NULL;
        return s_add(p, t, e->n, nowhere);
    }
    case FX_MUL: return d_mul(c, e);
    case FX_DIV: return d_div(c, e);
    case FX_POW: return d_pow(c, e);
    case FX_IF: return s_if(p, e->kids[0], d(c, e->kids[1]), d(c, e->kids[2]), nowhere);
    case FX_CALL: return d_call(c, e);
    case FX_DER: { /* expanded: the time derivative of its argument, then d */
        dctx t = {p, true, 0, 0, MDAE_OK, {0}};
        const fx_node *u = d(&t, e->kids[0]);
        memo_free(&t.done);
        if (u == NULL)
            return t.err != MDAE_OK ? fail(c, t.err) : NULL;
        return d(c, u);
    }
    case FX_LAST:
    case FX_NEXT: return fail(c, MDAE_E_NOTIMPL);
    case FX_OPAQUE: return d_opaque(c, e);
    default: return zero(p); /* numbers, knowns, modes, pre(), relations, Booleans */
    }
}

/* The result of a transformation: r, or NULL with *err set; c's memo
 * released. */
static const fx_node *finish(dctx *c, const fx_node *r, int *err)
{
    memo_free(&c->done);
    int code = c->err;
    if (code == MDAE_OK && r == NULL)
        code = fx_pool_failed(c->p) ? MDAE_E_NOMEM : MDAE_E_INVAL;
    if (err != NULL)
        *err = code;
    return code == MDAE_OK ? r : NULL;
}

/* The folded tree e with every FX_DER(u) replaced by u's time derivative
 * (c differentiates with respect to time; m: the nodes already done). */
static const fx_node *expand_der(dctx *c, memo *m, const fx_node *e)
{
    if (e == NULL || e->n == 0)
        return e;
    const fx_node *r = memo_get(m, e);
    if (r != NULL)
        return r;
    const fx_node *small[4];
    const fx_node **t = e->n <= 4 ? small : kids_new(c->p, e->n);
    if (t == NULL)
        return NULL;
    bool changed = false;
    for (uint32_t k = 0; k < e->n; k++) {
        if ((t[k] = expand_der(c, m, e->kids[k])) == NULL)
            return NULL;
        changed = changed || t[k] != e->kids[k];
    }
    if (e->op == FX_DER)
        r = d(c, t[0]);
    else
        r = changed ? rebuild(c->p, e, t) : e;
    memo_put(m, e, r);
    return r;
}

/* fx_dt, in the pool's current mode (keeping reads or not). */
static const fx_node *dt(fx_pool *p, const fx_node *e, unsigned k, int *err)
{
    dctx c = {p, true, 0, 0, MDAE_OK, {0}};
    if (k > MEL_MAX_ORDER)
        return finish(&c, fail(&c, MDAE_E_LIMIT), err);
    memo m = {0};
    const fx_node *r = expand_der(&c, &m, fx_fold(p, e));
    memo_free(&m);
    for (unsigned i = 0; i < k && r != NULL && !is_zero(r); i++) {
        memo_free(&c.done); /* a new tree each time */
        r = d(&c, r);
    }
    return finish(&c, r, err);
}

const fx_node *fx_dt(fx_pool *p, const fx_node *e, unsigned k, int *err)
{
    return dt(p, e, k, err);
}

const fx_node *fx_fold_keep(fx_pool *p, const fx_node *e)
{
    if (p == NULL)
        return NULL;
    bool was = fx__pool_set_keep_reads(p, true);
    const fx_node *r = fx_fold(p, e);
    fx__pool_set_keep_reads(p, was);
    return r;
}

const fx_node *fx_dt_keep(fx_pool *p, const fx_node *e, unsigned k, int *err)
{
    if (p == NULL) {
        if (err != NULL)
            *err = MDAE_E_INVAL;
        return NULL;
    }
    bool was = fx__pool_set_keep_reads(p, true);
    const fx_node *r = dt(p, e, k, err);
    fx__pool_set_keep_reads(p, was);
    return r;
}

const fx_node *fx_partial(fx_pool *p, const fx_node *e, uint32_t var, uint32_t order, int *err)
{
    dctx c = {p, false, var, order, MDAE_OK, {0}};
    return finish(&c, d(&c, fx_fold(p, e)), err);
}
