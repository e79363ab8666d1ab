/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_workermain.c -- the worker process (`mdaed --worker`): one
 * session's BuDDy manager, model and analysis, driven by the router over
 * stdin/stdout (JSON-RPC, Content-Length framing).
 *
 * Why a separate process: BuDDy's state is global to a process, so
 * per-session managers mean per-session processes; that also isolates
 * crashes and lets the kernel enforce a memory cap (issue 5 section 1).
 *
 * This process has no event loop: it blocks on stdin between requests, runs
 * one request at a time, and looks at stdin again only between analysis
 * steps (the sa_options.progress callback) to see `$/cancelRequest`.
 *
 * Memory: RLIMIT_AS caps the whole process (not under AddressSanitizer, which
 * reserves terabytes of address space), and the mdae allocator counts bytes
 * against the same cap. Running out of memory ends the process with
 * SRV_EXIT_NOMEM (Redis's choice, STYLE.md section 8): the router reports the
 * cap to the client and restarts the worker from the kept text on next use.
 *
 * Methods (router to worker):
 *   load {text, defines?, name?}   -> {summary:{counts, diagnostics}} or the
 *                                     model error with data.diagnostics
 *   analyze {stream}               -> the rpc_json_analysis JSON (`mdae
 *                                     analyze --json`); when streaming,
 *                                     analysis/progress {phase,done,total}
 *                                     first, then analysis/diagnostic,
 *                                     analysis/block (the block's id is
 *                                     "block": "id" is the request's) and
 *                                     analysis/edge, one per report entry
 *   analyze {..., reuse, version, since?, stableIds?}
 *                                  -> (issue 6) with stableIds or since,
 *                                     stable block ids; with since, the
 *                                     difference from that kept version
 *                                     (see "Differences" below; streaming
 *                                     then sends only added/changed
 *                                     entries); "reuse":{components, reused,
 *                                     recomputed, seeded, searched,
 *                                     analysed} is added for the
 *                                     router, which sums it for
 *                                     server/status and strips it unless
 *                                     the client asked (reuse:true)
 *   mode {mode}                    -> rpc_json_mode (`mdae mode --json`)
 *   dot {}                         -> the CDG as DOT text (a JSON string)
 *   diagnose {text, defines?, name?} -> {diagnostics:[LSP Diagnostic]}: load,
 *                                     then singular-mode diagnostics
 *   debug/crash {signal?}, debug/alloc {mb}, debug/sleep {ms, ignore_cancel?}
 *                                     (only with --debug-methods)
 */
#include "srv.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cdg.h"
#include "inc.h"
#include "mel.h"
#include "rpc_json.h"
#include "sa.h"

/* Worker input: model texts, possibly edited past the client frame limit. */
#define SRV_WORKER_MAX_IN (512u * 1024u * 1024u)

#if defined(__SANITIZE_ADDRESS__)
#define SRV_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SRV_ASAN 1
#endif
#endif

/* ---- The counting allocator ---------------------------------------------------- */

#define HDR 16 /* keeps malloc's alignment */
static size_t mem_used, mem_cap;

static void out_of_memory(void)
{
    static const char msg[] = "mdaed worker: memory cap reached, exiting\n";
    ssize_t r = write(2, msg, sizeof msg - 1);
    (void)r;
    _exit(SRV_EXIT_NOMEM);
}

static void *cm_malloc(size_t n)
{
    if (mem_cap && (n > mem_cap || mem_used + n > mem_cap))
        out_of_memory();
    char *p = malloc(n + HDR);
    if (p == NULL)
        out_of_memory();
    *(size_t *)(void *)p = n;
    mem_used += n;
    return p + HDR;
}

static void cm_free(void *q)
{
    char *p = (char *)q - HDR;
    mem_used -= *(size_t *)(void *)p;
    free(p);
}

static void *cm_realloc(void *q, size_t n)
{
    if (q == NULL)
        return cm_malloc(n);
    char *p = (char *)q - HDR;
    size_t old = *(size_t *)(void *)p;
    if (mem_cap && n > old && (n > mem_cap || mem_used + (n - old) > mem_cap))
        out_of_memory();
    char *np = realloc(p, n + HDR);
    if (np == NULL)
        out_of_memory();
    *(size_t *)(void *)np = n;
    mem_used = mem_used - old + n;
    return np + HDR;
}

static void *cm_calloc(size_t count, size_t n)
{
    if (n != 0 && count > (size_t)-1 / n)
        out_of_memory();
    void *p = cm_malloc(count * n);
    memset(p, 0, count * n);
    return p;
}

/* ---- Pipe I/O ------------------------------------------------------------------- */

typedef struct qmsg {
    char *body;
    size_t len;
    struct qmsg *next;
} qmsg;

static rpc_framer in_fr;
static qmsg *q_head, *q_tail;
static bool in_eof;
static uint64_t current_wid;
static bool current_cancelled;

static int on_in_frame(void *ctx, const rpc_frame *f)
{
    qmsg *m = mdae_malloc(sizeof *m);
    m->body = mdae_strndup(f->body, f->len);
    m->len = f->len;
    m->next = NULL;
    if (q_tail)
        q_tail->next = m;
    else
        q_head = m;
    q_tail = m;
    return 0;
}

/* Read what stdin has (waiting up to timeout_ms; -1: forever). */
static void pump(int timeout_ms)
{
    if (in_eof)
        return;
    struct pollfd pfd = {0, POLLIN, 0};
    int r = poll(&pfd, 1, timeout_ms);
    if (r <= 0)
        return;
    char buf[65536];
    ssize_t n = read(0, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        in_eof = true;
        return;
    }
    if (rpc_framer_feed(&in_fr, buf, (size_t)n, on_in_frame, NULL) < 0)
        _exit(SRV_EXIT_PROTO);
}

static void write_all(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(1, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            _exit(0); /* the router is gone */
        p += w;
        n -= (size_t)w;
    }
}

static void send_msg(cJSON *msg /* takes */)
{
    char *body, *out;
    size_t blen, olen;
    if (msg == NULL)
        out_of_memory();
    if (rpc_print(msg, &body, &blen) < 0)
        out_of_memory();
    cJSON_Delete(msg);
    if (rpc_frame_encode(RPC_FRAMING_LSP, body, blen, &out, &olen) < 0)
        out_of_memory();
    mdae_free(body);
    write_all(out, olen);
    mdae_free(out);
}

/* True when the running request has been cancelled. Looks at stdin without
 * waiting; other messages stay queued for the main loop. */
static bool cancelled(void)
{
    if (current_cancelled)
        return true;
    pump(0);
    if (in_eof) /* the router is gone: nobody wants the answer */
        return current_cancelled = true;
    qmsg *prev = NULL;
    for (qmsg *m = q_head; m != NULL; prev = m, m = m->next) {
        rpc_parsed p;
        if (rpc_parse(m->body, m->len, &p) < 0)
            continue;
        bool hit = false;
        if (p.msgs[0].kind == RPC_MSG_NOTIFICATION &&
            strcmp(p.msgs[0].method, "$/cancelRequest") == 0) {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(p.msgs[0].params, "id");
            hit = cJSON_IsNumber(id) && (uint64_t)id->valuedouble == current_wid;
        }
        rpc_parsed_close(&p);
        if (hit) {
            if (prev)
                prev->next = m->next;
            else
                q_head = m->next;
            if (q_tail == m)
                q_tail = prev;
            mdae_free(m->body);
            mdae_free(m);
            current_cancelled = true;
            return true;
        }
    }
    return false;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- Session state ---------------------------------------------------------------- */

static srv_worker_opts wopts;
static char *text;       /* the loaded model text */
static size_t text_len;
static char *text_name;  /* for FILE:LINE:COL */
static mel_model *model;
static int model_rc = MDAE_E_STATE; /* why the model cannot be analysed */
static mdae_diags model_diags;
static sa_result *result;     /* analysis of the current model, or NULL */
static cdg_graph *graph;      /* its blocks and edges (issue 4) */
static cJSON *cached_report;  /* its JSON */
/* Incremental analysis (engine/inc.h, issue 6): the session's cache lives
 * as long as the worker, across loads and edits. When the model is one
 * result and graph are borrowed from inc_res (inc_result_whole): with one
 * connected component (the building, the brake) its part is reused when the
 * structure did not change (a comment, a constant, a moved line); with
 * several, only the components an edit touched are analysed again and the
 * whole is composed from the parts. Either way the JSON is exactly the
 * cold one. */
static inc_session *inc_sess;
static inc_result *inc_res;   /* when set, result and graph are borrowed from it */
static inc_stats inc_last;    /* reuse of the last analysis */
static int inc_method;        /* sa_options.method of the next analysis */
static bool inc_fresh;        /* the current request ran that analysis */

static cJSON *error_reply(const cJSON *id, int rc, const char *message, cJSON *details)
{
    return rpc_response_mdae(id, rc, message, details);
}

static cJSON *diags_json(const mdae_diags *d)
{
    cJSON *arr = NULL;
    if (rpc_json_diags(d, &arr) < 0)
        out_of_memory();
    return arr;
}

/* "FILE:LINE:COL: error: message" lines, what the CLI prints. */
static cJSON *diags_messages(const mdae_diags *d)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < d->count; i++) {
        char *s = mdae_diag_format(&d->items[i], text_name);
        cJSON_AddItemToArray(arr, cJSON_CreateString(s ? s : ""));
        mdae_free(s);
    }
    return arr;
}

static cJSON *counts_json(const mel_model *m)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, "equations", m->n_equations);
    cJSON_AddNumberToObject(c, "variables", m->n_variables);
    cJSON_AddNumberToObject(c, "modeVariables", m->n_modes);
    cJSON_AddNumberToObject(c, "incidences", (double)m->n_edges);
    cJSON_AddNumberToObject(c, "invariants", m->n_invariants);
    cJSON_AddNumberToObject(c, "parameters", m->n_params);
    cJSON_AddNumberToObject(c, "integers", m->n_integers);
    return c;
}

