/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_analyze.c -- the entry points: sa_analyze (encode, check,
 * primal, diagnostics, dual), sa_check, the result and its per-mode view.
 * How errors and references are handled: sa_int.h.
 */
#include "sa_int.h"

#include <string.h>

/* Slots looked at together by sa__delref_nodes: one test when all are
 * constants. */
#define DELREF_BLOCK 16

/* Whether f is not a constant (bddfalse 0, bddtrue 1): a node, or
 * anything else, which goes to bdd_delref as before. */
static inline bool not_constant(BDD f) { return (unsigned)f > 1u; }

/* Most of a result's slots are constants: 97 % of the 6.6 M that an
 * editor's cache trim drops at N = 10,000 (issue 40). */
void sa__delref_nodes(const BDD *a, size_t n)
{
    size_t k = 0;
    for (; k + DELREF_BLOCK <= n; k += DELREF_BLOCK) {
        unsigned any = 0;
        for (size_t q = k; q < k + DELREF_BLOCK; q++)
            any |= (unsigned)a[q];
        if (any <= 1u)
            continue; /* all constants */
        for (size_t q = k; q < k + DELREF_BLOCK; q++)
            if (not_constant(a[q]))
                bdd_delref(a[q]);
    }
    for (; k < n; k++)
        if (not_constant(a[k]))
            bdd_delref(a[k]);
}

void sa__free_bdds(BDD *a, size_t n)
{
    if (a == NULL)
        return;
    if (sa__running())
        sa__delref_nodes(a, n);
    mdae_free(a);
}

void sa_result_free(sa_result *r)
{
    if (r == NULL)
        return;
    if (sa__running()) {
        bdd_delref(r->chi_m);
        bdd_delref(r->ok);
        bdd_delref(r->singular);
        bdd_delref(r->modeset);
        bdd_delref(r->edgeset);
        bdd_delref(r->plan_valid_s);
        if (r->covering_known)
            bdd_delref(r->covering);
        if (r->covering_exists_known)
            bdd_delref(r->covering_exists);
    }
    sa__free_bdds(r->chi_i, r->n_eq);
    sa__free_bdds(r->chi_j, r->n_var);
    sa__free_bdds(r->chi_e, r->n_edges);
    sa__free_bdds(r->te, r->n_edges);
    sa__free_bdds(r->sigma, r->n_edges * (size_t)r->w_sigma);
    sa__free_bdds(r->c, (size_t)r->n_eq * (size_t)r->w_off);
    sa__free_bdds(r->d, (size_t)r->n_var * (size_t)r->w_off);
    sa__free_bdds(r->over, r->n_eq);
    sa__free_bdds(r->under, r->n_var);
    sa__free_bdds(r->tight_memo, r->n_edges);
    sa__bmemo_free(r->bmemo);
    sa__kept_free(r->kept);
    sa__own_tight_free(r->own_tight);
    mdae_free(r->c_matched);
    mdae_free(r->plan_s_modes);
    mdae_bn_free(&r->valid_exact);
    if (r->layout != NULL) {
        sa__layout_unref(r->layout); /* it owns the arrays (sa_encode.c) */
    } else {
        mdae_free(r->mode_var);
        mdae_free(r->var_mode);
        mdae_free(r->edge_var);
        mdae_free(r->var_edge);
        mdae_free(r->eq_first);
        mdae_free(r->edge_eq);
        mdae_free(r->edge_v);
        mdae_free(r->eq_order);
    }
    mdae_free(r);
}

/* Shared by the entry points: after a jump, report and clean up. A jump
 * for the budget of the implicit path is not an error of the analysis:
 * sa_analyze tries the enumeration next, and says nothing. */
static int finish_failed(sa_ctx *c, size_t errors_before)
{
    int rc = c->rc;
    sa__leave(c);
    const mel_model *m = c->r != NULL ? c->r->m : NULL;
    if (rc == MDAE_E_BDD_LIMIT && !c->budget_hit)
        sa__node_limit_diag(c, m);
    else if (rc == MDAE_E_LIMIT && !c->want_cm && c->diags != NULL &&
             c->diags->errors == errors_before) /* a site that said nothing */
        sa__limit_diag(c, m, NULL, 0, MDAE_LIMIT_NONE, 0,
                       "the analysis stopped at a fixed limit of the engine");
    else if (rc == MDAE_E_BDD)
        mdae_diags_add(c->diags, MDAE_SEV_ERROR, (mdae_range){{0, 0, 0}, {0, 0, 0}},
                       "BDD library error");
    sa_result_free(c->r);
    c->r = NULL;
    return rc;
}

