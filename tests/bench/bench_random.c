/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_random.c -- the complete all-modes analysis of seeded
 * random models of the reference's generator (tests/ref/ref_random.c),
 * judged against enumeration (issue 10, "Never worse than enumeration").
 *
 * For each model: the analysis as `mdae analyze --json` computes it (the
 * incremental session, which picks a method per connected component, the
 * composed result and the dependency graph, and both reports), then the
 * naive alternative a script would run: every mode, valid ones analysed by
 * the engine's single-mode path (sm_model_mode), and the floor (one mode).
 *
 * Usage: bench_random [--models N] [--first SEED] [--max-modes K]
 *                     [--max-equations E] [--method auto|implicit|enumeration]
 *                     [--budget SECONDS] [--rows] [--singular]
 *   defaults: 500 models from seed 1, up to 10 mode variables and 80
 *   equations (in the text; branches add their own), orders up to 3,
 *   auto, 10 s per model (a model over budget is cancelled and counted).
 * --singular: the singular half (issue 36): the generator's models with
 * one to three edits that leave an equation or an unknown too many
 * (ref_random_opts.singular_edits), those singular in at least half their
 * valid modes (counted by the single-mode path) analysed, the others left
 * out and counted.
 * Output: with --rows one row per model; always a summary row: the
 * distribution of the analysis times, the worst model (seed, seconds, its
 * ratio to enumeration by the single-mode path), how many took more than
 * 20 ms and 1 s, and the components per method.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_run.h"
#include "ref.h"


/* Every mode, the valid ones by the single-mode path. Seconds. */
static double enumerate(const mel_model *m, size_t *valid, size_t *singular)
{
    bool mode[64] = {false};
    *valid = *singular = 0;
    double t0 = bench_now();
    for (uint64_t x = 0; x < (1ull << m->n_modes); x++) {
        ref_mode_from_index(x, m->n_modes, mode);
        if (!bench_valid(m, mode))
            continue;
        sm_mode v;
        if (sm_model_mode(m, mode, &v) == MDAE_OK) {
            (*valid)++;
            *singular += v.singular;
        }
        sm_mode_close(&v);
    }
    return bench_now() - t0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return 0;
    size_t k = (size_t)(q * (double)(n - 1) + 0.5);
    return sorted[k < n ? k : n - 1];
}

