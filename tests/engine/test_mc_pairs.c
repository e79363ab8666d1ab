/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mc_pairs.c -- the first instant of every change on BDDs
 * (engine/mc_pairs.c, mc_first_instants) against the one-change engine
 * (engine/mc_change.c, itself checked against the brute-force reference by
 * test_mc_vs_ref.c), pair of modes by pair of modes: the class of each
 * ordered pair (continuous, restart needed, rejected at the first instant,
 * or not a pair of different valid nonsingular long modes) and the size of
 * each class. On the random models of 400 seeds (MDAE_SEED changes the
 * first) with every pair, on the papers' models, and on the brake and both
 * buildings at N = 3..5 (the buildings' guards are fixpoints: the refusal
 * is switched off, as in test_mc_vs_ref.c; every pair up to 6 mode
 * variables, else 3,000 sampled pairs of valid modes). And, for every
 * pair that needs a restart, which rows (equation, shift) its first
 * instant erases (R4), both ways: the engine's choice (one pair at a time
 * on small models) and the BDD path (sa_greedy.c, forced, within a budget:
 * the models it does not answer in time are counted). And the whole of
 * each change, instant after instant on BDDs: its status and its number of
 * instants (mc_first_change), both ways.
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

TestSuite(mc_pairs, .init = begin, .fini = end, .timeout = 600);

/* The erasures of f (by row: equation name, shift) against the one-change
 * engine's first instant r0 of from -> to (NULL: nothing erased); nothing
 * to check where f has none (not computed within its budget). */
static void same_erasures(const mel_model *m, const mc_first *f, const mc_instant *r0,
                          const bool *from, const bool *to, const char *label, uint64_t x,
                          size_t *erased_rows)
{
    if (!f->erasures_computed)
        return;
    size_t want = r0 != NULL ? r0->erased.n : 0, got = 0;
    for (size_t k = 0; k < f->n_erasures; k++) {
        bool on = false;
        int rc = mc_first_erased(f, k, from, to, &on);
        cr_assert_eq(rc, MDAE_OK, "%s: erasure %zu: %s", label, k, mdae_err_name(rc));
        if (!on)
            continue;
        got++;
        bool found = false;
        for (size_t q = 0; r0 != NULL && q < r0->erased.n && !found; q++)
            found = strcmp(m->equations[r0->erased.items[q].index].name,
                           f->erasures[k].equation) == 0 &&
                    r0->erased.items[q].shift == f->erasures[k].shift;
        cr_assert(found, "%s pair %llu: BDD erases %s@%d, the one change does not", label,
                  (unsigned long long)x, f->erasures[k].equation, f->erasures[k].shift);
    }
    cr_assert_eq(got, want, "%s pair %llu: BDD erases %zu rows, the one change %zu", label,
                 (unsigned long long)x, got, want);
    *erased_rows += got;
}

/* Rows (equation, shift) of the sets of list (n of them) holding for the
 * pair, against the one change's `want` (NULL: none): the same rows. */
static size_t same_rows(const mel_model *m, const mc_first *f, const mc_first_erasure *list,
                        size_t n, const mc_list *want, const bool *from, const bool *to,
                        const char *what)
{
    size_t got = 0;
    for (size_t k = 0; k < n; k++) {
        bool on = false;
        int rc = mc_first_pair_in(f, &list[k].set, list[k].cubes_left_out, from, to, &on);
        cr_assert_eq(rc, MDAE_OK, "%s: %s", what, mdae_err_name(rc));
        if (!on)
            continue;
        got++;
        bool found = false;
        for (size_t q = 0; want != NULL && q < want->n && !found; q++)
            found = strcmp(m->equations[want->items[q].index].name, list[k].equation) == 0 &&
                    want->items[q].shift == list[k].shift;
        cr_assert(found, "%s: the BDDs have %s@%d, the one change does not", what,
                  list[k].equation, list[k].shift);
    }
    cr_assert_eq(got, want != NULL ? want->n : 0, "%s: %zu rows on BDDs, %zu in the one change",
                 what, got, want != NULL ? want->n : 0);
    return got;
}

