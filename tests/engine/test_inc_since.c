/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_inc_since.c -- the editor's first stage outside the
 * analysis follows the edit (issue 40 item 5, h-load12):
 *  - a session told the model of its last analysis (inc_session_since)
 *    compares what the new model shares with it by pointer, with the same
 *    answers, ids and statistics as a session not told, and notices what
 *    the skip must: an equation moved by the edit (its locations), a
 *    renamed equation or a changed guard (a full elaboration: nothing
 *    shared), a model it did not analyse last;
 *  - the light check skips its pass over the incidences only when every
 *    variable exists in every mode (bad_use.mel: a case outside its
 *    variable is still an error);
 *  - the guard fixpoints skip their passes only when no mode reads a
 *    current value (cup_and_ball_19.mel is still flagged).
 * (The random edit walks of test_inc_session.c tell every other analysis
 * its previous model too, against cold analyses.)
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "inc.h"
#include "inc_int.h"
#include "mc.h"
#include "mel.h"
#include "sa.h"

#include "model_files.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(inc_since, .init = begin, .fini = end, .timeout = 600);

static mel_model *parse(const char *text, const mel_model *since)
{
    mel_define def;
    mel_options mo = tm_options_n(&def, 30);
    mo.since = since;
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, strlen(text), &mo, &m, NULL), MDAE_OK, "%s", text);
    return m;
}

/* Two sessions in step: `told` is told the previous model, `plain` not,
 * and compares each cached part it finds with the one it resolves in full
 * (inc__part_same_full), the told one skipping what the seeding part
 * shares with the cached one (each skip checked: inc__part_same_check). */
typedef struct pair {
    inc_session *told, *plain;
    mel_model *prev; /* the last model both analysed */
} pair;

/* Every block (id and items) of a and b the same. */
static void same_blocks(const inc_result *a, const inc_result *b)
{
    cr_assert_eq(inc_result_n_blocks(a), inc_result_n_blocks(b));
    for (size_t k = 0; k < inc_result_n_blocks(a); k++) {
        cdg_block x, y;
        cr_assert_eq(inc_result_block(a, k, &x), MDAE_OK);
        cr_assert_eq(inc_result_block(b, k, &y), MDAE_OK);
        cr_assert_eq(x.id, y.id, "block %zu", k);
        cr_assert_eq(x.n_equations, y.n_equations);
        cr_assert_eq(x.n_unknowns, y.n_unknowns);
        cr_assert_eq(x.n_reads, y.n_reads);
        for (size_t q = 0; q < x.n_equations; q++)
            cr_assert(x.equations[q].index == y.equations[q].index &&
                      x.equations[q].order == y.equations[q].order &&
                      strcmp(x.equations[q].name, y.equations[q].name) == 0);
        for (size_t q = 0; q < x.n_unknowns; q++)
            cr_assert(x.unknowns[q].index == y.unknowns[q].index &&
                      x.unknowns[q].order == y.unknowns[q].order);
        for (size_t q = 0; q < x.n_reads; q++)
            cr_assert(x.reads[q].index == y.reads[q].index &&
                      x.reads[q].order == y.reads[q].order);
    }
}

/* Analyse m in both sessions (the told one told `since`) and compare;
 * m becomes p->prev. The told session's statistics of this analysis. */
