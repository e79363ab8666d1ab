/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_check.c -- sa_check's first try: the consistency check without
 * the analysis's encoding (issue 40 item 5: an editor's every load).
 *
 * What sa_check decides is a property of guards alone: every case of an
 * incidence holds only where its variable exists (chi_E => chi_J, RR-9322
 * section 4.3), and the invariants leave a valid mode (chi_M not false).
 * Both are functions of the mode variables, whichever BDD variable stands
 * for each: so they are decided here with mode variable k at BDD variable
 * k, without the analysis's layout, rows, sigma or edge variables. The
 * brake at N = 10,000 (110,003 variables, 340,004 incidences, every
 * variable of every mode) is checked in milliseconds where the encoding
 * took 0.1 s in a warm process. When the model is not consistent, or
 * chi_M is false, or BuDDy fails, sa_check runs the full check
 * (sa_analyze.c), whose diagnostics print their sets in the analysis's
 * layout, as before: the light check decides only that there is nothing
 * to say.
 *
 * Promises: no diagnostics, no I/O; needs sa_begin(); the BDD nodes it
 * makes are released before it returns.
 */
#include "sa_int.h"

#include <string.h>

#define T(f) sa__tmp(c, (f))

/* Whether some case of an incidence holds where its variable does not
 * exist; chi_j: each variable's guard as a BDD. */
static bool some_case_outside(sa_ctx *c, sa__gmemo *gm, const mel_model *m, const BDD *chi_j)
{
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const mel_equation *eq = &m->equations[i];
        for (uint32_t k = 0; k < eq->n_incs; k++) {
            const mel_incidence *inc = &eq->incs[k];
            if (chi_j[inc->var] == bddtrue)
                continue; /* a variable of every mode */
            for (uint32_t q = 0; q < inc->n_cases; q++) {
                /* memoised guards live in slots: mark after computing it */
                BDD gq = sa__guard_bdd(c, gm, inc->cases[q].guard);
                size_t mark = sa__mark(c);
                bool bad = T(sa__diff(gq, chi_j[inc->var])) != bddfalse;
                sa__release(c, mark);
                if (bad)
                    return true;
            }
        }
    }
    return false;
}

/* Whether every variable exists in every mode (its guard the constant
 * true, whose BDD is bddtrue): then no case can lie outside its variable,
 * and the pass over every incidence (and the BDD of each variable's
 * guard) is not needed (the brake at N = 10,000: 340,004 incidences). */
static bool every_variable_unconditional(const mel_model *m)
{
    for (uint32_t j = 0; j < m->n_variables; j++)
        if (m->variables[j].guard->op != MEL_G_TRUE)
            return false;
    return true;
}

/* chi_M is not false and no case lies outside its variable (c entered). */
static bool consistent(sa_ctx *c, const mel_model *m)
{
    sa_result *r = c->r;
    r->m = m;
    r->n_modes = m->n_modes;
    r->mode_var = sa__alloc(c, ((size_t)m->n_modes + 1) * sizeof *r->mode_var);
    for (uint32_t k = 0; k < m->n_modes; k++)
        r->mode_var[k] = (int)k;
    sa__need_vars(c, (int)m->n_modes);
    sa__gmemo gm;
    memset(&gm, 0, sizeof gm);
    BDD *chi_m = sa__slots(c, 1);
    sa__put(chi_m, bddtrue);
    for (uint32_t k = 0; k < m->n_invariants && *chi_m != bddfalse; k++)
        sa__put(chi_m, bdd_and(*chi_m, sa__guard_bdd(c, &gm, m->invariants[k].cond)));
    if (*chi_m == bddfalse)
        return false; /* the full check warns */
    if (every_variable_unconditional(m))
        return true; /* chi_j true: no case lies outside its variable */
    BDD *chi_j = sa__slots(c, (size_t)m->n_variables + 1);
    for (uint32_t j = 0; j < m->n_variables; j++)
        sa__put(&chi_j[j], sa__guard_bdd(c, &gm, m->variables[j].guard));
    return !some_case_outside(c, &gm, m, chi_j);
}

bool sa__check_light(const mel_model *m)
{
    sa_ctx *c = mdae_malloc(sizeof *c);
    if (c == NULL)
        return false;
    sa_result r;
    memset(&r, 0, sizeof r);
    sa__ctx_init(c, NULL, NULL);
    c->r = &r;
    volatile bool ok = false; /* set after the last jump could come */
    if (setjmp(c->jb) == 0) {
        sa__enter(c);
        ok = consistent(c, m);
    }
    sa__leave(c); /* the slots, the memo and mode_var (sa__alloc) */
    mdae_free(c);
    return ok;
}
