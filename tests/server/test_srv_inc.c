/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/server/test_srv_inc.c -- the worker's incremental analysis (issue
 * 6): across session/edit, a model whose structure did not change is
 * reused (session/analyze {reuse:true} says so), a changed one recomputed,
 * and either way the result is exactly the cold one (a fresh session on the
 * same text).
 */
#include "srv_test.h"

static cJSON *edit_line(const char *sid, int line, int from, int to, const char *text)
{
    cJSON *p = session_params(sid);
    cJSON *edits = cJSON_AddArrayToObject(p, "edits");
    cJSON *e = cJSON_CreateObject();
    cJSON *range = cJSON_AddObjectToObject(e, "range");
    cJSON *s = cJSON_AddObjectToObject(range, "start");
    cJSON_AddNumberToObject(s, "line", line);
    cJSON_AddNumberToObject(s, "character", from);
    cJSON *en = cJSON_AddObjectToObject(range, "end");
    cJSON_AddNumberToObject(en, "line", line);
    cJSON_AddNumberToObject(en, "character", to);
    cJSON_AddStringToObject(e, "text", text);
    cJSON_AddItemToArray(edits, e);
    return p;
}

/* session/analyze; *reuse (may be NULL) gets {components, reused,
 * recomputed}, and the result is returned without that member. */
static cJSON *analyze(client *c, const char *sid, bool with_reuse, int rs[3])
{
    cJSON *p = session_params(sid);
    if (with_reuse)
        cJSON_AddBoolToObject(p, "reuse", true);
    cJSON *r = cl_request(c, 7, "session/analyze", p);
    cJSON *res = cJSON_DetachItemFromObject(r, "result");
    cr_assert_not_null(res, "%s", cJSON_PrintUnformatted(r));
    cJSON_Delete(r);
    cJSON *ru = cJSON_DetachItemFromObject(res, "reuse");
    cr_assert_eq(ru != NULL, with_reuse, "reuse only when asked");
    if (ru != NULL) {
        rs[0] = cJSON_GetObjectItem(ru, "components")->valueint;
        rs[1] = cJSON_GetObjectItem(ru, "reused")->valueint;
        rs[2] = cJSON_GetObjectItem(ru, "recomputed")->valueint;
        cJSON_Delete(ru);
    }
    return res;
}

static void assert_same(const cJSON *a, const cJSON *b, const char *what)
{
    char *x = cJSON_PrintUnformatted(a), *y = cJSON_PrintUnformatted(b);
    cr_assert_str_eq(x, y, "%s", what);
    cJSON_free(x);
    cJSON_free(y);
}

Test(srv_inc, an_edit_that_keeps_the_structure_is_reused_and_results_equal_cold_ones)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *text = t_model("brake.mel");
    /* The line of `N : integer = 3;` (0-based). */
    const char *np = strstr(text, "N : integer = 3;");
    cr_assert_not_null(np);
    int nline = 0;
    for (const char *q = text; q < np; q++)
        nline += *q == '\n';

    char *sid = cl_open(&c, text);
    int rs[3];
    cJSON *r1 = analyze(&c, sid, true, rs);
    cr_assert_eq(rs[0], 1, "the brake is one component");
    cr_assert_eq(rs[2], 1);

    /* A comment: same structure, reused. */
    cJSON_Delete(cl_request(&c, 8, "session/edit", edit_line(sid, 0, 0, 0, "// edited\n")));
    cJSON *r2 = analyze(&c, sid, true, rs);
    cr_assert_eq(rs[1], 1, "reused after a comment");
    cr_assert_eq(rs[2], 0);
    assert_same(r1, r2, "same result after a comment");

    /* N = 4: recomputed, and equal to a cold session's result. */
    cJSON_Delete(cl_request(&c, 9, "session/edit",
                            edit_line(sid, nline + 1, 0, 16, "N : integer = 4;")));
    cJSON *r3 = analyze(&c, sid, true, rs);
    cr_assert_eq(rs[2], 1, "recomputed after N changed");
    char *t4 = malloc(strlen(text) + 16);
    size_t before = (size_t)(np - text);
    memcpy(t4, "// edited\n", 10);
    memcpy(t4 + 10, text, before);
    strcpy(t4 + 10 + before, "N : integer = 4;");
    strcat(t4, np + 16);
    char *cold_sid = cl_open(&c, t4);
    cJSON *cold = analyze(&c, cold_sid, false, NULL);
    assert_same(r3, cold, "incremental after N=4 equals cold");

    /* Back to N = 3: the cache still has it. */
    cJSON_Delete(cl_request(&c, 10, "session/edit",
                            edit_line(sid, nline + 1, 0, 16, "N : integer = 3;")));
    cJSON *r4 = analyze(&c, sid, true, rs);
    cr_assert_eq(rs[1], 1, "N = 3 again is reused");
    assert_same(r1, r4, "same result as the first N = 3");

    cJSON_Delete(r1);
    cJSON_Delete(r2);
    cJSON_Delete(r3);
    cJSON_Delete(r4);
    cJSON_Delete(cold);
    free(t4);
    free(sid);
    free(cold_sid);
    free(text);
    cl_close(&c);
    srv_stop(&p);
}
