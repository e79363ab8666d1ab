/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli_approx.c -- `mdae approx FILE [--json]`: what a single-mode
 * tool (OpenModelica, Dymola) does with the model, compared with the exact
 * all-modes analysis (engine/ap.h, issue 38): the model loaded and BuDDy
 * started as for `mdae analyze` (cli_engine_load, cli_engine_begin), the
 * exact analysis (sa_analyze: the blocks' dependency graph is not needed,
 * and on some MSL models it is what reaches a limit), then ap_analyze on it, printed as its JSON
 * (rpc_json_approx) or as warnings located in the source
 * (cli_render_approx). Pivots print in the model's language.
 */
#include "cli.h"

#include "ap.h"
#include "rpc_json.h"

/* The exact analysis of e's model into *r (sa_result_free, before
 * cli_engine_close stops BuDDy); diagnostics printed. */
static int exact(const cli_opts *o, cli_engine *e, sa_result **r)
{
    int code = cli_engine_begin(o, e);
    if (code != CLI_EXIT_OK)
        return code;
    sa_options so = {.method = o->method};
    int rc = sa_analyze(e->m, &so, r, &e->d);
    cli_print_diags(&e->src, &e->d);
    if (rc == MDAE_E_BDD_LIMIT && mdae_diags_find_limit(&e->d) == NULL)
        fprintf(stderr, "%s: error: %s (raise it with --node-limit N; see docs/limits.md)\n", e->src.name,
                mdae_strerror(rc));
    else if (rc < 0 && rc != MDAE_E_MODEL && mdae_diags_find_limit(&e->d) == NULL)
        fprintf(stderr, "%s: error: %s\n", e->src.name, mdae_strerror(rc));
    return rc < 0 ? cli_exit_code(rc) : CLI_EXIT_OK;
}

static int approx_json(const cli_opts *o, cli_engine *e, const sa_result *r, cJSON **out)
{
    ap_options opt = {.syntax = cli_is_modelica(o, &e->src) ? FX_SYNTAX_MODELICA : FX_SYNTAX_MEL};
    ap_report *rep = NULL;
    int rc = ap_analyze_ex(e->m, r, &opt, &rep);
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
    sa_result *r = NULL;
    int code = cli_engine_load(o, &e);
    if (code == CLI_EXIT_OK)
        code = exact(o, &e, &r);
    cJSON *json = NULL;
    if (code == CLI_EXIT_OK)
        code = approx_json(o, &e, r, &json);
    if (code == CLI_EXIT_OK) {
        if (o->json)
            code = cli_print_json(json);
        else
            cli_render_approx(e.src.name, json);
        /* a half-typed text: the rest was compared, and it says so */
        code = cli_syntax_verdict(&e.src, e.m, code);
    }
    cJSON_Delete(json);
    sa_result_free(r); /* before cli_engine_close stops BuDDy */
    cli_engine_close(&e);
    return cli_finish(code);
}