/* The later instants of f (mc_first.later: erasures and restart systems
 * as sets of pairs) against the one change r of from -> to, pair by pair:
 * at an instant r reports and that erases (nonsingular), the same erased
 * rows and the same rows kept; where the restart ended before it, no row
 * erased. Returns the rows compared. */
static size_t same_later(const mel_model *m, const mc_first *f, const mc_result *r,
                         const bool *from, const bool *to, const char *label, uint64_t x)
{
    size_t rows = 0;
    for (size_t k = 0; k < f->n_later; k++) {
        const mc_first_instant *li = &f->later[k];
        char what[160];
        snprintf(what, sizeof what, "%s pair %llu instant %u", label, (unsigned long long)x,
                 li->r);
        const mc_instant *in = li->r < r->n_instants ? &r->instants[li->r] : NULL;
        if (in != NULL && in->status != MC_NONSINGULAR)
            continue; /* rejected there: R4's erasure is not computed on BDDs */
        rows += same_rows(m, f, li->erasures, li->n_erasures, in ? &in->erased : NULL, from, to,
                          what);
        if (in != NULL)
            rows += same_rows(m, f, li->rows, li->n_rows, &in->equations, from, to, what);
    }
    return rows;
}

/* The same rows against the brute-force reference's (tests/ref/ref_change.c,
 * keys REF_KEY(equation, shift); NULL: none). */
static size_t same_ref_rows(const mel_model *m, const mc_first *f, const mc_first_erasure *list,
                            size_t n, const ref_items *want, const bool *from, const bool *to,
                            const char *what)
{
    size_t got = 0;
    for (size_t k = 0; k < n; k++) {
        bool on = false;
        cr_assert_eq(mc_first_pair_in(f, &list[k].set, list[k].cubes_left_out, from, to, &on),
                     MDAE_OK, "%s", what);
        if (!on)
            continue;
        got++;
        long i = mel_model_find_equation(m, list[k].equation);
        bool found = false;
        for (size_t q = 0; want != NULL && q < want->n && !found; q++)
            found = want->k[q] == REF_KEY(i, list[k].shift);
        cr_assert(found, "%s: the BDDs have %s@%d, the reference does not", what,
                  list[k].equation, list[k].shift);
    }
    cr_assert_eq(got, want != NULL ? want->n : 0, "%s: %zu rows on BDDs, %zu in the reference",
                 what, got, want != NULL ? want->n : 0);
    return got;
}

/* The later instants of f against the reference's change, pair by pair
 * (as same_later). MDAE_E_LIMIT from the reference (too many subsets):
 * nothing checked. */
static size_t same_later_ref(const mel_model *m, const mc_first *f, const bool *from,
                             const bool *to, const char *label, uint64_t x)
{
    ref_change rc;
    if (ref_change_compute(m, from, to, &rc) != MDAE_OK)
        return 0;
    size_t rows = 0;
    for (size_t k = 0; k < f->n_later; k++) {
        const mc_first_instant *li = &f->later[k];
        char what[160];
        snprintf(what, sizeof what, "%s pair %llu instant %u (reference)", label,
                 (unsigned long long)x, li->r);
        const ref_change_instant *in = li->r < rc.n_instants ? &rc.inst[li->r] : NULL;
        if (in != NULL && in->underdetermined)
            continue;
        rows += same_ref_rows(m, f, li->erasures, li->n_erasures, in ? &in->erased : NULL, from,
                              to, what);
        if (in != NULL)
            rows += same_ref_rows(m, f, li->rows, li->n_rows, &in->equations, from, to, what);
    }
    ref_change_close(&rc);
    return rows;
}

/* The class the one-change engine gives the change from -> to, and its
 * first instant's erasures checked against f's. */
