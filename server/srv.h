/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv.h -- everything server-wide in mdaed, grouped by the .c file that
 * implements it (Redis's server.h layout).
 *
 * Process model (issue 5 section 1): one libuv loop process (the *router*)
 * owns every client connection and every session's model text; each session
 * is served by its own worker process (`mdaed --worker`, the same binary,
 * server/worker/wk.h) holding that session's BuDDy manager, model and
 * results, because BuDDy keeps one global manager per process. Router and
 * worker talk JSON-RPC over the worker's stdin/stdout with Content-Length
 * framing.
 *
 * Which file may call which (issue 12). Each arrow is "calls functions of";
 * nothing calls up the list, so there is no circle. Where a lower file must
 * reach a higher one it does so through a callback it was given, as libuv
 * does (uv_read_start's read_cb, uv_queue_work's after_work_cb):
 *
 *   srv_main     -> srv_loop, srv_config, worker/ (wk_main)
 *   srv_loop     -> srv_http, srv_router, srv_lsp, srv_session, srv_conn,
 *                   srv_m_session (restoring the stored sessions), srv_store
 *   srv_http     -> srv_router, srv_conn                  (HTTP exchanges)
 *   srv_router   -> srv_methods, srv_call, srv_conn       (JSON-RPC dispatch),
 *                   srv_lsp (the client's responses to its requests)
 *   srv_methods  -> the handlers (the table points at them):
 *                   srv_lsp, srv_m_server, srv_m_session
 *   srv_lsp      -> srv_m_session (its reload job), and as every handler:
 *   handlers     -> srv_call, srv_session, srv_worker, srv_conn
 *   srv_call     -> srv_conn                              (replies, batches)
 *   srv_session  -> srv_worker, srv_store, protocol/rpc_lsp
 *   srv_worker   -> (no other server file; it knows no method: the pool)
 *   srv_store    -> (no other server file)                (SQLite)
 *   srv_conn     -> (no other server file)                (connections)
 *   srv_config   -> srv_log; and every file -> srv_log (MDAE_LOG)
 * Callbacks going up: srv_conn -> its on_frame / on_close (set by srv_loop);
 * srv_worker -> a job's done / notify (set by the handler that made the job)
 * and a queue's reload (set by srv_session's creator). Only the handlers
 * (srv_m_*.c, srv_lsp.c), the method table (srv_methods.c, srv_methods.h)
 * and server/worker/ name method strings.
 *
 * A new method answered by the router is a handler in srv_m_*.c plus one
 * line in srv_methods.c. A new worker-backed method that needs nothing but
 * the session is its handler in server/worker/ plus one line in
 * SRV_FORWARDED_METHODS (srv_methods.h): session/svg is one.
 *
 * Lifetimes (STYLE.md sections 10-11): srv_conn and srv_worker embed their
 * libuv handles and are freed only in their last close callback. A pending
 * client request (srv_call) holds a reference on its connection, so a
 * connection that closes while its requests run stays allocated (but
 * `closing`) until the last reply has been dropped.
 *
 * Only server/ includes <uv.h>.
 */
#ifndef SRV_H
#define SRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "mdae.h"
#include "rpc_framer.h"
#include "rpc_message.h"

/* ---- Logging (srv_log.c) -------------------------------------------------- */
enum { SRV_LOG_DEBUG = 0, SRV_LOG_INFO, SRV_LOG_WARN, SRV_LOG_ERROR };
extern int srv_log_level;
void srv_log_write(int level, const char *fmt, ...) MDAE_PRINTF(2, 3);
/* Checks the level before anything is formatted (Redis's serverLog). */
#define MDAE_LOG(level, ...)                    \
    do {                                        \
        if ((level) >= srv_log_level)           \
            srv_log_write((level), __VA_ARGS__); \
    } while (0)
int srv_log_level_parse(const char *name); /* -1 if unknown */

/* ---- Configuration (srv_config.c) ----------------------------------------- */
typedef struct srv_config {
    char *listen_tcp;  /* "HOST:PORT" or NULL (owned) */
    char *listen_unix; /* socket path or NULL (owned) */
    bool stdio;
    char *token;    /* access token or NULL (owned) */
    char *web_root; /* directory served by GET / (owned) */
    char *port_file; /* write the bound TCP port there (tests; owned) */
    char *state_dir; /* persistent sessions (srv_store.c); NULL: none
                        (owned; "none" in the file and --state-dir none
                        also give NULL) */
    bool state_dir_set; /* the configuration or a flag said; else the
                           default (srv_store_default_dir) */
    char *instance;  /* prefix of the session ids this instance makes, so
                        that instances behind one proxy never hand out the
                        same id (srv_session_id_ok; owned; NULL: none) */
    size_t max_message_bytes;
    size_t max_sessions;
    size_t max_pending_requests; /* unanswered requests per connection */
    size_t max_workers;
    size_t worker_memory_mb; /* 0: no cap */
    uint64_t request_timeout_ms;
    uint64_t cancel_grace_ms;
    uint64_t shutdown_grace_ms; /* SIGTERM: how long requests in flight may
                                   take to finish before they are cut */
    uint64_t worker_idle_ms;
    uint64_t session_idle_ms;
    uint64_t lsp_debounce_ms; /* quiet time after didChange before the
                                 diagnostics run; 0: at once (issue 6) */
    size_t write_queue_bytes;  /* over it, the client's requests are not read
                                  until its replies drain (issue 37) */
    /* Connections and their bounds (issue 37 item 5, docs/security.md);
     * 0 turns each one off. stdio is exempt from all of them. */
    uint64_t header_timeout_ms; /* a message's headers, from its first byte */
    uint64_t body_timeout_ms;   /* a message, from its first byte ... */
    size_t body_min_rate;       /* ... plus a second per this many bytes
                                   received (a minimum rate, bytes/s) */
    uint64_t idle_ms;           /* no request, no session, no bytes */
    uint64_t http_idle_ms;      /* an HTTP keep-alive connection between
                                   exchanges */
    uint64_t idle_with_sessions_ms; /* a connection owning sessions, or an
                                       initialized LSP client (an editor) */
    uint64_t write_stall_ms;    /* replies over write_queue_bytes and none of
                                   them taken by the client for this long */
    size_t partial_bytes;       /* all connections' partial messages */
    size_t max_connections;     /* client connections at once */
    size_t bdd_node_limit, bdd_initial_nodes, bdd_cache_size;
    int log_level;
    bool debug_methods; /* debug/crash, debug/alloc, debug/sleep: tests only */
} srv_config;

void srv_config_default(srv_config *c /* out */);
/* Read a JSON-with-comments file over the defaults. MDAE_OK, MDAE_E_IO
 * (unreadable), MDAE_E_PARSE (not JSON or a bad value: *err says which). */
int srv_config_load(srv_config *c, const char *path, char *err, size_t errlen);
void srv_config_close(srv_config *c);

/* ---- Connections (srv_conn.c) ---------------------------------------------- */
typedef enum srv_conn_kind { SRV_CONN_TCP, SRV_CONN_UNIX, SRV_CONN_STDIO } srv_conn_kind;

typedef struct srv_conn srv_conn;
typedef struct srv_call srv_call;
/* A frame was cut from the connection's input (srv_loop routes it). */
typedef void (*srv_conn_frame_cb)(srv_conn *conn, const rpc_frame *frame);
/* The connection is closing (called once, from srv_conn_close, while the
 * connection is still referenced): what it owns must go. */
typedef void (*srv_conn_close_cb)(srv_conn *conn);

struct srv_conn {
    uint64_t id;
    srv_conn_kind kind;
    union {
        uv_tcp_t tcp;
        uv_pipe_t pipe;
        uv_tty_t tty;
    } h;            /* the stream we read (and write, except stdio) */
    uv_pipe_t out;  /* stdio only: stdout */
    bool out_open;
    uv_stream_t *rd, *wr;
    srv_conn_frame_cb on_frame;
    srv_conn_close_cb on_close;
    bool closing;
    int pending_closes; /* handle closes still outstanding */
    int refs;           /* srv_call references */
    rpc_framer fr;
    size_t queued;      /* bytes handed to uv_write and not yet written */
    bool authed;        /* token checked (or not needed) */
    srv_call *calls;    /* requests not answered yet (srv_call.c), for cancel */
    /* HTTP: one exchange at a time */
    bool http_busy;
    int http_outstanding; /* responses still owed to the current request */
    bool http_keep_alive;
    /* LSP */
    bool lsp_shutdown;
    bool lsp_utf8; /* initialize chose positionEncoding "utf-8" (issue 15) */
    int64_t lsp_debounce_ms; /* workspace/didChangeConfiguration's; -1: the
                                configuration's lsp.debounce_ms */
    bool lsp_mode_changes; /* publish mode-change diagnostics (issue 13 item
                              7): initializationOptions or
                              didChangeConfiguration's modeChanges */
    bool lsp_progress; /* the client offers window.workDoneProgress: long
                          checks report $/progress (issue 36 item 4) */
    uint64_t lsp_next_token; /* the last work-done progress token made */
    /* Graceful end (srv_conn_end): the peer finished sending, or we are done;
     * close once the replies owed and the bytes queued are out. */
    bool read_eof;
    bool ending;
    const char *end_why; /* static string */
    uv_shutdown_t shutdown;
    /* Bounds (issue 37 item 5; srv_conn_check_all). Times are uv_now. */
    uint64_t last_active;   /* bytes received, a reply taken, a request done */
    uint64_t msg_start;     /* the first byte of the message being read; 0:
                               none begun */
    uint64_t frames;        /* frames cut so far */
    size_t msg_bytes;       /* bytes received since msg_start */
    size_t held;            /* what its framer holds, counted in
                               srv.partial_bytes */
    uint64_t written_seen;  /* bytes the kernel had taken at the last check */
    uint64_t written_at;    /* when that last grew (or nothing was queued) */
    uint64_t queued_total;  /* bytes ever handed to uv_write */
    bool read_paused;       /* not reading until its replies drain */
    bool has_sessions;      /* owns sessions (set by the caller of
                               srv_conn_check_all) */
    bool lsp_initialized;   /* an LSP client said initialize: an editor */
    struct srv_conn *prev, *next;
};

/* A new connection of `kind` whose frames go to on_frame; the caller
 * initialises the stream in conn->h and calls srv_conn_start. */
srv_conn *srv_conn_new(srv_conn_kind kind, srv_conn_frame_cb on_frame,
                       srv_conn_close_cb on_close);
/* Take over an accepted stream (already initialised by the caller in
 * conn->h) and start reading. On failure the connection is closed. */
void srv_conn_start(srv_conn *conn);
/* Open the stdio connection (fd 0 in, fd 1 out). */
int srv_conn_open_stdio(srv_conn_frame_cb on_frame, srv_conn_close_cb on_close);
/* Close once (safe twice); the memory goes when the last close callback has
 * run and no call references it. */
void srv_conn_close(srv_conn *conn, const char *why);
/* Is `given` the configured access token? In time independent of where
 * the two differ (an attacker timing the answers learns nothing of the
 * token but, at most, its length). False when given is NULL. */
bool srv_token_ok(const char *given);
/* Close gracefully: stop reading, let queued writes reach the peer
 * (uv_shutdown), then srv_conn_close. why is a static string. */
void srv_conn_end(srv_conn *conn, const char *why);
void srv_conn_ref(srv_conn *conn);
void srv_conn_unref(srv_conn *conn);
/* Write one message (framed for the connection). Takes ownership of msg.
 * is_response: counts against an HTTP exchange (notifications do not).
 * Errors close the connection (nobody to tell). */
void srv_conn_send(srv_conn *conn, cJSON *msg /* takes */, bool is_response);
/* The same for a message already printed (body borrowed: copied). */
void srv_conn_send_text(srv_conn *conn, const char *body, size_t len, bool is_response);
/* The same, taking the printed body (allocated with mdae_malloc), which is
 * written as it is between its frame's head and tail: a large reply is not
 * copied. */
void srv_conn_send_owned(srv_conn *conn, char *body /* takes */, size_t len, bool is_response);
/* Write raw bytes (takes ownership of data, allocated with mdae_malloc). */
void srv_conn_write(srv_conn *conn, char *data /* takes */, size_t len);
/* Apply the read, idle and write-stall timeouts to every connection at
 * uv_now `now` (each connection's has_sessions set by the caller): one
 * that is past a bound is told why when nothing is owed (HTTP 408, or a
 * JSON-RPC error) and closed. */
void srv_conn_check_all(uint64_t now);
/* How often srv_conn_check_all should run for the configured bounds (ms);
 * 0 when every one of them is off. */
uint64_t srv_conn_check_interval(void);
/* A refusal for a client that cannot be served (too many connections, no
 * descriptors left), framed as the client speaks, guessed from the bytes
 * already sent (`peek`, n bytes; none: NDJSON): an HTTP 503 or a
 * JSON-RPC error -32005 (MDAE_E_LIMIT). Owned (mdae_free); NULL on OOM. */
char *srv_conn_refusal(const char *peek, size_t n, const char *why, size_t *len /* out */);

/* ---- Calls and batches (srv_call.c) ------------------------------------------ */
typedef struct srv_batch srv_batch;
typedef struct srv_job srv_job;
typedef struct srv_queue srv_queue;
struct srv_method;

/* A client request waiting for its reply. */
struct srv_call {
    srv_conn *conn; /* referenced */
    cJSON *id;      /* owned copy */
    char *method;   /* owned, for logs */
    const struct srv_method *m; /* its entry in the method table */
    srv_batch *batch; /* referenced, or NULL */
    srv_job *job;     /* the job answering it, while one runs (for cancel) */
    struct srv_call *prev, *next; /* conn->calls */
};

srv_call *srv_call_new(srv_conn *conn, const cJSON *id, const char *method, srv_batch *batch);
/* Answer and free the call. Takes ownership of response (a whole JSON-RPC
 * response built for call->id). */
void srv_call_reply(srv_call *call, cJSON *response /* takes */);
void srv_call_result(srv_call *call, cJSON *result /* takes */);
/* Answer with a result already printed as JSON text (borrowed, len bytes,
 * valid JSON: a worker's, read by rpc_relay_read, or one the router
 * printed), sent as it is but for the id in front (protocol/rpc_relay.h).
 * key, when not NULL and the result is an object, adds "key":value (value
 * borrowed) as its last member. In a batch the text is parsed into the
 * batch's array. */
void srv_call_result_text(srv_call *call, const char *result, size_t len, const char *key,
                          const cJSON *value);
void srv_call_error(srv_call *call, int code, const char *message, cJSON *data /* takes */);
void srv_call_mdae_error(srv_call *call, int rc, const char *message, cJSON *details);
/* Send a notification to the call's connection (if still open). */
void srv_call_notify(srv_call *call, const char *method, cJSON *params /* takes */);
/* The pending request of conn with this id, or NULL. */
srv_call *srv_call_find(srv_conn *conn, const cJSON *id);
/* Cancel the job of every call of conn still waiting for its reply, as
 * $/cancelRequest would one by one: each call is answered (with an error,
 * or its result if it was finishing) and freed, now or when its worker
 * stops. */
void srv_call_cancel_all(srv_conn *conn);

/* A batch collects the responses of its calls and sends them as one array
 * when the last is answered and the router has walked the whole batch. */
srv_batch *srv_batch_new(srv_conn *conn); /* NULL on OOM */
void srv_batch_dispatched(srv_batch *b);  /* the router has walked it all */
/* A response made without a call (invalid request, unknown method): into
 * the batch, or sent at once when b is NULL. */
void srv_batch_reply(srv_conn *conn, srv_batch *b, cJSON *response /* takes */);

/* ---- The router (srv_router.c) and HTTP (srv_http.c) -------------------------- */
/* Parse one JSON-RPC body from a connection and dispatch it; true when a
 * response is owed (HTTP ends its exchange at once otherwise). */
bool srv_router_body(srv_conn *conn, const char *body, size_t len);
/* One HTTP request (framing RPC_FRAMING_HTTP): POST /rpc to the router,
 * GET and HEAD to the static files. */
void srv_http_frame(srv_conn *conn, const rpc_frame *frame);

/* ---- The method table (srv_methods.c) ------------------------------------------- */
enum {
    SRV_M_QUICK = 1,  /* worker-backed and sub-millisecond: may be pipelined */
    SRV_M_DEBUG = 2,  /* only with debug_methods (tests) */
    SRV_M_NOAUTH = 4, /* allowed before authentication */
    SRV_M_FORWARD = 8 /* forwarded to the session's worker (srv_methods.h) */
};
typedef void srv_method_fn(srv_call *call, const cJSON *params);
typedef void srv_notification_fn(srv_conn *conn, const cJSON *params);
typedef struct srv_method {
    const char *name;
    srv_method_fn *fn;          /* a request's handler, or NULL */
    srv_notification_fn *notify; /* a notification's handler, or NULL */
    unsigned flags;
} srv_method;
/* The entry for a request (notification false) or a notification, or NULL
 * when there is none (or it is a debug method and they are off). */
const srv_method *srv_method_find(const char *name, bool notification);

/* ---- Method handlers (srv_m_session.c, srv_m_server.c, srv_lsp.c) ----------------- */
srv_method_fn srv_m_open, srv_m_edit, srv_m_analyze, srv_m_close, srv_m_mode, srv_m_forward;
/* The job that reloads a session's text into a fresh worker (the reload of
 * every session's queue; srv_lsp.c gives it to the documents' sessions). */
srv_job *srv_m_session_reload(srv_queue *q);
/* At startup: open the store and take back its sessions (their workers
 * start on first use); those idle longer than limits.session_idle_ms are
 * deleted instead. MDAE_E_IO if the state directory is unusable. */
int srv_m_session_restore(void);
srv_method_fn srv_m_status, srv_m_auth;
srv_notification_fn srv_m_cancel;
srv_method_fn srv_lsp_initialize, srv_lsp_shutdown;
srv_notification_fn srv_lsp_exit, srv_lsp_did_open, srv_lsp_did_change, srv_lsp_did_close;
/* Issue 15: questions about a document, answered by its worker (wk_lsp.c),
 * the mdae.showMode command, and the notifications an editor sends. */
srv_method_fn srv_lsp_hover, srv_lsp_document_symbol, srv_lsp_definition, srv_lsp_references,
    srv_lsp_code_lens, srv_lsp_execute_command;
srv_notification_fn srv_lsp_did_save, srv_lsp_did_change_configuration;
/* Issue 36 item 4: window/workDoneProgress/cancel from the client, and the
 * client's responses to the server's own requests (srv_router.c hands
 * them over: only srv_lsp.c sends requests to clients, to create a
 * progress token). */
srv_notification_fn srv_lsp_progress_cancel;
void srv_lsp_response(srv_conn *conn, const rpc_msg *m /* borrowed */);
/* The debounce timer of LSP checks (srv_lsp.c): init with the loop, close
 * when stopping. */
void srv_lsp_init(void);
void srv_lsp_close(void);

/* ---- The worker pool (srv_worker.c) ------------------------------------------------ */
/* The pool runs jobs in sessions' worker processes: it queues, spawns,
 * reaps, cancels and times out; it knows no method (a job carries the
 * worker method to send and the callback to call with what came back, like
 * libuv's uv_queue_work and its after_work_cb, or Redis's blocked.c).
 * One job runs at a time per worker (BuDDy is single-threaded; keeping the
 * queue here lets a queued job be cancelled without asking the worker);
 * jobs flagged SRV_JOB_QUICK may be sent ahead behind a quick head. */
typedef struct srv_worker srv_worker;

/* What came back for a job, given to its done callback. */
typedef struct srv_reply {
    int rc;              /* MDAE_OK: the worker answered (result or error);
                            < 0: it never will (the worker died or was
                            stopped, the job was cancelled before it started,
                            no worker could be started) */
    cJSON *result;       /* rc == MDAE_OK: the worker's result as a tree, or
                            NULL; set it to NULL to keep it (else the pool
                            frees it). NULL too when the result came as
                            text only (result_text): srv_reply_take_result
                            parses it */
    const char *result_text; /* rc == MDAE_OK: the result's JSON text as the
                                worker printed it (borrowed, valid during the
                                done callback; protocol/rpc_relay.h), or NULL
                                (no result, or only the tree) */
    size_t result_len;
    cJSON *error;        /* rc == MDAE_OK: the worker's error object, or NULL */
    cJSON *stats;        /* rc == MDAE_OK: the envelope's "stats", or NULL */
    const char *message; /* rc < 0: why (NULL: mdae_strerror(rc)) */
    cJSON *details;      /* rc < 0: for error.data, or NULL; detach to keep */
    srv_queue *queue;    /* the job's queue; NULL once it has been closed */
} srv_reply;

/* The result as a tree, now the caller's (result, or result_text parsed):
 * MDAE_OK with *out owned, NULL when the worker sent no result;
 * MDAE_E_NOMEM (cJSON cannot tell it from bad text, which
 * rpc_relay_read has refused already). */
int srv_reply_take_result(srv_reply *r, cJSON **out /* out: owned */);

typedef void (*srv_job_done_cb)(srv_job *job, srv_reply *reply);
/* A worker notification while the job runs (params taken, "id" removed). */
typedef void (*srv_job_notify_cb)(srv_job *job, const char *method, cJSON *params);

enum {
    SRV_JOB_QUICK = 1, /* may be sent ahead behind a quick head (SRV_M_QUICK) */
    SRV_JOB_LOADS = 2, /* carries the model text: a fresh worker needs no reload first */
    SRV_JOB_ANALYSES = 4 /* needs the analysis of the loaded text: a kill at a
                            stated limit while it runs is remembered for that
                            text (srv_queue.limited) */
};

struct srv_job {
    /* Set by whoever makes the job. */
    const char *method;        /* the worker method (static string) */
    cJSON *params;             /* owned until sent */
    srv_job_done_cb done;      /* called exactly once; the job is the maker's
                                  again then (free it there) */
    srv_job_notify_cb notify;  /* NULL: notifications are dropped */
    unsigned flags;            /* SRV_JOB_* */
    unsigned tag;              /* for srv_queue_cancel_tag; 0: none */
    long loads;                /* the session text version it loads into the
                                  worker ("load", "diagnose"); 0: none */
    /* The pool's. */
    uint64_t wid; /* id on the worker pipe */
    bool started; /* sent to the worker */
    bool cancelled;
    struct srv_job *next;
};

/* A session's line to the pool: its worker, if one runs, and its jobs
 * waiting for a worker slot. Embedded in srv_session; the pool keeps every
 * queue in a list (eviction of idle workers, waiting order). */
struct srv_queue {
    srv_worker *worker; /* NULL when none runs */
    const char *name;   /* for logs (borrowed: the session id) */
    uint64_t last_used; /* uv_now of the last submit */
    /* The job a fresh worker runs first, unless the first job loads the
     * text itself: reload what the session keeps. NULL on OOM. */
    srv_job *(*reload)(srv_queue *q);
    srv_job *wait_head, *wait_tail; /* waiting for a worker slot, in order */
    struct srv_queue *wait_next;    /* in the pool's waiting list */
    bool waiting;
    struct srv_queue *prev, *next;  /* every queue */
    /* The text version whose analysis got the worker killed at a stated
     * limit of the server (its memory cap, or the time backstop of
     * limits.request_timeout_ms), so that the restarted worker does not
     * run it again for each question (issue 36): the next load of that
     * version carries it as a kept failure (srv_session_load_params).
     * version 0: none; a new text version makes it moot. */
    struct srv_limited {
        long version;
        int rc;          /* MDAE_E_LIMIT (memory) or MDAE_E_TIMEOUT */
        int limit;       /* MDAE_LIMIT_* */
        double value;    /* the limit's value */
        char *message;   /* owned: the cause, naming the limit */
    } limited;
};

/* Prepare a job in the maker's memory (like a libuv request: the maker owns
 * it, usually as the first member of its own struct, and gets it back in
 * done). MDAE_E_NOMEM when params is NULL (a failed build). */
int srv_job_init(srv_job *job, const char *method, cJSON *params /* takes */,
                 srv_job_done_cb done);
void srv_queue_init(srv_queue *q, const char *name, srv_job *(*reload)(srv_queue *q));
/* The session goes: its waiting jobs fail (MDAE_E_STATE "session closed"),
 * its worker is stopped (the jobs it holds fail when it exits, with queue
 * NULL in their reply). */
void srv_queue_close(srv_queue *q);
/* Queue a job (takes ownership), starting a worker if needed. If no worker
 * can start, the job's done callback runs (maybe at once) with the error. */
void srv_queue_submit(srv_queue *q, srv_job *job /* takes */);
/* Some job of q is queued on its worker or running. */
bool srv_queue_busy(const srv_queue *q);
/* Cancel a job (like uv_cancel): one that has not started is answered at
 * once with MDAE_E_CANCELED; a running one is asked to stop, and killed
 * after cancel_grace_ms if it does not. */
void srv_job_cancel(srv_job *job);
/* Cancel q's jobs with this tag: those not started are dropped (done with
 * MDAE_E_CANCELED), the running one is asked to stop (no grace: its answer
 * is simply late). */
void srv_queue_cancel_tag(srv_queue *q, unsigned tag);
/* Stop a worker (idle, session closed): its pending jobs fail with `why`. */
void srv_worker_stop(srv_worker *w, const char *why);

/* ---- Sessions (srv_session.c) -------------------------------------------------- */
/* session/mode answers kept per session: a mode projection is pure given the
 * text version, and editors and dashboards ask for the same few modes over
 * and over (issue 5's benchmark: 10,000 session/mode requests/s). */
#define SRV_MODE_CACHE 64
/* Longest session id, chosen by a client (session/open {session}) or made
 * from the instance name and a number. */
#define SRV_SESSION_ID_MAX 64
/* Longest instance name: "<instance>-s<20 digits>" fits an id. */
#define SRV_INSTANCE_MAX 32

typedef struct srv_session {
    uint64_t num;
    char id[SRV_SESSION_ID_MAX + 1]; /* "s<num>", "<instance>-s<num>" or
                                        the client's choice */
    char *text;    /* owned: the model text the router keeps */
    size_t len;
    cJSON *defines; /* owned or NULL */
    long version;
    srv_conn *owner; /* closes with it; NULL when persistent (not referenced) */
    char *owner_key; /* owned or NULL: the secret that scopes a client-chosen
                        id of a persistent session (issue 37 item 1); stored
                        with the row */
    char *uri;       /* LSP document, or NULL */
    bool modelica;   /* format "modelica" / languageId "modelica" (issue 11) */
    bool recover;    /* session/open {recover: true}: a syntax error leaves out
                        its statement, the rest loads (issue 36 item 2;
                        stored with a persistent session's row) */
    bool lsp_utf8;   /* LSP positions count UTF-8 bytes (negotiated by its
                        connection, issue 15); else UTF-16 units */
    srv_queue queue; /* its worker and jobs (srv_worker.c) */
    uint64_t last_used; /* uv_now */
    struct srv_session *prev, *next;
    /* session/mode results of the current version, keyed by the canonical
     * mode (srv_m_session.c); replaced round-robin. */
    struct srv_mode_cache {
        char *key;    /* owned; NULL: empty slot */
        long version; /* the text version it was computed from */
        char *text;   /* owned: the result's JSON text, spliced into replies */
        size_t len;
    } mode_cache[SRV_MODE_CACHE];
    unsigned mode_cache_next;
    /* LSP: uv_now() when the debounced check of the latest didChange is due
     * (0: none pending); see srv_lsp.c. */
    uint64_t lsp_due;
    long lsp_version; /* the client's textDocument.version (0: none given) */
    /* LSP: the document's check as work (issue 36 item 4; srv_lsp.c). */
    uint64_t lsp_epoch;        /* bumped when its checks are cancelled: a job
                                  of an older epoch is stale */
    uint64_t lsp_work_since;   /* uv_now when the work began; 0: none */
    uint64_t lsp_progress_due; /* uv_now when it reports progress; 0: not */
    uint64_t lsp_token;        /* its work-done progress token; 0: none */
    int lsp_progress;          /* none, being created, begun (srv_lsp.c) */
    const char *lsp_stage;     /* what runs (static string) */
} srv_session;

/* Is `id` usable as a session id or an instance name: 1 to max bytes of
 * letters, digits, '.', '_', '-'? */
bool srv_session_id_ok(const char *id, size_t max);

/* reload: the job that reloads the session's text into a fresh worker
 * (srv_queue.reload). want_id: the id the client chose, or NULL for a
 * fresh one; the caller has checked it with srv_session_id_ok and
 * srv_session_find (no session has it). */
int srv_session_new(srv_conn *owner, const char *want_id, const char *text, size_t len,
                    const cJSON *defines,
                    srv_job *(*reload)(srv_queue *q), srv_session **out);
srv_session *srv_session_of(srv_queue *q); /* the session embedding q */
srv_session *srv_session_find(const char *id);
srv_session *srv_session_find_uri(srv_conn *conn, const char *uri);
/* Close s for good: a persistent session leaves the store too. */
void srv_session_close(srv_session *s);
/* Free every session at shutdown; the store keeps the persistent ones. */
void srv_session_drop_all(void);
void srv_session_close_owned(srv_conn *conn); /* all non-persistent of conn */
void srv_session_expire(uint64_t now);        /* persistent idle ones */
/* Replace the text (takes ownership of text). */
void srv_session_set_text(srv_session *s, char *text, size_t len);
/* {text, name, defines} for s's current text: the params of the worker's
 * "load" and "diagnose"; owned by the caller, NULL on OOM. With "failed"
 * {rc, limit, value, message} when that text's analysis got a worker killed
 * at a limit (srv_queue.limited): the worker keeps it as the analysis's
 * failure and runs none. */
cJSON *srv_session_load_params(const srv_session *s);
/* Apply LSP-style edits: range in lines and UTF-16 characters, or UTF-8
 * bytes when the session's lsp_utf8 says so (protocol/rpc_lsp.h). MDAE_E_INVAL with *why set on a bad edit (the text
 * is then unchanged). */
int srv_session_apply_edits(srv_session *s, const cJSON *edits, const char **why);
/* The cached session/mode result for key at the current version, as JSON
 * text (borrowed, *len bytes, NUL-terminated), or NULL. */
const char *srv_session_mode_get(srv_session *s, const char *key, size_t *len /* out */);
/* Keep a result computed for `version` (its JSON text, len bytes, copied;
 * dropped when stale or out of memory). */
void srv_session_mode_put(srv_session *s, const char *key, long version,
                          const char *text /* borrowed */, size_t len);

/* ---- The worker process (server/worker/wk.h) --------------------------------------- */
typedef struct srv_worker_opts {
    size_t memory_mb;
    size_t node_limit, initial_nodes, cache_size;
    bool debug_methods;
    uint64_t timeout_ms; /* limits.request_timeout_ms (0: none): an analysis
                            stops itself a little before (issue 36) */
} srv_worker_opts;
#define SRV_EXIT_NOMEM 3 /* worker exit status: its memory cap was reached */
#define SRV_EXIT_PROTO 4 /* worker exit status: bad pipe traffic */

/* ---- The server (srv_loop.c) -------------------------------------------------------- */
typedef struct srv_server {
    uv_loop_t *loop;
    srv_config cfg;
    char exe[4096]; /* this binary, for spawning workers */
    uint64_t start_ms;
    int tcp_fd;   /* the listening socket, watched by tcp_poll */
    bool tcp_on;
    int tcp_port; /* the port bound (the configuration may say 0) */
    uv_pipe_t unix_listener;
    bool unix_on;
    uv_signal_t sigint, sigterm;
    uv_timer_t sweep;
    uv_timer_t drain;     /* SIGTERM: waiting for requests in flight */
    bool draining;
    uint64_t drain_until; /* uv_now when the grace period ends */
    uv_timer_t lsp_timer; /* debounced LSP checks (srv_lsp.c) */
    uv_timer_t conn_timer; /* connections' timeouts (srv_conn_check_all) */
    /* Accepting (srv_loop.c): mdaed accepts itself, so that at the
     * descriptor limit a client is answered and the refusal logged. */
    uv_poll_t tcp_poll, unix_poll;
    uv_timer_t accept_retry; /* polling paused: no spare descriptor */
    int spare_fd;            /* kept free for the refusal; -1: none */
    uint64_t nofile;         /* RLIMIT_NOFILE (soft) at start */
    uint64_t refused_logged; /* uv_now of the last refusal logged */
    uint64_t refused_quiet;  /* refusals since, not logged */
    uint64_t nofile_warned;  /* uv_now of the last near-the-limit warning */
    size_t partial_bytes;    /* held by every connection's framer */
    bool stopping;
    srv_conn *conns;
    size_t n_conns;
    uint64_t next_conn_id;
    srv_session *sessions;
    size_t n_sessions;
    uint64_t next_session_num;
    size_t n_workers;
    srv_queue *queues;                  /* every session's queue (srv_worker.c) */
    srv_queue *waiting, *waiting_tail;  /* queues waiting for a worker slot */
    size_t n_waiting_jobs;
    uint64_t next_wid;
    uint64_t requests; /* served, for server/status */
    /* Incremental analysis totals over all workers (issue 6): components
     * of the analysed models, reused from a worker's cache, recomputed. */
    uint64_t reuse_components, reuse_reused, reuse_recomputed;
    uint64_t reuse_seeded, reuse_searched; /* equations seeded, parts searched */
    /* Parts analysed anew by each method (issue 10), and fallbacks. */
    uint64_t reuse_implicit, reuse_enumerated, reuse_fell_back;
    /* Persistent sessions (srv_store.c): NULL when off. */
    struct sqlite3 *store;
    struct sqlite3_stmt *store_put, *store_del;
    int store_lock; /* the flock'd descriptor of the state directory */
} srv_server;

extern srv_server srv;

/* ---- Persistent sessions (srv_store.c) ------------------------------------------------ */
typedef struct srv_store_row {
    const char *id;
    const void *text; /* not NUL-terminated */
    size_t len;
    bool modelica;
    const char *defines; /* JSON object text, or NULL */
    long version;
    bool recover; /* session/open {recover} */
    uint64_t idle_ms; /* since its last change, by the wall clock */
} srv_store_row;

/* $XDG_STATE_HOME/mdae or $HOME/.local/state/mdae (malloc'd), NULL if
 * neither is set. */
char *srv_store_default_dir(void);
/* Create dir if needed, lock it, open DIR/sessions.db. MDAE_OK also when
 * another mdaed holds the directory (persistence is then off, with a
 * warning); MDAE_E_IO if it cannot be created or opened. */
int srv_store_open(const char *dir);
void srv_store_close(void); /* safe when not open */
bool srv_store_on(void);
/* Write s's row (id, text, format, defines, version, recover) if s is persistent
 * (owner NULL) and the store is open; durable when it returns MDAE_OK. */
int srv_store_put(const srv_session *s);
void srv_store_delete(const char *id);
/* Call each(row) for every stored session, in the order they were first
 * stored; stops at the first non-OK return, which it returns. Rows are
 * valid during the call only. */
int srv_store_each(int (*each)(const srv_store_row *row, void *arg), void *arg);

int srv_loop_run(void);
/* Stop accepting, close everything, let the loop end. */
void srv_loop_stop(const char *why);
/* Stop accepting, let the requests in flight finish (within
 * limits.shutdown_grace_ms), then srv_loop_stop. Persistent sessions are
 * already on disk (srv_store.c). */
void srv_loop_drain(const char *why);

#endif /* SRV_H */
