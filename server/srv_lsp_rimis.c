/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_lsp_rimis.c -- the editor's way to the Reduced-Index
 * Mode-Independent Structure (issue 39 item 5): the code action "Generate a
 * mode-independent model" on a MEL or Modelica document, and the command
 * mdae.rimis it runs.
 *
 * textDocument/codeAction offers, for a document of ours, one CodeAction of
 * kind "source" whose command is {mdae.rimis, [uri]} (Neovim 0.7.2 lists it
 * in vim.lsp.buf.code_action() and runs it with workspace/executeCommand;
 * VS Code under "Source Action..."). The command asks the document's worker
 * for session/rimis (the text the editor shows: a pending check runs first)
 * and then, by what the client announced in initialize:
 *   - workspace.applyEdit and workspaceEdit.resourceOperations "create"
 *     (which implies documentChanges; Neovim 0.7 announces only the
 *     former): a workspace/applyEdit creating NAME.mo
 *     beside the document (NAME the generated model's) with the text; once
 *     the client says it applied it, window/showDocument opens it when the
 *     client offers window.showDocument; window/showMessage says where it
 *     went and what it holds either way. The command's result: {uri, name,
 *     lines, blocks, replicates, multiplexers, reinits}.
 *   - otherwise (or a document that is not a "file:" URI): the result also
 *     carries the text, which a client may open (clients/vscode does), and
 *     the message says so.
 * A model RIMIS refuses (singular modes, an impulsive mode change, ...) is
 * the command's error, with the located reason, also shown with
 * window/showMessage (an editor that drops a command's error still tells
 * the user). arguments[1] may be {"guard": false} (section 4.7 off, as
 * `mdae rimis --no-guard`).
 *
 * Ownership: the connection owns the URI waiting for its applyEdit answer
 * (srv_conn.lsp_rimis_uri; freed with the connection); one at a time, a
 * newer command's replaces it.
 */
#include "srv.h"

#include <stdio.h>
#include <string.h>

#include "rpc_lsp.h"

#define RIMIS_TITLE "Generate a mode-independent model"
#define RIMIS_EDIT_PREFIX "mdae/rimis/"
/* LSP ErrorCodes.RequestCancelled */
#define RPC_LSP_REQUEST_CANCELLED (-32800)
/* LSP MessageType */
enum { MSG_ERROR = 1, MSG_INFO = 3 };

static const cJSON *item(const cJSON *o, const char *name)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, name) : NULL;
}

/* window/showMessage {type, message}. */
static void show_message(srv_conn *c, int type, const char *message)
{
    cJSON *p = cJSON_CreateObject();
    if (p == NULL || !cJSON_AddNumberToObject(p, "type", type) ||
        !cJSON_AddStringToObject(p, "message", message)) {
        cJSON_Delete(p);
        return;
    }
    srv_conn_send(c, rpc_notification_new("window/showMessage", p), false);
}

/* ---- textDocument/codeAction ---------------------------------------------------------- */

/* context.only, when given, admits kind "source" ("" or "source"). */
static bool wants_source(const cJSON *params)
{
    const cJSON *only = item(item(params, "context"), "only");
    if (!cJSON_IsArray(only))
        return true;
    const cJSON *k;
    cJSON_ArrayForEach(k, only)
    {
        if (cJSON_IsString(k) && (k->valuestring[0] == '\0' || strcmp(k->valuestring, "source") == 0))
            return true;
    }
    return false;
}

static cJSON *rimis_action(const char *uri)
{
    cJSON *a = cJSON_CreateObject(), *cmd = NULL, *args = NULL;
    if (a == NULL || !cJSON_AddStringToObject(a, "title", RIMIS_TITLE) ||
        !cJSON_AddStringToObject(a, "kind", "source") ||
        (cmd = cJSON_AddObjectToObject(a, "command")) == NULL ||
        !cJSON_AddStringToObject(cmd, "title", RIMIS_TITLE) ||
        !cJSON_AddStringToObject(cmd, "command", SRV_LSP_RIMIS) ||
        (args = cJSON_AddArrayToObject(cmd, "arguments")) == NULL ||
        !cJSON_AddItemToArray(args, cJSON_CreateString(uri))) {
        cJSON_Delete(a);
        return NULL;
    }
    return a;
}

void srv_lsp_code_action(srv_call *call, const cJSON *params)
{
    const cJSON *uri = item(item(params, "textDocument"), "uri");
    cJSON *list = cJSON_CreateArray();
    if (list == NULL) {
        srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
        return;
    }
    if (cJSON_IsString(uri) && srv_session_find_uri(call->conn, uri->valuestring) != NULL &&
        wants_source(params)) {
        cJSON *a = rimis_action(uri->valuestring);
        if (a == NULL) {
            cJSON_Delete(list);
            srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
            return;
        }
        cJSON_AddItemToArray(list, a);
    }
    srv_call_result(call, list);
}

