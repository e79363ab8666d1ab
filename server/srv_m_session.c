/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_m_session.c -- the session methods: session/open, edit,
 * analyze, approx, rimis, close, mode, and the generic forwarding of SRV_FORWARDED_METHODS
 * (session/dot, session/svg, the debug methods) to the session's worker.
 *
 * Everything that needs the model's meaning becomes a job for the session's
 * worker (srv_worker.c): the handler validates the params, makes the job
 * with the worker method and its params, and answers the call in the job's
 * done callback. session/close is answered here; session/mode is answered
 * from the session's cache when it can (srv_session.c).
 */
#include "srv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A job made for a session method, and what its answer needs. */
typedef struct session_job {
    srv_job job;     /* first: the pool hands it back */
    srv_call *call;  /* owned until answered; NULL for a reload */
    srv_session *s;  /* valid while the job's queue is open (reply->queue) */
    long version;    /* the session version it was built for */
    char *cache_key; /* session/mode: owned */
    bool want_reuse; /* session/analyze: the client asked for "reuse" */
    bool persisted;  /* open, edit: the session's row holds this version */
} session_job;

/* ---- Parameters (shared by the handlers of this file) -------------------------- */

/* Answer -32602 with a message saying what is wrong. */
static void bad_params(srv_call *call, const char *fmt, const char *name)
{
    char msg[200];
    snprintf(msg, sizeof msg, fmt, name);
    srv_call_error(call, RPC_INVALID_PARAMS, msg, NULL);
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

/* The owner key of the request: params.owner, else an HTTP exchange's
 * X-Mdae-Owner header, else NULL (*key). False after answering -32602 when
 * one is given that cannot be a key: a malformed key is the caller's bug,
 * answered the same whatever the session, so it tells nothing of one. */
static bool owner_param(srv_call *call, const cJSON *params, const char **key)
{
    const cJSON *o = get_param(params, "owner");
    const char *k = o != NULL && !cJSON_IsNull(o) ? cJSON_GetStringValue(o)
                                                   : call->conn->http_owner;
    if ((o != NULL && !cJSON_IsNull(o) && !cJSON_IsString(o)) ||
        (k != NULL && !srv_owner_key_ok(k))) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "\"owner\" (or X-Mdae-Owner) must be a secret of %d to %d letters, digits, '_'"
                 " or '-' (at least 128 random bits, e.g. Python's secrets.token_urlsafe(16)):"
                 " a shorter key could be guessed",
                 SRV_OWNER_KEY_MIN, SRV_OWNER_KEY_MAX);
        srv_call_error(call, RPC_INVALID_PARAMS, msg, NULL);
        return false;
    }
    *key = k;
    return true;
}

/* ---- issue 37 item 4 (h-pg): a cluster's copies stay fresh ---- */
/* In a cluster (a store that other instances write: srv_store_shared),
 * the copy of a persistent session this instance holds may be stale:
 * another instance may have edited or closed it since. So before every
 * request on it, one indexed read of its stored version (srv_store_pg.c,
 * about 0.02 ms on the same machine: docs/cluster.md); when the store has
 * moved on, the text is read again and the worker, if one runs, reloads
 * it before the request's own job (the queue runs jobs in order). Also
 * when the text was dropped after a conflict while a worker kept the old
 * model. MDAE_OK (*ps may then be NULL: the row is gone, the copy
 * forgotten) or the store's error (the request must not be answered from
 * a copy the store cannot vouch for). */
static int session_fresh(srv_session **ps)
{
    srv_session *s = *ps;
    if (!srv_store_shared() || !srv_store_keeps(s))
        return MDAE_OK;
    if (s->text != NULL) {
        long stored;
        int rc = srv_store_version(s, &stored);
        if (rc == MDAE_E_STATE) { /* closed by another instance */
            MDAE_LOG(SRV_LOG_INFO, "session %s: no longer in the store, forgotten", s->id);
            srv_session_forget(s);
            *ps = NULL;
            return MDAE_OK;
        }
        if (rc < 0)
            return rc;
        if (stored == s->version)
            return MDAE_OK;
        MDAE_LOG(SRV_LOG_INFO, "session %s: version %ld here, %ld in the store: reloading",
                 s->id, s->version, stored);
        mdae_free(s->text);
        s->text = NULL;
        s->len = 0;
    }
    if (s->queue.worker == NULL && !srv_queue_busy(&s->queue))
        return MDAE_OK; /* session_param loads the text; a new worker loads it */
    int rc = srv_session_load_text(s);
    if (rc == MDAE_E_STATE) {
        srv_session_forget(s);
        *ps = NULL;
        return MDAE_OK;
    }
    if (rc < 0)
        return rc;
    srv_job *reload = srv_m_session_reload(&s->queue);
    if (reload == NULL)
        return MDAE_E_NOMEM;
    srv_queue_submit(&s->queue, reload);
    return MDAE_OK;
}

