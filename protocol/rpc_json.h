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
 * engine/mel.h and engine/sa.h structures as plain data only (the agreed
 * exception to the layering rule). Reentrant once rpc_json_init() has run.
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

/* Point cJSON at mdae_malloc/mdae_free (cJSON_InitHooks), so that tests that
 * make allocations fail reach cJSON too, and so that strings printed by
 * cJSON are released with mdae_free. Call once at start-up, before threads;
 * calling it again does nothing. The encoders below call it too (so a
 * forgotten call is harmless in single-threaded programs). */
MDAE_API void rpc_json_init(void);

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

/* Diagnostics as an array:
 *   [{"severity":"error"|"warning"|"note","message":"...","range":range}...]
 * "range" is omitted for diagnostics without a location (line 0). When some
 * diagnostics were dropped (d->dropped > 0), a last entry
 * {"severity":"note","message":"N more diagnostics not shown"} says so. */
MDAE_API int rpc_json_diags(const mdae_diags *d /* borrowed */,
                            cJSON **out /* out: owned */);

/* Print a tree to a new NUL-terminated string (owned: mdae_free), indented
 * when `pretty`, compact otherwise. MDAE_E_NOMEM on failure. */
MDAE_API int rpc_json_print(const cJSON *json /* borrowed */, bool pretty,
                            char **out /* out: owned */);

#endif /* RPC_JSON_H */
