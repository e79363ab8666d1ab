/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_sa_blocks_repair.c -- a seeded round 0 takes its block
 * decomposition from the hint's records (engine/sa_blocks.c, "The
 * decomposition from the hint's records", h-round0): the unchanged blocks
 * as parts, checked acyclic, and only the rest grouped, matched and split.
 *
 * Checked: chains of edits of the brake, (a) a derivative added to one
 * railcar's px[i] and (b) one railcar's valve guard negated, each version
 * seeded by the previous version's result (as the editor does), and random
 * models edited once, seeded by their cold result: every seeded result is
 * its cold analysis (sa_result_same: functions and reports), and the seeded
 * rounds took most blocks from the hint (sa__kept_placed; 0 before this
 * change, when every round decomposed the whole tight graph).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdae.h"
#include "mel.h"
#include "ref.h"
#include "sa.h"
#include "sa_int.h"

#include "model_files.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(sa_blocks_repair, .init = begin, .fini = end);

#define RAILCARS 40

static mel_model *parse_n(const char *text, long long n)
{
    mel_define d = {"N", n};
    mel_options mo = {0};
    mo.defines = &d;
    mo.n_defines = n > 0;
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, strlen(text), &mo, &m, NULL), MDAE_OK, "%s", text);
    return m;
}

/* text with its first `from` replaced by `to` (malloc'ed), or NULL. */
static char *replace(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (at == NULL)
        return NULL;
    size_t head = (size_t)(at - text), n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *o = malloc(n);
    cr_assert_not_null(o);
    memcpy(o, text, head);
    snprintf(o + head, n - head, "%s%s", to, at + strlen(from));
    return o;
}

/* The brake with railcar k edited: (a) der(x[k]) added to px[k], (b)
 * open[k]'s guard negated. */
static mel_model *brake_edit(const char *text, char kind, int k)
{
    char to[256];
    char *edited;
    if (kind == 'a') {
        snprintf(to, sizeof to,
                 "px[i] : equation b[i] = K*x[i] + (if i == %d then der(x[i]) else 0);", k);
        edited = replace(text, "px[i] : equation b[i] = K*x[i];", to);
    } else {
        snprintf(to, sizeof to, "if open[i] & i <> %d | !open[i] & i == %d then", k, k);
        edited = replace(text, "if open[i] then", to);
    }
    cr_assert_not_null(edited);
    mel_model *m = parse_n(edited, RAILCARS);
    free(edited);
    return m;
}

static sa_result *analyse(const mel_model *m, const sa_result *hint)
{
    sa_options o = {0};
    o.hint = hint;
    sa_result *r = NULL;
    cr_assert_eq(sa_analyze(m, &o, &r, NULL), MDAE_OK);
    return r;
}

/* A seeded result r against its cold analysis; returns the blocks r's
 * rounds placed from the hint, *afresh those they decomposed. */
static uint32_t same_as_cold(const mel_model *m, const sa_result *r, uint32_t *afresh,
                             const char *what)
{
    sa_result *cold = analyse(m, NULL);
    const char *why = NULL;
    cr_assert(sa_result_same(r, cold, &why), "%s: %s", what, why);
    sa_result_free(cold);
    return sa__kept_placed(r, afresh);
}

/* Edits of `kind` at railcars 10, 11, ... (steps of them), each seeded by
 * the one before: each equal to its cold analysis, and most of its blocks
 * placed from the hint. */
static void chain(char kind, int steps)
{
    char *text = tm_slurp("brake.mel");
    mel_model *pm = brake_edit(text, kind, 10);
    sa_result *prev = analyse(pm, NULL);
    for (int k = 11; k < 11 + steps; k++) {
        char what[64];
        snprintf(what, sizeof what, "edit (%c) at railcar %d", kind, k);
        mel_model *m = brake_edit(text, kind, k);
        sa_result *r = analyse(m, prev);
        uint32_t afresh, placed = same_as_cold(m, r, &afresh, what);
        sa_method_info mi;
        sa_result_method(r, &mi);
        cr_assert(mi.seeded_tight, "%s: not seeded", what);
        cr_assert_gt(placed, 10 * afresh, "%s: %u blocks placed, %u afresh", what, placed, afresh);
        sa_result_free(prev);
        mel_model_free(pm);
        prev = r;
        pm = m;
    }
    sa_result_free(prev);
    mel_model_free(pm);
    free(text);
}

Test(sa_blocks_repair, brake_derivative_chain)
{
    chain('a', 4);
}

Test(sa_blocks_repair, brake_guard_chain)
{
    chain('b', 4);
}

