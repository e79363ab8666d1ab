/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli_check.c -- `mdae check` (parse, elaborate, check consistency
 * on BDDs, summarize) and `mdae structure` (print the flat structure).
 *
 * Both stop before the real analysis: `check` is what an editor runs on every
 * save, so it only encodes the model (sa_check), and `structure` does not
 * touch BDDs at all.
 */
#include "cli.h"

#include "mc.h"

#include <string.h>

#include "rpc_json.h"

/* ---- check ----------------------------------------------------------------- */

static cJSON *counts_json(const mel_model *m)
{
    cJSON *c = NULL;
    return rpc_json_counts(m, &c) == MDAE_OK ? c : NULL;
}

/* {"file":..,"ok":bool,"counts":{..}|null,"diagnostics":[..]} */
static int print_check_json(const char *file, bool ok, const mel_model *m, const mdae_diags *d)
{
    cJSON *root = cJSON_CreateObject();
    if (root == NULL || !cJSON_AddStringToObject(root, "file", file) ||
        !cJSON_AddBoolToObject(root, "ok", ok))
        goto nomem;
    cJSON *counts = m ? counts_json(m) : cJSON_CreateNull();
    if (counts == NULL)
        goto nomem;
    if (!cJSON_AddItemToObject(root, "counts", counts)) {
        cJSON_Delete(counts);
        goto nomem;
    }
    cJSON *diags = NULL;
    if (rpc_json_diags(d, &diags) < 0)
        goto nomem;
    if (!cJSON_AddItemToObject(root, "diagnostics", diags)) {
        cJSON_Delete(diags);
        goto nomem;
    }
    int code = cli_print_json(root);
    cJSON_Delete(root);
    return code;
nomem:
    cJSON_Delete(root);
    fprintf(stderr, "mdae: out of memory\n");
    return CLI_EXIT_IO;
}

void cli_sa_config(const cli_opts *o, sa_config *cfg)
{
    sa_config_default(cfg);
    if (o->node_limit)
        cfg->node_limit = o->node_limit;
    cfg->dynamic_reorder = o->reorder;
}

/* For an imported Modelica model: the valid modes with and without the
 * invariants the importer derived (issue 11), counted by enumeration when
 * there are at most 2^22 modes (`mdae analyze` counts them on BDDs), and
 * what was kept aside. */
static void print_modelica_modes(const mel_model *m)
{
    size_t kinds[5] = {0, 0, 0, 0, 0};
    for (uint32_t k = 0; k < m->n_events; k++)
        if ((unsigned)m->events[k].kind < 5)
            kinds[m->events[k].kind]++;
    if (m->n_events > 0)
        printf("kept aside: %zu when-clauses, %zu reinit, %zu discrete, %zu initial, "
               "%zu assert\n", kinds[MEL_EV_WHEN], kinds[MEL_EV_REINIT],
               kinds[MEL_EV_DISCRETE], kinds[MEL_EV_INITIAL], kinds[MEL_EV_ASSERT]);
    if (m->n_invariants == 0)
        return;
    if (m->n_modes > 22) {
        printf("valid modes: 2^%u without the %u derived invariants (with them: see "
               "`mdae analyze`)\n", m->n_modes, m->n_invariants);
        return;
    }
    bool mode[22];
    unsigned long long valid = 0, all = 1ULL << m->n_modes;
    for (unsigned long long x = 0; x < all; x++) {
        for (uint32_t k = 0; k < m->n_modes; k++)
            mode[k] = (x >> k) & 1;
        bool ok = true;
        for (uint32_t i = 0; i < m->n_invariants && ok; i++)
            ok = mel_guard_eval(m->invariants[i].cond, mode);
        valid += ok;
    }
    printf("valid modes: %llu with the %u derived invariants, %llu without\n", valid,
           m->n_invariants, all);
}

int cli_check_run(const cli_opts *o)
{
    if (o->server != NULL)
        return cli_remote_run(o, CLI_REMOTE_CHECK);
    mdae_diags d;
    mdae_diags_init(&d);
    cli_source src;
    mel_model *m = NULL;
    int code = cli_load_model(o, o->json, &src, &m, &d);
    if (code != CLI_EXIT_OK) {
        if (o->json && code == CLI_EXIT_MODEL)
            print_check_json(strcmp(o->file, "-") == 0 ? "<stdin>" : o->file, false, NULL, &d);
        mdae_diags_close(&d);
        return code;
    }

    sa_config cfg;
    cli_sa_config(o, &cfg);
    int rc = sa_begin(&cfg);
    if (rc == MDAE_OK) {
        rc = sa_check(m, &d);
        sa_end();
    }
    if (rc == MDAE_OK || rc == MDAE_E_MODEL) {
        int gc = mc_guard_fixpoint_warnings(m, &d);
        rc = gc != MDAE_OK ? gc : rc;
    }
    code = cli_exit_code(rc);
    if (rc < 0 && rc != MDAE_E_MODEL) {
        /* Not a verdict on the model: the check itself could not finish. */
        cli_print_diags(&src, &d);
        if (mdae_diags_find_limit(&d) == NULL) /* else that error said it all */
            fprintf(stderr, "%s: error: %s%s\n", src.name, mdae_strerror(rc),
                    rc == MDAE_E_BDD_LIMIT ? " (raise it with --node-limit N)" : "");
        goto done;
    }

    size_t warnings = cli_count_severity(&d, MDAE_SEV_WARNING);
    if (o->json) {
        int pc = print_check_json(src.name, rc == MDAE_OK && m->n_syntax_errors == 0, m, &d);
        if (pc != CLI_EXIT_OK)
            code = pc;
        else if (m->n_syntax_errors > 0)
            code = CLI_EXIT_MODEL;
        goto done;
    }
    cli_print_diags(&src, &d);
    printf("%s: ", src.name);
    cli_print_counts(stdout, m);
    printf("\n");
    if (m->n_events > 0 || (cli_is_modelica(o, &src) && m->n_invariants > 0))
        print_modelica_modes(m);
    if (rc == MDAE_OK && d.errors == 0)
        printf("ok: no errors");
    else
        printf("%zu error%s", d.errors, d.errors == 1 ? "" : "s");
    if (warnings > 0)
        printf(", %zu warning%s", warnings, warnings == 1 ? "" : "s");
    printf("\n");
    code = cli_syntax_verdict(&src, m, code);
done:
    mel_model_free(m);
    cli_source_close(&src);
    mdae_diags_close(&d);
    return code;
}

