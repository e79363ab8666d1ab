/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/server/test_srv_lsp.c -- editor-style LSP sessions (issue 6): a
 * burst of 100 incremental didChange messages (typing, deleting, typing
 * again, with syntax errors on the way) ends with the same diagnostics as a
 * cold didOpen of the final text, whether checks are debounced (default
 * 150 ms) or run after every change (debounce_ms 0: each change cancels the
 * check in flight). publishDiagnostics carries the client's version, which
 * is how the test knows which one is final (no timing is assumed).
 */
#include "srv_test.h"

static cJSON *open_params(const char *uri, const char *text)
{
    cJSON *p = cJSON_CreateObject();
    cJSON *d = cJSON_AddObjectToObject(p, "textDocument");
    cJSON_AddStringToObject(d, "uri", uri);
    cJSON_AddStringToObject(d, "languageId", "mel");
    cJSON_AddNumberToObject(d, "version", 1);
    cJSON_AddStringToObject(d, "text", text);
    return p;
}

/* didChange replacing (line, from)..(line, to) by text, as version v. */
static cJSON *change_params(const char *uri, int v, int line, int from, int to, const char *text)
{
    cJSON *p = cJSON_CreateObject();
    cJSON *d = cJSON_AddObjectToObject(p, "textDocument");
    cJSON_AddStringToObject(d, "uri", uri);
    cJSON_AddNumberToObject(d, "version", v);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "contentChanges"),
                         t_range_edit(line, from, line, to, text));
    return p;
}

static void editor_session(const char *top)
{
    srv_proc p;
    client c;
    srv_start(&p, "", top);
    cl_connect(&c, &p);
    cl_lsp_send(&c, "initialize", 1, cJSON_CreateObject());
    cJSON_Delete(cl_lsp_json(&c));
    cl_lsp_send(&c, "initialized", -1, cJSON_CreateObject());

    char *base = t_model("singular_simple.mel");
    size_t n = strlen(base);
    cr_assert(n > 0 && base[n - 1] == '\n');
    int line = 0;
    for (size_t k = 0; k < n; k++)
        line += base[k] == '\n';
    cl_lsp_send(&c, "textDocument/didOpen", -1, open_params("file:///a.mel", base));

    /* 100 changes on the (empty) last line: type S1, delete it, type the
     * start of S2. The final text has a syntax error. */
    static const char s1[] = "zz : real; ez : equation der(zz) = 1;";
    static const char s2[] = "yy : real; ey : equation der(yy) = 2;";
    int v = 1, col = 0;
    char one[2] = {0, 0};
    char final_line[64] = {0};
    for (size_t k = 0; k < strlen(s1); k++) {
        one[0] = s1[k];
        cl_lsp_send(&c, "textDocument/didChange", -1,
                 change_params("file:///a.mel", ++v, line, col, col, one));
        col++;
    }
    while (col > 0) {
        cl_lsp_send(&c, "textDocument/didChange", -1,
                 change_params("file:///a.mel", ++v, line, col - 1, col, ""));
        col--;
    }
    for (size_t k = 0; v < 101; k++) {
        one[0] = s2[k];
        final_line[k] = s2[k];
        cl_lsp_send(&c, "textDocument/didChange", -1,
                 change_params("file:///a.mel", ++v, line, col, col, one));
        col++;
    }
    cr_assert_eq(v, 101, "100 changes");

    /* The cold reference: the final text opened as another document. */
    size_t fl = strlen(final_line);
    char *final_text = malloc(n + fl + 1);
    memcpy(final_text, base, n);
    memcpy(final_text + n, final_line, fl + 1);
    cl_lsp_send(&c, "textDocument/didOpen", -1, open_params("file:///b.mel", final_text));

    cJSON *last_a = NULL, *cold_b = NULL;
    int published_a = 0;
    while (last_a == NULL || cold_b == NULL) {
        cJSON *m = cl_lsp_json(&c);
        const cJSON *meth = cJSON_GetObjectItem(m, "method");
        if (!cJSON_IsString(meth) ||
            strcmp(meth->valuestring, "textDocument/publishDiagnostics") != 0) {
            cJSON_Delete(m);
            continue;
        }
        cJSON *params = cJSON_GetObjectItem(m, "params");
        const char *uri = cJSON_GetObjectItem(params, "uri")->valuestring;
        const cJSON *ver = cJSON_GetObjectItem(params, "version");
        if (strcmp(uri, "file:///a.mel") == 0) {
            published_a++;
            cr_assert(cJSON_IsNumber(ver), "publishDiagnostics carries the version");
            if (ver->valueint == 101) {
                last_a = cJSON_DetachItemFromObject(params, "diagnostics");
            }
        } else if (strcmp(uri, "file:///b.mel") == 0) {
            cold_b = cJSON_DetachItemFromObject(params, "diagnostics");
        }
        cJSON_Delete(m);
    }
    cr_log_info("%d publications for 100 changes (%s)", published_a, top[0] ? top : "default");
    cr_assert_gt(cJSON_GetArraySize(cold_b), 0, "the final text has a syntax error");
    char *a = cJSON_PrintUnformatted(last_a), *b = cJSON_PrintUnformatted(cold_b);
    cr_assert_str_eq(a, b, "diagnostics after 100 edits equal a cold open");
    cJSON_free(a);
    cJSON_free(b);
    cJSON_Delete(last_a);
    cJSON_Delete(cold_b);
    free(final_text);
    free(base);

    cl_lsp_send(&c, "shutdown", 2, NULL);
    cJSON_Delete(cl_lsp_json(&c));
    cl_lsp_send(&c, "exit", -1, NULL);
    cr_assert(cl_wait_eof(&c));
    cl_close(&c);
    srv_stop(&p);
}

