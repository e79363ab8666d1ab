/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/worker/wk_approx.c -- session/approx and the editor's warnings of
 * what a single-mode tool does with the session's model (issue 38 item 6).
 *
 * The approximate analysis (engine/ap.h: RR-9459 section 3.1, what
 * OpenModelica and Dymola do) is compared with the exact all-modes analysis
 * the worker keeps, so it runs after that one, on the same model, and its
 * JSON (rpc_json_approx, `mdae approx --json`) is kept beside the analysis
 * JSON and dropped with it: one approximate analysis per analysed version,
 * whether session/approx, the editor's diagnostics or both ask for it.
 *
 * The warnings are that JSON's findings: each its message (engine/ap.c
 * words it: "a single-mode analysis, as Modelica tools do, divides by zero
 * here when bh: it solves eh2 for yh, ...") at its place, so that
 * session/approx, `mdae approx`, the web page and the editor say the same
 * thing.
 */
#include "wk.h"

#include <assert.h>
#include <string.h>

#include "ap.h"
#include "rpc_json.h"
#include "rpc_message.h"

static void check(int rc)
{
    if (rc == MDAE_E_NOMEM)
        wk_oom();
}

int wk_approx(wk_state *w, const cJSON **out)
{
    assert(w->model != NULL && w->result != NULL);
    if (w->cached_approx == NULL) {
        ap_report *rep = NULL;
        w->approximations++;
        /* pivots printed in the text's language, as `mdae approx` does */
        ap_options opt = {.syntax = w->modelica ? FX_SYNTAX_MODELICA : FX_SYNTAX_MEL};
        int rc = ap_analyze_ex(w->model, w->result, &opt, &rep);
        if (rc == MDAE_OK)
            rc = rpc_json_approx(rep, &w->cached_approx);
        ap_report_free(rep);
        check(rc);
        if (rc < 0)
            return rc;
    }
    *out = w->cached_approx;
    return MDAE_OK;
}

cJSON *wk_m_approx(wk_state *w, const cJSON *id, const cJSON *params)
{
    (void)params;
    cJSON *err = NULL;
    if (!wk_analysed(w, id, false, &err))
        return err;
    const cJSON *json = NULL;
    int rc = wk_approx(w, &json);
    if (rc < 0)
        return rpc_response_mdae(id, rc, "the single-mode analysis failed", NULL);
    cJSON *copy = cJSON_Duplicate(json, true);
    if (copy == NULL)
        wk_oom();
    return rpc_response_result(id, copy);
}

/* ---- The editor's warnings -------------------------------------------------------- */

static const char *str_of(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static bool pos_of(const cJSON *p, mdae_pos *out)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(p, "line");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(p, "col");
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(p, "offset");
    if (!cJSON_IsNumber(l) || !cJSON_IsNumber(c) || !cJSON_IsNumber(o) || l->valuedouble < 1)
        return false;
    *out = (mdae_pos){(uint32_t)l->valuedouble, (uint32_t)c->valuedouble,
                      (uint32_t)o->valuedouble};
    return true;
}

/* Where a finding is: its "where" range, else its equation's, else its
 * unknown's declaration; false when it has no place in the text. */
static bool finding_where(const wk_state *w, const cJSON *f, mdae_range *r)
{
    const cJSON *where = cJSON_GetObjectItemCaseSensitive(f, "where");
    if (pos_of(cJSON_GetObjectItemCaseSensitive(where, "start"), &r->start)) {
        if (!pos_of(cJSON_GetObjectItemCaseSensitive(where, "end"), &r->end))
            r->end = (mdae_pos){0, 0, 0};
        return true;
    }
    const mel_model *m = w->model;
    const char *eq = str_of(f, "equation");
    long k = eq != NULL ? mel_model_find_equation(m, eq) : -1;
    if (k >= 0) {
        *r = m->equations[k].where;
        return r->start.line > 0;
    }
    const char *var = str_of(f, "variable");
    for (size_t v = 0; var != NULL && v < m->n_variables; v++)
        if (strcmp(m->variables[v].name, var) == 0) {
            *r = m->variables[v].where;
            return r->start.line > 0;
        }
    return false;
}

/* The warning's text for one finding, into b: its message (rpc_json_approx:
 * one sentence for people, the one `mdae approx` and the web page show),
 * else what its kind and modes say. */
static void finding_text(mdae_buf *b, const cJSON *f)
{
    const char *msg = str_of(f, "message");
    if (msg != NULL && msg[0] != '\0') {
        mdae_buf_puts(b, msg);
        return;
    }
    const char *kind = str_of(f, "kind");
    const char *modes = str_of(cJSON_GetObjectItemCaseSensitive(f, "modes"), "formula");
    mdae_buf_puts(b, "a single-mode analysis, as Modelica tools do, is wrong here (");
    mdae_buf_puts(b, kind != NULL ? kind : "?");
    mdae_buf_puts(b, ") when ");
    mdae_buf_puts(b, modes != NULL ? modes : "?");
}

void wk_approx_diags(wk_state *w, cJSON *arr)
{
    const cJSON *json = NULL;
    if (w->result == NULL || wk_approx(w, &json) < 0)
        return;
    const cJSON *findings = cJSON_GetObjectItemCaseSensitive(json, "findings");
    int shown = 0, left = 0;
    const cJSON *f;
    cJSON_ArrayForEach(f, findings) {
        mdae_range r;
        if (!finding_where(w, f, &r))
            continue;
        if (shown == WK_APPROX_DIAGS) {
            left++;
            continue;
        }
        mdae_buf b = {0};
        finding_text(&b, f);
        if (b.oom)
            wk_oom();
        wk_lsp_diag(w, arr, &r, RPC_LSP_WARNING, b.p);
        mdae_free(b.p);
        shown++;
    }
    if (left > 0) {
        mdae_range none = {{0, 0, 0}, {0, 0, 0}};
        char *msg = mdae_asprintf("%d more places where a single-mode analysis, as Modelica "
                                  "tools do, is wrong in some modes (session/approx lists "
                                  "them all)",
                                  left);
        if (msg == NULL)
            wk_oom();
        wk_lsp_diag(w, arr, &none, RPC_LSP_WARNING, msg);
        mdae_free(msg);
    }
}