/* ---- Choosing the path (issue 10) --------------------------------------------
 * The implicit analysis represents the perfect matchings of all modes as one
 * BDD: small on the papers' chains, whose structure is local, but possibly
 * exponential in the number of equations on a graph without locality, even
 * with two modes. Enumeration costs about (valid assignments) x (size of the
 * graph): nothing for a component with a few modes, hopeless for a chain
 * with 2^100. So, with SA_METHOD_AUTO:
 *   - enumerate when its work (assignments x (equations + variables +
 *     incidences)) is at most SA_ENUM_CHEAP;
 *   - else, if there are at most SA_ENUM_MAX_MODES assignments, try the
 *     implicit path with a budget of BDD nodes produced (its work) worth
 *     about the enumeration's time, and enumerate if it is exceeded (a
 *     fallback, reported by sa_result_method);
 *   - else the implicit path alone (enumeration is out of reach).
 * Measured (Release, 2-core VM, 2026-11-23): enumeration costs about 13 ns
 * per unit of its work (PositionControlledDCPM of the MSL: 65,536 modes x
 * 2,000 = 1.3e8 in 1.7 s), the implicit path 0.5 us per node produced
 * (building N = 20: 2.3e6 nodes in 1.2 s). A budget of work / 32 nodes gives
 * the implicit path at most about the enumeration's time before it. A
 * budget of live nodes, as before, let that model run 60 s and 1.5 GB
 * without reaching it. SA_METHOD_ENUMERATE refuses more than
 * SA_ENUM_MAX_MODES assignments with MDAE_E_LIMIT. */
#define SA_ENUM_CHEAP 4000000.0
#define SA_ENUM_MAX_MODES 65536.0
#define SA_BUDGET_PER_WORK (1.0 / 32)
#define SA_BUDGET_MIN 200000.0

static double enum_work(const sa_result *r, double modes)
{
    return modes * ((double)r->n_eq + r->n_var + (double)r->n_edges + 1);
}

/* The implicit_budget a caller asked for (sa_options), or 0. */
static size_t asked_budget(const sa_ctx *c) { return c->opt != NULL ? c->opt->implicit_budget : 0; }

/* A local graph (a short profile per row: sa_encode.c) whose enumeration
 * would still be felt: the implicit path first, on a budget worth the
 * enumeration's time, at least SA_BUDGET_LOCAL_MIN nodes (about 50 ms at
 * worst, against SA_BUDGET_MIN's 100 ms). Measured: the brake at N = 12
 * (profile 6 per row, 4,096 modes, work 3e6) enumerated in 75 ms, implicit
 * in 2 ms; the MSL's MultiBody loops (profiles in the thousands) keep
 * their enumeration. */
#define SA_LOCAL_PROFILE 16.0
#define SA_ENUM_FELT 250000.0
#define SA_BUDGET_LOCAL_MIN 100000.0

static bool local_and_felt(const sa_ctx *c, const sa_result *r, double modes)
{
    return c->row_profile <= SA_LOCAL_PROFILE && enum_work(r, modes) > SA_ENUM_FELT;
}

bool sa__enum_is_cheap(const sa_ctx *c, const sa_result *r, double modes)
{
    if (asked_budget(c) > 0 && modes <= SA_ENUM_MAX_MODES)
        return false; /* the caller wants the implicit path tried first */
    if (local_and_felt(c, r, modes))
        return false;
    return enum_work(r, modes) <= SA_ENUM_CHEAP;
}

size_t sa__implicit_budget(const sa_ctx *c, const sa_result *r, double modes)
{
    if (modes > SA_ENUM_MAX_MODES)
        return 0;
    if (asked_budget(c) > 0)
        return asked_budget(c);
    double nodes = enum_work(r, modes) * SA_BUDGET_PER_WORK;
    if (enum_work(r, modes) <= SA_ENUM_CHEAP && local_and_felt(c, r, modes))
        return (size_t)(nodes > SA_BUDGET_LOCAL_MIN ? nodes : SA_BUDGET_LOCAL_MIN);
    return (size_t)(nodes > SA_BUDGET_MIN ? nodes : SA_BUDGET_MIN);
}

