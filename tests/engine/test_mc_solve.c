/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mc_solve.c -- the restart values solved (engine/
 * mc_solve.c, mc.h mc_restart_values; issue 41 item 6), checked
 * numerically:
 *  - at random points (every value that is not solved for, x- and the
 *    restart values of earlier instants, and every known quantity a
 *    pseudo-random number), the solved expressions evaluated and put into
 *    the system they solve (the eliminated relations and the standardised
 *    equations without impulsive values, w1+ - w2+ = 0), every row that is
 *    not a stated condition on the old values holds to 1e-9 relative; with
 *    one solved value moved, some row does not hold (the rows constrain
 *    it): on the corpus's multimode models and on random models of the
 *    reference generator (tests/ref/ref_random.c), every change;
 *  - ClutchBasic: RR-9459 (18), w1+ = w2+ = 1.2863097 at the notes' values
 *    (j1 = 1, j2 = 2, w1- = e^-0.05, w2- = 1.5 e^-0.03125), and the
 *    nonstandard relation of the elimination (mc_reset_eliminate, not the
 *    standardisation) -> 0 at a small dt with that value; its text;
 *  - the second-order Cup-and-Ball: positions continuous at instant 0
 *    (RR-9459 (30)) with the taut rope as a condition on the old state;
 *    the clutch with unknown functions: not solved, and why.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fx.h"
#include "mc.h"
#include "mc_elim.h"
#include "mdae.h"
#include "mel.h"
#include "ref.h"

#include "mc_clutch.h"
#include "mc_test.h"

#define MAXA 512 /* values of one system */

typedef struct point {
    const mc_restart_values *v;
    double val[MAXA];
    double known[512];
    uint64_t seed;
} point;

static double rnd(uint64_t *s)
{
    uint64_t z = ref_rand_next(s);
    double u = (double)(z >> 11) / 9007199254740992.0;
    return (z & 1 ? -1 : 1) * (0.5 + 1.5 * u);
}

static double at_var(void *ctx, uint32_t v, uint32_t o)
{
    const point *p = ctx;
    cr_assert_eq(o, 0);
    cr_assert_lt(v, p->v->n_all);
    return p->val[v];
}

static double at_known(void *ctx, uint32_t k)
{
    const point *p = ctx;
    cr_assert_lt(k, 512);
    return p->known[k];
}

static bool at_mode(void *ctx, uint32_t k)
{
    (void)ctx;
    (void)k;
    return false;
}

/* An unknown function: a fixed smooth function of its name and arguments. */
static double at_call(void *ctx, const char *name, uint32_t n, const double *a)
{
    (void)ctx;
    double v = (double)strlen(name);
    for (uint32_t i = 0; i < n; i++)
        v += (i + 1.5) * a[i] + 0.1 * a[i] * a[i];
    return v;
}

/* The value of e at p; *scale: the largest |value| of its sub-terms (the
 * size the rounding error is relative to). */
static double eval_at(const fx_node *e, point *p, double *scale)
{
    fx_point at = {0.7, at_var, at_known, at_mode, at_call, p};
    double v = 0;
    cr_assert_eq(fx_eval(e, &at, &v), MDAE_OK);
    double s = fabs(v);
    for (uint32_t k = 0; k < e->n; k++) {
        double sk = 0;
        double vk = e->op == FX_IF ? 0 : eval_at(e->kids[k], p, &sk);
        s = fmax(s, fmax(fabs(vk), sk));
    }
    *scale = s;
    return v;
}

typedef struct tally {
    size_t entries, solved, values, points, rows, nontrivial, not_solved;
} tally;

/* One solved entry at a few random points: the rows hold, and a moved
 * value breaks one. */
