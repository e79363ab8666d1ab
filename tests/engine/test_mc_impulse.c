/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mc_impulse.c -- the impulse analysis of restart
 * instants and the standard meaning of their values (engine/mc_impulse.c,
 * issue 41 items 1 and 6), on the papers' systems: RR-9459 (24)-(26) and
 * (40) on the Cup-and-Ball's second-order form (22), its (30) and (34)
 * (positions continuous, velocities reset), the clutch's (14) and (18),
 * a second-order ground contact, and (37)-(39) at the elastic impact.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mc.h"
#include "mdae.h"
#include "mel.h"

#include "mc_test.h"
#include "model_files.h"

/* The entry of list v (n entries) for var@shift at instant r, or NULL. */
static const mc_impulse *value_of(const mel_model *m, const mc_impulse *v, size_t n,
                                  const char *var, int shift, uint32_t r)
{
    for (size_t k = 0; k < n; k++)
        if (v[k].r == r && v[k].shift == shift && strcmp(m->variables[v[k].var].name, var) == 0)
            return &v[k];
    return NULL;
}

static const mc_residual *residual_of(const mel_model *m, const mc_result *res, const char *eq,
                                      int shift, uint32_t r)
{
    for (size_t k = 0; k < res->n_residuals; k++) {
        const mc_residual *x = &res->residuals[k];
        if (x->r == r && x->shift == shift && strcmp(m->equations[x->eq].name, eq) == 0)
            return x;
    }
    return NULL;
}

/* The standard meaning of var@shift at level in instant r: '-', '+' or 0. */
static char side_of(const mel_model *m, const mc_result *res, const char *var, int shift,
                    int level, uint32_t r)
{
    for (size_t k = 0; k < res->n_standard; k++) {
        const mc_standard *x = &res->standard[k];
        if (x->r == r && x->shift == shift && x->level == level &&
            strcmp(m->variables[x->var].name, var) == 0)
            return x->side == MC_SIDE_PLUS ? '+' : '-';
    }
    return 0;
}

/* The restart relation of instant r made of equations `from` (as EQS). */
static const mc_reset *reset_of(const mel_model *m, const mc_result *res, uint32_t r,
                                const char *from)
{
    for (size_t k = 0; k < res->n_resets; k++)
        if (res->resets[k].r == r && strcmp(EQS(m, &res->resets[k].from), from) == 0)
            return &res->resets[k];
    return NULL;
}

static bool has_note(const mc_result *r, const char *part)
{
    for (size_t k = 0; k < r->diags.count; k++)
        if (strstr(r->diags.items[k].message, part) != NULL)
            return true;
    return false;
}

/* RR-9459 (24), (40): at the first instant of gamma: F -> T of model (22),
 * [lambda] = [s] <= 1 and the other values, x.^2 and y.^2, of order 0;
 * (25): "handled similarly, with the same conclusion". The analysis used
 * to find no assignment at instant 0 (issue 41). */
Test(mc_impulse, cup_and_ball_22_tension_at_both_instants)
{
    mel_model *m = load("cup_and_ball_22.mel");
    mc_result *r = change1(m, false, true);
    cr_assert_eq(r->status, MC_RESET);
    cr_assert_eq(r->n_instants, 2);
    cr_assert_not(has_note(r, "found no assignment"));
    for (uint32_t k = 0; k < 2; k++) {
        const mc_impulse *l = value_of(m, r->impulsive, r->n_impulsive, "lambda", 0, k);
        const mc_impulse *s = value_of(m, r->impulsive, r->n_impulsive, "s", 0, k);
        cr_assert_not_null(l, "instant %u", k);
        cr_assert_not_null(s, "instant %u", k);
        cr_assert_eq(l->hi, 1);
        cr_assert_eq(s->hi, 1);
        cr_assert_str_eq(VARS(m, &l->equal), "s"); /* (40): [lambda] = [s] */
        cr_assert_str_eq(VARS(m, &s->equal), "lambda");
        for (int v = 0; v < 2; v++) {
            const mc_impulse *x =
                value_of(m, r->finite, r->n_finite, v ? "y" : "x", 2, k);
            cr_assert_not_null(x);
            cr_assert_eq(x->lo, 0, "order 0 exactly");
            cr_assert_eq(x->hi, 0);
        }
    }
    cr_assert_eq(r->n_impulsive, 4);
    mc_result_free(r);
    mel_model_free(m);
}

