/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/server/srv_test.h -- shared harness of the server tests: start a real
 * mdaed on 127.0.0.1 with an ephemeral port (and a Unix socket in a temporary
 * directory), talk to it over sockets with bounded waits, stop it.
 *
 * Every wait is bounded (SRV_TEST_WAIT_MS) so a broken server fails a test
 * instead of hanging it. Functions are static: each test file is its own
 * executable. The cl_ functions assert; the t_ socket and HTTP ones
 * (t_http_post for POST /rpc) do not, so that a test's threads may use them.
 */
#ifndef SRV_TEST_H
#define SRV_TEST_H

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "mdaed_proc.h"
#include "rpc_message.h"

#ifndef SRV_TEST_WAIT_MS /* a suite whose models load slowly sets it first */
#define SRV_TEST_WAIT_MS MDAED_PROC_WAIT_MS
#endif

typedef mdaed_proc srv_proc;

typedef struct client {
    int fd;
    char *buf;
    size_t len, cap;
} client;

static inline char *t_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

static inline char *t_model(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/models/%s", MDAE_SOURCE_DIR, name);
    return t_read_file(path);
}

/* Models for the mode-change tests (issue 13 item 7). T_TWO_MODES: p=T ->
 * p=F is an underdetermined restart (x, x. are not determined) whatever the
 * independent h does: of 12 changes, 4 continuous, 4 reset, 4 rejected for
 * one reason, at x's declaration (line 1). */
#define T_TWO_MODES                                                                        \
    "x : real;\np : boolean;\ne : equation 1 = if p then x else der(x);\n"                \
    "y : real;\nh : boolean;\nf : equation y = if h then 1.0 else 2.0;\n"

/* n independent copies of two_equations_mo.mel (x_i, p_i, e_i), into buf:
 * 2^n valid modes, every change with some p_i going from T to F rejected. */
static inline void t_copies_model(char *buf, size_t size, int n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 1; i <= n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len,
                                "x%d : real;\np%d : boolean;\n"
                                "e%d : equation 1 = if p%d then x%d else der(x%d);\n",
                                i, i, i, i, i, i);
    cr_assert_lt(len, size, "buffer too small");
}

/* One nonsingular equation and n mode variables that nothing reads, into
 * buf: past the mode-change enumeration's 20 mode variables for n > 20. */
static inline void t_wide_model(char *buf, size_t size, int n)
{
    size_t len = (size_t)snprintf(buf, size, "x : real;\ne : equation der(x) = 1;\n");
    for (int i = 1; i <= n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "g%d : boolean;\n", i);
    cr_assert_lt(len, size, "buffer too small");
}

/* The test configuration (into conf, size bytes): `level` the log level,
 * `limits` inserted in the "limits" object (may be ""), `top` among the
 * top-level keys (may be ""). Nothing persists unless `top` gives a
 * "state_dir" (the later key wins). */
static inline void srv_conf(const srv_proc *p, const char *level, const char *limits,
                            const char *top, char *conf, size_t size)
{
    cr_assert_lt(snprintf(conf, size,
                           "// test configuration\n{\n"
                           "  \"listen\": {\"tcp\": \"127.0.0.1:0\", \"unix\": \"%s\"},\n"
                           "  \"web_root\": \"%s/clients/web\",\n"
                           "  \"log_level\": \"%s\",\n"
                           "  \"debug_methods\": true,\n"
                           "  \"state_dir\": \"none\",\n"
                           "  %s%s\n"
                           "  \"limits\": {\"worker_idle_ms\": 60000 %s%s}\n"
                           "}\n",
                           p->sock, MDAE_SOURCE_DIR, level, top, top[0] ? "," : "",
                           limits[0] ? "," : "", limits),
                 (int)size);
}

/* Start mdaed (tests/support/mdaed_proc.h) with srv_conf's configuration
 * at log level warn, its log on the test's stderr. */
static inline void srv_start(srv_proc *p, const char *limits, const char *top)
{
    mdaed_prepare(p, "mdaed-test");
    char conf[4096];
    srv_conf(p, "warn", limits, top, conf, sizeof conf);
    mdaed_start(p, conf, false);
}

/* The same at log level `level` ("debug", "info", ...), the server's log
 * (its stderr) written to DIR/mdaed.log (srv_log_path), for a test that
 * reads it. */
