/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli_convert.c -- `mdae convert FILE --to mel|modelica`: print
 * the flat model the front-end built (from Modelica or MEL) as MEL
 * (mo_model_to_mel) or flat Modelica (mo_model_to_modelica), so that a
 * modeler can read the unknowns, the mode variables and the atoms they
 * stand for, the derived invariants and the guarded equations, or move a
 * model from one language to the other (docs/convert.md).
 */
#include "cli.h"
#include "fx.h"
#include "mo.h"

#include <stdio.h>
#include <string.h>

/* The Modelica model's name: the file's base name without its extension
 * (Modelica.Blocks.Examples.PID_Controller.bmo: 'Modelica.Blocks.Examples.PID_Controller'),
 * into buf (a name that is not an identifier is quoted by the printer). */
static const char *model_name(const char *file, char *buf, size_t size)
{
    const char *base = strrchr(file, '/');
    base = base != NULL ? base + 1 : file;
    snprintf(buf, size, "%s", *base != '\0' && strcmp(base, "-") != 0 ? base : "Model");
    char *dot = strrchr(buf, '.');
    if (dot != NULL && dot != buf)
        *dot = '\0';
    return buf;
}

/* How many equations stand for what an algorithm section assigns (the
 * importer's `x = algorithm`, an FX_OPAQUE "algorithm" reading what the
 * section reads: its statements are not kept), the first in *first. */
static uint32_t algorithm_equations(const mel_model *m, const mel_equation **first)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const fx_node *r = m->equations[i].rhs;
        if (r != NULL && r->op == FX_OPAQUE && strcmp(r->name, "algorithm") == 0 && n++ == 0)
            *first = &m->equations[i];
    }
    return n;
}

/* Say it, loudly: on stderr with the other warnings, and at the top of the
 * printed model, whose equations cannot say how those variables are
 * computed (docs/convert.md, "What cannot read back the same"). */
static void warn_algorithm(const mel_model *m, mdae_diags *d, mdae_buf *head)
{
    const mel_equation *q = NULL;
    uint32_t n = algorithm_equations(m, &q);
    if (n == 0)
        return;
    static const char what[] =
        "an algorithm section is not kept: its statements are lost, and each variable it "
        "assigns (%u) is printed as an equation '= algorithm' reading what the "
        "section reads (the structure), which says nothing of how it is computed";
    (void)mdae_diags_add(d, MDAE_SEV_WARNING, q->where, what, n);
    char line[320];
    snprintf(line, sizeof line, what, n);
    mdae_buf_puts(head, "// warning: ");
    mdae_buf_puts(head, line);
    mdae_buf_puts(head, "\n");
}

int cli_convert_run(const cli_opts *o)
{
    cli_source src;
    mel_model *m = NULL;
    mdae_diags d;
    mdae_diags_init(&d);
    int code = cli_load_model(o, false, &src, &m, &d);
    if (code != CLI_EXIT_OK) {
        mdae_diags_close(&d);
        return code;
    }
    mdae_buf head = {0};
    warn_algorithm(m, &d, &head);
    cli_print_diags(&src, &d); /* warnings */
    char *text = NULL;
    bool modelica = o->to != NULL && strcmp(o->to, "modelica") == 0;
    char name[256];
    int rc = modelica ? mo_model_to_modelica(m, model_name(src.name, name, sizeof name), &text)
                      : mo_model_to_mel(m, &text);
    if (rc < 0) {
        fprintf(stderr, "%s: error: %s\n", src.name, mdae_strerror(rc));
        code = CLI_EXIT_IO;
    } else {
        fprintf(stdout, "// %s as %s (mdae convert)\n", src.name, modelica ? "Modelica" : "MEL");
        if (head.p != NULL)
            fputs(head.p, stdout);
        fputs(text, stdout);
    }
    mdae_free(text);
    mdae_free(head.p);
    mel_model_free(m);
    mdae_diags_close(&d);
    cli_source_close(&src);
    return cli_finish(code);
}
