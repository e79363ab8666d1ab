/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mc_pairs_imp.c -- the impulse orders of every restart
 * instant as classes of pairs (engine/mc_pairs_imp.c, mc_options.
 * first_impulses; issue 41 item 7) against the one-change engine
 * (mc_change, its impulse analysis, engine/mc_impulse.c), pair by pair:
 * for every pair of different valid nonsingular long modes and every
 * instant at which its change erases with a nonsingular restart system,
 * exactly one class of that instant holds the pair, and its answer (how
 * the analysis ended, the possibly impulsive values with their bounds and
 * equalities, the finite ones) is the one-change engine's; no class holds
 * a pair whose change does not erase at that instant; with every pair
 * walked, the classes' counts add up. On the random models test_mc_pairs
 * uses (400 seeds, MDAE_SEED changes the first; every pair up to 3 mode
 * variables, 60 sampled pairs of valid modes past that) and on the papers' models
 * (the Cup-and-Ball in its forms, the clutches, the ground contact); and
 * the brake at N = 100, whose restart systems are all too large for the
 * analysis, in one class: all its pairs that restart, counted exactly.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "mc.h"
#include "mdae.h"
#include "mel.h"
#include "ref.h"
#include "sa.h"

#include "model_files.h"
#include "test_env.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(mc_pairs_imp, .init = begin, .fini = end, .timeout = 600);

typedef struct tally {
    size_t models, computed, pair_instants, classes, impulsive, not_computed;
    size_t status[4];
} tally;

/* How the one-change engine's analysis of instant r ended, from its notes
 * (mc_impulse.c). */
static int status_of(const mc_result *res, uint32_t r, bool *forced)
{
    char head[48];
    snprintf(head, sizeof head, "restart instant %u: ", (unsigned)r);
    int st = MC_IMPULSES_DONE;
    *forced = false;
    for (size_t k = 0; k < res->diags.count; k++) {
        const char *msg = res->diags.items[k].message;
        if (strncmp(msg, head, strlen(head)) != 0)
            continue;
        if (strstr(msg, "found no assignment") != NULL)
            st = MC_IMPULSES_NONE;
        else if (strstr(msg, "impulse analysis not done") != NULL)
            st = MC_IMPULSES_TOO_LARGE;
        else if (strstr(msg, "bounds by propagation") != NULL)
            st = MC_IMPULSES_BOUNDS;
        else if (strstr(msg, "finite states") != NULL)
            *forced = true;
    }
    return st;
}

/* The values of instant r in v (mc_result's) against a class's list. */
static void same_orders(const mel_model *m, const mc_impulse *v, size_t n, uint32_t r,
                        const mc_first_order *c, size_t nc, const char *label)
{
    size_t k = 0;
    for (size_t q = 0; q < n; q++) {
        if (v[q].r != r)
            continue;
        cr_assert_lt(k, nc, "%s: the class has fewer values than the change", label);
        const mc_first_order *o = &c[k++];
        cr_assert_str_eq(o->value.name, m->variables[v[q].var].name, "%s", label);
        cr_assert_eq(o->value.shift, v[q].shift, "%s: %s", label, o->value.name);
        cr_assert_eq(o->lo, v[q].lo, "%s: %s lo", label, o->value.name);
        cr_assert_eq(o->hi, v[q].hi, "%s: %s hi", label, o->value.name);
        cr_assert_eq(o->n_equal, v[q].equal.n, "%s: %s equalities", label, o->value.name);
        for (size_t e = 0; e < o->n_equal; e++) {
            cr_assert_str_eq(o->equal[e].name, m->variables[v[q].equal.items[e].index].name,
                             "%s", label);
            cr_assert_eq(o->equal[e].shift, v[q].equal.items[e].shift, "%s", label);
        }
    }
    cr_assert_eq(k, nc, "%s: the class has more values than the change", label);
}

