/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli_remote.c -- `mdae --server ADDRESS COMMAND ...`: the CLI as a
 * client of a running mdaed (issue 5 section 6), over newline-delimited
 * JSON-RPC 2.0 on a TCP or Unix socket.
 *
 * What it sends, per command (server/srv_methods.c lists the methods):
 *   auth {token}                       only when MDAE_TOKEN is set
 *   session/open {text, format:"mel"|"modelica", defines?}
 *   analyze:          session/analyze {session, families?}
 *   analyze --dot:    session/dot {session}      (result: DOT text, or
 *                                                 {"dot": text})
 *   analyze --svg:    session/svg {session}      (result: SVG text)
 *   mode:             session/mode {session, mode:{"g1":true,...}}
 *   modechange:       session/modechange {session, from:{...}, to:{...}};
 *                     with --all, session/modechanges {session}
 *   check:            nothing more: session/open's summary {counts,
 *                     diagnostics} is the check (the server runs sa_check
 *                     on open). One difference with the embedded check:
 *                     when the consistency check (not the parse) fails,
 *                     the server's error carries no counts, so the counts
 *                     line (JSON: "counts") is missing (null).
 *   session/close {session}                      (best effort)
 * and it prints what the embedded engine prints: the JSON as the server
 * sends it (the same rpc_json encoders made it), the text rendered from that
 * JSON (cli_render.c), and model errors as `FILE:LINE:COL` diagnostics with
 * a caret, rebuilt from the error's data.diagnostics against the local file.
 *
 * Exit codes from JSON-RPC errors: -32000+rc (our codes) maps like the
 * engine's rc (model errors 1, BDD node limit 3, others 4); -32602 on
 * session/mode and session/modechange (the server names the bad mode
 * variable, the invalid mode, or from = to) is a usage error, 2; everything else, including -32601 from a server that does not
 * implement a method yet, is 4 with the server's message. Nothing is faked:
 * what the server cannot do is reported as such.
 *
 * Plain non-blocking POSIX sockets (no libuv in a client): every wait is a
 * poll() with a deadline, every buffer has a cap (CLI_MAX_REPLY_BYTES), and
 * SIGPIPE is avoided with MSG_NOSIGNAL.
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "rpc_json.h"
#include "rpc_message.h"

/* Connecting (DNS excluded) never takes longer than this. */
#define CLI_CONNECT_TIMEOUT_MS 10000
/* session/close is a courtesy: do not wait long for it. */
#define CLI_CLOSE_TIMEOUT_MS 2000

typedef struct conn {
    int fd;
    const char *addr; /* borrowed: for messages */
    char *buf;        /* received bytes not consumed yet */
    size_t len, cap;
    int next_id;
    cli_remote_cmd cmd;
    bool broken; /* a call failed: the stream may be out of step */
    bool quiet;  /* do not print failures (the courtesy session/close) */
} conn;

