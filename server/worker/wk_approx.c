/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/worker/wk_approx.c -- session/approx and the editor's warnings of
 * what a single-mode tool does with the session's model (issue 38 item 6).
 *
 * The approximate analysis (engine/ap.h: RR-9459 section 3.1, what
 * OpenModelica and Dymola do) is compared with the exact all-modes analysis
 * the worker keeps, so it runs after that one, on the same model; its
 * report, and its JSON (rpc_json_approx, `mdae approx --json`) once
 * session/approx asks, are kept beside the analysis JSON and dropped with
 * it: one approximate analysis per analysed version, whether
 * session/approx, the editor's diagnostics or both ask for it, but for a
 * session/approx after the editor's warnings: those leave out the union
 * of the findings' modes (ap_options.no_wrong_modes, quadratic to write on
 * the brake at N = 10,000) and the sets and messages of the findings past
 * the 20 shown (ap_options.detail_max), which session/approx then has
 * computed.
 *
 * The warnings are the report's findings: each its message (engine/ap.c
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

/* ap_options.progress: the request's cancel (wk_cancelled). */
static int until_cancelled(void *ctx, const char *phase, size_t done, size_t total)
{
    (void)phase;
    (void)done;
    (void)total;
    return wk_cancelled(ctx) ? 1 : 0;
}

/* The approximate analysis of the analysed version, run once and kept in
 * w->approx_rep: MDAE_OK with *out borrowed, or the engine's code. With
 * `findings_only` its wrong_modes, and the details of the findings past
 * the first WK_APPROX_DIAGS, may be left out (ap_options): the editor's
 * warnings; session/approx needs them and runs it again if the kept one
 * has not them all. */
static int approx_report(wk_state *w, bool findings_only, const ap_report **out)
{
    assert(w->model != NULL && w->result != NULL);
    if (w->approx_rep != NULL && !findings_only &&
        (w->approx_rep->wrong_modes_left || w->approx_rep->details_left)) {
        ap_report_free(w->approx_rep);
        w->approx_rep = NULL;
    }
    if (w->approx_rep == NULL) {
        ap_report *rep = NULL;
        w->approximations++;
        /* pivots printed in the text's language, as `mdae approx` does */
        ap_options opt = {.syntax = w->modelica ? FX_SYNTAX_MODELICA : FX_SYNTAX_MEL,
                          .no_wrong_modes = findings_only,
                          .detail_max = findings_only ? WK_APPROX_DIAGS : 0,
                          .progress = until_cancelled,
                          .progress_ctx = w};
        int rc = ap_analyze_ex(w->model, w->result, &opt, &rep);
        check(rc);
        if (rc < 0)
            return rc;
        w->approx_rep = rep;
    }
    *out = w->approx_rep;
    return MDAE_OK;
}

int wk_approx(wk_state *w, const cJSON **out)
{
    if (w->cached_approx == NULL) {
        const ap_report *rep = NULL;
        int rc = approx_report(w, false, &rep);
        if (rc == MDAE_OK)
            rc = rpc_json_approx(rep, &w->cached_approx);
        check(rc);
        if (rc < 0)
            return rc;
    }
    *out = w->cached_approx;
    return MDAE_OK;
}

void wk_approx_forget(wk_state *w)
{
    /* freed once the response is sent (wk_after_reply); a second forget
     * before then (a load forgets, then the analysis it starts) keeps
     * them late, not freed on the response's path */
    if (w->cached_approx == NULL && w->approx_rep == NULL)
        return;
    cJSON_Delete(w->late_approx);
    ap_report_free(w->late_approx_rep);
    w->late_approx = w->cached_approx;
    w->late_approx_rep = w->approx_rep;
    w->cached_approx = NULL;
    w->approx_rep = NULL;
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
        return rpc_response_mdae(id, rc,
                                 rc == MDAE_E_CANCELED ? "request cancelled"
                                                       : "the single-mode analysis failed",
                                 NULL);
    cJSON *copy = cJSON_Duplicate(json, true);
    if (copy == NULL)
        wk_oom();
    return rpc_response_result(id, copy);
}

