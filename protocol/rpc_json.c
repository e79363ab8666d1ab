/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_json.c -- build the JSON form of a model structure, of an
 * analysis report and of diagnostics. See protocol/rpc_json.h for the shapes
 * and the promises.
 *
 * Every builder works bottom-up: a child is complete before it is attached,
 * and a failed attach deletes the child, so on MDAE_E_NOMEM only the root
 * needs deleting (cJSON 1.7's cJSON_AddItemToObject does not consume the
 * item when it fails, hence attach()).
 */
#include "rpc_json.h"

#include <stdio.h>
#include <string.h>

static bool hooks_installed;

void rpc_json_init(void)
{
    if (hooks_installed)
        return;
    /* cJSON falls back to malloc+memcpy for realloc when the hooks are not
     * libc's: slower printing, but every byte goes through mdae_malloc. */
    cJSON_Hooks hooks = {mdae_malloc, mdae_free};
    cJSON_InitHooks(&hooks);
    hooks_installed = true;
}

/* ---- Small helpers: each returns false on OOM ---------------------------- */

/* Attach `child` to `obj` under `key` (or append to an array when key is
 * NULL); on failure child is deleted, so the caller only cleans obj. */
static bool attach(cJSON *obj, const char *key, cJSON *child)
{
    if (child == NULL)
        return false;
    bool ok = key ? cJSON_AddItemToObject(obj, key, child) : cJSON_AddItemToArray(obj, child);
    if (!ok)
        cJSON_Delete(child);
    return ok;
}

static bool add_str(cJSON *obj, const char *key, const char *s)
{
    return cJSON_AddStringToObject(obj, key, s) != NULL;
}

static bool add_num(cJSON *obj, const char *key, double v)
{
    return cJSON_AddNumberToObject(obj, key, v) != NULL;
}

static bool add_bool(cJSON *obj, const char *key, bool v)
{
    return cJSON_AddBoolToObject(obj, key, v) != NULL;
}

/* "guard": formula of g, printed by the front-end. */
static bool add_guard(cJSON *obj, const mel_model *m, const mel_guard *g)
{
    char *f = mel_guard_format(m, g);
    if (f == NULL)
        return false;
    bool ok = add_str(obj, "guard", f);
    mdae_free(f);
    return ok;
}