/* Random models (tests/ref), each with its first guard negated or else
 * its first der(x) taken off, seeded by the cold result of the original:
 * equal to their cold analyses (they are small: their seeded rounds, when
 * any, mostly decompose afresh; the count is logged). */
Test(sa_blocks_repair, random_models_edited_once)
{
    ref_random_opts ro = {.nonsquare_percent = 10};
    uint32_t placed = 0, compared = 0;
    for (uint64_t seed = 0; seed < 160; seed++) {
        char *text = ref_random_model(seed, &ro);
        cr_assert_not_null(text);
        char *edited = replace(text, "if ", "if !");
        if (edited == NULL)
            edited = replace(text, "der(x", "(x");
        if (edited == NULL) {
            free(text);
            continue;
        }
        mel_model *m0 = NULL, *m1 = NULL;
        mel_options mo = {0};
        int rc0 = mel_model_parse(text, strlen(text), &mo, &m0, NULL);
        int rc1 = mel_model_parse(edited, strlen(edited), &mo, &m1, NULL);
        if (rc0 == MDAE_OK && rc1 == MDAE_OK) {
            sa_options o = {0};
            sa_result *h = NULL, *r = NULL;
            if (sa_analyze(m0, &o, &h, NULL) == MDAE_OK) {
                o.hint = h;
                if (sa_analyze(m1, &o, &r, NULL) == MDAE_OK) {
                    char what[64];
                    snprintf(what, sizeof what, "random model %llu", (unsigned long long)seed);
                    uint32_t afresh;
                    placed += same_as_cold(m1, r, &afresh, what);
                    compared++;
                }
            }
            sa_result_free(r);
            sa_result_free(h);
        }
        mel_model_free(m0);
        mel_model_free(m1);
        free(edited);
        free(text);
    }
    cr_assert_gt(compared, 100, "%u compared", compared);
    cr_log_info("random models: %u compared, %u blocks placed\n", compared, placed);
}

/* Edits (a) at railcars 10, 11, 12, each seeded by the one before, under
 * sa_options.self_check: a round after round 0 takes the records round 0
 * found to be blocks (sa__known, engine/sa_blocks.c) without krec_is, and
 * self_check asks krec_is of each such record all the same (an assertion:
 * it must be a block). The brake's round 0 covers no mode there (its
 * offsets are the previous edit's), so round 1 takes round 0's parts
 * again (sa_blocks.c, "The parts taken again"); under self_check it takes
 * them afresh all the same to compare, most records as known (those are
 * counted); the results stay the cold ones. */
Test(sa_blocks_repair, known_records_checked)
{
    char *text = tm_slurp("brake.mel");
    mel_model *pm = brake_edit(text, 'a', 10);
    sa_result *prev = analyse(pm, NULL);
    uint32_t known = 0;
    for (int k = 11; k < 13; k++) {
        char what[64];
        snprintf(what, sizeof what, "edit (a) at railcar %d, self_check", k);
        mel_model *m = brake_edit(text, 'a', k);
        sa_options o = {0};
        o.hint = prev;
        o.self_check = true;
        sa_result *r = NULL;
        cr_assert_eq(sa_analyze(m, &o, &r, NULL), MDAE_OK);
        uint32_t afresh;
        same_as_cold(m, r, &afresh, what);
        known += k > 11 ? sa__kept_known(r) : 0; /* seeded by a seeded result */
        sa_result_free(prev);
        mel_model_free(pm);
        prev = r;
        pm = m;
    }
    cr_assert_gt(known, 100, "%u records taken as known", known);
    sa_result_free(prev);
    mel_model_free(pm);
    free(text);
}

/* A chain of edits of `kind` at railcars 11, 12, 13, each seeded by the
 * previous seeded result, under self_check (what a fast path takes is
 * checked the slow way all the same: an assertion), the results the cold
 * ones; the sum of count(r) over the chain's results (`label` names the
 * count in the failure messages). */
static uint32_t chain_counted(char kind, uint32_t (*count)(const sa_result *), const char *label)
{
    char *text = tm_slurp("brake.mel");
    mel_model *pm = brake_edit(text, kind, 10);
    sa_result *prev = analyse(pm, NULL);
    uint32_t sum = 0;
    for (int k = 11; k < 14; k++) {
        char what[80];
        snprintf(what, sizeof what, "edit (%c) at railcar %d, self_check (%s)", kind, k, label);
        mel_model *m = brake_edit(text, kind, k);
        sa_options o = {0};
        o.hint = prev;
        o.self_check = true;
        sa_result *r = NULL;
        cr_assert_eq(sa_analyze(m, &o, &r, NULL), MDAE_OK);
        uint32_t afresh;
        same_as_cold(m, r, &afresh, what);
        sum += count(r);
        sa_result_free(prev);
        mel_model_free(pm);
        prev = r;
        pm = m;
    }
    sa_result_free(prev);
    mel_model_free(pm);
    free(text);
    return sum;
}

