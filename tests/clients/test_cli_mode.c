/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/clients/test_cli_mode.c -- the issue 4 and 5 side of the `mdae`
 * executable: analyze with blocks and edges (text, JSON, DOT), `mdae mode`
 * (JSON, text, invalid and singular modes, bad mode names), and
 * `mdae --server ADDRESS ...` against a real mdaed started on an ephemeral
 * loopback port and a Unix socket.
 *
 * The binaries are spawned with stdout and stderr redirected to temporary
 * files (never pipes: no deadlock on large outputs); every wait on the
 * server is bounded.
 */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_test.h"
#include "mdaed_proc.h"

#define MDAED MDAED_PROC_EXE

static run run_env(char *const *envp, const char *const *args)
{
    return cli_run(NULL, envp, args);
}

static run run_args(const char *const *args) { return run_env(environ, args); }

#define RUN(...) run_args((const char *const[]){__VA_ARGS__, NULL})

static const cJSON *item(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static const char *str(const cJSON *o, const char *k) { return cJSON_GetStringValue(item(o, k)); }

static cJSON *parse_out(const run *r)
{
    cJSON *j = cJSON_Parse(r->out);
    cr_assert_not_null(j, "not JSON:\n%s", r->out);
    return j;
}

/* Number of occurrences of needle in hay. */
static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* ---- analyze: blocks, edges, DOT ------------------------------------------------- */

Test(cli_mode, analyze_json_lists_the_blocks_and_edges_of_the_water_tank)
{
    run r = RUN("analyze", "--json", MODEL("water_tank.mel"));
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    const cJSON *blocks = item(j, "blocks"), *edges = item(j, "edges");
    cr_assert_gt(cJSON_GetArraySize(blocks), 0);
    cr_assert_gt(cJSON_GetArraySize(edges), 0);
    bool el2_diff = false;
    const cJSON *b;
    cJSON_ArrayForEach(b, blocks) {
        const cJSON *e0 = cJSON_GetArrayItem(item(b, "equations"), 0);
        const cJSON *u0 = cJSON_GetArrayItem(item(b, "unknowns"), 0);
        cr_assert(cJSON_IsNumber(item(b, "id")));
        cr_assert(cJSON_IsArray(item(b, "cubes")));
        cr_assert(cJSON_IsArray(item(b, "reads")));
        if (strcmp(str(e0, "name"), "el2") == 0 && cJSON_GetNumberValue(item(e0, "order")) == 1) {
            cr_assert_str_eq(str(u0, "name"), "x");
            cr_assert_eq(cJSON_GetNumberValue(item(u0, "order")), 1);
            cr_assert_str_eq(str(b, "guard"), "bl"); /* bh & bl is invalid: a don't-care */
            el2_diff = true;
        }
    }
    cr_assert(el2_diff, "no block el2' -> x'");
    const cJSON *e;
    cJSON_ArrayForEach(e, edges) {
        cr_assert(cJSON_IsNumber(item(e, "from")) && cJSON_IsNumber(item(e, "to")));
        cr_assert_not_null(str(e, "guard"));
    }
    cJSON_Delete(j);
    run_free(&r);
}

Test(cli_mode, analyze_text_lists_blocks_with_their_guards_and_the_edges)
{
    run r = RUN("analyze", MODEL("rldc2.mel"));
    expect(&r, 0);
    contains(r.out, "rldc2.mel: nonsingular\n");
    contains(r.out, "\nblocks (26)");
    contains(r.out, "K1, K3', C1, C2 \u2192 i1, i2, v1', v2'   reads j1, j2, u1', u2'   when g1 & g2\n");
    contains(r.out, "\nedges (30)");
    contains(r.out, "  b21 \u2192 b2   when g1 & g2\n");
    run_free(&r);
}

/* Issue 38: a differentiated equation's body under its block, in the
 * model's language, from the JSON's "body" (rpc_json_add_bodies). */
Test(cli_mode, analyze_prints_the_bodies_of_differentiated_equations)
{
    run r = RUN("analyze", MODEL("water_tank.mel"));
    expect(&r, 0);
    contains(r.out, "  b12  el2' \u2192 x'   when bl\n"
                    "        el2' :  0 = if bl then -der(x) else der(yl)\n");
    contains(r.out, "        eh2' :  0 = if bh then der(x) else der(yh)\n");
    cr_assert_eq(count(r.out, " :  "), 2, "only the differentiated equations:\n%s", r.out);
    run_free(&r);
    r = RUN("analyze", "--json", MODEL("water_tank.mel"));
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    int bodies = 0;
    const cJSON *b, *e;
    cJSON_ArrayForEach(b, item(j, "blocks")) cJSON_ArrayForEach(e, item(b, "equations"))
        bodies += str(e, "body") != NULL;
    cr_assert_eq(bodies, 2);
    cJSON_Delete(j);
    run_free(&r);
    r = RUN("mode", "--mode", "bl=1", MODEL("water_tank.mel"));
    expect(&r, 0);
    contains(r.out, "        el2' :  0 = if bl then -der(x) else der(yl)\n");
    run_free(&r);
}

Test(cli_mode, dot_starts_with_digraph_and_has_one_vertex_per_block)
{
    static const char *const models[] = {MODEL("rldc2.mel"), MODEL("water_tank.mel")};
    for (size_t k = 0; k < 2; k++) {
        run j = RUN("analyze", "--json", models[k]);
        expect(&j, 0);
        cJSON *a = parse_out(&j);
        int nb = cJSON_GetArraySize(item(a, "blocks"));
        int ne = cJSON_GetArraySize(item(a, "edges"));
        cJSON_Delete(a);
        run_free(&j);
        run r = RUN("analyze", "--dot", models[k]);
        expect(&r, 0);
        cr_assert_eq(strncmp(r.out, "digraph", 7), 0, "%s", r.out);
        cr_assert_eq(count(r.out, " [label="), nb + ne, "%d blocks, %d edges:\n%s", nb, ne,
                     r.out);
        cr_assert_eq(count(r.out, " -> "), ne);
        char last[32];
        snprintf(last, sizeof last, "  b%d [label=", nb - 1);
        contains(r.out, last);
        run_free(&r);
    }
}

Test(cli_mode, dot_goes_to_the_file_given_with_dot_equals)
{
    char path[] = "/tmp/mdae-dot-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    char opt[64];
    snprintf(opt, sizeof opt, "--dot=%s", path);
    run r = RUN("analyze", opt, MODEL("water_tank.mel"));
    expect(&r, 0);
    cr_assert_str_eq(r.out, "");
    FILE *f = fopen(path, "r");
    char head[16] = "";
    cr_assert_not_null(fgets(head, sizeof head, f));
    fclose(f);
    unlink(path);
    cr_assert_eq(strncmp(head, "digraph", 7), 0);
    run_free(&r);
    r = RUN("analyze", "--dot=/nonexistent-dir/x.dot", MODEL("water_tank.mel"));
    expect(&r, 4);
    contains(r.err, "cannot write '/nonexistent-dir/x.dot'");
    run_free(&r);
}

/* ---- mode ---------------------------------------------------------------------------- */

static double offset_of(const cJSON *items, const char *name)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, items)
        if (strcmp(str(it, "name"), name) == 0)
            return cJSON_IsNull(item(it, "offset")) ? -1
                                                    : cJSON_GetNumberValue(item(it, "offset"));
    cr_assert_fail("no item %s", name);
    return -2;
}

