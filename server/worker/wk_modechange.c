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
 * session/modechanges enumerates the pairs (mc_all_enumerate says why);
 * past MC_ALL_MAX_PAIRS, and with {first: true}, it gives the first instant
 * of every change on BDDs instead (mc_first_instants; past the limits with
 * every instant and the erasures, and "enumerationSkipped" saying why).
 *
 * The same enumeration serves session/analyze {modechanges: true} (the
 * pairs streamed one by one, a summary in the result, a cancel seen between
 * pairs) and the editor's diagnostics of mode changes (guard fixpoints,
 * rejected changes grouped by reason and capped), issue 13 item 7.
 */
#include "wk.h"

#include <math.h>
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
    check(rpc_json_add_left_out(json, m)); /* a half-typed model: what was left out */
    return rpc_response_result(id, json);
}

/* The result json of a model, with what was left out of it when it was
 * half-typed (leftOut, syntaxErrors: as mdae modechange prints it). */
static cJSON *result_of(const cJSON *id, const mel_model *m, cJSON *json)
{
    check(rpc_json_add_left_out(json, m));
    return rpc_response_result(id, json);
}

/* The response of a mode-change request: -32602 with why for
 * MDAE_E_INVAL, the engine's error otherwise, else the result json. */
static cJSON *answer(const cJSON *id, const mel_model *m, int rc, const char *why, cJSON *json)
{
    if (rc == MDAE_E_INVAL)
        return invalid(id, "", why);
    if (rc < 0)
        return rpc_response_mdae(id, rc, why[0] ? why : NULL, NULL);
    return result_of(id, m, json);
}

/* session/modechanges {session, first: true[, erasures: true]}: the first
 * instant of every change on BDDs (mc_first_instants, the worker's BuDDy),
 * and, when asked, which equations it erases pair by pair; skipped: why the
 * enumeration was not made (session/modechanges without first, past its
 * limits), or NULL. */
static cJSON *first_instants(const mel_model *m, const cJSON *id, bool erasures, bool later,
                             const char *skipped)
{
    cJSON *refusal = NULL; /* a guard fixpoint: "rejected" and why (issue 41 item 3) */
    check(rpc_json_guard_refusal(m, skipped, &refusal));
    if (refusal != NULL)
        return result_of(id, m, refusal);
    mc_first *f = NULL;
    char why[256] = "";
    mc_options mopt = {.first_erasures = erasures, .first_later = later,
                       .first_impulses = erasures || later};
    int rc = mc_first_instants(m, NULL, &mopt, &f, why, sizeof why);
    check(rc);
    cJSON *json = NULL;
    if (rc == MDAE_OK)
        rc = rpc_json_first_instants(f, skipped, &json);
    check(rc);
    mc_first_free(f);
    return answer(id, m, rc, why, json);
}

cJSON *wk_m_modechanges(wk_state *w, const cJSON *id, const cJSON *params)
{
    const mel_model *m = NULL;
    cJSON *err = NULL;
    if (!wk_model(w, id, &m, &err))
        return err;
    const cJSON *first = cJSON_GetObjectItemCaseSensitive(params, "first");
    if (first != NULL && !cJSON_IsBool(first))
        return invalid(id, "invalid \"first\": ", "expected true or false");
    static const char *const with_first[2] = {"erasures", "instants"};
    bool on[2];
    for (int k = 0; k < 2; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, with_first[k]);
        if (v != NULL && !cJSON_IsBool(v))
            return invalid(id, k ? "invalid \"instants\": " : "invalid \"erasures\": ",
                           "expected true or false");
        on[k] = cJSON_IsTrue(v);
        if (on[k] && !cJSON_IsTrue(first))
            return invalid(id, k ? "invalid \"instants\": " : "invalid \"erasures\": ",
                           "it goes with \"first\": true (every change in full gives every "
                           "instant already)");
    }
    if (cJSON_IsTrue(first))
        return first_instants(m, id, on[0], on[1], NULL);
    cJSON *refusal = NULL; /* as first_instants, and as mdae modechange --all */
    check(rpc_json_guard_refusal(m, NULL, &refusal));
    if (refusal != NULL)
        return result_of(id, m, refusal);
    mc_all *all = NULL;
    char why[256] = "";
    int rc = mc_all_enumerate(m, MC_ALL_MAX_PAIRS, &all, why, sizeof why);
    check(rc);
    if (rc == MDAE_E_LIMIT) /* every instant of every change on BDDs instead */
        return first_instants(m, id, true, true, why[0] ? why : mdae_strerror(rc));
    cJSON *json = NULL;
    if (rc == MDAE_OK)
        rc = rpc_json_modechanges(m, all, &json);
    check(rc);
    mc_all_free(all);
    return answer(id, m, rc, why, json);
}

