/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/security/test_sec_bounds.c -- the connections' bounds (issue 37 item
 * 5, docs/security.md "Connections and their bounds") attacked against a
 * real mdaed with short limits: slowloris headers, idle connections,
 * stalled partial messages, the partial-message budget, a slow but steady
 * reader of a large result next to one that never reads, clients past the
 * descriptor limit and past limits.max_connections, and a client that
 * pipelines requests faster than it reads the replies.
 *
 * Each test failed on the server before the bounds (d1f2380): nothing was
 * ever closed for slowness or idleness, partial messages were kept without
 * a total, a reply larger than write_queue_bytes cut its reader off at
 * once (a pipelining client too, at write_queue_bytes), and a client past
 * the descriptor limit was dropped by libuv without a word (the new keys were unknown, so the server refused the
 * configurations that name them).
 */
#include "server/srv_test.h"

#include <sys/resource.h>

/* Under AddressSanitizer the router's resident size is the sanitizer's (its
 * quarantine holds freed memory back): the memory figures are checked in
 * plain builds only, the connections' fate in every build. */
#if defined(__SANITIZE_ADDRESS__)
#define SEC_CHECK_RSS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SEC_CHECK_RSS 0
#endif
#endif
#ifndef SEC_CHECK_RSS
#define SEC_CHECK_RSS 1
#endif

/* mdaed with `limits` in its "limits" object (srv_start_logged); its log
 * (level info) goes to DIR/mdaed.log for log_has. */
static void sec_start(srv_proc *p, const char *limits)
{
    srv_start_logged(p, "info", limits, "");
}

/* Does the server's log say `needle` within wait_ms? */
static bool log_has(const srv_proc *p, const char *needle, int wait_ms)
{
    char path[128];
    srv_log_path(p, path, sizeof path);
    uint64_t end = t_now_ms() + (uint64_t)wait_ms;
    do {
        FILE *f = fopen(path, "r");
        if (f != NULL) {
            char line[1024];
            bool found = false;
            while (!found && fgets(line, sizeof line, f) != NULL)
                found = strstr(line, needle) != NULL;
            fclose(f);
            if (found)
                return true;
        }
        t_sleep_ms(50);
    } while (t_now_ms() < end);
    return false;
}

/* The router's resident memory, kB. */
static long rss_kb(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    long kb = -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmRSS: %ld", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

/* A TCP connection to p (asserted). */
static int tcp_connect(const srv_proc *p)
{
    int fd = t_connect_port(p->port);
    cr_assert_geq(fd, 0, "connect: %s", strerror(errno));
    return fd;
}

/* Read until the server closes, for wait_ms at most: true on EOF (or a
 * reset), with what came in got (NUL-terminated, size bytes at most). */
static bool closed_within(int fd, int wait_ms, char *got, size_t size)
{
    size_t len = 0;
    uint64_t end = t_now_ms() + (uint64_t)wait_ms;
    got[0] = '\0';
    for (uint64_t now = t_now_ms(); now < end; now = t_now_ms()) {
        struct pollfd pfd = {fd, POLLIN, 0};
        if (poll(&pfd, 1, (int)(end - now)) <= 0)
            continue;
        char tmp[65536];
        ssize_t n = recv(fd, tmp, sizeof tmp, 0);
        if (n <= 0)
            return true;
        size_t k = (size_t)n < size - 1 - len ? (size_t)n : size - 1 - len;
        memcpy(got + len, tmp, k);
        len += k;
        got[len] = '\0';
    }
    return false;
}

/* A fresh connection's server/status is answered. */
static void status_answered(const srv_proc *p)
{
    client c;
    cl_connect(&c, p);
    cJSON *r = cl_call(&c, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"server/status\"}");
    cr_assert_not_null(cJSON_GetObjectItem(r, "result"), "server/status not answered");
    cJSON_Delete(r);
    cl_close(&c);
}

/* The error code of the JSON-RPC error line in s (0 when none). */
static int line_error_code(const char *s)
{
    const char *brace = strchr(s, '{');
    cJSON *j = brace ? cJSON_Parse(brace) : NULL;
    const cJSON *code = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "error"), "code");
    int rc = cJSON_IsNumber(code) ? code->valueint : 0;
    cJSON_Delete(j);
    return rc;
}