int main(int argc, char **argv)
{
    uint64_t n_models = 500, first = 1;
    ref_random_opts o = {.max_modes = 10, .max_equations = 80, .max_order = 3,
                         .nonsquare_percent = 15};
    int method = SA_METHOD_AUTO;
    double budget = 10;
    bool rows = false, singular_half = false;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--models") && a + 1 < argc)
            n_models = strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--first") && a + 1 < argc)
            first = strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--max-modes") && a + 1 < argc)
            o.max_modes = (uint32_t)atoi(argv[++a]);
        else if (!strcmp(argv[a], "--max-equations") && a + 1 < argc)
            o.max_equations = (uint32_t)atoi(argv[++a]);
        else if (!strcmp(argv[a], "--budget") && a + 1 < argc)
            budget = atof(argv[++a]);
        else if (!strcmp(argv[a], "--rows"))
            rows = true;
        else if (!strcmp(argv[a], "--singular"))
            singular_half = true;
        else if (!strcmp(argv[a], "--method") && a + 1 < argc) {
            const char *v = argv[++a];
            method = !strcmp(v, "implicit")      ? SA_METHOD_IMPLICIT
                     : !strcmp(v, "enumeration") ? SA_METHOD_ENUMERATE
                                                 : SA_METHOD_AUTO;
        } else {
            fprintf(stderr, "usage: bench_random [--models N] [--first SEED] [--max-modes K] "
                            "[--max-equations E] [--method M] [--budget S] [--rows] [--singular]\n");
            return 2;
        }
    }
    if (singular_half)
        o.singular_edits = 3;
    if (sa_begin(NULL) != MDAE_OK) {
        fprintf(stderr, "sa_begin failed\n");
        return 1;
    }
    double *times = calloc(n_models + 1, sizeof *times);
    size_t n_ok = 0, over_budget = 0, failed = 0, over_20ms = 0, over_1s = 0, skipped = 0;
    double worst = -1, worst_ratio = 0, worst_enum = 0, max_ratio = 0;
    uint64_t worst_seed = 0, max_ratio_seed = 0;
    inc_stats total = {0};
    if (rows)
        printf("seed\tmode_vars\tequations\tvalid_modes\tanalysis_s\tenumeration_s\t"
               "floor_s\tratio_to_enumeration\tmethods\n");
    for (uint64_t k = 0; k < n_models; k++) {
        uint64_t seed = first + k;
        char *text = ref_random_model(seed, &o);
        mel_model *m = NULL;
        if (text == NULL || mel_model_parse(text, strlen(text), NULL, &m, NULL) != MDAE_OK) {
            failed++;
            mdae_free(text);
            continue;
        }
        size_t valid, singular;
        double te = enumerate(m, &valid, &singular);
        if (singular_half && (valid == 0 || 2 * singular < valid)) {
            skipped++; /* not singular in at least half its valid modes */
            mel_model_free(m);
            mdae_free(text);
            continue;
        }
        inc_stats st = {0};
        int rc;
        double t = bench_analyse(m, method, budget, &st, NULL, &rc);
        double fl = bench_floor(m);
        if (t < 0) {
            if (rc == MDAE_E_CANCELED)
                over_budget++;
            else
                failed++;
            printf("seed %llu: %s\n", (unsigned long long)seed, mdae_err_name(rc));
        } else {
            times[n_ok++] = t;
            over_20ms += t > 0.02;
            over_1s += t > 1.0;
            double ratio = te > 0 ? t / te : 0;
            if (t > worst) {
                worst = t;
                worst_seed = seed;
                worst_enum = te;
                worst_ratio = ratio;
            }
            if (ratio > max_ratio) {
                max_ratio = ratio;
                max_ratio_seed = seed;
            }
            total.implicit += st.implicit;
            total.enumerated += st.enumerated;
            total.fell_back += st.fell_back;
            total.components += st.components;
        }
        if (rows)
            printf("%llu\t%u\t%u\t%zu\t%.4f\t%.4f\t%.6f\t%.2f\t%zui/%zue/%zuf\n",
                   (unsigned long long)seed, m->n_modes, m->n_equations, valid, t, te, fl,
                   te > 0 ? t / te : 0, st.implicit, st.enumerated, st.fell_back);
        mel_model_free(m);
        mdae_free(text);
    }
    qsort(times, n_ok, sizeof *times, cmp_double);
    if (singular_half)
        printf("singular half: %zu models singular in fewer than half their valid modes "
               "left out\n", skipped);
    printf("models\tanalysed\tover_budget\tfailed\tmedian_s\tp90_s\tp99_s\tmax_s\tworst_seed\t"
           "worst_enumeration_s\tworst_ratio\tmax_ratio(seed)\tover_20ms\tover_1s\t"
           "components\timplicit\tenumerated\tfell_back\n");
    printf("%llu\t%zu\t%zu\t%zu\t%.4f\t%.4f\t%.4f\t%.4f\t%llu\t%.4f\t%.2f\t%.2f(%llu)\t%zu\t%zu\t"
           "%zu\t%zu\t%zu\t%zu\n",
           (unsigned long long)n_models, n_ok, over_budget, failed, quantile(times, n_ok, 0.5),
           quantile(times, n_ok, 0.9), quantile(times, n_ok, 0.99), worst,
           (unsigned long long)worst_seed, worst_enum, worst_ratio, max_ratio,
           (unsigned long long)max_ratio_seed, over_20ms, over_1s, total.components,
           total.implicit, total.enumerated, total.fell_back);
    free(times);
    sa_end();
    return 0;
}
