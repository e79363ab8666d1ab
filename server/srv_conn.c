/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_conn.c -- client connections: read, frame, hand frames to
 * their on_frame callback (srv_loop.c routes them), write with a capped
 * queue, close once. It calls no other server file: what a connection owns
 * beyond its handles goes in its on_close callback.
 *
 * Close discipline (STYLE.md section 10): srv_conn_close() may be called any
 * number of times; it closes each handle once and counts the closes still
 * outstanding. The memory is freed when the last close callback has run *and*
 * no pending call references the connection (a worker may answer after the
 * client left: the reply is then dropped).
 *
 * The access token (when configured) is checked on every TCP connection:
 * HTTP requests carry `Authorization: Bearer TOKEN`; NDJSON and LSP
 * connections must first send {"method":"auth","params":{"token":TOKEN}}
 * (see srv_m_server.c). Unix sockets and stdio are protected by file
 * permissions and process ownership instead.
 *
 * Bounds (issue 37 item 5; docs/security.md, "Connections and their
 * bounds"). Every connection but stdio (the editor's own pipe) is held to:
 *   - a message begun must be read whole in time: its headers within
 *     limits.header_timeout_ms of its first byte, the whole of it within
 *     limits.body_timeout_ms plus a second per limits.body_min_rate bytes
 *     received (a minimum rate, so a large message on a slow link passes
 *     and a dribble does not);
 *   - an idle connection (no request in flight, no partial message,
 *     nothing received or taken) is closed after its idle bound, which
 *     depends on what it is (idle_limit);
 *   - all partial messages together hold at most limits.partial_bytes: past
 *     it the connection holding the largest is told and closed;
 *   - replies over limits.write_queue_bytes stop the reading of the
 *     client's requests until they drain (a client reading at any speed
 *     gets replies of any size); only a client that takes none of them for
 *     limits.write_stall_ms is cut off.
 * One timer (srv_loop.c) calls srv_conn_check_all; bytes are counted here.
 */
#include "srv.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define SRV_READ_BUFFER 65536

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf);
static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);

/* One uv_write: a body (owned) between the head and tail of its frame,
 * kept here so that a large reply is written without a copy. */
typedef struct srv_write {
    uv_write_t req;
    srv_conn *conn;
    char *data;   /* owned */
    size_t len;   /* every byte of the write: head, data and tail */
    char head[RPC_FRAME_HEAD_MAX];
} srv_write;

static void link_conn(srv_conn *c)
{
    c->next = srv.conns;
    if (srv.conns)
        srv.conns->prev = c;
    srv.conns = c;
    srv.n_conns++;
}

static void unlink_conn(srv_conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else if (srv.conns == c)
        srv.conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
    srv.n_conns--;
}

srv_conn *srv_conn_new(srv_conn_kind kind, srv_conn_frame_cb frame_cb,
                       srv_conn_close_cb close_cb)
{
    srv_conn *c = mdae_calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->id = ++srv.next_conn_id;
    c->kind = kind;
    c->on_frame = frame_cb;
    c->on_close = close_cb;
    rpc_framer_init(&c->fr, srv.cfg.max_message_bytes);
    c->lsp_debounce_ms = -1; /* the configuration's until the editor says (issue 15) */
    c->lsp_mode_changes = true;
    /* The token protects TCP only; see the file comment. */
    c->authed = kind != SRV_CONN_TCP || srv.cfg.token == NULL;
    c->last_active = c->written_at = uv_now(srv.loop);
    return c;
}

static void maybe_free(srv_conn *c)
{
    if (c->closing && c->pending_closes == 0 && c->refs == 0) {
        rpc_framer_close(&c->fr);
        mdae_free(c->lsp_rimis_uri);
        mdae_free(c);
    }
}

void srv_conn_ref(srv_conn *c) { c->refs++; }

