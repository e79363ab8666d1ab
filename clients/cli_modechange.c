/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli_modechange.c -- `mdae modechange FILE --from SPEC --to SPEC`:
 * the structural analysis of one mode change (engine/mc.h, issue 13), and
 * `--all` for every change of a small model, `--first` for the first
 * instant of every change on BDDs (any model the all-modes analysis takes).
 *
 * No BDD work for one change: the analysis runs on the single-mode path, so
 * the model is only parsed (--first alone starts BuDDy). Modes are checked before anything else: a name
 * that is not a mode variable, an invalid mode, or from = to is a usage
 * error (exit 2) that says which; a model with errors exits 1. A
 * half-typed model (syntax errors) is recovered from as by `mdae analyze`
 * (issue 41): the broken statements located on stderr and left out, the
 * changes of the rest analysed, the JSON with "leftOut" and "syntaxErrors",
 * exit 1.
 */
#include "cli.h"

#include <string.h>

#include "mc.h"
#include "rpc_json.h"
#include "sa.h"

/* Read one mode spec into a new array (owned: mdae_free). */
static int read_spec(const char *opt, const char *spec, const cli_source *src,
                     const mel_model *m, bool **out)
{
    char why[200] = "";
    cJSON *obj = NULL;
    int rc = rpc_json_mode_spec(spec, &obj, why, sizeof why);
    bool *mode = NULL;
    if (rc == MDAE_OK) {
        mode = mdae_calloc(m->n_modes + 1, sizeof *mode);
        rc = mode ? rpc_json_mode_read(obj, m, mode, why, sizeof why) : MDAE_E_NOMEM;
    }
    cJSON_Delete(obj);
    if (rc == MDAE_E_NOMEM) {
        mdae_free(mode);
        fprintf(stderr, "mdae: out of memory\n");
        return CLI_EXIT_IO;
    }
    if (rc < 0) {
        mdae_free(mode);
        fprintf(stderr, "mdae modechange: invalid %s '%s': %s (see docs/mode_changes.md)\n", opt, spec, why);
        if (m->n_modes > 0) {
            fprintf(stderr, "mode variables of %s:", src->name);
            for (uint32_t k = 0; k < m->n_modes && k < 20; k++)
                fprintf(stderr, " %s", m->modes[k].name);
            fprintf(stderr, "%s\n", m->n_modes > 20 ? " ..." : "");
        } else {
            fprintf(stderr, "%s has no mode variables: it has no mode changes\n", src->name);
        }
        return CLI_EXIT_USAGE;
    }
    *out = mode;
    return CLI_EXIT_OK;
}

/* The JSON of a command, with what was left out of a half-typed model
 * (leftOut, syntaxErrors; nothing added for a model without syntax errors,
 * rpc_json_add_left_out), printed. */
static int print_json(cJSON *json, const mel_model *m)
{
    if (rpc_json_add_left_out(json, m) < 0) {
        fprintf(stderr, "mdae: out of memory\n");
        return CLI_EXIT_IO;
    }
    return cli_print_json(json);
}

static int one_change(const cli_opts *o, const cli_source *src, const mel_model *m)
{
    bool *from = NULL, *to = NULL;
    mc_result *r = NULL;
    cJSON *json = NULL;
    int code = read_spec("--from", o->from_mode, src, m, &from);
    if (code == CLI_EXIT_OK)
        code = read_spec("--to", o->to_mode, src, m, &to);
    if (code != CLI_EXIT_OK)
        goto done;
    char why[256] = "";
    int rc = mc_change(m, from, to, NULL, &r, why, sizeof why);
    if (rc == MDAE_E_INVAL) {
        fprintf(stderr, "mdae modechange: %s\n", why[0] ? why : "invalid request");
        code = CLI_EXIT_USAGE;
        goto done;
    }
    if (rc == MDAE_OK)
        rc = rpc_json_modechange(m, from, to, r, &json);
    if (rc < 0) {
        fprintf(stderr, "mdae: cannot analyse the mode change: %s\n", mdae_strerror(rc));
        code = CLI_EXIT_IO;
        goto done;
    }
    if (o->json) {
        code = print_json(json, m);
    } else {
        cli_print_diags(src, &r->diags);
        cli_render_modechange(src->name, json);
    }
done:
    cJSON_Delete(json);
    mc_result_free(r);
    mdae_free(from);
    mdae_free(to);
    return code;
}

static int first_instants(const cli_opts *o, const cli_source *src, const mel_model *m,
                          const char *skipped);
static int guard_refusal(const cli_opts *o, const cli_source *src, const mel_model *m,
                         const char *skipped, bool *done);

