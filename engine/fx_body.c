/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/fx_body.c -- an equation's body differentiated c times, as trees
 * and as text (engine/fx_body.h).
 */
#include "fx_body.h"

#include <assert.h>

fx_syntax fx_body_syntax(const mel_model *m)
{
    return m != NULL && m->modelica ? FX_SYNTAX_MODELICA : FX_SYNTAX_MEL;
}

/* The highest derivative order the equation reads (its incidences). */
static uint32_t max_order(const mel_equation *eq)
{
    uint32_t top = 0;
    for (uint32_t i = 0; i < eq->n_incs; i++)
        for (uint32_t k = 0; k < eq->incs[i].n_cases; k++)
            if (eq->incs[i].cases[k].order > 0 && (uint32_t)eq->incs[i].cases[k].order > top)
                top = (uint32_t)eq->incs[i].cases[k].order;
    return top;
}

/* e differentiated c times, one order at a time so that a size past
 * FX_BODY_MAX_NODES stops it before the next order multiplies it. */
static int side(fx_pool *p, const fx_node *e, unsigned c, const fx_node **out)
{
    const fx_node *d = fx_fold(p, e);
    for (unsigned k = 0; d != NULL && k < c; k++) {
        if (fx_size(d) > FX_BODY_MAX_NODES)
            return MDAE_E_LIMIT;
        int err = MDAE_OK;
        d = fx_dt(p, d, 1, &err);
        if (d == NULL && err < 0 && err != MDAE_E_NOMEM)
            return err;
    }
    if (d == NULL)
        return MDAE_E_NOMEM;
    if (fx_size(d) > FX_BODY_MAX_NODES)
        return MDAE_E_LIMIT;
    *out = d;
    return MDAE_OK;
}

int fx_body_sides(const mel_model *m, uint32_t eq, unsigned c, fx_pool *p, const fx_node **lhs,
                  const fx_node **rhs)
{
    if (m == NULL || p == NULL || lhs == NULL || rhs == NULL || eq >= m->n_equations)
        return MDAE_E_INVAL;
    *lhs = *rhs = NULL;
    const mel_equation *e = &m->equations[eq];
    if (e->lhs == NULL || e->rhs == NULL)
        return MDAE_OK; /* expressions not kept */
    if (c > MEL_MAX_ORDER || max_order(e) > MEL_MAX_ORDER - c)
        return MDAE_E_LIMIT; /* a derivative order no FX_VAR holds */
    const fx_node *l = NULL, *r = NULL;
    int rc = side(p, e->lhs, c, &l);
    if (rc == MDAE_OK)
        rc = side(p, e->rhs, c, &r);
    if (rc < 0)
        return fx_pool_failed(p) ? MDAE_E_NOMEM : rc;
    *lhs = l;
    *rhs = r;
    return MDAE_OK;
}

int fx_body_format(const mel_model *m, uint32_t eq, unsigned c, char **out)
{
    if (out == NULL)
        return MDAE_E_INVAL;
    *out = NULL;
    fx_pool *p = fx_pool_new();
    if (p == NULL)
        return MDAE_E_NOMEM;
    const fx_node *l = NULL, *r = NULL;
    int rc = fx_body_sides(m, eq, c, p, &l, &r);
    if (rc == MDAE_OK && l != NULL) {
        assert(r != NULL);
        fx_syntax syn = fx_body_syntax(m);
        mdae_buf b = {0};
        fx_print_lhs(&b, m, l, syn, NULL);
        mdae_buf_puts(&b, " = ");
        fx_print(&b, m, r, syn);
        if (b.oom || b.p == NULL) {
            mdae_free(b.p);
            rc = MDAE_E_NOMEM;
        } else {
            *out = b.p;
        }
    }
    fx_pool_free(p);
    return rc;
}
