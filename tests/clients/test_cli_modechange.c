/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/clients/test_cli_modechange.c -- `mdae modechange` (issue 13): the
 * JSON shape and the text of one change, --all, bad requests (exit 2 naming
 * what is wrong, exit 1 for a model with errors), and the same through
 * `mdae --server` against a real mdaed (session/modechange and
 * session/modechanges answer what the embedded engine prints).
 */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_test.h"
#include "mdaed_proc.h"

static run run_args(const char *const *args) { return cli_run(NULL, environ, args); }

#define RUN(...) run_args((const char *const[]){__VA_ARGS__, NULL})

static const cJSON *item(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static cJSON *parse_out(const run *r)
{
    cJSON *j = cJSON_Parse(r->out);
    cr_assert_not_null(j, "not JSON:\n%s", r->out);
    return j;
}

Test(cli_modechange, json_of_the_clutch_engaging_has_the_issue_shape)
{
    run r = RUN("modechange", MODEL("clutch.mel"), "--from", "gamma=0", "--to", "gamma=1",
                "--json");
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    static const char *const keys[] = {"from", "to", "status", "instants", "impulsive",
                                       "resets", "diagnostics"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        cr_assert_not_null(item(j, keys[k]), "no \"%s\"", keys[k]);
    cr_assert_str_eq(cJSON_GetStringValue(item(j, "status")), "reset");
    cr_assert(cJSON_IsFalse(item(item(j, "from"), "gamma")));
    cr_assert(cJSON_IsTrue(item(item(j, "to"), "gamma")));
    const cJSON *in = cJSON_GetArrayItem(item(j, "instants"), 0);
    cr_assert_eq(cJSON_GetArraySize(item(j, "instants")), 1);
    static const char *const ikeys[] = {"r", "equations", "unknowns", "known", "context",
                                        "erased", "status", "overdetermined",
                                        "underdetermined"};
    for (size_t k = 0; k < sizeof ikeys / sizeof ikeys[0]; k++)
        cr_assert_not_null(item(in, ikeys[k]), "no instants[0].\"%s\"", ikeys[k]);
    const cJSON *e = cJSON_GetArrayItem(item(in, "erased"), 0);
    cr_assert_str_eq(cJSON_GetStringValue(item(e, "name")), "e3");
    cr_assert_eq(item(e, "shift")->valueint, 0);
    cr_assert_eq(cJSON_GetArraySize(item(in, "equations")), 4);
    cr_assert_eq(cJSON_GetArraySize(item(in, "unknowns")), 4);
    cr_assert_str_eq(cJSON_GetStringValue(item(in, "status")), "nonsingular");
    cJSON_Delete(j);
    run_free(&r);
}

Test(cli_modechange, text_names_the_erased_equations_and_the_restart_system)
{
    run r = RUN("modechange", MODEL("cup_and_ball.mel"), "--from", "gamma=0", "--to",
                "gamma=1");
    expect(&r, 0);
    contains(r.out, "reset (2 restart instants)");
    contains(r.out, "instant 0: erased k1, k1\u2022\n");
    contains(r.out, "instant 1: erased k1\n");
    contains(r.out, "context: e1, e2, k1\u2022\n");
    run_free(&r);
    r = RUN("modechange", MODEL("clutch.mel"), "--from", "gamma=1", "--to", "gamma=0");
    expect(&r, 0);
    contains(r.out, ": continuous");
    run_free(&r);
}

/* Issue 41 item 8: the equations with their bodies at their shifts, every
 * restart relation as an equation, a legend; names that carry the
 * notation's marks quoted. */
Test(cli_modechange, equations_print_as_shifted_bodies_with_a_legend)
{
    run r = RUN("modechange", MODEL("clutch.mel"), "--from", "gamma=0", "--to", "gamma=1");
    expect(&r, 0);
    contains(r.out, "instant 0: erased e3\n    e3:  w1 - w2 = 0\n");
    contains(r.out, "    e1:  w1' = f1(w1, tau1)\n");
    contains(r.out, "    e3\u2022:  w1\u2022 - w2\u2022 = 0\n");
    contains(r.out, "restart relation at instant 0: e3\u2022:  w1\u2022 - w2\u2022 = 0\n");
    contains(r.out, "(x\u2022: x one instant later, x\u2022k: k instants later; x': the "
                    "derivative");
    /* f1(w1, tau1) is not known to be linear in tau1: not eliminated, and why */
    contains(r.out, "restart relation at instant 0: eliminate tau1, tau2 from e1, e2, e4 (1 "
                    "relation among w1, w1\u2022, w2, w2\u2022; not eliminated: e1 is not linear "
                    "in tau1: its derivative with respect to it, -'f1.d2'(w1, tau1), reads a "
                    "value to eliminate)\n    e1:  w1' = f1(w1, tau1)\n");
    run_free(&r);
    /* ClutchBasic: the torques eliminated, RR-9459 (18) as dt -> 0 */
    r = RUN("modechange", MODEL("clutch_basic_mo.mel"), "--from", "g=0", "--to", "g=1");
    expect(&r, 0);
    contains(r.out, "restart relation at instant 0: f1, f2 eliminated from e1, e2, e4 (linear "
                    "in them)\n    j1 * w1' + k1 * w1 + j2 * w2' + k2 * w2 = 0\n      as dt "
                    "\u2192 0:  j1*(w1\u207a - w1\u207b) + j2*(w2\u207a - w2\u207b) = 0\n"
                    "restart relation at instant 0: e3\u2022:  0 = if g then w1\u2022 - "
                    "w2\u2022 else f1\u2022\n");
    run_free(&r);
    r = RUN("modechange", MODEL("clutch_basic_mo.mel"), "--from", "g=0", "--to", "g=1",
            "--json");
    expect(&r, 0);
    cJSON *jb = parse_out(&r);
    const cJSON *rs0 = cJSON_GetArrayItem(item(jb, "resets"), 0);
    const cJSON *el0 = cJSON_GetArrayItem(item(rs0, "eliminated"), 0);
    cr_assert_str_eq(cJSON_GetStringValue(item(el0, "equation")),
                     "j1 * w1' + k1 * w1 + j2 * w2' + k2 * w2 = 0");
    cr_assert_str_eq(cJSON_GetStringValue(item(el0, "standard")),
                     "j1*(w1\u207a - w1\u207b) + j2*(w2\u207a - w2\u207b) = 0");
    cr_assert(cJSON_IsNull(item(rs0, "conditions")) && cJSON_IsNull(item(rs0, "why")));
    cJSON_Delete(jb);
    run_free(&r);
    r = RUN("modechange", MODEL("cup_and_ball.mel"), "--from", "gamma=0", "--to", "gamma=1",
            "--json");
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    const cJSON *e = cJSON_GetArrayItem(item(cJSON_GetArrayItem(item(j, "instants"), 0),
                                             "erased"), 1);
    cr_assert_str_eq(cJSON_GetStringValue(item(e, "name")), "k1");
    cr_assert_eq(item(e, "shift")->valueint, 1);
    cr_assert_str_eq(cJSON_GetStringValue(item(e, "body")),
                     "0 = if gamma then L ^ 2 - x\u2022 ^ 2 - y\u2022 ^ 2 else lambda\u2022");
    cJSON_Delete(j);
    run_free(&r);
    /* an equation named e3' (a MEL quoted name) reads as a name, not a derivative */
    FILE *f = fopen(MODEL("clutch.mel"), "r");
    cr_assert_not_null(f);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char *at = strstr(text, "  e3 : equation");
    cr_assert_not_null(at);
    char edited[4200];
    snprintf(edited, sizeof edited, "%.*s  'e3\\'' : equation%s", (int)(at - text), text,
             at + strlen("  e3 : equation"));
    char path[64];
    snprintf(path, sizeof path, "/tmp/mdae-mc-quoted-%ld.mel", (long)getpid());
    f = fopen(path, "w");
    cr_assert_not_null(f);
    cr_assert_eq(fputs(edited, f) >= 0, true);
    fclose(f);
    r = RUN("modechange", path, "--from", "gamma=0", "--to", "gamma=1");
    unlink(path);
    expect(&r, 0);
    contains(r.out, "instant 0: erased 'e3\\''\n");
    contains(r.out, "e1, e2, 'e3\\''\u2022, e4");
    run_free(&r);
}

Test(cli_modechange, a_guard_fixpoint_is_rejected_with_a_located_hint)
{
    run r = RUN("modechange", MODEL("cup_and_ball_19.mel"), "--from", "gamma=0", "--to",
                "gamma=1");
    expect(&r, 0); /* the analysis ran; its verdict is "rejected" */
    contains(r.out, ": rejected");
    contains(r.err, "cup_and_ball_19.mel:21:19: error: guard fixpoint");
    contains(r.err, "last(s)");
    contains(r.out, "  why: guard fixpoint: mode variable 'gamma'"); /* the reason on stdout */
    run_free(&r);
}

/* Issue 41 item 3: one answer for a guard fixpoint, whatever the command:
 * the status "rejected" and the reason in the output, exit 0 as for any
 * rejected change, and `mdae check` warns where the fix goes. */
Test(cli_modechange, a_guard_fixpoint_gets_one_answer_from_every_command)
{
    static const char *const modes[][2] = {{"--first", NULL}, {"--all", NULL},
                                           {"--first", "--instants"}};
    for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++) {
        run r = modes[k][1] ? RUN("modechange", MODEL("cup_and_ball_19.mel"), modes[k][0],
                                  modes[k][1], "--json")
                            : RUN("modechange", MODEL("cup_and_ball_19.mel"), modes[k][0],
                                  "--json");
        expect(&r, 0);
        cJSON *j = parse_out(&r);
        cr_assert_str_eq(cJSON_GetStringValue(item(j, "status")), "rejected", "%s", modes[k][0]);
        cr_assert_not_null(strstr(cJSON_GetStringValue(item(j, "reason")), "guard fixpoint"));
        const cJSON *d = cJSON_GetArrayItem(item(j, "diagnostics"), 0);
        cr_assert_not_null(strstr(cJSON_GetStringValue(item(d, "message")), "last(s)"));
        cr_assert_eq(item(item(item(d, "range"), "start"), "line")->valueint, 21);
        cJSON_Delete(j);
        run_free(&r);
        r = RUN("modechange", MODEL("cup_and_ball_19.mel"), modes[k][0]);
        expect(&r, 0);
        contains(r.out, "every mode change is rejected: the model has a guard fixpoint");
        contains(r.err, "cup_and_ball_19.mel:21:19: error: guard fixpoint");
        run_free(&r);
    }
    run r = RUN("check", MODEL("cup_and_ball_19.mel"));
    expect(&r, 0);
    contains(r.err, "cup_and_ball_19.mel:21:19: warning: guard fixpoint: mode variable 'gamma'");
    contains(r.err, "last(s)");
    contains(r.out, "ok: no errors, 1 warning");
    run_free(&r);
}

Test(cli_modechange, bad_requests_are_usage_errors_that_say_what_is_wrong)
{
    run r = RUN("modechange", MODEL("clutch.mel"), "--from", "gama=0", "--to", "gamma=1");
    expect(&r, 2);
    contains(r.err, "unknown mode variable 'gama'");
    run_free(&r);
    r = RUN("modechange", MODEL("clutch.mel"), "--from", "gamma=1", "--to", "gamma=1");
    expect(&r, 2);
    contains(r.err, "same mode");
    run_free(&r);
    r = RUN("modechange", MODEL("water_tank.mel"), "--from", "bh=0", "--to", "bh=1,bl=1");
    expect(&r, 2);
    contains(r.err, "'to' is not a valid mode");
    run_free(&r);
    r = RUN("modechange", MODEL("clutch.mel"), "--from", "gamma=1");
    expect(&r, 2);
    contains(r.err, "missing --to");
    run_free(&r);
    r = RUN("modechange", MODEL("clutch.mel"), "--all", "--from", "gamma=1");
    expect(&r, 2);
    run_free(&r);
    r = RUN("modechange", MODEL("syntax_error.mel"), "--from", "g=0", "--to", "g=1");
    expect(&r, 1);
    contains(r.err, "syntax_error.mel:12:27: error: ");
    run_free(&r);
}

Test(cli_modechange, all_lists_every_pair_and_says_it_enumerated)
{
    run r = RUN("modechange", MODEL("rldc2.mel"), "--all", "--json");
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    cr_assert_str_eq(cJSON_GetStringValue(item(j, "method")), "enumeration");
    cr_assert_eq(item(j, "pairs")->valueint, 12);
    cr_assert_eq(cJSON_GetArraySize(item(j, "changes")), 12);
    cJSON_Delete(j);
    run_free(&r);
    r = RUN("modechange", MODEL("clutch.mel"), "--all");
    expect(&r, 0);
    contains(r.out, "2 changes between 2 valid modes (method: enumeration): 1 continuous, "
                    "1 reset, 0 rejected");
    contains(r.out, "gamma=0 \u2192 gamma=1: reset (1 instant), erases e3");
    run_free(&r);
}

Test(cli_modechange, first_classifies_every_first_instant_on_bdds)
{
    /* RLDC2: the same counts as the enumeration's continuous changes */
    run r = RUN("modechange", MODEL("rldc2.mel"), "--first", "--json");
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    cr_assert_str_eq(cJSON_GetStringValue(item(j, "method")), "bdd");
    cr_assert_eq(item(j, "pairs")->valueint, 12);
    cr_assert_eq(item(item(j, "counts"), "continuous")->valueint, 6);
    cr_assert_eq(item(item(j, "counts"), "restart")->valueint, 6);
    cr_assert_str_eq(cJSON_GetStringValue(item(item(item(j, "classes"), "rejected"), "guard")),
                     "false");
    cJSON_Delete(j);
    run_free(&r);
    /* the clutch: engaging needs a restart, releasing is continuous */
    r = RUN("modechange", MODEL("clutch.mel"), "--first");
    expect(&r, 0);
    contains(r.out, "the first instant of 2 changes (method: bdd): 1 continuous, 1 needs a "
                    "restart, 0 rejected there");
    contains(r.out, "continuous when gamma\n");
    contains(r.out, "restart    when !gamma\n");
    run_free(&r);
    /* --all past the enumeration: every instant of every change on BDDs,
     * with a note saying why (exit 0) */
    r = RUN("modechange", MODEL("brake.mel"), "-D", "N=12", "--all");
    expect(&r, 0);
    contains(r.err, "brake.mel: note: 4096 valid modes make 16773120 changes");
    contains(r.out, "every instant: 527345 continuous, 16245775 reset, 0 rejected");
    run_free(&r);
    r = RUN("modechange", MODEL("brake.mel"), "-D", "N=12", "--all", "--json");
    expect(&r, 0);
    j = parse_out(&r);
    cr_assert_str_eq(cJSON_GetStringValue(item(j, "method")), "bdd");
    cr_assert_not_null(cJSON_GetStringValue(item(j, "enumerationSkipped")));
    cr_assert_eq(item(item(item(j, "changes"), "counts"), "reset")->valuedouble, 16245775.0);
    cJSON_Delete(j);
    run_free(&r);
    /* the brake at N = 12: 16.8 million pairs, past the enumeration */
    r = RUN("modechange", MODEL("brake.mel"), "-D", "N=12", "--first", "--json");
    expect(&r, 0);
    j = parse_out(&r);
    cr_assert_eq(item(j, "pairs")->valuedouble, 4096.0 * 4095.0);
    cr_assert_str_eq(cJSON_GetStringValue(item(item(item(j, "classes"), "rejected"), "guard")),
                     "false");
    cr_assert_null(item(j, "whenClausesNotCovered")); /* no when-clause */
    cJSON_Delete(j);
    run_free(&r);
    /* the bouncing ball: its only change is an event, which --first gives
     * whole, by enumeration, beside the (empty) long pairs */
    r = RUN("modechange", MODEL("bouncing_ball.mo"), "--first");
    expect(&r, 0);
    contains(r.out, "the first instant of 0 changes");
    contains(r.out, "through when events (method: enumeration; every instant, cascades "
                    "included): 1 changes: 0 continuous, 1 reset, 0 rejected\n"
                    "    reset      when !(h <= 0) & (h <= 0)\u207a");
    run_free(&r);
    r = RUN("modechange", MODEL("bouncing_ball.mo"), "--first", "--json");
    expect(&r, 0);
    j = parse_out(&r);
    cr_assert_null(item(j, "whenClausesNotCovered"));
    cr_assert_eq(item(item(item(j, "events"), "counts"), "reset")->valueint, 1);
    cr_assert_str_eq(cJSON_GetStringValue(item(item(item(item(j, "events"), "classes"), "reset"),
                                                "guard")),
                     "!(h <= 0) & (h <= 0)\u207a");
    cJSON_Delete(j);
    run_free(&r);
    /* cascades: the finite one's changes are among the events */
    r = RUN("modechange", MODEL("cascade.mel"), "--first", "--instants");
    expect(&r, 0);
    contains(r.out, "through when events (method: enumeration; every instant, cascades "
                    "included): 16 changes: 0 continuous, 14 reset, 2 rejected");
    run_free(&r);
    r = RUN("modechange", MODEL("clutch.mel"), "--first", "--from", "gamma=0");
    expect(&r, 2);
    contains(r.err, "--first excludes --from and --to");
    run_free(&r);
}

/* --erasures: which equations the first instant erases, pair by pair --
 * the papers' results (RR-9459: the clutch's e3, the Cup-and-Ball's k1 and
 * k1.), the brake's valve equations, and the same list as --all. */
Test(cli_modechange, first_erasures_name_the_erased_equations_of_every_change)
{
    run r = RUN("modechange", MODEL("clutch.mel"), "--first", "--erasures");
    expect(&r, 0);
    contains(r.out, "  e3 is erased at the first instant when !gamma (1 pair)\n");
    run_free(&r);
    r = RUN("modechange", MODEL("cup_and_ball.mel"), "--first", "--erasures");
    expect(&r, 0);
    contains(r.out, "  k1 is erased at the first instant when gamma\u207a (1 pair)\n");
    contains(r.out, "  k1 (shift 1) is erased at the first instant when gamma\u207a (1 pair)\n");
    run_free(&r);
    /* the brake at N = 12: ve1[k] exactly when valve k opens, 2^22 pairs each */
    r = RUN("modechange", MODEL("brake.mel"), "-D", "N=12", "--first", "--erasures", "--json");
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    const cJSON *er = item(j, "erasures");
    cr_assert_eq(cJSON_GetArraySize(er), 12);
    const cJSON *e = cJSON_GetArrayItem(er, 6);
    cr_assert_str_eq(cJSON_GetStringValue(item(e, "name")), "ve1[7]");
    cr_assert_eq(item(e, "shift")->valueint, 0);
    cr_assert_str_eq(cJSON_GetStringValue(item(e, "guard")), "!open[7] & open[7]\u207a");
    cr_assert_eq(item(e, "pairs")->valuedouble, 2048.0 * 2048.0);
    cJSON_Delete(j);
    run_free(&r);
    /* without --erasures, no list; --erasures alone is a usage error */
    r = RUN("modechange", MODEL("clutch.mel"), "--first", "--json");
    expect(&r, 0);
    j = parse_out(&r);
    cr_assert_null(item(j, "erasures"));
    cJSON_Delete(j);
    run_free(&r);
    r = RUN("modechange", MODEL("clutch.mel"), "--all", "--erasures");
    expect(&r, 2);
    contains(r.err, "--erasures goes with --first");
    run_free(&r);
}

/* Impulse orders by class of pairs (issue 41 item 7): the clutch's tau1 =
 * tau2 of order 1 at its first instant, the Cup-and-Ball (22)'s lambda = s
 * of order <= 1 at both instants (RR-9459 (40)); the brake at N = 100, all
 * its restarts too large for the analysis, in one class counted exactly;
 * without --erasures or --instants, none. */
Test(cli_modechange, first_impulse_orders_come_by_class_of_pairs)
{
    run r = RUN("modechange", MODEL("clutch.mel"), "--first", "--erasures");
    expect(&r, 0);
    contains(r.out, "  impulse orders at the first instant when !gamma (1 pair): impulsive "
                    "tau1 = tau2 (order 1); finite w1\u2022 (order \u2264 0), w2\u2022 "
                    "(order \u2264 0)\n");
    run_free(&r);
    r = RUN("modechange", MODEL("cup_and_ball_22.mel"), "--first", "--instants");
    expect(&r, 0);
    contains(r.out, "  impulse orders at the first instant when gamma\u207a (1 pair): impulsive "
                    "lambda = s (order \u2264 1); finite x\u20222 (order 0), y\u20222 "
                    "(order 0)\n");
    contains(r.out, "    impulse orders when !gamma (1 pair): impulsive lambda = s (order "
                    "\u2264 1)");
    run_free(&r);
    r = RUN("modechange", MODEL("brake.mel"), "-D", "N=100", "--first", "--erasures", "--json");
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    const cJSON *im = item(j, "impulses");
    cr_assert_eq(cJSON_GetArraySize(im), 1);
    const cJSON *c = cJSON_GetArrayItem(im, 0);
    cr_assert_str_eq(cJSON_GetStringValue(item(c, "status")), "too large");
    cr_assert_str_eq(cJSON_GetStringValue(item(c, "pairsExact")),
                     cJSON_GetStringValue(item(item(j, "counts"), "restartExact")));
    cJSON_Delete(j);
    run_free(&r);
    r = RUN("modechange", MODEL("clutch.mel"), "--first", "--json");
    expect(&r, 0);
    j = parse_out(&r);
    cr_assert_null(item(j, "impulses"));
    cJSON_Delete(j);
    run_free(&r);
}

/* --instants: every later instant on BDDs, the status and number of
 * instants of every change -- the Cup-and-Ball's slack -> taut in two
 * instants (RR-9459), the brake's valve opening in one, RLDC2's both
 * diodes at once in two. */
Test(cli_modechange, first_instants_give_every_change_in_full)
{
    run r = RUN("modechange", MODEL("cup_and_ball.mel"), "--first", "--instants");
    expect(&r, 0);
    contains(r.out, "  every instant: 1 continuous, 1 reset, 0 rejected\n");
    contains(r.out, "    reset after 2 instants (1 pair) when gamma\u207a\n");
    run_free(&r);
    r = RUN("modechange", MODEL("rldc2.mel"), "--first", "--instants");
    expect(&r, 0);
    contains(r.out, "    reset after 2 instants (2 pairs) when !g1 & g1\u207a & !g2 & g2\u207a | "
                    "g1 & !g1\u207a & g2 & !g2\u207a\n");
    run_free(&r);
    r = RUN("modechange", MODEL("brake.mel"), "-D", "N=12", "--first", "--instants", "--json");
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    const cJSON *ch = item(j, "changes");
    cr_assert_eq(item(item(ch, "counts"), "reset")->valuedouble,
                 item(item(j, "counts"), "restart")->valuedouble);
    cr_assert_eq(cJSON_GetArraySize(item(ch, "outcomes")), 1);
    const cJSON *o = cJSON_GetArrayItem(item(ch, "outcomes"), 0);
    cr_assert_str_eq(cJSON_GetStringValue(item(o, "status")), "reset");
    cr_assert_eq(item(o, "instants")->valueint, 1);
    cJSON_Delete(j);
    run_free(&r);
    r = RUN("modechange", MODEL("clutch.mel"), "--all", "--instants");
    expect(&r, 2);
    contains(r.err, "--instants goes with --first");
    run_free(&r);
}

/* Issue 41 item 2: counts past 2^53 exact, in JSON (<name>Exact beside the
 * number, <name>Log2) and in text, against the closed forms: the brake at
 * N has 2^2N - 2^N pairs, 3^N - 2^N of them continuous (every valve open
 * before stays open after, not all the same). */
Test(cli_modechange, counts_past_two_to_the_53_are_exact)
{
    run r = RUN("modechange", MODEL("brake.mel"), "-D", "N=50", "--first", "--instants",
                "--json");
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    const cJSON *c = item(j, "counts");
    cr_assert_str_eq(cJSON_GetStringValue(item(c, "continuousExact")),
                     "717897986565952681927625"); /* 3^50 - 2^50 */
    cr_assert_float_eq(item(c, "continuousLog2")->valuedouble, 79.2481250337952, 1e-9);
    cr_assert_str_eq(cJSON_GetStringValue(item(item(item(j, "changes"), "counts"),
                                               "continuousExact")),
                     "717897986565952681927625");
    cr_assert_str_eq(cJSON_GetStringValue(item(j, "pairsExact")),
                     "1267650600228228275596796362752"); /* 2^100 - 2^50 */
    /* The later instants' counts too: instant 1 follows the pairs that
     * need a restart (2^100 - 3^50), and every one of them ends there. */
    const cJSON *li = cJSON_GetArrayItem(item(item(j, "changes"), "instants"), 0);
    const char *still = cJSON_GetStringValue(item(li, "pairsExact"));
    cr_assert_not_null(still);
    cr_assert_str_eq(still, "1267649882330241709644114435127");
    const char *ends = cJSON_GetStringValue(item(item(li, "counts"), "endsExact"));
    cr_assert_not_null(ends);
    cr_assert_str_eq(ends, "1267649882330241709644114435127");
    cr_assert(cJSON_IsNull(item(c, "rejectedLog2")));
    cJSON_Delete(j);
    run_free(&r);
    r = RUN("modechange", MODEL("brake.mel"), "-D", "N=50", "--first");
    expect(&r, 0);
    contains(r.out, "the first instant of 1267650600228228275596796362752 changes (method: bdd): "
                    "717897986565952681927625 continuous, 1267649882330241709644114435127 need a "
                    "restart, 0 rejected there");
    run_free(&r);
    r = RUN("modechange", MODEL("brake.mel"), "-D", "N=100", "--first", "--json");
    expect(&r, 0);
    j = parse_out(&r);
    cr_assert_str_eq(cJSON_GetStringValue(item(j, "pairsExact")), /* 2^200 - 2^100 */
                     "1606938044258990275541962092339894951921974764381296132096000");
    cr_assert_eq(item(j, "pairsLog2")->valuedouble, 200.0);
    cJSON_Delete(j);
    run_free(&r);
    r = RUN("analyze", MODEL("brake.mel"), "-D", "N=100", "--json");
    expect(&r, 0);
    j = parse_out(&r);
    cr_assert_str_eq(cJSON_GetStringValue(item(j, "validModesExact")),
                     "1267650600228229401496703205376"); /* 2^100 */
    cr_assert_eq(item(j, "validModesLog2")->valuedouble, 100.0);
    cJSON_Delete(j);
    run_free(&r);
}

/* The restart values solved (issue 41 item 6): ClutchBasic's RR-9459 (18),
 * after the restart relations, in text and JSON; the clutch with unknown
 * functions says why not. */
Test(cli_modechange, restart_values_are_solved_as_the_papers_print_them)
{
    run r = RUN("modechange", MODEL("clutch_basic.mo"), "--from", "g=0", "--to", "g=1");
    expect(&r, 0);
    contains(r.out, "restart relation at instant 0: [0 = if g then w1 - w2 else f1]\u2022:  0 = "
                    "if g then w1\u2022 - w2\u2022 else f1\u2022\n"
                    "restart values at instant 0: w1\u207a = w2\u207a = (j1 * w1\u207b + j2 * "
                    "w2\u207b) / (j2 + j1)\n    where j2 + j1 \u2260 0 (the pivots)\n");
    run_free(&r);
    r = RUN("modechange", MODEL("clutch_basic.mo"), "--from", "g=0", "--to", "g=1", "--json");
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    const cJSON *rv = cJSON_GetArrayItem(item(j, "restartValues"), 0);
    cr_assert_eq(item(rv, "instant")->valueint, 0);
    const cJSON *v1 = cJSON_GetArrayItem(item(rv, "values"), 1);
    cr_assert_str_eq(cJSON_GetStringValue(item(v1, "name")), "w2\u207a");
    cr_assert_str_eq(cJSON_GetStringValue(item(v1, "value")),
                     "(j1 * w1\u207b + j2 * w2\u207b) / (j2 + j1)");
    cr_assert_str_eq(cJSON_GetStringValue(item(rv, "conditions")), "j2 + j1 \u2260 0");
    cr_assert(cJSON_IsNull(item(rv, "requires")) && cJSON_IsNull(item(rv, "why")));
    cJSON_Delete(j);
    run_free(&r);
    r = RUN("modechange", MODEL("clutch.mel"), "--from", "gamma=0", "--to", "gamma=1");
    expect(&r, 0);
    contains(r.out, "restart values at instant 0: not solved: its impulsive values were not "
                    "eliminated (see the restart relation)\n");
    run_free(&r);
    /* the second-order Cup-and-Ball: positions continuous, RR-9459 (30) */
    r = RUN("modechange", MODEL("cup_and_ball_22.mel"), "--from", "gamma=0", "--to",
            "gamma=1");
    expect(&r, 0);
    contains(r.out, "restart values at instant 0:\n    x\u207a = x\u207b\n    y\u207a = "
                    "y\u207b\n    where x\u207b \u2260 0 (the pivots)\n    provided L ^ 2 - "
                    "x\u207b ^ 2 - y\u207b ^ 2 = 0 (the old values satisfy it)\n");
    run_free(&r);
}

Test(cli_modechange, server_answers_what_the_embedded_engine_prints)
{
    mdaed_proc p;
    mdaed_prepare(&p, "mdae-mc-srv");
    char conf[1024], addr[160];
    snprintf(conf, sizeof conf,
             "{\"listen\": {\"unix\": \"%s\"}, \"log_level\": \"error\","
             " \"state_dir\": \"none\"}\n",
             p.sock);
    mdaed_start(&p, conf, true);
    snprintf(addr, sizeof addr, "unix:%s", p.sock);
    static const char *const files[] = {MODEL("rldc2.mel"), MODEL("cup_and_ball.mel")};
    static const char *const from[] = {"g1=0,g2=0", "gamma=0"};
    static const char *const to[] = {"g1=1,g2=1", "gamma=1"};
    for (int k = 0; k < 2; k++) {
        run loc = RUN("modechange", files[k], "--from", from[k], "--to", to[k], "--json");
        run rem = RUN("--server", addr, "modechange", files[k], "--from", from[k], "--to",
                      to[k], "--json");
        expect(&loc, 0);
        expect(&rem, 0);
        cr_assert_str_eq(rem.out, loc.out);
        run_free(&loc);
        run_free(&rem);
        loc = RUN("modechange", files[k], "--from", from[k], "--to", to[k]);
        rem = RUN("--server", addr, "modechange", files[k], "--from", from[k], "--to", to[k]);
        cr_assert_str_eq(rem.out, loc.out);
        run_free(&loc);
        run_free(&rem);
    }
    run rem = RUN("--server", addr, "modechange", MODEL("clutch.mel"), "--from", "gamma=1",
                  "--to", "gamma=1");
    expect(&rem, 2);
    contains(rem.err, "same mode");
    run_free(&rem);
    rem = RUN("--server", addr, "modechange", MODEL("clutch.mel"), "--all", "--json");
    run loc = RUN("modechange", MODEL("clutch.mel"), "--all", "--json");
    expect(&rem, 0);
    cr_assert_str_eq(rem.out, loc.out);
    run_free(&loc);
    run_free(&rem);
    /* a guard fixpoint: the same "rejected" answer over the server (issue 41 item 3) */
    static const char *const how[] = {"--first", "--all"};
    for (int k = 0; k < 2; k++) {
        rem = RUN("--server", addr, "modechange", MODEL("cup_and_ball_19.mel"), how[k], "--json");
        loc = RUN("modechange", MODEL("cup_and_ball_19.mel"), how[k], "--json");
        expect(&rem, 0);
        cr_assert_str_eq(rem.out, loc.out);
        run_free(&loc);
        run_free(&rem);
        rem = RUN("--server", addr, "modechange", MODEL("cup_and_ball_19.mel"), how[k]);
        loc = RUN("modechange", MODEL("cup_and_ball_19.mel"), how[k]);
        expect(&rem, 0);
        cr_assert_str_eq(rem.out, loc.out);
        contains(rem.err, "cup_and_ball_19.mel:21:19: error: guard fixpoint");
        run_free(&loc);
        run_free(&rem);
    }
    /* session/modechanges {first: true[, erasures: true]}: the worker's
     * BDDs, the same JSON */
    for (int k = 0; k < 4; k++) {
        /* --first, then --json and --erasures or neither: a NULL ends the list */
        const char *opts[3] = {k % 2 ? "--json" : NULL, k >= 2 ? "--erasures" : NULL, NULL};
        if (opts[0] == NULL)
            opts[0] = opts[1], opts[1] = NULL;
        rem = run_args((const char *const[]){"--server", addr, "modechange", MODEL("rldc2.mel"),
                                             "--first", opts[0], opts[1], NULL});
        loc = run_args((const char *const[]){"modechange", MODEL("rldc2.mel"), "--first", opts[0],
                                             opts[1], NULL});
        expect(&rem, 0);
        expect(&loc, 0);
        cr_assert_str_eq(rem.out, loc.out);
        run_free(&loc);
        run_free(&rem);
    }
    /* --all past the enumeration: both go on BDDs, every instant, and say so */
    for (int k = 0; k < 2; k++) {
        rem = run_args((const char *const[]){"--server", addr, "modechange", MODEL("brake.mel"),
                                             "-D", "N=12", "--all", k ? "--json" : NULL, NULL});
        loc = run_args((const char *const[]){"modechange", MODEL("brake.mel"), "-D", "N=12",
                                             "--all", k ? "--json" : NULL, NULL});
        expect(&rem, 0);
        expect(&loc, 0);
        cr_assert_str_eq(rem.out, loc.out);
        contains(rem.err, "4096 valid modes make 16773120 changes");
        contains(loc.err, "every instant of every change on BDDs instead");
        run_free(&loc);
        run_free(&rem);
    }
    mdaed_stop(&p);
}

/* RR-8933 Exec. Sch. 3 (notes 1.10): the clutch's cold initialisation has
 * one degree of freedom engaged (6 unknowns w, w', tau for 5 equations
 * e1, e2, e3, e3', e4: the common speed) and two released. */
Test(cli_modechange, mode_reports_the_cold_initialisation_degrees_of_freedom)
{
    static const char *const modes[] = {"gamma=1", "gamma=0"};
    static const int dof[] = {1, 2};
    for (int k = 0; k < 2; k++) {
        run r = RUN("mode", MODEL("clutch.mel"), "--mode", modes[k], "--json");
        expect(&r, 0);
        cJSON *j = parse_out(&r);
        const cJSON *d = item(item(j, "initialization"), "degreesOfFreedom");
        cr_assert(cJSON_IsNumber(d), "%s", modes[k]);
        cr_assert_eq(d->valueint, dof[k], "%s: %d", modes[k], d->valueint);
        cJSON_Delete(j);
        run_free(&r);
    }
    run r = RUN("mode", MODEL("singular_simple.mel"), "--mode", "g=1,h=1", "--json");
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    cr_assert(cJSON_IsNull(item(item(j, "initialization"), "degreesOfFreedom")));
    cJSON_Delete(j);
    run_free(&r);
}

/* Transient modes (issue 13 item 5): the elastic Cup-and-Ball is rejected
 * as underdetermined at the when, with the impact law it is accepted; the
 * JSON has "transient" (only for such changes); the server answers the same. */
Test(cli_modechange, transient_modes_in_text_json_and_through_the_server)
{
    run r = RUN("modechange", MODEL("cup_and_ball_elastic.mel"), "--from", "gamma=0", "--to",
                "gamma=1");
    expect(&r, 0);
    contains(r.out, ": rejected\ntransient mode gamma=1 (when gamma, line 32): one instant, "
                    "then gamma=0\n");
    contains(r.out, "difference array: no A_n, n <= 3, determines the event (underdetermined)");
    contains(r.out, "underdetermined: u\u2022, v\u2022, lambda, s\n");
    contains(r.err, "cup_and_ball_elastic.mel:32:1: error: the transient mode entered here is "
                    "underdetermined");
    run_free(&r);
    r = RUN("modechange", MODEL("cup_and_ball_elastic_impact.mel"), "--from", "gamma=0", "--to",
            "gamma=1", "--json");
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    cr_assert_str_eq(cJSON_GetStringValue(item(j, "status")), "reset");
    const cJSON *t = item(j, "transient");
    cr_assert_not_null(t);
    cr_assert_eq(item(t, "arrayDepth")->valueint, 0);
    cr_assert(cJSON_IsFalse(item(item(t, "back"), "gamma")));
    cr_assert_str_eq(cJSON_GetStringValue(item(cJSON_GetArrayItem(item(t, "whens"), 0),
                                               "condition")),
                     "gamma");
    cJSON_Delete(j);
    run_free(&r);
    r = RUN("modechange", MODEL("clutch.mel"), "--from", "gamma=0", "--to", "gamma=1", "--json");
    j = parse_out(&r);
    cr_assert_null(item(j, "transient"));
    cJSON_Delete(j);
    run_free(&r);
    r = RUN("modechange", MODEL("cup_and_ball_elastic_impact.mel"), "--from", "gamma=1",
            "--to", "gamma=0");
    expect(&r, 0);
    contains(r.out, ": reset (1 restart instant)\na change out of a transient mode: analysed as "
                    "the cascade entered from gamma=0\ntransient mode gamma=1");
    contains(r.err, "note: the change out of this transient mode is part of a cascade");
    run_free(&r);
    r = RUN("modechange", MODEL("cup_and_ball_elastic_impact.mel"), "--from", "gamma=1",
            "--to", "gamma=0", "--json");
    j = parse_out(&r);
    cr_assert(cJSON_IsFalse(item(item(j, "enteredFrom"), "gamma")));
    cJSON_Delete(j);
    run_free(&r);
    r = RUN("mode", MODEL("cup_and_ball_elastic.mel"), "--mode", "gamma=1");
    expect(&r, 0);
    contains(r.out, "mode gamma=1: transient (the when-clause at line 32 holds)");
    run_free(&r);
    r = RUN("mode", MODEL("cup_and_ball_elastic.mel"), "--mode", "gamma=1", "--json");
    j = parse_out(&r);
    cr_assert_eq(item(item(item(item(j, "transient"), "range"), "start"), "line")->valueint, 32);
    cJSON_Delete(j);
    run_free(&r);

    mdaed_proc p;
    mdaed_prepare(&p, "mdae-mc-tr");
    char conf[1024], addr[160];
    snprintf(conf, sizeof conf, /* port 0: the other server test runs at the same time */
             "{\"listen\": {\"tcp\": \"127.0.0.1:0\", \"unix\": \"%s\"}, "
             "\"log_level\": \"error\", \"state_dir\": \"none\"}\n",
             p.sock);
    mdaed_start(&p, conf, true);
    snprintf(addr, sizeof addr, "unix:%s", p.sock);
    static const char *const files[] = {MODEL("cup_and_ball_elastic.mel"),
                                        MODEL("cup_and_ball_elastic.mo")};
    for (int k = 0; k < 2; k++) {
        run loc = RUN("modechange", files[k], "--from", "gamma=0", "--to", "gamma=1", "--json");
        run rem = RUN("--server", addr, "modechange", files[k], "--from", "gamma=0", "--to",
                      "gamma=1", "--json");
        expect(&loc, 0);
        expect(&rem, 0);
        cr_assert_str_eq(rem.out, loc.out);
        contains(loc.out, "\"transient\":");
        run_free(&loc);
        run_free(&rem);
    }
    mdaed_stop(&p);
}

/* Cascades of transient modes (issue 41 item 5): a finite one is analysed
 * event after event, an endless one is rejected as such, in text and JSON. */
Test(cli_modechange, cascades_finite_and_endless)
{
    run r = RUN("modechange", MODEL("cascade.mel"), "--from", "p=0,q=0,r=0", "--to",
                "p=1,q=1,r=1");
    expect(&r, 0);
    contains(r.out, ": reset (2 restart instants)\ntransient mode p=1,q=1,r=1 (when p & r, line "
                    "13): one instant, then p=0,q=1,r=0 (transient: event 2 of the cascade, one "
                    "instant), then p=1,q=1,r=0\n");
    contains(r.out, "instant 1: erased e\n    e:  x' = 1\n  restart system (1 equation, "
                    "nonsingular): t2 \u2192 x\u2022\n    t2:  next(x) = 1\n");
    contains(r.err, "note: transient mode (event 2 of a cascade of 2)");
    run_free(&r);
    r = RUN("modechange", MODEL("endless_cascade.mel"), "--from", "a=0,b=0", "--to", "a=1,b=1",
            "--json");
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    cr_assert_str_eq(cJSON_GetStringValue(item(j, "status")), "rejected");
    cr_assert(cJSON_IsTrue(item(item(j, "transient"), "endless")));
    cr_assert_eq(cJSON_GetArraySize(item(item(j, "transient"), "events")), 4);
    cJSON_Delete(j);
    run_free(&r);
    r = RUN("modechange", MODEL("endless_cascade.mel"), "--from", "a=0,b=0", "--to", "a=1,b=1");
    contains(r.out, "then the same events again: an endless cascade (rejected)");
    contains(r.err, "endless_cascade.mel:10:1: error: endless cascade: the event 'a'");
    contains(r.err, "endless_cascade.mel:11:1: error: endless cascade: the event '!a & b'");
    run_free(&r);
}

/* Issue 41 items 1 and 6: the second-order Cup-and-Ball's first instant
 * has impulse orders (RR-9459 (40), lambda = s), finite values, the
 * residuals of k1, k1. infinitesimal, and standard values per instant
 * ((30): positions at instant 0, (34): velocities at instant 1); the JSON
 * has them as "impulsive" (with "equal"), "finite", "residuals",
 * "standard". */
Test(cli_modechange, second_order_cup_and_ball_impulses_and_standard_values)
{
    run r = RUN("modechange", MODEL("cup_and_ball_22.mel"), "--from", "gamma=0", "--to",
                "gamma=1");
    expect(&r, 0);
    contains(r.out, "impulsive: lambda = s (order \u2264 1, instant 0), lambda = s (order "
                    "\u2264 1, instant 1)\n");
    contains(r.out, "finite (not impulsive): instant 0: x\u20222 (order 0), y\u20222 (order 0);");
    contains(r.out, "residual of k1\u2022 at instant 0: infinitesimal");
    contains(r.out, "x\u20222 \u2192 x\u207a, y \u2192 y\u207b");
    contains(r.out, "; determines x\u207a, y\u207a\n");
    contains(r.out, "x'\u2022 \u2192 x'\u207a");
    contains(r.out, "; determines x'\u207a, y'\u207a\n");
    contains(r.out, "    e1:  (x'\u207a - x'\u207b) + (dt*lambda)*x\u207b = 0\n");
    contains(r.out, "    k1\u20222 (as der(k1)):  0 = -2*x\u207a*x'\u207a - 2*y\u207a*y'\u207a\n");
    contains(r.out, "restart relation at instant 0: lambda, s eliminated from e1, e2, k2 "
                    "(linear in them)\n    x * (y'' + g) - y * x'' = 0\n"); /* RR-9459 (26) */
    contains(r.out, "      as dt \u2192 0:  x\u207b*(y'\u207a - y'\u207b) - "
                    "y\u207b*(x'\u207a - x'\u207b) = 0\n    where x \u2260 0 (the pivots of "
                    "the elimination)\n");
    if (strstr(r.err, "found no assignment") != NULL)
        cr_assert_fail("%s", r.err);
    run_free(&r);
    r = RUN("modechange", MODEL("cup_and_ball_22.mel"), "--from", "gamma=0", "--to",
            "gamma=1", "--json");
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    const cJSON *l = cJSON_GetArrayItem(item(j, "impulsive"), 0);
    cr_assert_str_eq(cJSON_GetStringValue(item(l, "name")), "lambda");
    cr_assert_eq(item(l, "order")->valueint, 1);
    cr_assert(cJSON_IsNull(item(l, "orderMin")));
    cr_assert_str_eq(cJSON_GetStringValue(item(cJSON_GetArrayItem(item(l, "equal"), 0), "name")),
                     "s");
    cr_assert_eq(cJSON_GetArraySize(item(j, "finite")), 4);
    const cJSON *res = cJSON_GetArrayItem(item(j, "residuals"), 0);
    cr_assert_str_eq(cJSON_GetStringValue(item(res, "name")), "k1");
    cr_assert_leq(item(res, "order")->valueint, -1);
    const cJSON *st = cJSON_GetArrayItem(item(j, "standard"), 2); /* x.2 at instant 0 */
    cr_assert_str_eq(cJSON_GetStringValue(item(st, "name")), "x");
    cr_assert_eq(item(st, "shift")->valueint, 2);
    cr_assert_eq(item(st, "level")->valueint, 0);
    cr_assert_str_eq(cJSON_GetStringValue(item(st, "side")), "+");
    const cJSON *se = cJSON_GetArrayItem(item(j, "standardEquations"), 6); /* k1.2 at 1 */
    cr_assert_str_eq(cJSON_GetStringValue(item(se, "name")), "k1");
    cr_assert_eq(item(se, "derivative")->valueint, 1);
    cr_assert_str_eq(cJSON_GetStringValue(item(se, "equation")),
                     "0 = -2*x\u207a*x'\u207a - 2*y\u207a*y'\u207a");
    cJSON_Delete(j);
    run_free(&r);
}

/* An instant whose impulse analysis was not done (the brake at N = 14: too
 * many values for it) has no standardised equations: its impulsive values
 * are not known, so reading its equations as dt -> 0 would be wrong. */
Test(cli_modechange, no_standardised_system_without_impulse_orders)
{
    run r = RUN("modechange", MODEL("brake.mel"), "-D", "N=14", "--from", "open[1]=0", "--to",
                "open[1]=1,open[2]=1,open[3]=1,open[4]=1,open[5]=1,open[6]=1,open[7]=1,"
                "open[8]=1,open[9]=1,open[10]=1,open[11]=1,open[12]=1,open[13]=1,open[14]=1");
    expect(&r, 0);
    contains(r.err, "impulse analysis not done");
    contains(r.out, ": not read (the impulse analysis of the instant was not done)\n");
    /* The restart system's bodies ("ve1[1]:  'Pr[1]' = 'Pt[1]'") come
     * before; no equation may follow the standard values' heading. */
    const char *std = strstr(r.out, "standard values (dt");
    cr_assert_not_null(std, "no standard values:\n%s", r.out);
    if (strstr(std, ":  ") != NULL)
        cr_assert_fail("a standardised equation was printed:\n%s", std);
    run_free(&r);
}

/* Later instants' lines say "1 pair", "6 rows" (issue 42's "1 changes"). */
Test(cli_modechange, later_instants_count_in_the_singular_when_one)
{
    run r = RUN("modechange", MODEL("cup_and_ball.mel"), "--first", "--instants");
    expect(&r, 0);
    contains(r.out, "instant 1, 1 pair still restarting: ends in 0, erases in 1, rejected in 0; "
                    "restart system: 6 rows");
    run_free(&r);
}

/* A half-typed model (issue 41): modechange recovers as analyze does -- the
 * broken statement located on stderr and left out, the changes of the rest
 * analysed (the same answer as the model without it, plus leftOut and
 * syntaxErrors in the JSON), exit 1; --from/--to, --all and --first, and the
 * same through the server. */
Test(cli_modechange, a_half_typed_model_is_recovered_from_as_analyze_does)
{
    FILE *f = fopen(MODEL("rldc2.mel"), "rb");
    cr_assert_not_null(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 64, f);
    fclose(f);
    text[n] = '\0';
    strcat(text, "R9 : equation v1 = ");
    char path[] = "/tmp/mdae-mc-half-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    static const char *const how[][5] = {
        {"--from", "g1=0,g2=0", "--to", "g1=1,g2=1", "--json"},
        {"--all", "--json", NULL},
        {"--first", "--json", NULL},
    };
    mdaed_proc p;
    mdaed_prepare(&p, "mdae-mc-half");
    char conf[1024], addr[160];
    snprintf(conf, sizeof conf, "{\"listen\": {\"unix\": \"%s\"}, \"log_level\": \"error\","
                                " \"state_dir\": \"none\"}\n", p.sock);
    mdaed_start(&p, conf, true);
    snprintf(addr, sizeof addr, "unix:%s", p.sock);
    for (int k = 0; k < 3; k++) {
        const char *good_args[8] = {"modechange", MODEL("rldc2.mel")};
        const char *bad_args[8] = {"modechange", path};
        const char *rem_args[10] = {"--server", addr, "modechange", path};
        for (int a = 0; a < 5 && how[k][a] != NULL; a++)
            good_args[2 + a] = bad_args[2 + a] = rem_args[4 + a] = how[k][a];
        run good = run_args(good_args), bad = run_args(bad_args), rem = run_args(rem_args);
        expect(&good, 0);
        expect(&bad, 1);
        expect(&rem, 1);
        contains(bad.err, ":61:20: error: expected an expression, found end of input");
        contains(bad.err, ": 1 syntax error; 1 statement left out, the result is of the rest");
        cr_assert_str_eq(rem.out, bad.out, "the server answers the same (%s)", how[k][0]);
        cJSON *g = parse_out(&good), *b = parse_out(&bad);
        cJSON *lo = cJSON_DetachItemFromObject(b, "leftOut");
        cr_assert_eq(cJSON_GetArraySize(lo), 1, "%s", how[k][0]);
        cr_assert_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(lo, 0), "line")->valueint, 61);
        cJSON_Delete(lo);
        cJSON_Delete(cJSON_DetachItemFromObject(b, "syntaxErrors"));
        cr_assert(cJSON_Compare(g, b, true), "%s: the rest analyses as the model without the line",
                  how[k][0]);
        cJSON_Delete(g);
        cJSON_Delete(b);
        run_free(&good);
        run_free(&bad);
        run_free(&rem);
    }
    run txt = RUN("modechange", path, "--from", "g1=0,g2=0", "--to", "g1=1,g2=1");
    expect(&txt, 1);
    contains(txt.out, "change g1=0,g2=0 \u2192 g1=1,g2=1: ");
    contains(txt.err, ":61:20: error: expected an expression");
    run_free(&txt);
    mdaed_stop(&p);
    unlink(path);
}
