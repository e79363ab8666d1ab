/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_framer.h -- cut a byte stream into JSON-RPC message bodies.
 *
 * Why: mdaed serves editors (LSP-style `Content-Length:` headers), scripts
 * (newline-delimited JSON, one message per line) and web pages (HTTP/1.1
 * `POST /rpc`, `GET /`) on the same port (issue 5 section 2). The framing is
 * detected from the first bytes of a connection and then fixed for its life.
 *
 * Detection (after skipping leading blank space):
 *   - "Content-" (any case)                         -> RPC_FRAMING_LSP
 *   - an HTTP method token then ' ' ("POST ", "GET ", "HEAD ", "PUT ",
 *     "DELETE ", "OPTIONS ", "PATCH ")              -> RPC_FRAMING_HTTP
 *   - anything else                                 -> RPC_FRAMING_NDJSON
 * so garbage becomes NDJSON lines the router answers with -32700, and a
 * stream of garbage without newlines hits the frame-size limit.
 *
 * Promises: a pure state machine; no sockets, no I/O, no logging, no global
 * state. Memory is bounded: the framer never buffers more than max_frame
 * body bytes plus RPC_FRAMER_MAX_HEADER header bytes, whatever it is fed.
 * HTTP is parsed with Debian's http-parser (libhttp-parser-dev), not by hand.
 *
 * Errors: rpc_framer_feed returns MDAE_OK, MDAE_E_LIMIT (a frame or a header
 * block is larger than allowed), MDAE_E_PROTO (malformed LSP headers or HTTP),
 * MDAE_E_NOMEM, or MDAE_E_CANCELED (the frame callback asked to stop). Every
 * error is sticky: the framer refuses further input, because the stream
 * position is lost and the connection must be closed.
 *
 * Ownership: the framer is caller-allocated (rpc_framer_init/close). A frame
 * passed to the callback borrows the framer's buffers (or the caller's input)
 * and is valid only during the callback.
 */
#ifndef RPC_FRAMER_H
#define RPC_FRAMER_H

#include <stdbool.h>
#include <stddef.h>

#include "mdae.h"

/* Default largest message body (conf/mdaed.json "limits.max_message_bytes"). */
#define RPC_FRAMER_DEFAULT_MAX_FRAME (16u * 1024u * 1024u)
/* Largest LSP header block or HTTP request line + headers. LSP sends two
 * short headers; 8 KiB is what common HTTP servers allow. */
#define RPC_FRAMER_MAX_HEADER 8192u
/* Longest HTTP request target kept (longer URLs are MDAE_E_LIMIT). */
#define RPC_FRAMER_MAX_URL 1024u
/* Longest Authorization header value kept. */
#define RPC_FRAMER_MAX_AUTH 512u
/* Longest X-Mdae-Owner value kept (an owner key, issue 37: the server takes
 * 22 to 128 characters); a longer one is refused as the Authorization is. */
#define RPC_FRAMER_MAX_OWNER 256u
/* Longest Host, Origin or Content-Type value kept (issue 37 item 2: mdaed
 * checks them on POST /rpc); a longer one is "431". */
#define RPC_FRAMER_MAX_HEADER_VALUE 256u

typedef enum rpc_framing {
    RPC_FRAMING_UNKNOWN = 0, /* nothing but blank space seen yet */
    RPC_FRAMING_NDJSON,
    RPC_FRAMING_LSP,
    RPC_FRAMING_HTTP
} rpc_framing;

typedef enum rpc_http_method {
    RPC_HTTP_NONE = 0, /* not HTTP */
    RPC_HTTP_GET,
    RPC_HTTP_HEAD,
    RPC_HTTP_POST,
    RPC_HTTP_OPTIONS, /* a CORS preflight */
    RPC_HTTP_OTHER
} rpc_http_method;

/* One complete frame. All pointers are borrowed for the callback only. */
typedef struct rpc_frame {
    rpc_framing framing;
    const char *body; /* message body, not NUL-terminated (may be empty) */
    size_t len;
    /* HTTP only: */
    rpc_http_method method;
    const char *url;           /* NUL-terminated request target */
    const char *authorization; /* NUL-terminated header value, or NULL */
    const char *owner;         /* X-Mdae-Owner, NUL-terminated, or NULL */
    /* Host, Origin, Content-Type: NUL-terminated values without the
     * surrounding blanks, or NULL when absent (issue 37 item 2). Bytes as
     * sent: the caller compares them, never prints them. */
    const char *host, *origin, *content_type;
    /* Accept-Encoding and If-None-Match (a static file's compression and
     * revalidation, issue 42): the same, NULL when absent; given twice,
     * the last counts (they decide no access). */
    const char *accept_encoding, *if_none_match;
    bool duplicate_header;     /* Host, Origin, Content-Type or Authorization
                                  came twice: the request is ambiguous */
    bool keep_alive;           /* the client wants the connection kept */
} rpc_frame;

/* Called once per complete frame, in stream order. Return 0 to go on,
 * non-zero to stop: rpc_framer_feed then returns MDAE_E_CANCELED at once and
 * the framer refuses further input. */
typedef int (*rpc_frame_cb)(void *ctx, const rpc_frame *frame /* borrowed */);

typedef struct rpc_framer rpc_framer;
struct rpc_framer_http_; /* private */

struct rpc_framer {
    rpc_framing framing;
    size_t max_frame;
    int error; /* sticky error, MDAE_OK while healthy */
    /* pending bytes of the current frame (headers and/or body) */
    char *buf;
    size_t len, cap;
    size_t scan;            /* NDJSON: bytes of buf already searched for '\n' */
    size_t body_len;        /* LSP: Content-Length of the current frame */
    bool in_body;           /* LSP: headers done, reading the body */
    struct rpc_framer_http_ *http; /* HTTP state, allocated on detection */
};

