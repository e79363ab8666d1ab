/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/protocol/test_rpc_lsp.c -- LSP positions against UTF-8 texts
 * (protocol/rpc_lsp.h): UTF-16 units (astral characters count two), LSP's
 * leniency past the end of a line or of the text, the round trip between
 * the router's conversion (edits) and the worker's (diagnostics), and
 * allocation failures.
 */
#include <criterion/criterion.h>

#include <string.h>

#include "rpc_lsp.h"
#include "rpc_message.h"

#include "fail_alloc.h"

/* "a\xc3\xa9\xf0\x9f\x98\x80b\n" is a, e-acute (2 bytes, 1 unit), an emoji
 * (4 bytes, 2 units), b. */
static const char text[] = "x = 1;\na\xc3\xa9\xf0\x9f\x98\x80" "b = 2;\nlast";

static double num(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k)->valuedouble;
}

Test(rpc_lsp, counts_astral_characters_as_two_utf16_units)
{
    size_t len = strlen(text);
    cr_assert_eq(rpc_lsp_offset(text, len, 1, 0, RPC_LSP_UTF16), 7);
    cr_assert_eq(rpc_lsp_offset(text, len, 1, 1, RPC_LSP_UTF16), 8);  /* after a */
    cr_assert_eq(rpc_lsp_offset(text, len, 1, 2, RPC_LSP_UTF16), 10); /* after e-acute */
    cr_assert_eq(rpc_lsp_offset(text, len, 1, 4, RPC_LSP_UTF16), 14); /* after the emoji */
    cr_assert_eq(text[14], 'b');
}

Test(rpc_lsp, clamps_past_the_end_of_a_line_and_of_the_text)
{
    size_t len = strlen(text);
    cr_assert_eq(rpc_lsp_offset(text, len, 0, 99, RPC_LSP_UTF16), 6); /* the end of line 0 */
    cr_assert_eq(rpc_lsp_offset(text, len, 9, 0, RPC_LSP_UTF16), len);
}

Test(rpc_lsp, gives_back_the_position_an_edit_would_use)
{
    size_t len = strlen(text);
    /* b is at byte 14: line 2, column 8 (1-based bytes) */
    mdae_pos p = {2, 8, 14};
    cJSON *o = NULL;
    cr_assert_eq(rpc_lsp_position(text, len, &p, RPC_LSP_UTF16, &o), MDAE_OK);
    cr_assert_eq(num(o, "line"), 1);
    cr_assert_eq(num(o, "character"), 4);
    cr_assert_eq(rpc_lsp_offset(text, len, num(o, "line"), num(o, "character"), RPC_LSP_UTF16), 14);
    cJSON_Delete(o);
}

Test(rpc_lsp, builds_a_diagnostic_with_an_empty_range_when_the_end_is_unknown)
{
    mdae_range r = {{2, 8, 14}, {0, 0, 0}};
    cJSON *d = NULL;
    cr_assert_eq(rpc_lsp_diagnostic(text, strlen(text), &r, RPC_LSP_WARNING, "m", RPC_LSP_UTF16, &d), MDAE_OK);
    char *s = cJSON_PrintUnformatted(d);
    cr_assert_str_eq(s, "{\"range\":{\"start\":{\"line\":1,\"character\":4},\"end\":{\"line\":1,"
                        "\"character\":4}},\"severity\":2,\"source\":\"mdae\",\"message\":\"m\"}");
    cJSON_free(s);
    cJSON_Delete(d);
}

Test(rpc_lsp, reports_allocation_failures_without_leaks)
{
    rpc_message_init();
    cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
    mdae_range r = {{1, 1, 0}, {1, 3, 2}};
    for (long n = 0;; n++) {
        counting_arm(n);
        cJSON *d = NULL;
        int rc = rpc_lsp_diagnostic(text, strlen(text), &r, RPC_LSP_ERROR, "oops", RPC_LSP_UTF16, &d);
        if (rc == MDAE_OK) {
            cJSON_Delete(d);
            cr_assert_eq(live, 0);
            break;
        }
        cr_assert_eq(rc, MDAE_E_NOMEM);
        cr_assert_null(d);
        cr_assert_eq(live, 0, "allocation %ld: %ld blocks leaked", n, live);
    }
    counting_arm(-1);
    mdae_replace_allocator(NULL);
}

/* Issue 15: a client that offers "utf-8" in general.positionEncodings counts
 * bytes; the conversion both ways follows the negotiated encoding. */