static void say(const conn *c, const char *fmt, ...) MDAE_PRINTF(2, 3);
static void say(const conn *c, const char *fmt, ...)
{
    if (c->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* ---- Time and sockets ------------------------------------------------------ */

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for `events` on fd until the deadline. 1 ready, 0 timeout, -1 error. */
static int wait_fd(int fd, short events, long long deadline)
{
    for (;;) {
        long long left = deadline - now_ms();
        if (left <= 0)
            return 0;
        struct pollfd p = {fd, events, 0};
        int r = poll(&p, 1, left > 60000 ? 60000 : (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r > 0)
            return 1;
    }
}

/* Non-blocking connect with a deadline. 0, or -1 with errno set. */
static int connect_fd(int fd, const struct sockaddr *sa, socklen_t len)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return -1;
    if (connect(fd, sa, len) == 0)
        return 0;
    if (errno != EINPROGRESS && errno != EAGAIN)
        return -1;
    int r = wait_fd(fd, POLLOUT, now_ms() + CLI_CONNECT_TIMEOUT_MS);
    if (r == 0)
        errno = ETIMEDOUT;
    if (r <= 0)
        return -1;
    int err = 0;
    socklen_t el = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
        return -1;
    if (err != 0) {
        errno = err;
        return -1;
    }
    return 0;
}

/* Connect to "unix:PATH", "unix://PATH", "tcp://HOST:PORT" or "HOST:PORT"
 * (HOST may be "[v6]"). CLI_EXIT_OK, CLI_EXIT_USAGE for a malformed address,
 * CLI_EXIT_IO when the server cannot be reached (both printed). */
static int conn_open(conn *c, const char *addr)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->addr = addr;
    c->next_id = 1;
    if (strncmp(addr, "unix:", 5) == 0) {
        const char *path = addr + 5;
        if (strncmp(path, "//", 2) == 0)
            path += 2;
        struct sockaddr_un sun;
        memset(&sun, 0, sizeof sun);
        sun.sun_family = AF_UNIX;
        if (path[0] == '\0' || strlen(path) >= sizeof sun.sun_path) {
            fprintf(stderr, "mdae: invalid --server '%s': the socket path is empty or longer "
                            "than %zu bytes\n", addr, sizeof sun.sun_path - 1);
            return CLI_EXIT_USAGE;
        }
        memcpy(sun.sun_path, path, strlen(path) + 1);
        c->fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (c->fd < 0 || connect_fd(c->fd, (struct sockaddr *)&sun, sizeof sun) < 0) {
            fprintf(stderr, "mdae: cannot connect to the server at '%s': %s (see docs/operations.md)\n", addr,
                    strerror(errno));
            return CLI_EXIT_IO;
        }
        return CLI_EXIT_OK;
    }
    const char *hp = strncmp(addr, "tcp://", 6) == 0 ? addr + 6 : addr;
    char host[256], port[16];
    const char *colon = strrchr(hp, ':');
    size_t hlen = colon ? (size_t)(colon - hp) : 0;
    if (colon == NULL || hlen == 0 || hlen >= sizeof host || strlen(colon + 1) == 0 ||
        strlen(colon + 1) >= sizeof port || strchr(hp, '/') != NULL) {
        fprintf(stderr, "mdae: invalid --server '%s': expected tcp://HOST:PORT or unix:PATH (see "
                        "docs/protocol.md)\n",
                addr);
        return CLI_EXIT_USAGE;
    }
    memcpy(host, hp, hlen);
    host[hlen] = '\0';
    if (host[0] == '[' && host[hlen - 1] == ']') { /* [::1]:7420 */
        memmove(host, host + 1, hlen - 2);
        host[hlen - 2] = '\0';
    }
    strcpy(port, colon + 1);
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) {
        fprintf(stderr, "mdae: cannot resolve the server address '%s': %s (see docs/operations.md)\n", addr,
                gai_strerror(gai));
        return CLI_EXIT_IO;
    }
    int err = 0;
    for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
        c->fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (c->fd >= 0 && connect_fd(c->fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        err = errno;
        if (c->fd >= 0)
            close(c->fd);
        c->fd = -1;
    }
    freeaddrinfo(res);
    if (c->fd < 0) {
        fprintf(stderr, "mdae: cannot connect to the server at '%s': %s (see docs/operations.md)\n", addr,
                strerror(err));
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

static void conn_close(conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    mdae_free(c->buf);
    memset(c, 0, sizeof *c);
    c->fd = -1;
}

static bool send_all(conn *c, const char *p, size_t n, long long deadline)
{
    while (n > 0) {
        ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int r = wait_fd(c->fd, POLLOUT, deadline);
            if (r <= 0) {
                if (r == 0)
                    errno = ETIMEDOUT;
                return false;
            }
            continue;
        }
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Next line from the server (without '\n', NUL-terminated, inside c->buf;
 * valid until consume()). false with a message printed (unless quiet) on
 * EOF, timeout, error or an oversized line. *used is what consume() must
 * drop before the next read. */
static bool read_line(conn *c, long long deadline, char **line, size_t *used)
{
    for (;;) {
        char *nl = c->len ? memchr(c->buf, '\n', c->len) : NULL;
        if (nl != NULL) {
            *nl = '\0';
            *line = c->buf;
            *used = (size_t)(nl - c->buf) + 1;
            return true;
        }
        if (c->len >= CLI_MAX_REPLY_BYTES) {
            say(c, "mdae: the server's answer exceeds %zu MiB; giving up\n",
                    CLI_MAX_REPLY_BYTES >> 20);
            return false;
        }
        if (c->cap - c->len < 4096) {
            size_t ncap = c->cap ? c->cap * 2 : 65536;
            if (ncap > CLI_MAX_REPLY_BYTES + 1)
                ncap = CLI_MAX_REPLY_BYTES + 1;
            char *nb = mdae_realloc(c->buf, ncap);
            if (nb == NULL) {
                say(c, "mdae: out of memory reading the server's answer\n");
                return false;
            }
            c->buf = nb;
            c->cap = ncap;
        }
        ssize_t r = recv(c->fd, c->buf + c->len, c->cap - c->len - 1, 0);
        if (r > 0) {
            c->len += (size_t)r;
            continue;
        }
        if (r == 0) {
            say(c, "mdae: the server at '%s' closed the connection\n", c->addr);
            return false;
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            say(c, "mdae: reading from the server at '%s': %s\n", c->addr,
                    strerror(errno));
            return false;
        }
        int w = wait_fd(c->fd, POLLIN, deadline);
        if (w == 0) {
            say(c, "mdae: no answer from the server at '%s' in time (--timeout)\n",
                    c->addr);
            return false;
        }
        if (w < 0) {
            say(c, "mdae: waiting for the server at '%s': %s\n", c->addr,
                    strerror(errno));
            return false;
        }
    }
}

static void consume(conn *c, size_t n)
{
    memmove(c->buf, c->buf + n, c->len - n);
    c->len -= n;
}

/* Call `method` with params (taken). On true, *response is the whole
 * response object (owned: cJSON_Delete), with "result" or "error".
 * Notifications (progress...) are skipped. false: printed. */
static bool call(conn *c, const char *method, cJSON *params, int timeout_ms, cJSON **response)
{
    long long deadline = now_ms() + timeout_ms;
    int id = c->next_id++;
    cJSON *jid = cJSON_CreateNumber(id);
    cJSON *req = NULL;
    if (jid != NULL)
        req = rpc_request_new(jid, method, params); /* takes params */
    else
        cJSON_Delete(params);
    cJSON_Delete(jid);
    char *text = NULL;
    size_t len = 0;
    if (req == NULL || rpc_print(req, &text, &len) < 0) {
        cJSON_Delete(req);
        say(c, "mdae: out of memory\n");
        return false;
    }
    cJSON_Delete(req);
    bool ok = send_all(c, text, len, deadline) && send_all(c, "\n", 1, deadline);
    mdae_free(text);
    if (!ok) {
        say(c, "mdae: sending to the server at '%s': %s\n", c->addr, strerror(errno));
        return false;
    }
    for (;;) {
        char *line;
        size_t used;
        if (!read_line(c, deadline, &line, &used))
            return false;
        cJSON *msg = cJSON_Parse(line);
        consume(c, used);
        if (msg == NULL) {
            say(c, "mdae: the server at '%s' sent something that is not JSON\n",
                    c->addr);
            return false;
        }
        const cJSON *mid = cJSON_GetObjectItemCaseSensitive(msg, "id");
        bool is_response = cJSON_GetObjectItemCaseSensitive(msg, "method") == NULL;
        /* Ours: our id, or null (the server could not read our id). */
        if (is_response && (cJSON_IsNull(mid) || (cJSON_IsNumber(mid) && mid->valueint == id))) {
            *response = msg;
            return true;
        }
        cJSON_Delete(msg); /* a notification, or an answer we did not wait for */
    }
}

/* ---- Errors ----------------------------------------------------------------------- */

static mdae_pos json_pos(const cJSON *p)
{
    mdae_pos r = {0, 0, 0};
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(p, "line");
    const cJSON *col = cJSON_GetObjectItemCaseSensitive(p, "col");
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(p, "offset");
    if (cJSON_IsNumber(l) && l->valuedouble >= 0 && l->valuedouble < 4e9)
        r.line = (uint32_t)l->valuedouble;
    if (cJSON_IsNumber(col) && col->valuedouble >= 0 && col->valuedouble < 4e9)
        r.col = (uint32_t)col->valuedouble;
    if (cJSON_IsNumber(off) && off->valuedouble >= 0 && off->valuedouble < 4e9)
        r.offset = (uint32_t)off->valuedouble;
    return r;
}

/* The "limit" of a diagnostic (rpc_json_limit) back on the last one added
 * to d (issue 36), so that it prints as the embedded engine's. */
static void limit_from_json(const cJSON *lim, mdae_diags *d)
{
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(lim, "setting"));
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(lim, "value");
    if (name == NULL || !cJSON_IsNumber(v) || d->count == 0)
        return;
    for (int id = 1; mdae_limit_get(id) != NULL; id++)
        if (strcmp(mdae_limit_get(id)->name, name) == 0) {
            d->items[d->count - 1].limit = id;
            d->items[d->count - 1].limit_value = v->valuedouble;
        }
}

/* Rebuild diagnostics from rpc_json_diags() JSON, to print them with the
 * local file's lines and carets exactly as the embedded engine does. */
static void diags_from_json(const cJSON *arr, mdae_diags *d)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        const char *sev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "severity"));
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "message"));
        const cJSON *range = cJSON_GetObjectItemCaseSensitive(it, "range");
        mdae_severity s = MDAE_SEV_ERROR;
        if (sev && strcmp(sev, "warning") == 0)
            s = MDAE_SEV_WARNING;
        else if (sev && strcmp(sev, "note") == 0)
            s = MDAE_SEV_NOTE;
        mdae_range r;
        memset(&r, 0, sizeof r);
        if (cJSON_IsObject(range)) {
            r.start = json_pos(cJSON_GetObjectItemCaseSensitive(range, "start"));
            r.end = json_pos(cJSON_GetObjectItemCaseSensitive(range, "end"));
        }
        mdae_diags_add(d, s, r, "%s", msg ? msg : "");
        limit_from_json(cJSON_GetObjectItemCaseSensitive(it, "limit"), d);
    }
}

