/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mel_corpus.c -- the model corpus (the .mel files of tests/models)
 * through the front-end: each model elaborates, has the per-mode counts its
 * header comment promises, and the incidences and orders the papers give.
 *
 * Why: the corpus is the ground truth every later stage (sa_*, tests/ref,
 * benchmarks) is checked against, so the models themselves are checked here
 * first, with nothing but mel.h: counts of ACTIVE equations and variables
 * per mode (mel_guard_eval), incidences and orders (mel_incidence_order),
 * and, for structural nonsingularity, a plain augmenting-path bipartite
 * matching per mode (existence of a perfect matching in the active
 * incidence graph is Pryce's structural nonsingularity; no BDD involved).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mel.h"

#include "model_files.h"

/* ---- Helpers ------------------------------------------------------------- */

static void print_diags(const char *name, const mdae_diags *d)
{
    for (size_t k = 0; k < d->count; k++) {
        char *s = mdae_diag_format(&d->items[k], name);
        cr_log_info("%s", s ? s : "(out of memory)");
        mdae_free(s);
    }
}

/* Parse tests/models/<name>, with N overridden when n > 0; returns the
 * status, the model in *out on success (diags printed on failure). */
static int parse_model_n(const char *name, long long n, mel_model **out, mdae_diags *diags)
{
    size_t len;
    char *text = tm_read(name, &len);
    mel_define def = {"N", n};
    mel_options opt;
    memset(&opt, 0, sizeof opt);
    if (n > 0) {
        opt.defines = &def;
        opt.n_defines = 1;
    }
    int rc = mel_model_parse(text, len, &opt, out, diags);
    free(text);
    return rc;
}

/* Parse a model that must elaborate cleanly. */
static mel_model *load(const char *name, long long n)
{
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    int rc = parse_model_n(name, n, &m, &d);
    if (rc != MDAE_OK || d.errors != 0)
        print_diags(name, &d);
    cr_assert_eq(rc, MDAE_OK, "%s (N=%lld): %s", name, n, mdae_err_name(rc));
    cr_assert_eq(d.errors, 0u, "%s (N=%lld): errors reported on success", name, n);
    cr_assert_not_null(m);
    mdae_diags_close(&d);
    return m;
}

static uint32_t mode_index(const mel_model *m, const char *name)
{
    long k = mel_model_find_mode(m, name);
    cr_assert_geq(k, 0, "no mode variable %s", name);
    return (uint32_t)k;
}

static const mel_equation *equation(const mel_model *m, const char *name)
{
    long k = mel_model_find_equation(m, name);
    cr_assert_geq(k, 0, "no equation %s", name);
    return &m->equations[k];
}

static uint32_t variable(const mel_model *m, const char *name)
{
    long k = mel_model_find_variable(m, name);
    cr_assert_geq(k, 0, "no variable %s", name);
    return (uint32_t)k;
}

/* Order of variable `var` in equation `eq` in a mode, -1 when not incident. */
static int order_in(const mel_model *m, const char *eq, const char *var, const bool *mode)
{
    const mel_equation *e = equation(m, eq);
    uint32_t v = variable(m, var);
    for (uint32_t k = 0; k < e->n_incs; k++)
        if (e->incs[k].var == v)
            return mel_incidence_order(&e->incs[k], mode);
    return -1;
}

static bool mode_valid(const mel_model *m, const bool *mode)
{
    for (uint32_t k = 0; k < m->n_invariants; k++)
        if (!mel_guard_eval(m->invariants[k].cond, mode))
            return false;
    return true;
}

static void count_active(const mel_model *m, const bool *mode, uint32_t *neq, uint32_t *nvar)
{
    *neq = 0;
    *nvar = 0;
    for (uint32_t k = 0; k < m->n_equations; k++)
        *neq += mel_guard_eval(m->equations[k].guard, mode);
    for (uint32_t k = 0; k < m->n_variables; k++)
        *nvar += mel_guard_eval(m->variables[k].guard, mode);
}

/* Kuhn's augmenting paths on the active graph of one mode. */
typedef struct matcher {
    const mel_model *m;
    const bool *mode;
    bool *var_on;
    long *match_var; /* variable -> equation, -1 */
    bool *seen;      /* per variable, per augmentation */
} matcher;

static bool augment(matcher *mt, uint32_t eq)
{
    const mel_equation *e = &mt->m->equations[eq];
    for (uint32_t k = 0; k < e->n_incs; k++) {
        uint32_t v = e->incs[k].var;
        if (!mt->var_on[v] || mt->seen[v] || mel_incidence_order(&e->incs[k], mt->mode) < 0)
            continue;
        mt->seen[v] = true;
        if (mt->match_var[v] < 0 || augment(mt, (uint32_t)mt->match_var[v])) {
            mt->match_var[v] = eq;
            return true;
        }
    }
    return false;
}

/* True when the active equations and variables of `mode` are equally many
 * and the active incidence graph has a perfect matching. */
static bool nonsingular(const mel_model *m, const bool *mode)
{
    uint32_t neq, nvar;
    count_active(m, mode, &neq, &nvar);
    if (neq != nvar)
        return false;
    matcher mt = {m, mode, calloc(m->n_variables + 1, sizeof(bool)),
                  malloc((m->n_variables + 1) * sizeof(long)),
                  calloc(m->n_variables + 1, sizeof(bool))};
    cr_assert(mt.var_on && mt.match_var && mt.seen);
    for (uint32_t k = 0; k < m->n_variables; k++) {
        mt.var_on[k] = mel_guard_eval(m->variables[k].guard, mode);
        mt.match_var[k] = -1;
    }
    bool ok = true;
    for (uint32_t k = 0; k < m->n_equations && ok; k++) {
        if (!mel_guard_eval(m->equations[k].guard, mode))
            continue;
        memset(mt.seen, 0, m->n_variables * sizeof(bool));
        ok = augment(&mt, k);
    }
    free(mt.var_on);
    free(mt.match_var);
    free(mt.seen);
    return ok;
}

/* Mode number `bits` (bit k = mode variable k) as a bool array. */
static void mode_from_bits(const mel_model *m, uint64_t bits, bool *mode)
{
    for (uint32_t k = 0; k < m->n_modes; k++)
        mode[k] = (bits >> k) & 1u;
}

/* Deterministic pseudo-random numbers (tests never depend on time). */
static uint64_t rng_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* ---- Every model elaborates ---------------------------------------------- */

static const char *const good_models[] = {
    "rldc2.mel",       "water_tank.mel",   "two_equations.mel",
    "clutch.mel",      "cup_and_ball.mel", "building_incompressible.mel",
    "building_compressible.mel", "brake.mel", "rldc_chain.mel",
    "singular_simple.mel",
};

Test(mel_corpus, every_model_but_the_broken_ones_elaborates_without_diagnostics)
{
    for (size_t k = 0; k < sizeof good_models / sizeof good_models[0]; k++) {
        mdae_diags d;
        mdae_diags_init(&d);
        mel_model *m = NULL;
        int rc = parse_model_n(good_models[k], 0, &m, &d);
        if (d.count)
            print_diags(good_models[k], &d);
        cr_expect_eq(rc, MDAE_OK, "%s: %s", good_models[k], mdae_err_name(rc));
        cr_expect_eq(d.count, 0u, "%s: %zu diagnostics", good_models[k], d.count);
        mel_model_free(m);
        mdae_diags_close(&d);
    }
}

/* Every model but singular_simple is square and structurally nonsingular in
 * every valid mode (default N); each has at least one valid mode. */
Test(mel_corpus, every_good_model_is_nonsingular_in_all_its_valid_modes)
{
    for (size_t k = 0; k + 1 < sizeof good_models / sizeof good_models[0]; k++) {
        mel_model *m = load(good_models[k], 0);
        cr_assert_leq(m->n_modes, 20u, "%s: too many modes to enumerate", good_models[k]);
        bool mode[20];
        uint64_t valid = 0;
        for (uint64_t bits = 0; bits < (1ull << m->n_modes); bits++) {
            mode_from_bits(m, bits, mode);
            if (!mode_valid(m, mode))
                continue;
            valid++;
            cr_expect(nonsingular(m, mode), "%s: singular in mode #%llu", good_models[k],
                      (unsigned long long)bits);
        }
        cr_expect_gt(valid, 0u, "%s has no valid mode", good_models[k]);
        mel_model_free(m);
    }
}

/* ---- RLDC2 (RR-9322 Figure 3) -------------------------------------------- */

Test(mel_corpus, rldc2_has_four_modes_all_valid)
{
    mel_model *m = load("rldc2.mel", 0);
    cr_assert_eq(m->n_modes, 2u);
    bool mode[2];
    int valid = 0;
    for (uint64_t bits = 0; bits < 4; bits++) {
        mode_from_bits(m, bits, mode);
        valid += mode_valid(m, mode);
    }
    cr_expect_eq(valid, 4);
    mel_model_free(m);
}

Test(mel_corpus, rldc2_has_14_equations_14_unknowns_and_6_parameters)
{
    mel_model *m = load("rldc2.mel", 0);
    cr_expect_eq(m->n_equations, 14u);
    cr_expect_eq(m->n_variables, 14u);
    cr_expect_eq(m->n_params, 6u);
    cr_expect_eq(m->n_invariants, 0u);
    bool mode[2];
    for (uint64_t bits = 0; bits < 4; bits++) {
        uint32_t neq, nvar;
        mode_from_bits(m, bits, mode);
        count_active(m, mode, &neq, &nvar);
        cr_expect_eq(neq, 14u);
        cr_expect_eq(nvar, 14u);
    }
    mel_model_free(m);
}

Test(mel_corpus, rldc2_incidences_and_orders_follow_figure_3)
{
    mel_model *m = load("rldc2.mel", 0);
    uint32_t g1 = mode_index(m, "g1"), g2 = mode_index(m, "g2");
    bool mode[2];
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 2; b++) {
            mode[g1] = a;
            mode[g2] = b;
            /* C1: i1 = C1 v1' */
            cr_expect_eq(order_in(m, "C1", "v1", mode), 1);
            cr_expect_eq(order_in(m, "C1", "i1", mode), 0);
            cr_expect_eq(equation(m, "C1")->n_incs, 2u, "the parameter pC1 is not incident");
            /* L2: w2 = L2 j2' */
            cr_expect_eq(order_in(m, "L2", "j2", mode), 1);
            cr_expect_eq(order_in(m, "L2", "w2", mode), 0);
            /* R1: x1 = R1 j1 */
            cr_expect_eq(order_in(m, "R1", "x1", mode), 0);
            cr_expect_eq(order_in(m, "R1", "j1", mode), 0);
            cr_expect_eq(equation(m, "R1")->n_incs, 2u);
            /* K1: 0 = i1 + i2 + j1 + j2 */
            cr_expect_eq(equation(m, "K1")->n_incs, 4u);
            cr_expect_eq(order_in(m, "K1", "j2", mode), 0);
            cr_expect_eq(order_in(m, "K1", "u1", mode), -1);
            /* S1: s1 = if g1 then i1 else -u1 */
            cr_expect_eq(order_in(m, "S1", "s1", mode), 0);
            cr_expect_eq(order_in(m, "S1", "i1", mode), a ? 0 : -1);
            cr_expect_eq(order_in(m, "S1", "u1", mode), a ? -1 : 0);
            /* Z1: 0 = if g1 then u1 else i1 */
            cr_expect_eq(order_in(m, "Z1", "u1", mode), a ? 0 : -1);
            cr_expect_eq(order_in(m, "Z1", "i1", mode), a ? -1 : 0);
            /* S2, Z2 follow g2 only */
            cr_expect_eq(order_in(m, "S2", "i2", mode), b ? 0 : -1);
            cr_expect_eq(order_in(m, "S2", "u2", mode), b ? -1 : 0);
            cr_expect_eq(order_in(m, "Z2", "u2", mode), b ? 0 : -1);
            cr_expect_eq(order_in(m, "Z2", "i2", mode), b ? -1 : 0);
            cr_expect_eq(order_in(m, "Z2", "i1", mode), -1);
        }
    }
    /* every equation is active in every mode: guards are TRUE */
    for (uint32_t k = 0; k < m->n_equations; k++)
        cr_expect_eq(m->equations[k].guard->op, MEL_G_TRUE, "%s", m->equations[k].name);
    mel_model_free(m);
}