void srv_conn_unref(srv_conn *c)
{
    c->refs--;
    if (c->refs == 0)
        c->last_active = uv_now(srv.loop); /* its idle time starts after the answers */
    /* A peer that half-closed after its requests gets their answers first. */
    if (c->refs == 0 && c->read_eof && !c->closing && !c->ending)
        srv_conn_end(c, "end of stream");
    maybe_free(c);
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    srv_conn *c = req->data;
    if (!c->closing)
        srv_conn_close(c, c->end_why);
}

void srv_conn_end(srv_conn *c, const char *why)
{
    if (c->closing || c->ending)
        return;
    if (uv_stream_get_write_queue_size(c->wr) == 0) { /* all handed to the kernel */
        srv_conn_close(c, why);
        return;
    }
    c->ending = true;
    c->end_why = why;
    uv_read_stop(c->rd);
    c->shutdown.data = c;
    if (uv_shutdown(&c->shutdown, c->wr, on_shutdown) < 0) {
        c->ending = false;
        srv_conn_close(c, why);
    }
}

static void on_close(uv_handle_t *h)
{
    srv_conn *c = h->data;
    c->pending_closes--;
    maybe_free(c);
}

void srv_conn_close(srv_conn *c, const char *why)
{
    if (c->closing)
        return;
    c->closing = true;
    MDAE_LOG(SRV_LOG_INFO, "conn %llu: closed (%s)", (unsigned long long)c->id, why);
    /* A browser that aborts a fetch (the web page dropping a superseded
     * analysis, issue 14) resets the connection, or closes it and resets
     * on our next write: over HTTP nobody can send $/cancelRequest for that
     * exchange any more, so the connection's end cancels it (below). Not
     * the end of the stream: a client or a proxy that half-closes after its
     * request (HAProxy does) still gets the answer. */
    /* What the connection owns (its sessions) goes in on_close, which may
     * answer (and release) calls that reference this connection: hold it
     * until its handles are closing. */
    srv_conn_ref(c);
    unlink_conn(c);
    srv.partial_bytes -= c->held; /* the framer's buffer goes with c */
    c->held = 0;
    if (rpc_framer_framing(&c->fr) == RPC_FRAMING_HTTP && c->calls != NULL)
        srv_call_cancel_all(c); /* held: answering a call may drop its reference */
    if (c->on_close != NULL)
        c->on_close(c);
    c->pending_closes++;
    uv_close((uv_handle_t *)&c->h, on_close);
    if (c->out_open) {
        c->pending_closes++;
        uv_close((uv_handle_t *)&c->out, on_close);
    }
    srv_conn_unref(c);
}

static void on_write(uv_write_t *req, int status)
{
    srv_write *w = (srv_write *)req;
    srv_conn *c = w->conn;
    c->queued -= w->len;
    mdae_free(w->data);
    mdae_free(w);
    if (status < 0 && status != UV_ECANCELED && !c->closing) {
        srv_conn_close(c, uv_strerror(status));
        return;
    }
    if (c->read_paused && !c->closing && !c->ending && !c->read_eof &&
        uv_stream_get_write_queue_size(c->wr) <= srv.cfg.write_queue_bytes / 2) {
        /* The client took its replies: read its requests again. A message
         * begun is timed from now: the pause was the server's. */
        if (c->msg_start != 0)
            c->msg_start = uv_now(srv.loop);
        c->read_paused = uv_read_start(c->rd, on_alloc, on_read) < 0;
        if (c->read_paused)
            srv_conn_close(c, "cannot read again");
    }
}

