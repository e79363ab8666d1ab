/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mc_std.c -- the restart systems of a mode change as dt -> 0
 * (mc_int.h, mc__std_equations; mc.h, mc_std_equation): each kept
 * equation of each restart instant, its impulsive values rescaled and its
 * values read as left limits x- or restart values x+, keeping its terms
 * of dominant order: RR-9459 section 6.1.2, "rescaling impulsive
 * variables" ((41)-(43)), which "amounts to finding a minimal solution"
 * of the impulse analysis and setting dt = 0 in the rescaled system
 * (Theorem 1). Readings, each a choice of ours:
 *
 *  T1 Values. A state x (d_x >= 1 in the new mode) has at instant r the
 *     level L it determines (mc_standard, mc_impulse.c S2). Its s-th Euler
 *     derivative at shift l reads, when s <= L or when all the values it
 *     spans lie on one side of the restart (before instant K, or from
 *     it), as x^(s)- or x^(s)+ (order 0); else as the difference
 *     (x^(L)+ - x^(L)-) / dt^(s-L), times the sum of the binomial
 *     coefficients on the + side (order s - L): the Cup-and-Ball's x''
 *     at instant 1 is (x'+ - x'-)/dt. An algebraic value of impulse order
 *     o > 0 (mc_result.impulsive, its upper bound: the paper rescales by
 *     it) reads as (dt^o*lambda)/dt^o; other algebraic values keep their
 *     name (and shift).
 *  T2 Orders of expressions as in the impulse analysis's rules: sums the
 *     largest order of their terms, products the sum, quotients the
 *     difference, integer powers the multiple; functions of finite
 *     arguments are finite. What else an equation reads (a function of an
 *     impulsive value, if-expressions on values, next()) is not read, and
 *     the equation is reported with why.
 *  T3 The equation lhs = rhs keeps, on each side, the terms of the largest
 *     order of both sides (a side without one is 0), dt^order being
 *     divided out: (43)'s 0 = x'+ - x'- + (dt*lambda)*x- from e1.
 *  T4 Shifted constraints ((32)): a kept f.^k whose lower shifts f.^(k-j)
 *     .. f.^(k-1) hold at the instant (kept or in the context), and whose
 *     direct reading determines no top-level restart value of the instant
 *     (x^(L)+ with L >= 1), is read as der^j(f) at shift k - j (fx_dt):
 *     k1.^2 at the Cup-and-Ball's instant 1 is 0 = -(2 x+ x'+ + 2 y+ y'+),
 *     (43)'s third equation; k1.^2 at instant 0 stays L^2 - (x+^2 + y+^2).
 *  T5 An instant whose impulse analysis was not done (too large; no
 *     assignment) is not read: its impulsive values are not known.
 *  T6 The relations of a restart relation's elimination (mc_elim.h) are
 *     read as the equations are, their unknowns carrying their shifts.
 *  T7 A change into a transient mode (issue 41 item 6): its events are
 *     the first instants, each read in its own mode (the instants after
 *     them in the long mode after the cascade); a value before instant K
 *     and after event e reads as x<e>, the value after event e
 *     (mc_impulse.c S4: written x\u27e8e\u27e9), a derivative spanning two such
 *     values as their difference over dt as in T1 (more than two: not
 *     read); next(x) in a when-body is x one instant later.
 * Results: the clutch (ClutchBasic) j1*(w1+ - w1-) = dt*f1, j2*(w2+ -
 * w2-) = dt*f2, dt*f1 + dt*f2 = 0, w1+ - w2+ = 0, whose elimination of
 * the rescaled torques is RR-9459 (18); the Cup-and-Ball's instant 0 x+ -
 * x- = 0, y+ - y- = 0, the rope constraint at x+, y+ (the positions
 * continuous, (30)); its instant 1, (43), whose elimination of dt*lambda
 * is (35).
 *
 * Promises: pure; no I/O, no global state. Memory: the texts are owned by
 * the result; a private expression pool lives for the call.
 */
#include "mc_int.h"

#include <stdio.h>
#include <string.h>

#include "fx.h"
#include "mc_elim.h"

#define NEG MC_ORDER_NEG_INF
#define STD_MAX_NODES 4000 /* larger bodies are not read */
#define STD_MAX_STEP 3     /* s - L above this is not read */

typedef struct std_ctx {
    const mel_model *m;
    const bool *to;
    const int *d;
    mc_result *res;
    uint32_t r, K;
    uint32_t E;       /* the events of a cascade (instants 0 .. E-1; T7) */
    int k;            /* the shift the body is read at */
    bool top;         /* the reading determines a top-level restart value */
    const char *why;  /* the first reason the equation is not read */
    bool oom;         /* a text could not be built */
    uint32_t nv;      /* 0, or the unknowns carry their shifts (mc_elim.h):
                         FX_VAR(x + l*nv) is x at shift l */
} std_ctx;