static cJSON *model_error_details(void)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddItemToObject(d, "diagnostics", diags_json(&model_diags));
    cJSON_AddItemToObject(d, "messages", diags_messages(&model_diags));
    return d;
}

static void forget_analysis(void)
{
    cJSON_Delete(cached_report);
    cached_report = NULL;
    if (inc_res != NULL) {
        inc_result_free(inc_res); /* result and graph were borrowed */
        inc_res = NULL;
    } else {
        cdg_graph_free(graph); /* before the result: it holds BDDs */
        sa_result_free(result);
    }
    graph = NULL;
    result = NULL;
}

static void unload(void)
{
    forget_analysis();
    mel_model_free(model);
    model = NULL;
    mdae_diags_close(&model_diags);
    mdae_diags_init(&model_diags);
    mdae_free(text);
    text = NULL;
    mdae_free(text_name);
    text_name = NULL;
    model_rc = MDAE_E_STATE;
}

/* Parse (and check) params.text; sets model/model_rc/model_diags. Returns
 * MDAE_OK or the model's error; MDAE_E_INVAL for bad params. */
static int do_load(const cJSON *params)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(params, "text");
    const cJSON *defs = cJSON_GetObjectItemCaseSensitive(params, "defines");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
    if (!cJSON_IsString(t))
        return MDAE_E_INVAL;
    unload();
    text_len = strlen(t->valuestring);
    text = mdae_strndup(t->valuestring, text_len);
    text_name = mdae_strdup(cJSON_IsString(name) ? name->valuestring : "<input>");
    mel_define defines[64];
    size_t nd = 0;
    if (cJSON_IsObject(defs))
        for (const cJSON *d = defs->child; d != NULL && nd < 64; d = d->next)
            if (cJSON_IsNumber(d))
                defines[nd++] = (mel_define){d->string, (long long)d->valuedouble};
    mel_options mo = {0};
    mo.defines = defines;
    mo.n_defines = nd;
    int rc = mel_model_parse(text, text_len, &mo, &model, &model_diags);
    if (rc == MDAE_OK)
        rc = sa_check(model, &model_diags);
    if (rc == MDAE_E_NOMEM)
        out_of_memory();
    model_rc = rc;
    return rc;
}

