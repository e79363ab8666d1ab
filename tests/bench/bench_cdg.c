/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_cdg.c -- the complete analysis on the scalable families
 * (RR-9322 section 5): parse, sa_analyze (offsets), cdg_build (blocks and
 * edges) and cdg_graph_report (guards as formulas and cubes, what the JSON
 * output needs), with the number of blocks and edges, so anyone can see that
 * blocks grow affinely in N for the brake and the compressible building, and
 * like 2^N for the incompressible building (issue 4, "Speed").
 *
 * Usage: bench_cdg [FAMILY [N...]] [--budget SECONDS]
 *   FAMILY: brake, building_compressible, building_incompressible,
 *           rldc_chain (default: the first three, with the N of issue 4)
 *   --budget: wall-clock limit per run (default 60); a run over budget is
 *           cancelled through the progress callback and printed as such,
 *           and larger N of that family are skipped.
 * Output: one row per run, tab-separated, with a header line.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_floor.h"
#include "bench_run.h"
#include "cdg.h"
#include "mel.h"
#include "sa.h"

/* Returns false when the run failed or went over budget. */
static bool run(const char *family, long long N, double limit)
{
    size_t len;
    char *text = bench_model_text(family, &len);
    if (text == NULL) {
        fprintf(stderr, "cannot read model %s\n", family);
        return false;
    }
    mel_define def = {"N", N};
    mel_options mo = {0};
    mo.defines = &def;
    mo.n_defines = 1;
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    sa_result *r = NULL;
    cdg_graph *g = NULL;
    cdg_report *rep = NULL;
    bench_deadline bu = {bench_now() + limit};
    sa_options opt = {.progress = bench_past_deadline, .progress_ctx = &bu};
    double t0 = bench_now();
    int rc = mel_model_parse(text, len, &mo, &m, &d);
    double t1 = bench_now(), t2 = t1, t3 = t1, t4 = t1;
    const char *stage = "parse";
    if (rc == MDAE_OK) {
        stage = "offsets";
        rc = sa_analyze(m, &opt, &r, &d);
        t2 = bench_now();
    }
    if (rc == MDAE_OK) {
        stage = "blocks";
        rc = cdg_build(r, &opt, &g, &d);
        t3 = bench_now();
    }
    if (rc == MDAE_OK) {
        stage = "report";
        rc = cdg_graph_report(g, &rep);
        t4 = bench_now();
    }
    if (rc == MDAE_OK) {
        double fl = bench_floor(m);
        sa_method_info mi;
        sa_result_method(r, &mi);
        printf("%s\t%lld\t%u\t%u\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%zu\t%zu\t%zu\t%zu\t%s\t%.6f\t%.0f\n",
               family, N, m->n_modes, m->n_equations, t1 - t0, t2 - t1, t3 - t2, t4 - t3,
               t4 - t0, cdg_graph_n_blocks(g), cdg_graph_n_edges(g), cdg_graph_max_block(g),
               sa_result_peak_nodes(r), sa_method_name(mi.method), fl, (t4 - t0) / fl);
    } else {
        printf("%s\t%lld\t%u\t%u\t%s in %s after %.1f s\n", family, N, m ? m->n_modes : 0,
               m ? m->n_equations : 0,
               rc == MDAE_E_CANCELED ? "over budget" : mdae_err_name(rc), stage, bench_now() - t0);
    }
    fflush(stdout);
    cdg_report_free(rep);
    cdg_graph_free(g);
    sa_result_free(r);
    mel_model_free(m);
    mdae_diags_close(&d);
    free(text);
    return rc == MDAE_OK;
}

static void family(const char *name, const long long *ns, size_t n, double limit)
{
    for (size_t k = 0; k < n; k++)
        if (!run(name, ns[k], limit))
            break;
}

int main(int argc, char **argv)
{
    double limit = 60;
    const char *fam = NULL;
    long long ns[64];
    size_t nn = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--budget") && a + 1 < argc)
            limit = atof(argv[++a]);
        else if (fam == NULL)
            fam = argv[a];
        else if (nn < 64)
            ns[nn++] = atoll(argv[a]);
    }
    sa_config cfg;
    sa_config_default(&cfg);
    if (sa_begin(&cfg) != MDAE_OK) {
        fprintf(stderr, "sa_begin failed\n");
        return 1;
    }
    printf("family\tN\tmode_vars\tequations\tparse_s\toffsets_s\tblocks_s\treport_s\t"
           "total_s\tblocks\tedges\tmax_block\tpeak_nodes\tmethod\tfloor_s\tratio_to_floor\n");
    if (fam != NULL) {
        if (nn == 0)
            ns[nn++] = 3;
        family(fam, ns, nn, limit);
    } else {
        const long long brake[] = {10, 20, 30, 40, 50};
        const long long comp[] = {2, 4, 6, 8, 10, 12, 14, 16, 18, 20};
        const long long inc[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
        family("brake", brake, 5, limit);
        family("building_compressible", comp, 10, limit);
        family("building_incompressible", inc, 16, limit);
    }
    sa_end();
    return 0;
}
