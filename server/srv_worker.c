/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_worker.c -- worker processes, router side: spawn on demand, one
 * job at a time over the worker's stdin/stdout (JSON-RPC, Content-Length
 * framing), time budget, cancellation, idle stop, and death.
 *
 * Why one job at a time: BuDDy is single-threaded, so the worker could not
 * run two anyway, and keeping the queue here lets the router cancel a job
 * that has not started without asking the worker, and time the running one.
 *
 * Death (issue 5 section 1): when a worker exits for any reason other than
 * being stopped while idle, every job it held is answered with an error that
 * names the cause -- the signal, the exit status, its memory cap, its time
 * budget, or a cancel that was not honoured in time. The session keeps its
 * text; its next request starts a fresh worker, which first reloads the text.
 *
 * Handles: proc, to, from and timer are embedded; they are closed together
 * after the process has exited (or when uv_spawn fails, which still needs
 * uv_close on the process handle) and the worker is freed in the last close
 * callback (STYLE.md section 10).
 */
#include "srv.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

enum { TIMER_NONE, TIMER_BUDGET, TIMER_GRACE, TIMER_IDLE };

/* A worker's replies can be much larger than client requests (a report over
 * many equations); still bounded so a broken worker cannot exhaust us. */
#define SRV_WORKER_MAX_FRAME (256u * 1024u * 1024u)

typedef struct worker_write {
    uv_write_t req;
    char *data;
} worker_write;

static void retry_waiting(void);

/* ---- Jobs -------------------------------------------------------------------- */

srv_job *srv_job_new(srv_job_kind kind, const char *method, cJSON *params, srv_call *call)
{
    srv_job *job = mdae_calloc(1, sizeof *job);
    char *m = mdae_strdup(method);
    if (job == NULL || m == NULL || params == NULL) {
        mdae_free(job);
        mdae_free(m);
        cJSON_Delete(params);
        return NULL;
    }
    job->kind = kind;
    job->method = m;
    job->params = params;
    job->call = call;
    job->wid = ++srv.next_wid;
    return job;
}

void srv_job_free(srv_job *job)
{
    if (job == NULL)
        return;
    cJSON_Delete(job->params);
    mdae_free(job->method);
    mdae_free(job->uri);
    mdae_free(job->cache_key);
    if (job->conn)
        srv_conn_unref(job->conn);
    mdae_free(job);
}

/* Answer a job's call (if any) with an error and free the job. */
static void job_fail(srv_job *job, int rc, const char *message, cJSON *details)
{
    if (job->call != NULL) {
        srv_call_mdae_error(job->call, rc, message, details);
        job->call = NULL;
    } else {
        cJSON_Delete(details);
    }
    srv_job_free(job);
}

/* ---- Handles ------------------------------------------------------------------- */

static void on_worker_close(uv_handle_t *h)
{
    srv_worker *w = h->data;
    if (--w->pending_closes > 0)
        return;
    rpc_framer_close(&w->fr);
    mdae_free(w->kill_cause);
    mdae_free(w);
}

static void close_handles(srv_worker *w)
{
    if (w->closing)
        return;
    w->closing = true;
    w->pending_closes = 4;
    uv_close((uv_handle_t *)&w->proc, on_worker_close);
    uv_close((uv_handle_t *)&w->to, on_worker_close);
    uv_close((uv_handle_t *)&w->from, on_worker_close);
    uv_close((uv_handle_t *)&w->timer, on_worker_close);
}

/* Forget the session (it may get a new worker at once) and stop counting
 * this worker against max_workers. */
static void detach(srv_worker *w)
{
    if (w->session != NULL) {
        if (w->session->worker == w)
            w->session->worker = NULL;
        w->session = NULL;
    }
    if (w->spawned) {
        w->spawned = false;
        srv.n_workers--;
    }
}

