/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_fx.c -- folding, differentiation and evaluation of
 * expressions (engine/fx_diff.c, engine/fx_eval.c).
 *
 * Small cases are checked structurally, through the S-expression printer
 * below (fx_print is another module's). The bulk is numeric: seeded random
 * expressions over 4 unknowns (orders 0..2), 2 knowns, 1 mode, time, every
 * known function, if-expressions on relations and an unknown function f(a, b)
 * whose value and partials `call` computes analytically. Each unknown
 * follows x_v(t) = A sin(w t + p) + B t + C, whose derivatives of every order
 * are exact, so der^o(x_v) is evaluated exactly; derivatives are compared
 * with central finite differences, skipping points where a branch, a kink or
 * a jump lies within the stencil, or where the difference is ill-conditioned
 * (two step sizes disagree).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fail_alloc.h"
#include "fx.h"
#include "fx_sexpr.h"

static const mdae_range nw;
static const double PI_ = 3.14159265358979323846;

/* ---- S-expressions ------------------------------------------------------------ */
static const fx_sexpr_style sx_style; /* x y z w yh, k<i>, m<i>, %.17g */

/* Assert that e prints as want. */
#define SX_IS(e, want)                                                                         \
    do {                                                                                       \
        const fx_node *e_ = (e);                                                               \
        cr_assert_not_null(e_, "NULL, expected %s", want);                                     \
        cr_assert_str_eq(fx_sexpr(&sx_style, e_), want);                                       \
    } while (0)

/* ---- The point: trajectories, knowns, mode, f ----------------------------------- */
#define NV 4

typedef struct point {
    double t;
    double A[NV], w[NV], ph[NV], B[NV], C[NV];
    double k[2];
    bool m;
    /* a perturbation of der^pv_o(x_pv): added to its value */
    int pv, po;
    double dv;
} point;

/* der^o of A sin(w t + p) + B t + C. */
static double traj(const point *P, uint32_t v, uint32_t o)
{
    double s = P->A[v] * pow(P->w[v], o) * sin(P->w[v] * P->t + P->ph[v] + o * PI_ / 2);
    double r = s + (o == 0 ? P->B[v] * P->t + P->C[v] : o == 1 ? P->B[v] : 0);
    if ((int)v == P->pv && (int)o == P->po)
        r += P->dv;
    return r;
}

static double cb_var(void *ctx, uint32_t v, uint32_t o)
{
    cr_assert_lt(v, NV);
    return traj(ctx, v, o);
}

static double cb_known(void *ctx, uint32_t k)
{
    cr_assert_lt(k, 2);
    return ((const point *)ctx)->k[k];
}

static bool cb_mode(void *ctx, uint32_t k)
{
    cr_assert_eq(k, 0);
    return ((const point *)ctx)->m;
}

/* f(a, b) = sin(a + b/2) + a*b and its partials "f.d1.d2...": d1^i d2^j. */
static double cb_call(void *ctx, const char *name, uint32_t n, const double *a)
{
    (void)ctx;
    cr_assert_eq(n, 2);
    cr_assert_eq(name[0], 'f', "%s", name);
    int i = 0, j = 0;
    for (const char *s = name + 1; *s != '\0'; s += 3) {
        cr_assert(s[0] == '.' && s[1] == 'd' && (s[2] == '1' || s[2] == '2'), "%s", name);
        *(s[2] == '1' ? &i : &j) += 1;
    }
    double r = pow(0.5, j) * sin(a[0] + a[1] / 2 + (i + j) * PI_ / 2);
    if (i == 0 && j == 0)
        r += a[0] * a[1];
    else if (i == 1 && j == 0)
        r += a[1];
    else if (i == 0 && j == 1)
        r += a[0];
    else if (i == 1 && j == 1)
        r += 1;
    return r;
}

static double ev(const fx_node *e, const point *P)
{
    fx_point at = {P->t, cb_var, cb_known, cb_mode, cb_call, (void *)P};
    double v = NAN;
    int rc = fx_eval(e, &at, &v);
    cr_assert_eq(rc, MDAE_OK, "fx_eval: %s", mdae_strerror(rc));
    return v;
}

/* ---- Random expressions -------------------------------------------------------- */
typedef struct rng {
    uint64_t s;
} rng;

static uint32_t rnd(rng *r, uint32_t n)
{
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((r->s >> 33) % n);
}

static double rnd_real(rng *r, double lo, double hi)
{
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(r->s >> 11) / 9007199254740992.0;
}

typedef struct gen {
    fx_pool *p;
    rng r;
    bool pre; /* may use pre() (not when checking time derivatives) */
} gen;

static const fx_node *g_expr(gen *g, int depth);

static const fx_node *g_leaf(gen *g)
{
    switch (rnd(&g->r, 6)) {
    case 0: return fx_num(g->p, (double)(int)rnd(&g->r, 5), true, nw);
    case 1: return fx_num(g->p, rnd_real(&g->r, -2, 2), false, nw);
    case 2: return fx_time(g->p, nw);
    case 3: return fx_known(g->p, rnd(&g->r, 2), nw);
    default: return fx_var(g->p, rnd(&g->r, NV), rnd(&g->r, 3), nw);
    }
}

/* A Boolean: a relation, the mode, or !, and, or of them. */
static const fx_node *g_cond(gen *g, int depth)
{
    static const fx_op rel[] = {FX_LT, FX_LE, FX_GT, FX_GE, FX_EQ, FX_NE};
    switch (rnd(&g->r, depth > 0 ? 6 : 2)) {
    case 0: return fx_mode(g->p, 0, nw);
    case 1:
    case 2:
        return fx_bin(g->p, rel[rnd(&g->r, 4)], g_expr(g, depth - 1), g_expr(g, depth - 1), nw);
    case 3: return fx_un(g->p, FX_NOT, g_cond(g, depth - 1), nw);
    case 4: return fx_bin(g->p, FX_AND, g_cond(g, depth - 1), g_cond(g, depth - 1), nw);
    default:
        if (rnd(&g->r, 4) == 0) /* = and <> of constants: folded */
            return fx_bin(g->p, rel[4 + rnd(&g->r, 2)], fx_num(g->p, 1, true, nw),
                          fx_num(g->p, rnd(&g->r, 2), true, nw), nw);
        return fx_bin(g->p, FX_OR, g_cond(g, depth - 1), g_cond(g, depth - 1), nw);
    }
}

/* A positive value from u: 1.5 + u^2, or exp(u/4). */
static const fx_node *g_pos(gen *g, const fx_node *u)
{
    fx_pool *p = g->p;
    if (rnd(&g->r, 2) == 0) {
        const fx_node *sq = fx_bin(p, FX_POW, u, fx_num(p, 2, true, nw), nw);
        return fx_bin(p, FX_ADD, fx_num(p, 1.5, false, nw), sq, nw);
    }
    const fx_node *q = fx_bin(p, FX_DIV, u, fx_num(p, 4, true, nw), nw);
    return fx_call(p, FX_FN_EXP, NULL, &q, 1, nw);
}

static const fx_node *g_call(gen *g, int depth)
{
    fx_pool *p = g->p;
    fx_fn fn = (fx_fn)(1 + rnd(&g->r, FX_FN__COUNT)); /* FX_FN__COUNT: f(a, b) */
    const fx_node *a[2] = {g_expr(g, depth - 1), g_expr(g, depth - 1)};
    switch (fn) {
    case FX_FN__COUNT: return fx_call(p, FX_FN_UNKNOWN, "f", a, 2, nw);
    case FX_FN_LOG: case FX_FN_LOG10: case FX_FN_SQRT:
        if (rnd(&g->r, 4) != 0)
            a[0] = g_pos(g, a[0]);
        break;
    case FX_FN_ASIN: case FX_FN_ACOS: {
        const fx_node *th = fx_call(p, FX_FN_TANH, NULL, a, 1, nw);
        a[0] = fx_bin(p, FX_MUL, fx_num(p, 0.9, false, nw), th, nw);
        break;
    }
    case FX_FN_EXP: case FX_FN_SINH: case FX_FN_COSH:
        a[0] = fx_call(p, FX_FN_SIN, NULL, a, 1, nw); /* bounded */
        break;
    case FX_FN_DIV: case FX_FN_MOD: case FX_FN_REM:
        a[1] = g_pos(g, a[1]);
        break;
    case FX_FN_SMOOTH: a[0] = fx_num(p, rnd(&g->r, 3), true, nw); break;
    default: break;
    }
    return fx_call(p, fn, NULL, a, fx_fn_arity(fn), nw);
}

static const fx_node *g_nary(gen *g, fx_op op, int depth)
{
    const fx_node *k[4];
    uint32_t n = 2 + rnd(&g->r, 3);
    for (uint32_t i = 0; i < n; i++)
        k[i] = g_expr(g, depth - 1);
    return fx_make(g->p, op, k, n, nw);
}

static const fx_node *g_pow(gen *g, int depth)
{
    fx_pool *p = g->p;
    const fx_node *a = g_expr(g, depth - 1);
    switch (rnd(&g->r, 4)) {
    case 0: return fx_bin(p, FX_POW, a, fx_num(p, 2 + rnd(&g->r, 2), true, nw), nw);
    case 1: return fx_bin(p, FX_POW, g_pos(g, a), fx_num(p, rnd_real(&g->r, -2, 2), false, nw), nw);
    case 2: return fx_bin(p, FX_POW, g_pos(g, a), fx_known(p, rnd(&g->r, 2), nw), nw);
    default: return fx_bin(p, FX_POW, g_pos(g, a), fx_call(p, FX_FN_SIN, NULL,
                                                          (const fx_node *[]){g_expr(g, depth - 1)},
                                                          1, nw), nw);
    }
}

static const fx_node *g_expr(gen *g, int depth)
{
    fx_pool *p = g->p;
    if (depth <= 0 || rnd(&g->r, 8) == 0)
        return g_leaf(g);
    switch (rnd(&g->r, 14)) {
    case 0: return fx_un(p, FX_NEG, g_expr(g, depth - 1), nw);
    case 1:
    case 2: return g_nary(g, FX_ADD, depth);
    case 3:
    case 4: return g_nary(g, FX_MUL, depth);
    case 5: return fx_bin(p, FX_DIV, g_expr(g, depth - 1), g_pos(g, g_expr(g, depth - 1)), nw);
    case 6: return g_pow(g, depth);
    case 7: return fx_if(p, g_cond(g, depth - 1), g_expr(g, depth - 1), g_expr(g, depth - 1), nw);
    case 8:
    case 9:
    case 10: return g_call(g, depth);
    case 11: /* der of an expression, orders kept small */
        return fx_un(p, FX_DER, g_expr(g, depth > 2 ? 1 : depth - 1), nw);
    case 12:
        if (g->pre)
            return fx_un(p, FX_PRE, g_expr(g, depth - 1), nw);
        return fx_bin(p, FX_ADD, g_expr(g, depth - 1), fx_num(p, 0, true, nw), nw);
    default: /* 0 - e, 1 * e, e / 1, e ^ 1: what folding removes */
        return fx_bin(p, rnd(&g->r, 2) ? FX_MUL : FX_DIV, g_expr(g, depth - 1),
                      fx_num(p, 1, true, nw), nw);
    }
}

static void random_point(rng *r, point *P)
{
    memset(P, 0, sizeof *P);
    P->t = rnd_real(r, -2, 2);
    for (int v = 0; v < NV; v++) {
        P->A[v] = rnd_real(r, -2, 2);
        P->w[v] = rnd_real(r, 0.2, 2);
        P->ph[v] = rnd_real(r, 0, 6.28);
        P->B[v] = rnd_real(r, -1, 1);
        P->C[v] = rnd_real(r, -1, 1);
    }
    P->k[0] = rnd_real(r, 0.5, 2);
    P->k[1] = rnd_real(r, -2, 2);
    P->m = rnd(r, 2) != 0;
    P->pv = P->po = -1;
}

/* ---- Kinks: the discrete values of e at a point ---------------------------------- */
#define SIG_MAX 4096

typedef struct sig {
    double v[SIG_MAX];
    size_t n;
    bool full;
} sig;

static void sig_put(sig *s, double v)
{
    if (s->n < SIG_MAX)
        s->v[s->n++] = v;
    else
        s->full = true;
}

static double sgn(double v) { return v > 0 ? 1 : v < 0 ? -1 : v == 0 ? 0 : 2; }

/* Every condition, relation, abs/sign/min/max argument's sign and
 * floor-like value of e (all branches) at P. */
static void sig_walk(sig *s, const fx_node *e, const point *P)
{
    for (uint32_t k = 0; k < e->n; k++)
        sig_walk(s, e->kids[k], P);
    switch ((fx_op)e->op) {
    case FX_IF: sig_put(s, ev(e->kids[0], P)); return;
    case FX_LT: case FX_LE: case FX_GT: case FX_GE: case FX_EQ: case FX_NE:
        sig_put(s, ev(e, P));
        return;
    case FX_CALL: break;
    default: return;
    }
    double a = e->n > 0 ? ev(e->kids[0], P) : 0, b = e->n > 1 ? ev(e->kids[1], P) : 0;
    switch ((fx_fn)e->fn) {
    case FX_FN_ABS: case FX_FN_SIGN: sig_put(s, sgn(a)); return;
    case FX_FN_MIN: case FX_FN_MAX: sig_put(s, sgn(a - b)); return;
    case FX_FN_FLOOR: case FX_FN_CEIL: case FX_FN_INTEGER: sig_put(s, ev(e, P)); return;
    case FX_FN_DIV: case FX_FN_REM: sig_put(s, trunc(a / b)); return;
    case FX_FN_MOD: sig_put(s, floor(a / b)); return;
    case FX_FN_ATAN2: sig_put(s, b < 0 ? sgn(a) : 3); return; /* the branch cut */
    default: return;
    }
}

static bool sig_same(const sig *a, const sig *b)
{
    if (a->full || b->full || a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (memcmp(&a->v[i], &b->v[i], sizeof(double)) != 0 && !(isnan(a->v[i]) && isnan(b->v[i])))
            return false;
    return true;
}

/* Whether some atan2(y, x) of e has y = 0 and x <= 0 at P: on its branch
 * cut, where the sign of a zero decides between pi and -pi, or 0 and pi
 * (folding keeps values, not the signs of zeros). */
static bool on_cut(const fx_node *e, const point *P)
{
    for (uint32_t k = 0; k < e->n; k++)
        if (on_cut(e->kids[k], P))
            return true;
    return e->op == FX_CALL && e->fn == FX_FN_ATAN2 && ev(e->kids[0], P) == 0 &&
           ev(e->kids[1], P) <= 0;
}

/* ---- Finite differences ---------------------------------------------------------- */
static const double H1 = 1e-4, H2 = 5e-5;

/* P moved by s along what is differentiated: time (pv < 0) or der^po(x_pv). */
static point moved(const point *P, double s)
{
    point Q = *P;
    if (P->pv < 0)
        Q.t += s;
    else
        Q.dv += s;
    return Q;
}

/* Whether the derivative de of e at P agrees with central differences;
 * *checked false when the point is skipped (a kink, a jump, a NaN, or the
 * differences ill-conditioned). */
static void fd_check(const fx_node *e, const fx_node *de, const point *P, bool *checked,
                     const char *what, uint32_t seed)
{
    static const double steps[5] = {-1e-4, -5e-5, 0, 5e-5, 1e-4};
    sig *s0 = mdae_malloc(sizeof *s0), *s1 = mdae_malloc(sizeof *s1);
    cr_assert(s0 != NULL && s1 != NULL);
    double f[5];
    bool smooth = true;
    for (int i = 0; i < 5 && smooth; i++) {
        point Q = moved(P, steps[i]);
        sig *s = i == 0 ? s0 : s1;
        s->n = 0;
        s->full = false;
        sig_walk(s, e, &Q);
        sig_walk(s, de, &Q);
        f[i] = ev(e, &Q);
        smooth = isfinite(f[i]) && (i == 0 || sig_same(s0, s1));
    }
    mdae_free(s0);
    mdae_free(s1);
    *checked = false;
    if (!smooth)
        return;
    double an = ev(de, P);
    double d1 = (f[4] - f[0]) / (2 * H1), d2 = (f[3] - f[1]) / (2 * H2);
    double tol = 1e-5 * (1 + fabs(an)) + 1e-9 * fabs(f[2]);
    if (!isfinite(an) || fabs(d1 - d2) > tol / 4)
        return; /* ill-conditioned here */
    *checked = true;
    if (fabs(an - d2) > tol) {
        mdae_buf b1 = {0}, b2 = {0};
        fx_sexpr_put(&b1, &sx_style, e);
        fx_sexpr_put(&b2, &sx_style, de);
        cr_assert_fail("%s (seed %u): analytic %.12g, differences %.12g\n%s\n%s", what,
                       (unsigned)seed, an, d2, b1.p, b2.p);
    }
}

/* ---- Numeric checks on random expressions ----------------------------------------- */
#define N_EXPR 10000

/* Agreement of two values relative 1e-9 (both finite). */
static bool close_enough(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (1 + fmax(fabs(a), fabs(b)));
}

Test(fx_random, fold_keeps_the_value)
{
    unsigned checked = 0;
    for (uint32_t i = 0; i < N_EXPR; i++) {
        fx_pool *p = fx_pool_new();
        cr_assert_not_null(p);
        gen g = {p, {0x9e3779b97f4a7c15ull ^ i}, true};
        const fx_node *e = g_expr(&g, 1 + (int)rnd(&g.r, 5));
        const fx_node *f = fx_fold(p, e);
        cr_assert_not_null(f);
        cr_assert_leq(fx_size(f), fx_size(e) + 2, "seed %u: folding grew the tree", (unsigned)i);
        for (int k = 0; k < 2; k++) {
            point P;
            random_point(&g.r, &P);
            double a = ev(e, &P), b = ev(f, &P);
            if (!isfinite(a) || on_cut(e, &P))
                continue;
            checked++;
            if (!close_enough(a, b)) {
                mdae_buf b1 = {0}, b2 = {0};
                fx_sexpr_put(&b1, &sx_style, e);
                fx_sexpr_put(&b2, &sx_style, f);
                cr_assert_fail("seed %u: %.17g folded to %.17g:\n%s\n%s", (unsigned)i, a, b,
                               b1.p, b2.p);
            }
        }
        const fx_node *ff = fx_fold(p, f);
        if (!fx_equal(ff, f)) {
            mdae_buf b1 = {0}, b2 = {0};
            fx_sexpr_put(&b1, &sx_style, f);
            fx_sexpr_put(&b2, &sx_style, ff);
            cr_assert_fail("seed %u: folding is not idempotent:\n%s\n%s", (unsigned)i, b1.p, b2.p);
        }
        fx_pool_free(p);
    }
    cr_assert_geq(checked, N_EXPR, "only %u points checked", checked);
}

/* The unknown to perturb: mostly one that e reads (its k-th FX_VAR leaf,
 * k random), sometimes any. */
static const fx_node *nth_var(const fx_node *e, uint32_t *k)
{
    if (e->op == FX_VAR && (*k)-- == 0)
        return e;
    for (uint32_t i = 0; i < e->n; i++) {
        const fx_node *v = nth_var(e->kids[i], k);
        if (v != NULL)
            return v;
    }
    return NULL;
}

static void pick_var(const fx_node *e, rng *r, point *P)
{
    uint32_t n = UINT32_MAX;
    nth_var(e, &n); /* counts the leaves down */
    uint32_t k = rnd(r, UINT32_MAX - n + 1);
    const fx_node *v = rnd(r, 10) != 0 ? nth_var(e, &k) : NULL;
    P->pv = v != NULL ? (int)v->index : (int)rnd(r, NV);
    P->po = v != NULL ? (int)v->order : (int)rnd(r, 3);
}

/* What is differentiated in one random check; the number of expressions
 * whose derivative (not 0) was checked. */
typedef enum dkind { D_DT1, D_DT2, D_PARTIAL } dkind;

static unsigned random_fd(dkind kind)
{
    unsigned checked = 0;
    for (uint32_t i = 0; i < N_EXPR; i++) {
        fx_pool *p = fx_pool_new();
        cr_assert_not_null(p);
        gen g = {p, {0x243f6a8885a308d3ull ^ ((uint64_t)i << 8) ^ kind}, false};
        const fx_node *e = g_expr(&g, 1 + (int)rnd(&g.r, kind == D_DT2 ? 4 : 5));
        point P;
        random_point(&g.r, &P);
        int err = -1;
        /* the base is e folded: 0 * e is 0 there even where e is NaN */
        const fx_node *base = fx_fold(p, e), *de;
        if (kind == D_PARTIAL) {
            pick_var(e, &g.r, &P);
            de = fx_partial(p, e, (uint32_t)P.pv, (uint32_t)P.po, &err);
        } else {
            de = fx_dt(p, e, kind == D_DT2 ? 2 : 1, &err);
            if (kind == D_DT2)
                base = fx_dt(p, e, 1, NULL);
        }
        cr_assert_eq(err, MDAE_OK, "seed %u: %s", (unsigned)i, mdae_strerror(err));
        cr_assert_not_null(de);
        bool ok;
        fd_check(base, de, &P, &ok, kind == D_PARTIAL ? "partial" : "fx_dt", i);
        checked += ok && !(de->op == FX_NUM && de->num == 0); /* not 0 */
        fx_pool_free(p);
    }
    return checked;
}

Test(fx_random, dt_agrees_with_differences)
{
    unsigned n = random_fd(D_DT1);
    cr_log_info("fx_dt: %u of %u expressions checked", n, N_EXPR);
    cr_assert_geq(n, N_EXPR / 2, "only %u of %u expressions checked", n, N_EXPR);
}

Test(fx_random, second_dt_agrees_with_differences_of_the_first)
{
    unsigned n = random_fd(D_DT2);
    cr_log_info("fx_dt 2: %u of %u expressions checked", n, N_EXPR);
    cr_assert_geq(n, N_EXPR / 2, "only %u of %u expressions checked", n, N_EXPR);
}

Test(fx_random, partial_agrees_with_differences)
{
    unsigned n = random_fd(D_PARTIAL);
    cr_log_info("fx_partial: %u of %u expressions checked", n, N_EXPR);
    cr_assert_geq(n, N_EXPR / 4, "only %u of %u expressions checked", n, N_EXPR);
}

/* ---- Small cases, structurally -------------------------------------------------- */
static fx_pool *P_;
static void small_begin(void) { P_ = fx_pool_new(); }
static void small_end(void) { fx_pool_free(P_); }
TestSuite(fx_small, .init = small_begin, .fini = small_end);

static const fx_node *V(uint32_t v, uint32_t o) { return fx_var(P_, v, o, nw); }
static const fx_node *N(double v) { return fx_num(P_, v, v == floor(v), nw); }
static const fx_node *B2(fx_op op, const fx_node *a, const fx_node *b)
{
    return fx_bin(P_, op, a, b, nw);
}
static const fx_node *U(fx_op op, const fx_node *a) { return fx_un(P_, op, a, nw); }
static const fx_node *C1(fx_fn fn, const fx_node *a) { return fx_call(P_, fn, NULL, &a, 1, nw); }
static const fx_node *C2(fx_fn fn, const char *name, const fx_node *a, const fx_node *b)
{
    const fx_node *k[2] = {a, b};
    return fx_call(P_, fn, name, k, 2, nw);
}
static const fx_node *IF(const fx_node *c, const fx_node *a, const fx_node *b)
{
    return fx_if(P_, c, a, b, nw);
}
static const fx_node *SUB(const fx_node *a, const fx_node *b)
{
    return B2(FX_ADD, a, U(FX_NEG, b));
}

static const fx_node *dt(const fx_node *e, unsigned k)
{
    int err = -1;
    const fx_node *r = fx_dt(P_, e, k, &err);
    cr_assert_eq(err, MDAE_OK, "%s", mdae_strerror(err));
    return r;
}

static const fx_node *pd(const fx_node *e, uint32_t v, uint32_t o)
{
    int err = -1;
    const fx_node *r = fx_partial(P_, e, v, o, &err);
    cr_assert_eq(err, MDAE_OK, "%s", mdae_strerror(err));
    return r;
}

Test(fx_small, product_and_chain_rules)
{
    SX_IS(dt(B2(FX_MUL, V(0, 0), V(1, 0)), 1), "(+ (* x' y) (* x y'))");
    SX_IS(dt(B2(FX_MUL, V(0, 0), V(0, 0)), 1), "(* 2 x' x)");
    SX_IS(dt(C1(FX_FN_SIN, V(0, 0)), 1), "(* (cos x) x')");
    SX_IS(dt(C1(FX_FN_COS, V(0, 1)), 1), "(- (* (sin x') x''))");
    SX_IS(dt(C1(FX_FN_SIN, V(0, 0)), 2),
          "(+ (- (* (sin x) x' x')) (* (cos x) x''))");
    SX_IS(dt(B2(FX_DIV, V(0, 0), V(1, 0)), 1), "(/ (+ (* x' y) (- (* x y'))) (^ y 2))");
    SX_IS(dt(B2(FX_DIV, V(0, 0), N(2)), 1), "(/ x' 2)");
    SX_IS(dt(B2(FX_POW, V(0, 0), N(3)), 1), "(* 3 (^ x 2) x')");
    SX_IS(dt(B2(FX_POW, V(0, 0), V(1, 0)), 1),
          "(* (^ x y) (+ (* y' (log x)) (/ (* y x') x)))");
    SX_IS(dt(B2(FX_MUL, N(2), fx_time(P_, nw)), 1), "2");
    SX_IS(dt(fx_known(P_, 0, nw), 3), "0");
    SX_IS(dt(U(FX_DER, B2(FX_MUL, V(0, 0), V(0, 0))), 0), "(* 2 x' x)");
    SX_IS(dt(U(FX_DER, V(0, 1)), 0), "x''");
    SX_IS(dt(U(FX_PRE, V(0, 0)), 1), "0");
}

Test(fx_small, piecewise_functions)
{
    SX_IS(dt(C1(FX_FN_ABS, V(0, 0)), 1), "(if (>= x 0) x' (- x'))");
    SX_IS(dt(C2(FX_FN_MIN, NULL, V(0, 0), V(1, 0)), 1), "(if (<= x y) x' y')");
    SX_IS(dt(C2(FX_FN_MAX, NULL, V(0, 0), N(0)), 1), "(if (>= x 0) x' 0)");
    SX_IS(dt(C1(FX_FN_SIGN, V(0, 0)), 1), "0");
    SX_IS(dt(C1(FX_FN_FLOOR, V(0, 0)), 1), "0");
    SX_IS(dt(C2(FX_FN_MOD, NULL, V(0, 0), V(1, 0)), 1), "(+ x' (- (* (floor (/ x y)) y')))");
    SX_IS(dt(C2(FX_FN_REM, NULL, V(0, 0), N(2)), 1), "x'");
    SX_IS(dt(IF( fx_mode(P_, 0, nw), V(0, 0), N(1)), 1), "(if m0 x' 0)");
    SX_IS(dt(IF( fx_mode(P_, 0, nw), V(0, 0), V(0, 0)), 1), "x'");
}

/* Whether e has an FX_DER node. */
static bool has_der(const fx_node *e)
{
    if (e->op == FX_DER)
        return true;
    for (uint32_t k = 0; k < e->n; k++)
        if (has_der(e->kids[k]))
            return true;
    return false;
}

/* fx_dt expands every der() of an expression, also at order 0 and inside
 * the factors the product rule leaves underived (RIMIS prints no der()
 * outside its differential equations). */
Test(fx_small, dt_expands_every_der)
{
    const fx_node *dxy = U(FX_DER, B2(FX_MUL, V(0, 0), V(1, 0)));
    SX_IS(dt(dxy, 0), "(+ (* x' y) (* x y'))");
    SX_IS(dt(B2(FX_ADD, V(0, 0), dxy), 0), "(+ x (* x' y) (* x y'))");
    for (unsigned k = 0; k < 3; k++) {
        const fx_node *e = B2(FX_MUL, V(2, 0), U(FX_DER, C2(FX_FN_UNKNOWN, "f", V(0, 0), dxy)));
        const fx_node *d = dt(e, k);
        cr_assert(!has_der(d), "order %u: %s", k, fx_sexpr(&sx_style, d));
    }
}

static const fx_node *dt_keep(const fx_node *e, unsigned k)
{
    int err = -1;
    const fx_node *r = fx_dt_keep(P_, e, k, &err);
    cr_assert_eq(err, MDAE_OK, "%s", mdae_strerror(err));
    return r;
}

/* Keeping reads: what fx_fold drops (0 * e, e - e, e ^ 0, 0 / e, the zero
 * derivative of floor) stays when e reads an unknown; constants still fold;
 * the pool is back to plain folding afterwards. */
Test(fx_small, keep_reads)
{
    SX_IS(fx_fold_keep(P_, B2(FX_MUL, N(0), C1(FX_FN_LOG, V(0, 0)))), "(* 0 (log x))");
    SX_IS(fx_fold_keep(P_, SUB(V(0, 1), V(0, 1))), "(* 0 x')");
    SX_IS(fx_fold_keep(P_, B2(FX_POW, V(0, 0), N(0))), "(^ x 0)");
    SX_IS(fx_fold_keep(P_, B2(FX_POW, N(1), V(1, 0))), "(^ 1 y)");
    SX_IS(fx_fold_keep(P_, B2(FX_DIV, N(0), V(1, 0))), "(/ 0 y)");
    SX_IS(fx_fold_keep(P_, B2(FX_MUL, N(0), B2(FX_ADD, N(2), fx_known(P_, 0, nw)))), "0");
    SX_IS(fx_fold_keep(P_, B2(FX_MUL, N(0), U(FX_PRE, V(0, 0)))), "0");
    SX_IS(fx_fold_keep(P_, B2(FX_ADD, V(0, 0), N(0))), "x");
    SX_IS(fx_fold_keep(P_, IF(fx_bool(P_, true, nw), V(0, 0), V(1, 0))), "x");
    SX_IS(dt_keep(SUB(U(FX_DER, V(0, 0)), V(0, 1)), 0), "(* 0 x')");
    SX_IS(dt_keep(C1(FX_FN_FLOOR, V(0, 0)), 1), "(* 0 x')");
    SX_IS(dt_keep(B2(FX_MUL, N(0), V(0, 0)), 2), "(* 0 x'')");
    SX_IS(dt_keep(B2(FX_ADD, V(1, 0), B2(FX_POW, V(0, 0), N(0))), 1),
          "(+ y' (* 0 (^ x -1) x'))");
    SX_IS(dt_keep(C2(FX_FN_MOD, NULL, V(0, 0), N(2)), 1), "x'");
    SX_IS(fx_fold(P_, SUB(V(0, 1), V(0, 1))), "0");
    SX_IS(dt(C1(FX_FN_FLOOR, V(0, 0)), 1), "0");
}

Test(fx_small, unknown_functions_by_their_partials)
{
    SX_IS(dt(C2(FX_FN_UNKNOWN, "f", V(0, 0), V(1, 0)), 1),
          "(+ (* (f.d1 x y) x') (* (f.d2 x y) y'))");
    SX_IS(dt(C2(FX_FN_UNKNOWN, "Pkg.f", V(0, 0), N(1)), 2),
          "(+ (* (Pkg.f.d1.d1 x 1) x' x') (* (Pkg.f.d1 x 1) x''))");
    SX_IS(pd(C2(FX_FN_UNKNOWN, "f", V(0, 0), V(0, 0)), 0, 0), "(+ (f.d1 x x) (f.d2 x x))");
}

/* The Water Tank's eh2: 0 = if bh then x - xmax else yh (tests/models/
 * water_tank.mel); its pivot in yh, what a single-mode tool divides by. */
Test(fx_small, water_tank_pivot)
{
    const fx_node *rhs = IF( fx_mode(P_, 0, nw), SUB(V(0, 0), fx_known(P_, 0, nw)), V(4, 0));
    const fx_node *res = fx_residual(P_, N(0), rhs);
    SX_IS(res, "(- (if m0 (+ x (- k0)) yh))");
    SX_IS(pd(res, 4, 0), "(- (if m0 0 1))");
    SX_IS(pd(res, 0, 0), "(- (if m0 1 0))");
    SX_IS(pd(res, 0, 1), "0");
    SX_IS(dt(res, 1), "(- (if m0 x' yh'))");
}

Test(fx_small, folding)
{
    SX_IS(fx_fold(P_, B2(FX_ADD, N(0), U(FX_NEG, B2(FX_MUL, N(1), V(0, 0))))), "(- x)");
    SX_IS(fx_fold(P_, U(FX_NEG, U(FX_NEG, V(0, 0)))), "x");
    SX_IS(fx_fold(P_, B2(FX_ADD, N(1), B2(FX_MUL, N(2), N(3)))), "7");
    SX_IS(fx_fold(P_, SUB(V(0, 0), N(1))), "(+ x (- 1))");
    SX_IS(fx_fold(P_, B2(FX_ADD, B2(FX_ADD, V(0, 0), N(2)), B2(FX_ADD, V(1, 0), N(-5)))),
          "(+ x y (- 3))");
    SX_IS(fx_fold(P_, B2(FX_MUL, B2(FX_MUL, N(2), V(0, 0)), U(FX_NEG, B2(FX_MUL, V(1, 0), N(3))))),
          "(- (* 6 x y))");
    SX_IS(fx_fold(P_, B2(FX_MUL, N(0), C1(FX_FN_LOG, V(0, 0)))), "0");
    SX_IS(fx_fold(P_, B2(FX_ADD, B2(FX_MUL, V(0, 0), V(1, 0)),
                         B2(FX_MUL, N(2), B2(FX_MUL, V(0, 0), V(1, 0))))),
          "(* 3 x y)");
    SX_IS(fx_fold(P_, B2(FX_ADD, SUB(V(0, 0), V(1, 0)), V(0, 0))), "(+ (* 2 x) (- y))");
    SX_IS(fx_fold(P_, SUB(C1(FX_FN_SIN, V(0, 0)), C1(FX_FN_SIN, V(0, 0)))), "0");
    SX_IS(fx_fold(P_, B2(FX_POW, V(0, 0), N(1))), "x");
    SX_IS(fx_fold(P_, B2(FX_POW, V(0, 0), N(0))), "1");
    SX_IS(fx_fold(P_, B2(FX_DIV, N(1), N(0))), "(/ 1 0)");
    SX_IS(fx_fold(P_, B2(FX_DIV, U(FX_NEG, V(0, 0)), N(-2))), "(/ x 2)");
    SX_IS(fx_fold(P_, IF( B2(FX_LT, N(1), N(2)), V(0, 0), V(1, 0))), "x");
    SX_IS(fx_fold(P_, IF( fx_mode(P_, 0, nw), V(0, 0), B2(FX_MUL, N(1), V(0, 0)))), "x");
    SX_IS(fx_fold(P_, B2(FX_AND, fx_mode(P_, 0, nw), fx_bool(P_, true, nw))), "m0");
    SX_IS(fx_fold(P_, B2(FX_OR, fx_mode(P_, 0, nw), fx_bool(P_, true, nw))), "true");
    SX_IS(fx_fold(P_, U(FX_NOT, U(FX_NOT, fx_mode(P_, 0, nw)))), "m0");
    SX_IS(fx_fold(P_, C1(FX_FN_COS, N(0))), "1");
    SX_IS(fx_fold(P_, C1(FX_FN_LOG, N(0))), "(log 0)");
    SX_IS(fx_fold(P_, U(FX_DER, V(2, 1))), "z''");
    SX_IS(fx_residual(P_, V(0, 1), B2(FX_ADD, V(1, 0), V(2, 0))), "(+ x' (- y) (- z))");
}

Test(fx_small, events_and_opaque)
{
    int err = 0;
    cr_assert_null(fx_dt(P_, B2(FX_ADD, V(0, 0), U(FX_NEXT, V(0, 0))), 1, &err));
    cr_assert_eq(err, MDAE_E_NOTIMPL);
    err = 0;
    cr_assert_null(fx_partial(P_, U(FX_LAST, V(0, 0)), 0, 0, &err));
    cr_assert_eq(err, MDAE_E_NOTIMPL);
    SX_IS(dt(U(FX_LAST, V(0, 0)), 0), "(last x)");
    const fx_node *refs[2] = {V(0, 0), V(1, 2)};
    const fx_node *o = fx_opaque(P_, "{x, y}", refs, 2, nw);
    SX_IS(dt(o, 1), "[(der({x, y}) x x' y'' y''')]");
    SX_IS(pd(o, 1, 2), "[(partial({x, y}, #1, 2) x y'')]");
    SX_IS(pd(o, 1, 0), "0");
    cr_assert_null(fx_dt(P_, V(0, MEL_MAX_ORDER), 1, &err));
    cr_assert_eq(err, MDAE_E_LIMIT);
}

/* ---- Evaluation ------------------------------------------------------------------ */
Test(fx_small, evaluation)
{
    point P;
    rng r = {7};
    random_point(&r, &P);
    P.m = true;
    /* if m0 then x' * k1 else 1 / 0 */
    const fx_node *e = IF(fx_mode(P_, 0, nw), B2(FX_MUL, V(0, 1), fx_known(P_, 1, nw)),
                          B2(FX_DIV, N(1), N(0)));
    cr_assert_float_eq(ev(e, &P), traj(&P, 0, 1) * P.k[1], 1e-15);
    P.m = false;
    cr_assert(isinf(ev(e, &P)));
    cr_assert_eq(ev(B2(FX_AND, B2(FX_LT, N(1), N(2)), U(FX_NOT, fx_bool(P_, false, nw))), &P), 1);
    cr_assert_eq(ev(C2(FX_FN_MOD, NULL, N(-7), N(3)), &P), 2);
    cr_assert_eq(ev(C2(FX_FN_REM, NULL, N(-7), N(3)), &P), -1);
    cr_assert_eq(ev(C2(FX_FN_DIV, NULL, N(-7), N(3)), &P), -2);
    cr_assert_eq(ev(C1(FX_FN_INTEGER, N(-2.5)), &P), -3);
    cr_assert_eq(ev(C1(FX_FN_SIGN, N(-0.5)), &P), -1);
    cr_assert_eq(ev(C2(FX_FN_SMOOTH, NULL, N(1), N(4)), &P), 4);
    cr_assert_eq(ev(C2(FX_FN_HOMOTOPY, NULL, N(5), N(4)), &P), 5);
    cr_assert_eq(ev(U(FX_PRE, N(3)), &P), 3);
    cr_assert_float_eq(ev(U(FX_DER, C1(FX_FN_SIN, V(0, 0))), &P),
                       cos(traj(&P, 0, 0)) * traj(&P, 0, 1), 1e-12);
    cr_assert_float_eq(ev(C2(FX_FN_UNKNOWN, "f.d1", N(1), N(2)), &P), cos(2.0) + 2, 1e-12);
}

Test(fx_small, evaluation_errors)
{
    double v;
    const fx_node *refs[1] = {V(0, 0)};
    fx_point none = {0};
    cr_assert_eq(fx_eval(fx_opaque(P_, "{x}", refs, 1, nw), &none, &v), MDAE_E_NOTIMPL);
    cr_assert_eq(fx_eval(C2(FX_FN_UNKNOWN, "f", N(1), N(2)), &none, &v), MDAE_E_NOTIMPL);
    cr_assert_eq(fx_eval(V(0, 0), &none, &v), MDAE_E_INVAL);
    cr_assert_eq(fx_eval(fx_known(P_, 0, nw), &none, &v), MDAE_E_INVAL);
    cr_assert_eq(fx_eval(fx_mode(P_, 0, nw), &none, &v), MDAE_E_INVAL);
    cr_assert_eq(fx_eval(NULL, &none, &v), MDAE_E_INVAL);
    cr_assert_eq(fx_eval(fx_time(P_, nw), &none, &v), MDAE_OK);
    cr_assert_eq(fx_eval(U(FX_DER, U(FX_NEXT, V(0, 0))), &none, &v), MDAE_E_NOTIMPL);
}

/* ---- Out of memory ----------------------------------------------------------------- */

/* A few differentiations of a random expression of depth 5 into pool p;
 * whether all succeeded (none may crash). */
static bool transform_all(fx_pool *p, const fx_node *e)
{
    int err = MDAE_OK;
    const fx_node *r[4] = {fx_fold(p, e), fx_dt(p, e, 2, &err), NULL, NULL};
    cr_assert(r[1] != NULL || err == MDAE_E_NOMEM, "%s", mdae_strerror(err));
    r[2] = fx_partial(p, e, 0, 1, &err);
    cr_assert(r[2] != NULL || err == MDAE_E_NOMEM, "%s", mdae_strerror(err));
    r[3] = fx_residual(p, e, r[1]);
    bool ok = r[0] != NULL && r[1] != NULL && r[2] != NULL && r[3] != NULL;
    cr_assert_eq(ok, !fx_pool_failed(p));
    return ok;
}

Test(fx_oom, every_allocation_fails_cleanly)
{
    fx_pool *in = fx_pool_new();
    cr_assert_not_null(in);
    gen g = {in, {42}, false};
    const fx_node *e = NULL;
    while (e == NULL || fx_size(e) < 200) /* big enough for a few chunks */
        e = g_expr(&g, 6);
    const fx_node *de = fx_un(in, FX_DER, e, nw);
    cr_assert_not_null(de);
    cr_assert(mdae_replace_allocator(&counting_allocator) == MDAE_OK);
    long n;
    for (n = 0;; n++) {
        counting_arm(n);
        fx_pool *p = fx_pool_new();
        bool ok = p != NULL && transform_all(p, e);
        double v;
        fx_point at = {0};
        int rc = fx_eval(de, &at, &v); /* in a pool of its own */
        cr_assert(rc == MDAE_E_NOMEM || rc == MDAE_E_INVAL || rc == MDAE_E_NOTIMPL, "%d", rc);
        fx_pool_free(p);
        cr_assert_eq(live, 0, "allocation %ld: %ld blocks leaked", n, live);
        if (ok && n_allocs <= n)
            break;
    }
    counting_arm(-1);
    mdae_replace_allocator(NULL);
    cr_log_info("fx_oom: %ld allocation failures survived", n);
    cr_assert_geq(n, 3);
    fx_pool_free(in);
}

/* A DAG of 60 levels, e' = sin(e) + e sharing e (2^60 paths): each shared
 * node is transformed once, so this takes milliseconds, not forever. */
Test(fx_small, shared_nodes_once, .timeout = 60)
{
    const fx_node *e = V(0, 0);
    for (int i = 0; i < 60; i++)
        e = B2(FX_ADD, C1(FX_FN_SIN, e), e);
    const fx_node *f = fx_fold(P_, e);
    cr_assert_not_null(f);
    cr_assert_eq(f->op, FX_ADD);
    cr_assert_eq(f->n, 61); /* flattened: sin(e59) + sin(e58) + ... + x */
    const fx_node *d2 = dt(e, 2);
    cr_assert_not_null(d2);
    cr_assert_not_null(pd(e, 0, 0));
    cr_assert_not_null(dt(d2, 1));
}

/* A sum of 10^5 products and a product of 10^4 factors: the derivative of
 * the product is built by halves, O(n log n) nodes, not n^2. */
Test(fx_small, wide_sums_and_products, .timeout = 60)
{
    enum { NT = 100000, NF = 10000 };
    const fx_node **k = mdae_malloc(NT * sizeof *k);
    cr_assert_not_null(k);
    for (int i = 0; i < NT; i++)
        k[i] = B2(FX_MUL, V((uint32_t)i % NV, 0), C1(FX_FN_SIN, V(1, 0)));
    const fx_node *sum = fx_make(P_, FX_ADD, k, NT, nw);
    const fx_node *ds = dt(sum, 1);
    cr_assert_eq(ds->op, FX_ADD);
    cr_assert_eq(ds->n, 2 * NT);
    for (int i = 0; i < NF; i++)
        k[i] = C1(FX_FN_SIN, V((uint32_t)i % NV, 0));
    const fx_node *prod = fx_make(P_, FX_MUL, k, NF, nw);
    const fx_node *dp = dt(prod, 1);
    cr_assert_leq(fx_size(dp), (size_t)40 * NF * 14, "%zu nodes", fx_size(dp));
    mdae_free(k);
    point P;
    rng r = {3};
    random_point(&r, &P);
    cr_assert(isfinite(ev(dp, &P)));
}

/* ---- Keeping reads: the structure of the input, differentiated ------------------ */

/* The highest order at which e reads each unknown (orders[v], -1: not
 * read), the structural rule of tests/support/fx_check.c: der() raises
 * what it reads by one; pre() reads nothing; an if-expression reads its
 * branch when its condition is constant, else both, never its condition. */
static void reads_of(fx_pool *p, const fx_node *e, int shift, int *orders)
{
    switch ((fx_op)e->op) {
    case FX_VAR:
        if (e->index < NV && (int)e->order + shift > orders[e->index])
            orders[e->index] = (int)e->order + shift;
        return;
    case FX_DER: reads_of(p, e->kids[0], shift + 1, orders); return;
    case FX_PRE:
    case FX_LAST: return;
    case FX_IF: {
        const fx_node *c = fx_fold_keep(p, e->kids[0]);
        cr_assert_not_null(c);
        bool fixed = c->op == FX_BOOL || c->op == FX_NUM;
        if (!fixed || c->num != 0)
            reads_of(p, e->kids[1], shift, orders);
        if (!fixed || c->num == 0)
            reads_of(p, e->kids[2], shift, orders);
        return;
    }
    default:
        for (uint32_t k = 0; k < e->n; k++)
            reads_of(p, e->kids[k], shift, orders);
        return;
    }
}

/* A random expression with pieces plain folding drops: 0 * a, a - a,
 * a ^ 0, 1 ^ a, 0 / a, floor(a), div(a, b). */
static const fx_node *g_dropping(gen *g, int depth)
{
    fx_pool *p = g->p;
    const fx_node *a = g_expr(g, depth), *b = g_expr(g, depth);
    const fx_node *zero = fx_num(p, 0, true, nw), *piece;
    switch (rnd(&g->r, 7)) {
    case 0: piece = fx_bin(p, FX_MUL, zero, a, nw); break;
    case 1: piece = fx_bin(p, FX_ADD, a, fx_un(p, FX_NEG, a, nw), nw); break;
    case 2: piece = fx_bin(p, FX_POW, a, zero, nw); break;
    case 3: piece = fx_bin(p, FX_POW, fx_num(p, 1, true, nw), a, nw); break;
    case 4: piece = fx_bin(p, FX_DIV, zero, g_pos(g, a), nw); break;
    case 5: piece = fx_call(p, FX_FN_FLOOR, NULL, &a, 1, nw); break;
    default: {
        const fx_node *k[2] = {a, g_pos(g, b)};
        piece = fx_call(p, FX_FN_DIV, NULL, k, 2, nw);
        break;
    }
    }
    return fx_bin(p, FX_ADD, rnd(&g->r, 2) ? piece : g_expr(g, depth), piece, nw);
}

/* fx_dt_keep(e, k) reads every unknown e reads, at its order + k, and has
 * the value of fx_dt(e, k) (both NaN, or close). */
Test(fx_random, dt_keep_reads_what_the_input_reads_raised)
{
    unsigned dropped = 0;
    for (uint32_t i = 0; i < N_EXPR / 4; i++) {
        fx_pool *p = fx_pool_new();
        cr_assert_not_null(p);
        gen g = {p, {0x452821e638d01377ull ^ i}, true};
        const fx_node *e = g_dropping(&g, 1 + (int)rnd(&g.r, 3));
        unsigned k = rnd(&g.r, 3);
        int want[NV], got[NV], plain[NV], err = -1;
        const fx_node *d = fx_dt_keep(p, e, k, &err);
        cr_assert_eq(err, MDAE_OK, "seed %u: %s", (unsigned)i, mdae_strerror(err));
        const fx_node *d0 = fx_dt(p, e, k, &err);
        cr_assert_eq(err, MDAE_OK, "seed %u: %s", (unsigned)i, mdae_strerror(err));
        for (int v = 0; v < NV; v++)
            want[v] = got[v] = plain[v] = -1;
        reads_of(p, e, 0, want);
        reads_of(p, d, 0, got);
        reads_of(p, d0, 0, plain);
        for (int v = 0; v < NV; v++) {
            int w = want[v] < 0 ? -1 : want[v] + (int)k;
            if (got[v] != w) {
                mdae_buf b1 = {0}, b2 = {0};
                fx_sexpr_put(&b1, &sx_style, e);
                fx_sexpr_put(&b2, &sx_style, d);
                cr_assert_fail("seed %u, k = %u, unknown %d: read at %d, expected %d:\n%s\n%s",
                               (unsigned)i, k, v, got[v], w, b1.p, b2.p);
            }
            dropped += plain[v] != w;
        }
        point P;
        random_point(&g.r, &P);
        double a = ev(d, &P), b = ev(d0, &P);
        cr_assert(!isfinite(b) || !isfinite(a) || close_enough(a, b) || on_cut(e, &P),
                  "seed %u: fx_dt_keep %.17g, fx_dt %.17g", (unsigned)i, a, b);
        fx_pool_free(p);
    }
    cr_log_info("fx_dt_keep: plain fx_dt dropped %u reads", dropped);
    cr_assert_gt(dropped, 0u, "no case where keeping reads matters");
}

/* ---- Copies (fx_copy, issue 40: the front-end's replay) ---------------------
 * fx_copy against the constructors (its slow path: what mel_elab.c's
 * replay did before h-fe19): every node of random trees (every kind of
 * node, names included) copied with and without moved locations, into
 * another pool, compared field for field with the tree the constructors
 * make of the same fields and moved locations. */

/* e rebuilt with the constructors, each node's location moved by s (NULL:
 * kept), or, with *c not NULL, given a new one from counter *c. */
static const fx_node *rebuilt(fx_pool *p, const fx_node *e, const fx_shift *s, uint32_t *c)
{
    mdae_range w = e->where;
    if (c != NULL) {
        uint32_t k = (*c)++;
        w = (mdae_range){{1 + k / 5, k % 5, 3 * k}, {1 + (k + 1) / 5, (k + 1) % 5, 3 * k + 2}};
    } else if (s != NULL) {
        w = fx_shift_range(s, w);
    }
    const fx_node *kids[16];
    cr_assert_leq(e->n, 16);
    for (uint32_t k = 0; k < e->n; k++)
        kids[k] = rebuilt(p, e->kids[k], s, c);
    switch ((fx_op)e->op) {
    case FX_NUM: return fx_num(p, e->num, e->is_int, w);
    case FX_BOOL: return fx_bool(p, e->num != 0, w);
    case FX_TIME: return fx_time(p, w);
    case FX_VAR: return fx_var(p, e->index, e->order, w);
    case FX_KNOWN: return fx_known(p, e->index, w);
    case FX_MODE: return fx_mode(p, e->index, w);
    case FX_CALL: return fx_call(p, (fx_fn)e->fn, e->name, kids, e->n, w);
    case FX_OPAQUE: return fx_opaque(p, e->name, kids, e->n, w);
    default: return fx_make(p, (fx_op)e->op, kids, e->n, w);
    }
}

/* Whether a and b are the same field for field (locations included), b's
 * nodes and names none of `old`'s (the tree copied). */
static bool same_copy(const fx_node *a, const fx_node *b, const fx_node *old)
{
    if (b == old || (b->name != NULL && b->name == old->name))
        return false;
    if (a->op != b->op || a->fn != b->fn || a->is_int != b->is_int || a->order != b->order ||
        a->n != b->n || a->index != b->index || memcmp(&a->num, &b->num, sizeof a->num) != 0 ||
        memcmp(&a->where, &b->where, sizeof a->where) != 0 ||
        (a->name == NULL) != (b->name == NULL) || (a->name != NULL && strcmp(a->name, b->name) != 0))
        return false;
    for (uint32_t k = 0; k < a->n; k++)
        if (!same_copy(a->kids[k], b->kids[k], old->kids[k]))
            return false;
    return true;
}

Test(fx_copy, is_what_the_constructors_make_of_the_moved_fields)
{
    static const fx_shift shifts[] = {
        {0, 0, 0, 0, 0},            /* moves nothing */
        {30, 41, 40, 0, 11},        /* longer, same line: columns on the edit's line */
        {30, 25, 33, 2, -4},        /* shorter, lines added */
        {0, 7, 12, -1, 3},          /* from the start */
        {SIZE_MAX, SIZE_MAX, SIZE_MAX, 0, 0}, /* after everything */
    };
    for (uint32_t i = 0; i < N_EXPR / 4; i++) {
        fx_pool *p = fx_pool_new(), *q = fx_pool_new();
        cr_assert(p != NULL && q != NULL);
        gen g = {p, {0x51ed270b0bd1ull ^ i}, true};
        const fx_node *e = g_expr(&g, 1 + (int)rnd(&g.r, 5));
        const fx_node *both[2] = {fx_opaque(p, "raw text", (const fx_node *[]){e, fx_time(p, nw)}, 2, nw),
                                  fx_mode(p, 1, nw)};
        e = fx_if(p, fx_bool(p, i % 2 == 0, nw), both[0], fx_make(p, FX_ADD, both, 2, nw), nw);
        uint32_t c = 0;
        const fx_node *located = rebuilt(p, e, NULL, &c);
        cr_assert_not_null(located);
        for (size_t k = 0; k < sizeof shifts / sizeof *shifts; k++) {
            const fx_node *want = rebuilt(q, located, &shifts[k], NULL);
            const fx_node *got = fx_copy(q, located, &shifts[k]);
            cr_assert(want != NULL && got != NULL);
            cr_assert(same_copy(want, got, located), "seed %u, shift %zu", (unsigned)i, k);
        }
        cr_assert(same_copy(located, fx_copy(q, located, NULL), located), "seed %u, kept", (unsigned)i);
        cr_assert_null(fx_copy(q, NULL, NULL));
        fx_pool_free(p);
        fx_pool_free(q);
    }
}
