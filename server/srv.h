/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv.h -- everything server-wide in mdaed, grouped by the .c file that
 * implements it (Redis's server.h layout).
 *
 * Process model (issue 5 section 1): one libuv loop process (the *router*)
 * owns every client connection and every session's model text; each session
 * is served by its own worker process (`mdaed --worker`, the same binary)
 * holding that session's BuDDy manager, model and results, because BuDDy
 * keeps one global manager per process. Router and worker talk JSON-RPC over
 * the worker's stdin/stdout with Content-Length framing.
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

/* ---- Logging (srv_main.c) ------------------------------------------------- */
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
    size_t max_message_bytes;
    size_t max_sessions;
    size_t max_workers;
    size_t worker_memory_mb; /* 0: no cap */
    uint64_t request_timeout_ms;
    uint64_t cancel_grace_ms;
    uint64_t worker_idle_ms;
    uint64_t session_idle_ms;
    uint64_t lsp_debounce_ms; /* quiet time after didChange before the
                                 diagnostics run; 0: at once (issue 6) */
    size_t write_queue_bytes;
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

typedef struct srv_conn {
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
    bool closing;
    int pending_closes; /* handle closes still outstanding */
    int refs;           /* srv_call references */
    rpc_framer fr;
    size_t queued;      /* bytes handed to uv_write and not yet written */
    bool authed;        /* token checked (or not needed) */
    /* HTTP: one exchange at a time */
    bool http_busy;
    int http_outstanding; /* responses still owed to the current request */
    bool http_keep_alive;
    /* LSP */
    bool lsp_shutdown;
    /* Graceful end (srv_conn_end): the peer finished sending, or we are done;
     * close once the replies owed and the bytes queued are out. */
    bool read_eof;
    bool ending;
    const char *end_why; /* static string */
    uv_shutdown_t shutdown;
    struct srv_conn *prev, *next;
} srv_conn;

/* Take over an accepted stream (already initialised by the caller in
 * conn->h) and start reading. On failure the connection is closed. */
void srv_conn_start(srv_conn *conn);
srv_conn *srv_conn_new(srv_conn_kind kind);
/* Open the stdio connection (fd 0 in, fd 1 out). */
int srv_conn_open_stdio(void);
/* Close once (safe twice); the memory goes when the last close callback has
 * run and no call references it. */
void srv_conn_close(srv_conn *conn, const char *why);
/* Close gracefully: stop reading, let queued writes reach the peer
 * (uv_shutdown), then srv_conn_close. why is a static string. */
void srv_conn_end(srv_conn *conn, const char *why);
void srv_conn_ref(srv_conn *conn);
void srv_conn_unref(srv_conn *conn);
/* Write one message (framed for the connection). Takes ownership of msg.
 * is_response: counts against an HTTP exchange (notifications do not).
 * Errors close the connection (nobody to tell). */
void srv_conn_send(srv_conn *conn, cJSON *msg /* takes */, bool is_response);
/* The same for a message already printed (body borrowed). */
void srv_conn_send_text(srv_conn *conn, const char *body, size_t len, bool is_response);
/* Write raw bytes (takes ownership of data, allocated with mdae_malloc). */
void srv_conn_write(srv_conn *conn, char *data /* takes */, size_t len);

/* ---- Calls and batches (srv_router.c) --------------------------------------- */
typedef struct srv_batch srv_batch;

/* A client request waiting for its reply. */
typedef struct srv_call {
    srv_conn *conn; /* referenced */
    cJSON *id;      /* owned copy */
    char *method;   /* owned, for logs and cancel */
    srv_batch *batch; /* referenced, or NULL */
} srv_call;

srv_call *srv_call_new(srv_conn *conn, const cJSON *id, const char *method, srv_batch *batch);
/* Answer and free the call. Takes ownership of response (a whole JSON-RPC
 * response built for call->id). */
void srv_call_reply(srv_call *call, cJSON *response /* takes */);
void srv_call_result(srv_call *call, cJSON *result /* takes */);
/* Answer with a result already printed as JSON text (borrowed). */
void srv_call_result_text(srv_call *call, const char *result);
void srv_call_error(srv_call *call, int code, const char *message, cJSON *data /* takes */);
void srv_call_mdae_error(srv_call *call, int rc, const char *message, cJSON *details);
/* Send a notification to the call's connection (if still open). */
void srv_call_notify(srv_call *call, const char *method, cJSON *params /* takes */);

/* Hand one frame body from a connection to the router. */
void srv_router_frame(srv_conn *conn, const rpc_frame *frame);
/* A "diagnose" job finished: publish an LSP document's diagnostics (takes
 * ownership of diagnostics; NULL publishes an empty list). */
void srv_router_lsp_done(srv_conn *conn, const char *uri, cJSON *diagnostics);
/* Same, with the document version the client gave (LSP's optional
 * PublishDiagnosticsParams.version; < 0: none). */
void srv_router_lsp_done_version(srv_conn *conn, const char *uri, long lsp_version,
                                 cJSON *diagnostics);

/* ---- Sessions (srv_session.c) -------------------------------------------------- */
/* session/mode answers kept per session: a mode projection is pure given the
 * text version, and editors and dashboards ask for the same few modes over
 * and over (issue 5's benchmark: 10,000 session/mode requests/s). */
#define SRV_MODE_CACHE 64
typedef struct srv_worker srv_worker;

typedef struct srv_session {
    uint64_t num;
    char id[24];   /* "s<num>" */
    char *text;    /* owned: the model text the router keeps */
    size_t len;
    cJSON *defines; /* owned or NULL */
    long version;
    srv_conn *owner; /* closes with it; NULL when persistent (not referenced) */
    char *uri;       /* LSP document, or NULL */
    srv_worker *worker; /* NULL when stopped */
    uint64_t last_used; /* uv_now */
    struct srv_session *prev, *next;
    /* Jobs waiting for a worker slot (max_workers reached, all busy), in
     * order, and the session's place in srv.waiting. */
    struct srv_job *wait_head, *wait_tail;
    struct srv_session *wait_next;
    bool waiting;
    /* session/mode results of the current version, keyed by the canonical
     * mode (srv_router.c); replaced round-robin. */
    struct srv_mode_cache {
        char *key;    /* owned; NULL: empty slot */
        long version; /* the text version it was computed from */
        cJSON *result; /* owned */
        char *text;    /* owned: result printed, spliced into replies */
    } mode_cache[SRV_MODE_CACHE];
    unsigned mode_cache_next;
    /* LSP: uv_now() when the debounced check of the latest didChange is due
     * (0: none pending); see srv_router.c, lsp_schedule. */
    uint64_t lsp_due;
    long lsp_version; /* the client's textDocument.version (0: none given) */
} srv_session;

int srv_session_new(srv_conn *owner, const char *text, size_t len, const cJSON *defines,
                    srv_session **out);
srv_session *srv_session_find(const char *id);
srv_session *srv_session_find_uri(srv_conn *conn, const char *uri);
void srv_session_close(srv_session *s);
void srv_session_close_owned(srv_conn *conn); /* all non-persistent of conn */
void srv_session_expire(uint64_t now);        /* persistent idle ones */
/* Replace the text (takes ownership of text). */
void srv_session_set_text(srv_session *s, char *text, size_t len);
/* The params of the worker's "load" and "diagnose" ({text, name, defines}) for s's
 * current text; owned by the caller, NULL on OOM. */
cJSON *srv_session_load_params(const srv_session *s);
/* Apply LSP-style edits: range in lines and UTF-16 characters. MDAE_E_INVAL
 * with *why set on a bad edit (the text is then unchanged). */
int srv_session_apply_edits(srv_session *s, const cJSON *edits, const char **why);
/* The cached session/mode result for key at the current version, or NULL
 * (borrowed; *text, when not NULL, receives the printed form). */
const cJSON *srv_session_mode_get(srv_session *s, const char *key, const char **text);
/* Keep a result computed for `version` (takes ownership of result). */
void srv_session_mode_put(srv_session *s, const char *key, long version, cJSON *result);

/* ---- Workers, router side (srv_worker.c) ---------------------------------------- */
typedef enum srv_job_kind {
    SRV_JOB_RAW,  /* reply the worker's answer to the call as it is */
    SRV_JOB_OPEN, /* session/open: on error close the session */
    SRV_JOB_EDIT, /* session/edit: add the version */
    SRV_JOB_LOAD, /* reload after a restart: no call */
    SRV_JOB_LSP,  /* publish diagnostics for an LSP document */
    SRV_JOB_MODE  /* session/mode: reply, and keep the result (cache_key) */
} srv_job_kind;

typedef struct srv_job {
    uint64_t wid; /* id on the worker pipe */
    srv_job_kind kind;
    char *method;  /* owned: the worker method */
    cJSON *params; /* owned until sent */
    srv_call *call; /* owned; NULL for LOAD and LSP */
    srv_conn *conn; /* LSP: referenced connection to publish on */
    char *uri;      /* LSP: owned */
    char *cache_key; /* MODE: owned */
    long version;   /* EDIT/LSP: the session version it was built for */
    long lsp_version; /* LSP: the client's document version, -1: none */
    bool stream;    /* forward progress notifications */
    bool want_reuse; /* analyze: the client asked for the "reuse" member */
    bool started;   /* sent to the worker */
    bool cancelled;
    struct srv_job *next;
} srv_job;

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
    srv_session *session; /* back pointer; NULL once detached */
    srv_job *head, *tail; /* head runs once started */
    char *kill_cause;     /* why the router killed it (owned) */
    int kill_rc;          /* MDAE_E_TIMEOUT, MDAE_E_CANCELED, ... */
};

