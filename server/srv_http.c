/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_http.c -- HTTP exchanges on the one port (issue 5 section 2):
 * POST /rpc carries a JSON-RPC body to the router and streams its answers
 * back chunked; GET and HEAD serve the small static files of web_root (the
 * web page built from clients/web, issue 14). One exchange at a time per
 * connection: pipelined requests would interleave chunked replies, so they
 * are refused.
 *
 * A TCP exchange under an access token must carry `Authorization: Bearer
 * TOKEN`; the check holds for that exchange only. GET /health answers
 * "ok" without one (a load balancer's check: it says the loop is alive
 * and nothing else).
 */
#include "srv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void http_simple(srv_conn *c, const char *status, const char *type, const char *body,
                        size_t len, bool keep_alive)
{
    char *out;
    size_t olen;
    if (rpc_http_response(status, type, body, len, keep_alive, &out, &olen) == MDAE_OK)
        srv_conn_write(c, out, olen);
    if (!keep_alive)
        srv_conn_end(c, "HTTP response sent");
}

/* The Content-Type of a static file, by its extension: the types the web
 * page's build writes (clients/web, issue 14); anything else is served as
 * bytes. */
static const char *content_type(const char *path)
{
    static const struct {
        const char *ext, *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".json", "application/json"},
        {".map", "application/json"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".ico", "image/x-icon"},
        {".txt", "text/plain; charset=utf-8"},
        {".mel", "text/plain; charset=utf-8"},
        {".mo", "text/plain; charset=utf-8"},
        {".bmo", "text/plain; charset=utf-8"},
        {".woff2", "font/woff2"},
    };
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (dot == NULL || (slash != NULL && dot < slash))
        return "application/octet-stream";
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot, types[i].ext) == 0)
            return types[i].type;
    return "application/octet-stream";
}

/* Whether the first len bytes of url name a file inside web_root: "/"
 * followed by segments of letters, digits, '-', '_' and '.', none empty,
 * none starting with '.' (so no "..", no hidden files), at most
 * SRV_HTTP_PATH_MAX bytes. Percent-escapes are not decoded, so they cannot
 * smuggle a "..": a '%' is simply refused, like every other byte. */
#define SRV_HTTP_PATH_MAX 256
static bool static_path_ok(const char *url, size_t len)
{
    if (len == 0 || len > SRV_HTTP_PATH_MAX || url[0] != '/')
        return false;
    if (len == 1)
        return true;
    bool seg_start = true;
    for (size_t i = 1; i < len; i++) {
        char ch = url[i];
        if (ch == '/') {
            if (seg_start)
                return false; /* empty segment */
            seg_start = true;
            continue;
        }
        if (seg_start && ch == '.')
            return false;
        seg_start = false;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                  ch == '-' || ch == '_' || ch == '.';
        if (!ok)
            return false;
    }
    return !seg_start; /* no trailing '/' */
}

/* Largest static file served. The read is a blocking read of a local file,
 * which we accept in the loop for files this small (the page and its one
 * bundled script, about 0.5 MB). */
#define SRV_HTTP_FILE_MAX (4u << 20)

