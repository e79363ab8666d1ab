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
#include "fx_body.h"
#include "rpc_message.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* ok, having deleted child if not: cJSON 1.7 does not consume an item it
 * fails to add (and fails on a NULL one). */
static bool added(cJSON *child, bool ok)
{
    if (!ok)
        cJSON_Delete(child);
    return ok;
}

/* Attach `child` to `obj` under `key`, a member name of the wire format:
 * a string literal, which cJSON keeps without a copy
 * (cJSON_AddItemToObjectCS; a copy per member was a third of a result's
 * allocations). The macros below refuse any other key at compile time
 * ("" key); a name from the model goes through attach_copy. On failure
 * child is deleted, so the caller only cleans obj. */
static bool attach_literal(cJSON *obj, const char *key, cJSON *child)
{
    return added(child, child != NULL && cJSON_AddItemToObjectCS(obj, key, child));
}

#define attach(obj, key, child) attach_literal((obj), "" key, (child))
#define add_str(obj, key, s) attach(obj, key, cJSON_CreateString(s))
#define add_num(obj, key, v) attach(obj, key, cJSON_CreateNumber(v))
#define add_bool(obj, key, v) attach(obj, key, cJSON_CreateBool(v))

/* A count (issue 41 item 2): under key the number as before
 * (compatibility: rounded past 2^53), under key_exact its decimal digits,
 * under key_log2 its log2 (null for zero). All three keys have static
 * storage. dec NULL: out of memory (false). */
static bool add_count_dec(cJSON *o, const char *key, const char *key_exact,
                          const char *key_log2, double v, const char *dec, double log2v)
{
    return dec != NULL && attach_literal(o, key, cJSON_CreateNumber(v)) &&
           attach_literal(o, key_exact, cJSON_CreateString(dec)) &&
           attach_literal(o, key_log2,
                          isfinite(log2v) ? cJSON_CreateNumber(log2v) : cJSON_CreateNull());
}

/* add_count_dec from the exact value (NULL: v is exact, an enumeration's
 * count or one below 2^53). */
static bool add_count_(cJSON *o, const char *key, const char *key_exact, const char *key_log2,
                       double v, const mdae_bn *exact)
{
    if (v < 0 || !isfinite(v))
        v = 0;
    char *dec = exact != NULL ? mdae_bn_dec(exact) : mdae_bn_dec_double(floor(v));
    double l2 = exact != NULL ? mdae_bn_log2(exact) : (v > 0 ? log2(v) : -HUGE_VAL);
    bool ok = add_count_dec(o, key, key_exact, key_log2, v, dec, l2);
    mdae_free(dec);
    return ok;
}

#define add_count(obj, key, v, exact) \
    add_count_((obj), "" key, "" key "Exact", "" key "Log2", (v), (exact))

/* The same under a key that is not a literal (copied: the tree may outlive
 * the model that named it). */
static bool attach_copy(cJSON *obj, const char *key, cJSON *child)
{
    return added(child, child != NULL && cJSON_AddItemToObject(obj, key, child));
}

