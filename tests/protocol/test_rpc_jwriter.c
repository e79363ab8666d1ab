/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/protocol/test_rpc_jwriter.c -- JSON written as it is produced
 * (protocol/rpc_jwriter.h, issue 40): the printer gives rpc_print_text's
 * text for every kind of node (escapes, integers, other numbers, raw
 * nodes); the writer's objects and arrays give the text of the tree they
 * stand for, across chunks; a failing sink stops it for good; and the
 * analysis written item by item (rpc_json_report_write,
 * rpc_json_cdg_write) is the text of the tree rpc_json_analysis,
 * rpc_json_add_bodies and rpc_json_add_left_out build, on the papers'
 * models.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rpc_json.h"
#include "rpc_jwriter.h"
#include "rpc_message.h"

#include "model_files.h"

/* A sink into an mdae_buf; counts its calls. */
typedef struct into_buf {
    mdae_buf b;
    int calls;
    int fail_after; /* > 0: the call after that many fails */
} into_buf;

static int buf_sink(void *arg, const char *p, size_t n)
{
    into_buf *s = arg;
    if (s->fail_after > 0 && s->calls >= s->fail_after)
        return MDAE_E_IO;
    s->calls++;
    mdae_buf_put(&s->b, p, n);
    return MDAE_OK;
}

static void assert_prints_as_cjson(const cJSON *tree)
{
    char *want = rpc_print_text(tree, false);
    cr_assert_not_null(want);
    mdae_buf got = {0};
    cr_assert_eq(rpc_jw_print(tree, &got), MDAE_OK);
    cr_assert_str_eq(got.p, want);
    mdae_free(got.p);
    mdae_free(want);
}

Test(rpc_jwriter, prints_every_kind_of_node_as_rpc_print_text)
{
    rpc_json_init();
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "plain", "abc");
    cJSON_AddStringToObject(t, "escapes", "q\"b\\s/n\nt\tr\rb\bf\f\x01\x1f\x7f caf\xc3\xa9");
    cJSON_AddStringToObject(t, "empty", "");
    cJSON_AddStringToObject(t, "k\"ey\n", "v");
    double nums[] = {0,      -0.0,    42,       -7,   1e15,          -1e15,    999999999999999,
                     2147483648.0, 0.5, 1.0 / 3, -2.75e-7, 1e300, 123456789.125, NAN, INFINITY};
    cJSON *arr = cJSON_AddArrayToObject(t, "numbers");
    for (size_t k = 0; k < sizeof nums / sizeof *nums; k++)
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(nums[k]));
    cJSON_AddTrueToObject(t, "yes");
    cJSON_AddFalseToObject(t, "no");
    cJSON_AddNullToObject(t, "nothing");
    cJSON_AddRawToObject(t, "raw", "{\"x\": 1}");
    cJSON_AddObjectToObject(t, "emptyObject");
    cJSON_AddArrayToObject(t, "emptyArray");
    cJSON *deep = cJSON_AddArrayToObject(t, "nested");
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(deep, o);
    cJSON_AddItemToObject(o, "a", cJSON_CreateIntArray((const int[]){1, 2, 3}, 3));
    assert_prints_as_cjson(t);
    cJSON_Delete(t);
}

Test(rpc_jwriter, refuses_a_node_cjson_does_not_print)
{
    cJSON bad;
    memset(&bad, 0, sizeof bad); /* cJSON_Invalid */
    mdae_buf got = {0};
    cr_assert_eq(rpc_jw_print(&bad, &got), MDAE_E_INVAL);
    cJSON raw;
    memset(&raw, 0, sizeof raw);
    raw.type = cJSON_Raw; /* without its text */
    cr_assert_eq(rpc_jw_print(&raw, &got), MDAE_E_INVAL);
    mdae_free(got.p);
}

/* {"head":{"n":1},"items":[{"k":0,"s":"item 0"}, ...],"tail":true,"last":"x"}
 * with n items, written piece by piece and built whole. */
static cJSON *item(int k)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "k", k);
    char s[32];
    snprintf(s, sizeof s, "item \"%d\"", k);
    cJSON_AddStringToObject(o, "s", s);
    return o;
}

