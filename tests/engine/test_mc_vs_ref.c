/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mc_vs_ref.c -- the mode-change engine (engine/mc.h)
 * against the brute-force reference (tests/ref/ref_change.c), pair of modes
 * by pair of modes: status, instants, and at each instant the restart
 * system, its unknowns, known values, context, erased equations and the
 * alternative erasure sets. On the models of 400 seeds (at least 300 with
 * mode variables) (MDAE_SEED=...
 * changes the seed) with every ordered pair of different valid modes, on
 * the brake at N = 3..5 (every pair) and on the building, both variants, at
 * N = 3..5 (sampled pairs; its guards are fixpoints, so the engine's
 * refusal is switched off to compare the restarts).
 *
 * Every alternative erasure set of a first instant, forced, gives the same
 * status and number of instants (the requirement on ties).
 *
 * Changes into transient modes (when-clauses, issue 13 item 5): on random
 * models with a when-clause, the event (its restart system, unknowns,
 * erased equations, the difference array's depth and what it leaves
 * undetermined) and the restart instants after it against
 * tests/ref/ref_transient.c, for every change from a valid mode into a
 * transient one.
 *
 * mc_all_enumerate (the "all changes" answer, by enumeration) is checked
 * to equal the pairwise engine on the small models. The first instant of
 * every change on BDDs (mc_first_instants) is compared with the pairwise
 * engine in test_mc_pairs.c.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "mc.h"
#include "sa.h"
#include "mdae.h"
#include "mel.h"
#include "ref.h"

#include "model_files.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Does the engine's list equal the reference's (sorted) keys? */
static bool same(const mc_list *l, const ref_items *it)
{
    if (l->n != it->n)
        return false;
    uint64_t *k = malloc((l->n + 1) * sizeof *k);
    for (size_t q = 0; q < l->n; q++)
        k[q] = REF_KEY(l->items[q].index, l->items[q].shift);
    if (l->n > 1)
        qsort(k, l->n, sizeof *k, cmp_u64);
    bool eq = l->n == 0 || memcmp(k, it->k, l->n * sizeof *k) == 0;
    free(k);
    return eq;
}

typedef struct tally {
    size_t pairs, resets, rejected, ambiguous, skipped, forced;
} tally;

static void compare_pair(const mel_model *m, const bool *from, const bool *to,
                         const char *label, tally *t)
{
    mc_options opt = {.ignore_guard_fixpoints = true, .skip_impulses = true};
    mc_result *r = NULL;
    ref_change rc;
    int e = mc_change(m, from, to, &opt, &r, NULL, 0);
    int f = ref_change_compute(m, from, to, &rc);
    if (f == MDAE_E_LIMIT) {
        t->skipped++;
        mc_result_free(r);
        return;
    }
    cr_assert_eq(e == MDAE_OK, f == MDAE_OK, "%s: engine %s, reference %s", label,
                 mdae_err_name(e), mdae_err_name(f));
    if (e != MDAE_OK)
        return;
    t->pairs++;
    t->resets += r->status == MC_RESET;
    t->rejected += r->status == MC_REJECTED;
    t->ambiguous += r->ambiguous;
    cr_assert_eq((int)r->status, rc.status, "%s: status %s, reference %d", label,
                 mc_status_name(r->status), rc.status);
    cr_assert_eq(r->n_instants, rc.n_instants, "%s: %u instants, reference %u", label,
                 r->n_instants, rc.n_instants);
    for (uint32_t k = 0; k < r->n_instants; k++) {
        const mc_instant *a = &r->instants[k];
        const ref_change_instant *b = &rc.inst[k];
        cr_assert(same(&a->equations, &b->equations), "%s: instant %u: equations", label, k);
        cr_assert(same(&a->unknowns, &b->unknowns), "%s: instant %u: unknowns", label, k);
        cr_assert(same(&a->known, &b->known), "%s: instant %u: known", label, k);
        cr_assert(same(&a->context, &b->context), "%s: instant %u: context", label, k);
        cr_assert(same(&a->erased, &b->erased), "%s: instant %u: erased", label, k);
        cr_assert_eq(a->status == MC_UNDERDETERMINED, b->underdetermined, "%s: %u", label, k);
        if (!a->alternatives_truncated) {
            cr_assert_eq(a->n_alternatives, b->n_alts, "%s: instant %u: %zu alternatives, "
                         "reference %zu", label, k, a->n_alternatives, b->n_alts);
            for (size_t x = 0; x < a->n_alternatives; x++) {
                bool found = false;
                for (size_t y = 0; y < b->n_alts && !found; y++)
                    found = same(&a->alternatives[x], &b->alts[y]);
                cr_assert(found, "%s: instant %u: alternative %zu not in the reference",
                          label, k, x);
            }
        }
    }
    /* Status and instant count do not depend on the allowed choice (issue
     * 13): every alternative of the first instant, forced, gives the
     * reference's. */
    const mc_instant *i0 = r->n_instants ? &r->instants[0] : NULL;
    for (size_t x = 0; i0 != NULL && x < i0->n_alternatives; x++) {
        mc_options force = opt;
        force.force_first_erasure = &i0->alternatives[x];
        mc_result *r3 = NULL;
        cr_assert_eq(mc_change(m, from, to, &force, &r3, NULL, 0), MDAE_OK,
                     "%s: alternative %zu refused", label, x);
        cr_assert_eq((int)r3->status, rc.status, "%s: alternative %zu: status %s", label, x,
                     mc_status_name(r3->status));
        cr_assert_eq(r3->n_instants, rc.n_instants, "%s: alternative %zu: %u instants", label,
                     x, r3->n_instants);
        t->forced++;
        mc_result_free(r3);
    }
    ref_change_close(&rc);
    mc_result_free(r);
}

