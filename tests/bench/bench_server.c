/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_server.c -- load benchmark of mdaed on loopback (issue 5,
 * "Speed"). Starts its own mdaed (127.0.0.1, ephemeral port via
 * --port-file, a temporary configuration), prints one block per row, then
 * stops the server:
 *
 *   1. session/mode requests per second and p50/p99 latency over C
 *      connections on one RLDC2 session, NDJSON, pipelining depth 1 and 4;
 *   2. time to open+analyse+close 200 sessions at once (rotating small
 *      models of tests/models);
 *   3. session/analyze (open+analyze, end to end) versus the embedded CLI
 *      (`mdae analyze --json`, same defines) on large models, 3 repetitions
 *      each, medians, overhead in %;
 *   4. row 1 through HAProxy (Debian's, conf/haproxy.cfg, its NDJSON/TCP
 *      frontend) against the same server directly, alternated in the same
 *      run, and the proxy's overhead in % (issue 17). Both of the
 *      configuration's instances point at this one server: on 2 cores a
 *      second instance adds no capacity, and the row measures the proxy;
 *   5. an edit end to end (session/edit + session/analyze: the full result,
 *      with stable ids, and only the difference from the previous version)
 *      against a cold open+analyze, the brake at N = 100 (issue 16; N set
 *      by --edit-n, issue 40 item 5: 10,000);
 *   6. a persisted edit (issue 37 item 3): session/edit of a persistent
 *      session, answered once its row committed (SQLite, WAL, synchronous
 *      FULL, in TMPDIR/state on the benchmark's file system), against the
 *      same edit of a connection's session, which writes nothing: p50/p99
 *      of each and the difference, the commit's cost (target <= 5 ms).
 *
 * Usage: bench_server [--mdaed PATH] [--mdae PATH] [--connections 50]
 *                     [--seconds 5] [--sessions 200] [--reps 3]
 *                     [--workers 32] [--rows 12345] [--timeout 900]
 *                     [--initial-nodes N] [--edit-n 100]
 *
 * --initial-nodes sets the workers' first BuDDy node table (bdd.initial_nodes;
 * 0: sized from the model, as the embedded CLI does); without it the
 * server's default (10k nodes) applies. Row 3 then compares like with like.
 *
 * Plain POSIX sockets and poll, single-threaded: the load generator needs
 * one core, which leaves the other of our two to the server. Every wait has
 * a deadline and a watchdog (alarm) kills the server and exits if the whole
 * run overstays --timeout. Targets (issue 5): >= 10,000 small requests/s,
 * p99 <= 5 ms, server overhead <= 5 % on large analyses. Results go to
 * tests/bench/README.md.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define IO_WAIT_MS 120000 /* longest wait for one answer outside row 1 */

/* ---- Small utilities ------------------------------------------------------ */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        die("out of memory (%zu bytes)", n);
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (p == NULL)
        die("out of memory (%zu bytes)", n);
    return p;
}

/* A growing string. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
} sbuf;

static void sb_reserve(sbuf *b, size_t more)
{
    if (b->len + more + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + more + 1)
            cap *= 2;
        b->s = xrealloc(b->s, cap);
        b->cap = cap;
    }
}

static void sb_add(sbuf *b, const char *s, size_t n)
{
    sb_reserve(b, n);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    sb_reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Append s as a JSON string literal (quotes included). */
static void sb_json_string(sbuf *b, const char *s)
{
    sb_add(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            sb_add(b, e, 2);
        } else if (*p == '\n') {
            sb_add(b, "\\n", 2);
        } else if (*p == '\t') {
            sb_add(b, "\\t", 2);
        } else if (*p < 0x20) {
            sb_printf(b, "\\u%04x", *p);
        } else {
            sb_add(b, (const char *)p, 1);
        }
    }
    sb_add(b, "\"", 1);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        die("cannot open %s: %s", path, strerror(errno));
    sbuf b = {0};
    char tmp[8192];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        sb_add(&b, tmp, n);
    fclose(f);
    if (b.s == NULL)
        sb_add(&b, "", 0);
    return b.s;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Percentile (0..100) of sorted samples, nearest rank. */
static double pct_ms(const uint64_t *v, size_t n, double p)
{
    if (n == 0)
        return 0.0;
    size_t k = (size_t)((p / 100.0) * (double)n + 0.999999);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return (double)v[k - 1] / 1e6;
}

static void print_loadavg(const char *when)
{
    char buf[128] = "?";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f != NULL) {
        if (fgets(buf, sizeof buf, f) == NULL)
            snprintf(buf, sizeof buf, "?");
        fclose(f);
    }
    buf[strcspn(buf, "\n")] = '\0';
    printf("# loadavg %s: %s\n", when, buf);
    fflush(stdout);
}

/* ---- The server we start ---------------------------------------------------- */

static pid_t server_pid = -1;
static pid_t haproxy_pid = -1;
static char tmpdir[256];
static char server_log[300];

static void remove_tmpdir(void)
{
    if (tmpdir[0] == '\0')
        return;
    char p[400];
    const char *names[] = {"mdaed.json",          "port",
                           "mdaed.log",           "state/sessions.db",
                           "state/sessions.db-wal", "state/sessions.db-shm",
                           "state/lock",          "state"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", tmpdir, names[i]);
        if (unlink(p) != 0)
            rmdir(p);
    }
    rmdir(tmpdir);
    tmpdir[0] = '\0';
}

/* Stop the server: SIGTERM, up to 5 s, then SIGKILL. Its workers end when
 * their pipe to it closes. */
static void haproxy_stop(void)
{
    if (haproxy_pid <= 0)
        return;
    kill(haproxy_pid, SIGTERM);
    waitpid(haproxy_pid, NULL, 0);
    haproxy_pid = -1;
}

static void server_stop(void)
{
    haproxy_stop();
    if (server_pid <= 0)
        return;
    kill(server_pid, SIGTERM);
    uint64_t end = now_ns() + 5000000000ull;
    int st;
    bool gone = false;
    while (now_ns() < end) {
        pid_t r = waitpid(server_pid, &st, WNOHANG);
        if (r == server_pid || (r < 0 && errno == ECHILD)) {
            gone = true;
            break;
        }
        usleep(10000);
    }
    if (!gone) {
        kill(server_pid, SIGKILL);
        waitpid(server_pid, &st, 0);
    }
    server_pid = -1;
}

