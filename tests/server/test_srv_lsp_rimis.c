/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/server/test_srv_lsp_rimis.c -- the code action "Generate a
 * mode-independent model" and its command mdae.rimis (issue 39 item 5,
 * server/srv_lsp_rimis.c) over the LSP framing, against a real mdaed and
 * its workers: offered for the editor's documents (and not when the client
 * asks only for other kinds); with a client that can create files (VS Code,
 * Neovim 0.7.2 announce resourceOperations "create") the Water Tank's
 * model is written beside the document by workspace/applyEdit and, once
 * applied, opened with window/showDocument; a refused edit is said; a
 * client that cannot create files gets the text as the command's result; a
 * singular model is refused with its reason, shown; bad arguments.
 */
#include "srv_test.h"

#define URI "file:///tmp/mdae-models/water_tank.mel"

/* Start mdaed, initialize with `caps` (taken; NULL: none), open `text` as
 * URI. */
static void start(srv_proc *p, client *c, cJSON *caps, const char *text)
{
    srv_start(p, "", "");
    cl_connect(c, p);
    cJSON *ip = cJSON_CreateObject();
    if (caps != NULL)
        cJSON_AddItemToObject(ip, "capabilities", caps);
    cl_lsp_send(c, "initialize", 1, ip);
    cJSON *r = cl_lsp_json(c);
    cr_assert_not_null(cJSON_GetObjectItem(r, "result"));
    cJSON_Delete(r);
    cl_lsp_send(c, "initialized", -1, cJSON_CreateObject());
    cl_lsp_did_open(c, URI, "mel", text);
}

static void stop(srv_proc *p, client *c)
{
    cl_lsp_shutdown(c, 999);
    cl_close(c);
    srv_stop(p);
}

/* What VS Code (show: window.showDocument too; documentChanges) and Neovim
 * 0.7.2 (neither: resourceOperations imply documentChanges) announce that
 * matters here. */
static cJSON *file_caps(bool show)
{
    cJSON *caps = cJSON_CreateObject();
    cJSON *ws = cJSON_AddObjectToObject(caps, "workspace");
    cJSON_AddTrueToObject(ws, "applyEdit");
    cJSON *we = cJSON_AddObjectToObject(ws, "workspaceEdit");
    if (show)
        cJSON_AddTrueToObject(we, "documentChanges");
    cJSON *ops = cJSON_AddArrayToObject(we, "resourceOperations");
    cJSON_AddItemToArray(ops, cJSON_CreateString("rename"));
    cJSON_AddItemToArray(ops, cJSON_CreateString("create"));
    cJSON_AddItemToArray(ops, cJSON_CreateString("delete"));
    if (show)
        cJSON_AddTrueToObject(cJSON_AddObjectToObject(cJSON_AddObjectToObject(caps, "window"),
                                                      "showDocument"),
                              "support");
    return caps;
}

/* Read messages into `seen` (an array, each appended) until one is the
 * request or notification `method`, or (method NULL) the response to id;
 * returned (borrowed from seen). */
static const cJSON *read_until(client *c, const char *method, int id, cJSON *seen)
{
    for (;;) {
        cJSON *m = cl_lsp_json(c);
        cJSON_AddItemToArray(seen, m);
        const cJSON *meth = cJSON_GetObjectItem(m, "method");
        const cJSON *mid = cJSON_GetObjectItem(m, "id");
        if (method != NULL && cJSON_IsString(meth) && strcmp(meth->valuestring, method) == 0)
            return m;
        if (method == NULL && meth == NULL && cJSON_IsNumber(mid) && mid->valueint == id)
            return m;
    }
}

/* The first message of seen whose method is `method`, or NULL. */
static const cJSON *find(const cJSON *seen, const char *method)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, seen)
    {
        const cJSON *meth = cJSON_GetObjectItem(m, "method");
        if (cJSON_IsString(meth) && strcmp(meth->valuestring, method) == 0)
            return m;
    }
    return NULL;
}