static int decide(sa_ctx *c, const sa__plan *plan, int method, size_t *budget)
{
    const sa_result *r = c->r;
    *budget = 0;
    if (method == SA_METHOD_ENUMERATE) {
        if (plan->modes > SA_ENUM_MAX_MODES) {
            sa__limit_diag(c, r->m, NULL, 0, MDAE_LIMIT_ENUM_MODES, SA_ENUM_MAX_MODES,
                           "the enumeration of %.0f modes (the method \"enumeration\"; "
                           "\"auto\" analyses them on BDDs) is past its limit",
                           plan->modes);
            sa__fail(c, MDAE_E_LIMIT);
        }
        return SA_METHOD_ENUMERATE;
    }
    if (method == SA_METHOD_IMPLICIT || method == SA_METHOD_BLOCKS || method == SA_METHOD_TIGHT)
        return SA_METHOD_IMPLICIT;
    if (sa__enum_is_cheap(c, r, plan->modes))
        return SA_METHOD_ENUMERATE;
    *budget = sa__implicit_budget(c, r, plan->modes);
    return SA_METHOD_IMPLICIT;
}

/* Whether to try the hint's tight graphs first (sa_options.seeded). With
 * SA_SEEDED_AUTO, only when the hint's own primal was found by them, or by
 * the tight graphs of offsets learned mode by mode (sa_tight.c): then its
 * offsets' tight graph splits into small blocks (the brake's does). The
 * building's never does, and trying cost its edits 2.5-5.5 ms of 50-90 at
 * N = 40; nor does BatchPlant_StandardWater's, whose block is solved by
 * constant offsets' tight graphs: 0.17 s instead of 0.11, seeded by its
 * own result (tests/bench/README.md). */
static bool seeded_wanted(const sa_ctx *c, int asked, int chosen)
{
    const sa_options *o = c->opt;
    if (o == NULL || o->hint == NULL || o->singular_only || o->seeded == SA_SEEDED_OFF)
        return false;
    if (o->seeded == SA_SEEDED_ALWAYS)
        return asked != SA_METHOD_IMPLICIT && asked != SA_METHOD_ENUMERATE;
    const sa_result *h = o->hint;
    return asked == SA_METHOD_AUTO && chosen == SA_METHOD_IMPLICIT &&
           (h->seeded_tight || h->blocks_learned > h->blocks_wide);
}

static void solve(sa_ctx *c, int method, bool fell_back)
{
    sa_result *r = c->r;
    r->bmemo = sa__bmemo_new(r->n_eq); /* NULL (no memory): nothing kept */
    c->bmemo = r->bmemo;
    sa__plan plan = {0};
    if (method != SA_METHOD_IMPLICIT) /* the plan is for the choice */
        sa__enum_plan_whole(c, &plan);
    size_t budget;
    r->method = decide(c, &plan, method, &budget);
    r->fell_back = fell_back;
    r->modes_s = plan.modes;
    bool only = c->opt != NULL && c->opt->singular_only;
    if (seeded_wanted(c, method, r->method) && sa__seeded_primal(c)) {
        r->method = SA_METHOD_IMPLICIT;
        r->seeded_tight = true;
    } else if (r->method == SA_METHOD_ENUMERATE) {
        sa__enumerate(c, &plan);
        return;
    }
    c->budget = budget;
    if (!r->seeded_tight && (method == SA_METHOD_IMPLICIT || only || !sa__primal_blocks(c))) {
        if (budget == 0)
            sa__hard_part(c);
        sa__primal(c);
    }
    if (c->opt != NULL && (c->opt->skip_diagnostics || only)) {
        if (r->over == NULL) { /* sa_blocks.c may have found them anyway */
            r->over = sa__alloc_keep(c, (r->n_eq + 1) * sizeof(BDD));
            r->under = sa__alloc_keep(c, (r->n_var + 1) * sizeof(BDD));
            r->diagnostics_skipped = true;
        }
    } else {
        sa__dm(c);
    }
    if (only)
        sa__offsets_alloc(c); /* zero: not computed (sa.h) */
    else
        sa__dual(c);
    c->budget = 0;
    sa__sample(c);
}

void sa__hard_part(sa_ctx *c)
{
    /* Not for a block of a tight graph (sa_tight.c's rounds): its rows are
     * the tight graph's, not the model's, and starting the whole analysis
     * again in another order because of one round made an edited
     * BatchPlant_StandardWater cost twice its cold analysis. */
    if (c->order != SA_ORDER_AUTO || c->method != SA_METHOD_AUTO || c->tight_depth > 0 ||
        !sa__cm_better(c))
        return;
    c->want_cm = true;
    sa__fail(c, MDAE_E_LIMIT);
}

