/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_lsp.c -- the language-server side of mdaed (issue 5 section 3,
 * issue 6): the lifecycle (initialize, shutdown, exit) and the documents
 * (textDocument/didOpen, didChange, didClose), each a session owned by its
 * connection, checked in the session's worker and answered with
 * textDocument/publishDiagnostics.
 *
 * Editors stay live (issue 36 item 4). A check has two stages, two jobs in
 * the session's queue: "diagnose" (load, analysis of the modes) publishes
 * its diagnostics as soon as it is answered, then "diagnose/modeChanges"
 * publishes the whole set again with the approximate analysis's warnings
 * and the mode changes' (a publication replaces the one before), so the
 * slower checks never delay the first (issue 40 item 5); until then the
 * first carries the previous check's second-stage diagnostics (what the
 * editor showed), so that they do not vanish and come back on every edit;
 * questions asked meanwhile are queued before the second stage. A newer
 * change bumps the document's epoch and cancels both (the running one
 * inside the worker, at its next step: nothing is killed, the worker keeps
 * its incremental cache), and an answer of an older epoch or version is
 * never published. Work running 200 ms reports work-done progress when the
 * client offers it, and the client may cancel it (see "Work-done progress").
 *
 * Debounce (issue 6): a didChange does not check at once. It cancels the
 * check in flight for the document (its answer would be stale) and makes
 * the document due lsp_debounce_ms later; a newer change moves the due
 * time. One timer serves every document: it fires at the earliest due time,
 * runs the due checks and re-arms for the next one.
 *
 * Questions (issue 15): hover, documentSymbol, definition, references,
 * codeLens and the command mdae.showMode are jobs for the document's worker
 * (server/worker/wk_lsp.c answers them from what it keeps); a check still
 * waiting for its debounce runs first, so the answer is about the text the
 * editor shows. The position encoding is chosen in initialize (UTF-8 when
 * offered) and carried by each document's session to its worker.
 */
#include "srv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc_lsp.h"

static const cJSON *get_param(const cJSON *params, const char *name)
{
    return cJSON_IsObject(params) ? cJSON_GetObjectItemCaseSensitive(params, name) : NULL;
}

static void lsp_on_timer(uv_timer_t *t);
static void lsp_arm(void);
static long lsp_doc_version(const cJSON *doc);

#define LSP_SHOW_MODE "mdae.showMode"
/* LSP ErrorCodes.RequestCancelled */
#define RPC_LSP_REQUEST_CANCELLED (-32800)

/* ---- Lifecycle -------------------------------------------------------------------- */

/* general.positionEncodings offers "utf-8" (LSP 3.17): then we count bytes,
 * which is what the engine does; otherwise UTF-16 (the default every client
 * must accept). */
static bool offers_utf8(const cJSON *params)
{
    const cJSON *encs =
        get_param(get_param(get_param(params, "capabilities"), "general"), "positionEncodings");
    const cJSON *e;
    cJSON_ArrayForEach(e, encs)
    {
        if (cJSON_IsString(e) && strcmp(e->valuestring, "utf-8") == 0)
            return true;
    }
    return false;
}

/* workspace.applyEdit and "create" among workspace.workspaceEdit's
 * resourceOperations: the client can be asked to create a file with a text
 * (the RIMIS code action, srv_lsp_rimis.c). Resource operations exist only
 * in documentChanges, so they imply it: Neovim 0.7 announces them, not
 * documentChanges, and applies both. */
static bool creates_files(const cJSON *caps)
{
    const cJSON *ws = get_param(caps, "workspace");
    const cJSON *we = get_param(ws, "workspaceEdit");
    if (!cJSON_IsTrue(get_param(ws, "applyEdit")))
        return false;
    const cJSON *op;
    cJSON_ArrayForEach(op, get_param(we, "resourceOperations"))
    {
        if (cJSON_IsString(op) && strcmp(op->valuestring, "create") == 0)
            return true;
    }
    return false;
}

/* What is implemented, and nothing else (issue 15): incremental sync with
 * save notifications, hover, outline, definition, references, code lenses
 * (resolved at once: no codeLens/resolve), the command mdae.showMode, and
 * (issue 39) the code action "Generate a mode-independent model" with its
 * command mdae.rimis (srv_lsp_rimis.c). */
#define LSP_CAPABILITIES                                                                  \
    "\"textDocumentSync\":{\"openClose\":true,\"change\":2,\"save\":{\"includeText\":false}},"  \
    "\"hoverProvider\":true,\"documentSymbolProvider\":true,\"definitionProvider\":true,"     \
    "\"referencesProvider\":true,\"codeLensProvider\":{\"resolveProvider\":false},"         \
    "\"codeActionProvider\":{\"codeActionKinds\":[\"source\"]},"                           \
    "\"executeCommandProvider\":{\"commands\":[\"" LSP_SHOW_MODE "\",\"" SRV_LSP_RIMIS "\"]}"

