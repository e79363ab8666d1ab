/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/protocol/test_rpc_rimis.c -- the JSON form of a RIMIS
 * (protocol/rpc_rimis.h): exact text for a hand-built result over a parsed
 * model (names from the model, conditions by id, null for "every mode",
 * the lines of each group, the warnings as diagnostics, the name a quoted
 * model has), results whose indices point past their arrays refused
 * (MDAE_E_INVAL), allocation failures at every step (no leak,
 * MDAE_E_NOMEM), and the output model's name for a file.
 */
#include <criterion/criterion.h>

#include <string.h>

#include "rpc_json.h"
#include "rpc_rimis.h"

#include "fail_alloc.h"

static const char model_text[] = "x : real; p : boolean = x >= 1;\n"
                                 "e : equation 1 = if p then x else der(x);\n";

static mel_model *parse(void)
{
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(model_text, strlen(model_text), NULL, &m, NULL), MDAE_OK);
    return m;
}

static char text[] = "// from TwoEquations\n"
                     "model 'Two equations_rimis'\n"
                     "  Real x;\n"
                     "  Real x_2;\n"
                     "equation\n"
                     "  x = if p then x_2 else 0;\n"
                     "  1 = x_2;\n"
                     "end 'Two equations_rimis';\n";
static signed char cube_np[] = {0};
static rimis_cond conds[] = {{2, "p", {"p", 1, 0, 1, cube_np}}};
static rimis_var vars[] = {
    {"x", RIMIS_V_SOURCE, 0, 0, -1, -1, false},
    {"x_2", RIMIS_V_REPLICATE, 0, 0, 0, 0, false},
};
static rimis_eq eqs[] = {
    {RIMIS_EQ_MULTI, 6, -1, -1, 0, 0, false},
    {RIMIS_EQ_BLOCK, 7, 0, 0, 0, 1, false},
};
static uint32_t group0_eqs[] = {1};
static rimis_group groups[] = {{0, 0, 1, group0_eqs}, {1, -1, 0, NULL}};

/* The hand-built result (its warnings to close with mdae_diags_close). */
static rimis_result result(void)
{
    rimis_result r;
    memset(&r, 0, sizeof r);
    r.text = text;
    r.text_len = sizeof text - 1;
    r.n_lines = 8;
    r.n_conds = 1;
    r.conds = conds;
    r.n_vars = 2;
    r.vars = vars;
    r.n_eqs = 2;
    r.eqs = eqs;
    r.n_groups = 2;
    r.groups = groups;
    r.n_multiplexers = 1;
    r.n_replicates = 1;
    mdae_diags_init(&r.warnings);
    mdae_range where = {{3, 3, 0}, {3, 9, 0}};
    cr_assert_eq(mdae_diags_add(&r.warnings, MDAE_SEV_WARNING, where, "restart value copied"),
                 MDAE_OK);
    return r;
}

static char *encode(const mel_model *m, const rimis_result *r)
{
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_rimis(m, r, &j), MDAE_OK);
    char *s = NULL;
    cr_assert_eq(rpc_json_print(j, false, &s), MDAE_OK);
    cJSON_Delete(j);
    return s;
}

Test(rpc_rimis, exact_json_of_a_hand_built_result)
{
    mel_model *m = parse();
    rimis_result r = result();
    char *s = encode(m, &r);
    cr_assert_str_eq(
        s, "{\"name\":\"'Two equations_rimis'\","
           "\"text\":\"// from TwoEquations\\nmodel 'Two equations_rimis'\\n  Real x;\\n  Real "
           "x_2;\\nequation\\n  x = if p then x_2 else 0;\\n  1 = x_2;\\nend 'Two "
           "equations_rimis';\\n\","
           "\"lines\":8,\"replicates\":1,\"multiplexers\":1,\"reinits\":0,"
           "\"conditions\":[{\"id\":2,\"text\":\"p\",\"modes\":{\"formula\":\"p\","
           "\"cubes\":[{\"p\":false}]}}],"
           "\"variables\":[{\"name\":\"x\",\"kind\":\"source\",\"source\":\"x\",\"order\":0,"
           "\"condition\":null,\"block\":null},{\"name\":\"x_2\",\"kind\":\"replicate\","
           "\"source\":\"x\",\"order\":0,\"condition\":2,\"block\":0}],"
           "\"groups\":[{\"block\":0,\"condition\":2,\"lines\":[7]},"
           "{\"block\":1,\"condition\":null,\"lines\":[]}],"
           "\"warnings\":[{\"severity\":\"warning\",\"message\":\"restart value copied\","
           "\"range\":{\"start\":{\"line\":3,\"col\":3,\"offset\":0},"
           "\"end\":{\"line\":3,\"col\":9,\"offset\":0}}}]}");
    mdae_free(s);
    mdae_diags_close(&r.warnings);
    mel_model_free(m);
}

