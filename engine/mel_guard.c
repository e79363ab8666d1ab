/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mel_guard.c -- guards: the hash-consing factory used during
 * elaboration, and the public guard utilities of engine/mel.h (evaluation,
 * formatting, incidence order, name look-ups).
 *
 * Why hash-consing: equal sub-formulas become equal pointers, so the cheap
 * simplifications (TRUE/FALSE folding, x & x = x, x & !x = FALSE, !!x = x)
 * are pointer comparisons, and the model's guards form a small DAG.
 * Operands of & and | keep their source order (`a & b` and `b & a` are two
 * nodes) so that formatted guards read like the model.
 *
 * What it leaves out: no normal forms, no satisfiability; the BDD engine
 * (sa_*) decides equivalence.
 */
#include "mel_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mel__gnode {
    mel_guard g; /* first: a mel_guard * is a mel__gnode * */
    uint32_t id;
    uint32_t hash;
    uint64_t size; /* number of nodes of the formula as a tree, saturated */
    struct mel__gnode *next; /* hash chain */
};

static const struct mel__gnode g_false = {{MEL_G_FALSE, 0, NULL, NULL}, 0, 0, 1, NULL};
static const struct mel__gnode g_true = {{MEL_G_TRUE, 0, NULL, NULL}, 1, 1, 1, NULL};

const mel_guard *mel__g_true(void) { return &g_true.g; }
const mel_guard *mel__g_false(void) { return &g_false.g; }

static const struct mel__gnode *node_of(const mel_guard *g)
{
    return (const struct mel__gnode *)(const void *)g;
}

uint32_t mel__g_id(const mel_guard *g) { return node_of(g)->id; }
uint64_t mel__g_size(const mel_guard *g) { return node_of(g)->size; }

void mel__gf_init(mel__gfactory *f, mel__arena *arena)
{
    memset(f, 0, sizeof *f);
    f->arena = arena;
    f->next_id = 2;
}

void mel__gf_view(mel__gfactory *f, const mel__gfactory *of)
{
    *f = *of;
    f->arena = NULL;
    f->err = MDAE_OK;
    f->frozen = true;
    f->missed = false;
    f->below = of->next_id;
    f->compared = 0;
}

void mel__gf_overlay(mel__gfactory *f, const mel__gfactory *of, mel__arena *arena)
{
    mel__gf_init(f, arena);
    f->base = of;
    f->next_id = of->next_id;
}

void mel__gf_close(mel__gfactory *f)
{
    if (!f->frozen)
        mdae_free(f->table);
    f->table = NULL;
    f->cap = f->count = 0;
}

static uint32_t key_hash(mel_guard_op op, uint32_t var, const mel_guard *a, const mel_guard *b)
{
    uint32_t h = (uint32_t)op * 0x9e3779b1u;
    h ^= var + 0x7f4a7c15u + (h << 6) + (h >> 2);
    h ^= (a ? mel__g_id(a) : 0) + 0x165667b1u + (h << 6) + (h >> 2);
    h ^= (b ? mel__g_id(b) : 0) + 0x27d4eb2fu + (h << 6) + (h >> 2);
    return h;
}

