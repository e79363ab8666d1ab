/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_families.c -- block families against blocks (issue 40
 * item 4, docs/block_families.md) on rldc_parallel, whose blocks grow like
 * 2^N: per N, the blocks and edges with the time of cdg_build and
 * cdg_graph_report (the default output), then the families, their edges,
 * items and cubes with the time of cdg_build without block edges
 * (sa_options.families), cdg_families_build and cdg_families_report (the
 * --families output). The output's size is counted in items and cubes
 * (each cube a JSON object of its literals).
 *
 * Usage: bench_families [N...] [--budget SECONDS]   (default N: 5 10 15 20)
 *   --budget: wall-clock limit of each path's run (default 60); a run over
 *   budget is cancelled and printed as such.
 * Output: one row per N and path, tab-separated, with a header line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_floor.h"
#include "bench_run.h"
#include "cdg.h"
#include "cdg_family.h"
#include "mel.h"
#include "sa.h"

static size_t cubes_of_sets(const cdg_family_report *fr)
{
    size_t n = 0;
    for (size_t k = 0; k < fr->n_families; k++) {
        const cdg_report_family *F = &fr->families[k];
        n += F->modes.n_cubes;
        for (size_t a = 0; a < F->n_equations; a++)
            n += F->equations[a].modes.n_cubes;
        for (size_t a = 0; a < F->n_unknowns; a++)
            n += F->unknowns[a].modes.n_cubes;
        for (size_t a = 0; a < F->n_reads; a++)
            n += F->reads[a].modes.n_cubes;
    }
    for (size_t k = 0; k < fr->n_edges; k++)
        n += fr->edges[k].guard.n_cubes;
    return n;
}

/* One path (families or not) at N: a row. */
static void run(const char *text, size_t len, long long N, bool families, double limit)
{
    mel_define def = {"N", N};
    mel_options mo = {.defines = &def, .n_defines = 1};
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    sa_result *r = NULL;
    cdg_graph *g = NULL;
    cdg_report *rep = NULL;
    cdg_families *f = NULL;
    cdg_family_report *fr = NULL;
    bench_deadline bu = {bench_now() + limit};
    sa_options opt = {.progress = bench_past_deadline, .progress_ctx = &bu, .families = families};
    int rc = mel_model_parse(text, len, &mo, &m, &d);
    if (rc == MDAE_OK)
        rc = sa_analyze(m, &opt, &r, &d);
    double t0 = bench_now();
    if (rc == MDAE_OK)
        rc = cdg_build(r, &opt, &g, &d);
    if (rc == MDAE_OK && families)
        rc = cdg_families_build(g, &f);
    if (rc == MDAE_OK && families)
        rc = cdg_families_report(f, &fr);
    if (rc == MDAE_OK && !families)
        rc = cdg_graph_report(g, &rep);
    double t1 = bench_now();
    const char *path = families ? "families" : "blocks";
    if (rc != MDAE_OK) {
        printf("%lld\t%s\t%s after %.1f s\n", N, path,
               rc == MDAE_E_CANCELED ? "over budget" : mdae_err_name(rc), t1 - t0);
    } else if (families) {
        size_t items = 0;
        for (size_t k = 0; k < fr->n_families; k++)
            items += fr->families[k].n_equations + fr->families[k].n_unknowns +
                     fr->families[k].n_reads;
        printf("%lld\t%s\t%zu\t-\t%zu\t%zu\t%zu\t%zu\t%.3f\n", N, path, fr->n_blocks,
               fr->n_families, fr->n_edges, items, cubes_of_sets(fr), t1 - t0);
    } else {
        size_t items = 0, cubes = 0;
        for (size_t k = 0; k < rep->n_blocks; k++) {
            const cdg_block *b = &rep->blocks[k].block;
            items += b->n_equations + b->n_unknowns + b->n_reads;
            cubes += rep->blocks[k].guard.n_cubes;
        }
        for (size_t k = 0; k < rep->n_edges; k++)
            cubes += rep->edges[k].guard.n_cubes;
        printf("%lld\t%s\t%zu\t%zu\t-\t-\t%zu\t%zu\t%.3f\n", N, path, rep->n_blocks,
               rep->n_edges, items, cubes, t1 - t0);
    }
    fflush(stdout);
    cdg_family_report_free(fr);
    cdg_families_free(f);
    cdg_report_free(rep);
    cdg_graph_free(g);
    sa_result_free(r);
    mel_model_free(m);
    mdae_diags_close(&d);
}

int main(int argc, char **argv)
{
    double limit = 60;
    long long ns[64] = {5, 10, 15, 20};
    size_t nn = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--budget") && a + 1 < argc)
            limit = atof(argv[++a]);
        else if (nn < 64)
            ns[nn++] = atoll(argv[a]);
    }
    if (nn == 0)
        nn = 4;
    size_t len;
    char *text = bench_model_text("rldc_parallel", &len);
    sa_config cfg;
    sa_config_default(&cfg);
    if (text == NULL || sa_begin(&cfg) != MDAE_OK) {
        fprintf(stderr, "cannot read rldc_parallel.mel or start the engine\n");
        free(text);
        return 1;
    }
    printf("N\tpath\tblocks\tblock_edges\tfamilies\tfamily_edges\titems\tcubes\tseconds\n");
    for (size_t k = 0; k < nn; k++) {
        run(text, len, ns[k], false, limit);
        run(text, len, ns[k], true, limit);
    }
    sa_end();
    free(text);
    return 0;
}
