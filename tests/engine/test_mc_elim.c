/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mc_elim.c -- the elimination of the restart relations
 * (engine/mc_elim.h; issue 41 item 8), checked numerically and
 * independently of how it is computed:
 *  - at points that satisfy the equations it combines (found here by
 *    Newton's method on those equations, evaluated with fx_eval on the
 *    model's own expressions, every unknown x^(o) at shift k an
 *    independent number, the values to eliminate and as many others as
 *    there are relations solved for), every relation holds to 1e-9
 *    (relative to the size of its terms); at points that do not, it does
 *    not hold (it is not trivially 0);
 *  - on the papers' models: the clutch (ClutchBasic, MEL and Modelica)
 *    gives the relation whose reading as dt -> 0 is RR-9459 (18), checked
 *    by evaluating it at a small dt with (18)'s restart value; the
 *    second-order Cup-and-Ball (22) gives the restart code (26) with its
 *    pivot x != 0; the clutch with unknown functions f1(w1, tau1) is not
 *    linear and says so;
 *  - on random models of the reference generator (tests/ref/ref_random.c),
 *    every change of every model, every eliminating relation.
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

#define MAXV 256 /* values of one system (var, order, shift) */

/* The values of a point: (var, order, shift) -> number. */
typedef struct pt {
    size_t n;
    uint32_t var[MAXV];
    uint32_t order[MAXV];
    int shift[MAXV];
    double val[MAXV];
    const mel_model *m;
    const bool *to;
    int cur_shift; /* the shift the expression is read at */
    uint64_t seed;
} pt;

static double rnd(uint64_t *s)
{
    uint64_t z = ref_rand_next(s);
    double u = (double)(z >> 11) / 9007199254740992.0;
    return (z & 1 ? -1 : 1) * (0.5 + 1.5 * u);
}

static size_t slot(pt *p, uint32_t var, uint32_t order, int shift)
{
    for (size_t k = 0; k < p->n; k++)
        if (p->var[k] == var && p->order[k] == order && p->shift[k] == shift)
            return k;
    cr_assert_lt(p->n, MAXV);
    p->var[p->n] = var;
    p->order[p->n] = order;
    p->shift[p->n] = shift;
    p->val[p->n] = rnd(&p->seed);
    return p->n++;
}

/* The model's own expressions: x^(o) read at p->cur_shift. */
static double at_var(void *ctx, uint32_t v, uint32_t o)
{
    pt *p = ctx;
    return p->val[slot(p, v, o, p->cur_shift)];
}

/* The elimination's encoding (mc_elim.h): v = x + shift * n_variables. */
static double at_encoded(void *ctx, uint32_t v, uint32_t o)
{
    pt *p = ctx;
    uint32_t nv = p->m->n_variables;
    return p->val[slot(p, v % nv, o, (int)(v / nv))];
}

static double at_known(void *ctx, uint32_t k)
{
    pt *p = ctx;
    const mel_known *kn = &p->m->knowns[k];
    return kn->known ? kn->value : 1.0 + 0.37 * k;
}

static bool at_mode(void *ctx, uint32_t k)
{
    pt *p = ctx;
    return p->to[k];
}

/* Smooth, non-linear, the same in both readings. */
static double at_call(void *ctx, const char *name, uint32_t n, const double *a)
{
    (void)ctx;
    double h = 0.3;
    for (const char *s = name; *s; s++)
        h = fmod(h * 31.0 + (unsigned char)*s, 97.0);
    double v = 0.1 * h;
    for (uint32_t i = 0; i < n; i++)
        v += (0.5 + 0.1 * i) * a[i] + 0.2 * sin(a[i] + h);
    return v;
}

