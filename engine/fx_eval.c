/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/fx_eval.c -- the value of an expression at a point (engine/fx.h:
 * fx_eval), and of the known functions (fx_int.h: fx__fn_apply).
 *
 * Doubles throughout; Booleans are 0 / 1 and a number is true when it is
 * not 0. An if-expression evaluates its condition and the branch it
 * selects only; and / or stop at the first deciding operand. der(e) of an
 * expression that is not an unknown (FX_DER) is evaluated through fx_dt in
 * a pool of its own, freed before returning. Recursion follows the tree's
 * depth (engine/fx.h, Depth).
 */
#include "fx.h"
#include "fx_int.h"

#include <math.h>

double fx__fn_apply(fx_fn fn, const double *a)
{
    switch (fn) {
    case FX_FN_SIN: return sin(a[0]);
    case FX_FN_COS: return cos(a[0]);
    case FX_FN_TAN: return tan(a[0]);
    case FX_FN_ASIN: return asin(a[0]);
    case FX_FN_ACOS: return acos(a[0]);
    case FX_FN_ATAN: return atan(a[0]);
    case FX_FN_ATAN2: return atan2(a[0], a[1]);
    case FX_FN_SINH: return sinh(a[0]);
    case FX_FN_COSH: return cosh(a[0]);
    case FX_FN_TANH: return tanh(a[0]);
    case FX_FN_EXP: return exp(a[0]);
    case FX_FN_LOG: return log(a[0]);
    case FX_FN_LOG10: return log10(a[0]);
    case FX_FN_SQRT: return sqrt(a[0]);
    case FX_FN_ABS: return fabs(a[0]);
    case FX_FN_SIGN: return a[0] > 0 ? 1 : a[0] < 0 ? -1 : a[0] == 0 ? 0 : a[0];
    case FX_FN_MIN: return isnan(a[1]) ? a[1] : a[0] <= a[1] || isnan(a[0]) ? a[0] : a[1];
    case FX_FN_MAX: return isnan(a[1]) ? a[1] : a[0] >= a[1] || isnan(a[0]) ? a[0] : a[1];
    case FX_FN_FLOOR:
    case FX_FN_INTEGER: return floor(a[0]);
    case FX_FN_CEIL: return ceil(a[0]);
    case FX_FN_DIV: return trunc(a[0] / a[1]);
    case FX_FN_MOD: return a[0] - floor(a[0] / a[1]) * a[1];
    case FX_FN_REM: return a[0] - trunc(a[0] / a[1]) * a[1];
    case FX_FN_NOEVENT: return a[0];
    case FX_FN_SMOOTH: return a[1];
    case FX_FN_HOMOTOPY: return a[0];
    default: return NAN;
    }
}

static int eval(const fx_node *e, const fx_point *at, double *out);

/* An unknown function: its arguments, then the callback. */
static int eval_unknown_fn(const fx_node *e, const fx_point *at, double *out)
{
    if (at->call == NULL)
        return MDAE_E_NOTIMPL;
    double small[8];
    double *a = e->n <= 8 ? small : mdae_malloc((size_t)e->n * sizeof *a);
    if (a == NULL)
        return MDAE_E_NOMEM;
    int rc = MDAE_OK;
    for (uint32_t k = 0; k < e->n && rc == MDAE_OK; k++)
        rc = eval(e->kids[k], at, &a[k]);
    if (rc == MDAE_OK)
        *out = at->call(at->ctx, e->name, e->n, a);
    if (a != small)
        mdae_free(a);
    return rc;
}

static int eval_call(const fx_node *e, const fx_point *at, double *out)
{
    if (e->fn == FX_FN_UNKNOWN)
        return eval_unknown_fn(e, at, out);
    double a[2] = {0, 0};
    if (e->n != fx_fn_arity((fx_fn)e->fn) || e->n > 2)
        return MDAE_E_INVAL;
    for (uint32_t k = 0; k < e->n; k++) {
        int rc = eval(e->kids[k], at, &a[k]);
        if (rc != MDAE_OK)
            return rc;
    }
    *out = fx__fn_apply((fx_fn)e->fn, a);
    return MDAE_OK;
}

