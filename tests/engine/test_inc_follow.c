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

/* text with n railcars (RAILCARS when 0). */
static mel_model *parse_n(const char *text, const mel_model *since, int n)
{
    mel_define def;
    mel_options mo = tm_options_n(&def, n > 0 ? n : RAILCARS);
    mo.since = since;
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, strlen(text), &mo, &m, NULL), MDAE_OK, "%s", text);
    return m;
}

static mel_model *parse(const char *text, const mel_model *since)
{
    return parse_n(text, since, 0);
}

/* An editor's session: its last model and result; railcars: the texts'
 * (RAILCARS when 0). */
typedef struct editor {
    inc_session *s;
    mel_model *m;
    inc_result *r;
    int railcars;
} editor;

/* Every part of r made anew: its private model holds m's equations and
 * variables with their places (names, places, variables, cases, orders,
 * `next`), whatever it shares with the part before (copy_equations'
 * shared runs and moved rows; h-inc15). */
static void private_models_are_m(const inc_result *r, const mel_model *m)
{
    for (size_t k = 0; k < inc_result_n_parts(r); k++) {
        inc_part_info info;
        const mel_model *pm;
        const uint32_t *eq_map, *var_map;
        cr_assert_eq(inc_result_part(r, k, &info), MDAE_OK);
        cr_assert_eq(inc_result_part_model(r, k, &pm, &eq_map, &var_map), MDAE_OK);
        if (info.reused) /* made for an earlier version: its places */
            continue;
        for (uint32_t j = 0; j < pm->n_variables; j++) {
            const mel_variable *v = &m->variables[var_map[j]], *o = &pm->variables[j];
            cr_assert_str_eq(o->name, v->name);
            cr_assert(memcmp(&o->where, &v->where, sizeof o->where) == 0, "%s", v->name);
        }
        for (uint32_t q = 0; q < pm->n_equations; q++) {
            const mel_equation *e = &m->equations[eq_map[q]], *o = &pm->equations[q];
            cr_assert_str_eq(o->name, e->name);
            cr_assert(memcmp(&o->where, &e->where, sizeof o->where) == 0, "%s", e->name);
            cr_assert_eq(o->n_incs, e->n_incs, "%s", e->name);
            for (uint32_t i = 0; i < e->n_incs; i++) {
                const mel_incidence *a = &e->incs[i], *b = &o->incs[i];
                cr_assert_eq(var_map[b->var], a->var, "%s", e->name);
                cr_assert_eq(b->n_cases, a->n_cases, "%s", e->name);
                for (uint32_t c = 0; c < a->n_cases; c++) {
                    const mel_order_case *x = &a->cases[c], *y = &b->cases[c];
                    cr_assert(x->order == y->order && x->next == y->next &&
                                  memcmp(&x->where, &y->where, sizeof x->where) == 0,
                              "%s: case %u of incidence %u", e->name, c, i);
                }
            }
        }
    }
}

/* The next version, text, told the previous model as the worker does;
 * its whole result must be the cold one, its private models m's. Its
 * method information. */