/* ---- TwoEquations (RR-9459 section 4.4) ---------------------------------- */

Test(mel_corpus, two_equations_has_x_when_p_and_x_prime_when_not_p)
{
    mel_model *m = load("two_equations.mel", 0);
    cr_assert_eq(m->n_modes, 1u);
    cr_expect_eq(m->n_equations, 1u);
    cr_expect_eq(m->n_variables, 1u);
    bool mode[1];
    mode[mode_index(m, "p")] = true;
    cr_expect_eq(order_in(m, "e", "x", mode), 0);
    cr_expect(nonsingular(m, mode));
    mode[mode_index(m, "p")] = false;
    cr_expect_eq(order_in(m, "e", "x", mode), 1);
    cr_expect(nonsingular(m, mode));
    /* one incidence, two cases sorted by decreasing order: !p -> 1, p -> 0 */
    const mel_equation *e = equation(m, "e");
    cr_assert_eq(e->n_incs, 1u);
    cr_assert_eq(e->incs[0].n_cases, 2u);
    cr_expect_eq(e->incs[0].cases[0].order, 1);
    cr_expect_eq(e->incs[0].cases[1].order, 0);
    mel_model_free(m);
}

/* ---- Water Tank (RR-9459 sections 2.1 and 4.1) --------------------------- */

