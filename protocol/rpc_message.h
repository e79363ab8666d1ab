/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_message.h -- JSON-RPC 2.0 messages: parse and validate
 * requests, notifications and batches; build results, errors and
 * notifications.
 *
 * Why: every transport of mdaed (and the router-to-worker pipes) carries the
 * same JSON-RPC 2.0 messages (https://www.jsonrpc.org/specification), so the
 * rules of the spec live here once: what is a request, what gets -32700 or
 * -32600, how an empty batch is answered.
 *
 * Promises: pure data conversion; no I/O, no logging. The only global state
 * is cJSON's allocator hooks (rpc_message_init). Reentrant after that.
 *
 * Error codes on the wire (error.code):
 *   -32700 parse error, -32600 invalid request, -32601 method not found,
 *   -32602 invalid params, -32603 internal error (the reserved codes);
 *   -32800 request cancelled (LSP's RequestCancelled, for MDAE_E_CANCELED);
 *   otherwise -32000 + rc for an mdae error rc (so -32003 is MDAE_E_PARSE),
 *   inside the spec's "implementation-defined server errors" range.
 * error.data is an object; for mdae errors it always carries
 * "name": mdae_err_name(rc) plus whatever details the caller adds
 * (diagnostics, the cause of a worker's death...).
 *
 * Ownership: rpc_parse() returns a tree owned by the rpc_parsed (free with
 * rpc_parsed_close); the rpc_msg entries borrow from it. Builders take
 * ownership of the cJSON they are given (even when they fail) and return a
 * new tree owned by the caller, or NULL when out of memory.
 */
#ifndef RPC_MESSAGE_H
#define RPC_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "mdae.h"

/* Deepest JSON nesting accepted in a message (conf: limits.max_json_depth is
 * not configurable; models travel as strings, so requests are shallow). */
#define RPC_MAX_DEPTH 64
/* Largest batch accepted; a bigger one is answered with one -32600. */
#define RPC_MAX_BATCH 1000

#define RPC_PARSE_ERROR (-32700)
#define RPC_INVALID_REQUEST (-32600)
#define RPC_METHOD_NOT_FOUND (-32601)
#define RPC_INVALID_PARAMS (-32602)
#define RPC_INTERNAL_ERROR (-32603)
#define RPC_REQUEST_CANCELLED (-32800)
/* The cancellation notification, {"id": <request id>} (LSP's name; the
 * router also sends it down the worker pipe). */
#define RPC_CANCEL_METHOD "$/cancelRequest"
/* Our own codes: -32000 + an MDAE_E_* value. */
#define RPC_MDAE_CODE(rc) (-32000 + (rc))

typedef enum rpc_msg_kind {
    RPC_MSG_REQUEST,      /* has a method and an id */
    RPC_MSG_NOTIFICATION, /* has a method, no id */
    RPC_MSG_RESPONSE,     /* has result or error, no method */
    RPC_MSG_INVALID       /* answer with -32600 and `id` (null if NULL) */
} rpc_msg_kind;

typedef struct rpc_msg {
    rpc_msg_kind kind;
    const char *method;  /* borrowed; requests and notifications */
    const cJSON *id;     /* borrowed; NULL for notifications and unreadable ids */
    const cJSON *params; /* borrowed; NULL when absent; else object or array */
    const cJSON *json;   /* borrowed; the whole message */
    const char *why;     /* RPC_MSG_INVALID: what is wrong (static string) */
} rpc_msg;

typedef struct rpc_parsed {
    cJSON *root;   /* owned */
    bool batch;    /* the body was a (non-empty) array */
    size_t n;      /* messages (1 unless batch) */
    rpc_msg *msgs; /* owned */
} rpc_parsed;

/* Point cJSON at mdae_malloc/mdae_free. Call once at start-up; idempotent. */
MDAE_API void rpc_message_init(void);

/* Parse a frame body (len bytes, not NUL-terminated).
 * MDAE_OK: *out filled (release with rpc_parsed_close); invalid messages are
 *   RPC_MSG_INVALID entries, an empty or oversized batch is one invalid
 *   entry with batch false (the spec wants a single response then).
 * MDAE_E_PROTO: not JSON (answer -32700 with id null). cJSON cannot tell a
 *   failed allocation from bad JSON, so out of memory inside cJSON also
 *   reads as MDAE_E_PROTO (a known limit of cJSON 1.7).
 * MDAE_E_LIMIT: nested deeper than RPC_MAX_DEPTH (answer -32600).
 * MDAE_E_NOMEM. */
MDAE_API int rpc_parse(const char *body /* borrowed */, size_t len,
                       rpc_parsed *out /* out */);
MDAE_API void rpc_parsed_close(rpc_parsed *p); /* safe twice */

/* Check the bytes of a client's message before rpc_parse (issue 37 item
 * 6). JSON text is UTF-8 (RFC 8259 section 8.1), and a NUL character in
 * a string cannot pass through cJSON, whose strings end at the first NUL:
 * "server/status\u0000junk" would run server/status, a model text would
 * lose its tail. So, in one pass over body:
 * MDAE_OK: valid UTF-8 (no overlong forms, no surrogates, nothing past
 *   U+10FFFF) without a NUL.
 * MDAE_E_PROTO: invalid UTF-8; *offset is the byte offset of the first
 *   byte of the bad sequence (answer -32700 and never echo the bytes).
 * MDAE_E_INVAL: a NUL, raw or as the escape \u0000 inside a string;
 *   *offset is where it starts (answer -32600).
 * *offset is written only on failure. Pure; linear in len. */
MDAE_API int rpc_check_bytes(const char *body /* borrowed */, size_t len,
                             size_t *offset /* out */);

/* Is s (len bytes, any text) well-formed UTF-8, as rpc_check_bytes wants
 * it? false with *offset the first bad sequence's byte offset. For a
 * client that sends a file's text (the CLI): it can locate the problem in
 * the file rather than in the message. */
MDAE_API bool rpc_utf8_valid(const char *s /* borrowed */, size_t len, size_t *offset /* out */);

/* The length of the well-formed UTF-8 sequence s starts (1 to 4; len >= 1
 * bytes available), or 0 when its first byte starts none (a continuation
 * byte, an overlong form, a surrogate, past U+10FFFF, cut short): for
 * whoever must walk text byte by byte, as mdaed's log escaping does. */
MDAE_API size_t rpc_utf8_sequence(const char *s /* borrowed */, size_t len);

/* The length of the longest prefix of s (len bytes of valid UTF-8) that
 * has at most max bytes and does not cut a character: for messages that
 * quote a client's string in part ("%.*s"). */
MDAE_API size_t rpc_utf8_prefix(const char *s /* borrowed */, size_t len, size_t max);

/* {"jsonrpc":"2.0","id":id,"result":result}. id is copied (NULL: null). */
MDAE_API cJSON *rpc_response_result(const cJSON *id /* borrowed */,
                                    cJSON *result /* takes ownership; NULL: null */);
/* {"jsonrpc":"2.0","id":id,"error":{"code","message","data"?}}. */
MDAE_API cJSON *rpc_response_error(const cJSON *id /* borrowed */, int code,
                                   const char *message /* borrowed */,
                                   cJSON *data /* takes ownership; may be NULL */);
/* An error for mdae code rc (see the file comment for the code mapping).
 * message NULL means mdae_strerror(rc). details, when an object, has its
 * members moved into error.data next to "name". */
MDAE_API cJSON *rpc_response_mdae(const cJSON *id /* borrowed */, int rc,
                                  const char *message /* borrowed */,
                                  cJSON *details /* takes ownership; may be NULL */);
/* The error.code used for mdae code rc (tests check the mapping). */
MDAE_TEST_API int rpc_error_code(int rc);
/* {"jsonrpc":"2.0","method":method,"params":params?}. */
MDAE_API cJSON *rpc_notification_new(const char *method /* borrowed */,
                                     cJSON *params /* takes ownership; may be NULL */);
/* {"jsonrpc":"2.0","id":id,"method":method,"params":params?}. */
MDAE_API cJSON *rpc_request_new(const cJSON *id /* borrowed */, const char *method,
                                cJSON *params /* takes ownership; may be NULL */);

/* json printed by cJSON (cJSON_Print when pretty, else
 * cJSON_PrintUnformatted), the same text, but integers below 10^15 written
 * by a decimal conversion instead of cJSON's printf and sscanf (the tree is
 * changed during the call and restored: not for a tree another thread
 * reads). Owned by the caller (cJSON_free, i.e. mdae_free once
 * rpc_message_init ran); NULL on OOM or for NULL. */
MDAE_API char *rpc_print_text(const cJSON *json /* borrowed */, bool pretty);
/* Print compactly (never contains a raw newline, so it suits NDJSON).
 * MDAE_OK with *out owned (mdae_free) and *len its strlen, or MDAE_E_NOMEM. */
MDAE_API int rpc_print(const cJSON *msg /* borrowed */, char **out /* out: owned */,
                       size_t *len /* out */);

/* True when id is a valid JSON-RPC id (string, number or null). */
MDAE_API bool rpc_id_valid(const cJSON *id);

#endif /* RPC_MESSAGE_H */