static cJSON *rimis_params(const char *uri, cJSON *opts /* taken, may be NULL */)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "command", "mdae.rimis");
    cJSON *args = cJSON_AddArrayToObject(p, "arguments");
    if (uri != NULL)
        cJSON_AddItemToArray(args, cJSON_CreateString(uri));
    if (opts != NULL)
        cJSON_AddItemToArray(args, opts);
    return p;
}

/* The client's response {id, result} in LSP framing (result taken). */
static void respond(client *c, const char *id, cJSON *result)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddStringToObject(m, "id", id);
    cJSON_AddItemToObject(m, "result", result);
    char *s = cJSON_PrintUnformatted(m);
    char hdr[64];
    snprintf(hdr, sizeof hdr, "Content-Length: %zu\r\n\r\n", strlen(s));
    cl_send(c, hdr);
    cl_send(c, s);
    cJSON_free(s);
    cJSON_Delete(m);
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    cr_assert(cJSON_IsString(v), "no string \"%s\" in %s", k, cJSON_PrintUnformatted(o));
    return v->valuestring;
}

static cJSON *code_action_params(const char *uri, const char *only)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "textDocument"), "uri", uri);
    cJSON *ctx = cJSON_AddObjectToObject(p, "context");
    cJSON_AddArrayToObject(ctx, "diagnostics");
    if (only != NULL)
        cJSON_AddItemToArray(cJSON_AddArrayToObject(ctx, "only"), cJSON_CreateString(only));
    return p;
}

Test(srv_lsp_rimis, offers_the_code_action_on_its_documents)
{
    srv_proc p;
    client c;
    char *text = t_model("water_tank.mel");
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    cl_lsp_send(&c, "initialize", 1, cJSON_CreateObject());
    cJSON *init = cl_lsp_json(&c);
    const cJSON *caps = cJSON_GetObjectItem(cJSON_GetObjectItem(init, "result"), "capabilities");
    cr_assert_not_null(cJSON_GetObjectItem(caps, "codeActionProvider"));
    const cJSON *cmds = cJSON_GetObjectItem(cJSON_GetObjectItem(caps, "executeCommandProvider"),
                                            "commands");
    cr_assert_str_eq(cJSON_GetArrayItem(cmds, 1)->valuestring, "mdae.rimis");
    cJSON_Delete(init);
    cl_lsp_did_open(&c, URI, "mel", text);

    cJSON *seen = cJSON_CreateArray();
    cl_lsp_send(&c, "textDocument/codeAction", 2, code_action_params(URI, NULL));
    const cJSON *r = cJSON_GetObjectItem(read_until(&c, NULL, 2, seen), "result");
    cr_assert_eq(cJSON_GetArraySize(r), 1);
    const cJSON *a = cJSON_GetArrayItem(r, 0);
    cr_assert_str_eq(str(a, "title"), "Generate a mode-independent model");
    cr_assert_str_eq(str(a, "kind"), "source");
    const cJSON *cmd = cJSON_GetObjectItem(a, "command");
    cr_assert_str_eq(str(cmd, "command"), "mdae.rimis");
    cr_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(cmd, "arguments"), 0)->valuestring,
                     URI);

    cl_lsp_send(&c, "textDocument/codeAction", 3, code_action_params(URI, "quickfix"));
    r = cJSON_GetObjectItem(read_until(&c, NULL, 3, seen), "result");
    cr_assert_eq(cJSON_GetArraySize(r), 0, "only quick fixes asked for");
    cl_lsp_send(&c, "textDocument/codeAction", 4, code_action_params(URI, "source"));
    r = cJSON_GetObjectItem(read_until(&c, NULL, 4, seen), "result");
    cr_assert_eq(cJSON_GetArraySize(r), 1);
    cl_lsp_send(&c, "textDocument/codeAction", 5, code_action_params("file:///nope.mel", NULL));
    r = cJSON_GetObjectItem(read_until(&c, NULL, 5, seen), "result");
    cr_assert_eq(cJSON_GetArraySize(r), 0, "not a document of ours");
    cJSON_Delete(seen);
    free(text);
    stop(&p, &c);
}

