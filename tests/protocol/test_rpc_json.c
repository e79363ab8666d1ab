/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/protocol/test_rpc_json.c -- the JSON shapes of protocol/rpc_json.h:
 * exact text for a hand-built report, cubes as name->boolean maps, formulas,
 * empty lists, numbers, the structure of a parsed model, diagnostics, and
 * allocation failures at every step (no leak, MDAE_E_NOMEM).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "rpc_json.h"

#include "fail_alloc.h"
#include "model_files.h"

/* ---- A hand-built report over g1, g2 ---------------------------------------- */

static const char *const names2[] = {"g1", "g2"};
static signed char cube_true[] = {-1, -1};
static signed char cube_g1_ng2[] = {1, 0};
static signed char cube_g1_g2[] = {1, 1};
static signed char cube_ng1[] = {0, -1};

static sa_offset_case e1_offsets[] = {
    {1, {"g1 & g2", 1, 0, 2, cube_g1_g2}},
    {0, {"!g1", 1, 0, 2, cube_ng1}},
};
static sa_item equations1[] = {{"e1", {"true", 1, 0, 2, cube_true}, 2, e1_offsets}};
static sa_item variables1[] = {{"x", {"true", 1, 0, 2, cube_true}, 0, NULL}};
static sa_diagnostic diagnostics1[] = {
    {SA_DIAG_OVERDETERMINED, 0, {"g1 & !g2", 1, 0, 2, cube_g1_ng2}},
    {SA_DIAG_UNDERDETERMINED, 0, {"g1 & !g2", 1, 0, 2, cube_g1_ng2}},
};

static sa_report singular_report(void)
{
    sa_report r;
    memset(&r, 0, sizeof r);
    r.n_modes = 2;
    r.mode_names = names2;
    r.valid_modes = 4;
    r.singular = true;
    r.singular_modes = (sa_set){"g1 & !g2", 1, 0, 2, cube_g1_ng2};
    r.n_equations = 1;
    r.equations = equations1;
    r.n_variables = 1;
    r.variables = variables1;
    r.n_diagnostics = 2;
    r.diagnostics = diagnostics1;
    return r;
}

static char *compact(const cJSON *j)
{
    char *s = NULL;
    cr_assert_eq(rpc_json_print(j, false, &s), MDAE_OK);
    return s;
}

Test(rpc_json, encodes_a_singular_report_as_the_documented_text)
{
    sa_report r = singular_report();
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_report(&r, &j), MDAE_OK);
    char *s = compact(j);
    cr_assert_str_eq(
        s, "{\"modeVariables\":[\"g1\",\"g2\"],\"validModes\":4,\"validModesExact\":\"4\",\"validModesLog2\":2,\"status\":\"singular\","
           "\"singular\":{\"guard\":\"g1 & !g2\",\"cubes\":[{\"g1\":true,\"g2\":false}]},"
           "\"equations\":[{\"name\":\"e1\",\"guard\":\"true\",\"cubes\":[{}],"
           "\"offset\":[{\"value\":1,\"guard\":\"g1 & g2\",\"cubes\":[{\"g1\":true,\"g2\":true}]},"
           "{\"value\":0,\"guard\":\"!g1\",\"cubes\":[{\"g1\":false}]}]}],"
           "\"variables\":[{\"name\":\"x\",\"guard\":\"true\",\"cubes\":[{}],\"offset\":[]}],"
           "\"diagnostics\":[{\"kind\":\"overdetermined\",\"equation\":\"e1\",\"guard\":\"g1 & !g2\","
           "\"cubes\":[{\"g1\":true,\"g2\":false}]},"
           "{\"kind\":\"underdetermined\",\"variable\":\"x\",\"guard\":\"g1 & !g2\","
           "\"cubes\":[{\"g1\":true,\"g2\":false}]}]}");
    mdae_free(s);
    cJSON_Delete(j);
}

Test(rpc_json, maps_cube_values_to_booleans_and_omits_dont_cares)
{
    signed char cubes[] = {1, -1, 0, -1, -1, -1};
    const char *const names[] = {"a", "b", "c"};
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_cubes(3, names, 2, cubes, &j), MDAE_OK);
    cr_assert(cJSON_IsArray(j));
    cr_assert_eq(cJSON_GetArraySize(j), 2);
    cJSON *c0 = cJSON_GetArrayItem(j, 0);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c0, "a")));
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(c0, "b"));
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(c0, "c")));
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetArrayItem(j, 1)), 0);
    cJSON_Delete(j);
}

Test(rpc_json, encodes_an_empty_set_as_an_empty_cube_list)
{
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_cubes(2, names2, 0, NULL, &j), MDAE_OK);
    char *s = compact(j);
    cr_assert_str_eq(s, "[]");
    mdae_free(s);
    cJSON_Delete(j);
}

Test(rpc_json, encodes_a_nonsingular_report_with_empty_lists)
{
    sa_report r;
    memset(&r, 0, sizeof r);
    r.valid_modes = 1;
    r.singular_modes = (sa_set){"false", 0, 0, 0, NULL};
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_report(&r, &j), MDAE_OK);
    char *s = compact(j);
    cr_assert_str_eq(s, "{\"modeVariables\":[],\"validModes\":1,\"validModesExact\":\"1\",\"validModesLog2\":0,\"status\":\"nonsingular\","
                        "\"singular\":{\"guard\":\"false\",\"cubes\":[]},\"equations\":[],"
                        "\"variables\":[],\"diagnostics\":[]}");
    mdae_free(s);
    cJSON_Delete(j);
}

Test(rpc_json, writes_a_missing_empty_set_formula_as_false)
{
    sa_report r;
    memset(&r, 0, sizeof r);
    r.singular_modes = (sa_set){NULL, 0, 0, 0, NULL};
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_report(&r, &j), MDAE_OK);
    cJSON *sing = cJSON_GetObjectItemCaseSensitive(j, "singular");
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sing, "guard")), "false");
    cJSON_Delete(j);
}

Test(rpc_json, writes_valid_modes_as_a_json_number)
{
    sa_report r = singular_report();
    r.valid_modes = 1099511627776.0; /* 2^40 */
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_report(&r, &j), MDAE_OK);
    cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "validModes");
    cr_assert(cJSON_IsNumber(v));
    cr_assert_eq(cJSON_GetNumberValue(v), 1099511627776.0);
    char *s = compact(j);
    cr_assert_not_null(strstr(s, "\"validModes\":1099511627776,"));
    mdae_free(s);
    cJSON_Delete(j);
}

Test(rpc_json, keeps_negative_and_large_offset_values)
{
    sa_offset_case offs[] = {{-3, {"g1", 1, 0, 2, cube_g1_g2}}, {1000, {"!g1", 1, 0, 2, cube_ng1}}};
    sa_item eq = {"e", {"true", 1, 0, 2, cube_true}, 2, offs};
    sa_report r = singular_report();
    r.equations = &eq;
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_report(&r, &j), MDAE_OK);
    cJSON *o = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "equations"), 0), "offset");
    cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(o, 0), "value")), -3);
    cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(o, 1), "value")), 1000);
    cJSON_Delete(j);
}

Test(rpc_json, rejects_a_diagnostic_pointing_past_the_equations)
{
    sa_report r = singular_report();
    sa_diagnostic bad = {SA_DIAG_OVERDETERMINED, 7, {"g1", 1, 0, 2, cube_g1_g2}};
    r.diagnostics = &bad;
    r.n_diagnostics = 1;
    cJSON *j = (cJSON *)0x1;
    cr_assert_eq(rpc_json_report(&r, &j), MDAE_E_INVAL);
    cr_assert_eq(j, (cJSON *)0x1, "*out must be untouched on failure");
}

Test(rpc_json, rejects_null_arguments)
{
    cJSON *j = NULL;
    sa_report r = singular_report();
    cr_assert_eq(rpc_json_report(NULL, &j), MDAE_E_INVAL);
    cr_assert_eq(rpc_json_report(&r, NULL), MDAE_E_INVAL);
    cr_assert_eq(rpc_json_structure(NULL, &j), MDAE_E_INVAL);
    cr_assert_eq(rpc_json_diags(NULL, &j), MDAE_E_INVAL);
    cr_assert_eq(rpc_json_print(NULL, false, NULL), MDAE_E_INVAL);
}

/* ---- Diagnostics --------------------------------------------------------------- */

