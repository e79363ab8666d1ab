/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_cdg_brute.c -- the all-modes CDG (engine/cdg.h) against
 * a brute-force block triangular form, mode by mode.
 *
 * For each mode (all of them up to 2^10, else a fixed sample): the
 * reference (tests/ref) gives validity, singularity, sigma, a MWPM and the
 * canonical offsets, and its block triangular form (ref_mode_blocks:
 * Tarjan on the dependency graph of the leading-level system, i -> i' iff
 * (i', match(i)) is saturated); this file derives each block's identity
 * (equations with c_i, unknowns with d_j, reads) and the condensation edges,
 * exactly as cdg.h defines them.
 * cdg_graph_mode() on the same mode must give the same set of blocks, the
 * same edges, and a block list that is a topological order. The
 * reference's MWPM may differ from the engine's: the blocks must not
 * depend on it (they are the fine Dulmage-Mendelsohn blocks).
 *
 * Models: the corpus (paper examples, scalable families for small N) and
 * random models (ref_random_model; MDAE_SEED / MDAE_RANDOM_MODELS as in
 * test_sa_vs_ref.c), each analysed twice: SA_METHOD_AUTO, which enumerates
 * the modes of models this small, and the implicit path forced, whose
 * offsets come from the all-modes fixpoint (the graph reads the integers it
 * found; without this run nothing here built a graph from them).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "ref.h"
#include "sa.h"

#include "cdg_canon.h"
#include "model_files.h"
#include "test_env.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(cdg_brute, .init = begin, .fini = end, .timeout = 900);


/* ---- One model ------------------------------------------------------------------ */

static void fail_dump(const char *label, const char *text, const mel_model *m, const bool *mode,
                      const strs *want, const strs *got, const char *what)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fprintf(f, "%s: %s differ in mode", label, what);
    for (uint32_t k = 0; k < m->n_modes; k++)
        fprintf(f, " %s=%d", m->modes[k].name, mode[k]);
    fprintf(f, "\nreference:\n");
    for (size_t k = 0; k < want->n; k++)
        fprintf(f, "  %s\n", want->s[k]);
    fprintf(f, "cdg:\n");
    for (size_t k = 0; k < got->n; k++)
        fprintf(f, "  %s\n", got->s[k]);
    if (text)
        fprintf(f, "--- model ---\n%s\n", text);
    fclose(f);
    cr_assert_fail("%s", buf);
}

static size_t check_model_by(const char *label, const char *text, long long N, int method);

/* The model's graph against the brute force, from the result of
 * SA_METHOD_AUTO (which enumerates small models' modes) and of the implicit
 * path forced (its offsets from the all-modes fixpoint: engine/sa_dual.c,
 * whose integers the graph reads too). */
static size_t check_model(const char *label, const char *text, long long N)
{
    char forced[300];
    snprintf(forced, sizeof forced, "%s (implicit)", label);
    check_model_by(forced, text, N, SA_METHOD_IMPLICIT);
    return check_model_by(label, text, N, SA_METHOD_AUTO);
}

static size_t check_model_by(const char *label, const char *text, long long N, int method)
{
    mel_define def;
    mel_options o = tm_options_n(&def, N);
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, strlen(text), &o, &m, &d), MDAE_OK, "%s: parse", label);
    sa_result *r = NULL;
    sa_options so = {.method = method};
    cr_assert_eq(sa_analyze(m, &so, &r, &d), MDAE_OK, "%s: analyze", label);
    cdg_graph *g = NULL;
    cr_assert_eq(cdg_build(r, NULL, &g, &d), MDAE_OK, "%s: cdg_build", label);
    mdae_diags_close(&d);

    uint32_t nm = m->n_modes;
    uint64_t total = nm >= 63 ? UINT64_MAX : (1ull << nm);
    bool exhaustive = nm <= 10;
    size_t count = exhaustive ? (size_t)total : 300;
    uint64_t rng = 12345;
    bool *mode = calloc(nm + 1, 1);
    size_t checked = 0;
    for (size_t q = 0; q < count; q++) {
        if (exhaustive)
            ref_mode_from_index(q, nm, mode);
        else
            for (uint32_t k = 0; k < nm; k++)
                mode[k] = ref_rand_next(&rng) & 1;
        ref_mode rm;
        cr_assert_eq(ref_mode_compute(m, mode, &rm), MDAE_OK);
        cdg_mode_view v;
        cr_assert_eq(cdg_graph_mode(g, mode, &v), MDAE_OK, "%s: cdg_graph_mode", label);
        cr_assert_eq(v.valid, rm.valid, "%s: validity", label);
        cr_assert_eq(v.singular, rm.singular, "%s: singularity", label);
        strs want = {0}, wantE = {0}, got = {0}, gotE = {0};
        if (rm.valid && !rm.singular)
            brute_mode(m, &rm, &want, &wantE);
        /* Topological order: every active edge goes forward. */
        size_t nb = cdg_graph_n_blocks(g);
        int *pos = malloc((nb + 1) * sizeof *pos);
        for (size_t k = 0; k < nb; k++)
            pos[k] = -1;
        for (size_t k = 0; k < v.n_blocks; k++) {
            cr_assert_eq(pos[v.blocks[k]], -1, "%s: block listed twice", label);
            pos[v.blocks[k]] = (int)k;
            strs_add(&got, cdg_block_str(g, v.blocks[k]));
        }
        for (size_t k = 0; k < v.n_edges; k++) {
            uint32_t a = v.edges[2 * k], b = v.edges[2 * k + 1];
            cr_assert(pos[a] >= 0 && pos[b] >= 0, "%s: edge to an inactive block", label);
            cr_assert_lt(pos[a], pos[b], "%s: block order is not topological", label);
            char *sa = cdg_block_str(g, a), *sb = cdg_block_str(g, b);
            strs_add(&gotE, canon_arrow(sa, sb));
            free(sa);
            free(sb);
        }
        free(pos);
        strs_sort(&got);
        strs_sort(&gotE);
        bool same = want.n == got.n;
        for (size_t k = 0; same && k < want.n; k++)
            same = !strcmp(want.s[k], got.s[k]);
        if (!same)
            fail_dump(label, text, m, mode, &want, &got, "blocks");
        same = wantE.n == gotE.n;
        for (size_t k = 0; same && k < wantE.n; k++)
            same = !strcmp(wantE.s[k], gotE.s[k]);
        if (!same)
            fail_dump(label, text, m, mode, &wantE, &gotE, "edges");
        strs_free(&want);
        strs_free(&wantE);
        strs_free(&got);
        strs_free(&gotE);
        cdg_mode_view_close(&v);
        ref_mode_close(&rm);
        checked++;
    }
    free(mode);
    if (getenv("MDAE_CDG_VERBOSE"))
        fprintf(stderr, "%s: %zu modes, %zu blocks, %zu edges\n", label, checked,
                cdg_graph_n_blocks(g), cdg_graph_n_edges(g));
    cdg_graph_free(g);
    sa_result_free(r);
    mel_model_free(m);
    return checked;
}

