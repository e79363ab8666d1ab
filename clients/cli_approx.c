/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli_approx.c -- `mdae approx FILE [--json]`: what a single-mode
 * tool (OpenModelica, Dymola) does with the model, compared with the exact
 * all-modes analysis (engine/ap.h, issue 38): the embedded engine's
 * analysis (cli_engine_run, as `mdae analyze`), then ap_analyze on it,
 * printed as its JSON (rpc_json_approx) or as warnings located in the
 * source (cli_render_approx). Pivots print in the model's language.
 */
#include "cli.h"

#include "ap.h"
#include "rpc_json.h"

static int approx_json(const cli_opts *o, cli_engine *e, cJSON **out)
{
    ap_options opt = {.syntax = cli_is_modelica(o, &e->src) ? FX_SYNTAX_MODELICA : FX_SYNTAX_MEL};
    ap_report *rep = NULL;
    int rc = ap_analyze_ex(e->m, e->res, &opt, &rep);
    if (rc == MDAE_OK)
        rc = rpc_json_approx(rep, out);
    ap_report_free(rep);
    if (rc < 0) {
        fprintf(stderr, "%s: error: cannot compare with a single-mode analysis: %s\n",
                e->src.name, mdae_strerror(rc));
        return cli_exit_code(rc);
    }
    return CLI_EXIT_OK;
}

int cli_approx_run(const cli_opts *o)
{
    if (o->server != NULL) {
        fprintf(stderr, "mdae approx: --server is not supported yet; run it without\n");
        return CLI_EXIT_USAGE;
    }
    cli_engine e;
    int code = cli_engine_run(o, &e);
    cJSON *json = NULL;
    if (code == CLI_EXIT_OK)
        code = approx_json(o, &e, &json);
    if (code == CLI_EXIT_OK) {
        if (o->json)
            code = cli_print_json(json);
        else
            cli_render_approx(e.src.name, json);
    }
    cJSON_Delete(json);
    cli_engine_close(&e);
    return cli_finish(code);
}