Test(mel_corpus, water_tank_is_7_by_7_with_3_valid_modes)
{
    mel_model *m = load("water_tank.mel", 0);
    cr_expect_eq(m->n_equations, 7u);
    cr_expect_eq(m->n_variables, 7u);
    cr_assert_eq(m->n_modes, 2u);
    cr_expect_eq(m->n_invariants, 1u);
    uint32_t bh = mode_index(m, "bh"), bl = mode_index(m, "bl");
    bool mode[2];
    int valid = 0;
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 2; b++) {
            mode[bh] = a;
            mode[bl] = b;
            valid += mode_valid(m, mode);
            /* the invariant is what excludes the singular mode bh & bl */
            cr_expect_eq(mode_valid(m, mode), !(a && b));
            cr_expect_eq(nonsingular(m, mode), !(a && b));
        }
    }
    cr_expect_eq(valid, 3);
    mel_model_free(m);
}

Test(mel_corpus, water_tank_incidences_follow_figure_1)
{
    mel_model *m = load("water_tank.mel", 0);
    uint32_t bh = mode_index(m, "bh"), bl = mode_index(m, "bl");
    bool mode[2];
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 2; b++) {
            mode[bh] = a;
            mode[bl] = b;
            /* e0 and e1 read only the (known) time */
            cr_expect_eq(equation(m, "e0")->n_incs, 1u);
            cr_expect_eq(order_in(m, "e0", "y", mode), 0);
            cr_expect_eq(equation(m, "e1")->n_incs, 1u);
            /* e2: der(x) = z + yl - yh - y */
            cr_expect_eq(order_in(m, "e2", "x", mode), 1);
            cr_expect_eq(order_in(m, "e2", "yl", mode), 0);
            cr_expect_eq(order_in(m, "e2", "yh", mode), 0);
            /* eh2: 0 = if bh then x - xmax else yh: computes yh only when !bh */
            cr_expect_eq(order_in(m, "eh2", "x", mode), a ? 0 : -1);
            cr_expect_eq(order_in(m, "eh2", "yh", mode), a ? -1 : 0);
            /* eh1: sh = if bh then yh else x - xmax */
            cr_expect_eq(order_in(m, "eh1", "sh", mode), 0);
            cr_expect_eq(order_in(m, "eh1", "yh", mode), a ? 0 : -1);
            cr_expect_eq(order_in(m, "eh1", "x", mode), a ? -1 : 0);
            /* el2: 0 = if bl then xmin - x else yl */
            cr_expect_eq(order_in(m, "el2", "x", mode), b ? 0 : -1);
            cr_expect_eq(order_in(m, "el2", "yl", mode), b ? -1 : 0);
            /* el1: sl = if bl then yl else xmin - x */
            cr_expect_eq(order_in(m, "el1", "yl", mode), b ? 0 : -1);
            cr_expect_eq(order_in(m, "el1", "x", mode), b ? -1 : 0);
        }
    }
    mel_model_free(m);
}

