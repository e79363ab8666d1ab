/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/server/test_srv_relay.c -- worker responses relayed without a tree
 * (protocol/rpc_relay.h), seen from clients: every response and
 * notification is byte for byte what the old path printed (the tree parsed
 * from the worker and printed again by cJSON, so: the canonical print of
 * the message the client got), over NDJSON, LSP framing and HTTP, for
 * number, string and null ids, results, errors, batches and cached modes;
 * and a worker that sends garbage (debug/frames) is still killed with the
 * same error, one answering another request is still ignored.
 */
#include "srv_test.h"

/* The old path printed every message with cJSON from a tree: the bytes a
 * client gets must be that print of what they parse to. */
static void assert_canonical(const char *msg)
{
    cJSON *j = cJSON_Parse(msg);
    cr_assert_not_null(j, "not JSON: %.300s", msg);
    char *again = cJSON_PrintUnformatted(j);
    cr_assert_str_eq(msg, again, "not what the old path printed");
    cJSON_free(again);
    cJSON_Delete(j);
}

/* {"jsonrpc":"2.0","id":ID,... with ID exactly as the request spelled it. */
static void assert_echoes(const char *msg, const char *id)
{
    char head[256];
    snprintf(head, sizeof head, "{\"jsonrpc\":\"2.0\",\"id\":%s,", id);
    cr_assert(strncmp(msg, head, strlen(head)) == 0, "id %s not echoed: %.200s", id, msg);
}

static char *request_text(const char *id, const char *method, const char *params)
{
    char *s = malloc(strlen(id) + strlen(method) + strlen(params) + 64);
    sprintf(s, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"%s\",\"params\":%s}", id, method,
            params);
    return s;
}

/* Send one request over NDJSON; check every line up to its response. */
static cJSON *ndjson_call(client *c, const char *id, const char *method, const char *params,
                          int *notifications)
{
    char *req = request_text(id, method, params);
    cl_send(c, req);
    cl_send(c, "\n");
    free(req);
    for (;;) {
        char *line = cl_line(c);
        cr_assert_not_null(line, "no reply to %s", method);
        assert_canonical(line);
        cJSON *j = cJSON_Parse(line);
        if (cJSON_GetObjectItem(j, "method") == NULL) {
            assert_echoes(line, id);
            free(line);
            return j;
        }
        if (notifications != NULL)
            (*notifications)++;
        free(line);
        cJSON_Delete(j);
    }
}

static char *open_brake(client *c)
{
    char *text = t_model("brake.mel");
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "text", text);
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(p, "defines"), "N", 6);
    char *ps = cJSON_PrintUnformatted(p);
    cJSON *r = ndjson_call(c, "1", "session/open", ps, NULL);
    cJSON *res = cJSON_GetObjectItem(r, "result");
    cr_assert_not_null(res, "session/open failed");
    char *sid = strdup(cJSON_GetObjectItem(res, "session")->valuestring);
    cJSON_Delete(r);
    cJSON_free(ps);
    cJSON_Delete(p);
    free(text);
    return sid;
}

static bool has(const cJSON *r, const char *key) { return cJSON_GetObjectItem(r, key) != NULL; }

Test(srv_relay, gives_ndjson_clients_the_bytes_of_the_old_path)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *sid = open_brake(&c);
    char sp[128], params[256];
    snprintf(sp, sizeof sp, "{\"session\":\"%s\"", sid);
    const char *ids[] = {"7", "\"a\\\"b\\\\c \xc3\xa9\\u0001\"", "null", "-2.5", "\"\""};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        int notes = 0;
        snprintf(params, sizeof params, "%s,\"reuse\":true,\"stream\":%s}", sp,
                 i % 2 ? "true" : "false");
        cJSON *r = ndjson_call(&c, ids[i], "session/analyze", params, &notes);
        cr_assert(has(cJSON_GetObjectItem(r, "result"), "reuse"), "reuse added to the result");
        cr_assert(i % 2 == 0 || notes > 0, "streamed notifications");
        cJSON_Delete(r);
    }
    snprintf(params, sizeof params, "%s,\"mode\":{}}", sp);
    for (int k = 0; k < 2; k++) { /* the worker's, then the session's cache */
        cJSON *r = ndjson_call(&c, "\"mode\"", "session/mode", params, NULL);
        cr_assert(has(r, "result"));
        cJSON_Delete(r);
    }
    snprintf(params, sizeof params, "%s}", sp);
    cJSON *r = ndjson_call(&c, "8", "session/dot", params, NULL);
    cr_assert(cJSON_IsString(cJSON_GetObjectItem(r, "result")));
    cJSON_Delete(r);
    snprintf(params, sizeof params, "%s,\"method\":\"bogus\"}", sp); /* the worker's error */
    r = ndjson_call(&c, "9", "session/analyze", params, NULL);
    cr_assert_eq(error_code(r), RPC_INVALID_PARAMS);
    cJSON_Delete(r);
    r = ndjson_call(&c, "10", "session/analyze", "{\"session\":\"none\"}", NULL); /* the router's */
    cr_assert(has(r, "error"));
    cJSON_Delete(r);
    free(sid);
    cl_close(&c);
    cr_assert_eq(srv_stop(&p), 0);
}

