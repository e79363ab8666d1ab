/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_rimis_mc.c -- engine/rimis_mc.c: what RIMIS takes from
 * the mode-change analysis (impulsive changes refused, located and named)
 * and the source's when-clauses carried, called directly with a fake
 * rimis__naming (source names kept, derivatives x_p; a variable is
 * factored, or held by the state replicates x_1, x_2, as the test says).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "fx.h"
#include "mo.h"
#include "rimis_int.h"

#include "fail_alloc.h"
#include "model_files.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(rimis_mc, .init = begin, .fini = end, .timeout = 600);

typedef struct fake {
    const mel_model *m;
    bool factored;      /* every state factored, or held by replicates */
    char names[8][64];  /* scratch for source_name */
    int next;
    char rep[2][64];
    const char *reps[2];
} fake;

static const char *fk_name(void *ctx, uint32_t var, int order)
{
    fake *f = ctx;
    char *s = f->names[f->next++ % 8];
    snprintf(s, 64, "%s%s", f->m->variables[var].name, order == 0 ? "" : "_p");
    return s;
}

static bool fk_factored(void *ctx, uint32_t var, int order)
{
    (void)var;
    (void)order;
    return ((fake *)ctx)->factored;
}

static bool no_replicates; /* fk_reps finds none */

static const char *const *fk_reps(void *ctx, uint32_t var, int order, size_t *n)
{
    fake *f = ctx;
    (void)order;
    *n = 0;
    if (no_replicates)
        return f->reps;
    for (int i = 0; i < 2; i++) {
        snprintf(f->rep[i], 64, "%s_%d", f->m->variables[var].name, i + 1);
        f->reps[i] = f->rep[i];
    }
    *n = 2;
    return f->reps;
}

typedef struct run {
    mel_model *m;
    sa_result *res;
    fx_pool *pool;
    rimis__changes ch;
    mdae_diags warnings, diags;
    int rc;
} run;

static void run_on_n(run *r, const char *name, bool factored, long long n)
{
    memset(r, 0, sizeof *r);
    size_t len;
    char *text = tm_read(name, &len);
    bool modelica = strstr(name, ".mo") != NULL && strstr(name, "_mo.mel") == NULL;
    mdae_diags pd;
    mdae_diags_init(&pd);
    mel_define def;
    mel_options o = tm_options_n(&def, n);
    int rc = modelica ? mo_model_parse(text, len, &o, &r->m, &pd)
                      : mel_model_parse(text, len, &o, &r->m, &pd);
    cr_assert_eq(rc, MDAE_OK, "%s: %s", name, mdae_err_name(rc));
    mdae_diags_close(&pd);
    free(text);
    r->pool = fx_pool_new();
    cr_assert_not_null(r->pool);
    fake f;
    memset(&f, 0, sizeof f);
    f.m = r->m;
    f.factored = factored;
    rimis__naming nm = {&f, fk_name, fk_factored, fk_reps};
    mdae_diags_init(&r->warnings);
    mdae_diags_init(&r->diags);
    cr_assert_eq(sa_analyze(r->m, NULL, &r->res, NULL), MDAE_OK);
    r->rc = rimis__mode_changes(r->m, r->res, NULL, &nm, NULL, r->pool, &r->ch, &r->warnings,
                                &r->diags);
}

static void run_on(run *r, const char *name, bool factored) { run_on_n(r, name, factored, -1); }

static void run_close(run *r)
{
    rimis__changes_close(&r->ch);
    mdae_diags_close(&r->warnings);
    mdae_diags_close(&r->diags);
    fx_pool_free(r->pool);
    sa_result_free(r->res);
    mel_model_free(r->m);
}

/* The first error of d, which must exist and be located. */
static const char *first_error(const mdae_diags *d)
{
    for (size_t i = 0; i < d->count; i++)
        if (d->items[i].severity == MDAE_SEV_ERROR) {
            cr_assert_gt(d->items[i].where.start.line, 0, "not located: %s",
                         d->items[i].message);
            return d->items[i].message;
        }
    cr_assert_fail("no error");
    return NULL;
}

Test(rimis_mc, cup_and_ball_refused_naming_the_tension)
{
    run r;
    run_on(&r, "cup_and_ball.mel", true);
    cr_assert_eq(r.rc, MDAE_E_MODEL, "%s", mdae_err_name(r.rc));
    const char *e = first_error(&r.diags);
    cr_expect(strstr(e, "lambda") != NULL, "%s", e);
    cr_expect(strstr(e, "possibly impulsive") != NULL, "%s", e);
    cr_expect(strstr(e, "gamma becoming true") != NULL, "%s", e);
    cr_expect_null(r.ch.whens);
    run_close(&r);
}

