/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_rimis_peval.c -- engine/rimis_peval.c: conditions as
 * BDDs (rimis__cond_bdd) and back (rimis__cond_fx), and the partial
 * evaluation pi_q of RR-9459 section 4.6.2 (rimis__peval), on the papers'
 * equations (TwoEquations, the Water Tank, its invariant), hand-made
 * cases (undecided relations, nested ifs, a shorter condition), and a
 * randomized property test: in every mode of q & care, pi_q(e) has e's
 * value (fx_eval), and its free variables are among e's.
 *
 * The functions are internals (engine/rimis_int.h): they run inside an
 * entry point's frame over a finished analysis (sa__run_on), as
 * rimis_build runs them.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rimis_int.h"

#include "model_files.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(rimis_peval, .init = begin, .fini = end, .timeout = 300);

static const mdae_range nowhere;

/* ---- Fixture ---------------------------------------------------------------- */

typedef struct fixture {
    char *text;
    mel_model *m;
    sa_result *r;
    fx_pool *p; /* results */
} fixture;

static void load_text(fixture *fx, const char *text)
{
    memset(fx, 0, sizeof *fx);
    mdae_diags d;
    mdae_diags_init(&d);
    cr_assert_eq(mel_model_parse(text, strlen(text), NULL, &fx->m, &d), MDAE_OK);
    cr_assert_eq(sa_analyze(fx->m, NULL, &fx->r, &d), MDAE_OK);
    mdae_diags_close(&d);
    fx->p = fx_pool_new();
    cr_assert_not_null(fx->p);
}

static void load(fixture *fx, const char *name)
{
    char *t = tm_slurp(name);
    load_text(fx, t);
    fx->text = t;
}

static void unload(fixture *fx)
{
    fx_pool_free(fx->p);
    sa_result_free(fx->r);
    mel_model_free(fx->m);
    free(fx->text);
}

static const mel_equation *eq_named(const fixture *fx, const char *name)
{
    for (uint32_t i = 0; i < fx->m->n_equations; i++)
        if (!strcmp(fx->m->equations[i].name, name))
            return &fx->m->equations[i];
    cr_assert_fail("no equation %s", name);
    return NULL;
}

static const fx_node *mode(fixture *fx, const char *name)
{
    long k = mel_model_find_mode(fx->m, name);
    cr_assert_geq(k, 0, "no mode %s", name);
    return fx_mode(fx->p, (uint32_t)k, nowhere);
}

static const fx_node *var(fixture *fx, const char *name, uint32_t order)
{
    long k = mel_model_find_variable(fx->m, name);
    cr_assert_geq(k, 0, "no variable %s", name);
    return fx_var(fx->p, (uint32_t)k, order, nowhere);
}

static const fx_node *not_(fixture *fx, const fx_node *a) { return fx_un(fx->p, FX_NOT, a, nowhere); }
static const fx_node *and_(fixture *fx, const fx_node *a, const fx_node *b)
{
    return fx_bin(fx->p, FX_AND, a, b, nowhere);
}
static const fx_node *or_(fixture *fx, const fx_node *a, const fx_node *b)
{
    return fx_bin(fx->p, FX_OR, a, b, nowhere);
}
static const fx_node *num(fixture *fx, double v) { return fx_num(fx->p, v, true, nowhere); }

/* The set of modes of a decided condition (a slot of c). */
static BDD set_of(sa_ctx *c, const fixture *fx, const fx_node *e)
{
    bool decided = false;
    BDD f = rimis__cond_bdd(c, fx->r, e, &decided);
    cr_assert(decided);
    return f;
}

/* pi_q(e) printed in MEL (one of 4 static buffers, used in turn). */
static const char *show(const fixture *fx, const fx_node *e)
{
    static char bufs[4][1024];
    static unsigned turn;
    char *buf = bufs[turn++ % 4];
    cr_assert_not_null(e);
    char *s = fx_format(fx->m, e, FX_SYNTAX_MEL);
    cr_assert_not_null(s);
    snprintf(buf, sizeof bufs[0], "%s", s);
    mdae_free(s);
    return buf;
}