#define BOUNDS_LIMIT_CODE (-32005)   /* MDAE_E_LIMIT on the wire */
#define BOUNDS_TIMEOUT_CODE (-32010) /* MDAE_E_TIMEOUT on the wire */

/* 1. Slowloris: headers dribbled a line at a time are cut at
 * limits.header_timeout_ms with a 408, while others are served. */
Test(sec_bounds, slowloris_headers_are_cut)
{
    srv_proc p;
    sec_start(&p, "\"header_timeout_ms\": 600");
    enum { N = 10 };
    int fd[N];
    bool closed[N] = {false};
    char got[N][512];
    memset(got, 0, sizeof got);
    for (int i = 0; i < N; i++) {
        fd[i] = tcp_connect(&p);
        const char *head = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        cr_assert(t_send_all(fd[i], head, strlen(head)));
    }
    uint64_t start = t_now_ms();
    int n_closed = 0;
    while (n_closed < N && t_now_ms() - start < 4000) {
        for (int i = 0; i < N; i++) {
            if (closed[i])
                continue;
            t_send_all(fd[i], "X-Slow: 1\r\n", 11);
            struct pollfd pfd = {fd[i], POLLIN, 0};
            if (poll(&pfd, 1, 0) > 0 && closed_within(fd[i], 1000, got[i], sizeof got[i])) {
                closed[i] = true;
                n_closed++;
            }
        }
        t_sleep_ms(100);
    }
    uint64_t took = t_now_ms() - start;
    cr_assert_eq(n_closed, N, "%d of %d slowloris connections closed in %llu ms", n_closed, N,
                 (unsigned long long)took);
    for (int i = 0; i < N; i++) {
        cr_assert(strstr(got[i], "408") != NULL, "no 408 Request Timeout: \"%s\"", got[i]);
        close(fd[i]);
    }
    cr_assert(log_has(&p, "limits.header_timeout_ms", 1000));
    status_answered(&p);
    cr_assert_eq(srv_stop(&p), 0, "mdaed did not exit 0 (a sanitizer report?)");
}

/* 2. Idle connections are closed at their idle bound: a silent one at
 * limits.idle_ms, an HTTP keep-alive one at limits.http_idle_ms; one that
 * holds a session keeps its (longer) limits.idle_with_sessions_ms. */
Test(sec_bounds, idle_connections_are_closed)
{
    srv_proc p;
    sec_start(&p, "\"idle_ms\": 500, \"http_idle_ms\": 300, \"idle_with_sessions_ms\": 60000");
    enum { N = 20 };
    int fd[N];
    for (int i = 0; i < N; i++)
        fd[i] = tcp_connect(&p);
    client owner;
    cl_connect(&owner, &p);
    char *sid = cl_open(&owner, "x : real;\ne : equation der(x) = 1;\n");
    int http = tcp_connect(&p);
    const char *get = "GET /no-such-file HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    cr_assert(t_send_all(http, get, strlen(get)));
    uint64_t start = t_now_ms();
    char got[4096];
    for (int i = 0; i < N; i++) {
        cr_assert(closed_within(fd[i], 3000, got, sizeof got), "idle connection %d kept", i);
        close(fd[i]);
    }
    cr_assert(closed_within(http, 3000, got, sizeof got), "idle HTTP keep-alive connection kept");
    cr_assert(strncmp(got, "HTTP/1.1 ", 9) == 0, "the HTTP request was not answered: %s", got);
    close(http);
    uint64_t took = t_now_ms() - start;
    cr_assert_lt(took, 3000);
    t_sleep_ms(1000); /* the session's connection is idle twice idle_ms */
    cJSON *r = cl_request(&owner, 8, "session/close", session_params(sid));
    cr_assert_not_null(cJSON_GetObjectItem(r, "result"), "the session's connection was closed");
    cJSON_Delete(r);
    free(sid);
    cl_close(&owner);
    cr_assert(log_has(&p, "idle for", 1000));
    cr_assert_eq(srv_stop(&p), 0, "mdaed did not exit 0 (a sanitizer report?)");
}