/* Queue head (copied), data (taken) and tail (static) as one write. */
static void write_framed(srv_conn *c, const char *head, size_t hn, char *data, size_t len,
                         const char *tail, size_t tn)
{
    if (c->closing || c->ending) { /* nothing may follow uv_shutdown */
        mdae_free(data);
        return;
    }
    size_t total = hn + len + tn;
    /* A client that reads slower than it asks would make us buffer without
     * bound: past write_queue_bytes of what the kernel has not taken yet
     * (libuv's queue), its requests are not read until the replies drain
     * (on_write). The reply itself is written whatever its size: only a
     * client that takes nothing for write_stall_ms is cut off
     * (check_conn), one that reads slowly gets everything (issue 37). */
    if (uv_stream_get_write_queue_size(c->wr) + total > srv.cfg.write_queue_bytes &&
        !c->read_paused && !c->read_eof) {
        MDAE_LOG(SRV_LOG_DEBUG, "conn %llu: replies over %zu bytes: reading paused",
                 (unsigned long long)c->id, srv.cfg.write_queue_bytes);
        uv_read_stop(c->rd);
        c->read_paused = true;
    }
    srv_write *w = mdae_malloc(sizeof *w);
    if (w == NULL) {
        mdae_free(data);
        srv_conn_close(c, "out of memory");
        return;
    }
    assert(hn <= sizeof w->head);
    w->conn = c;
    w->data = data;
    w->len = total;
    if (hn > 0)
        memcpy(w->head, head, hn);
    /* uv_buf_t counts in unsigned int: the body in pieces of 1 GiB. */
    uv_buf_t b[8];
    unsigned nb = 0;
    if (hn > 0)
        b[nb++] = uv_buf_init(w->head, (unsigned)hn);
    for (size_t off = 0; off < len && nb < 7;) {
        size_t k = len - off < (1u << 30) ? len - off : (1u << 30);
        b[nb++] = uv_buf_init(data + off, (unsigned)k);
        off += k;
        if (nb == 7 && off < len) { /* past 6 GiB: not written whole, so not at all */
            mdae_free(data);
            mdae_free(w);
            srv_conn_close(c, "reply too large");
            return;
        }
    }
    if (tn > 0)
        b[nb++] = uv_buf_init((char *)tail, (unsigned)tn);
    if (nb == 0) { /* nothing to write */
        mdae_free(data);
        mdae_free(w);
        return;
    }
    int rc = uv_write(&w->req, c->wr, b, nb, on_write);
    if (rc < 0) { /* no callback will come */
        mdae_free(data);
        mdae_free(w);
        srv_conn_close(c, uv_strerror(rc));
        return;
    }
    c->queued += total;
    c->queued_total += total;
}

void srv_conn_write(srv_conn *c, char *data, size_t len)
{
    write_framed(c, NULL, 0, data, len, NULL, 0);
}

void srv_conn_send(srv_conn *c, cJSON *msg, bool is_response)
{
    if (msg == NULL) {
        if (!c->closing)
            srv_conn_close(c, "out of memory building a reply");
        return;
    }
    if (c->closing) {
        cJSON_Delete(msg);
        return;
    }
    char *body;
    size_t blen;
    int rc = rpc_print(msg, &body, &blen);
    cJSON_Delete(msg);
    if (rc < 0) {
        srv_conn_close(c, mdae_strerror(rc));
        return;
    }
    srv_conn_send_owned(c, body, blen, is_response);
}

void srv_conn_send_text(srv_conn *c, const char *body, size_t blen, bool is_response)
{
    if (c->closing || c->ending)
        return;
    char *copy = mdae_malloc(blen + 1);
    if (copy == NULL) {
        srv_conn_close(c, "out of memory");
        return;
    }
    memcpy(copy, body, blen);
    srv_conn_send_owned(c, copy, blen, is_response);
}