Test(rpc_json, encodes_diagnostics_with_severity_message_and_range)
{
    mdae_diags d;
    mdae_diags_init(&d);
    mdae_range at = {{3, 5, 40}, {3, 9, 44}};
    mdae_range nowhere = {{0, 0, 0}, {0, 0, 0}};
    mdae_diags_add(&d, MDAE_SEV_ERROR, at, "undeclared name '%s'", "y");
    mdae_diags_add(&d, MDAE_SEV_WARNING, nowhere, "no valid mode");
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_diags(&d, &j), MDAE_OK);
    char *s = compact(j);
    cr_assert_str_eq(s, "[{\"severity\":\"error\",\"message\":\"undeclared name 'y'\","
                        "\"range\":{\"start\":{\"line\":3,\"col\":5,\"offset\":40},"
                        "\"end\":{\"line\":3,\"col\":9,\"offset\":44}}},"
                        "{\"severity\":\"warning\",\"message\":\"no valid mode\"}]");
    mdae_free(s);
    cJSON_Delete(j);
    mdae_diags_close(&d);
}

Test(rpc_json, says_how_many_diagnostics_were_dropped)
{
    mdae_diags d;
    mdae_diags_init(&d);
    d.limit = 1;
    mdae_range at = {{1, 1, 0}, {1, 2, 1}};
    for (int i = 0; i < 4; i++)
        mdae_diags_add(&d, MDAE_SEV_ERROR, at, "error %d", i);
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_diags(&d, &j), MDAE_OK);
    cr_assert_eq(cJSON_GetArraySize(j), 2);
    cJSON *last = cJSON_GetArrayItem(j, 1);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(last, "message")),
                     "3 more diagnostics not shown");
    cJSON_Delete(j);
    mdae_diags_close(&d);
}

Test(rpc_json, encodes_no_diagnostics_as_an_empty_array)
{
    mdae_diags d;
    mdae_diags_init(&d);
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_diags(&d, &j), MDAE_OK);
    char *s = compact(j);
    cr_assert_str_eq(s, "[]");
    mdae_free(s);
    cJSON_Delete(j);
}

/* ---- Structure of a parsed model ------------------------------------------------- */

static const char small_model[] = "g : boolean;\n"
                                  "x : real;\n"
                                  "y : real;\n"
                                  "e1 : equation der(x) = if g then y else 0.0;\n"
                                  "e2 : equation y = x;\n";

static mel_model *parse_small(void)
{
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    int rc = mel_model_parse(small_model, strlen(small_model), NULL, &m, &d);
    for (size_t i = 0; i < d.count; i++)
        cr_log_warn("%s", d.items[i].message);
    cr_assert_eq(rc, MDAE_OK, "mel_model_parse: %s", mdae_err_name(rc));
    mdae_diags_close(&d);
    return m;
}

static cJSON *item(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static const char *str(const cJSON *o, const char *k) { return cJSON_GetStringValue(item(o, k)); }
static double num(const cJSON *o, const char *k) { return cJSON_GetNumberValue(item(o, k)); }

Test(rpc_json, encodes_the_structure_of_a_parsed_model)
{
    mel_model *m = parse_small();
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_structure(m, &j), MDAE_OK);

    cJSON *modes = item(j, "modeVariables");
    cr_assert_eq(cJSON_GetArraySize(modes), 1);
    cr_assert_str_eq(str(cJSON_GetArrayItem(modes, 0), "name"), "g");
    cr_assert_eq(num(cJSON_GetArrayItem(modes, 0), "line"), 1);
    cr_assert_eq(num(cJSON_GetArrayItem(modes, 0), "col"), 1);
    cr_assert_eq(cJSON_GetArraySize(item(j, "invariants")), 0);

    cJSON *vars = item(j, "variables");
    cr_assert_eq(cJSON_GetArraySize(vars), 2);
    cr_assert_str_eq(str(cJSON_GetArrayItem(vars, 1), "name"), "y");
    cr_assert_str_eq(str(cJSON_GetArrayItem(vars, 1), "guard"), "true");

    cJSON *eqs = item(j, "equations");
    cr_assert_eq(cJSON_GetArraySize(eqs), 2);
    cJSON *e1 = cJSON_GetArrayItem(eqs, 0);
    cr_assert_str_eq(str(e1, "name"), "e1");
    cr_assert_str_eq(str(e1, "guard"), "true");
    cr_assert_eq(num(item(item(e1, "range"), "start"), "line"), 4);
    cJSON *incs = item(e1, "incidences");
    cr_assert_eq(cJSON_GetArraySize(incs), 2);
    cJSON *ix = cJSON_GetArrayItem(incs, 0), *iy = cJSON_GetArrayItem(incs, 1);
    cr_assert_str_eq(str(ix, "variable"), "x");
    cr_assert_eq(cJSON_GetArraySize(item(ix, "cases")), 1);
    cr_assert_eq(num(cJSON_GetArrayItem(item(ix, "cases"), 0), "order"), 1);
    cr_assert_str_eq(str(cJSON_GetArrayItem(item(ix, "cases"), 0), "guard"), "true");
    cr_assert_str_eq(str(iy, "variable"), "y");
    cr_assert_eq(num(cJSON_GetArrayItem(item(iy, "cases"), 0), "order"), 0);
    cr_assert_str_eq(str(cJSON_GetArrayItem(item(iy, "cases"), 0), "guard"), "g");

    cJSON *counts = item(j, "counts");
    cr_assert_eq(num(counts, "equations"), 2);
    cr_assert_eq(num(counts, "variables"), 2);
    cr_assert_eq(num(counts, "modeVariables"), 1);
    cr_assert_eq(num(counts, "incidences"), 4);
    cr_assert_eq(num(counts, "invariants"), 0);
    cr_assert_eq(num(counts, "parameters"), 0);

    cJSON_Delete(j);
    mel_model_free(m);
}

Test(rpc_json, prints_pretty_and_compact_forms_of_the_same_tree)
{
    mel_model *m = parse_small();
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_structure(m, &j), MDAE_OK);
    char *pretty = NULL, *flat = NULL;
    cr_assert_eq(rpc_json_print(j, true, &pretty), MDAE_OK);
    cr_assert_eq(rpc_json_print(j, false, &flat), MDAE_OK);
    cr_assert_not_null(strchr(pretty, '\n'));
    cr_assert_null(strchr(flat, '\n'));
    cJSON *back = cJSON_Parse(pretty);
    cr_assert_not_null(back);
    char *again = compact(back);
    cr_assert_str_eq(again, flat);
    mdae_free(again);
    cJSON_Delete(back);
    mdae_free(pretty);
    mdae_free(flat);
    cJSON_Delete(j);
    mel_model_free(m);
}

/* ---- Allocation failures ----------------------------------------------------------
 * Fail allocation N, then N+1, ... until the call succeeds: every failure
 * must be MDAE_E_NOMEM with nothing leaked (checked by counting live
 * blocks). */

typedef int (*encode_fn)(const void *arg, cJSON **out);

static void check_oom(encode_fn fn, const void *arg)
{
    rpc_json_init();
    cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
    int rc = MDAE_E_NOMEM;
    long n;
    for (n = 0; n < 100000 && rc == MDAE_E_NOMEM; n++) {
        counting_arm(n);
        cJSON *j = NULL;
        rc = fn(arg, &j);
        if (rc == MDAE_OK) {
            char *s = NULL;
            rc = rpc_json_print(j, n % 2 == 0, &s);
            mdae_free(s);
            cJSON_Delete(j);
        } else {
            cr_assert_null(j);
        }
        cr_assert(rc == MDAE_OK || rc == MDAE_E_NOMEM, "allocation %ld: %s", n, mdae_err_name(rc));
        cr_assert_eq(live, 0, "allocation %ld failing leaks %ld blocks", n, live);
    }
    fail_at = -1;
    mdae_replace_allocator(NULL);
    cr_assert_eq(rc, MDAE_OK, "never succeeded");
    cr_assert_gt(n, 10, "too few allocations to be meaningful");
}

static int encode_report(const void *arg, cJSON **out) { return rpc_json_report(arg, out); }
static int encode_structure(const void *arg, cJSON **out) { return rpc_json_structure(arg, out); }
static int encode_diags(const void *arg, cJSON **out) { return rpc_json_diags(arg, out); }