static cJSON *pos_json(mdae_pos p)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    if (!add_num(o, "line", p.line) || !add_num(o, "col", p.col) ||
        !add_num(o, "offset", p.offset)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *range_json(mdae_range r)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    if (!attach(o, "start", pos_json(r.start)) || !attach(o, "end", pos_json(r.end))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* "line" and "col" of the start of r: the short location of declarations. */
static bool add_linecol(cJSON *obj, mdae_range r)
{
    return add_num(obj, "line", r.start.line) && add_num(obj, "col", r.start.col);
}

/* ---- Cubes and sets --------------------------------------------------------- */

int rpc_json_cubes(uint32_t n_modes, const char *const *names, size_t n_cubes,
                   const signed char *cubes, cJSON **out)
{
    if (out == NULL || (n_cubes > 0 && cubes == NULL) || (n_modes > 0 && names == NULL))
        return MDAE_E_INVAL;
    for (size_t c = 0; c < n_cubes; c++)
        for (uint32_t k = 0; k < n_modes; k++)
            if (cubes[c * n_modes + k] != -1 && names[k] == NULL)
                return MDAE_E_INVAL;
    rpc_json_init();
    cJSON *arr = cJSON_CreateArray();
    if (arr == NULL)
        return MDAE_E_NOMEM;
    for (size_t c = 0; c < n_cubes; c++) {
        cJSON *cube = cJSON_CreateObject();
        if (!attach(arr, NULL, cube))
            goto nomem;
        const signed char *row = cubes + c * n_modes;
        for (uint32_t k = 0; k < n_modes; k++) {
            /* Only 1 and 0 are constraints; anything else is don't-care. */
            if (row[k] == 1 || row[k] == 0) {
                if (!add_bool(cube, names[k], row[k] == 1))
                    goto nomem;
            }
        }
    }
    *out = arr;
    return MDAE_OK;
nomem:
    cJSON_Delete(arr);
    return MDAE_E_NOMEM;
}

/* Add "guard" and "cubes" of a report set to obj. MDAE_E_NOMEM/INVAL. */
static int add_set(cJSON *obj, const sa_report *rep, const sa_set *s)
{
    const char *formula = s->formula;
    if (formula == NULL) {
        /* An engine may leave the formula of the empty set unset. */
        if (s->n_cubes != 0)
            return MDAE_E_INVAL;
        formula = "false";
    }
    if (!add_str(obj, "guard", formula))
        return MDAE_E_NOMEM;
    cJSON *cubes = NULL;
    int rc = rpc_json_cubes(rep->n_modes, rep->mode_names, s->n_cubes, s->cubes, &cubes);
    if (rc < 0)
        return rc;
    return attach(obj, "cubes", cubes) ? MDAE_OK : MDAE_E_NOMEM;
}

/* ---- Structure ----------------------------------------------------------------- */

static cJSON *structure_equation(const mel_model *m, const mel_equation *e)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    if (!add_str(o, "name", e->name) || !add_guard(o, m, e->guard) ||
        !attach(o, "range", range_json(e->where)))
        goto fail;
    cJSON *incs = cJSON_CreateArray();
    if (!attach(o, "incidences", incs))
        goto fail;
    for (uint32_t i = 0; i < e->n_incs; i++) {
        const mel_incidence *inc = &e->incs[i];
        cJSON *io = cJSON_CreateObject();
        if (!attach(incs, NULL, io))
            goto fail;
        const char *vname = inc->var < m->n_variables ? m->variables[inc->var].name : "?";
        if (!add_str(io, "variable", vname))
            goto fail;
        cJSON *cases = cJSON_CreateArray();
        if (!attach(io, "cases", cases))
            goto fail;
        for (uint32_t c = 0; c < inc->n_cases; c++) {
            const mel_order_case *oc = &inc->cases[c];
            cJSON *co = cJSON_CreateObject();
            if (!attach(cases, NULL, co) || !add_num(co, "order", oc->order) ||
                !add_guard(co, m, oc->guard) || !add_linecol(co, oc->where))
                goto fail;
        }
    }
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

int rpc_json_structure(const mel_model *m, cJSON **out)
{
    if (m == NULL || out == NULL)
        return MDAE_E_INVAL;
    rpc_json_init();
    cJSON *root = cJSON_CreateObject();
    if (root == NULL)
        return MDAE_E_NOMEM;

    cJSON *modes = cJSON_CreateArray();
    if (!attach(root, "modeVariables", modes))
        goto nomem;
    for (uint32_t k = 0; k < m->n_modes; k++) {
        cJSON *o = cJSON_CreateObject();
        if (!attach(modes, NULL, o) || !add_str(o, "name", m->modes[k].name) ||
            !add_linecol(o, m->modes[k].where))
            goto nomem;
    }

    cJSON *invs = cJSON_CreateArray();
    if (!attach(root, "invariants", invs))
        goto nomem;
    for (uint32_t k = 0; k < m->n_invariants; k++) {
        cJSON *o = cJSON_CreateObject();
        if (!attach(invs, NULL, o) || !add_guard(o, m, m->invariants[k].cond) ||
            !add_linecol(o, m->invariants[k].where))
            goto nomem;
    }

    cJSON *eqs = cJSON_CreateArray();
    if (!attach(root, "equations", eqs))
        goto nomem;
    for (uint32_t k = 0; k < m->n_equations; k++)
        if (!attach(eqs, NULL, structure_equation(m, &m->equations[k])))
            goto nomem;

    cJSON *vars = cJSON_CreateArray();
    if (!attach(root, "variables", vars))
        goto nomem;
    for (uint32_t k = 0; k < m->n_variables; k++) {
        cJSON *o = cJSON_CreateObject();
        if (!attach(vars, NULL, o) || !add_str(o, "name", m->variables[k].name) ||
            !add_guard(o, m, m->variables[k].guard) || !add_linecol(o, m->variables[k].where))
            goto nomem;
    }

    cJSON *counts = cJSON_CreateObject();
    if (!attach(root, "counts", counts) || !add_num(counts, "equations", m->n_equations) ||
        !add_num(counts, "variables", m->n_variables) ||
        !add_num(counts, "modeVariables", m->n_modes) ||
        !add_num(counts, "incidences", (double)m->n_edges) ||
        !add_num(counts, "invariants", m->n_invariants) ||
        !add_num(counts, "parameters", m->n_params) ||
        !add_num(counts, "integers", m->n_integers))
        goto nomem;

    *out = root;
    return MDAE_OK;
nomem:
    cJSON_Delete(root);
    return MDAE_E_NOMEM;
}

/* ---- Report ---------------------------------------------------------------------- */

static int report_items(cJSON *root, const char *key, const sa_report *rep,
                        const sa_item *items, uint32_t n)
{
    cJSON *arr = cJSON_CreateArray();
    if (!attach(root, key, arr))
        return MDAE_E_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        const sa_item *it = &items[i];
        cJSON *o = cJSON_CreateObject();
        if (!attach(arr, NULL, o) || !add_str(o, "name", it->name ? it->name : "?"))
            return MDAE_E_NOMEM;
        int rc = add_set(o, rep, &it->active);
        if (rc < 0)
            return rc;
        cJSON *offs = cJSON_CreateArray();
        if (!attach(o, "offset", offs))
            return MDAE_E_NOMEM;
        for (size_t k = 0; k < it->n_offsets; k++) {
            cJSON *oc = cJSON_CreateObject();
            if (!attach(offs, NULL, oc) || !add_num(oc, "value", it->offsets[k].value))
                return MDAE_E_NOMEM;
            rc = add_set(oc, rep, &it->offsets[k].modes);
            if (rc < 0)
                return rc;
        }
    }
    return MDAE_OK;
}

int rpc_json_report(const sa_report *rep, cJSON **out)
{
    if (rep == NULL || out == NULL)
        return MDAE_E_INVAL;
    if ((rep->n_equations > 0 && rep->equations == NULL) ||
        (rep->n_variables > 0 && rep->variables == NULL) ||
        (rep->n_diagnostics > 0 && rep->diagnostics == NULL))
        return MDAE_E_INVAL;
    /* Validate diagnostics first, so a bad report fails before any work. */
    for (size_t k = 0; k < rep->n_diagnostics; k++) {
        const sa_diagnostic *dg = &rep->diagnostics[k];
        uint32_t limit = dg->kind == SA_DIAG_OVERDETERMINED ? rep->n_equations : rep->n_variables;
        if (dg->index >= limit)
            return MDAE_E_INVAL;
    }
    rpc_json_init();
    int rc = MDAE_E_NOMEM;
    cJSON *root = cJSON_CreateObject();
    if (root == NULL)
        return MDAE_E_NOMEM;

    cJSON *names = cJSON_CreateArray();
    if (!attach(root, "modeVariables", names))
        goto fail;
    for (uint32_t k = 0; k < rep->n_modes; k++) {
        const char *nm = rep->mode_names && rep->mode_names[k] ? rep->mode_names[k] : "?";
        if (!attach(names, NULL, cJSON_CreateString(nm)))
            goto fail;
    }
    if (!add_num(root, "validModes", rep->valid_modes) ||
        !add_str(root, "status", rep->singular ? "singular" : "nonsingular"))
        goto fail;
    cJSON *sing = cJSON_CreateObject();
    if (!attach(root, "singular", sing))
        goto fail;
    if ((rc = add_set(sing, rep, &rep->singular_modes)) < 0)
        goto fail;
    if ((rc = report_items(root, "equations", rep, rep->equations, rep->n_equations)) < 0)
        goto fail;
    if ((rc = report_items(root, "variables", rep, rep->variables, rep->n_variables)) < 0)
        goto fail;

    rc = MDAE_E_NOMEM;
    cJSON *diags = cJSON_CreateArray();
    if (!attach(root, "diagnostics", diags))
        goto fail;
    for (size_t k = 0; k < rep->n_diagnostics; k++) {
        const sa_diagnostic *dg = &rep->diagnostics[k];
        bool over = dg->kind == SA_DIAG_OVERDETERMINED;
        const char *nm = over ? rep->equations[dg->index].name : rep->variables[dg->index].name;
        cJSON *o = cJSON_CreateObject();
        if (!attach(diags, NULL, o) ||
            !add_str(o, "kind", over ? "overdetermined" : "underdetermined") ||
            !add_str(o, over ? "equation" : "variable", nm ? nm : "?"))
            goto fail;
        if ((rc = add_set(o, rep, &dg->modes)) < 0)
            goto fail;
        rc = MDAE_E_NOMEM;
    }
    *out = root;
    return MDAE_OK;
fail:
    cJSON_Delete(root);
    return rc;
}

/* ---- Diagnostics ----------------------------------------------------------------- */

static const char *severity_name(mdae_severity s)
{
    switch (s) {
    case MDAE_SEV_ERROR:
        return "error";
    case MDAE_SEV_WARNING:
        return "warning";
    case MDAE_SEV_NOTE:
        return "note";
    }
    return "error";
}

int rpc_json_diags(const mdae_diags *d, cJSON **out)
{
    if (d == NULL || out == NULL || (d->count > 0 && d->items == NULL))
        return MDAE_E_INVAL;
    rpc_json_init();
    cJSON *arr = cJSON_CreateArray();
    if (arr == NULL)
        return MDAE_E_NOMEM;
    for (size_t k = 0; k < d->count; k++) {
        const mdae_diag *dg = &d->items[k];
        cJSON *o = cJSON_CreateObject();
        if (!attach(arr, NULL, o) || !add_str(o, "severity", severity_name(dg->severity)) ||
            !add_str(o, "message", dg->message ? dg->message : ""))
            goto nomem;
        if (dg->where.start.line != 0 && !attach(o, "range", range_json(dg->where)))
            goto nomem;
    }
    if (d->dropped > 0) {
        char msg[64];
        snprintf(msg, sizeof msg, "%zu more diagnostics not shown", d->dropped);
        cJSON *o = cJSON_CreateObject();
        if (!attach(arr, NULL, o) || !add_str(o, "severity", "note") ||
            !add_str(o, "message", msg))
            goto nomem;
    }
    *out = arr;
    return MDAE_OK;
nomem:
    cJSON_Delete(arr);
    return MDAE_E_NOMEM;
}

/* ---- Printing ---------------------------------------------------------------------- */

int rpc_json_print(const cJSON *json, bool pretty, char **out)
{
    if (json == NULL || out == NULL)
        return MDAE_E_INVAL;
    rpc_json_init();
    char *s = pretty ? cJSON_Print(json) : cJSON_PrintUnformatted(json);
    if (s == NULL)
        return MDAE_E_NOMEM;
    *out = s; /* allocated through the hooks, i.e. by mdae_malloc */
    return MDAE_OK;
}
