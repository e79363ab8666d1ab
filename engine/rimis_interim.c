/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/rimis_interim.c -- INTERIM, until rimis_peval.c (h-peval) lands:
 * minimal versions of rimis__cond_bdd, rimis__cond_fx and rimis__peval
 * (engine/rimis_int.h), so that the core can be built and tested:
 *  - rimis__cond_bdd: FX_BOOL, FX_MODE, FX_NOT, FX_AND, FX_OR only;
 *  - rimis__cond_fx: the ISOP cover of [lo, hi], cube by cube;
 *  - rimis__peval: an FX_IF whose condition is decided is replaced by its
 *    branch, nothing else (no shorter condition), then folded.
 * The file goes away when the real one is merged.
 */
#include "rimis_int.h"

#include <string.h>

static const mdae_range r0;

BDD rimis__cond_bdd(sa_ctx *c, const sa_result *r, const fx_node *e, bool *decided)
{
    *decided = true;
    switch ((fx_op)e->op) {
    case FX_BOOL: return e->num != 0 ? bddtrue : bddfalse;
    case FX_MODE: return sa__tmp(c, bdd_ithvar(r->mode_var[e->index]));
    case FX_NOT: {
        BDD a = rimis__cond_bdd(c, r, e->kids[0], decided);
        return *decided ? sa__tmp(c, bdd_not(a)) : bddfalse;
    }
    case FX_AND:
    case FX_OR: {
        BDD acc = e->op == FX_AND ? bddtrue : bddfalse;
        for (uint32_t i = 0; i < e->n && *decided; i++) {
            BDD k = rimis__cond_bdd(c, r, e->kids[i], decided);
            acc = sa__tmp(c, e->op == FX_AND ? sa__and(acc, k) : sa__or(acc, k));
        }
        return *decided ? acc : bddfalse;
    }
    default: *decided = false; return bddfalse;
    }
}

typedef struct cover {
    const sa_result *r;
    fx_pool *p;
    const fx_node **cubes;
    size_t n, cap;
    bool oom;
} cover;

static const fx_node *cube_fx(cover *o, const signed char *cur)
{
    const fx_node *lits[64];
    const fx_node **v = lits;
    uint32_t n = 0, cap = 64;
    for (uint32_t k = 0; k < o->r->n_modes; k++) {
        if (cur[k] < 0)
            continue;
        if (n == cap) {
            const fx_node **w = mdae_malloc(2 * cap * sizeof *w);
            if (w == NULL)
                return NULL;
            memcpy(w, v, n * sizeof *w);
            if (v != lits)
                mdae_free(v);
            v = w;
            cap *= 2;
        }
        const fx_node *m = fx_mode(o->p, k, r0);
        v[n++] = cur[k] ? m : fx_un(o->p, FX_NOT, m, r0);
    }
    const fx_node *e = n == 0 ? fx_bool(o->p, true, r0) : n == 1 ? v[0] : fx_make(o->p, FX_AND, v, n, r0);
    if (v != lits)
        mdae_free(v);
    return e;
}

static void emit(sa_ctx *c, void *arg, const signed char *cur)
{
    (void)c;
    cover *o = arg;
    const fx_node *e = cube_fx(o, cur);
    if (e == NULL || o->oom) {
        o->oom = true;
        return;
    }
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 8;
        const fx_node **w = mdae_realloc(o->cubes, cap * sizeof *w);
        if (w == NULL) {
            o->oom = true;
            return;
        }
        o->cubes = w;
        o->cap = cap;
    }
    o->cubes[o->n++] = e;
}

const fx_node *rimis__cond_fx(sa_ctx *c, const sa_result *r, fx_pool *p, BDD lo, BDD hi)
{
    cover o = {.r = r, .p = p};
    BDD *out = sa__slots(c, 1);
    sa__isop(c, r, lo, hi, emit, &o, out);
    const fx_node *e = NULL;
    if (!o.oom)
        e = o.n == 0   ? fx_bool(p, false, r0)
            : o.n == 1 ? o.cubes[0]
                       : fx_make(p, FX_OR, o.cubes, (uint32_t)o.n, r0);
    mdae_free(o.cubes);
    return e;
}

const fx_node *rimis__peval(sa_ctx *c, const sa_result *r, fx_pool *p, const fx_node *e, BDD q,
                            BDD care)
{
    if (e == NULL)
        return NULL;
    if (e->op == FX_IF) {
        bool decided = false;
        BDD k = rimis__cond_bdd(c, r, e->kids[0], &decided);
        BDD in = sa__tmp(c, sa__and(q, care));
        if (decided && sa__diff(in, k) == bddfalse)
            return rimis__peval(c, r, p, e->kids[1], q, care);
        if (decided && sa__and(in, k) == bddfalse)
            return rimis__peval(c, r, p, e->kids[2], q, care);
    }
    if (e->n == 0)
        return e;
    const fx_node **kids = sa__alloc_raw(c, e->n * sizeof *kids);
    bool changed = false;
    for (uint32_t i = 0; i < e->n; i++) {
        kids[i] = rimis__peval(c, r, p, e->kids[i], q, care);
        if (kids[i] == NULL)
            return NULL;
        changed = changed || kids[i] != e->kids[i];
    }
    if (!changed)
        return e;
    const fx_node *n = e->op == FX_CALL ? fx_call(p, (fx_fn)e->fn, e->name, kids, e->n, e->where)
                       : e->op == FX_OPAQUE ? fx_opaque(p, e->name, kids, e->n, e->where)
                                            : fx_make(p, (fx_op)e->op, kids, e->n, e->where);
    return fx_fold(p, n);
}