/* `check --json` from the server's data: {"file","ok","counts","diagnostics"}
 * as cli_check.c prints it (counts and diagnostics borrowed, copied). */
static int print_check_json(const char *file, bool ok, const char *status, const cJSON *counts,
                            const cJSON *diags)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *cc = counts ? cJSON_Duplicate(counts, true) : cJSON_CreateNull();
    cJSON *dc = diags ? cJSON_Duplicate(diags, true) : cJSON_CreateArray();
    if (root == NULL || cc == NULL || dc == NULL || !cJSON_AddStringToObject(root, "file", file) ||
        !cJSON_AddBoolToObject(root, "ok", ok) ||
        (status != NULL && !cJSON_AddStringToObject(root, "status", status)) ||
        !cJSON_AddItemToObject(root, "counts", cc)) {
        cJSON_Delete(cc);
        cJSON_Delete(dc);
        cJSON_Delete(root);
        fprintf(stderr, "mdae: out of memory\n");
        return CLI_EXIT_IO;
    }
    if (!cJSON_AddItemToObject(root, "diagnostics", dc)) {
        cJSON_Delete(dc);
        cJSON_Delete(root);
        fprintf(stderr, "mdae: out of memory\n");
        return CLI_EXIT_IO;
    }
    int code = cli_print_json(root);
    cJSON_Delete(root);
    return code;
}