/* The session named by params.session that this request may use
 * (srv_session_lookup: its connection, its owner key), or NULL after
 * answering the call. A session the request may not use gets the very
 * reply of an id that nobody holds (issue 37 item 1). */
static srv_session *session_param(srv_call *call, const cJSON *params)
{
    if (!params_object(call, params))
        return NULL;
    const cJSON *sid = get_param(params, "session");
    const cJSON *uri = get_param(params, "uri");
    if (!cJSON_IsString(sid) && (call->m->flags & SRV_M_DEBUG) && cJSON_IsString(uri)) {
        /* Tests only (debug_methods): a document of this connection, by
         * its URI, since its session's id is told to nobody. */
        srv_session *d = srv_session_find_uri(call->conn, uri->valuestring);
        if (d == NULL)
            srv_call_mdae_error(call, MDAE_E_STATE, "no such document", NULL);
        return d;
    }
    if (!cJSON_IsString(sid)) {
        bad_params(call, "%s", "\"session\" (a string) is required");
        return NULL;
    }
    const char *key;
    if (!owner_param(call, params, &key))
        return NULL;
    srv_session *s = srv_session_lookup(call->conn, sid->valuestring, key);
    if (s != NULL) { /* a cluster's copy must be fresh (issue 37 item 4) */
        int frc = session_fresh(&s);
        if (frc < 0) {
            srv_call_mdae_error(call, frc, "the session store cannot be read", NULL);
            return NULL;
        }
    }
    /* ---- issue 37 items 3-4: load on miss, lazy text ---- */
    int rc = MDAE_OK;
    if (s == NULL) /* another instance may have written it; same owner rules */
        rc = srv_session_load_stored(sid->valuestring, key, srv_m_session_reload, &s);
    if (s != NULL && (rc = srv_session_load_text(s)) == MDAE_E_STATE) {
        srv_session_forget(s); /* its row is gone (closed elsewhere) or refused */
        s = NULL;
    }
    if (s != NULL && rc < 0) {
        srv_call_mdae_error(call, rc, "the session's stored text cannot be read", NULL);
        return NULL;
    }
    if (s == NULL && rc != MDAE_E_STATE && rc < 0) {
        srv_call_mdae_error(call, rc, "the session cannot be loaded from the store", NULL);
        return NULL;
    }
    /* ---- end of loading ---- */
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

/* Answer a change the store refused (issue 37 item 3): MDAE_E_NOTSAVED or
 * MDAE_E_CONFLICT, saying that it was not saved and why; {session} in
 * error.data. On a conflict the copy in memory is stale (another instance
 * wrote the row): it is dropped, and the next request loads the stored one. */
static void not_saved(srv_call *call, srv_session *s, int rc, const char *what, const char *why)
{
    char msg[700];
    snprintf(msg, sizeof msg, "%s: the change was not saved: %s", what, why);
    cJSON *d = cJSON_CreateObject();
    if (d != NULL)
        cJSON_AddStringToObject(d, "session", s->id);
    if (rc == MDAE_E_CONFLICT)
        srv_session_forget(s); /* its jobs fail as for a closed session */
    srv_call_mdae_error(call, rc, msg, d);
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

/* ---- Jobs ------------------------------------------------------------------------ */

static void job_free(session_job *sj)
{
    mdae_free(sj->cache_key);
    mdae_free(sj);
}

/* Make a job for call on s (params taken); NULL after answering the call
 * when out of memory. */
static session_job *job_make(srv_session *s, srv_call *call, const char *method, cJSON *params,
                             srv_job_done_cb done, unsigned flags)
{
    session_job *sj = mdae_calloc(1, sizeof *sj);
    if (sj == NULL || srv_job_init(&sj->job, method, params, done) < 0) {
        if (sj == NULL)
            cJSON_Delete(params);
        mdae_free(sj);
        if (call)
            srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
        return NULL;
    }
    sj->job.flags = flags;
    if (strcmp(method, "load") == 0)
        sj->job.loads = s->version; /* its params are srv_session_load_params(s)'s */
    sj->call = call;
    sj->s = s;
    sj->version = s->version;
    return sj;
}

static void job_submit(session_job *sj)
{
    if (sj->call != NULL)
        sj->call->job = &sj->job;
    srv_queue_submit(&sj->s->queue, &sj->job);
}

/* Answer the call with what failed: the pool's error (r->rc < 0) or the
 * worker's error object, rebuilt for the client's id. True if it did. */
static bool answer_error(srv_call *call, const srv_reply *r)
{
    if (r->rc < 0) {
        srv_call_mdae_error(call, r->rc, r->message,
                            r->details ? cJSON_Duplicate(r->details, true) : NULL);
        return true;
    }
    if (r->error == NULL)
        return false;
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(r->error, "code");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(r->error, "message");
    cJSON *data = cJSON_DetachItemFromObjectCaseSensitive(r->error, "data");
    srv_call_error(call, cJSON_IsNumber(code) ? code->valueint : RPC_INTERNAL_ERROR,
                   cJSON_IsString(msg) ? msg->valuestring : "worker error", data);
    return true;
}

/* The worker's result as a tree, now ours (the pool frees what we do not
 * take); false after answering the call when out of memory. */
static bool take_result(srv_call *call, srv_reply *r, cJSON **out)
{
    if (srv_reply_take_result(r, out) == MDAE_OK)
        return true;
    srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
    return false;
}

/* Answer the call with the worker's result as it is: its bytes when the
 * pool relayed them (protocol/rpc_relay.h), else the tree. key, when not
 * NULL and the result is an object, adds "key":value (borrowed). */
static void answer_result(srv_call *call, srv_reply *r, const char *key, const cJSON *value)
{
    if (r->result_text != NULL) {
        srv_call_result_text(call, r->result_text, r->result_len, key, value);
        return;
    }
    cJSON *res = r->result;
    r->result = NULL;
    if (key != NULL && cJSON_IsObject(res))
        cJSON_AddItemToObject(res, key, value ? cJSON_Duplicate(value, true) : cJSON_CreateNull());
    srv_call_result(call, res);
}

/* The job that reloads the session's text into a fresh worker (the queue's
 * reload): a model error shows up in the request that follows. */
static void reload_done(srv_job *job, srv_reply *r) { job_free((session_job *)job); }

srv_job *srv_m_session_reload(srv_queue *q)
{
    srv_session *s = srv_session_of(q);
    session_job *sj = job_make(s, NULL, "load", srv_session_load_params(s), reload_done, 0);
    return sj ? &sj->job : NULL;
}

/* ---- session/open, session/edit -------------------------------------------------- */

/* {session, version, persisted, summary} of session/open, or {version,
 * persisted, summary} of session/edit (session NULL); the summary from the
 * worker's result. */
static cJSON *version_reply(const char *session, long version, bool persisted, cJSON *result)
{
    cJSON *r = cJSON_CreateObject();
    if (r != NULL) {
        if (session != NULL)
            cJSON_AddStringToObject(r, "session", session);
        cJSON_AddNumberToObject(r, "version", (double)version);
        /* issue 37 item 3: this version is in the store (committed) */
        cJSON_AddBoolToObject(r, "persisted", persisted);
        cJSON *sum = result ? cJSON_DetachItemFromObjectCaseSensitive(result, "summary") : NULL;
        cJSON_AddItemToObject(r, "summary", sum ? sum : cJSON_CreateNull());
    }
    return r;
}

static void open_done(srv_job *job, srv_reply *r)
{
    session_job *sj = (session_job *)job;
    if (r->rc == MDAE_OK && (r->error != NULL || r->queue == NULL)) {
        if (r->error != NULL)
            answer_error(sj->call, r);
        else
            srv_call_mdae_error(sj->call, MDAE_E_STATE, "session closed", NULL);
        if (r->queue != NULL && srv_session_close(sj->s, NULL, 0) < 0)
            MDAE_LOG(SRV_LOG_ERROR, "session %s: did not load, and its row cannot be deleted: "
                     "it stays", sj->s->id); /* a model that does not load opens nothing */
    } else if (!answer_error(sj->call, r)) {
        cJSON *res = NULL;
        if (take_result(sj->call, r, &res))
            srv_call_result(sj->call,
                            version_reply(sj->s->id, sj->version, sj->persisted, res));
        cJSON_Delete(res);
    }
    job_free(sj);
}

/* error.data of a server limit reached at open, shaped as the engine's
 * limits are reported (issue 36, docs/limits.md): {"limit": {setting,
 * value, configKey, flag, unit, where}}; NULL on OOM (the error goes out
 * without data). */
static cJSON *limit_data(const char *setting, double value, const char *unit)
{
    cJSON *d = cJSON_CreateObject();
    cJSON *l = d != NULL ? cJSON_AddObjectToObject(d, "limit") : NULL;
    if (l == NULL || !cJSON_AddStringToObject(l, "setting", setting) ||
        !cJSON_AddNumberToObject(l, "value", value) ||
        !cJSON_AddStringToObject(l, "configKey", setting) || !cJSON_AddNullToObject(l, "flag") ||
        !cJSON_AddStringToObject(l, "unit", unit) || !cJSON_AddNullToObject(l, "where")) {
        cJSON_Delete(d);
        return NULL;
    }
    return d;
}

/* Answer MDAE_E_LIMIT for the setting reached; false, for the caller to
 * return. */
static bool over_limit(srv_call *call, const char *message, const char *setting, double value,
                       const char *unit)
{
    srv_call_mdae_error(call, MDAE_E_LIMIT, message, limit_data(setting, value, unit));
    return false;
}

/* The connection's open rate: a token bucket of session_open_burst opens,
 * refilled at session_opens_per_second (issue 37 item 5). True when an
 * open may go ahead (and is counted). */
static bool open_rate_ok(srv_call *call)
{
    srv_conn *c = call->conn;
    double rate = (double)srv.cfg.session_opens_per_second;
    if (rate <= 0)
        return true;
    double burst = srv.cfg.session_open_burst > 0 ? (double)srv.cfg.session_open_burst : 1;
    uint64_t now = uv_now(srv.loop);
    double debt = c->open_debt - (double)(now - c->open_at) * rate / 1000.0;
    c->open_debt = debt > 0 ? debt : 0;
    c->open_at = now;
    if (c->open_debt + 1 <= burst) {
        c->open_debt += 1;
        return true;
    }
    char msg[200];
    snprintf(msg, sizeof msg,
             "too many session opens on this connection (limits.session_opens_per_second = %zu,"
             " burst %zu): retry in %.0f ms",
             srv.cfg.session_opens_per_second, srv.cfg.session_open_burst,
             (c->open_debt + 1 - burst) * 1000.0 / rate + 1);
    return over_limit(call, msg, "limits.session_opens_per_second", rate,
                      "session opens per second per connection");
}

/* Room for one more session in the new session's class (issue 37 item 5):
 * its connection's own, its owner key's, or the anonymous persistent ones
 * (capped below max_sessions, so that they can never take every slot),
 * after the connection's open rate. True if so; else answered. */
static bool quota_ok(srv_call *call, const srv_conn *owner, const char *key)
{
    if (!open_rate_ok(call))
        return false;
    size_t have = srv_session_count_class(owner, key);
    size_t per_owner = srv.cfg.sessions_per_owner;
    if ((owner != NULL || key != NULL) && per_owner > 0 && have >= per_owner) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "too many sessions of %s (limits.sessions_per_owner = %zu): close one first",
                 owner != NULL ? "this connection" : "this owner key", per_owner);
        return over_limit(call, msg, "limits.sessions_per_owner", (double)per_owner,
                          owner != NULL ? "sessions per connection" : "sessions per owner key");
    }
    size_t anonymous = srv.cfg.anonymous_sessions > 0 ? srv.cfg.anonymous_sessions
                                                      : srv.cfg.max_sessions / 2;
    if (owner == NULL && key == NULL && have >= anonymous) {
        char msg[240];
        snprintf(msg, sizeof msg,
                 "too many persistent sessions without an owner key (limits.anonymous_sessions"
                 " = %zu): close one, or open with \"owner\" (X-Mdae-Owner)",
                 anonymous);
        return over_limit(call, msg, "limits.anonymous_sessions", (double)anonymous,
                          "persistent sessions without an owner key");
    }
    return true;
}