/* ---- structure --------------------------------------------------------------- */

/* Print a guard formula (or "?" on out of memory: this is display only). */
static void put_guard(const mel_model *m, const mel_guard *g)
{
    char *f = mel_guard_format(m, g);
    fputs(f ? f : "?", stdout);
    mdae_free(f);
}

static bool same_guard(const mel_model *m, const mel_guard *a, const mel_guard *b)
{
    if (a == b)
        return true;
    char *fa = mel_guard_format(m, a), *fb = mel_guard_format(m, b);
    bool same = fa && fb && strcmp(fa, fb) == 0;
    mdae_free(fa);
    mdae_free(fb);
    return same;
}

static int name_width(const mel_model *m)
{
    size_t w = 4;
    for (uint32_t i = 0; i < m->n_equations; i++)
        if (strlen(m->equations[i].name) > w)
            w = strlen(m->equations[i].name);
    for (uint32_t i = 0; i < m->n_variables; i++)
        if (strlen(m->variables[i].name) > w)
            w = strlen(m->variables[i].name);
    for (uint32_t i = 0; i < m->n_modes; i++)
        if (strlen(m->modes[i].name) > w)
            w = strlen(m->modes[i].name);
    return w > 32 ? 32 : (int)w;
}

static void print_structure_text(const char *name, const mel_model *m)
{
    int w = name_width(m);
    printf("%s: ", name);
    cli_print_counts(stdout, m);
    printf("\n\nmode variables:\n");
    for (uint32_t i = 0; i < m->n_modes; i++)
        printf("  %-*s  line %u\n", w, m->modes[i].name, m->modes[i].where.start.line);
    if (m->n_modes == 0)
        printf("  (none: a single mode)\n");
    printf("\ninvariants:\n");
    for (uint32_t i = 0; i < m->n_invariants; i++) {
        printf("  ");
        put_guard(m, m->invariants[i].cond);
        printf("  (line %u)\n", m->invariants[i].where.start.line);
    }
    if (m->n_invariants == 0)
        printf("  (none)\n");
    printf("\nvariables:\n");
    for (uint32_t i = 0; i < m->n_variables; i++) {
        printf("  %-*s  when ", w, m->variables[i].name);
        put_guard(m, m->variables[i].guard);
        printf("\n");
    }
    printf("\nequations (incidences: variable, highest derivative order, where):\n");
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const mel_equation *e = &m->equations[i];
        printf("  %-*s  when ", w, e->name);
        put_guard(m, e->guard);
        printf("  (line %u)\n", e->where.start.line);
        for (uint32_t k = 0; k < e->n_incs; k++) {
            const mel_incidence *inc = &e->incs[k];
            const char *vn = inc->var < m->n_variables ? m->variables[inc->var].name : "?";
            printf("    %-*s  ", w, vn);
            for (uint32_t c = 0; c < inc->n_cases; c++) {
                const mel_order_case *oc = &inc->cases[c];
                printf("%sorder %d", c ? "; " : "", oc->order);
                /* The guard adds nothing when it is the equation's own. */
                if (inc->n_cases > 1 || !same_guard(m, oc->guard, e->guard)) {
                    printf(" when ");
                    put_guard(m, oc->guard);
                }
            }
            printf("\n");
        }
    }
}

int cli_structure_run(const cli_opts *o)
{
    mdae_diags d;
    mdae_diags_init(&d);
    cli_source src;
    mel_model *m = NULL;
    int code = cli_load_model(o, false, &src, &m, &d);
    if (code != CLI_EXIT_OK) {
        mdae_diags_close(&d);
        return code;
    }
    cli_print_diags(&src, &d); /* warnings */
    if (o->json) {
        cJSON *json = NULL;
        int rc = rpc_json_structure(m, &json);
        if (rc < 0) {
            fprintf(stderr, "mdae: cannot build JSON: %s\n", mdae_strerror(rc));
            code = CLI_EXIT_IO;
        } else {
            code = cli_print_json(json);
            cJSON_Delete(json);
        }
    } else {
        print_structure_text(src.name, m);
    }
    mel_model_free(m);
    cli_source_close(&src);
    mdae_diags_close(&d);
    return code;
}