static inline void srv_start_logged(srv_proc *p, const char *level, const char *limits,
                                    const char *top)
{
    mdaed_prepare(p, "mdaed-test");
    char conf[4096];
    srv_conf(p, level, limits, top, conf, sizeof conf);
    mdaed_start(p, conf, true);
}

/* The path of a server's log, DIR/mdaed.log, into path (size bytes). */
static inline void srv_log_path(const srv_proc *p, char *path, size_t size)
{
    snprintf(path, size, "%s/mdaed.log", p->dir);
}

/* Stop with SIGTERM; returns the exit status (or -1 when it had to be
 * killed). */
static inline int srv_stop(srv_proc *p) { return mdaed_stop(p); }

static inline void cl_open_fd(client *c, int fd)
{
    memset(c, 0, sizeof *c);
    c->fd = fd;
    c->cap = 1 << 16;
    c->buf = malloc(c->cap);
}

static inline void cl_connect(client *c, const srv_proc *p)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)p->port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0, "connect: %s", strerror(errno));
    cl_open_fd(c, fd);
}

static inline void cl_connect_unix(client *c, const srv_proc *p)
{
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_un a = {0};
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", p->sock);
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0, "connect: %s", strerror(errno));
    cl_open_fd(c, fd);
}

static inline void cl_close(client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->buf);
    c->buf = NULL;
}

static inline void cl_send_raw(client *c, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = send(c->fd, s, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        cr_assert_gt(w, 0, "send: %s", strerror(errno));
        s += w;
        n -= (size_t)w;
    }
}

static inline void cl_send(client *c, const char *s) { cl_send_raw(c, s, strlen(s)); }

/* Read more bytes; false on EOF or timeout. */
static inline bool cl_fill(client *c, int timeout_ms)
{
    struct pollfd pfd = {c->fd, POLLIN, 0};
    if (poll(&pfd, 1, timeout_ms) <= 0)
        return false;
    if (c->len + 65536 > c->cap) {
        c->cap = c->cap * 2 + 65536;
        c->buf = realloc(c->buf, c->cap);
    }
    ssize_t n = recv(c->fd, c->buf + c->len, c->cap - c->len - 1, 0);
    if (n <= 0)
        return false;
    c->len += (size_t)n;
    return true;
}

/* Read until the server closes (EOF), for SRV_TEST_WAIT_MS at most, keeping
 * everything in c->buf, NUL-terminated (HTTP with Connection: close). Not
 * "until a silence": a streamed reply's head comes at once and its body
 * only when the work is done, seconds later under the sanitizers on a
 * loaded machine (a 2 s silence cut session/open through HAProxy short). */
static inline void cl_read_all(client *c)
{
    uint64_t end = t_now_ms() + SRV_TEST_WAIT_MS;
    for (uint64_t now = t_now_ms(); now < end; now = t_now_ms())
        if (!cl_fill(c, (int)(end - now)))
            break;
    if (c->buf != NULL)
        c->buf[c->len] = '\0';
}

/* True when the server closed the connection (EOF) within the wait. */
static inline bool cl_wait_eof(client *c)
{
    uint64_t end = t_now_ms() + SRV_TEST_WAIT_MS;
    while (t_now_ms() < end) {
        struct pollfd pfd = {c->fd, POLLIN, 0};
        if (poll(&pfd, 1, 100) <= 0)
            continue;
        char tmp[4096];
        ssize_t n = recv(c->fd, tmp, sizeof tmp, 0);
        if (n <= 0)
            return true;
    }
    return false;
}

static inline void cl_consume(client *c, size_t n)
{
    memmove(c->buf, c->buf + n, c->len - n);
    c->len -= n;
}

/* One NDJSON line (malloc'd, without the newline), or NULL on timeout/EOF. */
static inline char *cl_line(client *c)
{
    uint64_t end = t_now_ms() + SRV_TEST_WAIT_MS;
    for (;;) {
        char *nl = memchr(c->buf, '\n', c->len);
        if (nl != NULL) {
            size_t k = (size_t)(nl - c->buf);
            char *s = malloc(k + 1);
            memcpy(s, c->buf, k);
            s[k] = '\0';
            cl_consume(c, k + 1);
            return s;
        }
        uint64_t now = t_now_ms();
        if (now >= end || !cl_fill(c, (int)(end - now)))
            return NULL;
    }
}