/* ---- The editor's warnings -------------------------------------------------------- */

/* The equation rpc_json_approx names for a finding (its "equation"). */
static const char *finding_equation(const ap_report *rep, const ap_finding *f)
{
    if (f->equation >= 0)
        return rep->eq_names[f->equation];
    if (f->kind == AP_PIVOT && f->approx_eq >= 0)
        return rep->equations[f->approx_eq].name;
    return NULL;
}

/* Where a finding is: its "where" range, else its equation's, else its
 * unknown's declaration; false when it has no place in the text. Read from
 * the report, as from its JSON before (the same fields). */
static bool finding_where(const wk_state *w, const ap_report *rep, const ap_finding *f,
                          mdae_range *r)
{
    if (f->where.start.line >= 1) {
        *r = f->where;
        return true;
    }
    const mel_model *m = w->model;
    const char *eq = finding_equation(rep, f);
    long k = eq != NULL ? mel_model_find_equation(m, eq) : -1;
    if (k >= 0) {
        *r = m->equations[k].where;
        return r->start.line > 0;
    }
    const char *var = f->variable >= 0 ? rep->var_names[f->variable] : NULL;
    for (size_t v = 0; var != NULL && v < m->n_variables; v++)
        if (strcmp(m->variables[v].name, var) == 0) {
            *r = m->variables[v].where;
            return r->start.line > 0;
        }
    return false;
}

/* The warning's text for one finding, into b: its message (engine/ap.c:
 * one sentence for people, the one `mdae approx` and the web page show),
 * else what its kind and modes say. */
static void finding_text(mdae_buf *b, const ap_finding *f)
{
    if (f->message != NULL && f->message[0] != '\0') {
        mdae_buf_puts(b, f->message);
        return;
    }
    const char *modes = f->modes.formula;
    mdae_buf_puts(b, "a single-mode analysis, as Modelica tools do, is wrong here (");
    mdae_buf_puts(b, ap_kind_name(f->kind));
    mdae_buf_puts(b, ") when ");
    mdae_buf_puts(b, modes != NULL ? modes : "?");
}

/* The findings' indices are in range (rpc_json_approx refuses a report
 * where one is not, and the warnings were its JSON's). */
static bool findings_sound(const ap_report *rep)
{
    for (size_t k = 0; k < rep->n_findings; k++) {
        const ap_finding *f = &rep->findings[k];
        if (f->variable >= (long)rep->n_variables || f->equation >= (long)rep->n_model_equations ||
            f->approx_eq >= (long)rep->n_equations)
            return false;
    }
    return true;
}

/* Whether the warnings shown need a finding past the detailed ones: fewer
 * than WK_APPROX_DIAGS of those have a place (findings without one are
 * not shown). */
static bool needs_more_details(const wk_state *w, const ap_report *rep)
{
    if (!rep->details_left)
        return false;
    int placed = 0;
    for (size_t k = 0; k < rep->n_findings && k < WK_APPROX_DIAGS; k++) {
        mdae_range r;
        placed += finding_where(w, rep, &rep->findings[k], &r);
    }
    return placed < WK_APPROX_DIAGS;
}

void wk_approx_diags(wk_state *w, cJSON *arr)
{
    const ap_report *rep = NULL;
    if (w->result == NULL || approx_report(w, true, &rep) < 0 || !findings_sound(rep))
        return;
    if (needs_more_details(w, rep) && (approx_report(w, false, &rep) < 0 || !findings_sound(rep)))
        return;
    int shown = 0, left = 0;
    for (size_t k = 0; k < rep->n_findings; k++) {
        const ap_finding *f = &rep->findings[k];
        mdae_range r;
        if (!finding_where(w, rep, f, &r))
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
