/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_inc_follow.c -- the editor's first stage, outside the
 * seeded rounds, follows the edit (issue 40 item 5, h-enc13): a session
 * told the previous model (inc_session_since, as the worker does) and
 * asked for the offsets only (inc_analyze_offsets), whose private models
 * share what the edit left alone with the version before. The fast paths
 * that read those shared pointers must give the cold analysis's result
 * (sa_result_same), whichever way they go:
 *  - inc_session.c: the private model's shared equations and variables
 *    copied in runs, its edges counted from the previous part's
 *    (count_edges; sa__encode's cold path asserts the count), an edit
 *    that adds an incidence included;
 *  - sa_encode.c: the shared rows compared by pointer, their orders read
 *    only when the other rows do not reach the hint's w_sigma: a model
 *    whose largest order sits in a shared row (taken from the hint all
 *    the same), and an edit that lowers the largest order (refused);
 *  - sa_hint.c: rows matched by name pointer, the mode variables known to
 *    be the hint's; sa_dual.c: the hint's offsets copied 16 at a time.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inc.h"
#include "mel.h"
#include "sa.h"

#include "model_files.h"

#include <bdd.h>

/* BuDDy's errors while nothing is armed: a reference dropped from a node
 * that has none left (BDD_BREAK) means one was taken too few (the fast
 * paths that copy, move or put the hint's functions in blocks: h-inc14),
 * found when the session and results are freed (close_editor). */
static bddinthandler sa_handler;
static int breaks;

static void count_breaks(int e)
{
    breaks += e == BDD_BREAK;
    sa_handler(e);
}

static void begin(void)
{
    cr_assert_eq(sa_begin(NULL), MDAE_OK);
    breaks = 0;
    sa_handler = bdd_error_hook(count_breaks);
}
static void end(void) { sa_end(); }

TestSuite(inc_follow, .init = begin, .fini = end, .timeout = 600);

#define RAILCARS 30

static const char PX[] = "px[i] : equation b[i] = K*x[i];";

/* base with px[i] given `term` in railcar k (a printf format of k). */
static char *px_edit(const char *base, const char *term, int k)
{
    char t[200], to[300];
    snprintf(t, sizeof t, term, k);
    snprintf(to, sizeof to, "px[i] : equation b[i] = K*x[i] + (if i == %d then %s else 0);", k, t);
    return tm_replaced(base, PX, to);
}

static mel_model *parse(const char *text, const mel_model *since)
{
    mel_define def;
    mel_options mo = tm_options_n(&def, RAILCARS);
    mo.since = since;
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, strlen(text), &mo, &m, NULL), MDAE_OK, "%s", text);
    return m;
}

/* An editor's session: its last model and result. */
typedef struct editor {
    inc_session *s;
    mel_model *m;
    inc_result *r;
} editor;

/* The next version, text, told the previous model as the worker does;
 * its whole result must be the cold one. Its method information. */
static sa_method_info edit(editor *ed, const char *text)
{
    mel_model *m = parse(text, ed->m);
    inc_session_since(ed->s, ed->m);
    /* Nodes held without their reference (the hint's tight edges and
     * offsets, moved and copied in blocks: h-inc14) are collected here, and
     * the edit that reads them then differs from the cold analysis. */
    sa_forget_caches();
    inc_result *r = NULL;
    mdae_diags d;
    mdae_diags_init(&d);
    cr_assert_eq(inc_analyze_offsets(ed->s, m, NULL, &r, &d), MDAE_OK);
    mdae_diags_close(&d);
    sa_result *whole = NULL, *cold = NULL;
    cr_assert_eq(inc_result_whole_offsets(r, m, &whole, NULL), MDAE_OK);
    cr_assert_eq(sa_analyze(m, NULL, &cold, NULL), MDAE_OK);
    const char *why = NULL;
    cr_assert(sa_result_same(whole, cold, &why), "%s", why);
    sa_method_info mi;
    sa_result_method(whole, &mi);
    sa_result_free(cold);
    inc_result_free(ed->r);
    mel_model_free(ed->m);
    ed->m = m;
    ed->r = r;
    return mi;
}