/* The unknown an FX_VAR reads and its shift. */
static uint32_t var_of(const std_ctx *c, uint32_t index)
{
    return c->nv > 0 ? index % c->nv : index;
}

static int shift_of(const std_ctx *c, uint32_t index)
{
    return c->nv > 0 ? c->k + (int)(index / c->nv) : c->k;
}

static int level_of(const std_ctx *c, uint32_t x)
{
    int L = -1;
    for (size_t k = 0; k < c->res->n_standard; k++) {
        const mc_standard *s = &c->res->standard[k];
        if (s->r == c->r && s->var == x && s->level > L)
            L = s->level;
    }
    return L;
}

static int impulse_of(const std_ctx *c, uint32_t x, int l)
{
    for (size_t k = 0; k < c->res->n_impulsive; k++) {
        const mc_impulse *v = &c->res->impulsive[k];
        if (v->r == c->r && v->var == x && v->shift == l)
            return v->hi;
    }
    return 0;
}

/* T1, T7: which value of the restart the value at shift l of instant c->r
 * is: 0 before it (x-), E + 1 from instant K on (x+), e in 1..E the value
 * after event e of a cascade (x<e>; the instants after the last event keep
 * it, mc_impulse.c S4). */
static uint32_t epoch(const std_ctx *c, int l)
{
    int a = (int)c->r + l;
    if (a >= (int)c->K)
        return c->E + 1;
    if (a <= 0)
        return 0;
    return (uint32_t)a < c->E ? (uint32_t)a : c->E;
}

static bool plus_side(const std_ctx *c, int l) { return epoch(c, l) == c->E + 1; }

static int binom(int n, int i)
{
    int b = 1;
    for (int k = 1; k <= i; k++)
        b = b * (n - k + 1) / k;
    return b;
}

/* T1: the sum of the binomial coefficients of Delta^n on the + side, for
 * the values at shifts l .. l + n. */
static int plus_coef(const std_ctx *c, int n, int l)
{
    int s = 0;
    for (int i = 0; i <= n; i++)
        if (epoch(c, l + i) == epoch(c, l + n))
            s += ((n - i) % 2 ? -1 : 1) * binom(n, i);
    return s;
}

/* How Y(x, o, l) reads (T1): *n = s - L for a difference, 0 for a name. */
static int var_order(std_ctx *c, uint32_t x, int o, int l, int *n)
{
    *n = 0;
    if (c->d[x] >= 1) {
        int L = level_of(c, x);
        L = L < 0 ? 0 : L;
        if (o <= L || epoch(c, l) == epoch(c, l + o - L)) {
            c->top |= o == L && L >= 1 && plus_side(c, l);
            return 0;
        }
        for (int i = l + 1; i < l + o - L; i++)
            if (epoch(c, i) != epoch(c, l) && epoch(c, i) != epoch(c, l + o - L)) {
                c->why = "a derivative across more than two values of the cascade";
                return 0;
            }
        if (o - L > STD_MAX_STEP) {
            c->why = "a derivative too far above what the instant determines";
            return 0;
        }
        *n = o - L;
        c->top |= L >= 1;
        return plus_coef(c, *n, l) == 0 ? NEG : *n;
    }
    if (o > 0) {
        c->why = "a derivative of an algebraic value";
        return 0;
    }
    int p = impulse_of(c, x, l);
    return p > 0 ? p : 0;
}

static int add_orders(int a, int b) { return a == NEG || b == NEG ? NEG : a + b; }

