/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_router.c -- from a frame to an answer: JSON-RPC parsing, batches,
 * HTTP exchanges, the method table, and the calls that wait for workers.
 *
 * Methods answered here, without a worker: auth, server/status,
 * session/close, the LSP lifecycle (initialize, initialized, shutdown, exit)
 * and $/cancelRequest. Everything that needs the model's meaning (open,
 * edit, analyze, LSP document diagnostics) becomes a job for the session's
 * worker (srv_worker.c), including session/mode and session/dot (issue 4),
 * which read the worker's kept analysis.
 *
 * Codes become JSON-RPC errors only here and in srv_worker.c (STYLE.md
 * section 7): reserved codes for protocol faults, -32000+rc otherwise.
 */
#include "srv.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Error code for a missing or wrong access token (server-defined range). */
#define SRV_UNAUTHORIZED (-32099) /* not -32000+rc: -32001 is MDAE_E_NOMEM */

struct srv_batch {
    srv_conn *conn; /* referenced */
    cJSON *responses;
    int pending;      /* calls not answered yet */
    bool dispatching; /* still walking the batch */
};

/* ---- Calls ------------------------------------------------------------------ */

srv_call *srv_call_new(srv_conn *conn, const cJSON *id, const char *method, srv_batch *batch)
{
    srv_call *call = mdae_calloc(1, sizeof *call);
    if (call == NULL)
        return NULL;
    call->id = id ? cJSON_Duplicate(id, true) : cJSON_CreateNull();
    call->method = mdae_strdup(method ? method : "");
    if (call->id == NULL || call->method == NULL) {
        cJSON_Delete(call->id);
        mdae_free(call->method);
        mdae_free(call);
        return NULL;
    }
    call->conn = conn;
    srv_conn_ref(conn);
    call->batch = batch;
    if (batch)
        batch->pending++;
    return call;
}

static void batch_maybe_send(srv_batch *b)
{
    if (b->dispatching || b->pending > 0)
        return;
    if (cJSON_GetArraySize(b->responses) > 0)
        srv_conn_send(b->conn, b->responses, true);
    else
        cJSON_Delete(b->responses);
    srv_conn_unref(b->conn);
    mdae_free(b);
}

void srv_call_reply(srv_call *call, cJSON *response)
{
    srv_conn *c = call->conn;
    srv.requests++;
    if (call->batch != NULL) {
        srv_batch *b = call->batch;
        if (response != NULL)
            cJSON_AddItemToArray(b->responses, response);
        b->pending--;
        batch_maybe_send(b);
    } else {
        srv_conn_send(c, response, true);
    }
    cJSON_Delete(call->id);
    mdae_free(call->method);
    mdae_free(call);
    srv_conn_unref(c);
}

void srv_call_result(srv_call *call, cJSON *result)
{
    srv_call_reply(call, rpc_response_result(call->id, result));
}

void srv_call_result_text(srv_call *call, const char *result)
{
    srv_conn *c = call->conn;
    char *id = cJSON_PrintUnformatted(call->id);
    char *body = id ? mdae_asprintf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}", id, result)
                    : NULL;
    srv.requests++;
    if (body != NULL)
        srv_conn_send_text(c, body, strlen(body), true);
    else if (!c->closing)
        srv_conn_close(c, "out of memory building a reply");
    mdae_free(body);
    mdae_free(id);
    cJSON_Delete(call->id);
    mdae_free(call->method);
    mdae_free(call);
    srv_conn_unref(c);
}

void srv_call_error(srv_call *call, int code, const char *message, cJSON *data)
{
    srv_call_reply(call, rpc_response_error(call->id, code, message, data));
}

void srv_call_mdae_error(srv_call *call, int rc, const char *message, cJSON *details)
{
    MDAE_LOG(SRV_LOG_INFO, "conn %llu: %s failed: %s: %s", (unsigned long long)call->conn->id,
             call->method, mdae_err_name(rc), message ? message : mdae_strerror(rc));
    srv_call_reply(call, rpc_response_mdae(call->id, rc, message, details));
}

void srv_call_notify(srv_call *call, const char *method, cJSON *params)
{
    srv_conn_send(call->conn, rpc_notification_new(method, params), false);
}

/* ---- Parameters --------------------------------------------------------------- */

/* Answer -32602 with a message saying what is wrong; returns NULL. */
static const cJSON *bad_params(srv_call *call, const char *fmt, const char *name)
{
    char msg[200];
    snprintf(msg, sizeof msg, fmt, name);
    srv_call_error(call, RPC_INVALID_PARAMS, msg, NULL);
    return NULL;
}

static const cJSON *get_param(const cJSON *params, const char *name)
{
    return cJSON_IsObject(params) ? cJSON_GetObjectItemCaseSensitive(params, name) : NULL;
}

static bool params_object(srv_call *call, const cJSON *params)
{
    if (params == NULL || cJSON_IsObject(params))
        return true;
    bad_params(call, "%s", "params must be an object");
    return false;
}