/* Append `child` to the array `arr`; on failure child is deleted. */
static bool append(cJSON *arr, cJSON *child)
{
    return added(child, child != NULL && cJSON_AddItemToArray(arr, child));
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

/* The first k' >= k below n where row[k'] is not -1 (don't care), else n;
 * eight entries at a time where they are all -1: a cube of the brake at
 * N = 100 has a literal or two among its 100 entries. */
static uint32_t next_literal(const signed char *row, uint32_t k, uint32_t n)
{
    for (uint64_t w; k + 8 <= n; k += 8) {
        memcpy(&w, row + k, sizeof w);
        if (w != UINT64_MAX)
            break;
    }
    while (k < n && row[k] == -1)
        k++;
    return k;
}

/* Cubes the encoders accept: every literal named. */
static bool cubes_valid(uint32_t n_modes, const char *const *names, size_t n_cubes,
                        const signed char *cubes)
{
    if ((n_cubes > 0 && cubes == NULL) || (n_modes > 0 && names == NULL))
        return false;
    for (size_t c = 0; c < n_cubes; c++)
        for (uint32_t k = next_literal(cubes + c * n_modes, 0, n_modes); k < n_modes;
             k = next_literal(cubes + c * n_modes, k + 1, n_modes))
            if (names[k] == NULL)
                return false;
    return true;
}

int rpc_json_cubes(uint32_t n_modes, const char *const *names, size_t n_cubes,
                   const signed char *cubes, cJSON **out)
{
    if (out == NULL || !cubes_valid(n_modes, names, n_cubes, cubes))
        return MDAE_E_INVAL;
    rpc_json_init();
    cJSON *arr = cJSON_CreateArray();
    if (arr == NULL)
        return MDAE_E_NOMEM;
    for (size_t c = 0; c < n_cubes; c++) {
        cJSON *cube = cJSON_CreateObject();
        if (!append(arr, cube))
            goto nomem;
        const signed char *row = cubes + c * n_modes;
        for (uint32_t k = next_literal(row, 0, n_modes); k < n_modes;
             k = next_literal(row, k + 1, n_modes)) {
            /* Only 1 and 0 are constraints; anything else is don't-care. */
            if (row[k] == 1 || row[k] == 0) {
                if (!attach_copy(cube, names[k], cJSON_CreateBool(row[k] == 1)))
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

int rpc_json_set_cubes(uint32_t n_modes, const char *const *names, const sa_set *s,
                       cJSON **out)
{
    if (s == NULL || out == NULL)
        return MDAE_E_INVAL;
    if (s->n_cubes > 0 && s->width > 0) {
        if (s->first_mode > n_modes || s->width > n_modes - s->first_mode || names == NULL)
            return MDAE_E_INVAL;
        return rpc_json_cubes(s->width, names + s->first_mode, s->n_cubes, s->rows, out);
    }
    return rpc_json_cubes(0, names, s->n_cubes, s->rows, out);
}

/* Add "guard" and "cubes" of a set over n_modes named mode variables to
 * obj. MDAE_E_NOMEM/INVAL. */
/* s's formula: "false" for an empty set an engine left without one; NULL
 * for a set with cubes and no formula (MDAE_E_INVAL to the caller). */
static const char *set_formula(const sa_set *s)
{
    if (s->formula != NULL)
        return s->formula;
    return s->n_cubes == 0 ? "false" : NULL;
}

static int add_set_over(cJSON *obj, uint32_t n_modes, const char *const *names,
                        const sa_set *s)
{
    const char *formula = set_formula(s);
    if (formula == NULL)
        return MDAE_E_INVAL;
    if (!add_str(obj, "guard", formula))
        return MDAE_E_NOMEM;
    cJSON *cubes = NULL;
    int rc = rpc_json_set_cubes(n_modes, names, s, &cubes);
    if (rc < 0)
        return rc;
    return attach(obj, "cubes", cubes) ? MDAE_OK : MDAE_E_NOMEM;
}

/* add_set_over's "guard" and "cubes", written as they are produced: the
 * same text without the tree (rpc_json_set_cubes's window of mode
 * variables, then rpc_json_cubes's objects). */
static int write_set_over(rpc_jw *w, uint32_t n_modes, const char *const *names,
                          const sa_set *s)
{
    const char *formula = set_formula(s);
    if (formula == NULL)
        return MDAE_E_INVAL;
    uint32_t width = 0;
    const char *const *window = names;
    if (s->n_cubes > 0 && s->width > 0) {
        if (s->first_mode > n_modes || s->width > n_modes - s->first_mode || names == NULL)
            return MDAE_E_INVAL;
        width = s->width;
        window = names + s->first_mode;
    }
    if (!cubes_valid(width, window, s->n_cubes, s->rows))
        return MDAE_E_INVAL;
    rpc_jw_string(w, "guard", formula);
    rpc_jw_open_array(w, "cubes");
    for (size_t c = 0; c < s->n_cubes && w->rc == MDAE_OK; c++) {
        const signed char *row = s->rows + c * width;
        rpc_jw_open_object(w, NULL);
        for (uint32_t k = next_literal(row, 0, width); k < width; k = next_literal(row, k + 1, width))
            if (row[k] == 1 || row[k] == 0)
                rpc_jw_bool(w, window[k], row[k] == 1);
        rpc_jw_close_one(w);
    }
    return rpc_jw_close_one(w);
}

static int add_set(cJSON *obj, const sa_report *rep, const sa_set *s)
{
    return add_set_over(obj, rep->n_modes, rep->mode_names, s);
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
        if (!append(incs, io))
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
            if (!append(cases, co) || !add_num(co, "order", oc->order) ||
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
        if (!append(modes, o) || !add_str(o, "name", m->modes[k].name) ||
            !add_linecol(o, m->modes[k].where))
            goto nomem;
    }

    cJSON *invs = cJSON_CreateArray();
    if (!attach(root, "invariants", invs))
        goto nomem;
    for (uint32_t k = 0; k < m->n_invariants; k++) {
        cJSON *o = cJSON_CreateObject();
        if (!append(invs, o) || !add_guard(o, m, m->invariants[k].cond) ||
            !add_linecol(o, m->invariants[k].where))
            goto nomem;
    }

    cJSON *eqs = cJSON_CreateArray();
    if (!attach(root, "equations", eqs))
        goto nomem;
    for (uint32_t k = 0; k < m->n_equations; k++)
        if (!append(eqs, structure_equation(m, &m->equations[k])))
            goto nomem;

    cJSON *vars = cJSON_CreateArray();
    if (!attach(root, "variables", vars))
        goto nomem;
    for (uint32_t k = 0; k < m->n_variables; k++) {
        cJSON *o = cJSON_CreateObject();
        if (!append(vars, o) || !add_str(o, "name", m->variables[k].name) ||
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

/* ---- What a previous tree already holds (rpc_json_analysis_reusing) ---------- */

/* Each matcher below says whether a node of a tree built before is exactly
 * what the builder above it would build now: the same members in the same
 * order with the same values, and nothing more. It reads the node only;
 * a false answer is always safe (the item is built). */

/* m if it is a member named key, else NULL. */
static const cJSON *named(const cJSON *m, const char *key)
{
    return m != NULL && m->string != NULL && strcmp(m->string, key) == 0 ? m : NULL;
}

static bool str_member_is(const cJSON *m, const char *key, const char *s)
{
    return named(m, key) && cJSON_IsString(m) && strcmp(m->valuestring, s) == 0;
}

static bool num_member_is(const cJSON *m, const char *key, double v)
{
    return named(m, key) && cJSON_IsNumber(m) && m->valuedouble == v;
}

/* rpc_json_cubes' array for these cubes? */
static bool cubes_are(const cJSON *arr, uint32_t n_modes, const char *const *names,
                      size_t n_cubes, const signed char *cubes)
{
    if (n_cubes > 0 && n_modes > 0 && names == NULL)
        return false; /* what rpc_json_cubes refuses */
    const cJSON *cube = arr->child;
    for (size_t c = 0; c < n_cubes; c++, cube = cube->next) {
        if (!cJSON_IsObject(cube))
            return false;
        const signed char *row = cubes + c * n_modes;
        const cJSON *lit = cube->child;
        for (uint32_t k = next_literal(row, 0, n_modes); k < n_modes;
             k = next_literal(row, k + 1, n_modes)) {
            if (row[k] != 1 && row[k] != 0)
                continue;
            if (names[k] == NULL || !named(lit, names[k]) ||
                !(row[k] == 1 ? cJSON_IsTrue(lit) : cJSON_IsFalse(lit)))
                return false;
            lit = lit->next;
        }
        if (lit != NULL)
            return false;
    }
    return cube == NULL;
}

/* add_set_over's two members from *m on? *m then past them. */
static bool set_is(const cJSON **m, uint32_t n_modes, const char *const *names, const sa_set *s)
{
    const char *formula = s->formula != NULL ? s->formula : "false";
    if ((s->formula == NULL && s->n_cubes != 0) || !str_member_is(*m, "guard", formula))
        return false;
    const cJSON *cubes = named((*m)->next, "cubes");
    bool window_in = s->n_cubes == 0 || s->width == 0 ||
                     (s->first_mode <= n_modes && s->width <= n_modes - s->first_mode);
    if (!window_in || !cJSON_IsArray(cubes) ||
        !cubes_are(cubes, s->width, s->width > 0 && names != NULL ? names + s->first_mode : names, s->n_cubes,
                   s->rows))
        return false;
    *m = cubes->next;
    return true;
}

/* report_items' object for item it? */
static bool item_is(const cJSON *o, const sa_report *rep, const sa_item *it)
{
    if (!cJSON_IsObject(o))
        return false;
    const cJSON *m = o->child;
    if (!str_member_is(m, "name", it->name ? it->name : "?"))
        return false;
    m = m->next;
    if (!set_is(&m, rep->n_modes, rep->mode_names, &it->active))
        return false;
    const cJSON *offs = named(m, "offset");
    if (!cJSON_IsArray(offs) || offs->next != NULL)
        return false;
    const cJSON *oc = offs->child;
    for (size_t k = 0; k < it->n_offsets; k++, oc = oc->next) {
        if (oc == NULL || !cJSON_IsObject(oc))
            return false;
        const cJSON *v = oc->child;
        if (!num_member_is(v, "value", it->offsets[k].value))
            return false;
        v = v->next;
        if (!set_is(&v, rep->n_modes, rep->mode_names, &it->offsets[k].modes) || v != NULL)
            return false;
    }
    return oc == NULL;
}

/* items_json's array for these items? An item may also hold the "body"
 * rpc_json_add_bodies gave it (cdg_reusing drops it from what it takes). */
static bool items_are(const cJSON *arr, const cdg_item *items, size_t n)
{
    if (!cJSON_IsArray(arr))
        return false;
    const cJSON *o = arr->child;
    for (size_t k = 0; k < n; k++, o = o->next) {
        if (o == NULL || !cJSON_IsObject(o))
            return false;
        const cJSON *m = o->child;
        if (!str_member_is(m, "name", items[k].name ? items[k].name : "?") ||
            !num_member_is(m->next, "order", items[k].order))
            return false;
        const cJSON *rest = m->next->next;
        if (rest != NULL && !(named(rest, "body") && rest->next == NULL))
            return false;
    }
    return o == NULL;
}

/* rpc_json_cdg's object for block rb? */
static bool block_is(const cJSON *o, const cdg_report *rep, const cdg_report_block *rb)
{
    if (!cJSON_IsObject(o))
        return false;
    const cJSON *m = o->child;
    if (!num_member_is(m, "id", rb->block.id))
        return false;
    m = m->next;
    if (!set_is(&m, rep->n_modes, rep->mode_names, &rb->guard))
        return false;
    const cdg_block *b = &rb->block;
    return named(m, "equations") && items_are(m, b->equations, b->n_equations) &&
           named(m->next, "unknowns") && items_are(m->next, b->unknowns, b->n_unknowns) &&
           named(m->next->next, "reads") && items_are(m->next->next, b->reads, b->n_reads) &&
           m->next->next->next == NULL;
}

/* rpc_json_cdg's object for edge re? */
static bool edge_is(const cJSON *o, const cdg_report *rep, const cdg_report_edge *re)
{
    if (!cJSON_IsObject(o))
        return false;
    const cJSON *m = o->child;
    if (!num_member_is(m, "from", re->from) || !num_member_is(m->next, "to", re->to))
        return false;
    m = m->next->next;
    return set_is(&m, rep->n_modes, rep->mode_names, &re->guard) && m == NULL;
}

/* The array of a previous tree whose members may be taken, walked in step
 * with the array being built: at is the member at the same place.
 *
 * In place (issue 40 item 5; rpc_json_analysis_in_place): the previous
 * array, detached from its tree, becomes the one built; its members are
 * reached through the nodes said when it was built (prev_node, prev_n
 * long), a member taken is left where it is, unseen, and one built
 * replaces the member at its place (or is appended past them; those
 * past the new length are deleted at the end, donor_cut). */
typedef struct donor {
    cJSON *arr; /* NULL: nothing to take */
    cJSON *at;
    size_t place; /* at's place in arr as it was */
    size_t *from; /* NULL, or rpc_taken.from of the array being built */
    const cJSON **node; /* NULL, or rpc_taken.node of the array being built */
    const cJSON *const *prev_node; /* in place: arr's members; else NULL */
    size_t prev_n;
} donor;

/* prev's array key as the donor, in place where prev_taken says its
 * nodes (then detached from prev: the caller's to attach or delete). */
static donor donor_of(cJSON *prev, const char *key, const rpc_taken *taken, int set,
                      const rpc_taken *prev_taken)
{
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(prev, key);
    size_t *from = taken != NULL ? taken->from[set] : NULL;
    const cJSON **node = taken != NULL ? taken->node[set] : NULL;
    if (!cJSON_IsArray(arr))
        return (donor){NULL, NULL, 0, from, node, NULL, 0};
    if (prev_taken != NULL && prev_taken->node[set] != NULL) {
        cJSON_DetachItemViaPointer(prev, arr);
        return (donor){arr, NULL, 0, from, node, prev_taken->node[set], prev_taken->n[set]};
    }
    return (donor){arr, arr->child, 0, from, node, NULL, 0};
}

/* The array to build into: the donor's, in place (attached to root as
 * key), else a new one; NULL on OOM. */
static cJSON *donor_array(donor *d, cJSON *root, const char *key)
{
    cJSON *arr = d->prev_node != NULL ? d->arr : cJSON_CreateArray();
    if (d->prev_node != NULL)
        d->arr = NULL; /* root's now (or deleted) */
    return attach_copy(root, key, arr) ? arr : NULL;
}

/* x as member k of the array being built (arr), recorded in the donor's
 * nodes: appended, or in place, left where it is if taken, else put in
 * place of the member at k (deleted) or appended past them. False on OOM
 * (x deleted). */
static bool append_at(cJSON *arr, cJSON *x, donor *d, size_t k)
{
    if (d->prev_node != NULL && k < d->prev_n) {
        cJSON *was = (cJSON *)d->prev_node[k];
        if (x != was && !cJSON_ReplaceItemViaPointer(arr, was, x)) {
            cJSON_Delete(x);
            return false;
        }
    } else if (!append(arr, x))
        return false;
    if (d->node != NULL)
        d->node[k] = x;
    return true;
}

/* In place: the members past n (an edit removed them) deleted. */
static void donor_cut(donor *d, cJSON *arr, size_t n)
{
    if (d->prev_node == NULL || d->prev_n <= n)
        return;
    cJSON *tail = (cJSON *)d->prev_node[n]; /* past the places replaced */
    if (n == 0)
        arr->child = NULL;
    else {
        cJSON *last = tail->prev; /* member n - 1 as it is now */
        last->next = NULL;
        arr->child->prev = last;
    }
    tail->prev = NULL;
    cJSON_Delete(tail); /* and the members after it */
}

/* The donor's member at this place (NULL past its end); the donor steps
 * on. */
static cJSON *donor_step(donor *d)
{
    if (d->prev_node != NULL)
        return d->place < d->prev_n ? (cJSON *)d->prev_node[d->place++] : NULL;
    cJSON *was = d->at;
    if (was != NULL) {
        d->at = was->next;
        d->place++;
    }
    return was;
}

/* The length the donor's array had: its places walked and those left
 * (the donors walk in step with the arrays built, so the rest is what an
 * edit removed, not a second walk of the array). */
static size_t donor_count(const donor *d)
{
    if (d->prev_node != NULL)
        return d->prev_n;
    size_t n = d->place;
    for (const cJSON *x = d->at; x != NULL; x = x->next)
        n++;
    return n;
}

/* was, the member donor_step gave last, moved out of the donor's array
 * to be member k of the array being built (recorded in from); in place,
 * left where it is. */
static cJSON *donor_take(donor *d, cJSON *was, size_t k)
{
    if (d->from != NULL)
        d->from[k] = d->place - 1;
    return d->prev_node != NULL ? was : cJSON_DetachItemViaPointer(d->arr, was);
}

/* A donor's array not attached (in place, failed before): deleted. */
static void donor_close(donor *d)
{
    if (d->prev_node != NULL)
        cJSON_Delete(d->arr);
    d->arr = NULL;
}

/* ---- Report ---------------------------------------------------------------------- */

/* One item of the report (an equation or a variable): {"name", "guard",
 * "cubes", "offset":[{"value", "guard", "cubes"}...]}. */
static int report_item_json(const sa_report *rep, const sa_item *it, cJSON **out)
{
    cJSON *o = cJSON_CreateObject();
    int rc = MDAE_E_NOMEM;
    if (o == NULL || !add_str(o, "name", it->name ? it->name : "?"))
        goto fail;
    if ((rc = add_set(o, rep, &it->active)) < 0)
        goto fail;
    rc = MDAE_E_NOMEM;
    cJSON *offs = cJSON_CreateArray();
    if (!attach(o, "offset", offs))
        goto fail;
    for (size_t k = 0; k < it->n_offsets; k++) {
        cJSON *oc = cJSON_CreateObject();
        if (!append(offs, oc) || !add_num(oc, "value", it->offsets[k].value))
            goto fail;
        if ((rc = add_set(oc, rep, &it->offsets[k].modes)) < 0)
            goto fail;
        rc = MDAE_E_NOMEM;
    }
    *out = o;
    return MDAE_OK;
fail:
    cJSON_Delete(o);
    return rc;
}

/* The donor's member was, which the caller's keys say is what would be
 * built at its place (engine/cdg_report_keys.h: its sets were not computed):
 * is it an item named name, block k, an edge with re's ends? False: the
 * donor is not the tree the keys were of. */
static bool item_vouched(const cJSON *was, const char *name)
{
    return cJSON_IsObject(was) && str_member_is(was->child, "name", name);
}

static bool block_vouched(const cJSON *was, size_t k)
{
    return cJSON_IsObject(was) && num_member_is(was->child, "id", (double)k);
}

static bool edge_vouched(const cJSON *was, const cdg_report_edge *re)
{
    return cJSON_IsObject(was) && num_member_is(was->child, "from", re->from) &&
           num_member_is(was->child->next, "to", re->to);
}

/* The items under key, each taken from the donor where it holds it: same
 * (NULL: none) says which are the donor's without a look at their sets
 * (rpc_json_analysis_since). */
static int report_items(cJSON *root, const char *key, const sa_report *rep,
                        const sa_item *items, uint32_t n, donor *d, const bool *same)
{
    cJSON *arr = donor_array(d, root, key);
    if (arr == NULL)
        return MDAE_E_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        const sa_item *it = &items[i];
        cJSON *was = donor_step(d);
        if (same != NULL && same[i]) {
            /* in place, the caller vouches for prev's nodes: unseen */
            if (was == NULL ||
                (d->prev_node == NULL && !item_vouched(was, it->name ? it->name : "?")))
                return MDAE_E_STATE;
            if (!append_at(arr, donor_take(d, was, i), d, i))
                return MDAE_E_NOMEM;
            continue;
        }
        if (was != NULL && item_is(was, rep, it)) {
            if (!append_at(arr, donor_take(d, was, i), d, i))
                return MDAE_E_NOMEM;
            continue;
        }
        cJSON *o = NULL;
        int rc = report_item_json(rep, it, &o);
        if (rc < 0)
            return rc;
        if (!append_at(arr, o, d, i))
            return MDAE_E_NOMEM;
    }
    donor_cut(d, arr, n);
    return MDAE_OK;
}

/* A diagnostic of the report: {"kind", "equation" or "variable", "guard",
 * "cubes"}. */
static int report_diag_json(const sa_report *rep, const sa_diagnostic *dg, cJSON **out)
{
    bool over = dg->kind == SA_DIAG_OVERDETERMINED;
    const char *nm = over ? rep->equations[dg->index].name : rep->variables[dg->index].name;
    cJSON *o = cJSON_CreateObject();
    int rc = MDAE_E_NOMEM;
    if (o == NULL || !add_str(o, "kind", over ? "overdetermined" : "underdetermined") ||
        !attach_literal(o, over ? "equation" : "variable", cJSON_CreateString(nm ? nm : "?")))
        goto fail;
    if ((rc = add_set(o, rep, &dg->modes)) < 0)
        goto fail;
    *out = o;
    return MDAE_OK;
fail:
    cJSON_Delete(o);
    return rc;
}

/* A report the encoders accept: its arrays there, its diagnostics within
 * them. MDAE_OK or MDAE_E_INVAL. */
static int report_valid(const sa_report *rep)
{
    if ((rep->n_equations > 0 && rep->equations == NULL) ||
        (rep->n_variables > 0 && rep->variables == NULL) ||
        (rep->n_diagnostics > 0 && rep->diagnostics == NULL))
        return MDAE_E_INVAL;
    for (size_t k = 0; k < rep->n_diagnostics; k++) {
        const sa_diagnostic *dg = &rep->diagnostics[k];
        uint32_t limit = dg->kind == SA_DIAG_OVERDETERMINED ? rep->n_equations : rep->n_variables;
        if (dg->index >= limit)
            return MDAE_E_INVAL;
    }
    return MDAE_OK;
}

/* The report's members before its items into root: "modeVariables",
 * "validModes" (and its exact count), "status", "singular". */
static int report_head(const sa_report *rep, cJSON *root)
{
    cJSON *names = cJSON_CreateArray();
    if (!attach(root, "modeVariables", names))
        return MDAE_E_NOMEM;
    for (uint32_t k = 0; k < rep->n_modes; k++) {
        const char *nm = rep->mode_names && rep->mode_names[k] ? rep->mode_names[k] : "?";
        if (!append(names, cJSON_CreateString(nm)))
            return MDAE_E_NOMEM;
    }
    /* a report built by hand has no exact count: its double then */
    if (!(rep->valid_modes_exact != NULL
              ? add_count_dec(root, "validModes", "validModesExact", "validModesLog2",
                              rep->valid_modes, rep->valid_modes_exact, rep->valid_modes_log2)
              : add_count(root, "validModes", rep->valid_modes, NULL)) ||
        !add_str(root, "status", rep->singular ? "singular" : "nonsingular"))
        return MDAE_E_NOMEM;
    cJSON *sing = cJSON_CreateObject();
    if (!attach(root, "singular", sing))
        return MDAE_E_NOMEM;
    return add_set(sing, rep, &rep->singular_modes);
}

/* rpc_json_report, taking items from prev (may be NULL), recording what
 * it took in taken (may be NULL; its arrays allocated); same (may be NULL)
 * as rpc_json_analysis_since. */
static int report_reusing(const sa_report *rep, cJSON *prev, cJSON **out, rpc_taken *taken,
                          const cdg_report_same *same, const rpc_taken *prev_taken)
{
    if (rep == NULL || out == NULL)
        return MDAE_E_INVAL;
    /* Validate first, so a bad report fails before any work. */
    int rc = report_valid(rep);
    if (rc < 0)
        return rc;
    rpc_json_init();
    cJSON *root = cJSON_CreateObject();
    if (root == NULL)
        return MDAE_E_NOMEM;
    donor eqs = donor_of(prev, "equations", taken, RPC_TAKEN_EQUATIONS, prev_taken);
    donor vars = donor_of(prev, "variables", taken, RPC_TAKEN_VARIABLES, prev_taken);
    if ((rc = report_head(rep, root)) < 0)
        goto fail;
    if ((rc = report_items(root, "equations", rep, rep->equations, rep->n_equations, &eqs,
                           same ? same->equations : NULL)) < 0 ||
        (rc = report_items(root, "variables", rep, rep->variables, rep->n_variables, &vars,
                           same ? same->variables : NULL)) < 0)
        goto fail;
    if (taken != NULL) {
        taken->prev_n[RPC_TAKEN_EQUATIONS] = donor_count(&eqs);
        taken->prev_n[RPC_TAKEN_VARIABLES] = donor_count(&vars);
    }
    rc = MDAE_E_NOMEM;
    cJSON *diags = cJSON_CreateArray();
    if (!attach(root, "diagnostics", diags))
        goto fail;
    for (size_t k = 0; k < rep->n_diagnostics; k++) {
        cJSON *o = NULL;
        if ((rc = report_diag_json(rep, &rep->diagnostics[k], &o)) < 0)
            goto fail;
        rc = MDAE_E_NOMEM;
        if (!append(diags, o))
            goto fail;
    }
    *out = root;
    return MDAE_OK;
fail:
    donor_close(&eqs);
    donor_close(&vars);
    cJSON_Delete(root);
    return rc;
}

int rpc_json_report(const sa_report *rep, cJSON **out)
{
    return report_reusing(rep, NULL, out, NULL, NULL, NULL);
}

/* report_item_json's object, written as it is produced. */
static int write_item(rpc_jw *w, const sa_report *rep, const sa_item *it)
{
    rpc_jw_open_object(w, NULL);
    int rc = rpc_jw_string(w, "name", it->name ? it->name : "?");
    if (rc == MDAE_OK)
        rc = write_set_over(w, rep->n_modes, rep->mode_names, &it->active);
    if (rc == MDAE_OK)
        rc = rpc_jw_open_array(w, "offset");
    for (size_t k = 0; rc == MDAE_OK && k < it->n_offsets; k++) {
        rpc_jw_open_object(w, NULL);
        rc = rpc_jw_number(w, "value", it->offsets[k].value);
        if (rc == MDAE_OK)
            rc = write_set_over(w, rep->n_modes, rep->mode_names, &it->offsets[k].modes);
        if (rc == MDAE_OK)
            rc = rpc_jw_close_one(w);
    }
    if (rc == MDAE_OK)
        rc = rpc_jw_close_one(w);
    return rc == MDAE_OK ? rpc_jw_close_one(w) : rc;
}

/* Write key's items as an array, each written as it is produced. */
static int write_items(rpc_jw *w, const char *key, const sa_report *rep, const sa_item *items,
                       uint32_t n)
{
    int rc = rpc_jw_open_array(w, key);
    for (uint32_t i = 0; rc == MDAE_OK && i < n; i++)
        rc = write_item(w, rep, &items[i]);
    return rc == MDAE_OK ? rpc_jw_close_one(w) : rc;
}

int rpc_json_report_write(const sa_report *rep, rpc_jw *w)
{
    if (rep == NULL || w == NULL)
        return MDAE_E_INVAL;
    int rc = report_valid(rep);
    if (rc < 0)
        return rc;
    rpc_json_init();
    cJSON *head = cJSON_CreateObject();
    if (head == NULL)
        return MDAE_E_NOMEM;
    rc = report_head(rep, head);
    if (rc == MDAE_OK)
        rc = rpc_jw_members(w, head);
    cJSON_Delete(head);
    if (rc == MDAE_OK)
        rc = write_items(w, "equations", rep, rep->equations, rep->n_equations);
    if (rc == MDAE_OK)
        rc = write_items(w, "variables", rep, rep->variables, rep->n_variables);
    if (rc == MDAE_OK)
        rc = rpc_jw_open_array(w, "diagnostics");
    for (size_t k = 0; rc == MDAE_OK && k < rep->n_diagnostics; k++) {
        cJSON *o = NULL;
        if ((rc = report_diag_json(rep, &rep->diagnostics[k], &o)) < 0)
            return rc;
        rc = rpc_jw_value(w, NULL, o);
        cJSON_Delete(o);
    }
    return rc == MDAE_OK ? rpc_jw_close_one(w) : rc;
}

/* ---- Blocks and edges --------------------------------------------------------------- */

/* [{"name":"x","order":1}...] */
static cJSON *items_json(const cdg_item *items, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    if (arr == NULL)
        return NULL;
    for (size_t k = 0; k < n; k++) {
        cJSON *o = cJSON_CreateObject();
        if (!append(arr, o) || !add_str(o, "name", items[k].name ? items[k].name : "?") ||
            !add_num(o, "order", items[k].order)) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

/* "equations", "unknowns", "reads" of a block identity. */
static bool add_block_items(cJSON *o, const cdg_block *b)
{
    return attach(o, "equations", items_json(b->equations, b->n_equations)) &&
           attach(o, "unknowns", items_json(b->unknowns, b->n_unknowns)) &&
           attach(o, "reads", items_json(b->reads, b->n_reads));
}

static bool block_arrays_ok(const cdg_block *b)
{
    return (b->n_equations == 0 || b->equations != NULL) &&
           (b->n_unknowns == 0 || b->unknowns != NULL) && (b->n_reads == 0 || b->reads != NULL);
}

/* A block object without the "body" members of its equations. */
static void drop_bodies(cJSON *block)
{
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(block, "equations"))
        cJSON_DeleteItemFromObjectCaseSensitive(e, "body");
}

/* "body" (engine/fx_body.h) in each object of arr, items_json's array for
 * items, whose order is > 0 (any "body" it had is replaced). An equation
 * whose body cannot be given (expressions not kept, too large, next() or
 * last() inside) has none. MDAE_OK, MDAE_E_NOMEM, MDAE_E_INVAL (an index
 * past m's equations). */
static int add_item_bodies(cJSON *arr, const cdg_item *items, size_t n, const mel_model *m,
                           const bool *same, size_t n_same, bool *kept /* out: every body kept */)
{
    *kept = true;
    cJSON *o = arr != NULL ? arr->child : NULL;
    for (size_t k = 0; k < n && o != NULL; k++, o = o->next) {
        if (items[k].index >= m->n_equations)
            return MDAE_E_INVAL;
        bool had = cJSON_GetObjectItemCaseSensitive(o, "body") != NULL;
        if (had && same != NULL && items[k].index < n_same && same[items[k].index])
            continue; /* still right (rpc_json_add_bodies_keeping) */
        if (had) {
            *kept = false;
            cJSON_DeleteItemFromObjectCaseSensitive(o, "body");
        }
        if (items[k].order <= 0)
            continue;
        char *body = NULL;
        int rc = fx_body_format(m, items[k].index, (unsigned)items[k].order, &body);
        if (rc == MDAE_E_NOMEM)
            return rc;
        if (body == NULL)
            continue;
        *kept = false;
        bool ok = add_str(o, "body", body);
        mdae_free(body);
        if (!ok)
            return MDAE_E_NOMEM;
    }
    return MDAE_OK;
}

/* Are the bodies of b's equations all what the tree taken from has (a
 * block taken, its bodies kept: rpc_json_analysis_since with
 * keep_bodies)? Each of order > 0 vouched for by same: its body at any
 * order is what it was, so the entry has it, or has none where none could
 * be given then (too large, next() or last()) nor now. */
static bool bodies_vouched(const cdg_block *b, const mel_model *m, const bool *same, size_t n_same)
{
    for (size_t j = 0; j < b->n_equations; j++) {
        uint32_t i = b->equations[j].index;
        if (i >= m->n_equations)
            return false; /* add_item_bodies says so */
        if (b->equations[j].order > 0 && (i >= n_same || !same[i]))
            return false;
    }
    return true;
}

int rpc_json_add_bodies(cJSON *analysis, const cdg_report *rep, const mel_model *m)
{
    return rpc_json_add_bodies_keeping(analysis, rep, m, NULL, 0);
}

int rpc_json_add_bodies_keeping(cJSON *analysis, const cdg_report *rep, const mel_model *m,
                                const bool *same, size_t n_same)
{
    return rpc_json_add_bodies_taking(analysis, rep, m, same, n_same, NULL);
}

int rpc_json_add_bodies_taking(cJSON *analysis, const cdg_report *rep, const mel_model *m,
                               const bool *same, size_t n_same, rpc_taken *taken)
{
    if (taken != NULL) {
        mdae_free(taken->bodies_kept);
        taken->bodies_kept = NULL;
    }
    if (rep == NULL || m == NULL || !cJSON_IsObject(analysis) ||
        (rep->n_blocks > 0 && rep->blocks == NULL))
        return MDAE_E_INVAL;
    const cJSON *blocks = cJSON_GetObjectItemCaseSensitive(analysis, "blocks");
    if (!cJSON_IsArray(blocks))
        return MDAE_E_INVAL;
    if (mel_model_exprs(m) == NULL) { /* no expressions: nothing to add */
        if ((size_t)cJSON_GetArraySize(blocks) != rep->n_blocks)
            return MDAE_E_INVAL;
        cJSON *b;
        cJSON_ArrayForEach(b, blocks)
            drop_bodies(b); /* what a tree taken from kept */
        return MDAE_OK;
    }
    rpc_json_init();
    bool *kept = NULL;
    if (taken != NULL && taken->n[RPC_TAKEN_BLOCKS] == rep->n_blocks &&
        (kept = mdae_malloc((rep->n_blocks + 1) * sizeof *kept)) == NULL)
        return MDAE_E_NOMEM;
    /* the blocks through taken's nodes where it has them (a block taken
     * whose bodies are all vouched for is then not looked at: issue 40
     * item 5), else walked, their number checked as they are (not by a
     * walk of its own: a cache miss a block) */
    const cJSON *const *node = kept != NULL && taken->keep_bodies && same != NULL
                                   ? taken->node[RPC_TAKEN_BLOCKS]
                                   : NULL;
    const cJSON *o = blocks->child, *next = NULL;
    for (size_t k = 0; k <= rep->n_blocks; k++, o = next) {
        if (node != NULL)
            o = k < rep->n_blocks ? node[k] : NULL;
        next = o != NULL && node == NULL ? o->next : NULL;
        if ((k == rep->n_blocks) != (o == NULL)) {
            mdae_free(kept);
            return MDAE_E_INVAL;
        }
        if (k == rep->n_blocks)
            break;
        const cdg_block *b = &rep->blocks[k].block;
        if (node != NULL && taken->from[RPC_TAKEN_BLOCKS][k] != RPC_NOT_TAKEN && block_arrays_ok(b) &&
            bodies_vouched(b, m, same, n_same)) {
            kept[k] = true;
            continue;
        }
        bool all = false;
        int rc = block_arrays_ok(b) ? add_item_bodies(cJSON_GetObjectItemCaseSensitive(o, "equations"),
                                                      b->equations, b->n_equations, m, same,
                                                      n_same, &all)
                                    : MDAE_E_INVAL;
        if (rc < 0) {
            mdae_free(kept);
            return rc;
        }
        if (kept != NULL)
            kept[k] = all;
    }
    if (taken != NULL)
        taken->bodies_kept = kept;
    return MDAE_OK;
}

/* A graph report the encoders accept. MDAE_OK or MDAE_E_INVAL. */
static int cdg_valid(const cdg_report *rep)
{
    if ((rep->n_blocks > 0 && rep->blocks == NULL) || (rep->n_edges > 0 && rep->edges == NULL) ||
        (rep->n_modes > 0 && rep->mode_names == NULL))
        return MDAE_E_INVAL;
    for (size_t k = 0; k < rep->n_blocks; k++)
        if (!block_arrays_ok(&rep->blocks[k].block))
            return MDAE_E_INVAL;
    for (size_t k = 0; k < rep->n_edges; k++)
        if (rep->edges[k].from >= rep->n_blocks || rep->edges[k].to >= rep->n_blocks)
            return MDAE_E_INVAL;
    return MDAE_OK;
}

/* A block: {"id", "guard", "cubes", "equations", "unknowns", "reads"}. */
static int block_json(const cdg_report *rep, const cdg_report_block *rb, cJSON **out)
{
    cJSON *o = cJSON_CreateObject();
    int rc = MDAE_E_NOMEM;
    if (o == NULL || !add_num(o, "id", rb->block.id))
        goto fail;
    if ((rc = add_set_over(o, rep->n_modes, rep->mode_names, &rb->guard)) < 0)
        goto fail;
    rc = MDAE_E_NOMEM;
    if (!add_block_items(o, &rb->block))
        goto fail;
    *out = o;
    return MDAE_OK;
fail:
    cJSON_Delete(o);
    return rc;
}

/* An edge: {"from", "to", "guard", "cubes"}. */
static int edge_json(const cdg_report *rep, const cdg_report_edge *re, cJSON **out)
{
    cJSON *o = cJSON_CreateObject();
    int rc = MDAE_E_NOMEM;
    if (o == NULL || !add_num(o, "from", re->from) || !add_num(o, "to", re->to))
        goto fail;
    if ((rc = add_set_over(o, rep->n_modes, rep->mode_names, &re->guard)) < 0)
        goto fail;
    *out = o;
    return MDAE_OK;
fail:
    cJSON_Delete(o);
    return rc;
}

/* rpc_json_cdg, taking blocks and edges from prev (may be NULL),
 * recording what it took in taken (may be NULL; its arrays allocated);
 * same (may be NULL) as rpc_json_analysis_since. */
static int cdg_reusing(const cdg_report *rep, cJSON *prev, cJSON *analysis, bool keep_bodies,
                       rpc_taken *taken, const cdg_report_same *same,
                       const rpc_taken *prev_taken)
{
    if (rep == NULL || !cJSON_IsObject(analysis))
        return MDAE_E_INVAL;
    int rc = cdg_valid(rep);
    if (rc < 0)
        return rc;
    rpc_json_init();
    rc = MDAE_E_NOMEM;
    /* Both arrays are built apart (in place: prev's, detached) and
     * attached last, so a failure leaves the analysis untouched. */
    donor db = donor_of(prev, "blocks", taken, RPC_TAKEN_BLOCKS, prev_taken);
    donor de = donor_of(prev, "edges", taken, RPC_TAKEN_EDGES, prev_taken);
    cJSON *blocks = db.prev_node != NULL ? db.arr : cJSON_CreateArray();
    cJSON *edges = de.prev_node != NULL ? de.arr : cJSON_CreateArray();
    if (db.prev_node != NULL)
        db.arr = NULL; /* blocks */
    if (de.prev_node != NULL)
        de.arr = NULL;
    if (blocks == NULL || edges == NULL)
        goto fail;
    for (size_t k = 0; k < rep->n_blocks; k++) {
        const cdg_report_block *rb = &rep->blocks[k];
        cJSON *was = donor_step(&db);
        bool vouch = same != NULL && same->blocks != NULL && same->blocks[k];
        /* in place, the caller vouches for prev's nodes: unseen */
        if (vouch && (was == NULL || (db.prev_node == NULL && !block_vouched(was, k)))) {
            rc = MDAE_E_STATE; /* the donor is not the tree the keys were of */
            goto fail;
        }
        if (vouch || (was != NULL && block_is(was, rep, rb))) {
            cJSON *mine = donor_take(&db, was, k);
            if (!keep_bodies)
                drop_bodies(mine); /* the equations may have changed: given again */
            if (!append_at(blocks, mine, &db, k))
                goto fail;
            continue;
        }
        cJSON *o = NULL;
        if ((rc = block_json(rep, rb, &o)) < 0)
            goto fail;
        rc = MDAE_E_NOMEM;
        if (!append_at(blocks, o, &db, k))
            goto fail;
    }
    for (size_t k = 0; k < rep->n_edges; k++) {
        const cdg_report_edge *re = &rep->edges[k];
        cJSON *was = donor_step(&de);
        bool vouch = same != NULL && same->edges != NULL && same->edges[k];
        if (vouch && (was == NULL || (de.prev_node == NULL && !edge_vouched(was, re)))) {
            rc = MDAE_E_STATE;
            goto fail;
        }
        if (vouch || (was != NULL && edge_is(was, rep, re))) {
            if (!append_at(edges, donor_take(&de, was, k), &de, k))
                goto fail;
            continue;
        }
        cJSON *o = NULL;
        if ((rc = edge_json(rep, re, &o)) < 0)
            goto fail;
        rc = MDAE_E_NOMEM;
        if (!append_at(edges, o, &de, k))
            goto fail;
    }
    donor_cut(&db, blocks, rep->n_blocks);
    donor_cut(&de, edges, rep->n_edges);
    if (taken != NULL) {
        taken->prev_n[RPC_TAKEN_BLOCKS] = donor_count(&db);
        taken->prev_n[RPC_TAKEN_EDGES] = donor_count(&de);
    }
    if (!cJSON_AddItemToObject(analysis, "blocks", blocks))
        goto fail;
    if (!cJSON_AddItemToObject(analysis, "edges", edges)) {
        cJSON_DeleteItemFromObjectCaseSensitive(analysis, "blocks"); /* deletes `blocks` */
        blocks = NULL;
        goto fail;
    }
    return MDAE_OK;
fail:
    cJSON_Delete(blocks);
    cJSON_Delete(edges);
    return rc;
}

/* items_json's array as the member key, written; with bodies_of (a model
 * with expressions), add_item_bodies's "body" of each item of order > 0. */
static int write_block_items(rpc_jw *w, const char *key, const cdg_item *items, size_t n,
                             const mel_model *bodies_of)
{
    int rc = rpc_jw_open_array(w, key);
    for (size_t k = 0; rc == MDAE_OK && k < n; k++) {
        const cdg_item *it = &items[k];
        if (bodies_of != NULL && it->index >= bodies_of->n_equations)
            return MDAE_E_INVAL;
        rpc_jw_open_object(w, NULL);
        rpc_jw_string(w, "name", it->name ? it->name : "?");
        rc = rpc_jw_number(w, "order", it->order);
        if (rc == MDAE_OK && bodies_of != NULL && it->order > 0) {
            char *body = NULL;
            rc = fx_body_format(bodies_of, it->index, (unsigned)it->order, &body);
            if (rc == MDAE_E_NOMEM)
                return rc;
            rc = body != NULL ? rpc_jw_string(w, "body", body) : MDAE_OK;
            mdae_free(body);
        }
        if (rc == MDAE_OK)
            rc = rpc_jw_close_one(w);
    }
    return rc == MDAE_OK ? rpc_jw_close_one(w) : rc;
}

/* block_json's object, written (bodies_of as in write_block_items). */
static int write_block(rpc_jw *w, const cdg_report *rep, const cdg_report_block *rb,
                       const mel_model *bodies_of)
{
    const cdg_block *b = &rb->block;
    rpc_jw_open_object(w, NULL);
    int rc = rpc_jw_number(w, "id", b->id);
    if (rc == MDAE_OK)
        rc = write_set_over(w, rep->n_modes, rep->mode_names, &rb->guard);
    if (rc == MDAE_OK)
        rc = write_block_items(w, "equations", b->equations, b->n_equations, bodies_of);
    if (rc == MDAE_OK)
        rc = write_block_items(w, "unknowns", b->unknowns, b->n_unknowns, NULL);
    if (rc == MDAE_OK)
        rc = write_block_items(w, "reads", b->reads, b->n_reads, NULL);
    return rc == MDAE_OK ? rpc_jw_close_one(w) : rc;
}

/* edge_json's object, written. */
static int write_edge(rpc_jw *w, const cdg_report *rep, const cdg_report_edge *re)
{
    rpc_jw_open_object(w, NULL);
    rpc_jw_number(w, "from", re->from);
    int rc = rpc_jw_number(w, "to", re->to);
    if (rc == MDAE_OK)
        rc = write_set_over(w, rep->n_modes, rep->mode_names, &re->guard);
    return rc == MDAE_OK ? rpc_jw_close_one(w) : rc;
}

int rpc_json_cdg_write(const cdg_report *rep, const mel_model *m, rpc_jw *w)
{
    if (rep == NULL || w == NULL)
        return MDAE_E_INVAL;
    int rc = cdg_valid(rep);
    if (rc < 0)
        return rc;
    rpc_json_init();
    const mel_model *bodies_of = m != NULL && mel_model_exprs(m) != NULL ? m : NULL;
    rc = rpc_jw_open_array(w, "blocks");
    for (size_t k = 0; rc == MDAE_OK && k < rep->n_blocks; k++)
        rc = write_block(w, rep, &rep->blocks[k], bodies_of);
    if (rc == MDAE_OK)
        rc = rpc_jw_close_one(w);
    if (rc == MDAE_OK)
        rc = rpc_jw_open_array(w, "edges");
    for (size_t k = 0; rc == MDAE_OK && k < rep->n_edges; k++)
        rc = write_edge(w, rep, &rep->edges[k]);
    return rc == MDAE_OK ? rpc_jw_close_one(w) : rc;
}

int rpc_json_cdg(const cdg_report *rep, cJSON *analysis)
{
    return cdg_reusing(rep, NULL, analysis, false, NULL, NULL, NULL);
}

/* ---- Block families ------------------------------------------------------------ */

/* [{"name","order","guard","cubes"}..] of a family's items. */
static int family_items(const cdg_family_report *rep, const cdg_family_item *items, size_t n,
                        cJSON **out)
{
    cJSON *arr = cJSON_CreateArray();
    if (arr == NULL)
        return MDAE_E_NOMEM;
    for (size_t k = 0; k < n; k++) {
        const cdg_item *it = &items[k].item;
        cJSON *o = cJSON_CreateObject();
        int rc = MDAE_E_NOMEM;
        if (!append(arr, o) || !add_str(o, "name", it->name ? it->name : "?") ||
            !add_num(o, "order", it->order) ||
            (rc = add_set_over(o, rep->n_modes, rep->mode_names, &items[k].modes)) < 0) {
            cJSON_Delete(arr);
            return rc;
        }
    }
    *out = arr;
    return MDAE_OK;
}

static int family_json(const cdg_family_report *rep, const cdg_report_family *F, cJSON *o)
{
    int rc;
    if (!add_num(o, "id", F->id))
        return MDAE_E_NOMEM;
    if ((rc = add_set_over(o, rep->n_modes, rep->mode_names, &F->modes)) < 0)
        return rc;
    if (!add_count(o, "variants", (double)F->n_variants, NULL))
        return MDAE_E_NOMEM;
    const char *keys[3] = {"equations", "unknowns", "reads"};
    const cdg_family_item *lists[3] = {F->equations, F->unknowns, F->reads};
    size_t counts[3] = {F->n_equations, F->n_unknowns, F->n_reads};
    for (int q = 0; q < 3; q++) {
        cJSON *arr = NULL;
        if ((rc = family_items(rep, lists[q], counts[q], &arr)) < 0)
            return rc;
        if (!attach_literal(o, keys[q], arr))
            return MDAE_E_NOMEM;
    }
    return MDAE_OK;
}

int rpc_json_families(const cdg_family_report *rep, cJSON *analysis)
{
    if (rep == NULL || !cJSON_IsObject(analysis) ||
        (rep->n_families > 0 && rep->families == NULL) ||
        (rep->n_edges > 0 && rep->edges == NULL) || (rep->n_modes > 0 && rep->mode_names == NULL))
        return MDAE_E_INVAL;
    rpc_json_init();
    int rc = MDAE_E_NOMEM;
    /* Built apart and attached last: a failure leaves the analysis as it was. */
    cJSON *part = cJSON_CreateObject(), *fams = cJSON_CreateArray(), *edges = cJSON_CreateArray();
    if (part == NULL || fams == NULL || edges == NULL) {
        cJSON_Delete(fams);
        cJSON_Delete(edges);
        goto fail;
    }
    if (!add_count(part, "blockCount", (double)rep->n_blocks, NULL) ||
        !attach(part, "families", fams)) {
        cJSON_Delete(edges);
        goto fail;
    }
    if (!attach(part, "familyEdges", edges))
        goto fail;
    for (size_t k = 0; k < rep->n_families; k++) {
        cJSON *o = cJSON_CreateObject();
        rc = MDAE_E_NOMEM;
        if (!append(fams, o) || (rc = family_json(rep, &rep->families[k], o)) < 0)
            goto fail;
    }
    for (size_t k = 0; k < rep->n_edges; k++) {
        const cdg_report_edge *re = &rep->edges[k];
        cJSON *o = cJSON_CreateObject();
        rc = MDAE_E_NOMEM;
        if (!append(edges, o) || !add_num(o, "from", re->from) || !add_num(o, "to", re->to))
            goto fail;
        if ((rc = add_set_over(o, rep->n_modes, rep->mode_names, &re->guard)) < 0)
            goto fail;
    }
    while (part->child != NULL) {
        cJSON *m = cJSON_DetachItemViaPointer(part, part->child);
        /* the keys are literals (attach): kept without a copy, cannot fail */
        cJSON_AddItemToObjectCS(analysis, m->string, m);
    }
    cJSON_Delete(part);
    return MDAE_OK;
fail:
    cJSON_Delete(part);
    return rc;
}

void rpc_taken_free(rpc_taken *t)
{
    if (t == NULL)
        return;
    for (int s = 0; s < RPC_TAKEN_N; s++) {
        mdae_free(t->from[s]);
        mdae_free(t->node[s]);
    }
    mdae_free(t->bodies_kept);
    memset(t, 0, sizeof *t);
}

/* taken's arrays for rep and cdg, every member RPC_NOT_TAKEN. False on
 * OOM (taken freed). */
static bool taken_init(rpc_taken *taken, const sa_report *rep, const cdg_report *cdg)
{
    memset(taken, 0, sizeof *taken);
    taken->n[RPC_TAKEN_EQUATIONS] = rep->n_equations;
    taken->n[RPC_TAKEN_VARIABLES] = rep->n_variables;
    taken->n[RPC_TAKEN_BLOCKS] = cdg != NULL ? cdg->n_blocks : 0;
    taken->n[RPC_TAKEN_EDGES] = cdg != NULL ? cdg->n_edges : 0;
    for (int s = 0; s < RPC_TAKEN_N; s++) {
        /* prev's lengths: counted as the donors walk them (donor_count) */
        taken->from[s] = mdae_malloc((taken->n[s] + 1) * sizeof *taken->from[s]);
        taken->node[s] = mdae_calloc(taken->n[s] + 1, sizeof *taken->node[s]);
        if (taken->from[s] == NULL || taken->node[s] == NULL) {
            rpc_taken_free(taken);
            return false;
        }
        for (size_t k = 0; k < taken->n[s]; k++)
            taken->from[s][k] = RPC_NOT_TAKEN;
    }
    return true;
}

int rpc_json_analysis_since(const sa_report *rep, const cdg_report *cdg, cJSON *prev,
                            bool keep_bodies, const cdg_report_same *same, cJSON **out,
                            rpc_taken *taken)
{
    return rpc_json_analysis_in_place(rep, cdg, prev, NULL, keep_bodies, same, out, taken);
}

int rpc_json_analysis_in_place(const sa_report *rep, const cdg_report *cdg, cJSON *prev,
                               const rpc_taken *prev_taken, bool keep_bodies,
                               const cdg_report_same *same, cJSON **out, rpc_taken *taken)
{
    if (rep == NULL || out == NULL)
        return MDAE_E_INVAL;
    if (prev == NULL)
        prev_taken = NULL;
    if (taken != NULL && !taken_init(taken, rep, cdg))
        return MDAE_E_NOMEM;
    if (taken != NULL)
        taken->keep_bodies = keep_bodies;
    cJSON *root = NULL;
    int rc = report_reusing(rep, prev, &root, taken, same, prev_taken);
    if (rc == MDAE_OK && cdg != NULL &&
        (rc = cdg_reusing(cdg, prev, root, keep_bodies, taken, same, prev_taken)) < 0)
        cJSON_Delete(root);
    if (rc < 0) {
        rpc_taken_free(taken);
        return rc;
    }
    *out = root;
    return MDAE_OK;
}

int rpc_json_analysis_taking(const sa_report *rep, const cdg_report *cdg, cJSON *prev,
                             bool keep_bodies, cJSON **out, rpc_taken *taken)
{
    return rpc_json_analysis_since(rep, cdg, prev, keep_bodies, NULL, out, taken);
}

int rpc_json_analysis_reusing(const sa_report *rep, const cdg_report *cdg, cJSON *prev,
                              cJSON **out)
{
    return rpc_json_analysis_taking(rep, cdg, prev, false, out, NULL);
}

int rpc_json_analysis(const sa_report *rep, const cdg_report *cdg, cJSON **out)
{
    return rpc_json_analysis_reusing(rep, cdg, NULL, out);
}

/* ---- One mode ---------------------------------------------------------------------- */

static int why_fail(char *why, size_t why_len, const char *fmt, const char *a, size_t alen)
{
    if (why != NULL && why_len > 0)
        snprintf(why, why_len, fmt, (int)alen, a);
    return MDAE_E_INVAL;
}

static bool is_space(char c) { return c == ' ' || c == '\t'; }

/* Does [p, p+n) spell word w? */
static bool word_is(const char *p, size_t n, const char *w)
{
    return strlen(w) == n && memcmp(p, w, n) == 0;
}

/* The value after an '=' at p: 1 (true), 0 (false), or -1 when p does not
 * hold one of 1, 0, true, false; *end just past it and its spaces. */
static int value_at(const char *p, const char **end)
{
    while (is_space(*p))
        p++;
    const char *v = p;
    while (*p != '\0' && *p != ',' && *p != '=' && !is_space(*p))
        p++;
    size_t n = (size_t)(p - v);
    int r = word_is(v, n, "1") || word_is(v, n, "true")    ? 1
            : word_is(v, n, "0") || word_is(v, n, "false") ? 0
                                                           : -1;
    while (is_space(*p))
        p++;
    *end = p;
    return r;
}

/* The '=' that ends the name starting at p: the first one followed by a
 * value and then ',' or the end, so that names may hold '=', ',' and
 * spaces themselves (Modelica's relation atoms: "pre(m) == 2", "h <= 0").
 * NULL when there is none before a ';' or the end. */
static const char *name_end(const char *p)
{
    for (; *p != '\0' && *p != ';'; p++) {
        const char *after;
        if (*p == '=' && value_at(p + 1, &after) >= 0 && (*after == ',' || *after == '\0'))
            return p;
    }
    return NULL;
}

/* Length of [p, p+n) without its trailing spaces. */
static size_t trimmed(const char *p, size_t n)
{
    while (n > 0 && is_space(p[n - 1]))
        n--;
    return n;
}

/* Why no name ends at p (name_end is NULL): the last '=' before a ';' or
 * the end has no value, or there is no '=' at all. */
static int why_no_name(const char *p, char *why, size_t why_len)
{
    const char *eq = NULL;
    for (const char *q = p; *q != '\0' && *q != ';'; q++)
        if (*q == '=')
            eq = q;
    if (eq == NULL)
        return why_fail(why, why_len, "expected '=' after '%.*s' (write NAME=1 or NAME=0)", p,
                        trimmed(p, strlen(p)));
    if (trimmed(p, (size_t)(eq - p)) == 0)
        return why_fail(why, why_len, "expected a mode variable name at '%.*s'", p, strlen(p));
    return why_fail(why, why_len, "value of '%.*s' must be 1, 0, true or false", p,
                    trimmed(p, (size_t)(eq - p)));
}

int rpc_json_mode_spec(const char *spec, cJSON **out, char *why, size_t why_len)
{
    if (spec == NULL || out == NULL)
        return MDAE_E_INVAL;
    rpc_json_init();
    cJSON *obj = cJSON_CreateObject();
    if (obj == NULL)
        return MDAE_E_NOMEM;
    int rc = MDAE_E_INVAL;
    const char *p = spec;
    while (is_space(*p))
        p++;
    if (*p == '\0')
        goto done; /* the all-false mode */
    for (;;) {
        while (is_space(*p))
            p++;
        const char *name = p, *eq = *p == ',' ? NULL : name_end(p);
        size_t nlen = eq != NULL ? trimmed(name, (size_t)(eq - name)) : 0;
        if (nlen == 0) {
            rc = *p == ',' || *p == '\0' || eq != NULL
                     ? why_fail(why, why_len, "expected a mode variable name at '%.*s'", p,
                                strlen(p))
                     : why_no_name(p, why, why_len);
            goto fail;
        }
        bool v = value_at(eq + 1, &p) == 1;
        char *key = mdae_strndup(name, nlen);
        if (key == NULL) {
            rc = MDAE_E_NOMEM;
            goto fail;
        }
        bool twice = cJSON_GetObjectItemCaseSensitive(obj, key) != NULL;
        bool ok = !twice && cJSON_AddBoolToObject(obj, key, v) != NULL;
        mdae_free(key);
        if (twice) {
            rc = why_fail(why, why_len, "mode variable '%.*s' is given twice", name, nlen);
            goto fail;
        }
        if (!ok) {
            rc = MDAE_E_NOMEM;
            goto fail;
        }
        if (*p == '\0')
            break;
        p++; /* the ',' name_end saw */
    }
done:
    *out = obj;
    return MDAE_OK;
fail:
    cJSON_Delete(obj);
    return rc;
}

int rpc_json_mode_read(const cJSON *obj, const mel_model *m, bool *mode, char *why,
                       size_t why_len)
{
    if (m == NULL || (mode == NULL && m->n_modes > 0))
        return MDAE_E_INVAL;
    if (!cJSON_IsObject(obj)) {
        if (why != NULL && why_len > 0)
            snprintf(why, why_len, "the mode must be an object {\"NAME\": true|false, ...}");
        return MDAE_E_INVAL;
    }
    for (uint32_t k = 0; k < m->n_modes; k++)
        mode[k] = false;
    for (const cJSON *it = obj->child; it != NULL; it = it->next) {
        const char *name = it->string ? it->string : "";
        long k = mel_model_find_mode(m, name);
        if (k < 0)
            return why_fail(why, why_len, "unknown mode variable '%.*s'", name, strlen(name));
        if (cJSON_IsBool(it))
            mode[k] = cJSON_IsTrue(it);
        else if (cJSON_IsNumber(it) && (it->valuedouble == 0 || it->valuedouble == 1))
            mode[k] = it->valuedouble == 1;
        else
            return why_fail(why, why_len, "value of '%.*s' must be true, false, 1 or 0", name,
                            strlen(name));
    }
    return MDAE_OK;
}

/* [{"name","active","offset"}...] for the equations (or variables). */
static cJSON *mode_items(const mel_model *m, bool equations, const sa_mode_view *sv,
                         bool offsets)
{
    cJSON *arr = cJSON_CreateArray();
    if (arr == NULL)
        return NULL;
    uint32_t n = equations ? m->n_equations : m->n_variables;
    for (uint32_t i = 0; i < n; i++) {
        const char *name = equations ? m->equations[i].name : m->variables[i].name;
        bool active = equations ? sv->eq_active[i] : sv->var_active[i];
        int off = equations ? sv->c[i] : sv->d[i];
        cJSON *o = cJSON_CreateObject();
        if (!append(arr, o) || !add_str(o, "name", name ? name : "?") ||
            !add_bool(o, "active", active))
            goto fail;
        bool ok = offsets && active && off >= 0 ? add_num(o, "offset", off)
                                               : cJSON_AddNullToObject(o, "offset") != NULL;
        if (!ok)
            goto fail;
    }
    return arr;
fail:
    cJSON_Delete(arr);
    return NULL;
}

/* Names of the flagged equations (or variables). */
static cJSON *mode_flagged(const mel_model *m, bool equations, const bool *flags)
{
    cJSON *arr = cJSON_CreateArray();
    if (arr == NULL)
        return NULL;
    uint32_t n = equations ? m->n_equations : m->n_variables;
    for (uint32_t i = 0; i < n; i++) {
        if (!flags[i])
            continue;
        const char *name = equations ? m->equations[i].name : m->variables[i].name;
        if (!append(arr, cJSON_CreateString(name ? name : "?"))) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

static int cmp_pair(const void *pa, const void *pb)
{
    const uint32_t *a = pa, *b = pb;
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* The when-clause that makes mode transient (it violates invariants, all of
 * them added by when-clauses: the first one's), or -1. */
static long transient_when(const mel_model *m, const bool *mode)
{
    long w = -1;
    for (uint32_t k = 0; k < m->n_invariants; k++)
        if (!mel_guard_eval(m->invariants[k].cond, mode)) {
            if (m->invariants[k].when == 0)
                return -1;
            if (w < 0)
                w = (long)m->invariants[k].when - 1;
        }
    return w;
}

int rpc_json_mode(const mel_model *m, const bool *mode, const sa_mode_view *sv,
                  const cdg_graph *g, const cdg_mode_view *cv, cJSON **out)
{
    if (m == NULL || sv == NULL || out == NULL || (mode == NULL && m->n_modes > 0) ||
        (g == NULL) != (cv == NULL))
        return MDAE_E_INVAL;
    if ((m->n_equations > 0 && (!sv->eq_active || !sv->c || !sv->overdetermined)) ||
        (m->n_variables > 0 && (!sv->var_active || !sv->d || !sv->underdetermined)))
        return MDAE_E_INVAL;
    if (cv != NULL && ((cv->n_blocks > 0 && cv->blocks == NULL) ||
                       (cv->n_edges > 0 && cv->edges == NULL)))
        return MDAE_E_INVAL;
    rpc_json_init();
    int rc = MDAE_E_NOMEM;
    uint32_t *pos = NULL;   /* block id -> position in the solving order */
    uint32_t *pairs = NULL; /* edges as positions */
    cJSON *root = cJSON_CreateObject();
    if (root == NULL)
        return MDAE_E_NOMEM;
    cJSON *mo = cJSON_CreateObject();
    if (!attach(root, "mode", mo))
        goto fail;
    for (uint32_t k = 0; k < m->n_modes; k++)
        if (!attach_copy(mo, m->modes[k].name, cJSON_CreateBool(mode[k])))
            goto fail;
    bool offsets = sv->valid && !sv->singular;
    long when = sv->valid ? -1 : transient_when(m, mode);
    /* only for a transient mode (engine/mel.h, mel_when): others keep their shape */
    if (when >= 0) { /* {"range": the when-clause} */
        cJSON *tr = cJSON_CreateObject();
        if (!attach(root, "transient", tr) ||
            !attach(tr, "range", range_json(m->whens[when].where)))
            goto fail;
    }
    if (!add_bool(root, "valid", sv->valid) || !add_bool(root, "singular", sv->singular) ||
        !attach(root, "equations", mode_items(m, true, sv, offsets)) ||
        !attach(root, "variables", mode_items(m, false, sv, offsets)))
        goto fail;
    if (cv != NULL) {
        size_t nb = cdg_graph_n_blocks(g);
        pos = mdae_calloc(nb + 1, sizeof *pos);
        cJSON *blocks = cJSON_CreateArray();
        if (!attach(root, "blocks", blocks) || pos == NULL)
            goto fail;
        for (size_t k = 0; k < nb; k++)
            pos[k] = UINT32_MAX;
        for (size_t k = 0; k < cv->n_blocks; k++) {
            cdg_block b;
            if (cv->blocks[k] >= nb || cdg_graph_block(g, cv->blocks[k], &b) < 0 ||
                !block_arrays_ok(&b)) {
                rc = MDAE_E_INVAL;
                goto fail;
            }
            pos[cv->blocks[k]] = (uint32_t)k;
            cJSON *o = cJSON_CreateObject();
            if (!append(blocks, o) || !add_num(o, "id", b.id) || !add_block_items(o, &b))
                goto fail;
            bool kept = false; /* not asked */
            if (mel_model_exprs(m) != NULL &&
                (rc = add_item_bodies(cJSON_GetObjectItemCaseSensitive(o, "equations"),
                                      b.equations, b.n_equations, m, NULL, 0, &kept)) < 0)
                goto fail;
            rc = MDAE_E_NOMEM;
        }
        /* The view sorts edges by ids; readers want them by position. */
        pairs = mdae_calloc(2 * cv->n_edges + 1, sizeof *pairs);
        cJSON *edges = cJSON_CreateArray();
        if (!attach(root, "edges", edges) || pairs == NULL)
            goto fail;
        for (size_t k = 0; k < cv->n_edges; k++) {
            uint32_t a = cv->edges[2 * k], b = cv->edges[2 * k + 1];
            if (a >= nb || b >= nb || pos[a] == UINT32_MAX || pos[b] == UINT32_MAX) {
                rc = MDAE_E_INVAL; /* an edge between blocks not in the view */
                goto fail;
            }
            pairs[2 * k] = pos[a];
            pairs[2 * k + 1] = pos[b];
        }
        if (cv->n_edges > 1)
            qsort(pairs, cv->n_edges, 2 * sizeof *pairs, cmp_pair);
        for (size_t k = 0; k < cv->n_edges; k++) {
            cJSON *pair = cJSON_CreateArray();
            if (!append(edges, pair) ||
                !append(pair, cJSON_CreateNumber(pairs[2 * k])) ||
                !append(pair, cJSON_CreateNumber(pairs[2 * k + 1])))
                goto fail;
        }
    }
    if (!attach(root, "overdetermined", mode_flagged(m, true, sv->overdetermined)) ||
        !attach(root, "underdetermined", mode_flagged(m, false, sv->underdetermined)))
        goto fail;
    /* Cold initialisation (RR-8933 Exec. Sch. 3; issue 13 section 6): the
     * unknowns x_j^(l), l <= d_j, against the equations f_i^(k), k <= c_i:
     * sum (d_j + 1) - sum (c_i + 1) degrees of freedom (the clutch engaged:
     * 6 - 5 = 1, the common speed). Null unless valid and nonsingular. */
    cJSON *init = cJSON_CreateObject();
    if (!attach(root, "initialization", init))
        goto fail;
    if (offsets) {
        long dof = 0;
        for (uint32_t j = 0; j < m->n_variables; j++)
            if (sv->var_active[j] && sv->d[j] >= 0)
                dof += sv->d[j] + 1;
        for (uint32_t i = 0; i < m->n_equations; i++)
            if (sv->eq_active[i] && sv->c[i] >= 0)
                dof -= sv->c[i] + 1;
        if (!add_num(init, "degreesOfFreedom", (double)dof))
            goto fail;
    } else if (!attach(init, "degreesOfFreedom", cJSON_CreateNull())) {
        goto fail;
    }
    mdae_free(pos);
    mdae_free(pairs);
    *out = root;
    return MDAE_OK;
fail:
    mdae_free(pos);
    mdae_free(pairs);
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

int rpc_json_counts(const mel_model *m, cJSON **out)
{
    if (m == NULL || out == NULL)
        return MDAE_E_INVAL;
    rpc_json_init();
    cJSON *c = cJSON_CreateObject();
    if (c == NULL || !cJSON_AddNumberToObject(c, "equations", m->n_equations) ||
        !cJSON_AddNumberToObject(c, "variables", m->n_variables) ||
        !cJSON_AddNumberToObject(c, "modeVariables", m->n_modes) ||
        !cJSON_AddNumberToObject(c, "incidences", (double)m->n_edges) ||
        !cJSON_AddNumberToObject(c, "invariants", m->n_invariants) ||
        !cJSON_AddNumberToObject(c, "parameters", m->n_params) ||
        !cJSON_AddNumberToObject(c, "integers", m->n_integers)) {
        cJSON_Delete(c);
        return MDAE_E_NOMEM;
    }
    *out = c;
    return MDAE_OK;
}

static cJSON *str_or_null(const char *s) { return s ? cJSON_CreateString(s) : cJSON_CreateNull(); }

int rpc_json_limit(const mdae_diag *dg, cJSON **out)
{
    const mdae_limit_info *li = dg != NULL ? mdae_limit_get(dg->limit) : NULL;
    if (li == NULL || out == NULL)
        return MDAE_E_INVAL;
    rpc_json_init();
    cJSON *o = cJSON_CreateObject();
    if (o == NULL || !add_str(o, "setting", li->name) || !add_num(o, "value", dg->limit_value) ||
        !attach(o, "configKey", str_or_null(li->setting)) ||
        !attach(o, "flag", str_or_null(li->flag)) || !add_str(o, "unit", li->unit) ||
        !attach(o, "where",
                dg->where.start.line != 0 ? range_json(dg->where) : cJSON_CreateNull())) {
        cJSON_Delete(o);
        return MDAE_E_NOMEM;
    }
    *out = o;
    return MDAE_OK;
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
        if (!append(arr, o) || !add_str(o, "severity", severity_name(dg->severity)) ||
            !add_str(o, "message", dg->message ? dg->message : ""))
            goto nomem;
        if (dg->where.start.line != 0 && !attach(o, "range", range_json(dg->where)))
            goto nomem;
        cJSON *lim = NULL;
        if (mdae_limit_get(dg->limit) != NULL &&
            (rpc_json_limit(dg, &lim) != MDAE_OK || !attach(o, "limit", lim)))
            goto nomem;
    }
    if (d->dropped > 0) {
        char msg[64];
        snprintf(msg, sizeof msg, "%zu more diagnostics not shown", d->dropped);
        cJSON *o = cJSON_CreateObject();
        if (!append(arr, o) || !add_str(o, "severity", "note") ||
            !add_str(o, "message", msg))
            goto nomem;
    }
    *out = arr;
    return MDAE_OK;
nomem:
    cJSON_Delete(arr);
    return MDAE_E_NOMEM;
}

static cJSON *left_out_json(const mel_left_out *lo)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL || !add_num(o, "line", lo->where.start.line) ||
        !add_num(o, "col", lo->where.start.col) || !add_num(o, "endLine", lo->where.end.line) ||
        !add_num(o, "endCol", lo->where.end.col) ||
        !add_num(o, "offset", lo->where.start.offset) ||
        !add_num(o, "endOffset", lo->where.end.offset) ||
        !add_str(o, "message", lo->message ? lo->message : "")) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int rpc_json_add_left_out(cJSON *obj, const mel_model *m)
{
    if (obj == NULL || m == NULL)
        return MDAE_E_INVAL;
    if (m->n_syntax_errors == 0 && m->n_left_out == 0)
        return MDAE_OK;
    rpc_json_init();
    cJSON *arr = cJSON_CreateArray();
    for (uint32_t k = 0; arr != NULL && k < m->n_left_out; k++)
        if (!append(arr, left_out_json(&m->left_out[k]))) {
            cJSON_Delete(arr);
            arr = NULL;
        }
    cJSON *n = cJSON_CreateNumber(m->n_syntax_errors);
    if (arr == NULL || n == NULL) {
        cJSON_Delete(arr);
        cJSON_Delete(n);
        return MDAE_E_NOMEM;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "leftOut");
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "syntaxErrors");
    if (!attach(obj, "leftOut", arr)) {
        cJSON_Delete(n);
        return MDAE_E_NOMEM;
    }
    if (!attach(obj, "syntaxErrors", n)) {
        cJSON_DeleteItemFromObjectCaseSensitive(obj, "leftOut");
        return MDAE_E_NOMEM;
    }
    return MDAE_OK;
}

/* ---- Printing ---------------------------------------------------------------------- */

int rpc_json_print(const cJSON *json, bool pretty, char **out)
{
    if (json == NULL || out == NULL)
        return MDAE_E_INVAL;
    rpc_json_init();
    char *s = rpc_print_text(json, pretty);
    if (s == NULL)
        return MDAE_E_NOMEM;
    *out = s; /* allocated through the hooks, i.e. by mdae_malloc */
    return MDAE_OK;
}

/* ---- Mode changes (issue 13) --------------------------------------------------- */

static cJSON *mc_items(const mel_model *m, const mc_list *l, bool vars)
{
    cJSON *arr = cJSON_CreateArray();
    if (arr == NULL)
        return NULL;
    for (size_t k = 0; k < l->n; k++) {
        uint32_t ix = l->items[k].index;
        if (ix >= (vars ? m->n_variables : m->n_equations)) {
            cJSON_Delete(arr);
            return NULL;
        }
        cJSON *o = cJSON_CreateObject();
        if (!append(arr, o) ||
            !add_str(o, "name", vars ? m->variables[ix].name : m->equations[ix].name) ||
            !add_num(o, "shift", l->items[k].shift)) {
            cJSON_Delete(arr);
            return NULL;
        }
        /* an equation's body at its shift (issue 41 item 8), when the model
         * keeps its expressions and it prints */
        char *body = NULL;
        int rc = vars ? MDAE_OK : mc_body_format(m, l->items[k], &body);
        if (rc == MDAE_E_NOMEM || (body != NULL && !add_str(o, "body", body))) {
            mdae_free(body);
            cJSON_Delete(arr);
            return NULL;
        }
        mdae_free(body);
    }
    return arr;
}

/* An impulse order as JSON: the number, or null for -infinity. */
static cJSON *mc_order_num(int o)
{
    return o == MC_ORDER_NEG_INF ? cJSON_CreateNull() : cJSON_CreateNumber(o);
}

/* mc_result.impulsive (with "equal") or .finite: [{name, shift, instant,
 * order, orderMin, certain[, equal]}]; NULL on OOM or a bad index. */
static cJSON *mc_orders_json(const mel_model *m, const mc_impulse *v, size_t n, bool impulsive)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t k = 0; arr != NULL && k < n; k++) {
        const mc_impulse *p = &v[k];
        cJSON *o = cJSON_CreateObject();
        if (p->var >= m->n_variables || !append(arr, o) ||
            !add_str(o, "name", m->variables[p->var].name) || !add_num(o, "shift", p->shift) ||
            !add_num(o, "instant", p->r) || !attach(o, "order", mc_order_num(p->hi)) ||
            !attach(o, "orderMin", mc_order_num(p->lo)) || !add_bool(o, "certain", p->lo > 0) ||
            (impulsive && !attach(o, "equal", mc_items(m, &p->equal, true)))) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

/* A new object o appended to arr with {instant, name, shift}: an item of
 * the mode-change result at instant r; false on OOM (o is then arr's or
 * freed). */
static bool append_instant_item(cJSON *arr, cJSON *o, uint32_t r, const char *name, int shift)
{
    return append(arr, o) && add_num(o, "instant", r) && add_str(o, "name", name) &&
           add_num(o, "shift", shift);
}

/* mc_result.residuals: [{instant, name, shift, order, orderMin}]. */
static cJSON *mc_residuals_json(const mel_model *m, const mc_result *r)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t k = 0; arr != NULL && k < r->n_residuals; k++) {
        const mc_residual *x = &r->residuals[k];
        cJSON *o = cJSON_CreateObject();
        if (x->eq >= m->n_equations ||
            !append_instant_item(arr, o, x->r, m->equations[x->eq].name, x->shift) ||
            !attach(o, "order", mc_order_num(x->hi)) ||
            !attach(o, "orderMin", mc_order_num(x->lo))) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

/* mc_result.std_equations: [{instant, name, shift, derivative, equation
 * (null when not read), why (then)}]. */
static cJSON *mc_std_equations_json(const mel_model *m, const mc_result *r)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t k = 0; arr != NULL && k < r->n_std_equations; k++) {
        const mc_std_equation *x = &r->std_equations[k];
        cJSON *o = cJSON_CreateObject();
        if (x->eq >= m->n_equations ||
            !append_instant_item(arr, o, x->r, m->equations[x->eq].name, x->shift) ||
            !add_num(o, "derivative", x->derivative) ||
            !attach(o, "equation",
                    x->text ? cJSON_CreateString(x->text) : cJSON_CreateNull()) ||
            (x->text == NULL && !add_str(o, "why", x->why ? x->why : ""))) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

/* An eliminating restart relation's elimination (issue 41 item 8):
 * "eliminated":[{equation, standard, standardWhy}], "conditions", "why". */
static bool mc_elimination_json(cJSON *o, const mc_reset *x)
{
    cJSON *arr = cJSON_CreateArray();
    if (!attach(o, "eliminated", arr))
        return false;
    for (size_t k = 0; k < x->n_eliminated; k++) {
        cJSON *e = cJSON_CreateObject();
        const char *sw = x->std_why != NULL ? x->std_why[k] : NULL;
        if (!append(arr, e) || !add_str(e, "equation", x->eliminated[k]) ||
            !attach(e, "standard", str_or_null(x->standard != NULL ? x->standard[k] : NULL)) ||
            !attach(e, "standardWhy", str_or_null(sw)))
            return false;
    }
    return attach(o, "conditions", str_or_null(x->conditions)) &&
           attach(o, "why", str_or_null(x->why));
}

/* mc_result.restart_values (issue 41 item 6): [{instant, values: [{name,
 * value}], conditions, requires, why}] (strings, or null when none). */
static cJSON *mc_restart_values_json(const mc_result *r)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t k = 0; arr != NULL && k < r->n_restart_values; k++) {
        const mc_restart_values *x = &r->restart_values[k];
        cJSON *o = cJSON_CreateObject(), *vs = NULL;
        bool ok = append(arr, o) && add_num(o, "instant", x->r) &&
                  attach(o, "values", vs = cJSON_CreateArray());
        for (size_t i = 0; ok && i < x->n_values; i++) {
            cJSON *v = cJSON_CreateObject();
            ok = append(vs, v) && add_str(v, "name", x->names[i]) &&
                 add_str(v, "value", x->values[i]);
        }
        if (!ok || !attach(o, "conditions", str_or_null(x->conditions)) ||
            !attach(o, "requires", str_or_null(x->requires)) ||
            !attach(o, "why", str_or_null(x->why))) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

/* mc_result.standard: [{instant, name, shift, level, side: "-" | "+" |
 * "event"[, event: e]}] ("event": the value after event e of a cascade). */
static cJSON *mc_standard_json(const mel_model *m, const mc_result *r)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t k = 0; arr != NULL && k < r->n_standard; k++) {
        const mc_standard *x = &r->standard[k];
        cJSON *o = cJSON_CreateObject();
        if (x->var >= m->n_variables ||
            !append_instant_item(arr, o, x->r, m->variables[x->var].name, x->shift) ||
            !add_num(o, "level", x->level) ||
            !add_str(o, "side", x->side == MC_SIDE_PLUS    ? "+"
                                : x->side == MC_SIDE_EVENT ? "event"
                                                           : "-") ||
            (x->side == MC_SIDE_EVENT && !add_num(o, "event", x->event))) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

static cJSON *mc_mode_obj(const mel_model *m, const bool *mode)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    for (uint32_t k = 0; k < m->n_modes; k++)
        if (!attach_copy(o, m->modes[k].name, cJSON_CreateBool(mode[k]))) {
            cJSON_Delete(o);
            return NULL;
        }
    return o;
}

static bool mc_instant_json(const mel_model *m, const mc_instant *in, cJSON *o)
{
    if (!add_num(o, "r", in->r) || !attach(o, "equations", mc_items(m, &in->equations, false)) ||
        !attach(o, "unknowns", mc_items(m, &in->unknowns, true)) ||
        !attach(o, "known", mc_items(m, &in->known, true)) ||
        !attach(o, "context", mc_items(m, &in->context, false)) ||
        !attach(o, "erased", mc_items(m, &in->erased, false)) ||
        !add_str(o, "status", mc_sys_status_name(in->status)) ||
        !attach(o, "overdetermined", mc_items(m, &in->overdetermined, false)) ||
        !attach(o, "underdetermined", mc_items(m, &in->underdetermined, true)))
        return false;
    cJSON *alts = cJSON_CreateArray();
    if (!attach(o, "alternatives", alts))
        return false;
    for (size_t a = 0; a < in->n_alternatives; a++)
        if (!append(alts, mc_items(m, &in->alternatives[a], false)))
            return false;
    return add_bool(o, "alternativesTruncated", in->alternatives_truncated);
}

/* "transient" of a change into a transient mode (engine/mc.h): the long
 * mode after the event, the rising when-clauses, the difference array's
 * depth (null: none determines the event) and size. */
static cJSON *mc_transient_json(const mel_model *m, const mc_transient *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *ws = cJSON_CreateArray();
    if (!attach(o, "back", mc_mode_obj(m, t->back)) || !attach(o, "whens", ws))
        goto nomem;
    for (size_t k = 0; k < t->n_whens; k++) {
        const mel_when *w = &m->whens[t->whens[k]];
        char *c = mel_guard_format(m, w->cond);
        cJSON *x = cJSON_CreateObject();
        bool ok = c != NULL && append(ws, x) && add_str(x, "condition", c) &&
                  attach(x, "range", range_json(w->where));
        mdae_free(c);
        if (!ok)
            goto nomem;
    }
    cJSON *arr = cJSON_CreateObject();
    cJSON *depth = t->depth >= 0 ? cJSON_CreateNumber(t->depth) : cJSON_CreateNull();
    if (!attach(o, "arrayDepth", depth) ||
        !attach(o, "maxDepth",
                t->max_depth >= 0 ? cJSON_CreateNumber(t->max_depth) : cJSON_CreateNull()) ||
        !attach(o, "array", arr) ||
        !add_num(arr, "equations", (double)t->array_rows) ||
        !add_num(arr, "values", (double)t->array_cols) ||
        !attach(o, "undetermined", mc_items(m, &t->undetermined, true)))
        goto nomem;
    /* a cascade (mc.h): every event's mode and depth, and whether it ends */
    cJSON *evs = cJSON_CreateArray();
    if (!attach(o, "events", evs) || !add_bool(o, "endless", t->endless) ||
        !add_bool(o, "tooLong", t->too_long))
        goto nomem;
    for (uint32_t e = 0; e < t->n_events; e++) {
        cJSON *x = cJSON_CreateObject();
        int d = t->depths != NULL ? t->depths[e] : -1;
        if (!append(evs, x) || !attach(x, "mode", mc_mode_obj(m, &t->events[(size_t)e * m->n_modes])) ||
            !attach(x, "arrayDepth", d >= 0 ? cJSON_CreateNumber(d) : cJSON_CreateNull()))
            goto nomem;
    }
    return o;
nomem:
    cJSON_Delete(o);
    return NULL;
}

int rpc_json_modechange(const mel_model *m, const bool *from, const bool *to,
                        const mc_result *r, cJSON **out)
{
    if (m == NULL || r == NULL || out == NULL || (m->n_modes > 0 && (from == NULL || to == NULL)))
        return MDAE_E_INVAL;
    rpc_json_init();
    cJSON *root = cJSON_CreateObject();
    if (root == NULL)
        return MDAE_E_NOMEM;
    if (!attach(root, "from", mc_mode_obj(m, from)) || !attach(root, "to", mc_mode_obj(m, to)) ||
        !add_str(root, "status", mc_status_name(r->status)) ||
        !add_bool(root, "ambiguous", r->ambiguous))
        goto nomem;
    /* only for a change into a transient mode: other changes keep their shape */
    if (r->transient != NULL && !attach(root, "transient", mc_transient_json(m, r->transient)))
        goto nomem;
    /* only for a change out of a transient mode: the cascade's long mode before */
    if (r->entered_from != NULL && !attach(root, "enteredFrom", mc_mode_obj(m, r->entered_from)))
        goto nomem;
    cJSON *ins = cJSON_CreateArray();
    if (!attach(root, "instants", ins))
        goto nomem;
    for (uint32_t k = 0; k < r->n_instants; k++) {
        cJSON *o = cJSON_CreateObject();
        if (!append(ins, o) || !mc_instant_json(m, &r->instants[k], o))
            goto nomem;
    }
    if (!attach(root, "impulsive", mc_orders_json(m, r->impulsive, r->n_impulsive, true)) ||
        !attach(root, "finite", mc_orders_json(m, r->finite, r->n_finite, false)) ||
        !attach(root, "residuals", mc_residuals_json(m, r)) ||
        !attach(root, "standard", mc_standard_json(m, r)) ||
        !attach(root, "standardEquations", mc_std_equations_json(m, r)))
        goto nomem;
    cJSON *rs = cJSON_CreateArray();
    if (!attach(root, "resets", rs))
        goto nomem;
    for (size_t k = 0; k < r->n_resets; k++) {
        const mc_reset *x = &r->resets[k];
        cJSON *o = cJSON_CreateObject();
        if (!append(rs, o) || !add_num(o, "instant", x->r) ||
            !attach(o, "eliminate", mc_items(m, &x->eliminate, true)) ||
            !attach(o, "from", mc_items(m, &x->from, false)) ||
            !add_num(o, "relations", x->relations) ||
            !attach(o, "among", mc_items(m, &x->among, true)) ||
            (x->eliminate.n > 0 && !mc_elimination_json(o, x)))
            goto nomem;
    }
    if (!attach(root, "restartValues", mc_restart_values_json(r)))
        goto nomem;
    cJSON *diags = NULL;
    int rc = rpc_json_diags(&r->diags, &diags);
    if (rc < 0) {
        cJSON_Delete(root);
        return rc;
    }
    if (!attach(root, "diagnostics", diags))
        goto nomem;
    *out = root;
    return MDAE_OK;
nomem:
    cJSON_Delete(root);
    return MDAE_E_NOMEM;
}

static cJSON *mc_mask_obj(const mel_model *m, uint32_t mask)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    for (uint32_t k = 0; k < m->n_modes; k++)
        if (!attach_copy(o, m->modes[k].name, cJSON_CreateBool((mask >> k) & 1u))) {
            cJSON_Delete(o);
            return NULL;
        }
    return o;
}

/* The "equations" entry of equation i (created and attached on first use),
 * its erasedIn array; NULL on OOM. */
static cJSON *erased_in(const mel_model *m, cJSON *eqs, cJSON **per_eq, uint32_t i)
{
    if (per_eq[i] != NULL)
        return per_eq[i];
    cJSON *e = cJSON_CreateObject();
    if (!append(eqs, e))
        return NULL;
    if (!add_str(e, "name", m->equations[i].name))
        return NULL; /* e is in eqs: freed with the tree */
    cJSON *arr = cJSON_CreateArray();
    if (!attach(e, "erasedIn", arr))
        return NULL;
    per_eq[i] = arr;
    return arr;
}

int rpc_json_modechange_pair(const mel_model *m, const mc_pair *p, cJSON **out)
{
    if (m == NULL || p == NULL || out == NULL || m->n_modes > 32)
        return MDAE_E_INVAL;
    rpc_json_init();
    cJSON *o = cJSON_CreateObject();
    if (o == NULL || !attach(o, "from", mc_mask_obj(m, p->from)) ||
        !attach(o, "to", mc_mask_obj(m, p->to)) ||
        !add_str(o, "status", mc_status_name(p->status)) ||
        !add_num(o, "instants", p->n_instants) || !add_bool(o, "ambiguous", p->ambiguous) ||
        !attach(o, "erased", mc_items(m, &p->erased0, false))) {
        cJSON_Delete(o);
        return MDAE_E_NOMEM;
    }
    *out = o;
    return MDAE_OK;
}

/* {"guard": formula, "cubes": [...]} of a set of pair keys, over g (the old
 * mode) and g' (the new one); NULL on OOM. */
static cJSON *pair_set(const mel_model *m, const uint64_t *keys, size_t n)
{
    uint32_t nm = m->n_modes;
    mc_cube *cubes = NULL;
    size_t nc = 0;
    if (mc_cover(keys, n, 2 * nm, &cubes, &nc) < 0)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    if (o == NULL) {
        mdae_free(cubes);
        return NULL;
    }
    mdae_buf b = {0};
    if (nc == 0)
        mdae_buf_puts(&b, "false");
    bool ok = attach(o, "cubes", cJSON_CreateArray());
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "cubes");
    for (size_t k = 0; k < nc && ok; k++) {
        cJSON *cube = cJSON_CreateObject();
        ok = append(arr, cube);
        if (k > 0)
            mdae_buf_puts(&b, " | ");
        bool first = true;
        for (uint32_t bit = 0; bit < 2 * nm && ok; bit++) {
            if (!((cubes[k].care >> bit) & 1u))
                continue;
            bool v = (cubes[k].val >> bit) & 1u;
            const char *name = m->modes[bit % nm].name;
            char key[300];
            snprintf(key, sizeof key, "%s%s", name, bit >= nm ? MC_AFTER : "");
            ok = attach_copy(cube, key, cJSON_CreateBool(v));
            mdae_buf_puts(&b, first ? "" : " & ");
            mdae_buf_puts(&b, v ? "" : "!");
            mel_mode_name_put(&b, name);
            mdae_buf_puts(&b, bit >= nm ? MC_AFTER : "");
            first = false;
        }
        if (first)
            mdae_buf_puts(&b, "true");
    }
    mdae_free(cubes);
    ok = ok && !b.oom && add_str(o, "guard", b.p ? b.p : "false");
    mdae_free(b.p);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* "classes": the pairs of each status, and per equation the pairs that
 * erase it at the first instant, as sets over g, g'. */
static bool pair_classes(const mel_model *m, const mc_all *all, cJSON *root, cJSON *eqs)
{
    uint64_t *keys = mdae_malloc((all->n_pairs + 1) * sizeof *keys);
    if (keys == NULL)
        return false;
    cJSON *classes = cJSON_CreateObject();
    bool ok = attach(root, "classes", classes);
    for (int st = MC_CONTINUOUS; st <= MC_REJECTED && ok; st++) {
        size_t n = 0;
        for (size_t k = 0; k < all->n_pairs; k++)
            if ((int)all->pairs[k].status == st)
                keys[n++] = mc_pair_key(all->pairs[k].from, all->pairs[k].to, m->n_modes);
        ok = attach_copy(classes, mc_status_name((mc_status)st), pair_set(m, keys, n));
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, eqs) {
        if (!ok)
            break;
        size_t n = 0;
        const cJSON *ix;
        cJSON_ArrayForEach(ix, cJSON_GetObjectItemCaseSensitive(e, "erasedIn")) {
            const mc_pair *p = &all->pairs[(size_t)ix->valuedouble];
            keys[n++] = mc_pair_key(p->from, p->to, m->n_modes);
        }
        ok = attach((cJSON *)e, "erasedWhen", pair_set(m, keys, n));
    }
    mdae_free(keys);
    return ok;
}

int rpc_json_modechanges(const mel_model *m, const mc_all *all, cJSON **out)
{
    if (m == NULL || all == NULL || out == NULL || m->n_modes > 32)
        return MDAE_E_INVAL;
    rpc_json_init();
    cJSON *root = cJSON_CreateObject();
    cJSON **per_eq = mdae_calloc((size_t)m->n_equations + 1, sizeof *per_eq);
    if (root == NULL || per_eq == NULL)
        goto nomem;
    /* each child is attached as soon as it exists: on failure, attach has
     * freed it or the tree owns it, so only the root is ever deleted */
    if (!add_str(root, "method", all->method ? all->method : "enumeration") ||
        !add_count(root, "validModes", all->valid_modes, NULL) ||
        !add_count(root, "pairs", (double)all->n_pairs, NULL))
        goto nomem;
    cJSON *counts = cJSON_CreateObject();
    if (!attach(root, "counts", counts) ||
        !add_count(counts, "continuous", (double)all->counts[MC_CONTINUOUS], NULL) ||
        !add_count(counts, "reset", (double)all->counts[MC_RESET], NULL) ||
        !add_count(counts, "rejected", (double)all->counts[MC_REJECTED], NULL))
        goto nomem;
    cJSON *ch = cJSON_CreateArray();
    if (!attach(root, "changes", ch))
        goto nomem;
    cJSON *eq = cJSON_CreateArray();
    if (!attach(root, "equations", eq))
        goto nomem;
    for (size_t k = 0; k < all->n_pairs; k++) {
        const mc_pair *p = &all->pairs[k];
        cJSON *o = NULL;
        if (rpc_json_modechange_pair(m, p, &o) < 0 || !append(ch, o))
            goto nomem;
        for (size_t q = 0; q < p->erased0.n; q++) {
            uint32_t i = p->erased0.items[q].index;
            if (i >= m->n_equations)
                goto nomem;
            cJSON *arr = erased_in(m, eq, per_eq, i);
            if (arr == NULL)
                goto nomem;
            cJSON *last = arr->child ? arr->child->prev : NULL;
            if (last != NULL && last->valuedouble == (double)k)
                continue; /* two shifts of one equation in one change */
            if (!append(arr, cJSON_CreateNumber((double)k)))
                goto nomem;
        }
    }
    if (m->n_modes <= 32 && !pair_classes(m, all, root, eq))
        goto nomem;
    cJSON *diags = NULL;
    int rc = rpc_json_diags(&all->diags, &diags);
    if (rc < 0) {
        mdae_free(per_eq);
        cJSON_Delete(root);
        return rc;
    }
    if (!attach(root, "diagnostics", diags))
        goto nomem;
    mdae_free(per_eq);
    *out = root;
    return MDAE_OK;
nomem:
    mdae_free(per_eq);
    cJSON_Delete(root);
    return MDAE_E_NOMEM;
}

/* ---- The first instant of every change (mc_first_instants) ------------------------- */

/* A set of f's pairs into x: guard and cubes, or both null with
 * "cubesLeftOut" past the cubes' limit. */
static int add_pairs_set(cJSON *x, const mc_first *f, const char *const *names, const sa_set *set,
                         bool left_out)
{
    if (!left_out)
        return add_set_over(x, f->n_names, names, set);
    return attach(x, "guard", cJSON_CreateNull()) && attach(x, "cubes", cJSON_CreateNull()) &&
                   add_str(x, "cubesLeftOut", "more than 4096 cubes")
               ? MDAE_OK
               : MDAE_E_NOMEM;
}

/* A new object appended to arr, or NULL (out of memory). */
static cJSON *push_object(cJSON *arr)
{
    cJSON *x = cJSON_CreateObject();
    if (x != NULL && cJSON_AddItemToArray(arr, x))
        return x;
    cJSON_Delete(x);
    return NULL;
}

/* A part of --first's answer asked and not computed: o[key] null and
 * o[why_key] the reason; nothing when not asked (why NULL or "not
 * asked"). */
static int add_not_computed(cJSON *o, const char *key, const char *why_key, const char *why)
{
    if (why == NULL || strcmp(why, "not asked") == 0)
        return MDAE_OK;
    bool ok = attach_copy(o, key, cJSON_CreateNull()) &&
              attach_copy(o, why_key, cJSON_CreateString(why));
    return ok ? MDAE_OK : MDAE_E_NOMEM;
}

/* f's erasures (mc_options.first_erasures): "erasures": [{name, shift,
 * pairs, guard, cubes}] when computed, null with "erasuresNotComputed"
 * when asked and not computed, nothing when not asked. */
/* [{name, shift, pairs, guard, cubes}] of rows (mc_first_erasure) into arr. */
static int add_rows(cJSON *arr, const mc_first *f, const char *const *names,
                    const mc_first_erasure *rows, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const mc_first_erasure *e = &rows[k];
        cJSON *x = push_object(arr);
        if (x == NULL || !add_str(x, "name", e->equation) || !add_num(x, "shift", e->shift) ||
            !add_count(x, "pairs", e->pairs, &e->pairs_exact))
            return MDAE_E_NOMEM;
        int rc = add_pairs_set(x, f, names, &e->set, e->cubes_left_out);
        if (rc != MDAE_OK)
            return rc;
    }
    return MDAE_OK;
}

/* [{name, shift, order, orderMin[, certain, equal]}] of the values v. */
static cJSON *first_orders_json(const mc_first_order *v, size_t n, bool impulsive)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t k = 0; arr != NULL && k < n; k++) {
        cJSON *o = push_object(arr), *eq = NULL;
        bool ok = o != NULL && add_str(o, "name", v[k].value.name) &&
                  add_num(o, "shift", v[k].value.shift) &&
                  attach(o, "order", mc_order_num(v[k].hi)) &&
                  attach(o, "orderMin", mc_order_num(v[k].lo)) &&
                  (!impulsive || (add_bool(o, "certain", v[k].lo > 0) &&
                                  attach(o, "equal", eq = cJSON_CreateArray())));
        for (size_t q = 0; ok && impulsive && q < v[k].n_equal; q++) {
            cJSON *x = push_object(eq);
            ok = x != NULL && add_str(x, "name", v[k].equal[q].name) &&
                 add_num(x, "shift", v[k].equal[q].shift);
        }
        if (!ok) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

/* "impulses": the impulse orders of a restart instant by class of pairs
 * (mc_first_impulses, issue 41 item 7): [{status, priorsForced, pairs,
 * guard, cubes, impulsive, finite}]; null with "impulsesNotComputed" when
 * asked and not computed; nothing when not asked (why NULL or "not
 * asked"). */
static int add_impulses(cJSON *o, const mc_first *f, const char *const *names, bool computed,
                        const char *why, const mc_first_impulses *c, size_t n)
{
    if (!computed)
        return add_not_computed(o, "impulses", "impulsesNotComputed", why);
    cJSON *arr = cJSON_CreateArray();
    if (!attach(o, "impulses", arr))
        return MDAE_E_NOMEM;
    for (size_t k = 0; k < n; k++) {
        cJSON *x = push_object(arr);
        if (x == NULL || !add_str(x, "status", mc_impulse_status_name(c[k].status)) ||
            !add_bool(x, "priorsForced", c[k].priors_forced) ||
            !add_count(x, "pairs", c[k].pairs, &c[k].pairs_exact) ||
            !attach(x, "impulsive", first_orders_json(c[k].impulsive, c[k].n_impulsive, true)) ||
            !attach(x, "finite", first_orders_json(c[k].finite, c[k].n_finite, false)))
            return MDAE_E_NOMEM;
        int rc = add_pairs_set(x, f, names, &c[k].set, c[k].cubes_left_out);
        if (rc != MDAE_OK)
            return rc;
    }
    return MDAE_OK;
}

/* "instants" of "changes": every later instant (mc_first.later) with its
 * pairs, classes, erasures and restart system as sets of pairs. */
static int add_later(cJSON *ch, const mc_first *f, const char *const *names)
{
    cJSON *arr = cJSON_CreateArray();
    if (!attach(ch, "instants", arr))
        return MDAE_E_NOMEM;
    for (size_t k = 0; k < f->n_later; k++) {
        const mc_first_instant *li = &f->later[k];
        cJSON *x = push_object(arr), *counts = NULL, *er = NULL, *rows = NULL;
        if (x == NULL || !attach(x, "counts", counts = cJSON_CreateObject()) ||
            !attach(x, "erasures", er = cJSON_CreateArray()) ||
            !attach(x, "restartSystem", rows = cJSON_CreateArray()))
            return MDAE_E_NOMEM; /* attach deleted the child it could not attach */
        if (!add_num(x, "r", li->r) || !add_count(x, "pairs", li->pairs, &li->pairs_exact) ||
            !add_count(counts, "ends", li->counts[MC_FIRST_CONTINUOUS],
                       &li->counts_exact[MC_FIRST_CONTINUOUS]) ||
            !add_count(counts, "erases", li->counts[MC_FIRST_RESTART],
                       &li->counts_exact[MC_FIRST_RESTART]) ||
            !add_count(counts, "rejected", li->counts[MC_FIRST_REJECTED],
                       &li->counts_exact[MC_FIRST_REJECTED]))
            return MDAE_E_NOMEM;
        int rc = add_rows(er, f, names, li->erasures, li->n_erasures);
        if (rc == MDAE_OK)
            rc = add_rows(rows, f, names, li->rows, li->n_rows);
        if (rc == MDAE_OK)
            rc = add_impulses(x, f, names, li->impulses_computed, li->impulses_why,
                              li->impulses, li->n_impulses);
        if (rc != MDAE_OK)
            return rc;
    }
    return MDAE_OK;
}

static int add_erasures(cJSON *o, const mc_first *f, const char *const *names)
{
    if (!f->erasures_computed)
        return add_not_computed(o, "erasures", "erasuresNotComputed", f->erasures_why);
    cJSON *arr = cJSON_CreateArray();
    if (!attach(o, "erasures", arr) ||
        !add_bool(o, "erasuresOfRejected", f->erasures_of_rejected) ||
        (!f->erasures_of_rejected && f->counts[MC_FIRST_REJECTED] > 0 &&
         !add_str(o, "erasuresOfRejectedWhy",
                  "on BDDs (more than 65,536 pairs need a restart or are rejected), the "
                  "erasures are computed in the pairs that need a restart only")))
        return MDAE_E_NOMEM;
    for (size_t k = 0; k < f->n_erasures; k++) {
        const mc_first_erasure *e = &f->erasures[k];
        cJSON *x = push_object(arr);
        if (x == NULL || !add_str(x, "name", e->equation) || !add_num(x, "shift", e->shift) ||
            !add_count(x, "pairs", e->pairs, &e->pairs_exact))
            return MDAE_E_NOMEM;
        int rc = add_pairs_set(x, f, names, &e->set, e->cubes_left_out);
        if (rc != MDAE_OK)
            return rc;
    }
    return MDAE_OK;
}

/* f's whole changes (mc_options.first_later): "changes": {counts:
 * {continuous, reset, rejected}, outcomes: [{status, instants, pairs,
 * guard, cubes}]} when computed; null with "changesNotComputed" when asked
 * and not computed; nothing when not asked. */
static int add_changes(cJSON *o, const mc_first *f, const char *const *names)
{
    if (!f->later_computed)
        return add_not_computed(o, "changes", "changesNotComputed", f->later_why);
    cJSON *ch = cJSON_CreateObject(), *counts = cJSON_CreateObject();
    cJSON *arr = cJSON_CreateArray();
    if (!attach(o, "changes", ch)) {
        cJSON_Delete(counts);
        cJSON_Delete(arr);
        return MDAE_E_NOMEM;
    }
    if (!attach(ch, "counts", counts) || !attach(ch, "outcomes", arr) ||
        !add_count(counts, "continuous", f->status_counts[MC_CONTINUOUS],
                   &f->status_counts_exact[MC_CONTINUOUS]) ||
        !add_count(counts, "reset", f->status_counts[MC_RESET],
                   &f->status_counts_exact[MC_RESET]) ||
        !add_count(counts, "rejected", f->status_counts[MC_REJECTED],
                   &f->status_counts_exact[MC_REJECTED]))
        return MDAE_E_NOMEM;
    for (size_t k = 0; k < f->n_outcomes; k++) {
        const mc_first_outcome *oc = &f->outcomes[k];
        cJSON *x = push_object(arr);
        if (x == NULL || !add_str(x, "status", mc_status_name(oc->status)) ||
            !add_num(x, "instants", oc->instants) ||
            !add_count(x, "pairs", oc->pairs, &oc->pairs_exact))
            return MDAE_E_NOMEM;
        int rc = add_pairs_set(x, f, names, &oc->set, oc->cubes_left_out);
        if (rc != MDAE_OK)
            return rc;
    }
    return add_later(ch, f, names);
}

/* {"guard": formula} of the event pairs of f->events with this status, over
 * f's names (g0, g0\u207a, ...: key bit b < n is g_b, bit n + b is
 * g_b\u207a, as the pairs' sets write them). */
static cJSON *event_class(const mc_first *f, const char *const *names, int status)
{
    const mc_all *a = f->events;
    uint32_t nm = f->n_names / 2;
    uint64_t *keys = mdae_malloc((a->n_pairs + 1) * sizeof *keys);
    size_t n = 0, nc = 0;
    for (size_t k = 0; keys != NULL && k < a->n_pairs; k++)
        if ((int)a->pairs[k].status == status)
            keys[n++] = mc_pair_key(a->pairs[k].from, a->pairs[k].to, nm);
    mc_cube *cubes = NULL;
    if (keys == NULL || mc_cover(keys, n, 2 * nm, &cubes, &nc) < 0) {
        mdae_free(keys);
        return NULL;
    }
    mdae_free(keys);
    mdae_buf b = {0};
    mdae_buf_puts(&b, nc == 0 ? "false" : "");
    for (size_t k = 0; k < nc; k++) {
        mdae_buf_puts(&b, k > 0 ? " | " : "");
        bool first = true;
        for (uint32_t bit = 0; bit < 2 * nm; bit++) {
            if (!((cubes[k].care >> bit) & 1u))
                continue;
            mdae_buf_puts(&b, first ? "" : " & ");
            mdae_buf_puts(&b, (cubes[k].val >> bit) & 1u ? "" : "!");
            mel_mode_name_put(&b, names[2 * (bit < nm ? bit : bit - nm)]);
            mdae_buf_puts(&b, bit < nm ? "" : MC_AFTER);
            first = false;
        }
        mdae_buf_puts(&b, first ? "true" : "");
    }
    mdae_free(cubes);
    cJSON *o = cJSON_CreateObject();
    if (o == NULL || b.oom || !add_str(o, "guard", b.p != NULL ? b.p : "false")) {
        cJSON_Delete(o);
        o = NULL;
    }
    mdae_free(b.p);
    return o;
}

/* "events": the changes through when events, whole, by enumeration
 * (mc_first.events), or "eventsWhy" when they were not enumerated. */
static int add_events(cJSON *o, const mc_first *f, const char *const *names)
{
    if (f->events == NULL)
        return f->events_why == NULL || add_str(o, "eventsWhy", f->events_why) ? MDAE_OK
                                                                                : MDAE_E_NOMEM;
    cJSON *ev = cJSON_CreateObject(), *counts = cJSON_CreateObject(),
          *classes = cJSON_CreateObject();
    bool ok = attach(o, "events", ev) && attach(ev, "counts", counts) &&
              attach(ev, "classes", classes);
    if (!ok) {
        cJSON_Delete(counts);
        cJSON_Delete(classes);
        return MDAE_E_NOMEM;
    }
    ok = add_str(ev, "method", "enumeration") &&
         add_str(ev, "scope", "every change from a valid long mode into a transient mode (the "
                              "events of when-clauses), every instant, cascades included") &&
         add_num(ev, "pairs", (double)f->events->n_pairs);
    for (int st = MC_CONTINUOUS; st <= MC_REJECTED && ok; st++)
        ok = attach_copy(counts, mc_status_name((mc_status)st),
                         cJSON_CreateNumber((double)f->events->counts[st])) &&
             attach_copy(classes, mc_status_name((mc_status)st), event_class(f, names, st));
    return ok ? MDAE_OK : MDAE_E_NOMEM;
}

int rpc_json_guard_refusal(const mel_model *m, const char *enumeration_skipped, cJSON **out)
{
    if (m == NULL || out == NULL)
        return MDAE_E_INVAL;
    rpc_json_init();
    mdae_diags d;
    mdae_diags_init(&d);
    size_t n = 0;
    int rc = mc_guard_fixpoints(m, &d, &n);
    cJSON *o = NULL, *diags = NULL;
    if (rc == MDAE_OK && n > 0)
        rc = rpc_json_diags(&d, &diags);
    mdae_diags_close(&d);
    if (rc != MDAE_OK || n == 0) {
        *out = NULL;
        return rc;
    }
    o = cJSON_CreateObject();
    if (o == NULL) {
        cJSON_Delete(diags);
        return MDAE_E_NOMEM;
    }
    /* the diagnostics first into o: o owns them from then on */
    if (!attach(o, "diagnostics", diags) || !add_str(o, "method", "bdd") ||
        !add_str(o, "status", "rejected") ||
        !add_str(o, "reason",
                 "the model has a guard fixpoint: a mode variable is defined from the current "
                 "value of a variable its own equations determine, so every mode change is "
                 "refused; define it from the left limit, last(x) (Modelica: pre(x)), as the "
                 "diagnostics say (RR-9459 section 5.2)") ||
        !add_num(o, "guardFixpoints", (double)n) ||
        (enumeration_skipped != NULL && !add_str(o, "enumerationSkipped", enumeration_skipped))) {
        cJSON_Delete(o);
        return MDAE_E_NOMEM;
    }
    *out = o;
    return MDAE_OK;
}

int rpc_json_first_instants(const mc_first *f, const char *enumeration_skipped, cJSON **out)
{
    if (f == NULL || out == NULL)
        return MDAE_E_INVAL;
    rpc_json_init();
    static const char *const keys[3] = {"continuous", "restart", "rejected"};
    static const char *const keys_exact[3] = {"continuousExact", "restartExact", "rejectedExact"};
    static const char *const keys_log2[3] = {"continuousLog2", "restartLog2", "rejectedLog2"};
    const char **names = mdae_calloc((size_t)f->n_names + 1, sizeof *names);
    cJSON *o = cJSON_CreateObject();
    int rc = names != NULL && o != NULL ? MDAE_OK : MDAE_E_NOMEM;
    for (uint32_t k = 0; k < f->n_names && rc == MDAE_OK; k++)
        names[k] = mc_first_name(f, k);
    cJSON *counts = cJSON_CreateObject(), *classes = cJSON_CreateObject();
    if (rc == MDAE_OK &&
        !(add_str(o, "method", "bdd") &&
          add_str(o, "scope", "the first instant of every change between two different valid "
                              "nonsingular long modes") &&
          add_count(o, "pairs", f->pairs, &f->pairs_exact) && attach(o, "counts", counts) &&
          attach(o, "classes", classes) &&
          (f->transient_whens == 0 || f->events != NULL ||
           (add_num(o, "whenClausesNotCovered", f->transient_whens) &&
            add_str(o, "whenClausesWhy",
                    "the changes through the transient modes of when-clauses (events) are "
                    "not among these pairs: session/modechange (one change) and "
                    "session/modechanges without first (every pair, small models) "
                    "analyse them")))))
        rc = MDAE_E_NOMEM;
    else if (rc != MDAE_OK) {
        cJSON_Delete(counts);
        cJSON_Delete(classes);
    }
    for (int k = 0; k < 3 && rc == MDAE_OK; k++) {
        cJSON *set = cJSON_CreateObject();
        if (!add_count_(counts, keys[k], keys_exact[k], keys_log2[k], f->counts[k],
                        &f->counts_exact[k])) {
            cJSON_Delete(set);
            rc = MDAE_E_NOMEM;
        } else if (!attach_copy(classes, keys[k], set))
            rc = MDAE_E_NOMEM;
        else if (!f->cubes_left_out[k])
            rc = add_set_over(set, f->n_names, names, &f->classes[k]);
        else if (!(f->classes[k].formula != NULL ? add_str(set, "guard", f->classes[k].formula)
                                                  : attach(set, "guard", cJSON_CreateNull())) ||
                 !attach(set, "cubes", cJSON_CreateNull()) ||
                 !add_str(set, "cubesLeftOut",
                          "more than 4096 cubes: the guard is the complement of the other "
                          "classes over the pairs"))
            rc = MDAE_E_NOMEM;
    }
    if (rc == MDAE_OK)
        rc = add_erasures(o, f, names);
    if (rc == MDAE_OK)
        rc = add_impulses(o, f, names, f->impulses_computed, f->impulses_why, f->impulses,
                          f->n_impulses);
    if (rc == MDAE_OK)
        rc = add_changes(o, f, names);
    if (rc == MDAE_OK)
        rc = add_events(o, f, names);
    if (rc == MDAE_OK && enumeration_skipped != NULL &&
        !add_str(o, "enumerationSkipped", enumeration_skipped))
        rc = MDAE_E_NOMEM;
    mdae_free(names);
    if (rc != MDAE_OK) {
        cJSON_Delete(o);
        return rc;
    }
    *out = o;
    return MDAE_OK;
}

/* ---- What single-mode tools do (issue 38; engine/ap.h) --------------------- */

static cJSON *int_or_null(long v) { return v >= 0 ? cJSON_CreateNumber((double)v) : cJSON_CreateNull(); }

/* {"formula","cubes"} of s, plus "count" when count >= 0. */
static cJSON *approx_set(const ap_report *rep, const sa_set *s, double count)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *cubes = NULL;
    if (o == NULL || !add_str(o, "formula", s->formula ? s->formula : "false") ||
        rpc_json_set_cubes(rep->n_modes, (const char *const *)rep->mode_names, s, &cubes) < 0 ||
        !attach(o, "cubes", cubes) || (count >= 0 && !add_num(o, "count", count))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *name_array(char *const *names, const uint32_t *idx, uint32_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (uint32_t k = 0; a != NULL && k < n; k++)
        if (!append(a, cJSON_CreateString(names[idx ? idx[k] : k]))) {
            cJSON_Delete(a);
            return NULL;
        }
    return a;
}

static cJSON *approx_equation(const ap_report *rep, const ap_equation *e)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL || !add_str(o, "name", e->name) ||
        !attach(o, "members", name_array(rep->eq_names, e->members, e->n_members)) ||
        !attach(o, "matched", e->matched >= 0 ? cJSON_CreateString(rep->var_names[e->matched])
                                              : cJSON_CreateNull()) ||
        !attach(o, "c", int_or_null(e->c))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *approx_variable(const ap_report *rep, uint32_t v)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL || !add_str(o, "name", rep->var_names[v]) ||
        !attach(o, "d", int_or_null(rep->d[v]))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *approx_block(const ap_report *rep, const ap_block *b)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    cJSON *eqs = cJSON_CreateArray();
    bool ok = attach(o, "equations", eqs);
    cJSON *vars = ok ? cJSON_CreateArray() : NULL;
    ok = ok && attach(o, "variables", vars);
    for (uint32_t k = 0; ok && k < b->n; k++) {
        const ap_equation *e = &rep->equations[b->equations[k]];
        ok = append(eqs, cJSON_CreateString(e->name)) &&
             append(vars, cJSON_CreateString(rep->var_names[e->matched]));
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static const char *finding_equation(const ap_report *rep, const ap_finding *f)
{
    if (f->equation >= 0)
        return rep->eq_names[f->equation];
    if (f->kind == AP_PIVOT && f->approx_eq >= 0)
        return rep->equations[f->approx_eq].name;
    return NULL;
}

static cJSON *approx_finding(const ap_report *rep, const ap_finding *f)
{
    cJSON *o = cJSON_CreateObject();
    const char *eq = finding_equation(rep, f);
    if (o == NULL || !add_str(o, "kind", ap_kind_name(f->kind)) ||
        !attach(o, "equation", str_or_null(eq)) ||
        !attach(o, "variable", str_or_null(f->variable >= 0 ? rep->var_names[f->variable] : NULL)) ||
        !add_num(o, "order", f->order) || !attach(o, "pivot", str_or_null(f->pivot)) ||
        !attach(o, "approx", int_or_null(f->approx)) ||
        !attach(o, "modes", approx_set(rep, &f->modes, -1)) || !add_num(o, "count", f->count) ||
        !attach(o, "where", f->where.start.line ? range_json(f->where) : cJSON_CreateNull()) ||
        !add_str(o, "message", f->message ? f->message : "")) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* A member holding an array built by fn over n items. */
static bool approx_array(cJSON *root, const char *key, const ap_report *rep, size_t n,
                         cJSON *(*fn)(const ap_report *rep, size_t k))
{
    cJSON *a = cJSON_CreateArray();
    if (!attach_literal(root, key, a))
        return false;
    for (size_t k = 0; k < n; k++)
        if (!append(a, fn(rep, k)))
            return false;
    return true;
}

static cJSON *eq_at(const ap_report *rep, size_t k) { return approx_equation(rep, &rep->equations[k]); }
static cJSON *var_at(const ap_report *rep, size_t k) { return approx_variable(rep, (uint32_t)k); }
static cJSON *block_at(const ap_report *rep, size_t k) { return approx_block(rep, &rep->blocks[k]); }
static cJSON *finding_at(const ap_report *rep, size_t k) { return approx_finding(rep, &rep->findings[k]); }

static cJSON *dm_names(const ap_report *rep, bool equations)
{
    cJSON *a = cJSON_CreateArray();
    uint32_t n = equations ? rep->n_equations : rep->n_variables;
    for (uint32_t k = 0; a != NULL && k < n; k++) {
        bool in = equations ? rep->equations[k].overdetermined : rep->underdetermined[k];
        if (in && !append(a, cJSON_CreateString(equations ? rep->equations[k].name
                                                           : rep->var_names[k]))) {
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

int rpc_json_approx(const ap_report *rep, cJSON **out)
{
    if (rep == NULL || out == NULL || rep->wrong_modes_left || rep->details_left)
        return MDAE_E_INVAL;
    for (size_t k = 0; k < rep->n_findings; k++)
        if (rep->findings[k].variable >= (long)rep->n_variables ||
            rep->findings[k].equation >= (long)rep->n_model_equations ||
            rep->findings[k].approx_eq >= (long)rep->n_equations)
            return MDAE_E_INVAL;
    rpc_json_init();
    cJSON *root = cJSON_CreateObject();
    if (root == NULL || !add_bool(root, "accepted", rep->accepted) ||
        !approx_array(root, "equations", rep, rep->n_equations, eq_at) ||
        !approx_array(root, "variables", rep, rep->n_variables, var_at) ||
        !approx_array(root, "blocks", rep, rep->n_blocks, block_at) ||
        !approx_array(root, "findings", rep, rep->n_findings, finding_at) ||
        !attach(root, "wrong_modes", approx_set(rep, &rep->wrong_modes, rep->wrong_count)) ||
        !add_num(root, "valid_modes", rep->valid_modes) ||
        !attach(root, "overdetermined", dm_names(rep, true)) ||
        !attach(root, "underdetermined", dm_names(rep, false))) {
        cJSON_Delete(root);
        return MDAE_E_NOMEM;
    }
    *out = root;
    return MDAE_OK;
}
