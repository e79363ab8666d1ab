/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_fx_body.c -- an equation's body differentiated c times
 * (engine/fx_body.h): the papers' models' differentiated equations as text
 * in both languages; on the brake, every equation a block differentiates
 * has a body, which reads back as the same expressions and, evaluated
 * along a trajectory, is the finite difference of the equation's residual; no expressions, bad arguments,
 * and a body too large to print.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "fx_body.h"
#include "mo.h"
#include "sa.h"

#include "model_files.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(fx_body, .init = begin, .fini = end, .timeout = 300);

/* ---- Helpers ------------------------------------------------------------------ */

static mel_model *parse_opt(const char *name, long long N, bool no_expressions)
{
    size_t len;
    char *text = tm_read(name, &len);
    mel_define def;
    mel_options o = tm_options_n(&def, N);
    o.no_expressions = no_expressions;
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    int rc = mo_is_modelica(text, len, name) ? mo_model_parse(text, len, &o, &m, &d)
                                             : mel_model_parse(text, len, &o, &m, &d);
    cr_assert_eq(rc, MDAE_OK, "%s: %s", name, mdae_err_name(rc));
    mdae_diags_close(&d);
    free(text);
    return m;
}

static mel_model *parse(const char *name) { return parse_opt(name, -1, false); }

static uint32_t eq_index(const mel_model *m, const char *name)
{
    for (uint32_t i = 0; i < m->n_equations; i++)
        if (strcmp(m->equations[i].name, name) == 0)
            return i;
    cr_assert_fail("no equation %s", name);
    return 0;
}

/* The body of equation `name` differentiated c times; asserts it exists. */
static char *body(const mel_model *m, const char *name, unsigned c)
{
    char *s = NULL;
    int rc = fx_body_format(m, eq_index(m, name), c, &s);
    cr_assert_eq(rc, MDAE_OK, "%s: %s", name, mdae_err_name(rc));
    cr_assert_not_null(s, "%s: no body", name);
    return s;
}

static void expect_body(const mel_model *m, const char *name, unsigned c, const char *want)
{
    char *s = body(m, name, c);
    cr_expect_str_eq(s, want, "%s differentiated %u times", name, c);
    mdae_free(s);
}

/* ---- The papers' models --------------------------------------------------------- */

Test(fx_body, water_tank_mel)
{
    /* eh2 : equation 0 = if bh then x - xmax else yh; differentiated when bh */
    mel_model *m = parse("water_tank.mel");
    cr_assert_eq(fx_body_syntax(m), FX_SYNTAX_MEL);
    expect_body(m, "eh2", 1, "0 = if bh then der(x) else der(yh)");
    expect_body(m, "el2", 1, "0 = if bl then -der(x) else der(yl)");
    expect_body(m, "e2", 1, "der(der(x)) = der(z) + der(yl) - der(yh) - der(y)");
    mel_model_free(m);
}

Test(fx_body, water_tank_modelica)
{
    mel_model *m = parse("water_tank.mo");
    cr_assert_eq(fx_body_syntax(m), FX_SYNTAX_MODELICA);
    char *s = body(m, "eh2", 1);
    cr_expect(strstr(s, "der(x)") != NULL, "%s", s);
    mdae_free(s);
    mel_model_free(m);
}

Test(fx_body, clutch_and_rldc2)
{
    mel_model *m = parse("clutch.mel");
    char *s = body(m, "e3", 1); /* c = 1 when gamma */
    cr_expect(strstr(s, "der(w1)") != NULL && strstr(s, "der(w2)") != NULL, "%s", s);
    mdae_free(s);
    mel_model_free(m);
    m = parse("rldc2.mel");
    s = body(m, "K1", 1); /* c = 1 when !g1 & !g2 */
    cr_expect(strstr(s, "der(") != NULL, "%s", s);
    mdae_free(s);
    mel_model_free(m);
}

Test(fx_body, two_equations_not_differentiated)
{
    /* TwoEquations' e is never differentiated (x' is its unknown when !p);
     * its body at c = 0 is the equation itself, folded */
    mel_model *m = parse("two_equations.mel");
    expect_body(m, "e", 0, "1 = if p then x else der(x)");
    expect_body(m, "e", 1, "0 = if p then der(x) else der(der(x))");
    mel_model_free(m);
}

/* ---- The brake: every differentiated equation, checked numerically ------------- */

/* A trajectory: unknown j is A_j sin(w_j t + f_j), so its derivatives are
 * known exactly; knowns their values; unknown functions f(a...) =
 * sum_i sin(a_i), whose partials "f.d<i>" are cos(a_i) and "f.d<i>.d<j>"
 * -sin(a_i) when i == j, else 0. */