/* The session named by params.session, or NULL after answering the call. */
static srv_session *session_param(srv_call *call, const cJSON *params)
{
    const cJSON *sid = get_param(params, "session");
    if (!cJSON_IsString(sid)) {
        bad_params(call, "%s", "\"session\" (a string) is required");
        return NULL;
    }
    srv_session *s = srv_session_find(sid->valuestring);
    if (s == NULL) {
        cJSON *d = cJSON_CreateObject();
        if (d)
            cJSON_AddStringToObject(d, "session", sid->valuestring);
        srv_call_mdae_error(call, MDAE_E_STATE, "no such session", d);
        return NULL;
    }
    s->last_used = uv_now(srv.loop);
    return s;
}

/* Validate {N: 20, ...}; NULL is fine. */
static bool defines_ok(srv_call *call, const cJSON *defines)
{
    if (defines == NULL || cJSON_IsNull(defines))
        return true;
    if (!cJSON_IsObject(defines)) {
        bad_params(call, "%s", "\"defines\" must be an object of integers");
        return false;
    }
    for (const cJSON *d = defines->child; d != NULL; d = d->next) {
        if (!cJSON_IsNumber(d) || d->valuedouble != (double)(long long)d->valuedouble) {
            bad_params(call, "\"defines\": %s must be an integer", d->string);
            return false;
        }
    }
    return true;
}

/* Submit a job on s; on allocation failure answer the call. */
static void submit(srv_session *s, srv_job_kind kind, const char *method, cJSON *params,
                   srv_call *call)
{
    srv_job *job = srv_job_new(kind, method, params, call);
    if (job == NULL) {
        if (call)
            srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
        return;
    }
    job->version = s->version;
    srv_worker_submit(s, job);
}

/* ---- Methods -------------------------------------------------------------------- */

static void m_status(srv_call *call, const cJSON *params)
{
    cJSON *r = cJSON_CreateObject();
    size_t rss = 0;
    uv_resident_set_memory(&rss);
    if (r == NULL)
        goto nomem;
    cJSON *mem = cJSON_AddObjectToObject(r, "memory");
    if (!cJSON_AddStringToObject(r, "name", "mdaed") ||
        !cJSON_AddStringToObject(r, "version", MDAE_VERSION) ||
        !cJSON_AddNumberToObject(r, "uptime_ms", (double)(uv_now(srv.loop) - srv.start_ms)) ||
        !cJSON_AddNumberToObject(r, "sessions", (double)srv.n_sessions) ||
        !cJSON_AddNumberToObject(r, "workers", (double)srv.n_workers) ||
        !cJSON_AddNumberToObject(r, "waiting", (double)srv.n_waiting_jobs) ||
        !cJSON_AddNumberToObject(r, "connections", (double)srv.n_conns) ||
        !cJSON_AddNumberToObject(r, "requests", (double)srv.requests) || mem == NULL ||
        !cJSON_AddNumberToObject(mem, "rss_bytes", (double)rss) ||
        !cJSON_AddNumberToObject(mem, "worker_cap_mb", (double)srv.cfg.worker_memory_mb))
        goto nomem;
    cJSON *limits = cJSON_AddObjectToObject(r, "limits");
    if (limits == NULL ||
        !cJSON_AddNumberToObject(limits, "max_sessions", (double)srv.cfg.max_sessions) ||
        !cJSON_AddNumberToObject(limits, "max_workers", (double)srv.cfg.max_workers) ||
        !cJSON_AddNumberToObject(limits, "max_message_bytes",
                                 (double)srv.cfg.max_message_bytes) ||
        !cJSON_AddNumberToObject(limits, "request_timeout_ms",
                                 (double)srv.cfg.request_timeout_ms))
        goto nomem;
    /* What the workers' incremental analyses reused (issue 6). */
    cJSON *reuse = cJSON_AddObjectToObject(r, "reuse");
    if (reuse == NULL ||
        !cJSON_AddNumberToObject(reuse, "components", (double)srv.reuse_components) ||
        !cJSON_AddNumberToObject(reuse, "reused", (double)srv.reuse_reused) ||
        !cJSON_AddNumberToObject(reuse, "recomputed", (double)srv.reuse_recomputed) ||
        !cJSON_AddNumberToObject(reuse, "seeded", (double)srv.reuse_seeded) ||
        !cJSON_AddNumberToObject(reuse, "searched", (double)srv.reuse_searched))
        goto nomem;
    srv_call_result(call, r);
    return;
nomem:
    cJSON_Delete(r);
    srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
}