void srv_conn_send_owned(srv_conn *c, char *body, size_t blen, bool is_response)
{
    if (c->closing || c->ending) {
        mdae_free(body);
        return;
    }
    rpc_framing f = rpc_framer_framing(&c->fr);
    if (f == RPC_FRAMING_UNKNOWN)
        f = RPC_FRAMING_NDJSON;
    char head[RPC_FRAME_HEAD_MAX];
    size_t hn;
    const char *tail;
    int rc = rpc_frame_wrap(f, blen, head, &hn, &tail);
    if (rc < 0) {
        mdae_free(body);
        srv_conn_close(c, mdae_strerror(rc));
        return;
    }
    MDAE_LOG(SRV_LOG_DEBUG, "conn %llu: <- %.*s", (unsigned long long)c->id,
             (int)(blen > 300 ? 300 : blen), body);
    write_framed(c, head, hn, body, blen, tail, strlen(tail));
    if (f == RPC_FRAMING_HTTP && is_response && !c->closing) {
        if (--c->http_outstanding <= 0) {
            char *end = mdae_strdup(RPC_HTTP_STREAM_END);
            if (end != NULL)
                srv_conn_write(c, end, strlen(end));
            c->http_busy = false;
            if (!c->http_keep_alive)
                srv_conn_end(c, "HTTP exchange done");
        }
    }
}

/* ---- Bounds ------------------------------------------------------------------- */

/* Tell the client why it is cut off when it can be told (HTTP: a status
 * between exchanges; the other framings: a JSON-RPC error without id), let
 * go of its partial message at once, and end the connection. */
static void cut_off(srv_conn *c, int rc, const char *http_status, const char *why,
                    const char *setting, double value)
{
    rpc_framing f = rpc_framer_framing(&c->fr);
    if (f == RPC_FRAMING_HTTP) {
        char *out;
        size_t olen;
        if (!c->http_busy &&
            rpc_http_response(http_status, "text/plain", why, strlen(why), false, &out, &olen) ==
                MDAE_OK)
            srv_conn_write(c, out, olen);
    } else {
        cJSON *data = cJSON_CreateObject();
        if (data != NULL) {
            cJSON_AddStringToObject(data, "setting", setting);
            cJSON_AddNumberToObject(data, "value", value);
        }
        srv_conn_send(c, rpc_response_mdae(NULL, rc, why, data), true);
    }
    if (c->closing)
        return;
    srv.partial_bytes -= c->held;
    c->held = 0;
    rpc_framer_drop(&c->fr, rc);
    srv_conn_end(c, why);
}

/* Over limits.partial_bytes: close the connections holding the largest
 * partial messages until the rest fit. */
static void enforce_partial_budget(void)
{
    while (srv.cfg.partial_bytes > 0 && srv.partial_bytes > srv.cfg.partial_bytes) {
        srv_conn *victim = NULL;
        for (srv_conn *c = srv.conns; c != NULL; c = c->next)
            if (c->kind != SRV_CONN_STDIO && !c->closing && c->held > 0 &&
                rpc_framer_phase_of(&c->fr) != RPC_FRAMER_IDLE &&
                (victim == NULL || c->held > victim->held))
                victim = c;
        if (victim == NULL)
            return;
        MDAE_LOG(SRV_LOG_WARN,
                 "conn %llu: partial message of %zu bytes dropped: partial messages hold %zu "
                 "bytes, over limits.partial_bytes (%zu)",
                 (unsigned long long)victim->id, victim->held, srv.partial_bytes,
                 srv.cfg.partial_bytes);
        cut_off(victim, MDAE_E_LIMIT, "503 Service Unavailable",
                "server busy: too many partial messages (limits.partial_bytes)",
                "limits.partial_bytes", (double)srv.cfg.partial_bytes);
    }
}

/* After a read of n bytes (at `now`; `frames` cut before it): where the
 * message being read began, and what the framer holds. */
static void count_partial(srv_conn *c, uint64_t now, uint64_t frames, size_t n)
{
    if (rpc_framer_phase_of(&c->fr) == RPC_FRAMER_IDLE) {
        c->msg_start = 0;
    } else if (c->msg_start == 0 || c->frames != frames) {
        c->msg_start = now; /* begun in this read */
        c->msg_bytes = n;
    } else {
        c->msg_bytes += n;
    }
    size_t held = rpc_framer_held(&c->fr);
    srv.partial_bytes = srv.partial_bytes - c->held + held;
    c->held = held;
    enforce_partial_budget();
}

