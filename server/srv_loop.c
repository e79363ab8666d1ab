/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_loop.c -- mdaed's event loop: listeners, accept, signals, the
 * sweep timer, shutdown.
 *
 * One iteration of the loop, as mdaed uses it (libuv runs timers, then I/O
 * callbacks, then close callbacks):
 *   1. timers   -- a worker's time budget or cancel grace period expires (the
 *                  worker is killed, its requests fail naming the cause); an
 *                  idle worker is stopped; the once-a-second sweep expires
 *                  idle persistent sessions.
 *   2. accept   -- on_connection: a new srv_conn, reading starts.
 *   3. read     -- on_read (srv_conn.c): bytes go to the connection's framer.
 *   4. frame    -- the framer detects NDJSON / LSP / HTTP on the first bytes
 *                  and cuts frames; one read (at most SRV_READ_BUFFER bytes)
 *                  is framed in one go, which bounds the work per callback.
 *   5. route    -- on_conn_frame: HTTP to srv_http.c, JSON-RPC bodies to
 *                  srv_router_body: parse, then the method's handler
 *                  (srv_methods.c) either answers at once (server/status,
 *                  errors) or makes a job.
 *   6. hand off -- srv_queue_submit queues the job on the session's worker
 *                  (spawned on demand with uv_spawn); one job at a time runs
 *                  per worker, its reply comes back in on_worker_read and
 *                  goes to the job's done callback, which answers.
 *   7. write    -- replies and notifications are framed for the connection
 *                  and uv_write'n; a client whose write queue passes its cap
 *                  is cut off.
 *   8. close    -- srv_conn_close / worker exit: handles are closed once and
 *                  freed in the last close callback (STYLE.md section 10).
 * Nothing blocks in this process: BDD work happens only in workers.
 */
#include "srv.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

srv_server srv;

/* A frame from a connection: HTTP exchanges (srv_http.c) or JSON-RPC bodies
 * (srv_router.c). */
static void on_conn_frame(srv_conn *c, const rpc_frame *f)
{
    MDAE_LOG(SRV_LOG_DEBUG, "conn %llu: -> (%s) %.*s", (unsigned long long)c->id,
             rpc_framing_name(f->framing), (int)(f->len > 300 ? 300 : f->len), f->body);
    if (f->framing == RPC_FRAMING_HTTP)
        srv_http_frame(c, f);
    else
        srv_router_body(c, f->body, f->len);
}

/* A connection closes: its sessions (not the persistent ones) go with it,
 * and when it is the stdio client, the server too. */
static void on_conn_close(srv_conn *c)
{
    srv_session_close_owned(c);
    if (c->kind == SRV_CONN_STDIO)
        srv_loop_stop("the stdio client went away");
}

static void on_connection(uv_stream_t *server, int status)
{
    if (status < 0) {
        MDAE_LOG(SRV_LOG_WARN, "accept failed: %s", uv_strerror(status));
        return;
    }
    srv_conn_kind kind = server == (uv_stream_t *)&srv.tcp ? SRV_CONN_TCP : SRV_CONN_UNIX;
    srv_conn *c = srv_conn_new(kind, on_conn_frame, on_conn_close);
    if (c == NULL) {
        MDAE_LOG(SRV_LOG_ERROR, "out of memory accepting a connection");
        return;
    }
    int rc = kind == SRV_CONN_TCP ? uv_tcp_init(srv.loop, &c->h.tcp)
                                  : uv_pipe_init(srv.loop, &c->h.pipe, 0);
    if (rc < 0) {
        mdae_free(c);
        return;
    }
    c->h.tcp.data = c; /* every member of the union starts with uv_handle_t */
    c->rd = c->wr = (uv_stream_t *)&c->h;
    rc = uv_accept(server, c->rd);
    if (kind == SRV_CONN_TCP && rc == 0)
        uv_tcp_nodelay(&c->h.tcp, 1); /* small replies: don't wait for Nagle */
    srv_conn_start(c);
    if (rc < 0)
        srv_conn_close(c, "accept failed");
}

static bool is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        static const unsigned char lo[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        return memcmp(&in6->sin6_addr, lo, 16) == 0;
    }
    return false;
}

