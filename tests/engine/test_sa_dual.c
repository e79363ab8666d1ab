/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_sa_dual.c -- the dual's fixpoint started from the hint's
 * offsets (engine/sa_dual.c, warm_start): an edit re-analysed with the
 * previous version as its hint must get the cold offsets, also where the
 * edit LOWERS offsets far from the equation it touched (the hint's offsets
 * are then above the least fixpoint: started from them, the iteration would
 * stop there), in some modes only, or raises them; with the hint's tight
 * edges known (cdg_build kept them) and without.
 *
 * The model: a chain y_k + der(y_k+1) = 0 (k < n), y_n = 0, whose equation
 * k is differentiated k - 1 times; its first equation loses (or gains) the
 * derivative, and every equation after it moves by one. Two equations
 * apart, first, read the mode variable g in every version.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "mdae.h"
#include "mel.h"
#include "sa.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(sa_dual, .init = begin, .fini = end);

#define CHAIN 7
#define LAST (CHAIN + 1) /* e_n, after z1 and z2 */

/* The chain with its first equation's second term `first`. */
static mel_model *chain(const char *first)
{
    char text[2048];
    size_t n = 0;
    n += (size_t)snprintf(text + n, sizeof text - n, "g : boolean; z : real;\n");
    for (int k = 1; k <= CHAIN; k++)
        n += (size_t)snprintf(text + n, sizeof text - n, "y%d : real;\n", k);
    /* g in every version, first: the modes' layout stays the same */
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "if g then\n  z1 : equation z = 1;\nelse\n  z2 : equation der(z) = 0;\nend;\n");
    n += (size_t)snprintf(text + n, sizeof text - n, "e1 : equation y1 + %s = 0;\n", first);
    for (int k = 2; k < CHAIN; k++)
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "e%d : equation y%d + der(y%d) = 0;\n", k, k, k + 1);
    n += (size_t)snprintf(text + n, sizeof text - n, "e%d : equation y%d = 0;\n", CHAIN, CHAIN);

    cr_assert_lt(n, sizeof text);
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, strlen(text), NULL, &m, NULL), MDAE_OK, "%s", text);
    return m;
}

static sa_result *analyze(const mel_model *m, const sa_result *hint)
{
    sa_options o = {0};
    o.hint = hint;
    o.method = SA_METHOD_IMPLICIT; /* small models are enumerated otherwise */
    sa_result *r = NULL;
    cr_assert_eq(sa_analyze(m, &o, &r, NULL), MDAE_OK);
    return r;
}

/* The offset of equation i in the first valid mode with g = want_g. */
static int offset_of(const sa_result *r, uint32_t i, bool want_g)
{
    bool mode[1] = {want_g};
    sa_mode_view v;
    cr_assert_eq(sa_result_mode(r, mode, &v), MDAE_OK);
    cr_assert(v.valid && !v.singular);
    int c = v.c[i];
    sa_mode_view_close(&v);
    return c;
}

/* `from` analysed cold is the hint (its tight edges kept by cdg_build when
 * with_graph) of `to`, which must then equal its cold analysis; the dual
 * started from the hint on at least one row or column. */
static void edit(const char *from, const char *to, bool with_graph, int last_before_g,
                 int last_after_g, int last_after_not_g)
{
    mel_model *m0 = chain(from), *m1 = chain(to);
    sa_result *hint = analyze(m0, NULL);
    cdg_graph *g = NULL;
    if (with_graph)
        cr_assert_eq(cdg_build(hint, NULL, &g, NULL), MDAE_OK);
    cr_assert_eq(offset_of(hint, LAST, true), last_before_g);
    sa_result *cold = analyze(m1, NULL), *warm = analyze(m1, hint);
    const char *why = NULL;
    cr_assert(sa_result_same(cold, warm, &why), "%s -> %s: %s differs", from, to, why);
    cr_assert_eq(offset_of(warm, LAST, true), last_after_g);
    cr_assert_eq(offset_of(warm, LAST, false), last_after_not_g);
    sa_method_info mi;
    sa_result_method(warm, &mi);
    cr_assert_gt(mi.offsets_from_hint, 0, "%s -> %s: the dual did not start from the hint",
                 from, to);
    sa_result_method(cold, &mi);
    cr_assert_eq(mi.offsets_from_hint, 0);
    cdg_graph_free(g);
    sa_result_free(warm);
    sa_result_free(cold);
    sa_result_free(hint);
    mel_model_free(m1);
    mel_model_free(m0);
}

