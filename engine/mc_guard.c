/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mc_guard.c -- guard fixpoints (mc.h, mc_guard_fixpoints).
 *
 * RR-9459 section 5.2: a guard defined from the current value of a variable
 * that the guarded equations determine (model (19), gamma = [s <= 0]) is a
 * mixed logico-numerical fixpoint, with zero, one, several or infinitely
 * many solutions; the paper refuses such models and asks for the current
 * mode to be defined by left limits (gamma = [last(s) <= 0]). Structurally:
 * the mode variable g reads the current value of an unknown x (the front-end
 * records the first such read, mel_mode.reads_var), x is connected, in the
 * incidence graph over all modes, to an equation whose activity or
 * incidences depend on g, and x is not determined upstream of g: solvable
 * one unknown at a time from equations whose incidences depend on no mode
 * (the building's clock t, `der(t) = 1`, feeds `open = door(t)` without any
 * fixpoint). Connection is a coarse reading of "determine" (an equation of
 * x's component may fix x in some mode) and the upstream test removes what
 * causal chains clear; an algebraic loop upstream is still flagged (which
 * can only refuse more). This is what (19) and the Water Tank's
 * `bh = sh >= 0` need, and it never flags a guard that reads only
 * parameters, or unknowns of a part of the model g does not touch.
 */
#include "mc.h"

#include <string.h>

/* Union-find over equations then variables. */
static uint32_t uf_find(uint32_t *p, uint32_t x)
{
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}

/* Whether guard g mentions mode variable v; the walk is bounded (guards are
 * DAGs), and a guard too large to walk counts as mentioning v, which can
 * only make the check refuse more. */
static bool mentions(const mel_guard *g, uint32_t v, size_t *budget)
{
    if (g == NULL)
        return false;
    if (*budget == 0)
        return true;
    (*budget)--;
    switch (g->op) {
    case MEL_G_FALSE:
    case MEL_G_TRUE: return false;
    case MEL_G_VAR: return g->var == v;
    case MEL_G_NOT: return mentions(g->lhs, v, budget);
    case MEL_G_AND:
    case MEL_G_OR: return mentions(g->lhs, v, budget) || mentions(g->rhs, v, budget);
    }
    return false;
}

static bool equation_depends(const mel_equation *q, uint32_t v)
{
    size_t budget = 4096;
    if (mentions(q->guard, v, &budget))
        return true;
    for (uint32_t e = 0; e < q->n_incs; e++)
        for (uint32_t c = 0; c < q->incs[e].n_cases; c++)
            if (mentions(q->incs[e].cases[c].guard, v, &budget))
                return true;
    return false;
}

/* An equation with the same incidences in every mode (no guard, no
 * mode-dependent case): only such equations count as determining a value
 * upstream, since one active in some modes only (the building's
 * `mu_door = 0` when the door is closed) says nothing of the others. */
static bool unconditional(const mel_equation *q)
{
    if (q->guard->op != MEL_G_TRUE)
        return false;
    for (uint32_t e = 0; e < q->n_incs; e++)
        for (uint32_t c = 0; c < q->incs[e].n_cases; c++)
            if (q->incs[e].cases[c].guard->op != MEL_G_TRUE)
                return false;
    return true;
}

/* Variables determined upstream of mode variable g (see above): up[j]. */
static void upstream(const mel_model *m, uint32_t g, bool *up, bool *dep)
{
    memset(up, 0, m->n_variables * sizeof *up);
    for (uint32_t i = 0; i < m->n_equations; i++)
        dep[i] = equation_depends(&m->equations[i], g);
    bool changed = true;
    while (changed) {
        changed = false;
        for (uint32_t i = 0; i < m->n_equations; i++) {
            const mel_equation *q = &m->equations[i];
            if (dep[i] || !unconditional(q))
                continue;
            long left = -1;
            uint32_t n_left = 0;
            for (uint32_t e = 0; e < q->n_incs; e++)
                if (!up[q->incs[e].var]) {
                    left = q->incs[e].var;
                    n_left++;
                }
            if (n_left == 1) {
                up[left] = true;
                changed = true;
            }
        }
    }
}

/* Whether some mode variable reads the current value of an unknown
 * (mel_mode.reads_var in range): the others never flag, so a model
 * without one (the brake: open[i] reads last(fv[i])) needs neither the
 * union-find nor the upstream passes, each a pass over the whole model
 * (issue 40 item 5: an editor's every load). */
static bool mode_reads(const mel_model *m, uint32_t g)
{
    long x = m->modes[g].reads_var;
    return x >= 0 && (unsigned long)x < m->n_variables;
}

static bool some_mode_reads(const mel_model *m)
{
    for (uint32_t g = 0; g < m->n_modes; g++)
        if (mode_reads(m, g))
            return true;
    return false;
}

int mc_guard_fixpoints(const mel_model *m, mdae_diags *d, size_t *count)
{
    if (!some_mode_reads(m)) { /* the loop below would find nothing */
        *count = 0;
        return MDAE_OK;
    }
    size_t n = (size_t)m->n_equations + m->n_variables;
    uint32_t *p = mdae_malloc((n + 1) * sizeof *p);
    if (p == NULL)
        return MDAE_E_NOMEM;
    for (size_t k = 0; k < n; k++)
        p[k] = (uint32_t)k;
    for (uint32_t i = 0; i < m->n_equations; i++)
        for (uint32_t e = 0; e < m->equations[i].n_incs; e++) {
            uint32_t a = uf_find(p, i);
            uint32_t b = uf_find(p, m->n_equations + m->equations[i].incs[e].var);
            if (a != b)
                p[a] = b;
        }
    size_t found = 0;
    int rc = MDAE_OK;
    bool *up = mdae_calloc((size_t)m->n_variables + 1, sizeof *up);
    bool *dep = mdae_calloc((size_t)m->n_equations + 1, sizeof *dep);
    if (up == NULL || dep == NULL)
        rc = MDAE_E_NOMEM;
    for (uint32_t g = 0; g < m->n_modes && rc == MDAE_OK; g++) {
        if (!mode_reads(m, g))
            continue;
        long x = m->modes[g].reads_var;
        upstream(m, g, up, dep);
        if (up[x])
            continue;
        uint32_t comp = uf_find(p, m->n_equations + (uint32_t)x);
        long culprit = -1;
        for (uint32_t i = 0; i < m->n_equations && culprit < 0; i++)
            if (uf_find(p, i) == comp && dep[i])
                culprit = (long)i;
        if (culprit < 0)
            continue;
        found++;
        rc = mdae_diags_add(d, MDAE_SEV_ERROR, m->modes[g].reads_where,
                            "guard fixpoint: mode variable '%s' is defined from the current "
                            "value of '%s', which equations depending on '%s' determine "
                            "(e.g. '%s'); define it from the left limit instead: "
                            "last(%s) (Modelica: pre(%s)) (RR-9459 section 5.2)",
                            m->modes[g].name, m->variables[x].name, m->modes[g].name,
                            m->equations[culprit].name, m->variables[x].name,
                            m->variables[x].name);
    }
    mdae_free(p);
    mdae_free(up);
    mdae_free(dep);
    if (rc == MDAE_OK)
        *count = found;
    return rc;
}

int mc_guard_fixpoint_warnings(const mel_model *m, mdae_diags *d)
{
    if (m == NULL || m->n_modes == 0)
        return MDAE_OK;
    mdae_diags g;
    mdae_diags_init(&g);
    size_t n = 0;
    int rc = mc_guard_fixpoints(m, &g, &n);
    for (size_t k = 0; k < g.count && rc == MDAE_OK; k++)
        rc = mdae_diags_add(d, MDAE_SEV_WARNING, g.items[k].where,
                            "%s; so every mode change of the model is refused (mdae modechange)",
                            g.items[k].message ? g.items[k].message : "guard fixpoint");
    mdae_diags_close(&g);
    return rc;
}