static void kill_worker(srv_worker *w, int sig, int rc, char *cause /* takes */)
{
    if (w->kill_cause == NULL) {
        w->kill_cause = cause;
        w->kill_rc = rc;
    } else {
        mdae_free(cause);
    }
    /* The session gets a fresh worker on its next request; the jobs left
     * here fail when the exit callback reports the death. */
    detach(w);
    if (!w->exited)
        uv_process_kill(&w->proc, sig);
}

/* ---- Talking to the worker --------------------------------------------------------- */

static void on_worker_write(uv_write_t *req, int status)
{
    worker_write *ww = (worker_write *)req;
    srv_worker *w = req->handle->data;
    mdae_free(ww->data);
    mdae_free(ww);
    if (status < 0 && status != UV_ECANCELED && !w->exited)
        kill_worker(w, SIGKILL, MDAE_E_IO, mdae_asprintf("cannot write to the worker: %s",
                                                         uv_strerror(status)));
}

static int worker_send(srv_worker *w, cJSON *msg /* takes */)
{
    char *body, *out;
    size_t blen, olen;
    if (msg == NULL)
        return MDAE_E_NOMEM;
    int rc = rpc_print(msg, &body, &blen);
    cJSON_Delete(msg);
    if (rc < 0)
        return rc;
    rc = rpc_frame_encode(RPC_FRAMING_LSP, body, blen, &out, &olen);
    mdae_free(body);
    if (rc < 0)
        return rc;
    worker_write *ww = mdae_malloc(sizeof *ww);
    if (ww == NULL) {
        mdae_free(out);
        return MDAE_E_NOMEM;
    }
    ww->data = out;
    uv_buf_t b = uv_buf_init(out, (unsigned)olen);
    rc = uv_write(&ww->req, (uv_stream_t *)&w->to, &b, 1, on_worker_write);
    if (rc < 0) {
        mdae_free(out);
        mdae_free(ww);
        return MDAE_E_IO;
    }
    return MDAE_OK;
}

static void on_timer(uv_timer_t *t);

static void timer_start(srv_worker *w, int mode, uint64_t ms)
{
    uv_timer_stop(&w->timer);
    w->timer_mode = TIMER_NONE;
    if (ms == 0)
        return;
    w->timer_mode = mode;
    uv_timer_start(&w->timer, on_timer, ms, 0);
}

/* Projections of a kept analysis (session/mode, session/dot) take well under
 * a millisecond in the worker, so waiting for each reply before sending the
 * next would leave the worker idle for a pipe round trip per request. Such
 * jobs are sent ahead, up to SRV_WORKER_WINDOW at once, but only behind a
 * head of the same kind: anything that may run long keeps the one-at-a-time
 * rule, so that cancelling a queued request never has to reach the worker. */
#define SRV_WORKER_WINDOW 16

static bool pipelinable(const srv_job *job)
{
    return strcmp(job->method, "mode") == 0 || strcmp(job->method, "dot") == 0;
}

static int send_job(srv_worker *w, srv_job *job)
{
    cJSON *id = cJSON_CreateNumber((double)job->wid);
    cJSON *req = id ? rpc_request_new(id, job->method, job->params) : NULL;
    job->params = NULL; /* taken by rpc_request_new */
    cJSON_Delete(id);
    job->started = true;
    int rc = worker_send(w, req);
    if (rc < 0)
        kill_worker(w, SIGKILL, rc, mdae_asprintf("cannot send to the worker: %s",
                                                  mdae_strerror(rc)));
    return rc;
}

/* Send the head if it is not sent yet, and cheap jobs behind a cheap head. */
static void pump_jobs(srv_worker *w)
{
    srv_job *job = w->head;
    if (job == NULL || w->kill_cause != NULL)
        return;
    if (!job->started && send_job(w, job) < 0)
        return;
    if (!pipelinable(job))
        return;
    int n = 1;
    for (srv_job *j = job->next; j != NULL && n < SRV_WORKER_WINDOW && pipelinable(j);
         j = j->next, n++)
        if (!j->started && send_job(w, j) < 0)
            return;
}

/* The two job lists, a worker's queue (head/tail) and a session's waiting
 * list (wait_head/wait_tail), are singly linked with a tail pointer. */