static void die(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "bench_server: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    if (server_log[0] != '\0' && server_pid > 0) {
        /* show the end of the server's log before it goes */
        char cmd[400];
        snprintf(cmd, sizeof cmd, "tail -n 20 '%s' >&2", server_log);
        if (system(cmd) != 0)
            fprintf(stderr, "(no server log)\n");
    }
    server_stop();
    remove_tmpdir();
    exit(1);
}

/* Watchdog and signals: async-signal-safe only. The directory stays behind
 * in that case (named in the message). */
static void on_fatal_signal(int sig)
{
    if (server_pid > 0)
        kill(server_pid, SIGKILL);
    const char *m = sig == SIGALRM ? "bench_server: watchdog timeout, server killed\n"
                                   : "bench_server: interrupted, server killed\n";
    ssize_t w = write(2, m, strlen(m));
    (void)w;
    _exit(3);
}

/* initial_nodes < 0: the server's default (conf: 10k nodes, fast worker
 * starts); 0: sized from the model, as the embedded CLI does. */
static int server_start(const char *mdaed, int workers, long initial_nodes)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/bench-server-XXXXXX");
    if (mkdtemp(tmpdir) == NULL)
        die("mkdtemp: %s", strerror(errno));
    char conf[300], port_file[300];
    snprintf(conf, sizeof conf, "%s/mdaed.json", tmpdir);
    snprintf(port_file, sizeof port_file, "%s/port", tmpdir);
    snprintf(server_log, sizeof server_log, "%s/mdaed.log", tmpdir);
    FILE *f = fopen(conf, "w");
    if (f == NULL)
        die("cannot write %s: %s", conf, strerror(errno));
    /* Raised limits: 200+ sessions at once, no idle stop during a run,
     * room for large analyses. Loopback only, so no token. */
    fprintf(f,
            "// bench_server configuration (temporary)\n{\n"
            "  \"listen\": {\"tcp\": \"127.0.0.1:0\", \"unix\": null},\n"
            "  \"web_root\": \"%s/clients/web\",\n"
            "  \"log_level\": \"warn\",\n"
            "  \"state_dir\": \"%s/state\",\n" /* row 6; the others' sessions are not kept */
            "  \"limits\": {\"max_sessions\": 4096, \"max_workers\": %d,\n"
            "             \"worker_idle_ms\": 600000, \"session_idle_ms\": 3600000,\n"
            "             \"request_timeout_ms\": 300000,\n"
            "             \"max_message_bytes\": 67108864,\n"
            "             \"write_queue_bytes\": 268435456}",
            MDAE_SOURCE_DIR, tmpdir, workers);
    if (initial_nodes >= 0)
        fprintf(f, ",\n  \"bdd\": {\"initial_nodes\": %ld}", initial_nodes);
    fprintf(f, "\n}\n");
    fclose(f);
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the benchmark */
        int null = open("/dev/null", O_RDWR);
        int log = open(server_log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
        }
        if (log >= 0)
            dup2(log, 2);
        execl(mdaed, mdaed, "--config", conf, "--port-file", port_file, (char *)NULL);
        _exit(127);
    }
    server_pid = pid;
    uint64_t end = now_ns() + 10000000000ull;
    while (now_ns() < end) {
        FILE *pf = fopen(port_file, "r");
        if (pf != NULL) {
            int port = 0;
            int ok = fscanf(pf, "%d", &port);
            fclose(pf);
            if (ok == 1 && port > 0)
                return port;
        }
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            server_pid = -1;
            char cmd[400];
            snprintf(cmd, sizeof cmd, "cat '%s' >&2", server_log);
            if (system(cmd) != 0)
                fprintf(stderr, "(no server log)\n");
            die("mdaed (%s) exited at startup", mdaed);
        }
        usleep(10000);
    }
    die("mdaed did not write its port within 10 s");
}

/* ---- Client connections ---------------------------------------------------- */

typedef struct conn {
    int fd;
    char *buf;
    size_t len, cap;
} conn;

static int server_port;

static void conn_open(conn *c)
{
    memset(c, 0, sizeof *c);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        die("socket: %s", strerror(errno));
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)server_port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
        die("connect 127.0.0.1:%d: %s", server_port, strerror(errno));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->fd = fd;
    c->cap = 1 << 16;
    c->buf = xmalloc(c->cap);
}

static void conn_close(conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->buf);
    c->buf = NULL;
    c->len = c->cap = 0;
}

/* Blocking send of everything (the server reads concurrently, so this
 * cannot deadlock for our message sizes). */
static void conn_send(conn *c, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = send(c->fd, s, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            die("send: %s", w < 0 ? strerror(errno) : "closed");
        s += w;
        n -= (size_t)w;
    }
}

/* Read what is there (one recv). False on EOF or error. */
static bool conn_fill(conn *c)
{
    if (c->len + 65536 > c->cap) {
        c->cap = c->cap * 2 + 65536;
        c->buf = xrealloc(c->buf, c->cap);
    }
    ssize_t n = recv(c->fd, c->buf + c->len, c->cap - c->len - 1, 0);
    if (n < 0 && errno == EINTR)
        return true;
    if (n <= 0)
        return false;
    c->len += (size_t)n;
    return true;
}

/* The next complete line in c->buf (NUL-terminated in place), its length in
 * *n; NULL when none yet. The caller consumes it with conn_consume. */
static char *conn_peek_line(conn *c, size_t *n)
{
    char *nl = memchr(c->buf, '\n', c->len);
    if (nl == NULL)
        return NULL;
    *nl = '\0';
    *n = (size_t)(nl - c->buf);
    return c->buf;
}

static void conn_consume(conn *c, size_t n)
{
    memmove(c->buf, c->buf + n, c->len - n);
    c->len -= n;
}

/* Wait for the next line: returns a malloc'd copy; dies on timeout/EOF. */
static char *conn_line(conn *c, int timeout_ms)
{
    uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000u;
    for (;;) {
        size_t n;
        char *l = conn_peek_line(c, &n);
        if (l != NULL) {
            char *s = xmalloc(n + 1);
            memcpy(s, l, n + 1);
            conn_consume(c, n + 1);
            return s;
        }
        uint64_t t = now_ns();
        if (t >= end)
            die("no answer from the server within %d ms", timeout_ms);
        struct pollfd p = {c->fd, POLLIN, 0};
        int r = poll(&p, 1, (int)((end - t) / 1000000u) + 1);
        if (r < 0 && errno != EINTR)
            die("poll: %s", strerror(errno));
        if (r > 0 && !conn_fill(c))
            die("the server closed the connection");
    }
}

