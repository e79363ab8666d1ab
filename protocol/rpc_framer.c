/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_framer.c -- framing detection and the three framings. See
 * protocol/rpc_framer.h for the promises.
 *
 * One buffer (fr->buf) holds the bytes of the frame being assembled; a frame
 * that arrives whole in one feed is handed to the callback straight from the
 * caller's input, without a copy (the common case for small requests).
 */
#include "rpc_framer.h"

#include <http_parser.h>
#include <stdio.h>
#include <string.h>

#define HTTP_FIELD_KEEP 32 /* enough to recognise "Authorization" */

/* The request headers kept for the frame (the others are skipped). */
enum {
    HDR_AUTH, HDR_HOST, HDR_ORIGIN, HDR_CTYPE, HDR_OWNER, HDR_ACCEPT_ENC, HDR_INM,
    HDR_N, HDR_NONE = -1
};
static const struct {
    const char *name; /* lower case */
    size_t max;
    bool once;        /* given twice, the request is ambiguous (duplicate) */
} kept_headers[HDR_N] = {
    [HDR_AUTH] = {"authorization", RPC_FRAMER_MAX_AUTH, true},
    [HDR_HOST] = {"host", RPC_FRAMER_MAX_HEADER_VALUE, true},
    [HDR_ORIGIN] = {"origin", RPC_FRAMER_MAX_HEADER_VALUE, true},
    [HDR_CTYPE] = {"content-type", RPC_FRAMER_MAX_HEADER_VALUE, true},
    [HDR_OWNER] = {"x-mdae-owner", RPC_FRAMER_MAX_OWNER, true}, /* issue 37 item 1 */
    /* a static file's compression and revalidation (issue 42) */
    [HDR_ACCEPT_ENC] = {"accept-encoding", RPC_FRAMER_MAX_HEADER_VALUE, false},
    [HDR_INM] = {"if-none-match", RPC_FRAMER_MAX_HEADER_VALUE, false},
};

struct rpc_framer_http_ {
    http_parser parser;
    http_parser_settings settings;
    rpc_framer *fr;
    rpc_frame_cb cb;
    void *ctx;
    int rc; /* error found inside a callback */
    const char *limit_status; /* the HTTP status of the limit hit, or NULL */
    bool in_message;   /* on_message_begin seen, on_message_complete not yet */
    bool headers_done; /* on_headers_complete seen for that message */
    char url[RPC_FRAMER_MAX_URL + 1];
    size_t url_len;
    char field[HTTP_FIELD_KEEP + 1];
    size_t field_len;
    bool last_was_value;
    int cur;          /* HDR_* of the header whose value is being read */
    bool duplicate;   /* a kept header came twice */
    struct {
        bool have;
        char value[RPC_FRAMER_MAX_AUTH + 1]; /* the largest of the maxima */
        size_t len;
    } hdr[HDR_N];
};

void rpc_framer_init(rpc_framer *fr, size_t max_frame)
{
    memset(fr, 0, sizeof *fr);
    fr->max_frame = max_frame ? max_frame : RPC_FRAMER_DEFAULT_MAX_FRAME;
}

void rpc_framer_close(rpc_framer *fr)
{
    mdae_free(fr->buf);
    fr->buf = NULL;
    fr->len = fr->cap = 0;
    mdae_free(fr->http);
    fr->http = NULL;
}

rpc_framing rpc_framer_framing(const rpc_framer *fr) { return fr->framing; }

const char *rpc_framing_name(rpc_framing framing)
{
    switch (framing) {
    case RPC_FRAMING_NDJSON:
        return "ndjson";
    case RPC_FRAMING_LSP:
        return "lsp";
    case RPC_FRAMING_HTTP:
        return "http";
    default:
        return "unknown";
    }
}

/* Append n bytes to the pending buffer. Callers have checked the limits, so
 * the buffer never grows past max_frame + RPC_FRAMER_MAX_HEADER. */
static int buf_append(rpc_framer *fr, const char *p, size_t n)
{
    if (fr->len + n > fr->cap) {
        size_t cap = fr->cap ? fr->cap : 256;
        while (cap < fr->len + n)
            cap *= 2;
        char *nb = mdae_realloc(fr->buf, cap);
        if (nb == NULL)
            return MDAE_E_NOMEM;
        fr->buf = nb;
        fr->cap = cap;
    }
    memcpy(fr->buf + fr->len, p, n);
    fr->len += n;
    return MDAE_OK;
}

