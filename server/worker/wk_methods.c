/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/worker/wk_methods.c -- what a worker knows of its session (the
 * model text, the model, its analysis, the results kept for since) and the
 * methods the router sends (wk.h lists them), with the method table.
 *
 * Every handler returns the whole JSON-RPC response. Out of memory ends the
 * process (wk.h), so a code of MDAE_E_NOMEM from the engine or protocol
 * goes to wk_oom() and the handlers never build partial answers.
 */
#include "wk.h"

#include <assert.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ap.h"
#include "fx.h"
#include "mc.h"
#include "mo.h"
#include "rpc_json.h"
#include "rpc_lsp.h"
#include "rpc_message.h"
#include "srv_methods.h"

static void check(int rc)
{
    if (rc == MDAE_E_NOMEM)
        wk_oom();
}

void wk_state_init(wk_state *w, const srv_worker_opts *o)
{
    memset(w, 0, sizeof *w);
    w->opts = *o;
    w->model_rc = MDAE_E_STATE;
    mdae_diags_init(&w->model_diags);
    mdae_diags_init(&w->analysis_diags);
    for (unsigned k = 0; k < WK_KEEP_VERSIONS; k++)
        w->kept[k].version = -1;
}

/* What the request's reply need not wait for, freed after it
 * (wk_after_reply); one of each kind at a time (one still there is freed
 * now). */
static void late_report(wk_state *w, sa_report *rep, cdg_report *crep)
{
    sa_report_free(w->late_rep);
    cdg_report_free(w->late_crep);
    w->late_rep = rep;
    w->late_crep = crep;
}

static void late_keys(wk_state *w, cdg_report_keys *k)
{
    cdg_report_keys_free(w->late_keys);
    w->late_keys = k;
}

static void late_tree(wk_state *w, cJSON *tree)
{
    cJSON_Delete(w->late_tree);
    w->late_tree = tree;
}

static void late_digest(wk_state *w, rpc_digest *d)
{
    rpc_digest_free(w->late_digest);
    w->late_digest = d;
}

void wk_after_reply(wk_state *w)
{
    late_report(w, NULL, NULL);
    late_keys(w, NULL);
    late_tree(w, NULL);
    late_digest(w, NULL);
    cJSON_Delete(w->late_approx);
    ap_report_free(w->late_approx_rep);
    w->late_approx = NULL;
    w->late_approx_rep = NULL;
    if (w->trim_due)
        inc_session_trim(w->inc_sess);
    w->trim_due = false;
    mel_model_free(w->late_since);
    w->late_since = NULL;
}

/* Free model m (owned by w until now; NULL ok), unless it is the model of
 * the session's last analysis: then it is kept for the next one
 * (wk_state.inc_since). */
static void model_release(wk_state *w, mel_model *m)
{
    if (m == NULL || m != w->inc_model) {
        mel_model_free(m);
        return;
    }
    MDAE_ASSERT(w->inc_since == NULL); /* m was held elsewhere */
    w->inc_since = m;
}

/* ---- The model and its analysis --------------------------------------------------- */

static cJSON *diags_json(const mdae_diags *d)
{
    cJSON *arr = NULL;
    check(rpc_json_diags(d, &arr));
    return arr;
}

/* "FILE:LINE:COL: error: message" lines, what the CLI prints. */
static cJSON *diags_messages(const wk_state *w, const mdae_diags *d)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < d->count; i++) {
        char *s = mdae_diag_format(&d->items[i], w->text_name);
        cJSON_AddItemToArray(arr, cJSON_CreateString(s ? s : ""));
        mdae_free(s);
    }
    return arr;
}

cJSON *wk_diags_details(const wk_state *w, const mdae_diags *diags)
{
    cJSON *d = cJSON_CreateObject();
    if (d == NULL || !cJSON_AddItemToObject(d, "diagnostics", diags_json(diags)) ||
        !cJSON_AddItemToObject(d, "messages", diags_messages(w, diags)))
        wk_oom();
    return d;
}

static cJSON *model_error_details(const wk_state *w) { return wk_diags_details(w, &w->model_diags); }

/* The analysis dropped; its JSON, if built, kept as prev_report for the
 * next one to take from. */
static void forget_analysis(wk_state *w)
{
    if (w->cached_report != NULL) {
        cJSON_Delete(w->prev_report);
        w->prev_report = w->cached_report;
        w->cached_report = NULL;
        w->prev_serial = w->cached_serial;
        w->cached_serial = 0;
    }
    wk_approx_forget(w); /* wk_approx.c: this analysis's */
    for (int k = 0; k < 2; k++) { /* wk_rimis.c: likewise */
        cJSON_Delete(w->cached_rimis[k]);
        w->cached_rimis[k] = NULL;
    }
    inc_result_free(w->inc_res); /* result and graph were borrowed from it */
    w->inc_res = NULL;
    w->graph = NULL;
    w->result = NULL;
}

static void unload(wk_state *w)
{
    forget_analysis(w);
    model_release(w, w->model);
    w->model = NULL;
    mdae_diags_close(&w->model_diags);
    mdae_diags_init(&w->model_diags);
    mdae_free(w->text);
    w->text = NULL;
    mdae_free(w->text_name);
    w->text_name = NULL;
    mel_outline_free(w->outline);
    w->outline = NULL;
    w->outline_rc = MDAE_OK;
    w->model_rc = MDAE_E_STATE;
    w->analysis_rc = MDAE_OK;
    mdae_diags_close(&w->analysis_diags);
}

void wk_state_close(wk_state *w)
{
    wk_good_free(w, &w->good);
    unload(w);
    wk_after_reply(w);
    w->inc_model = NULL; /* nothing analyses any more */
    mel_model_free(w->inc_since);
    w->inc_since = NULL;
    cJSON_Delete(w->prev_report);
    w->prev_report = NULL;
    rpc_taken_free(&w->taken);
    cdg_report_keys_free(w->keys); /* before sa_end: it holds BDDs */
    w->keys = NULL;
    mdae_free(w->body_same);
    w->body_same = NULL;
    inc_session_free(w->inc_sess); /* before sa_end: its parts hold BDDs */
    w->inc_sess = NULL;
    for (unsigned k = 0; k < WK_KEEP_VERSIONS; k++) {
        rpc_digest_free(w->kept[k].digest);
        w->kept[k].digest = NULL;
    }
    mdae_diags_close(&w->model_diags);
}

/* ---- The last version that analysed (wk.h, wk_good) ----------------------------- */

void wk_good_free(wk_state *w, wk_good *g)
{
    cJSON_Delete(g->cached_report);
    cJSON_Delete(g->prev_report);
    inc_result_free(g->inc_res); /* result and graph were borrowed from it */
    mel_outline_free(g->outline);
    model_release(w, g->model);
    mdae_free(g->text);
    memset(g, 0, sizeof *g);
}

/* The loaded version, if it analysed, moved out of w into *g (the rest of
 * w is unloaded as usual). */
static void take_good(wk_state *w, wk_good *g)
{
    memset(g, 0, sizeof *g);
    if (w->model == NULL || w->model_rc < 0 || w->result == NULL)
        return; /* a graph not made yet is made when asked (wk_lsp.c, with_good) */
    *g = (wk_good){.text = w->text, .text_len = w->text_len, .modelica = w->modelica,
                   .model_rc = MDAE_OK, .model = w->model, .outline = w->outline,
                   .outline_rc = w->outline_rc, .inc_res = w->inc_res, .result = w->result,
                   .graph = w->graph, .load = w->loads};
    w->text = NULL;
    w->model = NULL;
    w->outline = NULL;
    w->inc_res = NULL;
    w->result = NULL;
    w->graph = NULL;
}

/* After a load: a model that fails keeps the last good version (g if it
 * is one, else the one kept before); one that loads releases both. */
static void settle_good(wk_state *w, wk_good *g)
{
    if (w->model_rc < 0) {
        if (g->model != NULL) {
            wk_good_free(w, &w->good);
            w->good = *g;
        }
        return;
    }
    wk_good_free(w, g);
    wk_good_free(w, &w->good);
}

/* params.failed {rc, limit, value, message}: the router saw a worker killed
 * at a limit of the server analysing this very text (its memory cap, the
 * time backstop; srv_queue.limited), so the analysis is not tried again:
 * it is the loaded text's kept failure (analysis_rc), a diagnostic naming
 * the limit, located at the start (the worker died with what it knew). */