typedef struct traj {
    const mel_model *m;
    const bool *mode;
} traj;

static double tr_var_at(uint32_t j, uint32_t order, double t)
{
    double a = 1.0 + 0.1 * (j % 7), w = 0.5 + 0.13 * (j % 11), f = 0.3 * (j % 5);
    return a * pow(w, order) * sin(w * t + f + order * 1.5707963267948966);
}

static double tr_known(void *ctx, uint32_t k)
{
    const traj *tr = ctx;
    return tr->m->knowns[k].known ? tr->m->knowns[k].value : 0.5;
}

static bool tr_mode(void *ctx, uint32_t k)
{
    const traj *tr = ctx;
    return tr->mode[k];
}

static double tr_call(void *ctx, const char *name, uint32_t n, const double *args)
{
    (void)ctx;
    const char *d1 = strstr(name, ".d");
    if (d1 == NULL) {
        double s = 0;
        for (uint32_t i = 0; i < n; i++)
            s += sin(args[i]);
        return s;
    }
    unsigned i = (unsigned)atoi(d1 + 2);
    const char *d2 = strstr(d1 + 2, ".d");
    cr_assert(i >= 1 && i <= n, "%s", name);
    if (d2 == NULL)
        return cos(args[i - 1]);
    cr_assert_null(strstr(d2 + 2, ".d"), "third partial %s", name);
    return (unsigned)atoi(d2 + 2) == i ? -sin(args[i - 1]) : 0.0;
}

/* The residual lhs - rhs of e's sides at time t (the trajectory shifted:
 * every unknown read at t). */
typedef struct shifted {
    traj tr;
    double t;
} shifted;

static double sh_var(void *ctx, uint32_t j, uint32_t order)
{
    return tr_var_at(j, order, ((shifted *)ctx)->t);
}

static double residual_at(const traj *tr, const fx_node *l, const fx_node *r, double t)
{
    shifted s = {*tr, t};
    fx_point at = {.time = t, .var = sh_var, .known = tr_known, .mode = tr_mode,
                   .call = tr_call, .ctx = &s};
    double a, b;
    cr_assert_eq(fx_eval(l, &at, &a), MDAE_OK);
    cr_assert_eq(fx_eval(r, &at, &b), MDAE_OK);
    return a - b;
}

/* Equation eq differentiated c times at t = 1.7 against central finite
 * differences of its residual (c = 1 or 2). */
static void check_numerically(const mel_model *m, const bool *mode, uint32_t eq, unsigned c)
{
    fx_pool *p = fx_pool_new();
    cr_assert_not_null(p);
    const fx_node *l0, *r0, *lc, *rc;
    cr_assert_eq(fx_body_sides(m, eq, 0, p, &l0, &r0), MDAE_OK);
    cr_assert_eq(fx_body_sides(m, eq, c, p, &lc, &rc), MDAE_OK);
    cr_assert(l0 && r0 && lc && rc);
    traj tr = {m, mode};
    double t = 1.7, h = c == 1 ? 1e-5 : 1e-3;
    double got = residual_at(&tr, lc, rc, t), want;
    if (c == 1)
        want = (residual_at(&tr, l0, r0, t + h) - residual_at(&tr, l0, r0, t - h)) / (2 * h);
    else
        want = (residual_at(&tr, l0, r0, t + h) - 2 * residual_at(&tr, l0, r0, t) +
                residual_at(&tr, l0, r0, t - h)) / (h * h);
    double scale = fabs(want) > 1 ? fabs(want) : 1;
    cr_expect_leq(fabs(got - want) / scale, 1e-4, "%s': %g against %g",
                  m->equations[eq].name, got, want);
    fx_pool_free(p);
}

/* The body, appended to the model's text as one more equation, reads back
 * as the very trees fx_body_sides gives (fx_print's promise, through the
 * whole front-end). */
static void check_reparse(const char *text, long long N, const mel_model *m, uint32_t eq,
                          unsigned c, const char *body)
{
    size_t n = strlen(text) + strlen(body) + 64;
    char *more = malloc(n);
    cr_assert_not_null(more);
    snprintf(more, n, "%s\nbody_check : equation %s;\n", text, body);
    mel_define def = {"N", N};
    mel_options o = {.defines = &def, .n_defines = 1};
    mel_model *m2 = NULL;
    cr_assert_eq(mel_model_parse(more, strlen(more), &o, &m2, NULL), MDAE_OK, "%s", body);
    const mel_equation *q = &m2->equations[m2->n_equations - 1];
    cr_assert_str_eq(q->name, "body_check");
    fx_pool *p = fx_pool_new();
    const fx_node *l, *r;
    cr_assert_eq(fx_body_sides(m, eq, c, p, &l, &r), MDAE_OK);
    cr_expect(fx_equal(q->lhs, l) && fx_equal(q->rhs, r), "%s does not read back", body);
    fx_pool_free(p);
    mel_model_free(m2);
    free(more);
}

