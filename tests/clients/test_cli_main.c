/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/clients/test_cli_main.c -- the `mdae` executable, run as a user
 * would: exit codes, stdout summaries and JSON, stderr diagnostics with a
 * caret, strict option parsing, file errors, stdin.
 *
 * The binary is spawned (posix_spawn) with stdout and stderr redirected to
 * temporary files, so a large output can never deadlock a pipe.
 */
#define _XOPEN_SOURCE 700 /* posix_openpt, ptsname: the colour test's terminal */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>

#include "cli_test.h"

/* Run mdae with argv (NULL-terminated, without the program name) and stdin
 * from `in` (a path, or NULL for /dev/null). */
static run run_mdae_in(const char *in, const char *const *args)
{
    return cli_run(in, environ, args);
}

#define RUN(...) run_mdae_in(NULL, (const char *const[]){__VA_ARGS__, NULL})
#define RUN_IN(in, ...) run_mdae_in(in, (const char *const[]){__VA_ARGS__, NULL})

static double num(const cJSON *o, const char *k)
{
    return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* ---- check ---------------------------------------------------------------- */

Test(cli, check_prints_the_counts_of_rldc2)
{
    run r = RUN("check", MODEL("rldc2.mel"));
    expect(&r, 0);
    contains(r.out, "rldc2.mel: 14 equations, 14 variables, 2 mode variables (4 modes), 38 "
                    "incidences, 0 invariants, 6 parameters\n");
    contains(r.out, "ok: no errors\n");
    cr_assert_str_eq(r.err, "");
    run_free(&r);
}

Test(cli, check_reads_the_model_from_stdin_when_file_is_a_dash)
{
    run r = RUN_IN(MODEL("rldc2.mel"), "check", "-");
    expect(&r, 0);
    contains(r.out, "<stdin>: 14 equations");
    run_free(&r);
}

Test(cli, check_reports_syntax_errors_with_location_and_caret)
{
    run r = RUN("check", MODEL("syntax_error.mel"));
    expect(&r, 1);
    contains(r.err, "syntax_error.mel:12:27: error: ");
    contains(r.err, "syntax_error.mel:13:15: error: ");
    contains(r.err, "syntax_error.mel:16:22: error: ");
    /* The source line, then the caret under column 27. */
    contains(r.err, " e1 : equation x = (y + 1.0;\n                           ^");
    /* issue 36 item 2: the rest is checked, and the result says so */
    contains(r.out, "syntax_error.mel: 2 equations, 3 variables");
    contains(r.out, "3 errors");
    contains(r.err, "syntax_error.mel: 3 syntax errors; 3 statements left out");
    run_free(&r);
}

Test(cli, check_reports_a_variable_used_where_it_does_not_exist)
{
    run r = RUN("check", MODEL("bad_use.mel"));
    expect(&r, 1);
    contains(r.err, "bad_use.mel:17:21: error: ");
    run_free(&r);
}

Test(cli, check_json_lists_counts_and_diagnostics)
{
    run r = RUN("check", "--json", MODEL("syntax_error.mel"));
    expect(&r, 1);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "not JSON:\n%s", r.out);
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "ok")));
    cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "diagnostics");
    cr_assert_geq(cJSON_GetArraySize(d), 3);
    cJSON *start = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(d, 0), "range"), "start");
    cr_assert_eq(num(start, "line"), 12);
    cr_assert_eq(num(start, "col"), 27);
    cJSON_Delete(j);
    run_free(&r);
}

Test(cli, check_json_says_ok_with_the_counts_of_a_good_model)
{
    run r = RUN("check", "--json", MODEL("rldc2.mel"));
    expect(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "not JSON:\n%s", r.out);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "ok")));
    cJSON *counts = cJSON_GetObjectItemCaseSensitive(j, "counts");
    cr_assert_eq(num(counts, "equations"), 14);
    cr_assert_eq(num(counts, "incidences"), 38);
    cr_assert_eq(num(counts, "parameters"), 6);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "diagnostics")), 0);
    cJSON_Delete(j);
    run_free(&r);
}

/* The caret line copies tabs, so it lines up under the column in a
 * terminal whatever the tab width. */
