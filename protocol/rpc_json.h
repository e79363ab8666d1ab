/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_json.h -- the JSON form of the front-end's flat structure
 * (mel_model), of an analysis report (sa_report) and of diagnostics.
 *
 * Why: `mdae structure --json`, `mdae analyze --json` and the server's
 * replies must print the very same JSON, so it is built in one place. The
 * shapes are the wire contract (issue 2 section 5, issue 3 section 7); they
 * are documented next to each encoder below and only ever grow (new fields),
 * never change.
 *
 * Promises: pure data conversion; no I/O, no logging, no BuDDy. It reads
 * engine/mel.h, engine/sa.h and engine/cdg.h structures as plain data only
 * (the agreed exception to the layering rule; the engine calls are
 * cdg_graph_block(), an array lookup, and fx_body_format(), the pure
 * printing of a differentiated equation). Reentrant once rpc_json_init()
 * has run.
 *
 * Errors: MDAE_OK, MDAE_E_NOMEM (cJSON could not allocate; nothing is leaked
 * and *out is untouched), MDAE_E_INVAL (NULL argument, or a report whose
 * diagnostic points past its equation/variable arrays).
 *
 * Ownership: every encoder returns a new cJSON tree in *out, owned by the
 * caller until attached to a parent (cJSON_Delete otherwise). The inputs are
 * borrowed for the call only: the tree holds copies of every string.
 *
 * Common pieces:
 *   position  {"line":L,"col":C,"offset":O}     (1-based line/col in bytes,
 *                                                0-based byte offset)
 *   range     {"start":position,"end":position} (end exclusive)
 *   cube      {"g1":true,"g2":false}            (a mode variable absent from
 *                                                the object is don't-care; {}
 *                                                is every mode)
 *   set       "guard":"<formula>","cubes":[cube...] (two members of the
 *                                                enclosing object)
 */
#ifndef RPC_JSON_H
#define RPC_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "mdae.h"
#include "mel.h"
#include "sa.h"
#include "cdg.h"
#include "cdg_family.h"
#include "cdg_report_keys.h"
#include "mc.h"
#include "ap.h"
#include "rpc_jwriter.h"

/* Point cJSON at mdae_malloc/mdae_free (cJSON_InitHooks), so that tests that
 * make allocations fail reach cJSON too, and so that strings printed by
 * cJSON are released with mdae_free. Call once at start-up, before threads;
 * calling it again does nothing. The encoders below call it too (so a
 * forgotten call is harmless in single-threaded programs). */
MDAE_API void rpc_json_init(void);

/* The size of a model, as `mdae check --json` and session/open's summary
 * give it: {"equations","variables","modeVariables","incidences",
 * "invariants","parameters","integers"} (numbers). */
MDAE_API int rpc_json_counts(const mel_model *m /* borrowed */, cJSON **out /* out: owned */);

/* The flat structure of a model (`mdae structure --json`):
 *   {"modeVariables":[{"name":"g1","line":L,"col":C}...],
 *    "invariants":[{"guard":"<formula>","line":L,"col":C}...],
 *    "equations":[{"name":"K1","guard":"<formula>","range":range,
 *                  "incidences":[{"variable":"x",
 *                                 "cases":[{"order":1,"guard":"<formula>",
 *                                           "line":L,"col":C}...]}...]}...],
 *    "variables":[{"name":"x","guard":"<formula>","line":L,"col":C}...],
 *    "counts":{"equations":n,"variables":n,"modeVariables":n,
 *              "incidences":n,"invariants":n,"parameters":n,"integers":n}}
 * Formulas are mel_guard_format()'s. Arrays are in model order. */
MDAE_API int rpc_json_structure(const mel_model *m /* borrowed */,
                                cJSON **out /* out: owned */);

/* An analysis report (`mdae analyze --json`, the server's analyze result):
 *   {"modeVariables":["g1",...], "validModes":<number>,
 *    "status":"nonsingular"|"singular",
 *    "singular":{"guard":"<formula>","cubes":[cube...]},
 *    "equations":[{"name":"K1","guard":..,"cubes":[..],
 *                  "offset":[{"value":c,"guard":..,"cubes":[..]}...]}...],
 *    "variables":[{"name":"x","guard":..,"cubes":[..],
 *                  "offset":[{"value":d,"guard":..,"cubes":[..]}...]}...],
 *    "diagnostics":[{"kind":"overdetermined","equation":"e3","guard":..,"cubes":[..]},
 *                   {"kind":"underdetermined","variable":"x2","guard":..,"cubes":[..]}]}
 * "singular" is always present ("false" and no cubes when nonsingular).
 * validModes is a JSON number (a double: exact up to 2^53). */