static sa_method_info edit(editor *ed, const char *text)
{
    mel_model *m = parse_n(text, ed->m, ed->railcars);
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
    private_models_are_m(r, m);
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

static editor open_editor_n(const char *text, int railcars)
{
    editor ed = {.railcars = railcars};
    cr_assert_eq(inc_session_new(&ed.s), MDAE_OK);
    edit(&ed, text);
    return ed;
}

static editor open_editor(const char *text)
{
    return open_editor_n(text, 0);
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

/* An editor's session over a chain of 30 edits without a question about
 * the graphs (the first stage only, the cache trimmed after each answer
 * as the worker does: inc_session_trim): every result the cold one
 * (edit), and what the session keeps alive bounded by a small constant
 * number of versions: per part of the result at most LIVE_PARTS parts,
 * the cached versions (no graph is made here, so no seed with a graph
 * lives beyond the cache; before h-mem19 every cached version kept its
 * whole chain of seeds: 4 to 7 parts on the brake), and the arenas' bytes
 * at most LIVE_VERSIONS times one version's (the open's: its private
 * model and tables; 2.6 on the brake, 4.1 with the chains). The private
 * models' memories an edited part holds (shared rows of up to INC_HELD
 * earlier versions) count as content only: with each version's n-sized
 * tables in them (before h-mem18) the held memories kept 8 more
 * versions' tables alive. */
#define LIVE_PARTS INC_KEEP_GENERATIONS
#define CHAIN_RAILCARS 300
#define LIVE_VERSIONS 3

Test(inc_follow, a_chain_of_edits_keeps_a_bounded_number_of_versions)
{
    char *text = tm_slurp("brake.mel");
    inc_live_info before, one, now;
    inc_live(&before);
    cr_assert_eq(before.parts, 0);
    editor ed = open_editor_n(text, CHAIN_RAILCARS);
    inc_session_trim(ed.s);
    inc_live(&one);
    size_t version_bytes = one.arena_bytes - before.arena_bytes;
    size_t n_parts = inc_result_n_parts(ed.r);
    cr_assert_gt(version_bytes, 0);
    for (int j = 0; j < 30; j++) {
        char *v = px_edit(text, "der(x[i])", 10 + j);
        edit(&ed, v);
        inc_session_trim(ed.s);
        free(v);
        inc_live(&now);
        cr_assert_leq(now.parts, LIVE_PARTS * n_parts, "edit %d: %zu parts", j, now.parts);
        cr_assert_leq(now.arena_bytes - before.arena_bytes, LIVE_VERSIONS * version_bytes,
                      "edit %d: %zu bytes, one version %zu", j, now.arena_bytes, version_bytes);
        if (getenv("MDAE_TEST_VERBOSE") != NULL)
            fprintf(stderr, "edit %d: parts %zu (result %zu) mems %zu arena %zu (one %zu)\n", j,
                    now.parts, inc_result_n_parts(ed.r), now.mems,
                    now.arena_bytes - before.arena_bytes, version_bytes);
    }
    close_editor(&ed);
    inc_live(&now);
    cr_assert_eq(now.parts, 0, "%zu parts left", now.parts);
    cr_assert_eq(now.mems, 0, "%zu memories left", now.mems);
    cr_assert_eq(now.arena_bytes, before.arena_bytes);
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

/* ---- The rows listed by the caller (sa_options.hint_rows, hint_vars) ------
 * inc_session.c tells sa_analyze which rows and variables of a private
 * model are not copies of the seed's (h-inc15); sa_encode.c then compares
 * only those (compare_listed_rows, layout_hint). Here a private model is
 * made by hand as the session makes it: the hint model's equations and
 * variables (copies of the structs: the same pointers) but for the edited
 * rows, the edited model's. Analysed with the list, without it, and cold:
 * the same result, the same rows taken from the hint. */

/* The index of the equation named name in m. */
static uint32_t row_named(const mel_model *m, const char *name)
{
    for (uint32_t i = 0; i < m->n_equations; i++)
        if (strcmp(m->equations[i].name, name) == 0)
            return i;
    cr_assert_fail("no equation %s", name);
    return 0;
}

/* Row i of m moved in the text (as the session's private model takes an
 * equation whose text moved: its incidences and cases its own, with their
 * own locations, the guards the same): into the arrays incs and cs. */
static void move_row(mel_equation *e, mel_incidence *incs, mel_order_case *cs)
{
    for (uint32_t k = 0; k < e->n_incs; k++) {
        incs[k] = e->incs[k];
        incs[k].cases = cs;
        for (uint32_t c = 0; c < e->incs[k].n_cases; c++, cs++) {
            *cs = e->incs[k].cases[c];
            cs->where.start.offset += 1;
            cs->where.end.offset += 1;
        }
    }
    e->incs = incs;
    e->where.start.offset += 1;
}

#define MOVED_MAX 4

/* A private model made by hand and the arrays it owns. */
typedef struct private {
    mel_model m;
    mel_equation *eqs;
    mel_incidence *incs;
    mel_order_case *cs;
} private;

/* A private model over a's equations and variables, with rows[0 .. n)
 * b's (a and b: the same declarations) and moved[0 .. n_moved) a's moved
 * (move_row); free_private. */
static private private_model(const mel_model *a, const mel_model *b, const uint32_t *rows,
                             uint32_t n, const uint32_t *moved, uint32_t n_moved)
{
    cr_assert_eq(a->n_equations, b->n_equations);
    cr_assert_eq(a->n_variables, b->n_variables);
    cr_assert_leq(n_moved, MOVED_MAX);
    private p = {.m = *a};
    p.m.priv = NULL;
    p.eqs = malloc((a->n_equations + 1) * sizeof *p.eqs);
    p.incs = calloc(MOVED_MAX * 64, sizeof *p.incs);
    p.cs = calloc(MOVED_MAX * 256, sizeof *p.cs);
    cr_assert(p.eqs != NULL && p.incs != NULL && p.cs != NULL);
    memcpy(p.eqs, a->equations, a->n_equations * sizeof *p.eqs);
    size_t edges = a->n_edges;
    for (uint32_t k = 0; k < n; k++) {
        edges -= p.eqs[rows[k]].n_incs;
        p.eqs[rows[k]] = b->equations[rows[k]];
        edges += p.eqs[rows[k]].n_incs;
    }
    for (uint32_t k = 0; k < n_moved; k++) {
        cr_assert_leq(p.eqs[moved[k]].n_incs, 64);
        move_row(&p.eqs[moved[k]], p.incs + 64 * k, p.cs + 256 * k);
    }
    p.m.equations = p.eqs;
    p.m.n_edges = edges;
    return p;
}

static void free_private(private *p)
{
    free(p->cs);
    free(p->incs);
    free(p->eqs);
}

/* m analysed three ways (hint h and the list, h alone, cold): the same
 * result; the methods of the first two the same. The listed way's. */
static sa_method_info listed_is_unlisted(const mel_model *m, const sa_result *h,
                                         const uint32_t *rows, uint32_t n_rows,
                                         const uint32_t *vars, uint32_t n_vars)
{
    sa_options listed = {.hint = h, .hint_rows = rows, .n_hint_rows = n_rows,
                         .hint_vars = vars, .n_hint_vars = n_vars};
    sa_options unlisted = {.hint = h};
    sa_result *a = NULL, *b = NULL, *cold = NULL;
    cr_assert_eq(sa_analyze(m, &listed, &a, NULL), MDAE_OK);
    cr_assert_eq(sa_analyze(m, &unlisted, &b, NULL), MDAE_OK);
    cr_assert_eq(sa_analyze(m, NULL, &cold, NULL), MDAE_OK);
    const char *why = NULL;
    cr_assert(sa_result_same(a, cold, &why), "listed: %s", why);
    cr_assert(sa_result_same(b, cold, &why), "unlisted: %s", why);
    sa_method_info ma, mb;
    sa_result_method(a, &ma);
    sa_result_method(b, &mb);
    cr_assert_eq(ma.encoded_from_hint, mb.encoded_from_hint);
    cr_assert_eq(ma.offsets_from_hint, mb.offsets_from_hint);
    cr_assert_eq(sa_result_seeded(a), sa_result_seeded(b), "rows seeded from the hint");
    sa_result_free(a);
    sa_result_free(b);
    sa_result_free(cold);
    return ma;
}

/* The model of text a with the rows of text b edited in railcar 10 (px),
 * as a private model over a's rows, the hint a's cold result, and the rows
 * named moved[0 .. n_moved) moved in the text (not listed): listed or not
 * (every row and variable listed: list_all), the same. */
static sa_method_info listed_row(const char *ta, const char *tb, const char *edited,
                                 bool list_all, const char *const *moved, uint32_t n_moved)
{
    mel_model *a = parse(ta, NULL), *b = parse(tb, NULL);
    sa_result *h = NULL;
    cr_assert_eq(sa_analyze(a, NULL, &h, NULL), MDAE_OK);
    uint32_t row = row_named(a, edited), mv[MOVED_MAX];
    for (uint32_t k = 0; k < n_moved; k++)
        mv[k] = row_named(a, moved[k]);
    private p = private_model(a, b, &row, 1, mv, n_moved);
    uint32_t n = a->n_equations > a->n_variables ? a->n_equations : a->n_variables;
    uint32_t *all = malloc((n + 1) * sizeof *all);
    cr_assert_not_null(all);
    for (uint32_t i = 0; i < n; i++)
        all[i] = i;
    sa_method_info mi = list_all
                            ? listed_is_unlisted(&p.m, h, all, a->n_equations, all, a->n_variables)
                            : listed_is_unlisted(&p.m, h, &row, 1, all, 0);
    free(all);
    free_private(&p);
    sa_result_free(h);
    mel_model_free(a);
    mel_model_free(b);
    return mi;
}

static sa_method_info listed_edit(const char *ta, const char *tb, bool list_all,
                                  const char *const *moved, uint32_t n_moved)
{
    return listed_row(ta, tb, "px[10]", list_all, moved, n_moved);
}

/* base and base with term in px[10], px[11] and px[12] moved. */
static sa_method_info listed_px(const char *base, const char *term, bool list_all)
{
    static const char *const moved[] = {"px[11]", "px[12]"};
    char *edited = px_edit(base, term, 10);
    sa_method_info mi = listed_edit(base, edited, list_all, moved, 2);
    free(edited);
    return mi;
}

/* An order raised in one listed row: the hint taken with the list (every
 * other row the hint's) as without it; every row and variable listed. */
Test(inc_follow, listed_rows_an_order_edited)
{
    char *text = tm_slurp("brake.mel");
    sa_method_info mi = listed_px(text, "der(x[i])", false);
    cr_assert_gt(mi.encoded_from_hint, 0, "the hint taken");
    mi = listed_px(text, "der(x[i])", true);
    cr_assert_gt(mi.encoded_from_hint, 0, "the hint taken");
    free(text);
}

/* An incidence added in the listed row (another layout: refused), and an
 * order 2 in it (w_sigma 2, the hint's 1: refused), listed or not. */
Test(inc_follow, listed_rows_another_layout_refused)
{
    char *text = tm_slurp("brake.mel");
    sa_method_info mi = listed_px(text, "Pr[i]", false);
    cr_assert_eq(mi.encoded_from_hint, 0, "another layout");
    mi = listed_px(text, "der(der(x[i]))", false);
    cr_assert_eq(mi.encoded_from_hint, 0, "another w_sigma");
    free(text);
}

/* The hint with an order 2 in a shared row (dt) and in the edited row,
 * the edited row lowered: the shared rows' orders are read (the full
 * pass after the listed one), the hint taken; again with dt moved (not
 * listed: its orders are not read by the listed pass either). */
Test(inc_follow, listed_rows_the_largest_order_in_a_shared_row)
{
    char *plain = tm_slurp("brake.mel");
    char *text = tm_replaced(plain, "dt : equation der(t) = 1.0;", "dt : equation der(der(t)) = 1.0;");
    char *v1 = px_edit(text, "der(der(x[i]))", 10);
    char *v2 = px_edit(text, "der(x[i])", 10);
    sa_method_info mi = listed_edit(v1, v2, false, NULL, 0);
    cr_assert_gt(mi.encoded_from_hint, 0, "order 2 read in the shared rows");
    static const char *const dt[] = {"dt"};
    mi = listed_edit(v1, v2, false, dt, 1);
    cr_assert_gt(mi.encoded_from_hint, 0, "order 2 read in the moved row");
    free(v1);
    free(v2);
    free(text);
    free(plain);
}

/* A listed row renamed (dt -> dt2, its own name pointer): matched by the
 * name map as without the list (not found), not by its index; the rows
 * around it before and after it as the hint's. */
Test(inc_follow, listed_rows_a_row_renamed)
{
    char *text = tm_slurp("brake.mel");
    char *renamed = tm_replaced(text, "dt : equation", "dt2 : equation");
    static const char *const moved[] = {"px[11]"};
    listed_row(text, renamed, "dt", false, moved, 1);
    free(renamed);
    free(text);
}

/* Edits that lengthen px's statement (its 30 rows' own places move, their
 * cases' not), then an edit before it (every row after it moves, cases
 * too), then back: the private models hold each version's places
 * (private_models_are_m). */
Test(inc_follow, places_moved_by_the_edit)
{
    char *text = tm_slurp("brake.mel");
    editor ed = open_editor(text);
    char *v1 = px_edit(text, "der(x[i])", 10);
    char *v2 = px_edit(text, "der(x[i]) + 0*x[i]", 11);
    char *v3 = tm_replaced(v2, "dt : equation der(t) = 1.0;", "dt : equation der(t) =  1.0;");
    edit(&ed, v1);
    edit(&ed, v2);
    edit(&ed, v3);
    edit(&ed, v2);
    edit(&ed, text);
    free(v1);
    free(v2);
    free(v3);
    close_editor(&ed);
    free(text);
}
