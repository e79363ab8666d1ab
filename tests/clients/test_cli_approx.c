/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/clients/test_cli_approx.c -- `mdae approx` (issue 38): the warnings
 * located in the source and the summary line, the JSON's shape, and the
 * exit statuses of a model with errors and of a bad command line.
 */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_test.h"

static run run_args(const char *const *args) { return cli_run(NULL, environ, args); }

#define RUN(...) run_args((const char *const[]){__VA_ARGS__, NULL})

static const cJSON *item(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* `mdae approx -` with text (len bytes) on stdin. */
static run approx_stdin(const char *text, size_t len)
{
    char path[] = "/tmp/mdae-approx-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, len), (ssize_t)len);
    close(fd);
    run r = cli_run(path, environ, (const char *const[]){"approx", "-", NULL});
    unlink(path);
    return r;
}

Test(cli_approx, water_tank_warns_at_eh2_when_bh)
{
    run r = RUN("approx", MODEL("water_tank.mel"));
    expect(&r, 0);
    contains(r.out, "water_tank.mel:45:1: warning: a single-mode analysis, as Modelica tools "
                    "do, divides by zero here when bh: it solves eh2 for yh");
    contains(r.out, "water_tank.mel: a single-mode analysis accepts this model (7 equations, "
                    "7 blocks); it is wrong in 2 of 3 valid modes (bh | bl)");
    run_free(&r);
}

Test(cli_approx, clutch_pivot_is_printed_in_the_source_language)
{
    run r = RUN("approx", MODEL("clutch.mel"));
    expect(&r, 0);
    contains(r.out, "clutch.mel:30:3: warning: a single-mode analysis, as Modelica tools do, "
                    "divides by zero here when gamma: it solves e3|e5 for tau1");
    contains(r.out, "(pivot: if gamma then 0 else 1)");
    run_free(&r);
}

Test(cli_approx, json_has_the_agreed_shape)
{
    run r = RUN("approx", MODEL("two_equations.mo"), "--json");
    expect(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "not JSON:\n%s", r.out);
    static const char *const keys[] = {"accepted", "equations", "variables",   "blocks",
                                       "findings", "wrong_modes", "valid_modes"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        cr_assert_not_null(item(j, keys[k]), "no \"%s\"", keys[k]);
    const cJSON *f = cJSON_GetArrayItem(item(j, "findings"), 0);
    cr_assert_str_eq(cJSON_GetStringValue(item(f, "kind")), "pivot");
    cr_assert_str_eq(cJSON_GetStringValue(item(f, "variable")), "x");
    cr_assert_eq(item(f, "order")->valueint, 1);
    cr_assert_str_eq(cJSON_GetStringValue(item(item(f, "modes"), "formula")), "p");
    cr_assert_eq(item(item(j, "wrong_modes"), "count")->valueint, 1);
    cJSON_Delete(j);
    run_free(&r);
}

Test(cli_approx, refused_model_says_so)
{
    /* Two conditional statements are never merged: 3 rows, 2 unknowns. */
    static const char text[] = "x : real; y : real; g : boolean;\n"
                               "if g then e1 : equation x = 1 end;\n"
                               "if !g then e2 : equation x = y end;\n"
                               "e3 : equation y = 2;\n";
    run r = approx_stdin(text, sizeof text - 1);
    expect(&r, 0);
    contains(r.out, "warning: a single-mode analysis, as Modelica tools do, refuses this model");
    contains(r.out, "a single-mode analysis refuses this model");
    run_free(&r);
}

Test(cli_approx, model_errors_exit_1_and_usage_errors_2)
{
    run r = RUN("approx", MODEL("syntax_error.mel"));
    expect(&r, 1);
    run_free(&r);
    r = RUN("approx", MODEL("water_tank.mel"), "--mode", "bh=1");
    expect(&r, 2);
    run_free(&r);
}

/* A half-typed line (the model being edited): the rest is compared, and the
 * verdict says what was left out, as `mdae analyze` does. */
Test(cli_approx, half_typed_text_compares_the_rest)
{
    static const char text[] = "x : real; p : boolean = x >= 1;\n"
                               "e : equation 1 = if p then x else der(x);\n"
                               "f : equation x = 2 * \n";
    run r = approx_stdin(text, sizeof text - 1);
    expect(&r, 1);
    contains(r.out, "divides by zero here when p: it solves e for der(x)");
    contains(r.err, "1 syntax error; 1 statement left out, the result is of the rest");
    run_free(&r);
}

/* A model every valid mode of which is singular: the tool's refusal agrees
 * with the exact analysis, and the summary says so rather than "right". */
Test(cli_approx, refusal_that_agrees_with_the_exact_analysis)
{
    static const char text[] = "x : real;\ne1 : equation x = 1;\ne2 : equation x = 2;\n";
    run r = approx_stdin(text, sizeof text - 1);
    expect(&r, 0);
    contains(r.out, "refuses this model, as the exact analysis does: no valid mode (1) is solvable");
    run_free(&r);
}

/* A full disk under stdout is said once, with exit status 4 (the command
 * and main both finish: the second must not say it again). */
Test(cli_approx, a_full_disk_is_said_once)
{
    if (access("/dev/full", W_OK) != 0)
        cr_skip_test("no /dev/full");
    char err_path[] = "/tmp/mdae-cli-full-XXXXXX";
    int fd = mkstemp(err_path);
    cr_assert_geq(fd, 0);
    close(fd);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s approx %s >/dev/full 2>%s", MDAE, MODEL("water_tank.mel"),
             err_path);
    int status = system(cmd);
    cr_assert(WIFEXITED(status));
    cr_expect_eq(WEXITSTATUS(status), 4);
    FILE *f = fopen(err_path, "r");
    cr_assert_not_null(f);
    char line[512];
    int said = 0;
    while (fgets(line, sizeof line, f) != NULL)
        said += strstr(line, "error writing to stdout") != NULL;
    fclose(f);
    unlink(err_path);
    cr_expect_eq(said, 1);
}
