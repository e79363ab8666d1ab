/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_methods.c -- the method table: every method and notification
 * mdaed answers, with its handler and flags. A new method is its handler
 * plus one line here (or, for a worker-backed method that needs only the
 * session, one line in SRV_FORWARDED_METHODS, srv_methods.h).
 */
#include "srv.h"

#include <string.h>

#include "srv_methods.h"

static const srv_method methods[] = {
    /* Answered by the router. */
    {"server/status", srv_m_status, NULL, 0},
    {"auth", srv_m_auth, NULL, SRV_M_NOAUTH},
    /* Sessions: a job for the session's worker (but close, and mode when
     * cached). */
    {"session/open", srv_m_open, NULL, 0},
    {"session/edit", srv_m_edit, NULL, 0},
    {"session/analyze", srv_m_analyze, NULL, 0},
    {"session/mode", srv_m_mode, NULL, SRV_M_QUICK},
    {"session/approx", srv_m_approx, NULL, 0},
    {"session/rimis", srv_m_rimis, NULL, 0},
    {"session/close", srv_m_close, NULL, 0},
#define XX(name, worker_fn, flags) {name, srv_m_forward, NULL, (flags) | SRV_M_FORWARD},
    SRV_FORWARDED_METHODS(XX)
#undef XX
    /* The language-server protocol. */
    {"initialize", srv_lsp_initialize, NULL, 0},
    {"shutdown", srv_lsp_shutdown, NULL, 0},
    {"textDocument/hover", srv_lsp_hover, NULL, 0},
    {"textDocument/documentSymbol", srv_lsp_document_symbol, NULL, 0},
    {"textDocument/definition", srv_lsp_definition, NULL, 0},
    {"textDocument/references", srv_lsp_references, NULL, 0},
    {"textDocument/codeLens", srv_lsp_code_lens, NULL, 0},
    {"textDocument/codeAction", srv_lsp_code_action, NULL, 0},
    {"workspace/executeCommand", srv_lsp_execute_command, NULL, 0},
};

static const srv_method notifications[] = {
    {RPC_CANCEL_METHOD, NULL, srv_m_cancel, 0},
    {"exit", NULL, srv_lsp_exit, 0},
    {"textDocument/didOpen", NULL, srv_lsp_did_open, 0},
    {"textDocument/didChange", NULL, srv_lsp_did_change, 0},
    {"textDocument/didClose", NULL, srv_lsp_did_close, 0},
    {"textDocument/didSave", NULL, srv_lsp_did_save, 0},
    {"workspace/didChangeConfiguration", NULL, srv_lsp_did_change_configuration, 0},
    {"window/workDoneProgress/cancel", NULL, srv_lsp_progress_cancel, 0},
};

static const srv_method *find(const srv_method *table, size_t n, const char *name)
{
    for (size_t k = 0; k < n; k++)
        if (strcmp(table[k].name, name) == 0 &&
            (!(table[k].flags & SRV_M_DEBUG) || srv.cfg.debug_methods))
            return &table[k];
    return NULL;
}

const srv_method *srv_method_find(const char *name, bool notification)
{
    if (notification)
        return find(notifications, sizeof notifications / sizeof notifications[0], name);
    return find(methods, sizeof methods / sizeof methods[0], name);
}