/* A message begun and stalled, in each framing: its head (head, hn bytes)
 * then `pad` bytes of its body, never the rest. */
static int stall(const srv_proc *p, const char *head, size_t pad)
{
    int fd = tcp_connect(p);
    cr_assert(t_send_all(fd, head, strlen(head)));
    char *body = malloc(pad);
    memset(body, 'x', pad);
    cr_assert(t_send_all(fd, body, pad));
    free(body);
    return fd;
}

/* 3. A stalled partial message is answered and freed at
 * limits.body_timeout_ms, in NDJSON, LSP and HTTP framing. */
Test(sec_bounds, stalled_partial_message_is_freed)
{
    srv_proc p;
    sec_start(&p, "\"body_timeout_ms\": 1000, \"body_min_rate\": 1000000000000");
    t_sleep_ms(300);
    long base = rss_kb(p.pid);
    size_t pad = 4u << 20;
    int nd = stall(&p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/status\",\"params\":"
                       "{\"pad\":\"", pad);
    int lsp = stall(&p, "Content-Length: 9000000\r\n\r\n", pad);
    int http = stall(&p, "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                         "application/json\r\nContent-Length: 9000000\r\n\r\n", pad);
    t_sleep_ms(200);
    long held = rss_kb(p.pid);
    char got[4096];
    cr_assert(closed_within(nd, 4000, got, sizeof got), "stalled NDJSON line kept");
    cr_assert_eq(line_error_code(got), BOUNDS_TIMEOUT_CODE, "NDJSON: %s", got);
    cr_assert(closed_within(lsp, 4000, got, sizeof got), "stalled LSP body kept");
    cr_assert(strncmp(got, "Content-Length: ", 16) == 0, "LSP: %s", got);
    cr_assert_eq(line_error_code(got), BOUNDS_TIMEOUT_CODE, "LSP: %s", got);
    cr_assert(closed_within(http, 4000, got, sizeof got), "stalled HTTP body kept");
    cr_assert(strncmp(got, "HTTP/1.1 408", 12) == 0, "HTTP: %s", got);
    close(nd);
    close(lsp);
    close(http);
    cr_assert(log_has(&p, "limits.body_timeout_ms", 1000));
    /* The 12 MiB held are given back (the sweep trims the heap each second). */
    long after = held;
    for (int i = 0; i < 30 && after > base + 4096; i++) {
        t_sleep_ms(100);
        after = rss_kb(p.pid);
    }
    if (SEC_CHECK_RSS) {
        cr_assert_gt(held, base + 8192, "the partial messages did not show (%ld -> %ld kB)",
                     base, held);
        cr_assert_leq(after, base + 4096, "router memory %ld kB before, %ld held, %ld after",
                      base, held, after);
    }
    status_answered(&p);
    cr_assert_eq(srv_stop(&p), 0, "mdaed did not exit 0 (a sanitizer report?)");
}

/* 4. Past limits.partial_bytes the connections holding the largest partial
 * messages are told and closed; the router stays within its budget and a
 * normal client is still served. */
Test(sec_bounds, partial_budget_closes_the_largest)
{
    srv_proc p;
    sec_start(&p, "\"partial_bytes\": 8388608, \"body_timeout_ms\": 60000");
    t_sleep_ms(300);
    long base = rss_kb(p.pid);
    enum { N = 6 };
    int fd[N];
    size_t pad = 3u << 20;
    char *body = malloc(pad);
    memset(body, 'x', pad);
    for (int i = 0; i < N; i++) {
        fd[i] = tcp_connect(&p);
        const char *head = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/status\","
                           "\"params\":{\"pad\":\"";
        if (t_send_all(fd[i], head, strlen(head)))
            t_send_all(fd[i], body, pad); /* fails once the server closed it */
        t_sleep_ms(100);
    }
    free(body);
    status_answered(&p);
    long peak = rss_kb(p.pid);
    int cut = 0;
    char got[4096];
    for (int i = 0; i < N; i++) {
        struct pollfd pfd = {fd[i], POLLIN, 0};
        if (poll(&pfd, 1, 500) > 0 && closed_within(fd[i], 1000, got, sizeof got)) {
            cut++;
            cr_assert_eq(line_error_code(got), BOUNDS_LIMIT_CODE, "not told why: %s", got);
        }
        close(fd[i]);
    }
    cr_assert_geq(cut, 3, "only %d of %d stalled partial messages closed", cut, N);
    cr_assert(log_has(&p, "over limits.partial_bytes", 1000));
    /* 6 x 3 MiB sent; the budget keeps 8 MiB (a 4 MiB buffer each). */
    if (SEC_CHECK_RSS)
        cr_assert_lt(peak - base, 14 * 1024, "router grew by %ld kB", peak - base);
    cr_assert_eq(srv_stop(&p), 0, "mdaed did not exit 0 (a sanitizer report?)");
}

/* A model whose analysis is a large result: n independent equations, each
 * listed with its guard and offset (about 320 bytes each). */
static char *large_result_model(int n)
{
    size_t size = (size_t)n * 64 + 1, len = 0;
    char *text = malloc(size);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, size - len,
                                "x%d : real;\ne%d : equation der(x%d) = %d;\n", i, i, i, i);
    return text;
}

