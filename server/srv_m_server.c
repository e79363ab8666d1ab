/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_m_server.c -- the methods about the server rather than a
 * session: server/status, auth, and $/cancelRequest. All answered here,
 * without a worker.
 */
#include "srv.h"

#include <stdio.h>
#include <string.h>

/* Error code for a wrong access token (server-defined range; as the router's
 * "authentication required"). */
#define SRV_UNAUTHORIZED (-32099)

void srv_m_status(srv_call *call, const cJSON *params)
{
    cJSON *r = cJSON_CreateObject();
    size_t rss = 0;
    uv_resident_set_memory(&rss);
    if (r == NULL)
        goto nomem;
    cJSON *mem = cJSON_AddObjectToObject(r, "memory");
    if (!cJSON_AddStringToObject(r, "name", "mdaed") ||
        !cJSON_AddStringToObject(r, "version", MDAE_VERSION) ||
        !cJSON_AddNumberToObject(r, "uptime_ms", (double)(uv_now(srv.loop) - srv.start_ms)) ||
        !cJSON_AddNumberToObject(r, "sessions", (double)srv.n_sessions) ||
        !cJSON_AddNumberToObject(r, "workers", (double)srv.n_workers) ||
        !cJSON_AddNumberToObject(r, "waiting", (double)srv.n_waiting_jobs) ||
        !cJSON_AddNumberToObject(r, "connections", (double)srv.n_conns) ||
        !cJSON_AddNumberToObject(r, "requests", (double)srv.requests) || mem == NULL ||
        !cJSON_AddNumberToObject(mem, "rss_bytes", (double)rss) ||
        !cJSON_AddNumberToObject(mem, "worker_cap_mb", (double)srv.cfg.worker_memory_mb))
        goto nomem;
    cJSON *limits = cJSON_AddObjectToObject(r, "limits");
    if (limits == NULL ||
        !cJSON_AddNumberToObject(limits, "max_sessions", (double)srv.cfg.max_sessions) ||
        !cJSON_AddNumberToObject(limits, "max_workers", (double)srv.cfg.max_workers) ||
        !cJSON_AddNumberToObject(limits, "max_message_bytes",
                                 (double)srv.cfg.max_message_bytes) ||
        !cJSON_AddNumberToObject(limits, "request_timeout_ms",
                                 (double)srv.cfg.request_timeout_ms))
        goto nomem;
    /* What the workers' incremental analyses reused (issue 6), and how the
     * parts analysed anew were analysed (issue 10). */
    cJSON *reuse = cJSON_AddObjectToObject(r, "reuse");
    if (reuse == NULL ||
        !cJSON_AddNumberToObject(reuse, "components", (double)srv.reuse_components) ||
        !cJSON_AddNumberToObject(reuse, "reused", (double)srv.reuse_reused) ||
        !cJSON_AddNumberToObject(reuse, "recomputed", (double)srv.reuse_recomputed) ||
        !cJSON_AddNumberToObject(reuse, "seeded", (double)srv.reuse_seeded) ||
        !cJSON_AddNumberToObject(reuse, "searched", (double)srv.reuse_searched) ||
        !cJSON_AddNumberToObject(reuse, "implicit", (double)srv.reuse_implicit) ||
        !cJSON_AddNumberToObject(reuse, "enumerated", (double)srv.reuse_enumerated) ||
        !cJSON_AddNumberToObject(reuse, "fellBack", (double)srv.reuse_fell_back))
        goto nomem;
    /* The session store (issue 37 item 3): {"backend", ...}, null when
     * nothing persists. */
    cJSON *store = srv_store_status();
    if (store == NULL && srv_store_on())
        goto nomem;
    cJSON_AddItemToObject(r, "store", store ? store : cJSON_CreateNull());
    srv_call_result(call, r);
    return;
nomem:
    cJSON_Delete(r);
    srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
}