MDAE_API int rpc_json_report(const sa_report *rep /* borrowed */,
                             cJSON **out /* out: owned */);

/* A set of modes as a JSON array of cubes (see above): cubes is n_cubes rows
 * of n_modes values 1/0/-1, names[k] names mode variable k. Exposed for
 * later per-mode and server replies. */
MDAE_API int rpc_json_cubes(uint32_t n_modes, const char *const *names /* borrowed */,
                            size_t n_cubes, const signed char *cubes /* borrowed */,
                            cJSON **out /* out: owned */);
/* The same array for the cubes of s, a set over n_modes mode variables
 * named by names (its window of rows, sa.h): MDAE_E_INVAL if the window
 * passes n_modes. */
MDAE_API int rpc_json_set_cubes(uint32_t n_modes, const char *const *names /* borrowed */,
                                const sa_set *s /* borrowed */, cJSON **out /* out: owned */);

/* Diagnostics as an array:
 *   [{"severity":"error"|"warning"|"note","message":"...","range":range}...]
 * "range" is omitted for diagnostics without a location (line 0). When some
 * diagnostics were dropped (d->dropped > 0), a last entry
 * {"severity":"note","message":"N more diagnostics not shown"} says so. */
MDAE_API int rpc_json_diags(const mdae_diags *d /* borrowed */,
                            cJSON **out /* out: owned */);
/* A diagnostic that reports a stated limit (issue 36; dg->limit set) also
 * carries "limit": what rpc_json_limit gives, and rpc_json_diags's entries
 * have it. {"setting": the limit's name (its mdaed.json key, else the
 * engine's constant), "value": N, "configKey": key or null, "flag": the
 * mdae option or null, "unit": what is counted, "where": range or null}.
 * MDAE_E_INVAL for a diagnostic without a limit. */
MDAE_API int rpc_json_limit(const mdae_diag *dg /* borrowed */, cJSON **out /* out: owned */);

/* Add to an analysis object (obj) what syntax-error recovery left out of
 * model m (engine/mel.h, "Recovery"; issue 36 item 2), when m had syntax
 * errors: "leftOut": [{"line","col","endLine","endCol","offset","endOffset",
 * "message"}...] in source order (positions as in FILE:LINE:COL, end
 * exclusive) and "syntaxErrors": the count (a missing ';' leaves nothing
 * out). Nothing is added for a model without syntax errors, so every other
 * analysis keeps its exact shape. MDAE_OK or MDAE_E_NOMEM (obj unchanged
 * then). */
MDAE_API int rpc_json_add_left_out(cJSON *obj /* borrowed */, const mel_model *m /* borrowed */);

/* ---- Blocks and edges (issue 4) ------------------------------------------- */

/* Add the conditional dependency graph to an analysis object (issue 4
 * section 3) as two new members:
 *   "blocks":[{"id":0,"guard":..,"cubes":[..],
 *              "equations":[{"name":"K1","order":0}...],
 *              "unknowns":[{"name":"i1","order":0}...],
 *              "reads":[{"name":"x1","order":0}...]}...],
 *   "edges":[{"from":0,"to":3,"guard":..,"cubes":[..]}...]
 * A block's guard is the set of valid nonsingular modes where it is a block;
 * "from"/"to" are block ids (positions in "blocks"). Arrays are in the
 * order of the report (blocks by id, edges by (from, to)). On failure
 * `analysis` is left as it was. */
MDAE_API int rpc_json_cdg(const cdg_report *rep /* borrowed */,
                          cJSON *analysis /* borrowed: gains two members */);

