/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_lsp.c -- LSP positions (UTF-16 units) against UTF-8 texts,
 * LSP Diagnostic objects, and the URI and WorkspaceEdit of a generated file;
 * rpc_lsp.h says why and how characters count.
 */
#include "rpc_lsp.h"

#include <stdbool.h>
#include <string.h>

#include "rpc_message.h"

/* Bytes of the UTF-8 sequence that starts with b (1 for a stray byte). */
static size_t utf8_len(unsigned char b)
{
    return b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
}

/* Code units of the character of n UTF-8 bytes in encoding enc. */
static size_t units_of(size_t n, rpc_lsp_enc enc)
{
    return enc == RPC_LSP_UTF8 ? n : n == 4 ? 2 : 1; /* astral: a surrogate pair */
}

size_t rpc_lsp_offset(const char *text, size_t len, double line, double character,
                      rpc_lsp_enc enc)
{
    size_t i = 0;
    for (double l = 0; l < line; l++) {
        const char *nl = memchr(text + i, '\n', len - i);
        if (nl == NULL)
            return len;
        i = (size_t)(nl - text) + 1;
    }
    double units = 0;
    while (i < len && text[i] != '\n' && units < character) {
        size_t n = utf8_len((unsigned char)text[i]);
        if (i + n > len)
            n = len - i;
        units += (double)units_of(n, enc);
        i += n;
    }
    return i;
}

int rpc_lsp_position(const char *text, size_t len, const mdae_pos *p, rpc_lsp_enc enc,
                     cJSON **out)
{
    rpc_message_init();
    uint32_t line = p->line ? p->line - 1 : 0;
    size_t units = 0;
    if (p->line != 0 && p->offset <= len && p->col >= 1 && p->col - 1 <= p->offset) {
        size_t start = p->offset - (p->col - 1);
        for (size_t i = start; i < p->offset;) {
            size_t n = utf8_len((unsigned char)text[i]);
            units += units_of(n, enc);
            i += n;
        }
    }
    cJSON *o = cJSON_CreateObject();
    if (o == NULL || !cJSON_AddNumberToObject(o, "line", line) ||
        !cJSON_AddNumberToObject(o, "character", (double)units)) {
        cJSON_Delete(o);
        return MDAE_E_NOMEM;
    }
    *out = o;
    return MDAE_OK;
}

int rpc_lsp_range(const char *text, size_t len, const mdae_range *r, rpc_lsp_enc enc,
                  cJSON **out)
{
    rpc_message_init();
    mdae_range rr = *r;
    if (rr.end.line == 0)
        rr.end = rr.start;
    cJSON *range = cJSON_CreateObject();
    cJSON *start = NULL, *end = NULL;
    if (range == NULL || rpc_lsp_position(text, len, &rr.start, enc, &start) < 0 ||
        !cJSON_AddItemToObject(range, "start", start))
        goto nomem;
    start = NULL;
    if (rpc_lsp_position(text, len, &rr.end, enc, &end) < 0 ||
        !cJSON_AddItemToObject(range, "end", end))
        goto nomem;
    *out = range;
    return MDAE_OK;
nomem:
    cJSON_Delete(start);
    cJSON_Delete(end);
    cJSON_Delete(range);
    return MDAE_E_NOMEM;
}

int rpc_lsp_diagnostic(const char *text, size_t len, const mdae_range *r, int severity,
                       const char *message, rpc_lsp_enc enc, cJSON **out)
{
    rpc_message_init();
    cJSON *d = cJSON_CreateObject();
    cJSON *range = NULL;
    if (d == NULL || rpc_lsp_range(text, len, r, enc, &range) < 0 ||
        !cJSON_AddItemToObject(d, "range", range))
        goto nomem;
    range = NULL;
    if (!cJSON_AddNumberToObject(d, "severity", severity) ||
        !cJSON_AddStringToObject(d, "source", "mdae") ||
        !cJSON_AddStringToObject(d, "message", message ? message : ""))
        goto nomem;
    *out = d;
    return MDAE_OK;
nomem:
    cJSON_Delete(range);
    cJSON_Delete(d);
    return MDAE_E_NOMEM;
}

