/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mc_change.c -- one mode change (engine/mc.h) on the
 * papers' models, with the results the papers print (RR-9459 section 5,
 * RR-8933 section 2; ../shared/papers/notes-mode-changes-impulses-rimis-
 * modelica.md sections 1.6-1.7), bad requests, allocation failures, and on
 * random models the independence of status and instant count from the
 * erasure tie rule (issue 13, "make sure status and instant count do not
 * depend on the choice").
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
#include "mc_test.h"
#include "model_files.h"

/* RR-9459 section 5.1, RR-8933 section 2.2: released -> engaged erases e3
 * at the first instant; the restart system (14) is e1, e2, e3., e4 over
 * w1., w2., tau1, tau2 (4 x 4, nonsingular); then the engaged mode runs. */
Test(mc_change, clutch_engaging_erases_e3_once)
{
    mel_model *m = load("clutch.mel");
    mc_result *r = change1(m, false, true);
    cr_assert_eq(r->status, MC_RESET, "%s", mc_status_name(r->status));
    cr_assert_eq(r->n_instants, 1);
    const mc_instant *in = &r->instants[0];
    cr_assert_eq(in->status, MC_NONSINGULAR);
    cr_assert_str_eq(EQS(m, &in->erased), "e3");
    cr_assert_str_eq(EQS(m, &in->equations), "e1,e2,e3.1,e4");
    cr_assert_str_eq(VARS(m, &in->unknowns), "tau1,tau2,w1.1,w2.1");
    cr_assert_str_eq(VARS(m, &in->known), "w1,w2");
    cr_assert_str_eq(EQS(m, &in->context), "");
    cr_assert_eq(in->n_alternatives, 0);
    cr_assert(!r->ambiguous);
    mc_result_free(r);
    mel_model_free(m);
}

/* The impulsive values of a result, "name@r:lo..hi" sorted ("-inf"). */
static char *impulses(const mel_model *m, const mc_result *r)
{
    static char buf[1024];
    buf[0] = '\0';
    for (size_t k = 0; k < r->n_impulsive; k++) {
        const mc_impulse *p = &r->impulsive[k];
        char one[96], lo[16];
        if (p->lo == MC_ORDER_NEG_INF)
            snprintf(lo, sizeof lo, "-inf");
        else
            snprintf(lo, sizeof lo, "%d", p->lo);
        snprintf(one, sizeof one, "%s%s@%u:%s..%d", k ? "," : "", m->variables[p->var].name,
                 (unsigned)p->r, lo, p->hi);
        strcat(buf, one);
    }
    return buf;
}

/* RR-9459 section 5.1.4, RR-8933 A.1-A.2: at engagement both torques are
 * impulsive, of order exactly 1, and the restart relation eliminates them
 * from e1, e2, e4 (one relation among the speeds before and after), e3.
 * being the other. */
Test(mc_change, clutch_torques_are_impulsive_of_order_1)
{
    mel_model *m = load("clutch.mel");
    mc_result *r = change1(m, false, true);
    cr_assert_str_eq(impulses(m, r), "tau1@0:1..1,tau2@0:1..1");
    cr_assert_eq(r->n_resets, 2);
    const mc_reset *x = &r->resets[0];
    cr_assert_str_eq(VARS(m, &x->eliminate), "tau1,tau2");
    cr_assert_str_eq(EQS(m, &x->from), "e1,e2,e4");
    cr_assert_eq(x->relations, 1);
    cr_assert_str_eq(VARS(m, &x->among), "w1,w1.1,w2,w2.1");
    cr_assert_str_eq(EQS(m, &r->resets[1].from), "e3.1");
    cr_assert_eq(r->resets[1].eliminate.n, 0);
    mc_result_free(r);
    r = change1(m, true, false); /* released: continuous, no restart system */
    cr_assert_eq(r->n_impulsive, 0);
    mc_result_free(r);
    mel_model_free(m);
}

/* ClutchBasic's reset w+ = (j1 w1- + j2 w2-)/(j1 + j2), structurally: f1
 * and f2 impulsive (order 1), eliminated from e1, e2, e4 (linear in them:
 * j1 (w1+ - w1-) + j2 (w2+ - w2-) = 0) and e3. (w1+ = w2+): two relations
 * for the two restart values w1+, w2+. */
Test(mc_change, clutch_basic_restart_relation_gives_the_weighted_mean)
{
    mel_model *m = load("clutch_basic_mo.mel");
    mc_result *r = change1(m, false, true);
    cr_assert_str_eq(impulses(m, r), "f1@0:1..1,f2@0:1..1");
    cr_assert_eq(r->n_resets, 2);
    cr_assert_str_eq(VARS(m, &r->resets[0].eliminate), "f1,f2");
    cr_assert_str_eq(EQS(m, &r->resets[0].from), "e1,e2,e4");
    cr_assert_eq(r->resets[0].relations, 1);
    cr_assert_str_eq(VARS(m, &r->resets[0].among), "w1,w1.1,w2,w2.1");
    cr_assert_str_eq(EQS(m, &r->resets[1].from), "e3.1");
    cr_assert_str_eq(VARS(m, &r->resets[1].among), "w1.1,w2.1");
    mc_result_free(r);
    mel_model_free(m);
}

/* RR-9459 (40): in (24) and (25), lambda and s have order at most 1, every
 * other value is finite; eliminating them (section 5.2.2, (26)-(27))
 * leaves one relation of e3, e4, k2 among positions and velocities. */
Test(mc_change, cup_and_ball_tension_is_at_most_order_1)
{
    mel_model *m = load("cup_and_ball.mel");
    mc_result *r = change1(m, false, true);
    cr_assert_str_eq(impulses(m, r), "lambda@0:-inf..1,s@0:-inf..1,lambda@1:-inf..1,s@1:-inf..1");
    size_t elim = 0;
    for (size_t k = 0; k < r->n_resets; k++) {
        const mc_reset *x = &r->resets[k];
        if (x->eliminate.n == 0)
            continue;
        elim++;
        cr_assert_str_eq(VARS(m, &x->eliminate), "lambda,s");
        cr_assert_str_eq(EQS(m, &x->from), "e3,e4,k2");
        cr_assert_eq(x->relations, 1);
        cr_assert_str_eq(VARS(m, &x->among), "u,u.1,v,v.1,x,y");
    }
    cr_assert_eq(elim, 2);
    mc_result_free(r);
    mel_model_free(m);
}

/* RR-8933 section 2.4, App. A.1: engaged -> released needs no reset. */
Test(mc_change, clutch_releasing_is_continuous)
{
    mel_model *m = load("clutch.mel");
    mc_result *r = change1(m, true, false);
    cr_assert_eq(r->status, MC_CONTINUOUS, "%s", mc_status_name(r->status));
    cr_assert_eq(r->n_instants, 0);
    mc_result_free(r);
    mel_model_free(m);
}

/* ClutchBasic (RR-9459 Fig. 4): e3 is an if-expression whose branch
 * changes; engaging erases e3 (its w1 - w2 branch), the restart is
 * e1, e2, e3., e4 over w1., w2., f1, f2; releasing is continuous (e3's
 * body changes, so its latent shift is not in the released context). The
 * same from the Modelica listing and from its MEL twin. */
static void clutch_basic(const char *file)
{
    mel_model *m = load(file);
    mc_result *r = change1(m, false, true);
    cr_assert_eq(r->status, MC_RESET, "%s: %s", file, mc_status_name(r->status));
    cr_assert_eq(r->n_instants, 1);
    const mc_instant *in = &r->instants[0];
    /* by position: the Modelica listing has no equation labels */
    cr_assert_eq(in->erased.n, 1);
    cr_assert_eq(in->erased.items[0].index, 2);
    cr_assert_eq(in->erased.items[0].shift, 0);
    cr_assert_eq(in->equations.n, 4);
    const int want[4][2] = {{0, 0}, {1, 0}, {2, 1}, {3, 0}};
    for (size_t k = 0; k < 4; k++) {
        cr_assert_eq(in->equations.items[k].index, (uint32_t)want[k][0], "%zu", k);
        cr_assert_eq(in->equations.items[k].shift, want[k][1], "%zu", k);
    }
    cr_assert_str_eq(VARS(m, &in->unknowns), "f1,f2,w1.1,w2.1");
    mc_result_free(r);
    r = change1(m, true, false);
    cr_assert_eq(r->status, MC_CONTINUOUS, "%s", file);
    mc_result_free(r);
    mel_model_free(m);
}

Test(mc_change, clutch_basic_engaging_resets_the_speeds) { clutch_basic("clutch_basic_mo.mel"); }
Test(mc_change, clutch_basic_modelica_listing_agrees) { clutch_basic("clutch_basic.mo"); }

/* RR-9459 section 5.2, (24) and (25): slack -> taut takes two instants:
 * k1 and k1. erased, then k1 alone. */
Test(mc_change, cup_and_ball_taut_rope_takes_two_instants)
{
    mel_model *m = load("cup_and_ball.mel");
    mc_result *r = change1(m, false, true);
    cr_assert_eq(r->status, MC_RESET, "%s", mc_status_name(r->status));
    cr_assert_eq(r->n_instants, 2);
    cr_assert_str_eq(EQS(m, &r->instants[0].erased), "k1,k1.1");
    cr_assert_str_eq(EQS(m, &r->instants[1].erased), "k1");
    /* (24): e1, e2 (and their shifts: MEL's first-order form), k1.2, k2 */
    cr_assert_str_eq(EQS(m, &r->instants[0].equations), "e1,e1.1,e2,e2.1,e3,e4,k1.2,k2");
    cr_assert_str_eq(VARS(m, &r->instants[0].unknowns), "lambda,s,u.1,v.1,x.1,x.2,y.1,y.2");
    /* (25): k1. is now satisfied by x., y. (the context), k1 is not */
    cr_assert_str_eq(EQS(m, &r->instants[1].context), "e1,e2,k1.1");
    cr_assert_str_eq(EQS(m, &r->instants[1].equations), "e1.1,e2.1,e3,e4,k1.2,k2");
    for (uint32_t k = 0; k < 2; k++)
        cr_assert_eq(r->instants[k].status, MC_NONSINGULAR);
    cr_assert(!r->ambiguous);
    mc_result_free(r);
    /* taut -> slack: nothing to erase */
    r = change1(m, true, false);
    cr_assert_eq(r->status, MC_CONTINUOUS, "%s", mc_status_name(r->status));
    mc_result_free(r);
    mel_model_free(m);
}

/* RR-9459 section 5.2: model (19) is refused (guard fixpoint), with a
 * located diagnostic on the read of s suggesting last/pre. */
Test(mc_change, model_19_is_refused_as_a_guard_fixpoint)
{
    mel_model *m = load("cup_and_ball_19.mel");
    mc_result *r = change1(m, false, true);
    cr_assert_eq(r->status, MC_REJECTED);
    cr_assert_eq(r->n_instants, 0);
    cr_assert_geq(r->diags.count, 1);
    const mdae_diag *dg = &r->diags.items[0];
    cr_assert_eq(dg->severity, MDAE_SEV_ERROR);
    cr_assert_not_null(strstr(dg->message, "guard fixpoint"), "%s", dg->message);
    cr_assert_not_null(strstr(dg->message, "last(s)"), "%s", dg->message);
    cr_assert_not_null(strstr(dg->message, "pre(s)"), "%s", dg->message);
    cr_assert_eq(dg->where.start.line, 21, "line %u", dg->where.start.line);
    cr_assert_eq(dg->where.start.col, 19, "col %u", dg->where.start.col);
    mc_result_free(r);
    mel_model_free(m);
}

/* The guard of cup_and_ball.mel reads last(s): no fixpoint; the clutch's
 * reads parameters only. */
Test(mc_change, left_limits_and_parameters_are_not_fixpoints)
{
    const char *files[] = {"cup_and_ball.mel", "clutch.mel", "rldc2.mel", "brake.mel"};
    for (size_t f = 0; f < 4; f++) {
        mel_model *m = load(files[f]);
        size_t n = 99;
        cr_assert_eq(mc_guard_fixpoints(m, NULL, &n), MDAE_OK);
        cr_assert_eq(n, 0, "%s", files[f]);
        mel_model_free(m);
    }
    mel_model *m = load("water_tank.mel"); /* bh = sh >= 0: a fixpoint */
    size_t n = 0;
    cr_assert_eq(mc_guard_fixpoints(m, NULL, &n), MDAE_OK);
    cr_assert_eq(n, 2);
    mel_model_free(m);
    /* the building: open[i] = door(t) reads the clock t, determined upstream
     * (der(t) = 1); outgoing[i] = mu_door[i] and direction[i] = mu_c[i] are
     * fixpoints */
    m = load("building_compressible.mel");
    mdae_diags d;
    mdae_diags_init(&d);
    cr_assert_eq(mc_guard_fixpoints(m, &d, &n), MDAE_OK);
    cr_assert_eq(n, 6);
    for (size_t k = 0; k < d.count; k++)
        cr_assert_null(strstr(d.items[k].message, "'open["), "%s", d.items[k].message);
    mdae_diags_close(&d);
    mel_model_free(m);
}

/* The Modelica listing of Fig. 7 is model (19) too: gamma = (s <= 0). */
Test(mc_change, modelica_cup_and_ball_is_refused_as_a_guard_fixpoint)
{
    mel_model *m = load("cup_and_ball.mo");
    mc_result *r = change1(m, false, true);
    cr_assert_eq(r->status, MC_REJECTED);
    cr_assert_geq(r->diags.count, 1);
    cr_assert_not_null(strstr(r->diags.items[0].message, "pre(s)"));
    cr_assert_eq(r->diags.items[0].where.start.line, 19);
    mc_result_free(r);
    mel_model_free(m);
}

/* A relation written in the conditions themselves is followed as a Boolean
 * definition is: `if sh >= 0` reads sh, which the equations it guards
 * determine (the Water Tank without its bh); with pre(sh) it does not. */
Test(mc_change, a_relation_in_a_condition_that_reads_what_it_guards_is_a_guard_fixpoint)
{
    static const char *const texts[2] = {
        "model W\n Real x, yh, sh;\nequation\n der(x) = 1 - yh;\n"
        " sh = if sh >= 0 then yh else x - 1;\n 0 = if sh >= 0 then x - 1 else yh;\nend W;\n",
        "model W\n Real x, yh, sh;\nequation\n der(x) = 1 - yh;\n"
        " sh = if pre(sh) >= 0 then yh else x - 1;\n 0 = if pre(sh) >= 0 then x - 1 else yh;\n"
        "end W;\n"};
    for (int k = 0; k < 2; k++) {
        mdae_diags d;
        mdae_diags_init(&d);
        mel_model *m = NULL;
        cr_assert_eq(mo_model_parse(texts[k], strlen(texts[k]), NULL, &m, &d), MDAE_OK);
        cr_assert_eq(m->n_modes, 1);
        size_t n = 99;
        mdae_diags g;
        mdae_diags_init(&g);
        cr_assert_eq(mc_guard_fixpoints(m, &g, &n), MDAE_OK);
        cr_assert_eq(n, k == 0 ? 1u : 0u, "text %d: %zu", k, n);
        if (k == 0) {
            cr_assert_eq(g.items[0].where.start.line, 5, "at the relation's use of sh");
            cr_assert_not_null(strstr(g.items[0].message, "sh"), "%s", g.items[0].message);
        }
        mdae_diags_close(&g);
        mdae_diags_close(&d);
        mel_model_free(m);
    }
}

/* RLDC2, both diodes switching at once: the four erasure sets,
 * reported as ambiguous; status and instant count the same with either
 * tie order. */
Test(mc_change, rldc2_double_switch_is_ambiguous)
{
    mel_model *m = load("rldc2.mel");
    bool from[2] = {false, false}, to[2] = {true, true};
    mc_result *a = NULL, *b = NULL;
    mc_options rev = {.tie_reverse = true};
    cr_assert_eq(mc_change(m, from, to, NULL, &a, NULL, 0), MDAE_OK);
    cr_assert_eq(mc_change(m, from, to, &rev, &b, NULL, 0), MDAE_OK);
    cr_assert(a->ambiguous);
    cr_assert_eq(a->status, b->status);
    cr_assert_eq(a->n_instants, b->n_instants);
    cr_assert_geq(a->n_instants, 1);
    cr_assert_eq(a->instants[0].n_alternatives, 3, "%zu alternatives",
                 a->instants[0].n_alternatives);
    mc_result_free(a);
    mc_result_free(b);
    mel_model_free(m);
}

Test(mc_change, refuses_bad_requests)
{
    mel_model *m = load("water_tank.mel"); /* invariant !(bh & bl) */
    bool a[2] = {false, false}, bad[2] = {true, true};
    mc_result *r = NULL;
    char why[200] = "";
    cr_assert_eq(mc_change(m, a, a, NULL, &r, why, sizeof why), MDAE_E_INVAL);
    cr_assert_not_null(strstr(why, "same mode"), "%s", why);
    cr_assert_eq(mc_change(m, a, bad, NULL, &r, why, sizeof why), MDAE_E_INVAL);
    cr_assert_not_null(strstr(why, "not a valid mode"), "%s", why);
    cr_assert_null(r);
    mel_model_free(m);
}

/* A change to a structurally singular mode is rejected, located. */
Test(mc_change, rejects_changes_to_a_singular_mode)
{
    mel_model *m = load("singular_simple.mel"); /* nonsingular only when g & !h */
    bool from[2] = {true, false}, to[2] = {true, true};
    mc_result *r = NULL;
    cr_assert_eq(mc_change(m, from, to, NULL, &r, NULL, 0), MDAE_OK);
    cr_assert_eq(r->status, MC_REJECTED);
    cr_assert_geq(r->diags.count, 1);
    cr_assert_not_null(strstr(r->diags.items[0].message, "singular"));
    mc_result_free(r);
    mel_model_free(m);
}

Test(mc_change, reports_allocation_failures)
{
    const bool f[2] = {false, false}, t[2] = {true, true};
    oom_change("cup_and_ball.mel", f, t); /* two instants, impulse analysis */
    oom_change("rldc2.mel", f, t);        /* alternatives */
}

Test(mc_change, all_changes_report_allocation_failures)
{
    mel_model *m = load("rldc2.mel");
    cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
    int rc = MDAE_E_NOMEM;
    long n;
    for (n = 0; rc == MDAE_E_NOMEM && n < 1000000; n++) {
        counting_arm(n);
        mc_all *a = NULL;
        rc = mc_all_enumerate(m, MC_ALL_MAX_PAIRS, &a, NULL, 0);
        if (rc == MDAE_OK)
            mc_all_free(a);
        else
            cr_assert_null(a);
        cr_assert_eq(live, 0, "allocation %ld: %ld blocks leaked", n, live);
    }
    fail_at = -1;
    mdae_replace_allocator(NULL);
    cr_assert_eq(rc, MDAE_OK);
    cr_assert_gt(n, 50);
    mel_model_free(m);
}

/* mc_all_enumerate_each (issue 13 item 7): the callback sees every pair in
 * order, with its whole result (a rejected one says why); a nonzero return
 * stops the enumeration with MDAE_E_CANCELED and no result. */
typedef struct seen_pairs {
    size_t n, rejected_with_diags, stop_after;
    mc_pair pairs[16];
} seen_pairs;

static int see_pair(void *ctx, const mc_pair *p, const mc_result *r)
{
    seen_pairs *sp = ctx;
    cr_assert_eq(p->status, r->status);
    cr_assert_eq(p->n_instants, r->n_instants);
    if (p->status == MC_REJECTED && r->diags.count > 0)
        sp->rejected_with_diags++;
    if (sp->n < 16)
        sp->pairs[sp->n] = *p;
    sp->n++;
    return sp->stop_after > 0 && sp->n >= sp->stop_after;
}

Test(mc_change, all_changes_call_back_on_each_pair_and_stop_when_told)
{
    mel_model *m = load("two_equations_mo.mel");
    seen_pairs sp = {0};
    mc_all *a = NULL;
    cr_assert_eq(mc_all_enumerate_each(m, MC_ALL_MAX_PAIRS, see_pair, &sp, &a, NULL, 0), MDAE_OK);
    cr_assert_eq(sp.n, a->n_pairs);
    cr_assert_eq(sp.n, 2);
    for (size_t k = 0; k < sp.n; k++) {
        cr_assert_eq(sp.pairs[k].from, a->pairs[k].from);
        cr_assert_eq(sp.pairs[k].to, a->pairs[k].to);
        cr_assert_eq(sp.pairs[k].status, a->pairs[k].status);
    }
    cr_assert_eq(sp.rejected_with_diags, 1, "p=T -> p=F: x, x. are not determined");
    mc_all_free(a);
    mel_model_free(m);

    m = load("rldc2.mel");
    sp = (seen_pairs){.stop_after = 3};
    a = NULL;
    cr_assert_eq(mc_all_enumerate_each(m, MC_ALL_MAX_PAIRS, see_pair, &sp, &a, NULL, 0),
                 MDAE_E_CANCELED);
    cr_assert_null(a);
    cr_assert_eq(sp.n, 3, "no pair after the stop");
    mel_model_free(m);
}

/* Random models: on every pair of valid nonsingular modes that differ, the
 * status and the number of instants do not depend on the tie order, nor on
 * which of the allowed erasure sets the first instant takes, each
 * erasing instant's system is nonsingular or the change is rejected, and
 * every restart ends within its bound. */
Test(mc_change, tie_rule_does_not_change_status_or_instants)
{
    ref_random_opts o = {.max_modes = 3, .max_equations = 8, .max_order = 2};
    size_t changes = 0, ambiguous = 0, resets = 0, forced = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        mel_model *m = ref_random_parsed(seed, &o);
        if (m == NULL || m->n_modes == 0) {
            mel_model_free(m);
            continue;
        }
        uint32_t nm = m->n_modes;
        for (uint32_t a = 0; a < (1u << nm); a++)
            for (uint32_t b = 0; b < (1u << nm); b++) {
                if (a == b)
                    continue;
                bool from[8], to[8];
                for (uint32_t k = 0; k < nm; k++) {
                    from[k] = (a >> k) & 1;
                    to[k] = (b >> k) & 1;
                }
                mc_result *r1 = NULL, *r2 = NULL;
                mc_options rev = {.tie_reverse = true};
                int rc1 = mc_change(m, from, to, NULL, &r1, NULL, 0);
                int rc2 = mc_change(m, from, to, &rev, &r2, NULL, 0);
                cr_assert_eq(rc1, rc2);
                if (rc1 == MDAE_OK) {
                    changes++;
                    ambiguous += r1->ambiguous;
                    resets += r1->status == MC_RESET;
                    cr_assert_eq(r1->status, r2->status, "seed %llu %u->%u",
                                 (unsigned long long)seed, a, b);
                    cr_assert_eq(r1->n_instants, r2->n_instants, "seed %llu %u->%u",
                                 (unsigned long long)seed, a, b);
                    cr_assert_eq(r1->ambiguous, r2->ambiguous);
                    for (uint32_t k = 0; k < r1->n_instants; k++)
                        cr_assert_eq(r1->instants[k].erased.n, r2->instants[k].erased.n);
                    /* every other allowed choice at the first instant */
                    const mc_instant *i0 = r1->n_instants ? &r1->instants[0] : NULL;
                    for (size_t x = 0; i0 != NULL && x < i0->n_alternatives; x++) {
                        mc_options force = {.force_first_erasure = &i0->alternatives[x]};
                        mc_result *r3 = NULL;
                        cr_assert_eq(mc_change(m, from, to, &force, &r3, NULL, 0), MDAE_OK,
                                     "seed %llu %u->%u: alternative %zu refused",
                                     (unsigned long long)seed, a, b, x);
                        cr_assert_eq(r3->status, r1->status, "seed %llu %u->%u alt %zu",
                                     (unsigned long long)seed, a, b, x);
                        cr_assert_eq(r3->n_instants, r1->n_instants, "seed %llu %u->%u alt %zu",
                                     (unsigned long long)seed, a, b, x);
                        forced++;
                        mc_result_free(r3);
                    }
                } else {
                    cr_assert_eq(rc1, MDAE_E_INVAL);
                }
                mc_result_free(r1);
                mc_result_free(r2);
            }
        mel_model_free(m);
    }
    cr_log_info("%zu changes, %zu resets, %zu ambiguous, %zu alternatives forced", changes,
                resets, ambiguous, forced);
    cr_assert_gt(forced, 10);
    cr_assert_gt(changes, 500);
    cr_assert_gt(resets, 10);
}

