/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli_analyze.c -- `mdae analyze`: run the all-modes analysis and
 * print its report, as text or as the JSON the server sends
 * (rpc_json_report).
 *
 * The text form is for people: the verdict first, then where the model is
 * singular and why (over/underdetermined parts), then the offsets of each
 * equation and variable as "value when formula" cases, aligned. Offsets
 * only exist in the valid nonsingular modes, so "otherwise" means "in the
 * other valid nonsingular modes where it is active".
 */
#include "cli.h"

#include <string.h>

#include "rpc_json.h"

/* Widest name/formula column we pad to; longer ones just push the line. */
#define CLI_MAX_COLUMN 32
/* Mode variables named in the verdict line before eliding. */
#define CLI_MAX_MODE_NAMES 12

static const char *set_formula(const sa_set *s) { return s->formula ? s->formula : "false"; }

static int column_width(const sa_item *items, uint32_t n, bool formulas)
{
    size_t w = 1;
    for (uint32_t i = 0; i < n; i++) {
        const char *t = formulas ? set_formula(&items[i].active) : items[i].name;
        size_t len = t ? strlen(t) : 1;
        if (len > w)
            w = len;
    }
    return w > CLI_MAX_COLUMN ? CLI_MAX_COLUMN : (int)w;
}

static void print_count(double v)
{
    /* Exact below 2^53, where the double holds every integer. */
    if (v < 9007199254740992.0)
        printf("%.0f", v);
    else
        printf("%.6g", v);
}

/* "K3  active g1  c = 1 when g1 & g2; 0 otherwise" */
static void print_items(const char *title, const char *sym, const sa_item *items, uint32_t n)
{
    printf("\n%s:\n", title);
    if (n == 0) {
        printf("  (none)\n");
        return;
    }
    int wn = column_width(items, n, false), wa = column_width(items, n, true);
    for (uint32_t i = 0; i < n; i++) {
        const sa_item *it = &items[i];
        printf("  %-*s  active %-*s  %s = ", wn, it->name ? it->name : "?", wa,
               set_formula(&it->active), sym);
        if (it->n_offsets == 0)
            printf("-  (active in no valid nonsingular mode)");
        for (size_t k = 0; k < it->n_offsets; k++) {
            const sa_offset_case *oc = &it->offsets[k];
            if (k > 0)
                printf("; ");
            printf("%d", oc->value);
            if (it->n_offsets == 1)
                break; /* one value wherever it is active */
            if (k + 1 == it->n_offsets)
                printf(" otherwise");
            else
                printf(" when %s", set_formula(&oc->modes));
        }
        printf("\n");
    }
}

static void print_report_text(const char *file, const sa_report *rep, size_t peak)
{
    printf("%s: %s\n", file, rep->singular ? "singular" : "nonsingular");
    printf("valid modes: ");
    print_count(rep->valid_modes);
    printf(" of ");
    if (rep->n_modes < 64)
        printf("%llu", 1ULL << rep->n_modes);
    else
        printf("2^%u", rep->n_modes);
    /* A long list (open[1..100]) would drown the verdict: show the first
     * few; `mdae structure` lists them all. */
    printf(" (mode variables:");
    uint32_t shown = rep->n_modes > CLI_MAX_MODE_NAMES ? CLI_MAX_MODE_NAMES - 2 : rep->n_modes;
    for (uint32_t k = 0; k < shown; k++)
        printf(" %s", rep->mode_names[k]);
    if (shown < rep->n_modes)
        printf(" ... %s, %u in all", rep->mode_names[rep->n_modes - 1], rep->n_modes);
    printf("%s)\n", rep->n_modes ? "" : " none");

    if (rep->singular) {
        printf("\nstructurally singular in: %s\n", set_formula(&rep->singular_modes));
        size_t wn = 1;
        for (size_t k = 0; k < rep->n_diagnostics; k++) {
            const sa_diagnostic *dg = &rep->diagnostics[k];
            const char *nm = dg->kind == SA_DIAG_OVERDETERMINED
                                 ? rep->equations[dg->index].name
                                 : rep->variables[dg->index].name;
            if (nm && strlen(nm) > wn)
                wn = strlen(nm);
        }
        if (wn > CLI_MAX_COLUMN)
            wn = CLI_MAX_COLUMN;
        for (size_t k = 0; k < rep->n_diagnostics; k++) {
            const sa_diagnostic *dg = &rep->diagnostics[k];
            bool over = dg->kind == SA_DIAG_OVERDETERMINED;
            const char *nm = over ? rep->equations[dg->index].name
                                  : rep->variables[dg->index].name;
            printf("  %-15s %-8s %-*s  when %s\n", over ? "overdetermined" : "underdetermined",
                   over ? "equation" : "variable", (int)wn, nm ? nm : "?",
                   set_formula(&dg->modes));
        }
    }
    print_items("equation offsets (c), in the valid nonsingular modes", "c", rep->equations,
                rep->n_equations);
    print_items("variable offsets (d), in the valid nonsingular modes", "d", rep->variables,
                rep->n_variables);
    if (peak > 0)
        printf("\npeak BDD nodes: %zu\n", peak);
}

