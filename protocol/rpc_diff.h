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

/* Digests (issue 40 item 5). What a later difference needs of a result,
 * without its tree: per block, edge, equation and variable its key and a
 * 64-bit hash of its JSON (with stable ids), per other member its name
 * and hash, and a copy of the (few) diagnostics. A tenth of the tree or
 * less, and built by a walk that allocates nothing per item, where keeping
 * the relabelled tree copied it twice and deleted an older one.
 *
 * The hash follows rpc_diff_analysis's equality (cJSON_Compare, case
 * sensitive): arrays in order, an object's members in any order. Two
 * items that differ are taken as equal only if their hashes collide
 * (2^-64 a pair).
 *
 * rpc_digest_build reads the analysis as rpc_block_ids_relabel would
 * relabel it (its canonical block ids mapped by ids, blocks ordered by
 * stable id) and keeps pointers to its items: until rpc_digest_detach,
 * the digest is "live" and the analysis must outlive it unchanged. */
typedef struct rpc_digest rpc_digest;
struct rpc_taken; /* protocol/rpc_json.h */

/* MDAE_OK with *out (owned, live), MDAE_E_INVAL as rpc_block_ids_relabel,
 * MDAE_E_NOMEM (nothing leaked). */
MDAE_API int rpc_digest_build(const cJSON *analysis /* borrowed, kept */,
                              const uint32_t *ids /* borrowed */, size_t n,
                              rpc_digest **out /* out: owned */);

/* rpc_digest_build, taking what it can from old, the digest of prev, when
 * analysis is what rpc_json_analysis_taking made of prev with *taken
 * (protocol/rpc_json.h; issue 40 item 5): an equation or variable taken
 * from prev has prev's hash and key; a taken edge prev's hash of its other
 * members (its ends relabelled again with ids); a taken block that of its
 * members but "id" and "equations", and that of its "equations" too if
 * taken->bodies_kept says it kept its bodies (rpc_json_add_bodies_taking;
 * else they are hashed again: they may have been given again). The
 * digest is the same as rpc_digest_build's; the untaken items are hashed
 * as there. old or taken NULL, or taken's lengths not those of old and
 * analysis: rpc_digest_build. The caller vouches that old is prev's
 * digest (prev as it was when taken); old may be detached. */
MDAE_API int rpc_digest_build_reusing(const cJSON *analysis /* borrowed, kept */,
                                      const uint32_t *ids /* borrowed */, size_t n,
                                      const rpc_digest *old /* borrowed; may be NULL */,
                                      const struct rpc_taken *taken /* borrowed; may be NULL */,
                                      rpc_digest **out /* out: owned */);

/* Drops d's pointers into its analysis (which may then change or go):
 * what is kept for a later difference. */
MDAE_API void rpc_digest_detach(rpc_digest *d);

MDAE_API void rpc_digest_free(rpc_digest *d);

/* The same tree as rpc_diff_analysis(full of old, full of neu, since,
 * version) gives, the fulls being what rpc_block_ids_relabel makes of
 * their analyses: only the added and changed items are copied (from neu's
 * analysis, relabelled). old: any digest (live or not); neu: live. */
MDAE_API int rpc_digest_diff(const rpc_digest *old /* borrowed */,
                             const rpc_digest *neu /* borrowed, live */, long since, long version,
                             cJSON **out /* out: owned */);

#endif /* RPC_DIFF_H */
