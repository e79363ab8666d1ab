/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_sa_enum.c -- the two paths of sa_analyze (issue 10):
 * the implicit analysis on BDDs and the enumeration of the valid modes by
 * the single-mode path (engine/sa_enum.c) give the same result, mode
 * function for mode function (sa_result_same: BDDs are canonical, so equal
 * functions are equal handles), on random models, the paper models and
 * the chains at small N; the automatic choice picks enumeration where it is
 * cheap and the implicit path where enumeration is out of reach; a budget
 * exceeded by the implicit path falls back to enumeration with the same
 * result; forced enumeration of too many modes is a stated limit; an
 * enumeration canceled at any checkpoint fails cleanly. The comparison
 * with the brute-force reference, whichever path, is test_sa_vs_ref.c.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdae.h"
#include "mel.h"
#include "ref.h"
#include "sa.h"

#include "model_files.h"

/* The implicit path can blow up on random models without locality (the
 * very reason for enumeration): it gets 2M nodes here, and a model it
 * cannot analyse within them is compared between auto and enumeration
 * only. */
static void begin(void)
{
    cr_assert_eq(sa_begin(NULL), MDAE_OK);
    cr_assert_eq(sa_set_node_limit(2000000), MDAE_OK);
}
static void end(void) { sa_end(); }

TestSuite(sa_enum, .init = begin, .fini = end);

static mel_model *parse(const char *text, long long n)
{
    mel_define d = {"N", n};
    mel_options mo = {0};
    mo.defines = &d;
    mo.n_defines = n > 0 ? 1 : 0;
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, strlen(text), &mo, &m, NULL), MDAE_OK, "%s", text);
    return m;
}

static sa_result *analyze_budget(const mel_model *m, int method, size_t budget, int *rc)
{
    sa_options o = {.method = method, .implicit_budget = budget};
    sa_result *r = NULL;
    *rc = sa_analyze(m, &o, &r, NULL);
    return r;
}

static sa_result *analyze(const mel_model *m, int method, int *rc)
{
    sa_options o = {.method = method};
    sa_result *r = NULL;
    *rc = sa_analyze(m, &o, &r, NULL);
    return r;
}

static size_t g_implicit_too_big; /* models over the implicit path's limit */
static size_t g_by_blocks; /* models whose primal the blocks path solved */
static size_t g_dm_by_blocks; /* and their singular modes' diagnostics */
static size_t g_tight; /* models with a block solved by tight graphs */
static size_t g_learned; /* of those, with offsets learned from samples */
static size_t g_blocks_fell_back; /* models with a block enumerated after
                                     its implicit attempt's budget */
static size_t g_by_cofactors; /* models with a block whose singular modes'
                                 maximum matchings came by cofactors */