/* How long c may stay idle: an editor, or a client holding sessions, for
 * long (its documents are open); an HTTP keep-alive connection briefly;
 * anything else in between (docs/security.md says why). 0: forever. */
static uint64_t idle_limit(const srv_conn *c)
{
    if (c->has_sessions || c->lsp_initialized)
        return srv.cfg.idle_with_sessions_ms;
    if (rpc_framer_framing(&c->fr) == RPC_FRAMING_HTTP)
        return srv.cfg.http_idle_ms;
    return srv.cfg.idle_ms;
}

/* The write side: has the client taken any of its replies since the last
 * check? Cut it off when it has taken none for write_stall_ms while over
 * write_queue_bytes (or while we only wait to end it). true if closed. */
static bool check_writes(srv_conn *c, uint64_t now)
{
    size_t q = uv_stream_get_write_queue_size(c->wr);
    uint64_t written = c->queued_total - q;
    if (written != c->written_seen || q == 0) {
        if (written != c->written_seen)
            c->last_active = now;
        c->written_seen = written;
        c->written_at = now;
        return false;
    }
    uint64_t stall = srv.cfg.write_stall_ms;
    if (stall == 0 || now - c->written_at < stall)
        return false;
    if (q > srv.cfg.write_queue_bytes || c->ending) {
        MDAE_LOG(SRV_LOG_WARN,
                 "conn %llu: client not reading: %zu bytes of replies untaken for %llu ms "
                 "(limits.write_stall_ms)",
                 (unsigned long long)c->id, q, (unsigned long long)(now - c->written_at));
        srv_conn_close(c, "client not reading");
        return true;
    }
    return false;
}

static void check_conn(srv_conn *c, uint64_t now)
{
    if (c->kind == SRV_CONN_STDIO || c->closing || check_writes(c, now) || c->ending)
        return;
    rpc_framer_phase ph = rpc_framer_phase_of(&c->fr);
    if (ph != RPC_FRAMER_IDLE && c->msg_start != 0 && !c->read_paused) {
        uint64_t took = now - c->msg_start;
        uint64_t ht = srv.cfg.header_timeout_ms, bt = srv.cfg.body_timeout_ms;
        char why[160];
        if (ph == RPC_FRAMER_HEAD && ht > 0 && took >= ht) {
            snprintf(why, sizeof why,
                     "request headers not received within %llu ms (limits.header_timeout_ms)",
                     (unsigned long long)ht);
            MDAE_LOG(SRV_LOG_WARN, "conn %llu: %s", (unsigned long long)c->id, why);
            cut_off(c, MDAE_E_TIMEOUT, "408 Request Timeout", why, "limits.header_timeout_ms",
                    (double)ht);
            return;
        }
        uint64_t allowed = bt + (srv.cfg.body_min_rate > 0
                                     ? (uint64_t)c->msg_bytes * 1000 / srv.cfg.body_min_rate
                                     : 0);
        if (bt > 0 && took >= allowed) {
            snprintf(why, sizeof why,
                     "message not received within %llu ms: %zu bytes came "
                     "(limits.body_timeout_ms, limits.body_min_rate)",
                     (unsigned long long)took, c->msg_bytes);
            MDAE_LOG(SRV_LOG_WARN, "conn %llu: %s", (unsigned long long)c->id, why);
            cut_off(c, MDAE_E_TIMEOUT, "408 Request Timeout", why, "limits.body_timeout_ms",
                    (double)bt);
        }
        return;
    }
    uint64_t idle = idle_limit(c);
    if (ph == RPC_FRAMER_IDLE && c->refs == 0 && !c->http_busy && idle > 0 &&
        now - c->last_active >= idle) {
        MDAE_LOG(SRV_LOG_INFO, "conn %llu: idle for %llu ms", (unsigned long long)c->id,
                 (unsigned long long)(now - c->last_active));
        srv_conn_close(c, "idle");
    }
}