/* The outcome of an attempt besides its code: it failed on the budget of
 * the implicit path, or it asks for Cuthill-McKee's order (sa__hard_part). */
typedef struct outcome {
    bool budget_hit, want_cm;
} outcome;

/* One attempt with a given method, rows in the given order (SA_ORDER_*). */
static int attempt(const mel_model *m, const sa_options *opt, mdae_diags *diags, bool full,
                   int method, bool fell_back, int order, sa_result **out, outcome *oc)
{
    sa_ctx *c = mdae_malloc(sizeof *c);
    if (c == NULL)
        return MDAE_E_NOMEM;
    sa__ctx_init(c, opt, diags);
    c->r = mdae_calloc(1, sizeof *c->r);
    if (c->r == NULL) {
        mdae_free(c);
        return MDAE_E_NOMEM;
    }
    c->order = order;
    c->method = method;
    size_t errors_before = diags != NULL ? diags->errors : 0;
    if (setjmp(c->jb)) {
        oc->budget_hit = c->budget_hit;
        oc->want_cm = c->want_cm;
        int rc = finish_failed(c, errors_before);
        mdae_free(c);
        return rc;
    }
    sa__enter(c);
    sa__peak_reset();
    sa__progress(c, "encode", 0, m->n_equations);
    sa__encode(c, m);
    if (sa__check_edges(c) > 0)
        sa__fail(c, MDAE_E_MODEL);
    if (full)
        solve(c, method, fell_back);
    sa_result *r = c->r;
    r->reordered = order == SA_ORDER_CUTHILL_MCKEE && sa__order() == SA_ORDER_AUTO;
    r->valid_count = sa__count_modes(c, r, r->chi_m);
    sa__count_modes_exact(c, r, r->chi_m, NULL, 0, r->valid_count, &r->valid_exact);
    r->peak_nodes = sa__peak_final();
    sa__leave(c);
    mdae_free(c);
    if (full)
        *out = r;
    else
        sa_result_free(r);
    return MDAE_OK;
}

static int run(const mel_model *m, const sa_options *opt, sa_result **out, mdae_diags *diags,
               bool full)
{
    if (!sa__running())
        return MDAE_E_STATE;
    if (m == NULL || (full && out == NULL))
        return MDAE_E_INVAL;
    int method = opt ? opt->method : SA_METHOD_AUTO;
    if (method < SA_METHOD_AUTO || method > SA_METHOD_TIGHT)
        return MDAE_E_INVAL;
    outcome oc = {false, false};
    int order = sa__order();
    int rc = attempt(m, opt, diags, full, method, false, order, out, &oc);
    if (oc.want_cm) {
        order = SA_ORDER_CUTHILL_MCKEE;
        oc = (outcome){false, false};
        rc = attempt(m, opt, diags, full, method, false, order, out, &oc);
    }
    if (rc == MDAE_E_BDD_LIMIT && oc.budget_hit)
        rc = attempt(m, opt, diags, full, SA_METHOD_ENUMERATE, true, order, out, &oc);
    return rc;
}

int sa_analyze(const mel_model *m, const sa_options *opt, sa_result **out, mdae_diags *diags)
{
    return run(m, opt, out, diags, true);
}

/* Whether the encoding would stop at its limit of BDD variables (one per
 * mode variable and incidence): the full check says so. */
static bool over_encoding_limit(const mel_model *m)
{
    size_t nv = m->n_modes;
    for (uint32_t i = 0; i < m->n_equations; i++)
        nv += m->equations[i].n_incs;
    return nv > SA_MAX_BDD_VARS;
}

int sa_check(const mel_model *m, mdae_diags *diags)
{
    /* nothing to say: decided on the guards alone (sa_check.c) */
    if (sa__running() && m != NULL && !over_encoding_limit(m) && sa__check_light(m))
        return MDAE_OK;
    return run(m, NULL, NULL, diags, false);
}

static bool random_bit(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x >> 63;
}