static int listen_tcp(const char *addr)
{
    char host[256];
    const char *colon = strrchr(addr, ':');
    if (colon == NULL || (size_t)(colon - addr) >= sizeof host) {
        MDAE_LOG(SRV_LOG_ERROR, "listen address %s: want HOST:PORT", addr);
        return MDAE_E_INVAL;
    }
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = '\0';
    int port = atoi(colon + 1);
    char *h = host;
    if (h[0] == '[') { /* [::1]:7420 */
        h++;
        h[strlen(h) - 1] = '\0';
    }
    struct sockaddr_storage ss;
    int rc = uv_ip4_addr(h, port, (struct sockaddr_in *)&ss);
    if (rc < 0)
        rc = uv_ip6_addr(h, port, (struct sockaddr_in6 *)&ss);
    if (rc < 0) {
        MDAE_LOG(SRV_LOG_ERROR, "listen address %s: not an IP address", addr);
        return MDAE_E_INVAL;
    }
    if (!is_loopback((struct sockaddr *)&ss) &&
        (srv.cfg.token == NULL || srv.cfg.token[0] == '\0')) {
        MDAE_LOG(SRV_LOG_ERROR, "refusing to listen on non-loopback %s without an access token "
                                "(\"token\" in the configuration)", addr);
        return MDAE_E_INVAL;
    }
    uv_tcp_init(srv.loop, &srv.tcp);
    srv.tcp_on = true;
    rc = uv_tcp_bind(&srv.tcp, (struct sockaddr *)&ss, 0);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&srv.tcp, 511, on_connection);
    if (rc < 0) {
        MDAE_LOG(SRV_LOG_ERROR, "cannot listen on %s: %s", addr, uv_strerror(rc));
        return MDAE_E_IO;
    }
    struct sockaddr_storage bound;
    int blen = sizeof bound;
    uv_tcp_getsockname(&srv.tcp, (struct sockaddr *)&bound, &blen);
    int bport = ntohs(bound.ss_family == AF_INET ? ((struct sockaddr_in *)&bound)->sin_port
                                                 : ((struct sockaddr_in6 *)&bound)->sin6_port);
    MDAE_LOG(SRV_LOG_INFO, "listening on tcp://%s:%d", host, bport);
    srv.tcp_port = bport;
    return MDAE_OK;
}

/* The port file, once every listener is up (a test that reads it may then
 * connect to any of them: written after the TCP listener alone, a client of
 * the Unix socket was sometimes refused under load). Written to a temporary
 * name then renamed, so a reader never sees a half-written port. */
static void write_port_file(void)
{
    if (srv.cfg.port_file == NULL || !srv.tcp_on)
        return;
    char *tmp = mdae_asprintf("%s.tmp", srv.cfg.port_file);
    FILE *f = tmp ? fopen(tmp, "w") : NULL;
    if (f != NULL) {
        fprintf(f, "%d\n", srv.tcp_port);
        fclose(f);
        rename(tmp, srv.cfg.port_file);
    }
    mdae_free(tmp);
}

static int listen_unix(const char *path)
{
    uv_pipe_init(srv.loop, &srv.unix_listener, 0);
    srv.unix_on = true;
    unlink(path); /* a stale socket from a previous run */
    int rc = uv_pipe_bind(&srv.unix_listener, path);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&srv.unix_listener, 511, on_connection);
    if (rc < 0) {
        MDAE_LOG(SRV_LOG_ERROR, "cannot listen on unix://%s: %s", path, uv_strerror(rc));
        return MDAE_E_IO;
    }
    MDAE_LOG(SRV_LOG_INFO, "listening on unix://%s", path);
    return MDAE_OK;
}

static void on_signal(uv_signal_t *h, int signum)
{
    (void)h;
    const char *why = signum == SIGINT ? "SIGINT" : "SIGTERM";
    if (srv.draining) /* a second signal: now */
        srv_loop_stop(why);
    else
        srv_loop_drain(why);
}

static void close_listeners(void)
{
    if (srv.tcp_on)
        uv_close((uv_handle_t *)&srv.tcp, NULL);
    if (srv.unix_on) {
        uv_close((uv_handle_t *)&srv.unix_listener, NULL);
        if (srv.cfg.listen_unix)
            unlink(srv.cfg.listen_unix);
    }
    srv.tcp_on = srv.unix_on = false;
}