static cJSON *m_load(const cJSON *id, const cJSON *params)
{
    int rc = do_load(params);
    if (rc == MDAE_E_INVAL)
        return rpc_response_error(id, RPC_INVALID_PARAMS, "\"text\" is required", NULL);
    if (rc < 0)
        return error_reply(id, rc, NULL, model_error_details());
    cJSON *r = cJSON_CreateObject();
    cJSON *sum = cJSON_AddObjectToObject(r, "summary");
    cJSON_AddItemToObject(sum, "counts", counts_json(model));
    cJSON_AddItemToObject(sum, "diagnostics", diags_json(&model_diags));
    return rpc_response_result(id, r);
}

typedef struct progress_ctx {
    bool stream;
    const char *last_phase;
    uint64_t last_ms;
} progress_ctx;

static int on_progress(void *vctx, const char *phase, size_t done, size_t total)
{
    progress_ctx *pc = vctx;
    if (pc->stream) {
        /* Throttled: a phase change, its end, or every 50 ms. */
        uint64_t now = now_ms();
        if (pc->last_phase != phase || done == total || now - pc->last_ms >= 50) {
            cJSON *p = cJSON_CreateObject();
            cJSON_AddNumberToObject(p, "id", (double)current_wid);
            cJSON_AddStringToObject(p, "phase", phase ? phase : "");
            cJSON_AddNumberToObject(p, "done", (double)done);
            cJSON_AddNumberToObject(p, "total", (double)total);
            send_msg(rpc_notification_new("analysis/progress", p));
            pc->last_phase = phase;
            pc->last_ms = now;
        }
    }
    return cancelled() ? 1 : 0;
}

/* Analyse the loaded model unless done already: the all-modes result and
 * its conditional dependency graph, kept for mode and dot requests. Errors
 * found on the way go to *ad. */
static int ensure_analysis(bool stream, mdae_diags *ad)
{
    if (result != NULL && graph != NULL)
        return MDAE_OK;
    forget_analysis();
    progress_ctx pc = {stream, NULL, 0};
    sa_options so = {.progress = on_progress, .progress_ctx = &pc, .method = inc_method};
    inc_fresh = true;
    int rc = MDAE_OK;
    if (inc_sess == NULL)
        rc = inc_session_new(&inc_sess);
    if (rc == MDAE_OK)
        rc = inc_analyze(inc_sess, model, &so, &inc_res, ad);
    if (rc == MDAE_OK) {
        inc_result_stats(inc_res, &inc_last);
        rc = inc_result_whole(inc_res, model, &so, &result, &graph, ad);
    }
    if (rc == MDAE_E_NOMEM)
        out_of_memory();
    if (rc < 0)
        forget_analysis();
    return rc;
}

/* The analysis JSON, exactly what `mdae analyze --json` prints. */
static int analysis_json(cJSON **out)
{
    if (cached_report == NULL) {
        sa_report *rep = NULL;
        cdg_report *crep = NULL;
        int rc = sa_result_report(result, &rep);
        if (rc == MDAE_OK)
            rc = cdg_graph_report(graph, &crep);
        if (rc == MDAE_OK)
            rc = rpc_json_analysis(rep, crep, &cached_report);
        cdg_report_free(crep);
        sa_report_free(rep);
        if (rc == MDAE_E_NOMEM)
            out_of_memory();
        if (rc < 0)
            return rc;
    }
    *out = cJSON_Duplicate(cached_report, true);
    if (*out == NULL)
        out_of_memory();
    return MDAE_OK;
}

static cJSON *analysis_error(const cJSON *id, int rc, const mdae_diags *ad)
{
    if (rc == MDAE_E_MODEL || rc == MDAE_E_PARSE)
        return error_reply(id, rc, NULL, model_error_details());
    cJSON *d = cJSON_CreateObject();
    if (ad != NULL && ad->count > 0)
        cJSON_AddItemToObject(d, "diagnostics", diags_json(ad));
    if (rc == MDAE_E_BDD_LIMIT) {
        cJSON_AddNumberToObject(d, "node_limit", (double)wopts.node_limit);
        return error_reply(id, rc, "analysis exceeded the BDD node limit (raise bdd.node_limit)",
                           d);
    }
    if (rc == MDAE_E_CANCELED)
        return error_reply(id, rc, "request cancelled", d);
    return error_reply(id, rc, NULL, d);
}