static void check_file(const char *name, long long N)
{
    char *text = tm_slurp(name);
    char label[256];
    snprintf(label, sizeof label, "%s N=%lld", name, N);
    check_model(label, text, N);
    free(text);
}

/* ---- Tests -------------------------------------------------------------------------- */

Test(cdg_brute, paper_examples_match_the_brute_force_btf_in_every_mode)
{
    const char *files[] = {"rldc2.mel", "water_tank.mel", "two_equations.mel", "clutch.mel",
                           "cup_and_ball.mel", "singular_simple.mel"};
    for (size_t k = 0; k < sizeof files / sizeof *files; k++)
        check_file(files[k], -1);
}

Test(cdg_brute, scalable_families_match_the_brute_force_btf_for_small_n)
{
    for (long long N = 1; N <= 3; N++) {
        check_file("rldc_chain.mel", N);
        check_file("brake.mel", N);
    }
    for (long long N = 1; N <= 2; N++) {
        check_file("building_compressible.mel", N);
        check_file("building_incompressible.mel", N);
    }
}

/* check_model on the random models of seeds base .. base + count - 1. */
static void check_random(uint64_t base, uint64_t count, const ref_random_opts *o)
{
    for (uint64_t s = base; s < base + count; s++) {
        char *text = ref_random_model(s, o);
        cr_assert_not_null(text);
        char label[64];
        snprintf(label, sizeof label, "random seed %llu", (unsigned long long)s);
        check_model(label, text, -1);
        mdae_free(text);
    }
}

Test(cdg_brute, random_models_match_the_brute_force_btf_in_every_mode)
{
    uint64_t base = env_u64("MDAE_SEED", 0xCD6);
    uint64_t count = env_u64("MDAE_RANDOM_MODELS", 300);
    ref_random_opts o = {.nonsquare_percent = 10};
    check_random(base, count, &o);
}

Test(cdg_brute, random_models_with_high_orders_match_the_brute_force_btf)
{
    uint64_t base = env_u64("MDAE_SEED", 0xCD6) + 100000;
    uint64_t count = env_u64("MDAE_RANDOM_MODELS", 200);
    ref_random_opts o = {.max_equations = 9, .max_order = 5, .max_modes = 5};
    check_random(base, count, &o);
}

Test(cdg_brute, larger_random_models_match_the_brute_force_btf)
{
    uint64_t base = env_u64("MDAE_SEED", 0xCD6) + 200000;
    uint64_t count = env_u64("MDAE_RANDOM_MODELS", 60);
    ref_random_opts o = {.max_equations = 20, .max_order = 2, .max_modes = 6};
    check_random(base, count, &o);
}