static editor open_editor(const char *text)
{
    editor ed = {0};
    cr_assert_eq(inc_session_new(&ed.s), MDAE_OK);
    edit(&ed, text);
    return ed;
}

static void close_editor(editor *ed)
{
    inc_result_free(ed->r);
    mel_model_free(ed->m);
    inc_session_free(ed->s);
    cr_assert_eq(breaks, 0, "%d references dropped from nodes that had none", breaks);
}

/* bench_lsp's edits, one railcar after another: the layout, functions and
 * offsets taken from the previous version (the shared rows by pointer),
 * the results the cold ones. */
Test(inc_follow, brake_edits_take_the_hint_and_stay_cold_equal)
{
    char *text = tm_slurp("brake.mel");
    editor ed = open_editor(text);
    for (int k = 10; k < 14; k++) {
        char *v = px_edit(text, "der(x[i])", k);
        sa_method_info mi = edit(&ed, v);
        cr_assert_gt(mi.encoded_from_hint, 0, "edit %d: encoded cold", k);
        cr_assert_gt(mi.offsets_from_hint, 0, "edit %d: offsets from 0", k);
        free(v);
    }
    close_editor(&ed);
    free(text);
}

/* An edit that adds an incidence (Pr[k] in px[k]), and one that takes it
 * away: the private model's edges counted from the previous one's
 * (count_edges) are the model's (the cold encoding, taken since the
 * layout changed, asserts them). */
Test(inc_follow, an_incidence_added_and_removed)
{
    char *text = tm_slurp("brake.mel");
    editor ed = open_editor(text);
    char *v1 = px_edit(text, "Pr[i]", 10);
    char *v2 = px_edit(text, "der(x[i])", 11);
    char *v3 = px_edit(text, "Pr[i] + Pt[i]", 12);
    sa_method_info mi = edit(&ed, v1);
    cr_assert_eq(mi.encoded_from_hint, 0, "another layout");
    edit(&ed, v2);
    edit(&ed, v3);
    edit(&ed, text);
    free(v1);
    free(v2);
    free(v3);
    close_editor(&ed);
    free(text);
}

/* The largest order (2, w_sigma 2) in a row the edits leave alone (dt):
 * the edited rows reach order 1 only, so the shared rows' orders are read
 * and the hint taken all the same. Then the edited rows' own order 2 goes
 * away while dt keeps it: taken again. */
Test(inc_follow, the_largest_order_in_a_shared_row)
{
    char *plain = tm_slurp("brake.mel");
    char *text = tm_replaced(plain, "dt : equation der(t) = 1.0;", "dt : equation der(der(t)) = 1.0;");
    editor ed = open_editor(text);
    char *v1 = px_edit(text, "der(der(x[i]))", 10);
    char *v2 = px_edit(text, "der(x[i])", 11);
    char *v3 = px_edit(text, "der(x[i])", 12);
    edit(&ed, v1);
    sa_method_info mi = edit(&ed, v2);
    cr_assert_gt(mi.encoded_from_hint, 0, "order 2 read in the shared rows");
    mi = edit(&ed, v3);
    cr_assert_gt(mi.encoded_from_hint, 0);
    free(v1);
    free(v2);
    free(v3);
    close_editor(&ed);
    free(text);
    free(plain);
}

/* The largest order lowered by the edit (2 in the edited rows only, then
 * 1): the hint's w_sigma is not ours, its functions are not taken. */
Test(inc_follow, the_largest_order_lowered)
{
    char *text = tm_slurp("brake.mel");
    editor ed = open_editor(text);
    char *v1 = px_edit(text, "der(der(x[i]))", 10);
    char *v2 = px_edit(text, "der(x[i])", 11);
    edit(&ed, v1);
    sa_method_info mi = edit(&ed, v2);
    cr_assert_eq(mi.encoded_from_hint, 0, "w_sigma 2 -> 1: encoded cold");
    free(v1);
    free(v2);
    close_editor(&ed);
    free(text);
}
