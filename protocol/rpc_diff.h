/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_diff.h -- differences between two analysis results (issue 6),
 * as session/analyze {since: S} answers them, and the relabelling of a
 * result's blocks with stable ids (session/analyze {stableIds: true}).
 *
 * Why here: both are pure JSON on the rpc_json_analysis shape (the wire
 * contract), so they sit next to the encoder; the worker process calls them
 * and the tests can check them without a server (issue 12).
 *
 * Stable ids. The engine gives each block of a session an id that stays
 * the same for a block that did not change (engine/inc.h, "Block ids";
 * inc_result_whole_ids); rpc_block_ids_relabel puts those ids into an
 * analysis result, whose own block ids are the canonical numbering of that
 * result: blocks and edges are relabelled, and the blocks sorted by id.
 *
 * The difference, every array being a set keyed as said:
 *   {"since":S, "version":V,
 *    "blocks":      {"added":[block], "removed":[id], "changed":[block]},
 *    "edges":       {"added":[edge], "removed":[{"from","to"}], "changed":[edge]},
 *    "equations":   {"added":[item], "removed":[name], "changed":[item]},
 *    "variables":   {"added":[item], "removed":[name], "changed":[item]},
 *    "diagnostics": {"added":[diag], "removed":[diag]},
 *    "members":     {name: value, ...}}   (other members that changed or
 *                                         appeared; those of old that neu
 *                                         no longer has, as null: a
 *                                         "leftOut" gone once the text
 *                                         parses again)
 * blocks by id, edges by (from, to), equations and variables by name,
 * diagnostics by their whole content. Applying it to the full result of S
 * (stable ids) gives the full result of V up to the order of the arrays
 * (blocks by id, edges by (from, to), items and diagnostics in model order).
 *
 * Promises: pure data conversion; no I/O, no logging. Reentrant.
 * Errors: MDAE_OK, MDAE_E_NOMEM (nothing leaked, *out untouched).
 * Ownership: inputs are borrowed; *out is a new tree owned by the caller.
 */
#ifndef RPC_DIFF_H
#define RPC_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "mdae.h"

/* A copy of the analysis with block k (its "id") relabelled ids[k], edges
 * too, blocks sorted by id. n: the number of ids; MDAE_E_INVAL if a block or
 * an edge names an id outside 0..n-1. */
MDAE_API int rpc_block_ids_relabel(const cJSON *analysis /* borrowed */,
                                   const uint32_t *ids /* borrowed */, size_t n,
                                   cJSON **out /* out: owned */);

/* The difference from old (version since) to neu (version), both with
 * stable ids. */
MDAE_API int rpc_diff_analysis(const cJSON *old /* borrowed */, const cJSON *neu /* borrowed */,
                               long since, long version, cJSON **out /* out: owned */);

#endif /* RPC_DIFF_H */