/* ---- Clutch (RR-9459 system (1)) ------------------------------------------ */

Test(mel_corpus, clutch_switches_e3_e4_with_e5_e6)
{
    mel_model *m = load("clutch.mel", 0);
    cr_assert_eq(m->n_modes, 1u);
    cr_expect_eq(m->n_equations, 6u);
    cr_expect_eq(m->n_variables, 4u);
    uint32_t gamma = mode_index(m, "gamma");
    bool mode[1];
    for (int a = 0; a < 2; a++) {
        mode[gamma] = a;
        uint32_t neq, nvar;
        count_active(m, mode, &neq, &nvar);
        cr_expect_eq(neq, 4u);
        cr_expect_eq(nvar, 4u);
        cr_expect_eq(mel_guard_eval(equation(m, "e1")->guard, mode), true);
        cr_expect_eq(mel_guard_eval(equation(m, "e2")->guard, mode), true);
        cr_expect_eq(mel_guard_eval(equation(m, "e3")->guard, mode), (bool)a);
        cr_expect_eq(mel_guard_eval(equation(m, "e4")->guard, mode), (bool)a);
        cr_expect_eq(mel_guard_eval(equation(m, "e5")->guard, mode), !a);
        cr_expect_eq(mel_guard_eval(equation(m, "e6")->guard, mode), !a);
        cr_expect_eq(order_in(m, "e1", "w1", mode), 1);
        cr_expect_eq(order_in(m, "e1", "tau1", mode), 0);
        cr_expect_eq(order_in(m, "e2", "w2", mode), 1);
        cr_expect_eq(order_in(m, "e2", "tau2", mode), 0);
        /* incidence guards include the equation's: inactive when it is */
        cr_expect_eq(order_in(m, "e3", "w1", mode), a ? 0 : -1);
        cr_expect_eq(order_in(m, "e3", "w2", mode), a ? 0 : -1);
        cr_expect_eq(order_in(m, "e4", "tau2", mode), a ? 0 : -1);
        cr_expect_eq(order_in(m, "e5", "tau1", mode), a ? -1 : 0);
        cr_expect_eq(equation(m, "e5")->n_incs, 1u);
        cr_expect(nonsingular(m, mode));
    }
    mel_model_free(m);
}

