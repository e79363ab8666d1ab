/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_worker.c -- the worker pool: worker processes, router side.
 * Spawn on demand, one job at a time over the worker's stdin/stdout
 * (JSON-RPC, Content-Length framing), time budget, cancellation, idle stop,
 * and death.
 *
 * The pool knows no method (issue 12). A job carries the worker method to
 * send, its params, and the callback to call with what comes back (srv.h,
 * srv_job, srv_reply), like libuv's uv_queue_work and its after_work_cb;
 * whoever made the job (a method handler) turns that into a reply. The pool
 * calls no other server file.
 *
 * Why one job at a time: BuDDy is single-threaded, so the worker could not
 * run two anyway, and keeping the queue here lets the router cancel a job
 * that has not started without asking the worker, and time the running one.
 *
 * Death (issue 5 section 1): when a worker exits for any reason other than
 * being stopped while idle, every job it held is answered with an error that
 * names the cause -- the signal, the exit status, its memory cap, its time
 * budget, or a cancel that was not honoured in time. The session keeps its
 * text; its next job starts a fresh worker, which first runs the queue's
 * reload job.
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

#include "rpc_json.h"
#include "rpc_relay.h"

enum { TIMER_NONE, TIMER_BUDGET, TIMER_GRACE, TIMER_IDLE };

/* A worker's replies can be much larger than client requests (a report over
 * many equations); still bounded so a broken worker cannot exhaust us. */
#define SRV_WORKER_MAX_FRAME (256u * 1024u * 1024u)

struct srv_worker {
    uv_process_t proc;
    uv_pipe_t to;   /* worker's stdin */
    uv_pipe_t from; /* worker's stdout */
    uv_timer_t timer; /* time budget, cancel grace, idle */
    int timer_mode;
    bool closing, exited, spawned;
    int pending_closes;
    int pid;
    rpc_framer fr;
    srv_queue *queue;     /* back pointer; NULL once detached */
    srv_job *head, *tail; /* head runs once started */
    char *kill_cause;     /* why the pool killed it (owned) */
    int kill_rc;          /* MDAE_E_TIMEOUT, MDAE_E_CANCELED, ... */
    long loaded;          /* the text version its last load carried (0: none) */
};

typedef struct worker_write {
    uv_write_t req;
    char *data;
} worker_write;

static void retry_waiting(void);

/* ---- Jobs -------------------------------------------------------------------- */

int srv_job_init(srv_job *job, const char *method, cJSON *params, srv_job_done_cb done)
{
    memset(job, 0, sizeof *job);
    if (params == NULL)
        return MDAE_E_NOMEM;
    job->method = method;
    job->params = params;
    job->done = done;
    job->wid = ++srv.next_wid;
    return MDAE_OK;
}

/* Give the job back to its maker (who frees it in done). */
static void job_finish(srv_job *job, srv_reply *r)
{
    cJSON_Delete(job->params);
    job->params = NULL;
    job->next = NULL;
    job->done(job, r);
}