int sa_result_sample_mode(const sa_result *r, uint64_t *state, bool *mode)
{
    if (r == NULL || state == NULL || *state == 0 || (mode == NULL && r->n_modes > 0))
        return MDAE_E_INVAL;
    if (!sa__running())
        return MDAE_E_STATE;
    if (r->chi_m == bddfalse)
        return MDAE_E_INVAL;
    for (uint32_t k = 0; k < r->n_modes; k++) /* the ones chi_m does not test */
        mode[k] = random_bit(state);
    /* Down chi_m, which holds only mode variables: a node that is not
     * false has a child that is not false. No node is built. */
    BDD f = r->chi_m;
    while (f >= 2) {
        BDD lo = bdd_low(f), hi = bdd_high(f);
        bool b = lo == bddfalse || (hi != bddfalse && random_bit(state));
        int k = r->var_mode[bdd_var(f)];
        MDAE_ASSERT(k >= 0);
        mode[k] = b;
        f = b ? hi : lo;
    }
    MDAE_ASSERT(f == bddtrue);
    return MDAE_OK;
}

size_t sa_result_peak_nodes(const sa_result *r) { return r ? r->peak_nodes : 0; }
bool sa_result_singular(const sa_result *r) { return r && r->singular != bddfalse; }
double sa_result_valid_modes(const sa_result *r) { return r ? r->valid_count : 0; }

int sa_result_valid_modes_exact(const sa_result *r, mdae_bn *out)
{
    if (r == NULL || out == NULL)
        return MDAE_E_INVAL;
    return mdae_bn_copy(out, &r->valid_exact);
}
uint32_t sa_result_seeded(const sa_result *r) { return r ? r->seeded : 0; }
bool sa_result_searched(const sa_result *r) { return r && r->searched; }

static bool same_bdds(const BDD *a, const BDD *b, size_t n)
{
    return n == 0 || memcmp(a, b, n * sizeof *a) == 0;
}

/* Whether a and b (as many edges, the same ok) choose each edge in the same
 * modes, whichever form each stores te in. */
static bool same_te(const sa_result *a, const sa_result *b)
{
    if (sa__te_comparable(a, b))
        return same_bdds(sa__te_exact(a), sa__te_exact(b), a->n_edges);
    for (size_t e = 0; e < a->n_edges; e++)
        if (!sa__te_same(a, e, b, e))
            return false;
    return true;
}

/* Whether the n rows of offsets x (of a) and y (of b) are the same
 * functions, whatever their forms (a->w_off == b->w_off). */
static bool same_cd(const sa_result *a, const sa_result *b, const BDD *x, const BDD *y, size_t n)
{
    size_t w = (size_t)a->w_off;
    if (x == NULL || y == NULL || sa__cd_comparable(a, b))
        return same_bdds(x, y, n * w);
    for (size_t k = 0; k < n; k++)
        if (!sa__off_same(a, &x[k * w], b, &y[k * w], a->w_off))
            return false;
    return true;
}

bool sa_result_same(const sa_result *a, const sa_result *b, const char **why)
{
    const char *w = NULL;
    if (a->n_eq != b->n_eq || a->n_var != b->n_var || a->n_edges != b->n_edges ||
        a->n_modes != b->n_modes)
        w = "sizes";
    else if (a->chi_m != b->chi_m)
        w = "valid modes";
    else if (a->ok != b->ok || a->singular != b->singular)
        w = "singular modes";
    else if (!same_te(a, b))
        w = "chosen matching (te)";
    else if (a->w_off != b->w_off)
        w = "offset width";
    else if (!same_cd(a, b, sa__c_stored(a), sa__c_stored(b), a->n_eq))
        w = "equation offsets (c)";
    else if (!same_cd(a, b, sa__d_stored(a), sa__d_stored(b), a->n_var))
        w = "variable offsets (d)";
    else if (!same_bdds(a->over, b->over, a->n_eq))
        w = "overdetermined equations";
    else if (!same_bdds(a->under, b->under, a->n_var))
        w = "underdetermined variables";
    if (why != NULL)
        *why = w;
    return w == NULL;
}

void sa_result_method(const sa_result *r, sa_method_info *out)
{
    memset(out, 0, sizeof *out);
    if (r == NULL)
        return;
    out->method = r->method;
    out->fell_back = r->fell_back;
    out->modes = r->modes_s;
    out->enumerated = r->enumerated_modes;
    out->graphs = r->distinct_graphs;
    out->blocks = r->primal_blocks;
    out->blocks_fell_back = r->blocks_fell_back;
    out->dm_by_blocks = r->dm_by_blocks;
    out->max_by_cofactors = r->max_by_cofactors;
    out->reordered = r->reordered;
    out->blocks_tight = r->blocks_tight;
    out->seeded_tight = r->seeded_tight;
    out->seeded_rounds = r->seeded_tight ? r->seeded_rounds : 0;
    out->blocks_learned = r->blocks_learned;
    out->seeded_zero = r->seeded_zero;
    out->seeded_sampled = r->seeded_sampled;
    out->seeded_repaired = r->seeded_repaired;
    out->blocks_reused = r->blocks_reused;
    out->encoded_from_hint = r->encoded_from_hint;
    out->offsets_from_hint = r->offsets_from_hint;
    out->seeded_vector_columns = r->seeded_tight ? r->seeded_vector_columns : 0;
    out->seeded_columns_made = r->seeded_tight ? r->seeded_columns_made : 0;
}