Test(srv_lsp_rimis, creates_the_model_beside_the_document_and_opens_it)
{
    srv_proc p;
    client c;
    char *text = t_model("water_tank.mel");
    start(&p, &c, file_caps(true), text);
    cJSON *seen = cJSON_CreateArray();
    cl_lsp_send(&c, "workspace/executeCommand", 2, rimis_params(URI, NULL));
    const cJSON *resp = read_until(&c, NULL, 2, seen);
    const cJSON *res = cJSON_GetObjectItem(resp, "result");
    cr_assert_not_null(res, "%s", cJSON_PrintUnformatted(resp));
    const char *name = str(res, "name");
    char want[256];
    snprintf(want, sizeof want, "file:///tmp/mdae-models/%s.mo", name);
    cr_assert_str_eq(str(res, "uri"), want);
    cr_assert_null(cJSON_GetObjectItem(res, "text"), "written, not returned");
    cr_assert_gt(cJSON_GetObjectItem(res, "blocks")->valueint, 0);
    cr_assert_gt(cJSON_GetObjectItem(res, "lines")->valueint, 0);

    const cJSON *apply = find(seen, "workspace/applyEdit");
    cr_assert_not_null(apply, "the file is created by the editor");
    const cJSON *changes = cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(apply, "params"), "edit"), "documentChanges");
    cr_assert_str_eq(str(cJSON_GetArrayItem(changes, 0), "kind"), "create");
    cr_assert_str_eq(str(cJSON_GetArrayItem(changes, 0), "uri"), want);
    const cJSON *edit = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(changes, 1), "edits"), 0);
    const char *mo = str(edit, "newText");
    char head[300];
    snprintf(head, sizeof head, "model %s", name);
    cr_assert(strstr(mo, head) != NULL && strstr(mo, "// Block") != NULL,
              "the generated Modelica with its block headers:\n%s", mo);
    const cJSON *msg = find(seen, "window/showMessage");
    cr_assert_not_null(msg);
    cr_assert(strstr(str(cJSON_GetObjectItem(msg, "params"), "message"), want) != NULL,
              "the user is told where it went");

    /* applied: the editor opens it */
    respond(&c, str(apply, "id"), cJSON_CreateRaw("{\"applied\":true}"));
    const cJSON *show = read_until(&c, "window/showDocument", 0, seen);
    cr_assert_str_eq(str(cJSON_GetObjectItem(show, "params"), "uri"), want);

    /* refused by the editor: said */
    cl_lsp_send(&c, "workspace/executeCommand", 3, rimis_params(URI, NULL));
    read_until(&c, NULL, 3, seen);
    cJSON_Delete(seen);
    seen = cJSON_CreateArray();
    respond(&c, "mdae/rimis/2",
            cJSON_CreateRaw("{\"applied\":false,\"failureReason\":\"read-only folder\"}"));
    msg = read_until(&c, "window/showMessage", 0, seen);
    const char *said = str(cJSON_GetObjectItem(msg, "params"), "message");
    cr_assert(strstr(said, "did not create") != NULL && strstr(said, "read-only folder") != NULL,
              "%s", said);
    cr_assert_null(find(seen, "window/showDocument"));
    cJSON_Delete(seen);
    free(text);
    stop(&p, &c);
}

Test(srv_lsp_rimis, gives_the_text_to_a_client_that_cannot_create_files)
{
    srv_proc p;
    client c;
    char *text = t_model("water_tank.mel");
    start(&p, &c, NULL, text);
    cJSON *seen = cJSON_CreateArray();
    cl_lsp_send(&c, "workspace/executeCommand", 2, rimis_params(URI, NULL));
    const cJSON *res = cJSON_GetObjectItem(read_until(&c, NULL, 2, seen), "result");
    cr_assert_not_null(res);
    cr_assert_null(cJSON_GetObjectItem(res, "uri"));
    const char *guarded = str(res, "text");
    cr_assert(strncmp(guarded, "model ", 6) == 0 || strstr(guarded, "\nmodel ") != NULL);
    cr_assert_null(find(seen, "workspace/applyEdit"));
    const cJSON *msg = find(seen, "window/showMessage");
    cr_assert_not_null(msg);
    cr_assert(strstr(str(cJSON_GetObjectItem(msg, "params"), "message"), "cannot create files"));

    /* {"guard": false}: section 4.7 off, another text */
    cl_lsp_send(&c, "workspace/executeCommand", 3,
                rimis_params(URI, cJSON_CreateRaw("{\"guard\":false}")));
    const cJSON *res2 = cJSON_GetObjectItem(read_until(&c, NULL, 3, seen), "result");
    cr_assert_not_null(res2);
    cr_assert_str_neq(str(res2, "text"), guarded);
    cJSON_Delete(seen);
    free(text);
    stop(&p, &c);
}

