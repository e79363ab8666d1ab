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
 *   srv_store    -> its backends (srv_store_backend): srv_store_sqlite
 *                   (SQLite), srv_store_pg (PostgreSQL)
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

#include <limits.h>
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
    /* Issue 37 item 5: sessions per owner (a connection's own, or one owner
     * key's persistent ones); every persistent session without a key (HTTP,
     * persist: true) together, below max_sessions (0: half of it); and the
     * token bucket of each connection's session/open (0 per second: off). */
    size_t sessions_per_owner;
    size_t anonymous_sessions;
    size_t session_opens_per_second;
    size_t session_open_burst;
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
    char *store_url; /* store.url: a postgresql:// or postgres:// URL puts the
                        sessions in PostgreSQL (srv_store_pg.c); NULL: SQLite
                        in state_dir (owned) */
    /* Fault injection (tests, only with debug_methods; srv_store_sqlite.c):
     * the k-th write of the SQLite store (xWrite, xSync, xTruncate, counted
     * from its opening) fails; 0: none. "once": that write only, with
     * SQLITE_IOERR; "full": every xWrite and xTruncate from the k-th on,
     * with SQLITE_FULL (a disk that filled up). */
    size_t debug_store_fail_write;
    char *debug_store_fail_mode; /* "once" (NULL) or "full" (owned) */
    /* The browser boundary (issue 37 item 2; srv_http.c): NULL-terminated
     * lists (owned; NULL: empty). */
    char **http_allowed_hosts;   /* Host values accepted besides loopback
                                    names: "name" (any port) or "name:port" */
    char **http_allowed_origins; /* Origins accepted besides the page's own;
                                    they alone get CORS headers */
    /* Failed token attempts (issue 37 item 6; srv_m_server.c). */
    uint64_t auth_fail_delay_ms; /* the first failure's delay; doubles */
    size_t auth_max_failures;    /* per connection, then it is closed */
} srv_config;

void srv_config_default(srv_config *c /* out */);
/* Read a JSON-with-comments file over the defaults. MDAE_OK, MDAE_E_IO
 * (unreadable), MDAE_E_PARSE (not JSON or a bad value: *err says which). */
int srv_config_load(srv_config *c, const char *path, char *err, size_t errlen);
void srv_config_close(srv_config *c);
/* Append a copy of value to the NULL-terminated list *list (--allow-host).
 * MDAE_OK or MDAE_E_NOMEM (the list unchanged). */
int srv_config_list_add(char ***list, const char *value);

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
    unsigned auth_failures; /* wrong tokens so far (srv_auth_failed) */
    bool auth_waiting;      /* a failure's answer is being delayed */
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
    bool lsp_create_files;  /* the client takes a workspace/applyEdit that
                               creates a file (workspace.applyEdit,
                               workspaceEdit.resourceOperations "create"):
                               srv_lsp_rimis.c */
    bool lsp_show_document; /* window.showDocument.support */
    uint64_t lsp_rimis_edit; /* the last mdae.rimis applyEdit sent */
    char *lsp_rimis_uri;     /* owned: the file it creates, until answered */
    /* Sessions (issue 37, srv_m_session.c): the token bucket of this
     * connection's session/open (limits.session_opens_per_second and
     * session_open_burst): opens spent and not yet refilled as of open_at
     * (uv_now); zero, as calloc leaves it, is a full bucket. */
    double open_debt;
    uint64_t open_at;
    /* HTTP: the current exchange's X-Mdae-Owner header (an owner key),
     * borrowed from the frame while its body is dispatched, else NULL. */
    const char *http_owner;
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
srv_method_fn srv_m_open, srv_m_edit, srv_m_analyze, srv_m_close, srv_m_mode, srv_m_forward,
    srv_m_approx, srv_m_rimis;
/* The job that reloads a session's text into a fresh worker (the reload of
 * every session's queue; srv_lsp.c gives it to the documents' sessions). */
srv_job *srv_m_session_reload(srv_queue *q);
/* At startup: open the store and take back its sessions (their workers
 * start on first use); those idle longer than limits.session_idle_ms are
 * deleted instead. MDAE_E_IO if the state directory is unusable. */