Test(cli, caret_line_keeps_tabs_aligned)
{
    char path[] = "/tmp/mdae-cli-model-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    static const char text[] = "x : real;\n\te1 : equation x = (x;\n";
    cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    run r = RUN("check", path);
    unlink(path);
    expect(&r, 1);
    contains(r.err, ":2:22: error: ");
    contains(r.err, " \te1 : equation x = (x;\n \t                    ^\n");
    run_free(&r);
}

Test(cli, check_applies_integer_defines)
{
    run r = RUN("check", "-D", "N=3", MODEL("rldc_chain.mel"));
    expect(&r, 0);
    contains(r.out, "26 equations, 26 variables, 3 mode variables (8 modes)");
    run_free(&r);
    r = RUN("check", "-DN=5", MODEL("rldc_chain.mel"));
    expect(&r, 0);
    contains(r.out, "42 equations, 42 variables, 5 mode variables (32 modes)");
    run_free(&r);
    r = RUN("check", "--define=N=2", "--", MODEL("rldc_chain.mel"));
    expect(&r, 0);
    contains(r.out, "18 equations, 18 variables, 2 mode variables (4 modes)");
    run_free(&r);
}

/* ---- structure ----------------------------------------------------------------- */

Test(cli, structure_json_parses_with_the_counts_of_rldc2)
{
    run r = RUN("structure", MODEL("rldc2.mel"), "--json");
    expect(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "not JSON:\n%s", r.out);
    cJSON *counts = cJSON_GetObjectItemCaseSensitive(j, "counts");
    cr_assert_eq(num(counts, "equations"), 14);
    cr_assert_eq(num(counts, "variables"), 14);
    cr_assert_eq(num(counts, "modeVariables"), 2);
    cr_assert_eq(num(counts, "incidences"), 38);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "equations")), 14);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "variables")), 14);
    cJSON *modes = cJSON_GetObjectItemCaseSensitive(j, "modeVariables");
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                         cJSON_GetArrayItem(modes, 0), "name")),
                     "g1");
    /* Every equation lists its incidences; their total is the edge count. */
    int edges = 0;
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "equations"))
        edges += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(e, "incidences"));
    cr_assert_eq(edges, 38);
    cJSON_Delete(j);
    run_free(&r);
}

Test(cli, structure_text_lists_every_equation_with_its_incidences)
{
    run r = RUN("structure", MODEL("rldc2.mel"));
    expect(&r, 0);
    contains(r.out, "mode variables:\n  g1");
    contains(r.out, "\n  S1 ");
    contains(r.out, "order 1");
    run_free(&r);
}

/* ---- analyze ---------------------------------------------------------------------- */

Test(cli, analyze_json_finds_rldc2_nonsingular_in_its_4_valid_modes)
{
    run r = RUN("analyze", "--json", MODEL("rldc2.mel"));
    expect(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "not JSON:\n%s", r.out);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "status")),
                     "nonsingular");
    cr_assert(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "validModes")));
    cr_assert_eq(num(j, "validModes"), 4);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "modeVariables")), 2);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "equations")), 14);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "variables")), 14);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "diagnostics")), 0);
    cJSON *sing = cJSON_GetObjectItemCaseSensitive(j, "singular");
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sing, "guard")), "false");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sing, "cubes")), 0);
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "equations"))
        cr_assert_geq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(e, "offset")), 1);
    cJSON_Delete(j);
    run_free(&r);
}

Test(cli, analyze_json_names_the_parts_of_a_singular_model)
{
    run r = RUN("analyze", "--json", MODEL("singular_simple.mel"));
    expect(&r, 0); /* singular is a result, not an error */
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "not JSON:\n%s", r.out);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "status")),
                     "singular");
    cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "diagnostics");
    cr_assert_gt(cJSON_GetArraySize(d), 0);
    cJSON *first = cJSON_GetArrayItem(d, 0);
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(first, "kind"));
    cr_assert(strcmp(kind, "overdetermined") == 0 || strcmp(kind, "underdetermined") == 0);
    cr_assert(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(first, "cubes")));
    /* From the model's comments: e2 is overdetermined where it loses x. */
    bool e2_over = false;
    cJSON *dg;
    cJSON_ArrayForEach(dg, d) {
        const char *eq = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dg, "equation"));
        if (eq && strcmp(eq, "e2") == 0)
            e2_over = strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dg, "kind")),
                             "overdetermined") == 0;
    }
    cr_assert(e2_over);
    cJSON_Delete(j);
    run_free(&r);
}

