/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mc_transient.c -- transient modes (issue 13 item 5;
 * RR-9459 sections 5.2.3-5.2.4; engine/mc_transient.c): MEL `when` and
 * `next`, Modelica when/reinit, the difference array of the event, on the
 * elastic Cup-and-Ball (rejected without an impact law, accepted with one),
 * its MEL and Modelica twins, a model that needs A_1, bad requests, located
 * parse errors, allocation failures; the brute-force comparison of the
 * event on random models with when-clauses is in test_mc_vs_ref.c.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "mc.h"
#include "mdae.h"
#include "mel.h"
#include "mo.h"
#include "ref.h"

#include "fail_alloc.h"
#include "mel_test_util.h"
#include "mc_test.h"
#include "model_files.h"

/* A diagnostic of this severity at line:col containing msg? */
static bool has_diag(const mdae_diags *d, mdae_severity sev, unsigned line, unsigned col,
                     const char *msg)
{
    for (size_t i = 0; i < d->count; i++)
        if (d->items[i].severity == sev && d->items[i].where.start.line == line &&
            d->items[i].where.start.col == col && strstr(d->items[i].message, msg) != NULL)
            return true;
    return false;
}

/* The front-end: k1, k2 are when-equations, guarded by gamma; the
 * invariant !gamma keeps the transient mode out of the long modes. */
/* The largest impulse order of var at shift in r's instants (-100: not
 * reported). */
static int hi_of(const mel_model *m, const mc_result *r, const char *var, int shift)
{
    for (size_t k = 0; k < r->n_impulsive; k++)
        if (strcmp(m->variables[r->impulsive[k].var].name, var) == 0 &&
            r->impulsive[k].shift == shift)
            return r->impulsive[k].hi;
    return -100;
}

Test(mc_transient, when_declares_a_transient_mode)
{
    mel_model *m = load("cup_and_ball_elastic.mel");
    cr_assert_eq(m->n_whens, 1);
    cr_assert_str_eq(mt_guard(m, m->whens[0].cond), "gamma");
    cr_assert_eq(m->whens[0].where.start.line, 32);
    cr_assert_eq(m->n_invariants, 1);
    cr_assert_eq(m->invariants[0].when, 1);
    cr_assert_str_eq(mt_guard(m, m->invariants[0].cond), "!gamma");
    long k1 = mel_model_find_equation(m, "k1"), e1 = mel_model_find_equation(m, "e1");
    cr_assert_eq(m->equations[k1].when, 1);
    cr_assert_eq(m->equations[e1].when, 0);
    cr_assert_str_eq(mt_guard(m, m->equations[k1].guard), "gamma");
    mel_model_free(m);
}

/* next(v) is v one instant later: structurally v and v. (order 1). */
Test(mc_transient, next_is_a_shift)
{
    mel_model *m = load("cup_and_ball_elastic_impact.mel");
    const mel_incidence *inc = mt_inc(m, "t1", "v");
    cr_assert_not_null(inc);
    cr_assert_str_eq(mt_cases(m, inc), "1:gamma");
    mel_model_free(m);
}

/* RR-9459 section 5.2.3: the elastic Cup-and-Ball (model (22) with the
 * straight rope declared transient) is rejected as underdetermined at the
 * transient mode gamma = T. At the event, k1 only mentions x, y (known):
 * erased; e1 e2 e3 e4 k2 fix x., y. but not u., v., lambda, s, and no
 * shift of the free-flight mode helps (k4 brings s.^k, e3 e4 u.^(k+1)...). */
Test(mc_transient, elastic_cup_and_ball_is_underdetermined)
{
    mel_model *m = load("cup_and_ball_elastic.mel");
    mc_result *r = change1(m, false, true);
    cr_assert_eq(r->status, MC_REJECTED, "%s", mc_status_name(r->status));
    cr_assert_not_null(r->transient);
    const mc_transient *t = r->transient;
    cr_assert_eq(t->depth, -1);
    cr_assert_eq(t->max_depth, 3); /* 2 + max c (0) + max d (1) of free flight */
    cr_assert_eq(t->n_whens, 1);
    cr_assert_eq(t->whens[0], 0);
    cr_assert(!t->back[0]);
    cr_assert_str_eq(VARS(m, &t->undetermined), "lambda,s,u.1,v.1");
    cr_assert_eq(r->n_instants, 1);
    const mc_instant *in = &r->instants[0];
    cr_assert_eq(in->status, MC_UNDERDETERMINED);
    cr_assert_str_eq(EQS(m, &in->erased), "k1");
    cr_assert_str_eq(EQS(m, &in->equations), "e1,e2,e3,e4,k2");
    cr_assert_str_eq(VARS(m, &in->unknowns), "lambda,s,u.1,v.1,x.1,y.1");
    cr_assert_str_eq(VARS(m, &in->known), "u,v,x,y");
    cr_assert_str_eq(VARS(m, &in->underdetermined), "lambda,s,u.1,v.1");
    cr_assert(has_diag(&r->diags, MDAE_SEV_ERROR, 32, 1,
                       "the transient mode entered here is underdetermined"));
    cr_assert(has_diag(&r->diags, MDAE_SEV_ERROR, 21, 1, "'u' (shift 1) is not determined"));
    mc_result_free(r);
    mel_model_free(m);
}