/* ---- workspace/executeCommand mdae.rimis -------------------------------------------- */

typedef struct rimis_job {
    srv_job job; /* first: the pool hands it back */
    srv_call *call;
    char *uri; /* owned: the document's */
} rimis_job;

static double number(const cJSON *o, const char *name)
{
    const cJSON *v = item(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* "LINES lines, B blocks, R replicates, M multiplexers, I reinits" */
static void describe(const cJSON *r, char *out, size_t size)
{
    snprintf(out, size, "%.0f lines, %d blocks, %.0f replicates, %.0f multiplexers, %.0f reinits",
             number(r, "lines"), cJSON_GetArraySize(item(r, "groups")), number(r, "replicates"),
             number(r, "multiplexers"), number(r, "reinits"));
}

/* The command's answer: {uri?, name, lines, blocks, replicates,
 * multiplexers, reinits, text?} from the worker's result r. */
static cJSON *command_result(const cJSON *r, const char *uri, bool with_text)
{
    cJSON *o = cJSON_CreateObject();
    const cJSON *name = item(r, "name"), *text = item(r, "text");
    if (o == NULL || (uri != NULL && !cJSON_AddStringToObject(o, "uri", uri)) ||
        !cJSON_AddStringToObject(o, "name", cJSON_IsString(name) ? name->valuestring : "") ||
        !cJSON_AddNumberToObject(o, "lines", number(r, "lines")) ||
        !cJSON_AddNumberToObject(o, "blocks", cJSON_GetArraySize(item(r, "groups"))) ||
        !cJSON_AddNumberToObject(o, "replicates", number(r, "replicates")) ||
        !cJSON_AddNumberToObject(o, "multiplexers", number(r, "multiplexers")) ||
        !cJSON_AddNumberToObject(o, "reinits", number(r, "reinits")) ||
        (with_text &&
         !cJSON_AddStringToObject(o, "text", cJSON_IsString(text) ? text->valuestring : ""))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The client can take a created file (initialize's capabilities). Sends
 * workspace/applyEdit creating uri with text; the connection keeps uri for
 * the answer. False on OOM. */
static bool send_create(srv_conn *c, const char *uri, const char *text)
{
    cJSON *edit = NULL, *p = cJSON_CreateObject();
    char *keep = mdae_strdup(uri);
    if (p == NULL || keep == NULL || rpc_lsp_create_file_edit(uri, text, &edit) < 0 ||
        !cJSON_AddStringToObject(p, "label", RIMIS_TITLE) ||
        !cJSON_AddItemToObject(p, "edit", edit)) {
        cJSON_Delete(edit);
        cJSON_Delete(p);
        mdae_free(keep);
        return false;
    }
    char idtext[64];
    snprintf(idtext, sizeof idtext, RIMIS_EDIT_PREFIX "%llu",
             (unsigned long long)++c->lsp_rimis_edit);
    cJSON *id = cJSON_CreateString(idtext);
    if (id == NULL) {
        cJSON_Delete(p);
        mdae_free(keep);
        return false;
    }
    mdae_free(c->lsp_rimis_uri);
    c->lsp_rimis_uri = keep;
    srv_conn_send(c, rpc_request_new(id, "workspace/applyEdit", p), false);
    cJSON_Delete(id);
    return true;
}

/* A refusal or failure: the command's error, and the same words shown. */
static void answer_refusal(srv_call *call, cJSON *error /* the pool's: data taken */)
{
    const cJSON *code = item(error, "code"), *msg = item(error, "message");
    cJSON *data = cJSON_DetachItemFromObjectCaseSensitive(error, "data");
    const cJSON *first = cJSON_GetArrayItem(item(data, "messages"), 0);
    char text[1024];
    snprintf(text, sizeof text, "mdae: %s%s%s",
             cJSON_IsString(msg) ? msg->valuestring : "no mode-independent model",
             cJSON_IsString(first) ? ": " : "", cJSON_IsString(first) ? first->valuestring : "");
    show_message(call->conn, MSG_ERROR, text);
    srv_call_error(call, cJSON_IsNumber(code) ? code->valueint : RPC_INTERNAL_ERROR, text + 6,
                   data);
}

static void rimis_done(srv_job *job, srv_reply *r)
{
    rimis_job *rj = (rimis_job *)job;
    srv_call *call = rj->call;
    cJSON *res = NULL;
    if (r->rc == MDAE_E_CANCELED) {
        srv_call_error(call, RPC_LSP_REQUEST_CANCELLED, "request cancelled", NULL);
    } else if (r->rc < 0) {
        srv_call_mdae_error(call, r->rc, r->message,
                            r->details ? cJSON_Duplicate(r->details, true) : NULL);
    } else if (r->error != NULL) {
        answer_refusal(call, r->error);
    } else if (srv_reply_take_result(r, &res) < 0 || !cJSON_IsObject(res)) {
        srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
    } else {
        srv_conn *c = call->conn;
        const cJSON *name = item(res, "name"), *text = item(res, "text");
        char *target = NULL;
        bool create = c->lsp_create_files && cJSON_IsString(text) &&
                      rpc_lsp_sibling_uri(rj->uri, cJSON_IsString(name) ? name->valuestring : "",
                                          "mo", &target) == MDAE_OK &&
                      send_create(c, target, text->valuestring);
        char what[200], msg[1200];
        describe(res, what, sizeof what);
        if (create)
            snprintf(msg, sizeof msg, "mdae: mode-independent model %.600s (%s)", target, what);
        else
            snprintf(msg, sizeof msg,
                     "mdae: mode-independent model %s (%s): %s; the text is the command's "
                     "result (`mdae rimis FILE -o OUT.mo` writes it)",
                     cJSON_IsString(name) ? name->valuestring : "", what,
                     c->lsp_create_files ? "not written, the document is not a file"
                                         : "this editor cannot create files");
        show_message(c, MSG_INFO, msg);
        cJSON *out = command_result(res, create ? target : NULL, !create);
        if (out != NULL)
            srv_call_result(call, out);
        else
            srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
        mdae_free(target);
    }
    cJSON_Delete(res);
    mdae_free(rj->uri);
    mdae_free(rj);
}

void srv_lsp_rimis(srv_call *call, const cJSON *args)
{
    const cJSON *uri = cJSON_GetArrayItem(args, 0), *opt = cJSON_GetArrayItem(args, 1);
    const cJSON *guard = item(opt, "guard");
    if (!cJSON_IsString(uri) || (opt != NULL && !cJSON_IsObject(opt)) ||
        (guard != NULL && !cJSON_IsBool(guard))) {
        srv_call_error(call, RPC_INVALID_PARAMS,
                       SRV_LSP_RIMIS " takes [uri] or [uri, {\"guard\": false}]", NULL);
        return;
    }
    srv_session *s = srv_lsp_document(call->conn, uri->valuestring);
    if (s == NULL) {
        srv_call_mdae_error(call, MDAE_E_STATE, "no such document", NULL);
        return;
    }
    cJSON *wp = cJSON_CreateObject();
    rimis_job *rj = mdae_calloc(1, sizeof *rj);
    if (wp == NULL || rj == NULL || (rj->uri = mdae_strdup(uri->valuestring)) == NULL ||
        !cJSON_AddBoolToObject(wp, "guard", guard == NULL || cJSON_IsTrue(guard)) ||
        srv_job_init(&rj->job, "rimis", wp, rimis_done) < 0) {
        cJSON_Delete(wp);
        if (rj != NULL)
            mdae_free(rj->uri);
        mdae_free(rj);
        srv_call_mdae_error(call, MDAE_E_NOMEM, NULL, NULL);
        return;
    }
    rj->job.flags = SRV_JOB_ANALYSES;
    rj->call = call;
    call->job = &rj->job;
    srv_queue_submit(&s->queue, &rj->job);
}

/* ---- The client's answer to workspace/applyEdit -------------------------------------- */

bool srv_lsp_rimis_response(srv_conn *c, const rpc_msg *m)
{
    size_t n = strlen(RIMIS_EDIT_PREFIX);
    if (!cJSON_IsString(m->id) || strncmp(m->id->valuestring, RIMIS_EDIT_PREFIX, n) != 0)
        return false;
    char want[64];
    snprintf(want, sizeof want, RIMIS_EDIT_PREFIX "%llu", (unsigned long long)c->lsp_rimis_edit);
    if (c->lsp_rimis_uri == NULL || strcmp(m->id->valuestring, want) != 0)
        return true; /* an older command's: a newer one replaced it */
    char *uri = c->lsp_rimis_uri;
    c->lsp_rimis_uri = NULL;
    const cJSON *res = item(m->json, "result");
    if (!cJSON_IsTrue(item(res, "applied"))) {
        const cJSON *why = item(res, "failureReason");
        char msg[1200];
        snprintf(msg, sizeof msg, "mdae: the editor did not create %.600s%s%.400s", uri,
                 cJSON_IsString(why) ? ": " : "", cJSON_IsString(why) ? why->valuestring : "");
        show_message(c, MSG_ERROR, msg);
    } else if (c->lsp_show_document) {
        cJSON *p = cJSON_CreateObject(), *id = cJSON_CreateString("mdae/show");
        if (p != NULL && id != NULL && cJSON_AddStringToObject(p, "uri", uri) &&
            cJSON_AddTrueToObject(p, "takeFocus")) {
            srv_conn_send(c, rpc_request_new(id, "window/showDocument", p), false);
            p = NULL;
        }
        cJSON_Delete(p);
        cJSON_Delete(id);
    }
    mdae_free(uri);
    return true;
}