/* Open text and ask for its analysis, on a raw fd (NDJSON). */
static void ask_analysis(int fd, const char *text)
{
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "text", text);
    char *open = t_request(1, "session/open", pa);
    client c;
    cl_open_fd(&c, fd);
    cJSON *r = cl_call(&c, open);
    cJSON_free(open);
    const cJSON *res = cJSON_GetObjectItem(r, "result");
    cr_assert_not_null(res, "session/open failed");
    char *an = t_request(2, "session/analyze",
                         session_params(cJSON_GetObjectItem(res, "session")->valuestring));
    cJSON_Delete(r);
    free(c.buf); /* the fd stays the caller's */
    cr_assert(t_send_all(fd, an, strlen(an)) && t_send_all(fd, "\n", 1));
    cJSON_free(an);
}

/* 5. A client reading slowly but steadily (about 1 MiB/s) gets a result
 * forty times write_queue_bytes, whole; one that never reads is cut off
 * after write_stall_ms, logged, and its replies' memory is given back. */
Test(sec_bounds, slow_reader_gets_a_large_result_non_reader_is_cut)
{
    srv_proc p;
    sec_start(&p, "\"write_queue_bytes\": 65536, \"write_stall_ms\": 700");
    char *text = large_result_model(10000);
    /* Unix sockets: their kernel buffers are small (TCP's grow to megabytes
     * and would take the whole result off the server's hands). */
    client cu;
    cl_connect_unix(&cu, &p);
    int lazy = cu.fd;
    free(cu.buf);
    ask_analysis(lazy, text);
    cl_connect_unix(&cu, &p);
    int slow = cu.fd;
    free(cu.buf);
    ask_analysis(slow, text);
    free(text);
    /* About 1 MiB/s: 16 KiB every 16 ms. */
    size_t cap = 8u << 20, len = 0;
    char *buf = malloc(cap);
    char *reply = NULL; /* the line answering id 2 (notifications may come first) */
    /* The analysis first (seconds under the sanitizers on a loaded
     * machine), then its reading, timed from the first byte. */
    uint64_t start = t_now_ms(), first = 0;
    while (reply == NULL && t_now_ms() - (first ? first : start) < (first ? 30000u : 60000u)) {
        struct pollfd pfd = {slow, POLLIN, 0};
        if (poll(&pfd, 1, 1000) <= 0)
            continue;
        if (first == 0)
            first = t_now_ms();
        ssize_t n = recv(slow, buf + len, cap - len - 1 < 16384 ? cap - len - 1 : 16384, 0);
        cr_assert_gt(n, 0, "the slow reader was cut off after %zu bytes", len);
        len += (size_t)n;
        buf[len] = '\0';
        char *at = strstr(buf, "{\"jsonrpc\":\"2.0\",\"id\":2,");
        if (at != NULL && strchr(at, '\n') != NULL)
            reply = at;
        t_sleep_ms(16);
    }
    uint64_t took = t_now_ms() - (first ? first : start);
    cr_assert_not_null(reply, "the result did not come whole (%zu bytes in %llu ms)", len,
                       (unsigned long long)took);
    cr_assert_gt(len, 40u * 65536, "the result is only %zu bytes", len);
    cr_assert_gt(took, 1400, "read too fast (%llu ms) to be slow", (unsigned long long)took);
    cJSON *r = cJSON_Parse(reply);
    cr_assert_not_null(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "equations"),
                       "not the analysis: %.200s", reply);
    cJSON_Delete(r);
    free(buf);
    close(slow);
    cr_assert(log_has(&p, "client not reading", 5000), "the non-reader was not cut off");
    char got[64];
    (void)closed_within(lazy, 100, got, sizeof got);
    close(lazy);
    status_answered(&p);
    cr_assert_eq(srv_stop(&p), 0, "mdaed did not exit 0 (a sanitizer report?)");
}