void srv_m_open(srv_call *call, const cJSON *params)
{
    if (!params_object(call, params))
        return;
    const cJSON *text = get_param(params, "text");
    const cJSON *format = get_param(params, "format");
    const cJSON *defines = get_param(params, "defines");
    const cJSON *persist = get_param(params, "persist");
    const cJSON *recover = get_param(params, "recover");
    const cJSON *want = get_param(params, "session");
    if (!cJSON_IsString(text)) {
        bad_params(call, "%s", "\"text\" (a string) is required");
        return;
    }
    bool modelica = cJSON_IsString(format) && strcmp(format->valuestring, "modelica") == 0;
    if (format != NULL && !modelica &&
        !(cJSON_IsString(format) && strcmp(format->valuestring, "mel") == 0)) {
        bad_params(call, "%s", "\"format\" must be \"mel\" or \"modelica\"");
        return;
    }
    if ((persist != NULL && !cJSON_IsBool(persist)) || (recover != NULL && !cJSON_IsBool(recover))) {
        bad_params(call, "%s", "\"persist\" and \"recover\" must be booleans");
        return;
    }
    if (!defines_ok(call, defines))
        return;
    const char *key;
    if (!owner_param(call, params, &key))
        return;
    /* HTTP sessions outlive their exchange (each POST may be a new
     * connection), so they are persistent and expire when idle. */
    bool keep = cJSON_IsTrue(persist) || rpc_framer_framing(&call->conn->fr) == RPC_FRAMING_HTTP;
    srv_conn *owner = keep ? NULL : call->conn;
    if (want != NULL && !cJSON_IsNull(want)) {
        if (!cJSON_IsString(want) || !srv_session_id_ok(want->valuestring, SRV_SESSION_ID_MAX)) {
            bad_params(call, "%s",
                       "\"session\" must be 1 to 64 letters, digits, '.', '_' or '-'");
            return;
        }
        if (keep && key == NULL) {
            /* Reached by anyone who names it, a chosen id would be a
             * password everyone can guess ("test", "my-model"). */
            srv_call_error(call, RPC_INVALID_PARAMS,
                           "a persistent session (persist, or over HTTP) with a chosen id needs"
                           " an owner key: \"owner\" (or X-Mdae-Owner), a secret of at least"
                           " 22 letters, digits, '_' or '-', sent again with every call naming"
                           " it; or leave out \"session\" and use the id the server makes",
                           NULL);
            return;
        }
        if (srv_session_id_taken(owner, want->valuestring, key)) {
            bad_params(call, "session id '%s' is taken", want->valuestring);
            return;
        }
    } else {
        want = NULL;
    }
    if (!quota_ok(call, owner, key))
        return;
    srv_session *s;
    int rc = srv_session_new(owner, want ? want->valuestring : NULL, key, text->valuestring,
                             strlen(text->valuestring), cJSON_IsNull(defines) ? NULL : defines,
                             srv_m_session_reload, &s);
    if (rc < 0) {
        cJSON *d = NULL;
        if (rc == MDAE_E_LIMIT) {
            d = limit_data("limits.max_sessions", (double)srv.cfg.max_sessions,
                           "sessions in all");
            if (d != NULL) /* the data's older spelling, kept for clients */
                cJSON_AddNumberToObject(d, "max_sessions", (double)srv.cfg.max_sessions);
        }
        srv_call_mdae_error(call, rc, rc == MDAE_E_LIMIT ? "too many sessions" : NULL, d);
        return;
    }
    s->modelica = modelica;
    s->recover = cJSON_IsTrue(recover);
    /* Durable before the reply (issue 37 item 3): a session the store
     * refuses is not opened at all. A conflict on a new row is an id that
     * the store has already (another instance's, or not loaded yet). */
    char err[512];
    rc = srv_store_put(s, 0, err, sizeof err);
    if (rc == MDAE_E_CONFLICT && want != NULL) {
        srv_session_forget(s);
        bad_params(call, "session id '%s' is taken", want->valuestring);
        return;
    }
    if (rc < 0) {
        char msg[700];
        snprintf(msg, sizeof msg, "session not opened: the change was not saved: %s", err);
        srv_session_forget(s);
        srv_call_mdae_error(call, rc, msg, NULL);
        return;
    }
    session_job *sj =
        job_make(s, call, "load", srv_session_load_params(s), open_done, SRV_JOB_LOADS);
    if (sj != NULL) {
        sj->persisted = srv_store_keeps(s);
        job_submit(sj);
    }
}