/* The bulk check of records the hint's own seeded rounds took (sa_blocks.c,
 * "The records of the hint's own rounds"): each record so taken is checked
 * by krec_is all the same under self_check. */
static uint32_t chain_bulk(char kind) { return chain_counted(kind, sa__kept_bulk, "bulk"); }

Test(sa_blocks_repair, bulk_records_checked)
{
    uint32_t bulk = chain_bulk('a');
    cr_log_info("%u records taken by the bulk check", bulk);
    cr_assert_gt(bulk, 100, "%u records taken by the bulk check", bulk);
}

/* The same with the guard edits (b), whose rows' activity (chi_i) differs
 * from the hint's: the bulk check compares the rows' activity there
 * (krec_rest_bulk without same_rows). */
Test(sa_blocks_repair, bulk_records_checked_guards)
{
    cr_log_info("%u records taken by the bulk check (guards)", chain_bulk('b'));
}

/* The parts taken again (sa_blocks.c): the parts so taken are taken
 * afresh all the same under self_check and compared. */
static uint32_t chain_again(char kind) { return chain_counted(kind, sa__kept_again, "again"); }

/* Round 0 of edit (a) (the previous edit's offsets) covers no mode, so
 * round 1, over the same modes, takes the parts round 0 took from the
 * hint's records, asking again only the records with a column made again
 * (three of the parts' columns, two refused records). */
Test(sa_blocks_repair, parts_taken_again_checked)
{
    uint32_t again = chain_again('a');
    cr_log_info("%u parts taken again", again);
    cr_assert_gt(again, 100, "%u parts taken again", again);
}

/* The records checked by their own edges (sa_blocks.c, "The records' own
 * edges"): the first edit of each chain is seeded by a cold result (no
 * own tight edges, no bulk check), whose records take_part checks by
 * their own edges only; under self_check every such answer, true or
 * false, is compared with krec_is's (an assertion), and the te the
 * rounds borrow is checked after a garbage collection (a borrowed node
 * freed is an error: "te borrowed in the tight rounds"). */
static uint32_t chain_by_edges(char kind)
{
    return chain_counted(kind, sa__kept_by_edges, "by edges");
}

Test(sa_blocks_repair, records_by_edges_checked)
{
    uint32_t n = chain_by_edges('a');
    cr_log_info("%u records checked by their own edges", n);
    cr_assert_gt(n, 100, "%u records checked by their own edges", n);
}

/* The same with the guard edits (b) (rows whose activity is not the
 * hint's: krec_rest compares it). */
Test(sa_blocks_repair, records_by_edges_checked_guards)
{
    uint32_t n = chain_by_edges('b');
    cr_log_info("%u records checked by their own edges (guards)", n);
    cr_assert_gt(n, 100, "%u records checked by their own edges (guards)", n);
}

/* The rest's rows and columns after parts were given back (sa_blocks.c,
 * rest_lists): the earlier lists merged with the rows and columns given
 * back, compared under self_check with a scan of every row and column
 * (an assertion); edits (a) give parts back in their rounds. */
Test(sa_blocks_repair, rest_lists_merged_checked)
{
    uint32_t n = chain_counted('a', sa__kept_merged, "merged");
    cr_log_info("%u rest lists merged", n);
    cr_assert_gt(n, 0, "%u rest lists merged", n);
}

/* A large block's rows in the whole's order (sa_blocks.c, sub_index:
 * sorted by place, eq_local not cleared): under self_check compared with
 * the walk of every row (an assertion); the brake's cold analysis has
 * blocks of more than SMALL_BLOCK rows. The result equals the one made
 * without self_check. */
Test(sa_blocks_repair, large_block_order_checked)
{
    char *text = tm_slurp("brake.mel");
    mel_model *m = brake_edit(text, 'a', 10);
    sa_options o = {0};
    o.self_check = true;
    sa_result *r = NULL, *plain = analyse(m, NULL);
    cr_assert_eq(sa_analyze(m, &o, &r, NULL), MDAE_OK);
    const char *why = NULL;
    cr_assert(sa_result_same(r, plain, &why), "%s", why);
    sa_result_free(r);
    sa_result_free(plain);
    mel_model_free(m);
    free(text);
}