/* ---- session/analyze {modechanges: true} ---------------------------------------------- */

typedef struct stream_ctx {
    wk_state *w;
    bool stream;
} stream_ctx;

/* mc_pair_fn: one analysis/modechange notification per pair (the entry of
 * session/modechanges's "changes", with the located diagnostics of a
 * rejected one) when streaming; stops when the request is cancelled. */
static int stream_pair(void *vctx, const mc_pair *p, const mc_result *r)
{
    stream_ctx *sc = vctx;
    if (sc->stream) {
        cJSON *o = NULL, *diags = NULL;
        check(rpc_json_modechange_pair(sc->w->model, p, &o));
        if (p->status == MC_REJECTED) {
            check(rpc_json_diags(&r->diags, &diags));
            if (!cJSON_AddItemToObject(o, "diagnostics", diags))
                wk_oom();
        }
        if (!cJSON_AddNumberToObject(o, "id", (double)sc->w->current_wid))
            wk_oom();
        wk_send(sc->w, rpc_notification_new("analysis/modechange", o));
    }
    return wk_cancelled(sc->w) ? 1 : 0;
}

/* {"skipped": why}. */
static cJSON *skipped(const char *why)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL || !cJSON_AddStringToObject(o, "skipped", why))
        wk_oom();
    return o;
}

/* sa_options.progress: stop when the request is cancelled. */
static int until_cancelled(void *ctx, const char *phase, size_t done, size_t total)
{
    (void)phase;
    (void)done;
    (void)total;
    return wk_cancelled(ctx) ? 1 : 0;
}

/* Past the enumeration's limits (why): every instant of every change on
 * BDDs (mc_first_instants), as session/modechanges {first, instants} gives
 * it without the erasures (a list per equation: ask for it), and with
 * "enumerationSkipped": why. {"skipped": ...} if the BDD path refuses the
 * model too (a guard fixpoint, say); MDAE_E_CANCELED when cancelled. */
static int summary_on_bdds(wk_state *w, const char *why, cJSON **out)
{
    mc_first *f = NULL;
    char fwhy[256] = "";
    mc_options mopt = {.first_erasures = true, .first_later = true, .first_impulses = true};
    sa_options so = {.progress = until_cancelled, .progress_ctx = w};
    int rc = mc_first_instants(w->model, &so, &mopt, &f, fwhy, sizeof fwhy);
    check(rc);
    if (rc == MDAE_E_CANCELED)
        return rc;
    if (rc != MDAE_OK) {
        char both[600];
        snprintf(both, sizeof both, "%s; on BDDs: %s", why, fwhy[0] ? fwhy : mdae_strerror(rc));
        *out = skipped(both);
        return MDAE_OK;
    }
    cJSON *json = NULL;
    check(rpc_json_first_instants(f, why, &json));
    mc_first_free(f);
    if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(json, "erasures")))
        cJSON_DeleteItemFromObjectCaseSensitive(json, "erasures");
    *out = json;
    return MDAE_OK;
}