static unsigned long long count_of(const cJSON *counts, const char *key)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(counts, key);
    return cJSON_IsNumber(n) && n->valuedouble >= 0 ? (unsigned long long)n->valuedouble : 0;
}

static const char *plural(unsigned long long n) { return n == 1 ? "" : "s"; }

/* cli_print_counts() from the summary's counts. */
static void print_counts_json(const cJSON *counts)
{
    unsigned long long ne = count_of(counts, "equations"), nv = count_of(counts, "variables"),
                       nm = count_of(counts, "modeVariables"),
                       ni = count_of(counts, "incidences"), nin = count_of(counts, "invariants"),
                       np = count_of(counts, "parameters");
    printf("%llu equation%s, %llu variable%s, %llu mode variable%s", ne, plural(ne), nv,
           plural(nv), nm, plural(nm));
    if (nm < 64)
        printf(" (%llu mode%s)", 1ULL << nm, plural(1ULL << nm));
    else
        printf(" (2^%llu modes)", nm);
    printf(", %llu incidence%s, %llu invariant%s, %llu parameter%s", ni, plural(ni), nin,
           plural(nin), np, plural(np));
}

/* `check` from session/open's summary {counts, diagnostics}. */
static int print_check(const cli_source *src, const cli_opts *o, const cJSON *summary)
{
    const cJSON *counts = cJSON_GetObjectItemCaseSensitive(summary, "counts");
    const cJSON *diags = cJSON_GetObjectItemCaseSensitive(summary, "diagnostics");
    size_t warnings = 0, errors = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, diags) {
        const char *sev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "severity"));
        warnings += sev != NULL && strcmp(sev, "warning") == 0;
        errors += sev != NULL && strcmp(sev, "error") == 0;
    }
    if (o->json)
        return print_check_json(src->name, errors == 0, NULL, counts, diags);
    printf("%s: ", src->name);
    print_counts_json(counts);
    if (errors > 0)
        printf("\n%zu error%s", errors, errors == 1 ? "" : "s");
    else
        printf("\nok: no errors");
    if (warnings > 0)
        printf(", %zu warning%s", warnings, warnings == 1 ? "" : "s");
    printf("\n");
    return CLI_EXIT_OK;
}