/* Diagnostics of a report must point inside its arrays before the text
 * printer indexes with them (rpc_json_report checks the same). */
static bool report_consistent(const sa_report *rep)
{
    for (size_t k = 0; k < rep->n_diagnostics; k++) {
        const sa_diagnostic *dg = &rep->diagnostics[k];
        uint32_t n = dg->kind == SA_DIAG_OVERDETERMINED ? rep->n_equations : rep->n_variables;
        if (dg->index >= n)
            return false;
    }
    return rep->n_modes == 0 || rep->mode_names != NULL;
}

int cli_analyze_run(const cli_opts *o)
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

    sa_config cfg;
    cli_sa_config(o, &cfg);
    sa_result *res = NULL;
    sa_report *rep = NULL;
    int rc = sa_begin(&cfg);
    if (rc < 0) {
        fprintf(stderr, "mdae: cannot start the BDD engine: %s\n", mdae_strerror(rc));
        code = CLI_EXIT_IO;
        goto done;
    }
    rc = sa_analyze(m, NULL, &res, &d);
    if (rc == MDAE_OK)
        rc = sa_result_report(res, &rep);
    cli_print_diags(&src, &d);
    if (rc < 0) {
        code = cli_exit_code(rc);
        if (rc == MDAE_E_BDD_LIMIT)
            fprintf(stderr, "%s: error: %s (raise it with --node-limit N)\n", src.name,
                    mdae_strerror(rc));
        else if (rc == MDAE_E_MODEL && d.errors > 0)
            fprintf(stderr, "%s: %zu error%s\n", src.name, d.errors, d.errors == 1 ? "" : "s");
        else
            fprintf(stderr, "%s: error: %s\n", src.name, mdae_strerror(rc));
        goto done;
    }
    if (!report_consistent(rep)) {
        fprintf(stderr, "mdae: internal error: inconsistent analysis report\n");
        code = CLI_EXIT_IO;
        goto done;
    }
    if (o->json) {
        cJSON *json = NULL;
        rc = rpc_json_report(rep, &json);
        if (rc < 0) {
            fprintf(stderr, "mdae: cannot build JSON: %s\n", mdae_strerror(rc));
            code = CLI_EXIT_IO;
            goto done;
        }
        code = cli_print_json(json);
        cJSON_Delete(json);
    } else {
        print_report_text(src.name, rep, sa_result_peak_nodes(res));
        code = CLI_EXIT_OK;
    }
done:
    sa_report_free(rep);
    sa_result_free(res);
    sa_end(); /* safe without a successful sa_begin */
    mel_model_free(m);
    cli_source_close(&src);
    mdae_diags_close(&d);
    return code;
}
