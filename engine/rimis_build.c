/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/rimis_build.c -- rimis_build (engine/rimis.h): the entry point,
 * the conditions of the blocks and their writers, and the order of the
 * construction's steps; rimis_result_free and the kinds' names.
 *
 * The steps, inside one sa_ctx over the analysis (sa__run_on):
 *  1. refuse singular valid modes (a located error with their formula);
 *  2. the blocks' conditions: guard & ok, equal sets sharing one
 *     rimis_cond (ids 1, 2, ... in block order; true has none);
 *  3. the writers of each variable (blocks writing it, in block order);
 *  4. the source variables V(u, 0), in declaration order, then each
 *     block's equations (rimis_eqs.c), the mode definitions;
 *  5. the mode changes (rimis_changes.c, rimis_mc.c): refusals, the
 *     source's when-clauses; then the definitions of every value declared
 *     on the way (rimis_eqs.c), the resets onto the reinitialisations, and
 *     the definitions of what those declared;
 *  6. the text (rimis_print.c).
 * rimis_result.n_replicates counts the replicates and the read replicates
 * (RIMIS_V_REPLICATE and RIMIS_V_READ).
 * Names, equations and text are deterministic: every loop runs in block,
 * variable or declaration order, never over a hash table's order.
 */
#include "rimis_core.h"

#include <stdarg.h>
#include <string.h>

/* ---- Helpers shared by the core's files ---------------------------------- */

_Noreturn void rc__oom(rc_build *b)
{
    sa__fail(b->c, MDAE_E_NOMEM);
}

void *rc__push(rc_build *b, rc_vec *v, size_t elem)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 16;
        void *p = sa__alloc_raw(b->c, cap * elem);
        if (v->n > 0)
            memcpy(p, v->p, v->n * elem);
        v->p = p;
        v->cap = cap;
    }
    void *slot = (char *)v->p + v->n++ * elem;
    memset(slot, 0, elem);
    return slot;
}

void rc__refuse(rc_build *b, mdae_range where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = mdae_vasprintf(fmt, ap);
    va_end(ap);
    if (s == NULL)
        rc__oom(b);
    int rc = mdae_diags_add(b->diags, MDAE_SEV_ERROR, where, "%s", s);
    mdae_free(s);
    if (rc != MDAE_OK)
        rc__oom(b);
    b->refused = true;
}

const fx_node *rc__cond_expr(rc_build *b, BDD lo, BDD hi)
{
    size_t mark = sa__mark(b->c);
    const fx_node *e = rimis__cond_fx(b->c, b->r, b->pool, lo, hi);
    sa__release(b->c, mark);
    if (e == NULL)
        rc__oom(b);
    const char *why = NULL;
    const fx_node *named = rc__rename(b, e, UINT32_MAX, &why);
    if (named != NULL)
        return named;
    static const mdae_range nowhere;
    rc__refuse(b, nowhere, "RIMIS cannot print a condition: %s", why != NULL ? why : "?");
    named = fx_bool(b->pool, true, nowhere);
    if (named == NULL)
        rc__oom(b);
    return named;
}

/* ---- Conditions -------------------------------------------------------------- */

static long find_cond(const rc_build *b, BDD q)
{
    for (uint32_t k = 0; k < b->res->n_conds; k++)
        if (b->cond_bdd[k] == q)
            return (long)k;
    return -1;
}

static long add_cond(rc_build *b, BDD q)
{
    rimis_result *res = b->res;
    if (res->n_conds == b->cap_conds) {
        size_t cap = b->cap_conds ? 2 * b->cap_conds : 8;
        rimis_cond *p = mdae_realloc(res->conds, cap * sizeof *p);
        if (p == NULL)
            rc__oom(b);
        res->conds = p;
        BDD *s = sa__slots(b->c, cap);
        for (uint32_t k = 0; k < res->n_conds; k++)
            sa__put(&s[k], b->cond_bdd[k]);
        b->cond_bdd = s;
        const fx_node **f = sa__alloc(b->c, cap * sizeof *f);
        if (res->n_conds > 0)
            memcpy(f, b->cond_fx, res->n_conds * sizeof *f);
        b->cond_fx = f;
        b->cap_conds = cap;
    }
    uint32_t k = res->n_conds;
    memset(&res->conds[k], 0, sizeof res->conds[k]);
    res->conds[k].id = k + 1;
    res->n_conds++;
    sa__put(&b->cond_bdd[k], q);
    return (long)k;
}