static uint64_t seed_base(void)
{
    const char *s = getenv("MDAE_SEED");
    return s ? strtoull(s, NULL, 0) : 0x5eed13ull;
}

Test(mc_vs_ref, random_models_every_pair)
{
    ref_random_opts o = {.max_modes = 4, .max_equations = 8, .max_order = 2,
                         .nonsquare_percent = 5};
    tally t = {0};
    size_t models = 0;
    uint64_t base = seed_base();
    for (uint64_t s = 0; s < 400; s++) {
        mel_model *m = ref_random_parsed(base + s, &o);
        if (m == NULL || m->n_modes == 0) {
            mel_model_free(m);
            continue;
        }
        models++;
        uint32_t nm = m->n_modes;
        bool from[8], to[8];
        for (uint32_t a = 0; a < (1u << nm); a++)
            for (uint32_t b = 0; b < (1u << nm); b++) {
                if (a == b)
                    continue;
                ref_mode_from_index(a, nm, from);
                ref_mode_from_index(b, nm, to);
                char label[96];
                snprintf(label, sizeof label, "seed %llu, %u -> %u",
                         (unsigned long long)(base + s), a, b);
                compare_pair(m, from, to, label, &t);
            }
        mel_model_free(m);
    }
    cr_log_info("%zu models, %zu changes: %zu resets, %zu rejected, %zu ambiguous (%zu "
                "alternatives forced), %zu skipped", models, t.pairs, t.resets, t.rejected,
                t.ambiguous, t.forced, t.skipped);
    cr_assert_geq(models, 300);
    cr_assert_gt(t.resets, 100);
    cr_assert_gt(t.ambiguous, 5);
    cr_assert_gt(t.forced, 100);
    cr_assert_lt(t.skipped, t.pairs / 100 + 1);
}

static bool valid_mode(const mel_model *m, const bool *mode)
{
    for (uint32_t k = 0; k < m->n_invariants; k++)
        if (!mel_guard_eval(m->invariants[k].cond, mode))
            return false;
    return true;
}

/* The instants after the accepted events (the first `first` instants):
 * the reference's unfolding from what the events computed. */