/* Print a JSON-RPC error of `method` and return its exit code. */
static int remote_error(const conn *c, const cli_source *src, const char *method,
                        const cli_opts *o, const cJSON *err)
{
    const cJSON *jc = cJSON_GetObjectItemCaseSensitive(err, "code");
    const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(err, "message"));
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(err, "data");
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(data, "name"));
    int code = cJSON_IsNumber(jc) ? jc->valueint : RPC_INTERNAL_ERROR;
    if (msg == NULL)
        msg = "(no message)";
    if (code == RPC_METHOD_NOT_FOUND) {
        fprintf(stderr, "mdae: the server at '%s' cannot answer %s: %s (see docs/protocol.md)\n",
                c->addr, method, msg);
        return CLI_EXIT_IO;
    }
    if (code == RPC_INVALID_PARAMS && o->mode != NULL && strcmp(method, "session/mode") == 0) {
        fprintf(stderr, "mdae mode: invalid --mode '%s': %s (see docs/analysis.md)\n", o->mode, msg);
        return CLI_EXIT_USAGE;
    }
    if (code == RPC_INVALID_PARAMS && strncmp(method, "session/modechange", 18) == 0) {
        fprintf(stderr, "mdae modechange: %s\n", msg);
        return CLI_EXIT_USAGE;
    }
    int rc = code - RPC_MDAE_CODE(0);
    if (code <= RPC_MDAE_CODE(-1) && code >= RPC_MDAE_CODE(MDAE_E_PROTO)) {
        const cJSON *dj = cJSON_GetObjectItemCaseSensitive(data, "diagnostics");
        int exit_code = cli_exit_code(rc);
        if (exit_code == CLI_EXIT_MODEL && cJSON_IsArray(dj) && c->cmd == CLI_REMOTE_CHECK &&
            o->json) {
            /* `check --json` says it on stdout, like the embedded check. */
            int pc = print_check_json(src->name, false, NULL, NULL, dj);
            return pc == CLI_EXIT_OK ? exit_code : pc;
        }
        if (o->json && !o->dot && c->cmd == CLI_REMOTE_ANALYZE &&
            (exit_code == CLI_EXIT_MODEL || rc == MDAE_E_BDD_LIMIT)) {
            /* `analyze --json` says its verdict on stdout too, as the
             * embedded analyze does (issue 42); stderr as below */
            int pc = print_check_json(src->name, false,
                                      rc == MDAE_E_BDD_LIMIT ? "limit" : "error", NULL, dj);
            if (pc != CLI_EXIT_OK)
                return pc;
        }
        if (exit_code == CLI_EXIT_MODEL && cJSON_IsArray(dj) && cJSON_GetArraySize(dj) > 0) {
            mdae_diags d;
            mdae_diags_init(&d);
            diags_from_json(dj, &d);
            cli_print_diags(src, &d);
            fprintf(stderr, "%s: %zu error%s (see docs/languages.md)\n", src->name, d.errors,
                    d.errors == 1 ? "" : "s");
            mdae_diags_close(&d);
            return exit_code;
        }
        if (rc == MDAE_E_BDD_LIMIT) {
            mdae_diags d; /* located, naming the limit (issue 36) */
            mdae_diags_init(&d);
            diags_from_json(dj, &d);
            cli_print_diags(src, &d);
            mdae_diags_close(&d);
            fprintf(stderr, "%s: error: %s (on the server at '%s')\n", src->name, msg, c->addr);
            return CLI_EXIT_LIMIT;
        }
        fprintf(stderr, "%s: error: %s (%s, from the server at '%s')\n", src->name, msg,
                name ? name : mdae_err_name(rc), c->addr);
        return exit_code;
    }
    fprintf(stderr, "mdae: the server at '%s' answered %s with error %d: %s (see "
                    "docs/protocol.md)\n",
            c->addr, method, code, msg);
    return CLI_EXIT_IO;
}

/* Call and split the answer: CLI_EXIT_OK with *result (owned by *resp),
 * or an exit code (printed). */