/* T2: the order of e read at shift c->k (c->why set when it cannot be). */
static int order_of(std_ctx *c, const fx_node *e)
{
    int o = 0, n;
    switch (e->op) {
    case FX_NUM:
        return e->num == 0 ? NEG : 0;
    case FX_KNOWN:
    case FX_TIME:
        return 0;
    case FX_VAR:
        return var_order(c, var_of(c, e->index), e->order, shift_of(c, e->index), &n);
    case FX_NEG:
        return order_of(c, e->kids[0]);
    case FX_ADD:
        o = NEG;
        for (uint32_t k = 0; k < e->n; k++) {
            int x = order_of(c, e->kids[k]);
            o = x > o ? x : o;
        }
        return o;
    case FX_MUL:
        for (uint32_t k = 0; k < e->n; k++)
            o = add_orders(o, order_of(c, e->kids[k]));
        return o;
    case FX_DIV: {
        int a = order_of(c, e->kids[0]), b = order_of(c, e->kids[1]);
        if (b == NEG) {
            c->why = "a division by a value that is 0 as dt -> 0";
            return 0;
        }
        return a == NEG ? NEG : a - b;
    }
    case FX_POW: {
        const fx_node *x = e->kids[1];
        int b = order_of(c, e->kids[0]);
        if (x->op == FX_NUM && x->num == (double)(int)x->num && x->num >= 0 && x->num <= 8)
            return x->num == 0 ? 0 : b == NEG ? NEG : b * (int)x->num;
        if (b != 0 || order_of(c, x) > 0)
            c->why = "a power of an impulsive value";
        return 0;
    }
    case FX_CALL:
        for (uint32_t k = 0; k < e->n; k++)
            if (order_of(c, e->kids[k]) > 0)
                c->why = "a function of an impulsive value";
        return 0;
    case FX_IF: {
        bool ok = true;
        bool v = mc__mode_cond(e->kids[0], c->to, &ok);
        if (!ok) {
            c->why = "an if-expression on values";
            return 0;
        }
        return order_of(c, e->kids[v ? 1 : 2]);
    }
    case FX_PRE:
    case FX_LAST:
        if (e->kids[0]->op != FX_VAR)
            c->why = "pre() or last() of an expression";
        return 0;
    case FX_NEXT: /* T7: a when-body's next(x) is x one instant later */
        if (e->kids[0]->op != FX_VAR) {
            c->why = "next() of an expression";
            return 0;
        }
        return var_order(c, var_of(c, e->kids[0]->index), e->kids[0]->order,
                         shift_of(c, e->kids[0]->index) + 1, &n);
    default:
        c->why = "an operator the standardisation does not read";
        return 0;
    }
}

static void put_name(const std_ctx *c, mdae_buf *b, const char *n, int level, uint32_t ep)
{
    mdae_buf_puts(b, n);
    for (int k = 0; k < level && level <= 3; k++)
        mdae_buf_puts(b, "'");
    if (level > 3) {
        char t[16];
        snprintf(t, sizeof t, "^(%d)", level);
        mdae_buf_puts(b, t);
    }
    if (ep == 0 || ep == c->E + 1) {
        mdae_buf_puts(b, ep != 0 ? "\u207a" : "\u207b");
        return;
    }
    char t[24];
    snprintf(t, sizeof t, "\u27e8%u\u27e9", (unsigned)ep); /* x<e>: after event e */
    mdae_buf_puts(b, t);
}

static void put_int(mdae_buf *b, int v)
{
    char t[24];
    snprintf(t, sizeof t, "%d", v);
    mdae_buf_puts(b, t);
}

static void render(std_ctx *c, mdae_buf *b, const fx_node *e);

static bool is_sum(const fx_node *e) { return e->op == FX_ADD; }

static void render_paren(std_ctx *c, mdae_buf *b, const fx_node *e, bool paren)
{
    if (paren)
        mdae_buf_puts(b, "(");
    render(c, b, e);
    if (paren)
        mdae_buf_puts(b, ")");
}

static void render_var(std_ctx *c, mdae_buf *b, uint32_t x, int o, int l)
{
    const char *name = c->m->variables[x].name;
    int n;
    int ord = var_order(c, x, o, l, &n);
    if (c->d[x] >= 1) {
        int L = level_of(c, x);
        L = L < 0 ? 0 : L;
        if (n == 0) {
            put_name(c, b, name, o, epoch(c, l));
            return;
        }
        int coef = plus_coef(c, n, l);
        if (coef != 1) {
            put_int(b, coef);
            mdae_buf_puts(b, "*");
        }
        mdae_buf_puts(b, "(");
        put_name(c, b, name, L, epoch(c, l + n));
        mdae_buf_puts(b, " - ");
        put_name(c, b, name, L, epoch(c, l));
        mdae_buf_puts(b, ")");
        return;
    }
    if (ord > 0) {
        mdae_buf_puts(b, "(dt");
        if (ord > 1) {
            mdae_buf_puts(b, "^");
            put_int(b, ord);
        }
        mdae_buf_puts(b, "*");
    }
    mdae_buf_puts(b, name);
    for (int k = 0; k < l && l <= 3; k++)
        mdae_buf_puts(b, "\u2022");
    if (ord > 0)
        mdae_buf_puts(b, ")");
}

/* A sum keeping one term of its top order, not negated nor a quotient, is
 * printed as that term: no parentheses around it in a product. */