/* ---- Persistent sessions at startup (srv_store.c) --------------------------------------- */

/* Lazy loading (issue 37 item 4): a stored session comes back with its
 * metadata only; its text is read on first use (srv_session_load_text). */
static int restore_one(const srv_store_row *row, void *arg)
{
    size_t *n = arg;
    if (row->idle_ms > srv.cfg.session_idle_ms) {
        MDAE_LOG(SRV_LOG_INFO, "session %s: idle for %llu ms in the store, expired", row->id,
                 (unsigned long long)row->idle_ms);
        srv_store_delete_row(row->id, row->owner_key);
        return MDAE_OK;
    }
    if (srv_store_shared())
        return MDAE_OK; /* a cluster's: loaded on first use (issue 37 item 4, h-pg) */
    srv_session *s;
    int rc = srv_session_restore(row, srv_m_session_reload, &s);
    if (rc == MDAE_E_LIMIT)
        MDAE_LOG(SRV_LOG_ERROR, "stored session %s: limits.max_sessions reached: left in the "
                 "store", row->id);
    if (rc == MDAE_OK)
        (*n)++;
    return rc == MDAE_E_NOMEM ? rc : MDAE_OK; /* the others are logged and skipped */
}

int srv_m_session_restore(void)
{
    if (srv.cfg.state_dir == NULL && srv.cfg.store_url == NULL)
        return MDAE_OK;
    int rc = srv_store_open(srv.cfg.state_dir);
    if (rc < 0)
        return rc;
    size_t n = 0;
    rc = srv_store_each(restore_one, &n);
    if (n > 0)
        MDAE_LOG(SRV_LOG_INFO, "%zu persistent session%s restored", n, n == 1 ? "" : "s");
    return rc;
}