/* ---- Cup-and-Ball (RR-9459 section 2.3) ----------------------------------- */

Test(mel_corpus, cup_and_ball_constraint_follows_gamma)
{
    mel_model *m = load("cup_and_ball.mel", 0);
    cr_expect_eq(m->n_equations, 6u);
    cr_expect_eq(m->n_variables, 6u);
    uint32_t gamma = mode_index(m, "gamma");
    bool mode[1];
    for (int a = 0; a < 2; a++) {
        mode[gamma] = a;
        cr_expect_eq(order_in(m, "e3", "u", mode), 1);
        cr_expect_eq(order_in(m, "e3", "lambda", mode), 0);
        cr_expect_eq(order_in(m, "e3", "x", mode), 0);
        cr_expect_eq(order_in(m, "k1", "x", mode), a ? 0 : -1);
        cr_expect_eq(order_in(m, "k1", "y", mode), a ? 0 : -1);
        cr_expect_eq(order_in(m, "k1", "lambda", mode), a ? -1 : 0);
        cr_expect_eq(order_in(m, "k2", "s", mode), 0);
        cr_expect_eq(order_in(m, "k2", "lambda", mode), a ? 0 : -1);
        cr_expect_eq(order_in(m, "k2", "y", mode), a ? -1 : 0);
        cr_expect(nonsingular(m, mode));
    }
    mel_model_free(m);
}

/* ---- Building (RR-9322 Figure 13) ----------------------------------------- */

/* A random mode of the building satisfying its invariants by construction:
 * !direction[1], and !open[i] implies !outgoing[i]. */
static void building_random_mode(const mel_model *m, long long n, uint64_t *seed, bool *mode)
{
    char name[64];
    for (uint32_t k = 0; k < m->n_modes; k++)
        mode[k] = rng_next(seed) & 1u;
    mode[mode_index(m, "direction[1]")] = false;
    for (long long i = 1; i <= n; i++) {
        snprintf(name, sizeof name, "open[%lld]", i);
        bool open = mode[mode_index(m, name)];
        snprintf(name, sizeof name, "outgoing[%lld]", i);
        if (!open)
            mode[mode_index(m, name)] = false;
    }
}

static void check_building(const char *file)
{
    for (long long n = 1; n <= 10; n++) {
        mel_model *m = load(file, n);
        uint32_t want = (uint32_t)(16 * n + 5);
        cr_expect_eq(m->n_variables, want, "%s N=%lld", file, n);
        cr_expect_eq(m->n_equations, want + (uint32_t)n, "%s N=%lld", file, n);
        cr_expect_eq(m->n_modes, (uint32_t)(3 * n), "%s N=%lld", file, n);
        cr_expect_eq(m->n_invariants, (uint32_t)(n + 1), "%s N=%lld", file, n);
        cr_expect_eq(m->n_params, 5u);
        cr_expect_geq(mel_model_find_equation(m, "plug_mu_c2"), 0);
        cr_expect_geq(mel_model_find_variable(m, "Tc[0]"), 0);

        bool *mode = calloc(m->n_modes, sizeof(bool));
        cr_assert_not_null(mode);
        uint32_t neq, nvar;

        /* all false: valid (doors closed, no flows out, corridor flows i -> i-1) */
        count_active(m, mode, &neq, &nvar);
        cr_expect(mode_valid(m, mode));
        cr_expect_eq(neq, want, "%s N=%lld all-false", file, n);
        cr_expect_eq(nvar, want);

        /* all true: square too, though invalid (direction[1]) */
        for (uint32_t k = 0; k < m->n_modes; k++)
            mode[k] = true;
        count_active(m, mode, &neq, &nvar);
        cr_expect(!mode_valid(m, mode));
        cr_expect_eq(neq, want, "%s N=%lld all-true", file, n);
        cr_expect_eq(nvar, want);

        uint64_t seed = 0x9322u + (uint64_t)n;
        for (int r = 0; r < 20; r++) {
            building_random_mode(m, n, &seed, mode);
            cr_expect(mode_valid(m, mode), "%s N=%lld random mode #%d invalid", file, n, r);
            count_active(m, mode, &neq, &nvar);
            cr_expect_eq(neq, want, "%s N=%lld random #%d", file, n, r);
            cr_expect_eq(nvar, want);
        }
        free(mode);
        mel_model_free(m);
    }
}