static bool needs_paren_in_product(std_ctx *c, const fx_node *e)
{
    if (e->op == FX_DIV)
        return true;
    if (!is_sum(e))
        return false;
    int top = order_of(c, e), kept = 0;
    const fx_node *one = NULL;
    for (uint32_t k = 0; k < e->n; k++)
        if (order_of(c, e->kids[k]) == top) {
            kept++;
            one = e->kids[k];
        }
    return kept != 1 || one->op == FX_NEG || one->op == FX_DIV;
}

/* The dominant part of e (T3 inside sums). */
static void render(std_ctx *c, mdae_buf *b, const fx_node *e)
{
    switch (e->op) {
    case FX_NUM:
        fx_print_number(b, e->num, e->is_int);
        return;
    case FX_KNOWN:
        mdae_buf_puts(b, c->m->knowns[e->index].name);
        return;
    case FX_TIME:
        mdae_buf_puts(b, "time");
        return;
    case FX_VAR:
        render_var(c, b, var_of(c, e->index), e->order, shift_of(c, e->index));
        return;
    case FX_NEG:
        mdae_buf_puts(b, "-");
        render_paren(c, b, e->kids[0], is_sum(e->kids[0]));
        return;
    case FX_ADD: {
        int top = order_of(c, e), k2 = 0;
        for (uint32_t k = 0; k < e->n; k++) {
            const fx_node *t = e->kids[k];
            if (order_of(c, t) != top)
                continue;
            bool neg = t->op == FX_NEG;
            if (k2++ > 0)
                mdae_buf_puts(b, neg ? " - " : " + ");
            else if (neg)
                mdae_buf_puts(b, "-");
            const fx_node *u = neg ? t->kids[0] : t;
            render_paren(c, b, u, neg && is_sum(u));
        }
        if (k2 == 0)
            mdae_buf_puts(b, "0");
        return;
    }
    case FX_MUL:
        for (uint32_t k = 0; k < e->n; k++) {
            if (k > 0)
                mdae_buf_puts(b, "*");
            render_paren(c, b, e->kids[k], needs_paren_in_product(c, e->kids[k]));
        }
        return;
    case FX_DIV:
        render_paren(c, b, e->kids[0], is_sum(e->kids[0]));
        mdae_buf_puts(b, "/");
        render_paren(c, b, e->kids[1], e->kids[1]->n > 0 && e->kids[1]->op != FX_CALL);
        return;
    case FX_POW:
        render_paren(c, b, e->kids[0], e->kids[0]->n > 0 && e->kids[0]->op != FX_CALL);
        mdae_buf_puts(b, "^");
        render_paren(c, b, e->kids[1], e->kids[1]->n > 0 && e->kids[1]->op != FX_CALL);
        return;
    case FX_CALL:
        mdae_buf_puts(b, e->fn == FX_FN_UNKNOWN ? e->name : fx_fn_name((fx_fn)e->fn));
        mdae_buf_puts(b, "(");
        for (uint32_t k = 0; k < e->n; k++) {
            if (k > 0)
                mdae_buf_puts(b, ", ");
            render(c, b, e->kids[k]);
        }
        mdae_buf_puts(b, ")");
        return;
    case FX_IF: {
        bool ok = true;
        bool v = mc__mode_cond(e->kids[0], c->to, &ok);
        render(c, b, e->kids[v ? 1 : 2]);
        return;
    }
    case FX_PRE:
    case FX_LAST:
        if (e->kids[0]->op == FX_VAR)
            put_name(c, b, c->m->variables[var_of(c, e->kids[0]->index)].name, e->kids[0]->order,
                     0);
        return;
    case FX_NEXT:
        if (e->kids[0]->op == FX_VAR)
            render_var(c, b, var_of(c, e->kids[0]->index), e->kids[0]->order,
                       shift_of(c, e->kids[0]->index) + 1);
        return;
    default:
        return;
    }
}

/* T3: "lhs = rhs" of the dominant order, or NULL with c->why. */
static char *read_equation(std_ctx *c, const fx_node *lhs, const fx_node *rhs)
{
    if (fx_size(lhs) + fx_size(rhs) > STD_MAX_NODES) {
        c->why = "the equation is too large";
        return NULL;
    }
    int ol = order_of(c, lhs), or = order_of(c, rhs);
    if (c->why != NULL)
        return NULL;
    int top = ol > or ? ol : or;
    if (top == NEG) {
        c->why = "both sides are 0 as dt -> 0";
        return NULL;
    }
    mdae_buf b = {0};
    if (ol == top)
        render(c, &b, lhs);
    else
        mdae_buf_puts(&b, "0");
    mdae_buf_puts(&b, " = ");
    if (or == top)
        render(c, &b, rhs);
    else
        mdae_buf_puts(&b, "0");
    if (b.oom) {
        mdae_free(b.p);
        c->oom = true;
        return NULL;
    }
    return b.p;
}