/* Both paths, the same functions; returns the method AUTO chose. */
static int same_by_both(const mel_model *m, const char *label)
{
    int ri, re, ra;
    sa_result *imp = analyze(m, SA_METHOD_IMPLICIT, &ri);
    sa_result *enu = analyze(m, SA_METHOD_ENUMERATE, &re);
    sa_result *aut = analyze(m, SA_METHOD_AUTO, &ra);
    int rb, rf;
    sa_result *blk = analyze(m, SA_METHOD_BLOCKS, &rb);
    /* Every block tries the implicit primal with a budget of one node and
     * is enumerated when it runs out. */
    sa_result *fb = analyze_budget(m, SA_METHOD_BLOCKS, 1, &rf);
    /* Every block runs the implicit primal to its end (a budget it never
     * reaches), so its singular modes' maximum matchings come by cofactors
     * (engine/sa_maxmatch.c) where they can. */
    int rx;
    sa_result *bx = analyze_budget(m, SA_METHOD_BLOCKS, 50000000, &rx);
    /* Every block by the tight graphs of sampled modes (the modes they
     * leave implicitly). */
    int rt;
    sa_result *tg = analyze(m, SA_METHOD_TIGHT, &rt);
    if (ri == MDAE_E_BDD_LIMIT && re == MDAE_OK) {
        g_implicit_too_big++;
        sa_result_free(imp);
        imp = analyze(m, SA_METHOD_ENUMERATE, &ri);
    }
    cr_assert_eq(ri, re, "%s: implicit %s, enumeration %s", label, mdae_err_name(ri),
                 mdae_err_name(re));
    cr_assert_eq(ri, ra, "%s", label);
    if (rb != MDAE_E_BDD_LIMIT)
        cr_assert_eq(ri, rb, "%s: blocks %s", label, mdae_err_name(rb));
    if (rf != MDAE_E_BDD_LIMIT)
        cr_assert_eq(ri, rf, "%s: blocks, budget 1: %s", label, mdae_err_name(rf));
    if (rx != MDAE_E_BDD_LIMIT)
        cr_assert_eq(ri, rx, "%s: blocks, implicit: %s", label, mdae_err_name(rx));
    if (rt != MDAE_E_BDD_LIMIT)
        cr_assert_eq(ri, rt, "%s: tight: %s", label, mdae_err_name(rt));
    int chosen = -1;
    if (ri == MDAE_OK) {
        const char *why = NULL;
        cr_assert(sa_result_same(imp, enu, &why), "%s: %s differ", label, why);
        cr_assert(sa_result_same(imp, aut, &why), "%s: auto: %s differ", label, why);
        if (rb == MDAE_OK) {
            cr_assert(sa_result_same(imp, blk, &why), "%s: blocks: %s differ", label, why);
            sa_method_info bi;
            sa_result_method(blk, &bi);
            g_by_blocks += bi.blocks > 0;
            g_dm_by_blocks += bi.dm_by_blocks;
        }
        if (rf == MDAE_OK) {
            cr_assert(sa_result_same(imp, fb, &why), "%s: blocks, budget 1: %s differ", label,
                      why);
            sa_method_info fi;
            sa_result_method(fb, &fi);
            cr_assert_leq(fi.blocks_fell_back, fi.blocks);
            g_blocks_fell_back += fi.blocks_fell_back > 0;
        }
        if (rx == MDAE_OK) {
            cr_assert(sa_result_same(imp, bx, &why), "%s: blocks, implicit: %s differ", label,
                      why);
            sa_method_info xi;
            sa_result_method(bx, &xi);
            cr_assert_leq(xi.max_by_cofactors, xi.blocks);
            g_by_cofactors += xi.max_by_cofactors > 0;
        }
        if (rt == MDAE_OK) {
            cr_assert(sa_result_same(imp, tg, &why), "%s: tight: %s differ", label, why);
            sa_method_info ti;
            sa_result_method(tg, &ti);
            cr_assert_leq(ti.blocks_tight, ti.blocks);
            g_tight += ti.blocks_tight > 0;
            g_learned += ti.blocks_learned > 0;
        }
        sa_method_info mi;
        sa_result_method(enu, &mi);
        cr_assert_eq(mi.method, SA_METHOD_ENUMERATE);
        cr_assert_leq(mi.graphs, mi.enumerated);
        cr_assert_eq((double)mi.enumerated, mi.modes, "%s: every valid assignment", label);
        sa_result_method(aut, &mi);
        chosen = mi.method;
    }
    sa_result_free(imp);
    sa_result_free(enu);
    sa_result_free(aut);
    sa_result_free(blk);
    sa_result_free(fb);
    sa_result_free(bx);
    sa_result_free(tg);
    return chosen;
}

static void random_models(uint64_t first, uint64_t n, const ref_random_opts *o)
{
    size_t enumerated = 0;
    for (uint64_t s = first; s < first + n; s++) {
        char *text = ref_random_model(s, o);
        cr_assert_not_null(text);
        mel_model *m = parse(text, 0);
        char label[64];
        snprintf(label, sizeof label, "random model %llu", (unsigned long long)s);
        enumerated += same_by_both(m, label) == SA_METHOD_ENUMERATE;
        mel_model_free(m);
        mdae_free(text);
    }
    cr_assert_gt(enumerated, n / 2, "auto enumerates small random models");
    cr_assert_lt(g_implicit_too_big, n / 10, "the implicit path analysed most of them");
    cr_assert_gt(g_by_blocks, 0, "the blocks path applied to some");
    cr_assert_gt(g_dm_by_blocks, 0, "and found the diagnostics of some");
    cr_assert_gt(g_blocks_fell_back, 0, "a block fell back to enumeration in some");
    cr_assert_gt(g_by_cofactors, 0, "a block's maximum matchings came by cofactors in some");
    cr_assert_gt(g_tight, 0, "the tight graphs solved a block in some");
    cr_log_info("%zu of %llu models by blocks, %zu with their diagnostics, %zu with a block "
                "enumerated after its budget, %zu with maximum matchings by cofactors, %zu with "
                "a block by tight graphs, %zu of them with learned offsets",
                g_by_blocks, (unsigned long long)n, g_dm_by_blocks, g_blocks_fell_back,
                g_by_cofactors, g_tight, g_learned);
}