/* Open connections (each answered once) until the server refuses one;
 * returns how many it served, the refusal in got. */
static int fill_until_refused(const srv_proc *p, int *fds, int max, char *got, size_t size)
{
    const char *st = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/status\"}\n";
    for (int i = 0; i < max; i++) {
        fds[i] = tcp_connect(p);
        cr_assert(t_send_all(fds[i], st, strlen(st)));
        client c;
        cl_open_fd(&c, fds[i]);
        char *line = cl_line(&c);
        free(c.buf);
        snprintf(got, size, "%s", line ? line : "(closed without a word)");
        bool refused = line == NULL || line_error_code(line) != 0;
        free(line);
        if (refused) {
            close(fds[i]);
            return i;
        }
    }
    return max;
}

/* 6. Out of descriptors (a low RLIMIT_NOFILE for the server): the next
 * client is answered with an error, the refusal logged, the warning near
 * the limit logged; once connections go, clients are served again. */
Test(sec_bounds, descriptor_exhaustion_is_answered)
{
    srv_proc p;
    struct rlimit old, low;
    cr_assert_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
    low = old;
    low.rlim_cur = 48;
    cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
    sec_start(&p, ""); /* the child inherits the low limit */
    cr_assert_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
    enum { MAX = 60 };
    int fds[MAX];
    char got[1024];
    int served = fill_until_refused(&p, fds, MAX, got, sizeof got);
    cr_assert_lt(served, MAX, "never refused");
    cr_assert_gt(served, 20, "refused too early (%d)", served);
    cr_assert_eq(line_error_code(got), BOUNDS_LIMIT_CODE, "refusal: %s", got);
    cr_assert(strstr(got, "descriptors") != NULL, "refusal: %s", got);
    cr_assert(log_has(&p, "client refused: server busy: out of file descriptors", 1000));
    cr_assert(log_has(&p, "of RLIMIT_NOFILE 48", 1000));
    for (int i = 0; i < 5; i++)
        close(fds[i]);
    t_sleep_ms(300);
    status_answered(&p);
    for (int i = 5; i < served; i++)
        close(fds[i]);
    cr_assert_eq(srv_stop(&p), 0, "mdaed did not exit 0 (a sanitizer report?)");
}