/* ---- Failed token attempts (issue 37 item 6) ----------------------------------
 * A wrong token is answered late, from a timer (never a sleep: the loop
 * serves everyone else meanwhile), and its peer address is locked as long:
 * auth.fail_delay_ms after the address's first recent failure, doubling
 * with each further one up to 16 times. While an address is locked, tokens
 * from it are refused unchecked (a right one too: else many connections in
 * parallel could guess on, each answered late but the right guess at
 * once). A connection is closed after auth.max_failures failures, and
 * sends one token at a time: another while a failure waits is not checked
 * and ends it. An address is forgotten once its lock has been over for 16
 * times auth.fail_delay_ms. */
#define SRV_AUTH_DELAY_DOUBLINGS 4 /* the delay grows to 16 times the first */

/* conn's peer address as a key of srv.auth_peers: IPv4's 4 bytes (also
 * from an IPv4-mapped IPv6 address), or an IPv6 address's /64 prefix (a
 * host commonly holds a whole /64) marked in the last byte. false when
 * there is none (not TCP, or the peer is gone). */
static bool peer_key(srv_conn *c, unsigned char key[16])
{
    struct sockaddr_storage ss;
    int len = sizeof ss;
    if (c->kind != SRV_CONN_TCP || uv_tcp_getpeername(&c->h.tcp, (struct sockaddr *)&ss, &len) != 0)
        return false;
    memset(key, 0, 16);
    if (ss.ss_family == AF_INET) {
        memcpy(key, &((const struct sockaddr_in *)&ss)->sin_addr, 4);
        return true;
    }
    if (ss.ss_family != AF_INET6)
        return false;
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    const unsigned char *a = ((const struct sockaddr_in6 *)&ss)->sin6_addr.s6_addr;
    if (memcmp(a, mapped, 12) == 0) {
        memcpy(key, a + 12, 4);
    } else {
        memcpy(key, a, 8);
        key[15] = 6;
    }
    return true;
}

/* The entry of key, or NULL; with make, a new one in a free slot or in
 * place of the entry whose lock ends first. Forgets what is old. */
static struct srv_auth_peer *peer_find(const unsigned char key[16], bool make)
{
    uint64_t now = uv_now(srv.loop);
    uint64_t forget = srv.cfg.auth_fail_delay_ms << SRV_AUTH_DELAY_DOUBLINGS;
    struct srv_auth_peer *victim = NULL;
    for (size_t i = 0; i < SRV_AUTH_PEERS; i++) {
        struct srv_auth_peer *p = &srv.auth_peers[i];
        if (p->failures > 0 && now >= p->lock_until + forget)
            p->failures = 0;
        if (p->failures > 0 && memcmp(p->addr, key, 16) == 0)
            return p;
        if (victim == NULL ||
            (victim->failures > 0 && (p->failures == 0 || p->lock_until < victim->lock_until)))
            victim = p;
    }
    if (!make)
        return NULL;
    memcpy(victim->addr, key, 16);
    victim->failures = 0;
    victim->lock_until = 0;
    return victim;
}

uint64_t srv_auth_locked(srv_conn *c)
{
    unsigned char key[16];
    struct srv_auth_peer *p = peer_key(c, key) ? peer_find(key, false) : NULL;
    uint64_t now = uv_now(srv.loop);
    return p != NULL && now < p->lock_until ? p->lock_until - now : 0;
}

typedef struct auth_wait {
    uv_timer_t timer;
    srv_conn *conn; /* referenced */
    srv_auth_answer_fn *answer;
    void *arg;
    bool last;
} auth_wait;

static void on_auth_wait_closed(uv_handle_t *h) { mdae_free(h->data); }

static void on_auth_wait(uv_timer_t *t)
{
    auth_wait *w = t->data;
    srv_conn *c = w->conn;
    c->auth_waiting = false;
    w->answer(c, w->arg, w->last);
    srv_conn_unref(c);
    uv_close((uv_handle_t *)&w->timer, on_auth_wait_closed);
}