int wk_modechanges_summary(wk_state *w, bool stream, cJSON **out)
{
    mc_all *all = NULL;
    char why[256] = "";
    stream_ctx sc = {w, stream};
    int rc = mc_all_enumerate_each(w->model, MC_ALL_MAX_PAIRS, stream_pair, &sc, &all, why,
                                   sizeof why);
    check(rc);
    if (rc == MDAE_E_LIMIT)
        return summary_on_bdds(w, why[0] ? why : mdae_strerror(rc), out);
    if (rc == MDAE_E_INVAL) {
        *out = skipped(why[0] ? why : mdae_strerror(rc));
        return MDAE_OK;
    }
    if (rc < 0)
        return rc;
    cJSON *json = NULL;
    rc = rpc_json_modechanges(w->model, all, &json);
    check(rc);
    mc_all_free(all);
    if (rc < 0) { /* more than 32 mode variables: past the limits above anyway */
        *out = skipped("too many mode variables for the summary");
        return MDAE_OK;
    }
    /* the summary: the pairs were streamed (or can be asked for) one by one */
    cJSON_DeleteItemFromObjectCaseSensitive(json, "changes");
    cJSON_DeleteItemFromObjectCaseSensitive(json, "equations");
    *out = json;
    return MDAE_OK;
}

/* ---- LSP diagnostics of mode changes (issue 13 item 7) --------------------------------- */

/* Rejected changes published one by one at most; past that, one summary. */
#define WK_MC_REJECTED_DIAGS 20
/* Values or equations named in one rejection's reason at most. */
#define WK_MC_REASON_ITEMS 6
/* The editor's time for the mode changes of one check: the model's own
 * diagnostics go out in the same answer, so a large model's thousands of
 * changes must not hold them back. Past it, what was found is published
 * with a hint saying how far the check went. */
#define WK_MC_DIAG_BUDGET_MS 1000

/* Rejected changes with the same reason at the same place: one diagnostic,
 * naming the first change and counting the others. */
typedef struct rejected_group {
    char *reason; /* owned */
    mdae_range where;
    uint32_t from, to; /* the first change */
    size_t count;
} rejected_group;

typedef struct diag_ctx {
    wk_state *w;
    rejected_group groups[WK_MC_REJECTED_DIAGS];
    size_t n_groups;
    size_t more; /* rejected changes past the groups */
    size_t singular; /* rejected for a singular old or new mode (not grouped) */
    size_t seen; /* changes analysed */
    uint64_t deadline; /* wk_now_ms() past which the check stops */
    bool out_of_time;
} diag_ctx;

/* "x, x•, y•²" of the first WK_MC_REASON_ITEMS items of l, appended to b. */
static void put_items(mdae_buf *b, const mel_model *m, const mc_list *l, bool vars)
{
    static const char *const dots[] = {"", "\u2022", "\u2022\u00b2", "\u2022\u00b3"};
    for (size_t k = 0; k < l->n && k < WK_MC_REASON_ITEMS; k++) {
        uint32_t ix = l->items[k].index;
        int s = l->items[k].shift;
        mdae_buf_puts(b, k > 0 ? ", " : "");
        mdae_buf_puts(b, vars ? m->variables[ix].name : m->equations[ix].name);
        mdae_buf_puts(b, s >= 0 && s < 4 ? dots[s] : "\u2022\u207f");
    }
    if (l->n > WK_MC_REASON_ITEMS)
        mdae_buf_puts(b, ", \u2026");
}

/* Where a mode change from `from` to `to` shows when nothing better is
 * named: the declaration of the first mode variable that changes. */
static mdae_range changed_mode_where(const mel_model *m, uint32_t from, uint32_t to)
{
    for (uint32_t k = 0; k < m->n_modes; k++)
        if (((from ^ to) >> k) & 1u)
            return m->modes[k].where;
    return m->n_modes > 0 ? m->modes[0].where : (mdae_range){{0, 0, 0}, {0, 0, 0}};
}

/* Why r was rejected, as words (owned), and where: the failing instant's
 * underdetermined values or overdetermined equations, else the first of
 * mc's own located diagnostics (a singular old or new mode). */