Test(rpc_lsp, counts_bytes_when_the_encoding_is_utf8)
{
    size_t len = strlen(text);
    cr_assert_eq(rpc_lsp_offset(text, len, 1, 1, RPC_LSP_UTF8), 8);  /* after a */
    cr_assert_eq(rpc_lsp_offset(text, len, 1, 3, RPC_LSP_UTF8), 10); /* after e-acute */
    cr_assert_eq(rpc_lsp_offset(text, len, 1, 7, RPC_LSP_UTF8), 14); /* after the emoji */
    mdae_pos p = {2, 8, 14}; /* line 2, byte column 8: before b */
    cJSON *o = NULL;
    cr_assert_eq(rpc_lsp_position(text, len, &p, RPC_LSP_UTF8, &o), MDAE_OK);
    cr_assert_eq(num(o, "character"), 7);
    cJSON_Delete(o);
    cr_assert_eq(rpc_lsp_position(text, len, &p, RPC_LSP_UTF16, &o), MDAE_OK);
    cr_assert_eq(num(o, "character"), 4);
    cJSON_Delete(o);
}

/* Issue 39 item 5: the RIMIS code action writes NAME.mo beside the
 * document, with a name that can take no path, and only for "file:" URIs. */
Test(rpc_lsp, names_a_sibling_file_of_a_document)
{
    char *u = NULL;
    cr_assert_eq(rpc_lsp_sibling_uri("file:///home/u/tank.mo", "WaterTank_rimis", "mo", &u),
                 MDAE_OK);
    cr_assert_str_eq(u, "file:///home/u/WaterTank_rimis.mo");
    mdae_free(u);
    cr_assert_eq(rpc_lsp_sibling_uri("file:///t.mel", "../etc/x y", "mo", &u), MDAE_OK);
    cr_assert_str_eq(u, "file:///___etc_x_y.mo");
    mdae_free(u);
    cr_assert_eq(rpc_lsp_sibling_uri("file:///d/a.mel", "", "mo", &u), MDAE_OK);
    cr_assert_str_eq(u, "file:///d/model.mo");
    mdae_free(u);
    u = NULL;
    cr_assert_eq(rpc_lsp_sibling_uri("untitled:Untitled-1", "M", "mo", &u), MDAE_E_INVAL);
    cr_assert_eq(rpc_lsp_sibling_uri("file:", "M", "mo", &u), MDAE_E_INVAL);
    cr_assert_eq(rpc_lsp_sibling_uri("file:///d/M.mo", "M", "mo", &u), MDAE_E_INVAL,
                 "never the document itself");
    cr_assert_null(u);
}

Test(rpc_lsp, builds_the_edit_that_creates_a_file_with_a_text)
{
    cJSON *w = NULL;
    cr_assert_eq(rpc_lsp_create_file_edit("file:///d/M.mo", "model M\nend M;\n", &w), MDAE_OK);
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(w, "documentChanges");
    cr_assert_eq(cJSON_GetArraySize(ch), 2);
    const cJSON *create = cJSON_GetArrayItem(ch, 0), *edit = cJSON_GetArrayItem(ch, 1);
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(create, "kind")->valuestring, "create");
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(create, "uri")->valuestring,
                     "file:///d/M.mo");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(create, "options"), "overwrite")));
    const cJSON *doc = cJSON_GetObjectItemCaseSensitive(edit, "textDocument");
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(doc, "uri")->valuestring, "file:///d/M.mo");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(doc, "version")));
    const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(edit, "edits"), 0);
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(e, "newText")->valuestring,
                     "model M\nend M;\n");
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "range");
    cr_assert_eq(num(cJSON_GetObjectItemCaseSensitive(r, "start"), "line"), 0);
    cr_assert_eq(num(cJSON_GetObjectItemCaseSensitive(r, "end"), "character"), 0);
    cJSON_Delete(w);

    /* out of memory at every allocation: an error, nothing leaked */
    cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
    for (long n = 0;; n++) {
        counting_arm(n);
        cJSON *x = NULL;
        int rc = rpc_lsp_create_file_edit("file:///d/M.mo", "text", &x);
        if (rc == MDAE_OK) {
            cJSON_Delete(x);
            cr_assert_eq(live, 0);
            break;
        }
        cr_assert_eq(rc, MDAE_E_NOMEM);
        cr_assert_null(x);
        cr_assert_eq(live, 0, "allocation %ld: %ld blocks leaked", n, live);
    }
    counting_arm(-1);
    mdae_replace_allocator(NULL);
}