/* The classes of instant r (f's first instant's for r = 0). */
static const mc_first_impulses *classes_at(const mc_first *f, uint32_t r, size_t *n, bool *ok)
{
    if (r == 0) {
        *n = f->n_impulses;
        *ok = f->impulses_computed;
        return f->impulses;
    }
    for (size_t k = 0; k < f->n_later; k++)
        if (f->later[k].r == r) {
            *n = f->later[k].n_impulses;
            *ok = f->later[k].impulses_computed;
            return f->later[k].impulses;
        }
    *n = 0;
    *ok = false;
    return NULL;
}

/* The class of instant r holding the pair (at most one), or NULL. */
static const mc_first_impulses *class_of(const mc_first *f, uint32_t r, const bool *from,
                                         const bool *to, const char *label)
{
    size_t n = 0;
    bool ok = false;
    const mc_first_impulses *c = classes_at(f, r, &n, &ok), *hit = NULL;
    for (size_t k = 0; k < n; k++) {
        bool in = false;
        cr_assert_eq(mc_first_pair_in(f, &c[k].set, c[k].cubes_left_out, from, to, &in),
                     MDAE_OK, "%s", label);
        cr_assert(!(in && hit != NULL), "%s: instant %u: two classes hold the pair", label, r);
        hit = in ? &c[k] : hit;
    }
    return hit;
}

/* One pair: the one-change engine's instants against f's classes; *seen[r]
 * counts the pairs that erase at instant r. */
static void check_pair(const mel_model *m, const mc_first *f, const bool *from, const bool *to,
                       const char *label, double *seen, uint32_t max_r, tally *t)
{
    mc_options opt = {.ignore_guard_fixpoints = true};
    mc_result *res = NULL;
    cr_assert_eq(mc_change(m, from, to, &opt, &res, NULL, 0), MDAE_OK, "%s", label);
    for (uint32_t r = 0; r < max_r; r++) {
        bool analysed = r < res->n_instants && res->instants[r].status == MC_NONSINGULAR &&
                        res->instants[r].erased.n > 0;
        size_t n = 0;
        bool ok = false;
        classes_at(f, r, &n, &ok);
        if (!ok)
            continue; /* not computed there (a limit; counted by the caller) */
        const mc_first_impulses *c = class_of(f, r, from, to, label);
        char where[256];
        snprintf(where, sizeof where, "%.200s instant %u", label, (unsigned)r);
        cr_assert_eq(c != NULL, analysed, "%s: a class %s the pair, the change %s there", where,
                     c != NULL ? "holds" : "does not hold",
                     analysed ? "erases" : "does not erase");
        if (c == NULL)
            continue;
        bool forced = false;
        int st = status_of(res, r, &forced);
        cr_assert_eq((int)c->status, st, "%s: status %s, the change's %s", where,
                     mc_impulse_status_name(c->status), mc_impulse_status_name(st));
        cr_assert_eq(c->priors_forced, forced, "%s: priors", where);
        same_orders(m, res->impulsive, res->n_impulsive, r, c->impulsive, c->n_impulsive, where);
        same_orders(m, res->finite, res->n_finite, r, c->finite, c->n_finite, where);
        seen[r]++;
        t->pair_instants++;
        t->status[c->status]++;
        t->impulsive += c->n_impulsive;
    }
    mc_result_free(res);
}

static bool valid_long(const sa_result *res, const bool *mode)
{
    sa_mode_view v;
    memset(&v, 0, sizeof v);
    cr_assert_eq(sa_result_mode(res, mode, &v), MDAE_OK);
    bool ok = v.valid && !v.singular;
    sa_mode_view_close(&v);
    return ok;
}

#define MAX_R 16

/* Every pair of m (at most 3 mode variables, or `samples` is 0; else
 * `samples` sampled pairs of valid modes: the one-change analysis with its
 * impulse orders is what costs). */