void srv_auth_failed(srv_conn *c, srv_auth_answer_fn *answer, void *arg)
{
    unsigned char key[16];
    struct srv_auth_peer *p = peer_key(c, key) ? peer_find(key, true) : NULL;
    unsigned n = p != NULL ? p->failures : c->auth_failures; /* earlier ones */
    uint64_t delay = srv.cfg.auth_fail_delay_ms
                     << (n < SRV_AUTH_DELAY_DOUBLINGS ? n : SRV_AUTH_DELAY_DOUBLINGS);
    if (p != NULL) {
        p->failures++;
        p->lock_until = uv_now(srv.loop) + delay;
    }
    c->auth_failures++;
    bool last = c->auth_failures >= srv.cfg.auth_max_failures;
    MDAE_LOG(SRV_LOG_WARN,
             "conn %llu: wrong access token (%u from its address lately, %u of %zu on the "
             "connection), answered in %llu ms",
             (unsigned long long)c->id, p != NULL ? p->failures : 0, c->auth_failures,
             srv.cfg.auth_max_failures, (unsigned long long)delay);
    auth_wait *w = mdae_calloc(1, sizeof *w);
    if (w == NULL || delay == 0) { /* no delay configured, or out of memory */
        mdae_free(w);
        answer(c, arg, last);
        return;
    }
    w->conn = c;
    w->answer = answer;
    w->arg = arg;
    w->last = last;
    w->timer.data = w;
    srv_conn_ref(c);
    c->auth_waiting = true;
    uv_timer_init(srv.loop, &w->timer);
    uv_timer_start(&w->timer, on_auth_wait, delay, 0);
}

static void auth_answer_call(srv_conn *c, void *arg, bool last)
{
    srv_call_error(arg, SRV_UNAUTHORIZED, "wrong access token", NULL);
    if (last && !c->closing)
        srv_conn_end(c, "too many wrong access tokens");
}

void srv_m_auth(srv_call *call, const cJSON *params)
{
    const cJSON *tok =
        cJSON_IsObject(params) ? cJSON_GetObjectItemCaseSensitive(params, "token") : NULL;
    srv_conn *c = call->conn;
    if (srv.cfg.token == NULL || c->kind != SRV_CONN_TCP) {
        c->authed = true;
        srv_call_result(call, cJSON_CreateTrue());
        return;
    }
    if (c->auth_waiting) { /* not checked: pipelined guesses gain nothing */
        srv_call_error(call, SRV_UNAUTHORIZED,
                       "one access token at a time: wait for the answer to the last", NULL);
        srv_conn_end(c, "access tokens sent without waiting");
        return;
    }
    uint64_t locked = srv_auth_locked(c);
    if (locked > 0) { /* not checked either */
        char msg[160];
        snprintf(msg, sizeof msg,
                 "too many wrong access tokens from this address: try again in %llu ms",
                 (unsigned long long)locked);
        cJSON *d = cJSON_CreateObject();
        if (d != NULL)
            cJSON_AddNumberToObject(d, "retryAfterMs", (double)locked);
        srv_call_error(call, SRV_UNAUTHORIZED, msg, d);
        srv_conn_end(c, "its address is locked after wrong access tokens");
        return;
    }
    if (cJSON_IsString(tok) && srv_token_ok(tok->valuestring)) {
        c->authed = true;
        srv_call_result(call, cJSON_CreateTrue());
        return;
    }
    srv_auth_failed(c, auth_answer_call, call);
}

/* $/cancelRequest {id}: stop the request's job (like uv_cancel): answered
 * at once if it has not started, else the worker is asked to stop and the
 * request gets an error (srv_worker.c). */
void srv_m_cancel(srv_conn *c, const cJSON *params)
{
    const cJSON *id = cJSON_IsObject(params) ? cJSON_GetObjectItemCaseSensitive(params, "id") : NULL;
    if (!rpc_id_valid(id))
        return;
    srv_call *call = srv_call_find(c, id);
    if (call != NULL && call->job != NULL)
        srv_job_cancel(call->job);
    else
        MDAE_LOG(SRV_LOG_DEBUG, "conn %llu: cancel for an unknown request",
                 (unsigned long long)c->id);
}
