/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_rimis.c -- the JSON form of a RIMIS (rpc_rimis.h): the text
 * and its counts, the conditions with their modes, the output's real
 * variables and which source value each stands for, the block groups with
 * the lines of their equations, and the warnings.
 */
#include "rpc_rimis.h"

#include <string.h>

#include "rpc_json.h"

/* ---- Small helpers: each returns false on OOM (child deleted) ----------- */

static bool attach(cJSON *obj, const char *key, cJSON *child)
{
    if (child != NULL && cJSON_AddItemToObjectCS(obj, key, child))
        return true;
    cJSON_Delete(child);
    return false;
}

static bool append(cJSON *arr, cJSON *child)
{
    if (child != NULL && cJSON_AddItemToArray(arr, child))
        return true;
    cJSON_Delete(child);
    return false;
}

static cJSON *num(double v) { return cJSON_CreateNumber(v); }

/* A condition's id, or null for "every mode" (index -1). */
static cJSON *cond_id(const rimis_result *res, long cond)
{
    return cond >= 0 ? num(res->conds[cond].id) : cJSON_CreateNull();
}

static cJSON *index_or_null(long v) { return v >= 0 ? num((double)v) : cJSON_CreateNull(); }

/* ---- Validation: every index the encoders follow ----------------------- */

static bool cond_ok(const rimis_result *res, long cond)
{
    return cond >= -1 && cond < (long)res->n_conds;
}

static bool result_ok(const mel_model *m, const rimis_result *res)
{
    if ((res->n_conds > 0 && res->conds == NULL) || (res->n_vars > 0 && res->vars == NULL) ||
        (res->n_groups > 0 && res->groups == NULL) || (res->n_eqs > 0 && res->eqs == NULL))
        return false;
    for (uint32_t k = 0; k < res->n_vars; k++)
        if (res->vars[k].name == NULL || res->vars[k].var >= m->n_variables ||
            !cond_ok(res, res->vars[k].cond))
            return false;
    for (uint32_t k = 0; k < res->n_groups; k++) {
        const rimis_group *g = &res->groups[k];
        if (!cond_ok(res, g->cond) || (g->n_eqs > 0 && g->eqs == NULL))
            return false;
        for (uint32_t e = 0; e < g->n_eqs; e++)
            if (g->eqs[e] >= res->n_eqs)
                return false;
    }
    for (uint32_t k = 0; k < res->n_conds; k++)
        if (res->conds[k].text == NULL)
            return false;
    return true;
}

/* ---- The parts ----------------------------------------------------------- */

/* The name after `model ` on the first line starting with it ("" if none):
 * up to the end of the line or a blank, a quoted name whole. */
static cJSON *model_name_json(const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl != NULL ? nl : end;
        if (eol - p > 6 && memcmp(p, "model ", 6) == 0) {
            const char *s = p + 6, *e = s;
            if (*s == '\'') {
                const char *q = memchr(s + 1, '\'', (size_t)(eol - s - 1));
                e = q != NULL ? q + 1 : eol;
            } else {
                while (e < eol && *e != ' ' && *e != '\t' && *e != '\r')
                    e++;
            }
            char *name = mdae_strndup(s, (size_t)(e - s));
            cJSON *j = name != NULL ? cJSON_CreateString(name) : NULL;
            mdae_free(name);
            return j;
        }
        p = eol + 1;
    }
    return cJSON_CreateString("");
}