/* The worker refused the edited text (a syntax or model error): the edit
 * stays, as an editor's intermediate text must (its next range edit builds
 * on it), and the error says so (issue 37: a failed edit must not change
 * the session without saying so): {"applied": true, "version": the edit's,
 * "persisted"} in error.data. */
static void edit_says_applied(session_job *sj, srv_reply *r)
{
    if (r->rc < 0 || r->error == NULL || r->queue == NULL)
        return;
    cJSON *data = cJSON_GetObjectItemCaseSensitive(r->error, "data");
    if (data == NULL)
        data = cJSON_AddObjectToObject(r->error, "data");
    if (cJSON_IsObject(data)) {
        cJSON_AddTrueToObject(data, "applied");
        cJSON_AddNumberToObject(data, "version", (double)sj->version);
        cJSON_AddBoolToObject(data, "persisted", sj->persisted);
    }
}

static void edit_done(srv_job *job, srv_reply *r)
{
    session_job *sj = (session_job *)job;
    cJSON *res;
    edit_says_applied(sj, r);
    if (!answer_error(sj->call, r) && take_result(sj->call, r, &res)) {
        srv_call_result(sj->call, version_reply(NULL, sj->version, sj->persisted, res));
        cJSON_Delete(res);
    }
    job_free(sj);
}

