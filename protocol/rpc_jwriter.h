/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_jwriter.h -- JSON text written as it is produced (issue 40):
 * objects and arrays opened and closed by hand, their members and elements
 * strings, numbers and booleans written as they are, or printed from small
 * cJSON trees that the caller frees at once, the text
 * going to a sink in chunks. So a result of millions of values never
 * exists as one tree or one string: `mdae analyze --json` on the brake at
 * N = 10,000 writes 56 MB from a few kilobytes of tree at a time.
 *
 * The text is the one cJSON_PrintUnformatted (through rpc_print_text)
 * gives for the same tree: the same string escapes, integers below 10^15
 * as their digits, every other number as cJSON prints it (cJSON is asked),
 * raw nodes as they are. tests/protocol/test_rpc_jwriter.c checks it.
 *
 * Errors are sticky: the first failure (MDAE_E_NOMEM from the buffer,
 * MDAE_E_INVAL for a tree cJSON cannot print or a nesting too deep, or
 * the sink's own negative code) is kept in rc, every later call does
 * nothing and returns it. What reached the sink before then stays there:
 * a caller that must not show a cut text (the worker) spools the sink and
 * sends it only when rpc_jw_finish succeeded.
 *
 * Ownership: the writer owns its buffer (rpc_jw_close frees it); trees and
 * strings passed in are borrowed for the call.
 */
#ifndef RPC_JWRITER_H
#define RPC_JWRITER_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "mdae.h"

/* Where the text goes: n bytes at p; MDAE_OK or a negative code. */
typedef int rpc_jw_sink(void *arg, const char *p, size_t n);

#define RPC_JW_DEPTH 16 /* objects and arrays open at a time */
#define RPC_JW_CHUNK 65536 /* bytes gathered before the sink sees them */

typedef struct rpc_jw {
    rpc_jw_sink *sink;
    void *arg;
    mdae_buf buf;
    int rc;                     /* the first failure, or MDAE_OK */
    unsigned depth;             /* open objects and arrays */
    bool empty[RPC_JW_DEPTH];   /* nothing written yet inside each */
    bool object[RPC_JW_DEPTH];  /* each an object (else an array) */
} rpc_jw;

/* A writer to sink(arg, ...); nothing written yet. */
MDAE_API void rpc_jw_init(rpc_jw *w, rpc_jw_sink *sink, void *arg);
/* Open an object or an array: as the member `key` of the enclosing object,
 * or (key NULL) as an element of the enclosing array or the top value. */
MDAE_API int rpc_jw_open_object(rpc_jw *w, const char *key /* borrowed, or NULL */);
MDAE_API int rpc_jw_open_array(rpc_jw *w, const char *key /* borrowed, or NULL */);
/* Close the innermost open object or array. */
MDAE_API int rpc_jw_close_one(rpc_jw *w);
/* v printed as the member `key` (or, key NULL, an element). */
MDAE_API int rpc_jw_value(rpc_jw *w, const char *key, const cJSON *v /* borrowed */);
/* A string, a number, a boolean as the member `key` (or, key NULL, an
 * element): the text rpc_jw_value gives for cJSON_CreateString(s),
 * cJSON_CreateNumber(v), cJSON_CreateBool(v), without the node (the
 * analysis's millions of small items, issue 40). s NULL: MDAE_E_INVAL. */
MDAE_API int rpc_jw_string(rpc_jw *w, const char *key, const char *s /* borrowed */);
MDAE_API int rpc_jw_number(rpc_jw *w, const char *key, double v);
MDAE_API int rpc_jw_bool(rpc_jw *w, const char *key, bool v);
/* Every member of object obj, in order, as members of the open object. */
MDAE_API int rpc_jw_members(rpc_jw *w, const cJSON *obj /* borrowed */);
/* Raw text as it is (a comma before it is the caller's business). */
MDAE_API int rpc_jw_raw(rpc_jw *w, const char *s /* borrowed */, size_t n);
/* Give the sink what is gathered: the writer's result so far. */
MDAE_API int rpc_jw_flush(rpc_jw *w);
/* Free the buffer (what was not flushed is dropped). */
MDAE_API void rpc_jw_close(rpc_jw *w);

/* v's compact text appended to out, as rpc_print_text gives it. MDAE_OK,
 * MDAE_E_NOMEM (out->oom), MDAE_E_INVAL (a node cJSON does not print). */
MDAE_API int rpc_jw_print(const cJSON *v /* borrowed */, mdae_buf *out);

#endif /* RPC_JWRITER_H */