static int emit(rpc_framer *fr, const char *body, size_t len, rpc_frame_cb cb, void *ctx)
{
    rpc_frame f = {0};
    f.framing = fr->framing;
    f.body = body;
    f.len = len;
    return cb(ctx, &f) ? MDAE_E_CANCELED : MDAE_OK;
}

/* ---- NDJSON ---------------------------------------------------------------- */

static bool all_blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
            return false;
    return true;
}

static int feed_ndjson(rpc_framer *fr, const char *p, size_t n, rpc_frame_cb cb, void *ctx)
{
    while (n > 0) {
        const char *nl = memchr(p, '\n', n);
        if (nl == NULL) {
            /* Refuse as soon as the line is too long: never buffer it. */
            if (fr->len + n > fr->max_frame)
                return MDAE_E_LIMIT;
            return buf_append(fr, p, n);
        }
        size_t k = (size_t)(nl - p);
        const char *line = p;
        size_t ll = k;
        if (fr->len + k > fr->max_frame)
            return MDAE_E_LIMIT;
        if (fr->len > 0) {
            int rc = buf_append(fr, p, k);
            if (rc < 0)
                return rc;
            line = fr->buf;
            ll = fr->len;
        }
        p += k + 1;
        n -= k + 1;
        fr->len = 0; /* the line stays readable: only the length is reset */
        if (ll > 0 && line[ll - 1] == '\r')
            ll--;
        if (all_blank(line, ll))
            continue; /* blank lines keep interactive sessions (nc) friendly */
        int rc = emit(fr, line, ll, cb, ctx);
        if (rc < 0)
            return rc;
    }
    return MDAE_OK;
}

/* ---- LSP (Content-Length headers) ------------------------------------------ */

static bool name_is(const char *p, size_t n, const char *lower)
{
    size_t k = strlen(lower);
    if (n != k)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != lower[i])
            return false;
    }
    return true;
}

/* Parse the header block buf[0..n) (without the final blank line). */
static int lsp_parse_headers(rpc_framer *fr, const char *p, size_t n, size_t *body_len)
{
    bool have_length = false;
    size_t length = 0;
    while (n > 0) {
        const char *eol = NULL;
        for (size_t i = 0; i + 1 < n; i++)
            if (p[i] == '\r' && p[i + 1] == '\n') {
                eol = p + i;
                break;
            }
        size_t ll = eol ? (size_t)(eol - p) : n;
        const char *colon = memchr(p, ':', ll);
        if (colon == NULL)
            return MDAE_E_PROTO;
        size_t nl = (size_t)(colon - p);
        const char *v = colon + 1;
        size_t vl = ll - nl - 1;
        while (vl > 0 && (*v == ' ' || *v == '\t'))
            v++, vl--;
        while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
            vl--;
        if (name_is(p, nl, "content-length")) {
            if (vl == 0 || have_length)
                return MDAE_E_PROTO;
            length = 0;
            for (size_t i = 0; i < vl; i++) {
                if (v[i] < '0' || v[i] > '9')
                    return MDAE_E_PROTO;
                if (length > fr->max_frame) /* also stops overflow */
                    return MDAE_E_LIMIT;
                length = length * 10 + (size_t)(v[i] - '0');
            }
            have_length = true;
        }
        /* Other headers (Content-Type) are accepted and ignored: LSP only
         * allows utf-8, which is what we read anyway. */
        if (eol == NULL)
            break;
        n -= ll + 2;
        p += ll + 2;
    }
    if (!have_length)
        return MDAE_E_PROTO;
    if (length > fr->max_frame)
        return MDAE_E_LIMIT;
    *body_len = length;
    return MDAE_OK;
}