/* RR-9459 (26): at instant 0, lambda and s eliminated from e1, e2, k2 (one
 * relation: 0 = y''x + gx - x''y, among x, x., x.^2, y, y., y.^2 by (20)),
 * and k1.^2 (0 = L^2 - (x^2 + y^2).^2) as it is; (27) at instant 1. */
Test(mc_impulse, cup_and_ball_22_restart_code_26)
{
    mel_model *m = load("cup_and_ball_22.mel");
    mc_result *r = change1(m, false, true);
    for (uint32_t k = 0; k < 2; k++) {
        const mc_reset *e = reset_of(m, r, k, "e1,e2,k2");
        cr_assert_not_null(e, "instant %u", k);
        cr_assert_str_eq(VARS(m, &e->eliminate), "lambda,s");
        cr_assert_eq(e->relations, 1);
        cr_assert_str_eq(VARS(m, &e->among), "x,x.1,x.2,y,y.1,y.2");
        const mc_reset *c = reset_of(m, r, k, "k1.2");
        cr_assert_not_null(c);
        cr_assert_eq(c->eliminate.n, 0);
        cr_assert_str_eq(VARS(m, &c->among), "x.2,y.2");
    }
    cr_assert_eq(r->n_resets, 4);
    mc_result_free(r);
    mel_model_free(m);
}

/* RR-9459 (30), (34)-(35): k1 and k1. cannot hold with a finite nonzero
 * residual when positions and velocities are finite: the rope is straight
 * at the change (infinitesimal residuals), the positions continuous;
 * instant 0 sets the positions (x, x. -> x-, x.^2 -> x+), instant 1 the
 * velocities (x' -> x'-, x'. -> x'+, x. -> x+). */
Test(mc_impulse, cup_and_ball_22_positions_continuous_velocities_reset)
{
    mel_model *m = load("cup_and_ball_22.mel");
    mc_result *r = change1(m, false, true);
    const mc_residual *k10 = residual_of(m, r, "k1", 0, 0);
    const mc_residual *k11 = residual_of(m, r, "k1", 1, 0);
    const mc_residual *k1r1 = residual_of(m, r, "k1", 0, 1);
    cr_assert(k10 && k11 && k1r1);
    cr_assert_leq(k10->hi, -1);
    cr_assert_leq(k11->hi, -1);
    cr_assert_leq(k1r1->hi, -1);
    cr_assert_eq(r->n_residuals, 3);
    /* (30) */
    cr_assert_eq(side_of(m, r, "x", 0, 0, 0), '-');
    cr_assert_eq(side_of(m, r, "x", 1, 0, 0), '-');
    cr_assert_eq(side_of(m, r, "x", 2, 0, 0), '+');
    cr_assert_eq(side_of(m, r, "y", 2, 0, 0), '+');
    cr_assert_eq(side_of(m, r, "x", 0, 1, 0), 0, "instant 0 sets no velocity");
    /* (34) */
    cr_assert_eq(side_of(m, r, "x", 0, 0, 1), '-');
    cr_assert_eq(side_of(m, r, "x", 1, 0, 1), '+');
    cr_assert_eq(side_of(m, r, "x", 0, 1, 1), '-');
    cr_assert_eq(side_of(m, r, "x", 1, 1, 1), '+');
    cr_assert_eq(side_of(m, r, "y", 1, 1, 1), '+');
    cr_assert_eq(side_of(m, r, "lambda", 0, 0, 0), 0, "no standard tension");
    mc_result_free(r);
    mel_model_free(m);
}

