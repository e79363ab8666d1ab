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
 *                  idle persistent sessions; the connections' timer applies
 *                  their read, idle and write-stall bounds (srv_conn.c).
 *   2. accept   -- on_listener: mdaed accepts itself (accept on the
 *                  listening socket, watched with uv_poll) rather than
 *                  through uv_listen, whose answer to EMFILE is to drop
 *                  clients silently: past max_connections, or out of
 *                  descriptors (using the one kept spare), a client is
 *                  answered (HTTP 503 or a JSON-RPC error) and the refusal
 *                  logged, at most once a second. Else a new srv_conn,
 *                  reading starts.
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
 *                  and uv_write'n; past write_queue_bytes the client's
 *                  requests are not read until they drain, and a client
 *                  that takes none of them for write_stall_ms is cut off.
 *   8. close    -- srv_conn_close / worker exit: handles are closed once and
 *                  freed in the last close callback (STYLE.md section 10).
 * Nothing blocks in this process: BDD work happens only in workers.
 */
#include "srv.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
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

/* Log a refused client, at most once a second (a flood of them must not
 * flood the log): the others are counted into the next line. */
static void log_refusal(const char *why)
{
    uint64_t now = uv_now(srv.loop);
    if (srv.refused_logged != 0 && now - srv.refused_logged < 1000) {
        srv.refused_quiet++;
        return;
    }
    MDAE_LOG(SRV_LOG_WARN, "client refused: %s (%zu connections open; %llu more refused "
             "since the last such line)", why, srv.n_conns,
             (unsigned long long)srv.refused_quiet);
    srv.refused_logged = now;
    srv.refused_quiet = 0;
}

/* Answer a client we cannot serve, on its raw descriptor, and close it.
 * What it already sent tells its framing (srv_conn_refusal); what it sent
 * is read first so that closing does not reset the connection before it
 * reads the answer. Never blocks: the socket's send buffer is empty. */
static void refuse_fd(int fd, const char *why)
{
    char peek[4096];
    ssize_t n = recv(fd, peek, sizeof peek, 0);
    size_t len;
    char *out = srv_conn_refusal(peek, n > 0 ? (size_t)n : 0, why, &len);
    if (out != NULL && send(fd, out, len, MSG_NOSIGNAL) < 0)
        MDAE_LOG(SRV_LOG_DEBUG, "refusal not sent: %s", strerror(errno));
    mdae_free(out);
    shutdown(fd, SHUT_WR);
    close(fd);
    log_refusal(why);
}

