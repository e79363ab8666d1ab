/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_lsp.h -- positions of the language-server protocol: 0-based
 * lines and UTF-16 code units within the line, against our UTF-8 texts and
 * 1-based byte positions (mdae_pos); and the LSP Diagnostic object.
 *
 * And the pieces of a generated file (issue 39 item 5, the RIMIS code
 * action): the URI of a file beside a document, and the WorkspaceEdit that
 * creates it with a text (workspace/applyEdit).
 *
 * Why: the router applies editors' edits (session/edit, didChange) and the
 * worker places diagnostics for them; both must count characters the same
 * way, so the conversion is written once, here (issue 12).
 *
 * Position encodings (LSP 3.17 general.positionEncodings, issue 15): UTF-16
 * code units by default; UTF-8 (bytes) when the client offers it and the
 * server chose it (srv_lsp.c); every conversion takes the encoding.
 *
 * The UTF-16 conversion: a character is one UTF-8 sequence (the length given by its
 * first byte; a stray continuation or invalid byte counts as one character);
 * characters outside the BMP (4-byte sequences) are two UTF-16 units (a
 * surrogate pair), every other one is one unit. LSP's leniency is kept: a
 * character past the end of its line means the end of the line, and a line
 * past the end of the text means the end of the text.
 *
 * Promises: pure data conversion; no I/O, no logging, no global state but
 * cJSON's hooks (rpc_message_init). Reentrant.
 * Errors: MDAE_OK, MDAE_E_NOMEM (nothing leaked, *out untouched).
 * Ownership: texts are borrowed for the call; *out is a new tree owned by
 * the caller.
 */
#ifndef RPC_LSP_H
#define RPC_LSP_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "mdae.h"

/* LSP DiagnosticSeverity. */
enum { RPC_LSP_ERROR = 1, RPC_LSP_WARNING = 2, RPC_LSP_INFORMATION = 3, RPC_LSP_HINT = 4 };

/* LSP PositionEncodingKind: how `character` counts. */
typedef enum rpc_lsp_enc { RPC_LSP_UTF16 = 0, RPC_LSP_UTF8 = 1 } rpc_lsp_enc;

/* The byte offset in text[0..len) of the LSP position (line, character). */
MDAE_API size_t rpc_lsp_offset(const char *text /* borrowed */, size_t len, double line,
                               double character, rpc_lsp_enc enc);

/* {"line","character"} of p (1-based line and byte column, byte offset) in
 * text[0..len). A position with line 0 (nowhere) is line 0, character 0. */
MDAE_API int rpc_lsp_position(const char *text /* borrowed */, size_t len, const mdae_pos *p,
                              rpc_lsp_enc enc, cJSON **out /* out: owned */);

/* {"start","end"} of r; an end with line 0 is the start (an empty range). */
MDAE_API int rpc_lsp_range(const char *text /* borrowed */, size_t len, const mdae_range *r,
                           rpc_lsp_enc enc, cJSON **out /* out: owned */);

/* An LSP Diagnostic: {"range":{"start","end"},"severity","source":"mdae",
 * "message"}. A range whose end line is 0 is the empty range at its start. */
MDAE_API int rpc_lsp_diagnostic(const char *text /* borrowed */, size_t len,
                                const mdae_range *r, int severity, const char *message,
                                rpc_lsp_enc enc, cJSON **out /* out: owned */);

/* The URI of the file NAME.EXT in the directory of doc_uri, a "file:" URI
 * (file:///home/u/tank.mo and WaterTank_rimis, mo -> file:///home/u/
 * WaterTank_rimis.mo). Characters of name outside [A-Za-z0-9_] become '_'
 * (no escaping needed, no path taken from a model's name); an empty name is
 * "model". MDAE_OK with *out owned (mdae_free); MDAE_E_INVAL when doc_uri
 * is not a "file:" URI with a directory (untitled:..., a bare scheme) or
 * the result would be doc_uri itself; MDAE_E_NOMEM. */
MDAE_API int rpc_lsp_sibling_uri(const char *doc_uri, const char *name, const char *ext,
                                 char **out /* out: owned */);

/* The WorkspaceEdit that creates (or overwrites) the file at uri and writes
 * text into it: {"documentChanges":[{"kind":"create","uri","options":
 * {"overwrite":true}}, {"textDocument":{"uri","version":null},"edits":
 * [{"range":0:0-0:0,"newText":text}]}]} -- for a client that announced
 * workspace.workspaceEdit.documentChanges and resourceOperations "create". */
MDAE_API int rpc_lsp_create_file_edit(const char *uri /* borrowed */,
                                      const char *text /* borrowed */,
                                      cJSON **out /* out: owned */);

#endif /* RPC_LSP_H */