/* One Content-Length framed body, or NULL. */
static inline char *cl_lsp(client *c)
{
    uint64_t end = t_now_ms() + SRV_TEST_WAIT_MS;
    for (;;) {
        c->buf[c->len] = '\0';
        char *hdr_end = strstr(c->buf, "\r\n\r\n");
        if (hdr_end != NULL) {
            size_t n = 0;
            cr_assert_eq(sscanf(c->buf, "Content-Length: %zu", &n), 1, "bad header: %s", c->buf);
            size_t h = (size_t)(hdr_end - c->buf) + 4;
            if (c->len >= h + n) {
                char *s = malloc(n + 1);
                memcpy(s, c->buf + h, n);
                s[n] = '\0';
                cl_consume(c, h + n);
                return s;
            }
        }
        uint64_t now = t_now_ms();
        if (now >= end || !cl_fill(c, (int)(end - now)))
            return NULL;
    }
}

static inline cJSON *cl_json(client *c)
{
    char *s = cl_line(c);
    cr_assert_not_null(s, "no reply from the server");
    cJSON *j = cJSON_Parse(s);
    cr_assert_not_null(j, "not JSON: %s", s);
    free(s);
    return j;
}

static inline cJSON *cl_lsp_json(client *c)
{
    char *s = cl_lsp(c);
    cr_assert_not_null(s, "no reply from the server");
    cJSON *j = cJSON_Parse(s);
    cr_assert_not_null(j, "not JSON: %s", s);
    free(s);
    return j;
}

/* Send one NDJSON request and return the response with that id, skipping
 * notifications. */
static inline cJSON *cl_call(client *c, const char *json)
{
    cl_send(c, json);
    cl_send(c, "\n");
    for (;;) {
        cJSON *j = cl_json(c);
        if (cJSON_GetObjectItem(j, "method") == NULL)
            return j;
        cJSON_Delete(j);
    }
}

/* Build {"jsonrpc":"2.0","id":id,"method":m,"params":params} (params taken). */
static inline char *t_request(int id, const char *method, cJSON *params)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "jsonrpc", "2.0");
    cJSON_AddNumberToObject(r, "id", id);
    cJSON_AddStringToObject(r, "method", method);
    if (params)
        cJSON_AddItemToObject(r, "params", params);
    char *s = cJSON_PrintUnformatted(r);
    cJSON_Delete(r);
    return s;
}

static inline cJSON *cl_request(client *c, int id, const char *method, cJSON *params)
{
    char *s = t_request(id, method, params);
    cJSON *r = cl_call(c, s);
    cJSON_free(s);
    return r;
}

/* Open a session on text; returns its id (malloc'd). */
static inline char *cl_open(client *c, const char *text)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "text", text);
    cJSON *r = cl_request(c, 100, "session/open", p);
    cJSON *res = cJSON_GetObjectItem(r, "result");
    cr_assert_not_null(res, "session/open failed: %s", cJSON_PrintUnformatted(r));
    char *id = strdup(cJSON_GetObjectItem(res, "session")->valuestring);
    cJSON_Delete(r);
    return id;
}

static inline cJSON *session_params(const char *sid)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "session", sid);
    return p;
}

static inline int error_code(const cJSON *r)
{
    const cJSON *e = cJSON_GetObjectItem(r, "error");
    /* the start of the answer only: criterion's report of an assertion
     * whose message is a whole analysis (megabytes) never arrived, and the
     * test hung instead of failing (CI, 2026-12-03) */
    cr_assert_not_null(e, "expected an error: %.400s", cJSON_PrintUnformatted(r));
    return cJSON_GetObjectItem(e, "code")->valueint;
}

static inline const char *error_message(const cJSON *r)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "message")->valuestring;
}

/* Send {"jsonrpc":"2.0"[,"id":id],"method":m[,"params":params]} in LSP
 * Content-Length framing; id < 0 makes it a notification (params taken). */