/* Loaded and analysed, or an error reply in *err. */
static bool analysed(const cJSON *id, bool stream, cJSON **err)
{
    if (model == NULL || model_rc < 0) {
        *err = model_rc == MDAE_E_STATE ? error_reply(id, MDAE_E_STATE, "no model loaded", NULL)
                                        : analysis_error(id, model_rc, NULL);
        return false;
    }
    mdae_diags ad;
    mdae_diags_init(&ad);
    int rc = ensure_analysis(stream, &ad);
    if (rc < 0)
        *err = analysis_error(id, rc, &ad);
    mdae_diags_close(&ad);
    return rc == MDAE_OK;
}

/* ---- Differences between versions (issue 6) ----------------------------------------
 *
 * session/analyze {since: S} answers the difference between the result of
 * version S and the current one; {stableIds: true} answers the full result
 * with stable block ids. Both use the same ids: a block's id is given once
 * per worker from its identity (equations, unknowns, reads with orders), so
 * a block that did not change keeps it in every later version, whatever the
 * canonical numbering of each result. (A restarted worker starts a new map;
 * the versions it kept are gone too, so since then fails cleanly.)
 *
 * The difference, every array being a set keyed as said:
 *   {"since":S, "version":V,
 *    "blocks":      {"added":[block], "removed":[id], "changed":[block]},
 *    "edges":       {"added":[edge], "removed":[{"from","to"}], "changed":[edge]},
 *    "equations":   {"added":[item], "removed":[name], "changed":[item]},
 *    "variables":   {"added":[item], "removed":[name], "changed":[item]},
 *    "diagnostics": {"added":[diag], "removed":[diag]},
 *    "members":     {name: value, ...}}   (other members that changed)
 * blocks by id, edges by (from, to), equations and variables by name,
 * diagnostics by their whole content. Applying it to the full result of S
 * (stable ids) gives the full result of V up to the order of the arrays
 * (blocks by id, edges by (from, to), items and diagnostics in model order). */
#define KEEP_VERSIONS 4
static struct kept {
    long version; /* -1: empty */
    cJSON *full;  /* stable ids */
} kept[KEEP_VERSIONS] = {{-1, NULL}, {-1, NULL}, {-1, NULL}, {-1, NULL}};
static unsigned kept_next;
static cJSON *stable_map; /* identity -> id */
static double stable_next;

static char *block_identity(const cJSON *b)
{
    static const char *const parts[] = {"equations", "unknowns", "reads"};
    char *s = mdae_strdup("");
    for (size_t k = 0; k < 3 && s != NULL; k++) {
        char *a = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(b, parts[k]));
        char *n = a ? mdae_asprintf("%s|%s", s, a) : NULL;
        cJSON_free(a);
        mdae_free(s);
        s = n;
    }
    if (s == NULL)
        out_of_memory();
    return s;
}

/* A copy of the result with stable block ids (blocks sorted by id). */
static cJSON *with_stable_ids(const cJSON *json)
{
    if (stable_map == NULL && (stable_map = cJSON_CreateObject()) == NULL)
        out_of_memory();
    cJSON *out = cJSON_Duplicate(json, true);
    if (out == NULL)
        out_of_memory();
    cJSON *blocks = cJSON_GetObjectItemCaseSensitive(out, "blocks");
    int n = cJSON_GetArraySize(blocks);
    double *ids = mdae_calloc((size_t)n + 1, sizeof *ids);
    if (ids == NULL)
        out_of_memory();
    int k = 0;
    cJSON *b;
    cJSON_ArrayForEach(b, blocks)
    {
        char *key = block_identity(b);
        cJSON *have = cJSON_GetObjectItemCaseSensitive(stable_map, key);
        if (have == NULL) {
            have = cJSON_AddNumberToObject(stable_map, key, stable_next++);
            if (have == NULL)
                out_of_memory();
        }
        mdae_free(key);
        ids[k++] = have->valuedouble;
        cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(b, "id"), have->valuedouble);
    }
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(out, "edges"))
    {
        cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "from");
        cJSON *t = cJSON_GetObjectItemCaseSensitive(e, "to");
        if (cJSON_IsNumber(f) && f->valueint >= 0 && f->valueint < n)
            cJSON_SetNumberValue(f, ids[f->valueint]);
        if (cJSON_IsNumber(t) && t->valueint >= 0 && t->valueint < n)
            cJSON_SetNumberValue(t, ids[t->valueint]);
    }
    mdae_free(ids);
    /* Blocks by id: a simple insertion sort (detach and re-insert). */
    cJSON *sorted = cJSON_CreateArray();
    if (sorted == NULL)
        out_of_memory();
    while (cJSON_GetArraySize(blocks) > 0) {
        cJSON *best = NULL;
        int bi = 0, i = 0;
        cJSON_ArrayForEach(b, blocks)
        {
            double v = cJSON_GetObjectItemCaseSensitive(b, "id")->valuedouble;
            if (best == NULL || v < cJSON_GetObjectItemCaseSensitive(best, "id")->valuedouble) {
                best = b;
                bi = i;
            }
            i++;
        }
        cJSON_AddItemToArray(sorted, cJSON_DetachItemFromArray(blocks, bi));
    }
    cJSON_ReplaceItemInObjectCaseSensitive(out, "blocks", sorted);
    return out;
}

typedef char *(*key_fn)(const cJSON *item);

static char *key_whole(const cJSON *x)
{
    char *s = cJSON_PrintUnformatted(x);
    char *k = s ? mdae_strdup(s) : NULL;
    cJSON_free(s);
    if (k == NULL)
        out_of_memory();
    return k;
}