static int all_changes(const cli_opts *o, const cli_source *src, const mel_model *m)
{
    bool refused = false;
    int refusal = guard_refusal(o, src, m, NULL, &refused);
    if (refused)
        return refusal;
    mc_all *all = NULL;
    cJSON *json = NULL;
    char why[256] = "";
    int rc = mc_all_enumerate(m, MC_ALL_MAX_PAIRS, &all, why, sizeof why);
    if (rc == MDAE_E_LIMIT) /* every instant of every change on BDDs instead */
        return first_instants(o, src, m, why[0] ? why : mdae_strerror(rc));
    if (rc == MDAE_E_INVAL || rc == MDAE_E_NOTIMPL) {
        fprintf(stderr, "%s: error: %s\n", src->name, why[0] ? why : mdae_strerror(rc));
        return rc == MDAE_E_INVAL ? CLI_EXIT_USAGE : CLI_EXIT_LIMIT;
    }
    if (rc == MDAE_OK)
        rc = rpc_json_modechanges(m, all, &json);
    if (rc < 0) {
        fprintf(stderr, "mdae: cannot analyse the mode changes: %s\n", mdae_strerror(rc));
        mc_all_free(all);
        return CLI_EXIT_IO;
    }
    int code = o->json ? print_json(json, m) : CLI_EXIT_OK;
    if (!o->json) {
        cli_print_diags(src, &all->diags); /* model-wide refusals, once */
        cli_render_modechanges(src->name, json);
    }
    cJSON_Delete(json);
    mc_all_free(all);
    return code;
}

/* The first instants of every change, on BDDs (mc_first_instants); with
 * skipped (--all past the enumeration's limits: why), every instant and the
 * erasures, as session/modechanges answers then: the JSON with
 * "enumerationSkipped", and a note on stderr. */
/* A model with a guard fixpoint (issue 41 item 3): every command answers
 * the same, on stdout, exit 0 as for any rejected change: the status
 * "rejected" with its reason (rpc_json_guard_refusal), the located
 * diagnostics (on stderr in text). *done: whether it answered. */
static int guard_refusal(const cli_opts *o, const cli_source *src, const mel_model *m,
                         const char *skipped, bool *done)
{
    cJSON *json = NULL;
    int rc = rpc_json_guard_refusal(m, skipped, &json);
    *done = rc != MDAE_OK || json != NULL;
    if (rc != MDAE_OK) {
        fprintf(stderr, "mdae: cannot analyse the mode changes: %s\n", mdae_strerror(rc));
        return CLI_EXIT_IO;
    }
    if (json == NULL)
        return CLI_EXIT_OK;
    int code = CLI_EXIT_OK;
    if (o->json) {
        code = print_json(json, m);
    } else {
        mdae_diags d;
        mdae_diags_init(&d);
        size_t n = 0;
        if (mc_guard_fixpoints(m, &d, &n) == MDAE_OK)
            cli_print_diags(src, &d);
        mdae_diags_close(&d);
        cli_render_first(src->name, json); /* the refusal's one line */
    }
    cJSON_Delete(json);
    return code;
}

static int first_instants(const cli_opts *o, const cli_source *src, const mel_model *m,
                          const char *skipped)
{
    bool refused = false;
    int refusal = guard_refusal(o, src, m, skipped, &refused);
    if (refused)
        return refusal;
    sa_config cfg;
    cli_sa_config(o, &cfg);
    sa_config_size_for(&cfg, m);
    int rc = sa_begin(&cfg);
    mc_first *f = NULL;
    cJSON *json = NULL;
    char why[256] = "";
    mc_options mopt = {.first_erasures = o->erasures || skipped != NULL,
                       .first_later = o->instants || skipped != NULL,
                       .first_impulses = o->erasures || o->instants || skipped != NULL};
    if (skipped != NULL)
        fprintf(stderr, "%s: note: %s; every instant of every change on BDDs instead (as "
                        "--first --erasures --instants)\n", src->name, skipped);
    if (rc == MDAE_OK)
        rc = mc_first_instants(m, NULL, &mopt, &f, why, sizeof why);
    if (rc == MDAE_OK)
        rc = rpc_json_first_instants(f, skipped, &json);
    int code = CLI_EXIT_OK;
    if (rc == MDAE_E_INVAL || rc == MDAE_E_LIMIT || rc == MDAE_E_BDD_LIMIT) {
        fprintf(stderr, "%s: error: %s\n", src->name, why[0] ? why : mdae_strerror(rc));
        code = rc == MDAE_E_INVAL ? CLI_EXIT_USAGE : CLI_EXIT_LIMIT;
    } else if (rc < 0) {
        fprintf(stderr, "mdae: cannot analyse the mode changes: %s\n", mdae_strerror(rc));
        code = CLI_EXIT_IO;
    } else if (o->json) {
        code = print_json(json, m);
    } else {
        cli_render_first(src->name, json);
    }
    cJSON_Delete(json);
    mc_first_free(f);
    sa_end();
    return code;
}

int cli_modechange_run(const cli_opts *o)
{
    if (o->server != NULL)
        return cli_remote_run(o, CLI_REMOTE_MODECHANGE);
    cli_source src;
    mel_model *m = NULL;
    mdae_diags d;
    mdae_diags_init(&d);
    int code = cli_load_model(o, false, &src, &m, &d);
    if (code != CLI_EXIT_OK) {
        mdae_diags_close(&d);
        return code;
    }
    if (!o->json || m->n_syntax_errors > 0)
        cli_print_diags(&src, &d); /* warnings; the syntax errors recovered from */
    code = o->first ? first_instants(o, &src, m, NULL)
           : o->all ? all_changes(o, &src, m)
                    : one_change(o, &src, m);
    code = cli_syntax_verdict(&src, m, code); /* a half-typed model: said last, exit 1 */
    mel_model_free(m);
    mdae_diags_close(&d);
    cli_source_close(&src);
    return code;
}