Test(sa_enum, both_paths_agree_on_random_models)
{
    ref_random_opts o = {.max_modes = 8, .max_equations = 16, .nonsquare_percent = 20};
    random_models(1, 300, &o);
    cr_assert_gt(g_learned, 0, "offsets learned from samples solved a block in some");
}

Test(sa_enum, both_paths_agree_on_random_models_with_more_modes_and_orders)
{
    ref_random_opts o = {.max_modes = 10, .max_equations = 20, .max_order = 5,
                         .nonsquare_percent = 10};
    random_models(5000, 80, &o);
}

Test(sa_enum, both_paths_agree_on_the_paper_models_and_small_chains)
{
    static const struct {
        const char *file;
        long n;
    } files[] = {{"rldc2.mel", 0},     {"water_tank.mel", 0},     {"two_equations.mel", 0},
                 {"clutch.mel", 0},    {"cup_and_ball.mel", 0},   {"singular_simple.mel", 0},
                 {"brake.mel", 2},     {"brake.mel", 5},          {"rldc_chain.mel", 6},
                 {"building_compressible.mel", 2}, {"building_compressible.mel", 3},
                 {"building_incompressible.mel", 2}};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char *text = tm_slurp(files[k].file);
        mel_model *m = parse(text, files[k].n);
        char label[96];
        snprintf(label, sizeof label, "%s N=%ld", files[k].file, files[k].n);
        same_by_both(m, label);
        mel_model_free(m);
        free(text);
    }
}

Test(sa_enum, auto_keeps_the_implicit_path_where_enumeration_is_out_of_reach)
{
    char *text = tm_slurp("brake.mel");
    mel_model *m = parse(text, 30); /* 2^30 modes */
    int rc;
    sa_result *r = analyze(m, SA_METHOD_AUTO, &rc);
    cr_assert_eq(rc, MDAE_OK);
    sa_method_info mi;
    sa_result_method(r, &mi);
    cr_expect_eq(mi.method, SA_METHOD_IMPLICIT);
    cr_expect_eq(mi.modes, 1073741824.0);
    sa_result_free(r);
    mdae_diags d;
    mdae_diags_init(&d);
    sa_options o = {.method = SA_METHOD_ENUMERATE};
    cr_expect_eq(sa_analyze(m, &o, &r, &d), MDAE_E_LIMIT);
    cr_expect_eq(d.errors, 1);
    cr_expect(strstr(d.items[0].message, "enumeration of") != NULL, "%s", d.items[0].message);
    mdae_diags_close(&d);
    mel_model_free(m);
    free(text);
}

/* A local chain whose enumeration would be felt goes implicit first, even
 * where enumerating counts as cheap (sa_analyze.c, local_and_felt): the
 * brake at N = 12 (4,096 modes, 6 columns open per row) within its budget;
 * at N = 6 (64 modes) the enumeration is too small to be felt. */
Test(sa_enum, a_local_chain_goes_implicit_first_unless_its_enumeration_is_tiny)
{
    char *text = tm_slurp("brake.mel");
    static const struct {
        long long n;
        int method;
    } cases[] = {{12, SA_METHOD_IMPLICIT}, {6, SA_METHOD_ENUMERATE}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mel_model *m = parse(text, cases[k].n);
        int rc;
        sa_result *r = analyze(m, SA_METHOD_AUTO, &rc);
        cr_assert_eq(rc, MDAE_OK);
        sa_method_info mi;
        sa_result_method(r, &mi);
        cr_expect_eq(mi.method, cases[k].method, "N=%lld: method %d", cases[k].n, mi.method);
        cr_expect(!mi.fell_back, "N=%lld: within its budget", cases[k].n);
        sa_result *e = analyze(m, SA_METHOD_ENUMERATE, &rc);
        cr_assert_eq(rc, MDAE_OK);
        const char *why = NULL;
        cr_expect(sa_result_same(r, e, &why), "N=%lld: %s differ", cases[k].n, why);
        sa_result_free(e);
        sa_result_free(r);
        mel_model_free(m);
    }
    free(text);
}