/* Our answers have the server's own layout: {"jsonrpc":"2.0","id":N,...}
 * (srv_call_result_text / rpc_response_*). The id is the first member after
 * "jsonrpc", so a prefix match finds it without a JSON parser. Returns the
 * id, or -1 for a notification or anything else; *is_result says whether
 * the id is followed by "result". */
static long long answer_id(const char *line, bool *is_result)
{
    static const char pre[] = "{\"jsonrpc\":\"2.0\",\"id\":";
    *is_result = false;
    if (strncmp(line, pre, sizeof pre - 1) != 0)
        return -1;
    char *end;
    long long id = strtoll(line + sizeof pre - 1, &end, 10);
    if (end == line + sizeof pre - 1)
        return -1;
    *is_result = strncmp(end, ",\"result\":", 10) == 0;
    return id;
}

/* A request and its answer, which must be a result (dies otherwise).
 * Notifications before the answer are skipped. Returns the answer line. */
static char *call(conn *c, long long id, const char *method, const char *params)
{
    sbuf b = {0};
    sb_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"%s\",\"params\":%s}\n", id,
              method, params);
    conn_send(c, b.s, b.len);
    free(b.s);
    for (;;) {
        char *l = conn_line(c, IO_WAIT_MS);
        bool ok;
        long long got = answer_id(l, &ok);
        if (got == id) {
            if (!ok)
                die("%s failed: %.600s", method, l);
            return l;
        }
        free(l);
    }
}

/* "session":"sN" out of an open answer (malloc'd). */
static char *session_of(const char *answer)
{
    const char *p = strstr(answer, "\"session\":\"");
    if (p == NULL)
        die("no session id in: %.300s", answer);
    p += 11;
    const char *q = strchr(p, '"');
    if (q == NULL)
        die("bad session id in: %.300s", answer);
    char *s = xmalloc((size_t)(q - p) + 1);
    memcpy(s, p, (size_t)(q - p));
    s[q - p] = '\0';
    return s;
}

/* session/open params for a model file with an optional N define. */
static void open_params(sbuf *b, const char *text, int n_define)
{
    sb_add(b, "{\"format\":\"mel\",\"text\":", 23);
    sb_json_string(b, text);
    if (n_define > 0)
        sb_printf(b, ",\"defines\":{\"N\":%d}", n_define);
    sb_add(b, "}", 1);
}

static char *model_path(const char *name)
{
    sbuf b = {0};
    sb_printf(&b, "%s/tests/models/%s.mel", MDAE_SOURCE_DIR, name);
    return b.s;
}

/* ---- Row 1: session/mode throughput and latency ------------------------------ */

#define MAX_DEPTH 16
#define MAX_SAMPLES 20000000u /* bounded count: 160 MB of samples at most */

typedef struct slot {
    long long id;
    uint64_t t;
} slot;

typedef struct mconn {
    conn c;
    slot inflight[MAX_DEPTH];
    int n_inflight;
} mconn;

static const char *rldc2_modes[4] = {
    "{\"g1\":true,\"g2\":true}", "{\"g1\":true,\"g2\":false}",
    "{\"g1\":false,\"g2\":true}", "{\"g1\":false,\"g2\":false}"};

/* t: when the request counts from (now, or its due time when paced). */
static void mode_send(mconn *m, const char *sid, long long id, uint64_t t)
{
    char req[256];
    int n = snprintf(req, sizeof req,
                     "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"session/mode\","
                     "\"params\":{\"session\":\"%s\",\"mode\":%s}}\n",
                     id, sid, rldc2_modes[id & 3]);
    m->inflight[m->n_inflight].id = id;
    m->inflight[m->n_inflight].t = t;
    m->n_inflight++;
    conn_send(&m->c, req, (size_t)n);
}

/* What row_mode measured. */
typedef struct mode_figures {
    double rate, p50_ms, p99_ms;
} mode_figures;

/* Prints the rows under `label`; returns the throughput and latencies.
 * rate 0: each connection keeps `depth` requests in flight (as fast as the
 * server answers). rate > 0: requests are due at that many per second in
 * all, each sent on a connection with nothing in flight (depth 1) as soon
 * as it is due, and its latency counts from when it was due, so a server
 * that falls behind shows in the latency (no coordinated omission). */
