/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_report.c -- the result as plain data (sa_report) for the JSON
 * encoder and the text output: sets of modes as cubes and formulas
 * (sa_sop.c), offsets split by value, singular-mode diagnostics; after an
 * earlier report, only the items whose BDD handles changed (sa__item_keys,
 * combined with the graph's by cdg_view.c's cdg_report_since; why the
 * others' JSON is the same: its section below).
 *
 * Offsets by value without enumerating modes: a recursive split over the
 * bits of the offset vector, high bit first, restricted to the modes where
 * the item is active in a valid nonsingular mode; an empty branch is cut, so
 * the work is proportional to the number of distinct values.
 */
#include "sa_int.h"

#include <stdlib.h>

#include <math.h>
#include <string.h>

#define T(f) sa__tmp(c, (f))

static void item_free(sa_item *it)
{
    sa__set_close(&it->active);
    for (size_t k = 0; k < it->n_offsets; k++)
        sa__set_close(&it->offsets[k].modes);
    mdae_free(it->offsets);
}

void sa_report_free(sa_report *rep)
{
    if (rep == NULL)
        return;
    mdae_free((void *)rep->mode_names);
    mdae_free(rep->valid_modes_exact);
    sa__set_close(&rep->singular_modes);
    for (uint32_t i = 0; rep->equations && i < rep->n_equations; i++)
        item_free(&rep->equations[i]);
    for (uint32_t j = 0; rep->variables && j < rep->n_variables; j++)
        item_free(&rep->variables[j]);
    mdae_free(rep->equations);
    mdae_free(rep->variables);
    for (size_t k = 0; rep->diagnostics && k < rep->n_diagnostics; k++)
        sa__set_close(&rep->diagnostics[k].modes);
    mdae_free(rep->diagnostics);
    mdae_free(rep);
}

typedef struct split {
    unsigned *values;
    BDD *sets; /* slots */
    size_t n, cap;
} split;

/* The set of one value, the recursion's leaf: appended to s. */
static void split_leaf(sa_ctx *c, split *s, BDD set, unsigned value)
{
    if (s->n == s->cap) /* values are bounded by 2^w: cannot happen */
        sa__fail(c, MDAE_E_BDD);
    s->values[s->n] = value;
    sa__put(&s->sets[s->n], set);
    s->n++;
}

static void split_rec(sa_ctx *c, split *s, const BDD *v, int k, BDD set, unsigned value)
{
    if (set == bddfalse)
        return;
    if (k < 0) {
        split_leaf(c, s, set, value);
        return;
    }
    if (v[k] == bddfalse || v[k] == bddtrue) { /* a constant bit: one branch, no operation */
        split_rec(c, s, v, k - 1, set, value | (v[k] == bddtrue ? 1u << k : 0u));
        return;
    }
    size_t mark = sa__mark(c);
    BDD s0 = T(bdd_apply(set, v[k], bddop_diff));
    BDD s1 = T(bdd_and(set, v[k]));
    split_rec(c, s, v, k - 1, s0, value);
    split_rec(c, s, v, k - 1, s1, value | (1u << k));
    sa__release(c, mark);
}

/* Number of mode assignments satisfying a mode function. BuDDy's
 * bdd_satcountset scales by 2^(all variables), which overflows a double on
 * models with a few thousand edges, and returns 0 for an empty set. */
static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The counted variables, (level << 32 | variable) sorted: a variable's rank
 * (how many counted ones come before it) is its index, found by level.
 * `free_vars` counted variables are left out of key because f does not
 * depend on them: each doubles the count (the caller's final shift). */
typedef struct cnt_memo {
    const long *key;
    int n;
    int *memo_key;
    double *val;
    size_t cap;
    int free_vars;
} cnt_memo;

static int rank_of(const cnt_memo *cm, int var)
{
    long lv = (long)bdd_var2level(var);
    int lo = 0, hi = cm->n - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if ((cm->key[mid] >> 32) < lv)
            lo = mid + 1;
        else
            hi = mid;
    }
    MDAE_ASSERT(lo < cm->n && (cm->key[lo] & 0xffffffffL) == var);
    return lo;
}

static double count_rec(cnt_memo *cm, BDD f, int *rk)
{
    if (f < 2) {
        *rk = cm->n;
        return f == bddtrue ? 1.0 : 0.0;
    }
    *rk = rank_of(cm, bdd_var(f));
    size_t h = ((size_t)f * 2654435761u) & (cm->cap - 1);
    while (cm->memo_key[h] != -1 && cm->memo_key[h] != f)
        h = (h + 1) & (cm->cap - 1);
    if (cm->memo_key[h] == f)
        return cm->val[h];
    int rl, rh;
    double lo = count_rec(cm, bdd_low(f), &rl);
    double hi = count_rec(cm, bdd_high(f), &rh);
    double v = ldexp(lo, rl - *rk - 1) + ldexp(hi, rh - *rk - 1);
    cm->memo_key[h] = f;
    cm->val[h] = v;
    return v;
}

double sa__count_modes(sa_ctx *c, const sa_result *r, BDD f)
{
    return sa__count_modes_in(c, r, f, NULL, 0);
}

/* The (level << 32 | variable) of every node of f into key[*n], each node
 * once (seen: an open-addressing set of cap slots, -1 when free). Not
 * BuDDy's bdd_support: that builds the support's cube, new nodes, so
 * possibly a garbage collection or a node-limit error inside a count,
 * which creates no node today. */
static void support_rec(BDD f, int *seen, size_t cap, long *key, size_t *n)
{
    if (f < 2)
        return;
    size_t h = ((size_t)f * 2654435761u) & (cap - 1);
    while (seen[h] != -1 && seen[h] != f)
        h = (h + 1) & (cap - 1);
    if (seen[h] == f)
        return;
    seen[h] = f;
    int v = bdd_var(f);
    key[(*n)++] = (long)bdd_var2level(v) << 32 | (long)v;
    support_rec(bdd_low(f), seen, cap, key, n);
    support_rec(bdd_high(f), seen, cap, key, n);
}

/* The variables f depends on, sorted by level, into key; their number.
 * seen (cap slots, all -1) is left as it was. */
static uint32_t support_keys(BDD f, int *seen, size_t cap, long *key)
{
    size_t n = 0;
    support_rec(f, seen, cap, key, &n);
    for (size_t k = 0; k < cap; k++)
        seen[k] = -1;
    qsort(key, n, sizeof *key, cmp_long);
    size_t u = 0;
    for (size_t k = 0; k < n; k++)
        if (u == 0 || key[u - 1] != key[k])
            key[u++] = key[k];
    return (uint32_t)u;
}

/* The counted variables of r (modes[0 .. n_in), all if modes is NULL)
 * sorted by level; a memo sized for f (its values left to the caller). Its
 * cost follows n_in, not the model's mode variables (issue 40). With modes
 * NULL only the variables f depends on are keyed (the others are
 * free_vars): its cost follows f, not the model's mode variables (sorting
 * them all per count was quadratic in the editor's diagnostics at
 * N = 10,000: one count per finding and per mode variable). f must depend
 * on mode variables only, as for any list. */
static cnt_memo count_setup(sa_ctx *c, const sa_result *r, BDD f, const uint32_t *modes,
                            uint32_t n_in)
{
    cnt_memo cm = {NULL, 0, NULL, NULL, 16, 0};
    size_t nodes = (size_t)bdd_nodecount(f);
    while (cm.cap < 2 * nodes + 2)
        cm.cap *= 2;
    cm.memo_key = sa__alloc(c, cm.cap * sizeof *cm.memo_key);
    for (size_t k = 0; k < cm.cap; k++)
        cm.memo_key[k] = -1;
    uint32_t n = 0;
    long *key;
    if (modes == NULL) {
        key = sa__alloc(c, (nodes + 1) * sizeof *key);
        n = support_keys(f, cm.memo_key, cm.cap, key);
        MDAE_ASSERT(n <= r->n_modes);
        cm.free_vars = (int)(r->n_modes - n);
    } else {
        key = sa__alloc(c, ((size_t)n_in + 1) * sizeof *key);
        for (uint32_t q = 0; q < n_in; q++)
            key[n++] = (long)bdd_var2level(r->mode_var[modes[q]]) << 32 |
                       (long)r->mode_var[modes[q]];
        qsort(key, n, sizeof *key, cmp_long);
    }
    cm.key = key;
    cm.n = (int)n;
    return cm;
}

double sa__count_modes_in(sa_ctx *c, const sa_result *r, BDD f, const uint32_t *modes,
                          uint32_t n)
{
    cnt_memo cm = count_setup(c, r, f, modes, n);
    cm.val = sa__alloc(c, cm.cap * sizeof *cm.val);
    int rk;
    double v = count_rec(&cm, f, &rk);
    return ldexp(v, rk + cm.free_vars);
}

/* count_rec with exact values (issue 41 item 2): the memo's values are big
 * integers (val[h], owned by the memo); false on OOM. *out is borrowed from
 * the memo (or from the constants one and zero). */
typedef struct cnt_exact {
    cnt_memo cm;
    mdae_bn *val;
    mdae_bn zero, one;
} cnt_exact;

static bool count_rec_exact(cnt_exact *ce, BDD f, int *rk, const mdae_bn **out)
{
    cnt_memo *cm = &ce->cm;
    if (f < 2) {
        *rk = cm->n;
        *out = f == bddtrue ? &ce->one : &ce->zero;
        return true;
    }
    *rk = rank_of(cm, bdd_var(f));
    size_t h = ((size_t)f * 2654435761u) & (cm->cap - 1);
    while (cm->memo_key[h] != -1 && cm->memo_key[h] != f)
        h = (h + 1) & (cm->cap - 1);
    if (cm->memo_key[h] == f) {
        *out = &ce->val[h];
        return true;
    }
    /* lo's value is copied before hi is counted: hi's count may fill
     * slots, never overwrite them (below), but keep the pointers short-lived */
    int rl, rh;
    const mdae_bn *lo, *hi;
    mdae_bn v = {0}, t = {0};
    bool ok = count_rec_exact(ce, bdd_low(f), &rl, &lo) && mdae_bn_copy(&v, lo) == MDAE_OK &&
              mdae_bn_shl(&v, (unsigned)(rl - *rk - 1)) == MDAE_OK &&
              count_rec_exact(ce, bdd_high(f), &rh, &hi) && mdae_bn_copy(&t, hi) == MDAE_OK &&
              mdae_bn_shl(&t, (unsigned)(rh - *rk - 1)) == MDAE_OK && mdae_bn_add(&v, &t) == MDAE_OK;
    mdae_bn_free(&t);
    if (!ok) {
        mdae_bn_free(&v);
        return false;
    }
    /* the slot again: the recursion may have taken the one found above
     * (each slot is written once; the table has room for every node) */
    while (cm->memo_key[h] != -1 && cm->memo_key[h] != f)
        h = (h + 1) & (cm->cap - 1);
    MDAE_ASSERT(cm->memo_key[h] == -1);
    cm->memo_key[h] = f;
    ce->val[h] = v;
    *out = &ce->val[h];
    return true;
}

void sa__count_modes_exact(sa_ctx *c, const sa_result *r, BDD f, const uint32_t *modes,
                           uint32_t n, double approx, mdae_bn *out)
{
    /* below 2^53 the double's sums were exact (each term at most the total) */
    if (approx < 9007199254740992.0) {
        if (mdae_bn_set_double(out, approx) != MDAE_OK)
            sa__fail(c, MDAE_E_NOMEM);
        return;
    }
    cnt_exact ce = {count_setup(c, r, f, modes, n), NULL, {0}, {0}};
    ce.val = mdae_calloc(ce.cm.cap, sizeof *ce.val);
    int rk;
    const mdae_bn *v = NULL;
    bool ok = ce.val != NULL && mdae_bn_set_u64(&ce.one, 1) == MDAE_OK &&
              count_rec_exact(&ce, f, &rk, &v) && mdae_bn_copy(out, v) == MDAE_OK &&
              mdae_bn_shl(out, (unsigned)(rk + ce.cm.free_vars)) == MDAE_OK;
    for (size_t k = 0; ce.val != NULL && k < ce.cm.cap; k++)
        mdae_bn_free(&ce.val[k]);
    mdae_free(ce.val);
    mdae_bn_free(&ce.one);
    if (!ok)
        sa__fail(c, MDAE_E_NOMEM);
}

/* What every item of the report reads: the care, the split's arrays (the
 * report's, reused by every item: allocating them per item touched 48 KB
 * per item, a third of the brake's analysis at N = 100 went to page faults,
 * issue 10; the slots it used are cleared after each item) and the sets
 * written so far (items share few functions: the brake at N = 100 has 202
 * distinct ones among its 4,612 sets). */
typedef struct filler {
    const sa__care *cs;
    split s;
    sa__set_memo memo;
    /* The items' sets within ok (below), or NULL: exact. */
    const sa__within *okw;
    sa__set_memo wmemo; /* theirs, keyed by the canonical within form */
} filler;

/* Item it's sets: where it is active (chi), its offsets (vec, or NULL) by
 * value; this one from the exact functions, fill_item_within within ok. */
typedef void item_filler(sa_ctx *c, const sa_result *r, filler *fl, sa_item *it,
                         const char *name, BDD chi, const BDD *vec);

/* vec: the stored offsets (either form, sa_int.h's "r->c's and r->d's
 * readers"), or NULL. split_rec reads them only conjoined with sets within
 * care, inside ok, where both forms agree: a bit's within form is false iff
 * the exact one is, and true where the exact one is ok (a non-constant
 * split whose false branch is empty: the same leaves in the same order). */
static void fill_item(sa_ctx *c, const sa_result *r, filler *fl, sa_item *it, const char *name,
                      BDD chi, const BDD *vec)
{
    split *s = &fl->s;
    it->name = name;
    size_t mark = sa__mark(c);
    if (!c->report_offsets_only)
        sa__set_of_memo(c, r, fl->cs, &fl->memo, T(bdd_and(r->chi_m, chi)), &it->active);
    BDD care = T(bdd_and(r->ok, chi));
    if (care != bddfalse && vec != NULL) {
        s->n = 0;
        split_rec(c, s, vec, r->w_off - 1, care, 0);
        it->offsets = sa__alloc_keep(c, (s->n + 1) * sizeof *it->offsets);
        for (size_t k = 0; k < s->n; k++) {
            it->offsets[k].value = (int)s->values[k];
            sa__set_of_memo(c, r, fl->cs, &fl->memo, s->sets[k], &it->offsets[k].modes);
            it->n_offsets = k + 1;
        }
        for (size_t k = 0; k < s->n; k++)
            sa__put(&s->sets[k], bddfalse);
    }
    sa__release(c, mark);
}

/* ---- The items' sets within ok (issue 40) --------------------------------
 * On the compressible building ok is a chain through every room: each
 * exact set of an item, chi_m & chi or a split of ok & chi by the bits of
 * its offsets, copies the chain above the item's room (N^2 nodes in all,
 * 2 M at N = 1,000, which the report made again after the analysis).
 * When the care set is ok itself (chi_m == ok: no singular mode) and is
 * split into factors, the same sets come from the within forms: x with
 * x & ok the exact set, made from chi and the offsets' within forms (local
 * functions: w = simplify(v, ok)), tested empty by sa__within_empty, and
 * each set is that of x & ok (sa__set_of_memo_within: care_for's
 * simplify(x & ok, ok) made from x). The split takes the same branches in
 * the same order: a branch is cut iff its set is empty in ok; a bit whose
 * within form is a constant b takes one branch, where the exact split
 * found the other's set empty (the set lies in ok). The memo is keyed by
 * sa__within_simplify(x), canonical (a function of x & ok), so it hits
 * exactly where the exact memo did for the items. sa__report_exact
 * (tests) forces the exact path. */
bool sa__report_exact;

/* Whether fill_item may take the within path for r with care set cs. */
static bool report_within(const sa_ctx *c, const sa_result *r, const sa__care *cs)
{
    return !sa__report_exact && r->ok >= 2 && r->ok == r->chi_m && c->care == r->ok &&
           cs->whole == r->ok && cs->n > 0;
}

/* out := the set of x & ok, through fl's within memo (x referenced). */
static void set_within(sa_ctx *c, const sa_result *r, filler *fl, BDD x, sa_set *out)
{
    size_t mark = sa__mark(c);
    BDD h = sa__within_simplify(c, fl->okw, x);
    sa__set_of_memo_within(c, r, fl->cs, fl->okw, &fl->wmemo, h, out);
    sa__release(c, mark);
}

/* split_rec on within forms: set and v[] local, set's exact set set & ok. */
static void split_within(sa_ctx *c, const sa__within *okw, split *s, const BDD *v, int k, BDD set,
                         unsigned value)
{
    if (sa__within_empty(okw, set))
        return;
    if (k < 0) {
        split_leaf(c, s, set, value);
        return;
    }
    if (v[k] == bddfalse || v[k] == bddtrue) {
        split_within(c, okw, s, v, k - 1, set, value | (v[k] == bddtrue ? 1u << k : 0u));
        return;
    }
    size_t mark = sa__mark(c);
    BDD s0 = T(sa__diff(set, v[k]));
    BDD s1 = T(sa__and(set, v[k]));
    split_within(c, okw, s, v, k - 1, s0, value);
    split_within(c, okw, s, v, k - 1, s1, value | (1u << k));
    sa__release(c, mark);
}

/* fill_item within ok (above); vec: the stored offsets (r->cd_within says
 * which form: within, they are already the canonical v), or NULL. */
static void fill_item_within(sa_ctx *c, const sa_result *r, filler *fl, sa_item *it,
                             const char *name, BDD chi, const BDD *vec)
{
    split *s = &fl->s;
    it->name = name;
    size_t mark = sa__mark(c);
    if (!c->report_offsets_only)
        set_within(c, r, fl, chi, &it->active);
    if (vec != NULL && !sa__within_empty(fl->okw, chi)) {
        BDD *v = sa__slots(c, (size_t)r->w_off + 1);
        for (int b = 0; b < r->w_off; b++)
            sa__put(&v[b], r->cd_within ? vec[b] : sa__within_simplify(c, fl->okw, vec[b]));
        s->n = 0;
        split_within(c, fl->okw, s, v, r->w_off - 1, chi, 0);
        it->offsets = sa__alloc_keep(c, (s->n + 1) * sizeof *it->offsets);
        for (size_t k = 0; k < s->n; k++) {
            it->offsets[k].value = (int)s->values[k];
            set_within(c, r, fl, s->sets[k], &it->offsets[k].modes);
            it->n_offsets = k + 1;
        }
        for (size_t k = 0; k < s->n; k++)
            sa__put(&s->sets[k], bddfalse);
    }
    sa__release(c, mark);
}

/* Items whose sets are not computed (sa__report_skipping): skip_eq[i],
 * skip_var[j]; NULL: none. */
typedef struct skips {
    const bool *eq, *var;
} skips;

/* How many of n are not skipped (skip NULL: none is). */
static size_t computed(const bool *skip, size_t n)
{
    size_t k = n;
    for (size_t q = 0; skip != NULL && q < n; q++)
        k -= skip[q];
    return k;
}

/* The diagnostics of r: its overdetermined equations and underdetermined
 * variables. */
static size_t diagnosed(const sa_result *r)
{
    size_t nd = 0;
    for (uint32_t i = 0; i < r->n_eq; i++)
        nd += r->over[i] != bddfalse;
    for (uint32_t j = 0; j < r->n_var; j++)
        nd += r->under[j] != bddfalse;
    return nd;
}

static int build(sa_ctx *c, const sa_result *r, skips sk)
{
    sa_report *rep = c->rep;
    const mel_model *m = r->m;
    rep->n_modes = r->n_modes;
    const char **names = sa__alloc_keep(c, (r->n_modes + 1) * sizeof *names);
    rep->mode_names = names;
    for (uint32_t k = 0; k < r->n_modes; k++)
        names[k] = m->modes[k].name;
    rep->valid_modes = r->valid_count;
    rep->valid_modes_log2 = mdae_bn_log2(&r->valid_exact);
    /* at most 10 digits per limb (mdae_bn_dec), kept before the digits so
     * that a failure leaks nothing */
    rep->valid_modes_exact = sa__alloc_keep(c, (size_t)r->valid_exact.n * 10 + 2);
    char *dec = mdae_bn_dec(&r->valid_exact);
    if (dec == NULL)
        sa__fail(c, MDAE_E_NOMEM);
    memcpy(rep->valid_modes_exact, dec, strlen(dec) + 1);
    mdae_free(dec);
    rep->singular = r->singular != bddfalse;
    sa__care cs;
    sa__care_init(c, r, c->care, &cs);
    filler fl = {&cs, {0}, {0}, NULL, {0}};
    /* sized by the sets it may hold: the items computed, the diagnostics
     * (a memo that is full only stops keeping: the sets are the same) */
    size_t nd = c->report_offsets_only ? 0 : diagnosed(r);
    size_t items = 2 * (computed(sk.eq, r->n_eq) + computed(sk.var, r->n_var));
    sa__within okw;
    if (report_within(c, r, &cs)) {
        sa__within_init(c, r->ok, &okw);
        fl.okw = &okw;
        sa__set_memo_init(c, &fl.wmemo, items);
        items = 0;
    }
    sa__set_memo_init(c, &fl.memo, items + nd + 1);
    item_filler *fill = fl.okw != NULL ? fill_item_within : fill_item;
    sa__set_of_memo(c, r, &cs, &fl.memo, r->singular, &rep->singular_modes);
    /* not zeroed by the allocator: each item written once below, counted
     * as it is (sa_report_free reads the items counted) */
    rep->equations = sa__alloc_keep_raw(c, (r->n_eq + 1) * sizeof *rep->equations);
    rep->variables = sa__alloc_keep_raw(c, (r->n_var + 1) * sizeof *rep->variables);
    fl.s.cap = 4096;
    fl.s.values = sa__alloc(c, fl.s.cap * sizeof *fl.s.values);
    fl.s.sets = sa__slots(c, fl.s.cap);
    for (uint32_t i = 0; i < r->n_eq; i++) {
        rep->equations[i] = (sa_item){.name = m->equations[i].name};
        rep->n_equations = i + 1;
        if (sk.eq == NULL || !sk.eq[i])
            fill(c, r, &fl, &rep->equations[i], m->equations[i].name, r->chi_i[i],
                 r->c ? sa__c_row(r, i) : NULL);
    }
    for (uint32_t j = 0; j < r->n_var; j++) {
        rep->variables[j] = (sa_item){.name = m->variables[j].name};
        rep->n_variables = j + 1;
        if (sk.var == NULL || !sk.var[j])
            fill(c, r, &fl, &rep->variables[j], m->variables[j].name, r->chi_j[j],
                 r->d ? sa__d_row(r, j) : NULL);
    }
    if (c->report_offsets_only)
        return MDAE_OK;
    rep->diagnostics = sa__alloc_keep(c, (nd + 1) * sizeof *rep->diagnostics);
    for (uint32_t i = 0; i < r->n_eq; i++) {
        if (r->over[i] == bddfalse)
            continue;
        sa_diagnostic *dg = &rep->diagnostics[rep->n_diagnostics];
        dg->kind = SA_DIAG_OVERDETERMINED;
        dg->index = i;
        sa__set_of_memo(c, r, &cs, &fl.memo, r->over[i], &dg->modes);
        rep->n_diagnostics++;
    }
    for (uint32_t j = 0; j < r->n_var; j++) {
        if (r->under[j] == bddfalse)
            continue;
        sa_diagnostic *dg = &rep->diagnostics[rep->n_diagnostics];
        dg->kind = SA_DIAG_UNDERDETERMINED;
        dg->index = j;
        sa__set_of_memo(c, r, &cs, &fl.memo, r->under[j], &dg->modes);
        rep->n_diagnostics++;
    }
    return MDAE_OK;
}

int sa_result_report(const sa_result *r, sa_report **out)
{
    return sa_result_report_ex(r, SA_REPORT_VALID_CARE, out);
}

int sa__report_skipping(const sa_result *r, unsigned flags, const bool *skip_eq,
                        const bool *skip_var, sa_report **out)
{
    skips sk = {skip_eq, skip_var};
    if (r == NULL || out == NULL)
        return MDAE_E_INVAL;
    if (!sa__running())
        return MDAE_E_STATE;
    sa_ctx *c = mdae_malloc(sizeof *c);
    if (c == NULL)
        return MDAE_E_NOMEM;
    sa__ctx_init(c, NULL, NULL);
    c->rep = mdae_calloc(1, sizeof *c->rep);
    if (c->rep == NULL) {
        mdae_free(c);
        return MDAE_E_NOMEM;
    }
    if (setjmp(c->jb)) {
        int rc = c->rc;
        sa__leave(c);
        sa_report_free(c->rep);
        mdae_free(c);
        return rc;
    }
    sa__enter(c);
    c->r = (sa_result *)r; /* read only here */
    c->care = (flags & SA_REPORT_VALID_CARE) ? r->chi_m : bddtrue;
    c->report_offsets_only = (flags & SA_REPORT_OFFSETS_ONLY) != 0;
    build(c, r, sk);
    sa_report *rep = c->rep;
    sa__leave(c);
    mdae_free(c);
    *out = rep;
    return MDAE_OK;
}

int sa_result_report_ex(const sa_result *r, unsigned flags, sa_report **out)
{
    return sa__report_skipping(r, flags, NULL, NULL, out);
}

/* ---- The items' part of a report after an earlier one (sa_int.h) -----------------
 *
 * Why an item whose keys are the earlier report's has the same report.
 * fill_item makes an item's sets from three functions: chi_m & chi (where
 * it is active), and the split of ok & chi by the bits of its offset
 * vector (a recursion over the bits, high bit first, on the handles: a
 * constant bit takes one branch without an operation, so bits above
 * another vector's width that are false change nothing). Each set is
 * sa__set_of_memo's cover of a function f within the care set chi_m: the
 * ISOP of [f & care, f | !care], whether the care is split into factors
 * or not (sa_sop.c's claim: the same cubes in the same order), walked by
 * level, its literals named by the mode variable of each BDD variable and
 * sorted by mode index, its formula written with the mode variables'
 * names. So the item's sets are a function of (chi, its bits) and of
 * chi_m, ok, the levels of the mode variables' BDD variables, which BDD
 * variable is which mode variable, and the modes' names; the JSON of the
 * item adds only its name and the modes' names. A BDD handle that is
 * referenced names one function for as long as it is (BuDDy's nodes are
 * unique: the same function in the same variable order is the same node,
 * and a node is not reused while referenced; a sifting keeps referenced
 * handles' functions but changes the order, which the levels and
 * sa__layout_epoch say). The keys hold every handle referenced, so equal
 * handles are equal functions, and equal keys an equal report. The same
 * for a block (its guard's handle, its items by index and order, their
 * names) and an edge (its ends, its guard's handle, exact on ok):
 * cdg_view.c.
 *
 * Their cost: an item's keys are its handles (chi and the bits up to its
 * highest one that is not false) and its name, copied once and then shared
 * by the next keys while no name changes (key_names); comparing them is
 * reading them, where computing its sets was a count, a cover and a
 * formula or a copy of each. */

/* The names of keys: the modes', equations' and variables' as the JSON
 * gives them ("?" for none), copied, and shared by the next keys when
 * every name is the same (reference counted). Why copied and not
 * borrowed from the model: keys outlive their result's model (the worker
 * frees a version's model when the next version loads, and reads the
 * keys at that version's report), so a borrowed name could be read after
 * its model is freed. Sharing the copy instead makes a version whose
 * names did not change cost one comparison per name (against the copy,
 * which it then keeps) and no copy; and the items' names are then known
 * equal by the pointer (sa__item_keys_mark). */
typedef struct key_names {
    size_t refs;  /* keys holding it */
    size_t n;     /* n_modes + n_eq + n_var */
    size_t *at;   /* n + 1: name q is chars + at[q], NUL-terminated */
    char *chars;
} key_names;

struct sa__item_keys {
    unsigned long epoch;    /* sa__layout_epoch */
    BDD chi_m, ok;          /* referenced */
    uint32_t n_modes, n_eq, n_var;
    int *mode_var;          /* n_modes: r->mode_var */
    int *mode_level;        /* n_modes: that variable's level */
    bool has_c, has_d;      /* offset vectors */
    BDD *item;              /* per item (equations, then variables): chi, then
                               its offset vector's bits up to the last that
                               is not false (the others are); referenced */
    size_t *item_at;        /* n_eq + n_var + 1: item q's are item[item_at[q]
                               .. item_at[q + 1]) */
    key_names *names;       /* owned with other keys (refs) */
};

static void names_drop(key_names *kn)
{
    if (kn == NULL || --kn->refs > 0)
        return;
    mdae_free(kn->at);
    mdae_free(kn->chars);
    mdae_free(kn);
}

void sa__item_keys_free(sa__item_keys *k)
{
    if (k == NULL)
        return;
    bdd_delref(k->chi_m);
    bdd_delref(k->ok);
    size_t n = k->item_at != NULL ? k->item_at[(size_t)k->n_eq + k->n_var] : 0;
    for (size_t q = 0; q < n; q++)
        bdd_delref(k->item[q]);
    mdae_free(k->mode_var);
    mdae_free(k->mode_level);
    mdae_free(k->item);
    mdae_free(k->item_at);
    names_drop(k->names);
    mdae_free(k);
}

static const char *shown(const char *name) { return name != NULL ? name : "?"; }

/* Name q of r's keys: the modes', then the equations', then the
 * variables'. */
static const char *name_of(const sa_result *r, size_t q)
{
    const mel_model *m = r->m;
    if (q < r->n_modes)
        return shown(m->modes[q].name);
    q -= r->n_modes;
    return shown(q < r->n_eq ? m->equations[q].name : m->variables[q - r->n_eq].name);
}

/* Does prev hold r's names (the same strings at the same places)? One
 * strcmp per name, the loops split by kind (no name_of per name). */
static bool names_equal(const key_names *prev, const sa_result *r)
{
    const mel_model *m = r->m;
    if (prev->n != (size_t)r->n_modes + r->n_eq + r->n_var)
        return false;
    const char *chars = prev->chars;
    const size_t *at = prev->at;
    for (uint32_t q = 0; q < r->n_modes; q++)
        if (strcmp(shown(m->modes[q].name), chars + at[q]) != 0)
            return false;
    at += r->n_modes;
    for (uint32_t i = 0; i < r->n_eq; i++)
        if (strcmp(shown(m->equations[i].name), chars + at[i]) != 0)
            return false;
    at += r->n_eq;
    for (uint32_t j = 0; j < r->n_var; j++)
        if (strcmp(shown(m->variables[j].name), chars + at[j]) != 0)
            return false;
    return true;
}

/* A copy of r's names (refs 1), or NULL on OOM. */
static key_names *names_copy(const sa_result *r)
{
    key_names *kn = mdae_calloc(1, sizeof *kn);
    if (kn == NULL)
        return NULL;
    size_t n = kn->n = (size_t)r->n_modes + r->n_eq + r->n_var, len = 0;
    kn->refs = 1;
    if ((kn->at = mdae_malloc((n + 1) * sizeof *kn->at)) == NULL) {
        names_drop(kn);
        return NULL;
    }
    for (size_t q = 0; q < n; q++) {
        kn->at[q] = len;
        len += strlen(name_of(r, q)) + 1;
    }
    kn->at[n] = len;
    if ((kn->chars = mdae_malloc(len + 1)) == NULL) {
        names_drop(kn);
        return NULL;
    }
    for (size_t q = 0; q < n; q++)
        memcpy(kn->chars + kn->at[q], name_of(r, q), kn->at[q + 1] - kn->at[q]);
    return kn;
}

/* Two BDDs at v as one 64-bit word. */
static inline uint64_t two_bdds(const BDD *v)
{
    _Static_assert(2 * sizeof *v == sizeof(uint64_t), "a BDD is 32 bits");
    uint64_t x;
    memcpy(&x, v, sizeof x);
    return x;
}

/* The width of offset vector v[0 .. w) without its high false bits. Most
 * of an item's w_off bits are false (the brake's offsets take two of
 * 30-odd), so this reads them eight at a time while they are (as words:
 * bddfalse is BuDDy's 0, read once: it is a variable of the library, not
 * a constant). */
static int trimmed_width(const BDD *v, int w)
{
    const BDD f = bddfalse;
    if (f == 0)
        while (w >= 8 && (two_bdds(v + w - 8) | two_bdds(v + w - 6) | two_bdds(v + w - 4) |
                          two_bdds(v + w - 2)) == 0)
            w -= 8;
    while (w > 0 && v[w - 1] == f)
        w--;
    return w;
}

/* k's items' handles, referenced, and item_at (allocated by the caller).
 * The offsets' handles as stored: under one ok, an exact bit and a within
 * one with the same handle are the same function (the exact one is false
 * out of ok, so the within one is, and it equals its conjunction with ok),
 * so equal keys still mean equal items; forms that differ give different
 * keys (a miss, not a wrong hit). */
static void keys_items(sa__item_keys *k, const sa_result *r)
{
    size_t n = 0, q = 0;
    for (uint32_t i = 0; i < r->n_eq; i++, q++) {
        const BDD *vec = r->c != NULL ? sa__c_row(r, i) : NULL;
        int w = vec != NULL ? trimmed_width(vec, r->w_off) : 0;
        k->item[n++] = bdd_addref(r->chi_i[i]);
        for (int b = 0; b < w; b++)
            k->item[n++] = bdd_addref(vec[b]);
        k->item_at[q + 1] = n;
    }
    for (uint32_t j = 0; j < r->n_var; j++, q++) {
        const BDD *vec = r->d != NULL ? sa__d_row(r, j) : NULL;
        int w = vec != NULL ? trimmed_width(vec, r->w_off) : 0;
        k->item[n++] = bdd_addref(r->chi_j[j]);
        for (int b = 0; b < w; b++)
            k->item[n++] = bdd_addref(vec[b]);
        k->item_at[q + 1] = n;
    }
}

sa__item_keys *sa__item_keys_new(const sa_result *r, const sa__item_keys *prev)
{
    sa__item_keys *k = mdae_calloc(1, sizeof *k);
    if (k == NULL)
        return NULL;
    k->epoch = sa__layout_epoch();
    k->chi_m = bdd_addref(r->chi_m);
    k->ok = bdd_addref(r->ok);
    k->n_modes = r->n_modes;
    k->n_eq = r->n_eq;
    k->n_var = r->n_var;
    k->has_c = r->c != NULL;
    k->has_d = r->d != NULL;
    size_t n_items = (size_t)r->n_eq + r->n_var;
    k->mode_var = mdae_malloc(((size_t)r->n_modes + 1) * sizeof *k->mode_var);
    k->mode_level = mdae_malloc(((size_t)r->n_modes + 1) * sizeof *k->mode_level);
    k->item = mdae_malloc((n_items * (1 + (size_t)r->w_off) + 1) * sizeof *k->item);
    k->item_at = mdae_malloc((n_items + 1) * sizeof *k->item_at);
    if (k->item_at != NULL) /* nothing referenced until keys_items sets the last */
        k->item_at[0] = k->item_at[n_items] = 0;
    if (prev != NULL && names_equal(prev->names, r)) {
        k->names = prev->names;
        k->names->refs++;
    } else {
        k->names = names_copy(r);
    }
    if (k->mode_var == NULL || k->mode_level == NULL || k->item == NULL || k->item_at == NULL ||
        k->names == NULL) {
        sa__item_keys_free(k);
        return NULL;
    }
    for (uint32_t q = 0; q < r->n_modes; q++) {
        k->mode_var[q] = r->mode_var[q];
        k->mode_level[q] = bdd_var2level(r->mode_var[q]);
    }
    keys_items(k, r);
    return k;
}

/* Name q of k (modes, equations, variables). */
static const char *key_name(const sa__item_keys *k, size_t q)
{
    return k->names->chars + k->names->at[q];
}

bool sa__item_keys_alike(const sa__item_keys *a, const sa__item_keys *b)
{
    if (a->epoch != b->epoch || a->chi_m != b->chi_m || a->ok != b->ok ||
        a->n_modes != b->n_modes || a->has_c != b->has_c || a->has_d != b->has_d)
        return false;
    for (uint32_t q = 0; q < a->n_modes; q++)
        if (a->mode_var[q] != b->mode_var[q] || a->mode_level[q] != b->mode_level[q])
            return false;
    if (a->names == b->names) /* shared: every name the same */
        return true;
    for (uint32_t q = 0; q < a->n_modes; q++)
        if (strcmp(key_name(a, q), key_name(b, q)) != 0)
            return false;
    return true;
}

bool sa__item_keys_all_named(const sa__item_keys *k, const sa__item_keys *prev)
{
    /* shared names (the same strings), split alike into modes, equations
     * and variables */
    return k->names == prev->names && k->n_modes == prev->n_modes && k->n_eq == prev->n_eq;
}

/* Item q of a (equations, then variables) and item p of b: the same name?
 * (The same place in shared names is the same string.) */
static bool item_named(const sa__item_keys *a, size_t q, const sa__item_keys *b, size_t p)
{
    const char *x = key_name(a, a->n_modes + q), *y = key_name(b, b->n_modes + p);
    return x == y || strcmp(x, y) == 0;
}

/* The same handles (the bits past the last one kept are false in both)? */
static inline bool item_keyed(const sa__item_keys *a, size_t q, const sa__item_keys *b, size_t p)
{
    const BDD *x = &a->item[a->item_at[q]], *y = &b->item[b->item_at[p]];
    size_t n = a->item_at[q + 1] - a->item_at[q];
    if (n != b->item_at[p + 1] - b->item_at[p])
        return false;
    for (size_t t = 0; t < n; t++)
        if (x[t] != y[t])
            return false;
    return true;
}

bool sa__item_keys_mark(const sa__item_keys *k, const sa__item_keys *prev, bool **eq_same,
                        bool **var_same, bool **eq_named, bool **var_named)
{
    *eq_same = mdae_calloc((size_t)k->n_eq + 1, sizeof **eq_same);
    *var_same = mdae_calloc((size_t)k->n_var + 1, sizeof **var_same);
    *eq_named = mdae_calloc((size_t)k->n_eq + 1, sizeof **eq_named);
    *var_named = mdae_calloc((size_t)k->n_var + 1, sizeof **var_named);
    if (*eq_same == NULL || *var_same == NULL || *eq_named == NULL || *var_named == NULL)
        return false;
    if (prev == NULL)
        return true;
    MDAE_ASSERT(sa__item_keys_alike(k, prev));
    uint32_t ne = k->n_eq < prev->n_eq ? k->n_eq : prev->n_eq;
    uint32_t nv = k->n_var < prev->n_var ? k->n_var : prev->n_var;
    bool all_named = sa__item_keys_all_named(k, prev);
    if (all_named) {
        memset(*eq_named, true, ne);
        memset(*var_named, true, nv);
    }
    for (uint32_t i = 0; i < ne; i++) {
        if (!all_named)
            (*eq_named)[i] = item_named(k, i, prev, i);
        (*eq_same)[i] = (*eq_named)[i] && item_keyed(k, i, prev, i);
    }
    for (uint32_t j = 0; j < nv; j++) {
        size_t q = (size_t)k->n_eq + j, p = (size_t)prev->n_eq + j;
        if (!all_named)
            (*var_named)[j] = item_named(k, q, prev, p);
        (*var_same)[j] = (*var_named)[j] && item_keyed(k, q, prev, p);
    }
    return true;
}

typedef struct count_job {
    uint32_t k;
    bool value;
    double *out;
    mdae_bn *exact; /* or NULL */
} count_job;

static void count_one(sa_ctx *c, void *arg)
{
    count_job *j = arg;
    const sa_result *r = c->r;
    BDD lit = j->value ? bdd_ithvar(r->mode_var[j->k]) : bdd_nithvar(r->mode_var[j->k]);
    BDD f = T(bdd_and(r->chi_m, lit));
    *j->out = sa__count_modes(c, r, f);
    if (j->exact != NULL)
        sa__count_modes_exact(c, r, f, NULL, 0, *j->out, j->exact);
}

int sa_result_count_mode(const sa_result *r, uint32_t k, bool value, double *out)
{
    if (r == NULL || out == NULL || k >= r->n_modes)
        return MDAE_E_INVAL;
    if (!sa__running())
        return MDAE_E_STATE;
    count_job j = {k, value, out, NULL};
    return sa__run_on(r, NULL, 0, count_one, &j);
}

int sa_result_count_mode_exact(const sa_result *r, uint32_t k, bool value, mdae_bn *out)
{
    if (r == NULL || out == NULL || k >= r->n_modes)
        return MDAE_E_INVAL;
    if (!sa__running())
        return MDAE_E_STATE;
    double approx = 0;
    count_job j = {k, value, &approx, out};
    return sa__run_on(r, NULL, 0, count_one, &j);
}

/* ---- Three classes of the valid modes (sa_result_partition) ---------------- */

/* Class k of the valid modes: 0 nonsingular, 1 singular without an
 * underdetermined variable, 2 singular with one: from the diagnostics when
 * they were computed, else (sa_options.skip_diagnostics) from this: a
 * singular mode has an underdetermined variable iff its maximum matchings
 * are smaller than its variables (then each leaves one out), i.e. iff no
 * matching leaves no variable out -- the matchings with every active
 * variable matched once (sa__matchings_ex). */
/* The singular modes of r where some matching leaves no active variable
 * out (within `within`, a BDD: false if no singular mode is there), as a
 * temporary. */
static BDD covered_modes(sa_ctx *c, BDD within)
{
    const sa_result *r = c->r;
    if (within != bddtrue && T(bdd_and(r->singular, within)) == bddfalse)
        return bddfalse;
    if (!r->diagnostics_skipped) { /* computed anyway (the enumeration's are cheap) */
        BDD *acc = sa__slots(c, 1);
        sa__put(acc, bddfalse);
        for (uint32_t v = 0; v < r->n_var; v++)
            sa__put(acc, bdd_or(*acc, r->under[v]));
        return T(bdd_apply(r->singular, *acc, bddop_diff));
    }
    /* The matchings themselves only if R4 built them already (their
     * existence alone is much cheaper to find). */
    BDD some = r->covering_exists_known ? r->covering_exists
               : r->covering_known      ? T(bdd_exist(r->covering, sa__edgeset(c, r)))
                                        : sa__matchable(c, false, true, "partition");
    return T(bdd_and(some, r->singular));
}

static BDD partition_class(sa_ctx *c, const sa_result *r, int k, BDD covered)
{
    if (k == 0)
        return T(bdd_and(r->chi_m, bdd_not(r->singular)));
    return T(bdd_and(r->singular, k == 2 ? bdd_not(covered) : covered));
}

typedef struct partition_job {
    const mel_guard *within; /* the classes within it, or NULL: all */
    sa_set *out;             /* 3 */
    double *count;           /* 3 */
    mdae_bn *exact;          /* 3, or NULL */
} partition_job;

/* Each class's size, then its set, left empty past the context's limit
 * of cubes (the size is written first). One context for the three: the
 * care set's factors, the `within` guard's BDD and the covering modes are
 * made once (they were made for each class, and the covering modes in a
 * context of their own: the brake's pairs at N = 100, a tenth of the
 * classes' instructions). */
static void partition_all(sa_ctx *c, void *arg)
{
    partition_job *j = arg;
    const sa_result *r = c->r;
    BDD *within = sa__slots(c, 1);
    sa__put(within, bddtrue);
    sa__gmemo gm;
    memset(&gm, 0, sizeof gm);
    if (j->within != NULL)
        sa__put(within, sa__guard_bdd(c, &gm, j->within));
    BDD *covered = sa__slots(c, 1);
    sa__put(covered, covered_modes(c, *within));
    sa__care cs;
    sa__care_init(c, r, r->chi_m, &cs);
    for (int k = 0; k < 3; k++) {
        size_t mark = sa__mark(c);
        BDD f = partition_class(c, r, k, *covered);
        if (j->within != NULL)
            f = T(bdd_and(f, *within));
        j->count[k] = sa__count_modes(c, r, f);
        if (j->exact != NULL)
            sa__count_modes_exact(c, r, f, NULL, 0, j->count[k], &j->exact[k]);
        sa__set_of_care_if_few(c, r, f, &cs, &j->out[k]); /* else left empty */
        sa__release(c, mark);
    }
}

int sa_result_partition(const sa_result *r, size_t max_cubes, sa_set out[3], double count[3])
{
    return sa_result_partition_exact(r, NULL, max_cubes, out, count, NULL);
}

int sa_result_partition_within(const sa_result *r, const mel_guard *within, size_t max_cubes,
                               sa_set out[3], double count[3])
{
    return sa_result_partition_exact(r, within, max_cubes, out, count, NULL);
}

int sa_result_partition_exact(const sa_result *r, const mel_guard *within, size_t max_cubes,
                              sa_set out[3], double count[3], mdae_bn exact[3])
{
    if (r == NULL || out == NULL || count == NULL)
        return MDAE_E_INVAL;
    if (!sa__running())
        return MDAE_E_STATE;
    memset(out, 0, 3 * sizeof *out);
    for (int k = 0; k < 3; k++)
        count[k] = -1;
    partition_job j = {within, out, count, exact};
    int rc = sa__run_on(r, NULL, max_cubes, partition_all, &j);
    if (rc != MDAE_OK)
        for (int k = 0; k < 3; k++)
            sa__set_close(&out[k]);
    return rc;
}

typedef struct guard_job {
    const mel_guard *g;
    sa_set *out;
} guard_job;

static void guard_one(sa_ctx *c, void *arg)
{
    guard_job *j = arg;
    const sa_result *r = c->r;
    sa__gmemo gm;
    memset(&gm, 0, sizeof gm);
    BDD f = T(bdd_and(r->chi_m, sa__guard_bdd(c, &gm, j->g)));
    sa__care cs;
    sa__care_init(c, r, r->chi_m, &cs);
    sa__set_of_care(c, r, f, &cs, j->out);
}

int sa_result_guard_set(const sa_result *r, const mel_guard *g, size_t max_cubes, sa_set *out)
{
    if (r == NULL || g == NULL || out == NULL)
        return MDAE_E_INVAL;
    if (!sa__running())
        return MDAE_E_STATE;
    memset(out, 0, sizeof *out);
    guard_job j = {g, out};
    int rc = sa__run_on(r, NULL, max_cubes, guard_one, &j);
    if (rc != MDAE_OK)
        sa__set_close(out);
    return rc;
}

void sa_set_close(sa_set *s)
{
    if (s != NULL)
        sa__set_close(s);
}