/* RR-8933 A.1-A.2, RR-9459 (18): engaging, the residual w1 - w2 is finite
 * and nonzero (the prior (51)), the torques impulsive of order exactly 1
 * and equal in order; w1, w2 -> w-, w1., w2. -> w+. */
Test(mc_impulse, clutch_residual_and_torques)
{
    mel_model *m = load("clutch.mel");
    mc_result *r = change1(m, false, true);
    const mc_residual *e3 = residual_of(m, r, "e3", 0, 0);
    cr_assert_not_null(e3);
    cr_assert_eq(e3->lo, 0);
    cr_assert_eq(e3->hi, 0);
    const mc_impulse *t1 = value_of(m, r->impulsive, r->n_impulsive, "tau1", 0, 0);
    cr_assert_not_null(t1);
    cr_assert_eq(t1->lo, 1);
    cr_assert_str_eq(VARS(m, &t1->equal), "tau2");
    const mc_impulse *w = value_of(m, r->finite, r->n_finite, "w1", 1, 0);
    cr_assert_not_null(w);
    cr_assert_leq(w->hi, 0);
    cr_assert_eq(side_of(m, r, "w1", 0, 0, 0), '-');
    cr_assert_eq(side_of(m, r, "w1", 1, 0, 0), '+');
    cr_assert_eq(side_of(m, r, "w2", 1, 0, 0), '+');
    cr_assert_eq(r->n_standard, 4);
    mc_result_free(r);
    /* released: continuous, nothing to standardise */
    r = change1(m, true, false);
    cr_assert_eq(r->n_standard + r->n_residuals + r->n_finite, 0);
    mc_result_free(r);
    mel_model_free(m);
}

/* A second-order contact (issue 41 item 1): the height continuous (the
 * residuals of k1 infinitesimal), identically 0 after (k1.^2), the
 * velocity set at instant 1, the contact force of order <= 1, [lambda] =
 * [s]. This used to find no assignment at both instants. */
Test(mc_impulse, ground_contact_second_order)
{
    mel_model *m = load("ground_contact.mel");
    mc_result *r = change1(m, false, true);
    cr_assert_eq(r->status, MC_RESET);
    cr_assert_eq(r->n_instants, 2);
    cr_assert_not(has_note(r, "found no assignment"));
    for (uint32_t k = 0; k < 2; k++) {
        const mc_impulse *l = value_of(m, r->impulsive, r->n_impulsive, "lambda", 0, k);
        cr_assert_not_null(l);
        cr_assert_eq(l->hi, 1);
        cr_assert_str_eq(VARS(m, &l->equal), "s");
        const mc_impulse *y = value_of(m, r->finite, r->n_finite, "y", 2, k);
        cr_assert_not_null(y);
        cr_assert_eq(y->hi, MC_ORDER_NEG_INF, "y.^2 = 0 exactly");
        const mc_residual *k1 = residual_of(m, r, "k1", 0, k);
        cr_assert_not_null(k1);
        cr_assert_leq(k1->hi, -1);
    }
    cr_assert_eq(side_of(m, r, "y", 2, 0, 0), '+');
    cr_assert_eq(side_of(m, r, "y", 1, 1, 1), '+');
    mc_result_free(r);
    mel_model_free(m);
}

/* RR-9459 (37)-(39) at the elastic impact (the transient mode gamma = T
 * with the impact law tau1): (39) x'. - x' + dt lambda x = 0 bounds
 * [lambda] <= 1; k2 gives [lambda] = [s]. The event is the only instant:
 * its values after it are the restart values (issue 41 item 6, S4). */