Test(rpc_json, report_survives_every_allocation_failure)
{
    sa_report r = singular_report();
    check_oom(encode_report, &r);
}

Test(rpc_json, structure_survives_every_allocation_failure)
{
    mel_model *m = parse_small();
    check_oom(encode_structure, m);
    mel_model_free(m);
}

Test(rpc_json, diagnostics_survive_every_allocation_failure)
{
    mdae_diags d;
    mdae_diags_init(&d);
    mdae_range at = {{2, 3, 10}, {2, 4, 11}};
    mdae_diags_add(&d, MDAE_SEV_ERROR, at, "bad");
    mdae_diags_add(&d, MDAE_SEV_NOTE, at, "here");
    check_oom(encode_diags, &d);
    mdae_diags_close(&d);
}

/* ---- Blocks, edges and one mode (issue 4) -----------------------------------------
 * On the paper models, analysed for real: the JSON must say what the
 * engine's graph says (same counts, ids, items), in the documented shape. */

typedef struct analysed {
    mel_model *m;
    sa_result *res;
    cdg_graph *g;
    sa_report *rep;
    cdg_report *crep;
} analysed;

static analysed analyse_file(const char *name)
{
    size_t n;
    char *text = tm_read(name, &n);
    analysed a;
    memset(&a, 0, sizeof a);
    cr_assert_eq(mel_model_parse(text, n, NULL, &a.m, NULL), MDAE_OK);
    free(text);
    cr_assert_eq(sa_begin(NULL), MDAE_OK);
    cr_assert_eq(sa_analyze(a.m, NULL, &a.res, NULL), MDAE_OK);
    cr_assert_eq(cdg_build(a.res, NULL, &a.g, NULL), MDAE_OK);
    cr_assert_eq(sa_result_report(a.res, &a.rep), MDAE_OK);
    cr_assert_eq(cdg_graph_report(a.g, &a.crep), MDAE_OK);
    return a;
}

static void analysed_free(analysed *a)
{
    cdg_report_free(a->crep);
    sa_report_free(a->rep);
    cdg_graph_free(a->g);
    sa_result_free(a->res);
    sa_end();
    mel_model_free(a->m);
}

/* "K3'" style key of a block's items, to find blocks by content. */
static void items_key(const cJSON *items, char *buf, size_t len)
{
    buf[0] = '\0';
    const cJSON *it;
    cJSON_ArrayForEach(it, items) {
        size_t k = strlen(buf);
        snprintf(buf + k, len - k, "%s%s%.*s", k ? "," : "", str(it, "name"),
                 (int)num(it, "order"), "''''''''");
    }
}

/* The block whose equations and unknowns are eqs -> unks, or NULL. */
static const cJSON *find_block(const cJSON *blocks, const char *eqs, const char *unks)
{
    const cJSON *b;
    cJSON_ArrayForEach(b, blocks) {
        char e[256], u[256];
        items_key(item(b, "equations"), e, sizeof e);
        items_key(item(b, "unknowns"), u, sizeof u);
        if (strcmp(e, eqs) == 0 && strcmp(u, unks) == 0)
            return b;
    }
    return NULL;
}

static void check_cdg_shape(const cJSON *j, const analysed *a)
{
    const cJSON *blocks = item(j, "blocks"), *edges = item(j, "edges");
    cr_assert(cJSON_IsArray(blocks) && cJSON_IsArray(edges));
    cr_assert_eq((size_t)cJSON_GetArraySize(blocks), cdg_graph_n_blocks(a->g));
    cr_assert_eq((size_t)cJSON_GetArraySize(edges), cdg_graph_n_edges(a->g));
    int k = 0;
    const cJSON *b;
    cJSON_ArrayForEach(b, blocks) {
        cr_assert_eq(num(b, "id"), k, "blocks are listed by id");
        cr_assert_not_null(str(b, "guard"));
        cr_assert(cJSON_IsArray(item(b, "cubes")));
        cr_assert_gt(cJSON_GetArraySize(item(b, "equations")), 0);
        cr_assert_eq(cJSON_GetArraySize(item(b, "equations")),
                     cJSON_GetArraySize(item(b, "unknowns")));
        cr_assert(cJSON_IsArray(item(b, "reads")));
        const cJSON *it = cJSON_GetArrayItem(item(b, "equations"), 0);
        cr_assert_not_null(str(it, "name"));
        cr_assert(cJSON_IsNumber(item(it, "order")));
        k++;
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, edges) {
        cr_assert(num(e, "from") >= 0 && num(e, "from") < k);
        cr_assert(num(e, "to") >= 0 && num(e, "to") < k);
        cr_assert_neq(num(e, "from"), num(e, "to"));
        cr_assert_not_null(str(e, "guard"));
        cr_assert(cJSON_IsArray(item(e, "cubes")));
    }
}

Test(rpc_json, analysis_of_rldc2_carries_its_blocks_and_edges)
{
    analysed a = analyse_file("rldc2.mel");
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_analysis(a.rep, a.crep, &j), MDAE_OK);
    cr_assert_str_eq(str(j, "status"), "nonsingular");
    check_cdg_shape(j, &a);
    /* RR-9322 section 3.3, g1 = g2 = true: K3 differentiated once is solved
     * with K1, C1, C2 for the currents and the capacitor voltages' rates. */
    const cJSON *b = find_block(item(j, "blocks"), "K1,K3',C1,C2", "i1,i2,v1',v2'");
    cr_assert_not_null(b);
    cr_assert_str_eq(str(b, "guard"), "g1 & g2");
    const cJSON *c0 = cJSON_GetArrayItem(item(b, "cubes"), 0);
    cr_assert(cJSON_IsTrue(item(c0, "g1")) && cJSON_IsTrue(item(c0, "g2")));
    /* ... and g1 = g2 = false: one block of six. */
    cr_assert_not_null(find_block(item(j, "blocks"), "K1',K2,K3,K4,L1,L2", "j1',j2',u1,u2,w1,w2"));
    cJSON_Delete(j);
    analysed_free(&a);
}

Test(rpc_json, analysis_of_the_water_tank_shows_el2_and_eh2_as_in_the_paper)
{
    analysed a = analyse_file("water_tank.mel");
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_analysis(a.rep, a.crep, &j), MDAE_OK);
    check_cdg_shape(j, &a);
    const cJSON *blocks = item(j, "blocks");
    /* RR-9459 section 4.1: el2 is differentiated to solve for x' when bl,
     * solved for yl otherwise; eh2 computes yh only when !bh. */
    const cJSON *b = find_block(blocks, "el2'", "x'");
    cr_assert_not_null(b);
    cr_assert_str_eq(str(b, "guard"), "bl"); /* bh & bl is invalid: a don't-care */
    b = find_block(blocks, "el2", "yl");
    cr_assert_not_null(b);
    cr_assert_str_eq(str(b, "guard"), "!bl");
    b = find_block(blocks, "eh2", "yh");
    cr_assert_not_null(b);
    cr_assert_str_eq(str(b, "guard"), "!bh");
    cJSON_Delete(j);
    analysed_free(&a);
}

Test(rpc_json, analysis_without_a_graph_is_the_report_alone)
{
    sa_report r = singular_report();
    cJSON *j = NULL, *k = NULL;
    cr_assert_eq(rpc_json_analysis(&r, NULL, &j), MDAE_OK);
    cr_assert_eq(rpc_json_report(&r, &k), MDAE_OK);
    cr_assert(cJSON_Compare(j, k, true));
    cr_assert_null(item(j, "blocks"));
    cJSON_Delete(j);
    cJSON_Delete(k);
}

Test(rpc_json, cdg_rejects_an_edge_to_a_missing_block_and_leaves_the_object_alone)
{
    cdg_report rep;
    memset(&rep, 0, sizeof rep);
    cdg_report_edge e = {0, 1, {"true", 0, 0, 0, NULL}};
    rep.n_edges = 1;
    rep.edges = &e;
    cJSON *o = cJSON_CreateObject();
    cr_assert_eq(rpc_json_cdg(&rep, o), MDAE_E_INVAL);
    cr_assert_null(o->child);
    cr_assert_eq(rpc_json_cdg(NULL, o), MDAE_E_INVAL);
    cJSON_Delete(o);
}