static void check_model(const mel_model *m, const char *label, uint64_t samples, tally *t)
{
    sa_result *res = NULL;
    cr_assert_eq(sa_analyze(m, NULL, &res, NULL), MDAE_OK, "%s", label);
    mc_options mopt = {.ignore_guard_fixpoints = true, .first_later = true,
                       .first_impulses = true};
    mc_first *f = NULL;
    char why[200] = "";
    int rc = mc_first_instants(m, NULL, &mopt, &f, why, sizeof why);
    cr_assert_eq(rc, MDAE_OK, "%s: %s (%s)", label, mdae_err_name(rc), why);
    t->models++;
    bool all_ok = f->impulses_computed || f->counts[MC_FIRST_RESTART] == 0;
    for (size_t k = 0; k < f->n_later; k++)
        all_ok &= f->later[k].impulses_computed;
    t->computed += all_ok;
    t->not_computed += !all_ok;
    t->classes += f->n_impulses;
    for (size_t k = 0; k < f->n_later; k++)
        t->classes += f->later[k].n_impulses;
    bool *from = calloc((size_t)m->n_modes + 1, 1), *to = calloc((size_t)m->n_modes + 1, 1);
    bool all = m->n_modes <= 3 || samples == 0;
    uint64_t n = all ? (uint64_t)1 << (2 * m->n_modes) : samples, state = 0x1D7;
    double seen[MAX_R] = {0};
    for (uint64_t x = 0; x < n; x++) {
        if (all) {
            ref_mode_from_index(x & ((1u << m->n_modes) - 1), m->n_modes, from);
            ref_mode_from_index(x >> m->n_modes, m->n_modes, to);
        } else {
            cr_assert_eq(sa_result_sample_mode(res, &state, from), MDAE_OK);
            cr_assert_eq(sa_result_sample_mode(res, &state, to), MDAE_OK);
        }
        if (memcmp(from, to, m->n_modes) == 0 || !valid_long(res, from) || !valid_long(res, to))
            continue;
        char pl[160];
        snprintf(pl, sizeof pl, "%s pair %llu", label, (unsigned long long)x);
        check_pair(m, f, from, to, pl, seen, MAX_R, t);
    }
    for (uint32_t r = 0; all && r < MAX_R; r++) { /* the counts add up */
        size_t nc = 0;
        bool ok = false;
        const mc_first_impulses *c = classes_at(f, r, &nc, &ok);
        double sum = 0;
        for (size_t k = 0; ok && k < nc; k++)
            sum += c[k].pairs;
        cr_assert(!ok || sum == seen[r], "%s instant %u: classes count %g pairs, %g erase", label,
                  r, sum, seen[r]);
    }
    free(from);
    free(to);
    mc_first_free(f);
    sa_result_free(res);
}

Test(mc_pairs_imp, random_models_agree_pair_by_pair)
{
    uint64_t base = env_u64("MDAE_SEED", 1);
    ref_random_opts o = {0};
    o.max_modes = 5;
    o.max_equations = 9;
    tally t = {0};
    for (uint64_t s = 0; s < 400; s++) {
        mel_model *m = ref_random_parsed(base + s, &o);
        if (m != NULL && m->n_modes > 0 && m->n_whens == 0) {
            char label[64];
            snprintf(label, sizeof label, "seed %llu", (unsigned long long)(base + s));
            check_model(m, label, 60, &t);
        }
        mel_model_free(m);
    }
    cr_log_info("%zu models (%zu with every instant's impulse orders, %zu stopped by a limit): "
                "%zu classes; %zu pair-instants agree (%zu done, %zu bounds, %zu no "
                "assignment, %zu too large), %zu impulsive values",
                t.models, t.computed, t.not_computed, t.classes, t.pair_instants, t.status[0],
                t.status[1], t.status[2], t.status[3], t.impulsive);
    cr_assert_geq(t.models, 300);
    cr_assert_geq(t.computed, 280, "impulse orders computed for too few models");
    cr_assert_gt(t.pair_instants, 1000);
    cr_assert_gt(t.impulsive, 0);
    cr_assert_gt(t.status[MC_IMPULSES_DONE], 0);
}