static void jobs_append(srv_job **head, srv_job **tail, srv_job *job)
{
    job->next = NULL;
    if (*tail)
        (*tail)->next = job;
    else
        *head = job;
    *tail = job;
}

/* Unlink job, whose predecessor is prev (NULL: job is the head). */
static void jobs_unlink(srv_job **head, srv_job **tail, srv_job *prev, srv_job *job)
{
    if (prev)
        prev->next = job->next;
    else
        *head = job->next;
    if (*tail == job)
        *tail = prev;
}

/* Ask the worker to stop a job it has been sent. */
static void send_cancel(srv_worker *w, const srv_job *job)
{
    cJSON *p = cJSON_CreateObject();
    if (p != NULL)
        cJSON_AddNumberToObject(p, "id", (double)job->wid);
    worker_send(w, rpc_notification_new("$/cancelRequest", p));
}

static void enqueue(srv_worker *w, srv_job *job)
{
    jobs_append(&w->head, &w->tail, job);
    pump_jobs(w);
    if (w->head == job) /* the budget of a job starts when the worker can run it */
        timer_start(w, TIMER_BUDGET, srv.cfg.request_timeout_ms);
}

static srv_job *pop_head(srv_worker *w)
{
    srv_job *job = w->head;
    if (job != NULL) {
        w->head = job->next;
        if (w->head == NULL)
            w->tail = NULL;
        job->next = NULL;
    }
    return job;
}

/* ---- Replies ------------------------------------------------------------------------- */

static cJSON *take(cJSON *obj, const char *name)
{
    return obj ? cJSON_DetachItemFromObjectCaseSensitive(obj, name) : NULL;
}

/* The reply of session/open ({session, version, summary}) and of
 * session/edit (session NULL: {version, summary}); the summary is taken
 * from the worker's result (null if it has none). NULL on OOM. */
static cJSON *version_reply(const char *session, long version, cJSON *result)
{
    cJSON *r = cJSON_CreateObject();
    if (r != NULL) {
        if (session != NULL)
            cJSON_AddStringToObject(r, "session", session);
        cJSON_AddNumberToObject(r, "version", (double)version);
        cJSON *sum = take(result, "summary");
        cJSON_AddItemToObject(r, "summary", sum ? sum : cJSON_CreateNull());
    }
    return r;
}

/* Rebuild the worker's error object for the client's id. */
static void forward_error(srv_call *call, cJSON *error)
{
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(error, "code");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(error, "message");
    cJSON *data = take(error, "data");
    srv_call_error(call, cJSON_IsNumber(code) ? code->valueint : RPC_INTERNAL_ERROR,
                   cJSON_IsString(msg) ? msg->valuestring : "worker error", data);
}