/* With the impact law next(v) = -(1 - alpha) * v (RR-9459 (37), tau1):
 * accepted. The event's restart system is e1 e2 e3 e4 k2 t1 over x. y. u.
 * v. lambda s (k1 erased), square and nonsingular: A_0 = S(T) determines
 * it; then the ball is back in free flight and nothing more is erased. */
Test(mc_transient, impact_law_makes_it_accepted)
{
    mel_model *m = load("cup_and_ball_elastic_impact.mel");
    mc_result *r = change1(m, false, true);
    cr_assert_eq(r->status, MC_RESET, "%s", mc_status_name(r->status));
    cr_assert_not_null(r->transient);
    cr_assert_eq(r->transient->depth, 0);
    cr_assert_eq(r->transient->array_rows, 6);
    cr_assert_eq(r->transient->array_cols, 6);
    cr_assert_eq(r->transient->undetermined.n, 0);
    cr_assert_eq(r->n_instants, 1);
    const mc_instant *in = &r->instants[0];
    cr_assert_eq(in->status, MC_NONSINGULAR);
    cr_assert_str_eq(EQS(m, &in->erased), "k1");
    cr_assert_str_eq(EQS(m, &in->equations), "e1,e2,e3,e4,k2,t1");
    cr_assert_str_eq(VARS(m, &in->unknowns), "lambda,s,u.1,v.1,x.1,y.1");
    cr_assert(has_diag(&r->diags, MDAE_SEV_NOTE, 31, 1, "A_0 = [S(T)]"));
    /* The event's impulses (mc_impulse.c I6): next(v) is v. itself, so the
     * impact law leaves v. - v finite and nonzero, and e3, e4 make the
     * rope's tension lambda (and s, through k2) possibly impulsive; the
     * positions and velocities after the event are finite. */
    cr_assert_eq(hi_of(m, r, "lambda", 0), 1);
    cr_assert_eq(hi_of(m, r, "s", 0), 1);
    cr_assert_leq(hi_of(m, r, "x", 1), 0);
    cr_assert_leq(hi_of(m, r, "v", 1), 0);
    /* lambda, s eliminated from e3, e4, k2: one relation among x, u, u.,
     * y, v, v. (the tangential velocity is kept by the impact) */
    cr_assert_geq(r->n_resets, 1);
    cr_assert_str_eq(VARS(m, &r->resets[0].eliminate), "lambda,s");
    cr_assert_str_eq(EQS(m, &r->resets[0].from), "e3,e4,k2");
    cr_assert_eq(r->resets[0].relations, 1);
    mc_result_free(r);
    mel_model_free(m);
}

/* The paper's own second-order form (RR-9459 (22), (36), (37)): the
 * dependent values are x.^2, y.^2, lambda (and s); rejected, then accepted
 * with tau1: y'. = -(1 - alpha) y', i.e. next(der(y)) = -(1 - alpha) der(y). */