void srv_lsp_initialize(srv_call *call, const cJSON *params)
{
    /* Incremental sync (2): didChange carries ranges (issue 5 section 3). */
    call->conn->lsp_initialized = true; /* an editor: its idle bound is long (issue 37) */
    call->conn->lsp_utf8 = offers_utf8(params);
    call->conn->lsp_progress = cJSON_IsTrue(
        get_param(get_param(get_param(params, "capabilities"), "window"), "workDoneProgress"));
    call->conn->lsp_create_files = creates_files(get_param(params, "capabilities"));
    call->conn->lsp_show_document = cJSON_IsTrue(get_param(
        get_param(get_param(get_param(params, "capabilities"), "window"), "showDocument"),
        "support"));
    const cJSON *mc = get_param(get_param(params, "initializationOptions"), "modeChanges");
    if (cJSON_IsBool(mc))
        call->conn->lsp_mode_changes = cJSON_IsTrue(mc);
    char *text = mdae_asprintf("{\"capabilities\":{\"positionEncoding\":\"%s\"," LSP_CAPABILITIES
                               "},\"serverInfo\":{\"name\":\"mdaed\",\"version\":\"" MDAE_VERSION
                               "\"}}",
                               call->conn->lsp_utf8 ? "utf-8" : "utf-16");
    cJSON *r = text ? cJSON_Parse(text) : NULL;
    mdae_free(text);
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

/* ---- Work-done progress (issue 36 item 4) ------------------------------------------
 *
 * A document's check is work from the submission of its first stage until
 * the last stage of the current version is answered (or it fails, or the
 * client cancels it); a newer change's check continues the same work, so
 * that typing on a slow model shows one progress, not a flicker. Work
 * still running LSP_PROGRESS_MS after it began reports $/progress when the
 * client offers window.workDoneProgress: window/workDoneProgress/create
 * first, begin once the client has answered it (the token is the client's
 * then), a report at each stage, end when the work ends. */

#define LSP_PROGRESS_MS 200
#define LSP_TOKEN_PREFIX "mdae/progress/"
enum { LSP_PROGRESS_NONE, LSP_PROGRESS_CREATING, LSP_PROGRESS_BEGUN };
#define LSP_STAGE_MODES "analysing modes"
#define LSP_STAGE_CHANGES "checking mode changes"

/* $/progress {token, value} for s's token (value taken). */
static void progress_send(srv_conn *c, const srv_session *s, cJSON *value)
{
    char token[64];
    snprintf(token, sizeof token, LSP_TOKEN_PREFIX "%llu", (unsigned long long)s->lsp_token);
    cJSON *p = cJSON_CreateObject();
    if (p == NULL || value == NULL || !cJSON_AddStringToObject(p, "token", token) ||
        !cJSON_AddItemToObject(p, "value", value)) {
        cJSON_Delete(p);
        cJSON_Delete(value);
        return;
    }
    srv_conn_send(c, rpc_notification_new("$/progress", p), false);
}

/* {kind, message} of a $/progress value (NULL on OOM). */
static cJSON *progress_value(const char *kind, const char *message)
{
    cJSON *v = cJSON_CreateObject();
    if (v == NULL || !cJSON_AddStringToObject(v, "kind", kind) ||
        !cJSON_AddStringToObject(v, "message", message)) {
        cJSON_Delete(v);
        return NULL;
    }
    return v;
}

/* The work of s began (if it had not): its progress is due in
 * LSP_PROGRESS_MS when the client can show one. */
static void work_begin(srv_conn *c, srv_session *s, const char *stage)
{
    s->lsp_stage = stage;
    if (s->lsp_work_since != 0)
        return;
    s->lsp_work_since = uv_now(srv.loop);
    if (c->lsp_progress)
        s->lsp_progress_due = s->lsp_work_since + LSP_PROGRESS_MS;
}

/* The work goes on with another stage: reported if the progress is begun. */
static void work_stage(srv_conn *c, srv_session *s, const char *stage)
{
    s->lsp_stage = stage;
    if (s->lsp_progress == LSP_PROGRESS_BEGUN && !c->closing)
        progress_send(c, s, progress_value("report", stage));
}

/* The work of s ended (why: the end's message): its progress too. */
static void work_end(srv_conn *c, srv_session *s, const char *why)
{
    if (s->lsp_progress == LSP_PROGRESS_BEGUN && !c->closing)
        progress_send(c, s, progress_value("end", why));
    s->lsp_work_since = 0;
    s->lsp_progress_due = 0;
    s->lsp_progress = LSP_PROGRESS_NONE;
    s->lsp_token = 0;
}

/* The progress of s is due: ask the client for a token. */
static void progress_create(srv_conn *c, srv_session *s)
{
    s->lsp_progress_due = 0;
    if (s->lsp_work_since == 0 || s->lsp_progress != LSP_PROGRESS_NONE || c->closing)
        return;
    s->lsp_token = ++c->lsp_next_token;
    char token[64];
    snprintf(token, sizeof token, LSP_TOKEN_PREFIX "%llu", (unsigned long long)s->lsp_token);
    cJSON *p = cJSON_CreateObject(), *id = cJSON_CreateString(token);
    if (p == NULL || id == NULL || !cJSON_AddStringToObject(p, "token", token)) {
        cJSON_Delete(p);
        cJSON_Delete(id);
        return;
    }
    s->lsp_progress = LSP_PROGRESS_CREATING;
    srv_conn_send(c, rpc_request_new(id, "window/workDoneProgress/create", p), false);
    cJSON_Delete(id);
}

/* The document of c whose progress token is `token` ("mdae/progress/N"),
 * or NULL. */
static srv_session *progress_session(srv_conn *c, const cJSON *token)
{
    size_t n = strlen(LSP_TOKEN_PREFIX);
    if (!cJSON_IsString(token) || strncmp(token->valuestring, LSP_TOKEN_PREFIX, n) != 0)
        return NULL;
    char *end = NULL;
    unsigned long long k = strtoull(token->valuestring + n, &end, 10);
    if (k == 0 || end == NULL || *end != '\0')
        return NULL;
    for (srv_session *s = srv.sessions; s != NULL; s = s->next)
        if (s->owner == c && s->uri != NULL && s->lsp_token == k)
            return s;
    return NULL;
}

/* The client answered window/workDoneProgress/create: the token is usable
 * (an error: no progress for this work). */
void srv_lsp_response(srv_conn *c, const rpc_msg *m)
{
    if (srv_lsp_rimis_response(c, m))
        return;
    srv_session *s = progress_session(c, m->id);
    if (s == NULL || s->lsp_progress != LSP_PROGRESS_CREATING)
        return;
    if (cJSON_GetObjectItemCaseSensitive(m->json, "error") != NULL) {
        s->lsp_progress = LSP_PROGRESS_NONE;
        return;
    }
    const char *slash = s->uri ? strrchr(s->uri, '/') : NULL;
    char title[200];
    const char *name = slash ? slash + 1 : "";
    snprintf(title, sizeof title, "mdae %.*s", (int)rpc_utf8_prefix(name, strlen(name), 150),
             name); /* never cut inside a character */
    cJSON *v = progress_value("begin", s->lsp_stage ? s->lsp_stage : LSP_STAGE_MODES);
    if (v != NULL && (!cJSON_AddStringToObject(v, "title", title) ||
                      !cJSON_AddTrueToObject(v, "cancellable"))) {
        cJSON_Delete(v);
        v = NULL;
    }
    s->lsp_progress = LSP_PROGRESS_BEGUN;
    progress_send(c, s, v);
}

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

/* A check of a document in two stages (issue 36 item 4), each a job for
 * the session's worker: "diagnose" loads the text and analyses its modes,
 * and its diagnostics are published at once; then, when it says the
 * approximate analysis's warnings are left (the model was analysed), or
 * mode changes are left to check (it also has mode variables) and the
 * client wants them, "diagnose/modeChanges" finds those of what it
 * loaded, and the whole set (the first stage's and its own: a publication
 * replaces the one before) is published again. */
typedef struct lsp_job {
    srv_job job;     /* first: the pool hands it back */
    srv_conn *conn;  /* referenced */
    srv_session *s;  /* valid while the job's queue is open */
    char *uri;       /* owned */
    long version;    /* the session version checked */
    long lsp_version; /* the client's document version, -1: none */
    uint64_t epoch;   /* the session's lsp_epoch when submitted */
    uint64_t reported; /* uv_now of the last progress report from it */
    cJSON *first;     /* the second stage: the first's diagnostics (owned) */
} lsp_job;

/* All LSP checks of a session carry this tag: a newer change cancels them. */
#define LSP_TAG 1

static void lsp_job_free(lsp_job *lj)
{
    srv_conn_unref(lj->conn);
    cJSON_Delete(lj->first);
    mdae_free(lj->uri);
    mdae_free(lj);
}

/* A job's answer is for the document as it is: its session is open, its
 * connection too, and neither a newer change nor the client's cancel came
 * since. Else it is dropped (a newer check follows, or none is wanted). */
static bool current(const lsp_job *lj, const srv_reply *r)
{
    return r->queue != NULL && !lj->conn->closing && lj->s->version == lj->version &&
           lj->s->lsp_epoch == lj->epoch;
}

static void mc_done(srv_job *job, srv_reply *r);

/* A job for a stage of the check of s (params taken). */
static lsp_job *stage_job(srv_conn *c, srv_session *s, const char *method, cJSON *params,
                          srv_job_done_cb done)
{
    lsp_job *lj = mdae_calloc(1, sizeof *lj);
    if (lj == NULL || srv_job_init(&lj->job, method, params, done) < 0 ||
        (lj->uri = mdae_strdup(s->uri)) == NULL) {
        if (lj == NULL)
            cJSON_Delete(params);
        else
            cJSON_Delete(lj->job.params);
        mdae_free(lj);
        return NULL;
    }
    lj->job.tag = LSP_TAG;
    lj->conn = c;
    srv_conn_ref(c);
    lj->s = s;
    lj->version = s->version;
    lj->lsp_version = s->lsp_version;
    lj->epoch = s->lsp_epoch;
    return lj;
}

/* The second stage after the first published `first` (taken): the
 * approximate analysis's warnings the first left (approx) and the mode
 * changes' (mode_changes). */
static void check_mode_changes(lsp_job *prev, cJSON *first, bool approx, bool mode_changes)
{
    srv_session *s = prev->s;
    cJSON *params = cJSON_CreateObject();
    if (params != NULL && (!cJSON_AddBoolToObject(params, "approx", approx) ||
                           !cJSON_AddBoolToObject(params, "modeChanges", mode_changes))) {
        cJSON_Delete(params);
        params = NULL;
    }
    lsp_job *lj = params != NULL
                      ? stage_job(prev->conn, s, "diagnose/modeChanges", params, mc_done)
                      : NULL;
    if (lj == NULL) {
        cJSON_Delete(first);
        work_end(prev->conn, s, "out of memory");
        return;
    }
    lj->version = prev->version; /* the text the first stage loaded */
    lj->lsp_version = prev->lsp_version;
    lj->first = first;
    /* it makes the dependency graph the first stage left (issue 40 item 5)
     * and the approximate analysis: a kill at a limit there is that text's
     * too, so that a hover does not make the graph again to be killed again */
    lj->job.flags = SRV_JOB_ANALYSES;
    work_stage(prev->conn, s, LSP_STAGE_CHANGES);
    srv_queue_submit(&s->queue, &lj->job);
}

/* The check's worker died under it (killed at its memory cap or by the
 * time backstop of limits.request_timeout_ms, or crashed): a diagnostic
 * saying so, the pool's cause as its message (a limit names its setting,
 * its value and how to raise it) and data.limit when it names one, so that
 * the editor shows why instead of keeping stale markers. Located at the
 * start of the text: the worker died with what it knew. NULL on OOM. */
static cJSON *death_diagnostic(const lsp_job *lj, const srv_reply *r)
{
    mdae_range start = {{0, 0, 0}, {0, 0, 0}};
    char *msg = mdae_asprintf("analysis stopped: %s",
                              r->message != NULL ? r->message : mdae_strerror(r->rc));
    cJSON *d = NULL;
    int rc = msg != NULL ? rpc_lsp_diagnostic(lj->s->text, lj->s->len, &start, RPC_LSP_ERROR, msg,
                                              lj->s->lsp_utf8 ? RPC_LSP_UTF8 : RPC_LSP_UTF16, &d)
                         : MDAE_E_NOMEM;
    mdae_free(msg);
    const cJSON *lim = cJSON_GetObjectItemCaseSensitive(r->details, "limit");
    cJSON *data = rc == MDAE_OK && lim != NULL ? cJSON_AddObjectToObject(d, "data") : NULL;
    cJSON *copy = data != NULL ? cJSON_Duplicate(lim, true) : NULL;
    if (copy != NULL && !cJSON_AddItemToObject(data, "limit", copy))
        cJSON_Delete(copy); /* not attached (OOM): still ours */
    return d;
}

/* The diagnostics to publish when a stage got no answer: the worker's
 * death, after `first` (taken; the first stage's, or NULL). NULL when
 * there is nothing to say (a cancel: a newer check follows) or on OOM. */
static cJSON *death_diagnostics(const lsp_job *lj, const srv_reply *r, cJSON *first)
{
    cJSON *d = r->rc < 0 && r->rc != MDAE_E_CANCELED ? death_diagnostic(lj, r) : NULL;
    cJSON *arr = d != NULL ? (first != NULL ? first : cJSON_CreateArray()) : NULL;
    if (arr == NULL) {
        cJSON_Delete(d);
        cJSON_Delete(first);
        return NULL;
    }
    cJSON_AddItemToArray(arr, d);
    return arr;
}

/* The second stage's diagnostics of s's last complete check, kept as
 * late (taken; NULL: none). */
static void set_late(srv_session *s, cJSON *late)
{
    cJSON_Delete(s->lsp_late);
    s->lsp_late = late;
}

/* diags (taken) with copies of the last complete check's second-stage
 * diagnostics after them: a first publication replaces what the editor
 * shows, and the approximate analysis's warnings and the mode changes'
 * would vanish until the second stage gives them again (every edit of the
 * brake at N = 10,000: 21 warnings gone for a second). Those of the text
 * before are what the editor showed until now; the second publication
 * replaces them. On OOM, diags alone. */
static cJSON *with_late(const srv_session *s, cJSON *diags)
{
    const cJSON *d;
    cJSON_ArrayForEach(d, s->lsp_late)
    {
        cJSON *c = cJSON_Duplicate(d, true);
        if (c == NULL || !cJSON_AddItemToArray(diags, c)) {
            cJSON_Delete(c);
            break;
        }
    }
    return diags;
}

static void check_done(srv_job *job, srv_reply *r)
{
    lsp_job *lj = (lsp_job *)job;
    cJSON *res = NULL, *diags = NULL;
    if (!current(lj, r)) {
        lsp_job_free(lj); /* stale: the newer check publishes */
        return;
    }
    bool left = false, approx = false;
    if (r->rc == MDAE_OK && r->error == NULL && srv_reply_take_result(r, &res) == MDAE_OK &&
        res != NULL) {
        diags = cJSON_DetachItemFromObjectCaseSensitive(res, "diagnostics");
        left = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "modeChangesLeft")) &&
               lj->conn->lsp_mode_changes;
        approx = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "approxLeft"));
    }
    cJSON_Delete(res);
    if (!cJSON_IsArray(diags)) {
        cJSON_Delete(diags);
        set_late(lj->s, NULL);
        if ((diags = death_diagnostics(lj, r, NULL)) != NULL)
            lsp_publish(lj->conn, lj->uri, lj->lsp_version, diags);
        work_end(lj->conn, lj->s, "failed");
    } else if (left || approx) {
        cJSON *copy = cJSON_Duplicate(diags, true);
        lsp_publish(lj->conn, lj->uri, lj->lsp_version, with_late(lj->s, diags));
        if (copy != NULL)
            check_mode_changes(lj, copy, approx, left);
        else
            work_end(lj->conn, lj->s, "out of memory");
    } else {
        set_late(lj->s, NULL); /* no second stage: nothing of one still holds */
        lsp_publish(lj->conn, lj->uri, lj->lsp_version, diags);
        work_end(lj->conn, lj->s, "done");
    }
    lsp_job_free(lj);
}

