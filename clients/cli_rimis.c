/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli_rimis.c -- `mdae rimis FILE [-o OUT] [--json] [--no-guard]`:
 * the model rewritten as one flat Modelica model that single-mode tools
 * (OpenModelica, Dymola) simulate correctly, the Reduced-Index
 * Mode-Independent Structure of engine/rimis.h (issue 39). The model is
 * loaded and BuDDy started as for `mdae analyze` (cli_engine_load,
 * cli_engine_begin), then analysed in one piece (sa_analyze and cdg_build:
 * rimis_build wants the analysis of the very model it prints, which the
 * composed analysis of `mdae analyze`, engine/inc.h, may hold a copy of),
 * and rimis_build runs in the same BuDDy session. The text goes to stdout, or with --json the JSON of
 * protocol/rpc_rimis.h (what session/rimis answers); -o OUT writes the
 * same bytes to OUT instead, atomically (cli_write_file_atomic).
 *
 * A model RIMIS cannot represent (a singular valid mode, an impulsive mode
 * change) is refused with located errors, FILE:LINE:COL: error: ..., and
 * exit status 1, as a model error is.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "rimis.h"
#include "rpc_json.h"
#include "rpc_rimis.h"

/* The options rimis_build gets for e's model: a MEL source's output is
 * named after its file (a Modelica source has a name of its own); the
 * Modelica text is passed on for its when-clauses. */
static rimis_options options_for(const cli_opts *o, const cli_engine *e, char *name,
                                 size_t size)
{
    bool modelica = cli_is_modelica(o, &e->src);
    rimis_options opt = {.no_guard = o->no_guard, .accept_jumps = o->accept_jumps};
    if (modelica) {
        opt.source = e->src.text;
        opt.source_len = e->src.len;
    } else {
        opt.model_name = rpc_rimis_model_name(strcmp(o->file, "-") == 0 ? NULL : o->file, name,
                                              size);
    }
    return opt;
}

/* The all-modes analysis of e's model and its dependency graph into *r and
 * *g (free both before cli_engine_close stops BuDDy); diagnostics and
 * failures printed. */
static int analyse(const cli_opts *o, cli_engine *e, sa_result **r, cdg_graph **g)
{
    int code = cli_engine_begin(o, e);
    if (code != CLI_EXIT_OK)
        return code;
    sa_options so = {.method = o->method};
    int rc = sa_analyze(e->m, &so, r, &e->d);
    if (rc == MDAE_OK)
        rc = cdg_build(*r, &so, g, &e->d);
    cli_print_diags(&e->src, &e->d);
    if (rc == MDAE_E_BDD_LIMIT && mdae_diags_find_limit(&e->d) == NULL)
        fprintf(stderr, "%s: error: %s (raise it with --node-limit N; see docs/limits.md)\n", e->src.name,
                mdae_strerror(rc));
    else if (rc == MDAE_E_MODEL && e->d.errors > 0)
        fprintf(stderr, "%s: %zu error%s (see docs/languages.md)\n", e->src.name, e->d.errors,
                e->d.errors == 1 ? "" : "s");
    else if (rc < 0 && mdae_diags_find_limit(&e->d) == NULL)
        fprintf(stderr, "%s: error: %s\n", e->src.name, mdae_strerror(rc));
    return rc < 0 ? cli_exit_code(rc) : CLI_EXIT_OK;
}

/* rimis_build on e's model analysed as r with graph g: CLI_EXIT_OK with
 * *out, or the failure printed (a refusal as located errors) and its exit
 * code. */
static int build(const cli_opts *o, cli_engine *e, const sa_result *r, const cdg_graph *g,
                 rimis_result **out)
{
    char name[256];
    rimis_options opt = options_for(o, e, name, sizeof name);
    mdae_diags d;
    mdae_diags_init(&d);
    int rc = rimis_build(e->m, r, g, &opt, out, &d);
    cli_print_diags(&e->src, &d);
    if (rc == MDAE_E_MODEL && d.errors > 0)
        fprintf(stderr, "%s: %zu error%s: no mode-independent model (see docs/rimis.md)\n", e->src.name, d.errors,
                d.errors == 1 ? "" : "s");
    else if (rc == MDAE_E_BDD_LIMIT)
        fprintf(stderr, "%s: error: %s (raise it with --node-limit N; see docs/limits.md)\n", e->src.name,
                mdae_strerror(rc));
    else if (rc < 0 && mdae_diags_find_limit(&d) == NULL)
        fprintf(stderr, "%s: error: cannot build the mode-independent model: %s\n", e->src.name,
                mdae_strerror(rc));
    mdae_diags_close(&d);
    return rc < 0 ? cli_exit_code(rc) : CLI_EXIT_OK;
}

/* What goes out: the text, or the JSON (owned: mdae_free) in *json_text. */
static int output_of(const cli_opts *o, const cli_engine *e, const rimis_result *res,
                     char **json_text)
{
    *json_text = NULL;
    if (!o->json)
        return CLI_EXIT_OK;
    cJSON *json = NULL;
    int rc = rpc_json_rimis(e->m, res, &json);
    if (rc == MDAE_OK)
        rc = rpc_json_print(json, false, json_text);
    cJSON_Delete(json);
    if (rc < 0) {
        fprintf(stderr, "%s: error: cannot print the JSON: %s\n", e->src.name, mdae_strerror(rc));
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

static int emit(const cli_opts *o, const char *bytes, size_t len)
{
    if (o->output != NULL && strcmp(o->output, "-") != 0)
        return cli_write_file_atomic(o->output, bytes, len);
    fwrite(bytes, 1, len, stdout);
    return CLI_EXIT_OK;
}

int cli_rimis_run(const cli_opts *o)
{
    if (o->server != NULL) {
        fprintf(stderr, "mdae rimis: --server is not supported yet; run it without (or ask "
                        "the server with session/rimis)\n");
        return CLI_EXIT_USAGE;
    }
    cli_engine e;
    sa_result *r = NULL;
    cdg_graph *g = NULL;
    rimis_result *res = NULL;
    int code = cli_engine_load(o, &e);
    if (code == CLI_EXIT_OK)
        code = analyse(o, &e, &r, &g);
    if (code == CLI_EXIT_OK)
        code = build(o, &e, r, g, &res);
    char *json = NULL;
    if (code == CLI_EXIT_OK)
        code = output_of(o, &e, res, &json);
    if (code == CLI_EXIT_OK) {
        cli_print_diags(&e.src, &res->warnings);
        if (json != NULL) {
            size_t n = strlen(json);
            json[n] = '\n'; /* one line, newline-terminated, as cli_print_json */
            code = emit(o, json, n + 1);
            json[n] = '\0';
        } else {
            code = emit(o, res->text, res->text_len);
        }
    }
    mdae_free(json);
    rimis_result_free(res);
    cdg_graph_free(g); /* before cli_engine_close stops BuDDy */
    sa_result_free(r);
    cli_engine_close(&e);
    return code;
}
