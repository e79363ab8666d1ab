/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_rimis.c -- the core of RIMIS (engine/rimis.h): the
 * structures of RR-9459 Fig. 13 (TwoEquations) and Fig. 15 (the Water
 * Tank) read from rimis_result (counts of replicates, multiplexers,
 * reinitialisations, groups; the names and equations expected), the text
 * reading back through mo_model_parse, the refusal of a singular model as
 * a located error, determinism, max_lines, max_bytes, guarding on and off. The deep
 * independent checks (approximate analysis, block containment, numeric
 * equivalence) are tests/engine/test_rimis_ref.c's.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "mo.h"
#include "rimis.h"
#include "sa.h"

#include "model_files.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(rimis, .init = begin, .fini = end, .timeout = 300);

typedef struct fixture {
    char *text;
    mel_model *m;
    sa_result *r;
    cdg_graph *g;
    rimis_result *res;
    mdae_diags d;
} fixture;

/* The RIMIS of text (malloc'd, fx owns it), MEL or Modelica. */
static int build_text(fixture *fx, char *text, size_t n, bool mel, const rimis_options *opt)
{
    memset(fx, 0, sizeof *fx);
    fx->text = text;
    mdae_diags_init(&fx->d);
    int rc = mel ? mel_model_parse(fx->text, n, NULL, &fx->m, &fx->d)
                 : mo_model_parse(fx->text, n, NULL, &fx->m, &fx->d);
    cr_assert_eq(rc, MDAE_OK);
    cr_assert_eq(sa_analyze(fx->m, NULL, &fx->r, &fx->d), MDAE_OK);
    cr_assert_eq(cdg_build(fx->r, NULL, &fx->g, &fx->d), MDAE_OK);
    return rimis_build(fx->m, fx->r, fx->g, opt, &fx->res, &fx->d);
}

static int build(fixture *fx, const char *name, const rimis_options *opt)
{
    size_t n = 0;
    char *text = tm_read(name, &n);
    return build_text(fx, text, n, strstr(name, ".mel") != NULL, opt);
}

static void unload(fixture *fx)
{
    rimis_result_free(fx->res);
    cdg_graph_free(fx->g);
    sa_result_free(fx->r);
    mel_model_free(fx->m);
    mdae_diags_close(&fx->d);
    free(fx->text);
}

static long var_named(const rimis_result *res, const char *name)
{
    for (uint32_t k = 0; k < res->n_vars; k++)
        if (strcmp(res->vars[k].name, name) == 0)
            return (long)k;
    return -1;
}

/* The variable standing for (source var, order) of `kind` under the
 * condition whose text is cond (NULL: any). */
static long var_for(const fixture *fx, const char *src, int order, rimis_var_kind kind,
                    const char *cond)
{
    long u = mel_model_find_variable(fx->m, src);
    cr_assert_geq(u, 0);
    const rimis_result *res = fx->res;
    for (uint32_t k = 0; k < res->n_vars; k++) {
        const rimis_var *v = &res->vars[k];
        if (v->var != (uint32_t)u || v->order != order || v->kind != kind)
            continue;
        if (cond == NULL || (v->cond >= 0 && strcmp(res->conds[v->cond].text, cond) == 0))
            return (long)k;
    }
    return -1;
}

static uint32_t count_kind(const rimis_result *res, rimis_eq_kind kind)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < res->n_eqs; k++)
        n += res->eqs[k].kind == kind;
    return n;
}