Test(rpc_rimis, a_text_without_a_model_line_has_an_empty_name)
{
    mel_model *m = parse();
    rimis_result r = result();
    r.text = "x = 1;\n";
    r.text_len = 7;
    char *s = encode(m, &r);
    cr_assert_eq(strncmp(s, "{\"name\":\"\",", 11), 0, "%s", s);
    mdae_free(s);
    mdae_diags_close(&r.warnings);
    mel_model_free(m);
}

Test(rpc_rimis, indices_past_the_arrays_are_refused)
{
    mel_model *m = parse();
    cJSON *j = NULL;
    rimis_result r = result();
    rimis_var bad_var[] = {{"y", RIMIS_V_SOURCE, 7, 0, -1, -1, false}};
    rimis_var bad_cond[] = {{"x_9", RIMIS_V_REPLICATE, 0, 0, 1, 0, false}};
    uint32_t bad_eq[] = {2};
    rimis_group bad_group[] = {{0, 0, 1, bad_eq}};
    rimis_group bad_group_cond[] = {{0, 3, 0, NULL}};
    r.vars = bad_var;
    r.n_vars = 1;
    cr_assert_eq(rpc_json_rimis(m, &r, &j), MDAE_E_INVAL, "a source variable past the model's");
    r.vars = bad_cond;
    cr_assert_eq(rpc_json_rimis(m, &r, &j), MDAE_E_INVAL, "a condition past conds");
    r.vars = vars;
    r.n_vars = 2;
    r.groups = bad_group;
    r.n_groups = 1;
    cr_assert_eq(rpc_json_rimis(m, &r, &j), MDAE_E_INVAL, "an equation past eqs");
    r.groups = bad_group_cond;
    cr_assert_eq(rpc_json_rimis(m, &r, &j), MDAE_E_INVAL, "a group's condition past conds");
    r.groups = groups;
    r.n_groups = 2;
    r.text = NULL;
    cr_assert_eq(rpc_json_rimis(m, &r, &j), MDAE_E_INVAL, "no text");
    cr_assert_eq(rpc_json_rimis(NULL, &r, &j), MDAE_E_INVAL);
    cr_assert_null(j);
    mdae_diags_close(&r.warnings);
    mel_model_free(m);
}

Test(rpc_rimis, allocation_failures_at_every_step)
{
    mel_model *m = parse();
    rimis_result r = result();
    rpc_json_init();
    cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
    int rc = MDAE_E_NOMEM;
    long n;
    for (n = 0; n < 100000 && rc == MDAE_E_NOMEM; n++) {
        counting_arm(n);
        cJSON *j = NULL;
        rc = rpc_json_rimis(m, &r, &j);
        if (rc == MDAE_OK)
            cJSON_Delete(j);
        else
            cr_assert_null(j);
        cr_assert(rc == MDAE_OK || rc == MDAE_E_NOMEM, "allocation %ld: %s", n, mdae_err_name(rc));
        cr_assert_eq(live, 0, "allocation %ld failing leaks %ld blocks", n, live);
    }
    fail_at = -1;
    mdae_replace_allocator(NULL);
    cr_assert_eq(rc, MDAE_OK, "never succeeded");
    cr_assert_gt(n, 20, "too few allocations to be meaningful");
    mdae_diags_close(&r.warnings);
    mel_model_free(m);
}

Test(rpc_rimis, output_model_name_of_a_file)
{
    char buf[32];
    cr_assert_str_eq(rpc_rimis_model_name("tests/models/water_tank.mel", buf, sizeof buf),
                     "water_tank_rimis");
    cr_assert_str_eq(rpc_rimis_model_name("file:///home/me/Tank2.mo", buf, sizeof buf),
                     "Tank2_rimis");
    cr_assert_str_eq(rpc_rimis_model_name("noext", buf, sizeof buf), "noext_rimis");
    cr_assert_null(rpc_rimis_model_name("-", buf, sizeof buf));
    cr_assert_null(rpc_rimis_model_name("a/Modelica.Blocks.PID.bmo", buf, sizeof buf));
    cr_assert_null(rpc_rimis_model_name("2tanks.mel", buf, sizeof buf));
    cr_assert_null(rpc_rimis_model_name("my-model.mel", buf, sizeof buf));
    cr_assert_null(rpc_rimis_model_name("dir/", buf, sizeof buf));
    cr_assert_null(rpc_rimis_model_name(NULL, buf, sizeof buf));
    cr_assert_null(rpc_rimis_model_name("a_rather_long_model_name_indeed.mel", buf, sizeof buf),
                   "does not fit");
}