Test(srv_lsp, one_hundred_debounced_changes_end_with_the_diagnostics_of_a_cold_open)
{
    editor_session("");
}

Test(srv_lsp, one_hundred_changes_checked_each_time_end_with_the_diagnostics_of_a_cold_open)
{
    editor_session("\"lsp\": {\"debounce_ms\": 0}");
}

/* Issue 11: Modelica documents, by languageId or by a .mo/.bmo URI; the
 * diagnostics point into the Modelica text (LSP lines are 0-based). */
static cJSON *open_lang(const char *uri, const char *lang, const char *text)
{
    cJSON *p = open_params(uri, text);
    cJSON *d = cJSON_GetObjectItem(p, "textDocument");
    cJSON_ReplaceItemInObject(d, "languageId", cJSON_CreateString(lang));
    return p;
}

Test(srv_lsp, checks_modelica_documents_by_language_id_or_extension)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    cl_lsp_send(&c, "initialize", 1, cJSON_CreateObject());
    cJSON_Delete(cl_lsp_json(&c));
    cl_lsp_send(&c, "initialized", -1, cJSON_CreateObject());
    const char *text = "model M\n  Real x;\nequation\n  der(x) = -x +;\nend M;\n";
    cl_lsp_send(&c, "textDocument/didOpen", -1, open_lang("file:///m.txt", "modelica", text));
    cl_lsp_send(&c, "textDocument/didOpen", -1, open_lang("file:///n.bmo", "plaintext", text));
    int seen = 0;
    while (seen < 2) {
        cJSON *m = cl_lsp_json(&c);
        const cJSON *meth = cJSON_GetObjectItem(m, "method");
        if (!cJSON_IsString(meth) ||
            strcmp(meth->valuestring, "textDocument/publishDiagnostics") != 0) {
            cJSON_Delete(m);
            continue;
        }
        cJSON *params = cJSON_GetObjectItem(m, "params");
        cJSON *diags = cJSON_GetObjectItem(params, "diagnostics");
        /* the syntax error first, then what the analysis of the rest says
         * (x has no equation left: issue 36 item 2) */
        cr_assert_geq(cJSON_GetArraySize(diags), 1, "one syntax error");
        cr_assert_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(diags, 0), "severity")->valueint, 1);
        cJSON *range = cJSON_GetObjectItem(cJSON_GetArrayItem(diags, 0), "range");
        cJSON *start = cJSON_GetObjectItem(range, "start");
        cr_assert_eq(cJSON_GetObjectItem(start, "line")->valueint, 3);
        cr_assert_eq(cJSON_GetObjectItem(start, "character")->valueint, 15);
        cJSON_Delete(m);
        seen++;
    }
    cl_lsp_send(&c, "shutdown", 2, NULL);
    cJSON_Delete(cl_lsp_json(&c));
    cl_lsp_send(&c, "exit", -1, NULL);
    cr_assert(cl_wait_eof(&c));
    cl_close(&c);
    srv_stop(&p);
}