/* The job gets no answer: rc < 0, with why. Takes details. */
static void job_fail(srv_job *job, srv_queue *q, int rc, const char *message, cJSON *details)
{
    MDAE_ASSERT(rc < 0);
    srv_reply r = {.rc = rc, .message = message, .details = details, .queue = q};
    job_finish(job, &r);
    cJSON_Delete(r.details);
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

/* Forget the queue (it may get a new worker at once) and stop counting
 * this worker against max_workers. */
static void detach(srv_worker *w)
{
    if (w->queue != NULL) {
        if (w->queue->worker == w)
            w->queue->worker = NULL;
        w->queue = NULL;
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
    /* The queue gets a fresh worker on its next job; the jobs left here
     * fail when the exit callback reports the death. */
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
 * jobs (SRV_JOB_QUICK) are sent ahead, up to SRV_WORKER_WINDOW at once, but
 * only behind a quick head: anything that may run long keeps the
 * one-at-a-time rule, so that cancelling a queued request never has to
 * reach the worker. */
#define SRV_WORKER_WINDOW 16

static bool pipelinable(const srv_job *job) { return (job->flags & SRV_JOB_QUICK) != 0; }

static int send_job(srv_worker *w, srv_job *job)
{
    cJSON *id = cJSON_CreateNumber((double)job->wid);
    cJSON *req = id ? rpc_request_new(id, job->method, job->params) : NULL;
    job->params = NULL; /* taken by rpc_request_new */
    cJSON_Delete(id);
    job->started = true;
    if (job->loads != 0)
        w->loaded = job->loads;
    int rc = worker_send(w, req);
    if (rc < 0)
        kill_worker(w, SIGKILL, rc, mdae_asprintf("cannot send to the worker: %s",
                                                  mdae_strerror(rc)));
    return rc;
}

/* Send the head if it is not sent yet, and quick jobs behind a quick head. */
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

/* The two job lists, a worker's queue (head/tail) and a queue's waiting
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
    worker_send(w, rpc_notification_new(RPC_CANCEL_METHOD, p));
}

static void enqueue(srv_worker *w, srv_job *job)
{
    MDAE_ASSERT(!job->started && job->done != NULL);
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

int srv_reply_take_result(srv_reply *r, cJSON **out)
{
    cJSON *res = r->result;
    r->result = NULL;
    if (res == NULL && r->result_text != NULL) {
        res = cJSON_ParseWithLength(r->result_text, r->result_len);
        if (res == NULL)
            return MDAE_E_NOMEM;
    }
    *out = res;
    return MDAE_OK;
}

/* The response to the running job, parsed: its callback gets result or
 * error and the envelope's stats (the parsed message is freed after). */
static void deliver(srv_worker *w, srv_job *job, cJSON *resp)
{
    srv_reply r = {.rc = MDAE_OK,
                   .result = cJSON_DetachItemFromObjectCaseSensitive(resp, "result"),
                   .error = cJSON_GetObjectItemCaseSensitive(resp, "error"),
                   .stats = cJSON_GetObjectItemCaseSensitive(resp, "stats"),
                   .queue = w->queue};
    job_finish(job, &r);
    cJSON_Delete(r.result);
}

/* A span of a relayed frame as a tree: NULL and true when absent; false
 * when cJSON fails on text rpc_relay_read has checked (out of memory). */
static bool span_tree(rpc_span sp, cJSON **out)
{
    *out = sp.p ? cJSON_ParseWithLength(sp.p, sp.len) : NULL;
    return sp.p == NULL || *out != NULL;
}

/* The same for a response read by rpc_relay_read, with its error and stats
 * already parsed (taken): the result stays text, the client gets its bytes. */
static void deliver_relayed(srv_worker *w, srv_job *job, const rpc_relay_head *h, cJSON *error,
                            cJSON *stats)
{
    srv_reply r = {.rc = MDAE_OK,
                   .result_text = h->result.p,
                   .result_len = h->result.len,
                   .error = error,
                   .stats = stats,
                   .queue = w->queue};
    job_finish(job, &r);
    cJSON_Delete(error);
    cJSON_Delete(stats);
}

/* A notification for the running job goes to its notify callback. */
static void forward_notification(srv_worker *w, cJSON *msg)
{
    srv_job *job = w->head;
    cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *wid = cJSON_GetObjectItemCaseSensitive(params, "id");
    if (job == NULL || job->notify == NULL || !cJSON_IsNumber(wid) ||
        (uint64_t)wid->valuedouble != job->wid || w->queue == NULL || !cJSON_IsString(method))
        return; /* not for the running job, or nobody listens: drop */
    cJSON *p = cJSON_DetachItemFromObjectCaseSensitive(msg, "params");
    cJSON_DeleteItemFromObjectCaseSensitive(p, "id");
    job->notify(job, method->valuestring, p);
}

static void fail_all(srv_worker *w, srv_queue *q, int rc, const char *cause, cJSON *details)
{
    srv_job *job;
    while ((job = pop_head(w)) != NULL)
        job_fail(job, q, rc, cause, details ? cJSON_Duplicate(details, true) : NULL);
    cJSON_Delete(details);
}

static void kill_malformed(srv_worker *w)
{
    kill_worker(w, SIGKILL, MDAE_E_PROTO, mdae_strdup("the worker sent a malformed message"));
}

/* After the running job was answered: the next one, or idle. */
static void job_answered(srv_worker *w)
{
    if (w->closing || w->queue == NULL || w->exited || w->kill_cause != NULL)
        return;
    if (w->head != NULL) {
        pump_jobs(w);
        timer_start(w, TIMER_BUDGET, srv.cfg.request_timeout_ms);
    } else {
        timer_start(w, TIMER_IDLE, srv.cfg.worker_idle_ms);
        retry_waiting(); /* this idle worker may make room */
    }
}

static bool is_head(const srv_worker *w, uint64_t wid)
{
    return w->head != NULL && w->head->wid == wid;
}

static void unexpected(const srv_worker *w)
{
    MDAE_LOG(SRV_LOG_WARN, "worker %d: unexpected message dropped", w->pid);
}

/* A frame in the shape of protocol/rpc_relay.h: the result is not parsed.
 * 1 when the worker was killed for it. */
static int on_relayed(srv_worker *w, const rpc_relay_head *h)
{
    if (!is_head(w, h->id)) {
        unexpected(w);
        return 0;
    }
    cJSON *error, *stats = NULL;
    if (!span_tree(h->error, &error) || !span_tree(h->stats, &stats)) {
        cJSON_Delete(error);
        kill_malformed(w); /* as rpc_parse failing would have */
        return 1;
    }
    srv_job *job = pop_head(w);
    timer_start(w, TIMER_NONE, 0);
    deliver_relayed(w, job, h, error, stats);
    job_answered(w);
    return 0;
}

/* Any other frame: parsed whole, as every frame was before the relay.
 * 1 when the worker was killed for it. */
static int on_parsed(srv_worker *w, const rpc_frame *f)
{
    rpc_parsed p = {0};
    if (rpc_parse(f->body, f->len, &p) < 0 || p.batch) {
        if (p.batch)
            rpc_parsed_close(&p);
        kill_malformed(w);
        return 1;
    }
    rpc_msg *m = &p.msgs[0];
    if (m->kind == RPC_MSG_NOTIFICATION) {
        forward_notification(w, p.root);
    } else if (m->kind == RPC_MSG_RESPONSE && m->id != NULL && cJSON_IsNumber(m->id) &&
               is_head(w, (uint64_t)m->id->valuedouble)) {
        srv_job *job = pop_head(w);
        timer_start(w, TIMER_NONE, 0);
        deliver(w, job, p.root);
        job_answered(w);
    } else {
        unexpected(w);
    }
    rpc_parsed_close(&p);
    return 0;
}

/* Responses in the relay's shape skip the parse; everything else (the
 * notifications of a streamed analysis, garbage) takes rpc_parse. */
static int on_worker_frame(void *ctx, const rpc_frame *f)
{
    srv_worker *w = ctx;
    rpc_relay_head h;
    if (rpc_relay_read(f->body, f->len, &h) == MDAE_OK)
        return on_relayed(w, &h);
    return on_parsed(w, f);
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

/* A worker killed by a stated limit of the server (issue 36): the cause
 * says which, its value and how to raise it, and the error's data carries
 * it as "limit" (rpc_json_limit's fields; no "where": the worker died with
 * what it knew). *named gets id. */
static void name_limit(cJSON *details, char **cause, int id, double value, int *named)
{
    *named = id;
    char *note = mdae_limit_note(id, value);
    char *both = note && *cause ? mdae_asprintf("%s %s", *cause, note) : NULL;
    if (both != NULL) {
        mdae_free(*cause);
        *cause = both;
    }
    mdae_free(note);
    mdae_diag dg = {MDAE_SEV_ERROR, {{0, 0, 0}, {0, 0, 0}}, *cause, id, value};
    cJSON *lim = NULL;
    if (details != NULL && rpc_json_limit(&dg, &lim) == MDAE_OK &&
        !cJSON_AddItemToObject(details, "limit", lim))
        cJSON_Delete(lim); /* not attached (OOM): still ours */
}

/* The worker died at a limit while its head job needed the analysis of the
 * text it had loaded: the queue remembers that text version (srv_queue.
 * limited), so that the next worker does not analyse it again only to be
 * killed again. A job that does not analyse (a debug method, a load) says
 * nothing of the analysis. */
static void remember_limit(srv_worker *w, int rc, int limit, double value, const char *cause)
{
    srv_queue *q = w->queue;
    if (q == NULL || limit == 0 || w->head == NULL || !(w->head->flags & SRV_JOB_ANALYSES) ||
        w->loaded == 0 || cause == NULL)
        return;
    char *msg = mdae_strdup(cause);
    if (msg == NULL)
        return;
    mdae_free(q->limited.message);
    q->limited = (struct srv_limited){.version = w->loaded,
                                      .rc = rc == MDAE_E_NOMEM ? MDAE_E_LIMIT : rc,
                                      .limit = limit,
                                      .value = value,
                                      .message = msg};
    MDAE_LOG(SRV_LOG_INFO, "session %s: version %ld is not analysed again (%s)", q->name,
             w->loaded, cause);
}

static void on_worker_exit(uv_process_t *proc, int64_t status, int sig)
{
    srv_worker *w = proc->data;
    w->exited = true;
    int rc, limit = 0;
    double value = 0;
    char *cause;
    cJSON *details = cJSON_CreateObject();
    if (w->kill_cause != NULL) {
        rc = w->kill_rc;
        cause = mdae_strdup(w->kill_cause);
        if (rc == MDAE_E_TIMEOUT) {
            value = (double)srv.cfg.request_timeout_ms;
            name_limit(details, &cause, MDAE_LIMIT_REQUEST_TIME, value, &limit);
        }
    } else if (sig != 0) {
        rc = MDAE_E_IO;
        cause = mdae_asprintf("the worker crashed: killed by %s (%d)", signal_name(sig), sig);
    } else if (status == SRV_EXIT_NOMEM) {
        rc = MDAE_E_NOMEM;
        cause = mdae_asprintf("the worker exceeded its memory cap of %zu MiB",
                              srv.cfg.worker_memory_mb);
        value = (double)srv.cfg.worker_memory_mb;
        name_limit(details, &cause, MDAE_LIMIT_WORKER_MEMORY, value, &limit);
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
    remember_limit(w, rc, limit, value, cause);
    /* the replies name the jobs' queue, open unless the worker was stopped
     * because its session closed (srv_reply.queue; an LSP check publishes
     * a death only for an open one) */
    srv_queue *q = w->queue;
    detach(w);
    fail_all(w, q, rc, cause, details);
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
    srv_queue *victim = NULL;
    for (srv_queue *q = srv.queues; q != NULL; q = q->next)
        if (q->worker != NULL && q->worker->head == NULL &&
            (victim == NULL || q->last_used < victim->last_used))
            victim = q;
    if (victim == NULL)
        return false;
    srv_worker_stop(victim->worker, "stopped to make room for another session");
    return true;
}

static int spawn(srv_queue *q, srv_worker **out)
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

    char mem[32], nodes[32], init[32], cache[32], timeout[32];
    snprintf(mem, sizeof mem, "%zu", srv.cfg.worker_memory_mb);
    snprintf(timeout, sizeof timeout, "%llu", (unsigned long long)srv.cfg.request_timeout_ms);
    snprintf(nodes, sizeof nodes, "%zu", srv.cfg.bdd_node_limit);
    snprintf(init, sizeof init, "%zu", srv.cfg.bdd_initial_nodes);
    snprintf(cache, sizeof cache, "%zu", srv.cfg.bdd_cache_size);
    static const char *levels[] = {"debug", "info", "warn", "error"};
    char *args[] = {srv.exe, "--worker", "--memory-mb", mem, "--node-limit", nodes,
                    "--initial-nodes", init, "--cache-size", cache, "--timeout-ms", timeout,
                    "--log-level",
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
    w->queue = q;
    q->worker = w;
    rc = uv_read_start((uv_stream_t *)&w->from, on_worker_alloc, on_worker_read);
    if (rc < 0)
        kill_worker(w, SIGKILL, MDAE_E_IO, mdae_strdup("cannot read from the worker"));
    MDAE_LOG(SRV_LOG_INFO, "worker %d: started for session %s", w->pid, q->name);
    *out = w;
    return MDAE_OK;
}

/* Queue a job until a worker slot frees (retry_waiting). */
static void wait_for_slot(srv_queue *q, srv_job *job)
{
    jobs_append(&q->wait_head, &q->wait_tail, job);
    srv.n_waiting_jobs++;
    if (!q->waiting) {
        q->waiting = true;
        q->wait_next = NULL;
        if (srv.waiting_tail)
            srv.waiting_tail->wait_next = q;
        else
            srv.waiting = q;
        srv.waiting_tail = q;
    }
}

static void unlink_waiting(srv_queue *q)
{
    srv_queue *prev = NULL;
    for (srv_queue *x = srv.waiting; x != NULL; prev = x, x = x->wait_next)
        if (x == q) {
            if (prev)
                prev->wait_next = q->wait_next;
            else
                srv.waiting = q->wait_next;
            if (srv.waiting_tail == q)
                srv.waiting_tail = prev;
            break;
        }
    q->waiting = false;
    q->wait_next = NULL;
}

static int start_for(srv_queue *q, srv_job *first, srv_worker **out);

/* Give freed worker slots to waiting queues, oldest first. Called where a
 * slot may have freed: a worker went idle or exited. */
static void retry_waiting(void)
{
    while (srv.waiting != NULL) {
        srv_queue *q = srv.waiting;
        if (srv.n_workers >= srv.cfg.max_workers && !evict_idle())
            return;
        srv_worker *w;
        if (start_for(q, q->wait_head, &w) < 0)
            return; /* try again at the next freed slot */
        unlink_waiting(q);
        srv_job *job;
        while ((job = q->wait_head) != NULL) {
            q->wait_head = job->next;
            srv.n_waiting_jobs--;
            enqueue(w, job);
        }
        q->wait_tail = NULL;
    }
}

/* Spawn a worker for q and, unless `first` carries the text itself, queue
 * the queue's reload job. */
static int start_for(srv_queue *q, srv_job *first, srv_worker **out)
{
    srv_worker *w;
    int rc = spawn(q, &w);
    if (rc < 0)
        return rc;
    if (first == NULL || !(first->flags & SRV_JOB_LOADS)) {
        srv_job *load = q->reload ? q->reload(q) : NULL;
        if (load == NULL) {
            srv_worker_stop(w, "out of memory");
            return MDAE_E_NOMEM;
        }
        enqueue(w, load);
    }
    *out = w;
    return MDAE_OK;
}

/* ---- The API ------------------------------------------------------------------------------ */

void srv_queue_init(srv_queue *q, const char *name, srv_job *(*reload)(srv_queue *q))
{
    memset(q, 0, sizeof *q);
    q->name = name;
    q->reload = reload;
    q->last_used = uv_now(srv.loop);
    q->next = srv.queues;
    if (srv.queues)
        srv.queues->prev = q;
    srv.queues = q;
}

void srv_queue_close(srv_queue *q)
{
    if (q->waiting)
        unlink_waiting(q);
    srv_job *job;
    while ((job = q->wait_head) != NULL) {
        q->wait_head = job->next;
        srv.n_waiting_jobs--;
        job_fail(job, NULL, MDAE_E_STATE, "session closed", NULL);
    }
    q->wait_tail = NULL;
    if (q->worker != NULL) {
        srv_worker *w = q->worker;
        q->worker = NULL;
        w->queue = NULL;
        srv_worker_stop(w, "session closed");
    }
    MDAE_ASSERT(!q->waiting && q->wait_head == NULL && q->worker == NULL);
    mdae_free(q->limited.message);
    q->limited.message = NULL;
    if (q->prev)
        q->prev->next = q->next;
    else
        srv.queues = q->next;
    if (q->next)
        q->next->prev = q->prev;
    q->prev = q->next = NULL;
}

bool srv_queue_busy(const srv_queue *q) { return q->worker != NULL && q->worker->head != NULL; }

void srv_queue_submit(srv_queue *q, srv_job *job)
{
    srv_worker *w = q->worker;
    q->last_used = uv_now(srv.loop);
    if (q->waiting) { /* keep the order of the session's requests */
        wait_for_slot(q, job);
        return;
    }
    if (w == NULL) {
        int rc = start_for(q, job, &w);
        if (rc == MDAE_E_LIMIT) {
            MDAE_LOG(SRV_LOG_INFO, "session %s: every worker busy, request queued", q->name);
            wait_for_slot(q, job);
            return;
        }
        if (rc < 0) {
            job_fail(job, q, rc, "cannot start a worker", NULL);
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

void srv_queue_cancel_tag(srv_queue *q, unsigned tag)
{
    srv_job *wprev = NULL;
    for (srv_job *job = q->wait_head, *next; job != NULL; job = next) {
        next = job->next;
        if (job->tag != tag) {
            wprev = job;
            continue;
        }
        jobs_unlink(&q->wait_head, &q->wait_tail, wprev, job);
        srv.n_waiting_jobs--;
        job_fail(job, q, MDAE_E_CANCELED, NULL, NULL);
    }
    if (q->wait_head == NULL && q->waiting)
        unlink_waiting(q);
    srv_worker *w = q->worker;
    if (w == NULL)
        return;
    srv_job *prev = NULL;
    for (srv_job *job = w->head, *next; job != NULL; job = next) {
        next = job->next;
        if (job->tag != tag) {
            prev = job;
            continue;
        }
        if (!job->started) {
            jobs_unlink(&w->head, &w->tail, prev, job);
            job_fail(job, q, MDAE_E_CANCELED, NULL, NULL);
            continue;
        }
        if (!job->cancelled) {
            /* No grace timer: a job that does not stop in time only delays
             * the next one (an LSP check's answer is dropped as stale). */
            job->cancelled = true;
            send_cancel(w, job);
        }
        prev = job;
    }
}

/* Where a job is: waiting in its queue, or on a worker. */
static bool find_job(const srv_job *job, srv_queue **qo, srv_job **prevo, srv_worker **wo)
{
    for (srv_queue *q = srv.queues; q != NULL; q = q->next) {
        srv_job *prev = NULL;
        for (srv_job *j = q->wait_head; j != NULL; prev = j, j = j->next)
            if (j == job) {
                *qo = q, *prevo = prev, *wo = NULL;
                return true;
            }
        if (q->worker == NULL)
            continue;
        prev = NULL;
        for (srv_job *j = q->worker->head; j != NULL; prev = j, j = j->next)
            if (j == job) {
                *qo = q, *prevo = prev, *wo = q->worker;
                return true;
            }
    }
    return false;
}

void srv_job_cancel(srv_job *job)
{
    srv_queue *q;
    srv_job *prev;
    srv_worker *w;
    if (!find_job(job, &q, &prev, &w))
        return; /* on a worker that died or was stopped: it fails on exit */
    if (w == NULL) {
        jobs_unlink(&q->wait_head, &q->wait_tail, prev, job);
        srv.n_waiting_jobs--;
        if (q->wait_head == NULL)
            unlink_waiting(q);
        job_fail(job, q, MDAE_E_CANCELED, "request cancelled before it started", NULL);
        return;
    }
    if (!job->started) { /* never reached the worker: answer now */
        jobs_unlink(&w->head, &w->tail, prev, job);
        job_fail(job, q, MDAE_E_CANCELED, "request cancelled before it started", NULL);
        return;
    }
    if (!job->cancelled) {
        job->cancelled = true;
        send_cancel(w, job);
        /* Only the running job gets a grace period; one sent ahead is a
         * quick projection and answers soon anyway. */
        if (job == w->head)
            timer_start(w, TIMER_GRACE, srv.cfg.cancel_grace_ms ? srv.cfg.cancel_grace_ms : 1);
    }
}
