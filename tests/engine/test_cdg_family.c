/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_cdg_family.c -- block families (engine/cdg_family.h)
 * against the brute-force block triangular form, mode by mode: expanding
 * every family at a mode (its items whose sets hold there) must give
 * exactly the reference's blocks of that mode, each family at most one
 * block, and the family edges that hold there exactly the reference's
 * edges between those blocks. Then rldc_parallel (docs/block_families.md),
 * whose blocks multiply (2^N + 16N - 2) while its families stay few: the
 * expected families for N = 3..8.
 *
 * The canonical strings and brute_mode are tests/support/cdg_canon.h's,
 * shared with test_cdg_brute.c, which checks the graph itself the same way.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "cdg_family.h"
#include "ref.h"
#include "sa.h"

#include "cdg_canon.h"
#include "model_files.h"
#include "test_env.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(cdg_family, .init = begin, .fini = end, .timeout = 900);


/* ---- Families expanded mode by mode -------------------------------------------- */

static char *variant_str(const cdg_block *b)
{
    pair *p = calloc(b->n_equations + b->n_unknowns + b->n_reads + 1, sizeof *p);
    cr_assert_not_null(p);
    size_t n = 0;
    for (size_t k = 0; k < b->n_equations; k++)
        p[n++] = (pair){(int)b->equations[k].index, b->equations[k].order};
    for (size_t k = 0; k < b->n_unknowns; k++)
        p[n++] = (pair){(int)b->unknowns[k].index, b->unknowns[k].order};
    for (size_t k = 0; k < b->n_reads; k++)
        p[n++] = (pair){(int)b->reads[k].index, b->reads[k].order};
    /* the family keeps each kind sorted by (index, order), as a block does */
    char *s = block_str(p, b->n_equations, p + b->n_equations, b->n_unknowns,
                        p + b->n_equations + b->n_unknowns, b->n_reads);
    free(p);
    return s;
}

static bool same_strs(const strs *a, const strs *b)
{
    bool same = a->n == b->n;
    for (size_t k = 0; same && k < a->n; k++)
        same = !strcmp(a->s[k], b->s[k]);
    return same;
}

static void dump_fail(const char *label, const mel_model *m, const bool *mode, const strs *want,
                      const strs *got, const char *what)
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
    fprintf(f, "families:\n");
    for (size_t k = 0; k < got->n; k++)
        fprintf(f, "  %s\n", got->s[k]);
    fclose(f);
    cr_assert_fail("%s", buf);
}

/* The families of one mode against the reference. */
static void check_mode(const char *label, const mel_model *m, const cdg_graph *g,
                       const cdg_families *f, const bool *mode)
{
    ref_mode rm;
    cr_assert_eq(ref_mode_compute(m, mode, &rm), MDAE_OK);
    strs want = {0}, wantE = {0}, got = {0}, gotE = {0};
    if (rm.valid && !rm.singular)
        brute_mode(m, &rm, &want, &wantE);
    size_t nf = cdg_families_count(f);
    char **name = calloc(nf + 1, sizeof *name);
    for (size_t k = 0; k < nf; k++) {
        cdg_block b;
        cr_assert_eq(cdg_families_variant_at(f, k, mode, &b), MDAE_OK);
        if (b.id == UINT32_MAX) {
            cr_assert_eq(b.n_equations + b.n_unknowns + b.n_reads, 0,
                         "%s: family %zu has items where no variant applies", label, k);
        } else {
            name[k] = variant_str(&b);
            cr_assert_eq(cdg_families_of_block(f, b.id), k, "%s: variant's family", label);
            char *own = cdg_block_str(g, b.id); /* faithful: the variant itself */
            cr_assert_str_eq(name[k], own, "%s: family %zu at a mode is not its variant", label,
                             k);
            free(own);
            strs_add(&got, canon_dup(name[k]));
        }
        cdg_families_variant_close(&b);
    }
    for (size_t e = 0; e < cdg_families_n_edges(f); e++) {
        uint32_t a, b;
        bool holds;
        cr_assert_eq(cdg_families_edge_at(f, e, mode, &a, &b, &holds), MDAE_OK);
        if (!holds)
            continue;
        cr_assert(name[a] != NULL && name[b] != NULL, "%s: family edge without blocks", label);
        strs_add(&gotE, canon_arrow(name[a], name[b]));
    }
    strs_sort(&got);
    strs_sort(&gotE);
    if (!same_strs(&want, &got))
        dump_fail(label, m, mode, &want, &got, "blocks");
    if (!same_strs(&wantE, &gotE))
        dump_fail(label, m, mode, &wantE, &gotE, "edges");
    for (size_t k = 0; k < nf; k++)
        free(name[k]);
    free(name);
    strs_free(&want);
    strs_free(&wantE);
    strs_free(&got);
    strs_free(&gotE);
    ref_mode_close(&rm);
}