Test(srv_relay, gives_batches_the_bytes_of_the_old_path)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *sid = open_brake(&c);
    char batch[1024];
    snprintf(batch, sizeof batch,
             "[{\"jsonrpc\":\"2.0\",\"id\":\"b1\",\"method\":\"session/analyze\","
             "\"params\":{\"session\":\"%s\",\"reuse\":true}},"
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/mode\","
             "\"params\":{\"session\":\"%s\",\"mode\":{}}},"
             "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/mode\","
             "\"params\":{\"session\":\"%s\",\"mode\":{}}}]\n",
             sid, sid, sid);
    cl_send(&c, batch);
    char *line = cl_line(&c);
    cr_assert_not_null(line);
    assert_canonical(line);
    cJSON *arr = cJSON_Parse(line);
    cr_assert_eq(cJSON_GetArraySize(arr), 3);
    const cJSON *m;
    cJSON_ArrayForEach(m, arr) cr_assert(has(m, "result"), "%.200s", line);
    cJSON_Delete(arr);
    /* The mode is cached now: its text goes into a batch as well. */
    cl_send(&c, batch);
    free(line);
    line = cl_line(&c);
    cr_assert_not_null(line);
    assert_canonical(line);
    free(line);
    free(sid);
    cl_close(&c);
    cr_assert_eq(srv_stop(&p), 0);
}

Test(srv_relay, gives_lsp_framed_and_http_clients_the_bytes_of_the_old_path)
{
    srv_proc p;
    client c, l, h;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *sid = open_brake(&c);
    char params[256];
    snprintf(params, sizeof params, "{\"session\":\"%s\",\"reuse\":true}", sid);
    /* Content-Length framing */
    cl_connect(&l, &p);
    char *req = request_text("\"l\\u00e9\"", "session/analyze", params);
    char hdr[64];
    snprintf(hdr, sizeof hdr, "Content-Length: %zu\r\n\r\n", strlen(req));
    cl_send(&l, hdr);
    cl_send(&l, req);
    char *body = cl_lsp(&l);
    cr_assert_not_null(body);
    assert_canonical(body);
    assert_echoes(body, "\"l\xc3\xa9\"");
    free(body);
    free(req);
    /* HTTP: one chunk of NDJSON */
    cl_connect(&h, &p);
    req = request_text("42", "session/analyze", params);
    char *http = malloc(strlen(req) + 256);
    sprintf(http, "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
            strlen(req), req);
    cl_send(&h, http);
    cl_read_all(&h);
    char *line = strstr(h.buf, "{\"jsonrpc\"");
    cr_assert_not_null(line, "%.300s", h.buf);
    char *nl = strchr(line, '\n');
    cr_assert_not_null(nl);
    *nl = '\0';
    assert_canonical(line);
    assert_echoes(line, "42");
    free(http);
    free(req);
    free(sid);
    cl_close(&h);
    cl_close(&l);
    cl_close(&c);
    cr_assert_eq(srv_stop(&p), 0);
}

/* ---- A worker that misbehaves ---------------------------------------------------------- */

/* debug/frames with one body (framed by the worker, "$ID" its request id)
 * or raw bytes. */
static cJSON *send_frames(client *c, const char *sid, const char *frame, const char *raw)
{
    cJSON *p = session_params(sid);
    if (frame != NULL)
        cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "frames"), cJSON_CreateString(frame));
    if (raw != NULL)
        cJSON_AddStringToObject(p, "raw", raw);
    return cl_request(c, 5, "debug/frames", p);
}

/* A server, a client and a session of rldc2.mel, for the tests that make
 * the worker send frames. */
typedef struct rig {
    srv_proc p;
    client c;
    char *text, *sid;
} rig;

static void rig_open(rig *g)
{
    srv_start(&g->p, "", "");
    cl_connect(&g->c, &g->p);
    g->text = t_model("rldc2.mel");
    g->sid = cl_open(&g->c, g->text);
}

static void rig_close(rig *g)
{
    free(g->sid);
    free(g->text);
    cl_close(&g->c);
    cr_assert_eq(srv_stop(&g->p), 0);
}