static bool holds(const mc_instant *in, uint32_t eq, int shift)
{
    const mc_list *ls[2] = {&in->equations, &in->context};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < ls[k]->n; i++)
            if (ls[k]->items[i].index == eq && ls[k]->items[i].shift == shift)
                return true;
    return false;
}

static int push(mc_result *res, const mc_std_equation *e)
{
    size_t cap = res->n_std_equations;
    int rc = mc__grow((void **)&res->std_equations, &cap, res->n_std_equations + 1,
                      sizeof *res->std_equations);
    if (rc < 0)
        return rc;
    res->std_equations[res->n_std_equations++] = *e;
    return MDAE_OK;
}

/* One kept equation (eq, k) of instant c->r: direct, or by T4. */
static int one_equation(std_ctx *c, fx_pool *pool, const mc_instant *in, uint32_t eq, int k)
{
    const mel_equation *q = &c->m->equations[eq];
    mc_std_equation out;
    memset(&out, 0, sizeof out);
    out.r = c->r;
    out.eq = eq;
    out.shift = k;
    if (q->lhs == NULL || q->rhs == NULL) {
        out.why = "the model was read without its expressions";
        return push(c->res, &out);
    }
    c->k = k;
    c->top = false;
    c->why = NULL;
    char *text = read_equation(c, q->lhs, q->rhs);
    int j = 0;
    while (k - j - 1 >= 0 && holds(in, eq, k - j - 1))
        j++;
    if (j > 0 && text != NULL && !c->top) { /* T4 */
        int err = MDAE_OK;
        const fx_node *dl = fx_dt(pool, q->lhs, (unsigned)j, &err);
        const fx_node *dr = dl != NULL ? fx_dt(pool, q->rhs, (unsigned)j, &err) : NULL;
        if (dl != NULL && dr != NULL) {
            c->k = k - j;
            c->top = false;
            c->why = NULL;
            char *d = read_equation(c, dl, dr);
            if (c->oom) {
                mdae_free(text);
                return MDAE_E_NOMEM;
            }
            if (d != NULL && c->top) {
                mdae_free(text);
                text = d;
                out.derivative = j;
            } else
                mdae_free(d);
        } else if (fx_pool_failed(pool)) {
            mdae_free(text);
            return MDAE_E_NOMEM;
        }
    }
    if (c->oom)
        return MDAE_E_NOMEM;
    out.text = text;
    out.why = text == NULL ? (c->why != NULL ? c->why : "not read") : NULL;
    int rc = push(c->res, &out);
    if (rc < 0)
        mdae_free(text);
    return rc;
}

/* T6: the relations of an elimination of instant c->r (mc_elim.h) as
 * dt -> 0, read as the equations are (T1-T3), into rs->standard. */
static int std_relations(std_ctx *c, const bool *to, mc_reset *rs)
{
    if (rs->n_eliminated == 0 || rs->standard == NULL)
        return MDAE_OK;
    fx_pool *pool = fx_pool_new();
    if (pool == NULL)
        return MDAE_E_NOMEM;
    mc_elim e = {0};
    int rc = mc_reset_eliminate(c->m, to, rs, pool, &e);
    mdae_range z = {0};
    const fx_node *zero = fx_num(pool, 0, true, z);
    for (size_t k = 0; rc == MDAE_OK && k < e.n_relations && k < rs->n_eliminated; k++) {
        c->k = 0;
        c->top = false;
        c->why = NULL;
        c->nv = c->m->n_variables;
        rs->standard[k] = zero != NULL ? read_equation(c, e.relations[k], zero) : NULL;
        rs->std_why[k] = rs->standard[k] == NULL ? (c->why != NULL ? c->why : "not read") : NULL;
        if (c->oom || zero == NULL)
            rc = MDAE_E_NOMEM;
    }
    c->nv = 0;
    mc_elim_close(&e);
    fx_pool_free(pool);
    return rc;
}

/* ---- The restart system as expressions (issue 41 item 6; mc_solve.c) ---------
 * The same reading as render (T1-T3), built as an expression whose values
 * are FX_VAR(k, 0), k indexing sys->values. */

typedef struct std_sys {
    fx_pool *p;
    mc__std_system s;
    size_t cap_rows, cap_values, cap_pivots;
    bool impulsive; /* the expression built reads a rescaled impulsive value */
} std_sys;

/* Whether instant c->r determines x^(level) at epoch ep (the newest value
 * of the top level of x, not its left limit: as `determines` reads). */