static void seed_failure(wk_state *w, const cJSON *params)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(params, "failed");
    const cJSON *rc = cJSON_GetObjectItemCaseSensitive(f, "rc");
    const cJSON *lim = cJSON_GetObjectItemCaseSensitive(f, "limit");
    const cJSON *val = cJSON_GetObjectItemCaseSensitive(f, "value");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(f, "message");
    if (!cJSON_IsNumber(rc) || rc->valueint >= 0 || rc->valueint == MDAE_E_NOMEM ||
        rc->valueint == MDAE_E_CANCELED || !cJSON_IsNumber(lim) ||
        mdae_limit_get(lim->valueint) == NULL || !cJSON_IsNumber(val) || !cJSON_IsString(msg))
        return;
    mdae_diags_close(&w->analysis_diags); /* empty and usable again */
    mdae_range none = {{0, 0, 0}, {0, 0, 0}};
    mdae_diag d = {MDAE_SEV_ERROR, none, msg->valuestring, lim->valueint, val->valuedouble};
    check(mdae_diags_add_copy(&w->analysis_diags, &d));
    w->analysis_rc = rc->valueint;
    w->analysis_method = w->method;
}

/* Do m's equation i and since's have the same sides? Shared nodes, or,
 * when the front-end shared some equation's sides (so judged the
 * declarations the same: engine/mel.h, mel_options.since), equal trees
 * (fx_equal): an edited statement's instances that lower to what they were
 * (the brake's edited loop at N = 10,000: 10,000 bodies not printed again). */
static bool sides_same(const mel_model *m, const mel_model *since, uint32_t i, bool decls_same)
{
    const mel_equation *a = &m->equations[i], *b = &since->equations[i];
    if (a->lhs == NULL || b->lhs == NULL || a->rhs == NULL || b->rhs == NULL)
        return false;
    if (a->lhs == b->lhs && a->rhs == b->rhs)
        return true;
    return decls_same && fx_equal(a->lhs, b->lhs) && fx_equal(a->rhs, b->rhs);
}

/* Which of m's equations have the body they had in since, the model of
 * the tree of serial tree (0: none), into w->body_same (issue 40 item 5):
 * those whose sides are the same (sides_same), when every mode variable is
 * defined alike (a body prints a mode variable's definition) and both are
 * MEL. A body is a function of its equation's sides and of the
 * declarations (the names it prints, the incidences' orders it is bounded
 * by, which the front-end reads from the sides and the declarations:
 * engine/fx_body.h). */
static void bodies_same(wk_state *w, const mel_model *m, const mel_model *since, uint64_t tree)
{
    mdae_free(w->body_same);
    w->body_same = NULL;
    w->n_body_same = 0;
    w->body_tree = 0;
    if (m == NULL || since == NULL || tree == 0 || m->modelica || since->modelica ||
        m->n_modes != since->n_modes || m->n_equations != since->n_equations)
        return;
    for (uint32_t k = 0; k < m->n_modes; k++)
        if (!fx_equal(m->modes[k].def, since->modes[k].def))
            return;
    bool *same = mdae_malloc((size_t)m->n_equations + 1);
    if (same == NULL)
        return; /* the bodies are made again */
    bool decls_same = w->model_shared > 0; /* mel_model_sides_shared(m, since), load */
    for (uint32_t i = 0; i < m->n_equations; i++)
        same[i] = sides_same(m, since, i, decls_same);
    w->body_same = same;
    w->n_body_same = m->n_equations;
    w->body_tree = tree;
}

/* Parse (and check) params.text; sets model, model_rc, model_diags. Returns
 * MDAE_OK or the model's error; MDAE_E_INVAL for bad params. With
 * `recover` or params.recover, syntax errors leave out their statements and
 * the rest loads (engine/mel.h, "Recovery"): MDAE_OK then, the errors in
 * model_diags and the left-out list in the model. */
static int load(wk_state *w, const cJSON *params, bool recover)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(params, "text");
    const cJSON *defs = cJSON_GetObjectItemCaseSensitive(params, "defines");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
    if (!cJSON_IsString(t))
        return MDAE_E_INVAL;
    wk_good was;
    bool prev_mel = !w->modelica;
    take_good(w, &was);
    /* The previous version's model, for the front-end to share what the
     * edit left alone (mel_options.since, issue 40 item 3): the one `was`
     * keeps, else the loaded one (held until the parse), else the last good
     * version's; MEL only. */
    mel_model *prev_held = was.model == NULL ? w->model : NULL;
    const mel_model *prev = was.model != NULL ? was.model : prev_held;
    /* the tree of prev, the loaded model (none for the last good one's) */
    uint64_t prev_tree = w->cached_serial;
    if (prev == NULL) {
        prev = w->good.model;
        prev_mel = w->good.model != NULL && !w->good.modelica;
        prev_tree = 0;
    }
    w->model = NULL; /* prev_held: not freed by unload */
    unload(w);
    w->loads++;
    w->text_len = strlen(t->valuestring);
    w->text = mdae_strndup(t->valuestring, w->text_len);
    w->text_name = mdae_strdup(cJSON_IsString(name) ? name->valuestring : "<input>");
    if (w->text == NULL || w->text_name == NULL)
        wk_oom(); /* else the parse would see no text and call it a bad model */
    mel_define defines[64];
    size_t nd = 0;
    if (cJSON_IsObject(defs))
        for (const cJSON *d = defs->child; d != NULL && nd < 64; d = d->next)
            if (cJSON_IsNumber(d))
                defines[nd++] = (mel_define){d->string, (long long)d->valuedouble};
    mel_options mo = {0};
    mo.defines = defines;
    mo.n_defines = nd;
    mo.recover = recover || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(params, "recover"));
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(params, "format");
    const cJSON *enc = cJSON_GetObjectItemCaseSensitive(params, "positionEncoding");
    w->enc = cJSON_IsString(enc) && strcmp(enc->valuestring, "utf-8") == 0 ? RPC_LSP_UTF8
                                                                           : RPC_LSP_UTF16;
    bool modelica = (cJSON_IsString(fmt) && strcmp(fmt->valuestring, "modelica") == 0) ||
                    mo_is_modelica(w->text, w->text_len, w->text_name);
    w->modelica = modelica;
    mo.since = prev_mel ? prev : NULL;
    int rc = modelica ? mo_model_parse(w->text, w->text_len, &mo, &w->model, &w->model_diags)
                      : mel_model_parse(w->text, w->text_len, &mo, &w->model, &w->model_diags);
    w->model_shared = mel_model_sides_shared(w->model, mo.since);
    bodies_same(w, rc == MDAE_OK ? w->model : NULL, mo.since, prev_tree);
    model_release(w, prev_held);
    if (rc == MDAE_OK)
        rc = sa_check(w->model, &w->model_diags);
    if (rc == MDAE_OK || rc == MDAE_E_MODEL) { /* as mdae check (issue 41 item 3) */
        int gc = mc_guard_fixpoint_warnings(w->model, &w->model_diags);
        rc = gc != MDAE_OK ? gc : rc;
    }
    check(rc);
    w->model_rc = rc;
    settle_good(w, &was);
    if (rc == MDAE_OK)
        seed_failure(w, params);
    return rc;
}

typedef struct progress_ctx {
    wk_state *w;
    bool stream;
    bool timed_out; /* stopped by the request's time budget (budget_ms) */
    bool sent;        /* a report went out already */
    uint64_t last_ms; /* when the last one went */
} progress_ctx;

/* The request's time budget, as the analysis keeps it (issue 36): the
 * router kills a worker past limits.request_timeout_ms, and the restarted
 * worker knew nothing of why, so each question analysed again until it
 * was killed again. The analysis stops itself before instead and the stop
 * is a kept failure naming the limit. The margin left to answer (half the
 * budget, at most 10 s) covers the longest stretch between two progress
 * reports: 1.1 s for the building at N = 400 under the sanitizers on a
 * loaded 2-core VM, where a quarter of a 4 s budget was not enough. The
 * router's kill stays the backstop. */
static uint64_t budget_ms(const wk_state *w)
{
    uint64_t t = w->opts.timeout_ms, margin = t / 2 < 10000 ? t / 2 : 10000;
    return t - margin;
}