static char *key_id(const cJSON *x)
{
    char *k = mdae_asprintf("%.0f", cJSON_GetObjectItemCaseSensitive(x, "id")->valuedouble);
    if (k == NULL)
        out_of_memory();
    return k;
}

static char *key_edge(const cJSON *x)
{
    char *k = mdae_asprintf("%.0f>%.0f", cJSON_GetObjectItemCaseSensitive(x, "from")->valuedouble,
                            cJSON_GetObjectItemCaseSensitive(x, "to")->valuedouble);
    if (k == NULL)
        out_of_memory();
    return k;
}

static char *key_name(const cJSON *x)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(x, "name");
    char *k = mdae_strdup(cJSON_IsString(n) ? n->valuestring : "");
    if (k == NULL)
        out_of_memory();
    return k;
}

static const cJSON *find_keyed(const cJSON *arr, key_fn key, const char *k)
{
    const cJSON *x;
    cJSON_ArrayForEach(x, arr)
    {
        char *kx = key(x);
        bool same = strcmp(kx, k) == 0;
        mdae_free(kx);
        if (same)
            return x;
    }
    return NULL;
}

/* {"added", "removed", "changed"} of two keyed sets. removed_item builds
 * what "removed" lists for an old item (its key as JSON). */
static cJSON *diff_set(const cJSON *old, const cJSON *neu, key_fn key, bool with_changed,
                       cJSON *(*removed_item)(const cJSON *x))
{
    cJSON *d = cJSON_CreateObject();
    cJSON *add = cJSON_AddArrayToObject(d, "added");
    cJSON *rem = cJSON_AddArrayToObject(d, "removed");
    cJSON *chg = with_changed ? cJSON_AddArrayToObject(d, "changed") : NULL;
    if (d == NULL || add == NULL || rem == NULL || (with_changed && chg == NULL))
        out_of_memory();
    const cJSON *x;
    cJSON_ArrayForEach(x, neu)
    {
        char *k = key(x);
        const cJSON *o = find_keyed(old, key, k);
        mdae_free(k);
        if (o == NULL)
            cJSON_AddItemToArray(add, cJSON_Duplicate(x, true));
        else if (with_changed && !cJSON_Compare(o, x, true))
            cJSON_AddItemToArray(chg, cJSON_Duplicate(x, true));
    }
    cJSON_ArrayForEach(x, old)
    {
        char *k = key(x);
        if (find_keyed(neu, key, k) == NULL)
            cJSON_AddItemToArray(rem, removed_item(x));
        mdae_free(k);
    }
    return d;
}

static cJSON *rm_id(const cJSON *x)
{
    return cJSON_CreateNumber(cJSON_GetObjectItemCaseSensitive(x, "id")->valuedouble);
}

static cJSON *rm_edge(const cJSON *x)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "from", cJSON_GetObjectItemCaseSensitive(x, "from")->valuedouble);
    cJSON_AddNumberToObject(e, "to", cJSON_GetObjectItemCaseSensitive(x, "to")->valuedouble);
    return e;
}

static cJSON *rm_name(const cJSON *x)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(x, "name");
    return cJSON_CreateString(cJSON_IsString(n) ? n->valuestring : "");
}

static cJSON *rm_whole(const cJSON *x)
{
    return cJSON_Duplicate(x, true);
}

static cJSON *result_diff(const cJSON *old, const cJSON *neu, long since, long version)
{
    cJSON *d = cJSON_CreateObject();
    if (d == NULL)
        out_of_memory();
    cJSON_AddNumberToObject(d, "since", (double)since);
    cJSON_AddNumberToObject(d, "version", (double)version);
    static const struct {
        const char *member;
        key_fn key;
        bool changed;
        cJSON *(*rm)(const cJSON *);
    } sets[] = {{"blocks", key_id, true, rm_id},
                {"edges", key_edge, true, rm_edge},
                {"equations", key_name, true, rm_name},
                {"variables", key_name, true, rm_name},
                {"diagnostics", key_whole, false, rm_whole}};
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++)
        cJSON_AddItemToObject(d, sets[k].member,
                              diff_set(cJSON_GetObjectItemCaseSensitive(old, sets[k].member),
                                       cJSON_GetObjectItemCaseSensitive(neu, sets[k].member),
                                       sets[k].key, sets[k].changed, sets[k].rm));
    cJSON *members = cJSON_AddObjectToObject(d, "members");
    const cJSON *x;
    cJSON_ArrayForEach(x, neu)
    {
        bool is_set = false;
        for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++)
            is_set = is_set || strcmp(x->string, sets[k].member) == 0;
        if (is_set)
            continue;
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(old, x->string);
        if (o == NULL || !cJSON_Compare(o, x, true))
            cJSON_AddItemToObject(members, x->string, cJSON_Duplicate(x, true));
    }
    return d;
}

static void keep_version(long version, const cJSON *full)
{
    for (unsigned k = 0; k < KEEP_VERSIONS; k++)
        if (kept[k].version == version)
            return;
    struct kept *slot = &kept[kept_next++ % KEEP_VERSIONS];
    cJSON_Delete(slot->full);
    slot->full = cJSON_Duplicate(full, true);
    if (slot->full == NULL)
        out_of_memory();
    slot->version = version;
}

/* {method: "auto"|"implicit"|"enumeration"} (issue 10): how the parts
 * analysed anew are analysed; the result does not depend on it. */
static bool read_method(const cJSON *params)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(params, "method");
    static const int methods[] = {SA_METHOD_AUTO, SA_METHOD_IMPLICIT, SA_METHOD_ENUMERATE};
    inc_method = SA_METHOD_AUTO;
    if (m == NULL)
        return true;
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++)
        if (cJSON_IsString(m) && strcmp(m->valuestring, sa_method_name(methods[k])) == 0) {
            inc_method = methods[k];
            return true;
        }
    return false;
}