static bool determined(const std_ctx *c, uint32_t x, int level, uint32_t ep)
{
    int L = level_of(c, x);
    if (ep == 0 || level != (L < 0 ? 0 : L))
        return false;
    for (size_t k = 0; k < c->res->n_standard; k++) {
        const mc_standard *s = &c->res->standard[k];
        if (s->r == c->r && s->var == x && s->level == level &&
            ((s->side == MC_SIDE_PLUS && ep == c->E + 1) ||
             (s->side == MC_SIDE_EVENT && s->event == ep)))
            return true;
    }
    return false;
}

/* Whether x at shift l is an unknown of instant c->r's restart system. */
static bool instant_unknown(const std_ctx *c, uint32_t x, int l)
{
    const mc_list *u = &c->res->instants[c->r].unknowns;
    for (size_t k = 0; k < u->n; k++)
        if (u->items[k].index == x && u->items[k].shift == l)
            return true;
    return false;
}

static void put_shift(mdae_buf *b, int l)
{
    if (l > 3) {
        mdae_buf_puts(b, "\u2022");
        put_int(b, l);
        return;
    }
    for (int k = 0; k < l; k++)
        mdae_buf_puts(b, "\u2022");
}

/* FX_VAR(k, 0) for value v, added to the table when new; NULL on OOM. */
static const fx_node *value_node(std_ctx *c, std_sys *y, mc__std_value v)
{
    mdae_range z = {0};
    for (size_t k = 0; k < y->s.n_values; k++) {
        const mc__std_value *w = &y->s.values[k];
        if (w->var == v.var && w->state == v.state && w->level == v.level &&
            w->epoch == v.epoch && w->shift == v.shift && w->impulse == v.impulse)
            return fx_var(y->p, (uint32_t)k, 0, z);
    }
    if (mc__grow((void **)&y->s.values, &y->cap_values, y->s.n_values + 1, sizeof *y->s.values) < 0)
        return NULL;
    mdae_buf b = {0};
    const char *name = c->m->variables[v.var].name;
    if (v.state)
        put_name(c, &b, name, v.level, v.epoch);
    else {
        if (v.impulse > 0) {
            mdae_buf_puts(&b, "(dt");
            if (v.impulse > 1) {
                mdae_buf_puts(&b, "^");
                put_int(&b, v.impulse);
            }
            mdae_buf_puts(&b, "*");
        }
        mdae_buf_puts(&b, name);
        put_shift(&b, v.shift);
        if (v.impulse > 0)
            mdae_buf_puts(&b, ")");
    }
    v.name = b.oom ? NULL : fx_pool_strndup(y->p, b.p, b.len);
    mdae_free(b.p);
    if (v.name == NULL)
        return NULL;
    v.unknown = v.state ? determined(c, v.var, v.level, v.epoch)
                        : v.impulse <= 0 && instant_unknown(c, v.var, v.shift);
    y->s.values[y->s.n_values++] = v;
    return fx_var(y->p, (uint32_t)(y->s.n_values - 1), 0, z);
}

/* render_var's reading of x^(o) at shift l, built. */
static const fx_node *build_var(std_ctx *c, std_sys *y, uint32_t x, int o, int l)
{
    int n;
    int ord = var_order(c, x, o, l, &n);
    mc__std_value v = {x, c->d[x] >= 1, 0, 0, 0, 0, false, NULL};
    if (!v.state) {
        if (o > 0)
            return NULL; /* c->why set */
        v.shift = l;
        v.impulse = ord > 0 ? ord : 0;
        y->impulsive |= ord > 0;
        return value_node(c, y, v);
    }
    if (n == 0) {
        v.level = o;
        v.epoch = epoch(c, l);
        return value_node(c, y, v);
    }
    int L = level_of(c, x);
    v.level = L < 0 ? 0 : L;
    v.epoch = epoch(c, l + n);
    const fx_node *after = value_node(c, y, v);
    v.epoch = epoch(c, l);
    const fx_node *before = value_node(c, y, v);
    mdae_range z = {0};
    const fx_node *dif = fx_bin(y->p, FX_ADD, after, fx_un(y->p, FX_NEG, before, z), z);
    int coef = plus_coef(c, n, l);
    return coef == 1 ? dif : fx_bin(y->p, FX_MUL, fx_num(y->p, coef, true, z), dif, z);
}

/* The dominant part of e as render prints it, built; NULL when it cannot
 * be (c->why) or on OOM. */
