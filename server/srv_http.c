/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_http.c -- HTTP exchanges on the one port (issue 5 section 2):
 * POST /rpc carries a JSON-RPC body to the router and streams its answers
 * back chunked; GET and HEAD serve the small static files of web_root (the
 * placeholder page). One exchange at a time per connection: pipelined
 * requests would interleave chunked replies, so they are refused.
 *
 * A TCP exchange under an access token must carry `Authorization: Bearer
 * TOKEN`; the check holds for that exchange only.
 */
#include "srv.h"

#include <fcntl.h>
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

static const char *content_type(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot == NULL)
        return "application/octet-stream";
    if (strcmp(dot, ".html") == 0)
        return "text/html; charset=utf-8";
    if (strcmp(dot, ".js") == 0)
        return "text/javascript; charset=utf-8";
    if (strcmp(dot, ".css") == 0)
        return "text/css; charset=utf-8";
    if (strcmp(dot, ".json") == 0)
        return "application/json";
    if (strcmp(dot, ".svg") == 0)
        return "image/svg+xml";
    return "application/octet-stream";
}

/* GET / and GET /file from web_root. Small static files only: the read is a
 * blocking read of a local file at most 1 MiB, which we accept in the loop
 * (a placeholder page today, issue 5 section 2). */
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
    if (ulen == 0 || url[0] != '/' || strstr(url, "..") != NULL) {
        http_simple(c, "400 Bad Request", "text/plain", "bad path\n", 9, f->keep_alive);
        return;
    }
    if (ulen == 1)
        snprintf(path, sizeof path, "%s/index.html", srv.cfg.web_root);
    else
        snprintf(path, sizeof path, "%s%.*s", srv.cfg.web_root, (int)ulen, url);
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20)) {
        if (fd >= 0)
            close(fd);
        http_simple(c, "404 Not Found", "text/plain", "not found\n", 10, f->keep_alive);
        return;
    }
    char *buf = mdae_malloc((size_t)st.st_size + 1);
    ssize_t n = buf ? read(fd, buf, (size_t)st.st_size) : -1;
    close(fd);
    if (n < 0) {
        mdae_free(buf);
        http_simple(c, "500 Internal Server Error", "text/plain", "read error\n", 11, false);
        return;
    }
    http_simple(c, "200 OK", content_type(path), f->method == RPC_HTTP_HEAD ? "" : buf,
                f->method == RPC_HTTP_HEAD ? 0 : (size_t)n, f->keep_alive);
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
    if (f->method == RPC_HTTP_GET || f->method == RPC_HTTP_HEAD) {
        http_static(c, f);
        return;
    }
    size_t ulen = strcspn(f->url, "?#");
    if (f->method != RPC_HTTP_POST || ulen != 4 || strncmp(f->url, "/rpc", 4) != 0) {
        const char *msg = "mdaed: POST /rpc for JSON-RPC, GET / for the web page\n";
        http_simple(c, f->method == RPC_HTTP_POST ? "404 Not Found" : "405 Method Not Allowed",
                    "text/plain", msg, strlen(msg), f->keep_alive);
        return;
    }
    if (c->kind == SRV_CONN_TCP && srv.cfg.token != NULL) {
        char want[600];
        snprintf(want, sizeof want, "Bearer %s", srv.cfg.token);
        if (f->authorization == NULL || strcmp(f->authorization, want) != 0) {
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