/* "parts": how each component was analysed (issue 10). */
static bool add_parts(cJSON *ru)
{
    cJSON *arr = cJSON_AddArrayToObject(ru, "parts");
    if (arr == NULL)
        return false;
    for (size_t k = 0; inc_res != NULL && k < inc_result_n_parts(inc_res); k++) {
        inc_part_info pi;
        if (inc_result_part(inc_res, k, &pi) < 0)
            continue;
        cJSON *o = cJSON_CreateObject();
        if (o == NULL || !cJSON_AddItemToArray(arr, o) ||
            !cJSON_AddNumberToObject(o, "equations", pi.equations) ||
            !cJSON_AddStringToObject(o, "method", sa_method_name(pi.method.method)) ||
            !cJSON_AddNumberToObject(o, "modes", pi.method.modes) ||
            !cJSON_AddBoolToObject(o, "fellBack", pi.method.fell_back) ||
            !cJSON_AddBoolToObject(o, "reused", pi.reused))
            return false;
    }
    return true;
}

static cJSON *m_analyze(const cJSON *id, const cJSON *params)
{
    const cJSON *stream = cJSON_GetObjectItemCaseSensitive(params, "stream");
    cJSON *err = NULL, *json = NULL;
    if (!read_method(params))
        return error_reply(id, MDAE_E_INVAL,
                           "method must be \"auto\", \"implicit\" or \"enumeration\"", NULL);
    inc_fresh = false;
    if (!analysed(id, cJSON_IsTrue(stream), &err))
        return err;
    int rc = analysis_json(&json);
    if (rc < 0)
        return analysis_error(id, rc, NULL);
    const cJSON *since = cJSON_GetObjectItemCaseSensitive(params, "since");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(params, "version");
    bool stable = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(params, "stableIds"));
    if (cJSON_IsNumber(since) || stable) {
        cJSON *full = with_stable_ids(json);
        long v = cJSON_IsNumber(version) ? (long)version->valuedouble : -1;
        keep_version(v, full);
        cJSON_Delete(json);
        json = full;
        if (cJSON_IsNumber(since)) {
            const cJSON *old = NULL;
            for (unsigned k = 0; k < KEEP_VERSIONS; k++)
                if (kept[k].version == (long)since->valuedouble)
                    old = kept[k].full;
            if (old == NULL) {
                cJSON_Delete(json);
                return error_reply(id, MDAE_E_STATE,
                                   "that version's result is not kept (only the last few "
                                   "analysed with since or stableIds are)",
                                   NULL);
            }
            cJSON *d = result_diff(old, json, (long)since->valuedouble, v);
            cJSON_Delete(json);
            json = d;
        }
    }
    if (cJSON_IsTrue(stream)) {
        /* The parts of the result as notifications before it (issue 5
         * section 3), each carrying the request's id: the engine builds them
         * as a whole, so they come after the progress, in report order. */
        static const struct {
            const char *member, *method;
        } parts[] = {{"diagnostics", "analysis/diagnostic"},
                     {"blocks", "analysis/block"},
                     {"edges", "analysis/edge"}};
        /* With since, only what the difference adds or changes (removals
         * are in the result). */
        bool diff = cJSON_IsNumber(since);
        for (size_t k = 0; k < sizeof parts / sizeof parts[0] * (diff ? 2 : 1); k++) {
            size_t pk = k % (sizeof parts / sizeof parts[0]);
            const cJSON *src = cJSON_GetObjectItemCaseSensitive(json, parts[pk].member);
            if (diff)
                src = cJSON_GetObjectItemCaseSensitive(
                    src, k < sizeof parts / sizeof parts[0] ? "added" : "changed");
            const cJSON *item;
            cJSON_ArrayForEach(item, src)
            {
                cJSON *p = cJSON_Duplicate(item, true);
                if (!cJSON_IsObject(p)) {
                    cJSON_Delete(p);
                    continue;
                }
                cJSON_DeleteItemFromObjectCaseSensitive(p, "id");
                if (strcmp(parts[pk].member, "blocks") == 0) /* keep the block's own id */
                    cJSON_AddNumberToObject(p, "block",
                                            cJSON_GetObjectItemCaseSensitive(item, "id")
                                                ? cJSON_GetObjectItemCaseSensitive(item, "id")
                                                      ->valuedouble
                                                : 0);
                cJSON_AddNumberToObject(p, "id", (double)current_wid);
                send_msg(rpc_notification_new(parts[pk].method, p));
            }
        }
    }
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(params, "reuse"))) {
        cJSON *ru = cJSON_AddObjectToObject(json, "reuse");
        if (ru == NULL || !cJSON_AddNumberToObject(ru, "components", (double)inc_last.components) ||
            !cJSON_AddNumberToObject(ru, "reused", (double)inc_last.reused) ||
            !cJSON_AddNumberToObject(ru, "recomputed", (double)inc_last.recomputed) ||
            !cJSON_AddNumberToObject(ru, "seeded", (double)inc_last.seeded) ||
            !cJSON_AddNumberToObject(ru, "searched", (double)inc_last.searched) ||
            !cJSON_AddNumberToObject(ru, "implicit", (double)inc_last.implicit) ||
            !cJSON_AddNumberToObject(ru, "enumerated", (double)inc_last.enumerated) ||
            !cJSON_AddNumberToObject(ru, "fellBack", (double)inc_last.fell_back) ||
            !add_parts(ru) || !cJSON_AddBoolToObject(ru, "analysed", inc_fresh))
            out_of_memory();
    }
    return rpc_response_result(id, json);
}