int sa_method_from_name(const char *name, int *out)
{
    static const int methods[] = {SA_METHOD_AUTO, SA_METHOD_IMPLICIT, SA_METHOD_ENUMERATE,
                                  SA_METHOD_BLOCKS, SA_METHOD_TIGHT};
    for (size_t k = 0; name != NULL && k < sizeof methods / sizeof methods[0]; k++)
        if (strcmp(name, sa_method_name(methods[k])) == 0) {
            *out = methods[k];
            return MDAE_OK;
        }
    return MDAE_E_INVAL;
}

const char *sa_method_name(int method)
{
    switch (method) {
    case SA_METHOD_IMPLICIT:
        return "implicit";
    case SA_METHOD_ENUMERATE:
        return "enumeration";
    case SA_METHOD_BLOCKS:
        return "blocks";
    case SA_METHOD_TIGHT:
        return "tight";
    default:
        return "auto";
    }
}

/* ---- One mode ------------------------------------------------------------------ */

void sa_mode_view_close(sa_mode_view *v)
{
    if (v == NULL)
        return;
    mdae_free(v->eq_active);
    mdae_free(v->var_active);
    mdae_free(v->c);
    mdae_free(v->d);
    mdae_free(v->overdetermined);
    mdae_free(v->underdetermined);
    mdae_free(v->matched_var);
    memset(v, 0, sizeof *v);
}

int sa_result_mode(const sa_result *r, const bool *mode, sa_mode_view *out)
{
    if (r == NULL || (mode == NULL && r->n_modes > 0) || out == NULL)
        return MDAE_E_INVAL;
    if (!sa__running())
        return MDAE_E_STATE;
    static const bool none[1] = {false};
    if (mode == NULL)
        mode = none;
    sa_mode_view v = {0};
    size_t ne = r->n_eq + 1, nv = r->n_var + 1;
    v.eq_active = mdae_calloc(ne, sizeof(bool));
    v.var_active = mdae_calloc(nv, sizeof(bool));
    v.c = mdae_calloc(ne, sizeof(int));
    v.d = mdae_calloc(nv, sizeof(int));
    v.overdetermined = mdae_calloc(ne, sizeof(bool));
    v.underdetermined = mdae_calloc(nv, sizeof(bool));
    v.matched_var = mdae_calloc(ne, sizeof(int));
    if (!v.eq_active || !v.var_active || !v.c || !v.d || !v.overdetermined ||
        !v.underdetermined || !v.matched_var) {
        sa_mode_view_close(&v);
        return MDAE_E_NOMEM;
    }
    v.valid = sa__eval(r, r->chi_m, mode);
    bool ok = sa__eval(r, r->ok, mode);
    v.singular = v.valid && !ok;
    for (uint32_t i = 0; i < r->n_eq; i++) {
        v.eq_active[i] = sa__eval(r, r->chi_i[i], mode);
        v.c[i] = -1;
        v.matched_var[i] = -1;
        if (ok && v.eq_active[i]) {
            v.c[i] = (int)sa__off_eval(r, r, sa__c_row(r, i), r->w_off, mode);
            for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++)
                if (sa__te_at(r, r, e, mode))
                    v.matched_var[i] = (int)r->edge_v[e];
        }
        if (v.singular)
            v.overdetermined[i] = sa__eval(r, r->over[i], mode);
    }
    for (uint32_t j = 0; j < r->n_var; j++) {
        v.var_active[j] = sa__eval(r, r->chi_j[j], mode);
        v.d[j] = -1;
        if (ok && v.var_active[j])
            v.d[j] = (int)sa__off_eval(r, r, sa__d_row(r, j), r->w_off, mode);
        if (v.singular)
            v.underdetermined[j] = sa__eval(r, r->under[j], mode);
    }
    *out = v;
    return MDAE_OK;
}