void srv_conn_check_all(uint64_t now)
{
    srv_conn *next;
    for (srv_conn *c = srv.conns; c != NULL; c = next) {
        next = c->next; /* closing c unlinks it */
        check_conn(c, now);
    }
}

uint64_t srv_conn_check_interval(void)
{
    const uint64_t each[] = {srv.cfg.header_timeout_ms, srv.cfg.body_timeout_ms,
                             srv.cfg.idle_ms,           srv.cfg.http_idle_ms,
                             srv.cfg.idle_with_sessions_ms, srv.cfg.write_stall_ms};
    uint64_t least = 0;
    for (size_t i = 0; i < sizeof each / sizeof each[0]; i++)
        if (each[i] > 0 && (least == 0 || each[i] < least))
            least = each[i];
    if (least == 0)
        return 0;
    least /= 4; /* a bound is applied within a quarter of it */
    return least < 20 ? 20 : least > 1000 ? 1000 : least;
}

char *srv_conn_refusal(const char *peek, size_t n, const char *why, size_t *len)
{
    static const char *const http[] = {"GET ", "POST ", "HEAD ", "PUT ", "DELETE ",
                                       "OPTIONS ", "PATCH "};
    char *out = NULL;
    for (size_t i = 0; i < sizeof http / sizeof http[0]; i++) {
        size_t k = strlen(http[i]);
        if (n >= k && memcmp(peek, http[i], k) == 0) {
            return rpc_http_response("503 Service Unavailable", "text/plain", why, strlen(why),
                                     false, &out, len) == MDAE_OK
                       ? out
                       : NULL;
        }
    }
    bool lsp = n >= 8 && strncasecmp(peek, "content-", 8) == 0;
    cJSON *msg = rpc_response_mdae(NULL, MDAE_E_LIMIT, why, NULL);
    char *body = NULL;
    size_t blen;
    if (msg != NULL && rpc_print(msg, &body, &blen) == MDAE_OK &&
        rpc_frame_encode(lsp ? RPC_FRAMING_LSP : RPC_FRAMING_NDJSON, body, blen, &out, len) !=
            MDAE_OK)
        out = NULL;
    cJSON_Delete(msg);
    mdae_free(body);
    return out;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    /* One buffer for every connection: frames are cut synchronously in
     * on_read, and the framer copies what it keeps. */
    static char shared[SRV_READ_BUFFER];
    *buf = uv_buf_init(shared, sizeof shared);
}

static int on_frame(void *ctx, const rpc_frame *f)
{
    srv_conn *c = ctx;
    c->frames++;
    c->on_frame(c, f);
    return c->closing || c->ending; /* stop framing a connection the router ended */
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    srv_conn *c = s->data;
    if (n == 0)
        return;
    if (n == UV_EOF) {
        c->read_eof = true;
        uv_read_stop(s);
        if (c->refs == 0)
            srv_conn_end(c, "end of stream");
        return; /* else when the last pending call is answered */
    }
    if (n < 0) {
        srv_conn_close(c, uv_strerror((int)n));
        return;
    }
    uint64_t now = uv_now(srv.loop);
    uint64_t frames = c->frames;
    c->last_active = now;
    int rc = rpc_framer_feed(&c->fr, buf->base, (size_t)n, on_frame, c);
    if (c->closing)
        return;
    count_partial(c, now, frames, (size_t)n);
    if (c->closing || c->ending || rc == MDAE_OK)
        return;
    /* An oversized or broken frame: say so (when the framing is known) and
     * close, since the stream position is lost. */
    rpc_framing f = rpc_framer_framing(&c->fr);
    MDAE_LOG(SRV_LOG_WARN, "conn %llu: framing (%s) error: %s", (unsigned long long)c->id,
             rpc_framing_name(f), mdae_err_name(rc));
    const char *msg = rc == MDAE_E_LIMIT ? "message too large" : "malformed framing";
    if (f == RPC_FRAMING_HTTP && !c->http_busy) {
        char *out;
        size_t olen;
        const char *status = rpc_framer_http_limit_status(&c->fr);
        if (status == NULL)
            status = rc == MDAE_E_LIMIT ? "413 Content Too Large" : "400 Bad Request";
        if (rpc_http_response(status, "text/plain", msg, strlen(msg), false, &out, &olen) ==
            MDAE_OK)
            srv_conn_write(c, out, olen);
    } else if (f != RPC_FRAMING_HTTP) {
        cJSON *data = cJSON_CreateObject();
        if (data != NULL) {
            cJSON_AddNumberToObject(data, "limit", (double)srv.cfg.max_message_bytes);
        }
        srv_conn_send(c, rpc_response_mdae(NULL, rc, msg, data), true);
    }
    srv_conn_end(c, msg);
}