/* The projection on one mode, from the engine's own views. */
static cJSON *mode_json(const analysed *a, const bool *mode)
{
    sa_mode_view sv;
    cdg_mode_view cv;
    cr_assert_eq(sa_result_mode(a->res, mode, &sv), MDAE_OK);
    cr_assert_eq(cdg_graph_mode(a->g, mode, &cv), MDAE_OK);
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_mode(a->m, mode, &sv, a->g, &cv, &j), MDAE_OK);
    cdg_mode_view_close(&cv);
    sa_mode_view_close(&sv);
    return j;
}

static double offset_of(const cJSON *items, const char *name)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, items)
        if (strcmp(str(it, "name"), name) == 0)
            return cJSON_IsNull(item(it, "offset")) ? -1 : num(it, "offset");
    cr_assert_fail("no item %s", name);
    return -2;
}

Test(rpc_json, mode_of_rldc2_with_both_diodes_passing_has_the_offsets_of_fig6)
{
    analysed a = analyse_file("rldc2.mel");
    bool mode[2] = {true, true};
    cJSON *j = mode_json(&a, mode);
    cr_assert(cJSON_IsTrue(item(item(j, "mode"), "g1")) && cJSON_IsTrue(item(item(j, "mode"), "g2")));
    cr_assert(cJSON_IsTrue(item(j, "valid")));
    cr_assert(cJSON_IsFalse(item(j, "singular")));
    const cJSON *eqs = item(j, "equations");
    cr_assert_eq(cJSON_GetArraySize(eqs), 14);
    const cJSON *e;
    cJSON_ArrayForEach(e, eqs) {
        const char *nm = str(e, "name");
        bool one = strcmp(nm, "K3") == 0 || strcmp(nm, "Z1") == 0 || strcmp(nm, "Z2") == 0;
        cr_assert_eq(num(e, "offset"), one ? 1 : 0, "c(%s)", nm);
        cr_assert(cJSON_IsTrue(item(e, "active")));
    }
    cr_assert_eq(offset_of(item(j, "variables"), "u1"), 1);
    cr_assert_eq(offset_of(item(j, "variables"), "w1"), 0);
    /* Every equation is in exactly one block, at its offset. */
    const cJSON *blocks = item(j, "blocks");
    int n_eq = 0;
    const cJSON *b;
    cJSON_ArrayForEach(b, blocks) {
        const cJSON *it;
        cJSON_ArrayForEach(it, item(b, "equations")) {
            cr_assert_eq(num(it, "order"), offset_of(eqs, str(it, "name")));
            n_eq++;
        }
    }
    cr_assert_eq(n_eq, 14);
    cr_assert_not_null(find_block(blocks, "K1,K3',C1,C2", "i1,i2,v1',v2'"));
    /* Edges give positions in the solving order: from < to. */
    const cJSON *pair;
    cr_assert_gt(cJSON_GetArraySize(item(j, "edges")), 0);
    cJSON_ArrayForEach(pair, item(j, "edges")) {
        double f = cJSON_GetNumberValue(cJSON_GetArrayItem(pair, 0));
        double t = cJSON_GetNumberValue(cJSON_GetArrayItem(pair, 1));
        cr_assert(f < t && t < cJSON_GetArraySize(blocks));
    }
    cr_assert_eq(cJSON_GetArraySize(item(j, "overdetermined")), 0);
    cJSON_Delete(j);
    analysed_free(&a);
}

Test(rpc_json, mode_excluded_by_an_invariant_is_invalid_with_no_offsets_or_blocks)
{
    analysed a = analyse_file("water_tank.mel");
    bool mode[2] = {true, true}; /* invariant !(bh & bl) */
    cJSON *j = mode_json(&a, mode);
    cr_assert(cJSON_IsFalse(item(j, "valid")));
    cr_assert(cJSON_IsFalse(item(j, "singular")));
    const cJSON *e;
    cJSON_ArrayForEach(e, item(j, "equations"))
        cr_assert(cJSON_IsNull(item(e, "offset")));
    cr_assert_eq(cJSON_GetArraySize(item(j, "blocks")), 0);
    cr_assert_eq(cJSON_GetArraySize(item(j, "edges")), 0);
    cJSON_Delete(j);
    /* The empty-tank mode: el2 differentiated for x', e2 solved for yl. */
    mode[0] = false;
    j = mode_json(&a, mode);
    cr_assert(cJSON_IsTrue(item(j, "valid")));
    cr_assert_eq(offset_of(item(j, "equations"), "el2"), 1);
    cr_assert_not_null(find_block(item(j, "blocks"), "el2'", "x'"));
    cr_assert_not_null(find_block(item(j, "blocks"), "e2", "yl"));
    cJSON_Delete(j);
    analysed_free(&a);
}

Test(rpc_json, mode_of_a_singular_model_names_its_parts)
{
    analysed a = analyse_file("singular_simple.mel");
    bool mode[2] = {false, false};
    cJSON *j = mode_json(&a, mode);
    cr_assert(cJSON_IsTrue(item(j, "valid")));
    cr_assert(cJSON_IsTrue(item(j, "singular")));
    cr_assert_gt(cJSON_GetArraySize(item(j, "overdetermined")), 0);
    cr_assert_gt(cJSON_GetArraySize(item(j, "underdetermined")), 0);
    cr_assert_eq(cJSON_GetArraySize(item(j, "blocks")), 0);
    cJSON_Delete(j);
    analysed_free(&a);
}

Test(rpc_json, mode_spec_reads_the_command_line_syntax)
{
    char why[128];
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_mode_spec(" g1 = 1 , g2=false,open[3]=true ", &j, why, sizeof why),
                 MDAE_OK);
    char *s = compact(j);
    cr_assert_str_eq(s, "{\"g1\":true,\"g2\":false,\"open[3]\":true}");
    mdae_free(s);
    cJSON_Delete(j);
    cr_assert_eq(rpc_json_mode_spec("", &j, why, sizeof why), MDAE_OK);
    cr_assert_eq(cJSON_GetArraySize(j), 0);
    cJSON_Delete(j);
    static const char *const bad[] = {"g1", "g1=2", "g1=1,g1=0", "g1=1,,g2=0", "=1", "g1=1;g2=0",
                                      "g1=yes", "g1=1,"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        j = NULL;
        why[0] = '\0';
        cr_expect_eq(rpc_json_mode_spec(bad[k], &j, why, sizeof why), MDAE_E_INVAL, "%s", bad[k]);
        cr_expect_null(j);
        cr_expect_neq(why[0], '\0', "no reason for %s", bad[k]);
    }
    cr_assert_eq(rpc_json_mode_spec("g1=1,g1=0", &j, why, sizeof why), MDAE_E_INVAL);
    cr_assert_not_null(strstr(why, "'g1' is given twice"), "%s", why);
    cr_assert_eq(rpc_json_mode_spec("g1=2", &j, why, sizeof why), MDAE_E_INVAL);
    cr_assert_not_null(strstr(why, "value of 'g1' must be"), "%s", why);
    cr_assert_eq(rpc_json_mode_spec("g1", &j, why, sizeof why), MDAE_E_INVAL);
    cr_assert_not_null(strstr(why, "expected '=' after 'g1'"), "%s", why);
}

Test(rpc_json, mode_spec_reads_modelica_relation_names)
{
    /* Modelica's relation atoms are named by their text, which holds '=',
     * ',' and spaces: a name ends at the first '=' followed by a value and
     * then ',' or the end. */
    char why[128];
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_mode_spec("h <= 0=1, pre(m) == 2 = false,f(a, b) >= 1=true", &j, why,
                                    sizeof why),
                 MDAE_OK, "%s", why);
    char *s = compact(j);
    cr_assert_str_eq(s, "{\"h <= 0\":true,\"pre(m) == 2\":false,\"f(a, b) >= 1\":true}");
    mdae_free(s);
    cJSON_Delete(j);
    cr_assert_eq(rpc_json_mode_spec("h <= 0=2", &j, why, sizeof why), MDAE_E_INVAL);
    cr_assert_not_null(strstr(why, "value of 'h <= 0' must be"), "%s", why);
}