/* The block families (engine/cdg_family.h; `mdae analyze --families`,
 * session/analyze {families:true}) in place of rpc_json_cdg's members:
 *   "blockCount":N, "blockCountExact":"N", "blockCountLog2":x  (the graph's blocks)
 *   "families":[{"id":0,"guard":..,"cubes":[..],
 *                "variants":V,"variantsExact":"V","variantsLog2":x,
 *                "equations":[{"name":"C[1]","order":0,"guard":..,"cubes":[..]}..],
 *                "unknowns":[..], "reads":[..]}..],
 *   "familyEdges":[{"from":0,"to":3,"guard":..,"cubes":[..]}..]
 * A family's guard is the union of its variants' guards; an item's, the
 * modes where it is in the family's block (in such a mode the family's
 * block is the items whose guard holds). "from"/"to" are family ids. On
 * failure `analysis` is left as it was. */
MDAE_API int rpc_json_families(const cdg_family_report *rep /* borrowed */,
                               cJSON *analysis /* borrowed: gains five members */);

/* Add to the blocks of an analysis object (rpc_json_cdg's "blocks", built
 * from rep, the report of a graph of model m) the differentiated bodies
 * (issue 38): each equation entry whose "order" c is > 0 gains
 *   "body":"der(x) = der(z) + der(yl) - der(yh) - der(y)"
 * the equation differentiated c times, each side on its own, in the
 * model's language (engine/fx_body.h says the form); entries with c = 0
 * have none. An entry whose body cannot be given has none either: the
 * model keeps no expressions (mel_options.no_expressions), the body is
 * larger than FX_BODY_MAX_NODES nodes, or the equation reads next()/last().
 * Bodies a tree already held are replaced (rpc_json_analysis_reusing drops
 * them from what it takes, so they are always those of m). MDAE_OK,
 * MDAE_E_NOMEM (the bodies added so far stay), MDAE_E_INVAL (NULL, or an
 * analysis whose "blocks" are not rep's; found as they are walked, the
 * bodies added before stay). */
MDAE_API int rpc_json_add_bodies(cJSON *analysis /* borrowed: its blocks gain members */,
                                 const cdg_report *rep /* borrowed */,
                                 const mel_model *m /* borrowed */);

/* Written as produced (issue 40; protocol/rpc_jwriter.h): the members of
 * rpc_json_report's object, in its order, as members of w's open object,
 * each equation and variable written value by value without a tree (the
 * few diagnostics built, written and freed in turn); and "blocks" (each
 * with its equations' bodies as rpc_json_add_bodies gives them for model
 * m; m NULL: none) and "edges" as rpc_json_cdg adds them, block by block
 * and edge by edge, value by value. The text is that of the tree the other
 * encoders build (tests/protocol/test_rpc_jwriter.c); without the trees,
 * `mdae analyze --json` of the brake at N = 2,000 is 22 % fewer
 * instructions. MDAE_OK, MDAE_E_INVAL (as those encoders), or the
 * writer's failure (rpc_jw: sticky; a part may have been written). */
MDAE_API int rpc_json_report_write(const sa_report *rep /* borrowed */, rpc_jw *w);
MDAE_API int rpc_json_cdg_write(const cdg_report *rep /* borrowed */,
                                const mel_model *m /* borrowed; may be NULL */, rpc_jw *w);

/* The complete analysis (`mdae analyze --json`, the server's analyze
 * result): rpc_json_report()'s object, plus rpc_json_cdg()'s members when
 * cdg is not NULL. */
MDAE_API int rpc_json_analysis(const sa_report *rep /* borrowed */,
                               const cdg_report *cdg /* borrowed; may be NULL */,
                               cJSON **out /* out: owned */);

/* The same tree as rpc_json_analysis(rep, cdg), built with what prev
 * already holds: prev is an analysis tree built before (by either
 * function, for another version of the model, say), and every equation,
 * variable, block and edge of it that is exactly what *out would hold at
 * the same place is moved from prev into *out instead of being built (an
 * edit of the brake at N = 100 builds one railcar's). prev may be NULL; it
 * is left without what was taken, for the caller to delete. */
MDAE_API int rpc_json_analysis_reusing(const sa_report *rep /* borrowed */,
                                       const cdg_report *cdg /* borrowed; may be NULL */,
                                       cJSON *prev /* borrowed; members taken */,
                                       cJSON **out /* out: owned */);