Test(cli, analyze_text_gives_the_verdict_and_the_offsets)
{
    run r = RUN("analyze", MODEL("rldc2.mel"));
    expect(&r, 0);
    contains(r.out, "rldc2.mel: nonsingular\n");
    contains(r.out, "valid modes: 4 of 4");
    contains(r.out, "equation offsets (c)");
    contains(r.out, "variable offsets (d)");
    run_free(&r);
}

Test(cli, analyze_stops_with_exit_3_at_the_node_limit)
{
    run r = RUN("analyze", "--method", "implicit", "--node-limit", "1000", "-D", "N=8",
                MODEL("rldc_chain.mel"));
    expect(&r, 3);
    /* located at the component's first equation, naming the limit (issue 36) */
    contains(r.err, "rldc_chain.mel:");
    contains(r.err, ": error: the analysis exceeded 1000 BDD nodes on the ");
    contains(r.err, "(limit bdd.node_limit = 1000; raise it with --node-limit N or "
                    "bdd.node_limit in mdaed.json)");
    cr_expect_null(strstr(r.err, "rldc_chain.mel: error:"), "nothing unlocated:\n%s", r.err);
    run_free(&r);
}

/* The method changes how, never what (issue 10). */
static void same_json_by_every_method(const char *model, const char *define)
{
    run a = RUN("analyze", "--json", "--method", "auto", "-D", define, model);
    run b = RUN("analyze", "--json", "--method", "implicit", "-D", define, model);
    run c = RUN("analyze", "--json", "--method", "enumeration", "-D", define, model);
    expect(&a, 0);
    expect(&b, 0);
    expect(&c, 0);
    cr_expect_str_eq(a.out, b.out, "%s: auto vs implicit", model);
    cr_expect_str_eq(b.out, c.out, "%s: implicit vs enumeration", model);
    run_free(&a);
    run_free(&b);
    run_free(&c);
}

Test(cli, analyze_gives_the_same_json_by_every_method)
{
    same_json_by_every_method(MODEL("building_compressible.mel"), "N=2");
    same_json_by_every_method(MODEL("brake.mel"), "N=3");
    same_json_by_every_method(MODEL("rldc_chain.mel"), "N=4");
}

Test(cli, forced_enumeration_of_too_many_modes_is_a_stated_limit)
{
    run r = RUN("analyze", "--method", "enumeration", "-D", "N=20",
                MODEL("building_compressible.mel"));
    expect(&r, 1);
    contains(r.err, "enumeration of");
    contains(r.err, "past its limit");
    contains(r.err, "(limit SA_ENUM_MAX_MODES = 65536, fixed in the engine)");
    run_free(&r);
}

/* ---- usage, help, files ---------------------------------------------------------- */

Test(cli, help_and_version_exit_0)
{
    run r = RUN("--help");
    expect(&r, 0);
    contains(r.out, "usage: mdae COMMAND");
    contains(r.out, "exit status:");
    run_free(&r);
    r = RUN("--version");
    expect(&r, 0);
    cr_assert_str_eq(r.out, "mdae 0.1.0\n");
    run_free(&r);
    r = RUN("analyze", "--help");
    expect(&r, 0);
    contains(r.out, "usage: mdae analyze FILE");
    run_free(&r);
    r = RUN("help", "check");
    expect(&r, 0);
    contains(r.out, "usage: mdae check FILE");
    run_free(&r);
}

