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
        fputs(text, stdout);
    }
    mdae_free(text);
    mel_model_free(m);
    mdae_diags_close(&d);
    cli_source_close(&src);
    return cli_finish(code);
}