int srv_m_session_restore(void);
srv_method_fn srv_m_status, srv_m_auth;
srv_notification_fn srv_m_cancel;
/* A wrong access token on conn (issue 37 item 6; srv_m_server.c): the
 * failure is answered by answer(conn, arg, last) from a timer, after
 * auth.fail_delay_ms doubled for each recent earlier failure from the same
 * peer address (at most 16 times it), which stays locked (srv_auth_locked)
 * as long; last is true when the connection has used up
 * auth.max_failures (the answer ends it then). The connection is
 * referenced meanwhile and conn->auth_waiting is set; answer runs even if
 * the connection closed (it must check conn->closing). The loop never
 * blocks. */
typedef void srv_auth_answer_fn(srv_conn *conn, void *arg, bool last);
void srv_auth_failed(srv_conn *conn, srv_auth_answer_fn *answer, void *arg);
/* May conn try a token now? 0 when it may; else the milliseconds its peer
 * address stays locked after recent failures (issue 37 item 6): the token
 * must then be refused without being checked. */
uint64_t srv_auth_locked(srv_conn *conn);
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
/* The document uri of conn, with its debounced check run first if one is
 * due (the worker then answers about the text the client sees); NULL when
 * conn has no such document. */
struct srv_session *srv_lsp_document(srv_conn *conn, const char *uri);
/* srv_lsp_rimis.c (issue 39 item 5): textDocument/codeAction, the command
 * mdae.rimis (arguments: workspace/executeCommand's), and the client's
 * answer to its workspace/applyEdit (true when m was that answer). */
#define SRV_LSP_RIMIS "mdae.rimis"
srv_method_fn srv_lsp_code_action;
void srv_lsp_rimis(srv_call *call, const cJSON *args /* borrowed */);
bool srv_lsp_rimis_response(srv_conn *conn, const rpc_msg *m /* borrowed */);
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
 * by the server (SRV_SESSION_MADE_LEN). */
#define SRV_SESSION_ID_MAX 64
/* A server-made id (issue 37 item 1) is a capability: "s" and 26 lowercase
 * base32 letters carrying 128 random bits from the kernel (getrandom), so
 * that holding the id is the right to use the session and nobody can guess
 * one; "<instance>-" in front when an instance name is configured (HAProxy
 * routes on it, conf/haproxy.cfg). */
#define SRV_SESSION_MADE_LEN 27
/* Longest instance name: "<instance>-" and a made id fit SRV_SESSION_ID_MAX. */
#define SRV_INSTANCE_MAX 32
/* Highest text version (issue 37 item 5): a stored version outside
 * 1..SRV_VERSION_MAX is refused at load, an edit past it is refused; a
 * version never wraps. (long is 64 bits on every platform mdaed runs on.) */
#define SRV_VERSION_MAX (LONG_MAX - 1)

/* An owner key (session/open {owner}, or HTTP's X-Mdae-Owner): a client's
 * secret of at least 128 bits, 22 to 128 of A-Z a-z 0-9 '_' '-' (base64url:
 * Python's secrets.token_urlsafe(16) makes one). */
#define SRV_OWNER_KEY_MIN 22
#define SRV_OWNER_KEY_MAX 128

typedef struct srv_session {
    char id[SRV_SESSION_ID_MAX + 1]; /* made ("s..." or "<instance>-s...":
                                        SRV_SESSION_MADE_LEN) or the
                                        client's choice, unique within its
                                        owner's scope only */
    char *text;    /* owned: the model text the router keeps; NULL while a
                      restored session's text is still only in the store
                      (loaded on first use: srv_session_load_text) */
    size_t len;
    cJSON *defines; /* owned or NULL */
    long version;
    srv_conn *owner; /* closes with it, and only it can name the session;
                        NULL when persistent (not referenced) */
    char *owner_key; /* owned or NULL: the secret given at open (issue 37
                        item 1), required on every call naming the session;
                        it scopes a client-chosen id of a persistent session
                        (two owners may each have "mine"); stored with the
                        row, whose key is (id, owner_key) */
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
    /* The second stage's diagnostics of its last complete check (owned, or
     * NULL): carried into the next first publication until the next
     * second stage gives its own (srv_lsp.c, issue 40 item 5). */
    cJSON *lsp_late;
} srv_session;

typedef struct srv_store_row srv_store_row; /* srv_store.c, below */