Test(mc_transient, paper_second_order_form)
{
    static const char head[] = "g : real = 9.81; L : real = 1.0; alpha : real = 0.2;\n"
                               "x : real; y : real; lambda : real; s : real;\n"
                               "gamma : boolean = last(s) <= 0;\n"
                               "e1 : equation der(der(x)) + lambda * x = 0;\n"
                               "e2 : equation der(der(y)) + lambda * y + g = 0;\n"
                               "if !gamma then\n"
                               "  k3 : equation 0 = lambda;\n"
                               "  k4 : equation 0 = (L^2 - (x^2 + y^2)) - s\n"
                               "end;\n"
                               "when gamma then\n"
                               "  k1 : equation 0 = L^2 - (x^2 + y^2);\n"
                               "  k2 : equation 0 = lambda + s";
    char src[1024];
    for (int impact = 0; impact < 2; impact++) {
        snprintf(src, sizeof src, "%s%s\nend;\n", head,
                 impact ? ";\n  tau1 : equation next(der(y)) = -(1 - alpha) * der(y)" : "");
        mel_model *m = mt_parse(src);
        mc_result *r = change1(m, false, true);
        const mc_instant *in = &r->instants[0];
        cr_assert_str_eq(EQS(m, &in->erased), "k1");
        cr_assert_str_eq(VARS(m, &in->known), "x,x.1,y,y.1");
        cr_assert_str_eq(VARS(m, &in->unknowns), "lambda,s,x.2,y.2");
        if (impact) {
            cr_assert_eq(r->status, MC_RESET);
            cr_assert_eq(r->transient->depth, 0);
            cr_assert_str_eq(EQS(m, &in->equations), "e1,e2,k2,tau1");
            /* RR-9459 (40): lambda (and s) impulsive at the impact; tau1's
             * next(der(y)) is y'. itself (mc_impulse.c I6) */
            cr_assert_eq(hi_of(m, r, "lambda", 0), 1);
            cr_assert_leq(hi_of(m, r, "y", 2), 1);
        } else {
            cr_assert_eq(r->status, MC_REJECTED);
            cr_assert_eq(r->transient->depth, -1);
            cr_assert_eq(r->transient->max_depth, 4); /* 2 + c 0 + d 2 */
            cr_assert_str_eq(VARS(m, &r->transient->undetermined), "lambda,s,x.2,y.2");
        }
        mc_result_free(r);
        mel_model_free(m);
    }
}

/* Without the when-clause (model (22), tests/models/cup_and_ball.mel) the
 * same change is the inelastic two-instant restart: no transient part. */
Test(mc_transient, a_long_mode_has_no_transient_part)
{
    mel_model *m = load("cup_and_ball.mel");
    mc_result *r = change1(m, false, true);
    cr_assert_null(r->transient);
    cr_assert_eq(r->n_instants, 2);
    mc_result_free(r);
    mel_model_free(m);
}

/* The notes' Modelica rendering (when gamma then reinit(v, ...)) and its
 * MEL twin: the same structure and the same analysis. */
Test(mc_transient, modelica_and_mel_twins_agree)
{
    mel_model *a = load("cup_and_ball_elastic.mo");
    mel_model *b = load("cup_and_ball_elastic_mo.mel");
    cr_assert_eq(a->n_whens, 1);
    cr_assert_eq(a->n_equations, b->n_equations);
    cr_assert_eq(a->n_variables, b->n_variables);
    cr_assert_eq(a->n_invariants, b->n_invariants);
    cr_assert_eq(a->invariants[0].when, 1);
    long ta = mel_model_find_equation(a, "t1");
    cr_assert_geq(ta, 0);
    cr_assert_eq(a->equations[ta].when, 1);
    mc_result *ra = change1(a, false, true), *rb = change1(b, false, true);
    cr_assert_eq(ra->status, MC_RESET);
    cr_assert_eq(rb->status, MC_RESET);
    cr_assert_eq(ra->transient->depth, 0);
    cr_assert_eq(rb->transient->depth, 0);
    cr_assert_eq(ra->n_instants, rb->n_instants);
    for (uint32_t k = 0; k < ra->n_instants; k++) {
        const mc_instant *x = &ra->instants[k], *y = &rb->instants[k];
        cr_assert_str_eq(EQS(a, &x->equations), EQS(b, &y->equations));
        cr_assert_str_eq(EQS(a, &x->erased), EQS(b, &y->erased));
        cr_assert_str_eq(VARS(a, &x->unknowns), VARS(b, &y->unknowns));
        cr_assert_str_eq(VARS(a, &x->known), VARS(b, &y->known));
    }
    cr_assert_str_eq(EQS(a, &ra->instants[0].equations), "e1,e2,e3,e4,t1");
    cr_assert_str_eq(VARS(a, &ra->instants[0].unknowns), "lambda,u.1,v.1,x.1,y.1");
    mc_result_free(ra);
    mc_result_free(rb);
    mel_model_free(a);
    mel_model_free(b);
}

/* A when-clause whose condition is a relation declares a transient mode
 * too: the bouncing ball. Its event is overdetermined (the reinit and
 * der(v) = -g both fix v.), and the reinit wins: der(v) = -g is erased at
 * the event (R8), the position stays, the velocity jumps. */