/* Emit every frame complete in the buffer; leave a partial one there. */
static int lsp_drain(rpc_framer *fr, rpc_frame_cb cb, void *ctx)
{
    for (;;) {
        if (!fr->in_body) {
            size_t from = fr->scan > 3 ? fr->scan - 3 : 0;
            size_t end = 0;
            bool found = false;
            for (size_t i = from; i + 3 < fr->len; i++)
                if (memcmp(fr->buf + i, "\r\n\r\n", 4) == 0) {
                    end = i;
                    found = true;
                    break;
                }
            if (!found) {
                fr->scan = fr->len;
                if (fr->len >= RPC_FRAMER_MAX_HEADER)
                    return MDAE_E_LIMIT;
                return MDAE_OK;
            }
            int rc = lsp_parse_headers(fr, fr->buf, end, &fr->body_len);
            if (rc < 0)
                return rc;
            memmove(fr->buf, fr->buf + end + 4, fr->len - end - 4);
            fr->len -= end + 4;
            fr->scan = 0;
            fr->in_body = true;
        }
        if (fr->len < fr->body_len)
            return MDAE_OK;
        int rc = emit(fr, fr->buf, fr->body_len, cb, ctx);
        if (rc < 0)
            return rc;
        memmove(fr->buf, fr->buf + fr->body_len, fr->len - fr->body_len);
        fr->len -= fr->body_len;
        fr->in_body = false;
    }
}

static int feed_lsp(rpc_framer *fr, const char *p, size_t n, rpc_frame_cb cb, void *ctx)
{
    while (n > 0) {
        if (fr->in_body && fr->len == 0 && n >= fr->body_len) {
            /* Whole body in the input: no copy. */
            int rc = emit(fr, p, fr->body_len, cb, ctx);
            if (rc < 0)
                return rc;
            p += fr->body_len;
            n -= fr->body_len;
            fr->in_body = false;
            continue;
        }
        size_t room = fr->in_body ? fr->body_len - fr->len : RPC_FRAMER_MAX_HEADER - fr->len;
        size_t take = n < room ? n : room;
        int rc = buf_append(fr, p, take);
        if (rc < 0)
            return rc;
        p += take;
        n -= take;
        rc = lsp_drain(fr, cb, ctx);
        if (rc < 0)
            return rc;
    }
    return MDAE_OK;
}

/* ---- HTTP (http-parser callbacks) ------------------------------------------ */

static int on_http_begin(http_parser *p)
{
    struct rpc_framer_http_ *h = p->data;
    h->url_len = 0;
    h->field_len = 0;
    h->last_was_value = true;
    h->cur = HDR_NONE;
    h->duplicate = false;
    for (int k = 0; k < HDR_N; k++) {
        h->hdr[k].have = false;
        h->hdr[k].len = 0;
    }
    h->fr->len = 0;
    h->in_message = true;
    h->headers_done = false;
    return 0;
}

static int on_http_headers_complete(http_parser *p)
{
    struct rpc_framer_http_ *h = p->data;
    h->headers_done = true;
    return 0;
}

static int on_http_url(http_parser *p, const char *at, size_t n)
{
    struct rpc_framer_http_ *h = p->data;
    if (h->url_len + n > RPC_FRAMER_MAX_URL) {
        h->rc = MDAE_E_LIMIT;
        h->limit_status = "414 URI Too Long";
        return 1;
    }
    memcpy(h->url + h->url_len, at, n);
    h->url_len += n;
    return 0;
}

static int on_http_field(http_parser *p, const char *at, size_t n)
{
    struct rpc_framer_http_ *h = p->data;
    if (h->last_was_value) { /* a new header starts */
        h->field_len = 0;
        h->last_was_value = false;
    }
    for (size_t i = 0; i < n; i++) {
        if (h->field_len < HTTP_FIELD_KEEP)
            h->field[h->field_len] = at[i];
        h->field_len++; /* keeps counting: a long name is not "authorization" */
    }
    return 0;
}

static int on_http_value(http_parser *p, const char *at, size_t n)
{
    struct rpc_framer_http_ *h = p->data;
    if (!h->last_was_value) {
        h->last_was_value = true;
        h->cur = HDR_NONE;
        for (int k = 0; k < HDR_N && h->field_len <= HTTP_FIELD_KEEP; k++)
            if (name_is(h->field, h->field_len, kept_headers[k].name))
                h->cur = k;
        if (h->cur != HDR_NONE) {
            if (h->hdr[h->cur].have && kept_headers[h->cur].once)
                h->duplicate = true; /* which one counts? neither */
            h->hdr[h->cur].have = true;
            h->hdr[h->cur].len = 0;
        }
    }
    if (h->cur != HDR_NONE) {
        size_t *len = &h->hdr[h->cur].len;
        if (*len + n > kept_headers[h->cur].max) {
            h->rc = MDAE_E_LIMIT;
            h->limit_status = "431 Request Header Fields Too Large";
            return 1;
        }
        memcpy(h->hdr[h->cur].value + *len, at, n);
        *len += n;
    }
    return 0;
}