/* The text of line `line` (1-based), in a static buffer. */
static const char *line_of(const rimis_result *res, uint32_t line)
{
    static char buf[512];
    const char *p = res->text;
    for (uint32_t k = 1; k < line && p != NULL; k++) {
        p = strchr(p, '\n');
        p = p != NULL ? p + 1 : NULL;
    }
    cr_assert_not_null(p);
    size_t n = strcspn(p, "\n");
    cr_assert_lt(n, sizeof buf);
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

/* The equation that defines variable v, of kind `kind`, or -1. */
static long eq_defining(const rimis_result *res, long v, rimis_eq_kind kind)
{
    for (uint32_t k = 0; k < res->n_eqs; k++)
        if (res->eqs[k].kind == kind && res->eqs[k].defines == v)
            return (long)k;
    return -1;
}

/* The text reads back through mo_model_parse without error; the number
 * of transient modes (mel_model.n_whens) it declares. */
static uint32_t reads_back(const rimis_result *res)
{
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    int rc = mo_model_parse(res->text, res->text_len, NULL, &m, &d);
    for (size_t i = 0; i < d.count; i++) {
        char *s = mdae_diag_format(&d.items[i], NULL);
        fprintf(stderr, "%s\n", s);
        mdae_free(s);
    }
    cr_assert_eq(rc, MDAE_OK, "%s", res->text);
    cr_assert_eq(d.errors, 0);
    uint32_t n_whens = m->n_whens;
    mel_model_free(m);
    mdae_diags_close(&d);
    return n_whens;
}

/* ---- RR-9459 Fig. 13 ------------------------------------------------------ */

Test(rimis, two_equations_fig13)
{
    fixture fx;
    cr_assert_eq(build(&fx, "two_equations.mel", NULL), MDAE_OK);
    const rimis_result *res = fx.res;
    cr_assert_eq(res->n_groups, 2);
    cr_assert_eq(res->n_replicates, 3);
    cr_assert_eq(res->n_multiplexers, 1);
    cr_assert_eq(res->n_reinits, 1);
    cr_assert_eq(res->n_conds, 2);
    long x2 = var_for(&fx, "x", 0, RIMIS_V_REPLICATE, "p");
    long x3 = var_for(&fx, "x", 0, RIMIS_V_REPLICATE, "not p");
    long xp3 = var_for(&fx, "x", 1, RIMIS_V_REPLICATE, "not p");
    cr_assert(x2 >= 0 && x3 >= 0 && xp3 >= 0);
    cr_assert(!res->vars[x2].state);
    cr_assert(res->vars[x3].state);
    cr_assert_eq(var_for(&fx, "x", 1, RIMIS_V_DUMMY, NULL), -1); /* x_p read by nobody */
    long x = var_named(res, "x");
    long mx = eq_defining(res, x, RIMIS_EQ_MULTI);
    cr_assert_geq(mx, 0);
    char want[128];
    snprintf(want, sizeof want, "  x = if p then %s else %s;", res->vars[x2].name,
             res->vars[x3].name);
    cr_assert_str_eq(line_of(res, res->eqs[mx].line), want);
    long dx = eq_defining(res, x3, RIMIS_EQ_DIFF);
    cr_assert_geq(dx, 0);
    snprintf(want, sizeof want, "  der(%s) = %s;", res->vars[x3].name, res->vars[xp3].name);
    cr_assert_str_eq(line_of(res, res->eqs[dx].line), want);
    for (uint32_t k = 0; k < res->n_eqs; k++)
        if (res->eqs[k].kind == RIMIS_EQ_REINIT) {
            snprintf(want, sizeof want, "  when {not p} then reinit(%s, pre(x)); end when;",
                     res->vars[x3].name);
            cr_assert_str_eq(line_of(res, res->eqs[k].line), want);
        }
    cr_assert_eq(count_kind(res, RIMIS_EQ_MODE), 1);
    /* the reinit's condition is a long mode: no transient mode read back */
    cr_assert_eq(reads_back(res), 0);
    unload(&fx);
}

/* ---- Start values (rimis.h step 2) ---------------------------------------- */

/* x is TwoEquations' (multiplexed over x_1 under p, the state x_2 under
 * not p), v a state in every mode (FACTORED) with the Water Tank's start
 * expression, w algebraic (DIRECT). */
static const char start_values_mo[] =
    "model StartValues\n"
    "  constant Real xmin = 0.0;\n"
    "  constant Real xmax = 1.0;\n"
    "  Real x(start = xmax / 4, fixed = true);\n"
    "  Real v(start = (xmin + xmax) / 2, fixed = true);\n"
    "  Real w(start = 2, fixed = false);\n"
    "  Boolean p;\n"
    "equation\n"
    "  p = (x >= 1);\n"
    "  1 = if p then x else der(x);\n"
    "  der(v) = if p then 1 else -v;\n"
    "  w = 2 * v;\n"
    "end StartValues;\n";

/* want somewhere in the RIMIS text. */
static void expect_declared(const rimis_result *res, const char *want)
{
    cr_expect(strstr(res->text, want) != NULL, "no `%s` in\n%s", want, res->text);
}

Test(rimis, start_values)
{
    fixture fx;
    cr_assert_eq(build_text(&fx, strdup(start_values_mo), strlen(start_values_mo), false, NULL),
                 MDAE_OK);
    const rimis_result *res = fx.res;
    long x1 = var_for(&fx, "x", 0, RIMIS_V_REPLICATE, "p");
    long x2 = var_for(&fx, "x", 0, RIMIS_V_REPLICATE, "not p");
    cr_assert(x1 >= 0 && x2 >= 0 && res->vars[x2].state && !res->vars[x1].state);
    char want[128];
    /* the state replicate: the source's start, fixed (Fig. 13's x_3) */
    snprintf(want, sizeof want, "  Real %s(start = xmax / 4, fixed = true);",
             res->vars[x2].name);
    expect_declared(res, want);
    /* the algebraic replicate: a guess */
    snprintf(want, sizeof want, "  Real %s(start = xmax / 4);", res->vars[x1].name);
    expect_declared(res, want);
    /* the multiplexed source: none (its replicates carry it) */
    expect_declared(res, "  Real x;\n");
    /* FACTORED: on the source variable, as the Water Tank's x */
    expect_declared(res, "  Real v(start = (xmin + xmax) / 2, fixed = true);\n");
    /* DIRECT (algebraic): a guess */
    expect_declared(res, "  Real w(start = 2);\n");
    /* read back: the importer keeps them */
    mel_model *o = NULL;
    cr_assert_eq(mo_model_parse(res->text, res->text_len, NULL, &o, NULL), MDAE_OK);
    long ov = mel_model_find_variable(o, "v"), ox = mel_model_find_variable(o, "x");
    long ox2 = mel_model_find_variable(o, res->vars[x2].name);
    cr_assert(ov >= 0 && ox >= 0 && ox2 >= 0);
    cr_expect(o->variables[ov].fixed && o->variables[ov].start != NULL);
    cr_expect(o->variables[ox2].fixed && o->variables[ox2].start != NULL);
    cr_expect(!o->variables[ox].fixed && o->variables[ox].start == NULL);
    mel_model_free(o);
    unload(&fx);
}

/* MEL has no start values: nothing is printed. */
Test(rimis, start_values_mel)
{
    fixture fx;
    cr_assert_eq(build(&fx, "two_equations.mel", NULL), MDAE_OK);
    cr_expect_null(strstr(fx.res->text, "start"), "%s", fx.res->text);
    for (uint32_t v = 0; v < fx.m->n_variables; v++)
        cr_expect(fx.m->variables[v].start == NULL && !fx.m->variables[v].fixed);
    unload(&fx);
}

/* ---- RR-9459 Fig. 15 ------------------------------------------------------ */

static void expect_multiplexed(const fixture *fx, const char *name, int order)
{
    long u = mel_model_find_variable(fx->m, name);
    for (uint32_t k = 0; k < fx->res->n_vars; k++) {
        const rimis_var *v = &fx->res->vars[k];
        if (v->var == (uint32_t)u && v->order == order &&
            (v->kind == RIMIS_V_SOURCE || v->kind == RIMIS_V_DUMMY)) {
            cr_assert_geq(eq_defining(fx->res, (long)k, RIMIS_EQ_MULTI), 0, "%s", name);
            return;
        }
    }
    cr_assert_fail("%s^(%d) is not declared", name, order);
}

/* The block equation of source equation `eq` under condition cond. */
static const char *block_line(const fixture *fx, const char *eq, const char *cond)
{
    long i = mel_model_find_equation(fx->m, eq);
    const rimis_result *res = fx->res;
    for (uint32_t k = 0; k < res->n_eqs; k++) {
        const rimis_eq *q = &res->eqs[k];
        if (q->kind != RIMIS_EQ_BLOCK || q->equation != i)
            continue;
        long c = res->groups[q->block].cond;
        if (c >= 0 && strcmp(res->conds[c].text, cond) == 0)
            return line_of(res, q->line);
    }
    cr_assert_fail("no block equation %s under %s", eq, cond);
    return NULL;
}

Test(rimis, water_tank_fig15)
{
    fixture fx;
    cr_assert_eq(build(&fx, "water_tank.mel", NULL), MDAE_OK);
    const rimis_result *res = fx.res;
    cr_assert_eq(res->n_groups, 13);
    cr_assert_eq(res->n_replicates, 11);
    cr_assert_eq(res->n_multiplexers, 5);
    cr_assert_eq(res->n_reinits, 0);
    cr_assert_eq(count_kind(res, RIMIS_EQ_BLOCK), 13);
    const char *mux[] = {"yh", "yl", "sh", "sl"};
    for (size_t k = 0; k < 4; k++)
        expect_multiplexed(&fx, mux[k], 0);
    expect_multiplexed(&fx, "x", 1);
    /* x factored: the state itself, der(x) = x_p */
    long x = var_named(res, "x"), xp = var_for(&fx, "x", 1, RIMIS_V_DUMMY, NULL);
    cr_assert(x >= 0 && xp >= 0 && res->vars[x].state);
    long dx = eq_defining(res, x, RIMIS_EQ_DIFF);
    cr_assert_str_eq(line_of(res, res->eqs[dx].line), "  der(x) = x_p;");
    cr_assert_eq(var_for(&fx, "x", 0, RIMIS_V_REPLICATE, NULL), -1);
    /* y and z written directly */
    cr_assert_eq(var_for(&fx, "y", 0, RIMIS_V_REPLICATE, NULL), -1);
    cr_assert_eq(var_for(&fx, "z", 0, RIMIS_V_REPLICATE, NULL), -1);
    /* the reads through the invariant (section 4.6.4): bl reads yh under not bh */
    long yh5 = var_for(&fx, "yh", 0, RIMIS_V_REPLICATE, "not bh");
    long yl4 = var_for(&fx, "yl", 0, RIMIS_V_REPLICATE, "bl");
    long xp4 = var_for(&fx, "x", 1, RIMIS_V_REPLICATE, "bl");
    cr_assert(yh5 >= 0 && yl4 >= 0 && xp4 >= 0);
    char want[256];
    snprintf(want, sizeof want, "  if bl then %s = z + %s - %s - y; else %s = 0; end if;",
             res->vars[xp4].name, res->vars[yl4].name, res->vars[yh5].name, res->vars[yl4].name);
    cr_assert_str_eq(block_line(&fx, "e2", "bl"), want);
    long sh5 = var_for(&fx, "sh", 0, RIMIS_V_REPLICATE, "not bh");
    snprintf(want, sizeof want, "  if not bh then %s = x - xmax; else %s = 0; end if;",
             res->vars[sh5].name, res->vars[sh5].name);
    cr_assert_str_eq(block_line(&fx, "eh1", "not bh"), want);
    cr_assert_eq(count_kind(res, RIMIS_EQ_ASSERT), 1);
    for (uint32_t k = 0; k < res->n_vars; k++)
        cr_assert_neq(res->vars[k].kind, RIMIS_V_READ);
    reads_back(res);
    unload(&fx);
}

Test(rimis, no_guard)
{
    fixture fx;
    rimis_options o = {.no_guard = true, .model_name = "WaterTankRIMIS"};
    cr_assert_eq(build(&fx, "water_tank.mel", &o), MDAE_OK);
    cr_assert_eq(strncmp(fx.res->text, "model WaterTankRIMIS\n", 21), 0);
    for (uint32_t k = 0; k < fx.res->n_eqs; k++)
        cr_assert(!fx.res->eqs[k].guarded);
    long yh5 = var_for(&fx, "yh", 0, RIMIS_V_REPLICATE, "not bh");
    char want[64];
    snprintf(want, sizeof want, "  0 = %s;", fx.res->vars[yh5].name);
    cr_assert_str_eq(block_line(&fx, "eh2", "not bh"), want);
    reads_back(fx.res);
    unload(&fx);
}

/* Section 4.7: in a block of two equations, each equation's `else w = 0`
 * names a different unknown of the block (a perfect matching). */
Test(rimis, guards_match_the_block)
{
    fixture fx;
    static const char text[] = "z : real;\nx : real;\ny : real;\ng : boolean = z >= 0;\n"
                               "ez : equation der(z) = 1;\n"
                               "e1 : equation 0 = if g then x + y - z else x - 1;\n"
                               "e2 : equation 0 = if g then x - y else y - 2;\n";
    cr_assert_eq(build_text(&fx, strdup(text), strlen(text), true, NULL), MDAE_OK);
    const rimis_result *res = fx.res;
    bool seen = false;
    for (uint32_t k = 0; k < res->n_groups; k++) {
        const rimis_group *gr = &res->groups[k];
        if (gr->n_eqs != 2)
            continue;
        seen = true;
        long w[2];
        for (uint32_t i = 0; i < 2; i++) {
            const rimis_eq *q = &res->eqs[gr->eqs[i]];
            cr_assert(q->guarded);
            w[i] = q->defines;
            cr_assert_eq(res->vars[w[i]].kind, RIMIS_V_REPLICATE);
            cr_assert_eq(res->vars[w[i]].block, (long)gr->block);
            char want[64];
            snprintf(want, sizeof want, "; else %s + 0.25 * ", res->vars[w[i]].name);
            cr_assert_not_null(strstr(line_of(res, q->line), want));
        }
        cr_assert_neq(w[0], w[1]);
    }
    cr_assert(seen);
    reads_back(res);
    unload(&fx);
}

/* Step 6: a state that exists only when g gets the restart value the
 * mode-change analysis determines (rimis_mc.c), not a copy. */
Test(rimis, finite_reset)
{
    fixture fx;
    static const char text[] = "x : real;\ng : boolean = last(x) >= 1;\n"
                               "e1 : equation der(x) = 1;\n"
                               "if g then\n  y : real;\n  z : real;\n"
                               "  e2 : equation der(y) = z;\n  e3 : equation y = 2 * x + 1;\nend;\n";
    cr_assert_eq(build_text(&fx, strdup(text), strlen(text), true, NULL), MDAE_OK);
    const rimis_result *res = fx.res;
    cr_assert_eq(res->n_reinits, 1);
    for (uint32_t k = 0; k < res->n_eqs; k++)
        if (res->eqs[k].kind == RIMIS_EQ_REINIT)
            cr_assert_str_eq(line_of(res, res->eqs[k].line),
                             "  when {g} then reinit(y, 2 * pre(x) + 1); end when;");
    reads_back(res);
    unload(&fx);
}

/* The refusals of the mode-change step reach the caller. */
Test(rimis, impulsive_refused)
{
    fixture fx;
    cr_assert_eq(build(&fx, "clutch.mel", NULL), MDAE_E_MODEL);
    cr_assert_null(fx.res);
    cr_assert_not_null(strstr(fx.d.items[fx.d.count - 1].message, "impulsive"));
    unload(&fx);
}

/* accept_jumps: the clutch's impulsive change is a warning, the states
 * copied, and the output is given. */
Test(rimis, impulsive_accepted_when_asked)
{
    fixture fx;
    rimis_options opt = {.accept_jumps = true};
    cr_assert_eq(build(&fx, "clutch.mel", &opt), MDAE_OK);
    cr_assert_not_null(fx.res);
    bool warned = false;
    for (size_t k = 0; k < fx.res->warnings.count; k++)
        warned = warned || (strstr(fx.res->warnings.items[k].message, "impulsive") != NULL &&
                            strstr(fx.res->warnings.items[k].message, "accepted as asked") != NULL);
    cr_expect(warned);
    for (size_t k = 0; k < fx.d.count; k++)
        cr_expect_neq(fx.d.items[k].severity, MDAE_SEV_ERROR, "%s", fx.d.items[k].message);
    unload(&fx);
}

/* An equation whose expression cancels an incidence of the structure
 * (x1 - x1) keeps it in the output (0 * x1: fx_dt_keep), so that the
 * output's structure is the source's, and no warning is needed. */
Test(rimis, cancelled_incidence_kept)
{
    fixture fx;
    static const char text[] = "x1 : real;\nx2 : real;\ne1 : equation x1 - x1 + x2 = 0;\n"
                               "e2 : equation der(x2) = x1;\n";
    cr_assert_eq(build_text(&fx, strdup(text), strlen(text), true, NULL), MDAE_OK);
    cr_expect_not_null(strstr(fx.res->text, "0 * x1 + x2 = 0;"), "%s", fx.res->text);
    cr_expect_eq(fx.res->warnings.count, 0);
    unload(&fx);
}

/* ---- Refusals, limits, determinism ------------------------------------------ */

Test(rimis, singular_refused)
{
    fixture fx;
    cr_assert_eq(build(&fx, "singular_simple.mel", NULL), MDAE_E_MODEL);
    cr_assert_null(fx.res);
    cr_assert_geq(fx.d.errors, 1);
    const mdae_diag *e = &fx.d.items[fx.d.count - 1];
    cr_assert_gt(e->where.start.line, 0);
    cr_assert_not_null(strstr(e->message, "singular when"), "%s", e->message);
    unload(&fx);
}

/* Past max_bytes (default: what the front-ends read back), a located
 * limit error, never a text mdae cannot read (FullRobot's 67 MB). */
Test(rimis, max_bytes)
{
    fixture fx;
    rimis_options o = {.max_bytes = 1000};
    cr_assert_eq(build(&fx, "water_tank.mel", &o), MDAE_E_LIMIT);
    cr_assert_null(fx.res);
    cr_assert_geq(fx.d.errors, 1);
    cr_expect_not_null(strstr(fx.d.items[fx.d.count - 1].message, "max_bytes"));
    unload(&fx);
    o.max_bytes = 100000;
    cr_assert_eq(build(&fx, "water_tank.mel", &o), MDAE_OK);
    unload(&fx);
}

Test(rimis, max_lines)
{
    fixture fx;
    rimis_options o = {.max_lines = 10};
    cr_assert_eq(build(&fx, "water_tank.mel", &o), MDAE_E_LIMIT);
    cr_assert_null(fx.res);
    cr_assert_geq(fx.d.errors, 1);
    unload(&fx);
    o.max_lines = 200;
    cr_assert_eq(build(&fx, "water_tank.mel", &o), MDAE_OK);
    unload(&fx);
}

Test(rimis, deterministic)
{
    const char *models[] = {"water_tank.mel", "two_equations.mel", "rldc_chain.mel"};
    for (size_t k = 0; k < 3; k++) {
        fixture a, b;
        cr_assert_eq(build(&a, models[k], NULL), MDAE_OK, "%s", models[k]);
        char *first = strdup(a.res->text);
        uint32_t n_eqs = a.res->n_eqs;
        unload(&a);
        sa_end(); /* a new manager: other BDD nodes, the same text */
        cr_assert_eq(sa_begin(NULL), MDAE_OK);
        cr_assert_eq(build(&b, models[k], NULL), MDAE_OK);
        cr_assert_str_eq(b.res->text, first);
        cr_assert_eq(b.res->n_eqs, n_eqs);
        free(first);
        unload(&b);
    }
}

Test(rimis, invalid_arguments)
{
    rimis_result *res = NULL;
    cr_assert_eq(rimis_build(NULL, NULL, NULL, NULL, &res, NULL), MDAE_E_INVAL);
    cr_assert_str_eq(rimis_eq_kind_name(RIMIS_EQ_MULTI), "multi");
    cr_assert_str_eq(rimis_var_kind_name(RIMIS_V_READ), "read");
    rimis_result_free(NULL);
}

/* MEL lets a mode variable be defined by a Real (read structurally only);
 * Modelica cannot read `b = r`: b is printed as a free input, with a
 * located warning, and the text reads back. */
Test(rimis, real_mode_definition_printed_as_input)
{
    fixture fx;
    static const char text[] = "x : real;\ng : boolean = x;\n"
                               "e : equation 0 = if g then x - 1 else der(x) - 1;\n";
    cr_assert_eq(build_text(&fx, strdup(text), strlen(text), true, NULL), MDAE_OK);
    cr_expect_not_null(strstr(fx.res->text, "input Boolean g;"), "%s", fx.res->text);
    bool warned = false;
    for (size_t k = 0; k < fx.res->warnings.count; k++)
        warned = warned || (strstr(fx.res->warnings.items[k].message, "'g' is a Real") != NULL &&
                            fx.res->warnings.items[k].where.start.line == 2);
    cr_expect(warned);
    mel_model *back = NULL;
    cr_expect_eq(mo_model_parse(fx.res->text, fx.res->text_len, NULL, &back, NULL), MDAE_OK,
                 "%s", fx.res->text);
    mel_model_free(back);
    unload(&fx);
}

/* A Modelica source's output is named after its model (Fig. 13's
 * TwoEquations_rimis); a MEL file has no name: Model_rimis, unless the
 * caller gives one. */
Test(rimis, named_after_the_source_model)
{
    fixture fx;
    cr_assert_eq(build(&fx, "two_equations.mo", NULL), MDAE_OK);
    cr_expect_eq(strncmp(fx.res->text, "model TwoEquations_rimis\n", 25), 0, "%s", fx.res->text);
    cr_expect_not_null(strstr(fx.res->text, "end TwoEquations_rimis;"));
    unload(&fx);
    cr_assert_eq(build(&fx, "two_equations.mel", NULL), MDAE_OK);
    cr_expect_eq(strncmp(fx.res->text, "model Model_rimis\n", 18), 0, "%s", fx.res->text);
    unload(&fx);
}