static double eval_at(const fx_node *e, pt *p, bool encoded, double *scale)
{
    fx_point at = {0.25, encoded ? at_encoded : at_var, at_known, at_mode, at_call, p};
    double v = NAN;
    if (fx_eval(e, &at, &v) != MDAE_OK)
        return NAN;
    if (scale != NULL) { /* the size of the terms of a sum */
        *scale = fabs(v);
        if (e->op == FX_ADD) {
            *scale = 0;
            for (uint32_t k = 0; k < e->n; k++) {
                double t = NAN;
                if (fx_eval(e->kids[k], &at, &t) == MDAE_OK)
                    *scale += fabs(t);
            }
        }
    }
    return v;
}

/* The residuals of the equations of rs at p (the model's expressions). */
static bool residuals(const mel_model *m, const mc_reset *rs, pt *p, double *f)
{
    for (size_t i = 0; i < rs->from.n; i++) {
        const mel_equation *q = &m->equations[rs->from.items[i].index];
        p->cur_shift = rs->from.items[i].shift;
        f[i] = eval_at(q->lhs, p, false, NULL) - eval_at(q->rhs, p, false, NULL);
        if (!isfinite(f[i]))
            return false;
    }
    return true;
}

/* Solve J dx = -f (n x n, partial pivoting); false when singular. */
static bool solve(size_t n, double *J, double *f, double *dx)
{
    for (size_t c = 0; c < n; c++) {
        size_t piv = c;
        for (size_t r = c + 1; r < n; r++)
            if (fabs(J[r * n + c]) > fabs(J[piv * n + c]))
                piv = r;
        if (fabs(J[piv * n + c]) < 1e-10)
            return false;
        for (size_t k = 0; k < n; k++) {
            double t = J[c * n + k];
            J[c * n + k] = J[piv * n + k];
            J[piv * n + k] = t;
        }
        double t = f[c];
        f[c] = f[piv];
        f[piv] = t;
        for (size_t r = c + 1; r < n; r++) {
            double q = J[r * n + c] / J[c * n + c];
            for (size_t k = c; k < n; k++)
                J[r * n + k] -= q * J[c * n + k];
            f[r] -= q * f[c];
        }
    }
    for (size_t c = n; c-- > 0;) {
        double s = -f[c];
        for (size_t k = c + 1; k < n; k++)
            s -= J[c * n + k] * dx[k];
        dx[c] = s / J[c * n + c];
    }
    return true;
}

/* Newton on the equations of rs over the values at slots u[0..n): true
 * when the residuals fall below 1e-12. */
static bool newton(const mel_model *m, const mc_reset *rs, pt *p, const size_t *u, size_t n)
{
    double f[MAXV], f2[MAXV], J[64 * 64], dx[64];
    if (n > 64 || n != rs->from.n)
        return false;
    for (int it = 0; it < 40; it++) {
        if (!residuals(m, rs, p, f))
            return false;
        double norm = 0;
        for (size_t i = 0; i < n; i++)
            norm = fmax(norm, fabs(f[i]));
        if (norm < 1e-12)
            return true;
        for (size_t j = 0; j < n; j++) {
            double save = p->val[u[j]], h = 1e-7 * fmax(1.0, fabs(save));
            p->val[u[j]] = save + h;
            bool ok = residuals(m, rs, p, f2);
            p->val[u[j]] = save;
            if (!ok)
                return false;
            for (size_t i = 0; i < n; i++)
                J[i * n + j] = (f2[i] - f[i]) / h;
        }
        if (!solve(n, J, f, dx))
            return false;
        for (size_t j = 0; j < n; j++)
            p->val[u[j]] += dx[j];
    }
    return false;
}

typedef struct tally {
    size_t resets, eliminated, not_linear, other_why, relations, points, nontrivial,
        pivots;
} tally;

/* Every value the equations of rs read, as slots of p. */
static void collect(pt *p, const fx_node *e, int shift)
{
    if (e->op == FX_VAR)
        slot(p, e->index, e->order, shift);
    for (uint32_t k = 0; k < e->n; k++)
        collect(p, e->kids[k], shift);
}