Test(rpc_json, mode_read_names_an_unknown_mode_variable)
{
    mel_model *m = parse_small(); /* one mode variable, g */
    bool mode[1] = {true};
    char why[128] = "";
    cJSON *j = cJSON_Parse("{\"g\":0}");
    cr_assert_eq(rpc_json_mode_read(j, m, mode, why, sizeof why), MDAE_OK);
    cr_assert(!mode[0]);
    cJSON_Delete(j);
    j = cJSON_Parse("{}");
    mode[0] = true;
    cr_assert_eq(rpc_json_mode_read(j, m, mode, why, sizeof why), MDAE_OK);
    cr_assert(!mode[0], "unlisted mode variables are false");
    cJSON_Delete(j);
    j = cJSON_Parse("{\"g\":true,\"h\":false}");
    cr_assert_eq(rpc_json_mode_read(j, m, mode, why, sizeof why), MDAE_E_INVAL);
    cr_assert_str_eq(why, "unknown mode variable 'h'");
    cJSON_Delete(j);
    j = cJSON_Parse("{\"g\":2}");
    cr_assert_eq(rpc_json_mode_read(j, m, mode, why, sizeof why), MDAE_E_INVAL);
    cJSON_Delete(j);
    j = cJSON_Parse("[1]");
    cr_assert_eq(rpc_json_mode_read(j, m, mode, why, sizeof why), MDAE_E_INVAL);
    cJSON_Delete(j);
    mel_model_free(m);
}

/* Allocation failures in the new encoders, on rldc2. */
static const bool oom_mode[2] = {true, false};

static int encode_analysis(const void *arg, cJSON **out)
{
    const analysed *a = arg;
    return rpc_json_analysis(a->rep, a->crep, out);
}

typedef struct mode_subject {
    const analysed *a;
    sa_mode_view sv;
    cdg_mode_view cv;
} mode_subject;

static int encode_mode(const void *arg, cJSON **out)
{
    const mode_subject *ms = arg;
    return rpc_json_mode(ms->a->m, oom_mode, &ms->sv, ms->a->g, &ms->cv, out);
}

Test(rpc_json, analysis_survives_every_allocation_failure)
{
    analysed a = analyse_file("rldc2.mel");
    check_oom(encode_analysis, &a);
    analysed_free(&a);
}

Test(rpc_json, mode_survives_every_allocation_failure)
{
    analysed a = analyse_file("rldc2.mel");
    /* The views are the engine's (built before the failing allocator is
     * installed): this checks the encoder only. */
    mode_subject ms = {&a, {0}, {0}};
    cr_assert_eq(sa_result_mode(a.res, oom_mode, &ms.sv), MDAE_OK);
    cr_assert_eq(cdg_graph_mode(a.g, oom_mode, &ms.cv), MDAE_OK);
    check_oom(encode_mode, &ms);
    cdg_mode_view_close(&ms.cv);
    sa_mode_view_close(&ms.sv);
    analysed_free(&a);
}

/* The whole projection path of `mdae mode` and the server's session/mode:
 * the engine's views and the encoder, all under failing allocations. */
static int project_mode(const void *arg, cJSON **out)
{
    const analysed *a = arg;
    sa_mode_view sv;
    cdg_mode_view cv;
    int rc = sa_result_mode(a->res, oom_mode, &sv);
    if (rc < 0)
        return rc;
    rc = cdg_graph_mode(a->g, oom_mode, &cv);
    if (rc == MDAE_OK) {
        rc = rpc_json_mode(a->m, oom_mode, &sv, a->g, &cv, out);
        cdg_mode_view_close(&cv);
    }
    sa_mode_view_close(&sv);
    return rc;
}

Test(rpc_json, mode_projection_survives_every_allocation_failure)
{
    analysed a = analyse_file("water_tank.mel");
    check_oom(project_mode, &a);
    analysed_free(&a);
}

/* ---- Mode changes (issue 13) ------------------------------------------------------ */

typedef struct change_arg {
    mel_model *m;
    bool from[4], to[4];
    mc_result *r;
    mc_all *all;
} change_arg;

static change_arg change_of(const char *file, const bool *from, const bool *to)
{
    size_t n;
    char *text = tm_read(file, &n);
    change_arg a;
    memset(&a, 0, sizeof a);
    cr_assert_eq(mel_model_parse(text, n, NULL, &a.m, NULL), MDAE_OK);
    free(text);
    memcpy(a.from, from, a.m->n_modes * sizeof *from);
    memcpy(a.to, to, a.m->n_modes * sizeof *to);
    cr_assert_eq(mc_change(a.m, a.from, a.to, NULL, &a.r, NULL, 0), MDAE_OK);
    cr_assert_eq(mc_all_enumerate(a.m, MC_ALL_MAX_PAIRS, &a.all, NULL, 0), MDAE_OK);
    return a;
}

static void change_free(change_arg *a)
{
    mc_result_free(a->r);
    mc_all_free(a->all);
    mel_model_free(a->m);
}

static int encode_change(const void *arg, cJSON **out)
{
    const change_arg *a = arg;
    return rpc_json_modechange(a->m, a->from, a->to, a->r, out);
}

static int encode_changes(const void *arg, cJSON **out)
{
    const change_arg *a = arg;
    return rpc_json_modechanges(a->m, a->all, out);
}

Test(rpc_json, modechange_survives_every_allocation_failure)
{
    const bool f[2] = {false, false}, t[2] = {true, true}; /* ambiguous: alternatives */
    change_arg a = change_of("rldc2.mel", f, t);
    cr_assert(a.r->ambiguous);
    check_oom(encode_change, &a);
    check_oom(encode_changes, &a);
    change_free(&a);
    change_arg b = change_of("clutch.mel", f, t); /* impulses and restart relations */
    cr_assert_gt(b.r->n_impulsive, 0);
    check_oom(encode_change, &b);
    change_free(&b);
}

Test(rpc_json, modechanges_count_pairs_and_index_the_equations)
{
    const bool f[1] = {false}, t[1] = {true};
    change_arg a = change_of("clutch.mel", f, t);
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_modechanges(a.m, a.all, &j), MDAE_OK);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "method")), "enumeration");
    const cJSON *eqs = cJSON_GetObjectItem(j, "equations");
    cr_assert_eq(cJSON_GetArraySize(eqs), 1);
    const cJSON *e3 = cJSON_GetArrayItem(eqs, 0);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(e3, "name")), "e3");
    const cJSON *in = cJSON_GetObjectItem(e3, "erasedIn");
    cr_assert_eq(cJSON_GetArraySize(in), 1);
    const cJSON *ch = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "changes"),
                                         cJSON_GetArrayItem(in, 0)->valueint);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(ch, "to"), "gamma")));
    cJSON_Delete(j);
    change_free(&a);
}

/* The classes and erasedWhen as formulas over g (before) and g' (after). */
Test(rpc_json, modechanges_give_each_class_as_a_formula_over_g_and_g_prime)
{
    const bool f[1] = {false}, t[1] = {true};
    change_arg a = change_of("clutch.mel", f, t);
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_modechanges(a.m, a.all, &j), MDAE_OK);
    const cJSON *cl = cJSON_GetObjectItem(j, "classes");
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(cl, "reset"),
                                                               "guard")),
                     "!gamma & gamma\u207a");
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(
                         cJSON_GetObjectItem(cl, "continuous"), "guard")),
                     "gamma & !gamma\u207a");
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(cl, "rejected"),
                                                              "guard")),
                     "false");
    const cJSON *e3 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "equations"), 0);
    const cJSON *w = cJSON_GetObjectItem(e3, "erasedWhen");
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(w, "guard")), "!gamma & gamma\u207a");
    const cJSON *cube = cJSON_GetArrayItem(cJSON_GetObjectItem(w, "cubes"), 0);
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(cube, "gamma")));
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(cube, "gamma\u207a")));
    cJSON_Delete(j);
    change_free(&a);
}

/* ---- A tree built from the previous version's (rpc_json_analysis_reusing) -------- */

/* text with every occurrence of from replaced by to (malloc'd). */
static char *replace_all(const char *text, const char *from, const char *to)
{
    size_t nf = strlen(from), nt = strlen(to), n = 0;
    for (const char *p = strstr(text, from); p != NULL; p = strstr(p + nf, from))
        n++;
    cr_assert_gt(n, 0, "'%s' not in the model", from);
    char *out = malloc(strlen(text) + n * nt + 1), *o = out;
    for (const char *p = text, *q; (q = strstr(p, from)) != NULL; p = q + nf) {
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, nt);
        o += nt;
        if (strstr(q + nf, from) == NULL)
            strcpy(o, q + nf);
    }
    return out;
}