Test(mc_transient, modelica_bouncing_ball_keeps_its_reinit_at_the_event)
{
    mel_model *m = load("bouncing_ball.mo");
    cr_assert_eq(m->n_whens, 1);
    cr_assert_eq(m->n_modes, 1);
    cr_assert_str_eq(m->modes[0].name, "h <= 0");
    cr_assert_eq(m->n_equations, 3);
    cr_assert_eq(m->n_invariants, 1);
    mc_result *r = change1(m, false, true);
    cr_assert_eq(r->status, MC_RESET);
    cr_assert_eq(r->n_instants, 1);
    expect_instant(m, r, 0, MC_NONSINGULAR, "e2", "e1,t1", "h.1,v.1");
    /* the reinit's v. is a value, not a derivative: nothing impulsive */
    cr_assert_leq(hi_of(m, r, "v", 1), 0);
    cr_assert_leq(hi_of(m, r, "h", 1), 0);
    mc_result_free(r);
    mel_model_free(m);
}

/* A when-clause whose condition is neither a Boolean variable nor a
 * relation (a sampled event) stays aside: no transient mode. */
Test(mc_transient, modelica_other_whens_stay_aside)
{
    static const char src[] =
        "model B\n  Real h(start=1); Real v;\nequation\n  der(h) = v;\n  der(v) = -9.81;\n"
        "  when sample(0, 0.1) then\n    reinit(v, -0.8*pre(v));\n  end when;\nend B;\n";
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    cr_assert_eq(mo_model_parse(src, strlen(src), NULL, &m, &d), MDAE_OK);
    cr_assert_eq(m->n_whens, 0);
    cr_assert_eq(m->n_modes, 0);
    cr_assert_eq(m->n_equations, 2);
    cr_assert_geq(m->n_events, 2);
    mel_model_free(m);
    mdae_diags_close(&d);
    /* gamma is a mode variable, but the reinit may not happen at the event */
    static const char src2[] =
        "model C\n  Real x; Real v; Boolean gamma;\nequation\n  gamma = pre(x) <= 0;\n"
        "  der(x) = v;\n  if gamma then der(v) = x; else der(v) = 1; end if;\n"
        "  when gamma then\n    if x > 1 then reinit(v, 0); end if;\n  end when;\nend C;\n";
    mdae_diags_init(&d);
    cr_assert_eq(mo_model_parse(src2, strlen(src2), NULL, &m, &d), MDAE_OK);
    cr_assert_eq(m->n_modes, 1);
    cr_assert_eq(m->n_whens, 0);
    cr_assert_eq(m->n_invariants, 0);
    mel_model_free(m);
    mdae_diags_close(&d);
}

/* The smallest n is not always 0: here the event (e1, t) leaves x. and u
 * to the free mode's constraint k, whose first shift k. fixes x.: A_1.
 * After the event k is a consistency equation satisfied by x. (context),
 * so nothing is erased at the next instant. */
Test(mc_transient, smallest_array_can_need_a_shift)
{
    static const char src[] = "x : real; u : real; w : real;\n"
                              "c : boolean = last(x) > 1;\n"
                              "e1 : equation der(x) = u;\n"
                              "if !c then\n"
                              "  k : equation 0 = x - 1;\n"
                              "  k2 : equation w = 0\n"
                              "end;\n"
                              "when c then\n"
                              "  t : equation w = x\n"
                              "end;\n";
    mel_model *m = mt_parse(src);
    mc_result *r = change1(m, false, true);
    cr_assert_eq(r->status, MC_RESET, "%s", mc_status_name(r->status));
    cr_assert_eq(r->transient->depth, 1);
    cr_assert_eq(r->n_instants, 1);
    cr_assert_str_eq(EQS(m, &r->instants[0].equations), "e1,t");
    cr_assert_str_eq(VARS(m, &r->instants[0].unknowns), "u,w,x.1");
    mc_result_free(r);
    mel_model_free(m);
}

/* The mode after the event must be a long mode. */
Test(mc_transient, no_long_mode_after_the_event_is_rejected)
{
    static const char src[] = "x : real;\n"
                              "c : boolean; h : boolean;\n"
                              "invariant c | h;\n"
                              "e : equation der(x) = 1;\n"
                              "when c then t : equation next(x) = 0 end;\n";
    mel_model *m = mt_parse(src);
    /* from !c & h to c & !h: back is !c & !h, which violates c | h */
    bool from[2] = {false, true}, to[2] = {true, false};
    mc_result *r = NULL;
    cr_assert_eq(mc_change(m, from, to, NULL, &r, NULL, 0), MDAE_OK);
    cr_assert_eq(r->status, MC_REJECTED);
    cr_assert_eq(r->transient->max_depth, -1);
    cr_assert(has_diag(&r->diags, MDAE_SEV_ERROR, 5, 1, "is not a valid long mode"));
    mc_result_free(r);
    mel_model_free(m);
}