/* Queue a job on the session's worker, starting one (and reloading the
 * kept text) if needed. Takes ownership of job. On failure the job's call is
 * answered with the error. */
void srv_worker_submit(srv_session *s, srv_job *job /* takes */);
srv_job *srv_job_new(srv_job_kind kind, const char *method, cJSON *params /* takes */,
                     srv_call *call /* takes */);
void srv_job_free(srv_job *job);
/* Stop a worker (idle, session closed): its pending jobs fail with `why`. */
void srv_worker_stop(srv_worker *w, const char *why);
/* $/cancelRequest from conn for request id. True if a job was found. */
bool srv_worker_cancel(srv_conn *conn, const cJSON *id);
/* A newer didChange: drop the session's LSP checks that have not started
 * and ask the worker to stop the running one (its stale answer is dropped
 * anyway). */
void srv_worker_cancel_lsp(srv_session *s);
/* A session closes: fail the jobs it has waiting for a worker slot. */
void srv_worker_forget_waiting(srv_session *s);

/* ---- The worker process (srv_workermain.c) --------------------------------------- */
typedef struct srv_worker_opts {
    size_t memory_mb;
    size_t node_limit, initial_nodes, cache_size;
    bool debug_methods;
} srv_worker_opts;
#define SRV_EXIT_NOMEM 3 /* worker exit status: its memory cap was reached */
#define SRV_EXIT_PROTO 4 /* worker exit status: bad pipe traffic */
int srv_worker_main(const srv_worker_opts *o);