/* The analysis JSON of text with N = n, built anew, or from prev. */
static cJSON *analysis_of(const char *text, long long n, cJSON *prev)
{
    mel_define d = {"N", n};
    mel_options mo = {0};
    mo.defines = &d;
    mo.n_defines = 1;
    analysed a;
    memset(&a, 0, sizeof a);
    cr_assert_eq(mel_model_parse(text, strlen(text), &mo, &a.m, NULL), MDAE_OK);
    cr_assert_eq(sa_begin(NULL), MDAE_OK);
    cr_assert_eq(sa_analyze(a.m, NULL, &a.res, NULL), MDAE_OK);
    cr_assert_eq(cdg_build(a.res, NULL, &a.g, NULL), MDAE_OK);
    cr_assert_eq(sa_result_report(a.res, &a.rep), MDAE_OK);
    cr_assert_eq(cdg_graph_report(a.g, &a.crep), MDAE_OK);
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_analysis_reusing(a.rep, a.crep, prev, &j), MDAE_OK);
    cr_assert_eq(rpc_json_add_bodies(j, a.crep, a.m), MDAE_OK);
    analysed_free(&a);
    return j;
}

static int members(const cJSON *o, const char *key)
{
    return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, key));
}

Test(rpc_json, a_tree_built_from_the_previous_versions_is_the_one_built_anew)
{
    char *v0 = tm_slurp("brake.mel");
    char *eq = replace_all(v0, "px[i] : equation b[i] = K*x[i];",
                           "px[i] : equation b[i] = K*x[i] + (if i == 5 then der(x[i]) else 0);");
    char *guard = replace_all(v0, "if open[i] then", "if open[i] & i <> 5 | !open[i] & i == 5 then");
    char *renamed = replace_all(v0, "open", "valve"); /* new mode-variable names */
    struct {
        const char *text;
        long long n;
        const char *what;
    } v[] = {{v0, 10, "original"}, {eq, 10, "one equation"},  {guard, 10, "one guard"},
             {guard, 11, "N + 1"},  {guard, 11, "the same"},  {renamed, 11, "renamed"},
             {v0, 9, "N - 2"}};
    cJSON *prev = analysis_of(v[0].text, v[0].n, NULL);
    for (size_t k = 1; k < sizeof v / sizeof v[0]; k++) {
        cJSON *anew = analysis_of(v[k].text, v[k].n, NULL);
        int before = members(prev, "equations") + members(prev, "blocks");
        cJSON *reused = analysis_of(v[k].text, v[k].n, prev);
        int taken = before - members(prev, "equations") - members(prev, "blocks");
        char *a = compact(anew), *b = compact(reused);
        cr_assert_str_eq(b, a, "%s: the tree differs from the one built anew", v[k].what);
        if (strcmp(v[k].what, "the same") == 0)
            cr_assert_eq(members(prev, "equations") + members(prev, "variables") +
                             members(prev, "blocks") + members(prev, "edges"),
                         0, "the same text: everything taken");
        else if (strcmp(v[k].what, "renamed") != 0)
            cr_assert_gt(taken, before / 2, "%s: only %d of %d taken", v[k].what, taken,
                         before);
        mdae_free(a);
        mdae_free(b);
        cJSON_Delete(anew);
        cJSON_Delete(prev);
        prev = reused;
    }
    cJSON_Delete(prev);
    free(v0);
    free(eq);
    free(guard);
    free(renamed);
}

/* ---- A tree built since the earlier report's keys (rpc_json_analysis_since) ------
 * engine/cdg_report_keys.h: the items whose keys did not change are neither
 * computed nor compared, only taken; the tree must still be the one built
 * anew, and an item whose functions changed under the same name must be
 * reported again. One BDD manager for the whole chain (the keys hold its
 * nodes). */

typedef struct since_run {
    cdg_report_keys *keys; /* the last report's */
    size_t marked, items; /* of the last report: marked the same, in all */
    size_t renamed_not;   /* items named as before at their place, not marked */
} since_run;

static size_t count_marked(const bool *m, size_t n)
{
    size_t k = 0;
    for (size_t q = 0; m != NULL && q < n; q++)
        k += m[q];
    return k;
}

/* Items named at place q as prev names them, but not marked. */
static size_t named_not_marked(const cJSON *prev, const cJSON *now, const char *key,
                               const bool *marked)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(prev, key)->child;
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(now, key)->child;
    size_t n = 0;
    for (size_t q = 0; a != NULL && b != NULL; a = a->next, b = b->next, q++)
        n += !marked[q] && strcmp(cJSON_GetObjectItemCaseSensitive(a, "name")->valuestring,
                                  cJSON_GetObjectItemCaseSensitive(b, "name")->valuestring) == 0;
    return n;
}

/* The analysis JSON of text with N = n, from prev (consumed: deleted) and
 * run->keys, the keys of the report prev was made of (NULL: built anew). */
static cJSON *analysis_since(const char *text, long long n, cJSON *prev, since_run *run)
{
    mel_define d = {"N", n};
    mel_options mo = {0};
    mo.defines = &d;
    mo.n_defines = 1;
    analysed a;
    memset(&a, 0, sizeof a);
    cr_assert_eq(mel_model_parse(text, strlen(text), &mo, &a.m, NULL), MDAE_OK);
    cr_assert_eq(sa_analyze(a.m, NULL, &a.res, NULL), MDAE_OK);
    cr_assert_eq(cdg_build(a.res, NULL, &a.g, NULL), MDAE_OK);
    cdg_report_keys *keys = NULL;
    cdg_report_same same;
    cr_assert_eq(cdg_report_since(a.res, a.g, run->keys, &a.rep, &a.crep, &keys, &same), MDAE_OK);
    cJSON *before = prev != NULL ? cJSON_Duplicate(prev, true) : NULL, *j = NULL;
    cr_assert_eq(rpc_json_analysis_since(a.rep, a.crep, prev, false, run->keys ? &same : NULL, &j,
                                         NULL),
                 MDAE_OK);
    cr_assert_eq(rpc_json_add_bodies(j, a.crep, a.m), MDAE_OK);
    run->marked = count_marked(same.equations, a.rep->n_equations) +
                  count_marked(same.variables, a.rep->n_variables) +
                  count_marked(same.blocks, a.crep->n_blocks) +
                  count_marked(same.edges, a.crep->n_edges);
    run->items = a.rep->n_equations + a.rep->n_variables + a.crep->n_blocks + a.crep->n_edges;
    run->renamed_not = before == NULL ? 0
                                      : named_not_marked(before, j, "equations", same.equations) +
                                            named_not_marked(before, j, "variables",
                                                             same.variables);
    cJSON_Delete(before);
    cJSON_Delete(prev);
    cdg_report_same_free(&same);
    cdg_report_keys_free(run->keys);
    run->keys = keys;
    cdg_report_free(a.crep);
    sa_report_free(a.rep);
    cdg_graph_free(a.g);
    sa_result_free(a.res);
    mel_model_free(a.m);
    return j;
}

