/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/server/test_wk_limits.c -- an analysis stopped by a stated limit,
 * seen from the editor and from a script (issue 36 item 3), against a real
 * mdaed and its workers: the limit is a diagnostic located at the
 * equations that reached it, naming the setting, its value and how to
 * raise it; and every question after it (hover, code lenses, definition,
 * symbols, session/analyze, session/mode) answers at once from what is
 * known, without analysing again (debug/analyses counts the worker's
 * analyses).
 *
 * The model: the compressible building at N = 40 under a node limit of
 * 20,000, whose analysis fails after a tenth of a second (Release build;
 * since the offsets are learned at distance two, N = 20 fits in 100,000
 * nodes and N = 30 in 50,000).
 */
#include "srv_test.h"

/* How fast the answers from what is known come is measured, not asserted
 * (tests/bench/bench_lsp.c; issue 36's note: 0.7-0.8 ms, 75 ms for the
 * first hover, which builds the outline): on a loaded 2-core VM a bound
 * near those figures failed now and then. What these tests assert is the
 * promise itself: debug/analyses counts that no question ran the analysis
 * again. The times are logged (--verbose). */
#define LIMITED_CONF "\"bdd\": {\"node_limit\": 20000}"

/* The building at N = 40 (its text says N = 3). */
static char *building_40(void)
{
    char *t = t_model("building_compressible.mel");
    char *at = strstr(t, "N : integer = 3;");
    cr_assert_not_null(at);
    memcpy(at, "N : integer =40;", 16);
    return t;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- Over the LSP framing ---------------------------------------------------------- */

typedef struct editor {
    srv_proc p;
    client c;
    int next_id;
} editor;

#define URI "file:///building.mel"

static void ed_open(editor *e, const char *text)
{
    memset(e, 0, sizeof *e);
    e->next_id = 1;
    srv_start(&e->p, "", LIMITED_CONF);
    cl_connect(&e->c, &e->p);
    cl_lsp_send(&e->c, "initialize", e->next_id++, cJSON_CreateObject());
    cJSON_Delete(cl_lsp_json(&e->c));
    cl_lsp_send(&e->c, "initialized", -1, cJSON_CreateObject());
    cl_lsp_did_open(&e->c, URI, "mel", text);
}

static void ed_close(editor *e)
{
    cl_lsp_shutdown(&e->c, e->next_id++);
    cl_close(&e->c);
    srv_stop(&e->p);
}

/* The response to a request (owned), skipping notifications. */
static cJSON *ed_call(editor *e, const char *method, cJSON *params)
{
    int id = e->next_id++;
    cl_lsp_send(&e->c, method, id, params);
    for (;;) {
        cJSON *m = cl_lsp_json(&e->c);
        const cJSON *mid = cJSON_GetObjectItem(m, "id");
        if (cJSON_IsNumber(mid) && mid->valueint == id)
            return m;
        cJSON_Delete(m);
    }
}

/* Its result (owned); the request must not fail. */
static cJSON *ed_ask(editor *e, const char *method, cJSON *params)
{
    cJSON *m = ed_call(e, method, params);
    cr_assert_null(cJSON_GetObjectItem(m, "error"), "%s failed: %s", method,
                   cJSON_PrintUnformatted(m));
    cJSON *r = cJSON_DetachItemFromObject(m, "result");
    cJSON_Delete(m);
    return r;
}

/* The diagnostics of the first publication (owned). */
static cJSON *ed_diagnostics(editor *e)
{
    for (;;) {
        cJSON *m = cl_lsp_json(&e->c);
        const cJSON *meth = cJSON_GetObjectItem(m, "method");
        if (cJSON_IsString(meth) && strcmp(meth->valuestring, "textDocument/publishDiagnostics") == 0) {
            cJSON *d = cJSON_DetachItemFromObject(cJSON_GetObjectItem(m, "params"), "diagnostics");
            cJSON_Delete(m);
            return d;
        }
        cJSON_Delete(m);
    }
}

static cJSON *at(int line, int character)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "textDocument"), "uri", URI);
    cJSON *pos = cJSON_AddObjectToObject(p, "position");
    cJSON_AddNumberToObject(pos, "line", line);
    cJSON_AddNumberToObject(pos, "character", character);
    return p;
}

/* The analyses the document's worker started (a debug method names the
 * document by its URI: its session's id is told to nobody, issue 37). */