static int request(conn *c, const cli_source *src, const cli_opts *o, const char *method,
                   cJSON *params, cJSON **resp, const cJSON **result)
{
    if (params == NULL) {
        fprintf(stderr, "mdae: out of memory\n");
        return CLI_EXIT_IO;
    }
    if (!call(c, method, params, o->timeout_ms, resp)) {
        c->broken = true;
        return CLI_EXIT_IO;
    }
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(*resp, "error");
    if (err != NULL)
        return remote_error(c, src, method, o, err);
    *result = cJSON_GetObjectItemCaseSensitive(*resp, "result");
    if (*result == NULL) {
        fprintf(stderr, "mdae: the server at '%s' answered %s with neither result nor error\n",
                c->addr, method);
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

/* ---- Commands ----------------------------------------------------------------------- */

static cJSON *open_params(const cli_opts *o, const cli_source *src)
{
    cJSON *p = cJSON_CreateObject();
    if (p == NULL || !cJSON_AddStringToObject(p, "text", src->text) ||
        !cJSON_AddStringToObject(p, "format", cli_is_modelica(o, src) ? "modelica" : "mel") ||
        (o->recover && !cJSON_AddTrueToObject(p, "recover")))
        goto fail;
    if (o->n_defines > 0) {
        cJSON *d = cJSON_AddObjectToObject(p, "defines");
        if (d == NULL)
            goto fail;
        for (size_t i = 0; i < o->n_defines; i++)
            if (!cJSON_AddNumberToObject(d, o->defines[i].name, (double)o->defines[i].value))
                goto fail;
    }
    return p;
fail:
    cJSON_Delete(p);
    return NULL;
}

static cJSON *session_params(const char *sid)
{
    cJSON *p = cJSON_CreateObject();
    if (p != NULL && !cJSON_AddStringToObject(p, "session", sid)) {
        cJSON_Delete(p);
        return NULL;
    }
    return p;
}

/* The command's method, params, and what to do with the result. */
static int run_command(conn *c, const cli_source *src, const cli_opts *o, cli_remote_cmd cmd,
                       const char *sid, cJSON *mode_obj)
{
    cJSON *resp = NULL;
    const cJSON *result = NULL;
    cJSON *p = session_params(sid);
    const char *method = cmd == CLI_REMOTE_MODE         ? "session/mode"
                         : cmd == CLI_REMOTE_MODECHANGE ? (o->all ? "session/modechanges"
                                                                  : "session/modechange")
                         : o->svg                       ? "session/svg"
                         : o->dot                       ? "session/dot"
                                                        : "session/analyze";
    if (p != NULL && cmd == CLI_REMOTE_MODECHANGE && !o->all) {
        cJSON *f = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(mode_obj, "from"), true);
        cJSON *t = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(mode_obj, "to"), true);
        if (f == NULL || !cJSON_AddItemToObject(p, "from", f)) {
            cJSON_Delete(f);
            cJSON_Delete(t);
            cJSON_Delete(p);
            p = NULL;
        } else if (t == NULL || !cJSON_AddItemToObject(p, "to", t)) {
            cJSON_Delete(t);
            cJSON_Delete(p);
            p = NULL;
        }
    }
    if (p != NULL && cmd == CLI_REMOTE_MODECHANGE && o->first &&
        (cJSON_AddTrueToObject(p, "first") == NULL ||
         (o->erasures && cJSON_AddTrueToObject(p, "erasures") == NULL) ||
         (o->instants && cJSON_AddTrueToObject(p, "instants") == NULL))) {
        cJSON_Delete(p);
        p = NULL;
    }
    if (p != NULL && cmd == CLI_REMOTE_ANALYZE && o->families &&
        cJSON_AddTrueToObject(p, "families") == NULL) {
        cJSON_Delete(p);
        p = NULL;
    }
    if (p != NULL && cmd == CLI_REMOTE_MODE) {
        cJSON *m = cJSON_Duplicate(mode_obj, true);
        if (m == NULL || !cJSON_AddItemToObject(p, "mode", m)) {
            cJSON_Delete(m);
            cJSON_Delete(p);
            p = NULL;
        }
    }
    int code = request(c, src, o, method, p, &resp, &result);
    if (code != CLI_EXIT_OK)
        goto done;
    const char *skipped =
        cmd == CLI_REMOTE_MODECHANGE
            ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "enumerationSkipped"))
            : NULL;
    if (skipped != NULL) /* --all past the enumeration: on BDDs, as locally */
        fprintf(stderr, "%s: note: %s; every instant of every change on BDDs instead (as "
                        "--first --erasures --instants)\n", src->name, skipped);
    if (o->dot) {
        const char *dot = cJSON_GetStringValue(result);
        if (dot == NULL)
            dot = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "dot"));
        if (dot == NULL) {
            fprintf(stderr, "mdae: the server at '%s' answered %s without %s text\n", c->addr,
                    method, o->svg ? "SVG" : "DOT");
            code = CLI_EXIT_IO;
            goto done;
        }
        code = cli_write_dot(o, dot);
    } else if (!cJSON_IsObject(result)) {
        fprintf(stderr, "mdae: the server at '%s' answered %s with a %s, not an object\n",
                c->addr, method, cJSON_IsArray(result) ? "list" : "scalar");
        code = CLI_EXIT_IO;
    } else if (o->json) {
        code = cli_print_json(result);
    } else if (cmd == CLI_REMOTE_MODE) {
        cli_render_mode(src->name, result);
    } else if (cmd == CLI_REMOTE_MODECHANGE) {
        mdae_diags d;
        mdae_diags_init(&d);
        diags_from_json(cJSON_GetObjectItemCaseSensitive(result, "diagnostics"), &d);
        cli_print_diags(src, &d);
        mdae_diags_close(&d);
        if (o->first || skipped != NULL)
            cli_render_first(src->name, result);
        else if (o->all)
            cli_render_modechanges(src->name, result);
        else
            cli_render_modechange(src->name, result);
    } else {
        cli_render_analysis(src->name, result);
    }