Test(cli_mode, mode_json_of_rldc2_with_both_diodes_passing_has_the_offsets_of_fig6)
{
    run r = RUN("mode", MODEL("rldc2.mel"), "--mode", "g1=1,g2=true", "--json");
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    cr_assert(cJSON_IsTrue(item(item(j, "mode"), "g1")));
    cr_assert(cJSON_IsTrue(item(item(j, "mode"), "g2")));
    cr_assert(cJSON_IsTrue(item(j, "valid")));
    cr_assert(cJSON_IsFalse(item(j, "singular")));
    const cJSON *eqs = item(j, "equations");
    cr_assert_eq(cJSON_GetArraySize(eqs), 14);
    const cJSON *e;
    cJSON_ArrayForEach(e, eqs) {
        const char *nm = str(e, "name");
        bool one = strcmp(nm, "K3") == 0 || strcmp(nm, "Z1") == 0 || strcmp(nm, "Z2") == 0;
        cr_assert_eq(cJSON_GetNumberValue(item(e, "offset")), one ? 1 : 0, "c(%s)", nm);
    }
    cr_assert_eq(offset_of(item(j, "variables"), "v1"), 1);
    const cJSON *blocks = item(j, "blocks");
    cr_assert_eq(cJSON_GetArraySize(blocks), 11);
    const cJSON *pair;
    cJSON_ArrayForEach(pair, item(j, "edges")) {
        double f = cJSON_GetNumberValue(cJSON_GetArrayItem(pair, 0));
        double t = cJSON_GetNumberValue(cJSON_GetArrayItem(pair, 1));
        cr_assert(f < t, "edges are positions in the solving order");
    }
    cJSON_Delete(j);
    run_free(&r);
}

