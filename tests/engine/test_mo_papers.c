/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mo_papers.c -- Modelica models through the whole
 * analysis (issue 11).
 *
 *  - Each paper model in Modelica (tests/models/NAME.mo) gives the same
 *    analysis as its MEL twin (NAME_mo.mel), mode by mode: validity,
 *    singularity, the offset of every equation (twins list their equations
 *    in the same order) and of every unknown (by name), the over- and
 *    underdetermined parts, and the blocks of the mode, each by its set of
 *    unknowns with their orders. Mode variables are matched by name.
 *  - The Base Modelica test models (tests/models/bm_*.bmo) and the papers'
 *    Modelica are checked against the brute-force reference (tests/ref) on
 *    every mode: validity, singularity, every c_i and d_j, DM parts.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "mel.h"
#include "mo.h"
#include "ref.h"
#include "sa.h"

#include "model_files.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }
TestSuite(mo_papers, .init = begin, .fini = end);

typedef struct analysed {
    mel_model *m;
    sa_result *res;
    cdg_graph *g;
} analysed;

static void analyse(const char *file, analysed *a)
{
    size_t len;
    char *text = tm_read(file, &len);
    mdae_diags d;
    mdae_diags_init(&d);
    int rc = mo_is_modelica(text, len, file) ? mo_model_parse(text, len, NULL, &a->m, &d)
                                             : mel_model_parse(text, len, NULL, &a->m, &d);
    for (size_t i = 0; i < d.count; i++) {
        char *s = mdae_diag_format(&d.items[i], file);
        cr_log_error("%s", s ? s : "?");
        mdae_free(s);
    }
    cr_assert_eq(rc, MDAE_OK, "%s: %s", file, mdae_err_name(rc));
    cr_assert_eq(sa_analyze(a->m, NULL, &a->res, &d), MDAE_OK, "%s", file);
    cr_assert_eq(cdg_build(a->res, NULL, &a->g, &d), MDAE_OK, "%s", file);
    mdae_diags_close(&d);
    free(text);
}

static void release(analysed *a)
{
    cdg_graph_free(a->g);
    sa_result_free(a->res);
    mel_model_free(a->m);
}

/* The blocks of a mode as a sorted list of strings "x'1,y'0" (unknowns with
 * orders, by name), joined by ';'. */
static char *blocks_key(const analysed *a, const bool *mode)
{
    cdg_mode_view v;
    memset(&v, 0, sizeof v);
    cr_assert_eq(cdg_graph_mode(a->g, mode, &v), MDAE_OK);
    char **keys = calloc(v.n_blocks + 1, sizeof *keys);
    cr_assert_not_null(keys);
    for (size_t b = 0; b < v.n_blocks; b++) {
        cdg_block blk;
        cr_assert_eq(cdg_graph_block(a->g, v.blocks[b], &blk), MDAE_OK);
        char **names = calloc(blk.n_unknowns + 1, sizeof *names);
        size_t total = 1;
        for (size_t k = 0; k < blk.n_unknowns; k++) {
            char buf[512];
            snprintf(buf, sizeof buf, "%s'%d", blk.unknowns[k].name, blk.unknowns[k].order);
            names[k] = strdup(buf);
            total += strlen(buf) + 1;
        }
        for (size_t i = 1; i < blk.n_unknowns; i++)
            for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
                char *t = names[j];
                names[j] = names[j - 1];
                names[j - 1] = t;
            }
        keys[b] = calloc(total, 1);
        for (size_t k = 0; k < blk.n_unknowns; k++) {
            if (k)
                strcat(keys[b], ",");
            strcat(keys[b], names[k]);
            free(names[k]);
        }
        free(names);
    }
    for (size_t i = 1; i < v.n_blocks; i++)
        for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
            char *t = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = t;
        }
    size_t total = 1;
    for (size_t b = 0; b < v.n_blocks; b++)
        total += strlen(keys[b]) + 1;
    char *out = calloc(total, 1);
    for (size_t b = 0; b < v.n_blocks; b++) {
        if (b)
            strcat(out, ";");
        strcat(out, keys[b]);
        free(keys[b]);
    }
    free(keys);
    cdg_mode_view_close(&v);
    return out;
}