Test(rimis_mc, clutch_refused_torques_impulsive_for_sure)
{
    const char *models[] = {"clutch.mel", "clutch_basic.mo"};
    for (int i = 0; i < 2; i++) {
        run r;
        run_on(&r, models[i], true);
        cr_assert_eq(r.rc, MDAE_E_MODEL, "%s: %s", models[i], mdae_err_name(r.rc));
        const char *e = first_error(&r.diags);
        if (i == 0) {
            cr_expect(strstr(e, "tau1, tau2 are impulsive when gamma becoming true") != NULL,
                      "%s", e);
            /* located at the constraint the old state violates: e3 */
            cr_expect_eq(r.diags.items[0].where.start.line, 30);
        } else {
            cr_expect(strstr(e, " impulsive when g becoming true") != NULL, "%s", e);
        }
        run_close(&r);
    }
}

/* The brake's restart systems at N = 100 are too large for the impulse
 * analysis; opening a valve between unequal pressures is still refused,
 * by the conflict of the old state with the valve's equation. */
Test(rimis_mc, brake_refused_at_scale_by_the_conflict_with_the_past)
{
    run r;
    run_on_n(&r, "brake.mel", true, 100);
    cr_assert_eq(r.rc, MDAE_E_MODEL, "%s", mdae_err_name(r.rc));
    const char *e = first_error(&r.diags);
    cr_expect(strstr(e, "violates 've1[") != NULL, "%s", e);
    cr_expect(strstr(e, "becoming true (the other mode variables unchanged)") != NULL, "%s", e);
    run_close(&r);
}

/* The Water Tank filling: entering bh erases eh2 (0 = x - xmax), which the
 * old state violates by a finite amount for the impulse analysis; bh =
 * sh >= 0 with sh = x - xmax when !bh makes the change happen when that
 * residual crosses zero, where the old state satisfies it: nothing jumps,
 * so it is accepted without a warning. With bh and bl
 * free inputs (water_tank_mo.mel) the change may come at any time:
 * refused. */
Test(rimis_mc, water_tank_triggered_change_accepted_free_inputs_refused)
{
    run r;
    run_on(&r, "water_tank.mel", false);
    cr_assert_eq(r.rc, MDAE_OK, "%s", mdae_err_name(r.rc));
    cr_expect_eq(r.warnings.count, 0, "%s",
                 r.warnings.count > 0 ? r.warnings.items[0].message : "");
    run_close(&r);
    run_on(&r, "water_tank_mo.mel", false);
    cr_assert_eq(r.rc, MDAE_E_MODEL, "%s", mdae_err_name(r.rc));
    cr_expect(strstr(first_error(&r.diags), "yh, sh are impulsive when bh becoming true") != NULL,
              "%s", first_error(&r.diags));
    run_close(&r);
}

Test(rimis_mc, water_tank_and_two_equations_accepted)
{
    const char *models[] = {"water_tank.mel", "two_equations.mel", "water_tank.mo",
                            "two_equations.mo"};
    for (int i = 0; i < 4; i++) {
        run r;
        run_on(&r, models[i], false);
        for (size_t k = 0; k < r.diags.count; k++)
            cr_log_error("%s", r.diags.items[k].message);
        cr_assert_eq(r.rc, MDAE_OK, "%s: %s", models[i], mdae_err_name(r.rc));
        cr_expect_eq(r.ch.n_resets, 0);
        cr_expect_null(r.ch.whens);
        cr_expect_eq(r.ch.n_whens, 0);
        run_close(&r);
    }
}

Test(rimis_mc, bouncing_ball_when_carried)
{
    run r;
    run_on(&r, "bouncing_ball.mo", true);
    cr_assert_eq(r.rc, MDAE_OK, "%s", mdae_err_name(r.rc));
    cr_assert_eq(r.ch.n_whens, 1);
    cr_assert_not_null(r.ch.whens);
    cr_expect_str_eq(r.ch.whens, "  when h <= 0 then\n    reinit(v, -e * pre(v));\n"
                                 "  end when;\n");
    run_close(&r);
    /* v held by state replicates: each is reinitialised */
    run_on(&r, "bouncing_ball.mo", false);
    cr_assert_eq(r.rc, MDAE_OK, "%s", mdae_err_name(r.rc));
    cr_expect_str_eq(r.ch.whens, "  when h <= 0 then\n    reinit(v_1, -e * pre(v));\n"
                                 "    reinit(v_2, -e * pre(v));\n  end when;\n");
    run_close(&r);
}