Test(mc_impulse, elastic_impact_37_to_39)
{
    mel_model *m = load("cup_and_ball_elastic_impact.mel");
    mc_result *r = change1(m, false, true);
    cr_assert_eq(r->status, MC_RESET);
    const mc_impulse *l = value_of(m, r->impulsive, r->n_impulsive, "lambda", 0, 0);
    cr_assert_not_null(l);
    cr_assert_eq(l->hi, 1);
    cr_assert_str_eq(VARS(m, &l->equal), "s");
    cr_assert_eq(side_of(m, r, "v", 0, 0, 0), '-');
    cr_assert_eq(side_of(m, r, "v", 1, 0, 0), '+');
    mc_result_free(r);
    mel_model_free(m);
}

/* RR-9459 (37)-(39) in the paper's own second-order form: at the event
 * (the transient straight-rope mode), e1, e2, k2 and the impact law tau1
 * over x.^2, y.^2, lambda, s; the velocity jumps by the impact law, so
 * lambda is impulsive of order exactly 1 ((39): x'. - x' + dt lambda x =
 * 0 with a finite nonzero jump), [lambda] = [s]; x.^2, y.^2 of order 0. */
Test(mc_impulse, paper_system_37_impact)
{
    mel_model *m = load("cup_and_ball_37.mel");
    mc_result *r = change1(m, false, true);
    cr_assert_eq(r->status, MC_RESET);
    cr_assert_not_null(r->transient);
    cr_assert_str_eq(EQS(m, &r->instants[0].equations), "e1,e2,k2,tau1");
    const mc_impulse *l = value_of(m, r->impulsive, r->n_impulsive, "lambda", 0, 0);
    cr_assert_not_null(l);
    cr_assert_eq(l->lo, 1);
    cr_assert_eq(l->hi, 1);
    cr_assert_str_eq(VARS(m, &l->equal), "s");
    cr_assert_eq(value_of(m, r->finite, r->n_finite, "y", 2, 0)->hi, 0);
    const mc_reset *e = reset_of(m, r, 0, "e1,e2,k2");
    cr_assert_not_null(e);
    cr_assert_str_eq(VARS(m, &e->eliminate), "lambda,s");
    cr_assert_eq(e->relations, 1);
    mc_result_free(r);
    mel_model_free(m);
}

/* Allocation failures in the analysis of both instants, with equalities,
 * residuals and standard meanings: MDAE_E_NOMEM, nothing leaked. */
Test(mc_impulse, out_of_memory)
{
    bool f[1] = {false}, t[1] = {true};
    oom_change("cup_and_ball_22.mel", f, t);
    oom_change("ground_contact.mel", f, t);
}

/* The kept equation eq@shift of instant r as dt -> 0 (its text, or NULL). */
static const mc_std_equation *std_of(const mel_model *m, const mc_result *res, const char *eq,
                                     int shift, uint32_t r)
{
    for (size_t k = 0; k < res->n_std_equations; k++) {
        const mc_std_equation *x = &res->std_equations[k];
        if (x->r == r && x->shift == shift && strcmp(m->equations[x->eq].name, eq) == 0)
            return x;
    }
    cr_assert_fail("no standard equation %s@%d at instant %u", eq, shift, r);
    return NULL;
}

static void expect_std(const mel_model *m, const mc_result *res, const char *eq, int shift,
                       uint32_t r, int derivative, const char *text)
{
    const mc_std_equation *x = std_of(m, res, eq, shift, r);
    cr_assert_not_null(x->text, "%s@%d, instant %u: %s", eq, shift, r, x->why);
    cr_assert_str_eq(x->text, text, "%s@%d, instant %u", eq, shift, r);
    cr_assert_eq(x->derivative, derivative, "%s@%d, instant %u", eq, shift, r);
}

/* RR-9459 (43) at instant 1 (lambda rescaled by its order, dt*lambda; the
 * shifted constraint k1.^2 read as der(k1) at shift 1, (32)); at instant
 * 0 the positions are continuous ((30)) and on the rope. */