static bool past_budget(const wk_state *w)
{
    return w->opts.timeout_ms != 0 && wk_now_ms() - w->current_start_ms >= budget_ms(w);
}

static int on_progress(void *vctx, const char *phase, size_t done, size_t total)
{
    progress_ctx *pc = vctx;
    if (pc->stream) {
        /* Throttled: the first report, then at most one every 50 ms,
         * whatever the phase. A model of many small components goes
         * through every phase once per component: the MSL's
         * PlanarLoops_analytic (882 components) sent 5,394 reports in
         * 0.3 s when each phase change was sent, and Firefox spent 17 s
         * redrawing the page's bar for them. A phase shown late is shown
         * at the next report (the engine reports within every phase). */
        uint64_t now = wk_now_ms();
        if (!pc->sent || now - pc->last_ms >= 50) {
            cJSON *p = cJSON_CreateObject();
            cJSON_AddNumberToObject(p, "id", (double)pc->w->current_wid);
            cJSON_AddStringToObject(p, "phase", phase ? phase : "");
            cJSON_AddNumberToObject(p, "done", (double)done);
            cJSON_AddNumberToObject(p, "total", (double)total);
            wk_send(pc->w, rpc_notification_new("analysis/progress", p));
            pc->sent = true;
            pc->last_ms = now;
        }
    }
    if (past_budget(pc->w)) {
        pc->timed_out = true;
        return 1;
    }
    return wk_cancelled(pc->w) ? 1 : 0;
}

/* ---- A failed analysis, kept (issue 36) --------------------------------------------------
 * An analysis of the loaded text that stopped at a limit (or on a model
 * error the encoding found) fails the same way every time: a hover used to
 * run it again, 6-11 s for nothing. So its code and diagnostics are kept
 * until the next load, and every question reads them. Not a cancelled one
 * (a newer request stopped it: it may finish next time), and not across
 * methods (session/analyze {method} may choose one that fits). */

static void keep_failure(wk_state *w, int rc, const mdae_diags *ad)
{
    if (rc == MDAE_E_CANCELED)
        return;
    mdae_diags_close(&w->analysis_diags);
    for (size_t i = 0; i < ad->count; i++)
        if (mdae_diags_add_copy(&w->analysis_diags, &ad->items[i]) == MDAE_E_NOMEM)
            wk_oom();
    w->analysis_rc = rc;
    w->analysis_method = w->method;
}

/* The kept failure for the current method: its diagnostics appended to ad,
 * its code returned; MDAE_OK when there is none. */
static int kept_failure(const wk_state *w, mdae_diags *ad)
{
    if (w->analysis_rc == MDAE_OK || w->analysis_method != w->method)
        return MDAE_OK;
    for (size_t i = 0; i < w->analysis_diags.count; i++)
        if (mdae_diags_add_copy(ad, &w->analysis_diags.items[i]) == MDAE_E_NOMEM)
            wk_oom();
    return w->analysis_rc;
}

const mdae_diag *wk_failure(const wk_state *w, int *rc)
{
    if (rc != NULL)
        *rc = w->analysis_rc;
    if (w->analysis_rc == MDAE_OK)
        return NULL;
    const mdae_diag *d = mdae_diags_find_limit(&w->analysis_diags);
    return d != NULL || w->analysis_diags.count == 0 ? d : &w->analysis_diags.items[0];
}

/* debug/analyses: how many analyses (and approximate analyses, issue 38)
 * this worker started (tests check that questions after a failure run
 * none, and that each version is approximated once). */
cJSON *wk_m_analyses(wk_state *w, const cJSON *id, const cJSON *params)
{
    (void)params;
    cJSON *r = cJSON_CreateObject();
    if (r == NULL || !cJSON_AddNumberToObject(r, "analyses", (double)w->analyses) ||
        !cJSON_AddNumberToObject(r, "approximations", (double)w->approximations) ||
        !cJSON_AddNumberToObject(r, "rimis", (double)w->rimis_builds))
        wk_oom();
    return rpc_response_result(id, r);
}

/* rc, or MDAE_E_TIMEOUT with a diagnostic naming the limit when the
 * request's time budget stopped the analysis (on_progress). */
static int timed_out(wk_state *w, const progress_ctx *pc, int rc, mdae_diags *ad)
{
    if (rc != MDAE_E_CANCELED || !pc->timed_out)
        return rc;
    mdae_range none = {{0, 0, 0}, {0, 0, 0}};
    check(mdae_diags_add_limit(ad, none, MDAE_LIMIT_REQUEST_TIME, (double)w->opts.timeout_ms,
                               "the analysis did not finish within the request's time "
                               "budget (stopped after %llu ms)",
                               (unsigned long long)(wk_now_ms() - w->current_start_ms)));
    return MDAE_E_TIMEOUT;
}

/* The loaded model's offsets unless known: the all-modes result without
 * its dependency graph (inc_analyze_offsets: the graph waits until a
 * question needs it, ensure_analysis). Errors found on the way go to *ad;
 * a failure is kept and given again. */
static int ensure_offsets(wk_state *w, bool stream, mdae_diags *ad)
{
    if (w->result != NULL)
        return MDAE_OK;
    int kept = kept_failure(w, ad);
    if (kept < 0)
        return kept;
    forget_analysis(w);
    w->analyses++;
    progress_ctx pc = {.w = w, .stream = stream};
    sa_options so = {.progress = on_progress, .progress_ctx = &pc, .method = w->method};
    w->inc_fresh = true;
    int rc = MDAE_OK;
    if (w->inc_sess == NULL)
        rc = inc_session_new(&w->inc_sess);
    if (rc == MDAE_OK) {
        /* what the edit left alone compared by pointer (inc_since: the
         * session's last model, alive; ignored unless it is the model the
         * session kept its split from, with w->model's counts: engine/inc.h) */
        inc_session_since(w->inc_sess, w->inc_since);
        rc = inc_analyze_offsets(w->inc_sess, w->model, &so, &w->inc_res, ad);
    }
    if (rc == MDAE_OK) { /* the session kept w->model's split */
        w->inc_model = w->model;
        if (w->inc_since != NULL) { /* freed after the reply */
            mel_model_free(w->late_since); /* two analyses in one request */
            w->late_since = w->inc_since;
            w->inc_since = NULL;
        }
    }
    w->trim_due = true; /* wk_after_reply */
    if (rc == MDAE_OK) {
        inc_result_stats(w->inc_res, &w->inc_last);
        rc = inc_result_whole_offsets(w->inc_res, w->model, &w->result, ad);
    }
    check(rc);
    rc = timed_out(w, &pc, rc, ad);
    if (rc < 0) {
        forget_analysis(w);
        keep_failure(w, rc, ad);
    }
    return rc;
}

/* Analyse the loaded model unless done already: the all-modes result and
 * its conditional dependency graph, kept for mode and dot requests (the
 * graph of offsets that ensure_offsets found is made from them: the same
 * graph as in one go). Errors found on the way go to *ad; a failure is
 * kept and given again (not while answering from the last good version,
 * wk_lsp.c: the loaded text's kept failure is another's). */
static int ensure_analysis(wk_state *w, bool stream, mdae_diags *ad)
{
    if (w->result != NULL && w->graph != NULL)
        return MDAE_OK;
    int rc = ensure_offsets(w, stream, ad);
    if (rc < 0)
        return rc;
    progress_ctx pc = {.w = w, .stream = stream};
    sa_options so = {.progress = on_progress, .progress_ctx = &pc, .method = w->method};
    rc = inc_result_whole(w->inc_res, w->model, &so, &w->result, &w->graph, ad);
    check(rc);
    rc = timed_out(w, &pc, rc, ad);
    if (rc < 0 && rc != MDAE_E_CANCELED && w->stale == 0) {
        forget_analysis(w);
        keep_failure(w, rc, ad);
    }
    return rc;
}

int wk_analyse_whole(wk_state *w, sa_result **r, cdg_graph **g, mdae_diags *ad)
{
    assert(w->model != NULL);
    progress_ctx pc = {.w = w};
    sa_options so = {.progress = on_progress, .progress_ctx = &pc, .method = w->method,
                     .hint = w->result};
    *r = NULL;
    *g = NULL;
    int rc = sa_analyze(w->model, &so, r, ad);
    if (rc == MDAE_OK)
        rc = cdg_build(*r, &so, g, ad);
    check(rc);
    if (rc < 0) {
        cdg_graph_free(*g);
        sa_result_free(*r);
        *g = NULL;
        *r = NULL;
    }
    return timed_out(w, &pc, rc, ad);
}

