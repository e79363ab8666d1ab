/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/server/test_srv_approx.c -- session/approx (issue 38 item 6): what a
 * single-mode tool makes of a session's model, over a real mdaed. The
 * Water Tank's pivot (eh2 solved for yh, zero when bh), the result being
 * `mdae approx --json`'s plus the session's version; one approximate
 * analysis per version however often it is asked; a session of another
 * connection answered exactly as one nobody holds; bad params -32602; a
 * model with errors answers them.
 */
#include "srv_test.h"

/* session/approx on sid from c (id 7): the whole reply (owned). */
static cJSON *approx_on(client *c, const char *sid)
{
    return cl_request(c, 7, "session/approx", session_params(sid));
}

static cJSON *result_of(cJSON *r)
{
    cJSON *res = cJSON_GetObjectItem(r, "result");
    cr_assert_not_null(res, "session/approx failed: %s", cJSON_PrintUnformatted(r));
    return res;
}

/* The worker's counters (debug/analyses): analyses and approximations. */
static int counter(client *c, const char *sid, const char *name)
{
    cJSON *r = cl_request(c, 8, "debug/analyses", session_params(sid));
    const cJSON *n = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), name);
    cr_assert(cJSON_IsNumber(n), "%s: %s", name, cJSON_PrintUnformatted(r));
    int v = n->valueint;
    cJSON_Delete(r);
    return v;
}

Test(srv_approx, finds_the_water_tanks_pivot_like_the_cli_once_per_version)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *text = t_model("water_tank.mel");
    char *sid = cl_open(&c, text);
    cJSON *r = approx_on(&c, sid);
    cJSON *res = result_of(r);
    cr_assert_eq(cJSON_GetObjectItem(res, "version")->valueint, 1);
    const cJSON *f, *pivot = NULL;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(res, "findings"))
    {
        const cJSON *eq = cJSON_GetObjectItem(f, "equation");
        if (strcmp(cJSON_GetObjectItem(f, "kind")->valuestring, "pivot") == 0 &&
            cJSON_IsString(eq) && strcmp(eq->valuestring, "eh2") == 0)
            pivot = f;
    }
    cr_assert_not_null(pivot, "no pivot on eh2: %s", cJSON_PrintUnformatted(res));
    cr_assert_str_eq(cJSON_GetObjectItem(pivot, "variable")->valuestring, "yh");
    cr_assert_str_eq(
        cJSON_GetObjectItem(cJSON_GetObjectItem(pivot, "modes"), "formula")->valuestring, "bh");
    /* The result is the CLI's, plus the version. */
    cJSON *cli = t_cli_json("approx --json", "water_tank.mel");
    cJSON_DeleteItemFromObject(res, "version");
    char *a = cJSON_PrintUnformatted(res), *b = cJSON_PrintUnformatted(cli);
    cr_assert_str_eq(a, b);
    cJSON_free(a);
    cJSON_free(b);
    cJSON_Delete(cli);
    cJSON_Delete(r);

    /* Asked again, from the kept analysis: no analysis, no approximation. */
    cJSON_Delete(cl_request(&c, 9, "session/analyze", session_params(sid)));
    cJSON_Delete(approx_on(&c, sid));
    cr_assert_eq(counter(&c, sid, "analyses"), 1);
    cr_assert_eq(counter(&c, sid, "approximations"), 1, "one per version");
    /* An edit: a new version, approximated once more. */
    cJSON *ep = session_params(sid);
    cJSON_AddStringToObject(ep, "text", "x : real;\ne : equation der(x) = -x;\n");
    cJSON_Delete(cl_request(&c, 10, "session/edit", ep));
    r = approx_on(&c, sid);
    res = result_of(r);
    cr_assert_eq(cJSON_GetObjectItem(res, "version")->valueint, 2);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(res, "findings")), 0,
                 "one mode: nothing wrong: %s", cJSON_PrintUnformatted(res));
    cJSON_Delete(r);
    cr_assert_eq(counter(&c, sid, "approximations"), 2);
    free(sid);
    free(text);
    cl_close(&c);
    srv_stop(&p);
}

/* A Modelica session: the CLI's answer on the same file (pivots, when the
 * front-end keeps expressions, printed as Modelica). */