static int expected(const mel_model *m, const sa_result *res, mc_first *const f[2],
                    const bool *from, const bool *to, const char *label, uint64_t x,
                    size_t *erased_rows, size_t *long_resets, size_t *later_rows)
{
    if (memcmp(from, to, m->n_modes * sizeof *from) == 0)
        return MC_FIRST_NONE;
    const bool *ends[2] = {from, to};
    for (int k = 0; k < 2; k++) {
        sa_mode_view v;
        memset(&v, 0, sizeof v);
        cr_assert_eq(sa_result_mode(res, ends[k], &v), MDAE_OK);
        bool ok = v.valid && !v.singular;
        sa_mode_view_close(&v);
        if (!ok)
            return MC_FIRST_NONE;
    }
    mc_options opt = {.ignore_guard_fixpoints = true, .skip_impulses = true};
    mc_result *r = NULL;
    cr_assert_eq(mc_change(m, from, to, &opt, &r, NULL, 0), MDAE_OK);
    int cls = MC_FIRST_RESTART;
    if (r->status == MC_CONTINUOUS)
        cls = MC_FIRST_CONTINUOUS;
    else if (r->n_instants > 0 && r->instants[0].status == MC_UNDERDETERMINED)
        cls = MC_FIRST_REJECTED;
    /* R4, and in the pairs rejected at the first instant too where f says
     * it covers them (solved one pair at a time; issue 41 item 4) */
    for (int w = 0; w < 2; w++)
        if (cls != MC_FIRST_REJECTED || f[w]->erasures_of_rejected)
            same_erasures(m, f[w], cls != MC_FIRST_CONTINUOUS ? &r->instants[0] : NULL, from,
                          to, label, x, erased_rows);
    /* The whole change: status and number of instants, both ways. */
    for (int w = 0; w < 2; w++) {
        if (!f[w]->later_computed)
            continue;
        int st = -2;
        uint32_t n = 0;
        int rc = mc_first_change(f[w], from, to, &st, &n);
        cr_assert_eq(rc, MDAE_OK, "%s pair %llu: %s", label, (unsigned long long)x,
                     mdae_err_name(rc));
        cr_assert_eq(st, (int)r->status, "%s pair %llu (%s): BDD status %d, one change %d",
                     label, (unsigned long long)x, w ? "BDD path" : "auto", st, (int)r->status);
        cr_assert_eq(n, r->n_instants, "%s pair %llu: BDD %u instants, one change %u", label,
                     (unsigned long long)x, n, r->n_instants);
        *later_rows += same_later(m, f[w], r, from, to, label, x);
        if (w == 0 && r->n_instants > 1) /* later instants: the reference too */
            *later_rows += same_later_ref(m, f[w], from, to, label, x);
        *long_resets += w == 0 && r->status == MC_RESET && r->n_instants > 1;
    }
    mc_result_free(r);
    return cls;
}

typedef struct tally {
    size_t models, pairs, counts[3];
    size_t erased_rows;      /* rows erased at the first instant, over the pairs */
    size_t erasures_on_bdds; /* models whose erasures the BDD path gave */
    size_t later;            /* models whose whole changes came (auto path) */
    size_t resets_after_1;   /* pairs reset after more than one instant */
    size_t later_rows;       /* rows of later instants compared pair by pair */
    size_t bdd_budget;       /* its budget (0: the engine's) */
} tally;

/* Every pair (up to 12 mode variables; else `samples` random pairs of
 * valid modes) of m: the BDD class equals the one-change engine's; with
 * every pair walked, the class sizes too. */