Test(cli_mode, mode_text_prints_the_block_triangular_form_in_solving_order)
{
    run r = RUN("mode", "--mode", "g1=1,g2=1", MODEL("rldc2.mel"));
    expect(&r, 0);
    contains(r.out, "rldc2.mel: mode g1=1,g2=1: valid, nonsingular\n");
    contains(r.out, "block triangular form, in solving order (11 blocks");
    contains(r.out, ". K1, K3', C1, C2 \u2192 i1, i2, v1', v2'   reads j1, j2, u1', u2'   [b2]\n");
    contains(r.out, "edges (by position above): 0 \u2192 1,");
    contains(r.out, "equation offsets (c): K1 0, K2 0, K3 1,");
    /* Z1' solves u1' before the big block reads it. */
    const char *z1 = strstr(r.out, "Z1' \u2192 u1'"), *big = strstr(r.out, "K1, K3'");
    cr_assert(z1 != NULL && big != NULL && z1 < big);
    run_free(&r);
}

Test(cli_mode, unlisted_mode_variables_are_false)
{
    run r = RUN("mode", "--mode", "g1=1", "--json", MODEL("rldc2.mel"));
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    cr_assert(cJSON_IsTrue(item(item(j, "mode"), "g1")));
    cr_assert(cJSON_IsFalse(item(item(j, "mode"), "g2")));
    cJSON_Delete(j);
    run_free(&r);
}

Test(cli_mode, a_mode_excluded_by_an_invariant_is_reported_invalid)
{
    run r = RUN("mode", "--mode", "bh=1,bl=1", "--json", MODEL("water_tank.mel"));
    expect(&r, 0);
    cJSON *j = parse_out(&r);
    cr_assert(cJSON_IsFalse(item(j, "valid")));
    cr_assert_eq(cJSON_GetArraySize(item(j, "blocks")), 0);
    cr_assert_eq(offset_of(item(j, "equations"), "el2"), -1);
    cJSON_Delete(j);
    run_free(&r);
    r = RUN("mode", "--mode", "bh=1,bl=1", MODEL("water_tank.mel"));
    expect(&r, 0);
    contains(r.out, "water_tank.mel: mode bh=1,bl=1: invalid");
    run_free(&r);
    /* The full tank: eh2 differentiated for x', e2 gives yh. */
    r = RUN("mode", "--mode", "bh=1", MODEL("water_tank.mel"));
    expect(&r, 0);
    contains(r.out, ". eh2' \u2192 x'");
    contains(r.out, ". e2 \u2192 yh");
    run_free(&r);
}

Test(cli_mode, a_singular_mode_names_its_over_and_underdetermined_parts)
{
    run r = RUN("mode", "--mode", "", MODEL("singular_simple.mel"));
    expect(&r, 0);
    contains(r.out, "structurally singular\n");
    contains(r.out, "overdetermined equations: e2\n");
    contains(r.out, "underdetermined variables: ");
    run_free(&r);
}