/* A cascade that goes round for ever (T6): a -> (a back to false makes
 * !a & b true) -> (a, b back to the first event's values: a again) -> ...
 * is rejected as endless, at both when-clauses, and no event is analysed. */
Test(mc_transient, an_endless_cascade_is_rejected_as_such)
{
    static const char src[] = "x : real; a : boolean; b : boolean;\n"
                              "e : equation der(x) = 1;\n"
                              "when a then t1 : equation next(x) = 0 end;\n"
                              "when !a & b then t2 : equation next(x) = 1 end;\n";
    mel_model *m = mt_parse(src);
    bool from[2] = {false, false}, to[2] = {true, true};
    mc_result *r = NULL;
    cr_assert_eq(mc_change(m, from, to, NULL, &r, NULL, 0), MDAE_OK);
    cr_assert_eq(r->status, MC_REJECTED);
    cr_assert_eq(r->n_instants, 0);
    cr_assert(r->transient->endless);
    cr_assert(!r->transient->too_long);
    cr_assert_eq(r->transient->n_events, 4); /* T1 T2 T1 T2: the pair (T1, T2) again */
    cr_assert_eq(r->transient->max_depth, -1);
    cr_assert(has_diag(&r->diags, MDAE_SEV_ERROR, 3, 1, "endless cascade"));
    cr_assert(has_diag(&r->diags, MDAE_SEV_ERROR, 4, 1, "endless cascade"));
    mc_result_free(r);
    mel_model_free(m);
}

/* A finite cascade of two events (T6): (0,0,0) -> (1,1,1), where p & r
 * rises; p, r back to 0 gives (0,1,0), where !p & q rises: a second
 * event; p, q back to the first event's values gives (1,1,0), a long
 * mode. Each event erases der(x) = 1 (its when-body fixes x.) and is
 * determined by its array; the long mode then starts from x. */
Test(mc_transient, a_finite_cascade_is_analysed_event_after_event)
{
    static const char src[] = "x : real; p : boolean; q : boolean; r : boolean;\n"
                              "e : equation der(x) = 1;\n"
                              "when p & r then t1 : equation next(x) = 0 end;\n"
                              "when !p & q then t2 : equation next(x) = 1 end;\n";
    mel_model *m = mt_parse(src);
    bool from[3] = {false, false, false}, to[3] = {true, true, true};
    mc_result *r = NULL;
    cr_assert_eq(mc_change(m, from, to, NULL, &r, NULL, 0), MDAE_OK);
    const mc_transient *t = r->transient;
    cr_assert_not_null(t);
    cr_assert(!t->endless && !t->too_long);
    cr_assert_eq(t->n_events, 2);
    cr_assert(!t->events[3] && t->events[4] && !t->events[5]);
    cr_assert(t->back[0] && t->back[1] && !t->back[2]);
    cr_assert_eq(t->depths[0], 0);
    cr_assert_eq(t->depths[1], 0);
    cr_assert_eq(r->status, MC_RESET);
    cr_assert_eq(r->n_instants, 2);
    for (uint32_t k = 0; k < 2; k++) {
        cr_assert_str_eq(EQS(m, &r->instants[k].erased), "e");
        cr_assert_str_eq(VARS(m, &r->instants[k].unknowns), "x.1");
        cr_assert_eq(r->instants[k].status, MC_NONSINGULAR);
    }
    cr_assert_str_eq(EQS(m, &r->instants[0].equations), "t1");
    cr_assert_str_eq(EQS(m, &r->instants[1].equations), "t2");
    cr_assert(has_diag(&r->diags, MDAE_SEV_NOTE, 4, 1, "event 2 of a cascade of 2"));
    mc_result_free(r);
    mel_model_free(m);
}

/* A change out of a transient mode (T7): the Cup-and-Ball's gamma -> !gamma
 * is the cascade !gamma -> gamma -> !gamma, entered from !gamma (named);
 * a change out of a transient mode to a mode no cascade through it reaches
 * is rejected at its when-clause; an invalid new mode is still a bad
 * request. */