/* The check of one eliminating restart relation (above). */
static void check_reset(const mel_model *m, const bool *to, const mc_reset *rs, uint64_t seed,
                        const char *label, tally *t)
{
    fx_pool *pool = fx_pool_new();
    cr_assert_not_null(pool);
    mc_elim e;
    cr_assert_eq(mc_reset_eliminate(m, to, rs, pool, &e), MDAE_OK, "%s", label);
    t->resets++;
    if (e.why != NULL) {
        t->not_linear += strstr(e.why, "not linear") != NULL;
        t->other_why += strstr(e.why, "not linear") == NULL;
        cr_assert_eq(e.n_relations, 0);
        fx_pool_free(pool);
        return;
    }
    t->eliminated++;
    t->relations += e.n_relations;
    t->pivots += e.n_pivots;
    size_t extra = rs->from.n > rs->eliminate.n ? rs->from.n - rs->eliminate.n : 0;
    for (int trial = 0; trial < 6; trial++) {
        pt p;
        memset(&p, 0, sizeof p);
        p.m = m;
        p.to = to;
        p.seed = seed * 977 + (uint64_t)trial;
        for (size_t i = 0; i < rs->from.n; i++) {
            const mel_equation *q = &m->equations[rs->from.items[i].index];
            collect(&p, q->lhs, rs->from.items[i].shift);
            collect(&p, q->rhs, rs->from.items[i].shift);
        }
        size_t u[64], nu = 0;
        for (size_t j = 0; j < rs->eliminate.n && nu < 64; j++)
            u[nu++] = slot(&p, rs->eliminate.items[j].index, 0, rs->eliminate.items[j].shift);
        /* as many other values as relations, chosen at random */
        size_t others = 0;
        for (size_t tries = 0; others < extra && tries < 200 && nu < 64; tries++) {
            size_t k = (size_t)(ref_rand_next(&p.seed) % p.n);
            bool dup = false;
            for (size_t q = 0; q < nu; q++)
                dup |= u[q] == k;
            if (!dup) {
                u[nu++] = k;
                others++;
            }
        }
        if (others < extra || !newton(m, rs, &p, u, nu))
            continue;
        t->points++;
        for (size_t r = 0; r < e.n_relations; r++) {
            double scale = 0, v = eval_at(e.relations[r], &p, true, &scale);
            cr_assert(fabs(v) <= 1e-9 * fmax(1.0, scale),
                      "%s: relation %zu is %g (terms %g) at a point of the equations", label, r, v,
                      scale);
        }
        for (size_t k = 0; k < p.n; k++) /* off the equations */
            p.val[k] += 0.1 * rnd(&p.seed);
        for (size_t r = 0; r < e.n_relations; r++) {
            double scale = 0, w = eval_at(e.relations[r], &p, true, &scale);
            t->nontrivial += isfinite(w) && fabs(w) > 1e-6 * fmax(1.0, scale);
        }
    }
    mc_elim_close(&e);
    fx_pool_free(pool);
}

static void check_result(const mel_model *m, const bool *to, const mc_result *r, uint64_t seed,
                         const char *label, tally *t)
{
    for (size_t k = 0; k < r->n_resets; k++)
        if (r->resets[k].eliminate.n > 0)
            check_reset(m, to, &r->resets[k], seed + k, label, t);
}

/* ---- The papers' models ------------------------------------------------- */

static const mc_reset *eliminating(const mc_result *r, uint32_t instant)
{
    for (size_t k = 0; k < r->n_resets; k++)
        if (r->resets[k].r == instant && r->resets[k].eliminate.n > 0)
            return &r->resets[k];
    cr_assert_fail("no eliminating relation at instant %u", (unsigned)instant);
    return NULL;
}

static double known_value(const mel_model *m, const char *name)
{
    for (uint32_t k = 0; k < m->n_knowns; k++)
        if (strcmp(m->knowns[k].name, name) == 0)
            return m->knowns[k].value;
    cr_assert_fail("no known %s", name);
    return 0;
}