/* session/mode: the per-mode projection (`mdae mode --json`), from the kept
 * all-modes result, never a new single-mode analysis (issue 4). */
static cJSON *m_mode(const cJSON *id, const cJSON *params)
{
    const cJSON *mode_obj = cJSON_GetObjectItemCaseSensitive(params, "mode");
    cJSON *err = NULL, *json = NULL;
    if (!analysed(id, false, &err))
        return err;
    char why[200];
    bool *mode = mdae_calloc(model->n_modes + 1, sizeof *mode);
    int rc = rpc_json_mode_read(mode_obj, model, mode, why, sizeof why);
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
        rc = sa_result_mode(result, mode, &sv);
    if (rc == MDAE_OK)
        rc = cdg_graph_mode(graph, mode, &cv);
    if (rc == MDAE_OK)
        rc = rpc_json_mode(model, mode, &sv, graph, &cv, &json);
    cdg_mode_view_close(&cv);
    sa_mode_view_close(&sv);
    mdae_free(mode);
    if (rc == MDAE_E_NOMEM)
        out_of_memory();
    if (rc < 0)
        return analysis_error(id, rc, NULL);
    return rpc_response_result(id, json);
}

/* session/dot: the CDG in Graphviz DOT, as a JSON string. */
static cJSON *m_dot(const cJSON *id, const cJSON *params)
{
    cJSON *err = NULL;
    if (!analysed(id, false, &err))
        return err;
    char *dot = NULL;
    int rc = cdg_graph_dot(graph, &dot);
    if (rc == MDAE_E_NOMEM)
        out_of_memory();
    if (rc < 0)
        return analysis_error(id, rc, NULL);
    cJSON *s = cJSON_CreateString(dot);
    mdae_free(dot);
    return rpc_response_result(id, s);
}

/* ---- LSP diagnostics ----------------------------------------------------------------- */

/* LSP position: 0-based line, UTF-16 units from the start of the line. */
static cJSON *lsp_pos(const mdae_pos *p)
{
    cJSON *o = cJSON_CreateObject();
    uint32_t line = p->line ? p->line - 1 : 0;
    size_t units = 0;
    if (p->line != 0 && p->offset <= text_len && p->col >= 1 && p->col - 1 <= p->offset) {
        size_t start = p->offset - (p->col - 1);
        for (size_t i = start; i < p->offset;) {
            unsigned char b = (unsigned char)text[i];
            size_t n = b < 0x80           ? 1
                       : (b >> 5) == 6    ? 2
                       : (b >> 4) == 14   ? 3
                       : (b >> 3) == 30   ? 4
                                          : 1; /* a stray byte counts as one */
            units += n == 4 ? 2 : 1;
            i += n;
        }
    }
    cJSON_AddNumberToObject(o, "line", line);
    cJSON_AddNumberToObject(o, "character", (double)units);
    return o;
}

static void add_lsp_diag(cJSON *arr, const mdae_range *r, int severity, const char *msg)
{
    cJSON *d = cJSON_CreateObject();
    cJSON *range = cJSON_AddObjectToObject(d, "range");
    mdae_range rr = *r;
    if (rr.end.line == 0)
        rr.end = rr.start;
    cJSON_AddItemToObject(range, "start", lsp_pos(&rr.start));
    cJSON_AddItemToObject(range, "end", lsp_pos(&rr.end));
    cJSON_AddNumberToObject(d, "severity", severity);
    cJSON_AddStringToObject(d, "source", "mdae");
    cJSON_AddStringToObject(d, "message", msg);
    cJSON_AddItemToArray(arr, d);
}

static cJSON *m_diagnose(const cJSON *id, const cJSON *params)
{
    int rc = do_load(params);
    if (rc == MDAE_E_INVAL)
        return rpc_response_error(id, RPC_INVALID_PARAMS, "\"text\" is required", NULL);
    cJSON *arr = cJSON_CreateArray();
    if (rc == MDAE_OK) {
        mdae_diags ad;
        mdae_diags_init(&ad);
        sa_report *rep = NULL;
        int arc = ensure_analysis(false, &ad);
        if (arc == MDAE_OK)
            arc = sa_result_report(result, &rep);
        if (arc == MDAE_E_NOMEM)
            out_of_memory();
        if (arc == MDAE_OK) {
            for (size_t k = 0; k < rep->n_diagnostics; k++) {
                const sa_diagnostic *dg = &rep->diagnostics[k];
                bool over = dg->kind == SA_DIAG_OVERDETERMINED;
                if (over ? dg->index >= model->n_equations : dg->index >= model->n_variables)
                    continue;
                const mdae_range *where = over ? &model->equations[dg->index].where
                                               : &model->variables[dg->index].where;
                const char *nm = over ? model->equations[dg->index].name
                                      : model->variables[dg->index].name;
                char *msg = mdae_asprintf("structurally singular: %s %s is %s in the modes "
                                          "where %s",
                                          over ? "equation" : "variable", nm,
                                          over ? "overdetermined" : "underdetermined",
                                          dg->modes.formula ? dg->modes.formula : "false");
                add_lsp_diag(arr, where, 1, msg ? msg : "structurally singular");
                mdae_free(msg);
            }
        } else if (arc != MDAE_E_CANCELED) {
            mdae_range none = {{0, 0, 0}, {0, 0, 0}};
            char *msg = mdae_asprintf("analysis failed: %s", mdae_strerror(arc));
            add_lsp_diag(arr, &none, 2, msg ? msg : "analysis failed");
            mdae_free(msg);
        }
        sa_report_free(rep);
        mdae_diags_close(&ad);
    }
    for (size_t i = 0; i < model_diags.count; i++) {
        const mdae_diag *d = &model_diags.items[i];
        int sev = d->severity == MDAE_SEV_ERROR ? 1 : d->severity == MDAE_SEV_WARNING ? 2 : 3;
        add_lsp_diag(arr, &d->where, sev, d->message ? d->message : "");
    }
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "diagnostics", arr);
    return rpc_response_result(id, r);
}