static char *rejection_reason(const mel_model *m, const mc_pair *p, const mc_result *r,
                              mdae_range *where)
{
    const mc_instant *in = r->n_instants > 0 ? &r->instants[r->n_instants - 1] : NULL;
    bool under = in != NULL && in->status == MC_UNDERDETERMINED && in->underdetermined.n > 0;
    bool over = in != NULL && in->status == MC_OVERDETERMINED && in->overdetermined.n > 0;
    *where = changed_mode_where(m, p->from, p->to);
    if (!under && !over) {
        if (r->diags.count == 0)
            return mdae_strdup("no restart reaches the new mode");
        if (r->diags.items[0].where.start.line > 0)
            *where = r->diags.items[0].where;
        return mdae_strdup(r->diags.items[0].message ? r->diags.items[0].message : "");
    }
    const mc_list *l = under ? &in->underdetermined : &in->overdetermined;
    *where = under ? m->variables[l->items[0].index].where : m->equations[l->items[0].index].where;
    /* an event no difference array determines (engine/mc.h): at the when */
    bool event = under && in->r == 0 && r->transient != NULL && r->transient->depth < 0;
    if (event)
        *where = m->whens[r->transient->whens[0]].where;
    mdae_buf b = {0};
    char head[80];
    if (event)
        snprintf(head, sizeof head, "the transient mode is underdetermined at the event (");
    else
        snprintf(head, sizeof head, "restart instant %u is %s (", (unsigned)in->r,
                 under ? "underdetermined" : "overdetermined");
    mdae_buf_puts(&b, head);
    put_items(&b, m, l, under);
    mdae_buf_puts(&b, event ? "): add equations to the when-body, e.g. an impact law" : ")");
    if (b.oom)
        wk_oom();
    return b.p;
}

/* Whether r was refused before any instant because its old or new mode is
 * singular (mc_change.c, R7: its located diagnostics name the singular
 * equations, which the analysis's own errors already show in the editor;
 * issue 42: a warning per change repeated each of them). */
static bool refused_singular(const mc_result *r)
{
    if (r->n_instants > 0 || r->diags.count == 0)
        return false;
    const char *msg = r->diags.items[0].message;
    return msg != NULL && strstr(msg, "is structurally singular") != NULL;
}

/* mc_pair_fn: group the rejected changes; stops when cancelled (a newer
 * edit). */
static int collect_rejected(void *vctx, const mc_pair *p, const mc_result *r)
{
    diag_ctx *dc = vctx;
    if (p->status == MC_REJECTED && refused_singular(r)) {
        dc->singular++; /* the analysis's errors on that mode say it already */
    } else if (p->status == MC_REJECTED) {
        mdae_range where;
        char *reason = rejection_reason(dc->w->model, p, r, &where);
        if (reason == NULL)
            wk_oom();
        rejected_group *g = NULL;
        for (size_t k = 0; k < dc->n_groups && g == NULL; k++)
            if (dc->groups[k].where.start.offset == where.start.offset &&
                strcmp(dc->groups[k].reason, reason) == 0)
                g = &dc->groups[k];
        if (g != NULL) {
            g->count++;
            mdae_free(reason);
        } else if (dc->n_groups < WK_MC_REJECTED_DIAGS) {
            dc->groups[dc->n_groups++] = (rejected_group){reason, where, p->from, p->to, 1};
        } else {
            dc->more++;
            mdae_free(reason);
        }
    }
    dc->seen++;
    if (wk_now_ms() > dc->deadline) {
        dc->out_of_time = true;
        return 1;
    }
    return wk_cancelled(dc->w) ? 1 : 0;
}

/* "g1=F g2=T" of a mode mask, appended to b. */
static void put_mode(mdae_buf *b, const mel_model *m, uint32_t mask)
{
    for (uint32_t k = 0; k < m->n_modes; k++) {
        mdae_buf_puts(b, k > 0 ? " " : "");
        mdae_buf_puts(b, m->modes[k].name);
        mdae_buf_puts(b, (mask >> k) & 1u ? "=T" : "=F");
    }
}

static void publish_group(wk_state *w, cJSON *arr, const rejected_group *g)
{
    mdae_buf b = {0};
    mdae_buf_puts(&b, "mode change ");
    put_mode(&b, w->model, g->from);
    mdae_buf_puts(&b, " \u2192 ");
    put_mode(&b, w->model, g->to);
    mdae_buf_puts(&b, " is rejected: ");
    mdae_buf_puts(&b, g->reason);
    if (g->count > 1) {
        char more[80];
        snprintf(more, sizeof more, " (and %zu more change%s for the same reason)", g->count - 1,
                 g->count > 2 ? "s" : "");
        mdae_buf_puts(&b, more);
    }
    if (b.oom)
        wk_oom();
    wk_lsp_diag(w, arr, &g->where, RPC_LSP_WARNING, b.p);
    mdae_free(b.p);
}