Test(fx_body, brake_every_differentiated_equation)
{
    mel_model *m = parse_opt("brake.mel", 4, false);
    char *text = tm_slurp("brake.mel");
    sa_result *r = NULL;
    cdg_graph *g = NULL;
    cr_assert_eq(sa_analyze(m, NULL, &r, NULL), MDAE_OK);
    cr_assert_eq(cdg_build(r, NULL, &g, NULL), MDAE_OK);
    cdg_report *rep = NULL;
    cr_assert_eq(cdg_graph_report(g, &rep), MDAE_OK);
    bool *mode = calloc(m->n_modes + 1, sizeof *mode);
    unsigned checked = 0;
    for (size_t k = 0; k < rep->n_blocks; k++) {
        const cdg_report_block *rb = &rep->blocks[k];
        /* a mode of the block: its first cube, don't-cares false */
        for (uint32_t v = 0; v < m->n_modes; v++)
            mode[v] = rb->guard.n_cubes > 0 && sa_set_literal(&rb->guard, 0, v) == 1;
        for (size_t q = 0; q < rb->block.n_equations; q++) {
            const cdg_item *it = &rb->block.equations[q];
            if (it->order <= 0)
                continue;
            char *s = body(m, it->name, (unsigned)it->order);
            cr_expect(strstr(s, " = ") != NULL && strstr(s, "der(") != NULL, "%s", s);
            check_reparse(text, 4, m, it->index, (unsigned)it->order, s);
            mdae_free(s);
            check_numerically(m, mode, it->index, (unsigned)it->order);
            checked++;
        }
    }
    cr_expect_geq(checked, 4, "the brake differentiates some equations");
    free(text);
    free(mode);
    cdg_report_free(rep);
    cdg_graph_free(g);
    sa_result_free(r);
    mel_model_free(m);
}

Test(fx_body, second_derivatives_numerically)
{
    mel_model *m = parse_opt("brake.mel", 2, false);
    bool *mode = calloc(m->n_modes + 1, sizeof *mode);
    for (uint32_t e = 0; e < m->n_equations; e++)
        check_numerically(m, mode, e, 2);
    free(mode);
    mel_model_free(m);
}

/* ---- No expressions, bad arguments, limits --------------------------------------- */

Test(fx_body, no_expressions)
{
    mel_model *m = parse_opt("water_tank.mel", -1, true);
    char *s = (char *)"untouched";
    cr_assert_eq(fx_body_format(m, eq_index(m, "eh2"), 1, &s), MDAE_OK);
    cr_assert_null(s);
    mel_model_free(m);
}

Test(fx_body, bad_arguments)
{
    mel_model *m = parse("water_tank.mel");
    char *s = NULL;
    cr_assert_eq(fx_body_format(m, m->n_equations, 1, &s), MDAE_E_INVAL);
    cr_assert_null(s);
    cr_assert_eq(fx_body_format(NULL, 0, 1, &s), MDAE_E_INVAL);
    cr_assert_eq(fx_body_format(m, 0, 1, NULL), MDAE_E_INVAL);
    fx_pool *p = fx_pool_new();
    const fx_node *l, *r;
    cr_assert_eq(fx_body_sides(m, 0, 1, NULL, &l, &r), MDAE_E_INVAL);
    cr_assert_eq(fx_body_sides(m, 0, MEL_MAX_ORDER + 1, p, &l, &r), MDAE_E_LIMIT);
    fx_pool_free(p);
    mel_model_free(m);
}

Test(fx_body, too_large)
{
    /* a product of six functions: its k-th derivative has 6^k products */
    const char *src = "x : real; y : real;\n"
                      "e : equation 0 = sin(x) * cos(y) * exp(x) * tan(y) * sqrt(x) * log(y);\n"
                      "f : equation x = y;\n";
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(src, strlen(src), NULL, &m, NULL), MDAE_OK);
    char *s = NULL;
    cr_expect_eq(fx_body_format(m, 0, 12, &s), MDAE_E_LIMIT);
    cr_expect_null(s);
    cr_assert_eq(fx_body_format(m, 0, 1, &s), MDAE_OK);
    cr_expect_not_null(s);
    mdae_free(s);
    mel_model_free(m);
}
