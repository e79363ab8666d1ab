/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/model_same.c -- mel_model_same (model_same.h).
 *
 * Names are matched through the models' own lookups (b's index of each of
 * a's names), and expressions compared node by node with b's indices
 * mapped back to a's.
 */
#include "model_same.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fx.h"

typedef struct cmp {
    const mel_model *a, *b;
    uint32_t *var, *known, *mode; /* b's index of a's item k */
    /* a's FX_OPAQUE(text, refs) met as b's call 'text'(refs), how MEL
     * prints what it cannot read (fx_print.c) */
    bool opaque_as_call;
    char *why;
    size_t why_len;
} cmp;

static bool differ(cmp *c, const char *fmt, ...)
{
    if (c->why != NULL && c->why_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->why, c->why_len, fmt, ap);
        va_end(ap);
    }
    return false;
}

static bool guard_same(cmp *c, const mel_guard *ga, const mel_guard *gb, const char *what)
{
    char *fa = mel_guard_format(c->a, ga), *fb = mel_guard_format(c->b, gb);
    bool ok = fa != NULL && fb != NULL && strcmp(fa, fb) == 0;
    if (!ok)
        differ(c, "%s: guard '%s' became '%s'", what, fa ? fa : "(oom)", fb ? fb : "(oom)");
    free(fa);
    free(fb);
    return ok;
}

/* fx_equal, with a's references compared through the name maps; an
 * opaque expression printed as a call (MEL) is noted, not a difference. */
static bool fx_same(cmp *c, const fx_node *x, const fx_node *y)
{
    if (x == NULL || y == NULL)
        return x == y;
    if (x->op == FX_OPAQUE && y->op == FX_CALL && y->fn == FX_FN_UNKNOWN && x->n == y->n &&
        x->name != NULL && y->name != NULL && strcmp(x->name, y->name) == 0) {
        for (uint32_t k = 0; k < x->n; k++)
            if (!fx_same(c, x->kids[k], y->kids[k]))
                return false;
        c->opaque_as_call = true;
        return true;
    }
    if (x->op == FX_OPAQUE && x->n == 0 && y->op == FX_KNOWN && x->name != NULL &&
        y->index < c->b->n_knowns && strcmp(x->name, c->b->knowns[y->index].name) == 0) {
        c->opaque_as_call = true; /* the known's name, read as text */
        return true;
    }
    if (x->op == FX_OPAQUE && x->n == 0 && y->op == FX_PRE && y->kids[0]->op == FX_VAR &&
        x->name != NULL && y->kids[0]->index < c->b->n_variables &&
        strcmp(x->name, c->b->variables[y->kids[0]->index].name) == 0) {
        c->opaque_as_call = true; /* an unknown's name read as text: pre(x) in MEL */
        return true;
    }
    if (x->op != y->op || x->n != y->n || x->fn != y->fn || x->order != y->order)
        return false;
    switch ((fx_op)x->op) {
    case FX_VAR:
        if (x->index >= c->a->n_variables || c->var[x->index] != y->index)
            return false;
        break;
    case FX_KNOWN:
        if (x->index >= c->a->n_knowns || c->known[x->index] != y->index)
            return false;
        break;
    case FX_MODE:
        if (x->index >= c->a->n_modes || c->mode[x->index] != y->index)
            return false;
        break;
    case FX_NUM:
    case FX_BOOL:
        if (memcmp(&x->num, &y->num, sizeof x->num) != 0)
            return false;
        break;
    default:
        if (x->index != y->index)
            return false;
    }
    if ((x->name == NULL) != (y->name == NULL) ||
        (x->name != NULL && strcmp(x->name, y->name) != 0))
        return false;
    for (uint32_t k = 0; k < x->n; k++)
        if (!fx_same(c, x->kids[k], y->kids[k]))
            return false;
    return true;
}

static bool expr_same(cmp *c, const fx_node *x, const fx_node *y, const char *what)
{
    if (fx_same(c, x, y))
        return true;
    char *sx = x ? fx_format(c->a, x, FX_SYNTAX_MEL) : NULL;
    char *sy = y ? fx_format(c->b, y, FX_SYNTAX_MEL) : NULL;
    differ(c, "%s: '%s' became '%s'", what, sx ? sx : "(none)", sy ? sy : "(none)");
    free(sx);
    free(sy);
    return false;
}