/* Header k's value without its surrounding blanks (NUL-terminated in
 * place), or NULL when the request has none. */
static const char *kept_value(struct rpc_framer_http_ *h, int k)
{
    if (!h->hdr[k].have)
        return NULL;
    char *v = h->hdr[k].value;
    size_t len = h->hdr[k].len;
    while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t'))
        len--;
    v[len] = '\0';
    while (*v == ' ' || *v == '\t')
        v++;
    return v;
}

static int on_http_body(http_parser *p, const char *at, size_t n)
{
    struct rpc_framer_http_ *h = p->data;
    if (h->fr->len + n > h->fr->max_frame) {
        h->rc = MDAE_E_LIMIT;
        h->limit_status = "413 Content Too Large";
        return 1;
    }
    int rc = buf_append(h->fr, at, n);
    if (rc < 0) {
        h->rc = rc;
        return 1;
    }
    return 0;
}

static int on_http_complete(http_parser *p)
{
    struct rpc_framer_http_ *h = p->data;
    rpc_frame f = {0};
    h->url[h->url_len] = '\0';
    f.framing = RPC_FRAMING_HTTP;
    f.body = h->fr->buf ? h->fr->buf : "";
    f.len = h->fr->len;
    switch (p->method) {
    case HTTP_GET:
        f.method = RPC_HTTP_GET;
        break;
    case HTTP_HEAD:
        f.method = RPC_HTTP_HEAD;
        break;
    case HTTP_POST:
        f.method = RPC_HTTP_POST;
        break;
    case HTTP_OPTIONS:
        f.method = RPC_HTTP_OPTIONS;
        break;
    default:
        f.method = RPC_HTTP_OTHER;
        break;
    }
    f.url = h->url;
    f.authorization = kept_value(h, HDR_AUTH);
    f.host = kept_value(h, HDR_HOST);
    f.origin = kept_value(h, HDR_ORIGIN);
    f.content_type = kept_value(h, HDR_CTYPE);
    f.duplicate_header = h->duplicate;
    f.owner = kept_value(h, HDR_OWNER);
    f.accept_encoding = kept_value(h, HDR_ACCEPT_ENC);
    f.if_none_match = kept_value(h, HDR_INM);
    f.keep_alive = http_should_keep_alive(p) != 0;
    h->in_message = false;
    if (h->cb(h->ctx, &f)) {
        h->rc = MDAE_E_CANCELED;
        return 1;
    }
    h->fr->len = 0;
    return 0;
}

static int http_start(rpc_framer *fr)
{
    struct rpc_framer_http_ *h = mdae_calloc(1, sizeof *h);
    if (h == NULL)
        return MDAE_E_NOMEM;
    http_parser_init(&h->parser, HTTP_REQUEST);
    http_parser_settings_init(&h->settings);
    h->settings.on_message_begin = on_http_begin;
    h->settings.on_url = on_http_url;
    h->settings.on_header_field = on_http_field;
    h->settings.on_header_value = on_http_value;
    h->settings.on_headers_complete = on_http_headers_complete;
    h->settings.on_body = on_http_body;
    h->settings.on_message_complete = on_http_complete;
    h->parser.data = h;
    h->fr = fr;
    fr->http = h;
    return MDAE_OK;
}

static int feed_http(rpc_framer *fr, const char *p, size_t n, rpc_frame_cb cb, void *ctx)
{
    struct rpc_framer_http_ *h = fr->http;
    if (n == 0)
        return MDAE_OK;
    h->cb = cb;
    h->ctx = ctx;
    h->rc = MDAE_OK;
    h->limit_status = NULL;
    size_t used = http_parser_execute(&h->parser, &h->settings, p, n);
    if (h->rc < 0)
        return h->rc;
    enum http_errno e = HTTP_PARSER_ERRNO(&h->parser);
    if (e == HPE_HEADER_OVERFLOW) {
        h->limit_status = "431 Request Header Fields Too Large";
        return MDAE_E_LIMIT;
    }
    if (e != HPE_OK || h->parser.upgrade || used != n)
        return MDAE_E_PROTO; /* no upgrades (websockets) and no CONNECT */
    return MDAE_OK;
}

const char *rpc_framer_http_limit_status(const rpc_framer *fr)
{
    return fr->http != NULL ? fr->http->limit_status : NULL;
}

/* ---- Detection --------------------------------------------------------------- */

