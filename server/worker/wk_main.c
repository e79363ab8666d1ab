/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/worker/wk_main.c -- the worker process itself: its counting
 * allocator and memory cap, the pipe from and to the router, the loop that
 * runs one request at a time, and cancellation between analysis steps.
 * wk.h describes the process; the methods are in wk_methods.c.
 */
#include "wk.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "rpc_json.h"
#include "rpc_message.h"

/* Worker input: model texts, possibly edited past the client frame limit. */
#define WK_MAX_IN (512u * 1024u * 1024u)

#if defined(__SANITIZE_ADDRESS__)
#define WK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WK_ASAN 1
#endif
#endif

/* ---- The counting allocator -----------------------------------------------------
 * File-scope because mdae_allocator's functions take no context. */

#define HDR 16 /* keeps malloc's alignment */
static size_t mem_used, mem_cap;

_Noreturn void wk_oom(void)
{
    static const char msg[] = "mdaed worker: memory cap reached, exiting\n";
    ssize_t r = write(2, msg, sizeof msg - 1);
    (void)r;
    _exit(SRV_EXIT_NOMEM);
}

/* What counts against the cap besides n more bytes: what mdae_allocator
 * handed out, and, where the address space cannot be capped (ASan:
 * set_memory_cap), BuDDy's tables, which it allocates itself. */
static bool over_cap(size_t n)
{
    size_t used = mem_used;
#ifdef WK_ASAN
    used += sa_bdd_table_bytes();
#endif
    return mem_cap && (n > mem_cap || used + n > mem_cap);
}

static void *cm_malloc(size_t n)
{
    if (over_cap(n))
        wk_oom();
    char *p = malloc(n + HDR);
    if (p == NULL)
        wk_oom();
    *(size_t *)(void *)p = n;
    mem_used += n;
    return p + HDR;
}

static void cm_free(void *q)
{
    char *p = (char *)q - HDR;
    mem_used -= *(size_t *)(void *)p;
    free(p);
}

static void *cm_realloc(void *q, size_t n)
{
    if (q == NULL)
        return cm_malloc(n);
    char *p = (char *)q - HDR;
    size_t old = *(size_t *)(void *)p;
    if (n > old && over_cap(n - old))
        wk_oom();
    char *np = realloc(p, n + HDR);
    if (np == NULL)
        wk_oom();
    *(size_t *)(void *)np = n;
    mem_used = mem_used - old + n;
    return np + HDR;
}

static void *cm_calloc(size_t count, size_t n)
{
    if (n != 0 && count > (size_t)-1 / n)
        wk_oom();
    void *p = cm_malloc(count * n);
    memset(p, 0, count * n);
    return p;
}

/* ---- Pipe I/O ----------------------------------------------------------------------- */

/* The request id a frame cancels ($/cancelRequest {id}), 0 if it is not a
 * cancellation: decided once, when the frame arrives, so that the polls
 * during an analysis (wk_cancelled, every millisecond) do not parse the
 * queued frames again. */
static uint64_t cancelled_id(const char *body /* NUL-terminated */, size_t len)
{
    rpc_parsed p;
    /* a frame without the name is not one (the router writes the method
     * with cJSON, which escapes neither '/' nor letters): a model's text
     * is not parsed twice */
    if (strstr(body, "cancelRequest") == NULL || rpc_parse(body, len, &p) < 0)
        return 0;
    uint64_t wid = 0;
    if (p.msgs[0].kind == RPC_MSG_NOTIFICATION &&
        strcmp(p.msgs[0].method, RPC_CANCEL_METHOD) == 0) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(p.msgs[0].params, "id");
        if (cJSON_IsNumber(id) && id->valuedouble >= 1 && id->valuedouble < 9007199254740992.0)
            wid = (uint64_t)id->valuedouble;
    }
    rpc_parsed_close(&p);
    return wid;
}

static int on_in_frame(void *ctx, const rpc_frame *f)
{
    wk_state *w = ctx;
    wk_msg *m = mdae_malloc(sizeof *m);
    m->body = mdae_strndup(f->body, f->len);
    m->len = f->len;
    m->cancels = cancelled_id(m->body, m->len);
    m->next = NULL;
    if (w->q_tail)
        w->q_tail->next = m;
    else
        w->q_head = m;
    w->q_tail = m;
    return 0;
}

/* Read what stdin has (waiting up to timeout_ms; -1: forever). */
static void pump(wk_state *w, int timeout_ms)
{
    if (w->in_eof)
        return;
    struct pollfd pfd = {0, POLLIN, 0};
    int r = poll(&pfd, 1, timeout_ms);
    if (r <= 0)
        return;
    char buf[65536];
    ssize_t n = read(0, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        w->in_eof = true;
        return;
    }
    if (rpc_framer_feed(&w->in, buf, (size_t)n, on_in_frame, w) < 0)
        _exit(SRV_EXIT_PROTO);
}