Test(mc_transient, changes_out_of_a_transient_mode)
{
    mel_model *m = load("cup_and_ball_elastic_impact.mel");
    bool f[1] = {true}, t[1] = {false};
    mc_result *r = NULL;
    char why[256] = "";
    cr_assert_eq(mc_change(m, f, t, NULL, &r, why, sizeof why), MDAE_OK, "%s", why);
    cr_assert_not_null(r->entered_from);
    cr_assert(!r->entered_from[0]);
    cr_assert_not_null(r->transient);
    cr_assert_eq(r->status, MC_RESET);
    cr_assert_eq(r->n_instants, 1);
    cr_assert_str_eq(EQS(m, &r->instants[0].erased), "k1");
    cr_assert(has_diag(&r->diags, MDAE_SEV_NOTE, 31, 1, "entered from the long mode gamma=0"));
    mc_result_free(r);
    mel_model_free(m);
    /* c & !h -> back !c & !h only: out of c & !h into c... the other long mode
     * !c & h is never reached */
    static const char src3[] = "x : real; c : boolean; h : boolean;\n"
                               "e : equation der(x) = 1;\nwhen c then t : equation next(x) = 0 end;\n";
    m = mt_parse(src3);
    bool f3[2] = {true, false}, t3[2] = {false, true};
    r = NULL;
    cr_assert_eq(mc_change(m, f3, t3, NULL, &r, why, sizeof why), MDAE_OK, "%s", why);
    cr_assert_eq(r->status, MC_REJECTED);
    cr_assert_null(r->entered_from);
    cr_assert(has_diag(&r->diags, MDAE_SEV_ERROR, 3, 1, "no long mode enters this transient"));
    mc_result_free(r);
    mel_model_free(m);
    /* out of a transient mode into an invalid one: still a bad request */
    static const char src4[] = "x : real; c : boolean; h : boolean;\ninvariant !h | c;\n"
                               "e : equation der(x) = 1;\nwhen c then t : equation next(x) = 0 end;\n";
    m = mt_parse(src4);
    bool f4[2] = {true, false}, t4[2] = {false, true};
    r = NULL;
    cr_assert_eq(mc_change(m, f4, t4, NULL, &r, why, sizeof why), MDAE_E_INVAL);
    cr_assert_null(r);
    cr_assert_not_null(strstr(why, "'to' is not a valid mode"), "%s", why);
    mel_model_free(m);
    static const char src[] = "x : real; c : boolean; h : boolean;\ninvariant !h;\n"
                              "e : equation der(x) = 1;\nwhen c then t : equation next(x) = 0 end;\n";
    m = mt_parse(src);
    bool f2[2] = {false, false}, t2[2] = {true, true};
    cr_assert_eq(mc_change(m, f2, t2, NULL, &r, why, sizeof why), MDAE_E_INVAL);
    cr_assert_not_null(strstr(why, "not a valid mode"), "%s", why);
    mel_model_free(m);
}

/* mc_all_enumerate counts the changes into transient modes too. */
Test(mc_transient, all_changes_include_the_transient_ones)
{
    mel_model *m = load("cup_and_ball_elastic.mel");
    mc_all *a = NULL;
    cr_assert_eq(mc_all_enumerate(m, MC_ALL_MAX_PAIRS, &a, NULL, 0), MDAE_OK);
    cr_assert_eq(a->valid_modes, 1);
    cr_assert_eq(a->n_pairs, 1);
    cr_assert_eq(a->pairs[0].from, 0u);
    cr_assert_eq(a->pairs[0].to, 1u);
    cr_assert_eq(a->pairs[0].status, MC_REJECTED);
    mc_all_free(a);
    mel_model_free(m);
}

/* Located errors of the front-end. */
Test(mc_transient, parse_errors_are_located)
{
    mt_expect_error("g : boolean;\nwhen g then\n  x : real\nend;\n", MDAE_E_MODEL, 3, 3,
                    "a when-body holds equations only: declarations");
    mt_expect_error("g : boolean; x : real;\nwhen g then invariant g end;\n", MDAE_E_MODEL, 2,
                    13, "invariants belong outside");
    mt_expect_error("g : boolean; h : boolean; x : real;\nif h then\n  when g then e : "
                    "equation x = 0 end\nend;\n",
                    MDAE_E_MODEL, 3, 3, "a 'when' cannot be inside an 'if'");
    mt_expect_error("g : boolean; x : real;\nwhen g then\n  when g then e : equation x = 0 "
                    "end\nend;\n",
                    MDAE_E_MODEL, 3, 3, "inside another 'when'");
    mt_expect_error("g : boolean; x : real;\nwhen g then e : equation x = 0\nelse f : "
                    "equation x = 1 end;\n",
                    MDAE_E_PARSE, 3, 1, "a 'when' has no 'else'");
    mt_expect_error("g : boolean; x : real;\nwhen g then e : equation x = 0;\n",
                    MDAE_E_PARSE, 3, 1, "'end' closing the 'when' of line 2");
    mt_expect_error("x : real;\ne : equation next(x) = 0;\n", MDAE_E_MODEL, 2, 14,
                    "next(...) is the value just after an event");
    mt_expect_error("x : real;\nwhen 1 > 0 then e : equation x = 0 end;\n", MDAE_E_MODEL, 2, 6,
                    "is always true: it never becomes true");
    mt_expect_error("x : real;\nwhen y then e : equation x = 0 end;\n", MDAE_E_MODEL, 2, 6,
                    "undeclared variable 'y'");
}