/* Is `id` usable as a session id or an instance name: 1 to max bytes of
 * letters, digits, '.', '_', '-'? */
bool srv_session_id_ok(const char *id, size_t max);
/* Is `id` shaped as a server-made id (SRV_SESSION_MADE_LEN, an instance
 * prefix or none)? Shape only: it says nothing of who made it. */
bool srv_session_id_made(const char *id);
/* Is `key` a usable owner key (SRV_OWNER_KEY_MIN..MAX of base64url)? */
bool srv_owner_key_ok(const char *key);

/* Ownership (issue 37 item 1; docs/security.md "Sessions and their owners").
 * A session is visible to a request of connection `conn` giving owner key
 * `key` (NULL: none) when
 *   - it is not an LSP document's (those are reached by URI only), and
 *   - it is persistent (owner NULL) or conn's own, and
 *   - it has no owner key, or key equals it (compared in constant time).
 * Every other session is, to that request, one that does not exist.
 * srv_session_lookup returns the visible session named id, preferring the
 * one of key, then conn's own, then a persistent one without a key (its
 * made id is the capability); NULL when none is visible. */
srv_session *srv_session_lookup(srv_conn *conn, const char *id, const char *key);
/* Would a session opened with this chosen id clash in its owner's scope:
 * for a connection-owned one (owner conn) a session of conn with that id,
 * for a persistent one (owner NULL, key given) one of that key? */
bool srv_session_id_taken(srv_conn *owner, const char *id, const char *key);
/* Sessions in the quota class of a new session of (owner, key)
 * (srv_m_session.c): owner's when owner is set, else key's, else every
 * persistent session without a key (the anonymous class). */
size_t srv_session_count_class(const srv_conn *owner, const char *key);

/* reload: the job that reloads the session's text into a fresh worker
 * (srv_queue.reload). want_id: the id the client chose (checked with
 * srv_session_id_ok and srv_session_id_taken), or NULL for a fresh made
 * one, never used before by any session of this server. key: the owner key
 * (copied), or NULL. MDAE_E_LIMIT at limits.max_sessions, MDAE_E_IO when
 * the kernel gives no random bytes (no fallback), MDAE_E_NOMEM. */
int srv_session_new(srv_conn *owner, const char *want_id, const char *key, const char *text,
                    size_t len, const cJSON *defines,
                    srv_job *(*reload)(srv_queue *q), srv_session **out);
srv_session *srv_session_of(srv_queue *q); /* the session embedding q */
srv_session *srv_session_find_uri(srv_conn *conn, const char *uri);
/* Close s for good: a persistent session leaves the store first. MDAE_OK;
 * MDAE_E_NOTSAVED (err says why, when err is not NULL) if its row cannot
 * be deleted: s then stays, in memory and in the store. */
int srv_session_close(srv_session *s, char *err, size_t errlen);
/* Drop s from memory only (its row, if any, stays in the store). */
void srv_session_forget(srv_session *s);
/* A session from a stored row (srv_store_row; its text, or none yet when
 * row->text is NULL). MDAE_E_STATE when the row is refused (an unusable or
 * taken id, a version outside 1..SRV_VERSION_MAX, defines that are not
 * JSON: logged), MDAE_E_LIMIT, MDAE_E_NOMEM. */
int srv_session_restore(const srv_store_row *row, srv_job *(*reload)(srv_queue *q),
                        srv_session **out);
/* Load on miss: the session (id, owner_key) that no session in memory has,
 * from the store (another instance may have written it); with a key and a
 * made id, the keyless row when there is no keyed one (as
 * srv_session_lookup serves a keyless session). MDAE_E_STATE when
 * the store has none (or refuses it), MDAE_E_IO, MDAE_E_LIMIT. */
int srv_session_load_stored(const char *id, const char *owner_key,
                            srv_job *(*reload)(srv_queue *q), srv_session **out);
/* Lazy loading: read s's text from the store if it is not in memory yet.
 * MDAE_OK; MDAE_E_STATE (its row is gone or refused), MDAE_E_IO. */