Test(srv_approx, answers_a_modelica_session_like_the_cli)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *text = t_model("water_tank.mo");
    cJSON *op = cJSON_CreateObject();
    cJSON_AddStringToObject(op, "text", text);
    cJSON_AddStringToObject(op, "format", "modelica");
    cJSON *o = cl_request(&c, 1, "session/open", op);
    const cJSON *sid = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "result"), "session");
    cr_assert(cJSON_IsString(sid), "%s", cJSON_PrintUnformatted(o));
    cJSON *r = approx_on(&c, sid->valuestring);
    cJSON *res = result_of(r);
    cJSON_DeleteItemFromObject(res, "version");
    cJSON *cli = t_cli_json("approx --json", "water_tank.mo");
    cr_assert_not_null(cli);
    char *a = cJSON_PrintUnformatted(res), *b = cJSON_PrintUnformatted(cli);
    cr_assert_str_eq(a, b);
    cr_assert_not_null(strstr(a, "\"equation\":\"eh2\",\"variable\":\"yh\""), "%s", a);
    cJSON_free(a);
    cJSON_free(b);
    cJSON_Delete(cli);
    cJSON_Delete(r);
    cJSON_Delete(o);
    free(text);
    cl_close(&c);
    srv_stop(&p);
}

Test(srv_approx, answers_anothers_session_as_one_nobody_holds_and_bad_params_with_32602)
{
    srv_proc p;
    client a, b;
    srv_start(&p, "", "");
    cl_connect(&a, &p);
    cl_connect(&b, &p);
    char *text = t_model("water_tank.mel");
    char *sid = cl_open(&a, text);
    /* b asks for a's session, then for one nobody holds: the same bytes
     * but for the id. */
    cJSON *theirs = approx_on(&b, sid);
    cJSON *none = approx_on(&b, "s-nobody-holds-this-one");
    cr_assert_eq(error_code(theirs), RPC_MDAE_CODE(MDAE_E_STATE));
    cr_assert_str_eq(error_message(theirs), "no such session");
    cr_assert_str_eq(
        cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(theirs, "error"), "data"),
                            "session")
            ->valuestring,
        sid);
    cJSON_ReplaceItemInObject(
        cJSON_GetObjectItem(cJSON_GetObjectItem(none, "error"), "data"), "session",
        cJSON_CreateString(sid));
    char *x = cJSON_PrintUnformatted(theirs), *y = cJSON_PrintUnformatted(none);
    cr_assert_str_eq(x, y);
    cJSON_free(x);
    cJSON_free(y);
    cJSON_Delete(theirs);
    cJSON_Delete(none);
    cr_assert_eq(counter(&a, sid, "analyses"), 0, "b's request reached no worker");

    /* Bad params: none, no session, a session that is not a string, an
     * unknown member. */
    cJSON *bad[4] = {NULL, cJSON_CreateObject(), cJSON_CreateObject(), session_params(sid)};
    cJSON_AddNumberToObject(bad[2], "session", 1);
    cJSON_AddTrueToObject(bad[3], "stream");
    for (int k = 0; k < 4; k++) {
        cJSON *r = cl_request(&a, 20 + k, "session/approx", bad[k]);
        cr_assert_eq(error_code(r), -32602, "params %d: %s", k, cJSON_PrintUnformatted(r));
        cJSON_Delete(r);
    }
    /* Its owner still gets it. */
    cJSON *r = approx_on(&a, sid);
    result_of(r);
    cJSON_Delete(r);
    free(sid);
    free(text);
    cl_close(&a);
    cl_close(&b);
    srv_stop(&p);
}

Test(srv_approx, a_model_with_errors_answers_them)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    cJSON *op = cJSON_CreateObject();
    cJSON_AddStringToObject(op, "text", "x : real;\ne : equation der(x) = -x;\n");
    cJSON *o = cl_request(&c, 1, "session/open", op);
    char *sid = strdup(
        cJSON_GetObjectItem(cJSON_GetObjectItem(o, "result"), "session")->valuestring);
    cJSON_Delete(o);
    cJSON *ep = session_params(sid);
    cJSON_AddStringToObject(ep, "text", "x : real;\ne : equation der(y) = -x;\n");
    cJSON *e = cl_request(&c, 2, "session/edit", ep);
    cJSON_Delete(e);
    cJSON *r = approx_on(&c, sid);
    cr_assert_eq(error_code(r), RPC_MDAE_CODE(MDAE_E_MODEL), "%s", cJSON_PrintUnformatted(r));
    cJSON_Delete(r);
    free(sid);
    cl_close(&c);
    srv_stop(&p);
}