/* Fail allocation n, n + 1, ... until it succeeds: MDAE_E_NOMEM, nothing
 * leaked (the event, the array, the instants after). */
Test(mc_transient, reports_allocation_failures)
{
    const bool f[1] = {false}, t[1] = {true};
    oom_change("cup_and_ball_elastic.mel", f, t);
    oom_change("cup_and_ball_elastic_impact.mel", f, t);
}

Test(mc_transient, front_ends_report_allocation_failures)
{
    static const char *const files[] = {"cup_and_ball_elastic_impact.mel",
                                        "cup_and_ball_elastic.mo"};
    for (size_t f = 0; f < 2; f++) {
        size_t len;
        char *text = tm_read(files[f], &len);
        cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
        int rc = MDAE_E_NOMEM;
        for (long n = 0; rc == MDAE_E_NOMEM && n < 100000; n++) {
            counting_arm(n);
            mdae_diags d;
            mdae_diags_init(&d);
            mel_model *m = NULL;
            rc = f == 0 ? mel_model_parse(text, len, NULL, &m, &d)
                        : mo_model_parse(text, len, NULL, &m, &d);
            mel_model_free(m);
            mdae_diags_close(&d);
            cr_assert_eq(live, 0, "%s, allocation %ld: %ld blocks leaked", files[f], n, live);
        }
        fail_at = -1;
        mdae_replace_allocator(NULL);
        cr_assert_eq(rc, MDAE_OK);
        free(text);
    }
}

/* ---- Standard values of changes into transient modes (issue 41 item 6) ---- */

/* The standard entry of var at shift of instant r and level (NULL: none). */
static const mc_standard *std_of(const mel_model *m, const mc_result *r, uint32_t instant,
                                 const char *var, int shift, int level)
{
    for (size_t k = 0; k < r->n_standard; k++) {
        const mc_standard *e = &r->standard[k];
        if (e->r == instant && e->shift == shift && e->level == level &&
            strcmp(m->variables[e->var].name, var) == 0)
            return e;
    }
    return NULL;
}

static const char *std_text(const mel_model *m, const mc_result *r, uint32_t instant,
                            const char *eq)
{
    for (size_t k = 0; k < r->n_std_equations; k++)
        if (r->std_equations[k].r == instant &&
            strcmp(m->equations[r->std_equations[k].eq].name, eq) == 0)
            return r->std_equations[k].text != NULL ? r->std_equations[k].text
                                                    : r->std_equations[k].why;
    return "(none)";
}

/* The cascade of tests/models/cascade.mel: the value after event 1 is x<1>
 * (set to 0 by t1), read so at both instants; the value after the cascade
 * x+ (set to 1 by t2). */
Test(mc_transient, a_cascade_has_standard_values_event_by_event)
{
    mel_model *m = load("cascade.mel");
    bool from[3] = {false, false, false}, to[3] = {true, true, true};
    mc_result *r = NULL;
    cr_assert_eq(mc_change(m, from, to, NULL, &r, NULL, 0), MDAE_OK);
    cr_assert_eq(r->status, MC_RESET);
    cr_assert_eq(r->transient->n_events, 2);
    const mc_standard *a = std_of(m, r, 0, "x", 0, 0), *b = std_of(m, r, 0, "x", 1, 0);
    const mc_standard *c = std_of(m, r, 1, "x", 0, 0), *d = std_of(m, r, 1, "x", 1, 0);
    cr_assert(a && b && c && d);
    cr_assert_eq(a->side, MC_SIDE_MINUS);
    cr_assert(b->side == MC_SIDE_EVENT && b->event == 1);
    cr_assert(c->side == MC_SIDE_EVENT && c->event == 1, "the same value at instant 1");
    cr_assert_eq(d->side, MC_SIDE_PLUS);
    cr_assert_str_eq(std_text(m, r, 0, "t1"), "x\u27e81\u27e9 = 0");
    cr_assert_str_eq(std_text(m, r, 1, "t2"), "x\u207a = 1");
    mc_result_free(r);
    mel_model_free(m);
}