static void compare_after(const mc_result *r, const ref_change *after, uint32_t first,
                          const char *label)
{
    cr_assert_eq(r->n_instants, first + after->n_instants, "%s: %u instants, reference %u + %u",
                 label, r->n_instants, first, after->n_instants);
    static const mc_status st[] = {MC_RESET, MC_RESET, MC_REJECTED};
    cr_assert_eq(r->status, st[after->status], "%s: status %s, reference %d", label,
                 mc_status_name(r->status), after->status);
    for (uint32_t k = 0; k < after->n_instants; k++) {
        const mc_instant *in = &r->instants[k + first];
        const ref_change_instant *x = &after->inst[k];
        uint32_t at = k + first;
        cr_assert(same(&in->equations, &x->equations), "%s: instant %u equations", label, at);
        cr_assert(same(&in->unknowns, &x->unknowns), "%s: instant %u unknowns", label, at);
        cr_assert(same(&in->known, &x->known), "%s: instant %u known", label, at);
        cr_assert(same(&in->context, &x->context), "%s: instant %u context", label, at);
        cr_assert(same(&in->erased, &x->erased), "%s: instant %u erased", label, at);
        cr_assert_eq(in->status == MC_UNDERDETERMINED, x->underdetermined, "%s: instant %u",
                     label, at);
    }
}

/* Event e of the cascade: instant e of r against the reference's. */
static void compare_one_event(const mc_result *r, const ref_event *x, uint32_t e,
                              const char *label)
{
    const mc_instant *in = &r->instants[e];
    cr_assert(same(&in->equations, &x->equations), "%s: event %u equations", label, e);
    cr_assert(same(&in->erased, &x->erased), "%s: event %u erased", label, e);
    cr_assert(same(&in->unknowns, &x->unknowns), "%s: event %u unknowns", label, e);
    cr_assert_eq(r->transient->depths[e], x->depth, "%s: event %u depth %d, reference %d",
                 label, e, r->transient->depths[e], x->depth);
    cr_assert_eq(in->status, x->depth >= 0 ? MC_NONSINGULAR : MC_UNDERDETERMINED, "%s", label);
}

/* counts: refused (an endless or too long cascade, an invalid or singular
 * mode), rejected at an event, determined by A_0, by a later A_n (the last
 * event's), cascades of several events, endless cascades. */
enum { C_REFUSED, C_UNDER, C_A0, C_AN, C_CASCADE, C_ENDLESS, C_N };

/* One change from -> to, to transient per the reference: the events, then
 * the instants after them. Returns whether restart instants follow. */
static bool compare_event(const mel_model *m, const bool *from, const bool *to,
                          const char *label, size_t *counts)
{
    bool more = false; /* restart instants after the event */
    mc_options opt = {.ignore_guard_fixpoints = true, .skip_impulses = true};
    mc_result *r = NULL;
    ref_transient rt;
    int e = mc_change(m, from, to, &opt, &r, NULL, 0);
    int f = ref_transient_compute(m, from, to, &rt);
    cr_assert_eq(f, MDAE_OK, "%s: reference %s", label, mdae_err_name(f));
    cr_assert(rt.transient, "%s: not transient", label);
    cr_assert_eq(e, MDAE_OK, "%s: engine %s", label, mdae_err_name(e));
    const mc_transient *t = r->transient;
    cr_assert_not_null(t, "%s", label);
    cr_assert_eq(t->n_events, rt.n_events, "%s: %u events, reference %u", label, t->n_events,
                 rt.n_events);
    cr_assert_eq(t->endless, rt.endless, "%s: endless", label);
    cr_assert_eq(t->too_long, rt.too_long, "%s: too long", label);
    cr_assert(memcmp(t->events, rt.events, (size_t)t->n_events * m->n_modes) == 0,
              "%s: the cascade's modes", label);
    for (uint32_t k = 0; k < m->n_modes; k++)
        cr_assert_eq(t->back[k], rt.back[k], "%s: back[%u]", label, k);
    counts[C_CASCADE] += rt.n_events > 1 && !rt.endless && !rt.too_long;
    counts[C_ENDLESS] += rt.endless;
    if (rt.refused) {
        cr_assert_eq(r->status, MC_REJECTED, "%s", label);
        cr_assert_eq(r->n_instants, 0, "%s", label);
        counts[C_REFUSED]++;
    } else {
        cr_assert_geq(r->n_instants, rt.n_analysed, "%s", label);
        for (uint32_t k = 0; k < rt.n_analysed; k++)
            compare_one_event(r, &rt.ev[k], k, label);
        const ref_event *last = &rt.ev[rt.n_analysed - 1];
        cr_assert_eq(t->depth, last->depth, "%s: depth", label);
        if (last->depth < 0) {
            cr_assert_eq(r->status, MC_REJECTED, "%s", label);
            cr_assert_eq(r->n_instants, rt.n_analysed, "%s", label);
            cr_assert(same(&t->undetermined, &last->undetermined), "%s: undetermined", label);
        } else {
            compare_after(r, &rt.after, rt.n_events, label);
            more = rt.after.n_instants > 0;
        }
        counts[last->depth < 0 ? C_UNDER : last->depth == 0 ? C_A0 : C_AN]++;
    }
    ref_transient_close(&rt);
    mc_result_free(r);
    return more;
}