static mode_figures row_mode(const char *label, const char *sid, int n_conns, int depth,
                             double seconds, double rate_due)
{
    mconn *ms = calloc((size_t)n_conns, sizeof *ms);
    struct pollfd *pf = calloc((size_t)n_conns, sizeof *pf);
    size_t cap = 1 << 20, n_samples = 0;
    uint64_t *lat = xmalloc(cap * sizeof *lat);
    if (ms == NULL || pf == NULL)
        die("out of memory");
    for (int i = 0; i < n_conns; i++)
        conn_open(&ms[i].c);
    long long next_id = 1;
    unsigned long long errors = 0, answers = 0;
    char first_error[400] = "";
    uint64_t t0 = now_ns();
    uint64_t t_end = t0 + (uint64_t)(seconds * 1e9);
    uint64_t drain_end = t_end + 10000000000ull; /* answers owed: 10 s more */
    bool paced = rate_due > 0;
    uint64_t period = paced ? (uint64_t)(1e9 / rate_due) : 0, due = t0;
    unsigned long long late = 0; /* paced requests sent over 1 ms after due */
    if (!paced)
        for (int i = 0; i < n_conns; i++)
            for (int d = 0; d < depth; d++)
                mode_send(&ms[i], sid, next_id++, now_ns());
    uint64_t t_last = t0;
    for (;;) {
        uint64_t t = now_ns();
        bool sending = t < t_end && n_samples < MAX_SAMPLES;
        for (int i = 0; paced && sending && i < n_conns && due <= t; i++)
            if (ms[i].n_inflight == 0) {
                if (t - due > 1000000)
                    late++;
                mode_send(&ms[i], sid, next_id++, due);
                due += period;
            }
        int owed = 0;
        for (int i = 0; i < n_conns; i++)
            owed += ms[i].n_inflight;
        if ((owed == 0 && !(paced && sending)) || t >= drain_end)
            break;
        for (int i = 0; i < n_conns; i++)
            pf[i] = (struct pollfd){ms[i].c.fd, ms[i].n_inflight ? POLLIN : 0, 0};
        /* Paced: sleep until the next request is due, or 50 us while every
         * connection is busy (ppoll: poll's milliseconds are ten periods at
         * 10,000 req/s, and spinning would take a core from the server). */
        uint64_t wait_ns = 100000000;
        if (paced && sending)
            wait_ns = due > t ? due - t : 50000;
        struct timespec ts = {(time_t)(wait_ns / 1000000000), (long)(wait_ns % 1000000000)};
        int r = ppoll(pf, (nfds_t)n_conns, &ts, NULL);
        if (r < 0 && errno != EINTR)
            die("poll: %s", strerror(errno));
        if (r <= 0)
            continue;
        for (int i = 0; i < n_conns; i++) {
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            mconn *m = &ms[i];
            if (!conn_fill(&m->c))
                die("connection %d closed by the server", i);
            size_t n;
            char *l;
            while ((l = conn_peek_line(&m->c, &n)) != NULL) {
                uint64_t tr = now_ns();
                bool ok;
                long long id = answer_id(l, &ok);
                int k = 0;
                while (k < m->n_inflight && m->inflight[k].id != id)
                    k++;
                if (k < m->n_inflight) {
                    uint64_t dt = tr - m->inflight[k].t;
                    m->inflight[k] = m->inflight[--m->n_inflight];
                    answers++;
                    t_last = tr;
                    if (!ok) {
                        if (errors++ == 0)
                            snprintf(first_error, sizeof first_error, "%.300s", l);
                    } else if (tr <= t_end || sending) {
                        if (n_samples == cap) {
                            cap *= 2;
                            lat = xrealloc(lat, cap * sizeof *lat);
                        }
                        lat[n_samples++] = dt;
                    }
                    if (!paced && sending && tr < t_end)
                        mode_send(m, sid, next_id++, now_ns());
                }
                conn_consume(&m->c, n + 1);
            }
        }
    }
    int owed = 0;
    for (int i = 0; i < n_conns; i++)
        owed += ms[i].n_inflight;
    double el = (double)((t_last < t_end ? t_last : t_end) - t0) / 1e9;
    qsort(lat, n_samples, sizeof *lat, cmp_u64);
    double rate = (double)n_samples / (el > 0 ? el : 1);
    if (paced)
        printf("%s session/mode rldc2 connections=%d paced at %.0f req/s seconds=%.2f "
               "answers=%llu errors=%llu unanswered=%d late=%llu\n",
               label, n_conns, rate_due, el, answers, errors, owed, late);
    else
        printf("%s session/mode rldc2 connections=%d depth=%d seconds=%.2f answers=%llu "
               "errors=%llu unanswered=%d\n",
               label, n_conns, depth, el, answers, errors, owed);
    printf("%s   throughput %.0f req/s (answers within the window / window)\n", label, rate);
    printf("%s   latency ms p50 %.3f  p90 %.3f  p99 %.3f  max %.3f  (n=%zu)\n", label,
           pct_ms(lat, n_samples, 50), pct_ms(lat, n_samples, 90), pct_ms(lat, n_samples, 99),
           n_samples ? (double)lat[n_samples - 1] / 1e6 : 0.0, n_samples);
    if (errors)
        printf("%s   first error: %s\n", label, first_error);
    fflush(stdout);
    for (int i = 0; i < n_conns; i++)
        conn_close(&ms[i].c);
    free(ms);
    free(pf);
    mode_figures fig = {rate, pct_ms(lat, n_samples, 50), pct_ms(lat, n_samples, 99)};
    free(lat);
    return fig;
}

/* ---- Row 4: row 1 through HAProxy ----------------------------------------------- */

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t n = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &n) != 0)
        die("no free port: %s", strerror(errno));
    close(fd);
    return ntohs(a.sin_port);
}

/* Start HAProxy with conf/haproxy.cfg, both instances at our server;
 * returns its NDJSON/TCP port, or 0 if haproxy is not installed. */
static int haproxy_start(void)
{
    const char *exe = "/usr/sbin/haproxy";
    if (access(exe, X_OK) != 0)
        return 0;
    char v[64], cfg[PATH_MAX];
    int http = free_port(), tcp = free_port();
    snprintf(v, sizeof v, "127.0.0.1:%d", http);
    setenv("MDAE_CLUSTER_HTTP", v, 1);
    snprintf(v, sizeof v, "127.0.0.1:%d", tcp);
    setenv("MDAE_CLUSTER_TCP", v, 1);
    snprintf(v, sizeof v, "127.0.0.1:%d", server_port);
    setenv("MDAE_A", v, 1);
    setenv("MDAE_B", v, 1);
    snprintf(cfg, sizeof cfg, "%s/conf/haproxy.cfg", MDAE_SOURCE_DIR);
    haproxy_pid = fork();
    if (haproxy_pid < 0)
        die("fork: %s", strerror(errno));
    if (haproxy_pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execl(exe, exe, "-f", cfg, "-db", (char *)NULL);
        _exit(127);
    }
    int keep = server_port;
    uint64_t end = now_ns() + 10000000000ull;
    for (;;) {
        server_port = tcp; /* conn_open connects to server_port */
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {0};
        a.sin_family = AF_INET;
        a.sin_port = htons((uint16_t)tcp);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        bool up = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
        close(fd);
        server_port = keep;
        if (up)
            break;
        if (waitpid(haproxy_pid, NULL, WNOHANG) == haproxy_pid)
            die("haproxy exited at startup (conf/haproxy.cfg)");
        if (now_ns() > end)
            die("haproxy did not listen within 10 s");
        usleep(20000);
    }
    usleep(2500000); /* its health checks mark the servers up (inter 1s, rise 2) */
    return tcp;
}

#define ROW4_RATE 10000.0 /* the offered load */

static double pct_more(double base, double x) { return base > 0 ? (x - base) / base * 100 : 0.0; }

static double median3(double a, double b, double c)
{
    return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}

/* The median of each figure over three runs. */
static mode_figures median_figures(const mode_figures *f)
{
    return (mode_figures){median3(f[0].rate, f[1].rate, f[2].rate),
                          median3(f[0].p50_ms, f[1].p50_ms, f[2].p50_ms),
                          median3(f[0].p99_ms, f[1].p99_ms, f[2].p99_ms)};
}