/* The report's tree in w->cached_report (its serial next), taking what it
 * can from w->prev_report: with keys, the keys of the report that tree
 * was made of (NULL: none), the items whose keys did not change unseen;
 * the new report's keys kept in w->keys. MDAE_E_STATE: prev_report was not
 * what keys say (some of it taken: build again without it). */
static int report_tree(wk_state *w, const cdg_report_keys *keys)
{
    sa_report *rep = NULL;
    cdg_report *crep = NULL;
    cdg_report_keys *now = NULL;
    cdg_report_same same = {0};
    int rc = cdg_report_since(w->result, w->graph, keys, &rep, &crep, &now, &same);
    /* prev_report's nodes, if w->taken was said of it: its arrays are
     * built in place (rpc_json_analysis_in_place) */
    rpc_taken prev_taken = {0};
    bool in_place = w->prev_report != NULL && w->taken_for != 0 && w->taken_for == w->prev_serial;
    if (in_place) {
        prev_taken = w->taken;
        memset(&w->taken, 0, sizeof w->taken);
    }
    /* what is taken from prev_report, and the nodes of the tree, are said
     * for a later digest (stable_result) and the next tree */
    rpc_taken_free(&w->taken);
    w->taken_for = 0;
    /* the bodies the blocks taken keep (wk.h, body_same) */
    bool keep = w->prev_report != NULL && w->body_same != NULL && w->body_tree == w->prev_serial;
    if (rc == MDAE_OK)
        rc = rpc_json_analysis_in_place(rep, crep, w->prev_report, in_place ? &prev_taken : NULL,
                                        keep, keys ? &same : NULL, &w->cached_report, &w->taken);
    rpc_taken_free(&prev_taken);
    if (rc == MDAE_OK) {
        w->cached_serial = ++w->trees;
        w->taken_for = w->cached_serial;
        w->taken_from = w->prev_serial; /* 0: none (kept_tree finds none) */
        rc = rpc_json_add_bodies_taking(w->cached_report, crep, w->model,
                                        keep ? w->body_same : NULL, w->n_body_same, &w->taken);
    }
    if (rc == MDAE_OK)
        rc = rpc_json_add_left_out(w->cached_report, w->model);
    if (rc == MDAE_OK) {
        late_keys(w, w->keys);
        w->keys = now;
        w->keys_tree = w->cached_serial;
        now = NULL;
    } else if (w->cached_report != NULL) {
        cJSON_Delete(w->cached_report);
        w->cached_report = NULL;
        w->cached_serial = 0;
        w->taken_for = 0;
    }
    cdg_report_keys_free(now);
    cdg_report_same_free(&same);
    late_report(w, rep, crep);
    return rc;
}

int wk_report(wk_state *w, const cJSON **out)
{
    if (w->cached_report == NULL) {
        const cdg_report_keys *keys =
            w->prev_report != NULL && w->keys != NULL && w->keys_tree == w->prev_serial ? w->keys
                                                                                       : NULL;
        int rc = report_tree(w, keys);
        if (rc == MDAE_E_STATE && keys != NULL) {
            /* prev_report was not the tree of those keys: a tree of its own */
            cJSON_Delete(w->prev_report);
            w->prev_report = NULL;
            w->prev_serial = 0;
            rc = report_tree(w, NULL);
        }
        late_tree(w, w->prev_report); /* what is left of it */
        w->prev_report = NULL;
        w->prev_serial = 0;
        check(rc);
        if (rc < 0)
            return rc;
    }
    *out = w->cached_report;
    return MDAE_OK;
}

static cJSON *analysis_error(const wk_state *w, const cJSON *id, int rc, const mdae_diags *ad)
{
    if (rc == MDAE_E_MODEL || rc == MDAE_E_PARSE)
        return rpc_response_mdae(id, rc, NULL, model_error_details(w));
    cJSON *d = cJSON_CreateObject();
    if (ad != NULL && ad->count > 0)
        cJSON_AddItemToObject(d, "diagnostics", diags_json(ad));
    const mdae_diag *lim = mdae_diags_find_limit(ad);
    cJSON *lj = NULL;
    if (lim != NULL) { /* issue 36: which limit, its value, how to raise it, where */
        check(rpc_json_limit(lim, &lj));
        cJSON_AddItemToObject(d, "limit", lj);
    }
    if ((rc == MDAE_E_LIMIT || rc == MDAE_E_TIMEOUT) && lim != NULL)
        return rpc_response_mdae(id, rc, lim->message, d);
    if (rc == MDAE_E_BDD_LIMIT) {
        cJSON_AddNumberToObject(d, "node_limit", (double)w->opts.node_limit);
        return rpc_response_mdae(id, rc,
                                 "analysis exceeded the BDD node limit (raise bdd.node_limit)", d);
    }
    if (rc == MDAE_E_CANCELED)
        return rpc_response_mdae(id, rc, "request cancelled", d);
    return rpc_response_mdae(id, rc, NULL, d);
}

/* Loaded and analysed, or an error response in *err. */
bool wk_analysed(wk_state *w, const cJSON *id, bool stream, cJSON **err)
{
    if (w->model == NULL || w->model_rc < 0) {
        *err = w->model_rc == MDAE_E_STATE
                   ? rpc_response_mdae(id, MDAE_E_STATE, "no model loaded", NULL)
                   : analysis_error(w, id, w->model_rc, NULL);
        return false;
    }
    mdae_diags ad;
    mdae_diags_init(&ad);
    int rc = ensure_analysis(w, stream, &ad);
    if (rc < 0)
        *err = analysis_error(w, id, rc, &ad);
    mdae_diags_close(&ad);
    return rc == MDAE_OK;
}

/* ---- load ------------------------------------------------------------------------------ */

static cJSON *m_load(wk_state *w, const cJSON *id, const cJSON *params)
{
    int rc = load(w, params, false);
    if (rc == MDAE_E_INVAL)
        return rpc_response_error(id, RPC_INVALID_PARAMS, "\"text\" is required", NULL);
    if (rc < 0)
        return rpc_response_mdae(id, rc, NULL, model_error_details(w));
    cJSON *counts = NULL;
    check(rpc_json_counts(w->model, &counts));
    cJSON *r = cJSON_CreateObject();
    cJSON *sum = cJSON_AddObjectToObject(r, "summary");
    cJSON_AddItemToObject(sum, "counts", counts);
    cJSON_AddItemToObject(sum, "diagnostics", diags_json(&w->model_diags));
    check(rpc_json_add_left_out(sum, w->model));
    return rpc_response_result(id, r);
}

/* ---- analyze ------------------------------------------------------------------------------ */

/* d (live, built over the tree of serial `tree`) kept as version's
 * digest: true if taken (detached, owned by w), false if that version is
 * kept already (d is the caller's). */
static bool keep_version(wk_state *w, long version, rpc_digest *d, uint64_t tree)
{
    for (unsigned k = 0; k < WK_KEEP_VERSIONS; k++)
        if (w->kept[k].version == version)
            return false;
    struct wk_kept *slot = &w->kept[w->kept_next++ % WK_KEEP_VERSIONS];
    late_digest(w, slot->digest); /* its pools live on in the digests that share them */
    slot->digest = d;
    slot->version = version;
    slot->tree = tree;
    return true;
}

/* The kept digest of the tree of serial tree (> 0), or NULL. */
static const rpc_digest *kept_tree(const wk_state *w, uint64_t tree)
{
    for (unsigned k = 0; tree > 0 && k < WK_KEEP_VERSIONS; k++)
        if (w->kept[k].digest != NULL && w->kept[k].tree == tree)
            return w->kept[k].digest;
    return NULL;
}

static const rpc_digest *kept_version(const wk_state *w, long version)
{
    const rpc_digest *old = NULL;
    for (unsigned k = 0; k < WK_KEEP_VERSIONS; k++)
        if (w->kept[k].version == version)
            old = w->kept[k].digest;
    return old;
}

/* The parts of the result as notifications before it (issue 5 section 3),
 * each carrying the request's id: the engine builds them as a whole, so they
 * come after the progress, in report order. With since (diff), only what
 * the difference adds or changes (removals are in the result). Without
 * items (stream: "progress"), the diagnostics only. */