Test(rimis_mc, mel_when_renamed_after_the_output)
{
    /* the elastic Cup-and-Ball's impact: next(v) = -e * v, MEL syntax */
    run r;
    run_on(&r, "cup_and_ball_elastic_impact.mel", true);
    if (r.rc == MDAE_OK) {
        cr_expect_geq(r.ch.n_whens, 1);
        cr_expect(r.ch.whens != NULL && strstr(r.ch.whens, "reinit(") != NULL);
    } else {
        cr_expect_eq(r.rc, MDAE_E_MODEL); /* refused: the impulse check */
        cr_expect_gt(r.diags.errors, 0);
    }
    run_close(&r);
}

Test(rimis_mc, reinit_of_no_state_refused)
{
    run r;
    no_replicates = true; /* v neither factored nor held by a replicate */
    run_on(&r, "bouncing_ball.mo", false);
    no_replicates = false;
    cr_assert_eq(r.rc, MDAE_E_MODEL, "%s", mdae_err_name(r.rc));
    const char *e = first_error(&r.diags);
    cr_expect(strstr(e, "reinitialisation of 'v'") != NULL, "%s", e);
    cr_expect_null(r.ch.whens);
    run_close(&r);
}

/* A state that exists only when g: entering g, e3 gives its value. */
static const char new_state_src[] = "x : real;\n"
                                    "g : boolean = last(x) >= 1;\n"
                                    "e1 : equation der(x) = 1;\n"
                                    "if g then\n"
                                    "  y : real;\n"
                                    "  z : real;\n"
                                    "  e2 : equation der(y) = z;\n"
                                    "  e3 : equation %s\n"
                                    "end;\n";

static void new_state_run(run *r, const char *e3)
{
    memset(r, 0, sizeof *r);
    char src[512];
    snprintf(src, sizeof src, new_state_src, e3);
    cr_assert_eq(mel_model_parse(src, strlen(src), NULL, &r->m, NULL), MDAE_OK);
    r->pool = fx_pool_new();
    static fake f;
    memset(&f, 0, sizeof f);
    f.m = r->m;
    f.factored = true;
    rimis__naming nm = {&f, fk_name, fk_factored, fk_reps};
    mdae_diags_init(&r->warnings);
    mdae_diags_init(&r->diags);
    cr_assert_eq(sa_analyze(r->m, NULL, &r->res, NULL), MDAE_OK);
    r->rc = rimis__mode_changes(r->m, r->res, NULL, &nm, NULL, r->pool, &r->ch, &r->warnings,
                                &r->diags);
}

Test(rimis_mc, new_state_finite_reset)
{
    run r;
    new_state_run(&r, "y = 2 * x + 1");
    cr_assert_eq(r.rc, MDAE_OK, "%s", mdae_err_name(r.rc));
    cr_expect_eq(r.warnings.count, 0);
    cr_assert_eq(r.ch.n_resets, 1);
    const rimis__reset *z = &r.ch.resets[0];
    cr_expect_eq(z->var, (uint32_t)mel_model_find_variable(r.m, "y"));
    cr_expect_eq(z->order, 0);
    char *into = fx_format(r.m, z->into, FX_SYNTAX_MODELICA);
    char *value = fx_format(r.m, z->value, FX_SYNTAX_MODELICA);
    cr_expect_str_eq(into, "g");
    cr_expect_str_eq(value, "2 * pre(x) + 1");
    mdae_free(into);
    mdae_free(value);
    run_close(&r);
}

Test(rimis_mc, new_state_restart_warned)
{
    /* not the simple form: y is not alone on a side */
    run r;
    new_state_run(&r, "y - 2 * x = 0");
    cr_assert_eq(r.rc, MDAE_OK);
    cr_expect_eq(r.ch.n_resets, 0);
    cr_assert_eq(r.warnings.count, 1);
    const char *w = r.warnings.items[0].message;
    cr_expect(strstr(w, "'y' exists (g)") != NULL, "%s", w);
    cr_expect(strstr(w, "copied") != NULL);
    cr_expect_eq(r.warnings.items[0].where.start.line, 5);
    run_close(&r);
}