int srv_session_load_text(srv_session *s);
/* Free every session at shutdown; the store keeps the persistent ones. */
void srv_session_drop_all(void);
void srv_session_close_owned(srv_conn *conn); /* all non-persistent of conn */
void srv_session_expire(uint64_t now);        /* persistent idle ones */
/* Replace the text (takes ownership of text, freed on failure) and bump the
 * version, a persistent session's row first (srv_store_put, conditional on
 * the old version). MDAE_OK; MDAE_E_NOTSAVED or MDAE_E_CONFLICT (the store
 * refused), MDAE_E_LIMIT (the version would pass SRV_VERSION_MAX), err
 * saying why: the session is then exactly as before. */
int srv_session_set_text(srv_session *s, char *text, size_t len, char *err, size_t errlen);
/* {text, name, defines} for s's current text: the params of the worker's
 * "load" and "diagnose"; owned by the caller, NULL on OOM. With "failed"
 * {rc, limit, value, message} when that text's analysis got a worker killed
 * at a limit (srv_queue.limited): the worker keeps it as the analysis's
 * failure and runs none. */
cJSON *srv_session_load_params(const srv_session *s);
/* Apply LSP-style edits: range in lines and UTF-16 characters, or UTF-8
 * bytes when the session's lsp_utf8 says so (protocol/rpc_lsp.h), all or
 * none. MDAE_E_INVAL with *why set on a bad edit; srv_session_set_text's
 * errors with *why = err; the text and version are then unchanged. */
int srv_session_apply_edits(srv_session *s, const cJSON *edits, const char **why, char *err,
                            size_t errlen);
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

typedef struct srv_store_backend srv_store_backend; /* srv_store.c, below */

/* ---- The server (srv_loop.c) -------------------------------------------------------- */
#define SRV_AUTH_PEERS 64 /* peer addresses remembered for wrong tokens */
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
    /* Persistent sessions (srv_store.c): store NULL when off. */
    const srv_store_backend *store_backend;
    void *store; /* the backend's handle */
    /* Wrong access tokens by peer address (srv_m_server.c, issue 37 item
     * 6): after a failure its address is locked for a while, and tokens
     * from it are refused unchecked until then. */
    struct srv_auth_peer {
        unsigned char addr[16]; /* IPv4, or an IPv6 /64 prefix */
        unsigned failures;      /* recent ones; 0: a free slot */
        uint64_t lock_until;    /* uv_now */
    } auth_peers[SRV_AUTH_PEERS];
} srv_server;

extern srv_server srv;

/* ---- Persistent sessions (srv_store.c; backends srv_store_sqlite.c, srv_store_pg.c) ---- */
/* Issue 37 items 3-4. srv_store.c is the policy every caller sees (which
 * sessions persist, what an error means to the reply); a backend is the
 * mechanism (SQLite for one instance, PostgreSQL for a cluster), chosen by
 * the configuration's store URL (store.url). All calls are synchronous, on
 * the loop thread. A write returns only once it has committed durably.
 *
 * A row is keyed by (id, owner_key), owner_key '' standing for NULL: a
 * client-chosen id is scoped by its owner's key (issue 37 item 1). Each
 * row carries the session's text version; every write is conditional on
 * the version the writer last saw (put's expect), so two writers (two
 * instances of a cluster) can never both accept a change of one session. */
typedef struct srv_store_row {
    const char *id;
    const char *owner_key; /* or NULL */
    const void *text;      /* not NUL-terminated; NULL from each() (lazy) */
    size_t len;            /* the text's length (each() gives it too) */
    bool modelica;
    const char *defines; /* JSON object text, or NULL */
    long version;
    bool recover;        /* session/open {recover} */
    uint64_t idle_ms;    /* since its last change, by the wall clock */
} srv_store_row;

/* Rows handed to a callback are valid during the call only. */
typedef int (*srv_store_row_cb)(const srv_store_row *row, void *arg);