static void stream_parts(wk_state *w, const cJSON *json, bool diff, bool items)
{
    static const struct {
        const char *member, *method;
    } parts[] = {{"diagnostics", "analysis/diagnostic"},
                 {"blocks", "analysis/block"},
                 {"edges", "analysis/edge"}};
    const size_t n_parts = sizeof parts / sizeof parts[0];
    for (size_t k = 0; k < n_parts * (diff ? 2 : 1); k++) {
        size_t pk = k % n_parts;
        if (!items && pk > 0)
            continue;
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(json, parts[pk].member);
        if (diff)
            src = cJSON_GetObjectItemCaseSensitive(src, k < n_parts ? "added" : "changed");
        const cJSON *item;
        cJSON_ArrayForEach(item, src)
        {
            cJSON *p = cJSON_Duplicate(item, true);
            if (!cJSON_IsObject(p)) {
                cJSON_Delete(p);
                continue;
            }
            cJSON_DeleteItemFromObjectCaseSensitive(p, "id");
            if (strcmp(parts[pk].member, "blocks") == 0) { /* keep the block's own id */
                const cJSON *bid = cJSON_GetObjectItemCaseSensitive(item, "id");
                cJSON_AddNumberToObject(p, "block", bid ? bid->valuedouble : 0);
            }
            cJSON_AddNumberToObject(p, "id", (double)w->current_wid);
            wk_send(w, rpc_notification_new(parts[pk].method, p));
        }
    }
}

/* {method: "auto"|"implicit"|"enumeration"|"blocks"} (issues 10, 11): how the parts
 * analysed anew are analysed; the result does not depend on it. */
static bool read_method(wk_state *w, const cJSON *params)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(params, "method");
    w->method = SA_METHOD_AUTO;
    return m == NULL ||
           (cJSON_IsString(m) && sa_method_from_name(m->valuestring, &w->method) == MDAE_OK);
}

/* "parts": how each component was analysed (issue 10), over how many
 * blocks of its union graph the implicit primal ran (issue 11; 0: as one),
 * and how those blocks were solved (sa_method_info). */
static bool add_parts(const wk_state *w, cJSON *ru)
{
    cJSON *arr = cJSON_AddArrayToObject(ru, "parts");
    if (arr == NULL)
        return false;
    for (size_t k = 0; w->inc_res != NULL && k < inc_result_n_parts(w->inc_res); k++) {
        inc_part_info pi;
        if (inc_result_part(w->inc_res, k, &pi) < 0)
            continue;
        cJSON *o = cJSON_CreateObject();
        if (o == NULL || !cJSON_AddItemToArray(arr, o) ||
            !cJSON_AddNumberToObject(o, "equations", pi.equations) ||
            !cJSON_AddStringToObject(o, "method", sa_method_name(pi.method.method)) ||
            !cJSON_AddNumberToObject(o, "modes", pi.method.modes) ||
            !cJSON_AddBoolToObject(o, "fellBack", pi.method.fell_back) ||
            !cJSON_AddNumberToObject(o, "blocks", pi.method.blocks) ||
            !cJSON_AddNumberToObject(o, "blocksFellBack", pi.method.blocks_fell_back) ||
            !cJSON_AddNumberToObject(o, "blocksTight", pi.method.blocks_tight) ||
            !cJSON_AddNumberToObject(o, "blocksLearned", pi.method.blocks_learned) ||
            !cJSON_AddBoolToObject(o, "seededTight", pi.method.seeded_tight) ||
            !cJSON_AddNumberToObject(o, "seededRounds", pi.method.seeded_rounds) ||
            !cJSON_AddNumberToObject(o, "seededZero", pi.method.seeded_zero) ||
            !cJSON_AddNumberToObject(o, "seededSampled", pi.method.seeded_sampled) ||
            !cJSON_AddNumberToObject(o, "seededRepaired", pi.method.seeded_repaired) ||
            !cJSON_AddNumberToObject(o, "blocksReused", pi.method.blocks_reused) ||
            !cJSON_AddNumberToObject(o, "encodedFromHint", pi.method.encoded_from_hint) ||
            !cJSON_AddNumberToObject(o, "sccs", (double)pi.sccs) ||
            !cJSON_AddNumberToObject(o, "sccsReused", (double)pi.sccs_reused) ||
            !cJSON_AddNumberToObject(o, "maxByCofactors", pi.method.max_by_cofactors) ||
            !cJSON_AddBoolToObject(o, "reordered", pi.method.reordered) ||
            !cJSON_AddBoolToObject(o, "reused", pi.reused))
            return false;
    }
    return true;
}

/* "stats" of the response envelope: what this request's analysis reused
 * and, when the client asked for them (session/analyze {reuse}: params
 * "parts"), how its parts were analysed: one object per component, which
 * the router would otherwise parse for nothing (issue 37: 320 MB of tree
 * for 200,000 independent equations). */
static cJSON *reuse_stats(const wk_state *w, bool with_parts)
{
    cJSON *st = cJSON_CreateObject();
    cJSON *ru = cJSON_CreateObject();
    if (st == NULL || ru == NULL || !cJSON_AddBoolToObject(st, "analysed", w->inc_fresh) ||
        !cJSON_AddNumberToObject(ru, "components", (double)w->inc_last.components) ||
        !cJSON_AddNumberToObject(ru, "reused", (double)w->inc_last.reused) ||
        !cJSON_AddNumberToObject(ru, "recomputed", (double)w->inc_last.recomputed) ||
        !cJSON_AddNumberToObject(ru, "seeded", (double)w->inc_last.seeded) ||
        !cJSON_AddNumberToObject(ru, "searched", (double)w->inc_last.searched) ||
        !cJSON_AddNumberToObject(ru, "implicit", (double)w->inc_last.implicit) ||
        !cJSON_AddNumberToObject(ru, "enumerated", (double)w->inc_last.enumerated) ||
        !cJSON_AddNumberToObject(ru, "fellBack", (double)w->inc_last.fell_back) ||
        !cJSON_AddNumberToObject(ru, "sharedEquations", (double)w->model_shared) ||
        (with_parts && !add_parts(w, ru)) || !cJSON_AddItemToObject(st, "reuse", ru))
        wk_oom();
    return st;
}

/* The report with stable block ids, or its difference from version since
 * (issue 40 item 5: from that version's digest, copying only what the
 * difference lists; no relabelled copy of the report is made for it). The
 * report's digest is kept for a later since; it takes the hashes of the
 * items wk_report took from the tree before from that tree's kept digest.
 * rep: w->cached_report. *out owned. NULL, or the error response. */
static cJSON *stable_result(wk_state *w, const cJSON *id, const cJSON *rep, const cJSON *since,
                            const cJSON *version, cJSON **out)
{
    rpc_digest *d = NULL;
    uint32_t *ids = NULL;
    size_t n = cdg_graph_n_blocks(w->graph);
    assert(rep == w->cached_report);
    const rpc_digest *prev = w->taken_for != 0 && w->taken_for == w->cached_serial
                                 ? kept_tree(w, w->taken_from)
                                 : NULL;
    int rc = inc_result_whole_ids(w->inc_res, w->graph, &ids);
    if (rc == MDAE_OK)
        rc = rpc_digest_build_reusing(rep, ids, n, prev, prev != NULL ? &w->taken : NULL, &d);
    if (rc == MDAE_OK && !cJSON_IsNumber(since))
        rc = rpc_block_ids_relabel(rep, ids, n, out);
    mdae_free(ids);
    check(rc);
    if (rc < 0) {
        rpc_digest_free(d);
        return analysis_error(w, id, rc, NULL);
    }
    long v = cJSON_IsNumber(version) ? (long)version->valuedouble : -1;
    bool kept = keep_version(w, v, d, w->cached_serial);
    cJSON *err = NULL;
    const rpc_digest *old = cJSON_IsNumber(since) ? kept_version(w, (long)since->valuedouble) : NULL;
    if (!cJSON_IsNumber(since)) {
        /* *out made above */
    } else if (old == NULL) {
        err = rpc_response_mdae(id, MDAE_E_STATE,
                                "that version's result is not kept (only the last few "
                                "analysed with since or stableIds are)",
                                NULL);
    } else {
        rc = rpc_digest_diff(old, d, (long)since->valuedouble, v, out);
        check(rc);
        if (rc < 0 && (*out = cJSON_CreateNull()) == NULL) /* as before: a null result */
            wk_oom();
    }
    if (kept)
        rpc_digest_detach(d);
    else
        rpc_digest_free(d);
    return err;
}

