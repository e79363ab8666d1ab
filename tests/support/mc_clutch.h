/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/mc_clutch.h -- ClutchBasic's restart (RR-9459 (18)) as the
 * mode-change suites check it: the notes' speeds before the clutch closes
 * at t = 5 s, and an eliminated relation (mc_elim.h's encoding: variable v
 * at shift s is v + s * n_variables) evaluated at w1' = (w - w1-)/dt,
 * w2' = (w - w2-)/dt: times dt, it tends to 0 exactly when w is (18)'s
 * restart value. Header-only (static functions); failures fail the test.
 */
#ifndef MC_CLUTCH_H
#define MC_CLUTCH_H

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "fx.h"
#include "mel.h"

/* w1- and w2- at t = 5 s (the notes: w1 = e^(-t/100), w2 = 1.5 e^(-t/160)) */
#define MC_CLUTCH_W1_BEFORE exp(-0.05)
#define MC_CLUTCH_W2_BEFORE (1.5 * exp(-0.03125))

typedef struct mc_clutch_point {
    const mel_model *m;
    double w1m, w2m, w, dt;
} mc_clutch_point;

static inline double mc_clutch_var(void *ctx, uint32_t v, uint32_t o)
{
    const mc_clutch_point *c = ctx;
    const char *name = c->m->variables[v % c->m->n_variables].name;
    double before = strcmp(name, "w1") == 0 ? c->w1m : c->w2m;
    return o == 0 ? before : (c->w - before) / c->dt;
}

static inline double mc_clutch_known(void *ctx, uint32_t k)
{
    const mc_clutch_point *c = ctx;
    return c->m->knowns[k].value;
}

/* dt times the relation of m (ClutchBasic) at both speeds w after the
 * change, from the notes' speeds before it. */
static inline double mc_clutch_relation_dt(const mel_model *m, const fx_node *relation, double w,
                                           double dt)
{
    mc_clutch_point c = {m, MC_CLUTCH_W1_BEFORE, MC_CLUTCH_W2_BEFORE, w, dt};
    fx_point at = {5.0, mc_clutch_var, mc_clutch_known, NULL, NULL, &c};
    double v = NAN;
    cr_assert_eq(fx_eval(relation, &at, &v), MDAE_OK);
    return v * dt;
}

#endif