static void deliver(srv_worker *w, srv_job *job, cJSON *resp)
{
    cJSON *error = cJSON_GetObjectItemCaseSensitive(resp, "error");
    cJSON *result = cJSON_GetObjectItemCaseSensitive(resp, "result");
    srv_session *s = w->session;
    switch (job->kind) {
    case SRV_JOB_RAW:
        if (error) {
            forward_error(job->call, error);
        } else {
            /* analyze answers always carry "reuse" (with "analysed": this
             * request ran an analysis) for server/status; the client sees
             * it only when it asked. */
            cJSON *ru = cJSON_GetObjectItemCaseSensitive(result, "reuse");
            if (cJSON_IsObject(ru)) {
                if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ru, "analysed"))) {
                    const cJSON *n = cJSON_GetObjectItemCaseSensitive(ru, "components");
                    const cJSON *u = cJSON_GetObjectItemCaseSensitive(ru, "reused");
                    const cJSON *r = cJSON_GetObjectItemCaseSensitive(ru, "recomputed");
                    const cJSON *sd = cJSON_GetObjectItemCaseSensitive(ru, "seeded");
                    const cJSON *sr = cJSON_GetObjectItemCaseSensitive(ru, "searched");
                    srv.reuse_components += cJSON_IsNumber(n) ? (uint64_t)n->valuedouble : 0;
                    srv.reuse_reused += cJSON_IsNumber(u) ? (uint64_t)u->valuedouble : 0;
                    srv.reuse_recomputed += cJSON_IsNumber(r) ? (uint64_t)r->valuedouble : 0;
                    srv.reuse_seeded += cJSON_IsNumber(sd) ? (uint64_t)sd->valuedouble : 0;
                    srv.reuse_searched += cJSON_IsNumber(sr) ? (uint64_t)sr->valuedouble : 0;
                }
                if (job->want_reuse)
                    cJSON_DeleteItemFromObjectCaseSensitive(ru, "analysed");
                else
                    cJSON_DeleteItemFromObjectCaseSensitive(result, "reuse");
            }
            srv_call_result(job->call, take(resp, "result"));
        }
        job->call = NULL;
        break;
    case SRV_JOB_OPEN:
        if (error || s == NULL) {
            if (error)
                forward_error(job->call, error);
            else
                srv_call_mdae_error(job->call, MDAE_E_STATE, "session closed", NULL);
            job->call = NULL;
            if (s != NULL)
                srv_session_close(s); /* a model that does not load opens nothing */
            break;
        }
        srv_call_result(job->call, version_reply(s->id, job->version, result));
        job->call = NULL;
        break;
    case SRV_JOB_EDIT:
        if (error) {
            forward_error(job->call, error);
        } else {
            srv_call_result(job->call, version_reply(NULL, job->version, result));
        }
        job->call = NULL;
        break;
    case SRV_JOB_MODE:
        if (error) {
            forward_error(job->call, error);
        } else {
            cJSON *r = take(resp, "result");
            if (s != NULL && job->cache_key != NULL && r != NULL)
                srv_session_mode_put(s, job->cache_key, job->version, cJSON_Duplicate(r, true));
            srv_call_result(job->call, r);
        }
        job->call = NULL;
        break;
    case SRV_JOB_LOAD:
        break; /* a model error shows up in the request that follows */
    case SRV_JOB_LSP:
        /* A stale check (the document changed since) is dropped: the newer
         * one is queued behind it and will publish. */
        if (error == NULL && s != NULL && job->conn != NULL && !job->conn->closing &&
            s->version == job->version)
            srv_router_lsp_done_version(job->conn, job->uri, job->lsp_version,
                                        take(result, "diagnostics"));
        break;
    }
}

static void forward_notification(srv_worker *w, cJSON *msg)
{
    srv_job *job = w->head;
    cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *wid = cJSON_GetObjectItemCaseSensitive(params, "id");
    if (job == NULL || !job->stream || job->call == NULL || !cJSON_IsNumber(wid) ||
        (uint64_t)wid->valuedouble != job->wid || w->session == NULL)
        return; /* not for the running streamed job: drop */
    cJSON *p = take(msg, "params");
    cJSON_DeleteItemFromObjectCaseSensitive(p, "id");
    cJSON *cid = cJSON_Duplicate(job->call->id, true);
    if (cid != NULL)
        cJSON_AddItemToObject(p, "id", cid);
    cJSON_AddStringToObject(p, "session", w->session->id);
    srv_call_notify(job->call, method->valuestring, p);
}

static void fail_all(srv_worker *w, int rc, const char *cause, cJSON *details)
{
    srv_job *job;
    while ((job = pop_head(w)) != NULL)
        job_fail(job, rc, cause, details ? cJSON_Duplicate(details, true) : NULL);
    cJSON_Delete(details);
}