static const struct {
    const char *prefix;
    bool any_case;
    rpc_framing framing;
} candidates[] = {
    {"content-", true, RPC_FRAMING_LSP},     {"POST ", false, RPC_FRAMING_HTTP},
    {"GET ", false, RPC_FRAMING_HTTP},       {"HEAD ", false, RPC_FRAMING_HTTP},
    {"PUT ", false, RPC_FRAMING_HTTP},       {"DELETE ", false, RPC_FRAMING_HTTP},
    {"OPTIONS ", false, RPC_FRAMING_HTTP},   {"PATCH ", false, RPC_FRAMING_HTTP},
};
#define DETECT_MAX 8 /* longest candidate */

static bool prefix_eq(const char *have, size_t n, const char *want, bool any_case)
{
    for (size_t i = 0; i < n; i++) {
        char c = have[i];
        if (any_case && c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != want[i])
            return false;
    }
    return true;
}

/* Decide from the bytes buffered so far; RPC_FRAMING_UNKNOWN means "need
 * more bytes". */
static rpc_framing detect(const char *p, size_t n)
{
    bool maybe = false;
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        size_t k = strlen(candidates[i].prefix);
        size_t m = n < k ? n : k;
        if (!prefix_eq(p, m, candidates[i].prefix, candidates[i].any_case))
            continue;
        if (n >= k)
            return candidates[i].framing;
        maybe = true;
    }
    return maybe ? RPC_FRAMING_UNKNOWN : RPC_FRAMING_NDJSON;
}

static int feed_framed(rpc_framer *fr, const char *p, size_t n, rpc_frame_cb cb, void *ctx)
{
    switch (fr->framing) {
    case RPC_FRAMING_NDJSON:
        return feed_ndjson(fr, p, n, cb, ctx);
    case RPC_FRAMING_LSP:
        return feed_lsp(fr, p, n, cb, ctx);
    case RPC_FRAMING_HTTP:
        return feed_http(fr, p, n, cb, ctx);
    default:
        return MDAE_E_INVAL;
    }
}

void rpc_framer_set_framing(rpc_framer *fr, rpc_framing framing)
{
    fr->framing = framing;
}

int rpc_framer_feed(rpc_framer *fr, const char *buf, size_t len, rpc_frame_cb cb, void *ctx)
{
    int rc = MDAE_OK;
    if (fr->error < 0)
        return fr->error;
    while (fr->framing == RPC_FRAMING_UNKNOWN && len > 0) {
        if (fr->len == 0 && (*buf == ' ' || *buf == '\t' || *buf == '\r' || *buf == '\n')) {
            buf++, len--;
            continue;
        }
        rc = buf_append(fr, buf, 1);
        if (rc < 0)
            goto fail;
        buf++, len--;
        rpc_framing f = detect(fr->buf, fr->len);
        if (f == RPC_FRAMING_UNKNOWN)
            continue;
        /* Replay the detection bytes through the chosen framing. */
        char head[DETECT_MAX];
        size_t hn = fr->len;
        memcpy(head, fr->buf, hn);
        fr->len = 0;
        fr->framing = f;
        if (f == RPC_FRAMING_HTTP && fr->http == NULL) {
            rc = http_start(fr);
            if (rc < 0)
                goto fail;
        }
        rc = feed_framed(fr, head, hn, cb, ctx);
        if (rc < 0)
            goto fail;
    }
    if (len == 0)
        return MDAE_OK;
    if (fr->framing == RPC_FRAMING_HTTP && fr->http == NULL) {
        rc = http_start(fr);
        if (rc < 0)
            goto fail;
    }
    rc = feed_framed(fr, buf, len, cb, ctx);
    if (rc < 0)
        goto fail;
    if (fr->len == 0 && fr->cap > RPC_FRAMER_KEEP) {
        /* The large message is out (no frame borrows the buffer now). */
        mdae_free(fr->buf);
        fr->buf = NULL;
        fr->cap = 0;
        fr->scan = 0;
    }
    return MDAE_OK;
fail:
    /* Sticky, MDAE_E_NOMEM included: bytes that could not be kept are lost,
     * so the stream position is. */
    fr->error = rc;
    return rc;
}