static inc_stats step(pair *p, mel_model *m, const mel_model *since)
{
    inc_result *a = NULL, *b = NULL;
    mdae_diags da, db;
    mdae_diags_init(&da);
    mdae_diags_init(&db);
    inc_session_since(p->told, since);
    inc__part_same_check = true; /* each skip checked against the full comparison */
    int ra = inc_analyze(p->told, m, NULL, &a, &da);
    inc__part_same_check = false;
    inc__part_same_full = true; /* the plain session: cached parts compared in full */
    int rb = inc_analyze(p->plain, m, NULL, &b, &db);
    inc__part_same_full = false;
    cr_assert_eq(ra, rb);
    cr_assert_eq(ra, MDAE_OK, "%s", mdae_err_name(ra));
    cr_assert_eq(da.count, db.count);
    for (size_t k = 0; k < da.count; k++) {
        cr_assert_str_eq(da.items[k].message, db.items[k].message);
        cr_assert_eq(da.items[k].where.start.offset, db.items[k].where.start.offset);
    }
    inc_stats sa, sb;
    inc_result_stats(a, &sa);
    inc_result_stats(b, &sb);
    cr_assert_eq(sb.by_pointer, 0);
    cr_assert_eq(sb.moved_by_pointer, 0);
    inc_stats cmp = sa;
    cmp.by_pointer = cmp.moved_by_pointer = 0;
    cr_assert_eq(memcmp(&cmp, &sb, sizeof cmp), 0, "the statistics but by_pointer");
    same_blocks(a, b);
    for (size_t k = 0; k < inc_result_n_parts(a); k++) {
        inc_part_info x, y;
        cr_assert_eq(inc_result_part(a, k, &x), MDAE_OK);
        cr_assert_eq(inc_result_part(b, k, &y), MDAE_OK);
        cr_assert_eq(x.reused, y.reused);
        cr_assert_eq(x.equations, y.equations);
    }
    inc_result_free(a);
    inc_result_free(b);
    mdae_diags_close(&da);
    mdae_diags_close(&db);
    mel_model_free(p->prev);
    p->prev = m;
    return sa;
}

/* Whether equations a and b have the same incidences and orders. */
static bool same_orders(const mel_equation *a, const mel_equation *b)
{
    if (a->n_incs != b->n_incs)
        return false;
    for (uint32_t k = 0; k < a->n_incs; k++) {
        if (a->incs[k].var != b->incs[k].var || a->incs[k].n_cases != b->incs[k].n_cases)
            return false;
        for (uint32_t c = 0; c < a->incs[k].n_cases; c++)
            if (a->incs[k].cases[c].order != b->incs[k].cases[c].order)
                return false;
    }
    return true;
}

/* Equations of m that keep prev's name (shared) and incidences at their
 * index but sit elsewhere (the text before them changed length). */
static size_t moved_shared(const mel_model *m, const mel_model *prev)
{
    size_t n = 0;
    for (uint32_t i = 0; i < m->n_equations; i++)
        n += m->equations[i].name == prev->equations[i].name &&
             same_orders(&m->equations[i], &prev->equations[i]) &&
             memcmp(&m->equations[i].where, &prev->equations[i].where,
                    sizeof m->equations[i].where) != 0;
    return n;
}

static pair start(const char *text)
{
    pair p = {0};
    cr_assert_eq(inc_session_new(&p.told), MDAE_OK);
    cr_assert_eq(inc_session_new(&p.plain), MDAE_OK);
    step(&p, parse(text, NULL), NULL);
    return p;
}

static void stop(pair *p)
{
    inc_session_free(p->told);
    inc_session_free(p->plain);
    mel_model_free(p->prev);
}

static const char PX[] = "px[i] : equation b[i] = K*x[i];";

/* The session's next version: text parsed from p->prev and analysed told
 * it; *moved: its equations moved_shared says moved. */
static inc_stats edit_to(pair *p, const char *text, size_t *moved)
{
    mel_model *m = parse(text, p->prev);
    *moved = moved_shared(m, p->prev);
    return step(p, m, p->prev);
}

/* An edit inside one statement: the rest compared by pointer; the text
 * after it further on (a longer line, a line more): every equation after
 * it moved, and noticed. */
Test(inc_since, an_edit_inside_a_statement_is_compared_by_pointer_and_moves_are_noticed)
{
    char *text = tm_slurp("brake.mel");
    pair p = start(text);
    char *v[3] = {
        tm_replaced(text, PX, "px[i] : equation b[i] = K*x[i] + (if i == 12 then der(x[i]) else 0);"),
        tm_replaced(text, PX, "px[i] : equation b[i] = K*x[i]\n   + (if i == 13 then der(x[i]) else 0);"),
        NULL};
    v[2] = strdup(v[0]); /* back to the first edit's text */
    for (int k = 0; k < 3; k++) {
        size_t moved = 0;
        inc_stats st = edit_to(&p, v[k], &moved);
        cr_assert_gt(st.by_pointer, p.prev->n_equations / 2, "edit %d", k);
        cr_assert_gt(moved, 0, "edit %d", k);
        cr_assert_eq(st.moved_by_pointer, moved, "edit %d: %zu by pointer, %zu moved, %zu expected",
                     k, st.by_pointer, st.moved_by_pointer, moved);
        free(v[k]);
    }
    stop(&p);
    free(text);
}