/* An edit set_text refused: the session is as it was (issue 37 item 3). */
static void edit_refused(srv_call *call, srv_session *s, int rc, const char *why)
{
    if (rc == MDAE_E_NOTSAVED || rc == MDAE_E_CONFLICT)
        not_saved(call, s, rc, "edit not applied", why ? why : mdae_strerror(rc));
    else
        srv_call_mdae_error(call, rc, why, NULL);
}

void srv_m_edit(srv_call *call, const cJSON *params)
{
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
        char err[512];
        int rc = srv_session_set_text(s, t, strlen(t), err, sizeof err);
        if (rc < 0) {
            edit_refused(call, s, rc, err);
            return;
        }
    } else {
        const char *why = NULL;
        char err[512];
        int rc = srv_session_apply_edits(s, edits, &why, err, sizeof err);
        if (rc == MDAE_E_INVAL) {
            bad_params(call, "%s", why);
            return;
        }
        if (rc < 0) {
            edit_refused(call, s, rc, why);
            return;
        }
    }
    session_job *sj =
        job_make(s, call, "load", srv_session_load_params(s), edit_done, SRV_JOB_LOADS);
    if (sj != NULL) {
        sj->persisted = srv_store_keeps(s);
        job_submit(sj);
    }
}

/* ---- session/analyze -------------------------------------------------------------------- */

static uint64_t stat_num(const cJSON *o, const char *name)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(n) ? (uint64_t)n->valuedouble : 0;
}

/* The envelope's stats of an analysis (issue 6): summed for server/status
 * when this request ran an analysis. */
static void count_reuse(const cJSON *stats)
{
    const cJSON *ru = cJSON_GetObjectItemCaseSensitive(stats, "reuse");
    if (!cJSON_IsObject(ru) || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(stats, "analysed")))
        return;
    srv.reuse_components += stat_num(ru, "components");
    srv.reuse_reused += stat_num(ru, "reused");
    srv.reuse_recomputed += stat_num(ru, "recomputed");
    srv.reuse_seeded += stat_num(ru, "seeded");
    srv.reuse_searched += stat_num(ru, "searched");
    srv.reuse_implicit += stat_num(ru, "implicit");
    srv.reuse_enumerated += stat_num(ru, "enumerated");
    srv.reuse_fell_back += stat_num(ru, "fellBack");
}

static void analyze_done(srv_job *job, srv_reply *r)
{
    session_job *sj = (session_job *)job;
    if (!answer_error(sj->call, r)) {
        count_reuse(r->stats);
        const cJSON *ru = cJSON_GetObjectItemCaseSensitive(r->stats, "reuse");
        answer_result(sj->call, r, sj->want_reuse && cJSON_IsObject(ru) ? "reuse" : NULL, ru);
    }
    job_free(sj);
}

/* analysis/progress, /diagnostic, /block, /edge, /modechange while
 * streaming: the client's request id and the session are added. */
static void analyze_notify(srv_job *job, const char *method, cJSON *params)
{
    session_job *sj = (session_job *)job;
    cJSON *cid = cJSON_Duplicate(sj->call->id, true);
    if (cid != NULL)
        cJSON_AddItemToObject(params, "id", cid);
    cJSON_AddStringToObject(params, "session", sj->s->id);
    srv_call_notify(sj->call, method, params);
}

