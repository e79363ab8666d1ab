/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_sa_seeded_chain.c -- an editor's chain of edits, each
 * seeded (sa_options.hint) by the previous version's result, whose graph
 * was never built (no tight_memo: the editor's second stage did not run).
 *
 * The brake's edit moves the derivative of px[i] to the next railcar. The
 * seeded rounds then find every column's tight edges from the hint's
 * offsets (engine/sa_tight.c, tight_edges_vec), and the valve rows'
 * offsets are mode functions (k where open[i], 0 elsewhere) that are
 * constants wherever their rows are active: each railcar's columns took
 * the vector arithmetic instead of integers (22,022 sa__vmax at
 * N = 2,000), which sa_method_info.seeded_vector_columns counts. The
 * results stay the cold ones (sa_result_same).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "mdae.h"
#include "mel.h"
#include "sa.h"

#include "model_files.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(sa_seeded_chain, .init = begin, .fini = end);

#define RAILCARS 40

/* The brake of n railcars with the derivative of x[k] added to px[k], as
 * bench_edit's (a). */
static mel_model *brake_edit_n(const char *text, int k, int n_cars)
{
    const char *from = "px[i] : equation b[i] = K*x[i];";
    char to[256];
    snprintf(to, sizeof to, "px[i] : equation b[i] = K*x[i] + (if i == %d then der(x[i]) else 0);",
             k);
    const char *at = strstr(text, from);
    cr_assert_not_null(at);
    size_t head = (size_t)(at - text), n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *edited = malloc(n);
    cr_assert_not_null(edited);
    memcpy(edited, text, head);
    snprintf(edited + head, n - head, "%s%s", to, at + strlen(from));
    mel_define d = {"N", n_cars};
    mel_options mo = {0};
    mo.defines = &d;
    mo.n_defines = 1;
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(edited, strlen(edited), &mo, &m, NULL), MDAE_OK);
    free(edited);
    return m;
}

static mel_model *brake_edit(const char *text, int k)
{
    return brake_edit_n(text, k, RAILCARS);
}

static sa_result *analyse(const mel_model *m, const sa_result *hint)
{
    sa_options o = {0};
    o.hint = hint;
    sa_result *r = NULL;
    cr_assert_eq(sa_analyze(m, &o, &r, NULL), MDAE_OK);
    return r;
}

/* Edits k = 10, 11, ... (steps of them), each seeded by the one before,
 * the first by a cold result whose graph is built when graph0: each
 * seeded edit must equal its cold analysis and take the vector arithmetic
 * in at most `most` columns; one seeded by a graphed or a seeded result
 * must find at most `made` columns' tight edges afresh (the others read
 * from the hint: its graph's tight_memo, or its own round 0's). */
static void chain(bool graph0, int steps, uint32_t most, uint32_t made)
{
    char *text = tm_slurp("brake.mel");
    mel_model *pm = brake_edit(text, 10);
    sa_result *prev = analyse(pm, NULL);
    cdg_graph *g = NULL;
    if (graph0)
        cr_assert_eq(cdg_build(prev, NULL, &g, NULL), MDAE_OK);
    for (int k = 11; k < 11 + steps; k++) {
        mel_model *m = brake_edit(text, k);
        sa_result *r = analyse(m, prev), *cold = analyse(m, NULL);
        const char *why = NULL;
        cr_assert(sa_result_same(r, cold, &why), "edit %d: %s", k, why);
        sa_method_info mi;
        sa_result_method(r, &mi);
        cr_assert(mi.seeded_tight, "edit %d not seeded", k);
        cr_assert_leq(mi.seeded_vector_columns, most, "edit %d: %u columns by vectors", k,
                      mi.seeded_vector_columns);
        if (graph0 || k > 11)
            cr_assert_leq(mi.seeded_columns_made, made, "edit %d: %u columns made", k,
                          mi.seeded_columns_made);
        else /* seeded by a cold result without its graph: nothing to read */
            cr_assert_gt(mi.seeded_columns_made, 400, "edit %d: %u columns made", k,
                         mi.seeded_columns_made);
        sa_result_free(cold);
        cdg_graph_free(g);
        g = NULL;
        sa_result_free(prev);
        mel_model_free(pm);
        prev = r;
        pm = m;
    }
    sa_result_free(prev);
    mel_model_free(pm);
    free(text);
}

/* Every column by integers: before the valve rows' offsets counted as
 * constants where active, 84 columns took the vectors in each edit. And
 * an edit seeded by a seeded result reads the hint's own round 0 tight
 * edges where its offsets stayed: 9 of the 443 columns made (the edit's
 * and its neighbours'), where every column was made before (sa__own_tight,
 * engine/sa_tight.c). */
Test(sa_seeded_chain, seeded_by_seeded)
{
    chain(false, 4, 0, 16);
}

/* Seeded by a result whose graph was built (its tight_memo): the few
 * columns the edit changed, by integers too (before: 2 by vectors). */
Test(sa_seeded_chain, seeded_by_graphed)
{
    chain(true, 1, 0, 2);
}

/* A seeded result seeding the brake with one railcar more (its equations
 * matched by name, not by index: sa_hint.c's mapped reading), and the
 * same model again: the hint's own tight edges read where they hold, the
 * results the cold ones. */
Test(sa_seeded_chain, seeded_by_seeded_grown)
{
    char *text = tm_slurp("brake.mel");
    mel_model *m0 = brake_edit(text, 10), *m1 = brake_edit(text, 11);
    mel_model *m2 = brake_edit_n(text, 12, RAILCARS + 1), *m3 = brake_edit_n(text, 13, RAILCARS + 1);
    sa_result *r0 = analyse(m0, NULL), *r1 = analyse(m1, r0);
    sa_result *r2 = analyse(m2, r1), *r3 = analyse(m3, r2);
    const mel_model *ms[] = {m2, m3};
    sa_result *rs[] = {r2, r3};
    for (int k = 0; k < 2; k++) {
        sa_result *cold = analyse(ms[k], NULL);
        const char *why = NULL;
        cr_assert(sa_result_same(rs[k], cold, &why), "model %d: %s", k, why);
        sa_result_free(cold);
    }
    sa_result *all[] = {r0, r1, r2, r3};
    mel_model *models[] = {m0, m1, m2, m3};
    for (int k = 0; k < 4; k++) {
        sa_result_free(all[k]);
        mel_model_free(models[k]);
    }
    free(text);
}