static bool map_names(cmp *c)
{
    const mel_model *a = c->a, *b = c->b;
    if (a->n_variables != b->n_variables || a->n_modes != b->n_modes ||
        a->n_knowns != b->n_knowns)
        return differ(c, "counts: %u unknowns, %u modes, %u knowns became %u, %u, %u",
                      a->n_variables, a->n_modes, a->n_knowns, b->n_variables, b->n_modes,
                      b->n_knowns);
    for (uint32_t k = 0; k < a->n_variables; k++) {
        long j = mel_model_find_variable(b, a->variables[k].name);
        if (j < 0)
            return differ(c, "unknown '%s' is missing", a->variables[k].name);
        c->var[k] = (uint32_t)j;
    }
    for (uint32_t k = 0; k < a->n_modes; k++) {
        long j = mel_model_find_mode(b, a->modes[k].name);
        if (j < 0)
            return differ(c, "mode variable '%s' is missing", a->modes[k].name);
        c->mode[k] = (uint32_t)j;
    }
    for (uint32_t k = 0; k < a->n_knowns; k++) {
        long j = mel_model_find_known(b, a->knowns[k].name);
        if (j < 0)
            return differ(c, "known '%s' is missing", a->knowns[k].name);
        c->known[k] = (uint32_t)j;
    }
    return true;
}

static bool declarations_same(cmp *c)
{
    const mel_model *a = c->a, *b = c->b;
    char what[300];
    for (uint32_t k = 0; k < a->n_variables; k++) {
        snprintf(what, sizeof what, "unknown '%s'", a->variables[k].name);
        if (!guard_same(c, a->variables[k].guard, b->variables[c->var[k]].guard, what))
            return false;
    }
    for (uint32_t k = 0; k < a->n_modes; k++) {
        snprintf(what, sizeof what, "definition of '%s'", a->modes[k].name);
        if (!expr_same(c, a->modes[k].def, b->modes[c->mode[k]].def, what))
            return false;
    }
    for (uint32_t k = 0; k < a->n_knowns; k++) {
        const mel_known *x = &a->knowns[k], *y = &b->knowns[c->known[k]];
        if (x->kind != y->kind)
            return differ(c, "known '%s': kind %d became %d", x->name, x->kind, y->kind);
        if (x->known != y->known || (x->known && memcmp(&x->value, &y->value, sizeof x->value)))
            return differ(c, "known '%s': value %.17g (%s) became %.17g (%s)", x->name,
                          x->value, x->known ? "known" : "unknown", y->value,
                          y->known ? "known" : "unknown");
        if (x->binding == NULL && y->binding != NULL)
            return differ(c, "known '%s' has no binding, which MEL requires", x->name);
        snprintf(what, sizeof what, "binding of '%s'", x->name);
        if (!expr_same(c, x->binding, y->binding, what))
            return false;
    }
    return true;
}

static bool invariants_same(cmp *c)
{
    const mel_model *a = c->a, *b = c->b;
    if (a->n_invariants != b->n_invariants || a->n_whens != b->n_whens)
        return differ(c, "%u invariants, %u whens became %u, %u", a->n_invariants,
                      a->n_whens, b->n_invariants, b->n_whens);
    char what[64];
    for (uint32_t k = 0; k < a->n_invariants; k++) {
        snprintf(what, sizeof what, "invariant %u", k + 1);
        if (a->invariants[k].when != b->invariants[k].when)
            return differ(c, "%s: of when %u, became of %u", what, a->invariants[k].when,
                          b->invariants[k].when);
        if (!guard_same(c, a->invariants[k].cond, b->invariants[k].cond, what))
            return false;
    }
    for (uint32_t k = 0; k < a->n_whens; k++) {
        snprintf(what, sizeof what, "when-clause %u", k + 1);
        if (!guard_same(c, a->whens[k].cond, b->whens[k].cond, what))
            return false;
    }
    return true;
}

/* The cases that can count: those up to the first whose guard is TRUE
 * (a lower order under it never is the highest; the Modelica front-end
 * keeps them, MEL's drops them). */