void srv_m_analyze(srv_call *call, const cJSON *params)
{
    srv_session *s = session_param(call, params);
    if (s == NULL)
        return;
    /* stream: true, every part as a notification; "progress", the progress
     * and the diagnostics only (the page: the blocks and edges are in the
     * result, and sending them twice doubled a large model's answer). */
    const cJSON *stream = get_param(params, "stream");
    bool progress_only = cJSON_IsString(stream) && strcmp(stream->valuestring, "progress") == 0;
    if (stream != NULL && !cJSON_IsBool(stream) && !progress_only) {
        bad_params(call, "%s", "\"stream\" must be a boolean or \"progress\"");
        return;
    }
    bool streaming = cJSON_IsTrue(stream) || progress_only;
    /* reuse: true adds {"reuse":{components, reused, recomputed, seeded,
     * searched}} (issue 6) to the result; off by default so the result
     * stays `mdae analyze --json`. */
    const cJSON *reuse = get_param(params, "reuse");
    if (reuse != NULL && !cJSON_IsBool(reuse)) {
        bad_params(call, "%s", "\"reuse\" must be a boolean");
        return;
    }
    /* since: the difference from that version's result; stableIds: the full
     * result with stable block ids (protocol/rpc_diff.h). */
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
    /* modechanges: every mode change too, by enumeration (issue 13 item 7):
     * analysis/modechange notifications and a "modechanges" summary. */
    const cJSON *mc = get_param(params, "modechanges");
    if (mc != NULL && !cJSON_IsBool(mc)) {
        bad_params(call, "%s", "\"modechanges\" must be a boolean");
        return;
    }
    /* families: the block families in place of the blocks and edges
     * (engine/cdg_family.h, docs/block_families.md); a whole result only. */
    const cJSON *families = get_param(params, "families");
    if (families != NULL && !cJSON_IsBool(families)) {
        bad_params(call, "%s", "\"families\" must be a boolean");
        return;
    }
    if (cJSON_IsTrue(families) && (streaming || since != NULL ||
                                    cJSON_IsTrue(stable) || cJSON_IsTrue(mc))) {
        bad_params(call, "%s",
                   "\"families\" goes without \"stream\", \"since\", \"stableIds\" and "
                   "\"modechanges\"");
        return;
    }
    cJSON *wp = cJSON_CreateObject();
    if (wp == NULL || !cJSON_AddBoolToObject(wp, "stream", streaming) ||
        (progress_only && !cJSON_AddFalseToObject(wp, "streamItems")) ||
        (method != NULL && !cJSON_AddStringToObject(wp, "method", method->valuestring)) ||
        (cJSON_IsTrue(mc) && !cJSON_AddTrueToObject(wp, "modechanges")) ||
        (cJSON_IsTrue(reuse) && !cJSON_AddTrueToObject(wp, "parts")) ||
        !cJSON_AddBoolToObject(wp, "stableIds", cJSON_IsTrue(stable)) ||
        !cJSON_AddNumberToObject(wp, "version", (double)s->version) ||
        (since != NULL && !cJSON_AddNumberToObject(wp, "since", since->valuedouble))) {
        cJSON_Delete(wp);
        srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
        return;
    }
    /* the worker's "families" method: analyze's result with the families */
    session_job *sj = job_make(s, call, cJSON_IsTrue(families) ? "families" : "analyze", wp,
                               analyze_done, SRV_JOB_ANALYSES);
    if (sj == NULL)
        return;
    if (streaming)
        sj->job.notify = analyze_notify;
    sj->want_reuse = cJSON_IsTrue(reuse);
    job_submit(sj);
}

/* ---- session/approx (issue 38 item 6) ---------------------------------------------------- */

/* The worker's result with "version": the version it was computed for (the
 * job's, so that a client can tell a stale answer from the current one).
 * session/rimis answers the same way. */
static void versioned_done(srv_job *job, srv_reply *r)
{
    session_job *sj = (session_job *)job;
    if (!answer_error(sj->call, r)) {
        cJSON *v = cJSON_CreateNumber((double)sj->version);
        if (v == NULL)
            srv_call_mdae_error(sj->call, MDAE_E_NOMEM, NULL, NULL);
        else
            answer_result(sj->call, r, "version", v);
        cJSON_Delete(v);
    }
    job_free(sj);
}

/* session/approx {session}: what a single-mode tool makes of the model
 * (engine/ap.h), next to the exact analysis the session's worker keeps
 * (and runs first if needed: the job needs the analysis, so a text whose
 * analysis killed a worker at a limit is answered with that limit). The
 * worker builds it once per version. */
void srv_m_approx(srv_call *call, const cJSON *params)
{
    srv_session *s = session_param(call, params);
    if (s == NULL)
        return;
    for (const cJSON *p = params->child; p != NULL; p = p->next)
        if (strcmp(p->string, "session") != 0 && strcmp(p->string, "owner") != 0) {
            bad_params(call, "unknown parameter \"%s\" (session/approx takes {session})",
                       p->string);
            return;
        }
    cJSON *wp = cJSON_CreateObject();
    if (wp == NULL) {
        srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
        return;
    }
    session_job *sj = job_make(s, call, "approx", wp, versioned_done, SRV_JOB_ANALYSES);
    if (sj != NULL)
        job_submit(sj);
}

/* ---- session/rimis (issue 39) ----------------------------------------------------------- */

/* session/rimis {session, guard?}: the session's model as one flat
 * Modelica model single-mode tools simulate correctly (engine/rimis.h),
 * built by the session's worker from the exact analysis it keeps (and runs
 * first if needed), once per version and guard setting. guard (default
 * true): block equations made trivial outside their modes. */