/* The second stage: the first's diagnostics and the mode changes',
 * published even when it found none, so that a client knows the check is
 * complete (a failed stage leaves the first publication). */
static void mc_done(srv_job *job, srv_reply *r)
{
    lsp_job *lj = (lsp_job *)job;
    cJSON *res = NULL;
    if (!current(lj, r)) {
        lsp_job_free(lj);
        return;
    }
    if (r->rc == MDAE_OK && r->error == NULL && srv_reply_take_result(r, &res) == MDAE_OK) {
        cJSON *mc = cJSON_GetObjectItemCaseSensitive(res, "diagnostics"), *d;
        set_late(lj->s, cJSON_IsArray(mc) ? cJSON_Duplicate(mc, true) : NULL);
        while ((d = cJSON_DetachItemFromArray(mc, 0)) != NULL)
            cJSON_AddItemToArray(lj->first, d);
        lsp_publish(lj->conn, lj->uri, lj->lsp_version, lj->first);
        lj->first = NULL;
    } else {
        set_late(lj->s, NULL);
        cJSON *all = death_diagnostics(lj, r, lj->first); /* the first's, and why not more */
        lj->first = NULL;
        if (all != NULL)
            lsp_publish(lj->conn, lj->uri, lj->lsp_version, all);
    }
    cJSON_Delete(res);
    work_end(lj->conn, lj->s, "done");
    lsp_job_free(lj);
}