static inline void cl_lsp_send(client *c, const char *method, int id, cJSON *params)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    if (id >= 0)
        cJSON_AddNumberToObject(m, "id", id);
    cJSON_AddStringToObject(m, "method", method);
    if (params)
        cJSON_AddItemToObject(m, "params", params);
    char *s = cJSON_PrintUnformatted(m);
    char hdr[64];
    snprintf(hdr, sizeof hdr, "Content-Length: %zu\r\n\r\n", strlen(s));
    cl_send(c, hdr);
    cl_send(c, s);
    cJSON_free(s);
    cJSON_Delete(m);
}

/* initialize (request 1, no capabilities asked) and its answer, asserted
 * to be a result: returned (owned). */
static inline cJSON *cl_lsp_initialize(client *c)
{
    cl_lsp_send(c, "initialize", 1, cJSON_CreateObject());
    cJSON *r = cl_lsp_json(c);
    cr_assert_not_null(cJSON_GetObjectItem(r, "result"), "initialize: %s",
                       cJSON_PrintUnformatted(r));
    return r;
}

/* textDocument/didOpen of `text` as `uri` (languageId `lang`), version 1. */
static inline void cl_lsp_did_open(client *c, const char *uri, const char *lang, const char *text)
{
    cJSON *p = cJSON_CreateObject();
    cJSON *d = cJSON_AddObjectToObject(p, "textDocument");
    cJSON_AddStringToObject(d, "uri", uri);
    cJSON_AddStringToObject(d, "languageId", lang);
    cJSON_AddNumberToObject(d, "version", 1);
    cJSON_AddStringToObject(d, "text", text);
    cl_lsp_send(c, "textDocument/didOpen", -1, p);
}

/* shutdown (request `id`, its answer read), exit, and the server closes the
 * connection: asserted. The next message read is expected to answer the
 * shutdown, so call it with nothing else outstanding. */
static inline void cl_lsp_shutdown(client *c, int id)
{
    cl_lsp_send(c, "shutdown", id, NULL);
    cJSON_Delete(cl_lsp_json(c));
    cl_lsp_send(c, "exit", -1, NULL);
    cr_assert(cl_wait_eof(c));
}

/* One text edit as session/edit and LSP didChange spell it:
 * {"range":{"start":{line,character},"end":{line,character}},"text":text}. */
static inline cJSON *t_range_edit(int sl, int sc, int el, int ec, const char *text)
{
    cJSON *e = cJSON_CreateObject();
    cJSON *range = cJSON_AddObjectToObject(e, "range");
    cJSON *s = cJSON_AddObjectToObject(range, "start");
    cJSON_AddNumberToObject(s, "line", sl);
    cJSON_AddNumberToObject(s, "character", sc);
    cJSON *en = cJSON_AddObjectToObject(range, "end");
    cJSON_AddNumberToObject(en, "line", el);
    cJSON_AddNumberToObject(en, "character", ec);
    cJSON_AddStringToObject(e, "text", text);
    return e;
}

/* ---- Raw sockets and HTTP, without assertions (callable from any thread) ---- */

/* A TCP connection to 127.0.0.1:port (close-on-exec); -1 when refused. */
static inline int t_connect_port(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* Send the n bytes of s; false once the peer has closed (or on an error). */
static inline bool t_send_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        s += w;
        n -= (size_t)w;
    }
    return true;
}

/* Read fd until the peer closes (with `one_line`, until a newline came),
 * for wait_ms at most: everything read, NUL-terminated (malloc'd, caller
 * frees; NULL only when out of memory). */