void srv_m_rimis(srv_call *call, const cJSON *params)
{
    srv_session *s = session_param(call, params);
    if (s == NULL)
        return;
    const cJSON *guard = NULL;
    for (const cJSON *p = params->child; p != NULL; p = p->next)
        if (strcmp(p->string, "guard") == 0) {
            guard = p;
        } else if (strcmp(p->string, "session") != 0 && strcmp(p->string, "owner") != 0) {
            bad_params(call, "unknown parameter \"%s\" (session/rimis takes {session, guard?})",
                       p->string);
            return;
        }
    if (guard != NULL && !cJSON_IsBool(guard)) {
        bad_params(call, "%s", "\"guard\" must be a boolean");
        return;
    }
    cJSON *wp = cJSON_CreateObject();
    if (wp == NULL || !cJSON_AddBoolToObject(wp, "guard", guard == NULL || cJSON_IsTrue(guard))) {
        cJSON_Delete(wp);
        srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
        return;
    }
    session_job *sj = job_make(s, call, "rimis", wp, versioned_done, SRV_JOB_ANALYSES);
    if (sj != NULL)
        job_submit(sj);
}

/* ---- session/close ---------------------------------------------------------------------- */

void srv_m_close(srv_call *call, const cJSON *params)
{
    srv_session *s = session_param(call, params);
    if (s == NULL)
        return;
    char err[512];
    int rc = srv_session_close(s, err, sizeof err);
    if (rc < 0) { /* still stored: still open (issue 37 item 3) */
        not_saved(call, s, rc, "session not closed", err);
        return;
    }
    srv_call_result(call, cJSON_CreateTrue());
}

/* ---- session/mode ----------------------------------------------------------------------- */

/* session/mode {session, mode:{"g1":true,...}}: the per-mode projection,
 * from the worker's kept analysis (issue 4), or from the session's cache. */
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

/* Keep a session/mode result for its version: the worker's bytes, or the
 * tree printed. */
static void mode_keep(session_job *sj, const srv_reply *r)
{
    if (r->queue == NULL || sj->cache_key == NULL)
        return;
    if (r->result_text != NULL) {
        srv_session_mode_put(sj->s, sj->cache_key, sj->version, r->result_text, r->result_len);
    } else if (r->result != NULL) {
        char *text = cJSON_PrintUnformatted(r->result);
        if (text != NULL)
            srv_session_mode_put(sj->s, sj->cache_key, sj->version, text, strlen(text));
        cJSON_free(text);
    }
}

static void mode_done(srv_job *job, srv_reply *r)
{
    session_job *sj = (session_job *)job;
    if (!answer_error(sj->call, r)) {
        mode_keep(sj, r);
        answer_result(sj->call, r, NULL, NULL);
    }
    job_free(sj);
}

void srv_m_mode(srv_call *call, const cJSON *params)
{
    srv_session *s = session_param(call, params);
    if (s == NULL)
        return;
    const cJSON *mode = get_param(params, "mode");
    if (!cJSON_IsObject(mode)) {
        bad_params(call, "%s", "\"mode\" must be an object such as {\"g1\":true}");
        return;
    }
    char *key = mode_key(mode);
    size_t len;
    const char *hit = key ? srv_session_mode_get(s, key, &len) : NULL;
    if (hit != NULL) {
        mdae_free(key);
        srv_call_result_text(call, hit, len, NULL, NULL); /* no tree, no reprint */
        return;
    }
    cJSON *wp = cJSON_CreateObject();
    cJSON *m = cJSON_Duplicate(mode, true);
    if (wp != NULL && m != NULL)
        cJSON_AddItemToObject(wp, "mode", m);
    else
        cJSON_Delete(m), cJSON_Delete(wp), wp = NULL;
    session_job *sj = job_make(s, call, "mode", wp, mode_done, SRV_JOB_QUICK | SRV_JOB_ANALYSES);
    if (sj == NULL) {
        mdae_free(key);
        return;
    }
    sj->cache_key = key;
    job_submit(sj);
}

/* ---- Forwarded methods (srv_methods.h) ----------------------------------------------------- */

static void forward_done(srv_job *job, srv_reply *r)
{
    session_job *sj = (session_job *)job;
    if (!answer_error(sj->call, r))
        answer_result(sj->call, r, NULL, NULL);
    job_free(sj);
}

/* {session, ...}: the client's params go to the worker method of the same
 * name, its result comes back as it is. */
void srv_m_forward(srv_call *call, const cJSON *params)
{
    srv_session *s = session_param(call, params);
    if (s == NULL)
        return;
    cJSON *wp = params ? cJSON_Duplicate(params, true) : cJSON_CreateObject();
    cJSON_DeleteItemFromObjectCaseSensitive(wp, "owner"); /* the router's business only */
    session_job *sj = job_make(s, call, call->m->name, wp, forward_done,
                               (call->m->flags & SRV_M_QUICK) ? SRV_JOB_QUICK : 0);
    if (sj != NULL)
        job_submit(sj);
}