/* The worker's analysis/progress {phase, done, total} while the first
 * stage runs: a report of the begun progress, every
 * LSP_PROGRESS_REPORT_MS at most. */
#define LSP_PROGRESS_REPORT_MS 250

static void check_notify(srv_job *job, const char *method, cJSON *params)
{
    lsp_job *lj = (lsp_job *)job;
    srv_session *s = lj->s; /* the pool calls only while the queue is open */
    const cJSON *phase = cJSON_GetObjectItemCaseSensitive(params, "phase");
    const cJSON *done = cJSON_GetObjectItemCaseSensitive(params, "done");
    const cJSON *total = cJSON_GetObjectItemCaseSensitive(params, "total");
    uint64_t now = uv_now(srv.loop);
    if (strcmp(method, "analysis/progress") == 0 && cJSON_IsString(phase) &&
        cJSON_IsNumber(done) && cJSON_IsNumber(total) && s->lsp_progress == LSP_PROGRESS_BEGUN &&
        s->version == lj->version && s->lsp_epoch == lj->epoch && !lj->conn->closing &&
        now - lj->reported >= LSP_PROGRESS_REPORT_MS) {
        char msg[160];
        snprintf(msg, sizeof msg, LSP_STAGE_MODES ": %.60s %.0f/%.0f", phase->valuestring,
                 done->valuedouble, total->valuedouble);
        lj->reported = now;
        progress_send(lj->conn, s, progress_value("report", msg));
    }
    cJSON_Delete(params);
}