Test(rpc_json, a_tree_built_since_the_earlier_reports_keys_is_the_one_built_anew)
{
    char *v0 = tm_slurp("brake.mel");
    char *eq = replace_all(v0, "px[i] : equation b[i] = K*x[i];",
                           "px[i] : equation b[i] = K*x[i] + (if i == 5 then der(x[i]) else 0);");
    /* railcar 5's valve equations keep their names, where they are active changes */
    char *guard = replace_all(v0, "if open[i] then", "if open[i] & i <> 5 | !open[i] & i == 5 then");
    char *renamed = replace_all(v0, "open", "valve"); /* new mode-variable names */
    struct {
        const char *text;
        long long n;
        const char *what;
    } v[] = {{v0, 10, "original"}, {eq, 10, "one equation"}, {guard, 10, "one guard"},
             {guard, 11, "N + 1"},  {guard, 11, "the same"}, {renamed, 11, "renamed"},
             {v0, 9, "N - 2"},      {v0, 9, "the same again"}};
    enum { NV = sizeof v / sizeof v[0] };
    char *anew[NV];
    for (size_t k = 0; k < NV; k++) { /* each with a BDD manager of its own */
        cJSON *j = analysis_of(v[k].text, v[k].n, NULL);
        anew[k] = compact(j);
        cJSON_Delete(j);
    }
    cr_assert_eq(sa_begin(NULL), MDAE_OK);
    since_run run = {0};
    cJSON *prev = analysis_since(v[0].text, v[0].n, NULL, &run);
    for (size_t k = 1; k < NV; k++) {
        cJSON *j = analysis_since(v[k].text, v[k].n, prev, &run);
        char *s = compact(j);
        cr_assert_str_eq(s, anew[k], "%s: the tree differs from the one built anew", v[k].what);
        if (strncmp(v[k].what, "the same", 8) == 0)
            cr_assert_eq(run.marked, run.items, "%s: %zu of %zu taken unseen", v[k].what,
                         run.marked, run.items);
        else if (v[k].n != v[k - 1].n || strcmp(v[k].what, "renamed") == 0)
            cr_assert_eq(run.marked, 0, "%s: other modes, every set is made again", v[k].what);
        else
            cr_assert_gt(run.marked, run.items / 2, "%s: only %zu of %zu taken unseen",
                         v[k].what, run.marked, run.items);
        if (strcmp(v[k].what, "one guard") == 0)
            cr_assert_gt(run.renamed_not, 0, "the items whose sets changed under their name");
        mdae_free(s);
        prev = j;
    }
    cJSON_Delete(prev);
    cdg_report_keys_free(run.keys);
    sa_end();
    for (size_t k = 0; k < NV; k++)
        mdae_free(anew[k]);
    free(v0);
    free(eq);
    free(guard);
    free(renamed);
}

/* Keys, the tree made of their report, and the next version's analysis. */
typedef struct since_case {
    analysed a;
    cdg_report_keys *keys;
    cJSON *tree;
} since_case;

static since_case since_case_open(void)
{
    char *v0 = tm_slurp("brake.mel");
    char *eq = replace_all(v0, "px[i] : equation b[i] = K*x[i];",
                           "px[i] : equation b[i] = K*x[i] + (if i == 2 then der(x[i]) else 0);");
    cr_assert_eq(sa_begin(NULL), MDAE_OK);
    since_run run = {0};
    since_case sc;
    memset(&sc, 0, sizeof sc);
    sc.tree = analysis_since(v0, 4, NULL, &run);
    sc.keys = run.keys;
    mel_define d = {"N", 4};
    mel_options mo = {0};
    mo.defines = &d;
    mo.n_defines = 1;
    cr_assert_eq(mel_model_parse(eq, strlen(eq), &mo, &sc.a.m, NULL), MDAE_OK);
    cr_assert_eq(sa_analyze(sc.a.m, NULL, &sc.a.res, NULL), MDAE_OK);
    cr_assert_eq(cdg_build(sc.a.res, NULL, &sc.a.g, NULL), MDAE_OK);
    free(v0);
    free(eq);
    return sc;
}

static void since_case_close(since_case *sc)
{
    cJSON_Delete(sc->tree);
    cdg_report_keys_free(sc->keys);
    analysed_free(&sc->a); /* sa_end */
}

Test(rpc_json, a_donor_that_is_not_the_keys_tree_is_refused)
{
    since_case sc = since_case_open();
    cdg_report_keys *keys = NULL;
    cdg_report_same same;
    cr_assert_eq(cdg_report_since(sc.a.res, sc.a.g, sc.keys, &sc.a.rep, &sc.a.crep, &keys, &same),
                 MDAE_OK);
    cr_assert(same.equations[0], "equation 0 is the earlier report's");
    cJSON *eq0 = cJSON_GetObjectItemCaseSensitive(sc.tree, "equations")->child;
    cJSON_SetValuestring(cJSON_GetObjectItemCaseSensitive(eq0, "name"), "not it");
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_analysis_since(sc.a.rep, sc.a.crep, sc.tree, false, &same, &j, NULL),
                 MDAE_E_STATE);
    cr_assert_null(j);
    cdg_report_same_free(&same);
    cdg_report_keys_free(keys);
    since_case_close(&sc);
}

static int encode_since(const void *arg, cJSON **out)
{
    const since_case *sc = arg;
    sa_report *rep = NULL;
    cdg_report *crep = NULL;
    cdg_report_keys *keys = NULL;
    cdg_report_same same = {0};
    cJSON *prev = cJSON_Duplicate(sc->tree, true);
    int rc = prev != NULL ? cdg_report_since(sc->a.res, sc->a.g, sc->keys, &rep, &crep, &keys, &same)
                          : MDAE_E_NOMEM;
    if (rc == MDAE_OK) {
        rc = rpc_json_analysis_since(rep, crep, prev, false, &same, out, NULL);
        cr_assert_gt(count_marked(same.equations, rep->n_equations), 0);
    }
    cJSON_Delete(prev);
    cdg_report_same_free(&same);
    cdg_report_keys_free(keys);
    cdg_report_free(crep);
    sa_report_free(rep);
    return rc;
}

Test(rpc_json, a_report_since_survives_every_allocation_failure)
{
    since_case sc = since_case_open();
    check_oom(encode_since, &sc);
    since_case_close(&sc);
}

/* ---- Differentiated bodies (issue 38, rpc_json_add_bodies) ---------------------- */

/* The analysis JSON of a MEL text, with its bodies. */
static cJSON *analysis_with_bodies(const char *text, analysed *a)
{
    memset(a, 0, sizeof *a);
    cr_assert_eq(mel_model_parse(text, strlen(text), NULL, &a->m, NULL), MDAE_OK);
    cr_assert_eq(sa_begin(NULL), MDAE_OK);
    cr_assert_eq(sa_analyze(a->m, NULL, &a->res, NULL), MDAE_OK);
    cr_assert_eq(cdg_build(a->res, NULL, &a->g, NULL), MDAE_OK);
    cr_assert_eq(sa_result_report(a->res, &a->rep), MDAE_OK);
    cr_assert_eq(cdg_graph_report(a->g, &a->crep), MDAE_OK);
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_analysis(a->rep, a->crep, &j), MDAE_OK);
    cr_assert_eq(rpc_json_add_bodies(j, a->crep, a->m), MDAE_OK);
    return j;
}

/* The body of the first equation of block eqs -> unks (NULL: none). */
static const char *block_body(const cJSON *j, const char *eqs, const char *unks)
{
    const cJSON *b = find_block(item(j, "blocks"), eqs, unks);
    cr_assert_not_null(b, "no block %s -> %s", eqs, unks);
    return str(cJSON_GetArrayItem(item(b, "equations"), 0), "body");
}

Test(rpc_json, blocks_carry_the_bodies_of_their_differentiated_equations)
{
    char *text = tm_slurp("water_tank.mel");
    analysed a;
    cJSON *j = analysis_with_bodies(text, &a);
    cr_assert_str_eq(block_body(j, "el2'", "x'"), "0 = if bl then -der(x) else der(yl)");
    cr_assert_str_eq(block_body(j, "eh2'", "x'"), "0 = if bh then der(x) else der(yh)");
    cr_assert_null(block_body(j, "el2", "yl"), "an equation not differentiated has no body");
    /* exactly the entries of order > 0 have one, after name and order */
    const cJSON *b, *e;
    cJSON_ArrayForEach(b, item(j, "blocks")) cJSON_ArrayForEach(e, item(b, "equations"))
    {
        cr_assert_eq(num(e, "order") > 0, str(e, "body") != NULL);
        if (str(e, "body") != NULL)
            cr_assert_str_eq(e->child->next->next->string, "body");
    }
    /* the per-mode view carries them too: bl, !bh */
    bool mode[2];
    mode[mel_model_find_mode(a.m, "bl")] = true;
    mode[mel_model_find_mode(a.m, "bh")] = false;
    cJSON *mj = mode_json(&a, mode);
    cr_assert_str_eq(block_body(mj, "el2'", "x'"), "0 = if bl then -der(x) else der(yl)");
    cJSON_Delete(mj);
    cJSON_Delete(j);
    analysed_free(&a);
    free(text);
}