Test(cli, bad_usage_exits_2)
{
    static const char *const cases[][5] = {
        {"frobnicate", MODEL("rldc2.mel")},          /* unknown command */
        {"check"},                                   /* missing FILE */
        {"check", MODEL("rldc2.mel"), MODEL("rldc2.mel")}, /* two files */
        {"check", "--bogus", MODEL("rldc2.mel")},    /* unknown option */
        {"check", "-D", "N=2O", MODEL("rldc2.mel")}, /* malformed value */
        {"check", "-D", "=3", MODEL("rldc2.mel")},   /* missing name */
        {"check", "-D", "N", MODEL("rldc2.mel")},    /* missing '=' */
        {"check", "-D", "1N=3", MODEL("rldc2.mel")}, /* not an identifier */
        {"check", "-D", "N=99999999999999999999", MODEL("rldc2.mel")}, /* overflow */
        {"check", "-D", "N=1", "-D", "N=2"},         /* name twice */
        {"check", MODEL("rldc2.mel"), "-D"},         /* -D without value */
        {"analyze", "--node-limit", "lots", MODEL("rldc2.mel")},
        {"analyze", "--node-limit", "0", MODEL("rldc2.mel")},
        {"analyze", "--method", "magic", MODEL("rldc2.mel")},
        {"analyze", MODEL("rldc2.mel"), "--method"},
        {"check", "--method", "implicit", MODEL("rldc2.mel")}, /* not for check */
        {"structure", "--node-limit", "10", MODEL("rldc2.mel")}, /* not for structure */
        {"--json"},                                  /* option before command */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *args[6] = {0};
        memcpy(args, cases[i], sizeof cases[i]);
        run r = run_mdae_in(NULL, args);
        cr_expect_eq(r.code, 2, "case %zu (%s %s): exit %d\n%s", i, args[0],
                     args[1] ? args[1] : "", r.code, r.err);
        cr_expect_neq(r.err[0], '\0', "case %zu: no message", i);
        run_free(&r);
    }
    run r = run_mdae_in(NULL, (const char *const[]){NULL});
    expect(&r, 2);
    contains(r.err, "usage: mdae");
    run_free(&r);
}

Test(cli, unreadable_files_exit_4_with_a_clear_message)
{
    run r = RUN("check", MODEL("does_not_exist.mel"));
    expect(&r, 4);
    contains(r.err, "does_not_exist.mel': No such file or directory");
    run_free(&r);
    r = RUN("check", MDAE_SOURCE_DIR "/tests/models");
    expect(&r, 4);
    contains(r.err, "is a directory");
    run_free(&r);
    /* An endless device: the size cap, not memory, ends the read. */
    r = RUN("check", "/dev/zero");
    expect(&r, 4);
    contains(r.err, "file too large");
    run_free(&r);
}

/* issue 36 item 2: the analysis of the rest is that of the model without
 * the broken statement, and the JSON says what was left out */
Test(cli, analyze_goes_on_past_a_half_typed_line_with_the_analysis_of_the_rest)
{
    FILE *f = fopen(MODEL("rldc2.mel"), "rb");
    cr_assert_not_null(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 64, f);
    fclose(f);
    text[n] = '\0';
    strcat(text, "R9 : equation v1 = ");
    char path[] = "/tmp/mdae-half-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    run good = RUN("analyze", "--json", MODEL("rldc2.mel"));
    expect(&good, 0);
    run bad = RUN("analyze", "--json", path);
    expect(&bad, 1);
    contains(bad.err, ":61:20: error: expected an expression, found end of input");
    contains(bad.err, ": 1 syntax error; 1 statement left out, the result is of the rest");
    cJSON *g = cJSON_Parse(good.out), *b = cJSON_Parse(bad.out);
    cr_assert_not_null(b, "%s", bad.out);
    cJSON *lo = cJSON_DetachItemFromObject(b, "leftOut");
    cr_assert_eq(cJSON_GetArraySize(lo), 1);
    const cJSON *e = cJSON_GetArrayItem(lo, 0);
    cr_assert_eq(cJSON_GetObjectItem(e, "line")->valueint, 61);
    cr_assert_eq(cJSON_GetObjectItem(e, "col")->valueint, 1);
    cr_assert_eq(cJSON_GetObjectItem(e, "endLine")->valueint, 61);
    cr_assert_str_eq(cJSON_GetObjectItem(e, "message")->valuestring,
                     "expected an expression, found end of input");
    cJSON_Delete(lo);
    cJSON_Delete(cJSON_DetachItemFromObject(b, "syntaxErrors"));
    cr_assert(cJSON_Compare(g, b, true), "the rest analyses as the model without the line");
    cJSON_Delete(g);
    cJSON_Delete(b);
    run_free(&good);
    run_free(&bad);
    run txt = RUN("analyze", path);
    expect(&txt, 1);
    contains(txt.out, ": nonsingular");
    run_free(&txt);
    unlink(path);
}