/* The brake's since request (bench_server row 5): the edit toggles
 * between two texts, so each version's part is the cached part of the
 * version before the last, and the part seeding it (the last version's)
 * shares with that cached part every equation the edit left alone. Those
 * are not compared again (inc__part_same_shared counts them), with the
 * answers, ids and statistics of the full comparison (step); the edited
 * statement's equations and a third text are still compared. */
Test(inc_since, a_cached_part_shared_with_the_seed_is_not_compared_again)
{
    char *text = tm_slurp("brake.mel");
    pair p = start(text);
    char *e[3] = {
        tm_replaced(text, PX, "px[i] : equation b[i] = K*x[i] + (if i == 12 then der(x[i]) else 0);"),
        tm_replaced(text, PX, "px[i] : equation b[i] = K*x[i] + (if i == 13 then der(x[i]) else 0);"),
        tm_replaced(text, PX, "px[i] : equation b[i] = K*x[i] + (if i == 14 then der(x[i]) else 0);")};
    const int walk[] = {0, 1, 0, 1, 2, 1, 2, 0};
    size_t moved = 0, n = p.prev->n_equations;
    for (size_t k = 0; k < sizeof walk / sizeof *walk; k++) {
        size_t before = inc__part_same_shared;
        inc_stats st = edit_to(&p, e[walk[k]], &moved);
        size_t skipped = inc__part_same_shared - before;
        /* a text seen before and not last: its part cached, seeded by the last */
        bool again = k >= 2 && walk[k - 2] == walk[k];
        if (again) {
            cr_assert_gt(st.reused, 0, "step %zu", k);
            cr_assert_gt(skipped, n / 2, "step %zu: %zu of %zu skipped", k, skipped, n);
        } else if (k < 2) {
            cr_assert_eq(skipped, 0, "step %zu: no cached part to skip into", k);
        }
    }
    for (int k = 0; k < 3; k++)
        free(e[k]);
    stop(&p);
    free(text);
}

/* A renamed equation is elaborated in full: nothing is shared, nothing
 * compared by pointer. A negated guard is replayed by the front-end (the
 * guards made again in an overlay of the previous table, mel_elab.c): the
 * equations it does not govern are shared, the ones it does are not, and
 * the answers are the same either way (step compares the two sessions). */
Test(inc_since, a_label_edit_shares_nothing_a_guard_edit_shares_what_it_does_not_govern)
{
    char *text = tm_slurp("brake.mel");
    pair p = start(text);
    char *v1 = tm_replaced(text, PX, "pz[i] : equation b[i] = K*x[i];");
    char *v2 = tm_replaced(v1, "if open[i] then", "if !open[i] then");
    size_t moved = 0;
    cr_assert_eq(edit_to(&p, v1, &moved).by_pointer, 0);
    size_t n = p.prev->n_equations + p.prev->n_variables; /* what by_pointer counts */
    size_t shared = edit_to(&p, v2, &moved).by_pointer;
    cr_assert_gt(shared, n / 2, "%zu of %zu shared", shared, n);
    cr_assert_lt(shared, n, "the guarded equations are not shared: %zu of %zu", shared, n);
    stop(&p);
    free(v2);
    free(v1);
    free(text);
}

/* A model the session did not analyse last is not taken as its previous
 * one (by pointer), nor is one of other counts. */
Test(inc_since, a_since_that_is_not_the_last_analysed_model_is_ignored)
{
    char *text = tm_slurp("brake.mel");
    pair p = start(text);
    mel_model *other = parse(text, NULL); /* not analysed by the session */
    char *v1 = tm_replaced(text, PX, "px[i] : equation b[i] = K*x[i] + (if i == 3 then der(x[i]) else 0);");
    mel_model *m = parse(v1, other);
    inc_stats st = step(&p, m, other);
    cr_assert_eq(st.by_pointer, 0);
    mel_model_free(other);
    stop(&p);
    free(v1);
    free(text);
}