/* der(e): e's time derivative, built in a pool of its own. */
static int eval_der(const fx_node *e, const fx_point *at, double *out)
{
    fx_pool *p = fx_pool_new();
    if (p == NULL)
        return MDAE_E_NOMEM;
    int rc;
    const fx_node *de = fx_dt(p, e, 1, &rc);
    if (de != NULL)
        rc = eval(de, at, out);
    fx_pool_free(p);
    return rc;
}

/* Binary arithmetic and relations. */
static int eval_bin(const fx_node *e, const fx_point *at, double *out)
{
    double a, b;
    int rc = eval(e->kids[0], at, &a);
    if (rc == MDAE_OK)
        rc = eval(e->kids[1], at, &b);
    if (rc != MDAE_OK)
        return rc;
    switch ((fx_op)e->op) {
    case FX_DIV: *out = a / b; break;
    case FX_POW: *out = pow(a, b); break;
    case FX_LT: *out = a < b; break;
    case FX_LE: *out = a <= b; break;
    case FX_GT: *out = a > b; break;
    case FX_GE: *out = a >= b; break;
    case FX_EQ: *out = a == b; break;
    default: *out = a != b; break; /* FX_NE */
    }
    return MDAE_OK;
}

/* n-ary: +, *, and, or. */
static int eval_nary(const fx_node *e, const fx_point *at, double *out)
{
    double acc = e->op == FX_ADD || e->op == FX_OR ? 0 : 1;
    for (uint32_t k = 0; k < e->n; k++) {
        double v;
        int rc = eval(e->kids[k], at, &v);
        if (rc != MDAE_OK)
            return rc;
        switch ((fx_op)e->op) {
        case FX_ADD: acc += v; break;
        case FX_MUL: acc *= v; break;
        case FX_AND:
            if (v == 0) {
                *out = 0;
                return MDAE_OK;
            }
            break;
        default: /* FX_OR */
            if (v != 0) {
                *out = 1;
                return MDAE_OK;
            }
            break;
        }
    }
    *out = acc;
    return MDAE_OK;
}

static int eval_leaf(const fx_node *e, const fx_point *at, double *out)
{
    switch ((fx_op)e->op) {
    case FX_NUM:
    case FX_BOOL: *out = e->num; return MDAE_OK;
    case FX_TIME: *out = at->time; return MDAE_OK;
    case FX_VAR:
        if (at->var == NULL)
            return MDAE_E_INVAL;
        *out = at->var(at->ctx, e->index, e->order);
        return MDAE_OK;
    case FX_KNOWN:
        if (at->known == NULL)
            return MDAE_E_INVAL;
        *out = at->known(at->ctx, e->index);
        return MDAE_OK;
    default: /* FX_MODE */
        if (at->mode == NULL)
            return MDAE_E_INVAL;
        *out = at->mode(at->ctx, e->index) ? 1 : 0;
        return MDAE_OK;
    }
}

static int eval(const fx_node *e, const fx_point *at, double *out)
{
    double v;
    int rc;
    switch ((fx_op)e->op) {
    case FX_NUM: case FX_BOOL: case FX_TIME: case FX_VAR: case FX_KNOWN: case FX_MODE:
        return eval_leaf(e, at, out);
    case FX_NEG:
    case FX_NOT:
        if ((rc = eval(e->kids[0], at, &v)) == MDAE_OK)
            *out = e->op == FX_NEG ? -v : v == 0;
        return rc;
    case FX_ADD: case FX_MUL: case FX_AND: case FX_OR: return eval_nary(e, at, out);
    case FX_IF:
        if ((rc = eval(e->kids[0], at, &v)) != MDAE_OK)
            return rc;
        return eval(e->kids[v != 0 ? 1 : 2], at, out);
    case FX_CALL: return eval_call(e, at, out);
    case FX_DER: return eval_der(e->kids[0], at, out);
    case FX_PRE:
    case FX_LAST:
    case FX_NEXT: return eval(e->kids[0], at, out); /* the same point */
    case FX_OPAQUE: return MDAE_E_NOTIMPL;
    default: return eval_bin(e, at, out); /* / ^ and relations */
    }
}

int fx_eval(const fx_node *e, const fx_point *at, double *out)
{
    if (e == NULL || at == NULL || out == NULL)
        return MDAE_E_INVAL;
    return eval(e, at, out);
}