/* GET / and GET /file from web_root. */
static void http_static(srv_conn *c, const rpc_frame *f)
{
    char path[1200];
    const char *url = f->url;
    size_t ulen = strcspn(url, "?#");
    if (srv.cfg.web_root == NULL) {
        const char *msg = "mdaed: no web_root configured\n";
        http_simple(c, "404 Not Found", "text/plain", msg, strlen(msg), f->keep_alive);
        return;
    }
    if (!static_path_ok(url, ulen)) {
        http_simple(c, "400 Bad Request", "text/plain", "bad path\n", 9, f->keep_alive);
        return;
    }
    int pn = ulen == 1 ? snprintf(path, sizeof path, "%s/index.html", srv.cfg.web_root)
                       : snprintf(path, sizeof path, "%s%.*s", srv.cfg.web_root, (int)ulen, url);
    int fd = pn > 0 && (size_t)pn < sizeof path ? open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
                                                : -1;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size > SRV_HTTP_FILE_MAX) {
        if (fd >= 0)
            close(fd);
        const char *msg = ulen == 1 ? "mdaed: the web page is not built (make web)\n"
                                    : "not found\n";
        http_simple(c, "404 Not Found", "text/plain", msg, strlen(msg), f->keep_alive);
        return;
    }
    size_t want = (size_t)st.st_size, got = 0;
    char *buf = mdae_malloc(want + 1);
    while (buf != NULL && got < want) {
        ssize_t n = read(fd, buf + got, want - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (buf == NULL || got < want) {
        mdae_free(buf);
        http_simple(c, "500 Internal Server Error", "text/plain", "read error\n", 11, false);
        return;
    }
    http_simple(c, "200 OK", content_type(path), f->method == RPC_HTTP_HEAD ? "" : buf,
                f->method == RPC_HTTP_HEAD ? 0 : got, f->keep_alive);
    mdae_free(buf);
}

void srv_http_frame(srv_conn *c, const rpc_frame *f)
{
    if (c->http_busy) {
        /* Pipelined requests would interleave chunked replies: refuse. */
        MDAE_LOG(SRV_LOG_WARN, "conn %llu: pipelined HTTP request refused",
                 (unsigned long long)c->id);
        srv_conn_close(c, "HTTP pipelining is not supported");
        return;
    }
    size_t ulen = strcspn(f->url, "?#");
    if ((f->method == RPC_HTTP_GET || f->method == RPC_HTTP_HEAD) && ulen == 7 &&
        strncmp(f->url, "/health", 7) == 0) {
        /* HAProxy's health check (conf/haproxy.cfg, issue 37): the loop
         * answers, whatever the web root. Nothing about the sessions. */
        http_simple(c, "200 OK", "text/plain", f->method == RPC_HTTP_HEAD ? "" : "ok\n",
                    f->method == RPC_HTTP_HEAD ? 0 : 3, f->keep_alive);
        return;
    }
    if (f->method == RPC_HTTP_GET || f->method == RPC_HTTP_HEAD) {
        http_static(c, f);
        return;
    }
    if (f->method != RPC_HTTP_POST || ulen != 4 || strncmp(f->url, "/rpc", 4) != 0) {
        const char *msg = "mdaed: POST /rpc for JSON-RPC, GET / for the web page\n";
        http_simple(c, f->method == RPC_HTTP_POST ? "404 Not Found" : "405 Method Not Allowed",
                    "text/plain", msg, strlen(msg), f->keep_alive);
        return;
    }
    if (c->kind == SRV_CONN_TCP && srv.cfg.token != NULL) {
        const char *a = f->authorization;
        if (a == NULL || strncmp(a, "Bearer ", 7) != 0 || !srv_token_ok(a + 7)) {
            const char *msg = "mdaed: Authorization: Bearer TOKEN required\n";
            http_simple(c, "401 Unauthorized", "text/plain", msg, strlen(msg), false);
            return;
        }
    }
    c->authed = true; /* for this exchange; every request is checked again */
    c->http_busy = true;
    c->http_keep_alive = f->keep_alive;
    c->http_outstanding = 1; /* one body, one top-level response at most */
    const char *head = rpc_http_stream_head(f->keep_alive);
    char *h = mdae_strdup(head);
    if (h == NULL) {
        srv_conn_close(c, "out of memory");
        return;
    }
    srv_conn_write(c, h, strlen(h));
    bool owed = srv_router_body(c, f->body, f->len);
    if (c->kind == SRV_CONN_TCP && srv.cfg.token != NULL)
        c->authed = false;
    if (!owed && !c->closing && !c->ending) { /* notifications only: end the stream now */
        c->http_outstanding = 0;
        char *end = mdae_strdup(RPC_HTTP_STREAM_END);
        if (end != NULL)
            srv_conn_write(c, end, strlen(end));
        c->http_busy = false;
        if (!c->http_keep_alive)
            srv_conn_end(c, "HTTP exchange done");
    }
}