/* The document's path for "mdae modechange FILE --all": the URI without
 * its file:// scheme. */
static const char *file_of(const wk_state *w)
{
    const char *f = w->text_name ? w->text_name : "FILE";
    return strncmp(f, "file://", 7) == 0 ? f + 7 : f;
}

/* The first instants' time: the editor's budget, or a cancel (a newer
 * edit, issue 36). */
typedef struct budget_ctx {
    wk_state *w;
    uint64_t deadline;
} budget_ctx;

/* sa_options.progress: stop at the deadline or when cancelled
 * (MDAE_E_CANCELED either way). */
static int past_deadline(void *ctx, const char *phase, size_t done, size_t total)
{
    (void)phase;
    (void)done;
    (void)total;
    const budget_ctx *bc = ctx;
    return wk_now_ms() > bc->deadline || wk_cancelled(bc->w);
}

/* A count of mode changes as people read it (issue 42), exact (issue 41):
 * its digits up to 12 of them, "2^200" when it is a power of two, else
 * "~2^188.6" (the 61-digit numbers of the brake at N = 100 said nothing;
 * the hover and the JSON of mdae modechange give every digit). buf has 32
 * bytes. */
static const char *count_text(const mdae_bn *x, char buf[32])
{
    char *digits = mdae_bn_dec(x);
    if (digits != NULL && strlen(digits) <= 12) {
        snprintf(buf, 32, "%s", digits);
    } else {
        bool power = x->n > 0 && (x->d[x->n - 1] & (x->d[x->n - 1] - 1)) == 0;
        for (uint32_t k = 0; power && k + 1 < x->n; k++)
            power = x->d[k] == 0;
        double l = mdae_bn_log2(x);
        if (power)
            snprintf(buf, 32, "2^%.0f", l);
        else if (fabs(l - round(l)) < 0.05)
            snprintf(buf, 32, "~2^%.0f", l);
        else
            snprintf(buf, 32, "~2^%.1f", l);
    }
    mdae_free(digits);
    return buf;
}

/* The first instants' message (every instant could not be followed: its
 * reason in later_why): a warning with the formula of the pairs rejected
 * there, else a hint with the counts. */
static char *first_only_message(const wk_state *w, const mc_first *f, const char *why,
                                int *severity)
{
    char a[32], b[32];
    if (f->counts[MC_FIRST_REJECTED] > 0) {
        const char *g = f->classes[MC_FIRST_REJECTED].formula;
        *severity = RPC_LSP_WARNING;
        return mdae_asprintf("%s of %s mode changes are rejected at their first instant (a "
                             "value no equation determines) when %.300s%s (g: before, "
                             "g\u207a: after; "
                             "mdae modechange %s --first)",
                             count_text(&f->counts_exact[MC_FIRST_REJECTED], a),
                             count_text(&f->pairs_exact, b), g ? g : "?",
                             g && strlen(g) > 300 ? "..." : "", file_of(w));
    }
    return mdae_asprintf("none of the %s mode changes is rejected at its first instant, %s "
                         "continuous, the others need a restart (checked at the first instant "
                         "only; %s; the later instants: %s; mdae modechange %s --first)",
                         count_text(&f->pairs_exact, a),
                         count_text(&f->counts_exact[MC_FIRST_CONTINUOUS], b),
                         why, f->later_why ? f->later_why : "not computed", file_of(w));
}

/* Every instant's message: a warning naming the rejected pairs by the
 * instant they fail at (the first three groups), else a hint with the
 * counts. */
