/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_cdg_report_keys.c -- what cdg_report_since marks the
 * same (engine/cdg_report_keys.h): an item, block or edge is marked only
 * when its handles AND its names are the earlier report's at its place.
 * The names are compared as strings, never by where they live: each
 * version is parsed into a model of its own, freed (with its result)
 * before the next version's report, so keys that borrowed a model's names
 * would be read after free (ASan) and keys compared by pointer would mark
 * nothing. Keys share their names with the next keys while no name
 * changes (sa_report.c, key_names): a rename must still be seen after a
 * run of versions that shared, and keys sharing names may be freed in
 * either order.
 */
#include <criterion/criterion.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "cdg_report_keys.h"
#include "mel.h"
#include "sa.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(cdg_report_keys, .init = begin, .fini = end, .timeout = 120);

/* Three equations, one guard; NAME1 and NAME3 are the first and last
 * equations' labels. Nonsingular in both modes. */
#define MODEL(NAME1, NAME3)                                                                     \
    "g : boolean;\nx : real;\ny : real;\nz : real;\n" NAME1 " : equation der(x) = y;\n"          \
    "e2 : equation 0 = if g then y - z else y;\n" NAME3 " : equation z = x;\n"

/* One version's marks: which equations, variables and blocks are the
 * earlier report's; whether each block holds equation `eq`. */
typedef struct marks {
    bool eq[3], var[3];
    size_t n_blocks, blocks_same, blocks_with_eq, blocks_with_eq_same;
} marks;

/* Parse, analyse and report text since *keys (replaced by the new keys);
 * the model, result, graph and report are freed before returning, so
 * that only the keys outlive them. eq: the equation whose blocks are
 * counted in marks. */
static marks report_since(const char *text, cdg_report_keys **keys, uint32_t eq)
{
    mel_model *m = NULL;
    sa_result *r = NULL;
    cdg_graph *g = NULL;
    cr_assert_eq(mel_model_parse(text, strlen(text), NULL, &m, NULL), MDAE_OK);
    cr_assert_eq(sa_analyze(m, NULL, &r, NULL), MDAE_OK);
    cr_assert_eq(cdg_build(r, NULL, &g, NULL), MDAE_OK);
    sa_report *rep = NULL;
    cdg_report *crep = NULL;
    cdg_report_keys *now = NULL;
    cdg_report_same same;
    cr_assert_eq(cdg_report_since(r, g, *keys, &rep, &crep, &now, &same), MDAE_OK);
    cr_assert_eq(rep->n_equations, 3);
    cr_assert_eq(rep->n_variables, 3);
    marks mk;
    memset(&mk, 0, sizeof mk);
    for (size_t q = 0; q < 3; q++) {
        mk.eq[q] = same.equations[q];
        mk.var[q] = same.variables[q];
    }
    mk.n_blocks = crep->n_blocks;
    for (size_t b = 0; b < crep->n_blocks; b++) {
        const cdg_block *blk = &crep->blocks[b].block;
        bool with = false;
        for (size_t a = 0; a < blk->n_equations; a++)
            with |= blk->equations[a].index == eq;
        mk.blocks_same += same.blocks[b];
        mk.blocks_with_eq += with;
        mk.blocks_with_eq_same += with && same.blocks[b];
    }
    cdg_report_same_free(&same);
    cdg_report_free(crep);
    sa_report_free(rep);
    cdg_graph_free(g);
    sa_result_free(r);
    mel_model_free(m); /* before the keys are read again */
    cdg_report_keys_free(*keys);
    *keys = now;
    return mk;
}

static void assert_all_same(const marks *mk, const char *what)
{
    for (size_t q = 0; q < 3; q++) {
        cr_assert(mk->eq[q], "%s: equation %zu marked", what, q);
        cr_assert(mk->var[q], "%s: variable %zu marked", what, q);
    }
    cr_assert_eq(mk->blocks_same, mk->n_blocks, "%s: every block marked", what);
}