static uint32_t live_cases(const mel_incidence *inc)
{
    for (uint32_t k = 0; k < inc->n_cases; k++)
        if (inc->cases[k].guard->op == MEL_G_TRUE)
            return k + 1;
    return inc->n_cases;
}

static bool incidence_same(cmp *c, const mel_equation *x, const mel_equation *y,
                           const mel_incidence *ia)
{
    const char *v = c->a->variables[ia->var].name;
    const mel_incidence *ib = NULL;
    for (uint32_t j = 0; j < y->n_incs && ib == NULL; j++)
        if (y->incs[j].var == c->var[ia->var])
            ib = &y->incs[j];
    if (ib == NULL)
        return differ(c, "equation '%s' no longer reads '%s'", x->name, v);
    uint32_t na = live_cases(ia), nb = live_cases(ib);
    if (na != nb)
        return differ(c, "equation '%s', '%s': %u cases became %u", x->name, v, na, nb);
    char what[400];
    for (uint32_t k = 0; k < na; k++) {
        const mel_order_case *p = &ia->cases[k], *q = &ib->cases[k];
        if (p->order != q->order || p->next != q->next)
            return differ(c, "equation '%s', '%s': order %d (next %d) became %d (next %d)",
                          x->name, v, p->order, p->next, q->order, q->next);
        snprintf(what, sizeof what, "equation '%s', '%s' at order %d", x->name, v, p->order);
        if (!guard_same(c, p->guard, q->guard, what))
            return false;
    }
    return true;
}

static bool equations_same(cmp *c)
{
    const mel_model *a = c->a, *b = c->b;
    if (a->n_equations != b->n_equations)
        return differ(c, "%u equations became %u", a->n_equations, b->n_equations);
    char what[300];
    for (uint32_t k = 0; k < a->n_equations; k++) {
        const mel_equation *x = &a->equations[k], *y = &b->equations[k];
        if (strcmp(x->name, y->name) != 0)
            return differ(c, "equation %u: '%s' became '%s'", k + 1, x->name, y->name);
        snprintf(what, sizeof what, "equation '%s'", x->name);
        if (x->when != y->when)
            return differ(c, "%s: when %u became %u", what, x->when, y->when);
        if (x->cond != y->cond || x->cond_pos != y->cond_pos)
            return differ(c, "%s: conditional %u position %u became %u, %u", what, x->cond,
                          x->cond_pos, y->cond, y->cond_pos);
        if (!guard_same(c, x->guard, y->guard, what))
            return false;
        if (x->n_incs != y->n_incs)
            return differ(c, "%s: %u incidences became %u", what, x->n_incs, y->n_incs);
        for (uint32_t j = 0; j < x->n_incs; j++)
            if (!incidence_same(c, x, y, &x->incs[j]))
                return false;
        snprintf(what, sizeof what, "equation '%s', left side", x->name);
        if (!expr_same(c, x->lhs, y->lhs, what))
            return false;
        snprintf(what, sizeof what, "equation '%s', right side", x->name);
        if (!expr_same(c, x->rhs, y->rhs, what))
            return false;
    }
    return true;
}

bool mel_model_same(const mel_model *a, const mel_model *b, char *why, size_t why_len)
{
    cmp c = {.a = a, .b = b, .why = why, .why_len = why_len};
    if (why != NULL && why_len > 0)
        why[0] = '\0';
    c.var = calloc((size_t)a->n_variables + 1, sizeof *c.var);
    c.known = calloc((size_t)a->n_knowns + 1, sizeof *c.known);
    c.mode = calloc((size_t)a->n_modes + 1, sizeof *c.mode);
    bool same = c.var != NULL && c.known != NULL && c.mode != NULL
                    ? map_names(&c) && declarations_same(&c) && invariants_same(&c) &&
                          equations_same(&c)
                    : differ(&c, "out of memory");
    if (same && c.opaque_as_call)
        same = differ(&c, "the same but for expressions kept as text (FX_OPAQUE), read back "
                          "as uninterpreted calls");
    free(c.var);
    free(c.known);
    free(c.mode);
    return same;
}