/* Check s's current text: its first stage (the mode-change check follows
 * from check_done). */
static void lsp_check(srv_conn *c, srv_session *s)
{
    /* the mode changes and the approximate analysis's warnings are the
     * second stage's, whatever modeChanges says (issue 40 item 5: the first
     * publication is the model's and the structural analysis's); the
     * analysis's progress only for a client that shows it */
    cJSON *params = srv_session_load_params(s);
    if (params != NULL && (!cJSON_AddFalseToObject(params, "modeChanges") ||
                           !cJSON_AddFalseToObject(params, "approx") ||
                           (c->lsp_progress && !cJSON_AddTrueToObject(params, "progress")))) {
        cJSON_Delete(params);
        params = NULL;
    }
    lsp_job *lj = stage_job(c, s, "diagnose", params, check_done);
    if (lj == NULL)
        return;
    lj->job.flags = SRV_JOB_LOADS | SRV_JOB_ANALYSES;
    lj->job.loads = s->version;
    lj->job.notify = check_notify;
    work_begin(c, s, LSP_STAGE_MODES);
    lsp_arm();
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
    for (srv_session *s = srv.sessions; s != NULL; s = s->next) {
        if (s->lsp_due != 0 && (first == 0 || s->lsp_due < first))
            first = s->lsp_due;
        if (s->lsp_progress_due != 0 && (first == 0 || s->lsp_progress_due < first))
            first = s->lsp_progress_due;
    }
    if (first == 0) {
        uv_timer_stop(&srv.lsp_timer);
        return;
    }
    uv_timer_start(&srv.lsp_timer, lsp_on_timer, first > now ? first - now : 0, 0);
}

