/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_call.c -- client requests waiting for their reply (srv_call) and
 * batches: how an answer, made now or when a worker replies, reaches the
 * connection.
 *
 * A call references its connection: a client that goes away while its
 * request runs leaves the connection allocated (but closing) until the
 * reply has been dropped here. A call is linked into its connection's list
 * of pending calls so that $/cancelRequest can find it by id. Codes become
 * JSON-RPC errors here and nowhere else (STYLE.md section 7): reserved codes
 * for protocol faults, -32000+rc otherwise.
 */
#include "srv.h"

#include <string.h>

#include "rpc_relay.h"

struct srv_batch {
    srv_conn *conn; /* referenced */
    cJSON *responses;
    int pending;      /* calls not answered yet */
    bool dispatching; /* the router is still walking the batch */
};

/* ---- Batches ---------------------------------------------------------------- */

srv_batch *srv_batch_new(srv_conn *conn)
{
    srv_batch *b = mdae_calloc(1, sizeof *b);
    if (b == NULL || (b->responses = cJSON_CreateArray()) == NULL) {
        mdae_free(b);
        return NULL;
    }
    b->conn = conn;
    srv_conn_ref(conn);
    b->dispatching = true;
    return b;
}

static void batch_maybe_send(srv_batch *b)
{
    if (b->dispatching || b->pending > 0)
        return;
    if (cJSON_GetArraySize(b->responses) > 0)
        srv_conn_send(b->conn, b->responses, true);
    else
        cJSON_Delete(b->responses);
    srv_conn_unref(b->conn);
    mdae_free(b);
}

void srv_batch_dispatched(srv_batch *b)
{
    b->dispatching = false;
    batch_maybe_send(b);
}

void srv_batch_reply(srv_conn *c, srv_batch *b, cJSON *response)
{
    srv.requests++;
    if (b != NULL) {
        if (response != NULL)
            cJSON_AddItemToArray(b->responses, response);
    } else {
        srv_conn_send(c, response, true);
    }
}

/* ---- Calls ------------------------------------------------------------------ */

srv_call *srv_call_new(srv_conn *conn, const cJSON *id, const char *method, srv_batch *batch)
{
    srv_call *call = mdae_calloc(1, sizeof *call);
    if (call == NULL)
        return NULL;
    call->id = id ? cJSON_Duplicate(id, true) : cJSON_CreateNull();
    call->method = mdae_strdup(method ? method : "");
    if (call->id == NULL || call->method == NULL) {
        cJSON_Delete(call->id);
        mdae_free(call->method);
        mdae_free(call);
        return NULL;
    }
    call->conn = conn;
    srv_conn_ref(conn);
    call->batch = batch;
    if (batch)
        batch->pending++;
    call->next = conn->calls;
    if (conn->calls)
        conn->calls->prev = call;
    conn->calls = call;
    return call;
}

/* Unlink and free the call, then release the connection. */
static void call_free(srv_call *call)
{
    srv_conn *c = call->conn;
    if (call->prev)
        call->prev->next = call->next;
    else
        c->calls = call->next;
    if (call->next)
        call->next->prev = call->prev;
    cJSON_Delete(call->id);
    mdae_free(call->method);
    mdae_free(call);
    srv_conn_unref(c);
}

srv_call *srv_call_find(srv_conn *conn, const cJSON *id)
{
    for (srv_call *call = conn->calls; call != NULL; call = call->next)
        if (cJSON_Compare(call->id, id, true))
            return call;
    return NULL;
}

void srv_call_cancel_all(srv_conn *conn)
{
    srv_call *call = conn->calls;
    while (call != NULL) {
        srv_call *next = call->next; /* a job not started yet answers (frees) call now */
        if (call->job != NULL)
            srv_job_cancel(call->job);
        call = next;
    }
}

void srv_call_reply(srv_call *call, cJSON *response)
{
    srv.requests++;
    if (call->batch != NULL) {
        srv_batch *b = call->batch;
        if (response != NULL)
            cJSON_AddItemToArray(b->responses, response);
        b->pending--;
        batch_maybe_send(b);
    } else {
        srv_conn_send(call->conn, response, true);
    }
    call_free(call);
}

void srv_call_result(srv_call *call, cJSON *result)
{
    srv_call_reply(call, rpc_response_result(call->id, result));
}

/* In a batch: the result text as a tree, with "key":value added. */
static void result_text_batched(srv_call *call, const char *result, size_t len, const char *key,
                                const cJSON *value)
{
    cJSON *res = cJSON_ParseWithLength(result, len);
    if (res == NULL) {
        srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
        return;
    }
    if (key != NULL && cJSON_IsObject(res))
        cJSON_AddItemToObject(res, key, value ? cJSON_Duplicate(value, true) : cJSON_CreateNull());
    srv_call_result(call, res);
}

void srv_call_result_text(srv_call *call, const char *result, size_t len, const char *key,
                          const cJSON *value)
{
    if (call->batch != NULL) {
        result_text_batched(call, result, len, key, value);
        return;
    }
    srv_conn *c = call->conn;
    char *body;
    size_t blen;
    srv.requests++;
    if (rpc_relay_response(call->id, result, len, key, value, &body, &blen) == MDAE_OK) {
        srv_conn_send_owned(c, body, blen, true); /* not copied again: results are large */
    } else if (!c->closing) {
        srv_conn_close(c, "out of memory building a reply");
    }
    call_free(call);
}

void srv_call_error(srv_call *call, int code, const char *message, cJSON *data)
{
    srv_call_reply(call, rpc_response_error(call->id, code, message, data));
}

void srv_call_mdae_error(srv_call *call, int rc, const char *message, cJSON *details)
{
    MDAE_LOG(SRV_LOG_INFO, "conn %llu: %s failed: %s: %s", (unsigned long long)call->conn->id,
             call->method, mdae_err_name(rc), message ? message : mdae_strerror(rc));
    srv_call_reply(call, rpc_response_mdae(call->id, rc, message, details));
}

void srv_call_notify(srv_call *call, const char *method, cJSON *params)
{
    srv_conn_send(call->conn, rpc_notification_new(method, params), false);
}