/* One case: pi_q(e) under care, printed, against want. */
typedef struct pcase {
    fixture *fx;
    const fx_node *e, *q, *care; /* care NULL: the valid nonsingular modes */
    char got[1024];
    const fx_node *res;
} pcase;

static void run_case(sa_ctx *c, void *arg)
{
    pcase *k = arg;
    BDD q = set_of(c, k->fx, k->q);
    BDD care = k->care != NULL ? set_of(c, k->fx, k->care) : k->fx->r->ok;
    k->res = rimis__peval(c, k->fx->r, k->fx->p, k->e, q, care);
    snprintf(k->got, sizeof k->got, "%s", show(k->fx, k->res));
}

static const fx_node *peval_care(fixture *fx, const fx_node *e, const fx_node *q,
                                 const fx_node *care, const char *want)
{
    pcase k = {fx, e, q, care, {0}, NULL};
    cr_assert_eq(sa__run_on(fx->r, NULL, 0, run_case, &k), MDAE_OK);
    cr_expect_str_eq(k.got, want, "pi_q(%s) = %s, want %s", show(fx, e), k.got, want);
    return k.res;
}

static const fx_node *peval(fixture *fx, const fx_node *e, const fx_node *q, const char *want)
{
    return peval_care(fx, e, q, NULL, want);
}

/* ---- The papers' equations ------------------------------------------------------ */

Test(rimis_peval, two_equations)
{
    fixture fx;
    load(&fx, "two_equations.mel");
    const fx_node *rhs = eq_named(&fx, "e")->rhs;
    cr_assert_str_eq(show(&fx, rhs), "if p then x else der(x)");
    peval(&fx, rhs, mode(&fx, "p"), "x");
    peval(&fx, rhs, not_(&fx, mode(&fx, "p")), "der(x)");
    /* Under true nothing is decided: e comes back as it is. */
    const fx_node *same = peval(&fx, rhs, fx_bool(fx.p, true, nowhere), "if p then x else der(x)");
    cr_expect_eq(same, rhs);
    unload(&fx);
}

Test(rimis_peval, water_tank_eh1)
{
    fixture fx;
    load(&fx, "water_tank.mel");
    const fx_node *rhs = eq_named(&fx, "eh1")->rhs;
    peval(&fx, rhs, mode(&fx, "bh"), "yh");
    peval(&fx, rhs, not_(&fx, mode(&fx, "bh")), "x - xmax");
    /* bl says nothing of bh, though it excludes it: bh is false under bl. */
    peval(&fx, rhs, mode(&fx, "bl"), "x - xmax");
    unload(&fx);
}

/* Decided only through the invariant !(bh & bl): under bl, eh2's
 * `if bh then x - xmax else yh` is yh; with every mode cared for, kept. */
Test(rimis_peval, decided_by_invariant)
{
    fixture fx;
    load(&fx, "water_tank.mel");
    const fx_node *rhs = eq_named(&fx, "eh2")->rhs;
    const fx_node *bl = mode(&fx, "bl");
    peval(&fx, rhs, bl, "yh");
    peval_care(&fx, rhs, bl, fx_bool(fx.p, true, nowhere), "if bh then x - xmax else yh");
    /* A condition the invariant shortens: bh | bl under !bl reads as bh
     * anyway; bh & !bl under true is bh (bl is excluded by bh). */
    const fx_node *e = fx_if(fx.p, and_(&fx, mode(&fx, "bh"), not_(&fx, bl)), var(&fx, "yh", 0),
                             var(&fx, "yl", 0), nowhere);
    peval(&fx, e, fx_bool(fx.p, true, nowhere), "if bh then yh else yl");
    unload(&fx);
}

/* ---- Hand-made cases ---------------------------------------------------------------- */

static const char *free_modes =
    "a : boolean; b : boolean; c : boolean; d : boolean; g : boolean;\n"
    "k : real = 2.0;\n"
    "x : real; y : real;\n"
    "e1 : equation x = 0;\n"
    "e2 : equation y = 1;\n";