static int analyses(editor *e)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "uri", URI);
    cJSON *r = ed_ask(e, "debug/analyses", p);
    int n = cJSON_GetObjectItem(r, "analyses")->valueint;
    cJSON_Delete(r);
    return n;
}

#define assert_has(hay, needle) \
    cr_assert((hay) != NULL && strstr((hay), (needle)) != NULL, "no \"%s\" in:\n%s", (needle), \
              (hay) ? (hay) : "(null)")

/* The line (0-based) of the text's line that starts with `prefix`. */
static int line_of(const char *text, const char *prefix)
{
    int line = 0;
    for (const char *p = text; *p; line++) {
        if (strncmp(p, prefix, strlen(prefix)) == 0)
            return line;
        const char *nl = strchr(p, '\n');
        if (nl == NULL)
            break;
        p = nl + 1;
    }
    cr_assert_fail("no line starts with %s", prefix);
    return -1;
}

Test(wk_limits, a_limited_analysis_is_a_located_diagnostic_and_questions_answer_at_once)
{
    char *text = building_40();
    int time_line = line_of(text, "time : equation");
    editor e;
    ed_open(&e, text);
    cJSON *diags = ed_diagnostics(&e);
    /* the limit, located at the component's first equation, not at 0:0 */
    const cJSON *lim = NULL, *d;
    cJSON_ArrayForEach(d, diags)
    {
        const char *msg = cJSON_GetObjectItem(d, "message")->valuestring;
        if (strstr(msg, "bdd.node_limit") != NULL)
            lim = d;
    }
    cr_assert_not_null(lim, "no diagnostic names the limit: %s", cJSON_PrintUnformatted(diags));
    const char *msg = cJSON_GetObjectItem(lim, "message")->valuestring;
    assert_has(msg, "bdd.node_limit = 20000");
    assert_has(msg, "--node-limit");
    assert_has(msg, "the 685 equations time, ");
    cr_expect_eq(cJSON_GetObjectItem(lim, "severity")->valueint, 1, "an error");
    const cJSON *start = cJSON_GetObjectItem(cJSON_GetObjectItem(lim, "range"), "start");
    const cJSON *end = cJSON_GetObjectItem(cJSON_GetObjectItem(lim, "range"), "end");
    cr_expect_eq(cJSON_GetObjectItem(start, "line")->valueint, time_line);
    cr_expect_eq(cJSON_GetObjectItem(start, "character")->valueint, 0);
    cr_expect_gt(cJSON_GetObjectItem(end, "character")->valueint, 0, "a range");
    cJSON_Delete(diags);
    cr_assert_eq(analyses(&e), 1);

    /* every question now, each at once */
    const char *methods[] = {"textDocument/hover", "textDocument/codeLens",
                             "textDocument/definition", "textDocument/documentSymbol",
                             "textDocument/references", "textDocument/hover"};
    double worst = 0;
    char *hover = NULL;
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
        double t0 = now_ms();
        cJSON *r = ed_ask(&e, methods[k], at(time_line, 2));
        double ms = now_ms() - t0;
        worst = ms > worst ? ms : worst;
        if (k == 0) {
            const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "contents"), "value");
            cr_assert(cJSON_IsString(v), "a hover: %s", cJSON_PrintUnformatted(r));
            hover = strdup(v->valuestring);
        }
        cJSON_Delete(r);
        cr_log_info("%s: %.1f ms", methods[k], ms);
    }
    /* the declaration from the model, and why there is no analysis */
    assert_has(hover, "**equation** `time`");
    assert_has(hover, "the analysis stopped");
    assert_has(hover, "bdd.node_limit = 20000");
    free(hover);
    cr_expect_eq(analyses(&e), 1, "no question ran the analysis again (worst %.1f ms)", worst);
    ed_close(&e);
    free(text);
}

/* ---- Over the session API ------------------------------------------------------------- */

/* session/analyze's error names the limit as fields; analyze and mode
 * again give the kept error without analysing. */
