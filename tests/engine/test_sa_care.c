/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_sa_care.c -- the reports' covers within the valid modes
 * use only the factors of chi_M that each set touches (sa_sop.c, "Care sets
 * by factors", which proves the cover is the same). Checked from outside:
 * a model and the same model with one more invariant, a tautology naming
 * every mode variable, have the same valid modes, but the tautology joins
 * all the invariants' variables into one group, so the second report covers
 * every set within the whole of chi_M. Every formula and cube of both
 * reports (the analysis's and the dependency graph's) must be the same, on
 * random models with two-literal invariants added (MDAE_SEED,
 * MDAE_RANDOM_MODELS) and on the scalable families, whose invariants are
 * one per room or car.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "mdae.h"
#include "mel.h"
#include "ref.h"
#include "sa.h"

#include "model_files.h"
#include "test_env.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(sa_care, .init = begin, .fini = end, .timeout = 600);

typedef struct analysed {
    mel_model *m;
    sa_result *r;
    cdg_graph *g;
    sa_report *rep;
    cdg_report *crep;
} analysed;

static void analyse(const char *label, const char *text, long long N, analysed *a)
{
    mel_define def;
    mel_options o = tm_options_n(&def, N);
    mdae_diags d;
    mdae_diags_init(&d);
    memset(a, 0, sizeof *a);
    cr_assert_eq(mel_model_parse(text, strlen(text), &o, &a->m, &d), MDAE_OK, "%s: parse",
                 label);
    cr_assert_eq(sa_analyze(a->m, NULL, &a->r, &d), MDAE_OK, "%s: analyze", label);
    cr_assert_eq(cdg_build(a->r, NULL, &a->g, &d), MDAE_OK, "%s: cdg_build", label);
    cr_assert_eq(sa_result_report(a->r, &a->rep), MDAE_OK, "%s: report", label);
    cr_assert_eq(cdg_graph_report(a->g, &a->crep), MDAE_OK, "%s: graph report", label);
    mdae_diags_close(&d);
}

static void release(analysed *a)
{
    cdg_report_free(a->crep);
    sa_report_free(a->rep);
    cdg_graph_free(a->g);
    sa_result_free(a->r);
    mel_model_free(a->m);
}

static void same_set(const char *label, const char *what, size_t k, const sa_set *x,
                     const sa_set *y, uint32_t n_modes)
{
    cr_assert_str_eq(x->formula, y->formula, "%s: %s %zu", label, what, k);
    cr_assert_eq(x->n_cubes, y->n_cubes, "%s: %s %zu", label, what, k);
    for (size_t q = 0; q < x->n_cubes; q++)
        for (uint32_t v = 0; v < n_modes; v++)
            cr_assert_eq(sa_set_literal(x, q, v), sa_set_literal(y, q, v), "%s: %s %zu cubes",
                         label, what, k);
}

static void same_item(const char *label, size_t k, const sa_item *x, const sa_item *y,
                      uint32_t nm)
{
    same_set(label, "item active", k, &x->active, &y->active, nm);
    cr_assert_eq(x->n_offsets, y->n_offsets, "%s: item %zu offsets", label, k);
    for (size_t q = 0; q < x->n_offsets; q++) {
        cr_assert_eq(x->offsets[q].value, y->offsets[q].value, "%s: item %zu", label, k);
        same_set(label, "item offset", k, &x->offsets[q].modes, &y->offsets[q].modes, nm);
    }
}

static void same_reports(const char *label, const analysed *a, const analysed *b)
{
    const sa_report *x = a->rep, *y = b->rep;
    uint32_t nm = x->n_modes;
    cr_assert_eq(nm, y->n_modes, "%s: modes", label);
    cr_assert_eq(x->valid_modes, y->valid_modes, "%s: valid modes", label);
    same_set(label, "singular modes", 0, &x->singular_modes, &y->singular_modes, nm);
    cr_assert_eq(x->n_equations, y->n_equations);
    for (uint32_t i = 0; i < x->n_equations; i++)
        same_item(label, i, &x->equations[i], &y->equations[i], nm);
    cr_assert_eq(x->n_variables, y->n_variables);
    for (uint32_t j = 0; j < x->n_variables; j++)
        same_item(label, j, &x->variables[j], &y->variables[j], nm);
    cr_assert_eq(x->n_diagnostics, y->n_diagnostics, "%s: diagnostics", label);
    for (size_t k = 0; k < x->n_diagnostics; k++)
        same_set(label, "diagnostic", k, &x->diagnostics[k].modes, &y->diagnostics[k].modes,
                 nm);
    const cdg_report *cx = a->crep, *cy = b->crep;
    cr_assert_eq(cx->n_blocks, cy->n_blocks, "%s: blocks", label);
    for (size_t k = 0; k < cx->n_blocks; k++)
        same_set(label, "block guard", k, &cx->blocks[k].guard, &cy->blocks[k].guard, nm);
    cr_assert_eq(cx->n_edges, cy->n_edges, "%s: edges", label);
    for (size_t k = 0; k < cx->n_edges; k++)
        same_set(label, "edge guard", k, &cx->edges[k].guard, &cy->edges[k].guard, nm);
}

/* text, then `invariant g1 | g2 ... | (!g1 & !g2 ...);` over every mode
 * variable (owned: free): true in every mode, but not folded to true by the
 * front-end as `g1 | !g1` is. */
static char *with_tautology(const char *text, const mel_model *m)
{
    size_t len = strlen(text) + 32;
    for (uint32_t k = 0; k < m->n_modes; k++)
        len += 2 * strlen(m->modes[k].name) + 8;
    char *t = malloc(len);
    cr_assert_not_null(t);
    char *p = t + sprintf(t, "%s;\ninvariant ", text);
    for (uint32_t k = 0; k < m->n_modes; k++)
        p += sprintf(p, "%s | ", m->modes[k].name);
    *p++ = '(';
    for (uint32_t k = 0; k < m->n_modes; k++)
        p += sprintf(p, "%s!%s", k ? " & " : "", m->modes[k].name);
    strcpy(p, ");\n");
    return t;
}

/* Returns the number of invariants of the model (0: nothing to compare). */
static uint32_t check_text(const char *label, const char *text, long long N)
{
    analysed split, whole;
    analyse(label, text, N, &split);
    uint32_t n_inv = split.m->n_invariants;
    if (n_inv > 0 && split.m->n_modes > 1) {
        char *t = with_tautology(text, split.m);
        analyse(label, t, N, &whole);
        cr_assert_eq(whole.m->n_invariants, n_inv + 1, "%s", label);
        same_reports(label, &split, &whole);
        release(&whole);
        free(t);
    }
    release(&split);
    return n_inv;
}

/* text, then two-literal invariants over random pairs of the modes g1..gn
 * the generator names (owned: free), so that most models have several
 * groups of invariants. */
static char *with_clauses(const char *text, uint64_t seed)
{
    uint32_t n = 0;
    for (const char *p = text; (p = strstr(p, " : boolean")) != NULL; p++)
        n++;
    char *t = malloc(strlen(text) + 64 * (n + 1));
    cr_assert_not_null(t);
    char *p = t + sprintf(t, "%s", text);
    uint64_t rng = seed;
    for (uint32_t q = 0; n >= 2 && q < n / 2; q++) {
        uint64_t x = ref_rand_next(&rng);
        uint32_t a = 1 + (uint32_t)(x % n), b = 1 + (uint32_t)((x >> 8) % n);
        if (a != b)
            p += sprintf(p, ";\ninvariant %sg%u | %sg%u", x >> 16 & 1 ? "!" : "", a,
                         x >> 17 & 1 ? "!" : "", b);
    }
    return t;
}

Test(sa_care, random_models_report_the_same_covers_split_or_whole)
{
    uint64_t base = env_u64("MDAE_SEED", 0xCA5E);
    uint64_t count = env_u64("MDAE_RANDOM_MODELS", 300);
    ref_random_opts o = {.max_modes = 8, .nonsquare_percent = 10};
    size_t with_invariants = 0;
    for (uint64_t s = base; s < base + count; s++) {
        char *text = ref_random_model(s, &o);
        cr_assert_not_null(text);
        char *t = with_clauses(text, s);
        char label[64];
        snprintf(label, sizeof label, "random seed %llu", (unsigned long long)s);
        with_invariants += check_text(label, t, -1) > 1;
        free(t);
        mdae_free(text);
    }
    /* The comparison means something only where invariants can be split. */
    cr_assert_gt(with_invariants, count / 10, "%zu models with two invariants or more",
                 with_invariants);
}

Test(sa_care, scalable_families_report_the_same_covers_split_or_whole)
{
    static const char *files[] = {"building_compressible.mel", "building_incompressible.mel",
                                  "brake.mel", "rldc_chain.mel"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++)
        for (long long N = 2; N <= 4; N++) {
            char *text = tm_slurp(files[f]);
            char label[96];
            snprintf(label, sizeof label, "%s N = %lld", files[f], N);
            check_text(label, text, N);
            free(text);
        }
}