Test(cli_mode, bad_modes_are_usage_errors_that_name_the_culprit)
{
    run r = RUN("mode", "--mode", "g1=1,g3=0", MODEL("rldc2.mel"));
    expect(&r, 2);
    contains(r.err, "unknown mode variable 'g3'");
    contains(r.err, "mode variables of ");
    cr_assert_str_eq(r.out, "");
    run_free(&r);
    static const char *const specs[] = {"g1", "g1=2", "g1=1,g1=0", "g1=1,,g2=1", "g1=maybe"};
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        r = RUN("mode", "--mode", specs[k], MODEL("rldc2.mel"));
        cr_expect_eq(r.code, 2, "--mode '%s': exit %d\n%s", specs[k], r.code, r.err);
        contains(r.err, "invalid --mode");
        run_free(&r);
    }
    r = RUN("mode", MODEL("rldc2.mel"));
    expect(&r, 2);
    contains(r.err, "missing --mode");
    run_free(&r);
    r = RUN("mode", "--mode", "g1=1", "--mode", "g2=1", MODEL("rldc2.mel"));
    expect(&r, 2);
    run_free(&r);
    r = RUN("analyze", "--dot", "--json", MODEL("rldc2.mel"));
    expect(&r, 2);
    run_free(&r);
    r = RUN("check", "--dot", MODEL("rldc2.mel"));
    expect(&r, 2);
    run_free(&r);
}

Test(cli_mode, model_errors_exit_1_before_any_mode_work)
{
    run r = RUN("mode", "--mode", "g=1", MODEL("syntax_error.mel"));
    expect(&r, 1);
    contains(r.err, "syntax_error.mel:12:27: error: ");
    run_free(&r);
}

/* ---- --server ---------------------------------------------------------------------- */

/* mdaed on 127.0.0.1:0 and a Unix socket in a temporary directory
 * (tests/support/mdaed_proc.h), with the addresses the CLI takes. */
typedef struct server {
    mdaed_proc p;
    pid_t pid;
    char tcp[64];
    char unix_addr[128];
} server;

/* `extra` adds top-level configuration members (", \"bdd\": {...}") or is "". */
static void server_start_with(server *s, const char *extra)
{
    memset(s, 0, sizeof *s);
    mdaed_prepare(&s->p, "mdae-cli-srv");
    char conf[4096];
    cr_assert_lt(snprintf(conf, sizeof conf,
                           "{\"listen\": {\"tcp\": \"127.0.0.1:0\", \"unix\": \"%s\"},\n"
                           " \"web_root\": \"%s/clients/web\", \"log_level\": \"error\",\n"
                           " \"state_dir\": \"none\"%s}\n",
                           s->p.sock, MDAE_SOURCE_DIR, extra),
                 (int)sizeof conf);
    mdaed_start(&s->p, conf, true);
    s->pid = s->p.pid;
    snprintf(s->unix_addr, sizeof s->unix_addr, "unix:%s", s->p.sock);
    snprintf(s->tcp, sizeof s->tcp, "tcp://127.0.0.1:%d", s->p.port);
}

static void server_start(server *s) { server_start_with(s, ""); }

static void server_stop(server *s) { mdaed_stop(&s->p); }

/* The server's answer has exactly the embedded engine's members, each equal. */
static void same_members(const cJSON *remote, const cJSON *local)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, local) {
        const cJSON *r = item(remote, m->string);
        cr_assert_not_null(r, "the server's answer lacks \"%s\"", m->string);
        cr_assert(cJSON_Compare(r, m, true), "\"%s\" differs", m->string);
    }
    cJSON_ArrayForEach(m, remote)
        cr_assert_not_null(item(local, m->string), "the server added \"%s\"", m->string);
}

Test(cli_mode, server_analyze_json_matches_the_embedded_engine_over_tcp_and_unix)
{
    server s;
    server_start(&s);
    run loc = RUN("analyze", "--json", "-D", "N=3", MODEL("rldc_chain.mel"));
    expect(&loc, 0);
    cJSON *l = parse_out(&loc);
    const char *addrs[] = {s.tcp, s.unix_addr};
    for (int k = 0; k < 2; k++) {
        run rem = RUN("--server", addrs[k], "analyze", "--json", "-D", "N=3",
                      MODEL("rldc_chain.mel"));
        expect(&rem, 0);
        cJSON *r = parse_out(&rem);
        same_members(r, l);
        cJSON_Delete(r);
        run_free(&rem);
    }
    cJSON_Delete(l);
    run_free(&loc);
    server_stop(&s);
}

Test(cli_mode, server_analyze_text_matches_the_embedded_engine)
{
    server s;
    server_start(&s);
    run loc = RUN("analyze", MODEL("water_tank.mel"));
    run rem = RUN("--server", s.tcp, "analyze", MODEL("water_tank.mel"));
    expect(&loc, 0);
    expect(&rem, 0);
    cr_assert_str_eq(rem.out, loc.out);
    contains(rem.out, "        el2' :  0 = if bl then -der(x) else der(yl)\n"); /* issue 38 */
    run_free(&loc);
    run_free(&rem);
    server_stop(&s);
}