static void compare_twins(const char *mo_file, const char *mel_file)
{
    analysed a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    analyse(mo_file, &a);
    analyse(mel_file, &b);
    const mel_model *ma = a.m, *mb = b.m;
    cr_assert_eq(ma->n_modes, mb->n_modes, "%s: mode variables", mo_file);
    cr_assert_eq(ma->n_equations, mb->n_equations, "%s: equations", mo_file);
    cr_assert_eq(ma->n_variables, mb->n_variables, "%s: unknowns", mo_file);
    cr_assert_leq(ma->n_modes, 12);
    long perm[12]; /* mode k of a is mode perm[k] of b */
    for (uint32_t k = 0; k < ma->n_modes; k++) {
        perm[k] = mel_model_find_mode(mb, ma->modes[k].name);
        cr_assert_geq(perm[k], 0, "%s: mode variable %s not in the twin", mo_file,
                      ma->modes[k].name);
    }
    long vperm[64];
    cr_assert_leq(ma->n_variables, 64);
    for (uint32_t j = 0; j < ma->n_variables; j++) {
        vperm[j] = mel_model_find_variable(mb, ma->variables[j].name);
        cr_assert_geq(vperm[j], 0, "%s: unknown %s not in the twin", mo_file,
                      ma->variables[j].name);
    }
    bool mode_a[12], mode_b[12];
    for (uint32_t x = 0; x < (1u << ma->n_modes); x++) {
        for (uint32_t k = 0; k < ma->n_modes; k++) {
            mode_a[k] = (x >> k) & 1;
            mode_b[perm[k]] = mode_a[k];
        }
        sa_mode_view va, vb;
        memset(&va, 0, sizeof va);
        memset(&vb, 0, sizeof vb);
        cr_assert_eq(sa_result_mode(a.res, mode_a, &va), MDAE_OK);
        cr_assert_eq(sa_result_mode(b.res, mode_b, &vb), MDAE_OK);
        cr_assert_eq(va.valid, vb.valid, "%s mode #%u: valid", mo_file, x);
        cr_assert_eq(va.singular, vb.singular, "%s mode #%u: singular", mo_file, x);
        for (uint32_t i = 0; i < ma->n_equations; i++) {
            cr_assert_eq(va.eq_active[i], vb.eq_active[i], "%s mode #%u: %s active", mo_file, x,
                         ma->equations[i].name);
            cr_assert_eq(va.c[i], vb.c[i], "%s mode #%u: c of %s", mo_file, x,
                         ma->equations[i].name);
            if (va.singular)
                cr_assert_eq(va.overdetermined[i], vb.overdetermined[i]);
        }
        for (uint32_t j = 0; j < ma->n_variables; j++) {
            cr_assert_eq(va.d[j], vb.d[vperm[j]], "%s mode #%u: d of %s", mo_file, x,
                         ma->variables[j].name);
            if (va.singular)
                cr_assert_eq(va.underdetermined[j], vb.underdetermined[vperm[j]]);
        }
        char *ka = blocks_key(&a, mode_a), *kb = blocks_key(&b, mode_b);
        cr_assert_str_eq(ka, kb, "%s mode #%u: blocks", mo_file, x);
        free(ka);
        free(kb);
        sa_mode_view_close(&va);
        sa_mode_view_close(&vb);
    }
    release(&a);
    release(&b);
}

Test(mo_papers, water_tank_in_modelica_equals_its_mel_twin)
{
    compare_twins("water_tank.mo", "water_tank_mo.mel");
}

Test(mo_papers, clutch_in_modelica_equals_its_mel_twin)
{
    compare_twins("clutch_basic.mo", "clutch_basic_mo.mel");
}

Test(mo_papers, cup_and_ball_in_modelica_equals_its_mel_twin)
{
    compare_twins("cup_and_ball.mo", "cup_and_ball_mo.mel");
}

Test(mo_papers, rldc2_in_modelica_equals_its_mel_twin)
{
    compare_twins("rldc2_cc.mo", "rldc2_cc_mo.mel");
}

Test(mo_papers, two_equations_in_modelica_equals_its_mel_twin)
{
    compare_twins("two_equations.mo", "two_equations_mo.mel");
}