/* Row 1 at depth 1 directly and through HAProxy, alternated three times so
 * that a change of load on the box shows, medians compared; first as fast
 * as the server answers (saturation: the proxy competes for the same 2
 * cores), then paced at ROW4_RATE, the load the target is stated at. */
static void row_proxy(const char *sid, int n_conns, double seconds)
{
    int direct = server_port, proxy = haproxy_start();
    if (proxy == 0) {
        printf("row4 skipped: /usr/sbin/haproxy is not installed\n");
        return;
    }
    print_loadavg("before row 4");
    for (int paced = 0; paced < 2; paced++) {
        double rate = paced ? ROW4_RATE : 0;
        mode_figures a[3], b[3];
        for (int k = 0; k < 3; k++) {
            server_port = direct;
            a[k] = row_mode("row4 direct ", sid, n_conns, 1, seconds, rate);
            server_port = proxy;
            b[k] = row_mode("row4 haproxy", sid, n_conns, 1, seconds, rate);
        }
        mode_figures d = median_figures(a), h = median_figures(b);
        printf("row4 proxy overhead %s (medians of 3): %.0f req/s directly, %.0f through "
               "HAProxy (%.1f %% fewer); p50 %.3f vs %.3f ms (%+.1f %%), p99 %.3f vs %.3f ms "
               "(%+.1f %%)%s\n",
               paced ? "at 10,000 req/s offered" : "at saturation", d.rate, h.rate,
               d.rate > 0 ? (d.rate - h.rate) / d.rate * 100 : 0.0, d.p50_ms, h.p50_ms,
               pct_more(d.p50_ms, h.p50_ms), d.p99_ms, h.p99_ms, pct_more(d.p99_ms, h.p99_ms),
               paced ? " (target: <= 10 % fewer)" : "");
        fflush(stdout);
    }
    server_port = direct;
    haproxy_stop();
}

/* ---- Row 2: 200 sessions open+analyse+close at once --------------------------- */

typedef struct model_spec {
    const char *name;
    int n; /* -D N=, 0: the model's default */
} model_spec;

static const model_spec small_models[] = {
    {"rldc2", 0}, {"water_tank", 0}, {"brake", 4}, {"building_compressible", 2},
};
#define N_SMALL (sizeof small_models / sizeof small_models[0])

typedef struct sconn {
    conn c;
    int state; /* 0 open sent, 1 analyze sent, 2 close sent, 3 done */
    char *sid;
    uint64_t t0, t1;
    size_t analysis_bytes;
} sconn;

static void row_sessions(int n_sessions)
{
    char *open_req[N_SMALL];
    for (size_t k = 0; k < N_SMALL; k++) {
        char *path = model_path(small_models[k].name);
        char *text = read_file(path);
        sbuf p = {0};
        open_params(&p, text, small_models[k].n);
        sbuf r = {0};
        sb_printf(&r, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/open\",\"params\":%s}\n",
                  p.s);
        open_req[k] = r.s;
        free(p.s);
        free(text);
        free(path);
    }
    sconn *ss = calloc((size_t)n_sessions, sizeof *ss);
    struct pollfd *pf = calloc((size_t)n_sessions, sizeof *pf);
    uint64_t *lat = xmalloc((size_t)n_sessions * sizeof *lat);
    if (ss == NULL || pf == NULL)
        die("out of memory");
    /* Connections first (not timed): the listen backlog is the kernel's
     * business, not the server's speed. */
    for (int i = 0; i < n_sessions; i++)
        conn_open(&ss[i].c);
    uint64_t t0 = now_ns();
    for (int i = 0; i < n_sessions; i++) {
        ss[i].t0 = now_ns();
        const char *rq = open_req[(size_t)i % N_SMALL];
        conn_send(&ss[i].c, rq, strlen(rq));
    }
    int done = 0;
    uint64_t end = t0 + (uint64_t)IO_WAIT_MS * 1000000u * 2;
    while (done < n_sessions) {
        if (now_ns() >= end)
            die("row 2: %d of %d sessions done after %d s", done, n_sessions,
                IO_WAIT_MS / 500);
        for (int i = 0; i < n_sessions; i++)
            pf[i] = (struct pollfd){ss[i].c.fd, ss[i].state < 3 ? POLLIN : 0, 0};
        int r = poll(pf, (nfds_t)n_sessions, 200);
        if (r < 0 && errno != EINTR)
            die("poll: %s", strerror(errno));
        for (int i = 0; r > 0 && i < n_sessions; i++) {
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            sconn *s = &ss[i];
            if (!conn_fill(&s->c))
                die("row 2: session %d: connection closed by the server", i);
            size_t n;
            char *l;
            while (s->state < 3 && (l = conn_peek_line(&s->c, &n)) != NULL) {
                bool ok;
                long long id = answer_id(l, &ok);
                if (id == s->state + 1) {
                    if (!ok)
                        die("row 2: session %d (%s): step %d failed: %.600s", i,
                            small_models[(size_t)i % N_SMALL].name, s->state, l);
                    char req[256];
                    int m = 0;
                    if (s->state == 0) {
                        s->sid = session_of(l);
                        m = snprintf(req, sizeof req,
                                     "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
                                     "\"session/analyze\",\"params\":{\"session\":\"%s\"}}\n",
                                     s->sid);
                    } else if (s->state == 1) {
                        s->analysis_bytes = n;
                        m = snprintf(req, sizeof req,
                                     "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
                                     "\"session/close\",\"params\":{\"session\":\"%s\"}}\n",
                                     s->sid);
                    } else {
                        s->t1 = now_ns();
                        lat[done++] = s->t1 - s->t0;
                    }
                    s->state++;
                    if (m > 0)
                        conn_send(&s->c, req, (size_t)m);
                }
                conn_consume(&s->c, n + 1);
            }
        }
    }
    uint64_t t1 = now_ns();
    double total = (double)(t1 - t0) / 1e9;
    qsort(lat, (size_t)n_sessions, sizeof *lat, cmp_u64);
    printf("row2 open+analyze+close sessions=%d concurrently (models rotating:", n_sessions);
    for (size_t k = 0; k < N_SMALL; k++) {
        if (small_models[k].n > 0)
            printf(" %s N=%d", small_models[k].name, small_models[k].n);
        else
            printf(" %s", small_models[k].name);
    }
    printf(")\n");
    printf("row2   wall %.3f s  (%.1f sessions/s); per session ms p50 %.1f  p99 %.1f  max %.1f\n",
           total, (double)n_sessions / total, pct_ms(lat, (size_t)n_sessions, 50),
           pct_ms(lat, (size_t)n_sessions, 99), (double)lat[n_sessions - 1] / 1e6);
    fflush(stdout);
    for (int i = 0; i < n_sessions; i++) {
        conn_close(&ss[i].c);
        free(ss[i].sid);
    }
    for (size_t k = 0; k < N_SMALL; k++)
        free(open_req[k]);
    free(ss);
    free(pf);
    free(lat);
}