struct srv_store_backend {
    const char *name; /* "sqlite", "postgresql" */
    /* Open (creating what is missing) the store at `where` (a directory for
     * SQLite, a libpq connection URL for PostgreSQL) into *db. MDAE_OK;
     * MDAE_E_IO or MDAE_E_STATE (locked by another mdaed, corrupt) with a
     * message in err that says what to do. */
    int (*open)(void **db /* out */, const char *where, char *err, size_t errlen);
    void (*close)(void *db);
    /* Write s's row (id, owner_key, text, modelica, defines, version,
     * recover; the wall clock as its last change) if the stored row's
     * version is `expect` (0: there must be no row). MDAE_OK once
     * committed; MDAE_E_CONFLICT when the stored version is another (or a
     * row exists for expect 0): nothing written; MDAE_E_NOTSAVED when the
     * write failed (err says why: disk full, read-only, ...), the store
     * then being as before the call. */
    int (*put)(void *db, const srv_session *s, long expect, char *err, size_t errlen);
    /* Delete the row of (id, owner_key). MDAE_OK (also when there was
     * none), MDAE_E_NOTSAVED (err says why; the row is still there). */
    int (*del)(void *db, const char *id, const char *owner_key, char *err, size_t errlen);
    /* One row, text included: got(row) is called once and its return is
     * returned; MDAE_E_STATE (no such row, got not called), MDAE_E_IO. */
    int (*get)(void *db, const char *id, const char *owner_key, srv_store_row_cb got,
               void *arg);
    /* Every row without its text (row.text NULL, row.len its length),
     * oldest first; stops at the first non-OK return of each, which it
     * returns. MDAE_E_IO if the rows cannot be read. */
    int (*each)(void *db, srv_store_row_cb each, void *arg);
    /* Optional (NULL): {"writes": n, ...} facts for server/status. */
    cJSON *(*status)(void *db);
    /* Optional (NULL when one instance owns the store, as SQLite's does):
     * the stored version of (id, owner_key) into *out, for a store that
     * other instances write (PostgreSQL): one indexed read. MDAE_OK,
     * MDAE_E_STATE (no such row: another instance closed it), MDAE_E_IO. */
    int (*version)(void *db, const char *id, const char *owner_key, long *out /* out */);
};

extern const srv_store_backend srv_store_sqlite;
extern const srv_store_backend srv_store_pg;

/* $XDG_STATE_HOME/mdae or $HOME/.local/state/mdae (malloc'd), NULL if
 * neither is set. */
char *srv_store_default_dir(void);
/* Open the configured store (srv.cfg.store_url: a postgresql:// or
 * postgres:// URL; else the SQLite file in dir; neither: no store, MDAE_OK).
 * MDAE_OK; anything else means mdaed must not start (the log says why and
 * what to do). */
int srv_store_open(const char *dir);
void srv_store_close(void); /* safe when not open */
bool srv_store_on(void);
/* Does s persist (owner NULL and the store open)? */
bool srv_store_keeps(const srv_session *s);
/* Write s's row if srv_store_keeps(s), conditional on the version the
 * store has (expect; 0 for a new session). MDAE_OK when durable (or nothing
 * to do); MDAE_E_NOTSAVED or MDAE_E_CONFLICT otherwise, with err saying
 * why: the caller must not acknowledge the change. */
int srv_store_put(const srv_session *s, long expect, char *err, size_t errlen);
/* Delete s's row if srv_store_keeps(s). MDAE_OK, or MDAE_E_NOTSAVED (err). */
int srv_store_delete(const srv_session *s, char *err, size_t errlen);
/* Delete a row by its key (start-up expiry). */
int srv_store_delete_row(const char *id, const char *owner_key);
/* Is the store shared with other instances (a cluster on PostgreSQL), so
 * that a session held in memory may be stale? */
bool srv_store_shared(void);
/* The stored version of s (srv_store_shared only; see
 * srv_store_backend.version): MDAE_OK, MDAE_E_STATE (no row), MDAE_E_IO. */
int srv_store_version(const srv_session *s, long *out /* out */);
/* Load one stored row (text included): see srv_store_backend.get. */
int srv_store_get(const char *id, const char *owner_key, srv_store_row_cb got, void *arg);
/* Call each(row) for every stored session (text NULL), oldest first. */
int srv_store_each(srv_store_row_cb each, void *arg);
/* {"backend", ...} for server/status (owned), or NULL when off. */
cJSON *srv_store_status(void);

int srv_loop_run(void);
/* Stop accepting, close everything, let the loop end. */
void srv_loop_stop(const char *why);
/* Stop accepting, let the requests in flight finish (within
 * limits.shutdown_grace_ms), then srv_loop_stop. Persistent sessions are
 * already on disk (srv_store.c). */
void srv_loop_drain(const char *why);

#endif /* SRV_H */
