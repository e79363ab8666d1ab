/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/fx.c -- expression pools, constructors, the table of known
 * functions, structural equality (engine/fx.h).
 *
 * A pool is the front-end's bump arena (mel_ast.h) with a sticky failure
 * flag: nodes and their kid arrays are allocated together and never freed
 * one by one.
 */
#include "fx.h"
#include "fx_int.h"
#include "mel_ast.h"

#include <assert.h>
#include <string.h>

struct fx_pool {
    mel__arena arena;
    size_t holders; /* the creator and fx_pool_hold's, less fx_pool_free's */
    bool failed;
    bool keep_reads; /* fx_fold_keep / fx_dt_keep running (fx_int.h) */
};

fx_pool *fx_pool_new(void)
{
    fx_pool *p = mdae_calloc(1, sizeof *p);
    if (p != NULL) {
        mel__arena_init(&p->arena);
        p->holders = 1;
    }
    return p;
}

fx_pool *fx_pool_hold(fx_pool *p)
{
    assert(p != NULL && p->holders > 0);
    p->holders++;
    return p;
}

void fx_pool_free(fx_pool *p)
{
    if (p == NULL)
        return;
    assert(p->holders > 0);
    if (--p->holders > 0)
        return;
    mel__arena_free(&p->arena);
    mdae_free(p);
}

bool fx_pool_failed(const fx_pool *p)
{
    return p == NULL || p->failed;
}

size_t fx_pool_bytes(const fx_pool *p)
{
    return p != NULL ? p->arena.total : 0;
}

static void *pool_alloc(fx_pool *p, size_t n)
{
    if (p == NULL || p->failed)
        return NULL;
    void *q = mel__arena_alloc_raw(&p->arena, n);
    if (q == NULL)
        p->failed = true;
    return q;
}

bool fx__pool_keeps_reads(const fx_pool *p)
{
    return p != NULL && p->keep_reads;
}

bool fx__pool_set_keep_reads(fx_pool *p, bool on)
{
    assert(p != NULL);
    bool was = p->keep_reads;
    p->keep_reads = on;
    return was;
}

void *fx__pool_alloc(fx_pool *p, size_t n)
{
    return pool_alloc(p, n > 0 ? n : 1);
}

const char *fx_pool_strndup(fx_pool *p, const char *s, size_t n)
{
    if (n == SIZE_MAX)
        return NULL;
    char *q = pool_alloc(p, n + 1);
    if (q == NULL)
        return NULL;
    memcpy(q, s, n);
    q[n] = '\0';
    return q;
}

/* A node of op with room for n kids right after it (kids left for the
 * caller to fill). */
static fx_node *node_new(fx_pool *p, fx_op op, uint32_t n, mdae_range where)
{
    size_t size = sizeof(fx_node) + (size_t)n * sizeof(const fx_node *);
    fx_node *e = pool_alloc(p, size);
    if (e == NULL)
        return NULL;
    *e = (fx_node){.op = (uint8_t)op, .n = n, .where = where};
    e->kids = n > 0 ? (const fx_node *const *)(e + 1) : NULL;
    return e;
}

const fx_node *fx_num(fx_pool *p, double v, bool is_int, mdae_range where)
{
    fx_node *e = node_new(p, FX_NUM, 0, where);
    if (e != NULL) {
        e->num = v;
        e->is_int = is_int;
    }
    return e;
}

const fx_node *fx_bool(fx_pool *p, bool v, mdae_range where)
{
    fx_node *e = node_new(p, FX_BOOL, 0, where);
    if (e != NULL)
        e->num = v ? 1 : 0;
    return e;
}

const fx_node *fx_time(fx_pool *p, mdae_range where)
{
    return node_new(p, FX_TIME, 0, where);
}

static const fx_node *leaf_index(fx_pool *p, fx_op op, uint32_t index, uint32_t order,
                                 mdae_range where)
{
    assert(order <= MEL_MAX_ORDER);
    fx_node *e = node_new(p, op, 0, where);
    if (e != NULL) {
        e->index = index;
        e->order = (uint16_t)order;
    }
    return e;
}

