/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/ref/test_fx_check.c -- the oracle of tests/support/fx_check.h on
 * hand-built models: the Water Tank's eh2 and e2, a next() of a when-body,
 * opaque and pre() reads, and the mismatches it must report.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "fx.h"
#include "fx_check.h"

static const mdae_range nw;
static const mel_guard g_true = {MEL_G_TRUE, 0, NULL, NULL};
static const mel_guard g_bh = {MEL_G_VAR, 0, NULL, NULL};
static const mel_guard g_not_bh = {MEL_G_NOT, 0, &g_bh, NULL};

/* Variables x, yh, z; mode bh; known xmax; equations below. */
static const mel_variable vars[3] = {{.name = "x", .guard = &g_true},
                                     {.name = "yh", .guard = &g_true},
                                     {.name = "z", .guard = &g_true}};
static const mel_mode modes[1] = {{.name = "bh", .reads_var = -1}};
static const mel_known knowns[1] = {{.name = "xmax", .value = 1, .known = true}};

static mel_model model_of(const mel_equation *eqs, uint32_t n)
{
    return (mel_model){.n_modes = 1, .modes = modes, .n_variables = 3, .variables = vars,
                       .n_equations = n, .equations = eqs, .n_knowns = 1, .knowns = knowns};
}

static bool check(const mel_model *m, bool bh, char *why, size_t len)
{
    bool mode[1] = {bh};
    return fx_check_incidences(m, mode, why, len);
}

Test(fx_check, water_tank_eh2)
{
    fx_pool *p = fx_pool_new();
    /* eh2: 0 = if bh then x - xmax else yh */
    const fx_node *rhs =
        fx_if(p, fx_mode(p, 0, nw),
              fx_bin(p, FX_ADD, fx_var(p, 0, 0, nw), fx_un(p, FX_NEG, fx_known(p, 0, nw), nw), nw),
              fx_var(p, 1, 0, nw), nw);
    mel_order_case cx = {&g_bh, 0, nw, 0}, cyh = {&g_not_bh, 0, nw, 0};
    mel_incidence incs[2] = {{0, 1, &cx}, {1, 1, &cyh}};
    mel_equation eq = {.name = "eh2", .guard = &g_true, .n_incs = 2, .incs = incs,
                       .lhs = fx_num(p, 0, true, nw), .rhs = rhs};
    mel_model m = model_of(&eq, 1);
    char why[200];
    cr_assert(check(&m, true, why, sizeof why), "%s", why);
    cr_assert(check(&m, false, why, sizeof why), "%s", why);
    /* an incidence of yh in every mode: wrong when bh */
    cyh.guard = &g_true;
    cr_assert(check(&m, false, why, sizeof why), "%s", why);
    cr_assert_not(check(&m, true, why, sizeof why));
    cr_assert(strstr(why, "eh2") != NULL && strstr(why, "yh") != NULL, "%s", why);
    /* a condition that is not static reads both branches */
    eq.rhs = fx_if(p, fx_bin(p, FX_GT, fx_var(p, 2, 0, nw), fx_num(p, 0, true, nw), nw),
                   rhs->kids[1], rhs->kids[2], nw);
    cx.guard = &g_true;
    cr_assert(check(&m, true, why, sizeof why), "%s", why);
    fx_pool_free(p);
}

Test(fx_check, orders_der_next_pre_opaque)
{
    fx_pool *p = fx_pool_new();
    /* der(x + pre(yh)) = next(z) + {x', z} (opaque) */
    const fx_node *lhs = fx_un(
        p, FX_DER,
        fx_bin(p, FX_ADD, fx_var(p, 0, 0, nw), fx_un(p, FX_PRE, fx_var(p, 1, 0, nw), nw), nw),
        nw);
    const fx_node *refs[2] = {fx_var(p, 0, 1, nw), fx_var(p, 2, 0, nw)};
    const fx_node *rhs = fx_bin(p, FX_ADD, fx_un(p, FX_NEXT, fx_var(p, 2, 0, nw), nw),
                                fx_opaque(p, "{der(x), z}", refs, 2, nw), nw);
    mel_order_case cx = {&g_true, 1, nw, 0}, cz = {&g_true, 1, nw, 1};
    mel_incidence incs[2] = {{0, 1, &cx}, {2, 1, &cz}};
    mel_equation eq = {.name = "e", .guard = &g_true, .n_incs = 2, .incs = incs,
                       .lhs = lhs, .rhs = rhs};
    mel_model m = model_of(&eq, 1);
    char why[200];
    cr_assert(check(&m, true, why, sizeof why), "%s", why);
    cz.order = 0;
    cr_assert_not(check(&m, true, why, sizeof why));
    cr_assert(strstr(why, "variable z") != NULL, "%s", why);
    cz.order = 1;
    eq.n_incs = 1; /* z's incidence missing */
    cr_assert_not(check(&m, true, why, sizeof why));
    cr_assert(strstr(why, "no incidence") != NULL, "%s", why);
    /* an equation outside the mode, or without expressions, is skipped */
    eq.guard = &g_bh;
    cr_assert(check(&m, false, why, sizeof why), "%s", why);
    eq.guard = &g_true;
    eq.lhs = NULL;
    cr_assert(check(&m, true, why, sizeof why), "%s", why);
    fx_pool_free(p);
}