/* ---- convert (issue 38) ---------------------------------------------------------- */
Test(cli, convert_prints_the_equations_as_mel_and_as_modelica)
{
    run r = RUN("convert", MODEL("clutch.mel"), "--to", "mel");
    expect(&r, 0);
    contains(r.out, "\ngamma : boolean = time >= t1 & time <= t2;\n");
    contains(r.out, "  if gamma then\n    e3 : equation w1 - w2 = 0;\n");
    run_free(&r);
    r = RUN("convert", MODEL("clutch.mel"), "--to", "modelica");
    expect(&r, 0);
    contains(r.out, "\nmodel clutch\n");
    contains(r.out, "  parameter Real 'time' = 0.0;\n");
    contains(r.out, "  gamma = 'time' >= t1 and 'time' <= t2;\n");
    contains(r.out, "  else\n    /* e5: */ tau1 = 0;\n");
    contains(r.out, "\nend clutch;\n");
    run_free(&r);
    r = RUN("convert", MODEL("clutch.mel"), "--to", "c");
    expect(&r, 2);
    contains(r.err, "option '--to' needs 'mel' or 'modelica'");
    run_free(&r);
}

/* ---- issue 42: what a user meets in a shell ----------------------------------- */

/* A model text in a new temporary file; its path in path (unlink it). */
static void temp_model(char *path, size_t size, const char *text)
{
    snprintf(path, size, "/tmp/mdae-cli-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

Test(cli, analyze_json_prints_the_verdict_of_a_model_it_cannot_analyse)
{
    run r = RUN("analyze", "--json", MODEL("bad_use.mel"));
    expect(&r, 1);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "JSON on stdout, as check --json: %s", r.out);
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(j, "ok")));
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "status")), "error");
    cr_assert_gt(cJSON_GetArraySize(cJSON_GetObjectItem(j, "diagnostics")), 0);
    cJSON_Delete(j);
    run_free(&r);
    r = RUN("analyze", "--json", "--node-limit", "100", "-D", "N=10", MODEL("brake.mel"));
    expect(&r, 3);
    j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "JSON on stdout past the node limit: %s", r.out);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "status")), "limit");
    cJSON_Delete(j);
    run_free(&r);
}

Test(cli, a_binary_file_is_one_clear_error)
{
    run r = RUN("check", MDAE); /* the mdae executable itself */
    expect(&r, 1);
    contains(r.err, "is not a model: a binary file");
    contains(r.err, "docs/languages.md");
    cr_assert_lt(strlen(r.err), 300, "one line, not the file's bytes: %zu bytes", strlen(r.err));
    run_free(&r);
}

Test(cli, modelica_on_standard_input_is_read_as_modelica)
{
    run r = RUN_IN(MODEL("clutch_basic.mo"), "check", "-");
    expect(&r, 0);
    contains(r.out, "ok: no errors");
    run_free(&r);
    r = RUN_IN(MODEL("clutch_basic.mo"), "check", "--format", "mel", "-");
    expect(&r, 1); /* --format still decides */
    run_free(&r);
}

Test(cli, convert_with_a_server_refuses_instead_of_running_locally)
{
    run r = RUN("--server", "unix:/nonexistent/mdaed.sock", "convert", MODEL("clutch.mel"),
                "--to", "modelica");
    expect(&r, 2);
    contains(r.err, "not available with --server");
    cr_assert_str_eq(r.out, "", "nothing printed as if the server had answered");
    run_free(&r);
}

Test(cli, colours_diagnostics_on_request_only)
{
    run r = RUN("check", "--color=always", MODEL("syntax_error.mel"));
    expect(&r, 1);
    contains(r.err, "\033[1;31merror:\033[0m");
    run_free(&r);
    r = RUN("check", MODEL("syntax_error.mel")); /* auto: stderr is a file */
    cr_assert_null(strstr(r.err, "\033["), "no colour into a file: %s", r.err);
    run_free(&r);
    r = RUN("check", "--color=never", MODEL("syntax_error.mel"));
    cr_assert_null(strstr(r.err, "\033["));
    run_free(&r);
    r = RUN("check", "--color=sometimes", MODEL("syntax_error.mel"));
    expect(&r, 2);
    run_free(&r);
    r = RUN("--color=always", "check", MODEL("syntax_error.mel")); /* before the command too */
    expect(&r, 1);
    contains(r.err, "\033[1;31merror:\033[0m");
    run_free(&r);
    r = RUN("--color=always", "check", "--color=never", MODEL("syntax_error.mel"));
    cr_assert_null(strstr(r.err, "\033["), "the command's own --color wins");
    run_free(&r);
}