static void m_open(srv_call *call, const cJSON *params)
{
    if (!params_object(call, params))
        return;
    const cJSON *text = get_param(params, "text");
    const cJSON *format = get_param(params, "format");
    const cJSON *defines = get_param(params, "defines");
    const cJSON *persist = get_param(params, "persist");
    if (!cJSON_IsString(text)) {
        bad_params(call, "%s", "\"text\" (a string) is required");
        return;
    }
    if (format != NULL && !(cJSON_IsString(format) && strcmp(format->valuestring, "mel") == 0)) {
        bad_params(call, "%s", "\"format\" must be \"mel\"");
        return;
    }
    if (persist != NULL && !cJSON_IsBool(persist)) {
        bad_params(call, "%s", "\"persist\" must be a boolean");
        return;
    }
    if (!defines_ok(call, defines))
        return;
    /* HTTP sessions outlive their exchange (each POST may be a new
     * connection), so they are persistent and expire when idle. */
    bool keep = cJSON_IsTrue(persist) || rpc_framer_framing(&call->conn->fr) == RPC_FRAMING_HTTP;
    srv_session *s;
    int rc = srv_session_new(keep ? NULL : call->conn, text->valuestring,
                             strlen(text->valuestring), cJSON_IsNull(defines) ? NULL : defines,
                             &s);
    if (rc < 0) {
        cJSON *d = NULL;
        if (rc == MDAE_E_LIMIT && (d = cJSON_CreateObject()) != NULL)
            cJSON_AddNumberToObject(d, "max_sessions", (double)srv.cfg.max_sessions);
        srv_call_mdae_error(call, rc, rc == MDAE_E_LIMIT ? "too many sessions" : NULL, d);
        return;
    }
    submit(s, SRV_JOB_OPEN, "load", srv_session_load_params(s), call);
}

static void m_edit(srv_call *call, const cJSON *params)
{
    if (!params_object(call, params))
        return;
    srv_session *s = session_param(call, params);
    if (s == NULL)
        return;
    const cJSON *text = get_param(params, "text");
    const cJSON *edits = get_param(params, "edits");
    if ((text == NULL) == (edits == NULL)) {
        bad_params(call, "%s", "give either \"text\" or \"edits\"");
        return;
    }
    if (text != NULL) {
        if (!cJSON_IsString(text)) {
            bad_params(call, "%s", "\"text\" must be a string");
            return;
        }
        char *t = mdae_strdup(text->valuestring);
        if (t == NULL) {
            srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
            return;
        }
        srv_session_set_text(s, t, strlen(t));
    } else {
        const char *why = NULL;
        int rc = srv_session_apply_edits(s, edits, &why);
        if (rc == MDAE_E_INVAL) {
            bad_params(call, "%s", why);
            return;
        }
        if (rc < 0) {
            srv_call_mdae_error(call, rc, NULL, NULL);
            return;
        }
    }
    submit(s, SRV_JOB_EDIT, "load", srv_session_load_params(s), call);
}

static void m_analyze(srv_call *call, const cJSON *params)
{
    if (!params_object(call, params))
        return;
    srv_session *s = session_param(call, params);
    if (s == NULL)
        return;
    const cJSON *stream = get_param(params, "stream");
    if (stream != NULL && !cJSON_IsBool(stream)) {
        bad_params(call, "%s", "\"stream\" must be a boolean");
        return;
    }
    /* reuse: true adds {"reuse":{components, reused, recomputed, seeded,
     * searched}} (issue 6)
     * to the result; off by default so the result stays `mdae analyze
     * --json`. */
    const cJSON *reuse = get_param(params, "reuse");
    if (reuse != NULL && !cJSON_IsBool(reuse)) {
        bad_params(call, "%s", "\"reuse\" must be a boolean");
        return;
    }
    /* since: the difference from that version's result; stableIds: the full
     * result with stable block ids (srv_workermain.c, "Differences"). */
    const cJSON *since = get_param(params, "since");
    const cJSON *stable = get_param(params, "stableIds");
    if ((since != NULL && (!cJSON_IsNumber(since) || since->valuedouble < 0)) ||
        (stable != NULL && !cJSON_IsBool(stable))) {
        bad_params(call, "%s", "\"since\" must be a version, \"stableIds\" a boolean");
        return;
    }
    /* method: how the components analysed anew are analysed (issue 10);
     * the worker checks the name. */
    const cJSON *method = get_param(params, "method");
    if (method != NULL && !cJSON_IsString(method)) {
        bad_params(call, "%s", "\"method\" must be \"auto\", \"implicit\" or \"enumeration\"");
        return;
    }
    cJSON *wp = cJSON_CreateObject();
    if (wp == NULL || !cJSON_AddBoolToObject(wp, "stream", cJSON_IsTrue(stream)) ||
        (method != NULL && !cJSON_AddStringToObject(wp, "method", method->valuestring)) ||
        !cJSON_AddBoolToObject(wp, "reuse", true) ||
        !cJSON_AddBoolToObject(wp, "stableIds", cJSON_IsTrue(stable)) ||
        !cJSON_AddNumberToObject(wp, "version", (double)s->version) ||
        (since != NULL && !cJSON_AddNumberToObject(wp, "since", since->valuedouble))) {
        cJSON_Delete(wp);
        srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
        return;
    }
    srv_job *job = srv_job_new(SRV_JOB_RAW, "analyze", wp, call);
    if (job == NULL) {
        srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
        return;
    }
    job->stream = cJSON_IsTrue(stream);
    job->want_reuse = cJSON_IsTrue(reuse);
    job->version = s->version;
    srv_worker_submit(s, job);
}