static char *every_instant_message(const wk_state *w, const mc_first *f, const char *why,
                                   int *severity)
{
    char n1[32], n2[32], n3[32];
    if (f->status_counts[MC_REJECTED] <= 0) {
        const mdae_bn *cont = &f->status_counts_exact[MC_CONTINUOUS];
        char split[80];
        if (mdae_bn_cmp(cont, &f->pairs_exact) >= 0)
            snprintf(split, sizeof split, "all are continuous");
        else if (cont->n == 0)
            snprintf(split, sizeof split, "all need a reset");
        else
            snprintf(split, sizeof split, "%s continuous, %s need a reset",
                     count_text(cont, n2), count_text(&f->status_counts_exact[MC_RESET], n3));
        return mdae_asprintf("none of the %s mode changes is rejected: %s (checked on BDDs at "
                             "every instant; %s; mdae modechange %s --first --instants)",
                             count_text(&f->pairs_exact, n1), split, why, file_of(w));
    }
    *severity = RPC_LSP_WARNING;
    mdae_buf b = {0};
    char piece[320];
    snprintf(piece, sizeof piece, "%s of %s mode changes are rejected:",
             count_text(&f->status_counts_exact[MC_REJECTED], n1),
             count_text(&f->pairs_exact, n2));
    mdae_buf_puts(&b, piece);
    size_t shown = 0;
    for (size_t k = 0; k < f->n_outcomes; k++) {
        const mc_first_outcome *o = &f->outcomes[k];
        if (o->status != MC_REJECTED || o->pairs <= 0)
            continue;
        if (shown++ == 3) {
            mdae_buf_puts(&b, " \u2026");
            break;
        }
        const char *g = o->set.formula;
        snprintf(piece, sizeof piece, "%s at instant %u when %.200s%s", shown > 1 ? ";" : "",
                 o->instants > 0 ? o->instants - 1 : 0, g ? g : "(more than 4096 cubes)",
                 g && strlen(g) > 200 ? "..." : "");
        mdae_buf_puts(&b, piece);
    }
    snprintf(piece, sizeof piece, " (g: before, g\u207a: after; mdae modechange %s --first --instants)",
             file_of(w));
    mdae_buf_puts(&b, piece);
    if (b.oom) {
        mdae_free(b.p);
        return NULL;
    }
    return b.p;
}

/* Past the enumeration's limits (why): every instant of every change on
 * BDDs, within the editor's budget (the first instants alone if the later
 * ones cannot be followed, or not within the budget). Some change rejected is a warning with the
 * pairs' formula; else a hint with the counts; if the analysis cannot
 * finish in time (or at all), the hint says why nothing was checked. */
static void first_instant_diags(wk_state *w, cJSON *arr, const mdae_range *top,
                                const char *why)
{
    budget_ctx bc = {w, wk_now_ms() + WK_MC_DIAG_BUDGET_MS};
    sa_options so = {.progress = past_deadline, .progress_ctx = &bc};
    /* past the deadline in the later instants, the first instants stand */
    mc_options mopt = {.first_erasures = true, .first_later = true,
                       .first_keep_on_cancel = true};
    mc_first *f = NULL;
    char fwhy[256] = "";
    int rc = mc_first_instants(w->model, &so, &mopt, &f, fwhy, sizeof fwhy);
    check(rc);
    char *msg = NULL;
    int severity = RPC_LSP_HINT;
    if (rc != MDAE_OK)
        msg = mdae_asprintf("mode changes were not checked: %s", why);
    else if (f->later_computed)
        msg = every_instant_message(w, f, why, &severity);
    else
        msg = first_only_message(w, f, why, &severity);
    mc_first_free(f);
    wk_lsp_diag(w, arr, top, severity, msg ? msg : "mode changes were not checked");
    mdae_free(msg);
}

