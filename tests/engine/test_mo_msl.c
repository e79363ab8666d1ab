/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mo_msl.c -- Modelica Standard Library exports (issue
 * 11), read in place from ../shared/msl (MDAE_MSL_DIR overrides) and never
 * copied into the tree, checked mode by mode against the brute-force
 * reference on sampled modes. These are the models that the primal problem
 * by blocks (engine/sa_blocks.c) brought within reach, and a smaller one
 * with every mode walked. Without the folder (a clean clone in CI) each
 * test is skipped and says so.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mel.h"
#include "mo.h"
#include "ref.h"
#include "sa.h"

#include "model_files.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(mo_msl, .init = begin, .fini = end, .timeout = 600);

/* The all-modes result in each walked mode equals the reference's:
 * validity, singularity, offsets; the parts of the singular ones. */
static void check_mode(const char *name, uint64_t x, const mel_model *m, const sa_result *res,
                       const bool *mode, size_t *valid, size_t *singular)
{
    ref_mode rm;
    cr_assert_eq(ref_mode_compute(m, mode, &rm), MDAE_OK);
    sa_mode_view v;
    memset(&v, 0, sizeof v);
    cr_assert_eq(sa_result_mode(res, mode, &v), MDAE_OK);
    cr_assert_eq(v.valid, rm.valid, "%s mode %llu: valid", name, (unsigned long long)x);
    cr_assert_eq(v.singular, rm.singular, "%s mode %llu: singular", name, (unsigned long long)x);
    *valid += rm.valid;
    *singular += rm.singular;
    for (uint32_t i = 0; rm.valid && !rm.singular && i < m->n_equations; i++)
        cr_assert_eq(v.c[i], rm.c[i], "%s mode %llu: c of %s", name, (unsigned long long)x,
                     m->equations[i].name);
    for (uint32_t j = 0; rm.valid && !rm.singular && j < m->n_variables; j++)
        cr_assert_eq(v.d[j], rm.d[j], "%s mode %llu: d of %s", name, (unsigned long long)x,
                     m->variables[j].name);
    for (uint32_t i = 0; rm.singular && i < m->n_equations; i++)
        cr_assert_eq(v.overdetermined[i], rm.overdetermined[i]);
    for (uint32_t j = 0; rm.singular && j < m->n_variables; j++)
        cr_assert_eq(v.underdetermined[j], rm.underdetermined[j]);
    sa_mode_view_close(&v);
    ref_mode_close(&rm);
}

/* Analyse the model (auto method) and walk its modes: all of them up to
 * 14 mode variables, else `samples` valid modes drawn at random (random
 * assignments are almost never valid: FullRobot's 18 invariants). by_blocks:
 * the primal must have run block by block. dm_by_blocks: so must the
 * singular modes' diagnostics, and some walked mode must be singular. */
static void against_reference_ex(const char *name, uint64_t samples, bool by_blocks,
                                 bool dm_by_blocks)
{
    size_t len = 0;
    char *text = tm_read_msl(name, &len);
    if (text == NULL)
        cr_skip_test("%s: no ../shared/msl here (set MDAE_MSL_DIR)", name);
    mel_model *m = NULL;
    mdae_diags d;
    mdae_diags_init(&d);
    cr_assert_eq(mo_model_parse(text, len, NULL, &m, &d), MDAE_OK, "%s", name);
    sa_result *res = NULL;
    cr_assert_eq(sa_analyze(m, NULL, &res, &d), MDAE_OK, "%s", name);
    mdae_diags_close(&d);
    sa_method_info mi;
    sa_result_method(res, &mi);
    if (by_blocks)
        cr_assert_gt(mi.blocks, 1, "%s: the primal ran block by block", name);
    bool *mode = calloc((size_t)m->n_modes + 1, sizeof *mode);
    cr_assert_not_null(mode);
    uint64_t state = 0xB10C5ull, total = ref_modes_total(m->n_modes, 14, samples);
    size_t valid = 0, singular = 0;
    for (uint64_t x = 0; x < total; x++) {
        if (m->n_modes <= 14)
            ref_modes_at(x, m->n_modes, 14, &state, mode);
        else
            cr_assert_eq(sa_result_sample_mode(res, &state, mode), MDAE_OK);
        check_mode(name, x, m, res, mode, &valid, &singular);
    }
    cr_log_info("%s: %llu modes walked, %zu valid, %zu singular", name,
                (unsigned long long)total, valid, singular);
    cr_assert_gt(valid, 0, "%s: some walked mode is valid", name);
    if (dm_by_blocks) {
        cr_assert(mi.dm_by_blocks, "%s: the diagnostics ran block by block", name);
        cr_assert_gt(singular, 0, "%s: some walked mode is singular", name);
    }
    free(mode);
    sa_result_free(res);
    mel_model_free(m);
    free(text);
}