/* The exact sets, the texts (minimised with the invalid and singular
 * modes as don't-cares) and each block's condition. */
static void conditions(rc_build *b)
{
    const sa_result *r = b->r;
    b->bcond = sa__alloc(b->c, (b->nb + 1) * sizeof *b->bcond);
    b->bq = sa__slots(b->c, b->nb + 1);
    for (uint32_t k = 0; k < b->nb; k++) {
        sa__put(&b->bq[k], sa__and(b->g->bguard[k], r->ok));
        if (sa__diff(r->ok, b->bq[k]) == bddfalse) {
            b->bcond[k] = -1;
            continue;
        }
        long ci = find_cond(b, b->bq[k]);
        b->bcond[k] = ci >= 0 ? ci : add_cond(b, b->bq[k]);
    }
    sa__care care;
    sa__care_init(b->c, r, r->chi_m, &care);
    for (uint32_t k = 0; k < b->res->n_conds; k++) {
        BDD q = b->cond_bdd[k];
        b->cond_fx[k] = rc__cond_expr(b, q, sa__tmp(b->c, sa__or(q, sa__diff(bddtrue, r->ok))));
        sa__set_of_care(b->c, r, q, &care, &b->res->conds[k].modes);
    }
}

/* ---- Writers ---------------------------------------------------------------- */

static void writers(rc_build *b)
{
    uint32_t nv = b->m->n_variables;
    b->wfirst = sa__alloc(b->c, (nv + 2) * sizeof *b->wfirst);
    b->maxk = sa__alloc(b->c, (nv + 1) * sizeof *b->maxk);
    for (uint32_t u = 0; u < nv; u++)
        b->maxk[u] = -1;
    size_t total = 0;
    for (uint32_t k = 0; k < b->nb; k++)
        for (size_t j = 0; j < b->blk[k].n_unknowns; j++) {
            b->wfirst[b->blk[k].unknowns[j].index + 1]++;
            total++;
        }
    for (uint32_t u = 0; u < nv; u++)
        b->wfirst[u + 1] += b->wfirst[u];
    b->w = sa__alloc(b->c, (total + 1) * sizeof *b->w);
    uint32_t *fill = sa__alloc(b->c, (nv + 1) * sizeof *fill);
    for (uint32_t k = 0; k < b->nb; k++) /* block order within each variable */
        for (size_t j = 0; j < b->blk[k].n_unknowns; j++) {
            const cdg_item *it = &b->blk[k].unknowns[j];
            b->w[b->wfirst[it->index] + fill[it->index]++] = (rc_writer){k, it->order};
            if (it->order > b->maxk[it->index])
                b->maxk[it->index] = it->order;
        }
}

/* ---- The steps ----------------------------------------------------------------- */

/* Where a singular mode shows: the first equation overdetermined in some
 * singular mode, else the first variable underdetermined, else the first
 * equation. */
static mdae_range singular_where(const rc_build *b)
{
    const sa_result *r = b->r;
    const mel_model *m = b->m;
    for (uint32_t i = 0; i < r->n_eq && r->over != NULL; i++)
        if (r->over[i] != bddfalse)
            return m->equations[i].where;
    for (uint32_t j = 0; j < r->n_var && r->under != NULL; j++)
        if (r->under[j] != bddfalse)
            return m->variables[j].where;
    static const mdae_range nowhere;
    return m->n_equations > 0 ? m->equations[0].where : nowhere;
}

static bool refuse_singular(rc_build *b)
{
    if (b->r->singular == bddfalse)
        return false;
    sa__care care;
    sa__care_init(b->c, b->r, b->r->chi_m, &care);
    sa_set s = {0};
    sa__set_of_care(b->c, b->r, b->r->singular, &care, &s);
    rc__refuse(b, singular_where(b),
               "RIMIS needs a model nonsingular in every valid mode; it is structurally "
               "singular when %s",
               s.formula != NULL ? s.formula : "?");
    sa__set_close(&s);
    return true;
}

/* e is a Boolean expression Modelica can read as one (MEL also lets a mode
 * variable be defined by a Real, read only structurally: the building's
 * `outgoing[i] : boolean = mu_door[i]`). Calls and texts are given the
 * benefit of the doubt. */
