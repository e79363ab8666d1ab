/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_m_server.c -- the methods about the server rather than a
 * session: server/status, auth, and $/cancelRequest. All answered here,
 * without a worker.
 */
#include "srv.h"

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
    if (cJSON_IsString(tok) && srv_token_ok(tok->valuestring)) {
        c->authed = true;
        srv_call_result(call, cJSON_CreateTrue());
        return;
    }
    srv_call_error(call, SRV_UNAUTHORIZED, "wrong access token", NULL);
    srv_conn_end(c, "wrong access token");
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