Test(rimis_peval, undecided_relation_kept)
{
    fixture fx;
    load_text(&fx, free_modes);
    const fx_node *x = var(&fx, "x", 0), *y = var(&fx, "y", 0);
    const fx_node *rel = fx_bin(fx.p, FX_GT, x, num(&fx, 0), nowhere);
    const fx_node *inner = fx_if(fx.p, mode(&fx, "a"), x, y, nowhere);
    const fx_node *e = fx_if(fx.p, rel, inner, num(&fx, 1), nowhere);
    peval(&fx, e, mode(&fx, "a"), "if x > 0 then x else 1");
    peval(&fx, e, not_(&fx, mode(&fx, "a")), "if x > 0 then y else 1");
    /* A condition mixing modes and a relation is not decided either. */
    const fx_node *mixed = fx_if(fx.p, and_(&fx, rel, mode(&fx, "a")), x, y, nowhere);
    peval(&fx, mixed, mode(&fx, "a"), "if x > 0 & a then x else y");
    unload(&fx);
}

Test(rimis_peval, nested_ifs)
{
    fixture fx;
    load_text(&fx, free_modes);
    const fx_node *a = mode(&fx, "a"), *b = mode(&fx, "b");
    const fx_node *t = fx_if(fx.p, b, num(&fx, 1), num(&fx, 2), nowhere);
    const fx_node *f = fx_if(fx.p, a, num(&fx, 3), num(&fx, 4), nowhere);
    const fx_node *e = fx_if(fx.p, a, t, f, nowhere);
    /* The inner `if a` is decided by the outer else-branch. */
    peval(&fx, e, fx_bool(fx.p, true, nowhere), "if a then if b then 1 else 2 else 4");
    peval(&fx, e, b, "if a then 1 else 4");
    peval(&fx, e, and_(&fx, a, not_(&fx, b)), "2");
    /* Inside a sum: only the kids change, and the sum is folded. */
    const fx_node *s = fx_bin(fx.p, FX_ADD, var(&fx, "x", 0), e, nowhere);
    peval(&fx, s, and_(&fx, a, b), "x + 1");
    unload(&fx);
}

Test(rimis_peval, shorter_condition)
{
    fixture fx;
    load_text(&fx, free_modes);
    const fx_node *a = mode(&fx, "a"), *b = mode(&fx, "b"), *c = mode(&fx, "c");
    const fx_node *x = var(&fx, "x", 0), *y = var(&fx, "y", 0);
    const fx_node *e1 = fx_if(fx.p, and_(&fx, a, b), x, y, nowhere);
    peval(&fx, e1, a, "if b then x else y");
    const fx_node *mux = or_(&fx, and_(&fx, a, b), and_(&fx, not_(&fx, a), c));
    const fx_node *e2 = fx_if(fx.p, mux, x, y, nowhere);
    peval(&fx, e2, a, "if b then x else y");
    peval(&fx, e2, not_(&fx, a), "if c then x else y");
    /* Not shorter: the condition as written stays. */
    peval(&fx, e2, fx_bool(fx.p, true, nowhere), "if a & b | !a & c then x else y");
    unload(&fx);
}

/* ---- Randomized properties ------------------------------------------------------------ */

static uint64_t rnd_state;
static uint32_t rnd(uint32_t n)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return (uint32_t)(rnd_state % n);
}

typedef struct gen {
    fixture *fx;
    uint32_t n_modes;
} gen;

static const fx_node *gen_real(gen *g, int depth);

static const fx_node *gen_bool(gen *g, int depth)
{
    fx_pool *p = g->fx->p;
    uint32_t pick = depth <= 0 ? rnd(3) : rnd(8);
    switch (pick) {
    case 0:
    case 1: return fx_mode(p, rnd(g->n_modes), nowhere);
    case 2: return fx_bool(p, rnd(2), nowhere);
    case 3: return fx_un(p, FX_NOT, gen_bool(g, depth - 1), nowhere);
    case 4: return fx_bin(p, FX_AND, gen_bool(g, depth - 1), gen_bool(g, depth - 1), nowhere);
    case 5: return fx_bin(p, FX_OR, gen_bool(g, depth - 1), gen_bool(g, depth - 1), nowhere);
    case 6:
        return fx_bin(p, rnd(2) ? FX_EQ : FX_NE, gen_bool(g, depth - 1), gen_bool(g, depth - 1),
                      nowhere);
    default: /* a relation between reals: undecided */
        return fx_bin(p, FX_GT, gen_real(g, depth - 1), gen_real(g, depth - 1), nowhere);
    }
}