/* Issue 37: mdaed takes UTF-8 only; the CLI says where a file is not,
 * in the file, before it sends anything. */
Test(cli_mode, server_refuses_a_file_that_is_not_utf8_at_its_line_and_column)
{
    char path[] = "/tmp/mdae-cli-latin1-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    static const char text[] = "x : real;\n// caf\xe9\ne : equation 1 = der(x);\n";
    cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    server s;
    server_start(&s);
    run rem = RUN("--server", s.tcp, "check", path);
    expect(&rem, 1);
    char want[128];
    snprintf(want, sizeof want, "%s:2:7: error: the file is not UTF-8 (byte 0xE9)", path);
    cr_assert(strstr(rem.err, want) != NULL, "%s", rem.err);
    run_free(&rem);
    server_stop(&s);
    unlink(path);
}

Test(cli_mode, server_reports_model_errors_like_the_embedded_engine)
{
    server s;
    server_start(&s);
    run loc = RUN("analyze", MODEL("syntax_error.mel"));
    run rem = RUN("--server", s.tcp, "analyze", MODEL("syntax_error.mel"));
    expect(&loc, 1);
    expect(&rem, 1);
    cr_assert_str_eq(rem.err, loc.err);
    /* issue 36 item 2: the rest is analysed, the same way on both sides */
    cr_assert_str_eq(rem.out, loc.out);
    cr_assert(strstr(loc.out, "syntax_error.mel: singular") != NULL, "%s", loc.out);
    cr_assert(strstr(loc.err, "3 syntax errors; 3 statements left out") != NULL, "%s", loc.err);
    run_free(&loc);
    run_free(&rem);
    loc = RUN("analyze", "--json", MODEL("syntax_error.mel"));
    rem = RUN("--server", s.tcp, "analyze", "--json", MODEL("syntax_error.mel"));
    expect(&loc, 1);
    expect(&rem, 1);
    cr_assert_str_eq(rem.out, loc.out);
    cJSON *j = cJSON_Parse(loc.out);
    cJSON *lo = cJSON_GetObjectItemCaseSensitive(j, "leftOut");
    cr_assert_eq(cJSON_GetArraySize(lo), 3, "%s", loc.out);
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(lo, 0), "line")->valueint, 12);
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(j, "syntaxErrors")->valueint, 3);
    cJSON_Delete(j);
    run_free(&loc);
    run_free(&rem);
    server_stop(&s);
}

Test(cli_mode, server_mode_and_dot_match_the_embedded_engine_or_fail_loudly)
{
    server s;
    server_start(&s);
    run loc = RUN("mode", "--mode", "g1=1,g2=1", "--json", MODEL("rldc2.mel"));
    run rem = RUN("--server", s.tcp, "mode", "--mode", "g1=1,g2=1", "--json", MODEL("rldc2.mel"));
    expect(&loc, 0);
    if (rem.code == 4) {
        /* A server without session/mode: said, with the server's words. */
        contains(rem.err, "cannot answer session/mode");
        cr_assert_str_eq(rem.out, "");
        cr_log_warn("the server does not implement session/mode yet: %s", rem.err);
    } else {
        expect(&rem, 0);
        cJSON *l = parse_out(&loc), *r = parse_out(&rem);
        cr_assert(cJSON_Compare(l, r, true), "local:\n%s\nremote:\n%s", loc.out, rem.out);
        cJSON_Delete(l);
        cJSON_Delete(r);
        run_free(&loc);
        run_free(&rem);
        /* The text, and an invalid mode, and a name the model lacks. */
        static const char *const cases[][2] = {{MODEL("rldc2.mel"), "g1=1,g2=1"},
                                               {MODEL("water_tank.mel"), "bh=1,bl=1"},
                                               {MODEL("singular_simple.mel"), "h=1"}};
        for (size_t k = 0; k < 3; k++) {
            loc = RUN("mode", "--mode", cases[k][1], cases[k][0]);
            rem = RUN("--server", s.unix_addr, "mode", "--mode", cases[k][1], cases[k][0]);
            expect(&rem, 0);
            cr_assert_str_eq(rem.out, loc.out);
            run_free(&loc);
            run_free(&rem);
        }
        loc = (run){0, NULL, NULL}; /* freed below, like rem */
        rem = RUN("--server", s.tcp, "mode", "--mode", "g1=1,g7=0", MODEL("rldc2.mel"));
        expect(&rem, 2);
        contains(rem.err, "'g7'");
    }
    run_free(&loc);
    run_free(&rem);
    loc = RUN("analyze", "--dot", MODEL("rldc2.mel"));
    rem = RUN("--server", s.unix_addr, "analyze", "--dot", MODEL("rldc2.mel"));
    expect(&loc, 0);
    if (rem.code == 4) {
        contains(rem.err, "cannot answer session/dot");
        cr_log_warn("the server does not implement session/dot yet: %s", rem.err);
    } else {
        expect(&rem, 0);
        cr_assert_str_eq(rem.out, loc.out);
    }
    run_free(&loc);
    run_free(&rem);
    server_stop(&s);
}