static const fx_node *build(std_ctx *c, std_sys *y, const fx_node *e)
{
    mdae_range z = {0};
    const fx_node *small[8] = {0};
    switch (e->op) {
    case FX_NUM:
    case FX_KNOWN:
    case FX_TIME:
        return e;
    case FX_VAR:
        return build_var(c, y, var_of(c, e->index), e->order, shift_of(c, e->index));
    case FX_IF: {
        bool ok = true;
        bool v = mc__mode_cond(e->kids[0], c->to, &ok);
        return ok ? build(c, y, e->kids[v ? 1 : 2]) : NULL;
    }
    case FX_PRE:
    case FX_LAST:
        if (e->kids[0]->op != FX_VAR)
            return NULL;
        return value_node(c, y, (mc__std_value){var_of(c, e->kids[0]->index), c->d[var_of(c, e->kids[0]->index)] >= 1,
                                                e->kids[0]->order, 0, 0, 0, false, NULL});
    case FX_NEXT:
        if (e->kids[0]->op != FX_VAR)
            return NULL;
        return build_var(c, y, var_of(c, e->kids[0]->index), e->kids[0]->order,
                         shift_of(c, e->kids[0]->index) + 1);
    case FX_NEG:
    case FX_ADD:
    case FX_MUL:
    case FX_DIV:
    case FX_POW:
    case FX_CALL:
        break;
    default:
        return NULL;
    }
    const fx_node **kids = e->n <= 8 ? small : mdae_malloc(e->n * sizeof *kids);
    if (kids == NULL)
        return NULL;
    int top = e->op == FX_ADD ? order_of(c, e) : 0;
    uint32_t n = 0;
    bool ok = true;
    for (uint32_t k = 0; k < e->n && ok; k++) {
        if (e->op == FX_ADD && order_of(c, e->kids[k]) != top)
            continue; /* T3: the terms of the top order */
        ok = (kids[n++] = build(c, y, e->kids[k])) != NULL;
    }
    const fx_node *out = NULL;
    if (ok && e->op == FX_ADD)
        out = n == 0 ? fx_num(y->p, 0, true, z) : n == 1 ? kids[0] : fx_make(y->p, FX_ADD, kids, n, z);
    else if (ok && e->op == FX_CALL)
        out = fx_call(y->p, (fx_fn)e->fn, e->name, kids, n, z);
    else if (ok)
        out = fx_make(y->p, (fx_op)e->op, kids, n, z);
    if (kids != small)
        mdae_free(kids);
    return out;
}

static int push_row(std_sys *y, const fx_node *row)
{
    if (mc__grow((void **)&y->s.rows, &y->cap_rows, y->s.n_rows + 1, sizeof *y->s.rows) < 0)
        return MDAE_E_NOMEM;
    y->s.rows[y->s.n_rows++] = row;
    return MDAE_OK;
}

/* lhs = rhs read as read_equation does, built into a row when it reads no
 * impulsive value (the rows that do are the eliminations'); skipped when
 * it cannot be read. MDAE_OK or MDAE_E_NOMEM. */
static int build_row(std_ctx *c, std_sys *y, const fx_node *lhs, const fx_node *rhs)
{
    c->why = NULL;
    if (fx_size(lhs) + fx_size(rhs) > STD_MAX_NODES)
        return MDAE_OK;
    int ol = order_of(c, lhs), or = order_of(c, rhs);
    int top = ol > or ? ol : or;
    if (c->why != NULL || top == NEG)
        return MDAE_OK;
    mdae_range z = {0};
    y->impulsive = false;
    const fx_node *l = ol == top ? build(c, y, lhs) : fx_num(y->p, 0, true, z);
    const fx_node *r = l != NULL && or == top ? build(c, y, rhs) : fx_num(y->p, 0, true, z);
    if (fx_pool_failed(y->p) || c->oom)
        return MDAE_E_NOMEM;
    if (l == NULL || r == NULL || c->why != NULL || y->impulsive)
        return MDAE_OK;
    const fx_node *row = fx_residual(y->p, l, r);
    return row != NULL ? push_row(y, row) : MDAE_E_NOMEM;
}

/* The eliminations of instant c->r, their relations as rows and their
 * pivots as dt -> 0. */