static void against_reference(const char *name, uint64_t samples, bool by_blocks)
{
    against_reference_ex(name, samples, by_blocks, false);
}

Test(mo_msl, full_robot_by_blocks_agrees_with_the_reference_on_sampled_modes)
{
    against_reference("Modelica.Mechanics.MultiBody.Examples.Systems.RobotR3.FullRobot", 6,
                      true);
}

Test(mo_msl, heat_exchanger_by_blocks_agrees_with_the_reference_on_sampled_modes)
{
    against_reference("Modelica.Fluid.Examples.HeatExchanger.HeatExchangerSimulation", 8,
                      true);
}

Test(mo_msl, pumping_system_by_blocks_agrees_with_the_reference_with_its_singular_modes)
{
    /* A quarter of its modes are singular (the reservoir's third port,
     * neither regular flow nor inflow, sets its flow to zero twice): the
     * diagnostics by blocks are checked there too. */
    against_reference("Modelica.Fluid.Examples.PumpingSystem", 200, true);
}

Test(mo_msl, tanks_with_overflow_agrees_with_the_reference_with_its_singular_modes)
{
    /* One block of 116 equations over 40 mode variables, singular in a
     * third of its modes (a port with neither regular flow nor inflow):
     * solved by the tight graphs of sampled modes (engine/sa_tight.c; where
     * they would not cover every mode, its singular modes' maximum matchings
     * would come one per cofactor, engine/sa_maxmatch.c, as test_sa_enum
     * checks on random models), then the diagnostics by blocks. */
    against_reference_ex("Modelica.Fluid.Examples.Tanks.TanksWithOverflow", 200, true, true);
}

Test(mo_msl, batch_plant_by_tight_graphs_agrees_with_the_reference_with_its_singular_modes)
{
    /* A union-graph block of 742 equations over 48 atoms: its nonsingular
     * and singular modes by the tight graphs of sampled modes (sa_tight.c),
     * the diagnostics from the whole's maximum matchings they give. */
    against_reference("Modelica.Fluid.Examples.AST_BatchPlant.BatchPlant_StandardWater", 3,
                      true);
}

Test(mo_msl, translational_friction_agrees_with_the_reference_on_sampled_modes)
{
    /* 16 mode variables (the hard stops' `stopped <> 0` declare transient
     * modes): 400 sampled valid modes. */
    against_reference("Modelica.Mechanics.Translational.Examples.Friction", 400, false);
}

/* An editor re-analyses a model seeded by its previous version's result
 * (sa_options.hint, engine/sa_primal.c; issue 16): seeded by its own
 * result, every block's primal is seeded too, and the result must be the
 * cold one, function for function, in the same BDD layout (an attempt of
 * the hint's tight graphs used to start BatchPlant's analysis again in
 * Cuthill-McKee's order: sa_analyze.c, sa__hard_part). */
static void seeded_by_itself(const char *name, uint32_t *seeded_zero)
{
    size_t len = 0;
    char *text = tm_read_msl(name, &len);
    if (text == NULL)
        cr_skip_test("%s: no ../shared/msl here (set MDAE_MSL_DIR)", name);
    mel_model *m = NULL;
    cr_assert_eq(mo_model_parse(text, len, NULL, &m, NULL), MDAE_OK, "%s", name);
    sa_result *cold = NULL, *seeded = NULL;
    cr_assert_eq(sa_analyze(m, NULL, &cold, NULL), MDAE_OK, "%s", name);
    sa_options o = {.hint = cold};
    cr_assert_eq(sa_analyze(m, &o, &seeded, NULL), MDAE_OK, "%s seeded", name);
    const char *why = NULL;
    cr_assert(sa_result_same(cold, seeded, &why), "%s seeded by itself: %s differs", name, why);
    sa_method_info mi;
    sa_result_method(seeded, &mi);
    *seeded_zero += mi.seeded_zero;
    sa_result_free(seeded);
    sa_result_free(cold);
    mel_model_free(m);
    free(text);
}

Test(mo_msl, models_by_blocks_seeded_by_their_own_result_get_the_cold_result)
{
    static const char *const names[] = {
        "Modelica.Mechanics.MultiBody.Examples.Systems.RobotR3.FullRobot",
        "Modelica.Fluid.Examples.HeatExchanger.HeatExchangerSimulation",
        "Modelica.Fluid.Examples.PumpingSystem",
        "Modelica.Fluid.Examples.Tanks.TanksWithOverflow",
        "Modelica.Fluid.Examples.AST_BatchPlant.BatchPlant_StandardWater",
    };
    uint32_t seeded_zero = 0;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        seeded_by_itself(names[k], &seeded_zero);
    cr_log_info("%u primal problems by the hint's cost-0 matchings alone", seeded_zero);
}