const fx_node *fx_var(fx_pool *p, uint32_t var, uint32_t order, mdae_range where)
{
    return leaf_index(p, FX_VAR, var, order, where);
}

const fx_node *fx_known(fx_pool *p, uint32_t k, mdae_range where)
{
    return leaf_index(p, FX_KNOWN, k, 0, where);
}

const fx_node *fx_mode(fx_pool *p, uint32_t k, mdae_range where)
{
    return leaf_index(p, FX_MODE, k, 0, where);
}

/* A node with kids copied from kids[0..n), NULL if any is NULL. */
static fx_node *node_with_kids(fx_pool *p, fx_op op, const fx_node *const *kids, uint32_t n,
                               mdae_range where)
{
    for (uint32_t k = 0; k < n; k++)
        if (kids[k] == NULL)
            return NULL;
    fx_node *e = node_new(p, op, n, where);
    if (e != NULL && n > 0)
        memcpy((void *)e->kids, kids, (size_t)n * sizeof *kids);
    return e;
}

const fx_node *fx_make(fx_pool *p, fx_op op, const fx_node *const *kids, uint32_t n,
                       mdae_range where)
{
    assert(op >= FX_NEG && op <= FX_NEXT && op != FX_CALL);
    assert((op != FX_ADD && op != FX_MUL && op != FX_AND && op != FX_OR) || n >= 2);
    return node_with_kids(p, op, kids, n, where);
}

const fx_node *fx_un(fx_pool *p, fx_op op, const fx_node *a, mdae_range where)
{
    return fx_make(p, op, &a, 1, where);
}

const fx_node *fx_bin(fx_pool *p, fx_op op, const fx_node *a, const fx_node *b,
                      mdae_range where)
{
    const fx_node *kids[2] = {a, b};
    return fx_make(p, op, kids, 2, where);
}

const fx_node *fx_if(fx_pool *p, const fx_node *c, const fx_node *a, const fx_node *b,
                     mdae_range where)
{
    const fx_node *kids[3] = {c, a, b};
    return fx_make(p, FX_IF, kids, 3, where);
}

const fx_node *fx_call(fx_pool *p, fx_fn fn, const char *name, const fx_node *const *args,
                       uint32_t n, mdae_range where)
{
    const char *copy = NULL;
    if (fn == FX_FN_UNKNOWN) {
        copy = name != NULL ? fx_pool_strndup(p, name, strlen(name)) : NULL;
        if (copy == NULL)
            return NULL;
    }
    fx_node *e = node_with_kids(p, FX_CALL, args, n, where);
    if (e != NULL) {
        e->fn = (uint8_t)fn;
        e->name = copy;
    }
    return e;
}

const fx_node *fx_opaque(fx_pool *p, const char *text, const fx_node *const *refs, uint32_t n,
                         mdae_range where)
{
    const char *copy = fx_pool_strndup(p, text, strlen(text));
    if (copy == NULL)
        return NULL;
    fx_node *e = node_with_kids(p, FX_OPAQUE, refs, n, where);
    if (e != NULL)
        e->name = copy;
    return e;
}

/* e copied (see fx_copy): the node and its kids' array in one allocation,
 * as node_new's; every field e's (the constructors' zeros included: e
 * was made by them), but for the kids, the name and the location. */
static fx_node *copy_node(fx_pool *p, const fx_node *e, const fx_shift *s)
{
    fx_node *c = pool_alloc(p, sizeof(fx_node) + (size_t)e->n * sizeof(const fx_node *));
    if (c == NULL)
        return NULL;
    *c = *e;
    if (s != NULL)
        c->where = fx_shift_range(s, e->where);
    if (e->n == 0) {
        c->kids = NULL;
    } else {
        const fx_node **kids = (const fx_node **)(c + 1);
        c->kids = kids;
        for (uint32_t k = 0; k < e->n; k++)
            if ((kids[k] = copy_node(p, e->kids[k], s)) == NULL)
                return NULL;
    }
    if (e->name != NULL && (c->name = fx_pool_strndup(p, e->name, strlen(e->name))) == NULL)
        return NULL;
    return c;
}