/* Issue 13 item 5: when gamma then reinit(v, ...) is MEL's when-clause. */
Test(mo_papers, elastic_cup_and_ball_in_modelica_equals_its_mel_twin)
{
    compare_twins("cup_and_ball_elastic.mo", "cup_and_ball_elastic_mo.mel");
}

/* The papers' statements, on the Modelica listings themselves. */
Test(mo_papers, the_water_tank_listing_is_singular_only_when_full_and_empty)
{
    analysed a;
    memset(&a, 0, sizeof a);
    analyse("water_tank.mo", &a);
    bool mode[2];
    for (int x = 0; x < 4; x++) {
        mode[0] = x & 1; /* bh */
        mode[1] = x >> 1; /* bl */
        sa_mode_view v;
        memset(&v, 0, sizeof v);
        cr_assert_eq(sa_result_mode(a.res, mode, &v), MDAE_OK);
        cr_assert_eq(v.singular, mode[0] && mode[1], "mode bh=%d bl=%d", mode[0], mode[1]);
        sa_mode_view_close(&v);
    }
    release(&a);
}

Test(mo_papers, the_clutch_listing_differentiates_the_if_equation_when_engaged)
{
    analysed a;
    memset(&a, 0, sizeof a);
    analyse("clutch_basic.mo", &a);
    bool g = true;
    sa_mode_view v;
    memset(&v, 0, sizeof v);
    cr_assert_eq(sa_result_mode(a.res, &g, &v), MDAE_OK);
    cr_assert_eq(v.c[2], 1); /* 0 = if g then w1 - w2 else f1 */
    sa_mode_view_close(&v);
    g = false;
    cr_assert_eq(sa_result_mode(a.res, &g, &v), MDAE_OK);
    cr_assert_eq(v.c[2], 0);
    sa_mode_view_close(&v);
    release(&a);
}

/* ---- Against the brute-force reference ---------------------------------------- */

static void check_against_reference(const char *file)
{
    analysed a;
    memset(&a, 0, sizeof a);
    analyse(file, &a);
    const mel_model *m = a.m;
    cr_assert_leq(m->n_modes, 12);
    bool mode[12];
    for (uint32_t x = 0; x < (1u << m->n_modes); x++) {
        ref_mode_from_index(x, m->n_modes, mode);
        ref_mode rm;
        cr_assert_eq(ref_mode_compute(m, mode, &rm), MDAE_OK);
        sa_mode_view v;
        memset(&v, 0, sizeof v);
        cr_assert_eq(sa_result_mode(a.res, mode, &v), MDAE_OK);
        cr_assert_eq(v.valid, rm.valid, "%s mode #%u: valid", file, x);
        cr_assert_eq(v.singular, rm.singular, "%s mode #%u: singular", file, x);
        if (rm.valid && !rm.singular) {
            for (uint32_t i = 0; i < m->n_equations; i++)
                cr_assert_eq(v.c[i], rm.c[i], "%s mode #%u: c of %s", file, x,
                             m->equations[i].name);
            for (uint32_t j = 0; j < m->n_variables; j++)
                cr_assert_eq(v.d[j], rm.d[j], "%s mode #%u: d of %s", file, x,
                             m->variables[j].name);
        }
        if (rm.valid && rm.singular) {
            for (uint32_t i = 0; i < m->n_equations; i++)
                cr_assert_eq(v.overdetermined[i], rm.overdetermined[i]);
            for (uint32_t j = 0; j < m->n_variables; j++)
                cr_assert_eq(v.underdetermined[j], rm.underdetermined[j]);
        }
        sa_mode_view_close(&v);
        ref_mode_close(&rm);
    }
    release(&a);
}

Test(mo_papers, base_modelica_test_models_agree_with_the_reference)
{
    check_against_reference("bm_constructs.bmo");
    check_against_reference("bm_modes.bmo");
}

Test(mo_papers, the_papers_modelica_agrees_with_the_reference)
{
    const char *files[] = {"water_tank.mo", "clutch_basic.mo", "cup_and_ball.mo", "rldc2_cc.mo",
                           "two_equations.mo"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        check_against_reference(files[i]);
}