static void check_model(const mel_model *m, const char *label, uint64_t samples, tally *t)
{
    sa_result *res = NULL;
    cr_assert_eq(sa_analyze(m, NULL, &res, NULL), MDAE_OK, "%s", label);
    /* The erasures two ways: the engine's choice (one pair at a time on
     * small models), and on BDDs within a budget (engine/sa_greedy.c). */
    mc_options mopt[2] = {{.ignore_guard_fixpoints = true, .first_later = true},
                          {.ignore_guard_fixpoints = true, .first_later = true,
                           .erasures_method = SA_METHOD_IMPLICIT,
                           .erasures_budget = t->bdd_budget}};
    mc_first *fs[2] = {NULL, NULL};
    for (int w = 0; w < 2; w++) {
        char why[200] = "";
        /* the BDD erasures check their one-pass shortcut as they go */
        sa_options so = {.self_check = w == 1};
        int rc = mc_first_instants(m, &so, &mopt[w], &fs[w], why, sizeof why);
        cr_assert_eq(rc, MDAE_OK, "%s: %s (%s)", label, mdae_err_name(rc), why);
        cr_assert(w == 1 || fs[w]->erasures_computed, "%s: %s", label, fs[w]->erasures_why);
        t->erasures_on_bdds += w == 1 && fs[w]->erasures_computed;
        t->later += w == 0 && fs[w]->later_computed;
    }
    mc_first *f = fs[0];
    bool *from = calloc((size_t)m->n_modes + 1, 1), *to = calloc((size_t)m->n_modes + 1, 1);
    bool all = m->n_modes <= 6;
    uint64_t n = all ? (uint64_t)1 << (2 * m->n_modes) : samples, state = 0x9A125;
    double counts[3] = {0, 0, 0};
    for (uint64_t x = 0; x < n; x++) {
        if (all) {
            ref_mode_from_index(x & ((1u << m->n_modes) - 1), m->n_modes, from);
            ref_mode_from_index(x >> m->n_modes, m->n_modes, to);
        } else {
            cr_assert_eq(sa_result_sample_mode(res, &state, from), MDAE_OK);
            cr_assert_eq(sa_result_sample_mode(res, &state, to), MDAE_OK);
        }
        int want = expected(m, res, fs, from, to, label, x, &t->erased_rows, &t->resets_after_1,
                            &t->later_rows),
            got = -2;
        cr_assert_eq(mc_first_class(f, from, to, &got), MDAE_OK);
        cr_assert_eq(got, want, "%s pair %llu: BDD class %d, one change %d", label,
                     (unsigned long long)x, got, want);
        if (want != MC_FIRST_NONE) {
            counts[want]++;
            t->counts[want]++;
            t->pairs++;
        }
    }
    if (all) {
        cr_assert_eq(f->pairs, counts[0] + counts[1] + counts[2], "%s: pairs", label);
        for (int k = 0; k < 3; k++)
            cr_assert_eq(f->counts[k], counts[k], "%s: class %d", label, k);
    }
    t->models++;
    free(from);
    free(to);
    mc_first_free(fs[0]);
    mc_first_free(fs[1]);
    sa_result_free(res);
}

Test(mc_pairs, random_models_agree_pair_by_pair)
{
    uint64_t base = env_u64("MDAE_SEED", 1);
    ref_random_opts o = {0};
    o.max_modes = 5;
    o.max_equations = 9;
    tally t = {0};
    t.bdd_budget = 500000; /* a few models would take seconds each: counted */
    for (uint64_t s = 0; s < 400; s++) {
        mel_model *m = ref_random_parsed(base + s, &o);
        if (m != NULL && m->n_modes > 0 && m->n_whens == 0) {
            char label[64];
            snprintf(label, sizeof label, "seed %llu", (unsigned long long)(base + s));
            check_model(m, label, 0, &t);
        }
        mel_model_free(m);
    }
    cr_log_info("%zu models, %zu pairs: %zu continuous, %zu restart, %zu rejected at the first "
                "instant; %zu rows erased; erasures on BDDs for %zu models; whole changes for "
                "%zu models, %zu resets of more than one instant; %zu rows of later instants "
                "agree pair by pair",
                t.models, t.pairs, t.counts[0], t.counts[1], t.counts[2], t.erased_rows,
                t.erasures_on_bdds, t.later, t.resets_after_1, t.later_rows);
    cr_assert_geq(t.models, 300);
    cr_assert_geq(t.erasures_on_bdds, 250, "the BDD path answered too few models");
    cr_assert_gt(t.erased_rows, 0);
    /* every model: the later instants' guards are kept small (issue 41 item 4) */
    cr_assert_eq(t.later, t.models, "the whole changes came for too few models");
    cr_assert_gt(t.resets_after_1, 0, "resets of several instants occur");
    cr_assert_gt(t.later_rows, 100, "later instants' rows compared");
    for (int k = 0; k < 3; k++)
        cr_assert_gt(t.counts[k], 0, "class %d occurs", k);
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

static void check_file(const char *file, long n, uint64_t samples, tally *t)
{
    mel_model *m = load_n(file, n);
    char label[96];
    snprintf(label, sizeof label, "%s N = %ld", file, n);
    check_model(m, label, samples, t);
    mel_model_free(m);
}

Test(mc_pairs, papers_models_agree_pair_by_pair)
{
    static const char *const files[] = {"clutch.mel", "cup_and_ball.mel", "rldc2.mel",
                                        "clutch_basic_mo.mel", "rldc2_cc_mo.mel",
                                        "water_tank.mel", "two_equations.mel"};
    tally t = {0};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++)
        check_file(files[k], -1, 0, &t);
    cr_assert_geq(t.counts[MC_FIRST_CONTINUOUS], 1);
    cr_assert_geq(t.counts[MC_FIRST_RESTART], 1);
    cr_assert_gt(t.erased_rows, 0);
    cr_assert_eq(t.erasures_on_bdds, t.models);
}