static int on_worker_frame(void *ctx, const rpc_frame *f)
{
    srv_worker *w = ctx;
    rpc_parsed p;
    if (rpc_parse(f->body, f->len, &p) < 0 || p.batch) {
        if (p.batch)
            rpc_parsed_close(&p);
        kill_worker(w, SIGKILL, MDAE_E_PROTO, mdae_strdup("the worker sent a malformed message"));
        return 1;
    }
    rpc_msg *m = &p.msgs[0];
    if (m->kind == RPC_MSG_NOTIFICATION) {
        forward_notification(w, p.root);
    } else if (m->kind == RPC_MSG_RESPONSE && w->head != NULL && m->id != NULL &&
               cJSON_IsNumber(m->id) && (uint64_t)m->id->valuedouble == w->head->wid) {
        srv_job *job = pop_head(w);
        timer_start(w, TIMER_NONE, 0);
        deliver(w, job, p.root);
        srv_job_free(job);
        if (!w->closing && w->session != NULL && !w->exited && w->kill_cause == NULL) {
            if (w->head != NULL) {
                pump_jobs(w);
                timer_start(w, TIMER_BUDGET, srv.cfg.request_timeout_ms);
            } else {
                timer_start(w, TIMER_IDLE, srv.cfg.worker_idle_ms);
                retry_waiting(); /* this idle worker may make room */
            }
        }
    } else {
        MDAE_LOG(SRV_LOG_WARN, "worker %d: unexpected message dropped", w->pid);
    }
    rpc_parsed_close(&p);
    return 0;
}

static void on_worker_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    static char shared[65536];
    *buf = uv_buf_init(shared, sizeof shared);
}

static void on_worker_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    srv_worker *w = s->data;
    if (n == 0)
        return;
    if (n < 0) { /* EOF: the exit callback tells why */
        uv_read_stop(s);
        return;
    }
    int rc = rpc_framer_feed(&w->fr, buf->base, (size_t)n, on_worker_frame, w);
    if (rc < 0 && rc != MDAE_E_CANCELED)
        kill_worker(w, SIGKILL, MDAE_E_PROTO, mdae_asprintf("bad framing from the worker: %s",
                                                            mdae_err_name(rc)));
}

/* ---- Life and death ---------------------------------------------------------------- */

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGKILL:
        return "SIGKILL";
    case SIGSEGV:
        return "SIGSEGV";
    case SIGABRT:
        return "SIGABRT";
    case SIGBUS:
        return "SIGBUS";
    case SIGTERM:
        return "SIGTERM";
    case SIGFPE:
        return "SIGFPE";
    case SIGILL:
        return "SIGILL";
    default:
        return "signal";
    }
}

static void on_worker_exit(uv_process_t *proc, int64_t status, int sig)
{
    srv_worker *w = proc->data;
    w->exited = true;
    int rc;
    char *cause;
    cJSON *details = cJSON_CreateObject();
    if (w->kill_cause != NULL) {
        rc = w->kill_rc;
        cause = mdae_strdup(w->kill_cause);
    } else if (sig != 0) {
        rc = MDAE_E_IO;
        cause = mdae_asprintf("the worker crashed: killed by %s (%d)", signal_name(sig), sig);
    } else if (status == SRV_EXIT_NOMEM) {
        rc = MDAE_E_NOMEM;
        cause = mdae_asprintf("the worker exceeded its memory cap of %zu MiB",
                              srv.cfg.worker_memory_mb);
    } else {
        rc = MDAE_E_IO;
        cause = mdae_asprintf("the worker exited with status %lld", (long long)status);
    }
    if (details != NULL) {
        cJSON_AddNumberToObject(details, "pid", w->pid);
        if (sig != 0) {
            cJSON_AddNumberToObject(details, "signal", sig);
            cJSON_AddStringToObject(details, "signalName", signal_name(sig));
        } else {
            cJSON_AddNumberToObject(details, "exitStatus", (double)status);
        }
        if (cause)
            cJSON_AddStringToObject(details, "cause", cause);
    }
    bool quiet = w->head == NULL && (w->kill_rc == MDAE_OK || w->kill_rc == MDAE_E_STATE);
    MDAE_LOG(quiet ? SRV_LOG_INFO : SRV_LOG_WARN, "worker %d: exited (%s)%s", w->pid,
             cause ? cause : "?", w->head ? "; failing its requests" : "");
    detach(w);
    fail_all(w, rc, cause, details);
    mdae_free(cause);
    close_handles(w);
    retry_waiting();
}