/* The due checks, and the progress of work running LSP_PROGRESS_MS. */
static void lsp_on_timer(uv_timer_t *t)
{
    (void)t;
    uint64_t now = uv_now(srv.loop);
    for (srv_session *s = srv.sessions; s != NULL; s = s->next) {
        bool live = s->owner != NULL && !s->owner->closing;
        if (s->lsp_progress_due != 0 && s->lsp_progress_due <= now) {
            s->lsp_progress_due = 0;
            if (live)
                progress_create(s->owner, s);
        }
        if (s->lsp_due == 0 || s->lsp_due > now)
            continue;
        s->lsp_due = 0;
        if (live)
            lsp_check(s->owner, s);
    }
    lsp_arm();
}

/* changed: the text did change (else the check in flight is still right). */
static void lsp_schedule(srv_conn *c, srv_session *s, bool changed)
{
    if (changed) {
        s->lsp_epoch++; /* whatever the older checks answer is stale */
        srv_queue_cancel_tag(&s->queue, LSP_TAG);
    }
    uint64_t debounce =
        c->lsp_debounce_ms >= 0 ? (uint64_t)c->lsp_debounce_ms : srv.cfg.lsp_debounce_ms;
    if (debounce == 0 || s->owner != c) {
        s->lsp_due = 0;
        lsp_check(c, s);
        return;
    }
    s->lsp_due = uv_now(srv.loop) + debounce;
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
    char err[256];
    if (s != NULL) {
        char *t = mdae_strdup(text->valuestring);
        if (t != NULL && srv_session_set_text(s, t, strlen(t), err, sizeof err) < 0)
            MDAE_LOG(SRV_LOG_WARN, "conn %llu: didOpen %s: %s", (unsigned long long)c->id,
                     uri->valuestring, err);
    } else if ((srv.cfg.sessions_per_owner > 0 &&
                srv_session_count_class(c, NULL) >= srv.cfg.sessions_per_owner) ||
               srv_session_new(c, NULL, NULL, text->valuestring, strlen(text->valuestring),
                               NULL, srv_m_session_reload, &s) < 0) {
        /* A document is a session of its connection (issue 37): past
         * limits.sessions_per_owner, or max_sessions, it is not checked. */
        MDAE_LOG(SRV_LOG_WARN, "conn %llu: didOpen %s: cannot open a session",
                 (unsigned long long)c->id, uri->valuestring);
        return;
    } else {
        s->uri = mdae_strdup(uri->valuestring);
        if (s->uri == NULL) {
            srv_session_close(s, NULL, 0);
            return;
        }
    }
    /* Modelica by languageId here; by a .mo/.bmo URI or the //! base header
     * in the worker (mo_is_modelica) */
    const cJSON *lang = get_param(doc, "languageId");
    s->modelica = cJSON_IsString(lang) && strcmp(lang->valuestring, "modelica") == 0;
    s->lsp_utf8 = c->lsp_utf8;
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
    char err[256];
    for (const cJSON *ch = changes->child; ch != NULL; ch = ch->next) {
        const cJSON *range = get_param(ch, "range");
        const cJSON *text = get_param(ch, "text");
        if (!cJSON_IsString(text))
            continue;
        if (range == NULL) {
            char *t = mdae_strdup(text->valuestring);
            if (t != NULL && srv_session_set_text(s, t, strlen(t), err, sizeof err) < 0)
                MDAE_LOG(SRV_LOG_WARN, "conn %llu: didChange %s: %s", (unsigned long long)c->id,
                         uri->valuestring, err);
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
        if (srv_session_apply_edits(s, one, &why, err, sizeof err) < 0)
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
    work_end(c, s, "closed");
    srv_session_close(s, NULL, 0); /* owned by c: not stored */
    lsp_publish(c, uri->valuestring, -1, NULL); /* clear the editor's markers */
}

/* textDocument.version of a didOpen / didChange, 0 when absent. */
static long lsp_doc_version(const cJSON *doc)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "version");
    return cJSON_IsNumber(v) && v->valuedouble > 0 && v->valuedouble < 1e15 ? (long)v->valuedouble
                                                                            : 0;
}