/* Prepare a framer; max_frame 0 means RPC_FRAMER_DEFAULT_MAX_FRAME. Never
 * fails (allocation happens on feed). */
MDAE_API void rpc_framer_init(rpc_framer *fr /* out */, size_t max_frame);
/* Release the framer's buffers; safe twice. */
MDAE_API void rpc_framer_close(rpc_framer *fr);

/* Feed len bytes (any bytes; len 0 is fine). Calls cb for every frame the
 * bytes complete. See the file comment for the return codes. */
MDAE_API int rpc_framer_feed(rpc_framer *fr, const char *buf /* borrowed */, size_t len,
                             rpc_frame_cb cb, void *ctx);

/* The framing detected so far (RPC_FRAMING_UNKNOWN before the first byte
 * that decides it). */
MDAE_API rpc_framing rpc_framer_framing(const rpc_framer *fr);

/* Force the framing (used for worker pipes, which always speak LSP-style
 * Content-Length, and for tests). Only valid before the first feed. */
MDAE_API void rpc_framer_set_framing(rpc_framer *fr, rpc_framing framing);

/* After an HTTP feed that returned MDAE_E_LIMIT: the status line that names
 * the limit ("414 URI Too Long", "431 Request Header Fields Too Large" for
 * the header block or a kept header's value, "413 Content Too Large" for
 * the body); NULL for any other framing or error. Static storage. */
MDAE_API const char *rpc_framer_http_limit_status(const rpc_framer *fr);

/* Where the framer is in the stream (the server's read timeouts, issue 37):
 * between messages, inside a message's headers (an HTTP request line and
 * headers, an LSP header block, or the first bytes before the framing is
 * known), or inside its body (an HTTP or LSP body, an NDJSON line). */
typedef enum rpc_framer_phase {
    RPC_FRAMER_IDLE = 0, /* no message begun (or a sticky error) */
    RPC_FRAMER_HEAD,
    RPC_FRAMER_BODY
} rpc_framer_phase;
MDAE_API rpc_framer_phase rpc_framer_phase_of(const rpc_framer *fr);

/* Bytes of memory the framer holds now (its buffer's capacity): what a
 * message in progress costs. A buffer grown past RPC_FRAMER_KEEP for one
 * large message is released once that message is out, so that a
 * connection which once sent 16 MiB does not hold 16 MiB for its life
 * (and thousands of idle ones hold little). */
#define RPC_FRAMER_KEEP 4096u
MDAE_API size_t rpc_framer_held(const rpc_framer *fr);

/* Give up on the stream: release the buffers now and make rc (< 0) the
 * sticky error, so that any later feed returns it. For a connection closed
 * for the server's sake (its partial message over a memory budget) whose
 * handle closes later. */
MDAE_API void rpc_framer_drop(rpc_framer *fr, int rc);

/* Name of a framing ("ndjson", "lsp", "http", "unknown"); static storage. */
MDAE_API const char *rpc_framing_name(rpc_framing framing);

/* ---- Output -------------------------------------------------------------
 * Wrap one message body for the wire, into a new buffer (owned: mdae_free):
 *   NDJSON: body "\n"
 *   LSP:    "Content-Length: N\r\n\r\n" body
 *   HTTP:   one chunk of a chunked response holding body "\n"
 * MDAE_OK, MDAE_E_NOMEM or MDAE_E_INVAL (RPC_FRAMING_UNKNOWN). */
MDAE_API int rpc_frame_encode(rpc_framing framing, const char *body /* borrowed */,
                              size_t len, char **out /* out: owned */,
                              size_t *out_len /* out */);

/* What rpc_frame_encode puts around a body of len bytes, for a writer that
 * sends head, body and tail as they are (a large reply is then not copied):
 * the head into head (RPC_FRAME_HEAD_MAX bytes, *head_len of them), the
 * tail as static storage. MDAE_OK or MDAE_E_INVAL (RPC_FRAMING_UNKNOWN). */
#define RPC_FRAME_HEAD_MAX 48
MDAE_API int rpc_frame_wrap(rpc_framing framing, size_t len, char *head /* out */,
                            size_t *head_len /* out */, const char **tail /* out */);

/* The head of the HTTP response to a POST /rpc: status 200, chunked NDJSON.
 * Static storage. keep_alive selects the Connection header. */
MDAE_API const char *rpc_http_stream_head(bool keep_alive);
/* The last chunk that ends a chunked response. Static storage. */
#define RPC_HTTP_STREAM_END "0\r\n\r\n"

/* A complete, non-chunked HTTP response (owned: mdae_free) with the given
 * status line ("404 Not Found"), content type and body. */
MDAE_API int rpc_http_response(const char *status, const char *content_type,
                               const char *body /* borrowed */, size_t len, bool keep_alive,
                               char **out /* out: owned */, size_t *out_len /* out */);
/* The same with the header lines `headers` ("Name: value\r\n"..., borrowed)
 * in place of "Cache-Control: no-store\r\n" (a static file: its caching,
 * ETag and encoding). */
MDAE_API int rpc_http_response_headers(const char *status, const char *content_type,
                                       const char *headers /* borrowed */,
                                       const char *body /* borrowed */, size_t len,
                                       bool keep_alive, char **out /* out: owned */,
                                       size_t *out_len /* out */);

#endif /* RPC_FRAMER_H */