/* ---- Debug methods (tests only) --------------------------------------------------------- */

static cJSON *m_crash(const cJSON *id, const cJSON *params)
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

static cJSON *m_alloc(const cJSON *id, const cJSON *params)
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

static cJSON *m_sleep(const cJSON *id, const cJSON *params)
{
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(params, "ms");
    bool ignore = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(params, "ignore_cancel"));
    if (!cJSON_IsNumber(ms) || ms->valuedouble < 0)
        return rpc_response_error(id, RPC_INVALID_PARAMS, "\"ms\" is required", NULL);
    uint64_t end = now_ms() + (uint64_t)ms->valuedouble;
    while (now_ms() < end) {
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
        if (!ignore && cancelled())
            return error_reply(id, MDAE_E_CANCELED, "request cancelled", NULL);
    }
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "slept_ms", ms->valuedouble);
    return rpc_response_result(id, r);
}

/* ---- Main loop ----------------------------------------------------------------------------- */

static void handle(const char *body, size_t len)
{
    rpc_parsed p;
    if (rpc_parse(body, len, &p) < 0 || p.batch)
        _exit(SRV_EXIT_PROTO); /* the router only sends what we understand */
    const rpc_msg *m = &p.msgs[0];
    if (m->kind != RPC_MSG_REQUEST) { /* a late cancel for a finished request */
        rpc_parsed_close(&p);
        return;
    }
    current_wid = cJSON_IsNumber(m->id) ? (uint64_t)m->id->valuedouble : 0;
    current_cancelled = false;
    cJSON *reply;
    const char *meth = m->method;
    if (strcmp(meth, "load") == 0)
        reply = m_load(m->id, m->params);
    else if (strcmp(meth, "analyze") == 0)
        reply = m_analyze(m->id, m->params);
    else if (strcmp(meth, "mode") == 0)
        reply = m_mode(m->id, m->params);
    else if (strcmp(meth, "dot") == 0)
        reply = m_dot(m->id, m->params);
    else if (strcmp(meth, "diagnose") == 0)
        reply = m_diagnose(m->id, m->params);
    else if (wopts.debug_methods && strcmp(meth, "debug/crash") == 0)
        reply = m_crash(m->id, m->params);
    else if (wopts.debug_methods && strcmp(meth, "debug/alloc") == 0)
        reply = m_alloc(m->id, m->params);
    else if (wopts.debug_methods && strcmp(meth, "debug/sleep") == 0)
        reply = m_sleep(m->id, m->params);
    else
        reply = rpc_response_error(m->id, RPC_METHOD_NOT_FOUND, "unknown worker method", NULL);
    send_msg(reply);
    rpc_parsed_close(&p);
    current_wid = 0;
}

int srv_worker_main(const srv_worker_opts *o)
{
    wopts = *o;
    signal(SIGPIPE, SIG_IGN);
    if (o->memory_mb > 0) {
        mem_cap = o->memory_mb * 1024 * 1024;
#ifndef SRV_ASAN
        struct rlimit rl;
        rl.rlim_cur = rl.rlim_max = (rlim_t)o->memory_mb * 1024 * 1024 + (64u << 20);
        /* +64 MiB: the binary, its libraries and stacks are not the model's */
        if (setrlimit(RLIMIT_AS, &rl) < 0)
            MDAE_LOG(SRV_LOG_WARN, "worker: setrlimit(RLIMIT_AS): %s", strerror(errno));
#endif
    }
    mdae_allocator a = {cm_malloc, cm_realloc, cm_calloc, cm_free};
    mdae_replace_allocator(&a);
    rpc_message_init();
    rpc_json_init();
    mdae_diags_init(&model_diags);
    rpc_framer_init(&in_fr, SRV_WORKER_MAX_IN);
    rpc_framer_set_framing(&in_fr, RPC_FRAMING_LSP);

    sa_config cfg;
    sa_config_default(&cfg);
    if (o->node_limit)
        cfg.node_limit = o->node_limit;
    if (o->initial_nodes)
        cfg.initial_nodes = o->initial_nodes;
    if (o->cache_size)
        cfg.cache_size = o->cache_size;
    int rc = sa_begin(&cfg);
    if (rc < 0) {
        MDAE_LOG(SRV_LOG_ERROR, "worker: cannot start BuDDy: %s", mdae_err_name(rc));
        return 1;
    }
    for (;;) {
        while (q_head == NULL && !in_eof)
            pump(-1);
        if (q_head == NULL)
            break; /* the router closed our stdin: stop */
        qmsg *m = q_head;
        q_head = m->next;
        if (q_head == NULL)
            q_tail = NULL;
        handle(m->body, m->len);
        mdae_free(m->body);
        mdae_free(m);
    }
    unload();
    inc_session_free(inc_sess); /* before sa_end: its parts hold BDDs */
    for (unsigned k = 0; k < KEEP_VERSIONS; k++)
        cJSON_Delete(kept[k].full);
    cJSON_Delete(stable_map);
    mdae_diags_close(&model_diags);
    sa_end();
    rpc_framer_close(&in_fr);
    return 0;
}