Test(rpc_jwriter, writes_the_text_of_the_tree_it_stands_for_across_chunks)
{
    rpc_json_init();
    const int n = 20000; /* about 500 KB: several chunks */
    cJSON *whole = cJSON_CreateObject();
    cJSON *head = cJSON_AddObjectToObject(whole, "head");
    cJSON_AddNumberToObject(head, "n", n);
    cJSON *items = cJSON_AddArrayToObject(whole, "items");
    for (int k = 0; k < n; k++)
        cJSON_AddItemToArray(items, item(k));
    cJSON_AddTrueToObject(whole, "tail");
    cJSON_AddStringToObject(whole, "last", "x");

    into_buf s = {{0}, 0, 0};
    rpc_jw w;
    rpc_jw_init(&w, buf_sink, &s);
    cr_assert_eq(rpc_jw_open_object(&w, NULL), MDAE_OK);
    cr_assert_eq(rpc_jw_value(&w, "head", head), MDAE_OK);
    cr_assert_eq(rpc_jw_open_array(&w, "items"), MDAE_OK);
    for (int k = 0; k < n; k++) {
        cJSON *one = item(k);
        cr_assert_eq(rpc_jw_value(&w, NULL, one), MDAE_OK);
        cJSON_Delete(one);
    }
    cr_assert_eq(rpc_jw_close_one(&w), MDAE_OK);
    cJSON *rest = cJSON_CreateObject();
    cJSON_AddTrueToObject(rest, "tail");
    cJSON_AddStringToObject(rest, "last", "x");
    cr_assert_eq(rpc_jw_members(&w, rest), MDAE_OK);
    cJSON_Delete(rest);
    cr_assert_eq(rpc_jw_close_one(&w), MDAE_OK);
    cr_assert_eq(w.depth, 0u);
    cr_assert_eq(rpc_jw_flush(&w), MDAE_OK);
    rpc_jw_close(&w);
    cr_assert_gt(s.calls, 3, "written in chunks, not at the end: %d", s.calls);
    char *want = rpc_print_text(whole, false);
    cr_assert_str_eq(s.b.p, want);
    mdae_free(want);
    mdae_free(s.b.p);
    cJSON_Delete(whole);
}

Test(rpc_jwriter, a_failing_sink_stops_the_writer_for_good)
{
    rpc_json_init();
    into_buf s = {{0}, 0, 1};
    rpc_jw w;
    rpc_jw_init(&w, buf_sink, &s);
    cr_assert_eq(rpc_jw_open_array(&w, NULL), MDAE_OK);
    int rc = MDAE_OK;
    for (int k = 0; k < 20000 && rc == MDAE_OK; k++) {
        cJSON *one = item(k);
        rc = rpc_jw_value(&w, NULL, one);
        cJSON_Delete(one);
    }
    cr_assert_eq(rc, MDAE_E_IO, "the second chunk fails");
    cr_assert_eq(rpc_jw_close_one(&w), MDAE_E_IO);
    cr_assert_eq(rpc_jw_raw(&w, "x", 1), MDAE_E_IO);
    cr_assert_eq(rpc_jw_flush(&w), MDAE_E_IO);
    cr_assert_eq(s.calls, 1, "nothing more reached the sink");
    rpc_jw_close(&w);
    mdae_free(s.b.p);
}

Test(rpc_jwriter, refuses_nesting_past_its_depth)
{
    into_buf s = {{0}, 0, 0};
    rpc_jw w;
    rpc_jw_init(&w, buf_sink, &s);
    int rc = MDAE_OK;
    for (int k = 0; k <= RPC_JW_DEPTH && rc == MDAE_OK; k++)
        rc = rpc_jw_open_array(&w, NULL);
    cr_assert_eq(rc, MDAE_E_INVAL);
    cr_assert_eq(rpc_jw_members(&w, NULL), MDAE_E_INVAL);
    rpc_jw_close(&w);
    mdae_free(s.b.p);
}

/* The analysis of a model file, written item by item and built as a tree:
 * the same text. */
static void assert_written_as_built(const char *name)
{
    size_t n;
    char *text = tm_read(name, &n);
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, n, NULL, &m, NULL), MDAE_OK, "%s", name);
    free(text);
    sa_result *res = NULL;
    cdg_graph *g = NULL;
    sa_report *rep = NULL;
    cdg_report *crep = NULL;
    cr_assert_eq(sa_begin(NULL), MDAE_OK);
    cr_assert_eq(sa_analyze(m, NULL, &res, NULL), MDAE_OK, "%s", name);
    cr_assert_eq(cdg_build(res, NULL, &g, NULL), MDAE_OK);
    cr_assert_eq(sa_result_report(res, &rep), MDAE_OK);
    cr_assert_eq(cdg_graph_report(g, &crep), MDAE_OK);

    cJSON *tree = NULL;
    cr_assert_eq(rpc_json_analysis(rep, crep, &tree), MDAE_OK);
    cr_assert_eq(rpc_json_add_bodies(tree, crep, m), MDAE_OK);
    cr_assert_eq(rpc_json_add_left_out(tree, m), MDAE_OK);
    char *want = rpc_print_text(tree, false);

    into_buf s = {{0}, 0, 0};
    rpc_jw w;
    rpc_jw_init(&w, buf_sink, &s);
    cr_assert_eq(rpc_jw_open_object(&w, NULL), MDAE_OK);
    cr_assert_eq(rpc_json_report_write(rep, &w), MDAE_OK);
    cr_assert_eq(rpc_json_cdg_write(crep, m, &w), MDAE_OK);
    cr_assert_eq(rpc_jw_close_one(&w), MDAE_OK);
    cr_assert_eq(rpc_jw_flush(&w), MDAE_OK);
    rpc_jw_close(&w);
    cr_assert_str_eq(s.b.p, want, "%s", name);

    mdae_free(s.b.p);
    mdae_free(want);
    cJSON_Delete(tree);
    cdg_report_free(crep);
    sa_report_free(rep);
    cdg_graph_free(g);
    sa_result_free(res);
    sa_end();
    mel_model_free(m);
}