Test(cli, caret_counts_two_cells_for_a_wide_character)
{
    char path[64];
    temp_model(path, sizeof path,
               "x : real;\ny : real;\ne : equation x = \"\xe6\xbc\xa2\xe5\xad\x97\" + ;\n"
               "f : equation y = 1;\n");
    run r = RUN("check", path);
    unlink(path);
    expect(&r, 1);
    /* 漢字 takes four cells on a terminal: the caret is under the ';' */
    contains(r.err, " e : equation x = \"\xe6\xbc\xa2\xe5\xad\x97\" + ;\n"
                    "                           ^\n");
    run_free(&r);
}

/* issue 42: each error and limit message points to the page that explains it */
Test(cli, errors_and_limits_point_to_their_docs_page)
{
    run r = RUN("analyze", "--node-limit", "100", "-D", "N=10", MODEL("brake.mel"));
    expect(&r, 3);
    contains(r.err, "see docs/limits.md");
    run_free(&r);
    r = RUN("analyze", MODEL("bad_use.mel"));
    expect(&r, 1);
    contains(r.err, "bad_use.mel: 1 error (see docs/languages.md)");
    run_free(&r);
    r = RUN("mode", MODEL("rldc2.mel"), "--mode", "zz=1");
    expect(&r, 2);
    contains(r.err, "(see docs/analysis.md)");
    run_free(&r);
    r = RUN("modechange", MODEL("clutch.mel"), "--from", "zz=1", "--to", "gamma=1");
    expect(&r, 2);
    contains(r.err, "(see docs/mode_changes.md)");
    run_free(&r);
    r = RUN("--server", "unix:/nonexistent/mdaed.sock", "check", MODEL("clutch.mel"));
    expect(&r, 4);
    contains(r.err, "(see docs/operations.md)");
    run_free(&r);
}

/* issue 42: a negated relation atom prints in parentheses, in the analysis's
 * guards and in the graph's labels */
Test(cli, negated_relation_atoms_print_in_parentheses)
{
    run r = RUN("analyze", "--json", MODEL("bm_modes.bmo"));
    expect(&r, 0);
    contains(r.out, "\"guard\":\"!(gear == 2)");
    cr_assert_null(strstr(r.out, "!gear =="), "no '!gear == 2'");
    run_free(&r);
    r = RUN("analyze", "--dot", MODEL("bm_modes.bmo"));
    expect(&r, 0);
    contains(r.out, "!(gear == 2)");
    cr_assert_null(strstr(r.out, "!gear =="), "no '!gear == 2' in the labels");
    run_free(&r);
}

/* Run mdae with stderr on a new pseudo-terminal (stdout to /dev/null) and
 * the environment envp; what it wrote there, NUL-terminated (free it). */
static char *run_on_a_terminal(char *const *envp, const char *const *args)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    cr_assert_geq(master, 0);
    cr_assert_eq(grantpt(master), 0);
    cr_assert_eq(unlockpt(master), 0);
    const char *slave_name = ptsname(master);
    cr_assert_not_null(slave_name);
    const char *argv[16] = {MDAE};
    size_t n = 1;
    for (; args[n - 1] != NULL; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, slave_name, O_RDWR | O_NOCTTY, 0);
    pid_t pid;
    cr_assert_eq(posix_spawn(&pid, MDAE, &fa, NULL, (char *const *)argv, envp), 0);
    posix_spawn_file_actions_destroy(&fa);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    cr_assert_not_null(buf);
    int fl = fcntl(master, F_GETFL);
    fcntl(master, F_SETFL, fl | O_NONBLOCK);
    for (;;) { /* the child is gone: what it wrote is buffered in the pty */
        ssize_t r = read(master, buf + len, cap - 1 - len);
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    buf[len] = '\0';
    close(master);
    return buf;
}

/* issue 42: on a terminal, colour by default; NO_COLOR (and TERM=dumb)
 * turn it off, --color=always back on */