/* mc_cover is exact: on random sets of keys over up to 10 bits, a vector is
 * in the union of the cubes iff it is in the set; every cube is prime (no
 * cared bit can be freed) and none is redundant (each covers a vector no
 * other cube does). */
Test(mc_change, cover_is_exact_on_random_sets)
{
    uint64_t st = 0xC0FE;
    for (int trial = 0; trial < 300; trial++) {
        unsigned bits = 1 + (unsigned)(ref_rand_next(&st) % 10);
        uint64_t space = (uint64_t)1 << bits;
        bool in[1024] = {false};
        uint64_t keys[1024];
        size_t n = 0;
        unsigned density = (unsigned)(ref_rand_next(&st) % 100);
        for (uint64_t x = 0; x < space; x++)
            if (ref_rand_next(&st) % 100 < density) {
                in[x] = true;
                keys[n++] = x;
            }
        mc_cube *c = NULL;
        size_t nc = 99;
        cr_assert_eq(mc_cover(keys, n, bits, &c, &nc), MDAE_OK);
        for (uint64_t x = 0; x < space; x++) {
            bool hit = false;
            for (size_t k = 0; k < nc; k++)
                hit |= (x & c[k].care) == c[k].val;
            cr_assert_eq(hit, in[x], "trial %d: %llu", trial, (unsigned long long)x);
        }
        cr_assert_leq(nc, n);
        if (n == space && n > 0)
            cr_assert_eq(nc, 1); /* everything: one cube, no cared bit */
        for (size_t k = 0; k < nc; k++) {
            /* prime: freeing any cared bit leaves the set */
            for (uint64_t bit = 1; bit < space; bit <<= 1) {
                if (!(c[k].care & bit))
                    continue;
                bool inside = true;
                for (uint64_t x = 0; x < space && inside; x++)
                    if ((x & (c[k].care & ~bit)) == (c[k].val & ~bit))
                        inside = in[x];
                cr_assert(!inside, "trial %d: cube %zu is not prime", trial, k);
            }
            /* irredundant: some vector only this cube covers */
            bool own = false;
            for (uint64_t x = 0; x < space && !own; x++) {
                if ((x & c[k].care) != c[k].val)
                    continue;
                own = true;
                for (size_t j = 0; j < nc && own; j++)
                    if (j != k && (x & c[j].care) == c[j].val)
                        own = false;
            }
            cr_assert(own, "trial %d: cube %zu is redundant", trial, k);
        }
        mdae_free(c);
    }
}