static void m_close(srv_call *call, const cJSON *params)
{
    if (!params_object(call, params))
        return;
    srv_session *s = session_param(call, params);
    if (s == NULL)
        return;
    srv_session_close(s);
    srv_call_result(call, cJSON_CreateTrue());
}

/* session/mode {session, mode:{"g1":true,...}} and session/dot {session}:
 * the per-mode projection and the DOT graph, from the worker's kept
 * analysis (issue 4). */
static int cmp_members(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* A mode object as a canonical string: members sorted by name, "name=value;"
 * (value printed compactly). Different spellings of one mode ({"g":1} and
 * {"g":true}) get different keys: only a cache miss. NULL on OOM or when
 * the object is too large to be worth caching. */
static char *mode_key(const cJSON *mode)
{
    int n = cJSON_GetArraySize(mode);
    if (n > 256)
        return NULL;
    const cJSON *items[256];
    int k = 0;
    for (const cJSON *c = mode->child; c != NULL && k < n; c = c->next)
        items[k++] = c;
    qsort(items, (size_t)k, sizeof items[0], cmp_members);
    size_t cap = 64, len = 0;
    char *key = mdae_malloc(cap);
    if (key == NULL)
        return NULL;
    key[0] = '\0';
    for (int i = 0; i < k; i++) {
        char *v = cJSON_PrintUnformatted(items[i]);
        if (v == NULL) {
            mdae_free(key);
            return NULL;
        }
        size_t need = len + strlen(items[i]->string) + strlen(v) + 3;
        if (need > cap) {
            while (cap < need)
                cap *= 2;
            char *nk = mdae_realloc(key, cap);
            if (nk == NULL) {
                mdae_free(v);
                mdae_free(key);
                return NULL;
            }
            key = nk;
        }
        len += (size_t)sprintf(key + len, "%s=%s;", items[i]->string, v);
        mdae_free(v);
    }
    return key;
}

static void m_mode(srv_call *call, const cJSON *params)
{
    if (!params_object(call, params))
        return;
    srv_session *s = session_param(call, params);
    if (s == NULL)
        return;
    const cJSON *mode = get_param(params, "mode");
    if (!cJSON_IsObject(mode)) {
        bad_params(call, "%s", "\"mode\" must be an object such as {\"g1\":true}");
        return;
    }
    cJSON *wp = cJSON_CreateObject();
    cJSON *m = cJSON_Duplicate(mode, true);
    if (wp == NULL || m == NULL) {
        cJSON_Delete(wp);
        cJSON_Delete(m);
        srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
        return;
    }
    cJSON_AddItemToObject(wp, "mode", m);
    char *key = mode_key(mode);
    const char *text = NULL;
    const cJSON *hit = key ? srv_session_mode_get(s, key, &text) : NULL;
    if (hit != NULL) {
        cJSON_Delete(wp);
        mdae_free(key);
        if (call->batch == NULL && text != NULL)
            srv_call_result_text(call, text); /* no copy of the tree, no reprint */
        else
            srv_call_result(call, cJSON_Duplicate(hit, true));
        return;
    }
    srv_job *job = srv_job_new(SRV_JOB_MODE, "mode", wp, call);
    if (job == NULL) {
        mdae_free(key);
        srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
        return;
    }
    job->cache_key = key;
    job->version = s->version;
    srv_worker_submit(s, job);
}

static void m_dot(srv_call *call, const cJSON *params)
{
    if (!params_object(call, params))
        return;
    srv_session *s = session_param(call, params);
    if (s == NULL)
        return;
    submit(s, SRV_JOB_RAW, "dot", cJSON_CreateObject(), call);
}

/* debug/crash, debug/alloc, debug/sleep: forwarded to the session's worker;
 * only with "debug_methods": true (tests). */
static void m_debug(srv_call *call, const cJSON *params)
{
    if (!params_object(call, params))
        return;
    srv_session *s = session_param(call, params);
    if (s == NULL)
        return;
    cJSON *wp = params ? cJSON_Duplicate(params, true) : cJSON_CreateObject();
    if (wp == NULL) {
        srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
        return;
    }
    submit(s, SRV_JOB_RAW, call->method, wp, call);
}

static void m_auth(srv_call *call, const cJSON *params)
{
    const cJSON *tok = get_param(params, "token");
    srv_conn *c = call->conn;
    if (srv.cfg.token == NULL || c->kind != SRV_CONN_TCP) {
        c->authed = true;
        srv_call_result(call, cJSON_CreateTrue());
        return;
    }
    if (cJSON_IsString(tok) && strcmp(tok->valuestring, srv.cfg.token) == 0) {
        c->authed = true;
        srv_call_result(call, cJSON_CreateTrue());
        return;
    }
    srv_call_error(call, SRV_UNAUTHORIZED, "wrong access token", NULL);
    srv_conn_end(c, "wrong access token");
}

static void m_initialize(srv_call *call, const cJSON *params)
{
    /* Incremental sync (2): didChange carries ranges (issue 5 section 3). */
    cJSON *r = cJSON_Parse("{\"capabilities\":{\"textDocumentSync\":{\"openClose\":true,"
                           "\"change\":2}},\"serverInfo\":{\"name\":\"mdaed\","
                           "\"version\":\"" MDAE_VERSION
                           "\"}}");
    if (r == NULL) {
        srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
        return;
    }
    srv_call_result(call, r);
}

static void m_shutdown(srv_call *call, const cJSON *params)
{
    call->conn->lsp_shutdown = true;
    srv_call_result(call, NULL);
}

typedef struct method {
    const char *name;
    void (*fn)(srv_call *call, const cJSON *params);
    bool debug;
} method;

static const method methods[] = {
    {"server/status", m_status, false},   {"session/open", m_open, false},
    {"session/edit", m_edit, false},      {"session/analyze", m_analyze, false},
    {"session/close", m_close, false},    {"session/mode", m_mode, false},
    {"session/dot", m_dot, false},      {"auth", m_auth, false},
    {"initialize", m_initialize, false},  {"shutdown", m_shutdown, false},
    {"debug/crash", m_debug, true},       {"debug/alloc", m_debug, true},
    {"debug/sleep", m_debug, true},
};

/* ---- LSP documents (notifications) ------------------------------------------------ */

static void lsp_publish(srv_conn *c, const char *uri, long version, cJSON *diagnostics)
{
    cJSON *p = cJSON_CreateObject();
    if (p == NULL || !cJSON_AddStringToObject(p, "uri", uri) ||
        (version > 0 && !cJSON_AddNumberToObject(p, "version", (double)version))) {
        cJSON_Delete(p);
        cJSON_Delete(diagnostics);
        return;
    }
    cJSON_AddItemToObject(p, "diagnostics", diagnostics ? diagnostics : cJSON_CreateArray());
    srv_conn_send(c, rpc_notification_new("textDocument/publishDiagnostics", p), false);
}

static void lsp_on_timer(uv_timer_t *t);
static long lsp_doc_version(const cJSON *doc);

static void lsp_check(srv_conn *c, srv_session *s)
{
    srv_job *job = srv_job_new(SRV_JOB_LSP, "diagnose", srv_session_load_params(s), NULL);
    if (job == NULL)
        return;
    job->conn = c;
    srv_conn_ref(c);
    job->uri = mdae_strdup(s->uri);
    job->version = s->version;
    job->lsp_version = s->lsp_version;
    srv_worker_submit(s, job);
}

/* Debounce (issue 6): a didChange does not analyse at once. It cancels the
 * check in flight for the document (its answer would be stale) and makes
 * the document due lsp_debounce_ms later; a newer change moves the due time.
 * One timer serves every document: it fires at the earliest due time, runs
 * the due checks and re-arms for the next one. */
static void lsp_arm(void)
{
    uint64_t now = uv_now(srv.loop), first = 0;
    for (srv_session *s = srv.sessions; s != NULL; s = s->next)
        if (s->lsp_due != 0 && (first == 0 || s->lsp_due < first))
            first = s->lsp_due;
    if (first == 0) {
        uv_timer_stop(&srv.lsp_timer);
        return;
    }
    uv_timer_start(&srv.lsp_timer, lsp_on_timer, first > now ? first - now : 0, 0);
}

static void lsp_on_timer(uv_timer_t *t)
{
    (void)t;
    uint64_t now = uv_now(srv.loop);
    for (srv_session *s = srv.sessions; s != NULL; s = s->next) {
        if (s->lsp_due == 0 || s->lsp_due > now)
            continue;
        s->lsp_due = 0;
        if (s->owner != NULL && !s->owner->closing)
            lsp_check(s->owner, s);
    }
    lsp_arm();
}

/* changed: the text did change (else the check in flight is still right). */
static void lsp_schedule(srv_conn *c, srv_session *s, bool changed)
{
    if (changed)
        srv_worker_cancel_lsp(s);
    if (srv.cfg.lsp_debounce_ms == 0 || s->owner != c) {
        s->lsp_due = 0;
        lsp_check(c, s);
        return;
    }
    s->lsp_due = uv_now(srv.loop) + srv.cfg.lsp_debounce_ms;
    lsp_arm();
}

static void n_did_open(srv_conn *c, const cJSON *params)
{
    const cJSON *doc = get_param(params, "textDocument");
    const cJSON *uri = get_param(doc, "uri");
    const cJSON *text = get_param(doc, "text");
    if (!cJSON_IsString(uri) || !cJSON_IsString(text))
        return; /* notifications get no error (JSON-RPC 2.0 section 4.1) */
    srv_session *s = srv_session_find_uri(c, uri->valuestring);
    if (s != NULL) {
        char *t = mdae_strdup(text->valuestring);
        if (t != NULL)
            srv_session_set_text(s, t, strlen(t));
    } else if (srv_session_new(c, text->valuestring, strlen(text->valuestring), NULL, &s) < 0) {
        MDAE_LOG(SRV_LOG_WARN, "conn %llu: didOpen %s: cannot open a session",
                 (unsigned long long)c->id, uri->valuestring);
        return;
    } else {
        s->uri = mdae_strdup(uri->valuestring);
        if (s->uri == NULL) {
            srv_session_close(s);
            return;
        }
    }
    s->lsp_version = lsp_doc_version(doc);
    s->lsp_due = 0;
    lsp_check(c, s);
}

static void n_did_change(srv_conn *c, const cJSON *params)
{
    const cJSON *doc = get_param(params, "textDocument");
    const cJSON *uri = get_param(doc, "uri");
    const cJSON *changes = get_param(params, "contentChanges");
    if (!cJSON_IsString(uri) || !cJSON_IsArray(changes))
        return;
    srv_session *s = srv_session_find_uri(c, uri->valuestring);
    if (s == NULL)
        return;
    s->lsp_version = lsp_doc_version(doc);
    long before = s->version;
    for (const cJSON *ch = changes->child; ch != NULL; ch = ch->next) {
        const cJSON *range = get_param(ch, "range");
        const cJSON *text = get_param(ch, "text");
        if (!cJSON_IsString(text))
            continue;
        if (range == NULL) {
            char *t = mdae_strdup(text->valuestring);
            if (t != NULL)
                srv_session_set_text(s, t, strlen(t));
            continue;
        }
        /* One change at a time: each range refers to the text after the
         * previous change (LSP spec, TextDocumentContentChangeEvent). */
        cJSON *one = cJSON_CreateArray();
        cJSON *dup = cJSON_Duplicate(ch, true);
        if (one == NULL || dup == NULL) {
            cJSON_Delete(one);
            cJSON_Delete(dup);
            return;
        }
        cJSON_AddItemToArray(one, dup);
        const char *why = NULL;
        if (srv_session_apply_edits(s, one, &why) < 0)
            MDAE_LOG(SRV_LOG_WARN, "conn %llu: didChange %s: %s", (unsigned long long)c->id,
                     uri->valuestring, why ? why : "cannot apply");
        cJSON_Delete(one);
    }
    lsp_schedule(c, s, s->version != before);
}

static void n_did_close(srv_conn *c, const cJSON *params)
{
    const cJSON *uri = get_param(get_param(params, "textDocument"), "uri");
    if (!cJSON_IsString(uri))
        return;
    srv_session *s = srv_session_find_uri(c, uri->valuestring);
    if (s == NULL)
        return;
    srv_session_close(s);
    lsp_publish(c, uri->valuestring, -1, NULL); /* clear the editor's markers */
}

static void notification(srv_conn *c, const char *name, const cJSON *params)
{
    if (strcmp(name, "$/cancelRequest") == 0) {
        const cJSON *id = get_param(params, "id");
        if (rpc_id_valid(id) && !srv_worker_cancel(c, id))
            MDAE_LOG(SRV_LOG_DEBUG, "conn %llu: cancel for an unknown request",
                     (unsigned long long)c->id);
    } else if (strcmp(name, "exit") == 0) {
        srv_conn_end(c, c->lsp_shutdown ? "LSP exit" : "LSP exit without shutdown");
    } else if (strcmp(name, "textDocument/didOpen") == 0) {
        n_did_open(c, params);
    } else if (strcmp(name, "textDocument/didChange") == 0) {
        n_did_change(c, params);
    } else if (strcmp(name, "textDocument/didClose") == 0) {
        n_did_close(c, params);
    }
    /* Anything else (initialized, $/setTrace...) needs no answer. */
}

void srv_router_lsp_done(srv_conn *c, const char *uri, cJSON *diagnostics)
{
    lsp_publish(c, uri, -1, diagnostics);
}

void srv_router_lsp_done_version(srv_conn *c, const char *uri, long lsp_version,
                                 cJSON *diagnostics)
{
    lsp_publish(c, uri, lsp_version, diagnostics);
}

/* textDocument.version of a didOpen / didChange, 0 when absent. */
static long lsp_doc_version(const cJSON *doc)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "version");
    return cJSON_IsNumber(v) && v->valuedouble > 0 && v->valuedouble < 1e15 ? (long)v->valuedouble
                                                                            : 0;
}

