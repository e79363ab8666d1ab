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
 *
 * The browser boundary (issue 37 item 2, docs/security.md): any web page
 * the user visits can make the browser post to 127.0.0.1, so POST /rpc
 * takes only what a foreign page cannot send without the browser asking
 * first or telling us: Content-Type application/json (a "simple" cross-
 * origin post is text/plain, a form's or a typeless Blob's), a Host that
 * names us (a DNS-rebinding page's Host is its own name), and an Origin,
 * when sent, that is the page's own or a configured one. CORS headers go
 * only to configured origins.
 *
 * Static files (issue 37 item 6): regular files whose real path is inside
 * the web root's, opened with O_NONBLOCK | O_NOFOLLOW and checked with
 * fstat after the open, so a FIFO or a device is refused without a read
 * that could wait, and a symbolic link out of the root is "not found".
 * They are cacheable with revalidation (issue 42): Cache-Control no-cache
 * and an ETag (size, modification time, encoding), 304 on If-None-Match;
 * a client that takes gzip gets the FILE.gz the page's build leaves beside
 * FILE (clients/web/build.mjs), when it is no older than FILE. mdaed
 * compresses nothing itself.
 */
/* realpath(3) is X/Open, not in the POSIX 2008 base the build asks for. */
#define _XOPEN_SOURCE 700
#include "srv.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* out (a whole response, owned) with the header lines extra ("Name: value\r\n"...)
 * after its status line; out itself when extra is NULL or on OOM. */
static char *with_headers(char *out, size_t *olen, const char *extra)
{
    if (extra == NULL)
        return out;
    const char *eol = strstr(out, "\r\n");
    char *r = eol ? mdae_malloc(*olen + strlen(extra) + 1) : NULL;
    if (r == NULL)
        return out;
    size_t head = (size_t)(eol - out) + 2, xl = strlen(extra);
    memcpy(r, out, head);
    memcpy(r + head, extra, xl);
    memcpy(r + head + xl, out + head, *olen - head + 1);
    *olen += xl;
    mdae_free(out);
    return r;
}

/* A whole response; extra: more header lines (CORS) or NULL. */
static void http_reply(srv_conn *c, const char *status, const char *type, const char *body,
                       size_t len, bool keep_alive, const char *extra)
{
    char *out;
    size_t olen;
    if (rpc_http_response(status, type, body, len, keep_alive, &out, &olen) == MDAE_OK) {
        out = with_headers(out, &olen, extra); /* before olen is read */
        srv_conn_write(c, out, olen);
    }
    if (!keep_alive)
        srv_conn_end(c, "HTTP response sent");
}

static void http_simple(srv_conn *c, const char *status, const char *type, const char *body,
                        size_t len, bool keep_alive)
{
    http_reply(c, status, type, body, len, keep_alive, NULL);
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

/* Largest static file served. The page and its one bundled script are
 * about 0.5 MB. The read is a plain read(2) of a regular file of at most
 * this size, on the loop: bounded and from the page cache after the first
 * time (a few hundred microseconds), which we prefer to a thread-pool
 * round trip (uv_fs) per file. What could wait forever (a FIFO, a device)
 * is refused by fstat before the first read. */
#define SRV_HTTP_FILE_MAX (4u << 20)

/* Is real (an absolute path without symbolic links) root itself or inside
 * it? root is a real path too. */
static bool inside(const char *real, const char *root)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return true;
    return strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

/* Open path for reading if it is a regular file of at most
 * SRV_HTTP_FILE_MAX bytes whose real path is inside web_root's: the
 * descriptor, with *st filled; -1 otherwise (nothing to tell the client
 * but "not found"). realpath resolves every link on the way; O_NOFOLLOW
 * refuses a last component swapped for a link since, and the descriptor's
 * own path (/proc/self/fd) is checked again after the open, so a
 * directory swapped for a link in between is caught too. */
static int open_static(const char *path, struct stat *st)
{
    char root[PATH_MAX], real[PATH_MAX], fdpath[64], opened[PATH_MAX];
    if (realpath(srv.cfg.web_root, root) == NULL || realpath(path, real) == NULL ||
        !inside(real, root))
        return -1;
    int fd = open(real, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(fdpath, opened, sizeof opened - 1);
    if (n >= 0)
        opened[n] = '\0';
    if ((n >= 0 && !inside(opened, root)) || fstat(fd, st) < 0 || !S_ISREG(st->st_mode) ||
        (uint64_t)st->st_size > SRV_HTTP_FILE_MAX) {
        close(fd);
        return -1;
    }
    return fd;
}

/* A static file's response, with its caching headers. */
static void static_reply(srv_conn *c, const rpc_frame *f, const char *status, const char *type,
                         const char *headers, const char *body, size_t len)
{
    char *out;
    size_t olen;
    if (rpc_http_response_headers(status, type, headers, body, len, f->keep_alive, &out,
                                  &olen) == MDAE_OK)
        srv_conn_write(c, out, olen);
    if (!f->keep_alive)
        srv_conn_end(c, "HTTP response sent");
}

/* Does an Accept-Encoding value (may be NULL) take gzip? A "gzip" coding
 * in its comma-separated list, unless its weight is zero ("gzip;q=0"). */
static bool takes_gzip(const char *accept)
{
    for (const char *p = accept; p != NULL && *p != '\0';) {
        p += strspn(p, " \t,");
        size_t n = strcspn(p, ",; \t");
        if (n == 4 && strncasecmp(p, "gzip", 4) == 0) {
            const char *q = p + n + strspn(p + n, " \t;");
            if (strncasecmp(q, "q=", 2) == 0)
                return strtod(q + 2, NULL) > 0;
            return true;
        }
        p = strchr(p, ',');
    }
    return false;
}

/* The static file at path (a plain name inside web_root), served as is or,
 * when the client takes gzip and the build left path.gz beside it no older
 * than it (clients/web/build.mjs), compressed. Revalidated (no-cache) by
 * its ETag: size and modification time, with the encoding. On success *fd
 * is open and *st describes it; -1 when there is no such file. */
static int open_served(const char *path, const rpc_frame *f, struct stat *st, bool *gz,
                       char *etag, size_t etag_len)
{
    int fd = open_static(path, st);
    *gz = false;
    if (fd < 0)
        return -1;
    char zpath[1300];
    struct stat zst;
    int zn = snprintf(zpath, sizeof zpath, "%s.gz", path);
    int zfd = takes_gzip(f->accept_encoding) && zn > 0 && (size_t)zn < sizeof zpath
                  ? open_static(zpath, &zst) : -1;
    if (zfd >= 0 && zst.st_mtime >= st->st_mtime) {
        close(fd);
        fd = zfd;
        *st = zst;
        *gz = true;
    } else if (zfd >= 0) {
        close(zfd); /* older than the file: stale */
    }
    snprintf(etag, etag_len, "\"%llx-%llx%s\"", (unsigned long long)st->st_size,
             (unsigned long long)st->st_mtime, *gz ? "-gz" : "");
    return fd;
}

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
    struct stat st;
    bool gz = false;
    char etag[80];
    int fd = pn > 0 && (size_t)pn < sizeof path ? open_served(path, f, &st, &gz, etag, sizeof etag)
                                                : -1;
    if (fd < 0) {
        const char *msg = ulen == 1 ? "mdaed: the web page is not built (make web)\n"
                                    : "not found\n";
        http_simple(c, "404 Not Found", "text/plain", msg, strlen(msg), f->keep_alive);
        return;
    }
    char headers[200];
    snprintf(headers, sizeof headers, "Cache-Control: no-cache\r\nETag: %s\r\n"
             "Vary: Accept-Encoding\r\n%s", etag, gz ? "Content-Encoding: gzip\r\n" : "");
    if (f->if_none_match != NULL && strstr(f->if_none_match, etag) != NULL) {
        close(fd); /* the client's copy is this one */
        static_reply(c, f, "304 Not Modified", content_type(path), headers, "", 0);
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
    static_reply(c, f, "200 OK", content_type(path), headers,
                 f->method == RPC_HTTP_HEAD ? "" : buf, f->method == RPC_HTTP_HEAD ? 0 : got);
    mdae_free(buf);
}

/* ---- The browser boundary ----------------------------------------------------- */

/* Does host (a Host header: "name", "name:port", "[v6]", "[v6]:port") name
 * this server? A loopback name without a port or with the bound one, or an
 * entry of http.allowed_hosts: "name" for any port, "name:port" for that
 * one. Case does not matter (RFC 9110 section 4.2.3). */
static bool host_ok(const char *host)
{
    size_t name_len;
    const char *port = NULL;
    if (host[0] == '[') {
        const char *rb = strchr(host, ']');
        if (rb == NULL || (rb[1] != '\0' && rb[1] != ':'))
            return false;
        name_len = (size_t)(rb - host) + 1;
        port = rb[1] == ':' ? rb + 2 : NULL;
    } else {
        name_len = strcspn(host, ":");
        port = host[name_len] == ':' ? host + name_len + 1 : NULL;
    }
    if (name_len == 0 ||
        (port != NULL && (port[0] == '\0' || strlen(port) > 5 ||
                          strspn(port, "0123456789") != strlen(port))))
        return false;
    static const char *const loopback[] = {"localhost", "127.0.0.1", "[::1]"};
    for (size_t i = 0; i < sizeof loopback / sizeof loopback[0]; i++)
        if (strlen(loopback[i]) == name_len && strncasecmp(host, loopback[i], name_len) == 0 &&
            (port == NULL || atoi(port) == srv.tcp_port))
            return true;
    for (char **a = srv.cfg.http_allowed_hosts; a != NULL && *a != NULL; a++)
        if (strcasecmp(*a, host) == 0 ||
            (strlen(*a) == name_len && strncasecmp(*a, host, name_len) == 0))
            return true;
    return false;
}

/* The http.allowed_origins entry equal to origin, or NULL. */
static const char *origin_listed(const char *origin)
{
    for (char **a = srv.cfg.http_allowed_origins; origin && a != NULL && *a != NULL; a++)
        if (strcasecmp(*a, origin) == 0)
            return *a;
    return NULL;
}

/* Is origin the page's own (http or https, through a TLS proxy, and the
 * Host the request came with, already checked) or a listed one? */
static bool origin_ok(const char *origin, const char *host)
{
    if (origin_listed(origin) != NULL)
        return true;
    if (host == NULL)
        return false;
    const char *rest = strncasecmp(origin, "http://", 7) == 0    ? origin + 7
                       : strncasecmp(origin, "https://", 8) == 0 ? origin + 8
                                                                 : NULL;
    return rest != NULL && strcasecmp(rest, host) == 0;
}

/* Is ct "application/json", parameters (; charset=utf-8) allowed? */
static bool json_type(const char *ct)
{
    if (ct == NULL)
        return false;
    size_t n = strcspn(ct, ";");
    while (n > 0 && (ct[n - 1] == ' ' || ct[n - 1] == '\t'))
        n--;
    return n == 16 && strncasecmp(ct, "application/json", 16) == 0;
}

/* The CORS header lines for a listed origin (owned), or NULL. The value
 * is the configuration's string, never the client's bytes. */
static char *cors_headers(const char *origin, bool preflight)
{
    const char *o = origin_listed(origin);
    if (o == NULL)
        return NULL;
    return preflight ? mdae_asprintf("Access-Control-Allow-Origin: %s\r\n"
                                     "Access-Control-Allow-Methods: POST\r\n"
                                     "Access-Control-Allow-Headers: Content-Type, "
                                     "Authorization, X-Mdae-Session\r\n"
                                     "Access-Control-Max-Age: 600\r\n"
                                     "Vary: Origin\r\n",
                                     o)
                     : mdae_asprintf("Access-Control-Allow-Origin: %s\r\nVary: Origin\r\n", o);
}

/* Refuse (and answer) a request to /rpc from the wrong side of the
 * boundary: true when refused. The answers never quote the headers. */
static bool boundary_refused(srv_conn *c, const rpc_frame *f)
{
    const char *status = NULL, *msg = NULL;
    if (f->duplicate_header) {
        status = "400 Bad Request";
        msg = "mdaed: Host, Origin, Content-Type or Authorization given twice\n";
    } else if (f->host != NULL && !host_ok(f->host)) {
        status = "421 Misdirected Request";
        msg = "mdaed: this Host is not mine: a loopback name (localhost, 127.0.0.1, [::1]) "
              "with my port, or one of http.allowed_hosts (docs/security.md)\n";
    } else if (f->origin != NULL && !origin_ok(f->origin, f->host)) {
        status = "403 Forbidden";
        msg = "mdaed: requests from another origin are refused; allow it with "
              "http.allowed_origins (docs/security.md)\n";
    } else if (f->method == RPC_HTTP_POST && !json_type(f->content_type)) {
        status = "415 Unsupported Media Type";
        msg = "mdaed: POST /rpc takes Content-Type: application/json\n";
    }
    if (status == NULL)
        return false;
    MDAE_LOG(SRV_LOG_WARN, "conn %llu: HTTP request refused: %s", (unsigned long long)c->id,
             status);
    http_simple(c, status, "text/plain; charset=utf-8", msg, strlen(msg), false);
    return true;
}

/* OPTIONS /rpc: a CORS preflight, answered for configured origins only. */
static void http_preflight(srv_conn *c, const rpc_frame *f)
{
    if (boundary_refused(c, f))
        return;
    char *cors = cors_headers(f->origin, true);
    if (cors == NULL) {
        const char *msg = "mdaed: no cross-origin requests (http.allowed_origins)\n";
        http_simple(c, "403 Forbidden", "text/plain; charset=utf-8", msg, strlen(msg), false);
        return;
    }
    http_reply(c, "204 No Content", "text/plain", "", 0, f->keep_alive, cors);
    mdae_free(cors);
}

/* The failure of an Authorization header, answered late (srv_auth_failed). */
static void http_auth_answer(srv_conn *c, void *arg, bool last)
{
    (void)arg;
    (void)last; /* the 401 ends the connection anyway */
    if (c->closing || c->ending)
        return;
    c->http_busy = false;
    const char *msg = "mdaed: Authorization: Bearer TOKEN required\n";
    http_simple(c, "401 Unauthorized", "text/plain", msg, strlen(msg), false);
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
    bool rpc = ulen == 4 && strncmp(f->url, "/rpc", 4) == 0;
    if (f->method == RPC_HTTP_OPTIONS && rpc) {
        http_preflight(c, f);
        return;
    }
    if (f->method != RPC_HTTP_POST || !rpc) {
        const char *msg = "mdaed: POST /rpc for JSON-RPC, GET / for the web page\n";
        http_simple(c, f->method == RPC_HTTP_POST ? "404 Not Found" : "405 Method Not Allowed",
                    "text/plain", msg, strlen(msg), f->keep_alive);
        return;
    }
    if (boundary_refused(c, f))
        return;
    if (c->kind == SRV_CONN_TCP && srv.cfg.token != NULL) {
        const char *a = f->authorization;
        if (a == NULL) { /* no attempt: answered at once */
            const char *msg = "mdaed: Authorization: Bearer TOKEN required\n";
            http_simple(c, "401 Unauthorized", "text/plain", msg, strlen(msg), false);
            return;
        }
        uint64_t locked = srv_auth_locked(c);
        if (locked > 0) { /* refused unchecked (srv_m_server.c) */
            char msg[160], retry[64];
            snprintf(msg, sizeof msg,
                     "mdaed: too many wrong access tokens from this address: try again in "
                     "%llu ms\n",
                     (unsigned long long)locked);
            snprintf(retry, sizeof retry, "Retry-After: %llu\r\n",
                     (unsigned long long)(locked + 999) / 1000);
            http_reply(c, "429 Too Many Requests", "text/plain; charset=utf-8", msg, strlen(msg),
                       false, retry);
            return;
        }
        if (strncmp(a, "Bearer ", 7) != 0 || !srv_token_ok(a + 7)) {
            c->http_busy = true; /* nothing else on this connection meanwhile */
            srv_auth_failed(c, http_auth_answer, NULL);
            return;
        }
    }
    c->authed = true; /* for this exchange; every request is checked again */
    c->http_busy = true;
    c->http_keep_alive = f->keep_alive;
    c->http_outstanding = 1; /* one body, one top-level response at most */
    const char *head = rpc_http_stream_head(f->keep_alive);
    char *cors = cors_headers(f->origin, false);
    size_t hlen = strlen(head);
    char *h = mdae_strdup(head);
    if (h != NULL)
        h = with_headers(h, &hlen, cors);
    mdae_free(cors);
    if (h == NULL) {
        srv_conn_close(c, "out of memory");
        return;
    }
    srv_conn_write(c, h, hlen);
    c->http_owner = f->owner; /* the exchange's owner key (issue 37), for its calls */
    bool owed = srv_router_body(c, f->body, f->len);
    c->http_owner = NULL;
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