/* didSave: the text is already ours (didChange); a save checks at once what
 * the debounce would check later (issue 15). */
void srv_lsp_did_save(srv_conn *c, const cJSON *params)
{
    const cJSON *uri = get_param(get_param(params, "textDocument"), "uri");
    srv_session *s = cJSON_IsString(uri) ? srv_session_find_uri(c, uri->valuestring) : NULL;
    if (s != NULL && s->lsp_due != 0) {
        s->lsp_due = 0;
        lsp_check(c, s);
        lsp_arm();
    }
}

/* Check every document of c again (its diagnostics depend on a setting
 * that changed). */
static void recheck_documents(srv_conn *c)
{
    for (srv_session *s = srv.sessions; s != NULL; s = s->next)
        if (s->owner == c && s->uri != NULL)
            lsp_schedule(c, s, true);
}

/* workspace/didChangeConfiguration {settings:{mdae:{debounceMs,
 * modeChanges}}}: the debounce of this connection's documents from now on
 * (issue 15; null goes back to the configuration's), and whether their
 * checks publish mode-change diagnostics (issue 13 item 7; a change of it
 * checks the connection's documents again). The server's limits (memory,
 * time, nodes) are the operator's (conf/mdaed.json), not an editor's: not
 * settable here. */
void srv_lsp_did_change_configuration(srv_conn *c, const cJSON *params)
{
    const cJSON *mdae = get_param(get_param(params, "settings"), "mdae");
    const cJSON *mc = get_param(mdae, "modeChanges");
    if (cJSON_IsBool(mc) && c->lsp_mode_changes != cJSON_IsTrue(mc)) {
        c->lsp_mode_changes = cJSON_IsTrue(mc);
        recheck_documents(c);
    }
    const cJSON *ms = get_param(mdae, "debounceMs");
    if (cJSON_IsNull(ms))
        c->lsp_debounce_ms = -1;
    else if (cJSON_IsNumber(ms) && ms->valuedouble >= 0 && ms->valuedouble <= 60000)
        c->lsp_debounce_ms = (int64_t)ms->valuedouble;
    else
        return;
    MDAE_LOG(SRV_LOG_INFO, "conn %llu: lsp debounce %lld ms", (unsigned long long)c->id,
             (long long)c->lsp_debounce_ms);
}

/* window/workDoneProgress/cancel {token}: the user stopped the check that
 * progress stands for. Its jobs are cancelled (the running one in the
 * worker, at its next step: the worker is not restarted), nothing more is
 * published for this version, and the next change checks again. */
void srv_lsp_progress_cancel(srv_conn *c, const cJSON *params)
{
    srv_session *s = progress_session(c, get_param(params, "token"));
    if (s == NULL || s->lsp_work_since == 0)
        return;
    s->lsp_epoch++;
    s->lsp_due = 0;
    srv_queue_cancel_tag(&s->queue, LSP_TAG);
    work_end(c, s, "cancelled");
    lsp_arm();
}

/* ---- Questions about a document (issue 15) ------------------------------------------ */

/* A question for the document's worker: the client's call, answered with
 * the worker's result as it is (null when it fails: an editor asks again). */
typedef struct ask_job {
    srv_job job; /* first: the pool hands it back */
    srv_call *call;
} ask_job;

static void ask_done(srv_job *job, srv_reply *r)
{
    ask_job *aj = (ask_job *)job;
    if (r->rc == MDAE_OK && r->error == NULL && r->result_text != NULL) {
        srv_call_result_text(aj->call, r->result_text, r->result_len, NULL, NULL);
    } else if (r->rc == MDAE_OK && r->error == NULL) {
        cJSON *res = r->result;
        r->result = NULL;
        srv_call_result(aj->call, res ? res : cJSON_CreateNull());
    } else if (r->rc == MDAE_E_CANCELED) {
        srv_call_error(aj->call, RPC_LSP_REQUEST_CANCELLED, "request cancelled", NULL);
    } else {
        srv_call_result(aj->call, cJSON_CreateNull());
    }
    mdae_free(aj);
}