static void check_entry(const mc_restart_values *v, uint64_t seed, const char *label, tally *t)
{
    cr_assert_lt(v->n_all, MAXA, "%s", label);
    cr_assert_not_null(v->solution, "%s", label);
    for (int rep = 0; rep < 4; rep++) {
        point p = {.v = v, .seed = seed * 31 + (uint64_t)rep + 1};
        for (size_t k = 0; k < 512; k++)
            p.known[k] = rnd(&p.seed);
        for (size_t k = 0; k < v->n_all; k++)
            p.val[k] = rnd(&p.seed);
        double s;
        for (size_t k = 0; k < v->n_all; k++)
            if (v->solution[k] != NULL)
                p.val[k] = eval_at(v->solution[k], &p, &s);
        bool finite = true;
        for (size_t k = 0; k < v->n_all; k++)
            finite &= isfinite(p.val[k]) && fabs(p.val[k]) < 1e8;
        if (!finite)
            continue; /* a pivot close to 0 at this point */
        t->points++;
        for (size_t i = 0; i < v->n_rows; i++) {
            if (v->requires_row[i])
                continue;
            double r = eval_at(v->rows[i], &p, &s);
            cr_assert(fabs(r) <= 1e-9 * fmax(1, s), "%s: instant %u, row %zu = %g (scale %g)",
                      label, (unsigned)v->r, i, r, s);
            t->rows++;
        }
        for (size_t k = 0; k < v->n_all; k++) { /* move one solved value */
            if (v->solution[k] == NULL)
                continue;
            p.val[k] += 0.37;
            double worst = 0;
            for (size_t i = 0; i < v->n_rows; i++)
                if (!v->requires_row[i])
                    worst = fmax(worst, fabs(eval_at(v->rows[i], &p, &s)));
            p.val[k] -= 0.37;
            cr_assert(worst > 1e-6, "%s: instant %u: %s moved, every row still holds", label,
                      (unsigned)v->r, v->all_names[k]);
            t->nontrivial++;
        }
    }
}

static void check_result(const mc_result *r, uint64_t seed, const char *label, tally *t)
{
    for (size_t k = 0; k < r->n_restart_values; k++) {
        const mc_restart_values *v = &r->restart_values[k];
        t->entries++;
        if (v->why != NULL) {
            cr_assert_eq(v->n_values, 0, "%s", label);
            t->not_solved++;
            continue;
        }
        t->solved++;
        t->values += v->n_values;
        size_t solved = 0;
        for (size_t j = 0; j < v->n_all; j++)
            solved += v->solution[j] != NULL;
        cr_assert_eq(solved, v->n_values, "%s", label);
        check_entry(v, seed + k, label, t);
    }
}

static const mc_restart_values *entry(const mc_result *r, uint32_t instant)
{
    for (size_t k = 0; k < r->n_restart_values; k++)
        if (r->restart_values[k].r == instant)
            return &r->restart_values[k];
    cr_assert_fail("no restart values at instant %u", (unsigned)instant);
    return NULL;
}

static size_t value_index(const mc_restart_values *v, const char *name)
{
    for (size_t k = 0; k < v->n_all; k++)
        if (strcmp(v->all_names[k], name) == 0)
            return k;
    cr_assert_fail("no value %s", name);
    return 0;
}

static const char *value_of(const mc_restart_values *v, const char *name)
{
    for (size_t k = 0; k < v->n_values; k++)
        if (strcmp(v->names[k], name) == 0)
            return v->values[k];
    cr_assert_fail("%s not solved", name);
    return NULL;
}

/* ---- The papers' models ------------------------------------------------- */