static void check_clutch_basic(const char *file)
{
    mel_model *m = load(file);
    mc_result *r = change1(m, false, true);
    const mc_reset *rs = eliminating(r, 0);
    cr_assert_eq(rs->n_eliminated, 1, "%s", file);
    cr_assert_null(rs->why);
    cr_assert_str_eq(rs->eliminated[0], "j1 * w1' + k1 * w1 + j2 * w2' + k2 * w2 = 0");
    cr_assert_str_eq(rs->standard[0],
                     "j1*(w1\u207a - w1\u207b) + j2*(w2\u207a - w2\u207b) = 0");
    cr_assert_null(rs->conditions, "the pivots are numbers");
    fx_pool *pool = fx_pool_new();
    mc_elim e;
    cr_assert_eq(mc_reset_eliminate(m, (bool[]){true}, rs, pool, &e), MDAE_OK);
    cr_assert_eq(e.n_relations, 1);
    double j1 = known_value(m, "j1"), j2 = known_value(m, "j2");
    double w1m = MC_CLUTCH_W1_BEFORE, w2m = MC_CLUTCH_W2_BEFORE;
    double w18 = (j1 * w1m + j2 * w2m) / (j1 + j2);
    cr_assert_float_eq(w18, 1.2863097, 1e-6, "the notes' value of (18)");
    for (double dt = 1e-3; dt >= 1e-9; dt /= 100) {
        double v = mc_clutch_relation_dt(m, e.relations[0], w18, dt);
        cr_assert(fabs(v) <= 10 * dt, "(18): dt*relation = %g at dt = %g", v, dt);
        /* not (18): the relation stays finite */
        v = mc_clutch_relation_dt(m, e.relations[0], 0.5 * (w1m + w2m), dt);
        cr_assert(fabs(v) > 0.05, "the mean is not (18): %g", v);
    }
    tally t = {0};
    check_result(m, (bool[]){true}, r, 7, file, &t);
    cr_assert_eq(t.eliminated, 1);
    cr_assert_gt(t.points, 3);
    cr_assert_gt(t.nontrivial, 3);
    mc_elim_close(&e);
    fx_pool_free(pool);
    mc_result_free(r);
    mel_model_free(m);
}

Test(mc_elim, clutch_basic_gives_rr9459_18)
{
    check_clutch_basic("clutch_basic_mo.mel");
    check_clutch_basic("clutch_basic.mo");
}

/* RR-9459 (26): lambda and s eliminated from e1, e2, k2 at both instants
 * of the second-order Cup-and-Ball: y''x + gx - x''y, valid where x != 0. */
Test(mc_elim, cup_and_ball_22_gives_the_restart_code_26)
{
    mel_model *m = load("cup_and_ball_22.mel");
    mc_result *r = change1(m, false, true);
    for (uint32_t i = 0; i < 2; i++) {
        const mc_reset *rs = eliminating(r, i);
        cr_assert_eq(rs->n_eliminated, 1);
        cr_assert_str_eq(rs->eliminated[0], "x * (y'' + g) - y * x'' = 0");
        cr_assert_str_eq(rs->conditions, "x \u2260 0");
    }
    cr_assert_str_eq(eliminating(r, 1)->standard[0],
                     "x\u207b*(y'\u207a - y'\u207b) - y\u207b*(x'\u207a - x'\u207b) = 0");
    tally t = {0};
    check_result(m, (bool[]){true}, r, 11, "cup_and_ball_22", &t);
    cr_assert_eq(t.eliminated, 2);
    cr_assert_eq(t.pivots, 2);
    cr_assert_gt(t.points, 6);
    mc_result_free(r);
    mel_model_free(m);
}

/* The clutch written with unknown functions f1(w1, tau1): not known to be
 * linear in the torques, so the relation stays in its first form. */