/* ---- The server (srv_loop.c) -------------------------------------------------------- */
typedef struct srv_server {
    uv_loop_t *loop;
    srv_config cfg;
    char exe[4096]; /* this binary, for spawning workers */
    uint64_t start_ms;
    uv_tcp_t tcp;
    bool tcp_on;
    uv_pipe_t unix_listener;
    bool unix_on;
    uv_signal_t sigint, sigterm;
    uv_timer_t sweep;
    uv_timer_t lsp_timer; /* debounced LSP checks (srv_router.c) */
    bool stopping;
    srv_conn *conns;
    size_t n_conns;
    uint64_t next_conn_id;
    srv_session *sessions;
    size_t n_sessions;
    uint64_t next_session_num;
    size_t n_workers;
    srv_session *waiting, *waiting_tail; /* sessions waiting for a worker slot */
    size_t n_waiting_jobs;
    uint64_t next_wid;
    uint64_t requests; /* served, for server/status */
    /* Incremental analysis totals over all workers (issue 6): components
     * of the analysed models, reused from a worker's cache, recomputed. */
    uint64_t reuse_components, reuse_reused, reuse_recomputed;
    uint64_t reuse_seeded, reuse_searched; /* equations seeded, parts searched */
} srv_server;

extern srv_server srv;

int srv_loop_run(void);
/* Stop accepting, close everything, let the loop end. */
void srv_loop_stop(const char *why);

#endif /* SRV_H */