/* accept, non-blocking and close-on-exec (accept4 is not POSIX). */
static int accept_client(int lfd)
{
    int fd = accept(lfd, NULL, NULL);
    if (fd >= 0 && (fcntl(fd, F_SETFL, O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

static int open_spare(void) { return open("/dev/null", O_RDONLY | O_CLOEXEC); }

static void on_accept_retry(uv_timer_t *t);

/* accept failed with EMFILE or ENFILE: give the spare descriptor up for
 * long enough to accept one client and tell it, then take it back
 * (libuv's uv__emfile_trick, but answering). Without a spare, stop
 * watching the listener for a moment instead of spinning on it. */
static void refuse_no_descriptor(uv_poll_t *p, int lfd, int err)
{
    const char *why = err == ENFILE ? "server busy: the system is out of file descriptors"
                                    : "server busy: out of file descriptors (RLIMIT_NOFILE)";
    if (srv.spare_fd >= 0) {
        close(srv.spare_fd);
        srv.spare_fd = -1;
        int fd = accept_client(lfd);
        if (fd >= 0)
            refuse_fd(fd, why);
        srv.spare_fd = open_spare();
        if (fd >= 0)
            return;
    }
    log_refusal(why);
    uv_poll_stop(p);
    if (!uv_is_active((uv_handle_t *)&srv.accept_retry))
        uv_timer_start(&srv.accept_retry, on_accept_retry, 100, 0);
}

/* Warn once every ten seconds at most while the descriptors in use (the
 * lowest free one, which accept returns, tells how many) pass 90 % of
 * RLIMIT_NOFILE. */
static void watch_descriptors(int fd)
{
    if (srv.nofile == 0 || (uint64_t)fd * 10 < srv.nofile * 9)
        return;
    uint64_t now = uv_now(srv.loop);
    if (srv.nofile_warned != 0 && now - srv.nofile_warned < 10000)
        return;
    srv.nofile_warned = now;
    MDAE_LOG(SRV_LOG_WARN, "descriptor %d in use of RLIMIT_NOFILE %llu (%zu connections): "
             "clients will be refused at the limit; raise it (ulimit -n) or lower "
             "limits.max_connections", fd, (unsigned long long)srv.nofile, srv.n_conns);
}

/* A client's socket (accepted, non-blocking): a new connection reading. */
static void take_client(int fd, srv_conn_kind kind)
{
    if (srv.cfg.max_connections > 0 && srv.n_conns >= srv.cfg.max_connections) {
        refuse_fd(fd, "server busy: too many connections (limits.max_connections)");
        return;
    }
    watch_descriptors(fd);
    srv_conn *c = srv_conn_new(kind, on_conn_frame, on_conn_close);
    if (c == NULL) {
        MDAE_LOG(SRV_LOG_ERROR, "out of memory accepting a connection");
        close(fd);
        return;
    }
    int rc = kind == SRV_CONN_TCP ? uv_tcp_init(srv.loop, &c->h.tcp)
                                  : uv_pipe_init(srv.loop, &c->h.pipe, 0);
    if (rc < 0) {
        close(fd);
        mdae_free(c);
        return;
    }
    c->h.tcp.data = c; /* every member of the union starts with uv_handle_t */
    c->rd = c->wr = (uv_stream_t *)&c->h;
    rc = kind == SRV_CONN_TCP ? uv_tcp_open(&c->h.tcp, fd) : uv_pipe_open(&c->h.pipe, fd);
    if (rc < 0)
        close(fd); /* not the handle's: it closes only what it opened */
    else if (kind == SRV_CONN_TCP)
        uv_tcp_nodelay(&c->h.tcp, 1); /* small replies: don't wait for Nagle */
    srv_conn_start(c);
    if (rc < 0)
        srv_conn_close(c, "accept failed");
}

/* The listening socket is readable: accept what waits, a bounded number
 * per callback (libuv's uv__read takes 32 reads a pass). */
static void on_listener(uv_poll_t *p, int status, int events)
{
    (void)events;
    srv_conn_kind kind = p == &srv.tcp_poll ? SRV_CONN_TCP : SRV_CONN_UNIX;
    uv_os_fd_t lfd;
    if (status < 0 || uv_fileno((uv_handle_t *)p, &lfd) < 0) {
        MDAE_LOG(SRV_LOG_WARN, "accept failed: %s", uv_strerror(status));
        return;
    }
    for (int k = 0; k < 64 && !srv.stopping && !srv.draining; k++) {
        int fd = accept_client(lfd);
        if (fd >= 0) {
            take_client(fd, kind);
            continue;
        }
        if (errno == EINTR || errno == ECONNABORTED)
            continue;
        if (errno == EMFILE || errno == ENFILE) {
            refuse_no_descriptor(p, lfd, errno);
            if (!uv_is_active((uv_handle_t *)p))
                return;
            continue;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            MDAE_LOG(SRV_LOG_WARN, "accept failed: %s", strerror(errno));
        return;
    }
}

static void on_accept_retry(uv_timer_t *t)
{
    (void)t;
    if (srv.spare_fd < 0)
        srv.spare_fd = open_spare();
    if (srv.tcp_on)
        uv_poll_start(&srv.tcp_poll, UV_READABLE, on_listener);
    if (srv.unix_on)
        uv_poll_start(&srv.unix_poll, UV_READABLE, on_listener);
}

/* Listen on the socket of a bound handle and watch it with poll (a Unix
 * socket: uv_pipe_bind reports its errors at once). */
static int watch_listener(uv_handle_t *h, uv_poll_t *poll)
{
    uv_os_fd_t fd;
    int rc = uv_fileno(h, &fd);
    if (rc == 0 && listen(fd, 511) < 0)
        rc = -errno;
    if (rc == 0)
        rc = uv_poll_init_socket(srv.loop, poll, fd);
    if (rc == 0) {
        rc = uv_poll_start(poll, UV_READABLE, on_listener);
        if (rc < 0)
            uv_close((uv_handle_t *)poll, NULL);
    }
    return rc;
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
    /* A socket of our own (uv_tcp_bind would defer EADDRINUSE to uv_listen,
     * which we do not call), with SO_REUSEADDR as libuv sets it. */
    socklen_t salen = ss.ss_family == AF_INET ? sizeof(struct sockaddr_in)
                                              : sizeof(struct sockaddr_in6);
    int one = 1;
    int fd = socket(ss.ss_family, SOCK_STREAM, 0);
    rc = fd < 0 ? -errno : 0;
    if (rc == 0 && (fcntl(fd, F_SETFL, O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ||
                    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
                    bind(fd, (struct sockaddr *)&ss, salen) < 0 || listen(fd, 511) < 0))
        rc = -errno;
    if (rc == 0)
        rc = uv_poll_init_socket(srv.loop, &srv.tcp_poll, fd);
    if (rc == 0 && (rc = uv_poll_start(&srv.tcp_poll, UV_READABLE, on_listener)) < 0)
        uv_close((uv_handle_t *)&srv.tcp_poll, NULL);
    if (rc < 0) {
        if (fd >= 0)
            close(fd);
        MDAE_LOG(SRV_LOG_ERROR, "cannot listen on %s: %s", addr, uv_strerror(rc));
        return MDAE_E_IO;
    }
    srv.tcp_fd = fd;
    srv.tcp_on = true;
    struct sockaddr_storage bound;
    socklen_t blen = sizeof bound;
    getsockname(fd, (struct sockaddr *)&bound, &blen);
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
    unlink(path); /* a stale socket from a previous run */
    int rc = uv_pipe_bind(&srv.unix_listener, path);
    if (rc == 0)
        rc = watch_listener((uv_handle_t *)&srv.unix_listener, &srv.unix_poll);
    srv.unix_on = true;
    if (rc < 0) {
        uv_close((uv_handle_t *)&srv.unix_listener, NULL);
        srv.unix_on = false;
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
    /* The poll before its socket (uv_close stops it at once). */
    if (srv.tcp_on) {
        uv_close((uv_handle_t *)&srv.tcp_poll, NULL);
        close(srv.tcp_fd);
    }
    if (srv.unix_on) {
        uv_close((uv_handle_t *)&srv.unix_poll, NULL);
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

/* The connections' bounds (srv_conn.c), which need to know which
 * connections hold sessions: marked here, from the sessions' owners. */
static void on_conn_timer(uv_timer_t *t)
{
    (void)t;
    for (srv_conn *c = srv.conns; c != NULL; c = c->next)
        c->has_sessions = false;
    for (srv_session *s = srv.sessions; s != NULL; s = s->next)
        if (s->owner != NULL)
            s->owner->has_sessions = true;
    srv_conn_check_all(uv_now(srv.loop));
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
    uv_close((uv_handle_t *)&srv.conn_timer, NULL);
    uv_close((uv_handle_t *)&srv.accept_retry, NULL);
    if (srv.spare_fd >= 0)
        close(srv.spare_fd);
    srv.spare_fd = -1;
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
    uv_timer_init(srv.loop, &srv.conn_timer);
    uint64_t every = srv_conn_check_interval();
    if (every > 0)
        uv_timer_start(&srv.conn_timer, on_conn_timer, every, every);
    uv_unref((uv_handle_t *)&srv.conn_timer);
    uv_timer_init(srv.loop, &srv.accept_retry);
    uv_unref((uv_handle_t *)&srv.accept_retry);
    srv.spare_fd = open_spare();
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        srv.nofile = (uint64_t)rl.rlim_cur;
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