Test(mc_impulse, cup_and_ball_22_standardised_system_43)
{
    mel_model *m = load("cup_and_ball_22.mel");
    mc_result *r = change1(m, false, true);
    expect_std(m, r, "e1", 0, 1, 0, "(x'\u207a - x'\u207b) + (dt*lambda)*x\u207b = 0");
    expect_std(m, r, "e2", 0, 1, 0, "(y'\u207a - y'\u207b) + (dt*lambda)*y\u207b = 0");
    expect_std(m, r, "k1", 2, 1, 1,
               "0 = -2*x\u207a*x'\u207a - 2*y\u207a*y'\u207a");
    expect_std(m, r, "k2", 0, 1, 0, "0 = (dt*lambda) + (dt*s)");
    expect_std(m, r, "e1", 0, 0, 0, "(x\u207a - x\u207b) = 0");
    expect_std(m, r, "e2", 0, 0, 0, "(y\u207a - y\u207b) = 0");
    expect_std(m, r, "k1", 2, 0, 0, "0 = L^2 - (x\u207a^2 + y\u207a^2)");
    cr_assert_eq(r->n_std_equations, 8);
    mc_result_free(r);
    mel_model_free(m);
}

/* RR-8933 A.2 (25), whose elimination of the rescaled torques is RR-9459
 * (18), the weighted mean; with f1(w1, tau1) unknown (clutch.mel) e1 is
 * not read, and says why. */
Test(mc_impulse, clutch_standardised_system_18)
{
    mel_model *m = load("clutch_basic_mo.mel");
    mc_result *r = change1(m, false, true);
    expect_std(m, r, "e1", 0, 0, 0, "j1*(w1\u207a - w1\u207b) = (dt*f1)");
    expect_std(m, r, "e2", 0, 0, 0, "j2*(w2\u207a - w2\u207b) = (dt*f2)");
    expect_std(m, r, "e3", 1, 0, 0, "0 = w1\u207a - w2\u207a");
    expect_std(m, r, "e4", 0, 0, 0, "(dt*f1) + (dt*f2) = 0");
    mc_result_free(r);
    mel_model_free(m);
    m = load("clutch.mel");
    r = change1(m, false, true);
    const mc_std_equation *e1 = std_of(m, r, "e1", 0, 0);
    cr_assert_null(e1->text);
    cr_assert_str_eq(e1->why, "a function of an impulsive value");
    expect_std(m, r, "e3", 1, 0, 0, "w1\u207a - w2\u207a = 0");
    mc_result_free(r);
    mel_model_free(m);
}

/* The ground contact: the height continuous and 0 after, the velocity 0
 * after (k1.^2 as der(k1)), the rescaled force from e1. */
Test(mc_impulse, ground_contact_standardised)
{
    mel_model *m = load("ground_contact.mel");
    mc_result *r = change1(m, false, true);
    expect_std(m, r, "e1", 0, 0, 0, "(y\u207a - y\u207b) = 0");
    expect_std(m, r, "k1", 2, 0, 0, "0 = y\u207a");
    expect_std(m, r, "e1", 0, 1, 0, "(y'\u207a - y'\u207b) = (dt*lambda)");
    expect_std(m, r, "k1", 2, 1, 1, "0 = y'\u207a");
    mc_result_free(r);
    mel_model_free(m);
}

/* ---- A numeric check, independent of the engine --------------------------
 * The Cup-and-Ball's restart systems (24) and (25), solved with a real step
 * delta instead of dt (RR-9459 section 6.1.2, "brute force"): x'' =
 * (x.^2 - 2 x. + x)/delta^2, the rope constraint k1.^2 at each instant.
 * The engine says lambda has order <= 1 at both instants, x.^2 order 0,
 * the positions continuous, and the velocities after given by (43), i.e.
 * (35): the tangential part of the velocity before. As delta -> 0,
 * lambda * delta must tend to a finite nonzero value, the positions to
 * x-, (x.^3 - x.^2)/delta to the projection of v- on the tangent. */