done:
    cJSON_Delete(resp);
    return code;
}

int cli_remote_run(const cli_opts *o, cli_remote_cmd cmd)
{
    if (o->node_limit != 0 || o->reorder) {
        fprintf(stderr, "mdae: --node-limit and --reorder do not apply with --server (the "
                        "server's configuration sets its BDD limits)\n");
        return CLI_EXIT_USAGE;
    }
    cJSON *mode_obj = NULL;
    if (cmd == CLI_REMOTE_MODECHANGE && !o->all) {
        /* Syntax first, as for mode: {"from": {...}, "to": {...}}. */
        char why[200] = "";
        cJSON *f = NULL, *t = NULL;
        int rc = rpc_json_mode_spec(o->from_mode, &f, why, sizeof why);
        const char *bad = rc == MDAE_E_INVAL ? "--from" : NULL;
        if (rc == MDAE_OK) {
            rc = rpc_json_mode_spec(o->to_mode, &t, why, sizeof why);
            bad = rc == MDAE_E_INVAL ? "--to" : NULL;
        }
        if (rc == MDAE_OK && (mode_obj = cJSON_CreateObject()) != NULL &&
            cJSON_AddItemToObject(mode_obj, "from", f)) {
            f = NULL;
            if (cJSON_AddItemToObject(mode_obj, "to", t))
                t = NULL;
            else
                rc = MDAE_E_NOMEM;
        } else if (rc == MDAE_OK) {
            rc = MDAE_E_NOMEM;
        }
        cJSON_Delete(f);
        cJSON_Delete(t);
        if (rc < 0) {
            cJSON_Delete(mode_obj);
            if (rc == MDAE_E_NOMEM)
                fprintf(stderr, "mdae: out of memory\n");
            else
                fprintf(stderr, "mdae modechange: invalid %s '%s': %s (see docs/mode_changes.md)\n", bad,
                        bad[2] == 'f' ? o->from_mode : o->to_mode, why);
            return rc == MDAE_E_NOMEM ? CLI_EXIT_IO : CLI_EXIT_USAGE;
        }
    }
    if (cmd == CLI_REMOTE_MODE) {
        /* Syntax first: no connection for a malformed mode. Names are the
         * server's to check (it has the model). */
        char why[200] = "";
        int rc = rpc_json_mode_spec(o->mode, &mode_obj, why, sizeof why);
        if (rc < 0) {
            if (rc == MDAE_E_NOMEM)
                fprintf(stderr, "mdae: out of memory\n");
            else
                fprintf(stderr, "mdae mode: invalid --mode '%s': %s (see docs/analysis.md)\n", o->mode, why);
            return rc == MDAE_E_NOMEM ? CLI_EXIT_IO : CLI_EXIT_USAGE;
        }
    }
    cli_source src;
    int code = cli_source_read(o->file, &src);
    if (code != CLI_EXIT_OK) {
        cJSON_Delete(mode_obj);
        return code;
    }
    src.color = cli_color_wanted(o->color);
    /* (a NUL byte, which no JSON string carries, was refused by cli_source_read) */
    size_t bad;
    if (!rpc_utf8_valid(src.text, src.len, &bad)) {
        /* mdaed takes UTF-8 only (JSON text is UTF-8; issue 37): say where,
         * in the file, rather than let the server point into its message. */
        size_t line = 1, col = 1;
        for (size_t i = 0; i < bad; i++) {
            if (src.text[i] == '\n') {
                line++;
                col = 1;
            } else if (((unsigned char)src.text[i] & 0xC0) != 0x80) {
                col++;
            }
        }
        fprintf(stderr, "%s:%zu:%zu: error: the file is not UTF-8 (byte 0x%02X); a server "
                        "takes UTF-8 text only (convert it, e.g. iconv -f latin1 -t utf-8; see "
                        "docs/languages.md)\n",
                src.name, line, col, (unsigned char)src.text[bad]);
        cli_source_close(&src);
        cJSON_Delete(mode_obj);
        return CLI_EXIT_MODEL;
    }
    rpc_json_init();
    conn c;
    cJSON *resp = NULL;
    const cJSON *result = NULL;
    char *sid = NULL;
    code = conn_open(&c, o->server);
    if (code != CLI_EXIT_OK)
        goto done;
    c.cmd = cmd;
    const char *token = getenv("MDAE_TOKEN");
    if (token != NULL && token[0] != '\0') {
        cJSON *ap = cJSON_CreateObject();
        if (ap != NULL && !cJSON_AddStringToObject(ap, "token", token)) {
            cJSON_Delete(ap);
            ap = NULL;
        }
        code = request(&c, &src, o, "auth", ap, &resp, &result);
        cJSON_Delete(resp);
        resp = NULL;
        if (code != CLI_EXIT_OK)
            goto done;
    }
    code = request(&c, &src, o, "session/open", open_params(o, &src), &resp, &result);
    if (code != CLI_EXIT_OK)
        goto done;
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "session"));
    if (s == NULL || (sid = mdae_strdup(s)) == NULL) {
        fprintf(stderr, "mdae: the server at '%s' opened no session\n", o->server);
        code = CLI_EXIT_IO;
        goto done;
    }
    /* Warnings of the model, as the embedded engine prints them. */
    const cJSON *summary = cJSON_GetObjectItemCaseSensitive(result, "summary");
    const cJSON *warns = cJSON_GetObjectItemCaseSensitive(summary, "diagnostics");
    if (cJSON_GetArraySize(warns) > 0 && !(cmd == CLI_REMOTE_CHECK && o->json)) {
        mdae_diags d;
        mdae_diags_init(&d);
        diags_from_json(warns, &d);
        cli_print_diags(&src, &d);
        mdae_diags_close(&d);
    }

    /* Syntax errors recovered from (o->recover): said last, as locally. */
    const cJSON *nse = cJSON_GetObjectItemCaseSensitive(summary, "syntaxErrors");
    uint32_t n_syntax = cJSON_IsNumber(nse) ? (uint32_t)nse->valuedouble : 0;
    uint32_t n_left = (uint32_t)cJSON_GetArraySize(
        cJSON_GetObjectItemCaseSensitive(summary, "leftOut"));
    if (cmd == CLI_REMOTE_CHECK)
        code = print_check(&src, o, summary); /* summary is still in resp */
    cJSON_Delete(resp);
    resp = NULL;
    if (cmd != CLI_REMOTE_CHECK)
        code = run_command(&c, &src, o, cmd, sid, mode_obj);
    if (!(cmd == CLI_REMOTE_CHECK && o->json))
        code = cli_syntax_verdict_n(src.name, n_syntax, n_left, code);
    else if (n_syntax > 0 && code == CLI_EXIT_OK)
        code = CLI_EXIT_MODEL;

    /* The session would also close with the connection; say it anyway. */
    cJSON *cr = NULL;
    cJSON *cp = session_params(sid);
    c.quiet = true;
    if (cp != NULL && !c.broken && call(&c, "session/close", cp, CLI_CLOSE_TIMEOUT_MS, &cr))
        cJSON_Delete(cr);
    else if (cp != NULL && c.broken)
        cJSON_Delete(cp);
done:
    cJSON_Delete(resp);
    mdae_free(sid);
    conn_close(&c);
    cli_source_close(&src);
    cJSON_Delete(mode_obj);
    return code;
}