Test(wk_limits, the_session_api_gives_the_limit_as_fields_and_keeps_the_failure)
{
    srv_proc p;
    client c;
    srv_start(&p, "", LIMITED_CONF);
    cl_connect(&c, &p);
    char *text = building_40();
    char *sid = cl_open(&c, text);
    for (int round = 0; round < 2; round++) {
        double t0 = now_ms();
        cJSON *r = cl_request(&c, 1, "session/analyze", session_params(sid));
        double ms = now_ms() - t0;
        cr_assert_eq(error_code(r), RPC_MDAE_CODE(MDAE_E_BDD_LIMIT));
        const cJSON *data = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "data");
        const cJSON *lim = cJSON_GetObjectItem(data, "limit");
        cr_assert_not_null(lim, "%s", cJSON_PrintUnformatted(r));
        cr_expect_str_eq(cJSON_GetObjectItem(lim, "setting")->valuestring, "bdd.node_limit");
        cr_expect_eq(cJSON_GetObjectItem(lim, "value")->valuedouble, 20000);
        cr_expect_str_eq(cJSON_GetObjectItem(lim, "configKey")->valuestring, "bdd.node_limit");
        cr_expect_str_eq(cJSON_GetObjectItem(lim, "flag")->valuestring, "--node-limit");
        const cJSON *where = cJSON_GetObjectItem(lim, "where");
        cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(where, "start"), "line")->valueint,
                     line_of(text, "time : equation") + 1, "1-based, as the engine's");
        cr_log_info("session/analyze, round %d: %.1f ms", round, ms);
        cJSON_Delete(r);
    }
    cJSON *mp = session_params(sid);
    cJSON_AddItemToObject(mp, "mode", cJSON_CreateObject());
    cJSON *r = cl_request(&c, 2, "session/mode", mp);
    cr_expect_eq(error_code(r), RPC_MDAE_CODE(MDAE_E_BDD_LIMIT));
    cJSON_Delete(r);
    r = cl_request(&c, 3, "debug/analyses", session_params(sid));
    cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "analyses")->valueint, 1);
    cJSON_Delete(r);
    free(sid);
    free(text);
    cl_close(&c);
    srv_stop(&p);
}

/* The time budget (limits.request_timeout_ms) is a stated limit of the
 * analysis too: it stops itself before the router would kill the worker,
 * names the limit, and is kept: asked again, the worker (the same one)
 * answers at once. The incompressible building at N = 10 takes minutes to
 * analyse in every build type (200 CPU s in Release) and 0.03 s to load
 * under the sanitizers, in 25 MB: the compressible one, N = 400 until the
 * offsets were learned at distance two (3.8 s since), was too fast, and
 * its N = 700 too slow to load under the sanitizers on a loaded machine;
 * the budget is 10 s, of which the worker leaves 5 s to answer (wk_methods.c,
 * budget_ms: 375 ms of 1.5 s, 1 s of 4 s, then 2 s of 4 s were not enough
 * under the sanitizers on a loaded machine: a step ran longer between two
 * progress reports, and the router killed the worker). */
Test(wk_limits, the_time_budget_stops_the_analysis_which_is_kept_and_named)
{
    srv_proc p;
    client c;
    srv_start(&p, "\"request_timeout_ms\": 10000", "");
    cl_connect(&c, &p);
    char *text = t_model("building_incompressible.mel");
    char *at = strstr(text, "N : integer = 3;");
    cr_assert_not_null(at);
    memcpy(at, "N : integer =10;", 16);
    char *sid = cl_open(&c, text);
    for (int round = 0; round < 2; round++) {
        double t0 = now_ms();
        cJSON *r = cl_request(&c, 1, "session/analyze", session_params(sid));
        double ms = now_ms() - t0;
        cr_assert_eq(error_code(r), RPC_MDAE_CODE(MDAE_E_TIMEOUT), "%s",
                     cJSON_PrintUnformatted(r));
        const char *msg = error_message(r);
        cr_expect(strstr(msg, "the analysis did not finish within the request's time budget") !=
                      NULL,
                  "stopped by the worker, not killed: %s", msg);
        cr_expect(strstr(msg, "(limit limits.request_timeout_ms = 10000; raise it with "
                              "limits.request_timeout_ms in mdaed.json)") != NULL,
                  "%s", msg);
        const cJSON *lim =
            cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "data"), "limit");
        cr_assert_not_null(lim, "%s", cJSON_PrintUnformatted(r));
        cr_expect_str_eq(cJSON_GetObjectItem(lim, "configKey")->valuestring,
                         "limits.request_timeout_ms");
        cr_log_info("session/analyze, round %d: %.1f ms", round, ms);
        cJSON_Delete(r);
    }
    cJSON *r = cl_request(&c, 3, "debug/analyses", session_params(sid));
    cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "analyses")->valueint, 1,
                 "one analysis, in the worker that was never killed");
    cJSON_Delete(r);
    free(sid);
    free(text);
    cl_close(&c);
    srv_stop(&p);
}