static void check_clutch_basic(const char *file)
{
    mel_model *m = load(file);
    mc_result *r = change1(m, false, true);
    const mc_restart_values *v = entry(r, 0);
    cr_assert_null(v->why, "%s: %s", file, v->why);
    cr_assert_eq(v->n_values, 2);
    cr_assert_str_eq(value_of(v, "w1\u207a"), "(j1 * w1\u207b + j2 * w2\u207b) / (j2 + j1)");
    cr_assert_str_eq(value_of(v, "w2\u207a"), value_of(v, "w1\u207a"));
    cr_assert_str_eq(v->conditions, "j2 + j1 \u2260 0");
    cr_assert_null(v->requires);
    /* the notes' numbers: the model's j1, j2 and the speeds at t = 5 s */
    point p = {.v = v};
    for (uint32_t k = 0; k < m->n_knowns; k++)
        p.known[k] = m->knowns[k].value;
    double w1m = MC_CLUTCH_W1_BEFORE, w2m = MC_CLUTCH_W2_BEFORE;
    p.val[value_index(v, "w1\u207b")] = w1m;
    p.val[value_index(v, "w2\u207b")] = w2m;
    double s;
    double w1p = eval_at(v->solution[value_index(v, "w1\u207a")], &p, &s);
    double w2p = eval_at(v->solution[value_index(v, "w2\u207a")], &p, &s);
    cr_assert_float_eq(w1p, 1.2863097, 1e-7, "RR-9459 (18): %.9f", w1p);
    cr_assert_float_eq(w2p, 1.2863097, 1e-7, "RR-9459 (18): %.9f", w2p);
    /* the nonstandard relation, not the standardisation: -> 0 with it */
    const mc_reset *rs = NULL;
    for (size_t k = 0; k < r->n_resets; k++)
        if (r->resets[k].eliminate.n > 0)
            rs = &r->resets[k];
    cr_assert_not_null(rs);
    fx_pool *pool = fx_pool_new();
    mc_elim e;
    cr_assert_eq(mc_reset_eliminate(m, (bool[]){true}, rs, pool, &e), MDAE_OK);
    cr_assert_eq(e.n_relations, 1);
    for (double dt = 1e-3; dt >= 1e-9; dt /= 100) {
        double x = mc_clutch_relation_dt(m, e.relations[0], w1p, dt);
        cr_assert(fabs(x) <= 10 * dt, "dt*relation = %g at dt = %g", x, dt);
    }
    tally t = {0};
    check_result(r, 7, file, &t);
    cr_assert_eq(t.solved, 1);
    cr_assert_gt(t.rows, 3);
    mc_elim_close(&e);
    fx_pool_free(pool);
    mc_result_free(r);
    mel_model_free(m);
}

Test(mc_solve, clutch_basic_gives_rr9459_18)
{
    check_clutch_basic("clutch_basic_mo.mel");
    check_clutch_basic("clutch_basic.mo");
}

/* RR-9459 (30): at instant 0 the positions are continuous, the rope (not
 * linear in x+, y+) a condition on the old state; (35) at instant 1. */
Test(mc_solve, cup_and_ball_22_positions_continuous)
{
    mel_model *m = load("cup_and_ball_22.mel");
    mc_result *r = change1(m, false, true);
    const mc_restart_values *v = entry(r, 0);
    cr_assert_null(v->why, "%s", v->why);
    cr_assert_str_eq(value_of(v, "x\u207a"), "x\u207b");
    cr_assert_str_eq(value_of(v, "y\u207a"), "y\u207b");
    cr_assert_str_eq(v->requires, "L ^ 2 - x\u207b ^ 2 - y\u207b ^ 2 = 0");
    v = entry(r, 1);
    cr_assert_null(v->why, "%s", v->why);
    cr_assert_eq(v->n_values, 2);
    value_of(v, "x'\u207a");
    value_of(v, "y'\u207a");
    tally t = {0};
    check_result(r, 11, "cup_and_ball_22", &t);
    cr_assert_eq(t.solved, 2);
    cr_assert_gt(t.nontrivial, 8);
    mc_result_free(r);
    mel_model_free(m);
}

/* The clutch with unknown functions: the torques not eliminated, so the
 * restart values are not solved, and the line says why. */
Test(mc_solve, not_eliminated_is_not_solved)
{
    mel_model *m = load("clutch.mel");
    mc_result *r = change1(m, false, true);
    const mc_restart_values *v = entry(r, 0);
    cr_assert_not_null(v->why);
    cr_assert(strstr(v->why, "not eliminated") != NULL, "%s", v->why);
    cr_assert_eq(v->n_values, 0);
    mc_result_free(r);
    mel_model_free(m);
}

/* ---- Every change of the corpus and of random models ---------------------- */