Test(mc_elim, unknown_functions_are_not_linear)
{
    mel_model *m = load("clutch.mel");
    mc_result *r = change1(m, false, true);
    const mc_reset *rs = eliminating(r, 0);
    cr_assert_eq(rs->n_eliminated, 0);
    cr_assert_not_null(rs->why);
    cr_assert(strstr(rs->why, "e1 is not linear in tau1") != NULL, "%s", rs->why);
    mc_result_free(r);
    mel_model_free(m);
}

/* Random models of the reference generator: every change, every
 * eliminating relation. */
Test(mc_elim, random_models_relations_hold_on_the_equations, .timeout = 600)
{
    ref_random_opts o = {.max_modes = 4, .max_equations = 10, .max_order = 2};
    tally t = {0};
    for (uint64_t s = 0; s < 300; s++) {
        mel_model *m = ref_random_parsed(4100 + s, &o);
        if (m == NULL || m->n_modes == 0) {
            mel_model_free(m);
            continue;
        }
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
                char label[96];
                snprintf(label, sizeof label, "seed %llu, %u -> %u",
                         (unsigned long long)(4100 + s), a, b);
                check_result(m, to, r, s * 64 + a * 8 + b, label, &t);
                mc_result_free(r);
            }
        mel_model_free(m);
    }
    cr_log_info("%zu eliminating relations: %zu eliminated (%zu relations, %zu pivots "
                "assumed), %zu not linear, %zu other; %zu points, %zu non-trivial",
                t.resets, t.eliminated, t.relations, t.pivots, t.not_linear, t.other_why,
                t.points, t.nontrivial);
    cr_assert_gt(t.eliminated, 300);
    cr_assert_gt(t.relations, 3);
    cr_assert_gt(t.points, 1000);
    cr_assert_gt(t.nontrivial, 10);
}

/* Every change of the corpus's multimode models (tests/models), every
 * eliminating relation. */
Test(mc_elim, corpus_models_relations_hold_on_the_equations, .timeout = 600)
{
    static const char *const files[] = {
        "clutch_basic_mo.mel", "clutch_basic.mo", "cup_and_ball.mel", "cup_and_ball_22.mel",
        "cup_and_ball_37.mel", "cup_and_ball_elastic.mel", "cup_and_ball_elastic.mo",
        "ground_contact.mel", "rldc2.mel", "rldc2_cc_mo.mel", "rldc_chain.mel",
        "rldc_parallel.mel", "water_tank_mo.mel", "water_tank.mel", "brake.mel",
    };
    tally t = {0};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        mel_model *m = load(files[f]);
        uint32_t nm = m->n_modes;
        cr_assert(nm > 0 && nm <= 8, "%s", files[f]);
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
                snprintf(label, sizeof label, "%s, %u -> %u", files[f], a, b);
                check_result(m, to, r, f * 4096 + a * 64 + b, label, &t);
                mc_result_free(r);
            }
        mel_model_free(m);
    }
    cr_log_info("%zu eliminating relations: %zu eliminated (%zu relations, %zu pivots "
                "assumed), %zu not linear, %zu other; %zu points, %zu non-trivial",
                t.resets, t.eliminated, t.relations, t.pivots, t.not_linear, t.other_why,
                t.points, t.nontrivial);
    cr_assert_gt(t.eliminated, 20);
    cr_assert_gt(t.relations, 20);
    cr_assert_gt(t.points, 100);
    cr_assert_gt(t.nontrivial, 50);
}

/* Out of memory anywhere in the change is MDAE_E_NOMEM, nothing leaked,
 * never a relation silently left out (an allocation failure is not a
 * reason not to eliminate). */
Test(mc_elim, allocation_failures_are_errors_not_reasons)
{
    mel_model *m = load("cup_and_ball_22.mel");
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
            for (size_t k = 0; k < r->n_resets; k++)
                if (r->resets[k].eliminate.n > 0)
                    cr_assert(r->resets[k].why == NULL && r->resets[k].n_eliminated == 1 &&
                                  r->resets[k].standard[0] != NULL,
                              "allocation %ld: %s", n,
                              r->resets[k].why ? r->resets[k].why : "no relation");
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