static int grow(mel__gfactory *f)
{
    size_t cap = f->cap ? f->cap * 2 : 256;
    struct mel__gnode **t = mdae_calloc(cap, sizeof *t);
    if (t == NULL)
        return MDAE_E_NOMEM;
    for (size_t i = 0; i < f->cap; i++) {
        struct mel__gnode *n = f->table[i];
        while (n != NULL) {
            struct mel__gnode *next = n->next;
            n->next = t[n->hash & (cap - 1)];
            t[n->hash & (cap - 1)] = n;
            n = next;
        }
    }
    mdae_free(f->table);
    f->table = t;
    f->cap = cap;
    return MDAE_OK;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The node (op, var, a, b) of f's table or of its bases' (an overlay's),
 * or NULL. */
static const struct mel__gnode *find(const mel__gfactory *f, uint32_t h, mel_guard_op op,
                                     uint32_t var, const mel_guard *a, const mel_guard *b)
{
    for (; f != NULL; f = f->base) {
        if (f->cap == 0)
            continue;
        for (const struct mel__gnode *n = f->table[h & (f->cap - 1)]; n; n = n->next)
            if (n->hash == h && n->g.op == op && n->g.var == var && n->g.lhs == a &&
                n->g.rhs == b)
                return n;
    }
    return NULL;
}

static const mel_guard *make(mel__gfactory *f, mel_guard_op op, uint32_t var, const mel_guard *a,
                             const mel_guard *b)
{
    if (f->err)
        return mel__g_true();
    uint32_t h = key_hash(op, var, a, b);
    const struct mel__gnode *n = find(f, h, op, var, a, b);
    if (n != NULL && !(f->frozen && n->id >= f->below)) /* else not made yet at that point */
        return &n->g;
    if (f->frozen) {
        f->missed = true;
        f->err = MDAE_E_LIMIT;
        return mel__g_true();
    }
    uint64_t size = 1;
    if (a)
        size = sat_add(size, node_of(a)->size);
    if (b)
        size = sat_add(size, node_of(b)->size);
    if (size > MEL__MAX_GUARD_SIZE) {
        f->err = MDAE_E_LIMIT;
        return mel__g_true();
    }
    if ((f->cap == 0 || f->count * 4 >= f->cap * 3) && grow(f) < 0) {
        f->err = MDAE_E_NOMEM;
        return mel__g_true();
    }
    struct mel__gnode *nn = mel__arena_alloc_raw(f->arena, sizeof *nn); /* written in full */
    if (nn == NULL) {
        f->err = MDAE_E_NOMEM;
        return mel__g_true();
    }
    nn->g.op = op;
    nn->g.var = var;
    nn->g.lhs = a;
    nn->g.rhs = b;
    nn->id = f->next_id++;
    nn->hash = h;
    nn->size = size;
    nn->next = f->table[h & (f->cap - 1)];
    f->table[h & (f->cap - 1)] = nn;
    f->count++;
    return &nn->g;
}

const mel_guard *mel__g_var(mel__gfactory *f, uint32_t var)
{
    return make(f, MEL_G_VAR, var, NULL, NULL);
}

const mel_guard *mel__g_not(mel__gfactory *f, const mel_guard *a)
{
    if (a->op == MEL_G_TRUE)
        return mel__g_false();
    if (a->op == MEL_G_FALSE)
        return mel__g_true();
    if (a->op == MEL_G_NOT)
        return a->lhs;
    return make(f, MEL_G_NOT, 0, a, NULL);
}

static bool complementary(const mel_guard *a, const mel_guard *b)
{
    return (a->op == MEL_G_NOT && a->lhs == b) || (b->op == MEL_G_NOT && b->lhs == a);
}

const mel_guard *mel__g_and(mel__gfactory *f, const mel_guard *a, const mel_guard *b)
{
    if (a->op == MEL_G_FALSE || b->op == MEL_G_FALSE || complementary(a, b))
        return mel__g_false();
    if (a->op == MEL_G_TRUE || a == b)
        return b;
    if (b->op == MEL_G_TRUE)
        return a;
    return make(f, MEL_G_AND, 0, a, b);
}

const mel_guard *mel__g_or(mel__gfactory *f, const mel_guard *a, const mel_guard *b)
{
    if (a->op == MEL_G_TRUE || b->op == MEL_G_TRUE || complementary(a, b))
        return mel__g_true();
    if (a->op == MEL_G_FALSE || a == b)
        return b;
    if (b->op == MEL_G_FALSE)
        return a;
    return make(f, MEL_G_OR, 0, a, b);
}

static int cmp_by_id(const void *x, const void *y)
{
    uint32_t a = mel__g_id(*(const mel_guard *const *)x);
    uint32_t b = mel__g_id(*(const mel_guard *const *)y);
    return (a > b) - (a < b);
}

/* gs by increasing id. Equal ids are the same guard, so any sort gives the
 * same array: below 16 guards by insertion, since qsort's calls cost more
 * than its comparisons there (an order case ORs two or three uses). */
static void sort_by_id(const mel_guard **gs, size_t n)
{
    if (n > 16) {
        qsort(gs, n, sizeof *gs, cmp_by_id);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        const mel_guard *x = gs[i];
        uint32_t id = mel__g_id(x);
        size_t j = i;
        for (; j > 0 && mel__g_id(gs[j - 1]) > id; j--)
            gs[j] = gs[j - 1];
        gs[j] = x;
    }
}

static const mel_guard *or_range(mel__gfactory *f, const mel_guard **gs, size_t n)
{
    if (n == 1)
        return gs[0];
    size_t h = n / 2;
    return mel__g_or(f, or_range(f, gs, h), or_range(f, gs + h, n - h));
}

const mel_guard *mel__g_or_all(mel__gfactory *f, const mel_guard **gs, size_t n)
{
    if (n == 0)
        return mel__g_false();
    if (n == 1) /* TRUE, FALSE or the guard itself, as below */
        return gs[0];
    sort_by_id(gs, n);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (gs[i]->op == MEL_G_TRUE)
            return mel__g_true();
        if (gs[i]->op == MEL_G_FALSE || (k > 0 && gs[k - 1] == gs[i]))
            continue;
        gs[k++] = gs[i];
    }
    if (k == 0)
        return mel__g_false();
    if (k > 1)
        f->compared++; /* the ids' order shapes the result */
    return or_range(f, gs, k);
}

/* ---- Public utilities --------------------------------------------------------- */

bool mel_guard_eval(const mel_guard *g, const bool *mode)
{
    /* Loop on the right operand, recurse on the left: guards are built with
     * bounded depth (see mel_int.h), this just halves the stack use. */
    for (;;) {
        switch (g->op) {
        case MEL_G_FALSE: return false;
        case MEL_G_TRUE: return true;
        case MEL_G_VAR: return mode[g->var];
        case MEL_G_NOT: return !mel_guard_eval(g->lhs, mode);
        case MEL_G_AND:
            if (!mel_guard_eval(g->lhs, mode))
                return false;
            g = g->rhs;
            break;
        case MEL_G_OR:
            if (mel_guard_eval(g->lhs, mode))
                return true;
            g = g->rhs;
            break;
        default: return false;
        }
    }
}

int mel_incidence_order(const mel_incidence *inc, const bool *mode)
{
    for (uint32_t k = 0; k < inc->n_cases; k++)
        if (mel_guard_eval(inc->cases[k].guard, mode))
            return inc->cases[k].order;
    return -1;
}

static int prec(const mel_guard *g)
{
    switch (g->op) {
    case MEL_G_OR: return 1;
    case MEL_G_AND: return 2;
    case MEL_G_NOT: return 3;
    default: return 4;
    }
}

void mel_mode_name_put(mdae_buf *b, const char *name)
{
    bool text = strchr(name, ' ') != NULL;
    if (text)
        mdae_buf_puts(b, "(");
    mdae_buf_puts(b, name);
    if (text)
        mdae_buf_puts(b, ")");
}

static void fmt_guard(mdae_buf *b, const mel_model *m, const mel_guard *g, int min_prec)
{
    bool paren = prec(g) < min_prec;
    if (paren)
        mdae_buf_puts(b, "(");
    switch (g->op) {
    case MEL_G_FALSE: mdae_buf_puts(b, "false"); break;
    case MEL_G_TRUE: mdae_buf_puts(b, "true"); break;
    case MEL_G_VAR:
        if (m != NULL && g->var < m->n_modes) {
            mel_mode_name_put(b, m->modes[g->var].name);
        } else {
            char tmp[32];
            snprintf(tmp, sizeof tmp, "mode#%u", (unsigned)g->var);
            mdae_buf_puts(b, tmp);
        }
        break;
    case MEL_G_NOT:
        mdae_buf_puts(b, "!");
        fmt_guard(b, m, g->lhs, 3);
        break;
    case MEL_G_AND:
    case MEL_G_OR:
        /* & and | are associative: a child of the same operator needs no
         * parentheses, a looser one does. */
        fmt_guard(b, m, g->lhs, prec(g));
        mdae_buf_puts(b, g->op == MEL_G_AND ? " & " : " | ");
        fmt_guard(b, m, g->rhs, prec(g));
        break;
    }
    if (paren)
        mdae_buf_puts(b, ")");
}

char *mel_guard_format(const mel_model *m, const mel_guard *g)
{
    mdae_buf b = {0};
    fmt_guard(&b, m, g, 0);
    if (b.oom) {
        mdae_free(b.p);
        return NULL;
    }
    return b.p;
}

static long find_kind(const mel_model *m, const char *name, mel__sym_kind kind)
{
    if (m == NULL || name == NULL || m->priv == NULL)
        return -1;
    const mel__sym *s = mel__sym_find(&m->priv->syms, name);
    if (s == NULL || s->kind != kind)
        return -1;
    return (long)s->index;
}

long mel_model_find_equation(const mel_model *m, const char *name)
{
    return find_kind(m, name, MEL_SYM_EQN);
}

long mel_model_find_variable(const mel_model *m, const char *name)
{
    return find_kind(m, name, MEL_SYM_VAR);
}

long mel_model_find_mode(const mel_model *m, const char *name)
{
    return find_kind(m, name, MEL_SYM_MODE);
}
