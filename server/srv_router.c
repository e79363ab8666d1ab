/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_router.c -- JSON-RPC routing: parse a body, walk a batch, check
 * authentication, find the method in the table (srv_methods.c) and call its
 * handler with a srv_call to answer. It names no method: what a method does
 * is in its handler (srv_m_session.c, srv_m_server.c, srv_lsp.c).
 *
 * Requests get a srv_call (srv_call.c); notifications get no answer
 * (JSON-RPC 2.0 section 4.1), and those the table does not list are
 * ignored ($/setTrace, initialized, ...). Responses from the client answer
 * the server's own requests, which only srv_lsp.c makes (issue 36): they
 * go there.
 */
#include "srv.h"

#include <stdio.h>
#include <string.h>

/* Error code for a missing or wrong access token (server-defined range). */
#define SRV_UNAUTHORIZED (-32099) /* not -32000+rc: -32001 is MDAE_E_NOMEM */

/* Returns true when the message is owed a response. */
static bool dispatch_msg(srv_conn *c, const rpc_msg *m, srv_batch *b)
{
    if (m->kind == RPC_MSG_RESPONSE) {
        /* our requests to clients: LSP progress tokens, and the RIMIS
         * command's applyEdit and showDocument (srv_lsp.c) */
        if (c->authed)
            srv_lsp_response(c, m);
        return false;
    }
    if (m->kind == RPC_MSG_INVALID) {
        cJSON *d = cJSON_CreateObject();
        if (d)
            cJSON_AddStringToObject(d, "reason", m->why);
        srv_batch_reply(c, b, rpc_response_error(m->id, RPC_INVALID_REQUEST, "Invalid Request", d));
        return true;
    }
    bool request = m->kind == RPC_MSG_REQUEST;
    const srv_method *fn = srv_method_find(m->method, !request);
    /* Before authentication only what the table allows (auth itself), as a
     * request or a notification of that name. */
    const srv_method *as_request = request ? fn : srv_method_find(m->method, false);
    if (!c->authed && !(as_request != NULL && (as_request->flags & SRV_M_NOAUTH))) {
        if (request)
            srv_batch_reply(c, b,
                            rpc_response_error(m->id, SRV_UNAUTHORIZED,
                                               "authentication required: send {\"method\":\"auth\","
                                               "\"params\":{\"token\":...}} first",
                                               NULL));
        srv_conn_end(c, "not authenticated");
        return request;
    }
    MDAE_LOG(SRV_LOG_DEBUG, "conn %llu: %s %s", (unsigned long long)c->id,
             request ? "request" : "notification", m->method);
    if (!request) {
        if (fn != NULL)
            fn->notify(c, m->params);
        return false;
    }
    if (fn == NULL) {
        /* The name is valid UTF-8 (rpc_check_bytes); cut at a character. */
        char msg[200];
        snprintf(msg, sizeof msg, "Method not found: %.*s",
                 (int)rpc_utf8_prefix(m->method, strlen(m->method), 150), m->method);
        srv_batch_reply(c, b, rpc_response_error(m->id, RPC_METHOD_NOT_FOUND, msg, NULL));
        return true;
    }
    if ((size_t)c->refs >= srv.cfg.max_pending_requests) {
        /* A client that sends and never waits must not grow the router's
         * memory without bound: refused at once, answered all the same. */
        char msg[120];
        snprintf(msg, sizeof msg, "too many requests pending on this connection (limit %zu)",
                 srv.cfg.max_pending_requests);
        srv_batch_reply(c, b, rpc_response_mdae(m->id, MDAE_E_LIMIT, msg, NULL));
        return true;
    }
    srv_call *call = srv_call_new(c, m->id, m->method, b);
    if (call == NULL) {
        srv_batch_reply(c, b, rpc_response_mdae(m->id, MDAE_E_NOMEM, NULL, NULL));
        return true;
    }
    call->m = fn;
    fn->fn(call, m->params);
    return true;
}

/* Refuse a body that is not UTF-8 or holds a NUL (rpc_check_bytes), with
 * where, and nothing of the bytes themselves. */
static bool refuse_bytes(srv_conn *c, const char *body, size_t len)
{
    size_t at = 0;
    int rc = rpc_check_bytes(body, len, &at);
    if (rc == MDAE_OK)
        return false;
    char msg[160];
    cJSON *d = cJSON_CreateObject();
    if (d != NULL)
        cJSON_AddNumberToObject(d, "offset", (double)at);
    if (rc == MDAE_E_PROTO) {
        snprintf(msg, sizeof msg, "Parse error: invalid UTF-8 at byte offset %zu", at);
        srv_batch_reply(c, NULL, rpc_response_error(NULL, RPC_PARSE_ERROR, msg, d));
    } else {
        snprintf(msg, sizeof msg,
                 "Invalid Request: a NUL character (\\u0000) is not allowed, at byte offset %zu",
                 at);
        srv_batch_reply(c, NULL, rpc_response_error(NULL, RPC_INVALID_REQUEST, msg, d));
    }
    MDAE_LOG(SRV_LOG_INFO, "conn %llu: refused a message: %s at byte %zu",
             (unsigned long long)c->id, rc == MDAE_E_PROTO ? "invalid UTF-8" : "a NUL", at);
    return true;
}

bool srv_router_body(srv_conn *c, const char *body, size_t len)
{
    if (refuse_bytes(c, body, len))
        return true;
    rpc_parsed p;
    int rc = rpc_parse(body, len, &p);
    if (rc == MDAE_E_PROTO) {
        srv_batch_reply(c, NULL,
                        rpc_response_error(NULL, RPC_PARSE_ERROR, "Parse error: not JSON", NULL));
        return true;
    }
    if (rc == MDAE_E_LIMIT) {
        srv_batch_reply(c, NULL, rpc_response_error(NULL, RPC_INVALID_REQUEST,
                                                    "Invalid Request: JSON nested too deep", NULL));
        return true;
    }
    if (rc < 0) {
        srv_batch_reply(c, NULL, rpc_response_mdae(NULL, rc, NULL, NULL));
        return true;
    }
    bool owed = false;
    if (!p.batch) {
        owed = dispatch_msg(c, &p.msgs[0], NULL);
    } else {
        srv_batch *b = srv_batch_new(c);
        if (b == NULL) {
            srv_batch_reply(c, NULL, rpc_response_mdae(NULL, MDAE_E_NOMEM, NULL, NULL));
            rpc_parsed_close(&p);
            return true;
        }
        for (size_t i = 0; i < p.n && !c->closing && !c->ending; i++)
            owed |= dispatch_msg(c, &p.msgs[i], b);
        srv_batch_dispatched(b);
    }
    rpc_parsed_close(&p);
    return owed;
}