Test(cdg_report_keys, equal_names_of_models_freed_before_are_the_same)
{
    cdg_report_keys *keys = NULL;
    marks mk = report_since(MODEL("e1", "e3"), &keys, 0);
    for (size_t q = 0; q < 3; q++)
        cr_assert(!mk.eq[q] && !mk.var[q], "no earlier keys: nothing is the same");
    for (int k = 0; k < 3; k++) { /* names shared from here on */
        mk = report_since(MODEL("e1", "e3"), &keys, 0);
        assert_all_same(&mk, "the same text again");
    }
    cdg_report_keys_free(keys);
}

Test(cdg_report_keys, a_renamed_item_is_not_the_same_after_versions_that_shared_names)
{
    cdg_report_keys *keys = NULL;
    report_since(MODEL("e1", "e3"), &keys, 2);
    report_since(MODEL("e1", "e3"), &keys, 2); /* shares the names */
    marks mk = report_since(MODEL("e1", "f3"), &keys, 2);
    cr_assert(mk.eq[0] && mk.eq[1], "the others keep their marks");
    cr_assert(!mk.eq[2], "the renamed equation is reported again");
    for (size_t q = 0; q < 3; q++)
        cr_assert(mk.var[q], "variable %zu: its name and handles did not change", q);
    cr_assert_gt(mk.blocks_with_eq, 0);
    cr_assert_eq(mk.blocks_with_eq_same, 0, "a block holding the renamed equation is not the same");
    mk = report_since(MODEL("e1", "f3"), &keys, 2); /* copied again, then shared */
    assert_all_same(&mk, "the renamed text again");
    mk = report_since(MODEL("e1", "e3"), &keys, 2);
    cr_assert(!mk.eq[2], "renamed back: reported again");
    cr_assert(mk.eq[0] && mk.eq[1]);
    cdg_report_keys_free(keys);
}

Test(cdg_report_keys, names_exchanged_between_places_are_not_the_same)
{
    cdg_report_keys *keys = NULL;
    report_since(MODEL("e1", "e3"), &keys, 0);
    /* the same structure at every place, the first and last labels swapped:
     * the same set of names, none at its place */
    marks mk = report_since(MODEL("e3", "e1"), &keys, 0);
    cr_assert(!mk.eq[0] && !mk.eq[2], "swapped names: reported again");
    cr_assert(mk.eq[1], "e2 kept its name and handles");
    cr_assert_eq(mk.blocks_with_eq_same, 0);
    cdg_report_keys_free(keys);
}

Test(cdg_report_keys, keys_sharing_names_may_be_freed_in_either_order)
{
    for (int order = 0; order < 2; order++) {
        cdg_report_keys *a = NULL, *b = NULL;
        report_since(MODEL("e1", "e3"), &a, 0);
        /* b from a without freeing a (report_since frees the keys it is
         * given: hand it a copy of the pointer it may drop, keep a) */
        cdg_report_keys *given = a;
        mel_model *m = NULL;
        sa_result *r = NULL;
        cdg_graph *g = NULL;
        const char *text = MODEL("e1", "e3");
        cr_assert_eq(mel_model_parse(text, strlen(text), NULL, &m, NULL), MDAE_OK);
        cr_assert_eq(sa_analyze(m, NULL, &r, NULL), MDAE_OK);
        cr_assert_eq(cdg_build(r, NULL, &g, NULL), MDAE_OK);
        sa_report *rep = NULL;
        cdg_report *crep = NULL;
        cdg_report_same same;
        cr_assert_eq(cdg_report_since(r, g, given, &rep, &crep, &b, &same), MDAE_OK);
        cr_assert(same.equations[0] && same.equations[2]);
        cdg_report_same_free(&same);
        cdg_report_free(crep);
        sa_report_free(rep);
        cdg_graph_free(g);
        sa_result_free(r);
        mel_model_free(m);
        cdg_report_keys_free(order == 0 ? a : b);
        /* the survivor still reads its names */
        cdg_report_keys *left = order == 0 ? b : a;
        marks mk = report_since(MODEL("e1", "e3"), &left, 0);
        assert_all_same(&mk, "after the other keys were freed");
        mk = report_since(MODEL("e1", "f3"), &left, 0);
        cr_assert(!mk.eq[2]);
        cdg_report_keys_free(left);
    }
}