void srv_conn_start(srv_conn *c)
{
    link_conn(c);
    int rc = uv_read_start(c->rd, on_alloc, on_read);
    MDAE_LOG(SRV_LOG_INFO, "conn %llu: open (%s)", (unsigned long long)c->id,
             c->kind == SRV_CONN_TCP ? "tcp" : c->kind == SRV_CONN_UNIX ? "unix" : "stdio");
    if (rc < 0)
        srv_conn_close(c, uv_strerror(rc));
}

int srv_conn_open_stdio(srv_conn_frame_cb frame_cb, srv_conn_close_cb close_cb)
{
    srv_conn *c = srv_conn_new(SRV_CONN_STDIO, frame_cb, close_cb);
    if (c == NULL)
        return MDAE_E_NOMEM;
    int rc;
    uv_handle_type in = uv_guess_handle(0);
    if (in != UV_TTY && in != UV_NAMED_PIPE && in != UV_TCP) {
        /* a file or /dev/null cannot be polled (epoll refuses it, and libuv
         * would abort in the loop): say so and stop (issue 42) */
        mdae_free(c);
        MDAE_LOG(SRV_LOG_ERROR, "--stdio: standard input must be a pipe, a socket or a "
                                "terminal (an editor's pipes), not a file or /dev/null; see "
                                "docs/editors.md");
        return MDAE_E_IO;
    }
    if (in == UV_TTY) {
        rc = uv_tty_init(srv.loop, &c->h.tty, 0, 1);
    } else {
        rc = uv_pipe_init(srv.loop, &c->h.pipe, 0);
        if (rc == 0 && (rc = uv_pipe_open(&c->h.pipe, 0)) < 0) {
            c->h.pipe.data = c;
            c->closing = true;
            c->pending_closes = 1;
            uv_close((uv_handle_t *)&c->h, on_close);
            MDAE_LOG(SRV_LOG_ERROR, "--stdio: stdin is not a pipe: %s", uv_strerror(rc));
            return MDAE_E_IO;
        }
    }
    if (rc < 0) {
        mdae_free(c);
        return MDAE_E_IO;
    }
    c->h.pipe.data = c;
    c->rd = (uv_stream_t *)&c->h;
    if (uv_pipe_init(srv.loop, &c->out, 0) == 0) {
        c->out.data = c;
        c->out_open = true;
        rc = uv_pipe_open(&c->out, 1);
    }
    c->wr = (uv_stream_t *)&c->out;
    srv_conn_start(c);
    if (rc < 0) {
        srv_conn_close(c, "stdout is not a pipe");
        return MDAE_E_IO;
    }
    return MDAE_OK;
}

bool srv_token_ok(const char *given)
{
    const char *want = srv.cfg.token;
    if (given == NULL || want == NULL)
        return false;
    size_t gl = strlen(given), wl = strlen(want);
    unsigned char diff = gl != wl;
    for (size_t k = 0; k < gl; k++)
        diff |= (unsigned char)(given[k] ^ want[k < wl ? k : 0]);
    return diff == 0;
}