/* ---- The kept split's pass following the edit (h-inc17) ------------------
 * A replay that moved nothing lists the equations it made anew
 * (mel_model_edited_rows); the session then compares only those with the
 * kept split (inc_session.c, kept_by_edited_rows). Two told sessions, each
 * on its own chain of versions of the same texts: `fast` keeps the lists,
 * `slow` has them forgotten (its models' lists dropped: the loop over every
 * equation). Same answers, blocks, parts and statistics, by_pointer and
 * moved_by_pointer included; the lists hold their promise (every equation
 * not listed is since's field for field). */

/* Every equation of m not in rows[0..n) (increasing) is since's at its
 * index: the same name, guard, incidences and locations; the listed ones
 * are px's instances. */
static void rows_hold(const mel_model *m, const mel_model *since, const uint32_t *rows, size_t n)
{
    size_t j = 0;
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const mel_equation *e = &m->equations[i], *o = &since->equations[i];
        if (j < n && rows[j] == i) {
            cr_assert(strncmp(e->name, "px[", 3) == 0, "listed %s", e->name);
            j++;
            continue;
        }
        cr_assert(e->name == o->name && e->guard == o->guard && e->n_incs == o->n_incs &&
                      e->incs == o->incs && memcmp(&e->where, &o->where, sizeof e->where) == 0,
                  "equation %u (%s) not listed, not since's", i, e->name);
    }
    cr_assert_eq(j, n, "the list increasing, in the model");
}

/* Analyse m in s told since; the result (owned). */
static inc_result *told_result(inc_session *s, const mel_model *m, const mel_model *since)
{
    inc_result *r = NULL;
    inc_session_since(s, since);
    cr_assert_eq(inc_analyze(s, m, NULL, &r, NULL), MDAE_OK);
    return r;
}

Test(inc_since, the_split_kept_through_the_edited_rows_is_the_loop_over_every_equation)
{
    char *text = tm_slurp("brake.mel");
    const char *edits[] = {
        "px[i] : equation b[i] = K*x[i] + (if i == 12 then der(x[i]) else 0);", /* moves */
        "px[i] : equation b[i] = K*x[i] + (if i == 13 then der(x[i]) else 0);",
        "px[i] : equation b[i] = K*x[i] + (if i == 14 then der(x[i]) else 0);",
        "px[i] : equation b[i] = K*x[i] + (if i == 14 then der(x[i]) else 0);", /* the same */
        "px[i] : equation b[i] = K*x[i] + (if i == 15 then x[i - 1]  else 0);", /* variables */
        "px[i] : equation b[i] = K*x[i] + (if i == 16 then der(x[i]) else 0);",
        "px[i] : equation b[i] = K*x[i] + (if i == 17 then der(x[i]) else 0);",
        "px[i] : equation b[i] = K*x[i] + (if i == 18 then der(x[i]) else 0);",
        "px[i] : equation b[i] = K*x[i] + (if i == 19 then der(x[i]) else 0);",
        "px[i] : equation b[i] = K*x[i] + (if i == 20 then der(x[i]) else 0);",
        "px[i] : equation b[i] = K*x[i] + (if i == 21 then der(x[i]) else 0);",
        "px[i] : equation b[i] = K*x[i] + (if i == 22 then der(x[i]) else 0);",
        "px[i] : equation b[i] = K*x[i] + (if i == 23 then der(x[i]) else 0);",
        "px[i] : equation b[i] = K*x[i] + (if i == 24 then der(x[i]) else 0);",
    }; /* the front-end's chain rebased past MEL__MAX_HELD: not listed then */
    inc_session *fast = NULL, *slow = NULL;
    cr_assert_eq(inc_session_new(&fast), MDAE_OK);
    cr_assert_eq(inc_session_new(&slow), MDAE_OK);
    mel_model *mf = parse(text, NULL), *ms = parse(text, NULL);
    inc_result_free(told_result(fast, mf, NULL));
    inc_result_free(told_result(slow, ms, NULL));
    size_t listed = 0, kept_listed = 0;
    for (size_t k = 0; k < sizeof edits / sizeof *edits; k++) {
        char *v = tm_replaced(text, PX, edits[k]);
        mel_model *nf = parse(v, mf), *ns = parse(v, ms);
        const uint32_t *rows;
        size_t n;
        bool known = mel_model_edited_rows(nf, mf, &rows, &n);
        cr_assert(k > 0 || !known, "edit %zu: listed only when nothing moved", k);
        if (known) {
            rows_hold(nf, mf, rows, n);
            listed++;
        }
        mel_model_forget_edited_rows(ns);
        cr_assert(!mel_model_edited_rows(ns, ms, &rows, &n));
        inc_result *a = told_result(fast, nf, mf), *b = told_result(slow, ns, ms);
        inc_stats sa, sb;
        inc_result_stats(a, &sa);
        inc_result_stats(b, &sb);
        if (sa.split_kept) /* not after x[i - 1]: other components */
            cr_assert_gt(sa.by_pointer, nf->n_equations / 2, "edit %zu", k);
        kept_listed += known && sa.split_kept;
        cr_assert_eq(memcmp(&sa, &sb, sizeof sa), 0,
                     "edit %zu: the statistics (by pointer %zu / %zu, moved %zu / %zu)", k,
                     sa.by_pointer, sb.by_pointer, sa.moved_by_pointer, sb.moved_by_pointer);
        same_blocks(a, b);
        cr_assert_eq(inc_result_n_parts(a), inc_result_n_parts(b));
        for (size_t j = 0; j < inc_result_n_parts(a); j++) {
            inc_part_info x, y;
            cr_assert_eq(inc_result_part(a, j, &x), MDAE_OK);
            cr_assert_eq(inc_result_part(b, j, &y), MDAE_OK);
            cr_assert_eq(x.reused, y.reused);
            cr_assert_eq(x.equations, y.equations);
        }
        inc_result_free(a);
        inc_result_free(b);
        mel_model_free(mf);
        mel_model_free(ms);
        mf = nf;
        ms = ns;
        free(v);
    }
    cr_assert_geq(listed, 8, "%zu listed", listed);
    cr_assert_geq(kept_listed, 4, "the fast path taken: %zu", kept_listed);
    inc_session_free(fast);
    inc_session_free(slow);
    mel_model_free(mf);
    mel_model_free(ms);
    free(text);
}

