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

Test(cli_modechange, a_guard_fixpoint_is_rejected_with_a_located_hint)
{
    run r = RUN("modechange", MODEL("cup_and_ball_19.mel"), "--from", "gamma=0", "--to",
                "gamma=1");
    expect(&r, 0); /* the analysis ran; its verdict is "rejected" */
    contains(r.out, ": rejected");
    contains(r.err, "cup_and_ball_19.mel:21:19: error: guard fixpoint");
    contains(r.err, "last(s)");
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
    contains(r.out, "the first instant of 2 changes (method: bdd): 1 continuous, 1 need a "
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
                    "    reset      when !(h <= 0) & (h <= 0)'");
    run_free(&r);
    r = RUN("modechange", MODEL("bouncing_ball.mo"), "--first", "--json");
    expect(&r, 0);
    j = parse_out(&r);
    cr_assert_null(item(j, "whenClausesNotCovered"));
    cr_assert_eq(item(item(item(j, "events"), "counts"), "reset")->valueint, 1);
    cr_assert_str_eq(cJSON_GetStringValue(item(item(item(item(j, "events"), "classes"), "reset"),
                                                "guard")),
                     "!(h <= 0) & (h <= 0)'");
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
    contains(r.out, "  k1 is erased at the first instant when gamma' (1 pair)\n");
    contains(r.out, "  k1 (shift 1) is erased at the first instant when gamma' (1 pair)\n");
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
    cr_assert_str_eq(cJSON_GetStringValue(item(e, "guard")), "!open[7] & open[7]'");
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

/* --instants: every later instant on BDDs, the status and number of
 * instants of every change -- the Cup-and-Ball's slack -> taut in two
 * instants (RR-9459), the brake's valve opening in one, RLDC2's both
 * diodes at once in two. */
Test(cli_modechange, first_instants_give_every_change_in_full)
{
    run r = RUN("modechange", MODEL("cup_and_ball.mel"), "--first", "--instants");
    expect(&r, 0);
    contains(r.out, "  every instant: 1 continuous, 1 reset, 0 rejected\n");
    contains(r.out, "    reset after 2 instants (1 pair) when gamma'\n");
    run_free(&r);
    r = RUN("modechange", MODEL("rldc2.mel"), "--first", "--instants");
    expect(&r, 0);
    contains(r.out, "    reset after 2 instants (2 pairs) when !g1 & g1' & !g2 & g2' | "
                    "g1 & !g1' & g2 & !g2'\n");
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
    contains(r.out, "instant 1: erased e\n  restart system (1 equation, nonsingular): t2");
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