static void all_changes(const mel_model *m, uint64_t seed, const char *name, tally *t)
{
    uint32_t nm = m->n_modes;
    bool from[8], to[8];
    for (uint32_t a = 0; a < (1u << nm); a++)
        for (uint32_t b = 0; b < (1u << nm); b++) {
            if (a == b)
                continue;
            ref_mode_from_index(a, nm, from);
            ref_mode_from_index(b, nm, to);
            mc_result *r = NULL;
            if (mc_change(m, from, to, NULL, &r, NULL, 0) != MDAE_OK)
                continue;
            char label[128];
            snprintf(label, sizeof label, "%s, %u -> %u", name, a, b);
            check_result(r, seed * 4096 + a * 64 + b, label, t);
            mc_result_free(r);
        }
}

Test(mc_solve, corpus_models_values_solve_their_systems, .timeout = 600)
{
    static const char *const files[] = {
        "clutch_basic_mo.mel", "clutch_basic.mo", "clutch.mel", "cup_and_ball.mel",
        "cup_and_ball_22.mel", "cup_and_ball_37.mel", "cup_and_ball_elastic.mel",
        "cup_and_ball_elastic.mo", "ground_contact.mel", "rldc2.mel", "rldc2_cc_mo.mel",
        "rldc_chain.mel", "rldc_parallel.mel", "water_tank_mo.mel", "water_tank.mel",
        "brake.mel",
    };
    tally t = {0};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        mel_model *m = load(files[f]);
        cr_assert(m->n_modes > 0 && m->n_modes <= 8, "%s", files[f]);
        all_changes(m, f, files[f], &t);
        mel_model_free(m);
    }
    cr_log_info("%zu instants: %zu solved (%zu values), %zu not; %zu points, %zu rows, "
                "%zu non-trivial",
                t.entries, t.solved, t.values, t.not_solved, t.points, t.rows, t.nontrivial);
    cr_assert_gt(t.solved, 10);
    cr_assert_gt(t.rows, 50);
    cr_assert_gt(t.nontrivial, 50);
}

Test(mc_solve, random_models_values_solve_their_systems, .timeout = 600)
{
    ref_random_opts o = {.max_modes = 4, .max_equations = 10, .max_order = 2};
    tally t = {0};
    for (uint64_t s = 0; s < 300; s++) {
        mel_model *m = ref_random_parsed(4100 + s, &o);
        if (m != NULL && m->n_modes > 0) {
            char name[32];
            snprintf(name, sizeof name, "seed %llu", (unsigned long long)(4100 + s));
            all_changes(m, s, name, &t);
        }
        mel_model_free(m);
    }
    cr_log_info("%zu instants: %zu solved (%zu values), %zu not; %zu points, %zu rows, "
                "%zu non-trivial",
                t.entries, t.solved, t.values, t.not_solved, t.points, t.rows, t.nontrivial);
    cr_assert_gt(t.solved, 100);
    cr_assert_gt(t.rows, 300);
    cr_assert_gt(t.nontrivial, 300);
}

/* Out of memory anywhere in the change is MDAE_E_NOMEM, nothing leaked;
 * never a value silently left out. */
Test(mc_solve, allocation_failures_are_errors_not_reasons)
{
    mel_model *m = load("clutch_basic.mo");
    bool from[1] = {false}, to[1] = {true};
    cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
    int rc = MDAE_E_NOMEM;
    long n;
    for (n = 0; rc == MDAE_E_NOMEM && n < 200000; n++) {
        counting_arm(n);
        mc_result *r = NULL;
        rc = mc_change(m, from, to, NULL, &r, NULL, 0);
        cr_assert(rc == MDAE_OK || rc == MDAE_E_NOMEM, "allocation %ld: %s", n,
                  mdae_err_name(rc));
        if (rc == MDAE_OK) {
            fail_at = -1;
            cr_assert_eq(r->n_restart_values, 1, "allocation %ld", n);
            cr_assert_eq(r->restart_values[0].n_values, 2, "allocation %ld: %s", n,
                         r->restart_values[0].why ? r->restart_values[0].why : "");
            mc_result_free(r);
        } else
            cr_assert_null(r);
        cr_assert_eq(live, 0, "allocation %ld: %ld blocks leaked", n, live);
    }
    fail_at = -1;
    mdae_replace_allocator(NULL);
    cr_assert_eq(rc, MDAE_OK);
    cr_assert_gt(n, 50);
    mel_model_free(m);
}