static const fx_node *gen_real(gen *g, int depth)
{
    fx_pool *p = g->fx->p;
    uint32_t pick = depth <= 0 ? rnd(3) : rnd(8);
    switch (pick) {
    case 0: return fx_num(p, (double)rnd(5) - 1, true, nowhere);
    case 1: return fx_var(p, rnd(2), rnd(2), nowhere);
    case 2: return fx_known(p, 0, nowhere);
    case 3: return fx_un(p, FX_NEG, gen_real(g, depth - 1), nowhere);
    case 4: return fx_bin(p, FX_ADD, gen_real(g, depth - 1), gen_real(g, depth - 1), nowhere);
    case 5: return fx_bin(p, FX_MUL, gen_real(g, depth - 1), gen_real(g, depth - 1), nowhere);
    default:
        return fx_if(p, gen_bool(g, depth - 1), gen_real(g, depth - 1), gen_real(g, depth - 1),
                     nowhere);
    }
}

/* Evaluation at a mode (bool per mode variable), reals fixed. */
static double pt_var(void *ctx, uint32_t v, uint32_t order)
{
    (void)ctx;
    return (double)(3 * (int)v - 2 + 5 * (int)order);
}
static double pt_known(void *ctx, uint32_t k)
{
    (void)ctx;
    return 2.0 + k;
}
static bool pt_mode(void *ctx, uint32_t k) { return ((const bool *)ctx)[k]; }

static double value(const fx_node *e, bool *at)
{
    fx_point pt = {0, pt_var, pt_known, pt_mode, NULL, at};
    double v = 0;
    cr_assert_eq(fx_eval(e, &pt, &v), MDAE_OK);
    return v;
}

/* Free names: bit 0..15 modes, 16..19 vars (index * 2 + order), 20 knowns. */
static uint32_t free_of(const fx_node *e)
{
    uint32_t s = 0;
    switch ((fx_op)e->op) {
    case FX_MODE: s |= 1u << e->index; break;
    case FX_VAR: s |= 1u << (16 + 2 * e->index + e->order); break;
    case FX_KNOWN: s |= 1u << 20; break;
    default: break;
    }
    for (uint32_t k = 0; k < e->n; k++)
        s |= free_of(e->kids[k]);
    return s;
}

/* A random set of modes: each of the 2^n in it with probability num/4. */
static BDD random_set(sa_ctx *c, const sa_result *r, uint32_t n, uint32_t num4)
{
    BDD *f = sa__slots(c, 1);
    for (uint32_t m = 0; m < (1u << n); m++) {
        if (rnd(4) >= num4)
            continue;
        BDD *cube = sa__slots(c, 1);
        sa__put(cube, bddtrue);
        for (uint32_t k = 0; k < n; k++) {
            BDD v = (m >> k) & 1 ? bdd_ithvar(r->mode_var[k]) : bdd_nithvar(r->mode_var[k]);
            sa__put(cube, bdd_and(*cube, v));
        }
        sa__put(f, bdd_or(*f, *cube));
    }
    return *f;
}

typedef struct prop {
    fixture *fx;
    uint32_t n_modes;
    unsigned rounds;
    size_t changed, decided_ifs;
} prop;