rpc_framer_phase rpc_framer_phase_of(const rpc_framer *fr)
{
    if (fr->error < 0)
        return RPC_FRAMER_IDLE;
    switch (fr->framing) {
    case RPC_FRAMING_UNKNOWN:
        return fr->len > 0 ? RPC_FRAMER_HEAD : RPC_FRAMER_IDLE;
    case RPC_FRAMING_NDJSON:
        return fr->len > 0 ? RPC_FRAMER_BODY : RPC_FRAMER_IDLE;
    case RPC_FRAMING_LSP:
        if (fr->in_body)
            return RPC_FRAMER_BODY;
        return fr->len > 0 ? RPC_FRAMER_HEAD : RPC_FRAMER_IDLE;
    case RPC_FRAMING_HTTP:
        if (fr->http == NULL || !fr->http->in_message)
            return RPC_FRAMER_IDLE;
        return fr->http->headers_done ? RPC_FRAMER_BODY : RPC_FRAMER_HEAD;
    }
    return RPC_FRAMER_IDLE;
}

size_t rpc_framer_held(const rpc_framer *fr) { return fr->cap; }

void rpc_framer_drop(rpc_framer *fr, int rc)
{
    rpc_framer_close(fr);
    fr->scan = 0;
    fr->in_body = false;
    fr->error = rc < 0 ? rc : MDAE_E_CANCELED;
}

/* ---- Output ------------------------------------------------------------------ */

int rpc_frame_wrap(rpc_framing framing, size_t len, char *head, size_t *head_len,
                   const char **tail)
{
    int hn;
    switch (framing) {
    case RPC_FRAMING_NDJSON:
        hn = 0;
        *tail = "\n";
        break;
    case RPC_FRAMING_LSP:
        hn = snprintf(head, RPC_FRAME_HEAD_MAX, "Content-Length: %zu\r\n\r\n", len);
        *tail = "";
        break;
    case RPC_FRAMING_HTTP:
        hn = snprintf(head, RPC_FRAME_HEAD_MAX, "%zx\r\n", len + 1);
        *tail = "\n\r\n";
        break;
    default:
        return MDAE_E_INVAL;
    }
    *head_len = (size_t)hn;
    return MDAE_OK;
}

int rpc_frame_encode(rpc_framing framing, const char *body, size_t len, char **out,
                     size_t *out_len)
{
    char head[RPC_FRAME_HEAD_MAX];
    size_t hn;
    const char *tail;
    int rc = rpc_frame_wrap(framing, len, head, &hn, &tail);
    if (rc < 0)
        return rc;
    size_t tn = strlen(tail);
    char *p = mdae_malloc(hn + len + tn + 1);
    if (p == NULL)
        return MDAE_E_NOMEM;
    memcpy(p, head, hn);
    memcpy(p + hn, body, len);
    memcpy(p + hn + len, tail, tn + 1);
    *out = p;
    *out_len = hn + len + tn;
    return MDAE_OK;
}

const char *rpc_http_stream_head(bool keep_alive)
{
    return keep_alive ? "HTTP/1.1 200 OK\r\n"
                        "Content-Type: application/x-ndjson\r\n"
                        "Transfer-Encoding: chunked\r\n"
                        "Cache-Control: no-store\r\n"
                        "Connection: keep-alive\r\n\r\n"
                      : "HTTP/1.1 200 OK\r\n"
                        "Content-Type: application/x-ndjson\r\n"
                        "Transfer-Encoding: chunked\r\n"
                        "Cache-Control: no-store\r\n"
                        "Connection: close\r\n\r\n";
}

int rpc_http_response(const char *status, const char *content_type, const char *body,
                      size_t len, bool keep_alive, char **out, size_t *out_len)
{
    return rpc_http_response_headers(status, content_type, "Cache-Control: no-store\r\n", body,
                                     len, keep_alive, out, out_len);
}

int rpc_http_response_headers(const char *status, const char *content_type,
                              const char *headers, const char *body, size_t len,
                              bool keep_alive, char **out, size_t *out_len)
{
    char *head = mdae_asprintf("HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                               "%sConnection: %s\r\n\r\n",
                               status, content_type, len, headers ? headers : "",
                               keep_alive ? "keep-alive" : "close");
    if (head == NULL)
        return MDAE_E_NOMEM;
    size_t hn = strlen(head);
    char *p = mdae_malloc(hn + len + 1);
    if (p == NULL) {
        mdae_free(head);
        return MDAE_E_NOMEM;
    }
    memcpy(p, head, hn);
    if (len > 0)
        memcpy(p + hn, body, len);
    p[hn + len] = '\0';
    mdae_free(head);
    *out = p;
    *out_len = hn + len;
    return MDAE_OK;
}