/* What rpc_json_analysis_taking took from prev (issue 40 item 5), for a
 * digest of *out to take the taken items' hashes from prev's digest
 * (rpc_digest_build_reusing, protocol/rpc_diff.h): per array of *out,
 * from[s][k] is the place in prev's array s of the item k of *out, moved
 * from there unchanged (a block's equations' "body" members excepted:
 * rpc_json_add_bodies gives them again), or RPC_NOT_TAKEN; n[s] is the
 * length of *out's array s, prev_n[s] that of prev's. */
enum { RPC_TAKEN_EQUATIONS, RPC_TAKEN_VARIABLES, RPC_TAKEN_BLOCKS, RPC_TAKEN_EDGES, RPC_TAKEN_N };
#define RPC_NOT_TAKEN SIZE_MAX
typedef struct rpc_taken {
    size_t *from[RPC_TAKEN_N]; /* owned (rpc_taken_free) */
    /* node[s][k]: item k of *out's array s, as rpc_json_analysis_since left
     * it (taken or built): a digest of *out reads the items through them
     * instead of walking the arrays, and does not look at those it takes
     * from prev's digest at all (NULL: not said; owned, the nodes
     * *out's) */
    const cJSON **node[RPC_TAKEN_N];
    size_t n[RPC_TAKEN_N];
    size_t prev_n[RPC_TAKEN_N];
    /* per block of *out (n[RPC_TAKEN_BLOCKS]): true if
     * rpc_json_add_bodies_taking kept every "body" of its equations (none
     * given again nor dropped); NULL: not said (owned, rpc_taken_free) */
    bool *bodies_kept;
    /* the blocks taken kept their bodies (rpc_json_analysis_since's
     * keep_bodies): rpc_json_add_bodies_taking, given taken's nodes and
     * same, does not look at a taken block whose every equation of order
     * > 0 same vouches for (its entry has the body it would be given, or
     * none where none could be given) */
    bool keep_bodies;
} rpc_taken;

/* Frees t's arrays and zeroes it; t may be NULL. */
MDAE_API void rpc_taken_free(rpc_taken *t);

/* rpc_json_analysis_reusing, saying in *taken (zeroed first; freed and
 * zeroed on failure) what it took. With keep_bodies, a block taken keeps
 * its equations' "body" members (rpc_json_add_bodies_keeping must then
 * follow, which gives again those it is not told are still right).
 * taken NULL and !keep_bodies: rpc_json_analysis_reusing. */
MDAE_API int rpc_json_analysis_taking(const sa_report *rep /* borrowed */,
                                      const cdg_report *cdg /* borrowed; may be NULL */,
                                      cJSON *prev /* borrowed; members taken */, bool keep_bodies,
                                      cJSON **out /* out: owned */,
                                      rpc_taken *taken /* out: owned arrays; may be NULL */);

/* rpc_json_analysis_taking, where same (NULL: rpc_json_analysis_taking)
 * says which items, blocks and edges of rep and cdg are the ones of the
 * report prev was made of, at the same place, their sets not computed
 * (engine/cdg_report_keys.h, cdg_report_since): those are taken from prev
 * without a look at their sets, the others built or taken as
 * rpc_json_analysis_taking does. The caller vouches that prev is the tree
 * made of that report (with rpc_json_add_bodies and
 * rpc_json_add_left_out's members at most); a member of prev at a marked
 * place that is not an item of that name, a block of that id or an edge
 * with those ends fails with MDAE_E_STATE (prev then lacks what was taken
 * so far: build again without it). */
MDAE_API int rpc_json_analysis_since(const sa_report *rep /* borrowed */,
                                     const cdg_report *cdg /* borrowed; may be NULL */,
                                     cJSON *prev /* borrowed; members taken */, bool keep_bodies,
                                     const cdg_report_same *same /* borrowed; may be NULL */,
                                     cJSON **out /* out: owned */,
                                     rpc_taken *taken /* out: owned arrays; may be NULL */);

/* rpc_json_analysis_since, prev's arrays built in place (issue 40 item
 * 5): prev_taken (NULL: rpc_json_analysis_since) is what
 * rpc_json_analysis_since said in its taken when it built prev, and the
 * caller vouches that prev is that tree, changed since by
 * rpc_json_add_bodies* and rpc_json_add_left_out at most. Each of prev's
 * arrays whose nodes prev_taken says is detached from prev and becomes
 * *out's: an item marked in same is left where it is without a look at
 * it (no MDAE_E_STATE for it: only one past prev's length fails so), one
 * taken as rpc_json_analysis_since takes it stays too, one built
 * replaces prev's at its place (deleted), those past the new length are
 * deleted. taken says the same as rpc_json_analysis_since's (from[s][k]
 * = k for an item left). On failure prev lacks the arrays it gave. */
