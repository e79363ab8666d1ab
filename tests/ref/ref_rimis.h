/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/ref/ref_rimis.h -- the independent checks of a RIMIS (engine/rimis.h;
 * issue 39, "How it is checked"), on the printed TEXT read back.
 *
 * Why: the construction (engine/rimis_build.c) is long and its mistakes
 * are quiet: a multiplexer that selects the wrong replicate, a block whose
 * partial evaluation kept the wrong branch, a read named after a writer
 * that is not active still read back as a fine model. These checks share
 * no logic with it: they read the output as any tool would
 * (mo_model_parse), analyse it with mdae's own analyses, and evaluate its
 * equations numerically against the source's. The result's mapping
 * (rimis_result.vars, eqs and their lines, groups, conds) is used only to
 * NAME things: which source (variable, order) an output variable stands
 * for, which output lines are which block's equations.
 *
 * For a model m nonsingular in every valid mode, r = sa_analyze(m),
 * g = cdg_build(r), res = rimis_build(m, r, g), over the source's valid
 * modes (all when at most `max_modes`, else that many drawn with a fixed
 * seed; the output's mode variables are the source's, by name):
 *  1. readback: res->text parses (mo_model_parse, no error) into o; every
 *     equation of o starts on a line res->eqs names; o is reduced-index
 *     (der() only in the DIFF equations, every other derivative a
 *     dummy-derivative variable); sa_analyze(o) finds every checked mode
 *     valid and nonsingular;
 *  2. pivots: ap_analyze(o) accepts o and no AP_PIVOT finding holds in a
 *     checked mode;
 *  3. blocks: res->groups are the CDG's blocks, each group's (equation,
 *     order) pairs its block's; the approximate equations starting on a
 *     group's lines (one per line) are exactly one block of o's
 *     approximate BTF;
 *  4. numbers: at a random point per mode -- every source value (u, n)
 *     drawn in [0.5, 1.5]; an output variable that stands for (u, n) takes
 *     its value when it is LIVE (source and dummy variables always; a
 *     replicate when its writing block is active in the mode, by
 *     cdg_graph_mode; a read replicate when its condition holds), else a
 *     junk value in [2.5, 3.5] of its own, so that reading a replicate
 *     outside its modes shows; der() of a live variable is (u, n + 1) --
 *     every multiplexer of a value the mode defines (u active, n <= d_u;
 *     or a live read replicate) has residual 0; every equation of every
 *     active block (the member of its if-equation active in the mode, when
 *     guarded) has the residual of its source equation differentiated
 *     `order` times (fx_dt), evaluated in the source at the same point;
 *     every DIFF equation of a live state holds. Relative tolerance 1e-8.
 *     Not compared, counted (report->not_compared): an output equation
 *     read back as FX_OPAQUE (the importer keeps a Boolean input that
 *     selects no incidence as text); one holding a relation the source
 *     made a mode variable (the point sets the mode, not the numbers the
 *     relation compares); a source equation reading under pre()/last() a
 *     value its mode does not define (no block computes it there).
 *     Unknown functions are one fixed function of their name and
 *     arguments; knowns their value (a random one by name when unknown);
 *     time the value of the source's known named `time` (MEL's stand-in
 *     for Modelica's time, tests/models/water_tank.mel), else 0.25.
 *
 * The replicate conditions are checked on the way: a replicate's condition
 * (rimis_result.conds) holds in a checked mode exactly when its block is
 * active (check 4).
 *
 * A failing check does not stop the others when what they read exists.
 *
 * Promises: no I/O; BDD work (sa_analyze, ap_analyze of o) inside the
 * caller's sa_begin/sa_end. Deterministic for a seed. Errors: MDAE_OK (see
 * report->failed), MDAE_E_INVAL (bad arguments, or a checked mode singular
 * in the source), MDAE_E_NOMEM, and what sa_analyze / ap_analyze / cdg
 * return for o when it is not a check's failure (MDAE_E_BDD_LIMIT...).
 *
 * Ownership: everything is borrowed for the call.
 */
#ifndef REF_RIMIS_H
#define REF_RIMIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cdg.h"
#include "mel.h"
#include "rimis.h"
#include "sa.h"

typedef struct ref_rimis_opts {
    uint64_t seed;      /* the points and the sampled modes; 0: a fixed one */
    uint32_t max_modes; /* modes checked; 0: 200 */
} ref_rimis_opts;

typedef struct ref_rimis_report {
    int failed;         /* 0: the four checks hold; else the first failing (1..4) */
    char why[1024];     /* failed: what, where, in which mode */
    unsigned failed_mask;      /* bit k: check k failed (each check runs
                                  when what it reads exists: 2-4 need the
                                  text read back, 3 an accepted model) */
    char why_check[4][512];    /* why_check[k - 1]: check k's first failure */
    uint64_t modes;     /* valid modes checked */
    bool sampled;       /* the valid modes were more than max_modes (or not
                           enumerable): a sample was checked */
    uint64_t multiplexers, block_eqs, diffs; /* residuals compared in all */
    uint64_t not_compared;      /* block equations and multiplexers left
                                   uncompared at a point (below), in all */
    char not_compared_why[160]; /* the first of them, and why */
} ref_rimis_report;

int ref_rimis_check(const mel_model *m, const sa_result *r, const cdg_graph *g,
                    const rimis_result *res, const ref_rimis_opts *opt,
                    ref_rimis_report *out /* out */);

#endif /* REF_RIMIS_H */