/* session/analyze {families:true}: the kept report's members but "blocks"
 * and "edges" (as references: no copy), with rpc_json_families's members
 * for the analysed graph. MDAE_OK with *out (owned), or an error code. */
static int families_result(const wk_state *w, const cJSON *rep, cJSON **out)
{
    cdg_families *f = NULL;
    cdg_family_report *frep = NULL;
    cJSON *json = cJSON_CreateObject();
    int rc = json == NULL ? MDAE_E_NOMEM : cdg_families_build(w->graph, &f);
    if (rc == MDAE_OK)
        rc = cdg_families_report(f, &frep);
    for (const cJSON *m = rep->child; rc == MDAE_OK && m != NULL; m = m->next)
        if (strcmp(m->string, "blocks") != 0 && strcmp(m->string, "edges") != 0 &&
            !cJSON_AddItemReferenceToObject(json, m->string, (cJSON *)m))
            rc = MDAE_E_NOMEM;
    if (rc == MDAE_OK)
        rc = rpc_json_families(frep, json);
    cdg_family_report_free(frep);
    cdg_families_free(f);
    if (rc < 0) {
        cJSON_Delete(json);
        return rc;
    }
    *out = json;
    return MDAE_OK;
}

/* session/analyze {families:true}: m_analyze's whole result with the
 * block families in place of the blocks and edges. */
static cJSON *m_families(wk_state *w, const cJSON *id, const cJSON *params)
{
    cJSON *err = NULL, *json = NULL;
    const cJSON *rep = NULL;
    if (!read_method(w, params))
        return rpc_response_mdae(id, MDAE_E_INVAL,
                                 "method must be \"auto\", \"implicit\" or \"enumeration\"", NULL);
    w->inc_fresh = false;
    if (!wk_analysed(w, id, false, &err))
        return err;
    int rc = wk_report(w, &rep);
    if (rc == MDAE_OK)
        rc = families_result(w, rep, &json);
    check(rc);
    if (rc < 0)
        return analysis_error(w, id, rc, NULL);
    cJSON *resp = rpc_response_result(id, json);
    bool parts = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(params, "parts"));
    if (resp == NULL || !cJSON_AddItemToObject(resp, "stats", reuse_stats(w, parts)))
        wk_oom();
    return resp;
}

/* ---- analyze, written as it is produced (issue 40 item 2) ------------------------------- */

/* The serialized response gathered before it is sent: the frame's
 * Content-Length comes first, so the text is spooled. In memory, in the
 * writer's chunks of text (RPC_JW_CHUNK bytes each), not in a file: the
 * worker's memory cap counts it like everything else, a full disk or a
 * temporary file left behind by a killed worker cannot happen, and the
 * text is a ninth of the tree it replaces (the brake at N = 10,000: 56 MB
 * of text, 500 MB of tree). */
typedef struct spool_chunk {
    struct spool_chunk *next;
    size_t len;
    char text[];
} spool_chunk;

typedef struct spool {
    spool_chunk *head, *tail;
    size_t len;
} spool;

static int spool_put(void *arg, const char *p, size_t n)
{
    spool *s = arg;
    spool_chunk *c = mdae_malloc(sizeof *c + n); /* the cap ends the process */
    c->next = NULL;
    c->len = n;
    memcpy(c->text, p, n);
    if (s->tail != NULL)
        s->tail->next = c;
    else
        s->head = c;
    s->tail = c;
    s->len += n;
    return MDAE_OK;
}

static void spool_free(spool *s)
{
    while (s->head != NULL) {
        spool_chunk *n = s->head->next;
        mdae_free(s->head);
        s->head = n;
    }
    s->tail = NULL;
    s->len = 0;
}

/* The analysis object, members and all, into w's open object as "result":
 * the offsets' report written and freed before the graph's is built, as
 * `mdae analyze --json` does (clients/cli_analyze.c). */
static int write_analysis(wk_state *w, rpc_jw *jw)
{
    sa_report *rep = NULL;
    cdg_report *crep = NULL;
    int rc = sa_result_report(w->result, &rep);
    if (rc == MDAE_OK && (rc = rpc_jw_open_object(jw, "result")) == MDAE_OK)
        rc = rpc_json_report_write(rep, jw);
    sa_report_free(rep);
    if (rc == MDAE_OK)
        rc = cdg_graph_report(w->graph, &crep);
    if (rc == MDAE_OK)
        rc = rpc_json_cdg_write(crep, w->model, jw);
    cdg_report_free(crep);
    cJSON *left = rc == MDAE_OK ? cJSON_CreateObject() : NULL;
    if (rc == MDAE_OK)
        rc = left == NULL ? MDAE_E_NOMEM : rpc_json_add_left_out(left, w->model);
    if (rc == MDAE_OK)
        rc = rpc_jw_members(jw, left);
    cJSON_Delete(left);
    return rc == MDAE_OK ? rpc_jw_close_one(jw) : rc;
}

/* session/analyze's response, the same bytes as m_analyze's tree gives
 * ({"jsonrpc","id","result","stats"}), written as it is produced into a
 * spool and sent once whole: a failure part-way sends the error response
 * instead (never a cut result). NULL when sent (w->replied), else the
 * error response. The report's tree is not built, so not kept either:
 * hover and the code lenses build it if they are asked (wk_report). */
static cJSON *analyze_streamed(wk_state *w, const cJSON *id, bool parts)
{
    cJSON_Delete(w->prev_report); /* only a donor for a tree: not built here */
    w->prev_report = NULL;
    w->prev_serial = 0;
    spool s = {NULL, NULL, 0};
    rpc_jw jw;
    rpc_jw_init(&jw, spool_put, &s);
    cJSON *env = rpc_response_result(id, NULL), *stats = reuse_stats(w, parts);
    if (env == NULL)
        wk_oom();
    int rc = rpc_jw_open_object(&jw, NULL);
    for (const cJSON *m = env->child; m != NULL && rc == MDAE_OK; m = m->next)
        rc = strcmp(m->string, "result") == 0 ? write_analysis(w, &jw)
                                              : rpc_jw_value(&jw, m->string, m);
    if (rc == MDAE_OK)
        rc = rpc_jw_value(&jw, "stats", stats);
    if (rc == MDAE_OK)
        rc = rpc_jw_close_one(&jw);
    if (rc == MDAE_OK)
        rc = rpc_jw_flush(&jw);
    rpc_jw_close(&jw);
    cJSON_Delete(env);
    cJSON_Delete(stats);
    char head[RPC_FRAME_HEAD_MAX];
    size_t head_len = 0;
    const char *tail = "";
    if (rc == MDAE_OK)
        rc = rpc_frame_wrap(RPC_FRAMING_LSP, s.len, head, &head_len, &tail);
    check(rc);
    if (rc < 0) {
        spool_free(&s);
        return analysis_error(w, id, rc, NULL);
    }
    wk_write(head, head_len);
    for (const spool_chunk *c = s.head; c != NULL; c = c->next)
        wk_write(c->text, c->len);
    wk_write(tail, strlen(tail));
    spool_free(&s);
    w->replied = true;
    return NULL;
}