static void prop_peval(sa_ctx *c, void *arg)
{
    prop *t = arg;
    gen g = {t->fx, t->n_modes};
    bool at[16];
    for (unsigned round = 0; round < t->rounds; round++) {
        size_t mark = sa__mark(c);
        const fx_node *e = gen_real(&g, 5);
        cr_assert_not_null(e);
        BDD q = random_set(c, t->fx->r, t->n_modes, 2);
        BDD care = random_set(c, t->fx->r, t->n_modes, 3);
        const fx_node *pe = rimis__peval(c, t->fx->r, t->fx->p, e, q, care);
        cr_assert_not_null(pe);
        t->changed += pe != e;
        cr_assert_eq(free_of(pe) & ~free_of(e), 0, "pi_q(%s) = %s has new names",
                     show(t->fx, e), show(t->fx, pe));
        BDD qc = sa__tmp(c, bdd_and(q, care));
        for (uint32_t m = 0; m < (1u << t->n_modes); m++) {
            for (uint32_t k = 0; k < t->n_modes; k++)
                at[k] = (m >> k) & 1;
            if (!sa__eval(t->fx->r, qc, at))
                continue;
            double want = value(e, at), got = value(pe, at);
            cr_assert_eq(got, want, "mode %u: pi_q(%s) = %s: %g, want %g", m, show(t->fx, e),
                         show(t->fx, pe), got, want);
        }
        sa__release(c, mark);
    }
}

static void load_modes(fixture *fx, uint32_t n)
{
    char text[512];
    int len = 0;
    for (uint32_t k = 0; k < n; k++)
        len += snprintf(text + len, sizeof text - (size_t)len, "m%u : boolean;\n", k);
    snprintf(text + len, sizeof text - (size_t)len,
             "k : real = 2.0;\nx : real; y : real;\n"
             "e1 : equation x = 0;\ne2 : equation y = 1;\n");
    load_text(fx, text);
    cr_assert_eq(fx->m->n_modes, n);
}

Test(rimis_peval, random_value_and_free_names)
{
    rnd_state = 0x9E3779B97F4A7C15ull;
    size_t changed = 0;
    for (uint32_t n = 3; n <= 5; n++) {
        fixture fx;
        load_modes(&fx, n);
        prop t = {&fx, n, 300, 0, 0};
        cr_assert_eq(sa__run_on(fx.r, NULL, 0, prop_peval, &t), MDAE_OK);
        changed += t.changed;
        unload(&fx);
    }
    /* The property is not vacuous: most expressions were simplified. */
    cr_expect_gt(changed, 300);
}

static void prop_cover(sa_ctx *c, void *arg)
{
    prop *t = arg;
    bool at[16];
    for (unsigned round = 0; round < t->rounds; round++) {
        size_t mark = sa__mark(c);
        BDD lo = random_set(c, t->fx->r, t->n_modes, 1);
        BDD hi = sa__tmp(c, bdd_or(lo, random_set(c, t->fx->r, t->n_modes, 2)));
        const fx_node *e = rimis__cond_fx(c, t->fx->r, t->fx->p, lo, hi);
        cr_assert_not_null(e);
        bool decided = false;
        BDD f = rimis__cond_bdd(c, t->fx->r, e, &decided);
        cr_assert(decided);
        cr_assert_eq(bdd_imp(lo, f), bddtrue);
        cr_assert_eq(bdd_imp(f, hi), bddtrue);
        for (uint32_t m = 0; m < (1u << t->n_modes); m++) {
            for (uint32_t k = 0; k < t->n_modes; k++)
                at[k] = (m >> k) & 1;
            bool v = value(e, at) != 0;
            if (sa__eval(t->fx->r, lo, at))
                cr_assert(v, "mode %u in lo, not in %s", m, show(t->fx, e));
            if (!sa__eval(t->fx->r, hi, at))
                cr_assert(!v, "mode %u outside hi, in %s", m, show(t->fx, e));
        }
        sa__release(c, mark);
    }
}

Test(rimis_peval, random_cover_between)
{
    rnd_state = 0x2545F4914F6CDD1Dull;
    for (uint32_t n = 3; n <= 5; n++) {
        fixture fx;
        load_modes(&fx, n);
        prop t = {&fx, n, 200, 0, 0};
        cr_assert_eq(sa__run_on(fx.r, NULL, 0, prop_cover, &t), MDAE_OK);
        unload(&fx);
    }
}

