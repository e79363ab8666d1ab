/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_singular.c -- singular models at the speed of sound
 * ones (issue 36): each family of tests/models, sound and with one equation
 * added or removed at its chain's start, middle and end, in the same run,
 * with the ratio to the sound model printed (not asserted).
 *
 * The analysis is `mdae analyze --json`'s, as bench_random.c times it: the
 * incremental session, the composed result and the dependency graph, and
 * both reports. The edits are test_sa_vs_ref.c's: `xtra : equation VAR[K]
 * = 0` appended, or one equation of the loop body left out for index K
 * (`if i <> K then ... end`), K = 1, (N + 1) / 2 or N.
 *
 * Usage: bench_singular [--model NAME] [--n N] [--repeat R] [--budget S]
 *   default: brake at N = 100 (with the issue's `extra : equation t = 1`
 *   too), building_compressible at 50, rldc_chain at 30 (its dependency
 *   graph takes over a minute at N = 100, sound or not), each time the best of R = 3 runs; a run over
 *   S seconds (default 60) is cancelled and printed as such.
 * Output: model N edit seconds ratio_to_sound status
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_run.h"

typedef struct family {
    const char *name, *index, *var, *eq;
    long n;
    const char *extra; /* the issue's own edit, appended (NULL: none) */
} family;

static const family families[] = {
    {"brake", "i", "x", "fel", 100, "extra : equation t = 1;"},
    {"building_compressible", "i", "Tr", "cmf", 50, NULL},
    {"rldc_chain", "k", "x", "R", 30, NULL},
    {"building_incompressible", "i", "Tr", "cmf", 10, NULL},
};



/* The family's text with edit k (0: none; 1-3 added at start, middle,
 * end; 4-6 removed there; 7 the issue's, f->extra), malloc'd, or NULL. */
static char *edited(const family *f, const char *text, int k)
{
    static const char *const where[] = {"1", "(N + 1) / 2", "N"};
    if (k == 0)
        return strdup(text);
    if (k == 7)
        return bench_appended(text, f->extra);
    if (k >= 4)
        return bench_chain_removed(text, f->eq, f->index, where[k - 4]);
    char line[128];
    snprintf(line, sizeof line, "xtra : equation %s[%s] = 0;", f->var, where[k - 1]);
    return bench_appended(text, line);
}

static void bench_family(const family *f, long n, int repeat, double budget)
{
    static const char *const edits[] = {"sound",       "added_start", "added_middle",
                                        "added_end",   "removed_start", "removed_middle",
                                        "removed_end", "issue_36_extra"};
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/models/%s.mel", MDAE_SOURCE_DIR, f->name);
    char *text = bench_slurp(path, NULL);
    if (text == NULL) {
        printf("%s: cannot read %s\n", f->name, path);
        return;
    }
    double sound = -1;
    for (int k = 0; k < (f->extra != NULL ? 8 : 7); k++) {
        char *t = edited(f, text, k);
        mel_define def = {"N", n};
        mel_options opt = {0};
        opt.defines = &def;
        opt.n_defines = 1;
        mel_model *m = NULL;
        if (t == NULL || mel_model_parse(t, strlen(t), &opt, &m, NULL) != MDAE_OK) {
            printf("%s\t%ld\t%s\tdoes not parse\n", f->name, n, edits[k]);
            free(t);
            continue;
        }
        double best = -1;
        int rc = MDAE_OK;
        bool singular = false;
        for (int r = 0; r < repeat && rc == MDAE_OK; r++) {
            double s = bench_analyse(m, 0, budget, NULL, &singular, &rc);
            if (s >= 0 && (best < 0 || s < best))
                best = s;
        }
        if (k == 0)
            sound = best;
        if (best < 0)
            printf("%s\t%ld\t%s\t-\t-\t%s\n", f->name, n, edits[k], mdae_err_name(rc));
        else
            printf("%s\t%ld\t%s\t%.4f\t%.2f\t%s\n", f->name, n, edits[k], best,
                   sound > 0 ? best / sound : 0, singular ? "singular" : "nonsingular");
        fflush(stdout);
        mel_model_free(m);
        free(t);
    }
    free(text);
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    bench_size_opts o = {.n = 0, .repeat = 3, .budget = 60};
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--model") && a + 1 < argc)
            only = argv[++a];
        else if (bench_size_opt(argc, argv, &a, &o))
            continue;
        else {
            fprintf(stderr, "usage: bench_singular [--model NAME] [--n N] [--repeat R] "
                            "[--budget S]\n");
            return 2;
        }
    }
    if (!bench_begin())
        return 1;
    printf("model\tN\tedit\tseconds\tratio_to_sound\tstatus\n");
    for (size_t k = 0; k < sizeof families / sizeof *families; k++) {
        if (only != NULL ? strcmp(only, families[k].name) != 0 : k == 3)
            continue; /* building_incompressible: on demand (slow when sound) */
        bench_family(&families[k], o.n > 0 ? o.n : families[k].n, o.repeat < 1 ? 1 : o.repeat,
                     o.budget);
    }
    sa_end();
    return 0;
}
