/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/worker/wk.h -- the worker process (`mdaed --worker`): one session's
 * BuDDy manager, model and analysis, driven by the router over stdin/stdout
 * (JSON-RPC, Content-Length framing). A program of its own that shares the
 * mdaed binary; nothing of the event loop runs here.
 *
 * Why a separate process: BuDDy's state is global to a process, so
 * per-session managers mean per-session processes; that also isolates
 * crashes and lets the kernel enforce a memory cap (issue 5 section 1).
 *
 * Files: wk_main.c is the process (counting allocator, pipe, the loop that
 * runs one request at a time, cancellation); wk_methods.c holds the state
 * of the session's model and analysis and the method handlers, with the
 * method table; wk_svg.c renders the graph with Graphviz; wk_approx.c
 * runs what single-mode tools do (session/approx, the editor's warnings); wk_rimis.c the
 * mode-independent model (session/rimis). Every piece of state is in the one wk_state; the only
 * file-scope state left is the allocator's byte count, because
 * mdae_allocator's functions take no context.
 *
 * The process has no event loop: it blocks on stdin between requests, runs
 * one request at a time, and looks at stdin again only between analysis
 * steps (the sa_options.progress callback, wk_cancelled) to see
 * `$/cancelRequest`.
 *
 * Memory: RLIMIT_AS caps the whole process (not under AddressSanitizer, which
 * reserves terabytes of address space), and the mdae allocator counts bytes
 * against the same cap. Running out of memory ends the process with
 * SRV_EXIT_NOMEM (Redis's choice, STYLE.md section 8): the router reports the
 * cap to the client and restarts the worker from the kept text on next use.
 * So handlers never see MDAE_E_NOMEM from mdae_malloc (wk_oom() is for the
 * codes that engine and protocol calls return).
 *
 * Methods (router to worker), the replies being JSON-RPC responses, built
 * with rpc_response_* for the request's id (a number), maybe with "stats"
 * added, and printed by wk_send with rpc_print: the shape the router reads
 * without parsing the result (protocol/rpc_relay.h; keep the two in step):
 *   load {text, defines?, name?, recover?}
 *                                  -> {summary:{counts, diagnostics}} or the
 *                                     model error with data.diagnostics;
 *                                     with recover (issue 36 item 2), syntax
 *                                     errors leave out their statements and
 *                                     the summary adds leftOut and
 *                                     syntaxErrors (rpc_json_add_left_out),
 *                                     as the analysis result then does;
 *                                     failed {rc, limit, value, message}
 *                                     (also in diagnose's params): the
 *                                     router saw a worker killed at that
 *                                     limit analysing this text, so it is
 *                                     kept as the analysis's failure at
 *                                     once and no analysis runs
 *                                     (srv_queue.limited, issue 36)
 *   analyze {stream, streamItems?, version, method?, since?, stableIds?}
 *                                  -> the rpc_json_analysis JSON (`mdae
 *                                     analyze --json`); with stableIds or
 *                                     since, stable block ids; with since,
 *                                     the difference from that kept version
 *                                     (protocol/rpc_diff.h). When streaming,
 *                                     analysis/progress {phase,done,total}
 *                                     first (the first report, then at most
 *                                     one every 50 ms), then
 *                                     analysis/diagnostic,
 *                                     analysis/block (the block's id is
 *                                     "block": "id" is the request's) and
 *                                     analysis/edge, one per entry (with
 *                                     since, only added and changed ones;
 *                                     with streamItems false, no block or
 *                                     edge notifications).
 *                                     The response carries, next to the
 *                                     result, "stats":{"analysed": bool,
 *                                     "reuse":{components, reused,
 *                                     recomputed, seeded, searched,
 *                                     implicit, enumerated, fellBack,
 *                                     parts}}: the router sums it for
 *                                     server/status. method (issue 10):
 *                                     "auto", "implicit" or "enumeration",
 *                                     how parts analysed anew are analysed.
 *                                     modechanges: true (issue 13 item 7):
 *                                     then every mode change, streamed as
 *                                     analysis/modechange, summed up in
 *                                     result.modechanges
 *                                     (wk_modechanges_summary).
 *                                     Without stream, since, stableIds and
 *                                     modechanges, and with no report tree
 *                                     kept, the response is written as it
 *                                     is produced (issue 40 item 2: no tree
 *                                     built; the text spooled in chunks for
 *                                     the Content-Length, sent only whole:
 *                                     a failure part-way is an error
 *                                     response), the same bytes.
 *                                     An analysis that fails answers an error
 *                                     with data.diagnostics and, at a stated
 *                                     limit, data.limit (rpc_json_limit); the
 *                                     failure is kept until the next load
 *                                     (analysis_rc), so every method below
 *                                     that needs the analysis answers it at
 *                                     once.
 *   mode {mode}                    -> rpc_json_mode (`mdae mode --json`)
 *   approx {}                      -> rpc_json_approx (`mdae approx --json`),
 *                                     built once per analysed version
 *                                     (wk_approx.c); the router adds the
 *                                     session's "version"
 *   rimis {guard?}                 -> rpc_json_rimis (`mdae rimis --json`),
 *                                     built once per analysed version and
 *                                     guard setting (wk_rimis.c); the
 *                                     router adds the session's "version"
 *   diagnose {text, defines?, name?, modeChanges?, progress?}
 *                                  -> {diagnostics:[LSP Diagnostic]}: load
 *                                     (always with recover: the model's
 *                                     errors come first, then what the
 *                                     analysis of the rest says),
 *                                     then singular-mode diagnostics and,
 *                                     unless modeChanges is false, those of
 *                                     mode changes (wk_modechange_diags),
 *                                     else modeChangesLeft: true when the
 *                                     model was analysed and has mode
 *                                     variables (diagnose/modeChanges then
 *                                     checks them); when the model
 *                                     analysed, the approximate analysis's
 *                                     warnings too (wk_approx_diags, before
 *                                     the mode changes'); with progress, the
 *                                     analysis's
 *                                     analysis/progress notifications first
 *                                     (load and diagnose also take
 *                                     positionEncoding: "utf-8"; UTF-16
 *                                     otherwise)
 *                                     approx: false leaves the approximate
 *                                     analysis's warnings out, and the
 *                                     result then says approxLeft: true
 *                                     when the model analysed (the
 *                                     editor's, issue 40 item 5); the
 *                                     analysis's dependency graph is not
 *                                     made (inc_analyze_offsets)
 *   diagnose/modeChanges {approx?, modeChanges?}
 *                                  -> {diagnostics:[LSP Diagnostic]}: the
 *                                     graph diagnose left made first
 *                                     (wk_graph_diags), with
 *                                     approx true the approximate
 *                                     analysis's warnings, then, unless
 *                                     modeChanges is false, those of
 *                                     mode changes, of what the last
 *                                     diagnose loaded and analysed (the
 *                                     editor's second publication, issue 36)
 *   lsp/hover, lsp/symbols, lsp/definition, lsp/references, lsp/codeLens
 *                                  -> the LSP results (wk_lsp.c)
 *   and the methods of SRV_FORWARDED_METHODS (server/srv_methods.h) under
 *   their client names: session/dot (the CDG as DOT, a JSON string),
 *   session/svg (the same graph laid out by Graphviz, as SVG text: wk_svg.c),
 *   debug/analyses (the analyses, approximate analyses and RIMIS the worker
 *   started: tests count them),
 *   debug/crash {signal?}, debug/alloc {mb}, debug/sleep {ms,
 *   ignore_cancel?}, debug/frames {frames?, raw?} (wk_m_frames: frames as
 *   a broken worker might send them) (the debug ones only with
 *   --debug-methods).
 */
#ifndef WK_H
#define WK_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "cdg.h"
#include "inc.h"
#include "mel.h"
#include "mel_outline.h"
#include "rpc_lsp.h"
#include "rpc_diff.h"
#include "rpc_json.h"
#include "rpc_framer.h"
#include "sa.h"
#include "srv.h"

/* Results kept for session/analyze {since} (the last few analysed with since
 * or stableIds). */
#define WK_KEEP_VERSIONS 4

typedef struct wk_msg { /* a frame read ahead of its turn */
    char *body;         /* owned */
    size_t len;
    uint64_t cancels; /* the worker request id it cancels; 0: not a cancellation */
    struct wk_msg *next;
} wk_msg;

/* The last version whose model analysed (issue 36 item 2): what the
 * editor's questions answer from while the current text cannot be analysed
 * at all (wk_lsp.c). Taken from the state by a load whose model then fails
 * (wk_methods.c, load), kept through later failing loads, and released by
 * the first load that succeeds (no analysis runs while it is kept, so the
 * inc_result's borrowed names stay valid). The fields mirror wk_state's, so
 * that wk_lsp.c can swap them in for one request. */
typedef struct wk_good {
    char *text; /* owned */
    size_t text_len;
    bool modelica;
    int model_rc;          /* MDAE_OK when kept */
    mel_model *model;      /* owned */
    mel_outline *outline;  /* owned, or NULL (built on use) */
    int outline_rc;
    inc_result *inc_res;   /* owned; result and graph borrowed from it */
    sa_result *result;
    cdg_graph *graph;
    cJSON *cached_report;  /* owned, built on use */
    cJSON *prev_report;    /* always NULL: nothing to reuse */
    uint64_t cached_serial, prev_serial; /* wk_state's: swapped with the trees */
    uint64_t load;         /* wk_state.loads when that text was loaded */
} wk_good;

typedef struct wk_state {
    srv_worker_opts opts;
    /* The pipe from the router (wk_main.c). */
    rpc_framer in;
    wk_msg *q_head, *q_tail;
    bool in_eof;
    uint64_t current_wid; /* the running request's id; 0 between requests */
    bool current_cancelled;
    uint64_t current_start_ms; /* when the running request was read */
    bool replied; /* the running request's handler sent its response itself */
    uint64_t polled_ms; /* wk_now_ms of the last look at stdin (wk_cancelled) */
    /* The loaded model (wk_methods.c). */
    char *text; /* owned */
    size_t text_len;
    char *text_name; /* owned: FILE in FILE:LINE:COL */
    mel_model *model;
    size_t model_shared; /* its equations whose sides the previous version's
                            model lent (mel_options.since; reuse stats) */
    bool modelica;       /* the text was read as Modelica */
    rpc_lsp_enc enc;     /* LSP positions: load's positionEncoding (issue 15) */
    mel_outline *outline; /* the text's outline, built on first use (wk_lsp.c) */
    int outline_rc;       /* why there is none (MDAE_OK: not built yet) */
    int model_rc; /* why the model cannot be analysed (MDAE_E_STATE: none loaded) */
    mdae_diags model_diags;
    /* Its analysis. Incremental (engine/inc.h, issue 6): the session's cache
     * lives as long as the worker, across loads and edits; result and graph
     * are borrowed from inc_res (inc_result_whole): with one connected
     * component its part is reused when the structure did not change; with
     * several, only the components an edit touched are analysed again and
     * the whole is composed from the parts. Either way the JSON is exactly
     * the cold one. */
    inc_session *inc_sess;
    /* The model of the session's last analysis that succeeded (a token:
     * compared by pointer, read only through inc_since), and that model
     * once the worker let go of it (owned: alive for the next analysis,
     * which compares what the edit left alone by pointer,
     * inc_session_since; then freed after the reply, late_since). Every
     * other model the worker frees goes through model_release
     * (wk_methods.c), so the token is never a freed model's address. inc_since is NULL or
     * inc_model. */
    const mel_model *inc_model;
    mel_model *inc_since;
    mel_model *late_since;
    inc_result *inc_res;
    sa_result *result;   /* borrowed from inc_res, or NULL */
    cdg_graph *graph;    /* borrowed from inc_res, or NULL */
    cJSON *cached_report; /* the analysis JSON (owned) */
    /* What a single-mode tool makes of it (issue 38, wk_approx.c): the
     * session/approx result, built on first use and dropped with the
     * analysis, so one approximate analysis per analysed version (owned). */
    cJSON *cached_approx;
    /* The approximate analysis itself (owned, dropped with the analysis):
     * the editor's warnings read its first findings, the JSON above is
     * built from it only when session/approx asks (24 MB for the brake at
     * N = 10,000, built on every edit for 20 warnings). */
    struct ap_report *approx_rep;
    /* What a load dropped and wk_after_reply frees, after the response has
     * gone (issue 40 item 5: the editor's first diagnostics do not wait for
     * an older version's memory to be freed): the approximate analysis and
     * its JSON (owned), and the incremental cache's trim (trim_due:
     * inc_session_trim after an inc_analyze_offsets). */
    struct ap_report *late_approx_rep;
    cJSON *late_approx;
    bool trim_due;
    /* And what a since request drops (issue 40 item 5: freeing them was
     * 24 M instructions and ~50 ms of cache misses before its reply): the
     * report and graph report a tree was made of, the keys before, what is
     * left of the tree before, a kept digest evicted (owned; wk_late_*). */
    sa_report *late_rep;
    cdg_report *late_crep;
    cdg_report_keys *late_keys;
    cJSON *late_tree;
    rpc_digest *late_digest;
    /* The session/rimis results (issue 39, wk_rimis.c), [0] unguarded and
     * [1] guarded, built on first use and dropped with the analysis
     * (owned). */
    cJSON *cached_rimis[2];
    /* The JSON of the analysis before (owned), until the next one is
     * built: what did not change is taken from it (rpc_json_analysis_reusing:
     * an edit of the brake at N = 100 builds one railcar's items). */
    cJSON *prev_report;
    /* Which tree is which (issue 40 item 5): cached_report's and
     * prev_report's serials (trees counts those built; 0: no tree), and
     * what rpc_json_analysis_taking took from the tree taken_from for the
     * tree taken_for, so that a since request's digest of taken_for takes
     * the taken items' hashes from the kept digest of taken_from
     * (wk_kept.tree), never from another tree's. */
    uint64_t trees, cached_serial, prev_serial, taken_for, taken_from;
    rpc_taken taken;
    /* What the items of the report the tree of serial keys_tree was made of
     * are functions of (engine/cdg_report_keys.h; owned, NULL: none): the next
     * report over that tree as prev_report computes only the items whose
     * keys changed and takes the others from the tree unseen (issue 40
     * item 3). */
    cdg_report_keys *keys;
    uint64_t keys_tree;
    /* Per equation of the loaded model, whether its body (at any order) is
     * the one the tree of serial body_tree gave it (owned, n_body_same
     * long; NULL: none known): its sides shared with that tree's model
     * (mel_options.since), the mode variables defined alike (wk_methods.c,
     * bodies_same). wk_report then keeps those bodies of the blocks it
     * takes from that tree (rpc_json_add_bodies_keeping). */
    bool *body_same;
    size_t n_body_same;
    uint64_t body_tree;
    /* The loaded text's analysis that failed (issue 36): its code, the
     * method it ran with and its diagnostics, kept until the next load, so
     * that no later question runs it again (analysis_rc MDAE_OK: none
     * failed). A cancelled analysis is not a result and is not kept. */
    int analysis_rc;
    int analysis_method;
    mdae_diags analysis_diags;
    unsigned long analyses; /* analyses this worker started (debug/analyses) */
    unsigned long approximations; /* approximate analyses built (wk_approx.c; the same) */
    unsigned long rimis_builds;   /* RIMIS constructions run (wk_rimis.c; the same) */
    inc_stats inc_last;   /* reuse of the last analysis */
    int method;           /* sa_options.method of the next analysis (issue 10) */
    bool inc_fresh;       /* the current request ran that analysis */
    /* Results kept for since, with the engine's stable block ids
     * (inc_result_whole_ids). A restarted worker starts a new incremental
     * session, hence new ids; the versions it kept are gone too, so since
     * then fails cleanly. */
    struct wk_kept {
        long version;      /* -1: empty */
        rpc_digest *digest; /* owned, detached (rpc_diff.h) */
        uint64_t tree;      /* the serial of the tree it was built over */
    } kept[WK_KEEP_VERSIONS];
    unsigned kept_next;
    uint64_t loads; /* texts loaded so far: "N edits ago" */
    wk_good good;   /* the last version that analysed, while this one does not */
    /* > 0 while wk_lsp.c answers from `good` (its fields swapped in): how
     * many loads ago that version was. */
    uint64_t stale;
} wk_state;

/* A method: the response to send (a whole JSON-RPC response for id), or
 * NULL after setting w->replied when it wrote the response itself (a
 * result written as it is produced: session/analyze, issue 40). */
typedef cJSON *wk_method_fn(wk_state *w, const cJSON *id, const cJSON *params);

/* ---- wk_main.c ---------------------------------------------------------------- */
/* The worker process's main (mdaed --worker); returns the exit status. */
int wk_main(const srv_worker_opts *o);
/* Send one message to the router (takes ownership; NULL means out of memory). */
void wk_send(wk_state *w, cJSON *msg /* takes */);
/* Write n bytes to the router (ends the process when the router is gone). */
void wk_write(const char *p /* borrowed */, size_t n);
/* True when the running request has been cancelled (or the router is gone).
 * Reads stdin without waiting, once per millisecond at most (the engine's
 * callbacks ask far more often: a poll each time cost the editor's
 * mode-change check a third of its time, issue 36); other messages stay
 * queued. */
bool wk_cancelled(wk_state *w);
/* End the process as out of memory (SRV_EXIT_NOMEM). */
_Noreturn void wk_oom(void);
uint64_t wk_now_ms(void);

/* ---- wk_methods.c --------------------------------------------------------------- */
void wk_state_init(wk_state *w, const srv_worker_opts *o);
/* After each response is sent (wk_main.c): free what the request left for
 * later (wk_state.late_approx_rep, trim_due). */
void wk_after_reply(wk_state *w);
void wk_state_close(wk_state *w); /* before sa_end: the cache holds BDDs */
/* Loaded and analysed (analysing now if needed), or an error response in
 * *err. */
bool wk_analysed(wk_state *w, const cJSON *id, bool stream, cJSON **err);
/* The dependency graph of offsets that "diagnose" found (it publishes
 * without the graph, issue 40 item 5), made now: at the start of the
 * check's second stage, so that the editor's questions after it find it
 * made. A failure (a limit of the graph; not a cancel) appends its
 * diagnostics to arr, located as diagnose locates an analysis's, and is
 * kept as the analysis's failure. Nothing without offsets. */
void wk_graph_diags(wk_state *w, cJSON *arr /* borrowed: appended to */);
/* The analysis JSON of the loaded model once wk_analysed: MDAE_OK with *out
 * borrowed (valid until the next load; built once, then kept), or the
 * engine's code. */
int wk_report(wk_state *w, const cJSON **out /* out: borrowed */);
/* The loaded model's graph, analysing it first if needed: MDAE_OK with
 * *graph borrowed (valid until the next load), or an error response in
 * *err. */
bool wk_graph(wk_state *w, const cJSON *id, cdg_graph **graph, cJSON **err);
/* The loaded model, without analysing it: true with *model borrowed (valid
 * until the next load), or false with an error response in *err (no model,
 * or the model's errors, as session/mode reports them). */
bool wk_model(wk_state *w, const cJSON *id, const mel_model **model, cJSON **err);
/* Append an LSP Diagnostic at r (a source range of the loaded text) to
 * arr, in the load's position encoding. */
void wk_lsp_diag(const wk_state *w, cJSON *arr /* borrowed */, const mdae_range *r, int severity,
                 const char *msg /* borrowed */);
/* A cold all-modes analysis of the loaded model itself and its graph, once
 * wk_analysed (engine/inc.h's result may be of a copy of the model, which
 * rimis_build refuses): sa_analyze seeded by the kept analysis (only
 * faster), cdg_build, with the request's cancellation and time budget.
 * MDAE_OK with *r and *g new (cdg_graph_free, sa_result_free), else the
 * engine's code (MDAE_E_TIMEOUT with a diagnostic naming the limit) and
 * the diagnostics in ad. Not kept. */
int wk_analyse_whole(wk_state *w, sa_result **r /* out */, cdg_graph **g /* out */,
                     mdae_diags *ad);
/* An error's data for diagnostics d of the loaded text: {"diagnostics":
 * rpc_json_diags, "messages": ["FILE:LINE:COL: error: ..."]}, as a model
 * with errors is answered (new; ends the process on out of memory). */
cJSON *wk_diags_details(const wk_state *w, const mdae_diags *d);
/* Release g's contents (w->good's, or one taken from w; before sa_end: it
 * may hold BDDs). */
void wk_good_free(wk_state *w, wk_good *g);
/* The handler of `method`, or NULL (unknown, or a debug method without
 * --debug-methods). */
wk_method_fn *wk_method_find(const wk_state *w, const char *method);

wk_method_fn wk_m_dot, wk_m_structure, wk_m_crash, wk_m_alloc, wk_m_sleep, wk_m_frames,
    wk_m_analyses;
/* The kept failure of the loaded text's analysis (see analysis_rc), or
 * NULL: its diagnostic that names a stated limit when it has one, else its
 * first. *rc (may be NULL) gets its code. */
const mdae_diag *wk_failure(const wk_state *w, int *rc /* out */);

/* ---- wk_lsp.c (issue 15): the editor's questions, answered from the kept
 * model, outline and analysis; params {position?, includeDeclaration?},
 * results as the LSP spec's (Hover, DocumentSymbol[], Location[],
 * CodeLens[]), positions in the load's encoding. When the current text
 * does not analyse (or, for symbols, definition and references, has no
 * outline), from w->good, marked (issue 36 item 2). */
wk_method_fn wk_m_hover, wk_m_symbols, wk_m_definition, wk_m_references, wk_m_code_lens;

/* ---- wk_approx.c (issue 38 item 6): what a single-mode tool does ----------------- */
/* session/approx {}: the approximate analysis of engine/ap.h as
 * rpc_json_approx gives it, for the loaded model once analysed (the
 * analysis's error otherwise). */
wk_method_fn wk_m_approx;
/* The approximate analysis's JSON once wk_analysed: MDAE_OK with *out
 * borrowed (valid until the analysis is dropped; built once per analysed
 * version, then kept in w->cached_approx), or the engine's code. */
int wk_approx(wk_state *w, const cJSON **out /* out: borrowed */);
/* Drop this analysis's approximate analysis and its JSON (forget_analysis). */
void wk_approx_forget(wk_state *w);
/* Its findings as LSP warnings appended to arr, each at its equation (or
 * unknown) in the load's encoding: the pivot that is zero in some modes,
 * the states the modes need, the modes the tool accepts though they are
 * singular; at most WK_APPROX_DIAGS, then one summary. Nothing when the
 * approximate analysis fails (its failure is not the editor's business:
 * the exact analysis's diagnostics say what is wrong). Needs the analysis
 * (w->result). */
void wk_approx_diags(wk_state *w, cJSON *arr /* borrowed: appended to */);
#define WK_APPROX_DIAGS 20

/* ---- wk_rimis.c (issue 39): the mode-independent model ------------------------- */
/* session/rimis {guard?: bool (true)}: rpc_json_rimis of the loaded model
 * once analysed (the analysis's error otherwise), built once per analysed
 * version and guard setting; a model RIMIS cannot represent is an
 * MDAE_E_MODEL error with wk_diags_details of why; -32602 for a guard that
 * is not a boolean. */
wk_method_fn wk_m_rimis;

/* ---- wk_svg.c ------------------------------------------------------------------- */
wk_method_fn wk_m_svg;

/* ---- wk_modechange.c ------------------------------------------------------------ */
wk_method_fn wk_m_modechange, wk_m_modechanges, wk_m_modechange_diags;
/* session/analyze {modechanges: true}: every change of the loaded model by
 * enumeration (mc_all_enumerate_each), one analysis/modechange notification
 * per pair when streaming (the entry of session/modechanges's "changes",
 * plus "diagnostics" for a rejected one). MDAE_OK with *out new (owned):
 * session/modechanges's result without "changes" and "equations"; past the
 * enumeration's limits, every instant of every change on BDDs as
 * session/modechanges {first, instants} gives it, less the erasures, plus
 * "enumerationSkipped": why (no notification per pair then); {"skipped":
 * why} for a model without mode variables or that the BDD path refuses
 * too; MDAE_E_CANCELED when the request was cancelled (then *out is
 * untouched). */
int wk_modechanges_summary(wk_state *w, bool stream, cJSON **out /* out: owned */);
/* The LSP diagnostics of mode changes of the loaded model, appended to arr:
 * its guard fixpoints (errors, on the definition's use of the variable);
 * when it has none and is within the enumeration's limits, its rejected
 * changes (warnings on the failing instant's underdetermined values or
 * overdetermined equations, else on what mc_change locates), grouped by
 * reason and place, at most 20 then one summary; past the limits, one hint
 * saying they were not checked. Nothing for a model without mode variables
 * or when cancelled. */
void wk_modechange_diags(wk_state *w, cJSON *arr /* borrowed: appended to */);

#endif /* WK_H */
