/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_mo_exprs.c -- what keeping the expressions costs the
 * Modelica front-end (issue 38, "Speed": at most 20 % of the front-end's
 * time, median over the MSL models): mo_model_parse of every .bmo file of
 * a folder (default ../shared/msl), with and without
 * mel_options.no_expressions, alternated in the same run, best of `reps`
 * runs each. Prints one line per model (seconds without, with, ratio,
 * bytes of expressions) and the median ratio.
 *
 *   bench_mo_exprs [DIR [REPS]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_floor.h"
#include "bench_run.h"
#include "dir_list.h"
#include "fx.h"
#include "mo.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Seconds of one mo_model_parse (-1 on failure); the pool's bytes in *bytes. */
static double parse_once(const char *text, size_t len, bool exprs, size_t *bytes)
{
    mel_options o = {.no_expressions = !exprs};
    mel_model *m = NULL;
    double t0 = bench_now();
    int rc = mo_model_parse(text, len, &o, &m, NULL);
    double t = bench_now() - t0;
    if (rc != MDAE_OK)
        return -1;
    *bytes = fx_pool_bytes(mel_model_exprs(m));
    mel_model_free(m);
    return t;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : MDAE_SOURCE_DIR "/../shared/msl";
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    static const char *const bmo[] = {".bmo"};
    size_t n;
    char **names = dir_list(dir, bmo, 1, &n);
    if (names == NULL) {
        fprintf(stderr, "bench_mo_exprs: cannot open %s\n", dir);
        return 1;
    }
    double *ratios = calloc(n + 1, sizeof *ratios);
    size_t n_ratios = 0;
    double total_without = 0, total_with = 0;
    printf("%-72s %10s %10s %7s %10s\n", "model", "without_s", "with_s", "ratio", "fx_bytes");
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        size_t len = 0, bytes = 0;
        char *text = bench_slurp(path, &len);
        double best[2] = {1e30, 1e30};
        for (int r = 0; text != NULL && r < reps; r++)
            for (int with = 0; with < 2; with++) {
                double t = parse_once(text, len, with, &bytes);
                if (t >= 0 && t < best[with])
                    best[with] = t;
            }
        free(text);
        if (best[0] >= 1e30 || best[1] >= 1e30) {
            printf("%-72s failed\n", names[i]);
        } else {
            ratios[n_ratios++] = best[1] / best[0];
            total_without += best[0];
            total_with += best[1];
            printf("%-72s %10.5f %10.5f %7.3f %10zu\n", names[i], best[0], best[1],
                   best[1] / best[0], bytes);
        }
    }
    dir_list_free(names, n);
    qsort(ratios, n_ratios, sizeof *ratios, cmp_double);
    if (n_ratios > 0)
        printf("%zu models: median ratio %.3f (p90 %.3f, max %.3f); total %.3f s without, "
               "%.3f s with\n",
               n_ratios, ratios[n_ratios / 2], ratios[n_ratios * 9 / 10], ratios[n_ratios - 1],
               total_without, total_with);
    free(ratios);
    return 0;
}
