/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli_convert.c -- `mdae convert FILE --to mel`: print what the
 * front-end understood of a model (Modelica or MEL) as MEL text
 * (mo_model_to_mel), so that a modeler can read the unknowns, the mode
 * variables and the atoms they stand for, the derived invariants and the
 * guarded equations.
 */
#include "cli.h"
#include "mo.h"

#include <stdio.h>

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
    int rc = mo_model_to_mel(m, &text);
    if (rc < 0) {
        fprintf(stderr, "%s: error: %s\n", src.name, mdae_strerror(rc));
        code = CLI_EXIT_IO;
    } else {
        fprintf(stdout, "// %s as MEL (mdae convert)\n", src.name);
        fputs(text, stdout);
    }
    mdae_free(text);
    mel_model_free(m);
    mdae_diags_close(&d);
    cli_source_close(&src);
    return cli_finish(code);
}