/* {"formula","cubes"} of a condition's modes. */
static cJSON *modes_json(const mel_model *m, const char *const *names, const sa_set *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *cubes = NULL;
    if (o == NULL ||
        !attach(o, "formula", cJSON_CreateString(s->formula != NULL ? s->formula : "false")) ||
        rpc_json_set_cubes(m->n_modes, names, s, &cubes) < 0 ||
        !attach(o, "cubes", cubes)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *conditions_json(const mel_model *m, const rimis_result *res)
{
    const char **names = mdae_calloc((size_t)m->n_modes + 1, sizeof *names);
    cJSON *a = names != NULL ? cJSON_CreateArray() : NULL;
    for (uint32_t k = 0; names != NULL && k < m->n_modes; k++)
        names[k] = m->modes[k].name;
    for (uint32_t k = 0; a != NULL && k < res->n_conds; k++) {
        const rimis_cond *c = &res->conds[k];
        cJSON *o = cJSON_CreateObject();
        if (!append(a, o) || !attach(o, "id", num(c->id)) ||
            !attach(o, "text", cJSON_CreateString(c->text)) ||
            !attach(o, "modes", modes_json(m, names, &c->modes))) {
            cJSON_Delete(a);
            a = NULL;
        }
    }
    mdae_free(names);
    return a;
}

static cJSON *variables_json(const mel_model *m, const rimis_result *res)
{
    cJSON *a = cJSON_CreateArray();
    for (uint32_t k = 0; a != NULL && k < res->n_vars; k++) {
        const rimis_var *v = &res->vars[k];
        cJSON *o = cJSON_CreateObject();
        if (!append(a, o) || !attach(o, "name", cJSON_CreateString(v->name)) ||
            !attach(o, "kind", cJSON_CreateString(rimis_var_kind_name(v->kind))) ||
            !attach(o, "source", cJSON_CreateString(m->variables[v->var].name)) ||
            !attach(o, "order", num(v->order)) || !attach(o, "condition", cond_id(res, v->cond)) ||
            !attach(o, "block", index_or_null(v->block))) {
            cJSON_Delete(a);
            a = NULL;
        }
    }
    return a;
}

/* The lines where a group's equations start, in text order. */
static cJSON *group_lines(const rimis_result *res, const rimis_group *g)
{
    cJSON *a = cJSON_CreateArray();
    for (uint32_t e = 0; a != NULL && e < g->n_eqs; e++)
        if (!append(a, num(res->eqs[g->eqs[e]].line))) {
            cJSON_Delete(a);
            a = NULL;
        }
    return a;
}

static cJSON *groups_json(const rimis_result *res)
{
    cJSON *a = cJSON_CreateArray();
    for (uint32_t k = 0; a != NULL && k < res->n_groups; k++) {
        const rimis_group *g = &res->groups[k];
        cJSON *o = cJSON_CreateObject();
        if (!append(a, o) || !attach(o, "block", num(g->block)) ||
            !attach(o, "condition", cond_id(res, g->cond)) ||
            !attach(o, "lines", group_lines(res, g))) {
            cJSON_Delete(a);
            a = NULL;
        }
    }
    return a;
}

int rpc_json_rimis(const mel_model *m, const rimis_result *res, cJSON **out)
{
    if (m == NULL || res == NULL || out == NULL || res->text == NULL || !result_ok(m, res))
        return MDAE_E_INVAL;
    rpc_json_init();
    cJSON *root = cJSON_CreateObject();
    cJSON *warnings = NULL;
    if (root == NULL || !attach(root, "name", model_name_json(res->text, res->text_len)) ||
        !attach(root, "text", cJSON_CreateString(res->text)) ||
        !attach(root, "lines", num(res->n_lines)) ||
        !attach(root, "replicates", num(res->n_replicates)) ||
        !attach(root, "multiplexers", num(res->n_multiplexers)) ||
        !attach(root, "reinits", num(res->n_reinits)) ||
        !attach(root, "conditions", conditions_json(m, res)) ||
        !attach(root, "variables", variables_json(m, res)) ||
        !attach(root, "groups", groups_json(res)) ||
        rpc_json_diags(&res->warnings, &warnings) < 0 || !attach(root, "warnings", warnings)) {
        cJSON_Delete(root);
        return MDAE_E_NOMEM;
    }
    *out = root;
    return MDAE_OK;
}

/* ---- The output model's name ------------------------------------------- */

static bool ident_char(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

const char *rpc_rimis_model_name(const char *file, char *buf, size_t size)
{
    static const char suffix[] = "_rimis";
    if (file == NULL || buf == NULL)
        return NULL;
    const char *base = strrchr(file, '/');
    base = base != NULL ? base + 1 : file;
    const char *dot = strrchr(base, '.');
    size_t n = dot != NULL && dot != base ? (size_t)(dot - base) : strlen(base);
    if (n == 0 || n + sizeof suffix > size)
        return NULL;
    for (size_t k = 0; k < n; k++)
        if (!ident_char(base[k], k == 0))
            return NULL;
    memcpy(buf, base, n);
    memcpy(buf + n, suffix, sizeof suffix);
    return buf;
}