static bool boolean_valued(const mel_model *m, const fx_node *e)
{
    switch ((fx_op)e->op) {
    case FX_BOOL: case FX_MODE: case FX_LT: case FX_LE: case FX_GT: case FX_GE:
    case FX_EQ: case FX_NE: case FX_NOT: case FX_AND: case FX_OR: case FX_OPAQUE:
        return true;
    case FX_KNOWN:
        return m->knowns[e->index].kind == MEL_KNOWN_BOOLEAN;
    case FX_IF:
        return boolean_valued(m, e->kids[1]) && boolean_valued(m, e->kids[2]);
    case FX_PRE: case FX_LAST: case FX_NEXT:
        return boolean_valued(m, e->kids[0]);
    case FX_CALL:
        return e->fn == FX_FN_UNKNOWN ||
               ((e->fn == FX_FN_NOEVENT || e->fn == FX_FN_SMOOTH) &&
                boolean_valued(m, e->kids[e->n - 1]));
    default:
        return false;
    }
}

/* e reads nothing that changes in time: numbers and known quantities
 * only, which a Modelica tool evaluates once. */
static bool constant(const fx_node *e)
{
    switch ((fx_op)e->op) {
    case FX_VAR: case FX_TIME: case FX_MODE: case FX_OPAQUE: case FX_PRE: case FX_LAST:
    case FX_NEXT:
        return false;
    case FX_CALL:
        if (e->fn == FX_FN_UNKNOWN)
            return false;
        break;
    default:
        break;
    }
    for (uint32_t i = 0; i < e->n; i++)
        if (!constant(e->kids[i]))
            return false;
    return true;
}

/* A mode variable whose definition is a Real expression is printed as a
 * free input, with a warning: Modelica cannot read `b = r` for a Real r,
 * and `r > 0` would be a meaning the source does not give. So is one whose
 * definition is constant (MEL's stand-in `time : real = 0.0` in the
 * clutch's `gamma = time >= t1 & time <= t2`): MEL reads definitions only
 * structurally, so every mode stays valid there, while a Modelica tool
 * would fix the mode once and for all. */
static bool printable_definition(rc_build *b, uint32_t k)
{
    const mel_mode *g = &b->m->modes[k];
    bool real = !boolean_valued(b->m, g->def);
    if (!real && !(b->m->modelica == false && constant(g->def)))
        return true;
    const mdae_diags *w = &b->res->warnings; /* once per declaration */
    if (w->count > 0 && w->items[w->count - 1].where.start.line == g->where.start.line &&
        w->items[w->count - 1].where.start.col == g->where.start.col)
        return false;
    if (mdae_diags_add(&b->res->warnings, MDAE_SEV_WARNING, g->where,
                       "RIMIS: the definition of mode variable '%s' %s: it is printed as "
                       "a free input, and so are the other instances of its declaration%s",
                       g->name,
                       real ? "is a Real expression, which Modelica cannot read as a Boolean"
                            : "reads only known quantities, which would fix the mode in "
                              "Modelica while MEL lets it change",
                       real ? " (give it a relation, such as 'e > 0', to keep it)" : "") !=
        MDAE_OK)
        rc__oom(b);
    return false;
}

static void mode_definitions(rc_build *b)
{
    const mel_model *m = b->m;
    b->mode_def = sa__alloc(b->c, (m->n_modes + 1) * sizeof *b->mode_def);
    for (uint32_t k = 0; k < m->n_modes; k++) {
        if (m->modes[k].def == NULL || !printable_definition(b, k))
            continue;
        const char *why = "it differentiates what cannot be";
        int err = MDAE_OK;
        /* every der(a) expanded (fx_dt at order 0), incidences kept */
        const fx_node *def = fx_dt_keep(b->pool, m->modes[k].def, 0, &err);
        if (def == NULL && err == MDAE_E_NOMEM)
            rc__oom(b);
        b->mode_def[k] = def != NULL ? rc__rename(b, def, UINT32_MAX, &why) : NULL;
        if (b->mode_def[k] == NULL)
            rc__refuse(b, m->modes[k].where, "RIMIS cannot print the definition of '%s': %s",
                       m->modes[k].name, why != NULL ? why : "?");
    }
}