MDAE_API int rpc_json_analysis_in_place(const sa_report *rep /* borrowed */,
                                        const cdg_report *cdg /* borrowed; may be NULL */,
                                        cJSON *prev /* borrowed; arrays taken */,
                                        const rpc_taken *prev_taken /* borrowed; may be NULL */,
                                        bool keep_bodies,
                                        const cdg_report_same *same /* borrowed; may be NULL */,
                                        cJSON **out /* out: owned */,
                                        rpc_taken *taken /* out: owned arrays; may be NULL */);

/* rpc_json_add_bodies, but an equation entry that has a "body" already
 * keeps it when same[its equation's index in m] (n: same's length; an
 * index past it is given again): the caller vouches that the body of that
 * equation at any order is what it was when that "body" was made (issue
 * 40 item 5: its sides shared with that version's model, the
 * declarations and the mode variables' definitions the same). same NULL:
 * rpc_json_add_bodies. A model without expressions: every "body" dropped. */
MDAE_API int rpc_json_add_bodies_keeping(cJSON *analysis /* borrowed: changed */,
                                         const cdg_report *rep /* borrowed */,
                                         const mel_model *m /* borrowed */,
                                         const bool *same /* borrowed; may be NULL */, size_t n);

/* rpc_json_add_bodies_keeping, saying in taken->bodies_kept (replaced)
 * which blocks kept all their bodies, for a digest to take the hash of
 * their "equations" from the digest before (rpc_digest_build_reusing).
 * taken NULL, or its block count not analysis's: bodies_kept left NULL.
 * MDAE_E_NOMEM as rpc_json_add_bodies_keeping. */
MDAE_API int rpc_json_add_bodies_taking(cJSON *analysis /* borrowed: changed */,
                                        const cdg_report *rep /* borrowed */,
                                        const mel_model *m /* borrowed */,
                                        const bool *same /* borrowed; may be NULL */, size_t n,
                                        rpc_taken *taken /* borrowed: bodies_kept set; may be NULL */);

/* ---- One mode (issue 4 section 4) ------------------------------------------ */

/* The mode syntax of the command line, "g1=1,g2=false" (spaces allowed
 * around names, values and commas; values 1/0/true/false; the empty string
 * is the mode where every variable is false), as the JSON object the
 * protocol carries: {"g1":true,"g2":false}. Purely syntactic: names are not
 * checked against a model (rpc_json_mode_read does that). MDAE_E_INVAL
 * with a reason in why (NUL-terminated, truncated to why_len) on a syntax
 * error or a name given twice. */
MDAE_API int rpc_json_mode_spec(const char *spec /* borrowed */, cJSON **out /* out: owned */,
                                char *why /* out */, size_t why_len);

/* Read a mode object ({"g1":true,"g2":0}: booleans, or the numbers 1 and 0)
 * into mode[k] for mode variable k of m; variables the object does not
 * list are false. MDAE_E_INVAL, with a reason naming the culprit in why,
 * for a non-object, a name that is not a mode variable of m, or another
 * value. mode must hold m->n_modes entries (may be NULL when 0). */
MDAE_API int rpc_json_mode_read(const cJSON *obj /* borrowed */, const mel_model *m /* borrowed */,
                                bool *mode /* out */, char *why /* out */, size_t why_len);