static int build_eliminations(std_ctx *c, std_sys *y)
{
    int rc = MDAE_OK;
    mdae_range z = {0};
    for (size_t k = 0; k < c->res->n_resets && rc == MDAE_OK; k++) {
        mc_reset *rs = &c->res->resets[k];
        if (rs->r != c->r || rs->eliminate.n == 0)
            continue;
        if (rs->why != NULL) {
            y->s.why = "its impulsive values were not eliminated (see the restart relation)";
            continue;
        }
        mc_elim e = {0};
        rc = mc_reset_eliminate(c->m, c->to, rs, y->p, &e);
        c->k = 0;
        c->nv = c->m->n_variables;
        for (size_t i = 0; rc == MDAE_OK && i < e.n_relations; i++)
            rc = build_row(c, y, e.relations[i], fx_num(y->p, 0, true, z));
        for (size_t i = 0; rc == MDAE_OK && i < e.n_pivots; i++) {
            c->why = NULL;
            order_of(c, e.pivots[i]);
            const fx_node *piv = c->why == NULL ? build(c, y, e.pivots[i]) : NULL;
            if (piv == NULL || c->why != NULL)
                continue;
            rc = mc__grow((void **)&y->s.pivots, &y->cap_pivots, y->s.n_pivots + 1,
                          sizeof *y->s.pivots);
            if (rc == MDAE_OK)
                y->s.pivots[y->s.n_pivots++] = piv;
        }
        c->nv = 0;
        mc_elim_close(&e);
    }
    return rc;
}

/* Instant c->r's restart system as dt -> 0 built (the equations as
 * res->std_equations read them), then solved into res->restart_values. */
static int restart_values(std_ctx *c, fx_pool *pool)
{
    std_sys y;
    memset(&y, 0, sizeof y);
    y.p = pool;
    y.s.r = c->r;
    int rc = build_eliminations(c, &y);
    for (size_t k = 0; k < c->res->n_std_equations && rc == MDAE_OK; k++) {
        const mc_std_equation *q = &c->res->std_equations[k];
        const mel_equation *eq = &c->m->equations[q->eq];
        if (q->r != c->r)
            continue;
        if (q->text == NULL) {
            y.s.n_unread++;
            continue;
        }
        int err = MDAE_OK; /* read as one_equation read it (T4) */
        const fx_node *l = q->derivative == 0 ? eq->lhs
                                              : fx_dt(pool, eq->lhs, (unsigned)q->derivative, &err);
        const fx_node *r = l == NULL            ? NULL
                           : q->derivative == 0 ? eq->rhs
                                                : fx_dt(pool, eq->rhs, (unsigned)q->derivative, &err);
        if (r == NULL) {
            rc = fx_pool_failed(pool) ? MDAE_E_NOMEM : MDAE_OK;
            continue;
        }
        c->k = q->shift - q->derivative;
        rc = build_row(c, &y, l, r);
    }
    if (rc == MDAE_OK)
        rc = mc__restart_solve(c->m, c->to, pool, &y.s, c->res);
    mdae_free(y.s.rows);
    mdae_free(y.s.values);
    mdae_free(y.s.pivots);
    c->why = NULL;
    return rc;
}

int mc__std_equations(const mel_model *m, const bool *to, const int *d, mc_result *res)
{
    if (res->n_standard == 0)
        return MDAE_OK;
    fx_pool *pool = fx_pool_new();
    if (pool == NULL)
        return MDAE_E_NOMEM;
    std_ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.to = to;
    c.d = d;
    c.res = res;
    c.K = res->n_instants;
    int rc = MDAE_OK;
    const mc_transient *t = res->transient;
    c.E = t != NULL ? t->n_events : 0;
    for (uint32_t r = 0; r < res->n_instants && rc == MDAE_OK; r++) {
        c.r = r;
        /* T7: an event reads its own mode, the instants after the long one */
        c.to = t == NULL ? to : r < t->n_events ? &t->events[(size_t)r * m->n_modes] : t->back;
        const mc_instant *in = &res->instants[r];
        bool analysed = false; /* T5: its values have impulse orders */
        for (size_t k = 0; k < res->n_impulsive && !analysed; k++)
            analysed = res->impulsive[k].r == r;
        for (size_t k = 0; k < res->n_finite && !analysed; k++)
            analysed = res->finite[k].r == r;
        for (size_t e = 0; e < in->equations.n && rc == MDAE_OK; e++) {
            if (analysed) {
                rc = one_equation(&c, pool, in, in->equations.items[e].index,
                                  in->equations.items[e].shift);
                continue;
            }
            mc_std_equation out;
            memset(&out, 0, sizeof out);
            out.r = r;
            out.eq = in->equations.items[e].index;
            out.shift = in->equations.items[e].shift;
            out.why = "the impulse analysis of the instant was not done";
            rc = push(res, &out);
        }
        for (size_t k = 0; k < res->n_resets && rc == MDAE_OK; k++)
            if (res->resets[k].r == r)
                rc = std_relations(&c, c.to, &res->resets[k]);
        if (analysed && rc == MDAE_OK) /* issue 41 item 6 */
            rc = restart_values(&c, pool);
    }
    if (rc == MDAE_OK && res->n_restart_values > 0 && res->pool == NULL)
        res->pool = pool; /* the restart values' expressions live in it */
    else
        fx_pool_free(pool);
    return rc;
}