/* --svg (issue 14): the graph of --dot laid out by Graphviz, one SVG group
 * per block and per edge; the server (session/svg) draws the same bytes. */
Test(cli_mode, svg_draws_the_dot_graph_here_and_through_the_server)
{
    /* Under ASan, Graphviz's and fontconfig's process-long caches would be
     * reported as leaks when the CLI exits (the file says why). */
    setenv("LSAN_OPTIONS", "suppressions=" MDAE_SOURCE_DIR "/tests/support/lsan_graphviz.supp", 1);
    run d = RUN("analyze", "--dot", MODEL("rldc2.mel"));
    expect(&d, 0);
    int nb = count(d.out, " [label=") - count(d.out, " -> ");
    int ne = count(d.out, " -> ");
    run_free(&d);
    run loc = RUN("analyze", "--svg", MODEL("rldc2.mel"));
    expect(&loc, 0);
    contains(loc.out, "<svg");
    cr_assert_eq(count(loc.out, "class=\"node\""), nb, "%d blocks", nb);
    cr_assert_eq(count(loc.out, "class=\"edge\""), ne, "%d edges", ne);
    contains(loc.out, "<title>b0</title>");
    server s;
    server_start(&s);
    run rem = RUN("--server", s.unix_addr, "analyze", "--svg", MODEL("rldc2.mel"));
    expect(&rem, 0);
    cr_assert_str_eq(rem.out, loc.out);
    run_free(&rem);
    server_stop(&s);
    run_free(&loc);
    run bad = RUN("analyze", "--svg", "--dot", MODEL("rldc2.mel"));
    expect(&bad, 2);
    contains(bad.err, "--dot and --svg exclude each other");
    run_free(&bad);
    bad = RUN("analyze", "--svg", "--json", MODEL("rldc2.mel"));
    expect(&bad, 2);
    run_free(&bad);
}

/* The drawing of a chain reads (issue 42): the brake at N = 10 (63 blocks,
 * labels of up to 150 characters) was one row 15,877 pt wide; its labels are
 * now wrapped and its layout turned when it comes out too wide, so it is at
 * most 2.5 times as wide as tall and no text line is longer than a label
 * line (40 characters, plus the item that ends it). */
Test(cli_mode, svg_of_a_wide_graph_wraps_labels_and_is_not_a_row)
{
    setenv("LSAN_OPTIONS", "suppressions=" MDAE_SOURCE_DIR "/tests/support/lsan_graphviz.supp", 1);
    run r = RUN("analyze", "--svg", "-D", "N=10", MODEL("brake.mel"));
    expect(&r, 0);
    double w = 0, h = 0;
    const char *at = strstr(r.out, "<svg width=\"");
    cr_assert_not_null(at);
    cr_assert_eq(sscanf(at, "<svg width=\"%lfpt\" height=\"%lfpt\"", &w, &h), 2, "%.80s", at);
    cr_assert(w > 0 && h > 0 && w <= 2.5 * h, "%g x %g pt", w, h);
    size_t longest = 0;
    for (const char *t = strstr(r.out, "font-size=\"14.00\">"); t != NULL;
         t = strstr(t + 1, "font-size=\"14.00\">")) {
        const char *text = strchr(t, '>') + 1;
        size_t n = strcspn(text, "<");
        if (n > longest)
            longest = n;
    }
    cr_assert(longest > 0 && longest <= 60, "longest text line: %zu bytes", longest);
    run_free(&r);
}