static void close_changes(void *arg)
{
    rimis__changes_close(arg);
}

static void run(sa_ctx *c, void *arg)
{
    rc_build *b = arg;
    b->c = c;
    if (refuse_singular(b))
        return;
    b->nb = (uint32_t)cdg_graph_n_blocks(b->g);
    b->blk = b->g->blocks;
    rc__names_init(b);
    conditions(b);
    writers(b);
    for (uint32_t u = 0; u < b->m->n_variables; u++)
        rc__value(b, u, 0);
    for (uint32_t k = 0; k < b->nb; k++)
        rc__block_equations(b, k);
    mode_definitions(b);
    if (b->refused)
        return;
    rimis__changes *ch = sa__alloc(c, sizeof *ch);
    sa__push_cleanup(c, close_changes, ch);
    rc__mode_changes(b, ch);
    if (b->refused)
        return;
    rc__define_values(b, 0);
    uint32_t n_vars = b->res->n_vars;
    rc__apply_resets(b, ch);
    rc__define_values(b, n_vars); /* what the resets' values declared */
    if (b->refused)
        return;
    b->whens = ch->whens;
    rc__print(b);
}

static int check_args(const mel_model *m, const sa_result *r, const cdg_graph *g,
                      rimis_result **out)
{
    if (m == NULL || r == NULL || g == NULL || out == NULL || r->m != m || g->r != r)
        return MDAE_E_INVAL;
    if (!sa__running())
        return MDAE_E_STATE;
    if (mel_model_exprs(m) == NULL)
        return MDAE_E_INVAL; /* expressions not kept: nothing to print */
    return MDAE_OK;
}

int rimis_build(const mel_model *m, const sa_result *r, const cdg_graph *g,
                const rimis_options *opt, rimis_result **out, mdae_diags *diags)
{
    int rc = check_args(m, r, g, out);
    if (rc != MDAE_OK)
        return rc;
    rimis_options defaults = {0};
    rc_build b = {.m = m, .r = r, .g = g, .opt = opt != NULL ? opt : &defaults, .diags = diags};
    b.res = mdae_calloc(1, sizeof *b.res);
    b.pool = fx_pool_new();
    if (b.res == NULL || b.pool == NULL) {
        mdae_free(b.res);
        fx_pool_free(b.pool);
        return MDAE_E_NOMEM;
    }
    mdae_diags_init(&b.res->warnings);
    rc = sa__run_on(r, NULL, 0, run, &b);
    fx_pool_free(b.pool);
    if (rc == MDAE_OK && b.refused)
        rc = MDAE_E_MODEL;
    if (rc != MDAE_OK) {
        rimis_result_free(b.res);
        return rc;
    }
    *out = b.res;
    return MDAE_OK;
}

void rimis_result_free(rimis_result *res)
{
    if (res == NULL)
        return;
    mdae_free(res->text);
    for (uint32_t k = 0; k < res->n_conds; k++) {
        mdae_free(res->conds[k].text);
        sa__set_close(&res->conds[k].modes);
    }
    mdae_free(res->conds);
    for (uint32_t k = 0; k < res->n_vars; k++)
        mdae_free(res->vars[k].name);
    mdae_free(res->vars);
    mdae_free(res->eqs);
    for (uint32_t k = 0; k < res->n_groups; k++)
        mdae_free(res->groups[k].eqs);
    mdae_free(res->groups);
    mdae_diags_close(&res->warnings);
    mdae_free(res);
}

const char *rimis_eq_kind_name(rimis_eq_kind k)
{
    switch (k) {
    case RIMIS_EQ_MODE: return "mode";
    case RIMIS_EQ_DIFF: return "diff";
    case RIMIS_EQ_MULTI: return "multi";
    case RIMIS_EQ_BLOCK: return "block";
    case RIMIS_EQ_REINIT: return "reinit";
    case RIMIS_EQ_WHEN: return "when";
    case RIMIS_EQ_ASSERT: return "assert";
    }
    return "?";
}

const char *rimis_var_kind_name(rimis_var_kind k)
{
    switch (k) {
    case RIMIS_V_SOURCE: return "source";
    case RIMIS_V_DUMMY: return "dummy";
    case RIMIS_V_REPLICATE: return "replicate";
    case RIMIS_V_READ: return "read";
    }
    return "?";
}