/* ---- The light check and the guard fixpoints ------------------------------ */

static int check_file(const char *name, size_t *n_diags)
{
    char *text = tm_slurp(name);
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, strlen(text), NULL, &m, NULL), MDAE_OK, "%s", name);
    mdae_diags d;
    mdae_diags_init(&d);
    int rc = sa_check(m, &d);
    *n_diags = d.count;
    mdae_diags_close(&d);
    mel_model_free(m);
    free(text);
    return rc;
}

Test(inc_since, the_light_check_still_finds_a_case_outside_its_variable)
{
    size_t n = 0;
    cr_assert_eq(check_file("bad_use.mel", &n), MDAE_E_MODEL);
    cr_assert_gt(n, 0);
    cr_assert_eq(check_file("brake.mel", &n), MDAE_OK); /* every variable unconditional */
    cr_assert_eq(n, 0);
}

static size_t fixpoint_warnings(const char *name)
{
    char *text = tm_slurp(name);
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, strlen(text), NULL, &m, NULL), MDAE_OK, "%s", name);
    mdae_diags d;
    mdae_diags_init(&d);
    cr_assert_eq(mc_guard_fixpoint_warnings(m, &d), MDAE_OK);
    size_t n = 0;
    for (size_t k = 0; k < d.count; k++)
        n += strstr(d.items[k].message, "guard fixpoint") != NULL;
    mdae_diags_close(&d);
    mel_model_free(m);
    free(text);
    return n;
}

Test(inc_since, the_guard_fixpoints_still_flag_a_mode_that_reads_a_current_value)
{
    cr_assert_eq(fixpoint_warnings("cup_and_ball_19.mel"), 1);
    cr_assert_eq(fixpoint_warnings("cup_and_ball.mel"), 0);
    cr_assert_eq(fixpoint_warnings("brake.mel"), 0); /* open[i] reads last(fv[i]) */
}