Test(srv_lsp_rimis, refuses_a_singular_model_with_its_reason)
{
    srv_proc p;
    client c;
    char *text = t_model("singular_simple.mel");
    start(&p, &c, file_caps(true), text);
    cJSON *seen = cJSON_CreateArray();
    cl_lsp_send(&c, "workspace/executeCommand", 2, rimis_params(URI, NULL));
    const cJSON *resp = read_until(&c, NULL, 2, seen);
    cr_assert_not_null(cJSON_GetObjectItem(resp, "error"), "%s", cJSON_PrintUnformatted(resp));
    cr_assert(strstr(error_message(resp), "no mode-independent model") != NULL, "%s",
              error_message(resp));
    cr_assert(strstr(error_message(resp), ":1") != NULL || strstr(error_message(resp), ":2") != NULL,
              "the first reason, located: %s", error_message(resp));
    cr_assert(strstr(error_message(resp), "singular") != NULL, "%s", error_message(resp));
    const cJSON *msg = find(seen, "window/showMessage");
    cr_assert_not_null(msg, "shown, for editors that drop a command's error");
    cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(msg, "params"), "type")->valueint, 1);
    cr_assert_null(find(seen, "workspace/applyEdit"));
    cJSON_Delete(seen);
    free(text);
    stop(&p, &c);
}

Test(srv_lsp_rimis, refuses_bad_arguments)
{
    srv_proc p;
    client c;
    start(&p, &c, NULL, "x : real; e : equation der(x) = 1;");
    cJSON *seen = cJSON_CreateArray();
    cl_lsp_send(&c, "workspace/executeCommand", 2, rimis_params(NULL, NULL));
    cr_assert_eq(error_code(read_until(&c, NULL, 2, seen)), -32602);
    cl_lsp_send(&c, "workspace/executeCommand", 3, rimis_params(URI, cJSON_CreateRaw("{\"guard\":1}")));
    cr_assert_eq(error_code(read_until(&c, NULL, 3, seen)), -32602);
    cl_lsp_send(&c, "workspace/executeCommand", 4, rimis_params("file:///other.mel", NULL));
    const cJSON *r = read_until(&c, NULL, 4, seen);
    cr_assert(strstr(error_message(r), "no such document") != NULL);
    cJSON_Delete(seen);
    stop(&p, &c);
}

/* Neovim 0.7.2's capabilities: a file, created, and no showDocument. */
Test(srv_lsp_rimis, creates_the_file_for_neovim_0_7_without_showing_it)
{
    srv_proc p;
    client c;
    char *text = t_model("water_tank.mel");
    start(&p, &c, file_caps(false), text);
    cJSON *seen = cJSON_CreateArray();
    cl_lsp_send(&c, "workspace/executeCommand", 2, rimis_params(URI, NULL));
    const cJSON *res = cJSON_GetObjectItem(read_until(&c, NULL, 2, seen), "result");
    cr_assert_not_null(res);
    cr_assert_str_eq(str(res, "uri"), "file:///tmp/mdae-models/water_tank_rimis.mo",
                     "named after the document");
    const cJSON *apply = find(seen, "workspace/applyEdit");
    cr_assert_not_null(apply);
    respond(&c, str(apply, "id"), cJSON_CreateRaw("{\"applied\":true}"));
    /* no showDocument: the next message is the answer to a question */
    cJSON_Delete(seen);
    seen = cJSON_CreateArray();
    cl_lsp_send(&c, "textDocument/codeAction", 3, code_action_params(URI, NULL));
    read_until(&c, NULL, 3, seen);
    cr_assert_null(find(seen, "window/showDocument"));
    cJSON_Delete(seen);
    free(text);
    stop(&p, &c);
}