/* ---- Dispatch ------------------------------------------------------------------------ */

static void reply_now(srv_conn *c, srv_batch *b, cJSON *response)
{
    srv.requests++;
    if (b != NULL) {
        if (response != NULL)
            cJSON_AddItemToArray(b->responses, response);
    } else {
        srv_conn_send(c, response, true);
    }
}

/* Returns true when the message is owed a response. */
static bool dispatch_msg(srv_conn *c, const rpc_msg *m, srv_batch *b)
{
    if (m->kind == RPC_MSG_RESPONSE)
        return false; /* we never send requests to clients */
    if (m->kind == RPC_MSG_INVALID) {
        cJSON *d = cJSON_CreateObject();
        if (d)
            cJSON_AddStringToObject(d, "reason", m->why);
        reply_now(c, b, rpc_response_error(m->id, RPC_INVALID_REQUEST, "Invalid Request", d));
        return true;
    }
    if (!c->authed && strcmp(m->method, "auth") != 0) {
        if (m->kind == RPC_MSG_REQUEST)
            reply_now(c, b,
                      rpc_response_error(m->id, SRV_UNAUTHORIZED,
                                         "authentication required: send {\"method\":\"auth\","
                                         "\"params\":{\"token\":...}} first",
                                         NULL));
        srv_conn_end(c, "not authenticated");
        return m->kind == RPC_MSG_REQUEST;
    }
    MDAE_LOG(SRV_LOG_DEBUG, "conn %llu: %s %s", (unsigned long long)c->id,
             m->kind == RPC_MSG_REQUEST ? "request" : "notification", m->method);
    if (m->kind == RPC_MSG_NOTIFICATION) {
        notification(c, m->method, m->params);
        return false;
    }
    const method *fn = NULL;
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strcmp(methods[i].name, m->method) == 0 &&
            (!methods[i].debug || srv.cfg.debug_methods)) {
            fn = &methods[i];
            break;
        }
    if (fn == NULL) {
        char msg[200];
        snprintf(msg, sizeof msg, "Method not found: %.150s", m->method);
        reply_now(c, b, rpc_response_error(m->id, RPC_METHOD_NOT_FOUND, msg, NULL));
        return true;
    }
    srv_call *call = srv_call_new(c, m->id, m->method, b);
    if (call == NULL) {
        reply_now(c, b, rpc_response_mdae(m->id, MDAE_E_NOMEM, NULL, NULL));
        return true;
    }
    fn->fn(call, m->params);
    return true;
}