static bool name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_';
}

int rpc_lsp_sibling_uri(const char *doc_uri, const char *name, const char *ext, char **out)
{
    static const char scheme[] = "file:";
    if (strncmp(doc_uri, scheme, sizeof scheme - 1) != 0)
        return MDAE_E_INVAL;
    const char *slash = strrchr(doc_uri, '/');
    if (slash == NULL || slash < doc_uri + sizeof scheme - 1)
        return MDAE_E_INVAL;
    size_t dir = (size_t)(slash - doc_uri) + 1, n = strlen(name);
    if (n == 0) {
        name = "model";
        n = strlen(name);
    }
    size_t e = strlen(ext);
    char *u = mdae_malloc(dir + n + 1 + e + 1);
    if (u == NULL)
        return MDAE_E_NOMEM;
    memcpy(u, doc_uri, dir);
    for (size_t k = 0; k < n; k++)
        u[dir + k] = name_char(name[k]) ? name[k] : '_';
    u[dir + n] = '.';
    memcpy(u + dir + n + 1, ext, e + 1);
    if (strcmp(u, doc_uri) == 0) {
        mdae_free(u);
        return MDAE_E_INVAL;
    }
    *out = u;
    return MDAE_OK;
}

/* Adds {"line":0,"character":0} to o as key; false on OOM (nothing leaked). */
static bool add_origin(cJSON *o, const char *key)
{
    cJSON *p = cJSON_AddObjectToObject(o, key);
    return p != NULL && cJSON_AddNumberToObject(p, "line", 0) &&
           cJSON_AddNumberToObject(p, "character", 0);
}

/* {"kind":"create","uri":uri,"options":{"overwrite":true}} */
static cJSON *create_file(const char *uri)
{
    cJSON *c = cJSON_CreateObject(), *o = NULL;
    if (c == NULL || !cJSON_AddStringToObject(c, "kind", "create") ||
        !cJSON_AddStringToObject(c, "uri", uri) ||
        (o = cJSON_AddObjectToObject(c, "options")) == NULL ||
        !cJSON_AddTrueToObject(o, "overwrite")) {
        cJSON_Delete(c);
        return NULL;
    }
    return c;
}

/* {"textDocument":{"uri","version":null},"edits":[{"range":0:0-0:0,"newText"}]} */
static cJSON *insert_text(const char *uri, const char *text)
{
    cJSON *d = cJSON_CreateObject(), *doc = NULL, *edits = NULL, *range = NULL;
    cJSON *edit = cJSON_CreateObject();
    if (d == NULL || edit == NULL || (edits = cJSON_AddArrayToObject(d, "edits")) == NULL ||
        !cJSON_AddItemToArray(edits, edit)) {
        cJSON_Delete(d);
        cJSON_Delete(edit);
        return NULL;
    }
    /* edit is d's from here */
    if ((doc = cJSON_AddObjectToObject(d, "textDocument")) == NULL ||
        !cJSON_AddStringToObject(doc, "uri", uri) || !cJSON_AddNullToObject(doc, "version") ||
        (range = cJSON_AddObjectToObject(edit, "range")) == NULL || !add_origin(range, "start") ||
        !add_origin(range, "end") || !cJSON_AddStringToObject(edit, "newText", text)) {
        cJSON_Delete(d);
        return NULL;
    }
    return d;
}

int rpc_lsp_create_file_edit(const char *uri, const char *text, cJSON **out)
{
    rpc_message_init();
    cJSON *w = cJSON_CreateObject(), *changes = NULL;
    cJSON *create = create_file(uri), *insert = insert_text(uri, text);
    if (w == NULL || create == NULL || insert == NULL ||
        (changes = cJSON_AddArrayToObject(w, "documentChanges")) == NULL) {
        cJSON_Delete(w);
        cJSON_Delete(create);
        cJSON_Delete(insert);
        return MDAE_E_NOMEM;
    }
    cJSON_AddItemToArray(changes, create);
    cJSON_AddItemToArray(changes, insert);
    *out = w;
    return MDAE_OK;
}