/* The rejected changes among every pair, grouped and capped. */
static void rejected_diags(wk_state *w, cJSON *arr)
{
    const mel_model *m = w->model;
    diag_ctx dc = {.w = w, .deadline = wk_now_ms() + WK_MC_DIAG_BUDGET_MS};
    mc_all *all = NULL;
    char why[256] = "";
    int rc = mc_all_enumerate_each(m, MC_ALL_MAX_PAIRS, collect_rejected, &dc, &all, why,
                                   sizeof why);
    check(rc);
    mdae_range top = m->modes[0].where;
    bool partial = rc == MDAE_E_CANCELED && dc.out_of_time;
    if (partial) {
        char *msg = mdae_asprintf("mode changes were checked for %zu changes only, within the "
                                  "editor's %d ms (mdae modechange %s --all checks them all)",
                                  dc.seen, WK_MC_DIAG_BUDGET_MS, file_of(w));
        wk_lsp_diag(w, arr, &top, RPC_LSP_HINT, msg ? msg : "mode changes were not checked");
        mdae_free(msg);
    } else if (rc == MDAE_E_LIMIT) {
        first_instant_diags(w, arr, &top, why);
    }
    bool publish = rc == MDAE_OK || partial;
    for (size_t k = 0; k < dc.n_groups; k++) {
        if (publish)
            publish_group(w, arr, &dc.groups[k]);
        mdae_free(dc.groups[k].reason);
    }
    if (publish && dc.singular > 0) {
        char *msg = mdae_asprintf("%zu mode change%s from or into a singular mode %s not "
                                  "analysed: the errors on the singular modes say what to fix",
                                  dc.singular, dc.singular > 1 ? "s" : "",
                                  dc.singular > 1 ? "are" : "is");
        wk_lsp_diag(w, arr, &top, RPC_LSP_HINT, msg ? msg : "changes of singular modes");
        mdae_free(msg);
    }
    if (publish && dc.more > 0) {
        char *msg = mdae_asprintf("\u2026 and %zu more rejected change%s (mdae modechange %s --all)",
                                  dc.more, dc.more > 1 ? "s" : "", file_of(w));
        wk_lsp_diag(w, arr, &top, RPC_LSP_WARNING, msg ? msg : "more rejected changes");
        mdae_free(msg);
    }
    mc_all_free(all);
}

void wk_modechange_diags(wk_state *w, cJSON *arr)
{
    const mel_model *m = w->model;
    if (m == NULL || m->n_modes == 0)
        return;
    mdae_diags gd;
    mdae_diags_init(&gd);
    size_t n_guard = 0;
    check(mc_guard_fixpoints(m, &gd, &n_guard));
    /* Their warnings come with the model's own (the load's check,
     * mc_guard_fixpoint_warnings, as mdae check says them: warnings, not
     * errors, for the modes are analysed; a Modelica ideal diode's
     * `off = s < 0` is one); here they only stop the changes' check. */
    mdae_diags_close(&gd);
    /* a guard fixpoint refuses every change of the model: its warnings say
     * why, one diagnostic per rejected change would only repeat them */
    if (n_guard == 0)
        rejected_diags(w, arr);
}

/* diagnose/modeChanges {approx?, modeChanges?} (issue 36 item 4): the
 * second stage of an editor's check, after "diagnose" published the
 * analysis's diagnostics: with approx true, the approximate analysis's
 * warnings first (those diagnose {approx: false} left, issue 40 item 5),
 * then, unless modeChanges is false, those of mode changes. Needs what that
 * diagnose left: the model loaded and its analysis done (not after a
 * failed analysis, nor in a worker restarted since, which has loaded the
 * text but not analysed it: nothing then). */
cJSON *wk_m_modechange_diags(wk_state *w, const cJSON *id, const cJSON *params)
{
    cJSON *arr = cJSON_CreateArray(), *r = cJSON_CreateObject();
    if (arr == NULL || r == NULL)
        wk_oom();
    wk_graph_diags(w, arr); /* what the questions after it need */
    bool analysed = w->model != NULL && w->model_rc == MDAE_OK && w->result != NULL;
    /* a cancel seen in the graph's construction is answered now: the
     * approximate analysis does not poll (a tenth of a second of the brake
     * at N = 10,000 before the newer edit's check could start) */
    if (analysed && !wk_cancelled(w) &&
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(params, "approx")))
        wk_approx_diags(w, arr);
    if (analysed && !wk_cancelled(w) &&
        !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(params, "modeChanges")))
        wk_modechange_diags(w, arr);
    if (wk_cancelled(w)) { /* what was found is partial */
        cJSON_Delete(arr);
        cJSON_Delete(r);
        return rpc_response_mdae(id, MDAE_E_CANCELED, "request cancelled", NULL);
    }
    cJSON_AddItemToObject(r, "diagnostics", arr);
    return rpc_response_result(id, r);
}