static cJSON *m_analyze(wk_state *w, const cJSON *id, const cJSON *params)
{
    const cJSON *stream = cJSON_GetObjectItemCaseSensitive(params, "stream");
    const cJSON *since = cJSON_GetObjectItemCaseSensitive(params, "since");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(params, "version");
    bool stable = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(params, "stableIds"));
    cJSON *err = NULL, *json = NULL; /* json: this request's own result; NULL: the report */
    const cJSON *rep = NULL;
    if (!read_method(w, params))
        return rpc_response_mdae(id, MDAE_E_INVAL,
                                 "method must be \"auto\", \"implicit\" or \"enumeration\"", NULL);
    w->inc_fresh = false;
    if (!wk_analysed(w, id, cJSON_IsTrue(stream), &err))
        return err;
    bool parts = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(params, "parts"));
    /* The result alone, and no tree kept to send it from: written as it is
     * produced (the notifications, since and stableIds read the tree). */
    if (!cJSON_IsTrue(stream) && !cJSON_IsNumber(since) && !stable &&
        !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(params, "modechanges")) &&
        w->cached_report == NULL)
        return analyze_streamed(w, id, parts);
    int rc = wk_report(w, &rep);
    if (rc < 0)
        return analysis_error(w, id, rc, NULL);
    if ((cJSON_IsNumber(since) || stable) &&
        (err = stable_result(w, id, rep, since, version, &json)) != NULL)
        return err;

    if (cJSON_IsTrue(stream))
        stream_parts(w, json ? json : rep, cJSON_IsNumber(since),
                     !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(params, "streamItems")));
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(params, "modechanges"))) {
        cJSON *mc = NULL;
        rc = wk_modechanges_summary(w, cJSON_IsTrue(stream), &mc);
        if (rc < 0) {
            cJSON_Delete(json);
            return analysis_error(w, id, rc, NULL);
        }
        if (json == NULL && (json = cJSON_Duplicate(rep, true)) == NULL)
            wk_oom();
        if (!cJSON_AddItemToObject(json, "modechanges", mc))
            wk_oom();
    }
    /* The kept report goes out without a copy: an object whose members are
     * the report's (a reference: deleting it leaves them). */
    if (json == NULL && (json = cJSON_CreateObjectReference(rep->child)) == NULL)
        wk_oom();
    cJSON *resp = rpc_response_result(id, json);
    if (resp == NULL || !cJSON_AddItemToObject(resp, "stats", reuse_stats(w, parts)))
        wk_oom();
    return resp;
}

/* ---- mode, session/dot ----------------------------------------------------------------- */

/* The per-mode projection (`mdae mode --json`), from the kept all-modes
 * result, never a new single-mode analysis (issue 4). */
static cJSON *m_mode(wk_state *w, const cJSON *id, const cJSON *params)
{
    const cJSON *mode_obj = cJSON_GetObjectItemCaseSensitive(params, "mode");
    cJSON *err = NULL, *json = NULL;
    if (!wk_analysed(w, id, false, &err))
        return err;
    char why[200];
    bool *mode = mdae_calloc(w->model->n_modes + 1, sizeof *mode);
    int rc = rpc_json_mode_read(mode_obj, w->model, mode, why, sizeof why);
    if (rc == MDAE_E_INVAL) {
        mdae_free(mode);
        char msg[260];
        snprintf(msg, sizeof msg, "invalid \"mode\": %s", why);
        return rpc_response_error(id, RPC_INVALID_PARAMS, msg, NULL);
    }
    sa_mode_view sv;
    cdg_mode_view cv;
    memset(&sv, 0, sizeof sv);
    memset(&cv, 0, sizeof cv);
    if (rc == MDAE_OK)
        rc = sa_result_mode(w->result, mode, &sv);
    if (rc == MDAE_OK)
        rc = cdg_graph_mode(w->graph, mode, &cv);
    if (rc == MDAE_OK)
        rc = rpc_json_mode(w->model, mode, &sv, w->graph, &cv, &json);
    cdg_mode_view_close(&cv);
    sa_mode_view_close(&sv);
    mdae_free(mode);
    check(rc);
    if (rc < 0)
        return analysis_error(w, id, rc, NULL);
    return rpc_response_result(id, json);
}

bool wk_model(wk_state *w, const cJSON *id, const mel_model **model, cJSON **err)
{
    if (w->model == NULL || w->model_rc < 0) {
        *err = w->model_rc == MDAE_E_STATE
                   ? rpc_response_mdae(id, MDAE_E_STATE, "no model loaded", NULL)
                   : analysis_error(w, id, w->model_rc, NULL);
        return false;
    }
    *model = w->model;
    return true;
}

bool wk_graph(wk_state *w, const cJSON *id, cdg_graph **graph, cJSON **err)
{
    if (!wk_analysed(w, id, false, err))
        return false;
    *graph = w->graph;
    return true;
}

/* session/dot: the CDG in Graphviz DOT, as a JSON string. */
cJSON *wk_m_dot(wk_state *w, const cJSON *id, const cJSON *params)
{
    cJSON *err = NULL;
    if (!wk_analysed(w, id, false, &err))
        return err;
    char *dot = NULL;
    int rc = cdg_graph_dot(w->graph, &dot);
    check(rc);
    if (rc < 0)
        return analysis_error(w, id, rc, NULL);
    cJSON *s = cJSON_CreateString(dot);
    mdae_free(dot);
    return rpc_response_result(id, s);
}

/* session/structure {session, incidences?}: the loaded model's flat
 * structure (rpc_json_structure: equations with their source ranges,
 * variables and mode variables with their declarations' positions), so
 * that a client can locate what the analysis names (the web page selects a
 * diagnostic's equation in its editor, issue 14). The incidences, most of
 * the text (0.5 MB for the brake at N = 100), only with incidences: true.
 * Needs a model, not an analysis. */
cJSON *wk_m_structure(wk_state *w, const cJSON *id, const cJSON *params)
{
    const cJSON *inc = cJSON_IsObject(params) ? cJSON_GetObjectItemCaseSensitive(params, "incidences")
                                              : NULL;
    if (inc != NULL && !cJSON_IsBool(inc))
        return rpc_response_error(id, RPC_INVALID_PARAMS, "\"incidences\" must be a boolean", NULL);
    if (w->model == NULL)
        return w->model_rc == MDAE_E_STATE || w->model_rc == MDAE_OK
                   ? rpc_response_mdae(id, MDAE_E_STATE, "no model loaded", NULL)
                   : analysis_error(w, id, w->model_rc, NULL);
    cJSON *json = NULL;
    int rc = rpc_json_structure(w->model, &json);
    check(rc);
    if (rc < 0)
        return analysis_error(w, id, rc, NULL);
    if (!cJSON_IsTrue(inc)) {
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(json, "equations"))
            cJSON_DeleteItemFromObjectCaseSensitive((cJSON *)e, "incidences");
    }
    return rpc_response_result(id, json);
}

/* ---- diagnose (LSP) ------------------------------------------------------------------------ */

void wk_lsp_diag(const wk_state *w, cJSON *arr, const mdae_range *r, int severity,
                 const char *msg)
{
    cJSON *d = NULL;
    check(rpc_lsp_diagnostic(w->text, w->text_len, r, severity, msg, w->enc, &d));
    cJSON_AddItemToArray(arr, d);
}

/* The singular-mode diagnostics of the analysis, located on the equations
 * (overdetermined) and variables (underdetermined). */
static void add_singular(const wk_state *w, cJSON *arr, const sa_report *rep)
{
    const mel_model *m = w->model;
    for (size_t k = 0; k < rep->n_diagnostics; k++) {
        const sa_diagnostic *dg = &rep->diagnostics[k];
        bool over = dg->kind == SA_DIAG_OVERDETERMINED;
        if (over ? dg->index >= m->n_equations : dg->index >= m->n_variables)
            continue;
        const mdae_range *where =
            over ? &m->equations[dg->index].where : &m->variables[dg->index].where;
        const char *nm = over ? m->equations[dg->index].name : m->variables[dg->index].name;
        /* "in every mode", or "when FORMULA": never "in the modes where
         * true" (issue 42) */
        const char *g = dg->modes.formula ? dg->modes.formula : "false";
        bool always = strcmp(g, "true") == 0;
        char *msg = mdae_asprintf("structurally singular: %s %s is %s %s%s",
                                  over ? "equation" : "variable", nm,
                                  over ? "overdetermined" : "underdetermined",
                                  always ? "in every mode" : "when ", always ? "" : g);
        wk_lsp_diag(w, arr, where, RPC_LSP_ERROR, msg ? msg : "structurally singular");
        mdae_free(msg);
    }
}

/* A failed analysis: its own diagnostics, located where it stopped (a
 * limit names itself there, issue 36); a warning at the start of the text
 * only when it said nothing. */
static void add_failure(const wk_state *w, cJSON *arr, int rc, const mdae_diags *ad)
{
    for (size_t i = 0; i < ad->count; i++) {
        const mdae_diag *d = &ad->items[i];
        wk_lsp_diag(w, arr, &d->where,
                    d->severity == MDAE_SEV_ERROR ? RPC_LSP_ERROR : RPC_LSP_WARNING,
                    d->message ? d->message : "");
    }
    if (ad->count == 0) {
        mdae_range none = {{0, 0, 0}, {0, 0, 0}};
        char *msg = mdae_asprintf("analysis failed: %s", mdae_strerror(rc));
        wk_lsp_diag(w, arr, &none, RPC_LSP_WARNING, msg ? msg : "analysis failed");
        mdae_free(msg);
    }
}

