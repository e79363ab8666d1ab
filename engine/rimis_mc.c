/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/rimis_mc.c -- what RIMIS (engine/rimis.h, step 6) takes from the
 * mode-change analysis (engine/mc.h) and from the source's when-clauses
 * (rimis__mode_changes, rimis__changes_close; engine/rimis_int.h).
 *
 * 1. Impulsive mode changes are refused. RIMIS restarts a block's state
 *    replicates by copying the state from before the change (REINIT), so
 *    it is correct only when states are continuous (RR-9459 section 4.1:
 *    "no impulsive mode changes"). Changes between valid nonsingular
 *    modes (guard fixpoints read as left limits, as RIMIS does) are
 *    analysed one by one (mc_change, on the single-mode path, with its
 *    impulse analysis; continuous ones cost little):
 *     - a value impulsive for sure (mc_impulse.lo > 0: the clutch's
 *       torques) refuses the model, naming the values and the change;
 *     - a value possibly impulsive (hi > 0 >= lo: the Cup-and-Ball's
 *       tension, rldc2's diode currents) refuses it too. Our choice, and why: the structure
 *       allows the impulse and whether it happens depends on the values
 *       before the change (the ball's normal velocity at the impact), so
 *       an output that copies the states is wrong exactly when the source
 *       jumps; the message says "possibly".
 *    Except a change triggered by the constraint it restores (triggered()
 *    below: the Water Tank filling): the impulse analysis
 *    assumes the old state violates the new constraint by a finite
 *    amount, while the change happens when that violation crosses zero,
 *    where nothing jumps: accepted, the states copied.
 *    Which changes are analysed. A cheaper exact route was measured and
 *    left: mc_first_instants finds the changes that need a restart on
 *    BDDs, but it analyses a model of twice the mode variables, 3 to 4
 *    times the cost of the analysis itself on the brake at N = 100, over
 *    the budget for the whole of rimis. Instead: with at most
 *    SMALL_MODES mode variables, the valid nonsingular modes are
 *    enumerated (on r) and every change between them analysed
 *    when there are at most PAIRS_ALL; otherwise at most PAIRS_SAMPLE
 *    changes, each flipping one mode variable of a valid mode drawn at
 *    random (a fixed seed), and a warning says the check is not
 *    exhaustive. Each change is first analysed without impulses (cheap);
 *    one that needs a restart is refused by a conflict with the past
 *    (conflict_with_past: the old state violates a constraint of the new
 *    mode, so states jump; the impulse analysis's I4), or by the impulse
 *    analysis, run on it unless the conflict already refuses a restart
 *    system of more than SMALL_RESTART equations (the brake's valves:
 *    the search would cost more than the whole analysis) or the analysis
 *    once gave up for size (the others are as large; a warning says
 *    which changes were not checked for impulses). So the brake is
 *    refused at N = 100 as at N = 3, in a fraction of the analysis time;
 *    but the compressible building's door, possibly impulsive at N = 3,
 *    is only warned about at N = 50, where no conflict with the past
 *    shows (its pressures are not states) and the impulse analysis gives
 *    up.
 *    The first refused change ends the search (a refusal needs one). The
 *    events of when-clauses (transient modes) are not among these
 *    changes: their reset is the when-clause itself, carried (3 below).
 *    Changes the mode-change analysis rejects (an underdetermined
 *    restart) get a warning: the output restarts them from the values
 *    before the change.
 * 2. Finite resets. Once impulsive changes are refused, a change that
 *    needs a restart keeps the states of the new mode continuous (no
 *    value of its restart systems is impulsive, so no state's derivative
 *    is infinite), and the copy of REINIT is the restart value. The one
 *    exception found here: a variable differentiated in some mode that
 *    does not exist in every mode, whose value entering a mode where it
 *    exists the restart system determines (it had none before). In the
 *    simple form -- an equation active exactly where it exists says
 *    `v = E`, E of factored states that exist in every mode (continuous),
 *    v of order 1 -- its restart value is E of the values before the
 *    change (a rimis__reset entering v's guard); otherwise a warning says
 *    the output copies it. Checked on the model, not pair by pair: the
 *    mode-change analysis gives no restart system for a change it finds
 *    continuous, which such a change usually is.
 * 3. When-clauses. MEL `when c then next(x) = e; end` and Modelica
 *    `when c then reinit(x, e); end when;` (a mel_when and its equations,
 *    .when != 0) are printed as Modelica `when c then reinit(X, e'); end
 *    when;`, e' naming the output's variables (rimis__naming.source_name;
 *    pre() kept), X the factored state V(x, n), or every state replicate
 *    of (x, n) (one reinit each); a target that is no state of the output
 *    is a located error. Each mel_when is its own clause (an elsewhen's
 *    priority is not kept). A Modelica when-clause the importer kept only
 *    as text (its condition not made of Booleans and relations) is carried
 *    verbatim when its only statements are reinits of factored states, a
 *    located error when it reinitialises anything else, and left out with
 *    a warning when it assigns discrete variables.
 *
 * Promises: no I/O; the BDD work is reading r (sa__eval of its valid
 * nonsingular modes, sa_result_sample_mode), which builds no node and
 * needs sa_begin (rimis_build holds it); the mode-change analysis uses no
 * BDD. So it may be called inside rimis_build's BDD run (tested). The
 * model is only read. Out of memory: MDAE_E_NOMEM.
 */
#include "rimis_int.h"

#include <stdio.h>
#include <string.h>

#include "mc.h"

#define NAMES_MAX 8u     /* values, mode variables named in a message */
#define SMALL_MODES 8u   /* up to 2^8 modes enumerated */
#define PAIRS_ALL 256u   /* then every change analysed, when there are at most this many */
#define PAIRS_SAMPLE 32u /* else at most this many, drawn */
#define SMALL_RESTART 32u /* restart systems whose impulses are always analysed */

typedef struct mcx {
    const mel_model *m;
    const rimis__naming *nm;
    fx_pool *pool;
    rimis__changes *out;
    mdae_diags *warnings, *diags;
    bool refused;  /* a located error was added */
    /* the changes analysed: how many, and one of each kind, as text */
    size_t analysed, rejected, not_done;
    bool too_large; /* an impulse analysis gave up for size: skipped since */
    bool sampled; /* not every change was analysed */
    char *example_any, *example_rejected, *example_not_done; /* owned */
    mdae_buf whens;
} mcx;

static const mdae_range NOWHERE = {{0, 0, 0}, {0, 0, 0}};

/* ---- 1. Impulsive changes --------------------------------------------------- */

/* The change from -> to as text: the mode variables that change, and the
 * full example pair when the model has few of them, else the unchanged
 * mode variables that are true when they are few. */
static void put_change(mdae_buf *b, const mel_model *m, const bool *from, const bool *to)
{
    bool first = true;
    for (uint32_t k = 0; k < m->n_modes; k++) {
        if (from[k] == to[k])
            continue;
        mdae_buf_puts(b, first ? "" : ", ");
        mel_mode_name_put(b, m->modes[k].name);
        mdae_buf_puts(b, to[k] ? " becoming true" : " becoming false");
        first = false;
    }
    if (m->n_modes > NAMES_MAX) {
        size_t on = 0;
        for (uint32_t k = 0; k < m->n_modes; k++)
            on += from[k] && to[k];
        if (on > NAMES_MAX) {
            mdae_buf_puts(b, " (the other mode variables unchanged)");
            return;
        }
        mdae_buf_puts(b, on == 0 ? " (the other mode variables false)" : " (with ");
        for (uint32_t k = 0, i = 0; k < m->n_modes && on > 0; k++) {
            if (!from[k] || !to[k])
                continue;
            mdae_buf_puts(b, i++ == 0 ? "" : ", ");
            mel_mode_name_put(b, m->modes[k].name);
        }
        if (on > 0)
            mdae_buf_puts(b, " true, the others false)");
        return;
    }
    mdae_buf_puts(b, " (from ");
    for (int side = 0; side < 2; side++) {
        const bool *v = side == 0 ? from : to;
        for (uint32_t k = 0; k < m->n_modes; k++) {
            mdae_buf_puts(b, k == 0 ? "" : " & ");
            mdae_buf_puts(b, v[k] ? "" : "!");
            mel_mode_name_put(b, m->modes[k].name);
        }
        mdae_buf_puts(b, side == 0 ? " to " : ")");
    }
}

/* Where to report a change: the first equation its first instant erases
 * (the constraint the old state violates), else the value's declaration. */
static mdae_range change_where(const mel_model *m, const mc_result *r, uint32_t var)
{
    if (r->n_instants > 0 && r->instants[0].erased.n > 0)
        return m->equations[r->instants[0].erased.items[0].index].where;
    return var < m->n_variables ? m->variables[var].where : NOWHERE;
}

/* The impulsive values of one analysed change, as a located error. */
static int refuse_impulsive(mcx *x, const mc_result *r, const bool *from, const bool *to)
{
    const mel_model *m = x->m;
    mdae_buf b = {0};
    bool sure = false, first = true;
    size_t named = 0;
    uint32_t where_var = r->impulsive[0].var;
    for (size_t i = 0; i < r->n_impulsive; i++)
        sure = sure || r->impulsive[i].lo > 0;
    for (size_t i = 0; i < r->n_impulsive; i++) {
        const mc_impulse *p = &r->impulsive[i];
        if (p->hi <= 0 || (sure && p->lo <= 0))
            continue;
        bool seen = false; /* a value listed at several instants: once */
        for (size_t j = 0; j < i && !seen; j++)
            seen = r->impulsive[j].var == p->var && r->impulsive[j].hi > 0 &&
                   (!sure || r->impulsive[j].lo > 0);
        if (seen)
            continue;
        if (first)
            where_var = p->var;
        if (++named > NAMES_MAX)
            continue;
        mdae_buf_puts(&b, first ? "" : ", ");
        mdae_buf_puts(&b, m->variables[p->var].name);
        first = false;
    }
    if (named > NAMES_MAX) {
        char more[64];
        snprintf(more, sizeof more, " and %zu more", named - NAMES_MAX);
        mdae_buf_puts(&b, more);
    }
    mdae_buf c = {0};
    put_change(&c, m, from, to);
    int rc = MDAE_E_NOMEM;
    if (!b.oom && !c.oom && b.p != NULL && c.p != NULL)
        rc = mdae_diags_add(
            x->diags, MDAE_SEV_ERROR, change_where(m, r, where_var),
            "RIMIS cannot represent an impulsive mode change: %s %s %s when %s; its output "
            "copies the states across a change, which is wrong when they jump (RR-9459 "
            "section 4.1; mdae modechange)",
            b.p, named > 1 ? "are" : "is",
            sure ? "impulsive" : "possibly impulsive (the structure allows an impulse, and "
                                 "whether it happens depends on the values before the change)",
            c.p);
    mdae_free(b.p);
    mdae_free(c.p);
    x->refused = true;
    return rc;
}

static const fx_node *guard_fx(fx_pool *p, const mel_guard *g);

/* The highest order at which v appears outside when-bodies (-1: never). */
static int max_order(const mel_model *m, uint32_t v)
{
    int best = -1;
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const mel_equation *e = &m->equations[i];
        for (uint32_t k = 0; e->when == 0 && k < e->n_incs; k++)
            if (e->incs[k].var == v && e->incs[k].cases[0].order > best)
                best = e->incs[k].cases[0].order;
    }
    return best;
}

/* Whether e is an expression of old values only: numbers, knowns, time and
 * unknowns that exist in every mode and are factored states of the output
 * (continuous across every change, impulsive ones being refused), read at
 * order 0; no mode variable (it changes at the change), no pre/last/next. */
static bool of_old_values(const mcx *x, const fx_node *e)
{
    switch ((fx_op)e->op) {
    case FX_NUM: case FX_BOOL: case FX_TIME: case FX_KNOWN:
        return true;
    case FX_VAR:
        return e->order == 0 && x->m->variables[e->index].guard->op == MEL_G_TRUE &&
               x->nm->factored(x->nm->ctx, e->index, 0);
    case FX_MODE: case FX_PRE: case FX_LAST: case FX_NEXT: case FX_OPAQUE: case FX_DER:
        return false;
    default:
        break;
    }
    for (uint32_t i = 0; i < e->n; i++)
        if (!of_old_values(x, e->kids[i]))
            return false;
    return true;
}

/* e with every unknown read under pre(): the value before the change. */
static const fx_node *before(fx_pool *p, const fx_node *e)
{
    if (e->op == FX_VAR)
        return fx_un(p, FX_PRE, e, e->where);
    if (e->n == 0)
        return e;
    const fx_node **kids = mdae_calloc(e->n, sizeof *kids);
    if (kids == NULL)
        return NULL;
    bool ok = true;
    for (uint32_t i = 0; i < e->n && ok; i++)
        ok = (kids[i] = before(p, e->kids[i])) != NULL;
    const fx_node *r = !ok ? NULL
                       : e->op == FX_CALL
                           ? fx_call(p, (fx_fn)e->fn, e->name, kids, e->n, e->where)
                           : fx_make(p, (fx_op)e->op, kids, e->n, e->where);
    mdae_free((void *)kids);
    return r;
}

/* The simple form of a restart value (item 2): an equation active exactly
 * where v exists, `v = E` (or `E = v`), E of old values only. Then E of
 * the values before the change is v's value entering those modes. */
static const fx_node *simple_restart(const mcx *x, uint32_t v)
{
    const mel_model *m = x->m;
    char *gv = mel_guard_format(m, m->variables[v].guard);
    const fx_node *found = NULL;
    for (uint32_t i = 0; gv != NULL && i < m->n_equations && found == NULL; i++) {
        const mel_equation *e = &m->equations[i];
        if (e->when != 0 || e->lhs == NULL || e->rhs == NULL)
            continue;
        const fx_node *side = NULL;
        if (e->lhs->op == FX_VAR && e->lhs->index == v && e->lhs->order == 0)
            side = e->rhs;
        else if (e->rhs->op == FX_VAR && e->rhs->index == v && e->rhs->order == 0)
            side = e->lhs;
        if (side == NULL || !of_old_values(x, side))
            continue;
        char *ge = mel_guard_format(m, e->guard);
        if (ge != NULL && strcmp(ge, gv) == 0)
            found = side;
        mdae_free(ge);
    }
    mdae_free(gv);
    return found;
}

static int add_reset(mcx *x, uint32_t v, const fx_node *into, const fx_node *value)
{
    rimis__changes *ch = x->out;
    rimis__reset *n = mdae_realloc(ch->resets, (ch->n_resets + 1) * sizeof *n);
    if (n == NULL)
        return MDAE_E_NOMEM;
    ch->resets = n;
    n[ch->n_resets++] = (rimis__reset){v, 0, into, value};
    return MDAE_OK;
}

/* Item 2: a variable differentiated in some mode that does not exist in
 * every mode. Entering a mode where it exists, the restart system
 * determines its value (it had none before), while the output would copy
 * whatever its state held. In the simple form (simple_restart, a state of
 * order 1) that value is given as a reset; otherwise a warning says it is
 * copied. */
static int new_states(mcx *x)
{
    const mel_model *m = x->m;
    for (uint32_t v = 0; v < m->n_variables; v++) {
        if (m->variables[v].guard->op == MEL_G_TRUE)
            continue;
        int top = max_order(m, v);
        if (top < 1)
            continue;
        const fx_node *e = top == 1 ? simple_restart(x, v) : NULL;
        if (e != NULL) {
            const fx_node *into = guard_fx(x->pool, m->variables[v].guard);
            const fx_node *value = before(x->pool, e);
            if (into == NULL || value == NULL || add_reset(x, v, into, value) != MDAE_OK)
                return MDAE_E_NOMEM;
            continue;
        }
        char *g = mel_guard_format(m, m->variables[v].guard);
        if (g == NULL)
            return MDAE_E_NOMEM;
        int rc = mdae_diags_add(x->warnings, MDAE_SEV_WARNING, m->variables[v].where,
                                "entering the modes where '%s' exists (%s), its restart value "
                                "is copied from what the output held before the change, not "
                                "the one the source's restart system determines (it had no "
                                "value before, and RIMIS prints a restart value only when an "
                                "equation of those modes gives it as '%s = E', E of states "
                                "that exist in every mode)",
                                m->variables[v].name, g, m->variables[v].name);
        mdae_free(g);
        if (rc != MDAE_OK)
            return rc;
    }
    return MDAE_OK;
}

/* Whether e reads unknown var (at any order, under pre/last or not). */
static bool expr_reads(const fx_node *e, uint32_t var)
{
    if (e == NULL)
        return false;
    if (e->op == FX_VAR)
        return e->index == var;
    for (uint32_t i = 0; i < e->n; i++)
        if (expr_reads(e->kids[i], var))
            return true;
    return false;
}

/* Whether e has an active incidence on var in mode. */
static bool reads_in(const mel_equation *e, uint32_t var, const bool *mode)
{
    for (uint32_t k = 0; k < e->n_incs; k++)
        if (e->incs[k].var == var)
            return mel_incidence_order(&e->incs[k], mode) >= 0;
    return false;
}

/* Whether F's unknowns in mode `from`, but v, are E's in mode `to`. */
static bool same_unknowns_but(const mel_equation *F, const bool *from, const mel_equation *E,
                              const bool *to, uint32_t v)
{
    size_t nf = 0, ne = 0;
    for (uint32_t k = 0; k < F->n_incs; k++) {
        uint32_t u = F->incs[k].var;
        if (u == v || mel_incidence_order(&F->incs[k], from) < 0)
            continue;
        if (!reads_in(E, u, to))
            return false;
        nf++;
    }
    for (uint32_t k = 0; k < E->n_incs; k++)
        ne += mel_incidence_order(&E->incs[k], to) >= 0;
    return nf == ne && ne > 0;
}

/* Whether a changing mode variable watches the residual of erased equation
 * E: its definition reads E's only unknown v, or a v that an equation F
 * of the old mode defines from E's unknowns exactly (the Water Tank's bh =
 * sh >= 0 with eh1: sh = x - xmax when !bh, erased eh2: 0 = x - xmax). */
static bool watched(const mel_model *m, const mel_equation *E, const bool *from, const bool *to)
{
    for (uint32_t k = 0; k < m->n_modes; k++) {
        if (from[k] == to[k] || m->modes[k].def == NULL)
            continue;
        for (uint32_t v = 0; v < m->n_variables; v++) {
            if (!expr_reads(m->modes[k].def, v))
                continue;
            bool only = reads_in(E, v, to);
            for (uint32_t j = 0; j < E->n_incs && only; j++)
                only = E->incs[j].var == v || mel_incidence_order(&E->incs[j], to) < 0;
            if (only)
                return true;
            for (uint32_t i = 0; i < m->n_equations; i++) {
                const mel_equation *F = &m->equations[i];
                if (F->when == 0 && mel_guard_eval(F->guard, from) && reads_in(F, v, from) &&
                    same_unknowns_but(F, from, E, to, v))
                    return true;
            }
        }
    }
    return false;
}

/* A change triggered by the constraint it restores: the first instant
 * erases only unshifted equations (a constraint on the old state, not on
 * its derivatives), each watched by a mode variable that changes. The
 * change then happens when the constraint's residual crosses zero, so the
 * old state violates it by an infinitesimal, not the finite amount the
 * impulse analysis assumes (mc_impulse.c, I4): the Water Tank filling. */
static bool triggered(const mel_model *m, const mc_result *r, const bool *from, const bool *to)
{
    if (r->n_instants == 0 || r->instants[0].erased.n == 0)
        return false;
    const mc_list *er = &r->instants[0].erased;
    for (size_t i = 0; i < er->n; i++)
        if (er->items[i].shift != 0 || !watched(m, &m->equations[er->items[i].index], from, to))
            return false;
    return true;
}

/* How the impulse analysis of r's instants ended: IMP_TOO_LARGE (not
 * done: a restart system too large for it), IMP_NO_ANSWER (no assignment
 * of impulse orders satisfies its rules), else IMP_DONE. mc_impulse.c says
 * so in a note only. */
enum { IMP_DONE, IMP_NO_ANSWER, IMP_TOO_LARGE };
static int impulses_outcome(const mc_result *r)
{
    int out = IMP_DONE;
    for (size_t i = 0; i < r->diags.count; i++) {
        const char *s = r->diags.items[i].message;
        if (s != NULL && strstr(s, "impulse analysis not done") != NULL)
            return IMP_TOO_LARGE;
        if (s != NULL && strstr(s, "impulse analysis found no assignment") != NULL)
            out = IMP_NO_ANSWER;
    }
    return out;
}

/* *slot = the change from -> to as text, unless already set. */
static int remember(mcx *x, char **slot, const bool *from, const bool *to)
{
    if (*slot != NULL)
        return MDAE_OK;
    mdae_buf b = {0};
    put_change(&b, x->m, from, to);
    if (b.oom || b.p == NULL) {
        mdae_free(b.p);
        return MDAE_E_NOMEM;
    }
    *slot = b.p;
    return MDAE_OK;
}

static bool listed(const mc_list *l, uint32_t index, int shift)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->items[i].index == index && l->items[i].shift == shift)
            return true;
    return false;
}

/* A conflict with the past (mc_impulse.c, I4): an equation the first
 * instant erases at shift k, all of whose values there are known (set
 * before the change), while its shift k + 1 is kept. The old state
 * violates the constraint the new mode imposes, so some state jumps.
 * Its index, or -1. */
static long conflict_with_past(const mel_model *m, const mc_result *r, const bool *to)
{
    if (r->n_instants == 0)
        return -1;
    const mc_instant *in = &r->instants[0];
    for (size_t i = 0; i < in->erased.n; i++) {
        uint32_t q = in->erased.items[i].index;
        int k = in->erased.items[i].shift;
        if (!listed(&in->equations, q, k + 1))
            continue;
        const mel_equation *e = &m->equations[q];
        bool known = true;
        for (uint32_t j = 0; j < e->n_incs && known; j++) {
            int sigma = mel_incidence_order(&e->incs[j], to);
            for (int l = k; l <= k + sigma && known; l++)
                known = listed(&in->known, e->incs[j].var, l);
        }
        if (known)
            return (long)q;
    }
    return -1;
}

/* The change jumps the states of erased equation q: a located error. */
static int refuse_jump(mcx *x, uint32_t q, const bool *from, const bool *to)
{
    const mel_equation *e = &x->m->equations[q];
    mdae_buf v = {0}, c = {0};
    for (uint32_t j = 0; j < e->n_incs && j < NAMES_MAX; j++) {
        mdae_buf_puts(&v, j == 0 ? "" : ", ");
        mdae_buf_puts(&v, x->m->variables[e->incs[j].var].name);
    }
    put_change(&c, x->m, from, to);
    int rc = MDAE_E_NOMEM;
    if (!v.oom && !c.oom && v.p != NULL && c.p != NULL)
        rc = mdae_diags_add(x->diags, MDAE_SEV_ERROR, e->where,
                            "RIMIS cannot represent an impulsive mode change: when %s, the "
                            "state before the change violates '%s', which the new mode imposes "
                            "(the mode-change analysis erases it at the first instant and keeps "
                            "its derivative), so the states among %s jump; the output copies "
                            "the states across a change (RR-9459 section 4.1; mdae modechange)",
                            c.p, e->name, v.p);
    mdae_free(v.p);
    mdae_free(c.p);
    x->refused = true;
    return rc;
}

/* mc_change from -> to, its impulse analysis skipped or not. */
static int change(const mcx *x, const bool *from, const bool *to, bool impulses,
                  mc_result **out)
{
    mc_options o;
    memset(&o, 0, sizeof o);
    o.ignore_guard_fixpoints = true;
    o.skip_impulses = !impulses;
    char why[256];
    return mc_change(x->m, from, to, &o, out, why, sizeof why);
}

/* What one restart (r, analysed without impulses) says: a triggered change
 * accepted, an impulsive one or a conflict with the past refused. The
 * impulse analysis runs again on the change unless it gave up for size
 * before, or a conflict with the past already refuses a restart system of
 * more than SMALL_RESTART equations (the brake's valves: the search costs
 * more than the whole analysis there); it names the impulsive values. */
static int check_restart(mcx *x, const mc_result *r, const bool *from, const bool *to)
{
    long jump = conflict_with_past(x->m, r, to);
    /* A change triggered by the residual of the constraint it restores
     * crossing zero happens where the old state satisfies that constraint:
     * nothing jumps, so copying the states is right (the Water Tank). */
    if (triggered(x->m, r, from, to))
        return MDAE_OK;
    bool cheap = jump >= 0 && r->instants[0].equations.n > SMALL_RESTART;
    mc_result *ri = NULL;
    int rc = MDAE_OK, imp = IMP_TOO_LARGE;
    if (!x->too_large && !cheap) {
        rc = change(x, from, to, true, &ri);
        if (rc != MDAE_OK)
            return rc == MDAE_E_INVAL ? MDAE_OK : rc;
        imp = impulses_outcome(ri);
        x->too_large = imp == IMP_TOO_LARGE;
    }
    if (!cheap && imp != IMP_DONE && x->not_done++ == 0)
        rc = remember(x, &x->example_not_done, from, to);
    bool impulsive = false;
    for (size_t i = 0; ri != NULL && i < ri->n_impulsive; i++)
        impulsive = impulsive || ri->impulsive[i].hi > 0;
    if (rc == MDAE_OK && impulsive)
        rc = refuse_impulsive(x, ri, from, to);
    else if (rc == MDAE_OK && jump >= 0)
        rc = refuse_jump(x, (uint32_t)jump, from, to);
    mc_result_free(ri);
    return rc;
}

/* Analyse one change: the mode-change analysis without impulses, then
 * check_restart for a change that needs a restart. */
static int check_pair(mcx *x, const bool *from, const bool *to)
{
    mc_result *r = NULL;
    int rc = change(x, from, to, false, &r);
    if (rc == MDAE_E_INVAL)
        return MDAE_OK; /* not a change between valid modes: nothing to say */
    if (rc != MDAE_OK)
        return rc;
    x->analysed++;
    rc = remember(x, &x->example_any, from, to);
    if (rc == MDAE_OK && r->status == MC_REJECTED && x->rejected++ == 0)
        rc = remember(x, &x->example_rejected, from, to);
    if (rc == MDAE_OK && r->status == MC_RESET)
        rc = check_restart(x, r, from, to);
    mc_result_free(r);
    return rc;
}

/* Whether mode is valid and nonsingular in r (r->ok: valid modes with a
 * perfect matching; evaluated down the BDD, no node built). */
static int long_mode(const sa_result *r, const bool *mode, bool *ok)
{
    *ok = sa__eval(r, r->ok, mode);
    return MDAE_OK;
}

static void mode_of(uint32_t bits, uint32_t n, bool *mode)
{
    for (uint32_t k = 0; k < n; k++)
        mode[k] = (bits >> k) & 1u;
}

/* Few mode variables: every pair of valid nonsingular modes, when there
 * are at most PAIRS_ALL; *done false otherwise. */
static int check_all_pairs(mcx *x, const sa_result *r, bool *from, bool *to, bool *done)
{
    uint32_t n = x->m->n_modes, *valid = mdae_calloc((size_t)1 << n, sizeof *valid);
    if (valid == NULL)
        return MDAE_E_NOMEM;
    size_t nv = 0;
    int rc = MDAE_OK;
    for (uint32_t bits = 0; bits < (1u << n) && rc == MDAE_OK; bits++) {
        bool ok;
        mode_of(bits, n, from);
        rc = long_mode(r, from, &ok);
        if (rc == MDAE_OK && ok)
            valid[nv++] = bits;
    }
    *done = rc == MDAE_OK && nv * (nv > 0 ? nv - 1 : 0) <= PAIRS_ALL;
    for (size_t i = 0; *done && i < nv && rc == MDAE_OK && !x->refused; i++)
        for (size_t j = 0; j < nv && rc == MDAE_OK && !x->refused; j++) {
            if (i == j)
                continue;
            mode_of(valid[i], n, from);
            mode_of(valid[j], n, to);
            rc = check_pair(x, from, to);
        }
    mdae_free(valid);
    return rc;
}

/* Many: the changes flipping one mode variable of a valid mode drawn at
 * random (a fixed seed: deterministic), at most PAIRS_SAMPLE of them, until
 * one is refused. */
static int check_sampled_pairs(mcx *x, const sa_result *r, bool *from, bool *to)
{
    uint32_t n = x->m->n_modes;
    uint64_t seed = 0x9E3779B97F4A7C15u;
    int rc = MDAE_OK;
    for (uint32_t t = 0;
         t < 4 * PAIRS_SAMPLE && x->analysed < PAIRS_SAMPLE && rc == MDAE_OK && !x->refused;
         t++) {
        rc = sa_result_sample_mode(r, &seed, from);
        if (rc != MDAE_OK)
            break;
        memcpy(to, from, n * sizeof *to);
        to[t % n] = !to[t % n];
        bool ok;
        rc = long_mode(r, to, &ok);
        if (rc == MDAE_OK && ok)
            rc = check_pair(x, from, to);
    }
    x->sampled = true;
    return rc == MDAE_E_INVAL ? MDAE_OK : rc; /* no valid mode: no change */
}

static int add_warning(mcx *x, const char *fmt, size_t count, const char *example)
{
    return mdae_diags_add(x->warnings, MDAE_SEV_WARNING, NOWHERE, fmt, count,
                          example != NULL ? example : "?");
}

/* What the analysed changes leave unsaid. */
static int summary(mcx *x)
{
    int rc = MDAE_OK;
    if (x->sampled)
        rc = add_warning(x,
                         "the impulse check of the mode changes is not exhaustive: %zu changes "
                         "were analysed (each flipping one mode variable of a valid mode "
                         "drawn at random, e.g. %s); an impulsive change among the others "
                         "would make the output wrong at that change",
                         x->analysed, x->example_any);
    if (rc == MDAE_OK && x->not_done > 0)
        rc = add_warning(x,
                         "mode changes that could not be checked for impulses: %zu (the impulse "
                         "analysis gave no answer: their restart systems are too large for it, "
                         "or no assignment of impulse orders satisfies its rules), e.g. when "
                         "%s; only "
                         "the conflicts of the old state with a constraint of the new mode "
                         "were looked for there; the output copies the states, which is "
                         "wrong if an impulse makes them jump",
                         x->not_done, x->example_not_done);
    if (rc == MDAE_OK && x->rejected > 0)
        rc = add_warning(x,
                         "mode changes with no restart the mode-change analysis accepts (it "
                         "rejects them): %zu, e.g. when %s; the output restarts them from the "
                         "values before the change",
                         x->rejected, x->example_rejected);
    return rc;
}

static int check_changes(mcx *x, const sa_result *r)
{
    uint32_t n = x->m->n_modes;
    if (n == 0)
        return MDAE_OK;
    bool *from = mdae_calloc(n, sizeof *from), *to = mdae_calloc(n, sizeof *to);
    int rc = from != NULL && to != NULL ? MDAE_OK : MDAE_E_NOMEM;
    bool done = false;
    if (rc == MDAE_OK && n <= SMALL_MODES)
        rc = check_all_pairs(x, r, from, to, &done);
    if (rc == MDAE_OK && !done)
        rc = check_sampled_pairs(x, r, from, to);
    if (rc == MDAE_OK && !x->refused)
        rc = summary(x);
    mdae_free(from);
    mdae_free(to);
    return rc;
}

/* ---- 3. When-clauses -------------------------------------------------------- */

/* e with every unknown V(u, n) renamed after the output (an FX_OPAQUE
 * holding its name, which prints as it); NULL on OOM, and *bad set (to
 * the node) for what a when-clause cannot carry (next() elsewhere than
 * the target, a text the front-end kept). */
static const fx_node *rename_vars(mcx *x, const fx_node *e, const fx_node **bad)
{
    switch ((fx_op)e->op) {
    case FX_NUM: case FX_BOOL: case FX_TIME: case FX_KNOWN: case FX_MODE:
        return e;
    case FX_VAR: {
        const char *name = x->nm->source_name(x->nm->ctx, e->index, e->order);
        return name != NULL ? fx_opaque(x->pool, name, NULL, 0, e->where) : NULL;
    }
    case FX_NEXT: case FX_OPAQUE: case FX_LAST:
        *bad = e;
        return e;
    default:
        break;
    }
    const fx_node **kids = mdae_calloc(e->n + 1u, sizeof *kids);
    if (kids == NULL)
        return NULL;
    bool ok = true;
    for (uint32_t i = 0; i < e->n && ok && *bad == NULL; i++)
        ok = (kids[i] = rename_vars(x, e->kids[i], bad)) != NULL;
    const fx_node *r = NULL;
    if (ok && *bad == NULL)
        r = e->op == FX_CALL ? fx_call(x->pool, (fx_fn)e->fn, e->name, kids, e->n, e->where)
                             : fx_make(x->pool, (fx_op)e->op, kids, e->n, e->where);
    else if (ok)
        r = e;
    mdae_free((void *)kids);
    return r;
}

/* A mode guard as a Modelica condition (FX_MODE, FX_NOT, FX_AND, FX_OR). */
static const fx_node *guard_fx(fx_pool *p, const mel_guard *g)
{
    switch (g->op) {
    case MEL_G_FALSE: return fx_bool(p, false, NOWHERE);
    case MEL_G_TRUE: return fx_bool(p, true, NOWHERE);
    case MEL_G_VAR: return fx_mode(p, g->var, NOWHERE);
    case MEL_G_NOT: return fx_un(p, FX_NOT, guard_fx(p, g->lhs), NOWHERE);
    case MEL_G_AND: return fx_bin(p, FX_AND, guard_fx(p, g->lhs), guard_fx(p, g->rhs), NOWHERE);
    case MEL_G_OR: return fx_bin(p, FX_OR, guard_fx(p, g->lhs), guard_fx(p, g->rhs), NOWHERE);
    }
    return NULL;
}

/* The reinit targets of (var, order): the factored state, or its state
 * replicates; *n 0 when it is no state of the output. */
static const char *const *targets(mcx *x, uint32_t var, int order, size_t *n, const char **one)
{
    *n = 0;
    if (x->nm->factored(x->nm->ctx, var, order)) {
        *one = x->nm->source_name(x->nm->ctx, var, order);
        *n = *one != NULL;
        return one;
    }
    return x->nm->state_replicates(x->nm->ctx, var, order, n);
}

static int when_error(mcx *x, mdae_range where, const char *fmt, const char *a)
{
    x->refused = true;
    return mdae_diags_add(x->diags, MDAE_SEV_ERROR, where, fmt, a);
}

/* One equation of a when-body, `next(x) = e` (either side), as reinits. */
static int when_equation(mcx *x, const mel_equation *q)
{
    const fx_node *t = q->lhs, *e = q->rhs;
    if (t != NULL && t->op != FX_NEXT) {
        t = q->rhs;
        e = q->lhs;
    }
    if (t == NULL || e == NULL || t->op != FX_NEXT || t->kids[0]->op != FX_VAR)
        return when_error(x, q->where,
                          "RIMIS cannot carry the when-clause equation '%s': it is not of the "
                          "form next(x) = e (Modelica: reinit(x, e))",
                          q->name);
    const fx_node *v = t->kids[0], *bad = NULL;
    const fx_node *val = rename_vars(x, e, &bad);
    if (val == NULL)
        return MDAE_E_NOMEM;
    if (bad != NULL)
        return when_error(x, bad->where.start.line ? bad->where : q->where,
                          "RIMIS cannot carry the when-clause equation '%s': its value reads "
                          "next(), last() or a text the importer kept",
                          q->name);
    const char *one = NULL;
    size_t n = 0;
    const char *const *names = targets(x, v->index, v->order, &n, &one);
    if (n == 0 || names == NULL)
        return when_error(x, q->where,
                          "RIMIS cannot carry the reinitialisation of '%s': it is no state of "
                          "the output (no block integrates it), so there is nothing to reset",
                          x->m->variables[v->index].name);
    for (size_t i = 0; i < n; i++) {
        mdae_buf_puts(&x->whens, "    reinit(");
        fx_print_name(&x->whens, names[i], FX_SYNTAX_MODELICA);
        mdae_buf_puts(&x->whens, ", ");
        fx_print(&x->whens, x->m, val, FX_SYNTAX_MODELICA);
        mdae_buf_puts(&x->whens, ");\n");
    }
    return MDAE_OK;
}

/* The when-clauses the front-ends made transient modes (mel_model.whens). */
static int carry_whens(mcx *x)
{
    const mel_model *m = x->m;
    for (uint32_t w = 0; w < m->n_whens && !x->refused; w++) {
        const fx_node *c = guard_fx(x->pool, m->whens[w].cond);
        if (c == NULL)
            return MDAE_E_NOMEM;
        mdae_buf_puts(&x->whens, "  when ");
        fx_print(&x->whens, m, c, FX_SYNTAX_MODELICA);
        mdae_buf_puts(&x->whens, " then\n");
        for (uint32_t i = 0; i < m->n_equations && !x->refused; i++) {
            if (m->equations[i].when != w + 1)
                continue;
            int rc = when_equation(x, &m->equations[i]);
            if (rc != MDAE_OK)
                return rc;
        }
        mdae_buf_puts(&x->whens, "  end when;\n");
        x->out->n_whens++;
    }
    return MDAE_OK;
}

static bool same_range(mdae_range a, mdae_range b)
{
    return a.start.offset == b.start.offset && a.end.offset == b.end.offset &&
           a.start.line == b.start.line;
}

/* A Modelica when-branch kept only as text (no mel_when): carried verbatim
 * when it only reinitialises factored states. */
static int carry_text_when(mcx *x, uint32_t ev)
{
    const mel_model *m = x->m;
    const mel_event *w = &m->events[ev];
    size_t reinits = 0, others = 0;
    for (uint32_t i = ev + 1; i < m->n_events; i++) {
        const mel_event *s = &m->events[i];
        if (s->parent != (long)ev)
            continue;
        if (s->kind != MEL_EV_REINIT) {
            others++;
            continue;
        }
        if (s->var < 0 || !x->nm->factored(x->nm->ctx, (uint32_t)s->var, 0))
            return when_error(x, s->where,
                              "RIMIS cannot carry '%s': its when-condition is not made of "
                              "Booleans and relations, and its target is not a single state "
                              "of the output",
                              s->text);
        reinits++;
    }
    if (others > 0)
        return mdae_diags_add(x->warnings, MDAE_SEV_WARNING, w->where,
                              "the when-clause 'when %s' is left out of the output: it "
                              "assigns discrete variables, which RIMIS does not carry",
                              w->text);
    if (reinits == 0)
        return MDAE_OK;
    mdae_buf_puts(&x->whens, "  when ");
    mdae_buf_puts(&x->whens, w->text);
    mdae_buf_puts(&x->whens, " then\n");
    for (uint32_t i = ev + 1; i < m->n_events; i++)
        if (m->events[i].parent == (long)ev && m->events[i].kind == MEL_EV_REINIT) {
            mdae_buf_puts(&x->whens, "    ");
            mdae_buf_puts(&x->whens, m->events[i].text);
            mdae_buf_puts(&x->whens, ";\n");
        }
    mdae_buf_puts(&x->whens, "  end when;\n");
    x->out->n_whens++;
    return MDAE_OK;
}

static int carry_text_whens(mcx *x)
{
    const mel_model *m = x->m;
    for (uint32_t i = 0; i < m->n_events && !x->refused; i++) {
        if (m->events[i].kind != MEL_EV_WHEN || m->events[i].text == NULL)
            continue;
        bool modelled = false;
        for (uint32_t w = 0; w < m->n_whens && !modelled; w++)
            modelled = same_range(m->whens[w].where, m->events[i].where);
        if (modelled)
            continue;
        int rc = carry_text_when(x, i);
        if (rc != MDAE_OK)
            return rc;
    }
    return MDAE_OK;
}

/* ---- Entry points ----------------------------------------------------------- */

/* rimis_options.accept_jumps: the refusals check_changes made (in
 * refusals) become warnings, and the output copies the states. */
static int accept_jumps(mcx *x, const mdae_diags *refusals)
{
    for (size_t i = 0; i < refusals->count; i++) {
        const mdae_diag *d = &refusals->items[i];
        int rc = mdae_diags_add(x->warnings, MDAE_SEV_WARNING, d->where,
                                "%s -- accepted as asked (accept_jumps): the output copies "
                                "the states across this change",
                                d->message);
        if (rc != MDAE_OK)
            return rc;
    }
    x->refused = false;
    return MDAE_OK;
}

int rimis__mode_changes(const mel_model *m, const sa_result *r, const cdg_graph *g,
                        const rimis__naming *nm, const rimis_options *opt, fx_pool *pool,
                        rimis__changes *out, mdae_diags *warnings, mdae_diags *diags)
{
    (void)g;
    if (m == NULL || r == NULL || nm == NULL || pool == NULL || out == NULL || nm->source_name == NULL ||
        nm->factored == NULL || nm->state_replicates == NULL)
        return MDAE_E_INVAL;
    memset(out, 0, sizeof *out);
    /* the when-clauses are in the model: opt's source text is not needed */
    bool accept = opt != NULL && opt->accept_jumps;
    mdae_diags refusals;
    mdae_diags_init(&refusals);
    mcx x = {.m = m, .nm = nm, .pool = pool, .out = out, .warnings = warnings,
             .diags = accept ? &refusals : diags};
    int rc = check_changes(&x, r);
    if (rc == MDAE_OK && accept && x.refused)
        rc = accept_jumps(&x, &refusals);
    mdae_diags_close(&refusals);
    x.diags = diags;
    mdae_free(x.example_any);
    mdae_free(x.example_rejected);
    mdae_free(x.example_not_done);
    if (rc == MDAE_OK && !x.refused)
        rc = new_states(&x);
    if (rc == MDAE_OK)
        rc = carry_whens(&x);
    if (rc == MDAE_OK)
        rc = carry_text_whens(&x);
    if (rc == MDAE_OK && (x.whens.oom || fx_pool_failed(pool)))
        rc = MDAE_E_NOMEM;
    if (rc == MDAE_OK && x.refused)
        rc = MDAE_E_MODEL;
    if (rc != MDAE_OK) {
        mdae_free(x.whens.p);
        mdae_free(out->resets);
        memset(out, 0, sizeof *out);
        return rc;
    }
    out->whens = x.whens.p; /* NULL when none */
    return MDAE_OK;
}

void rimis__changes_close(rimis__changes *ch)
{
    if (ch == NULL)
        return;
    mdae_free(ch->resets);
    mdae_free(ch->whens);
    memset(ch, 0, sizeof *ch);
}
