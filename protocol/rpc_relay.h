/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_relay.h -- a worker's responses relayed to a client without a
 * tree: read the envelope of a response frame, validate the rest without
 * building anything, and splice the result's bytes behind the client's id.
 *
 * Why: an analysis result is half a megabyte of JSON (the brake at N = 100).
 * Parsing it in the router (cJSON's tree, one allocation per value, strtod
 * per number), to print it again with another id, cost the router more than
 * the engine's own work (2026-11-26: 15 of the 44 ms of an edit).
 *
 * The contract between the worker's writer and the router's reader. The
 * worker prints every response with rpc_print (cJSON_PrintUnformatted) from a
 * tree built by rpc_response_result, rpc_response_error or rpc_response_mdae
 * with its request's id, a number, maybe with "stats" added after (wk.h).
 * So a response frame's body is exactly
 *
 *   {"jsonrpc":"2.0","id":ID,MEMBER,...}
 *
 * where ID is a non-negative integer without sign, fraction, exponent or
 * leading zero, of at most 15 digits (exact as a double: the router's ids
 * count from 1), and the members are "result", "error" and "stats", each at
 * most once, exactly one of "result" and "error", in any order, each value
 * compact JSON (RFC 8259 without insignificant white space). rpc_relay_read
 * accepts that and nothing else: what it refuses (a notification, another
 * shape, bad JSON, white space, nesting deeper than RPC_MAX_DEPTH counting
 * the envelope, a number longer than cJSON reads, a \u escape of NUL or of a
 * surrogate, a control character in a string, an id cJSON would round) the
 * router parses as before with rpc_parse, which answers it as it always did:
 * a valid response of another shape is still a response, garbage still
 * kills the worker. Everything rpc_relay_read accepts rpc_parse would have
 * read as a response with that id, the same members and the same values,
 * and the bytes of those values are what rpc_print prints for them again
 * (the worker printed them with it, and cJSON's printing is idempotent);
 * tests/protocol/test_rpc_relay.c checks both on random trees and random
 * corruptions of them.
 *
 * Promises: pure functions; no I/O, no logging, no global state. The reader
 * allocates nothing; its recursion is bounded by RPC_MAX_DEPTH.
 * Ownership: spans borrow the body they were read from.
 */
#ifndef RPC_RELAY_H
#define RPC_RELAY_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "mdae.h"

/* Bytes of a body: p == NULL when absent. */
typedef struct rpc_span {
    const char *p; /* borrowed from the body */
    size_t len;
} rpc_span;

typedef struct rpc_relay_head {
    uint64_t id;     /* the worker request's id */
    rpc_span result; /* the result's JSON text, or absent */
    rpc_span error;  /* the error's JSON text, or absent */
    rpc_span stats;  /* the envelope's "stats" JSON text, or absent */
} rpc_relay_head;

/* Read a response frame body (len bytes, not NUL-terminated) written under
 * the contract above. MDAE_OK with *out filled (spans borrowed from body);
 * MDAE_E_PROTO when the body is anything else (*out untouched): parse it
 * with rpc_parse. */
MDAE_API int rpc_relay_read(const char *body /* borrowed */, size_t len,
                            rpc_relay_head *out /* out */);

/* Print {"jsonrpc":"2.0","id":ID,"result":RESULT} for the client: ID is id
 * printed by cJSON (NULL: null), RESULT the len bytes of result (JSON text
 * read by rpc_relay_read, copied as they are). When key is not NULL and the
 * result is an object, "key":value is added as its last member. The bytes
 * are those rpc_print prints for rpc_response_result(id, the parsed result)
 * after cJSON_AddItemToObject(result, key, value).
 * MDAE_OK with *out owned (mdae_free, NUL-terminated) and *out_len its
 * length, or MDAE_E_NOMEM. */
MDAE_API int rpc_relay_response(const cJSON *id /* borrowed; may be NULL */,
                                const char *result /* borrowed */, size_t len,
                                const char *key /* borrowed; may be NULL */,
                                const cJSON *value /* borrowed; with key */,
                                char **out /* out: owned */, size_t *out_len /* out */);

#endif /* RPC_RELAY_H */