void wk_graph_diags(wk_state *w, cJSON *arr)
{
    if (w->model == NULL || w->model_rc < 0 || w->result == NULL || w->graph != NULL)
        return;
    mdae_diags ad;
    mdae_diags_init(&ad);
    int rc = ensure_analysis(w, false, &ad);
    if (rc < 0 && rc != MDAE_E_CANCELED)
        add_failure(w, arr, rc, &ad);
    mdae_diags_close(&ad);
}

static cJSON *m_diagnose(wk_state *w, const cJSON *id, const cJSON *params)
{
    int rc = load(w, params, true); /* the editor's text: half-typed most of the time */
    if (rc == MDAE_E_INVAL)
        return rpc_response_error(id, RPC_INVALID_PARAMS, "\"text\" is required", NULL);
    cJSON *arr = cJSON_CreateArray();
    bool left = false;        /* mode changes left for diagnose/modeChanges */
    bool approx_left = false; /* the approximate analysis's warnings: the same */
    /* the model's own first: its syntax errors (issue 36), then what the
     * analysis of the rest says */
    for (size_t i = 0; i < w->model_diags.count; i++) {
        const mdae_diag *d = &w->model_diags.items[i];
        int sev = d->severity == MDAE_SEV_ERROR     ? RPC_LSP_ERROR
                  : d->severity == MDAE_SEV_WARNING ? RPC_LSP_WARNING
                                                    : RPC_LSP_INFORMATION;
        wk_lsp_diag(w, arr, &d->where, sev, d->message ? d->message : "");
    }
    if (rc == MDAE_OK) {
        mdae_diags ad;
        mdae_diags_init(&ad);
        sa_report *rep = NULL;
        /* progress: analysis/progress for the editor's $/progress (issue 36) */
        bool progress = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(params, "progress"));
        int arc = ensure_offsets(w, progress, &ad);
        /* the report only for its singular-mode diagnostics: none when no
         * valid mode is singular (its sets of every item were a fifth of
         * an edit's diagnostics of the brake at N = 10,000) */
        if (arc == MDAE_OK && sa_result_singular(w->result))
            arc = sa_result_report(w->result, &rep);
        check(arc);
        if (arc == MDAE_OK) {
            if (rep != NULL)
                add_singular(w, arr, rep);
            /* issue 38: what single-mode tools do; with approx false, left
             * to diagnose/modeChanges (issue 40 item 5: the editor's first
             * publication does not wait for a second analysis) */
            if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(params, "approx")))
                wk_approx_diags(w, arr);
            else
                approx_left = true;
            const cJSON *mc = cJSON_GetObjectItemCaseSensitive(params, "modeChanges");
            if (!cJSON_IsFalse(mc))
                wk_modechange_diags(w, arr);
            else
                left = w->model->n_modes > 0;
        } else if (arc != MDAE_E_CANCELED) {
            add_failure(w, arr, arc, &ad);
        }
        sa_report_free(rep);
        mdae_diags_close(&ad);
    }
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "diagnostics", arr);
    if ((left && !cJSON_AddTrueToObject(r, "modeChangesLeft")) ||
        (approx_left && !cJSON_AddTrueToObject(r, "approxLeft")))
        wk_oom();
    return rpc_response_result(id, r);
}

/* ---- Debug methods (tests only) ------------------------------------------------------------- */

cJSON *wk_m_crash(wk_state *w, const cJSON *id, const cJSON *params)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(params, "signal");
    int sig = SIGKILL;
    if (cJSON_IsString(s) && strcmp(s->valuestring, "SIGSEGV") == 0)
        sig = SIGSEGV;
    else if (cJSON_IsString(s) && strcmp(s->valuestring, "SIGABRT") == 0)
        sig = SIGABRT;
    signal(sig, SIG_DFL);
    raise(sig);
    _exit(1);
}

cJSON *wk_m_alloc(wk_state *w, const cJSON *id, const cJSON *params)
{
    const cJSON *mb = cJSON_GetObjectItemCaseSensitive(params, "mb");
    if (!cJSON_IsNumber(mb) || mb->valuedouble < 0)
        return rpc_response_error(id, RPC_INVALID_PARAMS, "\"mb\" is required", NULL);
    size_t n = (size_t)mb->valuedouble;
    void **blocks = mdae_calloc(n ? n : 1, sizeof *blocks);
    for (size_t i = 0; i < n; i++) {
        blocks[i] = mdae_malloc(1u << 20); /* exits at the cap */
        memset(blocks[i], 0x5a, 1u << 20);
    }
    for (size_t i = 0; i < n; i++)
        mdae_free(blocks[i]);
    mdae_free(blocks);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "allocated_mb", (double)n);
    return rpc_response_result(id, r);
}

cJSON *wk_m_sleep(wk_state *w, const cJSON *id, const cJSON *params)
{
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(params, "ms");
    bool ignore = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(params, "ignore_cancel"));
    if (!cJSON_IsNumber(ms) || ms->valuedouble < 0)
        return rpc_response_error(id, RPC_INVALID_PARAMS, "\"ms\" is required", NULL);
    uint64_t end = wk_now_ms() + (uint64_t)ms->valuedouble;
    while (wk_now_ms() < end) {
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
        if (!ignore && wk_cancelled(w))
            return rpc_response_mdae(id, MDAE_E_CANCELED, "request cancelled", NULL);
    }
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "slept_ms", ms->valuedouble);
    return rpc_response_result(id, r);
}

/* One frame body for debug/frames: "$ID" becomes the running request's id. */
static void send_body(const wk_state *w, const char *body)
{
    char id[24];
    snprintf(id, sizeof id, "%llu", (unsigned long long)w->current_wid);
    const char *at = strstr(body, "$ID");
    char *text = at ? mdae_asprintf("%.*s%s%s", (int)(at - body), body, id, at + 3)
                    : mdae_strdup(body);
    char *out;
    size_t olen;
    if (text == NULL || rpc_frame_encode(RPC_FRAMING_LSP, text, strlen(text), &out, &olen) < 0)
        wk_oom();
    wk_write(out, olen);
    mdae_free(out);
    mdae_free(text);
}

/* debug/frames {frames?: [body], raw?: text}: what a broken worker might
 * send (the relay's tests, protocol/rpc_relay.h): each body framed, then
 * raw as it is, then the answer true (if the router still listens). */
cJSON *wk_m_frames(wk_state *w, const cJSON *id, const cJSON *params)
{
    const cJSON *frames = cJSON_GetObjectItemCaseSensitive(params, "frames");
    const cJSON *raw = cJSON_GetObjectItemCaseSensitive(params, "raw");
    const cJSON *f;
    cJSON_ArrayForEach(f, frames)
        if (cJSON_IsString(f))
            send_body(w, f->valuestring);
    if (cJSON_IsString(raw))
        wk_write(raw->valuestring, strlen(raw->valuestring));
    return rpc_response_result(id, cJSON_CreateTrue());
}

/* ---- The method table ------------------------------------------------------------------------ */

static const struct wk_method {
    const char *name;
    wk_method_fn *fn;
    bool debug; /* only with --debug-methods */
} methods[] = {
    {"load", m_load, false},
    {"analyze", m_analyze, false},
    {"families", m_families, false},
    {"mode", m_mode, false},
    {"approx", wk_m_approx, false},
    {"rimis", wk_m_rimis, false},
    {"diagnose", m_diagnose, false},
    {"diagnose/modeChanges", wk_m_modechange_diags, false},
    {"lsp/hover", wk_m_hover, false},
    {"lsp/symbols", wk_m_symbols, false},
    {"lsp/definition", wk_m_definition, false},
    {"lsp/references", wk_m_references, false},
    {"lsp/codeLens", wk_m_code_lens, false},
#define XX(name, fn, flags) {name, fn, ((flags) & SRV_M_DEBUG) != 0},
    SRV_FORWARDED_METHODS(XX)
#undef XX
};

wk_method_fn *wk_method_find(const wk_state *w, const char *method)
{
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++)
        if (strcmp(methods[k].name, method) == 0 && (!methods[k].debug || w->opts.debug_methods))
            return methods[k].fn;
    return NULL;
}