static void on_timer(uv_timer_t *t)
{
    srv_worker *w = t->data;
    int mode = w->timer_mode;
    w->timer_mode = TIMER_NONE;
    if (mode == TIMER_BUDGET && w->head != NULL) {
        kill_worker(w, SIGKILL, MDAE_E_TIMEOUT,
                    mdae_asprintf("%s exceeded its time budget of %llu ms; the worker was killed",
                                  w->head->method, (unsigned long long)srv.cfg.request_timeout_ms));
    } else if (mode == TIMER_GRACE && w->head != NULL) {
        kill_worker(w, SIGKILL, MDAE_E_CANCELED,
                    mdae_asprintf("request cancelled; the worker did not stop within %llu ms "
                                  "and was killed",
                                  (unsigned long long)srv.cfg.cancel_grace_ms));
    } else if (mode == TIMER_IDLE && w->head == NULL) {
        srv_worker_stop(w, "idle");
    }
}

/* Make room under max_workers by stopping the idle worker used least
 * recently; false if every worker is busy. */
static bool evict_idle(void)
{
    srv_session *victim = NULL;
    for (srv_session *s = srv.sessions; s != NULL; s = s->next)
        if (s->worker != NULL && s->worker->head == NULL &&
            (victim == NULL || s->last_used < victim->last_used))
            victim = s;
    if (victim == NULL)
        return false;
    srv_worker_stop(victim->worker, "stopped to make room for another session");
    return true;
}