/* RR-9459 (37)-(39): the impact law at the event of the elastic
 * Cup-and-Ball, read as dt -> 0 in the transient mode's own equations. */
Test(mc_transient, the_impact_law_reads_as_a_restart_value)
{
    mel_model *m = load("cup_and_ball_37.mel");
    mc_result *r = change1(m, false, true);
    cr_assert_eq(r->status, MC_RESET);
    cr_assert_str_eq(std_text(m, r, 0, "tau1"), "y'\u207a = -(1 - alpha)*y'\u207b");
    cr_assert_str_eq(std_text(m, r, 0, "e1"), "(x'\u207a - x'\u207b) + (dt*lambda)*x\u207b = 0");
    mc_result_free(r);
    mel_model_free(m);
}

/* Random models with when-clauses (cascades of up to 3 events): every
 * change into a transient mode that restarts has standard values, and they
 * are consistent: one value (a state's level at one absolute shift) has
 * one reading at every instant that reads it; the readings go x-, x<1>,
 * ..., x<E>, x+ as the absolute shift grows, x- before the change and x+
 * from instant K on; the events' equations are read. */
Test(mc_transient, random_cascades_have_consistent_standard_values, .timeout = 600)
{
    ref_random_opts o = {.max_modes = 4, .max_equations = 7, .max_order = 2,
                         .when_percent = 100, .max_whens = 3};
    size_t changes = 0, cascades = 0, values = 0, event_values = 0, read = 0;
    for (uint64_t s = 0; s < 400; s++) {
        mel_model *m = ref_random_parsed(7700 + s, &o);
        if (m == NULL || m->n_whens == 0 || m->n_modes > 6) {
            mel_model_free(m);
            continue;
        }
        uint32_t nm = m->n_modes;
        bool from[8], to[8];
        for (uint32_t a = 0; a < (1u << nm); a++)
            for (uint32_t b = 0; b < (1u << nm); b++) {
                ref_mode_from_index(a, nm, from);
                ref_mode_from_index(b, nm, to);
                mc_result *r = NULL;
                if (a == b || mc_change(m, from, to, NULL, &r, NULL, 0) != MDAE_OK)
                    continue;
                if (r->transient == NULL || r->entered_from != NULL || r->status != MC_RESET) {
                    mc_result_free(r);
                    continue;
                }
                changes++;
                uint32_t E = r->transient->n_events, K = r->n_instants;
                cascades += E > 1;
                for (size_t i = 0; i < r->n_standard; i++) {
                    const mc_standard *x = &r->standard[i];
                    int abs_i = (int)x->r + x->shift;
                    uint32_t rank_i = x->side == MC_SIDE_MINUS ? 0
                                      : x->side == MC_SIDE_PLUS ? E + 1 : x->event;
                    values++;
                    event_values += x->side == MC_SIDE_EVENT;
                    cr_assert(x->side != MC_SIDE_EVENT || (x->event >= 1 && x->event <= E));
                    cr_assert_eq(abs_i >= (int)K, x->side == MC_SIDE_PLUS, "seed %llu",
                                 (unsigned long long)(7700 + s));
                    cr_assert(abs_i > 0 || x->side == MC_SIDE_MINUS);
                    for (size_t j = 0; j < r->n_standard; j++) {
                        const mc_standard *y = &r->standard[j];
                        if (y->var != x->var || y->level != x->level)
                            continue;
                        int abs_j = (int)y->r + y->shift;
                        uint32_t rank_j = y->side == MC_SIDE_MINUS ? 0
                                          : y->side == MC_SIDE_PLUS ? E + 1 : y->event;
                        if (abs_j == abs_i)
                            cr_assert(rank_j == rank_i, "one value, one reading (seed %llu)",
                                      (unsigned long long)(7700 + s));
                        if (abs_j > abs_i)
                            cr_assert_geq(rank_j, rank_i);
                    }
                }
                for (size_t k = 0; k < r->n_std_equations; k++)
                    read += r->std_equations[k].r < E && r->std_equations[k].text != NULL;
                mc_result_free(r);
            }
        mel_model_free(m);
    }
    cr_log_info("%zu changes into transient modes (%zu cascades): %zu standard values, %zu "
                "after an event; %zu equations of events read",
                changes, cascades, values, event_values, read);
    cr_assert_gt(changes, 100);
    cr_assert_gt(cascades, 5);
    cr_assert_gt(event_values, 5);
    cr_assert_gt(read, 50);
}