static bool transient_mode(const mel_model *m, const bool *mode)
{
    bool any = false;
    for (uint32_t k = 0; k < m->n_invariants; k++)
        if (!mel_guard_eval(m->invariants[k].cond, mode)) {
            if (m->invariants[k].when == 0)
                return false;
            any = true;
        }
    return any;
}

/* Every change from a valid mode into a transient one of random models
 * with 1 to max_whens when-clauses: cascades, finite and endless,
 * included. */
static void whens_vs_reference(uint32_t max_modes, uint32_t max_whens, uint64_t n_seeds,
                               size_t *models, size_t *counts, size_t *after)
{
    ref_random_opts o = {.max_modes = max_modes, .max_equations = 7, .max_order = 2,
                         .when_percent = 100, .max_whens = max_whens};
    uint64_t base = seed_base();
    for (uint64_t s = 0; s < n_seeds; s++) {
        mel_model *m = ref_random_parsed(base + s, &o);
        if (m == NULL || m->n_whens == 0) {
            mel_model_free(m);
            continue;
        }
        (*models)++;
        uint32_t nm = m->n_modes;
        bool from[8], to[8];
        for (uint32_t a = 0; a < (1u << nm); a++)
            for (uint32_t b = 0; b < (1u << nm); b++) {
                ref_mode_from_index(a, nm, from);
                ref_mode_from_index(b, nm, to);
                if (a == b || !valid_mode(m, from) || !transient_mode(m, to))
                    continue;
                char label[96];
                snprintf(label, sizeof label, "seed %llu (%u whens), %u -> %u",
                         (unsigned long long)(base + s), max_whens, a, b);
                *after += compare_event(m, from, to, label, counts);
            }
        mel_model_free(m);
    }
}

Test(mc_vs_ref, random_models_with_whens_event_vs_reference)
{
    size_t models = 0, counts[C_N] = {0}, after = 0;
    whens_vs_reference(3, 1, 400, &models, counts, &after);
    cr_log_info("%zu models with a when-clause; events: %zu refused, %zu underdetermined, "
                "%zu determined by A_0, %zu by a later A_n; %zu followed by restart instants",
                models, counts[C_REFUSED], counts[C_UNDER], counts[C_A0], counts[C_AN], after);
    cr_assert_geq(models, 200);
    cr_assert_gt(counts[C_UNDER], 20);
    cr_assert_gt(counts[C_A0], 20);
    cr_assert_gt(counts[C_AN], 0);
}

/* Cascades (T6): models with 1 to 3 when-clauses over up to 4 mode variables,
 * where the mode after an event is often transient too. */
Test(mc_vs_ref, random_cascades_vs_reference, .timeout = 600)
{
    size_t models = 0, counts[C_N] = {0}, after = 0;
    whens_vs_reference(4, 3, 2000, &models, counts, &after);
    cr_log_info("%zu models with when-clauses; changes: %zu refused (%zu endless), %zu "
                "underdetermined, %zu by A_0, %zu by a later A_n; %zu finite cascades; %zu "
                "followed by restart instants",
                models, counts[C_REFUSED], counts[C_ENDLESS], counts[C_UNDER], counts[C_A0],
                counts[C_AN], counts[C_CASCADE], after);
    cr_assert_geq(models, 200);
    cr_assert_gt(counts[C_CASCADE], 10);
    cr_assert_gt(counts[C_ENDLESS], 10);
}