Test(mel_corpus, building_incompressible_is_square_16n_plus_5_for_n_1_to_10)
{
    check_building("building_incompressible.mel");
}

Test(mel_corpus, building_compressible_is_square_16n_plus_5_for_n_1_to_10)
{
    check_building("building_compressible.mel");
}

static void check_building_modes(const char *file)
{
    for (long long n = 1; n <= 3; n++) {
        mel_model *m = load(file, n);
        bool mode[9];
        uint64_t valid = 0, expect = 1;
        for (long long k = 0; k < n; k++)
            expect *= 3;
        expect <<= (n - 1);
        for (uint64_t bits = 0; bits < (1ull << m->n_modes); bits++) {
            mode_from_bits(m, bits, mode);
            if (!mode_valid(m, mode))
                continue;
            valid++;
            cr_expect(nonsingular(m, mode), "%s N=%lld: singular in mode #%llu", file, n,
                      (unsigned long long)bits);
        }
        cr_expect_eq(valid, expect, "%s N=%lld: %llu valid modes", file, n,
                     (unsigned long long)valid);
        mel_model_free(m);
    }
}

Test(mel_corpus, building_incompressible_has_3_pow_n_times_2_pow_n_minus_1_nonsingular_modes)
{
    check_building_modes("building_incompressible.mel");
}

Test(mel_corpus, building_compressible_has_3_pow_n_times_2_pow_n_minus_1_nonsingular_modes)
{
    check_building_modes("building_compressible.mel");
}

Test(mel_corpus, building_compressible_makes_pressures_incident_to_the_mass_equations)
{
    mel_model *inc = load("building_incompressible.mel", 2);
    mel_model *cmp = load("building_compressible.mel", 2);
    bool mode[6] = {0};
    cr_expect_eq(order_in(inc, "rtm[2]", "Pr[2]", mode), -1);
    cr_expect_eq(order_in(cmp, "rtm[2]", "Pr[2]", mode), 0);
    cr_expect_eq(order_in(inc, "ctm[1]", "Pc[1]", mode), -1);
    cr_expect_eq(order_in(cmp, "ctm[1]", "Pc[1]", mode), 0);
    cr_expect_eq(order_in(cmp, "ctm[1]", "Tc[1]", mode), 0);
    /* the ghost element: cmf[1] reads Pc[0], cef[1] reads Tc[0] when direction[1] */
    cr_expect_eq(order_in(cmp, "cmf[1]", "Pc[0]", mode), 0);
    cr_expect_eq(order_in(cmp, "cef[1]", "Tc[0]", mode), -1);
    mode[mode_index(cmp, "direction[1]")] = true;
    cr_expect_eq(order_in(cmp, "cef[1]", "Tc[0]", mode), 0);
    cr_expect_eq(order_in(cmp, "cef[1]", "Tc[1]", mode), -1);
    mel_model_free(inc);
    mel_model_free(cmp);
}

/* ---- Brake (RR-9322 Figure 18) -------------------------------------------- */