/* Parse and dispatch one body; true when a response is owed. */
static bool dispatch_body(srv_conn *c, const char *body, size_t len)
{
    rpc_parsed p;
    int rc = rpc_parse(body, len, &p);
    if (rc == MDAE_E_PROTO) {
        reply_now(c, NULL,
                  rpc_response_error(NULL, RPC_PARSE_ERROR, "Parse error: not JSON", NULL));
        return true;
    }
    if (rc == MDAE_E_LIMIT) {
        reply_now(c, NULL, rpc_response_error(NULL, RPC_INVALID_REQUEST,
                                              "Invalid Request: JSON nested too deep", NULL));
        return true;
    }
    if (rc < 0) {
        reply_now(c, NULL, rpc_response_mdae(NULL, rc, NULL, NULL));
        return true;
    }
    bool owed = false;
    if (!p.batch) {
        owed = dispatch_msg(c, &p.msgs[0], NULL);
    } else {
        srv_batch *b = mdae_calloc(1, sizeof *b);
        if (b == NULL || (b->responses = cJSON_CreateArray()) == NULL) {
            mdae_free(b);
            reply_now(c, NULL, rpc_response_mdae(NULL, MDAE_E_NOMEM, NULL, NULL));
            rpc_parsed_close(&p);
            return true;
        }
        b->conn = c;
        srv_conn_ref(c);
        b->dispatching = true;
        for (size_t i = 0; i < p.n && !c->closing && !c->ending; i++)
            owed |= dispatch_msg(c, &p.msgs[i], b);
        b->dispatching = false;
        batch_maybe_send(b);
    }
    rpc_parsed_close(&p);
    return owed;
}