static void assert_analyses(client *c, const char *sid)
{
    cJSON *r = cl_request(c, 6, "session/analyze", session_params(sid));
    cr_assert_not_null(cJSON_GetObjectItem(r, "result"), "%s", cJSON_PrintUnformatted(r));
    cJSON_Delete(r);
}

Test(srv_relay, kills_a_worker_that_sends_garbage)
{
    static const char *bad[] = {
        "garbage",
        "{\"jsonrpc\":\"2.0\",\"id\":$ID,\"result\":{\"a\":[1,2", /* truncated */
        "{\"jsonrpc\":\"2.0\",\"id\":$ID,\"result\":1}}",          /* trailing bytes */
        "{\"jsonrpc\":\"2.0\",\"id\":$ID,\"result\":\"\\ud800\"}",  /* a lone surrogate */
        "{\"jsonrpc\":\"2.0\",\"id\":$ID,\"result\":[1,]}",
        "",
    };
    rig g;
    rig_open(&g);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *r = send_frames(&g.c, g.sid, bad[i], NULL);
        cr_assert_eq(error_code(r), rpc_error_code(MDAE_E_PROTO), "%s: %s", bad[i],
                     cJSON_PrintUnformatted(r));
        cr_assert_str_eq(error_message(r), "the worker sent a malformed message");
        cJSON_Delete(r);
        assert_analyses(&g.c, g.sid); /* a fresh worker, from the kept text */
    }
    rig_close(&g);
}

Test(srv_relay, kills_a_worker_whose_frame_is_too_large)
{
    rig g;
    rig_open(&g);
    cJSON *r = send_frames(&g.c, g.sid, NULL, "Content-Length: 300000000\r\n\r\n{");
    cr_assert_eq(error_code(r), rpc_error_code(MDAE_E_PROTO));
    cr_assert_str_eq(error_message(r), "bad framing from the worker: MDAE_E_LIMIT");
    cJSON_Delete(r);
    assert_analyses(&g.c, g.sid);
    rig_close(&g);
}

Test(srv_relay, ignores_responses_to_no_request_and_relays_the_right_one)
{
    rig g;
    rig_open(&g);
    /* Another id, no id: dropped; the worker's own answer (true) follows. */
    const char *dropped[] = {"{\"jsonrpc\":\"2.0\",\"id\":999999,\"result\":{\"x\":1}}",
                             "{\"jsonrpc\":\"2.0\",\"result\":{\"x\":1}}",
                             "{\"jsonrpc\":\"2.0\",\"id\":\"$ID\",\"result\":{\"x\":1}}"};
    for (size_t i = 0; i < sizeof dropped / sizeof dropped[0]; i++) {
        cJSON *r = send_frames(&g.c, g.sid, dropped[i], NULL);
        cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(r, "result")), "%s: %s", dropped[i],
                  cJSON_PrintUnformatted(r));
        cJSON_Delete(r);
    }
    /* A response with the right id answers (the relay's shape, then one
     * rpc_parse reads); the worker's own answer after it is dropped. */
    const char *answers[] = {"{\"jsonrpc\":\"2.0\",\"id\":$ID,\"result\":{\"from\":\"frame\"}}",
                             "{\"id\":$ID,\"jsonrpc\":\"2.0\",\"result\": {\"from\":\"frame\"}}"};
    for (size_t i = 0; i < sizeof answers / sizeof answers[0]; i++) {
        cJSON *r = send_frames(&g.c, g.sid, answers[i], NULL);
        const cJSON *from = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "from");
        cr_assert(cJSON_IsString(from), "%s: %s", answers[i], cJSON_PrintUnformatted(r));
        cJSON_Delete(r);
        assert_analyses(&g.c, g.sid);
    }
    rig_close(&g);
}

Test(srv_relay, relays_a_large_result)
{
    rig g;
    rig_open(&g);
    size_t n = 3u << 20;
    char *frame = malloc(n + 100);
    int k = sprintf(frame, "{\"jsonrpc\":\"2.0\",\"id\":$ID,\"result\":\"");
    memset(frame + k, 'x', n);
    strcpy(frame + k + n, "\"}");
    cJSON *r = send_frames(&g.c, g.sid, frame, NULL);
    const cJSON *res = cJSON_GetObjectItem(r, "result");
    cr_assert(cJSON_IsString(res), "%.200s", cJSON_PrintUnformatted(r));
    cr_assert_eq(strlen(res->valuestring), n);
    cJSON_Delete(r);
    free(frame);
    assert_analyses(&g.c, g.sid);
    rig_close(&g);
}