/* The per-mode projection (`mdae mode --json`, the server's mode result):
 *   {"mode":{"g1":true,"g2":false},      every mode variable
 *    "valid":bool, "singular":bool,
 *    "equations":[{"name":"K1","active":bool,"offset":c|null}...],
 *    "variables":[{"name":"x","active":bool,"offset":d|null}...],
 *    "blocks":[{"id":3,"equations":[{"name","order","body"?}..],"unknowns":[..],
 *               "reads":[..]}...],
 *    "edges":[[0,2],...],
 *    "overdetermined":["e2",...], "underdetermined":["x",...],
 *    "initialization":{"degreesOfFreedom":N|null}}
 * equations/variables list every one of the model, in model order;
 * "offset" is null when the item is inactive in the mode, or when the mode
 * is invalid or singular (no offsets exist there). "blocks" are the blocks
 * active in the mode in a valid solving order (cdg_mode_view.blocks), "id"
 * being the block's id in the analysis JSON; each edge [from,to] gives
 * POSITIONS in this "blocks" array (not ids), so from < to always holds.
 * Both are empty in invalid and singular modes. "body": an equation
 * differentiated (order > 0) has its body, as rpc_json_add_bodies gives
 * it (issue 38). overdetermined and
 * underdetermined are names, non-empty only in singular modes.
 * "initialization": the degrees of freedom of the mode's cold
 * initialisation (RR-8933 Exec. Sch. 3), sum (d_j + 1) - sum (c_i + 1) over
 * the active items; null in invalid and singular modes (added 2026-11-23,
 * issue 13 section 6).
 * sv and cv must come from sa_result_mode()/cdg_graph_mode() on the same
 * mode, for the result g was built from (whose model is m). g and cv may
 * both be NULL (no CDG): "blocks" and "edges" are then omitted. */
MDAE_API int rpc_json_mode(const mel_model *m /* borrowed */, const bool *mode /* borrowed */,
                           const sa_mode_view *sv /* borrowed */,
                           const cdg_graph *g /* borrowed; may be NULL */,
                           const cdg_mode_view *cv /* borrowed; may be NULL */,
                           cJSON **out /* out: owned */);

/* ---- Mode changes (issue 13) ------------------------------------------------ */

/* One mode change (`mdae modechange --json`, the server's session/modechange
 * result):
 *   {"from":{g:bool...},"to":{...},"status":"continuous"|"reset"|"rejected",
 *    "ambiguous":bool,
 *    "instants":[{"r":R,"equations":[{"name","shift"}],"unknowns":[...],
 *                 "known":[...],"context":[...],"erased":[...],
 *                 "status":"nonsingular"|"overdetermined"|"underdetermined",
 *                 "overdetermined":[...],"underdetermined":[...],
 *                 "alternatives":[[{"name","shift"}...]...],
 *                 "alternativesTruncated":bool}],
 *    "impulsive":[{"name","shift","instant","order","orderMin","certain"}],
 *    "resets":[{"instant","eliminate":[...],"from":[...],"relations":N,
 *               "among":[...]}],
 *    "diagnostics":[...]}
 * (equations/unknowns by name; shift k = the k-th forward shift counted
 * from the instant). "impulsive": the values whose impulse order can be
 * positive: "order" its largest value, "orderMin" its least (null: it may
 * be identically zero), "certain" when every reading makes it impulsive
 * (engine/mc_impulse.c). "resets": the restart relations (mc.h, mc_reset). MDAE_OK, MDAE_E_NOMEM or MDAE_E_INVAL. */
MDAE_API int rpc_json_modechange(const mel_model *m /* borrowed */, const bool *from,
                                 const bool *to, const mc_result *r /* borrowed */,
                                 cJSON **out /* out: owned */);

/* Every change (`mdae modechange --all --json`, session/modechanges):
 *   {"method":"enumeration","validModes":N,"pairs":P,
 *    "counts":{"continuous":C,"reset":R,"rejected":J},
 *    "changes":[{"from":{...},"to":{...},"status","instants","ambiguous",
 *                "erased":[{"name","shift"}]}],      (erased at the first instant)
 *    "equations":[{"name","erasedIn":[indices into changes],
 *                  "erasedWhen":{"guard","cubes"}}],
 *    "classes":{"continuous":{"guard","cubes"},"reset":{...},"rejected":{...}},
 *    "diagnostics":[...]}
 * "guard"/"cubes" are sets of changes over the mode variables before (g)
 * and after (g'), an exact cover of the enumerated pairs (mc_cover);
 * "method" says how the pairs were obtained ("enumeration": every pair was
 * analysed; the implicit BDD method is not implemented). */
MDAE_API int rpc_json_modechanges(const mel_model *m /* borrowed */,
                                  const mc_all *all /* borrowed */,
                                  cJSON **out /* out: owned */);