const fx_node *fx_copy(fx_pool *p, const fx_node *e, const fx_shift *s)
{
    return e != NULL ? copy_node(p, e, s) : NULL;
}

/* ---- Known functions ------------------------------------------------------- */
static const struct {
    const char *name;
    uint32_t arity;
} fn_table[FX_FN__COUNT] = {
    [FX_FN_UNKNOWN] = {"", 0},      [FX_FN_SIN] = {"sin", 1},
    [FX_FN_COS] = {"cos", 1},       [FX_FN_TAN] = {"tan", 1},
    [FX_FN_ASIN] = {"asin", 1},     [FX_FN_ACOS] = {"acos", 1},
    [FX_FN_ATAN] = {"atan", 1},     [FX_FN_ATAN2] = {"atan2", 2},
    [FX_FN_SINH] = {"sinh", 1},     [FX_FN_COSH] = {"cosh", 1},
    [FX_FN_TANH] = {"tanh", 1},     [FX_FN_EXP] = {"exp", 1},
    [FX_FN_LOG] = {"log", 1},       [FX_FN_LOG10] = {"log10", 1},
    [FX_FN_SQRT] = {"sqrt", 1},     [FX_FN_ABS] = {"abs", 1},
    [FX_FN_SIGN] = {"sign", 1},     [FX_FN_MIN] = {"min", 2},
    [FX_FN_MAX] = {"max", 2},       [FX_FN_FLOOR] = {"floor", 1},
    [FX_FN_CEIL] = {"ceil", 1},     [FX_FN_INTEGER] = {"integer", 1},
    [FX_FN_DIV] = {"div", 2},       [FX_FN_MOD] = {"mod", 2},
    [FX_FN_REM] = {"rem", 2},       [FX_FN_NOEVENT] = {"noEvent", 1},
    [FX_FN_SMOOTH] = {"smooth", 2}, [FX_FN_HOMOTOPY] = {"homotopy", 2},
};

fx_fn fx_fn_lookup(const char *name, uint32_t n)
{
    /* Modelica's library spellings of the same functions. */
    static const char math[] = "Modelica.Math.";
    if (strncmp(name, math, sizeof math - 1) == 0)
        name += sizeof math - 1;
    for (int f = FX_FN_UNKNOWN + 1; f < FX_FN__COUNT; f++)
        if (strcmp(name, fn_table[f].name) == 0)
            return fn_table[f].arity == n ? (fx_fn)f : FX_FN_UNKNOWN;
    return FX_FN_UNKNOWN;
}

const char *fx_fn_name(fx_fn fn)
{
    assert(fn < FX_FN__COUNT);
    return fn_table[fn].name;
}

uint32_t fx_fn_arity(fx_fn fn)
{
    assert(fn < FX_FN__COUNT);
    return fn_table[fn].arity;
}

/* ---- Equality and size ----------------------------------------------------- */
bool fx__same_head(const fx_node *a, const fx_node *b)
{
    assert(a != NULL && b != NULL);
    if (a->op != b->op || a->n != b->n || a->fn != b->fn || a->index != b->index ||
        a->order != b->order)
        return false;
    if ((a->op == FX_NUM || a->op == FX_BOOL) && memcmp(&a->num, &b->num, sizeof a->num) != 0)
        return false;
    return (a->name == NULL) == (b->name == NULL) &&
           (a->name == NULL || strcmp(a->name, b->name) == 0);
}

bool fx_equal(const fx_node *a, const fx_node *b)
{
    if (a == b)
        return true;
    if (a == NULL || b == NULL || !fx__same_head(a, b))
        return false;
    for (uint32_t k = 0; k < a->n; k++)
        if (!fx_equal(a->kids[k], b->kids[k]))
            return false;
    return true;
}

size_t fx_size(const fx_node *e)
{
    if (e == NULL)
        return 0;
    size_t s = 1;
    for (uint32_t k = 0; k < e->n; k++) {
        size_t t = fx_size(e->kids[k]);
        s = t > SIZE_MAX - s ? SIZE_MAX : s + t;
    }
    return s;
}