static mel_model *load_n(const char *name, long long n)
{
    size_t len;
    char *text = tm_read(name, &len);
    cr_assert_not_null(text);
    mel_define def = {"N", n};
    mel_options opt;
    memset(&opt, 0, sizeof opt);
    opt.defines = &def;
    opt.n_defines = n < 0 ? 0 : 1; /* n < 0: a model without N */
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, len, &opt, &m, &d), MDAE_OK, "%s", name);
    mdae_diags_close(&d);
    free(text);
    return m;
}

static bool valid(const mel_model *m, const bool *mode)
{
    for (uint32_t k = 0; k < m->n_invariants; k++)
        if (!mel_guard_eval(m->invariants[k].cond, mode))
            return false;
    return true;
}

/* `samples` pairs of different valid modes (every pair when samples == 0). */
static void corpus(const char *name, long long n, size_t samples)
{
    mel_model *m = load_n(name, n);
    uint32_t nm = m->n_modes;
    cr_assert_leq(nm, 20);
    bool *from = calloc(nm + 1, 1), *to = calloc(nm + 1, 1);
    uint32_t *v = malloc(((size_t)1 << nm) * sizeof *v), nv = 0;
    for (uint32_t x = 0; x < (1u << nm); x++) {
        ref_mode_from_index(x, nm, from);
        if (valid(m, from))
            v[nv++] = x;
    }
    tally t = {0};
    uint64_t st = 0x13 + (uint64_t)n;
    size_t total = samples ? samples : (size_t)nv * (nv - 1);
    for (size_t k = 0; k < total; k++) {
        uint32_t a, b;
        if (samples) {
            a = v[ref_rand_next(&st) % nv];
            b = v[ref_rand_next(&st) % nv];
            if (a == b)
                continue;
        } else {
            a = v[k / (nv - 1)];
            b = v[k % (nv - 1)];
            if (b >= a)
                b = v[k % (nv - 1) + 1];
        }
        ref_mode_from_index(a, nm, from);
        ref_mode_from_index(b, nm, to);
        char label[128];
        snprintf(label, sizeof label, "%s N=%lld, %u -> %u", name, n, a, b);
        compare_pair(m, from, to, label, &t);
    }
    cr_log_info("%s N=%lld: %zu changes: %zu resets, %zu rejected, %zu ambiguous, %zu skipped",
                name, n, t.pairs, t.resets, t.rejected, t.ambiguous, t.skipped);
    cr_assert_gt(t.pairs, 0);
    cr_assert_eq(t.skipped, 0);
    free(v);
    free(from);
    free(to);
    mel_model_free(m);
}

Test(mc_vs_ref, brake_every_pair_n3_to_5, .timeout = 600)
{
    for (long long n = 3; n <= 5; n++)
        corpus("brake.mel", n, 0);
}

Test(mc_vs_ref, building_sampled_pairs_n3_to_5, .timeout = 600)
{
    for (long long n = 3; n <= 5; n++) {
        corpus("building_incompressible.mel", n, 60);
        corpus("building_compressible.mel", n, 60);
    }
}

