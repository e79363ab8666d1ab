/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli_analyze.c -- `mdae analyze`: run the complete all-modes
 * analysis (inc_analyze: each connected component by the method that fits
 * it, sa.h; then the blocks and their dependency graph) in this process and print it as text, as the JSON the server
 * sends (rpc_json_analysis), as Graphviz DOT (cdg_graph_dot), or that graph
 * laid out as SVG (--svg: render/svg_render.h); with --families, the block
 * families in place of the blocks (engine/cdg_family.h). Also the
 * embedded engine shared with `mdae mode` (cli_engine_run).
 *
 * The text form is for people (cli_render.c): the verdict first, then where
 * the model is singular and why, then the offsets of each equation and
 * variable as "value when formula" cases, then the blocks with their guards
 * and the edges between them. Offsets and blocks only exist in the valid
 * nonsingular modes, so "otherwise" means "in the other valid nonsingular
 * modes where it is active".
 */
#include "cli.h"

#include <stdlib.h>

#include <string.h>

#include "rpc_json.h"
#include "svg_render.h"

/* Say why an engine call failed, in the words of the old analyze. */
static int engine_failure(const cli_engine *e, int rc)
{
    if ((rc == MDAE_E_BDD_LIMIT || rc == MDAE_E_LIMIT) && mdae_diags_find_limit(&e->d) != NULL)
        ; /* the located error printed above names the limit and how to raise it */
    else if (rc == MDAE_E_BDD_LIMIT)
        fprintf(stderr, "%s: error: %s (raise it with --node-limit N; see docs/limits.md)\n", e->src.name,
                mdae_strerror(rc));
    else if (rc == MDAE_E_MODEL && e->d.errors > 0)
        fprintf(stderr, "%s: %zu error%s (see docs/languages.md)\n", e->src.name, e->d.errors,
                e->d.errors == 1 ? "" : "s");
    else
        fprintf(stderr, "%s: error: %s\n", e->src.name, mdae_strerror(rc));
    return cli_exit_code(rc);
}

int cli_engine_load(const cli_opts *o, cli_engine *e)
{
    memset(e, 0, sizeof *e);
    mdae_diags_init(&e->d);
    return cli_load_model(o, false, &e->src, &e->m, &e->d);
}

int cli_engine_run(const cli_opts *o, cli_engine *e)
{
    int code = cli_engine_load(o, e);
    if (code != CLI_EXIT_OK)
        return code;
    return cli_engine_analyze(o, e);
}