Test(cli_mode, server_addresses_and_reachability_have_their_exit_codes)
{
    /* Nothing listens on port 1 of loopback. */
    run r = RUN("--server", "tcp://127.0.0.1:1", "analyze", MODEL("rldc2.mel"));
    expect(&r, 4);
    contains(r.err, "cannot connect to the server at 'tcp://127.0.0.1:1'");
    run_free(&r);
    r = RUN("--server", "unix:/nonexistent/mdaed.sock", "analyze", MODEL("rldc2.mel"));
    expect(&r, 4);
    run_free(&r);
    static const char *const bad[] = {"tcp://127.0.0.1", "tcp://:7420", "unix:", "http://x/y:1"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        r = RUN("--server", bad[k], "analyze", MODEL("rldc2.mel"));
        cr_expect_eq(r.code, 2, "'%s': exit %d\n%s", bad[k], r.code, r.err);
        run_free(&r);
    }
    r = RUN("--server", "tcp://127.0.0.1:1", "structure", MODEL("rldc2.mel"));
    expect(&r, 2);
    contains(r.err, "not available with --server");
    run_free(&r);
    r = RUN("--server", "tcp://127.0.0.1:1", "analyze", "--node-limit", "10", MODEL("rldc2.mel"));
    expect(&r, 2);
    run_free(&r);
    r = RUN("--timeout", "5", "analyze", MODEL("rldc2.mel"));
    expect(&r, 2);
    run_free(&r);
    r = RUN("--server");
    expect(&r, 2);
    run_free(&r);
    /* A bad mode is refused before connecting. */
    r = RUN("--server", "tcp://127.0.0.1:1", "mode", "--mode", "g1=7", MODEL("rldc2.mel"));
    expect(&r, 2);
    contains(r.err, "invalid --mode");
    run_free(&r);
}

Test(cli_mode, server_node_limit_exits_3_like_the_embedded_engine)
{
    server s;
    server_start_with(&s, ", \"bdd\": {\"node_limit\": 1000}");
    /* 2^20 modes: beyond enumeration, so the implicit path meets the limit. */
    run r = RUN("--server", s.tcp, "analyze", "-D", "N=20", MODEL("rldc_chain.mel"));
    expect(&r, 3);
    contains(r.err, "node limit");
    cr_assert_str_eq(r.out, "");
    run_free(&r);
    server_stop(&s);
}

Test(cli_mode, server_token_is_sent_from_mdae_token)
{
    server s;
    server_start_with(&s, ", \"token\": \"s3cret\"");
    char *with[] = {"MDAE_TOKEN=s3cret", NULL};
    char *none[] = {NULL};
    run r = run_env(with, (const char *const[]){"--server", s.tcp, "analyze", "--json",
                                                 MODEL("rldc2.mel"), NULL});
    expect(&r, 0);
    run_free(&r);
    r = run_env(none, (const char *const[]){"--server", s.tcp, "analyze", MODEL("rldc2.mel"),
                                            NULL});
    expect(&r, 4);
    contains(r.err, "token");
    run_free(&r);
    server_stop(&s);
}

/* A fake server on an ephemeral loopback port: a child that accepts one
 * connection, reads the request, answers `reply` and waits for the client
 * to leave; reply "" hangs up instead, NULL never answers. */
static pid_t fake_server(const char *reply, int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(listen(fd, 1), 0);
    socklen_t len = sizeof a;
    cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        alarm(30); /* never outlive a broken test */
        int c = accept(fd, NULL, NULL);
        char buf[4096];
        /* The whole request line first: hanging up on unread bytes would
         * send a reset instead of an end of file. */
        ssize_t n;
        while (c >= 0 && (n = read(c, buf, sizeof buf)) > 0 && memchr(buf, '\n', (size_t)n) == NULL)
            ;
        if (c >= 0 && reply != NULL && write(c, reply, strlen(reply)) < 0)
            _exit(1);
        if (reply != NULL && reply[0] == '\0')
            _exit(0); /* hang up without a word */
        while (c >= 0 && read(c, buf, sizeof buf) > 0)
            ;
        _exit(0);
    }
    close(fd);
    return pid;
}