Test(sa_dual, an_edit_that_lowers_offsets_far_from_it_gets_the_cold_ones)
{
    for (int with_graph = 0; with_graph < 2; with_graph++)
        edit("der(y2)", "y2", with_graph, CHAIN - 1, CHAIN - 2, CHAIN - 2);
}

Test(sa_dual, an_edit_that_lowers_offsets_in_some_modes_only_gets_the_cold_ones)
{
    for (int with_graph = 0; with_graph < 2; with_graph++) {
        edit("der(y2)", "(if g then y2 else der(y2))", with_graph, CHAIN - 1, CHAIN - 2,
             CHAIN - 1);
        edit("(if g then der(y2) else y2)", "y2", with_graph, CHAIN - 1, CHAIN - 2, CHAIN - 2);
    }
}

Test(sa_dual, an_edit_that_raises_offsets_gets_the_cold_ones)
{
    for (int with_graph = 0; with_graph < 2; with_graph++) {
        edit("y2", "der(y2)", with_graph, CHAIN - 2, CHAIN - 1, CHAIN - 1);
        edit("y2", "(if g then der(y2) else y2)", with_graph, CHAIN - 2, CHAIN - 1, CHAIN - 2);
    }
}

Test(sa_dual, an_edit_that_keeps_the_structure_starts_from_every_offset)
{
    mel_model *m0 = chain("der(y2)"), *m1 = chain("2 * der(y2)");
    sa_result *hint = analyze(m0, NULL), *warm = analyze(m1, hint), *cold = analyze(m1, NULL);
    const char *why = NULL;
    cr_assert(sa_result_same(cold, warm, &why), "%s differs", why);
    sa_method_info mi;
    sa_result_method(warm, &mi);
    cr_assert_eq(mi.offsets_from_hint, 2 * CHAIN + 3, /* every equation and variable */ "%u", mi.offsets_from_hint);
    sa_result_free(cold);
    sa_result_free(warm);
    sa_result_free(hint);
    mel_model_free(m1);
    mel_model_free(m0);
}

/* PAIRS blocks a_k : x_k = 0, b_k : y_k + der(x_k) = 0 (x_k's offset 1),
 * block `at` without the derivative: the same layout either way
 * (sa_encode.c takes the hint's), so the warm start compares the edges by
 * runs (sa_dual.c, same_layout_steps: 256 edges a run), and only the
 * three offsets of the edited block move. */
#define PAIRS 200

static mel_model *pairs(int at)
{
    size_t cap = 96 * PAIRS, n = 0;
    char *text = malloc(cap);
    cr_assert_not_null(text);
    for (int k = 1; k <= PAIRS; k++)
        n += (size_t)snprintf(text + n, cap - n, "x%d : real; y%d : real;\n", k, k);
    for (int k = 1; k <= PAIRS; k++)
        n += (size_t)snprintf(text + n, cap - n,
                              "a%d : equation x%d = 0;\nb%d : equation y%d + %s(x%d) = 0;\n", k,
                              k, k, k, k == at ? "" : "der", k);
    cr_assert_lt(n, cap);
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, strlen(text), NULL, &m, NULL), MDAE_OK);
    free(text);
    return m;
}

Test(sa_dual, an_edit_at_a_run_boundary_or_the_end_moves_its_own_offsets_only)
{
    /* a_k has edge 3k - 3, b_k 3k - 2 and 3k - 1: b86 holds edges 256
     * and 257 (the second run's first), b171 511 and 512. */
    static const int at[] = {1, 85, 86, 171, PAIRS};
    mel_model *m0 = pairs(0);
    sa_result *hint = analyze(m0, NULL);
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        mel_model *m1 = pairs(at[k]);
        sa_result *warm = analyze(m1, hint), *cold = analyze(m1, NULL);
        const char *why = NULL;
        cr_assert(sa_result_same(cold, warm, &why), "edit of b%d: %s differs", at[k], why);
        sa_method_info mi;
        sa_result_method(warm, &mi);
        /* all but b_at, a_at (matched to x_at) and x_at */
        cr_assert_eq(mi.offsets_from_hint, 4 * PAIRS - 3, "b%d: %u", at[k], mi.offsets_from_hint);
        sa_result_free(cold);
        sa_result_free(warm);
        mel_model_free(m1);
    }
    sa_result_free(hint);
    mel_model_free(m0);
}
