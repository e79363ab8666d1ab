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
 * Stable ids. A block's identity is its "equations", "unknowns" and "reads"
 * (names with orders, as printed). An rpc_block_ids map gives each identity
 * an id the first time it is seen, so a block that did not change keeps its
 * id in every later result relabelled with the same map, whatever the
 * canonical numbering of each result. Edges are relabelled to match, and
 * the blocks are sorted by id.
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
 * (blocks by id, edges by (from, to), items and diagnostics in model order).
 *
 * Promises: pure data conversion; no I/O, no logging. Reentrant (each map
 * is its caller's).
 * Errors: MDAE_OK, MDAE_E_NOMEM (nothing leaked, *out untouched; the map
 * may have learnt some identities, which is harmless).
 * Ownership: inputs are borrowed; *out is a new tree owned by the caller.
 * An rpc_block_ids is caller-allocated: rpc_block_ids_init / _close.
 */
#ifndef RPC_DIFF_H
#define RPC_DIFF_H

#include <cjson/cJSON.h>

#include "mdae.h"

typedef struct rpc_block_ids {
    cJSON *map;  /* identity -> id (owned) */
    double next; /* the next id to give */
} rpc_block_ids;

MDAE_API void rpc_block_ids_init(rpc_block_ids *ids /* out */);
MDAE_API void rpc_block_ids_close(rpc_block_ids *ids); /* safe twice */

/* A copy of the analysis with stable block ids (blocks sorted by id). */
MDAE_API int rpc_block_ids_apply(rpc_block_ids *ids, const cJSON *analysis /* borrowed */,
                                 cJSON **out /* out: owned */);

/* The difference from old (version since) to neu (version), both with
 * stable ids. */
MDAE_API int rpc_diff_analysis(const cJSON *old /* borrowed */, const cJSON *neu /* borrowed */,
                               long since, long version, cJSON **out /* out: owned */);

#endif /* RPC_DIFF_H */
