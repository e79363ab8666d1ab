/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/worker/wk_rimis.c -- session/rimis (issue 39): the session's model
 * rewritten as one flat Modelica model that single-mode tools simulate
 * correctly (engine/rimis.h), as `mdae rimis --json` prints it.
 *
 * The construction reads the exact all-modes analysis of the model and its
 * dependency graph, so it runs after the one the worker keeps (a model
 * with errors, or an analysis stopped at a limit, answers as for
 * session/analyze), then analyses the model once more in one piece
 * (wk_analyse_whole: the kept, incremental result may be of a copy of the
 * model, which rimis_build refuses), seeded by the kept one, in the same
 * BuDDy session. Its JSON (protocol/rpc_rimis.h) is kept beside the analysis and
 * dropped with it, one per guard setting: asking again for the same
 * version builds nothing. A model RIMIS cannot represent is answered as an
 * error (MDAE_E_MODEL) whose data holds the located "diagnostics" and their
 * "messages", as a model with errors is answered.
 */
#include "wk.h"

#include <assert.h>
#include <string.h>

#include "rimis.h"
#include "rpc_message.h"
#include "rpc_rimis.h"

static void check(int rc)
{
    if (rc == MDAE_E_NOMEM)
        wk_oom();
}

/* Build the JSON for the guard setting into *out (owned), or the refusal's
 * diagnostics into d and the engine's code. */
static int build(wk_state *w, bool guard, cJSON **out, mdae_diags *d)
{
    char name[256];
    rimis_options opt = {.no_guard = !guard};
    if (w->modelica) {
        opt.source = w->text;
        opt.source_len = w->text_len;
    } else {
        /* an editor's document (a URI, a path) names it; a session's id
         * (no '/') would make the name differ from one session to the next */
        if (w->text_name != NULL && strchr(w->text_name, '/') != NULL)
            opt.model_name = rpc_rimis_model_name(w->text_name, name, sizeof name);
    }
    rimis_result *res = NULL;
    sa_result *r = NULL;
    cdg_graph *g = NULL;
    w->rimis_builds++;
    int rc = wk_analyse_whole(w, &r, &g, d);
    if (rc == MDAE_OK)
        rc = rimis_build(w->model, r, g, &opt, &res, d);
    if (rc == MDAE_OK)
        rc = rpc_json_rimis(w->model, res, out);
    rimis_result_free(res);
    cdg_graph_free(g);
    sa_result_free(r);
    check(rc);
    return rc;
}

cJSON *wk_m_rimis(wk_state *w, const cJSON *id, const cJSON *params)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(params, "guard");
    if (g != NULL && !cJSON_IsBool(g))
        return rpc_response_error(id, RPC_INVALID_PARAMS, "\"guard\" must be a boolean", NULL);
    bool guard = g == NULL || cJSON_IsTrue(g);
    cJSON *err = NULL;
    if (!wk_analysed(w, id, false, &err))
        return err;
    assert(w->model != NULL && w->result != NULL && w->graph != NULL);
    cJSON **cached = &w->cached_rimis[guard ? 1 : 0];
    if (*cached == NULL) {
        mdae_diags d;
        mdae_diags_init(&d);
        int rc = build(w, guard, cached, &d);
        if (rc < 0) {
            cJSON *details = d.count > 0 ? wk_diags_details(w, &d) : NULL;
            cJSON *resp = rpc_response_mdae(
                id, rc, rc == MDAE_E_MODEL ? "no mode-independent model (RIMIS) of this model"
                                           : NULL,
                details);
            mdae_diags_close(&d);
            return resp;
        }
        mdae_diags_close(&d);
    }
    cJSON *copy = cJSON_Duplicate(*cached, true);
    if (copy == NULL)
        wk_oom();
    return rpc_response_result(id, copy);
}