Test(rpc_json, bodies_are_those_of_the_new_model_when_blocks_are_reused)
{
    /* same structure, another expression: the block is reused, its body not */
    char *v0 = tm_slurp("water_tank.mel");
    char *v1 = replace_all(v0, "0 = if bl then xmin - x else yl", "0 = if bl then xmin - 2*x else yl");
    analysed a0, a1;
    cJSON *prev = analysis_with_bodies(v0, &a0);
    analysed_free(&a0);
    cJSON *anew = analysis_with_bodies(v1, &a1);
    cJSON *reused = NULL;
    cr_assert_eq(rpc_json_analysis_reusing(a1.rep, a1.crep, prev, &reused), MDAE_OK);
    cr_assert_eq(members(prev, "blocks"), 0, "every block taken");
    cr_assert_null(block_body(reused, "el2'", "x'"), "a taken block's bodies are dropped");
    cr_assert_eq(rpc_json_add_bodies(reused, a1.crep, a1.m), MDAE_OK);
    char *x = compact(anew), *y = compact(reused);
    cr_assert_str_eq(y, x);
    cr_assert_str_eq(block_body(reused, "el2'", "x'"), "0 = if bl then -(2 * der(x)) else der(yl)");
    mdae_free(x);
    mdae_free(y);
    cJSON_Delete(reused);
    cJSON_Delete(anew);
    cJSON_Delete(prev);
    analysed_free(&a1);
    free(v1);
    free(v0);
}

Test(rpc_json, bodies_need_the_analysis_of_the_report)
{
    char *text = tm_slurp("water_tank.mel");
    analysed a;
    cJSON *j = analysis_with_bodies(text, &a);
    cJSON *o = cJSON_CreateObject();
    cr_assert_eq(rpc_json_add_bodies(o, a.crep, a.m), MDAE_E_INVAL); /* no blocks */
    cr_assert_eq(rpc_json_add_bodies(j, NULL, a.m), MDAE_E_INVAL);
    cr_assert_eq(rpc_json_add_bodies(j, a.crep, NULL), MDAE_E_INVAL);
    /* a block more or fewer than the report's (found while walking them) */
    cJSON *blocks = cJSON_GetObjectItemCaseSensitive(j, "blocks");
    cr_assert_not_null(blocks->child);
    cJSON_AddItemToArray(blocks, cJSON_Duplicate(blocks->child, true));
    cr_assert_eq(rpc_json_add_bodies(j, a.crep, a.m), MDAE_E_INVAL);
    cJSON_Delete(cJSON_DetachItemViaPointer(blocks, blocks->child));
    cJSON_Delete(cJSON_DetachItemViaPointer(blocks, blocks->child));
    cr_assert_eq(rpc_json_add_bodies(j, a.crep, a.m), MDAE_E_INVAL);
    cJSON_Delete(o);
    cJSON_Delete(j);
    analysed_free(&a);
    free(text);
}

static int encode_bodies(const void *arg, cJSON **out)
{
    const analysed *a = arg;
    int rc = rpc_json_analysis(a->rep, a->crep, out);
    if (rc == MDAE_OK && (rc = rpc_json_add_bodies(*out, a->crep, a->m)) < 0) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    return rc;
}

Test(rpc_json, bodies_survive_every_allocation_failure)
{
    char *text = tm_slurp("water_tank.mel");
    analysed a;
    cJSON *j = analysis_with_bodies(text, &a);
    cJSON_Delete(j);
    check_oom(encode_bodies, &a);
    analysed_free(&a);
    free(text);
}

/* ---- Bodies of blocks taken, vouched for, not looked at (issue 40 item 5) ------ */

/* One version's analysis in the chain's manager: its tree built since the
 * tree before (prev, consumed; NULL: anew) with its bodies kept where
 * same_of (the model before; NULL: none) shares an equation's sides, as
 * the worker does (wk_methods.c, bodies_same); with_nodes: taken's nodes
 * kept (the blocks vouched for not looked at), else dropped (every block
 * walked). */
static cJSON *tree_keeping_bodies(const char *text, const mel_model *before, cJSON *prev,
                                  cdg_report_keys **keys, bool with_nodes, mel_model **m,
                                  rpc_taken *in_place)
{
    mel_options mo = {0};
    mo.since = before;
    analysed a;
    memset(&a, 0, sizeof a);
    cr_assert_eq(mel_model_parse(text, strlen(text), &mo, &a.m, NULL), MDAE_OK);
    cr_assert_eq(sa_analyze(a.m, NULL, &a.res, NULL), MDAE_OK);
    cr_assert_eq(cdg_build(a.res, NULL, &a.g, NULL), MDAE_OK);
    cdg_report_keys *now = NULL;
    cdg_report_same same;
    cr_assert_eq(cdg_report_since(a.res, a.g, *keys, &a.rep, &a.crep, &now, &same), MDAE_OK);
    bool *body_same = NULL;
    if (before != NULL) {
        body_same = calloc(a.m->n_equations + 1, sizeof *body_same);
        for (uint32_t i = 0; i < a.m->n_equations && i < before->n_equations; i++)
            body_same[i] = a.m->equations[i].lhs != NULL &&
                           a.m->equations[i].lhs == before->equations[i].lhs &&
                           a.m->equations[i].rhs == before->equations[i].rhs;
    }
    rpc_taken taken;
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_analysis_in_place(a.rep, a.crep, prev, in_place, prev != NULL,
                                            *keys != NULL ? &same : NULL, &j, &taken),
                 MDAE_OK);
    if (!with_nodes)
        for (int s = 0; s < RPC_TAKEN_N; s++) {
            mdae_free(taken.node[s]);
            taken.node[s] = NULL;
        }
    cr_assert_eq(rpc_json_add_bodies_taking(j, a.crep, a.m, prev != NULL ? body_same : NULL,
                                            a.m->n_equations, &taken),
                 MDAE_OK);
    if (in_place != NULL) { /* the next tree's, in place of this one */
        rpc_taken_free(in_place);
        *in_place = taken;
    } else
        rpc_taken_free(&taken);
    free(body_same);
    cJSON_Delete(prev);
    cdg_report_same_free(&same);
    cdg_report_keys_free(*keys);
    *keys = now;
    cdg_report_free(a.crep);
    sa_report_free(a.rep);
    cdg_graph_free(a.g);
    sa_result_free(a.res);
    *m = a.m;
    return j;
}

/* The brake, one railcar's piston equation gaining a derivative and
 * losing it again (bench_server's row 5), then fewer and more railcars
 * (arrays shorter and longer than the tree before's): the blocks taken
 * whose bodies are vouched for are not looked at (taken's nodes), and
 * each tree is the one built anew with its bodies, whether the tree
 * before's arrays are walked, reached through their nodes, or built in
 * place (rpc_json_analysis_in_place). */
Test(rpc_json, blocks_taken_with_their_bodies_vouched_for_are_the_tree_built_anew)
{
    char *v0 = tm_slurp("brake.mel");
    char *v1 = replace_all(v0, "px[i] : equation b[i] = K*x[i];",
                           "px[i] : equation b[i] = K*x[i] + (if i == 2 then der(x[i]) else 0);");
    char *v2 = replace_all(v1, "N : integer = 3;", "N : integer = 2;");
    char *v3 = replace_all(v1, "N : integer = 3;", "N : integer = 4;");
    enum { NT = 7 };
    const char *texts[NT] = {v0, v1, v0, v1, v2, v3, v1};
    char *anew[NT];
    for (int k = 0; k < NT; k++) {
        analysed a;
        cJSON *j = analysis_with_bodies(texts[k], &a);
        anew[k] = compact(j);
        cJSON_Delete(j);
        analysed_free(&a);
    }
    static const char *const how[] = {"walked", "nodes", "in place"};
    for (int mode = 0; mode < 3; mode++) {
        cr_assert_eq(sa_begin(NULL), MDAE_OK);
        cdg_report_keys *keys = NULL;
        mel_model *m = NULL;
        cJSON *tree = NULL;
        rpc_taken nodes = {0};
        for (int k = 0; k < NT; k++) {
            mel_model *was = m;
            tree = tree_keeping_bodies(texts[k], was, tree, &keys, mode > 0, &m,
                                       mode == 2 ? &nodes : NULL);
            char *s = compact(tree);
            cr_assert_str_eq(s, anew[k], "version %d (%s)", k, how[mode]);
            mdae_free(s);
            mel_model_free(was);
        }
        rpc_taken_free(&nodes);
        cJSON_Delete(tree);
        cdg_report_keys_free(keys);
        mel_model_free(m);
        sa_end();
    }
    for (int k = 0; k < NT; k++)
        mdae_free(anew[k]);
    free(v0);
    free(v1);
    free(v2);
    free(v3);
}