Test(rpc_jwriter, the_analysis_written_item_by_item_is_the_tree_printed)
{
    rpc_json_init();
    const char *files[] = {"rldc2.mel", "water_tank.mel", "brake.mel",
                           "building_compressible.mel", "clutch.mel"};
    for (size_t k = 0; k < sizeof files / sizeof *files; k++)
        assert_written_as_built(files[k]);
}

Test(rpc_jwriter, the_writers_refuse_what_the_encoders_refuse)
{
    sa_diagnostic bad_diag = {SA_DIAG_OVERDETERMINED, 5, {"true", 0, 0, 0, NULL}};
    sa_report rep;
    memset(&rep, 0, sizeof rep);
    rep.n_diagnostics = 1;
    rep.diagnostics = &bad_diag; /* points past no equations */
    into_buf s = {{0}, 0, 0};
    rpc_jw w;
    rpc_jw_init(&w, buf_sink, &s);
    cr_assert_eq(rpc_json_report_write(&rep, &w), MDAE_E_INVAL);
    cr_assert_eq(rpc_json_report_write(NULL, &w), MDAE_E_INVAL);
    cdg_report_edge bad_edge = {3, 4, {"true", 0, 0, 0, NULL}};
    cdg_report crep;
    memset(&crep, 0, sizeof crep);
    crep.n_edges = 1;
    crep.edges = &bad_edge; /* between blocks that do not exist */
    cr_assert_eq(rpc_json_cdg_write(&crep, NULL, &w), MDAE_E_INVAL);
    cr_assert_eq(s.calls, 0);
    rpc_jw_close(&w);
}

/* rpc_jw_string, rpc_jw_number and rpc_jw_bool write what rpc_jw_value
 * writes for the node they stand for: escapes, integers and the numbers
 * cJSON prints itself (past 10^15, fractions, -0). */
Test(rpc_jwriter, scalars_written_without_a_node_are_the_nodes_printed)
{
    const char *strings[] = {"", "x", "a\"b\\c", "tab\there\nline\x01\x1f end", "é ü"};
    const double numbers[] = {0, -0.0, 1, -7, 0.5, 1e15, -1e15, 999999999999999, 1e300, 3.25e-7};
    into_buf a = {{0}, 0, 0}, b = {{0}, 0, 0};
    rpc_jw wa, wb;
    rpc_jw_init(&wa, buf_sink, &a);
    rpc_jw_init(&wb, buf_sink, &b);
    cr_assert_eq(rpc_jw_open_object(&wa, NULL), MDAE_OK);
    cr_assert_eq(rpc_jw_open_object(&wb, NULL), MDAE_OK);
    for (size_t k = 0; k < sizeof strings / sizeof *strings; k++) {
        cJSON *v = cJSON_CreateString(strings[k]);
        cr_assert_eq(rpc_jw_value(&wa, strings[k], v), MDAE_OK);
        cr_assert_eq(rpc_jw_string(&wb, strings[k], strings[k]), MDAE_OK);
        cJSON_Delete(v);
    }
    for (size_t k = 0; k < sizeof numbers / sizeof *numbers; k++) {
        cJSON *v = cJSON_CreateNumber(numbers[k]);
        cr_assert_eq(rpc_jw_value(&wa, "n", v), MDAE_OK);
        cr_assert_eq(rpc_jw_number(&wb, "n", numbers[k]), MDAE_OK);
        cJSON_Delete(v);
    }
    for (int k = 0; k < 2; k++) {
        cJSON *v = cJSON_CreateBool(k);
        cr_assert_eq(rpc_jw_value(&wa, NULL, v), MDAE_OK);
        cr_assert_eq(rpc_jw_bool(&wb, NULL, k), MDAE_OK);
        cJSON_Delete(v);
    }
    cr_assert_eq(rpc_jw_close_one(&wa), MDAE_OK);
    cr_assert_eq(rpc_jw_close_one(&wb), MDAE_OK);
    cr_assert_eq(rpc_jw_flush(&wa), MDAE_OK);
    cr_assert_eq(rpc_jw_flush(&wb), MDAE_OK);
    cr_assert_str_eq(b.b.p, a.b.p);
    cr_assert_eq(rpc_jw_string(&wb, "s", NULL), MDAE_E_INVAL, "no node for NULL: no text");
    rpc_jw_close(&wa);
    rpc_jw_close(&wb);
    mdae_free(a.b.p);
    mdae_free(b.b.p);
}