/* The answer of a mode-change command on a model with a guard fixpoint
 * (issue 41 item 3: one answer, whatever the command): every change is
 * refused, so the status is "rejected" with the reason and the located
 * diagnostics (mc_guard_fixpoints, each with its last()/pre() fix):
 *   {"method":"bdd","status":"rejected","reason":"...","guardFixpoints":N,
 *    "diagnostics":[...]}
 * plus "enumerationSkipped" when given. *out is NULL (MDAE_OK) when the model
 * has no guard fixpoint. MDAE_OK with *out new (owned) or NULL,
 * MDAE_E_NOMEM, MDAE_E_INVAL. */
MDAE_API int rpc_json_guard_refusal(const mel_model *m /* borrowed */,
                                    const char *enumeration_skipped, cJSON **out /* out */);

/* The first instant of every change on BDDs (`mdae modechange --first
 * --json`; mc_first_instants):
 *   {"method":"bdd","scope":"...","pairs":P,
 *    "counts":{"continuous":C,"restart":R,"rejected":J},
 *    "classes":{"continuous":{"guard","cubes"},"restart":{...},"rejected":{...}}}
 * over the mode variables before (g) and after (g'); "restart": some
 * equation is erased at the first instant and no value is undetermined
 * there; "rejected": some value is undetermined at the first instant. A
 * class of more than 4,096 cubes has "cubes": null, "cubesLeftOut": why,
 * and as "guard" the complement of the other two (null if they are too
 * large as well). enumeration_skipped: why every pair was not enumerated
 * (session/modechanges without first, past the enumeration's limits), as
 * "enumerationSkipped", or NULL.
 * MDAE_OK with *out new (owned), MDAE_E_NOMEM or MDAE_E_INVAL. */
MDAE_API int rpc_json_first_instants(const mc_first *f /* borrowed */,
                                     const char *enumeration_skipped,
                                     cJSON **out /* out: owned */);

/* One entry of the "changes" array above, for the pair p of an mc_all of m
 * (session/analyze {modechanges} streams them, one analysis/modechange
 * notification each). MDAE_OK with *out new (owned), MDAE_E_NOMEM, or
 * MDAE_E_INVAL (NULL arguments, more than 32 mode variables). */
MDAE_API int rpc_json_modechange_pair(const mel_model *m /* borrowed */,
                                      const mc_pair *p /* borrowed */,
                                      cJSON **out /* out: owned */);

/* ---- What single-mode tools do (issue 38 item 5; engine/ap.h) -------------- */

/* The approximate analysis compared with the exact one (`mdae approx
 * --json`, session/approx):
 *   {"accepted":bool,
 *    "equations":[{"name","members":[names],"matched":name|null,"c":n|null}],
 *    "variables":[{"name","d":n|null}],
 *    "blocks":[{"equations":[names],"variables":[names]}],   (solving order)
 *    "findings":[{"kind":"pivot"|"offsets"|"singular"|"refused",
 *                 "equation":name|null,"variable":name|null,"order":n,
 *                 "pivot":text|null,"approx":n|null,
 *                 "modes":{"formula","cubes":[cube...]},"count":n,
 *                 "where":range|null,"message":text}],
 *    "wrong_modes":{"formula","cubes","count"},
 *    "valid_modes":n,
 *    "overdetermined":[names], "underdetermined":[names]}
 * Equations are the approximate ones (ap.h: merged members' names joined
 * with "|"); a finding's "equation" is the approximate equation for
 * "pivot", the model's equation for "offsets" of an equation. "c", "d" and
 * "matched" are null when the model is refused (accepted false), and then
 * "overdetermined"/"underdetermined" (the approximate DM parts; empty when
 * accepted) say why, and "blocks" is empty. "where" is null for a finding
 * without a location. Sets are exact on the valid modes (sa_report's
 * convention). MDAE_OK, MDAE_E_NOMEM, MDAE_E_INVAL. */
MDAE_API int rpc_json_approx(const ap_report *rep /* borrowed */, cJSON **out /* out: owned */);

/* Print a tree to a new NUL-terminated string (owned: mdae_free), indented
 * when `pretty`, compact otherwise. MDAE_E_NOMEM on failure. */
MDAE_API int rpc_json_print(const cJSON *json /* borrowed */, bool pretty,
                            char **out /* out: owned */);

#endif /* RPC_JSON_H */