Test(cli, colours_a_terminal_unless_no_color_is_set)
{
    const char *args[] = {"check", MODEL("syntax_error.mel"), NULL};
    char *plain_env[] = {"PATH=/usr/bin:/bin", "TERM=xterm", NULL};
    char *out = run_on_a_terminal(plain_env, args);
    contains(out, "\033[1;31merror:");
    free(out);
    char *no_color[] = {"PATH=/usr/bin:/bin", "TERM=xterm", "NO_COLOR=1", NULL};
    out = run_on_a_terminal(no_color, args);
    contains(out, "error: expected ')'");
    cr_assert_null(strstr(out, "\033["), "NO_COLOR: no colour:\n%s", out);
    free(out);
    char *dumb[] = {"PATH=/usr/bin:/bin", "TERM=dumb", NULL};
    out = run_on_a_terminal(dumb, args);
    cr_assert_null(strstr(out, "\033["), "TERM=dumb: no colour:\n%s", out);
    free(out);
    const char *always[] = {"check", "--color=always", MODEL("syntax_error.mel"), NULL};
    out = run_on_a_terminal(no_color, always);
    contains(out, "\033[1;31merror:");
    free(out);
}

/* An algorithm section is not kept (docs/convert.md): convert says so on
 * stderr, at the section, and at the top of the printed model. */
Test(cli, convert_says_an_algorithm_section_is_not_kept)
{
    char path[512]; /* a .mo name: the language is told by it */
    snprintf(path, sizeof path, "%s/cli_alg_%ld.mo", MDAE_BINARY_DIR, (long)getpid());
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fputs("model Alg\n  Real x;\n  Real y;\nequation\n  der(x) = -y;\n"
          "algorithm\n  y := 2*x;\nend Alg;\n", f);
    cr_assert_eq(fclose(f), 0);
    for (int k = 0; k < 2; k++) {
        run r = RUN("convert", path, "--to", k ? "modelica" : "mel");
        expect(&r, 0);
        contains(r.err, ":6:1: warning: an algorithm section is not kept");
        contains(r.out, "(mdae convert)\n// warning: an algorithm section is not kept");
        run_free(&r);
    }
    run r = RUN("convert", MODEL("clutch.mel"), "--to", "mel");
    cr_assert_null(strstr(r.err, "algorithm"), "%s", r.err);
    run_free(&r);
    unlink(path);
}

/* A model singular in every mode says so in words, not "in: true" and
 * "when true" (issue 42's words). */
Test(cli, singular_in_every_mode_is_said_in_words)
{
    char path[64];
    temp_model(path, sizeof path,
               "x : real;\ny : real;\ne1 : equation der(x) = y;\ne2 : equation x = y;\n"
               "e3 : equation y = 1;\n");
    run r = RUN("analyze", path);
    expect(&r, 0);
    contains(r.out, "structurally singular in every mode\n");
    contains(r.out, "overdetermined  equation e1  in every mode\n");
    cr_assert_null(strstr(r.out, "when true"), "%s", r.out);
    run_free(&r);
    unlink(path);
}

/* ---- analyze --families (issue 40 item 4) ------------------------------------ */

Test(cli, analyze_families_prints_each_family_once_with_its_modes)
{
    run r = RUN("analyze", "--families", "-D", "N=3", MODEL("rldc_parallel.mel"));
    expect(&r, 0);
    contains(r.out, "block families (26, standing for 54 blocks)");
    contains(r.out, "family edges (58)");
    cr_assert(strstr(r.out, "\nblocks (") == NULL, "no block list:\n%s", r.out);
    contains(r.out, "C[1], KV[2]', KN[2]' when g[1] & g[2] | g[1] & g[3]");
    run_free(&r);
    r = RUN("analyze", "--families", "--json", "-D", "N=3", MODEL("rldc_parallel.mel"));
    expect(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "%s", r.out);
    cr_assert_eq(num(j, "blockCount"), 54);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "blockCountExact")), "54");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "families")), 26);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "familyEdges")), 58);
    cr_assert_null(cJSON_GetObjectItem(j, "blocks"));
    double variants = 0;
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(j, "families")) variants += num(f, "variants");
    cr_assert_eq(variants, 54, "every block is one family's variant");
    cJSON_Delete(j);
    run_free(&r);
    r = RUN("analyze", "--families", "--dot", MODEL("rldc2.mel"));
    expect(&r, 2);
    contains(r.err, "--dot and --families exclude each other");
    run_free(&r);
}
