/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/rimis_changes.c -- step 6 of RIMIS (engine/rimis.h) on the core's
 * side: what rimis__mode_changes (rimis_mc.c) is told about the output's
 * names (rimis__naming: V(u, n) declared on demand, whether it is
 * factored, the state replicates of (u, n)), and what the core does with
 * its answer (rc__mode_changes):
 *  - a reset entering `into` of (u, n): a factored V(u, n) gets its own
 *    reinitialisation `when into then reinit(V, value)`; a state replicate
 *    whose condition is the set `into` (equal on the valid nonsingular
 *    modes) has the value replace the copy `pre(V(u, n))` of its
 *    reinitialisation; otherwise the copy stays and a warning says so;
 *  - the source's when-clauses, as rimis_mc.c prints them, kept for the
 *    text (rimis_print.c).
 */
#include "rimis_core.h"

#include <string.h>

/* ---- rimis__naming -------------------------------------------------------- */

static const char *source_name(void *ctx, uint32_t var, int order)
{
    rc_build *b = ctx;
    return b->res->vars[rc__value(b, var, order)].name;
}

static bool factored(void *ctx, uint32_t var, int order)
{
    const rc_build *b = ctx;
    return var < b->m->n_variables && rc__class(b, var, order, NULL) == RC_FACTORED;
}

static const char *const *state_replicates(void *ctx, uint32_t var, int order, size_t *n_out)
{
    rc_build *b = ctx;
    *n_out = 0;
    if (var >= b->m->n_variables || rc__class(b, var, order, NULL) != RC_REPL)
        return NULL;
    rc__replicates(b, var, order);
    uint32_t n = b->wfirst[var + 1] - b->wfirst[var];
    const char **names = sa__alloc(b->c, (n + 1) * sizeof *names);
    for (uint32_t i = b->wfirst[var]; i < b->wfirst[var + 1]; i++)
        if (b->w[i].k > order)
            names[(*n_out)++] = b->res->vars[rc__own_name(b, b->w[i].block, var, order)].name;
    return names;
}

/* ---- Resets ------------------------------------------------------------------ */

static void warn(rc_build *b, mdae_range where, const char *what, const char *name, int order)
{
    if (mdae_diags_add(&b->res->warnings, MDAE_SEV_WARNING, where,
                       "RIMIS: the restart value of '%s' (derivative %d) %s", name, order,
                       what) != MDAE_OK)
        rc__oom(b);
}

/* The reinitialisation of state replicate v, made by rc__define_values. */
static rc_reinit *reinit_of(rc_build *b, uint32_t v)
{
    rc_reinit *ri = b->reinit.p;
    for (size_t k = 0; k < b->reinit.n; k++)
        if (ri[k].var == v)
            return &ri[k];
    return NULL;
}

static bool reset_replicates(rc_build *b, const rimis__reset *rs, const fx_node *value)
{
    bool decided = false;
    size_t mark = sa__mark(b->c);
    BDD into = rimis__cond_bdd(b->c, b->r, rs->into, &decided);
    into = decided ? sa__tmp(b->c, sa__and(into, b->r->ok)) : bddfalse;
    bool done = false;
    for (uint32_t i = b->wfirst[rs->var]; decided && i < b->wfirst[rs->var + 1]; i++) {
        if (b->w[i].k <= rs->order || b->bq[b->w[i].block] != into)
            continue;
        rc_reinit *ri = reinit_of(b, rc__own_name(b, b->w[i].block, rs->var, rs->order));
        if (ri != NULL) {
            ri->value = value;
            done = true;
        }
    }
    sa__release(b->c, mark);
    return done;
}

static void apply_reset(rc_build *b, const rimis__reset *rs)
{
    const mel_variable *v = &b->m->variables[rs->var];
    const char *why = NULL;
    const fx_node *value = rc__rename(b, rs->value, UINT32_MAX, &why);
    const fx_node *into = value != NULL ? rc__rename(b, rs->into, UINT32_MAX, &why) : NULL;
    if (into == NULL) {
        warn(b, v->where, "cannot be printed: the value before the change is copied", v->name,
             rs->order);
        return;
    }
    if (rc__class(b, rs->var, rs->order, NULL) == RC_FACTORED) {
        rc_reinit *ri = rc__push(b, &b->reinit, sizeof *ri);
        ri->var = rc__value(b, rs->var, rs->order);
        ri->cond = into;
        ri->value = value;
        return;
    }
    if (!reset_replicates(b, rs, value))
        warn(b, v->where, "enters modes no block holds exactly: the value before is copied",
             v->name, rs->order);
}

void rc__mode_changes(rc_build *b, rimis__changes *ch)
{
    rimis__naming nm = {.ctx = b, .source_name = source_name, .factored = factored,
                        .state_replicates = state_replicates};
    int rc = rimis__mode_changes(b->m, b->r, b->g, &nm, b->opt, b->pool, ch, &b->res->warnings,
                                 b->diags);
    sa__enter(b->c); /* its nested analyses disarmed this run */
    if (rc == MDAE_E_MODEL) {
        b->refused = true;
        return;
    }
    if (rc != MDAE_OK)
        sa__fail(b->c, rc);
}

void rc__apply_resets(rc_build *b, const rimis__changes *ch)
{
    for (size_t k = 0; k < ch->n_resets; k++)
        if (ch->resets[k].var < b->m->n_variables)
            apply_reset(b, &ch->resets[k]);
}