/* tests/models/NAME with N = n (n < 0: a model without N). */
static mel_model *load_n(const char *name, long long n)
{
    size_t len;
    char *text = tm_read(name, &len);
    cr_assert_not_null(text, "%s", name);
    mel_define def = {"N", n};
    mel_options opt;
    memset(&opt, 0, sizeof opt);
    opt.defines = &def;
    opt.n_defines = n < 0 ? 0 : 1;
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, len, &opt, &m, NULL), MDAE_OK, "%s", name);
    free(text);
    return m;
}

Test(mc_pairs_imp, papers_models_agree_pair_by_pair)
{
    static const char *const files[] = {"cup_and_ball_22.mel", "cup_and_ball.mel",
                                        "cup_and_ball_37.mel", "clutch.mel",
                                        "clutch_basic_mo.mel", "ground_contact.mel",
                                        "rldc2.mel",           "water_tank.mel"};
    tally t = {0};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        mel_model *m = load_n(files[k], -1);
        check_model(m, files[k], 0, &t);
        mel_model_free(m);
    }
    cr_log_info("papers: %zu classes, %zu pair-instants agree, %zu impulsive values", t.classes,
                t.pair_instants, t.impulsive);
    cr_assert_eq(t.computed, t.models);
    cr_assert_gt(t.impulsive, 0);
}

/* The Cup-and-Ball (22) at its impact: instants 0 and 1, each one class,
 * lambda = s of order <= 1 (RR-9459 (40)), x.^2 and y.^2 of order 0. */
Test(mc_pairs_imp, cup_and_ball_22_has_the_papers_orders)
{
    mel_model *m = load_n("cup_and_ball_22.mel", -1);
    mc_options mopt = {.first_later = true, .first_impulses = true};
    mc_first *f = NULL;
    cr_assert_eq(mc_first_instants(m, NULL, &mopt, &f, NULL, 0), MDAE_OK);
    for (uint32_t r = 0; r < 2; r++) {
        size_t n = 0;
        bool ok = false;
        const mc_first_impulses *c = classes_at(f, r, &n, &ok);
        cr_assert(ok && n == 1, "instant %u: %zu classes", r, n);
        cr_assert_eq(c->status, MC_IMPULSES_DONE);
        cr_assert_eq(c->n_impulsive, 2);
        cr_assert_str_eq(c->impulsive[0].value.name, "lambda");
        cr_assert_eq(c->impulsive[0].hi, 1);
        cr_assert_eq(c->impulsive[0].n_equal, 1);
        cr_assert_str_eq(c->impulsive[0].equal[0].name, "s");
        cr_assert_eq(c->n_finite, 2);
        cr_assert_eq(c->finite[0].hi, 0);
        cr_assert_eq(c->finite[0].lo, 0);
        char *dec = mdae_bn_dec(&c->pairs_exact);
        cr_assert_str_eq(dec, "1");
        mdae_free(dec);
    }
    mc_first_free(f);
    mel_model_free(m);
}

/* The brake at N = 100: every restart system of its first instant is too
 * large for the analysis (more than 256 values), in one class counted
 * exactly: every pair that needs a restart (some valve opens). */
Test(mc_pairs_imp, brake_at_100_is_one_class_too_large)
{
    mel_model *m = load_n("brake.mel", 100);
    mc_options mopt = {.first_impulses = true, .ignore_guard_fixpoints = true};
    mc_first *f = NULL;
    cr_assert_eq(mc_first_instants(m, NULL, &mopt, &f, NULL, 0), MDAE_OK);
    cr_assert(f->impulses_computed, "%s", f->impulses_why ? f->impulses_why : "");
    cr_assert_eq(f->n_impulses, 1);
    cr_assert_eq(f->impulses[0].status, MC_IMPULSES_TOO_LARGE);
    cr_assert_eq(mdae_bn_cmp(&f->impulses[0].pairs_exact, &f->counts_exact[MC_FIRST_RESTART]),
                 0);
    mc_first_free(f);
    mel_model_free(m);
}
