/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/worker/wk_modechange.c -- session/modechange {session, from, to}
 * and session/modechanges {session}: the mode-change analysis (engine/mc.h,
 * issue 13) of the session's model, as `mdae modechange --json` prints it.
 *
 * Why in the worker: the model lives there; the analysis needs no BDD (it
 * runs on the single-mode path), so it does not wait for the all-modes
 * analysis either. A bad request (a name that is not a mode variable, an
 * invalid mode, from = to) is -32602 with a message saying which; a model
 * with errors answers as session/mode does (its code and diagnostics).
 * session/modechanges enumerates the pairs (mc_all_enumerate says why) and
 * answers MDAE_E_LIMIT past MC_ALL_MAX_PAIRS.
 */
#include "wk.h"

#include <stdio.h>
#include <string.h>

#include "mc.h"
#include "rpc_json.h"
#include "rpc_message.h"

static void check(int rc)
{
    if (rc == MDAE_E_NOMEM)
        wk_oom();
}

static cJSON *invalid(const cJSON *id, const char *what, const char *why)
{
    char msg[400];
    snprintf(msg, sizeof msg, "%s%s", what, why);
    return rpc_response_error(id, RPC_INVALID_PARAMS, msg, NULL);
}

/* Read params[key] as a mode of m into a new array; NULL with *err set. */
static bool *read_mode(const mel_model *m, const cJSON *id, const cJSON *params, const char *key,
                       cJSON **err)
{
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(params, key);
    char why[200] = "", what[64];
    snprintf(what, sizeof what, "invalid \"%s\": ", key);
    if (!cJSON_IsObject(obj)) {
        *err = invalid(id, what, "expected an object such as {\"g\": true}");
        return NULL;
    }
    bool *mode = mdae_calloc((size_t)m->n_modes + 1, sizeof *mode);
    if (mode == NULL)
        wk_oom();
    int rc = rpc_json_mode_read(obj, m, mode, why, sizeof why);
    check(rc);
    if (rc < 0) {
        mdae_free(mode);
        *err = invalid(id, what, why);
        return NULL;
    }
    return mode;
}

cJSON *wk_m_modechange(wk_state *w, const cJSON *id, const cJSON *params)
{
    const mel_model *m = NULL;
    cJSON *err = NULL;
    if (!wk_model(w, id, &m, &err))
        return err;
    bool *from = read_mode(m, id, params, "from", &err);
    bool *to = from ? read_mode(m, id, params, "to", &err) : NULL;
    if (to == NULL) {
        mdae_free(from);
        return err;
    }
    mc_result *r = NULL;
    char why[256] = "";
    int rc = mc_change(m, from, to, NULL, &r, why, sizeof why);
    check(rc);
    cJSON *json = NULL;
    if (rc == MDAE_OK)
        rc = rpc_json_modechange(m, from, to, r, &json);
    check(rc);
    mdae_free(from);
    mdae_free(to);
    mc_result_free(r);
    if (rc == MDAE_E_INVAL)
        return invalid(id, "", why[0] ? why : "invalid mode change");
    if (rc < 0)
        return rpc_response_mdae(id, rc, NULL, NULL);
    return rpc_response_result(id, json);
}

cJSON *wk_m_modechanges(wk_state *w, const cJSON *id, const cJSON *params)
{
    (void)params;
    const mel_model *m = NULL;
    cJSON *err = NULL;
    if (!wk_model(w, id, &m, &err))
        return err;
    mc_all *all = NULL;
    char why[256] = "";
    int rc = mc_all_enumerate(m, MC_ALL_MAX_PAIRS, &all, why, sizeof why);
    check(rc);
    cJSON *json = NULL;
    if (rc == MDAE_OK)
        rc = rpc_json_modechanges(m, all, &json);
    check(rc);
    mc_all_free(all);
    if (rc == MDAE_E_INVAL)
        return invalid(id, "", why);
    if (rc < 0)
        return rpc_response_mdae(id, rc, why[0] ? why : NULL, NULL);
    return rpc_response_result(id, json);
}
