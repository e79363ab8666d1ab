/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/fx_check.c -- the incidences an equation's expression
 * implies, compared with the front-end's (fx_check.h).
 */
#include "fx_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fx.h"

/* The walk's state: the model, the mode, and the highest order read of
 * each variable (-1: not read). */
typedef struct reads {
    const mel_model *m;
    const bool *mode;
    int *order;
} reads;

/* A static value: -1 when e depends on something else than modes, known
 * constants and numbers; else 0/1 for conditions, and *num for numbers. */
static int static_value(const reads *r, const fx_node *e, double *num)
{
    double a, b;
    switch ((fx_op)e->op) {
    case FX_NUM:
    case FX_BOOL: *num = e->num; return 1;
    case FX_MODE:
        if (e->index >= r->m->n_modes)
            return -1;
        *num = r->mode[e->index] ? 1 : 0;
        return 1;
    case FX_KNOWN:
        if (e->index >= r->m->n_knowns || !r->m->knowns[e->index].known)
            return -1;
        *num = r->m->knowns[e->index].value;
        return 1;
    case FX_NOT:
        if (static_value(r, e->kids[0], &a) < 0)
            return -1;
        *num = a == 0;
        return 1;
    case FX_AND:
    case FX_OR: {
        bool and = e->op == FX_AND, acc = and;
        for (uint32_t k = 0; k < e->n; k++) {
            if (static_value(r, e->kids[k], &a) < 0)
                return -1;
            acc = and ? acc && a != 0 : acc || a != 0;
        }
        *num = acc;
        return 1;
    }
    case FX_LT: case FX_LE: case FX_GT: case FX_GE: case FX_EQ: case FX_NE:
        if (static_value(r, e->kids[0], &a) < 0 || static_value(r, e->kids[1], &b) < 0)
            return -1;
        *num = e->op == FX_LT ? a < b : e->op == FX_LE ? a <= b : e->op == FX_GT ? a > b
             : e->op == FX_GE ? a >= b : e->op == FX_EQ ? a == b : a != b;
        return 1;
    default: return -1;
    }
}

static void read_var(reads *r, uint32_t var, long order)
{
    if (var >= r->m->n_variables)
        return;
    int o = order > MEL_MAX_ORDER ? MEL_MAX_ORDER : (int)order;
    if (o > r->order[var])
        r->order[var] = o;
}

static void walk(reads *r, const fx_node *e, long shift)
{
    if (e == NULL)
        return;
    switch ((fx_op)e->op) {
    case FX_VAR: read_var(r, e->index, (long)e->order + shift); return;
    case FX_DER:
    case FX_NEXT: walk(r, e->kids[0], shift + 1); return;
    case FX_PRE:
    case FX_LAST: return;
    case FX_IF: {
        double c;
        if (static_value(r, e->kids[0], &c) >= 0) {
            walk(r, e->kids[c != 0 ? 1 : 2], shift);
            return;
        }
        walk(r, e->kids[1], shift);
        walk(r, e->kids[2], shift);
        return;
    }
    default:
        for (uint32_t k = 0; k < e->n; k++)
            walk(r, e->kids[k], shift);
        return;
    }
}

static bool fail(char *why, size_t why_len, const char *fmt, ...)
{
    if (why != NULL && why_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* Compare equation eq's incidences in the mode with r->order (which it
 * resets to -1). */
static bool compare(reads *r, const mel_equation *eq, char *why, size_t why_len)
{
    bool ok = true;
    for (uint32_t i = 0; i < eq->n_incs; i++) {
        const mel_incidence *inc = &eq->incs[i];
        int want = mel_incidence_order(inc, r->mode);
        int got = inc->var < r->m->n_variables ? r->order[inc->var] : -1;
        if (ok && want != got)
            ok = fail(why, why_len,
                      "equation %s, variable %s: the incidence says order %d, the "
                      "expression %d (-1: not read)",
                      eq->name, r->m->variables[inc->var].name, want, got);
        if (inc->var < r->m->n_variables)
            r->order[inc->var] = -1;
    }
    for (uint32_t v = 0; v < r->m->n_variables; v++) {
        if (ok && r->order[v] >= 0)
            ok = fail(why, why_len,
                      "equation %s, variable %s: the expression reads it at order %d, "
                      "there is no incidence",
                      eq->name, r->m->variables[v].name, r->order[v]);
        r->order[v] = -1;
    }
    return ok;
}

bool fx_check_incidences(const mel_model *m, const bool *mode, char *why, size_t why_len)
{
    if (why != NULL && why_len > 0)
        why[0] = '\0';
    reads r = {m, mode, mdae_malloc(((size_t)m->n_variables + 1) * sizeof(int))};
    if (r.order == NULL)
        return fail(why, why_len, "out of memory");
    for (uint32_t v = 0; v < m->n_variables; v++)
        r.order[v] = -1;
    bool ok = true;
    for (uint32_t i = 0; i < m->n_equations && ok; i++) {
        const mel_equation *eq = &m->equations[i];
        if (eq->lhs == NULL || eq->rhs == NULL || !mel_guard_eval(eq->guard, mode))
            continue;
        walk(&r, eq->lhs, 0);
        walk(&r, eq->rhs, 0);
        ok = compare(&r, eq, why, why_len);
    }
    mdae_free(r.order);
    return ok;
}