/* ---- Row 3: session/analyze versus the embedded CLI ----------------------------- */

/* `mdae analyze --json [-D N=n] FILE`, stdout read through a pipe (as the
 * server's answer is read through a socket). Returns seconds; *out gets
 * the output (malloc'd). */
static double run_cli(const char *mdae, const char *path, int n, char **out)
{
    int p[2];
    if (pipe(p) != 0)
        die("pipe: %s", strerror(errno));
    char def[32];
    snprintf(def, sizeof def, "N=%d", n);
    uint64_t t0 = now_ns();
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(p[1], 1);
        close(p[0]);
        close(p[1]);
        if (n > 0)
            execl(mdae, mdae, "analyze", "--json", "-D", def, path, (char *)NULL);
        else
            execl(mdae, mdae, "analyze", "--json", path, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    sbuf b = {0};
    sb_add(&b, "", 0);
    uint64_t end = t0 + (uint64_t)IO_WAIT_MS * 1000000u;
    char tmp[65536];
    for (;;) {
        uint64_t t = now_ns();
        if (t >= end) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            close(p[0]);
            die("mdae analyze %s N=%d: no end within %d s", path, n, IO_WAIT_MS / 1000);
        }
        struct pollfd pf = {p[0], POLLIN, 0};
        int r = poll(&pf, 1, (int)((end - t) / 1000000u) + 1);
        if (r < 0 && errno != EINTR)
            die("poll: %s", strerror(errno));
        if (r <= 0)
            continue;
        ssize_t k = read(p[0], tmp, sizeof tmp);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        sb_add(&b, tmp, (size_t)k);
    }
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    double s = (double)(now_ns() - t0) / 1e9;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        die("mdae analyze %s N=%d: exit status %d", path, n, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    *out = b.s;
    return s;
}

/* open+analyze on a fresh connection (a fresh worker), end to end. The
 * session is closed afterwards, outside the timing. *out gets the analysis
 * (the "result" member's text, malloc'd). */
static double run_server(const char *text, int n, char **out)
{
    sbuf p = {0};
    open_params(&p, text, n);
    uint64_t t0 = now_ns();
    conn c;
    conn_open(&c);
    char *a = call(&c, 1, "session/open", p.s);
    char *sid = session_of(a);
    free(a);
    sbuf q = {0};
    sb_printf(&q, "{\"session\":\"%s\"}", sid);
    char *res = call(&c, 2, "session/analyze", q.s);
    double s = (double)(now_ns() - t0) / 1e9;
    free(call(&c, 3, "session/close", q.s));
    conn_close(&c);
    /* strip {"jsonrpc":"2.0","id":2,"result": ... } */
    const char *r = strstr(res, "\"result\":");
    size_t rl = 0;
    if (r != NULL) {
        r += 9;
        rl = strlen(r);
        if (rl > 0 && r[rl - 1] == '}')
            rl--;
    }
    *out = xmalloc(rl + 1);
    memcpy(*out, r ? r : "", rl);
    (*out)[rl] = '\0';
    free(res);
    free(sid);
    free(p.s);
    free(q.s);
    return s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void row_overhead(const char *mdae, const char *name, int n, int reps)
{
    char *path = model_path(name);
    char *text = read_file(path);
    double cli[16], srvt[16];
    if (reps > 16)
        reps = 16;
    int same = 1;
    size_t cli_bytes = 0, srv_bytes = 0;
    /* Alternate CLI and server so both see the same background load. */
    for (int r = 0; r < reps; r++) {
        char *co = NULL, *so = NULL;
        cli[r] = run_cli(mdae, path, n, &co);
        srvt[r] = run_server(text, n, &so);
        /* The CLI ends its JSON with a newline; the server's is one line. */
        size_t cl = strlen(co);
        while (cl > 0 && (co[cl - 1] == '\n' || co[cl - 1] == ' '))
            cl--;
        cli_bytes = cl;
        srv_bytes = strlen(so);
        if (cl != srv_bytes || memcmp(co, so, cl) != 0)
            same = 0;
        free(co);
        free(so);
    }
    double cs[16], ss[16];
    memcpy(cs, cli, sizeof(double) * (size_t)reps);
    memcpy(ss, srvt, sizeof(double) * (size_t)reps);
    qsort(cs, (size_t)reps, sizeof(double), cmp_double);
    qsort(ss, (size_t)reps, sizeof(double), cmp_double);
    double cm = cs[reps / 2], sm = ss[reps / 2];
    printf("row3 analyze %s N=%d reps=%d\n", name, n, reps);
    printf("row3   cli    (mdae analyze --json) s:");
    for (int r = 0; r < reps; r++)
        printf(" %.3f", cli[r]);
    printf("  median %.3f\n", cm);
    printf("row3   server (open+analyze)        s:");
    for (int r = 0; r < reps; r++)
        printf(" %.3f", srvt[r]);
    printf("  median %.3f\n", sm);
    printf("row3   overhead %+.1f %%  (json %zu bytes cli, %zu bytes server, %s)\n",
           100.0 * (sm - cm) / cm, cli_bytes, srv_bytes,
           same ? "identical" : "DIFFERENT (whitespace or content)");
    fflush(stdout);
    free(path);
    free(text);
}

/* ---- Row 5: edits end to end ------------------------------------------------------ */

/* text with the first occurrence of from replaced by to (malloc'd). */
static char *replace_first(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (at == NULL)
        die("row 5: '%s' not in the model", from);
    sbuf b = {0};
    sb_printf(&b, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return b.s;
}

/* The "version" of an answer (session/edit's). */
static long version_of(const char *answer)
{
    const char *p = strstr(answer, "\"version\":");
    if (p == NULL)
        die("no version in: %.300s", answer);
    return strtol(p + 10, NULL, 10);
}

/* session/edit {text} then session/analyze with the given extra params:
 * seconds, end to end; *bytes the analysis answer's size, *version the
 * edit's. */
static double edit_analyze(conn *c, long long *id, const char *sid, const char *text,
                           const char *extra, size_t *bytes, long *version)
{
    sbuf e = {0}, q = {0};
    sb_printf(&e, "{\"session\":\"%s\",\"text\":", sid);
    sb_json_string(&e, text);
    sb_add(&e, "}", 1);
    uint64_t t0 = now_ns();
    char *a = call(c, (*id)++, "session/edit", e.s);
    *version = version_of(a);
    sb_printf(&q, "{\"session\":\"%s\"%s}", sid, extra);
    char *r = call(c, (*id)++, "session/analyze", q.s);
    double s = (double)(now_ns() - t0) / 1e9;
    *bytes = strlen(r);
    free(a);
    free(r);
    free(e.s);
    free(q.s);
    return s;
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* What a user of the server waits for after an edit of the brake at N (one
 * railcar's piston equation gets a derivative, the instance alternating
 * between two railcars so that every edit changes the model): session/edit
 * + session/analyze, with the full result, with stable ids, and with only
 * the difference from the previous version (since), against a cold
 * open+analyze of the same text on a fresh worker (issue 16, seen from the
 * protocol). Each figure a median of reps. */
static void row_edits(int n, int reps)
{
    char *path = model_path("brake");
    char *text = read_file(path);
    char *edited[2];
    for (int k = 0; k < 2; k++) {
        char to[160];
        snprintf(to, sizeof to,
                 "px[i] : equation b[i] = K*x[i] + (if i == %d then der(x[i]) else 0);",
                 n / 2 + k);
        edited[k] = replace_first(text, "px[i] : equation b[i] = K*x[i];", to);
    }
    double cold[16], full[16], stable[16], diff[16];
    size_t b_full = 0, b_stable = 0, b_diff = 0;
    if (reps > 16)
        reps = 16;
    conn c;
    conn_open(&c);
    sbuf p = {0}, q = {0};
    open_params(&p, text, n);
    char *a = call(&c, 1, "session/open", p.s);
    char *sid = session_of(a);
    sb_printf(&q, "{\"session\":\"%s\",\"stableIds\":true}", sid);
    free(call(&c, 2, "session/analyze", q.s));
    long long id = 3;
    long v = 0;
    for (int r = 0; r < reps; r++) {
        char *out = NULL;
        cold[r] = run_server(edited[r % 2], n, &out);
        free(out);
        full[r] = edit_analyze(&c, &id, sid, edited[(r + 1) % 2], "", &b_full, &v);
        stable[r] = edit_analyze(&c, &id, sid, edited[r % 2], ",\"stableIds\":true", &b_stable,
                                 &v);
        char since[64];
        snprintf(since, sizeof since, ",\"since\":%ld,\"stableIds\":true", v);
        diff[r] = edit_analyze(&c, &id, sid, edited[(r + 1) % 2], since, &b_diff, &v);
    }
    free(call(&c, id, "session/close", q.s));
    conn_close(&c);
    double cm = median_of(cold, reps);
    printf("row5 edits brake N=%d reps=%d (edit + analyze, end to end)\n", n, reps);
    printf("row5   cold open+analyze      %.4f s\n", cm);
    printf("row5   edit+analyze           %.4f s  ratio %.3f  (%zu bytes)\n",
           median_of(full, reps), median_of(full, reps) / cm, b_full);
    printf("row5   edit+analyze stableIds %.4f s  ratio %.3f  (%zu bytes)\n",
           median_of(stable, reps), median_of(stable, reps) / cm, b_stable);
    printf("row5   edit+analyze since     %.4f s  ratio %.3f  (%zu bytes)\n",
           median_of(diff, reps), median_of(diff, reps) / cm, b_diff);
    fflush(stdout);
    free(a);
    free(sid);
    free(p.s);
    free(q.s);
    free(edited[0]);
    free(edited[1]);
    free(text);
    free(path);
}

/* ---- Row 6: a persisted edit's commit ----------------------------------------------- */

/* n session/edit round trips of a session, alternating two one-equation
 * texts; their latencies (ns) into lat. persist: the session is kept in the
 * store (each edit commits its row before the answer). */
static void timed_edits(bool persist, int n, uint64_t *lat)
{
    static const char *const texts[2] = {"x : real;\ne : equation der(x) = 1;\n",
                                         "x : real;\ne : equation der(x) = 2;\n"};
    conn c;
    conn_open(&c);
    sbuf p = {0};
    sb_printf(&p, "{\"text\":");
    sb_json_string(&p, texts[0]);
    sb_printf(&p, ",\"persist\":%s}", persist ? "true" : "false");
    char *a = call(&c, 1, "session/open", p.s);
    if (persist && strstr(a, "\"persisted\":true") == NULL)
        die("row 6: the session is not persisted: %.300s", a);
    char *sid = session_of(a);
    for (int k = 0; k < n; k++) {
        sbuf e = {0};
        sb_printf(&e, "{\"session\":\"%s\",\"text\":", sid);
        sb_json_string(&e, texts[(k + 1) % 2]);
        sb_add(&e, "}", 1);
        uint64_t t0 = now_ns();
        char *r = call(&c, 2 + k, "session/edit", e.s);
        lat[k] = now_ns() - t0;
        free(r);
        free(e.s);
    }
    sbuf q = {0};
    sb_printf(&q, "{\"session\":\"%s\"}", sid);
    free(call(&c, 2 + n, "session/close", q.s));
    conn_close(&c);
    free(q.s);
    free(sid);
    free(a);
    free(p.s);
}

static void row_persisted_edit(int n)
{
    uint64_t *kept = xmalloc((size_t)n * sizeof *kept), *owned = xmalloc((size_t)n * sizeof *owned);
    timed_edits(false, n, owned); /* warm-up of the worker path, and the baseline */
    timed_edits(true, n, kept);
    timed_edits(false, n, owned);
    qsort(kept, (size_t)n, sizeof *kept, cmp_u64);
    qsort(owned, (size_t)n, sizeof *owned, cmp_u64);
    double k50 = pct_ms(kept, (size_t)n, 50), k99 = pct_ms(kept, (size_t)n, 99);
    double o50 = pct_ms(owned, (size_t)n, 50), o99 = pct_ms(owned, (size_t)n, 99);
    printf("row6 persisted edit (SQLite, WAL, synchronous FULL; %d edits each)\n", n);
    printf("row6   connection's session   p50 %.3f ms  p99 %.3f ms\n", o50, o99);
    printf("row6   persisted session      p50 %.3f ms  p99 %.3f ms\n", k50, k99);
    printf("row6   commit (difference)    p50 %.3f ms  p99 %.3f ms  (target <= 5 ms)\n",
           k50 - o50, k99 - o99);
    fflush(stdout);
    free(kept);
    free(owned);
}

/* ---- main ---------------------------------------------------------------------- */

/* Default binary paths: next to this one in the build tree
 * (build/tests/bench_server -> build/server/mdaed, build/clients/mdae). */
static void sibling(char *out, size_t n, const char *rel)
{
    char self[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", self, 3800);
    if (k <= 0) {
        snprintf(out, n, "%s", rel + 3);
        return;
    }
    self[k] = '\0';
    char *slash = strrchr(self, '/');
    if (slash != NULL)
        *slash = '\0';
    snprintf(out, n, "%.3800s/%s", self, rel);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_server [--mdaed PATH] [--mdae PATH] [--connections 50]\n"
            "                    [--seconds 5] [--sessions 200] [--reps 3] [--workers 32]\n"
            "                    [--rows 123456] [--timeout 900] [--initial-nodes N]\n"
            "                    [--edit-n 100]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    char mdaed[PATH_MAX], mdae[PATH_MAX];
    sibling(mdaed, sizeof mdaed, "../server/mdaed");
    sibling(mdae, sizeof mdae, "../clients/mdae");
    int n_conns = 50, n_sessions = 200, reps = 3, workers = 32, timeout = 900, edit_n = 100;
    long initial_nodes = -1;
    double seconds = 5;
    const char *rows = "123456";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc)
            usage();
        const char *v = argv[++i];
        if (strcmp(a, "--mdaed") == 0)
            snprintf(mdaed, sizeof mdaed, "%s", v);
        else if (strcmp(a, "--mdae") == 0)
            snprintf(mdae, sizeof mdae, "%s", v);
        else if (strcmp(a, "--connections") == 0)
            n_conns = atoi(v);
        else if (strcmp(a, "--seconds") == 0)
            seconds = atof(v);
        else if (strcmp(a, "--sessions") == 0)
            n_sessions = atoi(v);
        else if (strcmp(a, "--reps") == 0)
            reps = atoi(v);
        else if (strcmp(a, "--workers") == 0)
            workers = atoi(v);
        else if (strcmp(a, "--rows") == 0)
            rows = v;
        else if (strcmp(a, "--initial-nodes") == 0)
            initial_nodes = atol(v);
        else if (strcmp(a, "--timeout") == 0)
            timeout = atoi(v);
        else if (strcmp(a, "--edit-n") == 0)
            edit_n = atoi(v);
        else
            usage();
    }
    if (n_conns < 1 || n_conns > 1000 || n_sessions < 1 || n_sessions > 1000 || reps < 1 ||
        reps > 15 || seconds <= 0 || seconds > 120 || workers < 1 || timeout < 10 ||
        edit_n < 4 || edit_n > 100000)
        usage();
    signal(SIGALRM, on_fatal_signal);
    signal(SIGINT, on_fatal_signal);
    signal(SIGTERM, on_fatal_signal);
    signal(SIGPIPE, SIG_IGN);
    alarm((unsigned)timeout);

    server_port = server_start(mdaed, workers, initial_nodes);
    printf("# bench_server: mdaed %s on 127.0.0.1:%d (max_workers %d, bdd.initial_nodes %s),"
           " mdae %s\n",
           mdaed, server_port, workers,
           initial_nodes < 0 ? "conf default" : initial_nodes == 0 ? "0 (as the CLI)" : "set",
           mdae);
    printf("# machine: %ld cores online\n", sysconf(_SC_NPROCESSORS_ONLN));
    print_loadavg("at start");

    if (strchr(rows, '1') != NULL || strchr(rows, '4') != NULL) {
        /* One RLDC2 session, kept open by this connection for the rows.
         * Persistent (no state_dir: nothing is written), so that the rows'
         * other connections may use it by its made id (issue 37: a
         * connection's own sessions are nobody else's). */
        conn owner;
        conn_open(&owner);
        char *path = model_path("rldc2");
        char *text = read_file(path);
        sbuf p = {0};
        open_params(&p, text, 0);
        p.s[p.len - 1] = ',';
        sb_add(&p, "\"persist\":true}", 15);
        char *a = call(&owner, 1, "session/open", p.s);
        char *sid = session_of(a);
        free(a);
        sbuf q = {0};
        sb_printf(&q, "{\"session\":\"%s\"}", sid);
        free(call(&owner, 2, "session/analyze", q.s));
        /* Warm up: each of the 4 modes once (the first asks the worker, the
         * rest are the router's per-session cache, see srv.h). */
        for (int k = 0; k < 4; k++) {
            sbuf m = {0};
            sb_printf(&m, "{\"session\":\"%s\",\"mode\":%s}", sid, rldc2_modes[k]);
            char *r = call(&owner, 10 + k, "session/mode", m.s);
            if (k == 0)
                printf("# row1 answer size: %zu bytes\n", strlen(r));
            free(r);
            free(m.s);
        }
        if (strchr(rows, '1') != NULL) {
            print_loadavg("before row 1");
            row_mode("row1", sid, n_conns, 1, seconds, 0);
            row_mode("row1", sid, n_conns, 4, seconds, 0);
        }
        if (strchr(rows, '4') != NULL)
            row_proxy(sid, n_conns, seconds);
        free(call(&owner, 3, "session/close", q.s));
        conn_close(&owner);
        free(sid);
        free(path);
        free(text);
        free(p.s);
        free(q.s);
    }
    if (strchr(rows, '2') != NULL) {
        print_loadavg("before row 2");
        row_sessions(n_sessions);
    }
    if (strchr(rows, '3') != NULL) {
        print_loadavg("before row 3");
        row_overhead(mdae, "brake", 100, reps);
        row_overhead(mdae, "building_compressible", 6, reps);
    }
    if (strchr(rows, '5') != NULL) {
        print_loadavg("before row 5");
        row_edits(edit_n, reps < 5 ? 5 : reps);
    }
    if (strchr(rows, '6') != NULL) {
        print_loadavg("before row 6");
        row_persisted_edit(200);
    }
    print_loadavg("at end");
    server_stop();
    remove_tmpdir();
    return 0;
}
