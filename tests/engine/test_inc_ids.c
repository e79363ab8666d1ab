/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_inc_ids.c -- inc_result_whole_ids (engine/inc_ids.c):
 * each block of the whole graph gets the stable id of the result's block
 * with the same identity, every id once, on models of one and of several
 * components; a block an edit does not touch keeps its id in the whole
 * graph of the next version; a graph of another model is refused.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "inc.h"
#include "mel.h"
#include "sa.h"

#include "model_files.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(inc_ids, .init = begin, .fini = end, .timeout = 600);

typedef struct version {
    mel_model *m;
    inc_result *r;
    sa_result *res;  /* borrowed from r */
    cdg_graph *g;    /* borrowed from r */
    uint32_t *ids;   /* mdae_free */
} version;

static void analyse(inc_session *s, const char *text, long long n, version *v)
{
    mel_define d = {"N", n};
    mel_options mo = {0};
    mo.defines = &d;
    mo.n_defines = n > 0 ? 1 : 0;
    memset(v, 0, sizeof *v);
    cr_assert_eq(mel_model_parse(text, strlen(text), &mo, &v->m, NULL), MDAE_OK);
    cr_assert_eq(inc_analyze(s, v->m, NULL, &v->r, NULL), MDAE_OK);
    cr_assert_eq(inc_result_whole(v->r, v->m, NULL, &v->res, &v->g, NULL), MDAE_OK);
    cr_assert_eq(inc_result_whole_ids(v->r, v->g, &v->ids), MDAE_OK);
}

static void drop(version *v)
{
    mdae_free(v->ids);
    inc_result_free(v->r);
    mel_model_free(v->m);
}

static bool same_items(const cdg_item *a, size_t na, const cdg_item *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t k = 0; k < na; k++)
        if (strcmp(a[k].name, b[k].name) != 0 || a[k].order != b[k].order)
            return false;
    return true;
}

static bool same_block(const cdg_block *a, const cdg_block *b)
{
    return same_items(a->equations, a->n_equations, b->equations, b->n_equations) &&
           same_items(a->unknowns, a->n_unknowns, b->unknowns, b->n_unknowns) &&
           same_items(a->reads, a->n_reads, b->reads, b->n_reads);
}

/* Every whole block has the identity of the result's block of its id, and
 * no id is given twice. */
static void check_ids(const version *v, const char *what)
{
    size_t n = cdg_graph_n_blocks(v->g);
    cr_assert_eq(n, inc_result_n_blocks(v->r), "%s", what);
    for (size_t k = 0; k < n; k++) {
        cdg_block wb, rb;
        cr_assert_eq(cdg_graph_block(v->g, (uint32_t)k, &wb), MDAE_OK);
        cr_assert_eq(inc_result_block_by_id(v->r, v->ids[k], &rb), MDAE_OK, "%s", what);
        cr_assert(same_block(&wb, &rb), "%s: block %zu has the identity of id %u", what, k,
                  v->ids[k]);
        for (size_t j = 0; j < k; j++)
            cr_assert_neq(v->ids[j], v->ids[k], "%s: id %u twice", what, v->ids[k]);
    }
}

Test(inc_ids, gives_every_whole_block_the_id_of_its_identity)
{
    static const struct {
        const char *file;
        long long n;
    } cases[] = {{"rldc2.mel", 0},       {"water_tank.mel", 0}, {"clutch.mel", 0},
                 {"rldc_chain.mel", 4}, {"brake.mel", 3},      {"building_compressible.mel", 2}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *text = tm_slurp(cases[c].file);
        inc_session *s = NULL;
        cr_assert_eq(inc_session_new(&s), MDAE_OK);
        version v;
        analyse(s, text, cases[c].n, &v);
        check_ids(&v, cases[c].file);
        drop(&v);
        inc_session_free(s);
        free(text);
    }
}

Test(inc_ids, keeps_the_ids_of_the_blocks_an_edit_does_not_touch)
{
    /* Two components; the edit changes the second only. */
    static const char v1[] = "a : real; b : real; e1 : equation der(a) = b; e2 : equation b = a;\n"
                             "x : real; y : real; e3 : equation der(x) = y; e4 : equation y = x;\n";
    static const char v2[] = "a : real; b : real; e1 : equation der(a) = b; e2 : equation b = a;\n"
                             "x : real; y : real; e3 : equation x = y; e4 : equation der(y) = x;\n";
    inc_session *s = NULL;
    cr_assert_eq(inc_session_new(&s), MDAE_OK);
    version a, b;
    analyse(s, v1, 0, &a);
    analyse(s, v2, 0, &b);
    check_ids(&a, "v1");
    check_ids(&b, "v2");
    size_t kept = 0;
    for (size_t i = 0; i < cdg_graph_n_blocks(a.g); i++)
        for (size_t j = 0; j < cdg_graph_n_blocks(b.g); j++) {
            cdg_block x, y;
            cr_assert_eq(cdg_graph_block(a.g, (uint32_t)i, &x), MDAE_OK);
            cr_assert_eq(cdg_graph_block(b.g, (uint32_t)j, &y), MDAE_OK);
            if (same_block(&x, &y)) {
                cr_assert_eq(a.ids[i], b.ids[j], "an unchanged block keeps its id");
                kept++;
            } else {
                cr_assert_neq(a.ids[i], b.ids[j], "a changed block gets a new id");
            }
        }
    cr_assert_gt(kept, 0, "the e1/e2 blocks are in both versions");
    /* v2's graph is not v1's result's. */
    uint32_t *ids = NULL;
    cr_assert_eq(inc_result_whole_ids(a.r, b.g, &ids), MDAE_E_INVAL);
    cr_assert_null(ids);
    drop(&a);
    drop(&b);
    inc_session_free(s);
}