Test(mc_pairs, brake_and_buildings_agree_on_their_pairs)
{
    tally t = {0};
    for (long n = 3; n <= 5; n++) {
        check_file("brake.mel", n, 3000, &t);
        check_file("building_compressible.mel", n, 3000, &t);
        check_file("building_incompressible.mel", n, 3000, &t);
    }
    cr_log_info("%zu pairs: %zu continuous, %zu restart, %zu rejected; %zu rows erased; "
                "erasures on BDDs for %zu of %zu models; whole changes for %zu",
                t.pairs, t.counts[0], t.counts[1], t.counts[2], t.erased_rows,
                t.erasures_on_bdds, t.models, t.later);
    cr_assert_eq(t.erasures_on_bdds, t.models);
    cr_assert_eq(t.later, t.models);
    cr_assert_gt(t.erased_rows, 0);
    cr_assert_eq(t.later, t.models);
}

/* sa_options.progress: cancel from the first phase named ctx on. */
typedef struct cancel_at {
    const char *phase;
    bool seen;
} cancel_at;

static int cancel_from(void *ctx, const char *phase, size_t done, size_t total)
{
    (void)done;
    (void)total;
    cancel_at *c = ctx;
    c->seen = c->seen || (phase != NULL && strcmp(phase, c->phase) == 0);
    return c->seen ? 1 : 0;
}

/* mc_options.first_keep_on_cancel (the editor's deadline): a cancel during
 * R4 leaves the erasures and the later instants not computed, and the
 * classes as without it; without the option the call is cancelled. */
Test(mc_pairs, a_cancel_during_the_erasures_keeps_the_first_instants)
{
    mel_model *m = load_n("brake.mel", 20);
    mc_options mopt = {.ignore_guard_fixpoints = true, .first_erasures = true,
                       .first_later = true};
    mc_first *whole = NULL;
    char why[256] = "";
    cr_assert_eq(mc_first_instants(m, NULL, &mopt, &whole, why, sizeof why), MDAE_OK, "%s", why);
    cr_assert(whole->later_computed);
    cancel_at ca = {"greedy", false};
    sa_options so = {.progress = cancel_from, .progress_ctx = &ca};
    mc_first *f = NULL;
    cr_assert_eq(mc_first_instants(m, &so, &mopt, &f, why, sizeof why), MDAE_E_CANCELED);
    cr_assert_null(f);
    ca.seen = false;
    mopt.first_keep_on_cancel = true;
    cr_assert_eq(mc_first_instants(m, &so, &mopt, &f, why, sizeof why), MDAE_OK, "%s", why);
    cr_assert(ca.seen, "R4 reached its phase");
    cr_assert(!f->erasures_computed);
    cr_assert(strstr(f->erasures_why, "cancelled") != NULL, "%s", f->erasures_why);
    cr_assert(!f->later_computed);
    cr_assert(strstr(f->later_why, "cancelled") != NULL, "%s", f->later_why);
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(f->counts[k], whole->counts[k], "class %d", k);
        cr_assert_str_eq(f->classes[k].formula ? f->classes[k].formula : "(none)",
                         whole->classes[k].formula ? whole->classes[k].formula : "(none)");
    }
    mc_first_free(f);
    mc_first_free(whole);
    mel_model_free(m);
}