/* One instant: X_next = 2 X - X_prev - delta^2 (lambda X_prev + (0, g)),
 * |X_next| = L; returns lambda (the root nearest 0 of a quadratic). */
static double cup_instant(const double *prev, const double *cur, double delta, double *next)
{
    const double g = 9.81, L = 1.0, d2 = delta * delta;
    double a[2] = {2 * cur[0] - prev[0], 2 * cur[1] - prev[1] - d2 * g};
    /* next = a - mu * prev, |next|^2 = L^2, mu = d2 * lambda */
    double qa = prev[0] * prev[0] + prev[1] * prev[1];
    double qb = -2 * (a[0] * prev[0] + a[1] * prev[1]);
    double qc = a[0] * a[0] + a[1] * a[1] - L * L;
    double disc = qb * qb - 4 * qa * qc;
    cr_assert_geq(disc, 0);
    double r1 = (-qb + sqrt(disc)) / (2 * qa), r2 = (-qb - sqrt(disc)) / (2 * qa);
    double mu = fabs(r1) < fabs(r2) ? r1 : r2;
    next[0] = a[0] - mu * prev[0];
    next[1] = a[1] - mu * prev[1];
    return mu / d2;
}

Test(mc_impulse, numeric_restart_agrees_with_the_orders)
{
    /* the engine's side of the agreement */
    mel_model *m = load("cup_and_ball_22.mel");
    mc_result *r = change1(m, false, true);
    for (uint32_t k = 0; k < 2; k++)
        cr_assert_eq(value_of(m, r->impulsive, r->n_impulsive, "lambda", 0, k)->hi, 1);
    cr_assert_eq(value_of(m, r->finite, r->n_finite, "x", 2, 0)->hi, 0);
    mc_result_free(r);
    mel_model_free(m);
    /* the rope becomes straight at x- = (0.6, -0.8), v- = (0.5, -2) (outward) */
    const double x0[2] = {0.6, -0.8}, v[2] = {0.5, -2.0};
    double vn = v[0] * x0[0] + v[1] * x0[1];
    double vt[2] = {v[0] - vn * x0[0], v[1] - vn * x0[1]}; /* (35) */
    double lam_prev[2] = {0, 0}, err_prev = 1e9;
    for (int e = 3; e <= 6; e++) {
        double delta = pow(10, -e);
        double x1[2] = {x0[0] + delta * v[0], x0[1] + delta * v[1]}, x2[2], x3[2];
        double l0 = cup_instant(x0, x1, delta, x2); /* (24) */
        double l1 = cup_instant(x1, x2, delta, x3); /* (25) */
        double vp[2] = {(x3[0] - x2[0]) / delta, (x3[1] - x2[1]) / delta};
        double err = hypot(vp[0] - vt[0], vp[1] - vt[1]);
        double lam[2] = {l0 * delta, l1 * delta};
        cr_log_info("delta 1e-%d: lambda*delta %g, %g; |x.^2 - x-| %g; |v+ - (35)| %g", e,
                    lam[0], lam[1], hypot(x2[0] - x0[0], x2[1] - x0[1]), err);
        cr_assert_lt(hypot(x2[0] - x0[0], x2[1] - x0[1]), 10 * delta, "positions continuous");
        cr_assert_lt(err, err_prev, "the velocity after converges to (35)");
        for (int k = 0; k < 2; k++) {
            cr_assert_gt(fabs(lam[k]), 0.1, "lambda of order 1, not less");
            if (e > 3) /* order 1, not more: lambda * delta settles */
                cr_assert_lt(fabs(lam[k] - lam_prev[k]), 0.05 * fabs(lam[k]));
            lam_prev[k] = lam[k];
        }
        err_prev = err;
    }
    cr_assert_lt(err_prev, 1e-3);
}