Test(rimis_mc, no_mode_variables_nothing_to_do)
{
    static const char src[] = "x : real;\ne1 : equation der(x) = -x;\n";
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(src, strlen(src), NULL, &m, NULL), MDAE_OK);
    fx_pool *pool = fx_pool_new();
    fake f;
    memset(&f, 0, sizeof f);
    f.m = m;
    rimis__naming nm = {&f, fk_name, fk_factored, fk_reps};
    rimis__changes ch;
    mdae_diags w, d;
    mdae_diags_init(&w);
    mdae_diags_init(&d);
    sa_result *res = NULL;
    cr_assert_eq(sa_analyze(m, NULL, &res, NULL), MDAE_OK);
    cr_expect_eq(rimis__mode_changes(m, NULL, NULL, &nm, NULL, pool, &ch, &w, &d),
                 MDAE_E_INVAL);
    cr_assert_eq(rimis__mode_changes(m, res, NULL, &nm, NULL, pool, &ch, &w, &d), MDAE_OK);
    sa_result_free(res);
    cr_expect_eq(w.count + d.count, 0);
    cr_expect_null(ch.whens);
    rimis__changes_close(&ch);
    rimis__changes_close(NULL);
    mel_model_free(m);
    fx_pool_free(pool);
    mdae_diags_close(&w);
    mdae_diags_close(&d);
}

/* rimis_build calls it inside its own BDD run (sa__run_on). */
typedef struct nested {
    run *r;
    int rc;
    bool bdd_after;
} nested;

static void nested_run(sa_ctx *c, void *arg)
{
    nested *n = arg;
    fake f;
    memset(&f, 0, sizeof f);
    f.m = n->r->m;
    f.factored = true;
    rimis__naming nm = {&f, fk_name, fk_factored, fk_reps};
    n->rc = rimis__mode_changes(n->r->m, n->r->res, NULL, &nm, NULL, n->r->pool, &n->r->ch,
                                &n->r->warnings, &n->r->diags);
    (void)c;
    n->bdd_after = sa__running();
}

Test(rimis_mc, inside_a_bdd_run)
{
    run r;
    run_on(&r, "cup_and_ball.mel", true);
    rimis__changes_close(&r.ch);
    mdae_diags_close(&r.diags);
    mdae_diags_init(&r.diags);
    nested n = {&r, -1, false};
    cr_assert_eq(sa__run_on(r.res, NULL, 0, nested_run, &n), MDAE_OK);
    cr_expect_eq(n.rc, MDAE_E_MODEL);
    cr_expect(n.bdd_after);
    cr_expect(strstr(first_error(&r.diags), "lambda") != NULL);
    run_close(&r);
}

/* Every allocation failing in turn: MDAE_E_NOMEM (or the answer without
 * the failure), nothing half filled, nothing leaked (LeakSanitizer). */
static void oom_on(const char *name, const char *src, int want)
{
    mdae_replace_allocator(&budget_allocator);
    budget_left = -1;
    run r;
    if (src != NULL)
        new_state_run(&r, src);
    else
        run_on(&r, name, false);
    cr_assert_eq(r.rc, want, "%s: %s", name, mdae_err_name(r.rc));
    rimis__changes_close(&r.ch);
    fake f;
    memset(&f, 0, sizeof f);
    f.m = r.m;
    rimis__naming nm = {&f, fk_name, fk_factored, fk_reps};
    bool reached = false;
    for (long n = 0; n < 100000 && !reached; n++) {
        mdae_diags w, d;
        mdae_diags_init(&w);
        mdae_diags_init(&d);
        fx_pool *pool = fx_pool_new();
        budget_left = n;
        int rc = pool == NULL ? MDAE_E_NOMEM
                              : rimis__mode_changes(r.m, r.res, NULL, &nm, NULL, pool, &r.ch,
                                                    &w, &d);
        budget_left = -1;
        if (rc == MDAE_E_NOMEM) {
            cr_assert_null(r.ch.whens);
            cr_assert_null(r.ch.resets);
        } else {
            cr_assert_eq(rc, want, "%s at %ld: %s", name, n, mdae_err_name(rc));
            reached = true;
        }
        rimis__changes_close(&r.ch);
        fx_pool_free(pool);
        mdae_diags_close(&w);
        mdae_diags_close(&d);
    }
    cr_expect(reached);
    run_close(&r);
    mdae_replace_allocator(NULL);
}

Test(rimis_mc, every_allocation_failing)
{
    oom_on("cup_and_ball.mel", NULL, MDAE_E_MODEL);
    oom_on("bouncing_ball.mo", NULL, MDAE_OK);
    oom_on("water_tank.mel", NULL, MDAE_OK);
    oom_on("new state", "y = 2 * x + 1", MDAE_OK);
}