Test(mel_corpus, brake_is_square_11n_plus_3_for_n_1_to_10)
{
    for (long long n = 1; n <= 10; n++) {
        mel_model *m = load("brake.mel", n);
        uint32_t want = (uint32_t)(11 * n + 3);
        cr_expect_eq(m->n_variables, want, "N=%lld", n);
        cr_expect_eq(m->n_equations, want + (uint32_t)n, "N=%lld", n);
        cr_expect_eq(m->n_modes, (uint32_t)n);
        cr_expect_eq(m->n_invariants, 0u);
        cr_expect_eq(m->n_params, 8u);

        bool *mode = calloc(m->n_modes, sizeof(bool));
        cr_assert_not_null(mode);
        uint32_t neq, nvar;
        uint64_t seed = 0x18u + (uint64_t)n;
        for (int r = -2; r < 20; r++) {
            for (uint32_t k = 0; k < m->n_modes; k++)
                mode[k] = r == -2 ? false : r == -1 ? true : (rng_next(&seed) & 1u);
            cr_expect(mode_valid(m, mode));
            count_active(m, mode, &neq, &nvar);
            cr_expect_eq(neq, want, "N=%lld mode #%d", n, r);
            cr_expect_eq(nvar, want, "N=%lld mode #%d", n, r);
        }
        free(mode);
        mel_model_free(m);
    }
}

Test(mel_corpus, brake_is_nonsingular_in_all_modes_for_n_1_to_4)
{
    for (long long n = 1; n <= 4; n++) {
        mel_model *m = load("brake.mel", n);
        bool mode[4];
        for (uint64_t bits = 0; bits < (1ull << n); bits++) {
            mode_from_bits(m, bits, mode);
            cr_expect(nonsingular(m, mode), "N=%lld mode #%llu", n, (unsigned long long)bits);
        }
        mel_model_free(m);
    }
}

Test(mel_corpus, brake_piston_equations_have_the_orders_of_figure_18)
{
    mel_model *m = load("brake.mel", 2);
    bool mode[2] = {false, false};
    cr_expect_eq(order_in(m, "mepl[1]", "x[1]", mode), 1);
    cr_expect_eq(order_in(m, "mepl[1]", "Pr[1]", mode), 1);
    cr_expect_eq(order_in(m, "mepl[1]", "fcl[1]", mode), 0);
    cr_expect_eq(order_in(m, "meph[2]", "Pt[2]", mode), 1);
    cr_expect_eq(order_in(m, "mer[2]", "Pt[2]", mode), 1);
    cr_expect_eq(order_in(m, "feb2[2]", "Pb[3]", mode), 0);
    cr_expect_eq(order_in(m, "plug2", "fb[3]", mode), 0);
    cr_expect_eq(order_in(m, "dt", "t", mode), 1);
    mode[mode_index(m, "open[2]")] = true;
    cr_expect(mel_guard_eval(equation(m, "ve1[2]")->guard, mode));
    cr_expect(!mel_guard_eval(equation(m, "ve2[2]")->guard, mode));
    cr_expect(!mel_guard_eval(equation(m, "ve1[1]")->guard, mode));
    cr_expect(mel_guard_eval(equation(m, "ve2[1]")->guard, mode));
    mel_model_free(m);
}

/* ---- RLDC chain ------------------------------------------------------------ */

Test(mel_corpus, rldc_chain_is_square_8n_plus_2_and_nonsingular_in_all_modes)
{
    mel_model *m0 = load("rldc_chain.mel", 0);
    cr_expect_eq(m0->n_variables, 18u, "default N is 2");
    mel_model_free(m0);
    for (long long n = 1; n <= 8; n++) {
        mel_model *m = load("rldc_chain.mel", n);
        uint32_t want = (uint32_t)(8 * n + 2);
        cr_expect_eq(m->n_variables, want);
        cr_expect_eq(m->n_equations, want);
        cr_expect_eq(m->n_modes, (uint32_t)n);
        bool mode[8];
        for (uint64_t bits = 0; bits < (1ull << n); bits++) {
            mode_from_bits(m, bits, mode);
            cr_expect(nonsingular(m, mode), "N=%lld mode #%llu", n, (unsigned long long)bits);
        }
        mel_model_free(m);
    }
}

/* ---- Deliberately broken models -------------------------------------------- */

Test(mel_corpus, singular_simple_is_nonsingular_only_when_g_and_not_h)
{
    mel_model *m = load("singular_simple.mel", 0);
    uint32_t g = mode_index(m, "g"), h = mode_index(m, "h");
    bool mode[2];
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 2; b++) {
            mode[g] = a;
            mode[h] = b;
            uint32_t neq, nvar;
            count_active(m, mode, &neq, &nvar);
            cr_expect_eq(neq, 3u);
            cr_expect_eq(nvar, 3u);
            cr_expect_eq(nonsingular(m, mode), a && !b, "g=%d h=%d", a, b);
        }
    }
    mode[g] = false;
    cr_expect_eq(order_in(m, "e2", "x", mode), -1);
    mel_model_free(m);
}