static inline char *t_recv_all(int fd, bool one_line, int wait_ms)
{
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    uint64_t end = t_now_ms() + (uint64_t)wait_ms;
    while (buf != NULL && !(one_line && memchr(buf, '\n', len) != NULL)) {
        struct pollfd pfd = {fd, POLLIN, 0};
        int left = (int)(end - t_now_ms());
        if (left <= 0 || poll(&pfd, 1, left) <= 0)
            break;
        if (len + 65536 > cap) {
            char *nb = realloc(buf, cap * 2);
            if (nb == NULL)
                break;
            buf = nb;
            cap *= 2;
        }
        ssize_t n = recv(fd, buf + len, cap - len - 1, 0);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    if (buf != NULL)
        buf[len] = '\0';
    return buf;
}

/* The status of an HTTP reply's text; 0 when it has no status line. */
static inline int t_http_status(const char *reply)
{
    int status = 0;
    if (reply == NULL || sscanf(reply, "HTTP/1.%*d %d", &status) != 1)
        return 0;
    return status;
}

/* Send `request` (a whole HTTP request) on a new connection to
 * 127.0.0.1:port and read until the server closes, for wait_ms at most.
 * Returns the reply's status (0 when no status line came: refused, cut
 * or timed out); *reply everything read, head and body (NUL-terminated,
 * malloc'd, caller frees; "" when the connection was refused, NULL only
 * when out of memory). */
static inline int t_http_exchange(int port, const char *request, int wait_ms, char **reply)
{
    int fd = t_connect_port(port);
    if (fd < 0) {
        *reply = strdup("");
        return 0;
    }
    bool sent = t_send_all(fd, request, strlen(request));
    *reply = sent ? t_recv_all(fd, false, wait_ms) : strdup("");
    close(fd);
    return t_http_status(*reply);
}

#define T_JSON "application/json"

/* POST /rpc of `body` as t_http_exchange sends it: "Host: host" (left out
 * when NULL), the header lines `extra` (each ending in "\r\n"; NULL for
 * none), "Content-Type: type" (left out when NULL; T_JSON is what the web
 * page sends), "Connection: close" and the Content-Length. */
static inline int t_http_post(int port, const char *host, const char *extra, const char *type,
                              const char *body, int wait_ms, char **reply)
{
    size_t size = strlen(body) + (extra ? strlen(extra) : 0) + 1024;
    char *req = malloc(size);
    *reply = NULL;
    if (req == NULL)
        return 0;
    snprintf(req, size,
             "POST /rpc HTTP/1.1\r\n%s%s%s%s%s%s%sConnection: close\r\n"
             "Content-Length: %zu\r\n\r\n%s",
             host ? "Host: " : "", host ? host : "", host ? "\r\n" : "", extra ? extra : "",
             type ? "Content-Type: " : "", type ? type : "", type ? "\r\n" : "", strlen(body),
             body);
    int status = t_http_exchange(port, req, wait_ms, reply);
    free(req);
    return status;
}

/* The body of an HTTP reply's text, decoded in place when the head says
 * Transfer-Encoding: chunked; NULL when the head did not end. */
static inline char *t_http_body(char *reply)
{
    char *b = reply ? strstr(reply, "\r\n\r\n") : NULL;
    if (b == NULL)
        return NULL;
    b += 4;
    char *te = strstr(reply, "chunked");
    if (te == NULL || te > b)
        return b;
    char *in = b, *out = b;
    for (;;) {
        char *end;
        unsigned long n = strtoul(in, &end, 16);
        char *line = strstr(end, "\r\n");
        if (line == NULL || n == 0)
            break;
        in = line + 2;
        memmove(out, in, n);
        out += n;
        in += n + 2;
    }
    *out = '\0';
    return b;
}

/* The last line of text, its newline cut off in place: a streamed POST
 * /rpc body's JSON-RPC reply (its notifications come first). */
static inline char *t_last_line(char *text)
{
    char *last = text, *nl;
    while ((nl = strchr(last, '\n')) != NULL && nl[1] != '\0')
        last = nl + 1;
    last[strcspn(last, "\n")] = '\0';
    return last;
}

/* The stdout of the shell command cmd, parsed as JSON; NULL if it is not
 * JSON. Up to 4 MiB of output. */
static inline cJSON *t_command_json(const char *cmd)
{
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    size_t cap = 1 << 22, n = 0, k;
    char *buf = malloc(cap);
    cr_assert_not_null(buf);
    while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0)
        n += k;
    buf[n] = '\0';
    pclose(f);
    cJSON *j = cJSON_Parse(buf);
    free(buf);
    return j;
}

/* The `mdae ARGS tests/models/MODEL` output (the built CLI, stdout only),
 * parsed as JSON; NULL if it is not JSON. */
static inline cJSON *t_cli_json(const char *args, const char *model)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/clients/mdae %s %s/tests/models/%s 2>/dev/null",
             MDAE_BINARY_DIR, args, MDAE_SOURCE_DIR, model);
    return t_command_json(cmd);
}

#endif /* SRV_TEST_H */
