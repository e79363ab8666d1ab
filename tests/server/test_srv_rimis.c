/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/server/test_srv_rimis.c -- session/rimis (issue 39): a session's
 * model as one flat Modelica model single-mode tools simulate correctly,
 * over a real mdaed. The result is `mdae rimis --json`'s plus the session's
 * version (guarded, and unguarded with guard: false, `--no-guard`), built
 * once per version and guard setting; a singular model is refused with its
 * located diagnostics in the error's data; a session of another connection
 * is answered exactly as one nobody holds; bad params -32602; a model with
 * errors answers them.
 */
#include "srv_test.h"

/* session/rimis on sid from c (id 7), with guard unless guard < 0: the
 * whole reply (owned). */
static cJSON *rimis_on(client *c, const char *sid, int guard)
{
    cJSON *p = session_params(sid);
    if (guard >= 0)
        cJSON_AddBoolToObject(p, "guard", guard);
    return cl_request(c, 7, "session/rimis", p);
}

static cJSON *result_of(cJSON *r)
{
    cJSON *res = cJSON_GetObjectItem(r, "result");
    cr_assert_not_null(res, "session/rimis failed: %s", cJSON_PrintUnformatted(r));
    return res;
}

/* The worker's counter of RIMIS constructions (debug/analyses). */
static int builds(client *c, const char *sid)
{
    cJSON *r = cl_request(c, 8, "debug/analyses", session_params(sid));
    const cJSON *n = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "rimis");
    cr_assert(cJSON_IsNumber(n), "%s", cJSON_PrintUnformatted(r));
    int v = n->valueint;
    cJSON_Delete(r);
    return v;
}

/* A session on tests/models/<file>, read as format (NULL: MEL). */
static char *open_model(client *c, const char *file, const char *format)
{
    char *text = t_model(file);
    cJSON *op = cJSON_CreateObject();
    cJSON_AddStringToObject(op, "text", text);
    if (format != NULL)
        cJSON_AddStringToObject(op, "format", format);
    cJSON *o = cl_request(c, 1, "session/open", op);
    const cJSON *sid = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "result"), "session");
    cr_assert(cJSON_IsString(sid), "%s", cJSON_PrintUnformatted(o));
    char *id = strdup(sid->valuestring);
    cJSON_Delete(o);
    free(text);
    return id;
}

/* `mdae ARGS -` with tests/models/<file> on stdin, as JSON (owned): a model
 * read from stdin is named as a session's is (rimis_build's default). */
static cJSON *cli_json_stdin(const char *args, const char *file)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/clients/mdae %s - < %s/tests/models/%s 2>/dev/null",
             MDAE_BINARY_DIR, args, MDAE_SOURCE_DIR, file);
    return t_command_json(cmd);
}

/* The result without its version is the CLI's JSON with args. */
static void same_as_cli(cJSON *res, const char *args, const char *file)
{
    cJSON *v = cJSON_DetachItemFromObject(res, "version");
    cr_assert(cJSON_IsNumber(v));
    cJSON *cli = cli_json_stdin(args, file);
    cr_assert_not_null(cli, "mdae %s %s printed no JSON", args, file);
    char *a = cJSON_PrintUnformatted(res), *b = cJSON_PrintUnformatted(cli);
    cr_assert_str_eq(a, b);
    cJSON_free(a);
    cJSON_free(b);
    cJSON_Delete(cli);
    cJSON_AddItemToObject(res, "version", v);
}

Test(srv_rimis, water_tank_like_the_cli_once_per_version_and_guard)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *sid = open_model(&c, "water_tank.mel", NULL);
    cJSON *r = rimis_on(&c, sid, -1);
    cJSON *res = result_of(r);
    cr_assert_eq(cJSON_GetObjectItem(res, "version")->valueint, 1);
    const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(res, "text"));
    cr_assert_not_null(strstr(text, "// Multiplexing"), "%s", text);
    cr_assert_not_null(strstr(text, "\n  yh = if "), "%s", text);
    same_as_cli(res, "rimis --json", "water_tank.mel");
    cJSON_Delete(r);
    r = rimis_on(&c, sid, 0);
    same_as_cli(result_of(r), "rimis --json --no-guard", "water_tank.mel");
    cJSON_Delete(r);
    cr_assert_eq(builds(&c, sid), 2, "one per guard setting");
    /* Asked again: nothing built. */
    cJSON_Delete(rimis_on(&c, sid, 1));
    cJSON_Delete(rimis_on(&c, sid, 0));
    cr_assert_eq(builds(&c, sid), 2, "kept for the version");
    /* An edit: a new version, built once more. */
    cJSON *ep = session_params(sid);
    cJSON_AddStringToObject(ep, "text", "x : real;\ne : equation der(x) = -x;\n");
    cJSON_Delete(cl_request(&c, 10, "session/edit", ep));
    r = rimis_on(&c, sid, -1);
    cr_assert_eq(cJSON_GetObjectItem(result_of(r), "version")->valueint, 2);
    cJSON_Delete(r);
    cr_assert_eq(builds(&c, sid), 3);
    free(sid);
    cl_close(&c);
    srv_stop(&p);
}