typedef struct analysed {
    mel_model *m;
    sa_result *r;
    cdg_graph *g;
    cdg_families *f;
} analysed;

static analysed analyse(const char *label, const char *text, long long N)
{
    analysed a = {0};
    mel_define def;
    mel_options o = tm_options_n(&def, N);
    mdae_diags d;
    mdae_diags_init(&d);
    cr_assert_eq(mel_model_parse(text, strlen(text), &o, &a.m, &d), MDAE_OK, "%s: parse", label);
    cr_assert_eq(sa_analyze(a.m, NULL, &a.r, &d), MDAE_OK, "%s: analyze", label);
    sa_options so = {.families = true}; /* the blocks only: the families find their edges */
    cr_assert_eq(cdg_build(a.r, &so, &a.g, &d), MDAE_OK, "%s: cdg_build", label);
    cr_assert_eq(cdg_families_build(a.g, &a.f), MDAE_OK, "%s: families", label);
    mdae_diags_close(&d);
    return a;
}

static void analysed_free(analysed *a)
{
    cdg_families_free(a->f);
    cdg_graph_free(a->g);
    sa_result_free(a->r);
    mel_model_free(a->m);
}

static void check_model(const char *label, const char *text, long long N)
{
    analysed a = analyse(label, text, N);
    /* every block is the variant of exactly one family */
    size_t nv = 0;
    cdg_family_report *rep = NULL;
    cr_assert_eq(cdg_families_report(a.f, &rep), MDAE_OK);
    for (size_t k = 0; k < rep->n_families; k++)
        nv += rep->families[k].n_variants;
    cr_assert_eq(nv, cdg_graph_n_blocks(a.g), "%s: variants", label);
    cdg_family_report_free(rep);
    uint32_t nm = a.m->n_modes;
    bool exhaustive = nm <= 10;
    size_t count = exhaustive ? (size_t)1 << nm : 300;
    uint64_t rng = 777;
    bool *mode = calloc(nm + 1, 1);
    for (size_t q = 0; q < count; q++) {
        if (exhaustive)
            ref_mode_from_index(q, nm, mode);
        else
            for (uint32_t k = 0; k < nm; k++)
                mode[k] = ref_rand_next(&rng) & 1;
        check_mode(label, a.m, a.g, a.f, mode);
    }
    free(mode);
    analysed_free(&a);
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

Test(cdg_family, families_expand_to_the_brute_force_blocks_on_the_papers_and_families)
{
    const char *files[] = {"rldc2.mel", "water_tank.mel", "clutch.mel", "cup_and_ball.mel",
                           "singular_simple.mel"};
    for (size_t k = 0; k < sizeof files / sizeof *files; k++)
        check_file(files[k], -1);
    for (long long N = 1; N <= 4; N++)
        check_file("rldc_parallel.mel", N);
    for (long long N = 1; N <= 3; N++)
        check_file("rldc_chain.mel", N);
}

Test(cdg_family, families_expand_to_the_brute_force_blocks_on_random_models)
{
    uint64_t base = env_u64("MDAE_SEED", 0xFA3);
    uint64_t count = env_u64("MDAE_RANDOM_MODELS", 200);
    ref_random_opts opts[2] = {{.nonsquare_percent = 10},
                               {.max_equations = 12, .max_order = 3, .max_modes = 7}};
    for (int o = 0; o < 2; o++)
        for (uint64_t s = base; s < base + count; s++) {
            char *text = ref_random_model(s + (uint64_t)o * 100000, &opts[o]);
            cr_assert_not_null(text);
            char label[64];
            snprintf(label, sizeof label, "random seed %llu",
                     (unsigned long long)(s + (uint64_t)o * 100000));
            check_model(label, text, -1);
            mdae_free(text);
        }
}

/* In every mode of rldc_parallel, the loops' family's block holds C[k]
 * exactly when diode k passes and another one does too (the capacitor
 * loop of the passing diodes: docs/block_families.md). */
static void check_loop_family(const char *label, const analysed *a, size_t loop)
{
    uint32_t nm = a->m->n_modes;
    bool *mode = calloc(nm + 1, 1);
    for (uint64_t q = 0; q < (1ull << nm); q++) {
        ref_mode_from_index(q, nm, mode);
        size_t passing = 0;
        for (uint32_t k = 0; k < nm; k++)
            passing += mode[k];
        cdg_block b;
        cr_assert_eq(cdg_families_variant_at(a->f, loop, mode, &b), MDAE_OK);
        for (uint32_t k = 0; k < nm; k++) {
            const char *g = a->m->modes[k].name; /* "g[3]" -> "C[3]" */
            cr_assert_eq(g[0], 'g');
            bool held = false;
            for (size_t e = 0; e < b.n_equations; e++)
                held |= b.equations[e].name[0] == 'C' && !strcmp(b.equations[e].name + 1, g + 1);
            cr_assert_eq(held, mode[k] && passing >= 2, "%s: C%s in the loops' family at mode %llu",
                         label, g + 1, (unsigned long long)q);
        }
        cdg_families_variant_close(&b);
    }
    free(mode);
}

/* rldc_parallel: blocks 2^N + 16N - 2, families few and linear in N. */
Test(cdg_family, rldc_parallel_families_stay_few_while_blocks_multiply)
{
    /* families, family edges and items of all families: 8N + 2, 23N - 11
     * and 69N - 21 for N = 3..8 (measured; the families at N = 3, 26 of
     * them, read by hand: `mdae analyze --families -D N=3`), where the
     * blocks are 54 .. 382 */
    char *text = tm_slurp("rldc_parallel.mel");
    for (long long N = 3; N <= 8; N++) {
        char label[64];
        snprintf(label, sizeof label, "rldc_parallel N=%lld", N);
        analysed a = analyse(label, text, N);
        cr_assert_eq(cdg_graph_n_blocks(a.g), (size_t)((1ll << N) + 16 * N - 2), "%s", label);
        cdg_family_report *rep = NULL;
        cr_assert_eq(cdg_families_report(a.f, &rep), MDAE_OK);
        size_t items = 0, most = 0, loop = SIZE_MAX;
        for (size_t k = 0; k < rep->n_families; k++) {
            const cdg_report_family *F = &rep->families[k];
            items += F->n_equations + F->n_unknowns + F->n_reads;
            if (F->n_variants > most) {
                most = F->n_variants;
                loop = k;
            }
        }
        /* the capacitor loops (one per set of >= 2 passing diodes) are
         * variants of one family, which holds every C[k] */
        cr_assert_geq(most, (size_t)((1ll << N) - N - 1), "%s: the loops' family", label);
        size_t cs = 0;
        for (size_t q = 0; q < rep->families[loop].n_equations; q++)
            cs += rep->families[loop].equations[q].item.name[0] == 'C';
        cr_assert_eq(cs, (size_t)N, "%s: the loops' family holds every C[k]", label);
        if (N <= 6)
            check_loop_family(label, &a, loop);
        cr_assert_eq(rep->n_families, (size_t)(8 * N + 2), "%s: families", label);
        cr_assert_eq(rep->n_edges, (size_t)(23 * N - 11), "%s: family edges", label);
        cr_assert_eq(items, (size_t)(69 * N - 21), "%s: items", label);
        cdg_family_report_free(rep);
        analysed_free(&a);
    }
    free(text);
}

/* The default output's size limit speaks (issue 36 item 3): past the edge
 * limit, the error names the count, the limit and suggests --families;
 * with sa_options.families the same graph fits (16 times the edges). */
Test(cdg_family, the_edge_limit_names_count_and_limit_and_suggests_families)
{
    char *text = tm_slurp("rldc_parallel.mel");
    mel_define def;
    mel_options o = tm_options_n(&def, 6); /* 158 blocks, 978 edges */
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, strlen(text), &o, &m, &d), MDAE_OK);
    sa_result *r = NULL;
    cr_assert_eq(sa_analyze(m, NULL, &r, &d), MDAE_OK);
    cdg_set_limits(100, 0);
    cdg_graph *g = NULL;
    cr_assert_eq(cdg_build(r, NULL, &g, &d), MDAE_E_LIMIT);
    const mdae_diag *lim = mdae_diags_find_limit(&d);
    cr_assert_not_null(lim);
    cr_assert_eq(lim->limit, MDAE_LIMIT_GRAPH_EDGES);
    cr_assert(strstr(lim->message, "more than 100 edges") != NULL, "%s", lim->message);
    cr_assert(strstr(lim->message, " blocks") != NULL, "%s", lim->message);
    cr_assert(strstr(lim->message, "--families") != NULL, "%s", lim->message);
    cr_assert(strstr(lim->message, "families:true") != NULL, "%s", lim->message);
    mdae_diags_close(&d);
    mdae_diags_init(&d);
    sa_options so = {.families = true};
    cr_assert_eq(cdg_build(r, &so, &g, &d), MDAE_OK, "families: no block edges, no edge limit");
    cr_assert_eq(cdg_graph_n_blocks(g), 158);
    cr_assert_eq(cdg_graph_n_edges(g), 0);
    cdg_report *crep = NULL;
    cr_assert_eq(cdg_graph_report(g, &crep), MDAE_E_STATE, "no report of the missing edges");
    cdg_families *f = NULL;
    cr_assert_eq(cdg_families_build(g, &f), MDAE_OK);
    cr_assert_eq(cdg_families_count(f), 8 * 6 + 2);
    cr_assert_eq(cdg_families_n_edges(f), 23 * 6 - 11, "the family edges from the items");
    cdg_families_free(f);
    cdg_graph_free(g);
    /* past the pairs of blocks the edge pass would compare (4,000 per edge
     * of the limit), the same limit speaks before comparing any */
    cdg_set_limits(2, 0);
    mdae_diags_close(&d);
    mdae_diags_init(&d);
    cr_assert_eq(cdg_build(r, NULL, &g, &d), MDAE_E_LIMIT);
    lim = mdae_diags_find_limit(&d);
    cr_assert_not_null(lim);
    cr_assert_eq(lim->limit, MDAE_LIMIT_GRAPH_EDGES);
    cr_assert(strstr(lim->message, "its 158 blocks have more than 8000 pairs of blocks to compare") !=
                  NULL, "%s", lim->message);
    cr_assert(strstr(lim->message, "for at most 2 edges") != NULL, "%s", lim->message);
    cr_assert(strstr(lim->message, "--families") != NULL, "%s", lim->message);
    cr_assert_neq(lim->where.start.line, 0, "located: %s", lim->message);
    cr_assert_eq(cdg_build(r, &so, &g, &d), MDAE_OK, "families: no edge pass");
    cdg_graph_free(g);
    mdae_diags_close(&d);
    mdae_diags_init(&d);
    /* the limit of the identities is not lifted: no suggestion there */
    cdg_set_limits(0, 1000);
    cr_assert_eq(cdg_build(r, &so, &g, &d), MDAE_E_LIMIT);
    lim = mdae_diags_find_limit(&d);
    cr_assert_not_null(lim);
    cr_assert_eq(lim->limit, MDAE_LIMIT_GRAPH_ITEMS);
    cr_assert(strstr(lim->message, "exceed 1000 items") != NULL, "%s", lim->message);
    cr_assert(strstr(lim->message, "--families") == NULL, "%s", lim->message);
    cdg_set_limits(0, 0);
    mdae_diags_close(&d);
    sa_result_free(r);
    mel_model_free(m);
    free(text);
}