/* cond_bdd: what is decided and what is not. */
static void cond_cases(sa_ctx *c, void *arg)
{
    fixture *fx = arg;
    bool decided = true;
    const fx_node *x = var(fx, "x", 0);
    BDD f = rimis__cond_bdd(c, fx->r, fx_bin(fx->p, FX_GT, x, num(fx, 0), nowhere), &decided);
    cr_expect(!decided);
    cr_expect_eq(f, bddfalse);
    f = rimis__cond_bdd(c, fx->r, fx_bin(fx->p, FX_EQ, x, num(fx, 0), nowhere), &decided);
    cr_expect(!decided);
    f = rimis__cond_bdd(c, fx->r, fx_un(fx->p, FX_PRE, mode(fx, "a"), nowhere), &decided);
    cr_expect(!decided);
    const fx_node *a = mode(fx, "a"), *b = mode(fx, "b");
    f = rimis__cond_bdd(c, fx->r, fx_bin(fx->p, FX_NE, a, b, nowhere), &decided);
    cr_expect(decided);
    int va = fx->r->mode_var[0], vb = fx->r->mode_var[1];
    cr_expect_eq(f, bdd_xor(bdd_ithvar(va), bdd_ithvar(vb)));
    f = rimis__cond_bdd(c, fx->r, fx_bin(fx->p, FX_EQ, a, not_(fx, b), nowhere), &decided);
    cr_expect(decided);
    cr_expect_eq(f, bdd_xor(bdd_ithvar(va), bdd_ithvar(vb)));
}

Test(rimis_peval, cond_bdd_decided)
{
    fixture fx;
    load_text(&fx, free_modes);
    cr_assert_eq(sa__run_on(fx.r, NULL, 0, cond_cases, &fx), MDAE_OK);
    unload(&fx);
}

/* pre() reads another instant: an if inside it is left alone. */
Test(rimis_peval, pre_untouched)
{
    fixture fx;
    load_text(&fx, free_modes);
    const fx_node *a = mode(&fx, "a");
    const fx_node *in = fx_if(fx.p, a, var(&fx, "x", 0), var(&fx, "y", 0), nowhere);
    const fx_node *e = fx_bin(fx.p, FX_ADD, fx_un(fx.p, FX_PRE, in, nowhere), in, nowhere);
    peval(&fx, e, a, "pre(if a then x else y) + x");
    unload(&fx);
}

static void run_dag(sa_ctx *c, void *arg)
{
    pcase *k = arg;
    k->res = rimis__peval(c, k->fx->r, k->fx->p, k->e, set_of(c, k->fx, k->q), k->fx->r->ok);
    cr_assert_not_null(k->res);
}

/* A DAG (a differentiated equation shares nodes): each node is evaluated
 * once per q, so 2^40 paths cost 40 nodes, and the result stays shared. */
Test(rimis_peval, shared_dag)
{
    fixture fx;
    load_text(&fx, free_modes);
    const fx_node *e = fx_if(fx.p, mode(&fx, "a"), var(&fx, "x", 0), var(&fx, "y", 0), nowhere);
    for (int k = 0; k < 40; k++) {
        const fx_node *args[2] = {e, e};
        e = fx_call(fx.p, FX_FN_UNKNOWN, "f", args, 2, nowhere);
    }
    /* Not printed (2^40 leaves): walked down the first kids. */
    pcase k = {&fx, e, mode(&fx, "a"), NULL, {0}, NULL};
    cr_assert_eq(sa__run_on(fx.r, NULL, 0, run_dag, &k), MDAE_OK);
    const fx_node *t = k.res;
    for (int d = 0; d < 40; d++) {
        cr_assert_eq(t->op, FX_CALL);
        /* Shared (fx_fold copies leaves, not the nodes above them). */
        cr_assert(t->kids[0] == t->kids[1] ||
                  (t->kids[0]->n == 0 && fx_equal(t->kids[0], t->kids[1])));
        t = t->kids[0];
    }
    cr_expect_eq(t->op, FX_VAR);
    cr_expect_eq(t->index, (uint32_t)mel_model_find_variable(fx.m, "x"));
    unload(&fx);
}