/* ---- HTTP ------------------------------------------------------------------------------- */

static void http_simple(srv_conn *c, const char *status, const char *type, const char *body,
                        size_t len, bool keep_alive)
{
    char *out;
    size_t olen;
    if (rpc_http_response(status, type, body, len, keep_alive, &out, &olen) == MDAE_OK)
        srv_conn_write(c, out, olen);
    if (!keep_alive)
        srv_conn_end(c, "HTTP response sent");
}

static const char *content_type(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot == NULL)
        return "application/octet-stream";
    if (strcmp(dot, ".html") == 0)
        return "text/html; charset=utf-8";
    if (strcmp(dot, ".js") == 0)
        return "text/javascript; charset=utf-8";
    if (strcmp(dot, ".css") == 0)
        return "text/css; charset=utf-8";
    if (strcmp(dot, ".json") == 0)
        return "application/json";
    if (strcmp(dot, ".svg") == 0)
        return "image/svg+xml";
    return "application/octet-stream";
}

/* GET / and GET /file from web_root. Small static files only: the read is a
 * blocking read of a local file at most 1 MiB, which we accept in the loop
 * (a placeholder page today, issue 5 section 2). */
static void http_static(srv_conn *c, const rpc_frame *f)
{
    char path[1200];
    const char *url = f->url;
    size_t ulen = strcspn(url, "?#");
    if (srv.cfg.web_root == NULL) {
        const char *msg = "mdaed: no web_root configured\n";
        http_simple(c, "404 Not Found", "text/plain", msg, strlen(msg), f->keep_alive);
        return;
    }
    if (ulen == 0 || url[0] != '/' || strstr(url, "..") != NULL) {
        http_simple(c, "400 Bad Request", "text/plain", "bad path\n", 9, f->keep_alive);
        return;
    }
    if (ulen == 1)
        snprintf(path, sizeof path, "%s/index.html", srv.cfg.web_root);
    else
        snprintf(path, sizeof path, "%s%.*s", srv.cfg.web_root, (int)ulen, url);
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20)) {
        if (fd >= 0)
            close(fd);
        http_simple(c, "404 Not Found", "text/plain", "not found\n", 10, f->keep_alive);
        return;
    }
    char *buf = mdae_malloc((size_t)st.st_size + 1);
    ssize_t n = buf ? read(fd, buf, (size_t)st.st_size) : -1;
    close(fd);
    if (n < 0) {
        mdae_free(buf);
        http_simple(c, "500 Internal Server Error", "text/plain", "read error\n", 11, false);
        return;
    }
    http_simple(c, "200 OK", content_type(path), f->method == RPC_HTTP_HEAD ? "" : buf,
                f->method == RPC_HTTP_HEAD ? 0 : (size_t)n, f->keep_alive);
    mdae_free(buf);
}