/* The document's session, with the debounced check run first if one is
 * due, so that the worker answers about the text the client sees. */
srv_session *srv_lsp_document(srv_conn *c, const char *uri)
{
    srv_session *s = srv_session_find_uri(c, uri);
    if (s != NULL && s->lsp_due != 0) {
        s->lsp_due = 0;
        lsp_check(c, s);
        lsp_arm();
    }
    return s;
}

static srv_session *lsp_document(srv_conn *c, const cJSON *params)
{
    const cJSON *uri = get_param(get_param(params, "textDocument"), "uri");
    return cJSON_IsString(uri) ? srv_lsp_document(c, uri->valuestring) : NULL;
}

static void ask(srv_call *call, srv_session *s, const char *method, cJSON *wp /* takes */)
{
    ask_job *aj = mdae_calloc(1, sizeof *aj);
    if (aj == NULL || srv_job_init(&aj->job, method, wp, ask_done) < 0) {
        if (aj == NULL)
            cJSON_Delete(wp);
        mdae_free(aj);
        srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
        return;
    }
    aj->job.flags = SRV_JOB_ANALYSES; /* hover and lenses need it */
    aj->call = call;
    call->job = &aj->job;
    srv_queue_submit(&s->queue, &aj->job);
}

/* Forward {position, context} of a textDocument/... request to `method`. */
static void lsp_forward(srv_call *call, const cJSON *params, const char *method)
{
    srv_session *s = lsp_document(call->conn, params);
    if (s == NULL) {
        srv_call_result(call, cJSON_CreateNull()); /* a document we do not have */
        return;
    }
    cJSON *wp = cJSON_CreateObject();
    const char *keep[] = {"position", "context"};
    for (size_t k = 0; wp != NULL && k < 2; k++) {
        const cJSON *v = get_param(params, keep[k]);
        if (v != NULL)
            cJSON_AddItemToObject(wp, keep[k], cJSON_Duplicate(v, true));
    }
    ask(call, s, method, wp);
}

void srv_lsp_hover(srv_call *call, const cJSON *params) { lsp_forward(call, params, "lsp/hover"); }

void srv_lsp_document_symbol(srv_call *call, const cJSON *params)
{
    lsp_forward(call, params, "lsp/symbols");
}

void srv_lsp_definition(srv_call *call, const cJSON *params)
{
    lsp_forward(call, params, "lsp/definition");
}

void srv_lsp_references(srv_call *call, const cJSON *params)
{
    lsp_forward(call, params, "lsp/references");
}

void srv_lsp_code_lens(srv_call *call, const cJSON *params)
{
    lsp_forward(call, params, "lsp/codeLens");
}

/* workspace/executeCommand {command: "mdae.showMode", arguments: [uri,
 * {g: true, ...}]}: the per-mode projection of session/mode; {command:
 * "mdae.rimis", arguments: [uri]}: srv_lsp_rimis.c. */
void srv_lsp_execute_command(srv_call *call, const cJSON *params)
{
    const cJSON *cmd = get_param(params, "command");
    const cJSON *args = get_param(params, "arguments");
    const cJSON *uri = cJSON_GetArrayItem(args, 0), *mode = cJSON_GetArrayItem(args, 1);
    if (cJSON_IsString(cmd) && strcmp(cmd->valuestring, SRV_LSP_RIMIS) == 0) {
        srv_lsp_rimis(call, args);
        return;
    }
    if (!cJSON_IsString(cmd) || strcmp(cmd->valuestring, LSP_SHOW_MODE) != 0) {
        srv_call_error(call, RPC_INVALID_PARAMS,
                       "unknown command (mdae.showMode and " SRV_LSP_RIMIS " are the ones)", NULL);
        return;
    }
    if (!cJSON_IsString(uri) || !cJSON_IsObject(mode)) {
        srv_call_error(call, RPC_INVALID_PARAMS,
                       "mdae.showMode takes [uri, {\"g1\": true, ...}]", NULL);
        return;
    }
    cJSON *doc = cJSON_CreateObject(), *p = cJSON_CreateObject();
    if (doc != NULL && p != NULL) {
        cJSON_AddStringToObject(doc, "uri", uri->valuestring);
        cJSON_AddItemToObject(p, "textDocument", doc);
        doc = NULL;
    }
    srv_session *s = p ? lsp_document(call->conn, p) : NULL;
    cJSON_Delete(doc);
    cJSON_Delete(p);
    if (s == NULL) {
        srv_call_mdae_error(call, MDAE_E_STATE, "no such document", NULL);
        return;
    }
    cJSON *wp = cJSON_CreateObject();
    if (wp != NULL)
        cJSON_AddItemToObject(wp, "mode", cJSON_Duplicate(mode, true));
    ask(call, s, "mode", wp);
}