static int spawn(srv_session *s, srv_worker **out)
{
    if (srv.n_workers >= srv.cfg.max_workers && !evict_idle())
        return MDAE_E_LIMIT;
    srv_worker *w = mdae_calloc(1, sizeof *w);
    if (w == NULL)
        return MDAE_E_NOMEM;
    rpc_framer_init(&w->fr, SRV_WORKER_MAX_FRAME);
    rpc_framer_set_framing(&w->fr, RPC_FRAMING_LSP);
    uv_pipe_init(srv.loop, &w->to, 0);
    uv_pipe_init(srv.loop, &w->from, 0);
    uv_timer_init(srv.loop, &w->timer);
    w->proc.data = w->to.data = w->from.data = w->timer.data = w;

    char mem[32], nodes[32], init[32], cache[32];
    snprintf(mem, sizeof mem, "%zu", srv.cfg.worker_memory_mb);
    snprintf(nodes, sizeof nodes, "%zu", srv.cfg.bdd_node_limit);
    snprintf(init, sizeof init, "%zu", srv.cfg.bdd_initial_nodes);
    snprintf(cache, sizeof cache, "%zu", srv.cfg.bdd_cache_size);
    static const char *levels[] = {"debug", "info", "warn", "error"};
    char *args[] = {srv.exe, "--worker", "--memory-mb", mem, "--node-limit", nodes,
                    "--initial-nodes", init, "--cache-size", cache, "--log-level",
                    (char *)levels[srv_log_level], srv.cfg.debug_methods ? "--debug-methods" : NULL,
                    NULL};
    uv_stdio_container_t stdio[3];
    stdio[0].flags = UV_CREATE_PIPE | UV_READABLE_PIPE;
    stdio[0].data.stream = (uv_stream_t *)&w->to;
    stdio[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    stdio[1].data.stream = (uv_stream_t *)&w->from;
    stdio[2].flags = UV_INHERIT_FD;
    stdio[2].data.fd = 2;
    uv_process_options_t opts = {0};
    opts.file = srv.exe;
    opts.args = args;
    opts.exit_cb = on_worker_exit;
    opts.stdio = stdio;
    opts.stdio_count = 3;
    int rc = uv_spawn(srv.loop, &w->proc, &opts);
    if (rc < 0) {
        MDAE_LOG(SRV_LOG_ERROR, "cannot start a worker: %s", uv_strerror(rc));
        w->exited = true;
        close_handles(w); /* the process handle too (docs/src/process.rst) */
        return MDAE_E_IO;
    }
    w->pid = w->proc.pid;
    w->spawned = true;
    srv.n_workers++;
    w->session = s;
    s->worker = w;
    rc = uv_read_start((uv_stream_t *)&w->from, on_worker_alloc, on_worker_read);
    if (rc < 0)
        kill_worker(w, SIGKILL, MDAE_E_IO, mdae_strdup("cannot read from the worker"));
    MDAE_LOG(SRV_LOG_INFO, "worker %d: started for session %s", w->pid, s->id);
    *out = w;
    return MDAE_OK;
}

/* Queue a job until a worker slot frees (srv_worker_retry). */
static void wait_for_slot(srv_session *s, srv_job *job)
{
    jobs_append(&s->wait_head, &s->wait_tail, job);
    srv.n_waiting_jobs++;
    if (!s->waiting) {
        s->waiting = true;
        s->wait_next = NULL;
        if (srv.waiting_tail)
            srv.waiting_tail->wait_next = s;
        else
            srv.waiting = s;
        srv.waiting_tail = s;
    }
}

static void unlink_waiting(srv_session *s)
{
    srv_session *prev = NULL;
    for (srv_session *x = srv.waiting; x != NULL; prev = x, x = x->wait_next)
        if (x == s) {
            if (prev)
                prev->wait_next = s->wait_next;
            else
                srv.waiting = s->wait_next;
            if (srv.waiting_tail == s)
                srv.waiting_tail = prev;
            break;
        }
    s->waiting = false;
    s->wait_next = NULL;
}

void srv_worker_forget_waiting(srv_session *s)
{
    if (!s->waiting)
        return;
    unlink_waiting(s);
    srv_job *job;
    while ((job = s->wait_head) != NULL) {
        s->wait_head = job->next;
        srv.n_waiting_jobs--;
        job_fail(job, MDAE_E_STATE, "session closed", NULL);
    }
    s->wait_tail = NULL;
}

static int start_for(srv_session *s, srv_job *first, srv_worker **out);

/* Give freed worker slots to waiting sessions, oldest first. Called where a
 * slot may have freed: a worker went idle or exited. */
static void retry_waiting(void)
{
    while (srv.waiting != NULL) {
        srv_session *s = srv.waiting;
        if (srv.n_workers >= srv.cfg.max_workers && !evict_idle())
            return;
        srv_worker *w;
        if (start_for(s, s->wait_head, &w) < 0)
            return; /* try again at the next freed slot */
        unlink_waiting(s);
        srv_job *job;
        while ((job = s->wait_head) != NULL) {
            s->wait_head = job->next;
            srv.n_waiting_jobs--;
            enqueue(w, job);
        }
        s->wait_tail = NULL;
    }
}

/* Spawn a worker for s and, unless `first` carries the text itself, queue
 * the reload of the kept text. */
static int start_for(srv_session *s, srv_job *first, srv_worker **out)
{
    srv_worker *w;
    int rc = spawn(s, &w);
    if (rc < 0)
        return rc;
    if (first == NULL || first->kind == SRV_JOB_RAW || first->kind == SRV_JOB_MODE) {
        srv_job *load = srv_job_new(SRV_JOB_LOAD, "load", srv_session_load_params(s), NULL);
        if (load == NULL) {
            srv_worker_stop(w, "out of memory");
            return MDAE_E_NOMEM;
        }
        enqueue(w, load);
    }
    *out = w;
    return MDAE_OK;
}

void srv_worker_submit(srv_session *s, srv_job *job)
{
    srv_worker *w = s->worker;
    s->last_used = uv_now(srv.loop);
    if (s->waiting) { /* keep the order of the session's requests */
        wait_for_slot(s, job);
        return;
    }
    if (w == NULL) {
        int rc = start_for(s, job, &w);
        if (rc == MDAE_E_LIMIT) {
            MDAE_LOG(SRV_LOG_INFO, "session %s: every worker busy, request queued", s->id);
            wait_for_slot(s, job);
            return;
        }
        if (rc < 0) {
            cJSON *d = NULL;
            if (rc == MDAE_E_LIMIT && (d = cJSON_CreateObject()) != NULL)
                cJSON_AddNumberToObject(d, "max_workers", (double)srv.cfg.max_workers);
            job_fail(job, rc, rc == MDAE_E_LIMIT ? "every worker is busy (max_workers reached)"
                                                 : "cannot start a worker", d);
            return;
        }
    }
    enqueue(w, job);
}

void srv_worker_stop(srv_worker *w, const char *why)
{
    if (w->exited || w->kill_cause != NULL)
        return;
    MDAE_LOG(SRV_LOG_INFO, "worker %d: stopping (%s)", w->pid, why);
    detach(w);
    timer_start(w, TIMER_NONE, 0);
    kill_worker(w, SIGTERM, MDAE_E_STATE, mdae_asprintf("the worker was stopped: %s", why));
}

void srv_worker_cancel_lsp(srv_session *s)
{
    srv_job *wprev = NULL;
    for (srv_job *job = s->wait_head, *next; job != NULL; job = next) {
        next = job->next;
        if (job->kind != SRV_JOB_LSP) {
            wprev = job;
            continue;
        }
        jobs_unlink(&s->wait_head, &s->wait_tail, wprev, job);
        srv.n_waiting_jobs--;
        job_fail(job, MDAE_E_CANCELED, NULL, NULL);
    }
    if (s->wait_head == NULL && s->waiting)
        unlink_waiting(s);
    srv_worker *w = s->worker;
    if (w == NULL)
        return;
    srv_job *prev = NULL;
    for (srv_job *job = w->head, *next; job != NULL; job = next) {
        next = job->next;
        if (job->kind != SRV_JOB_LSP) {
            prev = job;
            continue;
        }
        if (!job->started) {
            jobs_unlink(&w->head, &w->tail, prev, job);
            job_fail(job, MDAE_E_CANCELED, NULL, NULL);
            continue;
        }
        if (!job->cancelled) {
            /* No grace timer: a check that does not stop in time only
             * delays the next one, and its answer is dropped as stale. */
            job->cancelled = true;
            send_cancel(w, job);
        }
        prev = job;
    }
}

static bool job_is(const srv_job *job, const srv_conn *conn, const cJSON *id)
{
    return job->call != NULL && job->call->conn == conn && cJSON_Compare(job->call->id, id, true);
}

bool srv_worker_cancel(srv_conn *conn, const cJSON *id)
{
    for (srv_session *s = srv.sessions; s != NULL; s = s->next) {
        srv_job *wprev = NULL;
        for (srv_job *job = s->wait_head; job != NULL; wprev = job, job = job->next) {
            if (!job_is(job, conn, id))
                continue;
            jobs_unlink(&s->wait_head, &s->wait_tail, wprev, job);
            srv.n_waiting_jobs--;
            if (s->wait_head == NULL)
                unlink_waiting(s);
            job_fail(job, MDAE_E_CANCELED, "request cancelled before it started", NULL);
            return true;
        }
        srv_worker *w = s->worker;
        if (w == NULL)
            continue;
        srv_job *prev = NULL;
        for (srv_job *job = w->head; job != NULL; prev = job, job = job->next) {
            if (!job_is(job, conn, id))
                continue;
            if (!job->started) { /* never reached the worker: answer now */
                jobs_unlink(&w->head, &w->tail, prev, job);
                job_fail(job, MDAE_E_CANCELED, "request cancelled before it started", NULL);
                return true;
            }
            if (!job->cancelled) {
                job->cancelled = true;
                send_cancel(w, job);
                /* Only the running job gets a grace period; one sent ahead
                 * is a quick projection and answers soon anyway. */
                if (job == w->head)
                    timer_start(w, TIMER_GRACE,
                                srv.cfg.cancel_grace_ms ? srv.cfg.cancel_grace_ms : 1);
            }
            return true;
        }
    }
    return false;
}