Test(sa_enum, an_exceeded_implicit_budget_falls_back_to_enumeration)
{
    char *text = tm_slurp("building_compressible.mel");
    mel_model *m = parse(text, 3);
    int rc;
    sa_result *cold = analyze(m, SA_METHOD_IMPLICIT, &rc);
    cr_assert_eq(rc, MDAE_OK);
    sa_options o = {.implicit_budget = 10}; /* nodes: exceeded at once */
    sa_result *r = NULL;
    mdae_diags d;
    mdae_diags_init(&d);
    cr_assert_eq(sa_analyze(m, &o, &r, &d), MDAE_OK);
    cr_expect_eq(d.count, 0, "the budget is not an error");
    sa_method_info mi;
    sa_result_method(r, &mi);
    cr_expect_eq(mi.method, SA_METHOD_ENUMERATE);
    cr_expect(mi.fell_back);
    const char *why = NULL;
    cr_expect(sa_result_same(cold, r, &why), "%s differ", why);
    sa_result_free(r);
    /* A budget that suffices keeps the implicit path. */
    o.implicit_budget = 50000000;
    cr_assert_eq(sa_analyze(m, &o, &r, &d), MDAE_OK);
    sa_result_method(r, &mi);
    cr_expect_eq(mi.method, SA_METHOD_IMPLICIT);
    cr_expect(!mi.fell_back);
    sa_result_free(r);
    sa_result_free(cold);
    mdae_diags_close(&d);
    mel_model_free(m);
    free(text);
}

/* The enumeration only depends on the mode variables its functions read:
 * a model whose equations ignore most mode variables enumerates few. */
Test(sa_enum, only_the_mode_variables_the_model_reads_are_enumerated)
{
    static const char *text = "a : boolean; b : boolean; c : boolean; d : boolean;\n"
                              "invariant a | b;\n"
                              "x : real; y : real;\n"
                              "e1 : equation der(x) = if c then y else x;\n"
                              "e2 : equation y = x;\n";
    mel_model *m = parse(text, 0);
    int rc;
    sa_result *r = analyze(m, SA_METHOD_ENUMERATE, &rc);
    cr_assert_eq(rc, MDAE_OK);
    sa_method_info mi;
    sa_result_method(r, &mi);
    cr_expect_eq(mi.enumerated, 2, "c alone");
    cr_expect_eq(mi.graphs, 2);
    cr_expect_eq(sa_result_valid_modes(r), 12.0);
    sa_result_free(r);
    same_by_both(m, "few mode variables read");
    mel_model_free(m);
}

typedef struct cancel_at {
    int at, seen;
} cancel_at;

static int cancel_cb(void *ctx, const char *phase, size_t done, size_t total)
{
    (void)phase;
    (void)done;
    (void)total;
    cancel_at *ca = ctx;
    return ++ca->seen == ca->at;
}

Test(sa_enum, an_enumeration_canceled_anywhere_fails_cleanly)
{
    char *text = tm_slurp("rldc_chain.mel");
    mel_model *m = parse(text, 9); /* 512 modes: several checkpoints */
    int canceled = 0;
    for (int n = 1; n < 1000; n++) {
        cancel_at ca = {n, 0};
        sa_options o = {.method = SA_METHOD_ENUMERATE, .progress = cancel_cb,
                        .progress_ctx = &ca};
        sa_result *r = NULL;
        int rc = sa_analyze(m, &o, &r, NULL);
        if (rc == MDAE_OK) {
            sa_result_free(r);
            break;
        }
        cr_assert_eq(rc, MDAE_E_CANCELED);
        cr_assert_null(r);
        canceled++;
    }
    cr_assert_geq(canceled, 5, "only %d checkpoints", canceled);
    same_by_both(m, "rldc chain after cancellations");
    mel_model_free(m);
    free(text);
}
