/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_lsp.c -- the language-server side of mdaed (issue 5 section 3,
 * issue 6): the lifecycle (initialize, shutdown, exit) and the documents
 * (textDocument/didOpen, didChange, didClose), each a session owned by its
 * connection, checked in the session's worker ("diagnose") and answered
 * with textDocument/publishDiagnostics.
 *
 * Debounce (issue 6): a didChange does not check at once. It cancels the
 * check in flight for the document (its answer would be stale) and makes
 * the document due lsp_debounce_ms later; a newer change moves the due
 * time. One timer serves every document: it fires at the earliest due time,
 * runs the due checks and re-arms for the next one.
 */
#include "srv.h"

#include <string.h>

static const cJSON *get_param(const cJSON *params, const char *name)
{
    return cJSON_IsObject(params) ? cJSON_GetObjectItemCaseSensitive(params, name) : NULL;
}

static void lsp_on_timer(uv_timer_t *t);
static long lsp_doc_version(const cJSON *doc);

/* ---- Lifecycle -------------------------------------------------------------------- */

void srv_lsp_initialize(srv_call *call, const cJSON *params)
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

void srv_lsp_shutdown(srv_call *call, const cJSON *params)
{
    call->conn->lsp_shutdown = true;
    srv_call_result(call, NULL);
}

void srv_lsp_exit(srv_conn *c, const cJSON *params)
{
    srv_conn_end(c, c->lsp_shutdown ? "LSP exit" : "LSP exit without shutdown");
}

void srv_lsp_init(void)
{
    uv_timer_init(srv.loop, &srv.lsp_timer);
    uv_unref((uv_handle_t *)&srv.lsp_timer);
}

void srv_lsp_close(void) { uv_close((uv_handle_t *)&srv.lsp_timer, NULL); }

/* ---- Documents ----------------------------------------------------------------------- */

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

/* A diagnose job: the document's text is loaded and checked in the
 * session's worker, and the diagnostics published on the connection. */
typedef struct lsp_job {
    srv_job job;     /* first: the pool hands it back */
    srv_conn *conn;  /* referenced */
    srv_session *s;  /* valid while the job's queue is open */
    char *uri;       /* owned */
    long version;    /* the session version checked */
    long lsp_version; /* the client's document version, -1: none */
} lsp_job;

/* All LSP checks of a session carry this tag: a newer change cancels them. */
#define LSP_TAG 1

static void check_done(srv_job *job, srv_reply *r)
{
    lsp_job *lj = (lsp_job *)job;
    /* A stale check (the document changed since) is dropped: the newer one
     * is queued behind it and will publish. */
    if (r->rc == MDAE_OK && r->error == NULL && r->queue != NULL && !lj->conn->closing &&
        lj->s->version == lj->version)
        lsp_publish(lj->conn, lj->uri, lj->lsp_version,
                    r->result ? cJSON_DetachItemFromObjectCaseSensitive(r->result, "diagnostics")
                              : NULL);
    srv_conn_unref(lj->conn);
    mdae_free(lj->uri);
    mdae_free(lj);
}

static void lsp_check(srv_conn *c, srv_session *s)
{
    lsp_job *lj = mdae_calloc(1, sizeof *lj);
    cJSON *params = srv_session_load_params(s);
    if (lj == NULL || srv_job_init(&lj->job, "diagnose", params, check_done) < 0 ||
        (lj->uri = mdae_strdup(s->uri)) == NULL) {
        if (lj == NULL)
            cJSON_Delete(params);
        else
            cJSON_Delete(lj->job.params);
        mdae_free(lj);
        return;
    }
    lj->job.flags = SRV_JOB_LOADS;
    lj->job.tag = LSP_TAG;
    lj->conn = c;
    srv_conn_ref(c);
    lj->s = s;
    lj->version = s->version;
    lj->lsp_version = s->lsp_version;
    srv_queue_submit(&s->queue, &lj->job);
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
        srv_queue_cancel_tag(&s->queue, LSP_TAG);
    if (srv.cfg.lsp_debounce_ms == 0 || s->owner != c) {
        s->lsp_due = 0;
        lsp_check(c, s);
        return;
    }
    s->lsp_due = uv_now(srv.loop) + srv.cfg.lsp_debounce_ms;
    lsp_arm();
}

void srv_lsp_did_open(srv_conn *c, const cJSON *params)
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
    } else if (srv_session_new(c, text->valuestring, strlen(text->valuestring), NULL,
                               srv_m_session_reload, &s) < 0) {
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
    /* Modelica by languageId here; by a .mo/.bmo URI or the //! base header
     * in the worker (mo_is_modelica) */
    const cJSON *lang = get_param(doc, "languageId");
    s->modelica = cJSON_IsString(lang) && strcmp(lang->valuestring, "modelica") == 0;
    s->lsp_version = lsp_doc_version(doc);
    s->lsp_due = 0;
    lsp_check(c, s);
}

void srv_lsp_did_change(srv_conn *c, const cJSON *params)
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

void srv_lsp_did_close(srv_conn *c, const cJSON *params)
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

/* textDocument.version of a didOpen / didChange, 0 when absent. */
static long lsp_doc_version(const cJSON *doc)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "version");
    return cJSON_IsNumber(v) && v->valuedouble > 0 && v->valuedouble < 1e15 ? (long)v->valuedouble
                                                                            : 0;
}