/* 7. Past limits.max_connections: an NDJSON client gets a JSON-RPC error,
 * an HTTP client a 503; the others are unaffected. */
Test(sec_bounds, max_connections_is_answered)
{
    srv_proc p;
    sec_start(&p, "\"max_connections\": 4");
    int fds[8];
    char got[1024];
    int served = fill_until_refused(&p, fds, 8, got, sizeof got);
    cr_assert_eq(served, 4, "served %d", served);
    cr_assert_eq(line_error_code(got), BOUNDS_LIMIT_CODE, "refusal: %s", got);
    cr_assert(strstr(got, "limits.max_connections") != NULL, "refusal: %s", got);
    int http = tcp_connect(&p);
    const char *post = "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                       "application/json\r\nContent-Length: 2\r\n\r\n{}";
    t_send_all(http, post, strlen(post));
    char resp[1024];
    cr_assert(closed_within(http, 3000, resp, sizeof resp));
    cr_assert(strncmp(resp, "HTTP/1.1 503", 12) == 0 || line_error_code(resp) == BOUNDS_LIMIT_CODE,
              "HTTP refusal: %s", resp);
    close(http);
    cr_assert(log_has(&p, "too many connections", 1000));
    client c;
    cl_open_fd(&c, fds[0]);
    cJSON *r = cl_call(&c, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"server/status\"}");
    cr_assert_not_null(cJSON_GetObjectItem(r, "result"));
    cJSON_Delete(r);
    cl_close(&c);
    t_sleep_ms(200);
    status_answered(&p);
    for (int i = 1; i < served; i++)
        close(fds[i]);
    cr_assert_eq(srv_stop(&p), 0, "mdaed did not exit 0 (a sanitizer report?)");
}

/* 8. A client that pipelines many requests and reads its replies slowly:
 * past write_queue_bytes its requests wait in the kernel (reading paused)
 * instead of the connection being cut, and every reply comes. */
Test(sec_bounds, pipelining_slow_reader_gets_every_reply)
{
    srv_proc p;
    sec_start(&p, "\"write_queue_bytes\": 16384, \"write_stall_ms\": 2000");
    client cu;
    cl_connect_unix(&cu, &p);
    int fd = cu.fd;
    free(cu.buf);
    enum { N = 3000 };
    const char *req = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/status\"}\n";
    size_t rlen = strlen(req), sent_bytes = 0, total = (size_t)N * rlen;
    int replies = 0;
    size_t received = 0;
    uint64_t end = t_now_ms() + 60000;
    while (replies < N && t_now_ms() < end) {
        if (sent_bytes < total) {
            size_t off = sent_bytes % rlen;
            ssize_t w = send(fd, req + off, rlen - off, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (w > 0) {
                sent_bytes += (size_t)w;
                continue;
            }
            cr_assert(w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK),
                      "the server closed a client that reads (%d replies)", replies);
        }
        struct pollfd pfd = {fd, POLLIN, 0};
        if (poll(&pfd, 1, 100) <= 0)
            continue;
        char buf[8192];
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        cr_assert_gt(n, 0, "cut off after %d replies", replies);
        received += (size_t)n;
        for (ssize_t i = 0; i < n; i++)
            replies += buf[i] == '\n';
        t_sleep_ms(5); /* about 1.5 MB/s */
    }
    cr_assert_eq(replies, N, "%d of %d replies (%zu bytes)", replies, N, received);
    cr_assert_gt(received, 20u * 16384, "replies of %zu bytes: the queue bound was not reached",
                 received);
    close(fd);
    cr_assert_eq(srv_stop(&p), 0, "mdaed did not exit 0 (a sanitizer report?)");
}