int cli_engine_begin(const cli_opts *o, const cli_engine *e)
{
    sa_config cfg;
    cli_sa_config(o, &cfg);
    sa_config_size_for(&cfg, e->m);
    int rc = sa_begin(&cfg);
    if (rc < 0) {
        fprintf(stderr, "mdae: cannot start the BDD engine: %s\n", mdae_strerror(rc));
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

int cli_engine_analyze(const cli_opts *o, cli_engine *e)
{
    int code = cli_engine_begin(o, e);
    if (code != CLI_EXIT_OK)
        return code;
    sa_options so = {.method = o->method, .families = o->families};
    int rc = inc_session_new(&e->inc);
    if (rc == MDAE_OK)
        rc = inc_analyze(e->inc, e->m, &so, &e->ir, &e->d);
    if (rc == MDAE_OK)
        rc = inc_result_whole(e->ir, e->m, &so, &e->res, &e->g, &e->d);
    /* MDAE_STATS=1: one line for scripts (scripts/msl.py) */
    if (getenv("MDAE_STATS") != NULL && e->res != NULL)
        fprintf(stderr, "mdae-stats: peak_nodes %zu\n", sa_result_peak_nodes(e->res));
    cli_print_diags(&e->src, &e->d);
    return rc < 0 ? engine_failure(e, rc) : CLI_EXIT_OK;
}

void cli_engine_close(cli_engine *e)
{
    inc_result_free(e->ir); /* before sa_end: it holds BDDs (res, g too) */
    inc_session_free(e->inc);
    sa_end(); /* safe without a successful sa_begin */
    mel_model_free(e->m);
    cli_source_close(&e->src); /* safe after a failed read (cleared) */
    mdae_diags_close(&e->d);
    memset(e, 0, sizeof *e);
}

/* The analysis JSON of an engine run. CLI_EXIT_OK with *out, or a printed
 * failure. */
static int analysis_json(cli_engine *e, cJSON **out)
{
    sa_report *rep = NULL;
    cdg_report *crep = NULL;
    int rc = sa_result_report(e->res, &rep);
    if (rc == MDAE_OK)
        rc = cdg_graph_report(e->g, &crep);
    if (rc == MDAE_OK)
        rc = rpc_json_analysis(rep, crep, out);
    if (rc == MDAE_OK && (rc = rpc_json_add_bodies(*out, crep, e->m)) < 0) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    cdg_report_free(crep);
    sa_report_free(rep);
    if (rc < 0) {
        fprintf(stderr, "mdae: cannot build the analysis report: %s\n", mdae_strerror(rc));
        return rc == MDAE_E_BDD_LIMIT ? CLI_EXIT_LIMIT : CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

/* With --families: the analysis JSON with the block families in place of
 * the blocks and edges (rpc_json_families; the graph was built without
 * its edges, sa_options.families), left-out statements last. The tree is
 * small (engine/cdg_family.h): built whole, not written as produced.
 * CLI_EXIT_OK with *out, or a printed failure. */
static int families_json(cli_engine *e, cJSON **out)
{
    sa_report *rep = NULL;
    cdg_families *f = NULL;
    cdg_family_report *frep = NULL;
    int rc = sa_result_report(e->res, &rep);
    if (rc == MDAE_OK)
        rc = cdg_families_build(e->g, &f);
    if (rc == MDAE_OK)
        rc = cdg_families_report(f, &frep);
    if (rc == MDAE_OK)
        rc = rpc_json_analysis(rep, NULL, out);
    if (rc == MDAE_OK && ((rc = rpc_json_families(frep, *out)) < 0 ||
                          (rc = rpc_json_add_left_out(*out, e->m)) < 0)) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    cdg_family_report_free(frep);
    cdg_families_free(f);
    sa_report_free(rep);
    if (rc < 0) {
        fprintf(stderr, "mdae: cannot build the block families: %s\n", mdae_strerror(rc));
        return rc == MDAE_E_BDD_LIMIT ? CLI_EXIT_LIMIT : CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

/* rpc_jw's sink: stdout. */
static int to_stdout(void *arg, const char *p, size_t n)
{
    (void)arg;
    return fwrite(p, 1, n, stdout) == n ? MDAE_OK : MDAE_E_IO;
}

/* The left-out statements' members (rpc_json_add_left_out), if any. */
static int write_left_out(rpc_jw *w, const mel_model *m)
{
    cJSON *part = cJSON_CreateObject();
    int rc = part == NULL ? MDAE_E_NOMEM : rpc_json_add_left_out(part, m);
    if (rc == MDAE_OK)
        rc = rpc_jw_members(w, part);
    cJSON_Delete(part);
    return rc;
}

/* The analysis JSON of an engine run on stdout, written as it is produced
 * (issue 40; protocol/rpc_jwriter.h): the offsets' report is built,
 * written item by item and freed before the graph's report is built, and
 * that one is written block by block and edge by edge; the text is the one
 * analysis_json's tree prints (rpc_json_analysis, rpc_json_add_bodies,
 * rpc_json_add_left_out). Peak memory is then the larger report, not both
 * with the whole tree and its text. A failure past the first chunk leaves
 * the JSON cut short; the exit status says so. */
static int analysis_json_stream(cli_engine *e)
{
    sa_report *rep = NULL;
    cdg_report *crep = NULL;
    rpc_jw w;
    rpc_jw_init(&w, to_stdout, NULL);
    int rc = sa_result_report(e->res, &rep);
    if (rc == MDAE_OK && (rc = rpc_jw_open_object(&w, NULL)) == MDAE_OK)
        rc = rpc_json_report_write(rep, &w);
    sa_report_free(rep);
    if (rc == MDAE_OK)
        rc = cdg_graph_report(e->g, &crep);
    if (rc == MDAE_OK)
        rc = rpc_json_cdg_write(crep, e->m, &w);
    cdg_report_free(crep);
    if (rc == MDAE_OK)
        rc = write_left_out(&w, e->m);
    if (rc == MDAE_OK)
        rc = rpc_jw_close_one(&w);
    if (rc == MDAE_OK)
        rc = rpc_jw_raw(&w, "\n", 1);
    bool cut = w.depth > 0;
    if (rc == MDAE_OK)
        rc = rpc_jw_flush(&w);
    rpc_jw_close(&w);
    if (rc < 0) {
        if (cut)
            fputc('\n', stdout);
        fprintf(stderr, "mdae: cannot build the analysis report: %s\n", mdae_strerror(rc));
        return rc == MDAE_E_BDD_LIMIT ? CLI_EXIT_LIMIT : CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

int cli_analyze_run(const cli_opts *o)
{
    if (o->server != NULL && o->method != SA_METHOD_AUTO) {
        fprintf(stderr, "mdae analyze: --method applies to the embedded engine, not --server\n");
        return CLI_EXIT_USAGE;
    }
    if (o->server != NULL)
        return cli_remote_run(o, CLI_REMOTE_ANALYZE);
    cli_engine e;
    int code = cli_engine_run(o, &e);
    if (code != CLI_EXIT_OK) {
        /* --json says the verdict on stdout too, as check --json does (issue 42) */
        if (o->json && !o->dot && (code == CLI_EXIT_MODEL || code == CLI_EXIT_LIMIT))
            cli_print_verdict_json(strcmp(o->file, "-") == 0 ? "<stdin>" : o->file, false,
                                   code == CLI_EXIT_LIMIT ? "limit" : "error", e.m, &e.d);
        goto done;
    }
    if (o->dot) {
        char *dot = NULL;
        int rc = cdg_graph_dot(e.g, &dot);
        if (rc < 0) {
            fprintf(stderr, "mdae: cannot write the graph: %s\n", mdae_strerror(rc));
            code = CLI_EXIT_IO;
            goto done;
        }
        if (o->svg) {
            char *svg = NULL;
            const char *why = NULL;
            rc = svg_render(dot, &svg, &why);
            mdae_free(dot);
            if (rc < 0) {
                fprintf(stderr, "mdae: cannot draw the graph: %s\n", why ? why : mdae_strerror(rc));
                code = CLI_EXIT_IO;
                goto done;
            }
            dot = svg;
        }
        code = cli_syntax_verdict(&e.src, e.m, cli_write_dot(o, dot));
        mdae_free(dot);
        goto done;
    }
    if (o->families) {
        cJSON *json = NULL;
        code = families_json(&e, &json);
        if (code == CLI_EXIT_OK && o->json) {
            char *text = NULL;
            if (rpc_json_print(json, false, &text) < 0) {
                fprintf(stderr, "mdae: out of memory\n");
                code = CLI_EXIT_IO;
            } else {
                printf("%s\n", text);
                mdae_free(text);
            }
        } else if (code == CLI_EXIT_OK) {
            cli_render_analysis(e.src.name, json);
        }
        cJSON_Delete(json);
        code = cli_syntax_verdict(&e.src, e.m, code);
        goto done;
    }
    if (o->json) {
        code = cli_syntax_verdict(&e.src, e.m, analysis_json_stream(&e));
        goto done;
    }
    cJSON *json = NULL;
    code = analysis_json(&e, &json);
    if (code != CLI_EXIT_OK)
        goto done;
    if (rpc_json_add_left_out(json, e.m) < 0) {
        cJSON_Delete(json);
        fprintf(stderr, "mdae: out of memory\n");
        code = CLI_EXIT_IO;
        goto done;
    }
    cli_render_analysis(e.src.name, json);
    cJSON_Delete(json);
    code = cli_syntax_verdict(&e.src, e.m, code);
done:
    cli_engine_close(&e);
    return code;
}