/* The all-changes answer (enumeration) is the pairwise engine's. */
Test(mc_vs_ref, all_changes_equal_the_pairwise_analysis)
{
    const char *files[] = {"clutch.mel", "cup_and_ball.mel", "rldc2.mel", "water_tank.mel"};
    for (size_t f = 0; f < 4; f++) {
        mel_model *m = load_n(files[f], -1);
        mc_all *all = NULL;
        cr_assert_eq(mc_all_enumerate(m, MC_ALL_MAX_PAIRS, &all, NULL, 0), MDAE_OK);
        cr_assert_str_eq(all->method, "enumeration");
        bool from[8], to[8];
        for (size_t k = 0; k < all->n_pairs; k++) {
            const mc_pair *p = &all->pairs[k];
            ref_mode_from_index(p->from, m->n_modes, from);
            ref_mode_from_index(p->to, m->n_modes, to);
            mc_result *r = NULL;
            mc_options opt = {.skip_impulses = true};
            cr_assert_eq(mc_change(m, from, to, &opt, &r, NULL, 0), MDAE_OK);
            cr_assert_eq(p->status, r->status);
            cr_assert_eq(p->n_instants, r->n_instants);
            cr_assert_eq(p->erased0.n, r->n_instants ? r->instants[0].erased.n : 0);
            mc_result_free(r);
        }
        mc_all_free(all);
        mel_model_free(m);
    }
}

/* The changes through when events that mc_first_instants (--first,
 * --instants) now gives, by enumeration: every one, with its status and
 * number of instants as the reference's cascade has them. */
static void first_events_vs_reference(const mel_model *m, uint64_t seed, size_t *n)
{
    mc_options mo = {.ignore_guard_fixpoints = true};
    mc_first *f = NULL;
    char why[256] = "";
    int rc = mc_first_instants(m, NULL, &mo, &f, why, sizeof why);
    if (rc == MDAE_E_LIMIT || rc == MDAE_E_INVAL)
        return; /* the long pairs' analysis refuses it: nothing to compare */
    cr_assert_eq(rc, MDAE_OK, "seed %llu: %s", (unsigned long long)seed, why);
    cr_assert_not_null(f->events, "seed %llu: %s", (unsigned long long)seed,
                       f->events_why ? f->events_why : "");
    size_t expected = 0;
    uint32_t nm = m->n_modes;
    bool from[8], to[8];
    for (uint32_t a = 0; a < (1u << nm); a++)
        for (uint32_t b = 0; b < (1u << nm); b++) {
            ref_mode_from_index(a, nm, from);
            ref_mode_from_index(b, nm, to);
            expected += valid_mode(m, from) && transient_mode(m, to);
        }
    cr_assert_eq(f->events->n_pairs, expected, "seed %llu", (unsigned long long)seed);
    for (size_t k = 0; k < f->events->n_pairs; k++) {
        const mc_pair *p = &f->events->pairs[k];
        ref_mode_from_index(p->from, nm, from);
        ref_mode_from_index(p->to, nm, to);
        ref_transient rt;
        cr_assert_eq(ref_transient_compute(m, from, to, &rt), MDAE_OK);
        int status = MC_REJECTED;
        uint32_t instants = 0;
        if (!rt.refused && rt.ev[rt.n_analysed - 1].depth < 0)
            instants = rt.n_analysed;
        else if (!rt.refused) {
            status = rt.after.status == 2 ? MC_REJECTED : MC_RESET;
            instants = rt.n_events + rt.after.n_instants;
        }
        cr_assert_eq((int)p->status, status, "seed %llu, %u -> %u: %s", (unsigned long long)seed,
                     p->from, p->to, mc_status_name(p->status));
        cr_assert_eq(p->n_instants, instants, "seed %llu, %u -> %u", (unsigned long long)seed,
                     p->from, p->to);
        ref_transient_close(&rt);
        (*n)++;
    }
    mc_first_free(f);
}

Test(mc_vs_ref, first_instants_events_vs_reference, .timeout = 600)
{
    cr_assert_eq(sa_begin(NULL), MDAE_OK);
    ref_random_opts o = {.max_modes = 4, .max_equations = 7, .max_order = 2,
                         .when_percent = 100, .max_whens = 3};
    uint64_t base = seed_base();
    size_t models = 0, n = 0;
    for (uint64_t s = 0; s < 300; s++) {
        mel_model *m = ref_random_parsed(base + s, &o);
        if (m != NULL && m->n_whens > 0) {
            models++;
            first_events_vs_reference(m, base + s, &n);
        }
        mel_model_free(m);
    }
    sa_end();
    cr_log_info("%zu models, %zu changes through events compared", models, n);
    cr_assert_gt(n, 500);
}
