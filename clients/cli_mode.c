/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli_mode.c -- `mdae mode FILE --mode 'g1=1,g2=0'`: what the
 * all-modes analysis says about one mode.
 *
 * Obtained by restricting the all-modes result (sa_result_mode,
 * cdg_graph_mode), never by a new single-mode analysis: this is issue 4's
 * "per-mode projection", and the point is that the one analysis answers
 * every mode. The mode is checked against the model's mode variables before
 * any BDD work, so a typo in a name is a usage error (exit 2) that names it.
 */
#include "cli.h"

#include <string.h>

#include "rpc_json.h"

/* The mode of o->mode as booleans of e's model; CLI_EXIT_USAGE (printed)
 * on a bad spec or name. *mode is owned (mdae_free). */
static int read_mode(const cli_opts *o, const cli_engine *e, bool **mode)
{
    char why[200] = "";
    cJSON *obj = NULL;
    int rc = rpc_json_mode_spec(o->mode, &obj, why, sizeof why);
    bool *m = NULL;
    if (rc == MDAE_OK) {
        m = mdae_calloc(e->m->n_modes + 1, sizeof *m);
        rc = m ? rpc_json_mode_read(obj, e->m, m, why, sizeof why) : MDAE_E_NOMEM;
    }
    cJSON_Delete(obj);
    if (rc == MDAE_E_NOMEM) {
        mdae_free(m);
        fprintf(stderr, "mdae: out of memory\n");
        return CLI_EXIT_IO;
    }
    if (rc < 0) {
        mdae_free(m);
        fprintf(stderr, "mdae mode: invalid --mode '%s': %s (see docs/analysis.md)\n", o->mode, why);
        if (e->m->n_modes > 0) {
            fprintf(stderr, "mode variables of %s:", e->src.name);
            for (uint32_t k = 0; k < e->m->n_modes && k < 20; k++)
                fprintf(stderr, " %s", e->m->modes[k].name);
            fprintf(stderr, "%s\n", e->m->n_modes > 20 ? " ..." : "");
        } else {
            fprintf(stderr, "%s has no mode variables (use --mode '')\n", e->src.name);
        }
        return CLI_EXIT_USAGE;
    }
    *mode = m;
    return CLI_EXIT_OK;
}

int cli_mode_run(const cli_opts *o)
{
    if (o->server != NULL && o->method != SA_METHOD_AUTO) {
        fprintf(stderr, "mdae mode: --method applies to the embedded engine, not --server\n");
        return CLI_EXIT_USAGE;
    }
    if (o->server != NULL)
        return cli_remote_run(o, CLI_REMOTE_MODE);
    /* Check the mode's syntax before reading and analysing anything. */
    char why[200] = "";
    cJSON *syntax = NULL;
    int rc = rpc_json_mode_spec(o->mode, &syntax, why, sizeof why);
    cJSON_Delete(syntax);
    if (rc == MDAE_E_INVAL) {
        fprintf(stderr, "mdae mode: invalid --mode '%s': %s (see docs/analysis.md)\n", o->mode, why);
        return CLI_EXIT_USAGE;
    }

    cli_engine e;
    bool *mode = NULL;
    sa_mode_view sv;
    cdg_mode_view cv;
    memset(&sv, 0, sizeof sv);
    memset(&cv, 0, sizeof cv);
    cJSON *json = NULL;
    /* Parse first, so that a bad name is reported before the analysis. */
    int code = cli_engine_load(o, &e);
    if (code != CLI_EXIT_OK)
        goto done;
    code = read_mode(o, &e, &mode);
    if (code != CLI_EXIT_OK)
        goto done;
    code = cli_engine_analyze(o, &e);
    if (code != CLI_EXIT_OK)
        goto done;
    rc = sa_result_mode(e.res, mode, &sv);
    if (rc == MDAE_OK)
        rc = cdg_graph_mode(e.g, mode, &cv);
    if (rc == MDAE_OK)
        rc = rpc_json_mode(e.m, mode, &sv, e.g, &cv, &json);
    if (rc < 0) {
        fprintf(stderr, "mdae: cannot project the analysis on the mode: %s\n",
                mdae_strerror(rc));
        code = CLI_EXIT_IO;
        goto done;
    }
    if (o->json)
        code = cli_print_json(json);
    else
        cli_render_mode(e.src.name, json);
done:
    cJSON_Delete(json);
    cdg_mode_view_close(&cv);
    sa_mode_view_close(&sv);
    mdae_free(mode);
    cli_engine_close(&e);
    return code;
}