static size_t requests_in_flight(void)
{
    size_t n = 0;
    for (srv_conn *c = srv.conns; c != NULL; c = c->next)
        n += (size_t)c->refs;
    return n;
}

static void on_drain_tick(uv_timer_t *t)
{
    (void)t;
    size_t n = requests_in_flight();
    if (n == 0) {
        srv_loop_stop("requests in flight done");
    } else if (uv_now(srv.loop) >= srv.drain_until) {
        MDAE_LOG(SRV_LOG_WARN, "grace period over: cutting %zu request%s in flight", n,
                 n == 1 ? "" : "s");
        srv_loop_stop("grace period over");
    }
}

void srv_loop_drain(const char *why)
{
    if (srv.draining || srv.stopping)
        return;
    srv.draining = true;
    MDAE_LOG(SRV_LOG_INFO, "stopping (%s): no new connections, %zu request%s in flight", why,
             requests_in_flight(), requests_in_flight() == 1 ? "" : "s");
    close_listeners();
    srv.drain_until = uv_now(srv.loop) + srv.cfg.shutdown_grace_ms;
    uv_timer_start(&srv.drain, on_drain_tick, 0, 20);
}

/* Every second: expire idle sessions, and give the heap's free pages back
 * to the system. The router passes model texts and results of every size
 * (bytes to megabytes) through malloc; without the trim its resident size
 * only ever rose to the high-water mark of that traffic, 10-35 % over a
 * few minutes of soak (scripts/soak.py), with nothing leaked. */
static void on_sweep(uv_timer_t *t)
{
    (void)t;
    srv_session_expire(uv_now(srv.loop));
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

void srv_loop_stop(const char *why)
{
    if (srv.stopping)
        return;
    srv.stopping = true;
    MDAE_LOG(SRV_LOG_INFO, "stopping (%s)", why);
    close_listeners();
    uv_close((uv_handle_t *)&srv.drain, NULL);
    uv_close((uv_handle_t *)&srv.sigint, NULL);
    uv_close((uv_handle_t *)&srv.sigterm, NULL);
    uv_close((uv_handle_t *)&srv.sweep, NULL);
    srv_lsp_close();
    while (srv.conns != NULL) {
        srv_conn *c = srv.conns;
        srv_conn_close(c, "server stopping"); /* unlinks c */
    }
    srv_session_drop_all(); /* the persistent ones stay in the store */
    srv_store_close();
}

int srv_loop_run(void)
{
    srv.loop = uv_default_loop();
    srv.start_ms = uv_now(srv.loop);
    signal(SIGPIPE, SIG_IGN); /* a client that goes away is a write error, not a death */
    uv_signal_init(srv.loop, &srv.sigint);
    uv_signal_start(&srv.sigint, on_signal, SIGINT);
    uv_signal_init(srv.loop, &srv.sigterm);
    uv_signal_start(&srv.sigterm, on_signal, SIGTERM);
    uv_timer_init(srv.loop, &srv.drain);
    uv_timer_init(srv.loop, &srv.sweep);
    uv_timer_start(&srv.sweep, on_sweep, 1000, 1000);
    uv_unref((uv_handle_t *)&srv.sweep);
    srv_lsp_init();

    int rc = srv_m_session_restore();
    if (rc == MDAE_OK && srv.cfg.listen_tcp != NULL)
        rc = listen_tcp(srv.cfg.listen_tcp);
    if (rc == MDAE_OK && srv.cfg.listen_unix != NULL)
        rc = listen_unix(srv.cfg.listen_unix);
    if (rc == MDAE_OK && srv.cfg.stdio)
        rc = srv_conn_open_stdio(on_conn_frame, on_conn_close);
    if (rc == MDAE_OK && !srv.tcp_on && !srv.unix_on && !srv.cfg.stdio) {
        MDAE_LOG(SRV_LOG_ERROR, "nothing to listen on");
        rc = MDAE_E_INVAL;
    }
    if (rc < 0)
        srv_loop_stop("startup failed");
    else
        write_port_file();
    uv_run(srv.loop, UV_RUN_DEFAULT);
    int crc = uv_loop_close(srv.loop);
    if (crc != 0)
        MDAE_LOG(SRV_LOG_WARN, "loop closed with handles still open: %s", uv_strerror(crc));
    MDAE_LOG(SRV_LOG_INFO, "stopped");
    return rc;
}