void wk_write(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(1, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            _exit(0); /* the router is gone */
        p += k;
        n -= (size_t)k;
    }
}

void wk_send(wk_state *w, cJSON *msg)
{
    (void)w;
    char *body, *out;
    size_t blen, olen;
    if (msg == NULL)
        wk_oom();
    if (rpc_print(msg, &body, &blen) < 0)
        wk_oom();
    cJSON_Delete(msg);
    if (rpc_frame_encode(RPC_FRAMING_LSP, body, blen, &out, &olen) < 0)
        wk_oom();
    mdae_free(body);
    wk_write(out, olen);
    mdae_free(out);
}

/* Is m `$/cancelRequest` for request wid? */
bool wk_cancelled(wk_state *w)
{
    if (w->current_cancelled)
        return true;
    uint64_t now = wk_now_ms();
    if (now == w->polled_ms)
        return false;
    w->polled_ms = now;
    pump(w, 0);
    if (w->in_eof) /* the router is gone: nobody wants the answer */
        return w->current_cancelled = true;
    wk_msg *prev = NULL;
    for (wk_msg *m = w->q_head; m != NULL; prev = m, m = m->next) {
        if (m->cancels == 0 || m->cancels != w->current_wid)
            continue;
        if (prev)
            prev->next = m->next;
        else
            w->q_head = m->next;
        if (w->q_tail == m)
            w->q_tail = prev;
        mdae_free(m->body);
        mdae_free(m);
        w->current_cancelled = true;
        return true;
    }
    return false;
}

uint64_t wk_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- The loop ------------------------------------------------------------------------ */

static void handle(wk_state *w, const char *body, size_t len)
{
    rpc_parsed p;
    if (rpc_parse(body, len, &p) < 0 || p.batch)
        _exit(SRV_EXIT_PROTO); /* the router only sends what we understand */
    const rpc_msg *m = &p.msgs[0];
    if (m->kind != RPC_MSG_REQUEST) { /* a late cancel for a finished request */
        rpc_parsed_close(&p);
        return;
    }
    w->current_wid = cJSON_IsNumber(m->id) ? (uint64_t)m->id->valuedouble : 0;
    w->current_cancelled = false;
    w->current_start_ms = wk_now_ms();
    w->replied = false;
    wk_method_fn *fn = wk_method_find(w, m->method);
    cJSON *resp = fn ? fn(w, m->id, m->params)
                     : rpc_response_error(m->id, RPC_METHOD_NOT_FOUND, "unknown worker method",
                                          NULL);
    if (!w->replied) /* else the handler wrote it (wk_methods.c, analyze_streamed) */
        wk_send(w, resp);
    rpc_parsed_close(&p);
    w->current_wid = 0;
    wk_after_reply(w);
}

static void set_memory_cap(size_t memory_mb)
{
    if (memory_mb == 0)
        return;
    mem_cap = memory_mb * 1024 * 1024;
#ifndef WK_ASAN
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = (rlim_t)memory_mb * 1024 * 1024 + (64u << 20);
    /* +64 MiB: the binary, its libraries and stacks are not the model's */
    if (setrlimit(RLIMIT_AS, &rl) < 0)
        MDAE_LOG(SRV_LOG_WARN, "worker: setrlimit(RLIMIT_AS): %s", strerror(errno));
#endif
}

int wk_main(const srv_worker_opts *o)
{
    signal(SIGPIPE, SIG_IGN);
    set_memory_cap(o->memory_mb);
    mdae_allocator a = {cm_malloc, cm_realloc, cm_calloc, cm_free};
    mdae_replace_allocator(&a);
    rpc_message_init();
    rpc_json_init();

    static wk_state w; /* static: large, and alive for the whole process */
    wk_state_init(&w, o);
    rpc_framer_init(&w.in, WK_MAX_IN);
    rpc_framer_set_framing(&w.in, RPC_FRAMING_LSP);

    sa_config cfg;
    sa_config_default(&cfg);
    if (o->node_limit)
        cfg.node_limit = o->node_limit;
    if (o->initial_nodes)
        cfg.initial_nodes = o->initial_nodes;
    if (o->cache_size)
        cfg.cache_size = o->cache_size;
    int rc = sa_begin(&cfg);
    if (rc < 0) {
        MDAE_LOG(SRV_LOG_ERROR, "worker: cannot start BuDDy: %s", mdae_err_name(rc));
        return 1;
    }
    for (;;) {
        while (w.q_head == NULL && !w.in_eof)
            pump(&w, -1);
        if (w.q_head == NULL)
            break; /* the router closed our stdin: stop */
        wk_msg *m = w.q_head;
        w.q_head = m->next;
        if (w.q_head == NULL)
            w.q_tail = NULL;
        handle(&w, m->body, m->len);
        mdae_free(m->body);
        mdae_free(m);
    }
    wk_state_close(&w);
    sa_end();
    rpc_framer_close(&w.in);
    return 0;
}