static bool has_diag_at(const mdae_diags *d, uint32_t line, uint32_t col)
{
    for (size_t k = 0; k < d->count; k++)
        if (d->items[k].severity == MDAE_SEV_ERROR && d->items[k].where.start.line == line &&
            (col == 0 || d->items[k].where.start.col == col))
            return true;
    return false;
}

Test(mel_corpus, syntax_error_fails_with_located_diagnostics_on_each_bad_line)
{
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    int rc = parse_model_n("syntax_error.mel", 0, &m, &d);
    print_diags("syntax_error.mel", &d);
    cr_expect_eq(rc, MDAE_E_PARSE, "%s", mdae_err_name(rc));
    cr_expect_null(m);
    cr_expect(has_diag_at(&d, 12, 27), "unclosed parenthesis at 12:27");
    cr_expect(has_diag_at(&d, 13, 15), "missing left-hand side at 13:15");
    cr_expect(has_diag_at(&d, 16, 22), "missing operand at 16:22");
    for (size_t k = 0; k < d.count; k++) {
        uint32_t line = d.items[k].where.start.line;
        cr_expect(line == 12 || line == 13 || line == 16, "unexpected diagnostic on line %u",
                  line);
    }
    mdae_diags_close(&d);
}

/* y exists only when g; e2 (active when !g) uses it, at 17:21. Reporting
 * it is the encoding's job (sa_check, engine/sa.h): the front-end elaborates
 * the model and must hand over an incidence whose guard escapes y's guard,
 * located at the use, so that the engine can point there. */
Test(mel_corpus, bad_use_elaborates_with_an_incidence_outside_its_variable_s_modes)
{
    mel_model *m = load("bad_use.mel", 0);
    uint32_t g = mode_index(m, "g");
    uint32_t y = variable(m, "y");
    const mel_equation *e2 = equation(m, "e2");
    bool mode[1];
    mode[g] = false;
    cr_expect(mel_guard_eval(e2->guard, mode), "e2 is active when !g");
    cr_expect(!mel_guard_eval(m->variables[y].guard, mode), "y does not exist when !g");
    const mel_incidence *inc = NULL;
    for (uint32_t k = 0; k < e2->n_incs; k++)
        if (e2->incs[k].var == y)
            inc = &e2->incs[k];
    cr_assert_not_null(inc, "e2 mentions y");
    cr_expect_eq(mel_incidence_order(inc, mode), 0, "the bad edge is active when !g");
    cr_assert_geq(inc->n_cases, 1u);
    cr_expect_eq(inc->cases[0].where.start.line, 17u);
    cr_expect_eq(inc->cases[0].where.start.col, 21u);
    mel_model_free(m);
}

/* ---- Larger instances (elaboration at scale, counts only) ------------------ */

Test(mel_corpus, parameterised_models_scale_to_n_200_with_square_random_modes)
{
    static const struct {
        const char *file;
        long long eq_a, eq_b;  /* declared equations: eq_a*N + eq_b */
        long long act_a, act_b; /* active per mode, = unknowns */
        long long modes_a;
    } cases[] = {
        {"building_incompressible.mel", 17, 5, 16, 5, 3},
        {"building_compressible.mel", 17, 5, 16, 5, 3},
        {"brake.mel", 12, 3, 11, 3, 1},
        {"rldc_chain.mel", 8, 2, 8, 2, 1},
    };
    const long long n = 200;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        mel_model *m = load(cases[c].file, n);
        cr_expect_eq(m->n_equations, (uint32_t)(cases[c].eq_a * n + cases[c].eq_b), "%s",
                     cases[c].file);
        cr_expect_eq(m->n_variables, (uint32_t)(cases[c].act_a * n + cases[c].act_b), "%s",
                     cases[c].file);
        cr_expect_eq(m->n_modes, (uint32_t)(cases[c].modes_a * n), "%s", cases[c].file);
        bool *mode = calloc(m->n_modes, sizeof(bool));
        cr_assert_not_null(mode);
        uint64_t seed = 200u + c;
        for (int r = 0; r < 5; r++) {
            for (uint32_t k = 0; k < m->n_modes; k++)
                mode[k] = rng_next(&seed) & 1u;
            uint32_t neq, nvar;
            count_active(m, mode, &neq, &nvar);
            cr_expect_eq(neq, (uint32_t)(cases[c].act_a * n + cases[c].act_b), "%s #%d",
                         cases[c].file, r);
            cr_expect_eq(nvar, neq, "%s #%d", cases[c].file, r);
        }
        free(mode);
        mel_model_free(m);
    }
}