static void http_frame(srv_conn *c, const rpc_frame *f)
{
    if (c->http_busy) {
        /* Pipelined requests would interleave chunked replies: refuse. */
        MDAE_LOG(SRV_LOG_WARN, "conn %llu: pipelined HTTP request refused",
                 (unsigned long long)c->id);
        srv_conn_close(c, "HTTP pipelining is not supported");
        return;
    }
    if (f->method == RPC_HTTP_GET || f->method == RPC_HTTP_HEAD) {
        http_static(c, f);
        return;
    }
    size_t ulen = strcspn(f->url, "?#");
    if (f->method != RPC_HTTP_POST || ulen != 4 || strncmp(f->url, "/rpc", 4) != 0) {
        const char *msg = "mdaed: POST /rpc for JSON-RPC, GET / for the web page\n";
        http_simple(c, f->method == RPC_HTTP_POST ? "404 Not Found" : "405 Method Not Allowed",
                    "text/plain", msg, strlen(msg), f->keep_alive);
        return;
    }
    if (c->kind == SRV_CONN_TCP && srv.cfg.token != NULL) {
        char want[600];
        snprintf(want, sizeof want, "Bearer %s", srv.cfg.token);
        if (f->authorization == NULL || strcmp(f->authorization, want) != 0) {
            const char *msg = "mdaed: Authorization: Bearer TOKEN required\n";
            http_simple(c, "401 Unauthorized", "text/plain", msg, strlen(msg), false);
            return;
        }
    }
    c->authed = true; /* for this exchange; every request is checked again */
    c->http_busy = true;
    c->http_keep_alive = f->keep_alive;
    c->http_outstanding = 1; /* one body, one top-level response at most */
    const char *head = rpc_http_stream_head(f->keep_alive);
    char *h = mdae_strdup(head);
    if (h == NULL) {
        srv_conn_close(c, "out of memory");
        return;
    }
    srv_conn_write(c, h, strlen(h));
    bool owed = dispatch_body(c, f->body, f->len);
    if (c->kind == SRV_CONN_TCP && srv.cfg.token != NULL)
        c->authed = false;
    if (!owed && !c->closing && !c->ending) { /* notifications only: end the stream now */
        c->http_outstanding = 0;
        char *end = mdae_strdup(RPC_HTTP_STREAM_END);
        if (end != NULL)
            srv_conn_write(c, end, strlen(end));
        c->http_busy = false;
        if (!c->http_keep_alive)
            srv_conn_end(c, "HTTP exchange done");
    }
}

void srv_router_frame(srv_conn *c, const rpc_frame *f)
{
    MDAE_LOG(SRV_LOG_DEBUG, "conn %llu: -> (%s) %.*s", (unsigned long long)c->id,
             rpc_framing_name(f->framing), (int)(f->len > 300 ? 300 : f->len), f->body);
    if (f->framing == RPC_FRAMING_HTTP) {
        http_frame(c, f);
        return;
    }
    dispatch_body(c, f->body, f->len);
}