/* A Modelica session: the CLI's answer on the same file. */
Test(srv_rimis, answers_a_modelica_session_like_the_cli)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *sid = open_model(&c, "two_equations.mo", "modelica");
    cJSON *r = rimis_on(&c, sid, -1);
    same_as_cli(result_of(r), "rimis --json --format modelica", "two_equations.mo");
    cJSON_Delete(r);
    free(sid);
    cl_close(&c);
    srv_stop(&p);
}

/* Refused: MDAE_E_MODEL, the located diagnostics and their messages (the
 * CLI's lines) in the error's data. */
Test(srv_rimis, singular_model_is_refused_with_located_diagnostics)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *sid = open_model(&c, "singular_simple.mel", NULL);
    cJSON *r = rimis_on(&c, sid, -1);
    cr_assert_eq(error_code(r), RPC_MDAE_CODE(MDAE_E_MODEL), "%s", cJSON_PrintUnformatted(r));
    const cJSON *data = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "data");
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(data, "name")), "MDAE_E_MODEL");
    const cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItem(data, "diagnostics"), 0);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(d, "severity")), "error");
    const cJSON *start = cJSON_GetObjectItem(cJSON_GetObjectItem(d, "range"), "start");
    cr_assert_gt(cJSON_GetObjectItem(start, "line")->valueint, 0, "%s",
                 cJSON_PrintUnformatted(data));
    const char *msg = cJSON_GetStringValue(
        cJSON_GetArrayItem(cJSON_GetObjectItem(data, "messages"), 0));
    cr_assert_not_null(msg);
    /* SESSION:LINE:COL: error: ..., the CLI's form */
    const char *at = strchr(msg, ':');
    unsigned line = 0, col = 0;
    cr_assert(at != NULL && sscanf(at, ":%u:%u: error: ", &line, &col) == 2 && line > 0, "%s",
              msg);
    cJSON_Delete(r);
    free(sid);
    cl_close(&c);
    srv_stop(&p);
}

Test(srv_rimis, answers_anothers_session_as_one_nobody_holds_and_bad_params_with_32602)
{
    srv_proc p;
    client a, b;
    srv_start(&p, "", "");
    cl_connect(&a, &p);
    cl_connect(&b, &p);
    char *text = t_model("water_tank.mel");
    char *sid = cl_open(&a, text);
    cJSON *theirs = rimis_on(&b, sid, -1);
    cJSON *none = rimis_on(&b, "s-nobody-holds-this-one", -1);
    cr_assert_eq(error_code(theirs), RPC_MDAE_CODE(MDAE_E_STATE));
    cr_assert_str_eq(error_message(theirs), "no such session");
    cJSON_ReplaceItemInObject(
        cJSON_GetObjectItem(cJSON_GetObjectItem(none, "error"), "data"), "session",
        cJSON_CreateString(sid));
    char *x = cJSON_PrintUnformatted(theirs), *y = cJSON_PrintUnformatted(none);
    cr_assert_str_eq(x, y);
    cJSON_free(x);
    cJSON_free(y);
    cJSON_Delete(theirs);
    cJSON_Delete(none);
    cr_assert_eq(builds(&a, sid), 0, "b's request reached no worker");

    /* Bad params: none, no session, a guard that is not a boolean, an
     * unknown member. */
    cJSON *bad[4] = {NULL, cJSON_CreateObject(), session_params(sid), session_params(sid)};
    cJSON_AddStringToObject(bad[2], "guard", "yes");
    cJSON_AddTrueToObject(bad[3], "stream");
    for (int k = 0; k < 4; k++) {
        cJSON *r = cl_request(&a, 20 + k, "session/rimis", bad[k]);
        cr_assert_eq(error_code(r), -32602, "params %d: %s", k, cJSON_PrintUnformatted(r));
        cJSON_Delete(r);
    }
    cr_assert_eq(builds(&a, sid), 0);
    /* Its owner still gets it. */
    cJSON *r = rimis_on(&a, sid, -1);
    result_of(r);
    cJSON_Delete(r);
    free(sid);
    free(text);
    cl_close(&a);
    cl_close(&b);
    srv_stop(&p);
}

Test(srv_rimis, a_model_with_errors_answers_them)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *sid = cl_open(&c, "x : real;\ne : equation der(x) = -x;\n");
    cJSON *ep = session_params(sid);
    cJSON_AddStringToObject(ep, "text", "x : real;\ne : equation der(y) = -x;\n");
    cJSON_Delete(cl_request(&c, 2, "session/edit", ep));
    cJSON *r = rimis_on(&c, sid, -1);
    cr_assert_eq(error_code(r), RPC_MDAE_CODE(MDAE_E_MODEL), "%s", cJSON_PrintUnformatted(r));
    const cJSON *data = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "data");
    cr_assert_gt(cJSON_GetArraySize(cJSON_GetObjectItem(data, "diagnostics")), 0);
    cJSON_Delete(r);
    free(sid);
    cl_close(&c);
    srv_stop(&p);
}