static void fake_reap(pid_t pid)
{
    int st;
    kill(pid, SIGTERM);
    waitpid(pid, &st, 0);
}

Test(cli_mode, a_server_that_sends_garbage_or_nothing_is_an_error_not_a_hang)
{
    static const char *const replies[] = {
        "this is not json\n",
        "{\"jsonrpc\":\"2.0\",\"id\":1}\n", /* neither result nor error */
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32603,\"message\":\"boom\"}}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n", /* no session */
        "",                                                     /* closes at once */
    };
    static const char *const says[] = {"not JSON", "neither result nor error", "boom",
                                       "opened no session", "closed the connection"};
    for (size_t k = 0; k < sizeof replies / sizeof replies[0]; k++) {
        int port;
        pid_t pid = fake_server(replies[k], &port);
        char addr[64];
        snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
        run r = RUN("--server", addr, "--timeout", "5", "analyze", MODEL("rldc2.mel"));
        cr_expect_eq(r.code, 4, "reply %zu: exit %d\n%s", k, r.code, r.err);
        cr_expect_not_null(strstr(r.err, says[k]), "reply %zu: %s", k, r.err);
        fake_reap(pid);
        run_free(&r);
    }
    int port;
    pid_t pid = fake_server(NULL, &port);
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
    run r = RUN("--server", addr, "--timeout", "1", "analyze", MODEL("rldc2.mel"));
    expect(&r, 4);
    contains(r.err, "no answer from the server");
    run_free(&r);
    fake_reap(pid);
}

Test(cli_mode, server_check_prints_what_the_embedded_check_prints)
{
    server s;
    server_start(&s);
    static const char *const models[] = {MODEL("rldc2.mel"), MODEL("water_tank.mel"),
                                         MODEL("syntax_error.mel")};
    for (size_t k = 0; k < 3; k++) {
        for (int json = 0; json < 2; json++) {
            run loc = json ? RUN("check", "--json", models[k]) : RUN("check", models[k]);
            run rem = json ? RUN("--server", s.tcp, "check", "--json", models[k])
                           : RUN("--server", s.tcp, "check", models[k]);
            cr_expect_eq(rem.code, loc.code, "%s: exit %d, embedded %d", models[k], rem.code,
                         loc.code);
            cr_expect_str_eq(rem.out, loc.out);
            cr_expect_str_eq(rem.err, loc.err);
            run_free(&loc);
            run_free(&rem);
        }
    }
    /* A consistency error (not a parse error): same verdict and message;
     * the server sends no counts with it (see cli_remote.c). */
    run rem = RUN("--server", s.tcp, "check", MODEL("bad_use.mel"));
    expect(&rem, 1);
    contains(rem.err, "bad_use.mel:17:21: error: variable 'y' is used in equation 'e2'");
    run_free(&rem);
    server_stop(&s);
}

/* issue 42: `analyze --json` prints its verdict on stdout when the model
 * does not analyse, on the server as in the embedded engine (the server
 * sends no counts with a refusal: counts are null there) */
Test(cli_mode, server_analyze_json_prints_the_verdict_of_a_model_it_cannot_analyse)
{
    server s;
    server_start(&s);
    run loc = RUN("analyze", "--json", MODEL("bad_use.mel"));
    run rem = RUN("--server", s.tcp, "analyze", "--json", MODEL("bad_use.mel"));
    expect(&loc, 1);
    expect(&rem, 1);
    cJSON *l = cJSON_Parse(loc.out), *r = cJSON_Parse(rem.out);
    cr_assert_not_null(r, "JSON on stdout: %s", rem.out);
    cr_assert_not_null(l);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r, "status")), "error");
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(r, "ok")));
    char *ld = cJSON_PrintUnformatted(cJSON_GetObjectItem(l, "diagnostics"));
    char *rd = cJSON_PrintUnformatted(cJSON_GetObjectItem(r, "diagnostics"));
    cr_expect_str_eq(rd, ld, "the same diagnostics");
    cr_expect_str_eq(rem.err, loc.err);
    free(ld);
    free(rd);
    cJSON_Delete(l);
    cJSON_Delete(r);
    run_free(&loc);
    run_free(&rem);
    server_stop(&s);
}
